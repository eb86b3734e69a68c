/* SPDX-License-Identifier: MIT */
/*
 * `warpsim compare`: how far one run is from another, read from the two
 * output directories.  Part of the program (tools/), not of libwarpsim.
 */
#ifndef WS_TOOLS_COMPARE_H
#define WS_TOOLS_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include <warpsim/warpsim.h>

/*
 * How far run B (an approximation) is from run A (the reference): two
 * output directories of `warpsim run` (`warpsim compare`, docs/outputs.md).
 * Flows are matched by flow id; relative errors are |B - A| / A.  A figure
 * that is undefined (no flow matched, B's run_s or events 0) is NaN.
 */
struct ws_compare {
	uint32_t flows_a, flows_b;      /* lines of each fct.csv */
	uint32_t matched;               /* flows completed in both runs */
	bool by_tag;                    /* matched by tag (unique in both runs),
					 * else by flow id */
	uint32_t only_a, only_b;        /* flows completed in one run only */
	double fct_mean, fct_p50, fct_p99, fct_max; /* relative FCT error;
						     * nearest-rank percentiles */
	double fct_bias;                /* mean of (fct_B - fct_A) / fct_A */
	uint32_t fct_max_flow;          /* flow of fct_max (the lowest id of
					 * equals); UINT32_MAX: none matched */
	bool have_iters;                /* both runs wrote iterations.csv */
	bool iters_a, iters_b;          /* which run did */
	uint32_t iters;                 /* iterations completed in both */
	uint32_t iters_only_a, iters_only_b;
	double iter_mean, iter_max;     /* relative iteration-time error */
	double speedup;                 /* timing.run_s of A / of B */
	double event_ratio;             /* results.events of A / of B */
	double wall_a, wall_b;          /* timing.run_s, wall seconds */
	uint64_t events_a, events_b;    /* results.events */
	ws_time sim_a, sim_b;           /* results.sim_time_ps */
};

/*
 * Read both directories (fct.csv and summary.json must be there;
 * iterations.csv is compared when both have it) and fill `out`; with
 * `csv_path`, also write the per-flow errors there
 * (flow_id,fct_a_ns,fct_b_ns,rel_error).  Errors: WS_ENOENT a directory
 * or file is missing; WS_EINVAL a malformed file (the error names the file
 * and line) or runs of different scenarios (a matched flow whose src, dst
 * or bytes differ: the error names the flow); WS_EIO `csv_path` could not
 * be written.
 */
int ws_compare_runs(const char *dir_a, const char *dir_b,
		    struct ws_compare *out, const char *csv_path,
		    struct ws_err *err);

#endif
