/* SPDX-License-Identifier: MIT */
/*
 * Host NICs and the RDMA-style transport (one queue pair per flow), after
 * the HPCC ns-3 simulator:
 *
 * Sender.  Control packets (ACK, NACK, CNP) leave first, in priority order,
 * unless their priority is paused.  Then flows are served round robin from
 * the one after the last served: the first with bytes left, under its
 * window, whose priority is not paused by PFC and whose pacing time has
 * come.  After a packet, the flow's next send time is now + size / rate.  If
 * nothing is eligible, the port wakes at the earliest pacing time (or by the
 * reference's rule, [sim] nic_wake = ns3: see nic_ref_idle).  ACKs are
 * cumulative; a NACK sends the flow back to the acknowledged byte
 * (go-back-N); an optional timeout does the same after `rto` without
 * progress.
 *
 * Receiver.  In-order data advances the expected byte and is ACKed every
 * `ack_interval` packets, at `ack_chunk` boundaries and at the last byte;
 * the ACK echoes the send timestamp, CE marks and INT records.  Data beyond
 * the expected byte is dropped and answered with a NACK (at most one per
 * `nack_interval` for the same expected byte), and counted as reordering
 * (how far above the expected byte, in full packets).  A duplicate is answered with
 * an ACK, so a lost ACK cannot stall a flow.  When the flow's CC asked for
 * CNP packets, a CE mark triggers one, at most one per interval.
 */
#include <string.h>

#include "internal.h"

static inline struct ws_port *nic_port(struct ws_sim *sim, struct ws_nic *nic)
{
	return &sim->ports[nic->port];
}

static inline struct ws_nic *nic_of_port(struct ws_sim *sim,
					 const struct ws_port *port)
{
	return &sim->nics[sim->aux[port->node] + port->local];
}

static inline uint64_t effective_window(const struct ws_flow *f,
					const struct ws_sim *sim)
{
	uint64_t w = f->cc.window;
	if (w && sim->nicc.var_window && !f->cc_window) {
		__extension__ typedef unsigned __int128 u128;
		w = (uint64_t)((u128)w * f->cc.rate / f->cc.line_rate);
		if (w == 0)
			w = 1;
	}
	return w;
}

/* Could the flow send now, pacing aside? */
static inline bool can_send(const struct ws_sim *sim, const struct ws_flow *f,
			    const struct ws_port *port)
{
	if (__builtin_expect(sim->nicc.transport == WS_TR_SR, 0)) {
		if (f->owner.frozen || (port->paused & (1u << f->prio)))
			return false;
		return ws_sr_can_send((struct ws_sim *)sim, (struct ws_flow *)f,
				      effective_window(f, sim));
	}
	if (f->cc.snd_nxt >= f->seq_end || f->owner.frozen)
		return false;
	if (port->paused & (1u << f->prio))
		return false;
	uint64_t w = effective_window(f, sim);
	return !(w && f->cc.snd_nxt - f->cc.snd_una >= w);
}

static struct ws_pkt *make_data(struct ws_sim *sim, struct ws_flow *f)
{
	/* selective repeat resends a lost packet before new data */
	uint64_t seq = sim->nicc.transport == WS_TR_SR ? ws_sr_take(sim, f)
						       : f->cc.snd_nxt;
	uint64_t left = f->seq_end - seq;
	uint32_t pay = (uint32_t)WS_MIN(left, (uint64_t)sim->payload);
	struct ws_pkt *p = ws_pkt_alloc(&sim->pkts);
	p->type = WS_PKT_DATA;
	p->flow = f->cc.id;
	p->src = f->cc.src;
	p->dst = f->cc.dst;
	p->sport = f->sr ? ws_sr_entropy(sim, f) : f->sport;
	p->dport = f->dport;
	p->seq = seq;
	p->ts = sim->now;
	p->payload = pay;
	p->wire = pay + (uint32_t)sim->nicc.header + sim->int_bytes;
	p->prio = f->prio;
	if (sim->cc_needs & WS_CC_NEEDS_ECN)
		p->ecn = WS_ECN_ECT;
	if (sim->cc_needs & WS_CC_NEEDS_INT)
		p->flags |= WS_PKTF_INT;
	if (seq + pay >= f->seq_end)
		p->flags |= WS_PKTF_LAST;
	/* payload below the highest byte ever sent is a retransmission */
	if (seq < f->high_sent) {
		p->flags |= WS_PKTF_RETX;
		uint64_t again = WS_MIN((uint64_t)pay, f->high_sent - seq);
		f->retx_bytes += again;
		f->retx_pkts++;
		sim->ctr.retx_bytes += again;
		sim->ctr.retx_pkts++;
	}
	if (f->cc.snd_nxt == f->cc.snd_una)
		f->last_progress = sim->now; /* the RTO clock starts now */
	if (seq == f->cc.snd_nxt) {
		f->cc.snd_nxt += pay;
		if (f->cc.snd_nxt > f->high_sent)
			f->high_sent = f->cc.snd_nxt;
	}
	f->sent_bytes += pay;
	f->pkts_sent++;
	sim->ctr.data_pkts++;
	sim->ctr.data_bytes += p->wire;
	f->last_wire = p->wire;
	f->next_avail = sim->now + ws_sim_tx_time(sim, p->wire, f->cc.rate);
	return p;
}

