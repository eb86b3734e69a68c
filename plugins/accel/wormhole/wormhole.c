/* SPDX-License-Identifier: MIT */
/*
 * wormhole: an acceleration strategy that skips the packet-level simulation
 * of flows while they are steady and replays known transients from memory,
 * after the technique published for LLM training traffic (steady-state
 * fast-forwarding with memoization of contention transients).
 *
 * Partitions.  Flows whose data packets share an egress port are in one
 * partition (partition.c): each partition can be skipped on its own.  ACKs
 * are a known load, not a coupling: a frozen flow's ACK load is reserved
 * on the ports its ACKs cross (ws_port_add_load), a lone flow's rate is
 * its path's goodput less the ACK load there, and freezes keep ports
 * running (WS_FREEZE_FLOWS_ONLY) so other flows' ACKs pass.
 *
 * Steady state.  Every `interval` each running flow's sending rate is
 * sampled (bytes sent over the interval); a flow is steady when its last
 * `window` samples spread less than `theta` of their mean, a partition
 * when all its flows are (and, with `queue_check`, its ports' queue total
 * too).  A flow just out of a memoized transient is known to be steady:
 * its second sample is enough.
 *
 * Fast-forward.  A steady partition is frozen (ws_freeze: its ports stop
 * dequeuing, their packets keep their place in the shared buffers, its
 * flows' timers are parked) for dt, the time until its first flow would
 * have sent all but its last packet at its mean rate (less `guard`), the
 * earliest interrupt: that flow then finishes at packet level, its last
 * packet and the ACKs of what was in flight.  When dt has passed, each
 * flow is advanced by rate x dt bytes without packets (ws_flow_skip) and
 * everything the partition owns is thawed shifted by dt (sequence
 * numbers, pacing, timers, CC timestamps consistent).  A flow that starts
 * on a port of a frozen partition (workloads create flows when others
 * finish, so starts cannot be known in advance) thaws it first, at that
 * moment, with the bytes it really had time to send: a skip-back.
 *
 * Memoization.  When a partition forms or changes, its flow conflict graph
 * (flows labelled with their rates quantized to `memo_quantum` of line
 * rate; edges between flows sharing ports, weighted by how many; the CC,
 * its parameters and the link rates as context) is looked up (memo.c).  A
 * miss records the transient until the partition is steady: its duration,
 * each flow's bytes and end rate.  A hit skips it: the partition is frozen
 * for the recorded duration, then its flows are advanced by the recorded
 * bytes and moved on to the recorded rates (the CC's set_rate), steady.
 * Episodes: a partition whose flows all started together is recorded until
 * its first flow finishes (keyed by rates and bytes left too) and replayed
 * on a match.  `memo_db` keeps the table across runs.
 *
 * Back-off.  Lookups that keep missing pause the memo (exponentially), and
 * flows that keep finishing without a skip switch tracking off for a while:
 * the accelerator never costs much more than it saves.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <warpsim/warpsim.h>

#include <xxhash.h>

#include "../flowrate/skipcount.h"
#include "../flowrate/solver.h"
#include "memo.h"
#include "partition.h"

#define WH_MAX_PORTS 128  /* ports of one flow (data and ACK paths) */
#define WH_MEMO_MAX 512   /* flows of a partition worth a conflict graph */

/* What lone flows on one path, of one size class, taught (try_lone_learnt). */
struct wh_learnt {
	uint64_t path;     /* their data and ACK ports (path_key) */
	uint64_t size;     /* their size class (quantize_bytes) */
	uint32_t n;        /* flows that taught it; 0: a free entry */
	double share;      /* their mean effective goodput / lone_rate() */
	double cc_share;   /* their mean CC rate at the end / line rate */
};

struct wh_conf {
	double theta;
	uint64_t window;
	ws_time interval;
	ws_time guard;
	ws_time min_skip;
	bool queue_check;
	double queue_theta;
	bool memo;
	const char *memo_db;
	double memo_quantum;
	double min_share;
	bool lone;
	ws_time lone_min;
	bool episodes;
	bool flow_model;
	ws_time flow_model_max;
	bool reskip;
	bool model_cc_cap;
	ws_time episode_min;
	bool replay_skip;
};

static const struct ws_param wh_params[] = {
	WS_PARAM_FLOAT("theta", struct wh_conf, theta, "0.05", "0", "10",
		       "a flow is steady when its last `window` rate samples spread less than theta x their mean"),
	WS_PARAM_UINT("window", struct wh_conf, window, "4", "2", "1024",
		      "rate samples per steadiness test (l)"),
	WS_PARAM_TIME("interval", struct wh_conf, interval, "0s", "0s", "1s",
		      "sampling interval; 0: 4 x the fabric's largest base RTT"),
	WS_PARAM_TIME("guard", struct wh_conf, guard, "0s", "0s", "1s",
		      "packet-level time kept before a flow's end (0: a fast-forward runs to the first flow's last packet)"),
	WS_PARAM_TIME("min_skip", struct wh_conf, min_skip, "0s", "0s", "1s",
		      "shortest fast-forward worth a freeze; 0: window x interval"),
	WS_PARAM_BOOL("queue_check", struct wh_conf, queue_check, "false",
		      "also require the partition's queued bytes to be steady (dQ criterion)"),
	WS_PARAM_FLOAT("queue_theta", struct wh_conf, queue_theta, "0.1", "0", "100",
		       "dQ criterion: queue samples spread under queue_theta x their mean (or under 2 packets)"),
	WS_PARAM_BOOL("memo", struct wh_conf, memo, "true",
		      "memoize transients and skip the ones seen before"),
	WS_PARAM_STRING("memo_db", struct wh_conf, memo_db, "",
			"file keeping the memo table across runs (read at start, written with the outputs)"),
	WS_PARAM_FLOAT("memo_quantum", struct wh_conf, memo_quantum, "0.03125", "0.0001", "1",
		       "rates in the memo key are rounded to this share of the line rate"),
	WS_PARAM_FLOAT("min_share", struct wh_conf, min_share, "0.02", "0", "1",
		       "never fast-forward a flow slower than this share of its line rate "
		       "(a CC recovering from its minimum rate is not steady)"),
	WS_PARAM_BOOL("lone", struct wh_conf, lone, "true",
		      "fast-forward at once a flow that starts alone (no data port shared with "
		      "any flow) at a lone flow's goodput less other flows' ACK load on its path, "
		      "when the CC keeps line rate on an idle path; under other CCs at the share "
		      "of it that lone flows on the same path, of the same size class, taught"),
	WS_PARAM_BOOL("episodes", struct wh_conf, episodes, "true",
		      "memoize episodes: partitions whose flows start together, until the "
		      "first finishes (with memo)"),
	WS_PARAM_TIME("lone_min", struct wh_conf, lone_min, "0s", "0s", "1s",
		      "shortest lone flow worth skipping (its time at the lone goodput); "
		      "0: the fabric's largest base RTT"),
	WS_PARAM_BOOL("flow_model", struct wh_conf, flow_model, "false",
		      "skip a partition that flows joined (no episode key) at max-min fair rates "
		      "capped by each flow's CC rate, until its first flow's last packet, when "
		      "that comes before a steady window (flow_model_max) and the CC keeps "
		      "line rate on an idle path"),
	WS_PARAM_TIME("flow_model_max", struct wh_conf, flow_model_max, "0s", "0s", "1s",
		      "longest flow-model skip: partitions whose first flow ends later are left "
		      "to steady skipping; 0: window x interval"),
	WS_PARAM_BOOL("reskip", struct wh_conf, reskip, "false",
		      "skip again a flow left alone in its partition (its partners finished) "
		      "once its CC rate is within theta of a lone flow's goodput, when the CC "
		      "keeps line rate on an idle path"),
	WS_PARAM_BOOL("model_cc_cap", struct wh_conf, model_cc_cap, "true",
		      "the flow model and reskip cap each flow at its CC's current rate "
		      "(false: at a lone flow's goodput only)"),
	WS_PARAM_TIME("episode_min", struct wh_conf, episode_min, "0s", "0s", "1s",
		      "shortest episode recorded and replayed: a shorter one ends before its "
		      "CC could settle, and how it ends depends on details the key leaves out; "
		      "0: window x interval"),
	WS_PARAM_BOOL("replay_skip", struct wh_conf, replay_skip, "true",
		      "a partition that a replayed transient left steady at the goodputs its "
		      "record holds is fast-forwarded at once, not after sampling it again"),
	WS_PARAM_END
};

/* a running flow: its slot in the active list, its rate samples */
struct wh_slot {
	uint32_t flow;
	uint32_t n, head;        /* samples in the ring, next to write */
	uint64_t last_sent;
	ws_time last_t;
	uint64_t line_rate;
	bool trusted;            /* just out of a memoized transient: steady
				  * at its first sample */
	uint32_t n_data, n_ports; /* its data path's ports, then its ACK path's */
	uint32_t *ports;
	uint64_t *rates;         /* bps of each port */
	double ack_est;          /* the load its ACKs put on their ports (at its
				  * lone goodput): what other flows' lone rate lacks */
	uint64_t skipped;        /* payload bytes skipped (ws_flow_skip) */
	uint8_t how;             /* WH_HOW_*: the skips it had */
	uint8_t first;           /* WH_FIRST_*: its partition when first judged */
	bool joined;             /* judged in a partition with other flows */
};

/*
 * Where the packets went (summary.json `packet_level`): each tracked flow,
 * when it finishes, counts its bytes and the payload bytes it sent in
 * packets under the first of these that applies: a lone skip cut short
 * by a flow starting on its path (it goes on in packets), a lone skip, an
 * episode replayed, a memoized transient skipped, a steady stretch skipped; or,
 * never skipped, how its partition was when first judged: alone (too short
 * a lone flow, or one whose CC does not keep line rate), fresh (flows that
 * all started together: an episode, looked up or on hold), joined (a
 * partition holding older flows: no episode), or never judged.
 */
enum { WH_HOW_LONE = 1, WH_HOW_EPISODE = 2, WH_HOW_TRANSIENT = 4, WH_HOW_STEADY = 8,
       WH_HOW_LONE_CUT = 16, WH_HOW_MODEL = 32, WH_HOW_RESKIP = 64 };
enum { WH_FIRST_NONE, WH_FIRST_ALONE, WH_FIRST_FRESH, WH_FIRST_HELD, WH_FIRST_JOINED };
enum { WH_PL_LONE_CUT, WH_PL_LONE, WH_PL_EPISODE, WH_PL_TRANSIENT, WH_PL_STEADY,
       WH_PL_MODEL, WH_PL_RESKIP, WH_PL_ALONE, WH_PL_FRESH, WH_PL_HELD, WH_PL_JOINED,
       WH_PL_UNJUDGED, WH_PL_N };
static const char *const wh_pl_names[WH_PL_N] = {
	"lone_cut", "lone", "episode", "transient", "steady", "flow_model", "reskip",
	"never_alone", "never_fresh", "never_fresh_held", "never_joined", "never_judged"
};
struct wh_pl {
	uint64_t flows, bytes, packet_bytes;
};

/* a partition's state beside partition.c's ids */
struct wh_part {
	bool live;
	bool pending;            /* born, not judged yet (part_evaluate) */
	bool frozen;
	bool memo_freeze;        /* frozen to skip a memoized transient */
	bool episode;            /* ... an episode (memo_freeze) */
	ws_time t0;              /* frozen at */
	bool lone;               /* one flow, frozen at its lone rate */
	double lone_scale;       /* lone at a learnt goodput: its share of lone_rate() */
	uint64_t lone_cc;        /* ... and the CC rate it goes on at (0: as it is) */
	uint8_t model;           /* frozen at flow-model rates: WH_HOW_MODEL, or
				  * WH_HOW_RESKIP for a flow left alone */
	double acc;              /* bytes booked before t_last (lone replans) */
	ws_time t_last;
	ws_time dt;              /* planned length */
	struct ws_evh thaw_ev;
	uint32_t *ports, n_ports; /* the frozen set */
	uint32_t *flows, n_flows;
	double *rate;            /* bps per frozen flow (steady skip) */
	uint64_t *memo_bytes, *memo_rate, *memo_goodput; /* per frozen flow (memo skip) */
	/* the frozen flows' ACKs as background load on the ports they cross
	 * outside the partition (their packets are not simulated meanwhile) */
	uint32_t *res_ports, n_res;
	int64_t *res_load;
	/* the transient being recorded, from the partition's birth */
	bool recording;
	bool fresh;              /* all its flows started when the record did:
				  * an episode is recorded (rates and bytes left
				  * describe their state; a CC's inner state
				  * after a contention is not in the key) */
	bool rec_t;              /* a transient is recorded */
	ws_time ts;
	uint32_t rn;             /* flows (vertices) */
	uint32_t *rflows;
	uint64_t *rsent, *rlabel;
	uint64_t *relabel;       /* episode labels: rate and bytes left at the start */
	uint64_t repisode;       /* episode context: rcontext, the queues at the start */
	struct wh_edge *redges;
	uint32_t rn_edges;
	uint64_t rcontext;
	double *qs;              /* queue samples (queue_check) */
	uint32_t qn, qhead;
};

