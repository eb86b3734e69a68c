/* SPDX-License-Identifier: MIT */
/*
 * Swift through its ops table (the CC lab: no network), against its rules
 * computed by hand: the initial window (the path's BDP); the target delay
 * base_target + hops x h + flow scaling, checked on both sides of its
 * value for several windows and path lengths; additive increase per ACK
 * (ai / cwnd per packet acked, ai per packet below one packet, selective
 * ACKs counted); the multiplicative decrease 1 - beta (delay - target) /
 * delay floored at 1 - max_mdf, at most once per smoothed RTT; pacing at
 * cwnd x mtu / srtt below one packet; the min_cwnd and max_cwnd clamps;
 * on_loss: fast recovery (gap, trim) and timeouts up to the reset; the
 * parameters' bounds and the published defaults.
 *
 * Then scenarios on the k=4 fat-tree at 100 Gb/s with the defaults (the
 * numbers are in the comments; print_message shows them on every run):
 *   - N long flows into host 0, flow i starting at i x 500 us, measured
 *     over 5-10 ms.  The link is full (95.06 Gb/s of payload), and each
 *     flow's goodput is within 15 % of the fair share 1/N (N = 2: 51.2 /
 *     43.9 Gb/s, 7.7 % off; N = 8: 1.8 % off, Jain 0.9999).  Why 15 %:
 *     with the queue at the target, a decrease is 1 - 0.8 x (a fraction of
 *     a microsecond) / 38 us, a fraction of a percent, so the AIMD
 *     contraction between two large windows is weak and a deterministic
 *     run keeps the phase it settled in (the 2-flow split is the same over
 *     30-40 ms); below fs_max_cwnd (N = 8) flow scaling gives the smaller
 *     window a larger target and the split closes.
 *   - the standing queue sits where the RTT equals the target delay:
 *     q = (target - unloaded RTT) x line rate, the target taken at the
 *     fair window (a fixed point, since flow scaling depends on the
 *     window): 322.7 KB for N = 2 (measured 323.2), 335.3 KB for N = 8
 *     (measured 337.5); asserted within 5 %.  Nothing is marked or
 *     dropped: Swift needs nothing from switches.
 *   - an 8-to-1 incast of 10 MB flows with PFC: no loss, done within 1 % of
 *     the line-rate time (measured 99.8 % busy), the queue over the second
 *     half of the all-active period at the eight flows' target (336.3 KB
 *     against 335.3), the initial peak (1156 KB) below the eight initial
 *     windows;
 *   - under [nic] transport = sr with [switch] pfc = false: the same four
 *     flows and queue as with PFC; with trimming and a 4 MB buffer the
 *     incast's first windows are trimmed (1255 packets), every byte is
 *     delivered within 3 % of the line-rate time and the queue settles at
 *     the target;
 *   - determinism: the same run twice gives the same bytes.
 */
#include "ccscen.h"

#include <math.h>

#define L 100000000000ull /* 100 Gb/s */
#define TARGET_1HOP (20e6 + 3053e3) /* ps: base_target + 1 x h */

/* ---- the CC lab ------------------------------------------------------------- */

static struct ws_cc_lab *lab_hops(const char *const *params, uint32_t hops)
{
	struct ws_cc_lab_spec spec = { WS_INIT_SIZE(struct ws_cc_lab_spec),
		.cc = "swift", .params = params, .line_rate = L,
		.base_rtt = CCS_LAB_RTT, .mtu = CCS_PAYLOAD, .hops = hops,
	};
	struct ws_cc_lab *lab;
	struct ws_err err;
	if (ws_cc_lab_new(&lab, &spec, &err))
		fail_msg("swift: %s", err.msg);
	return lab;
}

static struct ws_cc_lab *lab_new(const char *const *params)
{
	return lab_hops(params, 1);
}

static uint64_t window(struct ws_cc_lab *lab)
{
	return ws_cc_lab_flow(lab)->window;
}

static uint64_t rate(struct ws_cc_lab *lab)
{
	return ws_cc_lab_flow(lab)->rate;
}

