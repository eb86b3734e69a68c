/* SPDX-License-Identifier: MIT */
/*
 * Ports: serialization onto a link and propagation to the far end.
 *
 * Per packet a port costs one event, its arrival at the far end (the event
 * carries the packet, so a link needs no queue of its own).  Beyond that a
 * port keeps at most one transmit wake-up, armed only when it has something
 * to send and the link is busy (or, at a NIC, when pacing allows the next
 * packet): an idle port with an empty queue costs nothing more.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

static void port_tx_wake(struct ws_sim *sim, void *obj, uint64_t arg);
static void port_arrival(struct ws_sim *sim, void *obj, uint64_t arg);

/* The packet the dequeue will read first (the head of the first queue
 * that holds one), as the transmit wake-up's argument: the event queue
 * prefetches an event's argument a few events before it runs, and a
 * packet that waited in a queue is cold by then.  A hint only (the
 * wake-up ignores it): 0 if nothing is queued. */
static inline uint64_t head_hint(const struct ws_port *port)
{
	for (unsigned c = 0; c < WS_PRIORITIES; c++)
		if (port->q[c].head)
			return (uint64_t)(uintptr_t)port->q[c].head;
	return 0;
}

/* Make sure the port's transmit wake-up runs no later than `t`. */
void ws_port_arm(struct ws_sim *sim, struct ws_port *port, ws_time t)
{
	if (t < sim->now)
		t = sim->now;
	/* tx_ev.ev is cleared when the wake-up runs, so a pending one is known
	 * without reading its (cold) event record */
	if (port->tx_ev.ev) {
		if (port->tx_at <= t)
			return;
		ws_eventq_cancel(&sim->q, port->tx_ev);
	}
	port->tx_at = t;
	port->tx_ev = ws_eventq_push(&sim->q, &port->owner, t, port_tx_wake, port,
				     head_hint(port));
}

/* Put `p` on the wire now; the port must be free.  On a link that is down
 * the packet is dropped (cause failure) after the time it would take. */
void ws_port_transmit(struct ws_sim *sim, struct ws_port *port,
		      struct ws_pkt *p)
{
	ws_time ser = ws_sim_tx_time(sim, p->wire,
				     port->bg_load ? port->rate - port->bg_load : port->rate);
	port->busy_until = sim->now + ser;
	if (__builtin_expect(sim->trace_pkts, 0))
		ws_ptrace_pkt(sim, port, p, WS_PT_DEQ);
	if (__builtin_expect(port->down, 0)) {
		/* a NIC sending into a dead link: the packet is lost there */
		ws_fail_drop(sim, port, p);
		return;
	}
	port->tx_bytes += p->wire;
	port->tx_pkts++;
	if (p->type == WS_PKT_DATA && !(p->flags & WS_PKTF_RETX))
		port->tx_fresh_bytes += p->wire;
	/* the arrival's object is the far end, the port the packet comes in
	 * through (its owner stays this port: a freeze of this port holds
	 * what is on its wire) */
	if (__builtin_expect(sim->par != NULL, 0)) {
		ws_part_post(sim, &port->owner, port->busy_until + port->delay,
			     port_arrival, &sim->ports[port->peer], p);
		return;
	}
	ws_eventq_post(&sim->q, &port->owner, port->busy_until + port->delay,
		       port_arrival, &sim->ports[port->peer], (uint64_t)(uintptr_t)p);
}

static void switch_kick(struct ws_sim *sim, struct ws_port *port)
{
	if (sim->now < port->busy_until) {
		if (port->q_bytes)
			ws_port_arm(sim, port, port->busy_until);
		return;
	}
	struct ws_pkt *p = ws_switch_dequeue(sim, port);
	if (!p)
		return;
	ws_port_transmit(sim, port, p);
	if (port->q_bytes)
		ws_port_arm(sim, port, port->busy_until);
}

ws_event_fn ws_port_arrival_fn(void)
{
	return port_arrival;
}

void ws_port_kick(struct ws_sim *sim, struct ws_port *port)
{
	/* from the global context (a failure), on the port's partition,
	 * which another MPI rank may run */
	if (__builtin_expect(sim->par != NULL, 0)) {
		if (!ws_part_owns(sim, port->node))
			return;
		sim = ws_part_shell(sim, port->node);
	}
	if (port->is_host)
		ws_nic_kick(sim, &sim->nics[sim->aux[port->node] + port->local]);
	else
		switch_kick(sim, port);
}

int ws_port_add_load(struct ws_sim *sim, uint32_t gid, int64_t bps, struct ws_err *err)
{
	if (gid >= sim->fab.n_ports)
		return ws_err_set(err, WS_EINVAL, "no port %u", gid);
	struct ws_port *port = &sim->ports[gid];
	int64_t total = (int64_t)port->bg_load + bps;
	if (total < 0 || (double)total > 0.99 * (double)port->rate)
		return ws_err_set(err, WS_EINVAL, "port %u: background load %" PRId64
				  " b/s outside 0 .. 99 %% of its rate %" PRIu64 " b/s",
				  gid, total, port->rate);
	port->bg_load = (uint64_t)total;
	return WS_OK;
}

