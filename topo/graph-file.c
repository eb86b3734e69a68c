/* SPDX-License-Identifier: MIT */
/*
 * The shared reader of explicit graph files (graph-file.h): the switch
 * line, the link lines, the whole-graph checks and the build, for `file`
 * (HPCC ns-3 layout) and `simai` (SimAI layout), which differ only in their
 * first line.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph-file.h"

/* what the parser expects next */
enum gfile_stage { GFILE_HEADER, GFILE_SWITCHES, GFILE_LINKS, GFILE_DONE };

int gfile_fail(struct ws_err *err, const char *path, uint32_t line,
	       const char *fmt, ...)
{
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* fields are quoted as read: keep control bytes off the terminal */
	for (char *c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return ws_err_at(err, WS_EINVAL, path, (int)line, "%s", msg);
}

int gfile_split(char *buf, char **tok, int max)
{
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, " \t\r\n", &save); t;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		if (n < max)
			tok[n] = t;
		if (n < INT32_MAX)
			n++;
	}
	return n;
}

static int gfile_switches(struct gfile *g, char *buf, uint32_t line,
			 struct ws_err *err)
{
	/* count first: a line of the wrong length is most likely not the
	 * switch line at all (a missing line 2), and the count says so */
	uint32_t n = 0;
	for (const char *c = buf; *c;) {
		while (*c && isspace((unsigned char)*c))
			c++;
		if (!*c)
			break;
		n++;
		while (*c && !isspace((unsigned char)*c))
			c++;
	}
	if (n != g->n_switches)
		return gfile_fail(err, g->path, line,
				 "expected the %u switch ids the first line declares, "
				 "found %u field%s (the second line lists the switches)",
				 g->n_switches, n, n == 1 ? "" : "s");
	char *save = NULL;
	uint32_t field = 0;
	for (char *t = strtok_r(buf, " \t\r\n", &save); t;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		uint64_t id;
		field++;
		if (!ws_text_u64(t, &id))
			return gfile_fail(err, g->path, line,
					 "bad switch id '%s' (field %u; expected a node "
					 "id, a non-negative integer)", t, field);
		if (id >= g->n_nodes)
			return gfile_fail(err, g->path, line,
					 "switch id %" PRIu64 " (field %u) is not a node: "
					 "the first line declares nodes 0..%u", id, field,
					 g->n_nodes - 1);
		if (g->is_switch[id])
			return gfile_fail(err, g->path, line,
					 "switch id %" PRIu64 " (field %u) is listed twice",
					 id, field);
		if (id < g->first_switch)
			return gfile_fail(err, g->path, line,
					 "switch id %" PRIu64 " (field %u) is a GPU: ids "
					 "0..%u are the GPUs, switches are %u..%u", id,
					 field, g->first_switch - 1, g->first_switch,
					 g->n_nodes - 1);
		g->is_switch[id] = field <= g->n_lead ? 2 : 1;
	}
	return WS_OK;
}