struct wh_backoff {
	uint32_t streak, len, hold;
	uint64_t backoffs, backed_off;
};

struct wh_state {
	struct wh_parts *parts;
	struct wh_memo *memo;
	ws_time interval, guard, min_skip, lone_min;
	uint32_t window;
	uint64_t cc_hash;        /* the CC and its parameters */
	struct wh_slot *slot;
	double *samples;         /* window per slot */
	uint32_t n_slots, cap_slots, n_live;
	struct ws_evh sample_ev;  /* the next sample, while flows are simulated */
	bool sample_on;
	uint32_t *slot_of;       /* flow id -> slot, WH_NONE */
	uint32_t cap_flows;
	double *ack_load;        /* per port: the running flows' ACK load (ack_est) */
	uint32_t cap_ports;
	struct wh_part *ps;
	uint32_t cap_ps;
	uint32_t *pending, n_pending, cap_pending; /* born, to judge */
	bool eval_armed;
	bool failed;
	char db_path[4096];
	/* counters */
	uint64_t lone_entries, lone_replans;
	uint64_t model_entries, model_flows, reskip_entries, model_long, model_held;
	uint64_t episode_short;  /* episodes not recorded or replayed: under episode_min */
	uint64_t replay_skips;   /* replay_skip: fast-forwards at a replay's end */
	uint64_t lone_learnt;    /* lone flows skipped at a learnt share (try_lone_learnt) */
	struct wh_learnt *learnt;
	uint32_t n_learnt, cap_learnt;
	ws_time episode_min;
	struct fr_skipcount skip_model, skip_reskip; /* what each of them skipped */
	ws_time model_max;
	uint64_t episode_lookups, episode_hits, episode_skips, episode_inserts;
	/* back-off of the memo, transients and episodes apart (memo_outcome) */
	struct wh_backoff bo_transient, bo_episode;
	/* switching itself off (flow_outcome) */
	uint32_t n_frozen;       /* partitions frozen now */
	uint64_t freezes;        /* partitions ever frozen */
	uint64_t fin_tracked, fin_mark, freeze_mark;
	uint32_t off_len, off_left;
	uint64_t off_periods, off_untracked;
	uint64_t probed;          /* size classes (log2 bytes) tracked so far */
	uint64_t reprobes;
	/* the memo's ledger (memo_pays): its searches' work against the
	 * events its skips saved, since the last re-probe */
	struct fr_skipcount skip_memo;
	uint64_t work0, events0;
	double saved0;
	uint64_t memo_unpaid;
	bool cc_idle_line_rate;  /* the CC keeps line rate on an idle path */
	uint64_t steady_entries, skip_backs, memo_lookups, memo_hits, memo_inserts;
	uint64_t memo_skips, skipped_ps, untracked;
	uint64_t part_samples, part_sum, part_max;
	struct fr_skipcount skip; /* events_skipped, skipped_bytes */
	struct wh_pl pl[WH_PL_N];
	bool db_loaded, db_saved;
	char db_note[256];
};

static struct wh_state *st(struct ws_inst *inst)
{
	return inst->state;
}

static void wh_fail(struct ws_inst *inst, struct ws_err *err)
{
	struct wh_state *s = st(inst);
	if (s->failed)
		return;
	s->failed = true;
	ws_err_prefix(err, "accel wormhole: ");
	ws_fail(inst->sim, err);
}

static void wh_oom(struct ws_inst *inst)
{
	struct ws_err err;
	ws_err_set(&err, WS_ENOMEM, "out of memory");
	wh_fail(inst, &err);
}

/* ---- per-partition state ---------------------------------------------------- */

static struct wh_part *part_at(struct ws_inst *inst, uint32_t id)
{
	struct wh_state *s = st(inst);
	if (id >= s->cap_ps) {
		uint32_t n = s->cap_ps ? s->cap_ps : 64;
		while (n <= id)
			n *= 2;
		struct wh_part *p = realloc(s->ps, n * sizeof *p);
		if (!p)
			return NULL;
		memset(p + s->cap_ps, 0, (n - s->cap_ps) * sizeof *p);
		s->ps = p;
		s->cap_ps = n;
	}
	return &s->ps[id];
}

static void part_clear_record(struct wh_part *p)
{
	free(p->rflows);
	free(p->rsent);
	free(p->rlabel);
	free(p->relabel);
	free(p->redges);
	p->rflows = NULL;
	p->rsent = p->rlabel = p->relabel = NULL;
	p->redges = NULL;
	p->rn = p->rn_edges = 0;
	p->recording = false;
}

static void part_clear_frozen(struct wh_part *p)
{
	free(p->res_ports);
	free(p->res_load);
	p->res_ports = NULL;
	p->res_load = NULL;
	p->n_res = 0;
	free(p->ports);
	free(p->flows);
	free(p->rate);
	free(p->memo_bytes); /* one block with memo_rate and memo_goodput */
	p->ports = p->flows = NULL;
	p->rate = NULL;
	p->memo_bytes = p->memo_rate = p->memo_goodput = NULL;
	p->n_ports = p->n_flows = 0;
	p->frozen = p->memo_freeze = p->episode = p->lone = false;
	p->lone_scale = 0;
	p->lone_cc = 0;
	p->model = 0;
	p->acc = 0;
}

static void part_reset(struct wh_part *p)
{
	part_clear_record(p);
	part_clear_frozen(p);
	free(p->qs);
	memset(p, 0, sizeof *p);
}

/* ---- flows and their rate samples ------------------------------------------- */

static double *samples_of(struct wh_state *s, uint32_t slot)
{
	return &s->samples[(size_t)slot * s->window];
}

/*
 * Slots [0, n_live) are the flows being simulated, [n_live, n_slots) the
 * frozen ones: a sample visits only the former (its cost follows the
 * flows whose state changes, not all the running ones).
 */
static void slot_swap(struct wh_state *s, uint32_t a, uint32_t b)
{
	if (a == b)
		return;
	struct wh_slot t = s->slot[a];
	s->slot[a] = s->slot[b];
	s->slot[b] = t;
	double *wa = samples_of(s, a), *wb = samples_of(s, b);
	for (uint32_t i = 0; i < s->window; i++) {
		double x = wa[i];
		wa[i] = wb[i];
		wb[i] = x;
	}
	s->slot_of[s->slot[a].flow] = a;
	s->slot_of[s->slot[b].flow] = b;
}

static void slot_park(struct wh_state *s, uint32_t flow)
{
	uint32_t k = flow < s->cap_flows ? s->slot_of[flow] : WH_NONE;
	if (k == WH_NONE || k >= s->n_live)
		return;
	slot_swap(s, k, --s->n_live);
}

static void slot_unpark(struct wh_state *s, uint32_t flow)
{
	uint32_t k = flow < s->cap_flows ? s->slot_of[flow] : WH_NONE;
	if (k == WH_NONE || k < s->n_live)
		return;
	slot_swap(s, k, s->n_live++);
}

static void wh_on_sample(struct ws_inst *inst, ws_time now);

static void sample_event(struct ws_sim *sim, void *obj, uint64_t arg);

/*
 * Samples run while flows are simulated, and only then: the plugin
 * schedules them itself (its sample_period is 0 for the kernel) on the
 * grid of multiples of the interval, none while every flow is frozen or
 * none runs, so a run with no flows (or a compute gap between
 * collectives) costs no event and its sim_time is its flows' own.  A
 * flow simulated again at a multiple of the interval (a thaw) is sampled
 * at once, as it was on the kernel's fixed grid.
 */
static void sample_sync(struct ws_inst *inst, bool after)
{
	struct wh_state *s = st(inst);
	if (s->n_live && !s->sample_on && !s->failed) {
		ws_time now = ws_now(inst->sim);
		ws_time at = after ? (now / s->interval + 1) * s->interval
				   : (now + s->interval - 1) / s->interval * s->interval;
		if (at < s->interval) /* the grid starts one interval in */
			at = s->interval;
		s->sample_ev = ws_schedule(inst->sim, at, sample_event, inst, 0);
		s->sample_on = true;
	} else if (!s->n_live && s->sample_on) {
		ws_cancel(inst->sim, s->sample_ev);
		s->sample_on = false;
	}
}

static void sample_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_inst *inst = obj;
	st(inst)->sample_on = false;
	wh_on_sample(inst, ws_now(sim));
	sample_sync(inst, true);
}

static void slot_restart(struct ws_inst *inst, uint32_t slot, ws_time now)
{
	struct wh_state *s = st(inst);
	struct wh_slot *sl = &s->slot[slot];
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(inst->sim, sl->flow, &fi);
	sl->n = sl->head = 0;
	sl->trusted = false;
	sl->last_sent = fi.sent;
	sl->last_t = now;
}

/* Fill a flow's window with one rate: it is steady at that rate. */
static void slot_fill(struct ws_inst *inst, uint32_t slot, double rate, ws_time now)
{
	struct wh_state *s = st(inst);
	slot_restart(inst, slot, now);
	double *w = samples_of(s, slot);
	for (uint32_t i = 0; i < s->window; i++)
		w[i] = rate;
	s->slot[slot].n = s->window;
}

static bool slot_stats(struct wh_state *s, uint32_t slot, double *mean, double *spread)
{
	const struct wh_slot *sl = &s->slot[slot];
	/* out of a memoized transient: the samples after the first (which
	 * still holds the restart) are enough */
	uint32_t first = sl->trusted ? 1 : 0;
	uint32_t n = sl->trusted ? sl->n : s->window;
	if (sl->n < n || n < first + 1 || (sl->trusted && sl->n >= s->window))
		first = 0, n = s->window;
	if (sl->n < n)
		return false;
	const double *w = samples_of(s, slot);
	double lo = w[first], hi = w[first], sum = 0;
	for (uint32_t i = first; i < n; i++) {
		lo = w[i] < lo ? w[i] : lo;
		hi = w[i] > hi ? w[i] : hi;
		sum += w[i];
	}
	*mean = sum / (n - first);
	*spread = hi - lo;
	return true;
}

static bool flow_steady(struct ws_inst *inst, uint32_t flow, double *mean)
{
	struct wh_state *s = st(inst);
	const struct wh_conf *c = inst->conf;
	uint32_t slot = flow < s->cap_flows ? s->slot_of[flow] : WH_NONE;
	double spread;
	if (slot == WH_NONE || !slot_stats(s, slot, mean, &spread))
		return false;
	return *mean > c->min_share * (double)s->slot[slot].line_rate &&
	       spread < c->theta * *mean;
}

/* ---- freezing and thawing -------------------------------------------------------- */

static void thaw_event(struct ws_sim *sim, void *obj, uint64_t arg);

static int part_copy_sets(struct ws_inst *inst, uint32_t id, struct wh_part *p)
{
	struct wh_state *s = st(inst);
	const uint32_t *ports, *flows;
	uint32_t np = wh_parts_ports(s->parts, id, &ports);
	uint32_t nf = wh_parts_flows(s->parts, id, &flows);
	p->ports = malloc((np ? np : 1) * sizeof *p->ports);
	p->flows = malloc((nf ? nf : 1) * sizeof *p->flows);
	p->rate = calloc(nf ? nf : 1, sizeof *p->rate);
	if (!p->ports || !p->flows || !p->rate)
		return WS_ENOMEM;
	if (np)
		memcpy(p->ports, ports, np * sizeof *ports);
	if (nf)
		memcpy(p->flows, flows, nf * sizeof *flows);
	p->n_ports = np;
	p->n_flows = nf;
	return WS_OK;
}

static bool in_sorted(const uint32_t *a, uint32_t n, uint32_t x)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo] == x;
}

/*
 * The frozen flows' ACKs leave the ports of other partitions they cross:
 * that capacity stays taken, as background load at each flow's skip rate
 * (bps per frozen flow in `rate`), until the thaw gives it back.
 */
