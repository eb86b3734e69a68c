/* SPDX-License-Identifier: MIT */
/*
 * Periodic observers: the rate and queue traces of [output] and the
 * acceleration plugin's sampling.  They run as "observer" events, which do
 * not count as work: a simulation whose only pending events are observers
 * has finished, so observers stop by themselves instead of keeping it alive
 * (and do not keep each other alive).
 *
 * rates.csv:  time_ns, flow_id, rate_bps, window_bytes, acked_bytes,
 *             inflight_bytes: every started, unfinished flow at each sample.
 * queues.csv: time_ns, node, port, queue_bytes, paused: every switch port
 *             whose egress queue is not empty, or was not empty at the
 *             previous sample (so curves return to zero), at each sample.
 * util.csv:   time_ns, node, port, utilization: the share of the port's
 *             rate it transmitted since the previous sample, for ports
 *             busy now or at the previous sample.
 * queue_dist.csv (at the end, with queues.csv): per traced port, the
 *             distribution of its sampled queue, zeros included.
 *
 * [output] trace_start delays the first sample of every trace (an idle
 * lead-in costs no sample events), and trace_ports restricts queues.csv,
 * util.csv and queue_dist.csv to some ports: "" is every switch port;
 * otherwise a list of NODE, NODE:PORT or FIRST-LAST (nodes), separated by
 * blanks or commas; hosts may be named too.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ctype.h>

#include <math.h>

#include "internal.h"

static void qdist_add(uint32_t *h, uint64_t v);

/* Pending events other than observers: is there anything left to simulate? */
static bool busy(const struct ws_sim *sim)
{
	return sim->q.live > sim->observers;
}

void ws_observe(struct ws_sim *sim, ws_time when, ws_event_fn fn)
{
	sim->observers++;
	ws_eventq_push(&sim->q, NULL, when, fn, NULL, 0);
}

/* Called first by every observer handler. */
static bool observer_ran(struct ws_sim *sim)
{
	sim->observers--;
	return busy(sim);
}

/* ---- acceleration sampling -------------------------------------------------------- */

static void accel_sample(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)obj;
	(void)arg;
	bool more = observer_ran(sim);
	WS_ACCEL_OPS(sim)->on_sample(&sim->slot[WS_KIND_ACCEL].inst, sim->now);
	if (more || busy(sim))
		ws_observe(sim, sim->now + sim->accel_period, accel_sample);
}

/* ---- traces ----------------------------------------------------------------------- */

enum { TRACE_RATES = 0, TRACE_QUEUES = 1, TRACE_UTIL = 2, TRACE_N = 3 };
static const char *const trace_file[TRACE_N] = { "rates.csv", "queues.csv", "util.csv" };

/* Bytes a sample row takes at the least ("T,0,0,0,0\n" with T in ns). */
#define TRACE_MIN_ROW 16u

static struct ws_outfile *open_trace(struct ws_sim *sim, int k, const char *header)
{
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_mkdir_p(sim->out_dir, &err)) {
		ws_fail(sim, &err);
		return NULL;
	}
	struct ws_outfile *o = ws_outfile_open(sim->out_dir, trace_file[k], &err);
	if (!o) {
		ws_fail(sim, &err);
		return NULL;
	}
	fputs(header, ws_outfile_stream(o));
	sim->trace_bytes[k] = strlen(header);
	return o;
}

/* After a sample: a write error, or a trace past [output] trace_max_bytes,
 * stops the run with the reason (and the rate the trace grows at).  A
 * trace that could not be written is dropped at once: it is reported
 * here, once, and the run's other outputs are still written. */