/*
 * The next packet the NIC sends now, or NULL; *next gets the earliest time a
 * flow that is only waiting for its pacing time becomes eligible.
 */
static struct ws_pkt *nic_next(struct ws_sim *sim, struct ws_nic *nic,
			       struct ws_port *port, struct ws_flow **from,
			       ws_time *next)
{
	*next = WS_TIME_NEVER;
	*from = NULL;
	for (unsigned q = 0; q < WS_PRIORITIES; q++) {
		if (port->q[q].head && (q == 0 || !(port->paused & (1u << q)))) {
			struct ws_pkt *p = ws_pktq_pop(&port->q[q]);
			port->q_bytes -= p->wire;
			return p;
		}
	}
	uint32_t n = nic->n_act;
	for (uint32_t i = 1; i <= n; i++) {
		uint32_t idx = (nic->rr + i) % n;
		struct ws_flow *f = nic->act[idx];
		if (!can_send(sim, f, port))
			continue;
		if (f->next_avail > sim->now) {
			if (f->next_avail < *next)
				*next = f->next_avail;
			continue;
		}
		nic->rr = idx;
		*from = f;
		return make_data(sim, f);
	}
	return NULL;
}

/*
 * [sim] nic_wake = ns3, the reference's rule (qbb-net-device.cc,
 * DequeueAndTransmit and UpdateNextAvail).  The NIC looks again when each
 * packet is out.  When nothing is eligible at a free port it takes the
 * minimum next-available time over all its unfinished flows (those with
 * nothing left to send, window-bound or paused included) and wakes then,
 * unless that is not in the future or a wake-up is already pending: so a
 * flow waiting for its ACKs can hold back a paced one until the next ACK
 * or PFC resume arrives.  A rate change moves a pending wake-up earlier
 * only (ws_nic_rate_changed); CC timers do not wake the NIC.
 */
static void nic_ref_wake(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_nic *nic = obj;
	nic->ref_wake.ev = NULL;
	ws_nic_kick(sim, nic);
}

static void nic_ref_arm(struct ws_sim *sim, struct ws_nic *nic,
			struct ws_port *port, ws_time t)
{
	nic->ref_wake_at = t;
	nic->ref_wake = ws_eventq_push(&sim->q, &port->owner, t, nic_ref_wake, nic, 0);
}

static void nic_ref_idle(struct ws_sim *sim, struct ws_nic *nic,
			 struct ws_port *port)
{
	if (nic->ref_wake.ev)
		return;
	ws_time t = WS_TIME_NEVER;
	for (uint32_t i = 0; i < nic->n_act; i++)
		if (nic->act[i]->next_avail < t)
			t = nic->act[i]->next_avail;
	if (t != WS_TIME_NEVER && t > sim->now)
		nic_ref_arm(sim, nic, port, t);
}

/* A flow's next-available time moved: a pending wake-up comes earlier. */
static void nic_ref_moved(struct ws_sim *sim, struct ws_flow *f)
{
	struct ws_nic *nic = f->nic;
	if (!nic->ref_wake.ev || f->next_avail >= nic->ref_wake_at)
		return;
	ws_eventq_cancel(&sim->q, nic->ref_wake);
	nic_ref_arm(sim, nic, nic_port(sim, nic),
		    f->next_avail > sim->now ? f->next_avail : sim->now);
}

