/* SPDX-License-Identifier: MIT */
/*
 * The wormhole accelerator end to end: a fast-forwarded bottleneck against
 * its packet-level run (FCTs within 1 %, every flow's bytes exactly its
 * size, fewer events), a skip-back when a flow starts on a frozen
 * partition, the memo hitting on an isomorphic transient and missing on
 * another CC or link rate, a persistent memo database (saved, reloaded,
 * a damaged one refused with a warning; one that holds something else, or
 * names the run's own output, refused before the run), a repeated
 * all-to-all replayed as an episode from its second time on (isomorphic on
 * other hosts, FCTs within 1 %), an episode cut by a new flow with every
 * byte delivered once, the back-off on thousands of unique small flows
 * (FCTs exactly packet level's), determinism; the memo shared between
 * runs (ws_sim_accel_import / export): hits from the first repetition,
 * two threads importing one blob at once, first import wins, A then B = A||B, other contexts and damaged blobs
 * refused with nothing imported; under HPCC, a replay fast-forwarded at
 * once and lone flows skipped at the rate a lone flow on their path taught.
 */
#include "th.h"

#include <xxhash.h>

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run {
	struct ws_sim *sim;
	char dir[600];
	char *summary;
};

static void run_ini(const char *ini, const char *name, struct run *r)
{
	r->sim = th_sim(ini);
	th_run(r->sim);
	snprintf(r->dir, sizeof r->dir, "%s/%s", th_tmpdir(), name);
	struct ws_err err;
	if (ws_sim_write_outputs(r->sim, r->dir, &err))
		fail_msg("%s: %s", name, err.msg);
	r->summary = th_read(th_fmt("%s/summary.json", r->dir), NULL);
	assert_non_null(r->summary);
}

static void done(struct run *r)
{
	ws_sim_free(r->sim);
	free(r->summary);
}

static double json_num(const char *json, const char *key)
{
	const char *p = strstr(json, th_fmt("\"%s\": ", key));
	if (!p)
		fail_msg("summary.json lacks %s", key);
	return strtod(p + strlen(key) + 4, NULL);
}

/* summary.json's accel.packet_level.CAT.KEY */
static double pl_num(const char *json, const char *cat, const char *key)
{
	const char *p = strstr(json, "\"packet_level\": {");
	if (!p)
		fail_msg("summary.json lacks packet_level");
	p = strstr(p, th_fmt("\"%s\": {", cat));
	if (!p)
		fail_msg("packet_level lacks %s", cat);
	return json_num(p, key);
}

static const char *const pl_cats[] = { "lone_cut", "lone", "episode", "transient", "steady",
				       "flow_model", "reskip", "never_alone", "never_fresh", "never_fresh_held",
				       "never_joined", "never_judged" };

/* packet_level accounts for every flow and byte: the packets sent are the
 * bytes less those skipped (no retransmission here); returns the flows */
static double pl_check(const struct run *r)
{
	double flows = 0, bytes = 0, pkt = 0;
	for (size_t k = 0; k < sizeof pl_cats / sizeof *pl_cats; k++) {
		flows += pl_num(r->summary, pl_cats[k], "flows");
		bytes += pl_num(r->summary, pl_cats[k], "bytes");
		pkt += pl_num(r->summary, pl_cats[k], "packet_bytes");
	}
	assert_true(fabs(pkt - (bytes - json_num(r->summary, "skipped_bytes"))) < 0.5);
	return flows;
}

/* k = 4 fat-tree (100 Gb/s, 1 us links), or k = 6 for the memo tests:
 * three hosts per edge switch, so a 2-to-1 incast inside an edge has one
 * path per flow and its conflict graph does not depend on ECMP */
static const char *ini_k(unsigned k, const char *trace, const char *cc,
			 const char *accel, const char *extra)
{
	return th_fmt("[topology]\nname = fat-tree\nk = %u\n[cc]\nname = %s\n"
		      "[accel]\nname = %s\n%s[workload]\nname = flows\nfile = %s\n",
		      k, cc, accel, extra, trace);
}

/* every episode recorded and replayed, however short (the tests' episodes
 * last about 100 us, under the default episode_min) */
#define EP_ALL "episode_min = 1ps\n"

static const char *ini(const char *trace, const char *cc, const char *accel,
		       const char *extra)
{
	return ini_k(4, trace, cc, accel, extra);
}

/* Every flow done, with exactly its bytes acknowledged and sent. */
/* Two 20 MB flows into one host: HPCC settles them at their share of the
 * link; the steady stretch is skipped.  (DCQCN with the reference's
 * parameters keeps swinging between a quarter and two thirds of the link
 * here: not steady at theta = 0.05, so nothing is skipped; see
 * docs/acceleration.md.) */
static void test_bottleneck(void **state)
{
	(void)state;
	th_write("two.txt", "2\n0 4 3 100 20000000 0\n1 4 3 100 20000000 0\n");
	struct run a, b;
	run_ini(ini("two.txt", "hpcc", "none", ""), "two-none", &a);
	/* a window over one oscillation of HPCC here (docs/acceleration.md) */
	run_ini(ini("two.txt", "hpcc", "wormhole", "window = 16\n"), "two-wh", &b);
	th_check_bytes(a.sim);
	th_check_bytes(b.sim);
	th_check_fcts(a.sim, b.sim, 0.01, "wormhole");
	assert_true(json_num(b.summary, "steady_entries") >= 1);
	assert_true(json_num(b.summary, "skipped_bytes") > 10e6);
	struct ws_sim_stats sa = { WS_INIT_SIZE(struct ws_sim_stats) }, sb = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(a.sim, &sa);
	ws_sim_get_stats(b.sim, &sb);
	print_message("events: %" PRIu64 " packet level, %" PRIu64 " wormhole\n", sa.events,
		      sb.events);
	assert_true(sb.events * 3 < sa.events);
	/* the dQ criterion: the bottleneck's queue is steady too here */
	struct run c;
	run_ini(ini("two.txt", "hpcc", "wormhole", "window = 16\nqueue_check = true\n"),
		"two-dq", &c);
	th_check_bytes(c.sim);
	th_check_fcts(a.sim, c.sim, 0.01, "wormhole");
	assert_true(json_num(c.summary, "steady_entries") >= 1);
	done(&c);
	done(&a);
	done(&b);
}

/* A flow that starts alone on its path runs at a lone flow's goodput from
 * its first packet: with a CC that keeps line rate on an idle path it is
 * skipped at once, and finishes as at packet level. */
static void test_lone(void **state)
{
	(void)state;
	th_write("lone1.txt", "1\n0 5 3 100 20000000 0\n");
	/* then a second flow on part of its path: a skip-back, contention,
	 * and the first alone again, climbing back to line rate */
	th_write("lone2.txt", "2\n0 5 3 100 20000000 0\n2 9 3 100 3000000 0.0001\n");
	for (int k = 0; k < 2; k++) {
		const char *cc = k ? "timely" : "dcqcn";
		struct run a, b;
		run_ini(ini("lone1.txt", cc, "none", ""), th_fmt("lone-none-%s", cc), &a);
		run_ini(ini("lone1.txt", cc, "wormhole", ""), th_fmt("lone-wh-%s", cc), &b);
		th_check_bytes(b.sim);
		th_check_fcts(a.sim, b.sim, 0.001, "wormhole");
		assert_int_equal(json_num(b.summary, "lone_entries"), 1);
		/* its packets: the last one and those of its first instant */
		assert_int_equal(pl_check(&b), 1);
		assert_int_equal(pl_num(b.summary, "lone", "flows"), 1);
		assert_true(pl_num(b.summary, "lone", "packet_bytes") < 0.01 * 20e6);
		struct ws_sim_stats sa = { WS_INIT_SIZE(struct ws_sim_stats) }, sb = { WS_INIT_SIZE(struct ws_sim_stats) };
		ws_sim_get_stats(a.sim, &sa);
		ws_sim_get_stats(b.sim, &sb);
		assert_true(sb.events * 1000 < sa.events);
		done(&a);
		done(&b);
		run_ini(ini("lone2.txt", cc, "none", ""), th_fmt("lone2-none-%s", cc), &a);
		run_ini(ini("lone2.txt", cc, "wormhole", ""), th_fmt("lone2-wh-%s", cc), &b);
		th_check_bytes(b.sim);
		/* the first flow's lone skip was cut by the second */
		assert_int_equal(pl_check(&b), 2);
		assert_int_equal(pl_num(b.summary, "lone_cut", "flows"), 1);
		th_check_fcts(a.sim, b.sim, 0.01, "wormhole");
		done(&a);
		done(&b);
	}
	/* HPCC aims at eta of the link even alone: no lone skip */
	struct run h;
	run_ini(ini("lone1.txt", "hpcc", "wormhole", ""), "lone-hpcc", &h);
	assert_int_equal(json_num(h.summary, "lone_entries"), 0);
	done(&h);
}

