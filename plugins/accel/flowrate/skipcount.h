/* SPDX-License-Identifier: MIT */
/*
 * events_skipped, the same way for every accelerator: from what was
 * actually skipped, not from the run's events per packet so far (which,
 * when almost nothing has gone in packets, divides the run's fixed events
 * by a handful of packets and explodes).
 *
 * At packet level a data packet over a path of h links costs 1 + h events
 * (its send, one per link) and its ACK share h / ack_interval more: each
 * skip adds its packets (its bytes over the payload of a full packet) and
 * its packets times its hops; the report turns them into events with the
 * run's ACKs per data packet.  The payload of a full packet is read once
 * from the first skipped flow's base RTT, which is 2 x its path's
 * propagation plus a full payload's serialization at each hop.
 * Deterministic: sums of integers and fixed-order doubles.
 */
#ifndef WS_FLOWRATE_SKIPCOUNT_H
#define WS_FLOWRATE_SKIPCOUNT_H

#include <math.h>

#include <warpsim/warpsim.h>

struct fr_skipcount {
	uint64_t bytes;      /* payload skipped */
	double pkts;         /* packets it would have taken */
	double pkt_hops;     /* the same, times the links each crossed */
	double payload;      /* payload bytes of a full packet; 0: not read yet */
};

/* The payload of a full packet, from flow `flow`'s base RTT and path. */
static inline double fr_skip_payload(struct ws_sim *sim, uint32_t flow,
				     const struct ws_flow_info *fi)
{
	struct ws_pkt p;
	ws_pkt_probe(&p, fi->src, fi->dst, fi->sport, fi->dport);
	p.prio = fi->prio;
	struct ws_hop hops[65];
	uint32_t h = 0;
	struct ws_err err;
	ws_err_clear(&err);
	(void)flow;
	if (ws_route_trace(sim, &p, hops, 65, &h, &err) || h < 2)
		return 0;
	double prop = 0, per_byte = 0; /* ps, and ps per byte over all hops */
	for (uint32_t i = 0; i + 1 < h; i++) {
		struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
		if (ws_port_info(sim, hops[i].node, hops[i].port, &pi) || !pi.rate)
			return 0;
		prop += (double)pi.delay;
		per_byte += 8e12 / (double)pi.rate;
	}
	double ser = (double)fi->base_rtt - 2 * prop;
	return ser > 0 ? floor(ser / per_byte + 0.5) : 0;
}

/* `bytes` of flow `flow` were skipped. */
static inline void fr_skip_add(struct fr_skipcount *c, struct ws_sim *sim,
			       uint32_t flow, uint64_t bytes)
{
	if (!bytes)
		return;
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, flow, &fi);
	if (!c->payload)
		c->payload = fr_skip_payload(sim, flow, &fi);
	double pkts = (double)bytes / (c->payload > 0 ? c->payload : 1000.0);
	c->bytes += bytes;
	c->pkts += pkts;
	c->pkt_hops += pkts * fi.hops;
}

/* The events the skipped bytes would have cost at packet level. */
static inline uint64_t fr_skip_events(const struct fr_skipcount *c,
				      const struct ws_sim *sim)
{
	struct ws_sim_stats ss = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &ss);
	/* (no packet sent: one ACK per packet, the default) */
	double acks = ss.data_packets ? (double)ss.acks / (double)ss.data_packets : 1.0;
	return (uint64_t)(c->pkts + c->pkt_hops * (1.0 + acks));
}

#endif
