/* SPDX-License-Identifier: MIT */
/*
 * Comparing two runs (`warpsim compare RUN_A RUN_B`): how far run B, an
 * approximation (an acceleration plugin, another simulator's figures written
 * in our layout), is from run A, the reference (packet level).
 *
 * The inputs are two output directories of `warpsim run` (docs/outputs.md):
 * fct.csv, summary.json and the files of the metrics the workloads declare.
 * Flows are matched by flow id, or by tag when every tag is unique in both
 * runs: the training workloads create flows as others complete, so their
 * ids follow the timing, while their tags name each transfer of each
 * collective whatever the timing.  A matched pair must agree on src, dst
 * and bytes, otherwise the runs are not of the same scenario and the
 * comparison is refused.  Flows completed in only one run (one stopped
 * early, or left flows incomplete) are counted, not compared.
 *
 * What else to compare is the workload's to say, not ours: its report in
 * summary.json declares metrics ("workload": {"metrics": [{"name":
 * "iteration", "file": "iterations.csv", "key": "iteration", "value":
 * "duration_ns", ...}]}), each a file of one row per item, the column the
 * rows are matched by and the column compared.  A metric both runs declare
 * is compared row by row; one that only a run declares is reported skipped.
 *
 * The CSV files are read by column name, from their header (the header text
 * is written in one place, by whoever writes the file), and strictly: every
 * row as many fields as the header, integers as integers, times (columns
 * named *_ns) as nanoseconds with three decimals (exactly a number of
 * picoseconds, so they are compared as integers of ps), a final line end
 * (a truncated file is refused rather than half compared).  Every error
 * names the file and, where one applies, the line (csvin.c: libcsv under
 * the line checks).  summary.json is read with jansson (jsonin.c), and
 * only what is needed is taken, found by its place (results.events,
 * results.sim_time_ps, timing.run_s, workload.metrics): a plugin's own
 * report may reuse those key names deeper down, and a garbled or truncated
 * file must give an error, not a guess.
 *
 * Relative error: |B - A| / A; bias: the mean of the signed (B - A) / A;
 * percentiles nearest-rank, as for the slowdown in summary.json.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "csvin.h"
#include "jsonin.h"
#include "tools.h"

#define PATH_MAX_LEN 4200

/* one completed flow of fct.csv */
struct cmp_flow {
	uint32_t id, src, dst;
	uint32_t line;   /* in fct.csv, for messages */
	uint64_t bytes;
	uint64_t tag;
	uint64_t key;    /* what flows are matched by: id, or tag */
	ws_time fct;
};

/* one row of a metric's file */
struct cmp_row {
	uint64_t key;
	uint32_t line;
	bool exact;      /* a time: `ps` is exact */
	uint64_t ps;
	double num;      /* the value as a number (ns for a time) */
};

/* a metric's file, read */
struct cmp_table {
	char path[PATH_MAX_LEN];
	struct cmp_row *rows;
	size_t n;
};

struct cmp_run {
	const char *dir;
	char fct_path[PATH_MAX_LEN];
	char summary_path[PATH_MAX_LEN];
	struct cmp_flow *flows;
	size_t n_flows;
	struct ws_metric_decl decls[WS_COMPARE_MAX_METRICS]; /* workload.metrics */
	uint32_t n_decls;
	uint64_t events;
	ws_time sim_time;
	double run_s;
	double run_cpu_s; /* NaN: a summary.json of a warpsim before it */
};

/* ---- fields --------------------------------------------------------------------- */

static int field_num(struct tool_csv *c, unsigned i, const char *col, double *out,
		     struct ws_err *err);

int tool_table_read(const char *path, const char *const *cols, unsigned n_cols,
		    double **rows, size_t *n_rows, struct ws_err *err)
{
	struct tool_csv c;
	int at[TOOL_TABLE_MAX_COLS];
	size_t n = 0, cap = 0;
	*rows = NULL;
	*n_rows = 0;
	if (n_cols > TOOL_TABLE_MAX_COLS)
		return ws_err_set(err, WS_EINVAL, "too many columns");
	int rc = tool_csv_open(&c, path, err);
	for (unsigned k = 0; !rc && k < n_cols; k++)
		rc = tool_csv_col(&c, cols[k], "", &at[k], err);
	while (!rc && (rc = tool_csv_next(&c, err)) == 1) {
		rc = WS_OK;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			*rows = tool_xrealloc(*rows, cap * n_cols, sizeof **rows);
		}
		for (unsigned k = 0; !rc && k < n_cols; k++)
			rc = field_num(&c, (unsigned)at[k], cols[k], &(*rows)[n * n_cols + k],
				       err);
		n++;
	}
	tool_csv_close(&c);
	if (rc) {
		free(*rows);
		*rows = NULL;
		return rc;
	}
	*n_rows = n;
	return WS_OK;
}


static int field_u64(struct tool_csv *c, unsigned i, const char *col, uint64_t max,
		     uint64_t *out, struct ws_err *err)
{
	if (!ws_text_u64(c->field[i], out) || *out > max)
		return tool_csv_fail(c, err, "%s '%.40s': expected an integer 0..%" PRIu64,
				col, c->field[i], max);
	return WS_OK;
}

/* Nanoseconds with exactly three decimals: an exact number of ps. */
static int field_ns(struct tool_csv *c, unsigned i, const char *col, ws_time *out,
		    struct ws_err *err)
{
	const char *s = c->field[i];
	const char *dot = strchr(s, '.');
	char ns[32];
	uint64_t whole, frac;
	size_t n = dot ? (size_t)(dot - s) : 0;
	if (!dot || n == 0 || n >= sizeof ns || strlen(dot + 1) != 3)
		goto bad;
	memcpy(ns, s, n);
	ns[n] = '\0';
	if (!ws_text_u64(ns, &whole) || !ws_text_u64(dot + 1, &frac) ||
	    whole > (UINT64_MAX - 999) / 1000)
		goto bad;
	*out = whole * 1000 + frac;
	return WS_OK;
bad:
	return tool_csv_fail(c, err, "%s '%.40s': expected nanoseconds with three "
			"decimals (e.g. 1234.560)", col, s);
}

