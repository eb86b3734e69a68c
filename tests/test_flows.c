/* SPDX-License-Identifier: MIT */
/*
 * The flow-trace workload (plugins/workload/flows.c) on a k=4 fat-tree (hosts 0..15,
 * switches 16..35): the real HPCC ns-3 flow file, of which only the declared
 * flows are read; a table of malformed traces, each refused before the run
 * with its error code, file, exact line and message; comments and blank
 * lines; flows created in (start time, line) order; time_offset; lazy
 * creation of a large trace; and FCTs in fct.csv never below 0.99 x the
 * ideal FCT (the ideal, as in the reference, adds one payload's
 * serialization per hop to the propagation delay, a little more than a
 * short flow pays on a store-and-forward path, hence the 1%).
 */
#define _GNU_SOURCE
#include "th.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ini text for a k=4 fat-tree reading `file`, plus `extra` sections. */
static const char *flows_ini(const char *file, const char *extra)
{
	return th_fmt("[topology]\nname = fat-tree\nk = 4\n"
		      "[cc]\nname = none\n"
		      "[workload]\nname = flows\nfile = %s\n%s",
		      file, extra);
}

static struct ws_flow_info flow(const struct ws_sim *sim, uint32_t id)
{
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	assert_int_equal(ws_flow_get(sim, id, &fi), WS_OK);
	return fi;
}

/* ---- (1) the HPCC reference's own flow file ----------------------------------- */

static void test_hpcc_file(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim(th_fmt(
		"[sim]\nstop_time = 2.0002s\n"
		"[topology]\nname = fat-tree\nk = 4\n"
		"[cc]\nname = none\n"
		"[workload]\nname = flows\nfile = %s\n",
		TH_SRCDIR "/tests/data/hpcc-flow.txt"));
	/* the first flows start at 2 s: nothing exists before */
	th_run_until(sim, 2 * WS_SEC - 1);
	assert_int_equal(ws_flow_count(sim), 0);
	th_run(sim);
	assert_int_equal(ws_flow_count(sim), 2);

	struct ws_flow_info f0 = flow(sim, 0), f1 = flow(sim, 1);
	assert_int_equal(f0.src, 2);
	assert_int_equal(f0.dst, 1);
	assert_int_equal(f1.src, 3);
	assert_int_equal(f1.dst, 1);
	for (int i = 0; i < 2; i++) {
		const struct ws_flow_info *f = i ? &f1 : &f0;
		assert_int_equal(f->bytes, 200000000);
		assert_int_equal(f->prio, 3);
		assert_int_equal(f->dport, 100);
		assert_int_equal(f->start, 2 * WS_SEC);
		assert_int_equal(f->tag, 2 + i); /* the line it came from */
		assert_int_equal(f->end, WS_TIME_NEVER); /* 200 MB take 16 ms */
		assert_true(f->acked > 0);
	}
	assert_true(ws_flow_get(sim, 2, &f0) != WS_OK);

	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.now, 2 * WS_SEC + 200 * WS_US);
	assert_int_equal(st.flows, 2);
	assert_int_equal(st.flows_done, 0);
	assert_int_equal(st.warnings, 1); /* the lines after the 2 declared */

	/* 254 more flow lines and 5 of help text were ignored */
	char dir[512], path[600];
	snprintf(dir, sizeof dir, "%s/hpcc", th_tmpdir());
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
	snprintf(path, sizeof path, "%s/summary.json", dir);
	char *js = th_read(path, NULL);
	assert_non_null(js);
	assert_non_null(strstr(js, "\"flows\": 2,"));
	assert_non_null(strstr(js, "\"ignored_lines\": 259"));
	free(js);
	ws_sim_free(sim);
}

/* ---- (2) malformed traces ------------------------------------------------------ */

/* Three good lines, so that a bad line placed after them is line 4. */
#define HEAD3 "3\n0 5 3 100 1000 0\n1 6 3 100 1000 0\n"


