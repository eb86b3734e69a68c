/* SPDX-License-Identifier: MIT */
/*
 * Load-balancing statistics: reordering measured at the receiver and the
 * per-tier link load of summary.json, and the link_load figure of
 * `warpsim plot`.
 *
 * - The receiver's counting rule, exactly: data packets handed to the
 *   receiving NIC in a chosen order (in order, early by 2 and 1 packets, a
 *   duplicate, early by a fraction) give the out-of-order count and the
 *   largest distance, rounded up, that the rule says.
 * - A single path never reorders (dragonfly minimal, fat-tree ECMP: every
 *   column 0); UGAL deciding per packet does, within the bounds a flow's
 *   packets allow, and flows.csv and summary.json say what ws_flow_get says.
 * - link_load of a k = 4 fat-tree permutation equals the ports' tx_bytes
 *   grouped by tier and direction, recomputed here from the public port API.
 * - fct.csv of the quickstart stays the golden with the new outputs on.
 * - `warpsim plot` of two runs writes link_load data whose spread is the
 *   summary's, and a script that draws both runs under their names (and
 *   the routing rule's `lb` when it has one).
 */
#define _GNU_SOURCE
#include "th.h"
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GOLDEN TH_SRCDIR "/tests/golden/quickstart.fct.csv"
#define QUICKSTART TH_SRCDIR "/examples/quickstart.ini"

/* ---- the receiver's rule, packet by packet ------------------------------------ */

/* A data packet of `flow` (to host `dst`) at byte `seq`, handed to dst's NIC. */
static void arrive(struct ws_sim *sim, uint32_t flow, uint32_t dst, uint64_t seq,
		   uint32_t payload)
{
	struct ws_pkt *p = ws_pkt_alloc(&sim->pkts);
	p->type = WS_PKT_DATA;
	p->flow = flow;
	p->src = 0;
	p->dst = dst;
	p->seq = seq;
	p->payload = payload;
	p->wire = payload + (uint32_t)sim->nicc.header;
	p->prio = 3;
	ws_nic_receive(sim, &sim->ports[ws_port_gid(sim, dst, 0)], p);
}

static void test_reorder_rule_exact(void **state)
{
	(void)state;
	th_write("late.txt", "1\n0 1 3 100 1000 1.0\n");
	struct ws_sim *sim = th_sim("[topology]\nname = fat-tree\nk = 4\n"
				    "[workload]\nname = flows\nfile = late.txt\n");
	struct ws_flow_spec spec = { WS_INIT_SIZE(struct ws_flow_spec), .src = 0,
				     .dst = 5, .bytes = 20000, .prio = 3, .dport = 100 };
	uint32_t id;
	struct ws_err err;
	assert_int_equal(ws_flow_create(sim, &spec, &id, &err), WS_OK);
	const uint64_t P = sim->payload;
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	/* expected byte after each arrival: P, P, P, 2P, 3P, 3P, 3P */
	static const struct {
		uint64_t seq_p, extra; /* seq = seq_p * P + extra */
		uint64_t ooo, max;     /* counts after it */
	} steps[] = {
		{ 0, 0, 0, 0 }, /* in order */
		{ 3, 0, 1, 2 }, /* 2 packets early */
		{ 2, 0, 2, 2 }, /* 1 packet early: the largest stays 2 */
		{ 1, 0, 2, 2 }, /* in order */
		{ 2, 0, 2, 2 }, /* in order */
		{ 1, 0, 2, 2 }, /* a duplicate is not reordering */
		{ 6, 1, 3, 4 }, /* 3 packets and a byte early: 4, rounded up */
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(steps); i++) {
		arrive(sim, id, 5, steps[i].seq_p * P + steps[i].extra, (uint32_t)P);
		assert_int_equal(ws_flow_get(sim, id, &fi), WS_OK);
		if (fi.ooo_pkts != steps[i].ooo || fi.max_reorder != steps[i].max)
			fail_msg("arrival %zu: ooo_pkts %" PRIu64 " max_reorder %u, expected "
				 "%" PRIu64 " and %" PRIu64, i, fi.ooo_pkts, fi.max_reorder,
				 steps[i].ooo, steps[i].max);
	}
	assert_true(sim->ctr.nacks >= 1); /* go-back-N still answers with a NACK */
	ws_sim_free(sim);
}

