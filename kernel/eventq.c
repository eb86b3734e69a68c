/* SPDX-License-Identifier: MIT */
/*
 * The event queue, ordered by (time, sequence) so that events at the same
 * picosecond run in the order they were scheduled (a deterministic FIFO
 * tie-break).
 *
 * Two structures, chosen by measurement (docs/performance.md):
 *   - a timing wheel for the near future, where almost every event of a
 *     packet simulation lands (serialization ends, arrivals one link delay
 *     ahead, pacing): WS_WHEEL_N buckets of 2^WS_WHEEL_RES ps and a bitmap
 *     of the non-empty ones.  A bucket is an array of record pointers,
 *     unsorted, so insertion appends without touching other records; when
 *     it becomes the current bucket its records are prefetched together,
 *     it is sorted once and kept sorted while current, and each pop takes
 *     the next one (prefetching the one after).
 *   - a 4-ary min-heap for events beyond the wheel's horizon (CC timers,
 *     timeouts, future flow starts).  Its entries hold the key inline; a
 *     cancelled entry is left behind and recognised as stale because its
 *     sequence no longer matches the record's.
 * The earliest event is the smaller of the wheel's first and the heap's top.
 *
 * A record is one 64-byte cache line; records come from a pool and are
 * recycled at once.  Nothing on the run path maintains per-owner lists:
 * freezing a set of owners (rare: acceleration plugins) scans the live
 * events for theirs and parks them on their owners; thawing puts them back
 * with their times shifted.  A parked event keeps its sequence, so events
 * thawed together keep their relative order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define EV_BLOCK 4096

struct ws_evblock {
	struct ws_event ev[EV_BLOCK];
	struct ws_evblock *next;
};

_Static_assert(sizeof(struct ws_event) == 64, "an event record is one cache line");

void ws_eventq_init(struct ws_eventq *q)
{
	memset(q, 0, sizeof *q);
	q->bucket = ws_xcalloc(WS_WHEEL_N, sizeof *q->bucket);
	q->next_seq = 1;
	q->sorted = 0; /* bucket 0 is empty, hence sorted */
}

void ws_eventq_fini(struct ws_eventq *q)
{
	struct ws_evblock *b = q->blocks;
	while (b) {
		struct ws_evblock *next = b->next;
		free(b);
		b = next;
	}
	free(q->heap);
	for (uint32_t i = 0; q->bucket && i < WS_WHEEL_N; i++)
		free(q->bucket[i].ev);
	free(q->bucket);
	memset(q, 0, sizeof *q);
}

static struct ws_event *ev_alloc(struct ws_eventq *q)
{
	if (!q->free) {
		struct ws_evblock *b = aligned_alloc(64, sizeof *b);
		if (!b)
			b = ws_xcalloc(1, sizeof *b); /* reports and aborts */
		memset(b, 0, sizeof *b);
		b->next = q->blocks;
		q->blocks = b;
		q->n_blocks++;
		for (size_t i = EV_BLOCK; i-- > 0;) {
			b->ev[i].wnext = q->free;
			q->free = &b->ev[i];
		}
	}
	struct ws_event *ev = q->free;
	q->free = ev->wnext;
	return ev;
}

static void ev_release(struct ws_eventq *q, struct ws_event *ev)
{
	ev->seq = 0;
	ev->where = WS_EV_PARKED;
	ev->owner = NULL;
	ev->wnext = q->free;
	q->free = ev;
	q->live--;
}

static inline bool ev_before(ws_time wa, uint64_t sa, ws_time wb, uint64_t sb)
{
	return wa < wb || (wa == wb && sa < sb);
}

/* ---- heap (far future) ---------------------------------------------------- */

static inline bool ent_less(const struct ws_heap_ent *a,
			    const struct ws_heap_ent *b)
{
	return ev_before(a->when, a->seq, b->when, b->seq);
}

static void sift_down(struct ws_heap_ent *h, size_t n, size_t i,
		      struct ws_heap_ent e)
{
	for (;;) {
		size_t c = (i << 2) + 1;
		if (c >= n)
			break;
		size_t best = c;
		size_t end = c + 4 < n ? c + 4 : n;
		for (size_t k = c + 1; k < end; k++)
			if (ent_less(&h[k], &h[best]))
				best = k;
		if (!ent_less(&h[best], &e))
			break;
		h[i] = h[best];
		i = best;
	}
	h[i] = e;
}

