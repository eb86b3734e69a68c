/* SPDX-License-Identifier: MIT */
/*
 * The ns-3 reference mode ([sim] reference = ns3 and its parts).
 *
 * - The hash: MurmurHash3 x86_32 against its published vectors, and the
 *   reference's ECMP key (source IP, destination IP, sport | dport << 16,
 *   seeded by the switch id) against values computed with the reference's
 *   own function (switch-node.cc EcmpHash) on the same inputs.
 * - Next hops: on a k = 4 fat-tree, the paths the reference's breadth-first
 *   search and hash give (derived outside the project by running its
 *   CalculateRoute over the same graph, switches in descending id as its
 *   objects lie in memory, or ascending), for updown on the generator and
 *   for table on the same graph read from a file whose links are listed
 *   out of order.
 * - The NIC wake-up rule on two flows of one host, one paced at half rate:
 *   once the unpaced flow has sent its last packet, the reference's NIC
 *   waits for an ACK instead of the paced flow's time.
 * - ECN marks of ACKs under ecn_scope = all, counted apart, changing
 *   nothing else.
 * - rate_gap = ns3: DCQCN's rate changes keep the pending gap, HPCC's not.
 * - reference = ns3 turns every part on (serialization among them).
 * - [output] fct_txt writes the reference's fct.txt line.
 * - Under reference = ns3: source ports numbered per (source, destination)
 *   pair, flow-file start times read as a double truncated to whole ns, a
 *   port rate ecn_map lacks given thresholds of 0; reference = none keeps
 *   warpsim's numbering, exact times and scaling.
 * - warpsim import-ns3 turns a config.txt into an ini that runs, with the
 *   lineage's header widths, ACK_HIGH_PRIO on no switch key, and a warning
 *   naming the topology line of a rate the ECN maps lack.
 */
#include <stdlib.h>
#include <string.h>

#include "th.h"

#define TEST_PLUGINS TH_BUILDDIR "/tests/plugins/.libs"

/* ---- the hash ---------------------------------------------------------------- */

static void test_murmur3_published_vectors(void **state)
{
	(void)state;
	assert_int_equal(ws_murmur3_32("", 0, 0), 0);
	assert_int_equal(ws_murmur3_32("", 0, 1), 0x514e28b7u);
	assert_int_equal(ws_murmur3_32("", 0, 0xffffffffu), 0x81f16f39u);
	assert_int_equal(ws_murmur3_32("\0\0\0\0", 4, 0), 0x2362f9deu);
	assert_int_equal(ws_murmur3_32("aaaa", 4, 0x9747b28cu), 0x5a97808au);
	assert_int_equal(ws_murmur3_32("abc", 3, 0), 0xb3dd93fau);
	assert_int_equal(ws_murmur3_32("Hello, world!", 13, 0x9747b28cu), 0x24884cbau);
	assert_int_equal(ws_murmur3_32("The quick brown fox jumps over the lazy dog",
				       43, 0x9747b28cu), 0x2fa826cdu);
	static const char zero[12];
	assert_int_equal(ws_murmur3_32(zero, 12, 0), 0xd941144bu);
}

static void test_ns3_ecmp_known_answers(void **state)
{
	(void)state;
	assert_int_equal(ws_ns3_ip(0), 0x0b000001u);
	assert_int_equal(ws_ns3_ip(300), 0x0b012c01u);
	/* src, dst, sport, dport, switch id -> the reference's EcmpHash */
	static const uint32_t kat[][6] = {
		{ 0, 15, 10000, 100, 16, 0x729e15a6u },
		{ 0, 15, 10000, 100, 28, 0x71a5429fu },
		{ 3, 9, 10001, 100, 17, 0x2ac8cd03u },
		{ 127, 0, 10000, 100, 80, 0x14746322u },
		{ 300, 5, 65535, 4791, 340, 0x1ffdc80fu },
		{ 15, 0, 100, 10000, 23, 0x8185668fu },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(kat); i++) {
		struct ws_pkt p;
		ws_pkt_probe(&p, kat[i][0], kat[i][1], (uint16_t)kat[i][2],
			     (uint16_t)kat[i][3]);
		assert_int_equal(ws_ns3_ecmp_hash(&p, kat[i][4]), kat[i][5]);
	}
}

