/* SPDX-License-Identifier: MIT */
/*
 * DCTCP (as a rate) through its ops table (the CC lab: no network),
 * against its rules replayed step by step: the first window only records
 * its size; alpha <- (1 - g) alpha + g min(1, marked / batch) once per
 * window, with the exact fraction, counting marked packets; one cut R (1 -
 * alpha / 2) per window (CWR until the ACK passes the snd_nxt of the cut);
 * one additive increase per window outside CWR; alpha decaying without
 * marks; min_rate and the line rate; the window tracking max BDP x R /
 * line rate; and the parameters' bounds.
 *
 * Then the scenarios every CC passes (tests/ccscen.h), on a k=4 fat-tree
 * at 100 Gb/s with the published settings (switch: K = 300 KB, Pmax 1),
 * measured and asserted with a margin (print_message shows the numbers on
 * every run):
 *   - two long flows into host 0 (from hosts 4 and 8, the second 1 ms
 *     later): with the reference's variable window the two windows (each
 *     max BDP x R / line rate) hold the queue at 171 KB, below K: no mark,
 *     both stay at line rate, window-limited, and split the link 0.500 /
 *     0.500 at 100 % of its goodput capacity over 10-20 ms.  Without the
 *     window (window = false) the ECN law alone does it: 0.499 / 0.501
 *     at 95.5 %;
 *   - an 8-to-1 incast of 10 MB flows with PFC: no drop, no PAUSE; the
 *     bottleneck queue averages 291 KB over the second half of the period
 *     when all eight are active (K = 300 KB), between 235 and 305 KB;
 *   - the joining flow has 80 % of its fair share in every 10 us from 30 us
 *     after the join (window-limited from the start); with the rate law
 *     alone its 500 us average first reaches 80 % of the fair share 3.28 ms
 *     after the join and stays there from 3.78 ms on.
 */
#include "ccscen.h"

#include <math.h>

#define L 100000000000ull /* 100 Gb/s */
#define MIN_RATE 1000000000ull
#define AI 615000000ull
#define G 0.0625

/* ---- the CC lab ------------------------------------------------------------- */

static struct ws_cc_lab *lab_new(const char *const *params)
{
	return ccs_lab_new("dctcp", params, 0);
}

static uint64_t rate(struct ws_cc_lab *lab)
{
	return ws_cc_lab_flow(lab)->rate;
}

/* An ACK up to `seq` covering `packets`, `ce` of them CE-marked. */
static void ack_n(struct ws_cc_lab *lab, uint64_t seq, uint32_t packets, uint32_t ce)
{
	struct ws_cc_ack a = { .seq = seq, .newly_acked = 1000ull * packets,
			       .rtt = 10 * WS_US, .packets = packets,
			       .ce_packets = ce, .ecn_echo = ce > 0 };
	ws_cc_lab_ack(lab, &a);
}

static void ack(struct ws_cc_lab *lab, uint64_t seq, bool ce)
{
	ack_n(lab, seq, 1, ce ? 1 : 0);
}

static uint64_t cut(uint64_t r, double alpha)
{
	double c = (double)r * (1 - alpha / 2);
	return c < (double)MIN_RATE ? MIN_RATE : (uint64_t)c;
}

static double ewma(double alpha, double frac)
{
	return (1 - G) * alpha + G * frac;
}

/* The window the reference's variable window gives at the flow's rate. */
static void check_window(struct ws_cc_lab *lab)
{
	const struct ws_cc_flow *f = ws_cc_lab_flow(lab);
	__extension__ typedef unsigned __int128 u128;
	uint64_t w = (uint64_t)((u128)f->max_bdp * f->rate / f->line_rate);
	assert_int_equal(f->window, w ? w : 1);
}

static void test_init(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	const struct ws_cc_flow *f = ws_cc_lab_flow(lab);
	assert_int_equal(rate(lab), L);
	/* the window is the fabric's largest BDP: 10 us at 100 Gb/s */
	assert_int_equal(f->max_bdp, 125000);
	assert_int_equal(f->window, 125000);
	/* ACKs without marks at line rate change nothing */
	ws_cc_lab_sent(lab, 100000);
	for (uint64_t s = 1000; s <= 100000; s += 1000) {
		ack(lab, s, false);
		assert_int_equal(rate(lab), L);
		assert_int_equal(f->window, 125000);
	}
	assert_int_equal(ws_cc_lab_events(lab), 0); /* no timers */
	ws_cc_lab_free(lab);
}

