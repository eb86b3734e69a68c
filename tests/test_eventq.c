/* SPDX-License-Identifier: MIT */
/*
 * The event queue: (time, sequence) order with FIFO tie-break across the
 * wheel and the far-future heap, cancellation, freeze/thaw of owners with an
 * exact time shift, record pooling, a randomized check of a million
 * events against a reference sort, the same at scale with clustered and
 * far-apart times under every wheel geometry (WARPSIM_EVENTQ_EVENTS sets
 * the count: bench/check-large.sh runs 10^7), and frozen events kept out of
 * the pops' way.
 */
#include "th.h"

#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "internal.h"

struct rec {
	ws_time when;
	uint64_t order; /* scheduling order */
	uint64_t tag;
};

struct log {
	struct rec *r;
	size_t n, cap;
};

static void logit(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)sim;
	struct log *l = obj;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->r = realloc(l->r, l->cap * sizeof *l->r);
	}
	l->r[l->n++] = (struct rec){ 0, 0, arg };
}

/* Pop everything, logging (time, tag). */
static void drain(struct ws_eventq *q, struct log *l)
{
	struct ws_fired ev;
	while (ws_eventq_pop(q, WS_TIME_NEVER, &ev)) {
		size_t before = l->n;
		ev.fn(NULL, ev.obj, ev.arg);
		if (l->n > before)
			l->r[l->n - 1].when = ev.when;
	}
}

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_order_and_fifo_ties(void **state)
{
	(void)state;
	struct ws_eventq q;
	ws_eventq_init(&q);
	struct log l = { 0 };
	/* near (wheel) and far (heap) times, and ties at every time */
	const ws_time times[] = { 5 * WS_US, 3, 3, 2 * WS_SEC, 5 * WS_US, 0, 40 * WS_US,
				  3, 2 * WS_SEC, 17 * WS_NS };
	for (size_t i = 0; i < WS_ARRAY_LEN(times); i++)
		ws_eventq_push(&q, NULL, times[i], logit, &l, i);
	drain(&q, &l);
	assert_int_equal(l.n, WS_ARRAY_LEN(times));
	const uint64_t expect[] = { 5, 1, 2, 7, 9, 0, 4, 6, 3, 8 };
	for (size_t i = 0; i < l.n; i++)
		assert_int_equal(l.r[i].tag, expect[i]);
	free(l.r);
	ws_eventq_fini(&q);
}

static void test_many_ties_fifo(void **state)
{
	(void)state;
	struct ws_eventq q;
	ws_eventq_init(&q);
	struct log l = { 0 };
	for (uint64_t i = 0; i < 5000; i++)
		ws_eventq_push(&q, NULL, 1000 + (i % 3) * 7, logit, &l, i);
	drain(&q, &l);
	assert_int_equal(l.n, 5000);
	for (size_t i = 1; i < l.n; i++) {
		assert_true(l.r[i - 1].when <= l.r[i].when);
		if (l.r[i - 1].when == l.r[i].when)
			assert_true(l.r[i - 1].tag < l.r[i].tag);
	}
	free(l.r);
	ws_eventq_fini(&q);
}

static void test_cancel_and_pending(void **state)
{
	(void)state;
	struct ws_eventq q;
	ws_eventq_init(&q);
	struct log l = { 0 };
	struct ws_evh near = ws_eventq_push(&q, NULL, 100, logit, &l, 1);
	struct ws_evh far = ws_eventq_push(&q, NULL, 3 * WS_SEC, logit, &l, 2);
	struct ws_evh keep = ws_eventq_push(&q, NULL, 200, logit, &l, 3);
	assert_true(ws_eventq_pending(&q, near));
	assert_true(ws_eventq_cancel(&q, near));
	assert_false(ws_eventq_pending(&q, near));
	assert_false(ws_eventq_cancel(&q, near));
	assert_true(ws_eventq_cancel(&q, far));
	assert_false(ws_eventq_cancel(&q, far));
	assert_int_equal(q.live, 1);
	/* a recycled record does not revive an old handle */
	struct ws_evh other = ws_eventq_push(&q, NULL, 300, logit, &l, 4);
	assert_false(ws_eventq_pending(&q, near));
	assert_true(ws_eventq_pending(&q, other));
	drain(&q, &l);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.r[0].tag, 3);
	assert_int_equal(l.r[1].tag, 4);
	assert_false(ws_eventq_pending(&q, keep));
	assert_int_equal(q.live, 0);
	free(l.r);
	ws_eventq_fini(&q);
}

