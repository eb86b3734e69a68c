/* SPDX-License-Identifier: MIT */
/*
 * hygra: hybrid granularity, after HyGra (packet-level simulation while the
 * network is unsteady, a flow-level model while it is steady).
 *
 * Packet mode (the default).  Every `window` the plugin takes `samples`
 * measurements: each running flow's sending rate (payload bytes over the
 * sub-interval) and each in-use port's queue depth.  A round passes when
 * every flow's rates over the window spread less than eps_bw x its line
 * rate and then every port's queue depths less than eps_q.  After n_stable
 * passing rounds in a row (no flow having started or finished in between)
 * the whole network switches to flow mode.
 *
 * Flow mode.  Each flow keeps its measured packet-level rate (its mean over
 * the last window) as a floor and receives a share of the capacity left on
 * its path in proportion to its weight (`weight`: its measured rate, or
 * equal), by the max-min solver fluid uses (flowrate/solver.c).  What is
 * left on a link is measured as well: its rate times the CC's declared
 * utilization, less the wire bytes it carried over the last window (ACKs
 * of the flows going the other way included: about 5 % of a link under a
 * per-packet ACK, which a capacity model alone would hand out).  The ports in use and
 * the running flows are frozen (ws_freeze): queues keep their packets and
 * their bytes keep counting against the shared buffers.  Flow mode lasts
 * until the first flow would have sent all but its last byte; it also ends
 * (unlike the paper) as soon as a flow starts on a frozen port: training
 * DAGs create flows on completions.  Then every flow is advanced by rate x
 * elapsed bytes without packets (ws_flow_skip) and everything is thawed
 * shifted by the elapsed time.  The last bytes go at packet level, through
 * the queues restored as they were: each flow's completion carries the
 * queuing delay of its path's queues, and the switch back finds the queue
 * depths recorded at entry (the predictor: the paper trains a model on
 * the queue history; entry depth is its transparent stand-in, exact in a
 * steady state where the queue range is below eps_q).
 *
 * Where this differs from the published method: the switch-back on a flow
 * start (above); the queue predictor; the whole network is switched, as in
 * the paper, but flows starting on ports that are not frozen run at packet
 * level beside a frozen network.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <warpsim/warpsim.h>

#include "../flowrate/path.h"
#include "../flowrate/skipcount.h"
#include "../flowrate/solver.h"

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
		      "sampling window (one round); 0: 8 x the fabric's largest base RTT"),
	WS_PARAM_UINT("samples", struct hg_conf, samples, "4", "2", "64",
		      "rate and queue samples per window (their range is tested)"),
	WS_PARAM_FLOAT("eps_bw", struct hg_conf, eps_bw, "0.05", "0", "1",
		       "a round passes when every flow's rate samples spread less than "
		       "eps_bw x its line rate..."),
	WS_PARAM_SIZE("eps_q", struct hg_conf, eps_q, "8KB", "0", "1GB",
		      "...and every in-use port's queue samples less than eps_q bytes"),
	WS_PARAM_UINT("n_stable", struct hg_conf, n_stable, "2", "1", "1000",
		      "passing rounds in a row before flow mode"),
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
	uint64_t line_rate;
	uint64_t last_sent;       /* payload bytes at the last sample */
	ws_time last_t;
	uint64_t win_sent;        /* at the window's start */
	ws_time win_t;
	double lo, hi;            /* rate samples this window */
	uint32_t n;               /* samples this window */
	double mean;              /* bps over the last complete window */
	bool measured;            /* mean holds a full window */
	uint32_t *ports, n_ports; /* data and ACK ports (frozen in flow mode) */
	uint32_t *path, n_path;   /* data ports, then their rates */
	uint64_t *path_rate;
	double share;             /* payload / wire bytes of a full packet: the
				   * sampled (payload) rates' view of a link */
};