/* ---- runs ---------------------------------------------------------------------- */

/* Build, run to the end, write the outputs into tmp/<dir>; the simulation. */
static struct ws_sim *run_into(const char *ini, const char *dir)
{
	struct ws_sim *sim = th_sim(ini);
	th_run(sim);
	struct ws_err err;
	assert_int_equal(ws_sim_write_outputs(sim, th_fmt("%s/%s", th_tmpdir(), dir), &err),
			 WS_OK);
	return sim;
}

/* The number after "key": in text (NaN when absent). */
static double json_num(const char *text, const char *key)
{
	char pat[80];
	snprintf(pat, sizeof pat, "\"%s\": ", key);
	const char *at = text ? strstr(text, pat) : NULL;
	return at ? strtod(at + strlen(pat), NULL) : NAN;
}

/* The summary.json of tmp/<dir>, from `from` on (caller frees the whole). */
static char *summary_at(const char *dir, const char *from, char **at)
{
	char *js = th_read(th_fmt("%s/%s/summary.json", th_tmpdir(), dir), NULL);
	assert_non_null(js);
	*at = strstr(js, from);
	if (!*at)
		fail_msg("%s/summary.json has no %s", dir, from);
	return js;
}

/* Every flow's reordering: flows.csv equals ws_flow_get, summary.json
 * the totals; returns the total of out-of-order packets. */
static uint64_t check_reordering(struct ws_sim *sim, const char *dir)
{
	struct th_csv c;
	th_csv_load(&c, th_fmt("%s/%s/flows.csv", th_tmpdir(), dir));
	assert_int_equal(c.rows, ws_flow_count(sim));
	uint64_t total = 0, flows = 0, max = 0;
	for (uint32_t i = 0; i < ws_flow_count(sim); i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		assert_int_equal((uint64_t)th_csv_num(&c, i, "ooo_pkts"), fi.ooo_pkts);
		assert_int_equal((uint64_t)th_csv_num(&c, i, "max_reorder"), fi.max_reorder);
		total += fi.ooo_pkts;
		flows += fi.ooo_pkts > 0;
		max = WS_MAX(max, (uint64_t)fi.max_reorder);
		assert_true((fi.ooo_pkts > 0) == (fi.max_reorder > 0));
	}
	/* the new columns come last: the old ones keep their places */
	assert_string_equal(c.cell[17], "rate_bps");
	assert_string_equal(c.cell[18], "ooo_pkts");
	assert_string_equal(c.cell[19], "max_reorder");
	th_csv_free(&c);
	char *at, *js = summary_at(dir, "\"reordering\": {", &at);
	assert_int_equal((uint64_t)json_num(at, "ooo_pkts"), total);
	assert_int_equal((uint64_t)json_num(at, "flows"), flows);
	assert_int_equal((uint64_t)json_num(at, "max_reorder"), max);
	free(js);
	return total;
}

/* A dragonfly of 3 groups, 4 hosts each: the 4 hosts of group 0 send
 * 200 packets each to group 1, through its one global link. */
static const char *dragonfly_ini(const char *mode)
{
	th_write("df.txt", "4\n0 4 3 100 200000 0.0\n1 5 3 100 200000 0.0\n"
		 "2 6 3 100 200000 0.0\n3 7 3 100 200000 0.0\n");
	return th_fmt("[topology]\nname = dragonfly\np = 2\na = 2\nh = 1\n"
		      "[routing]\nname = dragonfly\nmode = %s\nugal_granularity = packet\n"
		      "ugal_bias = 0B\n[nic]\nrto = 200us\nrto_lossless = true\n"
		      "[workload]\nname = flows\nfile = df.txt\n[output]\nflows = true\n", mode);
}

static void test_single_path_never_reorders(void **state)
{
	(void)state;
	struct ws_sim *sim = run_into(dragonfly_ini("minimal"), "df-minimal");
	assert_int_equal(check_reordering(sim, "df-minimal"), 0);
	ws_sim_free(sim);
}

