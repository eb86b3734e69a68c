/* SPDX-License-Identifier: MIT */
/*
 * A simulation: configuration -> plugins -> fabric -> run loop -> outputs.
 *
 * ws_sim_new() does everything that can fail because of the input (unknown
 * sections and keys, bad values, plugins that will not load, a topology that
 * cannot be built or routed) before anything runs; ws_sim_run() executes
 * events in (time, sequence) order until the queue drains, the stop time,
 * the event limit, or a component calls ws_fail().
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "internal.h"


ws_time ws_now(const struct ws_sim *sim)
{
	return ws_here((struct ws_sim *)sim)->now;
}

uint64_t ws_sim_seed(const struct ws_sim *sim)
{
	return sim->seed;
}

void ws_warn(struct ws_sim *sim, const char *fmt, ...)
{
	sim = ws_here(sim);
	sim->warnings++;
	if (!sim->opts.on_warning && !sim->warnlog)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (sim->par) {
		/* partitions warn from several threads (in no set order) */
		ws_part_warn_lock(sim, true);
		if (sim->opts.on_warning)
			sim->opts.on_warning(sim->opts.ctx, msg);
		ws_part_warn_lock(sim, false);
		return;
	}
	struct ws_warnlog *w = sim->warnlog;
	if (w) {
		/* a shared build's warning: its other users are told it too */
		if (w->n == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 8;
			w->msg = ws_xrealloc(w->msg, w->cap, sizeof *w->msg);
		}
		w->msg[w->n++] = ws_xstrdup(msg);
	}
	if (sim->opts.on_warning)
		sim->opts.on_warning(sim->opts.ctx, msg);
}

void ws_fail(struct ws_sim *sim, const struct ws_err *err)
{
	sim = ws_here(sim);
	if (sim->failed)
		return;
	sim->failed = true;
	sim->stop = true;
	sim->fail_err = *err;
	if (!sim->fail_err.code)
		sim->fail_err.code = WS_ESTATE;
}

bool ws_failed(const struct ws_sim *sim)
{
	return ws_here((struct ws_sim *)sim)->failed || sim->failed;
}

int ws_resolve_path(const struct ws_sim *sim, const char *path, char *out,
		    size_t size, struct ws_err *err)
{
	int n;
	if (path[0] == '/' || !sim->cfg_dir[0])
		n = snprintf(out, size, "%s", path);
	else
		n = snprintf(out, size, "%s/%s", sim->cfg_dir, path);
	if (n < 0 || (size_t)n >= size)
		return ws_err_set(err, WS_EINVAL, "path too long: %s", path);
	struct ws_inputs *in = sim->inputs;
	for (size_t i = 0; in && i < in->n; i++)
		if (!strcmp(in->path[i], out))
			return WS_OK;
	if (in) {
		if (in->n == in->cap) {
			in->cap = in->cap ? 2 * in->cap : 8;
			in->path = ws_xrealloc(in->path, in->cap, sizeof *in->path);
		}
		in->path[in->n++] = ws_xstrdup(out);
	}
	return WS_OK;
}

const char *ws_sim_input_file(const struct ws_sim *sim, size_t i)
{
	return sim->inputs && i < sim->inputs->n ? sim->inputs->path[i] : NULL;
}

struct ws_evh ws_schedule(struct ws_sim *sim, ws_time when, ws_event_fn fn,
			  void *obj, uint64_t arg)
{
	sim = ws_here(sim);
	WS_ASSERT(when >= sim->now, "event scheduled at %llu, before now %llu",
		  (unsigned long long)when, (unsigned long long)sim->now);
	return ws_eventq_push(&sim->q, NULL, when, fn, obj, arg);
}

struct ws_evh ws_schedule_owned(struct ws_sim *sim, struct ws_owner *owner,
				ws_time when, ws_event_fn fn, void *obj,
				uint64_t arg)
{
	sim = ws_here(sim);
	WS_ASSERT(when >= sim->now, "event scheduled at %llu, before now %llu",
		  (unsigned long long)when, (unsigned long long)sim->now);
	return ws_eventq_push(&sim->q, owner, when, fn, obj, arg);
}

bool ws_cancel(struct ws_sim *sim, struct ws_evh h)
{
	return ws_eventq_cancel(&ws_here(sim)->q, h);
}

bool ws_pending(const struct ws_sim *sim, struct ws_evh h)
{
	return ws_eventq_pending(&ws_here((struct ws_sim *)sim)->q, h);
}

ws_time ws_event_time(const struct ws_sim *sim, struct ws_evh h)
{
	return ws_pending(sim, h) ? h.ev->when : WS_TIME_NEVER;
}

uint64_t ws_pending_events(const struct ws_sim *sim)
{
	return sim->par ? ws_part_pending(sim->main ? sim->main : sim) : sim->q.live;
}

