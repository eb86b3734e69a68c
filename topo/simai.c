/* SPDX-License-Identifier: MIT */
/*
 * simai: a fabric read from a SimAI topology file, as SimAI's generator
 * (gen_Topo_Template.py in aliyun/SimAI: Spectrum-X, AlibabaHPN, DCN+)
 * writes it and SimAI's ns-3 backend reads it:
 *
 *     nodes gpus_per_server nvswitches switches links gpu_type
 *     id id ...  (nvswitches + switches ids: the NVSwitches first)
 *     src dst rate latency error_rate
 *     ...        (`links` lines)
 *
 * so that a SimAI user brings the file unchanged.  GPUs are ids
 * 0 .. gpus-1 with gpus = nodes - nvswitches - switches, and a server is
 * gpus_per_server consecutive GPUs; every other id is on the second line.
 * GPUs are the fabric's hosts (GPU g is host g, the rank the training
 * workloads give it); NVSwitches and network switches are switches.  Links
 * are real links at their rate and latency, the NVLinks (GPU to NVSwitch)
 * included, so a flow between two GPUs of one server can cross its
 * NVSwitch; the training workloads (simai, llm) model intra-server traffic
 * with their own NVLink parameters (intra_bw) and send only inter-server
 * transfers into the fabric, whose server size this plugin declares.
 *
 * The structure is checked as SimAI's generator builds it, each error with
 * the file, the line and what was expected: an NVSwitch links only GPUs,
 * all of one server; every GPU has a link to a network switch; no pair of
 * nodes is linked twice.  Network switches get the level of their tier
 * (links from the nearest GPU, not counting NVSwitches: leaves 1, spines
 * 2, ...); NVSwitches level 1.  The lines after the header are read by the
 * reader `file` shares (graph-file.c): the same units ("100Gbps",
 * "0.0005ms"), error_rate 0, every node linked and the graph connected.
 * Routing: `table` (BFS shortest paths, ECMP), which on a two- or three-tier
 * rail-optimized fabric takes the up/down paths.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <warpsim/warpsim.h>

#include "graph-file.h"

struct simai_conf {
	const char *file;
};

static const struct ws_param simai_params[] = {
	WS_PARAM_STRING("file", struct simai_conf, file, NULL,
			"topology file written by SimAI's generator (relative paths start at the ini file's directory)"),
	WS_PARAM_END
};

struct simai_state {
	struct gfile g;
	uint32_t gpus, gpus_per_server, nvswitches;
	uint8_t *level; /* per node: a switch's tier */
};

#define SIMAI_HEADER "nodes gpus_per_server nvswitches switches links gpu_type"

static int simai_header(struct gfile *g, char *buf, uint32_t line, void *ctx,
			struct ws_err *err)
{
	static const char *const names[5] = { "nodes", "gpus_per_server",
		"nvswitches", "switches", "links" };
	struct simai_state *s = ctx;
	char *tok[6];
	int n = gfile_split(buf, tok, 6);
	if (n != 6)
		return gfile_fail(err, g->path, line, "the first line must be '"
				  SIMAI_HEADER "' (found %d field%s)", n,
				  n == 1 ? "" : "s");
	uint64_t v[5];
	for (int i = 0; i < 5; i++)
		if (!ws_text_u64(tok[i], &v[i]))
			return gfile_fail(err, g->path, line, "bad %s '%s' on the "
					  "first line (expected a non-negative integer; "
					  "the line is '" SIMAI_HEADER "')", names[i],
					  tok[i]);
	if (v[0] < 2 || v[0] > GFILE_MAX_NODES)
		return gfile_fail(err, g->path, line, "nodes = %" PRIu64 ": expected "
				  "2 .. %u", v[0], GFILE_MAX_NODES);
	if (v[2] > v[0] || v[3] > v[0] - v[2] || v[0] - v[2] - v[3] < 2)
		return gfile_fail(err, g->path, line, "nvswitches = %" PRIu64 " and "
				  "switches = %" PRIu64 " of %" PRIu64 " nodes: the "
				  "GPUs (nodes - nvswitches - switches) must be at "
				  "least 2", v[2], v[3], v[0]);
	uint64_t gpus = v[0] - v[2] - v[3];
	if (v[1] < 1 || gpus % v[1])
		return gfile_fail(err, g->path, line, "gpus_per_server = %" PRIu64
				  ": expected a divisor of the %" PRIu64 " GPUs "
				  "(nodes - nvswitches - switches)", v[1], gpus);
	if (v[2] % (gpus / v[1]))
		return gfile_fail(err, g->path, line, "nvswitches = %" PRIu64 ": "
				  "expected the same number in each of the %" PRIu64
				  " servers (a multiple of %" PRIu64 ")", v[2],
				  gpus / v[1], gpus / v[1]);
	if (v[4] < v[0] - 1 || v[4] > GFILE_MAX_LINKS)
		return gfile_fail(err, g->path, line, "links = %" PRIu64 ": expected "
				  "%" PRIu64 " .. %u (%" PRIu64 " nodes need at least %"
				  PRIu64 " links to be connected)", v[4], v[0] - 1,
				  GFILE_MAX_LINKS, v[0], v[0] - 1);
	s->gpus = (uint32_t)gpus;
	s->gpus_per_server = (uint32_t)v[1];
	s->nvswitches = (uint32_t)v[2];
	g->first_switch = s->gpus;
	g->n_lead = s->nvswitches;
	return gfile_alloc(g, (uint32_t)v[0], (uint32_t)(v[2] + v[3]),
			   (uint32_t)v[4], err);
}

