/* SPDX-License-Identifier: MIT */
/*
 * The partitioned engine: one experiment on several threads.
 *
 * [sim] partitions > 1 cuts the fabric into partitions along its structure
 * (contiguous hosts that never split a leaf switch, each switch with the
 * partition most of the nodes below it belong to).  A partition runs on a
 * shell: a copy of the struct ws_sim with its own clock, event queue,
 * packet pool and counters, so the packet path runs unchanged on it.
 *
 * Time advances in conservative windows [T, E): T is the earliest pending
 * event anywhere, E = T + lookahead, the smallest delay of a link joining
 * two partitions (or of a host link, see below).  Within a window the
 * partitions share nothing that changes: a packet for another partition
 * cannot arrive before E, so it goes to a mailbox, merged into the
 * receiver's queue when the window ends, in (time, sending partition,
 * sending order).  What one partition does therefore never depends on
 * when another ran: the outputs are the same bytes for any number of
 * threads.
 *
 * What touches the whole simulation (a flow starting, a flow completing
 * and the workload's reaction to it, failures, the workload's own timers)
 * runs in a serial step: all partitions stop at exactly that time, and the
 * events of that picosecond run one after another, the global queue's
 * first, then partition 0's, 1's, ...  Flow starts are known when they are
 * created; a completion is known when its last acknowledgement is put on
 * the host's link (at least one host-link delay, hence at least one
 * lookahead, before it arrives), so the window that would pass it ends at
 * it.  A completion nobody foresaw (a flow given up after its retries)
 * tells the workload at the end of its window instead; summary.json
 * counts these.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#include "part.h"

/* the thread counts the window model projects to */
static const unsigned MODEL_T[6] = { 2, 4, 8, 16, 32, 64 };

/* The shell a worker thread runs, for API calls made with the simulation
 * itself (plugins keep the struct ws_sim they were given): per thread, set
 * only while the thread runs a partition.  The one piece of thread state
 * in the kernel: it names what the thread does, not a result. */
static _Thread_local struct ws_sim *tls_shell __attribute__((tls_model("initial-exec")));

/* ---- small containers -------------------------------------------------------- */

static void tlist_push(struct ws_tlist *l, ws_time t)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->t = ws_xrealloc(l->t, l->cap, sizeof *l->t);
	}
	size_t i = l->n++;
	while (i && l->t[(i - 1) / 2] > t) {
		l->t[i] = l->t[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	l->t[i] = t;
}

static void tlist_pop(struct ws_tlist *l)
{
	ws_time last = l->t[--l->n];
	size_t i = 0, n = l->n;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && l->t[c + 1] < l->t[c])
			c++;
		if (last <= l->t[c])
			break;
		l->t[i] = l->t[c];
		i = c;
	}
	if (n)
		l->t[i] = last;
}

/* The earliest time >= now, dropping those before. */
ws_time ws_pt_tlist_next(struct ws_tlist *l, ws_time now)
{
	while (l->n && l->t[0] < now)
		tlist_pop(l);
	return l->n ? l->t[0] : WS_TIME_NEVER;
}

void ws_pt_mail_put(struct ws_mailbox *m, const struct ws_mail *e)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->e = ws_xrealloc(m->e, m->cap, sizeof *m->e);
	}
	m->e[m->n++] = *e;
	if (e->when < m->min)
		m->min = e->when;
}

/* ---- partitions of the fabric ------------------------------------------------ */

static uint32_t leaf_of(const struct ws_sim *sim, uint32_t host)
{
	const struct ws_node *h = &sim->nodes[host];
	return h->n_ports ? sim->peer_node[h->first_port] : host;
}

/* Hosts in contiguous runs of about n_hosts / want, never splitting the
 * hosts of one leaf; returns the partitions used. */
static uint32_t cut_hosts(const struct ws_sim *sim, uint16_t *part, uint32_t want)
{
	const struct ws_fabric *fab = &sim->fab;
	uint32_t p = 0, prev_leaf = UINT32_MAX;
	for (uint32_t h = 0; h < fab->n_hosts; h++) {
		uint32_t node = fab->hosts[h], leaf = leaf_of(sim, node);
		uint64_t bound = (uint64_t)(p + 1) * fab->n_hosts / want;
		if (h >= bound && leaf != prev_leaf && p + 1 < want)
			p++;
		part[node] = (uint16_t)p;
		prev_leaf = leaf;
	}
	return fab->n_hosts ? p + 1 : 1;
}

/* A switch joins the partition most of its lower neighbours are in; ties
 * go round the tied partitions, so the top tier spreads evenly. */