/* ---- next hops on a k = 4 fat-tree ---------------------------------------------- */

struct ref_path {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint32_t node[7]; /* host, edge, aggregation, core, aggregation, edge, host */
};

/* The reference's paths, switches in descending id (the default order). */
static const struct ref_path desc_paths[] = {
	{ 0, 15, 10000, 100, { 0, 16, 25, 35, 31, 23, 15 } },
	{ 0, 15, 10001, 100, { 0, 16, 25, 34, 31, 23, 15 } },
	{ 0, 15, 10002, 100, { 0, 16, 24, 32, 30, 23, 15 } },
	{ 3, 9, 10000, 100, { 3, 17, 25, 34, 29, 20, 9 } },
	{ 5, 12, 10007, 100, { 5, 18, 27, 34, 31, 22, 12 } },
	{ 15, 0, 100, 10000, { 15, 23, 30, 33, 24, 16, 0 } }, /* an ACK's way */
};

/* ... and in ascending id. */
static const struct ref_path asc_paths[] = {
	{ 0, 15, 10000, 100, { 0, 16, 24, 33, 30, 23, 15 } },
	{ 0, 15, 10001, 100, { 0, 16, 24, 32, 30, 23, 15 } },
	{ 0, 15, 10002, 100, { 0, 16, 25, 35, 31, 23, 15 } },
	{ 3, 9, 10000, 100, { 3, 17, 24, 32, 28, 20, 9 } },
	{ 5, 12, 10007, 100, { 5, 18, 26, 33, 30, 22, 12 } },
	{ 15, 0, 100, 10000, { 15, 23, 31, 35, 25, 16, 0 } },
};

static void check_paths(struct ws_sim *sim, const struct ref_path *rp, size_t n,
			const char *what)
{
	for (size_t i = 0; i < n; i++) {
		struct ws_pkt p;
		ws_pkt_probe(&p, rp[i].src, rp[i].dst, rp[i].sport, rp[i].dport);
		struct ws_hop hop[8];
		uint32_t links = 0;
		struct ws_err err;
		ws_err_clear(&err);
		assert_int_equal(ws_route_trace(sim, &p, hop, 8, &links, &err), WS_OK);
		assert_int_equal(links, 7);
		for (unsigned k = 0; k < 7; k++)
			if (hop[k].node != rp[i].node[k])
				fail_msg("%s: %u -> %u sport %u: hop %u is node %u, the "
					 "reference's is %u", what, rp[i].src, rp[i].dst,
					 rp[i].sport, k, hop[k].node, rp[i].node[k]);
	}
}

/* The k = 4 fat-tree as an HPCC topology file (warpsim's numbering),
 * links listed from the last to the first, so port order is not id order. */
static const char *fat4_file(void)
{
	enum { H = 16, E = 16, A = 24, C = 32, N = 36, L = 48 };
	uint32_t a[L], b[L], n = 0;
	for (uint32_t x = 0; x < H; x++, n++)
		a[n] = x, b[n] = E + x / 2;
	for (uint32_t p = 0; p < 4; p++)
		for (uint32_t e = 0; e < 2; e++)
			for (uint32_t g = 0; g < 2; g++, n++)
				a[n] = E + p * 2 + e, b[n] = A + p * 2 + g;
	for (uint32_t p = 0; p < 4; p++)
		for (uint32_t g = 0; g < 2; g++)
			for (uint32_t j = 0; j < 2; j++, n++)
				a[n] = A + p * 2 + g, b[n] = C + g * 2 + j;
	char *text = calloc(1, 8192);
	assert_non_null(text);
	size_t o = (size_t)snprintf(text, 8192, "%d %d %d\n", N, N - H, L);
	for (uint32_t s = H; s < N; s++)
		o += (size_t)snprintf(text + o, 8192 - o, "%u%c", s, s + 1 < N ? ' ' : '\n');
	for (uint32_t i = L; i-- > 0;)
		o += (size_t)snprintf(text + o, 8192 - o, "%u %u 100Gbps 0.001ms 0\n",
				      i % 2 ? a[i] : b[i], i % 2 ? b[i] : a[i]);
	const char *path = th_write("fat4.txt", text);
	free(text);
	return path;
}

