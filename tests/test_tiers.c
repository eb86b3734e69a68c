/* SPDX-License-Identifier: MIT */
/*
 * Per-tier fabric settings (docs/config.md, "Per-tier fabric settings"):
 *   - link_delay_tierN / link_rate_tierN of fat-tree, clos and rail put each
 *     delay and rate on exactly the links of tier N (checked on every port
 *     of the built fabric), and a lone flow's base RTT and FCT are the
 *     closed form over its path's tiers, to the picosecond;
 *   - [switch] buffer_tierN: with drop-tail, an incast drops only at the
 *     level whose buffer is small; with PFC, only that level pauses;
 *   - [switch] ecn_tierN replaces the rate rules (ecn_map included) at its
 *     level only: marks appear where it says and nowhere else;
 *   - summary.json's fabric.tiers reports what was built and resolved;
 *   - bad values are refused at their file, line and key.
 * Unset, every key leaves the fabric as before (the golden and determinism
 * tests check the outputs stay byte-identical).
 */
#define _POSIX_C_SOURCE 200809L
#include "th.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define G100 100000000000ull
#define G400 400000000000ull
#define MAX_LEVEL 8

static void assert_has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected \"%s\" in \"%s\"", needle, hay);
}

/* The tier of the link at (node, local): the larger level of its ends. */
static unsigned link_tier(const struct ws_sim *sim, uint32_t node, uint32_t local,
			  struct ws_port_info *pi)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	pi->size = sizeof *pi;
	assert_int_equal(ws_port_info(sim, node, local, pi), WS_OK);
	unsigned a = ws_node_get(fab, node)->level, b = ws_node_get(fab, pi->peer_node)->level;
	return a > b ? a : b;
}

/* Every connected port of the fabric has its tier's delay and rate
 * (delay[t], rate[t] for t = 1..tiers) and every tier has links. */
static void assert_link_tiers(const struct ws_sim *sim, unsigned tiers,
			      const ws_time *delay, const uint64_t *rate)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint64_t seen[MAX_LEVEL] = { 0 };
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		for (uint32_t l = 0; l < n->n_ports; l++) {
			struct ws_port_info pi;
			unsigned t = link_tier(sim, i, l, &pi);
			assert_in_range(t, 1, tiers);
			if (pi.delay != delay[t] || pi.rate != rate[t])
				fail_msg("node %u port %u (tier %u): delay %llu ps rate %llu, "
					 "expected %llu ps %llu", i, l, t,
					 (unsigned long long)pi.delay, (unsigned long long)pi.rate,
					 (unsigned long long)delay[t], (unsigned long long)rate[t]);
			seen[t]++;
		}
	}
	for (unsigned t = 1; t <= tiers; t++)
		assert_true(seen[t] > 0);
}

/* ---- delays and rates ------------------------------------------------------ */

static const char FT_TIERS[] =
	"[topology]\nname = fat-tree\nk = 4\n"
	"link_delay_tier1 = 1us\nlink_delay_tier2 = 3us\nlink_delay_tier3 = 10us\n"
	"link_rate_tier3 = 400Gbps\n"
	"[cc]\nname = none\n"
	"[workload]\nname = flows\nfile = trace.txt\n";

static void test_fat_tree_links(void **state)
{
	(void)state;
	th_write("trace.txt", "1\n0 15 3 100 1 0\n");
	struct ws_sim *sim = th_sim(FT_TIERS);
	const ws_time delay[] = { 0, WS_US, 3 * WS_US, 10 * WS_US };
	const uint64_t rate[] = { 0, G100, G100, G400 };
	assert_link_tiers(sim, 3, delay, rate);
	ws_sim_free(sim);
}

/* A lone 1-byte flow over 2, 4 and 6 links: one 53 B packet out and one
 * 60 B ACK back, store and forward over each link's own rate and delay. */
static void test_base_rtt_closed_form(void **state)
{
	(void)state;
	const ws_time d[] = { 0, WS_US, 3 * WS_US, 10 * WS_US };
	const uint64_t r[] = { 0, G100, G100, G400 };
	/* host 0 to: its edge neighbour (tiers 1 1), its pod (1 2 2 1),
	 * another pod (1 2 3 3 2 1) */
	const struct {
		uint32_t dst;
		unsigned n;
		unsigned tier[6];
	} paths[] = { { 1, 2, { 1, 1 } }, { 2, 4, { 1, 2, 2, 1 } },
		      { 15, 6, { 1, 2, 3, 3, 2, 1 } } };
	for (size_t p = 0; p < WS_ARRAY_LEN(paths); p++) {
		th_write("trace.txt", th_fmt("1\n0 %u 3 100 1 0.000001\n", paths[p].dst));
		struct ws_sim *sim = th_sim(FT_TIERS);
		th_run(sim);
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, 0, &fi), WS_OK);
		ws_time prop = 0, ser = 0, fct = 0;
		for (unsigned h = 0; h < paths[p].n; h++) {
			unsigned t = paths[p].tier[h];
			prop += d[t];
			ser += ws_tx_time(1000, r[t]);
			fct += ws_tx_time(1 + 52, r[t]) + ws_tx_time(60, r[t]);
		}
		assert_int_equal(fi.hops, paths[p].n);
		assert_int_equal(fi.base_rtt, 2 * prop + ser);
		assert_int_equal(fi.end - fi.start, fct + 2 * prop);
		ws_sim_free(sim);
	}
}

