/* SPDX-License-Identifier: MIT */
/*
 * The wormhole accelerator's data structures, linked directly (no
 * simulation):
 *  - partitions (plugins/accel/wormhole/partition.c): hand-made merges, splits,
 *    deaths, `touching`, id reuse; 1,000 random sequences of 200 flow
 *    starts and finishes over 50 ports, checked after every step against
 *    union-find from scratch (grouping, port sets, what died and what was
 *    born); size (10^5 flows over 10^7 port ids, a 2 x 10^4-flow path cut
 *    flow by flow, a 2 x 10^4-flow star);
 *  - the memo table (plugins/accel/wormhole/memo.c): hits on the same and on
 *    relabelled graphs with the outcome returned in the query's order
 *    (checked as an isomorphism, so symmetric graphs are checked too):
 *    rings of 8, 64 and 1000, cliques, a torus, stars, K(5,7); misses on
 *    two triangles against a hexagon, other weights, rates, contexts,
 *    sizes; 200 random graphs (a quarter cubic: colour refinement splits
 *    nothing, every leaf differs) relabelled and perturbed; 600 graphs of
 *    symmetric families whose key must not change under relabelling (the
 *    pruning by automorphisms must keep the smallest leaf); with the search
 *    budget cut, colliding fallback keys told apart by the verification;
 *  - the memo file: save and load, and every kind of damage (truncation,
 *    byte flips, magic, version, absurd counts and sizes, a bad edge, data
 *    after the end) refused with a reason and the table left as it was.
 */
#include "th.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "../plugins/accel/wormhole/memo.h"
#include "../plugins/accel/wormhole/partition.h"

/* ---- a deterministic generator ---------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rng_next(s) % n);
}

static void shuffle(uint32_t *a, uint32_t n, uint64_t *s)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = rng_below(s, i), t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* ---- partitions: by hand --------------------------------------------------------- */

static uint32_t add(struct wh_parts *p, uint32_t flow, const uint32_t *ports, uint32_t n,
		    struct wh_change *ch)
{
	assert_int_equal(wh_parts_add(p, flow, ports, n, ch), 0);
	return wh_parts_of(p, flow);
}

