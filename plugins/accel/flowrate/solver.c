/* SPDX-License-Identifier: MIT */
/*
 * Weighted max-min fair rates over links, kept per connected component
 * (solver.h).  A solve visits the flows reachable from what changed, then
 * fills them: every link holds a key, the level at which it would be full
 * (its capacity left after the floors and the flows already fixed, over
 * the weight of the flows still rising); each flow holds one for its own
 * cap.  The smallest key is the next bottleneck: its rising flows are fixed
 * at floor + weight x key, and the keys of their other links move up.  A
 * heap of one key per link and flow makes one solve O((F x hops + L) log L) for F
 * flows over L links.
 *
 * A link is loose while its flows at their caps would not fill it (the sum
 * of use x cap of its flows is at most its capacity): no rate the flows can
 * take is held back there, so the max-min rates are those of the other
 * links alone.  Loose links are left out of every solve (sets, fills,
 * checks): a flow that crosses loose links only is at its cap, and flows
 * that share only loose links do not move each other.  The potential load
 * is kept per link as flows come and go; a link turning tight brings its
 * flows into the next solve, one turning loose its flows at the top level.
 * Each flow keeps a bit per link, set while the link is tight (a link that
 * turns sets or clears the bits of its flows), so a solve's loops over a
 * flow's links read its tight links only, not the loose ones' lines.
 */
#include <stdlib.h>
#include <string.h>

#include "solver.h"

#define FR_TOL 1e-9        /* relative slack of the max-min check */

struct fr_flow {
	/* what the fill and the check read of every flow on a link first,
	 * in the first 40 bytes (one cache line for most flows of a page) */
	uint32_t fmark;     /* the stamp of the set that took it */
	bool has_use, live;
	bool seen;          /* added once at least (its page's `seen` counts it) */
	double weight, floor, rate;
	double level;       /* (rate - floor) / weight when last fixed */
	uint32_t *links;    /* n links, then n positions in those links' lists,
			     * then (has_use) n doubles: the share of the flow's
			     * rate each link carries, then a bit per link: set
			     * while the link is tight (tight_bits) */
	uint32_t n;
	uint32_t fixed;     /* the stamp of the fill that fixed it */
	double cap;
	double prev;        /* its rate when this solve's set took it */
	uint32_t fcheck;    /* the stamp of the check that took it */
	uint32_t bneck;     /* the link that fixed it when last filled; FR_NONE: its cap */
};

/* a flow on a link and its hop index in its own path, side by side (one
 * cache line per link visit, not two) */
struct fr_ent {
	uint32_t flow, hop;
};

/*
 * The flows on one link, in one 64-byte line with what a fill reads and
 * writes of the link: up to FR_INLINE flows in the line itself (most links
 * of a solve hold one or two), more in an array of `room`.
 */
#define FR_INLINE 2
struct fr_link {
	union {
		struct fr_ent *e;                /* room > 0 */
		struct fr_ent in[FR_INLINE];     /* room == 0 */
	} u;
	uint32_t n, room;
	/* solve scratch: the stamp of the set (FR_LOOSE: the link is loose,
	 * never in a set) and the heap position */
	uint32_t mark, hpos;
	double cap;
	/* the fill's residual capacity and weight, and the level at which
	 * the link is full now (its heap entry may hold a smaller, older one) */
	double resid, wsum, key;
};
#define ENTS(l) ((l)->room ? (l)->u.e : (l)->u.in)
#define FR_LOOSE 0x80000000u  /* mark's top bit; stamps stay below it */
#define LOOSE(l) (((l)->mark & FR_LOOSE) != 0)

/* what a local solve's check keeps of a link (cold: apart) */
struct fr_lchk {
	uint32_t check, chg_mark; /* stamps of the link_state cache, the changed list */
	double load, top;         /* load and highest level of the check */
	double pot;               /* sum of use x cap of the link's flows */
};

struct fr_key {
	double key;
	uint32_t idx;       /* link, or flow when is_flow */
	uint32_t is_flow;
};

/*
 * Flows by id in pages of FR_PAGE ids, so that memory follows the ids in
 * use: a page every id of which was added and is no longer live is freed
 * (its place then points at `dead`, a zeroed page nothing lives on), so a
 * run of 10^8 flow ids a few thousand at a time holds a few pages.
 */
#define FR_PAGE_BITS 12
#define FR_PAGE (1u << FR_PAGE_BITS)
struct fr_page {
	struct fr_flow f[FR_PAGE];
	uint32_t seen, live;    /* ids added at least once; live now */
};
#define FLOW(net, id) ((net)->page[(id) >> FR_PAGE_BITS]->f[(id) & (FR_PAGE - 1)])

