/* SPDX-License-Identifier: MIT */
/*
 * The collective engine: see coll.h for the model.  Shaped for large runs:
 * the DAG of one iteration at a time, collectives expanded only when they
 * start (their per-rank counters freed when they end), transfers recycled
 * through a free list, and every step started from the completion of the
 * transfers it waits for (no polling, no per-step events beyond the flows).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../accel/flowrate/idheap.h"
#include "coflow.h"
#include "coll.h"

const char *const coll_allreduce_names[] = { "ring", "tree", "dbtree", NULL };
const char *const coll_ring_names[] = { "rail", "flat", NULL };
const char *const coll_alltoall_names[] = { "pairwise", "direct", NULL };
const char *const coll_model_names[] = { "transfers", "coflow", NULL };

static const char *const kind_names[COLL_KINDS] = {
	"allreduce", "allgather", "reducescatter", "alltoall", "sendrecv"
};
static const char *const algo_names[COLL_ALGOS] = {
	"ring", "tree", "dbtree", "pairwise", "direct"
};

const char *const coll_dim_names[COLL_DIMS] = { "", "TP", "DP", "EP", "PP", "DP_EP" };
const char *const coll_phase_names[COLL_PHASES] = { "", "fwd", "bwd", "ig", "wg", "pp",
						    "opt" };

const char *coll_kind_name(enum coll_kind kind)
{
	return (unsigned)kind < COLL_KINDS ? kind_names[kind] : "?";
}

enum task_kind { T_JOIN, T_COMPUTE, T_COLL, T_FREE };

struct task {
	uint32_t first_edge;
	uint32_t pending;    /* predecessors not done */
	uint32_t npred;
	uint32_t group;      /* T_COLL; T_COMPUTE: its GPUs, or COLL_NONE */
	uint8_t kind;        /* enum task_kind */
	uint8_t ckind;       /* enum coll_kind */
	uint8_t done;
	uint8_t algo;        /* T_COLL: COLL_ALGOS for the configured one */
	uint8_t phase;       /* enum coll_phase */
	uint32_t layer;      /* COLL_NONE: none */
	uint64_t amount;     /* T_COMPUTE: ps; T_COLL: bytes */
	uint64_t rec;        /* T_COLL: its row of collectives.csv */
	ws_time start;
	ws_time est;         /* compact DAG: earliest start with free communication */
};

/* what the compact DAG adds to a task (in a parallel array: the whole DAG,
 * which llm builds, does not carry it) */
struct task_c {
	uint32_t id;          /* its number in the whole DAG */
	uint32_t stage, step; /* the workload's coordinates (coll_mark) */
};

struct edge {
	uint32_t to, next;
};

struct group {
	uint32_t first;      /* into gpu_pool */
	uint32_t n;
	uint32_t label;      /* into label_pool */
	uint32_t next_hash;  /* chain in the group hash */
	uint64_t hash;
	bool intra;          /* every member in one server */
	uint8_t dim;         /* enum coll_dim */
	uint32_t instance;   /* among the groups of its dimension */
};

/* one started collective */
struct run {
	uint32_t task;
	uint32_t group, n;
	uint8_t kind, algo;
	uint32_t chunks, steps, trees;
	uint32_t channels, cpc;  /* chunks = channels x cpc chunks per channel */
	uint32_t *order;     /* channels x n: the rank at each position; NULL: rank = position */
	uint64_t bytes;
	uint64_t remaining;  /* transfers still to complete */
	uint32_t *st;        /* per-algorithm counters (see below) */
	int32_t *tree;       /* tree algorithms: parent, child0, child1 per tree and rank */
	uint64_t record;     /* index into recs */
	ws_time lat;         /* coflow: the latencies on its chain, after its work */
};

/* a transfer in flight; `b` and `c` are algorithm coordinates */
struct xfer {
	uint32_t run;
	uint32_t chunk, from, to; /* ranks in the group */
	uint32_t step;            /* ring/pairwise step, or tree phase */
	uint32_t tree;
	uint32_t src_gpu, dst_gpu;
	uint64_t bytes;
	uint32_t next_free;
	uint32_t cs_at;           /* coflow enumeration: its place in cs while sending */
	uint8_t relay;            /* PXN: intra-server leg done, network leg next */
};

/* an enumerated transfer of a coflow, at the time it ends */
struct cq_ent {
	ws_time t;
	ws_time chain;    /* the latencies on the chain of transfers that ends here */
	uint64_t seq;
	uint32_t x;
};

#define COLL_MEMO_LINKS (1ull << 25) /* about 400 MB of links and uses */

/* A collective's coflow as enumerated, for the next collective of the same
 * group, kind, algorithm and size: its transfers' routes and idle-fabric
 * times are the same for the whole run (one connection, one entropy). */
struct cf_memo {
	uint64_t bytes;
	uint32_t group;
	uint8_t kind, algo, used, none; /* none: nothing crossed the network */
	uint32_t n;                     /* its links */
	uint64_t links;                 /* into m_links and m_use */
	uint64_t sent;                  /* into m_sent: bytes each rank sent */
	double work;
	ws_time lat;
	uint64_t flows, net_bytes, intra, relays;
};

/* an enumerated network transfer sending its bytes */
struct cq_act {
	uint32_t x;
	uint32_t hp;      /* its place in the heap of ends (ch) */
	double left;      /* bits still to send at `at` */
	ws_time at;
	double rate;      /* bps, alone with the collective's others */
	double fin;       /* ps: when its bytes are out at that rate (INFINITY: no rate yet) */
	ws_time lat;      /* its tail once its bytes are out */
	ws_time chain;    /* the latencies on the chain before it */
};

struct rec {
	uint32_t iter, group;
	uint32_t task;
	uint32_t layer;
	uint8_t kind, algo, phase;
	uint64_t bytes;
	ws_time start, end;
	uint32_t flows;
};

struct iter_rec {
	ws_time start, end, bound;
	uint32_t tasks, collectives;
	uint64_t flows, net_bytes;
};

struct coll_engine {
	struct ws_sim *sim;
	struct ws_inst *inst;
	const struct coll_conf *c;
	const struct ws_fabric *fab;
	uint32_t gpus, G, iterations;
	coll_build_fn build;
	void *ctx;

	/* groups, for the whole run */
	struct group *groups;
	uint32_t n_groups, cap_groups;
	uint32_t *gpu_pool;
	uint64_t n_pool, cap_pool;
	char *labels;
	uint64_t n_labels, cap_labels;
	uint32_t *ghash;            /* buckets of group indices */
	uint32_t ghash_size;

	/* the DAG of the current iteration */
	uint32_t iter;
	struct task *tasks;
	uint32_t n_tasks, cap_tasks, tasks_done;
	struct task_c *tc;          /* compact DAG: [cap_tc] */
	uint32_t cap_tc;
	struct edge *edges;
	uint32_t n_edges, cap_edges;
	uint32_t *ready;            /* worklist */
	uint32_t n_ready, cap_ready;
	bool draining;

	/* collectives and transfers in flight */
	struct run *runs;
	uint32_t n_runs, cap_runs;
	uint32_t *free_runs;        /* run slots free, as a stack */
	uint32_t n_free_runs;
	struct xfer *xfers;
	uint32_t n_xfers, cap_xfers, free_xfer;
	uint32_t *flow_xfer;        /* flow id -> transfer */
	uint32_t cap_flow_xfer;

	/* results */
	struct rec *recs;
	uint64_t n_recs, cap_recs;
	struct iter_rec *iters;
	uint32_t iters_done;
	uint64_t flows, net_bytes, intra_xfers, relays;
	uint64_t *gpu_sent;         /* per GPU: bytes sent in collectives */
	struct coll_span *crecs;    /* the compute tasks that ran, in start order */
	uint64_t n_crecs, cap_crecs;
	bool failed;

	/* what the tasks belong to (coll_context, coll_group_dim, coll_layer_name) */
	uint32_t ctx_layer;
	uint8_t ctx_phase;
	uint32_t dim_groups[COLL_DIMS];
	uint32_t *layer_name;       /* [n_layers]: into labels, or COLL_NONE */
	uint32_t n_layers, cap_layers;

	/* the compact DAG: task and edge slots reused, tasks numbered by the
	 * workload (coll.h) */
	coll_done_fn on_done;       /* NULL: the DAG is built whole */
	bool iter_only;             /* no records kept (coll_spec.iterations_only) */
	bool counting, built;
	uint32_t next_id, mark_stage, mark_step;
	uint32_t task_cur, edge_cur; /* where the next free slot is looked for */
	uint32_t live_edges;
	uint64_t live;              /* tasks in the DAG not done */
	ws_time best;               /* the compute-bound time so far */
	uint64_t cnt[3];            /* counting: tasks, collectives, compute tasks */
	uint64_t tot[3];            /* the iteration's, from coll_set_totals */
	uint64_t free_rec;          /* iter_only: records reused (COLL_NONE: none) */
	uint64_t n_colls;           /* collectives started (rows of collectives.csv) */
	uint64_t last_rec;          /* the record new_record made */

	/* collectives = coflow: the model, and the transfers of the run being
	 * enumerated, by the time each would end with no bytes in the way */
	struct cf_net *cf;
	bool collect;
	ws_time cnow;               /* the enumeration's clock */
	ws_time cchain;             /* the latencies on the chain to cnow */
	bool cdirty;                /* the transfers sending changed */
	struct cq_ent *cq;
	uint32_t n_cq, cap_cq;
	uint64_t cq_seq;
	struct cq_act *cs;
	uint32_t n_cs, cap_cs;
	uint32_t *ch;               /* cs by end (fin, then transfer): a heap */
	uint32_t cap_ch;
	/* coflows enumerated, by (group, kind, algorithm, bytes) */
	struct cf_memo *memo;
	uint32_t memo_mask, n_memo;
	uint32_t *m_links;
	double *m_use;
	uint64_t n_ml, cap_ml;
	uint64_t *m_sent;
	uint64_t n_ms, cap_ms;
	uint64_t memo_hits;
	struct ws_err cf_err;       /* zeroed with the engine; the one failure */
};

/* ---- small helpers ---------------------------------------------------- */

static int grow(void **p, uint64_t *cap, uint64_t need, size_t elem,
		struct ws_err *err)
{
	if (need <= *cap)
		return WS_OK;
	uint64_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return ws_err_set(err, WS_ENOMEM, "out of memory (%" PRIu64 " x %zu bytes)",
				  n, elem);
	*p = q;
	*cap = n;
	return WS_OK;
}

/* the same for 32-bit capacities */
static int grow32(void **p, uint32_t *cap, uint64_t need, size_t elem,
		  struct ws_err *err)
{
	if (need > UINT32_MAX / 2)
		return ws_err_set(err, WS_ENOMEM, "more than 2^31 workload records");
	uint64_t c = *cap;
	int rc = grow(p, &c, need, elem, err);
	*cap = (uint32_t)c;
	return rc;
}

static void engine_fail(struct coll_engine *e, struct ws_err *err)
{
	if (e->failed)
		return;
	e->failed = true;
	ws_fail(e->sim, err);
}

static void engine_oom(struct coll_engine *e, const char *what)
{
	struct ws_err err;
	ws_err_set(&err, WS_ENOMEM, "out of memory for %s", what);
	engine_fail(e, &err);
}

static uint32_t server_of(const struct coll_engine *e, uint32_t gpu)
{
	return gpu / e->G;
}

/* ---- engine lifecycle --------------------------------------------------- */

static void on_cf_done(void *arg, uint32_t run);