static void trace_check(struct ws_sim *sim, int k, struct ws_outfile *o,
			ws_time interval)
{
	struct ws_err err;
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", sim->out_dir, trace_file[k]);
	if (ferror(ws_outfile_stream(o))) {
		ws_err_at(&err, WS_EIO, path, 0, "write failed: %s",
			  strerror(errno ? errno : EIO));
		ws_fail(sim, &err);
		struct ws_outfile **slot[TRACE_N] = { &sim->trace_rates, &sim->trace_queues,
						      &sim->trace_util };
		ws_outfile_discard(o);
		*slot[k] = NULL;
		sim->trace_bytes[k] = 0;
		return;
	}
	if (sim->trace_bytes[k] <= sim->outc.trace_max_bytes)
		return;
	double per_us = sim->now ? (double)sim->trace_bytes[k] /
				   ((double)sim->now / (double)WS_US) : 0;
	ws_err_at(&err, WS_EINVAL, path, 0, "the trace passed [output] "
		  "trace_max_bytes = %" PRIu64 " bytes after %.3f us simulated, "
		  "sampling every %.6f us: it grows by %.0f bytes per simulated us; "
		  "sample less often or raise the limit",
		  sim->outc.trace_max_bytes, (double)sim->now / (double)WS_US,
		  (double)interval / (double)WS_US, per_us);
	snprintf(err.key, sizeof err.key, "output.trace_max_bytes");
	ws_fail(sim, &err);
}

static void rates_sample(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)obj;
	(void)arg;
	bool more = observer_ran(sim);
	if (!sim->trace_rates) {
		sim->trace_rates = open_trace(sim, TRACE_RATES,
					      "time_ns,flow_id,rate_bps,window_bytes,"
					      "acked_bytes,inflight_bytes\n");
		if (!sim->trace_rates)
			return;
	}
	FILE *out = ws_outfile_stream(sim->trace_rates);
	char t[32];
	ws_fmt_ps_as_ns(t, sizeof t, sim->now);
	for (uint32_t i = sim->trace_first_flow; i < sim->n_flows; i++) {
		const struct ws_flow *f = sim->flows[i];
		if (f && !f->started)
			continue;
		if (!f || f->end != WS_TIME_NEVER || f->aborted) {
			if (i == sim->trace_first_flow)
				sim->trace_first_flow++;
			continue;
		}
		int w = fprintf(out, "%s,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
				t, i, f->cc.rate, f->cc.window, f->cc.snd_una,
				f->cc.snd_nxt - f->cc.snd_una);
		sim->trace_bytes[TRACE_RATES] += w > 0 ? (uint64_t)w : 0;
	}
	trace_check(sim, TRACE_RATES, sim->trace_rates, sim->outc.trace_rates);
	if (!sim->failed && (more || busy(sim)))
		ws_observe(sim, sim->now + sim->outc.trace_rates, rates_sample);
}

static void queues_sample(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)obj;
	(void)arg;
	bool more = observer_ran(sim);
	if (!sim->trace_queues) {
		sim->trace_last_q = calloc(sim->fab.n_ports, sizeof *sim->trace_last_q);
		if (!sim->trace_last_q) {
			struct ws_err err;
			ws_err_set(&err, WS_ENOMEM, "out of memory for the queue trace");
			ws_fail(sim, &err);
			return;
		}
		sim->trace_queues = open_trace(sim, TRACE_QUEUES,
					       "time_ns,node,port,queue_bytes,paused\n");
		if (!sim->trace_queues)
			return;
		sim->trace_qdist = ws_xcalloc((size_t)sim->fab.n_ports * WS_QDIST_BUCKETS,
					      sizeof *sim->trace_qdist);
	}
	FILE *out = ws_outfile_stream(sim->trace_queues);
	char t[32];
	ws_fmt_ps_as_ns(t, sizeof t, sim->now);
	for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
		const struct ws_port *p = &sim->ports[i];
		if (!sim->trace_port[i])
			continue;
		qdist_add(sim->trace_qdist + (size_t)i * WS_QDIST_BUCKETS, p->q_bytes);
		if (!p->q_bytes && !sim->trace_last_q[i])
			continue;
		int w = fprintf(out, "%s,%u,%u,%" PRIu64 ",%u\n", t, p->node,
				p->local, p->q_bytes, p->paused);
		sim->trace_bytes[TRACE_QUEUES] += w > 0 ? (uint64_t)w : 0;
		sim->trace_last_q[i] = p->q_bytes;
	}
	sim->trace_q_samples++;
	trace_check(sim, TRACE_QUEUES, sim->trace_queues, sim->outc.trace_queues);
	if (!sim->failed && (more || busy(sim)))
		ws_observe(sim, sim->now + sim->outc.trace_queues, queues_sample);
}

