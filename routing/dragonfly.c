/* SPDX-License-Identifier: MIT */
/*
 * dragonfly: minimal, Valiant and UGAL-L routing on a dragonfly (Kim, Dally,
 * Scott, Abts, ISCA 2008), with no per-destination table: every port is
 * computed from the published geometry {p, a, h, g, arrangement} and the
 * addresses (see warpsim/dragonfly.h, the geometry the kernel publishes
 * with the dragonfly shape, which topo/dragonfly wires).
 *
 * Minimal: in the destination group T, the terminal port (at the
 * destination's router) or the local port to that router.  Elsewhere the
 * packet needs one of the C = a*h/(g-1) global links from its group to T: a
 * router that owns some takes one of its own (xxHash of the 5-tuple seeded
 * with the router id, as ECMP); one that owns none picks one of the C links
 * and goes local to its owner.  At most local, global, local: 3
 * router-to-router hops.
 *
 * Valiant: an intermediate group I (not the source group S, not T) from a
 * hash of the flow; minimal to I, then minimal to T.  A packet is only ever
 * in S, I or T; at most 5 router-to-router hops.  The first router writes
 * 2 + I into pkt->route so later routers need no hash to find I.
 * Traffic within a group is routed minimally in every mode.
 *
 * UGAL-L (Singh's universal globally-adaptive load balancing, local
 * variant): at the packet's first router (pkt->route == 0) compare
 * q_min * H_min with q_val * H_val + ugal_bias, where q is the bytes queued
 * at this router's egress port of each path's first hop and H the path's
 * router-to-router hops (computed exactly: the hash choices later routers
 * will make are known here); the choice goes into pkt->route (1: minimal,
 * 2 + I: Valiant via I).  With `ugal_granularity = flowlet` a flow keeps its
 * choice while its packets reach the source router less than flowlet_gap
 * apart (RoCE NICs go back N on reordering); each new flowlet also draws a
 * new I.  The flowlet table is indexed by flow id and grows by doubling.
 * ACK, NACK and CNP packets and probes (flow == WS_NONE) are routed
 * minimally and leave the table alone.
 *
 * Deadlock freedom with PFC: a packet's class is its priority plus pkt->vc,
 * which counts the global links it has crossed (0 in S, 1 in the next
 * group, 2 in T after I) plus the detours it has taken (below).  Within one
 * class a packet crosses at most one local link and then a global one (or
 * its terminal link): channel dependencies inside a class only go
 * host -> local -> global/terminal, and a global link, or a second local
 * hop, leads into a higher class (a terminal link may stay in the class:
 * only a host drains it, so it closes no cycle).  Classes are totally
 * ordered, so the dependency graph has no cycle.  This takes 2 classes above the flow's
 * priority (ops vcs = 2: priorities above 5 are refused).
 *
 * Failures (link_change): the rule keeps one bit per router port, set while
 * the link on it is down (both ends of a router link, the router's end of
 * a terminal link), and the number of dead ends per group; nothing is
 * allocated before the first failure.  A decision whose groups (its own,
 * T, and I for a Valiant packet) hold no dead link, and whose port is up
 * at this router, is the failure-free one, at the failure-free cost.
 * Otherwise the router chooses among live links only (the summary, and
 * ws_port_up() for its own ports, so it avoids them before the rule is
 * told), in this order: one of its own global links to the next group
 * whose arrival router is rd or has a live local link to it; a live
 * local link to the owner of such a link; the same two accepting an
 * arrival router two local hops from rd; a detour in S (a live local link
 * to a third router that has a live link to the owner).  Within a tier
 * the hash picks as without failures, in the same order, so a link that
 * comes back gives back the same paths.
 *
 * A detour (two local hops in one group) is what breaks "at most one local
 * hop per class"; it is kept acyclic by raising the class on its second
 * hop, and only where a class is left for it: a minimal packet (one global
 * link, classes 0 and 1) may take one detour, in S or in T, never both;
 * a Valiant packet (classes 0, 1, 2) takes none, so its intermediate group
 * must be reachable with direct local hops.  The class a router writes
 * follows from its position and the class the packet arrived in: at the
 * source's router 0; elsewhere in S the arrival class, plus one for a
 * second local hop; 1 in I; in T one more than the arrival class (entry
 * router, or the middle of a detour), and at rd the larger of that and
 * the failure-free class.  So vcs stays 2, and pkt->vc never goes down.
 *
 * At the source's router the rule walks the whole route it would take
 * (each later router's choice is a function of the summary and the hash:
 * it knows them) and keeps the failure-free route if it arrives; else a
 * minimal packet goes Valiant through an intermediate group whose walk
 * arrives (the hashed one, 7 re-hashed ones, then the next working group
 * in order: a scan over groups only when most are broken), a Valiant one
 * takes another intermediate group, then minimal; UGAL compares the
 * working ones as UGAL-L does.  Traffic within a group whose local paths
 * are dead goes out through another group and back (classes 0, 1, 2).
 * When no walk arrives (rd's terminal link down, the group cut off, or
 * more than the classes allow), the rule returns WS_PORT_NONE at once and
 * the kernel drops the packet.  Without vc_escalation (no deadlock
 * claim) a router that cannot tell where the packet has been takes no
 * detour outside the source's router.  Routers that are not at a failure
 * still use stale choices until link_change is called ([failures]
 * reroute_delay), and the packet is dropped at the failure.
 */
#include <stdlib.h>
#include <string.h>

#include <warpsim/warpsim.h>

#include <warpsim/dragonfly.h>

enum { DF_MINIMAL, DF_VALIANT, DF_UGAL };
enum { DF_GRAN_PACKET, DF_GRAN_FLOWLET };

static const char *const df_modes[] = { "minimal", "valiant", "ugal", NULL };
static const char *const df_grans[] = { "packet", "flowlet", NULL };

