/* SPDX-License-Identifier: MIT */
/*
 * topo/dragonfly + routing/dragonfly:
 *   - wiring: node, port and link counts, addresses and port layout, every
 *     port connected symmetrically, every pair of groups joined by exactly
 *     a*h/(g-1) global links, the arrangement formulas (absolute, palmtree,
 *     parallel links), the published geometry;
 *   - every host pair's route, minimal and Valiant: loop-free, at most 3 (5)
 *     router-to-router hops, 1 (2) global links between different groups,
 *     the queue class equal to prio + global links already crossed;
 *   - ECMP over parallel global links uses all of them;
 *   - bad specifications are refused with a message naming the key;
 *   - probes and ACKs leave the UGAL flowlet table alone;
 *   - runs: all-to-all completes under PFC in every mode; without class
 *     escalation the same Valiant run deadlocks; on an adversarial pattern
 *     (group i to group i+1) UGAL beats minimal and, like Valiant, puts
 *     traffic on non-minimal paths; UGAL runs are deterministic.
 */
#include "th.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define MAXHOPS 16
#define PRIO 3 /* th_route's probe priority */

static struct ws_sim *df_sim(unsigned p, unsigned a, unsigned h, unsigned g,
			     const char *arr, const char *routing)
{
	th_write("empty.txt", "0\n");
	return th_sim(th_fmt("[topology]\nname = dragonfly\np = %u\na = %u\nh = %u\n"
			     "g = %u\narrangement = %s\n"
			     "[routing]\nname = dragonfly\n%s\n"
			     "[workload]\nname = flows\nfile = empty.txt\n",
			     p, a, h, g, arr, routing));
}

static uint32_t group_of(const struct ws_fabric *fab, uint32_t node)
{
	return ws_node_get(fab, node)->addr[0];
}

static bool is_global(const struct ws_fabric *fab, uint32_t x, uint32_t y)
{
	return ws_node_get(fab, x)->kind == WS_NODE_SWITCH &&
	       ws_node_get(fab, y)->kind == WS_NODE_SWITCH &&
	       group_of(fab, x) != group_of(fab, y);
}

static void check_wiring(struct ws_sim *sim, unsigned p, unsigned a,
			 unsigned h, unsigned g, unsigned arr)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	const unsigned routers = g * a, hosts = routers * p, radix = p + a - 1 + h;
	assert_int_equal(fab->n_hosts, hosts);
	assert_int_equal(fab->n_switches, routers);
	assert_int_equal(fab->n_ports, hosts + routers * radix);
	assert_int_equal(fab->n_links, hosts + g * a * (a - 1) / 2 + g * a * h / 2);
	assert_int_equal(fab->shape, WS_SHAPE_DRAGONFLY);
	assert_int_equal(fab->geom[WS_DF_GEOM_P], p);
	assert_int_equal(fab->geom[WS_DF_GEOM_A], a);
	assert_int_equal(fab->geom[WS_DF_GEOM_H], h);
	assert_int_equal(fab->geom[WS_DF_GEOM_G], g);
	assert_int_equal(fab->geom[WS_DF_GEOM_ARR], arr);
	unsigned *pair = calloc((size_t)g * g, sizeof *pair);
	assert_non_null(pair);
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		if (i < hosts) {
			/* host (G, r, t) = (G*a + r)*p + t */
			assert_int_equal(n->kind, WS_NODE_HOST);
			assert_int_equal(n->addr_len, 3);
			assert_int_equal((n->addr[0] * a + n->addr[1]) * p + n->addr[2], i);
			assert_int_equal(n->n_ports, 1);
		} else {
			assert_int_equal(n->kind, WS_NODE_SWITCH);
			assert_int_equal(n->addr_len, 2);
			assert_int_equal(hosts + n->addr[0] * a + n->addr[1], i);
			assert_int_equal(n->n_ports, radix);
		}
		for (uint32_t l = 0; l < n->n_ports; l++) {
			struct ws_port_info x = { WS_INIT_SIZE(struct ws_port_info) }, y = { WS_INIT_SIZE(struct ws_port_info) };
			assert_int_equal(ws_port_info(sim, i, l, &x), WS_OK);
			assert_int_equal(ws_port_info(sim, x.peer_node, x.peer_local, &y), WS_OK);
			assert_int_equal(y.peer_node, i);
			assert_int_equal(y.peer_local, l);
			const struct ws_node *m = ws_node_get(fab, x.peer_node);
			if (i < hosts) {
				assert_int_equal(x.peer_node, hosts + i / p);
				assert_int_equal(x.peer_local, i % p);
				continue;
			}
			const uint32_t r = n->addr[1];
			if (l < p) {
				assert_int_equal(x.peer_node, (n->addr[0] * a + r) * p + l);
			} else if (l < p + a - 1) {
				/* port p + j (minus one past its own index) to router j */
				uint32_t j = m->addr[1];
				assert_int_equal(m->kind, WS_NODE_SWITCH);
				assert_int_equal(m->addr[0], n->addr[0]);
				assert_int_equal(l, p + j - (j > r));
			} else {
				assert_int_equal(m->kind, WS_NODE_SWITCH);
				assert_int_not_equal(m->addr[0], n->addr[0]);
				assert_true(x.peer_local >= p + a - 1);
				pair[n->addr[0] * g + m->addr[0]]++;
			}
		}
	}
	for (unsigned x = 0; x < g; x++)
		for (unsigned y = 0; y < g; y++)
			assert_int_equal(pair[x * g + y], x == y ? 0 : a * h / (g - 1));
	free(pair);
}