static void test_packet_ugal_reorders_within_bounds(void **state)
{
	(void)state;
	struct ws_sim *sim = run_into(dragonfly_ini("ugal"), "df-ugal");
	assert_true(check_reordering(sim, "df-ugal") > 0);
	const uint64_t P = sim->payload;
	for (uint32_t i = 0; i < ws_flow_count(sim); i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(sim, i, &fi);
		uint64_t pkts = (fi.bytes + P - 1) / P;
		assert_int_equal(fi.acked, fi.bytes);
		/* lossless: every packet sent arrives once; `pkts` of them in order */
		assert_true(fi.ooo_pkts > 0);
		assert_true(fi.ooo_pkts <= fi.sent / P - pkts);
		/* at most the last packet while the first is expected */
		assert_true(fi.max_reorder >= 1 && fi.max_reorder <= pkts - 1);
	}
	ws_sim_free(sim);
}

/* examples/dragonfly.ini with UGAL deciding per packet, PFC on and no
 * rto_lossless: go-back-N once waited for ever there (one flow's last NACK
 * held back by nack_interval, nothing left in flight).  The rule declares
 * itself multipath, so the timeout runs and every flow finishes. */
static void test_reordering_fabric_runs_the_timeout(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim(
		"[sim]\nseed = 1\n[topology]\nname = dragonfly\np = 2\na = 4\nh = 2\n"
		"arrangement = absolute\nhost_delay = 1us\nlocal_delay = 1us\n"
		"global_delay = 2us\n[routing]\nname = dragonfly\nmode = ugal\n"
		"ugal_granularity = packet\nflowlet_gap = 10us\n[cc]\nname = dcqcn\n"
		"[workload]\nname = flows\nfile = " TH_SRCDIR "/examples/dragonfly-flows.txt\n");
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows_done, 288);
	assert_true(st.nacks > 0);
	assert_true(st.timeouts > 0);
	th_check_bytes(sim);
	ws_sim_free(sim);
}

/* ---- link load ------------------------------------------------------------------- */

enum { UP, DOWN, PEER };

/* One (tier, direction) group, recomputed from the public port API. */
struct group {
	uint64_t links, min, max;
	double sum, sq;
};

static void groups_of(struct ws_sim *sim, struct group g[4][3])
{
	memset(g, 0, 4 * sizeof g[0]);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	for (uint32_t n = 0; n < fab->n_nodes; n++)
		for (uint32_t l = 0; l < fab->nodes[n].n_ports; l++) {
			struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
			assert_int_equal(ws_port_info(sim, n, l, &pi), WS_OK);
			unsigned a = fab->nodes[n].level, b = fab->nodes[pi.peer_node].level;
			struct group *x = &g[WS_MAX(a, b)][a < b ? UP : a > b ? DOWN : PEER];
			uint64_t tx = ws_port_gid_tx_bytes(sim, ws_port_gid(sim, n, l));
			x->min = x->links ? WS_MIN(x->min, tx) : tx;
			x->max = WS_MAX(x->max, tx);
			x->sum += (double)tx;
			x->sq += (double)tx * (double)tx;
			x->links++;
		}
}

static void check_near(double got, double want, const char *what, unsigned tier,
		       const char *dir)
{
	if (!(fabs(got - want) <= 1e-8 * fabs(want) + 1e-9))
		fail_msg("tier %u %s: %s %.12g, expected %.12g", tier, dir, what, got, want);
}

/* A k = 4 fat-tree, every host sending 200 KB to another (a derangement). */
static const char *permutation_ini(void)
{
	static const unsigned to[16] = { 5, 12, 15, 11, 0, 4, 3, 9, 1, 2, 8, 13, 10, 14, 6, 7 };
	char trace[1024];
	int w = snprintf(trace, sizeof trace, "16\n");
	for (unsigned i = 0; i < 16; i++)
		w += snprintf(trace + w, sizeof trace - (size_t)w, "%u %u 3 100 200000 0.0\n",
			      i, to[i]);
	th_write("perm.txt", trace);
	return "[topology]\nname = fat-tree\nk = 4\n[workload]\nname = flows\n"
	       "file = perm.txt\n[output]\nports = true\nflows = true\n";
}

