/* SPDX-License-Identifier: MIT */
/*
 * TIMELY through its ops table (the CC lab: no network), against its update
 * rules step by step: the first ACK past the recorded sequence only records
 * the RTT; one update per RTT; additive increase below t_low; the decrease
 * R (1 - beta (1 - t_high / rtt)) above t_high; the EWMA of RTT differences
 * and the gradient decrease R (1 - beta gradient), floored at 0; the switch
 * to hyper-active increase after hai_threshold increases in a row and its
 * reset on a decrease; the min_rate floor and line-rate cap; a replay of a
 * long pseudo-random RTT sequence against a model of the rules; and the
 * parameters' bounds.
 *
 * Then the scenarios every CC passes (tests/ccscen.h), on a k=4 fat-tree
 * at 100 Gb/s with the published parameters, measured and asserted with a
 * margin (the numbers are in the comments; print_message shows them on
 * every run):
 *   - two long flows into host 0 (from hosts 4 and 8, the second 1 ms
 *     later): over 10-20 ms the shares are 0.510 / 0.490 and the link
 *     carries 87.4 % of its goodput capacity.  TIMELY settles near fair
 *     here because the join drives both flows to min_rate at once (the
 *     RTT gradient exceeds 1/beta) and they climb back in step; it keeps
 *     oscillating (a sawtooth of about 1.2 ms, the queue swinging between
 *     0 and ~600 KB), which is what costs the 12 %;
 *   - an 8-to-1 incast of 10 MB flows with PFC: no drop, every byte
 *     delivered; the bottleneck queue averages 210 KB over the second half
 *     of the period when all eight are active (RTT about 30 us, below
 *     t_low), peaks at 0.83 MB then, far below t_high x line rate
 *     (6.25 MB); the transient at the start, before the first updates,
 *     reaches 5.9 MB (reported, not asserted);
 *   - the joining flow: both flows fall to min_rate about 100 us after
 *     the join, and the new flow's goodput, averaged over 500 us, first
 *     reaches 80 % of its fair share 1.54 ms after the join (rate_ai x 5,
 *     then rate_hai per RTT from 1 Gb/s).  It does not hold it: each
 *     sawtooth takes both flows below it for a few hundred us, and the
 *     shares drift by a few % over several periods, so only an average
 *     over 3 ms holds 80 % from the first window on (3.41 ms after the
 *     join).
 */
#include "ccscen.h"

#include <math.h>

#define L 100000000000ull /* 100 Gb/s */
#define MIN_RATE 1000000000ull
#define AI 100000000ull
#define HAI 500000000ull

/* ---- the CC lab ------------------------------------------------------------- */

static struct ws_cc_lab *lab_new(const char *const *params)
{
	return ccs_lab_new("timely", params, 0);
}

static uint64_t rate(struct ws_cc_lab *lab)
{
	return ws_cc_lab_flow(lab)->rate;
}

static void ack(struct ws_cc_lab *lab, uint64_t seq, ws_time rtt)
{
	struct ws_cc_ack a = { .seq = seq, .newly_acked = 1000, .rtt = rtt,
			       .packets = 1 };
	ws_cc_lab_ack(lab, &a);
}

/*
 * One round trip: ten more packets leave, then an ACK arrives for data sent
 * after the previous update (half of the new packets), carrying `rtt`.
 * The plugin then records snd_nxt, so the next round is again one update.
 */
static void round_trip(struct ws_cc_lab *lab, ws_time rtt)
{
	ws_cc_lab_sent(lab, 10000);
	ack(lab, ws_cc_lab_flow(lab)->snd_nxt - 5000, rtt);
}

/* The decrease factors of the rules, with the default beta and t_high. */
static double above_t_high(ws_time rtt)
{
	return 1 - 0.8 * (1 - (double)(500 * WS_US) / (double)rtt);
}

static uint64_t times(uint64_t r, double factor)
{
	return (uint64_t)((double)r * factor);
}