struct fr_net {
	uint32_t n_links;
	struct fr_link *link;   /* 64-byte aligned: a link is one line */
	struct fr_lchk *lchk;
	struct fr_page **page;  /* cap_flows / FR_PAGE of them */
	struct fr_page *dead;
	uint32_t cap_flows, pages;
	uint32_t live;
	/* what changed since the last solve */
	uint32_t *seed_f, n_seed_f, room_seed_f;
	uint32_t *seed_l, n_seed_l, room_seed_l;
	double *seed_lv;                    /* the level of the flow that left */
	uint32_t room_seed_lv;
	/* solve scratch (the marks are in the flows and links) */
	uint32_t stamp;
	uint32_t *fset, n_fset, room_fset;  /* the flows of this solve */
	uint32_t *lset, n_lset, room_lset;  /* and their links */
	uint32_t fill_stamp;
	/* local solves (fr_set_local): per link load and highest level, by
	 * check_stamp; per flow the check_stamp it was checked at */
	bool local;
	uint32_t check_stamp;
	uint32_t *chg, n_chg, room_chg;     /* the links whose load changed */
	struct fr_key *heap;
	uint32_t n_heap, room_heap;
	struct fr_stats st;
};

/* Where in f->links the doubles of the shares start (in uint32s). */
static inline size_t share_at(uint32_t n)
{
	return 2 * (size_t)((n + 1) / 2 * 2);
}

/* The bits of flow f's links that are tight: bit k of word k / 64. */
static inline uint64_t *tight_bits(const struct fr_flow *f)
{
	return (uint64_t *)(void *)(f->links + share_at(f->n) + (f->has_use ? 2 * (size_t)f->n : 0));
}

/* for each k (uint32_t) with the bit of f's link k set */
#define FOR_TIGHT(f, k)                                                              \
	for (uint32_t w_ = 0, nw_ = ((f)->n + 63) / 64; w_ < nw_; w_++)              \
		for (uint64_t b_ = tight_bits(f)[w_], k; b_ &&                       \
		     (k = w_ * 64 + (uint32_t)__builtin_ctzll(b_), 1); b_ &= b_ - 1)

/* What link k of flow f carries of its rate. */
static inline double use_of(const struct fr_flow *f, uint32_t k)
{
	if (!f->has_use)
		return 1;
	const double *u = (const double *)(void *)(f->links + share_at(f->n));
	return u[k];
}

/* Grow *arr (of `size` bytes each) to hold at least `need`. */
static int grow(void *arr, uint32_t *room, uint32_t need, size_t size)
{
	if (need <= *room)
		return 0;
	uint32_t n = *room ? *room : 16;
	while (n < need)
		n *= 2;
	void *p = realloc(*(void **)arr, (size_t)n * size);
	if (!p)
		return -1;
	*(void **)arr = p;
	*room = n;
	return 0;
}

/* Room on link l for one more flow: the line's own slots, then an array. */
static int ent_room(struct fr_link *l)
{
	uint32_t have = l->room ? l->room : FR_INLINE;
	if (l->n + 1 <= have)
		return 0;
	uint32_t n = 2 * have;
	struct fr_ent *e;
	if (l->room) {
		e = realloc(l->u.e, (size_t)n * sizeof *e);
		if (!e)
			return -1;
	} else {
		e = malloc((size_t)n * sizeof *e);
		if (!e)
			return -1;
		memcpy(e, l->u.in, l->n * sizeof *e);
	}
	l->u.e = e;
	l->room = n;
	return 0;
}

/* Whether link l is loose with the flows and capacity it has now (a
 * potential load above the capacity by FR_TOL or less is within the
 * solver's rounding). */
static inline bool loose_now(const struct fr_net *net, uint32_t l)
{
	return !(net->lchk[l].pot > net->link[l].cap * (1 + FR_TOL));
}

/* Link l is loose or not from now on; the bits of its flows follow
 * (every flow's when it changes, and the one on hop `hop` of flow `id`
 * when that one just came: id FR_NONE none). */
static void set_loose(struct fr_net *net, uint32_t l, bool loose, uint32_t id, uint32_t hop)
{
	struct fr_link *lk = &net->link[l];
	if (LOOSE(lk) != loose) {
		lk->mark = loose ? lk->mark | FR_LOOSE : lk->mark & ~FR_LOOSE;
		for (uint32_t j = 0; j < lk->n; j++) {
			const struct fr_ent e = ENTS(lk)[j];
			uint64_t *b = tight_bits(&FLOW(net, e.flow)) + e.hop / 64;
			uint64_t bit = 1ull << (e.hop % 64);
			*b = loose ? *b & ~bit : *b | bit;
		}
	} else if (id != FR_NONE) {
		uint64_t *b = tight_bits(&FLOW(net, id)) + hop / 64;
		uint64_t bit = 1ull << (hop % 64);
		*b = loose ? *b & ~bit : *b | bit;
	}
}

