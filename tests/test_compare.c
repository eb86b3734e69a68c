/* SPDX-License-Identifier: MIT */
/*
 * `warpsim compare` and ws_compare_runs(): two real runs of the quickstart
 * compare as identical; hand-written run directories with known FCTs give
 * exact figures (nearest-rank percentiles chosen where other definitions
 * would differ, dyadic errors so every mean is exact in binary); a run
 * that stopped early is compared on the flows both completed; flows that
 * disagree on src, dst or bytes are refused naming the flow; the metrics
 * the workloads declare in summary.json (llm and simai runs, hand-written
 * ones, none at all); fct.csv read by column name in any order; the same
 * inputs give the same bytes; a table of bad inputs, each with its message,
 * file and line, through the library and through the program; the --csv
 * and --json files; usage.
 */
#define _GNU_SOURCE
#include "th.h"
#include "compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FCT_HEADER "flow_id,src,dst,bytes,prio,start_ns,end_ns,fct_ns," \
		   "ideal_fct_ns,slowdown,tag\n"
#define ITER_HEADER "iteration,start_ns,end_ns,duration_ns,compute_bound_ns," \
		    "exposed_comm_ns,collectives,flows,network_bytes\n"
/* lines of fct.csv and iterations.csv */
#define L1 "0,0,5,1000,3,0.000,1000.000,1000.000,900.000,1.111111,2\n"
#define L2 "1,1,6,2000,3,0.000,2000.000,2000.000,900.000,2.222222,3\n"
#define L3 "2,2,7,3000,3,5.000,3005.000,3000.000,900.000,3.333333,4\n"
#define I1 "0,0.000,1000.000,1000.000,500.000,500.000,3,2,4096\n"
#define I2 "1,1000.000,3000.000,2000.000,500.000,1500.000,3,2,4096\n"

/* ---- writing run directories ------------------------------------------------------ */

/* The iteration metric as the training workloads declare it. */
#define ITER_DECL "\"metrics\": [\n      {\"name\": \"iteration\", " \
	"\"file\": \"iterations.csv\", \"key\": \"iteration\", " \
	"\"value\": \"duration_ns\", \"start\": \"start_ns\", \"end\": \"end_ns\"}\n    ],\n"

static const char *const run_files[] = {
	"fct.csv", "summary.json", "iterations.csv", "steps.csv",
};

/* <tmpdir>/<name>, created empty of our files. */
static void run_dir(char *dir, size_t n, const char *name)
{
	snprintf(dir, n, "%s/%s", th_tmpdir(), name);
	mkdir(dir, 0777);
	for (size_t i = 0; i < WS_ARRAY_LEN(run_files); i++) {
		char p[600];
		snprintf(p, sizeof p, "%s/%s", dir, run_files[i]);
		unlink(p);
	}
}

/* Write <dir>/<file> (dir inside the scratch directory). */
static void put(const char *dir, const char *file, const char *text)
{
	char rel[600];
	snprintf(rel, sizeof rel, "%s/%s", dir + strlen(th_tmpdir()) + 1, file);
	th_write(rel, text);
}

static void put_ns(FILE *f, uint64_t ps, char sep)
{
	fprintf(f, "%" PRIu64 ".%03u%c", ps / 1000, (unsigned)(ps % 1000), sep);
}

/* One fct.csv line as warpsim writes it (ideal FCT = FCT, tag = id + 2). */
static void fct_line(FILE *f, uint32_t id, uint32_t src, uint32_t dst,
		     uint64_t bytes, uint64_t start_ps, uint64_t fct_ps)
{
	fprintf(f, "%u,%u,%u,%" PRIu64 ",3,", id, src, dst, bytes);
	put_ns(f, start_ps, ',');
	put_ns(f, start_ps + fct_ps, ',');
	put_ns(f, fct_ps, ',');
	put_ns(f, fct_ps, ',');
	fprintf(f, "1.000000,%u\n", id + 2);
}

static void iter_line(FILE *f, uint32_t it, uint64_t start_ps, uint64_t dur_ps)
{
	fprintf(f, "%u,", it);
	put_ns(f, start_ps, ',');
	put_ns(f, start_ps + dur_ps, ',');
	put_ns(f, dur_ps, ',');
	put_ns(f, dur_ps / 2, ',');
	put_ns(f, dur_ps - dur_ps / 2, ',');
	fprintf(f, "10,8,1048576\n");
}

/*
 * A summary.json in the layout of kernel/output.c, with traps for a lazy
 * parser: "events", "run_s" and "metrics" keys elsewhere (fabric,
 * results.flows, a plugin's report, inside arrays), braces and quotes
 * inside strings, escapes, exponents, null.  `events`, `sim_ps`, `run_s`
 * are JSON text; `metrics` the start of the workload object ("": none).
 */
static char *summary_m(const char *events, const char *sim_ps, const char *run_s,
		       const char *metrics)
{
	char *s = NULL;
	size_t n;
	FILE *f = open_memstream(&s, &n);
	fprintf(f,
		"{\n"
		"  \"warpsim\": \"0.1.0\",\n"
		"  \"abi\": \"1.2\",\n"
		"  \"config\": \"odd \\\"name\\\" {with} [brackets], \\\\ and \\u00e9\",\n"
		"  \"seed\": 1,\n"
		"  \"plugins\": {\n"
		"    \"topology\": {\n"
		"      \"name\": \"fat-tree\",\n"
		"      \"params\": {\n"
		"        \"k\": \"4\"\n"
		"      }\n"
		"    }\n"
		"  },\n"
		"  \"fabric\": {\n"
		"    \"nodes\": 36,\n"
		"    \"events\": 999\n"
		"  },\n"
		"  \"results\": {\n"
		"    \"sim_time_ps\": %s,\n"
		"    \"events\": %s,\n"
		"    \"flows\": {\n"
		"      \"created\": 3,\n"
		"      \"events\": 7\n"
		"    },\n"
		"    \"fct_slowdown\": {\n"
		"      \"mean\": 1.5,\n"
		"      \"p50\": null,\n"
		"      \"p99\": 2e-3,\n"
		"      \"max\": -0.5E+2\n"
		"    },\n"
		"    \"warnings\": 0\n"
		"  },\n"
		"  \"accel\": {\n"
		"    \"name\": \"fake\",\n"
		"    \"events\": 5,\n"
		"    \"run_s\": 0.001,\n"
		"    \"list\": [1, [2, {\"events\": 3}], true, false, null, {}, []],\n"
		"    \"metrics\": {\"name\": 1, \"file\": [\"..\"]}\n"
		"  },\n"
		"  \"workload\": {\n"
		"    %s"
		"\"flows\": 3,\n"
		"    \"list\": [{\"metrics\": [1]}]\n"
		"  },\n"
		"  \"timing\": {\n"
		"    \"build_s\": 0.1,\n"
		"    \"run_s\": %s,\n"
		"    \"events_per_s\": 1e6,\n"
		"    \"peak_rss_kib\": 1\n"
		"  }\n"
		"}\n",
		sim_ps, events, metrics, run_s);
	fclose(f);
	return s;
}

/* A summary.json whose workload declares no metric. */
static char *summary(const char *events, const char *sim_ps, const char *run_s)
{
	return summary_m(events, sim_ps, run_s, "");
}

/* fct.csv text from (id, fct in ns) pairs; src, dst, bytes follow the id. */
static char *fct_text(const uint32_t *ids, const uint64_t *fct_ps, size_t n)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	fputs(FCT_HEADER, f);
	for (size_t i = 0; i < n; i++)
		fct_line(f, ids[i], ids[i] % 16, (ids[i] + 5) % 16, 1000 + ids[i],
			 ids[i] * 1000000ull, fct_ps[i]);
	fclose(f);
	return s;
}

static void write_run(char *dir, size_t dn, const char *name, const char *fct,
		      const char *sum, const char *iters)
{
	run_dir(dir, dn, name);
	if (fct)
		put(dir, "fct.csv", fct);
	if (sum)
		put(dir, "summary.json", sum);
	if (iters)
		put(dir, "iterations.csv", iters);
}

static void compare_ok(const char *a, const char *b, struct ws_compare *c,
		       const char *csv)
{
	struct ws_err err;
	if (ws_compare_runs(a, b, c, csv, &err)) {
		char msg[2048];
		ws_err_format(&err, msg, sizeof msg);
		fail_msg("ws_compare_runs: %s", msg);
	}
}

static void check_contains(const char *what, const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("%s lacks \"%s\":\n%s", what, needle, text);
}

/* ---- two real runs of one scenario ---------------------------------------------- */

