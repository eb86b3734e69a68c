/* SPDX-License-Identifier: MIT */
/*
 * Routing rules on failures: routing/dragonfly and routing/table, with
 * links taken down and back up through ws_link_set (the rule is told at
 * once) and, for a router's local knowledge, a port marked down without
 * telling the rule.
 *   - dragonfly, every mode: each global link down in turn, each local
 *     link, a destination's terminal link, a group cut off, random sets:
 *     every host pair routes without a loop, to the right host, never over
 *     a down link, within the classes the rule declares and in the class
 *     order its header argues deadlock freedom from; a pair is reported
 *     unreachable only when an independent BFS over the live graph agrees;
 *     a link back up gives back the failure-free routes;
 *   - table: on the HPCC fat.txt, routes avoid down links and stay
 *     shortest over the live graph; the rows kept are exactly the
 *     destinations whose distances changed; a link back drops them; two
 *     simulations sharing one fabric cache: a failure in one leaves the
 *     other's routes and memory alone;
 *   - determinism: same seed and failures, byte-identical outputs.
 */
#include "th.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXHOPS 32
#define PRIO WS_PROBE_PRIO
#define FAT TH_SRCDIR "/tests/data/hpcc-fat.txt"

static const char *const df_modes[] = { "minimal", "valiant", "ugal" };

/* ---- an independent view of the live graph ---------------------------- */

/* Hops from every node to `dst` over links that are up, hosts not
 * forwarding (UINT32_MAX: no path). */
static void live_bfs(struct ws_sim *sim, uint32_t dst, uint32_t *dist)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t *queue = malloc(fab->n_nodes * sizeof *queue), head = 0, tail = 0;
	assert_non_null(queue);
	for (uint32_t i = 0; i < fab->n_nodes; i++)
		dist[i] = UINT32_MAX;
	dist[dst] = 0;
	queue[tail++] = dst;
	while (head < tail) {
		const struct ws_node *u = ws_node_get(fab, queue[head++]);
		for (uint32_t p = 0; p < u->n_ports; p++) {
			struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
			assert_int_equal(ws_port_info(sim, u->id, p, &pi), WS_OK);
			if (!ws_port_up(sim, u->id, p) || dist[pi.peer_node] != UINT32_MAX)
				continue;
			dist[pi.peer_node] = dist[u->id] + 1;
			if (ws_node_get(fab, pi.peer_node)->kind == WS_NODE_SWITCH)
				queue[tail++] = pi.peer_node;
		}
	}
	free(queue);
}

/* Trace src -> dst; WS_OK with the hops, or the rule found no port. */
static int trace(struct ws_sim *sim, uint32_t src, uint32_t dst, uint16_t sport,
		 struct ws_hop *hops, uint32_t *n, char *why, size_t why_len)
{
	struct ws_pkt p;
	struct ws_err err;
	ws_pkt_probe(&p, src, dst, sport, 100);
	ws_err_clear(&err);
	int rc = ws_route_trace(sim, &p, hops, MAXHOPS, n, &err);
	snprintf(why, why_len, "%s", rc ? err.msg : "");
	return rc;
}

/* ---- dragonfly ---------------------------------------------------------- */

static struct ws_sim *df_sim(unsigned p, unsigned a, unsigned h, unsigned g,
			     const char *arr, const char *mode)
{
	th_write("empty.txt", "0\n");
	return th_sim(th_fmt("[topology]\nname = dragonfly\np = %u\na = %u\nh = %u\n"
			     "g = %u\narrangement = %s\n"
			     "[routing]\nname = dragonfly\nmode = %s\n"
			     "[workload]\nname = flows\nfile = empty.txt\n",
			     p, a, h, g, arr, mode));
}

static bool df_global(const struct ws_fabric *fab, uint32_t x, uint32_t y)
{
	const struct ws_node *a = ws_node_get(fab, x), *b = ws_node_get(fab, y);
	return a->kind == WS_NODE_SWITCH && b->kind == WS_NODE_SWITCH &&
	       a->addr[0] != b->addr[0];
}