/* a link's two ends, the smaller first: one key per pair of nodes */
static uint64_t simai_pair(const struct gfile_link *l)
{
	uint32_t lo = l->a < l->b ? l->a : l->b, hi = l->a ^ l->b ^ lo;
	return (uint64_t)lo << 32 | hi;
}

static int simai_link_cmp(const void *x, const void *y)
{
	const struct gfile_link *a = *(const struct gfile_link *const *)x;
	const struct gfile_link *b = *(const struct gfile_link *const *)y;
	uint64_t ka = simai_pair(a), kb = simai_pair(b);
	if (ka != kb)
		return ka < kb ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* No pair of nodes linked twice (SimAI's reader would add a second
 * device; its generator never writes one). */
static int simai_check_duplicates(const struct gfile *g, struct ws_err *err)
{
	const struct gfile_link **by = malloc((size_t)g->n_links * sizeof *by);
	if (!by)
		return ws_err_set(err, WS_ENOMEM, "out of memory for %u links",
				  g->n_links);
	for (uint32_t i = 0; i < g->n_links; i++)
		by[i] = &g->links[i];
	qsort(by, g->n_links, sizeof *by, simai_link_cmp);
	int rc = WS_OK;
	for (uint32_t i = 1; i < g->n_links && !rc; i++)
		if (simai_pair(by[i - 1]) == simai_pair(by[i]))
			/* the later line is the duplicate */
			rc = gfile_fail(err, g->path, by[i]->line, "a second link "
					"between nodes %u and %u (the first is on line "
					"%u)", by[i]->a, by[i]->b, by[i - 1]->line);
	free(by);
	return rc;
}

/* An NVSwitch joins GPUs of one server; every GPU reaches the network. */
static int simai_check_servers(const struct simai_state *s, struct ws_err *err)
{
	const struct gfile *g = &s->g;
	uint32_t *server_of = malloc((size_t)g->n_nodes * sizeof *server_of);
	uint8_t *has_net = calloc(s->gpus, 1);
	int rc = WS_OK;
	if (!server_of || !has_net) {
		rc = ws_err_set(err, WS_ENOMEM, "out of memory for %u nodes",
				g->n_nodes);
		goto out;
	}
	for (uint32_t i = 0; i < g->n_nodes; i++)
		server_of[i] = UINT32_MAX;
	for (uint32_t i = 0; i < g->n_links && !rc; i++) {
		const struct gfile_link *l = &g->links[i];
		uint32_t nv = g->is_switch[l->a] == 2 ? l->a :
			      g->is_switch[l->b] == 2 ? l->b : UINT32_MAX;
		uint32_t other = nv == l->a ? l->b : l->a;
		if (nv == UINT32_MAX) {
			if (l->a < s->gpus)
				has_net[l->a] = 1;
			if (l->b < s->gpus)
				has_net[l->b] = 1;
			continue;
		}
		if (other >= s->gpus) {
			rc = gfile_fail(err, g->path, l->line, "a link between "
					"NVSwitch %u and %s %u: an NVSwitch links the "
					"GPUs of its server only (the NVSwitches are the "
					"first %u ids of line 2)", nv,
					g->is_switch[other] == 2 ? "NVSwitch" : "switch",
					other, s->nvswitches);
			break;
		}
		uint32_t server = other / s->gpus_per_server;
		if (server_of[nv] == UINT32_MAX)
			server_of[nv] = server;
		else if (server_of[nv] != server)
			rc = gfile_fail(err, g->path, l->line, "NVSwitch %u links GPU "
					"%u of server %u and a GPU of server %u (a "
					"server is %u consecutive GPUs: gpus_per_server)",
					nv, other, server, server_of[nv],
					s->gpus_per_server);
	}
	for (uint32_t i = 0; i < s->gpus && !rc; i++)
		if (!has_net[i])
			rc = ws_err_at(err, WS_EINVAL, g->path, 0, "GPU %u has no link "
				       "to a network switch (only NVLink): it could "
				       "not reach another server", i);
out:
	free(server_of);
	free(has_net);
	return rc;
}

/* Tier of every network switch: links from the nearest GPU, not through
 * NVSwitches (BFS from all GPUs at once). */
static int simai_levels(struct simai_state *s, struct ws_err *err)
{
	const struct gfile *g = &s->g;
	uint32_t n = g->n_nodes;
	uint32_t *dist = malloc((size_t)n * sizeof *dist);
	uint32_t *queue = malloc((size_t)n * sizeof *queue);
	uint32_t *start = calloc((size_t)n + 1, sizeof *start);
	uint32_t *adj = malloc((size_t)2 * g->n_links * sizeof *adj);
	s->level = calloc(n, 1);
	int rc = WS_OK;
	if (!dist || !queue || !start || !adj || !s->level) {
		rc = ws_err_set(err, WS_ENOMEM, "out of memory for %u nodes", n);
		goto out;
	}
	/* adjacency in compressed rows */
	for (uint32_t i = 0; i < g->n_links; i++) {
		start[g->links[i].a + 1]++;
		start[g->links[i].b + 1]++;
	}
	for (uint32_t i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (uint32_t i = 0; i < g->n_links; i++) {
		adj[start[g->links[i].a]++] = g->links[i].b;
		adj[start[g->links[i].b]++] = g->links[i].a;
	}
	for (uint32_t i = n; i > 0; i--)
		start[i] = start[i - 1];
	start[0] = 0;
	uint32_t head = 0, tail = 0;
	for (uint32_t i = 0; i < n; i++) {
		dist[i] = i < s->gpus ? 0 : UINT32_MAX;
		if (i < s->gpus)
			queue[tail++] = i;
	}
	while (head < tail) {
		uint32_t u = queue[head++];
		for (uint32_t k = start[u]; k < start[u + 1]; k++) {
			uint32_t v = adj[k];
			if (dist[v] != UINT32_MAX || g->is_switch[v] == 2)
				continue;
			dist[v] = dist[u] + 1;
			queue[tail++] = v;
		}
	}
	for (uint32_t i = s->gpus; i < n; i++)
		s->level[i] = g->is_switch[i] == 2 || dist[i] == UINT32_MAX ? 1 :
			      (uint8_t)(dist[i] > 255 ? 255 : dist[i]);
out:
	free(dist);
	free(queue);
	free(start);
	free(adj);
	return rc;
}

static void simai_release(struct simai_state *s)
{
	gfile_release(&s->g);
	free(s->level);
	s->level = NULL;
}

static int simai_init(struct ws_inst *inst, struct ws_err *err)
{
	const struct simai_conf *c = inst->conf;
	struct simai_state *s = inst->state;
	s->g.header_text = SIMAI_HEADER;
	int rc = gfile_load(&s->g, inst, c->file, simai_header, s, err);
	if (rc)
		return rc;
	rc = simai_check_duplicates(&s->g, err);
	if (!rc)
		rc = simai_check_servers(s, err);
	if (!rc)
		rc = simai_levels(s, err);
	if (rc)
		simai_release(s);
	return rc;
}

static int simai_build(struct ws_inst *inst, struct ws_builder *b,
		       struct ws_err *err)
{
	struct simai_state *s = inst->state;
	int rc = gfile_build(&s->g, b, s->level, err);
	if (rc)
		return rc;
	ws_builder_set_server_size(b, s->gpus_per_server);
	/* the fabric holds it all now */
	simai_release(s);
	return WS_OK;
}

static void simai_fini(struct ws_inst *inst)
{
	simai_release(inst->state);
}

static const struct ws_topo_ops simai_ops = {
	.size = sizeof(struct ws_topo_ops),
	.build = simai_build,
	.default_routing = "table",
};

static const struct ws_plugin simai_plugin = {
	WS_PLUGIN_ABI(WS_KIND_TOPO, struct ws_topo_ops),
	.name = "simai",
	.version = "1.0.0",
	.summary = "fabric from a SimAI topology file (gen_Topo_Template.py): GPUs, NVSwitches, switches, links",
	.params = simai_params,
	.conf_size = sizeof(struct simai_conf),
	.state_size = sizeof(struct simai_state),
	.init = simai_init,
	.fini = simai_fini,
	.ops = &simai_ops,
};

WS_PLUGIN_EXPORT(simai_plugin)