const char *ws_sim_plugin_name(const struct ws_sim *sim, enum ws_kind kind)
{
	if (kind < WS_KIND_TOPO || kind > WS_KIND_WORKLOAD ||
	    !sim->slot[kind].present)
		return "";
	return sim->slot[kind].ld.desc->name;
}

uint32_t ws_cc_needs(const struct ws_sim *sim)
{
	return sim->slot[WS_KIND_CC].present ? WS_CC_OPS(sim)->needs : 0;
}

double ws_cc_utilization(const struct ws_sim *sim)
{
	if (!sim->slot[WS_KIND_CC].present || !WS_CC_OPS(sim)->utilization)
		return 1.0;
	double u = WS_CC_OPS(sim)->utilization(sim->slot[WS_KIND_CC].inst.conf);
	return u > 0 && u < 1 ? u : 1.0;
}

static uint64_t digest_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t digest_str(uint64_t h, const char *s)
{
	for (const char *c = s; *c; c++)
		h = digest_mix(h, (unsigned char)*c);
	return h;
}

uint64_t ws_digest_params(uint64_t h, const struct ws_param *params, const void *conf,
			  const char *only)
{
	for (const struct ws_param *q = params; q && q->key; q++) {
		if (only && strcmp(q->key, only))
			continue;
		char buf[256];
		ws_param_format(q, (const char *)conf + q->offset, buf, sizeof buf);
		h = digest_str(digest_str(h, q->key), buf);
	}
	return h;
}

uint64_t ws_sim_plugin_digest(const struct ws_sim *sim, enum ws_kind kind,
			      uint64_t seed)
{
	uint64_t h = digest_str(seed, ws_sim_plugin_name(sim, kind));
	const struct ws_inst *in = ws_sim_instance(sim, kind);
	if (!in || !in->plugin->params || !in->conf)
		return h;
	return ws_digest_params(h, in->plugin->params, in->conf, NULL);
}

const struct ws_inst *ws_sim_instance(const struct ws_sim *sim,
				      enum ws_kind kind)
{
	if (kind < WS_KIND_TOPO || kind > WS_KIND_WORKLOAD ||
	    !sim->slot[kind].present)
		return NULL;
	return &sim->slot[kind].inst;
}

/* ---- building ---------------------------------------------------------------- */

/* Every section an ini may have: the kernel's, then one per plugin kind. */
static size_t section_names(const char **names, size_t max)
{
	size_t n = 0;
	for (const struct ws_section_info *k; (k = ws_kernel_section(n)) && n < max;)
		names[n++] = k->name;
	for (int kind = WS_KIND_TOPO; kind <= WS_KIND_WORKLOAD && n < max; kind++)
		names[n++] = ws_kind_name(kind);
	return n;
}

static int unknown_section(const char *name, const char *file, int line,
			   struct ws_err *err)
{
	const char *names[16];
	const size_t n = section_names(names, WS_ARRAY_LEN(names));
	struct ws_param tbl[WS_ARRAY_LEN(names) + 1];
	memset(tbl, 0, sizeof tbl);
	char list[256] = "";
	size_t w = 0;
	for (size_t k = 0; k < n; k++) {
		if (strcmp(name, names[k]) == 0)
			return WS_OK;
		tbl[k].key = names[k];
		w += (size_t)snprintf(list + w, w < sizeof list ? sizeof list - w : 0,
				      "%s%s", k == 0 ? "" : k + 1 == n ? " or " : ", ",
				      names[k]);
	}
	const char *near = ws_param_nearest(tbl, name);
	char hint[96] = "";
	if (near)
		snprintf(hint, sizeof hint, "; did you mean [%s]?", near);
	return ws_err_at(err, WS_EINVAL, file, line,
			 "unknown section [%s] (expected %s)%s", name, list, hint);
}

static int check_sections(const struct ws_cfg *cfg, struct ws_err *err)
{
	for (size_t i = 0; i < cfg->n_sections; i++) {
		const struct ws_cfg_section *s = &cfg->sections[i];
		int rc = unknown_section(s->name, s->file, s->line, err);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < cfg->n; i++) {
		const struct ws_cfg_entry *e = &cfg->e[i];
		int rc = unknown_section(e->section, e->file, e->line, err);
		if (rc)
			return rc;
	}
	return WS_OK;
}

/* Give an error from a plugin the location of the key it names. */
static void locate(const struct ws_cfg *cfg, const char *section,
		   struct ws_err *err)
{
	if (!err || err->file[0])
		return;
	const struct ws_cfg_entry *e = NULL;
	if (err->key[0] && !strchr(err->key, '.')) {
		/* a plugin names its own key; errors say "section.key" */
		char key[64];
		snprintf(key, sizeof key, "%.63s", err->key);
		e = ws_cfg_find(cfg, section, key);
		snprintf(err->key, sizeof err->key, "%.31s.%.63s", section, key);
	}
	if (!e)
		e = ws_cfg_find(cfg, section, "name");
	if (e) {
		snprintf(err->file, sizeof err->file, "%s", e->file);
		err->line = e->line;
	} else {
		snprintf(err->file, sizeof err->file, "%s", cfg->path);
	}
}

