/* SPDX-License-Identifier: MIT */
/*
 * fluid: flow-level simulation, the fast and coarse baseline accelerated
 * packet simulators are measured against (the flow-level model of
 * SimAI's analytical mode, Flexnet, or ns-3's fluid ancestors: max-min fair
 * rates recomputed at flow arrivals and completions).
 *
 * Every flow is adopted when it starts (ws_flow_adopt): the kernel sends
 * none of its packets.  It follows the path the routing rule gives its
 * 5-tuple (the same ECMP choice as its packets would take), and gets the
 * max-min fair rate of that path over the links' capacities, capped by its
 * NIC (flowrate/solver.c).  Capacities are scaled by what the CC declares it
 * fills of a bottleneck (ws_cc_utilization: HPCC's eta; the others the whole
 * link), unless `cc_utilization = false`.
 *
 * Rates change only when a flow starts or stops sending.  Starts and stops
 * at one instant are solved together (one solve event per instant), by a
 * local solve (`local_solve`, default): the flows around the change,
 * widened until every flow on a changed link has a bottleneck, else the
 * connected components that changed (solver.h).  With `ack_load` (the
 * default) a flow's ACKs load its ACK path's links by their share of its
 * rate: as per-link reservations from the rates solved, the instant
 * re-solved while one moves by more than FL_ACK_TOL of its link
 * (`ack_solve = reserve`), or inside the solve (`coupled`).
 * A flow of one packet (`one_packet`, the default) is not a rate: it
 * leaves its NIC after the one-packet flows before it and one packet of
 * each flow the NIC is sending, then takes a lone packet's time, and the
 * solver never sees it (one_packet()).
 * A flow sends its wire bytes (payload plus a header per packet, as the
 * ideal FCT counts them), exactly in integers (bits x ps); when they are
 * out, its links are free and the flow completes when its last packet and
 * the ACK of it would have arrived (`physical_tail`, the default: a lone
 * flow's FCT is the packet-level one), or one base RTT later (its ideal
 * FCT exactly).
 *
 * What it leaves out, by construction: queues (no queuing delay), CC
 * dynamics (flows are at their fair share from the first byte), PFC,
 * losses.  docs/acceleration.md gives its error.
 */
#include <stdlib.h>
#include <string.h>

#include <warpsim/warpsim.h>

#include "../flowrate/idheap.h"
#include "../flowrate/path.h"
#include "../flowrate/solver.h"

__extension__ typedef unsigned __int128 fl_u128;

struct fl_conf {
	bool cc_utilization;
	bool local_solve;
	bool ack_load;
	int ack_solve;
	bool physical_tail;
	bool ack_warm;
	bool one_packet;
};

enum { FL_ACK_RESERVE, FL_ACK_COUPLED };
static const char *const fl_ack_solves[] = { "reserve", "coupled", NULL };

static const struct ws_param fl_params[] = {
	WS_PARAM_BOOL("cc_utilization", struct fl_conf, cc_utilization, "true",
		      "scale link and NIC capacities by the share of a bottleneck the CC "
		      "declares it fills (HPCC: eta); false: whole links"),
	WS_PARAM_BOOL("local_solve", struct fl_conf, local_solve, "true",
		      "re-fill only the flows around a start or finish, widened until every "
		      "rate is max-min fair again; false: re-solve the whole component"),
	WS_PARAM_BOOL("ack_load", struct fl_conf, ack_load, "true",
		      "a flow's ACKs load the links of their path by the share of its rate "
		      "[nic] ack_interval and the ACK's size give (ws_flow_ack_load)"),
	WS_PARAM_ENUM("ack_solve", struct fl_conf, ack_solve, "reserve", fl_ack_solves,
		      "reserve: each link keeps the ACK load of the rates solved, re-solved "
		      "at the same instant until it moves less than 1e-3 of the link; "
		      "coupled: ACK paths inside the max-min solve (ACKs compete with data)"),
	WS_PARAM_BOOL("physical_tail", struct fl_conf, physical_tail, "true",
		      "a flow completes when its last packet's store-and-forward, the "
		      "propagations and its ACK's way back are over, as at packet level; "
		      "false: one base RTT after its transfer (its FCT is its ideal FCT)"),
	WS_PARAM_BOOL("ack_warm", struct fl_conf, ack_warm, "true",
		      "ack_solve = reserve: a flow's ACK reservation starts at the rate the "
		      "last flow of the same NIC pair ended with (a ring's or a pipeline's "
		      "next step), not at 0; false: at 0"),
	WS_PARAM_BOOL("one_packet", struct fl_conf, one_packet, "true",
		      "a flow of one packet is that packet: it leaves its NIC after the "
		      "one-packet flows before it and one packet of each flow the NIC is "
		      "sending, then takes a lone packet's time, and takes no share of any "
		      "link (no solve); false: a rate like every flow"),
	WS_PARAM_END
};

