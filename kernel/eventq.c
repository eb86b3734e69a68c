/* SPDX-License-Identifier: MIT */
/*
 * The event queue, ordered by (time, sequence) so that events at the same
 * picosecond run in the order they were scheduled (a deterministic FIFO
 * tie-break).
 *
 * Two structures, chosen by measurement (docs/performance.md):
 *   - a timing wheel for the near future, where almost every event of a
 *     packet simulation lands (serialization ends, arrivals one link delay
 *     ahead, pacing): 2^bits buckets of 2^res ps, both set from the
 *     fabric's rates and delays (ws_eventq_shape), and a two-level bitmap
 *     of the non-empty buckets, so finding the next one is a few
 *     find-first-set instructions however sparse the events are.  A bucket
 *     holds 40-byte entries (key, handler, object, argument, owner), the
 *     key being the event's offset in the bucket above its sequence, in
 *     512-byte chunks from a pool shared by all buckets (the wheel's
 *     memory follows its live events, not its size).  When a bucket
 *     becomes the current one its entries move to one array and are
 *     sorted on the keys alone (insertion sort when few, merge sort when
 *     many); an event that comes into the current bucket later is
 *     appended when it sorts last and otherwise goes to a small heap
 *     beside the array, so an insertion never shifts the bucket (on a
 *     8,192-host fabric a bucket holds thousands of events).  Each pop
 *     takes the smaller of the array's next entry and the heap's top, and
 *     prefetches the object and argument (port, packet) of the entries a
 *     few places ahead.
 *   - a 4-ary min-heap for events beyond the wheel's horizon (CC timers,
 *     timeouts, future flow starts), whose entries carry the same fields.
 *     A cancelled entry is left behind and recognised as stale because its
 *     sequence no longer matches its record's.
 * The earliest event is the smaller of the wheel's first and the heap's top.
 *
 * A record (one 64-byte cache line, from a pool, recycled at once) exists
 * only for an event somebody holds a handle to (ws_eventq_push: it can be
 * cancelled) and for a parked one: the per-packet events are posted
 * (ws_eventq_post) and live in their queue entry alone, so the pop reads
 * no cold record.  Nothing on the run path maintains per-owner lists:
 * freezing a set of owners (rare: acceleration plugins) scans the queued
 * entries for theirs and parks them on their owners as records, out of
 * the wheel and the heap; thawing puts them back with their times
 * shifted.  A parked event keeps its sequence, so events thawed together
 * keep their relative order.
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
_Static_assert(sizeof(struct ws_wentry) == 40, "a wheel entry is five words");
_Static_assert(sizeof(struct ws_chunk) == 512, "a chunk is eight cache lines");

/* chunks come in slabs of 2 MiB, on a huge page where the kernel agrees */
#define CHUNK_SLAB_BYTES ((size_t)2 << 20)
#define CHUNK_SLAB ((CHUNK_SLAB_BYTES - 64) / sizeof(struct ws_chunk))

struct ws_chunkslab {
	struct ws_chunkslab *next;
	uint8_t pad[64 - sizeof(void *)];
	struct ws_chunk c[CHUNK_SLAB];
};

#define SEQ_MASK ((UINT64_C(1) << WS_EV_SEQ_BITS) - 1)

static inline struct ws_event *rec_of(uintptr_t ref)
{
	return (ref & WS_EV_REF_REC) ? (struct ws_event *)(ref & ~WS_EV_REF_REC) : NULL;
}

static inline struct ws_owner *owner_of(uintptr_t ref)
{
	if (ref & WS_EV_REF_REC)
		return ((const struct ws_event *)(ref & ~WS_EV_REF_REC))->owner;
	struct ws_owner *o;
	memcpy(&o, &ref, sizeof o); /* an owner's address, or NULL */
	return o;
}

static void wheel_alloc(struct ws_eventq *q, unsigned res, unsigned bits)
{
	size_t n = (size_t)1 << bits;
	size_t words = n / 64;
	q->res = res;
	q->nbits = bits;
	q->mask = (uint32_t)(n - 1);
	q->bucket = ws_xcalloc(n, sizeof *q->bucket);
	q->bits = ws_xcalloc(words, sizeof *q->bits);
	q->summary = ws_xcalloc((words + 63) / 64, sizeof *q->summary);
	q->sorted = 0; /* the current bucket: empty */
	q->sorted_abs = 0;
	q->cur_n = q->cur_pos = 0;
	q->late_n = 0;
}