/* The error just set (ws_err_key) concerns a key of `section`: point it
 * at that key's line. */
static int located(const struct ws_cfg *cfg, const char *section,
		   struct ws_err *err)
{
	if (!err)
		return WS_EINVAL;
	locate(cfg, section, err);
	return err->code;
}

int ws_sim_load_plugin(struct ws_sim *sim, const struct ws_cfg *cfg,
		       enum ws_kind kind, const char *def, struct ws_err *err)
{
	const char *section = ws_kind_name(kind);
	struct ws_slot *slot = &sim->slot[kind];
	const struct ws_cfg_entry *e = ws_cfg_find(cfg, section, "name");
	const char *name = e ? e->value : def;
	if (!name) {
		/* a section without its name line, or none at all */
		for (size_t i = 0; i < cfg->n; i++) {
			const struct ws_cfg_entry *k = &cfg->e[i];
			if (strcmp(k->section, section) != 0)
				continue;
			bool cased = strcasecmp(k->key, "name") == 0;
			return ws_err_at(err, WS_EINVAL, k->file, k->line,
					 "[%s] has no 'name = <%s plugin>' line%s%s%s",
					 section, ws_kind_name(kind),
					 cased ? " (keys are case-sensitive: write 'name', not '" : "",
					 cased ? k->key : "", cased ? "')" : "");
		}
		return ws_err_at(err, WS_EINVAL, cfg->path, 0,
				 "missing [%s] section with 'name = <%s plugin>' "
				 "('warpsim plugins' lists them)",
				 section, ws_kind_name(kind));
	}
	int rc = ws_plugin_load(&sim->search, kind, name, &slot->ld, err);
	if (rc) {
		if (e && err && !err->file[0]) {
			snprintf(err->file, sizeof err->file, "%s", e->file);
			err->line = e->line;
		} else if (e && err && strcmp(err->file, "built in") != 0 &&
			   rc == WS_ENOENT) {
			snprintf(err->file, sizeof err->file, "%s", e->file);
			err->line = e->line;
		}
		return rc;
	}
	slot->present = true;
	const struct ws_plugin *d = slot->ld.desc;
	ws_plugin_ops_copy(d, slot->ops, sizeof slot->ops);
	slot->inst.plugin = d;
	slot->inst.sim = sim;
	void *conf = d->conf_size ? ws_arena_alloc(&sim->arena, d->conf_size) : NULL;
	if (conf)
		memset(conf, 0, d->conf_size);
	slot->inst.conf = conf;
	if (d->state_size) {
		slot->inst.state = ws_arena_alloc(&sim->arena, d->state_size);
		memset(slot->inst.state, 0, d->state_size);
	}
	char owner[160];
	snprintf(owner, sizeof owner, "%s plugin '%s'", ws_kind_name(kind), d->name);
	rc = ws_apply_params(sim, cfg, section, d->params, conf, owner, "name", err);
	if (rc)
		return rc;
	if (d->validate) {
		ws_err_clear(err);
		rc = d->validate(conf, err);
		if (rc) {
			ws_err_prefix(err, "[%s] %s: ", section, d->name);
			locate(cfg, section, err);
			return rc ? rc : WS_EINVAL;
		}
	}
	if (d->init) {
		ws_err_clear(err);
		rc = d->init(&slot->inst, err);
		if (rc) {
			locate(cfg, section, err);
			return rc;
		}
	}
	return WS_OK;
}

/* [sim] threads and partitions: a whole number or auto (0). */
static int parse_count(const struct ws_cfg *cfg, const char *key, const char *text,
		       uint32_t max, uint32_t *out, struct ws_err *err)
{
	uint64_t v;
	if (!text || !text[0] || !strcmp(text, "auto")) {
		*out = 0;
		return WS_OK;
	}
	if (!ws_text_u64(text, &v) || v < 1 || v > max) {
		ws_err_key(err, WS_EINVAL, key, "[sim] %s = '%s': expected a whole "
			   "number from 1 to %u, or auto", key, text, max);
		return located(cfg, "sim", err);
	}
	*out = (uint32_t)v;
	return WS_OK;
}

/* One experiment on several threads (part.c): threads = 1 keeps the
 * sequential engine unless partitions is set; more threads partition the
 * fabric (auto) unless partitions = 1 says otherwise. */
