/* SPDX-License-Identifier: MIT */
/*
 * The noise floor (docs/acceleration.md, "The noise floor"): [sim] perturb
 * and `warpsim compare --noise`.
 *
 * - perturb moves each flow's start by a draw of 0..perturb ps and changes
 *   nothing else: flows alone on the fabric keep their FCTs to the ps
 *   while their starts move (some do, none by more than perturb); on a
 *   contended DCQCN scenario (WebSearch traffic) flows move by a
 *   chaos-sized amount while the mean FCT stays, every flow completing; perturb = 0s is the run without the key;
 *   another perturb_seed is another twin; an out-of-range value is refused
 *   naming the key.
 * - compare --noise on hand-written runs with dyadic errors gives the
 *   exact rows (the band the largest twin error, ratios, verdicts, the
 *   size buckets cut from the base's flows, the iteration metric) in the
 *   text table, --csv and --json.
 * - bad argument combinations are refused with status 2 and a message.
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

/* ---- [sim] perturb ---------------------------------------------------------------- */

/* Four 20 KB flows between different hosts, 100 us apart: each alone. */
#define LONE_FLOWS "4\n0 1 3 100 20000 0\n2 5 3 100 20000 0.0001\n4 9 3 100 20000 0.0002\n" \
	"6 13 3 100 20000 0.0003\n"

static const char *ini_of(const char *flows, const char *extra)
{
	return th_fmt("[sim]\n%s\n[topology]\nname = fat-tree\nk = 4\n[cc]\nname = dcqcn\n"
		      "[workload]\nname = flows\nfile = %s\n", extra, flows);
}

static void flow_of(struct ws_sim *sim, uint32_t i, struct ws_flow_info *f)
{
	*f = (struct ws_flow_info){ WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, i, f);
	assert_true(f->end != WS_TIME_NEVER);
}

static void test_lone_flows_keep_fcts(void **state)
{
	(void)state;
	th_write("lone.txt", LONE_FLOWS);
	struct ws_sim *a = th_sim(ini_of("lone.txt", ""));
	struct ws_sim *b = th_sim(ini_of("lone.txt", "perturb = 1ns\nperturb_seed = 7"));
	th_run(a);
	th_run(b);
	unsigned moved = 0;
	for (uint32_t i = 0; i < 4; i++) {
		struct ws_flow_info x, y;
		flow_of(a, i, &x);
		flow_of(b, i, &y);
		assert_true(y.start >= x.start && y.start - x.start <= 1000);
		moved += y.start != x.start;
		/* the same FCT to the ps: nothing else changed */
		assert_int_equal(y.end - y.start, x.end - x.start);
	}
	assert_true(moved >= 3);
	ws_sim_free(a);
	ws_sim_free(b);
}

/* 100 WebSearch flows at half load on a k=4 fat-tree, DCQCN: contended */
static const char *websearch_ini(const char *extra)
{
	return th_fmt("[sim]\n%s\n[topology]\nname = fat-tree\nk = 4\nlink_rate = 100Gbps\n"
		      "link_delay = 1us\n[cc]\nname = dcqcn\n[workload]\nname = cdf\n"
		      "file = " TH_SRCDIR "/examples/cdf/WebSearch.txt\nload = 0.5\n"
		      "flows = 100\n", extra);
}

/* mean |relative FCT difference| of b against a, how many flows differ by
 * more than 1 ns, and the ratio of the mean FCTs */
static double mean_diff(struct ws_sim *a, struct ws_sim *b, unsigned *differ,
			double *mean_ratio)
{
	uint32_t n = ws_flow_count(a);
	double sum = 0, fct_a = 0, fct_b = 0;
	*differ = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct ws_flow_info x, y;
		flow_of(a, i, &x);
		flow_of(b, i, &y);
		double fa = (double)(x.end - x.start), fb = (double)(y.end - y.start);
		sum += fabs(fb - fa) / fa;
		fct_a += fa;
		fct_b += fb;
		*differ += fabs(fb - fa) > 1000;
	}
	*mean_ratio = fct_b / fct_a;
	return sum / n;
}

