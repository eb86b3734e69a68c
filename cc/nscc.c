/* SPDX-License-Identifier: MIT */
/*
 * nscc: the network-signal congestion control of Ultra Ethernet Transport
 * (UET 1.0, 2025, the sender-based "NSCC"), as the Ultra Ethernet fork of
 * htsim implements it (UecSrc::updateCwndOnAck_NSCC and its helpers in
 * uec.cpp, with the constants of UecSrc::initNsccParams).  The names of the
 * parameters are htsim's.
 *
 * A byte window driven by two signals of every ACK: the ECN echo, and the
 * queuing delay (the packet's RTT less the flow's base RTT, the smallest
 * RTT seen, starting at the path's).  With target = target_qdelay:
 *   - no ECN, delay < target (an empty path): proportional increase,
 *     inc += alpha' x acked x (target - delay); after more than a window of
 *     bytes in a row with delay < fast_increase_delay, fast increase
 *     instead: cwnd += fi_scale' x acked at once;
 *   - no ECN, delay >= target (a queue that is not ours to drain): fair
 *     increase, inc += fi' x acked;
 *   - ECN, delay >= target (congestion): multiplicative decrease, at most
 *     once per base RTT and only when the averaged delay exceeds the
 *     target: cwnd x max(1 - gamma (avg - target) / avg, 1 - max_md_jump);
 *   - ECN, delay < target (a mark from another path, or noise): nothing.
 * The increases collect in inc and are applied together, cwnd += inc /
 * cwnd, once adjust_bytes packets have been acknowledged or adjust_period
 * has passed; at most once per adjust_period the additive eta' is added
 * then too.  So per window of ACKs the window grows by fi' (fair), by
 * alpha' x (target - delay) (proportional).
 * The averaged delay: an EWMA of gain delay_alpha over the samples, a
 * sample above target without ECN counting as base_rtt / 4 (a queue built
 * by others).  htsim weighs samples above 5 base RTTs with 0.0125 whatever
 * delay_alpha is; with the default delay_alpha (0.0125) that is the same,
 * so one gain serves both here.
 * Quick adapt: time is cut into periods of base RTT + target; at the first
 * ACK after a period, if a loss or a trim happened, or this ACK's delay
 * exceeds qa_threshold x target, and the bytes acknowledged during the
 * period are below max window / 2^qa_gate, the window becomes those bytes
 * (what the network delivered) and the ECN marks of the bytes then in
 * flight are ignored.
 * Losses (on_loss): a trim is htsim's NACK: the averaged delay takes a
 * sample of one network RTT with ECN, quick adapt is armed and tried at
 * once, and if it does not fire the window loses the trimmed bytes; a SACK
 * gap or a timeout removes the lost bytes from the window
 * (htsim's mark_packet_for_retransmission) and arms quick adapt.
 * The window stays within [min_wnd x mtu, max_wnd x the path's BDP]; a new
 * flow starts at the maximum (htsim's default) or at init_wnd.
 * Scaling, as the specification's: with a = the network BDP (the fabric's
 * largest base RTT x line rate) over reference_rtt x reference_rate, and
 * b = target / reference_rtt, alpha' = alpha x mtu x a x b / target,
 * fi' = fi x mtu x a, eta' = eta x mtu x a, fi_scale' = fi_scale x a.
 * target_qdelay 0 is the network RTT (htsim: x 0.75 when switches trim; set
 * it explicitly then), adjust_period 0 is the network RTT too.
 */
#include <warpsim/warpsim.h>

struct nscc_flow {
	double cwnd;              /* bytes */
	double inc;               /* increase collected since the last adjustment, bytes^2 */
	double avg_delay;         /* ps */
	ws_time base_rtt;         /* the smallest RTT seen */
	ws_time last_dec;         /* the last multiplicative decrease */
	ws_time last_adjust;      /* the last adjustment that added eta */
	ws_time qa_end;           /* the current quick-adapt period ends */
	uint64_t received;        /* bytes acknowledged since the last adjustment */
	uint64_t achieved;        /* bytes acknowledged in this quick-adapt period */
	uint64_t to_ignore;       /* ECN marks ignored until this many bytes... */
	uint64_t ignored;         /* ...have been acknowledged since quick adapt */
	uint64_t fi_count;        /* bytes acknowledged in a row at a tiny delay */
	bool increasing;          /* fast increase under way */
	bool trigger_qa;          /* a loss or trim arms quick adapt */
	bool qa_started;          /* the first quick-adapt period has begun */
	/* derived from the parameters and the flow at init */
	double target;            /* ps */
	double alpha;             /* bytes per byte acked per ps below target */
	double fi, eta;           /* bytes */
	double fi_scale;
	double min_wnd, max_wnd;  /* bytes */
	ws_time adjust_period;
};