static int gfile_link_line(struct gfile *g, uint32_t index, char *buf,
			  uint32_t line, struct ws_err *err)
{
	static const struct ws_param rate_param = {
		.key = "rate", .type = WS_PT_RATE, .min = "1Mbps", .max = "100Tbps",
	};
	static const struct ws_param delay_param = {
		.key = "delay", .type = WS_PT_TIME, .min = "0s", .max = "1s",
	};
	char *tok[5];
	int n = gfile_split(buf, tok, 5);
	if (n != 5)
		return gfile_fail(err, g->path, line,
				 "%s (found %d field%s; expected: src dst rate delay "
				 "error_rate)", n > 5 ? "too many fields" : "too few fields",
				 n, n == 1 ? "" : "s");
	uint64_t id[2];
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "dst" : "src";
		if (!ws_text_u64(tok[i], &id[i]))
			return gfile_fail(err, g->path, line,
					 "bad %s '%s' (expected a node id, a non-negative "
					 "integer)", name, tok[i]);
		if (id[i] >= g->n_nodes)
			return gfile_fail(err, g->path, line,
					 "no such node %" PRIu64 " (%s): the first line "
					 "declares nodes 0..%u", id[i], name, g->n_nodes - 1);
	}
	if (id[0] == id[1])
		return gfile_fail(err, g->path, line, "a link from node %" PRIu64
				 " to itself", id[0]);
	struct gfile_link l = { .a = (uint32_t)id[0], .b = (uint32_t)id[1],
				 .line = line };
	char why[256];
	if (ws_param_parse(&rate_param, tok[2], &l.rate, why, sizeof why))
		return gfile_fail(err, g->path, line, "bad rate '%s': %s", tok[2], why);
	if (ws_param_parse(&delay_param, tok[3], &l.delay, why, sizeof why))
		return gfile_fail(err, g->path, line, "bad delay '%s': %s", tok[3], why);
	char *end;
	errno = 0;
	double loss = strtod(tok[4], &end);
	if (*end || errno || !isfinite(loss) || loss < 0 ||
	    !(isdigit((unsigned char)tok[4][0]) || tok[4][0] == '.'))
		return gfile_fail(err, g->path, line, "bad error_rate '%s' (expected "
				 "0)", tok[4]);
	if (loss != 0)
		return gfile_fail(err, g->path, line, "error_rate %s: warpsim does not "
				 "model random link loss; use 0", tok[4]);
	for (int i = 0; i < 2; i++)
		if (g->degree[id[i]] == GFILE_MAX_PORTS)
			return gfile_fail(err, g->path, line,
					 "node %" PRIu64 " has more than %u links (a "
					 "node's ports are numbered in 16 bits)", id[i],
					 GFILE_MAX_PORTS);
	if (index == g->cap_links) {
		/* grow as lines arrive: a header may promise more than the file has */
		uint32_t cap = g->cap_links ? g->cap_links * 2 : 1024;
		if (cap > g->n_links)
			cap = g->n_links;
		struct gfile_link *nl = realloc(g->links, (size_t)cap * sizeof *nl);
		if (!nl)
			return ws_err_set(err, WS_ENOMEM, "out of memory for %u links",
					  cap);
		g->links = nl;
		g->cap_links = cap;
	}
	g->links[index] = l;
	g->degree[l.a]++;
	g->degree[l.b]++;
	return WS_OK;
}

static uint32_t gfile_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Every node has a link and every node reaches node 0 (union-find: O(links)). */
static int gfile_check_graph(const struct gfile *g, struct ws_err *err)
{
	uint32_t bare = 0, first = 0;
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (!g->degree[i] && !bare++)
			first = i;
	if (bare)
		return ws_err_at(err, WS_EINVAL, g->path, 0,
				 "node %u (a %s) has no link; every node the first line "
				 "declares needs one (%u node%s without a link)", first,
				 g->is_switch[first] ? "switch" : "host", bare,
				 bare == 1 ? "" : "s");
	uint32_t *parent = malloc((size_t)g->n_nodes * sizeof *parent);
	if (!parent)
		return ws_err_set(err, WS_ENOMEM, "out of memory for %u nodes",
				  g->n_nodes);
	for (uint32_t i = 0; i < g->n_nodes; i++)
		parent[i] = i;
	uint32_t parts = g->n_nodes;
	for (uint32_t i = 0; i < g->n_links; i++) {
		uint32_t x = gfile_find(parent, g->links[i].a);
		uint32_t y = gfile_find(parent, g->links[i].b);
		if (x != y) {
			parent[x] = y;
			parts--;
		}
	}
	int rc = WS_OK;
	if (parts > 1) {
		uint32_t root = gfile_find(parent, 0), other = 1;
		while (gfile_find(parent, other) == root)
			other++;
		rc = ws_err_at(err, WS_EINVAL, g->path, 0,
			       "the graph is not connected: node 0 cannot reach node "
			       "%u (the links form %u separate parts)", other, parts);
	}
	free(parent);
	return rc;
}