/* HPCC keeps no known rate alone, so its lone flows are learnt: the
 * first 500 KB flow from host 0 to host 1 (one path, under one edge
 * switch; too short for a steady skip) runs in packets and its FCT is the
 * packet-level one to the ps; the next two on that path, of that size
 * class, are skipped from their first packet at what it taught (within
 * 0.3 % of packet level: the gap measured is 0.12-0.15 %), each with its
 * first and last packets in packets; a flow of another size, and one on
 * another path, are not (they run in packets, within 1e-4 of packet
 * level); `lone = false` learns and skips nothing. */
static void test_lone_learnt(void **state)
{
	(void)state;
	th_write("taught.txt", "5\n0 1 3 100 500000 0\n0 1 3 100 500000 0.001\n"
		 "0 1 3 100 500000 0.002\n0 1 3 100 1000000 0.003\n"
		 "2 3 3 100 500000 0.004\n");
	struct run a, b, c;
	run_ini(ini("taught.txt", "hpcc", "none", ""), "taught-none", &a);
	run_ini(ini("taught.txt", "hpcc", "wormhole", ""), "taught-wh", &b);
	run_ini(ini("taught.txt", "hpcc", "wormhole", "lone = false\n"), "taught-off", &c);
	th_check_bytes(b.sim);
	assert_int_equal(json_num(b.summary, "lone_learnt"), 2);
	assert_int_equal(json_num(b.summary, "lone_entries"), 0);
	assert_int_equal(json_num(c.summary, "lone_learnt"), 0);
	assert_int_equal(pl_check(&b), 5);
	assert_int_equal(pl_num(b.summary, "lone", "flows"), 2);
	assert_int_equal(pl_num(b.summary, "never_alone", "flows"), 3);
	/* their packets: the first and the last of each */
	assert_true(pl_num(b.summary, "lone", "packet_bytes") < 0.01 * 1e6);
	for (uint32_t i = 0; i < 5; i++) {
		struct ws_flow_info fa = { WS_INIT_SIZE(struct ws_flow_info) },
				    fb = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(a.sim, i, &fa);
		ws_flow_get(b.sim, i, &fb);
		double ta = (double)(fa.end - fa.start), tb = (double)(fb.end - fb.start);
		if (i == 1 || i == 2) {
			if (fabs(tb - ta) > 0.003 * ta)
				fail_msg("learnt flow %u: FCT %.0f ps, packet level %.0f ps", i, tb,
					 ta);
		} else if (fabs(tb - ta) > 1e-4 * ta) {
			/* (flow 3 starts on a port a learnt skip was thawed
			 * on: 3.5 ns of 96 us apart) */
			fail_msg("flow %u ran in packets: FCT %.0f ps, packet level %.0f ps", i,
				 tb, ta);
		}
	}
	struct ws_sim_stats sa = { WS_INIT_SIZE(struct ws_sim_stats) },
			    sb = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(a.sim, &sa);
	ws_sim_get_stats(b.sim, &sb);
	/* two of the five flows' packets */
	assert_true(sb.events < 0.7 * sa.events);
	done(&a);
	done(&b);
	done(&c);
}

/* The counters tell the truth.  A run with no flows is the same run under
 * wormhole as under none: no sampling event, sim_time 0.  Between two
 * lone flows 20 ms apart nothing is sampled (the gap costs no event).  A
 * lone 20 MB flow, all but its first and last packets skipped:
 * events_executed + events_skipped is the packet-level run's events within
 * 1 % (it used to be the run's events per packet so far, which, with
 * almost no packet sent, exploded). */
static void test_counters(void **state)
{
	(void)state;
	th_write("empty.txt", "0\n");
	struct run a, b;
	run_ini(ini("empty.txt", "dcqcn", "none", ""), "empty-none", &a);
	struct ws_sim_stats sa = { WS_INIT_SIZE(struct ws_sim_stats) },
			    sb = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(a.sim, &sa);
	static const char *const accels[] = { "wormhole", "hygra" };
	for (int k = 0; k < 2; k++) {
		run_ini(ini("empty.txt", "dcqcn", accels[k], ""), th_fmt("empty-%d", k), &b);
		ws_sim_get_stats(b.sim, &sb);
		assert_int_equal(sb.events, sa.events);
		assert_int_equal(sb.now, sa.now);
		assert_int_equal(sb.now, 0);
		done(&b);
	}
	done(&a);

	th_write("gap.txt", "2\n0 5 3 100 20000000 0\n2 9 3 100 20000000 0.02\n");
	run_ini(ini("gap.txt", "dcqcn", "none", ""), "gap-none", &a);
	run_ini(ini("gap.txt", "dcqcn", "wormhole", ""), "gap-wh", &b);
	ws_sim_get_stats(a.sim, &sa);
	ws_sim_get_stats(b.sim, &sb);
	assert_int_equal(json_num(b.summary, "lone_entries"), 2);
	/* a sampling interval is 4 base RTTs (about 30 us): the gap alone
	 * would have cost about 600 samples */
	assert_true(sb.events < 2 * sa.events / 1000 + 100);
	double total = json_num(b.summary, "events_executed") +
		       json_num(b.summary, "events_skipped");
	if (fabs(total - (double)sa.events) > 0.01 * (double)sa.events)
		fail_msg("events executed + skipped %.0f, packet level %" PRIu64, total,
			 sa.events);
	done(&a);
	done(&b);
}

/* Two flows in opposite directions between two hosts: each is alone on
 * its data path, which carries the other's ACKs (about 5.7 % of the link).
 * Without lone skips, each is steady at a lone flow's goodput less that
 * ACK load, and is fast-forwarded there (compared with the goodput alone,
 * it looked like a flow still climbing back and was never skipped). */
static void test_steady_beside_acks(void **state)
{
	(void)state;
	th_write("pingpong.txt", "2\n0 4 3 100 20000000 0\n4 0 3 100 20000000 0\n");
	struct run a, b;
	run_ini(ini("pingpong.txt", "dcqcn", "none", ""), "pp-none", &a);
	run_ini(ini("pingpong.txt", "dcqcn", "wormhole", "lone = false\nmemo = false\n"),
		"pp-wh", &b);
	th_check_bytes(b.sim);
	th_check_fcts(a.sim, b.sim, 0.01, "wormhole");
	assert_int_equal(json_num(b.summary, "steady_entries"), 2);
	assert_int_equal(pl_num(b.summary, "steady", "flows"), 2);
	struct ws_sim_stats sa = { WS_INIT_SIZE(struct ws_sim_stats) }, sb = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(a.sim, &sa);
	ws_sim_get_stats(b.sim, &sb);
	assert_true(sb.events * 5 < sa.events);
	done(&a);
	done(&b);
}

/* A flow alone, fast-forwarded; a second starts on its path mid-way: the
 * frozen partition is thawed at that moment with what it had sent. */
static void test_skip_back(void **state)
{
	(void)state;
	th_write("late.txt", "2\n0 4 3 100 40000000 0\n1 4 3 100 5000000 0.0015\n");
	struct run a, b;
	/* exact INT (946.6 us packet level, 931.0 us under wormhole for the
	 * late flow): with the reference's coarse INT, the default since issue
	 * 17, the packet-level FCT moves to 884.9 us and wormhole's to 947.0 us,
	 * 7.0 % apart; this test is about the skip-back, the accuracy under
	 * coarse INT is wormhole's to settle */
	run_ini(ini("late.txt", "hpcc", "none", "[nic]\nint_encoding = exact\n"), "late-none", &a);
	run_ini(ini("late.txt", "hpcc", "wormhole", "[nic]\nint_encoding = exact\n"), "late-wh", &b);
	th_check_bytes(b.sim);
	assert_true(json_num(b.summary, "skip_backs") >= 1);
	th_check_fcts(a.sim, b.sim, 0.02, "wormhole");
	done(&a);
	done(&b);
}

/* HPCC inside one edge switch swings by about 8 % around its share even
 * over 100 us samples: theta above that, as docs/acceleration.md advises */