static int field_num(struct tool_csv *c, unsigned i, const char *col, double *out,
		     struct ws_err *err)
{
	const char *s = c->field[i];
	char *end;
	errno = 0;
	*out = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(*out) || *out < 0 ||
	    !(s[0] >= '0' && s[0] <= '9'))
		return tool_csv_fail(c, err, "%s '%.40s': expected a non-negative number",
				col, s);
	return WS_OK;
}

/* A column named *_ns holds times (docs/outputs.md, conventions). */
static bool is_time_col(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && !strcmp(name + n - 3, "_ns");
}

/* A duration written beside its start and end (columns `col_start`,
 * `col_end`; the duration's field i) must be their difference. */
static int check_span(struct tool_csv *c, unsigned i, const char *col,
		      const char *col_start, const char *col_end, ws_time start,
		      ws_time end, ws_time span, struct ws_err *err)
{
	if (end < start || end - start != span)
		return tool_csv_fail(c, err, "%s '%s' is not %s - %s", col, c->field[i],
				col_end, col_start);
	return WS_OK;
}

/* ---- fct.csv ---------------------------------------------------------------------- */

enum fct_col {
	FC_ID, FC_SRC, FC_DST, FC_BYTES, FC_PRIO, FC_START, FC_END, FC_FCT,
	FC_IDEAL, FC_SLOWDOWN, FC_TAG, FC_N
};

enum col_type { COL_U32, COL_U64, COL_NS, COL_NUM };

struct col_spec {
	const char *name;
	enum col_type type;
	bool required;   /* else checked when present */
};

/* The columns of fct.csv read here, found by name in the header that
 * kernel/output.c writes; the order is theirs. */
static const struct col_spec fct_cols[FC_N] = {
	[FC_ID] = { "flow_id", COL_U32, true },
	[FC_SRC] = { "src", COL_U32, true },
	[FC_DST] = { "dst", COL_U32, true },
	[FC_BYTES] = { "bytes", COL_U64, true },
	[FC_PRIO] = { "prio", COL_U64, false },
	[FC_START] = { "start_ns", COL_NS, true },
	[FC_END] = { "end_ns", COL_NS, true },
	[FC_FCT] = { "fct_ns", COL_NS, true },
	[FC_IDEAL] = { "ideal_fct_ns", COL_NS, false },
	[FC_SLOWDOWN] = { "slowdown", COL_NUM, false },
	[FC_TAG] = { "tag", COL_U64, true },
};

static int field_typed(struct tool_csv *c, unsigned i, const struct col_spec *spec,
		       uint64_t *out, struct ws_err *err)
{
	double d;
	switch (spec->type) {
	case COL_U32:
		return field_u64(c, i, spec->name, UINT32_MAX, out, err);
	case COL_U64:
		return field_u64(c, i, spec->name, UINT64_MAX, out, err);
	case COL_NS:
		return field_ns(c, i, spec->name, out, err);
	case COL_NUM:
		break;
	}
	*out = 0;
	return field_num(c, i, spec->name, &d, err);
}

/* One row of fct.csv; at[k]: the field of fct_cols[k], -1 when absent. */
static int fct_row(struct tool_csv *c, const int *at, struct cmp_flow *fl,
		   struct ws_err *err)
{
	uint64_t v[FC_N] = { 0 };
	int rc;
	for (int k = 0; k < FC_N; k++)
		if (at[k] >= 0 &&
		    (rc = field_typed(c, (unsigned)at[k], &fct_cols[k], &v[k], err)))
			return rc;
	*fl = (struct cmp_flow){
		.id = (uint32_t)v[FC_ID], .src = (uint32_t)v[FC_SRC],
		.dst = (uint32_t)v[FC_DST], .line = (uint32_t)c->lineno,
		.bytes = v[FC_BYTES], .tag = v[FC_TAG], .key = v[FC_ID],
		.fct = v[FC_FCT],
	};
	return check_span(c, (unsigned)at[FC_FCT], "fct_ns", "start_ns", "end_ns",
			  v[FC_START], v[FC_END], v[FC_FCT], err);
}

static int fct_columns(struct tool_csv *c, int *at, struct ws_err *err)
{
	for (int k = 0; k < FC_N; k++) {
		int rc = WS_OK;
		if (fct_cols[k].required)
			rc = tool_csv_col(c, fct_cols[k].name, "", &at[k], err);
		else
			at[k] = tool_csv_find(c, fct_cols[k].name);
		if (rc)
			return rc;
	}
	return WS_OK;
}

static int read_fct(struct cmp_run *r, struct ws_err *err)
{
	struct tool_csv c;
	int at[FC_N];
	int rc = tool_csv_open(&c, r->fct_path, err);
	if (!rc)
		rc = fct_columns(&c, at, err);
	size_t cap = 0;
	while (!rc && (rc = tool_csv_next(&c, err)) == 1) {
		struct cmp_flow fl;
		if ((rc = fct_row(&c, at, &fl, err)))
			break;
		/* matching walks both files in flow id order */
		if (r->n_flows && fl.id <= r->flows[r->n_flows - 1].id) {
			rc = tool_csv_fail(&c, err, "flow_id %u after flow_id %u (expected "
				      "each flow once, in flow id order)", fl.id,
				      r->flows[r->n_flows - 1].id);
			break;
		}
		if (r->n_flows == cap) {
			cap = cap ? 2 * cap : 1024;
			r->flows = tool_xrealloc(r->flows, cap, sizeof *r->flows);
		}
		r->flows[r->n_flows++] = fl;
	}
	tool_csv_close(&c);
	return rc < 0 ? rc : WS_OK;
}

/* ---- a metric's file -------------------------------------------------------------- */

/* the columns of a metric in its file; -1: not declared */
struct metric_cols {
	int key, value, start, end;
};

static int metric_col(struct tool_csv *c, const struct ws_metric_decl *d,
		      const char *role, const char *name, int *at, struct ws_err *err)
{
	char why[160];
	*at = -1;
	if (!name[0])
		return WS_OK;
	snprintf(why, sizeof why, ", which summary.json declares as the %s of the "
		 "metric '%s'", role, d->name);
	return tool_csv_col(c, name, why, at, err);
}