struct nscc_conf {
	ws_time target_qdelay;
	uint64_t reference_rate;
	ws_time reference_rtt;
	double alpha;
	double fi;
	double eta;
	double gamma;
	double max_md_jump;
	double fi_scale;
	ws_time fast_increase_delay;
	double delay_alpha;
	double qa_threshold;
	uint64_t qa_gate;
	bool quick_adapt;
	uint64_t adjust_bytes;
	ws_time adjust_period;
	double max_wnd;
	double min_wnd;
	double init_wnd;
};

static const struct ws_param nscc_params[] = {
	WS_PARAM_TIME("target_qdelay", struct nscc_conf, target_qdelay, "0s", "0s", "1s",
		      "target queuing delay; 0: the network RTT (the fabric's largest base RTT)"),
	WS_PARAM_RATE("reference_rate", struct nscc_conf, reference_rate, "100Gbps", "1bps",
		      "100Tbps", "scaling: the reference network's link rate"),
	WS_PARAM_TIME("reference_rtt", struct nscc_conf, reference_rtt, "12us", "1ns", "1s",
		      "scaling: the reference network's RTT"),
	WS_PARAM_FLOAT("alpha", struct nscc_conf, alpha, "4", "0", "1000",
		       "proportional increase, MTUs per window at zero delay (x a x b)"),
	WS_PARAM_FLOAT("fi", struct nscc_conf, fi, "5", "0", "1000",
		       "fair increase, MTUs per window (x a)"),
	WS_PARAM_FLOAT("eta", struct nscc_conf, eta, "0.15", "0", "1000",
		       "additive increase, MTUs per adjust_period (x a)"),
	WS_PARAM_FLOAT("gamma", struct nscc_conf, gamma, "0.8", "0", "1",
		       "multiplicative decrease: cwnd x (1 - gamma (avg_delay - target) / avg_delay)"),
	WS_PARAM_FLOAT("max_md_jump", struct nscc_conf, max_md_jump, "0.5", "0", "1",
		       "largest share of the window one decrease removes"),
	WS_PARAM_FLOAT("fi_scale", struct nscc_conf, fi_scale, "0.25", "0", "100",
		       "fast increase: bytes added per byte acked (x a)"),
	WS_PARAM_TIME("fast_increase_delay", struct nscc_conf, fast_increase_delay, "1us",
		      "0s", "1s", "fast increase after a window of ACKs below this delay"),
	WS_PARAM_FLOAT("delay_alpha", struct nscc_conf, delay_alpha, "0.0125", "0", "1",
		       "EWMA gain of the averaged delay"),
	WS_PARAM_FLOAT("qa_threshold", struct nscc_conf, qa_threshold, "4", "0", "1000",
		       "quick adapt on a delay above this many targets"),
	WS_PARAM_UINT("qa_gate", struct nscc_conf, qa_gate, "3", "0", "30",
		      "quick adapt only if a period delivered less than max window / 2^qa_gate"),
	WS_PARAM_BOOL("quick_adapt", struct nscc_conf, quick_adapt, "true",
		      "false: never quick adapt (htsim -disable_quick_adapt)"),
	WS_PARAM_UINT("adjust_bytes", struct nscc_conf, adjust_bytes, "8", "0", "1000000",
		      "apply the collected increase after this many MTUs acknowledged"),
	WS_PARAM_TIME("adjust_period", struct nscc_conf, adjust_period, "0s", "0s", "1s",
		      "...or after this long; eta once per period; 0: the network RTT"),
	WS_PARAM_FLOAT("max_wnd", struct nscc_conf, max_wnd, "1.5", "0.01", "1000",
		       "largest window, in BDPs of the path"),
	WS_PARAM_FLOAT("min_wnd", struct nscc_conf, min_wnd, "1", "0.01", "1e6",
		       "smallest window, in MTUs"),
	WS_PARAM_FLOAT("init_wnd", struct nscc_conf, init_wnd, "0", "0", "1000",
		       "window of a new flow, in BDPs of the path; 0: max_wnd"),
	WS_PARAM_END
};