static void test_first_update_only_records_rtt(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	assert_int_equal(rate(lab), L);
	assert_int_equal(ws_cc_lab_flow(lab)->window, 0); /* no window (HAS_WIN 0) */
	/* a huge RTT on the first ACK changes nothing: there is no previous RTT */
	round_trip(lab, 5 * WS_MS);
	assert_int_equal(rate(lab), L);
	/* the next round trip compares with it: 1 ms after 5 ms is a falling
	 * RTT, but above t_high the rule is the t_high decrease */
	round_trip(lab, 1 * WS_MS);
	assert_int_equal(rate(lab), times(L, above_t_high(1 * WS_MS)));
	assert_int_equal(ws_cc_lab_events(lab), 0); /* no timers */
	ws_cc_lab_free(lab);
}

static void test_increase_below_t_low(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	round_trip(lab, 20 * WS_US);
	round_trip(lab, 1000 * WS_US);
	uint64_t r = times(L, above_t_high(1000 * WS_US));
	assert_int_equal(rate(lab), r);
	/* below t_low every update increases, even with a rising RTT */
	const ws_time rtts[] = { 12 * WS_US, 30 * WS_US, 49 * WS_US, 49999999 };
	for (size_t i = 0; i < WS_ARRAY_LEN(rtts); i++) {
		round_trip(lab, rtts[i]);
		r += AI;
		assert_int_equal(rate(lab), r);
	}
	ws_cc_lab_free(lab);
}

static void test_decrease_above_t_high(void **state)
{
	(void)state;
	const ws_time rtts[] = { 500 * WS_US + 1, 600 * WS_US, 1000 * WS_US,
				 2500 * WS_US, 100 * WS_MS };
	struct ws_cc_lab *lab = lab_new(NULL);
	round_trip(lab, 20 * WS_US);
	uint64_t r = L;
	for (size_t i = 0; i < WS_ARRAY_LEN(rtts); i++) {
		round_trip(lab, rtts[i]);
		r = times(r, above_t_high(rtts[i]));
		if (r < MIN_RATE)
			r = MIN_RATE;
		assert_int_equal(rate(lab), r);
	}
	/* 100 ms: the factor is 1 - 0.8 x 0.995 = 0.204 */
	assert_true(rate(lab) < L / 10);
	ws_cc_lab_free(lab);
	/* the bounds belong to the gradient band: at exactly t_low a rising RTT
	 * decreases (gradient 0.875 x 10 / 20, factor 0.65) ... */
	lab = lab_new(NULL);
	round_trip(lab, 40 * WS_US);
	round_trip(lab, 50 * WS_US);
	assert_int_equal(rate(lab), times(L, 1 - 0.8 * ((0.875 * 10e6) / 20e6)));
	ws_cc_lab_free(lab);
	/* ... and at exactly t_high the gradient rule applies, not the t_high
	 * factor (which would be 1): gradient 4.375, floored at min_rate */
	lab = lab_new(NULL);
	round_trip(lab, 400 * WS_US);
	round_trip(lab, 500 * WS_US);
	assert_int_equal(rate(lab), MIN_RATE);
	ws_cc_lab_free(lab);
	/* the factor with another beta and t_high */
	const char *const p[] = { "beta=0.5", "t_high=200us", NULL };
	lab = lab_new(p);
	round_trip(lab, 20 * WS_US);
	round_trip(lab, 800 * WS_US);
	assert_int_equal(rate(lab), times(L, 1 - 0.5 * (1 - 200.0 / 800.0)));
	ws_cc_lab_free(lab);
}

