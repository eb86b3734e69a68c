/* SPDX-License-Identifier: MIT */
/*
 * The geometry of the WS_SHAPE_DRAGONFLY fabric shape, published by the
 * kernel with the shape itself (fabric.h: WS_DF_GEOM_*, WS_DF_ARR_*): the
 * global-link arrangement, the port layout and the node numbering that a
 * dragonfly generator wires and a dragonfly routing rule routes on (and
 * checks the wiring against), defined once so the two cannot disagree.
 * Inline functions only: nothing here is a symbol of the library.
 *
 * Group G has a*h global links, numbered k = 0 .. a*h-1; link k belongs to
 * router k / h, on its global port k % h.  With g - 1 target groups and
 * C = a*h / (g-1) links per group pair, link k = c*(g-1) + t goes to target
 * offset t (0 .. g-2), copy c (0 .. C-1).  The arrangement maps offsets to
 * groups:
 *     absolute:  target(G, t) = t      if t < G,  t + 1 otherwise
 *     palmtree:  target(G, t) = (G - t - 1) mod g
 * and back (the offset of group X seen from G):
 *     absolute:  offset(G, X) = X      if X < G,  X - 1 otherwise
 *     palmtree:  offset(G, X) = (G - X - 1) mod g
 * Link (G, c, t) ends at link (X, c, offset(X, G)) of X = target(G, t):
 * the same copy, so both ends agree and every port is used once.
 */
#ifndef WARPSIM_DRAGONFLY_H
#define WARPSIM_DRAGONFLY_H

#include <stdint.h>

#include <warpsim/fabric.h>

struct ws_df_geom {
	uint32_t p, a, h, g; /* terminals, routers per group, globals per router, groups */
	uint32_t arr;        /* WS_DF_ARR_* */
	uint32_t copies;     /* global links per group pair: a*h / (g-1) */
	uint32_t first_router; /* node id of router (0, 0): g*a*p hosts come first */
};

static inline void ws_df_geom_init(struct ws_df_geom *d, uint32_t p, uint32_t a,
				uint32_t h, uint32_t g, uint32_t arr)
{
	d->p = p;
	d->a = a;
	d->h = h;
	d->g = g;
	d->arr = arr;
	d->copies = g > 1 ? a * h / (g - 1) : 0;
	d->first_router = g * a * p;
}

/* The group that offset t (0 .. g-2) of group G leads to. */
static inline uint32_t ws_df_target(const struct ws_df_geom *d, uint32_t G, uint32_t t)
{
	if (d->arr == WS_DF_ARR_ABSOLUTE)
		return t < G ? t : t + 1;
	return (G + d->g - t - 1) % d->g;
}

/* The offset of group X (!= G) among group G's targets. */
static inline uint32_t ws_df_offset(const struct ws_df_geom *d, uint32_t G, uint32_t X)
{
	if (d->arr == WS_DF_ARR_ABSOLUTE)
		return X < G ? X : X - 1;
	return (G + d->g - X - 1) % d->g;
}

/* The index, in group X = target of link k of group G, of that link's far end. */
static inline uint32_t ws_df_peer_link(const struct ws_df_geom *d, uint32_t G,
				    uint32_t k)
{
	uint32_t gm1 = d->g - 1, t = k % gm1;
	return (k - t) + ws_df_offset(d, ws_df_target(d, G, t), G);
}

/* Router r's port to router j (j != r) of its group. */
static inline uint32_t ws_df_local_port(const struct ws_df_geom *d, uint32_t r,
				     uint32_t j)
{
	return d->p + j - (j > r);
}

/* The port of global link k on its router (k / h). */
static inline uint32_t ws_df_global_port(const struct ws_df_geom *d, uint32_t k)
{
	return d->p + d->a - 1 + k % d->h;
}

/* Node id of router r of group G, and of terminal t of that router. */
static inline uint32_t ws_df_router_id(const struct ws_df_geom *d, uint32_t G,
				    uint32_t r)
{
	return d->first_router + G * d->a + r;
}

static inline uint32_t ws_df_host_id(const struct ws_df_geom *d, uint32_t G,
				  uint32_t r, uint32_t t)
{
	return (G * d->a + r) * d->p + t;
}

#endif