static struct ws_sim *fat4_sim(const char *sim_keys, bool from_file, const char *rule)
{
	th_write("none.txt", "0\n");
	if (from_file)
		return th_sim(th_fmt("[sim]\n%s\n[topology]\nname = file\nfile = %s\n"
				     "[routing]\nname = %s\n"
				     "[workload]\nname = flows\nfile = none.txt\n",
				     sim_keys, fat4_file(), rule));
	return th_sim(th_fmt("[sim]\n%s\n[topology]\nname = fat-tree\nk = 4\n"
			     "[routing]\nname = %s\n"
			     "[workload]\nname = flows\nfile = none.txt\n", sim_keys, rule));
}

static void test_fat_tree_paths_updown(void **state)
{
	(void)state;
	struct ws_sim *sim = fat4_sim("ecmp = ns3", false, "updown");
	check_paths(sim, desc_paths, WS_ARRAY_LEN(desc_paths), "updown");
	ws_sim_free(sim);
	sim = fat4_sim("reference = ns3\nns3_switch_order = ascending", false, "updown");
	check_paths(sim, asc_paths, WS_ARRAY_LEN(asc_paths), "updown ascending");
	ws_sim_free(sim);
}

static void test_fat_tree_paths_table(void **state)
{
	(void)state;
	struct ws_sim *sim = fat4_sim("ecmp = ns3", true, "table");
	check_paths(sim, desc_paths, WS_ARRAY_LEN(desc_paths), "table on a file");
	ws_sim_free(sim);
	sim = fat4_sim("ecmp = ns3\nns3_switch_order = ascending", true, "table");
	check_paths(sim, asc_paths, WS_ARRAY_LEN(asc_paths), "table ascending");
	ws_sim_free(sim);
	sim = fat4_sim("reference = ns3", false, "table");
	check_paths(sim, desc_paths, WS_ARRAY_LEN(desc_paths), "table on the generator");
	ws_sim_free(sim);
}

/* Without the mode, warpsim's own hash chooses: some of these paths differ. */
static void test_fat_tree_paths_native_differ(void **state)
{
	(void)state;
	struct ws_sim *sim = fat4_sim("reference = none", false, "updown");
	unsigned same = 0;
	for (size_t i = 0; i < WS_ARRAY_LEN(desc_paths); i++) {
		uint32_t path[8];
		struct ws_pkt p;
		struct ws_hop hop[8];
		uint32_t links = 0;
		struct ws_err err;
		ws_pkt_probe(&p, desc_paths[i].src, desc_paths[i].dst,
			     desc_paths[i].sport, desc_paths[i].dport);
		assert_int_equal(ws_route_trace(sim, &p, hop, 8, &links, &err), WS_OK);
		for (unsigned k = 0; k < 8 && k < links; k++)
			path[k] = hop[k].node;
		same += memcmp(path, desc_paths[i].node, sizeof desc_paths[i].node) == 0;
	}
	assert_true(same < WS_ARRAY_LEN(desc_paths));
	ws_sim_free(sim);
}

/* ---- the NIC wake-up rule --------------------------------------------------------- */

/*
 * Host 1 sends flow 0 (3 packets, line rate) to host 2 and flow 1 (20
 * packets, half rate: the halfrate CC) to host 3 across one switch.  Once
 * flow 0 has sent its last packet it waits for ACKs with its next-available
 * time in the past, so the reference's NIC (the minimum over all flows is
 * not in the future) schedules nothing and flow 1 waits for the next ACK,
 * about a round trip (4 us here), instead of its pacing time.
 */
static void two_flows(const char *wake, ws_time fct[2])
{
	th_write("two.txt", "2\n1 2 3 100 3000 0\n1 3 3 100 20000 0\n");
	struct ws_sim *sim;
	struct ws_err err;
	if (th_sim_try(th_fmt("[sim]\nnic_wake = %s\n"
			      "[topology]\nname = file\n"
			      "file = %s/tests/data/hpcc-topology.txt\n"
			      "[cc]\nname = halfrate\n"
			      "[workload]\nname = flows\nfile = two.txt\n",
			      wake, TH_SRCDIR),
		       &sim, &err, TEST_PLUGINS))
		fail_msg("%s", err.msg);
	th_run(sim);
	for (uint32_t i = 0; i < 2; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		assert_int_not_equal(fi.end, WS_TIME_NEVER);
		fct[i] = fi.end - fi.start;
	}
	ws_sim_free(sim);
}