static void test_same_scenario(void **state)
{
	(void)state;
	char a[512], b[512];
	snprintf(a, sizeof a, "%s/quick-a", th_tmpdir());
	snprintf(b, sizeof b, "%s/quick-b", th_tmpdir());
	const char *ini = TH_SRCDIR "/examples/quickstart.ini";
	char *err;
	for (int i = 0; i < 2; i++) {
		int st = th_cli((const char *[]){ "run", "-q", ini, "-o", i ? b : a, NULL },
				NULL, &err);
		if (st)
			fail_msg("warpsim run: status %d: %s", st, err);
		free(err);
	}
	struct ws_compare c;
	compare_ok(a, b, &c, NULL);
	/* the quickstart's 34 flows, all completed, all identical */
	assert_int_equal(c.flows_a, 34);
	assert_int_equal(c.flows_b, 34);
	assert_int_equal(c.matched, 34);
	assert_int_equal(c.only_a, 0);
	assert_int_equal(c.only_b, 0);
	assert_true(c.fct_mean == 0 && c.fct_p50 == 0 && c.fct_p99 == 0 &&
		    c.fct_max == 0 && c.fct_bias == 0);
	assert_int_equal(c.fct_max_flow, 0); /* the lowest id of equal maxima */
	assert_int_equal(c.n_metrics, 0); /* the flows workload declares none */
	assert_true(c.event_ratio == 1.0);
	assert_true(c.events_a > 100000);
	assert_int_equal(c.events_a, c.events_b);
	assert_true(c.sim_a == c.sim_b && c.sim_a > 0);
	assert_true(c.wall_a > 0 && c.wall_b > 0);
	assert_true(fabs(c.speedup - c.wall_a / c.wall_b) < 1e-12);

	/* the figures are those of the files: events from summary.json */
	char p[600];
	snprintf(p, sizeof p, "%s/summary.json", a);
	char *sum = th_read(p, NULL);
	check_contains("summary.json", sum,
		       th_fmt("\"events\": %" PRIu64 ",", c.events_a));
	check_contains("summary.json", sum,
		       th_fmt("\"sim_time_ps\": %" PRIu64 ",", c.sim_a));
	free(sum);

	char *out;
	assert_int_equal(th_cli((const char *[]){ "compare", a, b, NULL }, &out, &err), 0);
	check_contains("stdout", out, "34 completed in A, 34 in B: 34 matched");
	check_contains("stdout", out, "FCT error  mean 0%, p50 0%, p99 0%, max 0% (flow 0)");
	check_contains("stdout", out, ": ratio 1.00");
	check_contains("stdout", out, "\n  metrics    skipped: none declared by the "
		       "workloads of A and B\n");
	assert_string_equal(err, "");
	free(out);
	free(err);
}

/* ---- known figures ------------------------------------------------------------- */

/*
 * 200 flows; A: every FCT 256 ns; B: flow i off by k = (73 i mod 200) ns,
 * later for even i, earlier for odd i, so its relative error is k / 256
 * and the errors are 0/256 ... 199/256, in shuffled flow order (73 and 200
 * are coprime).  Nearest rank: p50 = 99/256 (rank 100; an interpolating
 * median would give 99.5/256), p99 = 197/256 (rank 198), max = 199/256 at
 * flow 63 (63 x 73 = 4599).  Mean 199/512; bias -1/512 (the signed k
 * sum to -100, over 256 x 200 ns).
 */
#define N_KNOWN 200

static void known_runs(char *a, char *b, size_t n, const char *tag,
		       bool iters_b)
{
	uint32_t ids[N_KNOWN];
	uint64_t fa[N_KNOWN], fb[N_KNOWN];
	for (uint32_t i = 0; i < N_KNOWN; i++) {
		uint64_t k = (i * 73u) % 200u;
		ids[i] = i;
		fa[i] = 256000;
		fb[i] = i % 2 ? 256000 - k * 1000 : 256000 + k * 1000;
	}
	char *ta = fct_text(ids, fa, N_KNOWN), *tb = fct_text(ids, fb, N_KNOWN);
	char *sa = summary_m("750000", "123456789", "6", ITER_DECL);
	char *sb = summary_m("3000", "123000000", "0.375", iters_b ? ITER_DECL : "");
	/* iterations: A 0..4, B 0..3; errors 1/4, 1/4, 1/8, 3/8 */
	static const uint64_t da[] = { 1000000, 2000000, 4000000, 8000000, 1000000 };
	static const uint64_t db[] = { 1250000, 1500000, 4500000, 11000000 };
	char *ia = NULL, *ib = NULL;
	size_t len;
	FILE *f = open_memstream(&ia, &len);
	fputs(ITER_HEADER, f);
	for (uint32_t i = 0; i < WS_ARRAY_LEN(da); i++)
		iter_line(f, i, i * 20000000ull, da[i]);
	fclose(f);
	f = open_memstream(&ib, &len);
	fputs(ITER_HEADER, f);
	for (uint32_t i = 0; i < WS_ARRAY_LEN(db); i++)
		iter_line(f, i, i * 20000000ull + 7, db[i]);
	fclose(f);
	write_run(a, n, th_fmt("%s-a", tag), ta, sa, ia);
	write_run(b, n, th_fmt("%s-b", tag), tb, sb, iters_b ? ib : NULL);
	free(ta);
	free(tb);
	free(sa);
	free(sb);
	free(ia);
	free(ib);
}

static void test_known_figures(void **state)
{
	(void)state;
	char a[512], b[512];
	known_runs(a, b, sizeof a, "known", true);
	struct ws_compare c;
	compare_ok(a, b, &c, NULL);
	assert_int_equal(c.matched, N_KNOWN);
	assert_int_equal(c.only_a, 0);
	assert_int_equal(c.only_b, 0);
	assert_true(c.fct_mean == 199.0 / 512);
	assert_true(c.fct_p50 == 99.0 / 256);
	assert_true(c.fct_p99 == 197.0 / 256);
	assert_true(c.fct_max == 199.0 / 256);
	assert_int_equal(c.fct_max_flow, 63);
	assert_true(c.fct_bias == -1.0 / 512);
	/* speedup 6 / 0.375, event ratio 750000 / 3000 */
	assert_true(c.speedup == 16.0);
	assert_true(c.event_ratio == 250.0);
	assert_true(c.wall_a == 6.0 && c.wall_b == 0.375);
	assert_int_equal(c.events_a, 750000);
	assert_int_equal(c.events_b, 3000);
	assert_int_equal(c.sim_a, 123456789);
	assert_int_equal(c.sim_b, 123000000);
	/* the declared metric: iterations 0..3 in both; durations exact despite
	 * B's shifted starts */
	assert_int_equal(c.n_metrics, 1);
	const struct ws_compare_metric *m = &c.metrics[0];
	assert_string_equal(m->decl.name, "iteration");
	assert_string_equal(m->decl.file, "iterations.csv");
	assert_string_equal(m->decl.key, "iteration");
	assert_string_equal(m->decl.value, "duration_ns");
	assert_true(m->in_a && m->in_b);
	assert_int_equal(m->matched, 4);
	assert_int_equal(m->only_a, 1);
	assert_int_equal(m->only_b, 0);
	assert_true(m->mean == 0.25);
	assert_true(m->max == 0.375);

	/* swapped: B the reference; errors relative to the other FCTs now */
	compare_ok(b, a, &c, NULL);
	assert_int_equal(c.matched, N_KNOWN);
	assert_true(c.speedup == 1.0 / 16);
	assert_int_equal(c.metrics[0].only_b, 1);
	assert_true(c.metrics[0].max == 500000.0 / 1500000); /* iteration 1 */

	/* the program prints the same figures, as percentages */
	char *out, *err;
	const char *json = th_fmt("%s/known.json", th_tmpdir());
	char json_path[600];
	snprintf(json_path, sizeof json_path, "%s", json);
	assert_int_equal(th_cli((const char *[]){ "compare", a, b, "--json", json_path,
						  NULL }, &out, &err), 0);
	check_contains("stdout", out, "200 completed in A, 200 in B: 200 matched");
	check_contains("stdout", out, "FCT error  mean 38.9%, p50 38.7%, p99 77%, "
		       "max 77.7% (flow 63); bias -0.195%");
	check_contains("stdout", out, "\n  iteration  4 matched (1 only in A, 0 only in B): "
		       "duration_ns error mean 25%, max 37.5%\n");
	check_contains("stdout", out, "wall time  A 6.000 s, B 0.375 s: speedup 16.00");
	check_contains("stdout", out, "events     A 750000, B 3000: ratio 250.00");
	check_contains("stdout", out, "sim time   A 123.457 us, B 123.000 us");
	assert_string_equal(err, "");
	free(out);
	free(err);
	char *j = th_read(json_path, NULL);
	assert_non_null(j);
	static const char *const keys[] = {
		"\"run_a\": \"", "\"matched\": 200,", "\"only_a\": 0,",
		"\"fct_error\": {\n    \"mean\": 0.388671875,\n    \"p50\": 0.38671875,\n"
		"    \"p99\": 0.76953125,\n    \"max\": 0.77734375,\n    \"max_flow\": 63,\n"
		"    \"bias\": -0.001953125\n  }",
		"\"iteration_error\": {\n    \"in_a\": true,\n    \"in_b\": true,\n"
		"    \"file\": \"iterations.csv\",\n    \"key\": \"iteration\",\n"
		"    \"value\": \"duration_ns\",\n"
		"    \"matched\": 4,\n    \"only_a\": 1,\n    \"only_b\": 0,\n"
		"    \"mean\": 0.25,\n    \"max\": 0.375\n  }",
		"\"wall_s\": {\n    \"a\": 6,\n    \"b\": 0.375,\n    \"speedup\": 16\n  }",
		"\"events\": {\n    \"a\": 750000,\n    \"b\": 3000,\n    \"ratio\": 250\n  }",
		"\"sim_time_ps\": {\n    \"a\": 123456789,\n    \"b\": 123000000\n  }\n}\n",
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(keys); i++)
		check_contains("--json", j, keys[i]);
	free(j);
}