static void heap_push(struct ws_eventq *q, struct ws_event *ev)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 256;
		q->heap = ws_xrealloc(q->heap, q->cap, sizeof *q->heap);
	}
	struct ws_heap_ent e = { ev->when, ev->seq, ev };
	struct ws_heap_ent *h = q->heap;
	size_t i = q->n++;
	while (i > 0) {
		size_t parent = (i - 1) >> 2;
		if (!ent_less(&e, &h[parent]))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = e;
	ev->where = WS_EV_HEAP;
}

static void heap_pop_top(struct ws_eventq *q)
{
	size_t n = --q->n;
	if (n > 0)
		sift_down(q->heap, n, 0, q->heap[n]);
}

static inline bool ent_valid(const struct ws_heap_ent *e)
{
	return e->ev->seq == e->seq && e->ev->where == WS_EV_HEAP;
}

static void heapify(struct ws_eventq *q)
{
	size_t n = q->n;
	if (n < 2)
		return;
	for (size_t start = (n - 2) / 4 + 1; start-- > 0;)
		sift_down(q->heap, n, start, q->heap[start]);
}

/* Rebuild the heap without its stale entries. */
static void heap_compact(struct ws_eventq *q)
{
	size_t n = 0;
	for (size_t i = 0; i < q->n; i++)
		if (ent_valid(&q->heap[i]))
			q->heap[n++] = q->heap[i];
	q->n = n;
	q->stale = 0;
	heapify(q);
}

/* The heap's earliest live entry, dropping stale ones; NULL if none. */
static struct ws_heap_ent *heap_top(struct ws_eventq *q)
{
	while (q->n > 0) {
		if (ent_valid(&q->heap[0]))
			return &q->heap[0];
		q->stale--;
		heap_pop_top(q);
	}
	return NULL;
}

/* ---- wheel (near future) ---------------------------------------------------- */

static inline uint64_t bucket_of(ws_time t)
{
	return t >> WS_WHEEL_RES;
}

static inline uint32_t slot_of(ws_time t)
{
	return (uint32_t)(bucket_of(t) & (WS_WHEEL_N - 1));
}

static void bucket_grow(struct ws_bucket *b)
{
	b->cap = b->cap ? b->cap * 2 : 8;
	b->ev = ws_xrealloc(b->ev, b->cap, sizeof *b->ev);
}

static void wheel_insert(struct ws_eventq *q, struct ws_event *ev)
{
	uint32_t i = slot_of(ev->when);
	struct ws_bucket *b = &q->bucket[i];
	if (b->n == b->cap)
		bucket_grow(b);
	uint32_t at = b->n;
	if (i == q->sorted) {
		/* keep the current bucket sorted */
		while (at > b->pos && ev_before(ev->when, ev->seq, b->ev[at - 1]->when,
						b->ev[at - 1]->seq)) {
			b->ev[at] = b->ev[at - 1];
			at--;
		}
	}
	b->ev[at] = ev;
	b->n++;
	q->bits[i >> 6] |= 1ull << (i & 63);
	q->in_wheel++;
	ev->where = WS_EV_WHEEL;
}

static void bucket_emptied(struct ws_eventq *q, uint32_t i)
{
	q->bucket[i].n = q->bucket[i].pos = 0;
	q->bits[i >> 6] &= ~(1ull << (i & 63));
}

static void wheel_remove(struct ws_eventq *q, struct ws_event *ev)
{
	uint32_t i = slot_of(ev->when);
	struct ws_bucket *b = &q->bucket[i];
	uint32_t k = b->pos;
	while (b->ev[k] != ev)
		k++;
	memmove(&b->ev[k], &b->ev[k + 1], (b->n - k - 1) * sizeof *b->ev);
	b->n--;
	if (b->pos == b->n)
		bucket_emptied(q, i);
	q->in_wheel--;
	ev->where = WS_EV_PARKED;
}

