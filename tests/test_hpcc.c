/* SPDX-License-Identifier: MIT */
/*
 * HPCC through its ops table (the CC lab: hand-made ACKs carrying INT
 * records) against its update rules, worked out here from the rules, not
 * from the plugin: the first ACK only stores the records; an idle hop gives
 * additive increase up to max_stage, then a multiplicative step; an
 * overloaded hop with a standing queue gives the cut R_c / k + W_AI; fast
 * react applies a rate without committing it; min_rate and line rate clamp;
 * the window follows W x R / line rate; the largest hop utilization wins;
 * T and W from the fabric or the path; malformed feedback (no time
 * elapsed, a changed hop count, a zero rate) is survived; every parameter's
 * bounds.
 *
 * Then the scenarios every CC passes (tests/ccscen.h), on a k=4 fat-tree at
 * 100 Gb/s, checking what HPCC is known for (print_message shows the
 * figures on every run, the comments give those measured with INT in the
 * reference's encoding, the default since issue 17; the bounds, set with
 * exact INT, hold for both):
 *   - two flows into one host (from hosts 4 and 8, the second 1 ms later)
 *     share the link at about eta of its capacity: over 10-20 ms 0.429 /
 *     0.571 (0.455 / 0.545 with exact INT; fast react keeps a standing
 *     imbalance) at 95.1 %;
 *   - an 8-to-1 incast of 10 MB flows completes losslessly and, over the
 *     second half of the period when all eight are active, keeps the queue
 *     towards the receiver near empty (0.8 KB on average, 4.4 KB at most),
 *     far below DCQCN's; with a 1 MiB buffer PFC absorbs the first RTT's
 *     burst and HPCC then drains the queue the same way;
 *   - a flow joining a busy link holds 80 % of its fair share in every
 *     10 us from 70 us after the join.
 */
#include "ccscen.h"

#include <math.h>
#include <stdlib.h>

#define L 100000000000ull   /* 100 Gb/s */
#define AI 40000000ull      /* the default rate_ai, 40 Mb/s */
#define T_LAB CCS_LAB_RTT   /* the lab's base RTT, 10 us */
#define BDP_LAB 125000ull   /* 10 us x 100 Gb/s, bytes */
#define ETA 0.95

/* ---- the CC lab --------------------------------------------------------- */

static struct ws_cc_lab *lab_max_rtt(const char *const *params, ws_time max_rtt)
{
	return ccs_lab_new("hpcc", params, max_rtt);
}

static struct ws_cc_lab *lab_new(const char *const *params)
{
	return lab_max_rtt(params, 0);
}

static uint64_t rate(struct ws_cc_lab *lab)
{
	return ws_cc_lab_flow(lab)->rate;
}

static uint64_t window(struct ws_cc_lab *lab)
{
	return ws_cc_lab_flow(lab)->window;
}

/* A hop of the lab's 100 Gb/s link: dequeue time, cumulative tx bytes, queue. */
static struct ws_int_hop hop(ws_time ts, uint64_t tx, uint32_t qlen)
{
	return (struct ws_int_hop){ .ts = ts, .tx_bytes = tx, .rate = L, .qlen = qlen };
}

/* Deliver an ACK up to `seq` carrying `n` INT records, at the records' time. */
static void ack_int(struct ws_cc_lab *lab, uint64_t seq,
		    const struct ws_int_hop *hops, unsigned n)
{
	ws_time t = 0;
	for (unsigned i = 0; i < n; i++)
		if (hops[i].ts > t)
			t = hops[i].ts;
	if (t > ws_cc_lab_now(lab))
		ws_cc_lab_advance(lab, t);
	struct ws_cc_ack a = { .seq = seq, .newly_acked = 1000, .packets = 1,
			       .int_n = (uint8_t)n, .int_hop = hops };
	ws_cc_lab_ack(lab, &a);
}

static void ack1(struct ws_cc_lab *lab, uint64_t seq, struct ws_int_hop h)
{
	ack_int(lab, seq, &h, 1);
}

/*
 * Sequence numbers for full updates and fast reacts.  A full update needs an
 * ACK beyond snd_nxt as it was at the last full update (the mark):
 * full_seq() sends 10 packets more, so the plugin records a new mark, and
 * acknowledges past the old one; fast_seq() acknowledges up to the mark.
 */
struct seqs {
	uint64_t mark; /* snd_nxt at the last full update */
};

static uint64_t full_seq(struct ws_cc_lab *lab, struct seqs *s)
{
	uint64_t seq = s->mark + 1000;
	ws_cc_lab_sent(lab, 10000);
	s->mark = ws_cc_lab_flow(lab)->snd_nxt;
	return seq;
}

/* a sequence number that is not a full update (at or below the mark) */
static uint64_t fast_seq(const struct seqs *s)
{
	return s->mark;
}

