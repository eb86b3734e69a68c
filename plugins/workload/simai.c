/* SPDX-License-Identifier: MIT */
/*
 * simai: a training workload read from a SimAI workload description file,
 * the text format of Alibaba's SimAI simulator (aliyun/SimAI, astra-sim's
 * Workload.cc and Layer.cc) produced by its generator AICB (aliyun/aicb):
 *
 *     POLICY key: value key: value ...
 *     N
 *     name dep fwd_ns fwd_type fwd_bytes ig_ns ig_type ig_bytes wg_ns wg_type wg_bytes update_ns
 *     ... (N layer lines)
 *
 * POLICY is HYBRID_TRANSFORMER_FWD_IN_BCKWD (what AICB writes),
 * HYBRID_TRANSFORMER (the same schedule), DATA or MICRO; SimAI's other
 * policies are refused by name.  The keys, in any order:
 * model_parallel_NPU_group: (TP, default 1), ep:, pp:, vpp:, ga:
 * (micro-batches per iteration), all_gpus:, checkpoints: K l1..lK,
 * checkpoint_initiates: K l1..lK, pp_comm: (bytes of one pipeline send; also
 * written without the colon).  Times are ns, sizes bytes.  Collective types:
 * ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL with no suffix, _EP or _DP_EP;
 * NONE; BROADCAST, which SimAI ignores and so do we.
 *
 * GPUs are the fabric's first hosts (GPU g = host g), in Megatron order with
 * TP fastest: GPU g = tp + TP (dp + DP pp), DP = GPUs / (TP PP).  A worker is
 * one TP group (dp, pp) and runs one stream of tasks.  Groups, per pipeline
 * stage: the TP group (the forward and input-gradient columns without
 * suffix), the DP group (same tp and pp, every dp: the weight-gradient
 * column without suffix), the expert groups (_EP: the stage's TP DP ranks
 * taken dp-fastest, j = dp + DP tp, cut into runs of EP consecutive ranks)
 * and the expert data-parallel groups (_DP_EP: the ranks with the same j mod
 * EP, one in each expert group; TP DP / EP GPUs, Megatron's expert-data-
 * parallel group; SimAI's own spans only the GPUs with the same tp).
 *
 * One iteration per worker, in SimAI's HYBRID_TRANSFORMER_FWD_IN_BCKWD
 * order: forward through the layers (compute, then the forward collective,
 * blocking), backward in reverse (input-gradient compute, its collective,
 * blocking; weight-gradient compute, its collective issued without blocking
 * the stream); the iteration ends when every task has, weight-gradient
 * collectives included.  As in SimAI's Layer.cc, a layer's update time is a
 * delay after each of its collectives that runs (the stream resumes, or a
 * weight-gradient collective counts as done, that much later).  A collective
 * on a group spanning several workers is one task that starts when every
 * member worker has reached it; a blocking one releases each worker when
 * the collectives holding its GPUs are done.  Every line runs once an
 * iteration, whatever ga: says: AICB writes the ga micro-batches out as
 * lines (its SimAI training generator repeats the layers ga times) and SimAI
 * runs the lines once per pass, reading ga: only for its bubble estimate
 * (docs/workloads.md).  pp > 1: the file describes one stage, every stage
 * runs its lines, in Megatron's 1F1B schedule over ga micro-batches, each a
 * slice of consecutive lines (slice m: lines m N / ga .. (m+1) N / ga - 1,
 * rounded down; ga at most N); between consecutive stages each TP rank
 * sends pp_comm bytes (absent: the most common forward all-reduce size, the
 * activation of a Megatron layer) to its peer per micro-batch, forward and
 * backward; the receiver waits for it, the sender does not.  DATA: TP = PP = 1, no forward or input-gradient collective, the
 * backward runs weight-gradient compute and collective, then input-gradient
 * compute (none for the first layer).  MICRO: the weight-gradient column of
 * each line is one collective on all GPUs, run one after another.
 *
 * The whole file is read and checked against the fabric before the run:
 * errors name the file, the line and the problem.  A layer count larger than
 * the lines that follow runs the lines present with a warning naming the
 * count's line (AICB writes such files and its tools run them), or is an
 * error with strict = true; lines after the declared layers are ignored with
 * one warning.  comm_scale and
 * compute_scale scale sizes and times, as SimAI's options of those names.
 * The collectives are decomposed by the collective engine (coll.h): NVLink
 * delays inside a server, flows of the simulation between servers.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"

#define SIMAI_MAX_PAR (1u << 24)            /* largest TP, ep, pp, vpp, ga, GPUs */
#define SIMAI_MAX_BYTES (1ull << 50)        /* largest collective (1 PiB) */
#define SIMAI_MAX_TIME (WS_TIME_NEVER / 4)  /* ps: 53 days */
#define SIMAI_FIELDS 12
#define KIND_NONE 0xff

struct simai_conf {
	const char *file;
	uint64_t iterations;
	uint64_t gpus;
	double comm_scale;
	double compute_scale;
	bool strict;
	int dag;        /* enum simai_dag */
	int records;    /* 0: all, 1: iterations only */
	struct coll_conf comm;
};

enum simai_dag { DAG_COMPACT, DAG_EXPANDED };
static const char *const simai_dag_names[] = { "compact", "expanded", NULL };
static const char *const simai_records_names[] = { "all", "iterations", NULL };

static const struct ws_param simai_params[] = {
	WS_PARAM_STRING("file", struct simai_conf, file, NULL,
			"the SimAI workload file (relative paths start at the ini file's directory)"),
	WS_PARAM_UINT("iterations", struct simai_conf, iterations, "1", "1", "1000000",
		      "training iterations to simulate, one after another"),
	WS_PARAM_UINT("gpus", struct simai_conf, gpus, "0", "0", "16777216",
		      "GPUs used (hosts 0..gpus-1); 0: the file's all_gpus, else every host"),
	WS_PARAM_FLOAT("comm_scale", struct simai_conf, comm_scale, "1", "1e-9", "1e6",
		       "multiply every collective's bytes (SimAI's comm_scale)"),
	WS_PARAM_FLOAT("compute_scale", struct simai_conf, compute_scale, "1", "0", "1e6",
		       "multiply every compute and update time (SimAI's compute_scale)"),
	WS_PARAM_BOOL("strict", struct simai_conf, strict, "false",
		      "refuse a file declaring more layers than it holds; false: run the "
		      "lines present, with a warning"),
	WS_PARAM_ENUM("dag", struct simai_conf, dag, "compact", simai_dag_names,
		      "compact: each stage's tasks added as the run reaches them (memory of the "
		      "tasks in flight); expanded: an iteration's whole DAG built at its start "
		      "(the same results)"),
	WS_PARAM_ENUM("records", struct simai_conf, records, "all", simai_records_names,
		      "all: collectives.csv, breakdown.csv and timeline.json; iterations: "
		      "iterations.csv only, no record per collective or compute task kept"),
	COLL_PARAMS(struct simai_conf),
	WS_PARAM_END
};

enum simai_policy { POL_TRANSFORMER, POL_DATA, POL_MICRO, POL_UNSUPPORTED };

static const struct {
	const char *token;
	int policy;
} simai_policies[] = {
	{ "HYBRID_TRANSFORMER_FWD_IN_BCKWD", POL_TRANSFORMER },
	{ "HYBRID_TRANSFORMER", POL_TRANSFORMER },
	{ "DATA", POL_DATA },
	{ "MICRO", POL_MICRO },
	/* SimAI's others: DLRM layer semantics, per-line policies (a 13th
	 * field), dimension-indexed groups; not modelled */
	{ "HYBRID_DLRM", POL_UNSUPPORTED },
	{ "HYBRID_DLRM_ENHANCED", POL_UNSUPPORTED },
	{ "MODEL", POL_UNSUPPORTED },
	{ "HYBRID_DATA_MODEL", POL_UNSUPPORTED },
	{ "HYBRID_MODEL_DATA", POL_UNSUPPORTED },
	{ "HYBRID_CUSTOMIZED", POL_UNSUPPORTED },
	{ "DISTRIBUTED_INFERENCE", POL_UNSUPPORTED },
};
#define SIMAI_SUPPORTED "HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_TRANSFORMER, DATA or MICRO"

enum hkey { HK_TP, HK_EP, HK_PP, HK_VPP, HK_GA, HK_ALL_GPUS, HK_CKPT, HK_CKPT_INIT,
	    HK_PP_COMM, HKEYS };
static const char *const hkey_names[HKEYS] = {
	"model_parallel_NPU_group:", "ep:", "pp:", "vpp:", "ga:", "all_gpus:",
	"checkpoints:", "checkpoint_initiates:", "pp_comm:",
};

enum phase { PH_FWD, PH_IG, PH_WG, PHASES };

/* the groups a collective can run on; the same shape in every stage */
enum grouping { GR_TP, GR_DP, GR_EP, GR_DP_EP, GROUPINGS };
static const char *const grouping_labels[GROUPINGS] = { "tp", "dp", "ep", "dp_ep" };
static const enum coll_dim grouping_dims[GROUPINGS] = { COLL_DIM_TP, COLL_DIM_DP, COLL_DIM_EP,
							COLL_DIM_DP_EP };

enum suffix { SUF_NONE, SUF_EP, SUF_DP_EP };

struct col {
	ws_time compute;   /* ps, after compute_scale */
	uint64_t bytes;    /* after comm_scale */
	uint8_t kind;      /* enum coll_kind, or KIND_NONE */
	uint8_t suffix;    /* enum suffix */
};

