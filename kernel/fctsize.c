/* SPDX-License-Identifier: MIT */
/*
 * FCT slowdown by flow size: fct_by_size.csv and the "fct_by_size" array
 * of summary.json, the figure every congestion-control paper of the HPCC
 * era draws (slowdown p50/p95/p99 against flow size).
 *
 * Buckets are those of the HPCC simulator's analysis script
 * (analysis/fct_analysis.py): the completed flows sorted by size (ties by
 * flow id), cut into [output] fct_size_buckets groups of equal count (20
 * by default: 5 % of the flows each); bucket i holds the flows of sorted
 * rank [floor(i n / B), floor((i + 1) n / B)).  A bucket is drawn at its
 * largest flow size.  Within a bucket, p50/p95/p99 are warpsim's
 * nearest-rank percentiles (ws_percentile: the value of rank ceil(p n);
 * selected, not sorted, and the flows put in size order by a radix sort:
 * linear in the flows, for runs of 10^8 of them);
 * the HPCC script takes the element at index floor(p n), one rank higher
 * when p n is a whole number.  Slowdowns are FCT / ideal FCT as in
 * fct.csv, not clamped to 1 as the script clamps them: a flow shorter than
 * one packet can finish a little under its ideal FCT, whose base RTT counts
 * full-size packets on every hop (as the reference's does).  With fewer
 * flows than buckets some buckets are empty and are left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct size_bucket {
	double pct_from, pct_to; /* share of the flows, by size rank */
	uint64_t min_bytes, max_bytes;
	uint32_t flows;
	double mean, p50, p95, p99, max;
};

struct sized_flow {
	uint64_t bytes;
	double slowdown;
};

struct sized_list {
	struct sized_flow *v;
	size_t n;
};

/* in id order (the order they come in) */
static void add_sized(void *arg, uint64_t bytes, double slowdown)
{
	struct sized_list *l = arg;
	l->v[l->n++] = (struct sized_flow){ bytes, slowdown };
}

/* Sort v[0..n) by bytes, stably (a least-significant-digit radix sort,
 * 8 bits a pass, the passes where every size has the same digit
 * skipped): flows of one size stay in id order, the (bytes, id) order,
 * in O(n) for 10^8 flows.  The result is in *v (the buffers may swap). */
static void sort_by_size(struct sized_flow **v, struct sized_flow **tmp, size_t n)
{
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[(((*v)[i].bytes >> shift) & 0xff) + 1]++;
		bool trivial = false;
		for (unsigned d = 1; d <= 256; d++)
			trivial |= count[d] == n;
		if (trivial)
			continue;
		for (unsigned d = 1; d <= 256; d++)
			count[d] += count[d - 1];
		for (size_t i = 0; i < n; i++)
			(*tmp)[count[((*v)[i].bytes >> shift) & 0xff]++] = (*v)[i];
		struct sized_flow *t = *v;
		*v = *tmp;
		*tmp = t;
	}
}

/* The completed flows with their slowdown, sorted by (bytes, id). */
static size_t completed_by_size(const struct ws_sim *sim, struct sized_flow **out)
{
	size_t room = sim->n_done ? sim->n_done : 1;
	struct sized_list l = { ws_xcalloc(room, sizeof *l.v), 0 };
	ws_flows_done_each(sim, add_sized, &l);
	struct sized_flow *tmp = ws_xcalloc(room, sizeof *tmp);
	sort_by_size(&l.v, &tmp, l.n);
	free(tmp);
	*out = l.v;
	return l.n;
}

static void bucket_stats(const struct sized_flow *v, size_t n, double *scratch,
			 struct size_bucket *b)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		scratch[i] = v[i].slowdown;
		sum += v[i].slowdown;
	}
	static const double pcts[] = { 50, 95, 99, 100 };
	double got[4];
	ws_select_percentiles(scratch, n, pcts, 4, got);
	b->flows = (uint32_t)n;
	b->min_bytes = v[0].bytes;
	b->max_bytes = v[n - 1].bytes;
	b->mean = sum / (double)n;
	b->p50 = got[0];
	b->p95 = got[1];
	b->p99 = got[2];
	b->max = got[3];
}

