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
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

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

enum { TRACE_RATES = 0, TRACE_QUEUES = 1 };
static const char *const trace_file[2] = { "rates.csv", "queues.csv" };

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
 * stops the run with the reason (and the rate the trace grows at). */
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
		if (!f->started)
			continue;
		if (f->end != WS_TIME_NEVER || f->aborted) {
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
	}
	FILE *out = ws_outfile_stream(sim->trace_queues);
	char t[32];
	ws_fmt_ps_as_ns(t, sizeof t, sim->now);
	for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
		const struct ws_port *p = &sim->ports[i];
		if (p->is_host || (!p->q_bytes && !sim->trace_last_q[i]))
			continue;
		int w = fprintf(out, "%s,%u,%u,%" PRIu64 ",%u\n", t, p->node,
				p->local, p->q_bytes, p->paused);
		sim->trace_bytes[TRACE_QUEUES] += w > 0 ? (uint64_t)w : 0;
		sim->trace_last_q[i] = p->q_bytes;
	}
	trace_check(sim, TRACE_QUEUES, sim->trace_queues, sim->outc.trace_queues);
	if (!sim->failed && (more || busy(sim)))
		ws_observe(sim, sim->now + sim->outc.trace_queues, queues_sample);
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
	return rc;
}

void ws_observers_start(struct ws_sim *sim)
{
	if (sim->accel_period)
		ws_observe(sim, sim->now + sim->accel_period, accel_sample);
	if (sim->outc.trace_rates)
		ws_observe(sim, sim->now, rates_sample);
	if (sim->outc.trace_queues)
		ws_observe(sim, sim->now, queues_sample);
}

int ws_traces_commit(struct ws_sim *sim, struct ws_err *err)
{
	int rc = WS_OK;
	struct ws_outfile **o[2] = { &sim->trace_rates, &sim->trace_queues };
	for (int k = 0; k < 2; k++) {
		if (!*o[k])
			continue;
		int r = ws_outfile_commit(*o[k], rc ? NULL : err);
		*o[k] = NULL;
		if (r && !rc)
			rc = r;
	}
	return rc;
}

bool ws_traces_written(const struct ws_sim *sim, const char *name)
{
	for (int k = 0; k < 2; k++)
		if (!strcmp(name, trace_file[k]))
			return sim->trace_bytes[k] != 0;
	return false;
}

void ws_observers_close(struct ws_sim *sim)
{
	ws_outfile_discard(sim->trace_rates);
	ws_outfile_discard(sim->trace_queues);
	sim->trace_rates = sim->trace_queues = NULL;
	free(sim->trace_last_q);
	sim->trace_last_q = NULL;
}
