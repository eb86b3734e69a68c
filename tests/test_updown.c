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


/* ---- load balancing ------------------------------------------------------------ */

/* A k = 4 fat-tree at 100 Gb/s, cc none, the flows of `flows`, lb and more keys. */
static struct ws_sim *lb_sim(const char *flows, const char *routing)
{
	th_write("lb.txt", flows);
	return th_sim(th_fmt("[sim]\nseed = 7\n[topology]\nname = fat-tree\nk = 4\n"
			     "[routing]\nname = updown\n%s\n[cc]\nname = none\n"
			     "[workload]\nname = flows\nfile = lb.txt\n", routing));
}

static uint64_t tx_bytes(struct ws_sim *sim, uint32_t node, uint32_t port)
{
	return ws_port_gid_tx_bytes(sim, ws_port_gid(sim, node, port));
}

static uint32_t peer_of(struct ws_sim *sim, uint32_t node, uint32_t port)
{
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	assert_int_equal(ws_port_info(sim, node, port, &pi), WS_OK);
	return pi.peer_node;
}

static void flow(struct ws_sim *sim, uint32_t id, struct ws_flow_info *fi)
{
	fi->size = sizeof *fi;
	assert_int_equal(ws_flow_get(sim, id, fi), WS_OK);
	assert_int_equal(fi->acked, fi->bytes);
}

/* The busiest up port of a tier over the tier's mean (tx bytes). */
static double tier_imbalance(struct ws_sim *sim, unsigned level)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint64_t max = 0, sum = 0, n = 0;
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *x = ws_node_get(fab, i);
		if (x->kind != WS_NODE_SWITCH || x->level != level)
			continue;
		for (uint32_t p = x->n_down; p < x->n_ports; p++) {
			uint64_t b = tx_bytes(sim, i, p);
			max = b > max ? b : max;
			sum += b;
			n++;
		}
	}
	return (double)max * (double)n / (double)sum;
}

/*
 * Spray: one flow on an idle fabric crosses all four core paths at line
 * rate (every path is as long and as idle: nothing reorders) and splits its
 * bytes over its edge's two up ports, where ECMP keeps one.  On an idle
 * cross-pod permutation every flow runs at line rate and spraying keeps
 * each tier's busiest up port within 15 % of the tier's mean; ECMP does
 * not.  (Where contention outlasts the gap between a flow's packets,
 * spraying reorders and go-back-N resends: docs/routing.md.)
 */
static void test_spray_line_rate_and_spread(void **state)
{
	(void)state;
	const char *modes[] = { "lb = ecmp", "lb = spray", "lb = spray\nspray_mode = round_robin" };
	for (unsigned m = 0; m < 3; m++) {
		struct ws_sim *sim = lb_sim("1\n0 8 3 100 256000 0\n", modes[m]);
		th_run(sim);
		struct ws_flow_info fi;
		flow(sim, 0, &fi);
		assert_true((double)(fi.end - fi.start) <= 1.01 * (double)fi.ideal_fct);
		const uint32_t edge = peer_of(sim, 0, 0);
		const struct ws_node *e = ws_node_get(ws_sim_fabric(sim), edge);
		uint64_t a = tx_bytes(sim, edge, e->n_down), b = tx_bytes(sim, edge, e->n_down + 1u);
		if (m == 0) {
			assert_true(a == 0 || b == 0);
		} else {
			double share = (double)a / (double)(a + b);
			assert_true(share > 0.4 && share < 0.6);
		}
		ws_sim_free(sim);
	}
	/* the permutation with 25 Gb/s hosts on the 100 Gb/s fabric: contention
	 * never outlasts a packet's gap, so nothing reorders */
	char perm[512];
	int len = snprintf(perm, sizeof perm, "16\n");
	for (unsigned i = 0; i < 16; i++)
		len += snprintf(perm + len, sizeof perm - (size_t)len, "%u %u 3 100 1000000 0\n",
				i, (i + 8) % 16);
	double ecmp = 0;
	for (unsigned m = 0; m < 3; m++) {
		th_write("lb.txt", perm);
		struct ws_sim *sim = th_sim(th_fmt(
			"[sim]\nseed = 7\n[topology]\nname = fat-tree\nk = 4\nhost_rate = 25Gbps\n"
			"[routing]\nname = updown\n%s\n[cc]\nname = none\n"
			"[workload]\nname = flows\nfile = lb.txt\n", modes[m]));
		th_run(sim);
		for (uint32_t f = 0; f < 16; f++) {
			struct ws_flow_info fi;
			flow(sim, f, &fi);
			assert_int_equal(fi.retx, 0);
			/* line rate: within what a lone flow gets (1.045 x ideal here) */
			assert_true((double)(fi.end - fi.start) <= 1.06 * (double)fi.ideal_fct);
		}
		double edge = tier_imbalance(sim, 1), agg = tier_imbalance(sim, 2);
		if (m == 0) {
			ecmp = edge > agg ? edge : agg;
		} else {
			assert_true(edge <= 1.15);
			assert_true(agg <= 1.15);
		}
		ws_sim_free(sim);
	}
	assert_true(ecmp > 1.3);
}

