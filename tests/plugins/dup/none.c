/* SPDX-License-Identifier: MIT */
/* dup/none: an acceleration plugin file named like the built-in `none`. */
#include <warpsim/warpsim.h>

static const struct ws_accel_ops dupnone_ops = {
	.size = sizeof(struct ws_accel_ops),
};

static const struct ws_plugin dupnone_plugin = {
	.abi_major = WS_ABI_MAJOR,
	.abi_minor = WS_ABI_MINOR,
	.desc_size = sizeof(struct ws_plugin),
	.ops_size = sizeof(struct ws_accel_ops),
	.build_sig = WS_BUILD_SIG,
	.kind = WS_KIND_ACCEL,
	.name = "none",
	.version = "1.0.0",
	.summary = "test: duplicates the built-in accel none",
	.ops = &dupnone_ops,
};

WS_PLUGIN_EXPORT(dupnone_plugin)