/* ACK-path links a flow record holds itself (a rail or fat-tree ACK path
 * has at most 6): no allocation per flow */
#define FL_ACK_IN 6

/* a flow the plugin moves */
struct fl_flow {
	fl_u128 left;     /* wire bits x 10^12 still to send (bits x ps at 1 bps) */
	uint64_t rate;    /* bps since t_last */
	ws_time t_last;
	ws_time tx_end;   /* when `left` runs out at `rate` */
	ws_time tail;     /* from the transfer's end to completion */
	uint32_t hpos;    /* place in the heap of tx_end; FL_NONE when out */
	uint32_t n_ack;   /* ack_reserve: its ACK path's links (ack_ports()), */
	union {           /* each loaded by share x rate: in the record up to */
		uint32_t in[FL_ACK_IN]; /* FL_ACK_IN links, else malloc'd */
		uint32_t *far;          /* (freed at the transfer's end) */
	} ack;
	double share;
	double ack_rate;  /* the rate its ACK reservation stands for */
	uint32_t nic;     /* its data path's first link (its NIC's port) */
};

/* Re-solve an instant while a link's ACK reservation moved by more than
 * this share of its capacity since the solver last took it; at most
 * FL_ACK_ROUNDS solves an instant (the rest waits for the next one). */
#define FL_ACK_TOL 1e-3
#define FL_ACK_ROUNDS 16

#define FL_NONE UINT32_MAX

/* The flows by id in pages of FL_PAGE, a page freed once every id of it
 * has sent its bytes (its place then points at `dead`, zeroed): memory
 * follows the flows alive, not every id of the run. */
#define FL_PAGE_BITS 12
#define FL_PAGE (1u << FL_PAGE_BITS)
struct fl_page {
	struct fl_flow f[FL_PAGE];
	uint32_t ended;          /* ids whose transfer ended */
};
#define FL(s, id) ((s)->page[(id) >> FL_PAGE_BITS]->f[(id) & (FL_PAGE - 1)])

/* a port as trace() reads it (fl_state.port, by global id) */
struct fl_port {
	uint64_t rate;
	ws_time delay;
	uint32_t gid;
	bool seen;
};

/* ack_warm: the last flow whose transfer ended from a NIC port, by the
 * ACK path's first link (its destination's NIC) and its rate then */
struct fl_warm {
	double rate;
	uint32_t ack0;
};

/* A NIC port as its one-packet flows see it: when the last one-packet flow
 * it sent is out, and how many rate flows it is sending */
struct fl_nic {
	ws_time free;
	uint32_t sending;
};

struct fl_state {
	struct fr_net *net;
	struct fl_port *port;    /* by global port id, read when first crossed */
	struct fl_nic *nic;      /* by global port id (one_packet) */
	struct fl_page **page;   /* cap_fl / FL_PAGE of them */
	struct fl_page *dead;
	uint32_t cap_fl;
	uint32_t *heap;          /* flow ids by tx_end */
	uint32_t n_heap, room_heap;
	struct ws_evh end_ev;
	ws_time end_at;          /* time end_ev runs at; WS_TIME_NEVER: none */
	bool solve_armed;
	bool failed;
	bool reserve;            /* ack_load by reservations (ack_solve = reserve) */
	double util;
	/* reservations, by global port: the capacity (link x util; 0: not seen
	 * yet), the ACK load of the rates solved, the capacity the solver has */
	double *base, *res, *cap_set;
	uint32_t *dirty, n_dirty; /* ports whose res moved since the last solve */
	struct fl_warm *warm;     /* ack_warm: by NIC port, the last flow's end */
	uint8_t *is_dirty;
	/* the packet sizes the tail needs, read off the first flow
	 * (tail_sizes): payload, header and ACK wire bytes; sizes_state 0:
	 * not yet, 1: known, -1: not derivable (the tail is the base RTT) */
	uint64_t payload, header, ack_wire;
	int sizes_state;
	uint64_t adopted, one_packet, finished, solve_events, rate_changes;
	uint64_t ack_solves, ack_caps, ack_unsettled;
};

static struct fl_state *st(struct ws_inst *inst)
{
	return inst->state;
}

static void fl_fail(struct ws_inst *inst, struct ws_err *err)
{
	struct fl_state *s = st(inst);
	if (s->failed)
		return;
	s->failed = true;
	ws_err_prefix(err, "accel fluid: ");
	ws_fail(inst->sim, err);
}