static int parse_parallel(struct ws_sim *sim, const struct ws_cfg *cfg,
			  struct ws_err *err)
{
	struct ws_sim_conf *c = &sim->simc;
	int rc = parse_count(cfg, "threads", c->threads, 1024, &c->n_threads, err);
	if (!rc)
		rc = parse_count(cfg, "partitions", c->partitions, 4096, &c->n_parts, err);
	if (rc)
		return rc;
	bool parts_set = c->partitions && c->partitions[0];
	/* several MPI ranks run one experiment's partitions (ranks.c) */
	const struct ws_comm *tr = sim->opts.comm;
	bool ranks = tr && tr->ranks > 1;
	if (!parts_set)
		c->n_parts = c->n_threads == 1 && !ranks ? 1 : 0;
	return WS_OK;
}

static int apply_kernel(struct ws_sim *sim, const struct ws_cfg *cfg,
			struct ws_err *err)
{
	const struct ws_section_info *k;
	for (size_t i = 0; (k = ws_kernel_section(i)); i++) {
		char owner[64];
		snprintf(owner, sizeof owner, "the kernel section [%s]", k->name);
		int rc = ws_apply_params(sim, cfg, k->name, k->params,
					 ws_kernel_section_conf(sim, i), owner, NULL, err);
		if (rc)
			return rc;
	}
	ws_ref_resolve(sim);
	int prc = parse_parallel(sim, cfg, err);
	if (prc)
		return prc;
	const struct ws_nic_conf *n = &sim->nicc;
	if (n->header >= n->mtu) {
		ws_err_key(err, WS_EINVAL, "header",
			   "[nic] header (%llu B) must be smaller than mtu (%llu B)",
			   (unsigned long long)n->header, (unsigned long long)n->mtu);
		return located(cfg, "nic", err);
	}
	const struct ws_output_conf *o = &sim->outc;
	if (o->flow_records == WS_RECORDS_LIVE && (o->flows || o->fct_txt)) {
		ws_err_key(err, WS_EINVAL, "flow_records",
			   "[output] flow_records = live frees completed flows' records, "
			   "but %s lists every flow at the end: use flow_records = all",
			   o->flows ? "flows = true (flows.csv)" : "fct_txt = true (fct.txt)");
		return located(cfg, "output", err);
	}
	const struct ws_switch_conf *s = &sim->swc;
	if (s->ecn_kmin > s->ecn_kmax) {
		ws_err_key(err, WS_EINVAL, "ecn_kmin",
			   "[switch] ecn_kmin (%llu B) is above ecn_kmax (%llu B)",
			   (unsigned long long)s->ecn_kmin, (unsigned long long)s->ecn_kmax);
		return located(cfg, "switch", err);
	}
	return WS_OK;
}

static void set_names(struct ws_sim *sim, const struct ws_cfg *cfg)
{
	sim->cfg_path = ws_arena_strdup(&sim->arena, cfg->path);
	sim->cfg_dir = ws_arena_strdup(&sim->arena, cfg->dir ? cfg->dir : ".");
	const char *base = strrchr(cfg->path, '/');
	base = base ? base + 1 : cfg->path;
	char *name = ws_arena_strdup(&sim->arena, base[0] ? base : "run");
	size_t l = strlen(name);
	if (l > 4 && strcmp(name + l - 4, ".ini") == 0)
		name[l - 4] = '\0';
	for (char *c = name; *c; c++)
		if (*c == '<' || *c == '>')
			*c = '_';
	sim->cfg_name = name;
}

/* A plugin refused what its parameters ask for (ws_mem_check): name the
 * keys the configuration set in its section, the ones to make smaller. */
static void name_set_keys(const struct ws_cfg *cfg, const char *section,
			  struct ws_err *err)
{
	if (!err || err->code != WS_ENOMEM)
		return;
	size_t len = strlen(err->msg);
	const char *sep = "; set in [";
	for (size_t i = 0; i < cfg->n && len < sizeof err->msg; i++) {
		const struct ws_cfg_entry *e = &cfg->e[i];
		if (strcmp(e->section, section) || !strcmp(e->key, "name"))
			continue;
		int w = snprintf(err->msg + len, sizeof err->msg - len, "%s%s%s %s = %s",
				 sep, *sep == ';' ? section : "", *sep == ';' ? "]:" : "",
				 e->key, e->value);
		if (w < 0)
			break;
		len += (size_t)w;
		sep = ",";
	}
}

static unsigned log2_floor(uint64_t x)
{
	return x ? 63u - (unsigned)__builtin_clzll(x) : 0;
}

/*
 * The event queue's wheel from the fabric: a bucket about 1/8 of a full
 * packet's serialization on the fastest link (measured: 1/32 and 1/2 were
 * slower on the k=12 permutation and the accelerated GPT-175B iteration),
 * a horizon covering four times the longest link's delay plus a packet on
 * the slowest link, and at least 16 us (pacing gaps): what lies beyond goes
 * to the heap.
 */
