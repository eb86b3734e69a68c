/* SPDX-License-Identifier: MIT */
/*
 * What the collective engine writes beyond its records (docs/outputs.md):
 * breakdown.csv, an iteration's time split into compute, exposed
 * communication per parallelism dimension and idle time, in total and per
 * layer; and timeline.json, the run in the Chrome trace-event format, one
 * process per GPU, one thread per kind of work.  Both read the run as spans
 * (struct coll_view), in start order within each iteration.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"

/* ---- compact member lists ------------------------------------------------- */

void coll_members_format(const uint32_t *g, uint32_t n, FILE *f)
{
	bool even = n >= 2 && g[1] > g[0];
	for (uint32_t i = 2; even && i < n; i++)
		even = g[i] > g[i - 1] && g[i] - g[i - 1] == g[1] - g[0];
	if (n == 1 || even) {
		fprintf(f, "%u:%u:%u", g[0], n > 1 ? g[1] - g[0] : 1, n);
		return;
	}
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		while (j + 1 < n && g[j + 1] == g[j] + 1)
			j++;
		fprintf(f, i ? ";%u" : "%u", g[i]);
		if (j > i)
			fprintf(f, "-%u", g[j]);
		i = j + 1;
	}
}

/* ---- the breakdown ------------------------------------------------------- */

/* per layer (and per iteration): what each instant went to */
enum { B_COMPUTE, B_OVERLAP, B_EXPOSED, B_IDLE = B_EXPOSED + COLL_DIMS, B_N };

/* a min-heap of span indices (indices are start order) */
struct heap {
	uint32_t *v;
	uint64_t n;
};

static void heap_push(struct heap *h, uint32_t x)
{
	uint64_t i = h->n++;
	while (i && h->v[(i - 1) / 2] > x) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

static void heap_pop(struct heap *h)
{
	uint32_t x = h->v[--h->n];
	uint64_t i = 0;
	for (;;) {
		uint64_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1] < h->v[c])
			c++;
		if (h->v[c] >= x)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
}

/* The earliest started span of h still running at t, or UINT32_MAX. */
static uint32_t heap_top(struct heap *h, const struct coll_span *sp, ws_time t)
{
	while (h->n && sp[h->v[0]].end <= t)
		heap_pop(h);
	return h->n ? h->v[0] : UINT32_MAX;
}

struct ev {
	ws_time t;
	uint32_t span;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->span > y->span) - (x->span < y->span);
}

struct bd {
	const struct coll_view *v;
	uint64_t *acc;          /* [(n_layers + 1) * B_N]: row n_layers is "none" */
	struct ev *ev;
	struct heap comp, comm;
	bool *on0;              /* per group: holds GPU 0 */
};

static uint64_t *bd_row(struct bd *b, uint32_t layer)
{
	uint32_t l = layer < b->v->n_layers ? layer : b->v->n_layers;
	return &b->acc[(uint64_t)l * B_N];
}

/* The instants [from, to) as the running spans say. */
static void bd_attribute(struct bd *b, ws_time from, ws_time to, uint64_t *tot)
{
	if (to <= from)
		return;
	const struct coll_span *sp = b->v->spans;
	uint64_t len = to - from;
	uint32_t c = heap_top(&b->comp, sp, from);
	uint32_t m = heap_top(&b->comm, sp, from);
	if (c != UINT32_MAX) {
		bd_row(b, sp[c].layer)[B_COMPUTE] += len;
		tot[B_COMPUTE] += len;
		if (m != UINT32_MAX) {
			bd_row(b, sp[c].layer)[B_OVERLAP] += len;
			tot[B_OVERLAP] += len;
		}
	} else if (m != UINT32_MAX) {
		unsigned d = coll_group_dim_of(b->v->e, sp[m].group);
		bd_row(b, sp[m].layer)[B_EXPOSED + d] += len;
		tot[B_EXPOSED + d] += len;
	} else {
		tot[B_IDLE] += len;
	}
}

static bool in_scope(const struct bd *b, const struct coll_span *s, bool gpu0)
{
	if (s->end <= s->start)
		return false;
	if (!gpu0)
		return true;
	return s->group != COLL_NONE && b->on0[s->group];
}

