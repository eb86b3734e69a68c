/* SPDX-License-Identifier: MIT */
/*
 * `warpsim plot SWEEPDIR [--x AXIS] [--y METRIC] [--by AXIS]`: the figure a
 * sweep exists for, from its results.csv: one metric against one axis, one
 * line per value of another axis.  Defaults: x the first axis whose values
 * are all numbers (units allowed: 2MB, 10us, 0.5), by the first other axis
 * with more than one value, y slowdown_p99.  Rows whose status is not ok
 * are left out, and the axes that are neither x nor by (seeds, zipped
 * partners) are averaged over, each with a note.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csvin.h"
#include "plot.h"
#include "tools.h"

/* results.csv as text: the header and the rows, `cols` fields each (each
 * row one allocation, tool_csv_copy). */
struct sweep_table {
	char **head;
	char ***row;
	size_t n_rows;
	unsigned cols, first_axis, end_axis; /* axes: [first_axis, end_axis) */
};

static void table_free(struct sweep_table *t)
{
	for (size_t r = 0; r < t->n_rows; r++)
		free(t->row[r]);
	free(t->head);
	free(t->row);
}

/* results.csv through the tools' CSV reader (quotes as the sweep writes
 * them); an error names the file and line. */
static int table_read(const char *path, struct sweep_table *t)
{
	struct tool_csv c;
	struct ws_err err;
	int rc = tool_csv_open(&c, path, &err);
	if (!rc && strcmp(c.col[0], "experiment"))
		rc = ws_err_at(&err, WS_EINVAL, path, 1, "not a sweep's results.csv (its "
			       "first column is not 'experiment')");
	if (!rc) {
		t->head = tool_csv_copy(&c, true);
		t->cols = c.n_cols;
	}
	while (!rc && (rc = tool_csv_next(&c, &err)) == 1) {
		rc = WS_OK;
		t->row = tool_xrealloc(t->row, t->n_rows + 1, sizeof *t->row);
		t->row[t->n_rows++] = tool_csv_copy(&c, false);
	}
	tool_csv_close(&c);
	if (rc < 0) {
		tool_print_error(&err);
		return EXIT_INPUT;
	}
	return 0;
}

/* A column by name; -1 if none. */
static int col_of(const struct sweep_table *t, const char *name)
{
	for (unsigned c = 0; c < t->cols; c++)
		if (!strcmp(t->head[c], name))
			return (int)c;
	return -1;
}

/* A value as a number: decimal, with an optional SI prefix (n u m k K M G
 * T, binary with i) and unit letters (B, s, bps, ...); false when not. */