/* pkt->route: 0 undecided (or routed minimally without deciding) */
#define DF_ROUTE_MIN 1u
#define DF_ROUTE_VAL 2u /* + the intermediate group */

#define DF_GOLDEN 0x9e3779b97f4a7c15ull
#define DF_SALT_INTERMEDIATE 0x5d1e2a7c3b9f4e61ull

struct df_conf {
	int mode;
	uint64_t ecmp_seed;
	int ugal_granularity;
	ws_time flowlet_gap;
	uint64_t ugal_bias;
	bool vc_escalation;
};

static const struct ws_param df_params[] = {
	WS_PARAM_ENUM("mode", struct df_conf, mode, "minimal", df_modes,
		      "minimal; valiant: via a hashed intermediate group; ugal: UGAL-L choice at the first router"),
	WS_PARAM_UINT("ecmp_seed", struct df_conf, ecmp_seed, "0", "0", NULL,
		      "mixed into every router's hash seed: another value, other paths and intermediate groups"),
	WS_PARAM_ENUM("ugal_granularity", struct df_conf, ugal_granularity, "flowlet", df_grans,
		      "ugal: decide per packet, or per flowlet (packets of a flow less than flowlet_gap apart)"),
	WS_PARAM_TIME("flowlet_gap", struct df_conf, flowlet_gap, "10us", "0s", "1s",
		      "ugal flowlet: a gap this long at the source router starts a new flowlet (above the path delay difference)"),
	WS_PARAM_SIZE("ugal_bias", struct df_conf, ugal_bias, "4KB", "0B", NULL,
		      "ugal: Valiant only when q_min*H_min > q_val*H_val + this many bytes"),
	WS_PARAM_BOOL("vc_escalation", struct df_conf, vc_escalation, "true",
		      "raise the class by one per global link crossed (deadlock-free); false: all in the flow's class"),
	WS_PARAM_END
};

/* UGAL decision of one flow, kept while its packets come closer than flowlet_gap. */
struct df_flowlet {
	ws_time last;    /* the flow's last data packet at its source router */
	uint32_t count;  /* flowlets so far: varies the intermediate group */
	uint16_t route;  /* the decision (pkt->route); 0: none yet */
	uint16_t reserved;
};

/*
 * The failure summary (NULL until the first link_change): one bit per
 * router port, set while the link on it is down (both ends of a
 * router-to-router link, the router end of a terminal link), and the number
 * of dead port ends per group, so that a decision touching only clean
 * groups costs what it costs without failures.
 */
struct df_state {
	struct ws_df_geom d;
	uint32_t hosts_per_group;  /* a*p */
	uint32_t radix;            /* router ports: p + a-1 + h */
	struct df_flowlet *fl;     /* indexed by flow id (ugal flowlet only) */
	uint64_t n_fl;
	uint64_t *dead;            /* bit (router index * radix + port): link down */
	uint32_t *group_dead;      /* [group] dead router-port ends in it */
	uint32_t *group_gdead;     /* [group] dead global-link ends in it */
	uint64_t n_dead;           /* dead router-port ends in all */
	const uint64_t *changes;   /* the kernel's count of link changes */
};

static bool df_summary_alloc(struct df_state *s);

/* One decision under failures: who decides and what the packet wants. */
struct df_ctx {
	const struct ws_pkt *pkt;
	uint32_t S, T, rd, td; /* source group; destination group, router, terminal */
	uint32_t rs;           /* the source's router in S */
	uint32_t self;         /* node id of the deciding router (it sees its own ports) */
};

static inline uint64_t df_hash(const struct df_conf *c, uint32_t router,
			       const struct ws_pkt *pkt)
{
	return ws_flow_hash(pkt, (uint64_t)router ^ (c->ecmp_seed * DF_GOLDEN));
}

/*
 * Router r of group G towards group X (!= G): the egress port and the global
 * link k (of G) the packet will cross.  A router owning links to X takes one
 * of its own; else it picks one of the group's C links and goes to its owner.
 */
static uint32_t df_toward(const struct ws_df_geom *d, uint32_t G, uint32_t r,
			  uint32_t X, uint64_t hash, uint32_t *link)
{
	const uint32_t gm1 = d->g - 1, t = ws_df_offset(d, G, X);
	const uint32_t first = r * d->h;
	/* own links to X: k in [first, first + h) with k % (g-1) == t */
	const uint32_t k0 = first + (t + gm1 - first % gm1) % gm1;
	if (k0 < first + d->h) {
		uint32_t n = (first + d->h - 1 - k0) / gm1 + 1;
		uint32_t k = k0 + (n > 1 ? (uint32_t)(hash % n) : 0) * gm1;
		*link = k;
		return ws_df_global_port(d, k);
	}
	uint32_t k = (d->copies > 1 ? (uint32_t)(hash % d->copies) : 0) * gm1 + t;
	*link = k;
	return ws_df_local_port(d, r, k / d->h);
}

/* The router of group X at which global link k of group G arrives. */
static inline uint32_t df_arrival(const struct ws_df_geom *d, uint32_t G,
				  uint32_t k)
{
	return ws_df_peer_link(d, G, k) / d->h;
}

static inline bool df_is_global(const struct ws_df_geom *d, uint32_t port)
{
	return port >= d->p + d->a - 1;
}

/* An intermediate group other than S and T, from a hash. */
static inline uint32_t df_intermediate(const struct ws_df_geom *d, uint32_t S,
				       uint32_t T, uint64_t hash)
{
	const uint32_t lo = S < T ? S : T, hi = S < T ? T : S;
	uint32_t I = (uint32_t)(hash % (d->g - 2));
	if (I >= lo)
		I++;
	if (I >= hi)
		I++;
	return I;
}

