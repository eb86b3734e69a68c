/* SPDX-License-Identifier: MIT */
/*
 * topo/file (HPCC ns-3 topology files) and routing/table (BFS shortest
 * paths + ECMP):
 * - the reference's fat.txt: counts, port numbering in link order, rates and
 *   delays, symmetric wiring, every host pair routed loop-free along a
 *   shortest path (against a BFS written here), ECMP spreading flows evenly
 *   over the equal-cost next hops, ecmp_seed, the table's size;
 * - the reference's topology.txt: 65 links read, the lines after them
 *   ignored with one warning, star routes of 2 links, and its flow.txt run
 *   to completion;
 * - table on generated fat-trees (k = 4, 8) takes updown's paths exactly;
 * - a multi-homed host spreads flows over its ports and is never a next
 *   hop; a graph routable only through a host is refused; a 255-link path
 *   makes the table two bytes wide, a 254-link one keeps it at one;
 * - a table of malformed files, each refused with its file, line and
 *   message; the status and message of the program; and 500 deterministic
 *   mutations of fat.txt, none of which may crash or fail without a message.
 */
#define _GNU_SOURCE
#include "th.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAT TH_SRCDIR "/tests/data/hpcc-fat.txt"
#define STAR TH_SRCDIR "/tests/data/hpcc-topology.txt"
#define STAR_FLOWS TH_SRCDIR "/tests/data/hpcc-flow.txt"

/* ini text for topology `file` with the empty workload, plus `extra`. */
static const char *file_ini(const char *file, const char *extra)
{
	th_write("empty.txt", "0\n");
	return th_fmt("[topology]\nname = file\nfile = %s\n%s"
		      "[workload]\nname = flows\nfile = empty.txt\n", file, extra);
}

/*
 * Links from every node to host `dst` by a BFS that enters hosts but only
 * leaves `dst` and switches (UINT32_MAX: unreachable), written apart from
 * the rule so that a shared mistake cannot hide.
 */
static void bfs(struct ws_sim *sim, uint32_t dst, uint32_t *dist, uint32_t *queue)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	for (uint32_t i = 0; i < fab->n_nodes; i++)
		dist[i] = UINT32_MAX;
	uint32_t head = 0, tail = 0;
	dist[dst] = 0;
	queue[tail++] = dst;
	while (head < tail) {
		uint32_t u = queue[head++];
		if (u != dst && ws_node_get(fab, u)->kind == WS_NODE_HOST)
			continue;
		for (uint32_t p = 0; p < ws_node_get(fab, u)->n_ports; p++) {
			struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
			assert_int_equal(ws_port_info(sim, u, p, &pi), WS_OK);
			if (dist[pi.peer_node] == UINT32_MAX) {
				dist[pi.peer_node] = dist[u] + 1;
				queue[tail++] = pi.peer_node;
			}
		}
	}
}

static void check_symmetric(struct ws_sim *sim)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t ports = 0;
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		ports += n->n_ports;
		for (uint32_t l = 0; l < n->n_ports; l++) {
			struct ws_port_info a = { WS_INIT_SIZE(struct ws_port_info) }, b = { WS_INIT_SIZE(struct ws_port_info) };
			assert_int_equal(ws_port_info(sim, i, l, &a), WS_OK);
			assert_int_equal(ws_port_info(sim, a.peer_node, a.peer_local, &b), WS_OK);
			assert_int_equal(b.peer_node, i);
			assert_int_equal(b.peer_local, l);
			assert_int_equal(a.rate, b.rate);
			assert_int_equal(a.delay, b.delay);
		}
	}
	assert_int_equal(ports, fab->n_ports);
	assert_int_equal(fab->n_ports, 2 * fab->n_links);
}

/*
 * Every ordered host pair: the route reaches its destination without
 * visiting a node twice, crosses only switches, and is as long as the
 * shortest path.  Returns the number of pairs.
 */
static unsigned check_all_pairs(struct ws_sim *sim)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t *dist = malloc(fab->n_nodes * sizeof *dist);
	uint32_t *queue = malloc(fab->n_nodes * sizeof *queue);
	uint32_t path[64];
	unsigned pairs = 0;
	for (uint32_t d = 0; d < fab->n_hosts; d++) {
		uint32_t dst = fab->hosts[d];
		bfs(sim, dst, dist, queue);
		for (uint32_t s = 0; s < fab->n_hosts; s++) {
			uint32_t src = fab->hosts[s];
			if (src == dst)
				continue;
			unsigned links = th_route(sim, src, dst, (uint16_t)(10000 + s + d),
						  path, NULL, 64);
			assert_int_equal(links, dist[src]);
			assert_int_equal(path[0], src);
			assert_int_equal(path[links], dst);
			for (unsigned i = 1; i < links; i++)
				assert_int_equal(ws_node_get(fab, path[i])->kind, WS_NODE_SWITCH);
			for (unsigned i = 0; i <= links; i++)
				for (unsigned j = i + 1; j <= links; j++)
					assert_int_not_equal(path[i], path[j]);
			pairs++;
		}
	}
	free(dist);
	free(queue);
	return pairs;
}

