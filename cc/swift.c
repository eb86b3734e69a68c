/* SPDX-License-Identifier: MIT */
/*
 * swift: delay-based window control (Kumar et al., "Swift: Delay is Simple
 * and Effective for Congestion Control in the Datacenter", SIGCOMM 2020,
 * Algorithm 1 and section 3.5), with the constants htsim's Swift uses
 * (Broadcom/csg-htsim, sim/swift.cpp): ai 1, beta 0.8, max_mdf 0.5, a base
 * target of 20 us plus h = base target / 6.55 per hop, flow scaling over
 * fs_range = 5 x base target between fs_min_cwnd 0.1 and fs_max_cwnd 100
 * packets, and a window reset after 5 retransmission timeouts in a row.
 *
 * Swift needs nothing from the switches: its signal is each ACK's RTT
 * (under [nic] transport = sr, each packet's).  The window cwnd is counted
 * in packets of f->mtu payload bytes, as in the paper.
 *   - Target delay: base_target + hops x h + fs, where the flow-scaling
 *     term fs = fs_alpha / sqrt(cwnd) + fs_beta, clamped to [0, fs_range],
 *     with fs_alpha = fs_range / (1/sqrt(fs_min_cwnd) - 1/sqrt(fs_max_cwnd))
 *     and fs_beta = -fs_alpha / sqrt(fs_max_cwnd): small windows get a
 *     larger target, which is what makes many flows share fairly.
 *   - Every ACK: with delay = its RTT below the target, additive increase
 *     cwnd += ai x acked / cwnd (cwnd >= 1) or ai x acked (cwnd < 1), acked
 *     in packets delivered for the first time (cumulative bytes plus
 *     selectively acknowledged packets, at most the packets the ACK covers);
 *     otherwise, at most once per RTT, the multiplicative decrease
 *     cwnd x max(1 - beta (delay - target) / delay, 1 - max_mdf).
 *   - "Once per RTT": a decrease is allowed when the last one is at least
 *     the smoothed RTT old (htsim's EWMA, gain 1/8, first sample as is).
 *   - Losses (on_loss): a SACK gap or a trim is the paper's fast recovery:
 *     the retransmission count restarts and cwnd x (1 - max_mdf) if a
 *     decrease is allowed; a timeout counts one more retransmission, and
 *     at rtx_reset_threshold in a row cwnd falls to min_cwnd, otherwise
 *     it is cut like fast recovery.  Any ACK restarts the count.  The NACK
 *     of a trimmed packet is left to on_loss: its header came back in the
 *     control class, and its delay says nothing of the data path.
 *   - cwnd stays within [min_cwnd, max_cwnd].  At or above one packet the
 *     window is cwnd x mtu bytes at line rate; below one packet the window
 *     is one packet and the flow is paced at cwnd x mtu / srtt.
 * The paper also separates fabric and host delay and uses NIC timestamps;
 * warpsim has no host delay, so the whole RTT is the fabric delay.
 */
#include <math.h>

#include <warpsim/warpsim.h>

struct swift_flow {
	double cwnd;             /* packets */
	double srtt;             /* ps, smoothed RTT; 0 before the first sample */
	ws_time last_decrease;   /* when cwnd last went down */
	uint32_t retransmit_cnt; /* timeouts in a row */
	bool decreased;          /* last_decrease is set */
};

struct swift_conf {
	double ai;
	double beta;
	double max_mdf;
	ws_time base_target;
	ws_time h;
	ws_time fs_range;
	double fs_min_cwnd;
	double fs_max_cwnd;
	double min_cwnd;
	double max_cwnd;
	double init_cwnd;
	uint64_t rtx_reset_threshold;
};