static int gfile_read(struct gfile *g, FILE *f, gfile_header_fn header,
		      void *ctx, struct ws_err *err)
{
	char *buf = NULL;
	size_t cap = 0;
	uint32_t n_read = 0;
	int lineno = 0, got;
	enum gfile_stage stage = GFILE_HEADER;
	int rc = WS_OK;
	while (!rc && (got = ws_text_line(f, &buf, &cap, WS_TEXT_LINE_MAX, g->path,
					  &lineno, err)) == 1) {
		if (ws_text_blank(buf))
			continue;
		switch (stage) {
		case GFILE_HEADER:
			rc = header(g, buf, (uint32_t)lineno, ctx, err);
			/* with no switches the reference reads no ids: a line 2
			 * left blank is skipped above, and none is needed */
			stage = g->n_switches ? GFILE_SWITCHES : GFILE_LINKS;
			break;
		case GFILE_SWITCHES:
			rc = gfile_switches(g, buf, (uint32_t)lineno, err);
			stage = GFILE_LINKS;
			break;
		case GFILE_LINKS:
			rc = gfile_link_line(g, n_read, buf, (uint32_t)lineno, err);
			if (++n_read == g->n_links)
				stage = GFILE_DONE;
			break;
		case GFILE_DONE:
			g->ignored++;
			break;
		}
	}
	free(buf);
	if (rc)
		return rc;
	if (got < 0)
		return got;
	switch (stage) {
	case GFILE_HEADER:
		return ws_err_at(err, WS_EINVAL, g->path, 0,
				 "empty topology file (expected '%s' on the "
				 "first line)", g->header_text);
	case GFILE_SWITCHES:
		return ws_err_at(err, WS_EINVAL, g->path, (int)lineno,
				 "the file ends before the line of the %u switch ids the "
				 "first line declares", g->n_switches);
	case GFILE_LINKS:
		return ws_err_at(err, WS_EINVAL, g->path, (int)lineno,
				 "the first line declares %u links but the file ends "
				 "after %u", g->n_links, n_read);
	case GFILE_DONE:
		break;
	}
	return gfile_check_graph(g, err);
}

void gfile_release(struct gfile *g)
{
	free(g->is_switch);
	free(g->degree);
	free(g->links);
	g->is_switch = NULL;
	g->degree = NULL;
	g->links = NULL;
}


int gfile_alloc(struct gfile *g, uint32_t nodes, uint32_t switches,
		uint32_t links, struct ws_err *err)
{
	g->n_nodes = nodes;
	g->n_switches = switches;
	g->n_links = links;
	g->is_switch = calloc(nodes, sizeof *g->is_switch);
	g->degree = calloc(nodes, sizeof *g->degree);
	if (!g->is_switch || !g->degree)
		return ws_err_set(err, WS_ENOMEM, "out of memory for %u nodes",
				  nodes);
	return WS_OK;
}

int gfile_load(struct gfile *g, struct ws_inst *inst, const char *file,
	       gfile_header_fn header, void *ctx, struct ws_err *err)
{
	int rc = ws_resolve_path(inst->sim, file, g->path, sizeof g->path, err);
	if (rc)
		return rc;
	FILE *f = fopen(g->path, "r");
	if (!f)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EIO, g->path, 0,
				 "cannot open the topology file: %s", strerror(errno));
	rc = gfile_read(g, f, header, ctx, err);
	fclose(f);
	if (rc) {
		gfile_release(g);
		return rc;
	}
	if (g->ignored)
		ws_warn(inst->sim, "%s: ignoring %u line(s) after the %u links "
			"declared on the first line", g->path, g->ignored, g->n_links);
	return WS_OK;
}

int gfile_build(struct gfile *g, struct ws_builder *b, const uint8_t *level,
		struct ws_err *err)
{
	int rc = ws_builder_reserve(b, g->n_nodes, 2 * g->n_links, err);
	if (rc)
		return rc;
	uint32_t hosts = 0, switches = 0;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		bool sw = g->is_switch[i];
		struct ws_node_spec spec = { WS_INIT_SIZE(struct ws_node_spec),
			.kind = sw ? WS_NODE_SWITCH : WS_NODE_HOST,
			.level = sw ? (level ? level[i] : 1) : 0,
			.n_ports = (uint16_t)g->degree[i],
			.index = sw ? switches++ : hosts++,
		};
		if (ws_builder_add_node(b, &spec, err) == WS_NONE)
			return WS_EPLUGIN;
	}
	/* the degrees now count the ports given so far */
	memset(g->degree, 0, (size_t)g->n_nodes * sizeof *g->degree);
	for (uint32_t i = 0; i < g->n_links; i++) {
		const struct gfile_link *l = &g->links[i];
		rc = ws_builder_link(b, l->a, g->degree[l->a]++, l->b,
				     g->degree[l->b]++, l->rate, l->delay, err);
		if (rc)
			return rc;
	}
	ws_builder_set_shape(b, WS_SHAPE_GRAPH, 0);
	return WS_OK;
}
