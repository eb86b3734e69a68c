/* SPDX-License-Identifier: MIT */
/*
 * Transports for lossy fabrics (docs/transports.md): selective repeat after
 * IRN (Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM 2018)
 * and the entropy a sender writes into each data packet (spraying, and
 * REPS-style recycling: Bonato et al., "REPS: Recycled Entropy Packet
 * Spraying for Adaptive Load Balancing and Failure Mitigation", 2024).
 *
 * Packets are numbered in full payloads from the flow's first byte (all
 * but the last are full), so packet i holds bytes [i P, min((i+1) P, end)).
 *
 * Receiver ([nic] transport = sr).  Data below the expected byte or already
 * held is a duplicate, answered with an ACK.  Data above it is held in a
 * bitmap and answered at once with an ACK carrying the cumulative point
 * and a selective ACK of it and the 15 packets before it (ws_sack_encode).
 * In-order data advances the expected byte past everything held, and is
 * ACKed as go-back-N's (every ack_interval packets, at ack_chunk, at the
 * end), or at once when it filled a hole.  A trimmed packet is answered
 * with a NACK naming it.
 *
 * Sender.  ACKs advance the cumulative point and mark selectively ACKed
 * packets in a bitmap.  A packet not ACKed is declared lost once a packet
 * sr_dupthresh or more above it was selectively ACKed (FACK's rule; IRN:
 * 1, any later arrival), or when a trim NACK names it, or at a timeout (every packet not ACKed).  Lost
 * packets are resent once each, before new data; new data is capped at
 * bdp_packets in flight (IRN's BDP-FC).  The timeout is rto_low while at
 * most rto_low_packets are in flight, else rto_high, doubled per timeout
 * in a row (rto_backoff); progress resets it.
 *
 * Entropy ([nic] entropy).  flow: the flow's sport (one path).  spray: per
 * packet, one of entropy_values values derived from the flow.  recycle: an
 * ACK that came back without an ECN echo returns its data packet's entropy
 * (echoed in the ACK's dport) to a ring of up to entropy_values values;
 * each packet takes the oldest from the ring, or a fresh random value
 * when the ring is empty.  Values that saw ECN, a trim or a loss are never
 * returned, so the flow drifts away from congested paths.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- bitmap of packet numbers from a moving base -------------------------- */

void ws_seqmap_free(struct ws_seqmap *m)
{
	free(m->w);
	memset(m, 0, sizeof *m);
}

static void seqmap_grow(struct ws_seqmap *m, uint64_t word)
{
	uint32_t need = (uint32_t)(word - m->base + 1);
	uint32_t cap = m->cap ? m->cap : 4;
	while (cap < need)
		cap *= 2;
	uint64_t *w = ws_xcalloc(cap, sizeof *w);
	for (uint32_t k = 0; k < m->cap; k++)
		w[(m->base + k) & (cap - 1)] = m->w[(m->base + k) & (m->cap - 1)];
	free(m->w);
	m->w = w;
	m->cap = cap;
}

/* Set bit i; false if it was set (or below the base) already. */
bool ws_seqmap_set(struct ws_seqmap *m, uint64_t i)
{
	uint64_t word = i >> 6;
	if (word < m->base)
		return false;
	if (word >= m->base + m->cap)
		seqmap_grow(m, word);
	uint64_t *w = &m->w[word & (m->cap - 1)], bit = 1ull << (i & 63);
	if (*w & bit)
		return false;
	*w |= bit;
	return true;
}

/* Bits below the base count as set. */
bool ws_seqmap_test(const struct ws_seqmap *m, uint64_t i)
{
	uint64_t word = i >> 6;
	if (word < m->base)
		return true;
	if (word >= m->base + m->cap)
		return false;
	return (m->w[word & (m->cap - 1)] >> (i & 63)) & 1;
}

