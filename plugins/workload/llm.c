/* SPDX-License-Identifier: MIT */
/*
 * llm: training iterations of a dense or mixture-of-experts transformer
 * under tensor (TP), pipeline (PP), data (DP) and expert (EP) parallelism,
 * as Megatron-LM runs them, turned into compute delays and collectives on
 * the collective engine (coll.h), so the inter-server traffic is simulated
 * packet by packet on the fabric.
 *
 * Placement.  GPU g is fabric host g.  The GPU of (tp, dp, pp) follows
 * `order`, fastest dimension first; the default tp-dp-pp is Megatron's: a
 * TP group fills a server, DP peers sit on the same rail of other servers,
 * pipeline stages further away.  A worker is one TP group (dp, pp): its GPUs
 * compute in lockstep, so a worker's compute is one stream of tasks.
 *
 * Per layer and micro-batch, forward (backward mirrors it, compute x
 * bwd_factor):
 *     attention compute -> TP all-reduce of the activations ->
 *     MLP compute (dense) or EP all-to-all (dispatch) -> expert compute ->
 *     EP all-to-all (combine) (MoE) -> TP all-reduce
 * Activations are micro_batch x seq x hidden x act_bytes.  MoE: sequence
 * parallelism is assumed when TP > 1 (a GPU routes micro_batch x seq / TP
 * tokens), routing is balanced, and each token goes to top_k experts: an
 * all-to-all of tokens x top_k x hidden x act_bytes per GPU.  EP groups are
 * EP consecutive GPUs among a stage's TP x DP GPUs taken dp-first (same TP
 * rank across replicas first: Megatron's expert-parallel groups) or
 * tp-first; expert weights are not TP-sharded (expert tensor parallelism 1).
 *
 * Compute: 2 x parameters x tokens FLOPs forward (plus the attention
 * scores, 4 x seq x hidden per token and layer), divided by TP, at `tflops`
 * per GPU; backward bwd_factor (2) times that; or per layer from
 * `compute_table`.  The first stage holds the embedding, the last the output
 * layer (its 2 x vocab x hidden x tokens FLOPs counted).
 *
 * Pipeline: 1F1B.  Stage p runs min(PP - p - 1, m) forwards, then
 * alternates one forward and one backward, then drains the backwards.
 * Activations go stage to stage as sends from each TP rank to its
 * counterpart: 1/TP of the tensor each and an all-gather inside the
 * receiving server (Megatron's scatter-gather), or the whole tensor each.
 * Sends do not block the sender's stream; the receiver waits for them.
 *
 * Gradients: grad_bytes per parameter, all-reduced over each DP group
 * (every TP rank of a stage has its own ring of DP peers) or reduce-scattered
 * then all-gathered at param_bytes (distributed optimizer).  Gradients go
 * in buckets of about `bucket` bytes in backward layer order; with
 * dp_overlap a bucket's collective starts once the last micro-batch's
 * backward has passed its layers, else after the stage's last backward.  A
 * group runs its buckets in order.  Expert gradients are all-reduced over the
 * expert-data-parallel group (same place in every EP group of the stage)
 * after the last backward.  Then the optimizer step, and the next iteration
 * starts when every GPU is done.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warpsim/warpsim.h>

#include "coll.h"

/* ---- models ------------------------------------------------------------- */

struct model {
	const char *name;
	uint32_t layers, hidden, ffn, heads, kv_heads, vocab;
	uint32_t experts, top_k;
	int swiglu;
};

/*
 * Dense: GPT-3 family sizes (Brown et al. 2020; 22B from Korthikanti et al.
 * 2022), LLaMA-65B (Touvron et al. 2023), LLaMA 3 405B (Meta 2024).
 * MoE: Mixtral 8x7B and 8x22B (Mistral AI 2024); 8x13B puts 8 experts of
 * GPT-13B's MLP in GPT-13B; 32x22B is 8x22B with 32 experts.
 */
static const struct model models[] = {
	{ "gpt-7b", 32, 4096, 16384, 32, 32, 50257, 0, 0, 0 },
	{ "gpt-13b", 40, 5120, 20480, 40, 40, 50257, 0, 0, 0 },
	{ "gpt-22b", 48, 6144, 24576, 64, 64, 50257, 0, 0, 0 },
	{ "gpt-175b", 96, 12288, 49152, 96, 96, 50257, 0, 0, 0 },
	{ "llama-65b", 80, 8192, 22016, 64, 64, 32000, 0, 0, 1 },
	{ "llama3-405b", 126, 16384, 53248, 128, 8, 128256, 0, 0, 1 },
	{ "moe-8x7b", 32, 4096, 14336, 32, 8, 32000, 8, 2, 1 },
	{ "moe-8x13b", 40, 5120, 20480, 40, 40, 50257, 8, 2, 0 },
	{ "moe-8x22b", 56, 6144, 16384, 48, 8, 32768, 8, 2, 1 },
	{ "moe-32x22b", 56, 6144, 16384, 48, 8, 32768, 32, 2, 1 },
};
#define N_MODELS (sizeof models / sizeof models[0])

static const char *const llm_model_names[] = {
	"gpt-7b", "gpt-13b", "gpt-22b", "gpt-175b", "llama-65b", "llama3-405b",
	"moe-8x7b", "moe-8x13b", "moe-8x22b", "moe-32x22b", "custom", NULL
};
#define MODEL_CUSTOM ((int)N_MODELS)

/* dimension orders, fastest first: indices into (tp, dp, pp) */
static const char *const llm_order_names[] = {
	"tp-dp-pp", "tp-pp-dp", "dp-tp-pp", "dp-pp-tp", "pp-tp-dp", "pp-dp-tp", NULL
};
static const int order_dims[6][3] = {
	{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 }
};
static const char *const llm_ep_order_names[] = { "dp-first", "tp-first", NULL };
static const char *const llm_dp_names[] = { "allreduce", "rs-ag", NULL };
static const char *const llm_mlp_names[] = { "preset", "gelu", "swiglu", NULL };
static const char *const llm_ar_names[] = { "default", "ring", "tree", "dbtree", NULL };
static const char *const llm_a2a_names[] = { "default", "pairwise", "direct", NULL };
/* those choices as engine algorithms */
static const enum coll_algo ar_algo[] = { COLL_ALGOS, COLL_RING, COLL_TREE, COLL_DBTREE };
static const enum coll_algo a2a_algo[] = { COLL_ALGOS, COLL_PAIRWISE, COLL_DIRECT };

struct llm_conf {
	int model;
	uint64_t layers, hidden, ffn, heads, kv_heads, vocab, experts, top_k;
	int mlp;
	uint64_t gpus, tp, pp, dp, ep;
	int order, ep_order;
	uint64_t micro_batch, micro_batches, seq, iterations;
	double tflops, bwd_factor;
	bool attn_flops;
	const char *compute_table;
	uint64_t act_bytes, grad_bytes, param_bytes, bucket;
	int dp_collective;
	bool dp_overlap, pp_scatter_gather;
	int tp_allreduce, dp_allreduce, ep_alltoall;
	ws_time optimizer_time;
	struct coll_conf comm;
};