/* The route as text, for failure messages. */
static const char *hops_str(const struct ws_hop *hops, uint32_t n)
{
	static char buf[1024];
	size_t len = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < n && len + 32 < sizeof buf; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, " %u:%u/c%u",
					hops[i].node, hops[i].port, hops[i].cls);
	return buf;
}

struct df_tally {
	unsigned routed, unreachable;
	unsigned max_cls;
};

/*
 * Every host pair (two entropy values each): routed without a loop, over
 * links that are up, to the destination, in classes within the rule's vcs
 * and in the order of its deadlock argument (a class holds at most one
 * local hop, then a global or terminal one; classes never go down); or
 * refused, and then unreachable over the live graph.
 */
static void df_check_all_cls(struct ws_sim *sim, struct df_tally *t, const char *what,
			     bool classes)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	const uint32_t vcs = 2;
	uint32_t *dist = malloc(fab->n_nodes * sizeof *dist);
	assert_non_null(dist);
	struct ws_hop hops[MAXHOPS];
	char why[1024];
	for (uint32_t d = 0; d < fab->n_hosts; d++) {
		live_bfs(sim, fab->hosts[d], dist);
		for (uint32_t s = 0; s < fab->n_hosts; s++) {
			if (s == d || !ws_port_up(sim, fab->hosts[s], 0))
				continue; /* a source cut off sends nothing */
			for (uint16_t sp = 0; sp < 2; sp++) {
				uint32_t n = 0;
				int rc = trace(sim, fab->hosts[s], fab->hosts[d],
					       (uint16_t)(4000 + 977 * sp + 31 * s + d),
					       hops, &n, why, sizeof why);
				if (rc) {
					if (dist[fab->hosts[s]] != UINT32_MAX ||
					    !strstr(why, "no route"))
						fail_msg("%s: %u -> %u reachable (%u links) "
							 "but: %s", what, s, d,
							 dist[fab->hosts[s]], why);
					t->unreachable++;
					continue;
				}
				t->routed++;
				unsigned locals = 0;
				for (uint32_t i = 0; i + 1 < n; i++) {
					const uint32_t x = hops[i].node, y = hops[i + 1].node;
					if (!ws_port_up(sim, x, hops[i].port))
						fail_msg("%s: %u -> %u crosses the down link at "
							 "node %u port %u", what, s, d, x,
							 hops[i].port);
					assert_true(hops[i].cls <= PRIO + vcs);
					if (hops[i].cls > t->max_cls)
						t->max_cls = hops[i].cls;
					if (i && hops[i].cls < hops[i - 1].cls)
						fail_msg("%s: %u -> %u: class down at node %u:%s",
							 what, s, d, x, hops_str(hops, n));
					if (i && hops[i].cls > hops[i - 1].cls)
						locals = 0;
					const bool router_hop =
						ws_node_get(fab, x)->kind == WS_NODE_SWITCH &&
						ws_node_get(fab, y)->kind == WS_NODE_SWITCH;
					if (!router_hop || !classes)
						continue;
					if (i + 2 < n && df_global(fab, x, y) &&
					    hops[i + 1].cls == hops[i].cls &&
					    ws_node_get(fab, hops[i + 2].node)->kind ==
						    WS_NODE_SWITCH)
						fail_msg("%s: %u -> %u: a router hop after a "
							 "global one in class %u:%s", what, s, d,
							 hops[i].cls, hops_str(hops, n));
					if (!df_global(fab, x, y) && ++locals > 1)
						fail_msg("%s: %u -> %u: two local hops in "
							 "class %u:%s", what, s, d, hops[i].cls,
							 hops_str(hops, n));
				}
			}
		}
	}
	free(dist);
}

static void df_check_all(struct ws_sim *sim, struct df_tally *t, const char *what)
{
	df_check_all_cls(sim, t, what, true);
}

/* The router-to-router links of the fabric, once each (lower node id end). */
static uint32_t df_links(struct ws_sim *sim, bool global, uint32_t (*out)[2],
			 uint32_t max)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t n = 0;
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *u = ws_node_get(fab, i);
		if (u->kind != WS_NODE_SWITCH)
			continue;
		for (uint32_t p = 0; p < u->n_ports; p++) {
			struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
			ws_port_info(sim, i, p, &pi);
			if (pi.peer_node < i || ws_node_get(fab, pi.peer_node)->kind !=
							WS_NODE_SWITCH ||
			    df_global(fab, i, pi.peer_node) != global)
				continue;
			assert_true(n < max);
			out[n][0] = i;
			out[n][1] = p;
			n++;
		}
	}
	return n;
}

