/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "ccscen.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"

double ccs_goodput_max(uint32_t wire)
{
	return (double)CCS_LINE_RATE * CCS_PAYLOAD / wire;
}

ws_time ccs_line_time(uint64_t bytes, uint32_t wire)
{
	uint64_t packets = (bytes + CCS_PAYLOAD - 1) / CCS_PAYLOAD;
	return ws_tx_time(bytes + packets * (wire - CCS_PAYLOAD), CCS_LINE_RATE);
}

/* ---- the CC lab ----------------------------------------------------------- */

struct ws_cc_lab *ccs_lab_new(const char *cc, const char *const *params,
			      ws_time max_base_rtt)
{
	struct ws_cc_lab_spec spec = { WS_INIT_SIZE(struct ws_cc_lab_spec),
		.cc = cc, .params = params, .line_rate = CCS_LINE_RATE,
		.base_rtt = CCS_LAB_RTT, .mtu = CCS_PAYLOAD,
		.max_base_rtt = max_base_rtt,
	};
	struct ws_cc_lab *lab;
	struct ws_err err;
	if (ws_cc_lab_new(&lab, &spec, &err))
		fail_msg("%s: %s", cc, err.msg);
	return lab;
}

void ccs_lab_loss(struct ws_cc_lab *lab, const char *cc, enum ws_cc_loss kind,
		  uint32_t packets)
{
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
	struct ws_catalog *cat;
	struct ws_err err;
	if (ws_catalog_find(&cat, cc, WS_KIND_CC, &opts, &err))
		fail_msg("%s: %s", cc, err.msg);
	const struct ws_plugin_info *pi = ws_catalog_get(cat, 0);
	assert_non_null(pi);
	void *so = dlopen(pi->path, RTLD_NOW);
	if (!so)
		fail_msg("%s: %s", pi->path, dlerror());
	const struct ws_plugin *(*entry)(void);
	*(void **)&entry = dlsym(so, "ws_plugin_entry");
	assert_non_null(entry);
	const struct ws_cc_ops *ops = entry()->ops;
	assert_non_null(ops->on_loss);
	ops->on_loss(ws_cc_lab_flow(lab), kind, packets, ws_cc_lab_now(lab));
	dlclose(so);
	ws_catalog_free(cat);
}

void ccs_expect_bad_param(const char *cc, const char *kv, const char *part)
{
	const char *const params[] = { kv, NULL };
	struct ws_cc_lab_spec spec = { WS_INIT_SIZE(struct ws_cc_lab_spec),
		.cc = cc, .params = params, .line_rate = CCS_LINE_RATE,
		.base_rtt = CCS_LAB_RTT,
	};
	struct ws_cc_lab *lab;
	struct ws_err err;
	assert_int_equal(ws_cc_lab_new(&lab, &spec, &err), WS_EINVAL);
	assert_null(lab);
	if (!strstr(err.msg, part))
		fail_msg("%s %s: '%s' lacks '%s'", cc, kv, err.msg, part);
}

void ccs_expect_defaults(const char *cc, const char *const *want)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	struct ws_err err;
	assert_int_equal(tool_describe(f, cc, WS_KIND_CC, true, NULL, &err), WS_OK);
	fclose(f);
	for (size_t i = 0; want[i]; i++)
		if (!strstr(text, want[i]))
			fail_msg("describe %s lacks '%s':\n%s", cc, want[i], text);
	free(text);
}

/* ---- the fabric ------------------------------------------------------------- */

struct ws_sim *ccs_sim(const char *cc, const char *extra, const char *flows)
{
	th_write("trace.txt", flows);
	return th_sim(th_fmt("[topology]\nname = fat-tree\nk = 4\n"
			     "link_rate = 100Gbps\nlink_delay = 1us\n"
			     "[cc]\nname = %s\n%s\n"
			     "[workload]\nname = flows\nfile = trace.txt\n",
			     cc, extra ? extra : ""));
}

uint64_t ccs_acked(const struct ws_sim *sim, uint32_t id)
{
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	assert_int_equal(ws_flow_get(sim, id, &fi), WS_OK);
	return fi.acked;
}

void ccs_port_towards_host(const struct ws_sim *sim, uint32_t host, uint32_t *node,
			   uint32_t *local)
{
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	assert_int_equal(ws_port_info(sim, ws_sim_fabric(sim)->hosts[host], 0, &pi), WS_OK);
	*node = pi.peer_node;
	*local = pi.peer_local;
}

/* ---- two flows into one link ------------------------------------------- */