/* Seed the next solve with link l: its flows at `level` or above may move
 * (on failure to note it, every flow is solved next time). */
static void seed_link(struct fr_net *net, uint32_t l, double level)
{
	if (net->n_seed_l == UINT32_MAX)
		return;
	if (grow(&net->seed_l, &net->room_seed_l, net->n_seed_l + 1, sizeof(uint32_t)) ||
	    grow(&net->seed_lv, &net->room_seed_lv, net->n_seed_l + 1, sizeof(double))) {
		net->n_seed_l = UINT32_MAX;
		return;
	}
	net->seed_lv[net->n_seed_l] = level;
	net->seed_l[net->n_seed_l++] = l;
}

struct fr_net *fr_new(uint32_t n_links)
{
	struct fr_net *net = calloc(1, sizeof *net);
	if (!net)
		return NULL;
	net->n_links = n_links;
	size_t nl = n_links ? n_links : 1;
	_Static_assert(sizeof(struct fr_link) == 64, "a link is one cache line");
	net->link = aligned_alloc(64, nl * sizeof *net->link);
	if (net->link)
		memset(net->link, 0, nl * sizeof *net->link);
	net->lchk = calloc(nl, sizeof *net->lchk);
	net->dead = calloc(1, sizeof *net->dead);
	if (!net->link || !net->lchk || !net->dead) {
		fr_free(net);
		return NULL;
	}
	return net;
}

void fr_free(struct fr_net *net)
{
	if (!net)
		return;
	for (uint32_t l = 0; net->link && l < net->n_links; l++)
		if (net->link[l].room)
			free(net->link[l].u.e);
	for (uint32_t p = 0; p < net->cap_flows / FR_PAGE; p++) {
		if (net->page[p] == net->dead)
			continue;
		for (uint32_t f = 0; f < FR_PAGE; f++)
			free(net->page[p]->f[f].links);
		free(net->page[p]);
	}
	free(net->link);
	free(net->lchk);
	free(net->page);
	free(net->dead);
	free(net->chg);
	free(net->seed_f);
	free(net->seed_l);
	free(net->seed_lv);
	free(net->fset);
	free(net->lset);
	free(net->heap);
	free(net);
}

/* Room for flow ids up to `id`: its page, allocated. */
static int flows_reserve(struct fr_net *net, uint32_t id)
{
	uint32_t pg = id >> FR_PAGE_BITS, have = net->cap_flows / FR_PAGE;
	if (pg >= have) {
		uint32_t n = have ? have : 1;
		while (n <= pg)
			n *= 2;
		struct fr_page **p = realloc(net->page, (size_t)n * sizeof *p);
		if (!p)
			return -1;
		for (uint32_t k = have; k < n; k++)
			p[k] = net->dead;
		net->page = p;
		net->cap_flows = n * FR_PAGE;
	}
	if (net->page[pg] == net->dead) {
		struct fr_page *p = calloc(1, sizeof *p);
		if (!p)
			return -1;
		net->page[pg] = p;
		net->pages++;
	}
	return 0;
}

int fr_add(struct fr_net *net, uint32_t id, const uint32_t *links,
	   const double *link_cap, uint32_t n, double cap, double weight,
	   double floor)
{
	return fr_add_use(net, id, links, link_cap, NULL, n, cap, weight, floor);
}

int fr_add_use(struct fr_net *net, uint32_t id, const uint32_t *links,
	       const double *link_cap, const double *use, uint32_t n, double cap,
	       double weight, double floor)
{
	if (id >= (1u << 31) || !(cap > 0) || !(weight > 0) || !(floor >= 0) ||
	    floor > cap || flows_reserve(net, id) || FLOW(net, id).live)
		return -1;
	for (uint32_t k = 0; k < n; k++)
		if (links[k] >= net->n_links || (use && !(use[k] > 0)))
			return -1;
	if (grow(&net->seed_f, &net->room_seed_f, net->n_seed_f + 1, sizeof(uint32_t)))
		return -1;
	struct fr_flow *f = &FLOW(net, id);
	/* the positions padded to a double's alignment, then the shares, then
	 * the tight bits */
	size_t words = share_at(n), bits = words + (use ? 2 * (size_t)n : 0);
	size_t nw = (n + 63) / 64;
	uint32_t *ls = malloc((bits + 2 * (nw ? nw : 1)) * sizeof *ls);
	if (!ls)
		return -1;
	if (use)
		memcpy(ls + words, use, n * sizeof(double));
	memset(ls + bits, 0, nw * sizeof(uint64_t));
	for (uint32_t k = 0; k < n; k++) {
		struct fr_link *l = &net->link[links[k]];
		if (ent_room(l)) {
			/* undo the hops already placed */
			for (uint32_t j = 0; j < k; j++)
				net->link[links[j]].n--;
			free(ls);
			return -1;
		}
		ls[k] = links[k];
		ls[n + k] = l->n;
		ENTS(l)[l->n] = (struct fr_ent){ .flow = id, .hop = k };
		l->n++;
	}
	struct fr_page *pg = net->page[id >> FR_PAGE_BITS];
	pg->seen += !f->seen;
	pg->live++;
	*f = (struct fr_flow){ .links = ls, .n = n, .live = true, .has_use = use != NULL,
			       .seen = true,
			       .cap = cap,
			       .weight = weight, .floor = floor, .rate = 0,
			       .bneck = FR_NONE };
	/* the links' potential loads; a link that turns tight brings its flows
	 * into the next solve through the new flow, one that turns loose (its
	 * capacity given anew, higher) its flows */
	for (uint32_t k = 0; k < n; k++) {
		struct fr_link *l = &net->link[links[k]];
		bool was = l->n > 1 && LOOSE(l);
		net->lchk[links[k]].pot += (use ? use[k] : 1) * cap;
		l->cap = link_cap[k];
		bool now = loose_now(net, links[k]);
		if (now && l->n > 1 && !was)
			seed_link(net, links[k], 0);
		set_loose(net, links[k], now, id, k);
	}
	net->seed_f[net->n_seed_f++] = id;
	net->live++;
	return 0;
}