static void wheel_free(struct ws_eventq *q)
{
	free(q->bucket);
	free(q->bits);
	free(q->summary);
	q->bucket = NULL;
	q->bits = q->summary = NULL;
}

void ws_eventq_init(struct ws_eventq *q)
{
	memset(q, 0, sizeof *q);
	wheel_alloc(q, 11, 13); /* 2 ns buckets, 16.8 us: until shaped */
	q->next_seq = 1;
}

void ws_eventq_shape(struct ws_eventq *q, unsigned res, unsigned bits)
{
	WS_ASSERT(q->in_wheel == 0, "the wheel is reshaped with %zu events in it",
		  q->in_wheel);
	res = WS_MAX(WS_MIN(res, WS_WHEEL_RES_MAX), WS_WHEEL_RES_MIN);
	bits = WS_MAX(WS_MIN(bits, WS_WHEEL_BITS_MAX), WS_WHEEL_BITS_MIN);
	ws_time now = (ws_time)q->cur << q->res;
	wheel_free(q);
	wheel_alloc(q, res, bits);
	q->cur = now >> res;
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
	free(q->scratch);
	free(q->cur_e);
	free(q->late);
	while (q->slabs) {
		struct ws_chunkslab *next = q->slabs->next;
		ws_huge_unmap(q->slabs, CHUNK_SLAB_BYTES);
		q->slabs = next;
	}
	wheel_free(q);
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
}

/* A record for a queued event that has none (to park it). */
static struct ws_event *ev_make(struct ws_eventq *q, ws_time when, uint64_t seq,
				ws_event_fn fn, void *obj, uint64_t arg,
				struct ws_owner *owner)
{
	struct ws_event *ev = ev_alloc(q);
	ev->when = when;
	ev->seq = seq;
	ev->fn = fn;
	ev->obj = obj;
	ev->arg = arg;
	ev->owner = owner;
	ev->where = WS_EV_PARKED;
	return ev;
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

static void heap_push(struct ws_eventq *q, struct ws_heap_ent e)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 256;
		q->heap = ws_xrealloc(q->heap, q->cap, sizeof *q->heap);
	}
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
	struct ws_event *ev = rec_of(e.ref);
	if (ev)
		ev->where = WS_EV_HEAP;
}

static void heap_pop_top(struct ws_eventq *q)
{
	size_t n = --q->n;
	if (n > 0)
		sift_down(q->heap, n, 0, q->heap[n]);
}