/* The group global link k of group G leads to, read from the fabric. */
static uint32_t link_target(struct ws_sim *sim, unsigned p, unsigned a,
			    unsigned h, unsigned g, uint32_t G, uint32_t k)
{
	struct ws_port_info x = { WS_INIT_SIZE(struct ws_port_info) };
	uint32_t router = g * a * p + G * a + k / h;
	assert_int_equal(ws_port_info(sim, router, p + a - 1 + k % h, &x), WS_OK);
	return group_of(ws_sim_fabric(sim), x.peer_node);
}

/*
 * Every ordered host pair: loop-free, reaches its destination (th_route
 * checks), router-to-router hops and global links as the mode allows, the
 * class of each link = prio + global links crossed before it.
 */
static void check_routes(struct ws_sim *sim, bool valiant, bool escalation,
			 unsigned longest_expected)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	struct ws_hop hops[MAXHOPS];
	uint32_t path[MAXHOPS];
	unsigned longest = 0;
	for (uint32_t s = 0; s < fab->n_hosts; s++) {
		for (uint32_t d = 0; d < fab->n_hosts; d++) {
			if (s == d)
				continue;
			unsigned links = th_route(sim, s, d, (uint16_t)(10000 + s * 7 + d),
						  path, hops, MAXHOPS);
			for (unsigned i = 0; i <= links; i++)
				for (unsigned j = i + 1; j <= links; j++)
					assert_int_not_equal(path[i], path[j]);
			const uint32_t S = group_of(fab, s), T = group_of(fab, d);
			const unsigned rr = links - 2;
			assert_true(rr <= (valiant && S != T ? 5u : 3u));
			if (rr > longest)
				longest = rr;
			unsigned globals = 0, last_cls = 0;
			for (unsigned i = 0; i < links; i++) {
				unsigned cls = hops[i].cls;
				assert_int_equal(cls, PRIO + (escalation ? globals : 0));
				assert_true(cls >= last_cls);
				last_cls = cls;
				if (is_global(fab, path[i], path[i + 1])) {
					globals++;
					if (globals == 2)
						/* the intermediate group is neither end's */
						assert_true(group_of(fab, path[i]) != S &&
							    group_of(fab, path[i]) != T);
				}
			}
			assert_int_equal(globals, S == T ? 0 : valiant ? 2 : 1);
			assert_int_equal(group_of(fab, path[links - 1]), T);
		}
	}
	/* the longest route, to show the bounds are reached, not just respected */
	assert_int_equal(longest, longest_expected);
}

/* longest: the longest minimal and Valiant routes, in router-to-router hops */
static void check_fabric(unsigned p, unsigned a, unsigned h, unsigned g,
			 const char *arr, unsigned arr_id, unsigned longest_min,
			 unsigned longest_val)
{
	struct ws_sim *sim = df_sim(p, a, h, g, arr, "mode = minimal");
	check_wiring(sim, p, a, h, g, arr_id);
	check_routes(sim, false, true, longest_min);
	ws_sim_free(sim);
	sim = df_sim(p, a, h, g, arr, "mode = valiant");
	check_routes(sim, true, true, longest_val);
	ws_sim_free(sim);
}