/*
 * UGAL-L at router (S, r) for a destination on router rd of group T, with
 * intermediate group I: Valiant when its weighted queue is smaller.
 */
static uint16_t df_ugal(struct ws_inst *inst, const struct ws_node *at,
			const struct ws_pkt *pkt, uint32_t S, uint32_t T,
			uint32_t rd, uint32_t I)
{
	const struct df_conf *c = inst->conf;
	const struct df_state *s = inst->state;
	const struct ws_df_geom *d = &s->d;
	const uint32_t r = at->addr[1];
	const uint64_t hr = df_hash(c, at->id, pkt);
	uint32_t km, kv, k2;
	const uint32_t pm = df_toward(d, S, r, T, hr, &km);
	const uint64_t h_min = (df_is_global(d, pm) ? 1 : 2) +
			       (df_arrival(d, S, km) != rd);
	const uint32_t pv = df_toward(d, S, r, I, hr, &kv);
	const uint32_t ri = df_arrival(d, S, kv);
	/* the choice router (I, ri) will make, with its own seed */
	const uint32_t p2 = df_toward(d, I, ri, T,
				      df_hash(c, ws_df_router_id(d, I, ri), pkt), &k2);
	const uint64_t h_val = (df_is_global(d, pv) ? 1 : 2) +
			       (df_is_global(d, p2) ? 1 : 2) +
			       (df_arrival(d, I, k2) != rd);
	const uint64_t q_min = ws_port_queue_bytes(inst->sim, at->id, pm);
	const uint64_t q_val = ws_port_queue_bytes(inst->sim, at->id, pv);
	if (q_min * h_min > q_val * h_val + c->ugal_bias)
		return (uint16_t)(DF_ROUTE_VAL + I);
	return DF_ROUTE_MIN;
}

static struct df_flowlet *df_flowlet_of(struct df_state *s, uint32_t flow)
{
	if (flow >= s->n_fl) {
		uint64_t n = s->n_fl ? s->n_fl : 1024;
		while (n <= flow)
			n *= 2;
		struct df_flowlet *fl = realloc(s->fl, n * sizeof *fl);
		if (!fl)
			return NULL;
		memset(fl + s->n_fl, 0, (n - s->n_fl) * sizeof *fl);
		s->fl = fl;
		s->n_fl = n;
	}
	return &s->fl[flow];
}

/* The route of a packet at its first router, S != T; 0: minimal, undecided. */
static uint16_t df_decide(struct ws_inst *inst, const struct ws_node *at,
			  const struct ws_node *dst, const struct ws_pkt *pkt,
			  uint32_t S)
{
	const struct df_conf *c = inst->conf;
	struct df_state *s = inst->state;
	const uint32_t T = dst->addr[0];
	const uint64_t hi = ws_flow_hash(pkt, DF_SALT_INTERMEDIATE ^ (c->ecmp_seed * DF_GOLDEN));
	if (c->mode == DF_VALIANT)
		return (uint16_t)(DF_ROUTE_VAL + df_intermediate(&s->d, S, T, hi));
	if (pkt->type != WS_PKT_DATA || pkt->flow == WS_NONE)
		return 0;
	if (c->ugal_granularity == DF_GRAN_PACKET)
		return df_ugal(inst, at, pkt, S, T, dst->addr[1],
			       df_intermediate(&s->d, S, T,
					       ws_mix64(hi ^ (pkt->seq * DF_GOLDEN))));
	struct df_flowlet *f = df_flowlet_of(s, pkt->flow);
	if (!f) {
		struct ws_err e;
		ws_err_set(&e, WS_ENOMEM, "routing dragonfly: no memory for the "
			   "flowlet state of flow %u", pkt->flow);
		ws_fail(inst->sim, &e);
		return DF_ROUTE_MIN;
	}
	const ws_time now = ws_now(inst->sim);
	if (!f->route || now - f->last >= c->flowlet_gap) {
		f->count++;
		f->route = df_ugal(inst, at, pkt, S, T, dst->addr[1],
				   df_intermediate(&s->d, S, T,
						   ws_mix64(hi + f->count * DF_GOLDEN)));
	}
	f->last = now;
	return f->route;
}

/* ---- failures ------------------------------------------------------------ */

#define DF_MAX_VC 2u     /* the ops table's vcs: classes above the priority */
#define DF_WALK_HOPS 8u  /* router-to-router hops a route may take, at most 6 */
#define DF_PROBES 8u     /* hashed intermediate groups tried before a scan */

/*
 * The failure-free choice at router (G, r) of a packet from group S to
 * router rd (terminal td) of group T, when no group it may use (G, T, and
 * I for a Valiant route) holds a dead link: the port, and in *vc the class
 * (0 in S, 1 in I; in T one more than on arrival, which a detour in S may
 * have raised by one).  WS_PORT_NONE when the groups are not clean or the
 * class would pass DF_MAX_VC.  With clean groups the failure rules would
 * choose the same (their first two tiers are this choice).
 */
static inline uint32_t df_clean(const struct ws_inst *inst, uint32_t id, uint32_t G,
				uint32_t r, uint32_t S, uint32_t T, uint32_t rd,
				uint32_t td, uint32_t route, uint32_t vc_in,
				const struct ws_pkt *pkt, uint32_t *vc)
{
	const struct df_conf *c = inst->conf;
	const struct df_state *s = inst->state;
	const bool val = route >= DF_ROUTE_VAL;
	if (s->n_dead && (s->group_dead[G] || s->group_dead[T] ||
			  (val && s->group_dead[route - DF_ROUTE_VAL])))
		return WS_PORT_NONE;
	const uint32_t base = val ? 2 : 1;
	*vc = G == S ? 0 : G != T ? 1 : r != rd ? vc_in + 1 : vc_in > base ? vc_in : base;
	if (*vc > DF_MAX_VC)
		return WS_PORT_NONE;
	if (G == T)
		return r == rd ? td : ws_df_local_port(&s->d, r, rd);
	uint32_t k;
	return df_toward(&s->d, G, r, val && G == S ? route - DF_ROUTE_VAL : T,
			 df_hash(c, id, pkt), &k);
}

