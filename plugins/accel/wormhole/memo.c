/* SPDX-License-Identifier: MIT */
/*
 * The memo table of transients: see memo.h for the contract.
 *
 * Canonical form.  The conflict graphs of a fabric are very often
 * symmetric (a ring all-reduce is a cycle of equal flows, an incast a
 * clique), so the key is not a hash of the colour classes alone (a ring
 * and two triangles would collide) but of a canonical labelling found the
 * way nauty, bliss and Traces do (McKay and Piperno, "Practical graph
 * isomorphism, II", J. Symbolic Computation 2014):
 *
 *  - colour refinement (1-WL): vertices start coloured by their label;
 *    a cell is split by the sum, over each vertex's edges into a splitter
 *    cell, of a fixed mix of the edge weight, until the ordered partition
 *    is equitable.  Cells keep their place and split in place, fragments in
 *    ascending order of that sum, splitters taken first in, first out, so
 *    the ordered partition is a function of the graph alone, whatever the
 *    vertex numbering (a sum that collides only makes it coarser);
 *  - individualization-refinement: while a cell holds several vertices,
 *    each vertex of the first such cell is made a cell of its own in turn,
 *    refined, and so on down to discrete partitions (leaves); the leaf whose
 *    relabelled graph (labels, then edges (a, b, weight) ascending) is
 *    lexicographically smallest is the canonical form;
 *  - pruning, none of which changes that minimum: two leaves with the same
 *    graph give an automorphism, which abandons the subtree it maps onto an
 *    explored one and merges the orbits of the nodes it fixes (only one
 *    child per orbit is tried); twins (same label, same weighted edges to
 *    every other vertex) are interchangeable, so a cell made of one twin
 *    class is split into singletons at once (cliques and stars cost one
 *    path) and only one twin per class is tried as a child;
 *  - a budget (10^4 search nodes, 4 x 10^7 elementary steps): past it the
 *    key falls back to the colour classes (labels, cell sizes and the
 *    weighted edges between cells): still the same for isomorphic graphs
 *    that both run out, but a graph that does and an isomorphic one that
 *    does not then miss each other.
 *
 * Hits are verified.  An entry stores its graph relabelled (canonical
 * order, or the colour-class order of a fallback).  A query whose relabelled
 * graph is identical hits at once, the mapping being the two labellings;
 * two canonical forms that differ are different graphs; otherwise the
 * stored graph is searched for an isomorphism (the same refinement on both
 * graphs, the stored one following one path, the query trying each vertex
 * of the matching cell, budgeted; running out is a miss).  The outcome is
 * stored in the entry's vertex order and returned through the mapping, so
 * it comes back in the query's order.
 *
 * The file (`memo_db`): "WARPSIM-MEMO\0", u32 version 2, u64 entry count,
 * then per entry u32 n, u32 edges, u64 context, u64 duration, n u64 labels,
 * edges x (u32 a, u32 b, u32 weight) with a < b ascending, n u64 bytes,
 * n u64 end rates, n u64 end goodputs, n u64 line rates; then the XXH3-64
 * (seed 0) of everything before it; all little-endian.  Keys are not
 * stored: loading recomputes them, so a file stays valid if the canonical
 * search changes.  What a run shares with others (wh_memo_export, the
 * accelerator's share ops) is the same image of the entries it learned,
 * written and read by the same code.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "memo.h"

#define MEMO_MAGIC "WARPSIM-MEMO"      /* and its NUL: 13 bytes */
#define MEMO_MAGIC_LEN 13
#define MEMO_VERSION 2u
#define MEMO_HEADER (MEMO_MAGIC_LEN + 4 + 8)
#define MEMO_ENTRY_MIN (4 + 4 + 8 + 8 + 4 * 8) /* an entry of one vertex */
#define MEMO_MAX_DURATION 3600000000000000ull /* an hour of simulated time, in ps */
#define MEMO_MAX_RATE 100000000000000ull      /* 100 Tb/s: above any link */
#define MEMO_SLACK_BYTES 65536u               /* in flight beyond rate x duration */
#define MEMO_MAX_N 1000000u
#define MEMO_SEED 0x776f726d686f6c65ull /* "wormhole" */
#define CANON_NODES 10000u              /* search nodes (individualize + refine) */
#define CANON_WORK 40000000ull          /* edges scanned and vertices moved */
#define CANON_GENS 64u                  /* automorphisms kept for pruning */
#define NIL UINT32_MAX

/* A graph ready for refinement. */
struct cgraph {
	uint32_t n, m;         /* vertices, edges */
	uint64_t context;
	uint64_t *label;       /* n */
	uint32_t *off;         /* n + 1: row starts in adj */
	uint64_t *adj;         /* 2m: neighbour << 32 | weight, rows ascending */
	uint32_t *twin;        /* n: the representative of the vertex's twin class */
	uint32_t cap_n, cap_adj;
};

/* An ordered partition: cells are runs of positions, a cell's colour is
 * its first position. */
struct ptn {
	uint32_t *lab;   /* position -> vertex */
	uint32_t *pos;   /* vertex -> position */
	uint32_t *cell;  /* vertex -> first position of its cell */
	uint32_t *clen;  /* first position of a cell -> its length */
	uint32_t ncells;
	uint64_t trace;  /* hash of how it was refined: equal for isomorphic inputs */
};

struct kv {
	uint64_t k;
	uint32_t v;
};

struct pair {
	uint64_t ab, w;
};

/* A node of a search on the current path. */
struct level {
	struct ptn p;
	uint32_t target;  /* first position of the cell branched on */
	uint32_t next;    /* next position of that cell to try */
	uint32_t *orb;    /* union-find: orbits of the automorphisms fixing the path */
	uint8_t *done;    /* at an orbit's root: a child in it was tried */
};

struct canon {
	struct cgraph g;        /* the query */
	struct cgraph h;        /* a stored graph being verified */
	uint32_t cap;           /* vertices the per-vertex arrays below hold */
	uint64_t cap_enc;       /* u64s each encoding holds */
	/* refinement scratch */
	uint64_t *cnt;
	uint32_t *seen, *cseen, stamp;
	uint32_t *touched, *cells, *cstart, *ccount, *frag;
	struct kv *grp;
	uint32_t *queue, qhead, qlen;
	uint8_t *inq;
	/* search */
	struct level *lv;
	uint32_t n_lv, cap_lv;
	struct ptn *bl;         /* verification: the stored graph's path */
	uint32_t n_bl, cap_bl;
	struct ptn w;
	uint32_t *path, *first_path, *best_path, first_len, best_len;
	uint32_t *first_lab, *best_lab;
	uint32_t *gens, n_gens; /* n_gens x cap: vertex -> image */
	uint32_t cap_gens;      /* automorphisms gens holds */
	uint64_t *cur, *first, *best, *henc;
	uint64_t work, work_max;
	uint32_t nodes, nodes_max;
	/* result of canon_run on g */
	bool complete;          /* the search finished: order is canonical */
	uint64_t key;
	uint32_t *order;        /* position -> vertex */
	uint32_t *rank;         /* vertex -> position */
	uint64_t *enc;          /* g relabelled by order */
	uint64_t enc_len;
};

struct entry {
	uint64_t key, context, duration;
	uint32_t n, m;
	bool canon;        /* stored in canonical order */
	uint8_t origin;    /* ORIGIN_*: where the entry came from */
	uint32_t next;     /* next entry of its bucket */
	uint64_t *enc;     /* n labels, m (a << 32 | b, weight) pairs, then n bytes,
			    * n end rates, n end goodputs and n line rates: one block */
};

/* Where an entry came from: learned by this table's run (exported), read
 * from a memo_db file, or imported from other runs. */
enum { ORIGIN_LEARNED, ORIGIN_LOADED, ORIGIN_IMPORTED };

/* How an entry is put in the table: a run's own record replaces an
 * isomorphic entry (and makes it learned); a file's entry too; an
 * imported one is dropped when an isomorphic entry is there (first wins). */
enum put_mode { PUT_LEARN, PUT_LOAD, PUT_IMPORT };

struct wh_memo {
	struct entry *e;
	uint32_t n, cap;
	uint32_t *bucket;  /* key -> first entry, NIL: none */
	uint32_t nb;       /* buckets, a power of two */
	uint32_t *map;     /* query vertex -> entry vertex of the last find */
	uint32_t cap_map;
	struct canon cz;
	struct wh_memo_stats st;
};

/* ---- small helpers -------------------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static uint64_t tr_add(uint64_t t, uint64_t x)
{
	return mix64(t + 0x9e3779b97f4a7c15ull + x);
}

/* What an edge of weight w adds to a vertex's count towards a splitter:
 * a fixed non-linear mix, so different multisets of weights rarely sum alike. */
static uint64_t wmix(uint32_t w)
{
	return mix64((uint64_t)w * 0x2545f4914f6cdd1dull + 0x632be59bd9b4e019ull);
}

/* A (neighbour, weight) entry in a vertex's neighbourhood hash. */
static uint64_t nmix(uint64_t adj)
{
	return mix64(adj * 0x9e3779b97f4a7c15ull + 0x1d8e4e27c47d124full);
}

