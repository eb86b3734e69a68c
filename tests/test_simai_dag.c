/* SPDX-License-Identifier: MIT */
/*
 * The simai workload's compact DAG (dag = compact, the default) against the
 * DAG built whole (dag = expanded): every output file byte for byte
 * identical on SimAI's own example, AICB's GPT-13B and LLaMA-7B files, and
 * hand-written files that use every schedule the workload has (a 1F1B
 * pipeline with fewer micro-batches than stages, expert and expert-data-
 * parallel groups, update delays, zero compute, DATA), at packet level and
 * under fluid and wormhole; the compact DAG holding fewer task slots.  A
 * file whose whole DAG is over the 2^27-task cap is refused expanded and
 * accepted compact, with an in-flight estimate of a few thousand tasks,
 * and records = iterations writes iterations.csv alone, the same bytes.
 */
#define _GNU_SOURCE
#include "th.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA TH_SRCDIR "/tests/data/simai/"

/* A formatted string that lives until 16 more are made (th_fmt has one
 * buffer, and these nest). */
static const char *fmt(const char *f, ...)
{
	static char *ring[16];
	static unsigned next;
	char *s;
	va_list ap;
	va_start(ap, f);
	int n = vasprintf(&s, f, ap);
	va_end(ap);
	assert_true(n >= 0);
	free(ring[next % 16]);
	ring[next++ % 16] = s;
	return s;
}

/* a rail fabric of `servers` servers of `gpus_per_server` GPUs */
static const char *rail(unsigned gpus_per_server, unsigned servers, const char *cc,
			const char *accel)
{
	return fmt("[sim]\nseed = 1\n[topology]\nname = rail\ngpus_per_server = %u\n"
		      "servers_per_unit = %u\nunits = 1\n[cc]\nname = %s\n[accel]\n"
		      "name = %s\n", gpus_per_server, servers, cc, accel);
}

static char *out_file(const char *name, const char *file)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s/%s", th_tmpdir(), name, file);
	return th_read(path, NULL);
}

/* A number after "key": in summary.json. */
static uint64_t summary_u64(const char *name, const char *key)
{
	char *s = out_file(name, "summary.json");
	assert_non_null(s);
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\": ", key);
	const char *p = strstr(s, pat);
	if (!p)
		fail_msg("%s: no %s in summary.json", name, key);
	uint64_t v = strtoull(p + strlen(pat), NULL, 10);
	free(s);
	return v;
}

/* Run `ini` with dag = compact and dag = expanded; every output file but
 * summary.json (which names the setting and the wall-clock time) must be
 * the same bytes.  Returns the two runs' task slots. */
static void same_outputs(const char *what, const char *ini, uint64_t *slots)
{
	static const char *const files[] = { "fct.csv", "iterations.csv", "collectives.csv",
					     "breakdown.csv", "timeline.json" };
	static unsigned run;
	char name[2][64];
	for (int d = 0; d < 2; d++) {
		snprintf(name[d], sizeof name[d], "dag%u_%d", run, d);
		struct ws_sim *sim = th_sim(fmt("%sdag = %s\n", ini,
						   d ? "expanded" : "compact"));
		th_run(sim);
		char dir[512];
		snprintf(dir, sizeof dir, "%s/%s", th_tmpdir(), name[d]);
		struct ws_err err;
		ws_err_clear(&err);
		assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
		ws_sim_free(sim);
		slots[d] = summary_u64(name[d], "dag_slots");
	}
	run++;
	for (size_t i = 0; i < WS_ARRAY_LEN(files); i++) {
		char *a = out_file(name[0], files[i]), *b = out_file(name[1], files[i]);
		if (!a || !b) {
			/* timeline.json only when asked for */
			assert_true(!a && !b && !strcmp(files[i], "timeline.json"));
			continue;
		}
		if (strcmp(a, b))
			fail_msg("%s: %s differs between dag = compact and dag = expanded",
				 what, files[i]);
		assert_true(strlen(a) > 20);
		free(a);
		free(b);
	}
}

