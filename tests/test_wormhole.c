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
 * (FCTs exactly packet level's), determinism.
 */
#include "th.h"

#include <inttypes.h>
#include <math.h>
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
		struct ws_sim_stats sa = { WS_INIT_SIZE(struct ws_sim_stats) }, sb = { WS_INIT_SIZE(struct ws_sim_stats) };
		ws_sim_get_stats(a.sim, &sa);
		ws_sim_get_stats(b.sim, &sb);
		assert_true(sb.events * 1000 < sa.events);
		done(&a);
		done(&b);
		run_ini(ini("lone2.txt", cc, "none", ""), th_fmt("lone2-none-%s", cc), &a);
		run_ini(ini("lone2.txt", cc, "wormhole", ""), th_fmt("lone2-wh-%s", cc), &b);
		th_check_bytes(b.sim);
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
	done(&a);
	done(&b);
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

/* A repeated all-to-all: recorded once, replayed from the second time on
 * (on other hosts too), every FCT within 1 % of packet level. */
static void test_episode_repeated(void **state)
{
	(void)state;
	const char *t = a2a_trace("a2a.txt", 4, NULL);
	for (int k = 0; k < 2; k++) {
		const char *cc = k ? "timely" : "dcqcn";
		struct run a, b;
		run_ini(ini_k(6, t, cc, "none", ""), th_fmt("a2a-none-%s", cc), &a);
		run_ini(ini_k(6, t, cc, "wormhole", ""), th_fmt("a2a-wh-%s", cc), &b);
		th_check_bytes(b.sim);
		th_check_fcts(a.sim, b.sim, 0.01, "wormhole");
		assert_true(json_num(b.summary, "episode_inserts") >= 1);
		/* every repetition after the first */
		assert_true(json_num(b.summary, "episode_skips") >= 3);
		struct ws_sim_stats sa = { WS_INIT_SIZE(struct ws_sim_stats) }, sb = { WS_INIT_SIZE(struct ws_sim_stats) };
		ws_sim_get_stats(a.sim, &sa);
		ws_sim_get_stats(b.sim, &sb);
		assert_true(sb.events * 2 < sa.events);
		done(&a);
		done(&b);
	}
	/* episodes = false: none looked up, none replayed */
	struct run c;
	run_ini(ini_k(6, t, "dcqcn", "wormhole", "episodes = false\n"), "a2a-noep", &c);
	th_check_bytes(c.sim);
	assert_int_equal(json_num(c.summary, "episode_lookups"), 0);
	assert_int_equal(json_num(c.summary, "episode_skips"), 0);
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
	run_ini(ini_k(6, t, "dcqcn", "wormhole", ""), "cut-wh", &b);
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
	char *x1 = th_read(th_fmt("%s/fct.csv", a.dir), NULL);
	char *x2 = th_read(th_fmt("%s/fct.csv", b.dir), NULL);
	assert_string_equal(x1, x2);
	free(x1);
	free(x2);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bottleneck),
		cmocka_unit_test(test_lone),
		cmocka_unit_test(test_skip_back),
		cmocka_unit_test(test_memo_isomorphic),
		cmocka_unit_test(test_memo_db),
		cmocka_unit_test(test_memo_db_foreign),
		cmocka_unit_test(test_tiny_flow),
		cmocka_unit_test(test_episode_repeated),
		cmocka_unit_test(test_episode_interrupted),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_port_load),
		cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
