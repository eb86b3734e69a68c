/* SPDX-License-Identifier: MIT */
/*
 * file: an explicit graph read from a file in the layout of the HPCC ns-3
 * simulator's topology files (mix/topology.txt, mix/fat.txt):
 *
 *     nodes switches links
 *     id id ... (the switch node ids, `switches` of them, on one line)
 *     a b rate delay error_rate
 *     ... (`links` lines)
 *
 * for replaying the studies made with that simulator and its descendants
 * (SimAI, ASTRA-sim's ns-3 backend) on the same fabric.  rate and delay are
 * read by the kernel's unit parser, so they take the units of the ini file
 * ("100Gbps", "1000ns", "0.001ms").  error_rate must be 0: warpsim does not
 * model random loss.  As in the reference, exactly `links` link lines are
 * read; anything after them is ignored with one warning (the reference's own
 * topology.txt declares 65 links, holds more, and ends with help text).
 * Blank lines and lines starting with '#' are skipped, as in flow traces.
 *
 * Node ids are the file's ids, 0 .. nodes-1: the nodes listed on the second
 * line are switches, the others hosts (a host may have several links: it is
 * multi-homed and its routing rule chooses among its ports).  A node has as
 * many ports as links, numbered in the order of the link lines.  Nodes carry
 * no address: the shape is WS_SHAPE_GRAPH and the default rule `table`
 * computes shortest paths.  The file is read and checked (every line, then
 * that no node is left without a link and that the graph is connected) when
 * the plugin is loaded, so a bad file fails with its file and line before
 * anything is built.
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

#include <warpsim/warpsim.h>

/* large enough for any fabric warpsim simulates; small enough that a bad
 * header cannot make us allocate gigabytes before the first link is read */
#define FILE_MAX_NODES (1u << 24)
#define FILE_MAX_LINKS (1u << 30)
#define FILE_MAX_PORTS 0xffffu /* a node's ports are numbered in 16 bits */

struct file_conf {
	const char *file;
};

static const struct ws_param file_params[] = {
	WS_PARAM_STRING("file", struct file_conf, file, NULL,
			"topology in the HPCC ns-3 layout (relative paths start at the ini file's directory)"),
	WS_PARAM_END
};

struct file_link {
	uint32_t a, b;
	uint64_t rate;  /* bits per second */
	ws_time delay;
};

struct file_state {
	uint8_t *is_switch;      /* per node */
	uint32_t *degree;        /* per node: its links, hence its ports */
	struct file_link *links; /* in file order: the order of the ports */
	uint32_t n_nodes, n_switches, n_links;
	uint32_t cap_links;
	uint32_t ignored;        /* lines after the declared links */
	char path[4096];
};

/* what the parser expects next */
enum file_stage { FILE_HEADER, FILE_SWITCHES, FILE_LINKS, FILE_DONE };

static int file_fail(struct ws_err *err, const char *path, uint32_t line,
		     const char *fmt, ...) WS_PRINTF(4, 5);

