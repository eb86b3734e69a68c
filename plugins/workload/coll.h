/* SPDX-License-Identifier: MIT */
/*
 * The collective engine shared by the training workloads (llm, simai): a
 * per-iteration task DAG of compute delays and collectives over groups of
 * GPUs, and the decomposition of each collective into the point-to-point
 * transfers of its algorithm, started as their predecessors complete.
 *
 * GPUs are the fabric's hosts in id order (GPU g is fab->hosts[g]); a server
 * is `gpus_per_server` consecutive GPUs (the fabric's declared server size,
 * rail for instance, or the configured one).  A transfer between two GPUs
 * of one server is not a packet flow: it takes alpha + bytes / beta (the
 * NVLink-class model).  A transfer between servers is a flow of the
 * simulation (packet level, CC and all).  A collective whose group lies
 * inside one server is one calibrated delay: alpha_kind + busfactor(kind, n)
 * * bytes / (beta * eff_kind).
 *
 * Bytes of a collective, per GPU, as NCCL and SimAI count them:
 *   all-reduce      the buffer each rank reduces (S): ring sends
 *                   2(n-1) steps of S/n
 *   reduce-scatter  the input each rank holds (S): n-1 steps of S/n
 *   all-gather      the gathered output (S): n-1 steps of S/n
 *   all-to-all      what each rank sends in all, its own share included:
 *                   S/n to each peer
 *   send-recv       group of two: S bytes from the first to the second
 *
 * Algorithms (per kind, from the configuration):
 *   ring        step k of rank r sends to r+1 once r has received step k-1
 *               and its own step k-1 is sent; chunks pipeline behind each
 *               other on every link
 *   tree        all-reduce as a reduction up a binary tree and a broadcast
 *               down it, chunks pipelined level by level
 *   dbtree      NCCL's double binary tree: two trees carrying half the
 *               data each, the second the first shifted by one rank (even
 *               n) or mirrored (odd n), so a rank that is a leaf in one is
 *               inner in the other
 *   pairwise    all-to-all in n-1 steps; at step k rank r sends to r+k+1
 *               and receives from r-k-1, and step k+1 waits for both
 *   direct      all-to-all as n(n-1) simultaneous transfers
 *
 * Channels (ring = rail, the default).  A ring, tree or double-tree
 * collective whose group spans servers, with the same number m >= 2 of
 * its GPUs in every server, runs as `channels` channels (0: m, one per NIC
 * the group has in a server, as NCCL on a rail-optimized fabric), each
 * carrying 1/channels of the bytes over its own order of the ranks.  In
 * every order a server's GPUs are consecutive, sorted by rail; channel c
 * starts at slot o = c m / channels: even servers (in server order) visit
 * slots o, o+1, ..., o-1 (mod m), odd servers o-1, o-2, ..., o, so every
 * hop between servers joins two GPUs of one slot (slot o-1 forward, slot o
 * back), so of one rail when the group takes the same rails in every
 * server (Megatron's groups do), and every hop inside a server is an
 * NVLink transfer.  With an odd number of servers the hop from the last
 * server back to the first crosses rails (PXN relays it when on).  Trees are built over the same
 * orders, one (or two) per channel.  A group with one GPU per server, or
 * with unequal shares, keeps one ring in its order; ring = flat keeps it
 * always (warpsim before issue 17).
 *
 * The DAG of an iteration is built by the workload when the iteration
 * starts (the build callback) and freed when it ends; an iteration ends
 * when every task is done, and the next starts then.
 */
#ifndef WARPSIM_COLL_H
#define WARPSIM_COLL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <warpsim/warpsim.h>

#define COLL_NONE UINT32_MAX

enum coll_kind {
	COLL_ALLREDUCE,
	COLL_ALLGATHER,
	COLL_REDUCESCATTER,
	COLL_ALLTOALL,
	COLL_SENDRECV,
	COLL_KINDS
};

enum coll_algo {
	COLL_RING,
	COLL_TREE,
	COLL_DBTREE,
	COLL_PAIRWISE,
	COLL_DIRECT,
	COLL_ALGOS
};