static const struct ws_param swift_params[] = {
	WS_PARAM_FLOAT("ai", struct swift_conf, ai, "1", "0", "100",
		       "additive increase, packets per RTT while the delay is below target"),
	WS_PARAM_FLOAT("beta", struct swift_conf, beta, "0.8", "0", "1",
		       "multiplicative decrease: cwnd x (1 - beta (delay - target) / delay)"),
	WS_PARAM_FLOAT("max_mdf", struct swift_conf, max_mdf, "0.5", "0", "1",
		       "largest decrease per RTT: cwnd never drops below (1 - max_mdf) x cwnd at once"),
	WS_PARAM_TIME("base_target", struct swift_conf, base_target, "20us", "1ns", "1s",
		      "target delay before hop and flow scaling"),
	WS_PARAM_TIME("h", struct swift_conf, h, "3053ns", "0s", "1s",
		      "target delay added per link on the path (htsim: base_target / 6.55)"),
	WS_PARAM_TIME("fs_range", struct swift_conf, fs_range, "100us", "0s", "1s",
		      "flow scaling: the most it adds to the target (at fs_min_cwnd)"),
	WS_PARAM_FLOAT("fs_min_cwnd", struct swift_conf, fs_min_cwnd, "0.1", "0.0001", "1e6",
		       "flow scaling: the window (packets) that gets the whole fs_range"),
	WS_PARAM_FLOAT("fs_max_cwnd", struct swift_conf, fs_max_cwnd, "100", "0.0001", "1e6",
		       "flow scaling: the window (packets) from which it adds nothing"),
	WS_PARAM_FLOAT("min_cwnd", struct swift_conf, min_cwnd, "0.01", "0.0001", "1e6",
		       "smallest window, packets (below 1 the flow is paced)"),
	WS_PARAM_FLOAT("max_cwnd", struct swift_conf, max_cwnd, "1000", "1", "1e9",
		       "largest window, packets"),
	WS_PARAM_FLOAT("init_cwnd", struct swift_conf, init_cwnd, "0", "0", "1e9",
		       "window of a new flow, packets; 0: the path's BDP"),
	WS_PARAM_UINT("rtx_reset_threshold", struct swift_conf, rtx_reset_threshold, "5",
		      "1", "1000", "timeouts in a row after which cwnd falls to min_cwnd"),
	WS_PARAM_END
};

static int swift_validate(const void *conf, struct ws_err *err)
{
	const struct swift_conf *c = conf;
	if (c->fs_min_cwnd >= c->fs_max_cwnd)
		return ws_err_key(err, WS_EINVAL, "fs_min_cwnd",
				  "fs_min_cwnd (%g) must be below fs_max_cwnd (%g)",
				  c->fs_min_cwnd, c->fs_max_cwnd);
	if (c->min_cwnd > c->max_cwnd)
		return ws_err_key(err, WS_EINVAL, "min_cwnd",
				  "min_cwnd (%g) above max_cwnd (%g)", c->min_cwnd,
				  c->max_cwnd);
	return WS_OK;
}

/* The target delay for a window of `cwnd` packets on f's path, ps. */
static double swift_target(const struct ws_cc_flow *f, double cwnd)
{
	const struct swift_conf *c = f->conf;
	double range = (double)c->fs_range;
	double alpha = range / (1 / sqrt(c->fs_min_cwnd) - 1 / sqrt(c->fs_max_cwnd));
	double beta = -alpha / sqrt(c->fs_max_cwnd);
	double fs = cwnd > 0 ? alpha / sqrt(cwnd) + beta : range;
	if (fs > range)
		fs = range;
	if (fs < 0)
		fs = 0;
	return (double)c->base_target + (double)f->hops * (double)c->h + fs;
}

/* The RTT the flow paces with below one packet and gates decreases by. */
static double swift_rtt(const struct ws_cc_flow *f, const struct swift_flow *s)
{
	return s->srtt > 0 ? s->srtt : (double)f->base_rtt;
}

/* Clamp cwnd, note a decrease, and hand window and rate to the kernel. */
static void swift_apply(struct ws_cc_flow *f, struct swift_flow *s, double prev,
			ws_time now)
{
	const struct swift_conf *c = f->conf;
	if (s->cwnd < c->min_cwnd)
		s->cwnd = c->min_cwnd;
	if (s->cwnd > c->max_cwnd)
		s->cwnd = c->max_cwnd;
	if (s->cwnd < prev) {
		s->last_decrease = now;
		s->decreased = true;
	}
	uint64_t rate = f->line_rate;
	double bytes = s->cwnd * f->mtu;
	if (s->cwnd < 1) {
		rate = (uint64_t)(bytes * 8 * (double)WS_SEC / swift_rtt(f, s));
		bytes = f->mtu;
	}
	ws_cc_set_window(f, (uint64_t)bytes);
	if (rate != f->rate)
		ws_cc_set_rate(f, rate);
}

