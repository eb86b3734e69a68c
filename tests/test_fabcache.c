/* SPDX-License-Identifier: MIT */
/*
 * Fabrics shared between simulations (ws_fabric_cache, ABI 2.2): runs that
 * share a build give the same bytes (fct.csv, ports.csv, summary.json
 * outside its timing block) as runs that build their own; the same
 * topology is built once, another one again; a per-run setting the shared
 * ports do not hold ([switch] buffer, ECN thresholds) still takes effect;
 * a routing rule's tables are shared (table) and its parameters are part of
 * the key; the cache and its simulations may be freed in either order; and
 * four experiments on four threads sharing one cache give what they give
 * one at a time (this test is the one the ThreadSanitizer build runs:
 * ./bootstrap --enable-tsan).
 */
#include "th.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUICKSTART TH_SRCDIR "/examples/quickstart.ini"
#define RAIL TH_SRCDIR "/examples/rail.ini"

/* An ini file with overrides; `sets` ends with NULL. */
static struct ws_sim *sim_of(const char *ini, const char *const *sets,
			     struct ws_fabric_cache *cache)
{
	struct ws_cfg *cfg;
	struct ws_err err;
	if (ws_cfg_load(&cfg, ini, &err))
		fail_msg("%s", err.msg);
	for (size_t i = 0; sets && sets[i]; i++)
		if (ws_cfg_set(cfg, sets[i], &err))
			fail_msg("%s: %s", sets[i], err.msg);
	struct ws_sim *sim;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .fabric_cache = cache };
	if (ws_sim_new(&sim, cfg, &opts, &err))
		fail_msg("%s", err.msg);
	ws_cfg_free(cfg);
	return sim;
}

/* Run to the end, write the outputs into tmp/<dir>; no cmocka calls, so
 * threads may use it.  Returns nonzero on error. */
static int run_and_write(struct ws_sim *sim, const char *dir)
{
	struct ws_err err;
	char path[512];
	snprintf(path, sizeof path, "%s/%s", th_tmpdir(), dir);
	if (ws_sim_run(sim, WS_TIME_NEVER, &err))
		return 1;
	return ws_sim_write_outputs(sim, path, &err) != WS_OK;
}

static bool shared(const struct ws_sim *sim)
{
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	return st.fabric_shared;
}

/* One experiment run alone, with or without a cache; outputs in tmp/<dir>. */
static void run_one(const char *ini, const char *const *sets,
		    struct ws_fabric_cache *cache, const char *dir)
{
	struct ws_sim *sim = sim_of(ini, sets, cache);
	assert_int_equal(run_and_write(sim, dir), 0);
	ws_sim_free(sim);
}

static char *out_file(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s/%s", th_tmpdir(), dir, name);
	char *s = th_read(path, NULL);
	if (!s)
		fail_msg("no %s", path);
	return s;
}

/* fct.csv, ports.csv (when written) and summary.json up to its timing
 * block are the same bytes in tmp/a and tmp/b. */
static void assert_same_outputs(const char *a, const char *b)
{
	static const char *const files[] = { "fct.csv", "summary.json" };
	for (size_t i = 0; i < WS_ARRAY_LEN(files); i++) {
		char *x = out_file(a, files[i]), *y = out_file(b, files[i]);
		char *tx = strstr(x, "\"timing\""), *ty = strstr(y, "\"timing\"");
		if (tx)
			*tx = '\0';
		if (ty)
			*ty = '\0';
		if (strcmp(x, y))
			fail_msg("%s differs between %s and %s", files[i], a, b);
		free(x);
		free(y);
	}
	char pa[512], pb[512];
	snprintf(pa, sizeof pa, "%s/%s/ports.csv", th_tmpdir(), a);
	snprintf(pb, sizeof pb, "%s/%s/ports.csv", th_tmpdir(), b);
	char *x = th_read(pa, NULL), *y = th_read(pb, NULL);
	assert_true((x == NULL) == (y == NULL));
	if (x && strcmp(x, y))
		fail_msg("ports.csv differs between %s and %s", a, b);
	free(x);
	free(y);
}

