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
 * connected components that changed (solver.h).  With `ack_load`, a flow
 * also loads its ACK path's links by its ACKs' share of its rate.
 * A flow sends its wire bytes (payload plus a header per packet, as the
 * ideal FCT counts them), exactly in integers (bits x ps); when they are
 * out, its links are free and the flow completes one base RTT later (two
 * propagations and a store-and-forward serialization per hop, as the
 * kernel's ideal FCT has it): a lone flow's FCT is its ideal FCT exactly.
 *
 * What it leaves out, by construction: queues (no queuing delay beyond the
 * base RTT), CC dynamics (flows are at their fair share from the first
 * byte), ACK traffic unless ack_load, PFC, losses.  docs/acceleration.md
 * gives its error.
 */
#include <stdlib.h>
#include <string.h>

#include <warpsim/warpsim.h>

#include "../flowrate/path.h"
#include "../flowrate/solver.h"

__extension__ typedef unsigned __int128 fl_u128;

struct fl_conf {
	bool cc_utilization;
	bool local_solve;
	bool ack_load;
};

static const struct ws_param fl_params[] = {
	WS_PARAM_BOOL("cc_utilization", struct fl_conf, cc_utilization, "true",
		      "scale link and NIC capacities by the share of a bottleneck the CC "
		      "declares it fills (HPCC: eta); false: whole links"),
	WS_PARAM_BOOL("local_solve", struct fl_conf, local_solve, "true",
		      "re-fill only the flows around a start or finish, widened until every "
		      "rate is max-min fair again; false: re-solve the whole component"),
	WS_PARAM_BOOL("ack_load", struct fl_conf, ack_load, "false",
		      "a flow's ACKs load the links of their path by the share of its rate "
		      "[nic] ack_interval and the ACK's size give (ws_flow_ack_load)"),
	WS_PARAM_END
};

/* a flow the plugin moves */
struct fl_flow {
	fl_u128 left;     /* wire bits x 10^12 still to send (bits x ps at 1 bps) */
	uint64_t rate;    /* bps since t_last */
	ws_time t_last;
	ws_time tx_end;   /* when `left` runs out at `rate` */
	ws_time base_rtt;
	uint32_t hpos;    /* place in the heap of tx_end; FL_NONE when out */
};

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

struct fl_state {
	struct fr_net *net;
	struct fl_page **page;   /* cap_fl / FL_PAGE of them */
	struct fl_page *dead;
	uint32_t cap_fl;
	uint32_t *heap;          /* flow ids by tx_end */
	uint32_t n_heap, room_heap;
	struct ws_evh end_ev;
	ws_time end_at;          /* time end_ev runs at; WS_TIME_NEVER: none */
	bool solve_armed;
	bool failed;
	double util;
	uint64_t adopted, finished, solve_events, rate_changes;
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

static void fl_oom(struct ws_inst *inst)
{
	struct ws_err err;
	ws_err_set(&err, WS_ENOMEM, "out of memory");
	fl_fail(inst, &err);
}

/* ---- the heap of transfer ends ---------------------------------------------- */

static bool end_before(const struct fl_state *s, uint32_t a, uint32_t b)
{
	ws_time ta = FL(s, a).tx_end, tb = FL(s, b).tx_end;
	return ta != tb ? ta < tb : a < b;
}

static void heap_set(struct fl_state *s, uint32_t i, uint32_t id)
{
	s->heap[i] = id;
	FL(s, id).hpos = i;
}

static void heap_up(struct fl_state *s, uint32_t i)
{
	uint32_t id = s->heap[i];
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!end_before(s, id, s->heap[p]))
			break;
		heap_set(s, i, s->heap[p]);
		i = p;
	}
	heap_set(s, i, id);
}

static void heap_down(struct fl_state *s, uint32_t i)
{
	uint32_t id = s->heap[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= s->n_heap)
			break;
		if (c + 1 < s->n_heap && end_before(s, s->heap[c + 1], s->heap[c]))
			c++;
		if (!end_before(s, s->heap[c], id))
			break;
		heap_set(s, i, s->heap[c]);
		i = c;
	}
	heap_set(s, i, id);
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

static void solve_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_inst *inst = obj;
	struct fl_state *s = st(inst);
	s->solve_armed = false;
	if (s->failed)
		return;
	ws_time now = ws_now(sim);
	const uint32_t *ids;
	int64_t n = fr_solve(s->net, false, &ids);
	if (n < 0) {
		fl_oom(inst);
		return;
	}
	s->solve_events++;
	for (int64_t i = 0; i < n; i++) {
		struct fl_flow *f = &FL(s, ids[i]);
		uint64_t rate = (uint64_t)fr_rate(s->net, ids[i]);
		if (rate < 1)
			rate = 1;
		if (rate == f->rate && f->hpos != FL_NONE)
			continue;
		settle(f, now);
		s->rate_changes++;
		f->rate = rate;
		f->tx_end = now + (ws_time)(f->left / rate);
		if (heap_update(s, ids[i])) {
			fl_oom(inst);
			return;
		}
	}
	arm_end(inst);
}

