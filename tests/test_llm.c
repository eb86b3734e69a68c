/* SPDX-License-Identifier: MIT */
/*
 * The llm workload: model presets (parameter counts against the published
 * sizes), the 1F1B iteration formula with negligible communication, the
 * byte matrix of a MoE all-to-all, Megatron placement on a rail fabric (DP
 * traffic stays on its rail), gradient collectives (all-reduce, or
 * reduce-scatter + all-gather), several iterations back to back,
 * inconsistent parallelism and bad compute tables rejected with the key
 * named, determinism.
 */
#include "th.h"
#include "collcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 16 hosts, each its own server unless the workload says otherwise */
#define FAT "[topology]\nname = fat-tree\nk = 4\n[cc]\nname = dcqcn\n"

struct out {
	struct th_csv iter, coll, fct;
	char *summary;
};

static void run(const char *ini, const char *name, struct out *o)
{
	struct ws_sim *sim = th_sim(ini);
	th_run(sim);
	char dir[600];
	snprintf(dir, sizeof dir, "%s/%s", th_tmpdir(), name);
	struct ws_err err;
	if (ws_sim_write_outputs(sim, dir, &err))
		fail_msg("%s: %s", name, err.msg);
	ws_sim_free(sim);
	th_csv_load(&o->iter, th_fmt("%s/iterations.csv", dir));
	th_csv_load(&o->coll, th_fmt("%s/collectives.csv", dir));
	th_csv_load(&o->fct, th_fmt("%s/fct.csv", dir));
	o->summary = th_read(th_fmt("%s/summary.json", dir), NULL);
	assert_non_null(o->summary);
}

static void done(struct out *o)
{
	th_csv_free(&o->iter);
	th_csv_free(&o->coll);
	th_csv_free(&o->fct);
	free(o->summary);
}

static double json_num(const char *json, const char *key)
{
	const char *p = strstr(json, th_fmt("\"%s\": ", key));
	if (!p)
		fail_msg("summary.json lacks %s", key);
	return strtod(p + strlen(key) + 4, NULL);
}

/* Parameter counts of the presets against their published sizes. */
static void test_presets(void **state)
{
	(void)state;
	static const struct { const char *model; double params; } m[] = {
		{ "gpt-7b", 6.7e9 }, { "gpt-13b", 13e9 }, { "gpt-22b", 22e9 },
		{ "gpt-175b", 175e9 }, { "llama-65b", 65.2e9 }, { "llama3-405b", 405e9 },
		{ "moe-8x7b", 46.7e9 }, { "moe-8x22b", 141e9 },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(m); i++) {
		struct ws_sim *sim = th_sim(th_fmt(FAT "[workload]\nname = llm\nmodel = %s\n"
						   "tp = 8\ngpus_per_server = 8\niterations = 0\n",
						   m[i].model));
		th_run(sim);
		char dir[600];
		snprintf(dir, sizeof dir, "%s/preset%zu", th_tmpdir(), i);
		struct ws_err err;
		assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
		ws_sim_free(sim);
		char *js = th_read(th_fmt("%s/summary.json", dir), NULL);
		double p = json_num(js, "parameters");
		if (fabs(p - m[i].params) > 0.035 * m[i].params)
			fail_msg("%s: %.4g parameters, published %.4g", m[i].model, p, m[i].params);
		free(js);
	}
}

/*
 * 1F1B with PP stages of forward f and backward b per micro-batch and free
 * communication: (m + PP - 1)(f + b).  Here one layer per stage from a
 * compute table, tiny activations.
 */