/* the metric declared (and iterations.csv written) by A only: skipped, and
 * the output says so */
static void test_iterations_absent(void **state)
{
	(void)state;
	char a[512], b[512];
	known_runs(a, b, sizeof a, "noiter", false);
	struct ws_compare c;
	compare_ok(a, b, &c, NULL);
	assert_int_equal(c.n_metrics, 1);
	assert_true(c.metrics[0].in_a);
	assert_false(c.metrics[0].in_b);
	assert_int_equal(c.metrics[0].matched, 0);
	assert_true(isnan(c.metrics[0].mean) && isnan(c.metrics[0].max));
	assert_int_equal(c.matched, N_KNOWN); /* the rest is compared */
	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "compare", a, b, NULL }, &out, &err), 0);
	check_contains("stdout", out, "\n  iteration  skipped: not declared by the "
		       "workload of B\n");
	free(out);
	free(err);
}

/* ---- the metrics workloads declare ------------------------------------------- */

/* Two runs of `args` (a warpsim run command line without -o) into
 * <tmpdir>/<name>-a and -b. */
static void run_twice(const char *name, const char *const *args, char *a, char *b,
		      size_t n)
{
	snprintf(a, n, "%s/%s-a", th_tmpdir(), name);
	snprintf(b, n, "%s/%s-b", th_tmpdir(), name);
	for (int i = 0; i < 2; i++) {
		const char *argv[16];
		size_t k = 0;
		for (; args[k]; k++)
			argv[k] = args[k];
		argv[k++] = "-o";
		argv[k++] = i ? b : a;
		argv[k] = NULL;
		char *err;
		int st = th_cli(argv, NULL, &err);
		if (st)
			fail_msg("warpsim run: status %d: %s", st, err);
		free(err);
	}
}

/*
 * llm and simai (the collective engine) declare the iteration time: two
 * runs compare on it, through the declaration in summary.json, and the
 * columns it names are those of iterations.csv.
 */
static void test_training_metric(void **state)
{
	(void)state;
	const char *ini = th_write("llm-cmp.ini", "[topology]\nname = fat-tree\nk = 4\n"
				   "[cc]\nname = dcqcn\n[workload]\nname = llm\n"
				   "model = custom\nlayers = 2\nhidden = 64\nffn = 256\n"
				   "heads = 4\nvocab = 1000\ngpus = 4\ntp = 1\npp = 1\n"
				   "seq = 16\nmicro_batches = 2\ngpus_per_server = 1\n"
				   "iterations = 3\n");
	char ini_path[600];
	snprintf(ini_path, sizeof ini_path, "%s", ini);
	static const struct {
		const char *name, *ini;
		uint32_t iterations;
	} runs[] = { { "llm", NULL, 3 }, { "simai", TH_SRCDIR "/examples/simai.ini", 2 } };
	for (size_t r = 0; r < WS_ARRAY_LEN(runs); r++) {
		char a[512], b[512];
		run_twice(runs[r].name, (const char *[]){ "run", "-q", runs[r].ini ?
							   runs[r].ini : ini_path, NULL },
			  a, b, sizeof a);
		char *sum = th_read(th_fmt("%s/summary.json", a), NULL);
		check_contains("summary.json", sum, "    \"metrics\": [\n      {\n"
			       "        \"name\": \"iteration\",\n"
			       "        \"file\": \"iterations.csv\",\n"
			       "        \"key\": \"iteration\",\n"
			       "        \"value\": \"duration_ns\",\n"
			       "        \"start\": \"start_ns\",\n"
			       "        \"end\": \"end_ns\"\n      }\n    ]\n");
		free(sum);
		struct ws_compare c;
		compare_ok(a, b, &c, NULL);
		assert_int_equal(c.n_metrics, 1);
		const struct ws_compare_metric *m = &c.metrics[0];
		assert_string_equal(m->decl.name, "iteration");
		assert_true(m->in_a && m->in_b);
		assert_int_equal(m->matched, runs[r].iterations);
		assert_int_equal(m->only_a + m->only_b, 0);
		assert_true(m->mean == 0 && m->max == 0);
		/* simai's micro example stays inside its servers: no flows */
		assert_true(r == 1 || (c.matched > 0 && c.by_tag && c.fct_max == 0));
		assert_int_equal(c.only_a + c.only_b, 0);
		char *out, *err;
		assert_int_equal(th_cli((const char *[]){ "compare", a, b, NULL }, &out, &err), 0);
		check_contains("stdout", out, th_fmt("\n  iteration  %u matched (0 only in A, "
						     "0 only in B): duration_ns error mean "
						     "0%%, max 0%%\n", runs[r].iterations));
		free(out);
		free(err);
	}
}

/* Neither workload declares a metric: flows only, and the output says so;
 * no "<name>_error" object in --json. */
static void test_no_metrics(void **state)
{
	(void)state;
	char a[512], b[512];
	char *s = summary("10", "20", "1");
	write_run(a, sizeof a, "nomet-a", FCT_HEADER L1 L2, s, NULL);
	/* an iterations.csv nobody declares is not read (it is not even one) */
	write_run(b, sizeof b, "nomet-b", FCT_HEADER L1 L2, s, "not a csv");
	free(s);
	struct ws_compare c;
	compare_ok(a, b, &c, NULL);
	assert_int_equal(c.n_metrics, 0);
	assert_int_equal(c.matched, 2);
	char json_path[600];
	snprintf(json_path, sizeof json_path, "%s/nomet.json", th_tmpdir());
	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "compare", a, b, "--json", json_path,
						  NULL }, &out, &err), 0);
	check_contains("stdout", out, "\n  FCT error  mean 0%, p50 0%, p99 0%, max 0% "
		       "(flow 0); bias +0% (|FCT B - FCT A| / FCT A)\n"
		       "  metrics    skipped: none declared by the workloads of A and B\n"
		       "  wall time  ");
	char *j = th_read(json_path, NULL);
	check_contains("--json", j, "\"fct_error\": {");
	check_contains("--json", j, "  },\n  \"wall_s\": {");
	/* fct_error is the only "_error" object */
	const char *e = strstr(j, "_error\"");
	assert_non_null(e);
	assert_null(strstr(e + 1, "_error\""));
	free(j);
	free(out);
	free(err);
}

/*
 * A workload of our own making declares two metrics: a time and a plain
 * number, in one order in A and the other in B, with a third declared by
 * B only.  The figures come out in A's order, then B's others; a value
 * that is not a time is compared as a number.
 */
#define STEP_DECL(order) "\"metrics\": [\n" order "    ],\n"
#define STEP_TIME "      {\"name\": \"step\", \"file\": \"steps.csv\", \"key\": \"step\", " \
		  "\"value\": \"time_ns\"}"
#define STEP_BW "      {\"name\": \"bandwidth\", \"file\": \"steps.csv\", " \
		"\"key\": \"step\", \"value\": \"gbps\"}"
#define STEP_X "      {\"name\": \"extra\", \"file\": \"none.csv\", \"key\": \"k\", " \
	       "\"value\": \"v\"}"

static void step_runs(char *a, char *b, size_t n)
{
	char *sa = summary_m("10", "20", "1", STEP_DECL(STEP_TIME ",\n" STEP_BW "\n"));
	char *sb = summary_m("10", "20", "1", STEP_DECL(STEP_BW ",\n" STEP_X ",\n"
							STEP_TIME "\n"));
	/* steps: A 2, 5, 7; B 5, 7, 9 (and its columns in another order);
	 * time errors 1/2 and 1/4; bandwidth errors 1/4 and 0 */
	write_run(a, n, "steps-a", FCT_HEADER L1, sa, NULL);
	put(a, "steps.csv", "step,time_ns,gbps\n2,1.000,7\n5,2.000,100\n7,4.000,50.5\n");
	write_run(b, n, "steps-b", FCT_HEADER L1, sb, NULL);
	put(b, "steps.csv", "gbps,note,step,time_ns\n125,x,5,3.000\n50.5,y,7,3.000\n1,z,9,1.000\n");
	free(sa);
	free(sb);
}

