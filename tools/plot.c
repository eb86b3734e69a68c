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
 *                 one row per group (runs with collectives.csv);
 *   link_load     per tier and direction of links, the spread of the bytes
 *                 each link sent (a box of quartiles, whiskers to min and
 *                 max, the mean marked), the runs side by side: ECMP against
 *                 spraying (runs with ports.csv; the tiers come from the node
 *                 levels summary.json lists beside it).
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
#include "csvin.h"
#include "jsonin.h"
#include "plot.h"
#include "tools.h"

#define PLOT_MAX_RUNS 16
#define PLOT_MAX_POINTS 200000 /* per trace data file: larger traces are strided */

enum { PLOT_OPT_HELP = 'h', PLOT_OPT_OUT = 'o', PLOT_OPT_PNG = 256, PLOT_OPT_SVG,
       PLOT_OPT_DATA_ONLY, PLOT_OPT_X, PLOT_OPT_Y, PLOT_OPT_BY, PLOT_OPT_CC,
       PLOT_OPT_TOP, PLOT_OPT_FLOWS };

#define PLOT_TOP_DEFAULT 8 /* flows and ports drawn by default in rates and queues */

const struct cli_opt plot_opts[] = {
	{ "output", PLOT_OPT_OUT, "DIR", "write the figures, data and plot.gp to DIR "
	  "(default: RUN/plots for one run or a sweep, plots for several)" },
	{ "x", PLOT_OPT_X, "AXIS", "sweep: the axis of results.csv along x (default: its "
	  "first numeric axis)" },
	{ "y", PLOT_OPT_Y, "METRIC", "sweep: the metric (a column of results.csv; p99 is "
	  "slowdown_p99; default p99)" },
	{ "by", PLOT_OPT_BY, "AXIS", "sweep: one line per value of this axis (default: "
	  "the first other axis that varies)" },
	{ "cc", PLOT_OPT_CC, NULL, "one run's congestion-control figures only: each flow's "
	  "rate, each switch port's queue, over time" },
	{ "top", PLOT_OPT_TOP, "N", "rates and queues: draw the N largest flows (by bytes) "
	  "and ports (by peak queue); default 8" },
	{ "flows", PLOT_OPT_FLOWS, "IDS", "rates: draw these flows (comma-separated flow ids)" },
	{ "png", PLOT_OPT_PNG, NULL, "PNG figures (pngcairo)" },
	{ "svg", PLOT_OPT_SVG, NULL, "SVG figures (the default)" },
	{ "data-only", PLOT_OPT_DATA_ONLY, NULL, "write the data and plot.gp, do not run gnuplot" },
	{ "help", PLOT_OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

static int plot_opt(int id, const char *arg, void *ctx)
{
	struct plot_args *a = ctx;
	char *end;
	switch (id) {
	case PLOT_OPT_OUT: a->out = arg; break;
	case PLOT_OPT_PNG: a->png = true; break;
	case PLOT_OPT_SVG: a->png = false; break;
	case PLOT_OPT_DATA_ONLY: a->data_only = true; break;
	case PLOT_OPT_X: a->x = arg; break;
	case PLOT_OPT_Y: a->y = arg; break;
	case PLOT_OPT_BY: a->by = arg; break;
	case PLOT_OPT_CC: a->cc = true; break;
	case PLOT_OPT_FLOWS: a->flows = arg; break;
	case PLOT_OPT_TOP:
		errno = 0;
		unsigned long n = strtoul(arg, &end, 10);
		if (errno || *end || end == arg || n < 1 || n > PLOT_STYLES) {
			fprintf(stderr, "warpsim plot: --top %s: expected 1 to %d\n", arg,
				PLOT_STYLES);
			return EXIT_INPUT;
		}
		a->top = (unsigned)n;
		break;
	}
	return 0;
}

/* The spread of one (tier, direction) group of a run's links, in bytes. */
struct load_group {
	unsigned key; /* tier * LOAD_DIRS + direction */
	size_t links;
	double min, q1, median, q3, max, mean;
};

enum { LOAD_UP, LOAD_DOWN, LOAD_PEER, LOAD_DIRS };
#define LOAD_KEYS (256 * LOAD_DIRS) /* levels are 8 bits */

/* A trace's curves drawn one by one (rates: flows; queues: ports): the
 * chosen few, their titles, and how many there were to choose from. */
struct plot_series {
	char (*title)[96];
	size_t n, of;
};

/* What was found for each run. */
struct plot_run {
	const char *dir;
	char label[128];
	bool by_size, cdf, rates, queues, util, colls, load;
	struct plot_series rate_lines, queue_lines; /* one run: a line per flow, port */
	struct load_group *groups; /* link_load: the groups present, by key */
	size_t n_groups;
	double by_size_lo, by_size_hi; /* fct_by_size: the flow sizes */
	double by_size_x;              /* the least bucket top: the first point */
	double sd_lo, sd_hi;           /* fct_ccdf: the least and largest slowdown */
	double panel_lo[4], panel_hi[4]; /* fct_by_size: p50, p95, p99, mean ranges */
};

struct plot {
	const char *out;
	struct plot_run run[PLOT_MAX_RUNS];
	unsigned n;
	bool png, cc_only;
	const struct plot_args *args;
	struct ws_err err;
	char **written;  /* the files written so far: removed if plot fails */
	size_t n_written;
};

static void note_written(struct plot *p, const char *path)
{
	size_t l = strlen(path) + 1;
	p->written = tool_xrealloc(p->written, p->n_written + 1, sizeof *p->written);
	p->written[p->n_written++] = memcpy(tool_xcalloc(l, 1), path, l);
}

/* A plot that fails leaves none of its files (they would mix with an
 * earlier plot's); `keep` false removes them. */
static void forget_written(struct plot *p, bool keep)
{
	for (size_t k = 0; k < p->n_written; k++) {
		if (!keep)
			unlink(p->written[k]);
		free(p->written[k]);
	}
	free(p->written);
	p->written = NULL;
	p->n_written = 0;
}

static FILE *open_data(struct plot *p, const char *name, unsigned i, const char *header)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s-%u.dat", p->out, name, i);
	FILE *f = fopen(path, "w");
	if (!f) {
		ws_err_at(&p->err, WS_EIO, path, 0, "cannot write: %s", strerror(errno));
		return NULL;
	}
	note_written(p, path);
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

/* fct_by_size-i.dat: max_bytes p50 p95 p99 mean flows; the run's size
 * range and each panel's range (for the axes). */
static int data_by_size(struct plot *p, unsigned i)
{
	static const char *const cols[] = { "min_bytes", "max_bytes", "p50", "p95", "p99",
					     "mean", "flows" };
	struct plot_run *run = &p->run[i];
	double *v;
	size_t n;
	int rc = run_table(p, i, "fct_by_size.csv", cols, 7, &v, &n, &run->by_size);
	if (rc || !run->by_size)
		return rc;
	run->by_size = n > 0;
	run->by_size_lo = run->by_size_hi = n ? v[0] : 0;
	run->by_size_x = INFINITY;
	for (unsigned k = 0; k < 4; k++)
		run->panel_lo[k] = INFINITY, run->panel_hi[k] = -INFINITY;
	FILE *f = n ? open_data(p, "fct_by_size", i, "max_bytes p50 p95 p99 mean flows") : NULL;
	for (size_t r = 0; f && r < n; r++) {
		const double *x = v + r * 7;
		fprintf(f, "%.0f %.6f %.6f %.6f %.6f %.0f\n", x[1], x[2], x[3], x[4], x[5], x[6]);
		run->by_size_lo = fmin(run->by_size_lo, x[0]);
		run->by_size_hi = fmax(run->by_size_hi, x[1]);
		run->by_size_x = fmin(run->by_size_x, x[1]);
		for (unsigned k = 0; k < 4; k++)
			if (x[2 + k] > 0)
				run->panel_lo[k] = fmin(run->panel_lo[k], x[2 + k]),
				run->panel_hi[k] = fmax(run->panel_hi[k], x[2 + k]);
	}
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

#define CCDF_BODY 2000 /* quantile points of the CCDF's body */
#define CCDF_TAIL 1000 /* the slowest flows, every one drawn */

/* fct_ccdf-i.dat: slowdown, fraction of flows at least that slow (the
 * body as quantiles, the tail flow by flow). */
static int data_cdf(struct plot *p, unsigned i)
{
	static const char *const cols[] = { "slowdown" };
	double *v;
	size_t n;
	int rc = run_table(p, i, "fct.csv", cols, 1, &v, &n, &p->run[i].cdf);
	if (rc || !p->run[i].cdf)
		return rc;
	p->run[i].cdf = n > 0;
	if (n) /* v is NULL for a header-only fct.csv */
		qsort(v, n, sizeof *v, cmp_double);
	FILE *f = n ? open_data(p, "fct_ccdf", i, "slowdown fraction_at_least") : NULL;
	if (n)
		p->run[i].sd_lo = v[0], p->run[i].sd_hi = v[n - 1];
	size_t step = n > CCDF_BODY ? n / CCDF_BODY : 1;
	for (size_t r = 0; f && r < n; r += (n - r <= CCDF_TAIL ? 1 : step))
		fprintf(f, "%.6f %.9g\n", v[r], (double)(n - r) / (double)n);
	free(v);
	if (n && !f)
		return WS_EIO;
	return f ? close_data(p, f, "fct_ccdf", i) : WS_OK;
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

/* ---- rates and queues, one line per flow or port ------------------------------------ */

struct sample {
	double key, t, y;
};

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* One curve: its samples [first, first + n) and what ranks it. */
struct curve {
	double key, weight;
	size_t first, n;
};

static int cmp_curve_weight(const void *a, const void *b)
{
	const struct curve *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Sorted samples into curves; weight: the sum (rates: bytes sent while
 * traced, in proportion) or the peak (queues). */
static struct curve *make_curves(const struct sample *smp, size_t n, bool sum, size_t *n_out)
{
	struct curve *c = tool_xcalloc(n + 1, sizeof *c);
	size_t k = 0;
	for (size_t r = 0; r < n; r++) {
		if (!r || smp[r].key != smp[r - 1].key)
			c[k++] = (struct curve){ .key = smp[r].key, .first = r };
		struct curve *x = &c[k - 1];
		x->n++;
		x->weight = sum ? x->weight + smp[r].y : fmax(x->weight, smp[r].y);
	}
	*n_out = k;
	return c;
}

/* The curves to draw first in c[]: --flows (rates) or the top N; their count. */
static size_t pick_curves(struct plot *p, unsigned i, struct curve *c, size_t n, bool rates)
{
	if (rates && p->args->flows) {
		size_t k = 0;
		char *list = strdup(p->args->flows), *save = NULL;
		for (char *t = strtok_r(list, ",", &save); t && k < PLOT_STYLES;
		     t = strtok_r(NULL, ",", &save)) {
			double id = strtod(t, NULL);
			for (size_t j = k; j < n; j++)
				if (c[j].key == id) {
					struct curve tmp = c[k];
					c[k++] = c[j];
					c[j] = tmp;
					break;
				}
		}
		free(list);
		if (!k)
			fprintf(stderr, "warpsim plot: %s: none of the flows %s is in rates.csv\n",
				p->run[i].dir, p->args->flows);
		return k;
	}
	qsort(c, n, sizeof *c, cmp_curve_weight);
	size_t top = p->args->top ? p->args->top : PLOT_TOP_DEFAULT;
	return n < top ? n : top;
}

static void fmt_bytes(char *b, size_t n, double v)
{
	static const char *const unit[] = { "B", "KB", "MB", "GB", "TB" };
	unsigned u = 0;
	while (v >= 1000 && u < 4)
		v /= 1000, u++;
	snprintf(b, n, "%.*f%s", v < 10 && u ? 1 : 0, v, unit[u]);
}

/* A flow's title: its id, endpoints and size from fct.csv when it is there. */
static void flow_title(char *t, size_t n, double id, const double *fct, size_t n_fct)
{
	for (size_t r = 0; r < n_fct; r++)
		if (fct[4 * r] == id) {
			char size[32];
			fmt_bytes(size, sizeof size, fct[4 * r + 3]);
			snprintf(t, n, "flow %.0f: %.0f to %.0f, %s", id, fct[4 * r + 1],
				 fct[4 * r + 2], size);
			return;
		}
	snprintf(t, n, "flow %.0f", id);
}

static int write_curves(struct plot *p, unsigned i, bool rates, const struct sample *smp,
			const struct curve *c, size_t k, struct plot_series *out)
{
	const char *name = rates ? "rate_lines" : "queue_lines";
	FILE *f = open_data(p, name, i, rates ? "time_us rate_gbps (one block per flow)"
			    : "time_us queue_kb (one block per switch port)");
	if (!f)
		return WS_EIO;
	double *fct = NULL;
	size_t n_fct = 0;
	bool found;
	static const char *const fcols[] = { "flow_id", "src", "dst", "bytes" };
	if (rates && run_table(p, i, "fct.csv", fcols, 4, &fct, &n_fct, &found))
		ws_err_clear(&p->err), n_fct = 0; /* titles without endpoints */
	out->title = tool_xcalloc(k + 1, sizeof *out->title);
	out->n = k;
	for (size_t j = 0; j < k; j++) {
		size_t step = c[j].n > PLOT_MAX_POINTS / k ? c[j].n / (PLOT_MAX_POINTS / k) + 1 : 1;
		fprintf(f, "# %s %.0f\n", rates ? "flow" : "node*65536+port", c[j].key);
		for (size_t r = 0; r < c[j].n; r += step)
			fprintf(f, "%.3f %.6g\n", smp[c[j].first + r].t, smp[c[j].first + r].y);
		fputs("\n\n", f);
		if (rates)
			flow_title(out->title[j], sizeof out->title[j], c[j].key, fct, n_fct);
		else
			snprintf(out->title[j], sizeof out->title[j], "switch %.0f port %.0f",
				 floor(c[j].key / 65536), fmod(c[j].key, 65536));
	}
	free(fct);
	return close_data(p, f, name, i);
}

/* rate_lines-i.dat / queue_lines-i.dat: a block per chosen flow or port. */
static int data_lines(struct plot *p, unsigned i, bool rates)
{
	static const char *const rcols[] = { "time_ns", "flow_id", "rate_bps" };
	static const char *const qcols[] = { "time_ns", "node", "port", "queue_bytes" };
	unsigned m = rates ? 3 : 4;
	double *v;
	size_t n;
	bool found;
	int rc = run_table(p, i, rates ? "rates.csv" : "queues.csv", rates ? rcols : qcols,
			   m, &v, &n, &found);
	if (rc || !found || !n)
		return rc;
	struct sample *smp = tool_xcalloc(n, sizeof *smp);
	for (size_t r = 0; r < n; r++) {
		const double *x = v + r * m;
		smp[r] = rates ? (struct sample){ x[1], x[0] / 1e3, x[2] / 1e9 }
			: (struct sample){ x[1] * 65536 + x[2], x[0] / 1e3, x[3] / 1e3 };
	}
	free(v);
	qsort(smp, n, sizeof *smp, cmp_sample);
	size_t n_c, k;
	struct curve *c = make_curves(smp, n, rates, &n_c);
	k = pick_curves(p, i, c, n_c, rates);
	struct plot_series *out = rates ? &p->run[i].rate_lines : &p->run[i].queue_lines;
	out->of = n_c;
	if (k)
		rc = write_curves(p, i, rates, smp, c, k, out);
	if (k < n_c)
		fprintf(stderr, "warpsim plot: note: %s: %zu of %zu %s drawn (%s; --top N%s to "
			"choose)\n", rates ? "rates" : "queues", k, n_c, rates ? "flows" : "ports",
			rates && p->args->flows ? "those of --flows" : rates ?
			"the most bytes sent while traced" : "the highest peaks",
			rates ? " or --flows IDS" : "");
	free(c);
	free(smp);
	return rc;
}

/* The lanes of collectives.csv's rows: the index of its `dim` column's
 * value in plot_lanes (0 for none, or a file without the column). */
static const char *const plot_lanes[] = { "other", "TP", "DP", "EP", "PP", "DP_EP" };
#define PLOT_LANES 6

static void read_lanes(const char *path, size_t n, unsigned char *lane)
{
	struct tool_csv c;
	struct ws_err err;
	int col = -1;
	memset(lane, 0, n);
	if (!tool_csv_open(&c, path, &err))
		col = tool_csv_find(&c, "dim");
	for (size_t r = 0; col >= 0 && r < n && tool_csv_next(&c, &err) == 1; r++)
		for (unsigned d = 1; d < PLOT_LANES; d++)
			if (!strcmp(c.field[col], plot_lanes[d]))
				lane[r] = (unsigned char)d;
	tool_csv_close(&c);
}

/* collectives-i.dat: start_us end_us lane id iteration: one lane per
 * parallelism dimension (other, TP, DP, EP, PP, DP_EP), the collectives
 * spread inside it by id (mod 16) and run */
static int data_collectives(struct plot *p, unsigned i)
{
	static const char *const cols[] = { "id", "start_ns", "end_ns", "iteration" };
	double *v;
	size_t n;
	int rc = run_table(p, i, "collectives.csv", cols, 4, &v, &n, &p->run[i].colls);
	if (rc || !p->run[i].colls)
		return rc;
	p->run[i].colls = n > 0;
	unsigned char *lane = malloc(n + 1);
	if (!lane) {
		free(v);
		return ws_err_set(&p->err, WS_ENOMEM, "out of memory");
	}
	char path[4200];
	snprintf(path, sizeof path, "%s/collectives.csv", p->run[i].dir);
	read_lanes(path, n, lane);
	FILE *f = n ? open_data(p, "collectives", i, "start_us end_us lane id iteration") : NULL;
	for (size_t r = 0; f && r < n; r++)
		fprintf(f, "%.3f %.3f %.3f %.0f %.0f\n", v[4 * r + 1] / 1e3, v[4 * r + 2] / 1e3,
			lane[r] + (double)((uint64_t)v[4 * r] % 16) / 20.0 - 0.375 + 0.05 * i, v[4 * r],
			v[4 * r + 3]);
	free(lane);
	free(v);
	if (n && !f)
		return WS_EIO;
	return f ? close_data(p, f, "collectives", i) : WS_OK;
}

/* ---- link load: ports.csv by tier, with summary.json's node levels ---------------- */

/* A run of consecutive node ids of one level (summary.json fabric.node_levels). */
struct level_run {
	unsigned long first, count, level;
};

/* The node levels run i's summary.json lists into *out; *n 0 when it
 * lists none (or there is no summary.json). */
static int read_levels(struct plot *p, unsigned i, struct level_run **out, size_t *n)
{
	static const char *const member[] = { "first", "count", "level" };
	char path[4200], name[96];
	json_t *root, *list, *e;
	size_t k;
	snprintf(path, sizeof path, "%s/summary.json", p->run[i].dir);
	*out = NULL;
	*n = 0;
	int rc = tool_json_load(path, &root, &p->err);
	if (rc == WS_ENOENT)
		ws_err_clear(&p->err);
	if (rc)
		return rc == WS_ENOENT ? WS_OK : rc;
	list = tool_json_get(root, "fabric", "node_levels");
	if (list && !json_is_array(list))
		rc = ws_err_at(&p->err, WS_EINVAL, path, 0, "fabric.node_levels: expected "
			       "an array of {\"first\", \"count\", \"level\"}");
	*out = tool_xcalloc(json_array_size(list) + 1, sizeof **out);
	json_array_foreach(list, k, e) {
		uint64_t v[3];
		for (unsigned m = 0; !rc && m < 3; m++) {
			snprintf(name, sizeof name, "fabric.node_levels[%zu].%s", k, member[m]);
			rc = tool_json_u64(path, name, json_object_get(e, member[m]), &v[m],
					   &p->err);
		}
		if (rc)
			break;
		(*out)[(*n)++] = (struct level_run){ v[0], v[1], v[2] };
	}
	json_decref(root);
	return rc;
}

/* The level of a node; false when the runs do not cover it. */
static bool level_of(const struct level_run *r, size_t n, double node, unsigned *level)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (node < (double)r[mid].first)
			hi = mid;
		else if (node >= (double)(r[mid].first + r[mid].count))
			lo = mid + 1;
		else {
			*level = (unsigned)r[mid].level;
			return r[mid].level < 256;
		}
	}
	return false;
}

/* Nearest-rank quantile of sorted values. */
static double quantile(const double *v, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);
	return v[rank ? rank - 1 : 0];
}

/* The groups of sorted bytes[] (segment k of `start`, LOAD_KEYS + 1
 * offsets) into the run's groups. */
static void load_groups(struct plot_run *r, const double *bytes, const size_t *start)
{
	for (unsigned k = 0; k < LOAD_KEYS; k++) {
		const double *v = bytes + start[k];
		size_t n = start[k + 1] - start[k];
		if (!n)
			continue;
		double sum = 0;
		for (size_t x = 0; x < n; x++)
			sum += v[x];
		r->groups[r->n_groups++] = (struct load_group){
			.key = k, .links = n, .min = v[0], .q1 = quantile(v, n, 0.25),
			.median = quantile(v, n, 0.5), .q3 = quantile(v, n, 0.75),
			.max = v[n - 1], .mean = sum / (double)n,
		};
	}
}

/* Each port's group from the node levels; counting sort by group. */
static int load_sort(struct plot *p, unsigned i, const double *v, size_t n,
		     const struct level_run *lv, size_t n_lv, double *bytes, size_t *start)
{
	unsigned *key = tool_xcalloc(n ? n : 1, sizeof *key);
	for (size_t r = 0; r < n; r++) {
		unsigned a, b;
		if (!level_of(lv, n_lv, v[3 * r], &a) || !level_of(lv, n_lv, v[3 * r + 1], &b)) {
			free(key);
			return ws_err_at(&p->err, WS_EINVAL, p->run[i].dir, 0, "ports.csv line "
					 "%zu: node %.0f or %.0f is not in summary.json's "
					 "node_levels (files of two runs?)", r + 2, v[3 * r],
					 v[3 * r + 1]);
		}
		key[r] = (a > b ? a : b) * LOAD_DIRS + (a < b ? LOAD_UP : a > b ? LOAD_DOWN : LOAD_PEER);
		start[key[r] + 1]++;
	}
	for (unsigned k = 0; k < LOAD_KEYS; k++)
		start[k + 1] += start[k];
	size_t *fill = tool_xcalloc(LOAD_KEYS, sizeof *fill);
	for (size_t r = 0; r < n; r++)
		bytes[start[key[r]] + fill[key[r]]++] = v[3 * r + 2];
	for (unsigned k = 0; k < LOAD_KEYS; k++)
		qsort(bytes + start[k], start[k + 1] - start[k], sizeof *bytes, cmp_double);
	free(fill);
	free(key);
	return WS_OK;
}

/* The run's link-load groups, from ports.csv (absent: no figure). */
static int data_link_load(struct plot *p, unsigned i)
{
	static const char *const cols[] = { "node", "peer_node", "tx_bytes" };
	double *v;
	size_t n;
	bool found;
	int rc = run_table(p, i, "ports.csv", cols, 3, &v, &n, &found);
	if (rc || !found || !n)
		return rc;
	size_t n_lv;
	struct level_run *lv;
	if ((rc = read_levels(p, i, &lv, &n_lv))) {
		free(lv);
		free(v);
		return rc;
	}
	if (!n_lv) {
		free(lv);
		fprintf(stderr, "warpsim plot: %s: summary.json lists no node_levels (a run "
			"of an older warpsim): no link_load figure for it\n", p->run[i].dir);
		free(v);
		return WS_OK;
	}
	double *bytes = tool_xcalloc(n, sizeof *bytes);
	size_t *start = tool_xcalloc(LOAD_KEYS + 1, sizeof *start);
	rc = load_sort(p, i, v, n, lv, n_lv, bytes, start);
	if (!rc) {
		p->run[i].groups = tool_xcalloc(LOAD_KEYS, sizeof *p->run[i].groups);
		load_groups(&p->run[i], bytes, start);
		p->run[i].load = p->run[i].n_groups > 0;
	}
	free(start);
	free(bytes);
	free(lv);
	free(v);
	return rc;
}

/* The x slot of every group any run has, in key order; the count. */
static unsigned load_slots(const struct plot *p, int *slot)
{
	for (unsigned k = 0; k < LOAD_KEYS; k++)
		slot[k] = -1;
	for (unsigned i = 0; i < p->n; i++)
		for (size_t g = 0; g < p->run[i].n_groups; g++)
			slot[p->run[i].groups[g].key] = 0;
	unsigned n = 0;
	for (unsigned k = 0; k < LOAD_KEYS; k++)
		if (slot[k] == 0)
			slot[k] = (int)n++;
	return n;
}

/* link_load-i.dat: x min q1 median q3 max mean (MB) links tier direction;
 * run i's box sits at its group's slot, shifted beside the other runs'. */
static int write_link_load(struct plot *p)
{
	int slot[LOAD_KEYS];
	load_slots(p, slot);
	static const char *const dir_name[LOAD_DIRS] = { "up", "down", "peer" };
	for (unsigned i = 0; i < p->n; i++) {
		const struct plot_run *r = &p->run[i];
		if (!r->load)
			continue;
		FILE *f = open_data(p, "link_load", i, "x min_mb q1_mb median_mb q3_mb "
				    "max_mb mean_mb links tier direction");
		if (!f)
			return WS_EIO;
		double w = 0.8 / p->n, x0 = -0.4 + w / 2 + w * i;
		for (size_t g = 0; g < r->n_groups; g++) {
			const struct load_group *x = &r->groups[g];
			fprintf(f, "%.4f %.6f %.6f %.6f %.6f %.6f %.6f %zu %u %s\n",
				slot[x->key] + x0, x->min / 1e6, x->q1 / 1e6, x->median / 1e6,
				x->q3 / 1e6, x->max / 1e6, x->mean / 1e6, x->links,
				x->key / LOAD_DIRS, dir_name[x->key % LOAD_DIRS]);
		}
		if (close_data(p, f, "link_load", i))
			return WS_EIO;
	}
	return WS_OK;
}

static int plot_data(struct plot *p, unsigned i)
{
	bool lines = p->n == 1; /* one run: a line per flow and per port */
	int rc = p->cc_only ? 0 : data_by_size(p, i);
	if (!rc && !p->cc_only)
		rc = data_cdf(p, i);
	if (!rc && lines)
		rc = data_lines(p, i, true);
	if (!rc && lines)
		rc = data_lines(p, i, false);
	if (!rc && !lines)
		rc = data_trace(p, i, "rates.csv", "rates", "rate_bps", 1e-9,
				"time_us rate_gbps", &p->run[i].rates);
	if (!rc && !lines)
		rc = data_trace(p, i, "queues.csv", "queues", "queue_bytes", 1e-3,
				"time_us queue_kb", &p->run[i].queues);
	if (!rc)
		rc = data_trace(p, i, "util.csv", "util", "utilization", 1,
				"time_us utilization", &p->run[i].util);
	if (!rc && !p->cc_only)
		rc = data_collectives(p, i);
	if (!rc && !p->cc_only)
		rc = data_link_load(p, i);
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
		fprintf(f, "%s'%s-%u.dat' using %s %s ls %u title '%s'", sep, name, i, using_,
			style, i % PLOT_STYLES + 1, p->run[i].label);
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

/* The link-load boxes: per run, quartile boxes with min/max whiskers, the
 * median as a bar and the mean as a point, all in the run's colour. */
static void gp_link_load(FILE *f, const struct plot *p, const char *ext)
{
	int slot[LOAD_KEYS];
	unsigned n = load_slots(p, slot);
	fprintf(f, "\nset output 'link_load.%s'\nset title 'bytes sent per link by tier "
		"(box: quartiles, whiskers: min and max, bar: median, x: mean)'\n"
		"set xlabel 'link tier and direction (1: host-leaf, 2: leaf-spine, "
		"3: spine-core)'\nset ylabel 'MB sent per link'\nset xrange [-0.6:%u.4]\n"
		"set yrange [0:*]\nset boxwidth %.4f absolute\nset style fill solid 0.25\n"
		"set xtics (", ext, n - 1, 0.8 / p->n * 0.9);
	static const char *const dir_name[LOAD_DIRS] = { "up", "down", "peer" };
	const char *sep = "";
	for (unsigned k = 0; k < LOAD_KEYS; k++)
		if (slot[k] >= 0) {
			fprintf(f, "%s'tier %u %s' %d", sep, k / LOAD_DIRS,
				dir_name[k % LOAD_DIRS], slot[k]);
			sep = ", ";
		}
	fputs(")\n", f);
	sep = "plot ";
	for (unsigned i = 0; i < p->n; i++) {
		if (!p->run[i].load)
			continue;
		unsigned ls = i % PLOT_STYLES + 1;
		fprintf(f, "%s'link_load-%u.dat' using 1:3:2:6:5 with candlesticks "
			"whiskerbars ls %u dt 1 title '%s', \\\n     '' using 1:4:4:4:4 with "
			"candlesticks ls %u dt 1 lw 2 notitle, \\\n     '' using 1:7 with "
			"points ls %u pt 2 notitle", sep, i, ls, p->run[i].label, ls, ls);
		sep = ", \\\n     ";
	}
	fputs("\nset xtics autofreq\nset xrange [*:*]\nset yrange [*:*]\n"
	      "set style fill empty\n", f);
}

/* Tick marks on a log axis from lo to hi: decades with the fewest
 * mantissas that give at least 4 marks, labelled %g. */
static void gp_log_tics(FILE *f, const char *axis, double lo, double hi)
{
	static const double sets[][12] = {
		{ 1 }, { 1, 2, 5 }, { 1, 1.5, 2, 3, 5, 7 },
		{ 1, 1.2, 1.4, 1.6, 1.8, 2, 2.5, 3, 4, 5, 6, 8 },
	};
	static const unsigned len[] = { 1, 3, 6, 12 };
	for (unsigned s = 0; s < 4; s++) {
		unsigned count = 0;
		for (double d = pow(10, floor(log10(lo))); d <= hi; d *= 10)
			for (unsigned m = 0; m < len[s]; m++)
				count += d * sets[s][m] >= lo && d * sets[s][m] <= hi;
		if (count < 4 && s < 3)
			continue;
		fprintf(f, "set %stics (", axis);
		const char *sep = "";
		for (double d = pow(10, floor(log10(lo))); d <= hi; d *= 10)
			for (unsigned m = 0; m < len[s]; m++)
				if (d * sets[s][m] >= lo && d * sets[s][m] <= hi) {
					fprintf(f, "%s'%g' %g", sep, d * sets[s][m], d * sets[s][m]);
					sep = ", ";
				}
		fputs(")\n", f);
		return;
	}
}

/* Flow-size ticks: decades as 1, 10, 100, 1K ... 1G. */
static void gp_size_tics(FILE *f, double lo, double hi)
{
	static const char *const unit[] = { "", "K", "M", "G", "T" };
	fputs("set xtics (", f);
	const char *sep = "";
	for (int e = (int)floor(log10(fmax(lo, 1))); e <= (int)ceil(log10(fmax(hi, 1))) && e < 15; e++) {
		fprintf(f, "%s'%.0f%s' 1e%d", sep, pow(10, e % 3), unit[e / 3], e);
		sep = ", ";
	}
	fputs(")\nset mxtics 10\n", f);
}

static void gp_by_size(FILE *f, const struct plot *p, const char *ext)
{
	static const char *const panel[] = { "p50", "p95", "p99", "mean" };
	double xlo = INFINITY, xhi = 0;
	for (unsigned i = 0; i < p->n; i++)
		if (p->run[i].by_size)
			xlo = fmin(xlo, p->run[i].by_size_x), xhi = fmax(xhi, p->run[i].by_size_hi);
	fprintf(f, "\nset output 'fct_by_size.%s'\nset terminal %s size 1100,800\n"
		"set multiplot layout 2,2 title 'FCT slowdown by flow size (each point: a 5 %% "
		"bucket of the flows, at its largest size)'\nset logscale xy\nset key top left\n"
		"set xlabel 'flow size (bytes)'\nset xrange [%g:%g]\n", ext,
		p->png ? "pngcairo" : "svg dynamic", fmax(xlo, 1) / 1.5, xhi * 1.5);
	gp_size_tics(f, xlo, xhi);
	for (unsigned k = 0; k < 4; k++) {
		double lo = INFINITY, hi = 0;
		for (unsigned i = 0; i < p->n; i++)
			if (p->run[i].by_size && p->run[i].panel_hi[k] > 0)
				lo = fmin(lo, p->run[i].panel_lo[k]),
				hi = fmax(hi, p->run[i].panel_hi[k]);
		if (!(hi > 0))
			lo = 1, hi = 10;
		double pad = pow(hi / lo, 0.06) * 1.02;
		fprintf(f, "set title '%s'\nset ylabel '%s slowdown'\nset yrange [%g:%g]\n",
			panel[k], panel[k], lo / pad, hi * pad);
		gp_log_tics(f, "y", lo / pad, hi * pad);
		char using_[8];
		snprintf(using_, sizeof using_, "1:%u", k + 2);
		if (k == 1) /* one key, in the p50 panel's empty top left */
			fputs("unset key\n", f);
		gp_plot(f, p, RUN_FLAG(by_size), "fct_by_size", using_, "with linespoints");
	}
	fprintf(f, "unset multiplot\nunset logscale\nset title\nset xtics autofreq\n"
		"set ytics autofreq\nset mxtics default\nset xrange [*:*]\nset yrange [*:*]\nset key\n"
		"set terminal %s size 1100,500\n", p->png ? "pngcairo" : "svg dynamic");
}

/* One line per flow or port of the one run. */
static void gp_lines(FILE *f, const struct plot_run *r, bool rates, const char *ext)
{
	const struct plot_series *s = rates ? &r->rate_lines : &r->queue_lines;
	char what[96] = "";
	if (s->n < s->of)
		snprintf(what, sizeof what, " (%zu of %zu: %s)", s->n, s->of,
			 rates ? "the most bytes sent, or --flows" : "the highest peaks");
	fprintf(f, "\nset output '%s.%s'\nset title '%s%s'\nset xlabel 'time (us)'\n"
		"set ylabel '%s'\nset key outside right top\n", rates ? "rates" : "queues", ext,
		rates ? "sending rate of each flow" : "egress queue of each switch port", what,
		rates ? "rate (Gb/s)" : "queue (KB)");
	for (size_t j = 0; j < s->n; j++) {
		char t[96];
		snprintf(t, sizeof t, "%s", s->title[j]);
		plot_label(t);
		fprintf(f, "%s'%s-0.dat' index %zu using 1:2 with lines ls %zu title '%s'",
			j ? ", \\\n     " : "plot ", rates ? "rate_lines" : "queue_lines", j,
			j % PLOT_STYLES + 1, t);
	}
	fputs("\nset key inside top left\n", f);
}

static void gp_figures(FILE *f, const struct plot *p, const char *ext)
{
	if (any(p, RUN_FLAG(by_size)))
		gp_by_size(f, p, ext);
	if (any(p, RUN_FLAG(cdf))) {
		fprintf(f, "\nset output 'fct_ccdf.%s'\nset title 'FCT slowdown, all flows: "
			"the share of flows at least this slow'\nset logscale xy\n"
			"set xlabel 'slowdown (FCT / ideal FCT)'\nset ylabel 'fraction of flows "
			"(log)'\nset format y '%%g'\nset key top right\n", ext);
		double lo = INFINITY, hi = 0;
		for (unsigned i = 0; i < p->n; i++)
			if (p->run[i].cdf)
				lo = fmin(lo, p->run[i].sd_lo), hi = fmax(hi, p->run[i].sd_hi);
		lo = fmax(lo, 1e-3), hi = fmax(hi, lo * 1.01);
		fprintf(f, "set xrange [%g:%g]\n", lo / 1.02, hi * 1.1);
		gp_log_tics(f, "x", lo / 1.02, hi * 1.1);
		gp_plot(f, p, RUN_FLAG(cdf), "fct_ccdf", "1:2", "with steps");
		fputs("unset logscale\nset key top left\nset xtics autofreq\nset xrange [*:*]\n"
		      "set format y\n", f);
	}
	if (p->n == 1 && p->run[0].rate_lines.n)
		gp_lines(f, &p->run[0], true, ext);
	if (p->n == 1 && p->run[0].queue_lines.n)
		gp_lines(f, &p->run[0], false, ext);
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
			"time, one lane per parallelism dimension'\nset xlabel 'time (us)'\n"
			"set ylabel 'dimension'\nset ytics (", ext);
		for (unsigned d = 0; d < PLOT_LANES; d++) /* DP-EP: no subscript */
			fprintf(f, "%s'%s' %u", d ? ", " : "", d == PLOT_LANES - 1 ? "DP-EP" :
				plot_lanes[d], d);
		fprintf(f, ")\nset yrange [-0.5:%u]\n", PLOT_LANES);
		gp_plot(f, p, RUN_FLAG(colls), "collectives", "1:3:($2-$1):(0)",
			"with vectors nohead");
		fputs("set ytics autofreq\nset autoscale y\n", f);
	}
	if (any(p, RUN_FLAG(load)))
		gp_link_load(f, p, ext);
}

static int write_script(struct plot *p, bool png)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/plot.gp", p->out);
	FILE *f = fopen(path, "w");
	if (!f)
		return ws_err_at(&p->err, WS_EIO, path, 0, "cannot write: %s", strerror(errno));
	note_written(p, path);
	fprintf(f, "# written by warpsim plot; run from this directory: gnuplot plot.gp\n"
		"set terminal %s size 1100,500\nset key top left\nset grid\n",
		png ? "pngcairo" : "svg dynamic");
	plot_styles(f);
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

void plot_styles(FILE *f)
{
	static const char *const colour[8] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
					       "#9467bd", "#8c564b", "#e377c2", "#17becf" };
	for (unsigned k = 0; k < PLOT_STYLES; k++)
		fprintf(f, "set style line %u lc rgb '%s' dt %u pt %u lw 1.5\n", k + 1,
			colour[k % 8], k / 8 + 1, k % 13 + 1);
}

