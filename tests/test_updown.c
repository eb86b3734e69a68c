/* SPDX-License-Identifier: MIT */
/*
 * updown under failures and with switch-side load balancing.
 *
 * Failures: links taken down with ws_link_set() (the rule is told at once);
 * every host pair's route, traced as the switches would, never crosses a
 * down link, never loops, and reaches its destination exactly when an
 * independent search says the destination is reachable over the live
 * links by an up/down path (up to the first switch that covers the
 * destination, then down: the rule's path set).  Single failures
 * everywhere on k = 4 and k = 6 fat-trees, random multi-failure sets, two
 * failures fatal only together, a Clos with parallel links, a dual-plane
 * rail, and a link that comes back.
 *
 * Load balancing: spray reaches line rate on an idle permutation and
 * spreads bytes evenly over the up ports where ECMP does not; flowlet
 * keeps a paced flow on one port; adaptive avoids a loaded port; probes
 * change no state; same seed, same bytes for every lb.
 */
#include "th.h"

#include <stdlib.h>
#include <string.h>

/* ---- an independent reachability oracle ------------------------------------ */

/* Node x can reach host d by the up/down path set over live links:
 * 1 yes, 0 no; memo[] holds 2 for unknown. */
static int reach(struct ws_sim *sim, uint32_t x, uint32_t d, uint8_t *memo)
{
	if (x == d)
		return 1;
	if (memo[x] != 2)
		return memo[x];
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	const struct ws_node *n = ws_node_get(fab, x), *dn = ws_node_get(fab, d);
	bool cover = n->kind == WS_NODE_SWITCH;
	for (uint32_t i = 0; cover && i < n->addr_len; i++)
		cover = n->addr[i] == dn->addr[i];
	uint32_t lo = n->n_down, hi = n->n_ports;
	if (cover) {
		lo = dn->addr[n->addr_len] * n->down_group;
		hi = lo + n->down_group;
	}
	int r = 0;
	for (uint32_t p = lo; p < hi && !r; p++) {
		struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
		assert_int_equal(ws_port_info(sim, x, p, &pi), WS_OK);
		if (!ws_port_up(sim, x, p))
			continue;
		const struct ws_node *y = ws_node_get(fab, pi.peer_node);
		if (y->kind == WS_NODE_HOST && pi.peer_node != d)
			continue;
		r = reach(sim, pi.peer_node, d, memo);
	}
	memo[x] = (uint8_t)r;
	return r;
}

/* Every pair (and `sports` entropy values): the trace agrees with the
 * oracle, crosses only live links, visits no node twice.  Returns the
 * unreachable pairs. */
static unsigned check_pairs(struct ws_sim *sim, unsigned sports, uint32_t stride)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint8_t *memo = malloc(fab->n_nodes);
	struct ws_hop hops[64];
	unsigned dead = 0;
	for (uint32_t di = 0; di < fab->n_hosts; di++) {
		const uint32_t d = fab->hosts[di];
		memset(memo, 2, fab->n_nodes);
		for (uint32_t si = di % stride; si < fab->n_hosts; si += stride) {
			const uint32_t s = fab->hosts[si];
			if (s == d)
				continue;
			const struct ws_node *sn = ws_node_get(fab, s);
			/* a one-port host whose link is down sends nothing */
			if (sn->n_ports == 1 && !ws_port_up(sim, s, 0))
				continue;
			const int want = reach(sim, s, d, memo);
			dead += !want;
			for (unsigned k = 0; k < sports; k++) {
				struct ws_pkt p;
				struct ws_err err;
				uint32_t n = 0;
				ws_pkt_probe(&p, s, d, (uint16_t)(1000 + 7919 * k + si), 100);
				int rc = ws_route_trace(sim, &p, hops, 64, &n, &err);
				if (want && rc != WS_OK)
					fail_msg("%u -> %u (sport #%u) is reachable but the "
						 "rule says: %s", s, d, k, err.msg);
				if (!want) {
					if (rc == WS_OK)
						fail_msg("%u -> %u is unreachable but the "
							 "trace got there", s, d);
					continue;
				}
				for (uint32_t i = 0; i + 1 < n; i++) {
					assert_true(ws_port_up(sim, hops[i].node, hops[i].port));
					for (uint32_t j = i + 1; j < n; j++)
						assert_int_not_equal(hops[i].node, hops[j].node);
				}
			}
		}
	}
	free(memo);
	return dead;
}