static uint64_t routing_state_bytes(struct ws_sim *sim)
{
	const struct ws_inst *rt = ws_sim_instance(sim, WS_KIND_ROUTING);
	const struct ws_routing_ops *ops = rt->plugin->ops;
	assert_non_null(ops->state_bytes);
	return ops->state_bytes(rt);
}

/* ---- the reference's fat.txt ------------------------------------------------- */

/*
 * fat.txt: hosts 0..319, 16 per top-of-rack switch (320..339, 4 per pod,
 * 5 pods), aggregation switches 340..359 (4 per pod, each linked to the 4
 * ToRs of its pod), core switches 360..375 (aggregation switch a of a pod
 * links to cores 360 + 4a .. 363 + 4a).  Host links 100 Gb/s, the others
 * 400 Gb/s, all 1000 ns.
 */
static void test_fat_fabric(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim(file_ini(FAT, ""));
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	assert_string_equal(ws_sim_plugin_name(sim, WS_KIND_ROUTING), "table");
	assert_int_equal(fab->shape, WS_SHAPE_GRAPH);
	assert_int_equal(fab->n_nodes, 376);
	assert_int_equal(fab->n_switches, 56);
	assert_int_equal(fab->n_hosts, 320);
	assert_int_equal(fab->n_links, 480);
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		assert_int_equal(n->kind, i < 320 ? WS_NODE_HOST : WS_NODE_SWITCH);
		unsigned ports = i < 320 ? 1 : i < 340 ? 20 : i < 360 ? 8 : 5;
		assert_int_equal(n->n_ports, ports);
	}
	for (uint32_t h = 0; h < 320; h++)
		assert_int_equal(fab->hosts[h], h);
	check_symmetric(sim);
	/* ports in link order: a ToR's hosts first (the first 320 lines), then
	 * its aggregation switches in line order */
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	for (uint32_t h = 0; h < 320; h++) {
		assert_int_equal(ws_port_info(sim, h, 0, &pi), WS_OK);
		assert_int_equal(pi.peer_node, 320 + h / 16);
		assert_int_equal(pi.peer_local, h % 16);
		assert_int_equal(pi.rate, 100000000000ull);
		assert_int_equal(pi.delay, 1000 * WS_NS);
	}
	for (uint32_t t = 0; t < 20; t++)
		for (uint32_t a = 0; a < 4; a++) {
			assert_int_equal(ws_port_info(sim, 320 + t, 16 + a, &pi), WS_OK);
			assert_int_equal(pi.peer_node, 340 + (t / 4) * 4 + a);
			assert_int_equal(pi.rate, 400000000000ull);
		}
	/* one byte per (host, node), a peer per port, a host index per node */
	assert_int_equal(routing_state_bytes(sim), 320 * 376 + 960 * 4 + 376 * 4);
	ws_sim_free(sim);
}

static void test_fat_all_pairs(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim(file_ini(FAT, ""));
	assert_int_equal(check_all_pairs(sim), 320 * 319);
	ws_sim_free(sim);
}

/*
 * Host 0 (ToR 320, pod 0) to host 319 (ToR 339, pod 4): 6 links, and the
 * ToR is the first node with a choice (4 aggregation switches, all one link
 * closer).  Each is taken by a quarter of the flows; the next choice (4
 * cores per aggregation switch) spreads them over all 16 cores.
 */
static void test_fat_ecmp(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim(file_ini(FAT, ""));
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t *dist = malloc(fab->n_nodes * sizeof *dist);
	uint32_t *queue = malloc(fab->n_nodes * sizeof *queue);
	bfs(sim, 319, dist, queue);
	/* the first node on the way with several equal-cost next hops */
	uint32_t at = 0, next[32], n_next = 0;
	for (;;) {
		n_next = 0;
		const struct ws_node *n = ws_node_get(fab, at);
		for (uint32_t p = 0; p < n->n_ports; p++) {
			struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
			ws_port_info(sim, at, p, &pi);
			const struct ws_node *q = ws_node_get(fab, pi.peer_node);
			if (dist[q->id] + 1 == dist[at] &&
			    (q->kind == WS_NODE_SWITCH || q->id == 319))
				next[n_next++] = q->id;
		}
		assert_true(n_next >= 1);
		if (n_next > 1)
			break;
		at = next[0];
	}
	assert_int_equal(at, 320);
	assert_int_equal(n_next, 4);
	unsigned count[4] = { 0 }, core[16] = { 0 };
	const unsigned flows = 8000;
	uint32_t path[16];
	for (unsigned f = 0; f < flows; f++) {
		unsigned links = th_route(sim, 0, 319, (uint16_t)(1000 + f), path, NULL, 16);
		assert_int_equal(links, 6);
		assert_int_equal(path[1], at);
		unsigned k = 0;
		while (k < n_next && next[k] != path[2])
			k++;
		assert_true(k < n_next);
		count[k]++;
		assert_true(path[3] >= 360 && path[3] < 376);
		core[path[3] - 360]++;
	}
	th_assert_uniform(count, n_next, 0.1, "next hop");
	th_assert_uniform(core, 16, 0.2, "core");
	/* another ecmp_seed, other choices for most flows (3/4 expected) */
	struct ws_sim *other = th_sim(file_ini(FAT, "[routing]\nname = table\necmp_seed = 7\n"));
	uint32_t opath[16];
	unsigned differ = 0;
	for (unsigned f = 0; f < 400; f++) {
		th_route(sim, 0, 319, (uint16_t)(1000 + f), path, NULL, 16);
		th_route(other, 0, 319, (uint16_t)(1000 + f), opath, NULL, 16);
		differ += path[2] != opath[2];
	}
	assert_true(differ > 240 && differ < 360);
	ws_sim_free(other);
	free(dist);
	free(queue);
	ws_sim_free(sim);
}

