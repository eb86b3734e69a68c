/* SPDX-License-Identifier: MIT */
/*
 * The hygra accelerator end to end: on two flows sharing a bottleneck it
 * enters flow mode and leaves it with every flow's bytes exactly its size
 * and FCTs within 1 % of packet level, for fewer events; a flow starting on
 * a frozen port ends flow mode at once (skip-back) with bytes conserved;
 * partitions switch on their own (flows starting and finishing in one
 * change nothing in another, which goes to flow mode and stays there);
 * brief flows decided without reading their ports, which are read only
 * once a partition exists (then at once for those running);
 * a small training iteration within a bound of packet level; every
 * parameter's bounds; determinism.
 */
#include "th.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ini(const char *trace, const char *cc, const char *accel,
		       const char *extra)
{
	return th_fmt("[topology]\nname = fat-tree\nk = 4\n[cc]\nname = %s\n"
		      "[accel]\nname = %s\n%s[workload]\nname = flows\nfile = %s\n",
		      cc, accel, extra, trace);
}

struct run {
	struct ws_sim *sim;
	char *summary, *fct;
};

static void run(const char *text, const char *name, struct run *r)
{
	r->sim = th_sim(text);
	th_run(r->sim);
	char dir[600];
	snprintf(dir, sizeof dir, "%s/%s", th_tmpdir(), name);
	struct ws_err err;
	if (ws_sim_write_outputs(r->sim, dir, &err))
		fail_msg("%s: %s", name, err.msg);
	r->summary = th_read(th_fmt("%s/summary.json", dir), NULL);
	r->fct = th_read(th_fmt("%s/fct.csv", dir), NULL);
	assert_non_null(r->summary);
	assert_non_null(r->fct);
}

static void done(struct run *r)
{
	ws_sim_free(r->sim);
	free(r->summary);
	free(r->fct);
}

/* The accel object's counter (the second "key": the first is in params). */
static double counter(const char *json, const char *key)
{
	const char *p = strstr(json, "\"events_executed\"");
	if (!p || !(p = strstr(p, th_fmt("\"%s\": ", key))))
		fail_msg("summary.json lacks the counter %s", key);
	return strtod(p + strlen(key) + 4, NULL);
}

static uint64_t events(struct ws_sim *sim)
{
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	return st.events;
}

/* Two 20 MB flows into host 4 under HPCC: steady after a few rounds, one
 * flow mode to the first flow's last byte, bytes exact, FCTs within 1 %. */
static void test_two_flows(void **state)
{
	(void)state;
	th_write("two.txt", "2\n0 4 3 100 20000000 0\n1 4 3 100 20000000 0\n");
	struct run a, b, c;
	run(ini("two.txt", "hpcc", "none", ""), "two-none", &a);
	run(ini("two.txt", "hpcc", "hygra", ""), "two-hygra", &b);
	th_check_bytes(a.sim);
	th_check_bytes(b.sim);
	th_check_fcts(a.sim, b.sim, 0.01, "hygra");
	assert_true(counter(b.summary, "flow_mode_entries") >= 1);
	assert_true(counter(b.summary, "skipped_bytes") > 20e6);
	print_message("events: %" PRIu64 " packet level, %" PRIu64 " hygra\n",
		      events(a.sim), events(b.sim));
	assert_true(events(b.sim) * 5 < events(a.sim));
	/* the same bytes twice */
	run(ini("two.txt", "hpcc", "hygra", ""), "two-hygra-2", &c);
	assert_string_equal(b.fct, c.fct);
	done(&c);
	/* equal weights: the same here (the link is full, nothing is left) */
	run(ini("two.txt", "hpcc", "hygra", "weight = equal\n"), "two-equal", &c);
	th_check_bytes(c.sim);
	th_check_fcts(a.sim, c.sim, 0.01, "hygra");
	done(&c);
	done(&a);
	done(&b);
}

/* A third flow into the same host starts while the first two are in flow
 * mode: flow mode ends at that instant, every byte still arrives once. */
