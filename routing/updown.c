/* SPDX-License-Identifier: MIT */
/*
 * updown: hierarchical-address up/down routing for trees (fat-trees, Clos,
 * rail-optimized fabrics), with no per-destination table, switch-side load
 * balancing and failures.
 *
 * A switch covers the hosts whose address starts with its prefix (its first
 * addr_len digits).  If the destination is covered, the packet goes down
 * one of the down_group ports toward the destination's next digit;
 * otherwise it goes up one of the up ports.  A host with several ports (one
 * per plane) chooses among them as a switch among its up ports.  Paths are
 * up/down shortest: up to the first switch that covers the destination,
 * then down.  The ports of that group are the equal-cost candidates.
 *
 * Load balancing (`lb`) chooses among the candidates still usable:
 *   ecmp     xxHash of the 5-tuple seeded with the switch id: a flow keeps
 *            one path (the default; a flow's entropy value is its sport);
 *   spray    per packet, at random (a per-switch stream of the run seed) or
 *            round robin (a per-switch counter);
 *   flowlet  a flow keeps its port while its packets arrive less than
 *            flowlet_gap apart; a new flowlet draws a port at random, as
 *            LetFlow (Vanini et al., NSDI 2017); a fixed table per switch
 *            indexed by the flow's hash, colliding flows share an entry;
 *   adaptive the least-loaded candidate by bytes queued (equal queues,
 *            empty ones most often, broken at random per packet as
 *            adaptive routing does, or by the ECMP hash with
 *            `adaptive_ties = hash`), over all of them or over
 *            `adaptive_choices` distinct
 *            ones drawn at random (power of two choices, as DRILL,
 *            Ghorbani et al., SIGCOMM 2017; all of them when there are no
 *            more candidates than that).
 * ACK, NACK and CNP packets and probes (flow == WS_NONE) always take the
 * ECMP choice and change no state.  Under [sim] ecmp = ns3 the ECMP choice
 * is the ns-3 reference's (ud_ns3_pick).
 *
 * Failures.  A switch never chooses a port whose link it sees down
 * (ws_port_up).  Links elsewhere are learned through link_change, which
 * only records the link; the summary is rebuilt at the next decision, so
 * links failing at one instant are folded in once.  The summary
 * (docs/routing.md, "Failures") holds, per failed link between a parent
 * and a child C, the affected prefix c (C's prefix), the set U_c of
 * switches that cannot reach any host under c (built by walking from the
 * link's parent through neighbours only), and at the switches next to a
 * member the mask of their ports that lead to members.  A per-node climb
 * (how many tiers a node can still go up) covers switches whose way up is
 * cut.  A decision for destination d ORs the masks of the affected
 * prefixes of d (at most depth + 1 lookups) and drops the climb-dead up
 * ports; a prefix that nothing outside its block can reach is flagged
 * instead of enumerated.  With no candidate left the rule returns
 * WS_PORT_NONE and the kernel drops the packet.
 */
#include <stdlib.h>
#include <string.h>

#include <warpsim/warpsim.h>

enum { UD_LB_ECMP, UD_LB_SPRAY, UD_LB_FLOWLET, UD_LB_ADAPTIVE };
enum { UD_SPRAY_RANDOM, UD_SPRAY_ROUND_ROBIN };
enum { UD_TIES_RANDOM, UD_TIES_HASH };

static const char *const ud_lbs[] = { "ecmp", "spray", "flowlet", "adaptive", NULL };
static const char *const ud_spray_modes[] = { "random", "round_robin", NULL };
static const char *const ud_ties[] = { "random", "hash", NULL };

#define UD_GOLDEN 0x9e3779b97f4a7c15ull
#define UD_RNG_SALT 0x7564ull /* "ud": this rule's RNG component ids */
#define UD_NIL UINT32_MAX
#define UD_EMPTY UINT64_MAX
#define UD_CLIMB_TOP 255u /* a top-tier switch: no climbing needed */
#define UD_MAX_WORDS ((65535u + 63u) / 64u) /* words of a port mask */

struct updown_conf {
	uint64_t ecmp_seed;
	int lb;
	int spray_mode;
	ws_time flowlet_gap;
	uint64_t flowlet_table;
	uint64_t adaptive_choices;
	int adaptive_ties;
};

static const struct ws_param updown_params[] = {
	WS_PARAM_UINT("ecmp_seed", struct updown_conf, ecmp_seed, "0", "0", NULL,
		      "mixed into every switch's ECMP hash seed: another value, other paths"),
	WS_PARAM_ENUM("lb", struct updown_conf, lb, "ecmp", ud_lbs,
		      "choice among equal-cost ports: ecmp (per flow), spray (per packet), flowlet, adaptive (least queued)"),
	WS_PARAM_ENUM("spray_mode", struct updown_conf, spray_mode, "random", ud_spray_modes,
		      "lb = spray: a per-switch random stream, or a per-switch round-robin counter"),
	WS_PARAM_TIME("flowlet_gap", struct updown_conf, flowlet_gap, "50us", "0s", "1s",
		      "lb = flowlet: a gap this long between a flow's packets at a switch starts a new flowlet"),
	WS_PARAM_UINT("flowlet_table", struct updown_conf, flowlet_table, "1024", "1", "16777216",
		      "lb = flowlet: entries of each switch's flowlet table (flows hashed into it share entries)"),
	WS_PARAM_UINT("adaptive_choices", struct updown_conf, adaptive_choices, "0", "0", "64",
		      "lb = adaptive: 0 compares every candidate; k >= 2 compares k drawn at random (2: DRILL)"),
	WS_PARAM_ENUM("adaptive_ties", struct updown_conf, adaptive_ties, "random", ud_ties,
		      "lb = adaptive, every candidate compared: equal queues broken at random (per packet, as adaptive routing), or by the ECMP hash (a flow stays put while queues are equal)"),
	WS_PARAM_END
};

/* One flowlet table entry: a flow (or the flows hashed with it). */
struct ud_flowlet {
	ws_time last;  /* last data packet of the entry at this switch */
	uint32_t port; /* the port its flowlet uses; UD_NIL: none yet */
	uint32_t reserved;
};

/* An open-addressing map of 64-bit keys to 32-bit values. */
struct ud_slot {
	uint64_t key; /* UD_EMPTY: free */
	uint32_t val;
	uint32_t reserved;
};

struct ud_map {
	struct ud_slot *slot;
	uint32_t mask; /* capacity - 1, capacity a power of two */
	uint32_t count;
};

/* The masks decisions read: a port mask kept in the slot itself for nodes
 * of up to 128 ports (one cache line holds key and mask), else m[0] is
 * the mask's first word in the pool. */
struct ud_eslot {
	uint64_t key; /* (node << 32 | prefix); UD_EMPTY: free */
	uint64_t m[2];
};

struct ud_etab {
	struct ud_eslot *slot;
	uint32_t mask;
	uint32_t count;
};