static void reserve_acks(struct ws_inst *inst, struct wh_part *p, const double *rate)
{
	struct wh_state *s = st(inst);
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->n_flows; i++) {
		uint32_t slot = s->slot_of[p->flows[i]];
		if (slot != WH_NONE)
			n += s->slot[slot].n_ports - s->slot[slot].n_data;
	}
	if (!n)
		return;
	p->res_ports = malloc(n * sizeof *p->res_ports);
	p->res_load = malloc(n * sizeof *p->res_load);
	if (!p->res_ports || !p->res_load)
		return; /* without: the other flows run a little fast meanwhile */
	struct ws_err err;
	for (uint32_t i = 0; i < p->n_flows; i++) {
		uint32_t slot = s->slot_of[p->flows[i]];
		if (slot == WH_NONE || !(rate[i] > 0))
			continue;
		const struct wh_slot *sl = &s->slot[slot];
		int64_t load = (int64_t)ws_flow_ack_load(inst->sim, sl->flow, (uint64_t)rate[i]);
		for (uint32_t k = sl->n_data; k < sl->n_ports && load > 0; k++) {
			uint32_t port = sl->ports[k];
			if (in_sorted(p->ports, p->n_ports, port))
				continue;
			ws_err_clear(&err);
			if (ws_port_add_load(inst->sim, port, load, &err))
				continue;
			p->res_ports[p->n_res] = port;
			p->res_load[p->n_res++] = load;
		}
	}
}

static void release_acks(struct ws_inst *inst, struct wh_part *p)
{
	struct ws_err err;
	for (uint32_t i = 0; i < p->n_res; i++) {
		ws_err_clear(&err);
		ws_port_add_load(inst->sim, p->res_ports[i], -p->res_load[i], &err);
	}
	p->n_res = 0;
}

static int part_freeze(struct ws_inst *inst, uint32_t id, struct wh_part *p, ws_time dt)
{
	struct ws_freeze_set set = { WS_INIT_SIZE(struct ws_freeze_set), .ports = p->ports, .n_ports = p->n_ports,
				     .flows = p->flows, .n_flows = p->n_flows,
				     .flags = WS_FREEZE_FLOWS_ONLY };
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_freeze(inst->sim, &set, &err)) {
		wh_fail(inst, &err);
		return WS_ESTATE;
	}
	if (p->memo_freeze) {
		double *r = calloc(p->n_flows ? p->n_flows : 1, sizeof *r);
		for (uint32_t i = 0; r && i < p->n_flows; i++)
			r[i] = dt ? (double)p->memo_bytes[i] * 8.0 / ((double)dt / 1e12) : 0;
		if (r)
			reserve_acks(inst, p, r);
		free(r);
	} else {
		reserve_acks(inst, p, p->rate);
	}
	ws_time now = ws_now(inst->sim);
	struct wh_state *s = st(inst);
	for (uint32_t i = 0; i < p->n_flows; i++)
		slot_park(s, p->flows[i]);
	sample_sync(inst, false);
	s->n_frozen++;
	s->freezes++;
	p->frozen = true;
	p->t0 = now;
	p->t_last = now;
	p->acc = 0;
	p->dt = dt;
	p->thaw_ev = ws_schedule(inst->sim, now + dt, thaw_event, inst, id);
	return WS_OK;
}

/* Thaw partition `id` now: its flows advance by what they had time to send. */
static void part_thaw(struct ws_inst *inst, uint32_t id, bool early)
{
	struct wh_state *s = st(inst);
	struct wh_part *p = &s->ps[id];
	if (!p->frozen)
		return;
	struct ws_sim *sim = inst->sim;
	ws_time now = ws_now(sim);
	ws_time shift = now - p->t0;
	if (early)
		ws_cancel(sim, p->thaw_ev);
	struct ws_err err;
	ws_err_clear(&err);
	for (uint32_t i = 0; i < p->n_flows; i++) {
		uint32_t f = p->flows[i];
		uint64_t want;
		if (p->memo_freeze)
			want = early && p->dt ? (uint64_t)((double)p->memo_bytes[i] * shift / p->dt)
					      : p->memo_bytes[i];
		else
			want = (uint64_t)(p->acc + p->rate[i] * ((double)(now - p->t_last) / 1e12) /
						   8.0);
		uint64_t unsent = ws_flow_unsent(sim, f);
		/* never the last byte: a flow ends in packet mode */
		if (want >= unsent)
			want = unsent ? unsent - 1 : 0;
		if (want && ws_flow_skip(sim, f, want, &err)) {
			wh_fail(inst, &err);
			return;
		}
		fr_skip_add(&s->skip, sim, f, want);
		if (p->memo_freeze)
			fr_skip_add(&s->skip_memo, sim, f, want);
		if (p->model)
			fr_skip_add(p->model == WH_HOW_MODEL ? &s->skip_model : &s->skip_reskip,
				    sim, f, want);
		uint32_t fs = s->slot_of[f];
		if (want && fs != WH_NONE) {
			s->slot[fs].skipped += want;
			s->slot[fs].how |= early && p->lone ? WH_HOW_LONE_CUT : 0;
			s->slot[fs].how |= p->lone	  ? WH_HOW_LONE
					   : p->model	  ? p->model
					   : p->episode	  ? WH_HOW_EPISODE
					   : p->memo_freeze ? WH_HOW_TRANSIENT
							    : WH_HOW_STEADY;
		}
	}
	release_acks(inst, p);
	struct ws_freeze_set set = { WS_INIT_SIZE(struct ws_freeze_set), .ports = p->ports, .n_ports = p->n_ports,
				     .flows = p->flows, .n_flows = p->n_flows,
				     .flags = WS_FREEZE_FLOWS_ONLY };
	if (ws_thaw(sim, &set, shift, &err)) {
		wh_fail(inst, &err);
		return;
	}
	s->skipped_ps += shift;
	s->n_frozen--;
	for (uint32_t i = 0; i < p->n_flows; i++)
		slot_unpark(s, p->flows[i]);
	sample_sync(inst, false);
	bool memo_done = p->memo_freeze && !early;
	for (uint32_t i = 0; i < p->n_flows; i++) {
		uint32_t f = p->flows[i];
		uint32_t slot = s->slot_of[f];
		if (slot == WH_NONE)
			continue;
		/* at the end of a skipped transient: the CC rates it ended at
		 * (the goodput is sampled again before any fast-forward) */
		if (memo_done) {
			/* the end of the transient: its CC rates, steady at its
			 * goodputs (or, from a table without them, steady once
			 * measured again) */
			ws_flow_set_rate(sim, f, p->memo_rate[i]);
			if (p->memo_goodput[i]) {
				slot_fill(inst, slot, (double)p->memo_goodput[i], now);
			} else {
				slot_restart(inst, slot, now);
				s->slot[slot].trusted = true;
			}
		} else {
			if (p->lone_cc)
				ws_flow_set_rate(sim, f, p->lone_cc);
			slot_restart(inst, slot, now);
		}
	}
	part_clear_frozen(p);
}

static bool try_flow_model(struct ws_inst *inst, uint32_t id, struct wh_part *p);
static void try_fast_forward(struct ws_inst *inst, uint32_t id, struct wh_part *p);

static void thaw_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)sim;
	struct ws_inst *inst = obj;
	struct wh_state *s = st(inst);
	uint32_t id = (uint32_t)arg;
	const struct wh_part *p = &s->ps[id];
	bool model = p->model == WH_HOW_MODEL;
	/* a replayed transient that ends steady at recorded goodputs: its
	 * record was taken when the partition was judged steady at them */
	bool settled = ((const struct wh_conf *)inst->conf)->replay_skip && p->memo_freeze &&
		       p->memo_goodput;
	for (uint32_t i = 0; settled && i < p->n_flows; i++)
		settled = p->memo_goodput[i] > 0;
	part_thaw(inst, id, false);
	if (settled && !s->failed && s->ps[id].live && !s->ps[id].frozen) {
		try_fast_forward(inst, id, &s->ps[id]);
		s->replay_skips += s->ps[id].frozen;
		return;
	}
	/* a flow-model partition at its first flow's last packet: the others
	 * go on in the model at once (no round trip of packets each) */
	if (model && !s->failed && s->ps[id].live && !s->ps[id].frozen)
		try_flow_model(inst, id, &s->ps[id]);
}

/* Freeze a steady partition for as long as none of its flows nears its end. */
static void try_fast_forward(struct ws_inst *inst, uint32_t id, struct wh_part *p)
{
	struct wh_state *s = st(inst);
	if (part_copy_sets(inst, id, p)) {
		part_clear_frozen(p);
		wh_oom(inst);
		return;
	}
	double dt = INFINITY;
	for (uint32_t i = 0; i < p->n_flows; i++) {
		double mean;
		if (!flow_steady(inst, p->flows[i], &mean)) {
			part_clear_frozen(p);
			return;
		}
		p->rate[i] = mean;
		double left = (double)ws_flow_unsent(inst->sim, p->flows[i]) * 8.0 / mean * 1e12 -
			      (double)s->guard;
		dt = left < dt ? left : dt;
	}
	if (!(dt >= (double)s->min_skip) || p->n_flows == 0) {
		part_clear_frozen(p);
		return;
	}
	if (part_freeze(inst, id, p, (ws_time)dt) == WS_OK)
		s->steady_entries++;
}

/* ---- memoization ------------------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/*
 * Bytes in an episode key: exact to 1 KiB up to 64 KiB, then to 7
 * significant bits (within 0.8 %; a hit rescales to the bytes really left).
 */
static uint64_t quantize_bytes(uint64_t b)
{
	uint64_t k = (b + 1023) >> 10;
	if (k < 64)
		return k;
	unsigned e = 63u - (unsigned)__builtin_clzll(k);
	unsigned shift = e - 6;
	return (uint64_t)(e + 1) << 8 | ((k >> shift) & 0x7f);
}

/* An outcome's four arrays of n, in one block owned by `bytes`. */
static bool outcome_alloc(struct wh_outcome *o, uint32_t n)
{
	memset(o, 0, sizeof *o);
	o->bytes = malloc(4 * (size_t)(n ? n : 1) * sizeof *o->bytes);
	if (!o->bytes)
		return false;
	o->end_rate = o->bytes + n;
	o->end_goodput = o->bytes + 2 * (size_t)n;
	o->line_rate = o->bytes + 3 * (size_t)n;
	return true;
}

/* Snapshot a new partition's conflict graph and its flows' bytes sent. */
static int record_start(struct ws_inst *inst, uint32_t id, struct wh_part *p)
{
	struct wh_state *s = st(inst);
	const struct wh_conf *c = inst->conf;
	const uint32_t *flows;
	uint32_t n = wh_parts_flows(s->parts, id, &flows);
	if (n == 0 || n > WH_MEMO_MAX)
		return WS_OK;
	p->rflows = malloc(n * sizeof *p->rflows);
	p->rsent = malloc(n * sizeof *p->rsent);
	p->rlabel = malloc(n * sizeof *p->rlabel);
	p->relabel = malloc(n * sizeof *p->relabel);
	if (!p->rflows || !p->rsent || !p->rlabel || !p->relabel)
		return WS_ENOMEM;
	memcpy(p->rflows, flows, n * sizeof *flows);
	uint64_t ctx = s->cc_hash;
	for (uint32_t i = 0; i < n; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(inst->sim, flows[i], &fi);
		p->rsent[i] = fi.sent;
		uint32_t slot = s->slot_of[flows[i]];
		uint64_t line = s->slot[slot].line_rate;
		double q = c->memo_quantum * (double)line;
		p->rlabel[i] = (uint64_t)llround((double)fi.rate / q);
		p->relabel[i] = p->rlabel[i] | quantize_bytes(ws_flow_unsent(inst->sim, flows[i])) << 20;
		ctx = mix(ctx, line);
	}
	/* an episode also depends on the queues its flows start behind */
	const uint32_t *ports;
	uint32_t np = wh_parts_ports(s->parts, id, &ports);
	uint64_t queued = 0;
	for (uint32_t i = 0; i < np; i++)
		queued += ws_port_gid_queue_bytes(inst->sim, ports[i]);
	p->repisode = mix(mix(ctx, 0x65706973ull /* "epis" */), quantize_bytes(queued));
	/* edges: flows sharing ports, weighted by how many */
	uint32_t cap = 64;
	p->redges = malloc(cap * sizeof *p->redges);
	if (!p->redges)
		return WS_ENOMEM;
	for (uint32_t a = 0; a < n; a++) {
		const uint32_t *pa;
		uint32_t na = wh_parts_flow_ports(s->parts, flows[a], &pa);
		for (uint32_t b = a + 1; b < n; b++) {
			const uint32_t *pb;
			uint32_t nb = wh_parts_flow_ports(s->parts, flows[b], &pb);
			uint32_t w = 0;
			for (uint32_t i = 0, j = 0; i < na && j < nb;) {
				if (pa[i] == pb[j]) {
					w++;
					i++;
					j++;
				} else if (pa[i] < pb[j]) {
					i++;
				} else {
					j++;
				}
			}
			if (!w)
				continue;
			if (p->rn_edges == cap) {
				cap *= 2;
				struct wh_edge *e = realloc(p->redges, cap * sizeof *e);
				if (!e)
					return WS_ENOMEM;
				p->redges = e;
			}
			p->redges[p->rn_edges++] = (struct wh_edge){ a, b, w };
		}
	}
	p->rcontext = ctx;
	p->rn = n;
	p->ts = ws_now(inst->sim);
	p->recording = true;
	return WS_OK;
}