static void util_sample(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)obj;
	(void)arg;
	bool more = observer_ran(sim);
	if (!sim->trace_util) {
		sim->trace_util = open_trace(sim, TRACE_UTIL, "time_ns,node,port,utilization\n");
		if (!sim->trace_util)
			return;
		sim->trace_last_tx = ws_xcalloc(sim->fab.n_ports, sizeof *sim->trace_last_tx);
		sim->trace_last_busy = ws_xcalloc(sim->fab.n_ports, 1);
		for (uint32_t i = 0; i < sim->fab.n_ports; i++)
			sim->trace_last_tx[i] = sim->ports[i].tx_bytes;
	} else {
		FILE *out = ws_outfile_stream(sim->trace_util);
		char t[32];
		ws_fmt_ps_as_ns(t, sizeof t, sim->now);
		double span = (double)sim->outc.trace_util / (double)WS_SEC;
		for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
			const struct ws_port *p = &sim->ports[i];
			uint64_t tx = p->tx_bytes - sim->trace_last_tx[i];
			sim->trace_last_tx[i] = p->tx_bytes;
			if (!sim->trace_port[i] || (!tx && !sim->trace_last_busy[i]))
				continue;
			sim->trace_last_busy[i] = tx != 0;
			int w = fprintf(out, "%s,%u,%u,%.4f\n", t, p->node, p->local,
					(double)tx * 8 / ((double)p->rate * span));
			sim->trace_bytes[TRACE_UTIL] += w > 0 ? (uint64_t)w : 0;
		}
	}
	trace_check(sim, TRACE_UTIL, sim->trace_util, sim->outc.trace_util);
	if (!sim->failed && (more || busy(sim)))
		ws_observe(sim, sim->now + sim->outc.trace_util, util_sample);
}

/* With [sim] stop_time, a trace writes at least one row per sample until
 * then (while anything runs): refuse before running one that would pass
 * trace_max_bytes. */
static int trace_estimate(const struct ws_sim *sim, int k, ws_time interval,
			  const char *key, struct ws_err *err)
{
	ws_time until = sim->simc.stop_time;
	if (!interval || !until || until <= sim->now)
		return WS_OK;
	uint64_t samples = (until - sim->now) / interval + 1;
	if (samples <= sim->outc.trace_max_bytes / TRACE_MIN_ROW)
		return WS_OK;
	return ws_err_key(err, WS_EINVAL, key, "%s every %.6f us until [sim] "
			  "stop_time = %.3f us takes %" PRIu64 " samples: at least "
			  "%.3g bytes (%u per row), more than [output] "
			  "trace_max_bytes = %" PRIu64, trace_file[k],
			  (double)interval / (double)WS_US,
			  (double)until / (double)WS_US, samples,
			  (double)samples * TRACE_MIN_ROW, TRACE_MIN_ROW,
			  sim->outc.trace_max_bytes);
}

int ws_traces_check(const struct ws_sim *sim, struct ws_err *err)
{
	int rc = trace_estimate(sim, TRACE_RATES, sim->outc.trace_rates,
				"output.trace_rates", err);
	if (!rc)
		rc = trace_estimate(sim, TRACE_QUEUES, sim->outc.trace_queues,
				    "output.trace_queues", err);
	if (!rc)
		rc = trace_estimate(sim, TRACE_UTIL, sim->outc.trace_util,
				    "output.trace_util", err);
	return rc;
}

