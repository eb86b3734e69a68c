/* SPDX-License-Identifier: MIT */
/*
 * DCQCN's reaction point through its ops table (the CC lab: no network),
 * against its update rules replayed here step by step: the first CNP starts
 * the alpha and decrease timers; a cut R_C (1 - alpha/2) one decrease
 * interval later; fast recovery, additive and hyper-additive increase on
 * the rate-increase timer; target clamping after an increase; the minimum
 * rate; the byte counter; the paper's timer values; the lazily evaluated
 * timers costing a handful of events instead of one per microsecond; and
 * every parameter's bounds.
 *
 * Then the scenarios every CC passes (tests/ccscen.h), on a k=4 fat-tree at
 * 100 Gb/s with DCQCN's defaults (the kernel's RED band: kmin 400 KB, kmax
 * 1600 KB, pmax 0.2 at 100 Gb/s); print_message shows the figures on every
 * run, the comments give those measured when the bounds were set:
 *   - two long flows into host 0 (from hosts 4 and 8, the second 1 ms
 *     later): over 10-20 ms the shares are 0.508 / 0.492 and the link
 *     carries 98.8 % of its goodput capacity; the queue averages 188 KB;
 *   - the joining flow: the join's burst drives both flows to min_rate;
 *     the newcomer's goodput averaged over 1 ms first reaches 80 % of its
 *     fair share 1.41 ms after the join and stays there from 2.08 ms on
 *     (over shorter windows it dips below at each of DCQCN's oscillations,
 *     about one every 1.6 ms, until late in the run);
 *   - an 8-to-1 incast of 10 MB flows: no drop and no PAUSE; DCQCN does not
 *     settle at a standing queue: over the second half of the period when
 *     all eight are active, the queue swings from empty up into the
 *     marking band, to 816 KB, and back (one swing about every 1.4 ms),
 *     averaging 279 KB, below kmin; the first RTTs' burst reaches 3.97 MB;
 *   - an incast of 1 MB flows into a 1 MiB buffer stays lossless (PFC
 *     pauses absorb the burst); CNP packets (cnp_mode = packet) at most one
 *     per 50 us per flow, none by default.
 */
#include "ccscen.h"

#include <math.h>

#define L 100000000000ull /* 100 Gb/s */
#define G (1.0 / 256)

static struct ws_cc_lab *lab_new(const char *const *params)
{
	return ccs_lab_new("dcqcn", params, 0);
}

static uint64_t rate(struct ws_cc_lab *lab)
{
	return ws_cc_lab_flow(lab)->rate;
}

static void at(struct ws_cc_lab *lab, ws_time t)
{
	ws_cc_lab_advance(lab, t);
}

/* within a relative tolerance, and at least the 1 bps of truncation */
static void assert_near(uint64_t got, double want, double rel)
{
	if (fabs((double)got - want) > fmax(1.0, rel * want))
		fail_msg("got %llu, want %.0f (tolerance %.1e)", (unsigned long long)got,
			 want, rel);
}

static uint64_t avg(uint64_t a, uint64_t b)
{
	return (a + b + 1) / 2;
}

static void test_first_cnp_cut_and_recovery(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	assert_int_equal(rate(lab), L);
	/* no CNP, no timers */
	at(lab, 1 * WS_MS);
	assert_int_equal(ws_cc_lab_events(lab), 0);
	assert_int_equal(rate(lab), L);
	ws_time t0 = 1 * WS_MS;
	ws_cc_lab_cnp(lab);
	assert_int_equal(rate(lab), L); /* rate_on_first_cnp = 1 */
	/* the cut comes one decrease interval (+1 ns) later */
	ws_time cut = t0 + 4 * WS_US + WS_NS;
	at(lab, cut - 1);
	assert_int_equal(rate(lab), L);
	at(lab, cut);
	/* alpha started at 1 and decayed over 4 empty slots */
	double alpha = pow(1 - G, 4);
	uint64_t r1 = rate(lab);
	assert_near(r1, (double)L * (1 - alpha / 2), 1e-12);
	/* fast recovery one rp_timer later, towards R_T = line rate */
	at(lab, cut + 300 * WS_US - 1);
	assert_int_equal(rate(lab), r1);
	at(lab, cut + 300 * WS_US);
	uint64_t r2 = avg(r1, L);
	assert_int_equal(rate(lab), r2);
	/* then additive increase: R_T is already the line rate */
	at(lab, cut + 600 * WS_US);
	assert_int_equal(rate(lab), avg(r2, L));
	/* back to line rate, the timers stop */
	at(lab, 40 * WS_MS);
	assert_int_equal(rate(lab), L);
	uint64_t ev = ws_cc_lab_events(lab);
	at(lab, 80 * WS_MS);
	assert_int_equal(ws_cc_lab_events(lab), ev);
	ws_cc_lab_free(lab);
}

