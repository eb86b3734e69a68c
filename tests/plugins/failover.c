/* SPDX-License-Identifier: MIT */
/*
 * failover: a test routing rule for up/down trees that handles failures in
 * the simplest correct way, so the kernel's failure service can be tested
 * before the real rules learn it.  Up/down with per-flow ECMP as `updown`;
 * link_change keeps one flag per port (the links it was told are down), and
 * an up choice skips ports that are down at this switch (ws_port_up) or
 * from which the rule's view of the tree cannot reach the destination (a
 * walk of the tree: fine for a k = 4 fat-tree, not for big fabrics).  A
 * down choice through a dead link returns WS_PORT_NONE.
 */
#include <stdlib.h>

#include <warpsim/warpsim.h>

struct failover_state {
	uint8_t *dead;             /* per global port: its link is down */
	uint32_t n_ports;
};

static bool failover_alive(struct ws_inst *inst, const struct ws_node *n,
			   uint32_t local, bool own)
{
	const struct failover_state *st = inst->state;
	if (own && !ws_port_up(inst->sim, n->id, local))
		return false;
	return !st->dead[n->first_port + local];
}

static const struct ws_node *failover_peer(struct ws_inst *inst,
					   const struct ws_node *n, uint32_t local)
{
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	if (ws_port_info(inst->sim, n->id, local, &pi))
		return NULL;
	return ws_node_get(ws_sim_fabric(inst->sim), pi.peer_node);
}

static bool failover_covers(const struct ws_node *at, const struct ws_node *dst)
{
	if (at->kind != WS_NODE_SWITCH || dst->addr_len <= at->addr_len)
		return false;
	for (uint32_t i = 0; i < at->addr_len; i++)
		if (dst->addr[i] != at->addr[i])
			return false;
	return true;
}

/* Can a packet at `n` reach `dst` going on up/down, by the rule's view? */
static bool failover_reach(struct ws_inst *inst, const struct ws_node *n,
			   const struct ws_node *dst, bool own)
{
	if (n->kind == WS_NODE_HOST)
		return n->id == dst->id;
	if (failover_covers(n, dst)) {
		uint32_t g = n->down_group, first = dst->addr[n->addr_len] * g;
		for (uint32_t k = 0; k < g; k++)
			if (failover_alive(inst, n, first + k, own) &&
			    failover_reach(inst, failover_peer(inst, n, first + k), dst, false))
				return true;
		return false;
	}
	for (uint32_t u = 0; u < n->n_up; u++)
		if (failover_alive(inst, n, n->n_down + u, own) &&
		    failover_reach(inst, failover_peer(inst, n, n->n_down + u), dst, false))
			return true;
	return false;
}

static uint32_t failover_next_port(struct ws_inst *inst, const struct ws_node *at,
				   const struct ws_node *dst, const struct ws_pkt *p)
{
	uint64_t h = ws_flow_hash(p, at->id);
	if (failover_covers(at, dst)) {
		uint32_t g = at->down_group, first = dst->addr[at->addr_len] * g;
		for (uint32_t k = 0; k < g; k++) {
			uint32_t port = first + (uint32_t)((h + k) % g);
			if (failover_alive(inst, at, port, true))
				return port;
		}
		return WS_PORT_NONE;
	}
	for (uint32_t i = 0; i < at->n_up; i++) {
		uint32_t port = at->n_down + (uint32_t)((h + i) % at->n_up);
		if (failover_alive(inst, at, port, true) &&
		    failover_reach(inst, failover_peer(inst, at, port), dst, false))
			return port;
	}
	return WS_PORT_NONE;
}

static int failover_prepare(struct ws_inst *inst, const struct ws_fabric *fab,
			    struct ws_err *err)
{
	struct failover_state *st = inst->state;
	free(st->dead);
	st->dead = calloc(fab->n_ports ? fab->n_ports : 1, 1);
	st->n_ports = fab->n_ports;
	return st->dead ? WS_OK : ws_err_set(err, WS_ENOMEM, "failover: no memory");
}

static int failover_link_change(struct ws_inst *inst, const struct ws_fabric *fab,
				uint32_t node, uint32_t local, bool up,
				struct ws_err *err)
{
	struct failover_state *st = inst->state;
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	int rc = ws_port_info(inst->sim, node, local, &pi);
	if (rc)
		return ws_err_set(err, rc, "failover: no port %u:%u", node, local);
	const struct ws_node *a = ws_node_get(fab, node), *b = ws_node_get(fab, pi.peer_node);
	st->dead[a->first_port + local] = !up;
	st->dead[b->first_port + pi.peer_local] = !up;
	return WS_OK;
}

static void failover_fini(struct ws_inst *inst)
{
	struct failover_state *st = inst->state;
	free(st->dead);
	st->dead = NULL;
}

static const struct ws_routing_ops failover_ops = {
	.size = sizeof(struct ws_routing_ops),
	.shapes = WS_SHAPE_UPDOWN,
	.prepare = failover_prepare,
	.next_port = failover_next_port,
	.link_change = failover_link_change,
};

static const struct ws_plugin failover_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ROUTING, struct ws_routing_ops),
	.name = "failover",
	.version = "1.0.0",
	.summary = "test rule: up/down with ECMP that avoids links it was told are down",
	.state_size = sizeof(struct failover_state),
	.fini = failover_fini,
	.ops = &failover_ops,
};

WS_PLUGIN_EXPORT(failover_plugin)