/* ---- the reference's topology.txt and flow.txt -------------------------------- */

static void test_star(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim(file_ini(STAR, ""));
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	assert_int_equal(fab->n_nodes, 66);
	assert_int_equal(fab->n_switches, 1);
	assert_int_equal(fab->n_hosts, 65);
	assert_int_equal(fab->n_links, 65);
	assert_int_equal(ws_node_get(fab, 0)->kind, WS_NODE_SWITCH);
	assert_int_equal(ws_node_get(fab, 0)->n_ports, 65);
	check_symmetric(sim);
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	for (uint32_t h = 1; h <= 65; h++) {
		assert_int_equal(ws_port_info(sim, h, 0, &pi), WS_OK);
		assert_int_equal(pi.peer_node, 0);
		assert_int_equal(pi.peer_local, h - 1);
		assert_int_equal(pi.rate, 100000000000ull);
		assert_int_equal(pi.delay, 1 * WS_US); /* 0.001ms */
	}
	/* the lines after the 65 declared links (more links, to nodes that do
	 * not exist, and help text) are ignored with one warning */
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.warnings, 1);
	uint32_t path[8];
	for (uint32_t s = 1; s <= 65; s++)
		for (uint32_t d = 1; d <= 65; d++)
			if (s != d) {
				assert_int_equal(th_route(sim, s, d, 10000, path, NULL, 8), 2);
				assert_int_equal(path[1], 0);
			}
	assert_int_equal(check_all_pairs(sim), 65 * 64);
	ws_sim_free(sim);

	/* what a person sees: exactly one warning, naming the file */
	char ini[600], out[600];
	snprintf(ini, sizeof ini, "%s/star.ini", th_tmpdir());
	snprintf(out, sizeof out, "%s/star-out", th_tmpdir());
	th_write("star.ini", file_ini(STAR, ""));
	char *o = NULL, *e = NULL;
	assert_int_equal(th_cli((const char *[]){ "run", "-o", out, ini, NULL }, &o, &e), 0);
	const char *want = "warpsim: warning: " STAR ": ignoring 196 line(s) after "
			   "the 65 links declared on the first line\n";
	if (strcmp(e, want) != 0)
		fail_msg("stderr:\n%s\nexpected:\n%s", e, want);
	free(o);
	free(e);
}

/* The reference's flow.txt (2 flows of 200 MB from hosts 2 and 3 to host 1,
 * at 2 s) on its topology.txt, with DCQCN: both flows complete. */
static void test_star_flows(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim("[topology]\nname = file\nfile = " STAR "\n"
				    "[routing]\nname = table\n"
				    "[cc]\nname = dcqcn\n"
				    "[workload]\nname = flows\nfile = " STAR_FLOWS "\n");
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows, 2);
	assert_int_equal(st.flows_done, 2);
	assert_int_equal(st.drops, 0);
	assert_int_equal(st.warnings, 2); /* the topology's and the trace's extra lines */
	for (uint32_t i = 0; i < 2; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		assert_int_equal(fi.dst, 1);
		assert_int_equal(fi.hops, 2);
		assert_int_equal(fi.acked, 200000000);
		/* two flows share host 1's 100 Gb/s link: 32 ms for both */
		assert_true(fi.end - fi.start > 32 * WS_MS);
		assert_true(fi.end - fi.start < 40 * WS_MS);
	}
	ws_sim_free(sim);
}

/* ---- table on a generated fat-tree --------------------------------------------- */

/* With the same seed, table takes updown's paths, port for port: its
 * equal-cost ports are the up ports, in the same order, hashed the same way. */
