/* SPDX-License-Identifier: MIT */
/*
 * hygra: hybrid granularity, after HyGra (packet-level simulation while the
 * network is unsteady, a flow-level model while it is steady), switched
 * partition by partition.
 *
 * Partitions.  The running flows fall into partitions: the connected
 * components of the graph of flows and the ports their data and ACKs leave
 * by (wormhole's partition module, kept incrementally).  Flows of two
 * partitions share no queue, so each partition is tested and switched on
 * its own: a flow starting or finishing restarts the rounds of its own
 * partition only, and a partition in flow mode goes on while flows start
 * and end elsewhere.
 *
 * Packet mode (the default).  Every `window` each partition takes `samples`
 * measurements: each of its flows' sending rate (payload bytes over the
 * sub-interval) and each of its ports' queue depth.  A round passes when
 * every flow's rates over the window spread less than eps_bw x its line
 * rate and every port's queue depths less than eps_q.  After n_stable
 * passing rounds in a row (no flow of the partition having started or
 * finished in between) the partition switches to flow mode.  The window
 * defaults to 8 x the largest base RTT of the partition's flows (a CC's
 * dynamics run at its own RTTs, not the fabric's longest).
 *
 * Flow mode.  Each flow keeps its measured packet-level rate (its mean over
 * the last window) as a floor and receives a share of the capacity left on
 * its path in proportion to its weight (`weight`: its measured rate, or
 * equal), by the max-min solver fluid uses (flowrate/solver.c).  What is
 * left on a link is measured as well: its rate times the CC's declared
 * utilization, less the wire bytes it carried over the last window (ACKs
 * of the flows going the other way included: about 5 % of a link under a
 * per-packet ACK, which a capacity model alone would hand out).  The
 * partition's ports and flows are frozen (ws_freeze): queues keep their
 * packets and their bytes keep counting against the shared buffers.  Flow
 * mode lasts until the partition's first flow would have sent all but its
 * last byte; it also ends (unlike the paper) as soon as a flow starts on
 * one of its ports: training DAGs create flows on completions.  Then every
 * flow is advanced by rate x elapsed bytes without packets (ws_flow_skip)
 * and the partition is thawed shifted by the elapsed time.  The last bytes
 * go at packet level, through the queues restored as they were: each
 * flow's completion carries the queuing delay of its path's queues, and
 * the switch back finds the queue depths recorded at entry (the predictor:
 * the paper trains a model on the queue history; entry depth is its
 * transparent stand-in, exact in a steady state where the queue range is
 * below eps_q).
 *
 * Where this differs from the published method: per-partition switching
 * (the paper switches the whole network), the switch-back on a flow start
 * (above), the queue predictor.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <warpsim/warpsim.h>

#include "../flowrate/path.h"
#include "../flowrate/skipcount.h"
#include "../flowrate/solver.h"
#include "../wormhole/partition.h"

#define HG_MAX_PORTS 128 /* ports of one flow: data and ACK paths */
#define HG_NONE UINT32_MAX

enum hg_weight { HG_WEIGHT_RATE = 0, HG_WEIGHT_EQUAL = 1 };
static const char *const hg_weights[] = { "rate", "equal", NULL };

struct hg_conf {
	ws_time window;
	uint64_t samples;
	double eps_bw;
	uint64_t eps_q;
	uint64_t n_stable;
	int weight;
	ws_time min_flow_mode;
};

static const struct ws_param hg_params[] = {
	WS_PARAM_TIME("window", struct hg_conf, window, "0s", "0s", "1s",
		      "sampling window (one round); 0: per partition, 8 x its flows' "
		      "largest base RTT, at least 1 MB at their slowest line rate"),
	WS_PARAM_UINT("samples", struct hg_conf, samples, "4", "2", "64",
		      "rate and queue samples per window (their range is tested)"),
	WS_PARAM_FLOAT("eps_bw", struct hg_conf, eps_bw, "0.05", "0", "1",
		       "a round passes when every flow's rate samples spread less than "
		       "eps_bw x its line rate..."),
	WS_PARAM_SIZE("eps_q", struct hg_conf, eps_q, "8KB", "0", "1GB",
		      "...and every in-use port's queue samples less than eps_q bytes"),
	WS_PARAM_UINT("n_stable", struct hg_conf, n_stable, "2", "1", "1000",
		      "passing rounds in a row before a partition's flow mode"),
	WS_PARAM_ENUM("weight", struct hg_conf, weight, "rate", hg_weights,
		      "flow mode: leftover capacity shared in proportion to each flow's "
		      "measured rate, or equally"),
	WS_PARAM_TIME("min_flow_mode", struct hg_conf, min_flow_mode, "0s", "0s", "1s",
		      "shortest flow mode worth a switch; 0: one window"),
	WS_PARAM_END
};

/* a running flow */
struct hg_slot {
	uint32_t flow;
	bool brief;               /* too short to see a flow mode: not in partitions */
	bool tracked;             /* brief: its ports are read and counted in brief_use */
	uint64_t line_rate;
	ws_time base_rtt;
	ws_time born;             /* when it started */
	uint64_t last_sent;       /* payload bytes at the last sample */
	ws_time last_t;
	uint64_t win_sent;        /* at the window's start */
	ws_time win_t;
	double lo, hi;            /* rate samples this window */
	uint32_t n;               /* samples this window */
	double mean;              /* bps over the last complete window */
	uint32_t *ports, n_ports; /* data and ACK ports (its partition's edges) */
	uint32_t *path, n_path;   /* data ports, then their rates */
	uint64_t *path_rate;
	double share;             /* payload / wire bytes of a full packet: the
				   * sampled (payload) rates' view of a link */
};