/* Qualities of a global link into T: where it arrives, seen from rd. */
enum { DF_Q_NONE, DF_Q_DETOUR, DF_Q_DIRECT };

/* The summary says the link on port `port` of router (G, r) is up. */
static inline bool df_alive(const struct df_state *s, uint32_t G, uint32_t r,
			    uint32_t port)
{
	if (!s->n_dead)
		return true;
	const uint64_t i = ((uint64_t)G * s->d.a + r) * s->radix + port;
	return !(s->dead[i >> 6] >> (i & 63) & 1);
}

/* As the deciding router knows it: the summary, and its own ports now. */
static inline bool df_up(const struct ws_inst *inst, const struct df_ctx *x,
			 uint32_t G, uint32_t r, uint32_t port)
{
	const struct df_state *s = inst->state;
	const uint32_t id = ws_df_router_id(&s->d, G, r);
	return df_alive(s, G, r, port) &&
	       (id != x->self || ws_port_up(inst->sim, id, port));
}

static inline bool df_local_up(const struct ws_inst *inst, const struct df_ctx *x,
			       uint32_t G, uint32_t r, uint32_t j)
{
	return df_up(inst, x, G, r, ws_df_local_port(&((const struct df_state *)
							inst->state)->d, r, j));
}

/* Global link k of group G is up (its owner's port). */
static inline bool df_global_up(const struct ws_inst *inst, const struct df_ctx *x,
				uint32_t G, uint32_t k)
{
	const struct ws_df_geom *d = &((const struct df_state *)inst->state)->d;
	return df_up(inst, x, G, k / d->h, ws_df_global_port(d, k));
}

/* A router of group G, other than r and y, with live links r -> m -> y. */
static uint32_t df_mid(const struct ws_inst *inst, const struct df_ctx *x,
		       uint32_t G, uint32_t r, uint32_t y, uint64_t hash)
{
	const uint32_t a = ((const struct df_state *)inst->state)->d.a;
	for (uint32_t i = 0, m0 = (uint32_t)(hash % a); i < a; i++) {
		const uint32_t m = (m0 + i) % a;
		if (m != r && m != y && df_local_up(inst, x, G, r, m) &&
		    df_local_up(inst, x, G, m, y))
			return m;
	}
	return WS_NONE;
}

/* How global link k of G, which leads to T, arrives with respect to rd. */
static int df_quality(const struct ws_inst *inst, const struct df_ctx *x,
		      uint32_t G, uint32_t k, uint32_t X)
{
	const struct df_state *s = inst->state;
	if (X != x->T)
		return DF_Q_DIRECT; /* a leg to I: the walk at the source checks it */
	const uint32_t ra = df_arrival(&s->d, G, k);
	if (ra == x->rd || df_local_up(inst, x, X, ra, x->rd))
		return DF_Q_DIRECT;
	return df_mid(inst, x, X, ra, x->rd, 0) != WS_NONE ? DF_Q_DETOUR : DF_Q_NONE;
}

enum { DF_TIER_OWN, DF_TIER_LOCAL, DF_TIER_DETOUR };

/* Link k of G fits the tier at router r, with at least quality q. */
static bool df_fits(const struct ws_inst *inst, const struct df_ctx *x, uint32_t G,
		    uint32_t r, uint32_t X, uint32_t k, int tier, int q)
{
	const struct df_state *s = inst->state;
	const uint32_t y = k / s->d.h;
	if ((tier == DF_TIER_OWN) != (y == r) || !df_global_up(inst, x, G, k))
		return false;
	if (tier == DF_TIER_LOCAL && !df_local_up(inst, x, G, r, y))
		return false;
	if (tier == DF_TIER_DETOUR &&
	    (df_local_up(inst, x, G, r, y) || df_mid(inst, x, G, r, y, 0) == WS_NONE))
		return false;
	return df_quality(inst, x, G, k, X) >= q;
}

/*
 * Among the links of G toward X that fit (tier, q), the one `hash` picks,
 * counted in the order the failure-free choice counts them (a router's own
 * links, else all C of the group), so that with nothing down the choice is
 * the failure-free one.  WS_NONE when none fits.
 */
static uint32_t df_pick(const struct ws_inst *inst, const struct df_ctx *x,
			uint32_t G, uint32_t r, uint32_t X, int tier, int q,
			uint64_t hash)
{
	const struct ws_df_geom *d = &((const struct df_state *)inst->state)->d;
	const uint32_t gm1 = d->g - 1, t = ws_df_offset(d, G, X);
	uint32_t k0 = t, n = d->copies;
	if (tier == DF_TIER_OWN) {
		const uint32_t first = r * d->h;
		k0 = first + (t + gm1 - first % gm1) % gm1;
		n = k0 < first + d->h ? (first + d->h - 1 - k0) / gm1 + 1 : 0;
	}
	uint32_t fit = 0, last = WS_NONE;
	for (uint32_t i = 0; i < n; i++)
		if (df_fits(inst, x, G, r, X, k0 + i * gm1, tier, q)) {
			fit++;
			last = k0 + i * gm1;
		}
	if (fit <= 1)
		return last;
	uint32_t pick = (uint32_t)(hash % fit);
	for (uint32_t i = 0; i < n; i++)
		if (df_fits(inst, x, G, r, X, k0 + i * gm1, tier, q) && pick-- == 0)
			return k0 + i * gm1;
	return WS_NONE;
}

/* The packet is at its source's router, leaving it for the first time
 * (traffic within a group comes back to S = T through I in class 1). */