#define MEMO_ACCEL "theta = 0.2\ninterval = 100us\n"

/*
 * The same 2-to-1 transient twice, on other hosts and in the other order
 * the second time: the memo records it once and skips it the second time.
 */
static void test_memo_isomorphic(void **state)
{
	(void)state;
	th_write("twice.txt", "4\n0 2 3 100 20000000 0\n1 2 3 100 20000000 0\n"
		 "5 3 3 100 20000000 0.01\n4 3 3 100 20000000 0.01\n");
	struct run a, b;
	run_ini(ini_k(6, "twice.txt", "hpcc", "none", ""), "twice-none", &a);
	run_ini(ini_k(6, "twice.txt", "hpcc", "wormhole", MEMO_ACCEL), "twice-wh", &b);
	th_check_bytes(b.sim);
	assert_true(json_num(b.summary, "memo_inserts") >= 1);
	assert_true(json_num(b.summary, "memo_hits") >= 1);
	assert_true(json_num(b.summary, "memo_skips") >= 1);
	/* the replay ends steady at the recorded goodputs: fast-forwarded
	 * at once (replay_skip), not after a window of samples */
	assert_true(json_num(b.summary, "replay_skips") >= 1);
	/* a replayed transient, then a fast-forward at its recorded goodput:
	 * within 3 % of what packet level gives for either instance (HPCC
	 * swings by about 8 % around its share here, theta is 0.2) */
	double lo = INFINITY, hi = 0;
	for (uint32_t i = 0; i < 4; i++) {
		struct ws_flow_info f = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(a.sim, i, &f);
		double fct = (double)(f.end - f.start);
		lo = fct < lo ? fct : lo;
		hi = fct > hi ? fct : hi;
	}
	for (uint32_t i = 0; i < 4; i++) {
		struct ws_flow_info f = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(b.sim, i, &f);
		double fct = (double)(f.end - f.start);
		if (fct < 0.97 * lo || fct > 1.03 * hi)
			fail_msg("flow %u: FCT %.0f ps outside the packet-level range "
				 "%.0f..%.0f ps", i, fct, lo, hi);
	}
	/* without: the same replay, then packets until the partition is
	 * judged steady again */
	struct run c;
	run_ini(ini_k(6, "twice.txt", "hpcc", "wormhole", MEMO_ACCEL "replay_skip = false\n"),
		"twice-noreplay", &c);
	assert_int_equal(json_num(c.summary, "replay_skips"), 0);
	assert_true(json_num(c.summary, "memo_skips") >= 1);
	assert_true(json_num(b.summary, "events_executed") <
		    json_num(c.summary, "events_executed"));
	done(&a);
	done(&b);
	done(&c);
}

/* The memo database: saved by one run, used by the next of the same CC,
 * not by another CC or another link rate; a corrupt file is refused with a
 * warning and the run goes on. */
static void test_memo_db(void **state)
{
	(void)state;
	th_write("one.txt", "2\n0 2 3 100 20000000 0\n1 2 3 100 20000000 0\n");
	remove(th_fmt("%s/memo.db", th_tmpdir()));
	const char *db = MEMO_ACCEL "memo_db = memo.db\n";
	struct run a, b, c, d;
	run_ini(ini_k(6, "one.txt", "hpcc", "wormhole", db), "db1", &a);
	assert_true(json_num(a.summary, "memo_inserts") >= 1);
	assert_non_null(strstr(a.summary, "\"memo_db_saved\": true"));
	run_ini(ini_k(6, "one.txt", "hpcc", "wormhole", db), "db2", &b);
	assert_non_null(strstr(b.summary, "\"memo_db_loaded\": true"));
	assert_true(json_num(b.summary, "memo_hits") >= 1);
	th_check_bytes(b.sim);
	run_ini(ini_k(6, "one.txt", "timely", "wormhole", db), "db3", &c);
	assert_int_equal(json_num(c.summary, "memo_hits"), 0);
	run_ini(th_fmt("[topology]\nname = fat-tree\nk = 6\nlink_rate = 40Gbps\n[cc]\n"
		       "name = hpcc\n[accel]\nname = wormhole\n%s[workload]\nname = flows\n"
		       "file = one.txt\n", db), "db4", &d);
	assert_int_equal(json_num(d.summary, "memo_hits"), 0);
	done(&a);
	done(&b);
	done(&c);
	done(&d);
	/* a damaged table: the run goes on without it */
	FILE *f = fopen(th_fmt("%s/bad.db", th_tmpdir()), "wb");
	assert_non_null(f);
	static const unsigned char damaged[] = "WARPSIM-MEMO\0\2\0\0\0\7\0\0\0\0\0\0\0garbage";
	assert_int_equal(fwrite(damaged, 1, sizeof damaged - 1, f), sizeof damaged - 1);
	fclose(f);
	struct run e;
	run_ini(ini_k(6, "one.txt", "hpcc", "wormhole", MEMO_ACCEL "memo_db = bad.db\n"), "dbbad", &e);
	assert_non_null(strstr(e.summary, "\"memo_db_loaded\": false"));
	assert_non_null(strstr(e.summary, "\"memo_db_note\""));
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(e.sim, &st);
	assert_int_equal(st.warnings, 1);
	th_check_bytes(e.sim);
	done(&e);
}

/* A memo_db that holds something else, or names one of the run's own
 * outputs, is refused before the run with a message naming it; the file is
 * left as it was. */
static void test_memo_db_foreign(void **state)
{
	(void)state;
	th_write("one.txt", "2\n0 2 3 100 20000000 0\n1 2 3 100 20000000 0\n");
	const char *trace = "time_ns,flow_id,rate_bps\n0,0,100000000000\n";
	th_write("mytrace.csv", trace);
	struct ws_sim *sim = NULL;
	struct ws_err err;
	int rc = th_sim_try(ini_k(6, "one.txt", "hpcc", "wormhole",
				  MEMO_ACCEL "memo_db = mytrace.csv\n"), &sim, &err, NULL);
	assert_int_not_equal(rc, WS_OK);
	assert_null(sim);
	if (!strstr(err.msg, "mytrace.csv") || !strstr(err.msg, "not a warpsim memo file"))
		fail_msg("unclear: %s", err.msg);
	char *back = th_read(th_fmt("%s/mytrace.csv", th_tmpdir()), NULL);
	assert_string_equal(back, trace);
	free(back);
	/* the run's own rates trace, in its output directory (not there yet) */
	char text[2048];
	snprintf(text, sizeof text, "[output]\ndir = %s/outdir\n%s", th_tmpdir(),
		 ini_k(6, "one.txt", "hpcc", "wormhole", MEMO_ACCEL "memo_db = outdir/rates.csv\n"));
	rc = th_sim_try(text, &sim, &err, NULL);
	assert_int_not_equal(rc, WS_OK);
	if (!strstr(err.msg, "rates.csv") || !strstr(err.msg, "output directory"))
		fail_msg("unclear: %s", err.msg);
}

/* One 1000-byte flow: a sample with no flow left to sample (this ended in
 * a NULL memcpy, an abort under UBSan). */
static void test_tiny_flow(void **state)
{
	(void)state;
	th_write("tiny.txt", "1\n0 5 3 100 1000 0\n");
	struct run a;
	run_ini(ini("tiny.txt", "dcqcn", "wormhole", ""), "tiny", &a);
	th_check_bytes(a.sim);
	done(&a);
}

/* An all-to-all of three hosts under one edge switch of a k = 6 fat-tree
 * (one path per flow: the same conflict graph whatever ECMP does), 1 MB
 * per flow, `reps` times 1 ms apart, on hosts 0-2 and 3-5 in turn (an
 * isomorphic episode on other hosts).  Returns the trace's name. */
static const char *a2a_trace(const char *name, int reps, const char *extra)
{
	char text[4096];
	size_t n = 0, lines = 0;
	char body[4000];
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++) {
				if (i == j)
					continue;
				int b = (r % 2) * 3;
				n += (size_t)snprintf(body + n, sizeof body - n,
						      "%d %d 3 100 1000000 %.6f\n", b + i, b + j,
						      r * 0.001);
				lines++;
			}
	if (extra) {
		n += (size_t)snprintf(body + n, sizeof body - n, "%s", extra);
		lines++;
	}
	snprintf(text, sizeof text, "%zu\n%s", lines, body);
	th_write(name, text);
	return name;
}

/* A run that learnt only episodes saves them in its memo_db too: the next
 * run replays the all-to-all from its first time. */
