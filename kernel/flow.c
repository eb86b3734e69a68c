/* SPDX-License-Identifier: MIT */
/*
 * Flows: creation by workloads, start (path walk for the base RTT and the
 * ideal FCT, CC init, NIC queue pair), completion callbacks, the kernel
 * calls a CC makes (rate, window, timers, notification mode), the
 * retransmission timeout, and freeze/thaw of flows and ports.
 */
#include <stdlib.h>
#include <string.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include "internal.h"

uint32_t ws_flow_count(const struct ws_sim *sim)
{
	return sim->n_flows;
}

static void flow_start_event(struct ws_sim *sim, void *obj, uint64_t arg);

#define WS_RNG_PERTURB 0x50u /* per flow: [sim] perturb's start shift */

/* [sim] perturb: the start the workload asks for, shifted by a draw of
 * 0 .. perturb ps from (perturb_seed, flow id), for the noise-floor twin
 * of a run (docs/acceleration.md); unchanged when perturb is 0. */
static ws_time perturbed_start(const struct ws_sim *sim, uint32_t id, ws_time start)
{
	if (!sim->simc.perturb)
		return start;
	struct ws_rng rng;
	ws_rng_seed(&rng, sim->simc.perturb_seed, WS_RNG_ID(WS_RNG_PERTURB, id));
	return start + ws_rng_below(&rng, sim->simc.perturb + 1);
}

/* A flow spec the kernel can run: endpoints, size, priority, start. */
static int check_spec(const struct ws_sim *sim, const struct ws_flow_spec *spec,
		      struct ws_err *err)
{
	const struct ws_fabric *fab = &sim->fab;
	if (spec->src >= fab->n_nodes)
		return ws_err_set(err, WS_EINVAL,
				  "flow source %u is not a node of this fabric "
				  "(nodes 0..%u)", spec->src, fab->n_nodes - 1);
	if (spec->dst >= fab->n_nodes)
		return ws_err_set(err, WS_EINVAL,
				  "flow destination %u is not a node of this fabric "
				  "(nodes 0..%u)", spec->dst, fab->n_nodes - 1);
	if (sim->nodes[spec->src].kind != WS_NODE_HOST)
		return ws_err_set(err, WS_EINVAL,
				  "flow source %u is a switch, not a host", spec->src);
	if (sim->nodes[spec->dst].kind != WS_NODE_HOST)
		return ws_err_set(err, WS_EINVAL,
				  "flow destination %u is a switch, not a host",
				  spec->dst);
	if (spec->src == spec->dst)
		return ws_err_set(err, WS_EINVAL,
				  "flow from node %u to itself", spec->src);
	if (spec->bytes == 0)
		return ws_err_set(err, WS_EINVAL, "flow of 0 bytes");
	if (spec->prio < 1 || spec->prio >= WS_PRIORITIES)
		return ws_err_set(err, WS_EINVAL,
				  "flow priority %u: expected 1..%d (0 is reserved "
				  "for control traffic)", spec->prio, WS_PRIORITIES - 1);
	uint32_t vcs = WS_ROUTING_OPS(sim)->vcs;
	if (spec->prio + vcs >= WS_PRIORITIES)
		return ws_err_set(err, WS_EINVAL,
				  "flow priority %u: the routing rule '%s' raises "
				  "packets up to %u classes (deadlock avoidance), so "
				  "priorities above %u have no room",
				  spec->prio, sim->slot[WS_KIND_ROUTING].ld.desc->name,
				  vcs, WS_PRIORITIES - 1 - vcs);
	if (spec->start < sim->now)
		return ws_err_set(err, WS_EINVAL,
				  "flow start time is in the past");
	if (sim->n_flows == UINT32_MAX - 1)
		return ws_err_set(err, WS_EINVAL, "too many flows");
	return WS_OK;
}

int ws_flow_create(struct ws_sim *sim, const struct ws_flow_spec *user,
		   uint32_t *id, struct ws_err *err)
{
	struct ws_flow_spec copy;
	const struct ws_flow_spec *spec = &copy;
	if (sim->main)
		sim = sim->main; /* flows belong to the whole simulation */
	int rc = ws_sized_in(&copy, sizeof copy, user, "ws_flow_spec", err);
	if (!rc)
		rc = check_spec(sim, spec, err);
	if (rc)
		return rc;
	const struct ws_cc_ops *ops = WS_CC_OPS(sim);
	struct ws_flow *f = ws_flow_record(sim);
	f->cc.sim = sim;
	f->cc.id = sim->n_flows;
	f->cc.src = spec->src;
	f->cc.dst = spec->dst;
	f->cc.size = spec->bytes;
	f->seq_end = spec->bytes;
	f->cc.mtu = sim->payload;
	f->cc.conf = sim->slot[WS_KIND_CC].inst.conf;
	f->cc.inst = &sim->slot[WS_KIND_CC].inst;
	f->cc.state = ops->flow_state_size ? (void *)(f + 1) : NULL;
	f->prio = spec->prio;
	f->dport = spec->dport;
	f->tag = spec->tag;
	f->on_done = spec->on_done;
	f->on_done_arg = spec->arg;
	f->start = perturbed_start(sim, sim->n_flows, spec->start);
	f->end = WS_TIME_NEVER;
	f->last_cnp = WS_TIME_NEVER;
	f->nack_until = 0;
	f->last_nack = UINT64_MAX;
	if (sim->n_flows == sim->cap_flows) {
		sim->cap_flows = sim->cap_flows ? sim->cap_flows * 2 : 1024;
		sim->flows = ws_xrealloc(sim->flows, sim->cap_flows, sizeof *sim->flows);
	}
	sim->flows[sim->n_flows++] = f;
	ws_flows_done_created(sim);
	if (sim->par) {
		/* it starts on its source's partition, in a serial step */
		struct ws_sim *sh = ws_part_shell(sim, spec->src);
		f->cc.sim = sh;
		if (ws_part_owns(sim, spec->src)) /* else another MPI rank's */
			ws_eventq_post(&sh->q, NULL, f->start, flow_start_event, f, 0);
		ws_part_need_serial(sim, f->start);
	} else {
		ws_eventq_post(&sim->q, NULL, f->start, flow_start_event, f, 0);
	}
	if (id)
		*id = f->cc.id;
	return WS_OK;
}