static void test_wake_rule_two_flows(void **state)
{
	(void)state;
	ws_time own[2], ref[2];
	two_flows("eligible", own);
	two_flows("ns3", ref);
	/* the unpaced flow is served the same */
	assert_int_equal(own[0], ref[0]);
	/* the paced one lost about a round trip waiting for an ACK */
	if (ref[1] < own[1] + 1 * WS_US || ref[1] > own[1] + 10 * WS_US)
		fail_msg("flow 1: %llu ps eligible, %llu ps ns3",
			 (unsigned long long)own[1], (unsigned long long)ref[1]);
}

/* ---- ECN marks of ACKs -------------------------------------------------------------- */

/*
 * Hosts 1 and 3 send to host 2 (its switch port is the bottleneck) and
 * host 2 sends to host 1, whose ACKs leave host 1 for host 2 through that
 * queue.  Every packet leaving a non-empty data queue is marked (kmin =
 * kmax = 0).  Under ecn_scope = all those ACKs are marked too, counted
 * apart in ports.csv; the data marks and the FCTs do not change.
 */
static void marks_run(const char *scope, const char *dir, uint64_t *data_marks,
		      ws_time *fct_sum)
{
	th_write("m.txt", "3\n1 2 3 100 200000 0\n3 2 3 100 200000 0\n"
		 "2 1 3 100 200000 0\n");
	struct ws_sim *sim = th_sim(th_fmt("[sim]\necn_scope = %s\n"
					   "[topology]\nname = file\n"
					   "file = %s/tests/data/hpcc-topology.txt\n"
					   "[switch]\necn_kmin = 0B\necn_kmax = 0B\n"
					   "[output]\nports = true\n"
					   "[cc]\nname = dcqcn\n"
					   "[workload]\nname = flows\nfile = m.txt\n",
					   scope, TH_SRCDIR));
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	*data_marks = st.ecn_marks;
	*fct_sum = 0;
	for (uint32_t i = 0; i < 3; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		*fct_sum += fi.end - fi.start;
	}
	struct ws_err err;
	assert_int_equal(ws_sim_write_outputs(sim, th_fmt("%s/%s", th_tmpdir(), dir), &err),
			 WS_OK);
	ws_sim_free(sim);
}

static void test_ack_marks_counted_apart(void **state)
{
	(void)state;
	uint64_t m_ect, m_all;
	ws_time f_ect, f_all;
	marks_run("ect", "ect", &m_ect, &f_ect);
	marks_run("all", "all", &m_all, &f_all);
	assert_true(m_ect > 0);
	assert_int_equal(m_all, m_ect);
	assert_int_equal(f_all, f_ect);
	struct th_csv c;
	th_csv_load(&c, th_fmt("%s/ect/ports.csv", th_tmpdir()));
	assert_null(th_csv_get(&c, 0, "ecn_marks_ctrl"));
	th_csv_free(&c);
	th_csv_load(&c, th_fmt("%s/all/ports.csv", th_tmpdir()));
	double ctrl = 0, data = 0;
	for (unsigned r = 0; r < c.rows; r++) {
		ctrl += th_csv_num(&c, r, "ecn_marks_ctrl");
		data += th_csv_num(&c, r, "ecn_marks");
		/* ACKs are marked only where data queues: the port to host 2 */
		if (th_csv_num(&c, r, "ecn_marks_ctrl") > 0)
			assert_int_equal((int)th_csv_num(&c, r, "peer_node"), 2);
	}
	th_csv_free(&c);
	assert_true(ctrl > 0);
	assert_true(data == (double)m_ect);
}

/* ---- rate_gap: a rate change and the pending send time ------------------------------ */

