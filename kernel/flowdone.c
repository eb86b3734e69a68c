/* SPDX-License-Identifier: MIT */
/*
 * Completed flows, retired in id order so that memory follows the flows
 * alive rather than every flow ever created (docs/outputs.md, "Flow
 * records").
 *
 * A watermark `wm` moves over the flow ids: when every flow below id i has
 * completed, flow i's fct.csv row goes to a spool (a temporary file, when
 * fct.csv is written) and its slowdown and size to a compact array, both
 * in id order; its record is then freed if the accelerator modelled it
 * (an adopted flow never had a packet, so nothing can name it later).
 * fct.csv is the spool followed by the completed flows above the
 * watermark, the same bytes as writing every record at the end; the FCT
 * statistics read the array then the records, in the same order.
 *
 * On with [output] flow_records = live (the default, all, keeps every
 * record to the end, so ws_flow_get answers for every flow after the run);
 * off in the partitioned engine (no accelerator runs there, so nothing
 * would be released).  flows.csv and fct.txt read every record at the end:
 * the configuration refuses them with live.
 */
#define _GNU_SOURCE /* fseeko */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* [output] flow_records = live (refused with flows.csv and fct.txt, which
 * read every record at the end) */
static bool done_wanted(const struct ws_sim *sim)
{
	return sim->outc.flow_records == WS_RECORDS_LIVE && !sim->par && !sim->main &&
	       !sim->outc.flows && !sim->outc.fct_txt;
}

void ws_flows_done_created(struct ws_sim *sim)
{
	struct ws_flows_done *d = &sim->done;
	if (++d->live > d->peak_live)
		d->peak_live = d->live;
}

static void stat_push(struct ws_flows_done *d, const struct ws_flow *f)
{
	if (d->n_stat == d->cap_stat) {
		d->cap_stat = d->cap_stat ? 2 * d->cap_stat : 4096;
		d->stat = ws_xrealloc(d->stat, d->cap_stat, sizeof *d->stat);
	}
	d->stat[d->n_stat++] = (struct ws_done_stat){
		.slowdown = (double)(f->end - f->start) / (double)f->ideal_fct,
		.bytes = f->cc.size,
	};
}

/* Flow `id` (completed, every lower id retired) leaves the records. */
static void retire(struct ws_sim *sim, uint32_t id)
{
	struct ws_flows_done *d = &sim->done;
	struct ws_flow *f = sim->flows[id];
	if (d->spool)
		ws_fct_row(d->spool, id, f);
	if (f->ideal_fct)
		stat_push(d, f);
	/* a flow completed inside its own start is still on the stack */
	if (!f->adopted || f->in_start)
		return;
	ws_sr_flow_free(f);
	ws_flow_record_release(sim, f);
	sim->flows[id] = NULL;
	d->live--;
	d->released++;
}

/* Decided at the first completion: the outputs and the engine are set. */
static bool decide(struct ws_sim *sim)
{
	struct ws_flows_done *d = &sim->done;
	if (d->decided)
		return d->on;
	d->decided = true;
	d->on = done_wanted(sim);
	if (d->on && sim->outc.fct) {
		d->spool = tmpfile();
		if (!d->spool) {
			ws_warn(sim, "no temporary file for fct.csv's rows: flow "
				"records are kept to the end");
			d->on = false;
		}
	}
	return d->on;
}

void ws_flows_done_advance(struct ws_sim *sim)
{
	if (sim->main)
		sim = sim->main;
	if (!decide(sim))
		return;
	struct ws_flows_done *d = &sim->done;
	while (d->wm < sim->n_flows && sim->flows[d->wm]->end != WS_TIME_NEVER)
		retire(sim, d->wm++);
}

int ws_flows_done_copy_rows(struct ws_sim *sim, FILE *out)
{
	FILE *s = sim->done.spool;
	if (!s)
		return 0;
	if (fflush(s) || fseeko(s, 0, SEEK_SET))
		return -1;
	char buf[1 << 16];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, s)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
	int bad = ferror(s) || ferror(out);
	/* later rows go after these */
	if (fseeko(s, 0, SEEK_END))
		bad = 1;
	return bad ? -1 : 0;
}

void ws_flows_done_each(const struct ws_sim *sim,
			void (*fn)(void *arg, uint64_t bytes, double slowdown),
			void *arg)
{
	const struct ws_flows_done *d = &sim->done;
	for (size_t i = 0; i < d->n_stat; i++)
		fn(arg, d->stat[i].bytes, d->stat[i].slowdown);
	for (uint32_t i = d->wm; i < sim->n_flows; i++) {
		const struct ws_flow *f = sim->flows[i];
		if (f->end == WS_TIME_NEVER || f->ideal_fct == 0)
			continue;
		fn(arg, f->cc.size, (double)(f->end - f->start) / (double)f->ideal_fct);
	}
}

void ws_flows_done_free(struct ws_sim *sim)
{
	struct ws_flows_done *d = &sim->done;
	if (d->spool)
		fclose(d->spool);
	free(d->stat);
	free(d->by_size);
	memset(d, 0, sizeof *d);
}