void ws_observers_start(struct ws_sim *sim)
{
	ws_time at = sim->now + sim->outc.trace_start;
	if (sim->accel_period)
		ws_observe(sim, sim->now + sim->accel_period, accel_sample);
	if (sim->outc.trace_rates)
		ws_observe(sim, at, rates_sample);
	if (sim->outc.trace_queues)
		ws_observe(sim, at, queues_sample);
	if (sim->outc.trace_util)
		ws_observe(sim, at, util_sample);
	ws_ptrace_start(sim);
}

/* ---- the port filter ---------------------------------------------------------------- */

/* One item of a port list: NODE, NODE:PORT or FIRST-LAST. */
static int filter_item(struct ws_sim *sim, const char *tok, const char *key,
		       uint8_t *on, struct ws_err *err)
{
	uint64_t a = 0, b = 0, port = 0;
	char first[32], rest[32];
	bool has_port = false, range = false;
	size_t n = strcspn(tok, ":-");
	if (n >= sizeof first || strlen(tok + n) >= sizeof rest)
		goto bad;
	memcpy(first, tok, n);
	first[n] = '\0';
	snprintf(rest, sizeof rest, "%s", tok[n] ? tok + n + 1 : "");
	has_port = tok[n] == ':';
	range = tok[n] == '-';
	if (!ws_text_u64(first, &a) || ((has_port || range) && !ws_text_u64(rest, &b)))
		goto bad;
	if (has_port) {
		port = b;
		b = a;
	} else if (!range) {
		b = a;
	}
	if (a > b || b >= sim->fab.n_nodes)
		return ws_err_key(err, WS_EINVAL, key, "'%s': nodes 0..%u", tok,
				  sim->fab.n_nodes - 1);
	for (uint64_t v = a; v <= b; v++) {
		const struct ws_node *nd = &sim->nodes[v];
		if (has_port && port >= nd->n_ports)
			return ws_err_key(err, WS_EINVAL, key, "'%s': node %" PRIu64
					  " has ports 0..%u", tok, v, nd->n_ports - 1u);
		for (uint32_t k = 0; k < nd->n_ports; k++)
			if (!has_port || k == port)
				on[nd->first_port + k] = 1;
	}
	return WS_OK;
bad:
	return ws_err_key(err, WS_EINVAL, key, "'%s': expected NODE, NODE:PORT or "
			  "FIRST-LAST (node ids)", tok);
}

int ws_port_list_parse(struct ws_sim *sim, const char *spec, const char *key,
		       uint8_t *on, struct ws_err *err)
{
	char full[64];
	snprintf(full, sizeof full, "output.%s", key);
	char *copy = ws_arena_strdup(&sim->arena, spec), *save = NULL;
	for (char *t = strtok_r(copy, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		int rc = filter_item(sim, t, full, on, err);
		if (rc)
			return rc;
	}
	return WS_OK;
}

int ws_trace_prepare(struct ws_sim *sim, const struct ws_cfg *cfg, struct ws_err *err)
{
	int rc = ws_ptrace_prepare(sim, cfg, err);
	if (rc || (!sim->outc.trace_queues && !sim->outc.trace_util))
		return rc;
	sim->trace_port = ws_xcalloc(sim->fab.n_ports ? sim->fab.n_ports : 1, 1);
	const char *spec = sim->outc.trace_ports ? sim->outc.trace_ports : "";
	if (!spec[0]) {
		for (uint32_t i = 0; i < sim->fab.n_ports; i++)
			sim->trace_port[i] = !sim->ports[i].is_host;
		return WS_OK;
	}
	rc = ws_port_list_parse(sim, spec, "trace_ports", sim->trace_port, err);
	if (rc) {
		const struct ws_cfg_entry *e = ws_cfg_find(cfg, "output", "trace_ports");
		if (e)
			ws_err_locate(err, e->file, e->line);
	}
	return rc;
}

/* ---- queue distributions ------------------------------------------------------------ */

/*
 * A log-linear histogram of queue bytes: values under 16 exactly, larger
 * ones in 16 buckets per power of two, so a percentile read from it is the
 * lower end of a bucket 1/16 (6.25 %) wide.
 */
static unsigned qdist_bucket(uint64_t v)
{
	if (v < 16)
		return (unsigned)v;
	if (v >> 42)
		v = ((uint64_t)1 << 42) - 1;
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= 4 */
	return 16 + (e - 4) * 16 + (unsigned)((v >> (e - 4)) & 15);
}

static uint64_t qdist_low(unsigned b)
{
	if (b < 16)
		return b;
	unsigned e = (b - 16) / 16 + 4, sub = (b - 16) % 16;
	return ((uint64_t)16 + sub) << (e - 4);
}

static void qdist_add(uint32_t *h, uint64_t v)
{
	h[qdist_bucket(v)]++;
}

static uint64_t qdist_pct(const uint32_t *h, uint64_t n, double pct)
{
	uint64_t rank = (uint64_t)ceil(pct / 100 * (double)n), seen = 0;
	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < WS_QDIST_BUCKETS; b++) {
		seen += h[b];
		if (seen >= rank)
			return qdist_low(b);
	}
	return 0;
}