static const struct ws_param llm_params[] = {
	WS_PARAM_ENUM("model", struct llm_conf, model, "gpt-7b", llm_model_names,
		      "model preset, or custom (then layers, hidden, ffn, heads and vocab are required)"),
	WS_PARAM_UINT("layers", struct llm_conf, layers, "0", "0", "100000",
		      "transformer layers; 0: the preset's"),
	WS_PARAM_UINT("hidden", struct llm_conf, hidden, "0", "0", "1000000",
		      "hidden size; 0: the preset's"),
	WS_PARAM_UINT("ffn", struct llm_conf, ffn, "0", "0", "10000000",
		      "MLP (per expert) inner size; 0: the preset's"),
	WS_PARAM_UINT("heads", struct llm_conf, heads, "0", "0", "100000",
		      "attention heads; 0: the preset's"),
	WS_PARAM_UINT("kv_heads", struct llm_conf, kv_heads, "0", "0", "100000",
		      "key/value heads (grouped-query attention); 0: the preset's, or heads"),
	WS_PARAM_UINT("vocab", struct llm_conf, vocab, "0", "0", "100000000",
		      "vocabulary size; 0: the preset's"),
	WS_PARAM_UINT("experts", struct llm_conf, experts, "0", "0", "100000",
		      "experts per MoE layer (every layer); 0: the preset's (dense presets: none)"),
	WS_PARAM_UINT("top_k", struct llm_conf, top_k, "0", "0", "1024",
		      "experts per token; 0: the preset's (2 for a custom MoE)"),
	WS_PARAM_ENUM("mlp", struct llm_conf, mlp, "preset", llm_mlp_names,
		      "MLP kind: gelu (2 matrices) or swiglu (3); preset: the model's"),
	WS_PARAM_UINT("gpus", struct llm_conf, gpus, "0", "0", "100000000",
		      "GPUs used (fabric hosts 0..gpus-1); 0: every host"),
	WS_PARAM_UINT("tp", struct llm_conf, tp, "1", "1", "1000000", "tensor-parallel size"),
	WS_PARAM_UINT("pp", struct llm_conf, pp, "1", "1", "1000000", "pipeline stages"),
	WS_PARAM_UINT("dp", struct llm_conf, dp, "0", "0", "100000000",
		      "data-parallel size; 0: gpus / (tp x pp)"),
	WS_PARAM_UINT("ep", struct llm_conf, ep, "1", "1", "1000000",
		      "expert-parallel size (MoE); divides tp x dp and the experts"),
	WS_PARAM_ENUM("order", struct llm_conf, order, "tp-dp-pp", llm_order_names,
		      "placement of the parallel dimensions on GPU ids, fastest first"),
	WS_PARAM_ENUM("ep_order", struct llm_conf, ep_order, "dp-first", llm_ep_order_names,
		      "EP groups from a stage's GPUs: dp-first (same TP rank across replicas) or tp-first"),
	WS_PARAM_UINT("micro_batch", struct llm_conf, micro_batch, "1", "1", "1000000",
		      "sequences per micro-batch"),
	WS_PARAM_UINT("micro_batches", struct llm_conf, micro_batches, "8", "1", "1000000",
		      "micro-batches per iteration (gradient accumulation steps)"),
	WS_PARAM_UINT("seq", struct llm_conf, seq, "2048", "1", "10000000", "sequence length"),
	WS_PARAM_UINT("iterations", struct llm_conf, iterations, "1", "0", "1000000",
		      "training iterations"),
	WS_PARAM_FLOAT("tflops", struct llm_conf, tflops, "150", "0.001", "1e9",
		       "effective TFLOP/s per GPU (A100 bf16 peak 312)"),
	WS_PARAM_FLOAT("bwd_factor", struct llm_conf, bwd_factor, "2", "0", "100",
		       "backward compute / forward compute (3 with full recomputation)"),
	WS_PARAM_BOOL("attn_flops", struct llm_conf, attn_flops, "true",
		      "count the attention-score FLOPs (4 x seq x hidden per token and layer)"),
	WS_PARAM_STRING("compute_table", struct llm_conf, compute_table, "",
			"file of per-layer times 'layer fwd_ns bwd_ns' replacing the FLOPs model"),
	WS_PARAM_UINT("act_bytes", struct llm_conf, act_bytes, "2", "1", "16",
		      "bytes per activation element (bf16: 2)"),
	WS_PARAM_UINT("grad_bytes", struct llm_conf, grad_bytes, "4", "1", "16",
		      "bytes per gradient element reduced over DP (fp32: 4)"),
	WS_PARAM_UINT("param_bytes", struct llm_conf, param_bytes, "2", "1", "16",
		      "bytes per parameter all-gathered by rs-ag (bf16: 2)"),
	WS_PARAM_SIZE("bucket", struct llm_conf, bucket, "160MB", "1", "1000TB",
		      "gradient bucket size (Megatron: 40M parameters x 4 bytes)"),
	WS_PARAM_ENUM("dp_collective", struct llm_conf, dp_collective, "allreduce", llm_dp_names,
		      "gradients: allreduce, or rs-ag (reduce-scatter, then all-gather of parameters)"),
	WS_PARAM_BOOL("dp_overlap", struct llm_conf, dp_overlap, "true",
		      "start a bucket's collective as soon as its layers' last backward is done"),
	WS_PARAM_BOOL("pp_scatter_gather", struct llm_conf, pp_scatter_gather, "true",
		      "send 1/tp of an activation per TP rank and all-gather it in the receiving server"),
	WS_PARAM_ENUM("tp_allreduce", struct llm_conf, tp_allreduce, "default", llm_ar_names,
		      "algorithm of the TP all-reduces across servers; default: `allreduce`"),
	WS_PARAM_ENUM("dp_allreduce", struct llm_conf, dp_allreduce, "default", llm_ar_names,
		      "algorithm of the gradient all-reduces (DP and expert DP); default: `allreduce`"),
	WS_PARAM_ENUM("ep_alltoall", struct llm_conf, ep_alltoall, "default", llm_a2a_names,
		      "algorithm of the EP all-to-alls; default: `alltoall`"),
	WS_PARAM_TIME("optimizer_time", struct llm_conf, optimizer_time, "0s", "0s", "1000s",
		      "optimizer step after the gradient collectives"),
	COLL_PARAMS(struct llm_conf),
	WS_PARAM_END
};

/* ---- state ---------------------------------------------------------------- */