/* A heap entry without a record cannot be cancelled: always valid. */
static inline bool ent_valid(const struct ws_heap_ent *e)
{
	const struct ws_event *ev = rec_of(e->ref);
	return !ev || (ev->seq == e->seq && ev->where == WS_EV_HEAP);
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

static inline uint64_t bucket_of(const struct ws_eventq *q, ws_time t)
{
	return t >> q->res;
}

static inline uint32_t slot_of(const struct ws_eventq *q, ws_time t)
{
	return (uint32_t)(bucket_of(q, t) & q->mask);
}

static inline uint64_t key_of(const struct ws_eventq *q, ws_time when, uint64_t seq)
{
	uint64_t off = when & (((uint64_t)1 << q->res) - 1);
	return off << WS_EV_SEQ_BITS | seq;
}

/* The absolute bucket number of wheel slot i (every wheel event lies in
 * buckets [cur, cur + N)). */
static inline uint64_t abs_of(const struct ws_eventq *q, uint32_t i)
{
	return q->cur + ((i - (uint32_t)q->cur) & q->mask);
}

/* An entry's time, given its bucket's absolute number. */
static inline ws_time entry_when(const struct ws_eventq *q, uint64_t abs,
				 const struct ws_wentry *e)
{
	return (abs << q->res) | (e->key >> WS_EV_SEQ_BITS);
}

static inline void mark_full(struct ws_eventq *q, uint32_t i)
{
	uint32_t w = i >> 6;
	q->bits[w] |= 1ull << (i & 63);
	q->summary[w >> 6] |= 1ull << (w & 63);
}

static inline void mark_empty(struct ws_eventq *q, uint32_t i)
{
	uint32_t w = i >> 6;
	q->bits[w] &= ~(1ull << (i & 63));
	if (!q->bits[w])
		q->summary[w >> 6] &= ~(1ull << (w & 63));
}

static struct ws_chunk *chunk_get(struct ws_eventq *q)
{
	if (!q->free_chunks) {
		struct ws_chunkslab *s = ws_huge_map(CHUNK_SLAB_BYTES);
		s->next = q->slabs;
		q->slabs = s;
		for (size_t k = CHUNK_SLAB; k-- > 0;) {
			s->c[k].next = q->free_chunks;
			q->free_chunks = &s->c[k];
		}
		q->n_chunks += CHUNK_SLAB;
	}
	struct ws_chunk *c = q->free_chunks;
	q->free_chunks = c->next;
	c->n = 0;
	return c;
}

static inline void chunk_put(struct ws_eventq *q, struct ws_chunk *c)
{
	c->next = q->free_chunks;
	q->free_chunks = c;
}

/* Append to a bucket that is not the current one. */
static void bucket_append(struct ws_eventq *q, struct ws_bucket *b,
			  const struct ws_wentry *e)
{
	struct ws_chunk *c = b->head;
	if (!c || c->n == WS_CHUNK_ENTRIES) {
		c = chunk_get(q);
		c->next = b->head;
		b->head = c;
	}
	c->e[c->n++] = *e;
	b->n++;
}

/* Move a bucket's entries into `out` (b->n of them) and free its chunks. */
static void bucket_gather(struct ws_eventq *q, struct ws_bucket *b,
			  struct ws_wentry *out)
{
	uint32_t k = 0;
	for (struct ws_chunk *c = b->head; c;) {
		struct ws_chunk *next = c->next;
		if (next)
			__builtin_prefetch(next);
		memcpy(out + k, c->e, c->n * sizeof *out);
		k += c->n;
		chunk_put(q, c);
		c = next;
	}
	b->head = NULL;
	b->n = 0;
}

static void cur_reserve(struct ws_eventq *q, uint32_t n)
{
	if (n > q->cur_cap) {
		q->cur_cap = WS_MAX(n, 2 * q->cur_cap);
		q->cur_e = ws_xrealloc(q->cur_e, q->cur_cap, sizeof *q->cur_e);
	}
}

/* ---- the late heap: entries that came into the current bucket out of order */

static void late_up(struct ws_wentry *h, uint32_t i, struct ws_wentry e)
{
	while (i > 0) {
		uint32_t parent = (i - 1) >> 1;
		if (h[parent].key <= e.key)
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = e;
}

static void late_down(struct ws_wentry *h, uint32_t n, uint32_t i,
		      struct ws_wentry e)
{
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1].key < h[c].key)
			c++;
		if (e.key <= h[c].key)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

static void late_push(struct ws_eventq *q, const struct ws_wentry *e)
{
	if (q->late_n == q->late_cap) {
		q->late_cap = q->late_cap ? 2 * q->late_cap : 64;
		q->late = ws_xrealloc(q->late, q->late_cap, sizeof *q->late);
	}
	late_up(q->late, q->late_n++, *e);
}

/* Remove late[i]. */
static void late_remove(struct ws_eventq *q, uint32_t i)
{
	struct ws_wentry last = q->late[--q->late_n];
	if (i == q->late_n)
		return;
	if (i > 0 && last.key < q->late[(i - 1) >> 1].key)
		late_up(q->late, i, last);
	else
		late_down(q->late, q->late_n, i, last);
}

static void late_heapify(struct ws_eventq *q)
{
	for (uint32_t i = q->late_n / 2; i-- > 0;)
		late_down(q->late, q->late_n, i, q->late[i]);
}

static inline bool current_empty(const struct ws_eventq *q)
{
	return q->cur_pos == q->cur_n && q->late_n == 0;
}

static void wheel_insert(struct ws_eventq *q, ws_time when, const struct ws_wentry *e)
{
	uint32_t i = slot_of(q, when);
	if (i == q->sorted && !current_empty(q)) {
		/* the current bucket: appended when it sorts last, else beside */
		if (q->cur_pos < q->cur_n && e->key > q->cur_e[q->cur_n - 1].key) {
			cur_reserve(q, q->cur_n + 1);
			q->cur_e[q->cur_n++] = *e;
		} else {
			late_push(q, e);
		}
	} else if (i == q->sorted) {
		/* the current bucket, emptied: it starts again with this entry */
		cur_reserve(q, 1);
		q->cur_e[0] = *e;
		q->cur_pos = 0;
		q->cur_n = 1;
		q->sorted_abs = bucket_of(q, when);
	} else {
		bucket_append(q, &q->bucket[i], e);
	}
	mark_full(q, i);
	q->in_wheel++;
	struct ws_event *ev = rec_of(e->ref);
	if (ev)
		ev->where = WS_EV_WHEEL;
}

/* Take a record-backed event out of the wheel (cancel, park). */
static void wheel_remove(struct ws_eventq *q, struct ws_event *ev)
{
	uintptr_t ref = (uintptr_t)ev | WS_EV_REF_REC;
	uint32_t i = slot_of(q, ev->when);
	if (i == q->sorted && !current_empty(q)) {
		uint32_t k = q->cur_pos;
		while (k < q->cur_n && q->cur_e[k].ref != ref)
			k++;
		if (k < q->cur_n) {
			memmove(&q->cur_e[k], &q->cur_e[k + 1],
				(q->cur_n - k - 1) * sizeof *q->cur_e);
			q->cur_n--;
		} else {
			uint32_t j = 0;
			while (q->late[j].ref != ref)
				j++;
			late_remove(q, j);
		}
		if (current_empty(q)) {
			q->cur_n = q->cur_pos = 0;
			mark_empty(q, i);
		}
	} else {
		/* unsorted: the newest entry fills the hole */
		struct ws_bucket *b = &q->bucket[i];
		struct ws_wentry *hole = NULL;
		for (struct ws_chunk *c = b->head; !hole; c = c->next)
			for (uint32_t k = 0; k < c->n; k++)
				if (c->e[k].ref == ref) {
					hole = &c->e[k];
					break;
				}
		struct ws_chunk *h = b->head;
		*hole = h->e[--h->n];
		if (!h->n) {
			b->head = h->next;
			chunk_put(q, h);
		}
		if (!--b->n)
			mark_empty(q, i);
	}
	q->in_wheel--;
	ev->where = WS_EV_PARKED;
}

static void insertion_sort(struct ws_wentry *e, uint32_t n)
{
	for (uint32_t k = 1; k < n; k++) {
		struct ws_wentry x = e[k];
		uint32_t j = k;
		while (j > 0 && x.key < e[j - 1].key) {
			e[j] = e[j - 1];
			j--;
		}
		e[j] = x;
	}
}

#define SORT_RUN 16

static void scratch_reserve(struct ws_eventq *q, size_t n)
{
	if (q->cap_scratch < n) {
		q->cap_scratch = WS_MAX(n, 2 * q->cap_scratch);
		q->scratch = ws_xrealloc(q->scratch, q->cap_scratch, sizeof *q->scratch);
	}
}

/* Bottom-up merge sort of a large bucket: runs of SORT_RUN entries sorted
 * in place, then merged through the queue's scratch array.  Keys are
 * distinct (they hold the sequence), so stability does not matter. */
static void merge_sort(struct ws_eventq *q, struct ws_wentry *e, uint32_t n)
{
	scratch_reserve(q, n);
	for (uint32_t lo = 0; lo < n; lo += SORT_RUN)
		insertion_sort(e + lo, WS_MIN(SORT_RUN, n - lo));
	struct ws_wentry *src = e, *dst = q->scratch;
	for (uint32_t width = SORT_RUN; width < n; width *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * width) {
			uint32_t mid = WS_MIN(lo + width, n), hi = WS_MIN(lo + 2 * width, n);
			uint32_t a = lo, b = mid, k = lo;
			while (a < mid && b < hi)
				dst[k++] = src[b].key < src[a].key ? src[b++] : src[a++];
			while (a < mid)
				dst[k++] = src[a++];
			while (b < hi)
				dst[k++] = src[b++];
		}
		struct ws_wentry *t = src;
		src = dst;
		dst = t;
	}
	if (src != e)
		memcpy(e, src, n * sizeof *e);
}