static bool value_num(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v))
		return false;
	static const char pre[] = "numkKMGT";
	static const int exp10[] = { -9, -6, -3, 3, 3, 6, 9, 12 };
	const char *p = *end ? strchr(pre, *end) : NULL;
	if (p && end[1] == 'i' && exp10[p - pre] > 0) /* KiB, MiB: powers of 1024 */
		v *= pow(1024, exp10[p - pre] / 3), end += 2;
	else if (p)
		v *= pow(10, exp10[p - pre]), end++;
	for (; *end; end++)
		if (!((*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z') || *end == '/'))
			return false;
	*out = v;
	return true;
}

/* The distinct values of column c over the rows (first appearance order). */
static size_t distinct(const struct sweep_table *t, unsigned c, const char **v)
{
	size_t n = 0;
	for (size_t r = 0; r < t->n_rows; r++) {
		size_t k = 0;
		while (k < n && strcmp(v[k], t->row[r][c]))
			k++;
		if (k == n)
			v[n++] = t->row[r][c];
	}
	return n;
}

static bool all_numeric(const struct sweep_table *t, unsigned c)
{
	double x;
	for (size_t r = 0; r < t->n_rows; r++)
		if (!value_num(t->row[r][c], &x))
			return false;
	return t->n_rows > 0;
}

/* Whether column a's value fixes column b's in every row. */
static bool determines(const struct sweep_table *t, unsigned a, unsigned b)
{
	for (size_t r = 0; r < t->n_rows; r++)
		for (size_t q = 0; q < r; q++)
			if (!strcmp(t->row[r][a], t->row[q][a]) && strcmp(t->row[r][b], t->row[q][b]))
				return false;
	return true;
}

/* A zip partner of an earlier axis (switch.ecn_kmin zipped with cc.name):
 * it follows that axis, so it is neither a default x nor a default by. */
static bool follows(const struct sweep_table *t, unsigned c)
{
	for (unsigned d = t->first_axis; d < c; d++)
		if (determines(t, d, c) && determines(t, c, d))
			return true;
	return false;
}

/* An axis named by the user (the exact column or its key after the dot). */
static int axis_named(const struct sweep_table *t, const char *name, const char *opt)
{
	for (unsigned c = t->first_axis; c < t->end_axis; c++) {
		const char *dot = strchr(t->head[c], '.');
		if (!strcmp(t->head[c], name) || (dot && !strcmp(dot + 1, name)))
			return (int)c;
	}
	fprintf(stderr, "warpsim plot: --%s %s: not an axis of the sweep (axes:", opt, name);
	for (unsigned c = t->first_axis; c < t->end_axis; c++)
		fprintf(stderr, " %s", t->head[c]);
	fputs(")\n", stderr);
	return -1;
}

/* The metric named by --y: a column after status, or slowdown_NAME. */
static int metric_named(const struct sweep_table *t, const char *name)
{
	char buf[128];
	int c = col_of(t, name);
	snprintf(buf, sizeof buf, "slowdown_%s", name);
	if (c < 0)
		c = col_of(t, buf);
	if (c > (int)t->end_axis)
		return c;
	fprintf(stderr, "warpsim plot: --y %s: not a metric of results.csv (metrics:", name);
	for (unsigned k = t->end_axis + 1; k < t->cols; k++)
		fprintf(stderr, " %s", t->head[k]);
	fputs(")\n", stderr);
	return -1;
}

/* x, by (-1: one line) and y from the options or the defaults. */
static int choose_columns(const struct sweep_table *t, const struct plot_args *a,
			  int *x, int *by, int *y)
{
	const char **v = tool_xcalloc(t->n_rows + 1, sizeof *v);
	int want_by = a->by ? axis_named(t, a->by, "by") : -1;
	if (a->by && want_by < 0) {
		free(v);
		return EXIT_INPUT;
	}
	*x = a->x ? axis_named(t, a->x, "x") : -1;
	size_t best = 1;
	for (unsigned c = t->first_axis; !a->x && c < t->end_axis; c++) {
		size_t n = distinct(t, c, v);
		if (n > best && all_numeric(t, c) && !follows(t, c) && (int)c != want_by)
			*x = (int)c, best = n; /* the numeric axis with the most values */
	}
	for (unsigned c = t->first_axis; !a->x && c < t->end_axis && *x < 0; c++)
		if (distinct(t, c, v) > 1 && (int)c != want_by)
			*x = (int)c; /* no numeric axis: the first that varies, as categories */
	if (*x < 0) {
		free(v);
		if (!a->x)
			fprintf(stderr, "warpsim plot: the sweep has no axis with more than "
				"one value: nothing to draw against\n");
		return EXIT_INPUT;
	}
	*by = want_by;
	for (unsigned c = t->first_axis; !a->by && c < t->end_axis && *by < 0; c++)
		if ((int)c != *x && distinct(t, c, v) > 1 && !follows(t, c) &&
		    !determines(t, (unsigned)*x, c))
			*by = (int)c;
	*y = metric_named(t, a->y ? a->y : "p99");
	free(v);
	if (*y < 0)
		return EXIT_INPUT;
	if (*by == *x) {
		fprintf(stderr, "warpsim plot: --x and --by name the same axis, %s\n",
			t->head[*x]);
		return EXIT_INPUT;
	}
	return 0;
}

/* One point of a series: the mean of y over the rows with these values. */
struct sweep_point {
	double sum;
	unsigned n;
};

/* The notes: rows left out, axes averaged over. */
static void sweep_notes(const struct sweep_table *t, int x, int by, size_t skipped,
			size_t no_value)
{
	const char **v = tool_xcalloc(t->n_rows + 1, sizeof *v);
	for (unsigned c = t->first_axis; c < t->end_axis; c++) {
		size_t n = distinct(t, c, v);
		if ((int)c != x && (int)c != by && n > 1 && !determines(t, (unsigned)x, c) &&
		    (by < 0 || !determines(t, (unsigned)by, c)))
			fprintf(stderr, "warpsim plot: note: each point is the mean over %s "
				"(%zu values)\n", t->head[c], n);
	}
	free(v);
	if (skipped)
		fprintf(stderr, "warpsim plot: note: %zu experiment%s whose status is not ok "
			"left out\n", skipped, skipped == 1 ? "" : "s");
	if (no_value)
		fprintf(stderr, "warpsim plot: note: %zu experiment%s with no value for "
			"the metric left out\n", no_value, no_value == 1 ? "" : "s");
}

static int cmp_num(const void *a, const void *b)
{
	const double *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

/* The x positions: the values' numbers sorted (numeric), else their order. */
struct sweep_axis {
	const char **val;
	double *pos;
	size_t n;
	bool numeric;
};

static void axis_positions(const struct sweep_table *t, int x, struct sweep_axis *ax)
{
	ax->val = tool_xcalloc(t->n_rows + 1, sizeof *ax->val);
	ax->n = distinct(t, (unsigned)x, ax->val);
	ax->pos = tool_xcalloc(ax->n + 1, sizeof *ax->pos);
	ax->numeric = all_numeric(t, (unsigned)x);
	for (size_t k = 0; k < ax->n; k++)
		if (!ax->numeric || !value_num(ax->val[k], &ax->pos[k]))
			ax->pos[k] = (double)k;
}

static size_t index_of(const char **v, size_t n, const char *s)
{
	size_t k = 0;
	while (k < n && strcmp(v[k], s))
		k++;
	return k;
}

/* The data file: one block per series, rows "x y experiments" in x order. */
static int write_series(FILE *f, const struct sweep_table *t, int x, int by, int y,
			const struct sweep_axis *ax, const char **ser, size_t n_ser)
{
	struct sweep_point *pt = tool_xcalloc(n_ser * ax->n + 1, sizeof *pt);
	size_t skipped = 0, no_value = 0;
	int st = col_of(t, "status");
	for (size_t r = 0; r < t->n_rows; r++) {
		char **row = t->row[r];
		double v;
		if (strcmp(row[st], "ok")) {
			skipped++;
			continue;
		}
		if (!value_num(row[y], &v)) {
			no_value++;
			continue;
		}
		size_t s = by < 0 ? 0 : index_of(ser, n_ser, row[by]);
		struct sweep_point *p = &pt[s * ax->n + index_of(ax->val, ax->n, row[x])];
		p->sum += v;
		p->n++;
	}
	sweep_notes(t, x, by, skipped, no_value);
	size_t *order = tool_xcalloc(ax->n + 1, sizeof *order);
	double (*key)[2] = tool_xcalloc(ax->n + 1, sizeof *key);
	for (size_t k = 0; k < ax->n; k++)
		key[k][0] = ax->pos[k], key[k][1] = (double)k;
	qsort(key, ax->n, sizeof *key, cmp_num);
	for (size_t k = 0; k < ax->n; k++)
		order[k] = (size_t)key[k][1];
	size_t points = 0;
	for (size_t s = 0; s < n_ser; s++) {
		fprintf(f, "# %s = %s\n", by < 0 ? "all" : t->head[by], by < 0 ? "" : ser[s]);
		for (size_t k = 0; k < ax->n; k++) {
			const struct sweep_point *p = &pt[s * ax->n + order[k]];
			if (p->n)
				fprintf(f, "%.9g %.9g %u\n", ax->pos[order[k]], p->sum / p->n, p->n);
			points += p->n > 0;
		}
		fputs("\n\n", f);
	}
	free(key);
	free(order);
	free(pt);
	if (!points)
		fprintf(stderr, "warpsim plot: no experiment of the sweep has status ok and "
			"a value of %s: nothing to draw\n", t->head[y]);
	return points ? 0 : EXIT_INPUT;
}

/* The x axis: the values themselves as tick labels (up to 16), log scale
 * when numeric and spanning two decades. */
static void script_xaxis(FILE *f, const struct sweep_axis *ax)
{
	double lo = INFINITY, hi = -INFINITY;
	for (size_t k = 0; k < ax->n; k++)
		lo = fmin(lo, ax->pos[k]), hi = fmax(hi, ax->pos[k]);
	if (ax->numeric && lo > 0 && hi / lo >= 100)
		fputs("set logscale x\n", f);
	if (ax->n <= 16) {
		fputs("set xtics (", f);
		for (size_t k = 0; k < ax->n; k++) {
			char lab[128];
			snprintf(lab, sizeof lab, "%s", ax->val[k]);
			plot_label(lab);
			fprintf(f, "%s'%s' %.9g", k ? ", " : "", lab, ax->pos[k]);
		}
		fputs(")\n", f);
	}
	if (!ax->numeric || ax->n == 1)
		fprintf(f, "set xrange [%.9g:%.9g]\n", lo - 0.5, hi + 0.5);
	else if (lo > 0 && hi / lo >= 100)
		fprintf(f, "set xrange [%.9g:%.9g]\n", lo / 1.3, hi * 1.3);
	else
		fprintf(f, "set xrange [%.9g:%.9g]\n", lo - (hi - lo) * 0.05, hi + (hi - lo) * 0.05);
}

static int write_script(const char *out, const struct sweep_table *t, int x, int by,
			int y, const struct sweep_axis *ax, const char **ser, size_t n_ser,
			const char *name, bool png)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/plot.gp", out);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "warpsim plot: cannot write %s: %s\n", path, strerror(errno));
		return EXIT_RUN;
	}
	fprintf(f, "# written by warpsim plot; run from this directory: gnuplot plot.gp\n"
		"set terminal %s size 900,560\nset grid\nset key outside right top\n",
		png ? "pngcairo" : "svg dynamic");
	plot_styles(f);
	char ylab[128], xlab[128], bylab[128];
	snprintf(ylab, sizeof ylab, "%s", t->head[y]);
	snprintf(xlab, sizeof xlab, "%s", t->head[x]);
	snprintf(bylab, sizeof bylab, "%s", by < 0 ? "" : t->head[by]);
	plot_label(ylab), plot_label(xlab), plot_label(bylab);
	fprintf(f, "set output '%s.%s'\nset title '%s against %s%s%s'\nset xlabel '%s'\n"
		"set ylabel '%s'\n", name, png ? "png" : "svg", ylab, xlab,
		by < 0 ? "" : ", one line per ", bylab, xlab, ylab);
	script_xaxis(f, ax);
	fputs("set offsets 0, 0, graph 0.05, graph 0.05\n", f);
	if (by >= 0)
		fprintf(f, "set key title '%s'\n", bylab);
	for (size_t s = 0; s < n_ser; s++) {
		char lab[128];
		snprintf(lab, sizeof lab, "%s", by < 0 ? ylab : ser[s]);
		plot_label(lab);
		fprintf(f, "%s'%s.dat' index %zu using 1:2 with linespoints ls %zu title '%s'",
			s ? ", \\\n     " : "plot ", name, s, s % PLOT_STYLES + 1, lab);
	}
	fputs("\n", f);
	bool bad = ferror(f);
	if (fclose(f) || bad) {
		fprintf(stderr, "warpsim plot: write failed: %s\n", path);
		return EXIT_RUN;
	}
	return 0;
}

/* The figure's name: y_vs_x with the dots of keys kept readable. */
static void figure_name(char *name, size_t n, const char *y, const char *x)
{
	snprintf(name, n, "%s_vs_%s", y, x);
	for (char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' || *c == '-'))
			*c = '_';
}

static int sweep_figure(const char *out, const struct sweep_table *t, const struct plot_args *a)
{
	int x, by, y, rc = choose_columns(t, a, &x, &by, &y);
	if (rc)
		return rc;
	struct sweep_axis ax;
	axis_positions(t, x, &ax);
	const char **ser = tool_xcalloc(t->n_rows + 1, sizeof *ser);
	size_t n_ser = by < 0 ? 1 : distinct(t, (unsigned)by, ser);
	char name[300], path[4600];
	figure_name(name, sizeof name, t->head[y], t->head[x]);
	snprintf(path, sizeof path, "%s/%s.dat", out, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "warpsim plot: cannot write %s: %s\n", path, strerror(errno));
		rc = EXIT_RUN;
	} else {
		fprintf(f, "# %s %s experiments (one block per %s)\n", t->head[x], t->head[y],
			by < 0 ? "sweep" : t->head[by]);
		rc = write_series(f, t, x, by, y, &ax, ser, n_ser);
		if ((fclose(f) || rc) && !rc)
			rc = EXIT_RUN;
	}
	if (!rc)
		rc = write_script(out, t, x, by, y, &ax, ser, n_ser, name, a->png);
	if (!rc)
		printf("warpsim %s: plot %s against %s%s%s (%zu line%s) into %s\n", WS_VERSION,
		       t->head[y], t->head[x], by < 0 ? "" : " by ", by < 0 ? "" : t->head[by],
		       n_ser, n_ser == 1 ? "" : "s", out);
	free(ser);
	free(ax.val);
	free(ax.pos);
	return rc;
}

int plot_sweep(const char *dir, const struct plot_args *a)
{
	char path[4200], out[4200];
	snprintf(path, sizeof path, "%s/results.csv", dir);
	struct sweep_table t = { 0 };
	int rc = table_read(path, &t);
	int st = rc ? -1 : col_of(&t, "status");
	if (!rc && st < 2) {
		fprintf(stderr, "warpsim plot: %s: no 'status' column after the axes (not a "
			"sweep's results.csv?)\n", path);
		rc = EXIT_INPUT;
	}
	if (!rc && !t.n_rows) {
		fprintf(stderr, "warpsim plot: %s: no experiments\n", path);
		rc = EXIT_INPUT;
	}
	t.first_axis = 1;
	t.end_axis = st > 0 ? (unsigned)st : 1;
	snprintf(out, sizeof out, "%s", a->out ? a->out : dir);
	if (!a->out)
		strncat(out, "/plots", sizeof out - strlen(out) - 1);
	bool made = false;
	if (!rc) {
		made = mkdir(out, 0777) == 0;
		if (!made && errno != EEXIST) {
			fprintf(stderr, "warpsim plot: cannot create %s: %s\n", out, strerror(errno));
			rc = EXIT_RUN;
		}
	}
	if (!rc)
		rc = sweep_figure(out, &t, a);
	table_free(&t);
	if (rc) {
		if (made)
			rmdir(out);
		return rc;
	}
	return plot_render(out, a);
}
