/* SPDX-License-Identifier: MIT */
/*
 * classup: a test routing rule for up/down trees that raises the packet's
 * queue class by one at every switch (pkt->vc = switches passed - 1, up to
 * `vcs`), so a test can check the kernel's class escalation: ingress
 * accounting and PFC in the class a packet arrived in, egress queueing in
 * the class the rule chose, buffers released in full.  No ECMP: the up port
 * is the destination host's index modulo the up ports.
 */
#include <warpsim/warpsim.h>

#define CLASSUP_VCS 3u

static uint32_t classup_next_hop(struct ws_inst *inst, const struct ws_node *at,
				 const struct ws_node *dst, struct ws_pkt *pkt)
{
	(void)inst;
	if (at->kind == WS_NODE_SWITCH)
		pkt->vc = (uint8_t)(pkt->hops - 1 < CLASSUP_VCS ? pkt->hops - 1 : CLASSUP_VCS);
	uint32_t i = 0;
	while (i < at->addr_len && dst->addr[i] == at->addr[i])
		i++;
	if (at->kind == WS_NODE_SWITCH && i == at->addr_len)
		return dst->addr[at->addr_len] * at->down_group;
	return at->n_down + dst->index % at->n_up;
}

static const struct ws_routing_ops classup_ops = {
	.size = sizeof(struct ws_routing_ops),
	.shapes = WS_SHAPE_UPDOWN,
	.next_hop = classup_next_hop,
	.vcs = CLASSUP_VCS,
};

static const struct ws_plugin classup_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ROUTING, struct ws_routing_ops),
	.name = "classup",
	.version = "1.0.0",
	.summary = "test rule: up/down without ECMP, one class higher at every switch",
	.ops = &classup_ops,
};

WS_PLUGIN_EXPORT(classup_plugin)
