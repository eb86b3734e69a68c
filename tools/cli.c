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

#include "internal.h"
#include "compare.h"
#include "tools.h"

enum opt_id {
	OPT_HELP = 'h',
	OPT_OUT = 'o',
	OPT_QUIET = 'q',
	OPT_SET = 256,
	OPT_SEED,
	OPT_PLUGIN_PATH,
	OPT_NO_PROGRESS,
	OPT_MAX_WALL,
	OPT_KIND,
	OPT_INI,
	OPT_CHECK_ROUTES,
	OPT_DOT,
};

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

static int cmd_run(int argc, char **argv, const struct cli_cmd *cmd);
static int cmd_topo(int argc, char **argv, const struct cli_cmd *cmd);
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

struct run_args {
	const char *out;
	const char *plugin_path;
	const char **sets;
	size_t n_sets;
	const char *seed;
	bool quiet, no_progress;
	const char *max_wall;
	const char *check_routes; /* topo */
	const char *dot;          /* topo */
};

static int run_opt(int id, const char *arg, void *ctx)
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
static int load_cfg(const char *path, const struct run_args *a,
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
static int end_cmd(struct ws_sim *sim, struct ws_cfg *cfg, struct run_args *a,
		   const struct ws_err *err, int status)
{
	if (err)
		tool_print_error(err);
	ws_sim_free(sim);
	ws_cfg_free(cfg);
	free(a->sets);
	return status;
}


static void print_summary(struct ws_sim *sim, const char *cfg_path,
			  const char *dir)
{
	struct ws_sim_stats st;
	ws_sim_get_stats(sim, &st);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	char t[64];
	tool_fmt_time(t, sizeof t, st.now);
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
	char wl[4096];
	if (ws_sim_workload_summary(sim, dir, wl, sizeof wl))
		fputs(wl, stdout);
	printf("  outputs    ");
	static const char *const files[] = { "fct.csv", "ports.csv", "flows.csv" };
	const bool written[] = { sim->outc.fct, sim->outc.ports, sim->outc.flows };
	for (size_t i = 0; i < TOOL_ARRAY_LEN(files); i++)
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
	if ((rc = load_cfg(path, &a, &cfg, &err)))
		goto input_error;
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
	double max_wall = 0;
	if (a.max_wall) {
		char *end;
		errno = 0;
		max_wall = strtod(a.max_wall, &end);
		if (errno || *end || !(max_wall > 0)) {
			fprintf(stderr, "warpsim run: --max-wall '%s': expected a positive "
				"number of seconds\n", a.max_wall);
			rc = WS_EINVAL;
			status = EXIT_INPUT;
			goto done;
		}
	}
	bool cut = false;
	if (!max_wall) {
		rc = ws_sim_run(sim, WS_TIME_NEVER, &err);
	} else {
		/* simulated-time slices (results are the same as one run) until
		 * the wall-clock budget is spent */
		double t0 = tool_wall_seconds();
		ws_time until = 0;
		struct ws_sim_stats s0;
		do {
			until += 10 * WS_US;
			rc = ws_sim_run(sim, until, &err);
			ws_sim_get_stats(sim, &s0);
		} while (!rc && s0.now == until && ws_pending_events(sim) &&
			 !(cut = tool_wall_seconds() - t0 >= max_wall));
	}
	if (rc) {
		tool_print_error(&err);
		status = EXIT_RUN;
	}
	struct ws_err werr;
	ws_err_clear(&werr);
	if (ws_sim_write_outputs(sim, dir, &werr)) {
		tool_print_error(&werr);
		status = EXIT_RUN;
	}
	if (!a.quiet)
		print_summary(sim, path, dir);
	struct ws_sim_stats st;
	ws_sim_get_stats(sim, &st);
	if (cut) {
		char t[64];
		tool_fmt_time(t, sizeof t, st.now);
		printf("  stopped    after --max-wall %s s: simulated %s, %.3g simulated "
		       "s per wall s; %u of %u flows completed\n", a.max_wall, t,
		       st.wall_run_s > 0 ? (double)st.now / 1e12 / st.wall_run_s : 0.0,
		       st.flows_done, st.flows);
		goto done;
	}
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
done:
	return end_cmd(sim, cfg, &a, NULL, status);
input_error:
	return end_cmd(sim, cfg, &a, &err, EXIT_INPUT);
}

/* ---- topo ------------------------------------------------------------------------- */

static void fmt_bytes(char *buf, size_t n, double b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;
	while (b >= 1024 && u + 1 < TOOL_ARRAY_LEN(unit)) {
		b /= 1024;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

static double peak_rss_bytes(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_maxrss * 1024.0; /* Linux: KiB */
}

/*
 * Trace `n` random host pairs; prints the outcome, returns the failures.
 * Two timings: the whole trace (cold caches: every hop reads a random node
 * and port, as a fabric much larger than the caches does), and the routing
 * rule alone, replaying each batch of traced routes' decisions right after
 * tracing them (node and packet in cache, as when a packet has just arrived
 * at a switch in a simulation).
 */
#define TRACE_BATCH 1024
#define TRACE_MAX 66

struct trace_batch {
	struct ws_pkt pkt[TRACE_BATCH];
	uint32_t node[TRACE_BATCH][TRACE_MAX];
	uint32_t len[TRACE_BATCH];
};

static double replay_decisions(struct ws_sim *sim, const struct trace_batch *tb,
			       uint32_t n)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	const struct ws_inst *rt = ws_sim_instance(sim, WS_KIND_ROUTING);
	const struct ws_routing_ops *ops = rt->plugin->ops;
	struct ws_inst *inst = (struct ws_inst *)rt;
	uint64_t sum = 0;
	double t0 = tool_wall_seconds();
	for (uint32_t r = 0; r < n; r++) {
		struct ws_pkt p = tb->pkt[r];
		const struct ws_node *dst = ws_node_get(fab, p.dst);
		for (uint32_t k = 0; k + 1 < tb->len[r]; k++) {
			const struct ws_node *at = ws_node_get(fab, tb->node[r][k]);
			if (at->kind != WS_NODE_SWITCH && at->n_ports == 1)
				continue;
			sum += ops->next_hop ? ops->next_hop(inst, at, dst, &p)
					     : ops->next_port(inst, at, dst, &p);
		}
	}
	double t = tool_wall_seconds() - t0;
	/* keep the calls: the ports chosen must be the traced ones */
	volatile uint64_t keep = sum;
	(void)keep;
	return t;
}

static uint64_t check_routes(struct ws_sim *sim, uint64_t n)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	struct ws_rng rng;
	ws_rng_seed(&rng, ws_sim_seed(sim), 0x726f75746573ull /* "routes" */);
	struct trace_batch *tb = tool_xcalloc(1, sizeof *tb);
	struct ws_hop hops[TRACE_MAX];
	uint64_t failed = 0, links = 0, decisions = 0;
	uint32_t lo = UINT32_MAX, hi = 0, nb = 0;
	double trace_s = 0, decide_s = 0, t0 = tool_wall_seconds();
	for (uint64_t i = 0; i < n; i++) {
		uint32_t a = (uint32_t)ws_rng_below(&rng, fab->n_hosts);
		uint32_t b = (uint32_t)ws_rng_below(&rng, fab->n_hosts - 1);
		if (b >= a)
			b++;
		struct ws_pkt *p = &tb->pkt[nb];
		memset(p, 0, sizeof *p);
		p->type = WS_PKT_DATA;
		p->src = fab->hosts[a];
		p->dst = fab->hosts[b];
		p->sport = (uint16_t)(10000 + ws_rng_below(&rng, 50000));
		p->dport = 100;
		p->prio = 3;
		p->flow = WS_NONE;
		struct ws_pkt probe = *p;
		uint32_t k;
		struct ws_err err;
		ws_err_clear(&err);
		int rc = ws_route_trace(sim, &probe, hops, TRACE_MAX, &k, &err);
		if (rc) {
			if (failed++ < 5)
				printf("  FAILED     %s\n", err.msg);
			continue;
		}
		links += k - 1;
		decisions += probe.hops + (ws_node_get(fab, p->src)->n_ports > 1);
		lo = TOOL_MIN(lo, k - 1);
		hi = TOOL_MAX(hi, k - 1);
		for (uint32_t j = 0; j < k; j++)
			tb->node[nb][j] = hops[j].node;
		tb->len[nb++] = k;
		if (nb == TRACE_BATCH || i + 1 == n) {
			trace_s += tool_wall_seconds() - t0;
			decide_s += replay_decisions(sim, tb, nb);
			nb = 0;
			t0 = tool_wall_seconds();
		}
	}
	if (nb) { /* the last pairs failed after a partial batch */
		trace_s += tool_wall_seconds() - t0;
		decide_s += replay_decisions(sim, tb, nb);
	}
	free(tb);
	uint64_t ok = n - failed;
	if (failed)
		printf("  routes     %" PRIu64 " random pairs: %" PRIu64 " FAILED\n", n, failed);
	else if (ok)
		printf("  routes     %" PRIu64 " random pairs: all loop-free and delivered; "
		       "%u-%u links, mean %.2f\n", n, lo, hi, (double)links / (double)ok);
	if (ok && decisions)
		printf("  lookups    traced in %.3f s: %.1f ns per route, %.1f ns per hop; "
		       "the rule alone %.1f ns per decision (%" PRIu64 " decisions)\n",
		       trace_s, trace_s * 1e9 / (double)ok,
		       trace_s * 1e9 / (double)decisions,
		       decide_s * 1e9 / (double)decisions, decisions);
	return failed;
}

static void dot_addr(FILE *f, const struct ws_node *n)
{
	for (uint32_t d = 0; d < n->addr_len; d++)
		fprintf(f, "%s%u", d ? "." : "", n->addr[d]);
}

/* Graphviz: hosts as boxes, switches as ellipses ranked by level. */
static int write_dot(struct ws_sim *sim, const char *path)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "warpsim topo: cannot write %s: %s\n", path, strerror(errno));
		return EXIT_RUN;
	}
	fprintf(f, "graph fabric {\n\trankdir=BT;\n\tnode [fontsize=9];\n");
	uint32_t max_level = 0;
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		max_level = TOOL_MAX(max_level, n->level);
		fprintf(f, "\tn%u [shape=%s, label=\"%s%u\\n", i,
			n->kind == WS_NODE_HOST ? "box" : "ellipse",
			n->kind == WS_NODE_HOST ? "h" : "s", i);
		dot_addr(f, n);
		fprintf(f, "\"];\n");
	}
	for (uint32_t l = 0; l <= max_level; l++) {
		fprintf(f, "\t{ rank=same;");
		for (uint32_t i = 0; i < fab->n_nodes; i++)
			if (ws_node_get(fab, i)->level == l)
				fprintf(f, " n%u;", i);
		fprintf(f, " }\n");
	}
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		for (uint32_t p = 0; p < n->n_ports; p++) {
			struct ws_port_info pi;
			ws_port_info(sim, i, p, &pi);
			if (pi.peer_node < i || (pi.peer_node == i && pi.peer_local < p))
				continue;
			fprintf(f, "\tn%u -- n%u [taillabel=\"%u\", headlabel=\"%u\", "
				"tooltip=\"%.0f Gbps\"];\n", i, pi.peer_node, p,
				pi.peer_local, (double)pi.rate / 1e9);
		}
	}
	fprintf(f, "}\n");
	if (fclose(f) != 0) {
		fprintf(stderr, "warpsim topo: cannot write %s: %s\n", path, strerror(errno));
		return EXIT_RUN;
	}
	return 0;
}

