/* SPDX-License-Identifier: MIT */
/*
 * hpcc: High Precision Congestion Control (Li et al., "HPCC: High Precision
 * Congestion Control", SIGCOMM 2019), as the HPCC ns-3 simulator implements
 * it (alibaba-edu/High-Precision-Congestion-Control, rdma-hw.cc: HandleAckHp,
 * UpdateRateHp, FastReactHp; published settings in run.py: mode 3,
 * U_TARGET 0.95, MI_THRESH 0, RATE_AI 40 Mb/s at 100 Gb/s, FAST_REACT 1,
 * MULTI_RATE 0, HAS_WIN 1, VAR_WIN 1, MIN_RATE 1000 Mb/s).
 *
 * Every switch on the path appends an INT record to each data packet at
 * dequeue (time, the port's cumulative tx bytes, its queue bytes, its link
 * rate) and the receiver echoes them in the ACK.  Per ACK, for each hop i,
 * against the record of that hop the flow saw last:
 *     dt_i = ts_i - ts'_i,  txrate_i = (tx_i - tx'_i) * 8 / dt_i,
 *     u_i  = txrate_i / B_i + min(q_i, q'_i) * 8 / (B_i * T);
 * U is the largest u_i and dt that hop's dt_i, capped at T; the smoothed
 * utilization u <- (u (T - dt) + U dt) / T (it starts at 1, as there);
 * k = u / eta.  If k >= 1 or the stage reached max_stage, R = R_c / k +
 * rate_ai and the stage restarts at 0; otherwise R = R_c + rate_ai and the
 * stage counts up.  R is clamped to [min_rate, line rate] and applied at
 * once, with the window W * R / line rate (the reference's variable window).
 * R_c and the stage are committed only on a full update, when the ACK
 * passes the sequence recorded at the last commit (snd_nxt then), so about
 * once per RTT; the ACKs in between ("fast react") apply R without
 * committing it, or are ignored when fast_react is off.
 *
 * T and W are the fabric's largest base RTT and BDP for every flow, as the
 * reference does (base = fabric); base = path uses the flow's own.  The
 * plugin scales its window itself; the kernel's [nic] var_window leaves a
 * window a CC set alone.
 *
 * INT is read through ws_int_delta(), in the format of [nic] int_encoding:
 * by default the reference's (24-bit ns timestamps, tx bytes in 512-byte
 * and queues in 320-byte steps at 100 Gb/s, counters that wrap), whose
 * coarse steps make a hop's utilization noisier, and the max over hops of
 * noisy readings higher, than exact values would (int_encoding = exact).
 *
 * The first ACK carrying INT only stores the records.  A record no newer
 * than the stored one (no time elapsed in the encoded timestamp), an exact
 * tx counter that went backwards or a link rate of 0 makes that hop sit out
 * the ACK (the reference would divide by zero); a change in the number of
 * records (the path changed) starts over from the new records without a
 * rate change.
 */
#include <math.h>
#include <stdio.h>

#include <warpsim/warpsim.h>

enum { BASE_FABRIC = 0, BASE_PATH = 1 };

static const char *const hpcc_bases[] = { "fabric", "path", NULL };

struct hpcc_conf {
	double eta;
	uint64_t max_stage;
	uint64_t rate_ai;      /* bps */
	uint64_t min_rate;     /* bps */
	bool fast_react;
	bool window;
	int base;              /* BASE_* */
};

static const struct ws_param hpcc_params[] = {
	WS_PARAM_FLOAT("eta", struct hpcc_conf, eta, "0.95", "0", "1",
		       "target utilization eta, above 0 (reference and paper 0.95)"),
	WS_PARAM_UINT("max_stage", struct hpcc_conf, max_stage, "0", "0", "1000",
		      "additive-increase steps before a multiplicative one (reference 0; paper 5)"),
	WS_PARAM_RATE("rate_ai", struct hpcc_conf, rate_ai, "40Mbps", "0bps", "1Tbps",
		      "additive increase W_AI, as a rate (reference 40Mbps at 100Gbps)"),
	WS_PARAM_RATE("min_rate", struct hpcc_conf, min_rate, "1Gbps", "1bps", "1Tbps",
		      "floor of the sending rate (reference 1Gbps)"),
	WS_PARAM_BOOL("fast_react", struct hpcc_conf, fast_react, "true",
		      "react to every ACK between full updates, without committing R_c (reference true)"),
	WS_PARAM_BOOL("window", struct hpcc_conf, window, "true",
		      "limit bytes in flight to W x rate / line rate (reference HAS_WIN 1, VAR_WIN 1); false: [nic] window applies"),
	WS_PARAM_ENUM("base", struct hpcc_conf, base, "fabric", hpcc_bases,
		      "T and W: fabric = the largest base RTT and BDP (reference); path = the flow's own"),
	WS_PARAM_END
};

