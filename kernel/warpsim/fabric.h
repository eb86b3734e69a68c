/* SPDX-License-Identifier: MIT */
/*
 * The fabric: nodes (host NICs and switches), their ports, and the links
 * between ports.  A topology plugin fills it through the builder below; a
 * routing rule reads it.
 *
 * Addresses are hierarchical and regular topologies need no tables: each
 * node carries up to WS_ADDR_DIGITS digits.  A host's digits are its full
 * address (fat-tree: pod, edge, host); a switch's first `addr_len` digits are
 * the prefix of the hosts below it (an edge switch: pod, edge; an aggregation
 * switch: pod; a core switch: nothing).  Ports are numbered by structure:
 * down ports first (towards hosts, `down_group` consecutive ports per child),
 * then up ports.  Rules like up/down compute the port from the digits.
 */
#ifndef WARPSIM_FABRIC_H
#define WARPSIM_FABRIC_H

#include <stdint.h>

#include <warpsim/core.h>
#include <warpsim/packet.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WS_ADDR_DIGITS 6
#define WS_NONE UINT32_MAX
#define WS_PORT_NONE 0xffffu

enum ws_node_kind {
	WS_NODE_HOST = 0,
	WS_NODE_SWITCH = 1,
};

/* Shapes a topology declares and a routing rule may require. */
#define WS_SHAPE_UPDOWN 0x1u    /* hierarchical tree addresses, down/up ports */
#define WS_SHAPE_DRAGONFLY 0x2u /* group / router / terminal addresses */
#define WS_SHAPE_GRAPH 0x4u     /* any connected graph */

/*
 * Geometry a topology publishes with ws_builder_set_geometry().  For
 * WS_SHAPE_DRAGONFLY: terminals per router, routers per group, global links
 * per router, groups, and the global-link arrangement (WS_DF_ARR_*).  Hosts
 * have addresses (group, router, terminal), routers (group, router); router
 * ports are p terminal ports, then a-1 local ports (the port to router j
 * of the group is p + j, minus one when j > own router), then h global
 * ports.
 */
#define WS_GEOM_MAX 8
enum { WS_DF_GEOM_P, WS_DF_GEOM_A, WS_DF_GEOM_H, WS_DF_GEOM_G, WS_DF_GEOM_ARR };
#define WS_DF_ARR_ABSOLUTE 0u /* group G's link k goes to group k, or k+1 if k >= G */
#define WS_DF_ARR_PALMTREE 1u /* group G's link k goes to group (G - k - 1) mod g */

struct ws_node {
	uint32_t id;
	uint8_t kind;        /* enum ws_node_kind */
	uint8_t level;       /* 0 for hosts; switch tiers count up from 1 */
	uint8_t addr_len;    /* meaningful digits of addr[] */
	uint8_t reserved;
	uint32_t first_port; /* global index of this node's port 0 */
	uint16_t n_ports;
	uint16_t n_down;     /* ports [0, n_down) lead towards hosts */
	uint16_t n_up;       /* ports [n_down, n_down + n_up) lead away */
	uint16_t down_group; /* consecutive down ports per child (>= 1) */
	uint32_t index;      /* position among its siblings (e.g. agg number) */
	uint32_t addr[WS_ADDR_DIGITS];
};

/* The fabric, read-only for plugins once built. */
struct ws_fabric {
	const struct ws_node *nodes;
	uint32_t n_nodes;
	const uint32_t *hosts; /* host index -> node id, in id order */
	uint32_t n_hosts;
	uint32_t n_switches;
	uint32_t n_ports;
	uint32_t n_links;
	uint32_t shape;        /* WS_SHAPE_* */
	uint32_t depth;        /* address digits of a host (up/down trees) */
	/* the generator's geometry, for rules that compute ports from it
	 * (WS_SHAPE_DRAGONFLY: WS_DF_GEOM_*); zero when not declared */
	uint32_t geom[WS_GEOM_MAX];
	/* hosts per server: hosts [k*server_size, (k+1)*server_size) share a
	 * server (GPUs behind one NVLink-class interconnect); 0: not declared
	 */
	uint32_t server_size;
};

WS_API const struct ws_fabric *ws_sim_fabric(const struct ws_sim *sim);

static inline const struct ws_node *ws_node_get(const struct ws_fabric *f,
						uint32_t id)
{
	return &f->nodes[id];
}

/* Facts about one direction of a link, seen from node `node`, port `local`. */
struct ws_port_info {
	uint32_t size;              /* WS_INIT_SIZE(struct ws_port_info) */
	uint32_t node, local;           /* this end */
	uint32_t peer_node, peer_local; /* the other end */
	uint64_t rate;                  /* bits per second */
	ws_time delay;                  /* propagation */
};

WS_API int ws_port_info(const struct ws_sim *sim, uint32_t node, uint32_t local,
			struct ws_port_info *out);
/* Bytes queued for transmission at a port, all priorities (for adaptive rules). */
WS_API uint64_t ws_port_queue_bytes(const struct ws_sim *sim, uint32_t node,
				    uint32_t local);
