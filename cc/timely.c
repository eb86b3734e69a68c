/* SPDX-License-Identifier: MIT */
/*
 * timely: RTT-gradient rate control (Mittal et al., "TIMELY: RTT-based
 * Congestion Control for the Datacenter", SIGCOMM 2015), as the HPCC ns-3
 * simulator implements it (alibaba-edu/High-Precision-Congestion-Control,
 * cc mode 7, simulation/run.py "timely" at 100 Gb/s).
 *
 * TIMELY needs nothing from the switches: no ECN, no INT.  Its only signal
 * is the RTT of each ACK (now minus the send time of the data packet it
 * acknowledges).  The rate is updated once per RTT, on the first ACK that
 * acknowledges a byte sent after the previous update (ack seq > the
 * snd_nxt recorded then); the very first such ACK only records its RTT.
 * At an update, with R the current rate:
 *   - rtt_diff <- (1 - alpha) rtt_diff + alpha (rtt - prev_rtt), and the
 *     normalised gradient is rtt_diff / min_rtt;
 *   - rtt < t_low: increase; rtt > t_high: R <- R (1 - beta (1 - t_high /
 *     rtt)); otherwise a gradient <= 0 increases and a positive gradient
 *     gives R <- R (1 - beta gradient), the factor floored at 0;
 *   - an increase adds rate_ai, or rate_hai once hai_threshold increases
 *     in a row have happened; a decrease resets that count.  The paper's
 *     hyper-active increase adds N x delta after N = 5 updates with a
 *     non-positive gradient; the reference counts every increase (those
 *     below t_low too) and its rate_hai is 5 x rate_ai;
 *   - the result is kept within [min_rate, line rate].
 * As in the reference, ACKs between updates change nothing (its "fast
 * react" for TIMELY is empty) and the previous RTT is the sample of the
 * previous update, not of the previous ACK.
 * The reference has no window for TIMELY (HAS_WIN 0): the plugin leaves the
 * window to [nic] window.  The reference's TIMELY runs put ACKs in the
 * strict-priority queue ([switch] ack_high_priority = true), so the RTT
 * measures the data direction only; examples/timely.ini does the same.
 */
#include <stdio.h>

#include <warpsim/warpsim.h>

struct timely_flow {
	uint64_t last_update_seq; /* snd_nxt at the last update */
	ws_time prev_rtt;         /* RTT sample of the last update, ps */
	double rtt_diff;          /* EWMA of RTT differences, ps */
	uint64_t inc_stage;       /* increases in a row since the last decrease */
	bool started;             /* the first update (RTT only) has happened */
};

struct timely_conf {
	double alpha;
	double beta;
	ws_time t_low;
	ws_time t_high;
	ws_time min_rtt;
	uint64_t rate_ai;
	uint64_t rate_hai;
	uint64_t hai_threshold;
	uint64_t min_rate;
};

static const struct ws_param timely_params[] = {
	WS_PARAM_FLOAT("alpha", struct timely_conf, alpha, "0.875", "0", "1",
		       "EWMA weight of the newest RTT difference"),
	WS_PARAM_FLOAT("beta", struct timely_conf, beta, "0.8", "0", "1",
		       "multiplicative decrease factor"),
	WS_PARAM_TIME("t_low", struct timely_conf, t_low, "50us", "0s", "1s",
		      "below this RTT the rate always increases"),
	WS_PARAM_TIME("t_high", struct timely_conf, t_high, "500us", "1ns", "1s",
		      "above this RTT the rate decreases by beta (1 - t_high / rtt)"),
	WS_PARAM_TIME("min_rtt", struct timely_conf, min_rtt, "20us", "1ns", "1s",
		      "normalises the RTT gradient (gradient = rtt_diff / min_rtt)"),
	WS_PARAM_RATE("rate_ai", struct timely_conf, rate_ai, "100Mbps", "0bps", "1Tbps",
		      "additive increase per update (delta)"),
	WS_PARAM_RATE("rate_hai", struct timely_conf, rate_hai, "500Mbps", "0bps", "1Tbps",
		      "hyper-active increase per update after hai_threshold increases in a row"),
	WS_PARAM_UINT("hai_threshold", struct timely_conf, hai_threshold, "5", "0", "1000",
		      "N: increases in a row before rate_hai replaces rate_ai"),
	WS_PARAM_RATE("min_rate", struct timely_conf, min_rate, "1Gbps", "1bps", "1Tbps",
		      "floor of the sending rate"),
	WS_PARAM_END
};