static void test_g9_absolute(void **state)
{
	(void)state;
	check_fabric(2, 4, 2, 9, "absolute", WS_DF_ARR_ABSOLUTE, 3, 5);
}

static void test_g9_palmtree(void **state)
{
	(void)state;
	check_fabric(2, 4, 2, 9, "palmtree", WS_DF_ARR_PALMTREE, 3, 5);
}

static void test_parallel_links(void **state)
{
	(void)state;
	/* 2 global links per group pair */
	check_fabric(2, 4, 2, 5, "absolute", WS_DF_ARR_ABSOLUTE, 3, 5);
	check_fabric(2, 4, 2, 5, "palmtree", WS_DF_ARR_PALMTREE, 3, 5);
	/* 4 per pair: every router owns a link to every other group, so no
	 * local hop before a global one */
	check_fabric(1, 4, 2, 3, "palmtree", WS_DF_ARR_PALMTREE, 2, 3);
	/* a = 1: no local links at all */
	check_fabric(3, 1, 4, 5, "absolute", WS_DF_ARR_ABSOLUTE, 1, 2);
}

static void test_arrangement_formulas(void **state)
{
	(void)state;
	/* g = 0 is a*h + 1 = 9 */
	struct ws_sim *sim = df_sim(2, 4, 2, 0, "absolute", "");
	assert_int_equal(ws_sim_fabric(sim)->geom[WS_DF_GEOM_G], 9);
	for (uint32_t G = 0; G < 9; G++)
		for (uint32_t k = 0; k < 8; k++)
			assert_int_equal(link_target(sim, 2, 4, 2, 9, G, k), k < G ? k : k + 1);
	ws_sim_free(sim);
	sim = df_sim(2, 4, 2, 9, "palmtree", "");
	for (uint32_t G = 0; G < 9; G++)
		for (uint32_t k = 0; k < 8; k++)
			assert_int_equal(link_target(sim, 2, 4, 2, 9, G, k), (G + 9 - k - 1) % 9);
	ws_sim_free(sim);
	/* g = 5: link k = c*4 + t goes to offset t; copy c ends at copy c */
	const char *arrs[] = { "absolute", "palmtree" };
	for (unsigned ar = 0; ar < 2; ar++) {
		sim = df_sim(2, 4, 2, 5, arrs[ar], "");
		for (uint32_t G = 0; G < 5; G++)
			for (uint32_t k = 0; k < 8; k++) {
				uint32_t t = k % 4;
				uint32_t X = ar == 0 ? (t < G ? t : t + 1) : (G + 5 - t - 1) % 5;
				assert_int_equal(link_target(sim, 2, 4, 2, 5, G, k), X);
				/* the far end is link c*4 + offset(X, G) of X */
				struct ws_port_info x = { WS_INIT_SIZE(struct ws_port_info) };
				uint32_t router = 40 + G * 4 + k / 2;
				assert_int_equal(ws_port_info(sim, router, 5 + k % 2, &x), WS_OK);
				uint32_t tx = ar == 0 ? (G < X ? G : G - 1) : (X + 5 - G - 1) % 5;
				uint32_t kx = (k / 4) * 4 + tx;
				assert_int_equal(x.peer_node, 40 + X * 4 + kx / 2);
				assert_int_equal(x.peer_local, 5 + kx % 2);
			}
		ws_sim_free(sim);
	}
}

static void test_ecmp_parallel_links(void **state)
{
	(void)state;
	/* a=4 h=2 g=5: groups 0 and 1 are joined by 2 links (group 0's 0 and 4) */
	struct ws_sim *sim = df_sim(2, 4, 2, 5, "absolute", "mode = minimal");
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t path[MAXHOPS];
	unsigned used[2] = { 0, 0 };
	const unsigned flows = 2000;
	for (unsigned f = 0; f < flows; f++) {
		uint32_t src = f % 8, dst = 8 + (f / 8) % 8;
		unsigned links = th_route(sim, src, dst, (uint16_t)(10000 + f), path, NULL, MAXHOPS);
		unsigned n = 0;
		for (unsigned i = 0; i < links; i++)
			if (is_global(fab, path[i], path[i + 1])) {
				/* routers (0, 0) and (0, 2) own them */
				assert_true(path[i] == 40 || path[i] == 42);
				used[path[i] == 42]++;
				n++;
			}
		assert_int_equal(n, 1);
	}
	assert_true(used[0] > flows / 4);
	assert_true(used[1] > flows / 4);
	/* another ecmp_seed, other choices */
	struct ws_sim *b = df_sim(2, 4, 2, 5, "absolute", "mode = minimal\necmp_seed = 7");
	uint32_t pb[MAXHOPS];
	unsigned differ = 0;
	for (unsigned f = 0; f < 200; f++) {
		unsigned la = th_route(sim, 2, 9, (uint16_t)(20000 + f), path, NULL, MAXHOPS);
		unsigned lb = th_route(b, 2, 9, (uint16_t)(20000 + f), pb, NULL, MAXHOPS);
		differ += la != lb || memcmp(path, pb, (la + 1) * sizeof *path) != 0;
	}
	assert_true(differ > 50);
	ws_sim_free(b);
	ws_sim_free(sim);
}