/* The same by global port index (0 for an index out of range). */
WS_API uint64_t ws_port_gid_queue_bytes(const struct ws_sim *sim, uint32_t gid);
/* Global port index of (node, local), for freeze/thaw and statistics. */
WS_API uint32_t ws_port_gid(const struct ws_sim *sim, uint32_t node, uint32_t local);
/* ---- ABI 2.1 ---- */
/* Wire bytes a port (global index) has transmitted so far, every packet
 * type (data, ACKs, NACKs, CNPs, PFC frames): with two readings, the
 * port's throughput over the interval (0 for an index out of range). */
WS_API uint64_t ws_port_gid_tx_bytes(const struct ws_sim *sim, uint32_t gid);

/* ---- ABI 2.3 ---- */
/*
 * Failures.  ws_port_up() tells whether the link at (node, local) carries
 * traffic now: false while a failure (of the link, or of the switch at
 * either end) holds it down.  A routing rule reads it for the ports of
 * the switch it decides at (that switch sees its own links go down at
 * once) and learns of links elsewhere through its link_change op.
 *
 * ws_link_set() takes the link at (node, local), both directions, down
 * or back up now, as a [failures] event does, with the effects a failure
 * has (docs/failures.md): what it holds is dropped (cause `failure`),
 * PFC state through it is released, and the routing rule is told at once
 * (no reroute delay).  For tools and tests; a run's [failures] schedule
 * is applied by the kernel itself.
 */
WS_API bool ws_port_up(const struct ws_sim *sim, uint32_t node, uint32_t local);
/* The address of the count of link changes so far (a link going down or
 * coming back), valid as long as the simulation: zero while no link has
 * ever failed.  A rule keeps it (at prepare) and reads it on each decision
 * to skip its ws_port_up() check while it is zero: one load, no call. */
WS_API const uint64_t *ws_sim_link_changes(const struct ws_sim *sim);
WS_API int ws_link_set(struct ws_sim *sim, uint32_t node, uint32_t local, bool up,
		       struct ws_err *err);
/*
 * Apply now, with no reroute delay, every event of the run's [failures]
 * schedule whose time is at most `until` and which has not been applied
 * yet, in time order (ties in the order written): for tools that check
 * routes with failures in place (`warpsim topo --fail`).  The run does
 * not apply them again.  An error from the routing rule's link_change is
 * returned (and fails the simulation).
 */
WS_API int ws_failures_apply(struct ws_sim *sim, ws_time until, struct ws_err *err);
/* The number of events in the run's [failures] schedule (0: none). */
WS_API size_t ws_failures_scheduled(const struct ws_sim *sim);

/* ---- builder ------------------------------------------------------------ */

struct ws_builder;

struct ws_node_spec {
	uint32_t size;              /* WS_INIT_SIZE(struct ws_node_spec) */
	uint8_t kind;        /* enum ws_node_kind */
	uint8_t level;
	uint8_t addr_len;
	uint16_t n_ports;
	uint16_t n_down;     /* 0 for hosts */
	uint16_t n_up;
	uint16_t down_group; /* 0 is read as 1 */
	uint32_t index;
	uint32_t addr[WS_ADDR_DIGITS];
};

/* Optional: announce sizes so storage is allocated once. */
WS_API int ws_builder_reserve(struct ws_builder *b, uint32_t nodes, uint32_t ports,
			      struct ws_err *err);
/* Add a node; returns its id (ids are given in order from 0) or WS_NONE. */
WS_API uint32_t ws_builder_add_node(struct ws_builder *b,
				    const struct ws_node_spec *spec,
				    struct ws_err *err);
/* Connect port pa of node a with port pb of node b (full duplex). */
WS_API int ws_builder_link(struct ws_builder *b, uint32_t a, uint32_t pa, uint32_t bn,
			   uint32_t pb, uint64_t rate_bps, ws_time delay,
			   struct ws_err *err);
/* Declare the shape (WS_SHAPE_*) and, for trees, the host address depth. */
WS_API void ws_builder_set_shape(struct ws_builder *b, uint32_t shape,
				 uint32_t depth);
/* Publish up to WS_GEOM_MAX geometry values (see WS_GEOM_MAX). */
WS_API void ws_builder_set_geometry(struct ws_builder *b, const uint32_t *geom,
				    uint32_t n);

/*
 * Declare that consecutive hosts form servers of `n` (the GPUs of one
 * server, rail-optimized fabrics for instance), for workloads that model
 * the intra-server interconnect.  The kernel checks that n divides the
 * host count.
 */
WS_API void ws_builder_set_server_size(struct ws_builder *b, uint32_t n);

/*
 * The ECMP hash of a packet's flow: XXH3-64 (xxHash) of its 5-tuple (src,
 * dst, sport, dport, UDP as RoCEv2) with `seed`.  Rules seed it with the
 * switch id so switches choose independently and a flow keeps one path.
 * The packet's sport is its entropy value (ws_pkt_entropy): a sender that
 * changes it per packet sprays through every ECMP switch.
 */