int ws_route_trace(struct ws_sim *sim, struct ws_pkt *pkt, struct ws_hop *hops,
		   uint32_t max, uint32_t *n, struct ws_err *err)
{
	*n = 0;
	if (pkt->src >= sim->fab.n_nodes || pkt->dst >= sim->fab.n_nodes ||
	    sim->nodes[pkt->src].kind != WS_NODE_HOST ||
	    sim->nodes[pkt->dst].kind != WS_NODE_HOST || pkt->src == pkt->dst)
		return ws_err_set(err, WS_EINVAL, "route %u -> %u: both ends must "
				  "be distinct hosts of the fabric", pkt->src, pkt->dst);
	if (max < 2)
		return ws_err_set(err, WS_EINVAL, "route trace: room for %u hops", max);
	const uint32_t src = pkt->src, dst = pkt->dst;
	const struct ws_node *at = &sim->nodes[src];
	uint32_t k = 0;
	for (;;) {
		uint32_t local = 0;
		if (at->kind == WS_NODE_SWITCH || at->n_ports > 1) {
			if (at->kind == WS_NODE_SWITCH)
				pkt->hops++;
			local = ws_route_next(sim, at, pkt);
			if (local >= at->n_ports)
				return ws_err_set(err, sim->links_changed ? WS_EUNREACH
									 : WS_ESTATE,
						  "no route from node %u to node %u at "
						  "node %u (level %u)", src, dst, at->id,
						  at->level);
		}
		if (__builtin_expect(sim->links_changed, 0) &&
		    sim->ports[at->first_port + local].down && at->n_ports == 1)
			return ws_err_set(err, WS_EUNREACH, "no route from node %u to "
					  "node %u: host %u's only link is down",
					  src, dst, at->id);
		if (__builtin_expect(sim->links_changed, 0) &&
		    sim->ports[at->first_port + local].down)
			return ws_err_set(err, WS_ESTATE,
					  "the route from node %u to node %u crosses "
					  "the link at node %u port %u, which is down",
					  src, dst, at->id, local);
		unsigned cls = pkt->prio ? WS_MIN((unsigned)pkt->prio + pkt->vc,
						  WS_PRIORITIES - 1u) : 0;
		hops[k++] = (struct ws_hop){ .node = at->id, .port = (uint16_t)local,
					     .cls = (uint8_t)cls };
		at = &sim->nodes[sim->peer_node[at->first_port + local]];
		if (at->id == dst)
			break;
		if (at->kind == WS_NODE_HOST)
			return ws_err_set(err, WS_ESTATE,
					  "the route from node %u to node %u reaches "
					  "host %u, which does not forward",
					  src, dst, at->id);
		if (k + 1 >= max || k > sim->swc.ttl)
			return ws_err_set(err, WS_ESTATE,
					  "the route from node %u to node %u loops "
					  "(more than %u links, at node %u)",
					  src, dst, WS_MIN(max - 2, (uint32_t)sim->swc.ttl),
					  at->id);
	}
	hops[k++] = (struct ws_hop){ .node = dst, .port = WS_PORT_NONE };
	*n = k;
	return WS_OK;
}

void ws_pkt_probe(struct ws_pkt *p, uint32_t src, uint32_t dst,
		  uint16_t sport, uint16_t dport)
{
	memset(p, 0, sizeof *p);
	p->type = WS_PKT_DATA;
	p->src = src;
	p->dst = dst;
	p->sport = sport;
	p->dport = dport;
	p->prio = WS_PROBE_PRIO;
	p->flow = WS_NONE;
}

/*
 * Follow the routing rule from src to dst as a data packet of this flow
 * would, summing propagation and per-hop serialization of a full payload
 * (the reference's base RTT: 2 x delay + sum of payload / rate).
 */
int ws_path_walk(struct ws_sim *sim, uint32_t src, uint32_t dst,
		 uint16_t sport, uint16_t dport, uint32_t *hops,
		 ws_time *base_rtt, uint64_t *path_rate, struct ws_err *err)
{
	struct ws_pkt probe;
	ws_pkt_probe(&probe, src, dst, sport, dport);
	struct ws_hop path[258];
	uint32_t n;
	int rc = ws_route_trace(sim, &probe, path, 258, &n, err);
	if (rc)
		return rc;
	ws_time prop = 0, ser = 0;
	uint64_t rate = UINT64_MAX;
	for (uint32_t i = 0; i + 1 < n; i++) {
		const struct ws_port *p =
			&sim->links[sim->nodes[path[i].node].first_port + path[i].port];
		prop += p->delay;
		ser += ws_tx_time(sim->payload, p->rate);
		rate = WS_MIN(rate, p->rate);
	}
	*hops = n - 1;
	*base_rtt = 2 * prop + ser;
	*path_rate = rate;
	return WS_OK;
}