static void test_contended_moves_by_chaos(void **state)
{
	(void)state;
	struct ws_sim *a = th_sim(websearch_ini(""));
	struct ws_sim *z = th_sim(websearch_ini("perturb = 0s"));
	struct ws_sim *b = th_sim(websearch_ini("perturb = 1ns"));
	struct ws_sim *c = th_sim(websearch_ini("perturb = 1ns\nperturb_seed = 2"));
	th_run(a);
	th_run(z);
	th_run(b);
	th_run(c);
	unsigned differ;
	double ratio;
	assert_true(mean_diff(a, z, &differ, &ratio) == 0); /* 0s: off */
	assert_int_equal(differ, 0);
	th_check_bytes(b);
	for (int k = 0; k < 2; k++) {
		double m = mean_diff(a, k ? c : b, &differ, &ratio);
		print_message("perturb 1ns, seed %d: %u of 100 flows move by > 1 ns, mean "
			      "|rel| %.3g %%, mean FCT x %.4f\n", k + 1, differ, 100 * m, ratio);
		/* flows move by a chaos-sized amount, the distribution stays: the
		 * physics did not change */
		assert_true(differ >= 3);
		assert_true(m > 1e-4 && m < 0.3);
		assert_true(fabs(ratio - 1) < 0.1);
	}
	ws_sim_free(a);
	ws_sim_free(z);
	ws_sim_free(b);
	ws_sim_free(c);
}

static void test_perturb_range(void **state)
{
	(void)state;
	th_write("lone.txt", LONE_FLOWS);
	struct ws_sim *s = NULL;
	struct ws_err err;
	assert_int_not_equal(th_sim_try(ini_of("lone.txt", "perturb = 2us"), &s, &err, NULL), 0);
	char msg[1024];
	ws_err_format(&err, msg, sizeof msg);
	if (!strstr(msg, "perturb") || !strstr(msg, "1us"))
		fail_msg("perturb = 2us: expected an error naming the key and its bound, got: %s",
			 msg);
	assert_null(s);
}

/* ---- compare --noise on hand-written runs ----------------------------------------- */

#define FCT_HEADER "flow_id,src,dst,bytes,prio,start_ns,end_ns,fct_ns," \
		   "ideal_fct_ns,slowdown,tag\n"
#define ITER_HEADER "iteration,start_ns,end_ns,duration_ns,compute_bound_ns," \
		    "exposed_comm_ns,collectives,flows,network_bytes\n"
#define BASE_FCT 1048576u   /* ps: 2^20 */
#define STEP 16384u         /* ps: 2^14, 1/64 of BASE_FCT */

static void put(const char *dir, const char *file, const char *text)
{
	char rel[600];
	snprintf(rel, sizeof rel, "%s/%s", dir, file);
	th_write(rel, text);
}

static void put_ns(FILE *f, uint64_t ps, char sep)
{
	fprintf(f, "%" PRIu64 ".%03u%c", ps / 1000, (unsigned)(ps % 1000), sep);
}

/*
 * A run directory <tmpdir>/<name>: 8 flows (flow i: i -> i + 8, 1000 + i
 * bytes) whose FCTs are BASE_FCT + step[i] x STEP ps, two iterations of
 * 1024 + it[0] and 2048 + it[1] ns, run with [accel] name = `accel`.
 */
