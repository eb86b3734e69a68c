/* SPDX-License-Identifier: MIT */
/*
 * `warpsim run`: simulate a scenario, write its outputs, print a summary.
 * The library reports warnings and progress through the callbacks of
 * struct ws_opts; this file draws them on the terminal.
 *
 * Exit status: 0 success; 1 the run failed (a component stopped it, an
 * output could not be written, memory ran out); 2 bad input; 3 a deadlock
 * (a cycle of PFC pauses found, or the event queue drained with flows
 * still incomplete); 4 stopped early, its outputs written and marked
 * incomplete: by --max-wall (summary.json says "end": "requested") or by
 * SIGINT/SIGTERM (a second signal ends the process at once, status 128 +
 * the signal).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "dist.h"
#include "tools.h"

/* The outputs this run wrote: only those that are there (a file whose
 * writing failed is not), summary.json last. */
static void print_outputs(const struct ws_sim *sim, const char *dir)
{
	const char *files[8];
	size_t n = ws_sim_output_files(sim, files, TOOL_ARRAY_LEN(files));
	const char *sep = "";
	printf("  outputs    ");
	for (size_t i = 0; i <= n && i <= TOOL_ARRAY_LEN(files); i++) {
		const char *name = i < n && i < TOOL_ARRAY_LEN(files) ? files[i] : "summary.json";
		char path[4200];
		snprintf(path, sizeof path, "%s/%s", dir, name);
		if (access(path, F_OK))
			continue;
		printf("%s%s", sep, path);
		sep = ", ";
	}
	printf("%s\n", *sep ? "" : "none written");
}

/* What is known before the run: the scenario, the fabric, the plugins
 * (printed at the start, so a long run says at once what it runs). */
static void print_header(struct ws_sim *sim, const char *cfg_path)
{
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	printf("warpsim %s: %s\n", WS_VERSION, cfg_path);
	printf("  fabric     %s: %u nodes (%u hosts, %u switches), %u links; built in %.3f s\n",
	       ws_sim_plugin_name(sim, WS_KIND_TOPO), fab->n_nodes, fab->n_hosts,
	       fab->n_switches, fab->n_links, st.wall_build_s);
	printf("  plugins    routing %s, cc %s, accel %s, workload %s\n",
	       ws_sim_plugin_name(sim, WS_KIND_ROUTING),
	       ws_sim_plugin_name(sim, WS_KIND_CC),
	       ws_sim_plugin_name(sim, WS_KIND_ACCEL),
	       ws_sim_plugin_name(sim, WS_KIND_WORKLOAD));
	fflush(stdout);
}

static void print_summary(struct ws_sim *sim, const char *dir)
{
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	char t[64];
	tool_fmt_time(t, sizeof t, st.now);
	printf("  flows      %u of %u completed\n", st.flows_done, st.flows);
	printf("  sim time   %s\n", t);
	double eps = st.wall_run_s > 0 ? (double)st.events / st.wall_run_s : 0;
	printf("  wall time  %.3f s; %.3f M events, %.2f M events/s\n", st.wall_run_s,
	       (double)st.events / 1e6, eps / 1e6);
	printf("  packets    %" PRIu64 " data, %" PRIu64 " ACK, %" PRIu64 " NACK, %" PRIu64
	       " CNP; %" PRIu64 " PFC pauses, %" PRIu64 " drops\n",
	       st.data_packets, st.acks, st.nacks, st.cnps, st.pfc_pauses, st.drops);
	if (st.failure_events || st.drops_failure || st.drops_loss || st.drops_gray)
		printf("  failures   %" PRIu64 " events, %" PRIu64 " links down at the end; "
		       "drops: %" PRIu64 " buffer, %" PRIu64 " failure, %" PRIu64 " loss, %"
		       PRIu64 " gray\n", st.failure_events, st.links_down, st.drops_buffer,
		       st.drops_failure, st.drops_loss, st.drops_gray);
	if (st.retx_pkts || st.trims || st.timeouts)
		printf("  recovery   %" PRIu64 " data packets resent, %" PRIu64 " trimmed, %" PRIu64
		       " timeouts\n", st.retx_pkts, st.trims, st.timeouts);
	printf("  congestion %" PRIu64 " ECN marks, %" PRIu64 " notifications to the CC\n",
	       st.ecn_marks, st.notified);
	struct ws_fct_stats fs = { WS_INIT_SIZE(struct ws_fct_stats) };
	ws_sim_fct_stats(sim, &fs);
	if (fs.n)
		printf("  slowdown   mean %.3f, p50 %.3f, p99 %.3f, max %.3f (FCT / ideal FCT)\n",
		       fs.mean, fs.p50, fs.p99, fs.max);
	char wl[4096];
	if (ws_sim_workload_summary(sim, dir, wl, sizeof wl))
		fputs(wl, stdout);
	print_outputs(sim, dir);
}