static void record_graph(const struct wh_part *p, struct wh_graph *g)
{
	*g = (struct wh_graph){ .n = p->rn, .label = p->rlabel, .edges = p->redges,
				.n_edges = p->rn_edges, .context = p->rcontext };
}

/* The same graph keyed as an episode: flows labelled with their bytes
 * left too, the queues at the start in the context. */
static void episode_graph(const struct wh_part *p, struct wh_graph *g)
{
	*g = (struct wh_graph){ .n = p->rn, .label = p->relabel, .edges = p->redges,
				.n_edges = p->rn_edges, .context = p->repisode };
}

/*
 * A flow that starts alone, sharing no port with any other flow, runs at
 * the goodput of a lone flow from its first packet (the tests check that a
 * lone flow's FCT is the ideal one): nothing to sample, it is skipped at
 * once until its last packet, or until a flow starts on its ports.
 */
/* A lone flow's goodput, less the capacity other flows' ACKs take on its
 * data path (at the bottleneck of that). */
static uint64_t lone_rate(struct ws_inst *inst, uint32_t flow)
{
	struct wh_state *s = st(inst);
	uint64_t rate = ws_flow_lone_goodput(inst->sim, flow);
	uint32_t slot = flow < s->cap_flows ? s->slot_of[flow] : WH_NONE;
	if (slot == WH_NONE)
		return rate;
	const struct wh_slot *sl = &s->slot[slot];
	double keep = 1.0;
	for (uint32_t k = 0; k < sl->n_data; k++) {
		uint32_t port = sl->ports[k];
		double load = port < s->cap_ports ? s->ack_load[port] : 0;
		/* the flows sending these ACKs are slowed by ACKs the same way
		 * (a ring, an all-to-all): at the fixed point each keeps
		 * 1 / (1 + a) of its goodput, a the ACK share at full goodput */
		double share = sl->rates[k] ? 1.0 / (1.0 + load / (double)sl->rates[k]) : 1.0;
		keep = share < keep ? share : keep;
	}
	return (uint64_t)((double)rate * (keep > 0.01 ? keep : 0.01));
}

/*
 * The ACK load on a frozen lone flow's data path changed (a flow whose
 * ACKs cross it started or finished): what it sent so far is booked at the
 * old rate, it goes on at the new one, and its thaw moves accordingly.
 */
static void replan_lone(struct ws_inst *inst, uint32_t id)
{
	struct wh_state *s = st(inst);
	struct wh_part *p = &s->ps[id];
	if (!p->frozen || !p->lone || p->n_flows != 1)
		return;
	double r = (double)lone_rate(inst, p->flows[0]) * (p->lone_scale > 0 ? p->lone_scale : 1);
	double old = p->rate[0];
	if (!(r > 0) || fabs(r - old) <= 1e-6 * old)
		return;
	ws_time now = ws_now(inst->sim);
	p->acc += old * ((double)(now - p->t_last) / 1e12) / 8.0;
	p->t_last = now;
	p->rate[0] = r;
	double left = (double)ws_flow_unsent(inst->sim, p->flows[0]) - p->acc;
	double dt = left * 8.0 / r * 1e12 - (double)s->guard;
	ws_cancel(inst->sim, p->thaw_ev);
	ws_time end = now + (dt > 0 ? (ws_time)dt : 0);
	p->dt = end - p->t0;
	p->thaw_ev = ws_schedule(inst->sim, end, thaw_event, inst, id);
	s->lone_replans++;
}

/* Frozen lone partitions whose data ports the ports `ack` (an ACK path)
 * cross: their rate changed. */
static void replan_touching(struct ws_inst *inst, const uint32_t *ack, uint32_t n)
{
	struct wh_state *s = st(inst);
	if (!n)
		return;
	const uint32_t *touch;
	uint32_t nt = wh_parts_touching(s->parts, ack, n, &touch);
	for (uint32_t i = 0; i < nt; i++)
		if (touch[i] < s->cap_ps)
			replan_lone(inst, touch[i]);
}

/* The flow of partition `id` if it holds one flow only, else WH_NONE
 * (counted first: listing sorts a big partition's flows and ports). */
static uint32_t only_flow(const struct wh_state *s, uint32_t id)
{
	const uint32_t *flows;
	if (wh_parts_n_flows(s->parts, id) != 1)
		return WH_NONE;
	wh_parts_flows(s->parts, id, &flows);
	return flows[0];
}

/*
 * Freeze lone partition `id` at `rate` for dt, when that is worth it (from
 * a round trip on: a freeze costs a few events, a round trip of packets
 * costs more); `scale` and `cc` as in struct wh_part (0: a known lone
 * rate), `count` the counter of such freezes.  A record in progress is
 * dropped.  True when frozen.
 */
static bool lone_freeze(struct ws_inst *inst, uint32_t id, struct wh_part *p, double rate,
			double dt, double scale, uint64_t cc, uint64_t *count)
{
	struct wh_state *s = st(inst);
	if (!(dt >= (double)s->lone_min))
		return false;
	if (part_copy_sets(inst, id, p)) {
		part_clear_frozen(p);
		wh_oom(inst);
		return false;
	}
	p->rate[0] = rate;
	p->lone = true;
	p->lone_scale = scale;
	p->lone_cc = cc;
	part_clear_record(p);
	if (part_freeze(inst, id, p, (ws_time)dt) == WS_OK)
		(*count)++;
	return true;
}

static bool try_lone(struct ws_inst *inst, uint32_t id, struct wh_part *p)
{
	struct wh_state *s = st(inst);
	uint32_t flow = only_flow(s, id);
	if (flow == WH_NONE)
		return false;
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(inst->sim, flow, &fi);
	/* it started now (its first packets may have left already) */
	if (fi.start != ws_now(inst->sim) || !ws_flow_lone_goodput(inst->sim, flow))
		return false;
	double rate = (double)lone_rate(inst, flow);
	double dt = (double)ws_flow_unsent(inst->sim, flow) * 8.0 / rate * 1e12 - (double)s->guard;
	return lone_freeze(inst, id, p, rate, dt, 0, 0, &s->lone_entries);
}

static uint64_t quantize_bytes(uint64_t b);

/*
 * Lone flows under a CC that does not keep line rate alone (HPCC settles
 * near eta of its bottleneck after a round trip at line rate, a cut and a
 * climb): their rate is learnt, not known.  A flow that ran alone from start to finish
 * in packets teaches its effective goodput (its bytes over its FCT less
 * its base round trip), as a share of lone_rate(), and its CC's rate at
 * the end, for its path (its data and ACK ports: what slows a lone flow is
 * not all in its partition, other flows' ACKs on its ports for one) and
 * its size class.  A flow that starts alone on such a path, of such a
 * size, is skipped from its first packet at the teachers' mean share until
 * its last packet, which goes at their CC rate: its FCT is the teachers',
 * rescaled to its bytes.
 */
static uint64_t path_key(const struct wh_slot *sl)
{
	return XXH3_64bits(sl->ports, sl->n_ports * sizeof *sl->ports) ^ sl->n_data;
}

/* The entry of (path, size), or NULL; with `add`, a new one if there is
 * none (NULL when out of memory).  Open addressing over a power-of-two
 * table, at most half full; an entry with n = 0 is free. */
static struct wh_learnt *learnt_at(struct wh_state *s, const struct wh_slot *sl, uint64_t size,
				   bool add)
{
	uint64_t path = path_key(sl);
	if (add && 2 * (s->n_learnt + 1) > s->cap_learnt) {
		uint32_t c = s->cap_learnt ? 2 * s->cap_learnt : 64;
		struct wh_learnt *t = calloc(c, sizeof *t);
		if (!t)
			return NULL; /* nothing learnt: nothing skipped */
		for (uint32_t i = 0; i < s->cap_learnt; i++) {
			const struct wh_learnt *e = &s->learnt[i];
			if (!e->n)
				continue;
			uint32_t j = (uint32_t)mix(e->path, e->size) & (c - 1);
			while (t[j].n)
				j = (j + 1) & (c - 1);
			t[j] = *e;
		}
		free(s->learnt);
		s->learnt = t;
		s->cap_learnt = c;
	}
	if (!s->cap_learnt)
		return NULL;
	uint32_t j = (uint32_t)mix(path, size) & (s->cap_learnt - 1);
	for (;; j = (j + 1) & (s->cap_learnt - 1)) {
		struct wh_learnt *e = &s->learnt[j];
		if (!e->n) {
			if (!add)
				return NULL;
			*e = (struct wh_learnt){ .path = path, .size = size };
			s->n_learnt++;
			return e;
		}
		if (e->path == path && e->size == size)
			return e;
	}
}

/* Flow `flow` finishes now: learn from it if it ran alone in packets. */
static void lone_learn(struct ws_inst *inst, uint32_t flow, ws_time now)
{
	struct wh_state *s = st(inst);
	const struct wh_slot *sl = &s->slot[s->slot_of[flow]];
	if (sl->first != WH_FIRST_ALONE || sl->joined || sl->skipped || sl->how ||
	    !sl->line_rate)
		return;
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(inst->sim, flow, &fi);
	double lr = (double)lone_rate(inst, flow);
	if (!(lr > 0) || !fi.bytes)
		return;
	/* what a lone skip at rate g takes is its bytes at g, then its last
	 * packet's round trip: about the base RTT */
	double t = (double)(now - fi.start) - (double)fi.base_rtt;
	if (!(t > 0))
		return;
	double eff = (double)fi.bytes * 8.0 / t * 1e12;
	if (eff > lr * 1.01)
		return; /* faster than alone: something else was going on */
	/* the mean of the teachers (the fastest alone let learners on
	 * paths where the partition does not see all that slows them run
	 * fast: 1.2 % on GPT-13B's pipeline sends) */
	struct wh_learnt *l = learnt_at(s, sl, quantize_bytes(fi.bytes), true);
	if (!l)
		return;
	l->n++;
	l->share += (eff / lr - l->share) / l->n;
	l->cc_share += ((double)fi.rate / (double)sl->line_rate - l->cc_share) / l->n;
}

static bool try_lone_learnt(struct ws_inst *inst, uint32_t id, struct wh_part *p)
{
	struct wh_state *s = st(inst);
	uint32_t flow = only_flow(s, id);
	uint32_t slot = flow < s->cap_flows ? s->slot_of[flow] : WH_NONE;
	if (slot == WH_NONE)
		return false;
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(inst->sim, flow, &fi);
	if (fi.start != ws_now(inst->sim))
		return false;
	const struct wh_slot *sl = &s->slot[slot];
	const struct wh_learnt *l = learnt_at(s, sl, quantize_bytes(fi.bytes), false);
	double lr = (double)lone_rate(inst, flow);
	if (!l || !(lr > 0))
		return false;
	/* the teacher's FCT is its bytes at g plus a round trip: from the
	 * start, as now (its first packets have left already) */
	double g = l->share * lr;
	double dt = (double)fi.bytes * 8.0 / g * 1e12 - (double)s->guard;
	return lone_freeze(inst, id, p, g, dt, l->share,
			   (uint64_t)(l->cc_share * (double)sl->line_rate), &s->lone_learnt);
}

/*
 * The flow model: a partition that flows joined while others ran has no
 * episode key (the CC state of the older flows is not in it) and its short
 * flows end before a steady window exists.  Its flows are skipped at
 * max-min fair rates (payload terms: each port's goodput less the other
 * flows' ACK load there), each capped by its CC's current rate (a CC that
 * was cut does not climb back while frozen) and a lone flow's goodput,
 * until the first would have only its last packet left; that packet goes
 * at packet level, and the partition without it is judged again.  A flow
 * left alone (its partners finished) is the same with one flow: skipped
 * again at its CC rate (`reskip`).  Returns true when frozen.
 */