/* The fabric's largest base RTT and BDP: routes from the first and the
 * last host to every other host (exact for symmetric topologies). */
static void compute_fabric_max(struct ws_sim *sim)
{
	if (sim->max_base_rtt)
		return;
	const struct ws_fabric *fab = &sim->fab;
	uint32_t from[2] = { fab->hosts[0], fab->hosts[fab->n_hosts - 1] };
	for (int k = 0; k < 2; k++) {
		for (uint32_t h = 0; h < fab->n_hosts; h++) {
			uint32_t dst = fab->hosts[h];
			if (dst == from[k])
				continue;
			uint32_t hops;
			ws_time rtt;
			uint64_t rate;
			if (ws_path_walk(sim, from[k], dst, 10000, 100, &hops, &rtt,
					 &rate, NULL))
				continue;
			uint64_t bdp = ws_bytes_in(rtt, rate);
			if (rtt > sim->max_base_rtt)
				sim->max_base_rtt = rtt;
			if (bdp > sim->max_bdp)
				sim->max_bdp = bdp;
		}
	}
}

static void rto_event(struct ws_sim *sim, void *obj, uint64_t arg);

static void arm_rto(struct ws_sim *sim, struct ws_flow *f, ws_time at)
{
	f->rto_ev = ws_eventq_push(&sim->q, &f->owner, at, rto_event, f, 0);
}

/* Like a RoCE QP that exhausted its retry count: the flow stops for good. */
static void flow_abort(struct ws_sim *sim, struct ws_flow *f)
{
	f->aborted = 1;
	sim->ctr.aborted++;
	ws_sr_flow_free(f);
	for (unsigned t = 0; t < WS_CC_TIMERS; t++)
		ws_eventq_cancel(&sim->q, f->timer[t]);
	ws_nic_flow_remove(sim, f);
	char why[96];
	ws_fail_reason(sim, f, why, sizeof why);
	ws_warn(sim, "flow %u (node %u to node %u) aborted: timeout %u without "
		"progress after %u retries ([nic] retry_limit); %llu of %llu bytes "
		"acknowledged%s%s", f->cc.id, f->cc.src, f->cc.dst, f->retries,
		f->retries - 1, (unsigned long long)f->cc.snd_una,
		(unsigned long long)f->cc.size,
		why[0] ? "; its last packet lost to a failure: " : "", why);
}

/* A timeout with PFC on: if a cycle of ports has stayed paused for the
 * whole timeout, nothing will ever move again; stop the run naming it. */
static bool deadlocked(struct ws_sim *sim, const struct ws_flow *f, ws_time rto)
{
	/* a partition sees only its own ports while the others run: the
	 * search waits for the end of the window */
	if (sim->main && !ws_part_serial(sim)) {
		ws_part_deadlock_check(sim, f->cc.id, rto);
		return false;
	}
	return ws_pfc_deadlock(sim, f->cc.id, rto, -1);
}

/* The flow's current timeout: [nic] rto, or IRN's two under sr. */
static ws_time flow_rto(const struct ws_sim *sim, const struct ws_flow *f)
{
	return sim->nicc.transport == WS_TR_SR ? ws_sr_rto(sim, f) : sim->nicc.rto;
}

static void rto_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_flow *f = obj;
	if (f->end != WS_TIME_NEVER)
		return;
	ws_time rto = flow_rto(sim, f);
	/* bytes sent and not acknowledged, including those a timeout rewound
	 * and a paused port has not let out again: they time out too */
	bool outstanding = f->high_sent > f->cc.snd_una;
	if (outstanding && sim->now - f->last_progress >= rto) {
		f->timeouts++;
		sim->ctr.timeouts++;
		if (sim->swc.pfc && deadlocked(sim, f, rto))
			return;
		if (sim->nicc.retry_limit && ++f->retries > sim->nicc.retry_limit) {
			flow_abort(sim, f);
			return;
		}
		if (sim->nicc.transport == WS_TR_SR) {
			ws_sr_timeout(sim, f);
		} else {
			uint64_t out = (f->cc.snd_nxt - f->cc.snd_una + sim->payload - 1) /
				       sim->payload;
			f->cc.snd_nxt = f->cc.snd_una;
			ws_cc_deliver_loss(sim, f, WS_LOSS_TIMEOUT,
					   (uint32_t)WS_MIN(out, (uint64_t)UINT32_MAX));
		}
		f->last_progress = sim->now;
		rto = flow_rto(sim, f);
		ws_nic_kick(sim, f->nic);
	}
	ws_time next = outstanding ? f->last_progress + rto : sim->now + rto;
	if (next <= sim->now)
		next = sim->now + rto;
	arm_rto(sim, f, next);
}

/*
 * A flow starting while failures leave no route to its destination: it
 * starts anyway, with the fabric's largest base RTT and its NIC's rate as
 * path facts, so its packets die where the route ends and the transport
 * times out and aborts it ([nic] retry_limit), as a real queue pair does.
 */