static bool swift_can_decrease(const struct ws_cc_flow *f, const struct swift_flow *s,
			       ws_time now)
{
	return !s->decreased || (double)(now - s->last_decrease) >= swift_rtt(f, s);
}

static void swift_init(struct ws_cc_flow *f, ws_time now)
{
	const struct swift_conf *c = f->conf;
	struct swift_flow *s = f->state;
	ws_cc_set_cnp(f, WS_CNP_NONE, 0);
	s->cwnd = c->init_cwnd > 0 ? c->init_cwnd : (double)f->bdp / f->mtu;
	swift_apply(f, s, s->cwnd, now);
}

/* Packets this ACK reports delivered for the first time: what it moved the
 * cumulative point by plus what it selectively acknowledged, but no more
 * than the data packets it covers (under sr a cumulative jump also covers
 * packets SACKed before). */
static double swift_acked(const struct ws_cc_flow *f, const struct ws_cc_ack *ack)
{
	double acked = (double)ack->newly_acked / f->mtu + ack->sacked;
	return ack->packets && acked > ack->packets ? ack->packets : acked;
}

static void swift_on_ack(struct ws_cc_flow *f, const struct ws_cc_ack *ack)
{
	const struct swift_conf *c = f->conf;
	struct swift_flow *s = f->state;
	if (ack->trimmed)
		return; /* a header in the control class: on_loss reacts */
	double delay = (double)ack->rtt;
	/* the decrease gate uses the RTT known before this sample, as htsim */
	bool can_decrease = swift_can_decrease(f, s, ack->now);
	s->srtt = s->srtt > 0 ? 0.875 * s->srtt + 0.125 * delay : delay;
	s->retransmit_cnt = 0;
	double prev = s->cwnd;
	double target = swift_target(f, s->cwnd);
	if (delay < target) {
		double acked = swift_acked(f, ack);
		if (s->cwnd >= 1)
			s->cwnd += c->ai * acked / s->cwnd;
		else
			s->cwnd += c->ai * acked;
	} else if (can_decrease) {
		double md = 1 - c->beta * (delay - target) / delay;
		s->cwnd *= fmax(md, 1 - c->max_mdf);
	}
	swift_apply(f, s, prev, ack->now);
}

static void swift_on_loss(struct ws_cc_flow *f, enum ws_cc_loss kind, uint32_t packets,
			  ws_time now)
{
	const struct swift_conf *c = f->conf;
	struct swift_flow *s = f->state;
	(void)packets;
	double prev = s->cwnd;
	bool can_decrease = swift_can_decrease(f, s, now);
	if (kind == WS_LOSS_TIMEOUT) {
		if (++s->retransmit_cnt >= c->rtx_reset_threshold)
			s->cwnd = c->min_cwnd;
		else if (can_decrease)
			s->cwnd *= 1 - c->max_mdf;
	} else {
		s->retransmit_cnt = 0;
		if (can_decrease)
			s->cwnd *= 1 - c->max_mdf;
	}
	swift_apply(f, s, prev, now);
}

static void swift_on_shift(struct ws_cc_flow *f, ws_time delta)
{
	struct swift_flow *s = f->state;
	if (s->decreased)
		s->last_decrease += delta;
}

/* An accelerator moved the flow on to `rate`: the window that carries it
 * over the smoothed RTT. */
static void swift_set_rate(struct ws_cc_flow *f, uint64_t rate, ws_time now)
{
	struct swift_flow *s = f->state;
	s->cwnd = (double)rate / 8 * swift_rtt(f, s) / (double)WS_SEC / f->mtu;
	swift_apply(f, s, s->cwnd, now);
}

static const struct ws_cc_ops swift_ops = {
	.size = sizeof(struct ws_cc_ops),
	.needs = 0,
	.flow_state_size = sizeof(struct swift_flow),
	.init = swift_init,
	.on_ack = swift_on_ack,
	.on_shift = swift_on_shift,
	.set_rate = swift_set_rate,
	.on_loss = swift_on_loss,
};

static const struct ws_plugin swift_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "swift",
	.version = "1.0.0",
	.summary = "Swift (Kumar et al. 2020), htsim's constants: delay-target window, pacing below one packet",
	.params = swift_params,
	.conf_size = sizeof(struct swift_conf),
	.validate = swift_validate,
	.ops = &swift_ops,
};

WS_PLUGIN_EXPORT(swift_plugin)