static void nscc_apply(struct ws_cc_flow *f, struct nscc_flow *s)
{
	if (s->cwnd < s->min_wnd)
		s->cwnd = s->min_wnd;
	if (s->cwnd > s->max_wnd)
		s->cwnd = s->max_wnd;
	ws_cc_set_window(f, (uint64_t)s->cwnd);
}

static void nscc_init(struct ws_cc_flow *f, ws_time now)
{
	const struct nscc_conf *c = f->conf;
	struct nscc_flow *s = f->state;
	ws_cc_set_cnp(f, WS_CNP_NONE, 0);
	double net_rtt = (double)f->max_base_rtt;
	double a = net_rtt * (double)f->line_rate /
		   ((double)c->reference_rtt * (double)c->reference_rate);
	s->target = c->target_qdelay ? (double)c->target_qdelay : net_rtt;
	double b = s->target / (double)c->reference_rtt;
	s->alpha = c->alpha * f->mtu * a * b / s->target;
	s->fi = c->fi * f->mtu * a;
	s->eta = c->eta * f->mtu * a;
	s->fi_scale = c->fi_scale * a;
	s->min_wnd = c->min_wnd * f->mtu;
	s->max_wnd = c->max_wnd * (double)f->bdp;
	if (s->max_wnd < s->min_wnd)
		s->max_wnd = s->min_wnd;
	s->adjust_period = c->adjust_period ? c->adjust_period : f->max_base_rtt;
	s->base_rtt = f->base_rtt;
	s->last_adjust = now;
	s->cwnd = c->init_wnd > 0 ? c->init_wnd * (double)f->bdp : s->max_wnd;
	nscc_apply(f, s);
}

/* The averaged delay takes the sample `delay` (ps). */
static void nscc_update_delay(const struct nscc_conf *c, struct nscc_flow *s, double delay,
			      bool ecn)
{
	double g = c->delay_alpha;
	if (!ecn && delay > s->target)
		delay = (double)s->base_rtt / 4;
	s->avg_delay = g * delay + (1 - g) * s->avg_delay;
}

/* Quick adapt; true if it fired or the ACK is one whose mark is ignored:
 * then nothing else changes the window for this ACK. */
static bool nscc_quick_adapt(struct ws_cc_flow *f, struct nscc_flow *s, bool loss,
			     bool ecn, double delay, ws_time now)
{
	const struct nscc_conf *c = f->conf;
	if (!c->quick_adapt)
		return false;
	bool done = false;
	if (s->ignored < s->to_ignore && ecn) {
		done = true;
	} else if (!s->qa_started || now > s->qa_end) {
		if (s->qa_started && (s->trigger_qa || loss || delay > c->qa_threshold * s->target) &&
		    (double)s->achieved < s->max_wnd / (double)(1ull << c->qa_gate)) {
			s->cwnd = (double)s->achieved > s->min_wnd ? (double)s->achieved
								   : s->min_wnd;
			s->to_ignore = ws_cc_in_flight(f);
			s->ignored = 0;
			s->trigger_qa = false;
			done = true;
		}
		s->achieved = 0;
		s->qa_end = now + s->base_rtt + (ws_time)s->target;
		s->qa_started = true;
	}
	if (done) {
		s->inc = 0;
		s->received = 0;
	}
	return done;
}

/* No ECN, delay below target: proportional increase, or fast increase
 * after a window of bytes at a tiny delay. */
static void nscc_increase(const struct nscc_conf *c, struct nscc_flow *s, double acked,
			  double delay)
{
	if (delay < (double)c->fast_increase_delay) {
		s->fi_count += (uint64_t)acked;
		if ((double)s->fi_count > s->cwnd || s->increasing) {
			s->cwnd += acked * s->fi_scale;
			s->increasing = true;
			return;
		}
	} else {
		s->fi_count = 0;
	}
	s->increasing = false;
	s->inc += s->alpha * acked * (s->target - delay);
}

static void nscc_decrease(const struct nscc_conf *c, struct nscc_flow *s, ws_time now)
{
	s->increasing = false;
	s->fi_count = 0;
	if (s->avg_delay > s->target && now - s->last_dec > s->base_rtt) {
		double md = 1 - c->gamma * (s->avg_delay - s->target) / s->avg_delay;
		s->cwnd *= md > 1 - c->max_md_jump ? md : 1 - c->max_md_jump;
		if (s->cwnd < s->min_wnd)
			s->cwnd = s->min_wnd;
		s->last_dec = now;
	}
}

