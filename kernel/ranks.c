/* SPDX-License-Identifier: MIT */
/*
 * One experiment over MPI ranks: the partitions of part.c spread over
 * processes (docs/architecture.md, "MPI ranks").  The library has no MPI
 * in it: the program hands a struct ws_comm (two collective calls)
 * in ws_opts, and everything here goes through it.
 *
 * Replicated control, distributed partitions.  Every rank builds the whole
 * fabric and workload from the same configuration.  Partition p belongs to
 * one rank (contiguous blocks balanced by hosts); a rank runs its
 * partitions only, on its threads, and never advances the others, whose
 * queues stay empty here.  What part.c runs in the global context (flow
 * starts, failures, the workload's timers and its reaction to a
 * completion) runs on every rank in the same order, so the workload's
 * state is the same everywhere.
 *
 * A phase (a window or a serial step) ends with one exchange: each rank
 * sends every other rank the mail its partitions posted to that rank's
 * partitions (packets copied by value, the port by index, the handler by
 * number), and to all a header: the earliest time it holds (queues and
 * mail), its earliest foreseen completion, its event count and whether it
 * failed or was told to stop; after a window also each partition's event
 * count (the window model) and the completions it could not foresee, with
 * the flow's results.  Every rank then knows the next phase's start and
 * kind exactly as one process would, and merges the mail into the
 * receiver's mailbox of the sending partition: the merge order (time,
 * sending partition, order) is one process's, so are the bytes.
 *
 * A serial step at t runs, as in one process, the global queue's events
 * and then the lowest partition with an event at t, one partition's
 * events at a time.  The lowest partition is agreed on (an allgather);
 * its rank runs its events at t, partition after partition, until one
 * completes a flow (the workload's reaction must be replayed everywhere
 * before anything else happens) or none is left; then it sends everyone
 * the completions (each flow's results, then the workload's callback runs
 * on every other rank) and the fabric maxima flow starts raise.
 *
 * At the end rank 0 gathers what the outputs read: counters, each
 * partition's statistics, the flows' results (the sender's fields from the
 * rank of the source, the receiver's from the destination's), the ports'
 * and switches' counters, the failure tallies, the first failure.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "part.h"

/* ---- byte buffers ------------------------------------------------------------ */

struct rbuf {
	uint8_t *b;
	size_t n, cap;
};

static void *rb_room(struct rbuf *r, size_t len)
{
	if (r->n + len > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		while (cap < r->n + len)
			cap *= 2;
		r->b = ws_xrealloc(r->b, cap, 1);
		r->cap = cap;
	}
	void *p = r->b + r->n;
	r->n += len;
	return p;
}

static void rb_put(struct rbuf *r, const void *v, size_t len)
{
	memcpy(rb_room(r, len), v, len);
}

struct rd {
	const uint8_t *p, *end;
};

static void rd_get(struct rd *r, void *v, size_t len)
{
	if ((size_t)(r->end - r->p) < len)
		ws_fatal("MPI ranks: a message from another rank is cut short "
			 "(ranks running different binaries or configurations?)");
	memcpy(v, r->p, len);
	r->p += len;
}

/* ---- state -------------------------------------------------------------------- */

struct ws_ranks {
	struct ws_comm tr;
	uint32_t me, n;
	uint32_t *first;               /* [n + 1]: rank r runs first[r] .. first[r+1) */
	struct rbuf send;
	size_t *send_len, *recv_len;   /* [n] */
	void *recv;
	size_t recv_cap;
	struct rbuf ship;              /* a serial batch's completions */
	uint32_t n_ship;
	uint32_t n_calls;              /* of which the workload is called for */
	struct rbuf starts;            /* ... and flow starts */
	uint32_t n_starts;
	uint64_t gevents;              /* global-queue events (every rank runs them) */
	uint64_t pending;              /* after the run: events left, all ranks */
	bool ended;
};

/* What every rank says at the end of a phase. */
struct hdr {
	ws_time q;                     /* earliest event or mail it holds */
	ws_time s;                     /* earliest foreseen completion */
	uint64_t events;               /* its partitions' events so far */
	uint32_t flags;
	uint32_t pad;
};
enum { F_FAILED = 1, F_STOP = 2, F_HALT = 4 };

/* What all ranks said. */
struct view {
	ws_time q, s, s_min;
	uint64_t events;
	uint32_t flags;
};

/* A flow's results as the sender's partition knows them. */
struct flow_tx {
	uint32_t id, hops, retries;
	uint16_t sport, fail_port;
	uint32_t fail_node;
	uint8_t started, aborted, fail_why, pad;
	ws_time end, ideal_fct, base_rtt;
	uint64_t wire_bytes, snd_una, snd_nxt, skipped, sent_bytes, retx_bytes,
		 retx_pkts, trims, pkts_sent, high_sent, rate, window, path_rate,
		 bdp, timeouts, cnps, nacks;
};

/* ... and as the receiver's. */
struct flow_rx {
	uint32_t id, max_reorder;
	uint64_t rcv_nxt, ooo_pkts, ce_marked;
};