static void test_1f1b_formula(void **state)
{
	(void)state;
	const char *table = th_write("table.txt", "# layer fwd_ns bwd_ns\n"
				     "0 1000000 2000000\n1 1000000 2000000\n"
				     "2 1000000 2000000\n3 1000000 2000000\n");
	(void)table;
	for (unsigned m = 1; m <= 8; m += 7) {
		struct out o;
		run(th_fmt(FAT "[workload]\nname = llm\nmodel = custom\nlayers = 4\n"
			   "hidden = 64\nffn = 256\nheads = 4\nvocab = 1000\ngpus = 4\n"
			   "tp = 1\npp = 4\nseq = 16\nmicro_batches = %u\n"
			   "compute_table = table.txt\ngpus_per_server = 1\n", m),
		    th_fmt("1f1b-%u", m), &o);
		assert_int_equal(o.iter.rows, 1);
		double want = (m + 4 - 1) * (1e9 + 2e9);
		assert_int_equal(th_csv_ps(&o.iter, 0, "compute_bound_ns"),
				 (uint64_t)want);
		double got = (double)th_csv_ps(&o.iter, 0, "duration_ns");
		/* the 2 KB activations take a few microseconds per stage hop */
		if (got < want || got > want * 1.02)
			fail_msg("m = %u: iteration %.0f ps, 1F1B formula %.0f ps", m, got, want);
		/* forward and backward sends: 2 (PP-1) per micro-batch */
		assert_int_equal(o.fct.rows, 2 * 3 * m);
		assert_int_equal((uint64_t)th_csv_num(&o.fct, 0, "bytes"), 16 * 64 * 2);
		done(&o);
	}
}

/*
 * MoE all-to-all: 4 GPUs, EP 2 (dp-first: {0,1} and {2,3}); each GPU routes
 * seq x top_k tokens of hidden x 2 bytes, half to its peer; 4 all-to-alls
 * per micro-batch (dispatch and combine, forward and backward).
 */
static void test_moe_byte_matrix(void **state)
{
	(void)state;
	struct out o;
	run(FAT "[workload]\nname = llm\nmodel = custom\nlayers = 1\nhidden = 64\n"
	    "ffn = 128\nheads = 4\nvocab = 100\nexperts = 4\ntop_k = 2\ngpus = 4\n"
	    "tp = 1\npp = 1\nep = 2\nseq = 128\nmicro_batches = 3\ngpus_per_server = 1\n",
	    "moe", &o);
	uint64_t m[4][4] = { { 0 } };
	unsigned a2a = 0;
	for (unsigned i = 0; i < o.fct.rows; i++) {
		uint64_t id = strtoull(th_csv_get(&o.fct, i, "tag"), NULL, 10) >> 24;
		unsigned row = 0;
		while (row < o.coll.rows && strtoull(th_csv_get(&o.coll, row, "id"), NULL, 10) != id)
			row++;
		assert_true(row < o.coll.rows);
		if (strcmp(th_csv_get(&o.coll, row, "kind"), "alltoall"))
			continue;
		a2a++;
		unsigned s = (unsigned)th_csv_num(&o.fct, i, "src");
		unsigned d = (unsigned)th_csv_num(&o.fct, i, "dst");
		m[s][d] += (uint64_t)th_csv_num(&o.fct, i, "bytes");
	}
	const uint64_t pair = 128 * 2 * 64 * 2 / 2; /* S / EP */
	for (unsigned s = 0; s < 4; s++)
		for (unsigned d = 0; d < 4; d++)
			assert_int_equal(m[s][d], s != d && s / 2 == d / 2 ? 4 * 3 * pair : 0);
	assert_int_equal(a2a, 4 * 3 * 4);
	/* the all-to-all rows: 2 groups x 4 per micro-batch */
	unsigned rows = 0;
	for (unsigned i = 0; i < o.coll.rows; i++)
		if (!strcmp(th_csv_get(&o.coll, i, "kind"), "alltoall")) {
			rows++;
			assert_int_equal((uint64_t)th_csv_num(&o.coll, i, "bytes"), 2 * pair);
			assert_int_equal((unsigned)th_csv_num(&o.coll, i, "ranks"), 2);
		}
	assert_int_equal(rows, 2 * 4 * 3);
	/* expert gradients: one all-reduce per expert-data-parallel group (the
	 * same place in each EP group: {0,2} and {1,3}) */
	unsigned edp = 0;
	for (unsigned i = 0; i < o.coll.rows; i++)
		if (!strncmp(th_csv_get(&o.coll, i, "group"), "edp.", 4)) {
			assert_string_equal(th_csv_get(&o.coll, i, "kind"), "allreduce");
			assert_int_equal((unsigned)th_csv_num(&o.coll, i, "ranks"), 2);
			edp++;
		}
	assert_int_equal(edp, 2);
	done(&o);
}

