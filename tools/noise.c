/* SPDX-License-Identifier: MIT */
/*
 * `warpsim compare --noise BASE TWIN [TWIN ...] CANDIDATE`: the error of
 * a candidate run (an accelerated copy of BASE) next to the noise floor of
 * BASE itself.
 *
 * Packet-level runs of contended traffic are chaotic: moving every flow's
 * start by a few picoseconds ([sim] perturb) reorders packets at some
 * queue, a CC reacts to one mark more or less, and a 1,000-flow WebSearch
 * run's FCTs move by about 10 % (mean) flow by flow.  An accelerator's
 * per-flow error against one packet run is therefore only meaningful next
 * to what such a negligible change already does.  A twin is BASE run
 * again with [sim] perturb set (another perturb_seed, another twin); the
 * "noise band" of each figure is the largest error of the twins against
 * BASE, and each row says whether the candidate's error is within it or
 * how many times above it.
 *
 * Every figure comes from the comparisons `warpsim compare` makes
 * (ws_compare_runs: FCT mean/p50/p99 |relative error|, the signed bias,
 * and each metric the workload declares, e.g. the iteration time or a
 * collective's time; ws_compare_by_size: FCT errors in buckets of equal
 * flow count by size, cut from BASE's flows so every run is measured on
 * the same flows).  This file only chooses the rows and reports them.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "tools.h"

#define NOISE_MAX_TWINS 8
/* fct mean/p50/p99/bias, mean and p99 per size bucket, mean and max per metric */
#define NOISE_MAX_ROWS (4 + 2 * WS_COMPARE_MAX_BUCKETS + 2 * 2 * WS_COMPARE_MAX_METRICS)

/* one figure: the candidate's error and each twin's, against BASE */
struct noise_row {
	char what[WS_COMPARE_NAME_MAX];  /* "fct", "fct_by_size" or a metric's name */
	const char *stat;                /* "mean", "p50", "p99", "|bias|", "max" */
	uint64_t min_bytes, max_bytes;   /* fct_by_size: BASE's flows in the bucket */
	uint32_t n;                      /* flows (or metric rows) the candidate matched */
	double err[NOISE_MAX_TWINS + 1]; /* twins 0..n_twins-1, then the candidate */
	double band;                     /* the largest twin error; NaN: none */
};

struct noise_table {
	struct noise_row row[NOISE_MAX_ROWS];
	unsigned n_rows;
	unsigned n_twins;
	unsigned n_buckets;
};

/* what one run gives against BASE */
struct noise_errs {
	struct ws_compare c;
	struct ws_size_bucket size[WS_COMPARE_MAX_BUCKETS];
};

/* ---- the checks ----------------------------------------------------------------- */

/* [sim] perturb of a run, from its summary.json (ps; -1: not recorded) */
static double run_perturb(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/summary.json", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *text = NULL;
	size_t cap = 0;
	ssize_t len = getdelim(&text, &cap, '\0', f);
	fclose(f);
	const char *p = len > 0 ? strstr(text, "\"kernel\": {") : NULL;
	p = p ? strstr(p, "\"sim\": {") : NULL;
	p = p ? strstr(p, "\"perturb_ps\": ") : NULL;
	double v = p ? strtod(p + strlen("\"perturb_ps\": "), NULL) : -1;
	free(text);
	return v;
}

