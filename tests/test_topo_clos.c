/* SPDX-License-Identifier: MIT */
/*
 * The Clos generators (topo/clos-wire.c behind clos, fat-tree and rail) with
 * updown: the wiring (every port connected both ways, node, port and link
 * counts as the model says), every host pair's route (loop-free, up then
 * down, 2 x the lowest common tier links, computed here from host ids, not
 * from the generator's addresses), ECMP spreading flows evenly over up
 * ports, parallel links and planes, bad specs rejected with a message naming
 * the key, the fat-tree numbering of its documentation, and the clos preset
 * equal to the fat-tree plugin node for node and port for port.
 */
#include "th.h"

#include <stdio.h>
#include <string.h>

/* ---- helpers ----------------------------------------------------------------- */

/* A configuration of [topology] `topo` (keys, one a line) and no flows;
 * `topo` may come from th_fmt, so the result goes to the caller's buffer. */
static const char *topo_ini(char *buf, size_t size, const char *topo)
{
	th_write("empty.txt", "0\n");
	snprintf(buf, size, "[topology]\n%s\n[workload]\nname = flows\nfile = empty.txt\n",
		 topo);
	return buf;
}

static struct ws_sim *topo_sim(const char *topo)
{
	char ini[1024];
	return th_sim(topo_ini(ini, sizeof ini, topo));
}

/* What the model says a fabric has. */
struct counts {
	uint32_t hosts, switches, links, ports;
	uint32_t host_ports; /* planes */
};

/* Counts as expected; every port connected to a port that points back,
 * at the host or link rate; switches have down + up ports. */
static void check_wiring(struct ws_sim *sim, const struct counts *c,
			 uint64_t host_rate, uint64_t link_rate)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	assert_int_equal(fab->n_hosts, c->hosts);
	assert_int_equal(fab->n_switches, c->switches);
	assert_int_equal(fab->n_links, c->links);
	assert_int_equal(fab->n_ports, c->ports);
	assert_int_equal(fab->shape, WS_SHAPE_UPDOWN);
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		/* hosts first */
		assert_int_equal(n->kind == WS_NODE_HOST, i < c->hosts);
		if (n->kind == WS_NODE_HOST)
			assert_int_equal(n->n_ports, c->host_ports);
		else
			assert_int_equal(n->n_ports, n->n_down + n->n_up);
		for (uint32_t l = 0; l < n->n_ports; l++) {
			struct ws_port_info a = { WS_INIT_SIZE(struct ws_port_info) }, b = { WS_INIT_SIZE(struct ws_port_info) };
			assert_int_equal(ws_port_info(sim, i, l, &a), WS_OK);
			assert_int_equal(ws_port_info(sim, a.peer_node, a.peer_local, &b), WS_OK);
			assert_int_equal(b.peer_node, i);
			assert_int_equal(b.peer_local, l);
			bool host_link = n->kind == WS_NODE_HOST ||
					 ws_node_get(fab, a.peer_node)->kind == WS_NODE_HOST;
			assert_int_equal(a.rate, host_link ? host_rate : link_rate);
			/* a host's port p leads to a leaf; a switch's down ports lead down */
			const struct ws_node *peer = ws_node_get(fab, a.peer_node);
			if (n->kind == WS_NODE_HOST)
				assert_int_equal(peer->level, 1);
			else
				assert_int_equal(peer->level + (l < n->n_down ? 1 : -1), n->level);
		}
	}
}

/* The links an up/down shortest route between two host ids must take. */
typedef unsigned (*expect_fn)(const void *arg, uint32_t src, uint32_t dst);

/* Hosts in address order: `span[t]` hosts below one level-t block. */
struct spans {
	uint32_t tiers;
	uint32_t span[5];
};

static unsigned expect_by_span(const void *arg, uint32_t src, uint32_t dst)
{
	const struct spans *s = arg;
	for (uint32_t t = 1; t <= s->tiers; t++)
		if (src / s->span[t] == dst / s->span[t])
			return 2 * t;
	fail_msg("hosts %u and %u share no block", src, dst);
	return 0;
}