/* How many entries ahead of the one popped the pop asks for the object and
 * argument (the port and the packet the handler will read). */
#define PREFETCH_AHEAD 6

static inline void prefetch_entry(const struct ws_wentry *e)
{
	/* an argument is often a packet, else a small number: asking for
	 * address 0 or a small one would walk the page table for nothing */
	if (e->obj)
		__builtin_prefetch(e->obj);
	if (e->arg > 0xffff)
		__builtin_prefetch((const void *)(uintptr_t)e->arg);
}

/*
 * Bucket i becomes the current one: its entries move to cur_e and are
 * sorted.  What the previous current bucket still holds (an earlier bucket
 * received events after it became current) goes back to its chunks.
 */
static void make_current(struct ws_eventq *q, uint32_t i)
{
	if (!current_empty(q)) {
		struct ws_bucket *old = &q->bucket[q->sorted];
		for (uint32_t k = q->cur_pos; k < q->cur_n; k++)
			bucket_append(q, old, &q->cur_e[k]);
		for (uint32_t k = 0; k < q->late_n; k++)
			bucket_append(q, old, &q->late[k]);
		q->late_n = 0;
	}
	struct ws_bucket *b = &q->bucket[i];
	uint32_t n = b->n;
	cur_reserve(q, n);
	bucket_gather(q, b, q->cur_e);
	if (n <= 2 * SORT_RUN)
		insertion_sort(q->cur_e, n);
	else
		merge_sort(q, q->cur_e, n);
	q->cur_n = n;
	q->cur_pos = 0;
	q->sorted = i;
	q->sorted_abs = abs_of(q, i);
	for (uint32_t k = 0; k < n && k < PREFETCH_AHEAD; k++)
		prefetch_entry(&q->cur_e[k]);
}