static void flow_tx_pack(const struct ws_flow *f, struct flow_tx *x)
{
	memset(x, 0, sizeof *x);
	x->id = f->cc.id;
	x->hops = f->cc.hops;
	x->retries = f->retries;
	x->sport = f->sport;
	x->fail_port = f->fail_port;
	x->fail_node = f->fail_node;
	x->started = f->started;
	x->aborted = f->aborted;
	x->fail_why = f->fail_why;
	x->end = f->end;
	x->ideal_fct = f->ideal_fct;
	x->base_rtt = f->cc.base_rtt;
	x->wire_bytes = f->wire_bytes;
	x->snd_una = f->cc.snd_una;
	x->snd_nxt = f->cc.snd_nxt;
	x->skipped = f->skipped;
	x->sent_bytes = f->sent_bytes;
	x->retx_bytes = f->retx_bytes;
	x->retx_pkts = f->retx_pkts;
	x->trims = f->trims;
	x->pkts_sent = f->pkts_sent;
	x->high_sent = f->high_sent;
	x->rate = f->cc.rate;
	x->window = f->cc.window;
	x->path_rate = f->cc.path_rate;
	x->bdp = f->cc.bdp;
	x->timeouts = f->timeouts;
	x->cnps = f->cnps;
	x->nacks = f->nacks;
}

static void flow_tx_apply(struct ws_flow *f, const struct flow_tx *x)
{
	f->cc.hops = x->hops;
	f->retries = x->retries;
	f->sport = x->sport;
	f->fail_port = x->fail_port;
	f->fail_node = x->fail_node;
	f->started = x->started;
	f->aborted = x->aborted;
	f->fail_why = x->fail_why;
	f->end = x->end;
	f->ideal_fct = x->ideal_fct;
	f->cc.base_rtt = x->base_rtt;
	f->wire_bytes = x->wire_bytes;
	f->cc.snd_una = x->snd_una;
	f->cc.snd_nxt = x->snd_nxt;
	f->skipped = x->skipped;
	f->sent_bytes = x->sent_bytes;
	f->retx_bytes = x->retx_bytes;
	f->retx_pkts = x->retx_pkts;
	f->trims = x->trims;
	f->pkts_sent = x->pkts_sent;
	f->high_sent = x->high_sent;
	f->cc.rate = x->rate;
	f->cc.window = x->window;
	f->cc.path_rate = x->path_rate;
	f->cc.bdp = x->bdp;
	f->timeouts = x->timeouts;
	f->cnps = x->cnps;
	f->nacks = x->nacks;
	if (x->end != WS_TIME_NEVER)
		ws_sr_flow_free(f); /* as the sender's completion did */
}

static struct ws_ranks *rk_of(const struct ws_sim *sim)
{
	return sim->par->rk;
}

static uint32_t rank_of_node(const struct ws_sim *sim, uint32_t node)
{
	return sim->par->part_rank[sim->node_part[node]];
}

static void transport_failed(const struct ws_ranks *rk, const char *what)
{
	ws_fatal("rank %u of %u: the transport between ranks failed (%s); "
		 "every rank stops", rk->me, rk->n, what);
}

/* Send send_len[r] bytes of rk->send to each rank r; what came is in
 * rk->recv, rk->recv_len[r] bytes from rank r after those of ranks < r. */
static void exchange(struct ws_ranks *rk)
{
	if (rk->tr.exchange(rk->tr.ctx, rk->send.b, rk->send_len, &rk->recv,
			    &rk->recv_cap, rk->recv_len))
		transport_failed(rk, "exchange");
}

static void allgather(struct ws_ranks *rk, const void *mine, size_t len, void *all)
{
	if (rk->tr.allgather(rk->tr.ctx, mine, len, all))
		transport_failed(rk, "allgather");
}

/* The block rank r sent, as a reader. */
static struct rd block_of(const struct ws_ranks *rk, uint32_t r)
{
	size_t off = 0;
	for (uint32_t i = 0; i < r; i++)
		off += rk->recv_len[i];
	const uint8_t *b = (const uint8_t *)rk->recv + off;
	return (struct rd){ b, b + rk->recv_len[r] };
}

/* ---- planning ----------------------------------------------------------------- */

/* Outputs rank 0 cannot gather yet: NULL, or the key. */
static const char *not_gathered(const struct ws_sim *sim)
{
	if (sim->outc.fct_txt)
		return "[output] fct_txt";
	return NULL;
}