static int file_fail(struct ws_err *err, const char *path, uint32_t line,
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

/* Split `buf` into fields, keeping the first `max`; returns how many
 * there were. */
static int file_split(char *buf, char **tok, int max)
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

static int file_header(struct file_state *s, char *buf, uint32_t line,
		       struct ws_err *err)
{
	static const char *const names[3] = { "nodes", "switches", "links" };
	char *tok[3];
	int n = file_split(buf, tok, 3);
	if (n != 3)
		return file_fail(err, s->path, line,
				 "the first line must be 'nodes switches links' "
				 "(found %d field%s)", n, n == 1 ? "" : "s");
	uint64_t v[3];
	for (int i = 0; i < 3; i++)
		if (!ws_text_u64(tok[i], &v[i]))
			return file_fail(err, s->path, line,
					 "bad %s '%s' on the first line (expected a "
					 "non-negative integer; the line is 'nodes "
					 "switches links')", names[i], tok[i]);
	if (v[0] < 2 || v[0] > FILE_MAX_NODES)
		return file_fail(err, s->path, line, "nodes = %" PRIu64 ": expected "
				 "2 .. %u", v[0], FILE_MAX_NODES);
	if (v[1] > v[0] - 2)
		return file_fail(err, s->path, line, "switches = %" PRIu64 " of %"
				 PRIu64 " nodes: at least 2 nodes must be hosts",
				 v[1], v[0]);
	if (v[2] < v[0] - 1 || v[2] > FILE_MAX_LINKS)
		return file_fail(err, s->path, line, "links = %" PRIu64 ": expected "
				 "%" PRIu64 " .. %u (%" PRIu64 " nodes need at least %"
				 PRIu64 " links to be connected)", v[2], v[0] - 1,
				 FILE_MAX_LINKS, v[0], v[0] - 1);
	s->n_nodes = (uint32_t)v[0];
	s->n_switches = (uint32_t)v[1];
	s->n_links = (uint32_t)v[2];
	s->is_switch = calloc(s->n_nodes, sizeof *s->is_switch);
	s->degree = calloc(s->n_nodes, sizeof *s->degree);
	if (!s->is_switch || !s->degree)
		return ws_err_set(err, WS_ENOMEM, "out of memory for %u nodes",
				  s->n_nodes);
	return WS_OK;
}

static int file_switches(struct file_state *s, char *buf, uint32_t line,
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
	if (n != s->n_switches)
		return file_fail(err, s->path, line,
				 "expected the %u switch ids the first line declares, "
				 "found %u field%s (the second line lists the switches)",
				 s->n_switches, n, n == 1 ? "" : "s");
	char *save = NULL;
	uint32_t field = 0;
	for (char *t = strtok_r(buf, " \t\r\n", &save); t;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		uint64_t id;
		field++;
		if (!ws_text_u64(t, &id))
			return file_fail(err, s->path, line,
					 "bad switch id '%s' (field %u; expected a node "
					 "id, a non-negative integer)", t, field);
		if (id >= s->n_nodes)
			return file_fail(err, s->path, line,
					 "switch id %" PRIu64 " (field %u) is not a node: "
					 "the first line declares nodes 0..%u", id, field,
					 s->n_nodes - 1);
		if (s->is_switch[id])
			return file_fail(err, s->path, line,
					 "switch id %" PRIu64 " (field %u) is listed twice",
					 id, field);
		s->is_switch[id] = 1;
	}
	return WS_OK;
}

static int file_link_line(struct file_state *s, uint32_t index, char *buf,
			  uint32_t line, struct ws_err *err)
{
	static const struct ws_param rate_param = {
		.key = "rate", .type = WS_PT_RATE, .min = "1Mbps", .max = "100Tbps",
	};
	static const struct ws_param delay_param = {
		.key = "delay", .type = WS_PT_TIME, .min = "0s", .max = "1s",
	};
	char *tok[5];
	int n = file_split(buf, tok, 5);
	if (n != 5)
		return file_fail(err, s->path, line,
				 "%s (found %d field%s; expected: src dst rate delay "
				 "error_rate)", n > 5 ? "too many fields" : "too few fields",
				 n, n == 1 ? "" : "s");
	uint64_t id[2];
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "dst" : "src";
		if (!ws_text_u64(tok[i], &id[i]))
			return file_fail(err, s->path, line,
					 "bad %s '%s' (expected a node id, a non-negative "
					 "integer)", name, tok[i]);
		if (id[i] >= s->n_nodes)
			return file_fail(err, s->path, line,
					 "no such node %" PRIu64 " (%s): the first line "
					 "declares nodes 0..%u", id[i], name, s->n_nodes - 1);
	}
	if (id[0] == id[1])
		return file_fail(err, s->path, line, "a link from node %" PRIu64
				 " to itself", id[0]);
	struct file_link l = { .a = (uint32_t)id[0], .b = (uint32_t)id[1] };
	char why[256];
	if (ws_param_parse(&rate_param, tok[2], &l.rate, why, sizeof why))
		return file_fail(err, s->path, line, "bad rate '%s': %s", tok[2], why);
	if (ws_param_parse(&delay_param, tok[3], &l.delay, why, sizeof why))
		return file_fail(err, s->path, line, "bad delay '%s': %s", tok[3], why);
	char *end;
	errno = 0;
	double loss = strtod(tok[4], &end);
	if (*end || errno || !isfinite(loss) || loss < 0 ||
	    !(isdigit((unsigned char)tok[4][0]) || tok[4][0] == '.'))
		return file_fail(err, s->path, line, "bad error_rate '%s' (expected "
				 "0)", tok[4]);
	if (loss != 0)
		return file_fail(err, s->path, line, "error_rate %s: warpsim does not "
				 "model random link loss; use 0", tok[4]);
	for (int i = 0; i < 2; i++)
		if (s->degree[id[i]] == FILE_MAX_PORTS)
			return file_fail(err, s->path, line,
					 "node %" PRIu64 " has more than %u links (a "
					 "node's ports are numbered in 16 bits)", id[i],
					 FILE_MAX_PORTS);
	if (index == s->cap_links) {
		/* grow as lines arrive: a header may promise more than the file has */
		uint32_t cap = s->cap_links ? s->cap_links * 2 : 1024;
		if (cap > s->n_links)
			cap = s->n_links;
		struct file_link *nl = realloc(s->links, (size_t)cap * sizeof *nl);
		if (!nl)
			return ws_err_set(err, WS_ENOMEM, "out of memory for %u links",
					  cap);
		s->links = nl;
		s->cap_links = cap;
	}
	s->links[index] = l;
	s->degree[l.a]++;
	s->degree[l.b]++;
	return WS_OK;
}