/* Communication settings, the same keys in every training workload. */
struct coll_conf {
	uint64_t gpus_per_server;   /* 0: the fabric's declared server size, else 8 */
	int allreduce_algo;         /* index into coll_allreduce_names */
	int alltoall_algo;          /* index into coll_alltoall_names */
	uint64_t chunk;             /* bytes per pipelined chunk; 0: none */
	bool pxn;                   /* relay cross-rail transfers inside the server */
	int ring;                   /* COLL_RING_RAIL (NCCL-like channels) or COLL_RING_FLAT */
	uint64_t channels;          /* channels across servers; 0: one per NIC of a server */
	uint64_t prio;              /* priority of the flows */
	uint64_t intra_bw;          /* bps per direction between two GPUs of a server */
	ws_time intra_latency;      /* alpha of one intra-server transfer */
	ws_time intra_alpha[COLL_KINDS]; /* alpha of a whole intra-server collective */
	double intra_eff[COLL_KINDS];    /* share of intra_bw the collective reaches */
	int model;                  /* COLL_MODEL_TRANSFERS or COLL_MODEL_COFLOW */
	ws_time coflow_batch;       /* coflow: starts and ends solved together within this */
};

/* How a collective across servers is simulated: each transfer a flow of
 * the simulation, or the collective one fluid coflow (coflow.h). */
enum coll_model { COLL_MODEL_TRANSFERS, COLL_MODEL_COFLOW };
extern const char *const coll_model_names[];

enum coll_ring_order { COLL_RING_RAIL, COLL_RING_FLAT };

extern const char *const coll_allreduce_names[];
extern const char *const coll_ring_names[];
extern const char *const coll_alltoall_names[];

/*
 * The parameter rows of struct coll_conf for a plugin whose config struct
 * `T` holds one in field `comm`: put COLL_PARAMS(T) in its table.
 */
#define COLL_PARAMS(T)                                                           \
	WS_PARAM_UINT("gpus_per_server", T, comm.gpus_per_server, "0", "0", "1024",   \
		      "GPUs per server; 0: the topology's server size (rail), else 8"), \
	WS_PARAM_ENUM("allreduce", T, comm.allreduce_algo, "ring", coll_allreduce_names, \
		      "all-reduce algorithm: ring, tree or dbtree (double binary tree)"), \
	WS_PARAM_ENUM("alltoall", T, comm.alltoall_algo, "pairwise", coll_alltoall_names, \
		      "all-to-all algorithm: pairwise (n-1 steps) or direct (all at once)"), \
	WS_PARAM_SIZE("chunk", T, comm.chunk, "0", "0", "1TiB",                        \
		      "split collectives into pipelined chunks of this size; 0: one chunk"), \
	WS_PARAM_BOOL("pxn", T, comm.pxn, "false",                                     \
		      "relay a cross-rail transfer through the server's GPU on the destination's rail (NCCL PXN)"), \
	WS_PARAM_ENUM("ring", T, comm.ring, "rail", coll_ring_names,                  \
		      "rings and trees across servers: rail (NCCL-like channels, each ring rail-aligned) or flat (one ring in the group's order)"), \
	WS_PARAM_UINT("channels", T, comm.channels, "0", "0", "64",                   \
		      "channels of a collective across servers (ring = rail); 0: one per NIC the group has in a server"), \
	WS_PARAM_UINT("priority", T, comm.prio, "3", "1", "7",                         \
		      "priority (traffic class) of the workload's flows"),           \
	WS_PARAM_RATE("intra_bw", T, comm.intra_bw, "2400Gbps", "1Mbps", "1000Tbps",  \
		      "beta: bandwidth between two GPUs of a server, per direction"), \
	WS_PARAM_TIME("intra_latency", T, comm.intra_latency, "2us", "0s", "1s",      \
		      "alpha of one point-to-point transfer inside a server"),       \
	WS_PARAM_TIME("intra_allreduce_alpha", T, comm.intra_alpha[COLL_ALLREDUCE], "10us", "0s", "1s", \
		      "alpha of an all-reduce inside a server"),                     \
	WS_PARAM_FLOAT("intra_allreduce_eff", T, comm.intra_eff[COLL_ALLREDUCE], "0.8", "0.01", "1", \
		       "bus bandwidth of an all-reduce inside a server, as a share of intra_bw"), \
	WS_PARAM_TIME("intra_allgather_alpha", T, comm.intra_alpha[COLL_ALLGATHER], "8us", "0s", "1s", \
		      "alpha of an all-gather inside a server"),                     \
	WS_PARAM_FLOAT("intra_allgather_eff", T, comm.intra_eff[COLL_ALLGATHER], "0.8", "0.01", "1", \
		       "bus bandwidth of an all-gather inside a server, as a share of intra_bw"), \
	WS_PARAM_TIME("intra_reducescatter_alpha", T, comm.intra_alpha[COLL_REDUCESCATTER], "8us", "0s", "1s", \
		      "alpha of a reduce-scatter inside a server"),                  \
	WS_PARAM_FLOAT("intra_reducescatter_eff", T, comm.intra_eff[COLL_REDUCESCATTER], "0.8", "0.01", "1", \
		       "bus bandwidth of a reduce-scatter inside a server, as a share of intra_bw"), \
	WS_PARAM_TIME("intra_alltoall_alpha", T, comm.intra_alpha[COLL_ALLTOALL], "8us", "0s", "1s", \
		      "alpha of an all-to-all inside a server"),                     \
	WS_PARAM_FLOAT("intra_alltoall_eff", T, comm.intra_eff[COLL_ALLTOALL], "0.7", "0.01", "1", \
		       "bus bandwidth of an all-to-all inside a server, as a share of intra_bw"), \
	WS_PARAM_ENUM("collectives", T, comm.model, "transfers", coll_model_names,     \
		      "collectives across servers: transfers (each a flow of the simulation, " \
		      "packet level or the accelerator's) or coflow (each collective one fluid " \
		      "entity over its transfers' links: fast, approximate; docs/workloads.md)"), \
	WS_PARAM_TIME("coflow_batch", T, comm.coflow_batch, "1us", "0s", "1ms",        \
		      "collectives = coflow: after a coflow starts or ends, rates are solved " \
		      "again this much later, with the other starts and ends meanwhile (0: at each)")