static void test_declared_metrics(void **state)
{
	(void)state;
	char a[512], b[512];
	step_runs(a, b, sizeof a);
	struct ws_compare c;
	compare_ok(a, b, &c, NULL);
	assert_int_equal(c.n_metrics, 3);
	static const char *const names[] = { "step", "bandwidth", "extra" };
	for (int i = 0; i < 3; i++)
		assert_string_equal(c.metrics[i].decl.name, names[i]);
	const struct ws_compare_metric *t = &c.metrics[0], *bw = &c.metrics[1];
	assert_int_equal(t->matched, 2);
	assert_int_equal(t->only_a, 1);
	assert_int_equal(t->only_b, 1);
	assert_true(t->mean == 0.375 && t->max == 0.5);
	assert_int_equal(bw->matched, 2);
	assert_true(bw->mean == 0.125 && bw->max == 0.25);
	assert_false(c.metrics[2].in_a);
	assert_true(c.metrics[2].in_b);
	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "compare", a, b, NULL }, &out, &err), 0);
	check_contains("stdout", out,
		       "  step       2 matched (1 only in A, 1 only in B): time_ns error "
		       "mean 37.5%, max 50%\n"
		       "  bandwidth  2 matched (1 only in A, 1 only in B): gbps error "
		       "mean 12.5%, max 25%\n"
		       "  extra      skipped: not declared by the workload of A\n");
	free(out);
	free(err);
}

/*
 * fct.csv is read by column name: the columns in another order, with one
 * of our own added and the optional ones left out, give the same figures.
 */
static void test_fct_column_order(void **state)
{
	(void)state;
	char a[512], b[512];
	char *s = summary("10", "20", "1");
	write_run(a, sizeof a, "order-a", FCT_HEADER L1 L2, s, NULL);
	write_run(b, sizeof b, "order-b",
		  "tag,fct_ns,end_ns,start_ns,bytes,dst,src,flow_id,simulator\n"
		  "2,1500.000,1500.000,0.000,1000,5,0,0,other\n"
		  "3,2000.000,2000.000,0.000,2000,6,1,1,other\n", s, NULL);
	free(s);
	struct ws_compare c;
	compare_ok(a, b, &c, NULL);
	assert_int_equal(c.matched, 2);
	assert_true(c.by_tag);
	assert_true(c.fct_max == 0.5);
	assert_int_equal(c.fct_max_flow, 0);
	assert_true(c.fct_mean == 0.25);
	/* and the strictness follows the columns: a bad src, found by name */
	write_run(b, sizeof b, "order-b2",
		  "tag,fct_ns,end_ns,start_ns,bytes,dst,src,flow_id\n"
		  "2,1500.000,1500.000,0.000,1000,5,x,0\n", NULL, NULL);
	s = summary("10", "20", "1");
	put(b, "summary.json", s);
	free(s);
	struct ws_err err;
	assert_int_equal(ws_compare_runs(a, b, &c, NULL, &err), WS_EINVAL);
	assert_int_equal(err.line, 2);
	check_contains("error", err.msg, "src 'x': expected an integer");
}

/* The same inputs give the same bytes: stdout, --json and --csv. */
static void test_deterministic(void **state)
{
	(void)state;
	char a[512], b[512];
	step_runs(a, b, sizeof a);
	char *text[2][3];
	for (int i = 0; i < 2; i++) {
		char json[600], csv[600];
		snprintf(json, sizeof json, "%s/det%d.json", th_tmpdir(), i);
		snprintf(csv, sizeof csv, "%s/det%d.csv", th_tmpdir(), i);
		char *err;
		assert_int_equal(th_cli((const char *[]){ "compare", a, b, "--json", json,
							  "--csv", csv, NULL },
					&text[i][0], &err), 0);
		free(err);
		text[i][1] = th_read(json, NULL);
		text[i][2] = th_read(csv, NULL);
	}
	for (int k = 0; k < 3; k++) {
		assert_non_null(text[0][k]);
		assert_string_equal(text[0][k], text[1][k]);
		free(text[0][k]);
		free(text[1][k]);
	}
}

/* ---- a run that stopped early --------------------------------------------------- */

static void test_missing_flows(void **state)
{
	(void)state;
	/* A completed 0..9; B stopped early: 3, 8 and 9 missing; 12 only in B.
	 * Matched flows are 1/2 off (B twice as slow for even ids, half for odd:
	 * |B - A| / A = 1 or 1/2); A's unmatched flows would change every
	 * figure if they were counted. */
	const uint32_t ida[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	const uint64_t fa[] = { 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000 };
	const uint32_t idb[] = { 0, 1, 2, 4, 5, 6, 7, 12 };
	const uint64_t fb[] = { 2000, 1000, 6000, 10000, 3000, 14000, 4000, 1 };
	char *ta = fct_text(ida, fa, WS_ARRAY_LEN(ida));
	char *tb = fct_text(idb, fb, WS_ARRAY_LEN(idb));
	char *s = summary("10", "20", "1");
	char a[512], b[512];
	write_run(a, sizeof a, "early-a", ta, s, NULL);
	write_run(b, sizeof b, "early-b", tb, s, NULL);
	free(ta);
	free(tb);
	free(s);
	struct ws_compare c;
	compare_ok(a, b, &c, NULL);
	assert_int_equal(c.flows_a, 10);
	assert_int_equal(c.flows_b, 8);
	assert_int_equal(c.matched, 7);
	assert_int_equal(c.only_a, 3);
	assert_int_equal(c.only_b, 1);
	/* errors: even ids 0, 2, 4, 6 -> 1; odd 1, 5, 7 -> 1/2 */
	assert_true(c.fct_mean == 5.5 / 7);
	assert_true(c.fct_p50 == 1.0);  /* rank 4 of 0.5 0.5 0.5 1 1 1 1 */
	assert_true(c.fct_p99 == 1.0);
	assert_true(c.fct_max == 1.0);
	assert_int_equal(c.fct_max_flow, 0);
	assert_true(c.fct_bias == (4.0 - 1.5) / 7);
	assert_true(c.speedup == 1.0 && c.event_ratio == 1.0);

	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "compare", a, b, NULL }, &out, &err), 0);
	check_contains("stdout", out, "10 completed in A, 8 in B: 7 matched");
	check_contains("stdout", out, "3 flows of A are not in B (B stopped early");
	check_contains("stdout", out, "1 flows of B are not in A");
	free(out);
	free(err);

	/* B completed nothing at all: compared, every figure undefined */
	char e[512];
	s = summary("0", "0", "0");
	write_run(e, sizeof e, "early-none", FCT_HEADER, s, NULL);
	free(s);
	compare_ok(a, e, &c, NULL);
	assert_int_equal(c.matched, 0);
	assert_int_equal(c.only_a, 10);
	assert_true(isnan(c.fct_mean) && isnan(c.fct_p50) && isnan(c.fct_p99) &&
		    isnan(c.fct_max) && isnan(c.fct_bias));
	assert_int_equal(c.fct_max_flow, UINT32_MAX);
	assert_true(isnan(c.speedup) && isnan(c.event_ratio));
	const char *json = th_fmt("%s/none.json", th_tmpdir());
	char json_path[600];
	snprintf(json_path, sizeof json_path, "%s", json);
	assert_int_equal(th_cli((const char *[]){ "compare", a, e, "--json", json_path,
						  NULL }, &out, &err), 0);
	check_contains("stdout", out, "FCT error  n/a: no flow completed in both runs");
	check_contains("stdout", out, "speedup n/a");
	free(out);
	free(err);
	char *j = th_read(json_path, NULL);
	check_contains("--json", j, "\"mean\": null,\n    \"p50\": null");
	check_contains("--json", j, "\"max_flow\": null");
	check_contains("--json", j, "\"speedup\": null");
	free(j);
}

/* ---- runs of different scenarios ------------------------------------------------ */