/* A destination prefix under a failed link. */
struct ud_prefix {
	uint32_t digit[WS_ADDR_DIGITS];
	uint8_t len;
	uint8_t gdead;       /* no node outside its block reaches it */
	uint16_t reserved;
	uint32_t next;       /* another prefix of the same hash, or UD_NIL */
	uint32_t parents;    /* members right above its top switches */
	uint32_t first_seed; /* its failed links' parent ends: seed[first..+n) */
	uint32_t n_seeds;
	uint32_t first_member; /* U_c: mem[first..+n) */
	uint32_t n_members;
};

/* A stack of nodes to examine. */
struct ud_stack {
	uint32_t *v;
	uint32_t n, cap;
};

/* Per node, packed so that a decision touches one cache line. */
struct ud_node {
	uint32_t mword;    /* first word of its port masks */
	uint8_t climb;     /* tiers it can still go up */
	uint8_t upmin;     /* least climb of its live parents */
	uint8_t has_entry; /* some mask is kept for it */
	uint8_t down_any;  /* some port of it is known down */
};

/* What the rule knows of failures: the links it was told of and the summary. */
struct ud_fail {
	uint32_t *peer_node;   /* per global port: the node at the other end */
	uint16_t *peer_local;  /* per global port: its port there */
	struct ud_node *node;  /* per node: what a decision reads first */
	uint32_t n_words;
	uint64_t *down;        /* per node, n_words words: links known down */
	uint32_t n_down;       /* links known down */
	bool dirty;            /* the summary is older than `down` */
	uint32_t *by_level;    /* node ids, highest level first */
	struct ud_map tops;    /* prefix hash -> switches with that prefix */
	/* the summary, rebuilt from `down` (and node[].climb ... down_any) */
	struct ud_prefix *pre;
	uint32_t n_pre, cap_pre;
	struct ud_map pre_map; /* prefix hash -> first prefix of that hash */
	uint32_t len_mask;     /* bit l: an affected prefix has l digits */
	uint32_t *mem;         /* the U_c of every prefix, one after the other */
	uint32_t n_mem, cap_mem;
	uint32_t gen;          /* counts solves; stamps equal to it are current */
	uint32_t *stamp;       /* per node: gen when in U_c or an ancestor's */
	uint32_t *estamp;      /* per node: gen when it has an entry for c */
	uint32_t *eoff;        /* per node: that entry's first word in pool */
	struct ud_map entry;   /* (node << 32 | prefix) -> mask in pool */
	struct ud_etab etab;   /* the same, as decisions read it */
	uint64_t *pool;
	size_t n_pool, cap_pool;
	uint64_t *seed_pair;   /* (prefix << 32 | parent) of each failed link */
	uint32_t *seed;        /* parents grouped by prefix */
	uint32_t n_seed_pair, cap_seed_pair;
	struct ud_stack cover, climbers; /* nodes to examine for one prefix */
};

struct ud_state {
	struct ws_rng *rng;       /* per node (spray random, flowlet, adaptive) */
	uint32_t *rr;             /* per node (spray round robin) */
	struct ud_flowlet **fl;   /* per node, allocated at its first packet */
	uint32_t n_nodes;
	struct ud_fail *fail;     /* NULL until the first link_change */
	const uint64_t *changes;  /* the kernel's count of link changes */
	uint64_t *ns3_key;        /* per global port: ws_ns3_order_key of its
				   * peer, under [sim] ecmp = ns3 (else NULL) */
	uint32_t n_ns3_key;
};

/* ---- small tools ---------------------------------------------------------- */

static inline uint64_t updown_hash(const struct updown_conf *c,
				   const struct ws_node *at,
				   const struct ws_pkt *p)
{
	return ws_flow_hash(p, (uint64_t)at->id ^ (c->ecmp_seed * UD_GOLDEN));
}

/* The hash of prefix digits[0..len), extended one digit at a time. */
static inline uint64_t ud_prefix_step(uint64_t h, uint32_t digit)
{
	return ws_mix64(h ^ (digit + UD_GOLDEN));
}

static inline uint64_t ud_prefix_hash(const uint32_t *digit, uint32_t len)
{
	uint64_t h = 0;
	for (uint32_t i = 0; i < len; i++)
		h = ud_prefix_step(h, digit[i]);
	return ws_mix64(h ^ ((uint64_t)len << 56));
}

/* The hash of a prefix whose digits were folded into h by ud_prefix_step. */
static inline uint64_t ud_prefix_close(uint64_t h, uint32_t len)
{
	return ws_mix64(h ^ ((uint64_t)len << 56));
}

/* Digits two addresses share, up to `len`. */
static inline uint32_t ud_match(const uint32_t *a, const uint32_t *b, uint32_t len)
{
	uint32_t i = 0;
	while (i < len && a[i] == b[i])
		i++;
	return i;
}

static uint32_t *ud_map_find(const struct ud_map *m, uint64_t k)
{
	if (!m->count)
		return NULL;
	for (uint32_t i = (uint32_t)ws_mix64(k) & m->mask;; i = (i + 1) & m->mask) {
		if (m->slot[i].key == k)
			return &m->slot[i].val;
		if (m->slot[i].key == UD_EMPTY)
			return NULL;
	}
}