/* every schedule: pipeline of 2 stages, 3 micro-batches, TP 2, EP 4 */
static const char pp_file[] =
	"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 4 pp: 2 vpp: 1 "
	"ga: 3 all_gpus: 32 pp_comm: 65536\n"
	"5\n"
	"emb -1 1000 ALLREDUCE 65536 1000 NONE 0 2000 ALLREDUCE 131072 100\n"
	"attn -1 3000 ALLGATHER 65536 1500 REDUCESCATTER 65536 1500 ALLREDUCE 262144 50\n"
	"moe -1 2000 ALLTOALL_EP 131072 2000 ALLTOALL_EP 131072 1000 ALLGATHER_DP_EP 65536 0\n"
	"zero -1 0 NONE 0 0 NONE 0 0 NONE 0 0\n"
	"mlp -1 4000 REDUCESCATTER 65536 2000 ALLGATHER 65536 3000 REDUCESCATTER_DP_EP 131072 70\n";

/* more stages (6) than micro-batches (4): warm-up capped; zero compute
 * next to collectives; the pipeline bytes from the forward all-reduces */
static const char pp6_file[] =
	"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 ep: 2 pp: 6 vpp: 1 "
	"ga: 4 all_gpus: 24\n"
	"4\n"
	"emb -1 1000 ALLREDUCE 65536 1000 NONE 0 2000 ALLREDUCE 131072 100\n"
	"attn -1 3000 ALLGATHER 65536 1500 REDUCESCATTER 65536 0 ALLREDUCE 262144 50\n"
	"moe -1 0 ALLTOALL_EP 131072 2000 ALLTOALL_EP 131072 1000 ALLGATHER_DP_EP 65536 0\n"
	"mlp -1 4000 ALLREDUCE 65536 0 ALLGATHER 65536 3000 NONE 0 70\n";

static const char data_file[] =
	"DATA\n3\n"
	"l0 -1 1000 NONE 0 1000 NONE 0 2000 ALLREDUCE 131072 100\n"
	"l1 -1 3000 NONE 0 1500 NONE 0 1500 ALLREDUCE 262144 50\n"
	"l2 -1 2000 NONE 0 2000 NONE 0 1000 ALLREDUCE 65536 0\n";

static void test_identical(void **state)
{
	(void)state;
	uint64_t slots[2];
	/* examples/simai.ini: SimAI's example, packet level, DCQCN, timeline */
	same_outputs("examples/simai.ini",
		     fmt("%s[output]\ntimeline = true\n[workload]\nname = simai\n"
			    "file = %s/examples/simai-microAllReduce.txt\niterations = 2\n",
			    rail(4, 2, "dcqcn", "none"), TH_SRCDIR), slots);
	same_outputs("GPT-13B",
		     fmt("%s[workload]\nname = simai\nfile = %s\ncomm_scale = 0.001\n",
			    rail(8, 2, "none", "none"),
			    DATA "G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt"), slots);
	same_outputs("LLaMA-7B",
		     fmt("%s[output]\ntimeline = true\n[workload]\nname = simai\nfile = %s\n"
			    "comm_scale = 0.001\niterations = 2\n", rail(8, 2, "none", "none"),
			    DATA "L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt"), slots);
	assert_true(slots[0] < slots[1]);
	const char *pp = th_write("dag_pp.txt", pp_file);
	char *pp_path = strdup(pp);
	const char *accel[] = { "none", "fluid", "wormhole" };
	for (int a = 0; a < 3; a++) {
		same_outputs(fmt("pipeline+EP, accel %s", accel[a]),
			     fmt("%s[output]\ntimeline = true\n[workload]\nname = simai\n"
				    "file = %s\niterations = 2\n",
				    rail(4, 8, "dcqcn", accel[a]), pp_path), slots);
		/* one stage's units in flight, not the iteration */
		assert_true(slots[0] < slots[1]);
	}
	same_outputs("pipeline+EP, tree all-reduce, chunks, direct all-to-all",
		     fmt("%s[workload]\nname = simai\nfile = %s\nallreduce = dbtree\n"
			    "chunk = 16KB\nalltoall = direct\n", rail(4, 8, "none", "fluid"),
			    pp_path), slots);
	free(pp_path);
	char *pp6 = strdup(th_write("dag_pp6.txt", pp6_file));
	same_outputs("6 stages, 4 micro-batches",
		     fmt("%s[workload]\nname = simai\nfile = %s\niterations = 3\n",
			    rail(4, 6, "dcqcn", "none"), pp6), slots);
	assert_true(slots[0] < slots[1]);
	free(pp6);
	char *data = strdup(th_write("dag_data.txt", data_file));
	same_outputs("DATA",
		     fmt("%s[workload]\nname = simai\nfile = %s\niterations = 3\n",
			    rail(4, 8, "dcqcn", "none"), data), slots);
	free(data);
}

