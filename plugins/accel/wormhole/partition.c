/* SPDX-License-Identifier: MIT */
/*
 * Port-level partitions of the active flows: see partition.h for the
 * contract.  Shaped so that one flow starting or finishing costs what the
 * partitions it changes need, not what the whole fabric holds, even when
 * one partition holds most of the flows (a training job's collectives all
 * crossing the same core links):
 *
 *  - flows and ports are records in slot arrays found through open-
 *    addressing hash maps keyed by their ids (ports are global port ids, up
 *    to 10^7 of them, of which only those in use are held);
 *  - a partition's members live in a "body" (flow and port lists, each
 *    member knowing its position, so a member leaves in O(1)); the public
 *    id is a field of the body, so a partition that grows by a merge keeps
 *    the body of the largest partition merged and only the smaller ones
 *    move (each flow moves O(log flows) times over its life), and the new
 *    partition gets a fresh id without touching the members;
 *  - a removal searches the rest of the partition from each port the flow
 *    leaves behind, the searches taking one edge each in turn and merging
 *    when they meet; it stops as soon as at most one search is still
 *    running, so a split costs about (ports of the flow) x (the smaller
 *    pieces), and the piece still being searched keeps the old body; when
 *    nothing splits, the searches meet after a few edges even where a port
 *    carries thousands of flows;
 *  - the ascending id lists the getters return are sorted on demand and
 *    kept until the partition changes (their room is reserved beforehand,
 *    so a getter never allocates).
 *
 * Every change reserves all the memory it needs before touching anything,
 * so an allocation failure leaves the structure as it was.  New ids are
 * taken before dead ones are freed, so an id is never both dead and born in
 * one change.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "partition.h"

#define NIL UINT32_MAX

/* a vertex of the flow-port graph in the search lists: slot << 1 | is_port */
#define V_FLOW(s) ((s) << 1)
#define V_PORT(s) ((s) << 1 | 1u)

struct vec {
	uint32_t *v;
	uint32_t n, cap;
};

/* uint32 key -> uint32 value (NIL: empty), linear probing, load <= 1/2 */
struct map {
	uint32_t *key, *val;
	uint32_t cap;  /* power of two, or 0 */
	uint32_t n;
	unsigned shift;
};

/* What the searches of a removal leave on a flow or a port. */
struct mark {
	uint32_t epoch;   /* of the removal that last reached it */
	uint32_t search;  /* which search reached it */
	uint32_t snext;   /* next on that search's stack */
	uint32_t vnext;   /* next in that search's visited list */
};

struct use {
	uint32_t flow; /* flow slot */
	uint32_t k;    /* index of this port among the flow's ports */
};

struct flow {
	uint32_t id;
	uint32_t body;
	uint32_t pos;     /* in the body's flow list */
	uint32_t n_ports;
	uint32_t *ports;  /* global ids ascending, then port slots, then the
			   * flow's position in each port's user list: 3 x n_ports */
	struct mark mark;
};

struct port {
	uint32_t id;
	uint32_t body;
	uint32_t pos;     /* in the body's port list */
	uint32_t n_users, cap_users;
	struct use *users;
	struct mark mark;
};

struct body {
	uint32_t id;
	struct vec flows;   /* flow slots */
	struct vec ports;   /* port slots */
	struct vec sflows;  /* flow ids ascending, when sorted */
	struct vec sports;  /* port ids ascending, when sorted */
	bool fsorted;       /* sflows is current */
	bool psorted;       /* sports is current */
};

/* one search of a removal */
struct search {
	uint32_t cur;      /* the vertex whose neighbours it is going through */
	uint32_t at;       /* the next of them */
	uint32_t stack;    /* vertices reached, not yet gone through */
	uint32_t visited;  /* head of its visited list */
	uint32_t parent;   /* union-find over searches that met */
	uint32_t size;     /* vertices visited (by the group, at its root) */
	uint32_t body;     /* the body of a piece split off, NIL: none */
	bool running;      /* at a root: some search of the group still runs */
};

struct wh_parts {
	struct map flow_map, port_map;
	struct flow *flows;
	uint32_t n_flows, cap_flows;
	struct vec free_flows;
	struct port *ports;
	uint32_t n_ports, cap_ports;
	struct vec free_ports;
	struct body *bodies;
	uint32_t n_bodies, cap_bodies;
	struct vec free_bodies;
	struct vec id_body;   /* partition id -> body, NIL: not live */
	struct vec free_ids;
	uint32_t live;
	uint32_t epoch;       /* of the current removal, for the search marks */
	/* scratch */
	struct vec touch, dead, born, list;
	struct search *search;
	uint32_t cap_search;
	struct use **newusers;
	uint32_t cap_newusers;
};