static void link_set(struct ws_sim *sim, uint32_t node, uint32_t port, bool up)
{
	struct ws_err err;
	if (ws_link_set(sim, node, port, up, &err))
		fail_msg("link %u:%u %s: %s", node, port, up ? "up" : "down", err.msg);
}

/* The routes of every pair (one entropy value), to compare before/after. */
static uint32_t *df_snapshot(struct ws_sim *sim)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	const uint32_t H = fab->n_hosts;
	uint32_t *snap = calloc((size_t)H * H * MAXHOPS, sizeof *snap);
	assert_non_null(snap);
	struct ws_hop hops[MAXHOPS];
	char why[1024];
	for (uint32_t s = 0; s < H; s++)
		for (uint32_t d = 0; d < H; d++) {
			uint32_t n = 0;
			if (s == d || trace(sim, fab->hosts[s], fab->hosts[d],
					    (uint16_t)(7000 + s * 13 + d), hops, &n,
					    why, sizeof why))
				continue;
			for (uint32_t i = 0; i < n; i++)
				snap[((size_t)s * H + d) * MAXHOPS + i] =
					hops[i].node * 64 + hops[i].port + 1 +
					((uint32_t)hops[i].cls << 28);
		}
	return snap;
}

/* Does any route of the snapshot cross node:port? */
static bool df_uses(const uint32_t *snap, uint32_t H, uint32_t node, uint32_t port)
{
	for (size_t i = 0; i < (size_t)H * H * MAXHOPS; i++)
		if (snap[i] && ((snap[i] & 0x0fffffffu) - 1) == node * 64 + port)
			return true;
	return false;
}

/* Each global link down in turn, in every mode: all pairs route; back up,
 * the failure-free routes, which used the link, come back. */
static void test_df_each_global(void **state)
{
	(void)state;
	for (unsigned m = 0; m < 3; m++) {
		struct ws_sim *sim = df_sim(1, 4, 2, 5, m == 1 ? "palmtree" : "absolute",
					    df_modes[m]);
		const uint32_t H = ws_sim_fabric(sim)->n_hosts;
		uint32_t links[64][2];
		const uint32_t n = df_links(sim, true, links, 64);
		assert_int_equal(n, 5 * 4 * 2 / 2);
		uint32_t *before = df_snapshot(sim);
		struct df_tally t = { 0 };
		unsigned used = 0;
		for (uint32_t i = 0; i < n; i++) {
			link_set(sim, links[i][0], links[i][1], false);
			df_check_all(sim, &t, th_fmt("%s, global %u:%u down", df_modes[m],
						     links[i][0], links[i][1]));
			link_set(sim, links[i][0], links[i][1], true);
			used += df_uses(before, H, links[i][0], links[i][1]);
		}
		/* one failure at a time never cuts a pair off */
		assert_int_equal(t.unreachable, 0);
		assert_true(t.max_cls <= PRIO + 2);
		uint32_t *after = df_snapshot(sim);
		assert_memory_equal(before, after, (size_t)H * H * MAXHOPS * sizeof *before);
		assert_true(used >= n / 2); /* the restored links carry routes again */
		free(before);
		free(after);
		ws_sim_free(sim);
	}
}

/* Each local link down in turn (a detour through a third router of the
 * group, or another global link), in every mode. */