static int grow(void **p, uint64_t *cap, uint64_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	uint64_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	if (c > SIZE_MAX / elem)
		return -1;
	void *q = realloc(*p, (size_t)c * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static int grow32(void **p, uint32_t *cap, uint64_t need, size_t elem)
{
	uint64_t c = *cap;
	if (need > UINT32_MAX)
		return -1;
	if (grow(p, &c, need, elem))
		return -1;
	*cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_kv(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return (x->v > y->v) - (x->v < y->v);
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->ab != y->ab)
		return x->ab < y->ab ? -1 : 1;
	return (x->w > y->w) - (x->w < y->w);
}

/* Short runs are the rule (rows of sparse graphs, small cells): insertion
 * sort for them, qsort beyond. */
static void sort_u64(uint64_t *a, uint32_t n)
{
	if (n > 16) {
		qsort(a, n, sizeof *a, cmp_u64);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		uint64_t x = a[i];
		uint32_t j = i;
		for (; j > 0 && a[j - 1] > x; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static void sort_kv(struct kv *a, uint32_t n)
{
	if (n > 16) {
		qsort(a, n, sizeof *a, cmp_kv);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		struct kv x = a[i];
		uint32_t j = i;
		for (; j > 0 && cmp_kv(&a[j - 1], &x) > 0; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static void sort_u32(uint32_t *a, uint32_t n)
{
	if (n > 16) {
		qsort(a, n, sizeof *a, cmp_u32);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = a[i], j = i;
		for (; j > 0 && a[j - 1] > x; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static int enc_cmp(const uint64_t *a, const uint64_t *b, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static int say(char *why, size_t size, const char *fmt, ...)
{
	if (why && size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, size, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void *re(void *p, size_t n, size_t elem, bool *fail)
{
	void *q = realloc(p, n * elem);
	if (!q)
		*fail = true;
	return q ? q : p;
}

/* ---- graphs --------------------------------------------------------------------- */

static void cg_free(struct cgraph *g)
{
	free(g->label);
	free(g->off);
	free(g->adj);
	free(g->twin);
	memset(g, 0, sizeof *g);
}

/* Edge i, from wh_edge or from encoded pairs; false if its weight does
 * not fit 32 bits. */
static bool edge_at(const struct wh_edge *edges, const uint64_t *pairs, uint32_t i,
		    uint32_t *a, uint32_t *b, uint32_t *w)
{
	if (edges) {
		*a = edges[i].a;
		*b = edges[i].b;
		*w = edges[i].weight;
		return true;
	}
	*a = (uint32_t)(pairs[2 * i] >> 32);
	*b = (uint32_t)pairs[2 * i];
	*w = (uint32_t)pairs[2 * i + 1];
	return pairs[2 * i + 1] <= UINT32_MAX;
}

/*
 * A graph from labels and edges, given either as wh_edge or as encoded
 * pairs.  Fails (-1) on an invalid graph (no vertex, too many, an edge
 * out of range, a loop, weight 0, a pair twice) or out of memory.
 */
static int cg_build(struct cgraph *g, uint32_t n, const uint64_t *label, uint32_t ne,
		    const struct wh_edge *edges, const uint64_t *pairs, uint64_t context)
{
	if (n == 0 || n > MEMO_MAX_N || (ne && !edges && !pairs) || !label)
		return -1;
	if (n > g->cap_n) {
		bool fail = false;
		g->label = re(g->label, n, sizeof *g->label, &fail);
		g->off = re(g->off, (size_t)n + 1, sizeof *g->off, &fail);
		g->twin = re(g->twin, n, sizeof *g->twin, &fail);
		if (fail)
			return -1;
		g->cap_n = n;
	}
	if (grow32((void **)&g->adj, &g->cap_adj, 2 * (uint64_t)ne, sizeof *g->adj))
		return -1;
	memcpy(g->label, label, (size_t)n * sizeof *label);
	memset(g->off, 0, ((size_t)n + 1) * sizeof *g->off);
	for (uint32_t i = 0; i < ne; i++) {
		uint32_t a, b, w;
		if (!edge_at(edges, pairs, i, &a, &b, &w))
			return -1;
		if (a >= n || b >= n || a == b || w == 0)
			return -1;
		g->off[a + 1]++;
		g->off[b + 1]++;
	}
	for (uint32_t v = 0; v < n; v++) {
		g->off[v + 1] += g->off[v];
		g->twin[v] = g->off[v]; /* fill cursor */
	}
	for (uint32_t i = 0; i < ne; i++) {
		uint32_t a, b, w;
		edge_at(edges, pairs, i, &a, &b, &w);
		g->adj[g->twin[a]++] = (uint64_t)b << 32 | w;
		g->adj[g->twin[b]++] = (uint64_t)a << 32 | w;
	}
	for (uint32_t v = 0; v < n; v++) {
		uint32_t d = g->off[v + 1] - g->off[v];
		uint64_t *row = g->adj + g->off[v];
		sort_u64(row, d);
		for (uint32_t k = 1; k < d; k++)
			if (row[k] >> 32 == row[k - 1] >> 32)
				return -1;
	}
	g->n = n;
	g->m = ne;
	g->context = context;
	return 0;
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

static void uf_union(uint32_t *parent, uint32_t a, uint32_t b)
{
	a = uf_find(parent, a);
	b = uf_find(parent, b);
	if (a != b)
		parent[a > b ? a : b] = a < b ? a : b;
}

static uint32_t deg(const struct cgraph *g, uint32_t v)
{
	return g->off[v + 1] - g->off[v];
}

/* Rows of u and v equal once the entries naming each other are left out. */
static bool rows_equal_except(const struct cgraph *g, uint32_t u, uint32_t v)
{
	const uint64_t *a = g->adj + g->off[u], *ae = g->adj + g->off[u + 1];
	const uint64_t *b = g->adj + g->off[v], *be = g->adj + g->off[v + 1];
	for (;;) {
		while (a < ae && *a >> 32 == v)
			a++;
		while (b < be && *b >> 32 == u)
			b++;
		if (a == ae || b == be)
			return a == ae && b == be;
		if (*a++ != *b++)
			return false;
	}
}

/*
 * Twin classes: u and v are twins when they have the same label and the
 * same weighted edge to every other vertex; swapping them is then an
 * automorphism that moves nothing else.  Candidates come from a hash of
 * the neighbourhood (non-adjacent twins: equal hashes; adjacent ones:
 * equal once each adds itself), every merge is checked exactly.  `h` is
 * scratch of n entries, `srt` of n.
 */
static void cg_twins(struct cgraph *g, uint64_t *h, struct kv *srt)
{
	const uint32_t n = g->n;
	for (uint32_t v = 0; v < n; v++) {
		uint64_t s = 0;
		for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++)
			s += nmix(g->adj[e]);
		h[v] = s;
		g->twin[v] = v;
	}
	/* not adjacent: equal rows */
	for (uint32_t v = 0; v < n; v++)
		srt[v] = (struct kv){ .k = mix64(g->label[v] ^ mix64(h[v] + deg(g, v))), .v = v };
	qsort(srt, n, sizeof *srt, cmp_kv);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		while (j < n && srt[j].k == srt[i].k)
			j++;
		for (uint32_t a = i + 1; a < j; a++) {
			uint32_t u = srt[a].v;
			for (uint32_t b = i; b < a; b++) {
				uint32_t r = srt[b].v;
				if (uf_find(g->twin, r) != r || g->label[r] != g->label[u] ||
				    deg(g, r) != deg(g, u))
					continue;
				if (!memcmp(g->adj + g->off[r], g->adj + g->off[u],
					    (size_t)deg(g, u) * sizeof *g->adj)) {
					uf_union(g->twin, r, u);
					break;
				}
			}
		}
		i = j;
	}
	/* adjacent: equal rows once each names itself instead of the other */
	for (uint32_t u = 0; u < n; u++) {
		for (uint32_t e = g->off[u]; e < g->off[u + 1]; e++) {
			uint32_t v = (uint32_t)(g->adj[e] >> 32), w = (uint32_t)g->adj[e];
			if (v < u || g->label[u] != g->label[v] || deg(g, u) != deg(g, v))
				continue;
			if (h[u] + nmix((uint64_t)u << 32 | w) != h[v] + nmix((uint64_t)v << 32 | w))
				continue;
			if (uf_find(g->twin, u) == uf_find(g->twin, v) || !rows_equal_except(g, u, v))
				continue;
			uf_union(g->twin, u, v);
		}
	}
	for (uint32_t v = 0; v < n; v++)
		g->twin[v] = uf_find(g->twin, v);
}

/* ---- workspace ------------------------------------------------------------------- */

static void ptn_free(struct ptn *p)
{
	free(p->lab);
	memset(p, 0, sizeof *p);
}

static int ptn_alloc(struct ptn *p, uint32_t cap)
{
	uint32_t *blk = malloc(4 * (size_t)cap * sizeof *blk);
	if (!blk)
		return -1;
	*p = (struct ptn){ .lab = blk, .pos = blk + cap, .cell = blk + 2 * (size_t)cap,
			   .clen = blk + 3 * (size_t)cap };
	return 0;
}

static void ptn_copy(struct ptn *d, const struct ptn *s, uint32_t n)
{
	memcpy(d->lab, s->lab, (size_t)n * sizeof *d->lab);
	memcpy(d->pos, s->pos, (size_t)n * sizeof *d->pos);
	memcpy(d->cell, s->cell, (size_t)n * sizeof *d->cell);
	memcpy(d->clen, s->clen, (size_t)n * sizeof *d->clen);
	d->ncells = s->ncells;
	d->trace = s->trace;
}

static void cz_free_levels(struct canon *cz)
{
	for (uint32_t i = 0; i < cz->n_lv; i++) {
		ptn_free(&cz->lv[i].p);
		free(cz->lv[i].orb);
		free(cz->lv[i].done);
	}
	cz->n_lv = 0;
	for (uint32_t i = 0; i < cz->n_bl; i++)
		ptn_free(&cz->bl[i]);
	cz->n_bl = 0;
}

static void cz_free(struct canon *cz)
{
	cz_free_levels(cz);
	free(cz->lv);
	free(cz->bl);
	cg_free(&cz->g);
	cg_free(&cz->h);
	free(cz->cnt);
	free(cz->seen);
	free(cz->cseen);
	free(cz->touched);
	free(cz->cells);
	free(cz->cstart);
	free(cz->ccount);
	free(cz->frag);
	free(cz->grp);
	free(cz->queue);
	free(cz->inq);
	ptn_free(&cz->w);
	free(cz->path);
	free(cz->first_path);
	free(cz->best_path);
	free(cz->first_lab);
	free(cz->best_lab);
	free(cz->gens);
	free(cz->order);
	free(cz->rank);
	free(cz->cur);
	free(cz->first);
	free(cz->best);
	free(cz->henc);
	free(cz->enc);
	memset(cz, 0, sizeof *cz);
}

/* Room for graphs of n vertices and m edges. */
static int cz_reserve(struct canon *cz, uint32_t n, uint32_t m)
{
	bool fail = false;
	if (n > cz->cap) {
		uint32_t c = cz->cap ? cz->cap : 16;
		while (c < n)
			c = c > UINT32_MAX / 2 ? n : 2 * c;
		/* levels hold partitions of the old size */
		cz_free_levels(cz);
		ptn_free(&cz->w);
		cz->cnt = re(cz->cnt, c, sizeof *cz->cnt, &fail);
		cz->seen = re(cz->seen, c, sizeof *cz->seen, &fail);
		cz->cseen = re(cz->cseen, c, sizeof *cz->cseen, &fail);
		cz->touched = re(cz->touched, c, sizeof *cz->touched, &fail);
		cz->cells = re(cz->cells, c, sizeof *cz->cells, &fail);
		cz->cstart = re(cz->cstart, c, sizeof *cz->cstart, &fail);
		cz->ccount = re(cz->ccount, c, sizeof *cz->ccount, &fail);
		cz->frag = re(cz->frag, c, sizeof *cz->frag, &fail);
		cz->grp = re(cz->grp, c, sizeof *cz->grp, &fail);
		cz->queue = re(cz->queue, c, sizeof *cz->queue, &fail);
		cz->inq = re(cz->inq, c, sizeof *cz->inq, &fail);
		cz->path = re(cz->path, c, sizeof *cz->path, &fail);
		cz->first_path = re(cz->first_path, c, sizeof *cz->first_path, &fail);
		cz->best_path = re(cz->best_path, c, sizeof *cz->best_path, &fail);
		cz->first_lab = re(cz->first_lab, c, sizeof *cz->first_lab, &fail);
		cz->best_lab = re(cz->best_lab, c, sizeof *cz->best_lab, &fail);
		cz->order = re(cz->order, c, sizeof *cz->order, &fail);
		cz->rank = re(cz->rank, c, sizeof *cz->rank, &fail);
		/* automorphisms are stored as found (most graphs have none) */
		free(cz->gens);
		cz->gens = NULL;
		cz->cap_gens = 0;
		if (fail || ptn_alloc(&cz->w, c))
			return -1;
		/* the stamps start again from clean arrays */
		memset(cz->seen, 0, (size_t)c * sizeof *cz->seen);
		memset(cz->cseen, 0, (size_t)c * sizeof *cz->cseen);
		memset(cz->inq, 0, c);
		cz->stamp = 0;
		cz->cap = c;
	}
	uint64_t len = (uint64_t)n + 2 * (uint64_t)m;
	if (len > cz->cap_enc) {
		uint64_t c = cz->cap_enc ? cz->cap_enc : 64;
		while (c < len)
			c *= 2;
		if (c > SIZE_MAX / sizeof(uint64_t))
			return -1;
		cz->cur = re(cz->cur, c, sizeof *cz->cur, &fail);
		cz->first = re(cz->first, c, sizeof *cz->first, &fail);
		cz->best = re(cz->best, c, sizeof *cz->best, &fail);
		cz->henc = re(cz->henc, c, sizeof *cz->henc, &fail);
		cz->enc = re(cz->enc, c, sizeof *cz->enc, &fail);
		if (fail)
			return -1;
		cz->cap_enc = c;
	}
	return 0;
}

static int cz_level(struct canon *cz, uint32_t d)
{
	if (d < cz->n_lv)
		return 0;
	if (grow32((void **)&cz->lv, &cz->cap_lv, (uint64_t)d + 1, sizeof *cz->lv))
		return -1;
	struct level *l = &cz->lv[d];
	memset(l, 0, sizeof *l);
	if (ptn_alloc(&l->p, cz->cap))
		return -1;
	l->orb = malloc((size_t)cz->cap * sizeof *l->orb);
	l->done = malloc(cz->cap);
	if (!l->orb || !l->done) {
		ptn_free(&l->p);
		free(l->orb);
		free(l->done);
		return -1;
	}
	cz->n_lv = d + 1;
	/* levels are kept for the next search: their memory is charged to
	 * the budget, which bounds it (about 21 bytes x n per level) */
	cz->work += 6 * (uint64_t)cz->cap;
	return 0;
}

static int cz_blevel(struct canon *cz, uint32_t d)
{
	if (d < cz->n_bl)
		return 0;
	if (grow32((void **)&cz->bl, &cz->cap_bl, (uint64_t)d + 1, sizeof *cz->bl))
		return -1;
	if (ptn_alloc(&cz->bl[d], cz->cap))
		return -1;
	cz->n_bl = d + 1;
	cz->work += 4 * (uint64_t)cz->cap;
	return 0;
}

/* ---- refinement ---------------------------------------------------------------- */

static void q_push(struct canon *cz, uint32_t n, uint32_t c)
{
	if (cz->inq[c])
		return;
	cz->inq[c] = 1;
	cz->queue[(cz->qhead + cz->qlen) % n] = c;
	cz->qlen++;
}

static uint32_t q_pop(struct canon *cz, uint32_t n)
{
	uint32_t c = cz->queue[cz->qhead];
	cz->qhead = (cz->qhead + 1) % n;
	cz->qlen--;
	cz->inq[c] = 0;
	return c;
}

static uint32_t next_stamp(struct canon *cz)
{
	if (++cz->stamp == 0) {
		memset(cz->seen, 0, (size_t)cz->cap * sizeof *cz->seen);
		memset(cz->cseen, 0, (size_t)cz->cap * sizeof *cz->cseen);
		cz->stamp = 1;
	}
	return cz->stamp;
}

/* The partition by label, every cell a splitter. */
static void ptn_root(struct canon *cz, const struct cgraph *g, struct ptn *p)
{
	const uint32_t n = g->n;
	for (uint32_t v = 0; v < n; v++)
		cz->grp[v] = (struct kv){ .k = g->label[v], .v = v };
	qsort(cz->grp, n, sizeof *cz->grp, cmp_kv);
	p->ncells = 0;
	p->trace = tr_add(0, n);
	cz->qhead = cz->qlen = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		while (j < n && cz->grp[j].k == cz->grp[i].k)
			j++;
		for (uint32_t k = i; k < j; k++) {
			uint32_t v = cz->grp[k].v;
			p->lab[k] = v;
			p->pos[v] = k;
			p->cell[v] = i;
		}
		p->clen[i] = j - i;
		p->ncells++;
		p->trace = tr_add(tr_add(p->trace, cz->grp[i].k), j - i);
		q_push(cz, n, i);
		i = j;
	}
	cz->work += n;
}

/* Splits cell c by the counts of its k touched vertices `it` (the others
 * count 0): untouched first, then by ascending count. */
static void split(struct canon *cz, struct ptn *p, uint32_t c, struct kv *it, uint32_t k,
		  uint32_t n)
{
	const uint32_t len = p->clen[c], end = c + len, tail = end - k;
	sort_kv(it, k);
	if (k == len && it[0].k == it[k - 1].k)
		return;
	for (uint32_t j = 0; j < k; j++) {
		uint32_t v = it[j].v, t = tail + j, w = p->lab[t], pv = p->pos[v];
		p->lab[pv] = w;
		p->pos[w] = pv;
		p->lab[t] = v;
		p->pos[v] = t;
	}
	uint32_t nf = 0, big = 0;
	for (uint32_t fs = c, fe; fs < end; fs = fe) {
		uint64_t key = 0;
		if (fs < tail) {
			fe = tail;
		} else {
			key = it[fs - tail].k;
			for (fe = fs + 1; fe < end && it[fe - tail].k == key; fe++)
				;
		}
		p->clen[fs] = fe - fs;
		if (fs != c)
			for (uint32_t i = fs; i < fe; i++)
				p->cell[p->lab[i]] = fs;
		p->trace = tr_add(tr_add(tr_add(p->trace, fs), fe - fs), key);
		if (!nf || fe - fs > p->clen[cz->frag[big]])
			big = nf;
		cz->frag[nf++] = fs;
	}
	p->ncells += nf - 1;
	cz->work += k;
	/* Hopcroft: a cell already queued stands for all its fragments; else
	 * all but the largest suffice (counts to it follow from the others) */
	bool queued = cz->inq[c];
	for (uint32_t i = 0; i < nf; i++)
		if (queued ? cz->frag[i] != c : i != big)
			q_push(cz, n, cz->frag[i]);
}

/* Refines p until equitable (or discrete) from the queued splitters. */
static void refine(struct canon *cz, const struct cgraph *g, struct ptn *p)
{
	const uint32_t n = g->n;
	while (cz->qlen) {
		uint32_t s = q_pop(cz, n);
		if (p->ncells == n)
			continue;
		uint32_t stamp = next_stamp(cz), nt = 0, nc = 0, end = s + p->clen[s];
		for (uint32_t i = s; i < end; i++) {
			uint32_t v = p->lab[i];
			for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++) {
				uint32_t u = (uint32_t)(g->adj[e] >> 32);
				if (cz->seen[u] != stamp) {
					cz->seen[u] = stamp;
					cz->cnt[u] = 0;
					cz->touched[nt++] = u;
				}
				cz->cnt[u] += wmix((uint32_t)g->adj[e]);
			}
			cz->work += g->off[v + 1] - g->off[v] + 1;
		}
		for (uint32_t i = 0; i < nt; i++) {
			uint32_t c = p->cell[cz->touched[i]];
			if (p->clen[c] == 1)
				continue;
			if (cz->cseen[c] != stamp) {
				cz->cseen[c] = stamp;
				cz->ccount[c] = 0;
				cz->cells[nc++] = c;
			}
			cz->ccount[c]++;
		}
		if (!nc)
			continue;
		/* cells in the order of the partition, so the queue order is too */
		sort_u32(cz->cells, nc);
		for (uint32_t i = 0, at = 0; i < nc; i++) {
			uint32_t c = cz->cells[i];
			cz->cstart[c] = at;
			at += cz->ccount[c];
			cz->ccount[c] = 0;
		}
		for (uint32_t i = 0; i < nt; i++) {
			uint32_t u = cz->touched[i], c = p->cell[u];
			if (p->clen[c] == 1)
				continue;
			cz->grp[cz->cstart[c] + cz->ccount[c]++] = (struct kv){ .k = cz->cnt[u], .v = u };
		}
		for (uint32_t i = 0; i < nc; i++) {
			uint32_t c = cz->cells[i];
			split(cz, p, c, cz->grp + cz->cstart[c], cz->ccount[c], n);
		}
		cz->work += nt;
	}
}

/* Splits every cell made of one twin class into singletons (any order
 * gives the same leaves up to automorphism); true if one was. */
static bool twin_cells(struct canon *cz, const struct cgraph *g, struct ptn *p)
{
	const uint32_t n = g->n;
	bool any = false;
	for (uint32_t s = 0, len; s < n; s += len) {
		len = p->clen[s];
		if (len == 1)
			continue;
		uint32_t t = g->twin[p->lab[s]], i = s + 1;
		while (i < s + len && g->twin[p->lab[i]] == t)
			i++;
		if (i < s + len)
			continue;
		for (i = s; i < s + len; i++) {
			p->cell[p->lab[i]] = i;
			p->clen[i] = 1;
			if (i + 1 < s + len)
				q_push(cz, n, i);
		}
		p->ncells += len - 1;
		p->trace = tr_add(p->trace, s | 1ull << 62);
		cz->work += len;
		any = true;
	}
	return any;
}

static void settle(struct canon *cz, const struct cgraph *g, struct ptn *p)
{
	do
		refine(cz, g, p);
	while (p->ncells < g->n && twin_cells(cz, g, p));
}

static void individualize(struct canon *cz, const struct cgraph *g, struct ptn *p, uint32_t v)
{
	const uint32_t c = p->cell[v], len = p->clen[c], w = p->lab[c], pv = p->pos[v];
	p->lab[pv] = w;
	p->pos[w] = pv;
	p->lab[c] = v;
	p->pos[v] = c;
	p->clen[c] = 1;
	p->clen[c + 1] = len - 1;
	for (uint32_t i = c + 1; i < c + len; i++)
		p->cell[p->lab[i]] = c + 1;
	p->ncells++;
	p->trace = tr_add(p->trace, c | 1ull << 63);
	q_push(cz, g->n, c);
	cz->work += len;
}

static uint32_t first_cell(const struct ptn *p, uint32_t n)
{
	for (uint32_t s = 0; s < n; s += p->clen[s])
		if (p->clen[s] > 1)
			return s;
	return NIL;
}

/* g relabelled by lab/pos: labels by position, then the edges (a < b) as
 * (a << 32 | b, weight) ascending (the refinement counts are its
 * scratch for sorting a row). */
static void relabel(struct canon *cz, const struct cgraph *g, const uint32_t *lab,
		    const uint32_t *pos, uint64_t *enc)
{
	const uint32_t n = g->n;
	uint64_t k = n, *tmp = cz->cnt;
	for (uint32_t i = 0; i < n; i++)
		enc[i] = g->label[lab[i]];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = lab[i], t = 0;
		for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++) {
			uint32_t j = pos[g->adj[e] >> 32];
			if (j > i)
				tmp[t++] = (uint64_t)j << 32 | (uint32_t)g->adj[e];
		}
		sort_u64(tmp, t);
		for (uint32_t x = 0; x < t; x++) {
			enc[k++] = (uint64_t)i << 32 | tmp[x] >> 32;
			enc[k++] = (uint32_t)tmp[x];
		}
	}
	cz->work += n + 2 * (uint64_t)g->m;
}

static bool over_budget(const struct canon *cz)
{
	return cz->nodes >= (cz->nodes_max ? cz->nodes_max : CANON_NODES) ||
	       cz->work >= (cz->work_max ? cz->work_max : CANON_WORK);
}

/* ---- canonical search ------------------------------------------------------------ */

/* Merges the orbits of a and b at node l, and what was tried in them.
 * Only the target cell's vertices are held: an automorphism fixing the
 * path maps that cell onto itself (twin cells split at an ancestor hold
 * singletons only, so the twin swaps that may come with it leave the cell
 * alone); the check guards the arrays all the same. */
static void level_union(struct level *l, uint32_t a, uint32_t b)
{
	if (l->p.cell[a] != l->target || l->p.cell[b] != l->target)
		return;
	a = uf_find(l->orb, a);
	b = uf_find(l->orb, b);
	if (a == b)
		return;
	if (a > b) {
		uint32_t t = a;
		a = b;
		b = t;
	}
	l->orb[b] = a;
	l->done[a] |= l->done[b];
}

/* Applies automorphism gm to the orbits of node l. */
static void level_gen(struct canon *cz, struct level *l, const uint32_t *gm)
{
	const uint32_t *c = l->p.lab + l->target, len = l->p.clen[l->target];
	for (uint32_t i = 0; i < len; i++)
		level_union(l, c[i], gm[c[i]]);
	cz->work += len;
}

/* A node of the current path: its target cell, its orbits (the stored
 * automorphisms that fix the path to it, and twins in the target cell). */
static void level_init(struct canon *cz, const struct cgraph *g, uint32_t d)
{
	struct level *l = &cz->lv[d];
	l->target = first_cell(&l->p, g->n);
	l->next = 0;
	const uint32_t *c = l->p.lab + l->target, len = l->p.clen[l->target];
	for (uint32_t i = 0; i < len; i++) {
		l->orb[c[i]] = c[i];
		l->done[c[i]] = 0;
	}
	for (uint32_t k = 0; k < cz->n_gens; k++) {
		const uint32_t *gm = cz->gens + (size_t)k * cz->cap;
		uint32_t i = 0;
		while (i < d && gm[cz->path[i]] == cz->path[i])
			i++;
		if (i == d)
			level_gen(cz, l, gm);
		cz->work += i;
	}
	/* twins in the target cell: cstart maps a twin class to its first member */
	uint32_t stamp = next_stamp(cz);
	for (uint32_t i = 0; i < len; i++) {
		uint32_t v = c[i], t = g->twin[v];
		if (cz->cseen[t] != stamp) {
			cz->cseen[t] = stamp;
			cz->cstart[t] = v;
		} else {
			level_union(l, cz->cstart[t], v);
		}
	}
	cz->work += len;
}

/* The next child of node d, one per orbit; NIL when none is left. */
static uint32_t level_next(struct canon *cz, uint32_t d)
{
	struct level *l = &cz->lv[d];
	while (l->next < l->p.clen[l->target]) {
		uint32_t u = l->p.lab[l->target + l->next++], r = uf_find(l->orb, u);
		if (l->done[r])
			continue;
		l->done[r] = 1;
		return u;
	}
	return NIL;
}

/* The automorphism mapping leaf `from` onto the leaf in cz->w: merges the
 * orbits of the nodes of the current path (0..d) whose path it fixes, and
 * is kept (while there is room) for the nodes to come. */
static void add_gen(struct canon *cz, const struct cgraph *g, const uint32_t *from, uint32_t d)
{
	const uint32_t n = g->n;
	bool keep = cz->n_gens < CANON_GENS;
	if (keep && cz->n_gens == cz->cap_gens) {
		uint32_t c = cz->cap_gens ? 2 * cz->cap_gens : 4;
		uint32_t *gs = realloc(cz->gens, (size_t)c * cz->cap * sizeof *gs);
		if (gs) {
			cz->gens = gs;
			cz->cap_gens = c;
		} else {
			keep = false;
		}
	}
	/* not kept: used for the current path only, through the touched
	 * list, free scratch between refinements */
	uint32_t *img = keep ? cz->gens + (size_t)cz->n_gens * cz->cap : cz->touched;
	for (uint32_t i = 0; i < n; i++)
		img[from[i]] = cz->w.lab[i];
	for (uint32_t l = 0; l <= d; l++) {
		if (l > 0 && img[cz->path[l - 1]] != cz->path[l - 1])
			break;
		level_gen(cz, &cz->lv[l], img);
	}
	cz->work += n;
	if (keep)
		cz->n_gens++;
}

/* The node where the current path (0..d) parts from an earlier leaf's. */
static uint32_t back_to(const uint32_t *path, uint32_t d, const uint32_t *b, uint32_t lb)
{
	uint32_t i = 0;
	while (i < d && i < lb && path[i] == b[i])
		i++;
	return i;
}

/* The colour-class key when the search ran out: labels and cells by
 * position, the edges between cells as (cell, cell, weight) ascending. */
static uint64_t fallback_key(struct canon *cz, const struct cgraph *g, const struct ptn *p)
{
	const uint32_t n = g->n;
	uint64_t *q = cz->cur;
	for (uint32_t i = 0; i < n; i++)
		q[i] = g->label[p->lab[i]] ^ (uint64_t)p->cell[p->lab[i]] << 40;
	struct pair *pr = (struct pair *)(void *)(q + n);
	uint64_t k = 0;
	for (uint32_t v = 0; v < n; v++)
		for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++) {
			uint32_t u = (uint32_t)(g->adj[e] >> 32), a = p->cell[v], b = p->cell[u];
			if (u < v)
				continue;
			if (a > b) {
				uint32_t t = a;
				a = b;
				b = t;
			}
			pr[k++] = (struct pair){ .ab = (uint64_t)a << 32 | b, .w = (uint32_t)g->adj[e] };
		}
	qsort(pr, k, sizeof *pr, cmp_pair);
	uint64_t head[4] = { 2, n, g->m, g->context };
	uint64_t seed = XXH3_64bits_withSeed(head, sizeof head, MEMO_SEED);
	return XXH3_64bits_withSeed(q, (n + 2 * k) * sizeof *q, seed);
}

/* A leaf of the search at depth d (cz->w discrete): the first leaf is kept
 * as the first and the best; a leaf equal to one of them is an automorphism,
 * and the search goes back to where the two paths part; a smaller one
 * becomes the best.  Returns the depth to go on from. */
static uint32_t canon_leaf(struct canon *cz, const struct cgraph *g, uint32_t d, bool *have)
{
	const uint32_t n = g->n;
	const uint64_t len = n + 2 * (uint64_t)g->m;
	relabel(cz, g, cz->w.lab, cz->w.pos, cz->cur);
	if (!*have) {
		memcpy(cz->first, cz->cur, len * sizeof *cz->cur);
		memcpy(cz->best, cz->cur, len * sizeof *cz->cur);
		memcpy(cz->first_lab, cz->w.lab, (size_t)n * sizeof *cz->first_lab);
		memcpy(cz->best_lab, cz->w.lab, (size_t)n * sizeof *cz->best_lab);
		memcpy(cz->first_path, cz->path, (size_t)(d + 1) * sizeof *cz->path);
		memcpy(cz->best_path, cz->path, (size_t)(d + 1) * sizeof *cz->path);
		cz->first_len = cz->best_len = d + 1;
		*have = true;
		return d;
	}
	/* an equal leaf: the subtree it lies in is the image of one
	 * already explored; go back to where the two paths part */
	if (!enc_cmp(cz->cur, cz->first, len)) {
		add_gen(cz, g, cz->first_lab, d);
		return back_to(cz->path, d, cz->first_path, cz->first_len);
	}
	int c = enc_cmp(cz->cur, cz->best, len);
	if (!c) {
		add_gen(cz, g, cz->best_lab, d);
		return back_to(cz->path, d, cz->best_path, cz->best_len);
	}
	if (c < 0) {
		memcpy(cz->best, cz->cur, len * sizeof *cz->cur);
		memcpy(cz->best_lab, cz->w.lab, (size_t)n * sizeof *cz->best_lab);
		memcpy(cz->best_path, cz->path, (size_t)(d + 1) * sizeof *cz->path);
		cz->best_len = d + 1;
	}
	return d;
}

/* The search tree below the root partition (not discrete): the best leaf
 * in cz->best_lab, cz->complete false when it ran out of budget.  -1: out
 * of memory. */
static int canon_search(struct canon *cz, const struct cgraph *g)
{
	const uint32_t n = g->n;
	bool have = false;
	uint32_t d = 0;
	level_init(cz, g, 0);
	for (;;) {
		uint32_t u = level_next(cz, d);
		if (u == NIL) {
			if (d == 0)
				break;
			d--;
			continue;
		}
		if (over_budget(cz)) {
			cz->complete = false;
			break;
		}
		cz->nodes++;
		cz->path[d] = u;
		ptn_copy(&cz->w, &cz->lv[d].p, n);
		individualize(cz, g, &cz->w, u);
		settle(cz, g, &cz->w);
		if (cz->w.ncells < n) {
			if (cz_level(cz, d + 1))
				return -1;
			d++;
			ptn_copy(&cz->lv[d].p, &cz->w, n);
			level_init(cz, g, d);
			continue;
		}
		d = canon_leaf(cz, g, d, &have);
	}
	return 0;
}

/* The graph relabelled in `order` (cz->order, cz->rank, cz->enc) and its
 * key: the hash of that encoding when the labelling is canonical, the
 * colour-class key otherwise. */
static void canon_encode(struct canon *cz, const struct cgraph *g, const uint32_t *order)
{
	const uint32_t n = g->n;
	const uint64_t len = n + 2 * (uint64_t)g->m;
	memcpy(cz->order, order, (size_t)n * sizeof *cz->order);
	for (uint32_t i = 0; i < n; i++)
		cz->rank[cz->order[i]] = i;
	relabel(cz, g, cz->order, cz->rank, cz->enc);
	cz->enc_len = len;
	if (cz->complete) {
		uint64_t head[4] = { 1, n, g->m, g->context };
		uint64_t seed = XXH3_64bits_withSeed(head, sizeof head, MEMO_SEED);
		cz->key = XXH3_64bits_withSeed(cz->enc, len * sizeof *cz->enc, seed);
	} else {
		cz->key = fallback_key(cz, g, &cz->lv[0].p);
	}
}

/*
 * The canonical labelling of cz->g: cz->order, cz->rank, cz->enc (the
 * graph relabelled), cz->key, cz->complete.  -1: out of memory.
 */
static int canon_run(struct canon *cz)
{
	const struct cgraph *g = &cz->g;
	cz->work = 0;
	cz->nodes = 0;
	cz->n_gens = 0;
	cz->complete = true;
	if (cz_level(cz, 0))
		return -1;
	ptn_root(cz, g, &cz->lv[0].p);
	settle(cz, g, &cz->lv[0].p);
	/* lv may move as the search deepens; the arrays it points to do not */
	const uint32_t *order = cz->lv[0].p.lab;
	if (cz->lv[0].p.ncells < g->n) {
		if (canon_search(cz, g))
			return -1;
		if (cz->complete)
			order = cz->best_lab;
	}
	canon_encode(cz, g, order);
	return 0;
}

/* Builds cz->g from a caller's graph and labels it canonically. */
static int canon_graph(struct canon *cz, const struct wh_graph *gr)
{
	if (!gr || gr->n == 0 || gr->n > MEMO_MAX_N)
		return -1;
	if (cz_reserve(cz, gr->n, gr->n_edges) ||
	    cg_build(&cz->g, gr->n, gr->label, gr->n_edges, gr->edges, NULL, gr->context))
		return -1;
	cg_twins(&cz->g, cz->cnt, cz->grp);
	return canon_run(cz);
}

/* ---- verification ------------------------------------------------------------------ */

static bool same_shape(const struct ptn *a, const struct ptn *b, uint32_t n)
{
	if (a->ncells != b->ncells || a->trace != b->trace)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (a->cell[a->lab[i]] != b->cell[b->lab[i]])
			return false;
	return true;
}

/*
 * An isomorphism from cz->g to cz->h (same n and m), budgeted: map[v] is
 * h's vertex for g's vertex v.  h follows one path of its search tree
 * (always the first vertex of the target cell), g tries every vertex of
 * the same cell at each level, pruned by twins and by g's automorphisms
 * found while labelling it; the partitions must match at every level.
 */
static bool iso_run(struct canon *cz, uint32_t *map)
{
	const struct cgraph *g = &cz->g, *h = &cz->h;
	const uint32_t n = g->n;
	const uint64_t len = n + 2 * (uint64_t)g->m;
	cz->work = 0;
	cz->nodes = 0;
	if (cz_level(cz, 0) || cz_blevel(cz, 0))
		return false;
	ptn_root(cz, g, &cz->lv[0].p);
	settle(cz, g, &cz->lv[0].p);
	ptn_root(cz, h, &cz->bl[0]);
	settle(cz, h, &cz->bl[0]);
	if (!same_shape(&cz->lv[0].p, &cz->bl[0], n))
		return false;
	const struct ptn *pa = &cz->lv[0].p, *pb = &cz->bl[0];
	bool found = false;
	if (pa->ncells == n)
		goto leaf;
	uint32_t d = 0, ready = 0;
	level_init(cz, g, 0);
	for (;;) {
		uint32_t u = level_next(cz, d);
		if (u == NIL) {
			if (d == 0)
				return false;
			d--;
			continue;
		}
		if (over_budget(cz))
			return false;
		cz->nodes++;
		cz->path[d] = u;
		if (ready < d + 1) {
			if (cz_blevel(cz, d + 1))
				return false;
			ptn_copy(&cz->bl[d + 1], &cz->bl[d], n);
			individualize(cz, h, &cz->bl[d + 1], cz->bl[d].lab[cz->lv[d].target]);
			settle(cz, h, &cz->bl[d + 1]);
			ready = d + 1;
		}
		ptn_copy(&cz->w, &cz->lv[d].p, n);
		individualize(cz, g, &cz->w, u);
		settle(cz, g, &cz->w);
		if (!same_shape(&cz->w, &cz->bl[d + 1], n))
			continue;
		if (cz->w.ncells == n) {
			pa = &cz->w;
			pb = &cz->bl[d + 1];
			relabel(cz, g, pa->lab, pa->pos, cz->cur);
			relabel(cz, h, pb->lab, pb->pos, cz->henc);
			if (!enc_cmp(cz->cur, cz->henc, len)) {
				found = true;
				break;
			}
			continue;
		}
		if (cz_level(cz, d + 1))
			return false;
		d++;
		ptn_copy(&cz->lv[d].p, &cz->w, n);
		level_init(cz, g, d);
	}
	if (found)
		goto map;
	return false;
leaf:
	relabel(cz, g, pa->lab, pa->pos, cz->cur);
	relabel(cz, h, pb->lab, pb->pos, cz->henc);
	if (enc_cmp(cz->cur, cz->henc, len))
		return false;
map:
	for (uint32_t i = 0; i < n; i++)
		map[pa->lab[i]] = pb->lab[i];
	return true;
}

/* ---- the table -------------------------------------------------------------------- */

static uint64_t *entry_bytes(const struct entry *e)
{
	return e->enc + e->n + 2 * (uint64_t)e->m;
}

static uint64_t *entry_rates(const struct entry *e)
{
	return entry_bytes(e) + e->n;
}

static uint64_t *entry_goodput(const struct entry *e)
{
	return entry_rates(e) + e->n;
}

static uint64_t *entry_line(const struct entry *e)
{
	return entry_goodput(e) + e->n;
}

/* What a search cost, in elementary steps (wh_memo_stats.work): those it
 * counted, and the sorts of its n + 2m entries it did not. */
static void count_work(struct wh_memo *m, uint64_t len)
{
	uint64_t lg = 1;
	while (lg < 63 && (UINT64_C(1) << lg) < len)
		lg++;
	m->st.work += m->cz.work + len * lg;
}

/* The entry isomorphic to the canonically labelled cz->g, with m->map
 * filled; NIL if none. */
static uint32_t memo_find(struct wh_memo *m)
{
	struct canon *cz = &m->cz;
	const struct cgraph *g = &cz->g;
	if (!m->nb)
		return NIL;
	for (uint32_t i = m->bucket[cz->key & (m->nb - 1)]; i != NIL; i = m->e[i].next) {
		const struct entry *e = &m->e[i];
		if (e->key != cz->key || e->context != g->context || e->n != g->n || e->m != g->m)
			continue;
		if (!enc_cmp(e->enc, cz->enc, cz->enc_len)) {
			for (uint32_t v = 0; v < g->n; v++)
				m->map[v] = cz->rank[v];
			return i;
		}
		/* two canonical forms that differ: not isomorphic */
		if (e->canon && cz->complete) {
			m->st.rejected++;
			continue;
		}
		if (cg_build(&cz->h, e->n, e->enc, e->m, NULL, e->enc + e->n, e->context))
			continue;
		cg_twins(&cz->h, cz->cnt, cz->grp);
		bool iso = iso_run(cz, m->map);
		count_work(m, cz->g.n + 2 * (uint64_t)cz->g.m);
		if (iso) {
			m->st.verified++;
			return i;
		}
		m->st.rejected++;
	}
	return NIL;
}

/* Canonical labelling of a query, room for its mapping. */
static int memo_prepare(struct wh_memo *m, const struct wh_graph *g)
{
	if (!m)
		return -1;
	int rc = canon_graph(&m->cz, g);
	if (g)
		count_work(m, g->n + 2 * (uint64_t)g->n_edges);
	if (rc)
		return -1;
	m->st.fallbacks += !m->cz.complete;
	return grow32((void **)&m->map, &m->cap_map, g->n, sizeof *m->map);
}

struct wh_memo *wh_memo_new(void)
{
	return calloc(1, sizeof(struct wh_memo));
}

void wh_memo_free(struct wh_memo *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->n; i++)
		free(m->e[i].enc);
	free(m->e);
	free(m->bucket);
	free(m->map);
	cz_free(&m->cz);
	free(m);
}

uint64_t wh_memo_key(const struct wh_graph *g)
{
	struct canon cz = { 0 };
	uint64_t key = canon_graph(&cz, g) ? 0 : cz.key;
	cz_free(&cz);
	return key;
}

bool wh_memo_lookup(struct wh_memo *m, const struct wh_graph *g, struct wh_outcome *out)
{
	if (m)
		m->st.lookups++;
	if (memo_prepare(m, g))
		return false;
	uint32_t i = memo_find(m);
	if (i == NIL)
		return false;
	m->st.hits++;
	const struct entry *e = &m->e[i];
	if (e->origin == ORIGIN_IMPORTED)
		m->st.imported_hits++;
	const uint64_t *bytes = entry_bytes(e), *rates = entry_rates(e);
	if (out) {
		out->duration = e->duration;
		for (uint32_t v = 0; v < g->n; v++) {
			if (out->bytes)
				out->bytes[v] = bytes[m->map[v]];
			if (out->end_rate)
				out->end_rate[v] = rates[m->map[v]];
			if (out->end_goodput)
				out->end_goodput[v] = entry_goodput(e)[m->map[v]];
			if (out->line_rate)
				out->line_rate[v] = entry_line(e)[m->map[v]];
		}
	}
	return true;
}

static int memo_rehash(struct wh_memo *m, uint32_t nb)
{
	uint32_t *b = malloc((size_t)nb * sizeof *b);
	if (!b)
		return -1;
	memset(b, 0xff, (size_t)nb * sizeof *b);
	/* insertion order within a bucket, so saves and finds are deterministic */
	for (uint32_t i = m->n; i-- > 0;) {
		uint32_t k = (uint32_t)(m->e[i].key & (nb - 1));
		m->e[i].next = b[k];
		b[k] = i;
	}
	free(m->bucket);
	m->bucket = b;
	m->nb = nb;
	return 0;
}

/* Puts an outcome in the table as `mode` says: 0, 1 (an import that found
 * an isomorphic entry there: nothing changed) or -1 (out of memory). */
static int memo_put(struct wh_memo *m, const struct wh_graph *g, const struct wh_outcome *o,
		    enum put_mode mode)
{
	if (!o || memo_prepare(m, g))
		return -1;
	const struct canon *cz = &m->cz;
	const uint32_t n = g->n;
	uint32_t i = memo_find(m);
	if (i != NIL && mode == PUT_IMPORT)
		return 1;
	if (i != NIL) {
		struct entry *e = &m->e[i];
		if (mode == PUT_LEARN)
			e->origin = ORIGIN_LEARNED;
		uint64_t *bytes = entry_bytes(e), *rates = entry_rates(e);
		e->duration = o->duration;
		for (uint32_t v = 0; v < n; v++) {
			bytes[m->map[v]] = o->bytes ? o->bytes[v] : 0;
			rates[m->map[v]] = o->end_rate ? o->end_rate[v] : 0;
			entry_goodput(e)[m->map[v]] = o->end_goodput ? o->end_goodput[v] : 0;
			entry_line(e)[m->map[v]] = o->line_rate ? o->line_rate[v] : 0;
		}
		return 0;
	}
	if (m->n == UINT32_MAX - 1 ||
	    grow32((void **)&m->e, &m->cap, (uint64_t)m->n + 1, sizeof *m->e))
		return -1;
	if ((uint64_t)m->n + 1 > m->nb) {
		uint64_t nb = m->nb ? 2 * (uint64_t)m->nb : 64;
		if (nb > (1ull << 31) || memo_rehash(m, (uint32_t)nb))
			return -1;
	}
	uint64_t words = cz->enc_len + 4 * (uint64_t)n;
	uint64_t *blk = malloc(words * sizeof *blk);
	if (!blk)
		return -1;
	memcpy(blk, cz->enc, cz->enc_len * sizeof *blk);
	struct entry *e = &m->e[m->n];
	*e = (struct entry){ .key = cz->key, .context = g->context, .duration = o->duration,
			     .n = n, .m = g->n_edges, .canon = cz->complete, .enc = blk,
			     .origin = mode == PUT_LEARN ? ORIGIN_LEARNED
				       : mode == PUT_LOAD ? ORIGIN_LOADED : ORIGIN_IMPORTED };
	uint64_t *bytes = entry_bytes(e), *rates = entry_rates(e);
	for (uint32_t v = 0; v < n; v++) {
		bytes[cz->rank[v]] = o->bytes ? o->bytes[v] : 0;
		rates[cz->rank[v]] = o->end_rate ? o->end_rate[v] : 0;
		entry_goodput(e)[cz->rank[v]] = o->end_goodput ? o->end_goodput[v] : 0;
		entry_line(e)[cz->rank[v]] = o->line_rate ? o->line_rate[v] : 0;
	}
	uint32_t k = (uint32_t)(e->key & (m->nb - 1)), *at = &m->bucket[k];
	while (*at != NIL)
		at = &m->e[*at].next;
	e->next = NIL;
	*at = m->n++;
	return 0;
}

int wh_memo_insert(struct wh_memo *m, const struct wh_graph *g, const struct wh_outcome *o)
{
	return memo_put(m, g, o, PUT_LEARN) < 0 ? -1 : 0;
}

uint64_t wh_memo_entries(const struct wh_memo *m)
{
	return m ? m->n : 0;
}

void wh_memo_set_budget(struct wh_memo *m, uint32_t nodes, uint64_t steps)
{
	m->cz.nodes_max = nodes;
	m->cz.work_max = steps;
}

void wh_memo_get_stats(const struct wh_memo *m, struct wh_memo_stats *st)
{
	*st = m->st;
}

/* ---- the file ------------------------------------------------------------------------ */

struct writer {
	FILE *f;
	XXH3_state_t *st;
	unsigned char buf[1 << 15];
	size_t n;
	bool err;
};

static void wr_flush(struct writer *w)
{
	if (!w->n)
		return;
	XXH3_64bits_update(w->st, w->buf, w->n);
	if (fwrite(w->buf, 1, w->n, w->f) != w->n)
		w->err = true;
	w->n = 0;
}

static void wr_u32(struct writer *w, uint32_t x)
{
	if (w->n + 4 > sizeof w->buf)
		wr_flush(w);
	for (int i = 0; i < 4; i++)
		w->buf[w->n++] = (unsigned char)(x >> (8 * i));
}

static void wr_u64(struct writer *w, uint64_t x)
{
	if (w->n + 8 > sizeof w->buf)
		wr_flush(w);
	for (int i = 0; i < 8; i++)
		w->buf[w->n++] = (unsigned char)(x >> (8 * i));
}

static uint32_t rd_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd_u64(const unsigned char *p)
{
	return (uint64_t)rd_u32(p) | (uint64_t)rd_u32(p + 4) << 32;
}

/* One entry of the table: sizes, context, duration, vertex labels, edges
 * (a, b, weight), then bytes, rates and goodputs per vertex. */
static void save_entry(struct writer *w, const struct entry *e)
{
	const uint64_t *bytes = entry_bytes(e), *rates = entry_rates(e);
	wr_u32(w, e->n);
	wr_u32(w, e->m);
	wr_u64(w, e->context);
	wr_u64(w, e->duration);
	for (uint32_t v = 0; v < e->n; v++)
		wr_u64(w, e->enc[v]);
	for (uint32_t k = 0; k < e->m; k++) {
		uint64_t ab = e->enc[e->n + 2 * (uint64_t)k];
		wr_u32(w, (uint32_t)(ab >> 32));
		wr_u32(w, (uint32_t)ab);
		wr_u32(w, (uint32_t)e->enc[e->n + 2 * (uint64_t)k + 1]);
	}
	for (uint32_t v = 0; v < e->n; v++)
		wr_u64(w, bytes[v]);
	for (uint32_t v = 0; v < e->n; v++)
		wr_u64(w, rates[v]);
	for (uint32_t v = 0; v < e->n; v++)
		wr_u64(w, entry_goodput(e)[v]);
	for (uint32_t v = 0; v < e->n; v++)
		wr_u64(w, entry_line(e)[v]);
}

/* The table through w: magic, version, entries (all, or only those its
 * run learned), then the checksum of all that; a failed write sets
 * w->err. */
static void save_table(struct writer *w, const struct wh_memo *m, bool learned_only)
{
	uint64_t count = 0;
	for (uint32_t i = 0; i < m->n; i++)
		count += !learned_only || m->e[i].origin == ORIGIN_LEARNED;
	memcpy(w->buf, MEMO_MAGIC, MEMO_MAGIC_LEN);
	w->n = MEMO_MAGIC_LEN;
	wr_u32(w, MEMO_VERSION);
	wr_u64(w, count);
	for (uint32_t i = 0; i < m->n; i++)
		if (!learned_only || m->e[i].origin == ORIGIN_LEARNED)
			save_entry(w, &m->e[i]);
	wr_flush(w);
	uint64_t sum = XXH3_64bits_digest(w->st);
	for (int i = 0; i < 8; i++)
		w->buf[w->n++] = (unsigned char)(sum >> (8 * i));
	if (fwrite(w->buf, 1, w->n, w->f) != w->n)
		w->err = true;
}

/* The temporary file tmp written to the disk, closed and renamed over
 * path.  -1 (the reason in why): it is left for the caller to remove. */
static int save_commit(struct writer *w, const char *tmp, const char *path, char *why,
		       size_t size)
{
	if (w->err || fflush(w->f) || fsync(fileno(w->f))) {
		say(why, size, "%s: cannot write: %s", tmp, strerror(errno));
		return -1;
	}
	int closed = fclose(w->f);
	w->f = NULL;
	if (closed) {
		say(why, size, "%s: cannot write: %s", tmp, strerror(errno));
		return -1;
	}
	if (rename(tmp, path)) {
		say(why, size, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A file at path that is not a memo table (another output, a trace, a
 * device): never overwritten.  1 with a sentence, or 0. */
static int foreign(const char *path, char *why, size_t size)
{
	struct stat st;
	if (lstat(path, &st)) /* nothing there (or unreadable: the save says) */
		return 0;
	if (!S_ISREG(st.st_mode)) {
		say(why, size, "%s is not a regular file: not overwritten", path);
		return 1;
	}
	FILE *f = fopen(path, "rb");
	unsigned char head[MEMO_MAGIC_LEN];
	size_t got = f ? fread(head, 1, sizeof head, f) : 0;
	if (f)
		fclose(f);
	if (!f || st.st_size == 0 || (got == sizeof head && !memcmp(head, MEMO_MAGIC, got)) ||
	    (got < sizeof head && !memcmp(head, MEMO_MAGIC, got)))
		return 0; /* a memo table, even a damaged one, or an empty file */
	say(why, size, "%s holds something other than a warpsim memo table: not overwritten",
	    path);
	return 1;
}

int wh_memo_save(const struct wh_memo *m, const char *path, char *why, size_t size)
{
	if (why && size)
		why[0] = '\0';
	if (!m || !path)
		return say(why, size, "no table or no path to save to");
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 8);
	struct writer *w = calloc(1, sizeof *w);
	int fd = -1, ret = -1;
	if (!tmp || !w) {
		say(why, size, "%s: out of memory", path);
		goto out;
	}
	if (foreign(path, why, size))
		goto out;
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".XXXXXX", 8);
	/* a temporary file beside the target, renamed over it when complete,
	 * so a crash or a full disk never leaves a half-written table */
	fd = mkstemp(tmp);
	if (fd < 0) {
		say(why, size, "%s: cannot create a temporary file: %s", path, strerror(errno));
		goto out;
	}
	/* mkstemp makes it private; a table is as readable as other outputs */
	(void)fchmod(fd, 0644);
	w->f = fdopen(fd, "wb");
	if (!w->f) {
		say(why, size, "%s: cannot write: %s", tmp, strerror(errno));
		goto out_unlink;
	}
	fd = -1;
	w->st = XXH3_createState();
	if (!w->st || XXH3_64bits_reset(w->st) != XXH_OK) {
		say(why, size, "%s: out of memory", path);
		goto out_unlink;
	}
	save_table(w, m, false);
	if (save_commit(w, tmp, path, why, size))
		goto out_unlink;
	ret = 0;
	goto out;
out_unlink:
	unlink(tmp);
out:
	if (w) {
		if (w->f)
			fclose(w->f);
		XXH3_freeState(w->st);
	}
	if (fd >= 0)
		close(fd);
	free(w);
	free(tmp);
	return ret;
}

int wh_memo_export(const struct wh_memo *m, void **data, size_t *len, char *why, size_t size)
{
	*data = NULL;
	*len = 0;
	if (why && size)
		why[0] = '\0';
	bool any = false;
	for (uint32_t i = 0; m && i < m->n && !any; i++)
		any = m->e[i].origin == ORIGIN_LEARNED;
	if (!any)
		return 0;
	char *buf = NULL;
	size_t n = 0;
	struct writer *w = calloc(1, sizeof *w);
	if (w)
		w->f = open_memstream(&buf, &n);
	if (w && w->f)
		w->st = XXH3_createState();
	int ret = 0;
	if (!w || !w->f || !w->st || XXH3_64bits_reset(w->st) != XXH_OK) {
		ret = say(why, size, "out of memory exporting the memo table");
	} else {
		save_table(w, m, true);
		if (fclose(w->f) || w->err)
			ret = say(why, size, "out of memory exporting the memo table");
		w->f = NULL;
	}
	if (w) {
		if (w->f)
			fclose(w->f);
		XXH3_freeState(w->st);
	}
	free(w);
	if (ret) {
		free(buf);
		return ret;
	}
	*data = buf;
	*len = n;
	return 0;
}

/* The whole file; 1 if it does not exist. */
static int read_file(const char *path, unsigned char **buf, size_t *len, char *why, size_t size)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (errno == ENOENT)
			return 1;
		return say(why, size, "%s: cannot open: %s", path, strerror(errno));
	}
	struct stat st;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		fclose(f);
		say(why, size, "%s: not a regular file", path);
		return -2;
	}
	if ((uint64_t)st.st_size > SIZE_MAX - 1) {
		fclose(f);
		return say(why, size, "%s: too large", path);
	}
	size_t n = (size_t)st.st_size;
	unsigned char *b = malloc(n ? n : 1);
	if (!b) {
		fclose(f);
		return say(why, size, "%s: out of memory reading %zu bytes", path, n);
	}
	size_t got = fread(b, 1, n, f);
	int err = ferror(f);
	fclose(f);
	if (err || got != n) {
		free(b);
		return say(why, size, "%s: read error", path);
	}
	*buf = b;
	*len = n;
	return 0;
}

/*
 * An entry whose outcome no network could produce (a file edited, or
 * written by a broken build): a duration of zero or over an hour (a
 * negative one reads as huge), a link rate of zero or over 100 Tb/s, a rate
 * or goodput above the line rate, more bytes than the line rate carries
 * in the duration (beyond a window in flight), no flow moving a byte (an
 * episode is recorded only when one did: replaying one that moved nothing
 * would hold its flows still for the duration).  0, or -1 with a sentence.
 */
static int entry_impossible(const unsigned char *e, uint32_t n, uint32_t m, uint64_t i,
			    char *why, size_t size)
{
	uint64_t duration = rd_u64(e + 16);
	if (duration == 0 || duration > MEMO_MAX_DURATION)
		return say(why, size, "entry %" PRIu64 ": duration %" PRIu64 " ps is impossible "
			   "(1 ps to an hour expected)", i, duration);
	const unsigned char *v0 = e + 24 + 8 * (size_t)n + 12 * (size_t)m;
	uint64_t moved = 0;
	for (uint32_t v = 0; v < n; v++) {
		uint64_t bytes = rd_u64(v0 + 8 * (size_t)v);
		moved |= bytes;
		uint64_t rate = rd_u64(v0 + 8 * ((size_t)n + v));
		uint64_t goodput = rd_u64(v0 + 8 * (2 * (size_t)n + v));
		uint64_t line = rd_u64(v0 + 8 * (3 * (size_t)n + v));
		if (line == 0 || line > MEMO_MAX_RATE)
			return say(why, size, "entry %" PRIu64 ", flow %" PRIu32 ": line rate %" PRIu64
				   " b/s is impossible", i, v, line);
		if (rate > line || goodput > line)
			return say(why, size, "entry %" PRIu64 ", flow %" PRIu32 ": rate %" PRIu64
				   " / goodput %" PRIu64 " b/s above its line rate %" PRIu64, i, v,
				   rate, goodput, line);
		double most = (double)line / 8.0 * ((double)duration / 1e12) + MEMO_SLACK_BYTES;
		if ((double)bytes > most)
			return say(why, size, "entry %" PRIu64 ", flow %" PRIu32 ": %" PRIu64 " bytes in "
				   "%" PRIu64 " ps is more than its line rate %" PRIu64 " b/s carries",
				   i, v, bytes, duration, line);
	}
	if (!moved)
		return say(why, size, "entry %" PRIu64 ": no flow moved a byte in %" PRIu64
			   " ps (an episode is recorded only when one did)", i, duration);
	return 0;
}

/*
 * Checks the whole file before anything is loaded: header, every entry in
 * bounds and well formed, nothing after the last but the checksum, the
 * checksum.  Returns the entry count, or -1 with a sentence.
 */
static int64_t memo_check(const unsigned char *b, size_t len, uint32_t *max_n,
			  uint32_t *max_m, char *why, size_t size)
{
	if (len < MEMO_MAGIC_LEN || memcmp(b, MEMO_MAGIC, MEMO_MAGIC_LEN)) {
		if (len && len < MEMO_MAGIC_LEN && !memcmp(b, MEMO_MAGIC, len))
			return say(why, size, "truncated in the header (%zu bytes)", len);
		say(why, size, "not a warpsim memo file");
		return -2;
	}
	if (len < MEMO_MAGIC_LEN + 4)
		return say(why, size, "truncated in the header (%zu bytes)", len);
	uint32_t version = rd_u32(b + MEMO_MAGIC_LEN);
	if (version != MEMO_VERSION)
		return say(why, size, "format version %" PRIu32 ", expected %u", version,
			   MEMO_VERSION);
	if (len < MEMO_HEADER)
		return say(why, size, "truncated in the header (%zu bytes)", len);
	uint64_t count = rd_u64(b + MEMO_MAGIC_LEN + 4);
	size_t off = MEMO_HEADER;
	if (count > (len - off) / MEMO_ENTRY_MIN)
		return say(why, size, "%" PRIu64 " entries announced but %zu bytes could hold at most "
			   "%zu: truncated or corrupt", count, len, (len - off) / MEMO_ENTRY_MIN);
	*max_n = *max_m = 0;
	for (uint64_t i = 0; i < count; i++) {
		if (len - off < 24)
			return say(why, size, "truncated after %" PRIu64 " of %" PRIu64 " entries",
				   i, count);
		uint32_t n = rd_u32(b + off), m = rd_u32(b + off + 4);
		if (n == 0 || n > MEMO_MAX_N)
			return say(why, size, "entry %" PRIu64 ": %" PRIu32 " vertices (1 to %u "
				   "allowed)", i, n, MEMO_MAX_N);
		if (m > (uint64_t)n * (n - 1) / 2)
			return say(why, size, "entry %" PRIu64 ": %" PRIu32 " edges for %" PRIu32
				   " vertices", i, m, n);
		uint64_t need = 24 + 40 * (uint64_t)n + 12 * (uint64_t)m;
		if (need > len - off)
			return say(why, size, "truncated after %" PRIu64 " of %" PRIu64 " entries",
				   i, count);
		const unsigned char *eb = b + off + 24 + 8 * (size_t)n;
		uint64_t prev = 0;
		for (uint32_t k = 0; k < m; k++, eb += 12) {
			uint32_t a = rd_u32(eb), c = rd_u32(eb + 4), w = rd_u32(eb + 8);
			uint64_t ab = (uint64_t)a << 32 | c;
			if (a >= c || c >= n || w == 0 || (k && ab <= prev))
				return say(why, size, "entry %" PRIu64 ": edge %" PRIu32 " (%" PRIu32
					   ", %" PRIu32 ", weight %" PRIu32 ") is out of range or "
					   "out of order", i, k, a, c, w);
			prev = ab;
		}
		if (entry_impossible(b + off, n, m, i, why, size))
			return -1;
		if (n > *max_n)
			*max_n = n;
		if (m > *max_m)
			*max_m = m;
		off += need;
	}
	if (len - off < 8)
		return say(why, size, "truncated after the %" PRIu64 " entries: no checksum", count);
	if (len - off > 8)
		return say(why, size, "%zu unexpected bytes after the last entry", len - off - 8);
	if (XXH3_64bits(b, off) != rd_u64(b + off))
		return say(why, size, "checksum mismatch");
	return (int64_t)count;
}

/*
 * Puts the entries of a table image (checked by memo_check: count entries,
 * no vertex beyond max_n, no edge count beyond max_m) in m as `mode` says;
 * `name` prefixes a failure's reason.  Counts the entries added (and, for
 * an import, those already there) in m's stats.
 */
static int memo_put_all(struct wh_memo *m, const unsigned char *b, int64_t count,
			uint32_t max_n, uint32_t max_m, enum put_mode mode, const char *name,
			char *why, size_t size)
{
	uint64_t *label = malloc(((size_t)max_n ? max_n : 1) * sizeof *label);
	uint64_t *bytes = malloc(((size_t)max_n ? max_n : 1) * 4 * sizeof *bytes);
	struct wh_edge *edges = malloc(((size_t)max_m ? max_m : 1) * sizeof *edges);
	int ret = 0;
	if (!label || !bytes || !edges) {
		ret = say(why, size, "%s: out of memory", name);
		goto out;
	}
	uint64_t *rates = bytes + max_n, *goodput = rates + max_n, *line = goodput + max_n;
	size_t off = MEMO_HEADER;
	for (int64_t i = 0; i < count; i++) {
		uint32_t n = rd_u32(b + off), ne = rd_u32(b + off + 4);
		uint64_t context = rd_u64(b + off + 8), duration = rd_u64(b + off + 16);
		off += 24;
		for (uint32_t v = 0; v < n; v++, off += 8)
			label[v] = rd_u64(b + off);
		for (uint32_t k = 0; k < ne; k++, off += 12)
			edges[k] = (struct wh_edge){ .a = rd_u32(b + off), .b = rd_u32(b + off + 4),
						     .weight = rd_u32(b + off + 8) };
		for (uint32_t v = 0; v < n; v++, off += 8)
			bytes[v] = rd_u64(b + off);
		for (uint32_t v = 0; v < n; v++, off += 8)
			rates[v] = rd_u64(b + off);
		for (uint32_t v = 0; v < n; v++, off += 8)
			goodput[v] = rd_u64(b + off);
		for (uint32_t v = 0; v < n; v++, off += 8)
			line[v] = rd_u64(b + off);
		struct wh_graph g = { .n = n, .label = label, .edges = edges, .n_edges = ne,
				      .context = context };
		struct wh_outcome o = { .duration = duration, .bytes = bytes, .end_rate = rates,
					.end_goodput = goodput, .line_rate = line };
		int r = memo_put(m, &g, &o, mode);
		if (r < 0) {
			ret = say(why, size, "%s: out of memory after loading %" PRId64 " of %" PRId64
				  " entries", name, i, count);
			goto out;
		}
		if (mode == PUT_IMPORT && r == 0)
			m->st.imported++;
		else if (mode == PUT_IMPORT)
			m->st.import_dups++;
	}
out:
	free(label);
	free(bytes);
	free(edges);
	return ret;
}

/* memo_check's reason prefixed with `name`. */
static int64_t memo_check_named(const unsigned char *b, size_t len, uint32_t *max_n,
				uint32_t *max_m, const char *name, char *why, size_t size)
{
	int64_t count = memo_check(b, len, max_n, max_m, why, size);
	if (count < 0 && why && size) {
		char *reason = strdup(why);
		if (reason) {
			snprintf(why, size, "%s: %s", name, reason);
			free(reason);
		}
	}
	return count;
}

int wh_memo_load(struct wh_memo *m, const char *path, char *why, size_t size)
{
	if (why && size)
		why[0] = '\0';
	if (!m || !path)
		return say(why, size, "no table or no path to load from");
	unsigned char *b = NULL;
	size_t len = 0;
	int r = read_file(path, &b, &len, why, size);
	if (r)
		return r > 0 ? 0 : r;
	uint32_t max_n = 0, max_m = 0;
	int64_t count = memo_check_named(b, len, &max_n, &max_m, path, why, size);
	int ret = count == -2 ? -2 : count < 0 ? -1
		  : memo_put_all(m, b, count, max_n, max_m, PUT_LOAD, path, why, size);
	free(b);
	return ret;
}

int wh_memo_import(struct wh_memo *m, const void *data, size_t len, bool check_only,
		   char *why, size_t size)
{
	if (why && size)
		why[0] = '\0';
	if (!m || (!data && len))
		return say(why, size, "no table or no data to import");
	uint32_t max_n = 0, max_m = 0;
	int64_t count = memo_check_named(data, len, &max_n, &max_m, "memo table", why, size);
	if (count < 0)
		return count == -2 ? -2 : -1;
	if (check_only)
		return 0;
	return memo_put_all(m, data, count, max_n, max_m, PUT_IMPORT, "memo table", why, size);
}
