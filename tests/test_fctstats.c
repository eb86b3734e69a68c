/* SPDX-License-Identifier: MIT */
/*
 * The end-of-run FCT statistics without sorting (kernel/output.c,
 * kernel/fctsize.c): percentiles by selection and the size order by a
 * radix sort give the values sorting gave.
 *
 * - ws_select_percentiles against ws_sort_doubles + ws_percentile on
 *   arrays of every length to 300 and a few large ones: random, with many
 *   ties, ascending, descending, all equal; each percentile the same
 *   double.
 * - fct_by_size.csv of 700 flows (sizes with ties, some over 2^32 so the
 *   radix sort's high passes run) under fluid, against the buckets worked
 *   out here the old way: every record, qsort by (bytes, id), each
 *   bucket's slowdowns sorted; the same text.  The summary's slowdown
 *   p50/p99/max against the sorted values too.
 */
#define _GNU_SOURCE
#include "th.h"
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* v[0..n) filled by kind: 0 random, 1 a few distinct values, 2 ascending,
 * 3 descending, 4 all equal */
static void fill_kind(double *v, size_t n, int kind, uint64_t *seed)
{
	for (size_t i = 0; i < n; i++) {
		switch (kind) {
		case 0: v[i] = (double)(rng_next(seed) % 1000000) / 7.0; break;
		case 1: v[i] = 1.0 + (double)(rng_next(seed) % 5) * 0.25; break;
		case 2: v[i] = (double)i; break;
		case 3: v[i] = (double)(n - i); break;
		default: v[i] = 2.5; break;
		}
	}
}

static void check_select(size_t n, int kind, uint64_t *seed)
{
	static const double pcts[] = { 0.1, 1, 25, 50, 95, 99, 99.9, 100 };
	enum { M = sizeof pcts / sizeof pcts[0] };
	double *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
	assert_non_null(v);
	assert_non_null(w);
	fill_kind(v, n, kind, seed);
	memcpy(w, v, n * sizeof *v);
	ws_sort_doubles(w, n);
	double got[M];
	ws_select_percentiles(v, n, pcts, M, got);
	for (size_t i = 0; i < M; i++)
		if (got[i] != ws_percentile(w, n, pcts[i]))
			fail_msg("n %zu kind %d p%g: selected %.17g, sorted %.17g", n, kind,
				 pcts[i], got[i], ws_percentile(w, n, pcts[i]));
	/* the same values, only moved */
	ws_sort_doubles(v, n);
	assert_memory_equal(v, w, n * sizeof *v);
	free(v);
	free(w);
}

static void test_select_matches_sort(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15u;
	for (int kind = 0; kind < 5; kind++) {
		for (size_t n = 1; n <= 300; n++)
			check_select(n, kind, &seed);
		check_select(100000, kind, &seed);
		check_select(65537, kind, &seed);
	}
}

/* ---- fct_by_size.csv against sorting ------------------------------------ */

struct ref_flow {
	uint64_t bytes;
	uint32_t id;
	double slowdown;
};