#define DOT_MAX_NODES 5000

static int cmd_topo(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct run_args a = { 0 };
	int rc = parse_opts(argc, argv, cmd, run_opt, &a);
	if (rc) {
		free(a.sets);
		return rc < 0 ? 0 : rc;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "warpsim topo: expected one CONFIG.ini, got %d arguments\n",
			argc - optind);
		usage_cmd(stderr, cmd);
		free(a.sets);
		return EXIT_INPUT;
	}
	uint64_t n_check = 0;
	if (a.check_routes) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(a.check_routes, &end, 10);
		if (errno || *end || end == a.check_routes || a.check_routes[0] == '-' ||
		    v > UINT64_C(10000000000)) {
			fprintf(stderr, "warpsim topo: --check-routes '%s': expected a "
				"number of host pairs, 0..10000000000\n", a.check_routes);
			free(a.sets);
			return EXIT_INPUT;
		}
		n_check = v;
	}
	const char *path = argv[optind];
	struct ws_err err;
	ws_err_clear(&err);
	struct ws_cfg *cfg = NULL;
	struct ws_sim *sim = NULL;
	int status = 0;
	if ((rc = load_cfg(path, &a, &cfg, &err)))
		goto input_error;
	struct ws_opts opts = { .plugin_path = a.plugin_path, .fabric_only = true };
	if ((rc = ws_sim_new(&sim, cfg, &opts, &err)))
		goto input_error;
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	if (a.dot && fab->n_nodes > DOT_MAX_NODES) {
		ws_err_set(&err, WS_EINVAL, "--dot is for small fabrics: this one has "
			   "%u nodes (at most %d)", fab->n_nodes, DOT_MAX_NODES);
		goto input_error;
	}
	struct ws_sim_stats st;
	ws_sim_get_stats(sim, &st);
	uint64_t host_ports = 0;
	for (uint32_t h = 0; h < fab->n_hosts; h++)
		host_ports += ws_node_get(fab, fab->hosts[h])->n_ports;
	const struct ws_inst *rt = ws_sim_instance(sim, WS_KIND_ROUTING);
	const struct ws_routing_ops *rops = rt->plugin->ops;
	uint64_t route_bytes = rops->state_bytes ? rops->state_bytes(rt) : 0;
	double fab_bytes = (double)ws_fabric_bytes(sim);
	char b1[32], b2[32], b3[32];
	fmt_bytes(b1, sizeof b1, fab_bytes);
	fmt_bytes(b2, sizeof b2, (double)route_bytes);
	fmt_bytes(b3, sizeof b3, peak_rss_bytes());
	static const char *const shapes[] = { "graph", "up/down tree", "dragonfly" };
	const char *shape = fab->shape == WS_SHAPE_UPDOWN ? shapes[1]
			    : fab->shape == WS_SHAPE_DRAGONFLY ? shapes[2] : shapes[0];
	printf("warpsim %s: %s\n", WS_VERSION, path);
	printf("  topology   %s (%s), routing %s\n",
	       ws_sim_plugin_name(sim, WS_KIND_TOPO), shape,
	       ws_sim_plugin_name(sim, WS_KIND_ROUTING));
	printf("  nodes      %u: %u endpoints (hosts), %u switches\n", fab->n_nodes,
	       fab->n_hosts, fab->n_switches);
	printf("  links      %u; ports %u: %" PRIu64 " at hosts, %" PRIu64 " at switches\n",
	       fab->n_links, fab->n_ports, host_ports, (uint64_t)fab->n_ports - host_ports);
	printf("  memory     fabric %s = %.0f B per endpoint; routing state %s "
	       "(%.0f B per endpoint); peak RSS %s\n", b1, fab_bytes / fab->n_hosts,
	       b2, (double)route_bytes / fab->n_hosts, b3);
	printf("  build      %.3f s to routing-ready\n", st.wall_build_s);
	if (n_check && check_routes(sim, n_check))
		status = EXIT_RUN;
	if (a.dot) {
		int d = write_dot(sim, a.dot);
		if (d)
			status = d;
		else
			printf("  dot        %s\n", a.dot);
	}
	return end_cmd(sim, cfg, &a, NULL, status);
input_error:
	return end_cmd(sim, cfg, &a, &err, EXIT_INPUT);
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
	struct ws_opts opts = { .plugin_path = a.plugin_path };
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_describe_as(stdout, argv[optind], kind, a.ini, &opts, &err)) {
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