static void test_df_each_local(void **state)
{
	(void)state;
	for (unsigned m = 0; m < 3; m++)
		for (unsigned h = 1; h <= 2; h++) {
			struct ws_sim *sim = df_sim(1, 4, h, 5, "absolute", df_modes[m]);
			uint32_t links[64][2];
			const uint32_t n = df_links(sim, false, links, 64);
			assert_int_equal(n, 5 * 4 * 3 / 2);
			struct df_tally t = { 0 };
			for (uint32_t i = 0; i < n; i++) {
				link_set(sim, links[i][0], links[i][1], false);
				df_check_all(sim, &t, th_fmt("%s, h = %u, local %u:%u down",
							     df_modes[m], h, links[i][0],
							     links[i][1]));
				link_set(sim, links[i][0], links[i][1], true);
			}
			assert_int_equal(t.unreachable, 0);
			/* one link per group pair (h = 1): minimal routes detour in
			 * a group and use the spare class; with two, another
			 * global link avoids the detour */
			if (m == 0)
				assert_int_equal(t.max_cls, PRIO + (h == 1 ? 2 : 1));
			ws_sim_free(sim);
		}
}

/* A destination whose terminal link is down, and a group whose global
 * links are all down: unreachable, reported as such, nothing else lost. */
static void test_df_unreachable(void **state)
{
	(void)state;
	for (unsigned m = 0; m < 3; m++) {
		struct ws_sim *sim = df_sim(2, 4, 2, 5, "absolute", df_modes[m]);
		const struct ws_fabric *fab = ws_sim_fabric(sim);
		struct df_tally t = { 0 };
		link_set(sim, fab->hosts[11], 0, false);
		df_check_all(sim, &t, th_fmt("%s, terminal of host 11 down", df_modes[m]));
		/* 39 others to it (host 11 sends nothing) */
		assert_int_equal(t.unreachable, 39 * 2);
		link_set(sim, fab->hosts[11], 0, true);
		/* group 2: routers 2*4 .. 2*4+3, all their global ports */
		const uint32_t r0 = 40 + 2 * 4;
		for (uint32_t r = r0; r < r0 + 4; r++)
			for (uint32_t p = 2 + 3; p < 2 + 3 + 2; p++)
				link_set(sim, r, p, false);
		memset(&t, 0, sizeof t);
		df_check_all(sim, &t, th_fmt("%s, group 2 cut off", df_modes[m]));
		assert_int_equal(t.unreachable, 2 * 8 * 32 * 2);
		assert_int_equal(t.routed, (8 * 7 + 32 * 31) * 2);
		ws_sim_free(sim);
	}
}

/* A router whose local links are all down: its hosts still reach the rest
 * of their group, out through another group and back (classes 0, 1, 2). */
static void test_df_isolated_router(void **state)
{
	(void)state;
	for (unsigned m = 0; m < 3; m++) {
		struct ws_sim *sim = df_sim(1, 4, 2, 5, "absolute", df_modes[m]);
		const uint32_t R = 20 + 6; /* router 2 of group 1, host 6 */
		for (uint32_t l = 1; l < 1 + 3; l++)
			link_set(sim, R, l, false);
		struct df_tally t = { 0 };
		df_check_all(sim, &t, th_fmt("%s, router %u cut from its group",
					     df_modes[m], R));
		assert_int_equal(t.unreachable, 0);
		struct ws_hop hops[MAXHOPS];
		char why[1024];
		uint32_t n = 0;
		assert_int_equal(trace(sim, 6, 4, 5, hops, &n, why, sizeof why), WS_OK);
		assert_true(n - 1 >= 4); /* host, out, back in, host at least */
		assert_int_equal(hops[n - 2].cls, PRIO + 2);
		ws_sim_free(sim);
	}
}

/* Without class escalation (no deadlock claim, every hop in the flow's
 * class): no detour that could ping-pong, still every pair routed around
 * a dead global link, and never a loop. */
static void test_df_no_escalation(void **state)
{
	(void)state;
	th_write("empty.txt", "0\n");
	struct ws_sim *sim = th_sim("[topology]\nname = dragonfly\np = 1\na = 4\nh = 2\n"
				    "g = 5\n[routing]\nname = dragonfly\nmode = ugal\n"
				    "vc_escalation = false\n"
				    "[workload]\nname = flows\nfile = empty.txt\n");
	uint32_t links[128][2];
	uint32_t n = df_links(sim, true, links, 128);
	const uint32_t n_global = n;
	n += df_links(sim, false, links + n, 128 - n);
	struct df_tally t = { 0 };
	for (uint32_t i = 0; i < n; i++) {
		link_set(sim, links[i][0], links[i][1], false);
		df_check_all_cls(sim, &t, th_fmt("no escalation, %u:%u down", links[i][0],
						 links[i][1]), false);
		link_set(sim, links[i][0], links[i][1], true);
		if (i + 1 == n_global)
			assert_int_equal(t.unreachable, 0);
	}
	assert_int_equal(t.max_cls, PRIO);
	ws_sim_free(sim);
}