static void sort_bucket(struct ws_bucket *b)
{
	/* the records are cold: ask for all of them before comparing */
	for (uint32_t k = 0; k < b->n; k++)
		__builtin_prefetch(b->ev[k]);
	for (uint32_t k = 1; k < b->n; k++) {
		struct ws_event *x = b->ev[k];
		uint32_t j = k;
		while (j > 0 && ev_before(x->when, x->seq, b->ev[j - 1]->when,
					  b->ev[j - 1]->seq)) {
			b->ev[j] = b->ev[j - 1];
			j--;
		}
		b->ev[j] = x;
	}
	b->pos = 0;
}

/*
 * The earliest wheel event: every wheel event lies in buckets [cur, cur + N),
 * so the first non-empty bucket in circular order from cur holds it; that
 * bucket is sorted (once) and its next record is the answer.
 */
static struct ws_event *wheel_first(struct ws_eventq *q)
{
	if (!q->in_wheel)
		return NULL;
	uint32_t start = (uint32_t)(q->cur & (WS_WHEEL_N - 1));
	uint32_t w = start >> 6;
	uint64_t word = q->bits[w] & (~0ull << (start & 63));
	for (uint32_t k = 0; k <= WS_WHEEL_N / 64; k++) {
		if (word) {
			uint32_t i = (w << 6) + (uint32_t)__builtin_ctzll(word);
			struct ws_bucket *b = &q->bucket[i];
			if (i != q->sorted) {
				sort_bucket(b);
				q->sorted = i;
			}
			return b->ev[b->pos];
		}
		w = (w + 1) & (WS_WHEEL_N / 64 - 1);
		word = q->bits[w];
	}
	return NULL;
}

/* Take the event wheel_first() returned. */
static void wheel_take(struct ws_eventq *q, struct ws_event *ev)
{
	uint32_t i = slot_of(ev->when);
	struct ws_bucket *b = &q->bucket[i];
	b->pos++;
	if (b->pos == b->n) {
		bucket_emptied(q, i);
	} else {
		/* the next record was prefetched by the sort: ask for what its
		 * handler will read (arg is often a packet; a prefetch of a small
		 * integer is harmless) */
		const struct ws_event *nx = b->ev[b->pos];
		__builtin_prefetch(nx->obj);
		__builtin_prefetch((const void *)(uintptr_t)nx->arg);
	}
	q->in_wheel--;
	ev->where = WS_EV_PARKED;
}

static void place(struct ws_eventq *q, struct ws_event *ev)
{
	if (bucket_of(ev->when) - q->cur < WS_WHEEL_N)
		wheel_insert(q, ev);
	else
		heap_push(q, ev);
}

static void park(struct ws_event *ev)
{
	struct ws_owner *o = ev->owner;
	ev->where = WS_EV_PARKED;
	ev->wnext = o->parked;
	o->parked = ev;
	o->n_parked++;
}

/* ---- interface --------------------------------------------------------------- */

struct ws_evh ws_eventq_push(struct ws_eventq *q, struct ws_owner *owner,
			     ws_time when, ws_event_fn fn, void *obj,
			     uint64_t arg)
{
	struct ws_event *ev = ev_alloc(q);
	uint64_t seq = q->next_seq++;
	ev->seq = seq;
	ev->when = when;
	ev->fn = fn;
	ev->obj = obj;
	ev->arg = arg;
	ev->owner = owner;
	q->live++;
	if (owner && owner->frozen)
		park(ev);
	else
		place(q, ev);
	return (struct ws_evh){ ev, seq };
}

/* The earliest live event, or NULL. */
static struct ws_event *first(struct ws_eventq *q)
{
	struct ws_event *w = wheel_first(q);
	struct ws_heap_ent *h = heap_top(q);
	if (!h)
		return w;
	if (!w || ev_before(h->when, h->seq, w->when, w->seq))
		return h->ev;
	return w;
}

bool ws_eventq_pop(struct ws_eventq *q, ws_time limit, struct ws_fired *out)
{
	struct ws_event *ev = first(q);
	if (!ev || ev->when > limit)
		return false;
	if (ev->where == WS_EV_WHEEL)
		wheel_take(q, ev);
	else
		heap_pop_top(q); /* it was the heap's valid top */
	/* wheel events stay within [cur, cur + N) as cur moves forward */
	q->cur = bucket_of(ev->when);
	out->when = ev->when;
	out->fn = ev->fn;
	out->obj = ev->obj;
	out->arg = ev->arg;
	ev_release(q, ev);
	return true;
}

