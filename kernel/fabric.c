/* SPDX-License-Identifier: MIT */
/*
 * The fabric and its builder.  Storage is two flat arrays, nodes and ports
 * (a node's ports are contiguous), so memory is linear in nodes + links and
 * a topology plugin that calls ws_builder_reserve() allocates once.
 */
#define _GNU_SOURCE /* mremap */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* xxHash compiled inline: one hash per packet per hop */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "internal.h"

/*
 * The node and port arrays are anonymous mappings: growing them moves no
 * bytes (mremap), and large ones ask for transparent huge pages, which
 * makes building a 10^6-endpoint fabric about three times faster on
 * virtual machines (fewer page faults) and its route lookups cheaper
 * (fewer TLB misses).
 */
#define HUGE_FROM (8u << 20)

/* fd >= 0: a shared mapping of that file (a fabric cache's memfd), which
 * grows with it, so a shared build is made in place, never copied. */
static void *fab_resize(void *old, size_t old_bytes, size_t new_bytes, int fd)
{
	new_bytes = (new_bytes + 4095) & ~(size_t)4095;
	if (fd >= 0 && ftruncate(fd, (off_t)new_bytes))
		ws_fatal_oom(1, new_bytes);
	void *p = old ? mremap(old, old_bytes, new_bytes, MREMAP_MAYMOVE)
		      : fd >= 0 ? mmap(NULL, new_bytes, PROT_READ | PROT_WRITE,
				       MAP_SHARED, fd, 0)
				: mmap(NULL, new_bytes, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		ws_fatal_oom(1, new_bytes);
#ifdef MADV_HUGEPAGE
	if (new_bytes >= HUGE_FROM)
		madvise(p, new_bytes, MADV_HUGEPAGE);
#endif
	return p;
}

static size_t page_round(size_t b)
{
	return (b + 4095) & ~(size_t)4095;
}

static void grow_nodes(struct ws_sim *sim, uint32_t cap)
{
	sim->nodes = fab_resize(sim->nodes, page_round((size_t)sim->cap_nodes * sizeof *sim->nodes),
				(size_t)cap * sizeof *sim->nodes, -1);
	sim->cap_nodes = cap;
}

static void grow_ports(struct ws_sim *sim, uint32_t cap)
{
	sim->ports = fab_resize(sim->ports, page_round((size_t)sim->cap_ports * sizeof *sim->ports),
				(size_t)cap * sizeof *sim->ports,
				sim->ports_memfd ? sim->ports_fd : -1);
	sim->cap_ports = cap;
}

const struct ws_fabric *ws_sim_fabric(const struct ws_sim *sim)
{
	return &sim->fab;
}

int ws_builder_reserve(struct ws_builder *b, uint32_t nodes, uint32_t ports,
		       struct ws_err *err)
{
	struct ws_sim *sim = b->sim;
	char what[128];
	snprintf(what, sizeof what, "a fabric of %u nodes and %u ports", nodes, ports);
	int rc = ws_mem_check(sim, ws_mem_fabric_bytes(sim, nodes, ports), 0, what, err);
	if (rc)
		return rc;
	if (nodes > sim->cap_nodes)
		grow_nodes(sim, nodes);
	if (ports > sim->cap_ports)
		grow_ports(sim, ports);
	return WS_OK;
}

uint32_t ws_builder_add_node(struct ws_builder *b,
			     const struct ws_node_spec *user,
			     struct ws_err *err)
{
	struct ws_node_spec copy = { WS_INIT_SIZE(struct ws_node_spec) };
	if (ws_sized_in(&copy, sizeof copy, user, "ws_node_spec", err))
		return WS_NONE;
	const struct ws_node_spec *spec = &copy;
	struct ws_sim *sim = b->sim;
	uint32_t id = sim->fab.n_nodes;
	if (spec->kind != WS_NODE_HOST && spec->kind != WS_NODE_SWITCH) {
		ws_err_set(err, WS_EPLUGIN, "node %u: unknown kind %u", id, spec->kind);
		return WS_NONE;
	}
	if (spec->n_ports == 0) {
		ws_err_set(err, WS_EPLUGIN, "node %u has no ports", id);
		return WS_NONE;
	}
	if (spec->addr_len > WS_ADDR_DIGITS) {
		ws_err_set(err, WS_EPLUGIN, "node %u: address of %u digits (max %d)",
			   id, spec->addr_len, WS_ADDR_DIGITS);
		return WS_NONE;
	}
	if ((uint32_t)spec->n_down + spec->n_up > spec->n_ports) {
		ws_err_set(err, WS_EPLUGIN,
			   "node %u: %u down + %u up ports exceed its %u ports", id,
			   spec->n_down, spec->n_up, spec->n_ports);
		return WS_NONE;
	}
	if (id == WS_NONE - 1 ||
	    (uint64_t)sim->fab.n_ports + spec->n_ports >= WS_NONE) {
		ws_err_set(err, WS_EINVAL, "fabric too large (more than 2^32 nodes or ports)");
		return WS_NONE;
	}
	if (id == sim->cap_nodes)
		grow_nodes(sim, sim->cap_nodes ? sim->cap_nodes * 2 : 256);
	uint32_t first = sim->fab.n_ports;
	uint32_t need = first + spec->n_ports;
	if (need > sim->cap_ports) {
		uint32_t cap = sim->cap_ports ? sim->cap_ports : 1024;
		while (cap < need)
			cap *= 2;
		grow_ports(sim, cap);
	}
	struct ws_node *n = &sim->nodes[id];
	memset(n, 0, sizeof *n);
	n->id = id;
	n->kind = spec->kind;
	n->level = spec->kind == WS_NODE_HOST ? 0 : spec->level;
	n->addr_len = spec->addr_len;
	n->first_port = first;
	n->n_ports = spec->n_ports;
	n->n_down = spec->n_down;
	n->n_up = spec->n_up;
	n->down_group = spec->down_group ? spec->down_group : 1;
	n->index = spec->index;
	memcpy(n->addr, spec->addr, sizeof n->addr);
	for (uint32_t i = 0; i < spec->n_ports; i++) {
		struct ws_port *p = &sim->ports[first + i];
		memset(p, 0, sizeof *p);
		p->node = id;
		p->local = (uint16_t)i;
		p->peer = WS_NONE;
		p->is_host = spec->kind == WS_NODE_HOST;
	}
	sim->fab.n_nodes = id + 1;
	sim->fab.n_ports = need;
	sim->fab.nodes = sim->nodes;
	return id;
}

int ws_builder_link(struct ws_builder *b, uint32_t a, uint32_t pa, uint32_t bn,
		    uint32_t pb, uint64_t rate_bps, ws_time delay,
		    struct ws_err *err)
{
	struct ws_sim *sim = b->sim;
	if (a >= sim->fab.n_nodes || bn >= sim->fab.n_nodes)
		return ws_err_set(err, WS_EPLUGIN, "link %u:%u - %u:%u names a node "
				  "that does not exist (%u nodes)",
				  a, pa, bn, pb, sim->fab.n_nodes);
	if (pa >= sim->nodes[a].n_ports || pb >= sim->nodes[bn].n_ports)
		return ws_err_set(err, WS_EPLUGIN,
				  "link %u:%u - %u:%u names a port beyond a node's "
				  "%u / %u ports",
				  a, pa, bn, pb, sim->nodes[a].n_ports,
				  sim->nodes[bn].n_ports);
	if (a == bn)
		return ws_err_set(err, WS_EPLUGIN, "link %u:%u - %u:%u loops back "
				  "to its own node", a, pa, bn, pb);
	if (rate_bps == 0)
		return ws_err_set(err, WS_EPLUGIN, "link %u:%u - %u:%u has rate 0",
				  a, pa, bn, pb);
	struct ws_port *x = ws_port_at(sim, a, pa), *y = ws_port_at(sim, bn, pb);
	if (x->peer != WS_NONE || y->peer != WS_NONE)
		return ws_err_set(err, WS_EPLUGIN,
				  "link %u:%u - %u:%u: port %u:%u is already connected",
				  a, pa, bn, pb, x->peer != WS_NONE ? a : bn,
				  x->peer != WS_NONE ? pa : pb);
	x->peer = sim->nodes[bn].first_port + pb;
	y->peer = sim->nodes[a].first_port + pa;
	x->rate = y->rate = rate_bps;
	x->delay = y->delay = delay;
	sim->fab.n_links++;
	return WS_OK;
}

void ws_builder_set_shape(struct ws_builder *b, uint32_t shape, uint32_t depth)
{
	b->shape = shape;
	b->depth = depth;
	b->shape_set = true;
}

void ws_builder_set_geometry(struct ws_builder *b, const uint32_t *geom,
			     uint32_t n)
{
	memset(b->geom, 0, sizeof b->geom);
	memcpy(b->geom, geom, WS_MIN(n, (uint32_t)WS_GEOM_MAX) * sizeof *geom);
}

void ws_builder_set_server_size(struct ws_builder *b, uint32_t n)
{
	b->server_size = n;
}

/* Summaries of all ports that every run's set-up needs (ws_fabfacts). */
static void fabric_facts(struct ws_sim *sim)
{
	struct ws_fabfacts *x = &sim->facts;
	x->max_rate = 0;
	x->min_rate = UINT64_MAX;
	x->max_delay = 0;
	x->fastest_host_rate = 0;
	for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
		const struct ws_port *p = &sim->ports[i];
		x->max_rate = WS_MAX(x->max_rate, p->rate);
		x->min_rate = WS_MIN(x->min_rate, p->rate);
		x->max_delay = WS_MAX(x->max_delay, p->delay);
		if (p->is_host)
			x->fastest_host_rate = WS_MAX(x->fastest_host_rate, p->rate);
	}
	free(x->sw_hdrm_auto);
	x->sw_hdrm_auto = ws_switch_auto_headroom(sim);
}