static void test_link_load_is_the_ports_by_tier(void **state)
{
	(void)state;
	struct ws_sim *sim = run_into(permutation_ini(), "perm");
	assert_int_equal(check_reordering(sim, "perm"), 0); /* ECMP: one path */
	struct group g[4][3];
	groups_of(sim, g);
	char *at, *js = summary_at("perm", "\"link_load\": [", &at);
	static const char *const dirs[] = { "up", "down", "peer" };
	unsigned seen = 0;
	for (unsigned t = 0; t < 4; t++)
		for (unsigned d = 0; d < 3; d++) {
			const struct group *x = &g[t][d];
			const char *o = strstr(at, th_fmt("\"tier\": %u,\n        \"direction\": "
							  "\"%s\"", t, dirs[d]));
			if (!x->links) {
				assert_null(o);
				continue;
			}
			if (!o)
				fail_msg("link_load lacks tier %u %s", t, dirs[d]);
			seen++;
			double mean = x->sum / (double)x->links;
			double cv = sqrt(x->sq / (double)x->links - mean * mean) / mean;
			assert_int_equal((uint64_t)json_num(o, "links"), x->links);
			assert_int_equal((uint64_t)json_num(o, "min_bytes"), x->min);
			assert_int_equal((uint64_t)json_num(o, "max_bytes"), x->max);
			check_near(json_num(o, "mean_bytes"), mean, "mean", t, dirs[d]);
			check_near(json_num(o, "max_over_mean"), (double)x->max / mean,
				   "max/mean", t, dirs[d]);
			check_near(json_num(o, "cv"), cv, "cv", t, dirs[d]);
		}
	/* k = 4: 16 host links, 16 edge-aggregation, 16 aggregation-core; each
	 * direction of each tier, and the permutation crosses every tier */
	assert_int_equal(seen, 6);
	/* fresh data: nothing is resent here, so the host links' fresh bytes
	 * are the flows' wire bytes, each host sending one flow; the down
	 * direction of the host links carries the same data, no ACKs */
	uint64_t wire = 0;
	for (uint32_t i = 0; i < ws_flow_count(sim); i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		assert_int_equal(fi.retx, 0);
		wire += fi.wire_bytes;
	}
	const char *up1 = strstr(at, "\"tier\": 1,\n        \"direction\": \"up\"");
	const char *dn1 = strstr(at, "\"tier\": 1,\n        \"direction\": \"down\"");
	assert_non_null(up1);
	assert_non_null(dn1);
	check_near(json_num(up1, "fresh_mean_bytes") * 16, (double)wire, "fresh", 1, "up");
	check_near(json_num(dn1, "fresh_mean_bytes") * 16, (double)wire, "fresh", 1, "down");
	assert_true(json_num(up1, "fresh_mean_bytes") < json_num(up1, "mean_bytes"));
	for (unsigned t = 1; t <= 3; t++)
		assert_true(g[t][UP].links == 16 && g[t][UP].sum > 0);
	/* ports.csv was written: the fabric lists the node levels for plots */
	assert_non_null(strstr(js, "\"node_levels\": ["));
	free(js);
	ws_sim_free(sim);
}

/* The new outputs on, the quickstart's fct.csv is still the golden. */
static void test_quickstart_fct_unchanged(void **state)
{
	(void)state;
	struct ws_cfg *cfg;
	struct ws_err err;
	assert_int_equal(ws_cfg_load(&cfg, QUICKSTART, &err), WS_OK);
	assert_int_equal(ws_cfg_set(cfg, "output.ports=true", &err), WS_OK);
	assert_int_equal(ws_cfg_set(cfg, "output.flows=true", &err), WS_OK);
	struct ws_sim *sim;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
	assert_int_equal(ws_sim_new(&sim, cfg, &opts, &err), WS_OK);
	th_run(sim);
	const char *dir = th_fmt("%s/quick", th_tmpdir());
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
	size_t la, lb;
	char *a = th_read(GOLDEN, &la), *b = th_read(th_fmt("%s/quick/fct.csv", th_tmpdir()), &lb);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
	assert_int_equal(check_reordering(sim, "quick"), 0);
	ws_sim_free(sim);
	ws_cfg_free(cfg);
}