int coll_engine_new(struct coll_engine **out, const struct coll_spec *spec,
		    struct ws_err *err)
{
	*out = NULL;
	const struct ws_fabric *fab = ws_sim_fabric(spec->inst->sim);
	const struct coll_conf *c = spec->comm;
	uint32_t G = (uint32_t)c->gpus_per_server;
	if (!G)
		G = fab->server_size ? fab->server_size : 8;
	else if (fab->server_size && G != fab->server_size) {
		ws_err_key(err, WS_EINVAL, "gpus_per_server", "gpus_per_server = %u, "
			   "but the topology has servers of %u GPUs (leave it 0 to "
			   "take the topology's)", G, fab->server_size);
		return WS_EINVAL;
	}
	if (spec->gpus > fab->n_hosts)
		return ws_err_set(err, WS_EINVAL, "the workload needs %u GPUs but the "
				  "fabric has %u hosts", spec->gpus, fab->n_hosts);
	if (spec->gpus == 0)
		return ws_err_set(err, WS_EINVAL, "the workload uses no GPU");
	struct coll_engine *e = calloc(1, sizeof *e);
	if (!e)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	e->sim = spec->inst->sim;
	e->inst = spec->inst;
	e->c = c;
	e->fab = fab;
	e->gpus = spec->gpus;
	e->G = G;
	e->iterations = spec->iterations;
	e->build = spec->build;
	e->ctx = spec->ctx;
	e->free_xfer = COLL_NONE;
	e->ctx_layer = COLL_NONE;
	e->on_done = spec->on_done;
	e->iter_only = spec->iterations_only;
	e->free_rec = UINT64_MAX;
	e->ghash_size = 4096;
	e->ghash = malloc(e->ghash_size * sizeof *e->ghash);
	e->iters = calloc(spec->iterations ? spec->iterations : 1, sizeof *e->iters);
	e->gpu_sent = calloc(spec->gpus, sizeof *e->gpu_sent);
	if (!e->ghash || !e->iters || !e->gpu_sent) {
		coll_engine_free(e);
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	}
	memset(e->ghash, 0xff, e->ghash_size * sizeof *e->ghash);
	if (c->model == COLL_MODEL_COFLOW && ws_failures_scheduled(e->sim)) {
		coll_engine_free(e);
		return ws_err_key(err, WS_EINVAL, "collectives", "collectives = coflow keeps "
				  "each connection's path for the whole run and does not follow "
				  "[failures] (%zu events): use collectives = transfers",
				  ws_failures_scheduled(spec->inst->sim));
	}
	if (c->model == COLL_MODEL_COFLOW) {
		int rc = cf_new(&e->cf, e->sim, c->coflow_batch, on_cf_done, e, err);
		if (rc) {
			coll_engine_free(e);
			return rc;
		}
	}
	*out = e;
	return WS_OK;
}

static void free_dag(struct coll_engine *e)
{
	e->n_tasks = e->n_edges = e->tasks_done = e->n_ready = 0;
	e->task_cur = e->edge_cur = e->live_edges = 0;
	e->live = 0;
	e->best = 0;
	e->built = false;
	e->next_id = 0;
}

void coll_engine_free(struct coll_engine *e)
{
	if (!e)
		return;
	for (uint32_t i = 0; i < e->n_runs; i++) {
		free(e->runs[i].st);
		free(e->runs[i].tree);
		free(e->runs[i].order);
	}
	free(e->runs);
	free(e->free_runs);
	free(e->xfers);
	free(e->flow_xfer);
	cf_free(e->cf);
	free(e->cq);
	free(e->cs);
	free(e->ch);
	free(e->memo);
	free(e->m_links);
	free(e->m_use);
	free(e->m_sent);
	free(e->tasks);
	free(e->tc);
	free(e->edges);
	free(e->ready);
	free(e->groups);
	free(e->gpu_pool);
	free(e->labels);
	free(e->ghash);
	free(e->recs);
	free(e->iters);
	free(e->gpu_sent);
	free(e->crecs);
	free(e->layer_name);
	free(e);
}

uint32_t coll_gpus_per_server(const struct coll_engine *e)
{
	return e->G;
}

/* ---- groups ------------------------------------------------------------- */

static uint64_t group_hash(const uint32_t *g, uint32_t n, const char *label)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (uint32_t i = 0; i < n; i++) {
		h ^= g[i];
		h *= 0x100000001b3ull;
	}
	for (const char *s = label; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 29);
}

uint32_t coll_group(struct coll_engine *e, const uint32_t *gpus, uint32_t n,
		    const char *label, struct ws_err *err)
{
	if (n == 0) {
		ws_err_set(err, WS_EINVAL, "an empty GPU group");
		return COLL_NONE;
	}
	uint64_t h = group_hash(gpus, n, label);
	uint32_t b = (uint32_t)(h % e->ghash_size);
	for (uint32_t i = e->ghash[b]; i != COLL_NONE; i = e->groups[i].next_hash) {
		const struct group *g = &e->groups[i];
		if (g->hash == h && g->n == n &&
		    !memcmp(&e->gpu_pool[g->first], gpus, n * sizeof *gpus) &&
		    !strcmp(&e->labels[g->label], label))
			return i;
	}
	uint32_t server = 0;
	bool intra = true;
	for (uint32_t i = 0; i < n; i++) {
		if (gpus[i] >= e->gpus) {
			ws_err_set(err, WS_EINVAL, "group %s: GPU %u does not exist "
				   "(the workload has GPUs 0..%u)", label, gpus[i], e->gpus - 1);
			return COLL_NONE;
		}
		if (i == 0)
			server = server_of(e, gpus[0]);
		else if (server_of(e, gpus[i]) != server)
			intra = false;
	}
	/* no duplicate members: a rank must not talk to itself */
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i > 4096 ? i - 4096 : 0; j < i; j++)
			if (gpus[i] == gpus[j]) {
				ws_err_set(err, WS_EINVAL, "group %s lists GPU %u twice",
					   label, gpus[i]);
				return COLL_NONE;
			}
	size_t ll = strlen(label) + 1;
	if (grow32((void **)&e->groups, &e->cap_groups, e->n_groups + 1ull,
		   sizeof *e->groups, err) ||
	    grow((void **)&e->gpu_pool, &e->cap_pool, e->n_pool + n, sizeof *e->gpu_pool, err) ||
	    grow((void **)&e->labels, &e->cap_labels, e->n_labels + ll, 1, err))
		return COLL_NONE;
	struct group *g = &e->groups[e->n_groups];
	*g = (struct group){ .first = (uint32_t)e->n_pool, .n = n,
			     .label = (uint32_t)e->n_labels, .hash = h,
			     .next_hash = e->ghash[b], .intra = intra };
	memcpy(&e->gpu_pool[e->n_pool], gpus, n * sizeof *gpus);
	e->n_pool += n;
	memcpy(&e->labels[e->n_labels], label, ll);
	e->n_labels += ll;
	e->ghash[b] = e->n_groups;
	return e->n_groups++;
}

/* ---- the DAG ------------------------------------------------------------ */

/* Before the task array of one iteration passes 64 MiB: is there room? */
static int dag_room(struct coll_engine *e, struct ws_err *err)
{
	uint64_t next = 2ull * e->cap_tasks * sizeof *e->tasks;
	if (e->n_tasks < e->cap_tasks || next < (64u << 20))
		return WS_OK;
	char what[160];
	snprintf(what, sizeof what, "iteration %u's DAG of more than %u tasks (the "
		 "workload's layers, micro-batches and parallel groups)", e->iter,
		 e->n_tasks);
	/* the edges take about as much again */
	return ws_mem_check(e->sim, 2 * next, 0, what, err);
}

static uint32_t add_task(struct coll_engine *e, uint8_t kind, struct ws_err *err)
{
	if (e->counting) {
		e->cnt[0]++;
		e->cnt[1] += kind == T_COLL;
		e->cnt[2] += kind == T_COMPUTE;
		return e->next_id++;
	}
	uint32_t slot;
	if (e->on_done && 2 * (e->live + 1) <= e->n_tasks) {
		/* a free slot at or after the cursor, round the ring: tasks made
		 * together sit together, as the run reaches them (at most half
		 * the slots are taken, so one is near) */
		slot = e->task_cur;
		while (e->tasks[slot].kind != T_FREE)
			slot = slot + 1 < e->n_tasks ? slot + 1 : 0;
		e->task_cur = slot + 1 < e->n_tasks ? slot + 1 : 0;
	} else {
		if (dag_room(e, err))
			return COLL_NONE;
		if (grow32((void **)&e->tasks, &e->cap_tasks, e->n_tasks + 1ull,
			   sizeof *e->tasks, err) ||
		    (e->on_done && grow32((void **)&e->tc, &e->cap_tc, e->n_tasks + 1ull,
					  sizeof *e->tc, err)))
			return COLL_NONE;
		slot = e->n_tasks++;
	}
	struct task *t = &e->tasks[slot];
	memset(t, 0, sizeof *t);
	if (e->on_done) {
		e->tc[slot] = (struct task_c){ .id = e->next_id++, .stage = e->mark_stage,
					       .step = e->mark_step };
		e->live++;
	}
	t->kind = kind;
	t->first_edge = COLL_NONE;
	t->group = COLL_NONE;
	t->layer = e->ctx_layer;
	t->phase = e->ctx_phase;
	return slot;
}

/* ---- the compact DAG ---------------------------------------------------------- */

void coll_next_id(struct coll_engine *e, uint32_t id)
{
	e->next_id = id;
}

uint32_t coll_peek_id(const struct coll_engine *e)
{
	return e->next_id;
}

void coll_mark(struct coll_engine *e, uint32_t stage, uint32_t step)
{
	e->mark_stage = stage;
	e->mark_step = step;
}

void coll_task_where(const struct coll_engine *e, uint32_t task, uint32_t *stage,
		     uint32_t *step)
{
	*stage = e->tc[task].stage;
	*step = e->tc[task].step;
}

uint32_t coll_task_id(const struct coll_engine *e, uint32_t task)
{
	return e->on_done ? e->tc[task].id : task;
}

ws_time coll_task_fin(const struct coll_engine *e, uint32_t task)
{
	const struct task *t = &e->tasks[task];
	return t->est + (t->kind == T_COMPUTE ? t->amount : 0);
}

void coll_dep_done(struct coll_engine *e, uint32_t after, ws_time fin)
{
	if (!e->counting && after != COLL_NONE && e->tasks[after].est < fin)
		e->tasks[after].est = fin;
}

void coll_hold(struct coll_engine *e, uint32_t task)
{
	if (!e->counting && task != COLL_NONE)
		e->tasks[task].pending++;
}

void coll_release(struct coll_engine *e, uint32_t task)
{
	/* a dependency was added since the hold: never the last one */
	if (!e->counting && task != COLL_NONE && e->tasks[task].pending > 1)
		e->tasks[task].pending--;
}

void coll_build_done(struct coll_engine *e)
{
	e->built = true;
}

void coll_set_totals(struct coll_engine *e, uint64_t tasks, uint64_t colls,
		     uint64_t comps)
{
	e->tot[0] = tasks;
	e->tot[1] = colls;
	e->tot[2] = comps;
}

void coll_counting(struct coll_engine *e, bool on)
{
	e->counting = on;
	if (on)
		e->cnt[0] = e->cnt[1] = e->cnt[2] = 0;
}

void coll_count(const struct coll_engine *e, uint64_t *tasks, uint64_t *colls,
		uint64_t *comps)
{
	*tasks = e->cnt[0];
	*colls = e->cnt[1];
	*comps = e->cnt[2];
}

void coll_count_add(struct coll_engine *e, enum coll_count kind, uint64_t n)
{
	e->cnt[0] += n;
	e->cnt[1] += kind == COLL_COUNT_COLL ? n : 0;
	e->cnt[2] += kind == COLL_COUNT_COMPUTE ? n : 0;
	e->next_id += (uint32_t)n;
}

void coll_get_context(const struct coll_engine *e, uint32_t *layer, uint8_t *phase)
{
	*layer = e->ctx_layer;
	*phase = e->ctx_phase;
}

size_t coll_task_bytes(void)
{
	return sizeof(struct task) + sizeof(struct task_c) + sizeof(struct edge);
}

uint32_t coll_dag_slots(const struct coll_engine *e)
{
	return e->cap_tasks;
}

/* ---- what tasks belong to ---------------------------------------------------- */