/* within `tol` of `want` (the rules use floating point; truncation to bps) */
static void assert_near(uint64_t got, double want, double tol)
{
	if (fabs((double)got - want) > tol)
		fail_msg("got %llu, want %.3f (tolerance %.1f)", (unsigned long long)got,
			 want, tol);
}

/* the cut the rules give: floor(R_c / k) + W_AI, k = u / eta, clamped */
static double cut(double rc, double u, double eta, double ai)
{
	double r = floor(rc / (u / eta)) + ai;
	if (r < 1e9)
		r = 1e9;
	if (r > (double)L)
		r = (double)L;
	return r;
}

static void assert_window(struct ws_cc_lab *lab, uint64_t W)
{
	/* W x R / line rate, truncated */
	uint64_t want = (uint64_t)((double)W * (double)rate(lab) / (double)L);
	assert_near(window(lab), (double)want, 1.0);
}

static void test_first_ack_only_stores(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	struct seqs sq = { 0 };
	assert_int_equal(rate(lab), L);
	assert_int_equal(window(lab), BDP_LAB); /* W at line rate */
	/* a heavily loaded first record changes nothing: there is no delta */
	ack1(lab, full_seq(lab, &sq), hop(1 * WS_US, 1000000, 4000000));
	assert_int_equal(rate(lab), L);
	assert_int_equal(window(lab), BDP_LAB);
	/* the next one measures against it: 5 us at 50 % (31250 B), queue
	 * min(0, 4 MB) = 0: U = 0.5 over dt = 5 us, u = (1 x 5 + 0.5 x 5) / 10
	 * = 0.75 starting from the reference's u = 1, k = 0.75 / 0.95 */
	ack1(lab, full_seq(lab, &sq), hop(6 * WS_US, 1031250, 0));
	assert_near(rate(lab), cut((double)L, 0.75, ETA, AI), 2);
	assert_int_equal(rate(lab), L); /* an increase, clamped at line rate */
	/* an ACK without INT (no switch on the path) changes nothing */
	struct ws_cc_ack plain = { .seq = 1, .newly_acked = 1000, .packets = 1 };
	ws_cc_lab_ack(lab, &plain);
	assert_int_equal(rate(lab), L);
	ws_cc_lab_free(lab);
}

/*
 * An overloaded hop: 10 us (= T) at full rate with `q` bytes standing:
 * U = 1 + q x 8 / (B T) = 1 + q / 125000, and dt = T so u = U; k = u / eta
 * > 1: R = R_c / k + W_AI.  Returns the new rate.
 */
static double overload_q(struct ws_cc_lab *lab, struct seqs *sq, uint32_t q)
{
	ack1(lab, full_seq(lab, sq), hop(10 * WS_US, 0, q));
	ack1(lab, full_seq(lab, sq), hop(20 * WS_US, 125000, q));
	double want = cut((double)L, 1 + q / 125000.0, ETA, AI);
	assert_near(rate(lab), want, 2);
	return want;
}

/* 50 KB standing: U = 1.4, R = 67.9 Gb/s */
static double overload(struct ws_cc_lab *lab, struct seqs *sq)
{
	return overload_q(lab, sq, 50000);
}

static void test_overload_cuts(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	struct seqs sq = { 0 };
	double r1 = overload(lab, &sq);
	assert_true(r1 < 0.68 * (double)L); /* 67.9 Gb/s */
	assert_window(lab, BDP_LAB);
	assert_near(window(lab), 84871, 1); /* 125000 x 67.897 / 100 */
	/* still overloaded: the cut compounds from the committed R_c */
	ack1(lab, full_seq(lab, &sq), hop(30 * WS_US, 250000, 50000));
	double r2 = cut(r1, 1.4, ETA, AI);
	assert_near(rate(lab), r2, 2);
	assert_window(lab, BDP_LAB);
	/* a full queue drained to nothing: only min(q, q') counts */
	ack1(lab, full_seq(lab, &sq), hop(40 * WS_US, 375000, 0));
	assert_near(rate(lab), cut(r2, 1.0, ETA, AI), 2);
	ws_cc_lab_free(lab);
}

