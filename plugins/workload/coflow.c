/* SPDX-License-Identifier: MIT */
/*
 * The coflow model of the collective engine (coflow.h says what it
 * models).  A coflow is one flow of the max-min solver whose use of each
 * link is its load there over its largest load; its work, in bits of that
 * link, is done at the solver's rate.  A second solver times one
 * collective's transfers alone (cf_self_*).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../accel/flowrate/path.h"
#include "../accel/flowrate/solver.h"
#include "coflow.h"

#define CF_PATH_MAX 64

/* a port's facts, read once (ws_port_info); its capacity for the solver */
struct cf_port {
	uint64_t rate;
	ws_time delay;
	double cap;
	uint32_t stamp;   /* the coflow being described that has a load here */
	double load;      /* its wire bits over the port */
	double ack;       /* cf_self_*: the ACK reservation the solver has */
	double ack_load;  /* the one the rates solved ask for */
	uint32_t seq;     /* listed: its place in `reserved` */
	uint8_t listed;   /* in `reserved` */
	uint8_t dirty;    /* in `dirty`: its ACK load moved since the last look */
	uint8_t seen;
};

/* a traced (src, dst, sport): data ports, then ACK ports, in `pool` */
struct cf_route {
	uint64_t key;     /* 2^63 | src << 32 | dst; 0: an empty slot */
	uint16_t sport;
	uint8_t n_data, n_ack;
	uint32_t off;
};

struct cf_co {
	double remaining; /* work still to do (bits of its most loaded link) */
	double rate;      /* its rate on that link, as last solved (bps) */
	ws_time since;    /* when remaining was last brought up to date */
	struct ws_evh end;
	uint8_t live;
};

struct cf_net {
	struct ws_sim *sim;
	struct fr_net *fr;
	struct fr_net *self;   /* one collective's transfers alone (cf_self_*) */
	struct cf_path *sp;    /* their paths, by id */
	double *sp_rate;       /* the rate their ACK loads count, by id */
	uint32_t cap_sp;
	uint32_t *solved;      /* ids the last cf_self_solve rated */
	uint32_t n_solved, cap_solved;
	uint32_t *reserved;    /* ports with an ACK load or reservation, in the
				* order they came (a port that left stays behind
				* as a stale entry until the list is packed) */
	uint32_t n_reserved, cap_reserved, n_listed;
	uint64_t *dirty;       /* seq << 32 | port: listed ports whose ACK load moved */
	uint32_t n_dirty, cap_dirty;
	bool self_oom;
	cf_done_fn done;
	void *arg;
	struct ws_wire wire;
	double util;
	uint32_t n_ports;
	struct cf_port *port;
	struct cf_route *routes;
	uint32_t route_mask, n_routes;
	uint32_t *pool;
	uint64_t n_pool, cap_pool;
	/* the coflow being described */
	uint32_t stamp;
	uint32_t *touched;
	uint32_t n_touched, cap_touched;
	double *use;
	double *caps;
	uint32_t cap_caps;
	ws_time batch;     /* a solve after a start or an end waits this long */
	/* coflows by id */
	struct cf_co *co;
	uint32_t cap_co;
	bool solve_armed;
	struct cf_stats st;
};

int cf_new(struct cf_net **out, struct ws_sim *sim, ws_time batch, cf_done_fn done,
	   void *arg, struct ws_err *err)
{
	*out = NULL;
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	struct cf_net *cf = calloc(1, sizeof *cf);
	if (!cf)
		return ws_err_set(err, WS_ENOMEM, "out of memory for the coflow model");
	cf->sim = sim;
	cf->batch = batch;
	cf->done = done;
	cf->arg = arg;
	cf->wire = (struct ws_wire){ WS_INIT_SIZE(struct ws_wire) };
	ws_sim_wire(sim, &cf->wire);
	cf->util = ws_cc_utilization(sim);
	if (!(cf->util > 0 && cf->util <= 1))
		cf->util = 1;
	cf->n_ports = fab->n_ports;
	cf->port = calloc(fab->n_ports ? fab->n_ports : 1, sizeof *cf->port);
	cf->route_mask = 4095;
	cf->routes = calloc(cf->route_mask + 1, sizeof *cf->routes);
	cf->fr = fr_new(fab->n_ports ? fab->n_ports : 1);
	cf->self = fr_new(fab->n_ports ? fab->n_ports : 1);
	if (!cf->port || !cf->routes || !cf->fr || !cf->self) {
		cf_free(cf);
		return ws_err_set(err, WS_ENOMEM, "out of memory for the coflow model");
	}
	fr_set_local(cf->fr, true);
	fr_set_local(cf->self, true);
	*out = cf;
	return WS_OK;
}