int ws_ranks_plan(struct ws_sim *sim, struct ws_parts *par, struct ws_err *err)
{
	struct ws_comm tr;
	int rc = ws_sized_in(&tr, sizeof tr, sim->opts.comm, "ws_comm", err);
	if (rc)
		return rc;
	if (par->n < tr.ranks)
		return ws_err_key(err, WS_EINVAL, "partitions",
				  "[sim] partitions: %u partitions for %u MPI ranks; "
				  "each rank needs one at least (set [sim] partitions "
				  "to %u or more)", par->n, tr.ranks, tr.ranks);
	const char *key = not_gathered(sim);
	if (key)
		return ws_err_key(err, WS_EINVAL, "partitions",
				  "%s: rank 0 cannot gather it from %u MPI ranks yet; "
				  "turn it off, or run on one rank", key, tr.ranks);
	if (!tr.exchange || !tr.allgather || tr.rank >= tr.ranks)
		return ws_err_set(err, WS_EINVAL, "ws_comm: rank %u of %u, "
				  "exchange and allgather required", tr.rank, tr.ranks);
	struct ws_ranks *rk = ws_xcalloc(1, sizeof *rk);
	rk->tr = tr;
	rk->me = tr.rank;
	rk->n = tr.ranks;
	rk->first = ws_xcalloc(rk->n + 1, sizeof *rk->first);
	rk->send_len = ws_xcalloc(rk->n, sizeof *rk->send_len);
	rk->recv_len = ws_xcalloc(rk->n, sizeof *rk->recv_len);
	/* partitions' hosts, then contiguous blocks of about equal hosts,
	 * every rank one partition at least */
	uint32_t *hosts = ws_xcalloc(par->n, sizeof *hosts);
	for (uint32_t h = 0; h < sim->fab.n_hosts; h++)
		hosts[par->node_part[sim->fab.hosts[h]]]++;
	par->part_rank = ws_xcalloc(par->n, sizeof *par->part_rank);
	uint64_t before = 0;
	uint32_t r = 0;
	for (uint32_t p = 0; p < par->n; p++) {
		uint64_t mid = before + hosts[p] / 2;
		int64_t want = (int64_t)(mid * rk->n / WS_MAX(sim->fab.n_hosts, 1u));
		/* none skipped, none left without one: the ranks after this
		 * partition's need one each of those after it */
		int64_t least = (int64_t)rk->n - (int64_t)(par->n - p);
		want = WS_MIN(want, (int64_t)r + 1);
		want = WS_MAX(want, least);
		want = WS_MAX(want, (int64_t)r);
		want = WS_MIN(want, (int64_t)rk->n - 1);
		if (p == 0)
			want = 0;
		while (r < want)
			rk->first[++r] = p;
		par->part_rank[p] = (uint16_t)r;
		before += hosts[p];
	}
	rk->first[rk->n] = par->n;
	free(hosts);
	par->my_rank = rk->me;
	par->rk = rk;
	uint32_t mine = rk->first[rk->me + 1] - rk->first[rk->me];
	par->threads = WS_MIN(par->threads, mine);
	return WS_OK;
}

void ws_ranks_free(struct ws_parts *par)
{
	struct ws_ranks *rk = par->rk;
	if (!rk)
		return;
	free(rk->first);
	free(rk->send.b);
	free(rk->send_len);
	free(rk->recv_len);
	free(rk->recv);
	free(rk->ship.b);
	free(rk->starts.b);
	free(rk);
	free(par->part_rank);
	par->rk = NULL;
	par->part_rank = NULL;
}

bool ws_part_owns(const struct ws_sim *sim, uint32_t node)
{
	const struct ws_sim *m = sim->main ? sim->main : sim;
	return !m->par || !m->par->rk || ws_pt_mine(m->par, m->node_part[node]);
}

uint64_t ws_ranks_pending(const struct ws_sim *sim)
{
	return sim->par->rk->pending;
}

/* ---- mail between ranks ------------------------------------------------------- */

struct wire_mail {
	ws_time when;
	uint32_t port;                 /* the receiving port, by global index */
	uint32_t fn;                   /* the handler, by number */
};

/* The handlers mail can carry (ws_part_post's callers). */
static uint32_t mail_fn_id(ws_event_fn fn)
{
	if (fn == ws_port_arrival_fn())
		return 0;
	ws_fatal("MPI ranks: mail with a handler no rank can name");
}

#define PKT_LINE offsetof(struct ws_pkt, int_hop)

/* Partition s's mail to partition d (phase side `side`), then emptied. */
static void mail_pack(struct ws_sim *sim, struct rbuf *out, uint32_t s, uint32_t d,
		      unsigned side)
{
	struct ws_part *ps = sim->par->p[s];
	struct ws_mailbox *m = &ps->out[2 * d + side];
	uint32_t head[3] = { s, d, (uint32_t)m->n };
	rb_put(out, head, sizeof head);
	for (size_t i = 0; i < m->n; i++) {
		const struct ws_mail *e = &m->e[i];
		const struct ws_port *in = e->obj;
		struct wire_mail w = { e->when, (uint32_t)(in - sim->ports), mail_fn_id(e->fn) };
		WS_ASSERT(e->owner == &sim->ports[in->peer].owner,
			  "mail to port %u not owned by its far end", w.port);
		rb_put(out, &w, sizeof w);
		struct ws_pkt *p = (struct ws_pkt *)(uintptr_t)e->arg;
		rb_put(out, p, PKT_LINE);
		if (p->int_n)
			rb_put(out, p->int_hop, p->int_n * sizeof p->int_hop[0]);
		ws_pkt_free(&ps->sh.pkts, p);
	}
	m->n = 0;
	m->min = WS_TIME_NEVER;
}

static void mail_unpack(struct ws_sim *sim, struct rd *r, unsigned side)
{
	struct ws_parts *par = sim->par;
	for (;;) {
		uint32_t head[3];
		rd_get(r, head, sizeof head);
		if (head[0] == UINT32_MAX)
			return;
		uint32_t s = head[0], d = head[1];
		if (s >= par->n || d >= par->n || !ws_pt_mine(par, d))
			ws_fatal("MPI ranks: mail for partition %u from %u, not this "
				 "rank's", d, s);
		struct ws_mailbox *m = &par->p[s]->out[2 * d + side];
		struct ws_pktpool *pool = &par->p[d]->sh.pkts;
		for (uint32_t i = 0; i < head[2]; i++) {
			struct wire_mail w;
			rd_get(r, &w, sizeof w);
			if (w.port >= sim->fab.n_ports || w.fn != 0)
				ws_fatal("MPI ranks: mail to port %u, handler %u", w.port, w.fn);
			struct ws_pkt *p = ws_pkt_alloc(pool);
			rd_get(r, p, PKT_LINE);
			p->next = NULL;
			if (p->int_n)
				rd_get(r, p->int_hop, p->int_n * sizeof p->int_hop[0]);
			struct ws_port *in = &sim->ports[w.port];
			struct ws_mail e = { w.when, ws_port_arrival_fn(), in,
					     (uint64_t)(uintptr_t)p, &sim->ports[in->peer].owner };
			ws_pt_mail_put(m, &e);
		}
	}
}

