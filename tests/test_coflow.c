/* SPDX-License-Identifier: MIT */
/*
 * [workload] collectives = coflow (plugins/workload/coflow.c): a collective
 * across servers as one fluid entity.  Alone on the fabric it takes what
 * its transfers take as flows under `fluid` (each algorithm, counts and
 * bytes the same); collectives sharing a link share it (closed form: two
 * sends from one NIC take twice as long); a collective like an earlier one
 * is taken from the memo with the same result; the same configuration
 * gives the same bytes; a real SimAI file's iteration stays within 1 % of
 * the per-flow fluid run; [failures] is refused.
 */
#include "th.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLUGINS TH_BUILDDIR "/tests/plugins/.libs"
#define DATA TH_SRCDIR "/tests/data/simai/"

/* k = 4 fat-tree, 100 Gb/s, 1 us links; every host its own server */
#define FAT "[topology]\nname = fat-tree\nk = 4\n[cc]\nname = dcqcn\n"
/* 8 leaves of 4 hosts under one spine (one path between any two hosts,
 * leaf uplinks 4:1 oversubscribed) */
#define STAR "[topology]\nname = clos\ntiers = 2\nradix = 8\ndown1 = 4\nup1 = 1\n" \
	     "[cc]\nname = dcqcn\n"

/* Runs ini (plus `extra` lines) and loads out/NAME/FILE into *csv; returns
 * the number of flows the kernel simulated. */
static uint64_t run(const char *ini, const char *extra, const char *name, const char *file,
		    struct th_csv *csv)
{
	char text[2048], path[700];
	snprintf(text, sizeof text, "%s%s", ini, extra);
	struct ws_sim_stats st;
	th_run_outputs(text, PLUGINS, name, &st);
	snprintf(path, sizeof path, "%s/%s/%s", th_tmpdir(), name, file);
	th_csv_load(csv, path);
	return st.flows;
}

static double col(const struct th_csv *c, unsigned row, const char *name)
{
	return th_csv_num(c, row, name);
}

static void check_near(double got, double want, double tol, const char *what)
{
	if (fabs(got - want) > tol * want)
		fail_msg("%s: %.0f, flows %.0f (%.3f %% off, allowed %.2f %%)", what, got,
			 want, 100.0 * (got - want) / want, 100 * tol);
}

/* One collective alone: the coflow's time is the flows' time under fluid;
 * the same transfers are counted and no kernel flow is made. */
static void test_alone_as_flows(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "ring", "kind = allreduce\nbytes = 16MiB\nn = 4\nstride = 4\n" },
		{ "rs", "kind = reducescatter\nbytes = 8MiB\nn = 8\nstride = 2\n" },
		{ "ag-chunks", "kind = allgather\nbytes = 8MiB\nn = 8\nstride = 2\nchunk = 256KiB\n" },
		{ "a2a-pairwise", "kind = alltoall\nbytes = 4MiB\nn = 8\nstride = 2\n" },
		{ "a2a-direct", "kind = alltoall\nbytes = 4MiB\nn = 8\nstride = 2\nalltoall = direct\n" },
		{ "dbtree", "kind = allreduce\nbytes = 2MiB\nn = 8\nstride = 2\nallreduce = dbtree\n"
			    "chunk = 256KiB\n" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char ini[512];
		snprintf(ini, sizeof ini, STAR "[workload]\nname = collone\ngpus_per_server = 1\n%s",
			 cases[i][1]);
		struct th_csv f, c;
		char fl[64], cf[64];
		snprintf(fl, sizeof fl, "fl-%s", cases[i][0]);
		snprintf(cf, sizeof cf, "cf-%s", cases[i][0]);
		uint64_t flows = run(ini, "[accel]\nname = fluid\n", fl, "collectives.csv", &f);
		uint64_t none = run(ini, "collectives = coflow\n", cf, "collectives.csv", &c);
		assert_int_equal(none, 0);
		assert_true(flows > 0);
		assert_int_equal(col(&c, 0, "flows"), col(&f, 0, "flows"));
		assert_int_equal(col(&f, 0, "flows"), flows);
		print_message("%s: coflow %.3f us, flows %.3f us\n", cases[i][0],
			      col(&c, 0, "duration_ns") / 1e3, col(&f, 0, "duration_ns") / 1e3);
		check_near(col(&c, 0, "duration_ns"), col(&f, 0, "duration_ns"), 0.002, cases[i][0]);
		th_csv_free(&f);
		th_csv_free(&c);
	}
}

/* Two sends of S leaving one NIC at once share its link: each takes twice
 * the serialization of one alone, plus the same latency; the flows agree. */