/* Iteration i's spans [lo, hi) over one scope: *tot and the layer rows. */
static void bd_sweep(struct bd *b, uint32_t i, uint64_t lo, uint64_t hi, bool gpu0,
		     uint64_t *tot)
{
	const struct coll_span *sp = b->v->spans;
	uint64_t ne = 0;
	for (uint64_t k = lo; k < hi; k++)
		if (in_scope(b, &sp[k], gpu0))
			b->ev[ne++] = (struct ev){ sp[k].start, (uint32_t)k };
	qsort(b->ev, ne, sizeof *b->ev, cmp_ev);
	b->comp.n = b->comm.n = 0;
	ws_time cur = b->v->iter_start[i];
	for (uint64_t k = 0; k < ne; k++) {
		const struct coll_span *s = &sp[b->ev[k].span];
		/* the instants before this start, then the ends among them */
		while (cur < s->start) {
			ws_time next = s->start;
			uint32_t c = heap_top(&b->comp, sp, cur), m = heap_top(&b->comm, sp, cur);
			if (c != UINT32_MAX && sp[c].end < next)
				next = sp[c].end;
			if (m != UINT32_MAX && sp[m].end < next)
				next = sp[m].end;
			bd_attribute(b, cur, next, tot);
			cur = next;
		}
		heap_push(s->kind == COLL_SPAN_COMPUTE ? &b->comp : &b->comm, b->ev[k].span);
	}
	ws_time end = b->v->iter_end[i];
	while (cur < end) {
		ws_time next = end;
		uint32_t c = heap_top(&b->comp, sp, cur), m = heap_top(&b->comm, sp, cur);
		if (c != UINT32_MAX && sp[c].end < next)
			next = sp[c].end;
		if (m != UINT32_MAX && sp[m].end < next)
			next = sp[m].end;
		bd_attribute(b, cur, next, tot);
		cur = next;
	}
}

static void put_ps(FILE *f, uint64_t t)
{
	fprintf(f, ",%" PRIu64 ".%03" PRIu64, t / 1000, t % 1000);
}

/* compute, overlap, exposed TP .. DP_EP, exposed other: the header's order */
static void put_parts(FILE *f, const uint64_t *r)
{
	put_ps(f, r[B_COMPUTE]);
	put_ps(f, r[B_OVERLAP]);
	for (int d = 1; d < COLL_DIMS; d++)
		put_ps(f, r[B_EXPOSED + d]);
	put_ps(f, r[B_EXPOSED + COLL_DIM_NONE]);
}

static void bd_write(struct bd *b, FILE *f, uint32_t i, const char *scope,
		     const uint64_t *tot)
{
	const struct coll_view *v = b->v;
	fprintf(f, "%u,%s,all,", i, scope);
	put_ps(f, v->iter_end[i] - v->iter_start[i]);
	put_parts(f, tot);
	put_ps(f, tot[B_IDLE]);
	fputc('\n', f);
	for (uint32_t l = 0; l <= v->n_layers; l++) {
		const uint64_t *r = &b->acc[(uint64_t)l * B_N];
		if (l == v->n_layers) {
			bool any = false;
			for (int k = 0; k < B_N; k++)
				any |= r[k] != 0;
			if (!any)
				break;
			fprintf(f, "%u,%s,none,", i, scope);
		} else {
			fprintf(f, "%u,%s,%u,%s", i, scope, l, coll_layer_name_of(v->e, l));
		}
		fputc(',', f); /* duration and idle: the iteration's row only */
		put_parts(f, r);
		fputs(",\n", f);
	}
}