static int metric_columns(struct tool_csv *c, const struct ws_metric_decl *d,
			  struct metric_cols *mc, struct ws_err *err)
{
	int rc = metric_col(c, d, "key", d->key, &mc->key, err);
	if (!rc)
		rc = metric_col(c, d, "value", d->value, &mc->value, err);
	if (!rc)
		rc = metric_col(c, d, "start", d->start, &mc->start, err);
	if (!rc)
		rc = metric_col(c, d, "end", d->end, &mc->end, err);
	return rc;
}

static int metric_row(struct tool_csv *c, const struct ws_metric_decl *d,
		      const struct metric_cols *mc, struct cmp_row *row,
		      struct ws_err *err)
{
	*row = (struct cmp_row){ .line = (uint32_t)c->lineno };
	int rc = field_u64(c, (unsigned)mc->key, d->key, UINT64_MAX, &row->key, err);
	if (rc)
		return rc;
	row->exact = is_time_col(d->value);
	if (!row->exact)
		return field_num(c, (unsigned)mc->value, d->value, &row->num, err);
	if ((rc = field_ns(c, (unsigned)mc->value, d->value, &row->ps, err)))
		return rc;
	row->num = (double)row->ps / 1000;
	if (mc->start < 0)
		return WS_OK;
	ws_time start, end;
	if ((rc = field_ns(c, (unsigned)mc->start, d->start, &start, err)) ||
	    (rc = field_ns(c, (unsigned)mc->end, d->end, &end, err)))
		return rc;
	return check_span(c, (unsigned)mc->value, d->value, d->start, d->end, start,
			  end, row->ps, err);
}

/* Read the file `d` declares in run directory `dir`, rows in key order. */
static int read_metric(const char *dir, const struct ws_metric_decl *d,
		       struct cmp_table *t, struct ws_err *err)
{
	struct tool_csv c;
	struct metric_cols mc;
	snprintf(t->path, sizeof t->path, "%s/%s", dir, d->file);
	int rc = tool_csv_open(&c, t->path, err);
	if (rc == WS_ENOENT)
		ws_err_at(err, rc, t->path, 0, "cannot open: %s (the file of the metric "
			  "'%s' that summary.json declares)", strerror(ENOENT), d->name);
	if (!rc)
		rc = metric_columns(&c, d, &mc, err);
	size_t cap = 0;
	while (!rc && (rc = tool_csv_next(&c, err)) == 1) {
		struct cmp_row row;
		if ((rc = metric_row(&c, d, &mc, &row, err)))
			break;
		if (t->n && row.key <= t->rows[t->n - 1].key) {
			rc = tool_csv_fail(&c, err, "%s %" PRIu64 " after %s %" PRIu64
				      " (expected each %s once, in order)", d->key, row.key,
				      d->key, t->rows[t->n - 1].key, d->key);
			break;
		}
		if (t->n == cap) {
			cap = cap ? 2 * cap : 64;
			t->rows = tool_xrealloc(t->rows, cap, sizeof *t->rows);
		}
		t->rows[t->n++] = row;
	}
	tool_csv_close(&c);
	return rc < 0 ? rc : WS_OK;
}

/* ---- summary.json: workload.metrics ------------------------------------------- */

/* the members of a metric, the first four required */
static const char *const metric_members[] = {
	"name", "file", "key", "value", "start", "end",
};

static char *decl_member(struct ws_metric_decl *d, size_t i)
{
	char *const m[] = { d->name, d->file, d->key, d->value, d->start, d->end };
	return m[i];
}

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."

/* Member `key` of metric i: a plain name (a file of the run directory, a
 * column), so no path to leave the directory by. */
static int metric_member(const char *path, size_t i, const char *key, json_t *v,
			 struct ws_metric_decl *d, struct ws_err *err)
{
	size_t m = 0;
	while (m < TOOL_ARRAY_LEN(metric_members) && strcmp(key, metric_members[m]))
		m++;
	if (m == TOOL_ARRAY_LEN(metric_members))
		return ws_err_at(err, WS_EINVAL, path, 0, "workload.metrics[%zu]: unknown "
				 "member '%.64s' (a metric has name, file, key, value, "
				 "start, end)", i, key);
	if (!json_is_string(v))
		return ws_err_at(err, WS_EINVAL, path, 0, "workload.metrics[%zu]: %s: "
				 "expected a string", i, metric_members[m]);
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (n == 0 || n >= WS_COMPARE_NAME_MAX || s[0] == '.' || strspn(s, NAME_CHARS) < n)
		return ws_err_at(err, WS_EINVAL, path, 0, "workload.metrics[%zu]: %s "
				 "\"%.*s\": expected 1 to %d letters, digits, '_', '-' or "
				 "'.', not starting with '.'", i, metric_members[m],
				 (int)TOOL_MIN(n, 80), s, WS_COMPARE_NAME_MAX - 1);
	memcpy(decl_member(d, m), s, n + 1);
	return WS_OK;
}

/* The rules metric i follows beyond its members' own. */
static int metric_check(const char *path, size_t i, const struct cmp_run *r,
			const struct ws_metric_decl *d, struct ws_err *err)
{
	const char *bad = NULL;
	for (size_t m = 0; m < 4; m++)
		if (!decl_member((struct ws_metric_decl *)d, m)[0])
			return ws_err_at(err, WS_EINVAL, path, 0, "workload.metrics[%zu]: a "
					 "metric without '%s' (required: name, file, key, "
					 "value)", i, metric_members[m]);
	if (!d->start[0] != !d->end[0])
		bad = "start and end go together";
	else if (d->start[0] && !is_time_col(d->value))
		return ws_err_at(err, WS_EINVAL, path, 0, "workload.metrics[%zu]: metric "
				 "'%s': start and end need a value that is a time (a "
				 "column named *_ns), not '%s'", i, d->name, d->value);
	else if (!strcmp(d->name, "fct"))
		bad = "the name 'fct' is taken (compare's own FCT error)";
	for (uint32_t k = 0; !bad && k < r->n_decls; k++)
		if (!strcmp(r->decls[k].name, d->name))
			bad = "declared twice";
	if (bad)
		return ws_err_at(err, WS_EINVAL, path, 0, "workload.metrics[%zu]: metric "
				 "'%s': %s", i, d->name, bad);
	return WS_OK;
}