/* Replays the alpha EWMA slot by slot: boundaries every 1 us from t0. */
struct alpha_model {
	double alpha;
	ws_time next;
	bool cnp;
};

static void model_to(struct alpha_model *m, ws_time t)
{
	while (m->next <= t) {
		m->alpha = (1 - G) * m->alpha + (m->cnp ? G : 0);
		m->cnp = false;
		m->next += WS_US;
	}
}

static void test_clamp_ai_hai(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	ws_time t0 = 10 * WS_US;
	at(lab, t0);
	ws_cc_lab_cnp(lab);
	struct alpha_model m = { 1.0, t0 + WS_US, false };
	ws_time dec0 = t0 + 4 * WS_US + WS_NS;
	at(lab, dec0);
	model_to(&m, dec0);
	uint64_t r1 = rate(lab);
	assert_near(r1, L * (1 - m.alpha / 2), 1e-12);
	at(lab, dec0 + 300 * WS_US);
	uint64_t r2 = avg(r1, L); /* fast recovery: R_T = L */
	assert_int_equal(rate(lab), r2);
	/* a second CNP after an increase: R_T is clamped to R_C */
	ws_time t1 = 400 * WS_US;
	at(lab, t1);
	model_to(&m, t1);
	ws_cc_lab_cnp(lab);
	m.cnp = true;
	/* the check comes at the next boundary of the 4 us grid from dec0 */
	ws_time dec1 = dec0 + ((t1 - dec0) / (4 * WS_US) + 1) * 4 * WS_US;
	at(lab, dec1 - 1);
	assert_int_equal(rate(lab), r2);
	at(lab, dec1);
	model_to(&m, dec1);
	uint64_t r3 = rate(lab);
	assert_near(r3, r2 * (1 - m.alpha / 2), 1e-9);
	uint64_t target = r2;
	/* stage 0 (< F = 1): fast recovery towards R_T = r2 */
	at(lab, dec1 + 300 * WS_US);
	uint64_t r4 = avg(r3, target);
	assert_int_equal(rate(lab), r4);
	/* stage 1 (= F): additive increase, R_T += 20 Mb/s */
	at(lab, dec1 + 600 * WS_US);
	target += 20000000;
	uint64_t r5 = avg(r4, target);
	assert_int_equal(rate(lab), r5);
	/* stage 2 (> F): hyper-additive, R_T += 200 Mb/s */
	at(lab, dec1 + 900 * WS_US);
	target += 200000000;
	assert_int_equal(rate(lab), avg(r5, target));
	ws_cc_lab_free(lab);
}

static void test_min_rate_floor(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	for (ws_time t = 0; t < 2 * WS_MS; t += WS_US) {
		at(lab, t);
		ws_cc_lab_cnp(lab);
		assert_true(rate(lab) >= 1000000000ull);
	}
	assert_int_equal(rate(lab), 1000000000ull);
	ws_cc_lab_free(lab);
}

static void test_byte_counter(void **state)
{
	(void)state;
	/* the paper's byte counter and F = 5 */
	const char *const paper[] = { "byte_counter=1MB", "fast_recovery=5", NULL };
	struct ws_cc_lab *lab = lab_new(paper);
	ws_cc_lab_cnp(lab);
	at(lab, 4 * WS_US + WS_NS);
	uint64_t r1 = rate(lab);
	assert_true(r1 < L);
	ws_cc_lab_sent(lab, 999999);
	assert_int_equal(rate(lab), r1);
	ws_cc_lab_sent(lab, 1);
	/* an increase event without the timer: fast recovery */
	uint64_t r2 = avg(r1, L);
	assert_int_equal(rate(lab), r2);
	ws_cc_lab_sent(lab, 1000000);
	assert_int_equal(rate(lab), avg(r2, L));
	ws_cc_lab_free(lab);
	/* without a byte counter, bytes change nothing */
	lab = lab_new(NULL);
	ws_cc_lab_cnp(lab);
	at(lab, 4 * WS_US + WS_NS);
	r1 = rate(lab);
	ws_cc_lab_sent(lab, 100000000);
	assert_int_equal(rate(lab), r1);
	ws_cc_lab_free(lab);
}