static int ud_map_grow(struct ud_map *m)
{
	const uint32_t cap = m->slot ? (m->mask + 1) * 2 : 1024;
	struct ud_slot *slot = malloc(cap * sizeof *slot);
	if (!slot)
		return WS_ENOMEM;
	for (uint32_t i = 0; i < cap; i++)
		slot[i].key = UD_EMPTY;
	for (uint32_t i = 0; m->slot && i <= m->mask; i++) {
		if (m->slot[i].key == UD_EMPTY)
			continue;
		uint32_t j = (uint32_t)ws_mix64(m->slot[i].key) & (cap - 1);
		while (slot[j].key != UD_EMPTY)
			j = (j + 1) & (cap - 1);
		slot[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = slot;
	m->mask = cap - 1;
	return WS_OK;
}

/* The value slot of `k`, inserted with `v` when absent; NULL: no memory. */
static uint32_t *ud_map_put(struct ud_map *m, uint64_t k, uint32_t v, bool *added)
{
	*added = false;
	if ((!m->slot || (m->count + 1) * 2 > m->mask + 1) && ud_map_grow(m))
		return NULL;
	uint32_t i = (uint32_t)ws_mix64(k) & m->mask;
	while (m->slot[i].key != UD_EMPTY) {
		if (m->slot[i].key == k)
			return &m->slot[i].val;
		i = (i + 1) & m->mask;
	}
	m->slot[i].key = k;
	m->slot[i].val = v;
	m->count++;
	*added = true;
	return &m->slot[i].val;
}

static void ud_map_clear(struct ud_map *m)
{
	for (uint32_t i = 0; m->slot && m->count && i <= m->mask; i++)
		m->slot[i].key = UD_EMPTY;
	m->count = 0;
}

static void ud_map_free(struct ud_map *m)
{
	free(m->slot);
	memset(m, 0, sizeof *m);
}

static int ud_push(struct ud_stack *s, uint32_t v)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 256;
		uint32_t *nv = realloc(s->v, cap * sizeof *nv);
		if (!nv)
			return WS_ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return WS_OK;
}

static inline bool ud_bit(const uint64_t *w, uint32_t i)
{
	return (w[i >> 6] >> (i & 63)) & 1u;
}

/* ---- candidates and load balancing ---------------------------------------- */

/* The equal-cost ports [lo, lo + n) at a node; `live` (NULL: all of them)
 * holds the usable ones as bits of port numbers, `count` of them. */
struct ud_cands {
	uint32_t lo, n, count;
	const uint64_t *live;
};

/* The k-th usable candidate, in port order. */
static inline uint32_t ud_cand_port(const struct ud_cands *c, uint32_t k)
{
	if (!c->live)
		return c->lo + k;
	for (uint32_t w = c->lo >> 6;; w++) {
		uint64_t bits = c->live[w];
		uint32_t pc = (uint32_t)__builtin_popcountll(bits);
		if (k >= pc) {
			k -= pc;
			continue;
		}
		while (k--)
			bits &= bits - 1;
		return w * 64 + (uint32_t)__builtin_ctzll(bits);
	}
}

static bool ud_cand_has(const struct ud_cands *c, uint32_t port)
{
	if (port < c->lo || port >= c->lo + c->n)
		return false;
	return !c->live || ud_bit(c->live, port);
}

static struct ud_flowlet *ud_flowlets(struct ws_inst *inst, uint32_t node)
{
	const struct updown_conf *c = inst->conf;
	struct ud_state *s = inst->state;
	if (!s->fl[node]) {
		struct ud_flowlet *t = malloc(c->flowlet_table * sizeof *t);
		if (!t)
			return NULL;
		for (uint64_t i = 0; i < c->flowlet_table; i++)
			t[i] = (struct ud_flowlet){ .last = 0, .port = UD_NIL };
		s->fl[node] = t;
	}
	return s->fl[node];
}

/* lb = flowlet: the entry's port while its gaps stay short, else a new draw. */
static uint32_t ud_flowlet(struct ws_inst *inst, const struct ws_node *at,
			   const struct ud_cands *cd, uint64_t hash)
{
	const struct updown_conf *c = inst->conf;
	struct ud_state *s = inst->state;
	struct ud_flowlet *t = ud_flowlets(inst, at->id);
	if (!t) {
		struct ws_err e;
		ws_err_set(&e, WS_ENOMEM, "routing updown: no memory for the flowlet "
			   "table of node %u", at->id);
		ws_fail(inst->sim, &e);
		return ud_cand_port(cd, (uint32_t)(hash % cd->count));
	}
	struct ud_flowlet *f = &t[ws_mix64(hash) % c->flowlet_table];
	const ws_time now = ws_now(inst->sim);
	if (f->port == UD_NIL || now - f->last >= c->flowlet_gap ||
	    !ud_cand_has(cd, f->port))
		f->port = ud_cand_port(cd, (uint32_t)ws_rng_below(&s->rng[at->id],
								 cd->count));
	f->last = now;
	return f->port;
}

/* lb = adaptive: the least bytes queued, ties as adaptive_ties says. */
static uint32_t ud_adaptive(struct ws_inst *inst, const struct ws_node *at,
			    const struct ud_cands *cd, uint64_t hash)
{
	const struct updown_conf *c = inst->conf;
	struct ud_state *s = inst->state;
	if (c->adaptive_choices >= 2 && c->adaptive_choices < cd->count) {
		/* k distinct candidates at random, the least loaded (first drawn on ties) */
		uint32_t drawn[64], best = WS_PORT_NONE;
		uint64_t best_q = UINT64_MAX;
		for (uint32_t i = 0; i < c->adaptive_choices; i++) {
			uint32_t k, j;
			do {
				k = (uint32_t)ws_rng_below(&s->rng[at->id], cd->count);
				for (j = 0; j < i && drawn[j] != k; j++)
					;
			} while (j < i);
			drawn[i] = k;
			uint32_t port = ud_cand_port(cd, k);
			uint64_t q = ws_port_queue_bytes(inst->sim, at->id, port);
			if (q < best_q) {
				best_q = q;
				best = port;
			}
		}
		return best;
	}
	uint64_t best_q = UINT64_MAX;
	uint32_t ties = 0;
	for (uint32_t k = 0; k < cd->count; k++) {
		uint64_t q = ws_port_queue_bytes(inst->sim, at->id, ud_cand_port(cd, k));
		if (q < best_q) {
			best_q = q;
			ties = 1;
		} else if (q == best_q) {
			ties++;
		}
	}
	/* empty queues are the common case below saturation: at random, the
	 * load spreads packet by packet; by the hash, a flow keeps its port */
	uint32_t pick = ties == 1 ? 0
		      : c->adaptive_ties == UD_TIES_HASH ? (uint32_t)(hash % ties)
		      : (uint32_t)ws_rng_below(&s->rng[at->id], ties);
	for (uint32_t k = 0;; k++) {
		uint32_t port = ud_cand_port(cd, k);
		if (ws_port_queue_bytes(inst->sim, at->id, port) == best_q && !pick--)
			return port;
	}
}

/*
 * [sim] ecmp = ns3: the candidate the ns-3 reference's hash picks, its next
 * hops listed in its order (ws_ns3_order_key of the switch each port leads
 * to: on a fat-tree that the reference numbers as warpsim does, the same
 * list its breadth-first search builds).
 */
static uint32_t ud_ns3_pick(const struct ud_state *s, const struct ws_node *at,
			    const struct ws_pkt *p, const struct ud_cands *cd)
{
	const uint32_t pick = ws_ns3_ecmp_hash(p, at->id) % cd->count;
	const uint64_t *key = s->ns3_key + at->first_port;
	for (uint32_t i = 0; i < cd->count; i++) {
		const uint32_t port = ud_cand_port(cd, i);
		uint32_t before = 0;
		for (uint32_t j = 0; j < cd->count; j++)
			before += key[ud_cand_port(cd, j)] < key[port];
		if (before == pick)
			return port;
	}
	return WS_PORT_NONE;
}

/* One port among the usable candidates, as `lb` says. */
static uint32_t ud_choose(struct ws_inst *inst, const struct ws_node *at,
			  const struct ws_pkt *p, const struct ud_cands *cd)
{
	const struct updown_conf *c = inst->conf;
	struct ud_state *s = inst->state;
	if (cd->count == 1)
		return ud_cand_port(cd, 0);
	int lb = c->lb;
	if (p->flow == WS_NONE || p->type != WS_PKT_DATA)
		lb = UD_LB_ECMP;
	switch (lb) {
	case UD_LB_SPRAY:
		if (c->spray_mode == UD_SPRAY_ROUND_ROBIN)
			return ud_cand_port(cd, s->rr[at->id]++ % cd->count);
		return ud_cand_port(cd, (uint32_t)ws_rng_below(&s->rng[at->id], cd->count));
	case UD_LB_FLOWLET:
		return ud_flowlet(inst, at, cd, updown_hash(c, at, p));
	case UD_LB_ADAPTIVE:
		return ud_adaptive(inst, at, cd, updown_hash(c, at, p));
	default:
		if (s->ns3_key)
			return ud_ns3_pick(s, at, p, cd);
		return ud_cand_port(cd, (uint32_t)(updown_hash(c, at, p) % cd->count));
	}
}

/* ---- the failure summary -------------------------------------------------- */

static void ud_fail_free(struct ud_fail *f)
{
	if (!f)
		return;
	free(f->peer_node);
	free(f->peer_local);
	free(f->node);
	free(f->down);
	free(f->by_level);
	ud_map_free(&f->tops);
	free(f->pre);
	ud_map_free(&f->pre_map);
	free(f->mem);
	free(f->stamp);
	free(f->estamp);
	free(f->eoff);
	ud_map_free(&f->entry);
	free(f->etab.slot);
	free(f->pool);
	free(f->seed_pair);
	free(f->seed);
	free(f->cover.v);
	free(f->climbers.v);
	free(f);
}

/* Switches per prefix (the top switches of each block) and nodes by level. */
static int ud_fail_index(struct ud_fail *f, const struct ws_fabric *fab)
{
	uint32_t max_level = 0;
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		if (n->level > max_level)
			max_level = n->level;
		if (n->kind != WS_NODE_SWITCH)
			continue;
		bool added;
		uint32_t *v = ud_map_put(&f->tops, ud_prefix_hash(n->addr, n->addr_len),
					 0, &added);
		if (!v)
			return WS_ENOMEM;
		(*v)++;
	}
	uint32_t k = 0;
	for (uint32_t l = max_level + 1; l-- > 0;)
		for (uint32_t i = 0; i < fab->n_nodes; i++)
			if (ws_node_get(fab, i)->level == l)
				f->by_level[k++] = i;
	return WS_OK;
}