static void test_idle_additive_then_multiplicative(void **state)
{
	(void)state;
	/* the paper's max_stage = 5 */
	const char *const paper[] = { "max_stage=5", NULL };
	struct ws_cc_lab *lab = lab_new(paper);
	struct seqs sq = { 0 };
	/* 500 KB standing: U = 5, R_c = 19.04 Gb/s, stage 0 */
	double r = overload_q(lab, &sq, 500000);
	assert_near(rate(lab), 19040000000.0, 2);
	/* idle: 50 % of B over T, empty queue: u = 0.5 < eta, additive steps */
	uint64_t tx = 125000;
	ws_time t = 20 * WS_US;
	for (int stage = 0; stage < 5; stage++) {
		t += T_LAB;
		tx += 62500;
		ack1(lab, full_seq(lab, &sq), hop(t, tx, 0));
		r += (double)AI;
		assert_near(rate(lab), r, 2);
		assert_window(lab, BDP_LAB);
	}
	/* stage 5 = max_stage: multiplicative, R_c / k + W_AI with k = 0.5/0.95 */
	t += T_LAB;
	tx += 62500;
	ack1(lab, full_seq(lab, &sq), hop(t, tx, 0));
	r = cut(r, 0.5, ETA, AI);
	assert_true(r < (double)L);
	assert_near(rate(lab), r, 2);
	/* stage 0 again: additive */
	t += T_LAB;
	tx += 62500;
	ack1(lab, full_seq(lab, &sq), hop(t, tx, 0));
	assert_near(rate(lab), r + (double)AI, 2);
	ws_cc_lab_free(lab);

	/* the reference's max_stage = 0: every step is multiplicative */
	lab = lab_new(NULL);
	sq.mark = 0;
	r = overload_q(lab, &sq, 500000);
	tx = 125000;
	t = 20 * WS_US;
	for (int i = 0; i < 2; i++) {
		t += T_LAB;
		tx += 62500;
		ack1(lab, full_seq(lab, &sq), hop(t, tx, 0));
		r = cut(r, 0.5, ETA, AI); /* x 1.9 + W_AI */
		assert_true(r < (double)L);
		assert_near(rate(lab), r, 2);
	}
	/* and again, clamped at line rate */
	ack1(lab, full_seq(lab, &sq), hop(t + T_LAB, tx + 62500, 0));
	assert_int_equal(rate(lab), L);
	assert_int_equal(window(lab), BDP_LAB);
	ws_cc_lab_free(lab);
}

static void test_smoothing_and_dt_cap(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	struct seqs sq = { 0 };
	double r = overload(lab, &sq); /* u = 1.4 */
	/* 2.5 us at 80 % (25000 B), queue 12500 B: U = 0.8 + 0.1 = 0.9;
	 * u = (1.4 x 7.5 + 0.9 x 2.5) / 10 = 1.275 */
	ack1(lab, full_seq(lab, &sq), hop(22500 * WS_NS, 150000, 12500));
	/* the 50 KB of the stored record do not count: min(12500, 50000) */
	r = cut(r, 1.275, ETA, AI);
	assert_near(rate(lab), r, 2);
	/* 40 us since the last record: dt capped at T, u = U = 0.25 */
	ack1(lab, full_seq(lab, &sq), hop(62500 * WS_NS, 150000 + 125000, 0));
	r = cut(r, 0.25, ETA, AI);
	assert_near(rate(lab), r, 2);
	ws_cc_lab_free(lab);
}

static void test_largest_hop_wins(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	struct seqs sq = { 0 };
	struct ws_int_hop h0[3] = { hop(1 * WS_US, 0, 0), hop(2 * WS_US, 0, 0),
				    hop(3 * WS_US, 0, 125000) };
	ack_int(lab, full_seq(lab, &sq), h0, 3);
	assert_int_equal(rate(lab), L);
	/* hop 0: 4 us at 100 %: u = 1.0; hop 1: 5 us at 50 %, no queue:
	 * 0.5; hop 2: 5 us at 50 % with 125 KB standing: 0.5 + 1.0 = 1.5.
	 * U = 1.5 with hop 2's dt = 5 us: u = (1 x 5 + 1.5 x 5) / 10 = 1.25 */
	struct ws_int_hop h1[3] = { hop(5 * WS_US, 50000, 0), hop(7 * WS_US, 31250, 0),
				    hop(8 * WS_US, 31250, 125000) };
	ack_int(lab, full_seq(lab, &sq), h1, 3);
	double r = cut((double)L, 1.25, ETA, AI);
	assert_near(rate(lab), r, 2);
	assert_near(rate(lab), 76040000000.0, 2);
	ws_cc_lab_free(lab);
}