void coll_group_dim(struct coll_engine *e, uint32_t group, enum coll_dim dim)
{
	if (group >= e->n_groups || (unsigned)dim >= COLL_DIMS ||
	    e->groups[group].dim == dim)
		return;
	e->groups[group].dim = (uint8_t)dim;
	e->groups[group].instance = e->dim_groups[dim]++;
}

int coll_layer_name(struct coll_engine *e, uint32_t layer, const char *name,
		    struct ws_err *err)
{
	if (layer >= e->n_layers) {
		if (grow32((void **)&e->layer_name, &e->cap_layers, layer + 1ull,
			   sizeof *e->layer_name, err))
			return WS_ENOMEM;
		for (uint32_t i = e->n_layers; i <= layer; i++)
			e->layer_name[i] = COLL_NONE;
		e->n_layers = layer + 1;
	}
	size_t ll = strlen(name) + 1;
	if (grow((void **)&e->labels, &e->cap_labels, e->n_labels + ll, 1, err))
		return WS_ENOMEM;
	/* the CSVs' separators and JSON's quotes are not name characters here */
	for (size_t i = 0; i < ll; i++) {
		char ch = name[i];
		e->labels[e->n_labels + i] = ch == ',' || ch == '"' || ch == '\\' ||
					     (ch > 0 && ch < ' ') ? '_' : ch;
	}
	e->layer_name[layer] = (uint32_t)e->n_labels;
	e->n_labels += ll;
	return WS_OK;
}

void coll_context(struct coll_engine *e, uint32_t layer, enum coll_phase phase)
{
	e->ctx_layer = layer;
	e->ctx_phase = (unsigned)phase < COLL_PHASES ? (uint8_t)phase : 0;
	if (layer != COLL_NONE && layer >= e->n_layers) {
		struct ws_err err;
		(void)coll_layer_name(e, layer, "", &err); /* unnamed; ENOMEM: no name */
	}
}

void coll_compute_on(struct coll_engine *e, uint32_t task, uint32_t group)
{
	if (!e->counting && task < e->n_tasks && e->tasks[task].kind == T_COMPUTE && group < e->n_groups)
		e->tasks[task].group = group;
}

const uint32_t *coll_group_members(const struct coll_engine *e, uint32_t group,
				   uint32_t *n)
{
	*n = e->groups[group].n;
	return &e->gpu_pool[e->groups[group].first];
}

const char *coll_group_label(const struct coll_engine *e, uint32_t group)
{
	return &e->labels[e->groups[group].label];
}

enum coll_dim coll_group_dim_of(const struct coll_engine *e, uint32_t group)
{
	return (enum coll_dim)e->groups[group].dim;
}

uint32_t coll_group_instance(const struct coll_engine *e, uint32_t group)
{
	return e->groups[group].instance;
}

const char *coll_layer_name_of(const struct coll_engine *e, uint32_t layer)
{
	if (layer >= e->n_layers || e->layer_name[layer] == COLL_NONE)
		return "";
	return &e->labels[e->layer_name[layer]];
}

uint32_t coll_compute(struct coll_engine *e, ws_time dur, struct ws_err *err)
{
	uint32_t t = add_task(e, T_COMPUTE, err);
	if (t != COLL_NONE && !e->counting)
		e->tasks[t].amount = dur;
	return t;
}

uint32_t coll_join(struct coll_engine *e, struct ws_err *err)
{
	return add_task(e, T_JOIN, err);
}

uint32_t coll_collective(struct coll_engine *e, uint32_t group,
			 enum coll_kind kind, uint64_t bytes, struct ws_err *err)
{
	return coll_collective_algo(e, group, kind, bytes, COLL_ALGOS, err);
}

uint32_t coll_collective_algo(struct coll_engine *e, uint32_t group,
			      enum coll_kind kind, uint64_t bytes,
			      enum coll_algo algo, struct ws_err *err)
{
	bool ok = algo == COLL_ALGOS ||
		  (kind == COLL_ALLREDUCE && algo <= COLL_DBTREE) ||
		  (kind == COLL_ALLTOALL && (algo == COLL_PAIRWISE || algo == COLL_DIRECT)) ||
		  ((kind == COLL_ALLGATHER || kind == COLL_REDUCESCATTER) && algo == COLL_RING);
	if (!ok) {
		ws_err_set(err, WS_EINVAL, "no algorithm %u for a collective of kind %s",
			   (unsigned)algo, coll_kind_name(kind));
		return COLL_NONE;
	}
	if (group >= e->n_groups || (unsigned)kind >= COLL_KINDS) {
		ws_err_set(err, WS_EINVAL, "a collective on an unknown group or of an unknown kind");
		return COLL_NONE;
	}
	if (kind == COLL_SENDRECV && e->groups[group].n != 2) {
		ws_err_set(err, WS_EINVAL, "a send-recv needs a group of two GPUs, "
			   "group %s has %u", &e->labels[e->groups[group].label],
			   e->groups[group].n);
		return COLL_NONE;
	}
	uint32_t t = add_task(e, T_COLL, err);
	if (t != COLL_NONE && !e->counting) {
		e->tasks[t].group = group;
		e->tasks[t].ckind = (uint8_t)kind;
		e->tasks[t].amount = bytes;
		e->tasks[t].algo = (uint8_t)algo;
	}
	return t;
}

int coll_dep(struct coll_engine *e, uint32_t before, uint32_t after,
	     struct ws_err *err)
{
	if (before == COLL_NONE || after == COLL_NONE || e->counting)
		return WS_OK;
	if (before >= e->n_tasks || after >= e->n_tasks || before == after)
		return ws_err_set(err, WS_EINVAL, "a dependency between tasks %u and %u "
				  "of a DAG of %u", before, after, e->n_tasks);
	if (e->tasks[before].done || e->tasks[before].kind == T_FREE ||
	    e->tasks[after].kind == T_FREE)
		return ws_err_set(err, WS_EINVAL, "compact DAG: task %u waits for task %u, "
				  "already done (the workload added it too late)",
				  coll_task_id(e, after), coll_task_id(e, before));
	uint32_t k;
	if (2 * (e->live_edges + 1) <= e->n_edges) {
		/* as add_task: the next free slot round the ring */
		k = e->edge_cur;
		while (e->edges[k].to != COLL_NONE)
			k = k + 1 < e->n_edges ? k + 1 : 0;
		e->edge_cur = k + 1 < e->n_edges ? k + 1 : 0;
	} else {
		if (grow32((void **)&e->edges, &e->cap_edges, e->n_edges + 1ull,
			   sizeof *e->edges, err))
			return WS_ENOMEM;
		k = e->n_edges++;
	}
	e->live_edges++;
	e->edges[k] = (struct edge){ .to = after, .next = e->tasks[before].first_edge };
	e->tasks[before].first_edge = k;
	e->tasks[after].pending++;
	e->tasks[after].npred++;
	return WS_OK;
}

static void push_ready(struct coll_engine *e, uint32_t t)
{
	struct ws_err err;
	if (grow32((void **)&e->ready, &e->cap_ready, e->n_ready + 1ull,
		   sizeof *e->ready, &err)) {
		engine_fail(e, &err);
		return;
	}
	e->ready[e->n_ready++] = t;
}

static void drain(struct coll_engine *e);
static void start_run(struct coll_engine *e, uint32_t t);
static uint64_t coll_id(uint32_t iter, uint32_t task);

/* Compact DAG: the task's successors released, its slot and edges are
 * reused; the compute-bound time follows the tasks as they complete. */
static void task_done_compact(struct coll_engine *e, uint32_t id)
{
	e->on_done(e->ctx, e, id); /* may add tasks: pointers move */
	struct task *t = &e->tasks[id];
	t->done = 1;
	e->tasks_done++;
	e->live--;
	ws_time fin = coll_task_fin(e, id);
	if (fin > e->best)
		e->best = fin;
	for (uint32_t k = t->first_edge; k != COLL_NONE; k = e->edges[k].next) {
		uint32_t to = e->edges[k].to;
		struct task *s = &e->tasks[to];
		if (s->est < fin)
			s->est = fin;
		if (--s->pending == 0)
			push_ready(e, to);
		e->edges[k].to = COLL_NONE; /* the slot is free */
		e->live_edges--;
	}
	t->kind = T_FREE;
	t->first_edge = COLL_NONE;
}

static void task_done(struct coll_engine *e, uint32_t id)
{
	if (e->on_done) {
		task_done_compact(e, id);
		return;
	}
	struct task *t = &e->tasks[id];
	t->done = 1;
	e->tasks_done++;
	for (uint32_t k = t->first_edge; k != COLL_NONE; k = e->edges[k].next) {
		struct task *s = &e->tasks[e->edges[k].to];
		if (--s->pending == 0)
			push_ready(e, e->edges[k].to);
	}
}

static void on_task_timer(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)sim;
	struct coll_engine *e = obj;
	task_done(e, (uint32_t)arg);
	drain(e);
}

/* A collective's record at its end; without records kept, the slot is
 * reused. */
static void rec_end(struct coll_engine *e, uint64_t record)
{
	e->recs[record].end = ws_now(e->sim);
	if (e->iter_only) {
		e->recs[record].start = e->free_rec;
		e->free_rec = record;
	}
}

/* the end of a collective run as one NVLink-class delay */
static void on_intra_coll(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)sim;
	struct coll_engine *e = obj;
	rec_end(e, e->tasks[arg].rec);
	task_done(e, (uint32_t)arg);
	drain(e);
}

/* ---- iterations ---------------------------------------------------------- */

/* The DAG's length with every collective free: the compute-bound time. */
static ws_time compute_bound(struct coll_engine *e)
{
	uint32_t n = e->n_tasks;
	ws_time *est = calloc(n ? n : 1, sizeof *est);
	uint32_t *left = malloc((n ? n : 1) * sizeof *left);
	uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
	ws_time best = 0;
	if (!est || !left || !queue)
		goto out;
	uint32_t qh = 0, qt = 0;
	for (uint32_t i = 0; i < n; i++) {
		left[i] = e->tasks[i].npred;
		if (!left[i])
			queue[qt++] = i;
	}
	while (qh < qt) {
		uint32_t i = queue[qh++];
		const struct task *t = &e->tasks[i];
		ws_time fin = est[i] + (t->kind == T_COMPUTE ? t->amount : 0);
		if (fin > best)
			best = fin;
		for (uint32_t k = t->first_edge; k != COLL_NONE; k = e->edges[k].next) {
			uint32_t s = e->edges[k].to;
			if (est[s] < fin)
				est[s] = fin;
			if (--left[s] == 0)
				queue[qt++] = s;
		}
	}
out:
	free(est);
	free(left);
	free(queue);
	return best;
}

/* Once the first iteration's DAG is known: the records and flows of every
 * iteration (one flow per collective at the least) fit in memory? */
static int run_room(struct coll_engine *e, struct ws_err *err)
{
	uint64_t colls = 0, comps = 0;
	if (e->on_done) {
		colls = e->tot[1];
		comps = e->tot[2];
	} else {
		for (uint32_t i = 0; i < e->n_tasks; i++) {
			colls += e->tasks[i].kind == T_COLL;
			comps += e->tasks[i].kind == T_COMPUTE;
		}
	}
	if (e->iter_only)
		return WS_OK; /* no record kept */
	uint64_t n = (uint64_t)e->iterations * colls;
	uint64_t nc = (uint64_t)e->iterations * comps;
	char what[160];
	snprintf(what, sizeof what, "%u iterations ([workload] iterations) of %" PRIu64
		 " collectives and %" PRIu64 " compute tasks each", e->iterations, colls,
		 comps);
	return ws_mem_check(e->sim, n * sizeof(struct rec) + nc * sizeof(struct coll_span),
			    n, what, err);
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Compact DAG: the tasks ready at the start, in the order of their ids as
 * the whole DAG pushes them. */
static int push_first_compact(struct coll_engine *e, struct ws_err *err)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < e->n_tasks; i++)
		if (e->tasks[i].kind != T_FREE && !e->tasks[i].pending)
			n++;
	uint64_t *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	n = 0;
	for (uint32_t i = 0; i < e->n_tasks; i++)
		if (e->tasks[i].kind != T_FREE && !e->tasks[i].pending)
			v[n++] = (uint64_t)e->tc[i].id << 32 | i;
	qsort(v, n, sizeof *v, cmp_key);
	for (uint32_t i = 0; i < n; i++)
		push_ready(e, (uint32_t)v[i]);
	free(v);
	return WS_OK;
}

