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
#include <stdint.h>
#include <string.h>

#include "internal.h"

static void port_tx_wake(struct ws_sim *sim, void *obj, uint64_t arg);
static void port_arrival(struct ws_sim *sim, void *obj, uint64_t arg);

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
	port->tx_ev = ws_eventq_push(&sim->q, &port->owner, t, port_tx_wake, port, 0);
}

/* Put `p` on the wire now; the port must be free. */
void ws_port_transmit(struct ws_sim *sim, struct ws_port *port,
		      struct ws_pkt *p)
{
	ws_time ser = ws_tx_time(p->wire, port->rate);
	port->busy_until = sim->now + ser;
	port->tx_bytes += p->wire;
	port->tx_pkts++;
	port->on_wire++;
	ws_eventq_push(&sim->q, &port->owner, port->busy_until + port->delay,
		       port_arrival, port, (uint64_t)(uintptr_t)p);
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

void ws_port_kick(struct ws_sim *sim, struct ws_port *port)
{
	if (port->is_host)
		ws_nic_kick(sim, &sim->nics[sim->aux[port->node] + port->local]);
	else
		switch_kick(sim, port);
}

static void shift_pkt(struct ws_pkt *p, ws_time shift)
{
	p->ts += shift;
	for (unsigned i = 0; i < p->int_n; i++)
		p->int_hop[i].ts += shift;
}

void ws_port_shift_packets(struct ws_port *port, ws_time shift)
{
	for (unsigned c = 0; c < WS_PRIORITIES; c++)
		for (struct ws_pkt *p = port->q[c].head; p; p = p->next)
			shift_pkt(p, shift);
	for (struct ws_event *ev = port->owner.parked; ev; ev = ev->wnext)
		if (ev->fn == port_arrival)
			shift_pkt((struct ws_pkt *)(uintptr_t)ev->arg, shift);
}

static void port_tx_wake(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_port *port = obj;
	port->tx_ev.ev = NULL;
	ws_port_kick(sim, port);
}

static void port_arrival(struct ws_sim *sim, void *obj, uint64_t arg)
{
	struct ws_port *port = obj;
	struct ws_pkt *p = (struct ws_pkt *)(uintptr_t)arg;
	port->on_wire--;
	struct ws_port *in = &sim->ports[port->peer];
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
	if (!pause)
		ws_port_kick(sim, port);
}