/* a partition: its rounds, then its flow mode */
struct hg_part {
	bool live;
	bool rebase;              /* its next event opens a new window */
	bool ev_on;               /* a sample (or rebase) is scheduled */
	bool flow_mode;
	struct ws_evh ev;
	ws_time window, sub;      /* set by each rebase */
	ws_time next_rebase;      /* a rebase before this waits for it */
	ws_time win_start;
	uint32_t sub_n;           /* samples taken this window */
	uint32_t stable;          /* passing rounds in a row */
	/* flow mode */
	ws_time t0, dt;
	struct ws_evh thaw_ev;
	uint32_t *fz_ports, n_fz_ports;
	uint32_t *fz_flows, n_fz_flows;
	double *fz_rate;
};

struct hg_counters {
	uint64_t rounds, rounds_passed, failed_rate, failed_queue, failed_brief, brief;
	uint64_t brief_ports_read; /* brief flows whose ports were read */
	uint64_t entries, skip_backs, too_short, rebases, partitions;
	uint64_t flow_mode_ps;    /* summed over partitions */
	uint64_t flow_mode_flow_ps, flow_ps; /* summed over flows */
};

struct hg_state {
	struct hg_slot *slot;
	uint32_t n_slots, cap_slots;
	uint32_t *slot_of;        /* flow -> slot */
	uint32_t cap_flows;
	struct wh_parts *parts;
	struct hg_part *part;     /* by partition id */
	uint32_t cap_parts;
	uint32_t n_gports;
	double *qlo, *qhi;        /* per global port: queue samples this window */
	uint64_t *tx0;            /* per port: wire bytes sent at the window's start */
	double *tput;             /* per port: wire bps over the last window */
	double *pfloor;           /* per port: scratch, the floors crossing it */
	uint32_t *brief_use;      /* per port: tracked brief flows using it */
	uint64_t *host_rate;      /* per node: a one-port host's line rate, else 0 */
	uint32_t n_nodes;
	uint32_t n_full;          /* running flows in partitions (not brief) */
	uint32_t n_untracked;     /* running brief flows whose ports were not read */
	ws_time fabric_window;    /* 8 x the fabric's largest base RTT, or `window` */
	ws_time min_flow_mode;    /* 0: a partition's window */
	double utilization;       /* the CC's declared share of a bottleneck */
	struct fr_net *net;       /* the solver, made at the first flow mode */
	bool failed;
	struct hg_counters n;
	struct fr_skipcount skip; /* events_skipped, skipped_bytes */
};

static struct hg_state *st(struct ws_inst *inst)
{
	return inst->state;
}

static void hg_fail(struct ws_inst *inst, struct ws_err *err)
{
	struct hg_state *s = st(inst);
	if (s->failed)
		return;
	s->failed = true;
	ws_err_prefix(err, "accel hygra: ");
	ws_fail(inst->sim, err);
}

static void hg_oom(struct ws_inst *inst)
{
	struct ws_err err;
	ws_err_set(&err, WS_ENOMEM, "out of memory");
	hg_fail(inst, &err);
}

static uint64_t sent_of(struct ws_sim *sim, uint32_t flow)
{
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, flow, &fi);
	return fi.sent;
}

static struct hg_slot *slot_of(struct hg_state *s, uint32_t flow)
{
	return &s->slot[s->slot_of[flow]];
}

/* ---- windows -------------------------------------------------------------- */

static void slot_window(struct hg_slot *sl, ws_time now)
{
	sl->win_sent = sl->last_sent;
	sl->win_t = now;
	sl->n = 0;
	sl->lo = INFINITY;
	sl->hi = -INFINITY;
}

static void part_event(struct ws_sim *sim, void *obj, uint64_t arg);

static void part_schedule(struct ws_inst *inst, uint32_t id, ws_time at)
{
	struct hg_part *p = &st(inst)->part[id];
	if (p->ev_on)
		ws_cancel(inst->sim, p->ev);
	p->ev = ws_schedule(inst->sim, at, part_event, inst, id);
	p->ev_on = true;
}

/*
 * A partition's rounds count again from zero: its next event re-reads its
 * flows and ports (a rebase) and opens a window.  The re-reading is
 * shared: once for all the flows starting or finishing at one instant (an
 * event after them), and at most once a sub-interval besides (a restart
 * within a sub-interval of the last rebase waits for the sub-interval's
 * end), so the rebases cost at most what the samples cost.  Re-reading a
 * partition at each of its flow starts and finishes made hygra O(flows x
 * running flows): a collective starts and finishes thousands of flows
 * while as many others run.
 */
static void restart_rounds(struct ws_inst *inst, uint32_t id, ws_time now)
{
	struct hg_part *p = &st(inst)->part[id];
	p->rebase = true;
	p->sub_n = 0;
	p->stable = 0;
	part_schedule(inst, id, now > p->next_rebase ? now : p->next_rebase);
}

/*
 * The default window: 8 base RTTs, and at least the time HG_WINDOW_BYTES
 * take at the slowest line rate (a rate measured over a window is off by up
 * to a packet: over 1 MB, 0.1 %; a slow fabric's short RTTs hold few).
 */
