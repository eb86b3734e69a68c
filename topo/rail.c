/* SPDX-License-Identifier: MIT */
/*
 * rail: a rail-optimized fat-tree, the fabric of GPU clusters such as the
 * NVIDIA DGX SuperPOD (scalable units of 32 DGX servers, one leaf per rail)
 * and Alibaba HPN (SIGCOMM 2024: rail leaves, dual-plane NICs), built by
 * topo/clos-wire.c.
 *
 * A server holds `gpus_per_server` G GPUs, each with its own NIC (a host
 * here).  A scalable unit is `servers_per_unit` S servers and G rail
 * leaves: NIC i of every server of the unit connects to rail leaf i of the
 * unit (leaf down port = the server's number in the unit).  So traffic
 * between GPUs of the same rank in a unit (same rail) crosses one switch:
 * GPU -> leaf -> GPU.  Leaves go up to spines:
 *   tiers = 2: every leaf of the `units` units to every spine (pod wiring
 *              over all U G leaves; spine down ports = U G leaf_links);
 *   tiers = 3: `units_per_pod` units form a pod whose leaves connect to
 *              every spine of the pod; spine j of every pod connects to
 *              core plane j (spine down ports = units_per_pod G leaf_links,
 *              core down ports = pods spine_links).
 * `leaf_up` (default S) and `spine_up` (default the spine's down ports)
 * below the down ports oversubscribe.  With `dual_plane` every NIC has two
 * ports, port p to its rail leaf in plane p, and the switch fabric exists
 * twice (HPN's dual-plane); updown picks a plane per flow.
 *
 * Node ids: GPUs first, server-major: the GPU of rank g of server s of unit
 * u is (u S + s) G + g, so a server's GPUs are consecutive ids (workloads
 * rely on this).  Then the switches of plane 0 (leaves, spines, cores),
 * then plane 1.  Leaves are numbered unit-major (leaf of rail g of unit u:
 * u G + g among the leaves), spines and cores as clos-wire.c numbers them.
 * Addresses: the leaf is the level-1 block, numbered within its pod as
 * (unit in pod) G + rail, so a GPU's address is (leaf, server) with two
 * tiers and (pod, leaf, server) with three; one digit for unit and rail
 * together because a spine reaches each leaf of its pod through its own
 * down ports.  routing/updown routes it with no table.
 */
#include <string.h>

#include <warpsim/warpsim.h>

#include "clos-wire.h"

struct rail_conf {
	uint64_t gpus_per_server;
	uint64_t servers_per_unit;
	uint64_t units;
	uint64_t tiers;
	uint64_t units_per_pod; /* tiers = 3 only */
	uint64_t leaf_up;       /* 0: servers_per_unit */
	uint64_t spine_up;      /* 0: the spine's down ports */
	uint64_t leaf_links;
	uint64_t spine_links;
	uint64_t leaf_radix;
	uint64_t spine_radix;
	uint64_t core_radix;
	uint64_t nic_rate;
	uint64_t link_rate;
	ws_time link_delay;
	bool dual_plane;
	struct clos_tier_keys tier_links;
};