/* workload.metrics (absent: none) into r->decls. */
static int read_decls(const char *path, json_t *root, struct cmp_run *r,
		      struct ws_err *err)
{
	json_t *list = tool_json_get(root, "workload", "metrics"), *m;
	size_t i;
	if (!list)
		return WS_OK;
	if (!json_is_array(list))
		return ws_err_at(err, WS_EINVAL, path, 0, "workload.metrics: expected an "
				 "array of metrics [{...}, ...]");
	json_array_foreach(list, i, m) {
		const char *key;
		json_t *v;
		int rc = WS_OK;
		if (!json_is_object(m))
			return ws_err_at(err, WS_EINVAL, path, 0, "workload.metrics[%zu]: "
					 "expected a metric object {...}", i);
		if (r->n_decls == WS_COMPARE_MAX_METRICS)
			return ws_err_at(err, WS_EINVAL, path, 0, "workload.metrics: more "
					 "than %d metrics", WS_COMPARE_MAX_METRICS);
		struct ws_metric_decl *d = &r->decls[r->n_decls];
		memset(d, 0, sizeof *d);
		json_object_foreach(m, key, v)
			if ((rc = metric_member(path, i, key, v, d, err)))
				return rc;
		if ((rc = metric_check(path, i, r, d, err)))
			return rc;
		r->n_decls++;
	}
	return WS_OK;
}

/* ---- summary.json --------------------------------------------------------------- */

/* The numbers read from summary.json, found by their place (a plugin's
 * own report may reuse the key names deeper down); run_cpu_s is optional
 * (a summary.json of a warpsim before it). */
static int read_numbers(const char *path, json_t *root, struct cmp_run *r,
			struct ws_err *err)
{
	const struct {
		const char *section, *key, *name;
		uint64_t *u;
		double *d;
	} want[] = {
		{ "results", "events", "results.events", &r->events, NULL },
		{ "results", "sim_time_ps", "results.sim_time_ps", &r->sim_time, NULL },
		{ "timing", "run_s", "timing.run_s", NULL, &r->run_s },
		{ "timing", "run_cpu_s", "timing.run_cpu_s", NULL, &r->run_cpu_s },
	};
	json_t *v[TOOL_ARRAY_LEN(want)];
	int rc = WS_OK;
	/* the values there first, then what is missing */
	for (size_t i = 0; !rc && i < TOOL_ARRAY_LEN(want); i++) {
		v[i] = tool_json_get(root, want[i].section, want[i].key);
		if (v[i] && want[i].u)
			rc = tool_json_u64(path, want[i].name, v[i], want[i].u, err);
		else if (v[i])
			rc = tool_json_num(path, want[i].name, v[i], want[i].d, err);
	}
	for (size_t i = 0; !rc && i < TOOL_ARRAY_LEN(want) - 1; i++)
		if (!v[i])
			rc = ws_err_at(err, WS_EINVAL, path, 0, "no %s (not a summary.json "
				       "of warpsim run?)", want[i].name);
	return rc;
}

static int read_summary(struct cmp_run *r, struct ws_err *err)
{
	json_t *root;
	int rc = tool_json_load(r->summary_path, &root, err);
	if (rc)
		return rc;
	r->run_cpu_s = NAN;
	rc = read_decls(r->summary_path, root, r, err);
	if (!rc)
		rc = read_numbers(r->summary_path, root, r, err);
	json_decref(root);
	return rc;
}

int tool_summary_numbers(const char *dir, const char *const *keys, double *out,
			 size_t n, struct ws_err *err)
{
	char path[PATH_MAX_LEN], section[64];
	json_t *root;
	snprintf(path, sizeof path, "%s/summary.json", dir);
	for (size_t i = 0; i < n; i++)
		out[i] = NAN;
	int rc = tool_json_load(path, &root, err);
	for (size_t i = 0; !rc && i < n; i++) {
		const char *dot = strchr(keys[i], '.');
		int l = dot ? (int)(dot - keys[i]) : 0;
		snprintf(section, sizeof section, "%.*s", l < 63 ? l : 63, keys[i]);
		json_t *v = tool_json_get(root, section, dot ? dot + 1 : keys[i]);
		/* null: a NaN as ws_json_f64 writes it */
		if (v && !json_is_null(v))
			rc = tool_json_num(path, keys[i], v, &out[i], err);
	}
	for (size_t i = 0; rc && i < n; i++)
		out[i] = NAN;
	json_decref(root);
	return rc;
}

/* ---- the comparison ------------------------------------------------------------- */

static int open_run(struct cmp_run *r, const char *dir, struct ws_err *err)
{
	memset(r, 0, sizeof *r);
	r->dir = dir;
	struct stat st;
	if (stat(dir, &st) != 0)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EINVAL, dir, 0,
				 "cannot open the run directory: %s", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ws_err_at(err, WS_EINVAL, dir, 0, "not a directory (expected "
				 "the output directory of a run)");
	snprintf(r->fct_path, sizeof r->fct_path, "%s/fct.csv", dir);
	snprintf(r->summary_path, sizeof r->summary_path, "%s/summary.json", dir);
	int rc = read_fct(r, err);
	if (!rc)
		rc = read_summary(r, err);
	return rc;
}

static void close_run(struct cmp_run *r)
{
	free(r->flows);
}

/* (b - a) / a from integers of ps, the difference taken exactly */
static double rel_diff(ws_time a, ws_time b)
{
	double d = b >= a ? (double)(b - a) : -(double)(a - b);
	return d / (double)a;
}

/*
 * The next flow present in both runs at or after a->flows[*i] and
 * b->flows[*k] (both in key order): false when there is none.
 */
static bool next_pair(const struct cmp_run *a, const struct cmp_run *b,
		      size_t *i, size_t *k)
{
	while (*i < a->n_flows && *k < b->n_flows) {
		uint64_t x = a->flows[*i].key, y = b->flows[*k].key;
		if (x == y)
			return true;
		if (x < y)
			++*i;
		else
			++*k;
	}
	return false;
}

