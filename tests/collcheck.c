/* SPDX-License-Identifier: MIT */
/*
 * Checks of the training workloads' outputs (collcheck.h): breakdown.csv's
 * identities, and timeline.json read with a small JSON parser of our own
 * (objects, arrays, strings, numbers, literals; anything else fails).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "th.h"
#include "collcheck.h"

static const char *const parts[] = {
	"compute_ns", "exposed_tp_ns", "exposed_dp_ns", "exposed_ep_ns", "exposed_pp_ns",
	"exposed_dp_ep_ns", "exposed_other_ns", "overlap_ns",
};
#define N_PARTS 8
#define N_SUMMED 7 /* the parts before overlap sum, with idle, to the iteration */

unsigned cc_check_breakdown(const char *dir)
{
	struct th_csv b, it;
	th_csv_load(&b, th_fmt("%s/breakdown.csv", dir));
	th_csv_load(&it, th_fmt("%s/iterations.csv", dir));
	unsigned iters = 0;
	for (unsigned r = 0; r < b.rows;) {
		assert_string_equal(th_csv_get(&b, r, "layer"), "all");
		unsigned i = (unsigned)strtoul(th_csv_get(&b, r, "iteration"), NULL, 10);
		assert_true(i < it.rows);
		uint64_t dur = th_csv_ps(&b, r, "duration_ns");
		assert_int_equal(dur, th_csv_ps(&it, i, "duration_ns"));
		uint64_t tot[N_PARTS], sum = th_csv_ps(&b, r, "idle_ns");
		for (int k = 0; k < N_PARTS; k++) {
			tot[k] = th_csv_ps(&b, r, parts[k]);
			if (k < N_SUMMED)
				sum += tot[k];
		}
		assert_int_equal(sum, dur);
		assert_true(tot[N_PARTS - 1] <= tot[0]); /* overlap within compute */
		/* the layer rows that follow, up to the next "all" */
		uint64_t lay[N_PARTS] = { 0 };
		const char *scope = th_csv_get(&b, r, "scope");
		for (r++; r < b.rows && strcmp(th_csv_get(&b, r, "layer"), "all"); r++) {
			assert_string_equal(th_csv_get(&b, r, "scope"), scope);
			assert_string_equal(th_csv_get(&b, r, "duration_ns"), "");
			assert_string_equal(th_csv_get(&b, r, "idle_ns"), "");
			for (int k = 0; k < N_PARTS; k++)
				lay[k] += th_csv_ps(&b, r, parts[k]);
		}
		for (int k = 0; k < N_PARTS; k++)
			assert_int_equal(lay[k], tot[k]);
		if (!strcmp(scope, "all"))
			iters++;
	}
	assert_int_equal(iters, it.rows);
	th_csv_free(&b);
	th_csv_free(&it);
	return iters;
}

uint64_t cc_breakdown_total(const char *dir, unsigned iter, const char *scope,
			    const char *col)
{
	struct th_csv b;
	th_csv_load(&b, th_fmt("%s/breakdown.csv", dir));
	for (unsigned r = 0; r < b.rows; r++)
		if (strtoul(th_csv_get(&b, r, "iteration"), NULL, 10) == iter &&
		    !strcmp(th_csv_get(&b, r, "scope"), scope) &&
		    !strcmp(th_csv_get(&b, r, "layer"), "all")) {
			uint64_t v = th_csv_ps(&b, r, col);
			th_csv_free(&b);
			return v;
		}
	fail_msg("breakdown.csv has no row for iteration %u, scope %s", iter, scope);
	return 0;
}

/* ---- a small JSON parser ------------------------------------------------------- */

struct span {
	uint64_t ts, end; /* ps */
	uint64_t id;      /* a collective's; 0: compute */
	uint32_t pid, tid;
	bool x;           /* a complete event ("ph":"X") */
	bool comp;
};

struct parser {
	const char *p;
	struct span *sp;
	unsigned n, cap;
	struct span cur;  /* the event being read (depth 2) */
};