/* ---- warpsim plot -------------------------------------------------------------- */

static void test_plot_draws_link_load(void **state)
{
	(void)state;
	struct ws_sim *a = run_into(permutation_ini(), "ecmp-a");
	ws_sim_free(a);
	struct ws_sim *b = run_into(th_fmt("%s[routing]\necmp_seed = 5\n", permutation_ini()),
				    "ecmp-b");
	ws_sim_free(b);
	/* the rule's `lb` parameter (up/down rules have one): ecmp-b's summary
	 * made to say spray, by replacing its value (the readers refuse a key
	 * written twice in an object) */
	const char *sum_b = th_fmt("%s/ecmp-b/summary.json", th_tmpdir());
	char *text = th_read(sum_b, NULL), *lb = strstr(text, "\"lb\": \"ecmp\"");
	assert_non_null(lb);
	FILE *sf = fopen(sum_b, "w");
	assert_non_null(sf);
	fprintf(sf, "%.*s\"lb\": \"spray\"%s", (int)(lb - text), text,
		lb + strlen("\"lb\": \"ecmp\""));
	fclose(sf);
	free(text);
	char *ra = strdup(th_fmt("%s/ecmp-a", th_tmpdir()));
	char *rb = strdup(th_fmt("%s/ecmp-b", th_tmpdir()));
	char *out_dir = strdup(th_fmt("%s/plots", th_tmpdir()));
	const char *args[] = { "plot", ra, rb, "-o", out_dir, "--data-only", NULL };
	char *out = NULL, *err = NULL;
	int st = th_cli(args, &out, &err);
	if (st)
		fail_msg("warpsim plot: status %d: %s", st, err);
	if (access(th_fmt("%s/link_load-0.dat", out_dir), R_OK))
		fail_msg("warpsim plot wrote no link_load-0.dat: %s%s", out, err);
	free(out);
	free(err);
	const char *const runs[] = { "ecmp-a", "ecmp-b" };
	for (unsigned i = 0; i < 2; i++) {
		/* each row: the spread of one group, as the run's summary has it */
		FILE *f = fopen(th_fmt("%s/link_load-%u.dat", out_dir, i), "r");
		assert_non_null(f);
		char line[512], dir[16];
		unsigned rows = 0, links, tier;
		double x, mn, q1, med, q3, mx, mean;
		char *at, *js = summary_at(runs[i], "\"link_load\": [", &at);
		while (fgets(line, sizeof line, f)) {
			if (line[0] == '#')
				continue;
			assert_int_equal(sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %u %u %15s", &x,
						&mn, &q1, &med, &q3, &mx, &mean, &links, &tier, dir), 10);
			const char *o = strstr(at, th_fmt("\"tier\": %u,\n        \"direction\": "
							  "\"%s\"", tier, dir));
			assert_non_null(o);
			assert_int_equal(links, (unsigned)json_num(o, "links"));
			check_near(mn * 1e6, json_num(o, "min_bytes"), "plot min", tier, dir);
			check_near(mx * 1e6, json_num(o, "max_bytes"), "plot max", tier, dir);
			check_near(mean * 1e6, json_num(o, "mean_bytes"), "plot mean", tier, dir);
			assert_true(mn <= q1 && q1 <= med && med <= q3 && q3 <= mx);
			/* run i's box beside the other's, on its group's slot */
			assert_true(fabs(x - (double)rows - (i ? 0.2 : -0.2)) < 1e-9);
			rows++;
		}
		fclose(f);
		free(js);
		assert_int_equal(rows, 6);
	}
	char *gp = th_read(th_fmt("%s/plot.gp", out_dir), NULL);
	assert_non_null(gp);
	assert_non_null(strstr(gp, "set output 'link_load.svg'"));
	assert_non_null(strstr(gp, "'link_load-0.dat' using 1:3:2:6:5 with candlesticks"));
	assert_non_null(strstr(gp, "'link_load-1.dat' using 1:3:2:6:5 with candlesticks"));
	assert_non_null(strstr(gp, "title 'ecmp-a (none, lb ecmp)'"));
	assert_non_null(strstr(gp, "title 'ecmp-b (none, lb spray)'"));
	assert_non_null(strstr(gp, "'tier 2 up' 2"));
	free(gp);
	/* with gnuplot (./bootstrap --with-plots), the figure names both runs */
	if (system("command -v gnuplot > /dev/null 2>&1") == 0) {
		const char *draw[] = { "plot", ra, rb, "-o", out_dir, NULL };
		st = th_cli(draw, &out, &err);
		if (st)
			fail_msg("warpsim plot: status %d: %s", st, err);
		free(out);
		free(err);
		char *svg = th_read(th_fmt("%s/link_load.svg", out_dir), NULL);
		assert_non_null(svg);
		assert_non_null(strstr(svg, "ecmp-a (none, lb ecmp)"));
		assert_non_null(strstr(svg, "ecmp-b (none, lb spray)"));
		assert_non_null(strstr(svg, "tier 3 down"));
		free(svg);
	}
	free(ra);
	free(rb);
	free(out_dir);
}