static void test_gradient_decrease(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	round_trip(lab, 100 * WS_US);
	assert_int_equal(rate(lab), L);
	/* +20 us: rtt_diff = 0.875 x 20 us = 17.5 us, gradient 0.875,
	 * factor 1 - 0.8 x 0.875 = 0.3 */
	round_trip(lab, 120 * WS_US);
	uint64_t r = times(L, 1 - 0.8 * ((0.875 * 20e6) / 20e6));
	assert_int_equal(rate(lab), r);
	assert_true(r > L * 3 / 10 - 2 && r <= L * 3 / 10);
	/* +10 us: rtt_diff = 0.125 x 17.5 + 0.875 x 10 = 10.9375 us,
	 * gradient 0.546875, factor 0.5625 */
	round_trip(lab, 130 * WS_US);
	double diff = (1 - 0.875) * (0.875 * 20e6) + 0.875 * 10e6;
	assert_true(fabs(diff - 10.9375e6) < 1e-3);
	r = times(r, 1 - 0.8 * (diff / 20e6));
	assert_int_equal(rate(lab), r);
	/* -5 us: rtt_diff = 0.125 x 10.9375 - 0.875 x 5 = -3.0078125 us,
	 * a negative gradient in [t_low, t_high]: increase */
	round_trip(lab, 125 * WS_US);
	diff = (1 - 0.875) * diff + 0.875 * -5e6;
	assert_true(diff < 0);
	r += AI;
	assert_int_equal(rate(lab), r);
	ws_cc_lab_free(lab);
	/* with alpha = 1 the EWMA is the last difference alone: an RTT equal
	 * to the previous one is a gradient of exactly 0, which increases */
	lab = lab_new((const char *const[]){ "alpha=1", NULL });
	round_trip(lab, 100 * WS_US);
	round_trip(lab, 1000 * WS_US);
	r = times(L, above_t_high(1000 * WS_US));
	round_trip(lab, 100 * WS_US); /* rtt_diff = -900 us: increase */
	r += AI;
	assert_int_equal(rate(lab), r);
	round_trip(lab, 100 * WS_US); /* alpha = 1: rtt_diff = 0, gradient 0 */
	r += AI;
	assert_int_equal(rate(lab), r);
	/* a steep gradient: the factor is floored at 0, the rate at min_rate */
	round_trip(lab, 400 * WS_US); /* gradient 300 / 20 = 15 */
	assert_int_equal(rate(lab), MIN_RATE);
	ws_cc_lab_free(lab);
}

static void test_hyper_increase_and_reset(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	round_trip(lab, 20 * WS_US);
	round_trip(lab, 1000 * WS_US);
	uint64_t r = times(L, above_t_high(1000 * WS_US));
	/* five increases of rate_ai, then rate_hai */
	for (int i = 0; i < 5; i++) {
		round_trip(lab, 20 * WS_US);
		r += AI;
		assert_int_equal(rate(lab), r);
	}
	for (int i = 0; i < 3; i++) {
		round_trip(lab, 20 * WS_US);
		r += HAI;
		assert_int_equal(rate(lab), r);
	}
	/* a decrease resets the count: rate_ai again, five times */
	round_trip(lab, 600 * WS_US);
	r = times(r, above_t_high(600 * WS_US));
	assert_int_equal(rate(lab), r);
	for (int i = 0; i < 5; i++) {
		round_trip(lab, 20 * WS_US);
		r += AI;
		assert_int_equal(rate(lab), r);
	}
	round_trip(lab, 20 * WS_US);
	assert_int_equal(rate(lab), r + HAI);
	ws_cc_lab_free(lab);

	/* hai_threshold = 2: two additive steps; 0: hyper-active at once */
	lab = lab_new((const char *const[]){ "hai_threshold=2", "rate_ai=1Gbps",
					     "rate_hai=3Gbps", NULL });
	round_trip(lab, 20 * WS_US);
	round_trip(lab, 1000 * WS_US);
	r = times(L, above_t_high(1000 * WS_US));
	const uint64_t steps2[] = { 1000000000, 1000000000, 3000000000, 3000000000 };
	for (size_t i = 0; i < WS_ARRAY_LEN(steps2); i++) {
		round_trip(lab, 20 * WS_US);
		r += steps2[i];
		assert_int_equal(rate(lab), r);
	}
	ws_cc_lab_free(lab);
	lab = lab_new((const char *const[]){ "hai_threshold=0", NULL });
	round_trip(lab, 20 * WS_US);
	round_trip(lab, 1000 * WS_US);
	r = times(L, above_t_high(1000 * WS_US));
	round_trip(lab, 20 * WS_US);
	assert_int_equal(rate(lab), r + HAI);
	ws_cc_lab_free(lab);
}