/* Flowlet: a flow sent at line rate (gaps far below flowlet_gap) keeps one
 * port and its order; with a zero gap every packet draws again. */
static void test_flowlet_keeps_path(void **state)
{
	(void)state;
	const char *modes[] = { "lb = flowlet", "lb = flowlet\nflowlet_gap = 0s" };
	for (unsigned m = 0; m < 2; m++) {
		struct ws_sim *sim = lb_sim("1\n0 8 3 100 1000000 0\n", modes[m]);
		th_run(sim);
		struct ws_flow_info fi;
		flow(sim, 0, &fi);
		assert_int_equal(fi.nacks, 0);
		assert_int_equal(fi.retx, 0);
		const struct ws_fabric *fab = ws_sim_fabric(sim);
		unsigned used = 0;
		/* up ports of every edge and aggregation switch that carried data */
		for (uint32_t i = 0; i < fab->n_nodes; i++) {
			const struct ws_node *x = ws_node_get(fab, i);
			if (x->kind != WS_NODE_SWITCH || x->level > 2)
				continue;
			for (uint32_t p = x->n_down; p < x->n_ports; p++)
				used += tx_bytes(sim, i, p) > 100000;
		}
		if (m == 0)
			assert_int_equal(used, 2); /* one edge up port, one aggregation up port */
		else
			assert_true(used >= 4);
		ws_sim_free(sim);
	}
}

/*
 * Adaptive: 90 % of the capacity of the up port ECMP gives the flow is
 * taken by background load; ECMP sits behind it, adaptive sends most of
 * the flow through the other port (all candidates, and power of two
 * choices: with two candidates, both are compared).
 */
static void test_adaptive_avoids_loaded_port(void **state)
{
	(void)state;
	const char *modes[] = { "lb = ecmp", "lb = adaptive", "lb = adaptive\nadaptive_choices = 2" };
	double slow[3];
	for (unsigned m = 0; m < 3; m++) {
		struct ws_sim *sim = lb_sim("1\n0 8 3 100 1000000 0\n", modes[m]);
		struct ws_hop hops[8];
		struct ws_pkt p;
		struct ws_err err;
		uint32_t n;
		ws_pkt_probe(&p, 0, 8, 10000, 100); /* the flow's tuple: its ECMP path */
		assert_int_equal(ws_route_trace(sim, &p, hops, 8, &n, &err), WS_OK);
		const uint32_t edge = hops[1].node, loaded = hops[1].port;
		assert_int_equal(ws_port_add_load(sim, ws_port_gid(sim, edge, loaded),
						  90000000000, &err), WS_OK);
		th_run(sim);
		struct ws_flow_info fi;
		flow(sim, 0, &fi);
		slow[m] = (double)(fi.end - fi.start) / (double)fi.ideal_fct;
		const struct ws_node *e = ws_node_get(ws_sim_fabric(sim), edge);
		const uint32_t other = loaded == e->n_down ? e->n_down + 1u : e->n_down;
		if (m > 0)
			assert_true(tx_bytes(sim, edge, other) > 4 * tx_bytes(sim, edge, loaded));
		ws_sim_free(sim);
	}
	/* ECMP waits behind the load; adaptive finishes, though the packets it
	 * still sends through the loaded port arrive late and go-back-N resends
	 * what follows them (docs/routing.md) */
	assert_true(slow[0] > 5.0);
}