/* Set bits in [lo, hi), both at or above the base's first bit. */
uint64_t ws_seqmap_count(const struct ws_seqmap *m, uint64_t lo, uint64_t hi)
{
	uint64_t n = 0;
	while (lo < hi) {
		uint64_t word = lo >> 6;
		if (word >= m->base + m->cap)
			break;
		uint64_t end = WS_MIN(hi, (word + 1) << 6);
		if (word >= m->base) {
			uint64_t bits = m->w[word & (m->cap - 1)] >> (lo & 63);
			unsigned span = (unsigned)(end - lo);
			if (span < 64)
				bits &= (1ull << span) - 1;
			n += (uint64_t)__builtin_popcountll(bits);
		}
		lo = end;
	}
	return n;
}

/* Clear every bit, keeping the base. */
void ws_seqmap_clear(struct ws_seqmap *m)
{
	if (m->w)
		memset(m->w, 0, m->cap * sizeof *m->w);
}

/* Forget the words wholly below bit i. */
void ws_seqmap_advance(struct ws_seqmap *m, uint64_t i)
{
	uint64_t word = i >> 6;
	if (word <= m->base)
		return;
	uint64_t clear = WS_MIN(word - m->base, (uint64_t)m->cap);
	for (uint64_t k = 0; k < clear; k++)
		m->w[(m->base + k) & (m->cap - 1)] = 0;
	m->base = word;
}

/* ---- per-flow state -------------------------------------------------------------- */

static inline uint64_t pkt_of(const struct ws_sim *sim, uint64_t seq)
{
	return seq / sim->payload;
}

static inline uint64_t seq_of(const struct ws_sim *sim, const struct ws_flow *f,
			      uint64_t pkt)
{
	return WS_MIN(pkt * sim->payload, f->seq_end);
}

bool ws_sr_wanted(const struct ws_sim *sim)
{
	return sim->nicc.transport == WS_TR_SR || sim->nicc.entropy != WS_ENT_FLOW;
}

bool ws_transport_used(const struct ws_sim *sim)
{
	return ws_sr_wanted(sim) || sim->swc.trim;
}

void ws_sr_flow_init(struct ws_sim *sim, struct ws_flow *f)
{
	if (!ws_sr_wanted(sim) || f->sr)
		return;
	struct ws_sr *s = ws_xcalloc(1, sizeof *s);
	const struct ws_nic_conf *c = &sim->nicc;
	if (c->bdp_fc) {
		uint64_t cap = c->bdp_packets ? c->bdp_packets
				: (sim->max_bdp + sim->payload - 1) / sim->payload;
		s->cap = cap ? cap : 1;
	}
	s->dupthresh = c->sr_dupthresh;
	ws_rng_seed(&s->rng, sim->seed, WS_RNG_ID(WS_RNG_ENTROPY, f->cc.id));
	if (c->entropy == WS_ENT_RECYCLE)
		s->ring = ws_xcalloc(c->entropy_values, sizeof *s->ring);
	f->sr = s;
}

void ws_sr_flow_free(struct ws_flow *f)
{
	struct ws_sr *s = f->sr;
	if (!s)
		return;
	ws_seqmap_free(&s->sacked);
	ws_seqmap_free(&s->resent);
	ws_seqmap_free(&s->held);
	free(s->urgent);
	free(s->ring);
	free(s);
	f->sr = NULL;
}

/* ---- entropy ------------------------------------------------------------------------ */

uint16_t ws_sr_entropy(struct ws_sim *sim, struct ws_flow *f)
{
	struct ws_sr *s = f->sr;
	const struct ws_nic_conf *c = &sim->nicc;
	if (c->entropy == WS_ENT_SPRAY) {
		uint64_t k = s->spray_next++ % c->entropy_values;
		return (uint16_t)ws_mix64(((uint64_t)f->cc.id << 20) ^ k ^
					  ((uint64_t)f->sport << 40));
	}
	if (c->entropy == WS_ENT_RECYCLE) {
		if (s->ring_n) {
			uint16_t v = s->ring[s->ring_head];
			s->ring_head = (uint32_t)((s->ring_head + 1) % c->entropy_values);
			s->ring_n--;
			s->recycled++;
			return v;
		}
		return (uint16_t)ws_rng_next(&s->rng);
	}
	return f->sport;
}

