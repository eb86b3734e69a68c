/* SPDX-License-Identifier: MIT */
/*
 * The cdf workload and the FCT-by-size analysis:
 *  1. sizes drawn from the WebSearch CDF pass a Kolmogorov-Smirnov test
 *     (10^5 draws) against the CDF with the generator's interpolation;
 *  2. the achieved load over a long window is within 2 % of the target and
 *     inter-arrival times at a host are exponential (CV near 1);
 *  3. same seed, same flows byte for byte; another seed, other flows;
 *     rack_local and incast do what they say;
 *  4. bad CDF files are refused with the file, the line and the reason;
 *  5. fct_by_size.csv against buckets computed here from the run's fct.csv;
 *  6. the port traces: trace_start, the trace_ports filter, util.csv
 *     against ports.csv and queue_dist.csv against queues.csv.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "th.h"

#define WEBSEARCH TH_SRCDIR "/examples/cdf/WebSearch.txt"

/* A k=4 fat-tree (16 hosts, 100 Gb/s) with cdf traffic; `extra` adds keys
 * to [workload]. */
static const char *cdf_ini(const char *file, const char *extra)
{
	static char buf[2048];
	snprintf(buf, sizeof buf, "[topology]\nname = fat-tree\nk = 4\n"
		 "link_rate = 100Gbps\n[workload]\nname = cdf\nfile = %s\n%s\n",
		 file, extra);
	return buf;
}

struct trace {
	unsigned n;
	unsigned *src, *dst, *dport;
	double *bytes;
	double *start_s;
};

/* The flows of a scenario as `warpsim gen` writes them. */
static void gen_trace(const char *ini, const char *name, struct trace *t)
{
	struct ws_sim *sim = th_sim(ini);
	char path[512];
	snprintf(path, sizeof path, "%s/%s", th_tmpdir(), name);
	struct ws_err err;
	assert_int_equal(ws_sim_write_trace(sim, path, &err), 0);
	ws_sim_free(sim);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%u", &t->n), 1);
	t->src = calloc(t->n, sizeof *t->src);
	t->dst = calloc(t->n, sizeof *t->dst);
	t->dport = calloc(t->n, sizeof *t->dport);
	t->bytes = calloc(t->n, sizeof *t->bytes);
	t->start_s = calloc(t->n, sizeof *t->start_s);
	for (unsigned i = 0; i < t->n; i++) {
		unsigned prio;
		assert_int_equal(fscanf(f, "%u %u %u %u %lf %lf", &t->src[i], &t->dst[i],
					&prio, &t->dport[i], &t->bytes[i], &t->start_s[i]), 6);
		assert_int_equal(prio, 3);
		assert_true(t->src[i] != t->dst[i] && t->src[i] < 16 && t->dst[i] < 16);
		if (i)
			assert_true(t->start_s[i] >= t->start_s[i - 1]);
	}
	fclose(f);
}

static void trace_free(struct trace *t)
{
	free(t->src);
	free(t->dst);
	free(t->dport);
	free(t->bytes);
	free(t->start_s);
}

/* ---- (1) the size distribution ---------------------------------------------------- */

static const double ws_x[] = { 0, 10000, 20000, 30000, 50000, 80000, 200000, 1000000,
			       2000000, 5000000, 10000000, 30000000 };
static const double ws_y[] = { 0, 15, 20, 30, 40, 53, 60, 70, 80, 90, 97, 100 };