static void test_mismatch(void **state)
{
	(void)state;
	static const char *const what[] = { "src", "dst", "bytes" };
	char *s = summary("10", "20", "1");
	for (int w = 0; w < 3; w++) {
		char *ta = NULL, *tb = NULL;
		size_t len;
		FILE *fa = open_memstream(&ta, &len);
		FILE *fb = open_memstream(&tb, &len);
		fputs(FCT_HEADER, fa);
		fputs(FCT_HEADER, fb);
		for (uint32_t i = 0; i < 6; i++) {
			fct_line(fa, i, i, 15 - i, 5000, 0, 10000);
			/* flow 4 differs, and flow 5 too: the first is named */
			bool odd = i >= 4;
			fct_line(fb, i, i + (odd && w == 0), 15 - i + (odd && w == 1),
				 5000 + (odd && w == 2), 0, 10000);
		}
		fclose(fa);
		fclose(fb);
		char a[512], b[512];
		write_run(a, sizeof a, th_fmt("mis%d-a", w), ta, s, NULL);
		write_run(b, sizeof b, th_fmt("mis%d-b", w), tb, s, NULL);
		free(ta);
		free(tb);
		struct ws_compare c;
		struct ws_err err;
		const char *csv = th_fmt("%s/mis.csv", th_tmpdir());
		char csv_path[600];
		snprintf(csv_path, sizeof csv_path, "%s", csv);
		unlink(csv_path);
		int rc = ws_compare_runs(a, b, &c, csv_path, &err);
		if (rc != WS_EINVAL)
			fail_msg("%s: code %d, expected WS_EINVAL", what[w], rc);
		char fct_b[600];
		snprintf(fct_b, sizeof fct_b, "%s/fct.csv", b);
		assert_string_equal(err.file, fct_b);
		assert_int_equal(err.line, 6); /* flow 4: the header, then 0..4 */
		check_contains(what[w], err.msg, "flow 4 is ");
		check_contains(what[w], err.msg, "the runs are not of the same scenario");
		check_contains(what[w], err.msg,
			       th_fmt("but in %s/fct.csv (line 6) 4 -> 11, 5000 bytes", a));
		/* no per-flow file for a refused comparison */
		assert_int_equal(access(csv_path, F_OK), -1);

		char *out, *e;
		assert_int_equal(th_cli((const char *[]){ "compare", a, b, NULL }, &out, &e), 2);
		check_contains("stderr", e, th_fmt("warpsim: %s:6: flow 4 is ", fct_b));
		assert_string_equal(out, "");
		free(out);
		free(e);
	}
	free(s);
}

/* ---- bad inputs --------------------------------------------------------------- */

/* A good pair (3 flows, 2 iterations) with one file of run A or B replaced. */
struct bad_case {
	const char *name;
	char run;          /* 'a' or 'b' */
	const char *file;  /* "": the run directory itself */
	const char *text;  /* NULL: the file (or directory) does not exist */
	int code;
	int line;
	const char *needle;
};

