/* SPDX-License-Identifier: MIT */
/*
 * `warpsim compare --ab RUN_A RUN_B`: two different experiments (two CCs
 * on the same traffic, two buffer sizes...), not an accelerated copy of a
 * reference, so an "FCT error" means nothing: this prints their FCT
 * slowdown percentiles side by side, per flow-size bucket of
 * fct_by_size.csv, and the ratio B / A of each percentile.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "tools.h"

static bool has_by_size(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/fct_by_size.csv", dir);
	return access(path, R_OK) == 0;
}

bool tool_runs_differ(const char *dir_a, const char *dir_b)
{
	char acc_a[64], acc_b[64], cc_a[64], cc_b[64];
	if (!has_by_size(dir_a) || !has_by_size(dir_b))
		return false;
	tool_summary_plugin(dir_a, "accel", acc_a, sizeof acc_a);
	tool_summary_plugin(dir_b, "accel", acc_b, sizeof acc_b);
	tool_summary_plugin(dir_a, "cc", cc_a, sizeof cc_a);
	tool_summary_plugin(dir_b, "cc", cc_b, sizeof cc_b);
	return acc_a[0] && !strcmp(acc_a, acc_b) && cc_a[0] && strcmp(cc_a, cc_b);
}

enum { AB_MAX, AB_MIN, AB_N, AB_MEAN, AB_P50, AB_P95, AB_P99, AB_FROM, AB_TO, AB_COLS };

static int ab_read(const char *dir, double **v, size_t *n, struct ws_err *err)
{
	static const char *const cols[AB_COLS] = { "max_bytes", "min_bytes", "flows", "mean",
						   "p50", "p95", "p99", "flows_pct_from",
						   "flows_pct_to" };
	char path[4200];
	snprintf(path, sizeof path, "%s/fct_by_size.csv", dir);
	return tool_table_read(path, cols, AB_COLS, v, n, err);
}

static void ab_size(char *buf, size_t n, double bytes)
{
	if (bytes >= 1e6)
		snprintf(buf, n, "%.3gMB", bytes / 1e6);
	else if (bytes >= 1e3)
		snprintf(buf, n, "%.3gKB", bytes / 1e3);
	else
		snprintf(buf, n, "%.0fB", bytes);
}

static void ab_row(const double *a, const double *b)
{
	char lo[16], hi[16];
	ab_size(lo, sizeof lo, a[AB_MIN]);
	ab_size(hi, sizeof hi, a[AB_MAX]);
	printf("  %7s-%-7s %6.0f  %7.3f %7.3f %7.3f  %7.3f %7.3f %7.3f  %6.2f %6.2f\n",
	       lo, hi, a[AB_N], a[AB_P50], a[AB_P95], a[AB_P99], b[AB_P50], b[AB_P95],
	       b[AB_P99], b[AB_P50] / a[AB_P50], b[AB_P99] / a[AB_P99]);
}

bool tool_same_fabric(const char *dir_a, const char *dir_b)
{
	static const char *const keys[] = { "fabric.nodes", "fabric.links", "fabric.ports" };
	double a[3], b[3];
	struct ws_err err;
	ws_err_clear(&err);
	if (tool_summary_numbers(dir_a, keys, a, 3, &err) ||
	    tool_summary_numbers(dir_b, keys, b, 3, &err))
		return true; /* unreadable: the comparison itself reports it */
	for (unsigned k = 0; k < 3; k++)
		if (!isnan(a[k]) && !isnan(b[k]) && a[k] != b[k]) {
			fprintf(stderr, "warpsim compare: the runs simulated different fabrics "
				"(%s: %.0f in %s, %.0f in %s): unrelated runs, nothing to "
				"compare\n", keys[k], a[k], dir_a, b[k], dir_b);
			return false;
		}
	return true;
}

/* The A/B rows as CSV: per bucket, A's size range and flows, both runs'
 * percentiles and the ratios. */
static int ab_csv(const char *path, const double *a, const double *b, size_t n)
{
	struct ws_err err;
	struct ws_outfile *o = tool_outfile_open(path, &err);
	if (!o) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	FILE *f = ws_outfile_stream(o);
	fputs("min_bytes,max_bytes,flows,a_p50,a_p95,a_p99,b_p50,b_p95,b_p99,p50_ratio,"
	      "p99_ratio\n", f);
	for (size_t i = 0; i < n; i++) {
		const double *x = a + i * AB_COLS, *y = b + i * AB_COLS;
		fprintf(f, "%.0f,%.0f,%.0f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", x[AB_MIN],
			x[AB_MAX], x[AB_N], x[AB_P50], x[AB_P95], x[AB_P99], y[AB_P50], y[AB_P95],
			y[AB_P99], y[AB_P50] / x[AB_P50], y[AB_P99] / x[AB_P99]);
	}
	if (ws_outfile_commit(o, &err)) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	return 0;
}

