/* SPDX-License-Identifier: MIT */
/*
 * fat-tree: the k-ary fat-tree of Al-Fares, Loukissas and Vahdat ("A
 * Scalable, Commodity Data Center Network Architecture", SIGCOMM 2008).
 *
 * k pods; each pod has k/2 edge and k/2 aggregation switches; each edge
 * switch serves k/2 hosts; (k/2)^2 core switches.  k^3/4 hosts in all.
 *
 * Node ids: hosts first (pod-major: id = pod*(k/2)^2 + edge*(k/2) + host,
 * as in the HPCC simulator's fat-tree files), then edge, aggregation and
 * core switches.  Addresses: a host is (pod, edge, host); an edge switch
 * covers (pod, edge); an aggregation switch covers (pod); a core covers all.
 * Ports: edge 0..k/2-1 down to hosts, k/2.. up to aggregation switch i of
 * its pod; aggregation 0..k/2-1 down to edges, k/2+j up to core
 * agg*(k/2) + j; core port p down to pod p.  Up/down routing needs no table.
 *
 * The wiring is topo/clos-wire.c's three-tier Clos: d = u = k/2 at the edge
 * and aggregation tiers, d = k at the core, one link per pair; pods (edge to
 * aggregation full bipartite), then core planes (aggregation switch a of
 * every pod to plane a, the cores a*(k/2) .. a*(k/2) + k/2 - 1).  `clos`
 * with tiers = 3 and radix = k builds the same fabric.
 */
#include <string.h>

#include <warpsim/warpsim.h>

#include "clos-wire.h"

struct ft_conf {
	uint64_t k;
	uint64_t link_rate;
	ws_time link_delay;
	uint64_t host_rate;
	struct clos_tier_keys tiers;
};

static const struct ws_param ft_params[] = {
	WS_PARAM_UINT("k", struct ft_conf, k, "4", "2", "254",
		      "switch radix; even; k pods, k^3/4 hosts"),
	WS_PARAM_RATE("link_rate", struct ft_conf, link_rate, "100Gbps", "1Mbps", "100Tbps",
		      "rate of every switch-to-switch link where link_rate_tierN is 0bps"),
	WS_PARAM_TIME("link_delay", struct ft_conf, link_delay, "1us", "0s", "1s",
		      "propagation delay of every link, host links included, where link_delay_tierN is empty"),
	WS_PARAM_RATE("host_rate", struct ft_conf, host_rate, "0bps", "0bps", "100Tbps",
		      "rate of host-to-edge links; 0bps: the same as link_rate"),
	CLOS_LINK_DELAY_TIER(struct ft_conf, tiers, 1, "host to edge"),
	CLOS_LINK_DELAY_TIER(struct ft_conf, tiers, 2, "edge to aggregation"),
	CLOS_LINK_DELAY_TIER(struct ft_conf, tiers, 3, "aggregation to core"),
	CLOS_LINK_RATE_TIER(struct ft_conf, tiers, 2, "edge to aggregation"),
	CLOS_LINK_RATE_TIER(struct ft_conf, tiers, 3, "aggregation to core"),
	WS_PARAM_END
};

/* The k-ary fat-tree as a three-tier Clos: pods, then core planes. */
static int ft_spec(const struct ft_conf *c, struct clos_spec *s,
		   struct ws_err *err)
{
	const uint32_t k = (uint32_t)c->k, h = k / 2;
	static const char *const names[] = { NULL, "edge", "aggregation", "core" };
	memset(s, 0, sizeof *s);
	s->tiers = 3;
	for (uint32_t t = 1; t <= 3; t++)
		s->tier[t] = (struct clos_tier){
			.down = t < 3 ? h : k, .up = t < 3 ? h : 0, .links = 1,
			.radix = k, .connect = t == 3 ? CLOS_PLANE : CLOS_POD,
			.name = names[t], .key_down = "k", .key_up = "k",
			.key_links = "k", .key_radix = "k",
		};
	s->planes = 1;
	s->key_tiers = s->key_planes = s->key_size = "k";
	return clos_tier_links(s, &c->tiers, 3, c->host_rate ? c->host_rate : c->link_rate,
			       c->link_rate, c->link_delay, err);
}

static int ft_validate(const void *conf, struct ws_err *err)
{
	const struct ft_conf *c = conf;
	if (c->k % 2)
		return ws_err_key(err, WS_EINVAL, "k", "k = %llu: a fat-tree needs an even k",
				(unsigned long long)c->k);
	struct clos_spec s;
	struct clos_plan p;
	int rc = ft_spec(c, &s, err);
	return rc ? rc : clos_plan(&s, &p, err);
}

static int ft_build(struct ws_inst *inst, struct ws_builder *b,
		    struct ws_err *err)
{
	struct clos_spec s;
	int rc = ft_spec(inst->conf, &s, err);
	return rc ? rc : clos_build(&s, b, err);
}

static const struct ws_topo_ops ft_ops = {
	.size = sizeof(struct ws_topo_ops),
	.build = ft_build,
	.default_routing = "updown",
};

static const struct ws_plugin ft_plugin = {
	WS_PLUGIN_ABI(WS_KIND_TOPO, struct ws_topo_ops),
	.name = "fat-tree",
	.version = "1.0.0",
	.summary = "k-ary fat-tree (Al-Fares et al. 2008): k^3/4 hosts, pod/edge/host addresses",
	.params = ft_params,
	.conf_size = sizeof(struct ft_conf),
	.validate = ft_validate,
	.ops = &ft_ops,
};

WS_PLUGIN_EXPORT(ft_plugin)