/* one layer of a stage, as the schedule sees it */
struct slayer {
	ws_time fwd_attn, fwd_mlp; /* MoE: fwd_mlp is the expert compute */
	bool transformer;          /* TP all-reduces, and MoE all-to-alls if moe */
	uint64_t dense_params;     /* per GPU, reduced over DP */
};

struct llm_state {
	struct model m;
	bool moe;
	uint32_t gpus, T, D, P, E, m_b;
	uint32_t stride[3];
	uint32_t lps;              /* transformer layers per stage */
	uint64_t act;              /* bytes of one activation tensor */
	uint64_t a2a;              /* bytes each GPU sends in one all-to-all */
	uint64_t expert_grad;      /* expert gradient bytes per GPU and stage */
	struct slayer **stage;     /* [P][n_slayers[p]] */
	uint32_t *n_slayers;
	uint32_t *layer_off;       /* [P]: the model's index of each stage's first layer */
	/* groups */
	uint32_t *tp_group;        /* [P*D] */
	uint32_t *dp_group;        /* [P*T] */
	uint32_t *pp_group;        /* [(P-1)*D*T]: (t, d, p) -> (t, d, p+1) */
	uint32_t *ep_group;        /* [P*(T*D/E)] */
	uint32_t *ep_of;           /* [P*D*T] -> index of the EP group of (p, d, t) */
	uint32_t *edp_group;       /* [P*E] */
	uint32_t n_ep;             /* EP groups per stage */
	ws_time *table_fwd, *table_bwd;
	struct coll_engine *eng;
	char path[4096];
};

static uint32_t gpu_of(const struct llm_state *s, uint32_t t, uint32_t d, uint32_t p)
{
	return t * s->stride[0] + d * s->stride[1] + p * s->stride[2];
}

/* ---- the model, checked ------------------------------------------------- */

static int llm_resolve_model(const struct llm_conf *c, struct model *m,
			     struct ws_err *err)
{
	if (c->model == MODEL_CUSTOM) {
		memset(m, 0, sizeof *m);
		m->name = "custom";
		static const char *const need[] = { "layers", "hidden", "ffn", "heads", "vocab" };
		const uint64_t have[] = { c->layers, c->hidden, c->ffn, c->heads, c->vocab };
		for (int i = 0; i < 5; i++)
			if (!have[i])
				return ws_err_key(err, WS_EINVAL, need[i], "model = custom needs %s", need[i]);
	} else {
		*m = models[c->model];
	}
#define OVERRIDE(f) if (c->f) m->f = (uint32_t)c->f
	OVERRIDE(layers);
	OVERRIDE(hidden);
	OVERRIDE(ffn);
	OVERRIDE(heads);
	OVERRIDE(kv_heads);
	OVERRIDE(vocab);
	OVERRIDE(experts);
	OVERRIDE(top_k);
#undef OVERRIDE
	if (!m->kv_heads)
		m->kv_heads = m->heads;
	if (c->mlp)
		m->swiglu = c->mlp == 2;
	if (m->experts && !m->top_k)
		m->top_k = 2;
	if (m->kv_heads > m->heads || m->heads % m->kv_heads)
		return ws_err_key(err, WS_EINVAL, "kv_heads", "kv_heads = %u must divide heads = %u",
			       m->kv_heads, m->heads);
	if (m->hidden % m->heads)
		return ws_err_key(err, WS_EINVAL, "heads", "heads = %u does not divide hidden = %u",
			       m->heads, m->hidden);
	if (m->experts && m->top_k > m->experts)
		return ws_err_key(err, WS_EINVAL, "top_k", "top_k = %u is more than the %u experts",
			       m->top_k, m->experts);
	return WS_OK;
}

static int llm_validate(const void *conf, struct ws_err *err)
{
	const struct llm_conf *c = conf;
	struct model m;
	int rc = llm_resolve_model(c, &m, err);
	if (rc)
		return rc;
	if (m.layers % c->pp)
		return ws_err_key(err, WS_EINVAL, "pp", "pp = %" PRIu64 " does not divide the %u layers "
			       "(stages get equal layers)", c->pp, m.layers);
	if (m.heads % c->tp)
		return ws_err_key(err, WS_EINVAL, "tp", "tp = %" PRIu64 " does not divide the %u attention "
			       "heads", c->tp, m.heads);
	if (m.kv_heads < c->tp ? c->tp % m.kv_heads : m.kv_heads % c->tp)
		return ws_err_key(err, WS_EINVAL, "tp", "tp = %" PRIu64 " and the %u key/value heads: one "
			       "must divide the other", c->tp, m.kv_heads);
	if (c->dp && c->gpus && c->tp * c->pp * c->dp != c->gpus)
		return ws_err_key(err, WS_EINVAL, "dp", "tp x pp x dp = %" PRIu64 " x %" PRIu64 " x %" PRIu64
			       " = %" PRIu64 ", but gpus = %" PRIu64, c->tp, c->pp, c->dp,
			       c->tp * c->pp * c->dp, c->gpus);
	if (c->gpus && c->gpus % (c->tp * c->pp))
		return ws_err_key(err, WS_EINVAL, "gpus", "gpus = %" PRIu64 " is not a multiple of tp x pp "
			       "= %" PRIu64, c->gpus, c->tp * c->pp);
	if (!m.experts && c->ep > 1)
		return ws_err_key(err, WS_EINVAL, "ep", "ep = %" PRIu64 " but model %s has no experts "
			       "(set experts, or a moe-* model)", c->ep, m.name);
	if (m.experts && m.experts % c->ep)
		return ws_err_key(err, WS_EINVAL, "ep", "ep = %" PRIu64 " does not divide the %u experts",
			       c->ep, m.experts);
	if (c->dp && (c->tp * c->dp) % c->ep)
		return ws_err_key(err, WS_EINVAL, "ep", "ep = %" PRIu64 " does not divide tp x dp = %" PRIu64,
			       c->ep, c->tp * c->dp);
	return WS_OK;
}

/* ---- compute times -------------------------------------------------------- */

static ws_time flops_time(double flops, double tflops)
{
	double ps = flops / (tflops * 1e12) * 1e12;
	return ps >= 9e18 ? (ws_time)9e18 : (ws_time)(ps + 0.5);
}