static bool unroutable_start(struct ws_sim *sim, struct ws_flow *f, uint32_t *hops,
			     ws_time *rtt, uint64_t *prate)
{
	if (!sim->links_changed)
		return false;
	compute_fabric_max(sim);
	const struct ws_node *src = &sim->nodes[f->cc.src];
	*hops = 0;
	*rtt = sim->max_base_rtt;
	*prate = sim->ports[src->first_port].rate;
	return true;
}

static void flow_start_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_flow *f = obj;
	const struct ws_node *src = &sim->nodes[f->cc.src];
	struct ws_nic *first = &sim->nics[sim->aux[src->id]];
	f->sport = sim->ref.pair_ports ? ws_ns3_pair_sport(sim, f->cc.src, f->cc.dst)
				       : (uint16_t)first->next_sport++;
	struct ws_err err;
	ws_err_clear(&err);
	uint32_t hops;
	ws_time rtt;
	uint64_t prate;
	if (ws_path_walk(sim, f->cc.src, f->cc.dst, f->sport, f->dport, &hops,
			 &rtt, &prate, &err) && !unroutable_start(sim, f, &hops, &rtt, &prate)) {
		char msg[sizeof err.msg];
		snprintf(msg, sizeof msg, "%s", err.msg);
		ws_err_set(&err, WS_ESTATE, "flow %u: %s", f->cc.id, msg);
		ws_fail(sim, &err);
		return;
	}
	uint32_t local = 0;
	if (src->n_ports > 1) {
		struct ws_pkt probe; /* the flow's own first packet */
		ws_pkt_probe(&probe, f->cc.src, f->cc.dst, f->sport, f->dport);
		probe.flow = f->cc.id;
		probe.prio = f->prio;
		local = ws_route(sim, src, &probe);
		if (local == WS_NONE && !sim->links_changed)
			return;
		if (local == WS_NONE)
			local = 0; /* no plane reaches it: its packets die at the first switch */
	}
	compute_fabric_max(sim);
	f->nic = &sim->nics[sim->aux[src->id] + local];
	f->cc.hops = hops;
	f->cc.base_rtt = rtt;
	f->cc.path_rate = prate;
	f->cc.bdp = ws_bytes_in(rtt, prate);
	f->cc.max_base_rtt = sim->max_base_rtt;
	f->cc.max_bdp = sim->max_bdp;
	f->cc.line_rate = sim->ports[f->nic->port].rate;
	f->cc.rate = f->cc.line_rate;
	switch (sim->nicc.window) {
	case WS_WIN_MAX_BDP: f->cc.window = sim->max_bdp; break;
	case WS_WIN_PATH_BDP: f->cc.window = f->cc.bdp; break;
	default: f->cc.window = 0; break;
	}
	uint64_t npkts = (f->cc.size + sim->payload - 1) / sim->payload;
	f->wire_bytes = f->cc.size + npkts * sim->nicc.header;
	f->ideal_fct = rtt + ws_tx_time(f->wire_bytes, prate);
	f->started = 1;
	f->last_progress = sim->now;
	sim->n_started++;
	const struct ws_cc_ops *ops = WS_CC_OPS(sim);
	ops->init(&f->cc, sim->now);
	/* with failures, packets die under PFC too, and a fabric that
	 * reorders can leave go-back-N waiting for a NACK it held back: the
	 * timeout must run */
	ws_sr_flow_init(sim, f);
	if (sim->nicc.transport == WS_TR_SR)
		arm_rto(sim, f, sim->now + flow_rto(sim, f));
	else if (sim->nicc.rto && (!sim->swc.pfc || sim->nicc.rto_lossless ||
				   sim->outc.failures || sim->links_changed ||
				   sim->multipath))
		arm_rto(sim, f, sim->now + sim->nicc.rto);
	const struct ws_accel_ops *acc = WS_ACCEL_OPS(sim);
	if (acc->on_flow_start) {
		f->in_start = 1;
		acc->on_flow_start(&sim->slot[WS_KIND_ACCEL].inst, f->cc.id, sim->now);
		f->in_start = 0;
	}
	if (ws_part_ranks(sim)) /* what the receiver's rank must know */
		ws_ranks_started(sim, f);
	if (!f->adopted)
		ws_nic_flow_start(sim, f);
}

void ws_flow_complete(struct ws_sim *sim, struct ws_flow *f)
{
	f->end = sim->now;
	sim->n_done++;
	for (unsigned t = 0; t < WS_CC_TIMERS; t++)
		ws_eventq_cancel(&sim->q, f->timer[t]);
	ws_eventq_cancel(&sim->q, f->rto_ev);
	ws_nic_flow_remove(sim, f);
	ws_sr_flow_free(f);
	const struct ws_cc_ops *ops = WS_CC_OPS(sim);
	if (ops->fini)
		ops->fini(&f->cc);
	const struct ws_accel_ops *acc = WS_ACCEL_OPS(sim);
	if (acc->on_flow_finish)
		acc->on_flow_finish(&sim->slot[WS_KIND_ACCEL].inst, f->cc.id, sim->now);
	if (sim->main && ws_part_serial(sim) && ws_part_ranks(sim))
		ws_ranks_done(sim, f); /* MPI ranks: the others learn it, replay on_done */
	if (__builtin_expect(sim->main != NULL, 0)) {
		if (!f->on_done)
			return;
		/* a shell: the workload acts on the whole simulation */
		if (!ws_part_serial(sim)) {
			ws_part_defer_done(sim, f->cc.id);
			return;
		}
		struct ws_sim *g = ws_part_enter_global(sim);
		f->on_done(g, f->cc.id, f->on_done_arg);
		ws_part_leave_global(sim);
		return;
	}
	if (f->on_done)
		f->on_done(sim, f->cc.id, f->on_done_arg);
	/* after the workload heard of it: f may be freed now */
	if (!sim->par)
		ws_flows_done_advance(sim);
}

