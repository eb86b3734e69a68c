/* SPDX-License-Identifier: MIT */
/*
 * The flow-level rate solver shared by the `fluid` and `hygra` accelerators:
 * weighted max-min fair rates (progressive filling, "water-filling") of
 * flows over links, kept incrementally.
 *
 * Each flow crosses a list of links (global egress port ids) and has a
 * floor (a rate it holds whatever happens: hygra's measured packet-level
 * rate; 0 for fluid), a weight (its share of what is left) and a cap (its
 * NIC).  A flow's rate is floor + weight x level, the level rising for all
 * flows together until one of the flow's links is full or the flow reaches
 * its cap (Bertsekas & Gallager, Data Networks, 6.5.2, with weights).
 *
 * Incremental: adding or removing a flow marks what changed; fr_solve()
 * re-solves only the flows reachable from there in the flow-link graph
 * (the connected components that changed), since max-min rates of one
 * component do not depend on any other.  Pure C, no simulator: the tests
 * drive it directly.
 *
 * Links the flows cannot fill are left out: a link is loose while the sum
 * of use x cap of its flows is at most its capacity (within 1e-9), since no
 * rate the flows can take is then held back there.  A solve neither fills
 * nor checks a loose link nor reaches other flows through it, so a flow
 * whose links are all loose takes its cap alone, and a flow's cap as tight
 * as its caller knows (its rate alone, say) keeps the solves narrow.  Links
 * turn tight and loose as flows come and go and capacities change; the
 * rates are those of the solve over every link, up to rounding.
 */
#ifndef WS_FLOWRATE_SOLVER_H
#define WS_FLOWRATE_SOLVER_H

#include <stdbool.h>
#include <stdint.h>

#define FR_NONE UINT32_MAX

struct fr_net;

/* A solver over links 0..n_links-1; NULL when out of memory. */
struct fr_net *fr_new(uint32_t n_links);
void fr_free(struct fr_net *net);

/*
 * Add flow `id` (any id below 2^31, not live) over links[0..n-1] whose
 * capacities are link_cap[0..n-1] (bps; a link's capacity is the last one
 * given for it).  cap: the flow's own limit (bps, > 0); weight > 0;
 * floor in [0, cap].  Returns 0, or -1 (out of memory, bad link, live id).
 */
int fr_add(struct fr_net *net, uint32_t id, const uint32_t *links,
	   const double *link_cap, uint32_t n, double cap, double weight,
	   double floor);
/*
 * fr_add where link k carries use[k] x the flow's rate (use[k] > 0; NULL:
 * 1 each): a flow's ACKs load the links of their path by a fraction of its
 * rate.  A link is full when the sum of use x rate of its flows reaches
 * its capacity (progressive filling with coefficients).
 */
int fr_add_use(struct fr_net *net, uint32_t id, const uint32_t *links,
	       const double *link_cap, const double *use, uint32_t n, double cap,
	       double weight, double floor);
/*
 * Set link l's capacity (bps) from now on: the next fr_solve re-fills the
 * flows at the link's highest level (local solves) or its component, and
 * checks the others.  A link no flow crosses only takes the value.
 * Returns 0, or -1 (bad link, out of memory: then every flow is solved
 * next time).
 */
int fr_set_cap(struct fr_net *net, uint32_t l, double cap);
/* Remove a live flow (its rate is no longer kept). */
void fr_remove(struct fr_net *net, uint32_t id);
bool fr_live(const struct fr_net *net, uint32_t id);

/*
 * Re-solve the components changed since the last call (all = true: every
 * live flow, from scratch).  Returns how many flows were solved and points
 * *flows at them (valid until the next call); their rates are new.
 * Returns -1 when out of memory.
 */
int64_t fr_solve(struct fr_net *net, bool all, const uint32_t **flows);
/*
 * Local solves (off by default; fluid turns them on): fr_solve(net, false)
 * re-fills only the flows that came, those sharing a link with them, those
 * at or above the level of one that left on its links, and, while some
 * flow on a link whose load changed has no bottleneck (a full link where
 * no flow has a higher level, or its cap), that flow and its neighbours; the rest keep their rates.  Max-min
 * rates are the only ones where every flow has a bottleneck, so the result
 * is the component solve's up to rounding (relative 1e-9).  After 8
 * widenings it solves the components.
 */
void fr_set_local(struct fr_net *net, bool local);
/* A live flow's rate from the last solve that covered it (bps). */
double fr_rate(const struct fr_net *net, uint32_t id);

struct fr_stats {
	uint64_t solves;        /* fr_solve calls that solved something */
	uint64_t flows_solved;  /* sum of the flows they solved */
	uint64_t largest;       /* most flows in one solve */
	uint64_t local_rounds;  /* fills of local solves (widenings + 1 each) */
	uint64_t full_fallbacks;/* local solves that solved the components */
	uint32_t live;          /* live flows now */
	uint32_t pages;         /* pages of flow ids held now (4,096 ids each; a
				 * page goes when every id of it came and went) */
};
void fr_get_stats(const struct fr_net *net, struct fr_stats *out);

#endif