#define HG_WINDOW_BYTES 1000000.0
static ws_time auto_window(ws_time rtt, uint64_t rate)
{
	ws_time w = 8 * (rtt ? rtt : 10 * WS_US);
	double bytes_t = rate ? HG_WINDOW_BYTES * 8.0 / (double)rate * 1e12 : 0;
	return bytes_t > (double)w ? (ws_time)bytes_t : w;
}

static void rebase(struct ws_inst *inst, uint32_t id, ws_time now)
{
	struct hg_state *s = st(inst);
	const struct hg_conf *c = inst->conf;
	struct hg_part *p = &s->part[id];
	const uint32_t *flows, *ports;
	uint32_t nf = wh_parts_flows(s->parts, id, &flows);
	uint32_t np = wh_parts_ports(s->parts, id, &ports);
	ws_time rtt = 0;
	uint64_t rate = 0;
	for (uint32_t k = 0; k < nf; k++) {
		struct hg_slot *sl = slot_of(s, flows[k]);
		sl->last_sent = sent_of(inst->sim, sl->flow);
		sl->last_t = now;
		slot_window(sl, now);
		rtt = sl->base_rtt > rtt ? sl->base_rtt : rtt;
		rate = !rate || sl->line_rate < rate ? sl->line_rate : rate;
	}
	for (uint32_t i = 0; i < np; i++) {
		s->qlo[ports[i]] = INFINITY;
		s->qhi[ports[i]] = -INFINITY;
		s->tx0[ports[i]] = ws_port_gid_tx_bytes(inst->sim, ports[i]);
	}
	p->window = c->window ? c->window : auto_window(rtt, rate);
	p->sub = p->window / c->samples ? p->window / c->samples : 1;
	p->rebase = false;
	p->next_rebase = now + p->sub;
	p->win_start = now;
	p->sub_n = 0;
	p->stable = 0;
	s->n.rebases++;
}

/* ---- flow mode ----------------------------------------------------------------- */

static void thaw_event(struct ws_sim *sim, void *obj, uint64_t arg);

static void clear_frozen(struct hg_part *p)
{
	free(p->fz_ports);
	free(p->fz_flows);
	free(p->fz_rate);
	p->fz_ports = p->fz_flows = NULL;
	p->fz_rate = NULL;
	p->n_fz_ports = p->n_fz_flows = 0;
	p->flow_mode = false;
}

/* Each frozen flow's floor: its measured rate, within its NIC's share. */
static double slot_cap(const struct hg_state *s, const struct hg_slot *sl)
{
	return (double)sl->line_rate * sl->share * s->utilization;
}

/*
 * Flow-mode rates: measured floors plus a weighted share of what is left.
 * What is left on a link is measured too: its rate (times the CC's
 * utilization) less the wire bytes it carried over the last window, ACKs and
 * other flows' control traffic included; in payload terms, as the floors.
 */
static int flow_rates(struct ws_inst *inst, struct hg_part *p)
{
	struct hg_state *s = st(inst);
	const struct hg_conf *c = inst->conf;
	/* the solver at the first flow mode: a run that never switches
	 * does not pay for it */
	if (!s->net && !(s->net = fr_new(s->n_gports)))
		return WS_ENOMEM;
	for (uint32_t i = 0; i < p->n_fz_flows; i++) {
		const struct hg_slot *sl = slot_of(s, p->fz_flows[i]);
		for (uint32_t k = 0; k < sl->n_path; k++)
			s->pfloor[sl->path[k]] += fmin(sl->mean, slot_cap(s, sl));
	}
	for (uint32_t i = 0; i < p->n_fz_flows; i++) {
		const struct hg_slot *sl = slot_of(s, p->fz_flows[i]);
		double caps[FR_PATH_MAX];
		for (uint32_t k = 0; k < sl->n_path; k++) {
			uint32_t q = sl->path[k];
			double idle = (double)sl->path_rate[k] * s->utilization - s->tput[q];
			caps[k] = s->pfloor[q] + fmax(idle, 0) * sl->share;
		}
		double cap = slot_cap(s, sl);
		double floor = fmin(sl->mean, cap);
		/* by rate: a stalled flow still gets a sliver (weights must be > 0) */
		double w = c->weight == HG_WEIGHT_EQUAL ? 1.0 : fmax(floor / cap, 1e-3);
		if (fr_add(s->net, sl->flow, sl->path, caps, sl->n_path, cap, w, floor))
			return WS_ENOMEM;
	}
	for (uint32_t i = 0; i < p->n_fz_flows; i++) {
		const struct hg_slot *sl = slot_of(s, p->fz_flows[i]);
		for (uint32_t k = 0; k < sl->n_path; k++)
			s->pfloor[sl->path[k]] = 0;
	}
	const uint32_t *ids;
	if (fr_solve(s->net, true, &ids) < 0)
		return WS_ENOMEM;
	for (uint32_t i = 0; i < p->n_fz_flows; i++) {
		p->fz_rate[i] = fr_rate(s->net, p->fz_flows[i]);
		fr_remove(s->net, p->fz_flows[i]);
	}
	fr_solve(s->net, false, &ids); /* empties the change list */
	return WS_OK;
}