static void check_same_as_updown(unsigned k)
{
	th_write("empty.txt", "0\n");
	struct ws_sim *up = th_sim(th_fmt("[topology]\nname = fat-tree\nk = %u\n"
					  "[workload]\nname = flows\nfile = empty.txt\n", k));
	struct ws_sim *tb = th_sim(th_fmt("[topology]\nname = fat-tree\nk = %u\n"
					  "[routing]\nname = table\n"
					  "[workload]\nname = flows\nfile = empty.txt\n", k));
	const struct ws_fabric *fab = ws_sim_fabric(tb);
	uint32_t pu[16], pt[16];
	for (uint32_t s = 0; s < fab->n_hosts; s++)
		for (uint32_t d = 0; d < fab->n_hosts; d++) {
			if (s == d)
				continue;
			uint16_t sport = (uint16_t)(10000 + 7 * s + d);
			unsigned lu = th_route(up, s, d, sport, pu, NULL, 16);
			unsigned lt = th_route(tb, s, d, sport, pt, NULL, 16);
			assert_int_equal(lu, lt);
			assert_memory_equal(pu, pt, (lu + 1) * sizeof *pu);
		}
	assert_int_equal(check_all_pairs(tb), fab->n_hosts * (fab->n_hosts - 1));
	assert_int_equal(routing_state_bytes(tb),
			 (uint64_t)fab->n_hosts * fab->n_nodes + 4ull * fab->n_ports +
				 4ull * fab->n_nodes);
	ws_sim_free(up);
	ws_sim_free(tb);
}

static void test_fat_tree_k4_as_updown(void **state)
{
	(void)state;
	check_same_as_updown(4);
}

static void test_fat_tree_k8_as_updown(void **state)
{
	(void)state;
	check_same_as_updown(8);
}

/* ---- small graphs ---------------------------------------------------------------- */

/*
 * Host 0 has two links, to switches 2 and 3, which both reach host 1 (a
 * dual-homed host, as in a two-plane fabric): its flows are spread over its
 * two ports.  A dual-homed host is never a next hop of a switch, even on an
 * equally short path.  A file without switches needs no switch line.
 */
static void test_multihomed_host(void **state)
{
	(void)state;
	th_write("dual.txt", "4 2 4\n"
			     "2 3\n"
			     "0 2 100Gbps 1us 0\n"
			     "0 3 100Gbps 1us 0\n"
			     "1 2 100Gbps 1us 0\n"
			     "1 3 100Gbps 1us 0\n");
	struct ws_sim *sim = th_sim(file_ini("dual.txt", ""));
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	assert_int_equal(fab->n_hosts, 2);
	assert_int_equal(ws_node_get(fab, 0)->n_ports, 2);
	unsigned via[4] = { 0 };
	uint32_t path[8];
	for (unsigned f = 0; f < 1000; f++) {
		assert_int_equal(th_route(sim, 0, 1, (uint16_t)(2000 + f), path, NULL, 8), 2);
		via[path[1]]++;
		/* and back: the switch does not bounce through host 0 */
		assert_int_equal(th_route(sim, 1, 0, (uint16_t)(2000 + f), path, NULL, 8), 2);
	}
	assert_true(via[2] > 400 && via[3] > 400);
	ws_sim_free(sim);

	/* host 0 on switches 3 and 4, host 1 on 4, host 2 on 3, and 3 - 5 - 4:
	 * from 2 to 1, 2-3-0-4-1 is as short as 2-3-5-4-1, but host 0 is no
	 * next hop for switch 3 */
	th_write("bypass.txt", "6 3 6\n"
			       "3 4 5\n"
			       "0 3 100Gbps 1us 0\n"
			       "0 4 100Gbps 1us 0\n"
			       "1 4 100Gbps 1us 0\n"
			       "2 3 100Gbps 1us 0\n"
			       "3 5 100Gbps 1us 0\n"
			       "5 4 100Gbps 1us 0\n");
	sim = th_sim(file_ini("bypass.txt", ""));
	for (unsigned f = 0; f < 200; f++) {
		assert_int_equal(th_route(sim, 2, 1, (uint16_t)(3000 + f), path, NULL, 8), 4);
		assert_int_equal(path[2], 5);
	}
	assert_int_equal(check_all_pairs(sim), 6);
	ws_sim_free(sim);

	/* no switches: the second line may be left out, or blank */
	th_write("pair.txt", "2 0 1\n0 1 25Gbps 0.5us 0\n");
	sim = th_sim(file_ini("pair.txt", ""));
	assert_int_equal(th_route(sim, 0, 1, 1, path, NULL, 8), 1);
	ws_sim_free(sim);
	th_write("pair.txt", "2 0 1\n\n0 1 25Gbps 0.5us 0.0\n");
	sim = th_sim(file_ini("pair.txt", ""));
	assert_int_equal(th_route(sim, 1, 0, 1, path, NULL, 8), 1);
	ws_sim_free(sim);
}