/* Four clos tiers and three rail tiers with two planes: each tier's keys
 * reach exactly its links; an unset tier keeps link_delay / link_rate. */
static void test_clos_and_rail_links(void **state)
{
	(void)state;
	th_write("trace.txt", "1\n0 1 3 100 1000 0\n");
	struct ws_sim *sim = th_sim(
		"[topology]\nname = clos\ntiers = 4\nradix = 4\n"
		"link_rate = 200Gbps\nhost_rate = 100Gbps\nlink_delay = 2us\n"
		"link_delay_tier1 = 500ns\nlink_delay_tier3 = 4us\nlink_delay_tier4 = 0s\n"
		"link_rate_tier4 = 800Gbps\n"
		"[workload]\nname = flows\nfile = trace.txt\n");
	const ws_time cd[] = { 0, 500 * WS_NS, 2 * WS_US, 4 * WS_US, 0 };
	const uint64_t cr[] = { 0, G100, 2 * G100, 2 * G100, 8 * G100 };
	assert_link_tiers(sim, 4, cd, cr);
	ws_sim_free(sim);

	sim = th_sim("[topology]\nname = rail\ngpus_per_server = 2\nservers_per_unit = 2\n"
		     "units = 4\ntiers = 3\nunits_per_pod = 2\ndual_plane = true\n"
		     "nic_rate = 200Gbps\nlink_rate = 400Gbps\n"
		     "link_delay_tier1 = 100ns\nlink_delay_tier2 = 600ns\n"
		     "link_delay_tier3 = 5us\nlink_rate_tier3 = 800Gbps\n"
		     "[workload]\nname = flows\nfile = trace.txt\n");
	const ws_time rd[] = { 0, 100 * WS_NS, 600 * WS_NS, 5 * WS_US };
	const uint64_t rr[] = { 0, 2 * G100, G400, 8 * G100 };
	assert_link_tiers(sim, 3, rd, rr);
	ws_sim_free(sim);
}

/* ---- switch buffers and ECN by level --------------------------------------- */

/* 1 MB from each of eight hosts of all four pods to host 0 (k = 4): the
 * queues build at host 0's edge switch (level 1) and at the aggregation
 * switches of pod 0 (level 2), where four cores' traffic meets. */
static const char INCAST[] = "8\n"
	"1 0 3 100 1000000 0\n2 0 3 100 1000000 0\n3 0 3 100 1000000 0\n"
	"4 0 3 100 1000000 0\n5 0 3 100 1000000 0\n8 0 3 100 1000000 0\n"
	"9 0 3 100 1000000 0\n12 0 3 100 1000000 0\n";

/* Run the incast with `cc` and `sw` ([switch] lines), all flows done;
 * sum ports.csv's `col` by the level of the port's node into sum[]. */
static void incast_by_level(const char *cc, const char *sw, const char *col,
			    uint64_t *sum)
{
	th_write("trace.txt", INCAST);
	struct ws_sim *sim = th_sim(th_fmt("[topology]\nname = fat-tree\nk = 4\n"
					   "[cc]\nname = %s\n[switch]\n%s\n"
					   "[output]\nports = true\n"
					   "[workload]\nname = flows\nfile = trace.txt\n",
					   cc, sw));
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows_done, 8);
	char dir[512], path[600];
	snprintf(dir, sizeof dir, "%s/incast", th_tmpdir());
	snprintf(path, sizeof path, "%s/ports.csv", dir);
	struct ws_err err;
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
	struct th_csv c;
	th_csv_load(&c, path);
	memset(sum, 0, MAX_LEVEL * sizeof *sum);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	for (unsigned i = 0; i < c.rows; i++) {
		uint32_t node = (uint32_t)th_csv_num(&c, i, "node");
		sum[ws_node_get(fab, node)->level] += (uint64_t)th_csv_num(&c, i, col);
	}
	th_csv_free(&c);
	ws_sim_free(sim);
}