static void assert_list(const uint32_t *got, uint32_t n, const uint32_t *want, uint32_t wn)
{
	assert_int_equal(n, wn);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

static void assert_flows(struct wh_parts *p, uint32_t part, const uint32_t *want, uint32_t n)
{
	const uint32_t *l;
	uint32_t k = wh_parts_flows(p, part, &l);
	assert_list(l, k, want, n);
}

static void assert_ports(struct wh_parts *p, uint32_t part, const uint32_t *want, uint32_t n)
{
	const uint32_t *l;
	uint32_t k = wh_parts_ports(p, part, &l);
	assert_list(l, k, want, n);
}

static void assert_touching(struct wh_parts *p, const uint32_t *ports, uint32_t np,
			    const uint32_t *want, uint32_t n)
{
	const uint32_t *l;
	uint32_t k = wh_parts_touching(p, ports, np, &l);
	assert_list(l, k, want, n);
}

static void test_parts_share(void **state)
{
	(void)state;
	struct wh_parts *p = wh_parts_new();
	struct wh_change ch;
	const uint32_t *l;
	uint32_t a = add(p, 7, (uint32_t[]){ 11, 10, 10 }, 3, &ch);
	assert_int_equal(ch.n_dead, 0);
	assert_int_equal(ch.n_born, 1);
	assert_int_equal(ch.born[0], a);
	/* duplicates removed, ascending */
	uint32_t k = wh_parts_flow_ports(p, 7, &l);
	assert_list(l, k, (uint32_t[]){ 10, 11 }, 2);
	uint32_t b = add(p, 3, (uint32_t[]){ 12, 11 }, 2, &ch);
	assert_int_equal(wh_parts_of(p, 7), b);
	assert_int_equal(ch.n_dead, 1);
	assert_int_equal(ch.dead[0], a);
	assert_int_equal(ch.n_born, 1);
	assert_int_equal(ch.born[0], b);
	assert_int_not_equal(a, b);
	assert_int_equal(wh_parts_count(p), 1);
	assert_flows(p, b, (uint32_t[]){ 3, 7 }, 2);
	assert_ports(p, b, (uint32_t[]){ 10, 11, 12 }, 3);
	assert_int_equal(wh_parts_flows(p, a, &l), 0); /* dead */
	assert_int_equal(wh_parts_n_flows(p, a), 0);
	/* errors: a flow twice, a flow not there */
	assert_int_equal(wh_parts_add(p, 7, (uint32_t[]){ 99 }, 1, NULL), -1);
	assert_int_equal(wh_parts_remove(p, 8, NULL), -1);
	assert_int_equal(wh_parts_of(p, 8), WH_NONE);
	assert_int_equal(wh_parts_count(p), 1);
	wh_parts_free(p);
}

/* A big partition lists its flows and ports ascending however they came
 * and went (the sort behind the listing: quicksort above 16 ids), and its
 * flow count needs no listing. */
static void test_parts_big_sorted(void **state)
{
	(void)state;
	enum { N = 300 };
	struct wh_parts *p = wh_parts_new();
	uint32_t order[N], flows[N], ports[N + 1];
	uint64_t s = 5;
	for (uint32_t i = 0; i < N; i++)
		order[i] = i;
	shuffle(order, N, &s);
	/* flow 5f + 1 on the shared port 0 and its own port 1000 + 3f (ids
	 * given in shuffled order, many equal keys for the pivot) */
	for (uint32_t i = 0; i < N; i++) {
		uint32_t f = order[i];
		assert_int_equal(wh_parts_add(p, 5 * f + 1, (uint32_t[]){ 1000 + 3 * f, 0 }, 2, NULL),
				 0);
	}
	uint32_t id = wh_parts_of(p, 1);
	for (uint32_t f = 0; f < N; f++)
		flows[f] = 5 * f + 1;
	ports[0] = 0;
	for (uint32_t f = 0; f < N; f++)
		ports[f + 1] = 1000 + 3 * f;
	assert_int_equal(wh_parts_n_flows(p, id), N);
	assert_flows(p, id, flows, N);
	assert_ports(p, id, ports, N + 1);
	/* remove every third flow in shuffled order: the rest stay one
	 * partition (port 0), listed ascending */
	uint32_t kf = 0, kp = 1;
	for (uint32_t i = 0; i < N; i++)
		if (order[i] % 3 == 0)
			assert_int_equal(wh_parts_remove(p, 5 * order[i] + 1, NULL), 0);
	for (uint32_t f = 0; f < N; f++)
		if (f % 3) {
			flows[kf++] = 5 * f + 1;
			ports[kp++] = 1000 + 3 * f;
		}
	id = wh_parts_of(p, 2 * 5 + 1);
	assert_int_equal(wh_parts_n_flows(p, id), kf);
	assert_flows(p, id, flows, kf);
	assert_ports(p, id, ports, kp);
	wh_parts_free(p);
}

static void test_parts_chain(void **state)
{
	(void)state;
	struct wh_parts *p = wh_parts_new();
	struct wh_change ch;
	uint32_t a = add(p, 1, (uint32_t[]){ 1, 2 }, 2, NULL);
	uint32_t c = add(p, 3, (uint32_t[]){ 3, 4 }, 2, NULL);
	assert_int_not_equal(a, c);
	assert_int_equal(wh_parts_count(p), 2);
	/* touching: what the middle flow would merge, nothing changed */
	const uint32_t *ids;
	uint32_t want[2] = { a < c ? a : c, a < c ? c : a };
	assert_touching(p, (uint32_t[]){ 4, 2, 9, 1 }, 4, want, 2);
	assert_touching(p, (uint32_t[]){ 3 }, 1, &c, 1);
	assert_int_equal(wh_parts_touching(p, (uint32_t[]){ 5, 6 }, 2, &ids), 0);
	assert_int_equal(wh_parts_count(p), 2);
	/* the middle flow merges both ends */
	uint32_t b = add(p, 2, (uint32_t[]){ 2, 3 }, 2, &ch);
	assert_list(ch.dead, ch.n_dead, want, 2);
	assert_list(ch.born, ch.n_born, &b, 1);
	assert_int_equal(wh_parts_count(p), 1);
	assert_flows(p, b, (uint32_t[]){ 1, 2, 3 }, 3);
	assert_ports(p, b, (uint32_t[]){ 1, 2, 3, 4 }, 4);
	/* removing it splits the chain again: one dead, two born */
	assert_int_equal(wh_parts_remove(p, 2, &ch), 0);
	assert_list(ch.dead, ch.n_dead, &b, 1);
	assert_int_equal(ch.n_born, 2);
	assert_true(ch.born[0] < ch.born[1]);
	a = wh_parts_of(p, 1);
	c = wh_parts_of(p, 3);
	assert_int_not_equal(a, c);
	assert_true((a == ch.born[0] && c == ch.born[1]) || (a == ch.born[1] && c == ch.born[0]));
	assert_flows(p, a, (uint32_t[]){ 1 }, 1);
	assert_ports(p, a, (uint32_t[]){ 1, 2 }, 2);
	assert_flows(p, c, (uint32_t[]){ 3 }, 1);
	assert_ports(p, c, (uint32_t[]){ 3, 4 }, 2);
	assert_int_equal(wh_parts_of(p, 2), WH_NONE);
	/* removing a leaf of a partition does not split it */
	add(p, 4, (uint32_t[]){ 4, 5 }, 2, NULL);
	uint32_t before = wh_parts_of(p, 3);
	assert_int_equal(wh_parts_remove(p, 4, &ch), 0);
	assert_list(ch.dead, ch.n_dead, &before, 1);
	assert_int_equal(ch.n_born, 1);
	assert_flows(p, ch.born[0], (uint32_t[]){ 3 }, 1);
	assert_ports(p, ch.born[0], (uint32_t[]){ 3, 4 }, 2);
	/* the only flow of a partition: it dies, nothing is born */
	a = wh_parts_of(p, 1);
	assert_int_equal(wh_parts_remove(p, 1, &ch), 0);
	assert_list(ch.dead, ch.n_dead, &a, 1);
	assert_int_equal(ch.n_born, 0);
	assert_int_equal(wh_parts_count(p), 1);
	assert_int_equal(wh_parts_touching(p, (uint32_t[]){ 1, 2 }, 2, &ids), 0);
	wh_parts_free(p);
}

static void test_parts_id_reuse(void **state)
{
	(void)state;
	struct wh_parts *p = wh_parts_new();
	struct wh_change ch;
	uint32_t a = add(p, 100, (uint32_t[]){ 5 }, 1, NULL);
	assert_int_equal(wh_parts_remove(p, 100, NULL), 0);
	assert_int_equal(add(p, 200, (uint32_t[]){ 6 }, 1, NULL), a);
	/* ids stay as few as the partitions ever alive at once (+1 while a
	 * change holds both the old and the new) */
	uint64_t s = 5;
	for (uint32_t i = 0; i < 2000; i++) {
		uint32_t f = 1000 + i;
		assert_int_equal(wh_parts_add(p, f, (uint32_t[]){ 1000 + rng_below(&s, 8) }, 1, &ch), 0);
		assert_true(ch.born[0] <= 9);
		if (i % 2)
			assert_int_equal(wh_parts_remove(p, f, NULL), 0);
	}
	const uint32_t *ids;
	uint32_t n = wh_parts_list(p, &ids);
	assert_int_equal(n, wh_parts_count(p));
	assert_true(n <= 9);
	for (uint32_t i = 1; i < n; i++)
		assert_true(ids[i - 1] < ids[i]);
	wh_parts_free(p);
}

/* ---- partitions: random sequences against union-find ---------------------------- */

#define RP_PORTS 50
#define RP_FLOWS 200

struct rflow {
	bool on;
	uint32_t n, port[4];
	uint32_t part; /* its partition before the current step */
};

static uint32_t uf_root(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

static bool in(const uint32_t *a, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (a[i] == x)
			return true;
	return false;
}

/* The incremental partitions equal the components from scratch: flows
 * uf[0..RP_FLOWS), ports RP_FLOWS + port.  now[f] is wh_parts_of(p, f),
 * asked once per step for both checks. */
static void check_parts(struct wh_parts *p, const struct rflow *fl, const uint32_t *now)
{
	uint32_t uf[RP_FLOWS + RP_PORTS], size[RP_FLOWS + RP_PORTS] = { 0 };
	bool used[RP_PORTS] = { false };
	for (uint32_t i = 0; i < RP_FLOWS + RP_PORTS; i++)
		uf[i] = i;
	for (uint32_t f = 0; f < RP_FLOWS; f++)
		for (uint32_t k = 0; fl[f].on && k < fl[f].n; k++) {
			uint32_t a = uf_root(uf, f), b = uf_root(uf, RP_FLOWS + fl[f].port[k]);
			uf[a] = b;
			used[fl[f].port[k]] = true;
		}
	uint32_t groups = 0, id_of_root[RP_FLOWS + RP_PORTS];
	memset(id_of_root, 0xff, sizeof id_of_root);
	for (uint32_t f = 0; f < RP_FLOWS; f++) {
		if (!fl[f].on) {
			assert_int_equal(now[f], WH_NONE);
			continue;
		}
		uint32_t r = uf_root(uf, f), id = now[f];
		assert_int_not_equal(id, WH_NONE);
		if (id_of_root[r] == UINT32_MAX) {
			id_of_root[r] = id;
			groups++;
		}
		/* same group, same partition */
		assert_int_equal(id_of_root[r], id);
		size[r]++;
	}
	assert_int_equal(wh_parts_count(p), groups);
	uint32_t port_root[RP_PORTS];
	for (uint32_t q = 0; q < RP_PORTS; q++)
		port_root[q] = used[q] ? uf_root(uf, RP_FLOWS + q) : UINT32_MAX;
	const uint32_t *ids;
	uint32_t n = wh_parts_list(p, &ids);
	assert_int_equal(n, groups);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			assert_true(ids[i - 1] < ids[i]);
		const uint32_t *fs, *ps;
		uint32_t nf = wh_parts_flows(p, ids[i], &fs), np = wh_parts_ports(p, ids[i], &ps);
		assert_true(nf >= 1);
		/* the count without the listing (no sort) agrees */
		assert_int_equal(wh_parts_n_flows(p, ids[i]), nf);
		uint32_t r = uf_root(uf, fs[0]);
		/* different partitions: different groups */
		assert_int_equal(id_of_root[r], ids[i]);
		assert_int_equal(nf, size[r]);
		for (uint32_t k = 0; k < nf; k++) {
			if (k)
				assert_true(fs[k - 1] < fs[k]);
			assert_int_equal(now[fs[k]], ids[i]);
		}
		/* ports: exactly those of its flows */
		uint32_t want_p = 0;
		for (uint32_t q = 0; q < RP_PORTS; q++) {
			if (port_root[q] != r)
				continue;
			assert_true(want_p < np);
			assert_int_equal(ps[want_p], q);
			want_p++;
		}
		assert_int_equal(np, want_p);
	}
}

/* What a step reported: dead ids are no longer live, born ones are, the
 * born partitions hold exactly the flows that changed partition, and the
 * dead are the partitions those flows were in. */
static void check_change(struct wh_parts *p, const struct rflow *fl, const uint32_t *now_of,
			 const struct wh_change *ch, uint32_t flow, bool added)
{
	for (uint32_t i = 0; i < ch->n_dead; i++) {
		const uint32_t *x;
		assert_int_equal(wh_parts_flows(p, ch->dead[i], &x), 0);
		assert_false(in(ch->born, ch->n_born, ch->dead[i]));
		if (i)
			assert_true(ch->dead[i - 1] < ch->dead[i]);
	}
	uint32_t in_born = 0;
	for (uint32_t i = 0; i < ch->n_born; i++) {
		const uint32_t *x;
		in_born += wh_parts_flows(p, ch->born[i], &x);
		assert_true(wh_parts_flows(p, ch->born[i], &x) > 0);
	}
	uint32_t changed = 0;
	for (uint32_t f = 0; f < RP_FLOWS; f++) {
		if (!fl[f].on)
			continue;
		uint32_t now = now_of[f];
		bool born = in(ch->born, ch->n_born, now);
		if (f == flow) {
			assert_true(added && born);
			changed++;
			continue;
		}
		/* a flow in a dead partition is in a born one; others keep theirs */
		if (in(ch->dead, ch->n_dead, fl[f].part)) {
			assert_true(born);
			changed++;
		} else {
			assert_false(born);
			assert_int_equal(now, fl[f].part);
		}
	}
	assert_int_equal(in_born, changed);
	if (!added)
		assert_int_equal(ch->n_dead, 1);
	else
		assert_int_equal(ch->n_born, 1);
}

static void test_parts_random(void **state)
{
	(void)state;
	uint64_t s = 2024;
	struct rflow fl[RP_FLOWS];
	uint32_t active[RP_FLOWS], now[RP_FLOWS];
	for (unsigned seq = 0; seq < 1000; seq++) {
		struct wh_parts *p = wh_parts_new();
		memset(fl, 0, sizeof fl);
		for (uint32_t f = 0; f < RP_FLOWS; f++)
			now[f] = WH_NONE;
		uint32_t na = 0;
		for (unsigned op = 0; op < 200; op++) {
			struct wh_change ch;
			bool start = na == 0 || (na < RP_FLOWS && rng_below(&s, 100) < 55);
			uint32_t f;
			/* each flow's partition before this step: the last
			 * step's answers (nothing changed since) */
			for (f = 0; f < RP_FLOWS; f++)
				if (fl[f].on)
					fl[f].part = now[f];
			if (start) {
				do
					f = rng_below(&s, RP_FLOWS);
				while (fl[f].on);
				fl[f].n = 1 + rng_below(&s, 4);
				for (uint32_t k = 0; k < fl[f].n; k++)
					fl[f].port[k] = rng_below(&s, RP_PORTS);
				const uint32_t *ids;
				uint32_t nt = wh_parts_touching(p, fl[f].port, fl[f].n, &ids);
				uint32_t touched[4];
				memcpy(touched, ids, nt * sizeof *ids);
				assert_int_equal(wh_parts_add(p, f, fl[f].port, fl[f].n, &ch), 0);
				fl[f].on = true;
				active[na++] = f;
				/* touching foretold the dead */
				assert_list(ch.dead, ch.n_dead, touched, nt);
			} else {
				uint32_t i = rng_below(&s, na);
				f = active[i];
				active[i] = active[--na];
				assert_int_equal(wh_parts_remove(p, f, &ch), 0);
				assert_list(ch.dead, ch.n_dead, &fl[f].part, 1);
				fl[f].on = false;
			}
			for (uint32_t g = 0; g < RP_FLOWS; g++)
				now[g] = wh_parts_of(p, g);
			check_parts(p, fl, now);
			check_change(p, fl, now, &ch, f, start);
		}
		wh_parts_free(p);
	}
}

/* ---- partitions: size -------------------------------------------------------------- */

static void test_parts_large(void **state)
{
	(void)state;
	/* 10^5 flows of 6 ports among 10^7 port ids, then all removed */
	const uint32_t nf = 100000;
	uint64_t s = 99;
	struct wh_parts *p = wh_parts_new();
	uint32_t *order = malloc(nf * sizeof *order);
	for (uint32_t f = 0; f < nf; f++) {
		uint32_t ports[6];
		for (int k = 0; k < 6; k++)
			ports[k] = rng_below(&s, 10000000);
		assert_int_equal(wh_parts_add(p, f * 7 + 3, ports, 6, NULL), 0);
		order[f] = f;
	}
	uint32_t live = wh_parts_count(p);
	assert_true(live > 1 && live <= nf);
	shuffle(order, nf, &s);
	for (uint32_t i = 0; i < nf; i++)
		assert_int_equal(wh_parts_remove(p, order[i] * 7 + 3, NULL), 0);
	assert_int_equal(wh_parts_count(p), 0);
	wh_parts_free(p);

	/* one partition: a path of 2x10^4 flows, cut flow by flow in random
	 * order (each cut costs the smaller piece, not the whole path) */
	const uint32_t np = 20000;
	p = wh_parts_new();
	for (uint32_t f = 0; f < np; f++) {
		assert_int_equal(wh_parts_add(p, f, (uint32_t[]){ f, f + 1 }, 2, NULL), 0);
		order[f] = f;
	}
	assert_int_equal(wh_parts_count(p), 1);
	shuffle(order, np, &s);
	/* after the first k cuts the path is in (pieces) partitions */
	bool *gone = calloc(np, sizeof *gone);
	for (uint32_t i = 0; i < np; i++) {
		assert_int_equal(wh_parts_remove(p, order[i], NULL), 0);
		gone[order[i]] = true;
		if (i % 4000 == 0) {
			uint32_t pieces = 0;
			for (uint32_t f = 0; f < np; f++)
				pieces += !gone[f] && (f == 0 || gone[f - 1]);
			assert_int_equal(wh_parts_count(p), pieces);
		}
	}
	assert_int_equal(wh_parts_count(p), 0);
	/* a star: 2x10^4 flows through one port, removed in turn, never split */
	for (uint32_t f = 0; f < np; f++)
		assert_int_equal(wh_parts_add(p, f, (uint32_t[]){ 0, f + 1 }, 2, NULL), 0);
	for (uint32_t f = 0; f < np; f++) {
		struct wh_change ch;
		assert_int_equal(wh_parts_remove(p, f, &ch), 0);
		assert_int_equal(ch.n_born, f + 1 < np ? 1 : 0);
	}
	free(gone);
	free(order);
	wh_parts_free(p);
}

/* ---- memo: graphs ------------------------------------------------------------------ */

#define TG_MAX 1100

/* A test graph (arrays owned; tg_init frees what was there). */
struct tg {
	uint32_t n, m, cap;
	uint64_t *label;
	struct wh_edge *e;
	uint64_t context;
};

static struct wh_graph view(const struct tg *t)
{
	return (struct wh_graph){ .n = t->n, .label = t->label, .edges = t->e,
				  .n_edges = t->m, .context = t->context };
}

static void tg_free(struct tg *t)
{
	free(t->label);
	free(t->e);
	memset(t, 0, sizeof *t);
}

static void tg_init(struct tg *t, uint32_t n, uint64_t label, uint64_t context)
{
	tg_free(t);
	assert_true(n <= TG_MAX);
	t->n = n;
	t->context = context;
	t->label = malloc(n * sizeof *t->label + 1);
	for (uint32_t v = 0; v < n; v++)
		t->label[v] = label;
}

static void tg_edge(struct tg *t, uint32_t a, uint32_t b, uint32_t w)
{
	if (t->m == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->e = realloc(t->e, t->cap * sizeof *t->e);
	}
	t->e[t->m++] = (struct wh_edge){ .a = a, .b = b, .weight = w };
}

static void tg_copy(struct tg *d, const struct tg *s)
{
	tg_init(d, s->n, 0, s->context);
	memcpy(d->label, s->label, s->n * sizeof *s->label);
	for (uint32_t i = 0; i < s->m; i++)
		tg_edge(d, s->e[i].a, s->e[i].b, s->e[i].weight);
}

static void ring(struct tg *t, uint32_t n)
{
	tg_init(t, n, 40000, 1);
	for (uint32_t v = 0; v < n; v++)
		tg_edge(t, v, (v + 1) % n, 1);
}

static void clique(struct tg *t, uint32_t n)
{
	tg_init(t, n, 25000, 1);
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = a + 1; b < n; b++)
			tg_edge(t, a, b, 2);
}