/* A connected graph that table cannot route: host 1 sits between hosts 0
 * and 2, and hosts do not forward. */
static void test_unroutable(void **state)
{
	(void)state;
	th_write("chain.txt", "3 0 2\n0 1 100Gbps 1us 0\n1 2 100Gbps 1us 0\n");
	struct ws_sim *sim;
	struct ws_err err;
	assert_int_equal(th_sim_try(file_ini("chain.txt", ""), &sim, &err, NULL), WS_EINVAL);
	assert_null(sim);
	if (!strstr(err.msg, "table: node 2 cannot reach node 0 (no path through "
			     "switches; hosts do not forward)"))
		fail_msg("%s", err.msg);
}

/*
 * Hosts 0 and 1 at the ends of a chain of `sw` switches: sw + 1 links.
 * Distances up to 254 take one byte per table entry, longer ones two.
 */
static void check_chain(unsigned sw, unsigned width)
{
	char *text = malloc((size_t)sw * 48 + 64);
	size_t n = (size_t)sprintf(text, "%u %u %u\n", sw + 2, sw, sw + 1);
	for (unsigned i = 0; i < sw; i++)
		n += (size_t)sprintf(text + n, "%u%s", 2 + i, i + 1 < sw ? " " : "\n");
	n += (size_t)sprintf(text + n, "0 2 100Gbps 1ns 0\n1 %u 100Gbps 1ns 0\n", sw + 1);
	for (unsigned i = 2; i < sw + 1; i++)
		n += (size_t)sprintf(text + n, "%u %u 100Gbps 1ns 0\n", i, i + 1);
	th_write("chain.txt", text);
	free(text);
	struct ws_sim *sim = th_sim(file_ini("chain.txt", "[switch]\nttl = 255\n"));
	uint32_t path[300];
	assert_int_equal(th_route(sim, 0, 1, 1, path, NULL, 300), sw + 1);
	assert_int_equal(th_route(sim, 1, 0, 1, path, NULL, 300), sw + 1);
	assert_int_equal(path[1], sw + 1);
	assert_int_equal(routing_state_bytes(sim),
			 2ull * (sw + 2) * width + 4ull * 2 * (sw + 1) + 4ull * (sw + 2));
	ws_sim_free(sim);
}

static void test_long_paths(void **state)
{
	(void)state;
	check_chain(253, 1); /* 254 links */
	check_chain(254, 2); /* 255 links */
}

/* ---- bad files ----------------------------------------------------------------------- */

/* A header and switch line for 4 nodes (node 0 the switch) and 3 links, so
 * that a bad link placed after two good ones is line 5. */
#define HEAD4 "4 1 3\n0\n0 1 100Gbps 1us 0\n0 2 100Gbps 1us 0\n"