static void place_switches(const struct ws_sim *sim, uint16_t *part, uint32_t n,
			   uint32_t *count)
{
	const struct ws_fabric *fab = &sim->fab;
	unsigned max_level = 0;
	for (uint32_t i = 0; i < fab->n_nodes; i++)
		max_level = WS_MAX(max_level, sim->nodes[i].level);
	for (unsigned lv = 1; lv <= max_level; lv++) {
		uint64_t turn = 0;
		for (uint32_t i = 0; i < fab->n_nodes; i++) {
			const struct ws_node *nd = &sim->nodes[i];
			if (nd->level != lv || nd->kind == WS_NODE_HOST)
				continue;
			memset(count, 0, n * sizeof *count);
			uint32_t best = 0;
			for (uint32_t k = 0; k < nd->n_ports; k++) {
				uint32_t pe = sim->peer_node[nd->first_port + k];
				if (pe == WS_NONE || sim->nodes[pe].level >= lv)
					continue;
				uint32_t c = ++count[part[pe]];
				best = WS_MAX(best, c);
			}
			uint32_t ties = 0;
			for (uint32_t q = 0; q < n; q++)
				ties += count[q] == best;
			uint64_t pick = turn++ % ties;
			for (uint32_t q = 0; q < n; q++)
				if (count[q] == best && !pick--) {
					part[i] = (uint16_t)q;
					break;
				}
		}
	}
}

/* The smallest delay of a link joining two partitions, and of a host's
 * link (a completion is foreseen one host-link delay ahead). */
static ws_time lookahead_of(const struct ws_sim *sim, const uint16_t *part)
{
	ws_time la = WS_TIME_NEVER;
	for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
		const struct ws_port *p = &sim->links[i];
		if (p->peer == WS_NONE)
			continue;
		uint32_t b = sim->links[p->peer].node;
		if (part[p->node] != part[b] || p->is_host)
			la = WS_MIN(la, p->delay);
	}
	return la;
}

uint32_t ws_part_auto_count(const struct ws_sim *sim)
{
	uint32_t n = sim->fab.n_hosts / 64;
	n = WS_MAX(n, 4u);
	n = WS_MIN(n, 64u);
	return WS_MIN(n, sim->fab.n_hosts);
}

uint32_t ws_part_cores(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		return (uint32_t)WS_MAX(CPU_COUNT(&set), 1);
	return 1;
}

/* Why the configuration cannot run partitioned, NULL if it can. */
static const char *refusal(const struct ws_sim *sim, char *buf, size_t size)
{
	const char *accel = ws_sim_plugin_name(sim, WS_KIND_ACCEL);
	if (accel && strcmp(accel, "none")) {
		snprintf(buf, size, "[accel] name = %s freezes and moves flows across "
			 "the whole fabric; it runs on one partition only "
			 "(use [accel] name = none, or [sim] partitions = 1)", accel);
		return buf;
	}
	if (sim->outc.trace_rates || sim->outc.trace_queues || sim->outc.trace_util)
		return "[output] trace_rates, trace_queues and trace_util sample every "
		       "port at once; they run on one partition only (set "
		       "[sim] partitions = 1, or turn the traces off)";
	if (sim->outc.pfc || (sim->outc.packets && sim->outc.packets[0]))
		return "[output] packets and pfc log events in the order they happen "
		       "across the fabric; they run on one partition only (set "
		       "[sim] partitions = 1, or turn the logs off)";
	const char *rule = ws_sim_plugin_name(sim, WS_KIND_ROUTING);
	if (rule && !strcmp(rule, "table"))
		return "[routing] name = table fills one route cache shared by every "
		       "switch; it runs on one partition only (use updown where the "
		       "fabric allows, or [sim] partitions = 1)";
	return NULL;
}

/* Several MPI ranks and one partition: they would each run it all. */
static int one_part(struct ws_err *err, uint32_t ranks)
{
	return ws_err_key(err, WS_EINVAL, "partitions",
			  "%u MPI ranks, but the fabric makes one partition: "
			  "the ranks would each run the whole experiment; run it "
			  "without mpirun", ranks);
}