/* The WebSearch CDF with linear interpolation, as a fraction. */
static double websearch_cdf(double x)
{
	if (x <= 0)
		return 0;
	for (size_t i = 1; i < WS_ARRAY_LEN(ws_x); i++)
		if (x <= ws_x[i])
			return (ws_y[i - 1] + (ws_y[i] - ws_y[i - 1]) * (x - ws_x[i - 1]) /
				(ws_x[i] - ws_x[i - 1])) / 100;
	return 1;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * The sizes are floor(Y) with Y of the CDF F, so P(size <= v) = F(v + 1)
 * and P(size < v) = F(v) at whole v: the exact KS distance compares the
 * empirical CDF on both sides of every distinct value.  At 10^5 draws the
 * 1 % critical value is 1.63 / sqrt(n) = 0.0052; a log-scale interpolation
 * would be 0.1 away.
 */
static void test_ks_websearch(void **state)
{
	(void)state;
	struct trace t;
	gen_trace(cdf_ini(WEBSEARCH, "load = 0.5\nflows = 100000\n"), "ks.txt", &t);
	assert_int_equal(t.n, 100000);
	qsort(t.bytes, t.n, sizeof *t.bytes, cmp_d);
	double d = 0;
	for (unsigned i = 0; i < t.n;) {
		unsigned j = i;
		while (j < t.n && t.bytes[j] == t.bytes[i])
			j++;
		double below = fabs((double)i / t.n - websearch_cdf(t.bytes[i]));
		double upto = fabs((double)j / t.n - websearch_cdf(t.bytes[i] + 1));
		d = fmax(d, fmax(below, upto));
		i = j;
	}
	double bound = 1.63 / sqrt((double)t.n);
	if (d > bound)
		fail_msg("KS distance %.5f > %.5f", d, bound);
	assert_true(t.bytes[0] >= 1 && t.bytes[t.n - 1] <= 30000000);
	trace_free(&t);
}

/* ---- (2) load and arrivals -------------------------------------------------------- */

/*
 * 2 s of WebSearch at 0.5 on 16 x 100 Gb/s: about 117,000 flows.  The
 * load's relative noise is about CV(size) / sqrt(n) = 0.7 %; 2 % is the
 * issue's bound.  Gaps between a host's arrivals: an exponential's CV is 1.
 */
static void test_load_and_poisson(void **state)
{
	(void)state;
	struct trace t;
	gen_trace(cdf_ini(WEBSEARCH, "load = 0.5\nduration = 2s\n"), "load.txt", &t);
	double bytes = 0;
	for (unsigned i = 0; i < t.n; i++)
		bytes += t.bytes[i];
	double load = bytes * 8 / (16 * 100e9 * 2.0);
	if (fabs(load - 0.5) > 0.01)
		fail_msg("achieved load %.4f, target 0.5", load);
	double last[16], sum = 0, sum2 = 0;
	unsigned n = 0;
	for (unsigned h = 0; h < 16; h++)
		last[h] = -1;
	for (unsigned i = 0; i < t.n; i++) {
		unsigned h = t.src[i];
		if (last[h] >= 0) {
			double g = t.start_s[i] - last[h];
			sum += g;
			sum2 += g * g;
			n++;
		}
		last[h] = t.start_s[i];
	}
	double mean = sum / n, sd = sqrt(sum2 / n - mean * mean);
	if (fabs(sd / mean - 1) > 0.02)
		fail_msg("inter-arrival CV %.4f, expected about 1", sd / mean);
	/* the mean gap of a host: 1.71125 MB x 8 / 50 Gb/s = 273.8 us */
	if (fabs(mean / 273.8e-6 - 1) > 0.02)
		fail_msg("mean inter-arrival %.3g s, expected 273.8 us", mean);
	trace_free(&t);
}

/* ---- (3) determinism and options ---------------------------------------------------- */

static void test_determinism(void **state)
{
	(void)state;
	const char *keys = "load = 0.3\nflows = 2000\nincast_load = 0.05\nincast_fanin = 4\n";
	struct trace a, b;
	gen_trace(cdf_ini(WEBSEARCH, keys), "det-a.txt", &a);
	gen_trace(cdf_ini(WEBSEARCH, keys), "det-b.txt", &b);
	trace_free(&a);
	trace_free(&b);
	char *x = th_read(th_fmt("%s/det-a.txt", th_tmpdir()), NULL);
	char *y = th_read(th_fmt("%s/det-b.txt", th_tmpdir()), NULL);
	assert_non_null(x);
	assert_string_equal(x, y);
	free(y);
	char seeded[2200];
	snprintf(seeded, sizeof seeded, "%s[sim]\nseed = 2\n", cdf_ini(WEBSEARCH, keys));
	gen_trace(seeded, "det-c.txt", &a);
	trace_free(&a);
	y = th_read(th_fmt("%s/det-c.txt", th_tmpdir()), NULL);
	assert_true(strcmp(x, y) != 0);
	free(x);
	free(y);
}

/* A k=4 fat-tree's racks are hosts {0,1}, {2,3}, ...: rack_local = 1 keeps
 * every flow in its rack; all-to-all cycles through the peers; incast events carry fanin flows of incast_size
 * to one receiver at one time, with dport 200. */
static void test_rack_local_and_incast(void **state)
{
	(void)state;
	struct trace t;
	gen_trace(cdf_ini(WEBSEARCH, "load = 0.3\nflows = 3000\nrack_local = 1\n"),
		  "rack.txt", &t);
	for (unsigned i = 0; i < t.n; i++)
		assert_int_equal(t.src[i] / 2, t.dst[i] / 2);
	trace_free(&t);
	/* all-to-all: each source's flows go round its 15 peers, so its
	 * counts per destination differ by at most one */
	gen_trace(cdf_ini(WEBSEARCH, "load = 0.3\nflows = 1000\npattern = all-to-all\n"),
		  "a2a.txt", &t);
	unsigned count[16][16] = { { 0 } };
	for (unsigned i = 0; i < t.n; i++)
		count[t.src[i]][t.dst[i]]++;
	for (unsigned h = 0; h < 16; h++) {
		unsigned lo = ~0u, hi = 0;
		for (unsigned d = 0; d < 16; d++) {
			if (d == h)
				continue;
			lo = count[h][d] < lo ? count[h][d] : lo;
			hi = count[h][d] > hi ? count[h][d] : hi;
		}
		assert_true(hi - lo <= 1 && hi >= 3);
	}
	trace_free(&t);
	gen_trace(cdf_ini(WEBSEARCH, "load = 0.2\nduration = 100ms\nincast_load = 0.05\n"
			  "incast_fanin = 8\nincast_size = 64KB\n"), "incast.txt", &t);
	double incast_bytes = 0;
	unsigned incast = 0;
	for (unsigned i = 0; i < t.n; i++) {
		if (t.dport[i] != 200)
			continue;
		assert_true(t.bytes[i] == 64000);
		incast_bytes += t.bytes[i];
		incast++;
	}
	assert_int_equal(incast % 8, 0);
	double load = incast_bytes * 8 / (16 * 100e9 * 0.1);
	if (fabs(load - 0.05) > 0.005)
		fail_msg("incast load %.4f, target 0.05", load);
	trace_free(&t);
}

/* ---- (4) bad CDF files ------------------------------------------------------------ */

static const struct th_bad_file bad_cdfs[] = {
	{ "missing cdf", NULL, WS_ENOENT, 0, "cannot open the flow-size CDF" },
	{ "empty cdf", "", WS_EINVAL, 0, "no points" },
	{ "only comments", "# nothing\n\n", WS_EINVAL, 0, "no points" },
	{ "one point", "0 0\n", WS_EINVAL, 1, "one point only" },
	{ "first not 0 %", "10 5\n100 100\n", WS_EINVAL, 1, "a CDF starts at 0" },
	{ "last not 100 %", "0 0\n100 50\n200 99.5\n", WS_EINVAL, 3, "a CDF ends at 100" },
	{ "percent above 100", "0 0\n100 101\n", WS_EINVAL, 2,
	  "bad cumulative percent '101' (expected 0 to 100)" },
	{ "negative percent", "0 -1\n100 100\n", WS_EINVAL, 1,
	  "bad cumulative percent '-1'" },
	{ "percent decreasing", "0 0\n100 50\n200 40\n300 100\n", WS_EINVAL, 3,
	  "cumulative percents must increase: 40 after 50" },
	{ "size decreasing", "0 0\n100 50\n# a comment\n50 60\n300 100\n", WS_EINVAL, 4,
	  "sizes must increase: 50 after 100" },
	{ "not a number", "0 0\n1e3x 100\n", WS_EINVAL, 2, "bad size '1e3x'" },
	{ "three fields", "0 0 0\n100 100\n", WS_EINVAL, 1, "expected two fields" },
};

static void test_bad_cdf(void **state)
{
	th_check_bad_file(*state, cdf_ini("bad.txt", "flows = 10\n"));
}

static void test_bad_keys(void **state)
{
	(void)state;
	struct ws_sim *sim;
	struct ws_err err;
	assert_int_equal(th_sim_try(cdf_ini(WEBSEARCH, "load = 0.5\n"), &sim, &err, NULL),
			 WS_EINVAL);
	assert_non_null(strstr(err.msg, "set duration or flows"));
	assert_int_equal(th_sim_try(cdf_ini(WEBSEARCH, "flows = 10\nincast_load = 0.1\n"
					    "incast_fanin = 16\n"), &sim, &err, NULL),
			 WS_EINVAL);
	assert_non_null(strstr(err.msg, "16 senders need more than the fabric's 16 hosts"));
}

/* ---- (5) FCT by size ---------------------------------------------------------------- */

struct fct_row {
	double bytes, id, slowdown;
};

static int cmp_row(const void *a, const void *b)
{
	const struct fct_row *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Nearest rank, written out again here: ceil(p n), at least 1. */
static double rank_pct(const double *v, unsigned n, double p)
{
	unsigned r = (unsigned)ceil(p / 100 * n);
	return v[(r ? r : 1) - 1];
}

/*
 * 10 flows into 4 buckets: ranks [0,2) [2,5) [5,7) [7,10) of the flows
 * sorted by size (ties by id).  The buckets, their size ranges and the
 * slowdown statistics are computed here from fct.csv and must match
 * fct_by_size.csv to its printed precision.
 */
static void test_fct_by_size(void **state)
{
	(void)state;
	th_write("sized.txt", "10\n0 5 3 100 5000 0\n1 5 3 100 200000 0\n"
		 "2 5 3 100 1000 0\n3 5 3 100 5000 0\n4 9 3 100 80000 0\n"
		 "6 9 3 100 3000000 0\n7 9 3 100 1000 0\n8 9 3 100 40000 0\n"
		 "10 5 3 100 700000 0.00001\n11 9 3 100 20000 0.00001\n");
	struct ws_sim *sim = th_sim("[topology]\nname = fat-tree\nk = 4\n[workload]\n"
				    "name = flows\nfile = sized.txt\n[output]\n"
				    "fct_size_buckets = 4\n");
	th_run(sim);
	char dir[512];
	snprintf(dir, sizeof dir, "%s/by-size", th_tmpdir());
	struct ws_err err;
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), 0);
	ws_sim_free(sim);
	struct th_csv fct, by;
	th_csv_load(&fct, th_fmt("%s/fct.csv", dir));
	th_csv_load(&by, th_fmt("%s/fct_by_size.csv", dir));
	assert_int_equal(fct.rows, 10);
	assert_int_equal(by.rows, 4);
	struct fct_row r[10];
	for (unsigned i = 0; i < 10; i++)
		r[i] = (struct fct_row){ th_csv_num(&fct, i, "bytes"),
			th_csv_num(&fct, i, "flow_id"), th_csv_num(&fct, i, "slowdown") };
	qsort(r, 10, sizeof *r, cmp_row);
	static const unsigned lo[4] = { 0, 2, 5, 7 }, hi[4] = { 2, 5, 7, 10 };
	for (unsigned b = 0; b < 4; b++) {
		double s[10], sum = 0;
		unsigned n = hi[b] - lo[b];
		for (unsigned k = 0; k < n; k++) {
			s[k] = r[lo[b] + k].slowdown;
			sum += s[k];
		}
		qsort(s, n, sizeof *s, cmp_d);
		assert_int_equal(th_csv_num(&by, b, "flows"), n);
		assert_true(th_csv_num(&by, b, "min_bytes") == r[lo[b]].bytes);
		assert_true(th_csv_num(&by, b, "max_bytes") == r[hi[b] - 1].bytes);
		assert_true(th_csv_num(&by, b, "flows_pct_from") == 25.0 * b);
		assert_float_equal(th_csv_num(&by, b, "mean"), sum / n, 2e-6);
		assert_float_equal(th_csv_num(&by, b, "p50"), rank_pct(s, n, 50), 2e-6);
		assert_float_equal(th_csv_num(&by, b, "p95"), rank_pct(s, n, 95), 2e-6);
		assert_float_equal(th_csv_num(&by, b, "p99"), rank_pct(s, n, 99), 2e-6);
		assert_float_equal(th_csv_num(&by, b, "max"), s[n - 1], 2e-6);
	}
	th_csv_free(&fct);
	th_csv_free(&by);
	char *js = th_read(th_fmt("%s/summary.json", dir), NULL);
	assert_non_null(strstr(js, "\"fct_by_size\": ["));
	assert_non_null(strstr(js, "\"end\": \"drained\""));
	free(js);
}