/* An ACK came back: an entropy value that saw no ECN may be used again. */
void ws_sr_entropy_feedback(struct ws_sim *sim, struct ws_flow *f,
			    const struct ws_pkt *ack)
{
	struct ws_sr *s = f->sr;
	const struct ws_nic_conf *c = &sim->nicc;
	if (!s || c->entropy != WS_ENT_RECYCLE || (ack->flags & WS_PKTF_ECE) ||
	    ack->type != WS_PKT_ACK || s->ring_n >= c->entropy_values)
		return;
	uint32_t at = (uint32_t)((s->ring_head + s->ring_n) % c->entropy_values);
	s->ring[at] = ack->dport;
	s->ring_n++;
}

/* ---- sender ------------------------------------------------------------------------- */

static inline bool sr_is(const struct ws_sim *sim)
{
	return sim->nicc.transport == WS_TR_SR;
}

/* The next lost packet to resend, or UINT64_MAX; moves past what was
 * ACKed meanwhile. */
static uint64_t next_lost(const struct ws_sim *sim, struct ws_flow *f)
{
	struct ws_sr *s = f->sr;
	uint64_t una = pkt_of(sim, f->cc.snd_una);
	while (s->n_urgent) {
		uint64_t k = s->urgent[s->urgent_head];
		if (k >= una && !ws_seqmap_test(&s->sacked, k) &&
		    seq_of(sim, f, k) < f->cc.snd_nxt)
			return k;
		s->urgent_head = (s->urgent_head + 1) % WS_SR_URGENT;
		s->n_urgent--;
	}
	if (s->rtx_next < una)
		s->rtx_next = una;
	while (s->rtx_next < s->lost_upto && (ws_seqmap_test(&s->sacked, s->rtx_next) ||
					       ws_seqmap_test(&s->resent, s->rtx_next)))
		s->rtx_next++;
	return s->rtx_next < s->lost_upto ? s->rtx_next : UINT64_MAX;
}

bool ws_sr_can_send(struct ws_sim *sim, struct ws_flow *f, uint64_t window)
{
	struct ws_sr *s = f->sr;
	if (next_lost(sim, f) != UINT64_MAX)
		return true;
	if (f->cc.snd_nxt >= f->seq_end)
		return false;
	if (s->cap && pkt_of(sim, f->cc.snd_nxt) - pkt_of(sim, f->cc.snd_una) >= s->cap)
		return false;
	return !(window && ws_flow_in_flight(f) >= window);
}

/* The first byte of the packet to send now: a lost one first, else new. */
uint64_t ws_sr_take(struct ws_sim *sim, struct ws_flow *f)
{
	struct ws_sr *s = f->sr;
	uint64_t k = next_lost(sim, f);
	if (k == UINT64_MAX)
		return f->cc.snd_nxt;
	if (s->n_urgent && s->urgent[s->urgent_head] == k) {
		s->urgent_head = (s->urgent_head + 1) % WS_SR_URGENT;
		s->n_urgent--;
	} else {
		s->rtx_next = k + 1;
	}
	ws_seqmap_set(&s->resent, k); /* the scan passes it until a timeout */
	return seq_of(sim, f, k);
}

/* Declare lost the packets below `upto` not yet ACKed; how many became so. */
static uint32_t mark_lost(const struct ws_sim *sim, struct ws_flow *f, uint64_t upto)
{
	struct ws_sr *s = f->sr;
	uint64_t una = pkt_of(sim, f->cc.snd_una);
	uint64_t from = WS_MAX(s->lost_upto, una);
	if (upto <= from)
		return 0;
	uint64_t n = (upto - from) - ws_seqmap_count(&s->sacked, from, upto);
	s->lost_upto = upto;
	return (uint32_t)WS_MIN(n, (uint64_t)UINT32_MAX);
}

uint64_t ws_sr_in_flight(const struct ws_sim *sim, const struct ws_flow *f)
{
	const struct ws_sr *s = f->sr;
	uint64_t out = f->cc.snd_nxt - f->cc.snd_una;
	uint64_t sacked = s->n_sacked * sim->payload;
	return out > sacked ? out - sacked : 0;
}