/* Every ordered host pair routes loop-free to its destination, strictly up
 * then strictly down, in `expect(src, dst)` links. */
static void check_all_routes(struct ws_sim *sim, expect_fn expect, const void *arg)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t path[16];
	for (uint32_t s = 0; s < fab->n_hosts; s++)
		for (uint32_t d = 0; d < fab->n_hosts; d++) {
			if (s == d)
				continue;
			unsigned links = th_route(sim, s, d, (uint16_t)(10000 + s + d), path,
						  NULL, 16);
			assert_int_equal(path[links], d);
			for (unsigned i = 0; i <= links; i++)
				for (unsigned j = i + 1; j <= links; j++)
					assert_int_not_equal(path[i], path[j]);
			unsigned i = 0;
			while (i < links && ws_node_get(fab, path[i + 1])->level >
						    ws_node_get(fab, path[i])->level)
				i++;
			while (i < links && ws_node_get(fab, path[i + 1])->level <
						    ws_node_get(fab, path[i])->level)
				i++;
			assert_int_equal(i, links);
			if (links != expect(arg, s, d))
				fail_msg("%u -> %u: %u links, expected %u", s, d, links,
					 expect(arg, s, d));
		}
}

/*
 * Route flows src -> dst with `flows` different source ports; the node at
 * hop `at` (a switch of tier `level`, or the source host at 0) must send
 * them out of ports [first, first + n) only, each within 15% of flows / n.
 */
static void check_spread(struct ws_sim *sim, uint32_t src, uint32_t dst,
			 unsigned at, unsigned level, uint32_t first, uint32_t n)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	const unsigned flows = 1000 * n;
	unsigned count[64] = { 0 };
	struct ws_hop hops[16];
	assert_true(n <= 64);
	for (unsigned f = 0; f < flows; f++) {
		th_route(sim, src, dst, (uint16_t)(1000 + f), NULL, hops, 16);
		assert_int_equal(ws_node_get(fab, hops[at].node)->level, level);
		assert_true(hops[at].port >= first && hops[at].port < first + n);
		count[hops[at].port - first]++;
	}
	th_assert_uniform(count, n, 0.15, th_fmt("node %u: port first + ", hops[at].node));
}

/* A spec the generator must refuse with err.key "topology.<key>" and a
 * message containing `sub`. */
static void expect_reject(const char *topo, const char *key, const char *sub)
{
	struct ws_sim *sim;
	struct ws_err err;
	char ini[1024];
	int rc = th_sim_try(topo_ini(ini, sizeof ini, topo), &sim, &err, NULL);
	if (rc == WS_OK) {
		ws_sim_free(sim);
		fail_msg("accepted: %s", topo);
	}
	assert_int_equal(rc, WS_EINVAL);
	char want[128];
	snprintf(want, sizeof want, "topology.%s", key);
	if (strcmp(err.key, want) != 0 || !strstr(err.msg, sub))
		fail_msg("%s: key '%s', message '%s'; expected key '%s' and '%s'", topo,
			 err.key, err.msg, want, sub);
}

/* ---- fat-tree ------------------------------------------------------------------ */