static void two_flows_run(struct ccs_two_flows *r, const char *cc, const char *extra)
{
	/* 4 GB: at line rate a flow would need 340 ms */
	struct ws_sim *sim = ccs_sim(cc, extra, "2\n4 0 3 100 4000000000 0\n"
						"8 0 3 100 4000000000 0.001\n");
	uint32_t node, local;
	ccs_port_towards_host(sim, 0, &node, &local);
	r->n = (size_t)(CCS_RUN / CCS_BIN) + 1;
	for (int k = 0; k < 2; k++) {
		r->acked[k] = calloc(r->n, sizeof *r->acked[k]);
		r->rate[k] = calloc(r->n, sizeof *r->rate[k]);
		assert_non_null(r->acked[k]);
		assert_non_null(r->rate[k]);
	}
	r->queue = calloc(r->n, sizeof *r->queue);
	assert_non_null(r->queue);
	for (size_t i = 0; i < r->n; i++) {
		th_run_until(sim, (ws_time)i * CCS_BIN);
		for (uint32_t k = 0; k < 2; k++) {
			struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
			if (ws_flow_get(sim, k, &fi) == WS_OK) {
				r->acked[k][i] = fi.acked;
				r->rate[k][i] = fi.rate;
			}
		}
		r->queue[i] = ws_port_queue_bytes(sim, node, local);
	}
	r->stats.size = sizeof r->stats;
	ws_sim_get_stats(sim, &r->stats);
	assert_int_equal(r->stats.flows, 2);
	assert_int_equal(r->stats.flows_done, 0);
	ws_sim_free(sim);
}

static void two_flows_free(struct ccs_two_flows *r)
{
	for (int k = 0; k < 2; k++) {
		free(r->acked[k]);
		free(r->rate[k]);
	}
	free(r->queue);
	free(r->cc);
	free(r->extra);
	memset(r, 0, sizeof *r);
}

/* the runs made so far in this program */
static struct ccs_two_flows two_flows_done[4];

const struct ccs_two_flows *ccs_two_flows(const char *cc, const char *extra)
{
	extra = extra ? extra : "";
	size_t i = 0;
	for (; i < WS_ARRAY_LEN(two_flows_done) && two_flows_done[i].n; i++)
		if (!strcmp(two_flows_done[i].cc, cc) && !strcmp(two_flows_done[i].extra, extra))
			return &two_flows_done[i];
	assert_true(i < WS_ARRAY_LEN(two_flows_done));
	struct ccs_two_flows *r = &two_flows_done[i];
	two_flows_run(r, cc, extra);
	r->cc = strdup(cc);
	r->extra = strdup(extra);
	assert_non_null(r->cc);
	assert_non_null(r->extra);
	return r;
}

int ccs_teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < WS_ARRAY_LEN(two_flows_done); i++)
		two_flows_free(&two_flows_done[i]);
	return 0;
}

/* The sample taken at `t`, a multiple of CCS_BIN within the run. */
static size_t sample_at(const struct ccs_two_flows *r, ws_time t)
{
	assert_int_equal(t % CCS_BIN, 0);
	size_t i = (size_t)(t / CCS_BIN);
	assert_true(i < r->n);
	return i;
}

void ccs_two_flows_over(const struct ccs_two_flows *r, ws_time from, ws_time to,
			double capacity, const char *label, struct ccs_interval *out)
{
	size_t a = sample_at(r, from), b = sample_at(r, to);
	assert_true(a < b);
	double secs = (double)(to - from) / (double)WS_SEC;
	for (int k = 0; k < 2; k++)
		out->goodput[k] = (double)(r->acked[k][b] - r->acked[k][a]) * 8 / secs;
	out->total = out->goodput[0] + out->goodput[1];
	out->share = out->total > 0 ? out->goodput[0] / out->total : 0;
	out->util = out->total / capacity;
	double q = 0;
	for (size_t i = a; i <= b; i++)
		q += (double)r->queue[i];
	out->queue_avg = q / (double)(b - a + 1);
	print_message("%s two flows%s%s%s, %.0f-%.0f ms: shares %.4f / %.4f, goodput %.2f Gb/s "
		      "(%.1f %% of %.2f), queue towards host 0 %.1f KB on average; "
		      "%llu ECN marks, %llu drops in the run\n",
		      r->cc, label ? " (" : "", label ? label : "", label ? ")" : "",
		      (double)from / WS_MS, (double)to / WS_MS, out->share,
		      1 - out->share, out->total / 1e9, 100 * out->util, capacity / 1e9,
		      out->queue_avg / 1e3, (unsigned long long)r->stats.ecn_marks,
		      (unsigned long long)r->stats.drops);
}

/* Flow 1's payload bps over the `w` samples before sample `i`. */
static double join_goodput(const struct ccs_two_flows *r, size_t i, size_t w)
{
	return (double)(r->acked[1][i] - r->acked[1][i - w]) * 8 /
	       ((double)(w * CCS_BIN) / (double)WS_SEC);
}