static int llm_read_table(struct ws_inst *inst, struct llm_state *s,
			  struct ws_err *err)
{
	const struct llm_conf *c = inst->conf;
	int rc = ws_resolve_path(inst->sim, c->compute_table, s->path, sizeof s->path, err);
	if (rc)
		return rc;
	FILE *f = fopen(s->path, "r");
	if (!f)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EIO, s->path, 0,
				 "cannot open the compute table: %s", strerror(errno));
	uint32_t L = s->m.layers;
	s->table_fwd = calloc(L, sizeof *s->table_fwd);
	s->table_bwd = calloc(L, sizeof *s->table_bwd);
	uint8_t *seen = calloc(L, 1);
	char *buf = NULL;
	size_t cap = 0;
	int lineno = 0;
	rc = !s->table_fwd || !s->table_bwd || !seen ?
		ws_err_set(err, WS_ENOMEM, "out of memory") : WS_OK;
	int got = 0;
	while (!rc && (got = ws_text_line(f, &buf, &cap, WS_TEXT_LINE_MAX, s->path,
					  &lineno, err)) == 1) {
		if (ws_text_blank(buf))
			continue;
		char *tok[4], *save = NULL;
		int n = 0;
		for (char *t = strtok_r(buf, " \t\r\n", &save); t && n < 4;
		     t = strtok_r(NULL, " \t\r\n", &save))
			tok[n++] = t;
		uint64_t v[3];
		if (n != 3) {
			rc = ws_err_at(err, WS_EINVAL, s->path, lineno, "expected 3 fields "
				       "'layer fwd_ns bwd_ns', found %d", n);
			break;
		}
		for (int i = 0; i < 3 && !rc; i++)
			if (!ws_text_u64(tok[i], &v[i]) || v[i] > 1000000000000000ull)
				rc = ws_err_at(err, WS_EINVAL, s->path, lineno, "field %d "
					       "'%s': expected a non-negative integer (%s)", i + 1,
					       tok[i], i ? "nanoseconds" : "a layer index");
		if (rc)
			break;
		if (v[0] >= L) {
			rc = ws_err_at(err, WS_EINVAL, s->path, lineno, "layer %" PRIu64
				       ": the model has layers 0..%u", v[0], L - 1);
			break;
		}
		if (seen[v[0]]) {
			rc = ws_err_at(err, WS_EINVAL, s->path, lineno, "layer %" PRIu64
				       " is listed twice", v[0]);
			break;
		}
		seen[v[0]] = 1;
		s->table_fwd[v[0]] = v[1] * WS_NS;
		s->table_bwd[v[0]] = v[2] * WS_NS;
	}
	if (!rc && got < 0)
		rc = got;
	for (uint32_t i = 0; !rc && i < L; i++)
		if (!seen[i])
			rc = ws_err_at(err, WS_EINVAL, s->path, lineno, "layer %u is missing "
				       "(the table must list layers 0..%u)", i, L - 1);
	free(seen);
	free(buf);
	fclose(f);
	return rc;
}

/* Parameters of one transformer layer: attention, one MLP (expert). */
static void layer_params(const struct model *m, double *attn, double *mlp)
{
	double h = m->hidden, kv = (double)m->hidden * m->kv_heads / m->heads;
	*attn = h * (h + 2 * kv) + h * h;
	*mlp = (m->swiglu ? 3.0 : 2.0) * h * m->ffn;
}

static int llm_plan(struct ws_inst *inst, struct llm_state *s, struct ws_err *err)
{
	const struct llm_conf *c = inst->conf;
	const struct model *m = &s->m;
	double tokens = (double)c->micro_batch * c->seq;
	double attn, mlp;
	layer_params(m, &attn, &mlp);
	double k = s->moe ? m->top_k : 1;
	double attn_f = 2 * attn * tokens + (c->attn_flops ? 4.0 * c->seq * m->hidden * tokens : 0);
	double mlp_f = 2 * mlp * k * tokens;
	double vocab_params = (double)m->vocab * m->hidden;
	s->stage = calloc(s->P, sizeof *s->stage);
	s->n_slayers = calloc(s->P, sizeof *s->n_slayers);
	if (!s->stage || !s->n_slayers)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	for (uint32_t p = 0; p < s->P; p++) {
		uint32_t n = s->lps + (p == 0) + (p == s->P - 1);
		s->stage[p] = calloc(n, sizeof **s->stage);
		if (!s->stage[p])
			return ws_err_set(err, WS_ENOMEM, "out of memory");
		uint32_t i = 0;
		if (p == 0) /* the embedding: a lookup, and its gradients */
			s->stage[p][i++] = (struct slayer){
				.dense_params = (uint64_t)(vocab_params / s->T) };
		for (uint32_t l = 0; l < s->lps; l++) {
			uint32_t gl = p * s->lps + l;
			struct slayer *sl = &s->stage[p][i++];
			sl->transformer = true;
			if (s->table_fwd) {
				/* the table's layer time, split as the FLOPs model splits it */
				double share = attn_f / (attn_f + mlp_f);
				sl->fwd_attn = (ws_time)(s->table_fwd[gl] * share + 0.5);
				sl->fwd_mlp = s->table_fwd[gl] - sl->fwd_attn;
			} else {
				sl->fwd_attn = flops_time(attn_f / s->T, c->tflops);
				sl->fwd_mlp = flops_time(mlp_f / s->T, c->tflops);
			}
			sl->dense_params = (uint64_t)((attn + (s->moe ? 0 : mlp) +
						       (s->moe ? (double)m->hidden * m->experts : 0)) / s->T);
		}
		if (p == s->P - 1) /* the output layer: logits */
			s->stage[p][i++] = (struct slayer){
				.fwd_mlp = s->table_fwd ? 0 : flops_time(2 * vocab_params * tokens / s->T,
									  c->tflops),
				.dense_params = (uint64_t)(vocab_params / s->T) };
		s->n_slayers[p] = i;
	}
	s->act = c->micro_batch * c->seq * m->hidden * c->act_bytes;
	if (s->moe) {
		double tok_gpu = tokens / s->T;
		s->a2a = (uint64_t)(tok_gpu * m->top_k * m->hidden * c->act_bytes);
		s->expert_grad = (uint64_t)((double)m->experts / s->E * mlp * s->lps) * c->grad_bytes;
	}
	(void)err;
	return WS_OK;
}

/* ---- groups ---------------------------------------------------------------- */

/* A group of the collectives engine over the GPUs g[0..n), labelled by
 * fmt, in *dst. */
static int llm_group(struct llm_state *s, uint32_t *dst, const uint32_t *g, uint32_t n,
		     struct ws_err *err, const char *fmt, ...) WS_PRINTF(6, 7);

static int llm_group(struct llm_state *s, uint32_t *dst, const uint32_t *g, uint32_t n,
		     struct ws_err *err, const char *fmt, ...)
{
	char label[96];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(label, sizeof label, fmt, ap);
	va_end(ap);
	*dst = coll_group(s->eng, g, n, label, err);
	return *dst == COLL_NONE ? WS_EINVAL : WS_OK;
}

/* The TP and DP groups of pipeline stage p, and the PP pairs to the next
 * stage (g: room for max(T, D) GPUs). */