static struct ud_fail *ud_fail_new(struct ws_inst *inst, const struct ws_fabric *fab)
{
	struct ud_fail *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	const uint32_t nn = fab->n_nodes;
	f->peer_node = malloc(fab->n_ports * sizeof *f->peer_node);
	f->peer_local = malloc(fab->n_ports * sizeof *f->peer_local);
	f->node = calloc(nn, sizeof *f->node);
	f->by_level = malloc(nn * sizeof *f->by_level);
	f->stamp = calloc(nn, sizeof *f->stamp);
	f->estamp = calloc(nn, sizeof *f->estamp);
	f->eoff = malloc(nn * sizeof *f->eoff);
	if (!f->peer_node || !f->peer_local || !f->node || !f->by_level ||
	    !f->stamp || !f->estamp ||
	    !f->eoff)
		goto fail;
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	for (uint32_t i = 0; i < nn; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		f->node[i].mword = f->n_words;
		f->n_words += (n->n_ports + 63u) / 64u;
		for (uint32_t l = 0; l < n->n_ports; l++) {
			pi.peer_node = WS_NONE;
			pi.peer_local = 0;
			ws_port_info(inst->sim, i, l, &pi);
			f->peer_node[n->first_port + l] = pi.peer_node;
			f->peer_local[n->first_port + l] = (uint16_t)pi.peer_local;
		}
	}
	f->down = calloc(f->n_words ? f->n_words : 1, sizeof *f->down);
	if (!f->down || ud_fail_index(f, fab))
		goto fail;
	/* a port on no link is never a candidate, nor a failed link */
	for (uint32_t i = 0; i < nn; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		for (uint32_t l = 0; l < n->n_ports; l++)
			if (f->peer_node[n->first_port + l] == WS_NONE)
				f->down[f->node[i].mword + (l >> 6)] |= 1ull << (l & 63);
	}
	return f;
fail:
	ud_fail_free(f);
	return NULL;
}

/* climb: 0 with no live up port, else 1 + the best live parent's (saturating). */
static void ud_climb(struct ud_fail *f, const struct ws_fabric *fab)
{
	for (uint32_t k = 0; k < fab->n_nodes; k++) {
		const uint32_t x = f->by_level[k];
		const struct ws_node *n = ws_node_get(fab, x);
		const uint64_t *dn = &f->down[f->node[x].mword];
		if (n->n_up == 0) {
			f->node[x].climb = f->node[x].upmin = UD_CLIMB_TOP;
			continue;
		}
		uint32_t best = 0, least = UD_CLIMB_TOP;
		bool any = false;
		for (uint32_t p = n->n_down; p < n->n_ports; p++) {
			if (ud_bit(dn, p))
				continue;
			uint32_t c = f->node[f->peer_node[n->first_port + p]].climb;
			any = true;
			best = c > best ? c : best;
			least = c < least ? c : least;
		}
		f->node[x].climb = !any ? 0 : best >= UD_CLIMB_TOP - 1 ? UD_CLIMB_TOP
								  : (uint8_t)(best + 1);
		f->node[x].upmin = (uint8_t)least;
	}
}

/* The prefix record of digits[0..len) with hash h, or UD_NIL. */
static uint32_t ud_prefix_find(const struct ud_fail *f, const uint32_t *digit,
			       uint32_t len, uint64_t h)
{
	const uint32_t *v = ud_map_find(&f->pre_map, h);
	for (uint32_t i = v ? *v : UD_NIL; i != UD_NIL; i = f->pre[i].next)
		if (f->pre[i].len == len &&
		    !memcmp(f->pre[i].digit, digit, len * sizeof *digit))
			return i;
	return UD_NIL;
}

static uint32_t ud_prefix_add(struct ud_fail *f, const uint32_t *digit, uint32_t len)
{
	const uint64_t h = ud_prefix_hash(digit, len);
	uint32_t i = ud_prefix_find(f, digit, len, h);
	if (i != UD_NIL)
		return i;
	if (f->n_pre == f->cap_pre) {
		uint32_t cap = f->cap_pre ? f->cap_pre * 2 : 64;
		struct ud_prefix *np = realloc(f->pre, cap * sizeof *np);
		if (!np)
			return UD_NIL;
		f->pre = np;
		f->cap_pre = cap;
	}
	bool added;
	uint32_t *head = ud_map_put(&f->pre_map, h, UD_NIL, &added);
	if (!head)
		return UD_NIL;
	i = f->n_pre++;
	struct ud_prefix *r = &f->pre[i];
	memset(r, 0, sizeof *r);
	memcpy(r->digit, digit, len * sizeof *digit);
	r->len = (uint8_t)len;
	r->next = *head;
	*head = i;
	f->len_mask |= 1u << len;
	return i;
}