void cf_free(struct cf_net *cf)
{
	if (!cf)
		return;
	/* events still pending go with the simulation's queue */
	fr_free(cf->fr);
	fr_free(cf->self);
	free(cf->sp);
	free(cf->sp_rate);
	free(cf->reserved);
	free(cf->solved);
	free(cf->dirty);
	free(cf->port);
	free(cf->routes);
	free(cf->pool);
	free(cf->touched);
	free(cf->use);
	free(cf->caps);
	free(cf->co);
	free(cf);
}

void cf_get_stats(const struct cf_net *cf, struct cf_stats *out)
{
	*out = cf->st;
	struct fr_stats fs;
	fr_get_stats(cf->fr, &fs);
	out->fills = fs.local_rounds;
	out->fallbacks = fs.full_fallbacks;
}

/*
 * Room for `need` elements in *a (of sa bytes each) and, when b is not
 * NULL, in the parallel array *b (sb bytes each), which share *cap:
 * doubled from 256.  0, or -1 (out of memory; what grew stays valid).
 */
static int room(void *a, size_t sa, void *b, size_t sb, uint32_t *cap, uint64_t need)
{
	if (need <= *cap)
		return 0;
	uint64_t c = *cap ? *cap : 256;
	while (c < need)
		c *= 2;
	if (c > UINT32_MAX)
		return -1;
	void *p = realloc(*(void **)a, (size_t)c * sa);
	if (!p)
		return -1;
	*(void **)a = p;
	if (b) {
		void *q = realloc(*(void **)b, (size_t)c * sb);
		if (!q)
			return -1;
		*(void **)b = q;
	}
	*cap = (uint32_t)c;
	return 0;
}

/* ---- routes ----------------------------------------------------------- */

static const struct cf_port *port_at(struct cf_net *cf, const struct ws_hop *h,
				     uint32_t *gid)
{
	uint32_t g = ws_port_gid(cf->sim, h->node, h->port);
	struct cf_port *p = &cf->port[g];
	if (!p->seen) {
		struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
		ws_port_info(cf->sim, h->node, h->port, &pi);
		p->rate = pi.rate;
		p->delay = pi.delay;
		p->cap = (double)pi.rate * cf->util;
		p->seen = 1;
	}
	*gid = g;
	return p;
}

static int pool_room(struct cf_net *cf, uint64_t n, struct ws_err *err)
{
	if (cf->n_pool + n <= cf->cap_pool)
		return WS_OK;
	uint64_t cap = cf->cap_pool ? cf->cap_pool * 2 : 4096;
	while (cap < cf->n_pool + n)
		cap *= 2;
	uint32_t *p = realloc(cf->pool, cap * sizeof *p);
	if (!p)
		return ws_err_set(err, WS_ENOMEM, "out of memory for the coflow routes");
	cf->pool = p;
	cf->cap_pool = cap;
	return WS_OK;
}

/* The egress ports of a probe (data or ACK) into the pool; *n of them. */
static int trace_into(struct cf_net *cf, uint32_t src, uint32_t dst, uint16_t sport,
		      uint16_t dport, uint8_t type, uint8_t *n, struct ws_err *err)
{
	struct ws_pkt p;
	ws_pkt_probe(&p, src, dst, sport, dport);
	p.type = type;
	struct ws_hop hops[CF_PATH_MAX + 1];
	uint32_t h;
	int rc = ws_route_trace(cf->sim, &p, hops, CF_PATH_MAX + 1, &h, err);
	if (rc)
		return rc;
	uint32_t links = h ? h - 1 : 0;
	if ((rc = pool_room(cf, links, err)))
		return rc;
	for (uint32_t i = 0; i < links; i++)
		port_at(cf, &hops[i], &cf->pool[cf->n_pool++]);
	*n = (uint8_t)links;
	return WS_OK;
}

