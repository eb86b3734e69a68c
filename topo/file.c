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
#include <inttypes.h>

#include <warpsim/warpsim.h>

#include "graph-file.h"

struct file_conf {
	const char *file;
};

static const struct ws_param file_params[] = {
	WS_PARAM_STRING("file", struct file_conf, file, NULL,
			"topology in the HPCC ns-3 layout (relative paths start at the ini file's directory)"),
	WS_PARAM_END
};

static int file_header(struct gfile *g, char *buf, uint32_t line, void *ctx,
		       struct ws_err *err)
{
	static const char *const names[3] = { "nodes", "switches", "links" };
	char *tok[3];
	int n = gfile_split(buf, tok, 3);
	if (n != 3)
		return gfile_fail(err, g->path, line,
				 "the first line must be 'nodes switches links' "
				 "(found %d field%s)", n, n == 1 ? "" : "s");
	uint64_t v[3];
	for (int i = 0; i < 3; i++)
		if (!ws_text_u64(tok[i], &v[i]))
			return gfile_fail(err, g->path, line,
					 "bad %s '%s' on the first line (expected a "
					 "non-negative integer; the line is 'nodes "
					 "switches links')", names[i], tok[i]);
	if (v[0] < 2 || v[0] > GFILE_MAX_NODES)
		return gfile_fail(err, g->path, line, "nodes = %" PRIu64 ": expected "
				 "2 .. %u", v[0], GFILE_MAX_NODES);
	if (v[1] > v[0] - 2)
		return gfile_fail(err, g->path, line, "switches = %" PRIu64 " of %"
				 PRIu64 " nodes: at least 2 nodes must be hosts",
				 v[1], v[0]);
	if (v[2] < v[0] - 1 || v[2] > GFILE_MAX_LINKS)
		return gfile_fail(err, g->path, line, "links = %" PRIu64 ": expected "
				 "%" PRIu64 " .. %u (%" PRIu64 " nodes need at least %"
				 PRIu64 " links to be connected)", v[2], v[0] - 1,
				 GFILE_MAX_LINKS, v[0], v[0] - 1);
	(void)ctx;
	return gfile_alloc(g, (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], err);
}

static int file_init(struct ws_inst *inst, struct ws_err *err)
{
	const struct file_conf *c = inst->conf;
	struct gfile *g = inst->state;
	g->header_text = "nodes switches links";
	return gfile_load(g, inst, c->file, file_header, NULL, err);
}

static int file_build(struct ws_inst *inst, struct ws_builder *b,
		      struct ws_err *err)
{
	struct gfile *g = inst->state;
	int rc = gfile_build(g, b, NULL, err);
	/* the fabric holds it all now */
	if (!rc)
		gfile_release(g);
	return rc;
}

static void file_fini(struct ws_inst *inst)
{
	gfile_release(inst->state);
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
	.state_size = sizeof(struct gfile),
	.init = file_init,
	.fini = file_fini,
	.ops = &file_ops,
};

WS_PLUGIN_EXPORT(file_plugin)