int ws_fabric_finish(struct ws_sim *sim, struct ws_err *err)
{
	struct ws_fabric *f = &sim->fab;
	if (f->n_nodes == 0)
		return ws_err_set(err, WS_EPLUGIN, "the topology built no nodes");
	uint32_t hosts = 0, switches = 0;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct ws_node *n = &sim->nodes[i];
		if (n->kind == WS_NODE_HOST) {
			hosts++;
		} else {
			switches++;
		}
		for (uint32_t p = 0; p < n->n_ports; p++)
			if (ws_port_at(sim, i, p)->peer == WS_NONE)
				return ws_err_set(err, WS_EPLUGIN,
						  "node %u (%s) port %u is not connected",
						  i, n->kind == WS_NODE_HOST ? "host" : "switch",
						  p);
	}
	if (hosts < 2)
		return ws_err_set(err, WS_EPLUGIN, "the fabric has %u host(s); "
				  "at least 2 are needed", hosts);
	sim->peer_node = fab_resize(NULL, 0, (size_t)f->n_ports * sizeof *sim->peer_node, -1);
	for (uint32_t i = 0; i < f->n_ports; i++)
		sim->peer_node[i] = sim->ports[sim->ports[i].peer].node;
	sim->hosts = ws_xcalloc(hosts, sizeof *sim->hosts);
	sim->aux = ws_xcalloc(f->n_nodes, sizeof *sim->aux);
	uint32_t h = 0, s = 0, nic = 0;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct ws_node *n = &sim->nodes[i];
		if (n->kind == WS_NODE_HOST) {
			sim->hosts[h++] = i;
			sim->aux[i] = nic;
			nic += n->n_ports;
		} else {
			sim->aux[i] = s++;
		}
	}
	f->hosts = sim->hosts;
	f->n_hosts = hosts;
	f->n_switches = switches;
	f->nodes = sim->nodes;
	sim->host_rate = sim->ports[sim->nodes[sim->hosts[0]].first_port].rate;
	sim->links = sim->ports;
	fabric_facts(sim);
	return WS_OK;
}