struct layer {
	struct col ph[PHASES];
	ws_time update;    /* ps */
};

struct grp {
	bool used, active;     /* a collective needs it; groups of 2+ GPUs */
	uint32_t size, n;      /* GPUs per group, groups per stage */
	uint32_t *g_w_off, *g_w; /* workers (dp) of each group */
	uint32_t *w_g_off, *w_g; /* groups holding each worker's GPUs */
	uint32_t *gid;         /* engine group of (stage, group): stage * n + group */
	uint32_t multi;        /* workers whose GPUs are in two groups or more */
};

struct simai_state {
	char path[4096];
	uint32_t policy_tok;   /* index into simai_policies */
	int policy;
	uint64_t hval[HKEYS];
	bool hset[HKEYS];
	uint64_t ckpt_max;     /* largest layer index the checkpoint lists name */
	bool have_ckpt;
	uint32_t header_line;
	struct layer *layers;
	uint32_t n_layers;
	char *names;           /* the layers' names, each ended by a NUL */
	uint64_t n_names, cap_names;
	uint32_t ignored;      /* lines after the declared layers */
	uint64_t declared;     /* the layer count of the second line */
	uint32_t count_line;   /* its line */

	uint32_t gpus, TP, DP, PP, EP, M, W;
	uint64_t pp_bytes;
	struct grp grp[GROUPINGS];
	uint32_t *pp_gid;      /* ((b DP + dp) TP + tp) 2 + dir, b = boundary s|s+1 */
	uint32_t *tail;        /* per worker: the last task of its stream */
	uint32_t *wgid;        /* per worker: the group of its GPUs (its compute's) */
	uint32_t *sr;          /* send-recv tasks of the DAG being built */
	uint32_t *ctask;       /* per group: the collective being emitted */
	struct coll_engine *eng;

	/* the compact DAG: where each stage's schedule is (docs/workloads.md) */
	bool compact;
	struct cursor *cur;    /* [PP] */
	uint32_t *stage_base;  /* [PP]: the id of the stage's first task */
	uint8_t *sr_held;      /* [n_sr]: added by its receiver, its sender's wait not yet */
	ws_time *sr_fin;       /* [n_sr]: SR_DONE: its compute-bound finish */
	uint64_t n_sr;
	uint32_t stages_left;
	uint64_t est_live;     /* tasks in flight, at most (the memory estimate) */
	uint64_t n_tasks;      /* an iteration's tasks, as counted */
};

#define SR_STAGE UINT32_MAX /* the stage coll_mark gives pipeline transfers */
#define SR_DONE (COLL_NONE - 1) /* a pipeline transfer done before its receiver waits */

/* One stage's place in its schedule: units are numbered step = seg (L + 2)
 * + sub, seg the 1F1B slot (forward or backward of a micro-batch), sub 0
 * the wait for the pipeline transfer, 1..L the layers, L+1 the send; the
 * last unit (seg = 2M) the final delay. */
struct cursor {
	uint32_t seg, sub, step;
	uint32_t tail_step;    /* the unit that made the stage's stream tails */
	uint32_t next_id;
	ws_time pending;
	uint32_t ctx_layer;
	uint8_t ctx_phase;
	bool done;
	uint64_t max_unit;     /* counting: the most tasks one unit adds */
	uint64_t offstream;    /* counting: tasks of the last backward off the stream */
};

/* ---- parsing ------------------------------------------------------------- */

/* ns to ps, scaled; false when it leaves the clock's range */
static bool simai_ps(uint64_t ns, double scale, ws_time *out)
{
	if (scale == 1.0) {
		if (ns > SIMAI_MAX_TIME / 1000)
			return false;
		*out = ns * 1000;
		return true;
	}
	double v = (double)ns * 1000.0 * scale + 0.5;
	if (!(v < (double)SIMAI_MAX_TIME))
		return false;
	*out = (ws_time)v;
	return true;
}

/* bytes, scaled: a collective of a nonzero size keeps at least one byte */
static bool simai_bytes(uint64_t b, double scale, uint64_t *out)
{
	if (b > SIMAI_MAX_BYTES)
		return false;
	if (scale == 1.0 || b == 0) {
		*out = b;
		return true;
	}
	double v = (double)b * scale + 0.5;
	if (!(v <= (double)SIMAI_MAX_BYTES))
		return false;
	*out = v < 1 ? 1 : (uint64_t)v;
	return true;
}

static const char *const base_types[] = { "ALLREDUCE", "ALLGATHER", "REDUCESCATTER",
					  "ALLTOALL" };
static const uint8_t base_kinds[] = { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER,
				      COLL_ALLTOALL };

/* The spellings SimAI's parser maps to a collective and a group (a suffix it
 * does not know leaves SimAI without a group); false if unknown. */
static bool simai_type(const char *t, struct col *c)
{
	c->suffix = SUF_NONE;
	if (!strcmp(t, "NONE") || !strcmp(t, "BROADCAST")) {
		c->kind = KIND_NONE;
		return true;
	}
	for (size_t i = 0; i < sizeof base_types / sizeof base_types[0]; i++) {
		size_t l = strlen(base_types[i]);
		if (strncmp(t, base_types[i], l))
			continue;
		c->kind = base_kinds[i];
		if (!t[l])
			return true;
		if (!strcmp(t + l, "_EP")) {
			c->suffix = SUF_EP;
			return true;
		}
		if (!strcmp(t + l, "_DP_EP")) {
			c->suffix = SUF_DP_EP;
			return true;
		}
		return false;
	}
	return false;
}

static const char *const field_names[SIMAI_FIELDS] = {
	"name", "dependency", "fwd_compute_ns", "fwd_type", "fwd_bytes",
	"ig_compute_ns", "ig_type", "ig_bytes", "wg_compute_ns", "wg_type",
	"wg_bytes", "update_ns",
};

static int simai_bad_number(struct ws_err *err, const char *path, uint32_t line,
			    int f, const char *tok)
{
	return ws_err_at(err, WS_EINVAL, path, (int)line, "bad %s '%s' (%s)",
			 field_names[f], tok, tok[0] == '-' ?
			 "a negative number; expected a non-negative integer" :
			 "expected a non-negative integer");
}

/* A time field: ns, scaled to ps. */
static int simai_time_field(char **tok, int f, const char *path, uint32_t line,
			    double scale, ws_time *out, struct ws_err *err)
{
	uint64_t ns;
	if (!ws_text_u64(tok[f], &ns))
		return simai_bad_number(err, path, line, f, tok[f]);
	if (!simai_ps(ns, scale, out))
		return ws_err_at(err, WS_EINVAL, path, (int)line, "%s %s is too large "
				 "for the simulated clock (after compute_scale)",
				 field_names[f], tok[f]);
	return WS_OK;
}

static int simai_layer(char *buf, const char *path, uint32_t line,
		       const struct simai_conf *c, struct layer *l,
		       struct ws_err *err)
{
	char *tok[SIMAI_FIELDS + 1];
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, " \t\r\n", &save); t && n <= SIMAI_FIELDS;
	     t = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = t;
	if (n != SIMAI_FIELDS)
		return ws_err_at(err, WS_EINVAL, path, (int)line, "%s (found %d field%s; "
				 "expected 12: name dependency fwd_compute_ns fwd_type "
				 "fwd_bytes ig_compute_ns ig_type ig_bytes wg_compute_ns "
				 "wg_type wg_bytes update_ns)",
				 n > SIMAI_FIELDS ? "too many fields" : "too few fields",
				 n, n == 1 ? "" : "s");
	/* the dependency placeholder: an integer (generated files write -1) */
	uint64_t v;
	if (!ws_text_u64(tok[1][0] == '-' ? tok[1] + 1 : tok[1], &v))
		return ws_err_at(err, WS_EINVAL, path, (int)line, "bad dependency '%s' "
				 "(expected an integer; generated files write -1)", tok[1]);
	for (int p = 0; p < PHASES; p++) {
		struct col *cl = &l->ph[p];
		int f = 2 + 3 * p;
		int rc = simai_time_field(tok, f, path, line, c->compute_scale,
					  &cl->compute, err);
		if (rc)
			return rc;
		if (!simai_type(tok[f + 1], cl))
			return ws_err_at(err, WS_EINVAL, path, (int)line,
					 "unknown collective type '%s' in %s (expected NONE, "
					 "BROADCAST, or ALLREDUCE, ALLGATHER, REDUCESCATTER or "
					 "ALLTOALL, each optionally with _EP or _DP_EP)",
					 tok[f + 1], field_names[f + 1]);
		if (!ws_text_u64(tok[f + 2], &v))
			return simai_bad_number(err, path, line, f + 2, tok[f + 2]);
		if (!simai_bytes(v, c->comm_scale, &cl->bytes))
			return ws_err_at(err, WS_EINVAL, path, (int)line, "%s %s x "
					 "comm_scale %g = %.4g bytes is too large (at "
					 "most 2^50)", field_names[f + 2], tok[f + 2],
					 c->comm_scale, (double)v * c->comm_scale);
	}
	return simai_time_field(tok, 11, path, line, c->compute_scale, &l->update, err);
}

