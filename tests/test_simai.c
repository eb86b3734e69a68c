/* SPDX-License-Identifier: MIT */
/*
 * The SimAI workload (plugins/workload/simai.c) over the collective engine: SimAI's
 * own example (two NVLink all-reduces, iteration time to the picosecond);
 * AICB's MICRO files on 4 servers (19 collectives in sequence, network
 * flows and bytes per collective as the ring and pairwise algorithms
 * send them); AICB's GPT-13B and LLaMA-7B files run to the end with their
 * sizes scaled down (comm_scale; the collectives per group, the bytes, and
 * the compute-bound time from the file's sums; bench/check-large.sh runs
 * GPT-13B unscaled, 3.25 GB per flow, with the same checks);
 * hand-written files whose iteration time is computed independently
 * (TP x DP with gradient accumulation, DATA, a 1F1B pipeline); the GPUs
 * of TP, DP, EP, DP_EP and pipeline groups seen in the flows; a table of
 * malformed files, each refused with its line and problem; byte mutations
 * of a real file that may fail but never crash; determinism.
 */
#define _GNU_SOURCE
#include "th.h"
#include "collcheck.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA TH_SRCDIR "/tests/data/simai/"

__extension__ typedef unsigned __int128 u128;

/* ---- helpers ----------------------------------------------------------------- */

/* A rail fabric of 2 servers x 8 GPUs, each server one NVLink domain. */
static const char *rail16(const char *file, const char *extra)
{
	return th_fmt("[topology]\nname = rail\ngpus_per_server = 8\nservers_per_unit = 2\n"
		      "units = 1\n[cc]\nname = none\n"
		      "[workload]\nname = simai\nfile = %s\n%s", file, extra);
}

/* A k=4 fat-tree (16 hosts) whose GPUs form servers of `g`. */
static const char *ft16(const char *file, unsigned g, const char *extra)
{
	return th_fmt("[topology]\nname = fat-tree\nk = 4\n[cc]\nname = none\n"
		      "[workload]\nname = simai\nfile = %s\ngpus_per_server = %u\n%s",
		      file, g, extra);
}

/* Run to the end and write the outputs into <tmp>/<name>. */
static void run_out(struct ws_sim *sim, const char *name)
{
	th_run(sim);
	char dir[512];
	snprintf(dir, sizeof dir, "%s/%s", th_tmpdir(), name);
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
}

static char *out_file(const char *name, const char *file)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s/%s", th_tmpdir(), name, file);
	char *s = th_read(path, NULL);
	if (!s)
		fail_msg("cannot read %s", path);
	return s;
}

/* Data rows of a CSV text (the header excluded). */
static unsigned csv_rows(const char *csv)
{
	unsigned n = 0;
	for (const char *p = csv; *p; p++)
		n += *p == '\n';
	return n ? n - 1 : 0;
}

/* Field `col` of data row `row` (0-based), copied into out. */
static const char *csv_field(const char *csv, unsigned row, unsigned col, char *out,
			     size_t size)
{
	const char *p = strchr(csv, '\n');
	assert_non_null(p);
	for (unsigned r = 0; r < row; r++) {
		p = strchr(p + 1, '\n');
		assert_non_null(p);
	}
	p++;
	for (unsigned c = 0; c < col; c++) {
		p = strpbrk(p, ",\n");
		assert_true(p && *p == ',');
		p++;
	}
	size_t l = strcspn(p, ",\n");
	assert_true(l < size);
	memcpy(out, p, l);
	out[l] = '\0';
	return out;
}

/* An integer field, or a time written as ns with three decimals, in ps. */
static uint64_t csv_u64(const char *csv, unsigned row, unsigned col)
{
	char buf[64], *end;
	uint64_t v = strtoull(csv_field(csv, row, col, buf, sizeof buf), &end, 10);
	if (*end == '.') {
		assert_int_equal(strlen(end), 4);
		v = v * 1000 + strtoull(end + 1, NULL, 10);
	}
	return v;
}

/* The row of collectives.csv of a flow's tag: its collective's id is
 * tag >> 24 (plugins/workload/coll.c). */
static unsigned row_of_tag(const char *co, uint64_t tag)
{
	unsigned n = csv_rows(co);
	for (unsigned r = 0; r < n; r++)
		if (csv_u64(co, r, 0) == tag >> 24)
			return r;
	fail_msg("no collective %" PRIu64 " in collectives.csv", tag >> 24);
	return 0;
}

/* iterations.csv columns */
enum { IT_START = 1, IT_END = 2, IT_DURATION = 3, IT_BOUND = 4, IT_COLLS = 6, IT_FLOWS = 7 };
/* collectives.csv columns */
enum { CO_GROUP = 2, CO_RANKS = 3, CO_KIND = 4, CO_ALGO = 5, CO_BYTES = 6, CO_START = 7,
       CO_END = 8, CO_FLOWS = 12 };

/* The NVLink model of coll.h with the default keys: alpha_kind +
 * busbytes / (intra_bw x eff_kind), busbytes = 2(n-1)/n S for an
 * all-reduce, (n-1)/n S otherwise (exact for the sizes used here). */
static ws_time nvlink(const char *kind, unsigned n, uint64_t bytes)
{
	bool ar = !strcmp(kind, "allreduce");
	ws_time alpha = ar ? 10 * WS_US : 8 * WS_US;
	uint64_t bus = (ar ? 2 : 1) * (uint64_t)(n - 1) * bytes;
	assert_int_equal(bus % n, 0);
	bus /= n;
	uint64_t rate = 1920000000000ull; /* 2400 Gb/s x 0.8 */
	return alpha + (ws_time)((u128)bus * 8u * WS_SEC / rate);
}