static void test_alpha_exact_fraction(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	ws_cc_lab_sent(lab, 10000); /* snd_nxt 10000 */
	/* the first ACK records the window: batch 10000 / 1000 + 1 = 11 */
	ack(lab, 1000, false);
	assert_int_equal(rate(lab), L);
	/* a mark: alpha is still 1, the cut halves the rate; CWR to 10000 */
	ack(lab, 2000, true);
	uint64_t r = L / 2;
	assert_int_equal(rate(lab), r);
	check_window(lab);
	ack(lab, 3000, true);
	ack(lab, 4000, false);
	ack(lab, 5000, true);
	ws_cc_lab_sent(lab, 10000); /* snd_nxt 20000 */
	for (uint64_t s = 6000; s <= 10000; s += 1000)
		ack(lab, s, s == 6000);
	assert_int_equal(rate(lab), r); /* one cut per window */
	/* past 10000: 4 marked of a batch of 11; new batch (20000 - 11000) /
	 * 1000 + 1 = 10; CWR ends; additive increase */
	ack(lab, 11000, false);
	double alpha = ewma(1.0, 4.0 / 11.0);
	r += AI;
	assert_int_equal(rate(lab), r);
	check_window(lab);
	/* the next mark cuts with that alpha */
	ack(lab, 12000, true);
	r = cut(r, alpha);
	assert_int_equal(rate(lab), r);
	check_window(lab);
	/* two more marks in this window: 3 of 10 */
	for (uint64_t s = 13000; s <= 20000; s += 1000)
		ack(lab, s, s == 15000 || s == 17000);
	assert_int_equal(rate(lab), r);
	ws_cc_lab_sent(lab, 10000); /* snd_nxt 30000 */
	ack(lab, 21000, false);
	alpha = ewma(alpha, 3.0 / 10.0);
	r += AI;
	assert_int_equal(rate(lab), r);
	ack(lab, 22000, true);
	r = cut(r, alpha);
	assert_int_equal(rate(lab), r);
	check_window(lab);
	ws_cc_lab_free(lab);
}

static void test_fraction_capped_at_one(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	ws_cc_lab_sent(lab, 2000);
	ack(lab, 1000, true); /* first: batch 3; a cut at alpha 1 */
	uint64_t r = L / 2;
	assert_int_equal(rate(lab), r);
	ack(lab, 2000, true);
	ws_cc_lab_sent(lab, 1000); /* snd_nxt 3000 */
	ack_n(lab, 3000, 3, 3);
	/* 5 marks for a batch of 3: frac = min(1, 5 / 3), alpha stays 1 (it
	 * would be 1.04 uncapped); CWR (to 2000) ends and the echo cuts at
	 * once, so no increase */
	r = cut(r, 1.0);
	assert_int_equal(rate(lab), r);
	ws_cc_lab_free(lab);
}

static void test_counts_marked_packets(void **state)
{
	(void)state;
	/* with one ACK per 4 packets, an ACK covering 3 marked packets counts
	 * 3 (the reference counts ACKs with the echo: 1) */
	struct ws_cc_lab *lab = lab_new(NULL);
	ws_cc_lab_sent(lab, 10000);
	ack_n(lab, 1000, 1, 0); /* first: batch 11 */
	ack_n(lab, 5000, 4, 3); /* cut at alpha 1; CWR to 10000 */
	uint64_t r = L / 2;
	assert_int_equal(rate(lab), r);
	ws_cc_lab_sent(lab, 10000);
	ack_n(lab, 9000, 4, 0);
	ack_n(lab, 11000, 2, 0); /* 3 of 11 */
	double alpha = ewma(1.0, 3.0 / 11.0);
	r += AI;
	assert_int_equal(rate(lab), r);
	ack_n(lab, 12000, 1, 1);
	assert_int_equal(rate(lab), cut(r, alpha));
	ws_cc_lab_free(lab);
}