/* A trim NACK: the packet at p->seq was cut on its way; resend it first. */
static void trim_nack(struct ws_sim *sim, struct ws_flow *f, const struct ws_pkt *p)
{
	struct ws_sr *s = f->sr;
	f->nacks++;
	uint64_t k = pkt_of(sim, p->seq);
	if (p->seq < f->cc.snd_una || ws_seqmap_test(&s->sacked, k))
		return;
	if (s->n_urgent < WS_SR_URGENT) {
		if (!s->urgent)
			s->urgent = ws_xcalloc(WS_SR_URGENT, sizeof *s->urgent);
		s->urgent[(s->urgent_head + s->n_urgent) % WS_SR_URGENT] = k;
		s->n_urgent++;
	} else {
		mark_lost(sim, f, k + 1); /* the ring is full: the scan finds it */
	}
	/* no on_ack: the header came in the control class, its delay says
	 * nothing of the data path */
	const struct ws_cc_ops *ops = WS_CC_OPS(sim);
	struct ws_cc_ack a = {
		.now = sim->now, .seq = f->cc.snd_una, .rtt = sim->now - p->ts,
		.nack = true, .trimmed = true,
	};
	if (ops->on_nack)
		ops->on_nack(&f->cc, &a);
	ws_cc_deliver_loss(sim, f, WS_LOSS_TRIM, 1);
}

/* Mark what the ACK's selective part reports; packets newly marked. */
static uint32_t take_sack(struct ws_sim *sim, struct ws_flow *f, const struct ws_pkt *p)
{
	struct ws_sr *s = f->sr;
	uint32_t dist;
	uint16_t bits;
	if (!ws_sack_decode(p->sack, &dist, &bits))
		return 0;
	uint64_t base = pkt_of(sim, p->seq), una = pkt_of(sim, f->cc.snd_una);
	uint64_t nxt = (f->cc.snd_nxt + sim->payload - 1) / sim->payload;
	uint64_t top = base + dist;
	uint32_t n = 0;
	for (unsigned i = 0; i < WS_SACK_BITS && i < dist; i++) {
		uint64_t k = top - i;
		if (!((bits >> i) & 1) || k < una || k >= nxt)
			continue;
		if (ws_seqmap_set(&s->sacked, k)) {
			s->n_sacked++;
			n++;
		}
	}
	if (top < nxt && top + 1 > s->high_sack)
		s->high_sack = top + 1;
	return n;
}

/*
 * An ACK for an original (not resent) packet that was declared lost and
 * resent: the loss was the fabric reordering.  As TCP does, the flow's
 * threshold rises to the distance seen, so it stops resending on sprayed
 * paths.  Before take_sack and the cumulative advance of this ACK.
 */
static void spurious(const struct ws_sim *sim, struct ws_flow *f, const struct ws_pkt *p,
		     uint64_t newly)
{
	struct ws_sr *s = f->sr;
	if (p->flags & WS_PKTF_RETX)
		return;
	uint32_t dist;
	uint16_t bits;
	uint64_t k;
	if (ws_sack_decode(p->sack, &dist, &bits))
		k = pkt_of(sim, p->seq) + dist; /* the packet that triggered it */
	else if (newly)
		k = pkt_of(sim, f->cc.snd_una); /* it filled the first hole */
	else
		return;
	if (k < pkt_of(sim, f->cc.snd_una) || !ws_seqmap_test(&s->resent, k) ||
	    s->high_sack <= k)
		return;
	uint64_t seen = s->high_sack - k + 1;
	if (seen > s->dupthresh) {
		s->dupthresh = (uint32_t)WS_MIN(seen, (uint64_t)WS_SACK_MAX_DIST);
		s->reorder_raises++;
	}
}