static struct ws_sim *topo_sim(const char *topo, const char *routing)
{
	th_write("empty.txt", "0\n");
	return th_sim(th_fmt("[topology]\n%s\n[routing]\nname = updown\n%s\n"
			     "[workload]\nname = flows\nfile = empty.txt\n",
			     topo, routing ? routing : ""));
}

/* The links of a fabric, each once: (node, up port) of its lower end. */
static uint32_t uplinks(struct ws_sim *sim, uint32_t *node, uint32_t *port)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t n = 0;
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *x = ws_node_get(fab, i);
		for (uint32_t p = x->n_down; p < x->n_ports; p++) {
			node[n] = i;
			port[n++] = p;
		}
	}
	return n;
}

static void link_set(struct ws_sim *sim, uint32_t node, uint32_t port, bool up)
{
	struct ws_err err;
	if (ws_link_set(sim, node, port, up, &err) != WS_OK)
		fail_msg("ws_link_set(%u, %u, %d): %s", node, port, up, err.msg);
}

/* Each link alone down, then back. */
static void check_single_failures(const char *topo, unsigned sports, uint32_t stride)
{
	struct ws_sim *sim = topo_sim(topo, NULL);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t *node = malloc(fab->n_ports * sizeof *node);
	uint32_t *port = malloc(fab->n_ports * sizeof *port);
	const uint32_t links = uplinks(sim, node, port);
	assert_int_equal(links, fab->n_links);
	unsigned dead_host_links = 0;
	for (uint32_t i = 0; i < links; i++) {
		link_set(sim, node[i], port[i], false);
		unsigned dead = check_pairs(sim, sports, stride);
		const struct ws_node *x = ws_node_get(fab, node[i]);
		/* only a one-port host's own link cuts anything off */
		if (x->kind == WS_NODE_HOST && x->n_ports == 1)
			dead_host_links += dead > 0;
		else
			assert_int_equal(dead, 0);
		link_set(sim, node[i], port[i], true);
	}
	assert_int_equal(check_pairs(sim, 1, stride), 0);
	free(node);
	free(port);
	ws_sim_free(sim);
}

static void test_fat_tree_k4_single(void **state)
{
	(void)state;
	check_single_failures("name = fat-tree\nk = 4", 3, 1);
}

static void test_fat_tree_k6_single(void **state)
{
	(void)state;
	check_single_failures("name = fat-tree\nk = 6", 1, 3);
}

/* Random sets of `nfail` links down at once, checked, then all back. */
static void check_random_sets(const char *topo, unsigned sets, unsigned nfail,
			      uint64_t seed, uint32_t stride, unsigned *dead_sets)
{
	struct ws_sim *sim = topo_sim(topo, NULL);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t *node = malloc(fab->n_ports * sizeof *node);
	uint32_t *port = malloc(fab->n_ports * sizeof *port);
	const uint32_t links = uplinks(sim, node, port);
	uint32_t *pick = malloc(nfail * sizeof *pick);
	for (unsigned s = 0; s < sets; s++) {
		for (unsigned k = 0; k < nfail; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			pick[k] = (uint32_t)((seed >> 33) % links);
			/* switch-to-switch links: a host's own link is trivial */
			if (ws_node_get(fab, node[pick[k]])->kind == WS_NODE_HOST &&
			    ws_node_get(fab, node[pick[k]])->n_ports == 1) {
				k--;
				continue;
			}
			if (ws_port_up(sim, node[pick[k]], port[pick[k]]))
				link_set(sim, node[pick[k]], port[pick[k]], false);
		}
		*dead_sets += check_pairs(sim, 1, stride) > 0;
		for (unsigned k = 0; k < nfail; k++)
			if (!ws_port_up(sim, node[pick[k]], port[pick[k]]))
				link_set(sim, node[pick[k]], port[pick[k]], true);
	}
	assert_int_equal(check_pairs(sim, 1, stride), 0);
	free(pick);
	free(node);
	free(port);
	ws_sim_free(sim);
}