static const struct th_bad_file bad_files[] = {
	{ "missing file", NULL, WS_ENOENT, 0,
	  "cannot open the topology file: No such file or directory" },
	{ "empty file", "", WS_EINVAL, 0,
	  "empty topology file (expected 'nodes switches links' on the first line)" },
	{ "only comments", "# nothing\n\n \r\n", WS_EINVAL, 0, "empty topology file" },
	{ "header of 2 fields", "4 1\n0\n", WS_EINVAL, 1,
	  "the first line must be 'nodes switches links' (found 2 fields)" },
	{ "header of 4 fields", "4 1 3 0\n0\n", WS_EINVAL, 1,
	  "the first line must be 'nodes switches links' (found 4 fields)" },
	{ "header not numeric", "4 one 3\n0\n", WS_EINVAL, 1,
	  "bad switches 'one' on the first line (expected a non-negative integer" },
	{ "header negative", "-4 1 3\n0\n", WS_EINVAL, 1, "bad nodes '-4'" },
	{ "header huge", "99999999999999999999999 1 3\n", WS_EINVAL, 1,
	  "bad nodes '99999999999999999999999'" },
	{ "one node", "1 0 0\n", WS_EINVAL, 1, "nodes = 1: expected 2 .. 16777216" },
	{ "too many nodes", "16777217 0 16777216\n", WS_EINVAL, 1,
	  "nodes = 16777217: expected 2 .. 16777216" },
	{ "too many switches", "4 3 3\n0 1 2\n", WS_EINVAL, 1,
	  "switches = 3 of 4 nodes: at least 2 nodes must be hosts" },
	{ "too few links", "4 1 2\n0\n", WS_EINVAL, 1,
	  "links = 2: expected 3 .. 1073741824 (4 nodes need at least 3 links to be connected)" },
	{ "too many links", "4 1 1073741825\n0\n", WS_EINVAL, 1, "links = 1073741825: expected 3 .." },
	{ "switch id not numeric", "4 1 3\nx\n", WS_EINVAL, 2,
	  "bad switch id 'x' (field 1; expected a node id, a non-negative integer)" },
	{ "switch id out of range", "4 2 3\n0 4\n", WS_EINVAL, 2,
	  "switch id 4 (field 2) is not a node: the first line declares nodes 0..3" },
	{ "switch id twice", "5 3 4\n0 1 0\n", WS_EINVAL, 2,
	  "switch id 0 (field 3) is listed twice" },
	{ "too few switch ids", "5 2 4\n0\n0 1 100Gbps 1us 0\n", WS_EINVAL, 2,
	  "expected the 2 switch ids the first line declares, found 1 field" },
	{ "switch line missing", "4 1 3\n0 1 100Gbps 1us 0\n", WS_EINVAL, 2,
	  "expected the 1 switch ids the first line declares, found 5 fields" },
	{ "file ends before switches", "4 1 3\n", WS_EINVAL, 1,
	  "the file ends before the line of the 1 switch ids the first line declares" },
	{ "link of 4 fields", HEAD4 "0 3 100Gbps 1us\n", WS_EINVAL, 5,
	  "too few fields (found 4 fields; expected: src dst rate delay error_rate)" },
	{ "link of 1 field", HEAD4 "0\n", WS_EINVAL, 5, "too few fields (found 1 field;" },
	{ "link of 7 fields", HEAD4 "0 3 100Gbps 1us 0 1 2\n", WS_EINVAL, 5,
	  "too many fields (found 7 fields;" },
	{ "src not numeric", HEAD4 "a 3 100Gbps 1us 0\n", WS_EINVAL, 5,
	  "bad src 'a' (expected a node id, a non-negative integer)" },
	{ "control bytes shown as ?", HEAD4 "0\x1b[2J 3 100Gbps 1us 0\n", WS_EINVAL, 5,
	  "bad src '0?[2J'" },
	{ "dst not integer", HEAD4 "0 3.0 100Gbps 1us 0\n", WS_EINVAL, 5, "bad dst '3.0'" },
	{ "dst signed", HEAD4 "0 +3 100Gbps 1us 0\n", WS_EINVAL, 5, "bad dst '+3'" },
	{ "src beyond nodes", HEAD4 "4 3 100Gbps 1us 0\n", WS_EINVAL, 5,
	  "no such node 4 (src): the first line declares nodes 0..3" },
	{ "dst beyond nodes", HEAD4 "0 99 100Gbps 1us 0\n", WS_EINVAL, 5,
	  "no such node 99 (dst): the first line declares nodes 0..3" },
	{ "self loop", HEAD4 "3 3 100Gbps 1us 0\n", WS_EINVAL, 5, "a link from node 3 to itself" },
	{ "rate unit misspelt", HEAD4 "0 3 100Gbs 1us 0\n", WS_EINVAL, 5,
	  "bad rate '100Gbs': unknown rate unit 'Gbs' (expected bps, Kbps, Mbps, Gbps, Tbps" },
	{ "rate without unit", HEAD4 "0 3 100 1us 0\n", WS_EINVAL, 5,
	  "bad rate '100': missing unit: expected a rate such as 100Gbps" },
	{ "rate in bytes", HEAD4 "0 3 12.5GBps 1us 0\n", WS_EINVAL, 5,
	  "rates are in bits per second" },
	{ "rate 0", HEAD4 "0 3 0Gbps 1us 0\n", WS_EINVAL, 5,
	  "bad rate '0Gbps': 0Gbps is out of range (expected 1Mbps to 100Tbps)" },
	{ "rate not a number", HEAD4 "0 3 fast 1us 0\n", WS_EINVAL, 5,
	  "bad rate 'fast': expected a rate: a number and a unit" },
	{ "delay without unit", HEAD4 "0 3 100Gbps 1000 0\n", WS_EINVAL, 5,
	  "bad delay '1000': missing unit: expected a time such as 1us" },
	{ "delay negative", HEAD4 "0 3 100Gbps -1ns 0\n", WS_EINVAL, 5,
	  "bad delay '-1ns': a time cannot be negative" },
	{ "delay above 1 s", HEAD4 "0 3 100Gbps 2s 0\n", WS_EINVAL, 5,
	  "bad delay '2s': 2s is out of range (expected 0s to 1s)" },
	{ "error_rate not 0", HEAD4 "0 3 100Gbps 1us 0.01\n", WS_EINVAL, 5,
	  "error_rate 0.01: warpsim does not model random link loss; use 0" },
	{ "error_rate 1e-9", HEAD4 "0 3 100Gbps 1us 1e-9\n", WS_EINVAL, 5,
	  "error_rate 1e-9: warpsim does not model random link loss; use 0" },
	{ "error_rate not a number", HEAD4 "0 3 100Gbps 1us none\n", WS_EINVAL, 5,
	  "bad error_rate 'none' (expected 0)" },
	{ "error_rate negative", HEAD4 "0 3 100Gbps 1us -0.5\n", WS_EINVAL, 5,
	  "bad error_rate '-0.5' (expected 0)" },
	{ "error_rate nan", HEAD4 "0 3 100Gbps 1us nan\n", WS_EINVAL, 5,
	  "bad error_rate 'nan' (expected 0)" },
	{ "fewer links than declared", HEAD4 "\n# the end\n", WS_EINVAL, 6,
	  "the first line declares 3 links but the file ends after 2" },
	{ "dangling host", "5 1 4\n0\n0 1 100Gbps 1us 0\n0 2 100Gbps 1us 0\n"
	  "0 3 100Gbps 1us 0\n1 2 100Gbps 1us 0\n", WS_EINVAL, 0,
	  "node 4 (a host) has no link; every node the first line declares needs "
	  "one (1 node without a link)" },
	{ "dangling switches", "6 3 5\n0 4 5\n0 1 100Gbps 1us 0\n0 2 100Gbps 1us 0\n"
	  "0 3 100Gbps 1us 0\n1 2 100Gbps 1us 0\n1 3 100Gbps 1us 0\n", WS_EINVAL, 0,
	  "node 4 (a switch) has no link; every node the first line declares needs "
	  "one (2 nodes without a link)" },
	{ "not connected", "6 2 5\n0 3\n0 1 100Gbps 1us 0\n0 2 100Gbps 1us 0\n"
	  "3 4 100Gbps 1us 0\n3 5 100Gbps 1us 0\n1 2 100Gbps 1us 0\n", WS_EINVAL, 0,
	  "the graph is not connected: node 0 cannot reach node 3 (the links form 2 "
	  "separate parts)" },
	/* the first bad line is reported, not a later one */
	{ "first of two errors", "4 1 3\n0\n0 1 100Gbps 1us 0\n0 0 100Gbps 1us 0\n"
	  "0 9 100Gbps 1us 0\n", WS_EINVAL, 4, "a link from node 0 to itself" },
	/* comments, blank lines and CRLF count in line numbers */
	{ "line numbers count comments", "# a star\r\n4 1 3\r\n\r\n0\r\n# links:\r\n"
	  "0 1 100Gbps 1us 0\r\n0 2 100Gbps 1us 0\r\n\r\n0 3 100Gbps 1us 1\r\n",
	  WS_EINVAL, 9, "error_rate 1: warpsim does not model random link loss" },
};