struct hpcc_flow {
	struct ws_int_hop hop[WS_INT_MAX_HOPS]; /* the last record seen per hop */
	uint32_t n_hops;         /* records stored; 0: no INT seen yet */
	uint32_t stage;          /* incStage: additive steps since the last multiplicative one */
	double u;                /* smoothed utilization of the path */
	uint64_t rate_ref;       /* R_c, the committed reference rate, bps */
	uint64_t last_update_seq; /* a full update when an ACK passes this */
};

static int hpcc_validate(const void *conf, struct ws_err *err)
{
	const struct hpcc_conf *c = conf;
	if (!(c->eta > 0)) {
		ws_err_key(err, WS_EINVAL, "eta",
			   "eta = %g: the target utilization must be above 0 (k = u / eta)",
			   c->eta);
		return WS_EINVAL;
	}
	return WS_OK;
}

static ws_time hpcc_base_rtt(const struct ws_cc_flow *f)
{
	const struct hpcc_conf *c = f->conf;
	return c->base == BASE_PATH ? f->base_rtt : f->max_base_rtt;
}

static uint64_t hpcc_base_window(const struct ws_cc_flow *f)
{
	const struct hpcc_conf *c = f->conf;
	return c->base == BASE_PATH ? f->bdp : f->max_bdp;
}

/* The window for rate r: W * r / line rate, at least one byte (0 is none). */
static void hpcc_set_window(struct ws_cc_flow *f, uint64_t r)
{
	const struct hpcc_conf *c = f->conf;
	if (!c->window)
		return;
	__extension__ typedef unsigned __int128 u128;
	uint64_t w = (uint64_t)((u128)hpcc_base_window(f) * r / f->line_rate);
	ws_cc_set_window(f, w ? w : 1);
}

static void hpcc_init(struct ws_cc_flow *f, ws_time now)
{
	struct hpcc_flow *s = f->state;
	(void)now;
	s->u = 1.0;
	s->rate_ref = f->line_rate;
	ws_cc_set_rate(f, f->line_rate);
	hpcc_set_window(f, f->line_rate);
}

static void hpcc_store(struct hpcc_flow *s, const struct ws_cc_ack *ack)
{
	for (unsigned i = 0; i < ack->int_n; i++)
		s->hop[i] = ack->int_hop[i];
	s->n_hops = ack->int_n;
}

/*
 * The path's utilization U from this ACK's records against the stored ones,
 * and the dt of the hop that gave it; false when no hop could be measured.
 */
static bool hpcc_measure(struct hpcc_flow *s, const struct ws_cc_flow *f,
			 const struct ws_cc_ack *ack, ws_time T, double *U_out,
			 ws_time *dt_out)
{
	const struct ws_int_format *fmt = ws_sim_int_format(f->sim);
	double U = 0;
	ws_time dt = 0;
	bool any = false;
	double T_s = (double)T / (double)WS_SEC;
	for (unsigned i = 0; i < ack->int_n; i++) {
		const struct ws_int_hop *h = &ack->int_hop[i];
		struct ws_int_hop *prev = &s->hop[i];
		struct ws_int_delta d = { WS_INIT_SIZE(struct ws_int_delta) };
		int st = ws_int_delta(fmt, h, prev, &d);
		if (st == WS_INT_STALE)
			continue; /* the same or an older record: nothing elapsed */
		if (st == WS_INT_RESET) {
			*prev = *h;
			continue;
		}
		double B = (double)h->rate;
		double tx_rate = (double)d.tx_bytes * 8 / ((double)d.dt / (double)WS_SEC);
		uint64_t q = d.qlen < d.qlen_prev ? d.qlen : d.qlen_prev;
		double u = tx_rate / B + (double)q * 8 / (B * T_s);
		any = true;
		if (u > U) {
			U = u;
			dt = d.dt;
		}
		*prev = *h;
	}
	*U_out = U;
	*dt_out = dt;
	return any;
}