static bool contains(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

/* ---- (1) SimAI's example: two all-reduces inside one server ------------------ */

static void test_micro_allreduce_exact(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim(rail16(DATA "microAllReduce.txt", ""));
	run_out(sim, "micro");
	char *it = out_file("micro", "iterations.csv");
	char *co = out_file("micro", "collectives.csv");
	/* TP 8 on GPUs 0..7, one server: two calibrated NVLink all-reduces */
	assert_int_equal(csv_rows(co), 2);
	const uint64_t sizes[2] = { 16777216, 67108864 };
	char buf[64];
	for (unsigned i = 0; i < 2; i++) {
		assert_string_equal(csv_field(co, i, CO_GROUP, buf, sizeof buf), "tp");
		assert_int_equal(csv_u64(co, i, CO_RANKS), 8);
		assert_string_equal(csv_field(co, i, CO_KIND, buf, sizeof buf), "allreduce");
		assert_string_equal(csv_field(co, i, CO_ALGO, buf, sizeof buf), "nvlink");
		assert_int_equal(csv_u64(co, i, CO_BYTES), sizes[i]);
		assert_int_equal(csv_u64(co, i, CO_END) - csv_u64(co, i, CO_START),
				 nvlink("allreduce", 8, sizes[i]));
		assert_int_equal(csv_u64(co, i, CO_FLOWS), 0);
	}
	/* forward: 556 us, all-reduce, 1 ns update, twice; backward: 1 ns of
	 * input and of weight gradient per layer, no collective */
	ws_time expect = 2 * 556 * WS_US + nvlink("allreduce", 8, sizes[0]) +
			 nvlink("allreduce", 8, sizes[1]) + 2 * WS_NS + 4 * WS_NS;
	assert_int_equal(csv_rows(it), 1);
	assert_int_equal(csv_u64(it, 0, IT_DURATION), expect);
	assert_int_equal(csv_u64(it, 0, IT_BOUND), 2 * 556 * WS_US + 6 * WS_NS);
	assert_int_equal(ws_flow_count(sim), 0);

	/* the run summary and summary.json say what ran */
	char sum[4096];
	assert_true(ws_sim_workload_summary(sim, "d", sum, sizeof sum) > 0);
	assert_true(contains(sum, "  simai      HYBRID_TRANSFORMER_FWD_IN_BCKWD, 2 layers: "
				  "TP 8 x DP 1 x PP 1, EP 1, 1 micro-batch per iteration\n"));
	assert_true(contains(sum, "  iteration  "));
	char *js = out_file("micro", "summary.json");
	assert_true(contains(js, "\"policy\": \"HYBRID_TRANSFORMER_FWD_IN_BCKWD\""));
	assert_true(contains(js, "\"layers\": 2"));
	free(js);
	free(it);
	free(co);
	ws_sim_free(sim);
}

/* ---- (2) AICB's MICRO files: one collective per line, across servers -------- */

static void check_micro_file(const char *file, const char *kind, unsigned flows_per,
			     unsigned channels)
{
	/* 4 servers of 4 GPUs; sizes / 1024 keep the packet count small */
	char path[512];
	snprintf(path, sizeof path, DATA "%s", file);
	struct ws_sim *sim = th_sim(ft16(path, 4, "comm_scale = 0.0009765625\n"));
	run_out(sim, "microfile");
	char *co = out_file("microfile", "collectives.csv");
	char *it = out_file("microfile", "iterations.csv");
	assert_int_equal(csv_rows(co), 19);
	uint64_t flows_n[19] = { 0 }, flows_b[19] = { 0 };
	uint32_t nf = ws_flow_count(sim);
	for (uint32_t i = 0; i < nf; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		unsigned row = row_of_tag(co, fi.tag);
		assert_true(row < 19);
		assert_int_equal(fi.acked, fi.bytes);
		flows_n[row]++;
		flows_b[row] += fi.bytes;
	}
	char buf[64];
	for (unsigned i = 0; i < 19; i++) {
		uint64_t S = 4096ull << i >> 10; /* the file's size, scaled */
		assert_string_equal(csv_field(co, i, CO_GROUP, buf, sizeof buf), "dp");
		assert_int_equal(csv_u64(co, i, CO_RANKS), 16);
		assert_string_equal(csv_field(co, i, CO_KIND, buf, sizeof buf), kind);
		assert_int_equal(csv_u64(co, i, CO_BYTES), S);
		/* one after another, the 1 ns update between */
		if (i)
			assert_int_equal(csv_u64(co, i, CO_START), csv_u64(co, i - 1, CO_END) + WS_NS);
		/* ring all-reduce: 4 channels (one per NIC of a server), each a
		 * ring of 2(n-1) = 30 steps of ceil(S/4/16) per rank, 4 of its
		 * 16 links between servers; pairwise all-to-all: S/16 to each of
		 * the 12 GPUs of other servers, from each of 16 ranks */
		uint64_t want_b = 0;
		for (unsigned c = 0; c < channels; c++) {
			uint64_t share = S / channels + (c < S % channels);
			want_b += flows_per / channels * ((share + 15) / 16);
		}
		assert_int_equal(flows_n[i], flows_per);
		assert_int_equal(csv_u64(co, i, CO_FLOWS), flows_per);
		assert_int_equal(flows_b[i], want_b);
	}
	assert_int_equal(csv_u64(it, 0, IT_FLOWS), 19 * flows_per);
	assert_int_equal(csv_u64(it, 0, IT_END), csv_u64(co, 18, CO_END) + WS_NS);
	free(co);
	free(it);
	ws_sim_free(sim);
}

static void test_micro_files(void **state)
{
	(void)state;
	check_micro_file("all_reduce.txt", "allreduce", 4 * 4 * 30, 4);
	check_micro_file("all_to_all.txt", "alltoall", 16 * 12, 1);
}

/* ---- (3) AICB's model files, run to the end ------------------------------------ */

static void test_real_files(void **state)
{
	(void)state;
	/* GPT-13B: TP 8, so DP 2 on 16 GPUs; its TP collectives stay in a
	 * server, its weight-gradient reduce-scatter (6.5 GB as written)
	 * crosses.  Sizes / 1024, a power of two, so every byte count is the
	 * file's exactly divided; bench/check-large.sh runs the file unscaled
	 * (3.25 GB per flow) with the same checks. */
	struct ws_sim *sim = th_sim(rail16(DATA "G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt",
					   "comm_scale = 0.0009765625\n[nic]\nmtu = 9216B\n"));
	run_out(sim, "g13b");
	char *it = out_file("g13b", "iterations.csv");
	char *co = out_file("g13b", "collectives.csv");
	/* 90 forward and 82 input-gradient collectives per TP group (2), one
	 * weight-gradient reduce-scatter per DP group (8) */
	assert_int_equal(csv_rows(co), 352);
	unsigned tp = 0, dp = 0;
	char buf[64];
	for (unsigned i = 0; i < 352; i++) {
		csv_field(co, i, CO_GROUP, buf, sizeof buf);
		if (!strcmp(buf, "tp")) {
			tp++;
			assert_int_equal(csv_u64(co, i, CO_RANKS), 8);
			assert_int_equal(csv_u64(co, i, CO_FLOWS), 0);
		} else {
			assert_string_equal(buf, "dp");
			dp++;
			assert_int_equal(csv_u64(co, i, CO_RANKS), 2);
			assert_string_equal(csv_field(co, i, CO_KIND, buf, sizeof buf),
					    "reducescatter");
			assert_int_equal(csv_u64(co, i, CO_BYTES), 6497239040ull / 1024);
			assert_int_equal(csv_u64(co, i, CO_FLOWS), 2);
		}
	}
	assert_int_equal(tp, 344);
	assert_int_equal(dp, 8);
	assert_int_equal(ws_flow_count(sim), 16);
	for (uint32_t i = 0; i < 16; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		assert_int_equal(fi.bytes, 3248619520ull / 1024); /* half, to the peer */
		assert_int_equal(fi.acked, fi.bytes);
		assert_int_equal(fi.dst, (fi.src + 8) % 16);
		/* 3.1 MB at 400 Gb/s: at least 63 us on the wire */
		assert_true(fi.end - fi.start >= 63 * WS_US);
	}
	/* compute-bound: the file's compute sums, a 100 ns update after each of
	 * the 172 blocking collectives, and the reduce-scatter's update, which
	 * outlasts the 2 ns of stream after it */
	ws_time bound = (74645010ull + 73471011ull + 60080012ull + 172 * 100 + 98) * WS_NS;
	assert_int_equal(csv_u64(it, 0, IT_BOUND), bound);
	/* the iteration ends with the last reduce-scatter's update */
	uint64_t last = 0;
	for (unsigned i = 0; i < 352; i++)
		if (csv_u64(co, i, CO_END) > last)
			last = csv_u64(co, i, CO_END);
	assert_int_equal(csv_u64(it, 0, IT_END), last + 100 * WS_NS);
	/* the last reduce-scatter's 63 us at least are exposed */
	assert_true(csv_u64(it, 0, IT_DURATION) > bound + 63 * WS_US);
	free(it);
	free(co);
	ws_sim_free(sim);

	/* LLaMA-7B, sizes / 1000: TP 2, DP 8 across both servers */
	sim = th_sim(rail16(DATA "L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt",
			    "comm_scale = 0.001\niterations = 2\n"));
	run_out(sim, "l7b");
	it = out_file("l7b", "iterations.csv");
	co = out_file("l7b", "collectives.csv");
	/* per iteration: 8 TP groups x (74 + 66), 2 DP groups x 1 */
	assert_int_equal(csv_rows(co), 2 * 1122);
	assert_int_equal(csv_rows(it), 2);
	assert_int_equal(csv_u64(it, 1, IT_START), csv_u64(it, 0, IT_END));
	assert_int_equal(csv_u64(it, 0, IT_COLLS), 1122);
	bound = (32842123ull + 35888012ull + 35888012ull + 140 * 100 + 98) * WS_NS;
	assert_int_equal(csv_u64(it, 0, IT_BOUND), bound);
	assert_int_equal(csv_u64(it, 1, IT_BOUND), bound);
	assert_true(csv_u64(it, 0, IT_DURATION) > bound);
	free(it);
	free(co);
	ws_sim_free(sim);
}

/* ---- (4) hand-written files: the schedule, to the picosecond ------------------ */

struct hl {
	ws_time c[3];       /* fwd, ig, wg compute, ps */
	const char *k[3];   /* kind or NULL */
	unsigned n[3];      /* group size */
	uint64_t b[3];
	ws_time upd;
};

static void test_formula(void **state)
{
	(void)state;
	/* TP 2 x DP 2 on 4 GPUs of one server; ga: 2 does not repeat the lines
	 * (AICB writes its micro-batches out as lines; SimAI runs them once) */
	th_write("formula.txt",
		 "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ga: 2 all_gpus: 4 "
		 "checkpoints: 1 2 checkpoint_initiates: 0\n"
		 "3\n"
		 "emb  -1 1000 ALLGATHER 65536  2000 NONE 0 3000 ALLREDUCE 1048576 7\n"
		 "attn -1 5000 ALLREDUCE 131072 6000 REDUCESCATTER 262144 4000 ALLREDUCE 524288 11\n"
		 "mlp  -1 8000 NONE 0 9000 ALLREDUCE 131072 7000 NONE 0 13\n");
	const struct hl L[3] = {
		{ { 1000 * WS_NS, 2000 * WS_NS, 3000 * WS_NS }, { "allgather", NULL, "allreduce" },
		  { 2, 2, 2 }, { 65536, 0, 1048576 }, 7 * WS_NS },
		{ { 5000 * WS_NS, 6000 * WS_NS, 4000 * WS_NS }, { "allreduce", "reducescatter", "allreduce" },
		  { 2, 2, 2 }, { 131072, 262144, 524288 }, 11 * WS_NS },
		{ { 8000 * WS_NS, 9000 * WS_NS, 7000 * WS_NS }, { NULL, "allreduce", NULL },
		  { 2, 2, 2 }, { 0, 131072, 0 }, 13 * WS_NS },
	};
	/* both workers run the same stream; the DP all-reduces start as both
	 * reach them and run beside the stream */
	ws_time t = 0, end = 0;
	unsigned colls = 0;
	for (unsigned m = 0; m < 1; m++) {
		for (unsigned i = 0; i < 3; i++) {
			t += L[i].c[0];
			if (L[i].k[0]) {
				t += nvlink(L[i].k[0], 2, L[i].b[0]) + L[i].upd;
				colls += 2;
			}
		}
		for (unsigned i = 3; i-- > 0;) {
			t += L[i].c[1];
			if (L[i].k[1]) {
				t += nvlink(L[i].k[1], 2, L[i].b[1]) + L[i].upd;
				colls += 2;
			}
			t += L[i].c[2];
			if (L[i].k[2]) {
				ws_time e = t + nvlink(L[i].k[2], 2, L[i].b[2]) + L[i].upd;
				end = e > end ? e : end;
				colls += 2;
			}
		}
	}
	ws_time expect = t > end ? t : end;
	assert_true(end > t); /* the last weight-gradient all-reduce is exposed */

	struct ws_sim *sim = th_sim(ft16("formula.txt", 4, "iterations = 3\n"));
	run_out(sim, "formula");
	char *it = out_file("formula", "iterations.csv");
	char *co = out_file("formula", "collectives.csv");
	assert_int_equal(csv_rows(it), 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(csv_u64(it, i, IT_DURATION), expect);
		assert_int_equal(csv_u64(it, i, IT_START), i * expect);
		assert_int_equal(csv_u64(it, i, IT_COLLS), colls);
	}
	assert_int_equal(csv_rows(co), 3 * colls);
	assert_int_equal(ws_flow_count(sim), 0);
	free(it);
	free(co);
	ws_sim_free(sim);

	/* DATA: no forward or input-gradient collective; backward runs weight
	 * gradient, its all-reduce, then input gradient (none for layer 0) */
	th_write("data.txt", "DATA\n2\n"
		 "a -1 1000 ALLREDUCE 4096 2000 NONE 0 3000 ALLREDUCE 65536 5\n"
		 "b -1 4000 NONE 0 6000 NONE 0 7000 ALLREDUCE 131072 9\n");
	ws_time tb = (1000 + 4000 + 7000) * WS_NS;
	ws_time eb = tb + nvlink("allreduce", 2, 131072) + 9 * WS_NS;
	ws_time ta = tb + (6000 + 3000) * WS_NS;
	ws_time ea = ta + nvlink("allreduce", 2, 65536) + 5 * WS_NS;
	expect = ea > eb ? ea : eb;
	sim = th_sim(ft16("data.txt", 4, "gpus = 2\n"));
	run_out(sim, "data");
	it = out_file("data", "iterations.csv");
	assert_int_equal(csv_u64(it, 0, IT_DURATION), expect);
	assert_int_equal(csv_u64(it, 0, IT_COLLS), 2);
	free(it);
	ws_sim_free(sim);
}

/* ga: counts micro-batches that AICB has already written out as lines (its
 * SimAI generator repeats the layers ga times; SimAI runs the lines once a
 * pass): 3 copies of 2 layers with ga: 3 run 6 lines an iteration, no
 * more, and the same as with ga: 1.  TP 2 on GPUs 0..1, one server. */
static void test_ga_once(void **state)
{
	(void)state;
	static const char lines[] = "6\n"
		"a -1 100 ALLREDUCE 65536 200 ALLREDUCE 65536 300 NONE 0 0\n"
		"b -1 400 NONE 0 500 NONE 0 600 NONE 0 0\n"
		"a -1 100 ALLREDUCE 65536 200 ALLREDUCE 65536 300 NONE 0 0\n"
		"b -1 400 NONE 0 500 NONE 0 600 NONE 0 0\n"
		"a -1 100 ALLREDUCE 65536 200 ALLREDUCE 65536 300 NONE 0 0\n"
		"b -1 400 NONE 0 500 NONE 0 600 NONE 0 0\n";
	/* per iteration: the compute of the 6 lines once, and 3 lines x
	 * (forward + input-gradient) TP all-reduces, all blocking */
	ws_time bound = 3 * (100 + 200 + 300 + 400 + 500 + 600) * WS_NS;
	ws_time expect = bound + 6 * nvlink("allreduce", 2, 65536);
	for (unsigned ga = 1; ga <= 3; ga += 2) {
		th_write("ga.txt", th_fmt("HYBRID_TRANSFORMER_FWD_IN_BCKWD "
					  "model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 2 ga: %u "
					  "all_gpus: 2 checkpoints: 0 checkpoint_initiates: 0 "
					  "pp_comm: 0\n%s", ga, lines));
		struct ws_sim *sim = th_sim(ft16("ga.txt", 4, "iterations = 2\n"));
		run_out(sim, "ga");
		char *it = out_file("ga", "iterations.csv");
		char *co = out_file("ga", "collectives.csv");
		assert_int_equal(csv_rows(it), 2);
		for (unsigned i = 0; i < 2; i++) {
			assert_int_equal(csv_u64(it, i, IT_BOUND), bound);
			assert_int_equal(csv_u64(it, i, IT_DURATION), expect);
			assert_int_equal(csv_u64(it, i, IT_COLLS), 6);
		}
		assert_int_equal(csv_rows(co), 2 * 6);
		char buf[64];
		for (unsigned i = 0; i < 12; i++) {
			assert_string_equal(csv_field(co, i, CO_GROUP, buf, sizeof buf), "tp");
			assert_int_equal(csv_u64(co, i, CO_RANKS), 2);
		}
		free(it);
		free(co);
		ws_sim_free(sim);
	}
	/* MICRO, which SimAI runs whatever its header says: ga: 2 runs the
	 * line's all-reduce once, as ga: 1 would */
	th_write("ga_micro.txt", "MICRO ga: 2\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 65536 0\n");
	struct ws_sim *sim = th_sim(ft16("ga_micro.txt", 4, "gpus = 2\n"));
	run_out(sim, "ga_micro");
	char *it = out_file("ga_micro", "iterations.csv");
	assert_int_equal(csv_u64(it, 0, IT_COLLS), 1);
	assert_int_equal(csv_u64(it, 0, IT_DURATION), nvlink("allreduce", 2, 65536));
	free(it);
	ws_sim_free(sim);
}

/* 1F1B over 2 stages, 2 micro-batches of one line each (ga: 2 cuts the 2
 * lines into 2 slices; F, I, W ns), the pipeline sends inside one server:
 * each takes x = alpha + P / beta.
 * Stage 1 runs F0 B0 F1 B1, stage 0 F0 F1 B0 B1; the last backward of
 * stage 0 ends at 3F + 2x + 3(I + W). */
static void test_pipeline(void **state)
{
	(void)state;
	th_write("pp.txt", "HYBRID_TRANSFORMER_FWD_IN_BCKWD pp: 2 ga: 2 pp_comm: 1000000 vpp: 1\n"
		 "2\nl -1 1000 NONE 0 300 NONE 0 200 NONE 0 0\n"
		 "l -1 1000 NONE 0 300 NONE 0 200 NONE 0 0\n");
	ws_time x = 2 * WS_US + (ws_time)((u128)1000000 * 8 * WS_SEC / 2400000000000ull);
	ws_time expect = 3 * 1000 * WS_NS + 2 * x + 3 * 500 * WS_NS;
	struct ws_sim *sim = th_sim(ft16("pp.txt", 4, "gpus = 2\n"));
	run_out(sim, "pp");
	char *it = out_file("pp", "iterations.csv");
	char *co = out_file("pp", "collectives.csv");
	assert_int_equal(csv_u64(it, 0, IT_DURATION), expect);
	assert_int_equal(csv_rows(co), 4); /* 2 micro-batches x forward, backward */
	char buf[64];
	for (unsigned i = 0; i < 4; i++) {
		assert_string_equal(csv_field(co, i, CO_GROUP, buf, sizeof buf), "pp");
		assert_string_equal(csv_field(co, i, CO_KIND, buf, sizeof buf), "sendrecv");
		assert_int_equal(csv_u64(co, i, CO_BYTES), 1000000);
		assert_int_equal(csv_u64(co, i, CO_END) - csv_u64(co, i, CO_START), x);
	}
	free(it);
	free(co);
	ws_sim_free(sim);

	/* without pp_comm, the activation is the most common forward
	 * all-reduce; TP 2 sends it from both ranks: 3 micro-batches x 2
	 * directions x 2 ranks */
	th_write("pp2.txt", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 pp: 2 ga: 3\n"
		 "3\n"
		 "a -1 10 ALLREDUCE 2000 10 NONE 0 10 NONE 0 0\n"
		 "b -1 10 ALLREDUCE 1000 10 NONE 0 10 NONE 0 0\n"
		 "c -1 10 ALLREDUCE 1000 10 NONE 0 10 NONE 0 0\n");
	sim = th_sim(ft16("pp2.txt", 4, "gpus = 4\n"));
	run_out(sim, "pp2");
	co = out_file("pp2", "collectives.csv");
	unsigned sr = 0;
	for (unsigned i = 0; i < csv_rows(co); i++)
		if (!strcmp(csv_field(co, i, CO_GROUP, buf, sizeof buf), "pp")) {
			sr++;
			assert_int_equal(csv_u64(co, i, CO_BYTES), 1000);
		}
	assert_int_equal(sr, 12);
	/* and each line's forward all-reduce once per stage: ga: 3 cuts the 3
	 * lines into 3 micro-batches of one line, it does not repeat them */
	assert_int_equal(csv_rows(co), 12 + 3 * 2);
	free(co);
	ws_sim_free(sim);
}

/* ---- (5) who is in which group ---------------------------------------------- */

/* Directed GPU pairs of the flows of collectives whose group is `label`,
 * as a 16 x 16 matrix of counts. */
static void edges(struct ws_sim *sim, const char *co, const char *label,
		  unsigned m[16][16])
{
	memset(m, 0, 16 * 16 * sizeof m[0][0]);
	char buf[64];
	for (uint32_t i = 0; i < ws_flow_count(sim); i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		if (!strcmp(csv_field(co, row_of_tag(co, fi.tag), CO_GROUP, buf, sizeof buf), label))
			m[fi.src][fi.dst]++;
	}
}

/* Every consecutive pair of each ring (and only those) carries `per` flows. */
static void assert_rings(unsigned m[16][16], const unsigned *rings, unsigned n_rings,
			 unsigned len, unsigned per, const char *what)
{
	unsigned want[16][16] = { { 0 } };
	for (unsigned r = 0; r < n_rings; r++)
		for (unsigned i = 0; i < len; i++)
			want[rings[r * len + i]][rings[r * len + (i + 1) % len]] += per;
	for (unsigned a = 0; a < 16; a++)
		for (unsigned b = 0; b < 16; b++)
			if (m[a][b] != want[a][b])
				fail_msg("%s: %u flows from GPU %u to %u, expected %u", what,
					 m[a][b], a, b, want[a][b]);
}

static void test_groups(void **state)
{
	(void)state;
	/* one GPU per server, so that every transfer is a flow; TP 2, DP 4,
	 * EP 2: stage ranks j = dp + 4 tp; expert groups {j0 j1} = GPUs {0 2},
	 * {4 6}, {1 3}, {5 7}; expert-data groups j = 0, 2, 4, 6 -> GPUs
	 * {0 4 1 5} and {2 6 3 7} */
	th_write("groups.txt",
		 "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 all_gpus: 8\n"
		 "2\n"
		 "attn -1 0 ALLREDUCE 4096 0 NONE 0 0 ALLREDUCE 8192 0\n"
		 "moe  -1 0 ALLTOALL_EP 4096 0 NONE 0 0 ALLREDUCE_DP_EP 8192 0\n");
	struct ws_sim *sim = th_sim(ft16("groups.txt", 1, ""));
	run_out(sim, "groups");
	char *co = out_file("groups", "collectives.csv");
	unsigned m[16][16];
	static const unsigned tp[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const unsigned dp[] = { 0, 2, 4, 6, 1, 3, 5, 7 };
	static const unsigned ep[] = { 0, 2, 4, 6, 1, 3, 5, 7 };
	static const unsigned dpep[] = { 0, 4, 1, 5, 2, 6, 3, 7 };
	edges(sim, co, "tp", m);
	assert_rings(m, tp, 4, 2, 2, "tp"); /* ring of 2: 2 steps each way */
	edges(sim, co, "dp", m);
	assert_rings(m, dp, 2, 4, 6, "dp");
	edges(sim, co, "ep", m);
	assert_rings(m, ep, 4, 2, 1, "ep"); /* pairwise of 2: 1 step */
	edges(sim, co, "dp_ep", m);
	assert_rings(m, dpep, 2, 4, 6, "dp_ep");
	free(co);
	ws_sim_free(sim);

	/* pp 2, TP 2, DP 2: stage 0 is GPUs 0..3, stage 1 is 4..7; each rank
	 * sends to its peer forward and back once per micro-batch */
	th_write("groups2.txt", "HYBRID_TRANSFORMER pp: 2 model_parallel_NPU_group: 2 "
		 "pp_comm: 5000 ga: 1\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n");
	sim = th_sim(ft16("groups2.txt", 1, "gpus = 8\n"));
	run_out(sim, "groups2");
	co = out_file("groups2", "collectives.csv");
	edges(sim, co, "pp", m);
	static const unsigned pp[] = { 0, 4, 1, 5, 2, 6, 3, 7 };
	assert_rings(m, pp, 4, 2, 1, "pp");
	free(co);
	ws_sim_free(sim);
}

/* ---- (6) malformed files ----------------------------------------------------- */

#define HDR "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 ep: 1 pp: 1 ga: 1 all_gpus: 16\n"
#define LAYER "l -1 1 ALLREDUCE 4096 1 NONE 0 1 NONE 0 1\n"

static const struct th_bad_file bad_files[] = {
	{ "missing file", NULL, WS_ENOENT, 0,
	  "cannot open the SimAI workload: No such file or directory" },
	{ "empty file", "", WS_EINVAL, 0, "empty SimAI workload" },
	{ "only blank lines", "\n  \n\t\n", WS_EINVAL, 0, "empty SimAI workload" },
	{ "unknown policy", "HYBRID_FOO model_parallel_NPU_group: 2\n1\n" LAYER, WS_EINVAL, 1,
	  "unknown policy 'HYBRID_FOO' on the first line (expected "
	  "HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_TRANSFORMER, DATA or MICRO)" },
	{ "policy not modelled", "HYBRID_DLRM\n1\n" LAYER, WS_EINVAL, 1,
	  "policy 'HYBRID_DLRM' is SimAI's, but the simai workload does not model it" },
	{ "unknown header key", "HYBRID_TRANSFORMER tp: 2\n1\n" LAYER, WS_EINVAL, 1,
	  "unknown header key 'tp:' (expected model_parallel_NPU_group:, ep:," },
	{ "header key without colon", "HYBRID_TRANSFORMER ep 2\n1\n" LAYER, WS_EINVAL, 1,
	  "header key 'ep' needs its colon ('ep:')" },
	{ "bad header value", "HYBRID_TRANSFORMER model_parallel_NPU_group: eight\n1\n" LAYER,
	  WS_EINVAL, 1, "bad value 'eight' for header key 'model_parallel_NPU_group:' "
	  "(expected a non-negative integer)" },
	{ "header value 0", "HYBRID_TRANSFORMER pp: 0\n1\n" LAYER, WS_EINVAL, 1,
	  "header key 'pp:' 0 is out of range (1 .. 16777216)" },
	{ "header key twice", "HYBRID_TRANSFORMER ep: 1 ep: 2\n1\n" LAYER, WS_EINVAL, 1,
	  "header key 'ep:' appears twice" },
	{ "header key without value", "HYBRID_TRANSFORMER ga:\n1\n" LAYER, WS_EINVAL, 1,
	  "header key 'ga:' has no value" },
	{ "short checkpoint list", "HYBRID_TRANSFORMER checkpoints: 2 0\n1\n" LAYER,
	  WS_EINVAL, 1, "header key 'checkpoints:' announces 2 layers but lists 1" },
	{ "checkpoint of no layer", "HYBRID_TRANSFORMER checkpoints: 1 7\n1\n" LAYER,
	  WS_EINVAL, 1, "checkpoints: layer 7 does not exist (the file has layers 0..0)" },
	{ "missing count", HDR, WS_EINVAL, 1,
	  "the file ends after its header (expected the number of layer lines" },
	{ "count not a number", HDR "two\n" LAYER, WS_EINVAL, 2,
	  "the line after the header must be the number of layer lines (an integer "
	  "from 1 to 10^7)" },
	{ "count 0", HDR "0\n", WS_EINVAL, 2,
	  "the line after the header must be the number of layer lines" },
	{ "count but no layer line", HDR "3\n", WS_EINVAL, 2,
	  "the file declares 3 layers but has 0 layer lines after this one" },
	{ "too few fields", HDR "2\n" LAYER "l -1 1 NONE 0 1 NONE 0 1 NONE 0\n", WS_EINVAL, 4,
	  "too few fields (found 11 fields; expected 12: name dependency fwd_compute_ns" },
	{ "too many fields", HDR "1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1 x\n", WS_EINVAL, 3,
	  "too many fields (found 13 fields;" },
	{ "non-numeric time", HDR "1\nl -1 1us NONE 0 1 NONE 0 1 NONE 0 1\n", WS_EINVAL, 3,
	  "bad fwd_compute_ns '1us' (expected a non-negative integer)" },
	{ "negative time", HDR "1\nl -1 1 NONE 0 -5 NONE 0 1 NONE 0 1\n", WS_EINVAL, 3,
	  "bad ig_compute_ns '-5' (a negative number; expected a non-negative integer)" },
	{ "negative bytes", HDR "1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE -4096 1\n", WS_EINVAL, 3,
	  "bad wg_bytes '-4096' (a negative number" },
	{ "non-numeric bytes", HDR "1\nl -1 1 ALLREDUCE 1e6 1 NONE 0 1 NONE 0 1\n", WS_EINVAL, 3,
	  "bad fwd_bytes '1e6' (expected a non-negative integer)" },
	{ "negative update", HDR "1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 -1\n", WS_EINVAL, 3,
	  "bad update_ns '-1' (a negative number" },
	{ "unknown collective", HDR "1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE_TP 8 1\n", WS_EINVAL, 3,
	  "unknown collective type 'ALLREDUCE_TP' in wg_type (expected NONE, BROADCAST, or "
	  "ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL, each optionally with _EP or _DP_EP)" },
	{ "lower-case collective", HDR "1\nl -1 1 allreduce 8 1 NONE 0 1 NONE 0 1\n", WS_EINVAL, 3,
	  "unknown collective type 'allreduce' in fwd_type" },
	{ "bad dependency", HDR "1\nl x 1 NONE 0 1 NONE 0 1 NONE 0 1\n", WS_EINVAL, 3,
	  "bad dependency 'x' (expected an integer; generated files write -1)" },
	{ "time beyond the clock", HDR "1\nl -1 99999999999999999 NONE 0 1 NONE 0 1 NONE 0 1\n",
	  WS_EINVAL, 3, "fwd_compute_ns 99999999999999999 is too large for the simulated clock" },
	{ "bytes beyond 2^50", HDR "1\nl -1 1 ALLREDUCE 2251799813685249 1 NONE 0 1 NONE 0 1\n",
	  WS_EINVAL, 3, "fwd_bytes 2251799813685249 x comm_scale 1 = 2.252e+15 bytes is too large (at most 2^50)" },
	{ "TP x PP does not divide the GPUs",
	  "HYBRID_TRANSFORMER model_parallel_NPU_group: 3 pp: 2\n1\n" LAYER, WS_EINVAL, 1,
	  "model_parallel_NPU_group: 3 x pp: 2 = 6 does not divide the 16 GPUs used" },
	{ "EP does not divide DP x TP",
	  "HYBRID_TRANSFORMER model_parallel_NPU_group: 4 ep: 3\n1\n" LAYER, WS_EINVAL, 1,
	  "ep: 3 does not divide DP x TP = 4 x 4 = 16" },
	{ "all_gpus larger than the fabric", "HYBRID_TRANSFORMER all_gpus: 32\n1\n" LAYER,
	  WS_EINVAL, 1, "all_gpus: 32 is more GPUs than the fabric has hosts (16)" },
	{ "DATA with TP", "DATA model_parallel_NPU_group: 2\n1\n" LAYER, WS_EINVAL, 1,
	  "the DATA policy is pure data parallelism: model_parallel_NPU_group: and pp: must be 1" },
	{ "MICRO with ep", "MICRO ep: 2\n1\n" LAYER, WS_EINVAL, 1,
	  "the MICRO policy runs each collective once on every GPU: ep: must be 1" },
	{ "pipeline without a size", "HYBRID_TRANSFORMER pp: 2\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
	  WS_EINVAL, 1, "pp: 2 needs pp_comm: (the bytes of one activation send)" },
	{ "nothing to simulate", HDR "1\nl -1 0 NONE 0 0 NONE 0 0 NONE 0 0\n", WS_EINVAL, 0,
	  "nothing to simulate: no compute time and no collective the "
	  "HYBRID_TRANSFORMER_FWD_IN_BCKWD policy runs" },
	{ "MICRO without a collective", "MICRO\n1\nl -1 5 ALLREDUCE 8 5 NONE 0 5 NONE 0 5\n",
	  WS_EINVAL, 0, "nothing to simulate" },
	/* the first bad line is reported; comments and blank lines count */
	{ "line numbers count comments", "# a workload\n\n" HDR "2\n" LAYER "\nl -1 1 NONE\n",
	  WS_EINVAL, 7, "too few fields (found 4 fields;" },
};

static void test_bad_file(void **state)
{
	th_check_bad_file(*state, ft16("bad.txt", 4, ""));
}

/* Errors about the configuration name its key and ini line. */
static void test_bad_keys(void **state)
{
	(void)state;
	th_write("ok.txt", HDR "1\n" LAYER);
	struct ws_sim *sim;
	struct ws_err err;
	char msg[2048];
	/* more GPUs than hosts */
	assert_int_equal(th_sim_try(ft16("ok.txt", 4, "gpus = 17\n"), &sim, &err, NULL),
			 WS_EINVAL);
	ws_err_format(&err, msg, sizeof msg);
	assert_string_equal(err.key, "workload.gpus");
	assert_true(contains(msg, "test.ini:10: gpus = 17, but the fabric has 16 hosts"));
	/* gpus that contradict the file's all_gpus */
	assert_int_equal(th_sim_try(ft16("ok.txt", 4, "gpus = 8\n"), &sim, &err, NULL),
			 WS_EINVAL);
	assert_int_equal(err.line, 1);
	assert_true(contains(err.msg, "all_gpus: 16 differs from gpus = 8 (leave gpus = 0 "
				      "to use the file's)"));
	/* servers that are not the topology's */
	assert_int_equal(th_sim_try(rail16("ok.txt", "gpus_per_server = 4\n"), &sim, &err,
				    NULL), WS_EINVAL);
	assert_string_equal(err.key, "workload.gpus_per_server");
	assert_true(contains(err.msg, "the topology has servers of 8 GPUs"));
	/* lines after the declared layers: one warning */
	th_write("extra.txt", HDR "1\n" LAYER LAYER "not even a layer\n");
	sim = th_sim(ft16("extra.txt", 4, ""));
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.warnings, 1);
	ws_sim_free(sim);
}

/* collectives.csv's layer and phase columns follow the file line by line
 * (a pipeline of 2 stages, 2 micro-batches, TP 4 in a server, DP 2 across
 * servers); breakdown.csv sums exactly; timeline.json matches both. */
static void test_breakdown_timeline(void **state)
{
	(void)state;
	static const char *const names[3] = { "attn", "mlp", "head" };
	th_write("bd.txt", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 "
		 "pp: 2 ga: 2 pp_comm: 65536 all_gpus: 16\n3\n"
		 "attn -1 1000 ALLREDUCE 65536 1000 ALLREDUCE 65536 1000 NONE 0 100\n"
		 "mlp -1 2000 ALLREDUCE 65536 2000 NONE 0 2000 ALLREDUCE 1048576 100\n"
		 "head -1 500 NONE 0 500 NONE 0 500 REDUCESCATTER 262144 100\n");
	/* the collective of each line and phase (fwd, ig, wg): its kind */
	static const char *const kind[3][3] = {
		{ "allreduce", "allreduce", NULL },
		{ "allreduce", NULL, "allreduce" },
		{ NULL, NULL, "reducescatter" },
	};
	static const char *const ph[3] = { "fwd", "ig", "wg" };
	struct ws_sim *sim = th_sim(ft16("bd.txt", 4, "iterations = 2\n[output]\n"
					 "timeline = true\n"));
	run_out(sim, "bd");
	ws_sim_free(sim);
	char dir[600];
	snprintf(dir, sizeof dir, "%s/bd", th_tmpdir());
	struct th_csv co;
	th_csv_load(&co, th_fmt("%s/collectives.csv", dir));
	unsigned pp = 0, by[3][3] = { { 0 } };
	for (unsigned r = 0; r < co.rows; r++) {
		const char *phase = th_csv_get(&co, r, "phase");
		if (!strcmp(phase, "pp")) {
			assert_string_equal(th_csv_get(&co, r, "dim"), "PP");
			assert_string_equal(th_csv_get(&co, r, "layer"), "");
			pp++;
			continue;
		}
		unsigned l = (unsigned)th_csv_num(&co, r, "layer"), p = 0;
		assert_true(l < 3);
		assert_string_equal(th_csv_get(&co, r, "layer_name"), names[l]);
		while (p < 3 && strcmp(phase, ph[p]))
			p++;
		assert_true(p < 3);
		assert_non_null(kind[l][p]);
		assert_string_equal(th_csv_get(&co, r, "kind"), kind[l][p]);
		assert_string_equal(th_csv_get(&co, r, "dim"), p == 2 ? "DP" : "TP");
		by[l][p]++;
	}
	/* per iteration (2), each line once: fwd and ig in each stage (2) and
	 * TP group (2 per stage); wg once per stage and DP group (4) */
	for (unsigned l = 0; l < 3; l++)
		for (unsigned p = 0; p < 3; p++)
			assert_int_equal(by[l][p], !kind[l][p] ? 0 : 2 * (p == 2 ? 2 * 4 : 2 * 2));
	/* 2 x (TP 4 x DP 2) sends per micro-batch, forward and backward */
	assert_int_equal(pp, 2 * 2 * 2 * 8);
	th_csv_free(&co);
	assert_int_equal(cc_check_breakdown(dir), 2);
	assert_true(cc_breakdown_total(dir, 1, "gpu0", "exposed_dp_ns") > 0);
	assert_true(cc_breakdown_total(dir, 1, "gpu0", "exposed_tp_ns") > 0);
	assert_true(cc_check_timeline(dir) > 0);
}

/* A declared count larger than the lines (AICB's LLaMA-65B file declares
 * 839 and holds 33): strict refuses it at the count's line; by default the
 * lines present run, with one warning naming file:line. */
static void test_count_mismatch(void **state)
{
	(void)state;
	th_write("short.txt", HDR "\n3\n" LAYER LAYER);
	struct ws_sim *sim;
	struct ws_err err;
	assert_int_equal(th_sim_try(ft16("short.txt", 4, "strict = true\n"), &sim, &err,
				    NULL), WS_EINVAL);
	assert_int_equal(err.line, 3);
	assert_true(contains(err.file, "short.txt"));
	assert_true(contains(err.msg, "the file declares 3 layers but has 2 layer lines "
				      "after this one ([workload] strict = true)"));
	sim = th_sim(ft16("short.txt", 4, ""));
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.warnings, 1);
	run_out(sim, "short");
	/* two layers of one forward all-reduce in each of the 4 TP groups */
	char *co = out_file("short", "collectives.csv");
	unsigned rows = 0;
	for (const char *p = co; (p = strchr(p, '\n')); p++)
		rows++;
	assert_int_equal(rows, 1 + 2 * 4);
	free(co);
	ws_sim_free(sim);
}