static void shape_wheel(struct ws_sim *sim)
{
	uint64_t max_rate = sim->facts.max_rate, min_rate = sim->facts.min_rate;
	ws_time max_delay = sim->facts.max_delay;
	if (!max_rate)
		return;
	ws_time ser_fast = ws_tx_time(sim->nicc.mtu, max_rate);
	ws_time horizon = 4 * (max_delay + ws_tx_time(sim->nicc.mtu, min_rate));
	if (horizon < 16 * WS_US)
		horizon = 16 * WS_US;
	unsigned res = log2_floor(ser_fast / 8);
	res = WS_MAX(WS_MIN(res, WS_WHEEL_RES_MAX), WS_WHEEL_RES_MIN);
	unsigned bits = log2_floor((horizon >> res) - 1) + 1;
	ws_eventq_shape(&sim->q, res, bits);
}

/* The routing rule accepts the fabric's shape and prepares for it. */
static int prepare_routing(struct ws_sim *sim, const struct ws_cfg *cfg,
			   struct ws_err *err)
{
	const struct ws_slot *topo = &sim->slot[WS_KIND_TOPO];
	const struct ws_slot *rt = &sim->slot[WS_KIND_ROUTING];
	const struct ws_routing_ops *rops = WS_ROUTING_OPS(sim);
	int rc;
	if (!(rops->shapes & sim->fab.shape)) {
		rc = ws_err_set(err, WS_EINVAL,
				"routing rule '%s' cannot route the fabric of topology "
				"'%s' (its shape is not one the rule accepts)",
				rt->ld.desc->name, topo->ld.desc->name);
		locate(cfg, ws_kind_name(WS_KIND_ROUTING), err);
		return rc;
	}
	if (rops->prepare) {
		ws_err_clear(err);
		rc = rops->prepare((struct ws_inst *)&rt->inst, &sim->fab, err);
		if (rc) {
			locate(cfg, ws_kind_name(WS_KIND_ROUTING), err);
			return rc;
		}
	}
	return WS_OK;
}

/* The topology plugin builds the fabric; with `routing`, the rule prepares
 * too (its state is then part of what a fabric cache shares). */
static int build_topology(struct ws_sim *sim, const struct ws_cfg *cfg,
			  bool routing, struct ws_err *err)
{
	struct ws_slot *topo = &sim->slot[WS_KIND_TOPO];
	struct ws_builder b = { .sim = sim };
	ws_err_clear(err);
	int rc = WS_TOPO_OPS(sim)->build(&topo->inst, &b, err);
	if (rc == WS_OK)
		rc = ws_fabric_finish(sim, err);
	if (rc) {
		ws_err_prefix(err, "topology '%s': ", topo->ld.desc->name);
		name_set_keys(cfg, ws_kind_name(WS_KIND_TOPO), err);
		locate(cfg, ws_kind_name(WS_KIND_TOPO), err);
		return rc;
	}
	sim->fab.shape = b.shape_set ? b.shape : WS_SHAPE_GRAPH;
	sim->fab.depth = b.depth;
	memcpy(sim->fab.geom, b.geom, sizeof b.geom);
	if (b.server_size && sim->fab.n_hosts % b.server_size) {
		rc = ws_err_set(err, WS_EINVAL, "topology '%s' declares servers of %u "
				"hosts, which does not divide its %u hosts",
				topo->ld.desc->name, b.server_size, sim->fab.n_hosts);
		locate(cfg, ws_kind_name(WS_KIND_TOPO), err);
		return rc;
	}
	sim->fab.server_size = b.server_size;
	return routing ? prepare_routing(sim, cfg, err) : WS_OK;
}

/*
 * Acceleration plugins model each flow on one path that never changes
 * (ws_flow_ports): refused on a fabric whose rule sends one flow's packets
 * on several paths, or whose links go down.
 */
static int check_paths_fixed(struct ws_sim *sim, const struct ws_cfg *cfg,
			     struct ws_err *err)
{
	const struct ws_routing_ops *rops = WS_ROUTING_OPS(sim);
	const struct ws_slot *r = &sim->slot[WS_KIND_ROUTING];
	sim->multipath = (rops->multipath && rops->multipath(&r->inst)) ||
			 sim->nicc.entropy != WS_ENT_FLOW;
	const struct ws_slot *a = &sim->slot[WS_KIND_ACCEL];
	if (a->ld.desc == &ws_builtin_accel_none || sim->opts.fabric_only)
		return WS_OK; /* a fabric-only build runs no flows */
	const char *why = sim->multipath
		? "sends one flow's packets on several paths ([routing] lb, [nic] "
		  "entropy and their like)"
		: ws_failures_take_down(sim) ? "has links go down ([failures])"
		: sim->nicc.transport == WS_TR_SR ? "uses selective repeat ([nic] "
		  "transport = sr), which acceleration does not model"
		: sim->swc.trim ? "trims packets ([switch] trim)" : NULL;
	if (!why)
		return WS_OK;
	const struct ws_cfg_entry *e = ws_cfg_find(cfg, "accel", "name");
	ws_err_at(err, WS_EINVAL, e ? e->file : sim->cfg_path, e ? e->line : 0,
		  "[accel] name = %s: acceleration models each flow on one path that "
		  "never changes, and this fabric (routing rule '%s') %s; use [accel] "
		  "name = none", a->ld.desc->name, r->ld.desc->name, why);
	if (err)
		snprintf(err->key, sizeof err->key, "accel.name");
	return WS_EINVAL;
}

