/* SPDX-License-Identifier: MIT */
/*
 * The switch pipeline, store-and-forward with zero processing delay:
 *
 *   arrival -> routing rule -> shared-buffer admission (ingress accounting,
 *   dynamic threshold, PFC XOFF per ingress port and priority, or drop-tail
 *   with PFC off) -> egress queue per priority -> [dequeue: strict priority
 *   for queue 0, round robin over 1..7 skipping paused ones; release the
 *   buffer, PFC XON, RED/ECN marking on the bytes left in the queue, INT
 *   record] -> serialization -> propagation.
 *
 * The buffer model follows the HPCC ns-3 simulator's switch MMU: per
 * ingress (port, priority) a reserved part, then the shared pool, then the
 * port's headroom; threshold = (buffer - headroom - reserve - shared used)
 * >> alpha_shift.  Queue 0 (PFC frames, CNPs, and ACKs when configured) is
 * strict priority, never paused, and bypasses admission.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* [switch] ecn_map: "RATE KMIN KMAX PMAX" entries separated by ';'. */
static int parse_ecn_map(const char *text, struct ws_ecn_entry **out, size_t *n,
			 struct ws_err *err)
{
	static const struct ws_param rate_p = { .key = "rate", .type = WS_PT_RATE, .min = "1bps" };
	static const struct ws_param size_p = { .key = "threshold", .type = WS_PT_SIZE };
	static const struct ws_param prob_p = { .key = "pmax", .type = WS_PT_FLOAT, .min = "0", .max = "1" };
	*out = NULL;
	*n = 0;
	char *copy = ws_xstrdup(text), *save = NULL;
	int rc = WS_OK;
	for (char *e = strtok_r(copy, ";", &save); e; e = strtok_r(NULL, ";", &save)) {
		char *f[5], *s2 = NULL;
		int nf = 0;
		for (char *t = strtok_r(e, " \t", &s2); t && nf < 5; t = strtok_r(NULL, " \t", &s2))
			f[nf++] = t;
		if (nf == 0)
			continue;
		struct ws_ecn_entry x;
		char why[256];
		if (nf != 4) {
			rc = ws_err_key(err, WS_EINVAL, "ecn_map",
					"[switch] ecn_map: an entry has %d field%s; expected "
					"'RATE KMIN KMAX PMAX' (e.g. 100Gbps 400KB 1600KB 0.2)",
					nf, nf == 1 ? "" : "s");
			break;
		}
		if (ws_param_parse(&rate_p, f[0], &x.rate, why, sizeof why) ||
		    ws_param_parse(&size_p, f[1], &x.kmin, why, sizeof why) ||
		    ws_param_parse(&size_p, f[2], &x.kmax, why, sizeof why) ||
		    ws_param_parse(&prob_p, f[3], &x.pmax, why, sizeof why)) {
			rc = ws_err_key(err, WS_EINVAL, "ecn_map",
					"[switch] ecn_map entry '%s %s %s %s': %s",
					f[0], f[1], f[2], f[3], why);
			break;
		}
		if (x.kmin > x.kmax) {
			rc = ws_err_key(err, WS_EINVAL, "ecn_map",
					"[switch] ecn_map entry for %s: kmin above kmax", f[0]);
			break;
		}
		*out = ws_xrealloc(*out, *n + 1, sizeof **out);
		(*out)[(*n)++] = x;
	}
	free(copy);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

/* A port's PFC headroom: [switch] pfc_headroom, or 3 x rate x delay. */
static uint32_t port_headroom(const struct ws_switch_conf *c,
			      const struct ws_port *p)
{
	uint64_t hdrm = c->pfc_headroom ? c->pfc_headroom
					: 3 * ws_bytes_in(p->delay, p->rate);
	return (uint32_t)WS_MIN(hdrm, UINT32_MAX);
}

uint64_t *ws_switch_auto_headroom(const struct ws_sim *sim)
{
	const struct ws_switch_conf automatic = { .pfc_headroom = 0 };
	uint64_t *sum = ws_xcalloc(sim->fab.n_switches ? sim->fab.n_switches : 1,
				   sizeof *sum);
	for (uint32_t i = 0; i < sim->fab.n_nodes; i++) {
		const struct ws_node *n = &sim->nodes[i];
		if (n->kind != WS_NODE_SWITCH)
			continue;
		for (uint32_t l = 0; l < n->n_ports; l++)
			sum[sim->aux[i]] += port_headroom(&automatic,
							  &sim->ports[n->first_port + l]);
	}
	return sum;
}

/* Kmin, Kmax and Pmax at a port: its level's ecn_tierN, else the rate map's
 * entry for its rate, else ecn_kmin/ecn_kmax scaled to its rate. */
void ws_switch_ecn(const struct ws_sim *sim, unsigned level, uint64_t rate,
		   struct ws_ecn_entry *out)
{
	const struct ws_switch_conf *c = &sim->swc;
	*out = (struct ws_ecn_entry){ rate, c->ecn_kmin, c->ecn_kmax, c->ecn_pmax };
	if (level >= 1 && level <= WS_SW_TIERS && sim->ecn_tier[level].rate) {
		*out = sim->ecn_tier[level];
		out->rate = rate;
		return;
	}
	const struct ws_ecn_entry *m = NULL;
	for (size_t k = 0; k < sim->n_ecn_map && !m; k++)
		if (sim->ecn_map[k].rate == rate)
			m = &sim->ecn_map[k];
	if (m) {
		*out = *m;
	} else if (sim->n_ecn_map && sim->ref.ecn_unmapped_zero) {
		/* the reference's rate2kmin[rate] and friends: 0 for a rate
		 * its maps lack, so every packet of a non-empty queue is marked */
		out->kmin = out->kmax = 0;
		out->pmax = 0;
	} else if (c->ecn_ref_rate) {
		__extension__ typedef unsigned __int128 u128;
		out->kmin = (uint64_t)((u128)out->kmin * rate / c->ecn_ref_rate);
		out->kmax = (uint64_t)((u128)out->kmax * rate / c->ecn_ref_rate);
	}
}

/*
 * The switch fields of one port, at its first packet: what ws_switch_setup
 * computed for every port before fabrics were shared, with the same
 * values, so results do not depend on when a port is set up.
 */
void ws_port_setup(struct ws_sim *sim, struct ws_port *p)
{
	const struct ws_switch_conf *c = &sim->swc;
	p->headroom = port_headroom(c, p);
	unsigned shift = (unsigned)c->pfc_alpha_shift;
	for (uint64_t r = p->rate; r > sim->host_rate && shift > 0; r /= 2)
		shift--;
	p->alpha_shift = (uint8_t)shift;
	struct ws_ecn_entry e;
	ws_switch_ecn(sim, sim->nodes[p->node].level, p->rate, &e);
	p->kmin = (uint32_t)WS_MIN(e.kmin, UINT32_MAX);
	p->kmax = (uint32_t)WS_MIN(e.kmax, UINT32_MAX);
	p->pmax = e.pmax;
	ws_rng_seed(&p->rng, sim->seed,
		    WS_RNG_ID(WS_RNG_PORT, (uint32_t)(p - sim->ports)));
	p->ready = 1;
}

uint64_t ws_switch_buffer(const struct ws_switch_conf *c, unsigned level)
{
	return level >= 1 && level <= WS_SW_TIERS && c->buffer_tier[level]
		       ? c->buffer_tier[level] : c->buffer;
}

static const char *const buffer_tier_key[] = { NULL, "buffer_tier1", "buffer_tier2",
	"buffer_tier3", "buffer_tier4" };
static const char *const ecn_tier_key[] = { NULL, "ecn_tier1", "ecn_tier2",
	"ecn_tier3", "ecn_tier4" };

/* [switch] ecn_tierN: "KMIN KMAX PMAX", into sim->ecn_tier[t] (rate 1). */
static int parse_ecn_tier(struct ws_sim *sim, unsigned t, struct ws_err *err)
{
	static const struct ws_param size_p = { .key = "threshold", .type = WS_PT_SIZE };
	static const struct ws_param prob_p = { .key = "pmax", .type = WS_PT_FLOAT, .min = "0", .max = "1" };
	const char *text = sim->swc.ecn_tier[t] ? sim->swc.ecn_tier[t] : "";
	const char *key = ecn_tier_key[t];
	struct ws_ecn_entry x = { .rate = 1 };
	sim->ecn_tier[t] = (struct ws_ecn_entry){ 0 };
	char *copy = ws_xstrdup(text), *save = NULL, *f[4];
	int nf = 0, rc = WS_OK;
	for (char *tok = strtok_r(copy, " \t", &save); tok && nf < 4;
	     tok = strtok_r(NULL, " \t", &save))
		f[nf++] = tok;
	char why[256] = "";
	if (nf == 0)
		goto out;
	if (nf != 3)
		snprintf(why, sizeof why, "%d field%s", nf, nf == 1 ? "" : "s");
	else if (ws_param_parse(&size_p, f[0], &x.kmin, why, sizeof why) ||
		 ws_param_parse(&size_p, f[1], &x.kmax, why, sizeof why) ||
		 ws_param_parse(&prob_p, f[2], &x.pmax, why, sizeof why))
		;
	else if (x.kmin > x.kmax)
		snprintf(why, sizeof why, "KMIN above KMAX");
	if (why[0])
		rc = ws_err_key(err, WS_EINVAL, key, "[switch] %s = '%s': %s; expected "
				"'KMIN KMAX PMAX' (e.g. 400KB 1600KB 0.2)", key, text, why);
	else
		sim->ecn_tier[t] = x;
out:
	free(copy);
	return rc;
}

/* The per-level keys: well formed, and set only for levels that exist. */
static int switch_tier_keys(struct ws_sim *sim, struct ws_err *err)
{
	const struct ws_switch_conf *c = &sim->swc;
	bool present[WS_SW_TIERS + 1] = { false };
	unsigned top = 0;
	for (uint32_t i = 0; i < sim->fab.n_nodes; i++)
		if (sim->nodes[i].kind == WS_NODE_SWITCH) {
			unsigned l = sim->nodes[i].level;
			top = WS_MAX(top, l);
			if (l <= WS_SW_TIERS)
				present[l] = true;
		}
	for (unsigned t = 1; t <= WS_SW_TIERS; t++) {
		int rc = parse_ecn_tier(sim, t, err);
		if (rc)
			return rc;
		uint64_t b = c->buffer_tier[t];
		if (b && b < 1024)
			return ws_err_key(err, WS_EINVAL, buffer_tier_key[t],
					  "[switch] %s = %llu B: at least 1KiB (0B: buffer)",
					  buffer_tier_key[t], (unsigned long long)b);
		const char *set = b ? buffer_tier_key[t]
				    : sim->ecn_tier[t].rate ? ecn_tier_key[t] : NULL;
		if (set && !present[t])
			return ws_err_key(err, WS_EINVAL, set, "[switch] %s is set but no "
					  "switch of this fabric is at level %u (its "
					  "switches are at levels 1 to %u)", set, t, top);
	}
	return WS_OK;
}

/* The shared buffers: nothing here reads or writes a port (see above). */
int ws_switch_setup(struct ws_sim *sim, struct ws_err *err)
{
	const struct ws_switch_conf *c = &sim->swc;
	free(sim->ecn_map);
	int rc = parse_ecn_map(c->ecn_map ? c->ecn_map : "", &sim->ecn_map,
			       &sim->n_ecn_map, err);
	if (rc || (rc = switch_tier_keys(sim, err)))
		return rc;
	uint64_t fixed_hdrm = c->pfc_headroom ? WS_MIN(c->pfc_headroom, UINT32_MAX) : 0;
	for (uint32_t i = 0; i < sim->fab.n_nodes; i++) {
		const struct ws_node *n = &sim->nodes[i];
		if (n->kind != WS_NODE_SWITCH)
			continue;
		struct ws_swstate *st = &sim->sws[sim->aux[i]];
		memset(st, 0, sizeof *st);
		st->buffer = ws_switch_buffer(c, n->level);
		if (c->pfc)
			st->total_hdrm = c->pfc_headroom
					     ? fixed_hdrm * n->n_ports
					     : sim->facts.sw_hdrm_auto[sim->aux[i]];
		st->total_rsrv = c->pfc_reserve * n->n_ports;
		if (st->total_hdrm + st->total_rsrv >= st->buffer) {
			const char *key = n->level <= WS_SW_TIERS && c->buffer_tier[n->level]
					  ? buffer_tier_key[n->level] : "buffer";
			ws_err_key(err, WS_EINVAL, key,
				   "[switch] %s = %llu bytes is too small for switch %u: "
				   "its %u ports need %llu bytes of PFC headroom and %llu "
				   "reserved", key, (unsigned long long)st->buffer, i, n->n_ports,
				   (unsigned long long)st->total_hdrm,
				   (unsigned long long)st->total_rsrv);
			return WS_EINVAL;
		}
	}
	return WS_OK;
}

static inline struct ws_swstate *sw_of(struct ws_sim *sim, uint32_t node)
{
	return &sim->sws[sim->aux[node]];
}

static inline uint64_t threshold(const struct ws_swstate *st,
				 const struct ws_port *in)
{
	uint64_t fixed = st->total_hdrm + st->total_rsrv + st->shared_used;
	uint64_t free_bytes = st->buffer > fixed ? st->buffer - fixed : 0;
	return free_bytes >> in->alpha_shift;
}

static inline uint64_t shared_of(const struct ws_sim *sim,
				 const struct ws_port *in, unsigned q)
{
	uint64_t r = sim->swc.pfc_reserve;
	return in->in_bytes[q] > r ? in->in_bytes[q] - r : 0;
}

static void send_pfc(struct ws_sim *sim, struct ws_port *port, unsigned prio,
		     bool pause)
{
	if (__builtin_expect(port->down, 0))
		return; /* nobody to tell: a failure cleared its PFC state */
	struct ws_pkt *f = ws_pkt_alloc(&sim->pkts);
	f->type = WS_PKT_PFC;
	f->prio = (uint8_t)prio;
	f->flags = pause ? WS_PKTF_PAUSE : 0;
	f->wire = (uint32_t)sim->swc.pfc_frame;
	f->payload = 0;
	f->flow = WS_NONE;
	f->src = port->node;
	f->dst = sim->ports[port->peer].node;
	f->seq = 0;
	f->ts = sim->now;
	ws_pktq_push(&port->q[0], f);
	port->q_bytes += f->wire;
	if (pause) {
		port->pause_sent |= (uint8_t)(1u << prio);
		port->pause_tx++;
		sim->ctr.pfc_pauses++;
	} else {
		port->pause_sent &= (uint8_t)~(1u << prio);
		port->resume_tx++;
		sim->ctr.pfc_resumes++;
	}
	if (__builtin_expect(sim->trace_pfc | sim->trace_pkts, 0))
		ws_ptrace_pfc(sim, port, prio, pause, true, f);
	ws_port_kick(sim, port);
}

uint32_t ws_route_next(struct ws_sim *sim, const struct ws_node *at,
		      struct ws_pkt *p)
{
	const struct ws_routing_ops *ops = WS_ROUTING_OPS(sim);
	struct ws_inst *inst = &sim->slot[WS_KIND_ROUTING].inst;
	return ops->next_hop ? ops->next_hop(inst, at, &sim->nodes[p->dst], p)
			     : ops->next_port(inst, at, &sim->nodes[p->dst], p);
}

uint64_t ws_routing_state_bytes(const struct ws_sim *sim)
{
	const struct ws_routing_ops *ops = WS_ROUTING_OPS(sim);
	const struct ws_slot *s = &sim->slot[WS_KIND_ROUTING];
	return s->present && ops->state_bytes ? ops->state_bytes(&s->inst) : 0;
}

uint32_t ws_route(struct ws_sim *sim, const struct ws_node *at,
		  struct ws_pkt *p)
{
	const struct ws_slot *s = &sim->slot[WS_KIND_ROUTING];
	uint32_t l = ws_route_next(sim, at, p);
	if (l >= at->n_ports) {
		if (sim->links_changed)
			return WS_NONE; /* no route left: the caller drops it */
		struct ws_err e;
		ws_err_set(&e, WS_ESTATE,
			   "routing rule '%s' found no port at node %u (level %u) for a "
			   "packet from node %u to node %u (flow %u)",
			   s->ld.desc->name, at->id, at->level, p->src, p->dst,
			   p->flow);
		ws_fail(sim, &e);
		return WS_NONE;
	}
	return l;
}

/* The queue class of a packet on its current link: control traffic in 0,
 * the rest in its priority raised by the routing rule's class escalation. */
static inline unsigned queue_of(const struct ws_sim *sim,
				const struct ws_pkt *p)
{
	if (p->type == WS_PKT_CNP || p->prio == 0 || (p->flags & WS_PKTF_TRIM))
		return 0;
	if ((p->type == WS_PKT_ACK || p->type == WS_PKT_NACK) &&
	    sim->swc.ack_high_priority)
		return 0;
	unsigned q = (unsigned)p->prio + p->vc;
	return q < WS_PRIORITIES ? q : WS_PRIORITIES - 1;
}

/*
 * [switch] trim: cut a data packet to its headers (padded to the minimum
 * frame) and send it on in the control class, which bypasses admission,
 * so the receiver learns of the loss at once and NACKs it (NDP, UET).
 */
static void trim(struct ws_sim *sim, const struct ws_port *out, struct ws_pkt *p)
{
	if (__builtin_expect(sim->trace_pkts, 0))
		ws_ptrace_pkt(sim, out, p, WS_PT_TRIM);
	p->flags |= WS_PKTF_TRIM;
	p->flags &= (uint8_t)~WS_PKTF_INT;
	p->wire = (uint32_t)WS_MAX(sim->nicc.header, sim->nicc.ack_size);
	p->ecn = WS_ECN_NOT_ECT;
	sim->ctr.trims++;
	sim->flows[p->flow]->trims++;
}

/* A buffer refused the packet: drop it, or trim it when configured.
 * True if it goes on (trimmed). */
static bool refuse(struct ws_sim *sim, struct ws_port *out, struct ws_pkt *p)
{
	if (sim->swc.trim && p->type == WS_PKT_DATA && !(p->flags & WS_PKTF_TRIM)) {
		trim(sim, out, p);
		return true;
	}
	if (__builtin_expect(sim->trace_pkts, 0))
		ws_ptrace_pkt(sim, out, p, WS_PT_DROP);
	out->drops++;
	sim->ctr.drops++;
	sim->ctr.buffer_drops++;
	ws_pkt_free(&sim->pkts, p);
	return false;
}

void ws_switch_receive(struct ws_sim *sim, struct ws_port *in,
		       struct ws_pkt *p)
{
	if (p->type == WS_PKT_PFC) {
		ws_port_pause(sim, in, p->prio, p->flags & WS_PKTF_PAUSE);
		ws_pkt_free(&sim->pkts, p);
		return;
	}
	const struct ws_node *node = &sim->nodes[in->node];
	ws_port_ready(sim, in);
	if (++p->hops > sim->swc.ttl) {
		struct ws_err e;
		ws_err_set(&e, WS_ESTATE,
			   "a packet of flow %u (node %u to node %u) made more than "
			   "%llu switch hops, reaching node %u: the routing rule '%s' "
			   "loops",
			   p->flow, p->src, p->dst, (unsigned long long)sim->swc.ttl,
			   node->id, sim->slot[WS_KIND_ROUTING].ld.desc->name);
		sim->ctr.ttl_drops++;
		sim->ctr.drops++;
		ws_fail(sim, &e);
		ws_pkt_free(&sim->pkts, p);
		return;
	}
	/* accounted and paused in the class it arrived in; queued for egress
	 * in the class the routing rule sends it on in */
	unsigned qi = queue_of(sim, p);
	p->in_port = in->local; /* adaptive rules may read it */
	uint32_t local = ws_route(sim, node, p);
	if (__builtin_expect(local == WS_NONE, 0)) {
		if (sim->links_changed)
			ws_fail_drop_why(sim, in, p, WS_WHY_NO_ROUTE);
		else
			ws_pkt_free(&sim->pkts, p);
		return;
	}
	struct ws_port *out = ws_port_at(sim, node->id, local);
	/* the egress port's lines this packet needs, asked for together (each
	 * is a miss on a large fabric; one after the other they would not
	 * overlap) */
	__builtin_prefetch((const char *)out + 128);
	__builtin_prefetch((const char *)out + 192);
	__builtin_prefetch(&out->q[p->prio]);
	if (__builtin_expect(out->down, 0)) {
		/* a stale choice: the link is down (the rule has not converged) */
		ws_fail_drop(sim, out, p);
		return;
	}
	ws_port_ready(sim, out);
	unsigned qo = queue_of(sim, p);
	if (__builtin_expect(sim->swc.trim_threshold != 0, 0) && qo != 0 &&
	    sim->swc.trim && p->type == WS_PKT_DATA &&
	    out->q[qo].bytes > sim->swc.trim_threshold) {
		trim(sim, out, p);
		qi = qo = 0;
	}
	uint32_t size = p->wire;
	if (qi != 0) {
		struct ws_swstate *st = sw_of(sim, node->id);
		const struct ws_switch_conf *c = &sim->swc;
		uint64_t thr = threshold(st, in);
		uint64_t shared = shared_of(sim, in, qi);
		bool admit = true;
		/* admission */
		if (c->pfc && size + in->hdrm_bytes[qi] > in->headroom &&
		    size + shared > thr)
			admit = false;
		uint64_t new_bytes = (uint64_t)in->in_bytes[qi] + size;
		if (admit && new_bytes <= c->pfc_reserve) {
			in->in_bytes[qi] += size;
		} else if (admit && new_bytes - c->pfc_reserve > thr) {
			if (!c->pfc)
				admit = false; /* drop-tail: over the dynamic threshold */
			else
				in->hdrm_bytes[qi] += size;
		} else if (admit) {
			in->in_bytes[qi] += size;
			st->shared_used += WS_MIN((uint64_t)size,
						  new_bytes - c->pfc_reserve);
			if (st->shared_used > st->peak_used)
				st->peak_used = st->shared_used;
		}
		if (!admit) {
			if (!refuse(sim, out, p))
				return;
			qi = 0;
			qo = 0;
			size = p->wire;
		}
		/* XOFF */
		if (qi != 0 && c->pfc && !(in->pause_sent & (1u << qi)) &&
		    (in->hdrm_bytes[qi] > 0 ||
		     shared_of(sim, in, qi) >= threshold(st, in)))
			send_pfc(sim, in, qi, true);
	}
	p->in_q = (uint8_t)qi;
	/* a frozen flow's data at a port that holds it: set aside, its buffer
	 * still taken (WS_FREEZE_FLOWS_ONLY) */
	if (__builtin_expect(out->hold != NULL, 0) && out->hold->n &&
	    p->type == WS_PKT_DATA && sim->flows[p->flow]->owner.frozen) {
		ws_pktq_push(&out->hold->q[qo], p);
		out->hold->bytes += size;
		return;
	}
	ws_pktq_push(&out->q[qo], p);
	out->q_bytes += size;
	if (out->q_bytes > out->max_q_bytes)
		out->max_q_bytes = out->q_bytes;
	if (__builtin_expect(sim->trace_pkts, 0))
		ws_ptrace_pkt(sim, out, p, WS_PT_ENQ);
	ws_port_kick(sim, out);
}

/* ws_switch_release, inlined in the dequeue: the per-packet path */
static inline void switch_release(struct ws_sim *sim, struct ws_port *port,
				  const struct ws_pkt *p)
{
	unsigned iq = p->in_q;
	if (iq == 0)
		return;
	/* release the ingress accounting of the class it arrived in */
	uint32_t size = p->wire;
	const struct ws_switch_conf *c = &sim->swc;
	struct ws_swstate *st = sw_of(sim, port->node);
	struct ws_port *in = ws_port_at(sim, port->node, p->in_port);
	uint32_t from_hdrm = WS_MIN(in->hdrm_bytes[iq], size);
	uint64_t over = shared_of(sim, in, iq);
	uint64_t from_shared = WS_MIN((uint64_t)(size - from_hdrm), over);
	in->hdrm_bytes[iq] -= from_hdrm;
	in->in_bytes[iq] -= size - from_hdrm;
	st->shared_used -= from_shared;
	/* XON */
	if ((in->pause_sent & (1u << iq)) && in->hdrm_bytes[iq] == 0) {
		uint64_t sh = shared_of(sim, in, iq);
		if (sh == 0 || sh + c->pfc_resume_offset <= threshold(st, in))
			send_pfc(sim, in, iq, false);
	}
}

void ws_switch_release(struct ws_sim *sim, struct ws_port *port,
		       const struct ws_pkt *p)
{
	switch_release(sim, port, p);
}

/* The RED/ECN draw on the bytes left in (port, queue qi). */
static bool red_mark(struct ws_port *port, unsigned qi)
{
	uint64_t qb = port->q[qi].bytes;
	if (qb > port->kmax)
		return true;
	if (qb <= port->kmin)
		return false;
	double prob = port->pmax * (double)(qb - port->kmin) /
		      (double)(port->kmax - port->kmin);
	return ws_rng_uniform(&port->rng) < prob;
}

struct ws_pkt *ws_switch_dequeue(struct ws_sim *sim, struct ws_port *port)
{
	unsigned qi = 0;
	struct ws_pkt *p = NULL;
	if (port->q[0].head) {
		p = ws_pktq_pop(&port->q[0]);
	} else {
		for (unsigned k = 1; k < WS_PRIORITIES; k++) {
			unsigned q = (port->rr + k - 1) % (WS_PRIORITIES - 1) + 1;
			if (port->q[q].head && !(port->paused & (1u << q))) {
				qi = q;
				p = ws_pktq_pop(&port->q[q]);
				port->rr = (uint8_t)q;
				/* deep queues: the next one will be needed soon */
				if (port->q[q].head)
					__builtin_prefetch(port->q[q].head);
				break;
			}
		}
		if (!p)
			return NULL;
	}
	port->q_bytes -= p->wire;
	switch_release(sim, port, p);
	if (qi != 0) {
		const struct ws_switch_conf *c = &sim->swc;
		/* RED/ECN on the bytes left in this (port, priority): ECN-capable
		 * data, or (ecn_scope = all, as the reference) every packet */
		bool ect = p->type == WS_PKT_DATA && p->ecn != WS_ECN_NOT_ECT;
		if (c->ecn && (ect || sim->ref.ecn_all) && red_mark(port, qi)) {
			p->ecn = WS_ECN_CE;
			if (__builtin_expect(sim->trace_pkts, 0))
				ws_ptrace_pkt(sim, port, p, WS_PT_ECN);
			if (p->type == WS_PKT_DATA) {
				port->ecn_marks++;
				sim->ctr.ecn_marks++;
			} else {
				port->ecn_marks_ctrl++;
				sim->ctr.ecn_marks_ctrl++;
			}
		}
	}
	if ((p->flags & WS_PKTF_INT) && p->type == WS_PKT_DATA &&
	    p->int_n < sim->nicc.int_max_hops) {
		struct ws_int_hop *h = &p->int_hop[p->int_n++];
		h->ts = sim->now;
		h->tx_bytes = port->tx_bytes;
		h->rate = port->rate;
		h->qlen = (uint32_t)WS_MIN(port->q_bytes, UINT32_MAX);
		h->reserved = 0;
	}
	return p;
}