/* ---- (7) mutations of a real file never crash --------------------------------- */

static void test_fuzz(void **state)
{
	(void)state;
	size_t len;
	char *orig = th_read(DATA "microAllReduce.txt", &len);
	assert_non_null(orig);
	char *buf = malloc(len + 8);
	assert_non_null(buf);
	static const char alphabet[] = "0123456789 -\t\n:_#ABELNOPRUX\0\xff";
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned ok = 0, refused = 0;
	for (int iter = 0; iter < 500; iter++) {
		memcpy(buf, orig, len);
		size_t n = len;
		int edits = 1 + (int)(x % 3);
		for (int e = 0; e < edits; e++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			size_t at = (size_t)(x >> 8) % n;
			char c = alphabet[(x >> 40) % (sizeof alphabet - 1)];
			switch ((x >> 56) % 3) {
			case 0: /* replace */
				buf[at] = c;
				break;
			case 1: /* delete */
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
				break;
			default: /* insert */
				memmove(buf + at + 1, buf + at, n - at);
				buf[at] = c;
				n++;
				break;
			}
		}
		char path[512];
		snprintf(path, sizeof path, "%s/fuzz.txt", th_tmpdir());
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(buf, 1, n, f), n);
		fclose(f);
		struct ws_sim *sim;
		struct ws_err err;
		if (th_sim_try(rail16("fuzz.txt", ""), &sim, &err, NULL)) {
			assert_true(err.code < 0);
			assert_true(err.msg[0] != '\0');
			refused++;
			continue;
		}
		ws_err_clear(&err);
		(void)ws_sim_run(sim, WS_MS, &err); /* may stop with an error */
		ws_sim_free(sim);
		ok++;
	}
	assert_int_equal(ok + refused, 500);
	assert_true(ok > 0 && refused > 0);
	free(buf);
	free(orig);
}