ws_time ccs_join_time(const struct ccs_two_flows *r, double fair, double fraction,
		      ws_time window)
{
	size_t join = sample_at(r, CCS_JOIN), w = sample_at(r, window);
	assert_true(w > 0 && join + w < r->n);
	size_t last_low = 0;
	for (size_t i = join + w; i < r->n; i++)
		if (join_goodput(r, i, w) < fraction * fair)
			last_low = i;
	if (last_low == r->n - 1)
		return WS_TIME_NEVER;
	if (!last_low)
		return window;
	return (ws_time)(last_low + 1) * CCS_BIN - CCS_JOIN;
}

ws_time ccs_join_reach(const struct ccs_two_flows *r, double fair, double fraction,
		       ws_time window)
{
	size_t join = sample_at(r, CCS_JOIN), w = sample_at(r, window);
	assert_true(w > 0 && join + w < r->n);
	for (size_t i = join + w; i < r->n; i++)
		if (join_goodput(r, i, w) >= fraction * fair)
			return (ws_time)i * CCS_BIN - CCS_JOIN;
	return WS_TIME_NEVER;
}

uint64_t ccs_join_lowest_rate(const struct ccs_two_flows *r, ws_time span)
{
	size_t join = sample_at(r, CCS_JOIN), end = sample_at(r, CCS_JOIN + span);
	uint64_t lowest = UINT64_MAX;
	for (size_t i = join + 1; i <= end; i++)
		if (r->rate[1][i] < lowest)
			lowest = r->rate[1][i];
	return lowest;
}

/* ---- an 8-to-1 incast ------------------------------------------------------ */

static const uint32_t incast_src[CCS_INCAST_N] = { 4, 5, 6, 7, 8, 9, 12, 13 };

const char *ccs_incast_flows(uint64_t bytes)
{
	static char text[512];
	int o = snprintf(text, sizeof text, "%d\n", CCS_INCAST_N);
	for (int i = 0; i < CCS_INCAST_N; i++)
		o += snprintf(text + o, sizeof text - (size_t)o, "%u 0 3 100 %llu 0\n",
			      incast_src[i], (unsigned long long)bytes);
	return text;
}

void ccs_incast_run(struct ccs_incast *r, const char *cc, const char *extra,
		    uint64_t bytes, const char *label)
{
	struct ws_sim *sim = ccs_sim(cc, extra, ccs_incast_flows(bytes));
	uint32_t node, local;
	ccs_port_towards_host(sim, 0, &node, &local);
	/* q[i]: the queue at i us */
	size_t cap = 1 << 13, n = 0;
	uint64_t *q = malloc(cap * sizeof *q);
	assert_non_null(q);
	for (ws_time t = 0;; t += WS_US) {
		th_run_until(sim, t);
		if (n == cap) {
			q = realloc(q, (cap *= 2) * sizeof *q);
			assert_non_null(q);
		}
		q[n++] = ws_port_queue_bytes(sim, node, local);
		r->stats.size = sizeof r->stats;
	ws_sim_get_stats(sim, &r->stats);
		if (r->stats.flows_done == CCS_INCAST_N)
			break;
		if (t >= 100 * WS_MS)
			fail_msg("%s incast: %u of %d flows done after 100 ms", cc,
				 r->stats.flows_done, CCS_INCAST_N);
	}
	th_run(sim);
	r->stats.size = sizeof r->stats;
	ws_sim_get_stats(sim, &r->stats);
	r->bytes = bytes;
	r->done = 0;
	r->all_active = WS_TIME_NEVER;
	for (uint32_t i = 0; i < CCS_INCAST_N; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &fi), WS_OK);
		r->acked[i] = fi.acked;
		r->done = fi.end > r->done ? fi.end : r->done;
		r->all_active = fi.end < r->all_active ? fi.end : r->all_active;
	}
	ws_sim_free(sim);
	/* CCS_INCAST_N x bytes through one port cannot finish sooner */
	assert_true(r->done >= ccs_line_time(CCS_INCAST_N * bytes, CCS_WIRE));
	/* the samples in [all_active / 2, all_active): the second half of the
	 * period when every flow was sending */
	size_t end = (size_t)((r->all_active + WS_US - 1) / WS_US), half = end / 2;
	assert_true(end >= 2 && end <= n);
	r->peak = 0;
	for (size_t i = 0; i < n; i++)
		r->peak = q[i] > r->peak ? q[i] : r->peak;
	double sum = 0;
	r->min = UINT64_MAX;
	r->max = 0;
	for (size_t i = half; i < end; i++) {
		sum += (double)q[i];
		r->min = q[i] < r->min ? q[i] : r->min;
		r->max = q[i] > r->max ? q[i] : r->max;
	}
	r->avg = sum / (double)(end - half);
	free(q);
	/* the data packets' wire bytes all cross the port towards host 0 */
	double busy = (double)r->stats.data_bytes * 8 / (double)CCS_LINE_RATE;
	print_message("%s 8-to-1 incast of %.1f MB flows (%s): done at %.1f us (the port "
		      "towards host 0 busy %.1f %% of it), all eight active until %.1f us; "
		      "queue towards host 0: peak %.1f KB, over the second half of the "
		      "all-active period %.1f KB on average, %.1f to %.1f KB; %llu drops, "
		      "%llu bytes retransmitted, %llu NACKs, %llu PFC pauses, "
		      "%llu ECN marks\n",
		      cc, (double)bytes / 1e6, label, (double)r->done / WS_US,
		      100 * busy / ((double)r->done / (double)WS_SEC),
		      (double)r->all_active / WS_US, (double)r->peak / 1e3, r->avg / 1e3,
		      (double)r->min / 1e3, (double)r->max / 1e3,
		      (unsigned long long)r->stats.drops,
		      (unsigned long long)r->stats.retx_bytes,
		      (unsigned long long)r->stats.nacks,
		      (unsigned long long)r->stats.pfc_pauses,
		      (unsigned long long)r->stats.ecn_marks);
}