/* Apply the collected increase, and eta once per adjust_period. */
static void nscc_fulfill(struct nscc_flow *s, ws_time now)
{
	s->cwnd += s->inc / s->cwnd;
	if (now - s->last_adjust >= s->adjust_period) {
		s->cwnd += s->eta;
		s->last_adjust = now;
	}
	s->inc = 0;
	s->received = 0;
}

static void nscc_on_ack(struct ws_cc_flow *f, const struct ws_cc_ack *ack)
{
	const struct nscc_conf *c = f->conf;
	struct nscc_flow *s = f->state;
	if (ack->trimmed)
		return; /* htsim's NACK path: on_loss */
	/* bytes delivered for the first time (htsim: the receiver's count):
	 * the cumulative move plus the SACKed packets, at most the data
	 * packets the ACK covers (a cumulative jump under sr also covers
	 * packets SACKed before) */
	uint64_t bytes = ack->newly_acked + (uint64_t)ack->sacked * f->mtu;
	if (ack->packets && bytes > (uint64_t)ack->packets * f->mtu)
		bytes = (uint64_t)ack->packets * f->mtu;
	bool ecn = ack->ecn_echo;
	s->achieved += bytes;
	s->received += bytes;
	s->ignored += bytes;
	double delay = s->avg_delay;
	if (ack->rtt) {
		if (ack->rtt < s->base_rtt)
			s->base_rtt = ack->rtt;
		delay = (double)(ack->rtt - s->base_rtt);
		nscc_update_delay(c, s, delay, ecn);
	}
	if (nscc_quick_adapt(f, s, false, ecn, delay, ack->now)) {
		nscc_apply(f, s);
		return;
	}
	if (!ecn && delay >= s->target)
		s->inc += s->fi * (double)bytes;
	else if (!ecn)
		nscc_increase(c, s, (double)bytes, delay);
	else if (delay >= s->target)
		nscc_decrease(c, s, ack->now);
	if (s->cwnd < s->min_wnd)
		s->cwnd = s->min_wnd;
	if (s->cwnd > s->max_wnd)
		s->cwnd = s->max_wnd;
	if (s->received > c->adjust_bytes * f->mtu ||
	    ack->now - s->last_adjust > s->adjust_period)
		nscc_fulfill(s, ack->now);
	nscc_apply(f, s);
}

static void nscc_on_loss(struct ws_cc_flow *f, enum ws_cc_loss kind, uint32_t packets,
			 ws_time now)
{
	const struct nscc_conf *c = f->conf;
	struct nscc_flow *s = f->state;
	double bytes = (double)packets * f->mtu;
	s->trigger_qa = true;
	if (kind == WS_LOSS_TRIM) {
		s->ignored += (uint64_t)bytes;
		/* a trim means a full queue: a sample of one network RTT */
		nscc_update_delay(c, s, (double)f->max_base_rtt, true);
		if (nscc_quick_adapt(f, s, true, true, 0, now)) {
			nscc_apply(f, s);
			return;
		}
	}
	s->cwnd -= bytes;
	nscc_apply(f, s);
}

static void nscc_on_shift(struct ws_cc_flow *f, ws_time delta)
{
	struct nscc_flow *s = f->state;
	s->last_dec += delta;
	s->last_adjust += delta;
	if (s->qa_started)
		s->qa_end += delta;
}

/* An accelerator moved the flow on to `rate`: the window that carries it
 * at the target RTT (base RTT + target queuing delay). */
static void nscc_set_rate(struct ws_cc_flow *f, uint64_t rate, ws_time now)
{
	struct nscc_flow *s = f->state;
	(void)now;
	s->cwnd = (double)rate / 8 * ((double)s->base_rtt + s->target) / (double)WS_SEC;
	s->inc = 0;
	nscc_apply(f, s);
}

static const struct ws_cc_ops nscc_ops = {
	.size = sizeof(struct ws_cc_ops),
	.needs = WS_CC_NEEDS_ECN,
	.flow_state_size = sizeof(struct nscc_flow),
	.init = nscc_init,
	.on_ack = nscc_on_ack,
	.on_shift = nscc_on_shift,
	.set_rate = nscc_set_rate,
	.on_loss = nscc_on_loss,
};

static const struct ws_plugin nscc_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "nscc",
	.version = "1.0.0",
	.summary = "UET NSCC (Ultra Ethernet 1.0), htsim uec constants: ECN x delay quadrants, quick adapt",
	.params = nscc_params,
	.conf_size = sizeof(struct nscc_conf),
	.ops = &nscc_ops,
};

WS_PLUGIN_EXPORT(nscc_plugin)