/* An ACK of `packets` full packets in order, `sacked` more above, with
 * this RTT. */
static void ack(struct ws_cc_lab *lab, uint32_t packets, uint32_t sacked, ws_time rtt)
{
	struct ws_cc_ack a = { .newly_acked = (uint64_t)packets * CCS_PAYLOAD,
			       .packets = packets + sacked, .sacked = sacked, .rtt = rtt };
	ws_cc_lab_ack(lab, &a);
}

/* The flow-scaling term of the paper for a window of w packets, ps. */
static double fs(double w)
{
	double range = 100e6;
	double alpha = range / (1 / sqrt(0.1) - 1 / sqrt(100.0));
	double v = alpha / sqrt(w) - alpha / sqrt(100.0);
	return v < 0 ? 0 : v > range ? range : v;
}

/* The window the kernel is given for w packets. */
static uint64_t bytes(double w)
{
	return (uint64_t)(w * CCS_PAYLOAD);
}

static void test_initial_window(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	/* the path's BDP: 10 us x 100 Gb/s = 125 packets, at line rate */
	assert_int_equal(window(lab), 125000);
	assert_int_equal(rate(lab), L);
	assert_int_equal(ws_cc_lab_events(lab), 0); /* no timers */
	ws_cc_lab_free(lab);
	lab = lab_new((const char *const[]){ "init_cwnd=40", NULL });
	assert_int_equal(window(lab), 40000);
	ws_cc_lab_free(lab);
}

static void test_additive_increase(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	double w = 125;
	/* below the target every ACK adds ai x acked / cwnd */
	const ws_time rtts[] = { 5 * WS_US, 12 * WS_US, 23 * WS_US, 23052 * WS_NS };
	for (size_t i = 0; i < WS_ARRAY_LEN(rtts); i++) {
		ack(lab, 1, 0, rtts[i]);
		w += 1 / w;
		assert_int_equal(window(lab), bytes(w));
	}
	/* three packets at once, two of them selectively acknowledged */
	ack(lab, 1, 2, 10 * WS_US);
	w += 3 / w;
	assert_int_equal(window(lab), bytes(w));
	/* under sr a cumulative jump also covers packets SACKed before: an ACK
	 * moving it by 5 packets for one arrival counts one */
	{
		struct ws_cc_ack a = { .newly_acked = 5000, .packets = 1, .rtt = 10 * WS_US };
		ws_cc_lab_ack(lab, &a);
		w += 1 / w;
		assert_int_equal(window(lab), bytes(w));
	}
	/* the NACK of a trimmed packet is on_loss's: on_ack ignores it */
	{
		struct ws_cc_ack a = { .nack = true, .trimmed = true, .rtt = 1 * WS_MS };
		ws_cc_lab_ack(lab, &a);
		assert_int_equal(window(lab), bytes(w));
	}
	ws_cc_lab_free(lab);
	/* another ai */
	lab = lab_new((const char *const[]){ "ai=4", "init_cwnd=10", NULL });
	ack(lab, 2, 0, 10 * WS_US);
	assert_int_equal(window(lab), bytes(10 + 4.0 * 2 / 10));
	ws_cc_lab_free(lab);
}