static uint32_t file_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Every node has a link and every node reaches node 0 (union-find: O(links)). */
static int file_check_graph(const struct file_state *s, struct ws_err *err)
{
	uint32_t bare = 0, first = 0;
	for (uint32_t i = 0; i < s->n_nodes; i++)
		if (!s->degree[i] && !bare++)
			first = i;
	if (bare)
		return ws_err_at(err, WS_EINVAL, s->path, 0,
				 "node %u (a %s) has no link; every node the first line "
				 "declares needs one (%u node%s without a link)", first,
				 s->is_switch[first] ? "switch" : "host", bare,
				 bare == 1 ? "" : "s");
	uint32_t *parent = malloc((size_t)s->n_nodes * sizeof *parent);
	if (!parent)
		return ws_err_set(err, WS_ENOMEM, "out of memory for %u nodes",
				  s->n_nodes);
	for (uint32_t i = 0; i < s->n_nodes; i++)
		parent[i] = i;
	uint32_t parts = s->n_nodes;
	for (uint32_t i = 0; i < s->n_links; i++) {
		uint32_t x = file_find(parent, s->links[i].a);
		uint32_t y = file_find(parent, s->links[i].b);
		if (x != y) {
			parent[x] = y;
			parts--;
		}
	}
	int rc = WS_OK;
	if (parts > 1) {
		uint32_t root = file_find(parent, 0), other = 1;
		while (file_find(parent, other) == root)
			other++;
		rc = ws_err_at(err, WS_EINVAL, s->path, 0,
			       "the graph is not connected: node 0 cannot reach node "
			       "%u (the links form %u separate parts)", other, parts);
	}
	free(parent);
	return rc;
}

static int file_read(struct file_state *s, FILE *f, struct ws_err *err)
{
	char *buf = NULL;
	size_t cap = 0;
	uint32_t n_read = 0;
	int lineno = 0, got;
	enum file_stage stage = FILE_HEADER;
	int rc = WS_OK;
	while (!rc && (got = ws_text_line(f, &buf, &cap, WS_TEXT_LINE_MAX, s->path,
					  &lineno, err)) == 1) {
		if (ws_text_blank(buf))
			continue;
		switch (stage) {
		case FILE_HEADER:
			rc = file_header(s, buf, lineno, err);
			/* with no switches the reference reads no ids: a line 2
			 * left blank is skipped above, and none is needed */
			stage = s->n_switches ? FILE_SWITCHES : FILE_LINKS;
			break;
		case FILE_SWITCHES:
			rc = file_switches(s, buf, lineno, err);
			stage = FILE_LINKS;
			break;
		case FILE_LINKS:
			rc = file_link_line(s, n_read, buf, lineno, err);
			if (++n_read == s->n_links)
				stage = FILE_DONE;
			break;
		case FILE_DONE:
			s->ignored++;
			break;
		}
	}
	free(buf);
	if (rc)
		return rc;
	if (got < 0)
		return got;
	switch (stage) {
	case FILE_HEADER:
		return ws_err_at(err, WS_EINVAL, s->path, 0,
				 "empty topology file (expected 'nodes switches links' "
				 "on the first line)");
	case FILE_SWITCHES:
		return ws_err_at(err, WS_EINVAL, s->path, (int)lineno,
				 "the file ends before the line of the %u switch ids the "
				 "first line declares", s->n_switches);
	case FILE_LINKS:
		return ws_err_at(err, WS_EINVAL, s->path, (int)lineno,
				 "the first line declares %u links but the file ends "
				 "after %u", s->n_links, n_read);
	case FILE_DONE:
		break;
	}
	return file_check_graph(s, err);
}