/*
 * 1,024 workers x 32,800 lines: about 1.3 x 10^8 tasks by the whole
 * build's estimate, over its cap of 2^27; the compact DAG takes it,
 * estimates a few thousand tasks in flight, and holds no more (100 us
 * simulated: the first line's weight-gradient compute, 100 us, and its
 * all-reduce starting).
 */
static void test_over_the_cap(void **state)
{
	(void)state;
	size_t cap = 64 + 32800 * 64;
	char *text = malloc(cap);
	assert_non_null(text);
	int n = snprintf(text, cap, "HYBRID_TRANSFORMER_FWD_IN_BCKWD "
			 "model_parallel_NPU_group: 1\n32800\n");
	for (int i = 0; i < 32800; i++)
		n += snprintf(text + n, cap - (size_t)n,
			      "l%d -1 0 NONE 0 0 NONE 0 100000 ALLREDUCE 1048576 0\n", i);
	char *path = strdup(th_write("dag_big.txt", text));
	free(text);
	const char *ini = fmt("[topology]\nname = rail\n[cc]\nname = none\n[accel]\n"
				 "name = fluid\n[workload]\nname = simai\nfile = %s\n"
				 "records = iterations\n", path);
	struct ws_sim *sim = NULL;
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(th_sim_try(fmt("%sdag = expanded\n", ini), &sim, &err, NULL),
			 WS_EINVAL);
	if (!strstr(err.msg, "1024 workers x 32800 layers is about 134348800 tasks, "
			     "more than 2^27"))
		fail_msg("unexpected refusal: %s", err.msg);
	sim = th_sim(ini); /* compact, the default */
	th_run_until(sim, 100 * WS_US);
	char dir[512];
	snprintf(dir, sizeof dir, "%s/big", th_tmpdir());
	ws_err_clear(&err);
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
	ws_sim_free(sim);
	uint64_t est = summary_u64("big", "dag_in_flight_estimate");
	uint64_t slots = summary_u64("big", "dag_slots");
	assert_true(est > 1024 && est < 16384);
	assert_true(slots <= 2 * est);
	/* records = iterations: no per-collective file */
	char *it = out_file("big", "iterations.csv");
	char *co = out_file("big", "collectives.csv");
	assert_non_null(it);
	assert_null(co);
	free(it);
	free(path);
}

/* records = iterations: the same iterations.csv and fct.csv, and no
 * per-collective file. */
static void test_records(void **state)
{
	(void)state;
	char *pp = strdup(th_write("rec_pp.txt", pp_file));
	static const char *const names[] = { "rec_all", "rec_it" };
	for (int r = 0; r < 2; r++) {
		struct ws_sim *sim = th_sim(fmt("%s[workload]\nname = simai\nfile = %s\n"
						"iterations = 2\nrecords = %s\n",
						rail(4, 8, "dcqcn", "fluid"), pp,
						r ? "iterations" : "all"));
		th_run(sim);
		char dir[512];
		snprintf(dir, sizeof dir, "%s/%s", th_tmpdir(), names[r]);
		struct ws_err err;
		ws_err_clear(&err);
		assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
		ws_sim_free(sim);
	}
	free(pp);
	static const char *const same[] = { "iterations.csv", "fct.csv" };
	for (int i = 0; i < 2; i++) {
		char *a = out_file(names[0], same[i]), *b = out_file(names[1], same[i]);
		assert_non_null(a);
		assert_non_null(b);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	char *co = out_file(names[0], "collectives.csv");
	assert_non_null(co);
	free(co);
	assert_null(out_file(names[1], "collectives.csv"));
	assert_null(out_file(names[1], "breakdown.csv"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_over_the_cap),
		cmocka_unit_test(test_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