static int begin_iteration(struct coll_engine *e, struct ws_err *err)
{
	free_dag(e);
	e->iters[e->iter].start = ws_now(e->sim);
	int rc = e->build(e->ctx, e, e->iter, err);
	if (rc)
		return rc;
	if (e->n_tasks == 0)
		return ws_err_set(err, WS_EINVAL, "iteration %u has no task", e->iter);
	if (e->on_done)
		rc = push_first_compact(e, err);
	else
		for (uint32_t i = 0; i < e->n_tasks; i++)
			if (!e->tasks[i].pending)
				push_ready(e, i);
	if (rc)
		return rc;
	if (!e->n_ready)
		return ws_err_set(err, WS_EINVAL, "the DAG of iteration %u has a cycle "
				  "(no task is ready to start)", e->iter);
	if (e->iter == 0 && (rc = run_room(e, err)))
		return rc;
	drain(e);
	return WS_OK;
}

static void end_iteration(struct coll_engine *e)
{
	struct iter_rec *r = &e->iters[e->iter];
	r->end = ws_now(e->sim);
	r->bound = e->on_done ? e->best : compute_bound(e);
	r->tasks = e->on_done ? (uint32_t)e->tot[0] : e->n_tasks;
	e->iters_done++;
	e->iter++;
	if (e->iter < e->iterations) {
		struct ws_err err;
		ws_err_clear(&err);
		if (begin_iteration(e, &err))
			engine_fail(e, &err);
	}
}

int coll_engine_start(struct coll_engine *e, struct ws_err *err)
{
	if (!e->iterations)
		return WS_OK;
	return begin_iteration(e, err);
}

/* A compute task as it starts: its span (it ends amount later). */
static void record_compute(struct coll_engine *e, uint32_t id)
{
	if (e->iter_only)
		return;
	struct ws_err err;
	if (grow((void **)&e->crecs, &e->cap_crecs, e->n_crecs + 1, sizeof *e->crecs,
		 &err)) {
		engine_fail(e, &err);
		return;
	}
	const struct task *t = &e->tasks[id];
	e->crecs[e->n_crecs++] = (struct coll_span){
		.id = coll_id(e->iter, coll_task_id(e, id)), .start = t->start, .end = t->start + t->amount,
		.iter = e->iter, .group = t->group, .layer = t->layer,
		.kind = COLL_SPAN_COMPUTE, .phase = t->phase };
}

static void drain(struct coll_engine *e)
{
	if (e->draining)
		return;
	e->draining = true;
	while (e->n_ready && !e->failed) {
		uint32_t id = e->ready[--e->n_ready];
		struct task *t = &e->tasks[id];
		t->start = ws_now(e->sim);
		switch (t->kind) {
		case T_JOIN:
			task_done(e, id);
			break;
		case T_COMPUTE:
			if (t->amount == 0) {
				task_done(e, id);
			} else {
				record_compute(e, id);
				ws_schedule(e->sim, t->start + t->amount, on_task_timer, e, id);
			}
			break;
		case T_COLL:
			start_run(e, id);
			break;
		}
	}
	e->draining = false;
	if (e->failed)
		return;
	if (!e->on_done ? e->n_tasks && e->tasks_done == e->n_tasks :
	    e->built && !e->live)
		end_iteration(e);
}

/* ---- transfers ------------------------------------------------------------ */

static void xfer_done(struct coll_engine *e, uint32_t x);

static void on_flow_done(struct ws_sim *sim, uint32_t flow, void *arg)
{
	(void)sim;
	struct coll_engine *e = arg;
	if (flow >= e->cap_flow_xfer || e->flow_xfer[flow] == COLL_NONE)
		return;
	uint32_t x = e->flow_xfer[flow];
	e->flow_xfer[flow] = COLL_NONE;
	xfer_done(e, x);
	drain(e);
}

static void on_xfer_timer(struct ws_sim *sim, void *obj, uint64_t arg);

/*
 * A collective's id, stable whatever the timing: iteration x 2^24 + its
 * task; and a flow's tag: the id x 2^24 + the transfer's place in the
 * algorithm (chunk, rank, step), so two runs of one scenario can be
 * matched flow by flow even when their flows start in another order.
 */
static uint64_t coll_id(uint32_t iter, uint32_t task)
{
	return ((uint64_t)iter << 24) | (task & 0xffffffu);
}

static uint64_t xfer_tag(const struct coll_engine *e, const struct xfer *xf)
{
	const struct run *r = &e->runs[xf->run];
	uint64_t ord;
	switch (r->algo) {
	case COLL_RING:
	case COLL_PAIRWISE:
		ord = ((uint64_t)xf->chunk * r->n + xf->from) * r->steps + xf->step;
		break;
	case COLL_TREE:
	case COLL_DBTREE:
		ord = (((uint64_t)xf->tree * r->chunks + xf->chunk) * r->n + xf->from) * 2 +
		      xf->step;
		break;
	default:
		ord = ((uint64_t)xf->chunk * (r->n + 1) + xf->from) * (r->n + 1) + xf->to;
		break;
	}
	if (ord > 0xffffffu)
		ord = 0xffffffu; /* beyond 2^24 transfers tags repeat */
	return (coll_id(e->iter, coll_task_id(e, r->task)) << 24) | ord;
}

/* A transfer between servers, in the counts (flows of iterations.csv and
 * collectives.csv). */
static void count_network(struct coll_engine *e, const struct xfer *xf)
{
	e->flows++;
	e->net_bytes += xf->bytes;
	e->iters[e->iter].flows++;
	e->iters[e->iter].net_bytes += xf->bytes;
	e->recs[e->runs[xf->run].record].flows++;
}

/* The heap of the transfers sending by end: cs[ch[0]] ends first. */
static bool ch_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct coll_engine *e = ctx;
	const struct cq_act *p = &e->cs[a], *q = &e->cs[b];
	return p->fin < q->fin || (p->fin == q->fin && p->x < q->x);
}

static void ch_place(void *ctx, uint32_t a, uint32_t i)
{
	struct coll_engine *e = ctx;
	e->cs[a].hp = i;
}

static void collect_xfer(struct coll_engine *e, uint32_t x);

/* Send the network leg of transfer x from GPU `from`. */
static void xfer_flow(struct coll_engine *e, uint32_t x, uint32_t from)
{
	struct xfer *xf = &e->xfers[x];
	struct ws_flow_spec spec = { WS_INIT_SIZE(struct ws_flow_spec),
		.src = e->fab->hosts[from], .dst = e->fab->hosts[xf->dst_gpu],
		.bytes = xf->bytes, .start = ws_now(e->sim),
		.prio = (uint8_t)e->c->prio, .dport = 4791,
		.tag = xfer_tag(e, xf),
		.on_done = on_flow_done, .arg = e,
	};
	uint32_t id;
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_flow_create(e->sim, &spec, &id, &err)) {
		engine_fail(e, &err);
		return;
	}
	if (id >= e->cap_flow_xfer) {
		uint32_t old = e->cap_flow_xfer;
		if (grow32((void **)&e->flow_xfer, &e->cap_flow_xfer, id + 1ull,
			   sizeof *e->flow_xfer, &err)) {
			engine_fail(e, &err);
			return;
		}
		memset(&e->flow_xfer[old], 0xff,
		       (e->cap_flow_xfer - old) * sizeof *e->flow_xfer);
	}
	e->flow_xfer[id] = x;
	count_network(e, xf);
}

static ws_time intra_time(const struct coll_engine *e, uint64_t bytes)
{
	return e->c->intra_latency + ws_tx_time(bytes, e->c->intra_bw);
}

static void start_xfer(struct coll_engine *e, uint32_t run, uint32_t chunk,
		       uint32_t from, uint32_t to, uint32_t step, uint32_t tree,
		       uint64_t bytes)
{
	struct ws_err err;
	uint32_t x = e->free_xfer;
	if (x != COLL_NONE) {
		e->free_xfer = e->xfers[x].next_free;
	} else {
		if (grow32((void **)&e->xfers, &e->cap_xfers, e->n_xfers + 1ull,
			   sizeof *e->xfers, &err)) {
			engine_fail(e, &err);
			return;
		}
		x = e->n_xfers++;
	}
	const struct run *r = &e->runs[run];
	const uint32_t *g = &e->gpu_pool[e->groups[r->group].first];
	/* from and to are positions in the chunk's channel */
	const uint32_t *o = r->order ? &r->order[(uint64_t)(chunk / r->cpc) * r->n] : NULL;
	struct xfer *xf = &e->xfers[x];
	*xf = (struct xfer){ .run = run, .chunk = chunk, .from = from, .to = to,
			     .step = step, .tree = tree, .src_gpu = g[o ? o[from] : from],
			     .dst_gpu = g[o ? o[to] : to], .bytes = bytes ? bytes : 1,
			     .next_free = COLL_NONE };
	uint32_t s = xf->src_gpu, d = xf->dst_gpu;
	e->gpu_sent[s] += xf->bytes;
	if (e->collect) {
		collect_xfer(e, x);
		return;
	}
	if (server_of(e, s) == server_of(e, d)) {
		e->intra_xfers++;
		ws_schedule(e->sim, ws_now(e->sim) + intra_time(e, xf->bytes),
			    on_xfer_timer, e, x);
		return;
	}
	if (e->c->pxn && s % e->G != d % e->G) {
		uint32_t relay = server_of(e, s) * e->G + d % e->G;
		if (relay < e->fab->n_hosts) {
			/* first the NVLink hop to the GPU on the destination's rail */
			xf->relay = 1;
			e->relays++;
			ws_schedule(e->sim, ws_now(e->sim) + intra_time(e, xf->bytes),
				    on_xfer_timer, e, x);
			return;
		}
	}
	xfer_flow(e, x, s);
}

static void on_xfer_timer(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)sim;
	struct coll_engine *e = obj;
	uint32_t x = (uint32_t)arg;
	struct xfer *xf = &e->xfers[x];
	if (xf->relay) {
		xf->relay = 0;
		xfer_flow(e, x, server_of(e, xf->src_gpu) * e->G + xf->dst_gpu % e->G);
		return;
	}
	xfer_done(e, x);
	drain(e);
}

/* ---- collectives ---------------------------------------------------------- */

