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
	{ "plugin-path", OPT_PLUGIN_PATH, "DIRS", "colon-separated directories searched first for plugins" },
	{ "quiet", OPT_QUIET, NULL, "print no summary and no warnings" },
	{ "no-progress", OPT_NO_PROGRESS, NULL, "no progress line on stderr" },
	{ "max-wall", OPT_MAX_WALL, "SECONDS", "stop after this much wall-clock time and write what was simulated (benchmarks of long runs)" },
	{ "help", OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_opt topo_opts[] = {
	{ "set", OPT_SET, "SECTION.KEY=VALUE", "override a key of the ini (repeatable)" },
	{ "seed", OPT_SEED, "N", "same as --set sim.seed=N (picks the --check-routes pairs)" },
	{ "check-routes", OPT_CHECK_ROUTES, "N", "trace N random host pairs: loop-free, reaching the destination" },
	{ "dot", OPT_DOT, "FILE", "write the fabric as a Graphviz graph (small fabrics)" },
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

static const struct cli_opt compare_opts[] = {
	{ "json", OPT_JSON, "FILE", "also write the figures to FILE as JSON" },
	{ "csv", OPT_CSV, "FILE", "write the error of each matched flow to FILE "
	  "(flow_id,fct_a_ns,fct_b_ns,rel_error)" },
	{ "help", OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

static int cmd_compare(int argc, char **argv, const struct cli_cmd *cmd);
static int cmd_plugins(int argc, char **argv, const struct cli_cmd *cmd);
static int cmd_describe(int argc, char **argv, const struct cli_cmd *cmd);

static const struct cli_cmd commands[] = {
	{ "run", "CONFIG.ini", "simulate a scenario and write fct.csv and summary.json",
	  run_opts, cmd_run },
	{ "topo", "CONFIG.ini", "build the fabric only: its size, memory and build time; "
	  "check routes, draw it", topo_opts, cmd_topo },
	{ "compare", "RUN_A RUN_B", "how far run B is from run A (the reference): "
	  "FCT and iteration-time errors, speedup", compare_opts, cmd_compare },
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
		   "(deadlock)\n");
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
	case OPT_PLUGIN_PATH: a->plugin_path = arg; break;
	case OPT_QUIET: a->quiet = true; break;
	case OPT_NO_PROGRESS: a->no_progress = true; break;
	case OPT_MAX_WALL: a->max_wall = arg; break;
	case OPT_CHECK_ROUTES: a->check_routes = arg; break;
	case OPT_DOT: a->dot = arg; break;
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


/* ---- compare ----------------------------------------------------------------------- */

struct compare_args {
	const char *json;
	const char *csv;
};

static int compare_opt(int id, const char *arg, void *ctx)
{
	struct compare_args *a = ctx;
	if (id == OPT_JSON)
		a->json = arg;
	else if (id == OPT_CSV)
		a->csv = arg;
	return 0;
}

/* A relative error as a percentage; "n/a" when undefined. */
static const char *fmt_pct(char *buf, size_t n, double v, bool sign)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, sign ? "%+.3g%%" : "%.3g%%", v * 100);
	return buf;
}

static const char *fmt_ratio(char *buf, size_t n, double v)
{
	if (isfinite(v))
		snprintf(buf, n, "%.2f", v);
	else
		snprintf(buf, n, "n/a");
	return buf;
}

static void print_compare(const struct ws_compare *c, const char *dir_a,
			  const char *dir_b)
{
	char p[4][32], t[2][64];
	printf("warpsim %s: compare A %s (reference), B %s\n", WS_VERSION, dir_a,
	       dir_b);
	printf("  flows      %u completed in A, %u in B: %u matched by %s\n", c->flows_a,
	       c->flows_b, c->matched, c->by_tag ? "tag" : "flow id");
	if (c->only_a)
		printf("  missing    %u flows of A are not in B (B stopped early, or "
		       "left them incomplete)\n", c->only_a);
	if (c->only_b)
		printf("  missing    %u flows of B are not in A (A stopped early, or "
		       "left them incomplete)\n", c->only_b);
	if (c->matched)
		printf("  FCT error  mean %s, p50 %s, p99 %s, max %s (flow %u); bias %s "
		       "(|FCT B - FCT A| / FCT A)\n",
		       fmt_pct(p[0], sizeof p[0], c->fct_mean, false),
		       fmt_pct(p[1], sizeof p[1], c->fct_p50, false),
		       fmt_pct(p[2], sizeof p[2], c->fct_p99, false),
		       fmt_pct(p[3], sizeof p[3], c->fct_max, false), c->fct_max_flow,
		       fmt_pct(t[0], sizeof t[0], c->fct_bias, true));
	else
		printf("  FCT error  n/a: no flow completed in both runs\n");
	if (!c->have_iters)
		printf("  iterations skipped: no iterations.csv in %s\n",
		       !c->iters_a && !c->iters_b ? "A and B" : !c->iters_a ? "A" : "B");
	else if (c->iters)
		printf("  iterations %u matched (%u only in A, %u only in B): time error "
		       "mean %s, max %s\n", c->iters, c->iters_only_a, c->iters_only_b,
		       fmt_pct(p[0], sizeof p[0], c->iter_mean, false),
		       fmt_pct(p[1], sizeof p[1], c->iter_max, false));
	else
		printf("  iterations none completed in both runs (%u in A, %u in B)\n",
		       c->iters_only_a, c->iters_only_b);
	printf("  wall time  A %.3f s, B %.3f s: speedup %s\n", c->wall_a, c->wall_b,
	       fmt_ratio(p[0], sizeof p[0], c->speedup));
	printf("  events     A %" PRIu64 ", B %" PRIu64 ": ratio %s\n", c->events_a,
	       c->events_b, fmt_ratio(p[0], sizeof p[0], c->event_ratio));
	tool_fmt_time(t[0], sizeof t[0], c->sim_a);
	tool_fmt_time(t[1], sizeof t[1], c->sim_b);
	printf("  sim time   A %s, B %s\n", t[0], t[1]);
}

static int write_compare_json(const struct ws_compare *c, const char *dir_a,
			      const char *dir_b, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "warpsim compare: cannot write %s: %s\n", path,
			strerror(errno));
		return EXIT_RUN;
	}
	struct ws_json *j = ws_json_new(f);
	ws_json_begin(j, NULL);
	ws_json_str(j, "run_a", dir_a);
	ws_json_str(j, "run_b", dir_b);
	ws_json_begin(j, "flows");
	ws_json_u64(j, "a", c->flows_a);
	ws_json_u64(j, "b", c->flows_b);
	ws_json_u64(j, "matched", c->matched);
	ws_json_str(j, "matched_by", c->by_tag ? "tag" : "flow_id");
	ws_json_u64(j, "only_a", c->only_a);
	ws_json_u64(j, "only_b", c->only_b);
	ws_json_end(j);
	ws_json_begin(j, "fct_error");
	ws_json_f64(j, "mean", c->fct_mean);
	ws_json_f64(j, "p50", c->fct_p50);
	ws_json_f64(j, "p99", c->fct_p99);
	ws_json_f64(j, "max", c->fct_max);
	/* null (through the NaN rule of ws_json_f64) when no flow matched */
	ws_json_f64(j, "max_flow", c->matched ? (double)c->fct_max_flow : NAN);
	ws_json_f64(j, "bias", c->fct_bias);
	ws_json_end(j);
	ws_json_begin(j, "iteration_error");
	ws_json_bool(j, "in_a", c->iters_a);
	ws_json_bool(j, "in_b", c->iters_b);
	ws_json_u64(j, "iterations", c->iters);
	ws_json_u64(j, "only_a", c->iters_only_a);
	ws_json_u64(j, "only_b", c->iters_only_b);
	ws_json_f64(j, "mean", c->iter_mean);
	ws_json_f64(j, "max", c->iter_max);
	ws_json_end(j);
	ws_json_begin(j, "wall_s");
	ws_json_f64(j, "a", c->wall_a);
	ws_json_f64(j, "b", c->wall_b);
	ws_json_f64(j, "speedup", c->speedup);
	ws_json_end(j);
	ws_json_begin(j, "events");
	ws_json_u64(j, "a", c->events_a);
	ws_json_u64(j, "b", c->events_b);
	ws_json_f64(j, "ratio", c->event_ratio);
	ws_json_end(j);
	ws_json_begin(j, "sim_time_ps");
	ws_json_u64(j, "a", c->sim_a);
	ws_json_u64(j, "b", c->sim_b);
	ws_json_end(j);
	ws_json_finish(j);
	bool bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		fprintf(stderr, "warpsim compare: cannot write %s\n", path);
		return EXIT_RUN;
	}
	return 0;
}

static int cmd_compare(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct compare_args a = { 0 };
	int rc = parse_opts(argc, argv, cmd, compare_opt, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (optind != argc - 2) {
		fprintf(stderr, "warpsim compare: expected two run directories "
			"(RUN_A RUN_B), got %d arguments\n", argc - optind);
		usage_cmd(stderr, cmd);
		return EXIT_INPUT;
	}
	const char *dir_a = argv[optind], *dir_b = argv[optind + 1];
	struct ws_compare c;
	struct ws_err err;
	rc = ws_compare_runs(dir_a, dir_b, &c, a.csv, &err);
	if (rc) {
		tool_print_error(&err);
		/* a figure that could not be written is not bad input */
		return rc == WS_EIO ? EXIT_RUN : EXIT_INPUT;
	}
	print_compare(&c, dir_a, dir_b);
	if (a.json)
		return write_compare_json(&c, dir_a, dir_b, a.json);
	return 0;
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

int ws_cli_main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	const char *c = argv[1];
	if (strcmp(c, "--version") == 0 || strcmp(c, "-V") == 0) {
		printf("warpsim %s (plugin ABI %d.%d)\n", WS_VERSION, WS_ABI_MAJOR,
		       WS_ABI_MINOR);
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