static int llm_stage_groups(struct llm_state *s, uint32_t p, uint32_t *g, struct ws_err *err)
{
	uint32_t T = s->T, D = s->D, P = s->P;
	for (uint32_t d = 0; d < D; d++) {
		for (uint32_t t = 0; t < T; t++)
			g[t] = gpu_of(s, t, d, p);
		if (llm_group(s, &s->tp_group[p * D + d], g, T, err, "tp.d%u.p%u", d, p))
			return WS_EINVAL;
		coll_group_dim(s->eng, s->tp_group[p * D + d], COLL_DIM_TP);
	}
	for (uint32_t t = 0; t < T; t++) {
		for (uint32_t d = 0; d < D; d++)
			g[d] = gpu_of(s, t, d, p);
		if (llm_group(s, &s->dp_group[p * T + t], g, D, err, "dp.t%u.p%u", t, p))
			return WS_EINVAL;
		coll_group_dim(s->eng, s->dp_group[p * T + t], COLL_DIM_DP);
	}
	if (p + 1 < P)
		for (uint32_t d = 0; d < D; d++)
			for (uint32_t t = 0; t < T; t++) {
				g[0] = gpu_of(s, t, d, p);
				g[1] = gpu_of(s, t, d, p + 1);
				if (llm_group(s, &s->pp_group[(p * D + d) * T + t], g, 2, err,
					      "pp.t%u.d%u.p%u", t, d, p))
					return WS_EINVAL;
				coll_group_dim(s->eng, s->pp_group[(p * D + d) * T + t],
					       COLL_DIM_PP);
			}
	return WS_OK;
}

/* The EP groups of pipeline stage p (each GPU's in s->ep_of), then its
 * expert-DP groups, one per expert position (g: room for T x D GPUs). */
static int llm_expert_groups(struct llm_state *s, const struct llm_conf *c, uint32_t p,
			     uint32_t *g, struct ws_err *err)
{
	uint32_t T = s->T, D = s->D, E = s->E;
	/* position j of the stage's TP x DP GPUs in EP order */
	for (uint32_t q = 0; q < s->n_ep; q++) {
		for (uint32_t i = 0; i < E; i++) {
			uint32_t j = q * E + i, t, d;
			if (c->ep_order == 0) {
				d = j % D;
				t = j / D;
			} else {
				t = j % T;
				d = j / T;
			}
			g[i] = gpu_of(s, t, d, p);
			s->ep_of[(p * D + d) * T + t] = q;
		}
		if (llm_group(s, &s->ep_group[p * s->n_ep + q], g, E, err, "ep.p%u.g%u", p, q))
			return WS_EINVAL;
		coll_group_dim(s->eng, s->ep_group[p * s->n_ep + q], COLL_DIM_EP);
	}
	for (uint32_t i = 0; i < E; i++) {
		for (uint32_t q = 0; q < s->n_ep; q++) {
			uint32_t j = q * E + i;
			uint32_t t = c->ep_order == 0 ? j / D : j % T;
			uint32_t d = c->ep_order == 0 ? j % D : j / T;
			g[q] = gpu_of(s, t, d, p);
		}
		if (llm_group(s, &s->edp_group[p * E + i], g, s->n_ep, err, "edp.p%u.e%u", p, i))
			return WS_EINVAL;
		coll_group_dim(s->eng, s->edp_group[p * E + i], COLL_DIM_DP_EP);
	}
	return WS_OK;
}

static int llm_groups(struct llm_state *s, const struct llm_conf *c, struct ws_err *err)
{
	uint32_t T = s->T, D = s->D, P = s->P;
	uint32_t *g = malloc(((size_t)T * D + 2) * sizeof *g);
	s->tp_group = malloc((size_t)P * D * sizeof *s->tp_group);
	s->dp_group = malloc((size_t)P * T * sizeof *s->dp_group);
	s->pp_group = malloc(((size_t)(P - 1) * D * T + 1) * sizeof *s->pp_group);
	s->ep_of = malloc((size_t)P * D * T * sizeof *s->ep_of);
	if (!g || !s->tp_group || !s->dp_group || !s->pp_group || !s->ep_of) {
		free(g);
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	}
	int rc = WS_OK;
	for (uint32_t p = 0; p < P; p++) {
		rc = llm_stage_groups(s, p, g, err);
		if (rc)
			goto out;
	}
	if (s->moe) {
		uint32_t E = s->E, TD = T * D;
		s->n_ep = TD / E;
		s->ep_group = malloc((size_t)P * s->n_ep * sizeof *s->ep_group);
		s->edp_group = malloc((size_t)P * E * sizeof *s->edp_group);
		if (!s->ep_group || !s->edp_group) {
			rc = ws_err_set(err, WS_ENOMEM, "out of memory");
			goto out;
		}
		for (uint32_t p = 0; p < P; p++) {
			rc = llm_expert_groups(s, c, p, g, err);
			if (rc)
				goto out;
		}
	}
out:
	free(g);
	return rc;
}

/* ---- the DAG of one iteration ---------------------------------------------- */

struct build {
	struct llm_state *s;
	const struct llm_conf *c;
	struct coll_engine *e;
	struct ws_err *err;
	uint32_t p;               /* the stage being built */
	uint32_t *last;           /* [D]: last task of each worker of the stage */
	uint32_t *ep_tasks;       /* [n_ep]: the all-to-alls of one step */
	uint32_t *fwd_first, *fwd_last, *bwd_first, *bwd_last; /* [P*m*D] */
	uint32_t *grad_ready;     /* [D * n_slayers]: task after layer's last backward */
};

#define TRY(x)                                \
	do {                                  \
		if ((x) == COLL_NONE)         \
			return WS_EINVAL;     \
	} while (0)
#define TRYRC(x)                              \
	do {                                  \
		int rc_ = (x);                \
		if (rc_)                      \
			return rc_;           \
	} while (0)

/* Append a compute task to every worker of stage p. */
static int step_compute(struct build *b, ws_time dur)
{
	if (!dur)
		return WS_OK;
	for (uint32_t d = 0; d < b->s->D; d++) {
		uint32_t t = coll_compute(b->e, dur, b->err);
		TRY(t);
		coll_compute_on(b->e, t, b->s->tp_group[b->p * b->s->D + d]);
		TRYRC(coll_dep(b->e, b->last[d], t, b->err));
		b->last[d] = t;
	}
	return WS_OK;
}

/* Append a TP all-reduce of the activations to every worker of stage p. */
static int step_tp(struct build *b, uint32_t p)
{
	if (b->s->T == 1)
		return WS_OK;
	for (uint32_t d = 0; d < b->s->D; d++) {
		uint32_t t = coll_collective_algo(b->e, b->s->tp_group[p * b->s->D + d],
						  COLL_ALLREDUCE, b->s->act,
						  ar_algo[b->c->tp_allreduce], b->err);
		TRY(t);
		TRYRC(coll_dep(b->e, b->last[d], t, b->err));
		b->last[d] = t;
	}
	return WS_OK;
}

/* An EP all-to-all: every group waits for its member workers, every worker
 * for the groups of its GPUs. */