static void test_skip_back(void **state)
{
	(void)state;
	th_write("three.txt", "3\n0 4 3 100 20000000 0\n1 4 3 100 20000000 0\n"
			      "5 4 3 100 2000000 0.001\n");
	struct run a, b;
	/* HPCC reading INT exactly: under the reference's coarse encoding (the
	 * default) its transients are noisier, and the third flow's transient
	 * lands 10.5 % from packet level (measured when the encoding landed) */
	const char *exact = "[nic]\nint_encoding = exact\n";
	char none_ini[1024], hygra_ini[1024];
	snprintf(none_ini, sizeof none_ini, "%s%s", exact, ini("three.txt", "hpcc", "none", ""));
	snprintf(hygra_ini, sizeof hygra_ini, "%s%s", exact, ini("three.txt", "hpcc", "hygra", ""));
	run(none_ini, "three-none", &a);
	run(hygra_ini, "three-hygra", &b);
	th_check_bytes(a.sim);
	th_check_bytes(b.sim);
	assert_true(counter(b.summary, "skip_backs") >= 1);
	assert_true(counter(b.summary, "flow_mode_entries") >= 2);
	/* the third flow meets a new transient: 4.3 % here */
	th_check_fcts(a.sim, b.sim, 0.05, "hygra");
	done(&a);
	done(&b);
}

/* Rounds restart at each flow start and finish, but the flows and ports
 * are re-read (rebased) once for all the flows of one instant and at most
 * once a sub-interval besides, partition by partition: 128 flows starting
 * together and finishing one by one cost fewer rebases than half their
 * 256 starts and finishes (103, each re-reading one partition), not 256
 * re-readings of up to 128 flows (hygra was O(flows x running flows));
 * every byte still arrives.  (A 2 us window: the flows, 100-227 KB, are
 * long enough for rounds.) */
static void test_rebase_shared(void **state)
{
	(void)state;
	char text[128 * 40 + 16];
	size_t n = (size_t)sprintf(text, "128\n");
	for (int i = 0; i < 128; i++)
		n += (size_t)sprintf(text + n, "%d %d 3 100 %d 0\n", i % 16,
				     (i % 16 + 1 + i / 16) % 16, 100000 + 997 * i);
	th_write("many.txt", text);
	struct run b;
	run(ini("many.txt", "dcqcn", "hygra", "window = 2us\n"), "many-hygra", &b);
	th_check_bytes(b.sim);
	double rebases = counter(b.summary, "rebases");
	assert_int_equal(counter(b.summary, "brief_flows"), 0);
	double sub = 2e6 / 4;
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(b.sim, &st);
	print_message("rebases: %.0f (%.0f sub-intervals)\n", rebases, (double)st.now / sub);
	assert_true(rebases >= 1);
	assert_true(rebases <= 2 * ((double)st.now / sub + 1));
	assert_true(rebases < 128);
	done(&b);
}

/* Flows too short to see a flow mode stay out of the partitions (brief):
 * the same 128 flows at the default window (8 base RTTs, at least 1 MB
 * at line rate) are all brief: no partition, no rebase, no sample; the
 * bytes and FCTs those of packet level exactly. */
static void test_brief(void **state)
{
	(void)state;
	struct run a, b;
	run(ini("many.txt", "dcqcn", "none", ""), "brief-none", &a);
	run(ini("many.txt", "dcqcn", "hygra", ""), "brief-hygra", &b);
	assert_int_equal(counter(b.summary, "brief_flows"), 128);
	assert_int_equal(counter(b.summary, "partitions"), 0);
	assert_int_equal(counter(b.summary, "rebases"), 0);
	assert_int_equal(counter(b.summary, "rounds"), 0);
	/* decided from the flow alone: no route traced, no port counted */
	assert_int_equal(counter(b.summary, "brief_ports_read"), 0);
	assert_string_equal(a.fct, b.fct);
	assert_int_equal(events(a.sim), events(b.sim));
	done(&a);
	done(&b);
}

/* FCTs of flows first..first+n-1, equal in both runs to the ps. */
static void same_fcts(struct ws_sim *a, struct ws_sim *b, uint32_t first, uint32_t n)
{
	for (uint32_t i = first; i < first + n; i++) {
		struct ws_flow_info x = { WS_INIT_SIZE(struct ws_flow_info) },
				    y = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(a, i, &x);
		ws_flow_get(b, i, &y);
		if (x.end - x.start != y.end - y.start)
			fail_msg("flow %u: FCT %" PRIu64 " ps, %" PRIu64 " ps with other "
				 "partitions busy", i, (uint64_t)(x.end - x.start),
				 (uint64_t)(y.end - y.start));
	}
}

/*
 * Brief flows' ports are read only while a partition exists.  Three 2 MB
 * flows into host 4 start with nothing else running (brief, unread); a
 * 20 MB flow into host 4 starts 100 us later, while they run: its
 * partition forms and the three are read then, so its rounds fail on them
 * (a partition with a brief flow on its ports passes none) and it reaches
 * flow mode later (the brief flows' FCTs are packet level's to the ps).  A 100 KB flow (6 -> 7) starting while the
 * partition exists is read at its start; one (8 -> 9) starting after
 * everything ended is not read.  Every byte arrives; the same bytes twice.
 */