struct hg_state {
	struct hg_slot *slot;
	uint32_t n_slots, cap_slots;
	uint32_t *slot_of;        /* flow -> slot */
	uint32_t cap_flows;
	/* ports in use: count of flows per port, the list, queue ranges */
	uint32_t n_gports;
	uint32_t *use, *pos;      /* per global port; pos in `inuse` */
	uint32_t *inuse, n_inuse;
	double *qlo, *qhi;        /* per global port */
	uint64_t *tx0;            /* per port: wire bytes sent at the window's start */
	double *tput;             /* per port: wire bps over the last window */
	double *pfloor;           /* per port: scratch, the floors crossing it */
	ws_time win_start;
	uint8_t *frozen_port;
	/* rounds */
	ws_time window, sub, min_flow_mode;
	uint32_t sub_n;           /* samples taken this window */
	uint32_t stable;          /* passing rounds in a row */
	bool rebase;              /* the next sample opens a new window */
	bool rebase_on;           /* a rebase event is pending (restart_rounds) */
	struct ws_evh rebase_ev;
	ws_time rebase_t;         /* of the last rebase */
	double utilization;       /* the CC's declared share of a bottleneck */
	/* flow mode */
	bool flow_mode;
	ws_time t0, dt;
	struct ws_evh thaw_ev;
	uint32_t *fz_ports, n_fz_ports;
	uint32_t *fz_flows, n_fz_flows;
	double *fz_rate;
	struct fr_net *net;
	struct ws_evh sample_ev;  /* the next sample, while flows run in packets */
	bool sample_on;
	bool failed;
	/* counters */
	uint64_t rounds, rounds_passed, entries, skip_backs, too_short, rebases;
	uint64_t flow_mode_ps;
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

/* ---- windows -------------------------------------------------------------- */

static void slot_window(struct hg_slot *sl, ws_time now)
{
	sl->win_sent = sl->last_sent;
	sl->win_t = now;
	sl->n = 0;
	sl->lo = INFINITY;
	sl->hi = -INFINITY;
}

static void rebase(struct ws_inst *inst, ws_time now);

static void rebase_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_inst *inst = obj;
	struct hg_state *s = st(inst);
	s->rebase_on = false;
	if (!s->flow_mode && !s->failed)
		rebase(inst, ws_now(sim));
}

/*
 * A new window for everyone; the rounds count again from zero.  Re-reading
 * every running flow and port at each flow start and finish made hygra
 * O(flows x running flows) (a collective starts and finishes thousands of
 * flows while as many others run), so the re-reading (rebase) is shared:
 * once for all the flows starting or finishing at one instant (an event
 * after them), and at most once a sub-interval besides; a restart within
 * a sub-interval of the last rebase waits for the next sample, which then
 * opens the window.  The rebases thus cost at most what the samples cost.
 */
static void restart_rounds(struct ws_inst *inst, ws_time now)
{
	struct hg_state *s = st(inst);
	s->sub_n = 0;
	s->stable = 0;
	if (s->rebase_on)
		return;
	if (s->rebases && now < s->rebase_t + s->sub) {
		s->rebase = true;
		return;
	}
	s->rebase_ev = ws_schedule(inst->sim, now, rebase_event, inst, 0);
	s->rebase_on = true;
}

static void rebase(struct ws_inst *inst, ws_time now)
{
	struct hg_state *s = st(inst);
	s->rebase = false;
	s->rebases++;
	s->rebase_t = now;
	for (uint32_t k = 0; k < s->n_slots; k++) {
		struct hg_slot *sl = &s->slot[k];
		sl->last_sent = sent_of(inst->sim, sl->flow);
		sl->last_t = now;
		sl->measured = false;
		slot_window(sl, now);
	}
	for (uint32_t i = 0; i < s->n_inuse; i++) {
		uint32_t p = s->inuse[i];
		s->qlo[p] = INFINITY;
		s->qhi[p] = -INFINITY;
		s->tx0[p] = ws_port_gid_tx_bytes(inst->sim, p);
	}
	s->win_start = now;
	s->sub_n = 0;
	s->stable = 0;
}

