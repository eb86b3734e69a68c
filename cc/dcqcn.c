/* SPDX-License-Identifier: MIT */
/*
 * dcqcn: the DCQCN reaction point (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015), with the defaults and the
 * "Mellanox" flavour of the HPCC ns-3 simulator (alibaba-edu/High-Precision-
 * Congestion-Control, mix/run.py for DCQCN at 100 Gb/s).
 *
 * Notification point: with cnp_mode = ack (the reference) an ACK of a
 * CE-marked packet counts as a CNP; with cnp_mode = packet the receiver
 * sends CNP packets, at most one per cnp_interval per flow (the paper).
 *
 * Reaction point, from the first CNP of a flow on:
 *   - alpha: every alpha_interval, alpha <- (1-g) alpha + g if a CNP arrived
 *     in that slot, else alpha <- (1-g) alpha;
 *   - every decrease_interval, if a CNP arrived since the last check:
 *     R_T <- R_C (if an increase happened since the last cut, or always
 *     with clamp_target), R_C <- max(min_rate, R_C (1 - alpha/2)), reset the
 *     increase stages and restart the increase timer;
 *   - increase events, from the timer (every rp_timer) and, when
 *     byte_counter > 0, every byte_counter bytes sent: fast recovery
 *     R_C <- (R_C + R_T)/2 while the stage is below fast_recovery; then
 *     additive increase R_T += rate_ai; then hyper-additive R_T += rate_hai.
 *     With the timer alone (the reference) the stage is the timer's count;
 *     with the byte counter, the paper's rule: both counts below F: fast
 *     recovery; both above F: hyper increase; otherwise additive.
 *
 * The alpha and decrease timers of the reference fire every 1 us and 4 us
 * for every flow that ever saw a CNP.  Here they are evaluated lazily: alpha
 * is brought up to date (slot boundaries at first-CNP + k * alpha_interval)
 * when it is read or a CNP arrives, and a decrease check is scheduled only
 * at the first boundary after a CNP, since a check without a CNP does
 * nothing.  The results are those of the periodic timers, at a fraction of
 * the events.
 */
#include <math.h>
#include <stdio.h>

#include <warpsim/warpsim.h>

enum { T_DECREASE = 0, T_INCREASE = 1 };

static const char *const cnp_modes[] = { "ack", "packet", NULL };

struct dcqcn_conf {
	double g;
	ws_time alpha_interval;
	ws_time decrease_interval;
	ws_time rp_timer;
	uint64_t byte_counter;
	uint64_t fast_recovery;
	uint64_t rate_ai;
	uint64_t rate_hai;
	uint64_t min_rate;
	double rate_on_first_cnp;
	bool clamp_target;
	int cnp_mode;
	ws_time cnp_interval;
};

static const struct ws_param dcqcn_params[] = {
	WS_PARAM_FLOAT("g", struct dcqcn_conf, g, "0.00390625", "0", "1",
		       "alpha EWMA gain (1/256)"),
	WS_PARAM_TIME("alpha_interval", struct dcqcn_conf, alpha_interval, "1us", "1ns", "1s",
		      "alpha update period (reference 1us; paper 55us)"),
	WS_PARAM_TIME("decrease_interval", struct dcqcn_conf, decrease_interval, "4us", "1ns", "1s",
		      "rate-decrease check period (reference 4us; paper 50us)"),
	WS_PARAM_TIME("rp_timer", struct dcqcn_conf, rp_timer, "300us", "1ns", "1s",
		      "rate-increase timer (reference 300us; paper 55us)"),
	WS_PARAM_SIZE("byte_counter", struct dcqcn_conf, byte_counter, "0B", "0B", NULL,
		      "rate-increase byte counter; 0B: timer only, as the reference (paper 10MB)"),
	WS_PARAM_UINT("fast_recovery", struct dcqcn_conf, fast_recovery, "1", "0", "100",
		      "F: increase events of fast recovery before additive increase (reference 1; paper 5)"),
	WS_PARAM_RATE("rate_ai", struct dcqcn_conf, rate_ai, "20Mbps", "0bps", "1Tbps",
		      "additive increase of the target rate"),
	WS_PARAM_RATE("rate_hai", struct dcqcn_conf, rate_hai, "200Mbps", "0bps", "1Tbps",
		      "hyper-additive increase of the target rate"),
	WS_PARAM_RATE("min_rate", struct dcqcn_conf, min_rate, "1Gbps", "1bps", "1Tbps",
		      "floor of the sending rate"),
	WS_PARAM_FLOAT("rate_on_first_cnp", struct dcqcn_conf, rate_on_first_cnp, "1.0", "0", "1",
		       "fraction of the current rate kept when the first CNP arrives"),
	WS_PARAM_BOOL("clamp_target", struct dcqcn_conf, clamp_target, "false",
		      "on every cut set R_T <- R_C, even without an increase since the last cut"),
	WS_PARAM_ENUM("cnp_mode", struct dcqcn_conf, cnp_mode, "ack", cnp_modes,
		      "ack: an ACK of a CE packet is a CNP (reference); packet: CNP packets (paper)"),
	WS_PARAM_TIME("cnp_interval", struct dcqcn_conf, cnp_interval, "50us", "0s", "1s",
		      "cnp_mode = packet: at most one CNP per flow per interval"),
	WS_PARAM_END
};