/* ---- the end of a phase: mail, headers, what every rank must know ------------ */

/* This rank's header: partitions' queues and all the mail they posted. */
static struct hdr local_hdr(struct ws_sim *sim, ws_time lo)
{
	struct ws_parts *par = sim->par;
	struct ws_ranks *rk = par->rk;
	unsigned side = (unsigned)(par->phase & 1);
	struct hdr h = { WS_TIME_NEVER, WS_TIME_NEVER, sim->events - rk->gevents, 0, 0 };
	for (uint32_t i = rk->first[rk->me]; i < rk->first[rk->me + 1]; i++) {
		struct ws_part *pt = par->p[i];
		h.q = WS_MIN(h.q, ws_eventq_peek(&pt->sh.q));
		for (uint32_t d = 0; d < par->n; d++)
			h.q = WS_MIN(h.q, pt->out[2 * d + side].min);
		h.s = WS_MIN(h.s, ws_pt_tlist_next(&pt->sync, lo));
	}
	if (sim->failed)
		h.flags |= F_FAILED;
	if (sim->stop)
		h.flags |= F_STOP;
	if (ws_stop_set(sim->opts.stop))
		h.flags |= F_HALT;
	return h;
}

static void view_add(struct view *v, const struct hdr *h)
{
	v->q = WS_MIN(v->q, h->q);
	v->events += h->events;
	v->flags |= h->flags;
}

/* After a window: each partition's events, the completions not foreseen. */
static void window_news(struct ws_sim *sim, struct rbuf *b, ws_time last)
{
	struct ws_parts *par = sim->par;
	struct ws_ranks *rk = par->rk;
	rb_put(b, &last, sizeof last);
	for (uint32_t i = rk->first[rk->me]; i < rk->first[rk->me + 1]; i++) {
		struct ws_part *pt = par->p[i];
		uint32_t n = (uint32_t)pt->n_dfr;
		rb_put(b, &pt->w_events, sizeof pt->w_events);
		rb_put(b, &n, sizeof n);
		for (size_t k = 0; k < pt->n_dfr; k++) {
			struct flow_tx x;
			flow_tx_pack(sim->flows[pt->dfr[k].flow], &x);
			rb_put(b, &x, sizeof x);
		}
	}
}

static void window_news_read(struct ws_sim *sim, uint32_t r, struct rd *rd, ws_time *last)
{
	struct ws_parts *par = sim->par;
	struct ws_ranks *rk = par->rk;
	ws_time l;
	rd_get(rd, &l, sizeof l);
	*last = WS_MAX(*last, l);
	for (uint32_t i = rk->first[r]; i < rk->first[r + 1]; i++) {
		struct ws_part *pt = par->p[i];
		uint32_t n;
		rd_get(rd, &pt->w_events, sizeof pt->w_events);
		rd_get(rd, &n, sizeof n);
		pt->n_dfr = 0;
		for (uint32_t k = 0; k < n; k++) {
			struct flow_tx x;
			rd_get(rd, &x, sizeof x);
			if (x.id >= sim->n_flows)
				ws_fatal("MPI ranks: results of flow %u of %u", x.id, sim->n_flows);
			flow_tx_apply(sim->flows[x.id], &x);
			ws_part_defer_done(&pt->sh, x.id);
		}
	}
}

/*
 * The exchange ending a phase: mail to each rank's partitions, and to all
 * the header (and after a window, `last` and window_news).  Fills *v with
 * what all ranks said; after a window also the other ranks' partitions'
 * event counts and unforeseen completions, and *last the latest event
 * time any rank ran.
 */
static void phase_end(struct ws_sim *sim, bool win, ws_time lo, ws_time *last,
		      struct view *v)
{
	struct ws_parts *par = sim->par;
	struct ws_ranks *rk = par->rk;
	unsigned side = (unsigned)(par->phase & 1);
	struct hdr h = local_hdr(sim, lo);
	struct rbuf news = { 0 };
	if (win)
		window_news(sim, &news, *last);
	rk->send.n = 0;
	for (uint32_t r = 0; r < rk->n; r++) {
		size_t at = rk->send.n;
		if (r != rk->me) {
			rb_put(&rk->send, &h, sizeof h);
			for (uint32_t s = rk->first[rk->me]; s < rk->first[rk->me + 1]; s++)
				for (uint32_t d = rk->first[r]; d < rk->first[r + 1]; d++)
					if (par->p[s]->out[2 * d + side].n)
						mail_pack(sim, &rk->send, s, d, side);
			uint32_t end[3] = { UINT32_MAX, 0, 0 };
			rb_put(&rk->send, end, sizeof end);
			rb_put(&rk->send, news.b, news.n);
		}
		rk->send_len[r] = rk->send.n - at;
	}
	free(news.b);
	exchange(rk);
	*v = (struct view){ WS_TIME_NEVER, WS_TIME_NEVER, WS_TIME_NEVER, 0, 0 };
	view_add(v, &h);
	v->s = v->s_min = h.s;
	for (uint32_t r = 0; r < rk->n; r++) {
		if (r == rk->me)
			continue;
		struct rd rd = block_of(rk, r);
		struct hdr o;
		rd_get(&rd, &o, sizeof o);
		view_add(v, &o);
		v->s = WS_MIN(v->s, o.s);
		mail_unpack(sim, &rd, side);
		if (win)
			window_news_read(sim, r, &rd, last);
	}
	v->s_min = v->s;
}

