/* SPDX-License-Identifier: MIT */
/* badparams: a parameter whose default lies outside its own bounds. */
#include <warpsim/warpsim.h>

struct badparams_conf {
	uint64_t level;
};

static const struct ws_param badparams_params[] = {
	WS_PARAM_UINT("level", struct badparams_conf, level, "20", "0", "10",
		      "a level whose default is out of range"),
	WS_PARAM_END
};

static void badparams_init(struct ws_cc_flow *f, ws_time now)
{
	(void)f;
	(void)now;
}

static const struct ws_cc_ops badparams_ops = {
	.size = sizeof(struct ws_cc_ops),
	.init = badparams_init,
};

static const struct ws_plugin badparams_plugin = {
	WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
	.name = "badparams",
	.version = "1.0.0",
	.summary = "test: invalid parameter table",
	.params = badparams_params,
	.conf_size = sizeof(struct badparams_conf),
	.ops = &badparams_ops,
};

WS_PLUGIN_EXPORT(badparams_plugin)