static const struct th_bad_file bad_traces[] = {
	{ "missing file", NULL, WS_ENOENT, 0,
	  "cannot open the flow trace: No such file or directory" },
	{ "empty file", "", WS_EINVAL, 0,
	  "empty flow trace (expected the number of flows on the first line)" },
	{ "only comments", "# nothing\n\n   \n# here\n", WS_EINVAL, 0, "empty flow trace" },
	{ "first line not a number", "two\n0 5 3 100 1000 0\n", WS_EINVAL, 1,
	  "the first line must be the number of flows (a non-negative integer up to 10^8)" },
	{ "first line negative", "-1\n0 5 3 100 1000 0\n", WS_EINVAL, 1,
	  "the first line must be the number of flows" },
	{ "first line two numbers", "1 2\n0 5 3 100 1000 0\n", WS_EINVAL, 1,
	  "the first line must be the number of flows" },
	{ "first line above 10^8", "100000001\n", WS_EINVAL, 1,
	  "the first line must be the number of flows" },
	{ "missing lines", "4\n0 5 3 100 1000 0\n\n1 6 3 100 1000 0\n", WS_EINVAL, 4,
	  "the first line declares 4 flows but the file ends after 2" },
	{ "too few fields", HEAD3 "2 7 3 100 1000\n", WS_EINVAL, 4,
	  "too few fields (found 5 fields; expected: src dst priority dport bytes "
	  "start_seconds)" },
	{ "one field", HEAD3 "2\n", WS_EINVAL, 4, "too few fields (found 1 field;" },
	{ "too many fields", HEAD3 "2 7 3 100 1000 0 9\n", WS_EINVAL, 4,
	  "too many fields (found 7 fields;" },
	{ "non-numeric bytes", HEAD3 "2 7 3 100 1k 0\n", WS_EINVAL, 4,
	  "bad bytes '1k' (expected a non-negative integer)" },
	{ "signed src", HEAD3 "+2 7 3 100 1000 0\n", WS_EINVAL, 4,
	  "bad src '+2' (expected a non-negative integer)" },
	{ "switch as source", HEAD3 "16 7 3 100 1000 0\n", WS_EINVAL, 4,
	  "src 16 is a switch, not a host" },
	{ "switch as destination", HEAD3 "2 35 3 100 1000 0\n", WS_EINVAL, 4,
	  "dst 35 is a switch, not a host" },
	{ "nonexistent source", HEAD3 "99 7 3 100 1000 0\n", WS_EINVAL, 4,
	  "no such source node 99: the fabric has nodes 0..35" },
	{ "nonexistent destination", HEAD3 "2 36 3 100 1000 0\n", WS_EINVAL, 4,
	  "no such destination node 36: the fabric has nodes 0..35" },
	{ "src == dst", HEAD3 "9 9 3 100 1000 0\n", WS_EINVAL, 4,
	  "a flow from a host to itself (node 9)" },
	{ "priority 0", HEAD3 "2 7 0 100 1000 0\n", WS_EINVAL, 4,
	  "bad priority 0: expected 1..7 (0 is reserved for PFC and control traffic)" },
	{ "priority 8", HEAD3 "2 7 8 100 1000 0\n", WS_EINVAL, 4,
	  "bad priority 8: expected 1..7" },
	{ "dport 70000", HEAD3 "2 7 3 70000 1000 0\n", WS_EINVAL, 4,
	  "bad dport 70000: expected 0..65535" },
	{ "bytes 0", HEAD3 "2 7 3 100 0 0\n", WS_EINVAL, 4, "a flow of 0 bytes" },
	{ "start abc", HEAD3 "2 7 3 100 1000 abc\n", WS_EINVAL, 4,
	  "bad start_seconds 'abc' (expected seconds, e.g. 2.000001)" },
	{ "start -1", HEAD3 "2 7 3 100 1000 -1\n", WS_EINVAL, 4,
	  "bad start_seconds '-1' (expected seconds, e.g. 2.000001)" },
	{ "start 1e400", HEAD3 "2 7 3 100 1000 1e400\n", WS_EINVAL, 4,
	  "bad start_seconds '1e400' (expected seconds, e.g. 2.000001)" },
	{ "start 1.5x", HEAD3 "2 7 3 100 1000 1.5x\n", WS_EINVAL, 4,
	  "bad start_seconds '1.5x'" },
	/* seconds only: a unit suffix is not a shorthand */
	{ "start with a unit", HEAD3 "2 7 3 100 1000 1m\n", WS_EINVAL, 4,
	  "bad start_seconds '1m'" },
	{ "start 2e", HEAD3 "2 7 3 100 1000 2e\n", WS_EINVAL, 4,
	  "bad start_seconds '2e'" },
	/* the first bad line is reported, not a later one */
	{ "first of two errors", "3\n0 5 3 100 1000 0\n0 0 3 100 1000 0\n0 5 0 100 1000 0\n",
	  WS_EINVAL, 3, "a flow from a host to itself (node 0)" },
	/* comments and blank lines count in line numbers */
	{ "line numbers count comments", "# a trace\n\n1\n\n# the flow:\n0 5 3 100 1000 q\n",
	  WS_EINVAL, 6, "bad start_seconds 'q'" },
};