/* The first phase: nothing ran yet, no mail; the headers only. */
static void first_view(struct ws_sim *sim, struct view *v)
{
	struct ws_ranks *rk = rk_of(sim);
	struct hdr h = local_hdr(sim, sim->now), *all = ws_xcalloc(rk->n, sizeof *all);
	allgather(rk, &h, sizeof h, all);
	*v = (struct view){ WS_TIME_NEVER, WS_TIME_NEVER, WS_TIME_NEVER, 0, 0 };
	for (uint32_t r = 0; r < rk->n; r++) {
		view_add(v, &all[r]);
		v->s = WS_MIN(v->s, all[r].s);
	}
	v->s_min = v->s;
	free(all);
}

/* A foreseen completion before t did not happen (its packet died): every
 * rank drops those before t and says its earliest again. */
static ws_time serial_again(struct ws_sim *sim, ws_time t)
{
	struct ws_parts *par = sim->par;
	struct ws_ranks *rk = par->rk;
	ws_time s = WS_TIME_NEVER, *all = ws_xcalloc(rk->n, sizeof *all);
	for (uint32_t i = rk->first[rk->me]; i < rk->first[rk->me + 1]; i++)
		s = WS_MIN(s, ws_pt_tlist_next(&par->p[i]->sync, t));
	allgather(rk, &s, sizeof s, all);
	for (uint32_t r = 0; r < rk->n; r++)
		s = WS_MIN(s, all[r]);
	free(all);
	return s;
}

/* ---- serial steps ------------------------------------------------------------- */

/* Called by ws_flow_complete in a serial step on this rank's shell: the
 * flow's results go to the other ranks, who replay the workload's call. */
void ws_ranks_done(struct ws_sim *sh, const struct ws_flow *f)
{
	struct ws_ranks *rk = sh->main->par->rk;
	struct flow_tx x;
	flow_tx_pack(f, &x);
	rb_put(&rk->ship, &x, sizeof x);
	rk->n_ship++;
	rk->n_calls += f->on_done != NULL;
}

/* What a flow's start sets that its receiver reads. */
struct flow_start {
	uint32_t id;
	uint16_t sport;
	uint8_t cnp_mode, pad;
	ws_time cnp_interval;
};

/* Called at a flow's start on this rank's shell (a serial step). */
void ws_ranks_started(struct ws_sim *sh, const struct ws_flow *f)
{
	struct ws_ranks *rk = sh->main->par->rk;
	struct flow_start x = { f->cc.id, f->sport, f->cnp_mode, 0, f->cnp_interval };
	rb_put(&rk->starts, &x, sizeof x);
	rk->n_starts++;
}

static void start_apply(struct ws_sim *sim, const struct flow_start *x)
{
	if (x->id >= sim->n_flows)
		ws_fatal("MPI ranks: the start of flow %u of %u", x->id, sim->n_flows);
	struct ws_flow *f = sim->flows[x->id];
	f->sport = x->sport;
	f->cnp_mode = x->cnp_mode;
	f->cnp_interval = x->cnp_interval;
	f->started = 1;
	/* the receiver's half of selective repeat lives in f->sr */
	if (ws_part_owns(sim, f->cc.dst))
		ws_sr_flow_init(sim, f);
}

/* The lowest of this rank's partitions with an event at t, or UINT32_MAX. */
static uint32_t first_at(struct ws_sim *sim, ws_time t)
{
	struct ws_parts *par = sim->par;
	struct ws_ranks *rk = par->rk;
	for (uint32_t i = rk->first[rk->me]; i < rk->first[rk->me + 1]; i++)
		if (ws_eventq_peek(&par->p[i]->sh.q) <= t)
			return i;
	return UINT32_MAX;
}

/* This rank's events at t from partition `from` on, partition after
 * partition, until one completes a flow the workload waits for, or fails. */
static void run_batch(struct ws_sim *sim, uint32_t from, ws_time t)
{
	struct ws_parts *par = sim->par;
	struct ws_ranks *rk = par->rk;
	rk->ship.n = 0;
	rk->n_ship = 0;
	rk->starts.n = 0;
	rk->n_starts = 0;
	rk->n_calls = 0;
	for (uint32_t i = from; i < rk->first[rk->me + 1] && !sim->stop; ) {
		if (!ws_pt_serial_one(sim, i, t)) {
			i++;
			continue;
		}
		/* the workload's call must be replayed before anything else */
		if (rk->n_calls)
			break;
	}
}

struct batch_end {
	uint32_t n_ship, n_starts;
	uint32_t failed, pad;
	ws_time max_base_rtt;
	uint64_t max_bdp;
};

