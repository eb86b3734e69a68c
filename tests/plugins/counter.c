/* SPDX-License-Identifier: MIT */
/*
 * counter: a test CC that sends at line rate and counts every callback in
 * its instance state, so a test can check the kernel calls each one exactly
 * when it should.
 */
#include <warpsim/warpsim.h>

struct counter_state {
	uint64_t init, acks, nacks, cnps, timers, sends, sent_bytes, fini, shifts;
	uint64_t acked_bytes;
	ws_time rtt_max;
};

static struct counter_state *st(struct ws_cc_flow *f)
{
	return f->inst->state;
}

static void counter_init(struct ws_cc_flow *f, ws_time now)
{
	(void)now;
	st(f)->init++;
	ws_cc_set_rate(f, f->line_rate);
}

static void counter_on_ack(struct ws_cc_flow *f, const struct ws_cc_ack *a)
{
	st(f)->acks++;
	st(f)->acked_bytes += a->newly_acked;
	if (a->rtt > st(f)->rtt_max)
		st(f)->rtt_max = a->rtt;
}

static void counter_on_cnp(struct ws_cc_flow *f, ws_time now)
{
	(void)now;
	st(f)->cnps++;
}

static void counter_on_nack(struct ws_cc_flow *f, const struct ws_cc_ack *a)
{
	(void)a;
	st(f)->nacks++;
}

static void counter_on_timer(struct ws_cc_flow *f, unsigned timer, ws_time now)
{
	(void)timer;
	(void)now;
	st(f)->timers++;
}

static void counter_on_send(struct ws_cc_flow *f, uint32_t bytes, ws_time now)
{
	(void)now;
	st(f)->sends++;
	st(f)->sent_bytes += bytes;
}

static void counter_on_shift(struct ws_cc_flow *f, ws_time delta)
{
	(void)delta;
	st(f)->shifts++;
}

static void counter_fini(struct ws_cc_flow *f)
{
	st(f)->fini++;
}

static const struct ws_cc_ops counter_ops = {
	.size = sizeof(struct ws_cc_ops),
	.needs = WS_CC_NEEDS_ECN,
	.init = counter_init,
	.on_ack = counter_on_ack,
	.on_cnp = counter_on_cnp,
	.on_nack = counter_on_nack,
	.on_timer = counter_on_timer,
	.on_send = counter_on_send,
	.on_shift = counter_on_shift,
	.fini = counter_fini,
};

static const struct ws_plugin counter_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "counter",
	.version = "1.0.0",
	.summary = "test CC: line rate, counts its callbacks",
	.state_size = sizeof(struct counter_state),
	.ops = &counter_ops,
};

WS_PLUGIN_EXPORT(counter_plugin)