bool fr_live(const struct fr_net *net, uint32_t id)
{
	return id < net->cap_flows && FLOW(net, id).live;
}

void fr_remove(struct fr_net *net, uint32_t id)
{
	if (!fr_live(net, id))
		return;
	struct fr_flow *f = &FLOW(net, id);
	/* the links it leaves seed the next solve (on failure to note them,
	 * every flow is solved next time) */
	bool noted = !grow(&net->seed_l, &net->room_seed_l, net->n_seed_l + f->n,
			   sizeof(uint32_t)) &&
		     !grow(&net->seed_lv, &net->room_seed_lv, net->n_seed_l + f->n,
			   sizeof(double));
	for (uint32_t k = 0; k < f->n; k++) {
		struct fr_link *l = &net->link[f->links[k]];
		uint32_t pos = f->links[f->n + k], last = --l->n;
		if (pos != last) {
			struct fr_ent g = ENTS(l)[last];
			ENTS(l)[pos] = g;
			FLOW(net, g.flow).links[FLOW(net, g.flow).n + g.hop] = pos;
		}
		/* a loose link held nothing back: it stays loose and moves no one */
		bool was = LOOSE(l);
		double *pot = &net->lchk[f->links[k]].pot;
		*pot = l->n ? *pot - use_of(f, k) * f->cap : 0;
		if (!was && loose_now(net, f->links[k])) {
			/* turning loose: summed afresh, not from a long run of
			 * additions and subtractions */
			*pot = 0;
			for (uint32_t j = 0; j < l->n; j++) {
				const struct fr_flow *g = &FLOW(net, ENTS(l)[j].flow);
				*pot += use_of(g, ENTS(l)[j].hop) * g->cap;
			}
		}
		set_loose(net, f->links[k], loose_now(net, f->links[k]), FR_NONE, 0);
		if (noted && !was) {
			net->seed_lv[net->n_seed_l] = f->level;
			net->seed_l[net->n_seed_l++] = f->links[k];
		}
	}
	if (!noted)
		net->n_seed_l = UINT32_MAX;
	free(f->links);
	*f = (struct fr_flow){ .seen = true };
	net->live--;
	struct fr_page *pg = net->page[id >> FR_PAGE_BITS];
	if (--pg->live == 0 && pg->seen == FR_PAGE) {
		/* every id of the page came and went */
		free(pg);
		net->page[id >> FR_PAGE_BITS] = net->dead;
		net->pages--;
	}
}

int fr_set_cap(struct fr_net *net, uint32_t l, double cap)
{
	if (l >= net->n_links || !(cap >= 0))
		return -1;
	struct fr_link *lk = &net->link[l];
	double old = lk->cap, load = 0, top = 0;
	bool was = LOOSE(lk);
	lk->cap = cap;
	set_loose(net, l, loose_now(net, l), FR_NONE, 0);
	if (!lk->n || net->n_seed_l == UINT32_MAX || (was && LOOSE(lk)))
		return 0;
	if (was) {
		/* it turns tight: any of its flows may be held back there */
		seed_link(net, l, 0);
		return net->n_seed_l == UINT32_MAX ? -1 : 0;
	}
	for (uint32_t j = 0; j < lk->n; j++) {
		const struct fr_flow *g = &FLOW(net, ENTS(lk)[j].flow);
		load += use_of(g, ENTS(lk)[j].hop) * g->rate;
		if (g->level > top)
			top = g->level;
	}
	/* a link that was not full and is not now holds no flow back: every
	 * flow on it keeps the bottleneck it has elsewhere */
	if (load < (old < cap ? old : cap) * (1 - FR_TOL))
		return 0;
	/* the flows at the top level are those the link may hold back */
	seed_link(net, l, top);
	return net->n_seed_l == UINT32_MAX ? -1 : 0;
}

