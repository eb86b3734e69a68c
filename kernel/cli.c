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
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { EXIT_RUN = 1, EXIT_INPUT = 2, EXIT_DEADLOCK = 3 };

enum opt_id {
	OPT_HELP = 'h',
	OPT_OUT = 'o',
	OPT_QUIET = 'q',
	OPT_SET = 256,
	OPT_SEED,
	OPT_PLUGIN_PATH,
	OPT_NO_PROGRESS,
	OPT_KIND,
	OPT_INI,
};

struct cli_opt {
	const char *name;
	int id;       /* short option character, or >= 256 */
	const char *arg; /* NULL: no argument */
	const char *help;
};

struct cli_cmd {
	const char *name;
	const char *args;
	const char *summary;
	const struct cli_opt *opts;
	int (*run)(int argc, char **argv, const struct cli_cmd *cmd);
};

static const struct cli_opt run_opts[] = {
	{ "output", OPT_OUT, "DIR", "write outputs to DIR (default: [output] dir, else out/<ini name>)" },
	{ "set", OPT_SET, "SECTION.KEY=VALUE", "override a key of the ini (repeatable)" },
	{ "seed", OPT_SEED, "N", "same as --set sim.seed=N" },
	{ "plugin-path", OPT_PLUGIN_PATH, "DIRS", "colon-separated directories searched first for plugins" },
	{ "quiet", OPT_QUIET, NULL, "print no summary and no warnings" },
	{ "no-progress", OPT_NO_PROGRESS, NULL, "no progress line on stderr" },
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

static int cmd_run(int argc, char **argv, const struct cli_cmd *cmd);
static int cmd_plugins(int argc, char **argv, const struct cli_cmd *cmd);
static int cmd_describe(int argc, char **argv, const struct cli_cmd *cmd);

static const struct cli_cmd commands[] = {
	{ "run", "CONFIG.ini", "simulate a scenario and write fct.csv and summary.json",
	  run_opts, cmd_run },
	{ "plugins", "", "list the plugins found, by kind", plugins_opts, cmd_plugins },
	{ "describe", "NAME", "print the parameters of a plugin or of a kernel section "
	  "(sim, nic, switch, output)", describe_opts, cmd_describe },
	{ NULL, NULL, NULL, NULL, NULL }
};

static void usage_cmd(FILE *f, const struct cli_cmd *c)
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
static int parse_opts(int argc, char **argv, const struct cli_cmd *cmd,
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

static void print_error(const struct ws_err *err)
{
	char buf[2048];
	ws_err_format(err, buf, sizeof buf);
	fprintf(stderr, "warpsim: %s\n", buf);
}

/* ---- run -------------------------------------------------------------------------- */

struct run_args {
	const char *out;
	const char *plugin_path;
	const char **sets;
	size_t n_sets;
	const char *seed;
	bool quiet, no_progress;
};

static int run_opt(int id, const char *arg, void *ctx)
{
	struct run_args *a = ctx;
	switch (id) {
	case OPT_OUT: a->out = arg; break;
	case OPT_SET:
		a->sets = ws_xrealloc(a->sets, a->n_sets + 1, sizeof *a->sets);
		a->sets[a->n_sets++] = arg;
		break;
	case OPT_SEED: a->seed = arg; break;
	case OPT_PLUGIN_PATH: a->plugin_path = arg; break;
	case OPT_QUIET: a->quiet = true; break;
	case OPT_NO_PROGRESS: a->no_progress = true; break;
	}
	return 0;
}

static void fmt_time(char *buf, size_t n, ws_time t)
{
	if (t >= WS_SEC)
		snprintf(buf, n, "%.6f s", (double)t / 1e12);
	else if (t >= WS_MS)
		snprintf(buf, n, "%.6f ms", (double)t / 1e9);
	else
		snprintf(buf, n, "%.3f us", (double)t / 1e6);
}

static void print_summary(struct ws_sim *sim, const char *cfg_path,
			  const char *dir)
{
	struct ws_sim_stats st;
	ws_sim_get_stats(sim, &st);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	char t[64];
	fmt_time(t, sizeof t, st.now);
	printf("warpsim %s: %s\n", WS_VERSION, cfg_path);
	printf("  fabric     %s: %u nodes (%u hosts, %u switches), %u links; built in %.3f s\n",
	       ws_sim_plugin_name(sim, WS_KIND_TOPO), fab->n_nodes, fab->n_hosts,
	       fab->n_switches, fab->n_links, st.wall_build_s);
	printf("  plugins    routing %s, cc %s, accel %s, workload %s\n",
	       ws_sim_plugin_name(sim, WS_KIND_ROUTING),
	       ws_sim_plugin_name(sim, WS_KIND_CC),
	       ws_sim_plugin_name(sim, WS_KIND_ACCEL),
	       ws_sim_plugin_name(sim, WS_KIND_WORKLOAD));
	printf("  flows      %u of %u completed\n", st.flows_done, st.flows);
	printf("  sim time   %s\n", t);
	double eps = st.wall_run_s > 0 ? (double)st.events / st.wall_run_s : 0;
	printf("  wall time  %.3f s; %.3f M events, %.2f M events/s\n", st.wall_run_s,
	       (double)st.events / 1e6, eps / 1e6);
	printf("  packets    %" PRIu64 " data, %" PRIu64 " ACK, %" PRIu64 " NACK, %" PRIu64
	       " CNP; %" PRIu64 " PFC pauses, %" PRIu64 " drops\n",
	       st.data_packets, st.acks, st.nacks, st.cnps, st.pfc_pauses, st.drops);
	printf("  congestion %" PRIu64 " ECN marks, %" PRIu64 " notifications to the CC\n",
	       st.ecn_marks, st.notified);
	struct ws_fct_stats fs;
	ws_sim_fct_stats(sim, &fs);
	if (fs.n)
		printf("  slowdown   mean %.3f, p50 %.3f, p99 %.3f, max %.3f (FCT / ideal FCT)\n",
		       fs.mean, fs.p50, fs.p99, fs.max);
	printf("  outputs    ");
	static const char *const files[] = { "fct.csv", "ports.csv", "flows.csv" };
	const bool written[] = { sim->outc.fct, sim->outc.ports, sim->outc.flows };
	for (size_t i = 0; i < WS_ARRAY_LEN(files); i++)
		if (written[i])
			printf("%s/%s, ", dir, files[i]);
	printf("%s/summary.json\n", dir);
}

static int cmd_run(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct run_args a = { 0 };
	int rc = parse_opts(argc, argv, cmd, run_opt, &a);
	if (rc) {
		free(a.sets);
		return rc < 0 ? 0 : rc;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "warpsim run: expected one CONFIG.ini, got %d arguments\n",
			argc - optind);
		usage_cmd(stderr, cmd);
		free(a.sets);
		return EXIT_INPUT;
	}
	const char *path = argv[optind];
	struct ws_err err;
	ws_err_clear(&err);
	struct ws_cfg *cfg = NULL;
	struct ws_sim *sim = NULL;
	int status = 0;
	if ((rc = ws_cfg_load(&cfg, path, &err)))
		goto input_error;
	for (size_t i = 0; i < a.n_sets; i++)
		if ((rc = ws_cfg_set(cfg, a.sets[i], &err)))
			goto input_error;
	if (a.seed) {
		char kv[96];
		snprintf(kv, sizeof kv, "sim.seed=%s", a.seed);
		if ((rc = ws_cfg_set(cfg, kv, &err)))
			goto input_error;
	}
	struct ws_opts opts = {
		.plugin_path = a.plugin_path,
		.progress = !a.no_progress && !a.quiet,
		.quiet = a.quiet,
	};
	if ((rc = ws_sim_new(&sim, cfg, &opts, &err)))
		goto input_error;
	if (a.out && (rc = ws_sim_set_output_dir(sim, a.out, &err)))
		goto input_error;
	const char *dir = ws_sim_default_out_dir(sim);
	ws_err_clear(&err);
	rc = ws_sim_run(sim, WS_TIME_NEVER, &err);
	if (rc) {
		print_error(&err);
		status = EXIT_RUN;
	}
	struct ws_err werr;
	ws_err_clear(&werr);
	if (ws_sim_write_outputs(sim, dir, &werr)) {
		print_error(&werr);
		status = EXIT_RUN;
	}
	if (!a.quiet)
		print_summary(sim, path, dir);
	struct ws_sim_stats st;
	ws_sim_get_stats(sim, &st);
	/* nothing left to simulate (not stopped by stop_time or max_events),
	 * yet flows unfinished */
	if (status == 0 && st.flows_done < st.flows && ws_pending_events(sim) == 0) {
		if (st.aborted)
			fprintf(stderr,
				"warpsim: %u of %u flows never completed: %llu aborted after "
				"[nic] retry_limit retransmission timeouts\n",
				st.flows - st.flows_done, st.flows,
				(unsigned long long)st.aborted);
		else
			fprintf(stderr,
				"warpsim: %u of %u flows never completed although nothing "
				"was left to simulate (a PFC deadlock, a routing black hole, "
				"or losses with [nic] rto = 0s?)\n",
				st.flows - st.flows_done, st.flows);
		status = EXIT_DEADLOCK;
	}
	ws_sim_free(sim);
	ws_cfg_free(cfg);
	free(a.sets);
	return status;
input_error:
	print_error(&err);
	ws_sim_free(sim);
	ws_cfg_free(cfg);
	free(a.sets);
	return EXIT_INPUT;
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
	struct ws_opts opts = { .plugin_path = a.plugin_path };
	struct ws_err err;
	if (ws_list_plugins(stdout, &opts, &err)) {
		print_error(&err);
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
	struct ws_opts opts = { .plugin_path = a.plugin_path };
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_describe_as(stdout, argv[optind], kind, a.ini, &opts, &err)) {
		print_error(&err);
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