static void test_buffer_tier_drops(void **state)
{
	(void)state;
	uint64_t drops[MAX_LEVEL];
	/* 8 MB in all cannot fill a 32 MiB switch: only a small buffer drops */
	incast_by_level("none", "pfc = false\nbuffer_tier1 = 200KB", "drops", drops);
	assert_true(drops[1] > 0);
	assert_int_equal(drops[0] + drops[2] + drops[3], 0);
	incast_by_level("none", "pfc = false\nbuffer_tier2 = 200KB", "drops", drops);
	assert_true(drops[2] > 0);
	assert_int_equal(drops[0] + drops[1] + drops[3], 0);
	incast_by_level("none", "pfc = false", "drops", drops);
	assert_int_equal(drops[1] + drops[2] + drops[3], 0);
}

static void test_buffer_tier_pauses(void **state)
{
	(void)state;
	uint64_t pauses[MAX_LEVEL];
	/* the thresholds follow each switch's own buffer: the 1 MiB edge
	 * switches pause, the 32 MiB aggregation and core switches do not */
	incast_by_level("none", "buffer_tier1 = 1MiB", "pause_sent", pauses);
	assert_true(pauses[1] > 0);
	assert_int_equal(pauses[0] + pauses[2] + pauses[3], 0);
	incast_by_level("none", "buffer_tier2 = 1MiB", "pause_sent", pauses);
	assert_true(pauses[2] > 0);
	assert_int_equal(pauses[0] + pauses[1] + pauses[3], 0);
}

static void test_ecn_tier_marks(void **state)
{
	(void)state;
	uint64_t marks[MAX_LEVEL];
	/* the rate map alone marks every queued packet, at every level */
	const char *map = "ecn_map = 100Gbps 0B 0B 1\n";
	incast_by_level("dcqcn", map, "ecn_marks", marks);
	assert_true(marks[1] > 0);
	assert_true(marks[2] > 0);
	/* the tier keys replace it: never at levels 1 and 3, early at 2 */
	char sw[256];
	snprintf(sw, sizeof sw, "%secn_tier1 = 100MB 100MB 1\necn_tier2 = 5KB 10KB 1\n"
		 "ecn_tier3 = 100MB 100MB 1", map);
	incast_by_level("dcqcn", sw, "ecn_marks", marks);
	assert_true(marks[2] > 0);
	assert_int_equal(marks[0] + marks[1] + marks[3], 0);
	/* and without a map: only level 1 lowered, only level 1 marks */
	incast_by_level("dcqcn", "ecn_kmin = 100MB\necn_kmax = 100MB\n"
			"ecn_tier1 = 20KB 200KB 0.5", "ecn_marks", marks);
	assert_true(marks[1] > 0);
	assert_int_equal(marks[0] + marks[2] + marks[3], 0);
}

/* ---- what summary.json reports ---------------------------------------------- */

static void test_summary_tiers(void **state)
{
	(void)state;
	th_write("trace.txt", "1\n0 15 3 100 1000 0\n");
	struct ws_sim *sim = th_sim(th_fmt("%s[switch]\nbuffer_tier2 = 16MiB\n"
					   "ecn_tier3 = 1MB 2MB 0.5\n", FT_TIERS));
	th_run(sim);
	char dir[512], path[600];
	snprintf(dir, sizeof dir, "%s/summary", th_tmpdir());
	snprintf(path, sizeof path, "%s/summary.json", dir);
	struct ws_err err;
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
	char *js = th_read(path, NULL);
	assert_non_null(js);
	/* compact: the writer indents; the values hold no blanks */
	char *w = js;
	for (const char *r = js; *r; r++)
		if (*r != ' ' && *r != '\n')
			*w++ = *r;
	*w = '\0';
	char *tiers = strstr(js, "\"tiers\":");
	assert_non_null(tiers);
	/* 16 host links, 16 edge-aggregation, 16 aggregation-core at k = 4 */
	assert_has(tiers, "{\"tier\":1,\"links\":16,\"rate_min_bps\":100000000000,"
			  "\"rate_max_bps\":100000000000,\"delay_min_ps\":1000000,"
			  "\"delay_max_ps\":1000000}");
	assert_has(tiers, "{\"tier\":2,\"links\":16,\"rate_min_bps\":100000000000,"
			  "\"rate_max_bps\":100000000000,\"delay_min_ps\":3000000,"
			  "\"delay_max_ps\":3000000}");
	assert_has(tiers, "{\"tier\":3,\"links\":16,\"rate_min_bps\":400000000000,"
			  "\"rate_max_bps\":400000000000,\"delay_min_ps\":10000000,"
			  "\"delay_max_ps\":10000000}");
	/* the edge's 100G ports at the scaled defaults; the aggregation's
	 * 16 MiB and its 100G down, 400G up ports scaled; the core's own
	 * thresholds at its 400G ports */
	assert_has(tiers, "{\"level\":1,\"switches\":8,\"buffer_bytes\":33554432,"
			  "\"ecn\":[{\"rate_bps\":100000000000,\"kmin_bytes\":400000,"
			  "\"kmax_bytes\":1600000,\"pmax\":0.2}]}");
	assert_has(tiers, "{\"level\":2,\"switches\":8,\"buffer_bytes\":16777216,"
			  "\"ecn\":[{\"rate_bps\":100000000000,\"kmin_bytes\":400000,"
			  "\"kmax_bytes\":1600000,\"pmax\":0.2},{\"rate_bps\":400000000000,"
			  "\"kmin_bytes\":1600000,\"kmax_bytes\":6400000,\"pmax\":0.2}]}");
	assert_has(tiers, "{\"level\":3,\"switches\":4,\"buffer_bytes\":33554432,"
			  "\"ecn\":[{\"rate_bps\":400000000000,\"kmin_bytes\":1000000,"
			  "\"kmax_bytes\":2000000,\"pmax\":0.5}]}");
	free(js);
	ws_sim_free(sim);
}