static void test_paper_timers(void **state)
{
	(void)state;
	/* 50 us decrease check before the first 55 us alpha update: alpha = 1 */
	const char *const paper[] = { "alpha_interval=55us", "decrease_interval=50us",
				      "rp_timer=55us", NULL };
	struct ws_cc_lab *lab = lab_new(paper);
	ws_cc_lab_cnp(lab);
	at(lab, 50 * WS_US + WS_NS);
	assert_int_equal(rate(lab), L / 2);
	at(lab, 105 * WS_US + WS_NS);
	assert_int_equal(rate(lab), avg(L / 2, L));
	ws_cc_lab_free(lab);
}

static void test_rate_on_first_cnp(void **state)
{
	(void)state;
	const char *const half[] = { "rate_on_first_cnp=0.5", NULL };
	struct ws_cc_lab *lab = lab_new(half);
	ws_cc_lab_cnp(lab);
	assert_int_equal(rate(lab), L / 2);
	ws_cc_lab_free(lab);
}

static void test_ack_with_ecn_echo_is_a_cnp(void **state)
{
	(void)state;
	/* cnp_mode = ack (the reference): an ACK echoing CE acts as a CNP */
	struct ws_cc_lab *lab = lab_new(NULL);
	struct ws_cc_ack plain = { .seq = 1000, .newly_acked = 1000, .packets = 1 };
	ws_cc_lab_ack(lab, &plain);
	at(lab, 10 * WS_US);
	assert_int_equal(rate(lab), L);
	struct ws_cc_ack marked = { .seq = 2000, .newly_acked = 1000, .packets = 1,
				    .ce_packets = 1, .ecn_echo = true };
	ws_cc_lab_ack(lab, &marked);
	at(lab, 20 * WS_US);
	assert_true(rate(lab) < L);
	ws_cc_lab_free(lab);
	/* cnp_mode = packet: an echo in an ACK is not a notification */
	const char *const pkt[] = { "cnp_mode=packet", NULL };
	lab = lab_new(pkt);
	ws_cc_lab_ack(lab, &marked);
	at(lab, 20 * WS_US);
	assert_int_equal(rate(lab), L);
	ws_cc_lab_free(lab);
}

static void test_lazy_timers_are_cheap(void **state)
{
	(void)state;
	/* the reference runs an alpha timer every 1 us and a decrease check
	 * every 4 us per flow: 25000 events in 20 ms.  Evaluated lazily, a
	 * single CNP costs one decrease check and the increase timers until
	 * the rate is back at line rate (about 36 halvings of the gap) */
	struct ws_cc_lab *lab = lab_new(NULL);
	ws_cc_lab_cnp(lab);
	at(lab, 20 * WS_MS);
	assert_true(ws_cc_lab_events(lab) < 50);
	assert_int_equal(rate(lab), L);
	ws_cc_lab_free(lab);
}

static void expect_bad_param(const char *kv, const char *part)
{
	ccs_expect_bad_param("dcqcn", kv, part);
}

static void test_parameter_bounds(void **state)
{
	(void)state;
	expect_bad_param("g=2", "out of range (expected 0 to 1)");
	expect_bad_param("g=-0.1", "out of range");
	expect_bad_param("alpha_interval=0s", "out of range (expected 1ns to 1s)");
	expect_bad_param("decrease_interval=2s", "out of range");
	expect_bad_param("rp_timer=0ns", "out of range");
	expect_bad_param("fast_recovery=101", "out of range (expected 0 to 100)");
	expect_bad_param("rate_ai=2Tbps", "out of range (expected 0bps to 1Tbps)");
	expect_bad_param("rate_ai=300Mbps", "rate_ai (300000000 bps) above rate_hai");
	expect_bad_param("min_rate=0bps", "out of range (expected 1bps to 1Tbps)");
	expect_bad_param("rate_on_first_cnp=1.5", "out of range");
	expect_bad_param("cnp_mode=sometimes", "expected one of: ack, packet");
	expect_bad_param("cnp_interval=5s", "out of range");
	expect_bad_param("clamp_target=maybe", "expected true or false");
	expect_bad_param("byte_counter=-1MB", "cannot be negative");
	expect_bad_param("rate_aii=1Mbps", "did you mean 'rate_ai'?");
}

/* ---- scenarios ---------------------------------------------------------------- */

#define GOODPUT ccs_goodput_max(CCS_WIRE)
#define KMIN 400000.0  /* bytes: the kernel's default band at 100 Gb/s */
#define KMAX 1600000.0