/* The frozen set: the partition's flows and ports, as they are now. */
static int copy_sets(struct hg_state *s, uint32_t id)
{
	struct hg_part *p = &s->part[id];
	const uint32_t *flows, *ports;
	uint32_t nf = wh_parts_flows(s->parts, id, &flows);
	uint32_t np = wh_parts_ports(s->parts, id, &ports);
	p->fz_ports = malloc((np ? np : 1) * sizeof *p->fz_ports);
	p->fz_flows = malloc((nf ? nf : 1) * sizeof *p->fz_flows);
	p->fz_rate = calloc(nf ? nf : 1, sizeof *p->fz_rate);
	if (!p->fz_ports || !p->fz_flows || !p->fz_rate)
		return WS_ENOMEM;
	memcpy(p->fz_ports, ports, np * sizeof *ports);
	memcpy(p->fz_flows, flows, nf * sizeof *flows);
	p->n_fz_ports = np;
	p->n_fz_flows = nf;
	return WS_OK;
}

/* Until the partition's first flow would have sent all but its last byte. */
static double flow_mode_span(struct ws_sim *sim, const struct hg_part *p)
{
	double dt = INFINITY;
	for (uint32_t i = 0; i < p->n_fz_flows; i++) {
		double r = p->fz_rate[i];
		uint64_t unsent = ws_flow_unsent(sim, p->fz_flows[i]);
		double t = r > 0 && unsent > 1 ? (double)(unsent - 1) * 8.0 / r * 1e12 : 0;
		dt = t < dt ? t : dt;
	}
	return dt;
}

/* Whether the partition went to flow mode. */
static bool enter_flow_mode(struct ws_inst *inst, uint32_t id, ws_time now)
{
	struct hg_state *s = st(inst);
	struct hg_part *p = &s->part[id];
	struct ws_sim *sim = inst->sim;
	if (copy_sets(s, id) || flow_rates(inst, p)) {
		clear_frozen(p);
		hg_oom(inst);
		return false;
	}
	double dt = flow_mode_span(sim, p);
	if (!(dt >= (double)(s->min_flow_mode ? s->min_flow_mode : p->window))) {
		s->n.too_short++;
		clear_frozen(p);
		return false;
	}
	struct ws_freeze_set set = { WS_INIT_SIZE(struct ws_freeze_set),
				     .ports = p->fz_ports, .n_ports = p->n_fz_ports,
				     .flows = p->fz_flows, .n_flows = p->n_fz_flows };
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_freeze(sim, &set, &err)) {
		clear_frozen(p);
		hg_fail(inst, &err);
		return false;
	}
	p->flow_mode = true;
	p->t0 = now;
	p->dt = (ws_time)dt;
	p->thaw_ev = ws_schedule(sim, now + p->dt, thaw_event, inst, id);
	s->n.entries++;
	return true;
}

/* Back to packets: the partition's flows advance by what they sent in
 * flow mode.  The caller restarts its rounds (or changes it). */
static void leave_flow_mode(struct ws_inst *inst, uint32_t id, bool early)
{
	struct hg_state *s = st(inst);
	struct hg_part *p = &s->part[id];
	struct ws_sim *sim = inst->sim;
	ws_time shift = ws_now(sim) - p->t0;
	if (early)
		ws_cancel(sim, p->thaw_ev);
	struct ws_err err;
	ws_err_clear(&err);
	for (uint32_t i = 0; i < p->n_fz_flows; i++) {
		uint32_t f = p->fz_flows[i];
		uint64_t want = (uint64_t)(p->fz_rate[i] * ((double)shift / 1e12) / 8.0);
		uint64_t unsent = ws_flow_unsent(sim, f);
		/* never the last byte: a flow ends in packet mode */
		if (want >= unsent)
			want = unsent ? unsent - 1 : 0;
		if (want && ws_flow_skip(sim, f, want, &err)) {
			hg_fail(inst, &err);
			return;
		}
		fr_skip_add(&s->skip, sim, f, want);
	}
	struct ws_freeze_set set = { WS_INIT_SIZE(struct ws_freeze_set),
				     .ports = p->fz_ports, .n_ports = p->n_fz_ports,
				     .flows = p->fz_flows, .n_flows = p->n_fz_flows };
	if (ws_thaw(sim, &set, shift, &err)) {
		hg_fail(inst, &err);
		return;
	}
	s->n.flow_mode_ps += shift;
	s->n.flow_mode_flow_ps += shift * p->n_fz_flows;
	clear_frozen(p);
}

static void thaw_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	struct ws_inst *inst = obj;
	uint32_t id = (uint32_t)arg;
	leave_flow_mode(inst, id, false);
	if (!st(inst)->failed)
		restart_rounds(inst, id, ws_now(sim));
}

/* ---- sampling -------------------------------------------------------------------- */