/*
 * Megatron order on a rail fabric: TP inside a server, DP on one rail.  A
 * small custom model (2 layers, hidden 256, vocab 1000: 2.1 M parameters,
 * 1 MB of gradients per TP rank) in buckets of 256 KB, so each DP ring
 * runs several buckets in well under a second; placement does not depend on
 * the model's size.  gpt-7b cut to 2 layers (20 GB of gradients, 15 s) runs
 * with the same checks in bench/check-large.sh.
 */
static void test_rail_placement(void **state)
{
	(void)state;
	struct out o;
	run("[topology]\nname = rail\ngpus_per_server = 8\nservers_per_unit = 4\nunits = 1\n"
	    "[cc]\nname = dcqcn\n[workload]\nname = llm\nmodel = custom\nlayers = 2\n"
	    "hidden = 256\nffn = 1024\nheads = 8\nvocab = 1000\nbucket = 256KB\n"
	    "tp = 8\npp = 1\ndp = 4\nmicro_batches = 2\nseq = 256\n", "rail", &o);
	assert_true(o.fct.rows > 0);
	for (unsigned i = 0; i < o.fct.rows; i++) {
		unsigned s = (unsigned)th_csv_num(&o.fct, i, "src");
		unsigned d = (unsigned)th_csv_num(&o.fct, i, "dst");
		assert_int_equal(s % 8, d % 8);    /* one rail */
		assert_true(s / 8 != d / 8);       /* between servers */
	}
	/* the TP all-reduces took the NVLink model; the DP ones a ring */
	unsigned nv = 0, ring = 0;
	for (unsigned i = 0; i < o.coll.rows; i++) {
		const char *g = th_csv_get(&o.coll, i, "group");
		const char *alg = th_csv_get(&o.coll, i, "algorithm");
		if (!strncmp(g, "tp.", 3)) {
			assert_string_equal(alg, "nvlink");
			nv++;
		} else if (!strncmp(g, "dp.", 3)) {
			assert_string_equal(alg, "ring");
			ring++;
		}
	}
	/* 4 per layer and micro-batch (2 forward, 2 backward) per replica */
	assert_int_equal(nv, 4 * 2 * 2 * 4);
	/* the same buckets in each of the 8 DP rings (one per TP rank), more
	 * than one each */
	assert_int_equal(ring % 8, 0);
	assert_true(ring >= 2 * 8);
	assert_true(json_num(o.summary, "exposed_comm_share") > 0);
	done(&o);
}

/* Gradients: all-reduce of grad_bytes, or reduce-scatter then all-gather. */
static void test_dp_collectives(void **state)
{
	(void)state;
	const char *base = FAT "[workload]\nname = llm\nmodel = custom\nlayers = 2\n"
			   "hidden = 64\nffn = 256\nheads = 4\nvocab = 1000\ngpus = 4\n"
			   "tp = 1\npp = 1\nseq = 16\nmicro_batches = 2\ngpus_per_server = 1\n"
			   "bucket = 1TB\n";
	/* 2 layers of 4 x 64^2 + 2 x 64 x 256, the embedding 1000 x 64 and
	 * the output layer 1000 x 64: one bucket */
	const uint64_t params = 2 * (4 * 64 * 64 + 2 * 64 * 256) + 2 * 1000 * 64;
	struct out a, b;
	run(th_fmt("%s", base), "ar", &a);
	run(th_fmt("%sdp_collective = rs-ag\n", base), "rsag", &b);
	unsigned n = 0;
	for (unsigned i = 0; i < a.coll.rows; i++)
		if (!strncmp(th_csv_get(&a.coll, i, "group"), "dp.", 3)) {
			assert_string_equal(th_csv_get(&a.coll, i, "kind"), "allreduce");
			assert_int_equal((uint64_t)th_csv_num(&a.coll, i, "bytes"), 4 * params);
			n++;
		}
	assert_int_equal(n, 1);
	unsigned rs = 0, ag = 0;
	double rs_end = 0, ag_start = 0;
	for (unsigned i = 0; i < b.coll.rows; i++) {
		const char *k = th_csv_get(&b.coll, i, "kind");
		if (!strcmp(k, "reducescatter")) {
			assert_int_equal((uint64_t)th_csv_num(&b.coll, i, "bytes"), 4 * params);
			rs_end = (double)th_csv_ps(&b.coll, i, "end_ns");
			rs++;
		} else if (!strcmp(k, "allgather")) {
			assert_int_equal((uint64_t)th_csv_num(&b.coll, i, "bytes"), 2 * params);
			ag_start = (double)th_csv_ps(&b.coll, i, "start_ns");
			ag++;
		}
	}
	assert_int_equal(rs, 1);
	assert_int_equal(ag, 1);
	assert_true(ag_start >= rs_end);
	done(&a);
	done(&b);
	/* the gradient all-reduces' own algorithm */
	run(th_fmt("%sdp_allreduce = dbtree\n", base), "dbtree", &a);
	for (unsigned i = 0; i < a.coll.rows; i++)
		if (!strncmp(th_csv_get(&a.coll, i, "group"), "dp.", 3))
			assert_string_equal(th_csv_get(&a.coll, i, "algorithm"), "dbtree");
	done(&a);
}