static void test_bad_file(void **state)
{
	th_check_bad_file(*state, file_ini("bad.txt", ""));
}

/* A node with more links than 16-bit port numbers allow. */
static void test_too_many_ports(void **state)
{
	(void)state;
	const unsigned links = 65536;
	char *text = malloc((size_t)links * 32 + 64);
	size_t n = (size_t)sprintf(text, "%u 1 %u\n0\n", links + 1, links);
	for (unsigned i = 1; i <= links; i++)
		n += (size_t)sprintf(text + n, "0 %u 1Gbps 1us 0\n", i);
	th_write("wide.txt", text);
	free(text);
	struct ws_sim *sim;
	struct ws_err err;
	assert_int_equal(th_sim_try(file_ini("wide.txt", ""), &sim, &err, NULL), WS_EINVAL);
	assert_int_equal(err.line, 2 + (int)links);
	if (!strstr(err.msg, "node 0 has more than 65535 links (a node's ports are "
			     "numbered in 16 bits)"))
		fail_msg("%s", err.msg);
}

/* The program: status 2 and "warpsim: FILE:LINE: message". */
static void test_cli_bad_file(void **state)
{
	(void)state;
	const char *topo = th_write("cli-bad.txt", HEAD4 "0 3 100Gbps 1us 0.5\n");
	char want[700];
	snprintf(want, sizeof want, "warpsim: %s:5: error_rate 0.5: warpsim does not "
		 "model random link loss; use 0\n", topo);
	char ini[600];
	snprintf(ini, sizeof ini, "%s/cli-bad.ini", th_tmpdir());
	th_write("cli-bad.ini", file_ini("cli-bad.txt", ""));
	char *o = NULL, *e = NULL;
	assert_int_equal(th_cli((const char *[]){ "run", ini, NULL }, &o, &e), 2);
	if (strcmp(e, want) != 0)
		fail_msg("stderr:\n%s\nexpected:\n%s", e, want);
	free(o);
	free(e);
}

/* ---- mutations of fat.txt ---------------------------------------------------------- */

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* Start offsets of the lines of `t` (len bytes); returns how many. */
static size_t line_starts(const char *t, size_t len, size_t *at, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < len && n < max; i++)
		if (i == 0 || t[i - 1] == '\n')
			at[n++] = i;
	return n;
}