/* "checkpoints: K l1 .. lK": layer indices, kept only to be checked */
static int simai_ckpt_list(struct simai_state *s, const char *key, uint64_t k,
			   char **save, uint32_t line, struct ws_err *err)
{
	for (uint64_t i = 0; i < k; i++) {
		char *t = strtok_r(NULL, " \t\r\n", save);
		uint64_t v;
		if (!t)
			return ws_err_at(err, WS_EINVAL, s->path, (int)line, "header key "
					 "'%s' announces %" PRIu64 " layer%s but lists %" PRIu64,
					 key, k, k == 1 ? "" : "s", i);
		if (!ws_text_u64(t, &v))
			return ws_err_at(err, WS_EINVAL, s->path, (int)line, "bad layer "
					 "index '%s' after header key '%s' (expected a "
					 "non-negative integer)", t, key);
		if (!s->have_ckpt || v > s->ckpt_max)
			s->ckpt_max = v;
		s->have_ckpt = true;
	}
	return WS_OK;
}

static int simai_header(struct simai_state *s, char *buf, uint32_t line,
			struct ws_err *err)
{
	char *save = NULL;
	char *t = strtok_r(buf, " \t\r\n", &save);
	if (!t) /* a line of other white space */
		return ws_err_at(err, WS_EINVAL, s->path, (int)line, "expected a policy "
				 "(" SIMAI_SUPPORTED ")");
	size_t np = sizeof simai_policies / sizeof simai_policies[0];
	s->policy_tok = (uint32_t)np;
	for (size_t i = 0; i < np; i++)
		if (!strcmp(t, simai_policies[i].token))
			s->policy_tok = (uint32_t)i;
	if (s->policy_tok == np)
		return ws_err_at(err, WS_EINVAL, s->path, (int)line, "unknown policy '%s' "
				 "on the first line (expected " SIMAI_SUPPORTED ")", t);
	s->policy = simai_policies[s->policy_tok].policy;
	if (s->policy == POL_UNSUPPORTED)
		return ws_err_at(err, WS_EINVAL, s->path, (int)line, "policy '%s' is "
				 "SimAI's, but the simai workload does not model it "
				 "(supported: " SIMAI_SUPPORTED ")", t);
	while ((t = strtok_r(NULL, " \t\r\n", &save))) {
		int k = -1;
		for (int i = 0; i < HKEYS; i++)
			if (!strcmp(t, hkey_names[i]))
				k = i;
		if (k < 0 && !strcmp(t, "pp_comm")) /* SimAI takes both spellings */
			k = HK_PP_COMM;
		if (k < 0) {
			size_t l = strlen(t);
			for (int i = 0; i < HKEYS; i++)
				if (!strncmp(t, hkey_names[i], l) && !strcmp(hkey_names[i] + l, ":"))
					return ws_err_at(err, WS_EINVAL, s->path, (int)line,
							 "header key '%s' needs its colon ('%s')",
							 t, hkey_names[i]);
			return ws_err_at(err, WS_EINVAL, s->path, (int)line, "unknown header "
					 "key '%s' (expected model_parallel_NPU_group:, ep:, pp:, "
					 "vpp:, ga:, all_gpus:, checkpoints:, "
					 "checkpoint_initiates: or pp_comm:)", t);
		}
		const char *key = hkey_names[k];
		if (s->hset[k])
			return ws_err_at(err, WS_EINVAL, s->path, (int)line,
					 "header key '%s' appears twice", key);
		char *v = strtok_r(NULL, " \t\r\n", &save);
		uint64_t x;
		if (!v)
			return ws_err_at(err, WS_EINVAL, s->path, (int)line,
					 "header key '%s' has no value", key);
		if (!ws_text_u64(v, &x))
			return ws_err_at(err, WS_EINVAL, s->path, (int)line, "bad value '%s' "
					 "for header key '%s' (expected a non-negative integer)",
					 v, key);
		s->hset[k] = true;
		s->hval[k] = x;
		switch (k) {
		case HK_CKPT:
		case HK_CKPT_INIT: {
			int rc = simai_ckpt_list(s, key, x, &save, line, err);
			if (rc)
				return rc;
			break;
		}
		case HK_PP_COMM:
			if (x > SIMAI_MAX_BYTES)
				return ws_err_at(err, WS_EINVAL, s->path, (int)line, "header "
						 "key 'pp_comm:' %" PRIu64 " is too large (at most "
						 "2^50 bytes)", x);
			break;
		default:
			if (x < 1 || x > SIMAI_MAX_PAR)
				return ws_err_at(err, WS_EINVAL, s->path, (int)line, "header "
						 "key '%s' %" PRIu64 " is out of range (1 .. %u)",
						 key, x, SIMAI_MAX_PAR);
			break;
		}
	}
	return WS_OK;
}

/* The name of the layer just read (its line's first field). */
static int simai_keep_name(struct simai_state *s, const char *name, struct ws_err *err)
{
	size_t l = strlen(name) + 1;
	if (s->n_names + l > s->cap_names) {
		uint64_t cap = s->cap_names ? 2 * s->cap_names : 4096;
		while (cap < s->n_names + l)
			cap *= 2;
		char *p = realloc(s->names, cap);
		if (!p)
			return ws_err_set(err, WS_ENOMEM, "out of memory for the layer names");
		s->names = p;
		s->cap_names = cap;
	}
	memcpy(s->names + s->n_names, name, l);
	s->n_names += l;
	return WS_OK;
}

/* Read and check the whole file; errors name its line. */
static int simai_read(struct simai_state *s, const struct simai_conf *c,
		      struct ws_err *err)
{
	FILE *f = fopen(s->path, "r");
	if (!f)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EIO, s->path, 0,
				 "cannot open the SimAI workload: %s", strerror(errno));
	char *buf = NULL;
	size_t cap = 0;
	uint32_t count_line = 0;
	int lineno = 0;
	uint64_t declared = 0;
	int rc = WS_OK;
	while ((rc = ws_text_line(f, &buf, &cap, WS_TEXT_LINE_MAX, s->path, &lineno,
				  err)) == 1) {
		rc = WS_OK;
		if (ws_text_blank(buf))
			continue;
		if (!s->header_line) {
			s->header_line = lineno;
			rc = simai_header(s, buf, lineno, err);
			if (rc)
				break;
			continue;
		}
		if (!count_line) {
			char *tok[2];
			int n = 0;
			char *save = NULL;
			for (char *t = strtok_r(buf, " \t\r\n", &save); t && n < 2;
			     t = strtok_r(NULL, " \t\r\n", &save))
				tok[n++] = t;
			if (n != 1 || !ws_text_u64(tok[0], &declared) || declared < 1 ||
			    declared > 10000000) {
				rc = ws_err_at(err, WS_EINVAL, s->path, (int)lineno, "the line "
					       "after the header must be the number of layer "
					       "lines (an integer from 1 to 10^7)");
				break;
			}
			count_line = lineno;
			s->layers = calloc(declared, sizeof *s->layers);
			if (!s->layers) {
				rc = ws_err_set(err, WS_ENOMEM, "out of memory for %" PRIu64
						" layers", declared);
				break;
			}
			continue;
		}
		if (s->n_layers == declared) {
			s->ignored++;
			continue;
		}
		rc = simai_layer(buf, s->path, (uint32_t)lineno, c, &s->layers[s->n_layers], err);
		if (rc)
			break;
		rc = simai_keep_name(s, buf + strspn(buf, " \t"), err);
		if (rc)
			break;
		s->n_layers++;
	}
	free(buf);
	fclose(f);
	if (rc)
		return rc;
	if (!s->header_line)
		return ws_err_at(err, WS_EINVAL, s->path, 0, "empty SimAI workload "
				 "(expected a policy line, e.g. HYBRID_TRANSFORMER_FWD_IN_BCKWD "
				 "model_parallel_NPU_group: 8)");
	if (!count_line)
		return ws_err_at(err, WS_EINVAL, s->path, (int)s->header_line, "the file "
				 "ends after its header (expected the number of layer lines "
				 "on the next line)");
	s->declared = declared;
	s->count_line = count_line;
	if (s->n_layers < declared && (c->strict || !s->n_layers))
		return ws_err_at(err, WS_EINVAL, s->path, (int)count_line, "the file "
				 "declares %" PRIu64 " layers but has %u layer line%s after this "
				 "one%s", declared, s->n_layers, s->n_layers == 1 ? "" : "s",
				 s->n_layers ? " ([workload] strict = true)" : "");
	return WS_OK;
}

/* ---- the parallelism and the groups --------------------------------------- */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static int simai_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The group a phase's collective runs on, or -1: none under this policy. */
static int simai_grouping(int policy, int phase, int suffix)
{
	if (policy == POL_MICRO)
		return phase == PH_WG ? GR_DP : -1;
	if (policy == POL_DATA && phase != PH_WG)
		return -1;
	if (suffix == SUF_EP)
		return GR_EP;
	if (suffix == SUF_DP_EP)
		return GR_DP_EP;
	return phase == PH_WG ? GR_DP : GR_TP;
}

/* Member i of group gi of a grouping, as (tp, dp) within a stage. */
static void simai_member(const struct simai_state *s, int k, uint32_t gi,
			 uint32_t i, uint32_t *tp, uint32_t *dp)
{
	uint32_t j;
	switch (k) {
	case GR_TP:
		*tp = i;
		*dp = gi;
		return;
	case GR_DP:
		*tp = gi;
		*dp = i;
		return;
	case GR_EP: /* EP consecutive ranks, dp fastest */
		j = gi * s->EP + i;
		break;
	default:    /* GR_DP_EP: the same place in every expert group */
		j = gi + s->EP * i;
		break;
	}
	*dp = j % s->DP;
	*tp = j / s->DP;
}

static uint32_t simai_gpu(const struct simai_state *s, uint32_t tp, uint32_t dp,
			  uint32_t stage)
{
	return tp + s->TP * (dp + s->DP * stage);
}