static bool same_dir(const char *x, const char *y)
{
	struct stat a, b;
	if (stat(x, &a) || stat(y, &b))
		return !strcmp(x, y);
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The runs make a noise comparison: distinct directories, BASE and the
 * twins packet level, every run on BASE's fabric. */
static bool noise_args_ok(const char *const *dir, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = i + 1; k < n; k++)
			if (same_dir(dir[i], dir[k])) {
				fprintf(stderr, "warpsim compare --noise: %s is given twice "
					"(arguments %u and %u): BASE, each TWIN and CANDIDATE "
					"must be different runs\n", dir[k], i + 1, k + 1);
				return false;
			}
	for (unsigned i = 0; i + 1 < n; i++) {
		char acc[64];
		tool_summary_plugin(dir[i], "accel", acc, sizeof acc);
		if (acc[0] && strcmp(acc, "none")) {
			fprintf(stderr, "warpsim compare --noise: %s (the %s) ran with [accel] "
				"name = %s: the base and its twins must be packet-level runs "
				"([accel] name = none); the accelerated run goes last, as "
				"CANDIDATE\n", dir[i], i ? "twin" : "base", acc);
			return false;
		}
	}
	for (unsigned i = 1; i < n; i++)
		if (!tool_same_fabric(dir[0], dir[i]))
			return false;
	return true;
}

/* ---- the rows ------------------------------------------------------------------- */

static unsigned put(struct noise_table *t, unsigned r, unsigned k, const char *what,
		    const char *stat, const struct ws_size_bucket *b, uint32_t n,
		    double v)
{
	struct noise_row *row = &t->row[r];
	if (k == 0) {
		memset(row, 0, sizeof *row);
		snprintf(row->what, sizeof row->what, "%s", what);
		row->stat = stat;
		if (b) {
			row->min_bytes = b->min_bytes;
			row->max_bytes = b->max_bytes;
		}
	}
	if (k == t->n_twins)
		row->n = n;
	row->err[k] = v;
	return r + 1;
}

/* The rows of run k (a twin, or the candidate when k == n_twins), in an
 * order fixed by BASE alone (its buckets, its metrics first in
 * ws_compare's list), so the rows of every run line up. */
static void fill_rows(struct noise_table *t, const struct noise_errs *e, unsigned k)
{
	const struct ws_compare *c = &e->c;
	unsigned r = 0;
	r = put(t, r, k, "fct", "mean", NULL, c->matched, c->fct_mean);
	r = put(t, r, k, "fct", "p50", NULL, c->matched, c->fct_p50);
	r = put(t, r, k, "fct", "p99", NULL, c->matched, c->fct_p99);
	r = put(t, r, k, "fct", "|bias|", NULL, c->matched, fabs(c->fct_bias));
	for (unsigned b = 0; b < t->n_buckets; b++) {
		const struct ws_size_bucket *s = &e->size[b];
		r = put(t, r, k, "fct_by_size", "mean", s, s->matched, s->mean);
		r = put(t, r, k, "fct_by_size", "p99", s, s->matched, s->p99);
	}
	for (uint32_t i = 0; i < c->n_metrics && c->metrics[i].in_a; i++) {
		const struct ws_compare_metric *m = &c->metrics[i];
		double mean = m->in_b ? m->mean : NAN, max = m->in_b ? m->max : NAN;
		r = put(t, r, k, m->decl.name, "mean", NULL, m->matched, mean);
		r = put(t, r, k, m->decl.name, "max", NULL, m->matched, max);
	}
	if (k == 0 || r < t->n_rows)
		t->n_rows = r;
}

static void set_bands(struct noise_table *t)
{
	for (unsigned r = 0; r < t->n_rows; r++) {
		struct noise_row *row = &t->row[r];
		row->band = NAN;
		for (unsigned k = 0; k < t->n_twins; k++)
			if (!isnan(row->err[k]) && !(row->err[k] <= row->band))
				row->band = row->err[k];
	}
}

static double cand_err(const struct noise_table *t, const struct noise_row *row)
{
	return row->err[t->n_twins];
}

/* The candidate's error over the band; NaN when either is undefined or the
 * band is 0. */
static double noise_ratio(const struct noise_table *t, const struct noise_row *row)
{
	double c = cand_err(t, row), b = row->band;
	return isnan(c) || !(b > 0) ? NAN : c / b;
}

static bool within_noise(const struct noise_table *t, const struct noise_row *row)
{
	return cand_err(t, row) <= row->band;
}