/* One round of a partition ends: did every flow and every queue hold still? */
static bool round_passes(struct ws_inst *inst, uint32_t id, ws_time now)
{
	struct hg_state *s = st(inst);
	const struct hg_conf *c = inst->conf;
	struct hg_part *p = &s->part[id];
	const uint32_t *flows, *ports;
	uint32_t nf = wh_parts_flows(s->parts, id, &flows);
	uint32_t np = wh_parts_ports(s->parts, id, &ports);
	bool rate_ok = nf > 0, queue_ok = true, brief_ok = true;
	for (uint32_t k = 0; k < nf; k++) {
		struct hg_slot *sl = slot_of(s, flows[k]);
		bool full = sl->n == p->sub_n && now > sl->win_t;
		if (full)
			sl->mean = (double)(sl->last_sent - sl->win_sent) * 8.0 /
				   ((double)(now - sl->win_t) / 1e12);
		if (!full || sl->hi - sl->lo >= c->eps_bw * (double)sl->line_rate)
			rate_ok = false;
		slot_window(sl, now);
	}
	double secs = (double)(now - p->win_start) / 1e12;
	for (uint32_t i = 0; i < np; i++) {
		uint32_t q = ports[i];
		if (s->qhi[q] - s->qlo[q] >= (double)c->eps_q)
			queue_ok = false;
		if (s->brief_use[q])
			brief_ok = false;
		s->qlo[q] = INFINITY;
		s->qhi[q] = -INFINITY;
		uint64_t tx = ws_port_gid_tx_bytes(inst->sim, q);
		s->tput[q] = secs > 0 ? (double)(tx - s->tx0[q]) * 8.0 / secs : 0;
		s->tx0[q] = tx;
	}
	p->win_start = now;
	s->n.failed_rate += !rate_ok;
	s->n.failed_queue += rate_ok && !queue_ok;
	s->n.failed_brief += rate_ok && queue_ok && !brief_ok;
	return rate_ok && queue_ok && brief_ok;
}

/* A sample of the partition's flows' rates and ports' queues. */
static void take_sample(struct ws_inst *inst, uint32_t id, ws_time now)
{
	struct hg_state *s = st(inst);
	struct ws_sim *sim = inst->sim;
	const uint32_t *flows, *ports;
	uint32_t nf = wh_parts_flows(s->parts, id, &flows);
	uint32_t np = wh_parts_ports(s->parts, id, &ports);
	for (uint32_t k = 0; k < nf; k++) {
		struct hg_slot *sl = slot_of(s, flows[k]);
		if (now <= sl->last_t)
			continue;
		uint64_t sent = sent_of(sim, sl->flow);
		double r = (double)(sent - sl->last_sent) * 8.0 / ((double)(now - sl->last_t) / 1e12);
		sl->lo = r < sl->lo ? r : sl->lo;
		sl->hi = r > sl->hi ? r : sl->hi;
		sl->n++;
		sl->last_sent = sent;
		sl->last_t = now;
	}
	for (uint32_t i = 0; i < np; i++) {
		uint32_t q = ports[i];
		double d = (double)ws_port_gid_queue_bytes(sim, q);
		s->qlo[q] = d < s->qlo[q] ? d : s->qlo[q];
		s->qhi[q] = d > s->qhi[q] ? d : s->qhi[q];
	}
}

/* A partition's event: a rebase or a sample; a round may end in flow mode. */
static void part_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	struct ws_inst *inst = obj;
	struct hg_state *s = st(inst);
	const struct hg_conf *c = inst->conf;
	uint32_t id = (uint32_t)arg;
	struct hg_part *p = &s->part[id];
	ws_time now = ws_now(sim);
	p->ev_on = false;
	if (s->failed)
		return;
	if (p->rebase) {
		rebase(inst, id, now);
		part_schedule(inst, id, now + p->sub);
		return;
	}
	take_sample(inst, id, now);
	if (++p->sub_n >= c->samples) {
		s->n.rounds++;
		bool pass = round_passes(inst, id, now);
		p->sub_n = 0;
		p->stable = pass ? p->stable + 1 : 0;
		s->n.rounds_passed += pass;
		if (pass && p->stable >= c->n_stable) {
			p->stable = 0;
			if (enter_flow_mode(inst, id, now) || s->failed)
				return;
		}
	}
	part_schedule(inst, id, now + p->sub);
}

/* ---- partitions ---------------------------------------------------------------------- */

static int reserve_parts(struct hg_state *s, const struct wh_change *ch)
{
	uint32_t top = 0;
	for (uint32_t i = 0; i < ch->n_born; i++)
		top = ch->born[i] + 1 > top ? ch->born[i] + 1 : top;
	if (top <= s->cap_parts)
		return WS_OK;
	uint32_t c = s->cap_parts ? s->cap_parts : 64;
	while (c < top)
		c *= 2;
	struct hg_part *p = realloc(s->part, c * sizeof *p);
	if (!p)
		return WS_ENOMEM;
	memset(p + s->cap_parts, 0, (c - s->cap_parts) * sizeof *p);
	s->part = p;
	s->cap_parts = c;
	return WS_OK;
}

/*
 * Partitions died and others were born (a flow started or finished):
 * the dead ones' events go, the born ones count their rounds from zero, a
 * rebase no sooner than their parents' would have been allowed.
 */
static void parts_changed(struct ws_inst *inst, const struct wh_change *ch, ws_time now)
{
	struct hg_state *s = st(inst);
	if (reserve_parts(s, ch)) {
		hg_oom(inst);
		return;
	}
	ws_time next = 0;
	for (uint32_t i = 0; i < ch->n_dead; i++) {
		struct hg_part *p = &s->part[ch->dead[i]];
		if (p->ev_on)
			ws_cancel(inst->sim, p->ev);
		next = p->next_rebase > next ? p->next_rebase : next;
		*p = (struct hg_part){ 0 };
	}
	for (uint32_t i = 0; i < ch->n_born; i++) {
		struct hg_part *p = &s->part[ch->born[i]];
		*p = (struct hg_part){ .live = true, .next_rebase = next };
		s->n.partitions++;
		restart_rounds(inst, ch->born[i], now);
	}
}