/* ---- bad values --------------------------------------------------------------- */

/* `ini` (test.ini) must fail at `line` naming `key` and saying `sub`. */
static void expect_err(const char *ini, int line, const char *key, const char *sub)
{
	struct ws_sim *sim = NULL;
	struct ws_err err;
	int rc = th_sim_try(ini, &sim, &err, NULL);
	if (rc == WS_OK) {
		ws_sim_free(sim);
		fail_msg("accepted; expected an error at line %d: %s", line, sub);
	}
	assert_int_equal(rc, WS_EINVAL);
	assert_string_equal(err.file, "test.ini");
	if (err.line != line || strcmp(err.key, key))
		fail_msg("error at line %d key %s, expected %d %s: %s", err.line,
			 err.key, line, key, err.msg);
	assert_has(err.msg, sub);
}

static void test_bad_values(void **state)
{
	(void)state;
	th_write("trace.txt", "1\n0 1 3 100 1000 0\n");
	const char *ft = "[topology]\nname = fat-tree\nk = 4\n"          /* 1-3 */
			 "[workload]\nname = flows\nfile = trace.txt\n"; /* 4-6 */
	expect_err(th_fmt("%s[topology]\nlink_delay_tier2 = 3 furlongs\n", ft), 8,
		   "topology.link_delay_tier2", "link_delay_tier2 = 3 furlongs");
	expect_err(th_fmt("%s[topology]\nlink_delay_tier1 = 2s\n", ft), 8,
		   "topology.link_delay_tier1", "link_delay_tier1 = 2s");
	expect_err("[topology]\nname = clos\ntiers = 2\nlink_rate_tier3 = 10Gbps\n"
		   "[workload]\nname = flows\nfile = trace.txt\n", 4,
		   "topology.link_rate_tier3", "link_rate_tier3 is set but the fabric has 2 tiers");
	expect_err("[topology]\nname = rail\nlink_delay_tier3 = 1us\n"
		   "[workload]\nname = flows\nfile = trace.txt\n", 3,
		   "topology.link_delay_tier3", "is set but the fabric has 2 tiers");
	expect_err(th_fmt("%s[switch]\necn_tier1 = 10KB 5KB 0.1\n", ft), 8,
		   "switch.ecn_tier1", "KMIN above KMAX");
	expect_err(th_fmt("%s[switch]\necn_tier2 = 10KB\n", ft), 8,
		   "switch.ecn_tier2", "1 field; expected 'KMIN KMAX PMAX'");
	expect_err(th_fmt("%s[switch]\necn_tier3 = 10KB 20KB 1.5\n", ft), 8,
		   "switch.ecn_tier3", "ecn_tier3 = '10KB 20KB 1.5'");
	expect_err(th_fmt("%s[switch]\nbuffer_tier4 = 1MiB\n", ft), 8,
		   "switch.buffer_tier4", "no switch of this fabric is at level 4");
	expect_err(th_fmt("%s[switch]\nbuffer_tier2 = 100B\n", ft), 8,
		   "switch.buffer_tier2", "at least 1KiB");
	/* the headroom check names the key that sized that switch's buffer */
	expect_err(th_fmt("%s[switch]\nbuffer_tier3 = 100KB\n", ft), 8,
		   "switch.buffer_tier3", "[switch] buffer_tier3 = 100000 bytes is too small "
		   "for switch 32: its 4 ports need 150000 bytes of PFC headroom");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fat_tree_links),
		cmocka_unit_test(test_base_rtt_closed_form),
		cmocka_unit_test(test_clos_and_rail_links),
		cmocka_unit_test(test_buffer_tier_drops),
		cmocka_unit_test(test_buffer_tier_pauses),
		cmocka_unit_test(test_ecn_tier_marks),
		cmocka_unit_test(test_summary_tiers),
		cmocka_unit_test(test_bad_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