static const char *write_run(const char *name, const char *accel, const int *step,
			     const int *it)
{
	mkdir(th_fmt("%s/%s", th_tmpdir(), name), 0777);
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	fputs(FCT_HEADER, f);
	for (uint32_t i = 0; i < 8; i++) {
		uint64_t fct = (uint64_t)((int64_t)BASE_FCT + step[i] * (int64_t)STEP);
		fprintf(f, "%u,%u,%u,%u,3,", i, i, i + 8, 1000 + i);
		put_ns(f, 0, ',');
		put_ns(f, fct, ',');
		put_ns(f, fct, ',');
		put_ns(f, BASE_FCT, ',');
		fprintf(f, "1.000000,%u\n", i + 2);
	}
	fclose(f);
	put(name, "fct.csv", s);
	free(s);
	f = open_memstream(&s, &len);
	fputs(ITER_HEADER, f);
	uint64_t d0 = 1024000 + (uint64_t)it[0], d1 = 2048000 + (uint64_t)it[1];
	fprintf(f, "0,0.000,");
	put_ns(f, d0, ',');
	put_ns(f, d0, ',');
	fprintf(f, "0.000,0.000,1,4,4096\n1,");
	put_ns(f, d0, ',');
	put_ns(f, d0 + d1, ',');
	put_ns(f, d1, ',');
	fprintf(f, "0.000,0.000,1,4,4096\n");
	fclose(f);
	put(name, "iterations.csv", s);
	free(s);
	put(name, "summary.json", th_fmt(
		"{\n  \"plugins\": {\n    \"accel\": {\n      \"name\": \"%s\"\n    }\n  },\n"
		"  \"kernel\": {\n    \"sim\": {\n      \"params\": {\n        \"perturb_ps\": %d\n"
		"      }\n    }\n  },\n"
		"  \"fabric\": {\n    \"nodes\": 36,\n    \"links\": 48,\n    \"ports\": 128\n  },\n"
		"  \"results\": {\n    \"sim_time_ps\": 4000000,\n    \"events\": %s\n  },\n"
		"  \"workload\": {\n    \"metrics\": [\n      {\"name\": \"iteration\", "
		"\"file\": \"iterations.csv\", \"key\": \"iteration\", \"value\": "
		"\"duration_ns\", \"start\": \"start_ns\", \"end\": \"end_ns\"}\n    ]\n  },\n"
		"  \"timing\": {\n    \"run_s\": 1,\n    \"run_cpu_s\": %s\n  }\n}\n",
		accel, strcmp(name, "twin1") && strcmp(name, "twin2") ? 0 : 1000,
		strcmp(accel, "none") ? "1000" : "64000", strcmp(accel, "none") ? "0.25" : "1"));
	return th_fmt("%s/%s", th_tmpdir(), name);
}

/* base, two twins and a candidate with the errors the header comment of
 * test_noise_rows lists; the paths in dir[] */
static void write_runs(char dir[4][512])
{
	static const int zero[8] = { 0 }, t1[8] = { 1 }, t2[8] = { 0, 2, 0, 0, 0, 0, 0, -1 },
			 cand[8] = { 0, 0, 4, 0, 0, 0, 0, 8 };
	static const int it0[2] = { 0 }, it2[2] = { 0, 32000 }, itc[2] = { 8000, 0 };
	snprintf(dir[0], 512, "%s", write_run("base", "none", zero, it0));
	snprintf(dir[1], 512, "%s", write_run("twin1", "none", t1, it0));
	snprintf(dir[2], 512, "%s", write_run("twin2", "none", t2, it2));
	snprintf(dir[3], 512, "%s", write_run("cand", "wormhole", cand, itc));
}

struct want_row {
	const char *what, *stat;
	double cand, band, ratio;
	const char *within;
	double twin1, twin2;
};

/*
 * Errors in 64ths (flows 0..7): twin 1 flow 0 +1; twin 2 flow 1 +2, flow
 * 7 -1; the candidate flow 2 +4, flow 7 +8.  Iterations (1024, 2048 ns):
 * twin 2 the second +1/64; the candidate the first +1/128.  Two size
 * buckets: flows 0-3 and 4-7.
 */