/* The first word of the bitmap at or after `from` that is not zero, or
 * -1: a search of the summary. */
static int64_t next_word(const struct ws_eventq *q, uint32_t from)
{
	uint32_t words = (q->mask + 1) / 64;
	if (from >= words)
		return -1;
	uint32_t s = from >> 6;
	uint64_t m = q->summary[s] & (~0ull << (from & 63));
	for (;;) {
		if (m)
			return ((int64_t)s << 6) + __builtin_ctzll(m);
		if (++s >= (words + 63) / 64)
			return -1;
		m = q->summary[s];
	}
}

/*
 * The earliest wheel entry: every wheel event lies in buckets [cur, cur + N),
 * so the first non-empty bucket in circular order from cur holds it; that
 * bucket is sorted (once) and the smaller of its next entry and its late
 * heap's top is the answer.
 */
static struct ws_wentry *wheel_first(struct ws_eventq *q)
{
	if (!q->in_wheel)
		return NULL;
	uint32_t start = (uint32_t)(q->cur & q->mask);
	uint32_t w = start >> 6;
	uint64_t word = q->bits[w] & (~0ull << (start & 63));
	if (!word) {
		int64_t w2 = next_word(q, w + 1);
		if (w2 < 0)
			w2 = next_word(q, 0); /* wrapped: at most w */
		WS_ASSERT(w2 >= 0, "%zu wheel events and an empty bitmap", q->in_wheel);
		w = (uint32_t)w2;
		word = q->bits[w];
	}
	uint32_t i = (w << 6) + (uint32_t)__builtin_ctzll(word);
	if (i != q->sorted || current_empty(q))
		make_current(q, i);
	struct ws_wentry *e = q->cur_pos < q->cur_n ? &q->cur_e[q->cur_pos] : NULL;
	if (q->late_n && (!e || q->late[0].key < e->key))
		e = &q->late[0];
	return e;
}

/* Take the entry wheel_first() returned (its fields already copied). */
static void wheel_take(struct ws_eventq *q, const struct ws_wentry *e)
{
	if (e == q->late) {
		late_remove(q, 0);
	} else {
		q->cur_pos++;
		if (q->cur_pos + PREFETCH_AHEAD - 1 < q->cur_n)
			prefetch_entry(&q->cur_e[q->cur_pos + PREFETCH_AHEAD - 1]);
	}
	if (current_empty(q)) {
		q->cur_n = q->cur_pos = 0;
		mark_empty(q, q->sorted);
	}
	q->in_wheel--;
}