static int bd_alloc(struct bd *b, const struct coll_view *v, struct ws_err *err)
{
	uint64_t n = v->n_spans + 1;
	b->v = v;
	b->acc = calloc(((uint64_t)v->n_layers + 1) * B_N, sizeof *b->acc);
	b->ev = malloc(n * sizeof *b->ev);
	b->comp.v = malloc(n * sizeof *b->comp.v);
	b->comm.v = malloc(n * sizeof *b->comm.v);
	b->on0 = calloc(v->n_groups + 1, sizeof *b->on0);
	if (!b->acc || !b->ev || !b->comp.v || !b->comm.v || !b->on0)
		return ws_err_set(err, WS_ENOMEM, "out of memory for breakdown.csv");
	for (uint32_t g = 0; g < v->n_groups; g++) {
		uint32_t m;
		const uint32_t *gp = coll_group_members(v->e, g, &m);
		for (uint32_t k = 0; k < m && !b->on0[g]; k++)
			b->on0[g] = gp[k] == 0;
	}
	return WS_OK;
}

static void bd_free(struct bd *b)
{
	free(b->acc);
	free(b->ev);
	free(b->comp.v);
	free(b->comm.v);
	free(b->on0);
}

int coll_write_breakdown(const struct coll_view *v, const char *dir,
			 struct ws_err *err)
{
	struct bd b = { 0 };
	int rc = bd_alloc(&b, v, err);
	struct ws_outfile *o = rc ? NULL : ws_outfile_open(dir, "breakdown.csv", err);
	if (!o) {
		bd_free(&b);
		return rc ? rc : WS_EIO;
	}
	FILE *f = ws_outfile_stream(o);
	fputs("iteration,scope,layer,layer_name,duration_ns,compute_ns,overlap_ns", f);
	for (int d = 1; d < COLL_DIMS; d++) {
		fputs(",exposed_", f);
		for (const char *c = coll_dim_names[d]; *c; c++)
			fputc(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c, f);
		fputs("_ns", f);
	}
	fputs(",exposed_other_ns,idle_ns\n", f);
	static const char *const scopes[2] = { "all", "gpu0" };
	uint64_t lo = 0;
	for (uint32_t i = 0; i < v->n_iters; i++) {
		uint64_t hi = lo;
		while (hi < v->n_spans && v->spans[hi].iter == i)
			hi++;
		for (int sc = 0; sc < 2; sc++) {
			uint64_t tot[B_N] = { 0 };
			memset(b.acc, 0, ((uint64_t)v->n_layers + 1) * B_N * sizeof *b.acc);
			bd_sweep(&b, i, lo, hi, sc == 1, tot);
			bd_write(&b, f, i, scopes[sc], tot);
		}
		lo = hi;
	}
	bd_free(&b);
	return ws_outfile_commit(o, err);
}

/* ---- the timeline ---------------------------------------------------------- */

/* a span on one GPU's track: lane 0 compute, 1 + dim for collectives */
struct tl_item {
	uint32_t gpu, lane, span;
};

static int cmp_item(const void *a, const void *b)
{
	const struct tl_item *x = a, *y = b;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	return (x->span > y->span) - (x->span < y->span);
}

static const char *lane_name(uint32_t lane)
{
	if (lane == 0)
		return "compute";
	return lane == 1 ? "other" : coll_dim_names[lane - 1];
}

/* a time in µs, exact: ps / 10^6 with six decimals */
static void put_us(FILE *f, const char *key, ws_time t)
{
	fprintf(f, ",\"%s\":%" PRIu64 ".%06" PRIu64, key, t / 1000000, t % 1000000);
}

static void tl_span(FILE *f, const struct coll_view *v, const struct coll_span *s,
		    uint32_t gpu, uint32_t tid)
{
	const char *lname = s->layer != COLL_NONE ? coll_layer_name_of(v->e, s->layer) : "";
	bool comp = s->kind == COLL_SPAN_COMPUTE;
	fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\"",
		comp ? (*lname ? lname : "compute") : coll_kind_name((enum coll_kind)s->kind),
		comp ? "compute" : lane_name(1 + coll_group_dim_of(v->e, s->group)));
	put_us(f, "ts", s->start);
	put_us(f, "dur", s->end - s->start);
	fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"iteration\":%u", gpu, tid, s->iter);
	if (!comp)
		fprintf(f, ",\"id\":%" PRIu64 ",\"group\":\"%s\",\"instance\":%u,"
			"\"bytes\":%" PRIu64, s->id, coll_group_label(v->e, s->group),
			coll_group_instance(v->e, s->group), s->bytes);
	if (s->layer != COLL_NONE)
		fprintf(f, ",\"layer\":%u,\"layer_name\":\"%s\"", s->layer, lname);
	fprintf(f, ",\"phase\":\"%s\"}}", coll_phase_names[s->phase]);
}