double fr_rate(const struct fr_net *net, uint32_t id)
{
	return fr_live(net, id) ? FLOW(net, id).rate : 0;
}

/* ---- the set to solve ------------------------------------------------------ */

static int visit_flow(struct fr_net *net, uint32_t id)
{
	if (!FLOW(net, id).live || FLOW(net, id).fmark == net->stamp)
		return 0;
	if (grow(&net->fset, &net->room_fset, net->n_fset + 1, sizeof(uint32_t)))
		return -1;
	FLOW(net, id).fmark = net->stamp;
	net->fset[net->n_fset++] = id;
	FLOW(net, id).prev = FLOW(net, id).rate;
	return 0;
}

static int visit_link(struct fr_net *net, uint32_t l)
{
	if (net->link[l].mark == net->stamp || LOOSE(&net->link[l]))
		return 0;
	if (grow(&net->lset, &net->room_lset, net->n_lset + 1, sizeof(uint32_t)))
		return -1;
	net->link[l].mark = net->stamp;
	net->lset[net->n_lset++] = l;
	return 0;
}

/* The flows and links reachable from the seeds (breadth first: fset and
 * lset are the queue). */
static int collect(struct fr_net *net, bool all)
{
	net->n_fset = net->n_lset = 0;
	if (all || net->n_seed_l == UINT32_MAX) {
		for (uint32_t id = 0; id < net->cap_flows; id++)
			if (visit_flow(net, id))
				return -1;
	} else {
		for (uint32_t i = 0; i < net->n_seed_f; i++)
			if (visit_flow(net, net->seed_f[i]))
				return -1;
		for (uint32_t i = 0; i < net->n_seed_l; i++) {
			const struct fr_link *l = &net->link[net->seed_l[i]];
			/* one that turned loose: its flows, held back there */
			for (uint32_t k = 0; LOOSE(l) && k < l->n; k++)
				if (visit_flow(net, ENTS(l)[k].flow))
					return -1;
			if (visit_link(net, net->seed_l[i]))
				return -1;
		}
	}
	uint32_t fi = 0, li = 0;
	while (fi < net->n_fset || li < net->n_lset) {
		for (; fi < net->n_fset; fi++) {
			const struct fr_flow *f = &FLOW(net, net->fset[fi]);
			FOR_TIGHT(f, k)
				if (visit_link(net, f->links[k]))
					return -1;
		}
		for (; li < net->n_lset; li++) {
			const struct fr_link *l = &net->link[net->lset[li]];
			for (uint32_t k = 0; k < l->n; k++)
				if (visit_flow(net, ENTS(l)[k].flow))
					return -1;
		}
	}
	net->n_seed_f = net->n_seed_l = 0;
	return 0;
}

/* ---- the heap of keys ------------------------------------------------------ */

static bool key_less(const struct fr_key *a, const struct fr_key *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (a->is_flow != b->is_flow)
		return a->is_flow > b->is_flow; /* caps first: the same level */
	return a->idx < b->idx;
}

/* Put key k at heap position i (a link's entry knows where it is). */
static inline void heap_set(struct fr_net *net, uint32_t i, struct fr_key k)
{
	net->heap[i] = k;
	if (!k.is_flow)
		net->link[k.idx].hpos = i;
}

/* Move key k up from position i to where it belongs. */
static void heap_up(struct fr_net *net, uint32_t i, struct fr_key k)
{
	struct fr_key *h = net->heap;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!key_less(&k, &h[p]))
			break;
		heap_set(net, i, h[p]);
		i = p;
	}
	heap_set(net, i, k);
}

/* Move key k down from position i to where it belongs. */
static void heap_down(struct fr_net *net, uint32_t i, struct fr_key k)
{
	struct fr_key *h = net->heap;
	uint32_t n = net->n_heap;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && key_less(&h[c + 1], &h[c]))
			c++;
		if (!key_less(&h[c], &k))
			break;
		heap_set(net, i, h[c]);
		i = c;
	}
	heap_set(net, i, k);
}

static int heap_push(struct fr_net *net, struct fr_key k)
{
	if (grow(&net->heap, &net->room_heap, net->n_heap + 1, sizeof k))
		return -1;
	heap_up(net, net->n_heap++, k);
	return 0;
}

static struct fr_key heap_pop(struct fr_net *net)
{
	struct fr_key top = net->heap[0], last = net->heap[--net->n_heap];
	if (net->n_heap)
		heap_down(net, 0, last);
	return top;
}