/* Queue an entry (its record, if any, says where it went). */
static void place(struct ws_eventq *q, ws_time when, uint64_t seq, ws_event_fn fn,
		  void *obj, uint64_t arg, uintptr_t ref)
{
	if (bucket_of(q, when) - q->cur <= q->mask) {
		struct ws_wentry e = { key_of(q, when, seq), fn, obj, arg, ref };
		wheel_insert(q, when, &e);
	} else {
		heap_push(q, (struct ws_heap_ent){ when, seq, fn, obj, arg, ref });
	}
}

static void place_rec(struct ws_eventq *q, struct ws_event *ev)
{
	place(q, ev->when, ev->seq, ev->fn, ev->obj, ev->arg,
	      (uintptr_t)ev | WS_EV_REF_REC);
}

static void park(struct ws_eventq *q, struct ws_event *ev)
{
	struct ws_owner *o = ev->owner;
	ev->where = WS_EV_PARKED;
	ev->wnext = o->parked;
	o->parked = ev;
	o->n_parked++;
	q->parked++;
}

/* ---- interface --------------------------------------------------------------- */

static inline uint64_t next_seq(struct ws_eventq *q)
{
	uint64_t seq = q->next_seq++;
	if (__builtin_expect(seq >> WS_EV_SEQ_BITS, 0))
		ws_fatal("more than 2^%d events scheduled in one run",
			 WS_EV_SEQ_BITS);
	return seq;
}

struct ws_evh ws_eventq_push(struct ws_eventq *q, struct ws_owner *owner,
			     ws_time when, ws_event_fn fn, void *obj,
			     uint64_t arg)
{
	uint64_t seq = next_seq(q);
	struct ws_event *ev = ev_make(q, when, seq, fn, obj, arg, owner);
	q->live++;
	if (owner && owner->frozen)
		park(q, ev);
	else
		place_rec(q, ev);
	return (struct ws_evh){ ev, seq };
}

void ws_eventq_post(struct ws_eventq *q, struct ws_owner *owner, ws_time when,
		    ws_event_fn fn, void *obj, uint64_t arg)
{
	uint64_t seq = next_seq(q);
	q->live++;
	if (__builtin_expect(owner && owner->frozen, 0))
		park(q, ev_make(q, when, seq, fn, obj, arg, owner));
	else
		place(q, when, seq, fn, obj, arg, (uintptr_t)owner);
}

bool ws_eventq_pop(struct ws_eventq *q, ws_time limit, struct ws_fired *out)
{
	struct ws_wentry *w = wheel_first(q);
	struct ws_heap_ent *h = heap_top(q);
	uintptr_t ref;
	if (h && (!w || ev_before(h->when, h->seq, entry_when(q, q->sorted_abs, w),
				  w->key & SEQ_MASK))) {
		if (h->when > limit)
			return false;
		out->when = h->when;
		out->fn = h->fn;
		out->obj = h->obj;
		out->arg = h->arg;
		ref = h->ref;
		heap_pop_top(q); /* it was the heap's valid top */
	} else {
		if (!w)
			return false;
		ws_time when = entry_when(q, q->sorted_abs, w);
		if (when > limit)
			return false;
		out->when = when;
		out->fn = w->fn;
		out->obj = w->obj;
		out->arg = w->arg;
		ref = w->ref;
		wheel_take(q, w);
	}
	/* wheel events stay within [cur, cur + N) as cur moves forward */
	q->cur = bucket_of(q, out->when);
	struct ws_event *ev = rec_of(ref);
	if (ev)
		ev_release(q, ev);
	q->live--;
	return true;
}

ws_time ws_eventq_peek(struct ws_eventq *q)
{
	struct ws_wentry *w = wheel_first(q);
	struct ws_heap_ent *h = heap_top(q);
	ws_time tw = w ? entry_when(q, q->sorted_abs, w) : WS_TIME_NEVER;
	if (h && h->when < tw)
		return h->when;
	return tw;
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
		q->parked--;
	}
	ev_release(q, ev);
	q->live--;
	if (q->stale > 4096 && q->stale > q->n / 2)
		heap_compact(q);
	return true;
}