static void test_target_delay(void **state)
{
	(void)state;
	/* windows below fs_max_cwnd get a larger target; at and above it the
	 * target is base_target + hops x h.  For each (window, hops), an RTT
	 * 1 ns below the target increases and one 1 ns above decreases. */
	const double windows[] = { 0.1, 0.5, 1, 4, 30, 99, 100, 500 };
	const uint32_t hops[] = { 1, 4, 6 };
	for (size_t h = 0; h < WS_ARRAY_LEN(hops); h++)
		for (size_t i = 0; i < WS_ARRAY_LEN(windows); i++) {
			double w = windows[i];
			double target = 20e6 + hops[h] * 3053e3 + fs(w);
			char init[64];
			snprintf(init, sizeof init, "init_cwnd=%.17g", w);
			const char *const p[] = { init, "min_cwnd=0.0001", NULL };
			struct ws_cc_lab *lab = lab_hops(p, hops[h]);
			uint64_t before = window(lab);
			ack(lab, 1, 0, (ws_time)floor(target) - 1 * WS_NS);
			assert_true(window(lab) >= before); /* an increase */
			ws_cc_lab_free(lab);
			lab = lab_hops(p, hops[h]);
			ack(lab, 1, 0, (ws_time)ceil(target) + 1 * WS_NS);
			/* a decrease; from one packet down it is paced, the rate
			 * (below w packets per base RTT) shows it */
			if (w <= 1)
				assert_true(rate(lab) < (uint64_t)(w * 8e3 / 10e-6));
			else
				assert_true(window(lab) < before);
			ws_cc_lab_free(lab);
		}
	/* the flow-scaling term itself: 0.1 packets get the whole fs_range */
	assert_true(fabs(fs(0.1) - 100e6) < 1);
	assert_true(fs(100) == 0 && fs(1000) == 0);
}

static void test_multiplicative_decrease(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	/* twice the target: 1 - 0.8 x 0.5 = 0.6 */
	ack(lab, 1, 0, (ws_time)(2 * TARGET_1HOP));
	double w = 125 * 0.6;
	assert_int_equal(window(lab), bytes(w));
	/* once per RTT: the smoothed RTT is now that sample, 46.106 us; every
	 * ACK before it has passed changes nothing, whatever its delay */
	for (int i = 0; i < 10; i++) {
		ws_cc_lab_advance(lab, ws_cc_lab_now(lab) + 4 * WS_US);
		ack(lab, 1, 0, (ws_time)(2 * TARGET_1HOP));
		assert_int_equal(window(lab), bytes(w));
	}
	/* 40 us later, still within the RTT (smoothed to 46.106 us) */
	assert_int_equal(ws_cc_lab_now(lab), 40 * WS_US);
	ws_cc_lab_advance(lab, 47 * WS_US);
	/* a huge delay: the factor is floored at 1 - max_mdf */
	ack(lab, 1, 0, 10 * WS_MS);
	w *= 0.5;
	assert_int_equal(window(lab), bytes(w));
	ws_cc_lab_free(lab);
	/* another beta and max_mdf: 1.25 x target with beta 0.4 gives
	 * 1 - 0.4 x 0.2 = 0.92; max_mdf = 0.05 floors it at 0.95 */
	lab = lab_new((const char *const[]){ "beta=0.4", NULL });
	ack(lab, 1, 0, (ws_time)(1.25 * TARGET_1HOP));
	assert_int_equal(window(lab), bytes(125 * (1 - 0.4 * 0.25 / 1.25)));
	ws_cc_lab_free(lab);
	lab = lab_new((const char *const[]){ "beta=0.4", "max_mdf=0.05", NULL });
	ack(lab, 1, 0, (ws_time)(1.25 * TARGET_1HOP));
	assert_int_equal(window(lab), bytes(125 * 0.95));
	ws_cc_lab_free(lab);
}

static void test_pacing_below_one_packet(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new((const char *const[]){ "init_cwnd=0.5", NULL });
	/* a window of one packet, paced at 0.5 x 1000 B / 10 us (no RTT sample
	 * yet: the path's base RTT) */
	assert_int_equal(window(lab), 1000);
	assert_int_equal(rate(lab), 400000000);
	/* below one packet the increase is ai per packet acked: 0.5 + 1 */
	ack(lab, 1, 0, 20 * WS_US);
	assert_int_equal(window(lab), 1500);
	assert_int_equal(rate(lab), L);
	ws_cc_lab_free(lab);
	/* the pacing rate uses the smoothed RTT once there is one: an RTT of
	 * 100 us, above the target 23.05 + fs(0.5) = 65.97 us, cuts by
	 * 1 - 0.8 x 34.03 / 100 (above 1 - max_mdf) */
	lab = lab_new((const char *const[]){ "init_cwnd=0.5", NULL });
	ack(lab, 1, 0, 100 * WS_US);
	double target = TARGET_1HOP + fs(0.5);
	double w = 0.5 * (1 - 0.8 * (100e6 - target) / 100e6);
	assert_int_equal(window(lab), 1000);
	uint64_t want = (uint64_t)(w * 1000 * 8 * 1e12 / 100e6);
	assert_true(rate(lab) >= want - 1 && rate(lab) <= want + 1);
	ws_cc_lab_free(lab);
}

