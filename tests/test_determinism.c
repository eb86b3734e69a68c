/* SPDX-License-Identifier: MIT */
/*
 * Determinism and regressions: two runs of the quickstart give identical
 * bytes (fct.csv, and summary.json outside its "timing" block); another seed
 * gives another result; configurations that mean the same (other units,
 * defaults written out) give the same output; running in slices equals one
 * run; fct.csv matches a golden copy (WARPSIM_UPDATE_GOLDEN=1 rewrites it);
 * summary.json is well-formed JSON.  The plain quickstart runs once, in the
 * group setup, into tmp/plain: every test compares with that run (the first
 * runs it again and compares byte for byte).
 */
#include "th.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define QUICKSTART TH_SRCDIR "/examples/quickstart.ini"
#define GOLDEN TH_SRCDIR "/tests/golden/quickstart.fct.csv"

/* Run an ini file (with overrides) and write its outputs into tmp/<dir>. */
static void run_file(const char *ini, const char *const *sets, const char *dir,
		     ws_time step)
{
	struct ws_cfg *cfg;
	struct ws_err err;
	if (ws_cfg_load(&cfg, ini, &err))
		fail_msg("%s", err.msg);
	for (size_t i = 0; sets && sets[i]; i++)
		assert_int_equal(ws_cfg_set(cfg, sets[i], &err), WS_OK);
	struct ws_sim *sim;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
	if (ws_sim_new(&sim, cfg, &opts, &err))
		fail_msg("%s", err.msg);
	if (step) {
		struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
		ws_time t = 0;
		do {
			t += step;
			th_run_until(sim, t);
			ws_sim_get_stats(sim, &st);
		} while (st.flows_done < st.flows || st.flows == 0);
		th_run(sim);
	} else {
		th_run(sim);
	}
	char path[512];
	snprintf(path, sizeof path, "%s/%s", th_tmpdir(), dir);
	assert_int_equal(ws_sim_write_outputs(sim, path, &err), WS_OK);
	ws_sim_free(sim);
	ws_cfg_free(cfg);
}

static char *out_file(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s/%s", th_tmpdir(), dir, name);
	char *s = th_read(path, NULL);
	assert_non_null(s);
	return s;
}

/* summary.json up to its "timing" block, the only wall-clock part */
static char *summary_without_timing(const char *dir)
{
	char *s = out_file(dir, "summary.json");
	char *t = strstr(s, "\"timing\"");
	assert_non_null(t);
	*t = '\0';
	return s;
}

/* The plain quickstart, once for all the tests, into tmp/plain. */
static int run_plain(void **state)
{
	(void)state;
	run_file(QUICKSTART, NULL, "plain", 0);
	return 0;
}

/* Run the quickstart with `sets` in `step`-long slices (into `dir_b`); its
 * fct.csv must equal the plain run's, or differ when `equal` is false. */
static void compare_fct(const char *const *sets, const char *dir_b, ws_time step,
			bool equal)
{
	run_file(QUICKSTART, sets, dir_b, step);
	char *a = out_file("plain", "fct.csv"), *b = out_file(dir_b, "fct.csv");
	if (equal)
		assert_string_equal(a, b);
	else
		assert_string_not_equal(a, b);
	free(a);
	free(b);
}

static void test_two_runs_identical(void **state)
{
	(void)state;
	run_file(QUICKSTART, NULL, "again", 0);
	char *fa = out_file("plain", "fct.csv"), *fb = out_file("again", "fct.csv");
	assert_string_equal(fa, fb);
	assert_true(strlen(fa) > 1000);
	char *sa = summary_without_timing("plain"), *sb = summary_without_timing("again");
	assert_string_equal(sa, sb);
	free(fa);
	free(fb);
	free(sa);
	free(sb);
}

static void test_seed_matters(void **state)
{
	(void)state;
	const char *const seed2[] = { "sim.seed=2", NULL };
	/* ECN marking draws differ, so the DCQCN trajectories do */
	compare_fct(seed2, "seed2", 0, false);
}

