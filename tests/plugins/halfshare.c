/* SPDX-License-Identifier: MIT */
/* halfshare: an accel plugin with share_key but neither share_import nor
 * share_export (ABI 2.2 takes all three or none). */
#include <warpsim/warpsim.h>

static bool halfshare_key(const struct ws_inst *inst, uint64_t *key)
{
	(void)inst;
	*key = 1;
	return true;
}

static const struct ws_accel_ops halfshare_ops = {
	.size = sizeof(struct ws_accel_ops),
	.share_key = halfshare_key,
};

static const struct ws_plugin halfshare_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ACCEL, struct ws_accel_ops),
	.name = "halfshare",
	.version = "1.0.0",
	.summary = "test: one of the three share ops",
	.ops = &halfshare_ops,
};

WS_PLUGIN_EXPORT(halfshare_plugin)