/*
 * An incast of three DCQCN (or HPCC) flows into host 2 with every packet
 * of a non-empty queue marked: DCQCN cuts rates often.  With rate_gap =
 * ns3 its cuts leave the pending gap as it was (the reference's DCQCN
 * assigns the rate), so FCTs differ from shift; HPCC, which the reference
 * drives through ChangeRate, is the same either way.
 */
static void gap_fcts(const char *cc, const char *gap, ws_time fct[3])
{
	th_write("g.txt", "3\n1 2 3 100 300000 0\n3 2 3 100 300000 0\n"
		 "4 2 3 100 300000 0\n");
	struct ws_sim *sim = th_sim(th_fmt("[sim]\nrate_gap = %s\n"
					   "[topology]\nname = file\n"
					   "file = %s/tests/data/hpcc-topology.txt\n"
					   "[switch]\necn_kmin = 10KB\necn_kmax = 10KB\n"
					   "[cc]\nname = %s\n"
					   "[workload]\nname = flows\nfile = g.txt\n",
					   gap, TH_SRCDIR, cc));
	th_run(sim);
	for (uint32_t i = 0; i < 3; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		assert_int_not_equal(fi.end, WS_TIME_NEVER);
		fct[i] = fi.end - fi.start;
	}
	ws_sim_free(sim);
}

static void test_rate_gap(void **state)
{
	(void)state;
	ws_time shift[3], keep[3];
	gap_fcts("dcqcn", "shift", shift);
	gap_fcts("dcqcn", "ns3", keep);
	assert_true(memcmp(shift, keep, sizeof shift) != 0);
	gap_fcts("hpcc", "shift", shift);
	gap_fcts("hpcc", "ns3", keep);
	assert_memory_equal(shift, keep, sizeof shift);
}

/* ---- reference = ns3 turns the parts on -------------------------------------------- */

/* A lone 10 KB DCQCN flow across the reference's one-switch topology:
 * 4932 ns with whole-ns serialization, 4935.36 ns exact (test_physics). */
static ws_time lone(const char *sim_keys)
{
	th_write("lone.txt", "1\n1 2 3 100 10000 0\n");
	struct ws_sim *sim = th_sim(th_fmt("[sim]\n%s\n[topology]\nname = file\n"
					   "file = %s/tests/data/hpcc-topology.txt\n"
					   "[cc]\nname = dcqcn\n"
					   "[workload]\nname = flows\nfile = lone.txt\n",
					   sim_keys, TH_SRCDIR));
	th_run(sim);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	assert_int_equal(ws_flow_get(sim, 0, &fi), WS_OK);
	ws_sim_free(sim);
	return fi.end - fi.start;
}

static void test_reference_sets_parts(void **state)
{
	(void)state;
	assert_int_equal(lone(""), 4935360);
	assert_int_equal(lone("reference = none"), 4935360);
	assert_int_equal(lone("reference = ns3"), 4932 * WS_NS);
	assert_int_equal(lone("reference = ns3\nserialization = exact"), 4935360);
	assert_int_equal(lone("serialization = ns"), 4932 * WS_NS);
	/* the same lone flow: the wake-up rule and ACK marks change nothing */
	assert_int_equal(lone("reference = none\nnic_wake = ns3\necn_scope = all"), 4935360);
}

/* ---- source ports, start times and ECN maps under reference = ns3 ------------------ */

/*
 * Host 1 starts flows to hosts 2, 3, 2 and 2 (the last two at the same
 * time): numbered per (source, destination) pair as third.cc does, from
 * 10000, the flows to host 2 get 10000, 10001, 10002 and the one to host 3
 * 10000; per source host (reference = none) 10000 to 10003 in start order.
 */
static void ports_of(const char *sim_keys, uint16_t sport[4])
{
	th_write("p.txt", "4\n1 2 3 100 5000 0\n1 3 3 100 5000 0.000001\n"
		 "1 2 3 100 5000 0.000002\n1 2 3 100 5000 0.000002\n");
	struct ws_sim *sim = th_sim(th_fmt("[sim]\n%s\n[topology]\nname = file\n"
					   "file = %s/tests/data/hpcc-topology.txt\n"
					   "[cc]\nname = dcqcn\n"
					   "[workload]\nname = flows\nfile = p.txt\n",
					   sim_keys, TH_SRCDIR));
	th_run(sim);
	for (uint32_t i = 0; i < 4; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		sport[i] = fi.sport;
	}
	ws_sim_free(sim);
}

