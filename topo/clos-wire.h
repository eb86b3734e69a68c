/* SPDX-License-Identifier: MIT */
/*
 * The wiring of a multi-tier Clos, shared by the clos, fat-tree and rail
 * topology plugins (compiled into each module; no symbol is exported).  The
 * model, the node numbering, the port numbering and the addresses are
 * described at the top of clos-wire.c.
 */
#ifndef WARPSIM_TOPO_CLOS_WIRE_H
#define WARPSIM_TOPO_CLOS_WIRE_H

#include <stdint.h>

#include <warpsim/warpsim.h>

#define CLOS_MAX_TIERS 4
#define CLOS_MAX_PLANES 16
/* more nodes than this is a typo, not a fabric */
#define CLOS_MAX_NODES (1u << 31)

/* How the switches of tier t-1 connect to those of tier t. */
enum clos_connect {
	CLOS_POD = 0,   /* every top switch of a child block to every switch of the block */
	CLOS_PLANE = 1, /* top switch j of every child block to plane j of the block */
};

/* One tier as a plugin asks for it, and the keys it came from. */
struct clos_tier {
	uint32_t down;  /* d_t: ports towards the hosts */
	uint32_t up;    /* u_t: ports to tier t+1; 0 at the top */
	uint32_t links; /* m_t: parallel links to each tier-(t+1) switch reached */
	uint32_t radix; /* ports a switch of this tier has; d_t + u_t must fit */
	uint32_t connect; /* enum clos_connect, from tier t-1 (t >= 2) */
	const char *name; /* "leaf", "spine", ... for messages */
	const char *down_why; /* how a derived `down` is computed, or NULL */
	/* the plugin keys these values come from, for ws_err_key */
	const char *key_down, *key_up, *key_links, *key_radix;
};

/*
 * Host placement: host `host` (its node id) sits on the leaf with global
 * index *leaf (leaves in address order) at leaf down port *port.  Must be a
 * bijection onto leaves x down ports.
 */
typedef void (*clos_place_fn)(const void *arg, uint32_t host, uint32_t *leaf,
			      uint32_t *port);

struct clos_spec {
	uint32_t tiers;   /* T, 2..CLOS_MAX_TIERS */
	struct clos_tier tier[CLOS_MAX_TIERS + 1]; /* [1..T]; [0] unused */
	uint32_t planes;  /* copies of the switch fabric; a host has one port per plane */
	/* link tier t joins tier t-1 (the hosts at t = 1) to tier t, as the
	 * kernel's ws_link_tier numbers it: [1] host links, [2] leaf to tier
	 * 2, ...; [0] unused */
	uint64_t rate[CLOS_MAX_TIERS + 1];  /* bps */
	ws_time delay[CLOS_MAX_TIERS + 1];
	clos_place_fn place; /* NULL: host id = leaf * d_1 + port */
	const void *place_arg;
	/* keys for messages: the tier count, the plane count, and the key that
	 * scales the fabric (named when it grows past CLOS_MAX_NODES) */
	const char *key_tiers, *key_planes, *key_size;
};

/*
 * The per-tier link keys, declared the same way by every Clos plugin
 * (docs/config.md, "Per-tier fabric settings"): link_delay_tierT, a time or
 * empty (then link_delay), for T = 1 .. the plugin's deepest tier, and
 * link_rate_tierT, a rate or 0bps (then link_rate), for T >= 2; tier 1's rate
 * is the plugin's host (NIC) rate.  A key set for a tier the fabric lacks is
 * refused.
 */
struct clos_tier_keys {
	const char *delay[CLOS_MAX_TIERS + 1]; /* [1..]; "" unset */
	uint64_t rate[CLOS_MAX_TIERS + 1];     /* [2..]; 0 unset */
};

#define CLOS_LINK_DELAY_TIER(T, f, t, what)                                    \
	WS_PARAM_STRING("link_delay_tier" #t, T, f.delay[t], "",               \
			"propagation delay of tier-" #t " links (" what           \
			"), e.g. 2us; empty: link_delay")
#define CLOS_LINK_RATE_TIER(T, f, t, what)                                     \
	WS_PARAM_RATE("link_rate_tier" #t, T, f.rate[t], "0bps", "0bps",        \
		      "100Tbps", "rate of tier-" #t " links (" what               \
		      "); 0bps: link_rate")

/*
 * Set s->rate[] and s->delay[] for tiers 1 .. s->tiers: host_rate at tier 1,
 * link_rate above, link_delay everywhere, each replaced by the tier's key
 * when set.  `declared` is the deepest tier the plugin has keys for.
 */
int clos_tier_links(struct clos_spec *s, const struct clos_tier_keys *k,
		    uint32_t declared, uint64_t host_rate, uint64_t link_rate,
		    ws_time link_delay, struct ws_err *err);

/* What the spec implies, per tier and in total. */
struct clos_plan {
	uint32_t sw[CLOS_MAX_TIERS + 1];     /* s_t: tier-t switches per level-t block */
	uint32_t group[CLOS_MAX_TIERS + 1];  /* down_group of a tier-t switch */
	uint32_t child[CLOS_MAX_TIERS + 1];  /* c_t: children per level-t block (c_1 = hosts) */
	uint32_t blocks[CLOS_MAX_TIERS + 1]; /* level-t blocks in the fabric */
	uint32_t first[CLOS_MAX_TIERS + 1];  /* offset of tier t's switches in a plane */
	uint32_t hosts;
	uint32_t plane_switches;             /* switches of one plane */
	uint32_t nodes, ports, links;        /* all planes */
};

/* Check the spec and derive the plan; errors name the offending key. */
int clos_plan(const struct clos_spec *s, struct clos_plan *p,
	      struct ws_err *err);
/* Plan, then add every node and link through the builder. */
int clos_build(const struct clos_spec *s, struct ws_builder *b,
	       struct ws_err *err);

#endif