int ws_part_plan(struct ws_sim *sim, struct ws_err *err)
{
	uint32_t want = sim->simc.n_parts;
	const struct ws_comm *tr = sim->opts.comm;
	uint32_t ranks = tr && tr->ranks > 1 ? tr->ranks : 1;
	if (want == 0)
		want = ws_part_auto_count(sim);
	if (ranks > 1 && want < ranks)
		return ws_err_key(err, WS_EINVAL, "partitions",
				  "[sim] partitions = %u: %u MPI ranks run one "
				  "experiment's partitions, at least one each (set "
				  "[sim] partitions to %u or more, or auto; or run "
				  "without mpirun)", want, ranks, ranks);
	if (want <= 1 || sim->fab.n_hosts < 2)
		return ranks > 1 ? one_part(err, ranks) : WS_OK;
	char why[256];
	const char *no = refusal(sim, why, sizeof why);
	if (no)
		return ws_err_key(err, WS_EINVAL, "partitions", "[sim] partitions = %u: %s",
				  want, no);
	if (want > 4096)
		return ws_err_key(err, WS_EINVAL, "partitions",
				  "[sim] partitions = %u: at most 4096", want);
	uint16_t *part = ws_xcalloc(sim->fab.n_nodes, sizeof *part);
	uint32_t n = cut_hosts(sim, part, want);
	uint32_t *count = ws_xcalloc(n, sizeof *count);
	place_switches(sim, part, n, count);
	free(count);
	ws_time la = lookahead_of(sim, part);
	if (n <= 1 || la == 0) {
		free(part);
		if (la == 0)
			return ws_err_key(err, WS_EINVAL, "partitions",
					  "[sim] partitions = %u: a link joining two "
					  "partitions (or a host's link) has no delay, so "
					  "no partition can run ahead of another; give "
					  "links a delay or set [sim] partitions = 1", want);
		return ranks > 1 ? one_part(err, ranks) : WS_OK;
	}
	struct ws_parts *par = ws_xcalloc(1, sizeof *par);
	par->n = n;
	par->node_part = part;
	par->lookahead = la;
	par->threads = sim->simc.n_threads ? sim->simc.n_threads : ws_part_cores();
	par->threads = WS_MIN(par->threads, n);
	pthread_mutex_init(&par->warn_mu, NULL);
	sim->par = par;
	sim->node_part = part;
	return ranks > 1 ? ws_ranks_plan(sim, par, err) : WS_OK;
}

/* ---- shells ------------------------------------------------------------------ */

static void shell_make(struct ws_sim *sim, struct ws_part *pt, uint32_t id)
{
	struct ws_sim *sh = &pt->sh;
	*sh = *sim;
	sh->main = sim;
	sh->part_id = id;
	memset(&sh->q, 0, sizeof sh->q);
	ws_eventq_init(&sh->q);
	ws_eventq_shape(&sh->q, sim->q.res, sim->q.nbits);
	memset(&sh->pkts, 0, sizeof sh->pkts);
	ws_pktpool_init(&sh->pkts, (sim->cc_needs & WS_CC_NEEDS_INT) != 0);
	sh->pkts.shared = true;
	memset(&sh->ctr, 0, sizeof sh->ctr);
	sh->events = sh->warnings = 0;
	sh->n_done = sh->n_started = 0;
	sh->failed = sh->stop = false;
	sh->held = NULL;
	sh->n_held = sh->cap_held = 0;
	pt->out = ws_xcalloc(2 * (size_t)sim->par->n, sizeof *pt->out);
	for (uint32_t k = 0; k < 2 * sim->par->n; k++)
		pt->out[k].min = WS_TIME_NEVER;
}

/* What the shell changed that the simulation keeps: counters (the shell
 * holds what it added since), its first failure. */
void ws_pt_fold(struct ws_sim *sim, struct ws_sim *sh)
{
	uint64_t *d = (uint64_t *)&sim->ctr, *s = (uint64_t *)&sh->ctr;
	_Static_assert(sizeof sim->ctr % sizeof(uint64_t) == 0, "counters are u64");
	for (size_t i = 0; i < sizeof sim->ctr / sizeof(uint64_t); i++) {
		d[i] += s[i];
		s[i] = 0;
	}
	sim->events += sh->events;
	sim->warnings += sh->warnings;
	sim->n_done += sh->n_done;
	sim->n_started += sh->n_started;
	sh->events = sh->warnings = 0;
	sh->n_done = sh->n_started = 0;
	sim->max_base_rtt = WS_MAX(sim->max_base_rtt, sh->max_base_rtt);
	sim->max_bdp = WS_MAX(sim->max_bdp, sh->max_bdp);
	if (sh->failed && !sim->failed) {
		sim->failed = true;
		sim->stop = true;
		sim->fail_err = sh->fail_err;
		ws_err_prefix(&sim->fail_err, "partition %u: ", sh->part_id);
	}
}

/* What the shell must see of the simulation: the flows (the workload adds
 * them in the global context), the failure count, the fabric maxima. */
void ws_pt_pull(struct ws_sim *sh, const struct ws_sim *sim)
{
	sh->flows = sim->flows;
	sh->n_flows = sim->n_flows;
	sh->cap_flows = sim->cap_flows;
	sh->links_changed = sim->links_changed;
	sh->max_base_rtt = sim->max_base_rtt;
	sh->max_bdp = sim->max_bdp;
	sh->multipath = sim->multipath;
}