static void test_once_per_rtt(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	struct ws_cc_flow *f = ws_cc_lab_flow(lab);
	ws_cc_lab_sent(lab, 20000);
	ack(lab, 1000, 100 * WS_US); /* the first: records 100 us and seq 20000 */
	/* every ACK of data sent before that changes nothing, whatever its RTT */
	for (uint64_t seq = 2000; seq <= 20000; seq += 1000) {
		ack(lab, seq, seq % 2000 ? 3 * WS_MS : 10 * WS_US);
		assert_int_equal(rate(lab), L);
	}
	/* the next update compares with the recorded 100 us, not with the RTTs
	 * in between: 120 us gives the gradient 0.875 exactly */
	ws_cc_lab_sent(lab, 10000);
	ack(lab, 21000, 120 * WS_US);
	uint64_t r = times(L, 1 - 0.8 * ((0.875 * 20e6) / 20e6));
	assert_int_equal(rate(lab), r);
	/* it recorded snd_nxt = 30000: ACKs up to 30000 wait */
	assert_int_equal(f->snd_nxt, 30000);
	ack(lab, 30000, 5 * WS_MS);
	assert_int_equal(rate(lab), r);
	ack(lab, 30001, 20 * WS_US);
	assert_int_equal(rate(lab), r + AI);
	ws_cc_lab_free(lab);
}

static void test_clamping(void **state)
{
	(void)state;
	/* at line rate an increase stays at line rate */
	struct ws_cc_lab *lab = lab_new(NULL);
	for (int i = 0; i < 20; i++) {
		round_trip(lab, 20 * WS_US);
		assert_int_equal(rate(lab), L);
	}
	/* close to it, the last step is cut at the line rate */
	round_trip(lab, 500500 * WS_NS);
	uint64_t r = times(L, above_t_high(500500 * WS_NS));
	assert_true(L - r < AI);
	assert_int_equal(rate(lab), r);
	round_trip(lab, 20 * WS_US);
	assert_int_equal(rate(lab), L);
	/* decreases stop at min_rate */
	for (int i = 0; i < 40; i++) {
		round_trip(lab, 5 * WS_MS);
		assert_true(rate(lab) >= MIN_RATE);
	}
	assert_int_equal(rate(lab), MIN_RATE);
	round_trip(lab, 20 * WS_US);
	assert_int_equal(rate(lab), MIN_RATE + AI);
	ws_cc_lab_free(lab);
	/* another floor */
	lab = lab_new((const char *const[]){ "min_rate=10Gbps", NULL });
	round_trip(lab, 100 * WS_US);
	round_trip(lab, 400 * WS_US);
	assert_int_equal(rate(lab), 10000000000ull);
	ws_cc_lab_free(lab);
}

/* The rules, written out once more, for a long replay. */
struct timely_model {
	uint64_t rate, last_seq;
	ws_time prev_rtt;
	double rtt_diff;
	unsigned stage;
	bool started;
};

static void model_ack(struct timely_model *m, uint64_t seq, uint64_t snd_nxt,
		      ws_time rtt)
{
	if (seq <= m->last_seq)
		return;
	if (m->started) {
		double d = 0.125 * m->rtt_diff + 0.875 * ((double)rtt - (double)m->prev_rtt);
		double g = d / 20e6;
		m->rtt_diff = d;
		double c = -1;
		if (rtt < 50 * WS_US)
			c = -1;
		else if (rtt > 500 * WS_US)
			c = 1 - 0.8 * (1 - 500e6 / (double)rtt);
		else if (g > 0)
			c = fmax(0, 1 - 0.8 * g);
		if (c < 0) {
			m->rate += m->stage < 5 ? AI : HAI;
			if (m->rate > L)
				m->rate = L;
			m->stage++;
		} else {
			m->rate = (uint64_t)((double)m->rate * c);
			if (m->rate < MIN_RATE)
				m->rate = MIN_RATE;
			m->stage = 0;
		}
	}
	if (snd_nxt > m->last_seq) {
		m->last_seq = snd_nxt;
		m->prev_rtt = rtt;
		m->started = true;
	}
}

