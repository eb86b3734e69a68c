/* SPDX-License-Identifier: MIT */
/*
 * Failures: links and switches that go down and come back, links that run
 * slower than built, and links that lose packets (docs/failures.md).
 *
 * [failures] gives a schedule of timed events, `TIME ACTION TARGET`, read
 * from its `events` key and/or its `file`; every event is parsed, its
 * target resolved to a set of links and checked against the fabric before
 * the run starts, so a run never stops on a bad event.  At its time an
 * event acts on each of its links:
 *
 *  - down: the link (both directions) carries nothing; what is queued at
 *    either end is dropped (cause `failure`) releasing its switch buffer as
 *    a dequeue would, what is on the wire is dropped on arrival (a packet
 *    that started serializing before the link went down is lost even if
 *    the link is back when it would arrive: see lost_until), PFC state
 *    through the link is cleared, and the routing rule is told through its
 *    link_change op after [failures] reroute_delay;
 *  - up: the reverse, and the link's built rate and zero loss are back;
 *  - rate: both directions serialize at the new rate;
 *  - loss / gray: packets arriving over the link are dropped with that
 *    probability, drawn from a per-port stream distinct from the ECN one.
 *
 * A link is down while a link event or a switch at either end holds it
 * down (a switch coming back does not raise a link that its own event
 * took down).  Drops are counted per cause; failures.csv lists each
 * event's effect per link and, after the run, each link's drops.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

/* Refused before anything is allocated for them (docs/failures.md). */
#define FAIL_MAX_EVENTS 1000000u
#define FAIL_MAX_FILE_BYTES ((uint64_t)64 << 20)
#define FAIL_MAX_LINKS ((uint64_t)1 << 26)  /* links named by all events */
#define FAIL_MAX_TOKENS 8

/* Component ids of the failure streams (ws_rng_seed with the failure seed) */
#define WS_RNG_FAIL_LOSS 0x46u /* per port: loss and gray draws */
#define WS_RNG_FAIL_PICK 0x47u /* per (K, tier): random links */

enum fail_action { FA_DOWN, FA_UP, FA_RATE, FA_LOSS, FA_GRAY };
static const char *const action_names[] = { "down", "up", "rate", "loss", "gray" };

struct ws_fail_event {
	ws_time when;
	uint8_t action;            /* enum fail_action */
	uint8_t is_switch;         /* a switch event: holds its links as a switch */
	uint8_t applied;
	uint8_t from_file;         /* written in [failures] file, not events */
	uint64_t rate;             /* FA_RATE */
	double prob;               /* FA_LOSS, FA_GRAY */
	uint64_t first, n;         /* its links: fail.links[first, first + n) */
};

/* One failures.csv row of an applied event, for one link. */
struct ws_fail_row {
	ws_time when;
	uint32_t gid;              /* the link's lower port index */
	uint8_t action;
	uint64_t rate;
	double prob;
	uint64_t dropped;
};

/* Where an event was written, for its errors. */
struct ev_src {
	const char *file;
	int line;
	const char *key;           /* "events" or "file" */
	unsigned index;            /* 1-based in `events`; 0: a file line */
	const char *text;
};