/* ---- flows ------------------------------------------------------------------------- */

static int reserve(struct hg_state *s, uint32_t flow)
{
	if (flow >= s->cap_flows) {
		uint32_t c = s->cap_flows ? s->cap_flows : 1024;
		while (c <= flow)
			c *= 2;
		uint32_t *so = realloc(s->slot_of, c * sizeof *so);
		if (!so)
			return WS_ENOMEM;
		for (uint32_t i = s->cap_flows; i < c; i++)
			so[i] = HG_NONE;
		s->slot_of = so;
		s->cap_flows = c;
	}
	if (s->n_slots == s->cap_slots) {
		uint32_t c = s->cap_slots ? 2 * s->cap_slots : 256;
		struct hg_slot *sl = realloc(s->slot, c * sizeof *sl);
		if (!sl)
			return WS_ENOMEM;
		s->slot = sl;
		s->cap_slots = c;
	}
	return WS_OK;
}

/*
 * Whether a flow is brief: at its path's rate it would be done before its
 * own window (a partition's is no shorter) could pass n_stable rounds and
 * leave a flow mode worth having.  A brief flow never sees a flow mode, so
 * it is kept out of the partitions (no path, no merge and split): its
 * start and finish restart the rounds of the partitions on its ports, and
 * while it runs they cannot pass a round.  It is decided before any route
 * is traced where the source's NIC is known (`line_rate`), and its ports
 * are read only while a partition exists (brief_start, track_untracked):
 * a run of brief flows costs a test and a slot per flow.
 */
static bool is_brief(const struct hg_conf *c, const struct ws_flow_info *fi,
		     uint64_t line_rate)
{
	if (!fi->path_rate)
		return false;
	ws_time w = c->window ? c->window : auto_window(fi->base_rtt, line_rate);
	double need = (double)c->n_stable * (double)w +
		      (double)(c->min_flow_mode ? c->min_flow_mode : w);
	double alone = (double)fi->bytes * 8.0 / (double)fi->path_rate * 1e12;
	return alone < need;
}

/*
 * A one-port host's line rate (its only port's), known without tracing the
 * flow's route; 0 for a host with several NIC ports (the route picks one).
 */
static uint64_t host_line_rate(const struct hg_state *s, uint32_t node)
{
	return node < s->n_nodes ? s->host_rate[node] : 0;
}

/* The flow's ports (all, for freezing) and its data path (for rates); the
 * route traced first decides briefness where the NIC was not known. */
static int slot_paths(struct ws_inst *inst, struct hg_slot *sl,
		      const struct ws_flow_info *fi, struct ws_err *err)
{
	struct ws_sim *sim = inst->sim;
	uint32_t ports[HG_MAX_PORTS], path[FR_PATH_MAX];
	uint64_t rates[FR_PATH_MAX], prates[HG_MAX_PORTS];
	uint32_t np, nd = 0;
	int rc = ws_flow_ports(sim, sl->flow, ports, prates, HG_MAX_PORTS, &np, err);
	if (rc)
		return rc;
	sl->brief = np && is_brief(inst->conf, fi, prates[0]);
	if (sl->brief) {
		sl->ports = malloc((np ? np : 1) * sizeof *sl->ports);
		if (!sl->ports)
			return ws_err_set(err, WS_ENOMEM, "out of memory");
		memcpy(sl->ports, ports, np * sizeof *ports);
		sl->n_ports = np;
		return WS_OK;
	}
	rc = fr_flow_path(sim, sl->flow, path, rates, &nd, err);
	if (rc)
		return rc;
	sl->ports = malloc((np ? np : 1) * sizeof *sl->ports);
	sl->path = malloc((nd ? nd : 1) * sizeof *sl->path);
	sl->path_rate = malloc((nd ? nd : 1) * sizeof *sl->path_rate);
	if (!sl->ports || !sl->path || !sl->path_rate)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	memcpy(sl->ports, ports, np * sizeof *ports);
	memcpy(sl->path, path, nd * sizeof *path);
	memcpy(sl->path_rate, rates, nd * sizeof *rates);
	sl->n_ports = np;
	sl->n_path = nd;
	sl->line_rate = rates[0];
	sl->base_rtt = fi->base_rtt;
	sl->share = fi->path_rate ? (double)ws_flow_lone_goodput(sim, sl->flow) /
					    (double)fi->path_rate : 1.0;
	return WS_OK;
}

static void slot_free(struct hg_slot *sl)
{
	free(sl->ports);
	free(sl->path);
	free(sl->path_rate);
}

/* Partitions in flow mode that the flow's ports touch go back to packets;
 * `restart`: every partition they touch counts its rounds again. */
static void touch_parts(struct ws_inst *inst, const struct hg_slot *sl, bool restart,
			ws_time now)
{
	struct hg_state *s = st(inst);
	const uint32_t *ids;
	uint32_t n = wh_parts_touching(s->parts, sl->ports, sl->n_ports, &ids);
	for (uint32_t i = 0; i < n && !s->failed; i++) {
		/* ids stay valid: leaving flow mode changes no partition */
		if (s->part[ids[i]].flow_mode) {
			leave_flow_mode(inst, ids[i], true);
			s->n.skip_backs++;
		}
		if (restart && !s->failed)
			restart_rounds(inst, ids[i], now);
	}
}