/* "within noise", "above noise (3.2 times)", "above noise (twin exact)", "n/a" */
static const char *verdict(const struct noise_table *t, const struct noise_row *row,
			   char *buf, size_t n)
{
	double c = cand_err(t, row), b = row->band;
	if (isnan(c) || isnan(b))
		snprintf(buf, n, "n/a");
	else if (c <= b)
		snprintf(buf, n, "within noise");
	else if (b == 0)
		snprintf(buf, n, "above noise (twin exact)");
	else
		snprintf(buf, n, "above noise (%.3g times)", c / b);
	return buf;
}

/* ---- the report ----------------------------------------------------------------- */

static const char *fmt_err(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.3g%%", v * 100);
	return buf;
}

/* bytes exact below 10 KB (buckets of short flows are a few bytes apart) */
static const char *fmt_bytes(char *buf, size_t n, uint64_t bytes)
{
	if (bytes >= 1000000)
		snprintf(buf, n, "%.4gMB", (double)bytes / 1e6);
	else if (bytes >= 10000)
		snprintf(buf, n, "%.4gKB", (double)bytes / 1e3);
	else
		snprintf(buf, n, "%" PRIu64 "B", bytes);
	return buf;
}

/* "FCT mean", "FCT p99 1KB-10KB", "iteration max" */
static const char *row_label(const struct noise_row *row, char *buf, size_t n)
{
	char lo[16], hi[16];
	if (!strcmp(row->what, "fct"))
		snprintf(buf, n, "FCT %s", row->stat);
	else if (!strcmp(row->what, "fct_by_size") && row->min_bytes == row->max_bytes)
		snprintf(buf, n, "FCT %s %s", row->stat,
			 fmt_bytes(lo, sizeof lo, row->min_bytes));
	else if (!strcmp(row->what, "fct_by_size"))
		snprintf(buf, n, "FCT %s %s-%s", row->stat,
			 fmt_bytes(lo, sizeof lo, row->min_bytes),
			 fmt_bytes(hi, sizeof hi, row->max_bytes));
	else
		snprintf(buf, n, "%s %s", row->what, row->stat);
	return buf;
}

static void print_head(const struct noise_table *t, const char *const *dir,
		       const struct noise_errs *e)
{
	const struct ws_compare *c = &e[t->n_twins].c;
	char acc[64], p[2][32];
	tool_summary_plugin(dir[t->n_twins + 1], "accel", acc, sizeof acc);
	printf("warpsim %s: compare --noise: the candidate's errors against the base, "
	       "next to %u perturbed twin%s of the base (the noise band: the largest "
	       "twin error)\n", WS_VERSION, t->n_twins, t->n_twins > 1 ? "s" : "");
	printf("  base       %s\n", dir[0]);
	for (unsigned k = 0; k < t->n_twins; k++) {
		double ps = run_perturb(dir[k + 1]);
		printf("  twin %-5u %s (", k + 1, dir[k + 1]);
		if (ps > 0)
			printf("perturb %.0f ps", ps);
		else
			printf("not run with [sim] perturb");
		printf("): %u of %u flows matched\n", e[k].c.matched, e[k].c.flows_a);
	}
	snprintf(p[0], sizeof p[0], isfinite(c->event_ratio) ? "%.2f" : "n/a", c->event_ratio);
	snprintf(p[1], sizeof p[1], isfinite(c->cpu_speedup) ? "%.2f" : "n/a", c->cpu_speedup);
	printf("  candidate  %s (accel %s): %u of %u flows matched; events ratio %s, "
	       "CPU speedup %s\n", dir[t->n_twins + 1], acc[0] ? acc : "?", c->matched,
	       c->flows_a, p[0], p[1]);
}