static void test_replay_against_model(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	struct ws_cc_flow *f = ws_cc_lab_flow(lab);
	struct timely_model m = { .rate = L };
	uint64_t x = 0x9e3779b97f4a7c15ull, una = 0;
	ws_time rtt = 100 * WS_US;
	unsigned decreases = 0, increases = 0, hyper = 0;
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (x % 3 == 0)
			ws_cc_lab_sent(lab, 1000 * (uint32_t)(1 + x % 7));
		if (una >= f->snd_nxt)
			continue;
		una += 1000 * (1 + (x >> 8) % 3);
		if (una > f->snd_nxt)
			una = f->snd_nxt;
		/* a random walk of the RTT across t_low and t_high */
		int64_t step = (int64_t)((x >> 20) % (41 * WS_US)) - 20 * (int64_t)WS_US;
		rtt = (ws_time)((int64_t)rtt + step);
		if (rtt < 10 * WS_US || rtt > 800 * WS_US)
			rtt = 10 * WS_US + (x >> 30) % (790 * WS_US);
		uint64_t before = m.rate;
		model_ack(&m, una, f->snd_nxt, rtt);
		ack(lab, una, rtt);
		if (rate(lab) != m.rate)
			fail_msg("step %d: rate %llu, the rules give %llu", i,
				 (unsigned long long)rate(lab), (unsigned long long)m.rate);
		decreases += m.rate < before;
		increases += m.rate > before;
		hyper += m.rate == before + HAI;
	}
	/* the replay went through every branch */
	print_message("replay: %u decreases, %u increases, %u hyper-active\n", decreases,
		      increases, hyper);
	assert_true(decreases > 100 && increases > 100 && hyper > 10);
	ws_cc_lab_free(lab);
}

static void expect_bad_param(const char *kv, const char *part)
{
	ccs_expect_bad_param("timely", kv, part);
}

static void test_parameter_bounds(void **state)
{
	(void)state;
	expect_bad_param("alpha=1.5", "out of range (expected 0 to 1)");
	expect_bad_param("alpha=-0.1", "out of range");
	expect_bad_param("beta=2", "out of range (expected 0 to 1)");
	expect_bad_param("t_low=2s", "out of range (expected 0s to 1s)");
	expect_bad_param("t_high=0s", "out of range (expected 1ns to 1s)");
	expect_bad_param("min_rtt=0ns", "out of range (expected 1ns to 1s)");
	expect_bad_param("min_rtt=5", "missing unit: expected a time such as 1us");
	expect_bad_param("rate_ai=2Tbps", "out of range (expected 0bps to 1Tbps)");
	expect_bad_param("rate_hai=-1Mbps", "a rate cannot be negative");
	expect_bad_param("hai_threshold=1001", "out of range (expected 0 to 1000)");
	expect_bad_param("min_rate=0bps", "out of range (expected 1bps to 1Tbps)");
	expect_bad_param("t_low=600us", "t_low (600us) must be below t_high (500us)");
	expect_bad_param("t_high=50us", "t_low (50us) must be below t_high (50us)");
	expect_bad_param("rate_ai=600Mbps", "rate_ai (600000000 bps) above rate_hai");
	expect_bad_param("t_hgh=1ms", "did you mean 't_high'?");
}

static void test_published_defaults(void **state)
{
	(void)state;
	static const char *const want[] = {
		"\nalpha = 0.875\n", "\nbeta = 0.8\n", "\nt_low = 50us\n",
		"\nt_high = 500us\n", "\nmin_rtt = 20us\n", "\nrate_ai = 100Mbps\n",
		"\nrate_hai = 500Mbps\n", "\nhai_threshold = 5\n", "\nmin_rate = 1Gbps\n",
		NULL,
	};
	ccs_expect_defaults("timely", want);
}

