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
 * the choice updown makes on a fat-tree, port for port.  Under [sim] ecmp =
 * ns3 the candidates are listed and hashed as the ns-3 reference does
 * (table_ns3_ranks): its paths, flow for flow.  A fabric where some
 * host cannot reach another through switches is refused in prepare().
 *
 * Failures (link_change) change only what they must.  The shared rows are
 * never written: the instance keeps a bit per port (link down) and, for a
 * destination whose distances a change moves, its own row over the live
 * graph (two bytes per node), searched again by BFS and dropped when it
 * equals the shared row once more.  A link going down moves row d only if
 * one of its ends x was one link farther from d than the other end y (y
 * being d or a switch) and x has no other live port one link closer: else
 * every distance stays and x simply takes another of its equal-cost
 * ports.  A link coming back moves row d only if it brings an end strictly
 * closer to d (a link that only ties adds a next hop the port scan finds
 * by itself).  So on the HPCC fat.txt (320 hosts, 16 per edge switch) a
 * failed edge-aggregation link searches again the 16 rows of the hosts
 * below that edge switch (the aggregation switch loses its only short way
 * down; the edge switch keeps three ways up), and a host's own link every
 * row (the host is cut off).
 * At a node, a port is a next hop only if its link is up as the rule
 * knows it and as the node sees it (ws_port_up: before the rule is told);
 * a destination no live path reaches gets WS_PORT_NONE (the kernel drops).
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
	uint32_t *rank;    /* [host index][node id]: the node's place in the
			    * ns-3 reference's BFS queue from that host, under
			    * [sim] ecmp = ns3 (else NULL); UINT32_MAX: never
			    * queued */
	uint64_t bytes;    /* all of the above */
	/* failures: the instance's own, never shared (zero until the first
	 * link_change) */
	uint16_t **row;    /* [host index] the row over the live graph, NULL:
			    * the shared row still holds */
	uint64_t *dead;    /* bit per global port: its link is down */
	uint32_t *queue;   /* n_nodes, for the searches */
	uint32_t n_hosts;
	uint32_t peer_ports; /* ports in `peer` (fabric n_ports) */
	uint32_t n_rows;   /* rows held in `row` */
	uint64_t n_dead;   /* port ends down */
	uint64_t searches; /* rows searched again since prepare */
	const uint64_t *changes; /* the kernel's count of link changes (per instance) */
};

#define TABLE_ROW_UNREACHED 0xffffu
#define TABLE_FAR UINT32_MAX /* "no path", whatever the row's width */

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

/* The live distance from `node` to host index h, TABLE_FAR when none. */
static inline uint32_t table_live(const struct table_state *s, size_t host,
				  uint32_t node)
{
	if (s->n_rows && s->row[host]) {
		uint32_t v = s->row[host][node];
		return v == TABLE_ROW_UNREACHED ? TABLE_FAR : v;
	}
	uint32_t v = table_dist(s, host, node);
	return v == s->unreached ? TABLE_FAR : v;
}

