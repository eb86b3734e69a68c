/* SPDX-License-Identifier: MIT */
/*
 * `warpsim plot RUN... [-o DIR] [--png|--svg] [--data-only]`: the standard
 * figures of one or several runs, drawn with gnuplot.
 *
 * For each run it writes plain data files (whitespace-separated columns,
 * one header comment line) and one gnuplot script, plot.gp, that draws:
 *   fct_by_size   FCT slowdown p50 and p99 against flow size (the buckets
 *                 of fct_by_size.csv, drawn at each bucket's largest size),
 *                 one line per run: the CC comparison figure;
 *   fct_cdf       the CDF of the FCT slowdown of all completed flows;
 *   rates         every flow's rate over time (runs with rates.csv);
 *   queues        every traced switch queue over time (runs with queues.csv);
 *   util          every traced port's utilization over time (util.csv);
 *   collectives   a timeline of the collectives of a training iteration,
 *                 one row per group (runs with collectives.csv).
 * Then it runs gnuplot on the script.  gnuplot is not a build dependency:
 * when it is missing the data and the script are written and the message
 * says how to install it (./bootstrap --with-plots).  Nothing is installed
 * from here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"
#include "tools.h"

#define PLOT_MAX_RUNS 16
#define PLOT_MAX_POINTS 200000 /* per trace data file: larger traces are strided */

enum { PLOT_OPT_HELP = 'h', PLOT_OPT_OUT = 'o', PLOT_OPT_PNG = 256, PLOT_OPT_SVG,
       PLOT_OPT_DATA_ONLY };

const struct cli_opt plot_opts[] = {
	{ "output", PLOT_OPT_OUT, "DIR", "write the figures, data and plot.gp to DIR "
	  "(default: RUN/plots for one run, plots for several)" },
	{ "png", PLOT_OPT_PNG, NULL, "PNG figures (pngcairo)" },
	{ "svg", PLOT_OPT_SVG, NULL, "SVG figures (the default)" },
	{ "data-only", PLOT_OPT_DATA_ONLY, NULL, "write the data and plot.gp, do not run gnuplot" },
	{ "help", PLOT_OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

struct plot_args {
	const char *out;
	bool png, data_only;
};

static int plot_opt(int id, const char *arg, void *ctx)
{
	struct plot_args *a = ctx;
	if (id == PLOT_OPT_OUT)
		a->out = arg;
	else if (id == PLOT_OPT_PNG)
		a->png = true;
	else if (id == PLOT_OPT_SVG)
		a->png = false;
	else if (id == PLOT_OPT_DATA_ONLY)
		a->data_only = true;
	return 0;
}

/* What was found for each run. */
struct plot_run {
	const char *dir;
	char label[128];
	bool by_size, cdf, rates, queues, util, colls;
};

struct plot {
	const char *out;
	struct plot_run run[PLOT_MAX_RUNS];
	unsigned n;
	struct ws_err err;
};

static FILE *open_data(struct plot *p, const char *name, unsigned i, const char *header)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s-%u.dat", p->out, name, i);
	FILE *f = fopen(path, "w");
	if (!f) {
		ws_err_at(&p->err, WS_EIO, path, 0, "cannot write: %s", strerror(errno));
		return NULL;
	}
	fprintf(f, "# %s\n", header);
	return f;
}

static int close_data(struct plot *p, FILE *f, const char *name, unsigned i)
{
	bool bad = ferror(f);
	if (fclose(f) || bad)
		return ws_err_at(&p->err, WS_EIO, name, 0, "write failed (run %u)", i);
	return WS_OK;
}

/* A table of the run directory; *found false (no error) when the file is
 * not there. */
static int run_table(struct plot *p, unsigned i, const char *file,
		     const char *const *cols, unsigned n_cols, double **rows,
		     size_t *n, bool *found)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", p->run[i].dir, file);
	*found = false;
	int rc = tool_table_read(path, cols, n_cols, rows, n, &p->err);
	if (rc == WS_ENOENT) {
		ws_err_clear(&p->err);
		return WS_OK;
	}
	*found = !rc;
	return rc;
}