/* The GPUs used, in *G: gpus =, else the file's all_gpus:, else every
 * host; checked against the fabric and each other. */
static int simai_shape_gpus(const struct simai_state *s, const struct simai_conf *c,
			    const struct ws_fabric *fab, uint64_t *G, struct ws_err *err)
{
	const char *path = s->path;
	int hl = (int)s->header_line;
	uint32_t hosts = fab->n_hosts;
	bool has_all = s->hset[HK_ALL_GPUS];
	uint64_t all = s->hval[HK_ALL_GPUS];
	if (has_all && all > hosts)
		return ws_err_at(err, WS_EINVAL, path, hl, "all_gpus: %" PRIu64 " is more "
				 "GPUs than the fabric has hosts (%u)", all, hosts);
	if (c->gpus > hosts) {
		ws_err_key(err, WS_EINVAL, "gpus", "gpus = %" PRIu64 ", but the fabric "
			   "has %u hosts", c->gpus, hosts);
		return WS_EINVAL;
	}
	if (c->gpus && has_all && c->gpus != all)
		return ws_err_at(err, WS_EINVAL, path, hl, "all_gpus: %" PRIu64 " differs "
				 "from gpus = %" PRIu64 " (leave gpus = 0 to use the file's)",
				 all, c->gpus);
	*G = c->gpus ? c->gpus : has_all ? all : hosts;
	if (*G > SIMAI_MAX_PAR)
		return ws_err_set(err, WS_EINVAL, "%" PRIu64 " GPUs: at most %u", *G,
				  SIMAI_MAX_PAR);
	return WS_OK;
}

/* The parallelism on G GPUs (TP, PP, DP, EP, micro-batches, workers) from
 * the file's header, checked against its policy and layers. */
static int simai_shape_parallelism(struct simai_state *s, uint64_t G, struct ws_err *err)
{
	const char *path = s->path;
	int hl = (int)s->header_line;
	uint64_t TP = s->hset[HK_TP] ? s->hval[HK_TP] : 1;
	uint64_t PP = s->hset[HK_PP] ? s->hval[HK_PP] : 1;
	uint64_t EP = s->hset[HK_EP] ? s->hval[HK_EP] : 1;
	uint64_t GA = s->hset[HK_GA] ? s->hval[HK_GA] : 1;
	const char *pol = simai_policies[s->policy_tok].token;
	if (s->policy != POL_TRANSFORMER && (TP != 1 || PP != 1))
		return ws_err_at(err, WS_EINVAL, path, hl, "the %s policy is pure data "
				 "parallelism: model_parallel_NPU_group: and pp: must be 1",
				 pol);
	if (s->policy == POL_MICRO && EP != 1)
		return ws_err_at(err, WS_EINVAL, path, hl, "the MICRO policy runs each "
				 "collective once on every GPU: ep: must be 1");
	if (G % (TP * PP))
		return ws_err_at(err, WS_EINVAL, path, hl, "model_parallel_NPU_group: %"
				 PRIu64 " x pp: %" PRIu64 " = %" PRIu64 " does not divide the "
				 "%" PRIu64 " GPUs used", TP, PP, TP * PP, G);
	uint64_t DP = G / (TP * PP);
	if ((DP * TP) % EP)
		return ws_err_at(err, WS_EINVAL, path, hl, "ep: %" PRIu64 " does not divide "
				 "DP x TP = %" PRIu64 " x %" PRIu64 " = %" PRIu64 " (the expert "
				 "groups split the GPUs of a pipeline stage)", EP, DP, TP, DP * TP);
	if (s->have_ckpt && s->ckpt_max >= s->n_layers)
		return ws_err_at(err, WS_EINVAL, path, hl, "checkpoints: layer %" PRIu64
				 " does not exist (the file has layers 0..%u)", s->ckpt_max,
				 s->n_layers - 1);
	s->gpus = (uint32_t)G;
	s->TP = (uint32_t)TP;
	s->PP = (uint32_t)PP;
	s->DP = (uint32_t)DP;
	s->EP = (uint32_t)EP;
	/* AICB unrolls the ga micro-batches into the lines and SimAI runs the
	 * lines once per pass: ga never multiplies the work.  pp > 1: the
	 * lines are cut into ga slices, the micro-batches of the pipeline */
	s->M = PP == 1 ? 1 : (uint32_t)(GA < s->n_layers ? GA : s->n_layers);
	s->W = s->DP * s->PP;
	return WS_OK;
}

/* Marks the groupings the file's collectives use; *per_mb: ps of the
 * lines of a worker run once (an iteration), roughly; *work: some compute time; *ar_count:
 * the forward all-reduces without suffix. */
static void simai_scan_layers(struct simai_state *s, uint64_t *per_mb, bool *work,
			      uint64_t *ar_count)
{
	*per_mb = 0;
	*work = false;
	*ar_count = 0;
	for (uint32_t i = 0; i < s->n_layers; i++) {
		const struct layer *l = &s->layers[i];
		for (int p = 0; p < PHASES; p++) {
			const struct col *cl = &l->ph[p];
			if (s->policy != POL_MICRO) {
				*per_mb = sat_add(*per_mb, cl->compute);
				*work |= cl->compute > 0;
			}
			int k = simai_grouping(s->policy, p, cl->suffix);
			if (k < 0 || cl->kind == KIND_NONE || !cl->bytes)
				continue;
			s->grp[k].used = true;
			*per_mb = sat_add(*per_mb, l->update);
			if (p == PH_FWD && cl->kind == COLL_ALLREDUCE && cl->suffix == SUF_NONE)
				(*ar_count)++;
		}
	}
}

/* The size and number of the groups of each grouping; true when some
 * grouping is active (used, with groups of two GPUs or more). */
static bool simai_size_groups(struct simai_state *s)
{
	bool active = false;
	uint32_t stage_gpus = s->TP * s->DP;
	uint32_t size[GROUPINGS] = { s->TP, s->DP, s->EP, stage_gpus / s->EP };
	uint32_t n[GROUPINGS] = { s->DP, s->TP, stage_gpus / s->EP, s->EP };
	for (int k = 0; k < GROUPINGS; k++) {
		s->grp[k].size = size[k];
		s->grp[k].n = n[k];
		s->grp[k].active = s->grp[k].used && size[k] > 1;
		active |= s->grp[k].active;
	}
	return active;
}

/* The most common size of the ar_count forward TP all-reduces: the
 * activation every Megatron layer reduces (ties: the larger). */
static int simai_activation_bytes(const struct simai_state *s, uint64_t ar_count,
				  uint64_t *bytes, struct ws_err *err)
{
	uint64_t *v = malloc(ar_count * sizeof *v);
	if (!v)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	uint64_t m = 0;
	for (uint32_t i = 0; i < s->n_layers; i++) {
		const struct col *cl = &s->layers[i].ph[PH_FWD];
		if (cl->kind == COLL_ALLREDUCE && cl->suffix == SUF_NONE &&
		    cl->bytes)
			v[m++] = cl->bytes;
	}
	qsort(v, m, sizeof *v, simai_cmp_u64);
	uint64_t best = 0, best_n = 0;
	for (uint64_t i = 0, j; i < m; i = j) {
		for (j = i; j < m && v[j] == v[i]; j++)
			;
		if (j - i >= best_n) { /* sorted: a tie goes to the larger */
			best = v[i];
			best_n = j - i;
		}
	}
	free(v);
	*bytes = best;
	return WS_OK;
}

/* The bytes of one activation send between pipeline stages (PP > 1):
 * pp_comm:, else the activation size the forward all-reduces show. */
static int simai_pp_bytes(struct simai_state *s, const struct simai_conf *c,
			  uint64_t ar_count, struct ws_err *err)
{
	const char *path = s->path;
	int hl = (int)s->header_line;
	if (s->hset[HK_PP_COMM]) {
		if (!simai_bytes(s->hval[HK_PP_COMM], c->comm_scale, &s->pp_bytes))
			return ws_err_at(err, WS_EINVAL, path, hl, "pp_comm: %" PRIu64
					 " x comm_scale %g = %.4g bytes is too large (at "
					 "most 2^50)", s->hval[HK_PP_COMM], c->comm_scale,
					 (double)s->hval[HK_PP_COMM] * c->comm_scale);
		return WS_OK;
	}
	if (!ar_count)
		return ws_err_at(err, WS_EINVAL, path, hl, "pp: %u needs pp_comm: "
				 "(the bytes of one activation send): the file has no "
				 "forward all-reduce to take the activation size from",
				 s->PP);
	return simai_activation_bytes(s, ar_count, &s->pp_bytes, err);
}

/* Refuses an iteration whose DAG cannot fit, or whose compute time would
 * overflow the simulated clock (per_mb: ps of a stage's lines, once). */
