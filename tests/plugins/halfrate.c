/* SPDX-License-Identifier: MIT */
/* halfrate: a test CC that paces flows of odd id at half their line rate
 * and the others at line rate, whatever the network says: a paced flow
 * beside an unpaced one without congestion (tests/test_ns3ref.c). */
#include <warpsim/warpsim.h>

static void halfrate_init(struct ws_cc_flow *f, ws_time now)
{
	(void)now;
	ws_cc_set_rate(f, f->id % 2 ? f->line_rate / 2 : f->line_rate);
}

static const struct ws_cc_ops halfrate_ops = {
	.size = sizeof(struct ws_cc_ops),
	.init = halfrate_init,
};

static const struct ws_plugin halfrate_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "halfrate",
	.version = "1.0.0",
	.summary = "test: odd flows at half the line rate, the others at line rate",
	.ops = &halfrate_ops,
};

WS_PLUGIN_EXPORT(halfrate_plugin)