static int cmp_ref(const void *a, const void *b)
{
	const struct ref_flow *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* fct_by_size.csv as sorting every record computes it */
static char *ref_by_size(const struct ws_sim *sim, size_t buckets)
{
	struct ref_flow *v = calloc(sim->n_flows, sizeof *v);
	double *s = calloc(sim->n_flows, sizeof *s);
	assert_non_null(v);
	assert_non_null(s);
	size_t n = 0;
	for (uint32_t id = 0; id < sim->n_flows; id++) {
		const struct ws_flow *f = sim->flows[id];
		if (f->end == WS_TIME_NEVER || !f->ideal_fct)
			continue;
		v[n++] = (struct ref_flow){ f->cc.size, id,
					    (double)(f->end - f->start) / (double)f->ideal_fct };
	}
	qsort(v, n, sizeof *v, cmp_ref);
	size_t room = 256 + 160 * buckets;
	char *out = malloc(room), *p = out;
	assert_non_null(out);
	p += sprintf(p, "bucket,flows_pct_from,flows_pct_to,min_bytes,max_bytes,flows,"
			"mean,p50,p95,p99,max\n");
	size_t used = 0;
	for (size_t b = 0; b < buckets; b++) {
		size_t lo = b * n / buckets, hi = (b + 1) * n / buckets, m = hi - lo;
		if (!m)
			continue;
		double sum = 0;
		for (size_t i = 0; i < m; i++) {
			s[i] = v[lo + i].slowdown;
			sum += s[i];
		}
		ws_sort_doubles(s, m);
		p += sprintf(p, "%zu,%.2f,%.2f,%" PRIu64 ",%" PRIu64 ",%zu,%.6f,%.6f,%.6f,%.6f,"
				"%.6f\n", used++, 100.0 * (double)b / (double)buckets,
			     100.0 * (double)(b + 1) / (double)buckets, v[lo].bytes,
			     v[hi - 1].bytes, m, sum / (double)m, ws_percentile(s, m, 50),
			     ws_percentile(s, m, 95), ws_percentile(s, m, 99), s[m - 1]);
	}
	/* and the run's p50/p99/max, from every slowdown sorted */
	for (size_t i = 0; i < n; i++)
		s[i] = v[i].slowdown;
	ws_sort_doubles(s, n);
	struct ws_fct_stats fs = { WS_INIT_SIZE(struct ws_fct_stats) };
	ws_sim_fct_stats(sim, &fs);
	assert_int_equal(fs.n, n);
	assert_true(fs.p50 == ws_percentile(s, n, 50));
	assert_true(fs.p99 == ws_percentile(s, n, 99));
	assert_true(fs.max == s[n - 1]);
	free(v);
	free(s);
	return out;
}

/* 700 flows on a k=4 fat-tree: sizes drawn from a few (ties) and some over
 * 2^32, starts spread so that they share links */
static const char *write_trace(void)
{
	static const uint64_t sizes[] = { 1000, 4096, 65536, 65536, 1000000,
					  (1ull << 32) + 5, 3ull << 24, 777 };
	size_t room = 64 + 700 * 64;
	char *t = malloc(room), *p = t;
	assert_non_null(t);
	uint64_t seed = 12345;
	p += sprintf(p, "700\n");
	for (int i = 0; i < 700; i++) {
		uint32_t src = (uint32_t)(rng_next(&seed) % 16);
		uint32_t dst = (src + 1 + (uint32_t)(rng_next(&seed) % 15)) % 16;
		uint64_t bytes = i % 3 ? sizes[rng_next(&seed) % 8]
				       : 500 + rng_next(&seed) % 200000;
		p += sprintf(p, "%u %u 3 100 %" PRIu64 " %.6f\n", src, dst, bytes,
			     (double)i * 2e-5);
	}
	th_write("sizes.txt", t);
	free(t);
	return "sizes.txt";
}

static void test_by_size_matches_sort(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim(th_fmt("[topology]\nname = fat-tree\nk = 4\n[cc]\n"
					   "name = dcqcn\n[accel]\nname = fluid\n[workload]\n"
					   "name = flows\nfile = %s\n[output]\nflow_records = all\n"
					   "fct_size_buckets = 7\n", write_trace()));
	th_run(sim);
	assert_int_equal(sim->n_done, 700);
	char dir[600];
	snprintf(dir, sizeof dir, "%s/bysize", th_tmpdir());
	struct ws_err err;
	if (ws_sim_write_outputs(sim, dir, &err))
		fail_msg("%s", err.msg);
	char *got = th_read(th_fmt("%s/fct_by_size.csv", dir), NULL);
	char *want = ref_by_size(sim, 7);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	free(want);
	ws_sim_free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select_matches_sort),
		cmocka_unit_test(test_by_size_matches_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