static const char *const with_ports[] = { "output.ports=true", NULL };

static void test_same_topology_built_once(void **state)
{
	(void)state;
	run_one(QUICKSTART, with_ports, NULL, "plain");
	struct ws_fabric_cache *c;
	struct ws_err err;
	assert_int_equal(ws_fabric_cache_new(&c, &err), WS_OK);
	struct ws_sim *a = sim_of(QUICKSTART, with_ports, c);
	struct ws_sim *b = sim_of(QUICKSTART, with_ports, c);
	assert_int_equal(ws_fabric_cache_builds(c), 1);
	assert_false(shared(a));
	assert_true(shared(b));
	/* b runs first: a run's outputs do not depend on who built or ran */
	assert_int_equal(run_and_write(b, "second"), 0);
	assert_int_equal(run_and_write(a, "first"), 0);
	assert_same_outputs("plain", "first");
	assert_same_outputs("plain", "second");
	ws_sim_free(a);
	ws_sim_free(b);
	ws_fabric_cache_free(c);
}

static void test_other_topology_built_again(void **state)
{
	(void)state;
	static const char *const slower[] = { "topology.link_rate=40Gbps", NULL };
	struct ws_fabric_cache *c;
	struct ws_err err;
	assert_int_equal(ws_fabric_cache_new(&c, &err), WS_OK);
	struct ws_sim *a = sim_of(QUICKSTART, NULL, c);
	struct ws_sim *b = sim_of(QUICKSTART, slower, c);
	struct ws_sim *d = sim_of(QUICKSTART, slower, c);
	assert_int_equal(ws_fabric_cache_builds(c), 2);
	assert_false(shared(b));
	assert_true(shared(d));
	ws_sim_free(a);
	ws_sim_free(b);
	ws_sim_free(d);
	ws_fabric_cache_free(c);
}

/* The per-port [switch] fields are per run: a buffer and an ECN axis over
 * one shared fabric give each value's own unshared result. */
static void test_switch_axis_on_shared_fabric(void **state)
{
	(void)state;
	static const char *const sets[3][4] = {
		{ "switch.buffer=2MB", "output.ports=true", NULL },
		{ "switch.buffer=600KB", "switch.ecn_kmin=5KB", "output.ports=true", NULL },
		{ "switch.buffer=20MB", "switch.pfc=false", "output.ports=true", NULL },
	};
	struct ws_fabric_cache *c;
	struct ws_err err;
	assert_int_equal(ws_fabric_cache_new(&c, &err), WS_OK);
	struct ws_sim *sims[3];
	for (int i = 0; i < 3; i++) {
		char dir[32];
		snprintf(dir, sizeof dir, "alone%d", i);
		run_one(QUICKSTART, sets[i], NULL, dir);
		sims[i] = sim_of(QUICKSTART, sets[i], c);
	}
	assert_int_equal(ws_fabric_cache_builds(c), 1);
	for (int i = 2; i >= 0; i--) {
		char dir[32], alone[32];
		snprintf(dir, sizeof dir, "shared%d", i);
		snprintf(alone, sizeof alone, "alone%d", i);
		assert_int_equal(run_and_write(sims[i], dir), 0);
		assert_same_outputs(alone, dir);
	}
	/* the axis does something: the outputs are not all the same */
	char *x = out_file("alone0", "fct.csv"), *y = out_file("alone1", "fct.csv");
	assert_string_not_equal(x, y);
	free(x);
	free(y);
	for (int i = 0; i < 3; i++)
		ws_sim_free(sims[i]);
	ws_fabric_cache_free(c);
}

/* table's distance matrix is shared (share/adopt/release); ecmp_seed is
 * part of the key. */