/* ---- growable arrays --------------------------------------------------------- */

static int grow(void **p, uint32_t *cap, uint64_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	uint64_t c = *cap ? *cap : 8;
	while (c < need)
		c *= 2;
	if (c > UINT32_MAX - 1)
		c = UINT32_MAX - 1;
	if (c < need || c > SIZE_MAX / elem)
		return -1;
	void *q = realloc(*p, (size_t)c * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = (uint32_t)c;
	return 0;
}

static int vec_reserve(struct vec *a, uint64_t need)
{
	return grow((void **)&a->v, &a->cap, need, sizeof *a->v);
}

static void vec_free(struct vec *a)
{
	free(a->v);
	memset(a, 0, sizeof *a);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Sorts and removes duplicates; returns the new length. */
static uint32_t sort_unique(uint32_t *v, uint32_t n)
{
	if (n < 2)
		return n;
	qsort(v, n, sizeof *v, cmp_u32);
	uint32_t k = 1;
	for (uint32_t i = 1; i < n; i++)
		if (v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

/* ---- hash map ---------------------------------------------------------------- */

static uint32_t map_slot(const struct map *m, uint32_t key)
{
	return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> m->shift);
}

static uint32_t map_get(const struct map *m, uint32_t key)
{
	if (!m->cap)
		return NIL;
	for (uint32_t i = map_slot(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (m->val[i] == NIL)
			return NIL;
		if (m->key[i] == key)
			return m->val[i];
	}
}

/* Room for `more` insertions without failing. */
static int map_reserve(struct map *m, uint32_t more)
{
	uint64_t need = (uint64_t)m->n + more;
	if (need * 2 <= m->cap)
		return 0;
	uint64_t cap = m->cap ? m->cap : 16;
	unsigned bits = 0;
	while (cap < need * 2)
		cap *= 2;
	if (cap > (1ull << 31))
		return -1;
	for (uint64_t c = cap; c > 1; c >>= 1)
		bits++;
	uint32_t *key = malloc(cap * sizeof *key), *val = malloc(cap * sizeof *val);
	if (!key || !val) {
		free(key);
		free(val);
		return -1;
	}
	memset(val, 0xff, cap * sizeof *val);
	struct map nm = { .key = key, .val = val, .cap = (uint32_t)cap, .n = m->n,
			  .shift = 64 - bits };
	for (uint32_t i = 0; i < m->cap; i++) {
		if (m->val[i] == NIL)
			continue;
		uint32_t j = map_slot(&nm, m->key[i]);
		while (nm.val[j] != NIL)
			j = (j + 1) & (nm.cap - 1);
		nm.key[j] = m->key[i];
		nm.val[j] = m->val[i];
	}
	free(m->key);
	free(m->val);
	*m = nm;
	return 0;
}

/* Inserts an absent key; room reserved with map_reserve(). */
static void map_put(struct map *m, uint32_t key, uint32_t val)
{
	uint32_t i = map_slot(m, key);
	while (m->val[i] != NIL)
		i = (i + 1) & (m->cap - 1);
	m->key[i] = key;
	m->val[i] = val;
	m->n++;
}

/* Deletes a present key, shifting back the entries after it (no tombstones,
 * so lookups stay short however many flows come and go). */
static void map_del(struct map *m, uint32_t key)
{
	uint32_t mask = m->cap - 1, i = map_slot(m, key);
	while (m->key[i] != key || m->val[i] == NIL)
		i = (i + 1) & mask;
	for (uint32_t j = (i + 1) & mask;; j = (j + 1) & mask) {
		if (m->val[j] == NIL)
			break;
		uint32_t home = map_slot(m, m->key[j]);
		/* j's entry may fill the hole at i unless its home lies in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			i = j;
		}
	}
	m->val[i] = NIL;
	m->n--;
}

static void map_free(struct map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof *m);
}

/* ---- slots ------------------------------------------------------------------- */

/* Room for `k` new records of each kind (free slots or array growth), and
 * on the free lists for every slot, so that freeing one never fails. */
static int reserve_flows(struct wh_parts *p, uint32_t k)
{
	uint64_t extra = k > p->free_flows.n ? k - p->free_flows.n : 0;
	if (grow((void **)&p->flows, &p->cap_flows, p->n_flows + extra, sizeof *p->flows))
		return -1;
	return vec_reserve(&p->free_flows, p->n_flows + extra);
}

static int reserve_ports(struct wh_parts *p, uint32_t k)
{
	uint64_t extra = k > p->free_ports.n ? k - p->free_ports.n : 0;
	if (grow((void **)&p->ports, &p->cap_ports, p->n_ports + extra, sizeof *p->ports))
		return -1;
	return vec_reserve(&p->free_ports, p->n_ports + extra);
}

static int reserve_bodies(struct wh_parts *p, uint32_t k)
{
	uint64_t extra = k > p->free_bodies.n ? k - p->free_bodies.n : 0;
	if (grow((void **)&p->bodies, &p->cap_bodies, p->n_bodies + extra, sizeof *p->bodies))
		return -1;
	/* a freed slot goes back on the free list, which must not fail */
	return vec_reserve(&p->free_bodies, (uint64_t)p->n_bodies + extra);
}

static int reserve_ids(struct wh_parts *p, uint32_t k)
{
	uint64_t extra = k > p->free_ids.n ? k - p->free_ids.n : 0;
	if (vec_reserve(&p->id_body, p->id_body.n + extra))
		return -1;
	return vec_reserve(&p->free_ids, (uint64_t)p->id_body.n + extra);
}

static uint32_t take_flow(struct wh_parts *p)
{
	if (p->free_flows.n)
		return p->free_flows.v[--p->free_flows.n];
	return p->n_flows++;
}

static uint32_t take_port(struct wh_parts *p)
{
	if (p->free_ports.n)
		return p->free_ports.v[--p->free_ports.n];
	return p->n_ports++;
}

static uint32_t take_body(struct wh_parts *p)
{
	uint32_t b = p->free_bodies.n ? p->free_bodies.v[--p->free_bodies.n] : p->n_bodies++;
	memset(&p->bodies[b], 0, sizeof p->bodies[b]);
	return b;
}

static void drop_body(struct wh_parts *p, uint32_t b)
{
	struct body *bd = &p->bodies[b];
	vec_free(&bd->flows);
	vec_free(&bd->ports);
	vec_free(&bd->sflows);
	vec_free(&bd->sports);
	bd->id = NIL;
	p->free_bodies.v[p->free_bodies.n++] = b;
}

static uint32_t take_id(struct wh_parts *p, uint32_t body)
{
	uint32_t id = p->free_ids.n ? p->free_ids.v[--p->free_ids.n] : p->id_body.n++;
	p->id_body.v[id] = body;
	p->bodies[body].id = id;
	p->live++;
	return id;
}

static void drop_id(struct wh_parts *p, uint32_t id)
{
	p->id_body.v[id] = NIL;
	p->free_ids.v[p->free_ids.n++] = id;
	p->live--;
}

/* Room in a body for `flows` and `ports` members in all, sorted views included. */
static int reserve_body(struct body *b, uint64_t flows, uint64_t ports)
{
	if (vec_reserve(&b->flows, flows) || vec_reserve(&b->sflows, flows))
		return -1;
	return vec_reserve(&b->ports, ports) || vec_reserve(&b->sports, ports) ? -1 : 0;
}

/* ---- membership ---------------------------------------------------------------- */

static void body_add_flow(struct wh_parts *p, uint32_t b, uint32_t f)
{
	struct body *bd = &p->bodies[b];
	p->flows[f].body = b;
	p->flows[f].pos = bd->flows.n;
	bd->flows.v[bd->flows.n++] = f;
	bd->fsorted = false;
}

static void body_add_port(struct wh_parts *p, uint32_t b, uint32_t s)
{
	struct body *bd = &p->bodies[b];
	p->ports[s].body = b;
	p->ports[s].pos = bd->ports.n;
	bd->ports.v[bd->ports.n++] = s;
	bd->psorted = false;
}

static void body_del_flow(struct wh_parts *p, uint32_t f)
{
	struct body *bd = &p->bodies[p->flows[f].body];
	uint32_t i = p->flows[f].pos, last = bd->flows.v[--bd->flows.n];
	bd->flows.v[i] = last;
	p->flows[last].pos = i;
	bd->fsorted = false;
}

static void body_del_port(struct wh_parts *p, uint32_t s)
{
	struct body *bd = &p->bodies[p->ports[s].body];
	uint32_t i = p->ports[s].pos, last = bd->ports.v[--bd->ports.n];
	bd->ports.v[i] = last;
	p->ports[last].pos = i;
	bd->psorted = false;
}

/* Ascending u32 ids (distinct): a quicksort with no comparison callback
 * (qsort's took most of a big partition's listing). */
static void sort_ids(uint32_t *v, uint32_t n)
{
	while (n > 16) {
		uint32_t a = v[0], b = v[n / 2], c = v[n - 1];
		uint32_t piv = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		uint32_t i = 0, j = n - 1;
		for (;;) {
			while (v[i] < piv)
				i++;
			while (v[j] > piv)
				j--;
			if (i >= j)
				break;
			uint32_t t = v[i];
			v[i++] = v[j];
			v[j--] = t;
		}
		/* [0, j] and [j + 1, n): recurse on the smaller, loop on the other */
		uint32_t left = j + 1;
		if (left < n - left) {
			sort_ids(v, left);
			v += left;
			n -= left;
		} else {
			sort_ids(v + left, n - left);
			n = left;
		}
	}
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = v[i], k = i;
		for (; k > 0 && v[k - 1] > x; k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
}

static void body_sort_flows(const struct wh_parts *p, struct body *bd)
{
	if (bd->fsorted)
		return;
	for (uint32_t i = 0; i < bd->flows.n; i++)
		bd->sflows.v[i] = p->flows[bd->flows.v[i]].id;
	bd->sflows.n = bd->flows.n;
	sort_ids(bd->sflows.v, bd->sflows.n);
	bd->fsorted = true;
}

static void body_sort_ports(const struct wh_parts *p, struct body *bd)
{
	if (bd->psorted)
		return;
	for (uint32_t i = 0; i < bd->ports.n; i++)
		bd->sports.v[i] = p->ports[bd->ports.v[i]].id;
	bd->sports.n = bd->ports.n;
	sort_ids(bd->sports.v, bd->sports.n);
	bd->psorted = true;
}

static void set_change(struct wh_parts *p, struct wh_change *ch)
{
	if (!ch)
		return;
	ch->dead = p->dead.v;
	ch->n_dead = p->dead.n;
	ch->born = p->born.v;
	ch->n_born = p->born.n;
}

/* ---- public ---------------------------------------------------------------------- */

struct wh_parts *wh_parts_new(void)
{
	return calloc(1, sizeof(struct wh_parts));
}

void wh_parts_free(struct wh_parts *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->n_flows; i++)
		free(p->flows[i].ports);
	for (uint32_t i = 0; i < p->n_ports; i++)
		free(p->ports[i].users);
	for (uint32_t i = 0; i < p->n_bodies; i++) {
		struct body *bd = &p->bodies[i];
		vec_free(&bd->flows);
		vec_free(&bd->ports);
		vec_free(&bd->sflows);
		vec_free(&bd->sports);
	}
	map_free(&p->flow_map);
	map_free(&p->port_map);
	free(p->flows);
	free(p->ports);
	free(p->bodies);
	vec_free(&p->free_flows);
	vec_free(&p->free_ports);
	vec_free(&p->free_bodies);
	vec_free(&p->id_body);
	vec_free(&p->free_ids);
	vec_free(&p->touch);
	vec_free(&p->dead);
	vec_free(&p->born);
	vec_free(&p->list);
	free(p->search);
	free(p->newusers);
	free(p);
}

/* The bodies the ports touch, in p->touch (each once, ascending by body). */
static int collect_bodies(struct wh_parts *p, const uint32_t *ports, uint32_t n)
{
	p->touch.n = 0;
	if (vec_reserve(&p->touch, n))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = map_get(&p->port_map, ports[i]);
		if (s != NIL)
			p->touch.v[p->touch.n++] = p->ports[s].body;
	}
	p->touch.n = sort_unique(p->touch.v, p->touch.n);
	return 0;
}

uint32_t wh_parts_touching(struct wh_parts *p, const uint32_t *ports, uint32_t n,
			   const uint32_t **ids)
{
	if (collect_bodies(p, ports, n)) {
		*ids = NULL;
		return 0;
	}
	for (uint32_t i = 0; i < p->touch.n; i++)
		p->touch.v[i] = p->bodies[p->touch.v[i]].id;
	p->touch.n = sort_unique(p->touch.v, p->touch.n);
	*ids = p->touch.v;
	return p->touch.n;
}

/* The body a merge keeps (the largest one touched, NIL: none touched), and
 * how many flows and ports the merged partition holds besides the new
 * ports: the new flow and those of the touched bodies. */
static uint32_t add_pick_kept_body(const struct wh_parts *p, uint64_t *flows_in,
				   uint64_t *ports_in)
{
	uint32_t keep = NIL;
	uint64_t best = 0;
	*flows_in = 1;
	*ports_in = 0;
	for (uint32_t i = 0; i < p->touch.n; i++) {
		const struct body *bd = &p->bodies[p->touch.v[i]];
		*flows_in += bd->flows.n;
		*ports_in += bd->ports.n;
		if (keep == NIL || bd->flows.n + bd->ports.n > best) {
			keep = p->touch.v[i];
			best = bd->flows.n + bd->ports.n;
		}
	}
	return keep;
}

/* Room for one more user on every port already held; counts the ports not
 * held yet in *nnew. */
static int add_reserve_users(struct wh_parts *p, const uint32_t *blk, uint32_t n,
			     uint32_t *nnew)
{
	*nnew = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = map_get(&p->port_map, blk[i]);
		if (s == NIL) {
			(*nnew)++;
			continue;
		}
		struct port *pt = &p->ports[s];
		if (grow((void **)&pt->users, &pt->cap_users, (uint64_t)pt->n_users + 1,
			 sizeof *pt->users))
			return -1;
	}
	return 0;
}

/* The user lists of the new ports, in p->newusers; *made counts those
 * allocated, which the caller frees on failure. */
static int add_alloc_new_users(struct wh_parts *p, uint32_t nnew, uint32_t *made)
{
	if (grow((void **)&p->newusers, &p->cap_newusers, nnew, sizeof *p->newusers))
		return -1;
	for (; *made < nnew; (*made)++)
		if (!(p->newusers[*made] = malloc(4 * sizeof(struct use))))
			return -1;
	return 0;
}

/* Room in the kept body for the merged partition; a flow touching nothing
 * gets a body of its own, reserved before it is taken. */
static int add_reserve_kept_body(struct wh_parts *p, uint32_t *keep, uint64_t flows_in,
				 uint64_t ports_in)
{
	if (*keep != NIL)
		return reserve_body(&p->bodies[*keep], flows_in, ports_in);
	struct body fresh = { 0 };
	if (reserve_body(&fresh, flows_in, ports_in)) {
		vec_free(&fresh.flows);
		vec_free(&fresh.sflows);
		vec_free(&fresh.ports);
		vec_free(&fresh.sports);
		return -1;
	}
	*keep = take_body(p);
	p->bodies[*keep] = fresh;
	return 0;
}

/* Everything adding the flow on the ports blk[0..n) needs, reserved before
 * anything changes; *keep is the body the partition will live in.  On
 * failure the caller frees the first *made of p->newusers. */
static int add_reserve(struct wh_parts *p, const uint32_t *blk, uint32_t n, uint32_t *keep,
		       uint32_t *made)
{
	uint64_t flows_in, ports_in;
	uint32_t nnew;
	if (collect_bodies(p, blk, n))
		return -1;
	*keep = add_pick_kept_body(p, &flows_in, &ports_in);
	if (add_reserve_users(p, blk, n, &nnew))
		return -1;
	ports_in += nnew;
	if (add_alloc_new_users(p, nnew, made))
		return -1;
	if (map_reserve(&p->flow_map, 1) || map_reserve(&p->port_map, nnew) ||
	    reserve_flows(p, 1) || reserve_ports(p, nnew) || reserve_bodies(p, 1) ||
	    reserve_ids(p, 1) || vec_reserve(&p->dead, p->touch.n) || vec_reserve(&p->born, 1))
		return -1;
	return add_reserve_kept_body(p, keep, flows_in, ports_in);
}

/* Every partition touched dies (in p->dead); the smaller bodies move into
 * the kept one. */
static void add_merge_touched(struct wh_parts *p, uint32_t keep)
{
	p->dead.n = 0;
	p->born.n = 0;
	for (uint32_t i = 0; i < p->touch.n; i++)
		p->dead.v[p->dead.n++] = p->bodies[p->touch.v[i]].id;
	p->dead.n = sort_unique(p->dead.v, p->dead.n);
	for (uint32_t i = 0; i < p->touch.n; i++) {
		uint32_t b = p->touch.v[i];
		if (b == keep)
			continue;
		const struct body *bd = &p->bodies[b];
		for (uint32_t j = 0; j < bd->flows.n; j++)
			body_add_flow(p, keep, bd->flows.v[j]);
		for (uint32_t j = 0; j < bd->ports.n; j++)
			body_add_port(p, keep, bd->ports.v[j]);
		drop_body(p, b);
	}
}

/* The flow's record (owning blk, its ports) and its place among the users
 * of each port, the ports not held yet taking the user lists reserved for
 * them; all in body `keep`. */
static void add_link_flow(struct wh_parts *p, uint32_t flow, uint32_t *blk, uint32_t n,
			  uint32_t keep)
{
	uint32_t f = take_flow(p);
	struct flow *fl = &p->flows[f];
	memset(fl, 0, sizeof *fl);
	fl->id = flow;
	fl->n_ports = n;
	fl->ports = blk;
	map_put(&p->flow_map, flow, f);
	body_add_flow(p, keep, f);
	for (uint32_t i = 0, j = 0; i < n; i++) {
		uint32_t s = map_get(&p->port_map, blk[i]);
		if (s == NIL) {
			s = take_port(p);
			struct port *pt = &p->ports[s];
			memset(pt, 0, sizeof *pt);
			pt->id = blk[i];
			pt->users = p->newusers[j++];
			pt->cap_users = 4;
			map_put(&p->port_map, blk[i], s);
			body_add_port(p, keep, s);
		}
		struct port *pt = &p->ports[s];
		blk[n + i] = s;
		blk[2 * n + i] = pt->n_users;
		pt->users[pt->n_users++] = (struct use){ .flow = f, .k = i };
	}
}

int wh_parts_add(struct wh_parts *p, uint32_t flow, const uint32_t *ports,
		 uint32_t n, struct wh_change *ch)
{
	if (map_get(&p->flow_map, flow) != NIL || n > UINT32_MAX / 3)
		return -1;
	uint32_t made = 0, keep = NIL;
	uint32_t *blk = malloc(3 * (size_t)(n ? n : 1) * sizeof *blk);
	if (!blk)
		return -1;
	if (n)
		memcpy(blk, ports, (size_t)n * sizeof *blk);
	n = sort_unique(blk, n);
	/* reserve everything, then change: an allocation failure changes nothing */
	if (add_reserve(p, blk, n, &keep, &made))
		goto fail;

	/* nothing can fail from here */
	add_merge_touched(p, keep);
	add_link_flow(p, flow, blk, n, keep);
	uint32_t born = take_id(p, keep);
	for (uint32_t i = 0; i < p->dead.n; i++)
		drop_id(p, p->dead.v[i]);
	p->born.v[p->born.n++] = born;
	set_change(p, ch);
	return 0;

fail:
	for (uint32_t i = 0; i < made; i++)
		free(p->newusers[i]);
	free(blk);
	return -1;
}

/* ---- removal ------------------------------------------------------------------- */

static uint32_t search_root(struct search *s, uint32_t i)
{
	while (s[i].parent != i) {
		s[i].parent = s[s[i].parent].parent;
		i = s[i].parent;
	}
	return i;
}

static struct mark *v_mark(struct wh_parts *p, uint32_t v)
{
	return v & 1 ? &p->ports[v >> 1].mark : &p->flows[v >> 1].mark;
}

/* Search i reaches vertex v: claims it, or meets the search that has it. */
static void search_visit(struct wh_parts *p, uint32_t i, uint32_t v)
{
	struct mark *mk = v_mark(p, v);
	struct search *s = p->search;
	if (mk->epoch == p->epoch) {
		uint32_t a = search_root(s, i), b = search_root(s, mk->search);
		if (a != b)
			s[a > b ? a : b].parent = a < b ? a : b;
		return;
	}
	mk->epoch = p->epoch;
	mk->search = i;
	mk->snext = s[i].stack;
	s[i].stack = v;
	mk->vnext = s[i].visited;
	s[i].visited = v;
	s[i].size++;
}

static bool search_running(const struct search *s)
{
	return s->cur != NIL || s->stack != NIL;
}

/* Search i takes one step: one edge of the vertex it is going through
 * (the removed flow `gone` is no longer a neighbour). */
static void search_step(struct wh_parts *p, uint32_t i, uint32_t gone)
{
	struct search *s = &p->search[i];
	if (s->cur == NIL) {
		s->cur = s->stack;
		s->at = 0;
		s->stack = v_mark(p, s->cur)->snext;
	}
	uint32_t v = s->cur, k = s->at++, deg;
	if (v & 1) {
		const struct port *pt = &p->ports[v >> 1];
		deg = pt->n_users;
		if (k < deg && pt->users[k].flow != gone)
			search_visit(p, i, V_FLOW(pt->users[k].flow));
	} else {
		const struct flow *fl = &p->flows[v >> 1];
		deg = fl->n_ports;
		if (k < deg)
			search_visit(p, i, V_PORT(fl->ports[fl->n_ports + k]));
	}
	if (k + 1 >= deg)
		s->cur = NIL;
}

static void next_epoch(struct wh_parts *p)
{
	if (++p->epoch)
		return;
	for (uint32_t i = 0; i < p->n_flows; i++)
		p->flows[i].mark.epoch = 0;
	for (uint32_t i = 0; i < p->n_ports; i++)
		p->ports[i].mark.epoch = 0;
	p->epoch = 1;
}

/* Groups of searches (roots) left, and how many of them still run. */
static void search_count(struct wh_parts *p, uint32_t k, uint32_t *groups, uint32_t *running)
{
	struct search *s = p->search;
	*groups = *running = 0;
	for (uint32_t i = 0; i < k; i++)
		s[i].running = false;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t r = search_root(s, i);
		if (r == i)
			(*groups)++;
		if (search_running(&s[i]) && !s[r].running) {
			s[r].running = true;
			(*running)++;
		}
	}
}

static void drop_pieces(struct wh_parts *p, uint32_t k)
{
	for (uint32_t i = 0; i < k; i++)
		if (p->search[i].body != NIL) {
			drop_body(p, p->search[i].body);
			p->search[i].body = NIL;
		}
}

/* One search from each port of flow f that another flow still uses, each
 * having visited its port; returns how many.  The flow itself is skipped,
 * so nothing changes until the end. */
static uint32_t remove_start_searches(struct wh_parts *p, uint32_t f)
{
	const struct flow *fl = &p->flows[f];
	const uint32_t *slot = fl->ports + fl->n_ports;
	struct search *s = p->search;
	uint32_t k = 0;
	next_epoch(p);
	for (uint32_t i = 0; i < fl->n_ports; i++) {
		if (p->ports[slot[i]].n_users < 2)
			continue;
		s[k] = (struct search){ .cur = NIL, .stack = NIL, .visited = NIL, .parent = k,
					.body = NIL };
		search_visit(p, k, V_PORT(slot[i]));
		k++;
	}
	return k;
}

/* Steps the k searches in turn (flow f left out) while two groups are apart
 * and two still run: when it stops, every group but one holds a whole
 * piece.  Returns the groups left. */
static uint32_t remove_run_searches(struct wh_parts *p, uint32_t k, uint32_t f)
{
	struct search *s = p->search;
	uint32_t groups = k, running = k;
	while (groups > 1 && running > 1) {
		for (uint32_t i = 0; i < k; i++)
			if (search_running(&s[i]))
				search_step(p, i, f);
		search_count(p, k, &groups, &running);
	}
	return groups;
}

/* The piece that keeps the body: the one still searched, or the biggest
 * (a root search; NIL when nothing splits off). */
static uint32_t remove_pick_kept_piece(struct wh_parts *p, uint32_t k, uint32_t pieces)
{
	struct search *s = p->search;
	uint32_t keep = NIL;
	if (!pieces)
		return NIL;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t r = search_root(s, i);
		if (r != i)
			s[r].size += s[i].size;
	}
	for (uint32_t i = 0; i < k; i++) {
		if (search_root(s, i) != i)
			continue;
		if (s[i].running) {
			keep = i;
			break;
		}
		if (keep == NIL || s[i].size > s[keep].size)
			keep = i;
	}
	return keep;
}

/* Bodies for the pieces split off, sized from what their searches visited;
 * on failure none is left. */
static int remove_reserve_pieces(struct wh_parts *p, uint32_t k, uint32_t keep,
				 uint32_t pieces)
{
	struct search *s = p->search;
	for (uint32_t i = 0; i < k && pieces; i++) {
		if (search_root(s, i) != i || i == keep)
			continue;
		struct body fresh = { 0 };
		uint32_t nf = 0, nports = 0;
		for (uint32_t j = 0; j < k; j++) {
			if (search_root(s, j) != i)
				continue;
			for (uint32_t v = s[j].visited; v != NIL; v = v_mark(p, v)->vnext) {
				nports += v & 1;
				nf += !(v & 1);
			}
		}
		if (reserve_body(&fresh, nf, nports)) {
			vec_free(&fresh.flows);
			vec_free(&fresh.sflows);
			vec_free(&fresh.ports);
			vec_free(&fresh.sports);
			drop_pieces(p, k);
			return -1;
		}
		s[i].body = take_body(p);
		p->bodies[s[i].body] = fresh;
		p->bodies[s[i].body].id = NIL;
	}
	return 0;
}

/* Flow f (id `flow`) leaves its ports, which are freed when it was their
 * last user, and its body; its record is freed. */
static void remove_unlink_flow(struct wh_parts *p, uint32_t f, uint32_t flow)
{
	struct flow *fl = &p->flows[f];
	uint32_t np = fl->n_ports;
	const uint32_t *slot = fl->ports + np;
	for (uint32_t i = 0; i < np; i++) {
		struct port *pt = &p->ports[slot[i]];
		uint32_t at = fl->ports[2 * np + i];
		struct use last = pt->users[--pt->n_users];
		if (at != pt->n_users) {
			struct flow *moved = &p->flows[last.flow];
			pt->users[at] = last;
			moved->ports[2 * moved->n_ports + last.k] = at;
		}
		if (pt->n_users)
			continue;
		body_del_port(p, slot[i]);
		map_del(&p->port_map, pt->id);
		free(pt->users);
		pt->users = NULL;
		pt->cap_users = 0;
		p->free_ports.v[p->free_ports.n++] = slot[i];
	}
	body_del_flow(p, f);
	map_del(&p->flow_map, flow);
	free(fl->ports);
	fl->ports = NULL;
	p->free_flows.v[p->free_flows.n++] = f;
}

/* The pieces split off move out of body b into their own bodies; b and
 * they get new ids (in p->born, ascending). */
static void remove_split_body(struct wh_parts *p, uint32_t b, uint32_t k, uint32_t keep,
			      uint32_t pieces)
{
	struct search *s = p->search;
	for (uint32_t i = 0; i < k && pieces; i++) {
		uint32_t r = search_root(s, i);
		if (r == keep)
			continue;
		for (uint32_t v = s[i].visited; v != NIL; v = v_mark(p, v)->vnext) {
			if (v & 1) {
				body_del_port(p, v >> 1);
				body_add_port(p, s[r].body, v >> 1);
			} else {
				body_del_flow(p, v >> 1);
				body_add_flow(p, s[r].body, v >> 1);
			}
		}
	}
	p->born.v[p->born.n++] = take_id(p, b);
	for (uint32_t i = 0; i < k && pieces; i++)
		if (s[i].body != NIL)
			p->born.v[p->born.n++] = take_id(p, s[i].body);
	p->born.n = sort_unique(p->born.v, p->born.n);
}

int wh_parts_remove(struct wh_parts *p, uint32_t flow, struct wh_change *ch)
{
	uint32_t f = map_get(&p->flow_map, flow);
	if (f == NIL)
		return -1;
	uint32_t b = p->flows[f].body;
	if (grow((void **)&p->search, &p->cap_search, p->flows[f].n_ports, sizeof *p->search))
		return -1;
	/* the pieces left are found from the ports other flows still use */
	uint32_t k = remove_start_searches(p, f);
	uint32_t groups = remove_run_searches(p, k, f);
	uint32_t pieces = groups > 1 ? groups - 1 : 0;
	uint32_t keep = remove_pick_kept_piece(p, k, pieces);
	bool alone = p->bodies[b].flows.n == 1;
	uint32_t nborn = alone ? 0 : 1 + pieces;
	if (reserve_flows(p, 0) || reserve_ports(p, 0) || reserve_bodies(p, pieces) ||
	    reserve_ids(p, nborn) ||
	    vec_reserve(&p->dead, 1) || vec_reserve(&p->born, nborn))
		return -1;
	if (remove_reserve_pieces(p, k, keep, pieces))
		return -1;

	/* nothing can fail from here */
	remove_unlink_flow(p, f, flow);
	uint32_t old = p->bodies[b].id;
	p->dead.n = 0;
	p->born.n = 0;
	p->dead.v[p->dead.n++] = old;
	if (alone)
		drop_body(p, b);
	else
		remove_split_body(p, b, k, keep, pieces);
	drop_id(p, old);
	set_change(p, ch);
	return 0;
}

/* ---- queries ------------------------------------------------------------------- */

uint32_t wh_parts_of(const struct wh_parts *p, uint32_t flow)
{
	uint32_t f = map_get(&p->flow_map, flow);
	return f == NIL ? WH_NONE : p->bodies[p->flows[f].body].id;
}

static struct body *live_body(const struct wh_parts *p, uint32_t part)
{
	if (part >= p->id_body.n || p->id_body.v[part] == NIL)
		return NULL;
	return &p->bodies[p->id_body.v[part]];
}

uint32_t wh_parts_flows(const struct wh_parts *p, uint32_t part, const uint32_t **flows)
{
	struct body *bd = live_body(p, part);
	if (!bd) {
		*flows = NULL;
		return 0;
	}
	body_sort_flows(p, bd);
	*flows = bd->sflows.v;
	return bd->sflows.n;
}

uint32_t wh_parts_n_flows(const struct wh_parts *p, uint32_t part)
{
	const struct body *bd = live_body(p, part);
	return bd ? bd->flows.n : 0;
}

uint32_t wh_parts_ports(const struct wh_parts *p, uint32_t part, const uint32_t **ports)
{
	struct body *bd = live_body(p, part);
	if (!bd) {
		*ports = NULL;
		return 0;
	}
	body_sort_ports(p, bd);
	*ports = bd->sports.v;
	return bd->sports.n;
}

uint32_t wh_parts_flow_ports(const struct wh_parts *p, uint32_t flow, const uint32_t **ports)
{
	uint32_t f = map_get(&p->flow_map, flow);
	if (f == NIL) {
		*ports = NULL;
		return 0;
	}
	*ports = p->flows[f].ports;
	return p->flows[f].n_ports;
}

uint32_t wh_parts_count(const struct wh_parts *p)
{
	return p->live;
}

uint32_t wh_parts_list(struct wh_parts *p, const uint32_t **ids)
{
	p->list.n = 0;
	if (vec_reserve(&p->list, p->live)) {
		*ids = NULL;
		return 0;
	}
	for (uint32_t i = 0; i < p->id_body.n; i++)
		if (p->id_body.v[i] != NIL)
			p->list.v[p->list.n++] = i;
	*ids = p->list.v;
	return p->list.n;
}