static void test_fast_react_does_not_commit(void **state)
{
	(void)state;
	const char *const ms2[] = { "max_stage=2", NULL };
	struct ws_cc_lab *lab = lab_new(ms2);
	struct seqs sq = { 0 };
	double rc = overload(lab, &sq); /* committed: R_c = rc, stage 0 */
	/* one additive full update: R_c = rc + AI, stage 1 */
	ack1(lab, full_seq(lab, &sq), hop(30 * WS_US, 187500, 0));
	rc += (double)AI;
	assert_near(rate(lab), rc, 2);
	/* fast react (seq not past the mark): a heavy queue cuts at once ... */
	ack1(lab, fast_seq(&sq), hop(40 * WS_US, 312500, 100000));
	double fr = cut(rc, 1.0 + 0.0, ETA, AI); /* min(100000, 0) = 0: U = 1 */
	assert_near(rate(lab), fr, 2);
	ack1(lab, fast_seq(&sq), hop(50 * WS_US, 437500, 100000));
	fr = cut(rc, 1.8, ETA, AI); /* 1 + 100000 x 8 / (B T) */
	assert_near(rate(lab), fr, 2);
	assert_window(lab, BDP_LAB);
	/* ... but neither R_c nor the stage moved: the next full update with
	 * an idle hop starts from rc, at stage 1 < 2: additive */
	ack1(lab, full_seq(lab, &sq), hop(60 * WS_US, 500000, 0));
	assert_near(rate(lab), rc + (double)AI, 2);
	/* now stage 2 = max_stage: multiplicative */
	ack1(lab, full_seq(lab, &sq), hop(70 * WS_US, 562500, 0));
	assert_near(rate(lab), cut(rc + (double)AI, 0.5, ETA, AI), 2);
	ws_cc_lab_free(lab);

	/* fast_react = false: ACKs between full updates are ignored, records
	 * included, so the next full update measures from the last full one */
	const char *const slow[] = { "fast_react=false", NULL };
	lab = lab_new(slow);
	sq.mark = 0;
	rc = overload(lab, &sq);
	ack1(lab, fast_seq(&sq), hop(25 * WS_US, 187500, 400000));
	assert_near(rate(lab), rc, 0);
	/* 10 us from the 20 us record: 50 % and min(400 KB, 50 KB) standing,
	 * U = 0.9; had the 25 us record been stored, the hop would read 0 %
	 * over 5 us with 400 KB standing, U = 3.2 */
	ack1(lab, full_seq(lab, &sq), hop(30 * WS_US, 187500, 400000));
	assert_near(rate(lab), cut(rc, 0.9, ETA, AI), 2);
	assert_true(rate(lab) > rc);
	ws_cc_lab_free(lab);
}

static void test_clamps(void **state)
{
	(void)state;
	/* a 100 MB standing queue: U = 801, R_c / k + W_AI = 158.6 Mb/s,
	 * raised to min_rate (1 Gb/s); the window follows */
	struct ws_cc_lab *lab = lab_new(NULL);
	struct seqs sq = { 0 };
	ack1(lab, full_seq(lab, &sq), hop(10 * WS_US, 0, 100000000));
	ack1(lab, full_seq(lab, &sq), hop(20 * WS_US, 125000, 100000000));
	assert_int_equal(rate(lab), 1000000000ull);
	assert_int_equal(window(lab), BDP_LAB / 100);
	ws_cc_lab_free(lab);
	const char *const floor5[] = { "min_rate=5Gbps", NULL };
	lab = lab_new(floor5);
	sq.mark = 0;
	ack1(lab, full_seq(lab, &sq), hop(10 * WS_US, 0, 100000000));
	ack1(lab, full_seq(lab, &sq), hop(20 * WS_US, 125000, 100000000));
	assert_int_equal(rate(lab), 5000000000ull);
	assert_int_equal(window(lab), BDP_LAB / 20);
	/* from the floor, an idle link (u = 0.1) multiplies by 9.5: 47.5 Gb/s */
	ack1(lab, full_seq(lab, &sq), hop(30 * WS_US, 137500, 0));
	assert_near(rate(lab), 5e9 * 9.5 + (double)AI, 2);
	ws_cc_lab_free(lab);
	/* window = false leaves the window alone */
	const char *const nowin[] = { "window=false", NULL };
	lab = lab_new(nowin);
	sq.mark = 0;
	assert_int_equal(window(lab), 0);
	overload(lab, &sq);
	assert_int_equal(window(lab), 0);
	ws_cc_lab_free(lab);
}

static void test_base_fabric_or_path(void **state)
{
	(void)state;
	/* the fabric's largest base RTT is 20 us (BDP 250 KB): a longer path
	 * exists elsewhere */
	for (int path = 0; path < 2; path++) {
		const char *const params[] = { path ? "base=path" : "base=fabric", NULL };
		struct ws_cc_lab *lab = lab_max_rtt(params, 2 * T_LAB);
		assert_int_equal(ws_cc_lab_flow(lab)->max_bdp, 2 * BDP_LAB);
		struct seqs sq = { 0 };
		ack1(lab, full_seq(lab, &sq), hop(10 * WS_US, 0, 50000));
		ack1(lab, full_seq(lab, &sq), hop(20 * WS_US, 125000, 50000));
		/* fabric: T = 20 us, queue term 50000 x 8 / (B x 20 us) = 0.2,
		 * U = 1.2, u = (1 x 10 + 1.2 x 10) / 20 = 1.1, W = 250 KB;
		 * path: T = 10 us, U = 1.4 = u, W = 125 KB */
		double u = path ? 1.4 : 1.1;
		assert_near(rate(lab), cut((double)L, u, ETA, AI), 2);
		assert_window(lab, path ? BDP_LAB : 2 * BDP_LAB);
		ws_cc_lab_free(lab);
	}
}