static void test_equivalent_configs(void **state)
{
	(void)state;
	/* the quickstart with other spellings and its defaults written out */
	const char *const same[] = {
		"topology.link_rate=100000Mbps", "topology.link_delay=1000ns",
		"topology.host_rate=0.1Tbps", "routing.ecmp_seed=0",
		"cc.g=0.00390625", "cc.rp_timer=0.3ms", "cc.rate_ai=20000Kbps",
		"switch.buffer=32768KiB", "switch.ecn_kmin=0.4MB", "nic.mtu=1052",
		"accel.name=none", NULL
	};
	compare_fct(same, "same", 0, true);
}

static void test_slices_equal_one_run(void **state)
{
	(void)state;
	compare_fct(NULL, "sliced", 37 * WS_US, true);
	char *a = summary_without_timing("plain"), *b = summary_without_timing("sliced");
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void test_golden_fct(void **state)
{
	(void)state;
	char *got = out_file("plain", "fct.csv");
	const char *update = getenv("WARPSIM_UPDATE_GOLDEN");
	if (update && strcmp(update, "1") == 0) {
		FILE *f = fopen(GOLDEN, "w");
		assert_non_null(f);
		fputs(got, f);
		fclose(f);
		print_message("rewrote %s\n", GOLDEN);
	}
	char *want = th_read(GOLDEN, NULL);
	if (!want)
		fail_msg("no %s: run make check with WARPSIM_UPDATE_GOLDEN=1 once", GOLDEN);
	if (strcmp(got, want) != 0)
		fail_msg("fct.csv of the quickstart differs from %s; if the change is "
			 "intended, rerun with WARPSIM_UPDATE_GOLDEN=1 and commit it", GOLDEN);
	free(got);
	free(want);
}

static void test_traces_do_not_perturb(void **state)
{
	(void)state;
	const char *const traced[] = { "output.trace_rates=7us", "output.trace_queues=3us",
				       NULL };
	compare_fct(traced, "traced", 0, true);
}

/* ---- a small JSON syntax check (RFC 8259 structure, no semantics) ------------- */

static const char *js_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *js_value(const char *p);

static const char *js_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (!strchr("\"\\/bfnrtu", *p))
				return NULL;
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *js_value(const char *p)
{
	p = js_ws(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		bool obj = *p == '{';
		p = js_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				p = js_string(js_ws(p));
				if (!p)
					return NULL;
				p = js_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = js_value(p);
			if (!p)
				return NULL;
			p = js_ws(p);
			if (*p == ',') {
				p++;
				continue;
			}
			return *p == close ? p + 1 : NULL;
		}
	}
	if (*p == '"')
		return js_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	const char *s = p;
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p) || *p == '.' || *p == 'e' || *p == 'E' ||
	       *p == '+' || *p == '-')
		p++;
	return p > s ? p : NULL;
}

static void test_summary_is_json(void **state)
{
	(void)state;
	char *s = out_file("plain", "summary.json");
	const char *end = js_value(s);
	assert_non_null(end);
	assert_int_equal(*js_ws(end), '\0');
	/* the effective parameters and the results are there */
	assert_non_null(strstr(s, "\"rate_ai_bps\": 20000000,"));
	assert_non_null(strstr(s, "\"buffer_bytes\": 33554432,"));
	assert_non_null(strstr(s, "\"completed\": 34"));
	assert_non_null(strstr(s, "\"fct_slowdown\""));
	free(s);
	/* the checker itself rejects broken JSON */
	assert_null(js_value("{\"a\": 1,}"));
	assert_null(js_value("{\"a\" 1}"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_runs_identical),
		cmocka_unit_test(test_seed_matters),
		cmocka_unit_test(test_equivalent_configs),
		cmocka_unit_test(test_slices_equal_one_run),
		cmocka_unit_test(test_golden_fct),
		cmocka_unit_test(test_traces_do_not_perturb),
		cmocka_unit_test(test_summary_is_json),
	};
	return cmocka_run_group_tests_name("determinism", tests, run_plain, NULL);
}