static void test_routing_tables_shared(void **state)
{
	(void)state;
	static const char *const table[] = { "routing.name=table", "output.ports=true", NULL };
	static const char *const seed2[] = { "routing.name=table", "routing.ecmp_seed=2", NULL };
	run_one(QUICKSTART, table, NULL, "table-plain");
	struct ws_fabric_cache *c;
	struct ws_err err;
	assert_int_equal(ws_fabric_cache_new(&c, &err), WS_OK);
	struct ws_sim *a = sim_of(QUICKSTART, table, c);
	struct ws_sim *b = sim_of(QUICKSTART, table, c);
	assert_true(shared(b));
	assert_int_equal(ws_fabric_cache_builds(c), 1);
	struct ws_sim *d = sim_of(QUICKSTART, seed2, c);
	assert_false(shared(d));
	assert_int_equal(ws_fabric_cache_builds(c), 2);
	ws_sim_free(a); /* the builder goes first: b keeps the tables */
	assert_int_equal(run_and_write(b, "table-shared"), 0);
	assert_same_outputs("table-plain", "table-shared");
	ws_sim_free(b);
	ws_sim_free(d);
	ws_fabric_cache_free(c);
}

/* Either order frees everything (the sanitizer build checks for leaks). */
static void test_free_orders(void **state)
{
	(void)state;
	static const char *const table[] = { "routing.name=table", NULL };
	struct ws_fabric_cache *c;
	struct ws_err err;
	assert_int_equal(ws_fabric_cache_new(&c, &err), WS_OK);
	struct ws_sim *a = sim_of(QUICKSTART, table, c);
	struct ws_sim *b = sim_of(QUICKSTART, table, c);
	ws_fabric_cache_free(c);  /* cache first: the sims still run */
	assert_int_equal(run_and_write(b, "after-free"), 0);
	ws_sim_free(b);
	ws_sim_free(a);
	assert_int_equal(ws_fabric_cache_new(&c, &err), WS_OK);
	a = sim_of(QUICKSTART, NULL, c);
	ws_sim_free(a);           /* sims first: the build stays for later ones */
	b = sim_of(QUICKSTART, NULL, c);
	assert_true(shared(b));
	assert_int_equal(ws_fabric_cache_builds(c), 1);
	ws_sim_free(b);
	ws_fabric_cache_free(c);
	ws_fabric_cache_free(NULL);
}

/* A failed build leaves nothing behind; the next asker builds (and fails)
 * with its own error. */
static void test_failed_build(void **state)
{
	(void)state;
	struct ws_fabric_cache *c;
	struct ws_err err;
	assert_int_equal(ws_fabric_cache_new(&c, &err), WS_OK);
	struct ws_cfg *cfg;
	assert_int_equal(ws_cfg_load(&cfg, QUICKSTART, &err), WS_OK);
	assert_int_equal(ws_cfg_set(cfg, "switch.buffer=100KB", &err), WS_OK);
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .fabric_cache = c };
	struct ws_sim *sim;
	/* the build is fine; the run's buffer is refused after it */
	assert_int_not_equal(ws_sim_new(&sim, cfg, &opts, &err), WS_OK);
	assert_non_null(strstr(err.msg, "buffer"));
	assert_int_equal(ws_fabric_cache_builds(c), 1);
	ws_cfg_free(cfg);
	assert_int_equal(ws_cfg_load(&cfg, QUICKSTART, &err), WS_OK);
	assert_int_equal(ws_cfg_set(cfg, "topology.k=3", &err), WS_OK);
	assert_int_not_equal(ws_sim_new(&sim, cfg, &opts, &err), WS_OK);
	assert_int_not_equal(ws_sim_new(&sim, cfg, &opts, &err), WS_OK);
	assert_int_equal(ws_fabric_cache_builds(c), 1);
	ws_cfg_free(cfg);
	ws_fabric_cache_free(c);
}

/* Memory estimates count a shared fabric once: a limit too small for
 * building the fabric is enough for a run that adopts it. */