static void test_memo_db_episodes(void **state)
{
	(void)state;
	const char *t = a2a_trace("db-a2a.txt", 2, NULL);
	remove(th_fmt("%s/ep.db", th_tmpdir()));
	struct run ea, eb;
	run_ini(ini_k(6, t, "dcqcn", "wormhole", "memo_db = ep.db\n" EP_ALL), "dbep1", &ea);
	assert_int_equal(json_num(ea.summary, "memo_inserts"), 0);
	assert_true(json_num(ea.summary, "episode_inserts") >= 1);
	assert_non_null(strstr(ea.summary, "\"memo_db_saved\": true"));
	run_ini(ini_k(6, t, "dcqcn", "wormhole", "memo_db = ep.db\n" EP_ALL), "dbep2", &eb);
	assert_int_equal(json_num(eb.summary, "episode_skips"), 2);
	done(&ea);
	done(&eb);
}

/* A repeated all-to-all: recorded once, replayed from the second time on
 * (on other hosts too), every FCT within 1 % of packet level (with every
 * episode kept: these last about 100 us, under the default episode_min).
 * By default (episode_min: a steady window) they are neither recorded nor
 * replayed, and go in packets. */
static void test_episode_repeated(void **state)
{
	(void)state;
	const char *t = a2a_trace("a2a.txt", 4, NULL);
	for (int k = 0; k < 2; k++) {
		const char *cc = k ? "timely" : "dcqcn";
		struct run a, b;
		run_ini(ini_k(6, t, cc, "none", ""), th_fmt("a2a-none-%s", cc), &a);
		run_ini(ini_k(6, t, cc, "wormhole", EP_ALL), th_fmt("a2a-wh-%s", cc), &b);
		th_check_bytes(b.sim);
		th_check_fcts(a.sim, b.sim, 0.01, "wormhole");
		assert_true(json_num(b.summary, "episode_inserts") >= 1);
		/* every repetition after the first */
		assert_true(json_num(b.summary, "episode_skips") >= 3);
		/* the first repetition's 6 flows stay at packet level, fresh
		 * (their episode looked up, missed, recorded); the replayed
		 * ones are counted as episodes */
		assert_int_equal(pl_check(&b), 24);
		assert_int_equal(pl_num(b.summary, "never_fresh", "flows"), 6);
		assert_int_equal(pl_num(b.summary, "never_fresh", "packet_bytes"), 6e6);
		assert_true(pl_num(b.summary, "episode", "flows") >= 3 * 3);
		struct ws_sim_stats sa = { WS_INIT_SIZE(struct ws_sim_stats) }, sb = { WS_INIT_SIZE(struct ws_sim_stats) };
		ws_sim_get_stats(a.sim, &sa);
		ws_sim_get_stats(b.sim, &sb);
		assert_true(sb.events * 2 < sa.events);
		done(&a);
		done(&b);
	}
	/* the default episode_min: too short to keep, counted, FCTs of packets */
	struct run a0, d;
	run_ini(ini_k(6, t, "dcqcn", "none", ""), "a2a-none-def", &a0);
	run_ini(ini_k(6, t, "dcqcn", "wormhole", ""), "a2a-wh-def", &d);
	th_check_bytes(d.sim);
	assert_int_equal(json_num(d.summary, "episode_inserts"), 0);
	assert_int_equal(json_num(d.summary, "episode_skips"), 0);
	assert_true(json_num(d.summary, "episode_short") >= 1);
	assert_int_equal(pl_num(d.summary, "episode", "flows"), 0);
	th_check_fcts(a0.sim, d.sim, 0.01, "wormhole, short episodes left out");
	done(&a0);
	done(&d);
	/* episodes = false: none looked up, none replayed */
	struct run c;
	run_ini(ini_k(6, t, "dcqcn", "wormhole", "episodes = false\n"), "a2a-noep", &c);
	th_check_bytes(c.sim);
	assert_int_equal(json_num(c.summary, "episode_lookups"), 0);
	assert_int_equal(json_num(c.summary, "episode_skips"), 0);
	assert_int_equal(pl_num(c.summary, "episode", "flows"), 0);
	done(&c);
}

/* A flow that starts on the ports of a replayed episode, half-way through:
 * the replay is cut there (a skip-back), every byte still delivered once. */
static void test_episode_interrupted(void **state)
{
	(void)state;
	const char *t = a2a_trace("a2a-cut.txt", 2, "4 0 3 100 500000 0.00104\n");
	struct run a, b;
	run_ini(ini_k(6, t, "dcqcn", "none", ""), "cut-none", &a);
	run_ini(ini_k(6, t, "dcqcn", "wormhole", EP_ALL), "cut-wh", &b);
	th_check_bytes(b.sim);
	assert_true(json_num(b.summary, "episode_skips") >= 1);
	assert_true(json_num(b.summary, "skip_backs") >= 1);
	th_check_fcts(a.sim, b.sim, 0.05, "wormhole");
	done(&a);
	done(&b);
}

/* Thousands of small flows, each new: nothing to skip.  The accelerator
 * backs off and switches itself off (counted), and the FCTs are exactly
 * packet level's. */
static void test_backoff(void **state)
{
	(void)state;
	enum { N = 3000 };
	char *text = malloc(N * 48 + 16);
	size_t n = (size_t)sprintf(text, "%d\n", N);
	uint64_t x = 12345;
	for (int i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		int src = (int)(x >> 33) % 16, dst = (int)(x >> 45) % 15;
		dst += dst >= src;
		n += (size_t)sprintf(text + n, "%d %d 3 100 %d %.7f\n", src, dst,
				     2000 + (int)((x >> 20) % 3000), i * 0.0000005);
	}
	th_write("tiny-many.txt", text);
	free(text);
	struct run a, b;
	run_ini(ini("tiny-many.txt", "dcqcn", "none", ""), "many-none", &a);
	run_ini(ini("tiny-many.txt", "dcqcn", "wormhole", ""), "many-wh", &b);
	assert_true(json_num(b.summary, "off_periods") >= 1);
	assert_true(json_num(b.summary, "off_untracked_flows") >= N / 2);
	/* the memo pays for itself: nothing repeats, so its searches stop once
	 * their work (20 steps an event) passes its allowance (2,000 events
	 * and 1 % of those executed; the situations recorded meanwhile are
	 * charged when they end, hence the factor 2) */
	assert_true(json_num(b.summary, "memo_unpaid") >= 1);
	assert_true(json_num(b.summary, "memo_work") / 20 <=
		    2 * (2000 + 0.01 * json_num(b.summary, "events_executed")));
	char *x1 = th_read(th_fmt("%s/fct.csv", a.dir), NULL);
	char *x2 = th_read(th_fmt("%s/fct.csv", b.dir), NULL);
	assert_string_equal(x1, x2);
	free(x1);
	free(x2);
	done(&a);
	done(&b);
}

/* Looking again when the traffic changes: 600 tiny flows switch the
 * accelerator off; then, with it still off, lone 4 MB flows (a new size
 * class) switch it back on and are skipped, in this order as in the
 * other (the sweep reversed), whereas they used to stay at packet level. */
static void test_reprobe(void **state)
{
	(void)state;
	enum { N = 600, BIG = 8 };
	for (int order = 0; order < 2; order++) {
		char *text = malloc((N + BIG) * 48 + 16);
		size_t n = (size_t)sprintf(text, "%d\n", N + BIG);
		double t_small = order ? 0.001 * BIG : 0, t_big = order ? 0 : 0.001;
		for (int i = 0; i < N; i++)
			n += (size_t)sprintf(text + n, "%d %d 3 100 1000 %.7f\n", i % 16,
					     (i + 1 + i / 16) % 16 == i % 16 ? (i + 2) % 16
									  : (i + 1 + i / 16) % 16,
					     t_small + i * 0.000002);
		for (int i = 0; i < BIG; i++)
			n += (size_t)sprintf(text + n, "%d %d 3 100 4000000 %.4f\n", i, 15 - i,
					     t_big + i * 0.001);
		th_write("sweep.txt", text);
		free(text);
		struct run a, b;
		run_ini(ini("sweep.txt", "dcqcn", "none", ""), th_fmt("sweep-none-%d", order), &a);
		run_ini(ini("sweep.txt", "dcqcn", "wormhole", ""), th_fmt("sweep-wh-%d", order), &b);
		th_check_bytes(b.sim);
		assert_true(json_num(b.summary, "off_periods") >= 1);
		assert_int_equal(json_num(b.summary, "lone_entries"), BIG);
		assert_true(json_num(b.summary, "reprobes") >= (order ? 0 : 1));
		/* the large flows, skipped: their FCTs are the ideal ones (0.11 %
		 * off packet level's here) */
		for (uint32_t i = N; i < N + BIG; i++) {
			struct ws_flow_info fa = { WS_INIT_SIZE(struct ws_flow_info) },
					    fb = { WS_INIT_SIZE(struct ws_flow_info) };
			ws_flow_get(a.sim, i, &fa);
			ws_flow_get(b.sim, i, &fb);
			double ea = (double)(fa.end - fa.start), eb = (double)(fb.end - fb.start);
			assert_true(fabs(eb - ea) < 0.005 * ea);
		}
		struct ws_sim_stats sa = { WS_INIT_SIZE(struct ws_sim_stats) },
				    sb = { WS_INIT_SIZE(struct ws_sim_stats) };
		ws_sim_get_stats(a.sim, &sa);
		ws_sim_get_stats(b.sim, &sb);
		if (sb.events * 4 >= sa.events) /* (the tiny flows are 15 % of them) */
			fail_msg("order %d: events %" PRIu64 " wormhole, %" PRIu64 " packet level", order,
				 sb.events, sa.events);
		done(&a);
		done(&b);
	}
}