struct coll_engine;

/* Build the DAG of iteration `iter` (0-based) through the calls below. */
typedef int (*coll_build_fn)(void *ctx, struct coll_engine *e, uint32_t iter,
			     struct ws_err *err);
/* Compact DAG: task `task` is about to complete; add the tasks that wait
 * for it and are not yet in the DAG (errors: ws_fail). */
typedef void (*coll_done_fn)(void *ctx, struct coll_engine *e, uint32_t task);

struct coll_spec {
	struct ws_inst *inst;          /* the workload instance */
	const struct coll_conf *comm;
	uint32_t gpus;                 /* GPUs used: hosts 0..gpus-1 */
	uint32_t iterations;
	coll_build_fn build;
	void *ctx;
	/* The compact DAG (below) when set: `build` adds the first tasks only,
	 * on_done the others as the run reaches them. */
	coll_done_fn on_done;
	/* Keep no per-collective or per-compute record: iterations.csv and the
	 * summary only, in memory independent of the collectives run. */
	bool iterations_only;
};

/* Check the configuration against the fabric (GPU count, server size). */
int coll_engine_new(struct coll_engine **out, const struct coll_spec *spec,
		    struct ws_err *err);
void coll_engine_free(struct coll_engine *e);
/* Build iteration 0 and start its ready tasks (the workload's start op). */
int coll_engine_start(struct coll_engine *e, struct ws_err *err);

uint32_t coll_gpus_per_server(const struct coll_engine *e);

/*
 * A group of GPUs (ranks in order); groups live for the whole run and equal
 * groups are one group.  `label` names it in collectives.csv ("dp", "tp").
 * Returns COLL_NONE and fills err when a GPU is out of range or repeated.
 */
uint32_t coll_group(struct coll_engine *e, const uint32_t *gpus, uint32_t n,
		    const char *label, struct ws_err *err);

/* Tasks of the current iteration; they run once all their predecessors
 * are done (tasks without predecessors when the iteration starts). */