static void torus(struct tg *t, uint32_t k)
{
	tg_init(t, k * k, 10000, 1);
	for (uint32_t x = 0; x < k; x++)
		for (uint32_t y = 0; y < k; y++) {
			tg_edge(t, x * k + y, ((x + 1) % k) * k + y, 1);
			tg_edge(t, x * k + y, x * k + (y + 1) % k, 1);
		}
}

/* The same graph, vertex v renamed perm[v], edges shuffled and turned. */
static void permute(struct tg *d, const struct tg *s, uint64_t *rng, uint32_t *perm)
{
	for (uint32_t v = 0; v < s->n; v++)
		perm[v] = v;
	shuffle(perm, s->n, rng);
	tg_init(d, s->n, 0, s->context);
	for (uint32_t v = 0; v < s->n; v++)
		d->label[perm[v]] = s->label[v];
	uint32_t *eo = malloc(s->m * sizeof *eo + 1);
	for (uint32_t i = 0; i < s->m; i++)
		eo[i] = i;
	shuffle(eo, s->m, rng);
	for (uint32_t i = 0; i < s->m; i++) {
		const struct wh_edge *e = &s->e[eo[i]];
		if (rng_next(rng) & 1)
			tg_edge(d, perm[e->b], perm[e->a], e->weight);
		else
			tg_edge(d, perm[e->a], perm[e->b], e->weight);
	}
	free(eo);
}

