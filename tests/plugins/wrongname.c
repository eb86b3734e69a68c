/* SPDX-License-Identifier: MIT */
/* wrongname: the file is wrongname.so but the plugin calls itself "other". */
#include <warpsim/warpsim.h>

static void wrongname_init(struct ws_cc_flow *f, ws_time now)
{
	(void)f;
	(void)now;
}

static const struct ws_cc_ops wrongname_ops = {
	.size = sizeof(struct ws_cc_ops),
	.init = wrongname_init,
};

static const struct ws_plugin wrongname_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "other",
	.version = "1.0.0",
	.summary = "test: name differs from the file",
	.ops = &wrongname_ops,
};

WS_PLUGIN_EXPORT(wrongname_plugin)
