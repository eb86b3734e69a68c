/* SPDX-License-Identifier: MIT */
/*
 * collone: a test workload that runs one collective (`repeat` times, one
 * after another) over the GPUs first, first + stride, ... (n of them), after
 * a compute delay, through the collective engine the training workloads
 * use.  With fan = F, F such collectives run at once after the compute,
 * copy c over first, first + (c+1) x stride, first + 2(c+1) x stride, ...
 * (so with n = 2 they all leave GPU `first`).  The tests check each algorithm's flows and times against formulas.
 */
#include <stdio.h>

#include <warpsim/warpsim.h>

#include "../../plugins/workload/coll.h"

static const char *const collone_kinds[] = {
	"allreduce", "allgather", "reducescatter", "alltoall", "sendrecv", NULL
};

struct collone_conf {
	int kind;
	uint64_t bytes, first, stride, n, repeat, gpus, fan;
	ws_time compute;
	struct coll_conf comm;
};

static const struct ws_param collone_params[] = {
	WS_PARAM_ENUM("kind", struct collone_conf, kind, "allreduce", collone_kinds, "collective"),
	WS_PARAM_SIZE("bytes", struct collone_conf, bytes, "1MiB", "0", "1TiB", "bytes (coll.h)"),
	WS_PARAM_UINT("first", struct collone_conf, first, "0", "0", "1000000", "first GPU"),
	WS_PARAM_UINT("stride", struct collone_conf, stride, "1", "1", "1000000", "GPU stride"),
	WS_PARAM_UINT("n", struct collone_conf, n, "2", "1", "1000000", "ranks"),
	WS_PARAM_UINT("repeat", struct collone_conf, repeat, "1", "1", "1000", "collectives in a row"),
	WS_PARAM_UINT("fan", struct collone_conf, fan, "1", "1", "8", "collectives at once"),
	WS_PARAM_UINT("gpus", struct collone_conf, gpus, "0", "0", "1000000", "GPUs; 0: all hosts"),
	WS_PARAM_TIME("compute", struct collone_conf, compute, "0s", "0s", "1s", "compute first"),
	COLL_PARAMS(struct collone_conf),
	WS_PARAM_END
};

struct collone_state {
	struct coll_engine *eng;
	uint32_t group[8];
};

static int collone_build(void *ctx, struct coll_engine *e, uint32_t iter,
			 struct ws_err *err)
{
	(void)iter;
	struct ws_inst *inst = ctx;
	const struct collone_conf *c = inst->conf;
	struct collone_state *s = inst->state;
	uint32_t first = coll_compute(e, c->compute, err);
	if (first == COLL_NONE)
		return WS_EINVAL;
	for (uint64_t f = 0; f < c->fan; f++) {
		uint32_t prev = first;
		for (uint64_t i = 0; i < c->repeat; i++) {
			uint32_t t = coll_collective(e, s->group[f], (enum coll_kind)c->kind,
						     c->bytes, err);
			if (t == COLL_NONE || coll_dep(e, prev, t, err))
				return WS_EINVAL;
			prev = t;
		}
	}
	return WS_OK;
}

static int collone_init(struct ws_inst *inst, struct ws_err *err)
{
	const struct collone_conf *c = inst->conf;
	struct collone_state *s = inst->state;
	const struct ws_fabric *fab = ws_sim_fabric(inst->sim);
	struct coll_spec spec = {
		.inst = inst, .comm = &c->comm,
		.gpus = (uint32_t)(c->gpus ? c->gpus : fab->n_hosts),
		.iterations = 1, .build = collone_build, .ctx = inst,
	};
	int rc = coll_engine_new(&s->eng, &spec, err);
	if (rc)
		return rc;
	uint32_t g[1024];
	if (c->n > 1024)
		return ws_err_set(err, WS_EINVAL, "n > 1024");
	for (uint64_t f = 0; f < c->fan; f++) {
		for (uint32_t i = 0; i < c->n; i++)
			g[i] = (uint32_t)(c->first + i * (f + 1) * c->stride);
		s->group[f] = coll_group(s->eng, g, (uint32_t)c->n, "g", err);
		if (s->group[f] == COLL_NONE)
			return WS_EINVAL;
	}
	return WS_OK;
}

static void collone_fini(struct ws_inst *inst)
{
	struct collone_state *s = inst->state;
	coll_engine_free(s->eng);
}

static int collone_start(struct ws_inst *inst, struct ws_err *err)
{
	return coll_engine_start(((struct collone_state *)inst->state)->eng, err);
}

/* Besides the engine's files, gpus.csv: the bytes each GPU sent. */
static int collone_finish(struct ws_inst *inst, const char *dir, struct ws_err *err)
{
	struct coll_engine *e = ((struct collone_state *)inst->state)->eng;
	int rc = coll_engine_finish(e, dir, err);
	if (rc)
		return rc;
	char path[4096];
	snprintf(path, sizeof path, "%s/gpus.csv", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return ws_err_set(err, WS_EIO, "%s: cannot write", path);
	fprintf(f, "gpu,sent_bytes\n");
	uint32_t n = ws_sim_fabric(inst->sim)->n_hosts;
	for (uint32_t g = 0; g < n; g++)
		fprintf(f, "%u,%llu\n", g, (unsigned long long)coll_gpu_sent(e, g));
	return fclose(f) ? ws_err_set(err, WS_EIO, "%s: cannot write", path) : WS_OK;
}

static void collone_report(struct ws_inst *inst, struct ws_json *j)
{
	coll_engine_report(((struct collone_state *)inst->state)->eng, j);
}

static const struct ws_workload_ops collone_ops = {
	.size = sizeof(struct ws_workload_ops),
	.start = collone_start,
	.finish = collone_finish,
	.report = collone_report,
};

static const struct ws_plugin collone_plugin = {
	WS_PLUGIN_ABI(WS_KIND_WORKLOAD, struct ws_workload_ops),
	.name = "collone",
	.version = "1.0.0",
	.summary = "test: one collective through the collective engine",
	.params = collone_params,
	.conf_size = sizeof(struct collone_conf),
	.state_size = sizeof(struct collone_state),
	.init = collone_init,
	.fini = collone_fini,
	.ops = &collone_ops,
};

WS_PLUGIN_EXPORT(collone_plugin)