/* Earliest time anything could be sent after the current packet. */
static ws_time nic_next_time(struct ws_sim *sim, struct ws_nic *nic,
			     struct ws_port *port)
{
	if (sim->ref.wake) /* it looks again when the packet is out */
		return nic->n_act || port->q_bytes ? port->busy_until : WS_TIME_NEVER;
	for (unsigned q = 0; q < WS_PRIORITIES; q++)
		if (port->q[q].head && (q == 0 || !(port->paused & (1u << q))))
			return port->busy_until;
	ws_time t = WS_TIME_NEVER;
	for (uint32_t i = 0; i < nic->n_act; i++) {
		const struct ws_flow *f = nic->act[i];
		if (can_send(sim, f, port) && f->next_avail < t)
			t = f->next_avail;
	}
	if (t == WS_TIME_NEVER)
		return t;
	return t > port->busy_until ? t : port->busy_until;
}

void ws_nic_kick(struct ws_sim *sim, struct ws_nic *nic)
{
	struct ws_port *port = nic_port(sim, nic);
	if (sim->now < port->busy_until) {
		ws_time t = nic_next_time(sim, nic, port);
		if (t != WS_TIME_NEVER)
			ws_port_arm(sim, port, t);
		return;
	}
	ws_time next;
	struct ws_flow *from;
	struct ws_pkt *p = nic_next(sim, nic, port, &from, &next);
	if (!p) {
		if (sim->ref.wake)
			nic_ref_idle(sim, nic, port);
		else if (next != WS_TIME_NEVER)
			ws_port_arm(sim, port, next);
		return;
	}
	uint32_t payload = p->payload; /* p is gone if the link is down */
	ws_port_transmit(sim, port, p);
	if (from) {
		const struct ws_cc_ops *ops = WS_CC_OPS(sim);
		if (ops->on_send)
			ops->on_send(&from->cc, payload, sim->now);
	}
	ws_time t = nic_next_time(sim, nic, port);
	if (t != WS_TIME_NEVER)
		ws_port_arm(sim, port, t);
}

void ws_nic_flow_start(struct ws_sim *sim, struct ws_flow *f)
{
	struct ws_nic *nic = f->nic;
	if (nic->n_act == nic->cap_act) {
		nic->cap_act = nic->cap_act ? nic->cap_act * 2 : 8;
		nic->act = ws_xrealloc(nic->act, nic->cap_act, sizeof *nic->act);
	}
	nic->act[nic->n_act++] = f;
	f->active = 1;
	f->next_avail = sim->now;
	ws_nic_kick(sim, nic);
}

/* Remove a finished flow, keeping the round-robin order of the others. */
void ws_nic_flow_remove(struct ws_sim *sim, struct ws_flow *f)
{
	(void)sim;
	struct ws_nic *nic = f->nic;
	if (!f->active)
		return;
	for (uint32_t i = 0; i < nic->n_act; i++) {
		if (nic->act[i] != f)
			continue;
		memmove(&nic->act[i], &nic->act[i + 1],
			(nic->n_act - i - 1) * sizeof *nic->act);
		nic->n_act--;
		if (nic->rr > i || (nic->rr == i && i > 0))
			nic->rr--;
		if (nic->n_act && nic->rr >= nic->n_act)
			nic->rr = 0;
		break;
	}
	f->active = 0;
}

void ws_nic_rate_changed(struct ws_sim *sim, struct ws_flow *f,
			 uint64_t old_rate)
{
	if (!f->active)
		return;
	/* rate_gap = ns3: the reference's DCQCN, TIMELY, DCTCP assign the rate
	 * and move nothing (only its HPCC goes through ChangeRate) */
	if (sim->ref.keep_gap && (sim->cc_needs & WS_CC_REF_KEEPS_GAP))
		return;
	if (f->last_wire && old_rate != 0) {
		/* as the reference: the pending gap is recomputed at the new rate */
		int64_t d = (int64_t)ws_sim_tx_time(sim, f->last_wire, f->cc.rate) -
			    (int64_t)ws_sim_tx_time(sim, f->last_wire, old_rate);
		int64_t na = (int64_t)f->next_avail + d;
		f->next_avail = na < 0 ? 0 : (ws_time)na;
	}
	if (sim->ref.wake)
		nic_ref_moved(sim, f);
}

/* ---- receiver -------------------------------------------------------------- */