static const struct want_row want[] = {
	{ "fct", "mean", 12 / 512.0, 3 / 512.0, 4, "false", 1 / 512.0, 3 / 512.0 },
	{ "fct", "p50", 0, 0, NAN, "true", 0, 0 },
	{ "fct", "p99", 8 / 64.0, 2 / 64.0, 4, "false", 1 / 64.0, 2 / 64.0 },
	{ "fct", "|bias|", 12 / 512.0, 1 / 512.0, 12, "false", 1 / 512.0, 1 / 512.0 },
	{ "fct_by_size", "mean", 4 / 256.0, 2 / 256.0, 2, "false", 1 / 256.0, 2 / 256.0 },
	{ "fct_by_size", "p99", 4 / 64.0, 2 / 64.0, 2, "false", 1 / 64.0, 2 / 64.0 },
	{ "fct_by_size", "mean", 8 / 256.0, 1 / 256.0, 8, "false", 0, 1 / 256.0 },
	{ "fct_by_size", "p99", 8 / 64.0, 1 / 64.0, 8, "false", 0, 1 / 64.0 },
	{ "iteration", "mean", 1 / 256.0, 1 / 128.0, 0.5, "true", 0, 1 / 128.0 },
	{ "iteration", "max", 1 / 128.0, 1 / 64.0, 0.5, "true", 0, 1 / 64.0 },
};

static void check_num(const struct th_csv *c, unsigned r, const char *col, double v)
{
	const char *cell = th_csv_get(c, r, col);
	assert_non_null(cell);
	if (isnan(v)) {
		if (*cell)
			fail_msg("row %u, %s: '%s', expected empty", r + 1, col, cell);
		return;
	}
	if (th_csv_num(c, r, col) != v)
		fail_msg("row %u, %s: %s, expected %.10g", r + 1, col, cell, v);
}

static void test_noise_rows(void **state)
{
	(void)state;
	char dir[4][512];
	write_runs(dir);
	const char *csv = th_fmt("%s/noise.csv", th_tmpdir());
	char csv_path[512], json_path[512];
	snprintf(csv_path, sizeof csv_path, "%s", csv);
	snprintf(json_path, sizeof json_path, "%s/noise.json", th_tmpdir());
	char *out, *err;
	int st = th_cli((const char *[]){ "compare", "--noise", "--size-buckets", "2", "--csv",
					  csv_path, "--json", json_path, dir[0], dir[1],
					  dir[2], dir[3], NULL }, &out, &err);
	if (st)
		fail_msg("compare --noise: status %d: %s", st, err);
	struct th_csv c;
	th_csv_load(&c, csv_path);
	assert_int_equal(c.rows, WS_ARRAY_LEN(want));
	for (unsigned r = 0; r < c.rows; r++) {
		const struct want_row *w = &want[r];
		assert_string_equal(th_csv_get(&c, r, "what"), w->what);
		assert_string_equal(th_csv_get(&c, r, "stat"), w->stat);
		check_num(&c, r, "candidate", w->cand);
		check_num(&c, r, "band", w->band);
		check_num(&c, r, "ratio", w->ratio);
		check_num(&c, r, "twin_1", w->twin1);
		check_num(&c, r, "twin_2", w->twin2);
		assert_string_equal(th_csv_get(&c, r, "within_noise"), w->within);
	}
	/* the buckets: the base's flows 0-3 (1000-1003 bytes), 4-7 */
	assert_string_equal(th_csv_get(&c, 4, "min_bytes"), "1000");
	assert_string_equal(th_csv_get(&c, 4, "max_bytes"), "1003");
	assert_string_equal(th_csv_get(&c, 6, "min_bytes"), "1004");
	assert_string_equal(th_csv_get(&c, 6, "n"), "4");
	th_csv_free(&c);
	const char *lines[] = {
		"  twin 2     ", "(perturb 1000 ps): 8 of 8 flows matched",
		"(accel wormhole): 8 of 8 flows matched; events ratio 64.00, CPU speedup 4.00",
		"  FCT mean                             8       2.34%      0.586%  above noise (4 times)",
		"  FCT p50                              8          0%          0%  within noise",
		"  FCT |bias|                           8       2.34%      0.195%  above noise (12 times)",
		"  FCT mean 1000B-1003B                 4       1.56%      0.781%  above noise (2 times)",
		"  iteration max                        2      0.781%       1.56%  within noise",
		"  3 of 10 rows within noise; a run no further from the base than a twin would "
		"be above in about 3.3 of them (1 in 3)",
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(lines); i++)
		if (!strstr(out, lines[i]))
			fail_msg("stdout lacks \"%s\":\n%s", lines[i], out);
	char *json = th_read(json_path, NULL);
	assert_non_null(json);
	if (!strstr(json, "\"mode\": \"noise\"") ||
	    !strstr(json, "\"verdict\": \"above noise (8 times)\"") ||
	    !strstr(json, "\"cpu_speedup\": 4"))
		fail_msg("noise.json:\n%s", json);
	free(json);
	free(out);
	free(err);
}