/* An error report a kernel call may fill: only its code is read unless it
 * failed (ws_err_set fills the rest), so it is not cleared whole (1.7 KB
 * twice a flow: 1.4 % of an AICB micro-benchmark's instructions). */
static void err_none(struct ws_err *err)
{
	err->code = 0;
}

static void fl_oom(struct ws_inst *inst)
{
	struct ws_err err;
	ws_err_set(&err, WS_ENOMEM, "out of memory");
	fl_fail(inst, &err);
}

/* ---- the heap of transfer ends ---------------------------------------------- */

static bool end_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct fl_state *s = ctx;
	ws_time ta = FL(s, a).tx_end, tb = FL(s, b).tx_end;
	return ta != tb ? ta < tb : a < b;
}

static void end_place(void *ctx, uint32_t id, uint32_t i)
{
	struct fl_state *s = ctx;
	FL(s, id).hpos = i;
}

static void heap_set(struct fl_state *s, uint32_t i, uint32_t id)
{
	idh_set(s->heap, i, id, s, end_place);
}

static void heap_up(struct fl_state *s, uint32_t i)
{
	idh_up(s->heap, i, s, end_before, end_place);
}

static void heap_down(struct fl_state *s, uint32_t i)
{
	idh_down(s->heap, s->n_heap, i, s, end_before, end_place);
}

/* Place flow `id` by its (new) tx_end. */
static int heap_update(struct fl_state *s, uint32_t id)
{
	uint32_t i = FL(s, id).hpos;
	if (i == FL_NONE) {
		if (s->n_heap == s->room_heap) {
			uint32_t n = s->room_heap ? 2 * s->room_heap : 1024;
			uint32_t *h = realloc(s->heap, (size_t)n * sizeof *h);
			if (!h)
				return WS_ENOMEM;
			s->heap = h;
			s->room_heap = n;
		}
		i = s->n_heap++;
		heap_set(s, i, id);
	}
	heap_up(s, i);
	heap_down(s, FL(s, id).hpos);
	return WS_OK;
}

static uint32_t heap_pop(struct fl_state *s)
{
	uint32_t top = s->heap[0];
	FL(s, top).hpos = FL_NONE;
	if (--s->n_heap) {
		heap_set(s, 0, s->heap[s->n_heap]);
		heap_down(s, 0);
	}
	return top;
}

/* ---- time and rates ------------------------------------------------------------ */

/* Count what the flow sent since t_last at its rate. */
static void settle(struct fl_flow *f, ws_time now)
{
	fl_u128 sent = (fl_u128)f->rate * (now - f->t_last);
	f->left = sent < f->left ? f->left - sent : 0;
	f->t_last = now;
}

static void end_event(struct ws_sim *sim, void *obj, uint64_t arg);
static void solve_event(struct ws_sim *sim, void *obj, uint64_t arg);
static void flow_ended(struct fl_state *s, uint32_t id);

/* The end event at the earliest transfer end. */
static void arm_end(struct ws_inst *inst)
{
	struct fl_state *s = st(inst);
	ws_time t = s->n_heap ? FL(s, s->heap[0]).tx_end : WS_TIME_NEVER;
	if (t == s->end_at)
		return;
	if (s->end_at != WS_TIME_NEVER)
		ws_cancel(inst->sim, s->end_ev);
	s->end_at = t;
	if (t != WS_TIME_NEVER)
		s->end_ev = ws_schedule(inst->sim, t, end_event, inst, 0);
}

/* One solve per instant, after the starts and ends of that instant. */
static void arm_solve(struct ws_inst *inst)
{
	struct fl_state *s = st(inst);
	if (s->solve_armed)
		return;
	s->solve_armed = true;
	ws_schedule(inst->sim, ws_now(inst->sim), solve_event, inst, 0);
}

/* ---- ACK load as reservations ------------------------------------------------- */

/* The links of a flow's ACK path, ack_ports(f)[0..n_ack). */
static const uint32_t *ack_ports(const struct fl_flow *f)
{
	return f->n_ack <= FL_ACK_IN ? f->ack.in : f->ack.far;
}

/* The flow's transfer ended: its ACK path goes. */
static void ack_drop(struct fl_flow *f)
{
	if (f->n_ack > FL_ACK_IN)
		free(f->ack.far);
	f->n_ack = 0;
}

