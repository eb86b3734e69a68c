/* SPDX-License-Identifier: MIT */
/*
 * [output] flow_records = live: completed flows retired in id order,
 * accelerator-modelled records freed (kernel/flowdone.c).
 *
 * - A chain of 3,000 flows, each started by the previous one's completion,
 *   under fluid: at most 2 records are ever held at once (the counter,
 *   not RSS), all 3,000 are released, ws_flow_get refuses a released id,
 *   and fct.csv, fct_by_size.csv and summary.json's results are the bytes
 *   of the same run keeping every record.  The records come from 2 MiB
 *   arenas (struct ws_flowslab), one after the other: keeping every record
 *   takes as many arenas as 3,001 of them fill, live takes one (a released
 *   record is the next flow's).
 * - Flows completing out of id order (a long first flow, short ones after
 *   it): nothing is retired past the incomplete one, then everything is.
 * - An LLM iteration under fluid and a packet-level run (records kept,
 *   rows spooled): the same bytes with both settings.
 * - flows.csv and fct.txt, which read every record at the end, are refused
 *   with live, naming the key.
 */
#define _GNU_SOURCE
#include "th.h"
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAT4 "[topology]\nname = fat-tree\nk = 4\n[cc]\nname = dcqcn\n"

struct chain {
	uint32_t left;     /* flows still to start */
	uint32_t held_max; /* most records seen held at a completion */
};

/* Each completion starts the next flow, host 0 -> 5 and back. */
static void next_flow(struct ws_sim *sim, uint32_t flow, void *arg)
{
	struct chain *c = arg;
	if (sim->done.live > c->held_max)
		c->held_max = sim->done.live;
	if (!c->left)
		return;
	c->left--;
	struct ws_flow_spec spec = { WS_INIT_SIZE(struct ws_flow_spec),
				     .src = flow % 2 ? 0 : 5, .dst = flow % 2 ? 5 : 0,
				     .bytes = 1000 + 37 * (uint64_t)flow,
				     .start = ws_now(sim), .prio = 3, .dport = 100,
				     .tag = flow + 1, .on_done = next_flow, .arg = c };
	struct ws_err err;
	if (ws_flow_create(sim, &spec, NULL, &err))
		fail_msg("flow after %u: %s", flow, err.msg);
}

static char *slurp(const char *dir, const char *file)
{
	char *t = th_read(th_fmt("%s/%s", dir, file), NULL);
	if (!t)
		fail_msg("no %s/%s", dir, file);
	return t;
}

/* summary.json from "results" to "accel": what the run computed */
static char *results_of(const char *dir)
{
	char *t = slurp(dir, "summary.json");
	char *a = strstr(t, "\"results\""), *b = a ? strstr(a, "\"accel\"") : NULL;
	assert_non_null(b);
	*b = '\0';
	memmove(t, a, strlen(a) + 1);
	return t;
}

static const char *write_out(struct ws_sim *sim, const char *name)
{
	static char dir[2][600];
	static int k;
	char *d = dir[k++ % 2];
	snprintf(d, sizeof dir[0], "%s/%s", th_tmpdir(), name);
	struct ws_err err;
	if (ws_sim_write_outputs(sim, d, &err))
		fail_msg("%s: %s", name, err.msg);
	return d;
}