static void test_clamps(void **state)
{
	(void)state;
	/* max_cwnd */
	struct ws_cc_lab *lab = lab_new((const char *const[]){ "init_cwnd=999.995", NULL });
	for (int i = 0; i < 10; i++)
		ack(lab, 1, 0, 10 * WS_US);
	assert_int_equal(window(lab), 1000000);
	ws_cc_lab_free(lab);
	lab = lab_new((const char *const[]){ "max_cwnd=50", NULL });
	assert_int_equal(window(lab), 50000); /* the BDP is clamped too */
	ws_cc_lab_free(lab);
	/* min_cwnd: halving every RTT stops at 0.01 packets, paced at
	 * 0.01 x 1000 B per smoothed RTT */
	lab = lab_new(NULL);
	for (int i = 0; i < 40; i++) {
		ws_cc_lab_advance(lab, ws_cc_lab_now(lab) + 2 * WS_MS);
		ack(lab, 1, 0, 1 * WS_MS);
	}
	assert_int_equal(window(lab), 1000);
	uint64_t want = (uint64_t)(0.01 * 1000 * 8 * 1e12 / 1e9);
	assert_true(rate(lab) >= want - 1 && rate(lab) <= want + 1);
	ws_cc_lab_free(lab);
}

static void test_on_loss(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	/* fast recovery after a SACK gap: x (1 - max_mdf) */
	ccs_lab_loss(lab, "swift", WS_LOSS_GAP, 3);
	assert_int_equal(window(lab), bytes(62.5));
	/* a trim in the same RTT: no second cut */
	ccs_lab_loss(lab, "swift", WS_LOSS_TRIM, 1);
	assert_int_equal(window(lab), bytes(62.5));
	/* an RTT later (the path's 10 us: no sample yet) a trim cuts */
	ws_cc_lab_advance(lab, 10 * WS_US);
	ccs_lab_loss(lab, "swift", WS_LOSS_TRIM, 1);
	assert_int_equal(window(lab), bytes(31.25));
	ws_cc_lab_free(lab);

	/* timeouts: each cuts once per RTT, the fifth in a row resets to
	 * min_cwnd; an ACK in between restarts the count */
	lab = lab_new(NULL);
	double w = 125;
	for (int i = 1; i <= 4; i++) {
		ws_cc_lab_advance(lab, (ws_time)i * 20 * WS_US);
		ccs_lab_loss(lab, "swift", WS_LOSS_TIMEOUT, 1);
		w *= 0.5;
		assert_int_equal(window(lab), bytes(w));
	}
	ack(lab, 1, 0, 10 * WS_US); /* restarts the count */
	w += 1 / w;
	assert_int_equal(window(lab), bytes(w));
	for (int i = 1; i <= 4; i++) { /* within one RTT: counted, not cut */
		ccs_lab_loss(lab, "swift", WS_LOSS_TIMEOUT, 1);
		assert_int_equal(window(lab), bytes(w));
	}
	ccs_lab_loss(lab, "swift", WS_LOSS_TIMEOUT, 1); /* the fifth */
	assert_int_equal(window(lab), 1000);
	assert_true(rate(lab) >= 8000000 - 1 && rate(lab) <= 8000000 + 1);
	ws_cc_lab_free(lab);
	/* another threshold */
	lab = lab_new((const char *const[]){ "rtx_reset_threshold=1", NULL });
	ccs_lab_loss(lab, "swift", WS_LOSS_TIMEOUT, 1);
	assert_int_equal(window(lab), 1000);
	ws_cc_lab_free(lab);
}

