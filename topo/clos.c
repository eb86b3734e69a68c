/* SPDX-License-Identifier: MIT */
/*
 * clos: a generic multi-tier folded Clos (Clos 1953; the "k-ary n-tree" of
 * Petrini and Vanneschi, and the leaf-spine and three-tier fabrics of
 * today's data centres), built by topo/clos-wire.c.
 *
 * 2 to 4 tiers; tier 1 is the leaf (ToR).  Per tier: down ports, up ports,
 * parallel links to the next tier, and how that tier wires up: `pod` (every
 * top switch of each child block to every switch of the block: leaf-spine,
 * the pods of a fat-tree) or `plane` (top switch j of each child block to
 * plane j: the core of a fat-tree).  With no per-tier key the fabric is the
 * non-blocking k-ary n-tier Clos of `radix`-port switches: d = u = radix/2
 * below the top, d = radix at the top, `pod` at tier 2 and `plane` above;
 * tiers = 3 is exactly fat-tree k = radix.  Oversubscription is down > up.
 * `planes` copies the switch fabric; every host then has one port per
 * plane (port p to its leaf in plane p) and updown picks one per flow.
 *
 * Node ids: hosts first in address order (leaf-major: host id = leaf * down1
 * + port), then the switches of plane 0, plane 1, ...; within a plane tier
 * by tier, block-major.  Host addresses have `tiers` digits: the block
 * index at each level from the top, then the port on the leaf; a tier-t
 * switch carries its block's tiers - t digits.  Ports: down ports first, the
 * x-th child block on [x g, (x+1) g) (g = the switch's down_group), then
 * up ports.  clos-wire.c has the details; routing/updown routes it with no
 * table.
 */
#include <string.h>

#include <warpsim/warpsim.h>

#include "clos-wire.h"

struct clos_conf {
	uint64_t tiers;
	uint64_t radix;
	uint64_t down[CLOS_MAX_TIERS + 1];  /* [1..4]; 0: from the radix */
	uint64_t up[CLOS_MAX_TIERS + 1];    /* [1..3]; 0: from the radix */
	uint64_t links[CLOS_MAX_TIERS + 1]; /* [1..3] */
	int connect[CLOS_MAX_TIERS + 1];    /* [2..4]: enum clos_connect */
	uint64_t radix_t[CLOS_MAX_TIERS + 1]; /* [1..4]; 0: radix */
	uint64_t planes;
	uint64_t link_rate;
	uint64_t host_rate;
	ws_time link_delay;
	struct clos_tier_keys tier_links;
};

static const char *const clos_connects[] = { "pod", "plane", NULL };

