/* SPDX-License-Identifier: MIT */
/*
 * Failures: links and switches that go down and come back.
 *
 * A link that goes down carries nothing: packets routed to it, queued at
 * it or on its wire are dropped (cause `failure`), and the routing rule
 * learns of it through its link_change op.  Switches at the link's ends
 * see it at once (ws_port_up on their own ports).
 */
#include "internal.h"

bool ws_port_up(const struct ws_sim *sim, uint32_t node, uint32_t local)
{
	if (node >= sim->fab.n_nodes || local >= sim->nodes[node].n_ports)
		return false;
	return !sim->ports[sim->nodes[node].first_port + local].down;
}

void ws_fail_drop(struct ws_sim *sim, struct ws_port *port, struct ws_pkt *p)
{
	port->drops++;
	sim->ctr.drops++;
	sim->ctr.fail_drops++;
	ws_pkt_free(&sim->pkts, p);
}

int ws_link_set(struct ws_sim *sim, uint32_t node, uint32_t local, bool up,
		struct ws_err *err)
{
	if (node >= sim->fab.n_nodes || local >= sim->nodes[node].n_ports)
		return ws_err_set(err, WS_EINVAL, "no port %u at node %u", local, node);
	struct ws_port *a = ws_port_at(sim, node, local);
	if (a->peer == WS_NONE)
		return ws_err_set(err, WS_EINVAL, "port %u of node %u is not on a link",
				  local, node);
	struct ws_port *b = &sim->ports[a->peer];
	const struct ws_routing_ops *ops = WS_ROUTING_OPS(sim);
	if (!ops->link_change)
		return ws_err_set(err, WS_EINVAL,
				  "routing rule '%s' does not handle failures",
				  sim->slot[WS_KIND_ROUTING].ld.desc->name);
	a->down = b->down = up ? 0 : 1;
	if (!up)
		sim->links_failed = true;
	return ops->link_change(&sim->slot[WS_KIND_ROUTING].inst, &sim->fab, node,
				local, up, err);
}