static const struct bad_case bad_cases[] = {
	/* the directories */
	{ "missing directory", 'a', "", NULL, WS_ENOENT, 0,
	  "cannot open the run directory: No such file or directory" },
	{ "a file as directory", 'b', "", "not a dir\n", WS_EINVAL, 0,
	  "not a directory (expected the output directory of a run)" },
	/* fct.csv */
	{ "missing fct.csv", 'a', "fct.csv", NULL, WS_ENOENT, 0,
	  "cannot open: No such file or directory" },
	{ "empty fct.csv", 'b', "fct.csv", "", WS_EINVAL, 0,
	  "empty file (expected a header row naming the columns)" },
	{ "bad header", 'a', "fct.csv", "flow,src,dst,bytes\n" L1, WS_EINVAL, 1,
	  "no column 'flow_id' (the header is 'flow,src,dst,bytes')" },
	{ "header of flows.csv", 'a', "fct.csv",
	  "flow_id,src,dst,bytes,prio,sport,dport,start_ns,end_ns,acked,sent\n", WS_EINVAL, 1,
	  "no column 'fct_ns' (the header is 'flow_id,src,dst,bytes,prio,sport," },
	{ "fct.csv without tag", 'b', "fct.csv",
	  "flow_id,src,dst,bytes,prio,start_ns,end_ns,fct_ns,ideal_fct_ns,slowdown\n",
	  WS_EINVAL, 1, "no column 'tag'" },
	{ "column twice", 'a', "fct.csv", "flow_id,src,dst,bytes,prio,start_ns,end_ns,"
	  "fct_ns,ideal_fct_ns,slowdown,tag,src\n", WS_EINVAL, 1,
	  "column 'src' twice in the header" },
	{ "empty column name", 'a', "fct.csv", "flow_id,src,,dst\n", WS_EINVAL, 1,
	  "an empty column name in the header 'flow_id,src,,dst'" },
	{ "short line", 'b', "fct.csv", FCT_HEADER L1 "1,1,6,2000,3,0.000\n" L3, WS_EINVAL, 3,
	  "6 fields, expected 11" },
	{ "long line", 'a', "fct.csv", FCT_HEADER L1 L2 "2,2,7,3000,3,5.000,3005.000,"
	  "3000.000,900.000,3.333333,4,9\n", WS_EINVAL, 4, "12 fields, expected 11" },
	{ "non-numeric src", 'a', "fct.csv", FCT_HEADER L1 "1,x1,6,2000,3,0.000,2000.000,"
	  "2000.000,900.000,2.222222,3\n", WS_EINVAL, 3,
	  "src 'x1': expected an integer 0..4294967295" },
	{ "negative bytes", 'b', "fct.csv", FCT_HEADER "0,0,5,-1000,3,0.000,1000.000,"
	  "1000.000,900.000,1.111111,2\n", WS_EINVAL, 2,
	  "bytes '-1000': expected an integer 0..18446744073709551615" },
	{ "flow id beyond 32 bits", 'a', "fct.csv", FCT_HEADER "4294967296,0,5,1000,3,0.000,"
	  "1000.000,1000.000,900.000,1.111111,2\n", WS_EINVAL, 2,
	  "flow_id '4294967296': expected an integer 0..4294967295" },
	{ "empty field", 'a', "fct.csv", FCT_HEADER "0,0,,1000,3,0.000,1000.000,"
	  "1000.000,900.000,1.111111,2\n", WS_EINVAL, 2, "dst '': expected an integer" },
	{ "fct with two decimals", 'b', "fct.csv", FCT_HEADER L1 L2 "2,2,7,3000,3,5.000,"
	  "3005.000,3000.00,900.000,3.333333,4\n", WS_EINVAL, 4,
	  "fct_ns '3000.00': expected nanoseconds with three decimals" },
	{ "time in seconds", 'a', "fct.csv", FCT_HEADER "0,0,5,1000,3,0,1e-6,"
	  "1000.000,900.000,1.111111,2\n", WS_EINVAL, 2,
	  "start_ns '0': expected nanoseconds with three decimals" },
	{ "non-numeric slowdown", 'a', "fct.csv", FCT_HEADER "0,0,5,1000,3,0.000,1000.000,"
	  "1000.000,900.000,fast,2\n", WS_EINVAL, 2, "slowdown 'fast': expected a "
	  "non-negative number" },
	{ "fct not end - start", 'b', "fct.csv", FCT_HEADER L1 "1,1,6,2000,3,0.000,2000.000,"
	  "2001.000,900.000,2.222222,3\n", WS_EINVAL, 3,
	  "fct_ns '2001.000' is not end_ns - start_ns" },
	{ "duplicate flow", 'a', "fct.csv", FCT_HEADER L1 L2 L2, WS_EINVAL, 4,
	  "flow_id 1 after flow_id 1 (expected each flow once, in flow id order)" },
	{ "flows out of order", 'b', "fct.csv", FCT_HEADER L2 L1, WS_EINVAL, 3,
	  "flow_id 0 after flow_id 1" },
	{ "truncated fct.csv", 'a', "fct.csv", FCT_HEADER L1 "1,1,6,2000,3,0.000,2000.000,"
	  "2000.000,900.000,2.2", WS_EINVAL, 3, "the line has no line end (a truncated file?)" },
	{ "blank line", 'b', "fct.csv", FCT_HEADER L1 "\n" L2, WS_EINVAL, 3, "empty line" },
	{ "stray quote", 'a', "fct.csv", FCT_HEADER L1 "1,1,6,2\"000,3,0.000,2000.000,"
	  "2000.000,900.000,2.222222,3\n", WS_EINVAL, 3, "column 8: error parsing data "
	  "while strict checking enabled (a quote that does not open or close a quoted "
	  "field)" },
	{ "text after a quoted field", 'b', "fct.csv", FCT_HEADER "\"0\"x,0,5,1000,3,0.000,"
	  "1000.000,1000.000,900.000,1.111111,2\n", WS_EINVAL, 2, "column 4: error parsing" },
	{ "quote left open", 'a', "fct.csv", FCT_HEADER L1 "\"1,1,6,2000\n3,0.000\n", WS_EINVAL,
	  3, "a quoted field without its closing quote (a truncated file?)" },
	{ "binary fct.csv", 'a', "fct.csv", FCT_HEADER "\x7f" "ELF\x01\x02\n", WS_EINVAL, 2,
	  "1 fields, expected 11" },
	{ "zero FCT in A", 'a', "fct.csv", FCT_HEADER "0,0,5,1000,3,7.000,7.000,0.000,"
	  "900.000,0.000000,2\n", WS_EINVAL, 2,
	  "fct_ns of flow 0 is 0: no relative error against it" },
	/* summary.json */
	{ "missing summary.json", 'b', "summary.json", NULL, WS_ENOENT, 0,
	  "cannot open: No such file or directory" },
	{ "empty summary.json", 'a', "summary.json", "  \n", WS_EINVAL, 0,
	  "empty file (expected a JSON object)" },
	{ "not JSON", 'a', "summary.json", "events = 12\n", WS_EINVAL, 1,
	  "column 6: '[' or '{' expected near 'events'" },
	{ "truncated summary.json", 'b', "summary.json",
	  "{\n  \"results\": {\n    \"events\": 12,\n", WS_EINVAL, 4,
	  "string or '}' expected near end of file (a truncated file?)" },
	{ "truncated in a string", 'a', "summary.json",
	  "{\n  \"results\": {\n    \"events\": 12,\n    \"sim_ti", WS_EINVAL, 4,
	  "column 11: premature end of input near '\"sim_ti' (a truncated file?)" },
	{ "truncated in a number", 'a', "summary.json",
	  "{\n  \"results\": {\n    \"events\": 1", WS_EINVAL, 3,
	  "column 15: '}' expected near end of file (a truncated file?)" },
	{ "no results.events", 'b', "summary.json",
	  "{\"results\": {\"sim_time_ps\": 5, \"flows\": {\"events\": 3}}, "
	  "\"accel\": {\"events\": 4}, \"timing\": {\"run_s\": 1}}\n", WS_EINVAL, 0,
	  "no results.events (not a summary.json of warpsim run?)" },
	{ "no timing.run_s", 'a', "summary.json",
	  "{\"results\": {\"sim_time_ps\": 5, \"events\": 3}, \"timing\": {}}\n",
	  WS_EINVAL, 0, "no timing.run_s" },
	{ "no results.sim_time_ps", 'a', "summary.json",
	  "{\"results\": {\"events\": 3}, \"timing\": {\"run_s\": 1}}\n",
	  WS_EINVAL, 0, "no results.sim_time_ps" },
	/* a number written as a string ("12") is read (typed and string summaries
	 * both); a string that is not a number is not */
	{ "events as a word", 'b', "summary.json",
	  "{\n\"results\": {\n\"sim_time_ps\": 5,\n\"events\": \"twelve\"}}\n", WS_EINVAL, 0,
	  "results.events = twelve: expected a non-negative integer" },
	{ "run_s as a string with junk", 'b', "summary.json",
	  "{\"results\": {\"sim_time_ps\": 5, \"events\": \"12\"},\n\"timing\": {\"run_s\": \"1.5s\"}}\n",
	  WS_EINVAL, 0, "timing.run_s = 1.5s: expected a non-negative number" },
	{ "negative events", 'a', "summary.json",
	  "{\"results\": {\"events\": -3}}\n", WS_EINVAL, 0,
	  "results.events = -3: expected a non-negative integer" },
	{ "fractional events", 'a', "summary.json",
	  "{\"results\": {\"events\": 3.5}}\n", WS_EINVAL, 0,
	  "results.events = 3.5: expected a non-negative integer" },
	{ "run_s null", 'b', "summary.json",
	  "{\"results\": {\"sim_time_ps\": 5, \"events\": 3},\n\"timing\": {\"run_s\": null}}\n",
	  WS_EINVAL, 0, "timing.run_s: expected a number, found null" },
	{ "missing comma", 'a', "summary.json",
	  "{\n  \"results\": {\n    \"events\": 12\n    \"sim_time_ps\": 5\n  }\n}\n",
	  WS_EINVAL, 4, "column 17: '}' expected near '\"sim_time_ps\"'" },
	{ "bad escape", 'a', "summary.json", "{\"config\": \"a\\qb\"}\n", WS_EINVAL, 1,
	  "column 15: invalid escape near '\"a\\q'" },
	{ "bad literal", 'b', "summary.json", "{\"results\": {\"events\": nul}}\n",
	  WS_EINVAL, 1, "column 26: invalid token near 'nul'" },
	{ "malformed number", 'a', "summary.json", "{\"seed\": 1.e5}\n", WS_EINVAL, 1,
	  "column 11: invalid token near '1.'" },
	{ "text after the object", 'a', "summary.json",
	  "{\"results\": {\"events\": 3}}\n}\n", WS_EINVAL, 2, "end of file expected near '}' (text after the JSON object)" },
	/* workload.metrics */
	{ "metrics not an array", 'a', "summary.json",
	  "{\"workload\": {\n\"metrics\": {\"name\": \"iteration\"}}}\n", WS_EINVAL, 0,
	  "workload.metrics: expected an array of metrics [{...}, ...]" },
	{ "metric not an object", 'b', "summary.json",
	  "{\"workload\": {\"metrics\": [\"iteration\"]}}\n", WS_EINVAL, 0,
	  "workload.metrics[0]: expected a metric object {...}" },
	{ "metric without value", 'a', "summary.json",
	  "{\"workload\": {\"metrics\": [\n{\"name\": \"x\", \"file\": \"x.csv\", "
	  "\"key\": \"id\"}]}}\n", WS_EINVAL, 0,
	  "workload.metrics[0]: a metric without 'value' (required: name, file, key, value)" },
	{ "metric member unknown", 'b', "summary.json",
	  "{\"workload\": {\"metrics\": [{\"name\": \"x\",\n\"column\": \"y\"}]}}\n",
	  WS_EINVAL, 0, "workload.metrics[0]: unknown member 'column' (a metric has name, "
	  "file, key, value, start, end)" },
	{ "metric file out of the run", 'a', "summary.json",
	  "{\"workload\": {\"metrics\": [{\"name\": \"x\", \"file\": \"../x.csv\"}]}}\n",
	  WS_EINVAL, 0, "workload.metrics[0]: file \"../x.csv\": expected 1 to 63 letters, "
	  "digits, '_', '-' or '.', not starting with '.'" },
	{ "metric member a number", 'a', "summary.json",
	  "{\"workload\": {\"metrics\": [{\"key\": 3}]}}\n", WS_EINVAL, 0,
	  "workload.metrics[0]: key: expected a string" },
	{ "metric start without end", 'b', "summary.json",
	  "{\"workload\": {\"metrics\": [{\"name\": \"x\", \"file\": \"x.csv\", "
	  "\"key\": \"id\", \"value\": \"t_ns\", \"start\": \"s_ns\"}]}}\n", WS_EINVAL, 0,
	  "workload.metrics[0]: metric 'x': start and end go together" },
	{ "metric span of a number", 'a', "summary.json",
	  "{\"workload\": {\"metrics\": [{\"name\": \"x\", \"file\": \"x.csv\", "
	  "\"key\": \"id\", \"value\": \"gbps\", \"start\": \"s_ns\", \"end\": \"e_ns\"}]}}\n",
	  WS_EINVAL, 0, "start and end need a value that is a time (a column named *_ns), "
	  "not 'gbps'" },
	{ "metric named fct", 'a', "summary.json",
	  "{\"workload\": {\"metrics\": [{\"name\": \"fct\", \"file\": \"x.csv\", "
	  "\"key\": \"id\", \"value\": \"v\"}]}}\n", WS_EINVAL, 0,
	  "workload.metrics[0]: metric 'fct': the name 'fct' is taken" },
	{ "metric declared twice", 'b', "summary.json",
	  "{\"workload\": {\"metrics\": [{\"name\": \"x\", \"file\": \"x.csv\", "
	  "\"key\": \"id\", \"value\": \"v\"},\n{\"name\": \"x\", \"file\": \"y.csv\", "
	  "\"key\": \"id\", \"value\": \"v\"}]}}\n", WS_EINVAL, 0,
	  "workload.metrics[1]: metric 'x': declared twice" },
	{ "truncated deep in arrays", 'b', "summary.json",
	  "{\"a\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
	  WS_EINVAL, 1, "column 82: ']' expected near end of file (a truncated file?)" },
	{ "trailing comma", 'a', "summary.json",
	  "{\"results\": {\"events\": 3,\n}}\n", WS_EINVAL, 2,
	  "column 1: string or '}' expected near '}'" },
	{ "duplicate key", 'b', "summary.json",
	  "{\"results\": {\"events\": 3,\n\"events\": 4}}\n", WS_EINVAL, 2,
	  "column 8: duplicate object key near '\"events\"'" },
	{ "line end in a string", 'a', "summary.json",
	  "{\"config\": \"a\nb\"}\n", WS_EINVAL, 1, "unexpected newline near '\"a'" },
	{ "NaN", 'a', "summary.json", "{\"timing\": {\"run_s\": NaN}}\n", WS_EINVAL, 1,
	  "invalid token near 'NaN'" },
	{ "an array, not an object", 'b', "summary.json", "[1, 2]\n", WS_EINVAL, 0,
	  "expected a JSON object, found an array" },
	{ "not UTF-8", 'a', "summary.json", "{\"config\": \"\xff\"}\n", WS_EINVAL, 1,
	  "(not a text file?)" },

	/* the declared metric's file (iterations.csv, as llm and simai declare it) */
	{ "missing declared file", 'b', "iterations.csv", NULL, WS_ENOENT, 0,
	  "cannot open: No such file or directory (the file of the metric "
	  "'iteration' that summary.json declares)" },
	{ "declared value column missing", 'a', "iterations.csv",
	  "iteration,start_ns,end_ns\n0,0.000,5.000\n", WS_EINVAL, 1,
	  "no column 'duration_ns', which summary.json declares as the value of the "
	  "metric 'iteration' (the header is 'iteration,start_ns,end_ns')" },
	{ "declared start column missing", 'b', "iterations.csv",
	  "iteration,duration_ns\n0,5.000\n", WS_EINVAL, 1,
	  "no column 'start_ns', which summary.json declares as the start of the "
	  "metric 'iteration'" },
	{ "declared key column missing", 'a', "iterations.csv",
	  "iter,start_ns,end_ns,duration_ns\n", WS_EINVAL, 1,
	  "no column 'iteration', which summary.json declares as the key" },
	{ "iterations.csv short line", 'b', "iterations.csv", ITER_HEADER I1 "1,1000.000\n",
	  WS_EINVAL, 3, "2 fields, expected 9" },
	{ "iterations.csv non-numeric key", 'a', "iterations.csv", ITER_HEADER I1
	  "one,1000.000,3000.000,2000.000,500.000,1500.000,3,2,4096\n", WS_EINVAL, 3,
	  "iteration 'one': expected an integer" },
	{ "iterations.csv value in ms", 'b', "iterations.csv", ITER_HEADER I1
	  "1,1000.000,3000.000,2e-3,500.000,1500.000,3,2,4096\n", WS_EINVAL, 3,
	  "duration_ns '2e-3': expected nanoseconds with three decimals" },
	{ "iteration duration not end - start", 'b', "iterations.csv", ITER_HEADER
	  "0,0.000,1000.000,999.000,500.000,499.000,3,2,4096\n", WS_EINVAL, 2,
	  "duration_ns '999.000' is not end_ns - start_ns" },
	{ "iterations out of order", 'a', "iterations.csv", ITER_HEADER I2 I1, WS_EINVAL, 3,
	  "iteration 0 after iteration 1" },
	{ "zero iteration in A", 'a', "iterations.csv", ITER_HEADER
	  "0,5.000,5.000,0.000,0.000,0.000,0,0,0\n", WS_EINVAL, 2,
	  "duration_ns of iteration 0 is 0: no relative error against it" },
};