static int simai_check_size(const struct simai_state *s, const struct simai_conf *c,
			    uint64_t per_mb, struct ws_err *err)
{
	const char *path = s->path;
	int hl = (int)s->header_line;
	/* the DAG of an iteration is built whole: refuse one that cannot fit
	 * (about 4 tasks per layer and worker) */
	uint64_t tasks = s->policy == POL_MICRO ? 2ull * s->n_layers :
			 sat_mul(sat_mul(s->W, s->n_layers), 4);
	bool compact = s->policy != POL_MICRO && c->dag == DAG_COMPACT;
	if (!compact && tasks > (1u << 27))
		return ws_err_at(err, WS_EINVAL, path, hl, "an iteration of %u workers x "
				 "%u layers is about %" PRIu64 " tasks, more than 2^27 (fewer "
				 "GPUs, or dag = compact)", s->W, s->n_layers, tasks);
	/* the compact DAG numbers units and tasks in 32 bits */
	if (compact && 2ull * s->n_layers + 4ull * s->M + 1 >= UINT32_MAX)
		return ws_err_at(err, WS_EINVAL, path, hl, "%u layers are too many steps "
				 "for the compact DAG (at most 2^32)", s->n_layers);
	/* every stage's lines in turn bound an iteration's compute (a stage
	 * runs the lines once; its slices wait at most for the other stages) */
	uint64_t run = sat_mul(sat_mul(per_mb, (uint64_t)s->PP + 1), c->iterations);
	if (run >= SIMAI_MAX_TIME)
		return ws_err_at(err, WS_EINVAL, path, 0, "the compute time of %" PRIu64
				 " iteration%s overflows the simulated clock (53 days)",
				 c->iterations, c->iterations == 1 ? "" : "s");
	return WS_OK;
}

/* GPU count, TP x DP x PP, EP, and the checks tying them to the fabric. */
static int simai_shape(struct simai_state *s, const struct simai_conf *c,
		       const struct ws_fabric *fab, struct ws_err *err)
{
	uint64_t G = 0, per_mb, ar_count;
	bool work;
	int rc = simai_shape_gpus(s, c, fab, &G, err);
	if (rc)
		return rc;
	rc = simai_shape_parallelism(s, G, err);
	if (rc)
		return rc;
	/* the groups the file's collectives need, and the work there is */
	simai_scan_layers(s, &per_mb, &work, &ar_count);
	work |= simai_size_groups(s);
	s->pp_bytes = 0;
	if (s->PP > 1) {
		work = true;
		rc = simai_pp_bytes(s, c, ar_count, err);
		if (rc)
			return rc;
	}
	if (!work)
		return ws_err_at(err, WS_EINVAL, s->path, 0, "nothing to simulate: no compute "
				 "time and no collective the %s policy runs",
				 simai_policies[s->policy_tok].token);
	return simai_check_size(s, c, per_mb, err);
}

/* A grouping's groups in every stage, and who waits for whom in it. */
static int simai_make_groups(struct simai_state *s, int k, uint32_t *buf,
			     uint32_t *stamp, struct ws_err *err)
{
	struct grp *g = &s->grp[k];
	uint64_t cells = (uint64_t)g->n * g->size;
	g->g_w_off = malloc(((uint64_t)g->n + 1) * sizeof *g->g_w_off);
	g->g_w = malloc(cells * sizeof *g->g_w);
	g->w_g_off = calloc((uint64_t)s->DP + 1, sizeof *g->w_g_off);
	g->w_g = malloc(cells * sizeof *g->w_g);
	g->gid = malloc((uint64_t)s->PP * g->n * sizeof *g->gid);
	if (!g->g_w_off || !g->g_w || !g->w_g_off || !g->w_g || !g->gid)
		return ws_err_set(err, WS_ENOMEM, "out of memory for the %s groups",
				  grouping_labels[k]);
	/* the distinct workers of each group, and how many groups each is in */
	for (uint32_t dp = 0; dp < s->DP; dp++)
		stamp[dp] = UINT32_MAX;
	uint32_t cnt = 0;
	for (uint32_t gi = 0; gi < g->n; gi++) {
		g->g_w_off[gi] = cnt;
		for (uint32_t i = 0; i < g->size; i++) {
			uint32_t tp, dp;
			simai_member(s, k, gi, i, &tp, &dp);
			if (stamp[dp] == gi)
				continue;
			stamp[dp] = gi;
			g->g_w[cnt++] = dp;
			g->w_g_off[dp + 1]++;
		}
	}
	g->g_w_off[g->n] = cnt;
	g->multi = 0;
	for (uint32_t dp = 0; dp < s->DP; dp++) {
		g->multi += g->w_g_off[dp + 1] > 1;
		g->w_g_off[dp + 1] += g->w_g_off[dp];
		stamp[dp] = g->w_g_off[dp];
	}
	for (uint32_t gi = 0; gi < g->n; gi++)
		for (uint32_t x = g->g_w_off[gi]; x < g->g_w_off[gi + 1]; x++)
			g->w_g[stamp[g->g_w[x]]++] = gi;
	for (uint32_t st = 0; st < s->PP; st++)
		for (uint32_t gi = 0; gi < g->n; gi++) {
			for (uint32_t i = 0; i < g->size; i++) {
				uint32_t tp, dp;
				simai_member(s, k, gi, i, &tp, &dp);
				buf[i] = simai_gpu(s, tp, dp, st);
			}
			uint32_t id = coll_group(s->eng, buf, g->size, grouping_labels[k], err);
			if (id == COLL_NONE)
				return err->code ? err->code : WS_EINVAL;
			coll_group_dim(s->eng, id, grouping_dims[k]);
			g->gid[st * g->n + gi] = id;
		}
	return WS_OK;
}

/* Each worker's GPUs, the group its compute runs on (labelled "tp": the TP
 * group of the worker when there is one). */
static int simai_worker_groups(struct simai_state *s, uint32_t *buf, struct ws_err *err)
{
	s->wgid = malloc((uint64_t)s->W * sizeof *s->wgid);
	if (!s->wgid)
		return ws_err_set(err, WS_ENOMEM, "out of memory for %u workers", s->W);
	for (uint32_t st = 0; st < s->PP; st++)
		for (uint32_t dp = 0; dp < s->DP; dp++) {
			for (uint32_t tp = 0; tp < s->TP; tp++)
				buf[tp] = simai_gpu(s, tp, dp, st);
			uint32_t id = coll_group(s->eng, buf, s->TP, "tp", err);
			if (id == COLL_NONE)
				return err->code ? err->code : WS_EINVAL;
			s->wgid[st * s->DP + dp] = id;
		}
	return WS_OK;
}

static int simai_groups(struct simai_state *s, struct ws_err *err)
{
	uint32_t maxn = 1;
	for (int k = 0; k < GROUPINGS; k++)
		if (s->grp[k].active && s->grp[k].n > maxn)
			maxn = s->grp[k].n;
	uint64_t n_sr = 2ull * (s->PP - 1) * s->M * s->DP * s->TP;
	if (n_sr > (1u << 30))
		return ws_err_at(err, WS_EINVAL, s->path, (int)s->header_line, "pp: %u "
				 "with ga: %u needs %" PRIu64 " pipeline transfers per "
				 "iteration (at most 2^30)", s->PP, s->M, n_sr);
	uint32_t *buf = malloc((uint64_t)s->gpus * sizeof *buf);
	uint32_t *stamp = malloc((uint64_t)s->DP * sizeof *stamp);
	s->tail = malloc((uint64_t)s->W * sizeof *s->tail);
	s->ctask = malloc((uint64_t)maxn * sizeof *s->ctask);
	int rc = WS_OK;
	if (!buf || !stamp || !s->tail || !s->ctask) {
		rc = ws_err_set(err, WS_ENOMEM, "out of memory for %u GPUs", s->gpus);
		goto out;
	}
	for (int k = 0; k < GROUPINGS && !rc; k++)
		if (s->grp[k].active)
			rc = simai_make_groups(s, k, buf, stamp, err);
	if (!rc)
		rc = simai_worker_groups(s, buf, err);
	if (rc || s->PP == 1)
		goto out;
	/* the pipeline's pairs: (s, s+1) forward, (s+1, s) backward */
	uint64_t n_pairs = (uint64_t)(s->PP - 1) * s->DP * s->TP;
	s->pp_gid = malloc(2 * n_pairs * sizeof *s->pp_gid);
	s->sr = malloc(n_sr * sizeof *s->sr);
	if (!s->pp_gid || !s->sr) {
		rc = ws_err_set(err, WS_ENOMEM, "out of memory for the pipeline");
		goto out;
	}
	for (uint32_t b = 0; b + 1 < s->PP; b++)
		for (uint32_t dp = 0; dp < s->DP; dp++)
			for (uint32_t tp = 0; tp < s->TP; tp++) {
				uint64_t x = (((uint64_t)b * s->DP + dp) * s->TP + tp) * 2;
				for (int dir = 0; dir < 2; dir++) {
					buf[dir] = simai_gpu(s, tp, dp, b);
					buf[!dir] = simai_gpu(s, tp, dp, b + 1);
					uint32_t id = coll_group(s->eng, buf, 2, "pp", err);
					if (id == COLL_NONE) {
						rc = err->code ? err->code : WS_EINVAL;
						goto out;
					}
					coll_group_dim(s->eng, id, COLL_DIM_PP);
					s->pp_gid[x + dir] = id;
				}
			}
out:
	free(buf);
	free(stamp);
	return rc;
}

/* ---- the DAG of an iteration ---------------------------------------------- */

struct bctx {
	struct simai_state *s;
	struct coll_engine *e;
	struct ws_err *err;
	/* the update delay after the stage's last blocking collective, not yet
	 * on the streams: it is added to the next compute (one task, not two) */
	ws_time pending;
	bool counting;          /* numbering the compact DAG: no pipeline transfer */
	uint32_t stage, step;   /* the unit being added (compact DAG) */
};

static int simai_fail(struct bctx *b)
{
	return b->err->code ? b->err->code : WS_ENOMEM;
}

/* Every worker of a stage computes for `dur` (after the pending delay). */
/* Counting: n tasks of a kind; `tails`: they are the stage's new stream
 * tails (one tail stands for all: the workers of a stage move together). */