/* ---- (6) port traces ---------------------------------------------------------------- */

/* The quickstart's flows on its fabric, queues every 1 us and utilization
 * every 5 us from 100 us on, for the edge switches 20-23 and port 0 of
 * core switch 34. */
static void test_port_traces(void **state)
{
	(void)state;
	char ini[1024];
	snprintf(ini, sizeof ini, "[topology]\nname = fat-tree\nk = 4\n[cc]\nname = dcqcn\n"
		 "[workload]\nname = flows\nfile = %s/examples/quickstart-flows.txt\n"
		 "[output]\nports = true\ntrace_queues = 1us\ntrace_util = 5us\n"
		 "trace_start = 100us\ntrace_ports = 20-23, 34:0\n", TH_SRCDIR);
	struct ws_sim *sim = th_sim(ini);
	char dir[512];
	snprintf(dir, sizeof dir, "%s/traces", th_tmpdir());
	struct ws_err err;
	assert_int_equal(ws_sim_set_output_dir(sim, dir, &err), 0);
	th_run(sim);
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), 0);
	ws_sim_free(sim);
	struct th_csv q, u, d, ports;
	th_csv_load(&q, th_fmt("%s/queues.csv", dir));
	th_csv_load(&u, th_fmt("%s/util.csv", dir));
	th_csv_load(&d, th_fmt("%s/queue_dist.csv", dir));
	th_csv_load(&ports, th_fmt("%s/ports.csv", dir));
	/* the filter and the start */
	assert_true(q.rows > 0 && u.rows > 0);
	assert_int_equal(th_csv_ps(&q, 0, "time_ns"), 100 * 1000000ull);
	assert_int_equal(th_csv_ps(&u, 0, "time_ns"), 105 * 1000000ull);
	for (unsigned i = 0; i < q.rows; i++) {
		double node = th_csv_num(&q, i, "node");
		assert_true((node >= 20 && node <= 23) ||
			    (node == 34 && th_csv_num(&q, i, "port") == 0));
	}
	assert_int_equal(d.rows, 4 * 4 + 1);
	/* utilization: sum(util) x 5 us x rate / 8 is what the port sent from
	 * 100 us on: at most its tx_bytes, and most of them (the permutation's
	 * 2 MB flows run past 100 us) */
	for (unsigned r = 0; r < ports.rows; r++) {
		double node = th_csv_num(&ports, r, "node"), port = th_csv_num(&ports, r, "port");
		if (node != 20 || port != 2)
			continue;
		double sum = 0;
		for (unsigned i = 0; i < u.rows; i++)
			if (th_csv_num(&u, i, "node") == 20 && th_csv_num(&u, i, "port") == 2) {
				double x = th_csv_num(&u, i, "utilization");
				assert_true(x >= 0 && x <= 1.02);
				sum += x;
			}
		double sent = sum * 5e-6 * th_csv_num(&ports, r, "rate_bps") / 8;
		double tx = th_csv_num(&ports, r, "tx_bytes");
		if (!(sent <= tx && sent > 0.3 * tx))
			fail_msg("util.csv says %.0f bytes, ports.csv %.0f", sent, tx);
	}
	/* queue_dist.csv of (20, 2): its samples are the queue trace's, zeros
	 * included; each percentile is the lower end of its 1/16 bucket */
	unsigned busy = 0;
	double v[4096];
	for (unsigned i = 0; i < q.rows; i++)
		if (th_csv_num(&q, i, "node") == 20 && th_csv_num(&q, i, "port") == 2 &&
		    th_csv_num(&q, i, "queue_bytes") > 0 && busy < 4096)
			v[busy++] = th_csv_num(&q, i, "queue_bytes");
	qsort(v, busy, sizeof *v, cmp_d);
	for (unsigned r = 0; r < d.rows; r++) {
		if (th_csv_num(&d, r, "node") != 20 || th_csv_num(&d, r, "port") != 2)
			continue;
		unsigned n = (unsigned)th_csv_num(&d, r, "samples");
		assert_int_equal(th_csv_num(&d, r, "busy_samples"), busy);
		static const struct { const char *col; double p; } pc[] = {
			{ "p50_bytes", 50 }, { "p90_bytes", 90 }, { "p99_bytes", 99 } };
		for (size_t k = 0; k < WS_ARRAY_LEN(pc); k++) {
			unsigned rank = (unsigned)ceil(pc[k].p / 100 * n);
			double exact = rank <= n - busy ? 0 : v[rank - (n - busy) - 1];
			double got = th_csv_num(&d, r, pc[k].col);
			if (!(got <= exact && exact < got * (1 + 1.0 / 16) + 1))
				fail_msg("%s: %.0f, exact %.0f", pc[k].col, got, exact);
		}
	}
	th_csv_free(&q);
	th_csv_free(&u);
	th_csv_free(&d);
	th_csv_free(&ports);
}