static void send_ctrl(struct ws_sim *sim, struct ws_port *port,
		      struct ws_flow *f, enum ws_pkt_type type, uint64_t seq,
		      const struct ws_pkt *data, uint8_t flags, uint32_t sack)
{
	struct ws_pkt *a = ws_pkt_alloc(&sim->pkts);
	a->type = (uint8_t)type;
	a->flow = f->cc.id;
	a->src = f->cc.dst;
	a->dst = f->cc.src;
	a->sport = f->dport;
	/* the entropy of the data it answers (the flow's own but when the
	 * sender sprays), so the sender knows which path it acknowledges */
	a->dport = data ? data->sport : f->sport;
	a->seq = seq;
	a->ts = data ? data->ts : sim->now;
	a->sack = sack;
	a->prio = f->prio;
	a->wire = type == WS_PKT_CNP ? sim->cnp_wire : sim->ack_wire;
	a->flags = flags;
	if (type != WS_PKT_CNP) {
		a->acked_pkts = (uint16_t)WS_MIN(f->rx_since_ack, 65535u);
		a->acked_ce = (uint16_t)WS_MIN(f->ce_since_ack, 65535u);
		if (data && (data->flags & WS_PKTF_INT)) {
			a->int_n = data->int_n;
			memcpy(a->int_hop, data->int_hop,
			       data->int_n * sizeof a->int_hop[0]);
		}
	}
	unsigned q = 0;
	if (type == WS_PKT_ACK || type == WS_PKT_NACK) {
		q = sim->swc.ack_high_priority ? 0 : f->prio;
		if (type == WS_PKT_ACK)
			sim->ctr.acks++;
		else
			sim->ctr.nacks++;
	} else {
		sim->ctr.cnps++;
	}
	ws_pktq_push(&port->q[q], a);
	port->q_bytes += a->wire;
	ws_nic_kick(sim, nic_of_port(sim, port));
}

static inline uint8_t ece(bool ce)
{
	return ce ? WS_PKTF_ECE : 0;
}

/* An ACK at the ack_interval / ack_chunk / last-byte points, or `now`,
 * with `flags` and `sack` (selective repeat's) besides the CE echo. */
static void ack_in_order(struct ws_sim *sim, struct ws_port *in, struct ws_flow *f,
			 const struct ws_pkt *p, bool now, uint8_t flags, uint32_t sack)
{
	const struct ws_nic_conf *c = &sim->nicc;
	bool ack = now || f->rx_since_ack >= c->ack_interval ||
		   f->rcv_nxt >= f->seq_end ||
		   (c->ack_chunk && f->rcv_nxt % c->ack_chunk == 0);
	if (!ack)
		return;
	send_ctrl(sim, in, f, WS_PKT_ACK, f->rcv_nxt, p,
		  (uint8_t)(ece(f->ce_since_ack > 0) | flags), sack);
	f->rx_since_ack = 0;
	f->ce_since_ack = 0;
}

/* Go-back-N: only the expected byte is accepted. */
static void receive_gbn(struct ws_sim *sim, struct ws_port *in, struct ws_flow *f,
			struct ws_pkt *p, bool ce)
{
	const struct ws_nic_conf *c = &sim->nicc;
	if (p->seq == f->rcv_nxt) {
		f->rcv_nxt += p->payload;
		f->rx_since_ack++;
		if (ce)
			f->ce_since_ack++;
		ack_in_order(sim, in, f, p, false, 0, 0);
	} else if (p->seq > f->rcv_nxt) {
		/* reordering: how many full packets early it came */
		uint64_t early = (p->seq - f->rcv_nxt + sim->payload - 1) / sim->payload;
		f->ooo_pkts++;
		if (early > f->max_reorder)
			f->max_reorder = (uint32_t)WS_MIN(early, (uint64_t)UINT32_MAX);
		if (sim->now >= f->nack_until || f->last_nack != f->rcv_nxt) {
			f->nack_until = sim->now + c->nack_interval;
			f->last_nack = f->rcv_nxt;
			send_ctrl(sim, in, f, WS_PKT_NACK, f->rcv_nxt, p, ece(ce), 0);
		}
	} else {
		/* a duplicate: say again what arrived */
		send_ctrl(sim, in, f, WS_PKT_ACK, f->rcv_nxt, p, ece(ce), 0);
	}
}

