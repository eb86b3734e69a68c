/* SPDX-License-Identifier: MIT */
/* dup/none: an acceleration plugin file named like the built-in `none`. */
#include <warpsim/warpsim.h>

static const struct ws_accel_ops dupnone_ops = {
	.size = sizeof(struct ws_accel_ops),
};

static const struct ws_plugin dupnone_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ACCEL, struct ws_accel_ops),
	.name = "none",
	.version = "1.0.0",
	.summary = "test: duplicates the built-in accel none",
	.ops = &dupnone_ops,
};

WS_PLUGIN_EXPORT(dupnone_plugin)