static void test_parameter_bounds(void **state)
{
	(void)state;
	ccs_expect_bad_param("swift", "beta=1.5", "out of range (expected 0 to 1)");
	ccs_expect_bad_param("swift", "max_mdf=-0.1", "out of range");
	ccs_expect_bad_param("swift", "base_target=0s", "out of range (expected 1ns to 1s)");
	ccs_expect_bad_param("swift", "h=5", "missing unit: expected a time such as 1us");
	ccs_expect_bad_param("swift", "max_cwnd=0.5", "out of range (expected 1 to 1e9)");
	ccs_expect_bad_param("swift", "rtx_reset_threshold=0", "out of range (expected 1 to 1000)");
	ccs_expect_bad_param("swift", "fs_min_cwnd=200",
			     "fs_min_cwnd (200) must be below fs_max_cwnd (100)");
	ccs_expect_bad_param("swift", "min_cwnd=2000", "min_cwnd (2000) above max_cwnd (1000)");
	ccs_expect_bad_param("swift", "base_targt=1us", "did you mean 'base_target'?");
}

static void test_published_defaults(void **state)
{
	(void)state;
	static const char *const want[] = {
		"\nai = 1\n", "\nbeta = 0.8\n", "\nmax_mdf = 0.5\n", "\nbase_target = 20us\n",
		"\nh = 3053ns\n", "\nfs_range = 100us\n", "\nfs_min_cwnd = 0.1\n",
		"\nfs_max_cwnd = 100\n", "\nrtx_reset_threshold = 5\n", NULL,
	};
	ccs_expect_defaults("swift", want);
}

/* ---- scenarios ----------------------------------------------------------------- */

#define GOODPUT ccs_goodput_max(CCS_WIRE)
#define STAGGER (500 * WS_US)
#define FROM (5 * WS_MS)
#define TO (10 * WS_MS)
#define PATH_HOPS 6 /* every sender is in another pod than host 0 */
/* the unloaded RTT of those paths: 2 x 6 us of links and a full data
 * packet's serialization at each of the 6 hops (ws_flow_info base_rtt) */
#define RTT0 (12e6 + 6 * 1052 * 8 * 1e12 / 1e11)

/* The standing queue of n flows: where the RTT is the target at the fair
 * window, which depends on the target (flow scaling): a fixed point. */
static double expected_queue(unsigned n)
{
	double target = 20e6 + PATH_HOPS * 3053e3, w = 0;
	for (int i = 0; i < 50; i++) {
		w = target * 1e-12 * GOODPUT / 8 / n / CCS_PAYLOAD;
		target = 20e6 + PATH_HOPS * 3053e3 + fs(w);
	}
	return (target - RTT0) * 1e-12 * (double)L / 8;
}

static void check_n_flows(unsigned n)
{
	struct ccs_n_flows r;
	ccs_n_flows_run(&r, "swift", NULL, n, STAGGER, FROM, TO);
	double q = expected_queue(n);
	print_message("swift %u flows: the queue where the RTT meets the target %.1f KB\n", n,
		      q / 1e3);
	assert_true(r.total > 0.99 * GOODPUT && r.total <= 1.0001 * GOODPUT);
	assert_true(r.worst < 0.15);
	assert_true(r.jain > 0.99);
	assert_true(fabs(r.queue_avg - q) < 0.05 * q);
	assert_int_equal(r.stats.drops, 0);
	assert_int_equal(r.stats.ecn_marks, 0);
}

static void test_two_flows_fair_share(void **state)
{
	(void)state;
	check_n_flows(2);
}

static void test_eight_flows_fair_share(void **state)
{
	(void)state;
	check_n_flows(8);
}