/* fct_by_size-i.dat: max_bytes p50 p95 p99 mean flows */
static int data_by_size(struct plot *p, unsigned i)
{
	static const char *const cols[] = { "max_bytes", "p50", "p95", "p99", "mean", "flows" };
	double *v;
	size_t n;
	int rc = run_table(p, i, "fct_by_size.csv", cols, 6, &v, &n, &p->run[i].by_size);
	if (rc || !p->run[i].by_size)
		return rc;
	p->run[i].by_size = n > 0;
	FILE *f = n ? open_data(p, "fct_by_size", i, "max_bytes p50 p95 p99 mean flows") : NULL;
	for (size_t r = 0; f && r < n; r++)
		fprintf(f, "%.0f %.6f %.6f %.6f %.6f %.0f\n", v[r * 6], v[r * 6 + 1],
			v[r * 6 + 2], v[r * 6 + 3], v[r * 6 + 4], v[r * 6 + 5]);
	free(v);
	if (n && !f)
		return WS_EIO;
	return f ? close_data(p, f, "fct_by_size", i) : WS_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* fct_cdf-i.dat: slowdown fraction (at most 2,000 points: quantiles) */
static int data_cdf(struct plot *p, unsigned i)
{
	static const char *const cols[] = { "slowdown" };
	double *v;
	size_t n;
	int rc = run_table(p, i, "fct.csv", cols, 1, &v, &n, &p->run[i].cdf);
	if (rc || !p->run[i].cdf)
		return rc;
	p->run[i].cdf = n > 0;
	qsort(v, n, sizeof *v, cmp_double);
	FILE *f = n ? open_data(p, "fct_cdf", i, "slowdown cumulative_fraction") : NULL;
	size_t step = n > 2000 ? n / 2000 : 1;
	for (size_t r = 0; f && r < n; r += step)
		fprintf(f, "%.6f %.6f\n", v[r], (double)(r + 1) / (double)n);
	if (f && (n - 1) % step)
		fprintf(f, "%.6f 1\n", v[n - 1]);
	free(v);
	if (n && !f)
		return WS_EIO;
	return f ? close_data(p, f, "fct_cdf", i) : WS_OK;
}

/* A trace over time: `xcol` in ns to us, `ycol` scaled; strided to at most
 * PLOT_MAX_POINTS points; a blank line between `series` (when given). */
static int data_trace(struct plot *p, unsigned i, const char *file, const char *name,
		      const char *ycol, double yscale, const char *header, bool *found)
{
	const char *const cols[] = { "time_ns", ycol };
	double *v;
	size_t n;
	int rc = run_table(p, i, file, cols, 2, &v, &n, found);
	if (rc || !*found)
		return rc;
	*found = n > 0;
	FILE *f = n ? open_data(p, name, i, header) : NULL;
	size_t step = n > PLOT_MAX_POINTS ? n / PLOT_MAX_POINTS + 1 : 1;
	for (size_t r = 0; f && r < n; r += step)
		fprintf(f, "%.3f %.6g\n", v[2 * r] / 1e3, v[2 * r + 1] * yscale);
	free(v);
	if (n && !f)
		return WS_EIO;
	return f ? close_data(p, f, name, i) : WS_OK;
}

/* collectives-i.dat: start_us end_us row (rows by collective id, which
 * numbers groups in the order the workload created them) */
static int data_collectives(struct plot *p, unsigned i)
{
	static const char *const cols[] = { "id", "start_ns", "end_ns", "iteration" };
	double *v;
	size_t n;
	int rc = run_table(p, i, "collectives.csv", cols, 4, &v, &n, &p->run[i].colls);
	if (rc || !p->run[i].colls)
		return rc;
	p->run[i].colls = n > 0;
	FILE *f = n ? open_data(p, "collectives", i, "start_us end_us id iteration") : NULL;
	for (size_t r = 0; f && r < n; r++)
		fprintf(f, "%.3f %.3f %.0f %.0f\n", v[4 * r + 1] / 1e3, v[4 * r + 2] / 1e3,
			v[4 * r], v[4 * r + 3]);
	free(v);
	if (n && !f)
		return WS_EIO;
	return f ? close_data(p, f, "collectives", i) : WS_OK;
}

static int plot_data(struct plot *p, unsigned i)
{
	int rc = data_by_size(p, i);
	if (!rc)
		rc = data_cdf(p, i);
	if (!rc)
		rc = data_trace(p, i, "rates.csv", "rates", "rate_bps", 1e-9,
				"time_us rate_gbps", &p->run[i].rates);
	if (!rc)
		rc = data_trace(p, i, "queues.csv", "queues", "queue_bytes", 1e-3,
				"time_us queue_kb", &p->run[i].queues);
	if (!rc)
		rc = data_trace(p, i, "util.csv", "util", "utilization", 1,
				"time_us utilization", &p->run[i].util);
	if (!rc)
		rc = data_collectives(p, i);
	return rc;
}

/* ---- the gnuplot script ------------------------------------------------------------- */

/* One "plot" command over the runs that have a figure's data. */
static void gp_plot(FILE *f, const struct plot *p, size_t flag_off, const char *name,
		    const char *using_, const char *style)
{
	const char *sep = "plot ";
	for (unsigned i = 0; i < p->n; i++) {
		if (!*(const bool *)((const char *)&p->run[i] + flag_off))
			continue;
		fprintf(f, "%s'%s-%u.dat' using %s %s title '%s'", sep, name, i, using_,
			style, p->run[i].label);
		sep = ", \\\n     ";
	}
	fputs("\n", f);
}

static bool any(const struct plot *p, size_t flag_off)
{
	for (unsigned i = 0; i < p->n; i++)
		if (*(const bool *)((const char *)&p->run[i] + flag_off))
			return true;
	return false;
}

#define RUN_FLAG(f) offsetof(struct plot_run, f)

static void gp_figures(FILE *f, const struct plot *p, const char *ext)
{
	if (any(p, RUN_FLAG(by_size))) {
		fprintf(f, "\nset output 'fct_by_size.%s'\nset multiplot layout 1,2 "
			"title 'FCT slowdown by flow size'\nset logscale x\nset logscale y\n"
			"set xlabel 'flow size (bytes, largest of each 5 %% bucket)'\n"
			"set ylabel 'p50 slowdown'\n", ext);
		gp_plot(f, p, RUN_FLAG(by_size), "fct_by_size", "1:2", "with linespoints");
		fputs("set ylabel 'p99 slowdown'\n", f);
		gp_plot(f, p, RUN_FLAG(by_size), "fct_by_size", "1:4", "with linespoints");
		fputs("unset multiplot\nunset logscale\n", f);
	}
	if (any(p, RUN_FLAG(cdf))) {
		fprintf(f, "\nset output 'fct_cdf.%s'\nset title 'FCT slowdown, all flows'\n"
			"set logscale x\nset xlabel 'slowdown (FCT / ideal FCT)'\n"
			"set ylabel 'fraction of flows'\nset yrange [0:1]\n", ext);
		gp_plot(f, p, RUN_FLAG(cdf), "fct_cdf", "1:2", "with lines");
		fputs("unset logscale\nset yrange [*:*]\n", f);
	}
	if (any(p, RUN_FLAG(rates))) {
		fprintf(f, "\nset output 'rates.%s'\nset title 'flow rates'\n"
			"set xlabel 'time (us)'\nset ylabel 'rate (Gb/s)'\n", ext);
		gp_plot(f, p, RUN_FLAG(rates), "rates", "1:2", "with dots");
	}
	if (any(p, RUN_FLAG(queues))) {
		fprintf(f, "\nset output 'queues.%s'\nset title 'switch egress queues'\n"
			"set xlabel 'time (us)'\nset ylabel 'queue (KB)'\n", ext);
		gp_plot(f, p, RUN_FLAG(queues), "queues", "1:2", "with dots");
	}
	if (any(p, RUN_FLAG(util))) {
		fprintf(f, "\nset output 'util.%s'\nset title 'port utilization'\n"
			"set xlabel 'time (us)'\nset ylabel 'utilization'\n", ext);
		gp_plot(f, p, RUN_FLAG(util), "util", "1:2", "with dots");
	}
	if (any(p, RUN_FLAG(colls))) {
		fprintf(f, "\nset output 'collectives.%s'\nset title 'collectives over "
			"time, one row per collective id'\nset xlabel 'time (us)'\n"
			"set ylabel 'collective id'\n", ext);
		gp_plot(f, p, RUN_FLAG(colls), "collectives", "1:3:($2-$1):(0)",
			"with vectors nohead");
	}
}

static int write_script(struct plot *p, bool png)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/plot.gp", p->out);
	FILE *f = fopen(path, "w");
	if (!f)
		return ws_err_at(&p->err, WS_EIO, path, 0, "cannot write: %s", strerror(errno));
	fprintf(f, "# written by warpsim plot; run from this directory: gnuplot plot.gp\n"
		"set terminal %s size 1100,500\nset key top left\nset grid\n",
		png ? "pngcairo" : "svg dynamic");
	gp_figures(f, p, png ? "png" : "svg");
	bool bad = ferror(f);
	if (fclose(f) || bad)
		return ws_err_at(&p->err, WS_EIO, path, 0, "write failed");
	return WS_OK;
}