static uint64_t chunk_bytes(const struct run *r, uint32_t c)
{
	uint64_t base = r->bytes / r->chunks, rem = r->bytes % r->chunks;
	return base + (c < rem);
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/*
 * Ring and pairwise: st[0..C*n) completed sends of (chunk, rank),
 * st[C*n..2C*n) completed receives, st[2C*n..3C*n) a send in flight.
 */
static uint32_t *ring_sent(struct run *r, uint32_t c, uint32_t k)
{
	return &r->st[(uint64_t)c * r->n + k];
}
static uint32_t *ring_recv(struct run *r, uint32_t c, uint32_t k)
{
	return &r->st[(uint64_t)(r->chunks + c) * r->n + k];
}
static uint32_t *ring_busy(struct run *r, uint32_t c, uint32_t k)
{
	return &r->st[(uint64_t)(2 * r->chunks + c) * r->n + k];
}

static uint32_t ring_peer(const struct run *r, uint32_t k, uint32_t step)
{
	if (r->algo == COLL_PAIRWISE)
		return (uint32_t)((k + step + 1) % r->n);
	return (k + 1) % r->n;
}

static void ring_try(struct coll_engine *e, uint32_t run, uint32_t c, uint32_t k)
{
	struct run *r = &e->runs[run];
	if (c >= r->chunks)
		return;
	uint32_t sent = *ring_sent(r, c, k);
	if (*ring_busy(r, c, k) || sent >= r->steps || *ring_recv(r, c, k) < sent)
		return;
	if (c % r->cpc && *ring_sent(r, c - 1, k) <= sent)
		return; /* a chunk follows the one before it in its channel */
	*ring_busy(r, c, k) = 1;
	uint64_t b = ceil_div(chunk_bytes(r, c), r->n);
	start_xfer(e, run, c, k, ring_peer(r, k, sent), sent, 0, b);
}

/*
 * Trees: for tree t, chunk c, rank k, four counters at
 * st[((t*C + c)*n + k)*4 + i]: 0 children reduced in, 1 sent up (0 no,
 * 1 in flight, 2 done), 2 received from the parent (or reduced, at the
 * root), 3 children sent down to.  tree[(t*n + k)*3 + j]: parent, children.
 */
static uint32_t *tree_st(struct run *r, uint32_t t, uint32_t c, uint32_t k)
{
	return &r->st[(((uint64_t)t * r->chunks + c) * r->n + k) * 4];
}
static int32_t *tree_node(struct run *r, uint32_t t, uint32_t k)
{
	return &r->tree[((uint64_t)t * r->n + k) * 3];
}
static uint32_t tree_children(struct run *r, uint32_t t, uint32_t k)
{
	const int32_t *nd = tree_node(r, t, k);
	return (nd[1] >= 0) + (nd[2] >= 0);
}

/* In-order binary tree over positions [lo, hi) under `parent`. */
static void tree_build(int32_t *pos_parent, int32_t lo, int32_t hi, int32_t parent,
		       int32_t *root)
{
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		pos_parent[mid] = parent;
		if (parent < 0)
			*root = mid;
		tree_build(pos_parent, lo, mid, mid, root);
		lo = mid + 1;
		parent = mid;
	}
}

static uint64_t tree_bytes(const struct run *r, uint32_t c)
{
	return ceil_div(chunk_bytes(r, c), r->trees);
}

static void tree_try(struct coll_engine *e, uint32_t run, uint32_t t, uint32_t c,
		     uint32_t k)
{
	struct run *r = &e->runs[run];
	if (c >= r->chunks)
		return;
	uint32_t *s = tree_st(r, t, c, k);
	const int32_t *nd = tree_node(r, t, k);
	uint32_t nch = tree_children(r, t, k);
	if (nd[0] < 0) {
		if (s[0] == nch && !s[2])
			s[2] = 1; /* the root holds the reduced chunk */
	} else if (s[0] == nch && s[1] == 0 &&
		   (c % r->cpc == 0 || tree_st(r, t, c - 1, k)[1] == 2)) {
		s[1] = 1;
		start_xfer(e, run, c, k, (uint32_t)nd[0], 0, t, tree_bytes(r, c));
	}
	if (s[2] == 1 && nch && (c % r->cpc == 0 || tree_st(r, t, c - 1, k)[3] == nch)) {
		s[2] = 2; /* broadcasting */
		for (int j = 1; j <= 2; j++)
			if (nd[j] >= 0)
				start_xfer(e, run, c, k, (uint32_t)nd[j], 1, t,
					   tree_bytes(r, c));
	}
}

static void direct_start(struct coll_engine *e, uint32_t run, uint32_t c)
{
	struct run *r = &e->runs[run];
	uint64_t b = ceil_div(chunk_bytes(r, c), r->n);
	for (uint32_t k = 0; k < r->n; k++)
		for (uint32_t j = 1; j < r->n; j++)
			start_xfer(e, run, c, k, (k + j) % r->n, 0, 0, b);
}

static void run_finish(struct coll_engine *e, uint32_t run)
{
	struct run *r = &e->runs[run];
	rec_end(e, r->record);
	free(r->st);
	free(r->tree);
	free(r->order);
	r->st = NULL;
	r->tree = NULL;
	r->order = NULL;
	uint32_t task = r->task;
	r->task = COLL_NONE; /* the slot is free */
	e->free_runs[e->n_free_runs++] = run;
	task_done(e, task);
}

static void xfer_done(struct coll_engine *e, uint32_t x)
{
	struct xfer xf = e->xfers[x];
	e->xfers[x].next_free = e->free_xfer;
	e->free_xfer = x;
	struct run *r = &e->runs[xf.run];
	switch (r->algo) {
	case COLL_RING:
	case COLL_PAIRWISE:
		(*ring_sent(r, xf.chunk, xf.from))++;
		*ring_busy(r, xf.chunk, xf.from) = 0;
		(*ring_recv(r, xf.chunk, xf.to))++;
		break;
	case COLL_TREE:
	case COLL_DBTREE:
		if (xf.step == 0) { /* reduction to the parent */
			tree_st(r, xf.tree, xf.chunk, xf.from)[1] = 2;
			tree_st(r, xf.tree, xf.chunk, xf.to)[0]++;
		} else {
			tree_st(r, xf.tree, xf.chunk, xf.from)[3]++;
			tree_st(r, xf.tree, xf.chunk, xf.to)[2] = 1;
		}
		break;
	case COLL_DIRECT:
		break;
	}
	if (--r->remaining == 0) {
		if (!e->collect) /* a coflow ends when its bytes are through */
			run_finish(e, xf.run);
		return;
	}
	switch (r->algo) {
	case COLL_RING:
	case COLL_PAIRWISE:
		ring_try(e, xf.run, xf.chunk, xf.from);
		ring_try(e, xf.run, xf.chunk, xf.to);
		ring_try(e, xf.run, xf.chunk + 1, xf.from);
		break;
	case COLL_TREE:
	case COLL_DBTREE:
		tree_try(e, xf.run, xf.tree, xf.chunk, xf.from);
		tree_try(e, xf.run, xf.tree, xf.chunk, xf.to);
		tree_try(e, xf.run, xf.tree, xf.chunk + 1, xf.from);
		break;
	case COLL_DIRECT:
		/* a pair's next chunk follows its previous one */
		if (xf.chunk + 1 < r->chunks) {
			uint64_t b = ceil_div(chunk_bytes(r, xf.chunk + 1), r->n);
			start_xfer(e, xf.run, xf.chunk + 1, xf.from, xf.to, 0, 0, b);
		}
		break;
	}
}

static uint8_t algo_for(const struct coll_engine *e, uint8_t kind)
{
	switch (kind) {
	case COLL_ALLREDUCE:
		return (uint8_t)(e->c->allreduce_algo == 1 ? COLL_TREE :
				 e->c->allreduce_algo == 2 ? COLL_DBTREE : COLL_RING);
	case COLL_ALLTOALL:
		return (uint8_t)(e->c->alltoall_algo == 1 ? COLL_DIRECT : COLL_PAIRWISE);
	default:
		return COLL_RING;
	}
}

static double bus_factor(uint8_t kind, uint32_t n)
{
	if (kind == COLL_ALLREDUCE)
		return 2.0 * (n - 1) / n;
	if (kind == COLL_SENDRECV)
		return 1.0;
	return (double)(n - 1) / n;
}

static int new_record(struct coll_engine *e, uint32_t task, uint8_t algo,
		      struct ws_err *err)
{
	uint64_t slot = e->n_recs;
	if (e->iter_only && e->free_rec != UINT64_MAX) {
		slot = e->free_rec;
		e->free_rec = e->recs[slot].start;
	} else if (grow((void **)&e->recs, &e->cap_recs,
			e->n_recs + 1, sizeof *e->recs, err)) {
		return WS_ENOMEM;
	} else {
		e->n_recs++;
	}
	e->last_rec = slot;
	e->n_colls++;
	const struct task *t = &e->tasks[task];
	e->recs[slot] = (struct rec){ .iter = e->iter, .group = t->group,
				      .task = coll_task_id(e, task),
					   .layer = t->layer, .phase = t->phase,
					   .kind = t->ckind, .algo = algo,
					   .bytes = t->amount, .start = ws_now(e->sim),
					   .end = WS_TIME_NEVER };
	e->iters[e->iter].collectives++;
	return WS_OK;
}

/* A collective inside one server: one calibrated NVLink-class delay for the
 * whole collective, recorded under algorithm "nvlink". */
static void start_intra(struct coll_engine *e, uint32_t id, uint64_t record)
{
	const struct task *t = &e->tasks[id];
	const struct group *g = &e->groups[t->group];
	double rate = (double)e->c->intra_bw * e->c->intra_eff[t->ckind];
	double bytes = bus_factor(t->ckind, g->n) * (double)t->amount;
	ws_time d = e->c->intra_alpha[t->ckind] +
		    ws_tx_time((uint64_t)(bytes + 0.5), (uint64_t)(rate > 1 ? rate : 1));
	e->recs[record].algo = COLL_ALGOS; /* "nvlink" */
	e->tasks[id].rec = record;
	ws_schedule(e->sim, ws_now(e->sim) + d, on_intra_coll, e, id);
}

/* A free run slot in *run (their number stays at the collectives in
 * flight). */
static int take_run_slot(struct coll_engine *e, uint32_t *run, struct ws_err *err)
{
	if (e->n_free_runs) {
		*run = e->free_runs[--e->n_free_runs];
		return 0;
	}
	/* free_runs can hold every slot: one push per run_finish */
	uint32_t cap = e->cap_runs;
	if (grow32((void **)&e->runs, &e->cap_runs, e->n_runs + 1ull, sizeof *e->runs, err) ||
	    grow32((void **)&e->free_runs, &cap, e->cap_runs, sizeof *e->free_runs, err))
		return -1;
	*run = e->n_runs++;
	return 0;
}

/* The steps and transfers a run of `chunks` chunks takes with its
 * algorithm; returns how many per-chunk counters it needs. */
static uint64_t run_plan_steps(struct run *r, uint8_t ckind, uint64_t chunks)
{
	uint32_t n = r->n;
	uint64_t cells = 0;
	switch (r->algo) {
	case COLL_RING:
		r->steps = ckind == COLL_ALLREDUCE ? 2 * (n - 1) : n - 1;
		r->remaining = chunks * n * r->steps;
		cells = 3 * chunks * n;
		break;
	case COLL_PAIRWISE:
		r->steps = n - 1;
		r->remaining = chunks * n * r->steps;
		cells = 3 * chunks * n;
		break;
	case COLL_TREE:
	case COLL_DBTREE:
		r->trees = r->algo == COLL_DBTREE && n > 2 ? 2 : 1;
		r->remaining = (uint64_t)r->trees * chunks * 2 * (n - 1);
		cells = 4ull * r->trees * chunks * n;
		break;
	case COLL_DIRECT:
		if (ckind == COLL_SENDRECV) {
			/* one transfer of all the bytes, from rank 0 to rank 1 */
			r->n = 1; /* chunk_bytes / n = the chunk */
			r->remaining = chunks;
		} else {
			r->remaining = chunks * n * (n - 1);
		}
		break;
	}
	return cells;
}

/* Tree tr of a run from the parent of each position pp[]: the rank of
 * position p is p itself in tree 0, shifted or mirrored in tree 1. */
static void run_place_tree(struct run *r, uint32_t tr, const int32_t *pp)
{
	uint32_t n = r->n;
	for (uint32_t k = 0; k < n; k++) {
		int32_t *nd = tree_node(r, tr, k);
		nd[0] = nd[1] = nd[2] = -1;
	}
	for (uint32_t p = 0; p < n; p++) {
		uint32_t rk = tr == 0 ? p : (n % 2 == 0 ? (p + 1) % n : n - 1 - p);
		if (pp[p] < 0)
			continue;
		uint32_t pr = tr == 0 ? (uint32_t)pp[p] :
			      (n % 2 == 0 ? ((uint32_t)pp[p] + 1) % n : n - 1 - (uint32_t)pp[p]);
		int32_t *nd = tree_node(r, tr, rk);
		nd[0] = (int32_t)pr;
		int32_t *pn = tree_node(r, tr, pr);
		pn[pn[1] < 0 ? 1 : 2] = (int32_t)rk;
	}
}