/* ---- ports in use ------------------------------------------------------------ */

static void port_use(struct hg_state *s, uint32_t p)
{
	if (s->use[p]++ == 0) {
		s->pos[p] = s->n_inuse;
		s->inuse[s->n_inuse++] = p;
		s->qlo[p] = INFINITY;
		s->qhi[p] = -INFINITY;
	}
}

static void port_unuse(struct hg_state *s, uint32_t p)
{
	if (--s->use[p] == 0) {
		uint32_t i = s->pos[p], last = s->inuse[--s->n_inuse];
		s->inuse[i] = last;
		s->pos[last] = i;
	}
}

/* ---- sampling while flows run ------------------------------------------------------ */

static void sample_event(struct ws_sim *sim, void *obj, uint64_t arg);

/*
 * Samples run while flows run at packet level, and only then: the plugin
 * schedules them itself (its sample_period is 0 for the kernel) on the
 * grid of multiples of the sub-interval, none in flow mode or while no
 * flow runs, so a run with no flows costs no event and its sim_time is
 * its flows' own.  (`after`: from a sample, the next point of the grid;
 * otherwise this instant's, if it is one.)
 */
static void sample_sync(struct ws_inst *inst, bool after)
{
	struct hg_state *s = st(inst);
	bool want = s->n_slots && !s->flow_mode && !s->failed;
	if (want && !s->sample_on) {
		ws_time now = ws_now(inst->sim);
		ws_time at = after ? (now / s->sub + 1) * s->sub
				   : (now + s->sub - 1) / s->sub * s->sub;
		if (at < s->sub) /* the grid starts one interval in */
			at = s->sub;
		s->sample_ev = ws_schedule(inst->sim, at, sample_event, inst, 0);
		s->sample_on = true;
	} else if (!want && s->sample_on) {
		ws_cancel(inst->sim, s->sample_ev);
		s->sample_on = false;
	}
}

/* ---- flow mode ----------------------------------------------------------------- */

static void thaw_event(struct ws_sim *sim, void *obj, uint64_t arg);

static void clear_frozen(struct hg_state *s)
{
	for (uint32_t i = 0; i < s->n_fz_ports; i++)
		s->frozen_port[s->fz_ports[i]] = 0;
	free(s->fz_ports);
	free(s->fz_flows);
	free(s->fz_rate);
	s->fz_ports = s->fz_flows = NULL;
	s->fz_rate = NULL;
	s->n_fz_ports = s->n_fz_flows = 0;
	s->flow_mode = false;
}

/*
 * Flow-mode rates: measured floors plus a weighted share of what is left.
 * What is left on a link is measured too: its rate (times the CC's
 * utilization) less the wire bytes it carried over the last window, ACKs and
 * other flows' control traffic included; in payload terms, as the floors.
 */
