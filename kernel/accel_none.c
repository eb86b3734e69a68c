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
	.abi_major = WS_ABI_MAJOR,
	.abi_minor = WS_ABI_MINOR,
	.desc_size = sizeof(struct ws_plugin),
	.ops_size = sizeof(struct ws_accel_ops),
	.build_sig = WS_BUILD_SIG,
	.kind = WS_KIND_ACCEL,
	.name = "none",
	.version = WS_VERSION,
	.summary = "no acceleration: every packet is simulated",
	.ops = &none_ops,
};