/* Random sets of failed links (router links and terminals): the rule
 * refuses only pairs the live graph cannot join. */
static void test_df_random_sets(void **state)
{
	(void)state;
	uint64_t x = 0x2545f4914f6cdd1dull;
	for (unsigned m = 0; m < 3; m++) {
		struct ws_sim *sim = df_sim(1, 4, 2, 5, "absolute", df_modes[m]);
		uint32_t links[128][2];
		uint32_t n = df_links(sim, true, links, 128);
		n += df_links(sim, false, links + n, 128 - n);
		struct df_tally t = { 0 };
		for (unsigned set = 0; set < 6; set++) {
			uint32_t down[8];
			const unsigned k = 2 + set % 3;
			for (unsigned i = 0; i < k; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				down[i] = (uint32_t)(x % n);
				link_set(sim, links[down[i]][0], links[down[i]][1], false);
			}
			df_check_all(sim, &t, th_fmt("%s, random set %u", df_modes[m], set));
			for (unsigned i = 0; i < k; i++)
				link_set(sim, links[down[i]][0], links[down[i]][1], true);
		}
		assert_true(t.routed > 0);
		ws_sim_free(sim);
	}
}

/*
 * Local knowledge: a port marked down at its router, the rule not told
 * (as during [failures] reroute_delay).  The router sees it and routes
 * around it; no route crosses it; others may still send to the router,
 * which then finds a way or drops.
 */
static void test_df_local_knowledge(void **state)
{
	(void)state;
	for (unsigned m = 0; m < 3; m++) {
		struct ws_sim *sim = df_sim(1, 4, 2, 5, "absolute", df_modes[m]);
		const struct ws_fabric *fab = ws_sim_fabric(sim);
		const uint32_t R = 20 + 5; /* router 1 of group 1; host 5 on it */
		struct ws_hop hops[MAXHOPS];
		char why[1024];
		for (uint32_t gp = 1 + 3; gp < 1 + 3 + 2; gp++) {
			/* as the kernel takes a link down: the port, and its count
			 * of link changes that rules read before asking */
			sim->ports[fab->nodes[R].first_port + gp].down = 1;
			sim->links_changed++;
			for (uint32_t d = 0; d < fab->n_hosts; d++) {
				uint32_t n = 0;
				if (d == 5)
					continue;
				int rc = trace(sim, fab->hosts[5], fab->hosts[d], 99, hops,
					       &n, why, sizeof why);
				if (rc)
					fail_msg("%s: 5 -> %u with port %u of its router "
						 "down: %s", df_modes[m], d, gp, why);
				for (uint32_t i = 0; i + 1 < n; i++)
					assert_true(ws_port_up(sim, hops[i].node, hops[i].port));
			}
			sim->ports[fab->nodes[R].first_port + gp].down = 0;
			sim->links_changed++;
		}
		ws_sim_free(sim);
	}
}

/* ---- table -------------------------------------------------------------- */

static struct ws_sim *fat_sim(struct ws_fabric_cache *cache)
{
	th_write("empty.txt", "0\n");
	struct ws_cfg *cfg;
	struct ws_err err;
	if (ws_cfg_parse_string(&cfg, "[topology]\nname = file\nfile = " FAT "\n"
				"[routing]\nname = table\n"
				"[workload]\nname = flows\nfile = empty.txt\n",
				"test.ini", th_tmpdir(), &err))
		fail_msg("%s", err.msg);
	struct ws_sim *sim;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .fabric_cache = cache };
	if (ws_sim_new(&sim, cfg, &opts, &err))
		fail_msg("%s", err.msg);
	ws_cfg_free(cfg);
	return sim;
}