static void hpcc_on_ack(struct ws_cc_flow *f, const struct ws_cc_ack *ack)
{
	const struct hpcc_conf *c = f->conf;
	struct hpcc_flow *s = f->state;
	ws_time T = hpcc_base_rtt(f);
	if (ack->int_n == 0 || ack->int_n > WS_INT_MAX_HOPS || T == 0)
		return; /* no switch stamped this packet: nothing to measure */
	bool full = ack->seq > s->last_update_seq;
	if (!full && !c->fast_react)
		return;
	if (s->n_hops != ack->int_n) {
		/* the first records (the reference's first RTT, even on a fast
		 * react), or the path changed: start over from these */
		bool first = s->n_hops == 0;
		hpcc_store(s, ack);
		if ((first || full) && f->snd_nxt > s->last_update_seq)
			s->last_update_seq = f->snd_nxt;
		return;
	}
	double U;
	ws_time dt;
	if (hpcc_measure(s, f, ack, T, &U, &dt)) {
		if (dt > T)
			dt = T;
		s->u = (s->u * (double)(T - dt) + U * (double)dt) / (double)T;
		double k = s->u / c->eta;
		double r;
		uint32_t stage;
		if (k >= 1 || s->stage >= c->max_stage) {
			/* R_c / k truncated to whole bps, as the reference's DataRate */
			r = floor((double)s->rate_ref / k) + (double)c->rate_ai;
			stage = 0;
		} else {
			r = (double)s->rate_ref + (double)c->rate_ai;
			stage = s->stage + 1;
		}
		if (!(r >= (double)c->min_rate))
			r = (double)c->min_rate; /* also a NaN */
		if (r > (double)f->line_rate)
			r = (double)f->line_rate;
		uint64_t rate = (uint64_t)r;
		ws_cc_set_rate(f, rate);
		hpcc_set_window(f, f->rate);
		if (full) {
			s->rate_ref = f->rate;
			s->stage = stage;
		}
	}
	if (full && f->snd_nxt > s->last_update_seq)
		s->last_update_seq = f->snd_nxt;
}

static void hpcc_on_shift(struct ws_cc_flow *f, ws_time delta)
{
	struct hpcc_flow *s = f->state;
	/* records taken before the freeze meet records taken after it; the
	 * ports of the path are frozen with the flow, so the frozen span is
	 * not time in which they could have sent */
	for (unsigned i = 0; i < s->n_hops; i++)
		s->hop[i].ts += delta;
}

/* An accelerator moved the flow on to `rate`: the reference rate and the
 * window follow, the INT history is kept. */
static void hpcc_set_rate(struct ws_cc_flow *f, uint64_t rate, ws_time now)
{
	struct hpcc_flow *s = f->state;
	(void)now;
	ws_cc_set_rate(f, rate);
	s->rate_ref = f->rate;
	s->stage = 0;
	hpcc_set_window(f, f->rate);
}

/* HPCC fills eta of its bottleneck, not the whole link. */
static double hpcc_utilization(const void *conf)
{
	return ((const struct hpcc_conf *)conf)->eta;
}

static const struct ws_cc_ops hpcc_ops = {
	.size = sizeof(struct ws_cc_ops),
	.needs = WS_CC_NEEDS_INT,
	.flow_state_size = sizeof(struct hpcc_flow),
	.init = hpcc_init,
	.on_ack = hpcc_on_ack,
	.on_shift = hpcc_on_shift,
	.set_rate = hpcc_set_rate,
	.utilization = hpcc_utilization,
};

static const struct ws_plugin hpcc_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "hpcc",
	.version = "1.0.0",
	.summary = "HPCC (Li et al. 2019), reference ns-3 defaults: INT-driven rate and window",
	.params = hpcc_params,
	.conf_size = sizeof(struct hpcc_conf),
	.validate = hpcc_validate,
	.ops = &hpcc_ops,
};

WS_PLUGIN_EXPORT(hpcc_plugin)
