/* SPDX-License-Identifier: MIT */
/*
 * updown: hierarchical-address up/down routing for trees (fat-trees, Clos),
 * with no per-destination table.
 *
 * A switch covers the hosts whose address starts with its prefix (its first
 * addr_len digits).  If the destination is covered, the packet goes down the
 * port computed from the destination's next digit (times down_group, plus a
 * hash among parallel links); otherwise it goes up, on the up port chosen by
 * an xxHash of the flow's 5-tuple seeded with the switch id (ECMP), so a
 * flow keeps one path and different switches choose independently.  A host
 * with several ports (one per plane) chooses among them the same way.
 *
 * Paths are up/down shortest: up to the lowest common ancestor, then down.
 */
#include <warpsim/warpsim.h>

struct updown_conf {
	uint64_t ecmp_seed;
};

static const struct ws_param updown_params[] = {
	WS_PARAM_UINT("ecmp_seed", struct updown_conf, ecmp_seed, "0", "0", NULL,
		      "mixed into every switch's ECMP hash seed: another value, other paths"),
	WS_PARAM_END
};

static inline uint64_t updown_hash(const struct updown_conf *c,
				   const struct ws_node *at,
				   const struct ws_pkt *p)
{
	return ws_flow_hash(p, (uint64_t)at->id ^ (c->ecmp_seed * 0x9e3779b97f4a7c15ull));
}

static uint32_t updown_next_port(struct ws_inst *inst, const struct ws_node *at,
				 const struct ws_node *dst,
				 const struct ws_pkt *p)
{
	const struct updown_conf *c = inst->conf;
	uint32_t plen = at->addr_len;
	if (dst->addr_len > plen && at->kind == WS_NODE_SWITCH) {
		uint32_t i = 0;
		while (i < plen && dst->addr[i] == at->addr[i])
			i++;
		if (i == plen) {
			uint32_t g = at->down_group;
			uint32_t port = dst->addr[plen] * g;
			if (g > 1)
				port += (uint32_t)(updown_hash(c, at, p) % g);
			return port < at->n_down ? port : WS_PORT_NONE;
		}
	}
	if (at->n_up == 0)
		return WS_PORT_NONE;
	if (at->n_up == 1)
		return at->n_down;
	return at->n_down + (uint32_t)(updown_hash(c, at, p) % at->n_up);
}

static int updown_prepare(struct ws_inst *inst, const struct ws_fabric *fab,
			  struct ws_err *err)
{
	(void)inst;
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

static const struct ws_routing_ops updown_ops = {
	.size = sizeof(struct ws_routing_ops),
	.shapes = WS_SHAPE_UPDOWN,
	.prepare = updown_prepare,
	.next_port = updown_next_port,
};

static const struct ws_plugin updown_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ROUTING, struct ws_routing_ops),
	.name = "updown",
	.version = "1.0.0",
	.summary = "hierarchical-address up/down rule with per-flow xxHash ECMP; no tables",
	.params = updown_params,
	.conf_size = sizeof(struct updown_conf),
	.ops = &updown_ops,
};

WS_PLUGIN_EXPORT(updown_plugin)
