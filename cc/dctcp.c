/* SPDX-License-Identifier: MIT */
/*
 * dctcp: DCTCP's control law (Alizadeh et al., "Data Center TCP (DCTCP)",
 * SIGCOMM 2010) applied to a sending rate, as RoCE studies use it and as
 * the HPCC ns-3 simulator implements it (alibaba-edu/High-Precision-
 * Congestion-Control, cc mode 8, simulation/run.py "dctcp" at 100 Gb/s).
 *
 * Switches mark CE (WS_CC_NEEDS_ECN) and the receiver echoes the marks in
 * its ACKs; there are no CNPs.  Per ACK, with R the current rate:
 *   - the marked packets the ACK covers (ack->ce_packets) are counted.  The
 *     reference counts ACKs carrying the echo; with the default ACK per
 *     packet ([nic] ack_interval = 1) the two are the same, and with
 *     coarser ACKs the packet count keeps the fraction below in packets;
 *   - once per window (the ACK passes the snd_nxt recorded at the last
 *     update): alpha <- (1 - g) alpha + g min(1, marked / batch), where
 *     batch is the packets in flight when the window began (snd_nxt - ack
 *     seq, in MTUs, plus one); the count restarts.  The first such ACK only
 *     records snd_nxt and the batch (snd_nxt / mtu + 1).  That ACK starts
 *     a new batch;
 *   - congestion window reduced (CWR) ends when an ACK passes the snd_nxt
 *     recorded at the last cut;
 *   - an ACK echoing CE outside CWR cuts R <- max(min_rate, R (1 -
 *     alpha / 2)) and enters CWR: at most one cut per window;
 *   - outside CWR, an ACK that started a new batch adds rate_ai (one MTU
 *     per RTT as a rate: 615 Mb/s for the reference's 13 us RTT), up to
 *     the line rate.
 * The window is the fabric's largest BDP scaled by R / line rate (the
 * reference's HAS_WIN 1, VAR_WIN 1), set at every rate change ([nic]
 * var_window does not scale a CC's window again); window = false leaves
 * the window to [nic] window.
 *
 * DCTCP's marking threshold is a switch setting, not the plugin's: the
 * reference marks every packet above K = 30 KB x (link Gb/s) / 10, i.e.
 * [switch] ecn_kmin = ecn_kmax = 300KB and ecn_pmax = 1 at 100 Gb/s (see
 * examples/dctcp.ini).  The kernel's defaults are DCQCN's RED thresholds.
 */
#include <warpsim/warpsim.h>

struct dctcp_flow {
	double alpha;
	uint64_t ecn_count;       /* marked packets since the last alpha update */
	uint64_t batch;           /* packets of the current window, for the fraction */
	uint64_t last_update_seq; /* snd_nxt at the last alpha update */
	uint64_t high_seq;        /* snd_nxt at the last cut: CWR ends past it */
	bool started;             /* the first window has been recorded */
	bool cwr;                 /* congestion window reduced: no cut, no increase */
};

struct dctcp_conf {
	double g;
	double alpha_init;
	uint64_t rate_ai;
	uint64_t min_rate;
	bool window;
};

static const struct ws_param dctcp_params[] = {
	WS_PARAM_FLOAT("g", struct dctcp_conf, g, "0.0625", "0", "1",
		       "alpha EWMA gain per window (1/16)"),
	WS_PARAM_FLOAT("alpha_init", struct dctcp_conf, alpha_init, "1", "0", "1",
		       "alpha of a new flow (the reference starts at 1)"),
	WS_PARAM_RATE("rate_ai", struct dctcp_conf, rate_ai, "615Mbps", "0bps", "1Tbps",
		      "additive increase per window without a cut (one MTU per 13 us RTT)"),
	WS_PARAM_RATE("min_rate", struct dctcp_conf, min_rate, "1Gbps", "1bps", "1Tbps",
		      "floor of the sending rate"),
	WS_PARAM_BOOL("window", struct dctcp_conf, window, "true",
		      "window = the fabric's largest BDP x rate / line rate (reference); false: [nic] window"),
	WS_PARAM_END
};

static void dctcp_set_rate(struct ws_cc_flow *f, uint64_t rate)
{
	const struct dctcp_conf *c = f->conf;
	ws_cc_set_rate(f, rate);
	if (!c->window)
		return;
	__extension__ typedef unsigned __int128 u128;
	uint64_t w = (uint64_t)((u128)f->max_bdp * f->rate / f->line_rate);
	ws_cc_set_window(f, w ? w : 1);
}

static void dctcp_init(struct ws_cc_flow *f, ws_time now)
{
	const struct dctcp_conf *c = f->conf;
	struct dctcp_flow *s = f->state;
	(void)now;
	s->alpha = c->alpha_init;
	ws_cc_set_cnp(f, WS_CNP_NONE, 0);
	dctcp_set_rate(f, f->line_rate);
}

static void dctcp_on_ack(struct ws_cc_flow *f, const struct ws_cc_ack *ack)
{
	const struct dctcp_conf *c = f->conf;
	struct dctcp_flow *s = f->state;
	bool new_batch = false;
	s->ecn_count += ack->ce_packets;
	if (ack->seq > s->last_update_seq) {
		new_batch = true;
		uint64_t ahead = f->snd_nxt > ack->seq ? f->snd_nxt - ack->seq : 0;
		if (!s->started) {
			s->started = true;
			s->batch = f->snd_nxt / f->mtu + 1;
		} else {
			double frac = (double)s->ecn_count / (double)s->batch;
			if (frac > 1)
				frac = 1;
			s->alpha = (1 - c->g) * s->alpha + c->g * frac;
			s->ecn_count = 0;
			s->batch = ahead / f->mtu + 1;
		}
		s->last_update_seq = f->snd_nxt;
	}
	if (s->cwr && ack->seq > s->high_seq)
		s->cwr = false;
	uint64_t r = f->rate;
	if (ack->ecn_echo && !s->cwr) {
		double cut = (double)r * (1 - s->alpha / 2);
		r = cut < (double)c->min_rate ? c->min_rate : (uint64_t)cut;
		s->cwr = true;
		s->high_seq = f->snd_nxt;
	}
	if (!s->cwr && new_batch) {
		r += c->rate_ai;
		if (r > f->line_rate)
			r = f->line_rate;
	}
	if (r != f->rate)
		dctcp_set_rate(f, r);
}

/* An accelerator moved the flow on to `rate`; alpha stays. */
static void dctcp_on_set_rate(struct ws_cc_flow *f, uint64_t rate, ws_time now)
{
	(void)now;
	dctcp_set_rate(f, rate);
}

static const struct ws_cc_ops dctcp_ops = {
	.size = sizeof(struct ws_cc_ops),
	.needs = WS_CC_NEEDS_ECN | WS_CC_IDLE_LINE_RATE | WS_CC_REF_KEEPS_GAP,
	.flow_state_size = sizeof(struct dctcp_flow),
	.init = dctcp_init,
	.on_ack = dctcp_on_ack,
	.set_rate = dctcp_on_set_rate,
};

static const struct ws_plugin dctcp_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "dctcp",
	.version = "1.0.0",
	.summary = "DCTCP (Alizadeh et al. 2010) as a rate, reference ns-3 defaults: ECN-fraction rate control",
	.params = dctcp_params,
	.conf_size = sizeof(struct dctcp_conf),
	.ops = &dctcp_ops,
};

WS_PLUGIN_EXPORT(dctcp_plugin)