static void done_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	struct ws_inst *inst = obj;
	struct ws_err err;
	ws_err_clear(&err);
	st(inst)->finished++;
	if (ws_flow_finish(sim, (uint32_t)arg, &err))
		fl_fail(inst, &err);
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
		fr_remove(s->net, id);
		ws_schedule(sim, now + FL(s, id).base_rtt, done_event, inst, id);
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

/* Append the ACK path's links to the data path's ports[0..*n-1] (use 1),
 * each carrying the ACKs' wire rate over the flow's wire rate. */
static int ack_path(struct ws_inst *inst, uint32_t id, const struct ws_flow_info *fi,
		    uint32_t *ports, uint64_t *rates, double *use, uint32_t *n,
		    struct ws_err *err)
{
	uint32_t all[2 * FR_PATH_MAX];
	uint64_t all_rates[2 * FR_PATH_MAX];
	uint32_t na, nd = *n;
	int rc = ws_flow_ports(inst->sim, id, all, all_rates, 2 * FR_PATH_MAX, &na, err);
	if (rc)
		return rc;
	/* the data path's ports come first, fi->hops of them */
	if (fi->bytes == 0 || fi->wire_bytes == 0 || na <= fi->hops ||
	    nd + (na - fi->hops) > 2 * FR_PATH_MAX)
		return WS_OK;
	/* the ACKs of 1 Tb/s of payload, against the wire rate it takes */
	double goodput = 1e12;
	double share = (double)ws_flow_ack_load(inst->sim, id, (uint64_t)goodput) /
		       (goodput * (double)fi->wire_bytes / (double)fi->bytes);
	for (uint32_t k = 0; k < nd; k++)
		use[k] = 1;
	if (!(share > 0))
		return WS_OK;
	for (uint32_t k = fi->hops; k < na; k++) {
		ports[*n] = all[k];
		rates[*n] = all_rates[k];
		use[(*n)++] = share;
	}
	return WS_OK;
}

static void fl_on_flow_start(struct ws_inst *inst, uint32_t id, ws_time now)
{
	struct fl_state *s = st(inst);
	if (s->failed)
		return;
	struct ws_sim *sim = inst->sim;
	struct ws_err err;
	ws_err_clear(&err);
	uint32_t ports[2 * FR_PATH_MAX];
	uint64_t rates[2 * FR_PATH_MAX];
	double caps[2 * FR_PATH_MAX], use[2 * FR_PATH_MAX];
	uint32_t n;
	if (ws_flow_adopt(sim, id, &err) || fr_flow_path(sim, id, ports, rates, &n, &err)) {
		fl_fail(inst, &err);
		return;
	}
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, id, &fi);
	uint32_t n_data = n;
	if (((const struct fl_conf *)inst->conf)->ack_load &&
	    ack_path(inst, id, &fi, ports, rates, use, &n, &err)) {
		fl_fail(inst, &err);
		return;
	}
	for (uint32_t k = 0; k < n; k++)
		caps[k] = (double)rates[k] * s->util;
	if (flows_reserve(s, id) ||
	    fr_add_use(s->net, id, ports, caps, n > n_data ? use : NULL, n, caps[0], 1.0,
		       0.0)) {
		fl_oom(inst);
		return;
	}
	FL(s, id) = (struct fl_flow){ .left = (fl_u128)fi.wire_bytes * 8u * WS_SEC,
				      .t_last = now, .base_rtt = fi.base_rtt,
				      .hpos = FL_NONE };
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
	s->end_at = WS_TIME_NEVER;
	if (!s->net || !s->dead)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	fr_set_local(s->net, c->local_solve);
	return WS_OK;
}

static void fl_fini(struct ws_inst *inst)
{
	struct fl_state *s = st(inst);
	fr_free(s->net);
	for (uint32_t p = 0; p < s->cap_fl / FL_PAGE; p++)
		if (s->page[p] != s->dead)
			free(s->page[p]);
	free(s->page);
	free(s->dead);
	free(s->heap);
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
	ws_json_u64(j, "flows_finished", s->finished);
	ws_json_u64(j, "solve_events", s->solve_events);
	ws_json_u64(j, "solves", fs.solves);
	ws_json_u64(j, "flows_solved", fs.flows_solved);
	ws_json_u64(j, "largest_solve", fs.largest);
	ws_json_f64(j, "mean_solve", fs.solves ? (double)fs.flows_solved / fs.solves : 0);
	ws_json_u64(j, "local_rounds", fs.local_rounds);
	ws_json_u64(j, "full_fallbacks", fs.full_fallbacks);
	ws_json_u64(j, "rate_changes", s->rate_changes);
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