static void expect_error(const char *ini, const char *key, const char *part)
{
	struct ws_sim *sim;
	struct ws_err err;
	int rc = th_sim_try(ini, &sim, &err, NULL);
	if (rc == WS_OK)
		fail_msg("accepted: %s", ini);
	assert_null(sim);
	if (!strstr(err.msg, part))
		fail_msg("'%s' lacks '%s'", err.msg, part);
	if (key && strcmp(err.key, key) != 0)
		fail_msg("'%s' names key '%s', not '%s'", err.msg, err.key, key);
}

static const char *topo_ini(const char *keys, const char *routing)
{
	th_write("empty.txt", "0\n");
	return th_fmt("[topology]\nname = dragonfly\n%s\n[routing]\nname = dragonfly\n%s\n"
		      "[workload]\nname = flows\nfile = empty.txt\n", keys, routing);
}

static void test_bad_specs(void **state)
{
	(void)state;
	expect_error(topo_ini("a = 4\nh = 2\ng = 10", ""), "topology.g",
		     "g = 10: with a*h = 8 global links per group at most a*h + 1 = 9 groups");
	expect_error(topo_ini("a = 4\nh = 2\ng = 6", ""), "topology.g",
		     "g = 6: the a*h = 8 global links of a group cannot be shared equally "
		     "by the g-1 = 5 other groups");
	expect_error(topo_ini("g = 1", ""), "topology.g", "at least 2 groups");
	expect_error(topo_ini("p = 0", ""), "topology.p", "out of range");
	expect_error(topo_ini("a = 0", ""), "topology.a", "out of range");
	expect_error(topo_ini("h = 0", ""), "topology.h", "out of range");
	expect_error(topo_ini("p = 30000\na = 30000\nh = 30000", ""), "topology.h",
		     "p + a-1 + h = 89999 ports");
	expect_error(topo_ini("p = 1000\na = 3000\nh = 3000", ""), "topology.g",
		     "9000001 groups (g = 0: a*h + 1)");
	expect_error(topo_ini("arrangement = random", ""), "topology.arrangement", "absolute");
	expect_error(topo_ini("g = 2", "mode = valiant"), "routing.mode",
		     "mode = valiant needs an intermediate group");
	expect_error(topo_ini("g = 2", "mode = ugal"), "routing.mode",
		     "mode = ugal needs an intermediate group");
	/* the rule routes dragonflies only */
	expect_error("[topology]\nname = fat-tree\n[routing]\nname = dragonfly\n"
		     "[workload]\nname = flows\nfile = empty.txt\n", NULL,
		     "routing rule 'dragonfly' cannot route the fabric of topology 'fat-tree'");
	/* two classes are reserved above a flow's priority */
	th_write("prio6.txt", "1\n0 9 6 100 1000 0\n");
	struct ws_sim *sim = th_sim("[topology]\nname = dragonfly\n"
				    "[workload]\nname = flows\nfile = prio6.txt\n");
	struct ws_err err;
	assert_int_equal(ws_sim_run(sim, WS_TIME_NEVER, &err), WS_EINVAL);
	if (!strstr(err.msg, "raises packets up to 2 classes (deadlock avoidance), "
			     "so priorities above 5 have no room"))
		fail_msg("%s", err.msg);
	ws_sim_free(sim);
}