static int step_a2a(struct build *b, uint32_t p)
{
	struct llm_state *s = b->s;
	for (uint32_t q = 0; q < s->n_ep; q++) {
		b->ep_tasks[q] = coll_collective_algo(b->e, s->ep_group[p * s->n_ep + q],
						      COLL_ALLTOALL, s->a2a,
						      a2a_algo[b->c->ep_alltoall], b->err);
		TRY(b->ep_tasks[q]);
	}
	for (uint32_t d = 0; d < s->D; d++) {
		uint32_t j = coll_join(b->e, b->err);
		TRY(j);
		uint32_t prev = COLL_NONE;
		for (uint32_t t = 0; t < s->T; t++) {
			uint32_t q = s->ep_of[(p * s->D + d) * s->T + t];
			if (q == prev)
				continue;
			/* a worker meets few groups; skip repeats of the last one */
			prev = q;
			TRYRC(coll_dep(b->e, b->last[d], b->ep_tasks[q], b->err));
			TRYRC(coll_dep(b->e, b->ep_tasks[q], j, b->err));
		}
		b->last[d] = j;
	}
	return WS_OK;
}

static int pass(struct build *b, uint32_t p, uint32_t mb, bool fwd)
{
	struct llm_state *s = b->s;
	const double bf = b->c->bwd_factor;
	uint32_t D = s->D, idx = (p * s->m_b + mb) * D;
	uint32_t *first = fwd ? b->fwd_first : b->bwd_first;
	uint32_t *lastv = fwd ? b->fwd_last : b->bwd_last;
	/* a join opens the pass: the pipeline's sends attach to it */
	for (uint32_t d = 0; d < D; d++) {
		uint32_t j = coll_join(b->e, b->err);
		TRY(j);
		TRYRC(coll_dep(b->e, b->last[d], j, b->err));
		b->last[d] = first[idx + d] = j;
	}
	uint32_t n = s->n_slayers[p];
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = fwd ? k : n - 1 - k;
		const struct slayer *l = &s->stage[p][i];
		coll_context(b->e, s->layer_off[p] + i, fwd ? COLL_PH_FWD : COLL_PH_BWD);
		ws_time at = fwd ? l->fwd_attn : (ws_time)(l->fwd_attn * bf + 0.5);
		ws_time mt = fwd ? l->fwd_mlp : (ws_time)(l->fwd_mlp * bf + 0.5);
		if (!l->transformer) {
			TRYRC(step_compute(b, at + mt));
		} else if (fwd) {
			TRYRC(step_compute(b, at));
			TRYRC(step_tp(b, p));
			if (s->moe)
				TRYRC(step_a2a(b, p));
			TRYRC(step_compute(b, mt));
			if (s->moe)
				TRYRC(step_a2a(b, p));
			TRYRC(step_tp(b, p));
		} else {
			TRYRC(step_tp(b, p));
			if (s->moe)
				TRYRC(step_a2a(b, p));
			TRYRC(step_compute(b, mt));
			if (s->moe)
				TRYRC(step_a2a(b, p));
			TRYRC(step_tp(b, p));
			TRYRC(step_compute(b, at));
		}
		if (!fwd && mb == s->m_b - 1)
			for (uint32_t d = 0; d < D; d++)
				b->grad_ready[d * n + i] = b->last[d];
	}
	coll_context(b->e, COLL_NONE, COLL_PH_NONE);
	for (uint32_t d = 0; d < D; d++)
		lastv[idx + d] = b->last[d];
	return WS_OK;
}

/* Activations (or their gradients) from stage p to q of micro-batch mb. */
static int pp_transfer(struct build *b, uint32_t p, uint32_t q, uint32_t mb, bool fwd)
{
	struct llm_state *s = b->s;
	const struct llm_conf *c = b->c;
	uint32_t D = s->D, T = s->T;
	bool sg = c->pp_scatter_gather && T > 1;
	uint64_t bytes = sg ? (s->act + T - 1) / T : s->act;
	uint32_t lo = p < q ? p : q;
	coll_context(b->e, COLL_NONE, COLL_PH_PP);
	for (uint32_t d = 0; d < D; d++) {
		uint32_t from = fwd ? b->fwd_last[(p * s->m_b + mb) * D + d]
				    : b->bwd_last[(p * s->m_b + mb) * D + d];
		uint32_t to = fwd ? b->fwd_first[(q * s->m_b + mb) * D + d]
				  : b->bwd_first[(q * s->m_b + mb) * D + d];
		uint32_t arrive = to;
		if (sg) {
			/* the all-gather in the receiving server, before the pass */
			arrive = coll_collective(b->e, s->tp_group[q * D + d], COLL_ALLGATHER,
						 s->act, b->err);
			TRY(arrive);
			TRYRC(coll_dep(b->e, arrive, to, b->err));
		}
		for (uint32_t t = 0; t < T; t++) {
			/* the pp group is ordered (stage lo, stage lo+1) */
			uint32_t grp = s->pp_group[(lo * D + d) * T + t];
			if (!fwd) {
				/* backward goes the other way: a reversed group */
				uint32_t g2[2] = { gpu_of(s, t, d, p), gpu_of(s, t, d, q) };
				char label[64];
				snprintf(label, sizeof label, "ppb.t%u.d%u.p%u", t, d, lo);
				grp = coll_group(b->e, g2, 2, label, b->err);
				TRY(grp);
				coll_group_dim(b->e, grp, COLL_DIM_PP);
			}
			uint32_t x = coll_collective(b->e, grp, COLL_SENDRECV, bytes, b->err);
			TRY(x);
			TRYRC(coll_dep(b->e, from, x, b->err));
			TRYRC(coll_dep(b->e, x, arrive, b->err));
		}
	}
	return WS_OK;
}