static int timely_validate(const void *conf, struct ws_err *err)
{
	const struct timely_conf *c = conf;
	if (c->t_low >= c->t_high) {
		ws_err_key(err, WS_EINVAL, "t_low", "t_low (%gus) must be below t_high (%gus)",
			   (double)c->t_low / (double)WS_US,
			   (double)c->t_high / (double)WS_US);
		return WS_EINVAL;
	}
	if (c->rate_ai > c->rate_hai) {
		ws_err_key(err, WS_EINVAL, "rate_ai", "rate_ai (%llu bps) above rate_hai (%llu bps)",
			   (unsigned long long)c->rate_ai,
			   (unsigned long long)c->rate_hai);
		return WS_EINVAL;
	}
	return WS_OK;
}

static void timely_init(struct ws_cc_flow *f, ws_time now)
{
	(void)now;
	ws_cc_set_cnp(f, WS_CNP_NONE, 0);
}

/* One update on the RTT sample `rtt`, by the rules above. */
static void timely_update(struct ws_cc_flow *f, struct timely_flow *s,
			  ws_time rtt)
{
	const struct timely_conf *c = f->conf;
	double new_diff = (double)rtt - (double)s->prev_rtt;
	double rtt_diff = (1 - c->alpha) * s->rtt_diff + c->alpha * new_diff;
	double gradient = rtt_diff / (double)c->min_rtt;
	double factor = 1.0;
	bool increase;
	if (rtt < c->t_low) {
		increase = true;
	} else if (rtt > c->t_high) {
		increase = false;
		factor = 1 - c->beta * (1 - (double)c->t_high / (double)rtt);
	} else if (gradient <= 0) {
		increase = true;
	} else {
		increase = false;
		factor = 1 - c->beta * gradient;
		if (factor < 0)
			factor = 0;
	}
	s->rtt_diff = rtt_diff;
	uint64_t r;
	if (increase) {
		r = f->rate + (s->inc_stage < c->hai_threshold ? c->rate_ai : c->rate_hai);
		if (r > f->line_rate)
			r = f->line_rate;
		s->inc_stage++;
	} else {
		r = (uint64_t)((double)f->rate * factor);
		s->inc_stage = 0;
	}
	if (r < c->min_rate)
		r = c->min_rate;
	ws_cc_set_rate(f, r);
}

static void timely_on_ack(struct ws_cc_flow *f, const struct ws_cc_ack *ack)
{
	struct timely_flow *s = f->state;
	if (ack->seq <= s->last_update_seq)
		return; /* an update per RTT: this ACK's data was sent before it */
	if (s->started)
		timely_update(f, s, ack->rtt);
	/* after a go-back-N snd_nxt may lie below the recorded sequence: the
	 * reference then keeps both the sequence and the previous RTT */
	if (f->snd_nxt > s->last_update_seq) {
		s->last_update_seq = f->snd_nxt;
		s->prev_rtt = ack->rtt;
		s->started = true;
	}
}

/* An accelerator moved the flow on to `rate`; the gradient history stays. */
static void timely_set_rate(struct ws_cc_flow *f, uint64_t rate, ws_time now)
{
	struct timely_flow *s = f->state;
	(void)now;
	ws_cc_set_rate(f, rate);
	s->inc_stage = 0;
}

static const struct ws_cc_ops timely_ops = {
	.size = sizeof(struct ws_cc_ops),
	.needs = WS_CC_IDLE_LINE_RATE | WS_CC_REF_KEEPS_GAP,
	.flow_state_size = sizeof(struct timely_flow),
	.init = timely_init,
	.on_ack = timely_on_ack,
	.set_rate = timely_set_rate,
};

static const struct ws_plugin timely_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "timely",
	.version = "1.0.0",
	.summary = "TIMELY (Mittal et al. 2015), reference ns-3 defaults: RTT-gradient rate control",
	.params = timely_params,
	.conf_size = sizeof(struct timely_conf),
	.validate = timely_validate,
	.ops = &timely_ops,
};

WS_PLUGIN_EXPORT(timely_plugin)