/* Under AddressSanitizer a record not handed out is poisoned: a use after
 * its release, or past its end, is caught as with malloc's. */
#if defined(__SANITIZE_ADDRESS__)
#define SLAB_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SLAB_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define SLAB_POISON(p, n) ((void)(p), (void)(n))
#define SLAB_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Whether the slab holds the records (not a CC state so large that a
 * record is a calloc of its own). */
static bool slab_owns(const struct ws_flowslab *fs)
{
	return fs->rec <= WS_HUGE_PAGE / 8;
}

/* A zeroed record for a new flow (struct ws_flowslab). */
struct ws_flow *ws_flow_record(struct ws_sim *sim)
{
	struct ws_flowslab *fs = &sim->fslab;
	if (!fs->rec) {
		size_t b = sizeof(struct ws_flow) + WS_CC_OPS(sim)->flow_state_size;
		fs->rec = (b + 15) / 16 * 16; /* malloc's alignment */
	}
	if (!slab_owns(fs))
		return ws_xcalloc(1, fs->rec);
	if (fs->reuse) {
		struct ws_flow *f = fs->reuse;
		SLAB_UNPOISON(f, fs->rec);
		fs->reuse = *(void **)fs->reuse;
		memset(f, 0, fs->rec);
		return f;
	}
	if (fs->left < fs->rec) {
		if (fs->n_arenas == fs->cap_arenas) {
			fs->cap_arenas = fs->cap_arenas ? 2 * fs->cap_arenas : 16;
			fs->arenas = ws_xrealloc(fs->arenas, fs->cap_arenas, sizeof *fs->arenas);
		}
		fs->next = fs->arenas[fs->n_arenas++] = ws_huge_map(WS_HUGE_PAGE);
		fs->left = WS_HUGE_PAGE;
		SLAB_POISON(fs->next, WS_HUGE_PAGE);
	}
	struct ws_flow *f = (struct ws_flow *)(void *)fs->next; /* fresh: zero */
	SLAB_UNPOISON(f, fs->rec);
	fs->next += fs->rec;
	fs->left -= fs->rec;
	return f;
}

/* Flow f's record is no longer anyone's. */
void ws_flow_record_release(struct ws_sim *sim, struct ws_flow *f)
{
	struct ws_flowslab *fs = &sim->fslab;
	if (!slab_owns(fs)) {
		free(f);
		return;
	}
	*(void **)f = fs->reuse;
	fs->reuse = f;
	SLAB_POISON(f, fs->rec);
}

void ws_flows_free(struct ws_sim *sim)
{
	struct ws_flowslab *fs = &sim->fslab;
	for (uint32_t i = 0; i < sim->n_flows; i++) {
		if (!sim->flows[i])
			continue; /* released */
		ws_sr_flow_free(sim->flows[i]);
		if (!slab_owns(fs))
			free(sim->flows[i]); /* else its arena goes below */
	}
	for (uint32_t i = 0; i < fs->n_arenas; i++) {
		SLAB_UNPOISON(fs->arenas[i], WS_HUGE_PAGE);
		ws_huge_unmap(fs->arenas[i], WS_HUGE_PAGE);
	}
	free(fs->arenas);
	*fs = (struct ws_flowslab){ 0 };
	free(sim->flows);
	sim->flows = NULL;
	sim->n_flows = 0;
	ws_flows_done_free(sim);
}

int ws_flow_get(const struct ws_sim *sim, uint32_t id, struct ws_flow_info *user)
{
	struct ws_flow_info full, *out = &full;
	if (id >= sim->n_flows || !sim->flows[id])
		return WS_EINVAL; /* no such flow, or completed and released */
	const struct ws_flow *f = sim->flows[id];
	memset(out, 0, sizeof *out);
	out->id = id;
	out->src = f->cc.src;
	out->dst = f->cc.dst;
	out->prio = f->prio;
	out->sport = f->sport;
	out->dport = f->dport;
	out->tag = f->tag;
	out->bytes = f->cc.size;
	out->start = f->start;
	out->end = f->end;
	out->ideal_fct = f->ideal_fct;
	out->acked = f->cc.snd_una + f->skipped;
	out->sent = f->sent_bytes + f->skipped;
	out->retx = f->retx_bytes;
	out->retx_pkts = f->retx_pkts;
	out->trims = f->trims;
	out->rate = f->cc.rate;
	out->window = f->cc.window;
	out->hops = f->cc.hops;
	out->ce_marked = f->ce_marked;
	out->cnps = f->cnps;
	out->nacks = f->nacks;
	out->timeouts = f->timeouts;
	out->aborted = f->aborted != 0;
	out->base_rtt = f->cc.base_rtt;
	out->wire_bytes = f->wire_bytes;
	out->path_rate = f->cc.path_rate;
	out->ooo_pkts = f->ooo_pkts;
	out->max_reorder = f->max_reorder;
	ws_sized_out(user, &full, sizeof full, "ws_flow_info");
	return WS_OK;
}

/* ---- kernel calls for CC plugins ------------------------------------------- */