static void test_two_flows_fair(void **state)
{
	(void)state;
	const struct ccs_two_flows *r = ccs_two_flows("dcqcn", NULL);
	struct ccs_interval iv;
	ccs_two_flows_over(r, CCS_RUN / 2, CCS_RUN, GOODPUT, NULL, &iv);
	/* measured 0.508 / 0.492 and 98.8 % */
	assert_true(iv.share > 0.475 && iv.share < 0.525);
	assert_true(iv.util > 0.9);
	assert_true(iv.util <= 1.0001);
	assert_true(r->stats.ecn_marks > 0);
	assert_int_equal(r->stats.drops, 0);
}

static void test_join_converges(void **state)
{
	(void)state;
	const struct ccs_two_flows *r = ccs_two_flows("dcqcn", NULL);
	ws_time reach = ccs_join_reach(r, GOODPUT / 2, 0.8, WS_MS);
	ws_time hold = ccs_join_time(r, GOODPUT / 2, 0.8, WS_MS);
	uint64_t lowest = ccs_join_lowest_rate(r, 500 * WS_US);
	print_message("DCQCN join: lowest rate %.2f Gb/s in the first 500 us; goodput "
		      "over 1 ms at 80 %% of the fair share (%.1f Gb/s) first %.0f us "
		      "after the join, and from %.0f us on\n", (double)lowest / 1e9,
		      GOODPUT / 2e9, (double)reach / WS_US, (double)hold / WS_US);
	/* measured 1410 us and 2080 us */
	assert_true(reach <= 2 * WS_MS);
	assert_true(hold <= 3 * WS_MS);
}

static void test_incast_queue_in_band(void **state)
{
	(void)state;
	struct ccs_incast r;
	ccs_incast_run(&r, "dcqcn", NULL, 10000000, "32 MiB buffer");
	ccs_incast_assert_lossless(&r);
	assert_int_equal(r.stats.pfc_pauses, 0); /* ECN keeps it far below PFC */
	assert_true(r.stats.ecn_marks > 0);
	/* the second half starts well after the first RTTs' burst (measured:
	 * all eight active for 6.95 ms, the burst drained by 1.5 ms) */
	assert_true(r.all_active > 4 * WS_MS);
	/* measured: from 0 to 816 KB, 279 KB on average.  The queue climbs
	 * into the band, where the marks turn it back, and never nears kmax;
	 * DCQCN's cuts then drain it, so on average it stays below kmin */
	assert_true(r.max > KMIN && r.max < KMAX);
	assert_true(r.avg > KMIN / 4 && r.avg < KMIN);
	/* a 1 MiB buffer: PFC absorbs the burst, still lossless */
	ccs_incast_run(&r, "dcqcn", "[switch]\nbuffer = 1MiB\n", 1000000, "1 MiB buffer");
	ccs_incast_assert_lossless(&r);
}

static void test_cnp_packets(void **state)
{
	(void)state;
	/* the paper's notification point: CNP packets, at most one per 50 us
	 * per flow */
	struct ws_sim *sim = ccs_sim("dcqcn", "cnp_mode = packet\n", ccs_incast_flows(1000000));
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_true(st.cnps > 0);
	assert_true(st.cnps <= CCS_INCAST_N * (st.now / (50 * WS_US) + 1));
	ws_sim_free(sim);
	/* the reference: no CNP packet, ACKs carry the notification */
	sim = ccs_sim("dcqcn", NULL, ccs_incast_flows(1000000));
	th_run(sim);
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.cnps, 0);
	uint64_t notified = 0;
	for (uint32_t i = 0; i < CCS_INCAST_N; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(sim, i, &fi);
		notified += fi.cnps;
	}
	assert_true(notified > 0);
	ws_sim_free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_cnp_cut_and_recovery),
		cmocka_unit_test(test_clamp_ai_hai),
		cmocka_unit_test(test_min_rate_floor),
		cmocka_unit_test(test_byte_counter),
		cmocka_unit_test(test_paper_timers),
		cmocka_unit_test(test_rate_on_first_cnp),
		cmocka_unit_test(test_ack_with_ecn_echo_is_a_cnp),
		cmocka_unit_test(test_lazy_timers_are_cheap),
		cmocka_unit_test(test_parameter_bounds),
		cmocka_unit_test(test_two_flows_fair),
		cmocka_unit_test(test_join_converges),
		cmocka_unit_test(test_incast_queue_in_band),
		cmocka_unit_test(test_cnp_packets),
	};
	return cmocka_run_group_tests_name("dcqcn", tests, NULL, ccs_teardown);
}
