/* SPDX-License-Identifier: MIT */
/* noinit: a CC plugin lacking its required init callback. */
#include <warpsim/warpsim.h>

static const struct ws_cc_ops noinit_ops = {
	.size = sizeof(struct ws_cc_ops),
};

static const struct ws_plugin noinit_plugin = {
	.abi_major = WS_ABI_MAJOR,
	.abi_minor = WS_ABI_MINOR,
	.desc_size = sizeof(struct ws_plugin),
	.ops_size = sizeof(struct ws_cc_ops),
	.build_sig = WS_BUILD_SIG,
	.kind = WS_KIND_CC,
	.name = "noinit",
	.version = "1.0.0",
	.summary = "test: no init callback",
	.ops = &noinit_ops,
};

WS_PLUGIN_EXPORT(noinit_plugin)