static int routes_grow(struct cf_net *cf, struct ws_err *err)
{
	uint32_t size = (cf->route_mask + 1) * 2;
	struct cf_route *t = calloc(size, sizeof *t);
	if (!t)
		return ws_err_set(err, WS_ENOMEM, "out of memory for the coflow routes");
	for (uint32_t i = 0; i <= cf->route_mask; i++) {
		const struct cf_route *r = &cf->routes[i];
		if (!r->key)
			continue;
		uint32_t k = (uint32_t)((r->key * 0x9e3779b97f4a7c15ull + r->sport) >> 40) &
			     (size - 1);
		while (t[k].key)
			k = (k + 1) & (size - 1);
		t[k] = *r;
	}
	free(cf->routes);
	cf->routes = t;
	cf->route_mask = size - 1;
	return WS_OK;
}

/* The route of (src, dst, sport), traced the first time. */
static const struct cf_route *route(struct cf_net *cf, uint32_t src, uint32_t dst,
				    uint16_t sport, struct ws_err *err)
{
	uint64_t key = (uint64_t)src << 32 | dst | 1ull << 63;
	uint32_t k = (uint32_t)((key * 0x9e3779b97f4a7c15ull + sport) >> 40) & cf->route_mask;
	while (cf->routes[k].key) {
		if (cf->routes[k].key == key && cf->routes[k].sport == sport)
			return &cf->routes[k];
		k = (k + 1) & cf->route_mask;
	}
	if (2 * (cf->n_routes + 1) > cf->route_mask + 1) {
		if (routes_grow(cf, err))
			return NULL;
		return route(cf, src, dst, sport, err);
	}
	struct cf_route r = { .key = key, .sport = sport, .off = (uint32_t)cf->n_pool };
	if (cf->n_pool > UINT32_MAX - 2 * CF_PATH_MAX) {
		ws_err_set(err, WS_ENOMEM, "coflow routes: more than 2^32 hops kept");
		return NULL;
	}
	/* RoCEv2's UDP port 4791, as the workloads' flows; the ACKs hash
	 * their own reversed tuple */
	if (trace_into(cf, src, dst, sport, 4791, WS_PKT_DATA, &r.n_data, err) ||
	    trace_into(cf, dst, src, 4791, sport, WS_PKT_ACK, &r.n_ack, err))
		return NULL;
	cf->st.routes++;
	cf->n_routes++;
	cf->routes[k] = r;
	return &cf->routes[k];
}

/* ---- describing a coflow ------------------------------------------------ */

void cf_begin(struct cf_net *cf)
{
	/* the last collective's ACK reservations are gone */
	for (uint32_t i = 0; i < cf->n_reserved; i++) {
		struct cf_port *p = &cf->port[cf->reserved[i]];
		if (p->ack != 0)
			fr_set_cap(cf->self, cf->reserved[i], p->cap);
		p->ack = p->ack_load = 0;
		p->listed = p->dirty = 0;
	}
	cf->n_reserved = cf->n_listed = cf->n_dirty = 0;
	if (++cf->stamp == 0) { /* wrapped: no port may look touched */
		for (uint32_t i = 0; i < cf->n_ports; i++)
			cf->port[i].stamp = 0;
		cf->stamp = 1;
	}
	cf->n_touched = 0;
}

static int touch(struct cf_net *cf, uint32_t g, double bits, struct ws_err *err)
{
	struct cf_port *p = &cf->port[g];
	if (p->stamp == cf->stamp) {
		p->load += bits;
		return WS_OK;
	}
	if (room(&cf->touched, sizeof *cf->touched, &cf->use, sizeof *cf->use,
		 &cf->cap_touched, cf->n_touched + 1ull))
		return ws_err_set(err, WS_ENOMEM, "out of memory for a coflow's links");
	p->stamp = cf->stamp;
	p->load = bits;
	cf->touched[cf->n_touched++] = g;
	return WS_OK;
}