static inline bool df_first(const struct df_ctx *x, uint32_t G, uint32_t r,
			    uint32_t route, uint32_t vc_in)
{
	return G == x->S && r == x->rs &&
	       !(x->S == x->T && route >= DF_ROUTE_VAL && vc_in > 0);
}

/*
 * Router (G, r) of S or I toward X, under failures.  vc_in: the class the
 * packet arrived in; first: the source's router.  Returns the port and
 * writes the class it leaves in; WS_PORT_NONE when no allowed path is left.
 * The class rules are the header's: a hop raises the class past the
 * packet's position (one per global link crossed) only on a second local
 * hop in one group, which is allowed only where a class is left for it.
 */
static uint32_t df_step_out(const struct ws_inst *inst, const struct df_ctx *x,
			    uint32_t G, uint32_t r, uint32_t route, uint32_t vc_in,
			    uint32_t *vc_out)
{
	const struct df_conf *c = inst->conf;
	const struct df_state *s = inst->state;
	const struct ws_df_geom *d = &s->d;
	const bool val = route >= DF_ROUTE_VAL, first = df_first(x, G, r, route, vc_in);
	const uint32_t X = val && G == x->S ? route - DF_ROUTE_VAL : x->T;
	if (G != x->S && !(val && G == route - DF_ROUTE_VAL))
		return WS_PORT_NONE;
	/* classes of the global hop when leaving by an own link, by a local hop
	 * to the link's owner, or by a detour (the owner sends in class 1) */
	uint32_t vc_own, vc_loc;
	bool loc_ok, det_ok = first && !val && c->vc_escalation;
	if (G == x->S) {
		vc_own = first ? 0 : vc_in;
		vc_loc = first ? 0 : vc_in + 1;
		loc_ok = first || (c->vc_escalation && vc_loc <= (val ? 0u : 1u));
	} else {
		vc_own = vc_loc = 1;
		loc_ok = !c->vc_escalation || vc_in == 0; /* I's entry router only */
	}
	/* a detour in T needs two classes after the global hop */
	const int q_own = c->vc_escalation && vc_own == 0 ? DF_Q_DETOUR : DF_Q_DIRECT;
	const int q_loc = c->vc_escalation && vc_loc == 0 ? DF_Q_DETOUR : DF_Q_DIRECT;
	const uint64_t hash = df_hash(c, ws_df_router_id(d, G, r), x->pkt);
	const struct { int tier, q; bool ok; uint32_t vc; } tiers[] = {
		{ DF_TIER_OWN, DF_Q_DIRECT, true, vc_own },
		{ DF_TIER_LOCAL, DF_Q_DIRECT, loc_ok, vc_loc },
		{ DF_TIER_OWN, q_own, q_own != DF_Q_DIRECT, vc_own },
		{ DF_TIER_LOCAL, q_loc, loc_ok && q_loc != DF_Q_DIRECT, vc_loc },
		{ DF_TIER_DETOUR, DF_Q_DIRECT, det_ok, 0 },
	};
	for (size_t i = 0; i < sizeof tiers / sizeof tiers[0]; i++) {
		if (!tiers[i].ok)
			continue;
		const uint32_t k = df_pick(inst, x, G, r, X, tiers[i].tier, tiers[i].q, hash);
		if (k == WS_NONE)
			continue;
		*vc_out = tiers[i].vc;
		if (tiers[i].tier == DF_TIER_OWN)
			return ws_df_global_port(d, k);
		const uint32_t y = k / d->h;
		if (tiers[i].tier == DF_TIER_LOCAL)
			return ws_df_local_port(d, r, y);
		return ws_df_local_port(d, r, df_mid(inst, x, G, r, y, hash >> 32));
	}
	return WS_PORT_NONE;
}

/* Router (T, r): the terminal, the local link to rd, or a detour to it. */
static uint32_t df_step_in(const struct ws_inst *inst, const struct df_ctx *x,
			   uint32_t r, uint32_t route, uint32_t vc_in,
			   uint32_t *vc_out)
{
	const struct df_conf *c = inst->conf;
	const struct df_state *s = inst->state;
	const uint32_t T = x->T, rd = x->rd;
	const bool first = df_first(x, T, r, route, vc_in);
	if (r == rd) {
		const uint32_t base = route >= DF_ROUTE_VAL ? 2 : T == x->S ? 0 : 1;
		*vc_out = vc_in > base ? vc_in : base;
		return df_up(inst, x, T, rd, x->td) ? x->td : WS_PORT_NONE;
	}
	*vc_out = first ? 0 : vc_in + 1;
	if (df_local_up(inst, x, T, r, rd))
		return ws_df_local_port(&s->d, r, rd);
	if (c->vc_escalation ? *vc_out + 1 > DF_MAX_VC : !first)
		return WS_PORT_NONE;
	const uint32_t m = df_mid(inst, x, T, r, rd,
				  df_hash(c, ws_df_router_id(&s->d, T, r), x->pkt) >> 32);
	return m == WS_NONE ? WS_PORT_NONE : ws_df_local_port(&s->d, r, m);
}

static uint32_t df_step(const struct ws_inst *inst, const struct df_ctx *x,
			uint32_t G, uint32_t r, uint32_t route, uint32_t vc_in,
			uint32_t *vc_out)
{
	const struct df_state *s = inst->state;
	if (!df_alive(s, x->T, x->rd, x->td))
		return WS_PORT_NONE; /* the destination's own link is down */

	/* within a group through I: S = T, on the way out while in class 0 */
	if (G == x->T && !(x->S == x->T && route >= DF_ROUTE_VAL && vc_in == 0))
		return df_step_in(inst, x, r, route, vc_in, vc_out);
	return df_step_out(inst, x, G, r, route, vc_in, vc_out);
}