static void test_brief_late(void **state)
{
	(void)state;
	th_write("late.txt", "6\n1 4 3 100 2000000 0\n2 4 3 100 2000000 0\n"
			     "3 4 3 100 2000000 0\n0 4 3 100 20000000 0.0001\n"
			     "6 7 3 100 100000 0.0002\n8 9 3 100 100000 0.01\n");
	struct run a, b, c;
	run(ini("late.txt", "dcqcn", "none", ""), "late-none", &a);
	run(ini("late.txt", "dcqcn", "hygra", ""), "late-hygra", &b);
	th_check_bytes(b.sim);
	/* the brief flows at packet level throughout; the long one's flow mode
	 * after DCQCN's cuts is hygra's own error (3.3 %, as before this test) */
	same_fcts(a.sim, b.sim, 0, 3);
	same_fcts(a.sim, b.sim, 4, 2);
	th_check_fcts(a.sim, b.sim, 0.05, "hygra");
	assert_int_equal(counter(b.summary, "brief_flows"), 5);
	assert_int_equal(counter(b.summary, "brief_ports_read"), 4);
	assert_true(counter(b.summary, "rounds_failed_brief") >= 1);
	assert_true(counter(b.summary, "flow_mode_entries") >= 1);
	/* the long flow went partly without packets */
	assert_true(ws_flow_skipped(b.sim, 3) > 0);
	run(ini("late.txt", "dcqcn", "hygra", ""), "late-hygra-2", &c);
	assert_string_equal(b.fct, c.fct);
	done(&a);
	done(&b);
	done(&c);
}

/*
 * Per-partition switching on a k=4 fat-tree.  A (hosts 0, 1 -> 4) and C
 * (8, 9 -> 12) share no port, data or ACK: two partitions, each switching
 * to flow mode once.  B adds short flows between hosts 14 and 15 while A
 * and C count their rounds, then a 3 MB flow while they are in flow mode:
 * A's and C's FCTs do not move by a ps (network-wide rounds would restart
 * at each of B's starts and finishes, and B's long flow would run at
 * packet level beside a frozen network), and B's long flow has a flow mode
 * of its own.  D, one flow into host 4 while A and C are in flow mode,
 * sends A back to packets (one skip-back) and leaves C's FCTs as they were.
 */
static void test_partitions(void **state)
{
	(void)state;
	const char *a = "0 4 3 100 20000000 0\n1 4 3 100 20000000 0\n";
	const char *c = "8 12 3 100 20000000 0\n9 12 3 100 20000000 0\n";
	const char *b = "14 15 3 100 200000 0.00005\n15 14 3 100 200000 0.0001\n"
			"14 15 3 100 200000 0.00015\n15 14 3 100 200000 0.0002\n"
			"14 15 3 100 3000000 0.0012\n";
	const char *d = "5 4 3 100 2000000 0.001\n";
	th_write("ac.txt", th_fmt("4\n%s%s", a, c));
	th_write("acb.txt", th_fmt("9\n%s%s%s", a, c, b));
	th_write("acd.txt", th_fmt("5\n%s%s%s", a, c, d));
	struct run r1, r2, r3;
	run(ini("ac.txt", "hpcc", "hygra", ""), "ac", &r1);
	run(ini("acb.txt", "hpcc", "hygra", ""), "acb", &r2);
	run(ini("acd.txt", "hpcc", "hygra", ""), "acd", &r3);
	th_check_bytes(r2.sim);
	th_check_bytes(r3.sim);
	assert_int_equal(counter(r1.summary, "flow_mode_entries"), 2);
	assert_int_equal(counter(r1.summary, "skip_backs"), 0);
	/* B: its own flow mode, nothing else moves */
	same_fcts(r1.sim, r2.sim, 0, 4);
	assert_int_equal(counter(r2.summary, "flow_mode_entries"), 3);
	assert_int_equal(counter(r2.summary, "skip_backs"), 0);
	assert_true(ws_flow_skipped(r2.sim, 8) > 1000000);
	/* D: A alone goes back to packets */
	assert_int_equal(counter(r3.summary, "skip_backs"), 1);
	same_fcts(r1.sim, r3.sim, 2, 2);
	done(&r1);
	done(&r2);
	/* the same bytes and counters again */
	run(ini("acd.txt", "hpcc", "hygra", ""), "acd-2", &r1);
	assert_string_equal(r1.fct, r3.fct);
	const char *c1 = strstr(r1.summary, "\"events_executed\""),
		   *c3 = strstr(r3.summary, "\"events_executed\"");
	assert_non_null(c1);
	assert_non_null(c3);
	assert_int_equal(strcspn(c1, "}"), strcspn(c3, "}"));
	assert_memory_equal(c1, c3, strcspn(c1, "}"));
	done(&r1);
	done(&r3);
}