static void test_freeze_thaw_shift(void **state)
{
	(void)state;
	struct ws_eventq q;
	ws_eventq_init(&q);
	struct log l = { 0 };
	struct ws_owner a = { 0 }, b = { 0 };
	/* a: near and far events; b: interleaved with a's */
	ws_eventq_push(&q, &a, 10 * WS_NS, logit, &l, 1);
	ws_eventq_push(&q, &a, 20 * WS_NS, logit, &l, 2);
	ws_eventq_push(&q, &a, 1 * WS_SEC, logit, &l, 3);
	ws_eventq_push(&q, &b, 15 * WS_NS, logit, &l, 4);
	ws_eventq_push(&q, NULL, 12 * WS_NS, logit, &l, 5);
	struct ws_owner *pa = &a;
	ws_eventq_freeze(&q, &pa, 1);
	assert_int_equal(a.n_parked, 3);
	/* scheduled while frozen: parked too, and cancellable */
	ws_eventq_push(&q, &a, 30 * WS_NS, logit, &l, 6);
	struct ws_evh gone = ws_eventq_push(&q, &a, 25 * WS_NS, logit, &l, 7);
	assert_true(ws_eventq_pending(&q, gone));
	assert_true(ws_eventq_cancel(&q, gone));
	assert_int_equal(a.n_parked, 4);
	/* only b's and the unowned events run */
	struct ws_fired ev;
	assert_true(ws_eventq_pop(&q, WS_TIME_NEVER, &ev));
	assert_int_equal(ev.arg, 5);
	assert_true(ws_eventq_pop(&q, WS_TIME_NEVER, &ev));
	assert_int_equal(ev.arg, 4);
	assert_false(ws_eventq_pop(&q, WS_TIME_NEVER, &ev));
	/* nested freeze needs as many thaws */
	ws_eventq_freeze(&q, &pa, 1);
	ws_eventq_thaw(&q, &pa, 1, 1000 * WS_NS, 15 * WS_NS);
	assert_false(ws_eventq_pop(&q, WS_TIME_NEVER, &ev));
	ws_eventq_thaw(&q, &pa, 1, 1000 * WS_NS, 15 * WS_NS);
	assert_int_equal(a.frozen, 0);
	assert_int_equal(a.n_parked, 0);
	drain(&q, &l);
	/* shifted by exactly the delta, in their original relative order */
	assert_int_equal(l.n, 4);
	assert_int_equal(l.r[0].tag, 1);
	assert_int_equal(l.r[0].when, 1010 * WS_NS);
	assert_int_equal(l.r[1].tag, 2);
	assert_int_equal(l.r[1].when, 1020 * WS_NS);
	assert_int_equal(l.r[2].tag, 6);
	assert_int_equal(l.r[2].when, 1030 * WS_NS);
	assert_int_equal(l.r[3].tag, 3);
	assert_int_equal(l.r[3].when, 1 * WS_SEC + 1000 * WS_NS);
	free(l.r);
	ws_eventq_fini(&q);
}

static void test_thaw_never_goes_back_in_time(void **state)
{
	(void)state;
	struct ws_eventq q;
	ws_eventq_init(&q);
	struct log l = { 0 };
	struct ws_owner a = { 0 };
	struct ws_owner *pa = &a;
	ws_eventq_push(&q, &a, 100, logit, &l, 1);
	ws_eventq_freeze(&q, &pa, 1);
	ws_eventq_push(&q, NULL, 5000, logit, &l, 2);
	struct ws_fired ev;
	assert_true(ws_eventq_pop(&q, WS_TIME_NEVER, &ev));
	ws_eventq_thaw(&q, &pa, 1, 0, 5000);
	drain(&q, &l);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.r[0].when, 5000);
	free(l.r);
	ws_eventq_fini(&q);
}