static void test_bad_trace(void **state)
{
	th_check_bad_file(*state, flows_ini("bad.txt", ""));
}

/* ---- (3) comments, blank lines, CRLF ------------------------------------------- */

static void test_comments_and_blanks(void **state)
{
	(void)state;
	th_write("comments.txt", "# a trace with comments\n"
				 "\n"
				 "2\n"
				 "   # an indented comment\n"
				 "0 5 3 100 1000 0\n"
				 "\t\n"
				 "1 6 4 200 2000 0.000001\n"
				 "# after the flows: skipped, not ignored\n"
				 "\n");
	struct ws_sim *sim = th_sim(flows_ini("comments.txt", ""));
	th_run(sim);
	assert_int_equal(ws_flow_count(sim), 2);
	struct ws_flow_info f0 = flow(sim, 0), f1 = flow(sim, 1);
	assert_int_equal(f0.src, 0);
	assert_int_equal(f0.dst, 5);
	assert_int_equal(f0.tag, 5);
	assert_int_equal(f1.src, 1);
	assert_int_equal(f1.dst, 6);
	assert_int_equal(f1.prio, 4);
	assert_int_equal(f1.dport, 200);
	assert_int_equal(f1.bytes, 2000);
	assert_int_equal(f1.start, WS_US);
	assert_int_equal(f1.tag, 7);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows_done, 2);
	assert_int_equal(st.warnings, 0);
	ws_sim_free(sim);

	/* DOS line endings read the same */
	th_write("crlf.txt", "2\r\n0 5 3 100 1000 0\r\n1 6 3 100 1000 0.000002\r\n");
	sim = th_sim(flows_ini("crlf.txt", ""));
	th_run(sim);
	assert_int_equal(ws_flow_count(sim), 2);
	assert_int_equal(flow(sim, 1).start, 2 * WS_US);
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.warnings, 0);
	ws_sim_free(sim);

	/* a line after the declared flows is ignored, with one warning */
	th_write("extra.txt", "1\n0 5 3 100 1000 0\n1 6 3 100 1000 0\nnot even a flow\n");
	sim = th_sim(flows_ini("extra.txt", ""));
	th_run(sim);
	assert_int_equal(ws_flow_count(sim), 1);
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.warnings, 1);
	ws_sim_free(sim);
}

/* ---- (4) creation order --------------------------------------------------------- */

static void test_unsorted(void **state)
{
	(void)state;
	th_write("unsorted.txt", "4\n"
				 "0 5 3 100 1000 0.000003\n"  /* line 2 */
				 "1 6 3 100 1000 0.000001\n"  /* line 3 */
				 "2 7 3 100 1000 0.000002\n"  /* line 4 */
				 "3 8 3 100 1000 0.000001\n"); /* line 5 */
	struct ws_sim *sim = th_sim(flows_ini("unsorted.txt", ""));
	/* a flow exists from its start time on */
	th_run_until(sim, WS_US);
	assert_int_equal(ws_flow_count(sim), 2);
	th_run_until(sim, 2 * WS_US);
	assert_int_equal(ws_flow_count(sim), 3);
	th_run(sim);
	assert_int_equal(ws_flow_count(sim), 4);
	static const struct {
		uint32_t src, dst;
		ws_time start;
		uint64_t line;
	} want[] = {
		{ 1, 6, 1 * WS_US, 3 },
		{ 3, 8, 1 * WS_US, 5 },
		{ 2, 7, 2 * WS_US, 4 },
		{ 0, 5, 3 * WS_US, 2 },
	};
	for (uint32_t i = 0; i < 4; i++) {
		struct ws_flow_info f = flow(sim, i);
		assert_int_equal(f.id, i);
		assert_int_equal(f.src, want[i].src);
		assert_int_equal(f.dst, want[i].dst);
		assert_int_equal(f.start, want[i].start);
		assert_int_equal(f.tag, want[i].line);
		assert_true(f.end != WS_TIME_NEVER);
	}
	ws_sim_free(sim);
}