static int build_fabric(struct ws_sim *sim, const struct ws_cfg *cfg,
			struct ws_err *err)
{
	bool shared_routing = false;
	int rc = sim->opts.fabric_cache
			 ? ws_fabcache_build(sim, cfg, build_topology, &shared_routing, err)
			 : build_topology(sim, cfg, false, err);
	if (rc)
		return rc;
	ws_fabric_per_run(sim);
	if (!shared_routing) {
		rc = prepare_routing(sim, cfg, err);
		if (rc)
			return rc;
	}
	rc = ws_switch_setup(sim, err);
	if (rc) {
		locate(cfg, "switch", err);
		return rc;
	}
	shape_wheel(sim);
	return WS_OK;
}

int ws_opts_read(struct ws_opts *dst, const struct ws_opts *opts,
		 struct ws_err *err)
{
	if (!opts) {
		memset(dst, 0, sizeof *dst);
		dst->size = sizeof *dst;
		return WS_OK;
	}
	return ws_sized_in(dst, sizeof *dst, opts, "ws_opts", err);
}

struct ws_sim *ws_sim_alloc(const struct ws_opts *opts)
{
	struct ws_sim *sim = ws_xcalloc(1, sizeof *sim);
	sim->inputs = ws_xcalloc(1, sizeof *sim->inputs);
	ws_eventq_init(&sim->q);
	sim->opts = *opts;
	if (opts->plugin_path)
		sim->opts.plugin_path = ws_arena_strdup(&sim->arena, opts->plugin_path);
	return sim;
}

int ws_sim_new(struct ws_sim **out, const struct ws_cfg *cfg,
	       const struct ws_opts *opts_in, struct ws_err *err)
{
	double t0 = ws_wall_seconds();
	*out = NULL;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
	int orc = ws_opts_read(&opts, opts_in, err);
	if (orc)
		return orc;
	struct ws_sim *sim = ws_sim_alloc(&opts);
	set_names(sim, cfg);
	int rc = check_sections(cfg, err);
	if (!rc)
		rc = apply_kernel(sim, cfg, err);
	if (!rc)
		rc = ws_search_init(&sim->search, sim->opts.plugin_path, err);
	if (rc)
		goto fail;
	sim->seed = sim->simc.seed;
	if (sim->outc.dir && sim->outc.dir[0]) {
		sim->out_dir = ws_arena_strdup(&sim->arena, sim->outc.dir);
	} else {
		size_t l = strlen(sim->cfg_name) + 8;
		sim->out_dir = ws_arena_alloc(&sim->arena, l);
		snprintf(sim->out_dir, l, "out/%s", sim->cfg_name);
	}
	sim->payload = (uint32_t)(sim->nicc.mtu - sim->nicc.header);
	rc = ws_sim_load_plugin(sim, cfg, WS_KIND_TOPO, NULL, err);
	if (rc)
		goto fail;
	const struct ws_topo_ops *tops = WS_TOPO_OPS(sim);
	rc = ws_sim_load_plugin(sim, cfg, WS_KIND_ROUTING, tops->default_routing, err);
	if (!rc)
		rc = ws_sim_load_plugin(sim, cfg, WS_KIND_CC, "none", err);
	if (!rc)
		rc = ws_sim_load_plugin(sim, cfg, WS_KIND_ACCEL, "none", err);
	if (rc)
		goto fail;
	const struct ws_cc_ops *cops = WS_CC_OPS(sim);
	sim->cc_needs = cops->needs;
	const struct ws_nic_conf *n = &sim->nicc;
	if (sim->cc_needs & WS_CC_NEEDS_INT)
		sim->int_bytes = (uint32_t)(n->int_header +
					    n->int_max_hops * n->int_hop_bytes);
	sim->ack_wire = (uint32_t)WS_MAX(n->ack_size, n->ack_header + sim->int_bytes);
	sim->cnp_wire = (uint32_t)n->ack_size;
	ws_pktpool_init(&sim->pkts, (sim->cc_needs & WS_CC_NEEDS_INT) != 0);
	rc = build_fabric(sim, cfg, err);
	if (!rc)
		rc = ws_trace_prepare(sim, cfg, err);
	if (!rc)
		rc = ws_failures_setup(sim, cfg, err);
	if (!rc)
		rc = check_paths_fixed(sim, cfg, err);
	if (rc)
		goto fail;
	ws_int_format_setup(sim);
	/* last: a workload checks its input against the fabric */
	if (!sim->opts.fabric_only) {
		rc = ws_sim_load_plugin(sim, cfg, WS_KIND_WORKLOAD, NULL, err);
		if (rc)
			goto fail;
	}
	const struct ws_accel_ops *aops = WS_ACCEL_OPS(sim);
	if (aops->sample_period && aops->on_sample)
		sim->accel_period = aops->sample_period(&sim->slot[WS_KIND_ACCEL].inst);
	rc = ws_part_plan(sim, err);
	if (rc) {
		located(cfg, "sim", err);
		goto fail;
	}
	sim->wall_build_s = ws_wall_seconds() - t0;
	*out = sim;
	return WS_OK;
fail:
	ws_sim_free(sim);
	*out = NULL;
	return rc;
}

