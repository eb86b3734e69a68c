/* SPDX-License-Identifier: MIT */
/*
 * table: shortest paths from a breadth-first search, with per-flow ECMP over
 * every equal-cost next hop, for fabrics that have no addresses to compute
 * a port from (irregular graphs, topologies replayed from other simulators'
 * files) and as a reference for the table-free rules.
 *
 * It is the one rule with a per-destination table, and it costs
 * O(hosts x nodes) memory: prepare() runs one BFS per destination host and
 * keeps dist[host][node], the links from every node to that host, in one
 * byte per entry (two when some distance does not fit in 254; the rule
 * retries with two bytes).  320 hosts x 376 nodes (the HPCC fat.txt) is
 * 120 KB; a k = 48 fat-tree (27648 hosts, 30528 nodes) is 844 MB and about
 * 6 s of BFS: regular fabrics at scale should use their own table-free rule
 * (updown for trees, dragonfly for dragonflies).
 *
 * Hosts do not forward: the search enters a host but never leaves one, so
 * a path never crosses a host other than its ends.  At node `at`, a packet
 * for host d may leave by any port whose peer is d itself, or a switch one
 * link closer to d than `at`; among those ports, in port order, it takes
 * the one an xxHash of its 5-tuple picks, seeded with the node id (and
 * ecmp_seed), so a flow keeps one path and nodes choose independently.  A
 * host with several ports chooses the same way.  With the same seed, this is
 * the choice updown makes on a fat-tree, port for port.  A fabric where some
 * host cannot reach another through switches is refused in prepare().
 */
#include <stdlib.h>
#include <string.h>

#include <warpsim/warpsim.h>

struct table_conf {
	uint64_t ecmp_seed;
};

static const struct ws_param table_params[] = {
	WS_PARAM_UINT("ecmp_seed", struct table_conf, ecmp_seed, "0", "0", NULL,
		      "mixed into every node's ECMP hash seed: another value, other paths"),
	WS_PARAM_END
};

struct table_state {
	void *dist;        /* [host index][node id], uint8_t or uint16_t entries */
	uint32_t *peer;    /* [global port] -> the node at the other end */
	uint32_t *hidx;    /* [node id] -> host index (WS_NONE for switches) */
	uint32_t n_nodes;
	uint32_t wide;     /* entries are uint16_t */
	uint32_t unreached; /* the entry value of "no path" */
	uint32_t borrowed; /* the arrays belong to the kernel (shared, ABI 2.2) */
	uint64_t bytes;    /* all of the above */
};

static inline uint32_t table_dist(const struct table_state *s, size_t host,
				  uint32_t node)
{
	size_t i = host * s->n_nodes + node;
	return s->wide ? ((const uint16_t *)s->dist)[i]
		       : ((const uint8_t *)s->dist)[i];
}

static inline void table_set(struct table_state *s, size_t host, uint32_t node,
			     uint32_t d)
{
	size_t i = host * s->n_nodes + node;
	if (s->wide)
		((uint16_t *)s->dist)[i] = (uint16_t)d;
	else
		((uint8_t *)s->dist)[i] = (uint8_t)d;
}

/*
 * Fill the row of host index h (node d) by BFS from d; `queue` holds n_nodes.
 * Returns 1 if a distance does not fit in the entry width, 0 otherwise.
 */
static int table_bfs(struct table_state *s, const struct ws_fabric *fab,
		     uint32_t h, uint32_t *queue)
{
	const uint32_t d = fab->hosts[h];
	uint32_t head = 0, tail = 0;
	table_set(s, h, d, 0);
	queue[tail++] = d;
	while (head < tail) {
		const struct ws_node *u = &fab->nodes[queue[head++]];
		uint32_t next = table_dist(s, h, u->id) + 1;
		for (uint32_t p = 0; p < u->n_ports; p++) {
			uint32_t q = s->peer[u->first_port + p];
			if (table_dist(s, h, q) != s->unreached)
				continue;
			if (next >= s->unreached)
				return 1;
			table_set(s, h, q, next);
			/* entered, not left: hosts do not forward */
			if (fab->nodes[q].kind == WS_NODE_SWITCH)
				queue[tail++] = q;
		}
	}
	return 0;
}

static void table_free(struct table_state *s)
{
	if (s->borrowed) {
		memset(s, 0, sizeof *s);
		return;
	}
	free(s->dist);
	free(s->peer);
	free(s->hidx);
	s->dist = NULL;
	s->peer = NULL;
	s->hidx = NULL;
	s->bytes = 0;
}