/*
 * A link's key, in place: one entry per link (its `hpos` is where it is in
 * the heap), so the heap holds no stale keys and pops the same entries in
 * the same order a heap of every key pushed would (key_less is a total
 * order over distinct entries).  A link with no flow still rising keeps
 * the entry it has.
 *
 * Lazily: a key that rises (a flow fixed on the link takes less than the
 * link's share: the usual case) is only noted in the link; its entry moves
 * when it comes to the top (fill).  A key that falls (rounding) moves at
 * once.  Every entry then holds at most its link's key, so the first entry
 * whose key is its link's is the smallest of them all: the fill pops what
 * it popped when every move was made at once.
 */
static int push_link(struct fr_net *net, uint32_t l, double level)
{
	struct fr_link *lk = &net->link[l];
	if (!(lk->wsum > 0))
		return 0;
	double key = lk->resid / lk->wsum;
	struct fr_key k = { .key = key > level ? key : level, .idx = l };
	lk->key = k.key;
	uint32_t i = lk->hpos;
	if (i >= net->n_heap || net->heap[i].is_flow || net->heap[i].idx != l)
		return heap_push(net, k);
	if (!key_less(&k, &net->heap[i]))
		return 0; /* risen or the same: moved when it is on top */
	heap_up(net, i, k);
	return 0;
}

/* ---- filling ---------------------------------------------------------------- */

/* Fix flow `id` at `level`: its links no longer wait for it. */
static int fix_flow(struct fr_net *net, uint32_t id, double level, uint32_t bneck)
{
	struct fr_flow *f = &FLOW(net, id);
	f->bneck = bneck;
	double extra = f->weight * level;
	f->rate = f->floor + extra;
	f->level = level;
	if (f->rate > f->cap)
		f->rate = f->cap;
	FLOW(net, id).fixed = net->fill_stamp;
	FOR_TIGHT(f, k) {
		uint32_t l = f->links[k];
		if (net->link[l].mark != net->stamp)
			continue; /* never: a set holds its flows' tight links */
		double u = use_of(f, k);
		net->link[l].resid -= u * extra;
		net->link[l].wsum -= u * f->weight;
		if (net->link[l].wsum < 1e-12 * u * f->weight)
			net->link[l].wsum = 0;
		if (push_link(net, l, level))
			return -1;
	}
	return 0;
}

/* Fill the flows of fset over the links of lset; a flow on those links
 * outside fset (a local solve) keeps its rate. */
static int fill(struct fr_net *net)
{
	net->n_heap = 0;
	if (grow(&net->heap, &net->room_heap, net->n_lset + net->n_fset + 1,
		 sizeof *net->heap))
		return -1;
	if (++net->fill_stamp == 0) {
		for (uint32_t i = 0; i < net->cap_flows; i++)
			FLOW(net, i).fixed = 0;
		net->fill_stamp = 1;
	}
	for (uint32_t i = 0; i < net->n_lset; i++) {
		uint32_t l = net->lset[i];
		const struct fr_link *lk = &net->link[l];
		double r = lk->cap, w = 0;
		for (uint32_t k = 0; k < lk->n; k++) {
			const struct fr_flow *g = &FLOW(net, ENTS(lk)[k].flow);
			double u = use_of(g, ENTS(lk)[k].hop);
			if (g->fmark != net->stamp) {
				r -= u * g->rate;
				continue;
			}
			r -= u * g->floor;
			w += u * g->weight;
		}
		struct fr_link *lw = &net->link[l];
		lw->resid = r > 0 ? r : 0;
		lw->wsum = w;
		if (!(w > 0))
			continue; /* nothing rises on it: no key */
		double key = lw->resid / w;
		lw->key = key > 0 ? key : 0;
		lw->hpos = net->n_heap;
		net->heap[net->n_heap++] = (struct fr_key){ .key = lw->key, .idx = l };
	}
	for (uint32_t i = 0; i < net->n_fset; i++) {
		const struct fr_flow *f = &FLOW(net, net->fset[i]);
		double key = (f->cap - f->floor) / f->weight;
		net->heap[net->n_heap++] = (struct fr_key){ .key = key > 0 ? key : 0,
							    .idx = net->fset[i], .is_flow = 1 };
	}
	/* every key at once, then heap order (Floyd): the pops are the same
	 * as one push at a time would give, key_less being a total order */
	for (uint32_t i = net->n_heap / 2; i-- > 0;)
		heap_down(net, i, net->heap[i]);
	uint32_t left = net->n_fset;
	while (left && net->n_heap) {
		struct fr_key k = heap_pop(net);
		if (k.is_flow) {
			if (FLOW(net, k.idx).fixed == net->fill_stamp)
				continue;
			if (fix_flow(net, k.idx, k.key, FR_NONE))
				return -1;
			left--;
			continue;
		}
		const struct fr_link *lk = &net->link[k.idx];
		if (!(lk->wsum > 0))
			continue; /* nothing rises on it */
		if (lk->key != k.key) {
			/* its key rose since its entry was placed */
			k.key = lk->key;
			heap_push(net, k); /* room: it was just popped */
			continue;
		}
		/* the link is full: everything still rising on it stops here */
		for (uint32_t j = 0; j < lk->n; j++) {
			uint32_t id = ENTS(lk)[j].flow;
			if (FLOW(net, id).fixed == net->fill_stamp ||
			    FLOW(net, id).fmark != net->stamp)
				continue;
			if (fix_flow(net, id, k.key, k.idx))
				return -1;
			left--;
		}
	}
	return 0;
}

