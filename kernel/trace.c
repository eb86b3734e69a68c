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

static FILE *open_trace(struct ws_sim *sim, const char *name, const char *header)
{
	char path[4200];
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_mkdir_p(sim->out_dir, &err)) {
		ws_fail(sim, &err);
		return NULL;
	}
	snprintf(path, sizeof path, "%s/%s", sim->out_dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		ws_err_at(&err, WS_EIO, path, 0, "cannot write the trace: %s",
			  strerror(errno));
		ws_fail(sim, &err);
		return NULL;
	}
	fputs(header, f);
	return f;
}

static void rates_sample(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)obj;
	(void)arg;
	bool more = observer_ran(sim);
	if (!sim->trace_rates) {
		sim->trace_rates = open_trace(sim, "rates.csv",
					      "time_ns,flow_id,rate_bps,window_bytes,"
					      "acked_bytes,inflight_bytes\n");
		if (!sim->trace_rates)
			return;
	}
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
		fprintf(sim->trace_rates, "%s,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			t, i, f->cc.rate, f->cc.window, f->cc.snd_una,
			f->cc.snd_nxt - f->cc.snd_una);
	}
	if (more || busy(sim))
		ws_observe(sim, sim->now + sim->outc.trace_rates, rates_sample);
}

static void queues_sample(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)obj;
	(void)arg;
	bool more = observer_ran(sim);
	if (!sim->trace_queues) {
		sim->trace_queues = open_trace(sim, "queues.csv",
					       "time_ns,node,port,queue_bytes,paused\n");
		if (!sim->trace_queues)
			return;
		sim->trace_last_q = ws_xcalloc(sim->fab.n_ports, sizeof *sim->trace_last_q);
	}
	char t[32];
	ws_fmt_ps_as_ns(t, sizeof t, sim->now);
	for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
		const struct ws_port *p = &sim->ports[i];
		if (p->is_host || (!p->q_bytes && !sim->trace_last_q[i]))
			continue;
		fprintf(sim->trace_queues, "%s,%u,%u,%" PRIu64 ",%u\n", t, p->node,
			p->local, p->q_bytes, p->paused);
		sim->trace_last_q[i] = p->q_bytes;
	}
	if (more || busy(sim))
		ws_observe(sim, sim->now + sim->outc.trace_queues, queues_sample);
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

void ws_observers_close(struct ws_sim *sim)
{
	if (sim->trace_rates)
		fclose(sim->trace_rates);
	if (sim->trace_queues)
		fclose(sim->trace_queues);
	sim->trace_rates = sim->trace_queues = NULL;
	free(sim->trace_last_q);
	sim->trace_last_q = NULL;
}