uint32_t coll_compute(struct coll_engine *e, ws_time dur, struct ws_err *err);
uint32_t coll_join(struct coll_engine *e, struct ws_err *err);
uint32_t coll_collective(struct coll_engine *e, uint32_t group,
			 enum coll_kind kind, uint64_t bytes,
			 struct ws_err *err);
/* The same with the algorithm chosen for this collective (COLL_RING, TREE
 * or DBTREE for an all-reduce, PAIRWISE or DIRECT for an all-to-all);
 * COLL_ALGOS: the configured one. */
uint32_t coll_collective_algo(struct coll_engine *e, uint32_t group,
			      enum coll_kind kind, uint64_t bytes,
			      enum coll_algo algo, struct ws_err *err);
/* `after` waits for `before` (COLL_NONE on either side: nothing). */
int coll_dep(struct coll_engine *e, uint32_t before, uint32_t after,
	     struct ws_err *err);

/*
 * What the tasks belong to, for collectives.csv, breakdown.csv and
 * timeline.json (docs/outputs.md).  All optional: a task without them has
 * no layer, phase "" and dimension "other".
 */
enum coll_dim { COLL_DIM_NONE, COLL_DIM_TP, COLL_DIM_DP, COLL_DIM_EP, COLL_DIM_PP,
		COLL_DIM_DP_EP, COLL_DIMS };
enum coll_phase { COLL_PH_NONE, COLL_PH_FWD, COLL_PH_BWD, COLL_PH_IG, COLL_PH_WG,
		  COLL_PH_PP, COLL_PH_OPT, COLL_PHASES };
extern const char *const coll_dim_names[COLL_DIMS];     /* "", "TP", ... */
extern const char *const coll_phase_names[COLL_PHASES]; /* "", "fwd", ... */
/* The parallelism dimension of group g; its instance is its rank among the
 * groups of that dimension, in the order they are given one. */
void coll_group_dim(struct coll_engine *e, uint32_t group, enum coll_dim dim);
/* The name of layer `layer` (the workload's 0-based index). */
int coll_layer_name(struct coll_engine *e, uint32_t layer, const char *name,
		    struct ws_err *err);
/* The layer (COLL_NONE: none) and phase of the tasks added from now on. */
void coll_context(struct coll_engine *e, uint32_t layer, enum coll_phase phase);
/* The GPUs compute task `task` runs on: the members of `group`. */
void coll_compute_on(struct coll_engine *e, uint32_t task, uint32_t group);

/*
 * The compact DAG: the same tasks and dependencies as a DAG built whole,
 * added a few at a time, so memory holds the tasks in flight, not the
 * iteration.  Results are identical when the workload adds every task
 * before any task it waits for completes (on_done is the last moment) and
 * gives each task the id it would have in the whole DAG: ids number the
 * tasks in the order the whole build adds them, and collectives.csv, flow
 * tags and the order of simultaneous starts follow them.
 */
/* The id of the next task added (then one more per task). */
void coll_next_id(struct coll_engine *e, uint32_t id);
uint32_t coll_peek_id(const struct coll_engine *e);
/* A workload's own coordinates of the tasks added from now on (its
 * pipeline stage and the step of its schedule), read back in on_done. */
void coll_mark(struct coll_engine *e, uint32_t stage, uint32_t step);
void coll_task_where(const struct coll_engine *e, uint32_t task, uint32_t *stage,
		     uint32_t *step);
uint32_t coll_task_id(const struct coll_engine *e, uint32_t task);
/* Its finish with free communication (compact DAG; final once its
 * predecessors are done). */
ws_time coll_task_fin(const struct coll_engine *e, uint32_t task);
/* `after` waits for a task already done, which finished at `fin` with free
 * communication: only the compute-bound time notes it. */
void coll_dep_done(struct coll_engine *e, uint32_t after, ws_time fin);
/* A task that waits for a dependency not yet added: hold it, and release
 * it once the dependency is there. */
void coll_hold(struct coll_engine *e, uint32_t task);
void coll_release(struct coll_engine *e, uint32_t task);
/* Every task of the iteration is in the DAG (the iteration ends when they
 * are done). */
void coll_build_done(struct coll_engine *e);
/* The whole iteration's counts (for the memory estimate): tasks,
 * collectives, compute tasks. */