/* Gradient collectives of stage p, bucket by bucket, per TP rank. */
static int grads(struct build *b, uint32_t p, uint32_t *stage_end)
{
	struct llm_state *s = b->s;
	const struct llm_conf *c = b->c;
	uint32_t D = s->D, T = s->T, n = s->n_slayers[p];
	uint32_t *prev = calloc(T, sizeof *prev);
	if (!prev)
		return ws_err_set(b->err, WS_ENOMEM, "out of memory");
	for (uint32_t t = 0; t < T; t++)
		prev[t] = COLL_NONE;
	int rc = WS_OK;
	uint64_t params = 0;
	for (uint32_t k = 0; k < n && D > 1; k++) {
		uint32_t i = n - 1 - k; /* backward order */
		params += s->stage[p][i].dense_params;
		if (params * c->grad_bytes < c->bucket && k + 1 < n)
			continue;
		/* a bucket belongs to the layer that completes it */
		coll_context(b->e, s->layer_off[p] + i, COLL_PH_WG);
		for (uint32_t t = 0; t < T && !rc; t++) {
			uint32_t grp = s->dp_group[p * T + t];
			uint32_t a, z;
			if (c->dp_collective == 0) {
				a = z = coll_collective_algo(b->e, grp, COLL_ALLREDUCE,
							     params * c->grad_bytes,
							     ar_algo[c->dp_allreduce], b->err);
			} else {
				a = coll_collective(b->e, grp, COLL_REDUCESCATTER,
						    params * c->grad_bytes, b->err);
				z = coll_collective(b->e, grp, COLL_ALLGATHER,
						    params * c->param_bytes, b->err);
				if (a != COLL_NONE && z != COLL_NONE)
					rc = coll_dep(b->e, a, z, b->err);
			}
			if (a == COLL_NONE || z == COLL_NONE) {
				rc = WS_EINVAL;
				break;
			}
			for (uint32_t d = 0; d < D && !rc; d++)
				rc = coll_dep(b->e, c->dp_overlap ? b->grad_ready[d * n + i]
								  : stage_end[d], a, b->err);
			if (!rc)
				rc = coll_dep(b->e, prev[t], a, b->err);
			prev[t] = z;
		}
		params = 0;
	}
	/* the optimizer step of each worker after its TP ranks' last bucket */
	coll_context(b->e, COLL_NONE, COLL_PH_OPT);
	for (uint32_t d = 0; d < D && !rc; d++) {
		uint32_t opt = coll_compute(b->e, c->optimizer_time, b->err);
		if (opt == COLL_NONE) {
			rc = WS_EINVAL;
			break;
		}
		coll_compute_on(b->e, opt, s->tp_group[p * D + d]);
		rc = coll_dep(b->e, stage_end[d], opt, b->err);
		for (uint32_t t = 0; t < T && !rc; t++)
			rc = coll_dep(b->e, prev[t], opt, b->err);
		stage_end[d] = opt;
	}
	/* expert gradients over the expert-data-parallel groups */
	coll_context(b->e, COLL_NONE, COLL_PH_WG);
	if (!rc && s->moe && s->n_ep > 1)
		for (uint32_t i = 0; i < s->E && !rc; i++) {
			uint32_t x = coll_collective_algo(b->e, s->edp_group[p * s->E + i],
							  COLL_ALLREDUCE, s->expert_grad,
							  ar_algo[c->dp_allreduce], b->err);
			if (x == COLL_NONE) {
				rc = WS_EINVAL;
				break;
			}
			for (uint32_t d = 0; d < D && !rc; d++)
				rc = coll_dep(b->e, b->bwd_last[(p * s->m_b + s->m_b - 1) * D + d],
					      x, b->err);
		}
	coll_context(b->e, COLL_NONE, COLL_PH_NONE);
	free(prev);
	return rc;
}