static uint32_t weight(const struct tg *t, uint32_t a, uint32_t b)
{
	for (uint32_t i = 0; i < t->m; i++)
		if ((t->e[i].a == a && t->e[i].b == b) || (t->e[i].a == b && t->e[i].b == a))
			return t->e[i].weight;
	return 0;
}

/* The outcome stored for `orig` was bytes[v] = v, end_rate[v] = 7v + 1:
 * what comes back for `q` names, per query vertex, a vertex of orig; that
 * naming must be an isomorphism (labels and weighted edges kept). */
static void check_mapping(const struct tg *q, const struct tg *orig, const struct wh_outcome *o)
{
	const uint32_t n = q->n;
	bool *seen = calloc(n, sizeof *seen);
	for (uint32_t v = 0; v < n; v++) {
		assert_true(o->bytes[v] < n);
		assert_int_equal(o->end_rate[v], 7 * o->bytes[v] + 1);
		assert_false(seen[o->bytes[v]]);
		seen[o->bytes[v]] = true;
		assert_int_equal(q->label[v], orig->label[o->bytes[v]]);
	}
	assert_int_equal(q->m, orig->m);
	if (orig->m <= 4000)
		for (uint32_t i = 0; i < q->m; i++)
			assert_int_equal(weight(orig, (uint32_t)o->bytes[q->e[i].a],
						(uint32_t)o->bytes[q->e[i].b]),
					 q->e[i].weight);
	free(seen);
}

struct outbuf {
	uint64_t bytes[TG_MAX], rate[TG_MAX], line[TG_MAX];
	struct wh_outcome o;
};

static struct wh_outcome *outbuf(struct outbuf *b)
{
	memset(b, 0, sizeof *b);
	b->o = (struct wh_outcome){ .bytes = b->bytes, .end_rate = b->rate, .line_rate = b->line };
	return &b->o;
}

static void insert(struct wh_memo *m, const struct tg *t, uint64_t duration)
{
	struct outbuf b;
	struct wh_outcome *o = outbuf(&b);
	o->duration = duration;
	for (uint32_t v = 0; v < t->n; v++) {
		b.bytes[v] = v;
		b.rate[v] = 7 * (uint64_t)v + 1;
		b.line[v] = 100000000000ull; /* 100 Gb/s */
	}
	struct wh_graph g = view(t);
	assert_int_equal(wh_memo_insert(m, &g, o), 0);
}

static bool lookup(struct wh_memo *m, const struct tg *t, struct outbuf *b)
{
	struct wh_graph g = view(t);
	return wh_memo_lookup(m, &g, outbuf(b));
}

/* Inserted, then found as itself and relabelled three times. */
static void check_symmetric(struct tg *t, uint64_t seed)
{
	struct tg q = { 0 };
	struct outbuf b;
	uint32_t perm[TG_MAX];
	uint64_t s = seed;
	struct wh_memo *m = wh_memo_new();
	insert(m, t, 1234);
	assert_true(lookup(m, t, &b));
	assert_int_equal(b.o.duration, 1234);
	check_mapping(t, t, &b.o);
	struct wh_graph g = view(t);
	uint64_t key = wh_memo_key(&g);
	for (int i = 0; i < 3; i++) {
		permute(&q, t, &s, perm);
		struct wh_graph gq = view(&q);
		assert_true(wh_memo_key(&gq) == key);
		assert_true(lookup(m, &q, &b));
		assert_int_equal(b.o.duration, 1234);
		check_mapping(&q, t, &b.o);
	}
	assert_int_equal(wh_memo_entries(m), 1);
	wh_memo_free(m);
	tg_free(&q);
}