static void test_incast(void **state)
{
	(void)state;
	struct ccs_incast r;
	ccs_incast_run(&r, "swift", NULL, 10000000, "with PFC");
	ccs_incast_assert_lossless(&r);
	/* measured: done at 6745 us, the port towards host 0 busy 99.8 % */
	assert_true(r.done < 1.01 * ccs_line_time(CCS_INCAST_N * r.bytes, CCS_WIRE));
	/* measured: 336.3 KB over the second half, against 335.3 KB for the
	 * eight windows' target (as for eight long flows) */
	double q = expected_queue(CCS_INCAST_N);
	assert_true(fabs(r.avg - q) < 0.05 * q);
	/* the start: at most the eight initial windows (a BDP each, 156 KB)
	 * wait in the queue; measured 1156 KB */
	assert_true((double)r.peak < CCS_INCAST_N * RTT0 * 1e-12 * (double)L / 8);
}

/* [nic] transport = sr without PFC; with trimming and a 4 MB buffer the
 * incast's first windows are trimmed (Swift's fast recovery in on_loss) */
#define SR_NO_PFC "[nic]\ntransport = sr\n[switch]\npfc = false\n"
#define SR_TRIM SR_NO_PFC "trim = true\nbuffer = 4MB\n"

static void test_sr_without_pfc(void **state)
{
	(void)state;
	/* measured: as with PFC, 95.06 Gb/s, worst flow 12.1 % off, the queue
	 * at 323.9 KB; nothing dropped */
	struct ccs_n_flows r;
	ccs_n_flows_run(&r, "swift", SR_NO_PFC, 4, STAGGER, FROM, TO);
	double q = expected_queue(4);
	assert_true(r.total > 0.99 * GOODPUT);
	assert_true(r.worst < 0.15 && r.jain > 0.99);
	assert_true(fabs(r.queue_avg - q) < 0.05 * q);
	assert_int_equal(r.stats.drops, 0);
	/* measured: 1255 packets trimmed and resent at the start, every byte
	 * delivered by 6751 us (101.3 % of the line-rate time: the resent
	 * packets), the queue at the eight windows' target (336.6 KB) */
	struct ccs_incast in;
	ccs_incast_run(&in, "swift", SR_TRIM, 10000000, "sr, no PFC, trimming, 4 MB buffer");
	assert_int_equal(in.stats.flows_done, CCS_INCAST_N);
	for (unsigned i = 0; i < CCS_INCAST_N; i++)
		assert_int_equal(in.acked[i], in.bytes);
	assert_int_equal(in.stats.drops, 0);
	assert_int_equal(in.stats.pfc_pauses, 0);
	assert_true(in.stats.trims > 0);
	assert_true(in.done < 1.03 * ccs_line_time(CCS_INCAST_N * in.bytes, CCS_WIRE));
	q = expected_queue(CCS_INCAST_N);
	assert_true(fabs(in.avg - q) < 0.05 * q);
}

static void test_determinism(void **state)
{
	(void)state;
	struct ccs_n_flows a, b;
	ccs_n_flows_run(&a, "swift", NULL, 3, STAGGER, 2 * WS_MS, 3 * WS_MS);
	ccs_n_flows_run(&b, "swift", NULL, 3, STAGGER, 2 * WS_MS, 3 * WS_MS);
	assert_memory_equal(a.goodput, b.goodput, sizeof a.goodput);
	assert_true(a.queue_avg == b.queue_avg && a.queue_max == b.queue_max);
	assert_int_equal(a.stats.events, b.stats.events);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_initial_window),
		cmocka_unit_test(test_additive_increase),
		cmocka_unit_test(test_target_delay),
		cmocka_unit_test(test_multiplicative_decrease),
		cmocka_unit_test(test_pacing_below_one_packet),
		cmocka_unit_test(test_clamps),
		cmocka_unit_test(test_on_loss),
		cmocka_unit_test(test_parameter_bounds),
		cmocka_unit_test(test_published_defaults),
		cmocka_unit_test(test_two_flows_fair_share),
		cmocka_unit_test(test_eight_flows_fair_share),
		cmocka_unit_test(test_incast),
		cmocka_unit_test(test_sr_without_pfc),
		cmocka_unit_test(test_determinism),
	};
	return cmocka_run_group_tests_name("swift", tests, NULL, NULL);
}
