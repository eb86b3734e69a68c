/* SPDX-License-Identifier: MIT */
/*
 * Lifecycles: a zero-traffic simulation from load to teardown (leaks show
 * under the sanitizer build); a simulation freed without running; two
 * simulations interleaved in one process, and two run on two threads, each
 * giving exactly what it gives alone (no shared mutable state); and
 * freeze/thaw end to end: a flow whose ports and queue pair are frozen for
 * D finishes exactly D later, with its CC told of the shift.
 */
#include "th.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define QUICKSTART TH_SRCDIR "/examples/quickstart.ini"

static struct ws_sim *load_quickstart(const char *seed)
{
	struct ws_cfg *cfg;
	struct ws_err err;
	if (ws_cfg_load(&cfg, QUICKSTART, &err))
		fail_msg("%s", err.msg);
	if (seed)
		assert_int_equal(ws_cfg_set(cfg, seed, &err), WS_OK);
	struct ws_sim *sim;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
	if (ws_sim_new(&sim, cfg, &opts, &err))
		fail_msg("%s", err.msg);
	ws_cfg_free(cfg);
	return sim;
}

static char *fct_of(struct ws_sim *sim, const char *dir)
{
	char path[512], file[600];
	snprintf(path, sizeof path, "%s/%s", th_tmpdir(), dir);
	struct ws_err err;
	assert_int_equal(ws_sim_write_outputs(sim, path, &err), WS_OK);
	snprintf(file, sizeof file, "%s/fct.csv", path);
	char *s = th_read(file, NULL);
	assert_non_null(s);
	return s;
}

static void test_zero_traffic(void **state)
{
	(void)state;
	th_write("none.txt", "0\n");
	struct ws_sim *sim = th_sim("[topology]\nname = fat-tree\nk = 4\n"
				    "[cc]\nname = dcqcn\n"
				    "[workload]\nname = flows\nfile = none.txt\n");
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.events, 0);
	assert_int_equal(st.flows, 0);
	assert_int_equal(st.now, 0);
	char *fct = fct_of(sim, "zero");
	assert_string_equal(fct, "flow_id,src,dst,bytes,prio,start_ns,end_ns,fct_ns,"
				 "ideal_fct_ns,slowdown,tag\n");
	free(fct);
	/* running again is harmless */
	th_run(sim);
	ws_sim_free(sim);
	/* built and freed without ever running */
	sim = load_quickstart(NULL);
	ws_sim_free(sim);
}

static void test_interleaved_simulations(void **state)
{
	(void)state;
	struct ws_sim *a = load_quickstart(NULL), *b = load_quickstart("sim.seed=2");
	th_run(a);
	th_run(b);
	char *alone_a = fct_of(a, "alone_a"), *alone_b = fct_of(b, "alone_b");
	ws_sim_free(a);
	ws_sim_free(b);
	a = load_quickstart(NULL);
	b = load_quickstart("sim.seed=2");
	for (ws_time t = 13 * WS_US; t < 5 * WS_MS; t += 13 * WS_US) {
		th_run_until(a, t);
		th_run_until(b, t + 7 * WS_US);
	}
	th_run(a);
	th_run(b);
	char *mixed_a = fct_of(a, "mixed_a"), *mixed_b = fct_of(b, "mixed_b");
	assert_string_equal(alone_a, mixed_a);
	assert_string_equal(alone_b, mixed_b);
	assert_string_not_equal(alone_a, alone_b);
	free(alone_a);
	free(alone_b);
	free(mixed_a);
	free(mixed_b);
	ws_sim_free(a);
	ws_sim_free(b);
}

struct job {
	const char *seed;
	const char *dir;
	char *fct;
};