/* Probes (route traces) leave the rule's state alone: traced or not, a
 * randomized run gives the same flow completions. */
static void test_probes_change_nothing(void **state)
{
	(void)state;
	const char *modes[] = { "lb = spray", "lb = spray\nspray_mode = round_robin",
				"lb = flowlet\nflowlet_gap = 1us", "lb = adaptive\nadaptive_choices = 2" };
	const char *flows = "4\n0 8 3 100 300000 0\n1 12 3 100 300000 0\n"
			    "4 9 3 100 300000 0\n6 2 3 100 300000 0.000001\n";
	for (unsigned m = 0; m < 4; m++) {
		ws_time end[2][4];
		for (unsigned traced = 0; traced < 2; traced++) {
			struct ws_sim *sim = lb_sim(flows, modes[m]);
			for (uint32_t s = 0; traced && s < 16; s++)
				for (uint32_t d = 0; d < 16; d++)
					if (s != d)
						th_route(sim, s, d, (uint16_t)(s * 16 + d), NULL, NULL, 8);
			th_run(sim);
			for (uint32_t f = 0; f < 4; f++) {
				struct ws_flow_info fi;
				flow(sim, f, &fi);
				end[traced][f] = fi.end;
			}
			ws_sim_free(sim);
		}
		assert_memory_equal(end[0], end[1], sizeof end[0]);
	}
}

/* Same seed, same bytes, for every lb; and the lb is not a no-op. */
static void test_lb_determinism(void **state)
{
	(void)state;
	const char *modes[] = { "ecmp", "spray", "spray\nspray_mode = round_robin", "flowlet",
				"adaptive", "adaptive\nadaptive_choices = 2" };
	char *first = NULL;
	for (unsigned m = 0; m < 6; m++) {
		char *out[2];
		for (unsigned r = 0; r < 2; r++) {
			th_write("qs.txt", "6\n0 5 3 100 200000 0\n1 9 3 100 200000 0\n"
				 "2 14 3 100 200000 0\n3 9 3 100 200000 0.000002\n"
				 "12 1 3 100 200000 0\n13 6 3 100 200000 0.000001\n");
			struct ws_sim *sim = th_sim(th_fmt(
				"[sim]\nseed = 3\n[topology]\nname = fat-tree\nk = 4\n"
				"[routing]\nname = updown\nlb = %s\n[cc]\nname = dcqcn\n"
				"[workload]\nname = flows\nfile = qs.txt\n", modes[m]));
			th_run(sim);
			char dir[512];
			snprintf(dir, sizeof dir, "%s/lb%u_%u", th_tmpdir(), m, r);
			struct ws_err err;
			assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
			out[r] = th_read(th_fmt("%s/fct.csv", dir), NULL);
			assert_non_null(out[r]);
			ws_sim_free(sim);
		}
		assert_string_equal(out[0], out[1]);
		if (m == 0)
			first = out[0];
		else if (m == 1)
			assert_string_not_equal(first, out[0]);
		if (m)
			free(out[0]);
		free(out[1]);
	}
	free(first);
}