static double model_cap(struct ws_inst *inst, uint32_t flow, double *goodput_share)
{
	struct wh_state *s = st(inst);
	const struct wh_slot *sl = &s->slot[s->slot_of[flow]];
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(inst->sim, flow, &fi);
	double g = sl->line_rate ? (double)ws_flow_lone_goodput(inst->sim, flow) /
				   (double)sl->line_rate : 1.0;
	double cap = (double)lone_rate(inst, flow);
	double cc = (double)fi.rate * g;
	*goodput_share = g;
	const struct wh_conf *c = inst->conf;
	return c->model_cc_cap && cc > 0 && cc < cap ? cc : cap;
}

static bool model_rates(struct ws_inst *inst, struct wh_part *p)
{
	struct wh_state *s = st(inst);
	const struct wh_conf *c = inst->conf;
	if (p->n_flows == 1) {
		/* alone again: only at the rate a lone flow keeps (a CC that was
		 * cut climbs back at packet level, timers running; frozen, it
		 * would crawl at the cut rate) */
		double g;
		p->rate[0] = model_cap(inst, p->flows[0], &g);
		return p->rate[0] > 0 &&
		       p->rate[0] >= (1 - c->theta) * (double)lone_rate(inst, p->flows[0]);
	}
	struct fr_net *net = fr_new(p->n_ports);
	if (!net)
		return false;
	uint32_t links[WH_MAX_PORTS];
	double cap[WH_MAX_PORTS];
	bool ok = true;
	for (uint32_t i = 0; ok && i < p->n_flows; i++) {
		const struct wh_slot *sl = &s->slot[s->slot_of[p->flows[i]]];
		double g;
		double fcap = model_cap(inst, p->flows[i], &g);
		/* a CC crawling after a cut is not modelled (as not steady) */
		ok = fcap >= c->min_share * (double)sl->line_rate;
		for (uint32_t k = 0; k < sl->n_data; k++) {
			uint32_t port = sl->ports[k];
			/* the port's index in the partition's sorted set */
			uint32_t lo = 0, hi = p->n_ports;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				if (p->ports[mid] < port)
					lo = mid + 1;
				else
					hi = mid;
			}
			double load = port < s->cap_ports ? s->ack_load[port] : 0;
			double r = (double)sl->rates[k];
			ok = ok && lo < p->n_ports && p->ports[lo] == port;
			links[k] = lo;
			cap[k] = r * g * (load < r ? 1.0 - load / r : 0.01);
		}
		ok = ok && fcap > 0 &&
		     fr_add(net, i, links, cap, sl->n_data, fcap, 1.0, 0.0) == 0;
	}
	const uint32_t *solved;
	ok = ok && fr_solve(net, true, &solved) >= 0;
	for (uint32_t i = 0; ok && i < p->n_flows; i++) {
		p->rate[i] = fr_rate(net, i);
		ok = p->rate[i] > 0;
	}
	fr_free(net);
	return ok;
}

static bool try_flow_model(struct ws_inst *inst, uint32_t id, struct wh_part *p)
{
	struct wh_state *s = st(inst);
	const struct wh_conf *c = inst->conf;
	const uint32_t *flows;
	uint32_t nf = wh_parts_flows(s->parts, id, &flows);
	if (p->frozen || !s->cc_idle_line_rate || nf == 0 ||
	    (nf == 1 ? !c->reskip : !c->flow_model))
		return false;
	for (uint32_t i = 0; i < nf; i++)
		if (flows[i] >= s->cap_flows || s->slot_of[flows[i]] == WH_NONE)
			return false;
	if (part_copy_sets(inst, id, p)) {
		part_clear_frozen(p);
		wh_oom(inst);
		return false;
	}
	/* flows that end within lone_min / 2 even alone (the one whose last
	 * packet a planned thaw released, a transfer too short to skip) go on
	 * in packets beside the frozen rest.  Neither sees the other there (the
	 * frozen flows' packets are set aside), so a flow with more left than
	 * that, but too little to model (under lone_min), holds the partition
	 * in packets until it ends: beside a frozen partner, both ran at full
	 * rate through their shared port (MoE: contended transfers 6.6 % fast) */
	uint32_t keep = 0;
	bool hold = false;
	for (uint32_t i = 0; i < p->n_flows; i++) {
		double lr = (double)lone_rate(inst, p->flows[i]);
		double t = lr > 0 ? (double)ws_flow_unsent(inst->sim, p->flows[i]) * 8.0 / lr * 1e12
				  : 0;
		if (t >= (double)s->lone_min)
			p->flows[keep++] = p->flows[i];
		else if (t >= (double)s->lone_min / 2)
			hold = true;
	}
	p->n_flows = keep;
	if (hold && keep > 0) {
		s->model_held++;
		part_clear_frozen(p);
		return false;
	}
	double dt = INFINITY;
	bool ok = keep > 0 && (keep > 1 || c->reskip) && model_rates(inst, p);
	for (uint32_t i = 0; ok && i < p->n_flows; i++) {
		double left = (double)ws_flow_unsent(inst->sim, p->flows[i]) * 8.0 / p->rate[i] *
			      1e12 - (double)s->guard;
		dt = left < dt ? left : dt;
	}
	/* worth a freeze; a contended partition that lasts longer than a
	 * steady window is left to steady skipping (the CC's own rates) */
	if (!ok || !(dt >= (double)s->lone_min) || (keep > 1 && dt > (double)s->model_max)) {
		s->model_long += ok && keep > 1 && dt > (double)s->model_max;
		part_clear_frozen(p);
		return false;
	}
	part_clear_record(p);
	p->model = keep == 1 ? WH_HOW_RESKIP : WH_HOW_MODEL;
	if (part_freeze(inst, id, p, (ws_time)dt) != WS_OK)
		return true;
	if (keep == 1) {
		s->reskip_entries++;
	} else {
		s->model_entries++;
		s->model_flows += keep;
	}
	return true;
}

/*
 * An episode seen before: the same flows (up to isomorphism) with the same
 * bytes left, rates and queues, ran until one of them finished.  The
 * outcome is rescaled to the bytes the finishing flow really has left, and
 * the freeze ends a round trip before the recorded finish, so that flow's
 * last packet (kept at packet level) completes it on time.  Fills `o` and
 * the freeze length; false on a miss.
 */
static bool episode_hit(struct ws_inst *inst, struct wh_part *p, struct wh_outcome *o,
			ws_time *dur)
{
	struct wh_state *s = st(inst);
	struct wh_graph g;
	episode_graph(p, &g);
	s->episode_lookups++;
	if (!wh_memo_lookup(s->memo, &g, o))
		return false;
	s->episode_hits++;
	/* the flow that finished: the one that sent the largest share of
	 * what it had left */
	uint32_t fin = WH_NONE;
	double best = 0;
	for (uint32_t i = 0; i < p->rn; i++) {
		double left = (double)ws_flow_unsent(inst->sim, p->rflows[i]);
		double share = left > 0 ? (double)o->bytes[i] / left : 0;
		if (share > best) {
			best = share;
			fin = i;
		}
	}
	if (fin == WH_NONE || best < 0.9 || best > 1.1)
		return false;
	double scale = 1.0 / best;
	/* too short to settle (an entry of a memo_db or an import) */
	if ((double)o->duration * scale < (double)s->episode_min) {
		s->episode_short++;
		return false;
	}
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(inst->sim, p->rflows[fin], &fi);
	uint64_t lone = ws_flow_lone_goodput(inst->sim, p->rflows[fin]);
	/* base round trip of the finishing flow: its ideal FCT less its bytes
	 * at its path's goodput */
	double rtt = (double)fi.ideal_fct - (lone ? (double)fi.bytes * 8.0 / (double)lone * 1e12 : 0);
	double d = (double)o->duration * scale - (rtt > 0 ? rtt : 0) - (double)s->guard;
	if (!(d >= (double)s->lone_min))
		return false;
	/* by then the finishing flow has sent everything (its last packet is
	 * acknowledged a round trip later), the others what the record says */
	for (uint32_t i = 0; i < p->rn; i++)
		o->bytes[i] = i == fin ? ws_flow_unsent(inst->sim, p->rflows[i])
				       : (uint64_t)((double)o->bytes[i] * scale);
	*dur = (ws_time)d;
	return true;
}

/* An episode of a partition ended with a flow's finish: remember it. */
static void record_episode(struct ws_inst *inst, struct wh_part *p, uint32_t fin)
{
	struct wh_state *s = st(inst);
	struct wh_outcome o;
	if (!outcome_alloc(&o, p->rn)) {
		wh_oom(inst);
		return;
	}
	uint64_t any = 0;
	for (uint32_t i = 0; i < p->rn; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(inst->sim, p->rflows[i], &fi);
		/* what each flow had sent when the finishing one sent its last
		 * byte, a round trip ago: what has been acknowledged by now (the
		 * finishing flow: everything) */
		if (p->rflows[i] == fin)
			o.bytes[i] = fi.sent - p->rsent[i];
		else
			o.bytes[i] = fi.acked > p->rsent[i] ? fi.acked - p->rsent[i] : 0;
		any |= o.bytes[i];
		o.end_rate[i] = fi.rate;
		o.end_goodput[i] = 0; /* measured again after the replay */
		uint32_t slot = s->slot_of[p->rflows[i]];
		o.line_rate[i] = slot != WH_NONE ? s->slot[slot].line_rate : fi.rate;
	}
	struct wh_graph g;
	episode_graph(p, &g);
	o.duration = ws_now(inst->sim) - p->ts;
	/* (flows that had all sent before it began, waiting for their last
	 * ACKs, are nothing to replay; an episode shorter than episode_min
	 * ended before its CC settled: which flow got the link's larger share
	 * came from microseconds of start offsets and queues the key leaves
	 * out, and a replay hands that outcome to every isomorphic episode) */
	bool is_short = o.duration < s->episode_min;
	s->episode_short += o.duration && any && is_short;
	if (o.duration && any && !is_short && wh_memo_insert(s->memo, &g, &o) == 0)
		s->episode_inserts++;
	free(o.bytes);
	part_clear_record(p);
}

static void evaluate_event(struct ws_sim *sim, void *obj, uint64_t arg);

static bool inst_lone(struct ws_inst *inst)
{
	const struct wh_conf *c = inst->conf;
	return c->lone && st(inst)->cc_idle_line_rate;
}

/*
 * A partition was born.  It is judged (lone, a known transient or
 * episode, or a record) once the flows starting at this instant have all
 * started: collectives start many flows at once, and each start would
 * otherwise make, and kill, a partition of its own.
 */
static void part_born(struct ws_inst *inst, uint32_t id)
{
	struct wh_state *s = st(inst);
	struct wh_part *p = part_at(inst, id);
	if (!p) {
		wh_oom(inst);
		return;
	}
	part_reset(p);
	p->live = true;
	/* a flow that starts alone is skipped before its first packet (a
	 * flow starting on its ports at the same instant thaws it at once) */
	if (inst_lone(inst) && try_lone(inst, id, p))
		return;
	p->pending = true;
	if (s->n_pending == s->cap_pending) {
		uint32_t c = s->cap_pending ? 2 * s->cap_pending : 64;
		uint32_t *q = realloc(s->pending, c * sizeof *q);
		if (!q) {
			wh_oom(inst);
			return;
		}
		s->pending = q;
		s->cap_pending = c;
	}
	s->pending[s->n_pending++] = id;
	if (!s->eval_armed) {
		s->eval_armed = true;
		ws_schedule(inst->sim, ws_now(inst->sim), evaluate_event, inst, 0);
	}
}

static void part_evaluate(struct ws_inst *inst, uint32_t id);

static void evaluate_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)sim;
	(void)arg;
	struct ws_inst *inst = obj;
	struct wh_state *s = st(inst);
	s->eval_armed = false;
	/* judging freezes or records; it makes no partition, so the list
	 * does not change under the loop */
	for (uint32_t i = 0; i < s->n_pending && !s->failed; i++) {
		uint32_t id = s->pending[i];
		struct wh_part *p = id < s->cap_ps ? &s->ps[id] : NULL;
		if (!p || !p->live || !p->pending)
			continue;
		p->pending = false;
		part_evaluate(inst, id);
	}
	s->n_pending = 0;
}

/*
 * Back-off: the memo costs a canonical form per lookup and a record per
 * situation; when WH_BACKOFF lookups in a row skipped nothing, the next
 * `memo_backoff` situations are neither looked up nor recorded, and the
 * pause doubles each time the retry misses again (up to WH_BACKOFF_MAX),
 * so a workload that never repeats pays for at most a few percent of its
 * situations.  A skip ends the back-off.
 */