WS_API uint64_t ws_flow_hash(const struct ws_pkt *p, uint64_t seed);

/* ---- ABI 2.4 ---- */
/*
 * The ns-3 reference's ECMP ([sim] ecmp = ns3, or reference = ns3; see
 * docs/architecture.md, "Where warpsim differs").  The HPCC ns-3 simulator
 * and ns-3-alibabacloud hash 12 bytes, three little-endian 32-bit words
 * (source IP, destination IP, sport | dport << 16), with MurmurHash3
 * x86_32 seeded by the switch's node id, and take hash % n among the n
 * equal-cost next hops listed in the order of ws_ns3_order_key.
 *
 * ws_murmur3_32: MurmurHash3 x86_32 (Appleby) of len bytes, tail bytes
 * little-endian.  ws_ns3_ip: the reference's address of host node n,
 * 11.x.y.1 with x.y = n / 256, n % 256.  ws_ns3_ecmp_hash: the hash that
 * switch `node` computes for packet p (node ids of p->src and p->dst
 * through ws_ns3_ip; p->sport and p->dport as they are: an ACK carries
 * the data's dport as its sport, as the reference's ACKs do).
 * ws_sim_ns3_ecmp: true when rules should choose this way.
 * ws_ns3_order_key: a sort key of the order in which the reference lists
 * a node among equal-cost next hops: its breadth-first search walks each
 * node's neighbours in the order of their C++ objects' addresses, which
 * for switches (objects above glibc's mmap threshold, mapped top down) is
 * descending node id ([sim] ns3_switch_order = descending, the default;
 * ascending for a build that allocated them upward); hosts come before
 * every switch, by ascending id.
 */
WS_API uint32_t ws_murmur3_32(const void *key, size_t len, uint32_t seed);
WS_API uint32_t ws_ns3_ip(uint32_t node);
WS_API uint32_t ws_ns3_ecmp_hash(const struct ws_pkt *p, uint32_t node);
WS_API bool ws_sim_ns3_ecmp(const struct ws_sim *sim);
WS_API uint64_t ws_ns3_order_key(const struct ws_sim *sim, uint32_t node);

/* ---- ABI 2.5 ---- */
/*
 * [sim] reference: WS_SIM_REFERENCE_NS3 under `reference = ns3`, else
 * WS_SIM_REFERENCE_NONE.  For what only a plugin can follow: the flows
 * workload then reads start times as the reference's driver does (a C
 * double, truncated to whole ns).
 */
#define WS_SIM_REFERENCE_NONE 0
#define WS_SIM_REFERENCE_NS3 1
WS_API int ws_sim_reference(const struct ws_sim *sim);

/* ---- route tracing -------------------------------------------------------- */

/* One node on a traced route and the port it sends the packet out of. */
struct ws_hop {
	uint32_t node;
	uint16_t port; /* local egress port; WS_PORT_NONE at the destination */
	uint8_t cls;   /* queue class the packet leaves in (prio + vc) */
	uint8_t reserved;
};

/*
 * Follow the routing rule for `pkt` (src, dst, sport, dport, type, prio and
 * flow filled by the caller; flow = WS_NONE for a probe that leaves the
 * rule's state alone) from its source host to its destination, as the
 * switches would.  Fills hops[0..*n-1] (hops[0] is the source, the last
 * the destination); *n - 1 links.  Fails with a message naming the node if
 * the rule finds no port, delivers to another host, or loops (more than
 * max - 1 links or the [switch] ttl), and (ABI 2.3) if the route crosses a
 * link that is down.  When links have failed, a rule that finds no port is
 * WS_EUNREACH: failures cut the destination off from that node.
 */
WS_API int ws_route_trace(struct ws_sim *sim, struct ws_pkt *pkt, struct ws_hop *hops,
			  uint32_t max, uint32_t *n, struct ws_err *err);

/* The probe every route walk sends: a data packet of no flow (WS_NONE),
 * priority WS_PROBE_PRIO, from host src to host dst with these ports. */
#define WS_PROBE_PRIO 3
WS_API void ws_pkt_probe(struct ws_pkt *p, uint32_t src, uint32_t dst,
			 uint16_t sport, uint16_t dport);
/* The routing rule's egress port for `pkt` at node `at`, as a switch asks
 * it (the rule's next_hop, else its next_port); a value >= at->n_ports
 * means the rule found none. */
WS_API uint32_t ws_route_next(struct ws_sim *sim, const struct ws_node *at,
			      struct ws_pkt *pkt);
/* Bytes of per-fabric state the routing rule holds (its state_bytes op;
 * 0 when it does not say), and of the kernel's fabric arrays (nodes, ports,
 * NIC and switch state). */
WS_API uint64_t ws_routing_state_bytes(const struct ws_sim *sim);
WS_API uint64_t ws_fabric_bytes(const struct ws_sim *sim);

#ifdef __cplusplus
}
#endif
#endif