static int count_tasks(struct bctx *b, uint32_t stage, enum coll_count kind, uint64_t n,
		       bool tails)
{
	coll_count_add(b->e, kind, n);
	if (tails && n)
		b->s->tail[stage * b->s->DP] = coll_peek_id(b->e) - 1;
	return WS_OK;
}

static int emit_compute(struct bctx *b, uint32_t stage, ws_time dur)
{
	struct simai_state *s = b->s;
	dur += b->pending;
	b->pending = 0;
	if (!dur)
		return WS_OK;
	if (b->counting) /* the same tasks, numbered in one step */
		return count_tasks(b, stage, COLL_COUNT_COMPUTE, s->DP, true);
	for (uint32_t dp = 0; dp < s->DP; dp++) {
		uint32_t w = stage * s->DP + dp;
		uint32_t t = coll_compute(b->e, dur, b->err);
		if (t == COLL_NONE || coll_dep(b->e, s->tail[w], t, b->err))
			return simai_fail(b);
		coll_compute_on(b->e, t, s->wgid[w]);
		s->tail[w] = t;
	}
	return WS_OK;
}

/* The streams take the pending delay now. */
static int flush(struct bctx *b, uint32_t stage)
{
	return emit_compute(b, stage, 0);
}

/*
 * One phase's collective in every group of a stage: each starts when the
 * workers holding its GPUs reach it; blocking, a worker resumes when the
 * collectives holding its GPUs are done, `update` later (SimAI's delay
 * after a collective); not blocking, the update follows each collective
 * off the stream.
 */
static int emit_comm(struct bctx *b, uint32_t stage, int k, const struct col *cl,
		     ws_time update, bool blocking)
{
	struct simai_state *s = b->s;
	const struct grp *g = &s->grp[k];
	if (!g->active || cl->kind == KIND_NONE || !cl->bytes)
		return WS_OK;
	int rc = flush(b, stage);
	if (rc)
		return rc;
	if (b->counting) {
		count_tasks(b, stage, COLL_COUNT_COLL, g->n, blocking && g->multi == 0);
		if (!blocking)
			return count_tasks(b, stage, COLL_COUNT_COMPUTE, update ? g->n : 0, false);
		count_tasks(b, stage, COLL_COUNT_JOIN, g->multi, true);
		b->pending = update;
		return WS_OK;
	}
	uint32_t base = stage * s->DP;
	for (uint32_t gi = 0; gi < g->n; gi++) {
		uint32_t t = coll_collective(b->e, g->gid[stage * g->n + gi],
					     (enum coll_kind)cl->kind, cl->bytes, b->err);
		if (t == COLL_NONE)
			return simai_fail(b);
		for (uint32_t x = g->g_w_off[gi]; x < g->g_w_off[gi + 1]; x++)
			if (coll_dep(b->e, s->tail[base + g->g_w[x]], t, b->err))
				return simai_fail(b);
		s->ctask[gi] = t;
		if (!blocking && update) {
			uint32_t u = coll_compute(b->e, update, b->err);
			if (u == COLL_NONE || coll_dep(b->e, t, u, b->err))
				return simai_fail(b);
		}
	}
	if (!blocking)
		return WS_OK;
	for (uint32_t dp = 0; dp < s->DP; dp++) {
		uint32_t lo = g->w_g_off[dp], hi = g->w_g_off[dp + 1];
		if (hi - lo == 1) {
			s->tail[base + dp] = s->ctask[g->w_g[lo]];
			continue;
		}
		uint32_t post = coll_join(b->e, b->err);
		if (post == COLL_NONE)
			return simai_fail(b);
		for (uint32_t x = lo; x < hi; x++)
			if (coll_dep(b->e, s->ctask[g->w_g[x]], post, b->err))
				return simai_fail(b);
		s->tail[base + dp] = post;
	}
	b->pending = update;
	return WS_OK;
}

static uint64_t sr_index(const struct simai_state *s, uint32_t bnd, uint32_t m,
			 uint32_t dp, uint32_t tp, int dir)
{
	return ((((uint64_t)bnd * s->M + m) * s->DP + dp) * s->TP + tp) * 2 + (uint64_t)dir;
}

/*
 * Pipeline transfer x (sr_index): in the whole DAG all are added first;
 * in the compact one when a unit first names it, with its id, its context
 * and no stage of its own.  One its receiver adds first is held until its
 * sender's dependency is there; one done before its receiver's wait is
 * added is SR_DONE.  Counting: none (they are counted apart).
 */
static uint32_t sr_task(struct bctx *b, uint64_t x, bool receiver)
{
	struct simai_state *s = b->s;
	if (!s->compact || s->sr[x] != COLL_NONE)
		return s->sr[x];
	uint32_t id = coll_peek_id(b->e), layer;
	uint8_t phase;
	coll_get_context(b->e, &layer, &phase);
	/* x = ((((bnd M + m) DP + dp) TP + tp) 2 + dir: the pair of (bnd, dp, tp);
	 * the whole build adds them in that order, first: x is its id */
	uint64_t pair = ((x / 2 / s->TP / s->DP / s->M) * s->DP + x / 2 / s->TP % s->DP) *
			s->TP + x / 2 % s->TP;
	coll_next_id(b->e, (uint32_t)x);
	coll_context(b->e, COLL_NONE, COLL_PH_PP);
	coll_mark(b->e, SR_STAGE, 0);
	uint32_t t = coll_collective(b->e, s->pp_gid[pair * 2 + x % 2], COLL_SENDRECV,
				     s->pp_bytes, b->err);
	coll_context(b->e, layer, (enum coll_phase)phase);
	coll_next_id(b->e, id);
	coll_mark(b->e, b->stage, b->step);
	if (t != COLL_NONE && receiver) {
		coll_hold(b->e, t);
		s->sr_held[x] = 1;
	}
	s->sr[x] = t;
	return t;
}

/* The workers of `stage` wait for the transfers of boundary bnd, dir. */
static int wait_sr(struct bctx *b, uint32_t stage, uint32_t bnd, uint32_t m, int dir)
{
	struct simai_state *s = b->s;
	int rc = flush(b, stage);
	if (rc)
		return rc;
	if (b->counting)
		return count_tasks(b, stage, COLL_COUNT_JOIN, s->DP, true);
	for (uint32_t dp = 0; dp < s->DP; dp++) {
		uint32_t w = stage * s->DP + dp;
		uint32_t j = coll_join(b->e, b->err);
		if (j == COLL_NONE || coll_dep(b->e, s->tail[w], j, b->err))
			return simai_fail(b);
		for (uint32_t tp = 0; tp < s->TP; tp++) {
			uint64_t x = sr_index(s, bnd, m, dp, tp, dir);
			uint32_t t = sr_task(b, x, true);
			if (t == SR_DONE) {
				/* it cannot be what releases the join: the stream
				 * before it is not done, or the wait would be here */
				coll_dep_done(b->e, j, s->sr_fin[x]);
				continue;
			}
			if (t == COLL_NONE || coll_dep(b->e, t, j, b->err))
				return simai_fail(b);
		}
		s->tail[w] = j;
	}
	return WS_OK;
}

/* The workers of `stage` send; their streams go on. */
static int send_sr(struct bctx *b, uint32_t stage, uint32_t bnd, uint32_t m, int dir)
{
	struct simai_state *s = b->s;
	int rc = flush(b, stage);
	if (rc || b->counting)
		return rc;
	for (uint32_t dp = 0; dp < s->DP; dp++)
		for (uint32_t tp = 0; tp < s->TP; tp++) {
			uint64_t x = sr_index(s, bnd, m, dp, tp, dir);
			uint32_t t = sr_task(b, x, false);
			if (t == COLL_NONE ||
			    coll_dep(b->e, s->tail[stage * s->DP + dp], t, b->err))
				return simai_fail(b);
			if (s->compact && s->sr_held[x]) {
				coll_release(b->e, t);
				s->sr_held[x] = 0;
			}
		}
	return WS_OK;
}

/* Forward: layer i of a stage. */
static int emit_forward_layer(struct bctx *b, uint32_t stage, uint32_t i)
{
	struct simai_state *s = b->s;
	const struct layer *l = &s->layers[i];
	const struct col *f = &l->ph[PH_FWD];
	coll_context(b->e, i, COLL_PH_FWD);
	int rc = emit_compute(b, stage, f->compute);
	int k = simai_grouping(s->policy, PH_FWD, f->suffix);
	if (!rc && k >= 0)
		rc = emit_comm(b, stage, k, f, l->update, true);
	return rc;
}

/* Backward: layer i of a stage (each line runs once an iteration, its
 * weight-gradient collective included). */
static int emit_backward_layer(struct bctx *b, uint32_t stage, uint32_t i)
{
	struct simai_state *s = b->s;
	const struct layer *l = &s->layers[i];
	const struct col *ig = &l->ph[PH_IG], *wg = &l->ph[PH_WG];
	int kw = simai_grouping(s->policy, PH_WG, wg->suffix);
	int rc;
	if (s->policy == POL_DATA) {
		/* SimAI's data-parallel loop: weight gradient first, and no
		 * input gradient for the first layer */
		coll_context(b->e, i, COLL_PH_WG);
		rc = emit_compute(b, stage, wg->compute);
		if (!rc)
			rc = emit_comm(b, stage, kw, wg, l->update, false);
		coll_context(b->e, i, COLL_PH_IG);
		if (!rc && i > 0)
			rc = emit_compute(b, stage, ig->compute);
		return rc;
	}
	int ki = simai_grouping(s->policy, PH_IG, ig->suffix);
	coll_context(b->e, i, COLL_PH_IG);
	rc = emit_compute(b, stage, ig->compute);
	if (!rc)
		rc = emit_comm(b, stage, ki, ig, l->update, true);
	coll_context(b->e, i, COLL_PH_WG);
	if (!rc)
		rc = emit_compute(b, stage, wg->compute);
	if (!rc)
		rc = emit_comm(b, stage, kw, wg, l->update, false);
	return rc;
}