void ccs_incast_assert_lossless(const struct ccs_incast *r)
{
	assert_int_equal(r->stats.flows_done, CCS_INCAST_N);
	assert_int_equal(r->stats.drops, 0);
	assert_int_equal(r->stats.retx_bytes, 0);
	assert_int_equal(r->stats.nacks, 0);
	for (uint32_t i = 0; i < CCS_INCAST_N; i++)
		assert_int_equal(r->acked[i], r->bytes);
}

/* ---- N long flows into one link ----------------------------------------- */

void ccs_n_flows_run(struct ccs_n_flows *r, const char *cc, const char *extra,
		     unsigned n, ws_time stagger, ws_time from, ws_time to)
{
	assert_true(n >= 1 && n <= CCS_INCAST_N);
	assert_true(from < to && from % CCS_BIN == 0 && to % CCS_BIN == 0);
	char flows[512];
	int o = snprintf(flows, sizeof flows, "%u\n", n);
	for (unsigned i = 0; i < n; i++)
		o += snprintf(flows + o, sizeof flows - (size_t)o, "%u 0 3 100 4000000000 %.9f\n",
			      incast_src[i], (double)(i * stagger) / (double)WS_SEC);
	struct ws_sim *sim = ccs_sim(cc, extra, flows);
	uint32_t node, local;
	ccs_port_towards_host(sim, 0, &node, &local);
	uint64_t acked[CCS_INCAST_N];
	double q = 0;
	size_t samples = 0;
	memset(r, 0, sizeof *r);
	r->n = n;
	for (ws_time t = from; t <= to; t += CCS_BIN) {
		th_run_until(sim, t);
		uint64_t qb = ws_port_queue_bytes(sim, node, local);
		q += (double)qb;
		samples++;
		r->queue_max = qb > r->queue_max ? qb : r->queue_max;
		if (t == from)
			for (unsigned i = 0; i < n; i++)
				acked[i] = ccs_acked(sim, i);
	}
	double secs = (double)(to - from) / (double)WS_SEC, sq = 0;
	for (unsigned i = 0; i < n; i++) {
		r->goodput[i] = (double)(ccs_acked(sim, i) - acked[i]) * 8 / secs;
		r->total += r->goodput[i];
		sq += r->goodput[i] * r->goodput[i];
	}
	r->jain = r->total * r->total / (n * sq);
	for (unsigned i = 0; i < n; i++) {
		double dev = fabs(r->goodput[i] - r->total / n) / (r->total / n);
		r->worst = dev > r->worst ? dev : r->worst;
	}
	r->queue_avg = q / (double)samples;
	r->stats.size = sizeof r->stats;
	ws_sim_get_stats(sim, &r->stats);
	ws_sim_free(sim);
	print_message("%s %u flows into host 0, %.1f-%.1f ms: goodput %.2f Gb/s, Jain %.4f, "
		      "worst flow %.1f %% from the fair share; queue towards host 0 %.1f KB on "
		      "average, %.1f KB at most; %llu ECN marks, %llu drops\n",
		      cc, n, (double)from / WS_MS, (double)to / WS_MS, r->total / 1e9, r->jain,
		      100 * r->worst, r->queue_avg / 1e3, (double)r->queue_max / 1e3,
		      (unsigned long long)r->stats.ecn_marks, (unsigned long long)r->stats.drops);
}
