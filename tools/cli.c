/* SPDX-License-Identifier: MIT */
/*
 * The `warpsim` command line.  Commands and their options are declared in
 * tables; usage text and getopt_long's option arrays are derived from them.
 *
 * Exit status: 0 success; 1 the run failed (a component stopped it, an
 * output could not be written); 2 bad input (usage, configuration, plugin);
 * 3 the event queue drained with flows still incomplete (a deadlock).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "compare.h"
#include "tools.h"

static const struct cli_opt run_opts[] = {
	{ "output", OPT_OUT, "DIR", "write outputs to DIR (default: [output] dir, else out/<ini name>)" },
	{ "set", OPT_SET, "SECTION.KEY=VALUE", "override a key of the ini (repeatable)" },
	{ "seed", OPT_SEED, "N", "same as --set sim.seed=N" },
	{ "threads", OPT_THREADS, "N", "same as --set sim.threads=N (N or auto: one experiment on N threads, docs/architecture.md)" },
	{ "plugin-path", OPT_PLUGIN_PATH, "DIRS", "colon-separated directories searched first for plugins" },
	{ "quiet", OPT_QUIET, NULL, "print no summary and no warnings" },
	{ "no-progress", OPT_NO_PROGRESS, NULL, "no progress line on stderr" },
	{ "max-wall", OPT_MAX_WALL, "SECONDS", "stop after this much wall-clock time and write what was simulated (benchmarks of long runs)" },
	{ "max-memory", OPT_MAX_MEMORY, "SIZE", "refuse a configuration whose fabric and workload are estimated to need more (e.g. 8GiB; the machine's available memory is always a limit)" },
	{ "help", OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_opt topo_opts[] = {
	{ "set", OPT_SET, "SECTION.KEY=VALUE", "override a key of the ini (repeatable)" },
	{ "seed", OPT_SEED, "N", "same as --set sim.seed=N (picks the --check-routes pairs)" },
	{ "check-routes", OPT_CHECK_ROUTES, "N", "trace N random host pairs: loop-free, reaching the destination" },
	{ "dot", OPT_DOT, "FILE", "write the fabric as a Graphviz graph (small fabrics)" },
	{ "fail", OPT_FAIL, "EVENTS", "failure events ('TIME ACTION TARGET [VALUE]; ...', docs/failures.md) instead of the ini's [failures] events; applied, converged, before --check-routes" },
	{ "fail-at", OPT_FAIL_AT, "TIME", "apply the failure events up to this time only (default: all of them)" },
	{ "max-memory", OPT_MAX_MEMORY, "SIZE", "refuse a fabric estimated to need more (e.g. 8GiB)" },
	{ "plugin-path", OPT_PLUGIN_PATH, "DIRS", "colon-separated directories searched first for plugins" },
	{ "help", OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_opt plugins_opts[] = {
	{ "plugin-path", OPT_PLUGIN_PATH, "DIRS", "colon-separated directories searched first" },
	{ "help", OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_opt describe_opts[] = {
	{ "kind", OPT_KIND, "KIND", "only this kind: topology, routing, cc, accel, workload" },
	{ "ini", OPT_INI, NULL, "print an ini section with every key at its default" },
	{ "plugin-path", OPT_PLUGIN_PATH, "DIRS", "colon-separated directories searched first" },
	{ "help", OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_opt gen_opts[] = {
	{ "output", OPT_OUT, "FILE", "the flow.txt to write (default: flow.txt)" },
	{ "set", OPT_SET, "SECTION.KEY=VALUE", "override a key of the ini (repeatable)" },
	{ "seed", OPT_SEED, "N", "same as --set sim.seed=N" },
	{ "plugin-path", OPT_PLUGIN_PATH, "DIRS", "colon-separated directories searched first for plugins" },
	{ "quiet", OPT_QUIET, NULL, "print nothing" },
	{ "help", OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_opt import_opts[] = {
	{ "output", OPT_OUT, "FILE", "the ini to write (default: standard output)" },
	{ "lineage", OPT_LINEAGE, "hpcc|alibabacloud", "the simulator that read CONFIG.txt: HPCC's own "
	  "(48-byte headers, the default) or ns-3-alibabacloud (52)" },
	{ "help", OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

static int cmd_plugins(int argc, char **argv, const struct cli_cmd *cmd);
static int cmd_describe(int argc, char **argv, const struct cli_cmd *cmd);

static const struct cli_cmd commands[] = {
	{ "run", "CONFIG.ini", "simulate a scenario and write fct.csv and summary.json",
	  run_opts, cmd_run },
	{ "topo", "CONFIG.ini", "build the fabric only: its size, memory and build time; "
	  "check routes, draw it", topo_opts, cmd_topo },
	{ "compare", "RUN_A RUN_B | --noise BASE TWIN... CANDIDATE", "how far run B is "
	  "from run A (the reference): FCT errors, the metrics the workload declares, "
	  "speedup; with --noise, next to the noise floor of perturbed twins", compare_opts,
	  cmd_compare },
	{ "gen", "CONFIG.ini", "write the flows the workload will create as an HPCC "
	  "flow.txt (cdf traffic), without simulating", gen_opts, cmd_gen },
	{ "plot", "RUN... | SWEEPDIR | --cc RUN", "draw a run's figures with gnuplot (FCT "
	  "slowdown by size, slowdown CCDF, rates, queues, collectives); several runs: "
	  "overlaid; a sweep: a metric against an axis; --cc: a line per flow and port", plot_opts,
	  cmd_plot },
	{ "sweep", "SPEC.ini", "run a grid of experiments (a scenario plus a [sweep] "
	  "section of axes) on threads, and over MPI ranks: one results.csv",
	  sweep_opts, cmd_sweep },
	{ "import-ns3", "CONFIG.txt", "write an HPCC ns-3 simulator config.txt as an ini "
	  "that runs the same study in the reference mode", import_opts, cmd_import_ns3 },
	{ "plugins", "", "list the plugins found, by kind", plugins_opts, cmd_plugins },
	{ "describe", "NAME", "print the parameters of a plugin or of a kernel section "
	  "(sim, nic, switch, output)", describe_opts, cmd_describe },
	{ NULL, NULL, NULL, NULL, NULL }
};

void usage_cmd(FILE *f, const struct cli_cmd *c)
{
	fprintf(f, "usage: warpsim %s [options] %s\n  %s\n\noptions:\n", c->name,
		c->args, c->summary);
	for (const struct cli_opt *o = c->opts; o->name; o++) {
		char left[64];
		if (o->id < 256)
			snprintf(left, sizeof left, "-%c, --%s%s%s", o->id, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-32s %s\n", left, o->help);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"warpsim %s: packet-level simulator for the fabrics that train large models\n\n"
		"usage: warpsim COMMAND [options] [args]\n\ncommands:\n",
		WS_VERSION);
	for (const struct cli_cmd *c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\n  warpsim COMMAND --help   options of a command\n"
		   "  warpsim --version\n\n"
		   "exit status: 0 ok, 1 run failed, 2 bad input, 3 flows left incomplete "
		   "(deadlock), 4 run stopped by --max-wall\n");
}

/* getopt_long arrays from a declared table. */
int parse_opts(int argc, char **argv, const struct cli_cmd *cmd,
	       int (*each)(int id, const char *arg, void *ctx), void *ctx)
{
	struct option lo[16];
	char so[40];
	size_t n = 0, k = 0;
	so[k++] = ':';
	for (const struct cli_opt *o = cmd->opts; o->name && n < 15; o++, n++) {
		lo[n] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					 NULL, o->id };
		if (o->id < 256) {
			so[k++] = (char)o->id;
			if (o->arg)
				so[k++] = ':';
		}
	}
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	so[k] = '\0';
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];
			fprintf(stderr, "warpsim %s: %s option '%s'\n", cmd->name,
				c == ':' ? "missing the argument of" : "unknown", bad);
			fprintf(stderr, "('warpsim %s --help' lists the options)\n",
				cmd->name);
			return EXIT_INPUT;
		}
		if (c == OPT_HELP) {
			usage_cmd(stdout, cmd);
			return -1;
		}
		int rc = each(c, optarg, ctx);
		if (rc)
			return rc;
	}
	return 0;
}