static int ud_cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Every failed link's child prefix, and its parent end as a seed. */
static int ud_collect(struct ud_fail *f, const struct ws_fabric *fab)
{
	f->n_seed_pair = 0;
	for (uint32_t x = 0; x < fab->n_nodes; x++) {
		const struct ws_node *n = ws_node_get(fab, x);
		const uint64_t *dn = &f->down[f->node[x].mword];
		for (uint32_t p = n->n_down; p < n->n_ports; p++) {
			if (!ud_bit(dn, p) || f->peer_node[n->first_port + p] == WS_NONE)
				continue;
			uint32_t pid = ud_prefix_add(f, n->addr, n->addr_len);
			if (pid == UD_NIL)
				return WS_ENOMEM;
			if (f->n_seed_pair == f->cap_seed_pair) {
				uint32_t cap = f->cap_seed_pair ? f->cap_seed_pair * 2 : 256;
				uint64_t *np = realloc(f->seed_pair, cap * sizeof *np);
				uint32_t *ns = realloc(f->seed, cap * sizeof *ns);
				if (np)
					f->seed_pair = np;
				if (ns)
					f->seed = ns;
				if (!np || !ns)
					return WS_ENOMEM;
				f->cap_seed_pair = cap;
			}
			f->seed_pair[f->n_seed_pair++] =
				(uint64_t)pid << 32 | f->peer_node[n->first_port + p];
		}
	}
	qsort(f->seed_pair, f->n_seed_pair, sizeof *f->seed_pair, ud_cmp_u64);
	for (uint32_t i = 0; i < f->n_seed_pair; i++) {
		struct ud_prefix *r = &f->pre[f->seed_pair[i] >> 32];
		if (!r->n_seeds++)
			r->first_seed = i;
		f->seed[i] = (uint32_t)f->seed_pair[i];
	}
	return WS_OK;
}

/* The prefix being solved and its affected ancestors. */
struct ud_solve {
	uint32_t pid;
	const struct ud_prefix *c;
	uint32_t anc[WS_ADDR_DIGITS];
	uint32_t n_anc;
};

static inline bool ud_inside(const struct ws_node *n, const struct ud_prefix *c)
{
	return n->addr_len >= c->len && ud_match(n->addr, c->digit, c->len) == c->len;
}

static inline bool ud_covers(const struct ws_node *n, const struct ud_prefix *c)
{
	return n->addr_len < c->len && ud_match(n->addr, c->digit, n->addr_len) == n->addr_len;
}

/* In U_c or in an ancestor's (painted at the start of the solve). */
static inline bool ud_member(const struct ud_fail *f, uint32_t node)
{
	return f->stamp[node] == f->gen;
}

/* A node outside a flagged ancestor: dead by the flag, never enumerated. */
static bool ud_flagged(const struct ud_fail *f, const struct ud_solve *sv,
		       const struct ws_node *n)
{
	for (uint32_t i = 0; i < sv->n_anc; i++)
		if (f->pre[sv->anc[i]].gdead && !ud_inside(n, &f->pre[sv->anc[i]]))
			return true;
	return false;
}

/* A node's port lies on its way toward c. */
static bool ud_toward(const struct ws_node *n, uint32_t port, const struct ud_prefix *c)
{
	if (ud_covers(n, c)) {
		uint32_t lo = c->digit[n->addr_len] * n->down_group;
		return port >= lo && port < lo + n->down_group;
	}
	return port >= n->n_down;
}

/* Every port toward c is down or leads to a node that cannot reach it. */
static bool ud_cut(const struct ud_fail *f, const struct ws_fabric *fab,
		   const struct ud_solve *sv, const struct ws_node *n)
{
	const uint64_t *dn = &f->down[f->node[n->id].mword];
	const struct ud_prefix *c = sv->c;
	const bool cover = ud_covers(n, c);
	uint32_t lo = n->n_down, hi = n->n_ports;
	if (cover) {
		lo = c->digit[n->addr_len] * n->down_group;
		hi = lo + n->down_group < n->n_down ? lo + n->down_group : n->n_down;
	}
	for (uint32_t p = lo; p < hi; p++) {
		if (ud_bit(dn, p))
			continue;
		uint32_t y = f->peer_node[n->first_port + p];
		if (ud_member(f, y))
			continue;
		const struct ws_node *yn = ws_node_get(fab, y);
		if (!cover && !ud_covers(yn, c) &&
		    f->node[y].climb < yn->addr_len - ud_match(yn->addr, c->digit, yn->addr_len))
			continue;
		return false;
	}
	return true;
}

/* y joined U_c: mark the ports that lead to it and examine their nodes. */
static int ud_spread(struct ud_fail *f, const struct ws_fabric *fab,
		     const struct ud_solve *sv, uint32_t y)
{
	const struct ws_node *yn = ws_node_get(fab, y);
	const uint64_t *dn = &f->down[f->node[y].mword];
	for (uint32_t p = 0; p < yn->n_ports; p++) {
		if (ud_bit(dn, p))
			continue;
		const uint32_t z = f->peer_node[yn->first_port + p];
		const uint32_t zp = f->peer_local[yn->first_port + p];
		const struct ws_node *zn = ws_node_get(fab, z);
		if ((zn->kind == WS_NODE_HOST && zn->n_ports == 1) ||
		    ud_inside(zn, sv->c) || !ud_toward(zn, zp, sv->c) ||
		    ud_flagged(f, sv, zn) || ud_member(f, z))
			continue;
		if (f->estamp[z] != f->gen) {
			bool added;
			uint32_t *e = ud_map_put(&f->entry, (uint64_t)z << 32 | sv->pid, 0, &added);
			if (!e)
				return WS_ENOMEM;
			const uint32_t w = (zn->n_ports + 63u) / 64u;
			if (f->n_pool + w > f->cap_pool) {
				size_t cap = f->cap_pool ? f->cap_pool * 2 : 4096;
				while (cap < f->n_pool + w)
					cap *= 2;
				uint64_t *np = realloc(f->pool, cap * sizeof *np);
				if (!np)
					return WS_ENOMEM;
				f->pool = np;
				f->cap_pool = cap;
			}
			*e = f->eoff[z] = (uint32_t)f->n_pool;
			f->estamp[z] = f->gen;
			memset(&f->pool[f->n_pool], 0, w * sizeof *f->pool);
			f->n_pool += w;
			f->node[z].has_entry = 1;
		}
		f->pool[f->eoff[z] + (zp >> 6)] |= 1ull << (zp & 63);
		if (zn->kind == WS_NODE_SWITCH &&
		    ud_push(ud_covers(zn, sv->c) ? &f->cover : &f->climbers, z))
			return WS_ENOMEM;
	}
	return WS_OK;
}

/* Examine the nodes on stack s; the ones cut off join U_c. */
static int ud_drain(struct ud_fail *f, const struct ws_fabric *fab,
		    struct ud_solve *sv, struct ud_stack *s)
{
	struct ud_prefix *c = &f->pre[sv->pid];
	while (s->n) {
		const uint32_t q = s->v[--s->n];
		const struct ws_node *qn = ws_node_get(fab, q);
		if (ud_member(f, q) || ud_inside(qn, c) || !ud_cut(f, fab, sv, qn))
			continue;
		if (f->n_mem == f->cap_mem) {
			uint32_t cap = f->cap_mem ? f->cap_mem * 2 : 1024;
			uint32_t *nm = realloc(f->mem, cap * sizeof *nm);
			if (!nm)
				return WS_ENOMEM;
			f->mem = nm;
			f->cap_mem = cap;
		}
		f->mem[f->n_mem++] = q;
		c->n_members++;
		f->stamp[q] = f->gen;
		if (qn->addr_len + 1u == c->len && ud_covers(qn, c) && ++c->parents == *ud_map_find(
			    &f->tops, ud_prefix_hash(qn->addr, qn->addr_len))) {
			/* nothing outside c reaches it: the flag says it all */
			c->gdead = 1;
			f->cover.n = f->climbers.n = 0;
			return WS_OK;
		}
		int rc = ud_spread(f, fab, sv, q);
		if (rc)
			return rc;
	}
	return WS_OK;
}