/* warpsim plot on a training run: each collective in the lane of its
 * group's dimension (collectives.csv's dim). */
static void test_plot_collective_lanes(void **state)
{
	(void)state;
	ws_sim_free(run_into("[topology]\nname = fat-tree\nk = 4\n[cc]\nname = none\n"
			     "[workload]\nname = llm\nmodel = custom\nlayers = 2\nhidden = 64\n"
			     "ffn = 256\nheads = 4\nvocab = 1000\ngpus = 8\ntp = 2\npp = 2\n"
			     "seq = 16\nmicro_batches = 2\ngpus_per_server = 2\n", "lanes"));
	char *run = strdup(th_fmt("%s/lanes", th_tmpdir()));
	char *out_dir = strdup(th_fmt("%s/lane-plots", th_tmpdir()));
	const char *args[] = { "plot", run, "-o", out_dir, "--data-only", NULL };
	char *out = NULL, *err = NULL;
	if (th_cli(args, &out, &err))
		fail_msg("warpsim plot: %s", err);
	free(out);
	free(err);
	struct th_csv co;
	th_csv_load(&co, th_fmt("%s/collectives.csv", run));
	static const char *const lanes[] = { "", "TP", "DP", "EP", "PP", "DP_EP" };
	FILE *f = fopen(th_fmt("%s/collectives-0.dat", out_dir), "r");
	assert_non_null(f);
	char line[256];
	unsigned rows = 0, used[6] = { 0 };
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		double s, e, y, id, it;
		assert_int_equal(sscanf(line, "%lf %lf %lf %lf %lf", &s, &e, &y, &id, &it), 5);
		unsigned lane = (unsigned)(y + 0.375 + 1e-9);
		assert_true(lane < 6);
		assert_true(rows < co.rows);
		assert_int_equal((uint64_t)id, strtoull(th_csv_get(&co, rows, "id"), NULL, 10));
		assert_string_equal(th_csv_get(&co, rows, "dim"), lanes[lane]);
		used[lane]++;
		rows++;
	}
	fclose(f);
	assert_int_equal(rows, co.rows);
	assert_true(used[1] && used[2] && used[4]); /* TP, DP and PP lanes */
	th_csv_free(&co);
	free(run);
	free(out_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reorder_rule_exact),
		cmocka_unit_test(test_single_path_never_reorders),
		cmocka_unit_test(test_packet_ugal_reorders_within_bounds),
		cmocka_unit_test(test_reordering_fabric_runs_the_timeout),
		cmocka_unit_test(test_link_load_is_the_ports_by_tier),
		cmocka_unit_test(test_quickstart_fct_unchanged),
		cmocka_unit_test(test_plot_draws_link_load),
		cmocka_unit_test(test_plot_collective_lanes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