static void test_memo_same_and_relabelled(void **state)
{
	(void)state;
	struct tg t = { 0 }, q = { 0 };
	struct outbuf b;
	uint32_t perm[TG_MAX];
	uint64_t s = 1;
	/* a small rigid graph: the outcome comes back exactly permuted */
	tg_init(&t, 5, 100, 9);
	t.label[0] = 300;
	t.label[3] = 200;
	tg_edge(&t, 0, 1, 1);
	tg_edge(&t, 1, 2, 2);
	tg_edge(&t, 2, 3, 1);
	tg_edge(&t, 3, 4, 3);
	tg_edge(&t, 1, 4, 1);
	struct wh_memo *m = wh_memo_new();
	insert(m, &t, 555);
	assert_true(lookup(m, &t, &b));
	assert_int_equal(b.o.duration, 555);
	for (uint32_t v = 0; v < t.n; v++) {
		assert_int_equal(b.bytes[v], v);
		assert_int_equal(b.rate[v], 7 * v + 1);
	}
	permute(&q, &t, &s, perm);
	assert_true(lookup(m, &q, &b));
	for (uint32_t v = 0; v < t.n; v++) {
		assert_int_equal(b.bytes[perm[v]], v);
		assert_int_equal(b.rate[perm[v]], 7 * v + 1);
	}
	/* inserting an isomorphic graph replaces the entry */
	insert(m, &q, 556);
	assert_int_equal(wh_memo_entries(m), 1);
	assert_true(lookup(m, &t, &b));
	assert_int_equal(b.o.duration, 556);
	for (uint32_t v = 0; v < t.n; v++)
		assert_int_equal(b.bytes[v], perm[v]);
	/* invalid graphs: refused, not crashed on */
	struct wh_graph g = view(&t);
	struct wh_edge bad[2] = { { 0, 1, 1 }, { 1, 0, 2 } };
	g.edges = bad;
	g.n_edges = 2; /* a pair twice */
	assert_false(wh_memo_lookup(m, &g, outbuf(&b)));
	assert_int_equal(wh_memo_insert(m, &g, &b.o), -1);
	bad[1] = (struct wh_edge){ 2, 2, 1 }; /* a loop */
	assert_int_equal(wh_memo_insert(m, &g, &b.o), -1);
	bad[1] = (struct wh_edge){ 2, 5, 1 }; /* out of range */
	assert_int_equal(wh_memo_insert(m, &g, &b.o), -1);
	g.n = 0;
	assert_int_equal(wh_memo_insert(m, &g, &b.o), -1);
	assert_int_equal(wh_memo_entries(m), 1);
	wh_memo_free(m);
	tg_free(&t);
	tg_free(&q);
}

static void test_memo_symmetric(void **state)
{
	(void)state;
	struct tg t = { 0 };
	ring(&t, 8);
	check_symmetric(&t, 8);
	ring(&t, 64);
	check_symmetric(&t, 64);
	ring(&t, 1000);
	check_symmetric(&t, 1000);
	clique(&t, 6);
	check_symmetric(&t, 6);
	clique(&t, 64);
	check_symmetric(&t, 65);
	torus(&t, 8);
	check_symmetric(&t, 88);
	/* a clique of 16 flows on one link, each also in a ring of 4 */
	tg_init(&t, 16 + 48, 5, 3);
	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = a + 1; b < 16; b++)
			tg_edge(&t, a, b, 1);
	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t k = 0; k < 4; k++)
			tg_edge(&t, k ? 16 + 3 * a + k - 1 : a, k < 3 ? 16 + 3 * a + k : a, 2);
	check_symmetric(&t, 16);
	/* a star of 30 and a complete bipartite K(5, 7) */
	tg_init(&t, 31, 1, 1);
	for (uint32_t v = 1; v < 31; v++)
		tg_edge(&t, 0, v, 1);
	check_symmetric(&t, 31);
	tg_init(&t, 12, 1, 1);
	for (uint32_t a = 0; a < 5; a++)
		for (uint32_t b = 5; b < 12; b++)
			tg_edge(&t, a, b, 1);
	check_symmetric(&t, 57);
	tg_free(&t);
}

static void two_triangles(struct tg *t)
{
	tg_init(t, 6, 1, 1);
	tg_edge(t, 0, 1, 1);
	tg_edge(t, 1, 2, 1);
	tg_edge(t, 2, 0, 1);
	tg_edge(t, 3, 4, 1);
	tg_edge(t, 4, 5, 1);
	tg_edge(t, 5, 3, 1);
}

static void test_memo_misses(void **state)
{
	(void)state;
	struct tg t = { 0 }, u = { 0 };
	struct outbuf b;
	struct wh_memo *m = wh_memo_new();
	/* two triangles and a hexagon: same degrees, same colour refinement */
	two_triangles(&t);
	ring(&u, 6);
	u.label[0] = u.label[1] = u.label[2] = u.label[3] = u.label[4] = u.label[5] = 1;
	insert(m, &t, 1);
	assert_false(lookup(m, &u, &b));
	struct wh_graph gt = view(&t), gu = view(&u);
	assert_true(wh_memo_key(&gt) != wh_memo_key(&gu));
	insert(m, &u, 2);
	assert_int_equal(wh_memo_entries(m), 2);
	assert_true(lookup(m, &t, &b));
	assert_int_equal(b.o.duration, 1);
	assert_true(lookup(m, &u, &b));
	assert_int_equal(b.o.duration, 2);
	wh_memo_free(m);

	m = wh_memo_new();
	ring(&t, 8);
	insert(m, &t, 3);
	tg_copy(&u, &t);
	u.e[5].weight = 2; /* other weights */
	assert_false(lookup(m, &u, &b));
	tg_copy(&u, &t);
	u.label[2] = 40001; /* other rates */
	assert_false(lookup(m, &u, &b));
	tg_copy(&u, &t);
	u.context = 2; /* other CC or link rate */
	assert_false(lookup(m, &u, &b));
	ring(&u, 9); /* other size */
	assert_false(lookup(m, &u, &b));
	ring(&u, 8);
	u.m--; /* a path of 8 */
	assert_false(lookup(m, &u, &b));
	assert_true(lookup(m, &t, &b));
	wh_memo_free(m);
	tg_free(&t);
	tg_free(&u);
}

/* With the search cut short, keys fall back to colour classes, which two
 * triangles and a hexagon share: the verification must tell them apart,
 * and must still find relabelled graphs. */
static void test_memo_verify(void **state)
{
	(void)state;
	struct tg t = { 0 }, u = { 0 }, q = { 0 };
	struct outbuf b;
	struct wh_memo_stats st;
	uint32_t perm[TG_MAX];
	uint64_t s = 11;
	struct wh_memo *m = wh_memo_new();
	wh_memo_set_budget(m, 1, 0);
	two_triangles(&t);
	ring(&u, 6);
	for (uint32_t v = 0; v < 6; v++)
		u.label[v] = 1;
	insert(m, &t, 1);
	wh_memo_get_stats(m, &st);
	assert_int_equal(st.fallbacks, 1);
	assert_true(lookup(m, &t, &b)); /* the same order: identical forms */
	wh_memo_get_stats(m, &st);
	assert_int_equal(st.verified, 0);
	assert_int_equal(st.rejected, 0);
	permute(&q, &t, &s, perm);
	assert_true(lookup(m, &q, &b));
	check_mapping(&q, &t, &b.o);
	wh_memo_get_stats(m, &st);
	assert_int_equal(st.verified, 1);
	assert_false(lookup(m, &u, &b));
	wh_memo_get_stats(m, &st);
	assert_int_equal(st.fallbacks, 4);
	assert_int_equal(st.rejected, 1); /* the key matched; the graph did not */
	assert_int_equal(st.lookups, 3);
	assert_int_equal(st.hits, 2);
	wh_memo_free(m);

	m = wh_memo_new();
	wh_memo_set_budget(m, 3, 0);
	ring(&t, 8);
	insert(m, &t, 5);
	for (int i = 0; i < 5; i++) {
		permute(&q, &t, &s, perm);
		assert_true(lookup(m, &q, &b));
		assert_int_equal(b.o.duration, 5);
		check_mapping(&q, &t, &b.o);
		q.e[0].weight = 2;
		assert_false(lookup(m, &q, &b));
	}
	wh_memo_get_stats(m, &st);
	/* the ring (inserted, then 5 lookups) ran out every time; the
	 * hits were proven by the verification */
	assert_true(st.fallbacks >= 6);
	assert_true(st.verified >= 4);
	wh_memo_free(m);
	tg_free(&t);
	tg_free(&u);
	tg_free(&q);
}