/* A flow's rate moved by d_rate: so did its ACKs' load on their links. */
static void ack_move(struct fl_state *s, const struct fl_flow *f, double d_rate)
{
	double d = f->share * d_rate;
	const uint32_t *ack = ack_ports(f);
	for (uint32_t k = 0; k < f->n_ack; k++) {
		uint32_t p = ack[k];
		s->res[p] += d;
		if (!s->is_dirty[p]) {
			s->is_dirty[p] = 1;
			s->dirty[s->n_dirty++] = p;
		}
	}
}

/* ---- ACK reservations: warm start (ack_warm) ---------------------------------- */

/* A flow's transfer ended: the next flow between the same NICs (a ring's
 * next step, a pipeline's next micro-batch) likely gets its rate. */
static void warm_note(struct fl_state *s, const struct fl_flow *f)
{
	if (s->warm)
		s->warm[f->nic] = (struct fl_warm){ .rate = f->rate > 1 ? (double)f->rate : 0,
						    .ack0 = ack_ports(f)[0] };
}

/* A new flow's ACK reservation, before its first solve: the rate of the
 * last flow between the same two NICs, if any (else 0).  A guess the
 * solve corrects like any other move of the reservation; a right one saves
 * the instant's re-solves (every flow of a ring step solved once instead
 * of about three times: docs/performance.md). */
static void warm_start(struct fl_state *s, struct fl_flow *f)
{
	if (!s->warm || !f->n_ack)
		return;
	const struct fl_warm *w = &s->warm[f->nic];
	if (!(w->rate > 0) || w->ack0 != ack_ports(f)[0])
		return;
	f->ack_rate = w->rate;
	ack_move(s, f, w->rate);
}

/* Hand the solver the capacity left by the ACK load of the links whose
 * load moved, where it moved by more than FL_ACK_TOL of the link.  *moved:
 * some did.  0, or -1 when out of memory. */
static int ack_apply(struct fl_state *s, bool *moved)
{
	for (uint32_t i = 0; i < s->n_dirty; i++) {
		uint32_t p = s->dirty[i];
		s->is_dirty[p] = 0;
		double want = s->base[p] - s->res[p], lo = 0.01 * s->base[p];
		if (want < lo)
			want = lo;
		double d = want - s->cap_set[p];
		if (!(d > FL_ACK_TOL * s->base[p] || -d > FL_ACK_TOL * s->base[p]))
			continue;
		if (fr_set_cap(s->net, p, want))
			return -1;
		s->cap_set[p] = want;
		s->ack_caps++;
		*moved = true;
	}
	s->n_dirty = 0;
	return 0;
}

/* Take the rates of the flows a solve covered; 0, or -1 when out of memory. */
static int take_rates(struct fl_state *s, const uint32_t *ids, int64_t n, ws_time now)
{
	for (int64_t i = 0; i < n; i++) {
		struct fl_flow *f = &FL(s, ids[i]);
		uint64_t rate = (uint64_t)fr_rate(s->net, ids[i]);
		if (rate < 1)
			rate = 1;
		if (rate == f->rate && f->hpos != FL_NONE)
			continue;
		settle(f, now);
		s->rate_changes++;
		if (f->n_ack) {
			ack_move(s, f, (double)rate - f->ack_rate);
			f->ack_rate = (double)rate;
		}
		f->rate = rate;
		f->tx_end = now + (ws_time)(f->left / rate);
		if (heap_update(s, ids[i]))
			return -1;
	}
	return 0;
}

/* Solve the instant: with reservations, again while a link's ACK load
 * moved by more than FL_ACK_TOL (each round moves the next by the ACK
 * share of the rates that moved, about 5 %: a few rounds). */
static void solve_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_inst *inst = obj;
	struct fl_state *s = st(inst);
	s->solve_armed = false;
	if (s->failed)
		return;
	ws_time now = ws_now(sim);
	s->solve_events++;
	for (unsigned round = 0;; round++) {
		bool moved = false;
		if (s->reserve && ack_apply(s, &moved)) {
			fl_oom(inst);
			return;
		}
		if (round > 0 && !moved)
			break;
		if (round == FL_ACK_ROUNDS) {
			s->ack_unsettled++;
			break;
		}
		const uint32_t *ids;
		int64_t n = fr_solve(s->net, false, &ids);
		if (n < 0 || take_rates(s, ids, n, now)) {
			fl_oom(inst);
			return;
		}
		s->ack_solves += round > 0;
	}
	arm_end(inst);
}

static void done_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	struct ws_inst *inst = obj;
	struct ws_err err;
	err_none(&err);
	st(inst)->finished++;
	if (ws_flow_finish(sim, (uint32_t)arg, &err)) {
		if (!err.code)
			ws_err_set(&err, WS_EINVAL, "flow %u cannot finish", (unsigned)arg);
		fl_fail(inst, &err);
	}
}