void ws_eventq_park(struct ws_eventq *q, struct ws_evh *h)
{
	if (!ws_eventq_pending(q, *h))
		return;
	struct ws_event *ev = h->ev;
	if (!ev->owner || !ev->owner->frozen || ev->where == WS_EV_PARKED)
		return;
	if (ev->where == WS_EV_WHEEL) {
		wheel_remove(q, ev);
		park(q, ev);
		return;
	}
	/* A heap entry cannot be taken out where it is: the event moves to a
	 * new record (same time, sequence and handler) and the old one is
	 * released as a cancel would, its entry left stale.  (Allocated first,
	 * so the copy never reuses the record the stale entry names: were it
	 * placed in the heap again, that entry would come back to life.) */
	struct ws_event *copy = ev_alloc(q);
	*copy = *ev;
	ev_release(q, ev);
	q->stale++;
	park(q, copy);
	h->ev = copy;
	if (q->stale > 4096 && q->stale > q->n / 2)
		heap_compact(q);
}

/* Park a wheel entry if its owner is frozen; true if it was. */
static bool freeze_one(struct ws_eventq *q, uint64_t abs, const struct ws_wentry *e)
{
	struct ws_owner *o = owner_of(e->ref);
	if (!o || !o->frozen)
		return false;
	struct ws_event *ev = rec_of(e->ref);
	if (!ev)
		ev = ev_make(q, entry_when(q, abs, e), e->key & SEQ_MASK, e->fn,
			     e->obj, e->arg, o);
	q->in_wheel--;
	park(q, ev);
	return true;
}

/* Park the frozen owners' entries of the current bucket. */
static void freeze_current(struct ws_eventq *q)
{
	uint32_t keep = q->cur_pos;
	for (uint32_t k = q->cur_pos; k < q->cur_n; k++)
		if (!freeze_one(q, q->sorted_abs, &q->cur_e[k]))
			q->cur_e[keep++] = q->cur_e[k];
	q->cur_n = keep;
	uint32_t lk = 0;
	for (uint32_t k = 0; k < q->late_n; k++)
		if (!freeze_one(q, q->sorted_abs, &q->late[k]))
			q->late[lk++] = q->late[k];
	q->late_n = lk;
	late_heapify(q);
	if (current_empty(q)) {
		q->cur_n = q->cur_pos = 0;
		mark_empty(q, q->sorted);
	}
}

void ws_eventq_freeze(struct ws_eventq *q, struct ws_owner *const *owners,
		      size_t n)
{
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any |= owners[i]->frozen++ == 0;
	if (!any)
		return;
	/* park every wheel and heap event whose owner is now frozen: the
	 * non-empty buckets, found through the bitmap */
	for (int64_t w = next_word(q, 0); w >= 0; w = next_word(q, (uint32_t)w + 1)) {
		uint64_t word = q->bits[w];
		while (word) {
			uint32_t i = ((uint32_t)w << 6) + (uint32_t)__builtin_ctzll(word);
			word &= word - 1;
			if (i == q->sorted && !current_empty(q)) {
				freeze_current(q);
				continue;
			}
			struct ws_bucket *b = &q->bucket[i];
			uint64_t abs = abs_of(q, i);
			uint32_t cnt = b->n;
			scratch_reserve(q, cnt);
			bucket_gather(q, b, q->scratch);
			for (uint32_t k = 0; k < cnt; k++)
				if (!freeze_one(q, abs, &q->scratch[k]))
					bucket_append(q, b, &q->scratch[k]);
			if (!b->n)
				mark_empty(q, i);
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < q->n; i++) {
		struct ws_heap_ent *e = &q->heap[i];
		if (!ent_valid(e))
			continue;
		struct ws_owner *o = owner_of(e->ref);
		if (o && o->frozen) {
			struct ws_event *ev = rec_of(e->ref);
			if (!ev)
				ev = ev_make(q, e->when, e->seq, e->fn, e->obj, e->arg, o);
			park(q, ev);
		} else {
			q->heap[k++] = *e;
		}
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
		q->parked -= o->n_parked;
		o->parked = NULL;
		o->n_parked = 0;
	}
	/* in their original relative order; they keep their sequences */
	if (k)
		qsort(evs, k, sizeof *evs, cmp_order);
	for (size_t i = 0; i < k; i++) {
		ws_time t = evs[i]->when + shift;
		evs[i]->when = t < now ? now : t;
		place_rec(q, evs[i]);
	}
	free(evs);
}