ws_time ws_eventq_peek(struct ws_eventq *q)
{
	struct ws_event *ev = first(q);
	return ev ? ev->when : WS_TIME_NEVER;
}

bool ws_eventq_pending(const struct ws_eventq *q, struct ws_evh h)
{
	(void)q;
	return h.ev && h.seq && h.ev->seq == h.seq;
}

bool ws_eventq_cancel(struct ws_eventq *q, struct ws_evh h)
{
	if (!ws_eventq_pending(q, h))
		return false;
	struct ws_event *ev = h.ev;
	if (ev->where == WS_EV_WHEEL) {
		wheel_remove(q, ev);
	} else if (ev->where == WS_EV_HEAP) {
		q->stale++; /* its entry stays behind */
	} else {
		struct ws_owner *o = ev->owner;
		struct ws_event **link = &o->parked;
		while (*link != ev)
			link = &(*link)->wnext;
		*link = ev->wnext;
		o->n_parked--;
	}
	ev_release(q, ev);
	if (q->stale > 4096 && q->stale > q->n / 2)
		heap_compact(q);
	return true;
}

void ws_eventq_park(struct ws_eventq *q, struct ws_evh h)
{
	if (!ws_eventq_pending(q, h))
		return;
	struct ws_event *ev = h.ev;
	if (!ev->owner || !ev->owner->frozen || ev->where == WS_EV_PARKED)
		return;
	if (ev->where == WS_EV_WHEEL)
		wheel_remove(q, ev);
	else
		q->stale++; /* its heap entry is no longer valid */
	park(ev);
	if (q->stale > 4096 && q->stale > q->n / 2)
		heap_compact(q);
}

void ws_eventq_freeze(struct ws_eventq *q, struct ws_owner *const *owners,
		      size_t n)
{
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any |= owners[i]->frozen++ == 0;
	if (!any)
		return;
	/* park every wheel and heap event whose owner is now frozen */
	for (uint32_t i = 0; i < WS_WHEEL_N && q->in_wheel; i++) {
		struct ws_bucket *b = &q->bucket[i];
		uint32_t keep = b->pos;
		for (uint32_t k = b->pos; k < b->n; k++) {
			struct ws_event *ev = b->ev[k];
			if (ev->owner && ev->owner->frozen) {
				q->in_wheel--;
				park(ev);
			} else {
				b->ev[keep++] = ev;
			}
		}
		b->n = keep;
		if (b->n == b->pos && (q->bits[i >> 6] & (1ull << (i & 63))))
			bucket_emptied(q, i);
	}
	size_t k = 0;
	for (size_t i = 0; i < q->n; i++) {
		struct ws_heap_ent *e = &q->heap[i];
		if (!ent_valid(e))
			continue;
		if (e->ev->owner && e->ev->owner->frozen)
			park(e->ev);
		else
			q->heap[k++] = *e;
	}
	q->n = k;
	q->stale = 0;
	heapify(q);
}

static int cmp_order(const void *a, const void *b)
{
	const struct ws_event *x = *(struct ws_event *const *)a;
	const struct ws_event *y = *(struct ws_event *const *)b;
	if (x->when != y->when)
		return x->when < y->when ? -1 : 1;
	return x->seq < y->seq ? -1 : (x->seq > y->seq ? 1 : 0);
}

void ws_eventq_thaw(struct ws_eventq *q, struct ws_owner *const *owners,
		    size_t n, ws_time shift, ws_time now)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		if (owners[i]->frozen == 1)
			total += owners[i]->n_parked;
	struct ws_event **evs = total ? ws_xcalloc(total, sizeof *evs) : NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct ws_owner *o = owners[i];
		if (!o->frozen || --o->frozen)
			continue;
		for (struct ws_event *ev = o->parked; ev; ev = ev->wnext)
			evs[k++] = ev;
		o->parked = NULL;
		o->n_parked = 0;
	}
	/* in their original relative order; they keep their sequences */
	if (k)
		qsort(evs, k, sizeof *evs, cmp_order);
	for (size_t i = 0; i < k; i++) {
		ws_time t = evs[i]->when + shift;
		evs[i]->when = t < now ? now : t;
		place(q, evs[i]);
	}
	free(evs);
}