/* ---- an empty trace ------------------------------------------------------------- */

static void test_zero_flows(void **state)
{
	(void)state;
	th_write("zero.txt", "0\n");
	struct ws_sim *sim = th_sim(flows_ini("zero.txt", ""));
	th_run(sim);
	assert_int_equal(ws_flow_count(sim), 0);
	ws_sim_free(sim);
}

/* ---- (5) time_offset ------------------------------------------------------------ */

static void test_time_offset_bounds(void **state)
{
	(void)state;
	th_write("one.txt", "1\n0 5 3 100 1000 1\n");
	struct ws_sim *sim;
	struct ws_err err;
	/* beyond its maximum: a clear error, not a wrapped start time */
	assert_int_equal(th_sim_try(flows_ini("one.txt", "time_offset = 18446744s\n"), &sim,
				    &err, NULL), WS_EINVAL);
	assert_non_null(strstr(err.msg, "out of range"));
	assert_null(sim);
}


static void test_time_offset(void **state)
{
	(void)state;
	th_write("offset.txt", "3\n"
			       "0 5 3 100 1000 0\n"
			       "1 6 3 100 1000 0.000001\n"
			       "2 7 3 100 1000 0.0000015\n");
	struct ws_sim *sim = th_sim(flows_ini("offset.txt", "time_offset = 5us\n"));
	th_run_until(sim, 5 * WS_US - 1);
	assert_int_equal(ws_flow_count(sim), 0);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.events, 0);
	th_run(sim);
	assert_int_equal(ws_flow_count(sim), 3);
	assert_int_equal(flow(sim, 0).start, 5 * WS_US);
	assert_int_equal(flow(sim, 1).start, 6 * WS_US);
	assert_int_equal(flow(sim, 2).start, 6 * WS_US + 500 * WS_NS);
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows_done, 3);
	ws_sim_free(sim);

	/* the same trace without the offset, for comparison */
	sim = th_sim(flows_ini("offset.txt", ""));
	th_run(sim);
	assert_int_equal(flow(sim, 0).start, 0);
	assert_int_equal(flow(sim, 2).start, 1 * WS_US + 500 * WS_NS);
	ws_sim_free(sim);
}

/* ---- (6) a large trace, created lazily ------------------------------------------ */

#define BIG_N 20000u
#define BIG_PER_START 100u /* flows sharing a start time */

static void test_large_trace_lazy(void **state)
{
	(void)state;
	size_t cap = (size_t)BIG_N * 48 + 32, len = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "%u\n", BIG_N);
	for (uint32_t i = 0; i < BIG_N; i++) {
		uint32_t src = i % 16, dst = (src + 1 + (i / 16) % 15) % 16;
		/* start 1 ms + (i / 100) us */
		len += (size_t)snprintf(text + len, cap - len, "%u %u 3 100 1000 0.001%03u\n",
					src, dst, i / BIG_PER_START);
	}
	th_write("big.txt", text);
	free(text);

	struct ws_sim *sim = th_sim(flows_ini("big.txt", ""));
	assert_int_equal(ws_flow_count(sim), 0);
	th_run_until(sim, WS_MS - 1);
	assert_int_equal(ws_flow_count(sim), 0);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.events, 0);
	assert_int_equal(st.now, WS_MS - 1);
	th_run_until(sim, WS_MS);
	assert_int_equal(ws_flow_count(sim), BIG_PER_START);
	th_run_until(sim, WS_MS + WS_US);
	assert_int_equal(ws_flow_count(sim), 2 * BIG_PER_START);
	th_run(sim);
	assert_int_equal(ws_flow_count(sim), BIG_N);
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows_done, BIG_N);
	struct ws_flow_info last = flow(sim, BIG_N - 1);
	assert_int_equal(last.start, WS_MS + (BIG_N / BIG_PER_START - 1) * WS_US);
	assert_int_equal(last.tag, BIG_N + 1);
	ws_sim_free(sim);
}

/* ---- (7) FCT against the ideal FCT ---------------------------------------------- */

/* "123.456" (nanoseconds, three decimals) as picoseconds. */
static uint64_t ns_field_ps(const char *s)
{
	char *end;
	uint64_t whole = strtoull(s, &end, 10);
	assert_int_equal(*end, '.');
	const char *frac = end + 1;
	uint64_t f = strtoull(frac, &end, 10);
	assert_int_equal(end - frac, 3);
	return whole * 1000 + f;
}