/* Parking by handle (a flows-only freeze): a near and a far-future event
 * of a frozen owner leave the queue; thawed at once (shift 0, the same
 * instant) or later, each fires exactly once, at its shifted time, and the
 * stale heap entry never comes back to life (it did once: a double fire). */
static void test_park_by_handle(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		ws_time shift = k ? 700 * WS_NS : 0;
		struct ws_eventq q;
		ws_eventq_init(&q);
		struct log l = { 0 };
		struct ws_owner a = { 0 };
		struct ws_owner *pa = &a;
		struct ws_evh near = ws_eventq_push(&q, &a, 10 * WS_NS, logit, &l, 1);
		struct ws_evh far = ws_eventq_push(&q, &a, 1 * WS_SEC, logit, &l, 2);
		ws_eventq_push(&q, NULL, 5 * WS_NS, logit, &l, 3);
		a.frozen++;
		ws_eventq_park(&q, &near);
		ws_eventq_park(&q, &far);
		assert_int_equal(a.n_parked, 2);
		assert_true(ws_eventq_pending(&q, near));
		assert_true(ws_eventq_pending(&q, far));
		/* many events come and go meanwhile, reusing released records */
		for (int i = 0; i < 1000; i++) {
			struct ws_evh h = ws_eventq_push(&q, NULL, 2 * WS_SEC + i, logit, &l, 9);
			ws_eventq_cancel(&q, h);
		}
		ws_eventq_thaw(&q, &pa, 1, shift, 0);
		drain(&q, &l);
		assert_int_equal(l.n, 3);
		assert_int_equal(l.r[0].tag, 3);
		assert_int_equal(l.r[1].tag, 1);
		assert_int_equal(l.r[1].when, 10 * WS_NS + shift);
		assert_int_equal(l.r[2].tag, 2);
		assert_int_equal(l.r[2].when, 1 * WS_SEC + shift);
		free(l.r);
		ws_eventq_fini(&q);
	}
}

static void test_pool_reuse(void **state)
{
	(void)state;
	struct ws_eventq q;
	ws_eventq_init(&q);
	struct log l = { 0 };
	uint64_t s = 7;
	ws_time now = 0;
	for (int i = 0; i < 64; i++)
		ws_eventq_push(&q, NULL, now + xs(&s) % 4000000, logit, &l, 0);
	for (int i = 0; i < 1000000; i++) {
		struct ws_fired ev;
		assert_true(ws_eventq_pop(&q, WS_TIME_NEVER, &ev));
		now = ev.when;
		ws_eventq_push(&q, NULL, now + xs(&s) % 4000000, logit, &l, 0);
	}
	/* 64 live events never needed a second block of records */
	assert_int_equal(q.n_blocks, 1);
	assert_int_equal(q.live, 64);
	free(l.r);
	ws_eventq_fini(&q);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->when != y->when)
		return x->when < y->when ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* 10^6 events over both structures, 10% cancelled, against a reference sort. */
static void test_million_random_vs_sort(void **state)
{
	(void)state;
	const size_t n = 1000000;
	struct ws_eventq q;
	ws_eventq_init(&q);
	struct log l = { 0 };
	struct rec *ref = calloc(n, sizeof *ref);
	struct ws_evh *h = calloc(n, sizeof *h);
	bool *cancelled = calloc(n, sizeof *cancelled);
	uint64_t s = 12345;
	for (size_t i = 0; i < n; i++) {
		/* mostly near (ps to us), some far (ms), many ties */
		uint64_t r = xs(&s);
		ws_time t = (r & 3) == 0 ? (r >> 8) % (50 * WS_MS)
					 : (r >> 8) % (20 * WS_US) / 1000 * 1000;
		ref[i] = (struct rec){ t, i, i };
		h[i] = ws_eventq_push(&q, NULL, t, logit, &l, i);
	}
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (xs(&s) % 10 == 0) {
			assert_true(ws_eventq_cancel(&q, h[i]));
			cancelled[i] = true;
		} else {
			ref[kept++] = ref[i];
		}
	}
	qsort(ref, kept, sizeof *ref, cmp_rec);
	drain(&q, &l);
	assert_int_equal(l.n, kept);
	for (size_t i = 0; i < kept; i++) {
		assert_int_equal(l.r[i].tag, ref[i].tag);
		assert_int_equal(l.r[i].when, ref[i].when);
		assert_false(cancelled[l.r[i].tag]);
	}
	free(ref);
	free(h);
	free(cancelled);
	free(l.r);
	ws_eventq_fini(&q);
}