/* U_c: from the failed links' parents up through the switches that cover c,
 * then (unless nothing above c's block reaches it) out to the rest. */
static int ud_solve_prefix(struct ud_fail *f, const struct ws_fabric *fab, uint32_t pid)
{
	struct ud_solve sv = { .pid = pid, .c = &f->pre[pid] };
	const struct ud_prefix *c = sv.c;
	uint64_t h = 0;
	for (uint32_t l = 0; l < c->len; l++) {
		if (f->len_mask & (1u << l)) {
			uint32_t a = ud_prefix_find(f, c->digit, l, ud_prefix_close(h, l));
			if (a != UD_NIL)
				sv.anc[sv.n_anc++] = a;
		}
		h = ud_prefix_step(h, c->digit[l]);
	}
	if (++f->gen == 0) { /* wrapped: forget every stamp */
		memset(f->stamp, 0, fab->n_nodes * sizeof *f->stamp);
		memset(f->estamp, 0, fab->n_nodes * sizeof *f->estamp);
		f->gen = 1;
	}
	for (uint32_t i = 0; i < sv.n_anc; i++) {
		const struct ud_prefix *a = &f->pre[sv.anc[i]];
		for (uint32_t k = 0; k < a->n_members; k++)
			f->stamp[f->mem[a->first_member + k]] = f->gen;
	}
	f->pre[pid].first_member = f->n_mem;
	f->cover.n = f->climbers.n = 0;
	for (uint32_t i = 0; i < c->n_seeds; i++)
		if (ud_push(&f->cover, f->seed[c->first_seed + i]))
			return WS_ENOMEM;
	int rc = ud_drain(f, fab, &sv, &f->cover);
	if (rc || c->gdead)
		return rc;
	while (f->climbers.n && !c->gdead) {
		if ((rc = ud_drain(f, fab, &sv, &f->climbers)) ||
		    (rc = ud_drain(f, fab, &sv, &f->cover)))
			return rc;
	}
	return WS_OK;
}

/* The decision table: every (node, prefix) mask, in its slot when it fits. */
static int ud_etab_build(struct ud_fail *f, const struct ws_fabric *fab)
{
	struct ud_etab *t = &f->etab;
	uint64_t cap = 1024;
	while (cap < 2ull * f->entry.count)
		cap *= 2;
	if (!t->slot || cap != (uint64_t)t->mask + 1) {
		struct ud_eslot *slot = realloc(t->slot, cap * sizeof *slot);
		if (!slot)
			return WS_ENOMEM;
		t->slot = slot;
		t->mask = (uint32_t)(cap - 1);
	}
	for (uint64_t i = 0; i < cap; i++)
		t->slot[i].key = UD_EMPTY;
	t->count = f->entry.count;
	for (uint32_t i = 0; f->entry.count && i <= f->entry.mask; i++) {
		const struct ud_slot *e = &f->entry.slot[i];
		if (e->key == UD_EMPTY)
			continue;
		const uint32_t ports = ws_node_get(fab, (uint32_t)(e->key >> 32))->n_ports;
		uint32_t j = (uint32_t)ws_mix64(e->key) & t->mask;
		while (t->slot[j].key != UD_EMPTY)
			j = (j + 1) & t->mask;
		struct ud_eslot *d = &t->slot[j];
		d->key = e->key;
		d->m[0] = ports <= 128 ? f->pool[e->val] : e->val;
		d->m[1] = ports > 64 && ports <= 128 ? f->pool[e->val + 1] : 0;
	}
	return WS_OK;
}

/* The mask of ports `at` avoids for prefix pid, or NULL. */
static const uint64_t *ud_etab_mask(const struct ud_fail *f, const struct ws_node *at,
				    uint32_t pid)
{
	const struct ud_etab *t = &f->etab;
	if (!t->count)
		return NULL;
	const uint64_t k = (uint64_t)at->id << 32 | pid;
	for (uint32_t i = (uint32_t)ws_mix64(k) & t->mask;; i = (i + 1) & t->mask) {
		const struct ud_eslot *e = &t->slot[i];
		if (e->key == k)
			return at->n_ports <= 128 ? e->m : &f->pool[e->m[0]];
		if (e->key == UD_EMPTY)
			return NULL;
	}
}

static int ud_rebuild(struct ud_fail *f, const struct ws_fabric *fab)
{
	f->dirty = false;
	ud_map_clear(&f->pre_map);
	f->n_mem = 0;
	ud_map_clear(&f->entry);
	f->n_pre = 0;
	f->n_pool = 0;
	f->len_mask = 0;
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const uint32_t w = (ws_node_get(fab, i)->n_ports + 63u) / 64u;
		uint64_t any = 0;
		for (uint32_t k = 0; k < w; k++)
			any |= f->down[f->node[i].mword + k];
		f->node[i].has_entry = 0;
		f->node[i].down_any = any != 0;
	}
	ud_climb(f, fab);
	int rc = ud_collect(f, fab);
	for (uint32_t len = 0; !rc && len <= WS_ADDR_DIGITS; len++)
		for (uint32_t i = 0; !rc && i < f->n_pre; i++)
			if (f->pre[i].len == len)
				rc = ud_solve_prefix(f, fab, i);
	return rc ? rc : ud_etab_build(f, fab);
}

/* What the summary says at `at` for dst: the masks of ports to avoid
 * (mask[0..*n_mask)), whether up ports must be checked for a parent's
 * climb (*need > 0: parents need that climb), false when dst cannot be
 * reached from `at` at all. */
static bool ud_lookup(const struct ud_fail *f, const struct ws_node *at,
		      const struct ws_node *dst, uint32_t m, bool cover,
		      const uint64_t **mask, uint32_t *n_mask, uint32_t *need)
{
	const struct ud_node *ni = &f->node[at->id];
	*n_mask = 0;
	*need = 0;
	if (!cover && at->addr_len - m >= 2 && ni->upmin < at->addr_len - m - 1)
		*need = at->addr_len - m - 1u;
	uint64_t h = 0;
	for (uint32_t l = 0; l <= dst->addr_len; l++) {
		if ((f->len_mask & (1u << l)) && !(at->addr_len >= l && m >= l)) {
			uint32_t pid = ud_prefix_find(f, dst->addr, l, ud_prefix_close(h, l));
			if (pid != UD_NIL) {
				const struct ud_prefix *c = &f->pre[pid];
				if (c->gdead)
					return false;
				const uint64_t *e = ni->has_entry && c->n_members
					? ud_etab_mask(f, at, pid) : NULL;
				if (e)
					mask[(*n_mask)++] = e;
			}
		}
		if (l < dst->addr_len)
			h = ud_prefix_step(h, dst->addr[l]);
	}
	return true;
}

/* ---- the decision ------------------------------------------------------------ */

static uint32_t ud_count(const uint64_t *live, uint32_t words)
{
	uint32_t n = 0;
	for (uint32_t w = 0; w < words; w++)
		n += (uint32_t)__builtin_popcountll(live[w]);
	return n;
}