static const struct ws_param rail_params[] = {
	WS_PARAM_UINT("gpus_per_server", struct rail_conf, gpus_per_server, "8", "1", "256",
		      "G: GPUs (each with its own NIC) per server, and rails per unit"),
	WS_PARAM_UINT("servers_per_unit", struct rail_conf, servers_per_unit, "32", "1", "65535",
		      "S: servers per scalable unit, the down ports of a rail leaf"),
	WS_PARAM_UINT("units", struct rail_conf, units, "4", "1", "65535",
		      "U: scalable units; U S G GPUs in all"),
	WS_PARAM_UINT("tiers", struct rail_conf, tiers, "2", "2", "3",
		      "2: leaves and spines; 3: pods of units_per_pod units, and cores"),
	WS_PARAM_UINT("units_per_pod", struct rail_conf, units_per_pod, "0", "0", "65535",
		      "tiers = 3: units per pod (divides units); 0 with tiers = 2"),
	WS_PARAM_UINT("leaf_up", struct rail_conf, leaf_up, "0", "0", "65535",
		      "up ports of a leaf; 0: servers_per_unit (non-blocking)"),
	WS_PARAM_UINT("spine_up", struct rail_conf, spine_up, "0", "0", "65535",
		      "tiers = 3: up ports of a spine; 0: its down ports (non-blocking)"),
	WS_PARAM_UINT("leaf_links", struct rail_conf, leaf_links, "1", "1", "65535",
		      "parallel links from a leaf to each spine; divides leaf_up"),
	WS_PARAM_UINT("spine_links", struct rail_conf, spine_links, "1", "1", "65535",
		      "tiers = 3: parallel links from a spine to each core; divides spine_up"),
	WS_PARAM_UINT("leaf_radix", struct rail_conf, leaf_radix, "64", "2", "65535",
		      "ports of a leaf switch"),
	WS_PARAM_UINT("spine_radix", struct rail_conf, spine_radix, "64", "2", "65535",
		      "ports of a spine switch"),
	WS_PARAM_UINT("core_radix", struct rail_conf, core_radix, "64", "2", "65535",
		      "tiers = 3: ports of a core switch"),
	WS_PARAM_RATE("nic_rate", struct rail_conf, nic_rate, "400Gbps", "1Mbps", "100Tbps",
		      "rate of every NIC port (GPU-to-leaf link)"),
	WS_PARAM_RATE("link_rate", struct rail_conf, link_rate, "400Gbps", "1Mbps", "100Tbps",
		      "rate of every switch-to-switch link where link_rate_tierN is 0bps"),
	WS_PARAM_TIME("link_delay", struct rail_conf, link_delay, "1us", "0s", "1s",
		      "propagation delay of every link, NIC links included, where link_delay_tierN is empty"),
	WS_PARAM_BOOL("dual_plane", struct rail_conf, dual_plane, "false",
		      "two NIC ports per GPU, port p to its rail leaf in plane p; two switch planes"),
	CLOS_LINK_DELAY_TIER(struct rail_conf, tier_links, 1, "NIC to rail leaf"),
	CLOS_LINK_DELAY_TIER(struct rail_conf, tier_links, 2, "leaf to spine"),
	CLOS_LINK_DELAY_TIER(struct rail_conf, tier_links, 3, "spine to core, tiers = 3"),
	CLOS_LINK_RATE_TIER(struct rail_conf, tier_links, 2, "leaf to spine"),
	CLOS_LINK_RATE_TIER(struct rail_conf, tier_links, 3, "spine to core, tiers = 3"),
	WS_PARAM_END
};

/* GPU id -> its rail leaf (unit-major) and the leaf port (its server). */
static void rail_place(const void *arg, uint32_t host, uint32_t *leaf,
		       uint32_t *port)
{
	const struct rail_conf *c = arg;
	const uint32_t G = (uint32_t)c->gpus_per_server, S = (uint32_t)c->servers_per_unit;
	const uint32_t server = host / G, unit = server / S;
	*leaf = unit * G + host % G;
	*port = server % S;
}