#define CLOS_DOWN(t, doc) \
	WS_PARAM_UINT("down" #t, struct clos_conf, down[t], "0", "0", "65535", doc)
#define CLOS_UP(t) \
	WS_PARAM_UINT("up" #t, struct clos_conf, up[t], "0", "0", "65535", \
		      "tier-" #t " up ports (none at the top tier); 0: half the tier's radix")
#define CLOS_LINKS(t, above) \
	WS_PARAM_UINT("links" #t, struct clos_conf, links[t], "1", "1", "65535", \
		      "parallel links from a tier-" #t " switch to each tier-" above \
		      " switch it reaches; divides up" #t)
#define CLOS_RADIX(t, fit) \
	WS_PARAM_UINT("radix" #t, struct clos_conf, radix_t[t], "0", "0", "65535", \
		      "ports of a tier-" #t " switch (" fit " must fit); 0: radix")
#define CLOS_DOWN_DOC(t) \
	"tier-" #t " down ports; 0: half the tier's radix, all of it at the top tier"

static const struct ws_param clos_params[] = {
	WS_PARAM_UINT("tiers", struct clos_conf, tiers, "3", "2", "4",
		      "switch tiers; tier 1 is the leaf (ToR)"),
	WS_PARAM_UINT("radix", struct clos_conf, radix, "8", "1", "65535",
		      "switch ports where radixN is 0; even, >= 4; per-tier keys 0: "
		      "the non-blocking k-ary n-tier Clos"),
	CLOS_DOWN(1, "hosts per leaf (tier-1 down ports); 0: half the tier's radix"),
	CLOS_DOWN(2, CLOS_DOWN_DOC(2)), CLOS_DOWN(3, CLOS_DOWN_DOC(3)),
	CLOS_DOWN(4, CLOS_DOWN_DOC(4)),
	CLOS_UP(1), CLOS_UP(2), CLOS_UP(3),
	CLOS_LINKS(1, "2"), CLOS_LINKS(2, "3"), CLOS_LINKS(3, "4"),
	WS_PARAM_ENUM("connect2", struct clos_conf, connect[2], "pod", clos_connects,
		      "tier 1 to 2: each leaf to every tier-2 switch of its block "
		      "(pod and plane coincide at tier 2)"),
	WS_PARAM_ENUM("connect3", struct clos_conf, connect[3], "plane", clos_connects,
		      "tier 2 to 3: pod (every tier-2 switch of each child block to "
		      "every tier-3 switch of the block) or plane (tier-2 switch j of "
		      "each child block to plane j)"),
	WS_PARAM_ENUM("connect4", struct clos_conf, connect[4], "plane", clos_connects,
		      "tier 3 to 4: pod or plane, as connect3"),
	CLOS_RADIX(1, "down1 + up1"), CLOS_RADIX(2, "down2 + up2"),
	CLOS_RADIX(3, "down3 + up3"), CLOS_RADIX(4, "down4"),
	WS_PARAM_UINT("planes", struct clos_conf, planes, "1", "1", "16",
		      "copies of the switch fabric; every host has one port per plane"),
	WS_PARAM_RATE("link_rate", struct clos_conf, link_rate, "100Gbps", "1Mbps", "100Tbps",
		      "rate of every switch-to-switch link where link_rate_tierN is 0bps"),
	WS_PARAM_RATE("host_rate", struct clos_conf, host_rate, "0bps", "0bps", "100Tbps",
		      "rate of host-to-leaf links; 0bps: the same as link_rate"),
	WS_PARAM_TIME("link_delay", struct clos_conf, link_delay, "1us", "0s", "1s",
		      "propagation delay of every link, host links included, where link_delay_tierN is empty"),
	CLOS_LINK_DELAY_TIER(struct clos_conf, tier_links, 1, "host to leaf"),
	CLOS_LINK_DELAY_TIER(struct clos_conf, tier_links, 2, "tier 1 to tier 2"),
	CLOS_LINK_DELAY_TIER(struct clos_conf, tier_links, 3, "tier 2 to tier 3"),
	CLOS_LINK_DELAY_TIER(struct clos_conf, tier_links, 4, "tier 3 to tier 4"),
	CLOS_LINK_RATE_TIER(struct clos_conf, tier_links, 2, "tier 1 to tier 2"),
	CLOS_LINK_RATE_TIER(struct clos_conf, tier_links, 3, "tier 2 to tier 3"),
	CLOS_LINK_RATE_TIER(struct clos_conf, tier_links, 4, "tier 3 to tier 4"),
	WS_PARAM_END
};

static const char *const clos_key_down[] = { NULL, "down1", "down2", "down3", "down4" };
static const char *const clos_key_up[] = { NULL, "up1", "up2", "up3", "up4" };
static const char *const clos_key_links[] = { NULL, "links1", "links2", "links3", "links4" };
static const char *const clos_key_radix[] = { NULL, "radix1", "radix2", "radix3", "radix4" };
static const char *const clos_tier_name[] = { NULL, "tier-1", "tier-2", "tier-3", "tier-4" };

/* The spec the keys describe; a value taken from a radix names that key. */
static int clos_spec_of(const struct clos_conf *c, struct clos_spec *s,
			struct ws_err *err)
{
	const uint32_t T = (uint32_t)c->tiers;
	memset(s, 0, sizeof *s);
	s->tiers = T;
	for (uint32_t t = 1; t <= T && t <= CLOS_MAX_TIERS; t++) {
		struct clos_tier *x = &s->tier[t];
		const char *rkey = c->radix_t[t] ? clos_key_radix[t] : "radix";
		x->radix = (uint32_t)(c->radix_t[t] ? c->radix_t[t] : c->radix);
		x->down = (uint32_t)(c->down[t] ? c->down[t] : t < T ? x->radix / 2 : x->radix);
		x->up = (uint32_t)(t == T ? c->up[t] : c->up[t] ? c->up[t] : x->radix / 2);
		x->links = (uint32_t)c->links[t];
		x->connect = (uint32_t)c->connect[t];
		x->name = clos_tier_name[t];
		if (!c->down[t])
			x->down_why = t < T ? "half the radix" : "the radix";
		x->key_down = c->down[t] ? clos_key_down[t] : rkey;
		x->key_up = c->up[t] || t == T ? clos_key_up[t] : rkey;
		x->key_links = clos_key_links[t];
		x->key_radix = rkey;
	}
	s->planes = (uint32_t)c->planes;
	s->key_tiers = "tiers";
	s->key_planes = "planes";
	s->key_size = "radix";
	return clos_tier_links(s, &c->tier_links, CLOS_MAX_TIERS,
			       c->host_rate ? c->host_rate : c->link_rate,
			       c->link_rate, c->link_delay, err);
}

static int clos_validate(const void *conf, struct ws_err *err)
{
	const struct clos_conf *c = conf;
	const uint32_t T = (uint32_t)c->tiers;
	if (c->radix < 4)
		return ws_err_key(err, WS_EINVAL, "radix", "radix = %llu: radix too small (at least 4)",
				(unsigned long long)c->radix);
	if (c->radix % 2)
		return ws_err_key(err, WS_EINVAL, "radix", "radix = %llu: must be even (d = u = radix/2)",
				(unsigned long long)c->radix);
	/* a key for a tier the fabric does not have is a mistake, not a no-op */
	for (uint32_t t = T + 1; t <= CLOS_MAX_TIERS; t++) {
		if (c->down[t] || c->radix_t[t])
			return ws_err_key(err, WS_EINVAL, c->down[t] ? clos_key_down[t] : clos_key_radix[t],
					"%s is set but tiers = %u",
					c->down[t] ? clos_key_down[t] : clos_key_radix[t], T);
	}
	for (uint32_t t = T; t < CLOS_MAX_TIERS; t++) {
		if (t > T && c->up[t])
			return ws_err_key(err, WS_EINVAL, clos_key_up[t], "%s is set but tiers = %u",
					clos_key_up[t], T);
		if (c->links[t] != 1)
			return ws_err_key(err, WS_EINVAL, clos_key_links[t],
					"%s = %llu: there is no tier %u above the top (tiers = %u)",
					clos_key_links[t], (unsigned long long)c->links[t], t + 1, T);
	}
	struct clos_spec s;
	struct clos_plan p;
	int rc = clos_spec_of(c, &s, err);
	return rc ? rc : clos_plan(&s, &p, err);
}

static int clos_topo_build(struct ws_inst *inst, struct ws_builder *b,
			   struct ws_err *err)
{
	struct clos_spec s;
	int rc = clos_spec_of(inst->conf, &s, err);
	return rc ? rc : clos_build(&s, b, err);
}

static const struct ws_topo_ops clos_ops = {
	.size = sizeof(struct ws_topo_ops),
	.build = clos_topo_build,
	.default_routing = "updown",
};

static const struct ws_plugin clos_plugin = {
	WS_PLUGIN_ABI(WS_KIND_TOPO, struct ws_topo_ops),
	.name = "clos",
	.version = "1.0.0",
	.summary = "multi-tier Clos (2-4 tiers): per-tier down/up ports, parallel links, "
		   "pod or plane wiring, oversubscription, planes",
	.params = clos_params,
	.conf_size = sizeof(struct clos_conf),
	.validate = clos_validate,
	.ops = &clos_ops,
};

WS_PLUGIN_EXPORT(clos_plugin)
