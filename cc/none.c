/* SPDX-License-Identifier: MIT */
/*
 * none: no congestion control.  Every flow sends at its NIC's line rate
 * (subject to the kernel's optional window and to PFC), whatever the
 * network says.  The baseline against which CCs are compared, and what the
 * formula tests of the kernel use.
 */
#include <warpsim/warpsim.h>

static void none_init(struct ws_cc_flow *f, ws_time now)
{
	(void)now;
	ws_cc_set_rate(f, f->line_rate);
}

static const struct ws_cc_ops none_ops = {
	.size = sizeof(struct ws_cc_ops),
	.needs = WS_CC_IDLE_LINE_RATE,
	.init = none_init,
};

static const struct ws_plugin none_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "none",
	.version = "1.0.0",
	.summary = "no congestion control: line rate, ECN ignored",
	.ops = &none_ops,
};

WS_PLUGIN_EXPORT(none_plugin)