/* A hold model: pop one, schedule one later, 10^6 times; time never goes back. */
static void test_hold_model(void **state)
{
	(void)state;
	struct ws_eventq q;
	ws_eventq_init(&q);
	struct log l = { 0 };
	uint64_t s = 99;
	for (int i = 0; i < 2000; i++)
		ws_eventq_push(&q, NULL, xs(&s) % (3 * WS_US), logit, &l, 0);
	ws_time last = 0;
	for (int i = 0; i < 1000000; i++) {
		struct ws_fired ev;
		assert_true(ws_eventq_pop(&q, WS_TIME_NEVER, &ev));
		assert_true(ev.when >= last);
		last = ev.when;
		uint64_t r = xs(&s);
		ws_time d = (r & 15) == 0 ? r % (2 * WS_MS) : r % (2 * WS_US);
		ws_eventq_push(&q, NULL, last + d, logit, &l, 0);
	}
	assert_int_equal(q.live, 2000);
	free(l.r);
	ws_eventq_fini(&q);
}

/* Events for the scale test: `n` of them, scheduled in rounds as a
 * simulation does (pop some, schedule more from the popped one's time):
 * clusters (many events at the same picosecond and a few ps apart, as a
 * fabric in lock step makes), the near future across many wheel turns, and
 * far-apart times (milliseconds to seconds, the heap). */
static ws_time scale_delay(uint64_t r)
{
	switch (r & 7) {
	case 0:
	case 1:
		return 0; /* a tie with the current event */
	case 2:
	case 3:
		return (r >> 8) % 64; /* a few ps apart: one bucket */
	case 4:
	case 5:
		return (r >> 8) % (3 * WS_US); /* propagation, serialization */
	case 6:
		return (r >> 8) % (200 * WS_US); /* several wheel turns */
	default:
		return (r >> 8) % (2 * WS_SEC); /* far: the heap */
	}
}

static size_t scale_events(void)
{
	const char *e = getenv("WARPSIM_EVENTQ_EVENTS");
	return e && *e ? (size_t)strtoull(e, NULL, 10) : 1000000;
}

/* Schedule `n` events with scale_delay() in a hold pattern (schedule a
 * burst, pop some), cancelling some, then drain.  Checks: every pop is
 * strictly after the previous one in (time, scheduling order), no
 * cancelled event runs, none is lost, a cancel succeeds exactly when the
 * event has neither run nor been cancelled, and the drain matches a
 * reference sort of what was left.  Returns a digest of the whole order. */