/*
 * Follow `route` from the source's router as the routers will (each with
 * its own hash; only the source's router sees its own ports): true if it
 * reaches the destination.  *port: the first hop; *links: router-to-router
 * hops.  The source's router decides with it, so it never sends a packet
 * on a route that the summary says is broken.
 */
static bool df_walk(const struct ws_inst *inst, const struct df_ctx *x,
		    uint32_t route, uint32_t *port, uint32_t *links)
{
	const struct ws_df_geom *d = &((const struct df_state *)inst->state)->d;
	uint32_t G = x->S, r = x->rs, vc = 0;
	for (uint32_t n = 0; n < DF_WALK_HOPS; n++) {
		uint32_t out = 0;
		const uint32_t l = df_step(inst, x, G, r, route, vc, &out);
		if (l == WS_PORT_NONE)
			return false;
		if (n == 0)
			*port = l;
		if (l < d->p) {
			*links = n;
			return G == x->T && r == x->rd;
		}
		vc = out;
		if (l < d->p + d->a - 1) {
			r = l - d->p + (l - d->p >= r);
		} else {
			const uint32_t k = r * d->h + (l - d->p - d->a + 1);
			const uint32_t X = ws_df_target(d, G, k % (d->g - 1));
			r = df_arrival(d, G, k);
			G = X;
		}
	}
	return false;
}

/* An intermediate group whose route works: the hashed one, a few re-hashed
 * ones, then the next working one after it (only when most are broken). */
static uint32_t df_usable_intermediate(const struct ws_inst *inst,
				       const struct df_ctx *x, uint64_t hash,
				       uint32_t *port, uint32_t *links)
{
	const struct ws_df_geom *d = &((const struct df_state *)inst->state)->d;
	const bool within = x->S == x->T;
	if (d->g < (within ? 2u : 3u))
		return WS_NONE;
	/* within a group: any other group, hashed */
	const uint32_t I0 = within ? (x->S + 1 + (uint32_t)(hash % (d->g - 1))) % d->g
				   : df_intermediate(d, x->S, x->T, hash);
	for (uint32_t j = 0; j < DF_PROBES; j++) {
		const uint64_t hj = ws_mix64(hash + j * DF_GOLDEN);
		const uint32_t I = !j ? I0 : within ? (x->S + 1 + (uint32_t)(hj % (d->g - 1))) % d->g
				 : df_intermediate(d, x->S, x->T, hj);
		if (df_walk(inst, x, DF_ROUTE_VAL + I, port, links))
			return I;
	}
	for (uint32_t i = 1; i < d->g; i++) {
		const uint32_t I = (I0 + i) % d->g;
		if (I != x->S && I != x->T &&
		    df_walk(inst, x, DF_ROUTE_VAL + I, port, links))
			return I;
	}
	return WS_NONE;
}

/*
 * The route at the source's router under failures: the one decided as
 * without failures if it still works; else, for minimal, Valiant through a
 * working intermediate group; for Valiant, another intermediate group, then
 * minimal; for UGAL, the UGAL-L comparison between the working ones.
 * WS_NONE when nothing works (the destination is cut off).
 */
static uint32_t df_first_route(const struct ws_inst *inst, const struct df_ctx *x,
			       uint32_t route)
{
	const struct df_conf *c = inst->conf;
	const struct df_state *s = inst->state;
	const uint32_t all = s->d.a * s->d.h;
	uint32_t pm, hm, pv, hv;
	if (df_walk(inst, x, route, &pm, &hm))
		return route;
	/* no search over intermediate groups for what nothing reaches */
	if (!df_alive(s, x->T, x->rd, x->td) ||
	    (x->S != x->T && (s->group_gdead[x->S] == all || s->group_gdead[x->T] == all)))
		return WS_NONE;
	const uint64_t hi = ws_flow_hash(x->pkt, DF_SALT_INTERMEDIATE ^
					 (c->ecmp_seed * DF_GOLDEN));
	const bool min_ok = route >= DF_ROUTE_VAL && df_walk(inst, x, 0, &pm, &hm);
	const uint32_t I = df_usable_intermediate(inst, x, hi, &pv, &hv);
	if (I == WS_NONE)
		return min_ok ? DF_ROUTE_MIN : WS_NONE;
	if (!min_ok || c->mode == DF_VALIANT)
		return DF_ROUTE_VAL + I;
	if (c->mode == DF_MINIMAL)
		return DF_ROUTE_MIN;
	const uint32_t id = ws_df_router_id(&s->d, x->S, x->rs);
	const uint64_t q_min = ws_port_queue_bytes(inst->sim, id, pm);
	const uint64_t q_val = ws_port_queue_bytes(inst->sim, id, pv);
	if (q_min * hm > q_val * hv + c->ugal_bias)
		return DF_ROUTE_VAL + I;
	return DF_ROUTE_MIN;
}

/* next_hop when a group the packet may use has a dead link, or the port
 * the failure-free choice gives is down here. */
static __attribute__((noinline, cold)) uint32_t
df_next_hop_failed(struct ws_inst *inst, const struct ws_node *at,
				   const struct ws_node *dst, struct ws_pkt *pkt)
{
	const struct df_conf *c = inst->conf;
	const struct df_state *s = inst->state;
	/* a router that saw its own port go down before the rule was told */
	if (!df_summary_alloc(inst->state))
		return WS_PORT_NONE;
	const struct df_ctx x = {
		.pkt = pkt, .S = pkt->src / s->hosts_per_group,
		.T = dst->addr[0], .rd = dst->addr[1], .td = dst->addr[2],
		.rs = (pkt->src / s->d.p) % s->d.a, .self = at->id,
	};
	const uint32_t G = at->addr[0], r = at->addr[1];
	uint32_t route = pkt->route;
	/* within a group, a way through another group needs the classes */
	if (df_first(&x, G, r, route, pkt->vc) &&
	    (x.S != x.T || (route == 0 && c->vc_escalation))) {
		route = df_first_route(inst, &x, route);
		if (route == WS_NONE)
			return WS_PORT_NONE;
		if (route == DF_ROUTE_MIN && pkt->route == 0)
			route = 0; /* minimal mode leaves the route undecided */
		pkt->route = (uint16_t)route;
	}
	uint32_t vc = 0;
	const uint32_t port = df_step(inst, &x, G, r, route, pkt->vc, &vc);
	if (c->vc_escalation && port != WS_PORT_NONE)
		pkt->vc = (uint8_t)vc;
	return port;
}