int cf_add(struct cf_net *cf, uint32_t src, uint32_t dst, uint16_t sport,
	   uint64_t bytes, ws_time *lat, double *bits, struct cf_path *path,
	   struct ws_err *err)
{
	const struct cf_route *r = route(cf, src, dst, sport, err);
	if (!r)
		return err->code ? err->code : WS_ENOMEM;
	cf->st.transfers++;
	const struct ws_wire *w = &cf->wire;
	uint64_t payload = w->payload ? w->payload : 1000;
	uint64_t pkts = bytes ? (bytes + payload - 1) / payload : 1;
	uint64_t hdr = (uint64_t)w->header + w->int_bytes;
	double data_bits = 8.0 * ((double)bytes + (double)pkts * (double)hdr);
	double ack_bits = 8.0 * (double)w->ack * ((double)pkts / (w->ack_interval ? w->ack_interval : 1));
	/* its tail as `fluid` times a lone flow's (fr_lone_tail); its loads */
	uint64_t full = payload + hdr;
	uint64_t last = bytes ? bytes - (pkts - 1) * payload + hdr : hdr;
	const uint32_t *ports = &cf->pool[r->off];
	uint64_t rate[2 * CF_PATH_MAX];
	ws_time delay[2 * CF_PATH_MAX];
	uint32_t n = (uint32_t)r->n_data + r->n_ack;
	for (uint32_t i = 0; i < n; i++) {
		const struct cf_port *p = &cf->port[ports[i]];
		rate[i] = p->rate;
		delay[i] = p->delay;
		int rc = touch(cf, ports[i], i < r->n_data ? data_bits : ack_bits, err);
		if (rc)
			return rc;
	}
	ws_time t = fr_lone_tail(rate, delay, r->n_data, rate + r->n_data, delay + r->n_data,
				 r->n_ack, pkts, full, last, w->ack);
	*lat = t;
	*path = (struct cf_path){ .off = r->off, .n = r->n_data, .n_ack = r->n_ack,
				  .ack_share = data_bits > 0 ? ack_bits / data_bits : 0 };
	*bits = data_bits;
	return WS_OK;
}

/*
 * One collective alone.  Its transfers' data links are the solver's; their
 * ACKs reserve capacity on the ACK links (the share of the rate solved),
 * re-solved while a reservation moves by more than 1e-3 of its link, as
 * `fluid` does by default (ack_solve = reserve): an ACK does not hold its
 * transfer to the fill level of a link full of data.  The loads follow the
 * rates that change (fr_solve's list), so a solve costs what changed.
 */
static int mark_port(struct cf_net *cf, uint32_t g)
{
	struct cf_port *p = &cf->port[g];
	if (!p->listed) {
		if (room(&cf->reserved, sizeof *cf->reserved, NULL, 0, &cf->cap_reserved,
			 cf->n_reserved + 1ull))
			return -1;
		p->listed = 1;
		p->seq = cf->n_reserved;
		cf->reserved[cf->n_reserved++] = g;
		cf->n_listed++;
	}
	if (p->dirty)
		return 0;
	if (room(&cf->dirty, sizeof *cf->dirty, NULL, 0, &cf->cap_dirty, cf->n_dirty + 1ull))
		return -1;
	p->dirty = 1;
	cf->dirty[cf->n_dirty++] = (uint64_t)p->seq << 32 | g;
	return 0;
}

/* flow id's ACK load moved by d (bps) on its ACK links */
static int ack_move(struct cf_net *cf, uint32_t id, double d)
{
	struct cf_path pa = cf->sp[id];
	const uint32_t *ports = &cf->pool[pa.off + pa.n];
	for (uint32_t k = 0; k < pa.n_ack; k++) {
		cf->port[ports[k]].ack_load += pa.ack_share * d;
		if (mark_port(cf, ports[k]))
			return -1;
	}
	return 0;
}

int cf_self_add(struct cf_net *cf, uint32_t id, struct cf_path path, struct ws_err *err)
{
	double caps[CF_PATH_MAX], top = 0;
	const uint32_t *ports = &cf->pool[path.off];
	for (uint32_t i = 0; i < path.n; i++) {
		caps[i] = cf->port[ports[i]].cap - cf->port[ports[i]].ack;
		if (cf->port[ports[i]].cap > top)
			top = cf->port[ports[i]].cap;
	}
	if (room(&cf->sp, sizeof *cf->sp, &cf->sp_rate, sizeof *cf->sp_rate, &cf->cap_sp,
		 id + 1ull))
		return ws_err_set(err, WS_ENOMEM, "out of memory for a collective's transfers");
	if (fr_add(cf->self, id, ports, caps, path.n, top, 1.0, 0.0))
		return ws_err_set(err, WS_ENOMEM, "out of memory for a collective's transfers");
	cf->sp[id] = path;
	cf->sp_rate[id] = 0;
	return WS_OK;
}