/* A band of 0 against a non-zero candidate error: "twin exact". */
static void test_exact_twin(void **state)
{
	(void)state;
	char dir[4][512];
	write_runs(dir);
	char *out, *err;
	int st = th_cli((const char *[]){ "compare", "--noise", dir[0], dir[1], dir[3], NULL },
			&out, &err);
	assert_int_equal(st, 0);
	/* 4 buckets of 2 flows: flows 6-7, twin 1 exact there */
	if (!strstr(out, "  FCT mean 1006B-1007B                 2       6.25%          0%  "
		    "above noise (twin exact)"))
		fail_msg("stdout:\n%s", out);
	free(out);
	free(err);
}

static void refuse(const char *const *args, const char *needle)
{
	char *out, *err;
	int st = th_cli(args, &out, &err);
	if (st != 2 || !strstr(err, needle))
		fail_msg("warpsim %s %s ...: status %d, expected 2 and \"%s\" in:\n%s", args[0],
			 args[1], st, needle, err);
	free(out);
	free(err);
}

static void test_bad_combinations(void **state)
{
	(void)state;
	char dir[4][512];
	write_runs(dir);
	refuse((const char *[]){ "compare", "--noise", dir[0], dir[3], NULL },
	       "expected BASE TWIN [TWIN ...] CANDIDATE");
	refuse((const char *[]){ "compare", "--noise", "--ab", dir[0], dir[1], dir[3], NULL },
	       "--noise, --ab and --errors are three modes: choose one");
	refuse((const char *[]){ "compare", "--noise", "--errors", dir[0], dir[1], dir[3], NULL },
	       "choose one");
	refuse((const char *[]){ "compare", "--noise", dir[3], dir[1], dir[0], NULL },
	       "ran with [accel] name = wormhole: the base and its twins must be "
	       "packet-level runs");
	refuse((const char *[]){ "compare", "--noise", dir[0], dir[0], dir[3], NULL },
	       "is given twice (arguments 1 and 2)");
	refuse((const char *[]){ "compare", "--size-buckets", "3", dir[0], dir[3], NULL },
	       "--size-buckets goes with --noise");
	refuse((const char *[]){ "compare", "--noise", "--size-buckets", "0", dir[0], dir[1],
				 dir[3], NULL },
	       "--size-buckets '0': expected a whole number from 1 to 20");
	/* a twin of another scenario: flow 3 has other bytes */
	char *fct = th_read(th_fmt("%s/fct.csv", dir[1]), NULL);
	mkdir(th_fmt("%s/other", th_tmpdir()), 0777);
	char *p = strstr(fct, "\n3,3,11,1003,");
	assert_non_null(p);
	p[10] = '9';
	put("other", "fct.csv", fct);
	free(fct);
	char *sum = th_read(th_fmt("%s/summary.json", dir[1]), NULL);
	put("other", "summary.json", sum);
	free(sum);
	refuse((const char *[]){ "compare", "--noise", dir[0],
				 th_fmt("%s/other", th_tmpdir()), dir[3], NULL },
	       "the runs are not of the same scenario");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lone_flows_keep_fcts),
		cmocka_unit_test(test_contended_moves_by_chaos),
		cmocka_unit_test(test_perturb_range),
		cmocka_unit_test(test_noise_rows),
		cmocka_unit_test(test_exact_twin),
		cmocka_unit_test(test_bad_combinations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