static void ws_(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

/* a string into buf (escapes kept as read; ours write none) */
static void string(struct parser *ps, char *buf, size_t n)
{
	ws_(ps);
	assert_int_equal(*ps->p, '"');
	size_t k = 0;
	for (ps->p++; *ps->p != '"'; ps->p++) {
		assert_true(*ps->p && (unsigned char)*ps->p >= ' ');
		if (*ps->p == '\\')
			ps->p++;
		if (k + 1 < n)
			buf[k++] = *ps->p;
	}
	buf[k] = '\0';
	ps->p++;
}

/* a number; *ps_ gets it in ps when it has at most six decimals (µs) */
static void number(struct parser *ps, uint64_t *ps_)
{
	ws_(ps);
	const char *s = ps->p;
	if (*ps->p == '-')
		ps->p++;
	assert_true(isdigit((unsigned char)*ps->p));
	uint64_t whole = 0, frac = 0;
	int dec = -1;
	for (; isdigit((unsigned char)*ps->p) || *ps->p == '.'; ps->p++) {
		if (*ps->p == '.') {
			assert_int_equal(dec, -1);
			dec = 0;
		} else if (dec < 0) {
			whole = whole * 10 + (uint64_t)(*ps->p - '0');
		} else {
			frac = frac * 10 + (uint64_t)(*ps->p - '0');
			dec++;
		}
	}
	assert_true(ps->p > s && dec != 0);
	if (ps_) {
		assert_true(dec <= 6);
		while (dec < 6) {
			frac *= 10;
			dec = dec < 0 ? 1 : dec + 1;
		}
		*ps_ = whole * 1000000 + frac;
	}
}

static void value(struct parser *ps, int depth, const char *key);

static void object(struct parser *ps, int depth)
{
	ps->p++;
	ws_(ps);
	if (depth == 2)
		memset(&ps->cur, 0, sizeof ps->cur);
	if (*ps->p != '}')
		for (;;) {
			char key[64];
			string(ps, key, sizeof key);
			ws_(ps);
			assert_int_equal(*ps->p, ':');
			ps->p++;
			value(ps, depth + 1, key);
			ws_(ps);
			if (*ps->p == '}')
				break;
			assert_int_equal(*ps->p, ',');
			ps->p++;
		}
	ps->p++;
	if (depth == 2 && ps->cur.x) {
		if (ps->n == ps->cap) {
			ps->cap = ps->cap ? 2 * ps->cap : 1024;
			ps->sp = realloc(ps->sp, ps->cap * sizeof *ps->sp);
			assert_non_null(ps->sp);
		}
		ps->sp[ps->n++] = ps->cur;
	}
}

static void value(struct parser *ps, int depth, const char *key)
{
	ws_(ps);
	char s[256];
	uint64_t v;
	switch (*ps->p) {
	case '{':
		object(ps, depth);
		return;
	case '[':
		ps->p++;
		ws_(ps);
		if (*ps->p != ']')
			for (;;) {
				value(ps, depth + 1, NULL);
				ws_(ps);
				if (*ps->p == ']')
					break;
				assert_int_equal(*ps->p, ',');
				ps->p++;
			}
		ps->p++;
		return;
	case '"':
		string(ps, s, sizeof s);
		if (depth == 3 && key && !strcmp(key, "ph"))
			ps->cur.x = !strcmp(s, "X");
		if (depth == 3 && key && !strcmp(key, "cat"))
			ps->cur.comp = !strcmp(s, "compute");
		return;
	case 't':
	case 'f':
	case 'n': {
		static const char *const lit[] = { "true", "false", "null" };
		for (int i = 0; i < 3; i++)
			if (!strncmp(ps->p, lit[i], strlen(lit[i]))) {
				ps->p += strlen(lit[i]);
				return;
			}
		fail_msg("bad literal at '%.20s'", ps->p);
		return;
	}
	default:
		number(ps, &v);
		if (depth == 3 && key && !strcmp(key, "ts"))
			ps->cur.ts = v;
		else if (depth == 3 && key && !strcmp(key, "dur"))
			ps->cur.end = v; /* + ts below */
		else if (depth == 3 && key && !strcmp(key, "pid"))
			ps->cur.pid = (uint32_t)(v / 1000000);
		else if (depth == 3 && key && !strcmp(key, "tid"))
			ps->cur.tid = (uint32_t)(v / 1000000);
		else if (depth == 4 && key && !strcmp(key, "id"))
			ps->cur.id = v / 1000000;
		return;
	}
}

/* ---- the timeline ------------------------------------------------------------ */

static int cmp_track(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int cmp_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* The measure of the union of spans v[0..n) (sorted here by start). */
static uint64_t union_len(struct span *v, unsigned n)
{
	qsort(v, n, sizeof *v, cmp_start);
	uint64_t len = 0, lo = 0, hi = 0;
	for (unsigned i = 0; i < n; i++) {
		if (i == 0 || v[i].ts > hi) {
			len += hi - lo;
			lo = v[i].ts;
			hi = v[i].end;
		} else if (v[i].end > hi) {
			hi = v[i].end;
		}
	}
	return n ? len + hi - lo : 0;
}

/* GPU 0's compute, overlap and exposed communication, summed over the
 * iterations of breakdown.csv, against the union of its spans. */
static void check_gpu0(const char *dir, const struct span *sp, unsigned n)
{
	struct span *c = malloc((n + 1) * sizeof *c), *m = malloc((n + 1) * sizeof *m);
	struct span *all = malloc((n + 1) * sizeof *all);
	assert_true(c && m && all);
	unsigned nc = 0, nm = 0;
	for (unsigned i = 0; i < n; i++)
		if (sp[i].pid == 0) {
			all[nc + nm] = sp[i];
			if (sp[i].comp)
				c[nc++] = sp[i];
			else
				m[nm++] = sp[i];
		}
	uint64_t uc = union_len(c, nc), um = union_len(m, nm), ua = union_len(all, nc + nm);
	struct th_csv it;
	th_csv_load(&it, th_fmt("%s/iterations.csv", dir));
	uint64_t comp = 0, over = 0, exp = 0;
	for (unsigned i = 0; i < it.rows; i++) {
		comp += cc_breakdown_total(dir, i, "gpu0", "compute_ns");
		over += cc_breakdown_total(dir, i, "gpu0", "overlap_ns");
		for (int k = 1; k < N_SUMMED; k++)
			exp += cc_breakdown_total(dir, i, "gpu0", parts[k]);
	}
	th_csv_free(&it);
	assert_int_equal(comp, uc);
	assert_int_equal(over, uc + um - ua);
	assert_int_equal(exp, ua - uc);
	free(c);
	free(m);
	free(all);
}

unsigned cc_check_timeline(const char *dir)
{
	size_t len;
	char *text = th_read(th_fmt("%s/timeline.json", dir), &len);
	assert_non_null(text);
	struct parser ps = { .p = text };
	value(&ps, 0, NULL);
	ws_(&ps);
	assert_int_equal(*ps.p, '\0'); /* one value, nothing after it */
	for (unsigned i = 0; i < ps.n; i++)
		ps.sp[i].end += ps.sp[i].ts;
	/* no two spans of one thread overlap */
	qsort(ps.sp, ps.n, sizeof *ps.sp, cmp_track);
	for (unsigned i = 1; i < ps.n; i++)
		if (ps.sp[i].pid == ps.sp[i - 1].pid && ps.sp[i].tid == ps.sp[i - 1].tid)
			assert_true(ps.sp[i].ts >= ps.sp[i - 1].end);
	/* each collective of collectives.csv: one span per GPU, its times */
	struct th_csv co;
	th_csv_load(&co, th_fmt("%s/collectives.csv", dir));
	unsigned matched = 0;
	for (unsigned r = 0; r < co.rows; r++) {
		uint64_t id = strtoull(th_csv_get(&co, r, "id"), NULL, 10);
		uint64_t s = th_csv_ps(&co, r, "start_ns"), e = th_csv_ps(&co, r, "end_ns");
		unsigned k = 0;
		for (unsigned i = 0; i < ps.n; i++)
			if (!ps.sp[i].comp && ps.sp[i].id == id) {
				assert_int_equal(ps.sp[i].ts, s);
				assert_int_equal(ps.sp[i].end, e);
				k++;
			}
		assert_int_equal(k, (unsigned)strtoul(th_csv_get(&co, r, "ranks"), NULL, 10));
		matched += k;
	}
	unsigned comp = 0;
	for (unsigned i = 0; i < ps.n; i++)
		comp += ps.sp[i].comp;
	assert_int_equal(matched + comp, ps.n); /* no span that is neither */
	assert_true(comp > 0);
	check_gpu0(dir, ps.sp, ps.n);
	th_csv_free(&co);
	free(ps.sp);
	free(text);
	return ps.n;
}
