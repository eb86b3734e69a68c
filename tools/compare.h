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

#include "tools.h"

/* metrics a run's workload may declare; longest name of a metric, file or column */
#define WS_COMPARE_MAX_METRICS 16
#define WS_COMPARE_NAME_MAX 64

/*
 * A metric a workload declares in its report (summary.json
 * "workload": { "metrics": [ {...}, ... ] }, docs/outputs.md): a file of
 * the run directory with one row per item, the column the rows are
 * matched by and the column compared.
 */
struct ws_metric_decl {
	char name[WS_COMPARE_NAME_MAX];   /* e.g. "iteration"; --json "<name>_error" */
	char file[WS_COMPARE_NAME_MAX];   /* in the run directory: "iterations.csv" */
	char key[WS_COMPARE_NAME_MAX];    /* the row's id: "iteration" */
	char value[WS_COMPARE_NAME_MAX];  /* compared: "duration_ns" */
	char start[WS_COMPARE_NAME_MAX];  /* optional ("": none): value is end - start */
	char end[WS_COMPARE_NAME_MAX];
};

/* One declared metric of the two runs, compared when both declare it. */
struct ws_compare_metric {
	struct ws_metric_decl decl;     /* as A declares it (as B does: B's only) */
	bool in_a, in_b;                /* declared by each run's workload */
	uint32_t matched;               /* rows (by key) in both files */
	uint32_t only_a, only_b;        /* rows in one file only */
	double mean, max;               /* relative error of value; NaN: none matched */
};

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
	/* the metrics either run declares: A's in its order, then B's others */
	struct ws_compare_metric metrics[2 * WS_COMPARE_MAX_METRICS];
	uint32_t n_metrics;
	double speedup;                 /* timing.run_s of A / of B */
	double event_ratio;             /* results.events of A / of B */
	double wall_a, wall_b;          /* timing.run_s, wall seconds */
	double cpu_a, cpu_b;            /* timing.run_cpu_s; NaN when absent */
	double cpu_speedup;             /* cpu_a / cpu_b: steadier than wall */
	uint64_t events_a, events_b;    /* results.events */
	ws_time sim_a, sim_b;           /* results.sim_time_ps */
};

/*
 * Read both directories (fct.csv and summary.json must be there; each
 * metric both workloads declare is read from its file) and fill `out`;
 * with `csv_path`, also write the per-flow errors there
 * (flow_id,fct_a_ns,fct_b_ns,rel_error).  Errors: WS_ENOENT a directory
 * or file is missing; WS_EINVAL a malformed file (the error names the file
 * and line) or runs of different scenarios (a matched flow whose src, dst
 * or bytes differ: the error names the flow); WS_EIO `csv_path` could not
 * be written.
 */
int ws_compare_runs(const char *dir_a, const char *dir_b,
		    struct ws_compare *out, const char *csv_path,
		    struct ws_err *err);

/*
 * FCT errors of run B against run A by flow size (`warpsim compare
 * --noise`): A's completed flows sorted by (bytes, flow id) and cut into
 * n_buckets groups of equal count, as fct_by_size.csv cuts them; each
 * flow matched in B (as ws_compare_runs matches them) adds its |relative
 * FCT error| to the bucket of its A flow.  out[] holds n_buckets entries
 * (1..WS_COMPARE_MAX_BUCKETS).  Errors as ws_compare_runs.
 */
#define WS_COMPARE_MAX_BUCKETS 20
struct ws_size_bucket {
	uint64_t min_bytes, max_bytes;  /* of A's flows in the bucket */
	uint32_t flows;                 /* A's completed flows in it */
	uint32_t matched;               /* of which completed in B too */
	double mean, p99;               /* |relative FCT error|; NaN: none matched */
};
int ws_compare_by_size(const char *dir_a, const char *dir_b, unsigned n_buckets,
		       struct ws_size_bucket *out, struct ws_err *err);

/*
 * A CSV file with a header row, the numeric columns `cols` of every row:
 * *rows holds n_cols values per row, row after row (caller frees).  Errors
 * name the file and line (a missing column, a field that is not a
 * non-negative number); WS_ENOENT when the file does not exist.
 */
#define TOOL_TABLE_MAX_COLS 16
int tool_table_read(const char *path, const char *const *cols, unsigned n_cols,
		    double **rows, size_t *n_rows, struct ws_err *err);

/* The command: `warpsim compare [options] RUN_A RUN_B` (its entry in the
 * command table of cli.c). */
extern const struct cli_opt compare_opts[];
int cmd_compare(int argc, char **argv, const struct cli_cmd *cmd);

/*
 * Numbers of a run's summary.json: keys[i] is "section.key" (a member of a
 * top-level object, e.g. "workload.iteration_mean_s"), its value into
 * out[i]; NaN when the file has no such non-negative number.  Errors as
 * `warpsim compare` reports them (a missing or malformed file).
 */
int tool_summary_numbers(const char *dir, const char *const *keys, double *out,
			 size_t n, struct ws_err *err);

#endif