static uint32_t df_next_hop(struct ws_inst *inst, const struct ws_node *at,
			    const struct ws_node *dst, struct ws_pkt *pkt)
{
	const struct df_conf *c = inst->conf;
	const struct df_state *s = inst->state;
	const uint32_t T = dst->addr[0];
	const uint32_t S = pkt->src / s->hosts_per_group;
	if (pkt->route == 0 && S != T && c->mode != DF_MINIMAL)
		pkt->route = df_decide(inst, at, dst, pkt, S);
	uint32_t vc = 0;
	const uint32_t port = df_clean(inst, at->id, at->addr[0], at->addr[1], S, T,
				       dst->addr[1], dst->addr[2], pkt->route,
				       pkt->vc, pkt, &vc);
	/* a dead link in a group the packet may use, or here: the failure
	 * rules (no link has ever failed while the kernel's count is zero) */
	if (port == WS_PORT_NONE ||
	    (__builtin_expect(*s->changes != 0, 0) && !ws_port_up(inst->sim, at->id, port)))
		return df_next_hop_failed(inst, at, dst, pkt);
	if (c->vc_escalation)
		pkt->vc = (uint8_t)vc;
	return port;
}

/* The summary, both ends of the link at (node, local); allocated at the
 * first change. */
/* The failure summary's arrays, at the first failure a router sees (its
 * own port down) or is told of; false when memory ran out. */
static bool df_summary_alloc(struct df_state *s)
{
	if (s->dead)
		return true;
	const struct ws_df_geom *d = &s->d;
	const uint64_t bits = (uint64_t)d->g * d->a * s->radix;
	s->dead = calloc((size_t)(bits + 63) / 64, sizeof *s->dead);
	s->group_dead = calloc(d->g, sizeof *s->group_dead);
	s->group_gdead = calloc(d->g, sizeof *s->group_gdead);
	if (s->dead && s->group_dead && s->group_gdead)
		return true;
	free(s->dead);
	free(s->group_dead);
	free(s->group_gdead);
	s->dead = NULL;
	s->group_dead = NULL;
	s->group_gdead = NULL;
	return false;
}

static int df_link_change(struct ws_inst *inst, const struct ws_fabric *fab,
			  uint32_t node, uint32_t local, bool up, struct ws_err *err)
{
	struct df_state *s = inst->state;
	const struct ws_df_geom *d = &s->d;
	(void)fab;
	if (!df_summary_alloc(s))
		return ws_err_set(err, WS_ENOMEM, "dragonfly: no memory for "
				  "the failure summary");
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	int rc = ws_port_info(inst->sim, node, local, &pi);
	if (rc)
		return ws_err_set(err, rc, "dragonfly: no port %u at node %u",
				  local, node);
	const uint32_t end[2][2] = { { node, local }, { pi.peer_node, pi.peer_local } };
	for (int e = 0; e < 2; e++) {
		if (end[e][0] < d->first_router)
			continue; /* a host: its router's end holds the bit */
		const uint32_t gr = end[e][0] - d->first_router;
		const uint64_t i = (uint64_t)gr * s->radix + end[e][1];
		const uint64_t bit = 1ull << (i & 63);
		if (((s->dead[i >> 6] & bit) != 0) == !up)
			continue; /* no change */
		s->dead[i >> 6] ^= bit;
		s->group_dead[gr / d->a] += up ? -1u : 1u;
		if (end[e][1] >= d->p + d->a - 1)
			s->group_gdead[gr / d->a] += up ? -1u : 1u;
		s->n_dead += up ? -1ull : 1ull;
	}
	return WS_OK;
}

/* The fabric must be the dragonfly the geometry describes, link for link. */
static int df_check_wiring(struct ws_inst *inst, const struct ws_fabric *fab,
			   struct ws_err *err)
{
	const struct df_state *s = inst->state;
	const struct ws_df_geom *d = &s->d;
	const uint32_t radix = d->p + d->a - 1 + d->h;
	static const char *const arr_names[] = { "absolute", "palmtree" };
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		const bool host = i < d->first_router;
		const uint32_t gr = host ? i / d->p : i - d->first_router;
		const uint32_t G = gr / d->a, r = gr % d->a;
		if (n->kind != (host ? WS_NODE_HOST : WS_NODE_SWITCH) ||
		    n->addr_len != (host ? 3 : 2) || n->addr[0] != G ||
		    n->addr[1] != r || (host && n->addr[2] != i % d->p) ||
		    n->n_ports != (host ? 1 : radix))
			return ws_err_set(err, WS_EINVAL,
					  "dragonfly: node %u is not %s (%u, %u%s) with %u "
					  "port(s) as the geometry p=%u a=%u h=%u g=%u numbers it",
					  i, host ? "host" : "router", G, r,
					  host ? ", t" : "", host ? 1 : radix, d->p, d->a,
					  d->h, d->g);
		for (uint32_t l = 0; l < n->n_ports; l++) {
			uint32_t want, want_port;
			if (host) {
				want = ws_df_router_id(d, G, r);
				want_port = i % d->p;
			} else if (l < d->p) {
				want = ws_df_host_id(d, G, r, l);
				want_port = 0;
			} else if (l < d->p + d->a - 1) {
				uint32_t j = l - d->p + (l - d->p >= r);
				want = ws_df_router_id(d, G, j);
				want_port = ws_df_local_port(d, j, r);
			} else {
				uint32_t k = r * d->h + (l - d->p - d->a + 1);
				uint32_t X = ws_df_target(d, G, k % (d->g - 1));
				uint32_t kx = ws_df_peer_link(d, G, k);
				want = ws_df_router_id(d, X, kx / d->h);
				want_port = ws_df_global_port(d, kx);
			}
			pi.peer_node = pi.peer_local = WS_NONE;
			if (ws_port_info(inst->sim, i, l, &pi) != WS_OK ||
			    pi.peer_node != want || pi.peer_local != want_port)
				return ws_err_set(err, WS_EINVAL,
						  "dragonfly: node %u port %u leads to node %d "
						  "port %d; the %s arrangement of p=%u a=%u h=%u "
						  "g=%u puts node %u port %u there",
						  i, l, (int)pi.peer_node, (int)pi.peer_local,
						  arr_names[d->arr], d->p, d->a, d->h, d->g,
						  want, want_port);
		}
	}
	return WS_OK;
}