/* The trees of a tree or double-tree run.  -1: out of memory (reported). */
static int run_build_trees(struct coll_engine *e, struct run *r)
{
	uint32_t n = r->n;
	r->tree = malloc((uint64_t)r->trees * n * 3 * sizeof *r->tree);
	int32_t *pp = malloc(n * sizeof *pp);
	if (!r->tree || !pp) {
		free(pp);
		engine_oom(e, "a collective's trees");
		return -1;
	}
	int32_t root = 0;
	for (uint32_t i = 0; i < n; i++)
		pp[i] = -1;
	tree_build(pp, 0, (int32_t)n, -1, &root);
	for (uint32_t tr = 0; tr < r->trees; tr++)
		run_place_tree(r, tr, pp);
	free(pp);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/*
 * The members of group g sorted by GPU id (so by server, then rail) in
 * key[] (gpu << 32 | rank); the number m of members each server holds, or
 * 0 when servers hold different numbers.
 */
static uint32_t group_by_server(const struct coll_engine *e, const struct group *g,
				uint64_t *key)
{
	const uint32_t *gpu = &e->gpu_pool[g->first];
	for (uint32_t i = 0; i < g->n; i++)
		key[i] = (uint64_t)gpu[i] << 32 | i;
	qsort(key, g->n, sizeof *key, cmp_u64);
	uint32_t m = 1;
	while (m < g->n && server_of(e, (uint32_t)(key[m] >> 32)) ==
			   server_of(e, (uint32_t)(key[0] >> 32)))
		m++;
	if (g->n % m)
		return 0;
	for (uint32_t i = 0; i < g->n; i++) {
		uint32_t sv = server_of(e, (uint32_t)(key[i] >> 32));
		uint32_t head = server_of(e, (uint32_t)(key[i - i % m] >> 32));
		if (sv != head || (i % m == 0 && i && sv == server_of(e, (uint32_t)(key[i - 1] >> 32))))
			return 0;
	}
	return m;
}

/*
 * The channels of a collective over group gi with algorithm algo (coll.h,
 * "Channels"): their number, and in *order the rank at each position of
 * each channel, or NULL for one channel in the group's order.  0: out of
 * memory (reported).
 */
static uint32_t channel_orders(struct coll_engine *e, uint32_t gi, uint8_t algo,
			       uint32_t **order)
{
	*order = NULL;
	const struct group *g = &e->groups[gi];
	if (e->c->ring != COLL_RING_RAIL || g->intra ||
	    (algo != COLL_RING && algo != COLL_TREE && algo != COLL_DBTREE))
		return 1;
	uint32_t n = g->n;
	uint64_t *key = malloc(n * sizeof *key);
	if (!key) {
		engine_oom(e, "a collective's channels");
		return 0;
	}
	uint32_t m = group_by_server(e, g, key);
	if (m < 2) {
		free(key);
		return 1;
	}
	uint32_t C = (uint32_t)(e->c->channels ? e->c->channels : m);
	*order = malloc((uint64_t)C * n * sizeof **order);
	if (!*order) {
		free(key);
		engine_oom(e, "a collective's channels");
		return 0;
	}
	for (uint32_t c = 0; c < C; c++) {
		uint32_t o = (uint32_t)((uint64_t)c * m / C % m);
		for (uint32_t i = 0; i < n / m; i++)
			for (uint32_t j = 0; j < m; j++) {
				/* even servers o, o+1, ...; odd ones o-1, o-2, ... */
				uint32_t slot = i % 2 == 0 ? (o + j) % m : (o + 2 * m - 1 - j) % m;
				(*order)[(uint64_t)c * n + i * m + j] =
					(uint32_t)key[i * m + slot];
			}
	}
	free(key);
	return C;
}

/* Run slot `run` set up for task id with algorithm algo: its plan, its
 * counters, its trees.  -1: out of memory (reported). */
static int run_setup(struct coll_engine *e, uint32_t run, uint32_t id, uint8_t algo,
		     uint64_t record)
{
	const struct task *t = &e->tasks[id];
	struct run *r = &e->runs[run];
	uint32_t n = e->groups[t->group].n;
	uint32_t *order;
	uint32_t channels = channel_orders(e, t->group, algo, &order);
	if (!channels)
		return -1;
	uint64_t chunk = e->c->chunk;
	uint64_t cpc = chunk ? ceil_div(ceil_div(t->amount, channels), chunk) : 1;
	if (cpc * channels > 1u << 20)
		cpc = (1u << 20) / channels;
	uint64_t chunks = cpc * channels;
	*r = (struct run){ .task = id, .group = t->group, .n = n, .kind = t->ckind,
			   .algo = algo, .chunks = (uint32_t)chunks, .bytes = t->amount,
			   .record = record, .trees = 1, .channels = channels,
			   .cpc = (uint32_t)cpc, .order = order };
	e->recs[record].algo = algo;
	uint64_t cells = run_plan_steps(r, t->ckind, chunks);
	if (cells) {
		r->st = calloc(cells, sizeof *r->st);
		if (!r->st) {
			engine_oom(e, "a collective's counters");
			return -1;
		}
	}
	if (algo == COLL_TREE || algo == COLL_DBTREE)
		return run_build_trees(e, r);
	return 0;
}

/* The first transfers of a run set up for task t. */
static void run_launch(struct coll_engine *e, uint32_t run, const struct task *t)
{
	struct run *r = &e->runs[run];
	uint32_t n = r->n;
	switch (r->algo) {
	case COLL_RING:
	case COLL_PAIRWISE:
		for (uint32_t ch = 0; ch < r->channels; ch++)
			for (uint32_t k = 0; k < n; k++)
				ring_try(e, run, ch * r->cpc, k);
		break;
	case COLL_TREE:
	case COLL_DBTREE:
		for (uint32_t ch = 0; ch < r->channels; ch++)
			for (uint32_t tr = 0; tr < r->trees; tr++)
				for (uint32_t k = 0; k < n; k++)
					tree_try(e, run, tr, ch * r->cpc, k);
		break;
	case COLL_DIRECT:
		if (t->ckind == COLL_SENDRECV)
			start_xfer(e, run, 0, 0, 1, 0, 0, chunk_bytes(r, 0));
		else
			direct_start(e, run, 0);
		break;
	}
}


/* ---- collectives = coflow --------------------------------------------------- */

/*
 * The run's transfers are enumerated at once, as the collective would run
 * alone on the fabric: a network transfer sends its bytes at its max-min
 * rate among the collective's transfers sending (cf_self_*: their ECMP
 * collisions share links), then ends its tail (last packet, ACK) later;
 * an NVLink transfer ends its time later (cq, in time order).  An end
 * starts the transfers the algorithm starts then.  The network ones are
 * the coflow's (cf_add).  The clock at the last end is the collective's
 * time alone; the latencies on the chain of transfers that led there (the
 * tails and NVLink hops) are what it takes beyond its serialization,
 * added once the coflow has done its work.
 */
static int cq_push(struct coll_engine *e, ws_time t, ws_time chain, uint32_t x)
{
	struct ws_err err;
	if (e->n_cq == e->cap_cq &&
	    grow32((void **)&e->cq, &e->cap_cq, e->n_cq + 1ull, sizeof *e->cq, &err)) {
		engine_fail(e, &err);
		return -1;
	}
	struct cq_ent v = { .t = t, .chain = chain, .seq = e->cq_seq++, .x = x };
	uint32_t i = e->n_cq++;
	while (i) {
		uint32_t up = (i - 1) / 2;
		const struct cq_ent *u = &e->cq[up];
		if (u->t < v.t || (u->t == v.t && u->seq < v.seq))
			break;
		e->cq[i] = *u;
		i = up;
	}
	e->cq[i] = v;
	return 0;
}

static struct cq_ent cq_pop(struct coll_engine *e)
{
	struct cq_ent top = e->cq[0], v = e->cq[--e->n_cq];
	uint32_t i = 0, n = e->n_cq;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && (e->cq[c + 1].t < e->cq[c].t ||
				  (e->cq[c + 1].t == e->cq[c].t && e->cq[c + 1].seq < e->cq[c].seq)))
			c++;
		if (v.t < e->cq[c].t || (v.t == e->cq[c].t && v.seq < e->cq[c].seq))
			break;
		e->cq[i] = e->cq[c];
		i = c;
	}
	if (n)
		e->cq[i] = v;
	return top;
}

/* The entropy of a connection's packets: one queue pair per (source,
 * destination, channel) for the whole run, as NCCL keeps its connections
 * (each tree of a double binary tree has channels of its own). */
static uint16_t conn_sport(uint32_t src, uint32_t dst, uint32_t channel)
{
	uint64_t h = ((uint64_t)src << 32 | dst) * 0x9e3779b97f4a7c15ull;
	h ^= (h >> 29) + channel * 0xbf58476d1ce4e5b9ull;
	h *= 0x94d049bb133111ebull;
	return (uint16_t)(0xc000u | ((h >> 40) & 0x3fffu));
}

static void collect_xfer(struct coll_engine *e, uint32_t x)
{
	const struct xfer *xf = &e->xfers[x];
	uint32_t s = xf->src_gpu, d = xf->dst_gpu;
	if (server_of(e, s) == server_of(e, d)) {
		e->intra_xfers++;
		ws_time t = intra_time(e, xf->bytes);
		cq_push(e, e->cnow + t, e->cchain + t, x);
		return;
	}
	uint32_t from = s;
	ws_time pre = 0;
	if (e->c->pxn && s % e->G != d % e->G) {
		uint32_t relay = server_of(e, s) * e->G + d % e->G;
		if (relay < e->fab->n_hosts) {
			from = relay;
			pre = intra_time(e, xf->bytes);
			e->relays++;
		}
	}
	const struct run *r = &e->runs[xf->run];
	struct ws_err *err = &e->cf_err; /* written only when the run fails */
	ws_time lat;
	double bits;
	struct cf_path path;
	if (cf_add(e->cf, e->fab->hosts[from], e->fab->hosts[d],
		   conn_sport(from, d, xf->chunk / r->cpc * r->trees + xf->tree), xf->bytes,
		   &lat, &bits, &path, err) ||
	    cf_self_add(e->cf, x, path, err) ||
	    (e->n_cs == e->cap_cs &&
	     grow32((void **)&e->cs, &e->cap_cs, e->n_cs + 1ull, sizeof *e->cs, err)) ||
	    (e->n_cs == e->cap_ch &&
	     grow32((void **)&e->ch, &e->cap_ch, e->n_cs + 1ull, sizeof *e->ch, err))) {
		engine_fail(e, err);
		return;
	}
	count_network(e, xf);
	/* a PXN relay's NVLink hop counts as latency before it */
	/* no rate until the next solve: after every transfer with one */
	uint32_t i = e->n_cs++;
	e->xfers[x].cs_at = i;
	e->cs[i] = (struct cq_act){ .x = x, .hp = i, .left = bits, .at = e->cnow,
				    .fin = INFINITY, .lat = lat, .chain = e->cchain + pre };
	e->ch[i] = i;
	idh_up(e->ch, i, e, ch_before, ch_place);
	e->cdirty = true;
}

/* Transfer cs[a] takes a new rate at cnow: its bits sent so far at the
 * old one, then its end at the new one. */
static void act_rate(struct coll_engine *e, uint32_t a, double rate)
{
	struct cq_act *c = &e->cs[a];
	if (rate == c->rate)
		return;
	c->left -= c->rate * (double)(e->cnow - c->at) * 1e-12;
	c->at = e->cnow;
	c->rate = rate;
	c->fin = rate > 0 ? (double)e->cnow + c->left / rate * 1e12 : INFINITY;
	idh_up(e->ch, c->hp, e, ch_before, ch_place);
	idh_down(e->ch, e->n_cs, e->cs[a].hp, e, ch_before, ch_place);
}

/* The first of the transfers sending to be out (WS_TIME_NEVER: none).
 * After a solve, only the transfers whose rates it gave move. */
