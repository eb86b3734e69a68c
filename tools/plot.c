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

/* The spread of one (tier, direction) group of a run's links, in bytes. */
struct load_group {
	unsigned key; /* tier * LOAD_DIRS + direction */
	size_t links;
	double min, q1, median, q3, max, mean;
};

enum { LOAD_UP, LOAD_DOWN, LOAD_PEER, LOAD_DIRS };
#define LOAD_KEYS (256 * LOAD_DIRS) /* levels are 8 bits */

/* What was found for each run. */
struct plot_run {
	const char *dir;
	char label[128];
	bool by_size, cdf, rates, queues, util, colls, load;
	struct load_group *groups; /* link_load: the groups present, by key */
	size_t n_groups;
};

struct plot {
	const char *out;
	struct plot_run run[PLOT_MAX_RUNS];
	unsigned n;
	bool png;
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
	if (n) /* v is NULL for a header-only fct.csv */
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

/* The lanes of collectives.csv's rows: the index of its `dim` column's
 * value in plot_lanes (0 for none, or a file without the column). */
static const char *const plot_lanes[] = { "other", "TP", "DP", "EP", "PP", "DP_EP" };
#define PLOT_LANES 6

static void read_lanes(const char *path, size_t n, unsigned char *lane)
{
	memset(lane, 0, n);
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int col = -1;
	if (f && getline(&line, &cap, f) > 0) {
		int k = 0;
		for (char *c = strtok(line, ",\n"); c; c = strtok(NULL, ",\n"), k++)
			if (!strcmp(c, "dim"))
				col = k;
	}
	for (size_t r = 0; f && col >= 0 && r < n && getline(&line, &cap, f) > 0; r++) {
		const char *c = line;
		for (int k = 0; k < col && c; k++)
			c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
		for (unsigned d = 1; c && d < PLOT_LANES; d++) {
			size_t l = strlen(plot_lanes[d]);
			if (!strncmp(c, plot_lanes[d], l) && (c[l] == ',' || c[l] == '\n'))
				lane[r] = (unsigned char)d;
		}
	}
	free(line);
	if (f)
		fclose(f);
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

/* The node levels a run's summary.json lists; *n 0 when it lists none. */
static struct level_run *read_levels(const char *dir, size_t *n)
{
	char path[4200], *text = NULL;
	size_t cap = 0;
	snprintf(path, sizeof path, "%s/summary.json", dir);
	*n = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	ssize_t len = getdelim(&text, &cap, '\0', f);
	fclose(f);
	const char *at = len > 0 ? strstr(text, "\"node_levels\": [") : NULL;
	const char *end = at ? strchr(at, ']') : NULL;
	struct level_run *runs = NULL;
	size_t max = 0;
	while (at && (at = strstr(at, "\"first\": ")) && at < end) {
		struct level_run r;
		const char *c = strstr(at, "\"count\": "), *l = strstr(at, "\"level\": ");
		if (!c || !l || l > end)
			break;
		r.first = strtoul(at + 9, NULL, 10);
		r.count = strtoul(c + 9, NULL, 10);
		r.level = strtoul(l + 9, NULL, 10);
		if (*n == max)
			runs = tool_xrealloc(runs, max = max ? 2 * max : 8, sizeof *runs);
		runs[(*n)++] = r;
		at = l;
	}
	free(text);
	return runs;
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
	struct level_run *lv = read_levels(p->run[i].dir, &n_lv);
	if (!n_lv) {
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
	if (!rc)
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
		fprintf(f, "%s'link_load-%u.dat' using 1:3:2:6:5 with candlesticks "
			"whiskerbars lc %u title '%s', \\\n     '' using 1:4:4:4:4 with "
			"candlesticks lc %u lw 2 notitle, \\\n     '' using 1:7 with "
			"points pt 2 lc %u notitle", sep, i, i + 1, p->run[i].label, i + 1, i + 1);
		sep = ", \\\n     ";
	}
	fputs("\nset xtics autofreq\nset xrange [*:*]\nset yrange [*:*]\n"
	      "set style fill empty\n", f);
}

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

/* The routing rule's `lb` parameter in a run's summary.json ("" if the
 * rule has none): how the run balanced load, for its label. */
static void routing_lb(const char *dir, char *lb, size_t n)
{
	char path[4200], *text = NULL;
	size_t cap = 0;
	snprintf(path, sizeof path, "%s/summary.json", dir);
	lb[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	ssize_t len = getdelim(&text, &cap, '\0', f);
	fclose(f);
	const char *at = len > 0 ? strstr(text, "\"plugins\": {") : NULL;
	at = at ? strstr(at, "\"routing\": {") : NULL;
	at = at ? strstr(at, "\"params\": {") : NULL;
	const char *end = at ? strchr(at, '}') : NULL, *v = at ? strstr(at, "\"lb\": \"") : NULL;
	if (v && v < end) {
		v += strlen("\"lb\": \"");
		snprintf(lb, n, "%.*s", (int)strcspn(v, "\""), v);
	}
	free(text);
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
	routing_lb(r->dir, lb, sizeof lb);
	snprintf(what, sizeof what, "%s%s%s%s", cc, cc[0] && lb[0] ? ", " : "",
		 lb[0] ? "lb " : "", lb);
	snprintf(r->label, sizeof r->label, "%s%s%s%s", b ? b + 1 : tmp, what[0] ? " (" : "",
		 what, what[0] ? ")" : "");
	for (char *c = r->label; *c; c++)
		if (*c == '\'' || *c == '_')
			*c = *c == '_' ? ' ' : '"';
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
	if (!any(p, RUN_FLAG(cdf))) {
		fprintf(stderr, "warpsim plot: no completed flows in %s (expected the "
			"output directories of warpsim run)\n", p->n == 1 ? dirs[0] : "any run");
		return EXIT_INPUT;
	}
	if (write_link_load(p) || write_script(p, p->png)) {
		tool_print_error(&p->err);
		return EXIT_RUN;
	}
	return 0;
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
	struct plot p = { .n = (unsigned)n, .png = a.png };
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
	for (unsigned i = 0; i < p.n; i++)
		free(p.run[i].groups);
	forget_written(&p, rc == 0);
	if (rc) {
		if (made)
			rmdir(out);
		return rc;
	}
	printf("warpsim %s: plot %d run%s into %s\n", WS_VERSION, n, n == 1 ? "" : "s", out);
	return plot_render(&p, &a);
}