static int flow_rates(struct ws_inst *inst)
{
	struct hg_state *s = st(inst);
	const struct hg_conf *c = inst->conf;
	for (uint32_t i = 0; i < s->n_fz_flows; i++) {
		const struct hg_slot *sl = &s->slot[s->slot_of[s->fz_flows[i]]];
		double cap = (double)sl->line_rate * sl->share * s->utilization;
		for (uint32_t k = 0; k < sl->n_path; k++)
			s->pfloor[sl->path[k]] += fmin(sl->mean, cap);
	}
	for (uint32_t i = 0; i < s->n_fz_flows; i++) {
		const struct hg_slot *sl = &s->slot[s->slot_of[s->fz_flows[i]]];
		double caps[FR_PATH_MAX];
		for (uint32_t k = 0; k < sl->n_path; k++) {
			uint32_t p = sl->path[k];
			double idle = (double)sl->path_rate[k] * s->utilization - s->tput[p];
			caps[k] = s->pfloor[p] + fmax(idle, 0) * sl->share;
		}
		double cap = (double)sl->line_rate * sl->share * s->utilization;
		double floor = fmin(sl->mean, cap);
		/* by rate: a stalled flow still gets a sliver (weights must be > 0) */
		double w = c->weight == HG_WEIGHT_EQUAL ? 1.0 : fmax(floor / cap, 1e-3);
		if (fr_add(s->net, sl->flow, sl->path, caps, sl->n_path, cap, w, floor))
			return WS_ENOMEM;
	}
	for (uint32_t i = 0; i < s->n_fz_flows; i++) {
		const struct hg_slot *sl = &s->slot[s->slot_of[s->fz_flows[i]]];
		for (uint32_t k = 0; k < sl->n_path; k++)
			s->pfloor[sl->path[k]] = 0;
	}
	const uint32_t *ids;
	if (fr_solve(s->net, true, &ids) < 0)
		return WS_ENOMEM;
	for (uint32_t i = 0; i < s->n_fz_flows; i++) {
		s->fz_rate[i] = fr_rate(s->net, s->fz_flows[i]);
		fr_remove(s->net, s->fz_flows[i]);
	}
	fr_solve(s->net, false, &ids); /* empties the change list */
	return WS_OK;
}

/* The frozen set: every running flow and the ports they use. */
static int copy_sets(struct hg_state *s)
{
	s->fz_ports = malloc((s->n_inuse ? s->n_inuse : 1) * sizeof *s->fz_ports);
	s->fz_flows = malloc((s->n_slots ? s->n_slots : 1) * sizeof *s->fz_flows);
	s->fz_rate = calloc(s->n_slots ? s->n_slots : 1, sizeof *s->fz_rate);
	if (!s->fz_ports || !s->fz_flows || !s->fz_rate)
		return WS_ENOMEM;
	memcpy(s->fz_ports, s->inuse, s->n_inuse * sizeof *s->inuse);
	s->n_fz_ports = s->n_inuse;
	for (uint32_t k = 0; k < s->n_slots; k++)
		s->fz_flows[k] = s->slot[k].flow;
	s->n_fz_flows = s->n_slots;
	return WS_OK;
}

static void enter_flow_mode(struct ws_inst *inst, ws_time now)
{
	struct hg_state *s = st(inst);
	struct ws_sim *sim = inst->sim;
	if (copy_sets(s) || flow_rates(inst)) {
		clear_frozen(s);
		hg_oom(inst);
		return;
	}
	/* until the first flow would have sent all but its last byte */
	double dt = INFINITY;
	for (uint32_t i = 0; i < s->n_fz_flows; i++) {
		double r = s->fz_rate[i];
		uint64_t unsent = ws_flow_unsent(sim, s->fz_flows[i]);
		double t = r > 0 && unsent > 1 ? (double)(unsent - 1) * 8.0 / r * 1e12 : 0;
		dt = t < dt ? t : dt;
	}
	if (!(dt >= (double)s->min_flow_mode)) {
		s->too_short++;
		clear_frozen(s);
		return;
	}
	struct ws_freeze_set set = { WS_INIT_SIZE(struct ws_freeze_set),
				     .ports = s->fz_ports, .n_ports = s->n_fz_ports,
				     .flows = s->fz_flows, .n_flows = s->n_fz_flows };
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_freeze(sim, &set, &err)) {
		clear_frozen(s);
		hg_fail(inst, &err);
		return;
	}
	for (uint32_t i = 0; i < s->n_fz_ports; i++)
		s->frozen_port[s->fz_ports[i]] = 1;
	s->flow_mode = true;
	s->t0 = now;
	s->dt = (ws_time)dt;
	s->thaw_ev = ws_schedule(sim, now + s->dt, thaw_event, inst, 0);
	s->entries++;
	sample_sync(inst, false);
}