/* live[] = the ports [lo, lo + n) (words of the node's port mask). */
static void ud_range(uint64_t *live, uint32_t words, uint32_t lo, uint32_t n)
{
	const uint32_t hi = lo + n;
	for (uint32_t w = 0; w < words; w++) {
		const uint32_t a = w * 64, b = a + 64;
		if (hi <= a || lo >= b) {
			live[w] = 0;
			continue;
		}
		uint64_t bits = ~0ull;
		if (lo > a)
			bits &= ~0ull << (lo - a);
		if (hi < b)
			bits &= ~0ull >> (b - hi);
		live[w] = bits;
	}
}

/* The lb's choice among live[] (or among all of [lo, lo + n) when live is
 * NULL), after dropping the ports this node sees down but was not told of. */
static __attribute__((noinline)) uint32_t ud_pick(struct ws_inst *inst, const struct ws_node *at,
			const struct ws_pkt *p, uint32_t lo, uint32_t n, uint64_t *live)
{
	const uint32_t words = (at->n_ports + 63u) / 64u;
	struct ud_cands cd = { .lo = lo, .n = n, .count = live ? ud_count(live, words) : n,
			       .live = live };
	if (!cd.count)
		return WS_PORT_NONE;
	uint32_t port = ud_choose(inst, at, p, &cd);
	if (ws_port_up(inst->sim, at->id, port))
		return port;
	uint64_t own[UD_MAX_WORDS];
	if (!live) {
		ud_range(own, words, lo, n);
		live = own;
	}
	for (uint32_t q = lo; q < lo + n; q++)
		if (ud_bit(live, q) && !ws_port_up(inst->sim, at->id, q))
			live[q >> 6] &= ~(1ull << (q & 63));
	cd.live = live;
	cd.count = ud_count(live, words);
	return cd.count ? ud_choose(inst, at, p, &cd) : WS_PORT_NONE;
}

/* With failures known: the candidates the summary leaves, then the choice.
 * Kept out of line (as ud_pick) so the healthy path stays small. */
static __attribute__((noinline)) uint32_t ud_slow(struct ws_inst *inst, const struct ws_node *at,
			const struct ws_node *dst, const struct ws_pkt *p,
			uint32_t lo, uint32_t n, uint32_t m, bool cover)
{
	struct ud_state *s = inst->state;
	struct ud_fail *f = s->fail;
	if (f->dirty && ud_rebuild(f, ws_sim_fabric(inst->sim))) {
		struct ws_err e;
		ws_err_set(&e, WS_ENOMEM, "routing updown: no memory for the "
			   "failure summary");
		ws_fail(inst->sim, &e);
		return WS_PORT_NONE;
	}
	const uint64_t *mask[WS_ADDR_DIGITS + 1];
	uint32_t n_mask, need;
	if (!ud_lookup(f, at, dst, m, cover, mask, &n_mask, &need))
		return WS_PORT_NONE;
	const struct ud_node *ni = &f->node[at->id];
	if (!ni->down_any && !n_mask && !need)
		return ud_pick(inst, at, p, lo, n, NULL);
	const uint32_t words = (at->n_ports + 63u) / 64u;
	uint64_t live[UD_MAX_WORDS];
	ud_range(live, words, lo, n);
	const uint64_t *dn = &f->down[ni->mword];
	for (uint32_t w = 0; w < words; w++) {
		uint64_t bad = dn[w];
		for (uint32_t k = 0; k < n_mask; k++)
			bad |= mask[k][w];
		live[w] &= ~bad;
	}
	for (uint32_t q = lo; need && q < lo + n; q++)
		if (ud_bit(live, q) && f->node[f->peer_node[at->first_port + q]].climb < need)
			live[q >> 6] &= ~(1ull << (q & 63));
	return ud_pick(inst, at, p, lo, n, live);
}

/* The choice when the summary rules nothing out: ECMP, or the lb. */
static inline uint32_t ud_healthy(struct ws_inst *inst, const struct ws_node *at,
				  const struct ws_pkt *p, uint32_t lo, uint32_t n)
{
	const struct updown_conf *c = inst->conf;
	if (n == 1)
		return lo;
	const struct ud_cands cd = { .lo = lo, .n = n, .count = n, .live = NULL };
	if (c->lb == UD_LB_ECMP || p->flow == WS_NONE || p->type != WS_PKT_DATA) {
		const struct ud_state *s = inst->state;
		if (__builtin_expect(s->ns3_key != NULL, 0))
			return ud_ns3_pick(s, at, p, &cd);
		return lo + (uint32_t)(updown_hash(c, at, p) % n);
	}
	return ud_choose(inst, at, p, &cd);
}

static uint32_t updown_next_port(struct ws_inst *inst, const struct ws_node *at,
				 const struct ws_node *dst,
				 const struct ws_pkt *p)
{
	const struct ud_state *s = inst->state;
	const uint32_t plen = at->addr_len;
	const bool cover = at->kind == WS_NODE_SWITCH && dst->addr_len > plen &&
			   ud_match(at->addr, dst->addr, plen) == plen;
	uint32_t lo, n;
	if (cover) {
		lo = dst->addr[plen] * at->down_group;
		n = at->down_group;
		if (lo + n > at->n_down)
			return WS_PORT_NONE;
	} else {
		if (at->n_up == 0)
			return WS_PORT_NONE;
		lo = at->n_down;
		n = at->n_up;
	}
	/* no link has ever failed (the kernel's count): the choice as ever */
	if (__builtin_expect(*s->changes == 0, 1))
		return ud_healthy(inst, at, p, lo, n);
	if (s->fail && s->fail->n_down)
		return ud_slow(inst, at, dst, p, lo, n,
			       cover ? plen : ud_match(at->addr, dst->addr, plen), cover);
	/* no failure told yet: the choice as ever, if this node sees that port up */
	const uint32_t port = ud_healthy(inst, at, p, lo, n);
	return ws_port_up(inst->sim, at->id, port) ? port : ud_pick(inst, at, p, lo, n, NULL);
}

/* ---- lifecycle --------------------------------------------------------------- */

static int updown_check(const struct ws_fabric *fab, struct ws_err *err)
{
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = &fab->nodes[i];
		if (n->kind == WS_NODE_HOST) {
			if (n->addr_len != fab->depth)
				return ws_err_set(err, WS_EINVAL,
						  "updown: host %u has %u address digits; "
						  "the fabric's depth is %u",
						  i, n->addr_len, fab->depth);
			continue;
		}
		if (n->addr_len >= fab->depth)
			return ws_err_set(err, WS_EINVAL,
					  "updown: switch %u covers a %u-digit prefix, "
					  "not shorter than a host address (%u)",
					  i, n->addr_len, fab->depth);
		if ((uint32_t)n->n_down + n->n_up != n->n_ports)
			return ws_err_set(err, WS_EINVAL,
					  "updown: switch %u has %u ports but %u down + %u up",
					  i, n->n_ports, n->n_down, n->n_up);
	}
	return WS_OK;
}