void plot_label(char *s)
{
	for (char *c = s; *c; c++)
		if (*c == '\'' || *c == '_' || *c == '\\')
			*c = *c == '_' ? ' ' : '"';
}

/* gnuplot plot.gp in the output directory, its messages into
 * gnuplot.log; its exit status. */
static int run_gnuplot(const char *dir)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		FILE *log = chdir(dir) == 0 ? freopen("gnuplot.log", "w", stderr) : NULL;
		if (log && dup2(fileno(log), STDOUT_FILENO) >= 0)
			execlp("gnuplot", "gnuplot", "plot.gp", (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The last lines of gnuplot.log, after a failure. */
static void show_log(const char *dir)
{
	char path[4200], line[512], keep[8][512];
	snprintf(path, sizeof path, "%s/gnuplot.log", dir);
	FILE *f = fopen(path, "r");
	unsigned n = 0;
	while (f && fgets(line, sizeof line, f))
		snprintf(keep[n++ % 8], sizeof keep[0], "%s", line);
	for (unsigned k = n > 8 ? n - 8 : 0; k < n; k++)
		fprintf(stderr, "  %s", keep[k % 8]);
	if (f)
		fclose(f);
}

int plot_render(const char *dir, const struct plot_args *a)
{
	if (a->data_only) {
		printf("  script     %s/plot.gp (not run: --data-only)\n", dir);
		return 0;
	}
	if (!gnuplot_found()) {
		fprintf(stderr, "warpsim plot: gnuplot is not installed; the data and the "
			"script are in %s.\n  Install it with `./bootstrap --with-plots` "
			"(Debian: apt-get install gnuplot-nox), then run "
			"`cd %s && gnuplot plot.gp`.\n", dir, dir);
		return EXIT_RUN;
	}
	int st = run_gnuplot(dir);
	if (st != 0) {
		fprintf(stderr, "warpsim plot: gnuplot failed (status %d) on %s/plot.gp; the "
			"end of %s/gnuplot.log:\n", st, dir, dir);
		show_log(dir);
		return EXIT_RUN;
	}
	char log[4200];
	struct stat st_log;
	snprintf(log, sizeof log, "%s/gnuplot.log", dir);
	if (stat(log, &st_log) == 0 && st_log.st_size == 0)
		unlink(log); /* kept when gnuplot said something */
	printf("  figures    in %s\n", dir);
	return 0;
}

/* A run's label: its directory's last component, its CC and, when the
 * routing rule has one, its load balancing. */
static void run_label(struct plot_run *r)
{
	char tmp[4096], cc[64], lb[32], what[104];
	snprintf(tmp, sizeof tmp, "%s", r->dir);
	size_t l = strlen(tmp);
	while (l > 1 && tmp[l - 1] == '/')
		tmp[--l] = '\0';
	const char *b = strrchr(tmp, '/');
	tool_summary_plugin(r->dir, "cc", cc, sizeof cc);
	/* the routing rule's load balancing (none: "") */
	tool_summary_string(r->dir, "plugins.routing.params", "lb", lb, sizeof lb);
	snprintf(what, sizeof what, "%s%s%s%s", cc, cc[0] && lb[0] ? ", " : "",
		 lb[0] ? "lb " : "", lb);
	snprintf(r->label, sizeof r->label, "%s%s%s%s", b ? b + 1 : tmp, what[0] ? " (" : "",
		 what, what[0] ? ")" : "");
	plot_label(r->label);
}

/* FCT-by-size needs flows of more than one size: otherwise it is one
 * point per bucket at one x, so it is left out with a note. */
static void skip_one_size(struct plot *p)
{
	double lo = INFINITY, hi = 0;
	for (unsigned i = 0; i < p->n; i++)
		if (p->run[i].by_size)
			lo = fmin(lo, p->run[i].by_size_lo), hi = fmax(hi, p->run[i].by_size_hi);
	if (!(hi > lo) && any(p, RUN_FLAG(by_size))) {
		fprintf(stderr, "warpsim plot: note: no fct_by_size figure: every flow has "
			"the same size (%.0f bytes)\n", hi);
		for (unsigned i = 0; i < p->n; i++)
			p->run[i].by_size = false;
	}
}

static bool any_figure(const struct plot *p)
{
	if (p->n == 1 && (p->run[0].rate_lines.n || p->run[0].queue_lines.n))
		return true;
	return any(p, RUN_FLAG(by_size)) || any(p, RUN_FLAG(cdf)) || any(p, RUN_FLAG(rates)) ||
	       any(p, RUN_FLAG(queues)) || any(p, RUN_FLAG(util)) || any(p, RUN_FLAG(colls)) ||
	       any(p, RUN_FLAG(load));
}

/* Every run's data files; 0 or the exit status. */
static int plot_runs(struct plot *p, char **dirs)
{
	for (unsigned i = 0; i < p->n; i++) {
		p->run[i].dir = dirs[i];
		struct stat st;
		if (stat(p->run[i].dir, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "warpsim plot: %s: not a directory (expected the "
				"output directory of warpsim run)\n", p->run[i].dir);
			return EXIT_INPUT;
		}
		run_label(&p->run[i]);
		int rc = plot_data(p, i);
		if (rc) {
			tool_print_error(&p->err);
			return rc == WS_EIO ? EXIT_RUN : EXIT_INPUT;
		}
	}
	skip_one_size(p);
	if (!p->cc_only ? !any(p, RUN_FLAG(cdf)) : !any_figure(p)) {
		if (p->cc_only)
			fprintf(stderr, "warpsim plot: --cc: %s has no rates.csv, queues.csv or "
				"util.csv (run with [output] trace_rates, trace_queues or "
				"trace_util above 0s)\n", dirs[0]);
		else
			fprintf(stderr, "warpsim plot: no completed flows in %s (expected the "
				"output director%s of warpsim run, or a sweep's directory; "
				"the traces of a run whose flows did not finish: warpsim plot "
				"--cc)\n", p->n == 1 ? dirs[0] : "any run",
				p->n == 1 ? "y" : "ies");
		return EXIT_INPUT;
	}
	if (write_link_load(p) || write_script(p, p->png)) {
		tool_print_error(&p->err);
		return EXIT_RUN;
	}
	return 0;
}

/* A sweep's directory: results.csv and no run outputs of its own. */
static bool is_sweep_dir(const char *dir)
{
	char a[4200], b[4200];
	snprintf(a, sizeof a, "%s/results.csv", dir);
	snprintf(b, sizeof b, "%s/summary.json", dir);
	return access(a, R_OK) == 0 && access(b, F_OK) != 0;
}

int cmd_plot(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct plot_args a = { 0 };
	int rc = parse_opts(argc, argv, cmd, plot_opt, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	int n = argc - optind;
	if (n < 1 || n > PLOT_MAX_RUNS || (a.cc && n != 1)) {
		fprintf(stderr, "warpsim plot: expected %s, got %d\n", a.cc ? "one run directory "
			"with --cc" : "1 to 16 run directories or one sweep directory", n);
		usage_cmd(stderr, cmd);
		return EXIT_INPUT;
	}
	bool sweep = n == 1 && !a.cc && is_sweep_dir(argv[optind]);
	if ((a.x || a.y || a.by) && !sweep) {
		fprintf(stderr, "warpsim plot: --x, --y and --by are for a sweep's directory "
			"(one with results.csv); %s is not one\n", argv[optind]);
		return EXIT_INPUT;
	}
	if (sweep)
		return plot_sweep(argv[optind], &a);
	struct plot p = { .n = (unsigned)n, .png = a.png, .cc_only = a.cc, .args = &a };
	char out[4200];
	if (a.out)
		snprintf(out, sizeof out, "%s", a.out);
	else
		snprintf(out, sizeof out, "%s", n == 1 ? argv[optind] : "plots");
	if (!a.out && n == 1)
		strncat(out, "/plots", sizeof out - strlen(out) - 1);
	p.out = out;
	bool made = mkdir(out, 0777) == 0;
	if (!made && errno != EEXIST) {
		fprintf(stderr, "warpsim plot: cannot create %s: %s\n", out, strerror(errno));
		return EXIT_RUN;
	}
	rc = plot_runs(&p, argv + optind);
	for (unsigned i = 0; i < p.n; i++) {
		free(p.run[i].groups);
		free(p.run[i].rate_lines.title);
		free(p.run[i].queue_lines.title);
	}
	forget_written(&p, rc == 0);
	if (rc) {
		if (made)
			rmdir(out);
		return rc;
	}
	printf("warpsim %s: plot %d run%s into %s\n", WS_VERSION, n, n == 1 ? "" : "s", out);
	return plot_render(out, &a);
}