/* The rank that ran a batch tells the others what it changed. */
static void batch_share(struct ws_sim *sim, uint32_t owner, ws_time t)
{
	struct ws_ranks *rk = rk_of(sim);
	rk->send.n = 0;
	for (uint32_t r = 0; r < rk->n; r++) {
		size_t at = rk->send.n;
		if (r != rk->me && owner == rk->me) {
			struct batch_end e = { rk->n_ship, rk->n_starts, sim->failed, 0,
					       sim->max_base_rtt, sim->max_bdp };
			rb_put(&rk->send, &e, sizeof e);
			rb_put(&rk->send, rk->starts.b, rk->starts.n);
			rb_put(&rk->send, rk->ship.b, rk->ship.n);
		}
		rk->send_len[r] = rk->send.n - at;
	}
	exchange(rk);
	if (owner == rk->me)
		return;
	struct rd rd = block_of(rk, owner);
	struct batch_end e;
	rd_get(&rd, &e, sizeof e);
	sim->max_base_rtt = WS_MAX(sim->max_base_rtt, e.max_base_rtt);
	sim->max_bdp = WS_MAX(sim->max_bdp, e.max_bdp);
	for (uint32_t k = 0; k < e.n_starts; k++) {
		struct flow_start x;
		rd_get(&rd, &x, sizeof x);
		start_apply(sim, &x);
	}
	for (uint32_t k = 0; k < e.n_ship; k++) {
		struct flow_tx x;
		rd_get(&rd, &x, sizeof x);
		if (x.id >= sim->n_flows)
			ws_fatal("MPI ranks: results of flow %u of %u", x.id, sim->n_flows);
		struct ws_flow *f = sim->flows[x.id];
		flow_tx_apply(f, &x);
		sim->now = t;
		if (f->on_done)
			f->on_done(sim, f->cc.id, f->on_done_arg);
	}
	if (e.failed)
		sim->stop = true; /* the owner's failure: rank 0 gets it at the end */
}

/* part.c's serial step over ranks. */
static void serial_step(struct ws_sim *sim, ws_time t)
{
	struct ws_parts *par = sim->par;
	struct ws_ranks *rk = par->rk;
	par->serial = true;
	par->serial_steps++;
	for (uint32_t i = 0; i < par->n; i++) {
		if (ws_pt_mine(par, i))
			ws_pt_merge_in(par, i);
		par->p[i]->sh.now = t;
	}
	sim->now = t;
	uint32_t *all = ws_xcalloc(rk->n, sizeof *all);
	struct ws_fired ev;
	while (!sim->stop) {
		if (ws_eventq_pop(&sim->q, t, &ev)) {
			sim->now = t;
			ev.fn(sim, ev.obj, ev.arg);
			sim->events++;
			rk->gevents++;
			continue;
		}
		uint32_t mine = first_at(sim, t), first = UINT32_MAX;
		allgather(rk, &mine, sizeof mine, all);
		for (uint32_t r = 0; r < rk->n; r++)
			first = WS_MIN(first, all[r]);
		if (first == UINT32_MAX)
			break;
		uint32_t owner = par->part_rank[first];
		if (owner == rk->me)
			run_batch(sim, first, t);
		batch_share(sim, owner, t);
	}
	free(all);
	for (uint32_t i = 0; i < par->n; i++)
		ws_pt_pull(&par->p[i]->sh, sim);
	par->serial = false;
}

/* ---- the run ------------------------------------------------------------------ */

/* The window model over every rank's partitions (part.c's, once the
 * counts are in). */
static void model(struct ws_sim *sim)
{
	struct ws_parts *par = sim->par;
	if (par->n > 64)
		return;
	uint32_t k = 0;
	for (uint32_t i = 0; i < par->n; i++)
		if (par->p[i]->w_events)
			par->order[k++] = i;
	ws_pt_model_window(par, k);
}

/* This rank's partitions' next times (queue, mail merged next), once the
 * phase counter moved on. */
static void local_next(struct ws_sim *sim, ws_time *next)
{
	struct ws_parts *par = sim->par;
	unsigned side = (unsigned)((par->phase - 1) & 1);
	for (uint32_t d = 0; d < par->n; d++) {
		next[d] = WS_TIME_NEVER;
		if (!ws_pt_mine(par, d))
			continue;
		next[d] = ws_eventq_peek(&par->p[d]->sh.q);
		for (uint32_t s = 0; s < par->n; s++)
			next[d] = WS_MIN(next[d], par->p[s]->out[2 * d + side].min);
	}
}

static ws_time run_window(struct ws_sim *sim, ws_time t, ws_time s, ws_time limit,
			  ws_time *next, struct view *v)
{
	struct ws_parts *par = sim->par;
	ws_time end = WS_MIN(t + par->lookahead, s);
	if (limit != WS_TIME_NEVER)
		end = WS_MIN(end, limit + 1);
	local_next(sim, next);
	ws_pt_window(sim, next, end);
	ws_time last = t;
	for (uint32_t i = 0; i < par->n; i++) {
		if (!ws_pt_mine(par, i))
			continue;
		ws_pt_fold(sim, &par->p[i]->sh);
		last = WS_MAX(last, par->p[i]->sh.now);
	}
	ws_pt_deadlock_checks(sim);
	phase_end(sim, true, end, &last, v);
	sim->now = last;
	model(sim);
	ws_pt_tell_deferred(sim, end);
	return end;
}

/* Every rank stops where the first failure or stop was seen. */
static bool must_stop(struct ws_sim *sim, const struct view *v, uint64_t max_events)
{
	if (!v->flags && v->events + rk_of(sim)->gevents < max_events)
		return false;
	if (v->flags & (F_FAILED | F_STOP))
		sim->stop = true;
	if ((v->flags & F_HALT) && !ws_stop_set(sim->opts.stop)) {
		sim->stop_requested = true;
		if (!sim->incomplete)
			sim->incomplete = "stopped by a signal to another rank";
	}
	return true;
}

static void gather(struct ws_sim *sim);