static inline bool table_is_dead(const struct table_state *s, uint32_t gport)
{
	return s->n_dead && (s->dead[gport >> 6] >> (gport & 63) & 1);
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

/* What link_change added: the instance's own, shared or not. */
static void table_free_failures(struct table_state *s)
{
	for (uint32_t h = 0; s->row && h < s->n_hosts; h++)
		free(s->row[h]);
	free(s->row);
	free(s->dead);
	free(s->queue);
	s->row = NULL;
	s->dead = NULL;
	s->queue = NULL;
	s->n_rows = 0;
	s->n_dead = 0;
	s->searches = 0;
}

static void table_free(struct table_state *s)
{
	table_free_failures(s);
	if (s->borrowed) {
		memset(s, 0, sizeof *s);
		return;
	}
	free(s->dist);
	free(s->peer);
	free(s->hidx);
	free(s->rank);
	s->dist = NULL;
	s->peer = NULL;
	s->hidx = NULL;
	s->rank = NULL;
	s->bytes = 0;
}

/* ---- the ns-3 reference's order of next hops ([sim] ecmp = ns3) ----------- */

struct table_nbr {
	uint64_t key;  /* ws_ns3_order_key of the neighbour */
	uint32_t node;
};

static int table_nbr_cmp(const void *a, const void *b)
{
	const struct table_nbr *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * The reference (third.cc, CalculateRoute) searches from each host through
 * switches, visiting a node's neighbours in the order of their objects'
 * addresses (ws_ns3_order_key), and lists a node's next hops toward that
 * host in the order the search queued them.  rank[h][node] keeps that
 * place; decisions sort their candidates by it.  Parallel links count
 * once there, as the reference keeps one interface per neighbour.
 */
static int table_ns3_ranks(struct table_state *s, struct ws_inst *inst,
			   const struct ws_fabric *fab, uint32_t *queue)
{
	size_t n = fab->n_nodes;
	uint32_t *off = malloc((n + 1) * sizeof *off);
	struct table_nbr *nb = malloc(((size_t)fab->n_ports + 1) * sizeof *nb);
	s->rank = malloc((size_t)fab->n_hosts * n * sizeof *s->rank);
	if (!off || !nb || !s->rank) {
		free(off);
		free(nb);
		return WS_ENOMEM;
	}
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct ws_node *u = &fab->nodes[i];
		off[i] = m;
		for (uint32_t p = 0; p < u->n_ports; p++) {
			uint32_t q = s->peer[u->first_port + p];
			if (q == WS_NONE)
				continue;
			nb[m].node = q;
			nb[m++].key = ws_ns3_order_key(inst->sim, q);
		}
		qsort(nb + off[i], m - off[i], sizeof *nb, table_nbr_cmp);
	}
	off[n] = m;
	for (uint32_t h = 0; h < fab->n_hosts; h++) {
		uint32_t *rank = s->rank + (size_t)h * n;
		uint32_t head = 0, tail = 0;
		memset(rank, 0xff, n * sizeof *rank);
		queue[tail] = fab->hosts[h];
		rank[queue[tail]] = tail;
		tail++;
		while (head < tail) {
			uint32_t u = queue[head++];
			for (uint32_t k = off[u]; k < off[u + 1]; k++) {
				uint32_t q = nb[k].node;
				if (rank[q] != UINT32_MAX || q == fab->hosts[h] ||
				    fab->nodes[q].kind != WS_NODE_SWITCH)
					continue;
				rank[q] = tail;
				queue[tail++] = q;
			}
		}
	}
	free(off);
	free(nb);
	s->bytes += (uint64_t)fab->n_hosts * n * sizeof *s->rank;
	return WS_OK;
}

static int table_prepare(struct ws_inst *inst, const struct ws_fabric *fab,
			 struct ws_err *err)
{
	struct table_state *s = inst->state;
	table_free(s);
	/* the distance matrix is O(hosts x nodes): refused from its estimate
	 * (one byte an entry at the least) before anything is allocated */
	char what[160];
	snprintf(what, sizeof what, "table: the distance matrix of %u hosts x %u nodes",
		 fab->n_hosts, fab->n_nodes);
	int mrc = ws_mem_check(inst->sim, (uint64_t)fab->n_hosts * fab->n_nodes +
			       (uint64_t)fab->n_ports * sizeof *s->peer +
			       2 * (uint64_t)fab->n_nodes * sizeof *s->hidx, 0, what, err);
	if (mrc)
		return mrc;
	s->changes = ws_sim_link_changes(inst->sim);
	s->n_nodes = fab->n_nodes;
	s->peer_ports = fab->n_ports;
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
	if (s->wide < 2 && ws_sim_ns3_ecmp(inst->sim) &&
	    table_ns3_ranks(s, inst, fab, queue))
		goto nomem;
	free(queue);
	queue = NULL;
	if (s->wide == 2) {
		table_free(s);
		return ws_err_set(err, WS_EINVAL, "table: a shortest path is longer "
				  "than 65534 links");
	}
	s->bytes += (uint64_t)entries * (s->wide ? 2 : 1) +
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

/*
 * The next hops of `at` toward host dst in one row (`row`: one-byte
 * entries, or two-byte when `wide`): ports whose peer is one link closer
 * (dst itself or a switch) and whose link the rule knows up, and with
 * `local` that the node sees up.  Returns the one the flow's hash picks,
 * in port order.  Always inlined with constant `wide` and `local`, so the
 * failure-free scan costs what it did before failures existed.
 */
static inline __attribute__((always_inline)) uint32_t
table_scan(struct ws_inst *inst, const struct table_state *s, const void *row,
	   const bool wide, const struct ws_node *at, uint32_t dst, uint32_t here,
	   const struct ws_pkt *pkt, const bool local)
{
	const uint32_t *peer = s->peer + at->first_port;
	const uint32_t n_ports = at->n_ports;
	uint32_t choices = 0, last = WS_PORT_NONE;
#define TABLE_CLOSER(p)                                                       \
	((wide ? ((const uint16_t *)row)[peer[p]] : ((const uint8_t *)row)[peer[p]]) + 1u == \
		 here &&                                                      \
	 (peer[p] == dst || s->hidx[peer[p]] == WS_NONE) &&                   \
	 !table_is_dead(s, at->first_port + (p)) &&                           \
	 (!local || ws_port_up(inst->sim, at->id, (p))))
	for (uint32_t p = 0; p < n_ports; p++) {
		if (TABLE_CLOSER(p)) {
			choices++;
			last = p;
		}
	}
	if (choices <= 1)
		return last;
	const struct table_conf *c = inst->conf;
	uint64_t seed = (uint64_t)at->id ^ (c->ecmp_seed * 0x9e3779b97f4a7c15ull);
	uint32_t pick = (uint32_t)(ws_flow_hash(pkt, seed) % choices);
	for (uint32_t p = 0; p < n_ports; p++)
		if (TABLE_CLOSER(p) && pick-- == 0)
			return p;
#undef TABLE_CLOSER
	return WS_PORT_NONE;
}

/*
 * Under [sim] ecmp = ns3: the same candidates, listed in the reference's
 * order (their places in its search from dst), and the one its hash picks.
 * Quadratic in the node's ports: for the small fabrics studies replay.
 */
static uint32_t table_scan_ns3(struct ws_inst *inst, const struct table_state *s,
			       const void *row, bool wide, const struct ws_node *at,
			       uint32_t dst, uint32_t here, const struct ws_pkt *pkt,
			       bool local)
{
	const uint32_t *peer = s->peer + at->first_port;
	const uint32_t *rank = s->rank + (size_t)s->hidx[dst] * s->n_nodes;
	uint32_t choices = 0, last = WS_PORT_NONE;
#define TABLE_CLOSER_NS3(p)                                                   \
	((wide ? ((const uint16_t *)row)[peer[p]] : ((const uint8_t *)row)[peer[p]]) + 1u == \
		 here &&                                                      \
	 (peer[p] == dst || s->hidx[peer[p]] == WS_NONE) &&                   \
	 !table_is_dead(s, at->first_port + (p)) &&                           \
	 (!local || ws_port_up(inst->sim, at->id, (p))))
	for (uint32_t p = 0; p < at->n_ports; p++) {
		if (TABLE_CLOSER_NS3(p)) {
			choices++;
			last = p;
		}
	}
	if (choices <= 1)
		return last;
	uint32_t pick = ws_ns3_ecmp_hash(pkt, at->id) % choices;
	for (uint32_t p = 0; p < at->n_ports; p++) {
		if (!TABLE_CLOSER_NS3(p))
			continue;
		uint32_t before = 0;
		for (uint32_t q = 0; q < at->n_ports; q++)
			if (TABLE_CLOSER_NS3(q) && rank[peer[q]] < rank[peer[p]])
				before++;
		if (before == pick)
			return p;
	}
#undef TABLE_CLOSER_NS3
	return WS_PORT_NONE;
}

/*
 * The pick over links the rule knows up, in the row it holds for dst (its
 * own over the live graph, else the shared one); if this node sees that
 * port down (before the rule is told), the pick over the ports it sees up.
 * "No path" + 1 is never `here`, which is below it.
 */
static uint32_t table_next_port(struct ws_inst *inst, const struct ws_node *at,
				const struct ws_node *dst,
				const struct ws_pkt *pkt)
{
	const struct table_state *s = inst->state;
	uint32_t h = s->hidx[dst->id];
	if (h == WS_NONE)
		return WS_PORT_NONE;
	const bool own = s->n_rows && s->row[h];
	const bool wide = own || s->wide;
	const void *row = own ? (const void *)s->row[h]
			      : (const char *)s->dist + (size_t)h * s->n_nodes * (wide ? 2 : 1);
	const uint32_t far = own ? TABLE_ROW_UNREACHED : s->unreached;
	const uint32_t here = wide ? ((const uint16_t *)row)[at->id]
				   : ((const uint8_t *)row)[at->id];
	if (here == far || here == 0)
		return WS_PORT_NONE;
	if (s->rank) {
		uint32_t p = table_scan_ns3(inst, s, row, wide, at, dst->id, here, pkt, false);
		if (p == WS_PORT_NONE || *s->changes == 0 || ws_port_up(inst->sim, at->id, p))
			return p;
		return table_scan_ns3(inst, s, row, wide, at, dst->id, here, pkt, true);
	}
	uint32_t p = wide ? table_scan(inst, s, row, true, at, dst->id, here, pkt, false)
			  : table_scan(inst, s, row, false, at, dst->id, here, pkt, false);
	if (p == WS_PORT_NONE || __builtin_expect(*s->changes == 0, 1) ||
	    ws_port_up(inst->sim, at->id, p))
		return p;
	return wide ? table_scan(inst, s, row, true, at, dst->id, here, pkt, true)
		    : table_scan(inst, s, row, false, at, dst->id, here, pkt, true);
}

/* ---- failures ------------------------------------------------------------ */

/*
 * The row of host index h over the live graph (links in `dead` left out),
 * by BFS into `out` (n_nodes entries, TABLE_ROW_UNREACHED for no path).
 */
static int table_bfs_live(struct table_state *s, const struct ws_fabric *fab,
			  uint32_t h, uint16_t *out, struct ws_err *err)
{
	const uint32_t d = fab->hosts[h];
	uint32_t head = 0, tail = 0;
	memset(out, 0xff, (size_t)s->n_nodes * sizeof *out);
	out[d] = 0;
	s->queue[tail++] = d;
	while (head < tail) {
		const struct ws_node *u = &fab->nodes[s->queue[head++]];
		const uint32_t next = out[u->id] + 1u;
		for (uint32_t p = 0; p < u->n_ports; p++) {
			const uint32_t q = s->peer[u->first_port + p];
			if (q == WS_NONE || out[q] != TABLE_ROW_UNREACHED ||
			    table_is_dead(s, u->first_port + p))
				continue;
			if (next >= TABLE_ROW_UNREACHED)
				return ws_err_set(err, WS_EINVAL, "table: after a failure, a "
						  "shortest path is longer than 65534 links");
			out[q] = (uint16_t)next;
			if (fab->nodes[q].kind == WS_NODE_SWITCH)
				s->queue[tail++] = q;
		}
	}
	return WS_OK;
}

/* Search row h again; keep it only where it differs from the shared row. */
static int table_research(struct table_state *s, const struct ws_fabric *fab,
			  uint32_t h, struct ws_err *err)
{
	uint16_t *row = s->row[h] ? s->row[h] : malloc((size_t)s->n_nodes * sizeof *row);
	if (!row)
		return ws_err_set(err, WS_ENOMEM, "table: no memory for a row of "
				  "%u nodes", s->n_nodes);
	const bool held = s->row[h] != NULL;
	int rc = table_bfs_live(s, fab, h, row, err);
	s->searches++;
	bool same = rc == WS_OK;
	for (uint32_t n = 0; same && n < s->n_nodes; n++) {
		uint32_t v = table_dist(s, h, n);
		same = (v == s->unreached ? TABLE_ROW_UNREACHED : v) == row[n];
	}
	if (rc || same) {
		free(row);
		s->row[h] = NULL;
		s->n_rows -= held;
		return rc;
	}
	s->row[h] = row;
	s->n_rows += !held;
	return WS_OK;
}

/*
 * Does the change of link x - y (the port `gport` of x) change row h's
 * distances, seen from x?  Down: x was one link farther than y, y may
 * forward to the destination (a switch, or the destination itself), and
 * no other live port of x does the same.  Up: the link brings x closer.
 */
static bool table_affects(const struct table_state *s, const struct ws_fabric *fab,
			  uint32_t h, uint32_t x, uint32_t y, bool up)
{
	const uint32_t d = fab->hosts[h];
	const uint32_t dx = table_live(s, h, x), dy = table_live(s, h, y);
	if (dy == TABLE_FAR || (y != d && s->hidx[y] != WS_NONE))
		return false;
	if (up)
		return dx == TABLE_FAR || dx > dy + 1;
	if (dx != dy + 1)
		return false;
	const struct ws_node *n = &fab->nodes[x];
	for (uint32_t p = 0; p < n->n_ports; p++) {
		const uint32_t q = s->peer[n->first_port + p];
		if (!table_is_dead(s, n->first_port + p) && q != WS_NONE &&
		    table_live(s, h, q) + 1 == dx && (q == d || s->hidx[q] == WS_NONE))
			return false; /* another shortest way out: nothing moves */
	}
	return true;
}

static int table_failures_init(struct table_state *s, const struct ws_fabric *fab,
			       struct ws_err *err)
{
	s->n_hosts = fab->n_hosts;
	s->row = calloc(fab->n_hosts, sizeof *s->row);
	s->dead = calloc(((size_t)fab->n_ports + 63) / 64, sizeof *s->dead);
	s->queue = malloc((size_t)fab->n_nodes * sizeof *s->queue);
	if (s->row && s->dead && s->queue)
		return WS_OK;
	table_free_failures(s);
	return ws_err_set(err, WS_ENOMEM, "table: no memory for the failure state");
}

/*
 * A link went down or came back: mark both ends, then search again only the
 * rows whose distances it changes (table_affects); a row equal to the
 * shared one again is dropped.  The shared rows are never written.
 */
static int table_link_change(struct ws_inst *inst, const struct ws_fabric *fab,
			     uint32_t node, uint32_t local, bool up,
			     struct ws_err *err)
{
	struct table_state *s = inst->state;
	if (!s->row && table_failures_init(s, fab, err))
		return WS_ENOMEM;
	const uint32_t ga = fab->nodes[node].first_port + local;
	const uint32_t peer = s->peer[ga];
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	if (peer == WS_NONE || ws_port_info(inst->sim, node, local, &pi))
		return ws_err_set(err, WS_EINVAL, "table: port %u of node %u is not "
				  "on a link", local, node);
	const uint32_t gb = fab->nodes[peer].first_port + pi.peer_local;
	if (table_is_dead(s, ga) == !up)
		return WS_OK; /* no change */
	const uint32_t end[2] = { ga, gb };
	for (int e = 0; e < 2; e++) {
		s->dead[end[e] >> 6] ^= 1ull << (end[e] & 63);
		s->n_dead += up ? -1ull : 1ull;
	}
	for (uint32_t h = 0; h < fab->n_hosts; h++) {
		if (!table_affects(s, fab, h, node, peer, up) &&
		    !table_affects(s, fab, h, peer, node, up))
			continue;
		int rc = table_research(s, fab, h, err);
		if (rc)
			return rc;
	}
	return WS_OK;
}

/* The shared tables (counted by every simulation using them) and this
 * instance's failure state: 2 * n_nodes bytes per row it holds. */
static uint64_t table_state_bytes(const struct ws_inst *inst)
{
	const struct table_state *s = inst->state;
	uint64_t bytes = s->bytes;
	if (s->row)
		bytes += (uint64_t)s->n_hosts * sizeof *s->row +
			 ((uint64_t)s->peer_ports + 63) / 64 * sizeof *s->dead +
			 (uint64_t)s->n_nodes * sizeof *s->queue +
			 (uint64_t)s->n_rows * s->n_nodes * sizeof **s->row;
	return bytes;
}

static void table_fini(struct ws_inst *inst)
{
	table_free(inst->state);
}

/* The tables depend on the fabric, ecmp_seed and [sim] ecmp's order only
 * (the kernel's cache key has all three) and are never written
 * after prepare: simulations of one fabric share them (ABI 2.2).  What
 * failures change stays in each instance. */
static void *table_share(struct ws_inst *inst)
{
	struct table_state *s = inst->state;
	struct table_state *shared = malloc(sizeof *shared);
	if (!shared)
		return NULL; /* the instance keeps them; each simulation prepares */
	*shared = *s;
	shared->row = NULL;
	shared->dead = NULL;
	shared->queue = NULL;
	shared->n_rows = 0;
	shared->n_dead = 0;
	s->borrowed = 1;
	return shared;
}

static void table_adopt(struct ws_inst *inst, const void *shared)
{
	struct table_state *s = inst->state;
	table_free_failures(s);
	*s = *(const struct table_state *)shared;
	s->borrowed = 1;
	s->changes = ws_sim_link_changes(inst->sim);
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
	.link_change = table_link_change,
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