struct ws_sim *ws_part_shell(struct ws_sim *sim, uint32_t node)
{
	struct ws_sim *m = sim->main ? sim->main : sim;
	return &m->par->p[m->node_part[node]]->sh;
}

struct ws_sim *ws_here_slow(struct ws_sim *sim)
{
	struct ws_sim *s = tls_shell;
	return s && s->main == sim ? s : sim;
}

/* ---- posting across partitions ---------------------------------------------- */

/* A flow's last acknowledgement, put on the wire to its sender's NIC: the
 * flow completes when it arrives (ws_flow_complete), a serial step. */
static bool completes(const struct ws_sim *sim, const struct ws_pkt *p,
		      const struct ws_port *in)
{
	if (!in->is_host || (p->type != WS_PKT_ACK && p->type != WS_PKT_NACK) ||
	    (p->flags & WS_PKTF_TRIM) || p->flow >= sim->n_flows)
		return false;
	const struct ws_flow *f = sim->flows[p->flow];
	return p->seq >= f->seq_end && f->end == WS_TIME_NEVER;
}

void ws_part_post(struct ws_sim *sim, struct ws_owner *owner, ws_time when,
		  ws_event_fn fn, struct ws_port *in, struct ws_pkt *p)
{
	struct ws_parts *par = (sim->main ? sim->main : sim)->par;
	if (!sim->main)
		sim = ws_part_shell(sim, sim->ports[in->peer].node);
	struct ws_part *pt = par->p[sim->part_id];
	if (completes(sim, p, in))
		tlist_push(&pt->sync, when);
	uint32_t dst = sim->node_part[in->node];
	if (dst == sim->part_id) {
		ws_eventq_post(&sim->q, owner, when, fn, in, (uint64_t)(uintptr_t)p);
		return;
	}
	struct ws_mail m = { when, fn, in, (uint64_t)(uintptr_t)p, owner };
	ws_pt_mail_put(&pt->out[2 * dst + (par->phase & 1)], &m);
	pt->cross_out++;
	pt->cross_pfc += p->type == WS_PKT_PFC;
}

void ws_part_need_serial(struct ws_sim *sim, ws_time when)
{
	struct ws_sim *m = sim->main ? sim->main : sim;
	if (sim->main)
		tlist_push(&m->par->p[sim->part_id]->sync, when);
	else
		tlist_push(&m->par->gsync, when);
}

/* Merge what was posted to partition `dst` in the phase before. */
void ws_pt_merge_in(struct ws_parts *par, uint32_t dst)
{
	struct ws_eventq *q = &par->p[dst]->sh.q;
	unsigned side = (unsigned)((par->phase - 1) & 1);
	for (uint32_t s = 0; s < par->n; s++) {
		struct ws_mailbox *m = &par->p[s]->out[2 * dst + side];
		/* the lookahead's promise: nothing arrives in a partition's past */
		WS_ASSERT(!m->n || m->min >= par->p[dst]->sh.now,
			  "partition %u got an event at %llu ps from partition %u, "
			  "after running to %llu ps", dst, (unsigned long long)m->min, s,
			  (unsigned long long)par->p[dst]->sh.now);
		for (size_t i = 0; i < m->n; i++)
			ws_eventq_post(q, m->e[i].owner, m->e[i].when, m->e[i].fn,
				       m->e[i].obj, m->e[i].arg);
		m->n = 0;
		m->min = WS_TIME_NEVER;
	}
}

/* ---- the global context ------------------------------------------------------- */

bool ws_part_serial(const struct ws_sim *sim)
{
	const struct ws_sim *m = sim->main ? sim->main : sim;
	return m->par->serial;
}

struct ws_sim *ws_part_enter_global(struct ws_sim *sh)
{
	struct ws_sim *sim = sh->main;
	ws_pt_fold(sim, sh);
	tls_shell = NULL;
	return sim;
}

void ws_part_leave_global(struct ws_sim *sh)
{
	ws_pt_pull(sh, sh->main);
	tls_shell = sh;
}

void ws_part_defer_done(struct ws_sim *sh, uint32_t flow)
{
	struct ws_part *pt = sh->main->par->p[sh->part_id];
	if (pt->n_dfr == pt->cap_dfr) {
		pt->cap_dfr = pt->cap_dfr ? 2 * pt->cap_dfr : 16;
		pt->dfr = ws_xrealloc(pt->dfr, pt->cap_dfr, sizeof *pt->dfr);
	}
	pt->dfr[pt->n_dfr++].flow = flow;
}