static void check_fat_tree(unsigned k)
{
	const unsigned h = k / 2;
	struct ws_sim *sim = topo_sim(th_fmt("name = fat-tree\nk = %u\nhost_rate = 25Gbps", k));
	const struct counts c = {
		.hosts = k * h * h, .switches = 5 * k * k / 4, .links = 3 * k * h * h,
		.ports = k * h * h + 5 * k * k / 4 * k, .host_ports = 1,
	};
	check_wiring(sim, &c, 25000000000ull, 100000000000ull);
	const struct spans sp = { 3, { 0, h, h * h, k * h * h } };
	check_all_routes(sim, expect_by_span, &sp);
	/* the numbering of docs/config.md: host i of edge e in pod p is
	 * p h^2 + e h + i on port i of edge k^3/4 + p h + e; port h + j of
	 * aggregation a of pod p leads to core a h + j, its port p */
	const uint32_t hosts = k * h * h, agg0 = hosts + k * h, core0 = agg0 + k * h;
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	for (uint32_t p = 0; p < k; p++)
		for (uint32_t e = 0; e < h; e++)
			for (uint32_t i = 0; i < h; i++) {
				ws_port_info(sim, p * h * h + e * h + i, 0, &pi);
				assert_int_equal(pi.peer_node, hosts + p * h + e);
				assert_int_equal(pi.peer_local, i);
				ws_port_info(sim, agg0 + p * h + e, h + i, &pi);
				assert_int_equal(pi.peer_node, core0 + e * h + i);
				assert_int_equal(pi.peer_local, p);
			}
	/* ECMP: an edge's up ports, then an aggregation's, to another pod */
	check_spread(sim, 0, hosts - 1, 1, 1, h, h);
	check_spread(sim, 0, hosts - 1, 2, 2, h, h);
	ws_sim_free(sim);
}

static void test_fat_tree_k4(void **state)
{
	(void)state;
	check_fat_tree(4);
}

static void test_fat_tree_k6(void **state)
{
	(void)state;
	check_fat_tree(6);
}

static void test_fat_tree_k8(void **state)
{
	(void)state;
	check_fat_tree(8);
}

/* The clos preset of a fat-tree is the fat-tree plugin, field by field. */
static void test_clos_preset_is_fat_tree(void **state)
{
	(void)state;
	for (unsigned k = 4; k <= 8; k += 2) {
		struct ws_sim *a = topo_sim(th_fmt("name = fat-tree\nk = %u\nlink_delay = 2us", k));
		struct ws_sim *b = topo_sim(th_fmt("name = clos\ntiers = 3\nradix = %u\n"
						   "link_delay = 2us", k));
		const struct ws_fabric *fa = ws_sim_fabric(a), *fb = ws_sim_fabric(b);
		assert_int_equal(fa->n_nodes, fb->n_nodes);
		assert_int_equal(fa->n_hosts, fb->n_hosts);
		assert_int_equal(fa->n_ports, fb->n_ports);
		assert_int_equal(fa->n_links, fb->n_links);
		assert_int_equal(fa->depth, fb->depth);
		for (uint32_t i = 0; i < fa->n_nodes; i++) {
			const struct ws_node *x = ws_node_get(fa, i), *y = ws_node_get(fb, i);
			assert_int_equal(x->kind, y->kind);
			assert_int_equal(x->level, y->level);
			assert_int_equal(x->addr_len, y->addr_len);
			assert_int_equal(x->first_port, y->first_port);
			assert_int_equal(x->n_ports, y->n_ports);
			assert_int_equal(x->n_down, y->n_down);
			assert_int_equal(x->n_up, y->n_up);
			assert_int_equal(x->down_group, y->down_group);
			assert_int_equal(x->index, y->index);
			assert_memory_equal(x->addr, y->addr, sizeof x->addr);
			for (uint32_t l = 0; l < x->n_ports; l++) {
				struct ws_port_info p = { WS_INIT_SIZE(struct ws_port_info) }, q = { WS_INIT_SIZE(struct ws_port_info) };
				ws_port_info(a, i, l, &p);
				ws_port_info(b, i, l, &q);
				assert_int_equal(p.peer_node, q.peer_node);
				assert_int_equal(p.peer_local, q.peer_local);
				assert_int_equal(p.rate, q.rate);
				assert_int_equal(p.delay, q.delay);
			}
		}
		ws_sim_free(a);
		ws_sim_free(b);
	}
}

/* ---- clos ------------------------------------------------------------------------ */

/* Leaf-spine, 2:1 oversubscribed, two links per leaf-spine pair: 6 leaves of
 * 8 hosts and 4 up ports, 2 spines of 12 ports. */