static void test_fat_tree_random_sets(void **state)
{
	(void)state;
	unsigned dead = 0;
	check_random_sets("name = fat-tree\nk = 4", 40, 3, 1, 1, &dead);
	check_random_sets("name = fat-tree\nk = 4", 40, 6, 2, 1, &dead);
	check_random_sets("name = fat-tree\nk = 6", 20, 10, 3, 2, &dead);
	check_random_sets("name = fat-tree\nk = 6", 20, 25, 4, 2, &dead);
	/* the sets are not all harmless: the unreachable side was exercised */
	assert_true(dead > 5);
}

/*
 * Two failures, each harmless alone, fatal together: on a k = 4 fat-tree,
 * edge 0 of pod 0 loses its link to aggregation 0 and aggregation 1 loses
 * its link to edge 0.  Hosts 0 and 1 are then cut off from everything but
 * each other; alone, either failure leaves a way.
 */
static void test_fatal_pair(void **state)
{
	(void)state;
	struct ws_sim *sim = topo_sim("name = fat-tree\nk = 4", NULL);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t edge0 = WS_NONE;
	for (uint32_t i = 0; i < fab->n_nodes && edge0 == WS_NONE; i++)
		if (ws_node_get(fab, i)->level == 1)
			edge0 = i;
	const struct ws_node *e = ws_node_get(fab, edge0);
	link_set(sim, edge0, e->n_down, false);
	assert_int_equal(check_pairs(sim, 4, 1), 0);
	link_set(sim, edge0, e->n_down + 1u, false);
	/* hosts 0 and 1 each reach 14 hosts; 14 reach each: 56 ordered pairs */
	assert_int_equal(check_pairs(sim, 4, 1), 56);
	link_set(sim, edge0, e->n_down, true);
	assert_int_equal(check_pairs(sim, 4, 1), 0);
	ws_sim_free(sim);
}

/* The port of `a` that leads to `b`. */
static uint32_t port_to(struct ws_sim *sim, uint32_t a, uint32_t b)
{
	const struct ws_node *n = ws_node_get(ws_sim_fabric(sim), a);
	for (uint32_t p = 0; p < n->n_ports; p++) {
		struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
		if (ws_port_info(sim, a, p, &pi) == WS_OK && pi.peer_node == b)
			return p;
	}
	fail_msg("no link between %u and %u", a, b);
	return 0;
}

/*
 * Failures at two levels that combine: aggregation 1 of pod 0 loses both
 * its core links (pod 0 is then unreachable through the cores of plane 1)
 * and edge 0 of pod 0 loses its link to aggregation 0 (edge 0 is then
 * unreachable through plane 0).  Either alone cuts nothing; together edge
 * 0's two hosts and the 12 hosts of other pods cannot reach each other.
 * The rule sees it only by carrying pod 0's cut-off cores into edge 0's.
 */
static void test_fatal_across_levels(void **state)
{
	(void)state;
	struct ws_sim *sim = topo_sim("name = fat-tree\nk = 4", NULL);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t edge0 = WS_NONE, agg[2] = { WS_NONE, WS_NONE };
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		if (n->level == 1 && edge0 == WS_NONE)
			edge0 = i;
		if (n->level == 2 && n->addr[0] == 0 && n->index < 2)
			agg[n->index] = i;
	}
	assert_int_not_equal(agg[1], WS_NONE);
	const uint32_t a1_up = ws_node_get(fab, agg[1])->n_down;
	link_set(sim, agg[1], a1_up, false);
	link_set(sim, agg[1], a1_up + 1u, false);
	assert_int_equal(check_pairs(sim, 4, 1), 0);
	link_set(sim, edge0, port_to(sim, edge0, agg[0]), false);
	assert_int_equal(check_pairs(sim, 4, 1), 48);
	link_set(sim, agg[1], a1_up, true);
	link_set(sim, agg[1], a1_up + 1u, true);
	assert_int_equal(check_pairs(sim, 4, 1), 0);
	ws_sim_free(sim);
}