void ws_part_deadlock_check(struct ws_sim *sh, uint32_t flow, ws_time rto)
{
	struct ws_part *pt = sh->main->par->p[sh->part_id];
	if (!pt->deadlock_rto) {
		pt->deadlock_rto = rto;
		pt->deadlock_flow = flow;
	}
}

/* The PFC deadlock searches timeouts asked for during the window. */
void ws_pt_deadlock_checks(struct ws_sim *sim)
{
	struct ws_parts *par = sim->par;
	for (uint32_t i = 0; i < par->n && !sim->failed; i++) {
		struct ws_part *pt = par->p[i];
		if (!pt->deadlock_rto)
			continue;
		ws_pfc_deadlock(sim, pt->deadlock_flow, pt->deadlock_rto, (int)i);
		pt->deadlock_rto = 0;
	}
}

void ws_part_warn_lock(struct ws_sim *sim, bool lock)
{
	struct ws_sim *m = sim->main ? sim->main : sim;
	if (m->par && m->par->threads > 1) {
		if (lock)
			pthread_mutex_lock(&m->par->warn_mu);
		else
			pthread_mutex_unlock(&m->par->warn_mu);
	}
}

/* ---- workers and windows ------------------------------------------------------ */

static void futex_wait(atomic_uint *a, unsigned v)
{
	syscall(SYS_futex, a, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void futex_wake_all(atomic_uint *a)
{
	syscall(SYS_futex, a, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* All threads meet: the last to come opens the next generation.  A
 * thread spins a little (windows are short), then sleeps, so threads
 * beyond the cores do not take the time of those that work. */
static void barrier(struct ws_parts *par)
{
	unsigned gen = atomic_load(&par->gen);
	if (atomic_fetch_add(&par->arrived, 1) + 1 == par->threads) {
		atomic_store(&par->arrived, 0);
		atomic_fetch_add(&par->gen, 1);
		if (atomic_load(&par->sleepers))
			futex_wake_all(&par->gen);
		return;
	}
	for (unsigned spins = 0; spins < 4000; spins++) {
		if (atomic_load(&par->gen) != gen)
			return;
		__builtin_ia32_pause();
	}
	atomic_fetch_add(&par->sleepers, 1);
	while (atomic_load(&par->gen) == gen)
		futex_wait(&par->gen, gen);
	atomic_fetch_sub(&par->sleepers, 1);
}

/* One partition's window: what was posted to it, then its events before
 * the window's end. */
static void run_part(struct ws_parts *par, uint32_t id)
{
	struct ws_part *pt = par->p[id];
	struct ws_sim *sh = &pt->sh;
	ws_pt_merge_in(par, id);
	tls_shell = sh;
	struct ws_fired ev;
	uint64_t n = 0;
	ws_time last = par->win_end - 1;
	while (!sh->stop && ws_eventq_pop(&sh->q, last, &ev)) {
		sh->now = ev.when;
		ev.fn(sh, ev.obj, ev.arg);
		n++;
	}
	tls_shell = NULL;
	sh->events += n;
	pt->events += n;
	pt->w_events = n;
	pt->windows_busy++;
}

static void work(struct ws_parts *par, uint32_t n_active)
{
	unsigned i;
	while ((i = atomic_fetch_add(&par->next, 1)) < n_active)
		run_part(par, par->order[i]);
}

static void *worker(void *arg)
{
	struct ws_sim *sim = arg;
	struct ws_parts *par = sim->par;
	double c0 = ws_cpu_seconds();
	for (;;) {
		barrier(par);
		if (par->cmd == CMD_EXIT) {
			pthread_mutex_lock(&par->warn_mu);
			par->worker_cpu += ws_cpu_seconds() - c0;
			pthread_mutex_unlock(&par->warn_mu);
			return NULL;
		}
		work(par, par->n_active);
		barrier(par);
	}
}

void ws_pt_threads_start(struct ws_sim *sim)
{
	struct ws_parts *par = sim->par;
	if (par->threads <= 1 || par->tid)
		return;
	par->tid = ws_xcalloc(par->threads - 1, sizeof *par->tid);
	for (uint32_t t = 0; t + 1 < par->threads; t++) {
		int rc = pthread_create(&par->tid[t], NULL, worker, sim);
		if (rc)
			ws_fatal("cannot start worker thread %u of %u: %s", t + 1,
				 par->threads, strerror(rc));
	}
}

void ws_pt_threads_stop(struct ws_sim *sim)
{
	struct ws_parts *par = sim->par;
	if (!par->tid)
		return;
	par->cmd = CMD_EXIT;
	barrier(par);
	for (uint32_t t = 0; t + 1 < par->threads; t++)
		pthread_join(par->tid[t], NULL);
	free(par->tid);
	par->tid = NULL;
}

static int by_weight(const void *a, const void *b, void *ctx)
{
	struct ws_parts *par = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t wx = par->p[x]->w_events, wy = par->p[y]->w_events;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* What the window just run would have taken on more threads: its
 * partitions' events (heaviest first, already in par->order by last
 * window's weight, sorted again here by this window's) dealt onto the
 * least loaded of N threads; the busiest thread's share is the window's
 * length.  Deterministic: event counts, not clocks. */
void ws_pt_model_window(struct ws_parts *par, uint32_t k)
{
	uint64_t w[64], load[64];
	uint32_t n = WS_MIN(k, 64u);
	for (uint32_t i = 0; i < n; i++)
		w[i] = par->p[par->order[i]]->w_events;
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && w[j] > w[j - 1]; j--) {
			uint64_t t = w[j];
			w[j] = w[j - 1];
			w[j - 1] = t;
		}
	for (uint32_t i = 0; i < n; i++)
		par->model_events += w[i];
	for (unsigned m = 0; m < WS_ARRAY_LEN(MODEL_T); m++) {
		unsigned th = MODEL_T[m];
		memset(load, 0, sizeof load);
		uint64_t span = 0;
		for (uint32_t i = 0; i < n; i++) {
			unsigned best = 0;
			for (unsigned t = 1; t < th; t++)
				if (load[t] < load[best])
					best = t;
			load[best] += w[i];
			span = WS_MAX(span, load[best]);
		}
		par->model_span[m] += span;
	}
}

/* Run the partitions with something before `end`, heaviest first; merge
 * the mail of the others. */
void ws_pt_window(struct ws_sim *sim, const ws_time *next, ws_time end)
{
	struct ws_parts *par = sim->par;
	uint32_t k = 0;
	for (uint32_t i = 0; i < par->n; i++) {
		if (!ws_pt_mine(par, i))
			continue; /* another rank's */
		if (next[i] < end) {
			par->order[k++] = i;
		} else {
			ws_pt_merge_in(par, i);
			par->p[i]->windows_idle++;
			par->p[i]->w_events = 0;
		}
	}
	qsort_r(par->order, k, sizeof *par->order, by_weight, par);
	par->n_active = k;
	par->win_end = end;
	atomic_store(&par->next, 0);
	par->windows++;
	if (par->tid) {
		par->cmd = CMD_RUN;
		barrier(par);
		work(par, k);
		barrier(par);
	} else {
		work(par, k);
	}
	if (par->n <= 64 && !par->rk)
		ws_pt_model_window(par, k); /* over ranks: once every rank's counts are in */
}

/* One event of a serial step on partition `i`'s shell. */
bool ws_pt_serial_one(struct ws_sim *sim, uint32_t i, ws_time t)
{
	struct ws_part *pt = sim->par->p[i];
	struct ws_sim *sh = &pt->sh;
	struct ws_fired ev;
	if (!ws_eventq_pop(&sh->q, t, &ev))
		return false;
	ws_pt_pull(sh, sim);
	sh->now = t;
	tls_shell = sh;
	ev.fn(sh, ev.obj, ev.arg);
	tls_shell = NULL;
	sh->events++;
	pt->events++;
	pt->serial_events++;
	ws_pt_fold(sim, sh);
	return true;
}

/* Every event at time t, one after another: the global queue's first,
 * then the partitions' in their order, until none is left at t. */
static void serial_step(struct ws_sim *sim, ws_time t)
{
	struct ws_parts *par = sim->par;
	par->serial = true;
	par->serial_steps++;
	for (uint32_t i = 0; i < par->n; i++) {
		ws_pt_merge_in(par, i);
		/* every partition is at t (a global event may act on its ports) */
		par->p[i]->sh.now = t;
	}
	sim->now = t;
	struct ws_fired ev;
	while (!sim->stop) {
		if (ws_eventq_pop(&sim->q, t, &ev)) {
			sim->now = t;
			ev.fn(sim, ev.obj, ev.arg);
			sim->events++;
			continue;
		}
		uint32_t i = 0;
		while (i < par->n && !ws_pt_serial_one(sim, i, t))
			i++;
		if (i == par->n)
			break;
	}
	for (uint32_t i = 0; i < par->n; i++)
		ws_pt_pull(&par->p[i]->sh, sim);
	par->serial = false;
}

/* Completions a window could not foresee, told to the workload at its end
 * (partition order, then the order they happened). */
void ws_pt_tell_deferred(struct ws_sim *sim, ws_time at)
{
	struct ws_parts *par = sim->par;
	bool any = false;
	for (uint32_t i = 0; i < par->n; i++) {
		struct ws_part *pt = par->p[i];
		for (size_t k = 0; k < pt->n_dfr; k++) {
			struct ws_flow *f = sim->flows[pt->dfr[k].flow];
			sim->now = WS_MAX(sim->now, at);
			f->on_done(sim, f->cc.id, f->on_done_arg);
			par->deferred++;
			any = true;
		}
		pt->n_dfr = 0;
	}
	if (any)
		for (uint32_t i = 0; i < par->n; i++)
			ws_pt_pull(&par->p[i]->sh, sim);
}

/* The earliest event of each partition (its queue or its mail) into
 * next[]; the earliest of all, the global queue's included. */
static ws_time next_times(struct ws_sim *sim, ws_time *next)
{
	struct ws_parts *par = sim->par;
	/* called between phases: the mail of the phase that just ended */
	unsigned side = (unsigned)(par->phase & 1);
	ws_time t = ws_eventq_peek(&sim->q);
	for (uint32_t d = 0; d < par->n; d++)
		next[d] = ws_eventq_peek(&par->p[d]->sh.q);
	for (uint32_t s = 0; s < par->n; s++)
		for (uint32_t d = 0; d < par->n; d++)
			next[d] = WS_MIN(next[d], par->p[s]->out[2 * d + side].min);
	for (uint32_t d = 0; d < par->n; d++)
		t = WS_MIN(t, next[d]);
	return t;
}

/* The next time a serial step is needed (>= now). */
static ws_time next_serial(struct ws_sim *sim, ws_time now)
{
	struct ws_parts *par = sim->par;
	ws_time s = WS_MIN(ws_eventq_peek(&sim->q), ws_pt_tlist_next(&par->gsync, now));
	for (uint32_t i = 0; i < par->n; i++)
		s = WS_MIN(s, ws_pt_tlist_next(&par->p[i]->sync, now));
	return s;
}

void ws_pt_progress(struct ws_sim *sim, uint64_t *told)
{
	if (sim->opts.on_progress && sim->events - *told >= 0x10000) {
		*told = sim->events;
		sim->opts.on_progress(sim->opts.ctx, sim, false);
	}
}

/* The run loop of a partitioned simulation (ws_sim_run's). */
void ws_part_run(struct ws_sim *sim, ws_time limit, uint64_t max_events)
{
	struct ws_parts *par = sim->par;
	if (par->rk) {
		ws_ranks_run(sim, limit, max_events);
		return;
	}
	ws_time *next = ws_xcalloc(par->n, sizeof *next);
	uint64_t told = sim->events;
	ws_pt_threads_start(sim);
	ws_time last = sim->now;
	while (!sim->stop && !ws_stop_set(sim->opts.stop) && sim->events < max_events) {
		ws_time t = next_times(sim, next);
		if (t == WS_TIME_NEVER || t > limit)
			break;
		last = t;
		ws_time s = next_serial(sim, t);
		par->phase++;
		if (s <= t) {
			serial_step(sim, t);
		} else {
			ws_time end = t + par->lookahead;
			end = WS_MIN(end, s);
			if (limit != WS_TIME_NEVER)
				end = WS_MIN(end, limit + 1);
			ws_pt_window(sim, next, end);
			for (uint32_t i = 0; i < par->n; i++) {
				ws_pt_fold(sim, &par->p[i]->sh);
				last = WS_MAX(last, par->p[i]->sh.now);
			}
			sim->now = last;
			ws_pt_deadlock_checks(sim);
			ws_pt_tell_deferred(sim, end);
		}
		ws_pt_progress(sim, &told);
	}
	ws_pt_threads_stop(sim);
	sim->cpu_run_s += par->worker_cpu;
	par->worker_cpu = 0;
	free(next);
	for (uint32_t i = 0; i < par->n; i++)
		last = WS_MAX(last, par->p[i]->sh.now);
	sim->now = WS_MAX(sim->now, last);
}

/* ---- setting up and taking down ---------------------------------------------- */

void ws_part_start(struct ws_sim *sim)
{
	struct ws_parts *par = sim->par;
	if (!par || par->started)
		return;
	par->started = true;
	par->p = ws_xcalloc(par->n, sizeof *par->p);
	par->order = ws_xcalloc(par->n, sizeof *par->order);
	for (uint32_t i = 0; i < par->n; i++) {
		if (posix_memalign((void **)&par->p[i], 64, sizeof *par->p[i]))
			ws_fatal_oom(1, sizeof *par->p[i]);
		memset(par->p[i], 0, sizeof *par->p[i]);
		shell_make(sim, par->p[i], i);
	}
	for (uint32_t v = 0; v < sim->fab.n_nodes; v++) {
		struct ws_part *pt = par->p[par->node_part[v]];
		pt->nodes++;
		pt->hosts += sim->nodes[v].kind == WS_NODE_HOST;
	}
}

/* Pending events of every partition and the global queue. */
uint64_t ws_part_pending(const struct ws_sim *sim)
{
	const struct ws_parts *par = sim->par;
	if (par->rk)
		return ws_ranks_pending(sim);
	uint64_t n = sim->q.live;
	for (uint32_t i = 0; par->p && i < par->n; i++) {
		const struct ws_part *pt = par->p[i];
		n += pt->sh.q.live;
		for (uint32_t k = 0; k < 2 * par->n; k++)
			n += pt->out[k].n;
	}
	return n;
}

void ws_part_free(struct ws_sim *sim)
{
	struct ws_parts *par = sim->par;
	if (!par)
		return;
	for (uint32_t i = 0; par->p && i < par->n; i++) {
		struct ws_part *pt = par->p[i];
		ws_eventq_fini(&pt->sh.q);
		ws_pktpool_fini(&pt->sh.pkts);
		for (uint32_t k = 0; k < 2 * par->n; k++)
			free(pt->out[k].e);
		free(pt->out);
		free(pt->sync.t);
		free(pt->dfr);
		free(pt);
	}
	free(par->p);
	free(par->order);
	free(par->gsync.t);
	free(par->node_part);
	ws_ranks_free(par);
	pthread_mutex_destroy(&par->warn_mu);
	free(par);
	sim->par = NULL;
	sim->node_part = NULL;
}

uint32_t ws_part_threads(const struct ws_sim *sim)
{
	return sim->par ? sim->par->threads : 1;
}

/* ---- what summary.json shows ---------------------------------------------------- */

void ws_part_json(const struct ws_sim *sim, struct ws_json *j)
{
	const struct ws_parts *par = sim->par;
	ws_json_begin(j, "partitions");
	ws_json_u64(j, "count", par ? par->n : 1);
	if (!par) {
		ws_json_end(j);
		return;
	}
	ws_json_f64(j, "lookahead_ns", (double)par->lookahead / (double)WS_NS);
	ws_json_u64(j, "windows", par->windows);
	ws_json_u64(j, "serial_steps", par->serial_steps);
	ws_json_u64(j, "completions_told_late", par->deferred);
	uint64_t cross = 0, cross_pfc = 0, max_ev = 0, sum_ev = 0;
	for (uint32_t i = 0; par->p && i < par->n; i++) {
		cross += par->p[i]->cross_out;
		cross_pfc += par->p[i]->cross_pfc;
		max_ev = WS_MAX(max_ev, par->p[i]->events);
		sum_ev += par->p[i]->events;
	}
	ws_json_u64(j, "cross_partition_packets", cross);
	ws_json_u64(j, "cross_partition_pfc_frames", cross_pfc);
	/* the busiest partition's share over the mean: 1 is perfect balance */
	ws_json_f64(j, "imbalance", sum_ev ? (double)max_ev * par->n / (double)sum_ev : 1.0);
	/* the window model's speedup over one thread, barriers not counted
	 * (docs/architecture.md): events over the sum of each window's
	 * busiest thread; serial steps counted as one thread's */
	if (par->model_events && par->n <= 64) {
		ws_json_begin(j, "model_speedup");
		uint64_t serial = 0;
		for (uint32_t i = 0; par->p && i < par->n; i++)
			serial += par->p[i]->serial_events;
		for (unsigned m = 0; m < WS_ARRAY_LEN(MODEL_T); m++) {
			char key[16];
			snprintf(key, sizeof key, "threads_%u", MODEL_T[m]);
			ws_json_f64(j, key, (double)(par->model_events + serial) /
				    (double)(par->model_span[m] + serial));
		}
		ws_json_end(j);
	}
	ws_json_begin_array(j, "each");
	for (uint32_t i = 0; par->p && i < par->n; i++) {
		const struct ws_part *pt = par->p[i];
		ws_json_begin(j, NULL);
		ws_json_u64(j, "nodes", pt->nodes);
		ws_json_u64(j, "hosts", pt->hosts);
		ws_json_u64(j, "events", pt->events);
		ws_json_u64(j, "serial_events", pt->serial_events);
		ws_json_u64(j, "windows_busy", pt->windows_busy);
		ws_json_u64(j, "windows_idle", pt->windows_idle);
		ws_json_u64(j, "cross_out_packets", pt->cross_out);
		ws_json_end(j);
	}
	ws_json_end_array(j);
	ws_json_end(j);
}