/* Slot q of a stage's 1F1B schedule (Megatron's: warm-up forwards, then
 * one forward one backward, then the cool-down backwards; with pp = 1
 * simply F B F B ...): its micro-batch and direction. */
static void simai_slot(const struct simai_state *s, uint32_t stage, uint32_t q,
		       uint32_t *m, bool *fwd)
{
	uint32_t warm = s->PP - 1 - stage < s->M ? s->PP - 1 - stage : s->M;
	uint32_t steady = 2 * (s->M - warm);
	*fwd = q < warm || (q < warm + steady && (q - warm) % 2 == 0);
	if (q < warm)
		*m = q;
	else if (q < warm + steady)
		*m = *fwd ? warm + (q - warm) / 2 : (q - warm) / 2;
	else
		*m = s->M - warm + (q - warm - steady);
}

/* The first line of micro-batch m's slice (m = M: the line count). */
static uint32_t slice_first(const struct simai_state *s, uint32_t m)
{
	return (uint32_t)((uint64_t)m * s->n_layers / s->M);
}

/* Units in segment seg of a stage's schedule: the wait, its slice's
 * lines, the send; 1 for the final flush. */
static uint32_t seg_units(const struct simai_state *s, uint32_t stage, uint32_t seg)
{
	uint32_t m;
	bool fwd;
	if (seg == 2 * s->M)
		return 1;
	simai_slot(s, stage, seg, &m, &fwd);
	return slice_first(s, m + 1) - slice_first(s, m) + 2;
}

/* One unit of a stage's schedule (struct cursor). */
static int emit_unit(struct bctx *b, uint32_t stage, uint32_t seg, uint32_t sub)
{
	struct simai_state *s = b->s;
	uint32_t m;
	bool fwd;
	if (seg == 2 * s->M) {
		coll_context(b->e, COLL_NONE, COLL_PH_NONE);
		return flush(b, stage); /* the iteration waits for the last delay */
	}
	simai_slot(s, stage, seg, &m, &fwd);
	uint32_t lo = slice_first(s, m), hi = slice_first(s, m + 1);
	if (sub > 0 && sub <= hi - lo)
		return fwd ? emit_forward_layer(b, stage, lo + sub - 1) :
			     emit_backward_layer(b, stage, hi - sub);
	if (sub == 0) {
		if (fwd)
			return stage > 0 ? wait_sr(b, stage, stage - 1, m, 0) : WS_OK;
		return stage + 1 < s->PP ? wait_sr(b, stage, stage, m, 1) : WS_OK;
	}
	coll_context(b->e, COLL_NONE, COLL_PH_PP);
	if (fwd)
		return stage + 1 < s->PP ? send_sr(b, stage, stage, m, 0) : WS_OK;
	return stage > 0 ? send_sr(b, stage, stage - 1, m, 1) : WS_OK;
}

/* MICRO: the weight-gradient collectives on all GPUs, one after another. */
static int simai_build_micro(struct bctx *b)
{
	struct simai_state *s = b->s;
	uint32_t prev = COLL_NONE;
	for (uint32_t i = 0; i < s->n_layers; i++) {
		const struct layer *l = &s->layers[i];
		const struct col *cl = &l->ph[PH_WG];
		if (cl->kind == KIND_NONE || !cl->bytes)
			continue;
		coll_context(b->e, i, COLL_PH_WG);
		uint32_t t = coll_collective(b->e, s->grp[GR_DP].gid[0],
					     (enum coll_kind)cl->kind, cl->bytes, b->err);
		if (t == COLL_NONE || coll_dep(b->e, prev, t, b->err))
			return simai_fail(b);
		prev = t;
		if (l->update) {
			uint32_t u = coll_compute(b->e, l->update, b->err);
			if (u == COLL_NONE || coll_dep(b->e, prev, u, b->err))
				return simai_fail(b);
			prev = u;
		}
	}
	return WS_OK;
}

/* The whole DAG of an iteration, built at its start. */
static int simai_build_whole(struct bctx *b)
{
	struct simai_state *s = b->s;
	struct coll_engine *e = b->e;
	for (uint32_t w = 0; w < s->W; w++)
		s->tail[w] = COLL_NONE;
	/* the pipeline transfers first: a backward one is waited for by a
	 * stage built before the stage that sends it */
	coll_context(e, COLL_NONE, COLL_PH_PP);
	for (uint32_t bnd = 0; bnd + 1 < s->PP; bnd++)
		for (uint32_t m = 0; m < s->M; m++)
			for (uint32_t dp = 0; dp < s->DP; dp++)
				for (uint32_t tp = 0; tp < s->TP; tp++)
					for (int dir = 0; dir < 2; dir++) {
						uint64_t x = (((uint64_t)bnd * s->DP + dp) * s->TP + tp) * 2;
						uint32_t t = coll_collective(e, s->pp_gid[x + dir],
									     COLL_SENDRECV,
									     s->pp_bytes, b->err);
						if (t == COLL_NONE)
							return simai_fail(b);
						s->sr[sr_index(s, bnd, m, dp, tp, dir)] = t;
					}
	for (uint32_t st = 0; st < s->PP; st++)
		for (uint32_t seg = 0; seg <= 2 * s->M; seg++)
			for (uint32_t sub = 0; sub < seg_units(s, st, seg); sub++) {
				int rc = emit_unit(b, st, seg, sub);
				if (rc)
					return rc;
			}
	return WS_OK;
}

/* ---- the compact DAG ---------------------------------------------------------- */

static void cursor_reset(struct simai_state *s, uint32_t st)
{
	struct cursor *c = &s->cur[st];
	c->seg = c->sub = c->step = 0;
	c->tail_step = UINT32_MAX;
	c->next_id = s->stage_base ? s->stage_base[st] : 0;
	c->pending = 0;
	/* the context the whole build leaves before the stage */
	c->ctx_layer = COLL_NONE;
	c->ctx_phase = st == 0 ? COLL_PH_PP : COLL_PH_NONE;
	c->done = false;
}

/* The next unit of stage st, added (or counted). */
static int advance(struct simai_state *s, uint32_t st, bool counting, struct ws_err *err)
{
	struct cursor *c = &s->cur[st];
	struct coll_engine *e = s->eng;
	struct bctx b = { .s = s, .e = e, .err = err, .pending = c->pending,
			  .counting = counting, .stage = st, .step = c->step };
	coll_next_id(e, c->next_id);
	coll_mark(e, st, c->step);
	coll_context(e, c->ctx_layer, (enum coll_phase)c->ctx_phase);
	uint32_t before = s->tail[st * s->DP];
	uint64_t n0 = 0, n1, x;
	if (counting)
		coll_count(e, &n0, &x, &x);
	int rc = emit_unit(&b, st, c->seg, c->sub);
	if (rc)
		return rc;
	if (counting) {
		coll_count(e, &n1, &x, &x);
		if (n1 - n0 > c->max_unit)
			c->max_unit = n1 - n0;
		if (s->tail[st * s->DP] == before && c->seg < 2 * s->M)
			c->offstream += n1 - n0; /* non-blocking: off the stream */
	}
	c->pending = b.pending;
	c->next_id = coll_peek_id(e);
	coll_get_context(e, &c->ctx_layer, &c->ctx_phase);
	if (s->tail[st * s->DP] != before)
		c->tail_step = c->step;
	c->step++;
	if (c->seg == 2 * s->M) {
		c->done = true;
		if (!counting && --s->stages_left == 0)
			coll_build_done(e);
	} else if (++c->sub == seg_units(s, st, c->seg)) {
		c->sub = 0;
		c->seg++;
	}
	return WS_OK;
}

/* Stage st's units until its stream tails are new ones (a task that
 * completes then has every task that waits for it). */
static int advance_tails(struct simai_state *s, uint32_t st, struct ws_err *err)
{
	uint32_t old = s->cur[st].tail_step;
	while (!s->cur[st].done && s->cur[st].tail_step == old) {
		int rc = advance(s, st, false, err);
		if (rc)
			return rc;
	}
	return WS_OK;
}

static void simai_on_done(void *ctx, struct coll_engine *e, uint32_t task)
{
	struct ws_inst *inst = ctx;
	struct simai_state *s = inst->state;
	uint32_t st, step;
	coll_task_where(e, task, &st, &step);
	struct ws_err err;
	ws_err_clear(&err);
	int rc = WS_OK;
	if (st == SR_STAGE) {
		/* its receiver's wait, when not yet added, takes its finish */
		uint64_t x = coll_task_id(e, task);
		s->sr[x] = SR_DONE;
		s->sr_fin[x] = coll_task_fin(e, task);
	} else if (step == s->cur[st].tail_step) {
		rc = advance_tails(s, st, &err);
	}
	if (rc)
		ws_fail(inst->sim, &err);
}

/* The first units of every stage: up to each one's first stream tails. */
static int simai_build_compact(struct bctx *b)
{
	struct simai_state *s = b->s;
	for (uint32_t w = 0; w < s->W; w++)
		s->tail[w] = COLL_NONE;
	for (uint64_t x = 0; x < s->n_sr; x++) {
		s->sr[x] = COLL_NONE;
		s->sr_held[x] = 0;
	}
	s->stages_left = s->PP;
	for (uint32_t st = 0; st < s->PP; st++)
		cursor_reset(s, st);
	for (uint32_t st = 0; st < s->PP; st++) {
		int rc = advance_tails(s, st, b->err);
		if (rc)
			return rc;
	}
	return WS_OK;
}