static void test_probes_leave_state_alone(void **state)
{
	(void)state;
	struct ws_sim *sim = df_sim(2, 4, 2, 9, "absolute", "mode = ugal");
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	struct ws_inst *rt = (struct ws_inst *)ws_sim_instance(sim, WS_KIND_ROUTING);
	const struct ws_routing_ops *ops = rt->plugin->ops;
	const uint64_t before = ops->state_bytes(rt);
	assert_true(before > 0);
	struct ws_pkt pkt;
	ws_pkt_probe(&pkt, 0, 20 /* group 2 */, 10000, 100);
	pkt.flow = 100000;
	const struct ws_node *r0 = ws_node_get(fab, 72), *dst = ws_node_get(fab, 20);
	const uint8_t control[] = { WS_PKT_ACK, WS_PKT_NACK, WS_PKT_CNP };
	for (size_t i = 0; i < sizeof control; i++) {
		pkt.type = control[i];
		pkt.route = 0;
		assert_true(ops->next_hop(rt, r0, dst, &pkt) < r0->n_ports);
		assert_int_equal(pkt.route, 0);
		assert_int_equal(pkt.vc, 0);
	}
	pkt.type = WS_PKT_DATA;
	pkt.flow = WS_NONE;
	assert_true(ops->next_hop(rt, r0, dst, &pkt) < r0->n_ports);
	assert_int_equal(pkt.route, 0);
	assert_int_equal(ops->state_bytes(rt), before);
	/* a data packet of flow 100000 is decided (idle queues: minimal) and
	 * grows the table to hold it */
	pkt.flow = 100000;
	assert_true(ops->next_hop(rt, r0, dst, &pkt) < r0->n_ports);
	assert_int_equal(pkt.route, 1);
	assert_true(ops->state_bytes(rt) > before);
	assert_true(ops->state_bytes(rt) >= 100001 * 16);
	ws_sim_free(sim);
	/* minimal and per-packet UGAL keep nothing */
	const char *stateless[] = { "mode = minimal", "mode = valiant",
				    "mode = ugal\nugal_granularity = packet" };
	for (size_t i = 0; i < WS_ARRAY_LEN(stateless); i++) {
		sim = df_sim(2, 4, 2, 9, "absolute", stateless[i]);
		rt = (struct ws_inst *)ws_sim_instance(sim, WS_KIND_ROUTING);
		ops = rt->plugin->ops;
		assert_int_equal(ops->state_bytes(rt), 0);
		ws_sim_free(sim);
	}
}

static void test_escalation_off_keeps_class(void **state)
{
	(void)state;
	struct ws_sim *sim = df_sim(2, 4, 2, 9, "absolute",
				    "mode = valiant\nvc_escalation = false");
	check_routes(sim, true, false, 5);
	ws_sim_free(sim);
}

/* ---- runs ------------------------------------------------------------------- */

struct run_result {
	struct ws_sim_stats st;
	uint64_t global_bytes; /* bytes sent on links between groups */
};

static void run_flows(const char *routing, const char *extra, const char *flows,
		      struct run_result *out, const char *fct_dir)
{
	th_write("run-flows.txt", flows);
	struct ws_sim *sim = th_sim(th_fmt("[topology]\nname = dragonfly\np = 2\na = 4\nh = 2\n"
					   "[routing]\nname = dragonfly\n%s\n%s\n"
					   "[workload]\nname = flows\nfile = run-flows.txt\n",
					   routing, extra));
	th_run(sim);
	out->st.size = sizeof out->st;
	ws_sim_get_stats(sim, &out->st);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	out->global_bytes = 0;
	for (uint32_t i = fab->n_hosts; i < fab->n_nodes; i++)
		for (uint32_t l = 0; l < ws_node_get(fab, i)->n_ports; l++) {
			struct ws_port_info x = { WS_INIT_SIZE(struct ws_port_info) };
			assert_int_equal(ws_port_info(sim, i, l, &x), WS_OK);
			if (is_global(fab, i, x.peer_node))
				out->global_bytes += ws_port_at(sim, i, l)->tx_bytes;
		}
	if (fct_dir) {
		struct ws_err err;
		char path[512];
		snprintf(path, sizeof path, "%s/%s", th_tmpdir(), fct_dir);
		assert_int_equal(ws_sim_write_outputs(sim, path, &err), WS_OK);
	}
	ws_sim_free(sim);
}

static char *flow_text(unsigned n, const uint32_t *src, const uint32_t *dst,
		       const ws_time *start, uint64_t bytes)
{
	size_t cap = 64 + (size_t)n * 48, len = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	len += (size_t)snprintf(s, cap, "%u\n", n);
	for (unsigned i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%u %u 3 100 %llu %.9f\n",
					src[i], dst[i], (unsigned long long)bytes,
					(double)start[i] / (double)WS_SEC);
	return s;
}

