/* SPDX-License-Identifier: MIT */
/* badabi: a plugin built for a future ABI major; the loader must refuse it. */
#include <warpsim/warpsim.h>

static void badabi_init(struct ws_cc_flow *f, ws_time now)
{
	(void)f;
	(void)now;
}

static const struct ws_cc_ops badabi_ops = {
	.size = sizeof(struct ws_cc_ops),
	.init = badabi_init,
};

static const struct ws_plugin badabi_plugin = {
	.abi_major = WS_ABI_MAJOR + 1,
	.abi_minor = 0,
	.desc_size = sizeof(struct ws_plugin),
	.ops_size = sizeof(struct ws_cc_ops),
	.build_sig = WS_BUILD_SIG,
	.kind = WS_KIND_CC,
	.name = "badabi",
	.version = "1.0.0",
	.summary = "test: wrong ABI major",
	.ops = &badabi_ops,
};

WS_PLUGIN_EXPORT(badabi_plugin)