/* ---- (8) determinism ---------------------------------------------------------- */

static void test_determinism(void **state)
{
	(void)state;
	char *out[2][2];
	for (int r = 0; r < 2; r++) {
		struct ws_sim *sim = th_sim(rail16(DATA "L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt",
						   "comm_scale = 0.001\n"));
		const char *name = r ? "det1" : "det0";
		run_out(sim, name);
		out[r][0] = out_file(name, "iterations.csv");
		out[r][1] = out_file(name, "collectives.csv");
		ws_sim_free(sim);
	}
	assert_string_equal(out[0][0], out[1][0]);
	assert_string_equal(out[0][1], out[1][1]);
	assert_true(csv_rows(out[0][1]) == 1122);
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < 2; i++)
			free(out[r][i]);
}

int main(void)
{
	enum { N_BAD = sizeof bad_files / sizeof bad_files[0] };
	static struct CMUnitTest tests[N_BAD + 16];
	size_t n = 0;
	const struct CMUnitTest head[] = {
		cmocka_unit_test(test_micro_allreduce_exact),
		cmocka_unit_test(test_micro_files),
		cmocka_unit_test(test_real_files),
		cmocka_unit_test(test_formula),
		cmocka_unit_test(test_ga_once),
		cmocka_unit_test(test_pipeline),
		cmocka_unit_test(test_groups),
	};
	for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
		tests[n++] = head[i];
	for (size_t i = 0; i < N_BAD; i++)
		tests[n++] = (struct CMUnitTest){ bad_files[i].name, test_bad_file, NULL,
						  NULL, (void *)&bad_files[i] };
	const struct CMUnitTest tail[] = {
		cmocka_unit_test(test_bad_keys),
		cmocka_unit_test(test_count_mismatch),
		cmocka_unit_test(test_breakdown_timeline),
		cmocka_unit_test(test_fuzz),
		cmocka_unit_test(test_determinism),
	};
	for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
		tests[n++] = tail[i];
	return _cmocka_run_group_tests("test_simai", tests, n, NULL, NULL);
}