struct dcqcn_flow {
	double alpha;
	uint64_t target;       /* R_T, bps */
	uint32_t t_stage;      /* timer increase events since the last cut */
	uint32_t b_stage;      /* byte-counter increase events since the last cut */
	uint64_t bytes;        /* bytes sent since the last byte-counter event */
	ws_time alpha_next;    /* next alpha slot boundary to apply */
	ws_time dec_first;     /* first decrease check; then every interval */
	bool active;           /* a CNP has arrived: the timers run */
	bool alpha_cnp;        /* a CNP arrived in the current alpha slot */
	bool dec_cnp;          /* a CNP arrived since the last decrease check */
};

static int dcqcn_validate(const void *conf, struct ws_err *err)
{
	const struct dcqcn_conf *c = conf;
	if (c->rate_ai > c->rate_hai) {
		ws_err_key(err, WS_EINVAL, "rate_ai", "rate_ai (%llu bps) above rate_hai (%llu bps)",
			   (unsigned long long)c->rate_ai,
			   (unsigned long long)c->rate_hai);
		return WS_EINVAL;
	}
	return WS_OK;
}

static void dcqcn_init(struct ws_cc_flow *f, ws_time now)
{
	const struct dcqcn_conf *c = f->conf;
	struct dcqcn_flow *s = f->state;
	(void)now;
	s->target = f->line_rate;
	s->alpha = 1.0;
	ws_cc_set_cnp(f, c->cnp_mode == 1 ? WS_CNP_PACKET : WS_CNP_ON_ACK,
		      c->cnp_interval);
}

/* Apply the alpha slot boundaries up to and including `now`. */
static void dcqcn_alpha_catch_up(const struct dcqcn_conf *c,
				 struct dcqcn_flow *s, ws_time now)
{
	if (!s->active || s->alpha_next > now)
		return;
	uint64_t n = (now - s->alpha_next) / c->alpha_interval + 1;
	s->alpha = (1 - c->g) * s->alpha + (s->alpha_cnp ? c->g : 0.0);
	s->alpha_cnp = false;
	if (n > 1)
		s->alpha *= pow(1 - c->g, (double)(n - 1));
	s->alpha_next += n * c->alpha_interval;
}

static void dcqcn_on_cnp(struct ws_cc_flow *f, ws_time now)
{
	const struct dcqcn_conf *c = f->conf;
	struct dcqcn_flow *s = f->state;
	if (!s->active) {
		s->active = true;
		s->alpha = 1.0;
		s->alpha_cnp = false;
		s->alpha_next = now + c->alpha_interval;
		/* the reference adds 1 ns so a check follows the alpha update */
		s->dec_first = now + c->decrease_interval + WS_NS;
		s->dec_cnp = true;
		uint64_t r = (uint64_t)((double)f->rate * c->rate_on_first_cnp);
		s->target = r;
		ws_cc_set_rate(f, r);
		ws_cc_timer_arm(f, T_DECREASE, s->dec_first);
		return;
	}
	dcqcn_alpha_catch_up(c, s, now);
	s->alpha_cnp = true;
	s->dec_cnp = true;
	if (!ws_cc_timer_armed(f, T_DECREASE)) {
		ws_time t = s->dec_first;
		if (now >= t)
			t += ((now - t) / c->decrease_interval + 1) * c->decrease_interval;
		ws_cc_timer_arm(f, T_DECREASE, t);
	}
}