/* Transfers that end now free their links; each flow completes a base RTT
 * later. */
static void end_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_inst *inst = obj;
	struct fl_state *s = st(inst);
	s->end_at = WS_TIME_NEVER;
	if (s->failed)
		return;
	ws_time now = ws_now(sim);
	while (s->n_heap && FL(s, s->heap[0]).tx_end <= now) {
		uint32_t id = heap_pop(s);
		struct fl_flow *f = &FL(s, id);
		if (f->n_ack) {
			ack_move(s, f, -f->ack_rate);
			warm_note(s, f);
		}
		ack_drop(f);
		if (s->nic && f->nic != FL_NONE)
			s->nic[f->nic].sending--;
		f->rate = 0;
		fr_remove(s->net, id);
		ws_schedule(sim, now + FL(s, id).tail, done_event, inst, id);
		flow_ended(s, id);
	}
	arm_solve(inst);
	arm_end(inst);
}

/* ---- hooks ------------------------------------------------------------------------ */

static int flows_reserve(struct fl_state *s, uint32_t id)
{
	uint32_t pg = id >> FL_PAGE_BITS, have = s->cap_fl / FL_PAGE;
	if (pg >= have) {
		uint32_t n = have ? have : 1;
		while (n <= pg)
			n *= 2;
		struct fl_page **p = realloc(s->page, (size_t)n * sizeof *p);
		if (!p)
			return WS_ENOMEM;
		for (uint32_t k = have; k < n; k++)
			p[k] = s->dead;
		s->page = p;
		s->cap_fl = n * FL_PAGE;
	}
	if (s->page[pg] == s->dead) {
		struct fl_page *p = calloc(1, sizeof *p);
		if (!p)
			return WS_ENOMEM;
		s->page[pg] = p;
	}
	return WS_OK;
}

/* Flow `id`'s transfer ended: its page goes when all of its ids have. */
static void flow_ended(struct fl_state *s, uint32_t id)
{
	struct fl_page *p = s->page[id >> FL_PAGE_BITS];
	if (++p->ended < FL_PAGE)
		return;
	free(p);
	s->page[id >> FL_PAGE_BITS] = s->dead;
}

/* A flow's two paths as its packets take them: the egress ports (global
 * ids), rates and propagation delays of its data path (dir 0) and of its
 * ACKs' path (dir 1). */
struct fl_path {
	uint32_t port[FR_PATH_MAX];
	uint64_t rate[FR_PATH_MAX];
	ws_time delay[FR_PATH_MAX];
	uint32_t n;
};

/* A port's rate and delay, read once (ws_port_info) and kept by global id:
 * they do not change during a run (the kernel refuses an accelerator with
 * [failures], whose events change links). */
static const struct fl_port *port_of(struct fl_state *s, struct ws_sim *sim,
				     const struct ws_hop *h)
{
	uint32_t g = ws_port_gid(sim, h->node, h->port);
	struct fl_port *p = &s->port[g];
	if (!p->seen) {
		struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
		ws_port_info(sim, h->node, h->port, &pi);
		*p = (struct fl_port){ .rate = pi.rate, .delay = pi.delay, .gid = g,
				       .seen = true };
	}
	return p;
}

static int trace(struct fl_state *s, struct ws_sim *sim, const struct ws_flow_info *fi,
		 int dir, struct fl_path *out, struct ws_err *err)
{
	struct ws_pkt p;
	if (dir)
		ws_pkt_probe(&p, fi->dst, fi->src, fi->dport, fi->sport);
	else
		ws_pkt_probe(&p, fi->src, fi->dst, fi->sport, fi->dport);
	p.type = dir ? WS_PKT_ACK : WS_PKT_DATA;
	p.prio = fi->prio;
	struct ws_hop hops[FR_PATH_MAX + 1];
	uint32_t h;
	int rc = ws_route_trace(sim, &p, hops, FR_PATH_MAX + 1, &h, err);
	if (rc)
		return rc;
	out->n = h ? h - 1 : 0;
	for (uint32_t i = 0; i < out->n; i++) {
		const struct fl_port *pt = port_of(s, sim, &hops[i]);
		out->port[i] = pt->gid;
		out->rate[i] = pt->rate;
		out->delay[i] = pt->delay;
	}
	return WS_OK;
}

/* The wire rate of a flow's ACKs over its own wire rate. */
static double ack_share(struct ws_sim *sim, const struct ws_flow_info *fi)
{
	if (fi->bytes == 0 || fi->wire_bytes == 0)
		return 0;
	double goodput = 1e12; /* the ACKs of 1 Tb/s of payload */
	double share = (double)ws_flow_ack_load(sim, fi->id, (uint64_t)goodput) /
		       (goodput * (double)fi->wire_bytes / (double)fi->bytes);
	return share > 0 ? share : 0;
}