/* A new size class of flows over within a round trip or two (ideal FCT
 * under 1.5 lone_min) is no reason to look again: nothing could skip
 * them.  300 tiny flows switch the accelerator off (from the 257th); 600
 * flows of 8 KB (a class not seen yet, about 1 us on the wire) that start
 * while it is off keep it off: its off periods run their course (256
 * flows, tracking for 256, then 512 more off), as without the new class. */
static void test_reprobe_short(void **state)
{
	(void)state;
	enum { N = 300, M = 600 };
	char *text = malloc((N + M) * 48 + 16);
	size_t n = (size_t)sprintf(text, "%d\n", N + M);
	for (int i = 0; i < N + M; i++)
		n += (size_t)sprintf(text + n, "%d %d 3 100 %d %.7f\n", i % 16, (i % 16 + 1 + i / 16 % 15) % 16,
				     i < N ? 1000 : 8000, i * 0.000002);
	th_write("sweep-short.txt", text);
	free(text);
	struct run a, b;
	run_ini(ini("sweep-short.txt", "dcqcn", "none", ""), "sweep-short-none", &a);
	run_ini(ini("sweep-short.txt", "dcqcn", "wormhole", ""), "sweep-short-wh", &b);
	th_check_bytes(b.sim);
	assert_true(json_num(b.summary, "off_periods") >= 1);
	assert_int_equal(json_num(b.summary, "reprobes"), 0);
	/* about flows 256-511 and 768-899 untracked (382 measured) */
	assert_true(json_num(b.summary, "off_untracked_flows") >= 350);
	/* nothing skipped: packet level's FCTs */
	char *x1 = th_read(th_fmt("%s/fct.csv", a.dir), NULL);
	char *x2 = th_read(th_fmt("%s/fct.csv", b.dir), NULL);
	assert_string_equal(x1, x2);
	free(x1);
	free(x2);
	done(&a);
	done(&b);
}

/* Two opposite lone 20 MB flows (hosts 0 <-> 1): each one's data shares
 * its NIC with the other's ACKs, which are themselves slowed by this one's
 * ACKs.  Skipped at the fixed point, 1 / (1 + a) of the goodput (a the ACK
 * share at full goodput), each FCT is packet level's within 0.0025 %; at
 * 1 - a (before) it was 0.33 % late. */
static void test_ack_fixed_point(void **state)
{
	(void)state;
	th_write("opp.txt", "2\n0 1 3 100 20000000 0\n1 0 3 100 20000000 0\n");
	struct run a, b;
	run_ini(ini("opp.txt", "dcqcn", "none", ""), "opp-none", &a);
	run_ini(ini("opp.txt", "dcqcn", "wormhole", ""), "opp-wh", &b);
	th_check_bytes(b.sim);
	assert_int_equal(json_num(b.summary, "lone_entries"), 2);
	th_check_fcts(a.sim, b.sim, 0.0002, "wormhole, opposite lone flows");
	done(&a);
	done(&b);
}

/* ws_port_add_load: a port carrying half its rate without packets
 * serializes at half its rate (a lone 10 MB flow's transfer takes twice
 * as long); loads outside 0 .. 99 % of the rate are refused, unchanged. */
static void test_port_load(void **state)
{
	(void)state;
	th_write("load1.txt", "1\n0 5 3 100 10000000 0\n");
	struct run a;
	run_ini(ini("load1.txt", "dcqcn", "none", ""), "load-none", &a);
	struct ws_flow_info fa = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(a.sim, 0, &fa);
	struct ws_sim *sim = th_sim(ini("load1.txt", "dcqcn", "none", ""));
	uint32_t nic = ws_port_gid(sim, 0, 0); /* host 0's NIC port */
	struct ws_err err;
	assert_int_not_equal(ws_port_add_load(sim, nic, -1, &err), WS_OK);
	assert_int_not_equal(ws_port_add_load(sim, nic, 100000000000ll, &err), WS_OK);
	assert_int_not_equal(ws_port_add_load(sim, UINT32_MAX, 1, &err), WS_OK);
	assert_int_equal(ws_port_add_load(sim, nic, 30000000000ll, &err), WS_OK);
	assert_int_equal(ws_port_add_load(sim, nic, 20000000000ll, &err), WS_OK);
	th_run(sim);
	struct ws_flow_info fb = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, 0, &fb);
	/* the data part of the FCT doubles; the round trip does not */
	double data = (double)(fa.end - fa.start) - 8e6; /* less about 8 us of RTT */
	double got = (double)(fb.end - fb.start) - 8e6;
	if (fabs(got / data - 2.0) > 0.02)
		fail_msg("FCT %.0f ps with half the NIC's rate taken, %.0f ps without "
			 "(ratio %.3f, expected 2)", got, data, got / data);
	ws_sim_free(sim);
	done(&a);
}

static void test_deterministic(void **state)
{
	(void)state;
	th_write("det.txt", "4\n0 4 3 100 8000000 0\n1 4 3 100 8000000 0\n"
		 "2 9 3 100 8000000 0.0001\n5 9 3 100 4000000 0.0002\n");
	struct run a, b;
	run_ini(ini("det.txt", "hpcc", "wormhole", ""), "det1", &a);
	run_ini(ini("det.txt", "hpcc", "wormhole", ""), "det2", &b);
	char *x = th_read(th_fmt("%s/fct.csv", a.dir), NULL);
	char *y = th_read(th_fmt("%s/fct.csv", b.dir), NULL);
	assert_string_equal(x, y);
	free(x);
	free(y);
	/* summary.json up to its wall-clock block */
	char *ta = strstr(a.summary, "\"timing\""), *tb = strstr(b.summary, "\"timing\"");
	assert_non_null(ta);
	assert_non_null(tb);
	assert_int_equal(ta - a.summary, tb - b.summary);
	assert_int_equal(memcmp(a.summary, b.summary, (size_t)(ta - a.summary)), 0);
	done(&a);
	done(&b);
}

/* ---- sharing the memo between runs (ws_sim_accel_import / export) ---- */

static void assert_same_file(const struct run *a, const struct run *b, const char *file);

/*
 * MoE-like traffic: short transfers that start into partitions holding
 * older flows (no episode key: the flow model) and a long flow left alone
 * once they are gone (reskip).  Host 4 receives a 6 MB flow from host 0
 * and, while it runs, 600 KB transfers from hosts 1, 2, 3, 5, ... one
 * after another, each joining the partition at the host's downlink; the
 * same on host 12 from 8, with two transfers at once.  Returns the trace.
 */
static const char *joined_trace(const char *name)
{
	char body[2048];
	size_t n = 0;
	int lines = 0;
	for (int d = 0; d < 2; d++) {
		int dst = d ? 12 : 4, src = d ? 8 : 0;
		n += (size_t)snprintf(body + n, sizeof body - n, "%d %d 3 100 6000000 0\n",
				      src, dst);
		lines++;
		static const int from[2][6] = { { 1, 2, 3, 5, 6, 7 }, { 9, 10, 11, 13, 14, 15 } };
		for (int k = 0; k < 6; k++) {
			/* one at a time on host 4, two at a time on host 12 */
			double t = 0.00002 + (d ? (k / 2) * 0.00012 : k * 0.00008);
			n += (size_t)snprintf(body + n, sizeof body - n,
					      "%d %d 3 100 600000 %.6f\n", from[d][k], dst, t);
			lines++;
		}
	}
	char text[2100];
	snprintf(text, sizeof text, "%d\n%s", lines, body);
	th_write(name, text);
	return name;
}