static void print_noise(const struct noise_table *t, const char *const *dir,
			const struct noise_errs *e)
{
	char l[96], v[3][48];
	print_head(t, dir, e);
	printf("  %-30s %7s %11s %11s  %s\n", "|relative error|", "n", "candidate",
	       "noise band", "verdict");
	unsigned judged = 0, within = 0;
	for (unsigned r = 0; r < t->n_rows; r++) {
		const struct noise_row *row = &t->row[r];
		printf("  %-30s %7u %11s %11s  %s\n", row_label(row, l, sizeof l), row->n,
		       fmt_err(v[0], sizeof v[0], cand_err(t, row)),
		       fmt_err(v[1], sizeof v[1], row->band),
		       verdict(t, row, v[2], sizeof v[2]));
		if (!isnan(cand_err(t, row)) && !isnan(row->band)) {
			judged++;
			within += within_noise(t, row);
		}
	}
	/* a candidate that were one more twin exceeds the largest of n twins
	 * with probability 1 / (n + 1) in each row */
	printf("  %u of %u rows within noise; a run no further from the base than a "
	       "twin would be above in about %.1f of them (1 in %u)\n", within, judged,
	       (double)judged / (t->n_twins + 1), t->n_twins + 1);
}

static void csv_num(FILE *f, double v)
{
	if (!isnan(v))
		fprintf(f, "%.10g", v);
}

static int noise_csv(const struct noise_table *t, const char *path)
{
	struct ws_err err;
	struct ws_outfile *o = tool_outfile_open(path, &err);
	if (!o) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	FILE *f = ws_outfile_stream(o);
	fputs("what,stat,min_bytes,max_bytes,n,candidate,band,ratio,within_noise", f);
	for (unsigned k = 0; k < t->n_twins; k++)
		fprintf(f, ",twin_%u", k + 1);
	fputc('\n', f);
	for (unsigned r = 0; r < t->n_rows; r++) {
		const struct noise_row *row = &t->row[r];
		bool sized = !strcmp(row->what, "fct_by_size");
		fprintf(f, "%s,%s,", row->what, row->stat);
		if (sized)
			fprintf(f, "%" PRIu64 ",%" PRIu64, row->min_bytes, row->max_bytes);
		else
			fputc(',', f);
		fprintf(f, ",%u,", row->n);
		csv_num(f, cand_err(t, row));
		fputc(',', f);
		csv_num(f, row->band);
		fputc(',', f);
		csv_num(f, noise_ratio(t, row));
		fprintf(f, ",%s", isnan(cand_err(t, row)) || isnan(row->band) ? "" :
			within_noise(t, row) ? "true" : "false");
		for (unsigned k = 0; k < t->n_twins; k++) {
			fputc(',', f);
			csv_num(f, row->err[k]);
		}
		fputc('\n', f);
	}
	if (ws_outfile_commit(o, &err)) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	return 0;
}

static void json_row(struct ws_json *j, const struct noise_table *t,
		     const struct noise_row *row)
{
	char v[48];
	ws_json_begin(j, NULL);
	ws_json_str(j, "what", row->what);
	ws_json_str(j, "stat", row->stat);
	if (!strcmp(row->what, "fct_by_size")) {
		ws_json_u64(j, "min_bytes", row->min_bytes);
		ws_json_u64(j, "max_bytes", row->max_bytes);
	}
	ws_json_u64(j, "n", row->n);
	ws_json_f64(j, "candidate", cand_err(t, row));
	ws_json_f64(j, "band", row->band);
	ws_json_f64(j, "ratio", noise_ratio(t, row));
	ws_json_str(j, "verdict", verdict(t, row, v, sizeof v));
	ws_json_begin_array(j, "twins");
	for (unsigned k = 0; k < t->n_twins; k++)
		ws_json_f64(j, NULL, row->err[k]);
	ws_json_end_array(j);
	ws_json_end(j);
}