static int write_csv(const struct cmp_run *a, const struct cmp_run *b,
		     const char *path, struct ws_err *err)
{
	struct ws_outfile *o = tool_outfile_open(path, err);
	if (!o)
		return WS_EIO;
	FILE *f = ws_outfile_stream(o);
	fputs("flow_id,fct_a_ns,fct_b_ns,rel_error\n", f);
	for (size_t i = 0, k = 0; next_pair(a, b, &i, &k); i++, k++) {
		const struct cmp_flow *x = &a->flows[i], *y = &b->flows[k];
		char fa[32], fb[32];
		ws_fmt_ps_as_ns(fa, sizeof fa, x->fct);
		ws_fmt_ps_as_ns(fb, sizeof fb, y->fct);
		fprintf(f, "%u,%s,%s,%.10g\n", x->id, fa, fb,
			fabs(rel_diff(x->fct, y->fct)));
	}
	return ws_outfile_commit(o, err);
}

static int cmp_key(const void *p, const void *q)
{
	const struct cmp_flow *x = p, *y = q;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Whether every tag of a run is unique (the flows sorted by tag after). */
static bool tags_unique(struct cmp_run *r)
{
	for (size_t i = 0; i < r->n_flows; i++)
		r->flows[i].key = r->flows[i].tag;
	if (r->n_flows)
		qsort(r->flows, r->n_flows, sizeof *r->flows, cmp_key);
	for (size_t i = 1; i < r->n_flows; i++)
		if (r->flows[i].key == r->flows[i - 1].key)
			return false;
	return true;
}

/* Match by tag when tags are unique in both runs, else by id. */
static bool choose_key(struct cmp_run *a, struct cmp_run *b)
{
	bool by_tag = tags_unique(a) && tags_unique(b);
	if (!by_tag)
		for (int k = 0; k < 2; k++) {
			struct cmp_run *r = k ? b : a;
			for (size_t i = 0; i < r->n_flows; i++)
				r->flows[i].key = r->flows[i].id;
			if (r->n_flows)
				qsort(r->flows, r->n_flows, sizeof *r->flows, cmp_key);
		}
	return by_tag;
}

/* A matched pair of flows must be the same transfer. */
static int same_flow(const struct cmp_run *a, const struct cmp_run *b,
		     const struct cmp_flow *x, const struct cmp_flow *y,
		     struct ws_err *err)
{
	if (x->src != y->src || x->dst != y->dst || x->bytes != y->bytes)
		return ws_err_at(err, WS_EINVAL, b->fct_path, (int)y->line,
				 "flow %u is %u -> %u, %" PRIu64 " bytes, but in "
				 "%s (line %u) %u -> %u, %" PRIu64 " bytes: the runs "
				 "are not of the same scenario", y->id, y->src,
				 y->dst, y->bytes, a->fct_path, x->line, x->src,
				 x->dst, x->bytes);
	if (x->fct == 0)
		return ws_err_at(err, WS_EINVAL, a->fct_path, (int)x->line,
				 "fct_ns of flow %u is 0: no relative error "
				 "against it", x->id);
	return WS_OK;
}

/* Flows by key, both in key order: agreement first, then the errors. */
static int compare_flows(const struct cmp_run *a, const struct cmp_run *b,
			 struct ws_compare *out, struct ws_err *err)
{
	size_t n = TOOL_MIN(a->n_flows, b->n_flows);
	double *rel = tool_xcalloc(n ? n : 1, sizeof *rel);
	double sum = 0, bias = 0;
	size_t m = 0;
	int rc = WS_OK;
	out->fct_max_flow = UINT32_MAX;
	out->fct_max = NAN;
	for (size_t i = 0, k = 0; next_pair(a, b, &i, &k); i++, k++) {
		const struct cmp_flow *x = &a->flows[i], *y = &b->flows[k];
		if ((rc = same_flow(a, b, x, y, err)))
			goto out;
		double r = rel_diff(x->fct, y->fct);
		rel[m++] = fabs(r);
		sum += fabs(r);
		bias += r;
		/* the first (lowest id) of equal maxima */
		if (out->fct_max_flow == UINT32_MAX || fabs(r) > out->fct_max ||
		    (fabs(r) == out->fct_max && x->id < out->fct_max_flow)) {
			out->fct_max = fabs(r);
			out->fct_max_flow = x->id;
		}
	}
	out->flows_a = (uint32_t)a->n_flows;
	out->flows_b = (uint32_t)b->n_flows;
	out->matched = (uint32_t)m;
	out->only_a = (uint32_t)(a->n_flows - m);
	out->only_b = (uint32_t)(b->n_flows - m);
	ws_sort_doubles(rel, m);
	out->fct_mean = m ? sum / (double)m : NAN;
	out->fct_bias = m ? bias / (double)m : NAN;
	out->fct_p50 = ws_percentile(rel, m, 50);
	out->fct_p99 = ws_percentile(rel, m, 99);
out:
	free(rel);
	return rc;
}

static const struct ws_metric_decl *find_decl(const struct cmp_run *r,
					      const char *name)
{
	for (uint32_t i = 0; i < r->n_decls; i++)
		if (!strcmp(r->decls[i].name, name))
			return &r->decls[i];
	return NULL;
}

/* The metrics either run declares, paired by name: A's in their order,
 * then those of B that A lacks. */
static void pair_metrics(const struct cmp_run *a, const struct cmp_run *b,
			 struct ws_compare *out)
{
	for (int k = 0; k < 2; k++) {
		const struct cmp_run *r = k ? b : a, *other = k ? a : b;
		for (uint32_t i = 0; i < r->n_decls; i++) {
			bool in_other = find_decl(other, r->decls[i].name) != NULL;
			if (k && in_other)
				continue;
			struct ws_compare_metric *m = &out->metrics[out->n_metrics++];
			m->decl = r->decls[i];
			m->in_a = !k || in_other;
			m->in_b = k || in_other;
			m->mean = m->max = NAN;
		}
	}
}

/* The relative error of row y against row x, from exact ps when both are
 * times. */
static double row_error(const struct cmp_row *x, const struct cmp_row *y)
{
	if (x->exact && y->exact)
		return fabs(rel_diff(x->ps, y->ps));
	return fabs((y->num - x->num) / x->num);
}

/* Rows matched by key, both tables in key order. */
static int compare_rows(const struct cmp_table *ta, const struct cmp_table *tb,
			struct ws_compare_metric *m, struct ws_err *err)
{
	double sum = 0;
	uint32_t n = 0;
	for (size_t i = 0, k = 0; i < ta->n && k < tb->n;) {
		const struct cmp_row *x = &ta->rows[i], *y = &tb->rows[k];
		if (x->key != y->key) {
			if (x->key < y->key)
				i++;
			else
				k++;
			continue;
		}
		if (x->exact ? x->ps == 0 : x->num == 0)
			return ws_err_at(err, WS_EINVAL, ta->path, (int)x->line,
					 "%s of %s %" PRIu64 " is 0: no relative "
					 "error against it", m->decl.value, m->decl.key,
					 x->key);
		double r = row_error(x, y);
		sum += r;
		if (n == 0 || r > m->max)
			m->max = r;
		n++;
		i++;
		k++;
	}
	m->matched = n;
	m->only_a = (uint32_t)(ta->n - n);
	m->only_b = (uint32_t)(tb->n - n);
	m->mean = n ? sum / n : NAN;
	return WS_OK;
}

/* Each metric both runs declare, read from each run's own file. */
static int compare_metrics(const struct cmp_run *a, const struct cmp_run *b,
			   struct ws_compare *out, struct ws_err *err)
{
	int rc = WS_OK;
	pair_metrics(a, b, out);
	for (uint32_t i = 0; !rc && i < out->n_metrics; i++) {
		struct ws_compare_metric *m = &out->metrics[i];
		struct cmp_table ta = { .n = 0 }, tb = { .n = 0 };
		if (!m->in_a || !m->in_b)
			continue;
		rc = read_metric(a->dir, &m->decl, &ta, err);
		if (!rc)
			rc = read_metric(b->dir, find_decl(b, m->decl.name), &tb, err);
		if (!rc)
			rc = compare_rows(&ta, &tb, m, err);
		free(ta.rows);
		free(tb.rows);
	}
	return rc;
}

/* The wall-clock, event and simulated-time figures of summary.json. */
static void run_figures(const struct cmp_run *a, const struct cmp_run *b,
			struct ws_compare *out)
{
	out->wall_a = a->run_s;
	out->wall_b = b->run_s;
	out->events_a = a->events;
	out->events_b = b->events;
	out->sim_a = a->sim_time;
	out->sim_b = b->sim_time;
	out->speedup = b->run_s > 0 ? a->run_s / b->run_s : NAN;
	out->cpu_a = a->run_cpu_s;
	out->cpu_b = b->run_cpu_s;
	out->cpu_speedup = b->run_cpu_s > 0 ? a->run_cpu_s / b->run_cpu_s : NAN;
	out->event_ratio = b->events ? (double)a->events / (double)b->events : NAN;
}

int ws_compare_runs(const char *dir_a, const char *dir_b, struct ws_compare *out,
		    const char *csv_path, struct ws_err *err)
{
	struct cmp_run a, b;
	memset(out, 0, sizeof *out);
	ws_err_clear(err);
	memset(&b, 0, sizeof b);
	int rc = open_run(&a, dir_a, err);
	if (!rc)
		rc = open_run(&b, dir_b, err);
	if (!rc) {
		out->by_tag = choose_key(&a, &b);
		rc = compare_flows(&a, &b, out, err);
	}
	if (!rc)
		rc = compare_metrics(&a, &b, out, err);
	if (!rc) {
		run_figures(&a, &b, out);
		if (csv_path)
			rc = write_csv(&a, &b, csv_path, err);
	}
	close_run(&a);
	close_run(&b);
	return rc;
}

/* ---- errors by flow size (compare --noise) --------------------------------------- */

/* one of A's flows in the order buckets are cut in */
struct sized_ref {
	uint64_t bytes;
	uint32_t id;
	size_t at;       /* index into the run's flows */
};

/* (bytes, flow id): fct_by_size.csv's order, independent of run B */
static int cmp_sized_ref(const void *p, const void *q)
{
	const struct sized_ref *x = p, *y = q;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* bucket[i]: the bucket of a->flows[i], A's completed flows cut into n
 * groups of equal count by (bytes, id) rank; each bucket's size range. */
static void size_buckets(const struct cmp_run *a, unsigned n, unsigned *bucket,
			 struct ws_size_bucket *out)
{
	size_t m = a->n_flows;
	struct sized_ref *v = tool_xcalloc(m ? m : 1, sizeof *v);
	for (size_t i = 0; i < m; i++)
		v[i] = (struct sized_ref){ a->flows[i].bytes, a->flows[i].id, i };
	if (m)
		qsort(v, m, sizeof *v, cmp_sized_ref);
	for (unsigned b = 0; b < n; b++) {
		size_t from = b * m / n, to = (b + 1) * m / n;
		out[b] = (struct ws_size_bucket){ .flows = (uint32_t)(to - from),
						  .mean = NAN, .p99 = NAN };
		if (to > from) {
			out[b].min_bytes = v[from].bytes;
			out[b].max_bytes = v[to - 1].bytes;
		}
		for (size_t r = from; r < to; r++)
			bucket[v[r].at] = b;
	}
	free(v);
}

/* Each matched pair's |relative FCT error| into the bucket of its A flow. */
static int bucket_errors(const struct cmp_run *a, const struct cmp_run *b,
			 const unsigned *bucket, unsigned n, struct ws_size_bucket *out,
			 struct ws_err *err)
{
	double **rel = tool_xcalloc(n, sizeof *rel);
	int rc = WS_OK;
	for (unsigned k = 0; k < n; k++)
		rel[k] = tool_xcalloc(out[k].flows ? out[k].flows : 1, sizeof **rel);
	for (size_t i = 0, k = 0; next_pair(a, b, &i, &k); i++, k++) {
		const struct cmp_flow *x = &a->flows[i], *y = &b->flows[k];
		if ((rc = same_flow(a, b, x, y, err)))
			break;
		struct ws_size_bucket *o = &out[bucket[i]];
		rel[bucket[i]][o->matched++] = fabs(rel_diff(x->fct, y->fct));
	}
	for (unsigned k = 0; k < n; k++) {
		double sum = 0;
		for (uint32_t r = 0; r < out[k].matched; r++)
			sum += rel[k][r];
		ws_sort_doubles(rel[k], out[k].matched);
		if (!rc && out[k].matched) {
			out[k].mean = sum / out[k].matched;
			out[k].p99 = ws_percentile(rel[k], out[k].matched, 99);
		}
		free(rel[k]);
	}
	free(rel);
	return rc;
}

int ws_compare_by_size(const char *dir_a, const char *dir_b, unsigned n_buckets,
		       struct ws_size_bucket *out, struct ws_err *err)
{
	struct cmp_run a, b;
	ws_err_clear(err);
	memset(&b, 0, sizeof b);
	if (n_buckets < 1 || n_buckets > WS_COMPARE_MAX_BUCKETS)
		return ws_err_set(err, WS_EINVAL, "%u flow-size buckets: expected 1..%d",
				  n_buckets, WS_COMPARE_MAX_BUCKETS);
	int rc = open_run(&a, dir_a, err);
	if (!rc)
		rc = open_run(&b, dir_b, err);
	if (!rc) {
		choose_key(&a, &b);
		unsigned *bucket = tool_xcalloc(a.n_flows ? a.n_flows : 1, sizeof *bucket);
		size_buckets(&a, n_buckets, bucket, out);
		rc = bucket_errors(&a, &b, bucket, n_buckets, out, err);
		free(bucket);
	}
	close_run(&a);
	close_run(&b);
	return rc;
}

/* ---- the command ---------------------------------------------------------------- */

enum { CMP_OPT_HELP = 'h', CMP_OPT_JSON = 256, CMP_OPT_CSV, CMP_OPT_AB, CMP_OPT_ERRORS,
       CMP_OPT_NOISE, CMP_OPT_BUCKETS };

const struct cli_opt compare_opts[] = {
	{ "json", CMP_OPT_JSON, "FILE", "also write the figures to FILE as JSON" },
	{ "csv", CMP_OPT_CSV, "FILE", "write the error of each matched flow to FILE "
	  "(flow_id,fct_a_ns,fct_b_ns,rel_error)" },
	{ "ab", CMP_OPT_AB, NULL, "two different experiments (e.g. two CCs): slowdown "
	  "percentiles side by side by flow size, not FCT errors (chosen, with a note, "
	  "when the runs use the same accel and different CCs); --csv and --json "
	  "write its rows" },
	{ "errors", CMP_OPT_ERRORS, NULL, "B as a copy of A (an accelerated run of the "
	  "same scenario): FCT errors flow by flow, speedup (the default unless the runs "
	  "use different CCs)" },
	{ "noise", CMP_OPT_NOISE, NULL, "BASE TWIN [TWIN ...] CANDIDATE: the candidate's "
	  "errors against the packet-level BASE next to those of BASE's twins (BASE run "
	  "again with [sim] perturb): per row 'within noise' or 'above noise (x times)'; "
	  "--csv and --json write the rows" },
	{ "size-buckets", CMP_OPT_BUCKETS, "N", "with --noise: FCT errors in N buckets of "
	  "equal flow count by size (1-20, default 4)" },
	{ "help", CMP_OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

struct compare_args {
	const char *json;
	const char *csv;
	bool ab, errors, noise;
	unsigned buckets;  /* 0: not given */
};

static int compare_opt(int id, const char *arg, void *ctx)
{
	struct compare_args *a = ctx;
	if (id == CMP_OPT_JSON)
		a->json = arg;
	else if (id == CMP_OPT_CSV)
		a->csv = arg;
	else if (id == CMP_OPT_AB)
		a->ab = true;
	else if (id == CMP_OPT_ERRORS)
		a->errors = true;
	else if (id == CMP_OPT_NOISE)
		a->noise = true;
	else if (id == CMP_OPT_BUCKETS) {
		char *end;
		unsigned long v = strtoul(arg, &end, 10);
		if (*arg < '0' || *arg > '9' || *end || v < 1 || v > WS_COMPARE_MAX_BUCKETS) {
			fprintf(stderr, "warpsim compare: --size-buckets '%s': expected a "
				"whole number from 1 to %d\n", arg, WS_COMPARE_MAX_BUCKETS);
			return EXIT_INPUT;
		}
		a->buckets = (unsigned)v;
	}
	return 0;
}

/* --noise and the options it goes with */
static int compare_noise_mode(const struct compare_args *a, int argc, char **argv)
{
	if (a->ab || a->errors) {
		fprintf(stderr, "warpsim compare: --noise, --ab and --errors are three "
			"modes: choose one\n");
		return EXIT_INPUT;
	}
	return tool_compare_noise((const char *const *)argv + optind,
				  (unsigned)(argc - optind), a->buckets ? a->buckets : 4,
				  a->csv, a->json);
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

static void print_flows(const struct ws_compare *c)
{
	char p[4][32], t[32];
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
		       fmt_pct(t, sizeof t, c->fct_bias, true));
	else
		printf("  FCT error  n/a: no flow completed in both runs\n");
}

/* One line per metric either workload declares. */
static void print_metrics(const struct ws_compare *c)
{
	char p[2][32];
	if (!c->n_metrics)
		printf("  metrics    skipped: none declared by the workloads of A and B\n");
	for (uint32_t i = 0; i < c->n_metrics; i++) {
		const struct ws_compare_metric *m = &c->metrics[i];
		printf("  %-10s ", m->decl.name);
		if (!m->in_a || !m->in_b)
			printf("skipped: not declared by the workload of %s\n",
			       m->in_a ? "B" : "A");
		else if (m->matched)
			printf("%u matched (%u only in A, %u only in B): %s error mean "
			       "%s, max %s\n", m->matched, m->only_a, m->only_b,
			       m->decl.value, fmt_pct(p[0], sizeof p[0], m->mean, false),
			       fmt_pct(p[1], sizeof p[1], m->max, false));
		else
			printf("none in both runs (%u in A, %u in B)\n", m->only_a,
			       m->only_b);
	}
}

static void print_compare(const struct ws_compare *c, const char *dir_a,
			  const char *dir_b)
{
	char p[32], t[2][64];
	printf("warpsim %s: compare A %s (reference), B %s\n", WS_VERSION, dir_a,
	       dir_b);
	print_flows(c);
	print_metrics(c);
	printf("  wall time  A %.3f s, B %.3f s: speedup %s\n", c->wall_a, c->wall_b,
	       fmt_ratio(p, sizeof p, c->speedup));
	if (isnan(c->cpu_a) || isnan(c->cpu_b))
		printf("  CPU time   n/a (a summary.json without timing.run_cpu_s)\n");
	else
		printf("  CPU time   A %.3f s, B %.3f s: speedup %s\n", c->cpu_a, c->cpu_b,
		       fmt_ratio(p, sizeof p, c->cpu_speedup));
	printf("  events     A %" PRIu64 ", B %" PRIu64 ": ratio %s\n", c->events_a,
	       c->events_b, fmt_ratio(p, sizeof p, c->event_ratio));
	tool_fmt_time(t[0], sizeof t[0], c->sim_a);
	tool_fmt_time(t[1], sizeof t[1], c->sim_b);
	printf("  sim time   A %s, B %s\n", t[0], t[1]);
}

static void json_flows(struct ws_json *j, const struct ws_compare *c)
{
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
}

/* "<name>_error": { ... } */
static void json_metric(struct ws_json *j, const struct ws_compare_metric *m)
{
	char key[WS_COMPARE_NAME_MAX + 8];
	snprintf(key, sizeof key, "%s_error", m->decl.name);
	ws_json_begin(j, key);
	ws_json_bool(j, "in_a", m->in_a);
	ws_json_bool(j, "in_b", m->in_b);
	ws_json_str(j, "file", m->decl.file);
	ws_json_str(j, "key", m->decl.key);
	ws_json_str(j, "value", m->decl.value);
	ws_json_u64(j, "matched", m->matched);
	ws_json_u64(j, "only_a", m->only_a);
	ws_json_u64(j, "only_b", m->only_b);
	ws_json_f64(j, "mean", m->mean);
	ws_json_f64(j, "max", m->max);
	ws_json_end(j);
}

static void json_run_figures(struct ws_json *j, const struct ws_compare *c)
{
	ws_json_begin(j, "wall_s");
	ws_json_f64(j, "a", c->wall_a);
	ws_json_f64(j, "b", c->wall_b);
	ws_json_f64(j, "speedup", c->speedup);
	ws_json_end(j);
	ws_json_begin(j, "cpu_s"); /* null when a summary.json has no CPU time */
	ws_json_f64(j, "a", c->cpu_a);
	ws_json_f64(j, "b", c->cpu_b);
	ws_json_f64(j, "speedup", c->cpu_speedup);
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
}

static int write_compare_json(const struct ws_compare *c, const char *dir_a,
			      const char *dir_b, const char *path)
{
	struct ws_err err;
	struct ws_outfile *o = tool_outfile_open(path, &err);
	if (!o) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	struct ws_json *j = ws_json_new(ws_outfile_stream(o));
	ws_json_begin(j, NULL);
	ws_json_str(j, "run_a", dir_a);
	ws_json_str(j, "run_b", dir_b);
	json_flows(j, c);
	for (uint32_t i = 0; i < c->n_metrics; i++)
		json_metric(j, &c->metrics[i]);
	json_run_figures(j, c);
	ws_json_finish(j);
	if (ws_outfile_commit(o, &err)) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	return 0;
}

int cmd_compare(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct compare_args a = { 0 };
	int rc = parse_opts(argc, argv, cmd, compare_opt, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.noise)
		return compare_noise_mode(&a, argc, argv);
	if (a.buckets) {
		fprintf(stderr, "warpsim compare: --size-buckets goes with --noise\n");
		return EXIT_INPUT;
	}
	if (optind != argc - 2) {
		fprintf(stderr, "warpsim compare: expected two run directories "
			"(RUN_A RUN_B), got %d arguments\n", argc - optind);
		usage_cmd(stderr, cmd);
		return EXIT_INPUT;
	}
	const char *dir_a = argv[optind], *dir_b = argv[optind + 1];
	if (a.ab && a.errors) {
		fprintf(stderr, "warpsim compare: --ab and --errors are two modes: choose one\n");
		return EXIT_INPUT;
	}
	if (!tool_same_fabric(dir_a, dir_b))
		return EXIT_INPUT;
	if (!a.ab && !a.errors && tool_runs_differ(dir_a, dir_b)) {
		char cc_a[64], cc_b[64];
		tool_summary_plugin(dir_a, "cc", cc_a, sizeof cc_a);
		tool_summary_plugin(dir_b, "cc", cc_b, sizeof cc_b);
		fprintf(stderr, "warpsim compare: note: A/B mode (--ab): the runs use different "
			"CCs (%s, %s); --errors compares them flow by flow\n", cc_a, cc_b);
		a.ab = true;
	}
	if (a.ab)
		return tool_compare_ab(dir_a, dir_b, a.csv, a.json);
	struct ws_compare c;
	struct ws_err err;
	rc = ws_compare_runs(dir_a, dir_b, &c, a.csv, &err);
	if (rc) {
		tool_print_error(&err);
		/* a figure that could not be written is not bad input */
		return rc == WS_EIO ? EXIT_RUN : EXIT_INPUT;
	}
	print_compare(&c, dir_a, dir_b);
	if (!c.matched && c.flows_a && c.flows_b) { /* one that completed none: n/a */
		fprintf(stderr, "warpsim compare: no flow completed in A is in B (%u in A, %u in "
			"B, matched by %s): unrelated runs, or one stopped before any flow "
			"finished\n", c.flows_a, c.flows_b, c.by_tag ? "tag" : "flow id");
		return EXIT_INPUT;
	}
	if (a.json)
		return write_compare_json(&c, dir_a, dir_b, a.json);
	return 0;
}