void cf_self_remove(struct cf_net *cf, uint32_t id)
{
	fr_remove(cf->self, id);
	if (ack_move(cf, id, -cf->sp_rate[id]))
		cf->self_oom = true;
	cf->sp_rate[id] = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The solver's capacity of the listed ports where the reservation moved
 * by more than 1e-3 of the link; true when one did.  Only ports whose ACK
 * load moved since the last look can have (the others were looked at with
 * the load they have), taken in the order they were listed.  Ports back to
 * no load leave the list. */
static bool reserve_moved(struct cf_net *cf)
{
	bool moved = false;
	if (cf->n_dirty > 1)
		qsort(cf->dirty, cf->n_dirty, sizeof *cf->dirty, cmp_u64);
	for (uint32_t i = 0; i < cf->n_dirty; i++) {
		uint32_t g = (uint32_t)cf->dirty[i];
		struct cf_port *p = &cf->port[g];
		p->dirty = 0;
		double a = p->ack_load > 0 ? p->ack_load : 0;
		if (fabs(a - p->ack) > 1e-3 * p->cap) {
			p->ack = a;
			double c = p->cap - a;
			fr_set_cap(cf->self, g, c > 0.01 * p->cap ? c : 0.01 * p->cap);
			moved = true;
		}
		if (!(p->ack > 0 || p->ack_load > 1e-9 * p->cap)) {
			p->listed = 0;
			cf->n_listed--;
		}
	}
	cf->n_dirty = 0;
	/* pack the list once stale entries are most of it */
	if (cf->n_reserved > 2 * cf->n_listed + 256) {
		uint32_t kept = 0;
		for (uint32_t i = 0; i < cf->n_reserved; i++) {
			struct cf_port *p = &cf->port[cf->reserved[i]];
			if (!p->listed || p->seq != i)
				continue;
			p->seq = kept;
			cf->reserved[kept++] = cf->reserved[i];
		}
		cf->n_reserved = kept;
	}
	return moved;
}

int cf_self_solve(struct cf_net *cf)
{
	cf->n_solved = 0;
	for (int round = 0; round < 9; round++) {
		const uint32_t *ids;
		int64_t n = fr_solve(cf->self, false, &ids);
		if (n < 0 || cf->self_oom)
			return -1;
		if (room(&cf->solved, sizeof *cf->solved, NULL, 0, &cf->cap_solved,
			 (uint64_t)cf->n_solved + (uint64_t)n))
			return -1;
		memcpy(cf->solved + cf->n_solved, ids, (size_t)n * sizeof *ids);
		cf->n_solved += (uint32_t)n;
		for (int64_t i = 0; i < n; i++) {
			double r = fr_rate(cf->self, ids[i]);
			if (r != cf->sp_rate[ids[i]] && ack_move(cf, ids[i], r - cf->sp_rate[ids[i]]))
				return -1;
			cf->sp_rate[ids[i]] = r;
		}
		if (round == 8 || !reserve_moved(cf))
			return 0;
	}
	return 0;
}

double cf_self_rate(const struct cf_net *cf, uint32_t id)
{
	return fr_rate(cf->self, id);
}

uint32_t cf_self_changed(const struct cf_net *cf, const uint32_t **ids)
{
	*ids = cf->solved;
	return cf->n_solved;
}

/* ---- running coflows ---------------------------------------------------- */

static void end_event(struct ws_sim *sim, void *obj, uint64_t arg);
static void solve_event(struct ws_sim *sim, void *obj, uint64_t arg);

static void arm_solve(struct cf_net *cf, ws_time wait)
{
	if (cf->solve_armed)
		return;
	cf->solve_armed = true;
	ws_schedule(cf->sim, ws_now(cf->sim) + wait, solve_event, cf, 0);
}

/* remaining brought to now at the rate it had */
static void settle(struct cf_co *c, ws_time now)
{
	c->remaining -= c->rate * (double)(now - c->since) * 1e-12;
	if (c->remaining < 0)
		c->remaining = 0;
	c->since = now;
}

static void arm_end(struct cf_net *cf, uint32_t id)
{
	struct cf_co *c = &cf->co[id];
	ws_cancel(cf->sim, c->end);
	if (!(c->rate > 0)) {
		c->end = (struct ws_evh){ 0 };
		return;
	}
	double ps = ceil(c->remaining / c->rate * 1e12);
	ws_time when = c->since + (ps < 1e18 ? (ws_time)ps : (ws_time)1e18);
	c->end = ws_schedule(cf->sim, when, end_event, cf, id);
}

static void solve_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct cf_net *cf = obj;
	cf->solve_armed = false;
	const uint32_t *ids;
	int64_t n = fr_solve(cf->fr, false, &ids);
	if (n < 0) {
		struct ws_err err;
		ws_err_clear(&err);
		ws_err_set(&err, WS_ENOMEM, "out of memory solving the coflows' rates");
		ws_fail(sim, &err);
		return;
	}
	cf->st.solves++;
	cf->st.solved += (uint64_t)n;
	if ((uint64_t)n > cf->st.largest)
		cf->st.largest = (uint64_t)n;
	ws_time now = ws_now(sim);
	for (int64_t i = 0; i < n; i++) {
		struct cf_co *c = &cf->co[ids[i]];
		double rate = fr_rate(cf->fr, ids[i]);
		if (rate == c->rate && ws_pending(sim, c->end))
			continue;
		settle(c, now);
		c->rate = rate;
		arm_end(cf, ids[i]);
	}
}