static void *run_job(void *arg)
{
	struct job *j = arg;
	struct ws_sim *sim = load_quickstart(j->seed);
	th_run(sim);
	j->fct = fct_of(sim, j->dir);
	ws_sim_free(sim);
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	struct job serial[2] = { { NULL, "ser1", NULL }, { "sim.seed=3", "ser2", NULL } };
	run_job(&serial[0]);
	run_job(&serial[1]);
	struct job par[2] = { { NULL, "par1", NULL }, { "sim.seed=3", "par2", NULL } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, run_job, &par[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++) {
		assert_string_equal(serial[i].fct, par[i].fct);
		free(serial[i].fct);
		free(par[i].fct);
	}
}

struct counter_state {
	uint64_t init, acks, nacks, cnps, timers, sends, sent_bytes, fini, shifts;
	uint64_t acked_bytes;
	ws_time rtt_max;
};

static const char lone_ini[] =
	"[topology]\nname = fat-tree\nk = 4\n"
	"[cc]\nname = counter\n"
	"[workload]\nname = flows\nfile = lone.txt\n";

static struct ws_sim *lone(void)
{
	th_write("lone.txt", "1\n0 15 3 100 1000000 0\n");
	struct ws_sim *sim;
	struct ws_err err;
	if (th_sim_try(lone_ini, &sim, &err, TH_BUILDDIR "/tests/plugins/.libs"))
		fail_msg("%s", err.msg);
	return sim;
}

static void test_freeze_thaw_end_to_end(void **state)
{
	(void)state;
	struct ws_sim *sim = lone();
	th_run(sim);
	struct ws_flow_info base = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, 0, &base);
	assert_int_not_equal(base.end, WS_TIME_NEVER);
	const ws_time base_rtt_max =
		((const struct counter_state *)ws_sim_instance(sim, WS_KIND_CC)->state)->rtt_max;
	assert_true(base_rtt_max > 0);
	ws_sim_free(sim);

	sim = lone();
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t *ports = calloc(fab->n_ports, sizeof *ports);
	for (uint32_t i = 0; i < fab->n_ports; i++)
		ports[i] = i;
	const uint32_t flows[] = { 0 };
	struct ws_freeze_set set = { WS_INIT_SIZE(struct ws_freeze_set), ports, fab->n_ports, flows, 1 };
	const ws_time t1 = 30 * WS_US, delta = 50 * WS_US;
	th_run_until(sim, t1);
	struct ws_flow_info mid = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, 0, &mid);
	assert_true(mid.acked > 0 && mid.acked < mid.bytes);
	struct ws_err err;
	assert_int_equal(ws_freeze(sim, &set, &err), WS_OK);
	th_run_until(sim, t1 + delta);
	struct ws_flow_info frozen = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, 0, &frozen);
	assert_int_equal(frozen.acked, mid.acked);
	assert_int_equal(frozen.sent, mid.sent);
	assert_int_equal(ws_thaw(sim, &set, delta, &err), WS_OK);
	th_run(sim);
	struct ws_flow_info after = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, 0, &after);
	/* everything of the flow moved by exactly delta */
	assert_int_equal(after.end, base.end + delta);
	assert_int_equal(after.sent, base.sent);
	const struct counter_state *c = ws_sim_instance(sim, WS_KIND_CC)->state;
	assert_int_equal(c->shifts, 1);
	/* packets frozen in queues and on wires carried their send times
	 * along: no RTT saw the frozen interval */
	assert_int_equal(c->rtt_max, base_rtt_max);
	/* an unknown port is refused */
	const uint32_t bad[] = { fab->n_ports };
	struct ws_freeze_set wrong = { WS_INIT_SIZE(struct ws_freeze_set), bad, 1, NULL, 0 };
	assert_int_equal(ws_freeze(sim, &wrong, &err), WS_EINVAL);
	free(ports);
	ws_sim_free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_traffic),
		cmocka_unit_test(test_interleaved_simulations),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_freeze_thaw_end_to_end),
	};
	return cmocka_run_group_tests_name("lifecycle", tests, NULL, NULL);
}