void ws_ranks_run(struct ws_sim *sim, ws_time limit, uint64_t max_events)
{
	struct ws_parts *par = sim->par;
	ws_time *next = ws_xcalloc(par->n, sizeof *next);
	uint64_t told = sim->events;
	ws_pt_threads_start(sim);
	struct view v;
	first_view(sim, &v);
	ws_time lo = sim->now;
	for (;;) {
		if (must_stop(sim, &v, max_events))
			break;
		ws_time t = WS_MIN(v.q, ws_eventq_peek(&sim->q));
		t = WS_MIN(t, ws_pt_tlist_next(&par->gsync, lo));
		if (t == WS_TIME_NEVER || t > limit)
			break;
		if (v.s_min < t)
			v.s = serial_again(sim, t);
		ws_time s = WS_MIN(v.s, ws_eventq_peek(&sim->q));
		s = WS_MIN(s, ws_pt_tlist_next(&par->gsync, t));
		par->phase++;
		if (s <= t) {
			serial_step(sim, t);
			ws_time last = t;
			phase_end(sim, false, t + 1, &last, &v);
			lo = t + 1;
		} else {
			lo = run_window(sim, t, s, limit, next, &v);
		}
		ws_pt_progress(sim, &told);
	}
	ws_pt_threads_stop(sim);
	sim->cpu_run_s += par->worker_cpu;
	par->worker_cpu = 0;
	free(next);
	gather(sim);
}

/* ---- what rank 0 writes: gathered at the end ----------------------------------- */

struct fin {
	uint64_t events, warnings, done, started, pending;
	ws_time now, max_base_rtt;
	uint64_t max_bdp;
	uint32_t failed, pad;
};

struct port_ctr {
	uint64_t tx_bytes, tx_pkts, tx_fresh_bytes, rx_pkts, drops, ecn_marks,
		 ecn_marks_ctrl, pause_tx, resume_tx, pause_rx, max_q_bytes;
	ws_time paused_since, paused_time;
	uint32_t paused, pad;
};

struct part_ctr {
	uint64_t events, windows_busy, windows_idle, cross_out, serial_events, cross_pfc;
};

/* Every rank: the totals all of them need (events, time, what is left). */
static void gather_fin(struct ws_sim *sim)
{
	struct ws_parts *par = sim->par;
	struct ws_ranks *rk = par->rk;
	struct fin me = { sim->events - rk->gevents, sim->warnings, sim->n_done,
			  sim->n_started, 0, sim->now, sim->max_base_rtt, sim->max_bdp,
			  sim->failed, 0 };
	for (uint32_t i = rk->first[rk->me]; i < rk->first[rk->me + 1]; i++) {
		struct ws_part *pt = par->p[i];
		me.now = WS_MAX(me.now, pt->sh.now);
		me.pending += pt->sh.q.live;
		for (uint32_t k = 0; k < 2 * par->n; k++)
			me.pending += pt->out[k].n;
	}
	struct fin *all = ws_xcalloc(rk->n, sizeof *all);
	allgather(rk, &me, sizeof me, all);
	sim->events = rk->gevents;
	sim->warnings = sim->n_done = sim->n_started = 0;
	rk->pending = sim->q.live;
	for (uint32_t r = 0; r < rk->n; r++) {
		sim->events += all[r].events;
		sim->warnings += all[r].warnings;
		sim->n_done += (uint32_t)all[r].done;
		sim->n_started += (uint32_t)all[r].started;
		rk->pending += all[r].pending;
		sim->now = WS_MAX(sim->now, all[r].now);
		sim->max_base_rtt = WS_MAX(sim->max_base_rtt, all[r].max_base_rtt);
		sim->max_bdp = WS_MAX(sim->max_bdp, all[r].max_bdp);
		if (all[r].failed)
			sim->stop = true;
	}
	free(all);
}

static void pack_ports(struct ws_sim *sim, struct rbuf *b)
{
	for (uint32_t g = 0; g < sim->fab.n_ports; g++) {
		const struct ws_port *p = &sim->ports[g];
		if (rank_of_node(sim, p->node) != rk_of(sim)->me)
			continue;
		struct port_ctr c = { p->tx_bytes, p->tx_pkts, p->tx_fresh_bytes, p->rx_pkts,
				      p->drops, p->ecn_marks, p->ecn_marks_ctrl, p->pause_tx,
				      p->resume_tx, p->pause_rx, p->max_q_bytes,
				      p->paused_since, p->paused_time, p->paused, 0 };
		rb_put(b, &c, sizeof c);
	}
}

static void unpack_ports(struct ws_sim *sim, uint32_t r, struct rd *rd)
{
	for (uint32_t g = 0; g < sim->fab.n_ports; g++) {
		struct ws_port *p = &sim->ports[g];
		if (rank_of_node(sim, p->node) != r)
			continue;
		struct port_ctr c;
		rd_get(rd, &c, sizeof c);
		p->tx_bytes = c.tx_bytes;
		p->tx_pkts = c.tx_pkts;
		p->tx_fresh_bytes = c.tx_fresh_bytes;
		p->rx_pkts = c.rx_pkts;
		p->drops = c.drops;
		p->ecn_marks = c.ecn_marks;
		p->ecn_marks_ctrl = c.ecn_marks_ctrl;
		p->pause_tx = c.pause_tx;
		p->resume_tx = c.resume_tx;
		p->pause_rx = c.pause_rx;
		p->max_q_bytes = c.max_q_bytes;
		p->paused_since = c.paused_since;
		p->paused_time = c.paused_time;
		p->paused = (uint8_t)c.paused;
	}
}