/* mean |FCT error| of b against a */
static double mean_fct_error(struct ws_sim *a, struct ws_sim *b)
{
	uint32_t n = ws_flow_count(a);
	double sum = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct ws_flow_info x = { WS_INIT_SIZE(struct ws_flow_info) },
				    y = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(a, i, &x);
		ws_flow_get(b, i, &y);
		double fa = (double)(x.end - x.start), fb = (double)(y.end - y.start);
		sum += fabs(fb - fa) / fa;
	}
	return n ? sum / n : 0;
}

/* The flow model and reskip (opt-in) engage on joined partitions, every
 * byte is delivered once; the error is bounded but large on this DCQCN
 * incast (the mean 23.3 % measured, under 30 % asserted; one transfer
 * 217 % late, under 250 % asserted): DCQCN cuts the flows a join sends
 * above the ECN threshold and the link runs below capacity until they
 * climb back, where max-min shares it equally and fully, and flows frozen
 * at line rate come back into packet-level contention uncut
 * (docs/acceleration.md).  Transfers that join while another has 6-12 us
 * left hold the partition in packets (test_model_hold): here that leaves
 * 1.2x fewer events than the keys off (18x before the hold; the mean
 * error was 28.9 %, the worst flow 72 %).  Off (the default), nothing is
 * modelled; the same bytes twice. */
static void test_flow_model(void **state)
{
	(void)state;
	const char *t = joined_trace("joined.txt");
	struct run a, b, c, off;
	run_ini(ini(t, "dcqcn", "none", ""), "fm-none", &a);
	const char *on = "flow_model = true\nreskip = true\n";
	run_ini(ini(t, "dcqcn", "wormhole", on), "fm-wh", &b);
	th_check_bytes(b.sim);
	assert_true(json_num(b.summary, "model_entries") >= 4);
	assert_true(json_num(b.summary, "model_skipped_bytes") > 1e6);
	assert_int_equal(pl_check(&b), 14);
	assert_true(pl_num(b.summary, "flow_model", "flows") >= 6);
	/* transfers that joined while a flow with 6-12 us left ran held the
	 * partition in packets (never_joined), see test_model_hold */
	assert_true(json_num(b.summary, "model_held") >= 1);
	assert_true(pl_num(b.summary, "never_joined", "flows") <= 8);
	th_check_fcts(a.sim, b.sim, 2.5, "wormhole (flow model)");
	double err = mean_fct_error(a.sim, b.sim);
	print_message("flow model: mean |FCT error| %.3f %%\n", 100 * err);
	assert_true(err < 0.30);
	struct ws_sim_stats sa = { WS_INIT_SIZE(struct ws_sim_stats) },
			    sb = { WS_INIT_SIZE(struct ws_sim_stats) },
			    so = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(a.sim, &sa);
	ws_sim_get_stats(b.sim, &sb);
	/* deterministic: the same bytes twice */
	run_ini(ini(t, "dcqcn", "wormhole", on), "fm-wh2", &c);
	assert_same_file(&b, &c, "fct.csv");
	/* off: no model, no reskip, and the joined transfers go in packets */
	run_ini(ini(t, "dcqcn", "wormhole", ""), "fm-off", &off);
	th_check_bytes(off.sim);
	assert_int_equal(json_num(off.summary, "model_entries"), 0);
	assert_int_equal(json_num(off.summary, "reskip_entries"), 0);
	assert_true(pl_num(off.summary, "never_joined", "flows") >= 8);
	ws_sim_get_stats(off.sim, &so);
	print_message("events: packet level %" PRIu64 ", off %" PRIu64 ", on %" PRIu64 "\n",
		      sa.events, so.events, sb.events);
	assert_true(sb.events < so.events);
	done(&a);
	done(&b);
	done(&c);
	done(&off);
}

/*
 * The flow model's shares in a closed-form case: a 200 KB transfer (host 1)
 * joins a 4 MB flow (host 0) on host 4's downlink at 100 Gb/s.  The queue
 * the contention builds stays under DCQCN's ECN threshold (400 KB at
 * 100 Gb/s: the newcomer's 200 KB, more or less what the two put in
 * together beyond the link's rate), so no CC is cut and the FIFO port
 * serves both senders, at line rate, equally: the max-min shares are what
 * packet level does.  Closed form: the newcomer's data time doubles (its
 * FCT = base RTT + 2 x wire bytes / link rate) and the long flow ends later
 * by the newcomer's wire bytes / link rate.  Packet level gives 46.12 us
 * and 365.9 us; the model 45.63 us (-1.0 %: the newcomer's first round
 * trip, before its packets reach the shared queue, is at the shared rate)
 * and 365.4 us (-0.13 %); asserted within 2 % and 0.5 %, and the closed
 * form within 2 %.
 */