static void test_clos_leaf_spine(void **state)
{
	(void)state;
	struct ws_sim *sim = topo_sim("name = clos\ntiers = 2\nradix = 12\n"
				      "down1 = 8\nup1 = 4\nlinks1 = 2");
	const struct counts c = { .hosts = 48, .switches = 8, .links = 48 + 6 * 4,
				  .ports = 48 + 8 * 12, .host_ports = 1 };
	check_wiring(sim, &c, 100000000000ull, 100000000000ull);
	const struct spans sp = { 2, { 0, 8, 48 } };
	check_all_routes(sim, expect_by_span, &sp);
	/* both links of a leaf-spine pair lead to the same spine */
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	struct ws_port_info p = { WS_INIT_SIZE(struct ws_port_info) }, q = { WS_INIT_SIZE(struct ws_port_info) };
	ws_port_info(sim, 48, 8, &p);
	ws_port_info(sim, 48, 9, &q);
	assert_int_equal(p.peer_node, q.peer_node);
	assert_int_equal(ws_node_get(fab, p.peer_node)->down_group, 2);
	/* ECMP over the leaf's 4 up ports, then over the 2 parallel links
	 * down to leaf 5 (spine ports 10, 11) */
	check_spread(sim, 0, 47, 1, 1, 8, 4);
	check_spread(sim, 0, 47, 2, 2, 10, 2);
	ws_sim_free(sim);
}

/* Four tiers, the k-ary 4-tier Clos of radix 4 and 6. */
static void check_clos_4tier(unsigned k)
{
	const unsigned h = k / 2, hosts = 2 * h * h * h * h;
	struct ws_sim *sim = topo_sim(th_fmt("name = clos\ntiers = 4\nradix = %u", k));
	const struct counts c = {
		.hosts = hosts, .switches = 3 * hosts / h + hosts / k,
		.links = hosts + 3 * hosts, .ports = hosts + (3 * hosts / h + hosts / k) * k,
		.host_ports = 1,
	};
	check_wiring(sim, &c, 100000000000ull, 100000000000ull);
	const struct spans sp = { 4, { 0, h, h * h, h * h * h, hosts } };
	check_all_routes(sim, expect_by_span, &sp);
	check_spread(sim, 0, hosts - 1, 3, 3, h, h);
	ws_sim_free(sim);
}

static void test_clos_4tier_radix4(void **state)
{
	(void)state;
	check_clos_4tier(4);
}

static void test_clos_4tier_radix6(void **state)
{
	(void)state;
	check_clos_4tier(6);
}

/* Pod wiring at tier 3 too, with parallel links: a core reaches a pod's 4
 * aggregation switches with 2 links each, a down group of 8 ports. */
static void test_clos_pod_above_pod(void **state)
{
	(void)state;
	struct ws_sim *sim = topo_sim("name = clos\ntiers = 3\nradix = 8\nlinks2 = 2\n"
				      "connect3 = pod\ndown3 = 16\nradix3 = 16");
	const struct counts c = { .hosts = 32, .switches = 8 + 8 + 2, .links = 32 + 32 + 32,
				  .ports = 32 + 16 * 8 + 2 * 16, .host_ports = 1 };
	check_wiring(sim, &c, 100000000000ull, 100000000000ull);
	const struct spans sp = { 3, { 0, 4, 16, 32 } };
	check_all_routes(sim, expect_by_span, &sp);
	assert_int_equal(ws_node_get(ws_sim_fabric(sim), 32 + 16)->down_group, 8);
	check_spread(sim, 0, 31, 3, 3, 8, 8);
	ws_sim_free(sim);
}

/* Three planes: every host has three ports, one per copy of the fabric,
 * and flows spread over them. */
static void test_clos_planes(void **state)
{
	(void)state;
	struct ws_sim *sim = topo_sim("name = clos\ntiers = 2\nradix = 4\nplanes = 3");
	const struct counts c = { .hosts = 8, .switches = 3 * 6, .links = 3 * (8 + 8),
				  .ports = 3 * (8 + 6 * 4), .host_ports = 3 };
	check_wiring(sim, &c, 100000000000ull, 100000000000ull);
	const struct spans sp = { 2, { 0, 2, 8 } };
	check_all_routes(sim, expect_by_span, &sp);
	/* plane p's leaf of host 0 is switch 8 + 6 p */
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	for (uint32_t p = 0; p < 3; p++) {
		ws_port_info(sim, 0, p, &pi);
		assert_int_equal(pi.peer_node, 8 + 6 * p);
	}
	check_spread(sim, 0, 7, 0, 0, 0, 3);
	ws_sim_free(sim);
}