void coll_set_totals(struct coll_engine *e, uint64_t tasks, uint64_t colls,
		     uint64_t comps);
/* Counting: tasks are numbered, not stored, and dependencies ignored. */
void coll_counting(struct coll_engine *e, bool on);
void coll_count(const struct coll_engine *e, uint64_t *tasks, uint64_t *colls,
		uint64_t *comps);
/* Counting: n tasks of a kind at once (the ids they would take). */
enum coll_count { COLL_COUNT_JOIN, COLL_COUNT_COMPUTE, COLL_COUNT_COLL };
void coll_count_add(struct coll_engine *e, enum coll_count kind, uint64_t n);
/* The engine context (layer, phase) of the tasks added next, to save and
 * restore around coll_context. */
void coll_get_context(const struct coll_engine *e, uint32_t *layer, uint8_t *phase);
/* Bytes of one task and one dependency of the DAG, for memory estimates. */
size_t coll_task_bytes(void);
/* The task slots the DAG has held at once, at most (compact: the tasks in
 * flight; whole: an iteration's tasks). */
uint32_t coll_dag_slots(const struct coll_engine *e);

/* After the run: iterations.csv, collectives.csv, breakdown.csv and, when
 * [output] timeline is on, timeline.json. */
int coll_engine_finish(struct coll_engine *e, const char *dir,
		       struct ws_err *err);
void coll_engine_report(struct coll_engine *e, struct ws_json *j);
/* Lines for the run summary ("  iteration  ..."); returns strlen. */
size_t coll_engine_summary(struct coll_engine *e, const char *dir, char *buf,
			   size_t size);

/* Results, for tests and tools. */
/* Bytes GPU `gpu` has sent in collectives (network and NVLink transfers;
 * a PXN relay counts at the source only). */
uint64_t coll_gpu_sent(const struct coll_engine *e, uint32_t gpu);
uint32_t coll_iterations_done(const struct coll_engine *e);
ws_time coll_iteration_time(const struct coll_engine *e, uint32_t iter);
/* Of iteration `iter`: the time the same DAG takes with free communication. */
ws_time coll_iteration_compute_bound(const struct coll_engine *e, uint32_t iter);

const char *coll_kind_name(enum coll_kind kind);

/* ---- for coll_out.c: the run as spans ------------------------------------ */

#define COLL_SPAN_COMPUTE 0xff  /* a span's kind when it is compute */
#define COLL_TIMELINE_TRACKS 256 /* GPUs with a track of their own in timeline.json */

/* a compute task or a collective of the run, as it ran */
struct coll_span {
	uint64_t id;          /* a collective's id (collectives.csv); compute: 0 */
	uint64_t bytes;
	ws_time start, end;
	uint32_t iter, group; /* compute: the GPUs it runs on, or COLL_NONE */
	uint32_t layer;       /* COLL_NONE: none */
	uint8_t kind;         /* enum coll_kind, or COLL_SPAN_COMPUTE */
	uint8_t phase;
};

struct coll_view {
	uint32_t gpus, n_iters, n_layers, n_groups;
	const ws_time *iter_start, *iter_end;  /* [n_iters] */
	const struct coll_span *spans;         /* by iteration, then start */
	uint64_t n_spans;
	const struct coll_engine *e;
};

const uint32_t *coll_group_members(const struct coll_engine *e, uint32_t group,
				   uint32_t *n);
const char *coll_group_label(const struct coll_engine *e, uint32_t group);
enum coll_dim coll_group_dim_of(const struct coll_engine *e, uint32_t group);
uint32_t coll_group_instance(const struct coll_engine *e, uint32_t group);
const char *coll_layer_name_of(const struct coll_engine *e, uint32_t layer);
/* coll_out.c */
int coll_write_breakdown(const struct coll_view *v, const char *dir,
			 struct ws_err *err);
int coll_write_timeline(const struct coll_view *v, const char *dir,
			uint32_t max_tracks, struct ws_err *err);
/* the members of a group in compact form: "first:stride:count" when they
 * are evenly spaced, else ranges "a-b;c;..." */
void coll_members_format(const uint32_t *g, uint32_t n, FILE *f);

#endif