void ws_pkt_shift(struct ws_pkt *p, ws_time shift)
{
	p->ts += shift;
	for (unsigned i = 0; i < p->int_n; i++)
		p->int_hop[i].ts += shift;
}

void ws_port_shift_packets(struct ws_port *port, ws_time shift)
{
	for (unsigned c = 0; c < WS_PRIORITIES; c++)
		for (struct ws_pkt *p = port->q[c].head; p; p = p->next)
			ws_pkt_shift(p, shift);
	for (struct ws_event *ev = port->owner.parked; ev; ev = ev->wnext)
		if (ev->fn == port_arrival)
			ws_pkt_shift((struct ws_pkt *)(uintptr_t)ev->arg, shift);
}

static bool frozen_data(const struct ws_sim *sim, const struct ws_pkt *p)
{
	return p->type == WS_PKT_DATA && p->flow < sim->n_flows &&
	       sim->flows[p->flow]->owner.frozen;
}

void ws_port_hold(struct ws_sim *sim, struct ws_port *port)
{
	if (!port->hold) {
		port->hold = ws_xcalloc(1, sizeof *port->hold);
		if (sim->n_held == sim->cap_held) {
			sim->cap_held = sim->cap_held ? 2 * sim->cap_held : 16;
			sim->held = ws_xrealloc(sim->held, sim->cap_held, sizeof *sim->held);
		}
		sim->held[sim->n_held++] = (uint32_t)(port - sim->ports);
	}
	struct ws_hold *h = port->hold;
	h->n++;
	for (unsigned c = 0; c < WS_PRIORITIES; c++) {
		struct ws_pktq keep = { 0 };
		struct ws_pkt *p = port->q[c].head;
		while (p) {
			struct ws_pkt *next = p->next;
			if (frozen_data(sim, p)) {
				ws_pktq_push(&h->q[c], p);
				h->bytes += p->wire;
				port->q_bytes -= p->wire;
			} else {
				ws_pktq_push(&keep, p);
			}
			p = next;
		}
		port->q[c] = keep;
	}
}

void ws_port_release(struct ws_sim *sim, struct ws_port *port, ws_time shift)
{
	struct ws_hold *h = port->hold;
	if (!h || !h->n)
		return;
	h->n--;
	bool any = false;
	for (unsigned c = 0; c < WS_PRIORITIES; c++) {
		struct ws_pktq back = { 0 }, still = { 0 };
		struct ws_pkt *p = h->q[c].head;
		while (p) {
			struct ws_pkt *next = p->next;
			if (frozen_data(sim, p)) {
				ws_pktq_push(&still, p);
			} else {
				ws_pkt_shift(p, shift);
				ws_pktq_push(&back, p);
				h->bytes -= p->wire;
				port->q_bytes += p->wire;
			}
			p = next;
		}
		h->q[c] = still;
		if (!back.head)
			continue;
		/* ahead of what arrived while they were set aside */
		back.tail->next = port->q[c].head;
		if (!port->q[c].tail)
			port->q[c].tail = back.tail;
		port->q[c].head = back.head;
		port->q[c].bytes += back.bytes;
		port->q[c].pkts += back.pkts;
		any = true;
	}
	if (any)
		ws_port_kick(sim, port);
}

static void port_tx_wake(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_port *port = obj;
	port->tx_ev.ev = NULL;
	ws_port_kick(sim, port);
}

/* A packet reaches the far end of a link: `obj` is the port it comes in
 * through.  Only that port and the packet are read (the sender's port is
 * not: its line is cold by now). */
static void port_arrival(struct ws_sim *sim, void *obj, uint64_t arg)
{
	struct ws_port *in = obj;
	struct ws_pkt *p = (struct ws_pkt *)(uintptr_t)arg;
	__builtin_prefetch((const char *)in + 64); /* the ingress accounting */
	in->rx_pkts++;
	if (__builtin_expect(in->fail_in, 0) &&
	    ws_fail_arrival(sim, &sim->ports[in->peer], p))
		return;
	if (__builtin_expect(sim->trace_pkts, 0))
		ws_ptrace_pkt(sim, in, p, WS_PT_RECV);
	if (in->is_host)
		ws_nic_receive(sim, in, p);
	else
		ws_switch_receive(sim, in, p);
}

void ws_port_pause(struct ws_sim *sim, struct ws_port *port, unsigned prio,
		   bool pause)
{
	uint8_t bit = (uint8_t)(1u << prio);
	uint8_t before = port->paused;
	if (pause) {
		port->paused |= bit;
		port->pause_rx++;
	} else {
		port->paused &= (uint8_t)~bit;
	}
	if (!before && port->paused)
		port->paused_since = sim->now;
	else if (before && !port->paused)
		port->paused_time += sim->now - port->paused_since;
	if (__builtin_expect(sim->trace_pfc, 0))
		ws_ptrace_pfc(sim, port, prio, pause, false, NULL);
	if (!pause)
		ws_port_kick(sim, port);
}