static char bad_dir[2][512];
static char bad_path[600];

/* Set up the pair for case `i`; returns the path the error must name. */
static const char *bad_setup(size_t i)
{
	const struct bad_case *b = &bad_cases[i];
	char *s = summary_m("10", "20", "1", ITER_DECL);
	for (int r = 0; r < 2; r++)
		write_run(bad_dir[r], sizeof bad_dir[r], th_fmt("bad%zu-%c", i, 'a' + r),
			  FCT_HEADER L1 L2 L3, s, ITER_HEADER I1 I2);
	free(s);
	char *dir = bad_dir[b->run == 'b'];
	if (b->file[0]) {
		snprintf(bad_path, sizeof bad_path, "%s/%s", dir, b->file);
		unlink(bad_path);
		if (b->text)
			put(dir, b->file, b->text);
		return bad_path;
	}
	/* the directory itself: absent, or a file in its place */
	for (size_t f = 0; f < WS_ARRAY_LEN(run_files); f++) {
		snprintf(bad_path, sizeof bad_path, "%s/%s", dir, run_files[f]);
		unlink(bad_path);
	}
	rmdir(dir);
	if (b->text)
		th_write(th_fmt("bad%zu-%c", i, b->run), b->text);
	snprintf(bad_path, sizeof bad_path, "%s", dir);
	return bad_path;
}

static void test_bad_input(void **state)
{
	const struct bad_case *b = *state;
	const char *where = bad_setup((size_t)(b - bad_cases));
	struct ws_compare c;
	struct ws_err err;
	char msg[2048];
	int rc = ws_compare_runs(bad_dir[0], bad_dir[1], &c, NULL, &err);
	ws_err_format(&err, msg, sizeof msg);
	if (rc != b->code)
		fail_msg("%s: code %d, expected %d (%s)", b->name, rc, b->code, msg);
	if (strcmp(err.file, where))
		fail_msg("%s: the error names '%s', expected '%s'", b->name, err.file, where);
	if (err.line != b->line)
		fail_msg("%s: line %d, expected %d (%s)", b->name, err.line, b->line, msg);
	if (!strstr(err.msg, b->needle))
		fail_msg("%s: \"%s\" not in \"%s\"", b->name, b->needle, err.msg);

	/* the program: status 2, "warpsim: file:line: message" on stderr */
	char *out, *e;
	int st = th_cli((const char *[]){ "compare", bad_dir[0], bad_dir[1], NULL }, &out, &e);
	if (st != 2)
		fail_msg("%s: exit status %d, expected 2; stderr:\n%s", b->name, st, e);
	char prefix[700];
	if (b->line)
		snprintf(prefix, sizeof prefix, "warpsim: %s:%d: ", where, b->line);
	else
		snprintf(prefix, sizeof prefix, "warpsim: %s: ", where);
	check_contains("stderr", e, prefix);
	check_contains("stderr", e, b->needle);
	assert_string_equal(out, "");
	free(out);
	free(e);
}

/* A CRLF file, as a spreadsheet might save it, is read the same. */
static void test_crlf(void **state)
{
	(void)state;
	char a[512], b[512];
	char *s = summary("10", "20", "1");
	write_run(a, sizeof a, "crlf-a", FCT_HEADER L1 L2, s, NULL);
	write_run(b, sizeof b, "crlf-b",
		  "flow_id,src,dst,bytes,prio,start_ns,end_ns,fct_ns,ideal_fct_ns,slowdown,tag\r\n"
		  "0,0,5,1000,3,0.000,1500.000,1500.000,900.000,1.666667,2\r\n"
		  "1,1,6,2000,3,0.000,2000.000,2000.000,900.000,2.222222,3\r\n", s, NULL);
	free(s);
	struct ws_compare c;
	compare_ok(a, b, &c, NULL);
	assert_int_equal(c.matched, 2);
	assert_true(c.fct_max == 0.5);
	assert_true(c.fct_mean == 0.25);
}

/* What a strict reader must still take: quoted fields (a field may hold
 * a comma or a line end, RFC 4180), and a summary.json with an integer
 * beyond 2^63 (a seed may be one), read with its other numbers exact. */
static void test_quoted_and_big(void **state)
{
	(void)state;
	char a[512], b[512];
	char *s = summary("123456789", "20", "1");
	const char *t = "{\"seed\": 18446744073709551615, \"results\": {\"sim_time_ps\": 20, "
			"\"events\": 123456789}, \"timing\": {\"run_s\": 1}}\n";
	write_run(a, sizeof a, "quoted-a", FCT_HEADER L1 L2, s, NULL);
	write_run(b, sizeof b, "quoted-b",
		  "flow_id,src,\"dst\",bytes,prio,start_ns,end_ns,fct_ns,ideal_fct_ns,"
		  "\"slow,down\",tag\n"
		  "\"0\",0,5,1000,3,0.000,1500.000,1500.000,900.000,1.666667,2\n"
		  "1,1,6,2000,3,0.000,2000.000,2000.000,900.000,\"2.2\n\",3\n", t, NULL);
	free(s);
	struct ws_compare c;
	struct ws_err err;
	int rc = ws_compare_runs(a, b, &c, NULL, &err);
	if (rc)
		fail_msg("%s:%d: %s", err.file, err.line, err.msg);
	assert_int_equal(c.matched, 2);
	assert_true(c.fct_max == 0.5);
	assert_int_equal(c.events_b, 123456789);
}

/* ---- a sweep's results.csv, as `warpsim plot SWEEPDIR` reads it ---------------- */

#define RES_HEADER "experiment,cc.name,\"sim.seed\",status,flows,flows_done,sim_time_s," \
	"slowdown_mean,slowdown_p50,slowdown_p99,slowdown_max,iteration_s,exposed_comm," \
	"drops,pfc_pauses,ecn_marks,events,wall_s\n"
#define RES_ROW(e, cc, seed) e "," cc "," seed ",ok,3,3,0.001,1.5,1.2,2.5,3,,,0,0,0,100,0.1\n"