static void test_fuzz(void **state)
{
	(void)state;
	size_t len;
	char *orig = th_read(FAT, &len);
	assert_non_null(orig);
	char *buf = malloc(2 * len + 16);
	static size_t at[1024];
	size_t lines = line_starts(orig, len, at, 1024);
	assert_true(lines > 480);
	char path[512];
	snprintf(path, sizeof path, "%s/fuzz.txt", th_tmpdir());
	const char *ini = file_ini("fuzz.txt", "");
	char ini_copy[1024];
	snprintf(ini_copy, sizeof ini_copy, "%s", ini);
	uint64_t seed = 20240601;
	unsigned ok = 0, failed = 0;
	for (unsigned c = 0; c < 500; c++) {
		size_t n = 0;
		unsigned kind = (unsigned)(lcg(&seed) % 5);
		size_t l = (size_t)(lcg(&seed) % lines);
		size_t l_end = l + 1 < lines ? at[l + 1] : len;
		if (kind == 0) { /* truncate */
			n = (size_t)(lcg(&seed) % len);
			memcpy(buf, orig, n);
		} else if (kind == 1) { /* flip up to 3 bytes */
			memcpy(buf, orig, len);
			n = len;
			unsigned flips = 1 + (unsigned)(lcg(&seed) % 3);
			for (unsigned f = 0; f < flips; f++) {
				/* mostly the header, switch line and early links */
				size_t pos = (size_t)(lcg(&seed) % (lcg(&seed) % 2 ? 800 : len));
				buf[pos] = (char)(lcg(&seed) % 2 ? "0123456789 \n.-x"[lcg(&seed) % 15]
								  : (char)(lcg(&seed) % 256));
			}
		} else if (kind == 2) { /* duplicate a line */
			memcpy(buf, orig, l_end);
			memcpy(buf + l_end, orig + at[l], l_end - at[l]);
			memcpy(buf + l_end + (l_end - at[l]), orig + l_end, len - l_end);
			n = len + (l_end - at[l]);
		} else if (kind == 3) { /* delete a line */
			memcpy(buf, orig, at[l]);
			memcpy(buf + at[l], orig + l_end, len - l_end);
			n = len - (l_end - at[l]);
		} else { /* swap a line with the next */
			memcpy(buf, orig, len);
			n = len;
			if (l + 2 < lines) {
				size_t a = at[l], b = at[l + 1], e = at[l + 2];
				memcpy(buf + a, orig + b, e - b);
				memcpy(buf + a + (e - b), orig + a, b - a);
			}
		}
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		fwrite(buf, 1, n, f);
		fclose(f);
		struct ws_sim *sim = NULL;
		struct ws_err err;
		int rc = th_sim_try(ini_copy, &sim, &err, NULL);
		if (rc == WS_OK) {
			const struct ws_fabric *fab = ws_sim_fabric(sim);
			assert_true(fab->n_hosts >= 2);
			uint32_t p[64];
			th_route(sim, fab->hosts[0], fab->hosts[fab->n_hosts - 1], 7, p, NULL, 64);
			ws_sim_free(sim);
			ok++;
			continue;
		}
		assert_null(sim);
		char msg[2048];
		ws_err_format(&err, msg, sizeof msg);
		if (!err.msg[0] || (strcmp(err.file, path) != 0 && !strstr(err.msg, "table: ")))
			fail_msg("case %u (mutation %u): rc %d, unlocated message '%s'", c, kind,
				 rc, msg);
		failed++;
	}
	/* both kinds of outcome occur: the test is not vacuous */
	assert_true(failed > 150);
	assert_true(ok > 20);
	free(buf);
	free(orig);
}

int main(void)
{
	enum { N_BAD = WS_ARRAY_LEN(bad_files) };
	static struct CMUnitTest tests[N_BAD + 16]; /* head, table, tail */
	const struct CMUnitTest head[] = {
		cmocka_unit_test(test_fat_fabric),
		cmocka_unit_test(test_fat_all_pairs),
		cmocka_unit_test(test_fat_ecmp),
		cmocka_unit_test(test_star),
		cmocka_unit_test(test_star_flows),
		cmocka_unit_test(test_fat_tree_k4_as_updown),
		cmocka_unit_test(test_fat_tree_k8_as_updown),
		cmocka_unit_test(test_multihomed_host),
		cmocka_unit_test(test_unroutable),
		cmocka_unit_test(test_long_paths),
		cmocka_unit_test(test_too_many_ports),
		cmocka_unit_test(test_cli_bad_file),
		cmocka_unit_test(test_fuzz),
	};
	_Static_assert(WS_ARRAY_LEN(head) <= 16, "room for the head");
	size_t n = 0;
	for (size_t i = 0; i < WS_ARRAY_LEN(head); i++)
		tests[n++] = head[i];
	for (size_t i = 0; i < N_BAD; i++)
		tests[n++] = (struct CMUnitTest){ bad_files[i].name, test_bad_file, NULL,
						  NULL, (void *)&bad_files[i] };
	return _cmocka_run_group_tests("test_topo_file", tests, n, NULL, NULL);
}