static int ab_json(const char *path, const char *dir_a, const char *dir_b, const char *cc_a,
		   const char *cc_b, const double *a, const double *b, size_t n, bool same)
{
	struct ws_err err;
	struct ws_outfile *o = tool_outfile_open(path, &err);
	if (!o) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	struct ws_json *j = ws_json_new(ws_outfile_stream(o));
	ws_json_begin(j, NULL);
	ws_json_str(j, "mode", "ab");
	ws_json_str(j, "run_a", dir_a);
	ws_json_str(j, "run_b", dir_b);
	ws_json_str(j, "cc_a", cc_a);
	ws_json_str(j, "cc_b", cc_b);
	ws_json_bool(j, "same_buckets", same);
	ws_json_begin_array(j, "buckets");
	for (size_t i = 0; i < n; i++) {
		const double *x = a + i * AB_COLS, *y = b + i * AB_COLS;
		ws_json_begin(j, NULL);
		ws_json_f64(j, "min_bytes", x[AB_MIN]);
		ws_json_f64(j, "max_bytes", x[AB_MAX]);
		ws_json_f64(j, "flows", x[AB_N]);
		ws_json_f64(j, "a_p50", x[AB_P50]);
		ws_json_f64(j, "a_p95", x[AB_P95]);
		ws_json_f64(j, "a_p99", x[AB_P99]);
		ws_json_f64(j, "b_p50", y[AB_P50]);
		ws_json_f64(j, "b_p95", y[AB_P95]);
		ws_json_f64(j, "b_p99", y[AB_P99]);
		ws_json_f64(j, "p50_ratio", y[AB_P50] / x[AB_P50]);
		ws_json_f64(j, "p99_ratio", y[AB_P99] / x[AB_P99]);
		ws_json_end(j);
	}
	ws_json_end_array(j);
	ws_json_finish(j);
	if (ws_outfile_commit(o, &err)) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	return 0;
}

int tool_compare_ab(const char *dir_a, const char *dir_b, const char *csv, const char *json)
{
	double *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	struct ws_err err;
	ws_err_clear(&err);
	int rc = ab_read(dir_a, &a, &na, &err);
	if (!rc)
		rc = ab_read(dir_b, &b, &nb, &err);
	if (rc) {
		tool_print_error(&err);
		free(a);
		return rc == WS_EIO ? EXIT_RUN : EXIT_INPUT;
	}
	if (!na || !nb) {
		fprintf(stderr, "warpsim compare --ab: %s has no completed flows: nothing to "
			"compare\n", na ? dir_b : dir_a);
		free(a);
		free(b);
		return EXIT_INPUT;
	}
	/* buckets of another width ([output] fct_size_buckets) cannot be
	 * paired: rank i is another share of the flows in each run */
	double wa = na ? a[AB_TO] - a[AB_FROM] : 0, wb = nb ? b[AB_TO] - b[AB_FROM] : 0;
	if (na && nb && fabs(wa - wb) > 0.005) {
		fprintf(stderr, "warpsim: compare --ab: %s/fct_by_size.csv has buckets of "
			"%.2f %% of the flows (%.0f buckets) and %s/fct_by_size.csv of %.2f "
			"%% (%.0f): the runs set [output] fct_size_buckets differently; "
			"re-run one with the other's value to compare them by size\n",
			dir_a, wa, 100 / wa, dir_b, wb, 100 / wb);
		free(a);
		free(b);
		return EXIT_INPUT;
	}
	char cc_a[64], cc_b[64];
	tool_summary_plugin(dir_a, "cc", cc_a, sizeof cc_a);
	tool_summary_plugin(dir_b, "cc", cc_b, sizeof cc_b);
	printf("warpsim %s: A/B comparison of two experiments: A %s (%s), B %s (%s)\n",
	       WS_VERSION, dir_a, cc_a[0] ? cc_a : "?", dir_b, cc_b[0] ? cc_b : "?");
	printf("  FCT slowdown by flow size (fct_by_size.csv buckets; sizes and flows of A)\n");
	printf("  %-15s %6s  %7s %7s %7s  %7s %7s %7s  %6s %6s\n", "size", "flows",
	       "A p50", "A p95", "A p99", "B p50", "B p95", "B p99", "p50B/A", "p99B/A");
	bool same = na == nb;
	for (size_t i = 0; i < na && i < nb; i++) {
		ab_row(a + i * AB_COLS, b + i * AB_COLS);
		same = same && a[i * AB_COLS + AB_MAX] == b[i * AB_COLS + AB_MAX] &&
		       a[i * AB_COLS + AB_N] == b[i * AB_COLS + AB_N];
	}
	if (!same)
		printf("  note       the buckets differ (%zu in A, %zu in B, or other sizes): "
		       "the runs completed different flows; rows are paired by rank\n", na, nb);
	size_t n = na < nb ? na : nb;
	rc = csv ? ab_csv(csv, a, b, n) : 0;
	if (!rc && json)
		rc = ab_json(json, dir_a, dir_b, cc_a, cc_b, a, b, n, same);
	free(a);
	free(b);
	return rc;
}