static void dcqcn_increase(struct ws_cc_flow *f)
{
	const struct dcqcn_conf *c = f->conf;
	struct dcqcn_flow *s = f->state;
	uint64_t F = c->fast_recovery;
	enum { FAST, ADDITIVE, HYPER } phase;
	if (c->byte_counter == 0) {
		phase = s->t_stage < F ? FAST : s->t_stage == F ? ADDITIVE : HYPER;
	} else {
		uint32_t hi = s->t_stage > s->b_stage ? s->t_stage : s->b_stage;
		uint32_t lo = s->t_stage < s->b_stage ? s->t_stage : s->b_stage;
		phase = hi < F ? FAST : lo > F ? HYPER : ADDITIVE;
	}
	if (phase == ADDITIVE)
		s->target += c->rate_ai;
	else if (phase == HYPER)
		s->target += c->rate_hai;
	if (s->target > f->line_rate)
		s->target = f->line_rate;
	ws_cc_set_rate(f, (f->rate + s->target + 1) / 2);
}

static void dcqcn_on_timer(struct ws_cc_flow *f, unsigned timer, ws_time now)
{
	const struct dcqcn_conf *c = f->conf;
	struct dcqcn_flow *s = f->state;
	if (timer == T_DECREASE) {
		dcqcn_alpha_catch_up(c, s, now);
		if (!s->dec_cnp)
			return;
		if (c->clamp_target || s->t_stage != 0 || s->b_stage != 0)
			s->target = f->rate;
		double r = (double)f->rate * (1 - s->alpha / 2);
		uint64_t nr = r < (double)c->min_rate ? c->min_rate : (uint64_t)r;
		ws_cc_set_rate(f, nr);
		s->t_stage = 0;
		s->b_stage = 0;
		s->bytes = 0;
		s->dec_cnp = false;
		ws_cc_timer_arm(f, T_INCREASE, now + c->rp_timer);
		return;
	}
	/* T_INCREASE */
	dcqcn_increase(f);
	s->t_stage++;
	if (f->rate < f->line_rate || s->target < f->line_rate)
		ws_cc_timer_arm(f, T_INCREASE, now + c->rp_timer);
	/* at line rate with R_T at line rate further events change nothing */
}

static void dcqcn_on_send(struct ws_cc_flow *f, uint32_t bytes, ws_time now)
{
	const struct dcqcn_conf *c = f->conf;
	struct dcqcn_flow *s = f->state;
	(void)now;
	if (!c->byte_counter || !s->active)
		return;
	s->bytes += bytes;
	if (s->bytes < c->byte_counter)
		return;
	s->bytes -= c->byte_counter;
	if (f->rate < f->line_rate || s->target < f->line_rate) {
		dcqcn_increase(f);
		s->b_stage++;
	}
}

static void dcqcn_on_shift(struct ws_cc_flow *f, ws_time delta)
{
	struct dcqcn_flow *s = f->state;
	s->alpha_next += delta;
	s->dec_first += delta;
}

/* An accelerator moved the flow on to `rate`: current and target rate
 * there, increase stages restarted, alpha and the timers as they were. */
static void dcqcn_set_rate(struct ws_cc_flow *f, uint64_t rate, ws_time now)
{
	struct dcqcn_flow *s = f->state;
	(void)now;
	ws_cc_set_rate(f, rate);
	s->target = f->rate;
	s->t_stage = s->b_stage = 0;
	s->bytes = 0;
}

static const struct ws_cc_ops dcqcn_ops = {
	.size = sizeof(struct ws_cc_ops),
	.needs = WS_CC_NEEDS_ECN | WS_CC_IDLE_LINE_RATE | WS_CC_REF_KEEPS_GAP,
	.flow_state_size = sizeof(struct dcqcn_flow),
	.init = dcqcn_init,
	.on_cnp = dcqcn_on_cnp,
	.on_timer = dcqcn_on_timer,
	.on_send = dcqcn_on_send,
	.on_shift = dcqcn_on_shift,
	.set_rate = dcqcn_set_rate,
};

static const struct ws_plugin dcqcn_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "dcqcn",
	.version = "1.0.0",
	.summary = "DCQCN (Zhu et al. 2015), reference ns-3 defaults: ECN/CNP driven rate control",
	.params = dcqcn_params,
	.conf_size = sizeof(struct dcqcn_conf),
	.validate = dcqcn_validate,
	.ops = &dcqcn_ops,
};

WS_PLUGIN_EXPORT(dcqcn_plugin)