/*
 * The compact DAG's numbering: every stage's schedule counted, unit by
 * unit, as the whole build adds it (pipeline transfers first, then stage
 * after stage); and the tasks in flight at most, for the memory estimate:
 * per stage four of its largest units and its tasks off the stream (the
 * weight-gradient collectives, which may lag), and the pipeline transfers.
 */
static int simai_count(struct simai_state *s, struct ws_err *err)
{
	struct coll_engine *e = s->eng;
	uint64_t id = s->n_sr, colls = s->n_sr, comps = 0, live = s->n_sr;
	for (uint32_t st = 0; st < s->PP; st++) {
		s->stage_base[st] = (uint32_t)id;
		cursor_reset(s, st);
		s->cur[st].max_unit = s->cur[st].offstream = 0;
		for (uint32_t dp = 0; dp < s->DP; dp++)
			s->tail[st * s->DP + dp] = COLL_NONE;
		coll_counting(e, true);
		while (!s->cur[st].done) {
			int rc = advance(s, st, true, err);
			if (rc) {
				coll_counting(e, false);
				return rc;
			}
		}
		uint64_t n, c, p;
		coll_count(e, &n, &c, &p);
		coll_counting(e, false);
		id += n;
		colls += c;
		comps += p;
		live += 4 * s->cur[st].max_unit + s->cur[st].offstream;
		if (id >= COLL_NONE)
			return ws_err_at(err, WS_EINVAL, s->path, (int)s->header_line, "an "
					 "iteration of %u workers x %u layers has more than "
					 "2^32 tasks (fewer GPUs)", s->W, s->n_layers);
	}
	s->est_live = live;
	s->n_tasks = id;
	coll_set_totals(e, id, colls, comps);
	return WS_OK;
}

static int simai_build(void *ctx, struct coll_engine *e, uint32_t iter,
		       struct ws_err *err)
{
	(void)iter;
	struct ws_inst *inst = ctx;
	struct bctx b = { .s = inst->state, .e = e, .err = err };
	struct simai_state *s = b.s;
	if (s->policy == POL_MICRO)
		return simai_build_micro(&b);
	return s->compact ? simai_build_compact(&b) : simai_build_whole(&b);
}

/* ---- the workload ---------------------------------------------------------- */

static int simai_compact_init(struct ws_inst *inst, struct ws_err *err);

static int simai_init(struct ws_inst *inst, struct ws_err *err)
{
	const struct simai_conf *c = inst->conf;
	struct simai_state *s = inst->state;
	int rc = ws_resolve_path(inst->sim, c->file, s->path, sizeof s->path, err);
	if (rc)
		return rc;
	rc = simai_read(s, c, err);
	if (rc)
		return rc;
	rc = simai_shape(s, c, ws_sim_fabric(inst->sim), err);
	if (rc)
		return rc;
	if (s->ignored)
		ws_warn(inst->sim, "%s: ignoring %u line(s) after the %u layers declared "
			"on the second line", s->path, s->ignored, s->n_layers);
	if (s->n_layers < s->declared)
		ws_warn(inst->sim, "%s:%u: the file declares %" PRIu64 " layers but holds "
			"%u layer line%s; running those (strict = true refuses it)",
			s->path, s->count_line, s->declared, s->n_layers,
			s->n_layers == 1 ? "" : "s");
	s->compact = s->policy != POL_MICRO && c->dag == DAG_COMPACT;
	struct coll_spec spec = {
		.inst = inst, .comm = &c->comm, .gpus = s->gpus,
		.iterations = (uint32_t)c->iterations, .build = simai_build, .ctx = inst,
		.on_done = s->compact ? simai_on_done : NULL,
		.iterations_only = c->records == 1,
	};
	rc = coll_engine_new(&s->eng, &spec, err);
	if (rc)
		return rc;
	const char *name = s->names;
	for (uint32_t i = 0; i < s->n_layers; i++, name += strlen(name) + 1)
		if ((rc = coll_layer_name(s->eng, i, name, err)))
			return rc;
	rc = simai_groups(s, err);
	if (rc || !s->compact)
		return rc;
	return simai_compact_init(inst, err);
}

/* The compact DAG's state, its numbering, and its memory estimate. */
static int simai_compact_init(struct ws_inst *inst, struct ws_err *err)
{
	struct simai_state *s = inst->state;
	s->n_sr = s->PP > 1 ? 2ull * (s->PP - 1) * s->M * s->DP * s->TP : 0;
	s->cur = calloc(s->PP, sizeof *s->cur);
	s->stage_base = calloc(s->PP, sizeof *s->stage_base);
	s->sr_held = calloc(s->n_sr ? s->n_sr : 1, sizeof *s->sr_held);
	s->sr_fin = calloc(s->n_sr ? s->n_sr : 1, sizeof *s->sr_fin);
	if (!s->cur || !s->stage_base || !s->sr_held || !s->sr_fin)
		return ws_err_set(err, WS_ENOMEM, "out of memory for the compact DAG");
	int rc = simai_count(s, err);
	if (rc)
		return rc;
	char what[200];
	snprintf(what, sizeof what, "the compact DAG of %u workers x %u lines in %u "
		 "micro-batch%s (about %" PRIu64 " tasks in flight)", s->W, s->n_layers, s->M,
		 s->M == 1 ? "" : "es", s->est_live);
	/* a task and its edges, in slots at least twice the tasks in flight
	 * (coll.c takes them round a ring), and the arrays' doubling */
	return ws_mem_check(inst->sim, 4 * s->est_live * coll_task_bytes() +
			    s->n_sr * (sizeof *s->sr + sizeof *s->sr_held + sizeof *s->sr_fin),
			    0, what, err);
}

static void simai_fini(struct ws_inst *inst)
{
	struct simai_state *s = inst->state;
	coll_engine_free(s->eng);
	for (int k = 0; k < GROUPINGS; k++) {
		struct grp *g = &s->grp[k];
		free(g->g_w_off);
		free(g->g_w);
		free(g->w_g_off);
		free(g->w_g);
		free(g->gid);
	}
	free(s->layers);
	free(s->pp_gid);
	free(s->tail);
	free(s->wgid);
	free(s->names);
	free(s->sr);
	free(s->ctask);
	free(s->cur);
	free(s->stage_base);
	free(s->sr_held);
	free(s->sr_fin);
	memset(s, 0, sizeof *s);
}

static int simai_start(struct ws_inst *inst, struct ws_err *err)
{
	struct simai_state *s = inst->state;
	return coll_engine_start(s->eng, err);
}

static int simai_finish(struct ws_inst *inst, const char *dir, struct ws_err *err)
{
	struct simai_state *s = inst->state;
	return coll_engine_finish(s->eng, dir, err);
}

static void simai_report(struct ws_inst *inst, struct ws_json *j)
{
	struct simai_state *s = inst->state;
	ws_json_str(j, "file", s->path);
	ws_json_str(j, "policy", simai_policies[s->policy_tok].token);
	ws_json_u64(j, "layers", s->n_layers);
	ws_json_u64(j, "ignored_lines", s->ignored);
	ws_json_u64(j, "tp", s->TP);
	ws_json_u64(j, "dp", s->DP);
	ws_json_u64(j, "pp", s->PP);
	ws_json_u64(j, "ep", s->EP);
	ws_json_u64(j, "micro_batches", s->M);
	ws_json_u64(j, "pp_bytes", s->pp_bytes);
	ws_json_str(j, "dag", s->compact ? "compact" : "expanded");
	ws_json_u64(j, "dag_slots", coll_dag_slots(s->eng));
	if (s->compact) {
		ws_json_u64(j, "dag_tasks", s->n_tasks);
		ws_json_u64(j, "dag_in_flight_estimate", s->est_live);
	}
	coll_engine_report(s->eng, j);
}

static size_t simai_summary(struct ws_inst *inst, const char *dir, char *buf,
			    size_t size)
{
	struct simai_state *s = inst->state;
	int n = snprintf(buf, size, "  simai      %s, %u layers: TP %u x DP %u x PP %u, "
			 "EP %u, %u micro-batch%s per iteration\n",
			 simai_policies[s->policy_tok].token, s->n_layers, s->TP, s->DP,
			 s->PP, s->EP, s->M, s->M == 1 ? "" : "es");
	if (n < 0)
		return 0;
	size_t used = (size_t)n < size ? (size_t)n : size;
	return used + coll_engine_summary(s->eng, dir, buf + used, size - used);
}

static const struct ws_workload_ops simai_ops = {
	.size = sizeof(struct ws_workload_ops),
	.start = simai_start,
	.finish = simai_finish,
	.report = simai_report,
	.summary = simai_summary,
};

static const struct ws_plugin simai_plugin = {
	WS_PLUGIN_ABI(WS_KIND_WORKLOAD, struct ws_workload_ops),
	.name = "simai",
	.version = "1.0.0",
	.summary = "SimAI/AICB workload file: transformer training layers over TP/DP/EP/PP groups, MICRO collective tests",
	.params = simai_params,
	.conf_size = sizeof(struct simai_conf),
	.state_size = sizeof(struct simai_state),
	.init = simai_init,
	.fini = simai_fini,
	.ops = &simai_ops,
};

WS_PLUGIN_EXPORT(simai_plugin)