/*
 * Every host to every other host, 4 KB each, all at time 0: 5,112 flows
 * of 4 packets (default MTU) are enough to fill the small buffers below
 * (hundreds of PFC pauses in each mode) and to deadlock a single class with
 * no flow completed; 20 KB flows took five times as long for the same.
 */
static char *all_to_all(void)
{
	const unsigned hosts = 72, n = hosts * (hosts - 1);
	uint32_t *src = calloc(n, sizeof *src), *dst = calloc(n, sizeof *dst);
	ws_time *start = calloc(n, sizeof *start);
	unsigned k = 0;
	for (uint32_t s = 0; s < hosts; s++)
		for (uint32_t d = 0; d < hosts; d++)
			if (s != d) {
				src[k] = s;
				dst[k++] = d;
			}
	char *text = flow_text(n, src, dst, start, 4000);
	free(src);
	free(dst);
	free(start);
	return text;
}

/* PFC has to work: a 500 KB buffer per router (the headroom takes 340 KB) */
#define SMALL_BUFFER "[cc]\nname = none\n[switch]\nbuffer = 500KB\n"

static void test_all_to_all_completes(void **state)
{
	(void)state;
	char *flows = all_to_all();
	const char *modes[] = { "mode = minimal", "mode = valiant", "mode = ugal" };
	for (size_t m = 0; m < WS_ARRAY_LEN(modes); m++) {
		struct run_result r;
		run_flows(modes[m], SMALL_BUFFER, flows, &r, NULL);
		if (r.st.flows_done != 72 * 71)
			fail_msg("%s: %u of %u flows completed", modes[m],
				 r.st.flows_done, r.st.flows);
		assert_int_equal(r.st.drops, 0);
		assert_true(r.st.pfc_pauses > 0);
	}
	free(flows);
}

static void test_escalation_avoids_deadlock(void **state)
{
	(void)state;
	char *flows = all_to_all();
	struct run_result on, off;
	run_flows("mode = valiant", SMALL_BUFFER, flows, &on, NULL);
	run_flows("mode = valiant\nvc_escalation = false", SMALL_BUFFER, flows, &off, NULL);
	free(flows);
	assert_int_equal(on.st.flows_done, 72 * 71);
	/* everything in one class: a cycle of PFC pauses stops the fabric,
	 * the event queue drains and flows are left unfinished */
	assert_true(off.st.flows_done < 72 * 71 / 2);
	assert_int_equal(off.st.drops, 0);
}

/*
 * Every host of group i sends 8 flows of 50 KB, 5 us apart, to its
 * counterpart in group i+1: minimal routing squeezes each group's 64 flows
 * through one global link.
 */
static char *adversarial(void)
{
	const unsigned n = 8 * 72;
	uint32_t src[8 * 72], dst[8 * 72];
	ws_time start[8 * 72];
	unsigned k = 0;
	for (unsigned j = 0; j < 8; j++)
		for (uint32_t s = 0; s < 72; s++) {
			src[k] = s;
			dst[k] = (s / 8 + 1) % 9 * 8 + s % 8;
			start[k++] = j * 5 * WS_US;
		}
	return flow_text(n, src, dst, start, 50000);
}

static void test_adversarial_ugal(void **state)
{
	(void)state;
	char *flows = adversarial();
	struct run_result min, val, ugal;
	run_flows("mode = minimal", "[cc]\nname = dcqcn\n", flows, &min, NULL);
	run_flows("mode = valiant", "[cc]\nname = dcqcn\n", flows, &val, NULL);
	run_flows("mode = ugal", "[cc]\nname = dcqcn\n", flows, &ugal, NULL);
	free(flows);
	const struct run_result *all[] = { &min, &val, &ugal };
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(all[i]->st.flows_done, 8 * 72);
		assert_int_equal(all[i]->st.drops, 0);
	}
	/* every data and ACK byte of minimal crosses one global link; Valiant
	 * crosses two; UGAL in between */
	assert_true(val.global_bytes > 19 * min.global_bytes / 10);
	assert_true(ugal.global_bytes > 12 * min.global_bytes / 10);
	assert_true(ugal.global_bytes < val.global_bytes);
	/* the last flow ends much earlier */
	assert_true(ugal.st.now < 3 * min.st.now / 4);
	assert_true(val.st.now < 3 * min.st.now / 4);
}