void ws_cc_set_rate(struct ws_cc_flow *cf, uint64_t rate_bps)
{
	struct ws_flow *f = ws_flow_of(cf);
	if (rate_bps < 1)
		rate_bps = 1;
	if (cf->line_rate && rate_bps > cf->line_rate)
		rate_bps = cf->line_rate;
	uint64_t old = cf->rate;
	cf->rate = rate_bps;
	if (f->nic && old != rate_bps)
		ws_nic_rate_changed(cf->sim, f, old);
}

void ws_cc_set_window(struct ws_cc_flow *cf, uint64_t bytes)
{
	ws_flow_of(cf)->cc_window = 1;
	cf->window = bytes;
}

static void cc_timer_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	struct ws_flow *f = obj;
	unsigned t = (unsigned)arg;
	f->timer[t].ev = NULL;
	f->timer[t].seq = 0;
	if (f->end != WS_TIME_NEVER)
		return;
	const struct ws_cc_ops *ops = WS_CC_OPS(sim);
	if (ops->on_timer)
		ops->on_timer(&f->cc, t, sim->now);
	/* the reference's timers only move a pending wake-up (nic_wake = ns3) */
	if (f->nic && !sim->ref.wake)
		ws_nic_kick(sim, f->nic);
}

void ws_cc_timer_arm(struct ws_cc_flow *cf, unsigned timer, ws_time when)
{
	struct ws_flow *f = ws_flow_of(cf);
	struct ws_sim *sim = cf->sim;
	WS_ASSERT(timer < WS_CC_TIMERS, "CC timer %u (max %d)", timer,
		  WS_CC_TIMERS - 1);
	ws_eventq_cancel(&sim->q, f->timer[timer]);
	if (when < sim->now)
		when = sim->now;
	f->timer[timer] = ws_eventq_push(&sim->q, &f->owner, when,
					 cc_timer_event, f, timer);
}

void ws_cc_timer_cancel(struct ws_cc_flow *cf, unsigned timer)
{
	struct ws_flow *f = ws_flow_of(cf);
	if (timer < WS_CC_TIMERS) {
		ws_eventq_cancel(&cf->sim->q, f->timer[timer]);
		f->timer[timer].ev = NULL;
		f->timer[timer].seq = 0;
	}
}

bool ws_cc_timer_armed(const struct ws_cc_flow *cf, unsigned timer)
{
	const struct ws_flow *f = (const struct ws_flow *)cf;
	return timer < WS_CC_TIMERS &&
	       ws_eventq_pending(&cf->sim->q, f->timer[timer]);
}

void ws_cc_set_cnp(struct ws_cc_flow *cf, enum ws_cnp_mode mode,
		   ws_time min_interval)
{
	struct ws_flow *f = ws_flow_of(cf);
	f->cnp_mode = (uint8_t)mode;
	f->cnp_interval = min_interval;
}

uint64_t ws_flow_in_flight(const struct ws_flow *f)
{
	if (f->sr && f->cc.sim->nicc.transport == WS_TR_SR)
		return ws_sr_in_flight(f->cc.sim, f);
	return f->cc.snd_nxt > f->cc.snd_una ? f->cc.snd_nxt - f->cc.snd_una : 0;
}

uint64_t ws_cc_in_flight(const struct ws_cc_flow *cf)
{
	const struct ws_flow *f = (const struct ws_flow *)cf;
	return ws_flow_in_flight(f);
}

/* ---- freeze / thaw ------------------------------------------------------------ */

/* The caller's set, read up to its size, and checked. */
static int check_set(const struct ws_sim *sim, const struct ws_freeze_set *user,
		     struct ws_freeze_set *set, struct ws_err *err)
{
	int rc = ws_sized_in(set, sizeof *set, user, "ws_freeze_set", err);
	if (rc)
		return rc;
	for (size_t i = 0; i < set->n_ports; i++)
		if (set->ports[i] >= sim->fab.n_ports)
			return ws_err_set(err, WS_EINVAL, "no port %u", set->ports[i]);
	for (size_t i = 0; i < set->n_flows; i++)
		if (set->flows[i] >= sim->n_flows || !sim->flows[set->flows[i]])
			return ws_err_set(err, WS_EINVAL, "no flow %u%s", set->flows[i],
					  set->flows[i] < sim->n_flows
						  ? " (completed, its record released)" : "");
	return WS_OK;
}

/* Owners of a freeze set: its ports' and flows'. */
static struct ws_owner **set_owners(struct ws_sim *sim,
				    const struct ws_freeze_set *set, size_t *n)
{
	bool ports = !(set->flags & WS_FREEZE_FLOWS_ONLY);
	*n = (ports ? set->n_ports : 0) + set->n_flows;
	struct ws_owner **owners = ws_xcalloc(*n ? *n : 1, sizeof *owners);
	size_t k = 0;
	for (size_t i = 0; ports && i < set->n_ports; i++)
		owners[k++] = &sim->ports[set->ports[i]].owner;
	for (size_t i = 0; i < set->n_flows; i++)
		owners[k++] = &sim->flows[set->flows[i]]->owner;
	return owners;
}