static int WS_PRINTF(3, 4) ev_err(struct ws_err *err, const struct ev_src *s,
				  const char *fmt, ...)
{
	char why[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	char which[32] = "";
	if (s->index)
		snprintf(which, sizeof which, ", event %u", s->index);
	ws_err_at(err, WS_EINVAL, s->file, s->line, "[failures] %s%s '%.200s': %s",
		  s->key, which, s->text, why);
	if (err)
		snprintf(err->key, sizeof err->key, "failures.%s", s->key);
	return WS_EINVAL;
}

/* ---- per-port state -------------------------------------------------------- */

static struct ws_fail_port *fail_ports(struct ws_sim *sim)
{
	if (!sim->fail.port) {
		uint32_t n = sim->fab.n_ports;
		sim->fail.port = ws_xcalloc(n ? n : 1, sizeof *sim->fail.port);
		for (uint32_t i = 0; i < n; i++)
			sim->fail.port[i].built_rate = sim->ports[i].rate;
	}
	return sim->fail.port;
}

static inline uint32_t gid_of(const struct ws_sim *sim, const struct ws_port *p)
{
	return (uint32_t)(p - sim->ports);
}

const uint64_t *ws_sim_link_changes(const struct ws_sim *sim)
{
	return &sim->links_changed;
}

bool ws_port_up(const struct ws_sim *sim, uint32_t node, uint32_t local)
{
	if (node >= sim->fab.n_nodes || local >= sim->nodes[node].n_ports)
		return false;
	return !sim->ports[sim->nodes[node].first_port + local].down;
}

/* ---- drops ----------------------------------------------------------------- */

void ws_fail_drop_why(struct ws_sim *sim, struct ws_port *port, struct ws_pkt *p,
		      enum ws_fail_why why)
{
	if (sim->trace_pkts)
		ws_ptrace_pkt(sim, port, p, WS_PT_LOST);
	port->drops++;
	sim->ctr.drops++;
	struct ws_fail_port *fp = sim->fail.port ? &sim->fail.port[gid_of(sim, port)] : NULL;
	switch (why) {
	case WS_WHY_LOSS:
		sim->ctr.loss_drops++;
		if (fp)
			fp->lost++;
		break;
	case WS_WHY_GRAY:
		sim->ctr.gray_drops++;
		if (fp)
			fp->grayed++;
		break;
	default:
		sim->ctr.fail_drops++;
		if (fp)
			fp->failure++;
		break;
	}
	/* why the flow lost a packet, for its abort message; a partition
	 * writes it only for flows it sends (another runs at the same time) */
	if (p->type != WS_PKT_PFC && p->flow < sim->n_flows &&
	    (!sim->main || sim->flows[p->flow]->cc.sim == sim)) {
		struct ws_flow *f = sim->flows[p->flow];
		f->fail_why = (uint8_t)why;
		f->fail_node = port->node;
		f->fail_port = port->local;
	}
	ws_pkt_free(&sim->pkts, p);
}

void ws_fail_drop(struct ws_sim *sim, struct ws_port *port, struct ws_pkt *p)
{
	ws_fail_drop_why(sim, port, p, WS_WHY_LINK_DOWN);
}

bool ws_fail_arrival(struct ws_sim *sim, struct ws_port *port, struct ws_pkt *p)
{
	struct ws_fail_port *fp = &sim->fail.port[gid_of(sim, port)];
	if (sim->now <= fp->lost_until) {
		ws_fail_drop_why(sim, port, p, WS_WHY_LINK_DOWN);
		return true;
	}
	/* PFC frames are spared: a lost RESUME would pause a port for good */
	if (p->type == WS_PKT_PFC || (fp->loss <= 0 && fp->gray <= 0))
		return false;
	double u = ws_rng_uniform(&fp->rng);
	if (u < fp->loss) {
		ws_fail_drop_why(sim, port, p, WS_WHY_LOSS);
		return true;
	}
	if (u < fp->loss + fp->gray) {
		ws_fail_drop_why(sim, port, p, WS_WHY_GRAY);
		return true;
	}
	return false;
}

void ws_fail_reason(const struct ws_sim *sim, const struct ws_flow *f, char *buf,
		    size_t size)
{
	(void)sim;
	switch (f->fail_why) {
	case WS_WHY_LINK_DOWN:
		snprintf(buf, size, "link %u:%u down", f->fail_node, f->fail_port);
		break;
	case WS_WHY_NO_ROUTE:
		snprintf(buf, size, "no route at node %u", f->fail_node);
		break;
	case WS_WHY_LOSS:
		snprintf(buf, size, "random loss on link %u:%u", f->fail_node, f->fail_port);
		break;
	case WS_WHY_GRAY:
		snprintf(buf, size, "gray loss on link %u:%u", f->fail_node, f->fail_port);
		break;
	default:
		if (size)
			buf[0] = '\0';
		break;
	}
}

/* ---- one link changes ------------------------------------------------------- */

/* Everything queued at `port` (and set aside for frozen flows) dropped,
 * each packet's switch buffer released as a dequeue would; how many. */
static uint64_t port_flush(struct ws_sim *sim, struct ws_port *port)
{
	uint64_t n = 0;
	for (unsigned q = 0; q < WS_PRIORITIES; q++) {
		struct ws_pkt *p;
		while ((p = ws_pktq_pop(&port->q[q]))) {
			port->q_bytes -= p->wire;
			if (!port->is_host)
				ws_switch_release(sim, port, p);
			ws_fail_drop(sim, port, p);
			n++;
		}
		struct ws_hold *h = port->hold;
		while (h && (p = ws_pktq_pop(&h->q[q]))) {
			h->bytes -= p->wire;
			if (!port->is_host)
				ws_switch_release(sim, port, p);
			ws_fail_drop(sim, port, p);
			n++;
		}
	}
	return n;
}

/* Nothing stays paused through a dead link. */
static void pfc_clear(struct ws_sim *sim, struct ws_port *p)
{
	if (p->paused) {
		p->paused_time += sim->now - p->paused_since;
		p->paused = 0;
	}
	p->pause_sent = 0;
}

static void notify_event(struct ws_sim *sim, void *obj, uint64_t arg);

/* The routing rule hears of the link at gid changing, after `delay`. */
static void notify(struct ws_sim *sim, uint32_t gid, bool up, ws_time delay)
{
	if (delay) {
		ws_eventq_push(&sim->q, NULL, sim->now + delay, notify_event, NULL,
			       (uint64_t)gid << 1 | up);
		return;
	}
	const struct ws_routing_ops *ops = WS_ROUTING_OPS(sim);
	if (!ops->link_change)
		return;
	const struct ws_port *p = &sim->ports[gid];
	struct ws_err err;
	ws_err_clear(&err);
	if (ops->link_change(&sim->slot[WS_KIND_ROUTING].inst, &sim->fab, p->node,
			     p->local, up, &err)) {
		ws_err_prefix(&err, "routing rule '%s', link %u:%u %s: ",
			      sim->slot[WS_KIND_ROUTING].ld.desc->name, p->node,
			      p->local, up ? "up" : "down");
		ws_fail(sim, &err);
	}
}

static void notify_event(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)obj;
	notify(sim, (uint32_t)(arg >> 1), arg & 1, 0);
}

/* Down-holds of a link, kept on its lower port: a link event's, and one
 * per switch end taken down. */