/* ---- running ------------------------------------------------------------------ */

static int start(struct ws_sim *sim, struct ws_err *err)
{
	sim->started = true;
	struct ws_slot *w = &sim->slot[WS_KIND_WORKLOAD];
	if (!w->present)
		return ws_err_set(err, WS_EINVAL, "this simulation was built "
				  "fabric-only: it has no workload to run");
	/* the partitions exist before the workload makes its first flows */
	ws_part_start(sim);
	/* failures at time t act before flows that start at t */
	ws_failures_start(sim);
	ws_err_clear(err);
	int rc = WS_WORKLOAD_OPS(sim)->start(&w->inst, err);
	if (!rc)
		rc = ws_traces_check(sim, err);
	if (rc)
		return rc;
	ws_outputs_clear(sim, sim->out_dir);
	struct ws_slot *a = &sim->slot[WS_KIND_ACCEL];
	const struct ws_accel_ops *aops = WS_ACCEL_OPS(sim);
	if (aops->start) {
		ws_err_clear(err);
		rc = aops->start(&a->inst, err);
		if (rc)
			return rc;
	}
	ws_observers_start(sim);
	return WS_OK;
}

int ws_sim_run(struct ws_sim *sim, ws_time until, struct ws_err *err)
{
	double c0 = ws_cpu_seconds();
	double t0 = ws_wall_seconds();
	if (!sim->started) {
		int rc = start(sim, err);
		if (rc)
			return rc;
	}
	ws_time limit = until;
	if (sim->simc.stop_time && sim->simc.stop_time < limit)
		limit = sim->simc.stop_time;
	uint64_t max_events = sim->simc.max_events ? sim->simc.max_events : UINT64_MAX;
	struct ws_fired ev;
	sim->stop = sim->failed;
	sim->stop_requested = false;
	const volatile sig_atomic_t *halt = sim->opts.stop;
	if (sim->par)
		ws_part_run(sim, limit, max_events);
	while (!sim->par && !sim->stop && !ws_stop_set(halt) && sim->events < max_events &&
	       ws_eventq_pop(&sim->q, limit, &ev)) {
		sim->now = ev.when;
		ev.fn(sim, ev.obj, ev.arg);
		if ((++sim->events & 0xffff) == 0 && sim->opts.on_progress)
			sim->opts.on_progress(sim->opts.ctx, sim, false);
	}
	if (sim->opts.on_progress)
		sim->opts.on_progress(sim->opts.ctx, sim, true);
	/* simulated up to the limit, unless nothing was left to simulate: a
	 * finished run's time is its last event's */
	if (limit != WS_TIME_NEVER && !sim->stop && !ws_stop_set(halt) &&
	    sim->events < max_events && sim->now < limit &&
	    (sim->par ? ws_part_pending(sim) != 0 : ws_eventq_peek(&sim->q) != WS_TIME_NEVER))
		sim->now = limit;
	sim->wall_run_s += ws_wall_seconds() - t0;
	sim->cpu_run_s += ws_cpu_seconds() - c0;
	if (ws_stop_set(halt) && !sim->failed) {
		sim->halted = true;
		if (!sim->incomplete)
			sim->incomplete = "stopped by the program";
	}
	if (sim->failed) {
		if (err)
			*err = sim->fail_err;
		return sim->fail_err.code ? sim->fail_err.code : WS_ESTATE;
	}
	return WS_OK;
}

/* ---- stopping early and the workload's plan (ABI 2.1) ------------------------------- */

void ws_sim_request_stop(struct ws_sim *sim)
{
	sim->stop = true;
	sim->stop_requested = true;
}