/* Iterations run back to back; the same DAG on an idle network. */
static void test_iterations(void **state)
{
	(void)state;
	struct out o;
	run(FAT "[workload]\nname = llm\nmodel = custom\nlayers = 2\nhidden = 128\n"
	    "ffn = 512\nheads = 4\nvocab = 1000\ngpus = 8\ntp = 2\npp = 2\nseq = 64\n"
	    "micro_batches = 3\niterations = 3\ngpus_per_server = 2\n", "iters", &o);
	assert_int_equal(o.iter.rows, 3);
	for (unsigned i = 1; i < 3; i++)
		assert_int_equal(th_csv_ps(&o.iter, i, "start_ns"),
				 th_csv_ps(&o.iter, i - 1, "end_ns"));
	for (unsigned i = 0; i < 3; i++) {
		double d = (double)th_csv_ps(&o.iter, i, "duration_ns");
		double b = (double)th_csv_ps(&o.iter, i, "compute_bound_ns");
		assert_true(d >= b);
		assert_int_equal(th_csv_ps(&o.iter, i, "exposed_comm_ns"),
				 (uint64_t)(d - b));
		assert_true(fabs(d - (double)th_csv_ps(&o.iter, 0, "duration_ns")) < 0.02 * d);
	}
	done(&o);
}

static void test_bad_parallelism(void **state)
{
	(void)state;
	static const struct { const char *wl; const char *key; const char *msg; } bad[] = {
		{ "tp = 8\npp = 2\ndp = 4\n", "dp",
		  "tp x pp x dp = 8 x 2 x 4 = 64 GPUs, but the fabric has 16" },
		{ "tp = 2\npp = 2\ndp = 2\ngpus = 16\n", "dp",
		  "tp x pp x dp = 2 x 2 x 2 = 8, but gpus = 16" },
		{ "tp = 3\n", "tp", "tp = 3 does not divide the 32 attention heads" },
		{ "pp = 3\ntp = 1\n", "pp", "pp = 3 does not divide the 32 layers" },
		{ "ep = 2\n", "ep", "ep = 2 but model gpt-7b has no experts" },
		{ "model = moe-8x7b\ntp = 2\ndp = 2\npp = 4\nep = 8\n", "ep",
		  "ep = 8 does not divide tp x dp = 4" },
		{ "model = moe-8x7b\ntp = 1\nep = 3\n", "ep", "ep = 3 does not divide the 8 experts" },
		{ "gpus = 32\n", "gpus", "gpus = 32, but the fabric has 16 hosts" },
		{ "model = custom\nlayers = 2\n", "hidden", "model = custom needs hidden" },
		{ "kv_heads = 5\n", "kv_heads", "kv_heads = 5 must divide heads = 32" },
		{ "model = moe-8x7b\ntop_k = 9\n", "top_k", "top_k = 9 is more than the 8 experts" },
		{ "model = custom\nlayers = 2\nhidden = 768\nffn = 3072\nheads = 12\n"
		  "kv_heads = 4\nvocab = 100\ntp = 6\n", "tp", "tp = 6 and the 4 key/value heads" },
		{ "gpus = 12\ntp = 8\n", "gpus", "gpus = 12 is not a multiple of tp x pp = 8" },
		{ "model = gpt-3\n", "model", "gpt-7b" },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(bad); i++) {
		const char *ini = th_fmt("[topology]\nname = fat-tree\nk = 4\n[workload]\n"
					 "name = llm\n%s", bad[i].wl);
		struct ws_sim *sim = NULL;
		struct ws_err err;
		if (th_sim_try(ini, &sim, &err, NULL) == WS_OK) {
			ws_sim_free(sim);
			fail_msg("case %zu accepted: %s", i, bad[i].wl);
		}
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].msg);
		if (!strstr(err.key, bad[i].key) && !strstr(err.msg, bad[i].key))
			fail_msg("case %zu: key '%s', expected %s", i, err.key, bad[i].key);
	}
}

