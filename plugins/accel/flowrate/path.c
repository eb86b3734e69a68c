/* SPDX-License-Identifier: MIT */
/* A flow's data path as its packets take it (path.h). */
#include "path.h"

int fr_flow_path(struct ws_sim *sim, uint32_t id, uint32_t *ports,
		 uint64_t *rates, uint32_t *n, struct ws_err *err)
{
	*n = 0;
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	if (ws_flow_get(sim, id, &fi))
		return ws_err_set(err, WS_EINVAL, "no flow %u", id);
	/* a data packet of the flow's 5-tuple, as a probe (flow = WS_NONE:
	 * the rule's state is left alone) */
	struct ws_pkt p;
	ws_pkt_probe(&p, fi.src, fi.dst, fi.sport, fi.dport);
	p.prio = fi.prio;
	struct ws_hop hops[FR_PATH_MAX + 1];
	uint32_t h;
	int rc = ws_route_trace(sim, &p, hops, FR_PATH_MAX + 1, &h, err);
	if (rc)
		return rc;
	for (uint32_t i = 0; i + 1 < h; i++) {
		struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
		ws_port_info(sim, hops[i].node, hops[i].port, &pi);
		rates[i] = pi.rate;
		ports[i] = ws_port_gid(sim, hops[i].node, hops[i].port);
	}
	*n = h - 1;
	return WS_OK;
}

ws_time fr_lone_tail(const uint64_t *rate, const ws_time *delay, uint32_t n,
		     const uint64_t *ack_rate, const ws_time *ack_delay, uint32_t n_ack,
		     uint64_t npk, uint64_t full, uint64_t last, uint64_t ack)
{
	uint32_t b = 0;
	for (uint32_t k = 1; k < n; k++)
		if (rate[k] < rate[b])
			b = k;
	ws_time t = 0;
	for (uint32_t k = 0; k < n; k++) {
		t += delay[k];
		if (k != b)
			t += ws_tx_time(k < b || (npk > 1 && rate[k] <= rate[b]) ? full : last,
					rate[k]);
	}
	for (uint32_t k = 0; k < n_ack; k++)
		t += ack_delay[k] + ws_tx_time(ack, ack_rate[k]);
	return t;
}