static int df_prepare(struct ws_inst *inst, const struct ws_fabric *fab,
		      struct ws_err *err)
{
	const struct df_conf *c = inst->conf;
	struct df_state *s = inst->state;
	s->changes = ws_sim_link_changes(inst->sim);
	if (!(fab->shape & WS_SHAPE_DRAGONFLY))
		return ws_err_set(err, WS_EINVAL,
				  "dragonfly: the fabric is not a dragonfly");
	const uint32_t *gm = fab->geom;
	const uint64_t p = gm[WS_DF_GEOM_P], a = gm[WS_DF_GEOM_A],
		       h = gm[WS_DF_GEOM_H], g = gm[WS_DF_GEOM_G];
	if (!p || !a || !h || g < 2 || g > 65533 || (a * h) % (g - 1) ||
	    gm[WS_DF_GEOM_ARR] > WS_DF_ARR_PALMTREE ||
	    p + a - 1 + h > 65535 ||
	    fab->n_hosts != g * a * p || fab->n_switches != g * a ||
	    fab->n_nodes != g * a * (p + 1))
		return ws_err_set(err, WS_EINVAL,
				  "dragonfly: the fabric's geometry p=%llu a=%llu h=%llu "
				  "g=%llu arrangement=%u does not describe its %u hosts "
				  "and %u switches",
				  (unsigned long long)p, (unsigned long long)a,
				  (unsigned long long)h, (unsigned long long)g,
				  gm[WS_DF_GEOM_ARR], fab->n_hosts, fab->n_switches);
	if (c->mode != DF_MINIMAL && g < 3) {
		ws_err_key(err, WS_EINVAL, "mode",
			   "dragonfly: mode = %s needs an intermediate group, but "
			   "the fabric has only %llu groups; use mode = minimal",
			   df_modes[c->mode], (unsigned long long)g);
		return WS_EINVAL;
	}
	ws_df_geom_init(&s->d, (uint32_t)p, (uint32_t)a, (uint32_t)h, (uint32_t)g,
		     gm[WS_DF_GEOM_ARR]);
	s->hosts_per_group = (uint32_t)(a * p);
	s->radix = (uint32_t)(p + a - 1 + h);
	int rc = df_check_wiring(inst, fab, err);
	if (rc)
		return rc;
	if (c->mode == DF_UGAL && c->ugal_granularity == DF_GRAN_FLOWLET &&
	    !df_flowlet_of(s, 0))
		return ws_err_set(err, WS_ENOMEM,
				  "dragonfly: no memory for the flowlet table");
	return WS_OK;
}

static void df_fini(struct ws_inst *inst)
{
	struct df_state *s = inst->state;
	free(s->fl);
	free(s->dead);
	free(s->group_dead);
	free(s->group_gdead);
	s->fl = NULL;
	s->dead = NULL;
	s->group_dead = NULL;
	s->group_gdead = NULL;
	s->n_fl = 0;
	s->n_dead = 0;
}

static uint64_t df_state_bytes(const struct ws_inst *inst)
{
	const struct df_state *s = inst->state;
	uint64_t bytes = s->n_fl * sizeof *s->fl;
	if (s->dead)
		bytes += ((uint64_t)s->d.g * s->d.a * s->radix + 63) / 64 * sizeof *s->dead +
			 2 * (uint64_t)s->d.g * sizeof *s->group_dead;
	return bytes;
}

/* UGAL deciding per packet sends one flow's packets on several paths
 * (flowlets are kept apart by flowlet_gap, above the path delay
 * difference, so they are taken as one path). */
static bool df_multipath(const struct ws_inst *inst)
{
	const struct df_conf *c = inst->conf;
	return c->mode == DF_UGAL && c->ugal_granularity == DF_GRAN_PACKET;
}

static const struct ws_routing_ops df_ops = {
	.size = sizeof(struct ws_routing_ops),
	.shapes = WS_SHAPE_DRAGONFLY,
	.prepare = df_prepare,
	.next_hop = df_next_hop,
	.vcs = 2,
	.state_bytes = df_state_bytes,
	.link_change = df_link_change,
	.multipath = df_multipath,
};

static const struct ws_plugin df_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ROUTING, struct ws_routing_ops),
	.name = "dragonfly",
	.version = "1.0.0",
	.summary = "dragonfly minimal / Valiant / UGAL-L (flowlets) with class escalation per global hop; no tables",
	.params = df_params,
	.conf_size = sizeof(struct df_conf),
	.state_size = sizeof(struct df_state),
	.fini = df_fini,
	.ops = &df_ops,
};

WS_PLUGIN_EXPORT(df_plugin)