/* ---- the tail: from the last byte's transfer to its ACK -------------------- */

/* The kernel's packet sizes, from what a flow shows of them: the payload
 * from its base RTT (2 x propagation + a full payload's serialization per
 * hop), the header from its wire bytes, the ACK from its ACK load at one
 * ACK per packet ([nic] ack_interval 1, the default).  False when they do
 * not come out whole. */
static bool tail_sizes(struct fl_state *s, struct ws_sim *sim, const struct ws_flow_info *fi,
		       const struct fl_path *d)
{
	ws_time prop = 0;
	for (uint32_t k = 0; k < d->n; k++)
		prop += d->delay[k];
	if (!d->n || fi->bytes == 0 || fi->base_rtt < 2 * prop)
		return false;
	ws_time ser = fi->base_rtt - 2 * prop;
	uint64_t lo = 1, hi = 1 << 20;
	while (lo < hi) { /* the smallest payload serialized in at least ser */
		uint64_t mid = (lo + hi) / 2;
		ws_time t = 0;
		for (uint32_t k = 0; k < d->n; k++)
			t += ws_tx_time(mid, d->rate[k]);
		if (t < ser)
			lo = mid + 1;
		else
			hi = mid;
	}
	ws_time t = 0;
	for (uint32_t k = 0; k < d->n; k++)
		t += ws_tx_time(lo, d->rate[k]);
	uint64_t npk = (fi->bytes + lo - 1) / lo;
	if (t != ser || fi->wire_bytes < fi->bytes || (fi->wire_bytes - fi->bytes) % npk)
		return false;
	s->payload = lo;
	s->header = (fi->wire_bytes - fi->bytes) / npk;
	/* the ACKs of 10^6 packets a second */
	uint64_t ack = ws_flow_ack_load(sim, fi->id, 8 * lo * 1000000u);
	s->ack_wire = (ack + 4000000) / 8000000;
	return true;
}

/* Whether the packet sizes are known, read off this flow if nobody's were
 * yet (once: a flow they cannot be derived from leaves them unknown). */
static bool sizes_known(struct fl_state *s, struct ws_sim *sim, const struct ws_flow_info *fi,
			const struct fl_path *d)
{
	if (s->sizes_state == 0)
		s->sizes_state = tail_sizes(s, sim, fi, d) ? 1 : -1;
	return s->sizes_state > 0;
}

/* A lone flow's time from the end of its transfer to the ACK of its last
 * byte, as its packets take it (fr_lone_tail). */
static ws_time tail(struct fl_state *s, struct ws_sim *sim, const struct ws_flow_info *fi,
		    const struct fl_path *d, const struct fl_path *a)
{
	if (!sizes_known(s, sim, fi, d) || !d->n || !a->n || fi->bytes == 0)
		return fi->base_rtt;
	uint64_t npk = (fi->bytes + s->payload - 1) / s->payload;
	uint64_t full = s->payload + s->header;
	uint64_t last = fi->bytes - (npk - 1) * s->payload + s->header;
	return fr_lone_tail(d->rate, d->delay, d->n, a->rate, a->delay, a->n, npk, full, last,
			    s->ack_wire);
}

/* A port's capacity for the solver, first seen now: link x util. */
static void see_port(struct fl_state *s, uint32_t p, uint64_t rate)
{
	if (s->base[p] == 0) {
		s->base[p] = (double)rate * s->util;
		s->cap_set[p] = s->base[p];
	}
}

/* ack_load by reservations: note the ACK path's links, with the flow. */
static int reserve_acks(struct fl_state *s, struct fl_flow *f, const struct fl_path *d,
			const struct fl_path *a, double share)
{
	for (uint32_t k = 0; k < d->n; k++)
		see_port(s, d->port[k], d->rate[k]);
	if (!(share > 0) || !a->n || !d->n)
		return WS_OK;
	/* the flow's own (not one array for the run): memory follows the
	 * flows alive; in its record when short */
	uint32_t *ack = f->ack.in;
	if (a->n > FL_ACK_IN) {
		ack = f->ack.far = malloc(a->n * sizeof *ack);
		if (!ack)
			return WS_ENOMEM;
	}
	f->n_ack = a->n;
	f->share = share;
	for (uint32_t k = 0; k < a->n; k++) {
		see_port(s, a->port[k], a->rate[k]);
		ack[k] = a->port[k];
	}
	return WS_OK;
}