static void test_malformed_feedback(void **state)
{
	(void)state;
	struct ws_cc_lab *lab = lab_new(NULL);
	struct seqs sq = { 0 };
	double r = overload(lab, &sq);
	/* the same record again (dt = 0): nothing to measure, no NaN */
	ack1(lab, full_seq(lab, &sq), hop(20 * WS_US, 125000, 50000));
	assert_near(rate(lab), r, 0);
	/* an older record: ignored too */
	ack1(lab, full_seq(lab, &sq), hop(15 * WS_US, 100000, 50000));
	assert_near(rate(lab), r, 0);
	/* a link rate of 0: that hop sits out */
	struct ws_int_hop z = hop(30 * WS_US, 250000, 50000);
	z.rate = 0;
	ack1(lab, full_seq(lab, &sq), z);
	assert_near(rate(lab), r, 0);
	/* two records instead of one: the path changed, start over */
	struct ws_int_hop two[2] = { hop(40 * WS_US, 0, 0), hop(41 * WS_US, 0, 0) };
	ack_int(lab, full_seq(lab, &sq), two, 2);
	assert_near(rate(lab), r, 0);
	/* and measure against the new records: 10 us at 75 %, queue 0, on
	 * both: U = 0.75 = u */
	struct ws_int_hop two2[2] = { hop(50 * WS_US, 93750, 0), hop(51 * WS_US, 93750, 0) };
	ack_int(lab, full_seq(lab, &sq), two2, 2);
	r = cut(r, 0.75, ETA, AI);
	assert_true(r < (double)L);
	assert_near(rate(lab), r, 2);
	/* tx counters that went backwards (other ports): skipped */
	struct ws_int_hop back[2] = { hop(60 * WS_US, 10, 0), hop(61 * WS_US, 10, 0) };
	ack_int(lab, full_seq(lab, &sq), back, 2);
	assert_near(rate(lab), r, 0);
	ws_cc_lab_free(lab);
}

static void expect_bad_param(const char *kv, const char *part)
{
	ccs_expect_bad_param("hpcc", kv, part);
}

static void test_parameter_bounds(void **state)
{
	(void)state;
	expect_bad_param("eta=0", "eta = 0: the target utilization must be above 0");
	expect_bad_param("eta=1.01", "out of range (expected 0 to 1)");
	expect_bad_param("eta=-0.5", "out of range");
	expect_bad_param("max_stage=1001", "out of range (expected 0 to 1000)");
	expect_bad_param("max_stage=-1", "expected a non-negative integer");
	expect_bad_param("rate_ai=-40Mbps", "cannot be negative");
	expect_bad_param("rate_ai=2Tbps", "out of range (expected 0bps to 1Tbps)");
	expect_bad_param("min_rate=-1Gbps", "cannot be negative");
	expect_bad_param("min_rate=0bps", "out of range (expected 1bps to 1Tbps)");
	expect_bad_param("fast_react=sometimes", "expected true or false");
	expect_bad_param("window=maybe", "expected true or false");
	expect_bad_param("base=wire", "expected one of: fabric, path");
	expect_bad_param("rate_aii=1Mbps", "did you mean 'rate_ai'?");
	/* the bounds themselves are valid */
	const char *const edge[] = { "eta=1", "max_stage=1000", "rate_ai=0bps",
				     "min_rate=1Tbps", "base=path", NULL };
	struct ws_cc_lab *lab = lab_new(edge);
	ws_cc_lab_free(lab);
}

/* ---- INT as the reference encodes it ------------------------------------- */

/* The reference's format at 100 Gb/s (int_multi 4), as the kernel resolves
 * it for a fabric of 100 Gb/s hosts. */
static const struct ws_int_format REF_FMT = {
	sizeof(struct ws_int_format), true, 24, 20, 17, WS_NS, 128 * 4, 80 * 4
};

/* Known answers: the tx counter moves in 512-byte steps (floor of each
 * stamp), the queue in 320-byte steps, the time in whole ns; exact reads
 * the values as they are. */