static void end_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	struct cf_net *cf = obj;
	uint32_t id = (uint32_t)arg;
	struct cf_co *c = &cf->co[id];
	c->end = (struct ws_evh){ 0 };
	settle(c, ws_now(sim));
	/* the end was armed for the whole remainder: what is left is rounding */
	c->live = 0;
	cf->st.live--;
	fr_remove(cf->fr, id);
	arm_solve(cf, cf->batch);
	cf->done(cf->arg, id);
}

static int co_room(struct cf_net *cf, uint32_t id, struct ws_err *err)
{
	if (id < cf->cap_co)
		return WS_OK;
	uint32_t cap = cf->cap_co ? cf->cap_co : 64;
	while (cap <= id)
		cap *= 2;
	struct cf_co *c = realloc(cf->co, cap * sizeof *c);
	if (!c)
		return ws_err_set(err, WS_ENOMEM, "out of memory for the coflows");
	memset(&c[cf->cap_co], 0, (cap - cf->cap_co) * sizeof *c);
	cf->co = c;
	cf->cap_co = cap;
	return WS_OK;
}

int cf_describe(struct cf_net *cf, ws_time alone, struct cf_desc *out)
{
	double most = 0, x0 = INFINITY;
	for (uint32_t i = 0; i < cf->n_touched; i++) {
		const struct cf_port *p = &cf->port[cf->touched[i]];
		if (p->load > most)
			most = p->load;
	}
	*out = (struct cf_desc){ .links = cf->touched, .use = cf->use };
	if (!(most > 0))
		return 1;
	/* x0: its rate alone, where its most loaded link (relative to its
	 * capacity) is full */
	for (uint32_t i = 0; i < cf->n_touched; i++) {
		const struct cf_port *p = &cf->port[cf->touched[i]];
		cf->use[i] = p->load / most;
		double x = p->cap / cf->use[i];
		if (x < x0)
			x0 = x;
	}
	/* alone it does its work in `alone` (not less than the most loaded
	 * link's bits at x0 unless its chain overlaps them with latencies) */
	double work = x0 * (double)alone * 1e-12;
	out->n = cf->n_touched;
	out->work = work > 1 ? work : 1;
	return 0;
}

int cf_start(struct cf_net *cf, uint32_t id, const struct cf_desc *d, struct ws_err *err)
{
	int rc = co_room(cf, id, err);
	if (rc)
		return rc;
	if (cf->co[id].live)
		return ws_err_set(err, WS_EINVAL, "coflow %u is already in flight", id);
	if (room(&cf->caps, sizeof *cf->caps, NULL, 0, &cf->cap_caps, d->n))
		return ws_err_set(err, WS_ENOMEM, "out of memory for a coflow's links");
	/* its cap: its rate alone, where its most loaded link (relative to
	 * its capacity) is full.  It binds where that link would, and leaves
	 * the solver every link the coflows on it cannot fill at their caps
	 * (solver.h: loose links) */
	double x0 = INFINITY;
	for (uint32_t i = 0; i < d->n; i++) {
		cf->caps[i] = cf->port[d->links[i]].cap;
		double x = cf->caps[i] / d->use[i];
		if (x < x0)
			x0 = x;
	}
	if (!(x0 > 0))
		return ws_err_set(err, WS_EINVAL, "coflow %u crosses a link of no capacity", id);
	if (fr_add_use(cf->fr, id, d->links, cf->caps, d->use, d->n, x0, 1.0, 0.0))
		return ws_err_set(err, WS_ENOMEM, "out of memory adding a coflow to the solver");
	cf->co[id] = (struct cf_co){ .remaining = d->work, .since = ws_now(cf->sim), .live = 1 };
	cf->st.coflows++;
	cf->st.links += d->n;
	cf->st.live++;
	arm_solve(cf, cf->batch);
	return 0;
}