static void test_shared_link(void **state)
{
	(void)state;
	const char *ini = FAT "[workload]\nname = collone\ngpus_per_server = 1\n"
			      "kind = sendrecv\nbytes = 16MiB\nn = 2\nstride = 4\n";
	struct th_csv one, two, fl;
	run(ini, "collectives = coflow\n", "cf-send1", "collectives.csv", &one);
	run(ini, "collectives = coflow\nfan = 2\n", "cf-send2", "collectives.csv", &two);
	run(ini, "fan = 2\n[accel]\nname = fluid\n", "fl-send2", "collectives.csv", &fl);
	assert_int_equal(two.rows, 2);
	/* 16 MiB at 100 Gb/s, 52 bytes of headers a 1000-byte packet, and the
	 * 60-byte ACKs of each packet on the same NIC's reverse link */
	double S = 16.0 * 1048576, ser = S * 1052 / 1000 * 8 / 100e9 * 1e9;
	double d1 = col(&one, 0, "duration_ns");
	check_near(d1, ser, 0.07, "one send");
	for (unsigned r = 0; r < 2; r++) {
		double d2 = col(&two, r, "duration_ns");
		check_near(d2 - d1, d1 * 0.995, 0.02, "the second send's share");
		check_near(d2, col(&fl, r, "duration_ns"), 0.01, "two sends");
	}
	th_csv_free(&one);
	th_csv_free(&two);
	th_csv_free(&fl);
}

/* The same collective three times in a row: enumerated once, the others
 * from the memo, each the same time. */
static void test_memo_repeat(void **state)
{
	(void)state;
	struct th_csv c;
	run(FAT "[workload]\nname = collone\ngpus_per_server = 1\nkind = alltoall\n"
	    "bytes = 4MiB\nn = 8\nstride = 2\nrepeat = 3\n", "collectives = coflow\n",
	    "cf-repeat", "collectives.csv", &c);
	assert_int_equal(c.rows, 3);
	for (unsigned r = 1; r < 3; r++) {
		assert_int_equal(col(&c, r, "duration_ns"), col(&c, 0, "duration_ns"));
		assert_int_equal(col(&c, r, "flows"), col(&c, 0, "flows"));
		assert_true(col(&c, r, "start_ns") >= col(&c, r - 1, "start_ns") +
							   col(&c, r - 1, "duration_ns"));
	}
	th_csv_free(&c);
	char *json = th_read(th_fmt("%s/cf-repeat/summary.json", th_tmpdir()), NULL);
	assert_non_null(strstr(json, "\"coflows\": 3,"));
	assert_non_null(strstr(json, "\"memo_hits\": 2,"));
	/* one after the other: each start and end a solve of one coflow,
	 * local (one fill each), never the whole component */
	const char *lr = strstr(json, "\"local_rounds\": ");
	assert_non_null(lr);
	assert_true(strtoul(lr + strlen("\"local_rounds\": "), NULL, 10) >= 3);
	assert_non_null(strstr(json, "\"full_fallbacks\": 0"));
	free(json);
}

/* A real AICB file (LLaMA-7B, TP 2, DP across servers): the iteration
 * within 1 % of per-flow fluid, the same network transfers, and the same
 * bytes twice. */
static void test_simai_file(void **state)
{
	(void)state;
	const char *ini = "[topology]\nname = rail\ngpus_per_server = 8\nservers_per_unit = 4\n"
			  "units = 1\ntiers = 2\n[cc]\nname = dcqcn\n[workload]\nname = simai\n"
			  "file = " DATA "L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt\n";
	struct th_csv f, c, again;
	run(ini, "[accel]\nname = fluid\n", "fl-l7b", "iterations.csv", &f);
	run(ini, "collectives = coflow\n", "cf-l7b", "iterations.csv", &c);
	run(ini, "collectives = coflow\n", "cf-l7b-2", "iterations.csv", &again);
	assert_int_equal(col(&c, 0, "flows"), col(&f, 0, "flows"));
	check_near(col(&c, 0, "duration_ns"), col(&f, 0, "duration_ns"), 0.01, "iteration");
	char *a = th_read(th_fmt("%s/cf-l7b/iterations.csv", th_tmpdir()), NULL);
	char *b = th_read(th_fmt("%s/cf-l7b-2/iterations.csv", th_tmpdir()), NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	th_csv_free(&f);
	th_csv_free(&c);
	th_csv_free(&again);
}

/* Link failures change paths: coflow keeps a connection's path, so it
 * refuses [failures], naming the key. */
static void test_refuses_failures(void **state)
{
	(void)state;
	struct ws_sim *sim;
	struct ws_err err;
	int rc = th_sim_try(FAT "[workload]\nname = collone\ncollectives = coflow\n"
			    "[failures]\nevents = 300us down link 16:0\n", &sim, &err, PLUGINS);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(err.msg, "collectives"));
	assert_non_null(strstr(err.msg, "[failures]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alone_as_flows),
		cmocka_unit_test(test_shared_link),
		cmocka_unit_test(test_memo_repeat),
		cmocka_unit_test(test_simai_file),
		cmocka_unit_test(test_refuses_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