static void pack_flows(struct ws_sim *sim, struct rbuf *b)
{
	uint32_t me = rk_of(sim)->me;
	for (uint32_t i = 0; i < sim->n_flows; i++) {
		const struct ws_flow *f = sim->flows[i];
		if (rank_of_node(sim, f->cc.src) == me) {
			struct flow_tx x;
			flow_tx_pack(f, &x);
			rb_put(b, &x, sizeof x);
		}
		if (rank_of_node(sim, f->cc.dst) == me) {
			struct flow_rx x = { i, f->max_reorder, f->rcv_nxt, f->ooo_pkts,
					     f->ce_marked };
			rb_put(b, &x, sizeof x);
		}
	}
}

static void unpack_flows(struct ws_sim *sim, uint32_t r, struct rd *rd)
{
	for (uint32_t i = 0; i < sim->n_flows; i++) {
		struct ws_flow *f = sim->flows[i];
		if (rank_of_node(sim, f->cc.src) == r) {
			struct flow_tx x;
			rd_get(rd, &x, sizeof x);
			flow_tx_apply(f, &x);
		}
		if (rank_of_node(sim, f->cc.dst) == r) {
			struct flow_rx x;
			rd_get(rd, &x, sizeof x);
			f->max_reorder = x.max_reorder;
			f->rcv_nxt = x.rcv_nxt;
			f->ooo_pkts = x.ooo_pkts;
			f->ce_marked = x.ce_marked;
		}
	}
}

/* A rank's block for rank 0. */
static void pack_results(struct ws_sim *sim, struct rbuf *b)
{
	struct ws_parts *par = sim->par;
	struct ws_ranks *rk = par->rk;
	rb_put(b, &sim->ctr, sizeof sim->ctr);
	for (uint32_t i = rk->first[rk->me]; i < rk->first[rk->me + 1]; i++) {
		const struct ws_part *pt = par->p[i];
		struct part_ctr c = { pt->events, pt->windows_busy, pt->windows_idle,
				      pt->cross_out, pt->serial_events, pt->cross_pfc };
		rb_put(b, &c, sizeof c);
	}
	pack_flows(sim, b);
	pack_ports(sim, b);
	for (uint32_t i = 0; i < sim->fab.n_switches; i++)
		rb_put(b, &sim->sws[i].peak_used, sizeof sim->sws[i].peak_used);
	size_t nt = ws_failures_tallies(sim, NULL);
	ws_failures_tallies(sim, rb_room(b, nt * sizeof(uint64_t)));
	rb_put(b, &sim->failed, sizeof sim->failed);
	if (sim->failed)
		rb_put(b, &sim->fail_err, sizeof sim->fail_err);
}

static void unpack_results(struct ws_sim *sim, uint32_t r, struct rd *rd)
{
	struct ws_parts *par = sim->par;
	struct ws_ranks *rk = par->rk;
	struct ws_counters c;
	rd_get(rd, &c, sizeof c);
	uint64_t *d = (uint64_t *)&sim->ctr, *s = (uint64_t *)&c;
	for (size_t i = 0; i < sizeof c / sizeof(uint64_t); i++)
		d[i] += s[i];
	for (uint32_t i = rk->first[r]; i < rk->first[r + 1]; i++) {
		struct ws_part *pt = par->p[i];
		struct part_ctr pc;
		rd_get(rd, &pc, sizeof pc);
		pt->events = pc.events;
		pt->windows_busy = pc.windows_busy;
		pt->windows_idle = pc.windows_idle;
		pt->cross_out = pc.cross_out;
		pt->serial_events = pc.serial_events;
		pt->cross_pfc = pc.cross_pfc;
	}
	unpack_flows(sim, r, rd);
	unpack_ports(sim, r, rd);
	for (uint32_t i = 0; i < sim->fab.n_switches; i++) {
		uint64_t peak;
		rd_get(rd, &peak, sizeof peak);
		sim->sws[i].peak_used = WS_MAX(sim->sws[i].peak_used, peak);
	}
	size_t nt = ws_failures_tallies(sim, NULL);
	uint64_t *t = ws_xcalloc(nt ? nt : 1, sizeof *t);
	rd_get(rd, t, nt * sizeof *t);
	ws_failures_add_tallies(sim, t);
	free(t);
	bool failed;
	rd_get(rd, &failed, sizeof failed);
	if (failed) {
		struct ws_err e;
		rd_get(rd, &e, sizeof e);
		if (!sim->failed) {
			sim->failed = true;
			sim->fail_err = e;
		}
	}
}

/* The end of the run: totals everywhere, the outputs' inputs on rank 0. */
static void gather(struct ws_sim *sim)
{
	struct ws_ranks *rk = rk_of(sim);
	if (rk->ended)
		return;
	rk->ended = true;
	gather_fin(sim);
	rk->send.n = 0;
	for (uint32_t r = 0; r < rk->n; r++) {
		size_t at = rk->send.n;
		if (r == 0 && rk->me != 0)
			pack_results(sim, &rk->send);
		rk->send_len[r] = rk->send.n - at;
	}
	exchange(rk);
	if (rk->me == 0)
		for (uint32_t r = 1; r < rk->n; r++) {
			struct rd rd = block_of(rk, r);
			unpack_results(sim, r, &rd);
		}
}

bool ws_part_ranks(const struct ws_sim *sim)
{
	const struct ws_sim *m = sim->main ? sim->main : sim;
	return m->par && m->par->rk;
}