static int noise_json(const struct noise_table *t, const char *const *dir,
		      const struct noise_errs *e, const char *path)
{
	struct ws_err err;
	struct ws_outfile *o = tool_outfile_open(path, &err);
	if (!o) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	const struct ws_compare *c = &e[t->n_twins].c;
	struct ws_json *j = ws_json_new(ws_outfile_stream(o));
	ws_json_begin(j, NULL);
	ws_json_str(j, "mode", "noise");
	ws_json_str(j, "base", dir[0]);
	ws_json_begin_array(j, "twins");
	for (unsigned k = 0; k < t->n_twins; k++)
		ws_json_str(j, NULL, dir[k + 1]);
	ws_json_end_array(j);
	ws_json_str(j, "candidate", dir[t->n_twins + 1]);
	ws_json_f64(j, "event_ratio", c->event_ratio);
	ws_json_f64(j, "cpu_speedup", c->cpu_speedup);
	ws_json_begin_array(j, "rows");
	for (unsigned r = 0; r < t->n_rows; r++)
		json_row(j, t, &t->row[r]);
	ws_json_end_array(j);
	ws_json_finish(j);
	if (ws_outfile_commit(o, &err)) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	return 0;
}

/* ---- the mode ------------------------------------------------------------------- */

/* Run dir's errors against BASE: the flows, the declared metrics and the
 * size buckets. */
static int noise_errors(const char *base, const char *dir, unsigned n_buckets,
			struct noise_errs *e)
{
	struct ws_err err;
	int rc = ws_compare_runs(base, dir, &e->c, NULL, &err);
	if (!rc)
		rc = ws_compare_by_size(base, dir, n_buckets, e->size, &err);
	if (rc) {
		tool_print_error(&err);
		return rc == WS_EIO ? EXIT_RUN : EXIT_INPUT;
	}
	if (!e->c.matched) {
		fprintf(stderr, "warpsim compare --noise: no flow completed in the base %s "
			"is in %s (%u in the base, %u there): unrelated runs, or one "
			"stopped before any flow finished\n", base, dir, e->c.flows_a,
			e->c.flows_b);
		return EXIT_INPUT;
	}
	return 0;
}

/* A twin the same as the base to the ps gives a band of 0: say so. */
static void note_exact_twins(const struct noise_table *t, const char *const *dir,
			     const struct noise_errs *e)
{
	for (unsigned k = 0; k < t->n_twins; k++)
		if (e[k].c.fct_max == 0 && run_perturb(dir[k + 1]) <= 0)
			fprintf(stderr, "warpsim compare --noise: note: twin %s has the "
				"base's FCTs exactly and was not run with [sim] perturb: "
				"a twin is the base run again with --set sim.perturb=10ps "
				"(docs/acceleration.md)\n", dir[k + 1]);
}

int tool_compare_noise(const char *const *dir, unsigned n, unsigned n_buckets,
		       const char *csv, const char *json)
{
	if (n < 3 || n - 2 > NOISE_MAX_TWINS) {
		fprintf(stderr, "warpsim compare --noise: expected BASE TWIN [TWIN ...] "
			"CANDIDATE (3 to %d run directories: the packet-level base, 1 to "
			"%d perturbed twins of it, the run to judge), got %u\n",
			NOISE_MAX_TWINS + 2, NOISE_MAX_TWINS, n);
		return EXIT_INPUT;
	}
	if (!noise_args_ok(dir, n))
		return EXIT_INPUT;
	struct noise_table *t = tool_xcalloc(1, sizeof *t);
	struct noise_errs *e = tool_xcalloc(n - 1, sizeof *e);
	t->n_twins = n - 2;
	t->n_buckets = n_buckets;
	int rc = 0;
	for (unsigned k = 0; !rc && k + 1 < n; k++)
		rc = noise_errors(dir[0], dir[k + 1], n_buckets, &e[k]);
	for (unsigned k = 0; !rc && k + 1 < n; k++)
		fill_rows(t, &e[k], k);
	if (!rc) {
		set_bands(t);
		note_exact_twins(t, dir, e);
		print_noise(t, dir, e);
		if (csv)
			rc = noise_csv(t, csv);
		if (!rc && json)
			rc = noise_json(t, dir, e, json);
	}
	free(e);
	free(t);
	return rc;
}