#define HOLD_LINK 1u
#define HOLD_SWITCH 2u

/* Add (down) or remove (up) a hold on the link at gid; on a change of
 * state, apply it.  Returns the packets dropped at once (queues and
 * wire). */
static uint64_t link_hold(struct ws_sim *sim, uint32_t gid, bool down,
			  unsigned hold, ws_time delay)
{
	struct ws_port *a = &sim->ports[gid], *b = &sim->ports[a->peer];
	struct ws_fail_port *fp = &fail_ports(sim)[WS_MIN(gid, a->peer)];
	bool was_down = fp->down_count != 0;
	if (hold == HOLD_LINK) {
		fp->down_count = (fp->down_count & ~HOLD_LINK) | (down ? HOLD_LINK : 0);
	} else if (down) {
		fp->down_count += HOLD_SWITCH;
	} else if (fp->down_count >= HOLD_SWITCH) {
		fp->down_count -= HOLD_SWITCH;
	}
	bool is_down = fp->down_count != 0;
	if (was_down == is_down)
		return 0;
	uint64_t dropped = 0;
	struct ws_port *end[2] = { a, b };
	for (int k = 0; k < 2; k++) {
		struct ws_port *p = end[k];
		struct ws_fail_port *f = &sim->fail.port[gid_of(sim, p)];
		p->down = is_down;
		if (is_down) {
			f->lost_until = WS_MAX(p->busy_until, sim->now) + p->delay;
			sim->ports[p->peer].fail_in = 1;
			dropped += ws_port_on_wire(sim, p) + port_flush(sim, p);
			pfc_clear(sim, p);
		}
	}
	sim->links_changed++;
	if (is_down) {
		sim->fail.links_down++;
	} else {
		sim->fail.links_down--;
	}
	notify(sim, WS_MIN(gid, a->peer), !is_down, delay);
	/* a NIC at either end may send again, or into the dead link */
	ws_port_kick(sim, a);
	ws_port_kick(sim, b);
	return dropped;
}

static void link_rate(struct ws_sim *sim, uint32_t gid, uint64_t rate)
{
	struct ws_port *a = &sim->ports[gid], *b = &sim->ports[a->peer];
	struct ws_fail_port *fp = fail_ports(sim);
	/* ECN thresholds and headroom stay those of the built rate */
	ws_port_ready(sim, a);
	ws_port_ready(sim, b);
	a->rate = rate ? rate : fp[gid].built_rate;
	b->rate = rate ? rate : fp[a->peer].built_rate;
	/* an accelerator's background load cannot take the whole link */
	struct ws_port *end[2] = { a, b };
	for (int k = 0; k < 2; k++)
		if ((double)end[k]->bg_load > 0.99 * (double)end[k]->rate)
			end[k]->bg_load = (uint64_t)(0.99 * (double)end[k]->rate);
}

static void link_loss(struct ws_sim *sim, uint32_t gid, int action, double prob)
{
	struct ws_port *a = &sim->ports[gid];
	uint32_t ends[2] = { gid, a->peer };
	for (int k = 0; k < 2; k++) {
		struct ws_fail_port *f = &fail_ports(sim)[ends[k]];
		if (action == FA_LOSS)
			f->loss = prob;
		else if (action == FA_GRAY)
			f->gray = prob;
		else
			f->loss = f->gray = 0;
		if ((f->loss > 0 || f->gray > 0) && !f->rng_ready) {
			ws_rng_seed(&f->rng, sim->fail.seed,
				    WS_RNG_ID(WS_RNG_FAIL_LOSS, ends[k]));
			f->rng_ready = 1;
		}
		if (f->loss > 0 || f->gray > 0) {
			sim->ports[sim->ports[ends[k]].peer].fail_in = 1;
		}
	}
}

static void add_row(struct ws_sim *sim, const struct ws_fail_event *ev,
		    uint32_t gid, uint64_t dropped)
{
	struct ws_failures *fl = &sim->fail;
	if (fl->n_rows == fl->cap_rows) {
		fl->cap_rows = fl->cap_rows ? 2 * fl->cap_rows : 64;
		fl->rows = ws_xrealloc(fl->rows, fl->cap_rows, sizeof *fl->rows);
	}
	fl->rows[fl->n_rows++] = (struct ws_fail_row){
		.when = sim->now, .gid = gid, .action = ev->action,
		.rate = ev->rate, .prob = ev->prob, .dropped = dropped,
	};
}

static void apply_event(struct ws_sim *sim, struct ws_fail_event *ev, ws_time delay)
{
	ev->applied = 1;
	sim->fail.applied++;
	unsigned hold = ev->is_switch ? HOLD_SWITCH : HOLD_LINK;
	for (uint64_t i = 0; i < ev->n; i++) {
		uint32_t gid = sim->fail.links[ev->first + i];
		uint64_t dropped = 0;
		switch (ev->action) {
		case FA_DOWN:
			dropped = link_hold(sim, gid, true, hold, delay);
			break;
		case FA_UP:
			if (!ev->is_switch) {
				link_rate(sim, gid, 0);
				link_loss(sim, gid, FA_UP, 0);
			}
			link_hold(sim, gid, false, hold, delay);
			break;
		case FA_RATE:
			link_rate(sim, gid, ev->rate);
			break;
		default:
			link_loss(sim, gid, ev->action, ev->prob);
			break;
		}
		add_row(sim, ev, gid, dropped);
	}
}