static void test_bad_compute_table(void **state)
{
	(void)state;
	static const struct { const char *text; int line; const char *msg; } bad[] = {
		{ "0 1 2\n1 1 2\n", 2, "layer 2 is missing" },
		{ "0 1\n", 1, "expected 3 fields" },
		{ "0 1 2 3\n", 1, "expected 3 fields" },
		{ "0 x 2\n", 1, "'x': expected a non-negative integer" },
		{ "0 1 -2\n", 1, "'-2'" },
		{ "0 1 2\n0 1 2\n", 2, "layer 0 is listed twice" },
		{ "9 1 2\n", 1, "layer 9: the model has layers 0..3" },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(bad); i++) {
		th_write("bad-table.txt", bad[i].text);
		struct ws_sim *sim = NULL;
		struct ws_err err;
		const char *ini = FAT "[workload]\nname = llm\nmodel = custom\nlayers = 4\n"
				  "hidden = 64\nffn = 256\nheads = 4\nvocab = 100\ntp = 1\n"
				  "compute_table = bad-table.txt\n";
		if (th_sim_try(ini, &sim, &err, NULL) == WS_OK) {
			ws_sim_free(sim);
			fail_msg("case %zu accepted", i);
		}
		if (!strstr(err.msg, bad[i].msg) || !strstr(err.file, "bad-table.txt"))
			fail_msg("case %zu: %s: '%s' lacks '%s'", i, err.file, err.msg, bad[i].msg);
		if (bad[i].line != 2 || i == 0)
			assert_true(err.line >= 1);
		if (i != 0)
			assert_int_equal(err.line, bad[i].line);
	}
	struct ws_sim *sim = NULL;
	struct ws_err err;
	assert_int_not_equal(th_sim_try(FAT "[workload]\nname = llm\ncompute_table = nope.txt\n"
					"tp = 1\n", &sim, &err, NULL), WS_OK);
	assert_non_null(strstr(err.msg, "cannot open the compute table"));
}