static int table_prepare(struct ws_inst *inst, const struct ws_fabric *fab,
			 struct ws_err *err)
{
	struct table_state *s = inst->state;
	table_free(s);
	s->n_nodes = fab->n_nodes;
	s->peer = malloc((size_t)fab->n_ports * sizeof *s->peer);
	s->hidx = malloc((size_t)fab->n_nodes * sizeof *s->hidx);
	uint32_t *queue = malloc((size_t)fab->n_nodes * sizeof *queue);
	if (!s->peer || !s->hidx || !queue)
		goto nomem;
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = &fab->nodes[i];
		s->hidx[i] = WS_NONE;
		for (uint32_t p = 0; p < n->n_ports; p++) {
			struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
			ws_port_info(inst->sim, i, p, &pi);
			s->peer[n->first_port + p] = pi.peer_node;
		}
	}
	for (uint32_t h = 0; h < fab->n_hosts; h++)
		s->hidx[fab->hosts[h]] = h;
	size_t entries = (size_t)fab->n_hosts * fab->n_nodes;
	for (s->wide = 0; s->wide < 2; s->wide++) {
		size_t width = s->wide ? sizeof(uint16_t) : sizeof(uint8_t);
		if (entries > SIZE_MAX / width)
			goto nomem;
		free(s->dist);
		s->dist = malloc(entries * width);
		if (!s->dist)
			goto nomem;
		/* every byte 0xff: "unreached" in either width */
		memset(s->dist, 0xff, entries * width);
		s->unreached = s->wide ? 0xffffu : 0xffu;
		uint32_t h = 0;
		while (h < fab->n_hosts && !table_bfs(s, fab, h, queue))
			h++;
		if (h == fab->n_hosts)
			break;
	}
	free(queue);
	queue = NULL;
	if (s->wide == 2) {
		table_free(s);
		return ws_err_set(err, WS_EINVAL, "table: a shortest path is longer "
				  "than 65534 links");
	}
	s->bytes = (uint64_t)entries * (s->wide ? 2 : 1) +
		   (uint64_t)fab->n_ports * sizeof *s->peer +
		   (uint64_t)fab->n_nodes * sizeof *s->hidx;
	/* every host must reach every other through switches */
	for (uint32_t h = 0; h < fab->n_hosts; h++)
		for (uint32_t g = 0; g < fab->n_hosts; g++)
			if (table_dist(s, h, fab->hosts[g]) == s->unreached)
				return ws_err_set(err, WS_EINVAL,
						  "table: node %u cannot reach node %u "
						  "(no path through switches; hosts do "
						  "not forward)", fab->hosts[g],
						  fab->hosts[h]);
	return WS_OK;
nomem:
	free(queue);
	table_free(s);
	return ws_err_set(err, WS_ENOMEM, "table: out of memory for the distance "
			  "matrix of %u hosts x %u nodes (it is O(N^2): use a "
			  "table-free rule for large fabrics)", fab->n_hosts,
			  fab->n_nodes);
}

static uint32_t table_next_port(struct ws_inst *inst, const struct ws_node *at,
				const struct ws_node *dst,
				const struct ws_pkt *pkt)
{
	const struct table_conf *c = inst->conf;
	const struct table_state *s = inst->state;
	uint32_t h = s->hidx[dst->id];
	if (h == WS_NONE)
		return WS_PORT_NONE;
	uint32_t here = table_dist(s, h, at->id);
	if (here == s->unreached || here == 0)
		return WS_PORT_NONE;
	const uint32_t *peer = s->peer + at->first_port;
	uint32_t choices = 0, last = WS_PORT_NONE;
	for (uint32_t p = 0; p < at->n_ports; p++) {
		uint32_t q = peer[p];
		if (table_dist(s, h, q) + 1 == here &&
		    (q == dst->id || s->hidx[q] == WS_NONE)) {
			choices++;
			last = p;
		}
	}
	if (choices <= 1)
		return last;
	uint64_t seed = (uint64_t)at->id ^ (c->ecmp_seed * 0x9e3779b97f4a7c15ull);
	uint32_t pick = (uint32_t)(ws_flow_hash(pkt, seed) % choices);
	for (uint32_t p = 0; p < at->n_ports; p++) {
		uint32_t q = peer[p];
		if (table_dist(s, h, q) + 1 == here &&
		    (q == dst->id || s->hidx[q] == WS_NONE) && pick-- == 0)
			return p;
	}
	return WS_PORT_NONE;
}

static uint64_t table_state_bytes(const struct ws_inst *inst)
{
	const struct table_state *s = inst->state;
	return s->bytes;
}

static void table_fini(struct ws_inst *inst)
{
	table_free(inst->state);
}

/* The tables depend on the fabric and ecmp_seed only and are never written
 * after prepare: simulations of one fabric share them (ABI 2.2). */
static void *table_share(struct ws_inst *inst)
{
	struct table_state *s = inst->state;
	struct table_state *shared = malloc(sizeof *shared);
	if (!shared)
		return NULL; /* the instance keeps them; each simulation prepares */
	*shared = *s;
	s->borrowed = 1;
	return shared;
}

static void table_adopt(struct ws_inst *inst, const void *shared)
{
	struct table_state *s = inst->state;
	*s = *(const struct table_state *)shared;
	s->borrowed = 1;
}

static void table_release(void *shared)
{
	table_free(shared);
	free(shared);
}

static const struct ws_routing_ops table_ops = {
	.size = sizeof(struct ws_routing_ops),
	.shapes = WS_SHAPE_GRAPH | WS_SHAPE_UPDOWN | WS_SHAPE_DRAGONFLY,
	.prepare = table_prepare,
	.next_port = table_next_port,
	.state_bytes = table_state_bytes,
	.share = table_share,
	.adopt = table_adopt,
	.release = table_release,
};

static const struct ws_plugin table_plugin = {
	WS_PLUGIN_ABI(WS_KIND_ROUTING, struct ws_routing_ops),
	.name = "table",
	.version = "1.0.0",
	.summary = "BFS shortest paths + per-flow ECMP for any graph; O(hosts x nodes) memory: "
		   "for irregular/replayed graphs, not huge fabrics (use updown, dragonfly)",
	.params = table_params,
	.conf_size = sizeof(struct table_conf),
	.state_size = sizeof(struct table_state),
	.fini = table_fini,
	.ops = &table_ops,
};

WS_PLUGIN_EXPORT(table_plugin)