static void test_int_encoding_known_answers(void **state)
{
	(void)state;
	struct ws_int_delta d = { WS_INIT_SIZE(struct ws_int_delta) };
	struct ws_int_hop a = hop(1000 * WS_NS + 999, 1023, 319);
	struct ws_int_hop b = hop(1084 * WS_NS + 500, 2076, 1000);
	assert_int_equal(ws_int_delta(&REF_FMT, &b, &a, &d), WS_INT_OK);
	assert_int_equal(d.dt, 84 * WS_NS);  /* 1084 - 1000 ns */
	assert_int_equal(d.tx_bytes, 1536);  /* 4 steps - 1 step of 512 B */
	assert_int_equal(d.qlen, 960);       /* 3 steps of 320 */
	assert_int_equal(d.qlen_prev, 0);    /* 319 < one step */
	const struct ws_int_format exact = { sizeof exact, false, 0, 0, 0, 0, 0, 0 };
	assert_int_equal(ws_int_delta(&exact, &b, &a, &d), WS_INT_OK);
	assert_int_equal(d.dt, 84 * WS_NS - 499);
	assert_int_equal(d.tx_bytes, 1053);
	assert_int_equal(d.qlen, 1000);
	assert_int_equal(d.qlen_prev, 319);
	/* the same ns: no time elapsed for the reference, 0.4 ns exactly */
	struct ws_int_hop c = hop(1084 * WS_NS + 900, 3000, 0);
	assert_int_equal(ws_int_delta(&REF_FMT, &c, &b, &d), WS_INT_STALE);
	assert_int_equal(ws_int_delta(&exact, &c, &b, &d), WS_INT_OK);
	assert_int_equal(d.dt, 400);
	/* exact: a counter that went back cannot be compared */
	assert_int_equal(ws_int_delta(&exact, &a, &b, &d), WS_INT_STALE);
	struct ws_int_hop back = hop(2000 * WS_NS, 10, 0);
	assert_int_equal(ws_int_delta(&exact, &back, &b, &d), WS_INT_RESET);
	struct ws_int_hop norate = hop(3000 * WS_NS, 5000, 0);
	norate.rate = 0;
	assert_int_equal(ws_int_delta(&REF_FMT, &norate, &b, &d), WS_INT_RESET);
}

/* The narrow fields wrap: 2^24 ns (16.78 ms) of timestamp, 2^20 x 512 B
 * (512 MiB) of tx counter, 2^17 x 320 B of queue; differences are taken
 * modulo the width, as the reference's reader does. */
static void test_int_encoding_wraps(void **state)
{
	(void)state;
	struct ws_int_delta d = { WS_INIT_SIZE(struct ws_int_delta) };
	const uint64_t tx_wrap = (1ull << 20) * 512, t_wrap = 1ull << 24;
	struct ws_int_hop a = hop((t_wrap - 10) * WS_NS, tx_wrap - 1024, 0);
	struct ws_int_hop b = hop((t_wrap + 30) * WS_NS, tx_wrap + 2048, 0);
	assert_int_equal(ws_int_delta(&REF_FMT, &b, &a, &d), WS_INT_OK);
	assert_int_equal(d.dt, 40 * WS_NS);
	assert_int_equal(d.tx_bytes, 3072);
	/* a record older than the stored one reads as almost a full wrap later */
	assert_int_equal(ws_int_delta(&REF_FMT, &a, &b, &d), WS_INT_OK);
	assert_int_equal(d.dt, (t_wrap - 40) * WS_NS);
	assert_int_equal(d.tx_bytes, tx_wrap - 3072);
	/* two stamps a whole wrap apart read as no time at all */
	struct ws_int_hop c = hop(b.ts + t_wrap * WS_NS, b.tx_bytes + 512, 0);
	assert_int_equal(ws_int_delta(&REF_FMT, &c, &b, &d), WS_INT_STALE);
	/* the queue keeps its low 17 bits of 320-byte steps */
	struct ws_int_hop q = hop(b.ts + WS_US, b.tx_bytes, (uint32_t)((1u << 17) * 320 + 640));
	assert_int_equal(ws_int_delta(&REF_FMT, &q, &b, &d), WS_INT_OK);
	assert_int_equal(d.qlen, 640);
}

/* At 400 Gb/s the reference's multiplier (16) makes a tx step (2048 B)
 * longer than a data packet (1094 B): the run warns.  The automatic value
 * is capped at 8 (no warning), as is int_multi = 8. */
static uint64_t warnings_at_400g(const char *extra)
{
	th_write("one.txt", "1\n0 1 3 100 1000 0\n");
	struct ws_sim *sim = th_sim(th_fmt("[topology]\nname = fat-tree\nk = 4\n"
					   "link_rate = 400Gbps\n[cc]\nname = hpcc\n%s"
					   "[workload]\nname = flows\nfile = one.txt\n", extra));
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	ws_sim_free(sim);
	return st.warnings;
}

static void test_int_step_longer_than_packet_warns(void **state)
{
	(void)state;
	assert_int_equal(warnings_at_400g("[nic]\nint_multi = 16\n"), 1);
	assert_int_equal(warnings_at_400g(""), 0);
	assert_int_equal(warnings_at_400g("[nic]\nint_multi = 8\n"), 0);
	assert_int_equal(warnings_at_400g("[nic]\nint_encoding = exact\n"), 0);
}