static void test_deterministic(void **state)
{
	(void)state;
	const char *ini = FAT "[workload]\nname = llm\nmodel = custom\nlayers = 2\n"
			  "hidden = 128\nffn = 512\nheads = 4\nvocab = 1000\nexperts = 4\n"
			  "gpus = 16\ntp = 2\npp = 2\nep = 4\nseq = 64\nmicro_batches = 2\n"
			  "gpus_per_server = 2\n";
	struct out a, b;
	run(ini, "det1", &a);
	run(ini, "det2", &b);
	static const char *const files[] = { "fct.csv", "collectives.csv", "iterations.csv" };
	for (size_t i = 0; i < WS_ARRAY_LEN(files); i++) {
		char *x = th_read(th_fmt("%s/det1/%s", th_tmpdir(), files[i]), NULL);
		char *y = th_read(th_fmt("%s/det2/%s", th_tmpdir(), files[i]), NULL);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	assert_true(a.fct.rows > 0);
	done(&a);
	done(&b);
}

/* The GPUs of collectives.csv's members column ("0:2:4", "9;1", "0-3;8"). */
static unsigned count_members(const char *m)
{
	unsigned a, b, n;
	if (sscanf(m, "%u:%u:%u", &a, &b, &n) == 3)
		return n;
	unsigned cnt = 0;
	for (const char *p = m; *p;) {
		char *end;
		a = (unsigned)strtoul(p, &end, 10);
		assert_true(end > p);
		b = *end == '-' ? (unsigned)strtoul(end + 1, &end, 10) : a;
		assert_true(b >= a);
		cnt += b - a + 1;
		p = *end == ';' ? end + 1 : end;
		assert_true(*end == ';' || *end == '\0');
	}
	return cnt;
}

/* Every collective says its layer, phase, dimension and members;
 * breakdown.csv sums exactly; timeline.json parses and matches both. */
static void test_breakdown_timeline(void **state)
{
	(void)state;
	struct out o;
	run(FAT "[output]\ntimeline = true\n[workload]\nname = llm\nmodel = custom\n"
	    "layers = 2\nhidden = 128\nffn = 512\nheads = 4\nvocab = 1000\nexperts = 4\n"
	    "gpus = 16\ntp = 2\npp = 2\nep = 4\nseq = 64\nmicro_batches = 2\n"
	    "gpus_per_server = 2\niterations = 2\n", "bd", &o);
	static const struct { const char *prefix, *dim, *phase; } g[] = {
		{ "tp.", "TP", NULL }, { "dp.", "DP", "wg" }, { "ep.", "EP", NULL },
		{ "edp.", "DP_EP", "wg" }, { "pp.", "PP", "pp" }, { "ppb.", "PP", "pp" },
	};
	unsigned seen[6] = { 0 };
	for (unsigned i = 0; i < o.coll.rows; i++) {
		const char *grp = th_csv_get(&o.coll, i, "group");
		const char *phase = th_csv_get(&o.coll, i, "phase");
		size_t k = 0;
		while (k < 6 && strncmp(grp, g[k].prefix, strlen(g[k].prefix)))
			k++;
		assert_true(k < 6);
		seen[k]++;
		assert_string_equal(th_csv_get(&o.coll, i, "dim"), g[k].dim);
		const char *ln = th_csv_get(&o.coll, i, "layer_name");
		if (k == 0 && !strcmp(th_csv_get(&o.coll, i, "kind"), "allgather")) {
			/* pp_scatter_gather: the TP all-gather of a pipeline receive */
			assert_string_equal(phase, "pp");
			assert_string_equal(ln, "");
		} else if (g[k].phase) {
			assert_string_equal(phase, g[k].phase);
		} else { /* TP and EP: in the passes, of a transformer layer */
			assert_true(!strcmp(phase, "fwd") || !strcmp(phase, "bwd"));
			assert_true(!strncmp(ln, "transformer.", 12));
		}
		if (k >= 4)
			assert_string_equal(th_csv_get(&o.coll, i, "layer"), "");
		/* the members: first:stride:count, or a list of GPUs and ranges */
		assert_int_equal(count_members(th_csv_get(&o.coll, i, "members")),
				 (unsigned)th_csv_num(&o.coll, i, "ranks"));
		if (k == 0 || k == 4) /* TP groups and forward sends: evenly spaced */
			assert_non_null(strchr(th_csv_get(&o.coll, i, "members"), ':'));
	}
	for (int k = 0; k < 6; k++)
		assert_true(seen[k] > 0);
	char dir[600];
	snprintf(dir, sizeof dir, "%s/bd", th_tmpdir());
	assert_int_equal(cc_check_breakdown(dir), 2);
	/* GPU 0 (stage 0) waits for its TP all-reduces and the pipeline */
	assert_true(cc_breakdown_total(dir, 0, "gpu0", "exposed_tp_ns") > 0);
	assert_true(cc_breakdown_total(dir, 0, "gpu0", "exposed_pp_ns") > 0);
	assert_true(cc_breakdown_total(dir, 0, "gpu0", "idle_ns") > 0); /* the bubble */
	assert_true(cc_check_timeline(dir) > o.coll.rows);
	done(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_1f1b_formula),
		cmocka_unit_test(test_moe_byte_matrix),
		cmocka_unit_test(test_rail_placement),
		cmocka_unit_test(test_dp_collectives),
		cmocka_unit_test(test_iterations),
		cmocka_unit_test(test_bad_parallelism),
		cmocka_unit_test(test_bad_compute_table),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_breakdown_timeline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