/* A flow whose link fails under it finishes on the links left. */
static void test_flow_survives_failure(void **state)
{
	(void)state;
	struct ws_sim *sim = lb_sim("1\n0 8 3 100 2000000 0\n", "");
	struct ws_hop hops[8];
	struct ws_pkt p;
	struct ws_err err;
	uint32_t n;
	ws_pkt_probe(&p, 0, 8, 10000, 100);
	assert_int_equal(ws_route_trace(sim, &p, hops, 8, &n, &err), WS_OK);
	const uint32_t agg = hops[2].node, was = hops[2].port;
	const uint32_t other = was == 2 ? 3 : 2; /* k = 4: up ports 2 and 3 */
	th_run_until(sim, 40 * WS_US);
	assert_true(tx_bytes(sim, agg, was) > 300000);
	assert_int_equal(tx_bytes(sim, agg, other), 0);
	link_set(sim, agg, was, false); /* its aggregation switch's up link */
	th_run(sim);
	struct ws_flow_info fi;
	flow(sim, 0, &fi);
	assert_true(tx_bytes(sim, agg, other) > 1000000); /* the rest went around */
	ws_pkt_probe(&p, 0, 8, 10000, 100);
	assert_int_equal(ws_route_trace(sim, &p, hops, 8, &n, &err), WS_OK);
	assert_int_equal(hops[2].node, agg);
	assert_int_equal(hops[2].port, other);
	ws_sim_free(sim);
}

/* Acceleration models a flow on one fixed path: refused with a
 * multipath lb and with links that go down, naming [accel] name; taken
 * with ECMP and with failures that take nothing down. */
static void test_accel_refused_when_paths_change(void **state)
{
	(void)state;
	th_write("acc.txt", "1\n0 8 3 100 100000 0\n");
	static const struct {
		const char *routing, *failures;
		int rc;
		const char *needle;
	} cases[] = {
		{ "lb = spray", "", WS_EINVAL, "sends one flow's packets on several paths" },
		{ "lb = flowlet", "", WS_EINVAL, "sends one flow's packets on several paths" },
		{ "lb = adaptive", "", WS_EINVAL, "sends one flow's packets on several paths" },
		{ "lb = ecmp", "[failures]\nevents = 1ms down link 16:2\n", WS_EINVAL,
		  "has links go down ([failures])" },
		{ "lb = ecmp", "[failures]\nevents = 1ms loss 0.01 link 16:2\n", WS_OK, NULL },
		{ "lb = ecmp", "", WS_OK, NULL },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(cases); i++) {
		const char *ini = th_fmt("[topology]\nname = fat-tree\nk = 4\n"
					 "[routing]\nname = updown\n%s\n"
					 "[accel]\nname = fluid\n"
					 "[workload]\nname = flows\nfile = acc.txt\n%s",
					 cases[i].routing, cases[i].failures);
		struct ws_sim *sim = NULL;
		struct ws_err err;
		int rc = th_sim_try(ini, &sim, &err, NULL);
		if (rc != cases[i].rc)
			fail_msg("case %zu: code %d, expected %d: %s", i, rc, cases[i].rc, err.msg);
		if (cases[i].needle) {
			assert_null(sim);
			assert_string_equal(err.key, "accel.name");
			assert_int_equal(err.line, 8);
			assert_non_null(strstr(err.msg, "[accel] name = fluid"));
			assert_non_null(strstr(err.msg, cases[i].needle));
		}
		ws_sim_free(sim);
	}
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
		cmocka_unit_test(test_spray_line_rate_and_spread),
		cmocka_unit_test(test_flowlet_keeps_path),
		cmocka_unit_test(test_adaptive_avoids_loaded_port),
		cmocka_unit_test(test_probes_change_nothing),
		cmocka_unit_test(test_lb_determinism),
		cmocka_unit_test(test_flow_survives_failure),
		cmocka_unit_test(test_accel_refused_when_paths_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