static uint64_t scale_run(unsigned res, unsigned bits, size_t n)
{
	struct ws_eventq q;
	ws_eventq_init(&q);
	if (res)
		ws_eventq_shape(&q, res, bits);
	struct rec *ref = malloc(n * sizeof *ref);
	bool *gone = calloc(n, sizeof *gone); /* ran or cancelled */
	struct ws_evh *h = malloc(n * sizeof *h);
	assert_non_null(ref);
	assert_non_null(gone);
	assert_non_null(h);
	uint64_t s = 2024, digest = 1469598103934665603ull;
	size_t made = 0, ran = 0, cancelled = 0;
	ws_time now = 0;
	uint64_t last_tag = 0;
	bool any = false;
	struct ws_fired ev;
#define SCALE_POPPED()                                                             \
	do {                                                                       \
		assert_false(gone[ev.arg]);                                        \
		assert_int_equal(ev.when, ref[ev.arg].when);                       \
		if (any && !(ev.when > now || (ev.when == now && ev.arg > last_tag))) \
			fail_msg("event %llu at %llu ps popped after event %llu at %llu ps", \
				 (unsigned long long)ev.arg, (unsigned long long)ev.when, \
				 (unsigned long long)last_tag, (unsigned long long)now); \
		any = true;                                                        \
		now = ev.when;                                                     \
		last_tag = ev.arg;                                                 \
		gone[ev.arg] = true;                                               \
		ran++;                                                             \
		digest = (digest ^ ev.arg) * 1099511628211ull;                     \
	} while (0)
	while (made < n) {
		size_t burst = 1 + xs(&s) % 64;
		for (size_t k = 0; k < burst && made < n; k++, made++) {
			ws_time t = now + scale_delay(xs(&s));
			ref[made] = (struct rec){ t, made, made };
			h[made] = ws_eventq_push(&q, NULL, t, logit, NULL, made);
			if (xs(&s) % 32 == 0) {
				size_t victim = (size_t)(xs(&s) % (made + 1));
				bool ok = ws_eventq_cancel(&q, h[victim]);
				assert_int_equal(ok, !gone[victim]);
				if (ok) {
					gone[victim] = true;
					cancelled++;
				}
			}
		}
		size_t take = xs(&s) % 64;
		for (size_t k = 0; k < take && ws_eventq_pop(&q, WS_TIME_NEVER, &ev); k++)
			SCALE_POPPED();
	}
	/* the drain against a reference sort of what is left */
	size_t left = 0;
	for (size_t i = 0; i < n; i++)
		if (!gone[i])
			ref[left++] = ref[i];
	qsort(ref, left, sizeof *ref, cmp_rec);
	for (size_t i = 0; i < left; i++) {
		assert_true(ws_eventq_pop(&q, WS_TIME_NEVER, &ev));
		if (ev.arg != ref[i].tag || ev.when != ref[i].when)
			fail_msg("pop %zu of %zu (res %u, bits %u): event %llu at %llu ps, "
				 "expected %llu at %llu ps", i, left, res, bits,
				 (unsigned long long)ev.arg, (unsigned long long)ev.when,
				 (unsigned long long)ref[i].tag,
				 (unsigned long long)ref[i].when);
		assert_false(gone[ev.arg]);
		any = true;
		now = ev.when;
		last_tag = ev.arg;
		gone[ev.arg] = true;
		ran++;
		digest = (digest ^ ev.arg) * 1099511628211ull;
	}
#undef SCALE_POPPED
	assert_false(ws_eventq_pop(&q, WS_TIME_NEVER, &ev));
	assert_int_equal(ran + cancelled, n);
	assert_int_equal(q.live, 0);
	free(ref);
	free(gone);
	free(h);
	ws_eventq_fini(&q);
	return digest;
}

/* The order is (time, sequence) whatever the wheel's shape: the default,
 * the finest and widest buckets, the fewest and most of them. */
static void test_scale_vs_sort_every_shape(void **state)
{
	(void)state;
	size_t n = scale_events();
	scale_run(0, 0, n);
	uint64_t d = scale_run(0, 0, n / 8);
	const unsigned shape[][2] = {
		{ WS_WHEEL_RES_MIN, WS_WHEEL_BITS_MIN }, { WS_WHEEL_RES_MIN, WS_WHEEL_BITS_MAX },
		{ WS_WHEEL_RES_MAX, WS_WHEEL_BITS_MIN }, { WS_WHEEL_RES_MAX, WS_WHEEL_BITS_MAX },
		{ 9, 15 },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(shape); i++)
		assert_int_equal(scale_run(shape[i][0], shape[i][1], n / 8), d);
}

/* A bucket far larger than the merge sort's runs: 10^5 events within one
 * future bucket (the second: 65.5 ns wide), times and scheduling order
 * shuffled, sorted when it becomes current. */
static void test_one_crowded_bucket(void **state)
{
	(void)state;
	struct ws_eventq q;
	ws_eventq_init(&q);
	ws_eventq_shape(&q, WS_WHEEL_RES_MAX, WS_WHEEL_BITS_MIN);
	struct log l = { 0 };
	const size_t n = 100000;
	uint64_t s = 5;
	for (size_t i = 0; i < n; i++)
		ws_eventq_push(&q, NULL, 70000 + xs(&s) % 60000, logit, &l, i);
	drain(&q, &l);
	assert_int_equal(l.n, n);
	for (size_t i = 1; i < n; i++)
		assert_true(l.r[i - 1].when < l.r[i].when ||
			    (l.r[i - 1].when == l.r[i].when && l.r[i - 1].tag < l.r[i].tag));
	free(l.r);
	ws_eventq_fini(&q);
}

