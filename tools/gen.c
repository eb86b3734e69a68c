/* SPDX-License-Identifier: MIT */
/*
 * `warpsim gen CONFIG.ini [-o FILE]`: the flows a scenario's workload will
 * create, written as an HPCC ns-3 flow.txt (the workload's write_trace op),
 * without simulating anything: the traffic of a `cdf` workload, for
 * cross-checks with the reference simulator or as a `flows` trace.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "tools.h"

int cmd_gen(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct run_args a = { 0 };
	int rc = run_args_parse(argc, argv, cmd, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	const char *path = argv[optind];
	const char *out = a.out ? a.out : "flow.txt";
	struct ws_err err;
	ws_err_clear(&err);
	struct ws_cfg *cfg = NULL;
	struct ws_sim *sim = NULL;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .plugin_path = a.plugin_path };
	double t0 = tool_wall_seconds();
	if (load_cfg(path, &a, &cfg, &err) || ws_sim_new(&sim, cfg, &opts, &err))
		return end_cmd(sim, cfg, &a, &err, EXIT_INPUT);
	double built = tool_wall_seconds();
	if (ws_sim_write_trace(sim, out, &err))
		return end_cmd(sim, cfg, &a, &err, err.code == WS_EIO ? EXIT_RUN : EXIT_INPUT);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	if (!a.quiet) {
		printf("warpsim %s: %s\n", WS_VERSION, path);
		char wl[4096];
		if (ws_sim_workload_summary(sim, NULL, wl, sizeof wl))
			fputs(wl, stdout);
		printf("  wrote      %s: %" PRIu64 " flows; fabric and flows drawn in %.3f s, "
		       "written in %.3f s\n", out, st.flows_expected, built - t0,
		       tool_wall_seconds() - built);
	}
	return end_cmd(sim, cfg, &a, NULL, 0);
}