/* Rows (destination hosts) whose live distances differ from `base`. */
static unsigned rows_changed(struct ws_sim *sim, const uint32_t *base)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t *dist = malloc(fab->n_nodes * sizeof *dist);
	assert_non_null(dist);
	unsigned n = 0;
	for (uint32_t d = 0; d < fab->n_hosts; d++) {
		live_bfs(sim, fab->hosts[d], dist);
		n += memcmp(dist, base + (size_t)d * fab->n_nodes,
			    fab->n_nodes * sizeof *dist) != 0;
	}
	free(dist);
	return n;
}

/* Routes from a sample of sources to every host: over live links, exactly
 * as long as the live graph's shortest path, or refused when there is none. */
static void table_check(struct ws_sim *sim, const char *what)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t *dist = malloc(fab->n_nodes * sizeof *dist);
	assert_non_null(dist);
	struct ws_hop hops[MAXHOPS];
	char why[1024];
	for (uint32_t d = 0; d < fab->n_hosts; d++) {
		live_bfs(sim, fab->hosts[d], dist);
		for (uint32_t s = d % 7; s < fab->n_hosts; s += 7) {
			const uint32_t hs = fab->hosts[s];
			if (s == d || !ws_port_up(sim, hs, 0))
				continue;
			uint32_t n = 0;
			int rc = trace(sim, hs, fab->hosts[d], (uint16_t)(s * 31 + d),
				       hops, &n, why, sizeof why);
			if (rc) {
				if (dist[hs] != UINT32_MAX || !strstr(why, "no route"))
					fail_msg("%s: %u -> %u: %s", what, hs, fab->hosts[d], why);
				continue;
			}
			if (n - 1 != dist[hs])
				fail_msg("%s: %u -> %u takes %u links, the live graph %u",
					 what, hs, fab->hosts[d], n - 1, dist[hs]);
			for (uint32_t i = 0; i + 1 < n; i++)
				assert_true(ws_port_up(sim, hops[i].node, hops[i].port));
		}
	}
	free(dist);
}

static uint32_t *all_rows(struct ws_sim *sim)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t *base = malloc((size_t)fab->n_hosts * fab->n_nodes * sizeof *base);
	assert_non_null(base);
	for (uint32_t d = 0; d < fab->n_hosts; d++)
		live_bfs(sim, fab->hosts[d], base + (size_t)d * fab->n_nodes);
	return base;
}

/*
 * Links of every tier of fat.txt down one at a time, then several at
 * once: the rule keeps exactly the rows whose distances changed (its
 * state grows by 2 bytes per node per row), routes stay shortest over the
 * live graph, and everything back up leaves no row behind.
 */
static void test_table_rows(void **state)
{
	(void)state;
	struct ws_sim *sim = fat_sim(NULL);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	const uint64_t row_bytes = 2ull * fab->n_nodes;
	uint32_t *base = all_rows(sim);
	const uint64_t b0 = ws_routing_state_bytes(sim);
	/* host 0's link, edge 320 - agg, agg - core, a second host's link */
	const uint32_t cut[][2] = { { 0, 0 }, { 320, 16 }, { 360 - 8, 4 }, { 17, 0 } };
	uint64_t fixed = 0;
	for (unsigned i = 0; i < 4; i++) {
		link_set(sim, cut[i][0], cut[i][1], false);
		const uint64_t b = ws_routing_state_bytes(sim);
		link_set(sim, cut[i][0], cut[i][1], true);
		fixed = ws_routing_state_bytes(sim) - b0; /* no row left */
		assert_int_equal((b - b0 - fixed) % row_bytes, 0);
		link_set(sim, cut[i][0], cut[i][1], false);
		assert_int_equal((b - b0 - fixed) / row_bytes, rows_changed(sim, base));
		if (i == 1) /* edge - aggregation: the 16 hosts below the edge */
			assert_int_equal((b - b0 - fixed) / row_bytes, 16);
		table_check(sim, th_fmt("link %u:%u down", cut[i][0], cut[i][1]));
		link_set(sim, cut[i][0], cut[i][1], true);
	}
	/* a host's link: every row changes (the host is cut off) */
	link_set(sim, 0, 0, false);
	assert_int_equal(ws_routing_state_bytes(sim) - b0 - fixed,
			 (uint64_t)fab->n_hosts * row_bytes);
	link_set(sim, 0, 0, true);
	/* several at once, cumulative, then all back */
	const uint32_t many[][2] = { { 320, 16 }, { 320, 17 }, { 321, 16 },
				     { 344, 4 }, { 9, 0 } };
	for (unsigned i = 0; i < 5; i++) {
		link_set(sim, many[i][0], many[i][1], false);
		assert_int_equal((ws_routing_state_bytes(sim) - b0 - fixed) / row_bytes,
				 rows_changed(sim, base));
	}
	table_check(sim, "five links down");
	for (unsigned i = 0; i < 5; i++)
		link_set(sim, many[i][0], many[i][1], true);
	assert_int_equal(ws_routing_state_bytes(sim), b0 + fixed);
	table_check(sim, "all back");
	free(base);
	ws_sim_free(sim);
}