/* A brief flow starts or finishes (delta +1 or -1 on its ports). */
static void brief_change(struct ws_inst *inst, const struct hg_slot *sl, int delta,
			 ws_time now)
{
	struct hg_state *s = st(inst);
	for (uint32_t i = 0; i < sl->n_ports; i++)
		s->brief_use[sl->ports[i]] += (uint32_t)delta;
	touch_parts(inst, sl, true, now);
}

/* A brief flow's ports, read now (a partition exists) and counted. */
static int brief_track(struct ws_inst *inst, struct hg_slot *sl, struct ws_err *err)
{
	struct hg_state *s = st(inst);
	uint32_t ports[HG_MAX_PORTS], np;
	int rc = ws_flow_ports(inst->sim, sl->flow, ports, NULL, HG_MAX_PORTS, &np, err);
	if (rc)
		return rc;
	sl->ports = malloc((np ? np : 1) * sizeof *sl->ports);
	if (!sl->ports)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	memcpy(sl->ports, ports, np * sizeof *ports);
	sl->n_ports = np;
	sl->tracked = true;
	s->n.brief_ports_read++;
	return WS_OK;
}

/*
 * The first partition is about to form: the brief flows running untracked
 * (they started while there was none) are read and counted on their
 * ports, as if read at their start, so it passes no round while they run.
 * No partition existed since they started: nothing to restart.
 */
static int track_untracked(struct ws_inst *inst, struct ws_err *err)
{
	struct hg_state *s = st(inst);
	for (uint32_t k = 0; k < s->n_slots && s->n_untracked; k++) {
		struct hg_slot *sl = &s->slot[k];
		if (!sl->brief || sl->tracked)
			continue;
		int rc = brief_track(inst, sl, err);
		if (rc)
			return rc;
		for (uint32_t i = 0; i < sl->n_ports; i++)
			s->brief_use[sl->ports[i]]++;
		s->n_untracked--;
	}
	return WS_OK;
}

/*
 * A brief flow known from its own facts (a one-port source: its line rate
 * without a route trace).  While no partition exists nothing reads its
 * ports: a run of brief flows only costs hygra this test and a slot.
 */
static void brief_start(struct ws_inst *inst, struct hg_slot *sl, ws_time now)
{
	struct hg_state *s = st(inst);
	sl->brief = true;
	s->slot_of[sl->flow] = s->n_slots++;
	s->n.brief++;
	if (!s->n_full) {
		s->n_untracked++;
		return;
	}
	struct ws_err err;
	ws_err_clear(&err);
	if (brief_track(inst, sl, &err)) {
		hg_fail(inst, &err);
		return;
	}
	brief_change(inst, sl, 1, now);
}

static void hg_on_flow_start(struct ws_inst *inst, uint32_t flow, ws_time now)
{
	struct hg_state *s = st(inst);
	if (s->failed)
		return;
	if (reserve(s, flow)) {
		hg_oom(inst);
		return;
	}
	struct hg_slot *sl = &s->slot[s->n_slots];
	*sl = (struct hg_slot){ .flow = flow, .born = now };
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(inst->sim, flow, &fi);
	uint64_t line_rate = host_line_rate(s, fi.src);
	if (line_rate && fi.hops && is_brief(inst->conf, &fi, line_rate)) {
		brief_start(inst, sl, now);
		return;
	}
	struct ws_err err; /* cleared off the brief path only: a 1.7 KB memset */
	ws_err_clear(&err);
	if (slot_paths(inst, sl, &fi, &err)) {
		slot_free(sl);
		hg_fail(inst, &err);
		return;
	}
	if (sl->brief) { /* a several-port source: known from its route */
		sl->tracked = true;
		s->n.brief_ports_read++;
		s->slot_of[flow] = s->n_slots++;
		s->n.brief++;
		brief_change(inst, sl, 1, now);
		return;
	}
	if (s->n_untracked && track_untracked(inst, &err)) {
		slot_free(sl);
		hg_fail(inst, &err);
		return;
	}
	touch_parts(inst, sl, false, now);
	struct wh_change ch;
	if (s->failed || wh_parts_add(s->parts, flow, sl->ports, sl->n_ports, &ch)) {
		slot_free(sl);
		if (!s->failed)
			hg_oom(inst);
		return;
	}
	s->slot_of[flow] = s->n_slots++;
	s->n_full++;
	parts_changed(inst, &ch, now);
}

static void slot_drop(struct hg_state *s, uint32_t flow, ws_time now)
{
	uint32_t k = s->slot_of[flow], last = --s->n_slots;
	s->n.flow_ps += now - s->slot[k].born;
	slot_free(&s->slot[k]);
	if (k != last) {
		s->slot[k] = s->slot[last];
		s->slot_of[s->slot[k].flow] = k;
	}
	s->slot_of[flow] = HG_NONE;
}

static void hg_on_flow_finish(struct ws_inst *inst, uint32_t flow, ws_time now)
{
	struct hg_state *s = st(inst);
	if (s->failed || flow >= s->cap_flows || s->slot_of[flow] == HG_NONE)
		return;
	const struct hg_slot *sl = &s->slot[s->slot_of[flow]];
	if (sl->brief) {
		if (sl->tracked)
			brief_change(inst, sl, -1, now);
		else
			s->n_untracked--;
		slot_drop(s, flow, now);
		return;
	}
	uint32_t id = wh_parts_of(s->parts, flow);
	if (id != WH_NONE && s->part[id].flow_mode) /* not expected: last bytes go in packets */
		leave_flow_mode(inst, id, true);
	struct wh_change ch;
	if (s->failed || wh_parts_remove(s->parts, flow, &ch)) {
		if (!s->failed)
			hg_oom(inst);
		return;
	}
	slot_drop(s, flow, now);
	s->n_full--;
	parts_changed(inst, &ch, now);
}