/* ---- run -------------------------------------------------------------------------- */


int run_args_parse(int argc, char **argv, const struct cli_cmd *cmd,
		   struct run_args *a)
{
	int rc = parse_opts(argc, argv, cmd, run_opt, a);
	if (rc) {
		free(a->sets);
		return rc < 0 ? -1 : rc;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "warpsim %s: expected one CONFIG.ini, got %d arguments\n",
			cmd->name, argc - optind);
		usage_cmd(stderr, cmd);
		free(a->sets);
		return EXIT_INPUT;
	}
	return 0;
}

/* --max-memory SIZE, with the units of the ini's sizes. */
static int max_memory_opt(struct run_args *a, const char *arg)
{
	static const struct ws_param p =
		WS_PARAM_SIZE("max-memory", struct run_args, max_memory, "0B",
			      "1MiB", NULL, "");
	char why[256];
	if (ws_param_parse(&p, arg, &a->max_memory, why, sizeof why) == WS_OK)
		return 0;
	fprintf(stderr, "warpsim: --max-memory '%s': %s\n", arg, why);
	return EXIT_INPUT;
}

int run_opt(int id, const char *arg, void *ctx)
{
	struct run_args *a = ctx;
	switch (id) {
	case OPT_OUT: a->out = arg; break;
	case OPT_SET:
		a->sets = tool_xrealloc(a->sets, a->n_sets + 1, sizeof *a->sets);
		a->sets[a->n_sets++] = arg;
		break;
	case OPT_SEED: a->seed = arg; break;
	case OPT_THREADS: a->threads = arg; break;
	case OPT_PLUGIN_PATH: a->plugin_path = arg; break;
	case OPT_QUIET: a->quiet = true; break;
	case OPT_NO_PROGRESS: a->no_progress = true; break;
	case OPT_MAX_WALL: a->max_wall = arg; break;
	case OPT_MAX_MEMORY: return max_memory_opt(a, arg);
	case OPT_CHECK_ROUTES: a->check_routes = arg; break;
	case OPT_DOT: a->dot = arg; break;
	case OPT_FAIL: a->fail = arg; break;
	case OPT_FAIL_AT: a->fail_at = arg; break;
	}
	return 0;
}