static void test_one_cut_per_window(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	ws_cc_lab_sent(lab, 10000);
	ack(lab, 1000, false);
	ws_cc_lab_sent(lab, 10000); /* snd_nxt 20000 */
	ack(lab, 2000, true);       /* cut; CWR until an ACK passes 20000 */
	uint64_t r = L / 2;
	assert_int_equal(rate(lab), r);
	/* every ACK up to 20000 is marked: no further cut */
	for (uint64_t s = 3000; s <= 20000; s += 1000) {
		if (s == 11000) /* a new batch here, but CWR: no increase */
			ws_cc_lab_sent(lab, 10000); /* snd_nxt 30000 */
		ack(lab, s, true);
		assert_int_equal(rate(lab), r);
	}
	/* the ACK past 20000 ends CWR; it echoes CE: the second cut, with the
	 * alpha of the window that ended at 11000: 10 marks (2000..11000, the
	 * ACK that ends a window counts in it) of a batch of 11 */
	ack(lab, 21000, true);
	double alpha = ewma(1.0, 10.0 / 11.0);
	r = cut(r, alpha);
	assert_int_equal(rate(lab), r);
	for (uint64_t s = 22000; s <= 30000; s += 1000) {
		ack(lab, s, true);
		assert_int_equal(rate(lab), r);
	}
	ws_cc_lab_free(lab);
}

static void test_one_increase_per_window(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	ws_cc_lab_sent(lab, 10000);
	ack(lab, 1000, false);
	ack(lab, 2000, true);
	uint64_t r = L / 2;
	double alpha = 1.0;
	uint64_t seq = 2000;
	/* windows of 10 packets without marks: one increase each, on the
	 * first ACK past the window's end */
	for (int w = 0; w < 20; w++) {
		uint64_t end = ws_cc_lab_flow(lab)->snd_nxt;
		ws_cc_lab_sent(lab, 10000);
		for (seq += 1000; seq <= end; seq += 1000) {
			ack(lab, seq, false);
			assert_int_equal(rate(lab), r);
		}
		ack(lab, seq, false);
		/* the batch: 11 packets at first, then 10 */
		alpha = ewma(alpha, w == 0 ? 1.0 / 11.0 : 0.0);
		r += AI;
		assert_int_equal(rate(lab), r);
		check_window(lab);
	}
	/* the increases stop at the line rate */
	for (int w = 0; w < 100; w++) {
		ws_cc_lab_sent(lab, 1000);
		ack(lab, ws_cc_lab_flow(lab)->snd_nxt, false);
		alpha = ewma(alpha, 0.0);
		assert_true(rate(lab) <= L);
	}
	assert_int_equal(rate(lab), L);
	assert_int_equal(ws_cc_lab_flow(lab)->window, ws_cc_lab_flow(lab)->max_bdp);
	/* alpha followed every window */
	ack(lab, ws_cc_lab_flow(lab)->snd_nxt, true);
	assert_int_equal(rate(lab), cut(L, alpha));
	ws_cc_lab_free(lab);
}

static void test_alpha_decays_without_marks(void **state)
{
	(void)state;
	for (int windows = 0; windows <= 40; windows += 8) {
		struct ws_cc_lab *lab = lab_new(NULL);
		ws_cc_lab_sent(lab, 10000);
		ack(lab, 1000, false); /* first: records the window */
		double alpha = 1.0;
		for (int w = 0; w < windows; w++) {
			uint64_t end = ws_cc_lab_flow(lab)->snd_nxt;
			ws_cc_lab_sent(lab, 10000);
			ack(lab, end + 1000, false);
			alpha = ewma(alpha, 0.0);
		}
		assert_int_equal(rate(lab), L);
		ack(lab, ws_cc_lab_flow(lab)->snd_nxt - 8000, true);
		assert_int_equal(rate(lab), cut(L, alpha));
		if (windows == 40)
			assert_true(alpha < 0.08 && rate(lab) > L * 96 / 100);
		ws_cc_lab_free(lab);
	}
}