/* An ACK or NACK for a flow under sr; false if the flow completed. */
bool ws_sr_receive_ack(struct ws_sim *sim, struct ws_flow *f, const struct ws_pkt *p)
{
	struct ws_sr *s = f->sr;
	if (p->flags & WS_PKTF_TRIM) {
		trim_nack(sim, f, p);
		return true;
	}
	uint64_t newly = p->seq > f->cc.snd_una ? p->seq - f->cc.snd_una : 0;
	if (newly) {
		uint64_t old = pkt_of(sim, f->cc.snd_una), now = pkt_of(sim, p->seq);
		s->n_sacked -= ws_seqmap_count(&s->sacked, old, now);
		f->cc.snd_una = p->seq;
		ws_seqmap_advance(&s->sacked, now);
		ws_seqmap_advance(&s->resent, now);
	}
	spurious(sim, f, p, newly);
	uint32_t sacked = take_sack(sim, f, p);
	if (newly || sacked) {
		f->last_progress = sim->now;
		f->retries = 0;
		s->backoff = 0;
	}
	if (f->cc.snd_una >= f->seq_end)
		return false;
	uint32_t lost = 0;
	uint64_t th = s->dupthresh;
	if (s->high_sack > th)
		lost = mark_lost(sim, f, s->high_sack - th);
	struct ws_cc_ack a = ws_cc_ack_of(p, sim->now, newly);
	a.sacked = sacked;
	ws_cc_deliver_ack(sim, f, &a);
	ws_cc_deliver_loss(sim, f, WS_LOSS_GAP, lost);
	return true;
}

ws_time ws_sr_rto(const struct ws_sim *sim, const struct ws_flow *f)
{
	const struct ws_nic_conf *c = &sim->nicc;
	uint64_t out = pkt_of(sim, f->cc.snd_nxt + sim->payload - 1) -
		       pkt_of(sim, f->cc.snd_una);
	ws_time t = out <= c->rto_low_packets ? c->rto_low : c->rto_high;
	return t << (f->sr ? f->sr->backoff : 0);
}

/* The timeout fired: every packet not ACKed is lost. */
void ws_sr_timeout(struct ws_sim *sim, struct ws_flow *f)
{
	struct ws_sr *s = f->sr;
	if (sim->nicc.rto_backoff && s->backoff < 6)
		s->backoff++;
	uint64_t una = pkt_of(sim, f->cc.snd_una);
	uint64_t nxt = (f->cc.snd_nxt + sim->payload - 1) / sim->payload;
	uint64_t n = nxt > una ? (nxt - una) - ws_seqmap_count(&s->sacked, una, nxt) : 0;
	s->lost_upto = nxt;
	s->rtx_next = una;
	s->n_urgent = 0;
	ws_seqmap_clear(&s->resent); /* everything not ACKed goes again */
	ws_cc_deliver_loss(sim, f, WS_LOSS_TIMEOUT, (uint32_t)WS_MIN(n, (uint64_t)UINT32_MAX));
}

/* ---- receiver ------------------------------------------------------------------------ */

/*
 * Data for a flow under sr.  Returns what to answer: 0 nothing yet, else
 * WS_PKT_ACK with *sack set (0: cumulative only).
 */
int ws_sr_receive_data(struct ws_sim *sim, struct ws_flow *f, const struct ws_pkt *p,
		       uint32_t *sack, bool *now)
{
	struct ws_sr *s = f->sr;
	uint64_t k = pkt_of(sim, p->seq), r = pkt_of(sim, f->rcv_nxt);
	*sack = 0;
	*now = true;
	if (k < r || ws_seqmap_test(&s->held, k)) {
		sim->ctr.dup_pkts++;
		return WS_PKT_ACK;
	}
	if (k > r) {
		ws_seqmap_set(&s->held, k);
		s->rx_bytes += p->payload;
		uint64_t early = k - r;
		f->ooo_pkts++;
		if (early > f->max_reorder)
			f->max_reorder = (uint32_t)WS_MIN(early, (uint64_t)UINT32_MAX);
		uint16_t bits = 0;
		for (unsigned i = 0; i < WS_SACK_BITS && i < early; i++)
			if (ws_seqmap_test(&s->held, k - i))
				bits |= (uint16_t)(1u << i);
		*sack = ws_sack_encode(early, bits);
		return WS_PKT_ACK;
	}
	/* in order: past everything held above it */
	s->rx_bytes += p->payload;
	uint64_t next = k + 1;
	while (ws_seqmap_test(&s->held, next) && seq_of(sim, f, next) < f->seq_end)
		next++;
	*now = next > k + 1;
	f->rcv_nxt = seq_of(sim, f, next);
	ws_seqmap_advance(&s->held, next);
	return WS_PKT_ACK;
}