static void random_graph(struct tg *t, uint64_t *s)
{
	uint32_t n = 2 + rng_below(s, 29);
	uint32_t density = 10 + rng_below(s, 60), labels = 1 + rng_below(s, 3);
	tg_init(t, n, 0, rng_below(s, 2));
	for (uint32_t v = 0; v < n; v++)
		t->label[v] = 100 * (1 + rng_below(s, labels));
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = a + 1; b < n; b++)
			if (rng_below(s, 100) < density)
				tg_edge(t, a, b, 1 + rng_below(s, 3));
}

/* A random cubic graph: a Hamiltonian cycle and a perfect matching that
 * avoids it.  Colour refinement splits nothing, yet it has (almost
 * always) no symmetry: every leaf of the search differs, so only taking
 * the smallest makes the form canonical. */
static void cubic_graph(struct tg *t, uint64_t *s)
{
	uint32_t n = 8 + 2 * rng_below(s, 13), cyc[TG_MAX], mat[TG_MAX], pos[TG_MAX];
	for (uint32_t v = 0; v < n; v++)
		cyc[v] = mat[v] = v;
	shuffle(cyc, n, s);
	for (uint32_t i = 0; i < n; i++)
		pos[cyc[i]] = i;
	for (bool ok = false; !ok;) {
		shuffle(mat, n, s);
		ok = true;
		for (uint32_t i = 0; i < n && ok; i += 2) {
			uint32_t d = (pos[mat[i]] + n - pos[mat[i + 1]]) % n;
			ok = d != 1 && d != n - 1;
		}
	}
	tg_init(t, n, 500, 1);
	for (uint32_t i = 0; i < n; i++)
		tg_edge(t, cyc[i], cyc[(i + 1) % n], 1);
	for (uint32_t i = 0; i < n; i += 2)
		tg_edge(t, mat[i], mat[i + 1], 1 + (uint32_t)(rng_next(s) & 1) * (i == 0));
}

#define RG 200

/* Symmetric, but not so symmetric that every leaf is alike: the pruning
 * by automorphisms must not cut off the smallest leaf. */
static void family_graph(struct tg *t, unsigned kind, uint64_t *s)
{
	switch (kind % 6) {
	case 0: { /* a circulant: jumps of random lengths, a weight per length */
		uint32_t n = 12 + rng_below(s, 40), jumps = 2 + rng_below(s, 3);
		tg_init(t, n, 100, 1);
		bool used[64] = { false };
		for (uint32_t j = 0; j < jumps; j++) {
			uint32_t len = 1 + rng_below(s, (n - 1) / 2), w = 1 + rng_below(s, 2);
			if (used[len])
				continue;
			used[len] = true;
			for (uint32_t v = 0; v < n; v++)
				tg_edge(t, v, (v + len) % n, w);
		}
		break;
	}
	case 1: { /* a random cubic graph times K2: two layers, swappable */
		struct tg c = { 0 };
		cubic_graph(&c, s);
		tg_init(t, 2 * c.n, 100, 1);
		for (uint32_t i = 0; i < c.m; i++) {
			tg_edge(t, c.e[i].a, c.e[i].b, c.e[i].weight);
			tg_edge(t, c.n + c.e[i].a, c.n + c.e[i].b, c.e[i].weight);
		}
		for (uint32_t v = 0; v < c.n; v++)
			tg_edge(t, v, c.n + v, 3);
		tg_free(&c);
		break;
	}
	case 2: { /* a torus a x b, one weight per direction */
		uint32_t a = 3 + rng_below(s, 5), b = 3 + rng_below(s, 5);
		uint32_t wa = 1 + rng_below(s, 2), wb = 1 + rng_below(s, 2);
		tg_init(t, a * b, 100, 1);
		for (uint32_t x = 0; x < a; x++)
			for (uint32_t y = 0; y < b; y++) {
				tg_edge(t, x * b + y, ((x + 1) % a) * b + y, wa);
				tg_edge(t, x * b + y, x * b + (y + 1) % b, wb);
			}
		break;
	}
	case 3: { /* a ring of cliques, clique j's vertex 0 to clique j+1's vertex 1 */
		uint32_t r = 3 + rng_below(s, 5), k = 3 + rng_below(s, 4);
		tg_init(t, r * k, 100, 1);
		for (uint32_t j = 0; j < r; j++) {
			for (uint32_t a = 0; a < k; a++)
				for (uint32_t b = a + 1; b < k; b++)
					tg_edge(t, j * k + a, j * k + b, 1);
			tg_edge(t, j * k, ((j + 1) % r) * k + 1, 2);
		}
		break;
	}
	case 4: { /* symmetric, rigid, symmetric, in the order the search
		   * branches: automorphisms found deep below leaves that differ */
		struct tg c = { 0 };
		cubic_graph(&c, s);
		tg_init(t, 5 + c.n + 6, 1, 1);
		for (uint32_t v = 0; v < c.n; v++)
			t->label[5 + v] = 2;
		for (uint32_t v = 0; v < 6; v++)
			t->label[5 + c.n + v] = 3;
		for (uint32_t v = 0; v < 5; v++)
			tg_edge(t, v, (v + 1) % 5, 1);
		for (uint32_t i = 0; i < c.m; i++)
			tg_edge(t, 5 + c.e[i].a, 5 + c.e[i].b, c.e[i].weight);
		for (uint32_t v = 0; v < 6; v++)
			tg_edge(t, 5 + c.n + v, 5 + c.n + (v + 1) % 6, 1);
		tg_free(&c);
		break;
	}
	default: { /* Petersen: vertex-transitive, not a Cayley graph */
		tg_init(t, 10, 100, 1);
		for (uint32_t i = 0; i < 5; i++) {
			tg_edge(t, i, (i + 1) % 5, 1);
			tg_edge(t, i, 5 + i, 1);
			tg_edge(t, 5 + i, 5 + (i + 2) % 5, 1);
		}
		break;
	}
	}
}

static void test_memo_families(void **state)
{
	(void)state;
	struct tg t = { 0 }, q = { 0 };
	struct outbuf b;
	uint32_t perm[TG_MAX];
	uint64_t s = 31;
	/* 600: fewer let a wrong jump after an automorphism go unnoticed */
	for (unsigned k = 0; k < 600; k++) {
		struct wh_memo *m = wh_memo_new();
		family_graph(&t, k, &s);
		struct wh_graph g = view(&t);
		uint64_t key = wh_memo_key(&g);
		insert(m, &t, k);
		for (int i = 0; i < 6; i++) {
			permute(&q, &t, &s, perm);
			struct wh_graph gq = view(&q);
			if (wh_memo_key(&gq) != key)
				fail_msg("graph %u (family %u): relabelling %d changes the key", k,
					 k % 6, i);
			assert_true(lookup(m, &q, &b));
			check_mapping(&q, &t, &b.o);
		}
		struct wh_memo_stats st;
		wh_memo_get_stats(m, &st);
		assert_int_equal(st.fallbacks, 0);
		wh_memo_free(m);
	}
	tg_free(&t);
	tg_free(&q);
}

