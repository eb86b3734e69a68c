/* SPDX-License-Identifier: MIT */
/*
 * aimd: the smallest complete congestion control for warpsim, as a template
 * for your own.  Copy this directory, rename the plugin, change the rules.
 *
 * The rule: additive increase, multiplicative decrease on ECN, once per
 * round trip, in the spirit of TCP Reno's response to ECN (RFC 3168):
 *   - an ACK echoing a CE mark cuts the rate by `md` (at most once per
 *     round trip: later marks of the same round trip are the same event);
 *   - a round trip without any mark adds `ai` to the rate.
 * A "round trip" ends when the bytes sent at its start are acknowledged.
 *
 * The file reads in the order every warpsim plugin does: what it models,
 * includes, per-flow state, the config struct, the parameter table, the
 * callbacks, the ops table, the descriptor.  docs/writing-a-cc.md walks
 * through it.
 */
#include <warpsim/warpsim.h>

/* Per-flow state: the kernel allocates it (zeroed) for every flow, at the
 * size the ops table declares, and hands it back as f->state. */
struct aimd_flow {
	uint64_t round_end; /* this round trip ends when this byte is acked */
	bool cut;           /* the rate was cut during this round trip */
};

/* The parameters, filled by the kernel from the [cc] section. */
struct aimd_conf {
	uint64_t ai;       /* bps added per round trip without marks */
	double md;         /* factor kept on a cut */
	uint64_t min_rate; /* bps */
};

/* Every key the [cc] section may hold: name, type, default, bounds, and
 * the line `warpsim describe aimd` prints.  Never parse a key by hand. */
static const struct ws_param aimd_params[] = {
	WS_PARAM_RATE("ai", struct aimd_conf, ai, "1Gbps", "0bps", "100Gbps",
		      "rate added after a round trip without ECN marks"),
	WS_PARAM_FLOAT("md", struct aimd_conf, md, "0.5", "0.01", "0.99",
		       "the rate is multiplied by this on a marked round trip"),
	WS_PARAM_RATE("min_rate", struct aimd_conf, min_rate, "1Gbps", "1bps", "100Gbps",
		      "the rate never goes below this"),
	WS_PARAM_END
};

/* A flow starts: the kernel has set f->rate to the NIC's line rate. */
static void aimd_init(struct ws_cc_flow *f, ws_time now)
{
	struct aimd_flow *s = f->state;
	(void)now;
	s->round_end = 0; /* the first ACK closes a (short) first round */
	s->cut = false;
	/* no CNPs: we read the ECN echo that every ACK carries */
	ws_cc_set_cnp(f, WS_CNP_NONE, 0);
}

/* Every ACK that does not complete the flow. */
static void aimd_on_ack(struct ws_cc_flow *f, const struct ws_cc_ack *ack)
{
	const struct aimd_conf *c = f->conf;
	struct aimd_flow *s = f->state;
	if (ack->ecn_echo && !s->cut) {
		uint64_t r = (uint64_t)((double)f->rate * c->md);
		ws_cc_set_rate(f, r > c->min_rate ? r : c->min_rate);
		s->cut = true;
	}
	if (ack->seq >= s->round_end) {
		/* a round trip of feedback is complete */
		if (!s->cut)
			ws_cc_set_rate(f, f->rate + c->ai); /* clamped to line rate */
		s->cut = false;
		s->round_end = f->snd_nxt;
	}
}

/* Required callbacks: init.  Everything else is optional; NULL costs
 * nothing.  `needs` tells the switches to mark this CC's packets. */
static const struct ws_cc_ops aimd_ops = {
	.size = sizeof(struct ws_cc_ops),
	.needs = WS_CC_NEEDS_ECN,
	.flow_state_size = sizeof(struct aimd_flow),
	.init = aimd_init,
	.on_ack = aimd_on_ack,
};

/* The descriptor the loader checks before calling anything. */
static const struct ws_plugin aimd_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "aimd", /* the file must be aimd.so */
	.version = "1.0.0",
	.summary = "template: additive increase, multiplicative decrease on ECN, per round trip",
	.params = aimd_params,
	.conf_size = sizeof(struct aimd_conf),
	.ops = &aimd_ops,
};

WS_PLUGIN_EXPORT(aimd_plugin)