static ws_time act_next(struct coll_engine *e)
{
	if (e->cdirty) {
		if (cf_self_solve(e->cf)) {
			engine_oom(e, "a collective's transfers");
			return WS_TIME_NEVER;
		}
		const uint32_t *ids;
		uint32_t n = cf_self_changed(e->cf, &ids);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t at = e->xfers[ids[i]].cs_at;
			if (at < e->n_cs && e->cs[at].x == ids[i])
				act_rate(e, at, cf_self_rate(e->cf, ids[i]));
		}
		e->cdirty = false;
	}
	if (!e->n_cs || e->cs[e->ch[0]].fin == INFINITY)
		return WS_TIME_NEVER;
	double ps = ceil(e->cs[e->ch[0]].fin);
	return ps > (double)e->cnow ? (ws_time)ps : e->cnow;
}

/* The transfers whose bytes are out now (within 2 ps) go to their tails. */
static void act_out(struct coll_engine *e)
{
	while (e->n_cs && e->cs[e->ch[0]].fin <= (double)e->cnow + 2) {
		uint32_t a = e->ch[0];
		struct cq_act c = e->cs[a];
		cq_push(e, e->cnow + c.lat, c.chain + c.lat, c.x);
		cf_self_remove(e->cf, c.x);
		/* off the heap, then out of cs (the last one takes its place) */
		uint32_t last = --e->n_cs;
		if (last) {
			idh_set(e->ch, 0, e->ch[last], e, ch_place);
			idh_down(e->ch, e->n_cs, 0, e, ch_before, ch_place);
		}
		if (a != last) {
			e->cs[a] = e->cs[last];
			e->ch[e->cs[a].hp] = a;
			e->xfers[e->cs[a].x].cs_at = a;
		}
		e->cdirty = true;
	}
}

static void on_coflow_end(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)sim;
	struct coll_engine *e = obj;
	run_finish(e, (uint32_t)arg);
	drain(e);
}

/* the coflow of run slot `run` has carried its bytes: its latency follows */
static void on_cf_done(void *arg, uint32_t run)
{
	struct coll_engine *e = arg;
	ws_schedule(e->sim, ws_now(e->sim) + e->runs[run].lat, on_coflow_end, e, run);
}

static void coflow_run(struct coll_engine *e, uint32_t run, const struct task *t)
{
	e->collect = true;
	e->cnow = e->cchain = 0;
	e->n_cq = e->n_cs = 0;
	e->cdirty = false;
	cf_begin(e->cf);
	run_launch(e, run, t);
	ws_time end = 0, chain = 0;
	while ((e->n_cq || e->n_cs) && !e->failed) {
		ws_time out = act_next(e);
		if (e->failed)
			break;
		if (out != WS_TIME_NEVER && (!e->n_cq || out <= e->cq[0].t)) {
			e->cnow = out;
			act_out(e);
			continue;
		}
		e->cnow = e->cq[0].t;
		while (e->n_cq && e->cq[0].t == e->cnow && !e->failed) {
			struct cq_ent c = cq_pop(e);
			e->cchain = c.chain;
			end = c.t;
			chain = c.chain;
			xfer_done(e, c.x);
		}
	}
	e->collect = false;
	e->runs[run].lat = chain;
	e->cnow = end;
}

static struct cf_memo *memo_slot(struct coll_engine *e, uint32_t group, uint8_t kind,
				 uint8_t algo, uint64_t bytes)
{
	uint64_t h = (bytes * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)group << 16 | kind << 8 | algo);
	h *= 0xbf58476d1ce4e5b9ull;
	uint32_t k = (uint32_t)(h >> 32) & e->memo_mask;
	for (;; k = (k + 1) & e->memo_mask) {
		struct cf_memo *m = &e->memo[k];
		if (!m->used || (m->group == group && m->kind == kind && m->algo == algo &&
				 m->bytes == bytes))
			return m;
	}
}

static int memo_grow(struct coll_engine *e, struct ws_err *err)
{
	uint32_t size = e->memo ? (e->memo_mask + 1) * 2 : 1024;
	struct cf_memo *old = e->memo;
	uint32_t old_size = old ? e->memo_mask + 1 : 0;
	e->memo = calloc(size, sizeof *e->memo);
	if (!e->memo) {
		e->memo = old;
		return ws_err_set(err, WS_ENOMEM, "out of memory for the coflows kept");
	}
	e->memo_mask = size - 1;
	for (uint32_t i = 0; i < old_size; i++)
		if (old[i].used)
			*memo_slot(e, old[i].group, old[i].kind, old[i].algo, old[i].bytes) = old[i];
	free(old);
	return WS_OK;
}

/* Keep the coflow just described (d; its counts since the marks) for
 * collectives like it. */
static int memo_keep(struct coll_engine *e, const struct run *r, const struct cf_desc *d,
		     bool none, const struct cf_memo *base, const uint64_t *sent0,
		     struct ws_err *err)
{
	if ((e->n_memo + 1) * 2 > (e->memo ? e->memo_mask + 1 : 0) && memo_grow(e, err))
		return WS_ENOMEM;
	uint32_t n = none ? 0 : d->n, gn = e->groups[r->group].n;
	uint64_t cap = e->cap_ml;
	if (grow((void **)&e->m_links, &cap, e->n_ml + n, sizeof *e->m_links, err) ||
	    grow((void **)&e->m_use, &e->cap_ml, e->n_ml + n, sizeof *e->m_use, err))
		return WS_ENOMEM;
	if (grow((void **)&e->m_sent, &e->cap_ms, e->n_ms + gn, sizeof *e->m_sent, err))
		return WS_ENOMEM;
	struct cf_memo *m = memo_slot(e, r->group, r->kind, r->algo, r->bytes);
	*m = (struct cf_memo){ .bytes = r->bytes, .group = r->group, .kind = r->kind,
			       .algo = r->algo, .used = 1, .none = none, .n = n,
			       .links = e->n_ml, .sent = e->n_ms, .work = none ? 0 : d->work,
			       .lat = r->lat, .flows = e->flows - base->flows,
			       .net_bytes = e->net_bytes - base->net_bytes,
			       .intra = e->intra_xfers - base->intra,
			       .relays = e->relays - base->relays };
	if (n) {
		memcpy(&e->m_links[e->n_ml], d->links, n * sizeof *d->links);
		memcpy(&e->m_use[e->n_ml], d->use, n * sizeof *d->use);
	}
	const uint32_t *g = &e->gpu_pool[e->groups[r->group].first];
	for (uint32_t k = 0; k < gn; k++)
		e->m_sent[e->n_ms + k] = e->gpu_sent[g[k]] - sent0[k];
	e->n_ml += n;
	e->n_ms += gn;
	e->n_memo++;
	return WS_OK;
}

/* A collective like one enumerated before: its counts and its coflow. */
static void memo_replay(struct coll_engine *e, const struct cf_memo *m, uint64_t record)
{
	e->memo_hits++;
	e->flows += m->flows;
	e->net_bytes += m->net_bytes;
	e->iters[e->iter].flows += m->flows;
	e->iters[e->iter].net_bytes += m->net_bytes;
	e->recs[record].flows += (uint32_t)m->flows;
	e->intra_xfers += m->intra;
	e->relays += m->relays;
	const struct group *g = &e->groups[m->group];
	for (uint32_t k = 0; k < g->n; k++)
		e->gpu_sent[e->gpu_pool[g->first + k]] += e->m_sent[m->sent + k];
}

/* Run slot `run` for collective task id as a coflow: from the memo, else
 * enumerated and kept. */
static void coflow_start(struct coll_engine *e, uint32_t run, uint32_t id, uint8_t algo,
			 uint64_t record)
{
	const struct task *t = &e->tasks[id];
	struct ws_err *err = &e->cf_err; /* written only when the run fails */
	struct cf_memo *m = e->memo ? memo_slot(e, t->group, t->ckind, algo, t->amount) : NULL;
	struct run *r = &e->runs[run];
	struct cf_desc d;
	int rc;
	if (m && m->used) {
		*r = (struct run){ .task = id, .group = t->group, .n = e->groups[t->group].n,
				   .kind = t->ckind, .algo = algo, .bytes = t->amount,
				   .record = record, .lat = m->lat };
		e->recs[record].algo = algo;
		memo_replay(e, m, record);
		d = (struct cf_desc){ .links = &e->m_links[m->links], .use = &e->m_use[m->links],
				      .n = m->n, .work = m->work };
		rc = m->none;
	} else {
		const struct group *g = &e->groups[t->group];
		uint64_t *sent0 = malloc(g->n * sizeof *sent0);
		if (!sent0) {
			engine_oom(e, "a coflow's counts");
			return;
		}
		for (uint32_t k = 0; k < g->n; k++)
			sent0[k] = e->gpu_sent[e->gpu_pool[g->first + k]];
		struct cf_memo base = { .flows = e->flows, .net_bytes = e->net_bytes,
					.intra = e->intra_xfers, .relays = e->relays };
		if (run_setup(e, run, id, algo, record)) {
			free(sent0);
			return;
		}
		coflow_run(e, run, t);
		if (e->failed) {
			free(sent0);
			return;
		}
		r = &e->runs[run];
		/* alone it takes e->cnow, of which its chain's latencies */
		rc = cf_describe(e->cf, e->cnow - r->lat, &d);
		/* beyond COLL_MEMO_LINKS links kept, coflows are enumerated each
		 * time (a sweep of sizes on large groups) */
		int kept = e->n_ml + d.n > COLL_MEMO_LINKS ? 0 :
			   memo_keep(e, r, &d, rc == 1, &base, sent0, err);
		free(sent0);
		if (kept) {
			engine_fail(e, err);
			return;
		}
	}
	if (rc == 1) { /* nothing crosses the network */
		on_cf_done(e, run);
		return;
	}
	if (cf_start(e->cf, run, &d, err))
		engine_fail(e, err);
}

static void start_run(struct coll_engine *e, uint32_t id)
{
	struct ws_err err;
	ws_err_clear(&err);
	const struct task *t = &e->tasks[id];
	const struct group *g = &e->groups[t->group];
	uint8_t algo = t->algo != COLL_ALGOS ? t->algo : algo_for(e, t->ckind);
	if (g->n == 1 || t->amount == 0) {
		task_done(e, id);
		return;
	}
	if (new_record(e, id, algo, &err)) {
		engine_fail(e, &err);
		return;
	}
	uint64_t record = e->last_rec;
	if (g->intra && t->ckind != COLL_SENDRECV) {
		start_intra(e, id, record);
		return;
	}
	uint32_t run;
	if (take_run_slot(e, &run, &err)) {
		engine_fail(e, &err);
		return;
	}
	if (t->ckind == COLL_SENDRECV)
		algo = COLL_DIRECT;
	if (e->cf) {
		coflow_start(e, run, id, algo, record);
		return;
	}
	if (run_setup(e, run, id, algo, record))
		return;
	run_launch(e, run, t);
}

/* ---- results ---------------------------------------------------------------- */

uint64_t coll_gpu_sent(const struct coll_engine *e, uint32_t gpu)
{
	return gpu < e->gpus ? e->gpu_sent[gpu] : 0;
}

uint32_t coll_iterations_done(const struct coll_engine *e)
{
	return e->iters_done;
}

ws_time coll_iteration_time(const struct coll_engine *e, uint32_t iter)
{
	return iter < e->iters_done ? e->iters[iter].end - e->iters[iter].start : 0;
}

ws_time coll_iteration_compute_bound(const struct coll_engine *e, uint32_t iter)
{
	return iter < e->iters_done ? e->iters[iter].bound : 0;
}

static const char *algo_name(uint8_t algo)
{
	return algo < COLL_ALGOS ? algo_names[algo] : "nvlink";
}

/* The files are written whole or not at all (ws_outfile): under a
 * temporary name, renamed once every write and the close succeeded. */
static int open_csv(FILE **f, struct ws_outfile **o, const char *dir,
		    const char *name, struct ws_err *err)
{
	*o = ws_outfile_open(dir, name, err);
	if (!*o)
		return WS_EIO;
	*f = ws_outfile_stream(*o);
	return WS_OK;
}

/* picoseconds as nanoseconds with three decimals, digit for digit */
/* a time in the output files' format (ws_fmt_ps_as_ns), then `sep` */
static void put_ns(FILE *f, ws_time t, char sep)
{
	char buf[32];
	ws_fmt_ps_as_ns(buf, sizeof buf, t);
	fprintf(f, "%s%c", buf, sep);
}