static void test_memo_random(void **state)
{
	(void)state;
	struct tg g[RG] = { { 0 } }, q = { 0 };
	struct outbuf b;
	uint32_t perm[TG_MAX];
	uint64_t want[RG], s = 77;
	struct wh_memo *m = wh_memo_new();
	uint32_t classes = 0;
	for (uint32_t i = 0; i < RG; i++) {
		if (i % 4 == 3)
			cubic_graph(&g[i], &s);
		else
			random_graph(&g[i], &s);
		/* an isomorphic graph already there is replaced */
		if (lookup(m, &g[i], &b)) {
			for (uint32_t j = 0; j < i; j++)
				if (want[j] == b.o.duration)
					want[j] = i;
		} else {
			classes++;
		}
		insert(m, &g[i], i);
		want[i] = i;
	}
	assert_int_equal(wh_memo_entries(m), classes);
	assert_true(classes > RG - 10);
	for (uint32_t i = 0; i < RG; i++) {
		permute(&q, &g[i], &s, perm);
		assert_true(lookup(m, &q, &b));
		assert_int_equal(b.o.duration, want[i]);
		if (want[i] == i)
			check_mapping(&q, &g[i], &b.o);
		/* one weight or one rate changed to a value no stored graph has */
		if (q.m) {
			q.e[rng_below(&s, q.m)].weight += 10;
			assert_false(lookup(m, &q, &b));
			permute(&q, &g[i], &s, perm);
		}
		q.label[rng_below(&s, q.n)] += 7;
		assert_false(lookup(m, &q, &b));
	}
	wh_memo_free(m);
	for (uint32_t i = 0; i < RG; i++)
		tg_free(&g[i]);
	tg_free(&q);
}

/* ---- memo: the file ----------------------------------------------------------------- */

static const char *tmp_path(const char *name)
{
	static char path[3][600];
	static int k;
	k = (k + 1) % 3;
	snprintf(path[k], sizeof path[k], "%s/%s", th_tmpdir(), name);
	return path[k];
}

static void write_bytes(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* A load that must fail: -1 (a damaged table) or -2 (not a table), a
 * reason containing `needle` (NULL: any), the table (one ring of 8,
 * duration 42) unchanged. */
static void check_refused(const char *path, const char *needle)
{
	struct tg t = { 0 };
	struct outbuf b;
	char why[256] = "";
	ring(&t, 8);
	struct wh_memo *m = wh_memo_new();
	insert(m, &t, 42);
	int rc = wh_memo_load(m, path, why, sizeof why);
	if (rc != -1 && rc != -2)
		fail_msg("%s: loaded", path);
	/* -2 exactly for what is not a memo table */
	assert_int_equal(rc == -2, strstr(why, "not a warpsim memo file") != NULL ||
				   strstr(why, "not a regular file") != NULL);
	assert_true(strlen(why) > 10);
	if (needle && !strstr(why, needle))
		fail_msg("'%s' lacks '%s'", why, needle);
	assert_int_equal(wh_memo_entries(m), 1);
	assert_true(lookup(m, &t, &b));
	assert_int_equal(b.o.duration, 42);
	wh_memo_free(m);
	tg_free(&t);
}

static void put_u32(unsigned char *p, uint32_t x)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(x >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t x)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(x >> (8 * i));
}

/* A damaged copy with its checksum made right again, so the check that
 * must refuse it is the one under test. */
static void write_resummed(const char *path, unsigned char *buf, size_t len)
{
	put_u64(buf + len - 8, XXH3_64bits(buf, len - 8));
	write_bytes(path, buf, len);
}