#define WH_BACKOFF 64u
#define WH_BACKOFF_MAX 65536u

static void memo_outcome(struct wh_backoff *b, bool skipped)
{
	if (skipped) {
		b->streak = 0;
		b->len = 0;
		return;
	}
	if (++b->streak < WH_BACKOFF)
		return;
	b->streak = 0;
	b->len = b->len ? b->len * 2 : WH_BACKOFF;
	if (b->len > WH_BACKOFF_MAX)
		b->len = WH_BACKOFF_MAX;
	b->hold = b->len;
	b->backoffs++;
}

/* Is this kind of lookup (and its record) on hold?  Counts the pause. */
static bool backing_off(struct wh_backoff *b)
{
	if (!b->hold)
		return false;
	b->hold--;
	b->backed_off++;
	return true;
}

/* Did every flow of the partition start now? */
static bool part_fresh(struct ws_inst *inst, uint32_t id)
{
	struct wh_state *s = st(inst);
	const uint32_t *flows;
	uint32_t n = wh_parts_flows(s->parts, id, &flows);
	ws_time now = ws_now(inst->sim);
	for (uint32_t i = 0; i < n; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(inst->sim, flows[i], &fi);
		if (fi.start != now)
			return false;
	}
	return n > 0;
}

/*
 * The memo pays for itself: its canonical searches and verifications are
 * charged in elementary steps (wh_memo_stats.work, deterministic),
 * WH_WORK_PER_EVENT of them the price of one packet-level event (measured
 * with callgrind: about 880 instructions an event, about 46 a step), against
 * the events its skips saved (transients and episodes), plus an allowance:
 * WH_PROBE_EVENTS, and WH_ALLOW of the events executed meanwhile.  While
 * the memo owes more than that, no situation is looked up or recorded
 * (memo_unpaid); a re-probe (a new size class) opens a new account.
 */
#define WH_WORK_PER_EVENT 20.0
#define WH_PROBE_EVENTS 2000.0
#define WH_ALLOW 0.01

static void ledger_open(struct ws_inst *inst)
{
	struct wh_state *s = st(inst);
	struct wh_memo_stats ms;
	wh_memo_get_stats(s->memo, &ms);
	struct ws_sim_stats ss = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(inst->sim, &ss);
	s->work0 = ms.work;
	s->events0 = ss.events;
	s->saved0 = (double)fr_skip_events(&s->skip_memo, inst->sim);
}

static bool memo_pays(struct ws_inst *inst)
{
	struct wh_state *s = st(inst);
	struct wh_memo_stats ms;
	wh_memo_get_stats(s->memo, &ms);
	struct ws_sim_stats ss = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(inst->sim, &ss);
	double cost = (double)(ms.work - s->work0) / WH_WORK_PER_EVENT;
	double saved = (double)fr_skip_events(&s->skip_memo, inst->sim) - s->saved0;
	double allow = WH_PROBE_EVENTS + WH_ALLOW * (double)(ss.events - s->events0);
	if (cost <= saved + allow)
		return true;
	s->memo_unpaid++;
	return false;
}

/* Nothing in the memo skips partition `id`: a lone flow at a learnt rate,
 * or the flow model. */
static void part_unskipped(struct ws_inst *inst, uint32_t id, struct wh_part *p, bool model,
			   bool lone)
{
	if (lone && try_lone_learnt(inst, id, p))
		return;
	if (model)
		try_flow_model(inst, id, p);
}

/* Judge a partition: skip it if lone or known, else record it. */
static void part_evaluate(struct ws_inst *inst, uint32_t id)
{
	struct wh_state *s = st(inst);
	const struct wh_conf *c = inst->conf;
	struct wh_part *p = &s->ps[id];
	/* a new situation: its flows are judged on full windows again */
	const uint32_t *fl;
	uint32_t nfl = wh_parts_flows(s->parts, id, &fl);
	bool fresh = part_fresh(inst, id);
	/* an episode (its flows start together) is looked up first, then a
	 * transient; each kind backs off on its own, and a kind on hold is
	 * neither looked up nor recorded */
	bool pays = c->memo && memo_pays(inst);
	bool want_e = pays && c->episodes && fresh && !backing_off(&s->bo_episode);
	uint8_t first = nfl == 1 ? WH_FIRST_ALONE
			: !fresh ? WH_FIRST_JOINED
			: want_e ? WH_FIRST_FRESH
				 : WH_FIRST_HELD;
	for (uint32_t i = 0; i < nfl; i++)
		if (fl[i] < s->cap_flows && s->slot_of[fl[i]] != WH_NONE) {
			struct wh_slot *sl = &s->slot[s->slot_of[fl[i]]];
			sl->trusted = false;
			sl->joined |= nfl > 1;
			if (sl->first == WH_FIRST_NONE)
				sl->first = first;
		}
	/* no episode key (joined) or one flow left: the flow model, when
	 * nothing in the memo fits */
	bool model = !fresh || nfl == 1;
	/* a flow that starts alone under a CC without a known lone rate */
	bool lone = nfl == 1 && fresh && c->lone && !s->cc_idle_line_rate;
	if (!c->memo) {
		part_unskipped(inst, id, p, model, lone);
		return;
	}
	bool want_t = pays && !backing_off(&s->bo_transient);
	if (!want_e && !want_t) {
		part_unskipped(inst, id, p, model, lone);
		return;
	}
	if (record_start(inst, id, p)) {
		wh_oom(inst);
		return;
	}
	if (!p->recording) {
		part_unskipped(inst, id, p, model, lone);
		return;
	}
	p->fresh = want_e;   /* record an episode */
	p->rec_t = want_t;   /* record a transient */
	struct wh_outcome o;
	if (!outcome_alloc(&o, p->rn)) {
		wh_oom(inst);
		return;
	}
	ws_time dur = 0;
	bool episode = false, fits = false;
	if (want_e) {
		fits = episode = episode_hit(inst, p, &o, &dur);
		memo_outcome(&s->bo_episode, fits);
	}
	if (!fits && want_t) {
		struct wh_graph g;
		record_graph(p, &g);
		s->memo_lookups++;
		bool hit = wh_memo_lookup(s->memo, &g, &o);
		fits = hit && o.duration >= s->min_skip;
		/* the outcome does not depend on flow sizes only while no flow
		 * could finish inside the transient: each must have more left
		 * than line rate for its duration, plus the guard */
		for (uint32_t i = 0; fits && i < p->rn; i++) {
			uint32_t slot = s->slot_of[p->rflows[i]];
			if (slot == WH_NONE) {
				fits = false;
				break;
			}
			double most = (double)s->slot[slot].line_rate *
				      ((double)(o.duration + s->guard) / 1e12) / 8.0;
			if (most >= (double)ws_flow_unsent(inst->sim, p->rflows[i]))
				fits = false;
		}
		if (hit)
			s->memo_hits++;
		dur = o.duration;
		memo_outcome(&s->bo_transient, fits);
	}
	if (!fits || part_copy_sets(inst, id, p)) {
		part_clear_frozen(p);
		free(o.bytes);
		part_unskipped(inst, id, p, model, lone);
		return;
	}
	/* the frozen set lists the flows in id order, as the record does */
	p->memo_bytes = o.bytes;
	p->memo_rate = o.end_rate;
	p->memo_goodput = o.end_goodput;
	p->memo_freeze = true;
	p->episode = episode;
	part_clear_record(p);
	if (part_freeze(inst, id, p, dur) == WS_OK) {
		if (episode)
			s->episode_skips++;
		else
			s->memo_skips++;
	}
}

/* The transient of a partition ended: remember it. */
static void record_end(struct ws_inst *inst, struct wh_part *p)
{
	struct wh_state *s = st(inst);
	struct wh_outcome o;
	if (!outcome_alloc(&o, p->rn)) {
		wh_oom(inst);
		return;
	}
	for (uint32_t i = 0; i < p->rn; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(inst->sim, p->rflows[i], &fi);
		o.bytes[i] = fi.sent - p->rsent[i];
		/* the CC's rate (what set_rate takes) and the goodput sampled */
		o.end_rate[i] = fi.rate;
		double mean = 0;
		flow_steady(inst, p->rflows[i], &mean);
		o.end_goodput[i] = (uint64_t)mean;
		uint32_t slot = s->slot_of[p->rflows[i]];
		o.line_rate[i] = slot != WH_NONE ? s->slot[slot].line_rate : fi.rate;
	}
	struct wh_graph g;
	record_graph(p, &g);
	o.duration = ws_now(inst->sim) - p->ts;
	if (wh_memo_insert(s->memo, &g, &o) == 0)
		s->memo_inserts++;
	free(o.bytes);
	part_clear_record(p);
}

/* ---- partition changes -------------------------------------------------------------- */

static void apply_change(struct ws_inst *inst, const struct wh_change *ch)
{
	struct wh_state *s = st(inst);
	for (uint32_t i = 0; i < ch->n_dead; i++)
		if (ch->dead[i] < s->cap_ps)
			part_reset(&s->ps[ch->dead[i]]);
	/* copy: part_born calls back into partition.c */
	uint32_t n = ch->n_born;
	uint32_t *born = malloc((n ? n : 1) * sizeof *born);
	if (!born) {
		wh_oom(inst);
		return;
	}
	if (n) /* ch->born may be NULL when nothing was born */
		memcpy(born, ch->born, n * sizeof *born);
	for (uint32_t i = 0; i < n; i++)
		part_born(inst, born[i]);
	free(born);
}

/*
 * Switching itself off: when WH_OFF_AFTER tracked flows finished without a
 * single freeze meanwhile, the next flows that start while nothing is
 * frozen are not tracked at all (no path trace, no partition, no sample):
 * WH_OFF_AFTER of them, doubling while nothing is skipped, up to
 * WH_OFF_MAX.  (Tracking resumes at once while something is frozen, so a
 * flow that starts on a frozen partition's ports always thaws it.)
 */
#define WH_OFF_AFTER 256u
#define WH_OFF_MAX 65536u

static void flow_outcome(struct wh_state *s)
{
	if (++s->fin_tracked - s->fin_mark < WH_OFF_AFTER)
		return;
	if (s->freezes == s->freeze_mark) {
		s->off_len = s->off_len ? s->off_len * 2 : WH_OFF_AFTER;
		if (s->off_len > WH_OFF_MAX)
			s->off_len = WH_OFF_MAX;
		s->off_left = s->off_len;
		s->off_periods++;
	} else {
		s->off_len = 0;
	}
	s->fin_mark = s->fin_tracked;
	s->freeze_mark = s->freezes;
}

/*
 * Looking again when the traffic changes: a flow of a size class (the
 * power of two below its bytes) no tracked flow has had yet ends an off
 * period and the memo's back-off at once.  A size sweep's small sizes
 * switch the accelerator off; its first large size switches it back on,
 * and it stays on while that pays.  A workload whose sizes repeat (every
 * training iteration) re-probes only in its first iteration.
 */
static void ledger_open(struct ws_inst *inst);

static void reprobe_new_size(struct ws_inst *inst, uint64_t bytes, ws_time ideal_fct)
{
	struct wh_state *s = st(inst);
	/* a flow over within about a round trip (its ideal FCT under 1.5
	 * lone_min) can be skipped by nothing: no reason to look again (at
	 * twice lone_min, a sweep's 512 KB ring steps, skippable, stayed off) */
	if (ideal_fct < s->lone_min + s->lone_min / 2)
		return;
	unsigned c = 0;
	while (c < 63 && (bytes >> (c + 1)))
		c++;
	uint64_t bit = UINT64_C(1) << c;
	if (s->probed & bit)
		return;
	s->probed |= bit;
	if (!s->off_left && !s->bo_transient.hold && !s->bo_episode.hold && !s->memo_unpaid)
		return;
	ledger_open(inst);
	s->reprobes++;
	s->off_left = s->off_len = 0;
	s->fin_mark = s->fin_tracked;
	s->freeze_mark = s->freezes;
	s->bo_transient = (struct wh_backoff){ .backoffs = s->bo_transient.backoffs,
					       .backed_off = s->bo_transient.backed_off };
	s->bo_episode = (struct wh_backoff){ .backoffs = s->bo_episode.backoffs,
					     .backed_off = s->bo_episode.backed_off };
}