static void test_source_ports_per_pair(void **state)
{
	(void)state;
	uint16_t own[4], ref[4], ecmp[4];
	ports_of("reference = none", own);
	ports_of("reference = ns3", ref);
	ports_of("ecmp = ns3", ecmp);
	static const uint16_t want_own[4] = { 10000, 10001, 10002, 10003 };
	static const uint16_t want_ref[4] = { 10000, 10000, 10001, 10002 };
	assert_memory_equal(own, want_own, sizeof own);
	assert_memory_equal(ref, want_ref, sizeof ref);
	/* the numbering is part of the reference's ECMP (it feeds the hash) */
	assert_memory_equal(ecmp, want_ref, sizeof ecmp);
}

/*
 * Start times of the flow file: warpsim reads the decimal exactly (to the
 * ps); the reference reads a double and truncates it to whole ns, so
 * 0.000001 (a double just below 10^-6) starts at 999 ns, 2.000002 (just
 * below too) at 2000001999 ns, 0.0000235854 at 23585 ns and 0.5 (exact)
 * at 0.5 s.
 */
static void starts_of(const char *sim_keys, ws_time start[4])
{
	th_write("s.txt", "4\n1 2 3 100 1000 0.000001\n3 4 3 100 1000 0.0000235854\n"
		 "5 6 3 100 1000 0.5\n7 8 3 100 1000 2.000002\n");
	struct ws_sim *sim = th_sim(th_fmt("[sim]\n%s\n[topology]\nname = file\n"
					   "file = %s/tests/data/hpcc-topology.txt\n"
					   "[cc]\nname = dcqcn\n"
					   "[workload]\nname = flows\nfile = s.txt\n",
					   sim_keys, TH_SRCDIR));
	th_run(sim);
	for (uint32_t i = 0; i < 4; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		start[i] = fi.start;
	}
	ws_sim_free(sim);
}

static void test_start_times_truncated(void **state)
{
	(void)state;
	ws_time own[4], ref[4];
	starts_of("reference = none", own);
	starts_of("reference = ns3", ref);
	static const ws_time want_own[4] = { 1000000, 23585400, 500000000000,
					     2000002000000 };
	static const ws_time want_ref[4] = { 999000, 23585000, 500000000000,
					     2000001999000 };
	assert_memory_equal(own, want_own, sizeof own);
	assert_memory_equal(ref, want_ref, sizeof ref);
}

/*
 * An ecn_map that lacks the ports' rate (100 Gb/s): warpsim scales the
 * default thresholds (400 KB at 100 Gb/s, above this small incast's queue:
 * no marks); the reference's map lookup gives 0 (every packet leaving a
 * non-empty queue marked), and reference = ns3 follows it.
 */
static uint64_t unmapped_marks(const char *sim_keys)
{
	th_write("u.txt", "2\n1 2 3 100 100000 0\n3 2 3 100 100000 0\n");
	struct ws_sim *sim = th_sim(th_fmt("[sim]\n%s\n[topology]\nname = file\n"
					   "file = %s/tests/data/hpcc-topology.txt\n"
					   "[switch]\necn_map = 400Gbps 1600KB 6400KB 0.2\n"
					   "[cc]\nname = dcqcn\n"
					   "[workload]\nname = flows\nfile = u.txt\n",
					   sim_keys, TH_SRCDIR));
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	ws_sim_free(sim);
	return st.ecn_marks;
}

static void test_ecn_map_missing_rate(void **state)
{
	(void)state;
	assert_int_equal(unmapped_marks("reference = none"), 0);
	assert_true(unmapped_marks("reference = ns3") > 10);
}

/* ---- [output] fct_txt ----------------------------------------------------------------- */

/* The lone flow's line in the reference's layout: hex IPs of hosts 1 and 2,
 * ports, bytes, start, FCT and ideal FCT in whole ns. */