/* The solver's view of a new flow: its data links, and (ack_solve =
 * coupled) its ACK links carrying share x its rate. */
static int add_flow(struct ws_inst *inst, uint32_t id, const struct fl_path *d,
		    const struct fl_path *a, double share)
{
	struct fl_state *s = st(inst);
	uint32_t ports[2 * FR_PATH_MAX];
	double caps[2 * FR_PATH_MAX], use[2 * FR_PATH_MAX];
	uint32_t n = 0;
	for (uint32_t k = 0; k < d->n; k++, n++) {
		ports[n] = d->port[k];
		caps[n] = s->reserve ? s->cap_set[d->port[k]] : (double)d->rate[k] * s->util;
		use[n] = 1;
	}
	bool coupled = a && share > 0;
	for (uint32_t k = 0; coupled && k < a->n; k++, n++) {
		ports[n] = a->port[k];
		caps[n] = (double)a->rate[k] * s->util;
		use[n] = share;
	}
	double cap = n ? caps[0] : 1;
	if (s->reserve && d->n)
		cap = (double)d->rate[0] * s->util;
	return fr_add_use(s->net, id, ports, caps, coupled ? use : NULL, n, cap, 1.0, 0.0)
		       ? WS_ENOMEM : WS_OK;
}

/*
 * A flow of one packet is not a rate: its NIC sends that packet at line
 * rate, after the one-packet flows it took before (first come, first
 * served) and after one packet of each flow it is sending (a new queue
 * pair waits its turn in the NIC's round robin).  From there it takes what
 * a lone flow's packet takes (its serialization at the path's slowest
 * port, then `tail`: the packet-level FCT when it is alone), and it takes
 * no share of any link: the solver never sees it (what it meets beyond its
 * NIC is queuing, which fluid models for no flow).  True when `fi` is one
 * (its done event set), false otherwise or while the packet sizes are not
 * known.
 */
static bool one_packet(struct ws_inst *inst, const struct ws_flow_info *fi,
		       const struct fl_path *d, ws_time tail, ws_time now)
{
	struct fl_state *s = st(inst);
	if (!sizes_known(s, inst->sim, fi, d) || fi->bytes > s->payload || !d->n)
		return false;
	uint64_t slow = d->rate[0];
	for (uint32_t k = 1; k < d->n; k++)
		if (d->rate[k] < slow)
			slow = d->rate[k];
	struct fl_nic *q = &s->nic[d->port[0]];
	ws_time go = now + q->sending * ws_tx_time(s->payload + s->header, d->rate[0]);
	if (go < q->free)
		go = q->free;
	q->free = go + ws_tx_time(fi->wire_bytes, d->rate[0]);
	s->adopted++;
	s->one_packet++;
	ws_schedule(inst->sim, go + ws_tx_time(fi->wire_bytes, slow) + tail, done_event, inst,
		    fi->id);
	return true;
}

static void fl_on_flow_start(struct ws_inst *inst, uint32_t id, ws_time now)
{
	struct fl_state *s = st(inst);
	if (s->failed)
		return;
	struct ws_sim *sim = inst->sim;
	const struct fl_conf *c = inst->conf;
	struct ws_err err;
	err_none(&err);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	struct fl_path d, a;
	a.n = 0;
	if (ws_flow_adopt(sim, id, &err) || ws_flow_get(sim, id, &fi) ||
	    trace(s, sim, &fi, 0, &d, &err) || trace(s, sim, &fi, 1, &a, &err)) {
		if (!err.code)
			ws_err_set(&err, WS_EINVAL, "no flow %u", id);
		fl_fail(inst, &err);
		return;
	}
	double share = c->ack_load ? ack_share(sim, &fi) : 0;
	if (flows_reserve(s, id)) {
		fl_oom(inst);
		return;
	}
	ws_time t = c->physical_tail ? tail(s, sim, &fi, &d, &a) : fi.base_rtt;
	if (c->one_packet && one_packet(inst, &fi, &d, t, now)) {
		flow_ended(s, id); /* no record: its page may go */
		return;
	}
	struct fl_flow *f = &FL(s, id);
	*f = (struct fl_flow){ .left = (fl_u128)fi.wire_bytes * 8u * WS_SEC, .t_last = now,
			       .tail = t, .hpos = FL_NONE, .nic = d.n ? d.port[0] : FL_NONE };
	if (s->nic && d.n)
		s->nic[d.port[0]].sending++;
	if ((s->reserve && reserve_acks(s, f, &d, &a, share)) ||
	    add_flow(inst, id, &d, s->reserve ? NULL : &a, share)) {
		fl_oom(inst);
		return;
	}
	if (s->reserve)
		warm_start(s, f);
	s->adopted++;
	arm_solve(inst);
}