static void test_results_csv(void **state)
{
	(void)state;
	static const struct {
		const char *name, *text, *needle; /* needle NULL: read */
	} cases[] = {
		{ "quoted fields", RES_HEADER RES_ROW("\"e,0\"", "\"dc\"\"qcn\"", "1")
		  RES_ROW("e1", "dcqcn", "\"2\""), NULL },
		{ "a stray quote", RES_HEADER RES_ROW("e0", "dc\"qcn", "1"),
		  "results.csv:2: column 6: error parsing data while strict checking enabled (a "
		  "quote that does not open or close a quoted field)" },
		{ "a quote left open", RES_HEADER RES_ROW("e0", "dcqcn", "1") "\"e1,dcqcn,2\n",
		  "results.csv:3: a quoted field without its closing quote (a truncated file?)" },
		{ "a short row", RES_HEADER RES_ROW("e0", "dcqcn", "1") "e1,dcqcn,2,ok\n",
		  "results.csv:3: 4 fields, expected 18" },
		{ "not a sweep's", "flow_id,src\n0,1\n",
		  "results.csv:1: not a sweep's results.csv (its first column is not 'experiment')" },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(cases); i++) {
		char dir[512], *out, *e;
		run_dir(dir, sizeof dir, th_fmt("sweep%zu", i));
		put(dir, "results.csv", cases[i].text);
		int st = th_cli((const char *[]){ "plot", "--data-only", "-o",
						  th_fmt("%s/plots", dir), dir, NULL }, &out, &e);
		if (!cases[i].needle && st != 0)
			fail_msg("%s: exit status %d, expected 0; stderr:\n%s", cases[i].name, st, e);
		if (!cases[i].needle) { /* the quoted value decoded, as the x tics show it */
			size_t len;
			char *gp = th_read(th_fmt("%s/plots/plot.gp", dir), &len);
			assert_non_null(gp);
			check_contains("plot.gp", gp, "set xtics ('dc\"qcn' 0, 'dcqcn' 1)");
			free(gp);
		}
		if (cases[i].needle && (st != 2 || !strstr(e, cases[i].needle)))
			fail_msg("%s: exit status %d, expected 2 and \"%s\" in:\n%s",
				 cases[i].name, st, cases[i].needle, e);
		free(out);
		free(e);
	}
}

/* ---- --csv ----------------------------------------------------------------------- */

static void test_csv(void **state)
{
	(void)state;
	const uint32_t ida[] = { 0, 1, 2, 3 }, idb[] = { 0, 1, 2 };
	const uint64_t fa[] = { 1000000, 2000000, 4000000, 5000000 };
	const uint64_t fb[] = { 1500000, 2000000, 3000123 };
	char *ta = fct_text(ida, fa, 4), *tb = fct_text(idb, fb, 3);
	char *s = summary("10", "20", "1");
	char a[512], b[512];
	write_run(a, sizeof a, "csv-a", ta, s, NULL);
	write_run(b, sizeof b, "csv-b", tb, s, NULL);
	free(ta);
	free(tb);
	free(s);
	char csv[600];
	snprintf(csv, sizeof csv, "%s/errors.csv", th_tmpdir());
	struct ws_compare c;
	compare_ok(a, b, &c, csv);
	char *text = th_read(csv, NULL);
	assert_non_null(text);
	/* matched flows only, exact times, the error to 10 digits */
	assert_string_equal(text, "flow_id,fct_a_ns,fct_b_ns,rel_error\n"
				  "0,1000.000,1500.000,0.5\n"
				  "1,2000.000,2000.000,0\n"
				  "2,4000.000,3000.123,0.24996925\n");
	free(text);

	/* the same through the program */
	unlink(csv);
	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "compare", "--csv", csv, a, b, NULL },
				&out, &err), 0);
	text = th_read(csv, NULL);
	assert_non_null(text);
	check_contains("--csv", text, "2,4000.000,3000.123,0.24996925\n");
	free(text);
	free(out);
	free(err);

	/* an output that cannot be written: status 1, not 2 */
	const char *bad = th_fmt("%s/no/such/dir/e.csv", th_tmpdir());
	char bad_csv[600];
	snprintf(bad_csv, sizeof bad_csv, "%s", bad);
	assert_int_equal(ws_compare_runs(a, b, &c, bad_csv, NULL), WS_EIO);
	assert_int_equal(th_cli((const char *[]){ "compare", "--csv", bad_csv, a, b, NULL },
				&out, &err), 1);
	check_contains("stderr", err, th_fmt("warpsim: %s: cannot write: No such file", bad_csv));
	free(out);
	free(err);
	const char *bj = th_fmt("%s/no/such/dir/e.json", th_tmpdir());
	char bad_json[600];
	snprintf(bad_json, sizeof bad_json, "%s", bj);
	assert_int_equal(th_cli((const char *[]){ "compare", a, b, "--json", bad_json, NULL },
				&out, &err), 1);
	check_contains("stderr", err, "/no/such/dir/e.json: cannot write: No such file or directory");
	free(out);
	free(err);
}

/* ---- usage ---------------------------------------------------------------------- */

static void test_usage(void **state)
{
	(void)state;
	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "compare", "--help", NULL }, &out, &err), 0);
	check_contains("stdout", out, "usage: warpsim compare [options] RUN_A RUN_B");
	check_contains("stdout", out, "--json FILE");
	check_contains("stdout", out, "--csv FILE");
	assert_string_equal(err, "");
	free(out);
	free(err);

	assert_int_equal(th_cli((const char *[]){ "--help", NULL }, &out, &err), 0);
	check_contains("stdout", out, "\n  compare ");
	free(out);
	free(err);

	static const struct {
		const char *args[6];
		const char *needle;
	} bad[] = {
		{ { "compare", NULL }, "warpsim compare: expected two run directories "
		  "(RUN_A RUN_B), got 0 arguments" },
		{ { "compare", "x", NULL }, "got 1 arguments" },
		{ { "compare", "x", "y", "z", NULL }, "got 3 arguments" },
		{ { "compare", "--bogus", "x", "y", NULL },
		  "warpsim compare: unknown option '--bogus'" },
		{ { "compare", "x", "y", "--json", NULL },
		  "warpsim compare: missing the argument of option '--json'" },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(bad); i++) {
		assert_int_equal(th_cli(bad[i].args, &out, &err), 2);
		check_contains("stderr", err, bad[i].needle);
		free(out);
		free(err);
	}
}

/*
 * Training workloads create flows as others complete: two runs number the
 * same transfers differently, but tag them alike.  With unique tags the
 * flows are matched by tag; with a repeated tag, by id.
 */
static void test_match_by_tag(void **state)
{
	(void)state;
	static const char a_fct[] = FCT_HEADER
		"0,0,5,1000,3,0.000,1000.000,1000.000,900.000,1.111111,70\n"
		"1,1,6,2000,3,0.000,2000.000,2000.000,900.000,2.222222,80\n";
	/* the same two transfers in the other order, the second 10 % slower */
	static const char b_fct[] = FCT_HEADER
		"0,1,6,2000,3,0.000,2200.000,2200.000,900.000,2.444444,80\n"
		"1,0,5,1000,3,0.000,1000.000,1000.000,900.000,1.111111,70\n";
	char a[512], b[512];
	char *sum = summary("100", "5000", "1.0");
	write_run(a, sizeof a, "tag-a", a_fct, sum, NULL);
	write_run(b, sizeof b, "tag-b", b_fct, sum, NULL);
	struct ws_compare c;
	compare_ok(a, b, &c, NULL);
	assert_true(c.by_tag);
	assert_int_equal(c.matched, 2);
	assert_true(fabs(c.fct_max - 0.1) < 1e-12);
	assert_int_equal(c.fct_max_flow, 1); /* A's id of the slower transfer */
	/* a repeated tag: by id, and these are then different scenarios */
	static const char b2_fct[] = FCT_HEADER
		"0,1,6,2000,3,0.000,2200.000,2200.000,900.000,2.444444,70\n"
		"1,0,5,1000,3,0.000,1000.000,1000.000,900.000,1.111111,70\n";
	write_run(b, sizeof b, "tag-b2", b2_fct, sum, NULL);
	struct ws_err err;
	assert_int_equal(ws_compare_runs(a, b, &c, NULL, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "not of the same scenario"));
	free(sum);
}

int main(void)
{
	static const struct CMUnitTest good[] = {
		cmocka_unit_test(test_same_scenario),
		cmocka_unit_test(test_known_figures),
		cmocka_unit_test(test_iterations_absent),
		cmocka_unit_test(test_training_metric),
		cmocka_unit_test(test_no_metrics),
		cmocka_unit_test(test_declared_metrics),
		cmocka_unit_test(test_fct_column_order),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_missing_flows),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_match_by_tag),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_quoted_and_big),
		cmocka_unit_test(test_results_csv),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_usage),
	};
	static struct CMUnitTest tests[WS_ARRAY_LEN(good) + WS_ARRAY_LEN(bad_cases)];
	size_t n = 0;
	for (size_t i = 0; i < WS_ARRAY_LEN(good); i++)
		tests[n++] = good[i];
	for (size_t i = 0; i < WS_ARRAY_LEN(bad_cases); i++)
		tests[n++] = (struct CMUnitTest){ bad_cases[i].name, test_bad_input, NULL,
						  NULL, (void *)&bad_cases[i] };
	return _cmocka_run_group_tests("test_compare", tests, n, NULL, NULL);
}