static void test_model_newcomer(void **state)
{
	(void)state;
	th_write("newcomer.txt", "2\n0 4 3 100 4000000 0\n1 4 3 100 200000 0.0001\n");
	const char *on = "flow_model = true\nreskip = true\n";
	struct run a, b;
	run_ini(ini("newcomer.txt", "dcqcn", "none", ""), "nc-none", &a);
	run_ini(ini("newcomer.txt", "dcqcn", "wormhole", on), "nc-wh", &b);
	th_check_bytes(b.sim);
	assert_true(json_num(b.summary, "model_entries") >= 1);
	struct ws_flow_info x[2], y[2];
	for (uint32_t i = 0; i < 2; i++) {
		x[i] = (struct ws_flow_info){ WS_INIT_SIZE(struct ws_flow_info) };
		y[i] = (struct ws_flow_info){ WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(a.sim, i, &x[i]);
		ws_flow_get(b.sim, i, &y[i]);
	}
	double fa = (double)(x[1].end - x[1].start), fb = (double)(y[1].end - y[1].start);
	double la = (double)(x[0].end - x[0].start), lb = (double)(y[0].end - y[0].start);
	print_message("newcomer: packet level %.0f ps, model %.0f ps; long flow %.0f / %.0f ps\n",
		      fa, fb, la, lb);
	assert_true(fabs(fb - fa) < 0.02 * fa);
	assert_true(fabs(lb - la) < 0.005 * la);
	/* the closed form: the data part of the ideal FCT twice */
	double data = (double)y[1].wire_bytes * 8.0 / (double)y[1].path_rate * 1e12;
	double closed = (double)y[1].base_rtt + 2.0 * data;
	print_message("closed form %.0f ps\n", closed);
	assert_true(fabs(fb - closed) < 0.02 * closed);
	done(&a);
	done(&b);
}

/*
 * A flow too short to model but not to matter holds its partition in
 * packets.  Host 0 sends 1 MB to host 4, skipped alone; host 1's 2 MB
 * transfer joins it on host 4's downlink when the first has about 9 us
 * left alone (between lone_min / 2 and lone_min, lone_min the fabric's
 * largest base RTT, 12.5 us here).  Left to go on in packets beside the
 * newcomer frozen at a lone flow's rate, neither saw the other: both ran
 * at full rate through the shared port, 9.0 % and 5.2 % early.  Held, the
 * two share it in packets until the first ends; the second, alone again,
 * is skipped again (reskip): both within 0.5 % of packet level, the same
 * bytes twice.
 */
static void test_model_hold(void **state)
{
	(void)state;
	th_write("hold.txt", "2\n0 4 3 100 1000000 0\n1 4 3 100 2000000 0.0000746\n");
	const char *on = "flow_model = true\nreskip = true\n";
	struct run a, b, c;
	run_ini(ini("hold.txt", "dcqcn", "none", ""), "hold-none", &a);
	run_ini(ini("hold.txt", "dcqcn", "wormhole", on), "hold-wh", &b);
	th_check_bytes(b.sim);
	assert_true(json_num(b.summary, "model_held") >= 1);
	assert_true(json_num(b.summary, "reskip_entries") >= 1);
	th_check_fcts(a.sim, b.sim, 0.005, "wormhole (held)");
	run_ini(ini("hold.txt", "dcqcn", "wormhole", on), "hold-wh2", &c);
	assert_same_file(&b, &c, "fct.csv");
	done(&a);
	done(&b);
	done(&c);
}


/* A simulation of `ini`, importing each of `n` blobs in turn, run and
 * written to `name`. */
static void run_imports(const char *ini, const char *name, const void *const *blob,
			const size_t *len, int n, struct run *r)
{
	r->sim = th_sim(ini);
	struct ws_err err;
	for (int i = 0; i < n; i++)
		if (ws_sim_accel_import(r->sim, blob[i], len[i], &err))
			fail_msg("%s: import %d: %s", name, i, err.msg);
	th_run(r->sim);
	snprintf(r->dir, sizeof r->dir, "%s/%s", th_tmpdir(), name);
	if (ws_sim_write_outputs(r->sim, r->dir, &err))
		fail_msg("%s: %s", name, err.msg);
	r->summary = th_read(th_fmt("%s/summary.json", r->dir), NULL);
	assert_non_null(r->summary);
}

static void *export_of(struct run *r, size_t *len)
{
	void *blob;
	struct ws_err err;
	if (ws_sim_accel_export(r->sim, &blob, len, &err))
		fail_msg("export: %s", err.msg);
	return blob;
}

static void assert_same_file(const struct run *a, const struct run *b, const char *file)
{
	char *x = th_read(th_fmt("%s/%s", a->dir, file), NULL);
	char *y = th_read(th_fmt("%s/%s", b->dir, file), NULL);
	assert_non_null(x);
	assert_non_null(y);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

/* A blob's share key, format version and payload length (in its header)
 * kept, its payload replaced by `payload` with a valid checksum. */
static unsigned char *reframe(const unsigned char *blob, const void *payload, size_t n,
			      size_t *len)
{
	unsigned char *b = malloc(34 + n + 8);
	assert_non_null(b);
	memcpy(b, blob, 26);
	for (int i = 0; i < 8; i++)
		b[26 + i] = (unsigned char)((uint64_t)n >> (8 * i));
	memcpy(b + 34, payload, n);
	uint64_t sum = XXH3_64bits(b, 34 + n);
	for (int i = 0; i < 8; i++)
		b[34 + n + i] = (unsigned char)(sum >> (8 * i));
	*len = 34 + n + 8;
	return b;
}

/* The k = 6 scenario of `trace` under wormhole, after `pre` (sections of
 * its own), in one of four buffers of its own (th_fmt has one). */
static const char *share_ini(const char *pre, const char *trace, const char *cc,
			     const char *accel)
{
	static char buf[4][4096];
	static unsigned next;
	char *b = buf[next++ % 4];
	int n = snprintf(b, sizeof buf[0], "%s", pre); /* pre may be th_fmt's */
	snprintf(b + n, sizeof buf[0] - (size_t)n, "%s",
		 ini_k(6, trace, cc, accel, strncmp(accel, "wormhole", 8) ? "" : EP_ALL));
	return b;
}

/* One experiment on a thread: `ini` built, `blob` imported, run, its
 * fct.csv read into `fct` (NULL on any failure; checked by the caller). */
struct share_job {
	const char *ini, *dir;
	const void *blob;
	size_t len;
	char *fct;
};

static void *share_job_run(void *arg)
{
	struct share_job *j = arg;
	struct ws_cfg *cfg = NULL;
	struct ws_sim *sim = NULL;
	struct ws_err err;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
	if (!ws_cfg_parse_string(&cfg, j->ini, "share.ini", th_tmpdir(), &err) &&
	    !ws_sim_new(&sim, cfg, &opts, &err) &&
	    !ws_sim_accel_import(sim, j->blob, j->len, &err) &&
	    !ws_sim_run(sim, WS_TIME_NEVER, &err) && !ws_sim_write_outputs(sim, j->dir, &err)) {
		char path[700];
		snprintf(path, sizeof path, "%s/fct.csv", j->dir);
		j->fct = th_read(path, NULL);
	}
	ws_sim_free(sim);
	ws_cfg_free(cfg);
	return NULL;
}

#define SHARE_INI(trace, cc, seed) \
	share_ini(th_fmt("[sim]\nseed = %d\n", seed), trace, cc, "wormhole")

/*
 * Run A learns a repeated all-to-all's episode; run B (another seed, more
 * repetitions), importing A's export, replays it from its first
 * repetition, FCTs within 1 % of packet level, and exports only what it
 * learned itself.  The same import twice is one import; importing A then
 * E is importing A||E, byte for byte, and the same imports give the same
 * bytes.
 */
static void test_share(void **state)
{
	(void)state;
	const char *ta = a2a_trace("share-a.txt", 2, NULL);
	struct run a, a2, b, none;
	run_ini(SHARE_INI(ta, "dcqcn", 1), "share-a", &a);
	run_ini(SHARE_INI(ta, "dcqcn", 1), "share-a2", &a2);
	uint64_t ka, kb;
	assert_true(ws_sim_accel_share_key(a.sim, &ka));
	assert_true(json_num(a.summary, "episode_inserts") >= 1);
	size_t la, la2;
	void *blob_a = export_of(&a, &la), *blob_a2 = export_of(&a2, &la2);
	assert_true(la > 34 + 8);
	/* deterministic bytes */
	assert_int_equal(la, la2);
	assert_int_equal(memcmp(blob_a, blob_a2, la), 0);

	const char *tb = a2a_trace("share-b.txt", 4, NULL);
	run_ini(share_ini("[sim]\nseed = 2\n", tb, "dcqcn", "none"), "share-none", &none);
	const void *one[] = { blob_a };
	run_imports(SHARE_INI(tb, "dcqcn", 2), "share-b", one, &la, 1, &b);
	assert_true(ws_sim_accel_share_key(b.sim, &kb));
	assert_true(ka == kb);
	th_check_bytes(b.sim);
	th_check_fcts(none.sim, b.sim, 0.01, "wormhole importing a memo");
	assert_true(json_num(b.summary, "memo_imported") >= 1);
	assert_true(json_num(b.summary, "memo_imported_hits") >= 1);
	/* every repetition skipped, the first too: nothing left to learn */
	assert_true(json_num(b.summary, "episode_skips") >= 4);
	assert_int_equal(json_num(b.summary, "episode_inserts"), 0);
	size_t lb;
	void *blob_b = export_of(&b, &lb);
	assert_null(blob_b);
	assert_int_equal(lb, 0);

	/* two experiments importing the same bytes at once, on two threads:
	 * each the serial run's fct.csv */
	struct share_job jobs[2];
	pthread_t tid[2];
	char dirs[2][600];
	const char *ini_b = SHARE_INI(tb, "dcqcn", 2);
	for (int i = 0; i < 2; i++) {
		snprintf(dirs[i], sizeof dirs[i], "%s/share-thread%d", th_tmpdir(), i);
		jobs[i] = (struct share_job){ .ini = ini_b, .dir = dirs[i], .blob = blob_a,
					      .len = la };
		assert_int_equal(pthread_create(&tid[i], NULL, share_job_run, &jobs[i]), 0);
	}
	char *fct_b = th_read(th_fmt("%s/fct.csv", b.dir), NULL);
	assert_non_null(fct_b);
	for (int i = 0; i < 2; i++) {
		pthread_join(tid[i], NULL);
		assert_non_null(jobs[i].fct);
		assert_string_equal(jobs[i].fct, fct_b);
		free(jobs[i].fct);
	}
	free(fct_b);

	/* twice the same blob (two calls, or one blob of it twice) = once */
	struct run c, d;
	const void *two[] = { blob_a, blob_a };
	size_t two_len[] = { la, la };
	run_imports(SHARE_INI(tb, "dcqcn", 2), "share-c", two, two_len, 2, &c);
	assert_same_file(&b, &c, "fct.csv");
	assert_int_equal(json_num(c.summary, "memo_imported"), json_num(b.summary, "memo_imported"));
	assert_int_equal(json_num(c.summary, "memo_import_dups"),
			 json_num(b.summary, "memo_imported"));
	unsigned char *aa = malloc(2 * la);
	assert_non_null(aa);
	memcpy(aa, blob_a, la);
	memcpy(aa + la, blob_a, la);
	size_t laa = 2 * la;
	const void *cat[] = { aa };
	run_imports(SHARE_INI(tb, "dcqcn", 2), "share-d", cat, &laa, 1, &d);
	assert_same_file(&b, &d, "fct.csv");

	/* E learns other episodes (a 2-to-1 incast); A then E = A||E */
	th_write("share-e.txt", "2\n0 2 3 100 2000000 0\n1 2 3 100 2000000 0\n");
	struct run e, f, g;
	run_ini(SHARE_INI("share-e.txt", "dcqcn", 3), "share-e", &e);
	size_t le;
	void *blob_e = export_of(&e, &le);
	assert_true(le > 0);
	th_write("share-f.txt", "11\n0 2 3 100 2000000 0\n1 2 3 100 2000000 0\n"
		 "0 1 3 100 1000000 0.001\n0 2 3 100 1000000 0.001\n"
		 "1 0 3 100 1000000 0.001\n1 2 3 100 1000000 0.001\n"
		 "2 0 3 100 1000000 0.001\n2 1 3 100 1000000 0.001\n"
		 "3 5 3 100 2000000 0.002\n4 5 3 100 2000000 0.002\n"
		 "0 5 3 100 500000 0.003\n");
	const void *ae[] = { blob_a, blob_e };
	size_t ae_len[] = { la, le };
	run_imports(SHARE_INI("share-f.txt", "dcqcn", 4), "share-f", ae, ae_len, 2, &f);
	unsigned char *cae = malloc(la + le);
	assert_non_null(cae);
	memcpy(cae, blob_a, la);
	memcpy(cae + la, blob_e, le);
	size_t lae = la + le;
	const void *cat2[] = { cae };
	run_imports(SHARE_INI("share-f.txt", "dcqcn", 4), "share-g", cat2, &lae, 1, &g);
	assert_same_file(&f, &g, "fct.csv");
	char *tf = strstr(f.summary, "\"timing\""), *tg = strstr(g.summary, "\"timing\"");
	assert_non_null(tf);
	assert_non_null(tg);
	assert_int_equal(tf - f.summary, tg - g.summary);
	assert_int_equal(memcmp(f.summary, g.summary, (size_t)(tf - f.summary)), 0);
	assert_true(json_num(f.summary, "memo_imported_hits") >= 2);
	th_check_bytes(f.sim);

	free(aa);
	free(cae);
	free(blob_a);
	free(blob_a2);
	free(blob_e);
	done(&a);
	done(&a2);
	done(&b);
	done(&none);
	done(&c);
	done(&d);
	done(&e);
	done(&f);
	done(&g);
}

/* A blob from another context, a truncated or corrupt one: refused with a
 * message, nothing imported, never a crash; an accelerator that shares
 * nothing, or an import after the run, refused too. */
static void test_share_refused(void **state)
{
	(void)state;
	const char *t = a2a_trace("share-r.txt", 1, NULL);
	struct run a;
	run_ini(SHARE_INI(t, "dcqcn", 1), "share-r", &a);
	size_t la;
	unsigned char *blob = export_of(&a, &la);
	assert_true(la > 34 + 8);
	struct ws_err err;
	/* another CC, another CC parameter, another [switch] setting */
	const char *other[] = {
		share_ini("", t, "timely", "wormhole"),
		share_ini("[cc]\nrate_ai = 10Mbps\n", t, "dcqcn", "wormhole"),
		share_ini("[switch]\nbuffer = 16MiB\n", t, "dcqcn", "wormhole"),
		share_ini("", t, "dcqcn", "wormhole\ntheta = 0.1"),
	};
	uint64_t ka, ko;
	struct ws_sim *o;
	assert_true(ws_sim_accel_share_key(a.sim, &ka));
	for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
		o = th_sim(other[i]);
		assert_true(ws_sim_accel_share_key(o, &ko));
		assert_true(ko != ka);
		assert_int_equal(ws_sim_accel_import(o, blob, la, &err), WS_EINVAL);
		assert_non_null(strstr(err.msg, "part 1 (byte 0) was learned in another context"));
		ws_sim_free(o);
	}
	/* where the memo is kept is not part of the context */
	o = th_sim(share_ini("[sim]\nseed = 7\n", t, "dcqcn", "wormhole\nmemo_db = elsewhere.db"));
	assert_true(ws_sim_accel_share_key(o, &ko));
	assert_true(ko == ka);
	ws_sim_free(o);
	/* accelerators that share nothing */
	o = th_sim(ini_k(6, t, "dcqcn", "none", ""));
	assert_false(ws_sim_accel_share_key(o, &ko));
	assert_int_equal(ws_sim_accel_import(o, blob, la, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "shares nothing"));
	assert_int_equal(ws_sim_accel_import(o, blob, 0, &err), WS_OK);
	ws_sim_free(o);
	o = th_sim(ini_k(6, t, "dcqcn", "wormhole", "memo = false\n"));
	assert_false(ws_sim_accel_share_key(o, &ko));
	ws_sim_free(o);
	/* after the run */
	assert_int_equal(ws_sim_accel_import(a.sim, blob, la, &err), WS_ESTATE);

	/* damaged: every truncation, a byte flipped anywhere, a sound envelope
	 * around a damaged table, a good part after a bad one; the run then
	 * has imported nothing */
	struct ws_sim *s = th_sim(SHARE_INI(t, "dcqcn", 1));
	unsigned char *bad = malloc(2 * la);
	assert_non_null(bad);
	for (size_t n = 1; n < la; n += 1 + n / 8) {
		assert_int_equal(ws_sim_accel_import(s, blob, n, &err), WS_EINVAL);
		assert_non_null(strstr(err.msg, "accel import: part 1"));
	}
	for (size_t i = 0; i < la; i += 1 + i / 16) {
		memcpy(bad, blob, la);
		bad[i] ^= 0x40;
		assert_int_equal(ws_sim_accel_import(s, bad, la, &err), WS_EINVAL);
	}
	memcpy(bad, blob, la);
	bad[la - 1] ^= 1;
	assert_int_equal(ws_sim_accel_import(s, bad, la, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "checksum mismatch"));
	memcpy(bad, blob, la);
	memcpy(bad + la, blob, la);
	assert_int_equal(ws_sim_accel_import(s, bad, la + la / 2, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "part 2"));
	size_t lr;
	unsigned char *r = reframe(blob, blob + 34 + 13, la - 34 - 8 - 13, &lr);
	assert_int_equal(ws_sim_accel_import(s, r, lr, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "not a warpsim memo file"));
	free(r);
	/* a table whose one entry's duration is zero: impossible */
	unsigned char *tbl = malloc(la);
	assert_non_null(tbl);
	size_t lt = la - 34 - 8;
	memcpy(tbl, blob + 34, lt);
	memset(tbl + 25 + 16, 0, 8);
	uint64_t sum = XXH3_64bits(tbl, lt - 8);
	for (int i = 0; i < 8; i++)
		tbl[lt - 8 + i] = (unsigned char)(sum >> (8 * i));
	r = reframe(blob, tbl, lt, &lr);
	memcpy(bad, blob, la);
	memcpy(bad + la, r, lr);
	assert_int_equal(ws_sim_accel_import(s, bad, la + lr, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "part 2"));
	assert_non_null(strstr(err.msg, "duration 0 ps is impossible"));
	free(r);
	free(tbl);
	/* nothing was imported: the run is A's own, byte for byte */
	th_run(s);
	struct run after = { .sim = s };
	snprintf(after.dir, sizeof after.dir, "%s/share-r-after", th_tmpdir());
	if (ws_sim_write_outputs(s, after.dir, &err))
		fail_msg("%s", err.msg);
	after.summary = th_read(th_fmt("%s/summary.json", after.dir), NULL);
	assert_non_null(after.summary);
	assert_int_equal(json_num(after.summary, "memo_imported"), 0);
	assert_same_file(&a, &after, "fct.csv");
	free(after.summary);
	free(bad);
	free(blob);
	ws_sim_free(s);
	done(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bottleneck),
		cmocka_unit_test(test_lone),
		cmocka_unit_test(test_lone_learnt),
		cmocka_unit_test(test_steady_beside_acks),
		cmocka_unit_test(test_skip_back),
		cmocka_unit_test(test_memo_isomorphic),
		cmocka_unit_test(test_memo_db),
		cmocka_unit_test(test_memo_db_foreign),
		cmocka_unit_test(test_tiny_flow),
		cmocka_unit_test(test_episode_repeated),
		cmocka_unit_test(test_memo_db_episodes),
		cmocka_unit_test(test_episode_interrupted),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_port_load),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_reprobe),
		cmocka_unit_test(test_reprobe_short),
		cmocka_unit_test(test_ack_fixed_point),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_flow_model),
		cmocka_unit_test(test_model_newcomer),
		cmocka_unit_test(test_model_hold),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_share_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