static void must_not_run(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)sim;
	(void)obj;
	fail_msg("event %llu of a frozen owner ran", (unsigned long long)arg);
}

/* Freeze owners holding half of 10^5 events spread over the wheel and the
 * heap: pops see only the others (the frozen ones are out of the wheel and
 * the heap), events scheduled for a frozen owner are parked too, and a
 * thaw brings every one back, shifted, in order. */
static void test_frozen_out_of_the_way(void **state)
{
	(void)state;
	struct ws_eventq q;
	ws_eventq_init(&q);
	struct log l = { 0 };
	enum { OWNERS = 64, N = 100000 };
	struct ws_owner own[OWNERS];
	struct ws_owner *frozen[OWNERS / 2];
	memset(own, 0, sizeof own);
	for (int i = 0; i < OWNERS / 2; i++)
		frozen[i] = &own[2 * i];
	uint64_t s = 77;
	size_t n_frozen = 0;
	for (size_t i = 0; i < N; i++) {
		size_t o = (size_t)(xs(&s) % OWNERS);
		ws_time t = xs(&s) % 4 == 0 ? xs(&s) % WS_SEC : xs(&s) % (40 * WS_US);
		bool fz = o % 2 == 0;
		n_frozen += fz;
		ws_eventq_push(&q, &own[o], t, fz ? must_not_run : logit, &l, i);
	}
	ws_eventq_freeze(&q, frozen, OWNERS / 2);
	assert_int_equal(q.parked, n_frozen);
	assert_int_equal(q.in_wheel + (q.n - q.stale) + q.parked, N);
	/* scheduled while frozen: parked at once */
	ws_eventq_push(&q, frozen[0], 5, must_not_run, &l, N);
	n_frozen++;
	assert_int_equal(q.parked, n_frozen);
	drain(&q, &l);
	assert_int_equal(l.n, N + 1 - n_frozen);
	assert_int_equal(q.live, n_frozen);
	ws_time end = l.r[l.n - 1].when;
	/* thaw: back with a shift, in (time, order) order, none before now */
	size_t before = l.n;
	ws_eventq_thaw(&q, frozen, OWNERS / 2, 2 * WS_SEC, end);
	assert_int_equal(q.parked, 0);
	struct ws_fired ev;
	ws_time last = end;
	size_t back = 0;
	while (ws_eventq_pop(&q, WS_TIME_NEVER, &ev)) {
		assert_ptr_equal(ev.fn, must_not_run);
		assert_true(ev.when >= last);
		last = ev.when;
		back++;
	}
	assert_int_equal(back, n_frozen);
	assert_int_equal(l.n, before);
	free(l.r);
	ws_eventq_fini(&q);
}

static void test_pop_limit(void **state)
{
	(void)state;
	struct ws_eventq q;
	ws_eventq_init(&q);
	struct log l = { 0 };
	ws_eventq_push(&q, NULL, 10, logit, &l, 1);
	ws_eventq_push(&q, NULL, 20, logit, &l, 2);
	struct ws_fired ev;
	assert_true(ws_eventq_pop(&q, 10, &ev));
	assert_false(ws_eventq_pop(&q, 19, &ev));
	assert_int_equal(ws_eventq_peek(&q), 20);
	assert_true(ws_eventq_pop(&q, 20, &ev));
	assert_int_equal(ws_eventq_peek(&q), WS_TIME_NEVER);
	ws_eventq_fini(&q);
	free(l.r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_fifo_ties),
		cmocka_unit_test(test_many_ties_fifo),
		cmocka_unit_test(test_cancel_and_pending),
		cmocka_unit_test(test_freeze_thaw_shift),
		cmocka_unit_test(test_thaw_never_goes_back_in_time),
		cmocka_unit_test(test_park_by_handle),
		cmocka_unit_test(test_pool_reuse),
		cmocka_unit_test(test_million_random_vs_sort),
		cmocka_unit_test(test_hold_model),
		cmocka_unit_test(test_pop_limit),
		cmocka_unit_test(test_scale_vs_sort_every_shape),
		cmocka_unit_test(test_one_crowded_bucket),
		cmocka_unit_test(test_frozen_out_of_the_way),
	};
	return cmocka_run_group_tests_name("eventq", tests, NULL, NULL);
}