void ws_fabric_per_run(struct ws_sim *sim)
{
	const struct ws_fabric *f = &sim->fab;
	uint32_t host_ports = 0;
	for (uint32_t h = 0; h < f->n_hosts; h++)
		host_ports += sim->nodes[sim->hosts[h]].n_ports;
	sim->nics = ws_xcalloc(host_ports ? host_ports : 1, sizeof *sim->nics);
	sim->sws = ws_xcalloc(f->n_switches ? f->n_switches : 1, sizeof *sim->sws);
	for (uint32_t h = 0; h < f->n_hosts; h++) {
		const struct ws_node *n = &sim->nodes[sim->hosts[h]];
		for (uint32_t p = 0; p < n->n_ports; p++) {
			struct ws_nic *nic = &sim->nics[sim->aux[n->id] + p];
			nic->node = n->id;
			nic->port = n->first_port + p;
			nic->next_sport = 10000;
		}
	}
}

uint64_t ws_fabric_bytes(const struct ws_sim *sim)
{
	const struct ws_fabric *f = &sim->fab;
	uint64_t host_ports = 0;
	for (uint32_t h = 0; h < f->n_hosts; h++)
		host_ports += sim->nodes[sim->hosts[h]].n_ports;
	return (uint64_t)f->n_nodes * (sizeof *sim->nodes + sizeof *sim->aux) +
	       (uint64_t)f->n_ports * (sizeof *sim->ports + sizeof *sim->peer_node) +
	       (uint64_t)f->n_hosts * sizeof *sim->hosts +
	       host_ports * sizeof *sim->nics +
	       (uint64_t)f->n_switches * sizeof *sim->sws;
}