int ws_write_queue_dist(struct ws_sim *sim, const char *dir, struct ws_err *err)
{
	if (!sim->trace_qdist || !sim->trace_q_samples)
		return WS_OK;
	struct ws_outfile *o = ws_outfile_open(dir, "queue_dist.csv", err);
	if (!o)
		return WS_EIO;
	FILE *f = ws_outfile_stream(o);
	fputs("node,port,samples,busy_samples,p50_bytes,p90_bytes,p99_bytes,max_bytes\n", f);
	uint64_t n = sim->trace_q_samples;
	for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
		const uint32_t *h = sim->trace_qdist + (size_t)i * WS_QDIST_BUCKETS;
		if (!sim->trace_port[i])
			continue;
		const struct ws_port *p = &sim->ports[i];
		fprintf(f, "%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 "\n", p->node, p->local, n, n - h[0], qdist_pct(h, n, 50),
			qdist_pct(h, n, 90), qdist_pct(h, n, 99), p->max_q_bytes);
	}
	return ws_outfile_commit(o, err);
}

int ws_traces_commit(struct ws_sim *sim, struct ws_err *err)
{
	int rc = WS_OK;
	struct ws_outfile **o[TRACE_N] = { &sim->trace_rates, &sim->trace_queues,
					   &sim->trace_util };
	for (int k = 0; k < TRACE_N; k++) {
		if (!*o[k])
			continue;
		int r = ws_outfile_commit(*o[k], rc ? NULL : err);
		*o[k] = NULL;
		if (r && !rc)
			rc = r;
	}
	int r = ws_ptrace_commit(sim, rc ? NULL : err);
	return rc ? rc : r;
}

bool ws_traces_written(const struct ws_sim *sim, const char *name)
{
	for (int k = 0; k < TRACE_N; k++)
		if (!strcmp(name, trace_file[k]))
			return sim->trace_bytes[k] != 0;
	return ws_ptrace_written(sim, name);
}

void ws_observers_close(struct ws_sim *sim)
{
	ws_outfile_discard(sim->trace_rates);
	ws_outfile_discard(sim->trace_queues);
	ws_outfile_discard(sim->trace_util);
	sim->trace_rates = sim->trace_queues = sim->trace_util = NULL;
	free(sim->trace_last_q);
	free(sim->trace_last_tx);
	free(sim->trace_last_busy);
	free(sim->trace_port);
	free(sim->trace_qdist);
	sim->trace_last_q = sim->trace_last_tx = NULL;
	sim->trace_last_busy = sim->trace_port = NULL;
	sim->trace_qdist = NULL;
	ws_ptrace_close(sim);
}
