/* SPDX-License-Identifier: MIT */
/*
 * PFC deadlock: a cycle of switch ports each paused by the next switch
 * while holding packets, so that no port of the cycle can ever send again
 * (Hu et al., "Deadlocks in Datacenter Networks: Why Do They Form, and How
 * to Avoid Them", HotNets 2016, the buffer dependency graph).
 *
 * The graph: an egress port P of a switch, paused by its peer switch S and
 * holding bytes, waits for S to drain the ingress queue P feeds; S drains
 * it through its own egress ports, so P waits for every port of S that is
 * paused and holding bytes.  (The kernel does not track which egress
 * queues hold the packets of which ingress, so this over-approximates the
 * edges; every port of a reported cycle is still paused with bytes queued,
 * which is what keeps the fabric stopped.)  A cycle in this graph whose
 * ports have all been paused since some time is what the kernel reports,
 * naming each port, both when a retransmission timeout finds the fabric
 * stuck and when the event queue drains with flows unfinished.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A switch egress port that is paused (since `since` at the latest) while
 * holding bytes, towards another switch. */
static bool blocked(const struct ws_sim *sim, uint32_t gid, ws_time since)
{
	const struct ws_port *p = &sim->ports[gid];
	if (p->is_host || !p->paused || !p->q_bytes || p->peer == WS_NONE ||
	    p->paused_since > since)
		return false;
	return !sim->ports[p->peer].is_host;
}

enum { WHITE = 0, GREY = 1, BLACK = 2 };

struct dfs {
	const struct ws_sim *sim;
	ws_time since;
	uint8_t *color;
	uint32_t *stack; /* ports on the current path */
	uint32_t *next;  /* per path entry: next local port of the peer to try */
	size_t depth;
};

/* The blocked port of the peer switch of stack[depth-1] to visit next,
 * or WS_NONE when none is left. */
static uint32_t next_edge(struct dfs *d)
{
	const struct ws_sim *sim = d->sim;
	uint32_t at = d->stack[d->depth - 1];
	const struct ws_node *s = &sim->nodes[sim->ports[sim->ports[at].peer].node];
	while (d->next[d->depth - 1] < s->n_ports) {
		uint32_t r = s->first_port + d->next[d->depth - 1]++;
		if (blocked(sim, r, d->since))
			return r;
	}
	return WS_NONE;
}

/* Depth-first from `root`; on a cycle, its first port's position on the
 * stack (the cycle is stack[pos .. depth)), else SIZE_MAX. */
static size_t dfs_from(struct dfs *d, uint32_t root)
{
	d->depth = 0;
	d->stack[d->depth] = root;
	d->next[d->depth++] = 0;
	d->color[root] = GREY;
	while (d->depth) {
		uint32_t r = next_edge(d);
		if (r == WS_NONE) {
			d->color[d->stack[--d->depth]] = BLACK;
			continue;
		}
		if (d->color[r] == GREY) {
			size_t pos = 0;
			while (d->stack[pos] != r)
				pos++;
			return pos;
		}
		if (d->color[r] == WHITE) {
			d->color[r] = GREY;
			d->stack[d->depth] = r;
			d->next[d->depth++] = 0;
		}
	}
	return SIZE_MAX;
}

static void describe(const struct ws_sim *sim, const uint32_t *cycle, size_t n,
		     char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i <= n && len < size; i++) {
		const struct ws_port *p = &sim->ports[cycle[i % n]];
		int w = snprintf(buf + len, size - len, "%sswitch %u port %u",
				 i ? " -> " : "", p->node, p->local);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (len >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

size_t ws_pfc_cycle(const struct ws_sim *sim, ws_time since, char *buf,
		    size_t size)
{
	uint32_t n = sim->fab.n_ports;
	if (!n || !sim->swc.pfc)
		return 0;
	struct dfs d = { .sim = sim, .since = since };
	d.color = calloc(n, 1);
	d.stack = malloc((size_t)n * sizeof *d.stack);
	d.next = malloc((size_t)n * sizeof *d.next);
	size_t found = 0;
	for (uint32_t p = 0; d.color && d.stack && d.next && p < n && !found; p++) {
		if (d.color[p] != WHITE || !blocked(sim, p, since))
			continue;
		size_t pos = dfs_from(&d, p);
		if (pos != SIZE_MAX) {
			found = d.depth - pos;
			if (size)
				describe(sim, d.stack + pos, found, buf, size);
		}
	}
	free(d.color);
	free(d.stack);
	free(d.next);
	return found;
}

size_t ws_sim_pfc_cycle(const struct ws_sim *sim, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	return ws_pfc_cycle(sim, sim->now, buf, size);
}

bool ws_pfc_deadlock(struct ws_sim *sim, uint32_t flow, ws_time rto, int part)
{
	char cycle[768];
	size_t n = ws_pfc_cycle(sim, sim->now > rto ? sim->now - rto : 0, cycle,
				sizeof cycle);
	if (!n)
		return false;
	struct ws_err err;
	ws_err_set(&err, WS_EDEADLOCK, "PFC deadlock: flow %u went [nic] rto = %.3f us "
		   "without progress while a cycle of %zu switch ports stayed "
		   "paused with packets queued: %s", flow,
		   (double)rto / (double)WS_US, n, cycle);
	if (part >= 0)
		ws_err_prefix(&err, "partition %d: ", part);
	ws_fail(sim, &err);
	return true;
}