/* A new set: nothing visited. */
static void next_stamp(struct fr_net *net)
{
	if (++net->stamp == FR_LOOSE) { /* wrapped: clear the marks once */
		for (uint32_t i = 0; i < net->cap_flows; i++)
			FLOW(net, i).fmark = 0;
		for (uint32_t l = 0; l < net->n_links; l++)
			net->link[l].mark &= FR_LOOSE;
		net->stamp = 1;
	}
}

/* ---- local solves ------------------------------------------------------------ */

#define FR_LOCAL_ROUNDS 8  /* widenings before the whole component is solved */

/* A flow and every flow sharing a link with it join the set. */
static int widen(struct fr_net *net, uint32_t id)
{
	if (visit_flow(net, id))
		return -1;
	const struct fr_flow *f = &FLOW(net, id);
	FOR_TIGHT(f, k) {
		const struct fr_link *l = &net->link[f->links[k]];
		if (visit_link(net, f->links[k]))
			return -1;
		for (uint32_t j = 0; j < l->n; j++)
			if (visit_flow(net, ENTS(l)[j].flow))
				return -1;
	}
	return 0;
}

/* The first guess of a local solve: the flows that came and those sharing
 * a link with them; on a link a flow left, those at its level or above
 * (the others were not bottlenecked there: their bottleneck is elsewhere
 * and the check sees if it changed); lset: the links of them all. */
static int local_seed(struct fr_net *net)
{
	net->n_fset = net->n_lset = 0;
	for (uint32_t i = 0; i < net->n_seed_f; i++)
		if (FLOW(net, net->seed_f[i]).live && widen(net, net->seed_f[i]))
			return -1;
	for (uint32_t i = 0; i < net->n_seed_l; i++) {
		const struct fr_link *l = &net->link[net->seed_l[i]];
		double v = net->seed_lv[i] * (1 - FR_TOL);
		for (uint32_t j = 0; j < l->n; j++)
			if (FLOW(net, ENTS(l)[j].flow).level >= v && visit_flow(net, ENTS(l)[j].flow))
				return -1;
	}
	for (uint32_t i = 0; i < net->n_fset; i++) {
		const struct fr_flow *f = &FLOW(net, net->fset[i]);
		FOR_TIGHT(f, k)
			if (visit_link(net, f->links[k]))
				return -1;
	}
	return 0;
}

/* A link's load and highest level now (cached for one check). */
static void link_state(struct fr_net *net, uint32_t l)
{
	if (net->lchk[l].check == net->check_stamp)
		return;
	const struct fr_link *lk = &net->link[l];
	double load = 0, top = 0;
	for (uint32_t j = 0; j < lk->n; j++) {
		const struct fr_flow *g = &FLOW(net, ENTS(lk)[j].flow);
		load += use_of(g, ENTS(lk)[j].hop) * g->rate;
		if (g->level > top)
			top = g->level;
	}
	net->lchk[l].check = net->check_stamp;
	net->lchk[l].load = load;
	net->lchk[l].top = top;
}

/* Max-min's characterization: a flow is at its cap, or crosses a full
 * link on which no flow has a higher level (its bottleneck). */
static bool has_bottleneck(struct fr_net *net, uint32_t id)
{
	const struct fr_flow *f = &FLOW(net, id);
	if (f->rate >= f->cap * (1 - FR_TOL))
		return true;
	/* the link that fixed it first: usually still its bottleneck */
	uint32_t b = f->bneck;
	if (b < net->n_links && !LOOSE(&net->link[b])) {
		link_state(net, b);
		if (net->lchk[b].load >= net->link[b].cap * (1 - FR_TOL) &&
		    f->level >= net->lchk[b].top * (1 - FR_TOL))
			return true;
	}
	FOR_TIGHT(f, k) { /* a loose link is never full */
		uint32_t l = f->links[k];
		link_state(net, l);
		if (net->lchk[l].load >= net->link[l].cap * (1 - FR_TOL) &&
		    f->level >= net->lchk[l].top * (1 - FR_TOL))
			return true;
	}
	return false;
}