/* The non-empty buckets into b[] (nb of room); returns how many. */
static size_t size_buckets(const struct ws_sim *sim, struct size_bucket *b, size_t nb)
{
	struct sized_flow *v;
	size_t n = completed_by_size(sim, &v);
	double *scratch = ws_xcalloc(n ? n : 1, sizeof *scratch);
	size_t used = 0;
	for (size_t i = 0; i < nb; i++) {
		size_t lo = i * n / nb, hi = (i + 1) * n / nb;
		if (hi == lo)
			continue;
		b[used].pct_from = 100.0 * (double)i / (double)nb;
		b[used].pct_to = 100.0 * (double)(i + 1) / (double)nb;
		bucket_stats(v + lo, hi - lo, scratch, &b[used]);
		used++;
	}
	free(scratch);
	free(v);
	return used;
}

/* The non-empty buckets (the run's, not to be freed); returns how many.
 * Worked out once for fct_by_size.csv and summary.json: at 10^8 flows a
 * pass over them is seconds. */
static size_t size_buckets_of(struct ws_sim *sim, const struct size_bucket **out)
{
	struct ws_flows_done *d = &sim->done;
	if (!d->by_size || d->by_size_at != sim->n_done) {
		size_t nb = sim->outc.fct_size_buckets ? sim->outc.fct_size_buckets : 1;
		free(d->by_size);
		struct size_bucket *b = ws_xcalloc(nb, sizeof *b);
		d->n_by_size = size_buckets(sim, b, nb);
		d->by_size = b;
		d->by_size_at = sim->n_done;
	}
	*out = d->by_size;
	return d->n_by_size;
}

int ws_write_fct_by_size(struct ws_sim *sim, const char *dir, struct ws_err *err)
{
	struct ws_outfile *o = ws_outfile_open(dir, "fct_by_size.csv", err);
	if (!o)
		return WS_EIO;
	FILE *f = ws_outfile_stream(o);
	const struct size_bucket *b;
	size_t n = size_buckets_of(sim, &b);
	fputs("bucket,flows_pct_from,flows_pct_to,min_bytes,max_bytes,flows,"
	      "mean,p50,p95,p99,max\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%zu,%.2f,%.2f,%" PRIu64 ",%" PRIu64 ",%u,%.6f,%.6f,%.6f,"
			"%.6f,%.6f\n", i, b[i].pct_from, b[i].pct_to, b[i].min_bytes,
			b[i].max_bytes, b[i].flows, b[i].mean, b[i].p50, b[i].p95,
			b[i].p99, b[i].max);
	return ws_outfile_commit(o, err);
}

void ws_json_fct_by_size(struct ws_sim *sim, struct ws_json *j)
{
	const struct size_bucket *b;
	size_t n = size_buckets_of(sim, &b);
	ws_json_begin_array(j, "fct_by_size");
	for (size_t i = 0; i < n; i++) {
		ws_json_begin(j, NULL);
		ws_json_f64(j, "flows_pct_from", b[i].pct_from);
		ws_json_f64(j, "flows_pct_to", b[i].pct_to);
		ws_json_u64(j, "min_bytes", b[i].min_bytes);
		ws_json_u64(j, "max_bytes", b[i].max_bytes);
		ws_json_u64(j, "flows", b[i].flows);
		ws_json_f64(j, "mean", b[i].mean);
		ws_json_f64(j, "p50", b[i].p50);
		ws_json_f64(j, "p95", b[i].p95);
		ws_json_f64(j, "p99", b[i].p99);
		ws_json_f64(j, "max", b[i].max);
		ws_json_end(j);
	}
	ws_json_end_array(j);
}