static int fl_start(struct ws_inst *inst, struct ws_err *err)
{
	struct fl_state *s = st(inst);
	const struct fl_conf *c = inst->conf;
	s->util = c->cc_utilization ? ws_cc_utilization(inst->sim) : 1.0;
	s->net = fr_new(ws_sim_fabric(inst->sim)->n_ports);
	s->dead = calloc(1, sizeof *s->dead);
	s->port = calloc(ws_sim_fabric(inst->sim)->n_ports + 1, sizeof *s->port);
	s->end_at = WS_TIME_NEVER;
	if (c->one_packet)
		s->nic = calloc(ws_sim_fabric(inst->sim)->n_ports + 1, sizeof *s->nic);
	if (!s->net || !s->dead || !s->port || (c->one_packet && !s->nic))
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	fr_set_local(s->net, c->local_solve);
	s->reserve = c->ack_load && c->ack_solve == FL_ACK_RESERVE;
	if (s->reserve) {
		size_t np = ws_sim_fabric(inst->sim)->n_ports;
		np = np ? np : 1;
		s->base = calloc(np, sizeof *s->base);
		s->res = calloc(np, sizeof *s->res);
		s->cap_set = calloc(np, sizeof *s->cap_set);
		s->dirty = malloc(np * sizeof *s->dirty);
		s->is_dirty = calloc(np, 1);
		if (c->ack_warm) {
			s->warm = calloc(np, sizeof *s->warm);
			if (!s->warm)
				return ws_err_set(err, WS_ENOMEM, "out of memory");
		}
		if (!s->base || !s->res || !s->cap_set || !s->dirty || !s->is_dirty)
			return ws_err_set(err, WS_ENOMEM, "out of memory");
	}
	return WS_OK;
}

static void fl_fini(struct ws_inst *inst)
{
	struct fl_state *s = st(inst);
	fr_free(s->net);
	for (uint32_t p = 0; p < s->cap_fl / FL_PAGE; p++) {
		if (s->page[p] == s->dead)
			continue;
		for (uint32_t i = 0; i < FL_PAGE; i++)
			ack_drop(&s->page[p]->f[i]); /* flows still running */
		free(s->page[p]);
	}
	free(s->page);
	free(s->dead);
	free(s->heap);
	free(s->port);
	free(s->nic);
	free(s->base);
	free(s->res);
	free(s->cap_set);
	free(s->dirty);
	free(s->is_dirty);
	free(s->warm);
	memset(s, 0, sizeof *s);
}

static void fl_report(struct ws_inst *inst, struct ws_json *j)
{
	struct fl_state *s = st(inst);
	struct fr_stats fs = { 0 };
	if (s->net)
		fr_get_stats(s->net, &fs);
	ws_json_f64(j, "capacity_share", s->util);
	ws_json_u64(j, "flows_adopted", s->adopted);
	ws_json_u64(j, "one_packet_flows", s->one_packet);
	ws_json_u64(j, "flows_finished", s->finished);
	ws_json_u64(j, "solve_events", s->solve_events);
	ws_json_u64(j, "solves", fs.solves);
	ws_json_u64(j, "flows_solved", fs.flows_solved);
	ws_json_u64(j, "largest_solve", fs.largest);
	ws_json_f64(j, "mean_solve", fs.solves ? (double)fs.flows_solved / fs.solves : 0);
	ws_json_u64(j, "local_rounds", fs.local_rounds);
	ws_json_u64(j, "full_fallbacks", fs.full_fallbacks);
	ws_json_u64(j, "rate_changes", s->rate_changes);
	ws_json_u64(j, "ack_solves", s->ack_solves);
	ws_json_u64(j, "ack_capacity_changes", s->ack_caps);
	ws_json_u64(j, "ack_unsettled", s->ack_unsettled);
}

static const struct ws_accel_ops fl_ops = {
	.size = sizeof(struct ws_accel_ops),
	.start = fl_start,
	.on_flow_start = fl_on_flow_start,
	.report = fl_report,
};

static const struct ws_plugin fl_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ACCEL, struct ws_accel_ops),
	.name = "fluid",
	.version = "1.0.0",
	.summary = "flow-level simulation: max-min fair rates over the routed paths, "
		   "no packets (fast, coarse)",
	.params = fl_params,
	.conf_size = sizeof(struct fl_conf),
	.state_size = sizeof(struct fl_state),
	.fini = fl_fini,
	.ops = &fl_ops,
};

WS_PLUGIN_EXPORT(fl_plugin)