/*
 * The scenario that shows the encoding: a ring of 16 x 2 MB flows (host i
 * to i + 1) on the k = 4 fat-tree.  The odd flows cross 3 or 5 switches,
 * the even ones one.  With the reference's coarse INT the max over noisy
 * hops reads higher utilization and the multi-hop flows run slower: their
 * mean FCT 230.5 us against 209.4 us with exact INT (+10 %) when the bounds
 * were set, while the flows under one switch stay within 0.7 % (201.7 us
 * against 203.1 us).
 */
static void ring_means(const char *extra, double *one, double *multi)
{
	char flows[512];
	int len = snprintf(flows, sizeof flows, "16\n");
	for (unsigned i = 0; i < 16; i++)
		len += snprintf(flows + len, sizeof flows - (size_t)len,
				"%u %u 3 100 2000000 0\n", i, (i + 1) % 16);
	struct ws_sim *sim = ccs_sim("hpcc", extra, flows);
	th_run(sim);
	*one = *multi = 0;
	for (uint32_t i = 0; i < 16; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		assert_true(fi.end != WS_TIME_NEVER);
		*(i % 2 ? multi : one) += (double)(fi.end - fi.start) / 8;
	}
	ws_sim_free(sim);
}

static void test_coarse_int_slows_multi_hop(void **state)
{
	(void)state;
	double one_ref, multi_ref, one_ex, multi_ex;
	ring_means(NULL, &one_ref, &multi_ref);
	ring_means("[nic]\nint_encoding = exact\n", &one_ex, &multi_ex);
	print_message("ring of 16 x 2 MB, mean FCT: one switch %.1f us (exact %.1f), "
		      "3-5 switches %.1f us (exact %.1f)\n", one_ref / WS_US,
		      one_ex / WS_US, multi_ref / WS_US, multi_ex / WS_US);
	assert_true(multi_ref > 1.05 * multi_ex);
	assert_true(fabs(one_ref - one_ex) < 0.03 * one_ex);
}

/* ---- scenarios ---------------------------------------------------------- */

#define HPCC_WIRE 1094u /* a full data packet with INT for five hops */
#define GOODPUT_MAX ccs_goodput_max(HPCC_WIRE) /* 91.41 Gb/s */

static void test_two_flows_share(void **state)
{
	(void)state;
	const struct ccs_two_flows *r = ccs_two_flows("hpcc", NULL);
	struct ccs_interval iv;
	ccs_two_flows_over(r, CCS_RUN / 2, CCS_RUN, GOODPUT_MAX, NULL, &iv);
	/* each 50 % +/- 15 %: fast react keeps a small standing imbalance,
	 * W_AI = 40 Mb/s being the only force towards fairness (measured
	 * 0.429 / 0.571; 0.455 / 0.545 with exact INT) */
	assert_true(iv.share > 0.35 && iv.share < 0.65);
	/* the link runs at about eta: 0.95 x 91.41 Gb/s of goodput (measured
	 * 95.1 %) */
	assert_true(iv.util > 0.85);
	assert_true(iv.util < 0.98);
	assert_int_equal(r->stats.drops, 0);
	assert_int_equal(r->stats.ecn_marks, 0); /* HPCC does not ask for ECN */
}

static void test_incast_queue_near_empty(void **state)
{
	(void)state;
	struct ccs_incast r, dcqcn;
	ccs_incast_run(&r, "hpcc", NULL, 10000000, "32 MiB buffer");
	ccs_incast_run(&dcqcn, "dcqcn", NULL, 10000000, "32 MiB buffer");
	ccs_incast_assert_lossless(&r);
	ccs_incast_assert_lossless(&dcqcn);
	/* the second half starts well after the first RTT's burst (measured:
	 * all eight active for 6.6 ms) */
	assert_true(r.all_active > 4 * WS_MS);
	/* after the first RTT's burst HPCC holds the queue near empty (a
	 * packet or so: measured 0.8 KB on average, 4.4 KB at most), DCQCN
	 * swings through hundreds of KB (279 KB on average) */
	assert_true(r.avg < 5e3);
	assert_true((double)r.max < 10e3);
	assert_true(dcqcn.avg > 100e3);
	assert_true(r.avg < dcqcn.avg / 20);
	/* and keeps the port busy: 80 MB (87.5 MB on the wire) in less than
	 * 1 / 0.9 of the time at line rate (measured 94.7 % busy) */
	ws_time line = ccs_line_time(CCS_INCAST_N * r.bytes, HPCC_WIRE);
	assert_true((double)r.done < (double)line / 0.9);
	/* a 1 MiB buffer: PFC pauses absorb the first RTT's burst, still
	 * lossless, and HPCC then drains the queue the same way */
	ccs_incast_run(&r, "hpcc", "[switch]\nbuffer = 1MiB\n", 10000000, "1 MiB buffer");
	ccs_incast_assert_lossless(&r);
	assert_true(r.stats.pfc_pauses > 0);
	assert_true(r.avg < 5e3);
	assert_true((double)r.max < 10e3);
}