/* ---- the terminal during a run: warnings, the progress line, --max-wall ---- */

/*
 * What the library hands the terminal: warnings, and a progress line on a
 * terminal's stderr (at most 4 redraws a second).  The progress callback
 * also keeps the wall-clock budget of --max-wall: past it, it asks the
 * library to stop (ws_sim_request_stop), so a budgeted run costs one clock
 * read per 65,536 events and runs exactly as fast as an unbudgeted one.
 */
struct term {
	struct ws_sim *sim;
	bool draw;          /* stderr is a terminal and progress is wanted */
	bool shown;         /* a progress line is on the screen */
	double t0;          /* wall time the run started */
	double last;        /* wall time of the last redraw */
	uint64_t last_events;
	double max_wall;    /* seconds; 0: no budget */
	bool cut;           /* the budget stopped the run */
};

static void term_warning(void *ctx, const char *msg)
{
	struct term *t = ctx;
	if (t->shown)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "warpsim: warning: %s\n", msg);
}

/* "12.3 s" / "4 min 05 s" / "2 h 07 min": a wall-clock duration. */
static void fmt_wall(char *buf, size_t n, double s)
{
	if (s < 60)
		snprintf(buf, n, "%.1f s", s);
	else if (s < 3600)
		snprintf(buf, n, "%d min %02d s", (int)(s / 60), (int)s % 60);
	else
		snprintf(buf, n, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
}

/* One progress line: wall time, simulated time, flows done / created (of
 * the total when the workload knows it), events per second since the last
 * redraw, and an ETA from the share of the known flows done. */
static void term_draw(struct term *t, double now)
{
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(t->sim, &st);
	char el[32], sim_t[64], flows[96], eta[64] = "";
	fmt_wall(el, sizeof el, now - t->t0);
	tool_fmt_time(sim_t, sizeof sim_t, st.now);
	if (st.flows_expected)
		snprintf(flows, sizeof flows, "flows %u done, %u started, of %" PRIu64,
			 st.flows_done, st.flows, st.flows_expected);
	else
		snprintf(flows, sizeof flows, "flows %u/%u done", st.flows_done, st.flows);
	if (st.flows_done && st.flows_done < st.flows_expected) {
		double left = (now - t->t0) * (double)(st.flows_expected - st.flows_done) /
			      (double)st.flows_done;
		char l[32];
		fmt_wall(l, sizeof l, left);
		snprintf(eta, sizeof eta, "  |  ETA %s", l);
	}
	double dt = now - t->last;
	double eps = dt > 0 ? (double)(st.events - t->last_events) / dt : 0;
	fprintf(stderr, "\r\033[K  %s  |  simulated %s  |  %s  |  %.2f M events/s%s",
		el, sim_t, flows, eps / 1e6, eta);
	t->last_events = st.events;
	t->shown = true;
}

static void term_progress(void *ctx, const struct ws_sim *sim, bool done)
{
	(void)sim;
	struct term *t = ctx;
	double now = tool_wall_seconds();
	if (!done && t->max_wall && now - t->t0 >= t->max_wall) {
		ws_sim_request_stop(t->sim);
		t->cut = true;
	}
	/* the first callback draws at once, then 4 times a second */
	if (!t->draw || (!done && t->shown && now - t->last < 0.25))
		return;
	if (done) {
		if (t->shown)
			fputs("\r\033[K", stderr);
		t->shown = false;
		return;
	}
	term_draw(t, now);
	t->last = now;
}

/* After ws_sim_run returned: if a signal stopped it, the outputs say so. */
static bool stopped_by_signal(struct ws_sim *sim, bool say)
{
	int sig = tool_stop_signal();
	if (!ws_sim_stopped(sim) || !sig)
		return false;
	char why[64];
	snprintf(why, sizeof why, "interrupted by %s", sig == SIGINT ? "SIGINT" : "SIGTERM");
	ws_sim_set_incomplete(sim, why);
	if (say)
		fprintf(stderr, "warpsim: %s: stopped at the next event; writing the "
			"outputs, marked incomplete (a second signal exits at once)\n", why);
	return true;
}

/* The event queue drained with flows unfinished, or a timeout found the
 * fabric stuck: name the cycle of PFC pauses when there is one. */
static void print_pfc_cycle(struct ws_sim *sim)
{
	char cycle[2048];
	size_t n = ws_sim_pfc_cycle(sim, cycle, sizeof cycle);
	if (n)
		fprintf(stderr, "warpsim: a cycle of %zu switch ports is paused by PFC "
			"with packets queued (a PFC deadlock): %s\n", n, cycle);
}

/* --max-wall SECONDS: 0 when not given, -1 when malformed. */
static double max_wall_of(const struct run_args *a)
{
	if (!a->max_wall)
		return 0;
	char *end;
	errno = 0;
	double v = strtod(a->max_wall, &end);
	if (errno || *end || !(v > 0) || !isfinite(v)) {
		fprintf(stderr, "warpsim run: --max-wall '%s': expected a positive "
			"number of seconds\n", a->max_wall);
		return -1;
	}
	return v;
}

/* Run to the end, or until the wall-clock budget of `t` is spent (the
 * progress callback asks the library to stop); *cut says whether it was. */
static int simulate(struct ws_sim *sim, struct term *t, bool *cut, struct ws_err *err)
{
	t->sim = sim;
	t->t0 = t->last = tool_wall_seconds();
	int rc = ws_sim_run(sim, WS_TIME_NEVER, err);
	*cut = t->cut;
	return rc;
}

/* After the outputs: how the run ended, as the exit status. */
static int run_end_status(struct ws_sim *sim, const struct run_args *a,
			  bool cut, int status)
{
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	if (cut) {
		char t[64];
		tool_fmt_time(t, sizeof t, st.now);
		printf("  stopped    after --max-wall %s s: simulated %s, %.3g simulated "
		       "s per wall s; %u of %u flows completed\n", a->max_wall, t,
		       st.wall_run_s > 0 ? (double)st.now / 1e12 / st.wall_run_s : 0.0,
		       st.flows_done, st.flows);
		return status ? status : EXIT_STOPPED;
	}
	/* nothing left to simulate (not stopped by stop_time or max_events),
	 * yet flows unfinished */
	if (status || st.flows_done >= st.flows || ws_pending_events(sim))
		return status;
	if (st.aborted)
		fprintf(stderr,
			"warpsim: %u of %u flows never completed: %llu aborted after "
			"[nic] retry_limit retransmission timeouts\n",
			st.flows - st.flows_done, st.flows, (unsigned long long)st.aborted);
	else
		fprintf(stderr,
			"warpsim: %u of %u flows never completed although nothing "
			"was left to simulate (a PFC deadlock, a routing black hole, "
			"or losses with [nic] rto = 0s?)\n",
			st.flows - st.flows_done, st.flows);
	print_pfc_cycle(sim);
	return EXIT_DEADLOCK;
}

/* ---- the default output directory belongs to one configuration ---------------- */

#define RUN_MARK ".warpsim-config" /* in DIR: which configuration wrote it */

/* The configuration as the command line gives it: the ini's text, the
 * --set options and --seed.  Its digest and a description (caller frees). */
static char *run_identity(const char *path, const struct run_args *a, uint64_t *digest)
{
	char *text = NULL, *desc = NULL;
	size_t cap = 0, len = 0;
	FILE *f = fopen(path, "r");
	ssize_t n = f ? getdelim(&text, &cap, '\0', f) : -1;
	if (f)
		fclose(f);
	FILE *m = open_memstream(&desc, &len);
	if (!m) {
		fprintf(stderr, "warpsim: out of memory\n");
		exit(EXIT_RUN);
	}
	fprintf(m, "config %s\n", path);
	for (size_t i = 0; i < a->n_sets; i++)
		fprintf(m, "set %s\n", a->sets[i]);
	if (a->seed)
		fprintf(m, "seed %s\n", a->seed);
	fclose(m);
	XXH64_state_t *s = XXH64_createState();
	XXH64_reset(s, 0);
	if (n > 0)
		XXH64_update(s, text, (size_t)n);
	XXH64_update(s, strchr(desc, '\n'), strlen(strchr(desc, '\n'))); /* not the path */
	*digest = XXH64_digest(s);
	XXH64_freeState(s);
	free(text);
	return desc;
}

static void print_indented(const char *s)
{
	while (*s) {
		size_t l = strcspn(s, "\n");
		fprintf(stderr, "    %.*s\n", (int)l, s);
		s += l + (s[l] == '\n');
	}
}

/* Without -o: a directory holding another configuration's results is not
 * overwritten (exit 2, saying whose they are); one of the same
 * configuration, or of a warpsim that left no mark, is. */
static int guard_out_dir(const char *dir, uint64_t digest, const char *desc)
{
	char path[4200], *old = NULL;
	size_t cap = 0;
	snprintf(path, sizeof path, "%s/" RUN_MARK, dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	ssize_t n = getdelim(&old, &cap, '\0', f);
	fclose(f);
	uint64_t was;
	int rc = 0;
	if (n > 0 && sscanf(old, "warpsim-config %" SCNx64, &was) == 1 && was != digest) {
		const char *body = strchr(old, '\n');
		fprintf(stderr, "warpsim run: %s holds the results of another configuration\n"
			"  there:\n", dir);
		print_indented(body ? body + 1 : "");
		fputs("  this run:\n", stderr);
		print_indented(desc);
		fprintf(stderr, "  not overwritten: give -o DIR for this run's outputs, or "
			"remove %s\n", dir);
		rc = EXIT_INPUT;
	}
	free(old);
	return rc;
}

static void mark_out_dir(const char *dir, uint64_t digest, const char *desc)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/" RUN_MARK, dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return; /* the outputs are written; the mark only guards them */
	fprintf(f, "warpsim-config %016" PRIx64 "\n%s", digest, desc);
	fclose(f);
}

/* ---- one experiment over MPI ranks (mpirun warpsim run) ------------------------ */

/* Rank 0's `v`, on every rank (v itself with one rank). */
static int from_rank0(const struct ws_comm *c, int v)
{
	if (c->ranks <= 1)
		return v;
	int *all = calloc(c->ranks, sizeof *all);
	if (!all || c->allgather(c->ctx, &v, sizeof v, all)) {
		fprintf(stderr, "warpsim run: rank %u: MPI failed\n", c->rank);
		dist_abort(EXIT_RUN);
		exit(EXIT_RUN);
	}
	v = all[0];
	free(all);
	return v;
}

/* Whether every rank says yes. */
static bool all_ranks(const struct ws_comm *c, bool yes)
{
	if (c->ranks <= 1)
		return yes;
	int v = yes, *all = calloc(c->ranks, sizeof *all);
	if (!all || c->allgather(c->ctx, &v, sizeof v, all)) {
		fprintf(stderr, "warpsim run: rank %u: MPI failed\n", c->rank);
		dist_abort(EXIT_RUN);
		exit(EXIT_RUN);
	}
	for (uint32_t r = 0; r < c->ranks; r++)
		yes = yes && all[r];
	free(all);
	return yes;
}

static int run_one(int argc, char **argv, const struct cli_cmd *cmd,
		   const struct ws_comm *comm);

int cmd_run(int argc, char **argv, const struct cli_cmd *cmd)
{
	int launched = dist_launched_ranks();
	if (launched > 1 && dist_init(&argc, &argv)) {
		fprintf(stderr, "warpsim run: MPI could not start\n");
		return EXIT_RUN;
	}
	struct ws_comm comm;
	if (dist_comm_open(&comm)) {
		fprintf(stderr, "warpsim run: MPI failed (rank %d)\n", dist_rank());
		dist_abort(EXIT_RUN);
		return EXIT_RUN;
	}
	if (launched > 1 && comm.ranks <= 1) {
		fprintf(stderr, "warpsim run: started by an MPI launcher on %d ranks, but "
			"this warpsim was built without MPI: each rank would run the "
			"whole experiment alone.  Run it without mpirun, or build with "
			"./bootstrap --with-mpi (docs/architecture.md, \"MPI ranks\")\n",
			launched);
		return EXIT_INPUT;
	}
	int rc = run_one(argc, argv, cmd, &comm);
	dist_comm_close(&comm);
	dist_finalize();
	return rc;
}

static int run_one(int argc, char **argv, const struct cli_cmd *cmd,
		   const struct ws_comm *comm)
{
	struct run_args a = { 0 };
	int rc = run_args_parse(argc, argv, cmd, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	/* over ranks, rank 0 speaks and writes */
	bool lead = comm->rank == 0;
	if (!lead) {
		a.quiet = true;
		a.no_progress = true;
	}
	const char *path = argv[optind];
	struct ws_err err;
	ws_err_clear(&err);
	struct ws_cfg *cfg = NULL;
	struct ws_sim *sim = NULL;
	struct term term = {
		.draw = !a.no_progress && !a.quiet && isatty(STDERR_FILENO),
		.max_wall = max_wall_of(&a),
	};
	if (term.max_wall < 0)
		return end_cmd(sim, cfg, &a, NULL, EXIT_INPUT);
	struct ws_opts opts = {
		WS_INIT_SIZE(struct ws_opts),
		.plugin_path = a.plugin_path,
		.on_warning = a.quiet ? NULL : term_warning,
		.on_progress = term.draw || term.max_wall ? term_progress : NULL,
		.ctx = &term,
		.stop = tool_stop_signals(true),
		.max_memory = a.max_memory,
		.comm = comm->ranks > 1 ? comm : NULL,
	};
	bool built = !load_cfg(path, &a, &cfg, &err) && !ws_sim_new(&sim, cfg, &opts, &err) &&
		     !(a.out && ws_sim_set_output_dir(sim, a.out, &err));
	if (!all_ranks(comm, built)) {
		/* the same error on every rank: rank 0 says it */
		bool lead_built = from_rank0(comm, built);
		bool say = !built && (lead || lead_built);
		return end_cmd(sim, cfg, &a, say ? &err : NULL, EXIT_INPUT);
	}
	const char *dir = ws_sim_default_out_dir(sim);
	uint64_t digest;
	char *desc = run_identity(path, &a, &digest);
	if (from_rank0(comm, !a.out && lead && guard_out_dir(dir, digest, desc))) {
		free(desc);
		return end_cmd(sim, cfg, &a, NULL, EXIT_INPUT);
	}
	if (!a.quiet)
		print_header(sim, path);
	bool cut;
	int status = 0;
	ws_err_clear(&err);
	if (simulate(sim, &term, &cut, &err)) {
		if (lead) /* a failure on any rank stops all, rank 0 names it */
			tool_print_error(&err);
		status = err.code == WS_EDEADLOCK ? EXIT_DEADLOCK : EXIT_RUN;
	}
	if (stopped_by_signal(sim, lead))
		status = EXIT_STOPPED;
	else if (cut)
		ws_sim_set_incomplete(sim, "stopped by --max-wall");
	ws_err_clear(&err);
	if (!lead) {
		/* rank 0 writes the outputs, gathered from every rank */
	} else if (ws_sim_write_outputs(sim, dir, &err)) {
		tool_print_error(&err);
		status = EXIT_RUN;
	} else {
		mark_out_dir(dir, digest, desc);
	}
	free(desc);
	if (!a.quiet)
		print_summary(sim, dir);
	if (lead)
		status = run_end_status(sim, &a, cut, status);
	tool_stop_signals(false);
	return end_cmd(sim, cfg, &a, NULL, status);
}