/* ---- lifecycle ------------------------------------------------------------------------ */

/* Per-port arrays once the fabric is known. */
static int hg_start(struct ws_inst *inst, struct ws_err *err)
{
	struct hg_state *s = st(inst);
	const struct ws_fabric *fab = ws_sim_fabric(inst->sim);
	s->n_gports = fab->n_ports;
	size_t n = s->n_gports ? s->n_gports : 1;
	s->qlo = calloc(n, sizeof *s->qlo);
	s->qhi = calloc(n, sizeof *s->qhi);
	s->tx0 = calloc(n, sizeof *s->tx0);
	s->tput = calloc(n, sizeof *s->tput);
	s->pfloor = calloc(n, sizeof *s->pfloor);
	s->brief_use = calloc(n, sizeof *s->brief_use);
	s->n_nodes = fab->n_nodes;
	s->host_rate = calloc(fab->n_nodes ? fab->n_nodes : 1, sizeof *s->host_rate);
	for (uint32_t h = 0; s->host_rate && h < fab->n_hosts; h++) {
		uint32_t node = fab->hosts[h];
		struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
		if (fab->nodes[node].n_ports == 1 && !ws_port_info(inst->sim, node, 0, &pi))
			s->host_rate[node] = pi.rate;
	}
	s->parts = wh_parts_new();
	s->utilization = ws_cc_utilization(inst->sim);
	/* each partition samples itself, only while at packet level: no
	 * sample_period for the kernel */
	const struct hg_conf *c = inst->conf;
	s->fabric_window = c->window;
	if (!s->fabric_window) {
		ws_time rtt = ws_sim_max_base_rtt(inst->sim);
		s->fabric_window = 8 * (rtt ? rtt : 10 * WS_US);
	}
	s->min_flow_mode = c->min_flow_mode;
	if (!s->qlo || !s->qhi || !s->tx0 || !s->tput || !s->pfloor || !s->brief_use || !s->host_rate || !s->parts)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	return WS_OK;
}

static void hg_fini(struct ws_inst *inst)
{
	struct hg_state *s = st(inst);
	for (uint32_t k = 0; k < s->n_slots; k++)
		slot_free(&s->slot[k]);
	for (uint32_t i = 0; i < s->cap_parts; i++)
		clear_frozen(&s->part[i]);
	free(s->part);
	free(s->slot);
	free(s->slot_of);
	free(s->qlo);
	free(s->qhi);
	free(s->tx0);
	free(s->tput);
	free(s->pfloor);
	free(s->brief_use);
	free(s->host_rate);
	fr_free(s->net);
	if (s->parts)
		wh_parts_free(s->parts);
	memset(s, 0, sizeof *s);
}

static void hg_report(struct ws_inst *inst, struct ws_json *j)
{
	struct hg_state *s = st(inst);
	const struct hg_counters *n = &s->n;
	struct ws_sim_stats ss = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(inst->sim, &ss);
	ws_json_u64(j, "window_ps", s->fabric_window);
	ws_json_u64(j, "events_executed", ss.events);
	ws_json_u64(j, "events_skipped", fr_skip_events(&s->skip, inst->sim));
	ws_json_u64(j, "partitions", n->partitions);
	ws_json_u64(j, "rounds", n->rounds);
	ws_json_u64(j, "rounds_passed", n->rounds_passed);
	ws_json_u64(j, "rounds_failed_rate", n->failed_rate);
	ws_json_u64(j, "rounds_failed_queue", n->failed_queue);
	ws_json_u64(j, "rounds_failed_brief", n->failed_brief);
	ws_json_u64(j, "brief_flows", n->brief);
	ws_json_u64(j, "brief_ports_read", n->brief_ports_read);
	ws_json_u64(j, "rebases", n->rebases);
	ws_json_u64(j, "flow_mode_entries", n->entries);
	ws_json_u64(j, "flow_mode_too_short", n->too_short);
	ws_json_u64(j, "skip_backs", n->skip_backs);
	ws_json_u64(j, "flow_mode_ps", n->flow_mode_ps);
	ws_json_u64(j, "flow_mode_flow_ps", n->flow_mode_flow_ps);
	ws_json_u64(j, "flow_ps", n->flow_ps);
	ws_json_u64(j, "skipped_bytes", s->skip.bytes);
}

static const struct ws_accel_ops hg_ops = {
	.size = sizeof(struct ws_accel_ops),
	.start = hg_start,
	.on_flow_start = hg_on_flow_start,
	.on_flow_finish = hg_on_flow_finish,
	.report = hg_report,
};

static const struct ws_plugin hg_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ACCEL, struct ws_accel_ops),
	.name = "hygra",
	.version = "1.1.0",
	.summary = "hybrid granularity: packet level while unsteady, flow level (measured "
		   "rates, frozen queues) in each partition of the network while it is steady",
	.params = hg_params,
	.conf_size = sizeof(struct hg_conf),
	.state_size = sizeof(struct hg_state),
	.fini = hg_fini,
	.ops = &hg_ops,
};

WS_PLUGIN_EXPORT(hg_plugin)