/* A link that comes back carries traffic again. */
static void test_link_comes_back(void **state)
{
	(void)state;
	struct ws_sim *sim = topo_sim("name = fat-tree\nk = 4", NULL);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	/* an aggregation switch's first up link */
	uint32_t agg = WS_NONE;
	for (uint32_t i = 0; i < fab->n_nodes && agg == WS_NONE; i++)
		if (ws_node_get(fab, i)->level == 2)
			agg = i;
	const uint32_t up = ws_node_get(fab, agg)->n_down;
	unsigned crossing[3] = { 0, 0, 0 };
	for (unsigned phase = 0; phase < 3; phase++) {
		if (phase)
			link_set(sim, agg, up, phase == 2);
		for (uint32_t s = 0; s < fab->n_hosts; s++)
			for (uint32_t d = 0; d < fab->n_hosts; d++) {
				if (s == d)
					continue;
				struct ws_hop hops[16];
				for (uint16_t k = 0; k < 4; k++) {
					unsigned n = th_route(sim, fab->hosts[s], fab->hosts[d],
							      (uint16_t)(500 + k), NULL, hops, 16);
					for (unsigned i = 0; i < n; i++)
						crossing[phase] += hops[i].node == agg &&
								   hops[i].port == up;
				}
			}
	}
	assert_true(crossing[0] > 0);
	assert_int_equal(crossing[1], 0);
	assert_int_equal(crossing[2], crossing[0]); /* the same paths as before */
	ws_sim_free(sim);
}

/* A 3-tier Clos with pod wiring at the top and two parallel links. */
static void test_clos_parallel_links(void **state)
{
	(void)state;
	unsigned dead = 0;
	const char *topo = "name = clos\ntiers = 3\nradix = 8\nlinks2 = 2\n"
			   "connect3 = pod\ndown3 = 16\nradix3 = 16";
	check_random_sets(topo, 12, 4, 5, 4, &dead);
	check_random_sets(topo, 12, 20, 6, 4, &dead);
	check_random_sets("name = clos\ntiers = 2\nradix = 12\ndown1 = 8\nup1 = 4\n"
			  "links1 = 2", 20, 5, 7, 2, &dead);
	assert_true(dead > 0);
}

/* A dual-plane rail: a host picks a plane like a switch an up port. */
static void test_rail_dual_plane(void **state)
{
	(void)state;
	const char *topo = "name = rail\ngpus_per_server = 4\nservers_per_unit = 4\n"
			   "units = 2\ntiers = 3\nunits_per_pod = 1\ndual_plane = true";
	struct ws_sim *sim = topo_sim(topo, NULL);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	/* host 0's plane-0 link down: it still reaches everything, by plane 1 */
	link_set(sim, fab->hosts[0], 0, false);
	assert_int_equal(check_pairs(sim, 4, 1), 0);
	/* and its plane-1 link too: cut off both ways */
	link_set(sim, fab->hosts[0], 1, false);
	assert_int_equal(check_pairs(sim, 1, 1), 2 * (fab->n_hosts - 1));
	ws_sim_free(sim);
	unsigned dead = 0;
	check_random_sets(topo, 20, 6, 8, 2, &dead);
	check_random_sets(topo, 10, 30, 9, 2, &dead);
	assert_true(dead > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fat_tree_k4_single),
		cmocka_unit_test(test_fat_tree_k6_single),
		cmocka_unit_test(test_fat_tree_random_sets),
		cmocka_unit_test(test_fatal_pair),
		cmocka_unit_test(test_fatal_across_levels),
		cmocka_unit_test(test_link_comes_back),
		cmocka_unit_test(test_clos_parallel_links),
		cmocka_unit_test(test_rail_dual_plane),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