/* Back to packets: flows advance by what they sent in flow mode. */
static void leave_flow_mode(struct ws_inst *inst, bool early)
{
	struct hg_state *s = st(inst);
	struct ws_sim *sim = inst->sim;
	if (!s->flow_mode)
		return;
	ws_time now = ws_now(sim);
	ws_time shift = now - s->t0;
	if (early)
		ws_cancel(sim, s->thaw_ev);
	struct ws_err err;
	ws_err_clear(&err);
	for (uint32_t i = 0; i < s->n_fz_flows; i++) {
		uint32_t f = s->fz_flows[i];
		uint64_t want = (uint64_t)(s->fz_rate[i] * ((double)shift / 1e12) / 8.0);
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
				     .ports = s->fz_ports, .n_ports = s->n_fz_ports,
				     .flows = s->fz_flows, .n_flows = s->n_fz_flows };
	if (ws_thaw(sim, &set, shift, &err)) {
		hg_fail(inst, &err);
		return;
	}
	s->flow_mode_ps += shift;
	clear_frozen(s);
	restart_rounds(inst, now);
	sample_sync(inst, false);
}

static void thaw_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)sim;
	(void)arg;
	leave_flow_mode(obj, false);
}

/* ---- sampling -------------------------------------------------------------------- */

/* One round ends: did every flow and every queue hold still? */
static bool round_passes(struct ws_inst *inst, ws_time now)
{
	struct hg_state *s = st(inst);
	const struct hg_conf *c = inst->conf;
	bool pass = s->n_slots > 0;
	for (uint32_t k = 0; k < s->n_slots; k++) {
		struct hg_slot *sl = &s->slot[k];
		bool full = sl->n == s->sub_n && now > sl->win_t;
		sl->measured = full;
		if (full)
			sl->mean = (double)(sl->last_sent - sl->win_sent) * 8.0 /
				   ((double)(now - sl->win_t) / 1e12);
		if (!full || sl->hi - sl->lo >= c->eps_bw * (double)sl->line_rate)
			pass = false;
		slot_window(sl, now);
	}
	double secs = (double)(now - s->win_start) / 1e12;
	for (uint32_t i = 0; i < s->n_inuse; i++) {
		uint32_t p = s->inuse[i];
		if (s->qhi[p] - s->qlo[p] >= (double)c->eps_q)
			pass = false;
		s->qlo[p] = INFINITY;
		s->qhi[p] = -INFINITY;
		uint64_t tx = ws_port_gid_tx_bytes(inst->sim, p);
		s->tput[p] = secs > 0 ? (double)(tx - s->tx0[p]) * 8.0 / secs : 0;
		s->tx0[p] = tx;
	}
	s->win_start = now;
	return pass;
}

static void hg_on_sample(struct ws_inst *inst, ws_time now)
{
	struct hg_state *s = st(inst);
	const struct hg_conf *c = inst->conf;
	if (s->failed || s->flow_mode)
		return;
	if (s->rebase) {
		rebase(inst, now);
		return;
	}
	struct ws_sim *sim = inst->sim;
	for (uint32_t k = 0; k < s->n_slots; k++) {
		struct hg_slot *sl = &s->slot[k];
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
	for (uint32_t i = 0; i < s->n_inuse; i++) {
		uint32_t p = s->inuse[i];
		double q = (double)ws_port_gid_queue_bytes(sim, p);
		s->qlo[p] = q < s->qlo[p] ? q : s->qlo[p];
		s->qhi[p] = q > s->qhi[p] ? q : s->qhi[p];
	}
	if (++s->sub_n < c->samples)
		return;
	s->rounds++;
	bool pass = round_passes(inst, now);
	s->sub_n = 0;
	if (!pass) {
		s->stable = 0;
		return;
	}
	s->rounds_passed++;
	if (++s->stable >= c->n_stable) {
		enter_flow_mode(inst, now);
		s->stable = 0;
	}
}

static void sample_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_inst *inst = obj;
	st(inst)->sample_on = false;
	hg_on_sample(inst, ws_now(sim));
	sample_sync(inst, true);
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

/* The flow's ports (all, for freezing) and its data path (for rates). */
static int slot_paths(struct ws_sim *sim, struct hg_slot *sl, struct ws_err *err)
{
	uint32_t ports[HG_MAX_PORTS], path[FR_PATH_MAX];
	uint64_t rates[FR_PATH_MAX];
	uint32_t np, nd;
	int rc = ws_flow_ports(sim, sl->flow, ports, NULL, HG_MAX_PORTS, &np, err);
	if (!rc)
		rc = fr_flow_path(sim, sl->flow, path, rates, &nd, err);
	if (rc)
		return rc;
	sl->ports = malloc(np * sizeof *sl->ports);
	sl->path = malloc(nd * sizeof *sl->path);
	sl->path_rate = malloc(nd * sizeof *sl->path_rate);
	if (!sl->ports || !sl->path || !sl->path_rate)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	memcpy(sl->ports, ports, np * sizeof *ports);
	memcpy(sl->path, path, nd * sizeof *path);
	memcpy(sl->path_rate, rates, nd * sizeof *rates);
	sl->n_ports = np;
	sl->n_path = nd;
	sl->line_rate = rates[0];
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, sl->flow, &fi);
	sl->share = fi.path_rate ? (double)ws_flow_lone_goodput(sim, sl->flow) /
					   (double)fi.path_rate : 1.0;
	return WS_OK;
}

