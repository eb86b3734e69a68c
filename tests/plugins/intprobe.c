/* SPDX-License-Identifier: MIT */
/*
 * intprobe: a test CC that asks for INT and records what the ACKs carry,
 * so a test can check the switches' stamping: one record per switch on the
 * path, in path order, with the port's rate, non-decreasing timestamps and
 * cumulative tx byte counters.
 */
#include <warpsim/warpsim.h>

struct intprobe_state {
	uint64_t acks;
	uint64_t bad;           /* ACKs whose records broke an invariant */
	uint32_t min_n, max_n;  /* records per ACK */
	uint64_t rate_sum;      /* of the first record's rate */
	uint64_t last_tx[WS_INT_MAX_HOPS];
	uint64_t qlen_max;
};

static void intprobe_init(struct ws_cc_flow *f, ws_time now)
{
	(void)now;
	struct intprobe_state *s = f->inst->state;
	if (!s->acks)
		s->min_n = WS_INT_MAX_HOPS + 1;
	ws_cc_set_rate(f, f->line_rate);
}

static void intprobe_on_ack(struct ws_cc_flow *f, const struct ws_cc_ack *a)
{
	struct intprobe_state *s = f->inst->state;
	s->acks++;
	if (a->int_n < s->min_n)
		s->min_n = a->int_n;
	if (a->int_n > s->max_n)
		s->max_n = a->int_n;
	if (a->int_n)
		s->rate_sum += a->int_hop[0].rate;
	for (unsigned i = 0; i < a->int_n; i++) {
		const struct ws_int_hop *h = &a->int_hop[i];
		if (i > 0 && h->ts < a->int_hop[i - 1].ts)
			s->bad++;
		if (h->ts > a->now)
			s->bad++;
		if (h->qlen > s->qlen_max)
			s->qlen_max = h->qlen;
		s->last_tx[i] = h->tx_bytes;
	}
}

static const struct ws_cc_ops intprobe_ops = {
	.size = sizeof(struct ws_cc_ops),
	.needs = WS_CC_NEEDS_INT,
	.init = intprobe_init,
	.on_ack = intprobe_on_ack,
};

static const struct ws_plugin intprobe_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "intprobe",
	.version = "1.0.0",
	.summary = "test CC: line rate, records the INT its ACKs carry",
	.state_size = sizeof(struct intprobe_state),
	.ops = &intprobe_ops,
};

WS_PLUGIN_EXPORT(intprobe_plugin)