int ws_freeze(struct ws_sim *sim, const struct ws_freeze_set *user,
	      struct ws_err *err)
{
	struct ws_freeze_set copy, *set = &copy;
	int rc = check_set(sim, user, set, err);
	if (rc)
		return rc;
	if (set->flags & WS_FREEZE_FLOWS_ONLY) {
		/* a flow's events are its timers, known by handle: no scan of
		 * the queue (feedback that arrives later is parked as it comes) */
		for (size_t i = 0; i < set->n_flows; i++) {
			struct ws_flow *f = sim->flows[set->flows[i]];
			if (f->owner.frozen++)
				continue;
			ws_eventq_park(&sim->q, &f->rto_ev);
			for (unsigned t = 0; t < WS_CC_TIMERS; t++)
				ws_eventq_park(&sim->q, &f->timer[t]);
		}
		for (size_t i = 0; i < set->n_ports; i++)
			ws_port_hold(sim, &sim->ports[set->ports[i]]);
		return WS_OK;
	}
	size_t n;
	struct ws_owner **owners = set_owners(sim, set, &n);
	ws_eventq_freeze(&sim->q, owners, n);
	free(owners);
	return WS_OK;
}

int ws_thaw(struct ws_sim *sim, const struct ws_freeze_set *user,
	    ws_time shift, struct ws_err *err)
{
	struct ws_freeze_set copy, *set = &copy;
	int rc = check_set(sim, user, set, err);
	if (rc)
		return rc;
	bool flows_only = (set->flags & WS_FREEZE_FLOWS_ONLY) != 0;
	for (size_t i = 0; !flows_only && i < set->n_ports; i++) {
		struct ws_port *p = &sim->ports[set->ports[i]];
		if (p->owner.frozen != 1)
			continue;
		/* the kernel's own timestamps move with the events */
		if (p->busy_until + shift > sim->now)
			p->busy_until += shift;
		p->tx_at += shift;
		ws_port_shift_packets(p, shift);
	}
	for (size_t i = 0; i < set->n_flows; i++) {
		struct ws_flow *f = sim->flows[set->flows[i]];
		if (f->owner.frozen != 1)
			continue;
		f->next_avail += shift;
		f->last_progress += shift;
		if (f->nack_until)
			f->nack_until += shift;
		if (f->last_cnp != WS_TIME_NEVER)
			f->last_cnp += shift;
		const struct ws_cc_ops *ops = WS_CC_OPS(sim);
		if (ops->on_shift)
			ops->on_shift(&f->cc, shift);
		ws_nic_shift_held(f, shift);
	}
	size_t n;
	struct ws_owner **owners = set_owners(sim, set, &n);
	ws_eventq_thaw(&sim->q, owners, n, shift, sim->now);
	free(owners);
	/* their packets back in line, then the NICs may send again (a
	 * frozen flow is never eligible, so no wake-up waits for it) */
	for (size_t i = 0; flows_only && i < set->n_ports; i++)
		ws_port_release(sim, &sim->ports[set->ports[i]], shift);
	for (size_t i = 0; i < set->n_flows; i++) {
		struct ws_flow *f = sim->flows[set->flows[i]];
		if (!f->owner.frozen && f->end == WS_TIME_NEVER)
			ws_nic_kick(sim, f->nic);
	}
	return WS_OK;
}

int ws_owners_freeze(struct ws_sim *sim, struct ws_owner *const *owners,
		     size_t n, struct ws_err *err)
{
	(void)err;
	ws_eventq_freeze(&sim->q, owners, n);
	return WS_OK;
}

int ws_owners_thaw(struct ws_sim *sim, struct ws_owner *const *owners,
		   size_t n, ws_time shift, struct ws_err *err)
{
	for (size_t i = 0; i < n; i++)
		if (!owners[i]->frozen)
			return ws_err_set(err, WS_EINVAL,
					  "thaw of an owner that is not frozen");
	ws_eventq_thaw(&sim->q, owners, n, shift, sim->now);
	return WS_OK;
}

/* ---- acceleration services ------------------------------------------------ */

static struct ws_flow *flow_at(const struct ws_sim *sim, uint32_t id,
			       struct ws_err *err)
{
	if (id >= sim->n_flows) {
		ws_err_set(err, WS_EINVAL, "no flow %u (%u flows)", id, sim->n_flows);
		return NULL;
	}
	if (!sim->flows[id])
		ws_err_set(err, WS_EINVAL, "flow %u completed and its record was "
			   "released", id);
	return sim->flows[id];
}

uint64_t ws_flow_unsent(const struct ws_sim *sim, uint32_t id)
{
	if (id >= sim->n_flows || !sim->flows[id])
		return 0;
	const struct ws_flow *f = sim->flows[id];
	return f->end != WS_TIME_NEVER || f->seq_end <= f->high_sent
		       ? 0 : f->seq_end - f->high_sent;
}

uint64_t ws_flow_skipped(const struct ws_sim *sim, uint32_t id)
{
	return id < sim->n_flows && sim->flows[id] ? sim->flows[id]->skipped : 0;
}

int ws_flow_skip(struct ws_sim *sim, uint32_t id, uint64_t bytes,
		 struct ws_err *err)
{
	struct ws_flow *f = flow_at(sim, id, err);
	if (!f)
		return WS_EINVAL;
	if (bytes == 0)
		return WS_OK;
	if (f->end != WS_TIME_NEVER || !f->started)
		return ws_err_set(err, WS_EINVAL, "flow %u is not running", id);
	uint64_t unsent = ws_flow_unsent(sim, id);
	if (bytes > unsent)
		return ws_err_set(err, WS_EINVAL, "flow %u: cannot skip %llu bytes, only "
				  "%llu are unsent", id, (unsigned long long)bytes,
				  (unsigned long long)unsent);
	f->seq_end -= bytes;
	f->skipped += bytes;
	/* everything left was sent and acknowledged: the flow is done */
	if (f->cc.snd_una >= f->seq_end)
		ws_flow_complete(sim, f);
	return WS_OK;
}