static void event_fire(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)obj;
	struct ws_fail_event *ev = &sim->fail.ev[arg];
	if (!ev->applied)
		apply_event(sim, ev, sim->failc.reroute_delay);
}

int ws_link_set(struct ws_sim *sim, uint32_t node, uint32_t local, bool up,
		struct ws_err *err)
{
	if (node >= sim->fab.n_nodes || local >= sim->nodes[node].n_ports)
		return ws_err_set(err, WS_EINVAL, "no port %u at node %u", local, node);
	struct ws_port *a = ws_port_at(sim, node, local);
	if (a->peer == WS_NONE)
		return ws_err_set(err, WS_EINVAL, "port %u of node %u is not on a link",
				  local, node);
	const struct ws_routing_ops *ops = WS_ROUTING_OPS(sim);
	if (!ops->link_change)
		return ws_err_set(err, WS_EINVAL,
				  "routing rule '%s' does not handle failures",
				  sim->slot[WS_KIND_ROUTING].ld.desc->name);
	link_hold(sim, gid_of(sim, a), !up, HOLD_LINK, 0);
	if (sim->failed) {
		if (err)
			*err = sim->fail_err;
		return sim->fail_err.code;
	}
	return WS_OK;
}

void ws_failures_start(struct ws_sim *sim)
{
	for (uint32_t i = 0; i < sim->fail.n_ev; i++) {
		const struct ws_fail_event *ev = &sim->fail.ev[i];
		if (!ev->applied)
			ws_eventq_push(&sim->q, NULL, WS_MAX(ev->when, sim->now),
				       event_fire, NULL, i);
	}
}

struct when_idx {
	ws_time when;
	uint32_t i;
};