void ws_fabric_unmap(void *p, size_t bytes)
{
	if (p)
		munmap(p, page_round(bytes));
}

void ws_fabric_release_shared(struct ws_node *nodes, uint32_t cap_nodes,
			      uint32_t *peer_node, uint32_t n_ports,
			      uint32_t *hosts, uint32_t *aux,
			      struct ws_fabfacts *facts)
{
	ws_fabric_unmap(nodes, (size_t)cap_nodes * sizeof *nodes);
	ws_fabric_unmap(peer_node, (size_t)n_ports * sizeof *peer_node);
	free(hosts);
	free(aux);
	free(facts->sw_hdrm_auto);
	facts->sw_hdrm_auto = NULL;
}

void ws_fabric_free(struct ws_sim *sim)
{
	/* packets still queued live in the pool's blocks, freed with the pool */
	if (sim->nics)
		for (uint32_t h = 0; h < sim->fab.n_hosts; h++) {
			const struct ws_node *n = &sim->nodes[sim->hosts[h]];
			for (uint32_t p = 0; p < n->n_ports; p++)
				free(sim->nics[sim->aux[n->id] + p].act);
		}
	/* only the ports that held packets: a shared fabric's other ports
	 * are not even read */
	for (uint32_t i = 0; i < sim->n_held; i++)
		free(sim->ports[sim->held[i]].hold);
	free(sim->held);
	sim->held = NULL;
	sim->n_held = sim->cap_held = 0;
	free(sim->nics);
	free(sim->sws);
	sim->nics = NULL;
	sim->sws = NULL;
	if (sim->ports)
		ws_fabric_unmap(sim->ports, (size_t)sim->cap_ports * sizeof *sim->ports);
	sim->ports = NULL;
	sim->links = NULL;
	if (sim->fabent)
		ws_fabcache_put(sim); /* the shared arrays go with the last user */
	else
		ws_fabric_release_shared(sim->nodes, sim->cap_nodes, sim->peer_node,
					 sim->fab.n_ports, sim->hosts, sim->aux,
					 &sim->facts);
	sim->fabent = NULL;
	sim->nodes = NULL;
	sim->peer_node = NULL;
	sim->hosts = NULL;
	sim->aux = NULL;
	sim->cap_nodes = sim->cap_ports = 0;
	sim->facts.sw_hdrm_auto = NULL;
}

int ws_port_info(const struct ws_sim *sim, uint32_t node, uint32_t local,
		 struct ws_port_info *user)
{
	struct ws_port_info full = { WS_INIT_SIZE(struct ws_port_info) }, *out = &full;
	if (node >= sim->fab.n_nodes || local >= sim->nodes[node].n_ports)
		return WS_EINVAL;
	const struct ws_port *p = &sim->links[sim->nodes[node].first_port + local];
	const struct ws_port *q = &sim->links[p->peer];
	out->node = node;
	out->local = local;
	out->peer_node = q->node;
	out->peer_local = q->local;
	out->rate = p->rate;
	out->delay = p->delay;
	ws_sized_out(user, &full, sizeof full, "ws_port_info");
	return WS_OK;
}

uint64_t ws_port_queue_bytes(const struct ws_sim *sim, uint32_t node,
			     uint32_t local)
{
	return sim->ports[sim->nodes[node].first_port + local].q_bytes;
}

uint64_t ws_port_gid_queue_bytes(const struct ws_sim *sim, uint32_t gid)
{
	if (gid >= sim->fab.n_ports)
		return 0;
	const struct ws_port *p = &sim->ports[gid];
	return p->q_bytes + (p->hold ? p->hold->bytes : 0);
}

uint64_t ws_port_gid_tx_bytes(const struct ws_sim *sim, uint32_t gid)
{
	return gid < sim->fab.n_ports ? sim->ports[gid].tx_bytes : 0;
}

uint32_t ws_port_gid(const struct ws_sim *sim, uint32_t node, uint32_t local)
{
	return sim->nodes[node].first_port + local;
}

/* The 5-tuple as hashed: 16 bytes, padding zeroed. */
struct flow_tuple {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint32_t proto;
};

uint64_t ws_flow_hash(const struct ws_pkt *p, uint64_t seed)
{
	struct flow_tuple t;
	memset(&t, 0, sizeof t);
	t.src = p->src;
	t.dst = p->dst;
	t.sport = p->sport;
	t.dport = p->dport;
	t.proto = 17; /* UDP, as RoCEv2 */
	return XXH3_64bits_withSeed(&t, sizeof t, seed);
}