/* The same outputs, byte for byte, in two directories. */
static void same_outputs(const char *a, const char *b)
{
	static const char *const files[] = { "fct.csv", "fct_by_size.csv" };
	for (size_t i = 0; i < WS_ARRAY_LEN(files); i++) {
		char *x = slurp(a, files[i]), *y = slurp(b, files[i]);
		if (strcmp(x, y))
			fail_msg("%s differs between %s and %s", files[i], a, b);
		free(x);
		free(y);
	}
	char *x = results_of(a), *y = results_of(b);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

static struct ws_sim *chain_run(const char *records, struct chain *c)
{
	th_write("one.txt", "1\n0 5 3 100 5000 0\n");
	struct ws_sim *sim = th_sim(th_fmt(FAT4 "[accel]\nname = fluid\n[workload]\n"
					   "name = flows\nfile = one.txt\n[output]\n"
					   "flow_records = %s\n", records));
	*c = (struct chain){ .left = 3000 };
	next_flow(sim, 1, c); /* flow 1 starts with flow 0 */
	th_run(sim);
	assert_int_equal(sim->n_done, 3001);
	return sim;
}

static void test_chain_bounded(void **state)
{
	(void)state;
	struct chain ca, cl;
	struct ws_sim *all = chain_run("all", &ca);
	struct ws_sim *live = chain_run("live", &cl);
	/* kept: every record; live: the running flow and the one it starts */
	assert_int_equal(all->done.peak_live, 3001);
	assert_int_equal(all->done.released, 0);
	assert_true(live->done.peak_live <= 3);
	assert_true(cl.held_max <= 3);
	assert_int_equal(live->done.live, 0);
	assert_int_equal(live->done.released, 3001);
	assert_int_equal(live->done.wm, 3001);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	assert_int_equal(ws_flow_get(all, 1234, &fi), WS_OK);
	assert_int_equal(ws_flow_get(live, 1234, &fi), WS_EINVAL);
	size_t rec = all->fslab.rec, per = WS_HUGE_PAGE / rec;
	assert_true(rec >= sizeof(struct ws_flow) && rec % 16 == 0);
	assert_int_equal(all->fslab.n_arenas, (3001 + per - 1) / per);
	assert_int_equal((char *)all->flows[1] - (char *)all->flows[0], rec);
	assert_int_equal(live->fslab.n_arenas, 1);
	same_outputs(write_out(all, "chain-all"), write_out(live, "chain-live"));
	ws_sim_free(all);
	ws_sim_free(live);
}

/* Flow 0 is long, flows 1..40 short: they complete first and wait. */
static void test_out_of_order(void **state)
{
	(void)state;
	char text[4096];
	size_t n = (size_t)snprintf(text, sizeof text, "41\n0 5 3 100 50000000 0\n");
	for (unsigned i = 1; i <= 40; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%u %u 3 100 %u 0.0000%02u\n",
				      i % 16 == 0 ? 1 : i % 16, (i + 7) % 16 == 0 ? 2 : (i + 7) % 16,
				      2000 + 100 * i, i);
	th_write("ooo.txt", text);
	const char *base = FAT4 "[accel]\nname = fluid\n[workload]\nname = flows\n"
			   "file = ooo.txt\n[output]\nflow_records = %s\n";
	struct ws_sim *live = th_sim(th_fmt(base, "live"));
	th_run_until(live, 200 * WS_US);
	assert_true(live->n_done >= 30);
	assert_int_equal(live->done.wm, 0);       /* flow 0 still runs */
	assert_int_equal(live->done.released, 0);
	/* written mid-run: every completed flow is there, in id order */
	const char *mid = write_out(live, "ooo-mid");
	struct th_csv c;
	th_csv_load(&c, th_fmt("%s/fct.csv", mid));
	assert_int_equal(c.rows, live->n_done);
	for (unsigned r = 1; r < c.rows; r++)
		assert_true(atoi(th_csv_get(&c, r, "flow_id")) >
			    atoi(th_csv_get(&c, r - 1, "flow_id")));
	th_csv_free(&c);
	th_run(live);
	assert_int_equal(live->done.released, 41);
	struct ws_sim *all = th_sim(th_fmt(base, "all"));
	th_run(all);
	same_outputs(write_out(all, "ooo-all"), write_out(live, "ooo-live"));
	ws_sim_free(all);
	ws_sim_free(live);
}

#define LLM                                                                     \
	FAT4 "[workload]\nname = llm\nmodel = custom\nlayers = 2\nhidden = 256\n"   \
	"ffn = 1024\nheads = 4\nvocab = 1000\ngpus = 16\ntp = 2\npp = 2\ndp = 4\n" \
	"seq = 128\nmicro_batches = 2\ngpus_per_server = 2\n"

static void same_both_ways(const char *ini, const char *name, bool released)
{
	struct ws_sim *all = th_sim(th_fmt("%s[output]\nflow_records = all\n", ini));
	struct ws_sim *live = th_sim(th_fmt("%s[output]\nflow_records = live\n", ini));
	th_run(all);
	th_run(live);
	assert_true(live->n_done > 10);
	assert_int_equal(live->done.wm, live->n_flows);
	if (released)
		assert_int_equal(live->done.released, live->n_flows);
	else
		assert_int_equal(live->done.released, 0); /* packets: kept */
	same_outputs(write_out(all, th_fmt("%s-all", name)),
		     write_out(live, th_fmt("%s-live", name)));
	ws_sim_free(all);
	ws_sim_free(live);
}

static void test_llm_fluid_and_packets(void **state)
{
	(void)state;
	same_both_ways(LLM "[accel]\nname = fluid\n", "llm-fluid", true);
	same_both_ways(LLM, "llm-packets", false);
}

static void test_refusals(void **state)
{
	(void)state;
	static const char *const keys[] = { "flows", "fct_txt" };
	for (size_t i = 0; i < WS_ARRAY_LEN(keys); i++) {
		struct ws_sim *sim = NULL;
		struct ws_err err;
		th_write("one.txt", "1\n0 5 3 100 5000 0\n");
		int rc = th_sim_try(th_fmt(FAT4 "[workload]\nname = flows\nfile = one.txt\n"
					   "[output]\nflow_records = live\n%s = true\n", keys[i]),
				    &sim, &err, NULL);
		assert_int_equal(rc, WS_EINVAL);
		assert_null(sim);
		assert_string_equal(err.key, "output.flow_records");
		assert_non_null(strstr(err.msg, keys[i]));
		assert_true(err.line > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_bounded),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_llm_fluid_and_packets),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
