/* SPDX-License-Identifier: MIT */
/*
 * The per-tier settings in effect, for summary.json's fabric.tiers: what a
 * researcher set with the topologies' link_rate_tierN / link_delay_tierN and
 * [switch] buffer_tierN / ecn_tierN, read back from the built fabric so that
 * it is what ran, not what was asked.  Links are grouped by ws_link_tier
 * (1: host to leaf, 2: leaf to tier 2, ...), switches by level; the ECN
 * thresholds of a level are listed per egress port rate, as switch.c
 * resolves them (ws_switch_ecn).
 */
#include <string.h>

#include "internal.h"

#define TIERS_MAX 16    /* levels reported; a deeper one joins the last */
#define TIER_RATES 8    /* distinct port rates listed per switch level */

struct link_tier {
	uint64_t links;
	uint64_t rate_min, rate_max;
	ws_time delay_min, delay_max;
};

struct switch_tier {
	uint64_t switches;
	uint64_t rates[TIER_RATES]; /* of its connected egress ports, ascending */
	unsigned n_rates;
};

static void add_rate(struct switch_tier *s, uint64_t rate)
{
	unsigned i = 0;
	while (i < s->n_rates && s->rates[i] < rate)
		i++;
	if ((i < s->n_rates && s->rates[i] == rate) || s->n_rates == TIER_RATES)
		return;
	memmove(&s->rates[i + 1], &s->rates[i], (s->n_rates - i) * sizeof s->rates[0]);
	s->rates[i] = rate;
	s->n_rates++;
}

/* One pass over the link facts (each link once, from its lower port). */
static void tiers_collect(const struct ws_sim *sim, struct link_tier *lt,
			  struct switch_tier *st)
{
	for (uint32_t i = 0; i < sim->fab.n_nodes; i++)
		if (sim->nodes[i].kind == WS_NODE_SWITCH)
			st[WS_MIN(sim->nodes[i].level, TIERS_MAX - 1)].switches++;
	for (uint32_t g = 0; g < sim->fab.n_ports; g++) {
		const struct ws_port *p = &sim->links[g];
		if (p->peer == WS_NONE)
			continue;
		const struct ws_node *n = &sim->nodes[p->node];
		if (n->kind == WS_NODE_SWITCH)
			add_rate(&st[WS_MIN(n->level, TIERS_MAX - 1)], p->rate);
		if (p->peer < g)
			continue;
		unsigned t = WS_MIN(WS_MAX(n->level, sim->nodes[sim->links[p->peer].node].level),
				    TIERS_MAX - 1);
		struct link_tier *l = &lt[t];
		if (!l->links++) {
			l->rate_min = l->rate_max = p->rate;
			l->delay_min = l->delay_max = p->delay;
		}
		l->rate_min = WS_MIN(l->rate_min, p->rate);
		l->rate_max = WS_MAX(l->rate_max, p->rate);
		l->delay_min = WS_MIN(l->delay_min, p->delay);
		l->delay_max = WS_MAX(l->delay_max, p->delay);
	}
}

static void json_link_tiers(const struct link_tier *lt, struct ws_json *j)
{
	ws_json_begin_array(j, "links");
	for (unsigned t = 0; t < TIERS_MAX; t++) {
		const struct link_tier *l = &lt[t];
		if (!l->links)
			continue;
		ws_json_begin(j, NULL);
		ws_json_u64(j, "tier", t);
		ws_json_u64(j, "links", l->links);
		ws_json_u64(j, "rate_min_bps", l->rate_min);
		ws_json_u64(j, "rate_max_bps", l->rate_max);
		ws_json_u64(j, "delay_min_ps", (uint64_t)l->delay_min);
		ws_json_u64(j, "delay_max_ps", (uint64_t)l->delay_max);
		ws_json_end(j);
	}
	ws_json_end_array(j);
}

static void json_switch_tiers(const struct ws_sim *sim, const struct switch_tier *st,
			      struct ws_json *j)
{
	ws_json_begin_array(j, "switches");
	for (unsigned t = 0; t < TIERS_MAX; t++) {
		const struct switch_tier *s = &st[t];
		if (!s->switches)
			continue;
		ws_json_begin(j, NULL);
		ws_json_u64(j, "level", t);
		ws_json_u64(j, "switches", s->switches);
		ws_json_u64(j, "buffer_bytes", ws_switch_buffer(&sim->swc, t));
		ws_json_begin_array(j, "ecn");
		for (unsigned r = 0; r < s->n_rates; r++) {
			struct ws_ecn_entry e;
			ws_switch_ecn(sim, t, s->rates[r], &e);
			ws_json_begin(j, NULL);
			ws_json_u64(j, "rate_bps", s->rates[r]);
			ws_json_u64(j, "kmin_bytes", WS_MIN(e.kmin, UINT32_MAX));
			ws_json_u64(j, "kmax_bytes", WS_MIN(e.kmax, UINT32_MAX));
			ws_json_f64(j, "pmax", e.pmax);
			ws_json_end(j);
		}
		ws_json_end_array(j);
		ws_json_end(j);
	}
	ws_json_end_array(j);
}

void ws_json_tiers(const struct ws_sim *sim, struct ws_json *j)
{
	struct link_tier lt[TIERS_MAX];
	struct switch_tier st[TIERS_MAX];
	memset(lt, 0, sizeof lt);
	memset(st, 0, sizeof st);
	tiers_collect(sim, lt, st);
	ws_json_begin(j, "tiers");
	json_link_tiers(lt, j);
	json_switch_tiers(sim, st, j);
	ws_json_end(j);
}