static bool touches_frozen(const struct hg_state *s, const struct hg_slot *sl)
{
	for (uint32_t i = 0; i < sl->n_ports; i++)
		if (s->frozen_port[sl->ports[i]])
			return true;
	return false;
}

static void hg_on_flow_start(struct ws_inst *inst, uint32_t flow, ws_time now)
{
	struct hg_state *s = st(inst);
	if (s->failed)
		return;
	struct ws_err err;
	ws_err_clear(&err);
	if (reserve(s, flow)) {
		hg_oom(inst);
		return;
	}
	struct hg_slot *sl = &s->slot[s->n_slots];
	*sl = (struct hg_slot){ .flow = flow };
	if (slot_paths(inst->sim, sl, &err)) {
		free(sl->ports);
		free(sl->path);
		free(sl->path_rate);
		hg_fail(inst, &err);
		return;
	}
	if (s->flow_mode && touches_frozen(s, sl)) {
		leave_flow_mode(inst, true);
		s->skip_backs++;
	}
	s->slot_of[flow] = s->n_slots++;
	for (uint32_t i = 0; i < sl->n_ports; i++)
		port_use(s, sl->ports[i]);
	/* the network changed: a new round from here */
	restart_rounds(inst, now);
	sample_sync(inst, false);
}

static void hg_on_flow_finish(struct ws_inst *inst, uint32_t flow, ws_time now)
{
	struct hg_state *s = st(inst);
	if (s->failed || flow >= s->cap_flows || s->slot_of[flow] == HG_NONE)
		return;
	uint32_t k = s->slot_of[flow], last = --s->n_slots;
	struct hg_slot *sl = &s->slot[k];
	for (uint32_t i = 0; i < sl->n_ports; i++)
		port_unuse(s, sl->ports[i]);
	free(sl->ports);
	free(sl->path);
	free(sl->path_rate);
	if (k != last) {
		s->slot[k] = s->slot[last];
		s->slot_of[s->slot[k].flow] = k;
	}
	s->slot_of[flow] = HG_NONE;
	if (!s->flow_mode)
		restart_rounds(inst, now);
	sample_sync(inst, false);
}

/* ---- lifecycle ------------------------------------------------------------------------ */

static ws_time hg_sample_period(struct ws_inst *inst)
{
	const struct hg_conf *c = inst->conf;
	struct hg_state *s = st(inst);
	s->window = c->window;
	if (!s->window) {
		ws_time rtt = ws_sim_max_base_rtt(inst->sim);
		s->window = 8 * (rtt ? rtt : 10 * WS_US);
	}
	s->sub = s->window / c->samples;
	if (!s->sub)
		s->sub = 1;
	s->min_flow_mode = c->min_flow_mode ? c->min_flow_mode : s->window;
	return 0; /* sampled by sample_sync, only while flows run in packets */
}