/* A derived port count, saturated so that the radix check reports it. */
static uint32_t rail_ports(uint64_t n)
{
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static int rail_spec(const struct rail_conf *c, struct clos_spec *s,
		     struct ws_err *err)
{
	const uint32_t T = (uint32_t)c->tiers;
	const uint64_t per_pod = T == 3 && c->units_per_pod ? c->units_per_pod : c->units;
	const uint64_t spine_down = per_pod * c->gpus_per_server * c->leaf_links;
	memset(s, 0, sizeof *s);
	s->tiers = T;
	s->tier[1] = (struct clos_tier){
		.down = (uint32_t)c->servers_per_unit,
		.up = (uint32_t)(c->leaf_up ? c->leaf_up : c->servers_per_unit),
		.links = (uint32_t)c->leaf_links, .radix = (uint32_t)c->leaf_radix,
		.name = "leaf", .key_down = "servers_per_unit",
		.key_up = c->leaf_up ? "leaf_up" : "servers_per_unit",
		.key_links = "leaf_links", .key_radix = "leaf_radix",
	};
	s->tier[2] = (struct clos_tier){
		.down = rail_ports(spine_down),
		.up = T == 3 && !c->spine_up ? rail_ports(spine_down) : (uint32_t)c->spine_up,
		.links = (uint32_t)c->spine_links, .radix = (uint32_t)c->spine_radix,
		.connect = CLOS_POD, .name = "spine",
		.down_why = T == 3 ? "units_per_pod x gpus_per_server x leaf_links"
				   : "units x gpus_per_server x leaf_links",
		.key_down = T == 3 ? "units_per_pod" : "units",
		.key_up = "spine_up", .key_links = "spine_links", .key_radix = "spine_radix",
	};
	if (T == 3)
		s->tier[3] = (struct clos_tier){
			.down = rail_ports(c->units / per_pod * c->spine_links),
			.radix = (uint32_t)c->core_radix, .connect = CLOS_PLANE,
			.name = "core", .down_why = "units / units_per_pod x spine_links",
			.key_down = "units", .key_up = "spine_up",
			.key_radix = "core_radix",
		};
	s->planes = c->dual_plane ? 2 : 1;
	s->place = rail_place;
	s->place_arg = c;
	s->key_tiers = "tiers";
	s->key_planes = "dual_plane";
	s->key_size = "units";
	return clos_tier_links(s, &c->tier_links, 3, c->nic_rate, c->link_rate,
			       c->link_delay, err);
}

static int rail_validate(const void *conf, struct ws_err *err)
{
	const struct rail_conf *c = conf;
	if (c->tiers == 2 && c->units_per_pod)
		return ws_err_key(err, WS_EINVAL, "units_per_pod",
				"units_per_pod = %llu: pods exist only with tiers = 3",
				(unsigned long long)c->units_per_pod);
	if (c->tiers == 2 && c->spine_links != 1)
		return ws_err_key(err, WS_EINVAL, "spine_links",
				"spine_links = %llu: spines have no up links with tiers = 2",
				(unsigned long long)c->spine_links);
	if (c->tiers == 3 && !c->units_per_pod)
		return ws_err_key(err, WS_EINVAL, "units_per_pod",
				"tiers = 3 needs units_per_pod, the units of a pod");
	if (c->tiers == 3 && c->units % c->units_per_pod)
		return ws_err_key(err, WS_EINVAL, "units_per_pod",
				"units_per_pod = %llu does not divide units = %llu",
				(unsigned long long)c->units_per_pod,
				(unsigned long long)c->units);
	struct clos_spec s;
	struct clos_plan p;
	int rc = rail_spec(c, &s, err);
	return rc ? rc : clos_plan(&s, &p, err);
}

static int rail_build(struct ws_inst *inst, struct ws_builder *b,
		      struct ws_err *err)
{
	struct clos_spec s;
	const struct rail_conf *c = inst->conf;
	int rc = rail_spec(c, &s, err);
	if (rc == WS_OK)
		rc = clos_build(&s, b, err);
	if (rc == WS_OK) /* training workloads model NVLink inside a server */
		ws_builder_set_server_size(b, (uint32_t)c->gpus_per_server);
	return rc;
}

static const struct ws_topo_ops rail_ops = {
	.size = sizeof(struct ws_topo_ops),
	.build = rail_build,
	.default_routing = "updown",
};

static const struct ws_plugin rail_plugin = {
	WS_PLUGIN_ABI(WS_KIND_TOPO, struct ws_topo_ops),
	.name = "rail",
	.version = "1.0.0",
	.summary = "rail-optimized fat-tree (DGX SuperPOD / HPN-like): NIC g of every "
		   "server to rail leaf g; 2 or 3 tiers; dual plane",
	.params = rail_params,
	.conf_size = sizeof(struct rail_conf),
	.validate = rail_validate,
	.ops = &rail_ops,
};

WS_PLUGIN_EXPORT(rail_plugin)