uint64_t ws_sim_flows_expected(const struct ws_sim *sim)
{
	const struct ws_workload_ops *wops = WS_WORKLOAD_OPS(sim);
	if (!sim->slot[WS_KIND_WORKLOAD].present || !wops->flows_expected)
		return 0;
	return wops->flows_expected(&sim->slot[WS_KIND_WORKLOAD].inst);
}

int ws_sim_write_trace(struct ws_sim *sim, const char *path, struct ws_err *err)
{
	const struct ws_slot *w = &sim->slot[WS_KIND_WORKLOAD];
	if (!w->present)
		return ws_err_set(err, WS_EINVAL, "no workload loaded");
	const struct ws_workload_ops *wops = WS_WORKLOAD_OPS(sim);
	if (!wops->write_trace)
		return ws_err_set(err, WS_EINVAL, "the workload '%s' cannot write its "
				  "flows as a trace (it has no write_trace op)",
				  w->ld.desc->name);
	ws_err_clear(err);
	return wops->write_trace(&sim->slot[WS_KIND_WORKLOAD].inst, path, err);
}

void ws_sim_set_incomplete(struct ws_sim *sim, const char *reason)
{
	sim->incomplete = ws_arena_strdup(&sim->arena,
					  reason && reason[0] ? reason : "stopped");
}

bool ws_sim_stopped(const struct ws_sim *sim)
{
	return sim->halted;
}

void ws_sim_get_stats(const struct ws_sim *sim, struct ws_sim_stats *user)
{
	struct ws_sim_stats full, *out = &full;
	memset(out, 0, sizeof *out);
	out->now = sim->now;
	out->events = sim->events;
	out->flows = sim->n_flows;
	out->flows_done = sim->n_done;
	out->data_packets = sim->ctr.data_pkts;
	out->data_bytes = sim->ctr.data_bytes;
	out->acks = sim->ctr.acks;
	out->nacks = sim->ctr.nacks;
	out->cnps = sim->ctr.cnps;
	out->notified = sim->ctr.notified;
	out->pfc_pauses = sim->ctr.pfc_pauses;
	out->drops = sim->ctr.drops;
	out->ecn_marks = sim->ctr.ecn_marks;
	out->retx_bytes = sim->ctr.retx_bytes;
	out->timeouts = sim->ctr.timeouts;
	out->aborted = sim->ctr.aborted;
	out->warnings = sim->warnings;
	out->wall_build_s = sim->wall_build_s;
	out->wall_run_s = sim->wall_run_s;
	out->flows_expected = ws_sim_flows_expected(sim);
	out->stop_requested = sim->stop_requested;
	out->fabric_shared = sim->fabric_shared;
	out->drops_buffer = sim->ctr.buffer_drops;
	out->drops_failure = sim->ctr.fail_drops;
	out->drops_loss = sim->ctr.loss_drops;
	out->drops_gray = sim->ctr.gray_drops;
	out->failure_events = sim->fail.applied;
	out->links_down = sim->fail.links_down;
	out->trims = sim->ctr.trims;
	out->retx_pkts = sim->ctr.retx_pkts;
	ws_sized_out(user, &full, sizeof full, "ws_sim_stats");
}

const char *ws_sim_default_out_dir(const struct ws_sim *sim)
{
	return sim->out_dir;
}

int ws_sim_set_output_dir(struct ws_sim *sim, const char *dir, struct ws_err *err)
{
	if (!dir || !dir[0])
		return ws_err_set(err, WS_EINVAL, "empty output directory");
	if (sim->trace_rates || sim->trace_queues)
		return ws_err_set(err, WS_ESTATE,
				  "the output directory cannot change once traces are written");
	sim->out_dir = ws_arena_strdup(&sim->arena, dir);
	return WS_OK;
}

void ws_sim_free(struct ws_sim *sim)
{
	if (!sim)
		return;
	for (int k = WS_KIND_WORKLOAD; k >= WS_KIND_TOPO; k--) {
		struct ws_slot *s = &sim->slot[k];
		if (s->present && s->ld.desc->fini)
			s->ld.desc->fini(&s->inst);
	}
	ws_observers_close(sim);
	ws_flows_free(sim);
	ws_failures_free(sim);
	ws_fabric_free(sim);
	free(sim->ecn_map);
	ws_ref_free(sim);
	ws_part_free(sim);
	ws_pktpool_fini(&sim->pkts);
	ws_eventq_fini(&sim->q);
	for (int k = WS_KIND_WORKLOAD; k >= WS_KIND_TOPO; k--)
		if (sim->slot[k].present)
			ws_plugin_unload(&sim->slot[k].ld);
	ws_search_fini(&sim->search);
	ws_arena_free(&sim->arena);
	for (size_t i = 0; i < sim->inputs->n; i++)
		free(sim->inputs->path[i]);
	free(sim->inputs->path);
	free(sim->inputs);
	free(sim);
}