/* Per-port arrays once the fabric is known. */
static int hg_start(struct ws_inst *inst, struct ws_err *err)
{
	struct hg_state *s = st(inst);
	const struct ws_fabric *fab = ws_sim_fabric(inst->sim);
	s->n_gports = fab->n_ports;
	size_t n = s->n_gports ? s->n_gports : 1;
	s->use = calloc(n, sizeof *s->use);
	s->pos = calloc(n, sizeof *s->pos);
	s->inuse = calloc(n, sizeof *s->inuse);
	s->qlo = calloc(n, sizeof *s->qlo);
	s->qhi = calloc(n, sizeof *s->qhi);
	s->frozen_port = calloc(n, 1);
	s->tx0 = calloc(n, sizeof *s->tx0);
	s->tput = calloc(n, sizeof *s->tput);
	s->pfloor = calloc(n, sizeof *s->pfloor);
	s->net = fr_new(s->n_gports);
	s->utilization = ws_cc_utilization(inst->sim);
	if (!s->use || !s->pos || !s->inuse || !s->qlo || !s->qhi || !s->frozen_port ||
	    !s->tx0 || !s->tput || !s->pfloor || !s->net)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	return WS_OK;
}

static void hg_fini(struct ws_inst *inst)
{
	struct hg_state *s = st(inst);
	for (uint32_t k = 0; k < s->n_slots; k++) {
		free(s->slot[k].ports);
		free(s->slot[k].path);
		free(s->slot[k].path_rate);
	}
	free(s->fz_ports);
	free(s->fz_flows);
	free(s->fz_rate);
	free(s->slot);
	free(s->slot_of);
	free(s->use);
	free(s->pos);
	free(s->inuse);
	free(s->qlo);
	free(s->qhi);
	free(s->frozen_port);
	free(s->tx0);
	free(s->tput);
	free(s->pfloor);
	fr_free(s->net);
	memset(s, 0, sizeof *s);
}

static void hg_report(struct ws_inst *inst, struct ws_json *j)
{
	struct hg_state *s = st(inst);
	struct ws_sim_stats ss = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(inst->sim, &ss);
	ws_json_u64(j, "window_ps", s->window);
	ws_json_u64(j, "events_executed", ss.events);
	ws_json_u64(j, "events_skipped", fr_skip_events(&s->skip, inst->sim));
	ws_json_u64(j, "rounds", s->rounds);
	ws_json_u64(j, "rounds_passed", s->rounds_passed);
	ws_json_u64(j, "rebases", s->rebases);
	ws_json_u64(j, "flow_mode_entries", s->entries);
	ws_json_u64(j, "flow_mode_too_short", s->too_short);
	ws_json_u64(j, "skip_backs", s->skip_backs);
	ws_json_u64(j, "flow_mode_ps", s->flow_mode_ps);
	ws_json_u64(j, "skipped_bytes", s->skip.bytes);
}

static const struct ws_accel_ops hg_ops = {
	.size = sizeof(struct ws_accel_ops),
	.start = hg_start,
	.on_flow_start = hg_on_flow_start,
	.on_flow_finish = hg_on_flow_finish,
	.sample_period = hg_sample_period,
	.on_sample = hg_on_sample,
	.report = hg_report,
};

static const struct ws_plugin hg_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ACCEL, struct ws_accel_ops),
	.name = "hygra",
	.version = "1.0.0",
	.summary = "hybrid granularity: packet level while unsteady, flow level (measured "
		   "rates, frozen queues) while the whole network is steady",
	.params = hg_params,
	.conf_size = sizeof(struct hg_conf),
	.state_size = sizeof(struct hg_state),
	.fini = hg_fini,
	.ops = &hg_ops,
};

WS_PLUGIN_EXPORT(hg_plugin)