static int llm_build(void *ctx, struct coll_engine *e, uint32_t iter,
		     struct ws_err *err)
{
	(void)iter;
	struct ws_inst *inst = ctx;
	struct llm_state *s = inst->state;
	const struct llm_conf *c = inst->conf;
	uint32_t D = s->D, P = s->P, M = s->m_b;
	size_t per = (size_t)P * M * D;
	uint32_t maxn = 0;
	for (uint32_t p = 0; p < P; p++)
		if (s->n_slayers[p] > maxn)
			maxn = s->n_slayers[p];
	struct build b = {
		.s = s, .c = c, .e = e, .err = err,
		.last = malloc(D * sizeof(uint32_t)),
		.ep_tasks = malloc((s->n_ep + 1) * sizeof(uint32_t)),
		.fwd_first = malloc(per * sizeof(uint32_t)),
		.fwd_last = malloc(per * sizeof(uint32_t)),
		.bwd_first = malloc(per * sizeof(uint32_t)),
		.bwd_last = malloc(per * sizeof(uint32_t)),
		.grad_ready = malloc((size_t)D * maxn * sizeof(uint32_t)),
	};
	int rc = WS_OK;
	if (!b.last || !b.ep_tasks || !b.fwd_first || !b.fwd_last || !b.bwd_first ||
	    !b.bwd_last || !b.grad_ready) {
		rc = ws_err_set(err, WS_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t p = 0; p < P && !rc; p++) {
		for (uint32_t d = 0; d < D; d++)
			b.last[d] = COLL_NONE;
		b.p = p;
		/* 1F1B: warm-up forwards, one forward one backward, cool-down */
		uint32_t warm = P - p - 1 < M ? P - p - 1 : M;
		uint32_t f = 0, bw = 0;
		for (; f < warm && !rc; f++)
			rc = pass(&b, p, f, true);
		while (!rc && bw < M) {
			if (f < M)
				rc = pass(&b, p, f++, true);
			if (!rc)
				rc = pass(&b, p, bw++, false);
		}
		if (!rc)
			rc = grads(&b, p, b.last);
	}
	for (uint32_t p = 0; p + 1 < P && !rc; p++)
		for (uint32_t mb = 0; mb < M && !rc; mb++) {
			rc = pp_transfer(&b, p, p + 1, mb, true);
			if (!rc)
				rc = pp_transfer(&b, p + 1, p, mb, false);
		}
out:
	free(b.last);
	free(b.ep_tasks);
	free(b.fwd_first);
	free(b.fwd_last);
	free(b.bwd_first);
	free(b.bwd_last);
	free(b.grad_ready);
	return rc;
}

/* ---- plugin callbacks -------------------------------------------------------- */

/*
 * An iteration's DAG, refused from the parameters before it is built: each
 * of the pp x micro_batches x dp passes, forward and backward, opens with a
 * join and takes at least a task per layer of its stage, and a task costs
 * its record and about as much in edges (ws_mem_check adds nothing for
 * them).  A lower bound: a DAG that passes it is still checked as it grows.
 */
#define LLM_TASK_BYTES 112u
static int llm_dag_estimate(struct ws_inst *inst, const struct llm_state *s,
			    struct ws_err *err)
{
	uint64_t per = (uint64_t)s->P * s->m_b * s->D, tasks = 0;
	for (uint32_t p = 0; p < s->P; p++)
		tasks += 2ull * s->m_b * s->D * (1 + (uint64_t)s->n_slayers[p]);
	char what[200];
	snprintf(what, sizeof what, "an iteration's DAG of at least %" PRIu64 " tasks "
		 "(pp x micro_batches x dp = %" PRIu64 " passes, forward and backward, "
		 "a task per layer)", tasks, per);
	return ws_mem_check(inst->sim, tasks * LLM_TASK_BYTES + 16 * per, 0, what, err);
}

/* The model's layers in order: embedding, transformer.0 .., output. */
static int llm_layer_names(struct llm_state *s, struct ws_err *err)
{
	s->layer_off = malloc(s->P * sizeof *s->layer_off);
	if (!s->layer_off)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	uint32_t off = 0;
	for (uint32_t p = 0; p < s->P; p++) {
		s->layer_off[p] = off;
		for (uint32_t i = 0; i < s->n_slayers[p]; i++) {
			char name[48];
			if (!s->stage[p][i].transformer)
				snprintf(name, sizeof name, "%s", p == 0 && i == 0 ? "embedding"
								     : "output");
			else
				snprintf(name, sizeof name, "transformer.%u",
					 p * s->lps + i - (p == 0));
			int rc = coll_layer_name(s->eng, off + i, name, err);
			if (rc)
				return rc;
		}
		off += s->n_slayers[p];
	}
	return WS_OK;
}

static int llm_init(struct ws_inst *inst, struct ws_err *err)
{
	const struct llm_conf *c = inst->conf;
	struct llm_state *s = inst->state;
	const struct ws_fabric *fab = ws_sim_fabric(inst->sim);
	int rc = llm_resolve_model(c, &s->m, err);
	if (rc)
		return rc;
	uint64_t gpus = c->gpus ? c->gpus : fab->n_hosts;
	uint64_t dp = c->dp ? c->dp : gpus / (c->tp * c->pp);
	if (c->gpus > fab->n_hosts)
		return ws_err_key(err, WS_EINVAL, "gpus", "gpus = %" PRIu64 ", but the fabric has %u hosts",
			       c->gpus, fab->n_hosts);
	if (!dp || c->tp * c->pp * dp != gpus)
		return ws_err_key(err, WS_EINVAL, c->dp ? "dp" : "tp", "tp x pp x dp = %" PRIu64 " x %" PRIu64
			       " x %" PRIu64 " = %" PRIu64 " GPUs, but %s %" PRIu64,
			       c->tp, c->pp, dp, c->tp * c->pp * dp,
			       c->gpus ? "gpus =" : "the fabric has", gpus);
	if ((c->tp * dp) % c->ep)
		return ws_err_key(err, WS_EINVAL, "ep", "ep = %" PRIu64 " does not divide tp x dp = %" PRIu64,
			       c->ep, c->tp * dp);
	s->gpus = (uint32_t)gpus;
	s->T = (uint32_t)c->tp;
	s->D = (uint32_t)dp;
	s->P = (uint32_t)c->pp;
	s->E = (uint32_t)c->ep;
	s->m_b = (uint32_t)c->micro_batches;
	s->moe = s->m.experts > 0;
	s->lps = s->m.layers / s->P;
	const uint32_t size[3] = { s->T, s->D, s->P };
	uint32_t st = 1;
	for (int i = 0; i < 3; i++) {
		s->stride[order_dims[c->order][i]] = st;
		st *= size[order_dims[c->order][i]];
	}
	if ((uint64_t)s->P * s->m_b * s->D > 200000000u)
		return ws_err_key(err, WS_EINVAL, "micro_batches", "pp x micro_batches x dp = %" PRIu64
			       " passes per iteration: too many",
			       (uint64_t)s->P * s->m_b * s->D);
	if (c->compute_table[0] && (rc = llm_read_table(inst, s, err)))
		return rc;
	if ((rc = llm_plan(inst, s, err)))
		return rc;
	if ((rc = llm_dag_estimate(inst, s, err)))
		return rc;
	struct coll_spec spec = {
		.inst = inst, .comm = &c->comm, .gpus = s->gpus,
		.iterations = (uint32_t)c->iterations, .build = llm_build, .ctx = inst,
	};
	if ((rc = coll_engine_new(&s->eng, &spec, err)))
		return rc;
	if ((rc = llm_layer_names(s, err)))
		return rc;
	return llm_groups(s, c, err);
}

static void llm_fini(struct ws_inst *inst)
{
	struct llm_state *s = inst->state;
	coll_engine_free(s->eng);
	for (uint32_t p = 0; s->stage && p < s->P; p++)
		free(s->stage[p]);
	free(s->stage);
	free(s->n_slayers);
	free(s->layer_off);
	free(s->tp_group);
	free(s->dp_group);
	free(s->pp_group);
	free(s->ep_group);
	free(s->ep_of);
	free(s->edp_group);
	free(s->table_fwd);
	free(s->table_bwd);
	memset(s, 0, sizeof *s);
}

static int llm_start(struct ws_inst *inst, struct ws_err *err)
{
	struct llm_state *s = inst->state;
	return coll_engine_start(s->eng, err);
}

static int llm_finish(struct ws_inst *inst, const char *dir, struct ws_err *err)
{
	struct llm_state *s = inst->state;
	return coll_engine_finish(s->eng, dir, err);
}

static void llm_report(struct ws_inst *inst, struct ws_json *j)
{
	struct llm_state *s = inst->state;
	const struct model *m = &s->m;
	double attn, mlp;
	layer_params(m, &attn, &mlp);
	double total = m->layers * (attn + mlp * (m->experts ? m->experts : 1)) +
		       2.0 * m->vocab * m->hidden;
	ws_json_str(j, "model", m->name);
	ws_json_f64(j, "parameters", total);
	ws_json_u64(j, "tp", s->T);
	ws_json_u64(j, "pp", s->P);
	ws_json_u64(j, "dp", s->D);
	ws_json_u64(j, "ep", s->E);
	ws_json_u64(j, "activation_bytes", s->act);
	ws_json_u64(j, "alltoall_bytes", s->a2a);
	coll_engine_report(s->eng, j);
}

static size_t llm_summary(struct ws_inst *inst, const char *dir, char *buf,
			  size_t size)
{
	struct llm_state *s = inst->state;
	int n = snprintf(buf, size, "  model      %s on %u GPUs: TP %u, PP %u, DP %u%s",
			 s->m.name, s->gpus, s->T, s->P, s->D, s->moe ? "" : "\n");
	if (n < 0 || (size_t)n >= size)
		return n < 0 ? 0 : size - 1;
	if (s->moe) {
		int k = snprintf(buf + n, size - (size_t)n, ", EP %u (%u experts, top-%u)\n",
				 s->E, s->m.experts, s->m.top_k);
		if (k < 0 || (size_t)(n + k) >= size)
			return size - 1;
		n += k;
	}
	return (size_t)n + coll_engine_summary(s->eng, dir, buf + n, size - (size_t)n);
}

static const struct ws_workload_ops llm_ops = {
	.size = sizeof(struct ws_workload_ops),
	.start = llm_start,
	.finish = llm_finish,
	.report = llm_report,
	.summary = llm_summary,
};

static const struct ws_plugin llm_plugin = {
	WS_PLUGIN_ABI(WS_KIND_WORKLOAD, struct ws_workload_ops),
	.name = "llm",
	.version = "1.0.0",
	.summary = "LLM training iterations (dense and MoE presets) under TP/PP/DP/EP: "
		   "1F1B, collectives as dependent flows, NVLink model inside servers",
	.params = llm_params,
	.conf_size = sizeof(struct llm_conf),
	.state_size = sizeof(struct llm_state),
	.validate = llm_validate,
	.init = llm_init,
	.fini = llm_fini,
	.ops = &llm_ops,
};

WS_PLUGIN_EXPORT(llm_plugin)