/* Note link l as changed (once per check). */
static int changed(struct fr_net *net, uint32_t l)
{
	if (net->lchk[l].chg_mark == net->check_stamp)
		return 0;
	if (grow(&net->chg, &net->room_chg, net->n_chg + 1, sizeof(uint32_t)))
		return -1;
	net->lchk[l].chg_mark = net->check_stamp;
	net->chg[net->n_chg++] = l;
	return 0;
}

/* The links whose flows or loads changed: those of the flows that came or
 * left, and those of the flows of the set whose rate moved.  A flow on
 * none of them keeps a bottleneck it had. */
static int changed_links(struct fr_net *net)
{
	net->n_chg = 0;
	for (uint32_t i = 0; i < net->n_seed_l; i++)
		if (changed(net, net->seed_l[i]))
			return -1;
	for (uint32_t i = 0; i < net->n_fset; i++) {
		uint32_t id = net->fset[i];
		const struct fr_flow *f = &FLOW(net, id);
		bool came = FLOW(net, id).fcheck == net->check_stamp; /* marked a seed */
		if (f->rate == f->prev && !came)
			continue;
		/* a loose link's load holds no one back; the links of the seeds
		 * (above) are checked loose or not: one that turned loose let go
		 * of the flows it held */
		FOR_TIGHT(f, k)
			if (changed(net, f->links[k]))
				return -1;
	}
	return 0;
}

/* Check every flow on the links whose load changed; one without a
 * bottleneck widens the set.  Returns how many did, -1 when out of
 * memory. */
static int64_t local_check(struct fr_net *net)
{
	if (++net->check_stamp == 0) {
		for (uint32_t l = 0; l < net->n_links; l++)
			net->lchk[l].check = net->lchk[l].chg_mark = 0;
		for (uint32_t i = 0; i < net->cap_flows; i++)
			FLOW(net, i).fcheck = 0;
		net->check_stamp = 1;
	}
	/* the flows that came: their links changed whatever their rate */
	for (uint32_t i = 0; i < net->n_seed_f; i++)
		FLOW(net, net->seed_f[i]).fcheck = net->check_stamp;
	if (changed_links(net))
		return -1;
	for (uint32_t i = 0; i < net->n_seed_f; i++)
		FLOW(net, net->seed_f[i]).fcheck = 0;
	int64_t bad = 0;
	for (uint32_t i = 0; i < net->n_chg; i++) {
		const struct fr_link *lk = &net->link[net->chg[i]];
		for (uint32_t j = 0; j < lk->n; j++) {
			uint32_t id = ENTS(lk)[j].flow;
			if (FLOW(net, id).fcheck == net->check_stamp)
				continue;
			FLOW(net, id).fcheck = net->check_stamp;
			if (has_bottleneck(net, id))
				continue;
			bad++;
			if (widen(net, id))
				return -1;
		}
	}
	return bad;
}

/* Solve the set around what changed, widen it until every flow on the
 * links it touches has a bottleneck (the max-min allocation is the only
 * one where all do), or solve the whole component.  0, or -1. */
static int local_solve(struct fr_net *net)
{
	if (local_seed(net))
		return -1;
	uint32_t linked = net->n_fset; /* local_seed took their links */
	for (uint32_t round = 0;; round++) {
		/* the links of the flows that joined */
		for (uint32_t i = linked; i < net->n_fset; i++) {
			const struct fr_flow *f = &FLOW(net, net->fset[i]);
			FOR_TIGHT(f, k)
				if (visit_link(net, f->links[k]))
					return -1;
		}
		linked = net->n_fset;
		if (fill(net))
			return -1;
		net->st.local_rounds++;
		int64_t bad = local_check(net);
		if (bad < 0)
			return -1;
		if (!bad)
			break;
		if (round + 1 < FR_LOCAL_ROUNDS)
			continue;
		/* give up: the components, from the same seeds */
		net->st.full_fallbacks++;
		next_stamp(net);
		return collect(net, false) || fill(net) ? -1 : 0;
	}
	net->n_seed_f = net->n_seed_l = 0;
	return 0;
}

void fr_set_local(struct fr_net *net, bool local)
{
	net->local = local;
}

int64_t fr_solve(struct fr_net *net, bool all, const uint32_t **flows)
{
	next_stamp(net);
	bool local = net->local && !all && net->n_seed_l != UINT32_MAX;
	if (local ? local_solve(net) : collect(net, all) || fill(net))
		return -1;
	*flows = net->fset;
	if (net->n_fset) {
		net->st.solves++;
		net->st.flows_solved += net->n_fset;
		if (net->n_fset > net->st.largest)
			net->st.largest = net->n_fset;
	}
	return net->n_fset;
}

void fr_get_stats(const struct fr_net *net, struct fr_stats *out)
{
	*out = net->st;
	out->live = net->live;
	out->pages = net->pages;
}