static void test_floor_and_window(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	uint64_t seq = 0;
	/* every packet marked: alpha stays 1, one halving per window */
	for (int w = 0; w < 12; w++) {
		ws_cc_lab_sent(lab, 1000);
		ack(lab, seq += 1000, true);
		assert_true(rate(lab) >= MIN_RATE);
		check_window(lab);
	}
	assert_int_equal(rate(lab), MIN_RATE);
	assert_int_equal(ws_cc_lab_flow(lab)->window, 1250); /* 125 KB x 1 / 100 */
	ws_cc_lab_free(lab);
	/* another floor, gain and increase */
	lab = lab_new((const char *const[]){ "min_rate=40Gbps", "g=0.5",
					     "rate_ai=5Gbps", NULL });
	ws_cc_lab_sent(lab, 1000);
	ack(lab, 1000, true); /* alpha 1: 50 Gb/s */
	assert_int_equal(rate(lab), L / 2);
	ws_cc_lab_sent(lab, 1000);
	ack(lab, 2000, true); /* alpha = 0.5 + 0.5 x min(1, 2/2) = 1: 40 Gb/s floor */
	assert_int_equal(rate(lab), 40000000000ull);
	ws_cc_lab_sent(lab, 1000);
	ack(lab, 3000, false); /* alpha = 0.5; +5 Gb/s */
	assert_int_equal(rate(lab), 45000000000ull);
	ws_cc_lab_sent(lab, 1000);
	/* the ACK's own mark counts: alpha = 0.5 x 0.5 + 0.5 x 1 = 0.75, and
	 * 45 x (1 - 0.375) = 28 Gb/s is floored at 40 */
	ack(lab, 4000, true);
	assert_int_equal(rate(lab), 40000000000ull);
	ws_cc_lab_free(lab);
	/* alpha_init: a new flow's first cut */
	lab = lab_new((const char *const[]){ "alpha_init=0.2", NULL });
	ws_cc_lab_sent(lab, 1000);
	ack(lab, 1000, true);
	assert_int_equal(rate(lab), cut(L, 0.2));
	ws_cc_lab_free(lab);
	/* window = false leaves the window to [nic] window (none here) */
	lab = lab_new((const char *const[]){ "window=false", NULL });
	assert_int_equal(ws_cc_lab_flow(lab)->window, 0);
	ws_cc_lab_sent(lab, 1000);
	ack(lab, 1000, true);
	assert_int_equal(rate(lab), L / 2);
	assert_int_equal(ws_cc_lab_flow(lab)->window, 0);
	ws_cc_lab_free(lab);
}

static void expect_bad_param(const char *kv, const char *part)
{
	ccs_expect_bad_param("dctcp", kv, part);
}

static void test_parameter_bounds(void **state)
{
	(void)state;
	expect_bad_param("g=1.5", "out of range (expected 0 to 1)");
	expect_bad_param("g=-0.0625", "out of range (expected 0 to 1)");
	expect_bad_param("alpha_init=2", "out of range (expected 0 to 1)");
	expect_bad_param("rate_ai=2Tbps", "out of range (expected 0bps to 1Tbps)");
	expect_bad_param("rate_ai=615", "missing unit");
	expect_bad_param("min_rate=0bps", "out of range (expected 1bps to 1Tbps)");
	expect_bad_param("min_rate=-1Gbps", "a rate cannot be negative");
	expect_bad_param("window=sometimes", "expected true or false");
	expect_bad_param("ecn_kmin=300KB", "unknown key 'ecn_kmin'");
	expect_bad_param("rate_aj=1Gbps", "did you mean 'rate_ai'?");
}

static void test_published_defaults(void **state)
{
	(void)state;
	static const char *const want[] = {
		"\ng = 0.0625\n", "\nalpha_init = 1\n", "\nrate_ai = 615Mbps\n",
		"\nmin_rate = 1Gbps\n", "\nwindow = true\n",
		NULL,
	};
	ccs_expect_defaults("dctcp", want);
}

/* ---- scenarios ----------------------------------------------------------------- */

/* The reference's DCTCP marking: every packet above K = 300 KB at 100 Gb/s. */
#define DCTCP_SWITCH "[switch]\necn_kmin = 300KB\necn_kmax = 300KB\necn_pmax = 1\n"
#define RATE_ONLY "window = false\n" DCTCP_SWITCH
#define K 300000.0
#define GOODPUT ccs_goodput_max(CCS_WIRE)