/* The items of the tracked GPUs (every k-th); *n of them, NULL: no memory. */
static struct tl_item *tl_items(const struct coll_view *v, uint32_t k, uint64_t *n)
{
	uint64_t cnt = 0;
	for (int pass = 0; pass < 2; pass++) {
		struct tl_item *it = pass ? malloc((cnt + 1) * sizeof *it) : NULL;
		if (pass && !it)
			return NULL;
		cnt = 0;
		for (uint64_t i = 0; i < v->n_spans; i++) {
			const struct coll_span *s = &v->spans[i];
			if (s->group == COLL_NONE || s->end <= s->start)
				continue;
			uint32_t m;
			const uint32_t *g = coll_group_members(v->e, s->group, &m);
			uint32_t lane = s->kind == COLL_SPAN_COMPUTE ? 0 :
					1 + coll_group_dim_of(v->e, s->group);
			for (uint32_t j = 0; j < m; j++)
				if (g[j] % k == 0) {
					if (pass)
						it[cnt] = (struct tl_item){ g[j], lane, (uint32_t)i };
					cnt++;
				}
		}
		if (pass) {
			qsort(it, cnt, sizeof *it, cmp_item);
			*n = cnt;
			return it;
		}
	}
	return NULL;
}

/*
 * One process per tracked GPU ("GPU g"), one thread per lane (compute, TP,
 * DP, EP, PP, DP_EP, other); spans of a lane that overlap go to further
 * threads of it ("TP 2", ...), so no two spans of a thread overlap.
 */
int coll_write_timeline(const struct coll_view *v, const char *dir,
			uint32_t max_tracks, struct ws_err *err)
{
	uint32_t k = v->gpus > max_tracks ? (v->gpus + max_tracks - 1) / max_tracks : 1;
	uint64_t n = 0;
	struct tl_item *it = tl_items(v, k, &n);
	ws_time *last = malloc(1024 * sizeof *last);
	if (!it || !last) {
		free(it);
		free(last);
		return ws_err_set(err, WS_ENOMEM, "out of memory for timeline.json");
	}
	struct ws_outfile *o = ws_outfile_open(dir, "timeline.json", err);
	if (!o) {
		free(it);
		free(last);
		return WS_EIO;
	}
	FILE *f = ws_outfile_stream(o);
	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"gpus\":%u,"
		"\"gpu_stride\":%u},\n\"traceEvents\":[\n"
		"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}}",
		v->gpus, k);
	uint32_t gpu = 0, lane = UINT32_MAX, subs = 0;
	for (uint64_t i = 0; i < n; i++) {
		const struct coll_span *s = &v->spans[it[i].span];
		if (it[i].gpu != gpu) {
			gpu = it[i].gpu;
			lane = UINT32_MAX;
			fprintf(f, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,"
				"\"args\":{\"name\":\"GPU %u\"}}", gpu, gpu);
		}
		if (it[i].lane != lane) {
			lane = it[i].lane;
			subs = 0;
		}
		uint32_t sub = 0;
		while (sub < subs && last[sub] > s->start)
			sub++;
		if (sub == subs && subs < 1024) {
			subs++;
			fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,"
				"\"tid\":%u,\"args\":{\"name\":\"%s", gpu, lane * 1024 + sub,
				lane_name(lane));
			if (sub)
				fprintf(f, " %u", sub + 1);
			fputs("\"}}", f);
		}
		if (sub == 1024)
			sub = 1023; /* beyond 1024 overlapping spans: not kept apart */
		last[sub] = s->end;
		tl_span(f, v, s, gpu, lane * 1024 + sub);
	}
	fputs("\n]}\n", f);
	free(it);
	free(last);
	return ws_outfile_commit(o, err);
}