static void test_fct_vs_ideal(void **state)
{
	(void)state;
	/* a permutation: host i sends to (5i + 3) mod 16, never to itself */
	char text[2048];
	size_t len = (size_t)snprintf(text, sizeof text, "16\n");
	for (uint32_t i = 0; i < 16; i++)
		len += (size_t)snprintf(text + len, sizeof text - len,
					"%u %u 3 100 %u 0\n", i, (5 * i + 3) % 16,
					50000 + 10000 * i);
	th_write("perm.txt", text);
	struct ws_sim *sim = th_sim(th_fmt("[topology]\nname = fat-tree\nk = 4\n"
					   "[cc]\nname = dcqcn\n"
					   "[workload]\nname = flows\nfile = perm.txt\n"));
	th_run(sim);
	char dir[512], path[600];
	snprintf(dir, sizeof dir, "%s/perm", th_tmpdir());
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
	snprintf(path, sizeof path, "%s/fct.csv", dir);
	char *csv = th_read(path, NULL);
	assert_non_null(csv);

	char *save = NULL;
	char *line = strtok_r(csv, "\n", &save);
	assert_non_null(line);
	assert_string_equal(line, "flow_id,src,dst,bytes,prio,start_ns,end_ns,fct_ns,"
				  "ideal_fct_ns,slowdown,tag");
	uint32_t rows = 0;
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *fld[11], *fs = NULL;
		int n = 0;
		for (char *t = strtok_r(line, ",", &fs); t && n < 11; t = strtok_r(NULL, ",", &fs))
			fld[n++] = t;
		assert_int_equal(n, 11);
		uint32_t id = (uint32_t)strtoul(fld[0], NULL, 10);
		struct ws_flow_info f = flow(sim, id);
		assert_int_equal(strtoul(fld[1], NULL, 10), f.src);
		assert_int_equal(strtoul(fld[2], NULL, 10), (5 * f.src + 3) % 16);
		assert_int_equal(strtoull(fld[3], NULL, 10), 50000 + 10000 * f.src);
		uint64_t start = ns_field_ps(fld[5]), end = ns_field_ps(fld[6]);
		uint64_t fct = ns_field_ps(fld[7]), ideal = ns_field_ps(fld[8]);
		assert_int_equal(start, f.start);
		assert_int_equal(end, f.end);
		assert_int_equal(fct, end - start);
		assert_int_equal(ideal, f.ideal_fct);
		assert_int_equal(strtoull(fld[10], NULL, 10), f.tag); /* the trace line */
		/* at least two links of 1 us each way */
		assert_true(ideal > 4 * WS_US);
		if ((double)fct < 0.99 * (double)ideal)
			fail_msg("flow %u: FCT %" PRIu64 " ps below 0.99 x its ideal %" PRIu64
				 " ps", id, fct, ideal);
		rows++;
	}
	assert_int_equal(rows, 16);
	free(csv);
	ws_sim_free(sim);
}

int main(void)
{
	enum { N_BAD = sizeof bad_traces / sizeof bad_traces[0] };
	static struct CMUnitTest tests[N_BAD + 16]; /* head, table, tail */
	size_t n = 0;
	const struct CMUnitTest head[] = { cmocka_unit_test(test_hpcc_file) };
	tests[n++] = head[0];
	for (size_t i = 0; i < N_BAD; i++)
		tests[n++] = (struct CMUnitTest){ bad_traces[i].name, test_bad_trace, NULL,
						  NULL, (void *)&bad_traces[i] };
	const struct CMUnitTest tail[] = {
		cmocka_unit_test(test_comments_and_blanks),
		cmocka_unit_test(test_unsorted),
		cmocka_unit_test(test_time_offset),
		cmocka_unit_test(test_zero_flows),
		cmocka_unit_test(test_time_offset_bounds),
		cmocka_unit_test(test_large_trace_lazy),
		cmocka_unit_test(test_fct_vs_ideal),
	};
	_Static_assert(sizeof tail / sizeof tail[0] + 1 <= 16, "room for the tail");
	for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
		tests[n++] = tail[i];
	return _cmocka_run_group_tests("test_flows", tests, n, NULL, NULL);
}