static void test_two_flows_share_the_link(void **state)
{
	(void)state;
	const struct ccs_two_flows *r = ccs_two_flows("dctcp", DCTCP_SWITCH);
	struct ccs_interval iv;
	ccs_two_flows_over(r, CCS_RUN / 2, CCS_RUN, GOODPUT, "variable window", &iv);
	/* measured 0.500 / 0.500 and 100.0 %: the windows do it, no mark */
	assert_true(iv.share > 0.35 && iv.share < 0.65);
	assert_true(iv.util > 0.85);
	assert_true(iv.util <= 1.0001);
	assert_int_equal(r->stats.drops, 0);
	assert_int_equal(r->stats.ecn_marks, 0); /* the queue stays below K */
	r = ccs_two_flows("dctcp", RATE_ONLY);
	ccs_two_flows_over(r, CCS_RUN / 2, CCS_RUN, GOODPUT, "rate only", &iv);
	/* measured 0.499 / 0.501 and 95.5 % */
	assert_true(iv.share > 0.35 && iv.share < 0.65);
	assert_true(iv.util > 0.85);
	assert_true(iv.util <= 1.0001);
	assert_int_equal(r->stats.drops, 0);
	assert_true(r->stats.ecn_marks > 0);
}

static void test_join_converges(void **state)
{
	(void)state;
	/* window-limited from the start: from when on is every 10 us at 80 %
	 * of the fair share or more? */
	ws_time hold = ccs_join_time(ccs_two_flows("dctcp", DCTCP_SWITCH), GOODPUT / 2, 0.8,
				     CCS_BIN);
	const struct ccs_two_flows *r = ccs_two_flows("dctcp", RATE_ONLY);
	ws_time reach = ccs_join_reach(r, GOODPUT / 2, 0.8, 500 * WS_US);
	ws_time rate_hold = ccs_join_time(r, GOODPUT / 2, 0.8, 500 * WS_US);
	print_message("DCTCP join: with the window, at 80 %% of the fair share in every "
		      "10 us from %.0f us after the join; rate only, 500 us average at "
		      "80 %% %.0f us after the join, and from %.0f us on\n",
		      (double)hold / WS_US, (double)reach / WS_US, (double)rate_hold / WS_US);
	/* measured 30 us, 3280 us and 3780 us */
	assert_true(hold <= 100 * WS_US);
	assert_true(reach <= 4 * WS_MS);
	assert_true(rate_hold <= 4500 * WS_US);
}

static void test_incast_queue_near_k(void **state)
{
	(void)state;
	struct ccs_incast r;
	ccs_incast_run(&r, "dctcp", DCTCP_SWITCH, 10000000, "32 MiB buffer");
	ccs_incast_assert_lossless(&r);
	assert_int_equal(r.stats.pfc_pauses, 0); /* ECN keeps the queue far below PFC */
	assert_true(r.stats.ecn_marks > 0);
	/* measured: all eight active for 6.0 ms */
	assert_true(r.all_active > 4 * WS_MS);
	/* measured: average 291 KB, 235-305 KB */
	assert_true(r.avg > 0.8 * K && r.avg < 1.1 * K);
	assert_true((double)r.max < 1.2 * K);
	assert_true((double)r.min > 0.5 * K);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_alpha_exact_fraction),
		cmocka_unit_test(test_fraction_capped_at_one),
		cmocka_unit_test(test_counts_marked_packets),
		cmocka_unit_test(test_one_cut_per_window),
		cmocka_unit_test(test_one_increase_per_window),
		cmocka_unit_test(test_alpha_decays_without_marks),
		cmocka_unit_test(test_floor_and_window),
		cmocka_unit_test(test_parameter_bounds),
		cmocka_unit_test(test_published_defaults),
		cmocka_unit_test(test_two_flows_share_the_link),
		cmocka_unit_test(test_join_converges),
		cmocka_unit_test(test_incast_queue_near_k),
	};
	return cmocka_run_group_tests_name("dctcp", tests, NULL, ccs_teardown);
}