static void test_new_flow_converges(void **state)
{
	(void)state;
	/* flow 0 alone on host 0's link; flow 1 joins at 1 ms */
	const struct ccs_two_flows *r = ccs_two_flows("hpcc", NULL);
	const double fair = ETA * GOODPUT_MAX / 2;
	ws_time conv = ccs_join_time(r, fair, 0.8, CCS_BIN);
	print_message("HPCC: a flow joining a busy link holds >= 80 %% of its fair "
		      "share (%.1f Gb/s) in every 10 us from %.0f us after it starts\n",
		      fair / 1e9, (double)conv / WS_US);
	/* measured 70 us */
	assert_true(conv <= 200 * WS_US);
}

/* [nic] var_window scales the kernel's window only: HPCC's own window,
 * already W = rate x T, must not be scaled by rate / line rate again */
static void test_var_window_leaves_cc_window(void **state)
{
	(void)state;
	static const char flows[] = "2\n4 0 3 100 400000000 0\n"
				    "8 0 3 100 400000000 0.0001\n";
	struct ws_sim *a = ccs_sim("hpcc", NULL, flows);
	struct ws_sim *b = ccs_sim("hpcc", "[nic]\nvar_window = true\n", flows);
	th_run_until(a, 2 * WS_MS);
	th_run_until(b, 2 * WS_MS);
	for (uint32_t i = 0; i < 2; i++)
		assert_int_equal(ccs_acked(a, i), ccs_acked(b, i));
	assert_true(ccs_acked(a, 1) > 0);
	ws_sim_free(a);
	ws_sim_free(b);
}

/* Freezing the whole network for 50 us and thawing it moves every flow's
 * finish by exactly 50 us: INT timestamps in flight move too, so HPCC's
 * per-hop rates see no gap */
static void test_freeze_thaw_shifts_int(void **state)
{
	(void)state;
	static const char flows[] = "2\n4 0 3 100 1000000 0\n"
				    "8 0 3 100 1000000 0.00001\n";
	struct ws_sim *sim = ccs_sim("hpcc", NULL, flows);
	th_run(sim);
	struct ws_flow_info base[2] = { { WS_INIT_SIZE(struct ws_flow_info) },
					{ WS_INIT_SIZE(struct ws_flow_info) } };
	for (uint32_t i = 0; i < 2; i++)
		assert_int_equal(ws_flow_get(sim, i, &base[i]), WS_OK);
	ws_sim_free(sim);

	sim = ccs_sim("hpcc", NULL, flows);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t *ports = calloc(fab->n_ports, sizeof *ports);
	for (uint32_t i = 0; i < fab->n_ports; i++)
		ports[i] = i;
	const uint32_t ids[] = { 0, 1 };
	struct ws_freeze_set set = { WS_INIT_SIZE(struct ws_freeze_set), ports, fab->n_ports, ids, 2 };
	const ws_time t1 = 40 * WS_US, delta = 50 * WS_US;
	struct ws_err err;
	th_run_until(sim, t1);
	assert_int_equal(ws_freeze(sim, &set, &err), WS_OK);
	th_run_until(sim, t1 + delta);
	assert_int_equal(ws_thaw(sim, &set, delta, &err), WS_OK);
	th_run(sim);
	for (uint32_t i = 0; i < 2; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		assert_int_equal(fi.end, base[i].end + delta);
		assert_int_equal(fi.sent, base[i].sent);
	}
	free(ports);
	ws_sim_free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_ack_only_stores),
		cmocka_unit_test(test_overload_cuts),
		cmocka_unit_test(test_idle_additive_then_multiplicative),
		cmocka_unit_test(test_smoothing_and_dt_cap),
		cmocka_unit_test(test_largest_hop_wins),
		cmocka_unit_test(test_fast_react_does_not_commit),
		cmocka_unit_test(test_clamps),
		cmocka_unit_test(test_base_fabric_or_path),
		cmocka_unit_test(test_malformed_feedback),
		cmocka_unit_test(test_parameter_bounds),
		cmocka_unit_test(test_int_encoding_known_answers),
		cmocka_unit_test(test_int_encoding_wraps),
		cmocka_unit_test(test_coarse_int_slows_multi_hop),
		cmocka_unit_test(test_int_step_longer_than_packet_warns),
		cmocka_unit_test(test_two_flows_share),
		cmocka_unit_test(test_incast_queue_near_empty),
		cmocka_unit_test(test_new_flow_converges),
		cmocka_unit_test(test_var_window_leaves_cc_window),
		cmocka_unit_test(test_freeze_thaw_shifts_int),
	};
	return cmocka_run_group_tests_name("hpcc", tests, NULL, ccs_teardown);
}
