/* SPDX-License-Identifier: MIT */
/* noinit: a CC plugin lacking its required init callback. */
#include <warpsim/warpsim.h>

static const struct ws_cc_ops noinit_ops = {
	.size = sizeof(struct ws_cc_ops),
};

static const struct ws_plugin noinit_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "noinit",
	.version = "1.0.0",
	.summary = "test: no init callback",
	.ops = &noinit_ops,
};

WS_PLUGIN_EXPORT(noinit_plugin)