/* The ini with the command line's --set and --seed applied. */
int load_cfg(const char *path, const struct run_args *a,
		    struct ws_cfg **cfg, struct ws_err *err)
{
	int rc = ws_cfg_load(cfg, path, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < a->n_sets; i++)
		if ((rc = ws_cfg_set(*cfg, a->sets[i], err)))
			return rc;
	if (a->seed) {
		char kv[96];
		snprintf(kv, sizeof kv, "sim.seed=%s", a->seed);
		if ((rc = ws_cfg_set(*cfg, kv, err)))
			return rc;
	}
	if (a->threads) {
		char kv[96];
		snprintf(kv, sizeof kv, "sim.threads=%s", a->threads);
		if ((rc = ws_cfg_set(*cfg, kv, err)))
			return rc;
	}
	if (a->fail) {
		char *kv = NULL;
		if (asprintf(&kv, "failures.events=%s", a->fail) < 0)
			return ws_err_set(err, WS_ENOMEM, "--fail: out of memory");
		rc = ws_cfg_set(*cfg, kv, err);
		free(kv);
		if (rc)
			return rc;
	}
	return WS_OK;
}

/* The end of `run` and `topo`: the error if any, everything freed. */
int end_cmd(struct ws_sim *sim, struct ws_cfg *cfg, struct run_args *a,
		   const struct ws_err *err, int status)
{
	if (err)
		tool_print_error(err);
	ws_sim_free(sim);
	ws_cfg_free(cfg);
	free(a->sets);
	return status;
}