/* [sim] ecmp = ns3: the reference's order key of every port's peer. */
static int updown_ns3_keys(struct ws_inst *inst, const struct ws_fabric *fab,
			   struct ws_err *err)
{
	struct ud_state *s = inst->state;
	free(s->ns3_key);
	s->ns3_key = malloc(((size_t)fab->n_ports + 1) * sizeof *s->ns3_key);
	if (!s->ns3_key)
		return ws_err_set(err, WS_ENOMEM, "updown: no memory for the ns3 "
				  "next-hop order of %u ports", fab->n_ports);
	s->n_ns3_key = fab->n_ports;
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = &fab->nodes[i];
		for (uint32_t p = 0; p < n->n_ports; p++) {
			struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
			uint64_t key = UINT64_MAX;
			if (!ws_port_info(inst->sim, i, p, &pi) && pi.peer_node != WS_NONE)
				key = ws_ns3_order_key(inst->sim, pi.peer_node);
			s->ns3_key[n->first_port + p] = key;
		}
	}
	return WS_OK;
}

static int updown_prepare(struct ws_inst *inst, const struct ws_fabric *fab,
			  struct ws_err *err)
{
	const struct updown_conf *c = inst->conf;
	struct ud_state *s = inst->state;
	s->changes = ws_sim_link_changes(inst->sim);
	int rc = updown_check(fab, err);
	if (!rc && ws_sim_ns3_ecmp(inst->sim))
		rc = updown_ns3_keys(inst, fab, err);
	if (rc || c->lb == UD_LB_ECMP)
		return rc;
	s->n_nodes = fab->n_nodes;
	s->rng = malloc(fab->n_nodes * sizeof *s->rng);
	s->rr = calloc(fab->n_nodes, sizeof *s->rr);
	s->fl = calloc(fab->n_nodes, sizeof *s->fl);
	if (!s->rng || !s->rr || !s->fl)
		return ws_err_key(err, WS_ENOMEM, "lb",
				  "updown: no memory for the lb = %s state of %u nodes",
				  ud_lbs[c->lb], fab->n_nodes);
	const uint64_t seed = ws_sim_seed(inst->sim);
	for (uint32_t i = 0; i < fab->n_nodes; i++)
		ws_rng_seed(&s->rng[i], seed,
			    WS_RNG_ID(WS_RNG_PLUGIN, UD_RNG_SALT << 32 | i));
	return WS_OK;
}

static int updown_link_change(struct ws_inst *inst, const struct ws_fabric *fab,
			      uint32_t node, uint32_t local, bool up,
			      struct ws_err *err)
{
	struct ud_state *s = inst->state;
	if (!s->fail && !(s->fail = ud_fail_new(inst, fab)))
		return ws_err_set(err, WS_ENOMEM, "updown: no memory for the failure "
				  "summary of %u nodes", fab->n_nodes);
	struct ud_fail *f = s->fail;
	if (node >= fab->n_nodes || local >= ws_node_get(fab, node)->n_ports)
		return ws_err_set(err, WS_EINVAL, "updown: no port %u at node %u",
				  local, node);
	const uint32_t gid = ws_node_get(fab, node)->first_port + local;
	const uint32_t peer = f->peer_node[gid], pl = f->peer_local[gid];
	if (peer == WS_NONE)
		return WS_OK;
	uint64_t *a = &f->down[f->node[node].mword + (local >> 6)];
	const uint64_t bit = 1ull << (local & 63);
	if (((*a & bit) != 0) == !up)
		return WS_OK; /* already known */
	uint64_t *b = &f->down[f->node[peer].mword + (pl >> 6)];
	if (up) {
		*a &= ~bit;
		*b &= ~(1ull << (pl & 63));
		f->n_down--;
	} else {
		*a |= bit;
		*b |= 1ull << (pl & 63);
		f->n_down++;
	}
	/* summarised now, where the kernel tells the change (a serial step of
	 * a partitioned run): routes read the summary from every partition at
	 * once, so no route may be the one that rebuilds it */
	f->dirty = true;
	if (ud_rebuild(f, fab))
		return ws_err_set(err, WS_ENOMEM, "updown: no memory for the failure "
				  "summary of %u nodes", fab->n_nodes);
	return WS_OK;
}

static uint64_t updown_state_bytes(const struct ws_inst *inst)
{
	const struct updown_conf *c = inst->conf;
	const struct ud_state *s = inst->state;
	uint64_t b = (uint64_t)s->n_ns3_key * sizeof *s->ns3_key;
	if (s->rng)
		b += s->n_nodes * (sizeof *s->rng + sizeof *s->rr + sizeof *s->fl);
	for (uint32_t i = 0; s->fl && i < s->n_nodes; i++)
		if (s->fl[i])
			b += c->flowlet_table * sizeof **s->fl;
	const struct ud_fail *f = s->fail;
	if (f)
		b += f->n_words * sizeof *f->down + f->n_pool * sizeof *f->pool +
		     f->cap_mem * sizeof *f->mem +
		     (f->entry.slot ? (uint64_t)f->entry.mask + 1 : 0) * sizeof *f->entry.slot +
		     (f->etab.slot ? (uint64_t)f->etab.mask + 1 : 0) * sizeof *f->etab.slot +
		     f->cap_pre * sizeof *f->pre;
	return b;
}

static int updown_validate(const void *conf, struct ws_err *err)
{
	const struct updown_conf *c = conf;
	if (c->adaptive_choices == 1)
		return ws_err_key(err, WS_EINVAL, "adaptive_choices",
				  "adaptive_choices = 1 compares nothing; use 0 (every "
				  "candidate) or 2 or more (that many drawn at random)");
	return WS_OK;
}

static void updown_fini(struct ws_inst *inst)
{
	struct ud_state *s = inst->state;
	for (uint32_t i = 0; s->fl && i < s->n_nodes; i++)
		free(s->fl[i]);
	free(s->fl);
	free(s->rr);
	free(s->rng);
	free(s->ns3_key);
	ud_fail_free(s->fail);
	memset(s, 0, sizeof *s);
}

/* Every mode but ECMP may send one flow's packets on several paths. */
static bool updown_multipath(const struct ws_inst *inst)
{
	const struct updown_conf *c = inst->conf;
	return c->lb != UD_LB_ECMP;
}

static const struct ws_routing_ops updown_ops = {
	.size = sizeof(struct ws_routing_ops),
	.shapes = WS_SHAPE_UPDOWN,
	.prepare = updown_prepare,
	.next_port = updown_next_port,
	.state_bytes = updown_state_bytes,
	.link_change = updown_link_change,
	.multipath = updown_multipath,
};

static const struct ws_plugin updown_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ROUTING, struct ws_routing_ops),
	.name = "updown",
	.version = "1.1.0",
	.summary = "hierarchical-address up/down rule: ECMP, spray, flowlet or adaptive; reroutes around failed links; no tables",
	.params = updown_params,
	.conf_size = sizeof(struct updown_conf),
	.state_size = sizeof(struct ud_state),
	.validate = updown_validate,
	.fini = updown_fini,
	.ops = &updown_ops,
};

WS_PLUGIN_EXPORT(updown_plugin)