static void file_release(struct file_state *s)
{
	free(s->is_switch);
	free(s->degree);
	free(s->links);
	s->is_switch = NULL;
	s->degree = NULL;
	s->links = NULL;
}

static int file_init(struct ws_inst *inst, struct ws_err *err)
{
	const struct file_conf *c = inst->conf;
	struct file_state *s = inst->state;
	int rc = ws_resolve_path(inst->sim, c->file, s->path, sizeof s->path, err);
	if (rc)
		return rc;
	FILE *f = fopen(s->path, "r");
	if (!f)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EIO, s->path, 0,
				 "cannot open the topology file: %s", strerror(errno));
	rc = file_read(s, f, err);
	fclose(f);
	if (rc) {
		file_release(s);
		return rc;
	}
	if (s->ignored)
		ws_warn(inst->sim, "%s: ignoring %u line(s) after the %u links "
			"declared on the first line", s->path, s->ignored, s->n_links);
	return WS_OK;
}

static int file_build(struct ws_inst *inst, struct ws_builder *b,
		      struct ws_err *err)
{
	struct file_state *s = inst->state;
	int rc = ws_builder_reserve(b, s->n_nodes, 2 * s->n_links, err);
	if (rc)
		return rc;
	uint32_t hosts = 0, switches = 0;
	for (uint32_t i = 0; i < s->n_nodes; i++) {
		bool sw = s->is_switch[i];
		struct ws_node_spec spec = { WS_INIT_SIZE(struct ws_node_spec),
			.kind = sw ? WS_NODE_SWITCH : WS_NODE_HOST,
			.level = sw ? 1 : 0,
			.n_ports = (uint16_t)s->degree[i],
			.index = sw ? switches++ : hosts++,
		};
		if (ws_builder_add_node(b, &spec, err) == WS_NONE)
			return WS_EPLUGIN;
	}
	/* the degrees now count the ports given so far */
	memset(s->degree, 0, (size_t)s->n_nodes * sizeof *s->degree);
	for (uint32_t i = 0; i < s->n_links; i++) {
		const struct file_link *l = &s->links[i];
		rc = ws_builder_link(b, l->a, s->degree[l->a]++, l->b,
				     s->degree[l->b]++, l->rate, l->delay, err);
		if (rc)
			return rc;
	}
	ws_builder_set_shape(b, WS_SHAPE_GRAPH, 0);
	/* the fabric holds it all now */
	file_release(s);
	return WS_OK;
}

static void file_fini(struct ws_inst *inst)
{
	file_release(inst->state);
}

static const struct ws_topo_ops file_ops = {
	.size = sizeof(struct ws_topo_ops),
	.build = file_build,
	.default_routing = "table",
};

static const struct ws_plugin file_plugin = {
	WS_PLUGIN_ABI(WS_KIND_TOPO, struct ws_topo_ops),
	.name = "file",
	.version = "1.0.0",
	.summary = "explicit graph from an HPCC ns-3 topology file: nodes switches links, switch ids, a b rate delay 0",
	.params = file_params,
	.conf_size = sizeof(struct file_conf),
	.state_size = sizeof(struct file_state),
	.init = file_init,
	.fini = file_fini,
	.ops = &file_ops,
};

WS_PLUGIN_EXPORT(file_plugin)