/*
 * The decision itself: 20 us into the adversarial pattern the minimal ports
 * of group 0's routers towards group 1 hold queues; a new flow's first
 * packet goes Valiant (on most of them), on a port with a shorter queue,
 * and its flowlet keeps that choice.
 */
static void test_ugal_decision(void **state)
{
	(void)state;
	char *flows = adversarial();
	th_write("run-flows.txt", flows);
	free(flows);
	struct ws_sim *sim = th_sim("[topology]\nname = dragonfly\n"
				    "[routing]\nname = dragonfly\nmode = ugal\n"
				    "[cc]\nname = dcqcn\n"
				    "[workload]\nname = flows\nfile = run-flows.txt\n");
	th_run_until(sim, 20 * WS_US);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	struct ws_inst *rt = (struct ws_inst *)ws_sim_instance(sim, WS_KIND_ROUTING);
	const struct ws_routing_ops *ops = rt->plugin->ops;
	unsigned valiant = 0;
	for (uint32_t r = 0; r < 4; r++) {
		const struct ws_node *at = ws_node_get(fab, 72 + r);
		const struct ws_node *dst = ws_node_get(fab, 8 + 2 * r);
		struct ws_pkt pkt;
		memset(&pkt, 0, sizeof pkt);
		pkt.src = 2 * r;
		pkt.dst = dst->id;
		pkt.sport = 30000;
		pkt.dport = 100;
		pkt.prio = 3;
		/* an ACK of the same tuple takes the minimal path */
		pkt.type = WS_PKT_ACK;
		const uint32_t port_min = ops->next_hop(rt, at, dst, &pkt);
		const uint64_t q_min = ws_port_queue_bytes(sim, at->id, port_min);
		pkt.type = WS_PKT_DATA;
		pkt.flow = 100000 + r;
		pkt.route = 0;
		const uint32_t port = ops->next_hop(rt, at, dst, &pkt);
		if (pkt.route == 1) {
			assert_int_equal(port, port_min);
			continue;
		}
		/* 2 + an intermediate group other than 0 and 1 */
		assert_true(pkt.route >= 4 && pkt.route < 2 + 9);
		assert_int_equal(pkt.vc, 0);
		assert_true(ws_port_queue_bytes(sim, at->id, port) < q_min);
		valiant++;
		/* the next packet of the flowlet follows, whatever the queues */
		uint16_t route = pkt.route;
		pkt.route = 0;
		pkt.seq = 1000;
		assert_int_equal(ops->next_hop(rt, at, dst, &pkt), port);
		assert_int_equal(pkt.route, route);
	}
	assert_true(valiant >= 2);
	ws_sim_free(sim);
}

static void test_ugal_deterministic(void **state)
{
	(void)state;
	char *flows = adversarial();
	struct run_result a, b;
	run_flows("mode = ugal", "[cc]\nname = dcqcn\n", flows, &a, "ugal-a");
	run_flows("mode = ugal", "[cc]\nname = dcqcn\n", flows, &b, "ugal-b");
	free(flows);
	char pa[512], pb[512];
	snprintf(pa, sizeof pa, "%s/ugal-a/fct.csv", th_tmpdir());
	snprintf(pb, sizeof pb, "%s/ugal-b/fct.csv", th_tmpdir());
	char *fa = th_read(pa, NULL), *fb = th_read(pb, NULL);
	assert_non_null(fa);
	assert_non_null(fb);
	assert_true(strlen(fa) > 10000);
	assert_string_equal(fa, fb);
	assert_int_equal(a.global_bytes, b.global_bytes);
	free(fa);
	free(fb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_g9_absolute),
		cmocka_unit_test(test_g9_palmtree),
		cmocka_unit_test(test_parallel_links),
		cmocka_unit_test(test_arrangement_formulas),
		cmocka_unit_test(test_ecmp_parallel_links),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_probes_leave_state_alone),
		cmocka_unit_test(test_escalation_off_keeps_class),
		cmocka_unit_test(test_all_to_all_completes),
		cmocka_unit_test(test_escalation_avoids_deadlock),
		cmocka_unit_test(test_adversarial_ugal),
		cmocka_unit_test(test_ugal_decision),
		cmocka_unit_test(test_ugal_deterministic),
	};
	return cmocka_run_group_tests_name("dragonfly", tests, NULL, NULL);
}