/* The columns of collectives.csv after flows: layer, layer_name, phase,
 * dim, instance, members. */
static void put_context(const struct coll_engine *e, FILE *f, uint32_t layer,
			uint8_t phase, uint32_t group)
{
	const struct group *g = &e->groups[group];
	if (layer != COLL_NONE)
		fprintf(f, "%u,%s,", layer, coll_layer_name_of(e, layer));
	else
		fputs(",,", f);
	fprintf(f, "%s,%s,%u,", coll_phase_names[phase], coll_dim_names[g->dim],
		g->instance);
	coll_members_format(&e->gpu_pool[g->first], g->n, f);
	fputc('\n', f);
}

/* The collective records of iteration i as spans into *out, from *next. */
static void rec_spans(const struct coll_engine *e, uint64_t *next, uint32_t iter,
		      struct coll_span *out, uint64_t *n)
{
	for (; *next < e->n_recs && e->recs[*next].iter == iter; (*next)++) {
		const struct rec *r = &e->recs[*next];
		if (r->end == WS_TIME_NEVER)
			continue;
		out[(*n)++] = (struct coll_span){
			.id = coll_id(r->iter, r->task), .bytes = r->bytes, .start = r->start,
			.end = r->end, .iter = r->iter, .group = r->group, .layer = r->layer,
			.kind = r->kind, .phase = r->phase };
	}
}

/*
 * breakdown.csv and timeline.json from the run as spans: per iteration the
 * collectives and the compute tasks, each in start order, merged (a
 * collective first at equal start times).
 */
static int write_views(struct coll_engine *e, const char *dir, struct ws_err *err)
{
	uint32_t ni = e->iters_done;
	struct coll_span *sp = malloc((e->n_recs + e->n_crecs + 1) * sizeof *sp);
	struct coll_span *tmp = malloc((e->n_recs + 1) * sizeof *tmp);
	ws_time *times = malloc(2 * ((size_t)ni + 1) * sizeof *times);
	if (!sp || !tmp || !times) {
		free(sp);
		free(tmp);
		free(times);
		return ws_err_set(err, WS_ENOMEM, "out of memory for breakdown.csv");
	}
	uint64_t n = 0, ri = 0, ci = 0;
	for (uint32_t i = 0; i < ni; i++) {
		times[i] = e->iters[i].start;
		times[ni + i] = e->iters[i].end;
		uint64_t nt = 0, k = 0;
		rec_spans(e, &ri, i, tmp, &nt);
		while (k < nt || (ci < e->n_crecs && e->crecs[ci].iter == i)) {
			bool comp = ci < e->n_crecs && e->crecs[ci].iter == i &&
				    (k == nt || e->crecs[ci].start < tmp[k].start);
			sp[n++] = comp ? e->crecs[ci++] : tmp[k++];
		}
	}
	struct coll_view v = { .gpus = e->gpus, .n_iters = ni, .n_layers = e->n_layers,
			       .n_groups = e->n_groups,
			       .iter_start = times, .iter_end = times + ni, .spans = sp,
			       .n_spans = n, .e = e };
	int rc = coll_write_breakdown(&v, dir, err);
	const char *files[16];
	size_t nf = ws_sim_output_files(e->sim, files, 16);
	bool timeline = false;
	for (size_t i = 0; i < nf && i < 16; i++)
		timeline |= !strcmp(files[i], "timeline.json");
	if (!rc && timeline)
		rc = coll_write_timeline(&v, dir, COLL_TIMELINE_TRACKS, err);
	free(sp);
	free(tmp);
	free(times);
	return rc;
}

/* iterations.csv, and the columns its metric declaration names
 * (report_metrics): written once, here */
#define ITER_FILE "iterations.csv"
#define ITER_KEY "iteration"
#define ITER_START "start_ns"
#define ITER_END "end_ns"
#define ITER_VALUE "duration_ns"

int coll_engine_finish(struct coll_engine *e, const char *dir, struct ws_err *err)
{
	struct ws_outfile *o;
	FILE *f;
	int rc = open_csv(&f, &o, dir, ITER_FILE, err);
	if (rc)
		return rc;
	fprintf(f, ITER_KEY "," ITER_START "," ITER_END "," ITER_VALUE
		",compute_bound_ns,exposed_comm_ns,collectives,flows,network_bytes\n");
	for (uint32_t i = 0; i < e->iters_done; i++) {
		const struct iter_rec *r = &e->iters[i];
		ws_time d = r->end - r->start;
		fprintf(f, "%u,", i);
		put_ns(f, r->start, ',');
		put_ns(f, r->end, ',');
		put_ns(f, d, ',');
		put_ns(f, r->bound, ',');
		put_ns(f, d > r->bound ? d - r->bound : 0, ',');
		fprintf(f, "%u,%" PRIu64 ",%" PRIu64 "\n", r->collectives, r->flows,
			r->net_bytes);
	}
	rc = ws_outfile_commit(o, err);
	if (rc || e->iter_only)
		return rc;
	rc = open_csv(&f, &o, dir, "collectives.csv", err);
	if (rc)
		return rc;
	fprintf(f, "id,iteration,group,ranks,kind,algorithm,bytes,start_ns,end_ns,"
		"duration_ns,algbw_gbps,busbw_gbps,flows,layer,layer_name,phase,dim,"
		"instance,members\n");
	/* in start order; the id is the stable one of coll_id() */
	for (uint64_t i = 0; i < e->n_recs; i++) {
		const struct rec *r = &e->recs[i];
		const struct group *g = &e->groups[r->group];
		fprintf(f, "%" PRIu64 ",%u,%s,%u,%s,%s,%" PRIu64 ",", coll_id(r->iter, r->task),
			r->iter, &e->labels[g->label], g->n, kind_names[r->kind],
			algo_name(r->algo), r->bytes);
		put_ns(f, r->start, ',');
		if (r->end == WS_TIME_NEVER) {
			fprintf(f, ",,,,%u,", r->flows);
		} else {
			ws_time d = r->end - r->start;
			/* algorithm bandwidth: bytes over time, in Gb/s as links are rated */
			double alg = d ? (double)r->bytes * 8.0 / ((double)d / 1e12) / 1e9 : 0;
			put_ns(f, r->end, ',');
			put_ns(f, d, ',');
			fprintf(f, "%.3f,%.3f,%u,", alg, alg * bus_factor(r->kind, g->n),
				r->flows);
		}
		put_context(e, f, r->layer, r->phase, r->group);
	}
	rc = ws_outfile_commit(o, err);
	if (rc)
		return rc;
	return write_views(e, dir, err);
}

static double mean_time(const struct coll_engine *e, bool bound)
{
	double s = 0;
	for (uint32_t i = 0; i < e->iters_done; i++)
		s += (double)(bound ? e->iters[i].bound
				    : e->iters[i].end - e->iters[i].start);
	return e->iters_done ? s / e->iters_done : 0;
}

static double exposed_share(const struct coll_engine *e)
{
	double t = mean_time(e, false), b = mean_time(e, true);
	return t > 0 && t > b ? (t - b) / t : 0;
}

/*
 * The per-item results `warpsim compare` compares (docs/outputs.md): the
 * iteration time, a row of iterations.csv (coll_engine_finish) per
 * iteration, duration_ns checked against start_ns and end_ns.
 */
static void report_metrics(struct ws_json *j)
{
	ws_json_begin_array(j, "metrics");
	ws_json_begin(j, NULL);
	ws_json_str(j, "name", "iteration");
	ws_json_str(j, "file", ITER_FILE);
	ws_json_str(j, "key", ITER_KEY);
	ws_json_str(j, "value", ITER_VALUE);
	ws_json_str(j, "start", ITER_START);
	ws_json_str(j, "end", ITER_END);
	ws_json_end(j);
	ws_json_end_array(j);
}

void coll_engine_report(struct coll_engine *e, struct ws_json *j)
{
	ws_json_u64(j, "gpus", e->gpus);
	ws_json_u64(j, "gpus_per_server", e->G);
	ws_json_u64(j, "iterations", e->iterations);
	ws_json_u64(j, "iterations_done", e->iters_done);
	ws_json_begin_array(j, "iteration_ps");
	for (uint32_t i = 0; i < e->iters_done; i++)
		ws_json_u64(j, NULL, e->iters[i].end - e->iters[i].start);
	ws_json_end_array(j);
	ws_json_begin_array(j, "compute_bound_ps");
	for (uint32_t i = 0; i < e->iters_done; i++)
		ws_json_u64(j, NULL, e->iters[i].bound);
	ws_json_end_array(j);
	ws_json_f64(j, "iteration_mean_s", mean_time(e, false) / 1e12);
	ws_json_f64(j, "exposed_comm_share", exposed_share(e));
	ws_json_u64(j, "collectives", e->n_colls);
	ws_json_u64(j, "groups", e->n_groups);
	ws_json_u64(j, "network_flows", e->flows);
	ws_json_u64(j, "network_bytes", e->net_bytes);
	ws_json_u64(j, "intra_server_transfers", e->intra_xfers);
	ws_json_u64(j, "pxn_relays", e->relays);
	if (e->cf) {
		struct cf_stats cs;
		cf_get_stats(e->cf, &cs);
		ws_json_begin(j, "coflow");
		ws_json_u64(j, "coflows", cs.coflows);
		ws_json_u64(j, "transfers", cs.transfers);
		ws_json_u64(j, "routes_traced", cs.routes);
		ws_json_u64(j, "links_given", cs.links);
		ws_json_u64(j, "solves", cs.solves);
		ws_json_u64(j, "coflows_solved", cs.solved);
		ws_json_u64(j, "largest_solve", cs.largest);
		ws_json_u64(j, "local_rounds", cs.fills);
		ws_json_u64(j, "full_fallbacks", cs.fallbacks);
		ws_json_u64(j, "memo_hits", e->memo_hits);
		ws_json_u64(j, "memo_kept", e->n_memo);
		ws_json_end(j);
	}
	report_metrics(j);
}

static void fmt_ps(char *buf, size_t n, double t)
{
	if (t >= 1e12)
		snprintf(buf, n, "%.4f s", t / 1e12);
	else if (t >= 1e9)
		snprintf(buf, n, "%.3f ms", t / 1e9);
	else
		snprintf(buf, n, "%.3f us", t / 1e6);
}

size_t coll_engine_summary(struct coll_engine *e, const char *dir, char *buf,
			   size_t size)
{
	char t[32], b[32];
	fmt_ps(t, sizeof t, mean_time(e, false));
	fmt_ps(b, sizeof b, mean_time(e, true));
	int n;
	if (e->iters_done)
		n = snprintf(buf, size, "  iteration  %s (mean of %u of %u completed); "
			     "compute-bound %s; exposed communication %.1f %%\n",
			     t, e->iters_done, e->iterations, b, 100.0 * exposed_share(e));
	else
		n = snprintf(buf, size, "  iteration  none of %u completed\n", e->iterations);
	if (n < 0)
		return 0;
	size_t used = (size_t)n < size ? (size_t)n : size;
	n = snprintf(buf + used, size - used, "  collectives %" PRIu64 " (%" PRIu64
		     " network flows, %.3f GB; %" PRIu64 " intra-server transfers, %"
		     PRIu64 " PXN relays)\n", e->n_colls, e->flows, (double)e->net_bytes / 1e9,
		     e->intra_xfers, e->relays);
	if (n < 0)
		return used;
	used += (size_t)n < size - used ? (size_t)n : size - used;
	if (e->iter_only)
		n = snprintf(buf + used, size - used, "  workload   %s/iterations.csv "
			     "(records = iterations: no collectives.csv, breakdown.csv)\n", dir);
	else
		n = snprintf(buf + used, size - used, "  workload   %s/iterations.csv, "
			     "%s/collectives.csv, %s/breakdown.csv\n", dir, dir, dir);
	return n < 0 ? used : used + (size_t)n;
}