/* Two simulations share one fabric cache: a failure in one changes
 * neither the other's routes nor its state. */
static void test_table_shared(void **state)
{
	(void)state;
	struct ws_fabric_cache *c;
	struct ws_err err;
	assert_int_equal(ws_fabric_cache_new(&c, &err), WS_OK);
	struct ws_sim *a = fat_sim(c), *b = fat_sim(c);
	assert_int_equal(ws_fabric_cache_builds(c), 1);
	const uint64_t bb = ws_routing_state_bytes(b);
	uint32_t pa[MAXHOPS], pb[MAXHOPS], before[64][MAXHOPS];
	for (uint32_t d = 0; d < 64; d++)
		th_route(b, 0 + d % 16, 100 + d * 3, (uint16_t)d, before[d], NULL, MAXHOPS);
	link_set(a, 320, 16, false);
	link_set(a, 16, 0, false);
	link_set(b, 301, 0, false); /* b's own failure, elsewhere */
	table_check(a, "a, shared, two links down");
	for (uint32_t d = 0; d < 64; d++) {
		unsigned n = th_route(b, 0 + d % 16, 100 + d * 3, (uint16_t)d, pb, NULL,
				      MAXHOPS);
		assert_memory_equal(pb, before[d], (n + 1) * sizeof *pb);
	}
	assert_true(ws_routing_state_bytes(b) > bb); /* its own rows only */
	link_set(b, 301, 0, true);
	/* a third simulation, built after the failures, sees none of them */
	struct ws_sim *x = fat_sim(c);
	const unsigned nx = th_route(x, 0, 100, 0, pa, NULL, MAXHOPS);
	assert_int_equal(th_route(b, 0, 100, 0, pb, NULL, MAXHOPS), nx);
	assert_memory_equal(pa, pb, (nx + 1) * sizeof *pa);
	table_check(x, "a third simulation");
	ws_sim_free(a);
	ws_sim_free(b);
	ws_sim_free(x);
	ws_fabric_cache_free(c);
}

/* ---- determinism ---------------------------------------------------------- */

/* Links down before and during a run (half each, the second half at
 * 20 us): fct.csv and ports.csv of the run. */
static char *run_with_failures(const char *ini, const uint32_t (*cut)[2], unsigned n,
			       const char *dir)
{
	struct ws_sim *sim = th_sim(ini);
	for (unsigned i = 0; i < n / 2; i++)
		link_set(sim, cut[i][0], cut[i][1], false);
	th_run_until(sim, 20 * WS_US);
	for (unsigned i = n / 2; i < n; i++)
		link_set(sim, cut[i][0], cut[i][1], false);
	th_run(sim);
	struct ws_err err;
	char path[512];
	snprintf(path, sizeof path, "%s/%s", th_tmpdir(), dir);
	assert_int_equal(ws_sim_write_outputs(sim, path, &err), WS_OK);
	ws_sim_free(sim);
	snprintf(path, sizeof path, "%s/%s/fct.csv", th_tmpdir(), dir);
	char *fct = th_read(path, NULL);
	snprintf(path, sizeof path, "%s/%s/ports.csv", th_tmpdir(), dir);
	char *ports = th_read(path, NULL);
	assert_non_null(fct);
	assert_non_null(ports);
	char *s = malloc(strlen(fct) + strlen(ports) + 1);
	assert_non_null(s);
	strcpy(s, fct);
	strcat(s, ports);
	free(fct);
	free(ports);
	return s;
}