static void test_bad_trace_ports(void **state)
{
	(void)state;
	static const struct { const char *spec, *msg; } bad[] = {
		{ "20-99", "'20-99': nodes 0..35" },
		{ "20:9", "'20:9': node 20 has ports 0..3" },
		{ "x", "'x': expected NODE, NODE:PORT or FIRST-LAST" },
		{ "21-20", "'21-20': nodes 0..35" },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(bad); i++) {
		struct ws_sim *sim;
		struct ws_err err;
		const char *ini = th_fmt("[topology]\nname = fat-tree\nk = 4\n[workload]\n"
					 "name = flows\nfile = t.txt\n[output]\n"
					 "trace_queues = 1us\ntrace_ports = %s\n", bad[i].spec);
		th_write("t.txt", "1\n0 5 3 100 1000 0\n");
		assert_int_equal(th_sim_try(ini, &sim, &err, NULL), WS_EINVAL);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("'%s' not in '%s'", bad[i].msg, err.msg);
		assert_int_equal(err.line, 9);
		assert_string_equal(err.key, "output.trace_ports");
	}
}

int main(void)
{
	enum { N_BAD = sizeof bad_cdfs / sizeof bad_cdfs[0] };
	static struct CMUnitTest tests[N_BAD + 8];
	size_t n = 0;
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_ks_websearch),
		cmocka_unit_test(test_load_and_poisson),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_rack_local_and_incast),
		cmocka_unit_test(test_bad_keys),
		cmocka_unit_test(test_fct_by_size),
		cmocka_unit_test(test_port_traces),
		cmocka_unit_test(test_bad_trace_ports),
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(fixed); i++)
		tests[n++] = fixed[i];
	for (size_t i = 0; i < N_BAD; i++)
		tests[n++] = (struct CMUnitTest){ bad_cdfs[i].name, test_bad_cdf, NULL,
						  NULL, (void *)&bad_cdfs[i] };
	return _cmocka_run_group_tests("test_cdf", tests, n, NULL, NULL);
}