/* ---- rail ------------------------------------------------------------------------- */

/* 2 units x 4 servers x 8 GPUs: GPU id = (unit * 4 + server) * 8 + gpu. */
struct rail_shape {
	uint32_t G, S, units_per_pod; /* units_per_pod 0: one pod */
};

static unsigned expect_rail(const void *arg, uint32_t src, uint32_t dst)
{
	const struct rail_shape *r = arg;
	const uint32_t us = src / (r->G * r->S), ud = dst / (r->G * r->S);
	if (us == ud && src % r->G == dst % r->G)
		return 2; /* same unit, same rail: GPU -> leaf -> GPU */
	if (!r->units_per_pod || us / r->units_per_pod == ud / r->units_per_pod)
		return 4;
	return 6;
}

static void check_rail(unsigned tiers, bool dual)
{
	const struct rail_shape r = { 8, 4, tiers == 3 ? 1 : 0 };
	struct ws_sim *sim = topo_sim(th_fmt("name = rail\ngpus_per_server = 8\n"
					     "servers_per_unit = 4\nunits = 2\ntiers = %u\n%s"
					     "dual_plane = %s\nnic_rate = 200Gbps",
					     tiers, tiers == 3 ? "units_per_pod = 1\n" : "",
					     dual ? "true" : "false"));
	const uint32_t P = dual ? 2 : 1;
	/* 16 rail leaves (4 down, 4 up); 2 tiers: 4 spines of 16 down ports;
	 * 3 tiers: 4 spines per pod (8 down, 8 up), 32 cores of 2 ports */
	struct counts c = { .hosts = 64, .host_ports = P };
	if (tiers == 2) {
		c.switches = P * (16 + 4);
		c.links = P * (64 + 16 * 4);
		c.ports = P * (64 + 16 * 8 + 4 * 16);
	} else {
		c.switches = P * (16 + 8 + 32);
		c.links = P * (64 + 16 * 4 + 8 * 8);
		c.ports = P * (64 + 16 * 8 + 8 * 16 + 32 * 2);
	}
	check_wiring(sim, &c, 200000000000ull, 400000000000ull);
	check_all_routes(sim, expect_rail, &r);
	/* NIC g of every server of a unit is on one leaf, at the server's port */
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) }, pj = { WS_INIT_SIZE(struct ws_port_info) };
	for (uint32_t gpu = 0; gpu < fab->n_hosts; gpu++)
		for (uint32_t p = 0; p < P; p++) {
			ws_port_info(sim, gpu, p, &pi);
			ws_port_info(sim, gpu % 8 + (gpu / 32) * 32, p, &pj);
			assert_int_equal(pi.peer_node, pj.peer_node);
			assert_int_equal(pi.peer_local, gpu / 8 % 4);
		}
	/* ECMP over a leaf's 4 up ports; over the planes at the NIC */
	check_spread(sim, 0, 63, 1, 1, 4, 4);
	if (dual)
		check_spread(sim, 0, 63, 0, 0, 0, 2);
	ws_sim_free(sim);
}

static void test_rail_2tier(void **state)
{
	(void)state;
	check_rail(2, false);
}

static void test_rail_3tier(void **state)
{
	(void)state;
	check_rail(3, false);
}

static void test_rail_2tier_dual(void **state)
{
	(void)state;
	check_rail(2, true);
}

static void test_rail_3tier_dual(void **state)
{
	(void)state;
	check_rail(3, true);
}

/* ---- bad specs --------------------------------------------------------------------- */