/*
 * A small training iteration (a 2-layer model, TP 8, PP 2, DP 2 on 32 GPUs
 * of a 50 Gb/s rail fabric, two micro-batches, DCQCN: pipeline sends and
 * DP rings on rails): the rings are partitions of their own and switch
 * while the others start and finish; every FCT within 0.2 % of packet
 * level, the iteration within 0.1 % (0.05 % and 0.036 % measured), at
 * least 2x fewer events (2.56x: at 50 Gb/s a window is 1 MB long).
 */
static void test_training(void **state)
{
	(void)state;
	const char *fmt =
		"[topology]\nname = rail\ngpus_per_server = 8\nservers_per_unit = 4\n"
		"units = 1\ntiers = 2\nnic_rate = 50Gbps\nlink_rate = 50Gbps\n"
		"link_delay = 1us\n[cc]\nname = dcqcn\n[accel]\nname = %s\n"
		"[workload]\nname = llm\nmodel = custom\nlayers = 2\nhidden = 1024\n"
		"ffn = 4096\nheads = 16\nvocab = 8192\ntp = 8\npp = 2\ndp = 2\n"
		"micro_batch = 1\nmicro_batches = 2\nseq = 1024\niterations = 1\n";
	struct run a, b;
	run(th_fmt(fmt, "none"), "llm-none", &a);
	run(th_fmt(fmt, "hygra"), "llm-hygra", &b);
	th_check_bytes(b.sim);
	th_check_fcts(a.sim, b.sim, 0.002, "hygra");
	struct ws_sim_stats sa = { WS_INIT_SIZE(struct ws_sim_stats) },
			    sb = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(a.sim, &sa);
	ws_sim_get_stats(b.sim, &sb);
	print_message("iteration: %" PRIu64 " ps packet level, %" PRIu64 " ps hygra; "
		      "events %" PRIu64 " / %" PRIu64 "\n", (uint64_t)sa.now,
		      (uint64_t)sb.now, events(a.sim), events(b.sim));
	assert_true(fabs((double)sb.now - (double)sa.now) < 1e-3 * (double)sa.now);
	assert_true(events(b.sim) * 2 < events(a.sim));
	/* the 16 rings of each of two buckets switched, each on its own */
	assert_true(counter(b.summary, "flow_mode_entries") >= 16);
	assert_true(counter(b.summary, "partitions") > 16);
	done(&a);
	done(&b);
}

static void bad(const char *extra, const char *key, const char *needle)
{
	th_write("one.txt", "1\n0 12 3 100 20000 0\n");
	struct ws_sim *sim = NULL;
	struct ws_err err;
	assert_int_equal(th_sim_try(ini("one.txt", "hpcc", "hygra", extra), &sim, &err, NULL),
			 WS_EINVAL);
	assert_string_equal(err.key, key);
	if (!strstr(err.msg, needle))
		fail_msg("%s: message '%s' lacks '%s'", extra, err.msg, needle);
}

static void test_bad_params(void **state)
{
	(void)state;
	bad("eps_bw = 1.5\n", "accel.eps_bw", "1");
	bad("eps_bw = -0.1\n", "accel.eps_bw", "0");
	bad("samples = 1\n", "accel.samples", "2");
	bad("samples = 65\n", "accel.samples", "64");
	bad("n_stable = 0\n", "accel.n_stable", "1");
	bad("eps_q = 2GB\n", "accel.eps_q", "1GB");
	bad("window = 2s\n", "accel.window", "1s");
	bad("min_flow_mode = 2s\n", "accel.min_flow_mode", "1s");
	bad("weight = max\n", "accel.weight", "rate");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_flows),
		cmocka_unit_test(test_skip_back),
		cmocka_unit_test(test_rebase_shared),
		cmocka_unit_test(test_brief),
		cmocka_unit_test(test_brief_late),
		cmocka_unit_test(test_partitions),
		cmocka_unit_test(test_training),
		cmocka_unit_test(test_bad_params),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
