/* SPDX-License-Identifier: MIT */
/*
 * The `none` acceleration strategy: plain packet-level simulation.  It is
 * built into the kernel but registers through the same descriptor and the
 * same loader checks as any plugin file; every hook is NULL, so it costs
 * nothing at run time.
 */
#include "internal.h"

static const struct ws_accel_ops none_ops = {
	.size = sizeof(struct ws_accel_ops),
};

const struct ws_plugin ws_builtin_accel_none = {
	WS_PLUGIN_ABI(WS_KIND_ACCEL, struct ws_accel_ops),
	.name = "none",
	.version = WS_VERSION,
	.summary = "no acceleration: every packet is simulated",
	.ops = &none_ops,
};