/* A dragonfly UGAL run and a fat.txt table run with failures: the same
 * outputs twice, and not those without failures. */
static void test_determinism(void **state)
{
	(void)state;
	char flows[4096] = "";
	for (unsigned i = 0; i < 16; i++)
		snprintf(flows + strlen(flows), sizeof flows - strlen(flows),
			 "%u %u 3 100 %u 0.00000%u\n", i, (i * 7 + 5) % 40, 200000,
			 i % 3);
	th_write("fail-flows.txt", th_fmt("16\n%s", flows));
	const char *df = "[topology]\nname = dragonfly\np = 2\na = 4\nh = 2\ng = 5\n"
			 "[routing]\nname = dragonfly\nmode = ugal\n"
			 "[workload]\nname = flows\nfile = fail-flows.txt\n"
			 "[output]\nports = true\n";
	/* router links in groups 0 and 1, then a global link */
	const uint32_t cut[][2] = { { 40, 2 }, { 45, 3 }, { 41, 5 }, { 44, 6 } };
	char *a = run_with_failures(df, cut, 4, "df-a");
	char *b = run_with_failures(df, cut, 4, "df-b");
	char *z = run_with_failures(df, cut, 0, "df-z");
	assert_string_equal(a, b);
	assert_string_not_equal(a, z);
	free(a);
	free(b);
	free(z);
	/* table on fat.txt: flows across pods, an edge-aggregation link and
	 * an aggregation-core link down, then a source's own link */
	flows[0] = 0;
	for (unsigned i = 0; i < 16; i++)
		snprintf(flows + strlen(flows), sizeof flows - strlen(flows),
			 "%u %u 3 100 %u 0.00000%u\n", i, 160 + i * 9, 300000, i % 3);
	th_write("fail-fat-flows.txt", th_fmt("16\n%s", flows));
	const char *fat = "[topology]\nname = file\nfile = " FAT "\n"
			  "[routing]\nname = table\n"
			  "[workload]\nname = flows\nfile = fail-fat-flows.txt\n"
			  "[output]\nports = true\n";
	const uint32_t fcut[][2] = { { 320, 16 }, { 340, 5 }, { 321, 18 }, { 7, 0 } };
	a = run_with_failures(fat, fcut, 4, "fat-a");
	b = run_with_failures(fat, fcut, 4, "fat-b");
	z = run_with_failures(fat, fcut, 0, "fat-z");
	assert_string_equal(a, b);
	assert_string_not_equal(a, z);
	free(a);
	free(b);
	free(z);
}

/* A router whose own global link goes down before the rule is told (a
 * reroute delay) routes around it with nothing told yet: the run goes on,
 * the packets already bound for the link are dropped, every flow ends. */
static void test_df_down_before_told(void **state)
{
	(void)state;
	th_write("dfk.txt", "4\n0 8 3 100 300000 0.000003\n1 9 3 100 300000 0.000005\n"
		 "2 17 3 100 300000 0.00001\n3 25 3 100 300000 0.00002\n");
	struct ws_sim *sim = th_sim(
		"[topology]\nname = dragonfly\np = 2\na = 4\nh = 2\n"
		"arrangement = absolute\n[routing]\nname = dragonfly\nmode = ugal\n"
		"[cc]\nname = dcqcn\n[workload]\nname = flows\nfile = dfk.txt\n"
		"[failures]\nreroute_delay = 1ms\n"
		"events = 1us down link 72:5; 1us down link 72:6\n");
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows_done, 4);
	assert_int_equal(st.aborted, 0);
	th_check_bytes(sim);
	ws_sim_free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_df_each_global),
		cmocka_unit_test(test_df_each_local),
		cmocka_unit_test(test_df_unreachable),
		cmocka_unit_test(test_df_isolated_router),
		cmocka_unit_test(test_df_no_escalation),
		cmocka_unit_test(test_df_random_sets),
		cmocka_unit_test(test_df_local_knowledge),
		cmocka_unit_test(test_table_rows),
		cmocka_unit_test(test_table_shared),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_df_down_before_told),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