static void test_fct_txt(void **state)
{
	(void)state;
	th_write("lone.txt", "1\n1 2 3 100 10000 0\n");
	struct ws_sim *sim = th_sim(th_fmt("[topology]\nname = file\n"
					   "file = %s/tests/data/hpcc-topology.txt\n"
					   "[cc]\nname = dcqcn\n[output]\nfct_txt = true\n"
					   "[workload]\nname = flows\nfile = lone.txt\n",
					   TH_SRCDIR));
	th_run(sim);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	assert_int_equal(ws_flow_get(sim, 0, &fi), WS_OK);
	struct ws_err err;
	const char *dir = th_fmt("%s/fcttxt", th_tmpdir());
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
	ws_sim_free(sim);
	char *text = th_read(th_fmt("%s/fcttxt/fct.txt", th_tmpdir()), NULL);
	assert_non_null(text);
	char want[128];
	snprintf(want, sizeof want, "0b000101 0b000201 10000 100 10000 0 4935 %llu\n",
		 (unsigned long long)(fi.ideal_fct / WS_NS));
	assert_string_equal(text, want);
	free(text);
}

/* ---- warpsim import-ns3 ----------------------------------------------------------- */

/* A DCQCN study's config.txt (keys as the reference's driver reads them) to
 * an ini that loads and runs; HPCC-PINT is refused. */
static void test_import_ns3(void **state)
{
	(void)state;
	th_write("t1.txt", "3 1 2\n0\n0 1 100Gbps 0.001ms 0\n0 2 100Gbps 0.001ms 0\n");
	th_write("f1.txt", "1\n1 2 3 100 50000 0\n");
	const char *cfg = th_write("config.txt",
		"ENABLE_QCN 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\nPACKET_PAYLOAD_SIZE 1000\n"
		"TOPOLOGY_FILE t1.txt\nFLOW_FILE f1.txt\nTRACE_FILE trace.txt\n"
		"SIMULATOR_STOP_TIME 1.00\nCC_MODE 1\nALPHA_RESUME_INTERVAL 1\n"
		"RATE_DECREASE_INTERVAL 4\nCLAMP_TARGET_RATE 0\nRP_TIMER 300\n"
		"EWMA_GAIN 0.00390625\nFAST_RECOVERY_TIMES 1\nRATE_AI 20Mb/s\n"
		"RATE_HAI 200Mb/s\nMIN_RATE 1000Mb/s\nL2_CHUNK_SIZE 4000\n"
		"L2_ACK_INTERVAL 1\nHAS_WIN 1\nGLOBAL_T 1\nVAR_WIN 1\nBUFFER_SIZE 16\n"
		"KMAX_MAP 2 100000000000 1600 400000000000 6400\n"
		"KMIN_MAP 2 100000000000 400 400000000000 1600\n"
		"PMAX_MAP 2 100000000000 0.2 400000000000 0.2\n");
	char ini[512];
	snprintf(ini, sizeof ini, "%s/study.ini", th_tmpdir());
	const char *args[] = { "import-ns3", "-o", ini, cfg, NULL };
	char *out = NULL, *err = NULL;
	assert_int_equal(th_cli(args, &out, &err), 0);
	free(out);
	free(err);
	char *text = th_read(ini, NULL);
	assert_non_null(text);
	static const char *const want[] = {
		"reference = ns3\n", "name = dcqcn\n", "rp_timer = 300us\n",
		"rate_ai = 20Mb/s\n", "min_rate = 1000Mb/s\n", "window = max-bdp\n",
		"var_window = true\n", "buffer = 16MiB\n", "mtu = 1048B\n",
		"header = 48B\n", "ack_header = 46B\n",
		"ecn_map = 100000000000bps 400KB 1600KB 0.2; 400000000000bps 1600KB 6400KB 0.2\n",
		";   TRACE_FILE trace.txt\n", "fct_txt = true\n",
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(want); i++)
		if (!strstr(text, want[i]))
			fail_msg("the ini lacks '%s':\n%s", want[i], text);
	/* it runs: the flow completes */
	struct ws_sim *sim = th_sim(text);
	th_run(sim);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	assert_int_equal(ws_flow_get(sim, 0, &fi), WS_OK);
	assert_int_not_equal(fi.end, WS_TIME_NEVER);
	assert_null(strstr(text, "ack_high_priority"));
	ws_sim_free(sim);
	free(text);

	cfg = th_write("pint.txt", "CC_MODE 10\nTOPOLOGY_FILE t1.txt\nFLOW_FILE f1.txt\n");
	const char *bad[] = { "import-ns3", cfg, NULL };
	assert_int_equal(th_cli(bad, &out, &err), 2);
	assert_non_null(strstr(err, "CC_MODE 10"));
	free(out);
	free(err);
}

