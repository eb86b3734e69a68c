/* SPDX-License-Identifier: MIT */
/*
 * The warpsim program (tools/): the commands, written against libwarpsim's
 * public API only (<warpsim/warpsim.h>; never the kernel's internal.h), and
 * the few helpers they share.
 */
#ifndef WS_TOOLS_H
#define WS_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include <warpsim/warpsim.h>

#define TOOL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TOOL_MAX(a, b) ((a) > (b) ? (a) : (b))
#define TOOL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Exit statuses of every command. */
enum { EXIT_RUN = 1, EXIT_INPUT = 2, EXIT_DEADLOCK = 3, EXIT_STOPPED = 4 };

/* The command line; returns the exit status. */
int ws_cli_main(int argc, char **argv);

/* ---- commands and their declared options (cli.c) ---- */

enum opt_id {
	OPT_HELP = 'h',
	OPT_OUT = 'o',
	OPT_QUIET = 'q',
	OPT_SET = 256,
	OPT_SEED,
	OPT_THREADS,
	OPT_PLUGIN_PATH,
	OPT_NO_PROGRESS,
	OPT_MAX_WALL,
	OPT_MAX_MEMORY,
	OPT_KIND,
	OPT_INI,
	OPT_CHECK_ROUTES,
	OPT_DOT,
	OPT_FAIL,
	OPT_FAIL_AT,
	OPT_DRY_RUN,
	OPT_LINEAGE,
};

/* An option of a command, declared in a table ending with a NULL name. */
struct cli_opt {
	const char *name;
	int id;       /* short option character, or >= 256; 'h' is the help */
	const char *arg; /* NULL: no argument */
	const char *help;
};

/* A command: its name, arguments, one line of help, options and code. */
struct cli_cmd {
	const char *name;
	const char *args;
	const char *summary;
	const struct cli_opt *opts;
	int (*run)(int argc, char **argv, const struct cli_cmd *cmd);
};


struct run_args {
	const char *out;
	const char *plugin_path;
	const char **sets;
	size_t n_sets;
	const char *seed;
	const char *threads;
	bool quiet, no_progress;
	const char *max_wall;
	uint64_t max_memory;     /* bytes; 0: the machine's limits only */
	const char *check_routes; /* topo */
	const char *dot;          /* topo */
	const char *fail;         /* topo: [failures] events to apply */
	const char *fail_at;      /* topo: apply the events up to this time */
};

/*
 * Parse the options of `cmd` (getopt_long, from its table), calling `each`
 * for every one but the help; returns 0 (the arguments left from optind),
 * -1 after printing the help, EXIT_INPUT for an unknown option, or what
 * `each` returned if not 0.
 */
int parse_opts(int argc, char **argv, const struct cli_cmd *cmd,
	       int (*each)(int id, const char *arg, void *ctx), void *ctx);
/* The usage of a command, its options from the table. */
void usage_cmd(FILE *f, const struct cli_cmd *c);
/* The options of `run` and `topo`, the ini with --set and --seed applied,
 * and their common end (the error if any, everything freed). */
int run_opt(int id, const char *arg, void *ctx);
/* The options and the one CONFIG.ini (argv[optind]) of `run` and `topo`:
 * 0, -1 after --help (exit 0), or the exit status of a usage error. */
int run_args_parse(int argc, char **argv, const struct cli_cmd *cmd,
		   struct run_args *a);
int load_cfg(const char *path, const struct run_args *a, struct ws_cfg **cfg,
	     struct ws_err *err);
int end_cmd(struct ws_sim *sim, struct ws_cfg *cfg, struct run_args *a,
	    const struct ws_err *err, int status);
int cmd_run(int argc, char **argv, const struct cli_cmd *cmd);   /* run.c */
int cmd_topo(int argc, char **argv, const struct cli_cmd *cmd);  /* topo.c */
int cmd_gen(int argc, char **argv, const struct cli_cmd *cmd);   /* gen.c */
int cmd_import_ns3(int argc, char **argv, const struct cli_cmd *cmd); /* import_ns3.c */
int cmd_plot(int argc, char **argv, const struct cli_cmd *cmd);  /* plot.c */
extern const struct cli_opt plot_opts[];
int cmd_sweep(int argc, char **argv, const struct cli_cmd *cmd); /* sweep.c */
/* A sweep spec read and its grid made, the first `max_cfgs` experiments'
 * configurations built (no simulation): *n experiments, or an error naming
 * the spec's line (the fuzz target's entry). */
int tool_sweep_plan(const char *spec, size_t max_cfgs, size_t *n, struct ws_err *err);
extern const struct cli_opt sweep_opts[];
/* ab.c: the name of the plugin of `kind` ("cc", "accel") in a run's
 * summary.json ("" if not found); whether two runs are different
 * experiments (same accel, different CC, both with fct_by_size.csv); the
 * A/B table of
 * `warpsim compare --ab` (its exit status). */
void tool_summary_plugin(const char *dir, const char *kind, char *name, size_t n);
bool tool_runs_differ(const char *dir_a, const char *dir_b);
int tool_compare_ab(const char *dir_a, const char *dir_b, const char *csv, const char *json);
/* `warpsim compare --noise`: dir[0] the base, dir[1..n-2] its perturbed
 * twins, dir[n-1] the candidate (tools/noise.c); an exit status. */
int tool_compare_noise(const char *const *dir, unsigned n, unsigned n_buckets,
		       const char *csv, const char *json);
/* Whether two runs simulated the same fabric (summary.json's fabric
 * nodes, links and ports agree); false with the reason on stderr. */
bool tool_same_fabric(const char *dir_a, const char *dir_b);

/* `warpsim plugins`: every plugin found, by kind, and the search path;
 * files that are not plugins are reported on stderr. */
int tool_list_plugins(FILE *out, const struct ws_opts *opts, struct ws_err *err);
/* `warpsim describe`: the parameter table of a plugin or kernel section
 * (`kind` 0: every kind), or with `ini` an ini section with every key at its
 * default, its meaning above it. */
int tool_describe(FILE *out, const char *name, enum ws_kind kind, bool ini,
		  const struct ws_opts *opts, struct ws_err *err);

/* Allocation that exits the program with a message when memory runs out. */
void *tool_xcalloc(size_t n, size_t size);
void *tool_xrealloc(void *p, size_t n, size_t size);
/* At the end of a command: stdout flushed; a write error (a full disk, a
 * closed stdout) is reported and turns a success into EXIT_RUN. */
int tool_finish_stdout(int status);
/* ws_outfile_open() for a file named by the user (a path, not dir + name). */
struct ws_outfile *tool_outfile_open(const char *path, struct ws_err *err);
/* SIGINT/SIGTERM stop simulations at their next event (the flag returned,
 * for ws_opts.stop; a second signal exits at once); false restores the
 * default handlers.  tool_stop_signal(): the signal received, 0 if none. */
const volatile sig_atomic_t *tool_stop_signals(bool install);
int tool_stop_signal(void);
/* mkdir -p */
int tool_mkdir_p(const char *dir, struct ws_err *err);
/* Monotonic wall-clock seconds. */
double tool_wall_seconds(void);
/* CPU seconds the process used (timings on a shared machine) */
double tool_cpu_seconds(void);
/* "warpsim: file:line: message" on stderr. */
void tool_print_error(const struct ws_err *err);
/* A simulated time for a person: "1.234567 ms", "12.345 us". */
void tool_fmt_time(char *buf, size_t n, ws_time t);

#endif