static void test_memo_file(void **state)
{
	(void)state;
	struct tg g[40] = { { 0 } }, q = { 0 };
	struct outbuf b;
	uint32_t perm[TG_MAX];
	uint64_t s = 3;
	char why[256];
	struct wh_memo *m = wh_memo_new();
	for (uint32_t i = 0; i < 40; i++) {
		if (i < 36)
			random_graph(&g[i], &s);
		else
			ring(&g[i], 5 + i);
		insert(m, &g[i], 1000 + i);
	}
	uint64_t entries = wh_memo_entries(m);
	const char *path = tmp_path("memo.db");
	assert_int_equal(wh_memo_save(m, path, why, sizeof why), 0);
	/* a missing file is an empty table; a missing directory is an error */
	struct wh_memo *l = wh_memo_new();
	assert_int_equal(wh_memo_load(l, tmp_path("none.db"), why, sizeof why), 0);
	assert_int_equal(wh_memo_entries(l), 0);
	assert_int_equal(wh_memo_save(m, tmp_path("no/such/dir/memo.db"), why, sizeof why), -1);
	assert_non_null(strstr(why, "no/such/dir"));
	/* saved and loaded: the same entries, found relabelled */
	assert_int_equal(wh_memo_load(l, path, why, sizeof why), 0);
	assert_int_equal(wh_memo_entries(l), entries);
	for (uint32_t i = 0; i < 40; i++) {
		permute(&q, &g[i], &s, perm);
		assert_true(lookup(l, &q, &b));
		assert_true(lookup(m, &q, &b));
		uint64_t d = b.o.duration;
		assert_true(lookup(l, &q, &b));
		assert_int_equal(b.o.duration, d);
		if (d == 1000 + i)
			check_mapping(&q, &g[i], &b.o);
	}
	/* loading again merges: isomorphic entries replaced, not added */
	assert_int_equal(wh_memo_load(l, path, why, sizeof why), 0);
	assert_int_equal(wh_memo_entries(l), entries);
	/* saving the loaded table gives the same bytes */
	const char *again = tmp_path("again.db");
	assert_int_equal(wh_memo_save(l, again, why, sizeof why), 0);
	size_t len, len2;
	unsigned char *buf = (unsigned char *)th_read(path, &len);
	unsigned char *buf2 = (unsigned char *)th_read(again, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(buf, buf2, len);
	free(buf2);
	wh_memo_free(l);
	wh_memo_free(m);
	for (uint32_t i = 0; i < 40; i++)
		tg_free(&g[i]);
	tg_free(&q);

	const char *bad = tmp_path("bad.db");
	/* truncated at 200 lengths, the short ones all included */
	for (size_t i = 0; i < 200; i++) {
		size_t cut = i < 100 ? i : 100 + rng_below(&s, (uint32_t)(len - 100));
		write_bytes(bad, buf, cut);
		check_refused(bad, cut ? "truncated" : "not a warpsim memo file");
	}
	write_bytes(bad, buf, len - 1);
	check_refused(bad, "truncated");
	/* 200 flipped bytes, anywhere, the checksum included */
	unsigned char *dam = malloc(len + 16);
	for (int i = 0; i < 200; i++) {
		memcpy(dam, buf, len);
		dam[rng_below(&s, (uint32_t)len)] ^= (unsigned char)(1 + rng_below(&s, 255));
		write_bytes(bad, dam, len);
		check_refused(bad, NULL);
	}
	/* a flip in a rate (the first entry's first label): only the checksum
	 * can tell */
	memcpy(dam, buf, len);
	dam[25 + 24] ^= 0x10;
	write_bytes(bad, dam, len);
	check_refused(bad, "checksum mismatch");
	/* other magic, other version, empty file */
	memcpy(dam, buf, len);
	dam[3] = 'X';
	write_resummed(bad, dam, len);
	check_refused(bad, "not a warpsim memo file");
	write_bytes(bad, "#!/bin/sh\necho hello, this is not a memo table\n", 48);
	check_refused(bad, "not a warpsim memo file");
	write_bytes(bad, "", 0);
	check_refused(bad, "not a warpsim memo file");
	memcpy(dam, buf, len);
	put_u32(dam + 13, 3);
	write_resummed(bad, dam, len);
	check_refused(bad, "format version 3, expected 2");
	/* absurd counts and sizes, with a checksum that matches */
	memcpy(dam, buf, len);
	put_u64(dam + 17, 1ull << 60);
	write_resummed(bad, dam, len);
	check_refused(bad, "entries announced");
	memcpy(dam, buf, len);
	put_u64(dam + 17, entries + 1);
	write_resummed(bad, dam, len);
	check_refused(bad, "truncated after 40 of 41 entries");
	memcpy(dam, buf, len);
	put_u32(dam + 25, 2000000); /* first entry: n */
	write_resummed(bad, dam, len);
	check_refused(bad, "vertices");
	memcpy(dam, buf, len);
	put_u32(dam + 25, 0xffffffffu);
	write_resummed(bad, dam, len);
	check_refused(bad, "vertices");
	memcpy(dam, buf, len);
	put_u32(dam + 29, 0xfffffff0u); /* first entry: edges */
	write_resummed(bad, dam, len);
	check_refused(bad, "edges");
	memcpy(dam, buf, len);
	put_u64(dam + 17, entries - 1); /* one entry too few: data left over */
	write_resummed(bad, dam, len);
	check_refused(bad, "unexpected bytes");
	memcpy(dam, buf, len);
	memset(dam + len, 0, 8);
	write_resummed(bad, dam, len + 8); /* appended bytes, summed */
	check_refused(bad, "unexpected bytes");
	/* a bad edge in the first entry: a vertex joined to itself */
	uint32_t n0 = dam[25] | dam[26] << 8 | dam[27] << 16 | (uint32_t)dam[28] << 24;
	uint32_t m0 = dam[29] | dam[30] << 8 | dam[31] << 16 | (uint32_t)dam[32] << 24;
	if (m0) {
		memcpy(dam, buf, len);
		size_t e0 = 25 + 24 + 8 * (size_t)n0;
		put_u32(dam + e0 + 4, dam[e0] | dam[e0 + 1] << 8 | dam[e0 + 2] << 16 |
				      (uint32_t)dam[e0 + 3] << 24);
		write_resummed(bad, dam, len);
		check_refused(bad, "edge 0");
	}
	/* a checksum that does not match */
	memcpy(dam, buf, len);
	dam[len - 3] ^= 1;
	write_bytes(bad, dam, len);
	check_refused(bad, "checksum mismatch");
	/* not a file */
	check_refused(th_tmpdir(), "not a regular file");
	/* outcomes no network could produce, checksummed right: the first
	 * entry's duration, then its first flow's bytes, rate and line rate */
	size_t v0 = 25 + 24 + 8 * (size_t)n0 + 12 * (size_t)m0;
	static const struct {
		size_t at;
		uint64_t value;
		const char *why;
	} impossible[] = {
		{ 16, 0, "duration 0 ps is impossible" },
		{ 16, (uint64_t)-5000, "is impossible" }, /* a negative duration */
		{ 16, 3600000000000001ull, "is impossible" },
		{ 0, 1ull << 40, "more than its line rate" }, /* bytes of flow 0 */
		{ 1, 200000000000ull, "above its line rate" }, /* its rate */
		{ 3, 0, "line rate 0 b/s is impossible" },
		{ 3, 1ull << 62, "is impossible" },
	};
	for (size_t i = 0; i < sizeof impossible / sizeof *impossible; i++) {
		memcpy(dam, buf, len);
		size_t at = impossible[i].at == 16 ? 25 + 16 : v0 + 8 * impossible[i].at * n0;
		put_u64(dam + at, impossible[i].value);
		write_resummed(bad, dam, len);
		check_refused(bad, impossible[i].why);
	}
	/* an entry in which no flow moved a byte (issue 28: a crafted file
	 * claiming 0 bytes in 20 us shifted slowdowns by 11 %): an episode is
	 * recorded only when one did */
	memcpy(dam, buf, len);
	memset(dam + v0, 0, 8 * (size_t)n0);
	write_resummed(bad, dam, len);
	check_refused(bad, "no flow moved a byte");
	/* the bytes a line rate carries in the duration (and a window in
	 * flight) are possible */
	memcpy(dam, buf, len);
	uint64_t d0 = dam[41] | (uint64_t)dam[42] << 8 | (uint64_t)dam[43] << 16 |
		      (uint64_t)dam[44] << 24; /* the first entry's duration, ps (small) */
	put_u64(dam + v0, (uint64_t)(100e9 / 8 * ((double)d0 / 1e12)) + 1000);
	write_resummed(bad, dam, len);
	struct wh_memo *ok = wh_memo_new();
	assert_int_equal(wh_memo_load(ok, bad, why, sizeof why), 0);
	wh_memo_free(ok);
	free(dam);
	free(buf);
}

/* A memo_db path that holds something else is never overwritten. */
static void test_memo_never_overwrites(void **state)
{
	(void)state;
	struct tg t = { 0 };
	char why[256];
	ring(&t, 6);
	struct wh_memo *m = wh_memo_new();
	insert(m, &t, 5000);
	const char *trace = tmp_path("rates.csv");
	static const char text[] = "time_ns,flow_id,rate_bps\n0,1,100000000000\n";
	write_bytes(trace, text, sizeof text - 1);
	assert_int_equal(wh_memo_save(m, trace, why, sizeof why), -1);
	assert_non_null(strstr(why, "not overwritten"));
	size_t len;
	char *back = th_read(trace, &len);
	assert_int_equal(len, sizeof text - 1);
	assert_memory_equal(back, text, len);
	free(back);
	/* a directory neither */
	assert_int_equal(wh_memo_save(m, th_tmpdir(), why, sizeof why), -1);
	assert_non_null(strstr(why, "not a regular file"));
	/* an empty file, or an older table, is replaced */
	const char *empty = tmp_path("empty.db");
	write_bytes(empty, "", 0);
	assert_int_equal(wh_memo_save(m, empty, why, sizeof why), 0);
	struct wh_memo *l = wh_memo_new();
	assert_int_equal(wh_memo_load(l, empty, why, sizeof why), 0);
	assert_int_equal(wh_memo_entries(l), 1);
	wh_memo_free(l);
	wh_memo_free(m);
	tg_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_share),
		cmocka_unit_test(test_parts_big_sorted),
		cmocka_unit_test(test_parts_chain),
		cmocka_unit_test(test_parts_id_reuse),
		cmocka_unit_test(test_parts_random),
		cmocka_unit_test(test_parts_large),
		cmocka_unit_test(test_memo_same_and_relabelled),
		cmocka_unit_test(test_memo_symmetric),
		cmocka_unit_test(test_memo_misses),
		cmocka_unit_test(test_memo_verify),
		cmocka_unit_test(test_memo_random),
		cmocka_unit_test(test_memo_families),
		cmocka_unit_test(test_memo_file),
		cmocka_unit_test(test_memo_never_overwrites),
	};
	return cmocka_run_group_tests_name("wormhole_parts", tests, NULL, NULL);
}