/* Selective repeat: data above the expected byte is kept (sr.c). */
static void receive_sr(struct ws_sim *sim, struct ws_port *in, struct ws_flow *f,
		       struct ws_pkt *p, bool ce)
{
	if (!f->sr || p->seq < f->rcv_nxt) { /* done with, or a duplicate */
		if (p->seq < f->rcv_nxt) /* a completed flow's too */
			sim->ctr.dup_pkts++;
		send_ctrl(sim, in, f, WS_PKT_ACK, f->rcv_nxt, p, ece(ce), 0);
		return;
	}
	uint32_t sack;
	bool now;
	uint64_t before = f->rcv_nxt;
	ws_sr_receive_data(sim, f, p, &sack, &now);
	if (f->rcv_nxt == before && !sack) { /* a duplicate above rcv_nxt */
		send_ctrl(sim, in, f, WS_PKT_ACK, f->rcv_nxt, p, ece(ce), 0);
		return;
	}
	f->rx_since_ack++;
	if (ce)
		f->ce_since_ack++;
	/* an ACK for a resent packet says so: the sender tells late
	 * originals from resends, and learns how far the fabric reorders */
	ack_in_order(sim, in, f, p, now || sack, p->flags & WS_PKTF_RETX, sack);
}

/* A data packet a switch cut to its header: ask for it again at once. */
static void receive_trimmed(struct ws_sim *sim, struct ws_port *in, struct ws_flow *f,
			    struct ws_pkt *p)
{
	bool sr = sim->nicc.transport == WS_TR_SR;
	bool had = p->seq < f->rcv_nxt ||
		   (sr && f->sr && ws_seqmap_test(&f->sr->held, p->seq / sim->payload));
	if (had || (sr && !f->sr)) {
		send_ctrl(sim, in, f, WS_PKT_ACK, f->rcv_nxt, p, 0, 0);
		return;
	}
	/* go-back-N names its expected byte, selective repeat the packet */
	uint64_t seq = sr ? p->seq : f->rcv_nxt;
	if (!sr) {
		f->nack_until = sim->now + sim->nicc.nack_interval;
		f->last_nack = f->rcv_nxt;
	}
	send_ctrl(sim, in, f, WS_PKT_NACK, seq, p, WS_PKTF_TRIM, 0);
}

static void receive_data(struct ws_sim *sim, struct ws_port *in,
			 struct ws_pkt *p)
{
	struct ws_flow *f = sim->flows[p->flow];
	if (__builtin_expect(p->flags & WS_PKTF_TRIM, 0)) {
		receive_trimmed(sim, in, f, p);
		return;
	}
	bool ce = p->ecn == WS_ECN_CE;
	if (ce)
		f->ce_marked++;
	if (__builtin_expect(sim->nicc.transport == WS_TR_SR, 0))
		receive_sr(sim, in, f, p, ce);
	else
		receive_gbn(sim, in, f, p, ce);
	if (ce && f->cnp_mode == WS_CNP_PACKET &&
	    (f->last_cnp == WS_TIME_NEVER ||
	     sim->now - f->last_cnp >= f->cnp_interval)) {
		f->last_cnp = sim->now;
		send_ctrl(sim, in, f, WS_PKT_CNP, 0, NULL, WS_PKTF_ECE, 0);
	}
}

/* ---- sender feedback --------------------------------------------------------- */

static void receive_ack(struct ws_sim *sim, struct ws_pkt *p)
{
	struct ws_flow *f = sim->flows[p->flow];
	if (f->end != WS_TIME_NEVER || f->aborted)
		return; /* late feedback for a finished or aborted flow */
	if (f->sr)
		ws_sr_entropy_feedback(sim, f, p);
	if (sim->nicc.transport == WS_TR_SR) {
		if (!ws_sr_receive_ack(sim, f, p))
			ws_flow_complete(sim, f);
		else
			ws_nic_kick(sim, f->nic);
		return;
	}
	bool nack = p->type == WS_PKT_NACK;
	uint64_t newly = p->seq > f->cc.snd_una ? p->seq - f->cc.snd_una : 0;
	if (newly) {
		f->cc.snd_una = p->seq;
		f->last_progress = sim->now;
		f->retries = 0;
	}
	if (f->cc.snd_nxt < f->cc.snd_una)
		f->cc.snd_nxt = f->cc.snd_una;
	if (f->cc.snd_una >= f->seq_end) {
		ws_flow_complete(sim, f);
		return;
	}
	if (nack) {
		f->nacks++;
		f->cc.snd_nxt = f->cc.snd_una; /* go back N */
	}
	struct ws_cc_ack a = ws_cc_ack_of(p, sim->now, newly);
	ws_cc_deliver_ack(sim, f, &a);
	if (a.trimmed)
		ws_cc_deliver_loss(sim, f, WS_LOSS_TRIM, 1);
	ws_nic_kick(sim, f->nic);
}