static int cmp_when(const void *x, const void *y)
{
	const struct when_idx *a = x, *b = y;
	if (a->when != b->when)
		return a->when < b->when ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

int ws_failures_apply(struct ws_sim *sim, ws_time until, struct ws_err *err)
{
	struct ws_failures *fl = &sim->fail;
	/* in time order, ties in the order written */
	struct when_idx *order = ws_xcalloc(fl->n_ev ? fl->n_ev : 1, sizeof *order);
	for (uint32_t i = 0; i < fl->n_ev; i++)
		order[i] = (struct when_idx){ fl->ev[i].when, i };
	qsort(order, fl->n_ev, sizeof *order, cmp_when);
	for (uint32_t i = 0; i < fl->n_ev && !sim->failed; i++) {
		struct ws_fail_event *ev = &fl->ev[order[i].i];
		if (ev->when <= until && !ev->applied)
			apply_event(sim, ev, 0);
	}
	free(order);
	if (sim->failed) {
		if (err)
			*err = sim->fail_err;
		return sim->fail_err.code;
	}
	return WS_OK;
}

size_t ws_failures_scheduled(const struct ws_sim *sim)
{
	return sim->fail.n_ev;
}

void ws_failures_free(struct ws_sim *sim)
{
	free(sim->fail.ev);
	free(sim->fail.links);
	free(sim->fail.port);
	free(sim->fail.rows);
	memset(&sim->fail, 0, sizeof sim->fail);
}

/* ---- the schedule: parsed, resolved and checked before the run ------------------ */

static const struct ws_param time_p = { .key = "time", .type = WS_PT_TIME };
static const struct ws_param rate_p = { .key = "rate", .type = WS_PT_RATE, .min = "1bps" };
static const struct ws_param prob_p = { .key = "probability", .type = WS_PT_FLOAT,
					.min = "0", .max = "1" };

struct sched {
	struct ws_sim *sim;
	struct ws_err *err;
	uint32_t cap_ev;
	uint64_t cap_links;
};

static void push_link(struct sched *s, uint32_t gid)
{
	struct ws_failures *fl = &s->sim->fail;
	if (fl->n_links == s->cap_links) {
		s->cap_links = s->cap_links ? 2 * s->cap_links : 64;
		fl->links = ws_xrealloc(fl->links, s->cap_links, sizeof *fl->links);
	}
	fl->links[fl->n_links++] = gid;
}

static int check_node(struct sched *s, const struct ev_src *src, const char *tok,
		      uint32_t *node)
{
	uint64_t v;
	uint32_t n = s->sim->fab.n_nodes;
	if (!ws_text_u64(tok, &v))
		return ev_err(s->err, src, "'%s' is not a node number", tok);
	if (v >= n)
		return ev_err(s->err, src, "no node %s (the fabric has %u nodes: 0..%u)",
			      tok, n, n - 1);
	*node = (uint32_t)v;
	return WS_OK;
}

/* `link N:P` (one link) or `link A-B` (every link between A and B). */
static int target_link(struct sched *s, const struct ev_src *src, char *spec)
{
	struct ws_sim *sim = s->sim;
	char *sep = strpbrk(spec, ":-");
	if (!sep)
		return ev_err(s->err, src, "expected NODE:PORT or A-B after 'link', not '%s'",
			      spec);
	char kind = *sep;
	*sep = '\0';
	uint32_t a, b;
	int rc = check_node(s, src, spec, &a);
	if (rc)
		return rc;
	const struct ws_node *na = &sim->nodes[a];
	if (kind == ':') {
		uint64_t port;
		if (!ws_text_u64(sep + 1, &port))
			return ev_err(s->err, src, "'%s' is not a port number", sep + 1);
		if (port >= na->n_ports)
			return ev_err(s->err, src, "node %u has no port %" PRIu64
				      " (it has %u: 0..%u)", a, port, na->n_ports,
				      na->n_ports - 1);
		uint32_t gid = na->first_port + (uint32_t)port;
		if (sim->ports[gid].peer == WS_NONE)
			return ev_err(s->err, src, "port %u:%" PRIu64 " is not on a link",
				      a, port);
		push_link(s, WS_MIN(gid, sim->ports[gid].peer));
		return WS_OK;
	}
	rc = check_node(s, src, sep + 1, &b);
	if (rc)
		return rc;
	uint64_t before = sim->fail.n_links;
	for (uint32_t l = 0; l < na->n_ports; l++) {
		const struct ws_port *p = &sim->ports[na->first_port + l];
		if (p->peer != WS_NONE && sim->ports[p->peer].node == b)
			push_link(s, WS_MIN(na->first_port + l, p->peer));
	}
	if (sim->fail.n_links == before)
		return ev_err(s->err, src, "no link between nodes %u and %u", a, b);
	return WS_OK;
}

static int target_switch(struct sched *s, const struct ev_src *src, const char *tok)
{
	struct ws_sim *sim = s->sim;
	uint32_t n;
	int rc = check_node(s, src, tok, &n);
	if (rc)
		return rc;
	const struct ws_node *node = &sim->nodes[n];
	if (node->kind != WS_NODE_SWITCH)
		return ev_err(s->err, src, "node %u is a host, not a switch (take its "
			      "link down instead: 'link %u:0')", n, n);
	for (uint32_t l = 0; l < node->n_ports; l++) {
		const struct ws_port *p = &sim->ports[node->first_port + l];
		if (p->peer != WS_NONE)
			push_link(s, WS_MIN(node->first_port + l, p->peer));
	}
	return WS_OK;
}


/* How many links `random K tier T` or `random K% tier T` asks for. */
static int random_count(struct sched *s, const struct ev_src *src, const char *k,
			uint64_t total, unsigned tier, uint64_t *count)
{
	size_t len = strlen(k);
	if (len > 1 && k[len - 1] == '%') {
		char *end;
		double pct = strtod(k, &end);
		if (end != k + len - 1 || !(pct > 0 && pct <= 100))
			return ev_err(s->err, src, "'%s': expected a share of the tier's "
				      "links above 0%% and at most 100%% (e.g. 1%%)", k);
		*count = (uint64_t)(pct * (double)total / 100.0 + 0.5);
		if (*count == 0)
			*count = 1;
		return WS_OK;
	}
	if (!ws_text_u64(k, count) || *count == 0)
		return ev_err(s->err, src, "'%s': expected a number of links (at least 1) "
			      "or a share such as 1%%", k);
	if (*count > total)
		return ev_err(s->err, src, "%" PRIu64 " links asked for, but tier %u has "
			      "only %" PRIu64, *count, tier, total);
	return WS_OK;
}

/* `random K tier T`: K links of tier T drawn with the failure seed, from a
 * stream of (K, T): the same words pick the same links (an `up` brings back
 * what a `down` took), and other events do not change the draw. */
static int target_random(struct sched *s, const struct ev_src *src, char **tok,
			 int n)
{
	struct ws_sim *sim = s->sim;
	uint64_t tier;
	if (n < 3 || strcmp(tok[1], "tier") || !ws_text_u64(tok[2], &tier))
		return ev_err(s->err, src, "expected 'random K tier T' or 'random K%% tier T' "
			      "(T: 1 host-leaf, 2 leaf-spine, 3 spine-core)");
	uint32_t *cand = NULL;
	uint64_t total = 0, cap = 0;
	unsigned max_tier = 0;
	for (uint32_t g = 0; g < sim->fab.n_ports; g++) {
		const struct ws_port *p = &sim->ports[g];
		if (p->peer == WS_NONE || p->peer < g)
			continue;
		unsigned t = ws_link_tier(sim, &sim->ports[g]);
		max_tier = WS_MAX(max_tier, t);
		if (t != tier)
			continue;
		if (total == cap) {
			cap = cap ? 2 * cap : 64;
			cand = ws_xrealloc(cand, cap, sizeof *cand);
		}
		cand[total++] = g;
	}
	uint64_t count = 0;
	int rc = WS_OK;
	if (!total)
		rc = ev_err(s->err, src, "tier %" PRIu64 " has no links (this fabric's "
			    "tiers: 1..%u)", tier, max_tier);
	if (!rc)
		rc = random_count(s, src, tok[0], total, (unsigned)tier, &count);
	if (!rc && sim->fail.n_links + count > FAIL_MAX_LINKS)
		rc = ev_err(s->err, src, "the events name more than %" PRIu64 " links",
			    FAIL_MAX_LINKS);
	if (!rc) {
		struct ws_rng rng;
		ws_rng_seed(&rng, sim->fail.seed,
			    WS_RNG_ID(WS_RNG_FAIL_PICK, tier << 32 | (count & 0xffffffffu)));
		for (uint64_t i = 0; i < count; i++) {
			uint64_t j = i + ws_rng_below(&rng, total - i);
			uint32_t t = cand[i];
			cand[i] = cand[j];
			cand[j] = t;
			push_link(s, cand[i]);
		}
	}
	free(cand);
	return rc;
}

static int parse_action(struct sched *s, const struct ev_src *src, const char *tok,
			struct ws_fail_event *ev)
{
	for (unsigned a = 0; a < WS_ARRAY_LEN(action_names); a++) {
		if (!strcmp(tok, action_names[a])) {
			ev->action = (uint8_t)a;
			return WS_OK;
		}
	}
	return ev_err(s->err, src, "unknown action '%s' (expected down, up, rate RATE, "
		      "loss P or gray P)", tok);
}

static bool is_target_word(const char *t)
{
	return !strcmp(t, "link") || !strcmp(t, "switch") || !strcmp(t, "random");
}

/* The value of rate / loss / gray, written right after the action. */
static int parse_value(struct sched *s, const struct ev_src *src, char **tok, int n,
		       struct ws_fail_event *ev)
{
	const char *act = action_names[ev->action];
	const char *eg = ev->action == FA_RATE ? "200Gbps" : "0.001";
	if (is_target_word(tok[2]))
		return ev_err(s->err, src, "'%s' takes its value right after it: "
			      "'TIME %s %s TARGET' (e.g. '1ms %s %s link 3:1')",
			      act, act, ev->action == FA_RATE ? "RATE" : "P", act, eg);
	char why[256];
	int rc = ev->action == FA_RATE
			 ? ws_param_parse(&rate_p, tok[2], &ev->rate, why, sizeof why)
			 : ws_param_parse(&prob_p, tok[2], &ev->prob, why, sizeof why);
	if (rc)
		return ev_err(s->err, src, "%s value '%s': %s", act, tok[2], why);
	return WS_OK;
}

static int parse_time(struct sched *s, const struct ev_src *src, const char *tok,
		      struct ws_fail_event *ev)
{
	char why[256];
	if (!strcmp(tok, "0"))
		ev->when = 0; /* the start needs no unit */
	else if (ws_param_parse(&time_p, tok, &ev->when, why, sizeof why))
		return ev_err(s->err, src, "time '%s': %s", tok, why);
	ws_time stop = s->sim->simc.stop_time;
	if (stop && ev->when > stop) {
		char st[64];
		ws_param_format(&time_p, &stop, st, sizeof st);
		return ev_err(s->err, src, "time %s is past [sim] stop_time = %s: it "
			      "would never happen", tok, st);
	}
	return WS_OK;
}

static int parse_target(struct sched *s, const struct ev_src *src, char **tok, int n,
			struct ws_fail_event *ev)
{
	const char *expect = "expected a target: link NODE:PORT, link A-B, switch N, "
			     "random K tier T or random K% tier T";
	if (n < 2)
		return ev_err(s->err, src, "%s", expect);
	int used = 2;
	int rc;
	if (!strcmp(tok[0], "link")) {
		rc = target_link(s, src, tok[1]);
	} else if (!strcmp(tok[0], "switch")) {
		ev->is_switch = 1;
		rc = target_switch(s, src, tok[1]);
	} else if (!strcmp(tok[0], "random")) {
		used = 4;
		rc = target_random(s, src, tok + 1, n - 1);
	} else {
		return ev_err(s->err, src, "unknown target '%s' (%s)", tok[0], expect);
	}
	if (!rc && n > used)
		rc = ev_err(s->err, src, "unexpected '%s' after the target%s", tok[used],
			    ev->action == FA_DOWN || ev->action == FA_UP ? ""
			    : " (the value goes right after the action)");
	return rc;
}

/* One event of the schedule: parsed, its links resolved, appended. */
static int add_event(struct sched *s, const struct ev_src *src)
{
	struct ws_failures *fl = &s->sim->fail;
	if (fl->n_ev >= FAIL_MAX_EVENTS)
		return ev_err(s->err, src, "more than %u events (the limit)", FAIL_MAX_EVENTS);
	char *copy = ws_xstrdup(src->text), *save = NULL;
	char *tok[FAIL_MAX_TOKENS + 1];
	int n = 0;
	for (char *t = strtok_r(copy, " \t\r\n", &save); t && n <= FAIL_MAX_TOKENS;
	     t = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = t;
	struct ws_fail_event ev = { .first = fl->n_links, .from_file = src->index == 0 };
	int rc = WS_OK;
	if (n < 3)
		rc = ev_err(s->err, src, "expected 'TIME ACTION TARGET' (e.g. '1ms down "
			    "link 3:1')");
	if (!rc)
		rc = parse_time(s, src, tok[0], &ev);
	if (!rc)
		rc = parse_action(s, src, tok[1], &ev);
	int at = 2;
	if (!rc && ev.action >= FA_RATE) {
		rc = parse_value(s, src, tok, n, &ev);
		at = 3;
	}
	if (!rc)
		rc = parse_target(s, src, tok + at, n - at, &ev);
	if (!rc && fl->n_links > FAIL_MAX_LINKS)
		rc = ev_err(s->err, src, "the events name more than %" PRIu64 " links",
			    FAIL_MAX_LINKS);
	free(copy);
	if (rc) {
		fl->n_links = ev.first;
		return rc;
	}
	ev.n = fl->n_links - ev.first;
	if (fl->n_ev == s->cap_ev) {
		s->cap_ev = s->cap_ev ? 2 * s->cap_ev : 16;
		fl->ev = ws_xrealloc(fl->ev, s->cap_ev, sizeof *fl->ev);
	}
	fl->ev[fl->n_ev++] = ev;
	return WS_OK;
}

/* The text without the blanks around it (in place). */
static char *trim(char *t)
{
	while (*t == ' ' || *t == '\t')
		t++;
	size_t n = strlen(t);
	while (n && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\r'))
		t[--n] = '\0';
	return t;
}

/* [failures] events: events separated by ';'. */
static int read_events(struct sched *s, const struct ws_cfg_entry *e)
{
	char *copy = ws_xstrdup(e->value), *save = NULL;
	unsigned index = 0;
	int rc = WS_OK;
	for (char *t = strtok_r(copy, ";", &save); t && !rc; t = strtok_r(NULL, ";", &save)) {
		if (ws_text_blank(t))
			continue;
		struct ev_src src = { e->file, e->line, "events", ++index, trim(t) };
		rc = add_event(s, &src);
	}
	free(copy);
	return rc;
}

/* [failures] file: one event per line, '#' comments. */
static int read_file(struct sched *s, const struct ws_cfg_entry *e)
{
	struct ws_sim *sim = s->sim;
	char path[4096];
	struct stat st;
	int rc = ws_resolve_path(sim, e->value, path, sizeof path, s->err);
	if (rc) {
		ws_err_locate(s->err, e->file, e->line);
		return rc;
	}
	FILE *f = fopen(path, "r");
	if (!f || fstat(fileno(f), &st)) {
		if (f)
			fclose(f);
		rc = ws_err_at(s->err, WS_EIO, e->file, e->line, "[failures] file '%s': "
			       "cannot read %s", e->value, path);
		if (s->err)
			snprintf(s->err->key, sizeof s->err->key, "failures.file");
		return rc;
	}
	if ((uint64_t)st.st_size > FAIL_MAX_FILE_BYTES) {
		fclose(f);
		rc = ws_err_at(s->err, WS_EINVAL, e->file, e->line, "[failures] file '%s': "
			       "%lld bytes, over the limit of 64 MiB", e->value,
			       (long long)st.st_size);
		if (s->err)
			snprintf(s->err->key, sizeof s->err->key, "failures.file");
		return rc;
	}
	char *buf = NULL;
	size_t cap = 0;
	int lineno = 0;
	while (!rc && (rc = ws_text_line(f, &buf, &cap, WS_TEXT_LINE_MAX, path,
					 &lineno, s->err)) == 1) {
		rc = WS_OK;
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		if (ws_text_blank(buf))
			continue;
		struct ev_src src = { path, lineno, "file", 0, trim(buf) };
		rc = add_event(s, &src);
	}
	free(buf);
	fclose(f);
	return rc < 0 ? rc : WS_OK;
}

bool ws_failures_take_down(const struct ws_sim *sim)
{
	for (uint32_t i = 0; i < sim->fail.n_ev; i++)
		if (sim->fail.ev[i].action == FA_DOWN)
			return true;
	return false;
}

/* A rule that cannot hear of failures is refused when an event takes
 * links down; the error points at the first such event. */
static int check_rule(struct ws_sim *sim, const struct ws_cfg_entry *ev_entry,
		      const struct ws_cfg_entry *file_entry, struct ws_err *err)
{
	if (WS_ROUTING_OPS(sim)->link_change)
		return WS_OK;
	for (uint32_t i = 0; i < sim->fail.n_ev; i++) {
		if (sim->fail.ev[i].action != FA_DOWN)
			continue;
		bool in_file = sim->fail.ev[i].from_file;
		const struct ws_cfg_entry *e = in_file ? file_entry : ev_entry;
		ws_err_at(err, WS_EINVAL, e->file, e->line, "[failures]: the routing rule "
			  "'%s' does not handle failures (it has no link_change op), so no "
			  "link or switch can go down with it; rate, loss and gray events "
			  "need no routing support",
			  sim->slot[WS_KIND_ROUTING].ld.desc->name);
		if (err)
			snprintf(err->key, sizeof err->key, "failures.%s",
				 in_file ? "file" : "events");
		return WS_EINVAL;
	}
	return WS_OK;
}

int ws_failures_setup(struct ws_sim *sim, const struct ws_cfg *cfg,
		      struct ws_err *err)
{
	sim->fail.seed = sim->failc.seed ? sim->failc.seed : sim->seed;
	const struct ws_cfg_entry *ev = ws_cfg_find(cfg, "failures", "events");
	const struct ws_cfg_entry *file = ws_cfg_find(cfg, "failures", "file");
	if (ev && ws_text_blank(ev->value))
		ev = NULL;
	if (file && ws_text_blank(file->value))
		file = NULL;
	struct sched s = { .sim = sim, .err = err };
	int rc = ev ? read_events(&s, ev) : WS_OK;
	if (!rc && file)
		rc = read_file(&s, file);
	if (!rc)
		rc = check_rule(sim, ev, file, err);
	if (rc) {
		ws_failures_free(sim);
		return rc;
	}
	if (sim->fail.n_ev) {
		sim->outc.failures = true;
		fail_ports(sim);
	}
	return WS_OK;
}

/* ---- outputs ------------------------------------------------------------------ */

static void fmt_us(char *buf, size_t n, ws_time t)
{
	snprintf(buf, n, "%" PRIu64 ".%06" PRIu64, t / WS_US, t % WS_US);
}

/* failures.csv: a row per applied event per link (what it dropped at once),
 * then a row `drops` per link that dropped anything (its drops by cause over
 * the run, both directions).  One header for both kinds of row. */
int ws_failures_write(struct ws_sim *sim, const char *dir, struct ws_err *err)
{
	struct ws_outfile *o = ws_outfile_open(dir, "failures.csv", err);
	if (!o)
		return WS_EIO;
	FILE *f = ws_outfile_stream(o);
	fputs("time_us,event,node,port,peer_node,peer_port,value,dropped,"
	      "buffer,failure,loss,gray\n", f);
	const struct ws_failures *fl = &sim->fail;
	char t[48], v[64];
	for (size_t i = 0; i < fl->n_rows; i++) {
		const struct ws_fail_row *r = &fl->rows[i];
		const struct ws_port *a = &sim->ports[r->gid], *b = &sim->ports[a->peer];
		fmt_us(t, sizeof t, r->when);
		v[0] = '\0';
		if (r->action == FA_RATE)
			ws_param_format(&rate_p, &r->rate, v, sizeof v);
		else if (r->action == FA_LOSS || r->action == FA_GRAY)
			snprintf(v, sizeof v, "%.9g", r->prob);
		fprintf(f, "%s,%s,%u,%u,%u,%u,%s,%" PRIu64 ",,,,\n", t,
			action_names[r->action], a->node, a->local, b->node, b->local,
			v, r->dropped);
	}
	fmt_us(t, sizeof t, sim->now);
	for (uint32_t g = 0; fl->port && g < sim->fab.n_ports; g++) {
		const struct ws_port *a = &sim->ports[g];
		if (a->peer == WS_NONE || a->peer < g)
			continue;
		const struct ws_port *b = &sim->ports[a->peer];
		const struct ws_fail_port *fa = &fl->port[g], *fb = &fl->port[a->peer];
		uint64_t failure = fa->failure + fb->failure, loss = fa->lost + fb->lost;
		uint64_t gray = fa->grayed + fb->grayed;
		uint64_t all = a->drops + b->drops;
		if (!all)
			continue;
		fprintf(f, "%s,drops,%u,%u,%u,%u,,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 "\n", t, a->node, a->local, b->node,
			b->local, all, all - failure - loss - gray, failure, loss, gray);
	}
	return ws_outfile_commit(o, err);
}

void ws_json_drops(const struct ws_sim *sim, struct ws_json *j)
{
	const struct ws_counters *c = &sim->ctr;
	ws_json_begin(j, "drops");
	ws_json_u64(j, "buffer", c->buffer_drops);
	ws_json_u64(j, "failure", c->fail_drops);
	ws_json_u64(j, "loss", c->loss_drops);
	ws_json_u64(j, "gray", c->gray_drops);
	ws_json_u64(j, "ttl", c->ttl_drops);
	ws_json_end(j);
	if (!sim->outc.failures)
		return;
	ws_json_begin(j, "failures");
	ws_json_u64(j, "events", sim->fail.n_ev);
	ws_json_u64(j, "events_applied", sim->fail.applied);
	ws_json_u64(j, "links_down_at_end", sim->fail.links_down);
	ws_json_u64(j, "reroute_delay_ps", sim->failc.reroute_delay);
	ws_json_end(j);
}

/* The drops counted where they happened (each event's, each link's by
 * cause) as one array, for ranks to add up: its length; filled when `out`
 * is not NULL. */
size_t ws_failures_tallies(const struct ws_sim *sim, uint64_t *out)
{
	const struct ws_failures *fl = &sim->fail;
	size_t n = fl->n_rows + (fl->port ? 3 * (size_t)sim->fab.n_ports : 0);
	if (!out)
		return n;
	size_t k = 0;
	for (size_t i = 0; i < fl->n_rows; i++)
		out[k++] = fl->rows[i].dropped;
	for (uint32_t g = 0; fl->port && g < sim->fab.n_ports; g++) {
		out[k++] = fl->port[g].failure;
		out[k++] = fl->port[g].lost;
		out[k++] = fl->port[g].grayed;
	}
	return n;
}

void ws_failures_add_tallies(struct ws_sim *sim, const uint64_t *in)
{
	struct ws_failures *fl = &sim->fail;
	size_t k = 0;
	for (size_t i = 0; i < fl->n_rows; i++)
		fl->rows[i].dropped += in[k++];
	for (uint32_t g = 0; fl->port && g < sim->fab.n_ports; g++) {
		fl->port[g].failure += in[k++];
		fl->port[g].lost += in[k++];
		fl->port[g].grayed += in[k++];
	}
}