/* ---- plugins, describe --------------------------------------------------------------- */

struct misc_args {
	const char *plugin_path;
	const char *kind;
	bool ini;
};

static int misc_opt(int id, const char *arg, void *ctx)
{
	struct misc_args *a = ctx;
	if (id == OPT_PLUGIN_PATH)
		a->plugin_path = arg;
	else if (id == OPT_KIND)
		a->kind = arg;
	else if (id == OPT_INI)
		a->ini = true;
	return 0;
}

static int cmd_plugins(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct misc_args a = { 0 };
	int rc = parse_opts(argc, argv, cmd, misc_opt, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (optind != argc) {
		fprintf(stderr, "warpsim plugins: takes no arguments\n");
		return EXIT_INPUT;
	}
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .plugin_path = a.plugin_path };
	struct ws_err err;
	if (tool_list_plugins(stdout, &opts, &err)) {
		tool_print_error(&err);
		return EXIT_INPUT;
	}
	return 0;
}

static int cmd_describe(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct misc_args a = { 0 };
	int rc = parse_opts(argc, argv, cmd, misc_opt, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (optind != argc - 1) {
		fprintf(stderr, "warpsim describe: expected one NAME\n");
		usage_cmd(stderr, cmd);
		return EXIT_INPUT;
	}
	enum ws_kind kind = 0;
	if (a.kind) {
		for (int k = WS_KIND_TOPO; k <= WS_KIND_WORKLOAD; k++)
			if (strcmp(a.kind, ws_kind_name(k)) == 0)
				kind = k;
		if (!kind) {
			fprintf(stderr, "warpsim describe: unknown kind '%s' (expected "
				"topology, routing, cc, accel or workload)\n", a.kind);
			return EXIT_INPUT;
		}
	}
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .plugin_path = a.plugin_path };
	struct ws_err err;
	ws_err_clear(&err);
	if (tool_describe(stdout, argv[optind], kind, a.ini, &opts, &err)) {
		tool_print_error(&err);
		return EXIT_INPUT;
	}
	return 0;
}

static int cli_dispatch(int argc, char **argv);

int ws_cli_main(int argc, char **argv)
{
	/* a write past the file-size limit (ulimit -f) fails with EFBIG and is
	 * reported like any write error, its temporary removed; by default
	 * SIGXFSZ would kill the process and leave the .tmp files */
	signal(SIGXFSZ, SIG_IGN);
	return tool_finish_stdout(cli_dispatch(argc, argv));
}

static int cli_dispatch(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	const char *c = argv[1];
	if (strcmp(c, "--version") == 0 || strcmp(c, "-V") == 0) {
#ifdef WS_HAVE_MPI
		const char *mpi = "; sweeps over MPI";
#else
		const char *mpi = "";
#endif
		printf("warpsim %s (plugin ABI %d.%d%s)\n", WS_VERSION, WS_ABI_MAJOR,
		       WS_ABI_MINOR, mpi);
		return 0;
	}
	if (strcmp(c, "--help") == 0 || strcmp(c, "-h") == 0 ||
	    strcmp(c, "help") == 0) {
		usage(stdout);
		return 0;
	}
	for (const struct cli_cmd *cmd = commands; cmd->name; cmd++)
		if (strcmp(c, cmd->name) == 0)
			return cmd->run(argc - 1, argv + 1, cmd);
	fprintf(stderr, "warpsim: unknown command '%s'\n\n", c);
	usage(stderr);
	return EXIT_INPUT;
}