int ws_flow_ports(struct ws_sim *sim, uint32_t id, uint32_t *ports,
		  uint64_t *rates, uint32_t max, uint32_t *n, struct ws_err *err)
{
	*n = 0;
	struct ws_flow *f = flow_at(sim, id, err);
	if (!f)
		return WS_EINVAL;
	struct ws_hop hops[64];
	for (int dir = 0; dir < 2; dir++) {
		/* the packets as the NICs build them: data, then its ACKs */
		struct ws_pkt p = {
			.type = dir ? WS_PKT_ACK : WS_PKT_DATA, .flow = WS_NONE,
			.src = dir ? f->cc.dst : f->cc.src, .dst = dir ? f->cc.src : f->cc.dst,
			.sport = dir ? f->dport : f->sport, .dport = dir ? f->sport : f->dport,
			.prio = f->prio,
		};
		uint32_t h;
		int rc = ws_route_trace(sim, &p, hops, 64, &h, err);
		if (rc)
			return rc;
		for (uint32_t i = 0; i + 1 < h; i++) {
			if (*n == max)
				return ws_err_set(err, WS_EINVAL, "flow %u: more than %u ports",
						  id, max);
			if (rates) {
				struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
				ws_port_info(sim, hops[i].node, hops[i].port, &pi);
				rates[*n] = pi.rate;
			}
			ports[(*n)++] = ws_port_gid(sim, hops[i].node, hops[i].port);
		}
	}
	return WS_OK;
}

void ws_flow_set_rate(struct ws_sim *sim, uint32_t id, uint64_t rate_bps)
{
	if (id >= sim->n_flows || !sim->flows[id])
		return;
	struct ws_flow *f = sim->flows[id];
	if (f->end != WS_TIME_NEVER)
		return;
	const struct ws_cc_ops *ops = WS_CC_OPS(sim);
	if (ops->set_rate)
		ops->set_rate(&f->cc, rate_bps, sim->now);
	else
		ws_cc_set_rate(&f->cc, rate_bps);
}

uint64_t ws_flow_ack_load(const struct ws_sim *sim, uint32_t id, uint64_t goodput_bps)
{
	(void)id;
	uint32_t every = sim->nicc.ack_interval ? (uint32_t)sim->nicc.ack_interval : 1;
	/* packets per second, one ACK per `every` of them */
	double pkts = (double)goodput_bps / 8.0 / (double)sim->payload;
	return (uint64_t)(pkts / every * (double)sim->ack_wire * 8.0);
}

void ws_sim_wire(const struct ws_sim *sim, struct ws_wire *out)
{
	struct ws_wire w = {
		WS_INIT_SIZE(struct ws_wire), .payload = sim->payload,
		.header = (uint32_t)sim->nicc.header, .int_bytes = sim->int_bytes,
		.ack = sim->ack_wire,
		.ack_interval = sim->nicc.ack_interval ? (uint32_t)sim->nicc.ack_interval : 1,
	};
	ws_sized_out(out, &w, sizeof w, "ws_sim_wire");
}

uint64_t ws_flow_lone_goodput(const struct ws_sim *sim, uint32_t id)
{
	if (id >= sim->n_flows || !sim->flows[id])
		return 0;
	const struct ws_flow *f = sim->flows[id];
	__extension__ typedef unsigned __int128 u128;
	uint64_t wire = sim->payload + sim->nicc.header + sim->int_bytes;
	return (uint64_t)((u128)f->cc.path_rate * sim->payload / wire);
}

int ws_flow_adopt(struct ws_sim *sim, uint32_t id, struct ws_err *err)
{
	struct ws_flow *f = flow_at(sim, id, err);
	if (!f)
		return WS_EINVAL;
	if (!f->in_start || f->adopted)
		return ws_err_set(err, WS_EINVAL, "flow %u: adopted outside the "
				  "accelerator's on_flow_start, or twice", id);
	f->adopted = 1;
	for (unsigned t = 0; t < WS_CC_TIMERS; t++) {
		ws_eventq_cancel(&sim->q, f->timer[t]);
		f->timer[t] = (struct ws_evh){ 0 };
	}
	ws_eventq_cancel(&sim->q, f->rto_ev);
	f->rto_ev = (struct ws_evh){ 0 };
	return WS_OK;
}

int ws_flow_finish(struct ws_sim *sim, uint32_t id, struct ws_err *err)
{
	struct ws_flow *f = flow_at(sim, id, err);
	if (!f)
		return WS_EINVAL;
	if (!f->adopted || f->end != WS_TIME_NEVER)
		return ws_err_set(err, WS_EINVAL, "flow %u: finished by the accelerator "
				  "but %s", id, f->adopted ? "already complete"
				  : "not adopted (ws_flow_adopt)");
	/* nothing was sent as packets: the whole sequence is delivered */
	f->skipped += f->seq_end;
	f->seq_end = 0;
	ws_flow_complete(sim, f);
	return WS_OK;
}

ws_time ws_sim_max_base_rtt(struct ws_sim *sim)
{
	if (sim->fab.n_hosts < 2)
		return 0;
	compute_fabric_max(sim);
	return sim->max_base_rtt;
}
