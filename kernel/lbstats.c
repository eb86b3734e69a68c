/* SPDX-License-Identifier: MIT */
/*
 * Load-balancing statistics of a run, for summary.json: the reordering the
 * receivers saw, and how evenly each tier of links carried bytes.
 *
 * Reordering is counted per flow by the receiver (nic.c: a data packet above
 * the next expected byte) and only summed here.  Link load groups the ports
 * by the tier of their link, the larger level of its two end nodes (hosts
 * are level 0, so 1 = host-leaf, 2 = leaf-spine, 3 = spine-core), and by
 * direction: `up` from the lower-level end to the higher, `down` the
 * reverse, `peer` between nodes of the same level (dragonfly routers).  Per
 * group it gives the spread of the ports' transmitted bytes, every packet
 * type included: max / mean is what ECMP-versus-spraying studies quote
 * (a perfectly balanced tier has 1), the coefficient of variation the
 * spread of the whole tier.  The same for the data sent for the first
 * time only (`fresh_*`: no retransmission, no ACK): how evenly the routing
 * choices spread the offered data, which the bytes of a go-back-N
 * transport retransmitting after reordering would otherwise hide.
 *
 * The same per-port (tier, direction) is what `warpsim plot` needs to draw
 * the spread link by link from ports.csv, so when ports.csv is written the
 * summary's fabric object also lists the node levels, run-length encoded in
 * node id order (topologies add nodes tier by tier: a handful of runs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

void ws_json_reordering(const struct ws_sim *sim, struct ws_json *j)
{
	uint64_t pkts = 0, flows = 0;
	uint32_t max = 0;
	for (uint32_t i = 0; i < sim->n_flows; i++) {
		const struct ws_flow *f = sim->flows[i];
		if (!f)
			continue; /* released: modelled without packets */
		pkts += f->ooo_pkts;
		flows += f->ooo_pkts > 0;
		max = WS_MAX(max, f->max_reorder);
	}
	ws_json_begin(j, "reordering");
	ws_json_u64(j, "ooo_pkts", pkts);
	ws_json_u64(j, "flows", flows);
	ws_json_u64(j, "max_reorder", max);
	ws_json_end(j);
}

enum link_dir { LINK_UP, LINK_DOWN, LINK_PEER, LINK_DIRS };

static const char *const link_dir_name[LINK_DIRS] = { "up", "down", "peer" };

/* One (tier, direction) group of ports. */
struct link_group {
	uint64_t links, sum, min, max;
	double sq_dev; /* sum of squared deviations from the mean */
};

/* The group index of a connected port: tier * LINK_DIRS + direction. */
static unsigned link_group_of(const struct ws_sim *sim, const struct ws_port *p)
{
	unsigned a = sim->nodes[p->node].level;
	unsigned b = sim->nodes[sim->ports[p->peer].node].level;
	enum link_dir d = a < b ? LINK_UP : a > b ? LINK_DOWN : LINK_PEER;
	return ws_link_tier(sim, p) * LINK_DIRS + d;
}

/* The bytes a port's link load counts: all, or fresh data only. */
static inline uint64_t port_bytes(const struct ws_port *p, bool fresh)
{
	return fresh ? p->tx_fresh_bytes : p->tx_bytes;
}

/* Two passes over the ports: counts, sums and extremes, then the
 * deviations from each group's mean (in port order: deterministic). */
static void link_groups_fill(const struct ws_sim *sim, struct link_group *g,
			     bool fresh)
{
	for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
		const struct ws_port *p = &sim->ports[i];
		if (p->peer == WS_NONE)
			continue;
		struct link_group *x = &g[link_group_of(sim, p)];
		uint64_t b = port_bytes(p, fresh);
		if (x->links == 0 || b < x->min)
			x->min = b;
		x->max = WS_MAX(x->max, b);
		x->sum += b;
		x->links++;
	}
	for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
		const struct ws_port *p = &sim->ports[i];
		if (p->peer == WS_NONE)
			continue;
		struct link_group *x = &g[link_group_of(sim, p)];
		double dev = (double)port_bytes(p, fresh) - (double)x->sum / (double)x->links;
		x->sq_dev += dev * dev;
	}
}

/* One group's spread under keys prefixed by `pre` ("" or "fresh_"). */
static void link_group_json(struct ws_json *j, const struct link_group *x,
			    const char *pre)
{
	char k[32];
	double mean = x->links ? (double)x->sum / (double)x->links : 0;
	snprintf(k, sizeof k, "%smean_bytes", pre);
	ws_json_f64(j, k, mean);
	snprintf(k, sizeof k, "%smin_bytes", pre);
	ws_json_u64(j, k, x->min);
	snprintf(k, sizeof k, "%smax_bytes", pre);
	ws_json_u64(j, k, x->max);
	/* null when the tier carried nothing: no imbalance to speak of */
	snprintf(k, sizeof k, "%smax_over_mean", pre);
	ws_json_f64(j, k, mean > 0 ? (double)x->max / mean : NAN);
	snprintf(k, sizeof k, "%scv", pre);
	ws_json_f64(j, k, mean > 0 ? sqrt(x->sq_dev / (double)x->links) / mean : NAN);
}

void ws_json_link_load(const struct ws_sim *sim, struct ws_json *j)
{
	unsigned top = 0;
	for (uint32_t i = 0; i < sim->fab.n_nodes; i++)
		top = WS_MAX(top, (unsigned)sim->fab.nodes[i].level);
	size_t n = (size_t)(top + 1) * LINK_DIRS;
	struct link_group *g = ws_xcalloc(2 * n, sizeof *g), *fresh = g + n;
	link_groups_fill(sim, g, false);
	link_groups_fill(sim, fresh, true);
	ws_json_begin_array(j, "link_load");
	for (size_t k = 0; k < n; k++) {
		const struct link_group *x = &g[k];
		if (!x->links)
			continue;
		ws_json_begin(j, NULL);
		ws_json_u64(j, "tier", k / LINK_DIRS);
		ws_json_str(j, "direction", link_dir_name[k % LINK_DIRS]);
		ws_json_u64(j, "links", x->links);
		link_group_json(j, x, "");
		link_group_json(j, &fresh[k], "fresh_");
		ws_json_end(j);
	}
	ws_json_end_array(j);
	free(g);
}

void ws_json_node_levels(const struct ws_sim *sim, struct ws_json *j)
{
	ws_json_begin_array(j, "node_levels");
	for (uint32_t i = 0, run; i < sim->fab.n_nodes; i += run) {
		uint8_t level = sim->fab.nodes[i].level;
		for (run = 1; i + run < sim->fab.n_nodes &&
			      sim->fab.nodes[i + run].level == level; run++)
			;
		ws_json_begin(j, NULL);
		ws_json_u64(j, "first", i);
		ws_json_u64(j, "count", run);
		ws_json_u64(j, "level", level);
		ws_json_end(j);
	}
	ws_json_end_array(j);
}