/* ---- running gnuplot -------------------------------------------------------------- */

static bool gnuplot_found(void)
{
	const char *path = getenv("PATH");
	if (!path)
		return false;
	char *copy = strdup(path), *save = NULL;
	bool found = false;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char exe[4200];
		snprintf(exe, sizeof exe, "%s/gnuplot", d);
		found = access(exe, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* gnuplot plot.gp in the output directory; its exit status. */
static int run_gnuplot(const char *dir)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (chdir(dir) == 0)
			execlp("gnuplot", "gnuplot", "plot.gp", (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int plot_render(const struct plot *p, const struct plot_args *a)
{
	if (a->data_only) {
		printf("  script     %s/plot.gp (not run: --data-only)\n", p->out);
		return 0;
	}
	if (!gnuplot_found()) {
		fprintf(stderr, "warpsim plot: gnuplot is not installed; the data and the "
			"script are in %s.\n  Install it with `./bootstrap --with-plots` "
			"(Debian: apt-get install gnuplot-nox), then run "
			"`cd %s && gnuplot plot.gp`.\n", p->out, p->out);
		return EXIT_RUN;
	}
	int st = run_gnuplot(p->out);
	if (st != 0) {
		fprintf(stderr, "warpsim plot: gnuplot failed (status %d) on %s/plot.gp\n",
			st, p->out);
		return EXIT_RUN;
	}
	printf("  figures    in %s\n", p->out);
	return 0;
}

/* A run's label: its directory's last component, and its CC. */
static void run_label(struct plot_run *r)
{
	char tmp[4096], cc[64];
	snprintf(tmp, sizeof tmp, "%s", r->dir);
	size_t l = strlen(tmp);
	while (l > 1 && tmp[l - 1] == '/')
		tmp[--l] = '\0';
	const char *b = strrchr(tmp, '/');
	tool_summary_plugin(r->dir, "cc", cc, sizeof cc);
	snprintf(r->label, sizeof r->label, "%s%s%s%s", b ? b + 1 : tmp, cc[0] ? " (" : "",
		 cc, cc[0] ? ")" : "");
	for (char *c = r->label; *c; c++)
		if (*c == '\'' || *c == '_')
			*c = *c == '_' ? ' ' : '"';
}

int cmd_plot(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct plot_args a = { 0 };
	int rc = parse_opts(argc, argv, cmd, plot_opt, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	int n = argc - optind;
	if (n < 1 || n > PLOT_MAX_RUNS) {
		fprintf(stderr, "warpsim plot: expected 1 to %d run directories, got %d\n",
			PLOT_MAX_RUNS, n);
		usage_cmd(stderr, cmd);
		return EXIT_INPUT;
	}
	struct plot p = { 0 };
	char out[4200];
	if (a.out)
		snprintf(out, sizeof out, "%s", a.out);
	else
		snprintf(out, sizeof out, "%s", n == 1 ? argv[optind] : "plots");
	if (!a.out && n == 1)
		strncat(out, "/plots", sizeof out - strlen(out) - 1);
	p.out = out;
	p.n = (unsigned)n;
	if (mkdir(out, 0777) && errno != EEXIST) {
		fprintf(stderr, "warpsim plot: cannot create %s: %s\n", out, strerror(errno));
		return EXIT_RUN;
	}
	for (unsigned i = 0; i < p.n; i++) {
		p.run[i].dir = argv[optind + i];
		struct stat st;
		if (stat(p.run[i].dir, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "warpsim plot: %s: not a directory (expected the "
				"output directory of warpsim run)\n", p.run[i].dir);
			return EXIT_INPUT;
		}
		run_label(&p.run[i]);
		if ((rc = plot_data(&p, i))) {
			tool_print_error(&p.err);
			return rc == WS_EIO ? EXIT_RUN : EXIT_INPUT;
		}
	}
	if (!any(&p, RUN_FLAG(cdf))) {
		fprintf(stderr, "warpsim plot: no completed flows in %s (expected the "
			"output directories of warpsim run)\n", n == 1 ? argv[optind] : "any run");
		return EXIT_INPUT;
	}
	if (write_script(&p, a.png)) {
		tool_print_error(&p.err);
		return EXIT_RUN;
	}
	printf("warpsim %s: plot %d run%s into %s\n", WS_VERSION, n, n == 1 ? "" : "s", out);
	return plot_render(&p, &a);
}