/* Feedback to the CC, in the reference's order: CNP, NACK, ACK. */
void ws_cc_deliver_ack(struct ws_sim *sim, struct ws_flow *f,
		       struct ws_cc_ack *a)
{
	const struct ws_cc_ops *ops = WS_CC_OPS(sim);
	a->now = sim->now;
	if (a->ecn_echo && f->cnp_mode == WS_CNP_ON_ACK && ops->on_cnp) {
		f->cnps++;
		sim->ctr.notified++;
		ops->on_cnp(&f->cc, sim->now);
	}
	if (a->nack && ops->on_nack)
		ops->on_nack(&f->cc, a);
	if (ops->on_ack)
		ops->on_ack(&f->cc, a);
}

void ws_cc_deliver_loss(struct ws_sim *sim, struct ws_flow *f,
			enum ws_cc_loss kind, uint32_t packets)
{
	const struct ws_cc_ops *ops = WS_CC_OPS(sim);
	if (packets && ops->on_loss)
		ops->on_loss(&f->cc, kind, packets, sim->now);
}

void ws_cc_deliver_cnp(struct ws_sim *sim, struct ws_flow *f)
{
	const struct ws_cc_ops *ops = WS_CC_OPS(sim);
	f->cnps++;
	sim->ctr.notified++;
	if (ops->on_cnp)
		ops->on_cnp(&f->cc, sim->now);
}

static void receive_cnp(struct ws_sim *sim, struct ws_pkt *p)
{
	struct ws_flow *f = sim->flows[p->flow];
	if (f->end != WS_TIME_NEVER || f->aborted)
		return;
	ws_cc_deliver_cnp(sim, f);
	ws_nic_kick(sim, f->nic);
}

static void held_feedback(struct ws_sim *sim, void *obj, uint64_t arg);

/* Feedback for a frozen flow waits, parked with its timers, until it thaws
 * (ws_thaw moves it by the shift).  True if held. */
static bool hold_feedback(struct ws_sim *sim, struct ws_pkt *p)
{
	if (p->flow >= sim->n_flows)
		return false;
	struct ws_flow *f = sim->flows[p->flow];
	if (!f->owner.frozen)
		return false;
	ws_eventq_push(&sim->q, &f->owner, sim->now, held_feedback, f,
		       (uint64_t)(uintptr_t)p);
	return true;
}

static void held_feedback(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)obj;
	struct ws_pkt *p = (struct ws_pkt *)(uintptr_t)arg;
	if (hold_feedback(sim, p))
		return;
	if (p->type == WS_PKT_CNP)
		receive_cnp(sim, p);
	else
		receive_ack(sim, p);
	ws_pkt_free(&sim->pkts, p);
}

void ws_nic_shift_held(struct ws_flow *f, ws_time shift)
{
	for (struct ws_event *ev = f->owner.parked; ev; ev = ev->wnext)
		if (ev->fn == held_feedback)
			ws_pkt_shift((struct ws_pkt *)(uintptr_t)ev->arg, shift);
}

void ws_nic_receive(struct ws_sim *sim, struct ws_port *in, struct ws_pkt *p)
{
	if (p->type != WS_PKT_PFC && p->type != WS_PKT_DATA && hold_feedback(sim, p))
		return;
	switch (p->type) {
	case WS_PKT_PFC:
		ws_port_pause(sim, in, p->prio, p->flags & WS_PKTF_PAUSE);
		break;
	case WS_PKT_DATA:
		WS_ASSERT(p->dst == in->node, "data for node %u arrived at host %u",
			  p->dst, in->node);
		receive_data(sim, in, p);
		break;
	case WS_PKT_ACK:
	case WS_PKT_NACK:
		receive_ack(sim, p);
		break;
	case WS_PKT_CNP:
		receive_cnp(sim, p);
		break;
	}
	ws_pkt_free(&sim->pkts, p);
}