static void wh_on_flow_start(struct ws_inst *inst, uint32_t flow, ws_time now)
{
	struct wh_state *s = st(inst);
	if (s->failed)
		return;
	struct ws_sim *sim = inst->sim;
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, flow, &fi);
	reprobe_new_size(inst, fi.bytes, fi.ideal_fct);
	if (s->off_left && !s->n_frozen) {
		s->off_left--;
		s->off_untracked++;
		return;
	}
	uint32_t ports[WH_MAX_PORTS];
	uint64_t rates[WH_MAX_PORTS];
	uint32_t n;
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_flow_ports(sim, flow, ports, rates, WH_MAX_PORTS, &n, &err) || n == 0 ||
	    fi.hops == 0 || fi.hops > n) {
		s->untracked++; /* a path the rule cannot trace: left at packet level */
		return;
	}
	/* partitions couple flows whose data share a port; ACKs are a known
	 * load on the ports they cross (ack_load, reserve_acks), not a
	 * coupling: a ring or an all-to-all is not one giant partition */
	uint32_t n_data = fi.hops;
	/* a start on a frozen partition's ports: thaw it now (skip-back) */
	const uint32_t *touch;
	uint32_t nt = wh_parts_touching(s->parts, ports, n_data, &touch);
	/* (thawing leaves every flow a byte to send: no flow finishes, and
	 * `touch` stays valid) */
	for (uint32_t i = 0; i < nt; i++) {
		uint32_t id = touch[i];
		if (id < s->cap_ps && s->ps[id].frozen) {
			/* (frozen this very instant: nothing skipped, nothing lost) */
			s->skip_backs += s->ps[id].t0 != now;
			part_thaw(inst, id, true);
		}
	}
	/* its slot */
	if (flow >= s->cap_flows) {
		uint32_t c = s->cap_flows ? s->cap_flows : 1024;
		while (c <= flow)
			c *= 2;
		uint32_t *so = realloc(s->slot_of, c * sizeof *so);
		if (!so) {
			wh_oom(inst);
			return;
		}
		for (uint32_t i = s->cap_flows; i < c; i++)
			so[i] = WH_NONE;
		s->slot_of = so;
		s->cap_flows = c;
	}
	if (s->n_slots == s->cap_slots) {
		uint32_t c = s->cap_slots ? 2 * s->cap_slots : 256;
		struct wh_slot *sl = realloc(s->slot, c * sizeof *sl);
		if (sl)
			s->slot = sl;
		double *sm = realloc(s->samples, (size_t)c * s->window * sizeof *sm);
		if (sm)
			s->samples = sm;
		if (!sl || !sm) {
			wh_oom(inst);
			return;
		}
		s->cap_slots = c;
	}
	uint32_t *pc = malloc(n * sizeof *pc);
	uint64_t *rc = malloc(n * sizeof *rc);
	if (!pc || !rc) {
		free(pc);
		free(rc);
		wh_oom(inst);
		return;
	}
	memcpy(pc, ports, n * sizeof *pc);
	memcpy(rc, rates, n * sizeof *rc);
	uint32_t top = 0;
	for (uint32_t k = n_data; k < n; k++)
		top = ports[k] > top ? ports[k] : top;
	if (n > n_data && top >= s->cap_ports) {
		uint32_t c = s->cap_ports ? s->cap_ports : 1024;
		while (c <= top)
			c *= 2;
		double *al = realloc(s->ack_load, c * sizeof *al);
		if (!al) {
			free(pc);
			free(rc);
			wh_oom(inst);
			return;
		}
		for (uint32_t i = s->cap_ports; i < c; i++)
			al[i] = 0;
		s->ack_load = al;
		s->cap_ports = c;
	}
	double ack = (double)ws_flow_ack_load(sim, flow, ws_flow_lone_goodput(sim, flow));
	for (uint32_t k = n_data; k < n; k++)
		s->ack_load[ports[k]] += ack;
	replan_touching(inst, ports + n_data, n - n_data);
	uint32_t slot = s->n_slots++;
	s->slot[slot] = (struct wh_slot){ .flow = flow, .last_t = now,
					  .line_rate = rates[0], .n_data = n_data, .n_ports = n,
					  .ports = pc, .rates = rc, .ack_est = ack };
	s->slot_of[flow] = slot;
	slot_swap(s, slot, s->n_live++); /* a new flow is simulated */
	slot = s->slot_of[flow];
	sample_sync(inst, false);
	slot_restart(inst, slot, now);
	struct wh_change ch;
	if (wh_parts_add(s->parts, flow, ports, n_data, &ch)) {
		wh_oom(inst);
		return;
	}
	apply_change(inst, &ch);
}

/* A tracked flow finished: count where its packets went (wh_pl). */
static void pl_count(struct ws_inst *inst, uint32_t flow)
{
	struct wh_state *s = st(inst);
	const struct wh_slot *sl = &s->slot[s->slot_of[flow]];
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(inst->sim, flow, &fi);
	static const uint8_t never[] = { [WH_FIRST_NONE] = WH_PL_UNJUDGED,
					 [WH_FIRST_ALONE] = WH_PL_ALONE,
					 [WH_FIRST_FRESH] = WH_PL_FRESH,
					 [WH_FIRST_HELD] = WH_PL_HELD,
					 [WH_FIRST_JOINED] = WH_PL_JOINED };
	unsigned k = sl->how & WH_HOW_MODEL	 ? WH_PL_MODEL
		     : sl->how & WH_HOW_RESKIP	 ? WH_PL_RESKIP
		     : sl->how & WH_HOW_LONE_CUT ? WH_PL_LONE_CUT
		     : sl->how & WH_HOW_LONE	 ? WH_PL_LONE
		     : sl->how & WH_HOW_EPISODE	 ? WH_PL_EPISODE
		     : sl->how & WH_HOW_TRANSIENT ? WH_PL_TRANSIENT
		     : sl->how & WH_HOW_STEADY	 ? WH_PL_STEADY
						 : never[sl->first];
	s->pl[k].flows++;
	s->pl[k].bytes += fi.bytes;
	s->pl[k].packet_bytes += fi.sent > sl->skipped ? fi.sent - sl->skipped : 0;
}

static void wh_on_flow_finish(struct ws_inst *inst, uint32_t flow, ws_time now)
{
	struct wh_state *s = st(inst);
	if (s->failed || flow >= s->cap_flows || s->slot_of[flow] == WH_NONE)
		return;
	flow_outcome(s);
	pl_count(inst, flow);
	if (((const struct wh_conf *)inst->conf)->lone && !s->cc_idle_line_rate)
		lone_learn(inst, flow, now);
	uint32_t id = wh_parts_of(s->parts, flow);
	if (id != WH_NONE && id < s->cap_ps && s->ps[id].frozen)
		part_thaw(inst, id, true);
	else if (id != WH_NONE && id < s->cap_ps && s->ps[id].recording && s->ps[id].fresh)
		record_episode(inst, &s->ps[id], flow);
	/* drop its slot: to the end of the live ones, then the last slot
	 * takes its place */
	slot_unpark(s, flow);
	slot_swap(s, s->slot_of[flow], --s->n_live);
	uint32_t slot = s->slot_of[flow], last = --s->n_slots;
	sample_sync(inst, false);
	struct wh_slot *gone = &s->slot[slot];
	for (uint32_t k = gone->n_data; k < gone->n_ports; k++) {
		double *l = &s->ack_load[gone->ports[k]];
		*l = *l > gone->ack_est ? *l - gone->ack_est : 0;
	}
	uint32_t *gone_ports = gone->ports;
	uint32_t gone_n = gone->n_ports, gone_data = gone->n_data;
	free(gone->rates);
	if (slot != last) {
		s->slot[slot] = s->slot[last];
		memcpy(samples_of(s, slot), samples_of(s, last), s->window * sizeof(double));
		s->slot_of[s->slot[slot].flow] = slot;
	}
	s->slot_of[flow] = WH_NONE;
	/* lone flows its ACKs slowed go faster now */
	replan_touching(inst, gone_ports + gone_data, gone_n - gone_data);
	free(gone_ports);
	struct wh_change ch;
	if (wh_parts_remove(s->parts, flow, &ch))
		return;
	apply_change(inst, &ch);
}

/* ---- sampling ------------------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static bool queue_steady(struct ws_inst *inst, uint32_t id, struct wh_part *p)
{
	struct wh_state *s = st(inst);
	const struct wh_conf *c = inst->conf;
	if (!p->qs) {
		p->qs = calloc(s->window, sizeof *p->qs);
		if (!p->qs)
			return false;
	}
	const uint32_t *ports;
	uint32_t np = wh_parts_ports(s->parts, id, &ports);
	double q = 0;
	for (uint32_t i = 0; i < np; i++)
		q += (double)ws_port_gid_queue_bytes(inst->sim, ports[i]);
	p->qs[p->qhead] = q;
	p->qhead = (p->qhead + 1) % s->window;
	if (p->qn < s->window)
		p->qn++;
	if (p->qn < s->window)
		return false;
	double lo = p->qs[0], hi = p->qs[0], sum = 0;
	for (uint32_t i = 0; i < s->window; i++) {
		lo = p->qs[i] < lo ? p->qs[i] : lo;
		hi = p->qs[i] > hi ? p->qs[i] : hi;
		sum += p->qs[i];
	}
	return hi - lo < 2 * 1500.0 || hi - lo < c->queue_theta * sum / s->window;
}

static void wh_on_sample(struct ws_inst *inst, ws_time now)
{
	struct wh_state *s = st(inst);
	const struct wh_conf *c = inst->conf;
	if (s->failed)
		return;
	struct ws_sim *sim = inst->sim;
	for (uint32_t k = 0; k < s->n_live; k++) {
		struct wh_slot *sl = &s->slot[k];
		if (now <= sl->last_t)
			continue;
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(sim, sl->flow, &fi);
		double r = (double)(fi.sent - sl->last_sent) * 8.0 /
			   ((double)(now - sl->last_t) / 1e12);
		samples_of(s, k)[sl->head] = r;
		sl->head = (sl->head + 1) % s->window;
		if (sl->n < s->window)
			sl->n++;
		sl->last_sent = fi.sent;
		sl->last_t = now;
	}
	uint32_t all = wh_parts_count(s->parts);
	s->part_samples++;
	s->part_sum += all;
	if (all > s->part_max)
		s->part_max = all;
	/* the partitions of the simulated flows, each once, in the order of
	 * their ids (deterministic whatever the slots' order) */
	uint32_t *copy = malloc((s->n_live ? s->n_live : 1) * sizeof *copy);
	if (!copy) {
		wh_oom(inst);
		return;
	}
	uint32_t n = 0;
	for (uint32_t k = 0; k < s->n_live; k++) {
		uint32_t id = wh_parts_of(s->parts, s->slot[k].flow);
		if (id != WH_NONE)
			copy[n++] = id;
	}
	qsort(copy, n, sizeof *copy, cmp_u32);
	uint32_t u = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!u || copy[u - 1] != copy[i])
			copy[u++] = copy[i];
	n = u;
	for (uint32_t i = 0; i < n && !s->failed; i++) {
		uint32_t id = copy[i];
		struct wh_part *p = part_at(inst, id);
		if (!p || p->frozen)
			continue;
		const uint32_t *flows;
		uint32_t nf = wh_parts_flows(s->parts, id, &flows);
		bool steady = nf > 0;
		for (uint32_t j = 0; j < nf && steady; j++) {
			double mean;
			steady = flow_steady(inst, flows[j], &mean);
			/* alone, under a CC that keeps line rate on an idle path, a
			 * flow below a lone flow's goodput is still climbing back
			 * (DCQCN after its partner left): not an equilibrium */
			if (steady && nf == 1 && s->cc_idle_line_rate &&
			    mean < (1 - c->theta) * (double)lone_rate(inst, flows[j]))
				steady = false;
		}
		if (c->queue_check && !queue_steady(inst, id, p))
			steady = false;
		if (!steady)
			continue;
		if (p->recording && p->rec_t)
			record_end(inst, p);
		else if (p->recording)
			part_clear_record(p);
		try_fast_forward(inst, id, p);
	}
	free(copy);
}

/* Called once the fabric exists: the timings that derive from its RTT. */
static ws_time wh_sample_period(struct ws_inst *inst)
{
	const struct wh_conf *c = inst->conf;
	struct wh_state *s = st(inst);
	s->interval = c->interval;
	if (!s->interval) {
		ws_time rtt = ws_sim_max_base_rtt(inst->sim);
		s->interval = 4 * (rtt ? rtt : 10 * WS_US);
	}
	s->guard = c->guard;
	s->lone_min = c->lone_min;
	if (!s->lone_min) {
		ws_time rtt = ws_sim_max_base_rtt(inst->sim);
		s->lone_min = rtt ? rtt : 10 * WS_US;
	}
	s->min_skip = c->min_skip ? c->min_skip : s->window * s->interval;
	s->model_max = c->flow_model_max ? c->flow_model_max : s->window * s->interval;
	s->episode_min = c->episode_min ? c->episode_min : s->window * s->interval;
	return 0; /* sampled by sample_sync, only while flows are simulated */
}