static void test_memory_counted_once(void **state)
{
	(void)state;
	static const char *const k8[] = { "topology.k=8", NULL };
	struct ws_fabric_cache *c;
	struct ws_err err;
	assert_int_equal(ws_fabric_cache_new(&c, &err), WS_OK);
	struct ws_sim *a = sim_of(QUICKSTART, k8, c);
	uint64_t fabric = ws_fabric_bytes(a);
	struct ws_cfg *cfg;
	assert_int_equal(ws_cfg_load(&cfg, QUICKSTART, &err), WS_OK);
	assert_int_equal(ws_cfg_set(cfg, "topology.k=8", &err), WS_OK);
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .max_memory = fabric / 2 };
	struct ws_sim *b;
	/* alone, the build is refused */
	assert_int_equal(ws_sim_new(&b, cfg, &opts, &err), WS_ENOMEM);
	/* through the cache, the fabric is already there */
	opts.fabric_cache = c;
	if (ws_sim_new(&b, cfg, &opts, &err))
		fail_msg("%s", err.msg);
	assert_true(shared(b));
	ws_sim_free(b);
	ws_cfg_free(cfg);
	ws_sim_free(a);
	ws_fabric_cache_free(c);
}

/* ---- four experiments on four threads ------------------------------------------ */

struct job {
	const char *ini;
	const char *const *sets;
	struct ws_fabric_cache *cache;
	char dir[32];
	int rc;
};

static void *job_run(void *arg)
{
	struct job *j = arg;
	struct ws_cfg *cfg;
	struct ws_err err;
	j->rc = 1;
	if (ws_cfg_load(&cfg, j->ini, &err))
		return NULL;
	for (size_t i = 0; j->sets[i]; i++)
		if (ws_cfg_set(cfg, j->sets[i], &err))
			goto done;
	struct ws_sim *sim;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .fabric_cache = j->cache };
	if (ws_sim_new(&sim, cfg, &opts, &err))
		goto done;
	j->rc = run_and_write(sim, j->dir);
	ws_sim_free(sim);
done:
	ws_cfg_free(cfg);
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	static const char *const dcqcn[] = { "cc.name=dcqcn", "output.ports=true", NULL };
	static const char *const hpcc[] = { "cc.name=hpcc", "output.ports=true", NULL };
	static const char *const timely[] = { "cc.name=timely", NULL };
	static const char *const dctcp[] = { "cc.name=dctcp", "switch.pfc=false", NULL };
	struct job jobs[4] = {
		{ .ini = QUICKSTART, .sets = dcqcn },
		{ .ini = RAIL, .sets = hpcc },
		{ .ini = QUICKSTART, .sets = timely },
		{ .ini = RAIL, .sets = dctcp },
	};
	for (int i = 0; i < 4; i++) {
		snprintf(jobs[i].dir, sizeof jobs[i].dir, "seq%d", i);
		job_run(&jobs[i]);
		assert_int_equal(jobs[i].rc, 0);
	}
	struct ws_fabric_cache *c;
	struct ws_err err;
	assert_int_equal(ws_fabric_cache_new(&c, &err), WS_OK);
	pthread_t t[4];
	for (int i = 0; i < 4; i++) {
		jobs[i].cache = c;
		snprintf(jobs[i].dir, sizeof jobs[i].dir, "thr%d", i);
		assert_int_equal(pthread_create(&t[i], NULL, job_run, &jobs[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	/* two topologies, each built once however the threads raced */
	assert_int_equal(ws_fabric_cache_builds(c), 2);
	ws_fabric_cache_free(c);
	for (int i = 0; i < 4; i++) {
		char seq[32];
		assert_int_equal(jobs[i].rc, 0);
		snprintf(seq, sizeof seq, "seq%d", i);
		assert_same_outputs(seq, jobs[i].dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_topology_built_once),
		cmocka_unit_test(test_other_topology_built_again),
		cmocka_unit_test(test_switch_axis_on_shared_fabric),
		cmocka_unit_test(test_routing_tables_shared),
		cmocka_unit_test(test_free_orders),
		cmocka_unit_test(test_failed_build),
		cmocka_unit_test(test_memory_counted_once),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