/* ---- scenarios ----------------------------------------------------------------- */

/* As the reference's TIMELY runs: ACKs in the strict-priority queue. */
#define TIMELY_SWITCH "[switch]\nack_high_priority = true\n"
#define GOODPUT ccs_goodput_max(CCS_WIRE)

static void test_two_flows_share_the_link(void **state)
{
	(void)state;
	const struct ccs_two_flows *r = ccs_two_flows("timely", TIMELY_SWITCH);
	struct ccs_interval iv;
	ccs_two_flows_over(r, CCS_RUN / 2, CCS_RUN, GOODPUT, NULL, &iv);
	/* measured 0.510 / 0.490 and 87.4 % */
	assert_true(iv.share > 0.35 && iv.share < 0.65);
	assert_true(iv.util > 0.85);
	assert_true(iv.util <= 1.0001);
	assert_int_equal(r->stats.drops, 0);
	assert_int_equal(r->stats.ecn_marks, 0); /* TIMELY asks nothing of switches */
}

static void test_join_converges(void **state)
{
	(void)state;
	const struct ccs_two_flows *r = ccs_two_flows("timely", TIMELY_SWITCH);
	uint64_t lowest = ccs_join_lowest_rate(r, 500 * WS_US);
	ws_time reach = ccs_join_reach(r, GOODPUT / 2, 0.8, 500 * WS_US);
	ws_time hold = ccs_join_time(r, GOODPUT / 2, 0.8, 3 * WS_MS);
	print_message("TIMELY join: lowest rate %.2f Gb/s in the first 500 us; "
		      "80 %% of the fair share (500 us average) %.0f us after the join; "
		      "held (3 ms average) from %.0f us\n", (double)lowest / 1e9,
		      (double)reach / WS_US, (double)hold / WS_US);
	/* the join's RTT gradient drives the new flow to min_rate */
	assert_true(lowest <= 2 * MIN_RATE);
	/* measured 1540 us and 3410 us */
	assert_true(reach <= 2 * WS_MS);
	assert_true(hold <= 4500 * WS_US);
}

static void test_incast_bounded_queue(void **state)
{
	(void)state;
	struct ccs_incast r;
	ccs_incast_run(&r, "timely", TIMELY_SWITCH, 10000000, "32 MiB buffer");
	ccs_incast_assert_lossless(&r);
	/* measured: all eight active for 8.1 ms */
	assert_true(r.all_active > 4 * WS_MS);
	double t_high_q = 500e-6 * 100e9 / 8; /* t_high x line rate: 6.25 MB */
	double t_low_q = 50e-6 * 100e9 / 8;   /* t_low x line rate: 625 KB */
	/* measured: average 210 KB, at most 0.83 MB over the second half,
	 * 5.9 MB at the start */
	assert_true(r.avg < t_low_q);
	assert_true((double)r.max < t_high_q);
	/* the queue does not sit at zero either: TIMELY keeps some */
	assert_true(r.avg > 50000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_update_only_records_rtt),
		cmocka_unit_test(test_increase_below_t_low),
		cmocka_unit_test(test_decrease_above_t_high),
		cmocka_unit_test(test_gradient_decrease),
		cmocka_unit_test(test_hyper_increase_and_reset),
		cmocka_unit_test(test_once_per_rtt),
		cmocka_unit_test(test_clamping),
		cmocka_unit_test(test_replay_against_model),
		cmocka_unit_test(test_parameter_bounds),
		cmocka_unit_test(test_published_defaults),
		cmocka_unit_test(test_two_flows_share_the_link),
		cmocka_unit_test(test_join_converges),
		cmocka_unit_test(test_incast_bounded_queue),
	};
	return cmocka_run_group_tests_name("timely", tests, NULL, ccs_teardown);
}