/* ---- lifecycle ------------------------------------------------------------------------- */

/* `path` made absolute (from the working directory) with "." and ".."
 * components and repeated slashes removed, lexically. */
static void abs_path(const char *path, char *out, size_t size)
{
	char buf[8192];
	char cwd[4096] = "";
	if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
		cwd[0] = '\0';
	snprintf(buf, sizeof buf, "%s/%s", cwd, path);
	size_t n = 0;
	out[0] = '\0';
	for (char *save = NULL, *tok = strtok_r(buf, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			while (n > 0 && out[--n] != '/')
				;
			out[n] = '\0';
			continue;
		}
		int w = snprintf(out + n, size - n, "/%s", tok);
		if (w < 0 || (size_t)w >= size - n)
			break;
		n += (size_t)w;
	}
	if (!n)
		snprintf(out, size, "/");
}

/*
 * The memo database must not be one of the run's own outputs (a table or
 * trace written into the output directory): saving it would destroy them,
 * or they it.  (The save also refuses to replace anything that is not a
 * memo table, which covers an output directory given later with -o.)
 */
static int memo_db_not_output(struct ws_inst *inst, const char *path, struct ws_err *err)
{
	static const char *const fixed[] = { "summary.json", "fct.csv", "rates.csv", "queues.csv",
					     "ports.csv", "flows.csv", "iterations.csv",
					     "collectives.csv" };
	const char *out = ws_sim_default_out_dir(inst->sim);
	if (!out || !out[0])
		return WS_OK;
	char a[4096], b[4096];
	abs_path(path, a, sizeof a);
	abs_path(out, b, sizeof b);
	char *slash = strrchr(a, '/');
	if (!slash)
		return WS_OK;
	*slash = '\0';
	const char *base = slash + 1;
	if (strcmp(a[0] ? a : "/", b))
		return WS_OK;
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		if (!strcmp(base, fixed[i]))
			return ws_err_set(err, WS_EINVAL, "memo_db = %s is the run's own %s in its "
					  "output directory %s; choose another file", path, base, out);
	return WS_OK;
}

static int wh_init(struct ws_inst *inst, struct ws_err *err)
{
	const struct wh_conf *c = inst->conf;
	struct wh_state *s = st(inst);
	s->window = (uint32_t)c->window;
	s->parts = wh_parts_new();
	s->memo = wh_memo_new();
	if (!s->parts || !s->memo)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	/* the memo is valid for one CC and its parameters */
	s->cc_hash = ws_sim_plugin_digest(inst->sim, WS_KIND_CC, 0x5157);
	s->cc_idle_line_rate = (ws_cc_needs(inst->sim) & WS_CC_IDLE_LINE_RATE) != 0;
	if (c->memo_db[0]) {
		int rc = ws_resolve_path(inst->sim, c->memo_db, s->db_path, sizeof s->db_path, err);
		if (rc)
			return rc;
		rc = memo_db_not_output(inst, s->db_path, err);
		if (rc)
			return rc;
		char why[256];
		rc = wh_memo_load(s->memo, s->db_path, why, sizeof why);
		if (rc == -2) /* something else: never overwritten, never mixed in */
			return ws_err_set(err, WS_EINVAL, "memo_db = %s: %s; refusing to use it as "
					  "a memo database", c->memo_db, why);
		if (rc) {
			ws_warn(inst->sim, "%s: memo database not used: %s", s->db_path, why);
			snprintf(s->db_note, sizeof s->db_note, "%s", why);
		} else {
			s->db_loaded = true;
		}
	}
	return WS_OK;
}

static void wh_fini(struct ws_inst *inst)
{
	struct wh_state *s = st(inst);
	for (uint32_t i = 0; i < s->cap_ps; i++)
		part_reset(&s->ps[i]);
	for (uint32_t i = 0; i < s->n_slots; i++) {
		free(s->slot[i].ports);
		free(s->slot[i].rates);
	}
	free(s->ack_load);
	free(s->learnt);
	free(s->pending);
	free(s->ps);
	free(s->slot);
	free(s->samples);
	free(s->slot_of);
	wh_parts_free(s->parts);
	wh_memo_free(s->memo);
	memset(s, 0, sizeof *s);
}

/* The memo database, saved when this run learnt something: a failure is
 * a warning and a note in summary.json (the run's results stand), not an
 * error. */
static int wh_finish(struct ws_inst *inst, const char *dir, struct ws_err *err)
{
	struct wh_state *s = st(inst);
	if (s->db_path[0] && (s->memo_inserts || s->episode_inserts)) {
		char why[256];
		s->db_saved = wh_memo_save(s->memo, s->db_path, why, sizeof why) == 0;
		if (!s->db_saved) {
			snprintf(s->db_note, sizeof s->db_note, "%s", why);
			ws_warn(inst->sim, "[accel] memo_db not saved: %s", why);
		}
	}
	return WS_OK;
}

/* ---- sharing the memo between runs (ABI 2.2) ---------------------------------------------- */

/*
 * What a memo entry's validity depends on beyond its own key and context
 * (the CC and the line rates): this plugin's parameters (the steadiness
 * test decides where a transient ends, memo_quantum how rates are
 * labelled) but memo_db (where the table is kept changes nothing in it),
 * and the sampling times they resolve to from the fabric's RTT.
 */
static bool wh_share_key(const struct ws_inst *inst, uint64_t *key)
{
	const struct wh_conf *c = inst->conf;
	const struct wh_state *s = inst->state;
	if (!c->memo)
		return false;
	uint64_t k = mix(0x73686172ull /* "shar" */, s->cc_hash);
	for (const struct ws_param *q = wh_params; q->key; q++) {
		if (!strcmp(q->key, "memo_db"))
			continue;
		char buf[256];
		ws_param_format(q, (const char *)c + q->offset, buf, sizeof buf);
		k = mix(k, XXH3_64bits(q->key, strlen(q->key)));
		k = mix(k, XXH3_64bits(buf, strlen(buf)));
	}
	k = mix(mix(k, s->interval), s->guard);
	k = mix(mix(k, s->min_skip), s->lone_min);
	*key = k;
	return true;
}

static int wh_share_import(struct ws_inst *inst, const void *data, size_t len, bool check_only,
			   struct ws_err *err)
{
	char why[256];
	if (wh_memo_import(st(inst)->memo, data, len, check_only, why, sizeof why))
		return ws_err_set(err, WS_EINVAL, "wormhole: %s", why);
	return WS_OK;
}

static int wh_share_export(struct ws_inst *inst, void **data, size_t *len, struct ws_err *err)
{
	char why[256];
	if (wh_memo_export(st(inst)->memo, data, len, why, sizeof why))
		return ws_err_set(err, WS_ENOMEM, "wormhole: %s", why);
	return WS_OK;
}

static void wh_report(struct ws_inst *inst, struct ws_json *j)
{
	struct wh_state *s = st(inst);
	struct ws_sim_stats ss = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(inst->sim, &ss);
	ws_json_u64(j, "sample_interval_ps", s->interval);
	ws_json_u64(j, "events_executed", ss.events);
	ws_json_u64(j, "events_skipped", fr_skip_events(&s->skip, inst->sim));
	ws_json_u64(j, "skipped_bytes", s->skip.bytes);
	ws_json_u64(j, "skipped_flow_ps", s->skipped_ps);
	ws_json_u64(j, "steady_entries", s->steady_entries);
	ws_json_u64(j, "lone_entries", s->lone_entries);
	ws_json_u64(j, "lone_replans", s->lone_replans);
	ws_json_u64(j, "model_entries", s->model_entries);
	ws_json_u64(j, "model_flows", s->model_flows);
	ws_json_u64(j, "model_long", s->model_long);
	ws_json_u64(j, "model_held", s->model_held);
	ws_json_u64(j, "episode_short", s->episode_short);
	ws_json_u64(j, "replay_skips", s->replay_skips);
	ws_json_u64(j, "lone_learnt", s->lone_learnt);
	ws_json_u64(j, "model_skipped_bytes", s->skip_model.bytes);
	ws_json_u64(j, "model_events_skipped", fr_skip_events(&s->skip_model, inst->sim));
	ws_json_u64(j, "reskip_entries", s->reskip_entries);
	ws_json_u64(j, "reskip_skipped_bytes", s->skip_reskip.bytes);
	ws_json_u64(j, "reskip_events_skipped", fr_skip_events(&s->skip_reskip, inst->sim));
	ws_json_u64(j, "skip_backs", s->skip_backs);
	ws_json_u64(j, "memo_lookups", s->memo_lookups);
	ws_json_u64(j, "memo_hits", s->memo_hits);
	ws_json_u64(j, "memo_skips", s->memo_skips);
	ws_json_u64(j, "memo_inserts", s->memo_inserts);
	ws_json_u64(j, "episode_lookups", s->episode_lookups);
	ws_json_u64(j, "episode_hits", s->episode_hits);
	ws_json_u64(j, "episode_skips", s->episode_skips);
	ws_json_u64(j, "episode_inserts", s->episode_inserts);
	ws_json_u64(j, "memo_backoffs", s->bo_transient.backoffs);
	ws_json_u64(j, "memo_backed_off", s->bo_transient.backed_off);
	ws_json_u64(j, "episode_backoffs", s->bo_episode.backoffs);
	ws_json_u64(j, "episode_backed_off", s->bo_episode.backed_off);
	ws_json_u64(j, "off_periods", s->off_periods);
	ws_json_u64(j, "reprobes", s->reprobes);
	ws_json_u64(j, "memo_unpaid", s->memo_unpaid);
	ws_json_u64(j, "off_untracked_flows", s->off_untracked);
	ws_json_u64(j, "memo_entries", wh_memo_entries(s->memo));
	struct wh_memo_stats ms;
	wh_memo_get_stats(s->memo, &ms);
	ws_json_u64(j, "memo_verified", ms.verified);
	ws_json_u64(j, "memo_work", ms.work);
	ws_json_u64(j, "memo_rejected", ms.rejected);
	ws_json_u64(j, "memo_canon_fallbacks", ms.fallbacks);
	ws_json_u64(j, "memo_imported", ms.imported);
	ws_json_u64(j, "memo_import_dups", ms.import_dups);
	ws_json_u64(j, "memo_imported_hits", ms.imported_hits);
	ws_json_u64(j, "partitions_max", s->part_max);
	ws_json_f64(j, "partitions_mean",
		    s->part_samples ? (double)s->part_sum / s->part_samples : 0);
	ws_json_u64(j, "untracked_flows", s->untracked);
	/* tracked flows by where their packets went (wh_pl) */
	ws_json_begin(j, "packet_level");
	for (unsigned k = 0; k < WH_PL_N; k++) {
		ws_json_begin(j, wh_pl_names[k]);
		ws_json_u64(j, "flows", s->pl[k].flows);
		ws_json_u64(j, "bytes", s->pl[k].bytes);
		ws_json_u64(j, "packet_bytes", s->pl[k].packet_bytes);
		ws_json_end(j);
	}
	ws_json_end(j);
	if (s->db_path[0]) {
		ws_json_str(j, "memo_db", s->db_path);
		ws_json_bool(j, "memo_db_loaded", s->db_loaded);
		ws_json_bool(j, "memo_db_saved", s->db_saved);
		if (s->db_note[0])
			ws_json_str(j, "memo_db_note", s->db_note);
	}
}

static const struct ws_accel_ops wh_ops = {
	.size = sizeof(struct ws_accel_ops),
	.on_flow_start = wh_on_flow_start,
	.on_flow_finish = wh_on_flow_finish,
	.sample_period = wh_sample_period,
	.on_sample = wh_on_sample,
	.report = wh_report,
	.finish = wh_finish,
	.share_key = wh_share_key,
	.share_import = wh_share_import,
	.share_export = wh_share_export,
};

static const struct ws_plugin wh_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ACCEL, struct ws_accel_ops),
	.name = "wormhole",
	.version = "1.0.0",
	.summary = "fast-forward of steady flow partitions and memoization of transients "
		   "(packet level where it matters)",
	.params = wh_params,
	.conf_size = sizeof(struct wh_conf),
	.state_size = sizeof(struct wh_state),
	.init = wh_init,
	.fini = wh_fini,
	.ops = &wh_ops,
};

WS_PLUGIN_EXPORT(wh_plugin)