static void test_bad_specs(void **state)
{
	(void)state;
	expect_reject("name = fat-tree\nk = 5", "k", "a fat-tree needs an even k");
	expect_reject("name = clos\nradix = 3", "radix", "radix too small");
	expect_reject("name = clos\ntiers = 2\nradix = 7", "radix", "even");
	expect_reject("name = clos\ntiers = 2\ndown1 = 6\nup1 = 4", "radix",
		      "needs 6 down + 4 up = 10 ports (ports oversubscribed)");
	expect_reject("name = clos\ntiers = 2\nradix1 = 6\nup1 = 4", "radix1",
		      "radix1 = 6: a tier-1 switch needs 3 down (half the radix) + 4 up");
	expect_reject("name = clos\ntiers = 2\nup1 = 3\nlinks1 = 2", "links1",
		      "links1 = 2 does not divide up1 = 3");
	expect_reject("name = clos\ntiers = 2\nlinks1 = 2\ndown2 = 7", "down2",
		      "down2 = 7 is not a multiple of 2");
	expect_reject("name = clos\ntiers = 3\nlinks2 = 2\nconnect3 = pod\ndown3 = 12\n"
		      "radix3 = 12", "down3", "down3 = 12 is not a multiple of 8");
	expect_reject("name = clos\ntiers = 3\nup3 = 2\nradix3 = 12", "up3",
		      "the top tier (tier-3) has no up ports");
	expect_reject("name = clos\ntiers = 3\ndown4 = 2", "down4", "down4 is set but tiers = 3");
	expect_reject("name = clos\ntiers = 2\nlinks2 = 2", "links2", "no tier 3");
	expect_reject("name = clos\ntiers = 4\nradix = 65534", "radix", "the limits are 2^31 nodes");
	expect_reject("name = rail\nservers_per_unit = 32\nleaf_radix = 48", "leaf_radix",
		      "a leaf switch needs 32 down + 32 up = 64 ports");
	expect_reject("name = rail\nunits = 16", "spine_radix",
		      "a spine switch needs 128 down (units x gpus_per_server x leaf_links)");
	expect_reject("name = rail\nservers_per_unit = 4\nleaf_up = 6\nleaf_links = 4",
		      "leaf_links", "leaf_links = 4 does not divide leaf_up = 6");
	expect_reject("name = rail\ntiers = 3\nunits = 3\nunits_per_pod = 2", "units_per_pod",
		      "units_per_pod = 2 does not divide units = 3");
	expect_reject("name = rail\ntiers = 3", "units_per_pod", "tiers = 3 needs units_per_pod");
	expect_reject("name = rail\nunits_per_pod = 2", "units_per_pod",
		      "pods exist only with tiers = 3");
	expect_reject("name = rail\nspine_up = 4", "spine_up",
		      "the top tier (spine) has no up ports");
	expect_reject("name = clos\ntiers = 2\nradix = 4\nplanes = 17", "planes", "16");
	/* dual plane counts every port twice: 500,170,752 GPUs, and 3,001,024,512
	 * ports in one plane (2^32 - 1 allowed), 6,002,049,024 in two */
	expect_reject("name = rail\ntiers = 3\nservers_per_unit = 1024\nunits = 61056\n"
		      "units_per_pod = 64\nleaf_radix = 2048\nspine_radix = 1024\n"
		      "core_radix = 1024\ndual_plane = true", "units",
		      "too large: at least 6002049024 ports");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fat_tree_k4),
		cmocka_unit_test(test_fat_tree_k6),
		cmocka_unit_test(test_fat_tree_k8),
		cmocka_unit_test(test_clos_preset_is_fat_tree),
		cmocka_unit_test(test_clos_leaf_spine),
		cmocka_unit_test(test_clos_4tier_radix4),
		cmocka_unit_test(test_clos_4tier_radix6),
		cmocka_unit_test(test_clos_pod_above_pod),
		cmocka_unit_test(test_clos_planes),
		cmocka_unit_test(test_rail_2tier),
		cmocka_unit_test(test_rail_3tier),
		cmocka_unit_test(test_rail_2tier_dual),
		cmocka_unit_test(test_rail_3tier_dual),
		cmocka_unit_test(test_bad_specs),
	};
	return cmocka_run_group_tests_name("topo_clos", tests, NULL, NULL);
}