/*
 * The lineage decides the headers (HPCC's simulator: 48 and 46 bytes;
 * ns-3-alibabacloud: 52 and 50); ACK_HIGH_PRIO reaches no switch key; a
 * link rate the maps lack is named with its topology line, and its
 * thresholds stay 0 (no ecn_map entry for it).
 */
static void test_import_lineage_and_maps(void **state)
{
	(void)state;
	th_write("t2.txt", "4 1 3\n0\n0 1 100Gbps 0.001ms 0\n0 2 25Gbps 0.001ms 0\n"
		 "0 3 25Gbps 0.001ms 0\n");
	th_write("f2.txt", "1\n1 2 3 100 50000 0\n");
	const char *cfg = th_write("c2.txt",
		"CC_MODE 3\nPACKET_PAYLOAD_SIZE 1000\nTOPOLOGY_FILE t2.txt\n"
		"FLOW_FILE f2.txt\nACK_HIGH_PRIO 1\n"
		"KMAX_MAP 1 100000000000 1600\nKMIN_MAP 1 100000000000 400\n"
		"PMAX_MAP 2 100000000000 0.2 25000000000 0.1\n");
	char *out = NULL, *err = NULL;
	const char *dflt[] = { "import-ns3", cfg, NULL };
	assert_int_equal(th_cli(dflt, &out, &err), 0);
	static const char *const want[] = {
		"mtu = 1048B\nheader = 48B\nack_header = 46B\n",
		";   ACK_HIGH_PRIO 1: ",
		"ecn_map = 100000000000bps 400KB 1600KB 0.2; 25000000000bps 0KB 0KB 0.1\n",
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(want); i++)
		if (!strstr(out, want[i]))
			fail_msg("the ini lacks '%s':\n%s", want[i], out);
	assert_null(strstr(out, "ack_high_priority"));
	/* one warning for the rate, at its first link (line 4), naming the maps
	 * that lack it at their lines */
	if (!strstr(err, "t2.txt:4: link rate 25Gbps") ||
	    !strstr(err, "KMAX_MAP (") || !strstr(err, "c2.txt:6), KMIN_MAP (") ||
	    !strstr(err, "c2.txt:7): ") || strstr(err, "PMAX_MAP"))
		fail_msg("stderr: %s", err);
	assert_null(strstr(err, ":5:"));
	free(out);
	free(err);

	const char *ali[] = { "import-ns3", "--lineage", "alibabacloud", cfg, NULL };
	assert_int_equal(th_cli(ali, &out, &err), 0);
	assert_non_null(strstr(out, "mtu = 1052B\nheader = 52B\nack_header = 50B\n"));
	free(out);
	free(err);
	const char *bad[] = { "import-ns3", "--lineage", "ns3", cfg, NULL };
	assert_int_equal(th_cli(bad, &out, &err), 2);
	assert_non_null(strstr(err, "--lineage ns3"));
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_murmur3_published_vectors),
		cmocka_unit_test(test_ns3_ecmp_known_answers),
		cmocka_unit_test(test_fat_tree_paths_updown),
		cmocka_unit_test(test_fat_tree_paths_table),
		cmocka_unit_test(test_fat_tree_paths_native_differ),
		cmocka_unit_test(test_wake_rule_two_flows),
		cmocka_unit_test(test_ack_marks_counted_apart),
		cmocka_unit_test(test_rate_gap),
		cmocka_unit_test(test_reference_sets_parts),
		cmocka_unit_test(test_fct_txt),
		cmocka_unit_test(test_source_ports_per_pair),
		cmocka_unit_test(test_start_times_truncated),
		cmocka_unit_test(test_ecn_map_missing_rate),
		cmocka_unit_test(test_import_ns3),
		cmocka_unit_test(test_import_lineage_and_maps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
