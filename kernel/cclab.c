/* SPDX-License-Identifier: MIT */
/*
 * The CC lab: one flow and its congestion-control plugin without a network.
 * Tests (and plugin authors) feed it ACKs, CNPs and sent bytes, advance the
 * clock so the plugin's timers fire, and read the rate and window it set.
 * Feedback reaches the plugin through the same kernel code as in a full
 * simulation (ws_cc_deliver_ack), and its parameters are parsed and
 * checked by the same tables.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ws_cc_lab {
	struct ws_sim *sim;
	struct ws_flow *flow;
	struct ws_cfg *cfg;
};

int ws_cc_lab_new(struct ws_cc_lab **out, const struct ws_cc_lab_spec *user,
		  struct ws_err *err)
{
	*out = NULL;
	struct ws_cc_lab_spec copy = { WS_INIT_SIZE(struct ws_cc_lab_spec) };
	int src = ws_sized_in(&copy, sizeof copy, user, "ws_cc_lab_spec", err);
	if (src)
		return src;
	const struct ws_cc_lab_spec *spec = &copy;
	if (!spec->cc || !spec->line_rate || !spec->base_rtt)
		return ws_err_set(err, WS_EINVAL,
				  "a CC lab needs a cc name, a line rate and a base RTT");
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .plugin_path = spec->plugin_path };
	struct ws_cc_lab *lab = ws_xcalloc(1, sizeof *lab);
	lab->sim = ws_sim_alloc(&opts);
	struct ws_sim *sim = lab->sim;
	sim->cfg_path = ws_arena_strdup(&sim->arena, "<cc lab>");
	sim->cfg_dir = ws_arena_strdup(&sim->arena, ".");
	int rc = ws_cfg_parse_string(&lab->cfg, "", "<cc lab>", ".", err);
	char kv[512];
	snprintf(kv, sizeof kv, "cc.name=%s", spec->cc);
	if (!rc)
		rc = ws_cfg_set(lab->cfg, kv, err);
	for (size_t i = 0; !rc && spec->params && spec->params[i]; i++) {
		snprintf(kv, sizeof kv, "cc.%s", spec->params[i]);
		rc = ws_cfg_set(lab->cfg, kv, err);
	}
	if (!rc)
		rc = ws_search_init(&sim->search, sim->opts.plugin_path, err);
	if (!rc)
		rc = ws_sim_load_plugin(sim, lab->cfg, WS_KIND_CC, NULL, err);
	if (rc) {
		ws_cc_lab_free(lab);
		return rc;
	}
	const struct ws_cc_ops *ops = WS_CC_OPS(sim);
	sim->cc_needs = ops->needs;
	struct ws_flow *f = ws_xcalloc(1, sizeof *f + ops->flow_state_size);
	lab->flow = f;
	f->cc.sim = sim;
	f->cc.size = spec->bytes ? spec->bytes : UINT64_MAX / 2;
	f->cc.mtu = spec->mtu ? spec->mtu : 1000;
	f->cc.hops = spec->hops ? spec->hops : 1;
	f->cc.line_rate = spec->line_rate;
	f->cc.path_rate = spec->path_rate ? WS_MIN(spec->path_rate, spec->line_rate)
					  : spec->line_rate;
	f->cc.base_rtt = spec->base_rtt;
	f->cc.max_base_rtt = WS_MAX(spec->max_base_rtt, spec->base_rtt);
	f->cc.bdp = ws_bytes_in(spec->base_rtt, f->cc.path_rate);
	/* the fabric's largest BDP: its largest RTT at the lab's line rate */
	f->cc.max_bdp = ws_bytes_in(f->cc.max_base_rtt, spec->line_rate);
	f->cc.conf = sim->slot[WS_KIND_CC].inst.conf;
	f->cc.inst = &sim->slot[WS_KIND_CC].inst;
	f->cc.state = ops->flow_state_size ? (void *)(f + 1) : NULL;
	f->cc.rate = spec->line_rate;
	f->end = WS_TIME_NEVER;
	f->last_cnp = WS_TIME_NEVER;
	f->started = 1;
	ops->init(&f->cc, 0);
	*out = lab;
	return WS_OK;
}

struct ws_cc_flow *ws_cc_lab_flow(struct ws_cc_lab *lab)
{
	return &lab->flow->cc;
}

ws_time ws_cc_lab_now(const struct ws_cc_lab *lab)
{
	return lab->sim->now;
}

void ws_cc_lab_advance(struct ws_cc_lab *lab, ws_time t)
{
	struct ws_sim *sim = lab->sim;
	struct ws_fired ev;
	while (ws_eventq_pop(&sim->q, t, &ev)) {
		sim->now = ev.when;
		ev.fn(sim, ev.obj, ev.arg);
		sim->events++;
	}
	if (t > sim->now)
		sim->now = t;
}

void ws_cc_lab_ack(struct ws_cc_lab *lab, const struct ws_cc_ack *ack)
{
	struct ws_cc_ack a = *ack;
	ws_cc_deliver_ack(lab->sim, lab->flow, &a);
}

void ws_cc_lab_cnp(struct ws_cc_lab *lab)
{
	ws_cc_deliver_cnp(lab->sim, lab->flow);
}

void ws_cc_lab_sent(struct ws_cc_lab *lab, uint32_t bytes)
{
	const struct ws_cc_ops *ops = WS_CC_OPS(lab->sim);
	lab->flow->cc.snd_nxt += bytes;
	if (ops->on_send)
		ops->on_send(&lab->flow->cc, bytes, lab->sim->now);
}

uint64_t ws_cc_lab_events(const struct ws_cc_lab *lab)
{
	return lab->sim->events;
}

void ws_cc_lab_free(struct ws_cc_lab *lab)
{
	if (!lab)
		return;
	if (lab->flow) {
		const struct ws_cc_ops *ops = WS_CC_OPS(lab->sim);
		if (ops->fini)
			ops->fini(&lab->flow->cc);
		free(lab->flow);
	}
	ws_sim_free(lab->sim);
	ws_cfg_free(lab->cfg);
	free(lab);
}
