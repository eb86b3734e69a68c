/* SPDX-License-Identifier: MIT */
/*
 * The plugin ABI.
 *
 * A plugin is a shared object holding exactly one plugin; it exports one
 * symbol, `ws_plugin_entry`, returning a pointer to a constant descriptor.
 * The loader checks the ABI version, the build signature (type sizes), the
 * kind, the name (it must equal the file name), the sizes of the descriptor
 * and of the kind's ops table, the required callbacks and the parameter
 * table before it calls anything else.
 *
 * The ABI grows by appending fields: a descriptor or ops table built
 * against an older minor version is shorter, and the kernel reads the
 * missing trailing callbacks as NULL.
 *
 * Memory: the kernel allocates, zeroes and frees each instance's config
 * (`conf_size` bytes, filled from the parameter table) and state
 * (`state_size` bytes), and each flow's CC state.  Plugins must not keep
 * mutable globals: several simulations may share a process.
 */
#ifndef WARPSIM_PLUGIN_H
#define WARPSIM_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <warpsim/core.h>
#include <warpsim/fabric.h>
#include <warpsim/packet.h>
#include <warpsim/param.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ABI history (docs/plugins.md has the details):
 *   1.0  the first plugin ABI; 1.1 routing next_hop, vcs, state_bytes;
 *   1.2  topologies' server size, the workload summary op, CC set_rate.
 *   2.0  caller-allocated structs start with their size (WS_INIT_SIZE);
 *        accel finish; ws_opts callbacks; the plugin catalog; only WS_API
 *        functions are exported.  Plugins built for 1.x are refused.
 *   2.1  ws_port_add_load, ws_flow_ack_load; feedback reaching a frozen flow
 *        is held until it thaws; INT as switches encode it:
 *        ws_sim_int_format, ws_int_delta; the workload ops flows_expected
 *        and write_trace; ws_sim_request_stop, ws_sim_write_trace;
 *        ws_sim_stats flows_expected and stop_requested; reliability:
 *        ws_mem_check, ws_text_line, ws_outfile_*, ws_opts.stop and
 *        max_memory, ws_sim_set_incomplete, ws_sim_stopped,
 *        ws_sim_pfc_cycle, WS_EDEADLOCK; flows an accelerator models
 *        itself (ws_flow_adopt, ws_flow_finish), ws_flow_info's base_rtt,
 *        wire_bytes and path_rate, the CC's utilization op
 *        (ws_cc_utilization), ws_port_gid_tx_bytes.
 *   2.2  fabrics shared between simulations: ws_fabric_cache_new/free/
 *        builds, ws_opts.fabric_cache, ws_sim_stats.fabric_shared; the
 *        routing ops share, adopt and release; sharing an accelerator's
 *        knowledge between runs: the accel ops share_key, share_import,
 *        share_export; ws_sim_accel_share_key, ws_sim_accel_import,
 *        ws_sim_accel_export.
 *   2.3  failures and multipath fabrics: the routing ops link_change and
 *        multipath; ws_port_up, ws_sim_link_changes, ws_link_set, ws_failures_apply,
 *        ws_failures_scheduled, WS_EUNREACH; ws_sim_stats' drops by
 *        cause; the packet's sport documented as its entropy value;
 *        ws_flow_info's ooo_pkts and max_reorder.
 *   2.4  transports for lossy fabrics: the CC op on_loss (enum ws_cc_loss),
 *        struct ws_cc_ack's trimmed and sacked (in former padding),
 *        ws_cc_in_flight; ws_flow_info's retx_pkts and trims;
 *        ws_sim_stats' trims and retx_pkts; the packet flag WS_PKTF_TRIM
 *        and the ACK's sack field (ws_sack_encode, ws_sack_decode);
 *        the ns-3 reference's ECMP for rules: ws_murmur3_32, ws_ns3_ip,
 *        ws_ns3_ecmp_hash, ws_sim_ns3_ecmp, ws_ns3_order_key; the CC
 *        property WS_CC_REF_KEEPS_GAP.
 *   2.5  ws_sim_reference (WS_SIM_REFERENCE_NONE, WS_SIM_REFERENCE_NS3), so
 *        a workload can read its inputs as the reference does.
 *   2.6  ws_opts.comm and struct ws_comm (one experiment over MPI ranks).
 *   2.7  ws_sim_wire (struct ws_wire): the packet sizes, for models that
 *        carry traffic without flows (a workload's collective model).
 * Every later addition bumps WS_ABI_MINOR and is tagged below with
 * "---- ABI 2.N ----"; tests/golden/abi.txt records the exports and sizes.
 */
#define WS_ABI_MAJOR 2
#define WS_ABI_MINOR 7

enum ws_kind {
	WS_KIND_TOPO = 1,
	WS_KIND_ROUTING = 2,
	WS_KIND_CC = 3,
	WS_KIND_ACCEL = 4,
	WS_KIND_WORKLOAD = 5,
};

/* Sizes of the types the ABI passes by layout, and the ABI major. */
#define WS_BUILD_SIG                                                         \
	(((uint64_t)WS_ABI_MAJOR << 56) | ((uint64_t)sizeof(void *) << 48) | \
	 ((uint64_t)sizeof(long) << 40) |                                    \
	 ((uint64_t)sizeof(struct ws_node) << 24) |                          \
	 ((uint64_t)sizeof(struct ws_pkt) << 8) | (uint64_t)sizeof(ws_time))

struct ws_inst;

struct ws_plugin {
	uint32_t abi_major;    /* WS_ABI_MAJOR */
	uint32_t abi_minor;    /* WS_ABI_MINOR */
	uint32_t desc_size;    /* sizeof(struct ws_plugin) as built */
	uint32_t ops_size;     /* sizeof the kind's ops table as built */
	uint64_t build_sig;    /* WS_BUILD_SIG */
	uint32_t kind;         /* enum ws_kind */
	uint32_t caps;         /* reserved, 0 */
	const char *name;      /* equals the file name without .so */
	const char *version;
	const char *summary;   /* one line for `warpsim plugins` */
	const struct ws_param *params; /* WS_PARAM_END-terminated, or NULL */
	uint32_t conf_size;    /* bytes of the struct `params` fill */
	uint32_t state_size;   /* bytes of per-instance state */
	/* optional: cross-key checks after every key is parsed */
	int (*validate)(const void *conf, struct ws_err *err);
	/* optional: after the instance exists, before it is used */
	int (*init)(struct ws_inst *inst, struct ws_err *err);
	/* optional: free what init allocated beyond `state` */
	void (*fini)(struct ws_inst *inst);
	const void *ops;       /* the kind's ops table */
};

/*
 * The fields every descriptor starts with: the ABI it was built for, its
 * kind and the size of that kind's ops table.  For a CC:
 *     static const struct ws_plugin my_plugin = {
 *             WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
 *             .name = "my", .version = "1.0.0", .summary = "...", .ops = &my_ops,
 *     };
 */
#define WS_PLUGIN_ABI(kind_, ops_type)                                      \
	.abi_major = WS_ABI_MAJOR, .abi_minor = WS_ABI_MINOR,                \
	.desc_size = sizeof(struct ws_plugin), .ops_size = sizeof(ops_type), \
	.build_sig = WS_BUILD_SIG, .kind = (kind_)

/* Define the exported entry point of a plugin `.so`. */
#define WS_PLUGIN_EXPORT(desc)                                               \
	__attribute__((visibility("default"))) const struct ws_plugin *      \
	ws_plugin_entry(void);                                               \
	const struct ws_plugin *ws_plugin_entry(void) { return &(desc); }

/* One instance of a plugin inside one simulation. */
struct ws_inst {
	const struct ws_plugin *plugin;
	struct ws_sim *sim;
	const void *conf; /* filled from the parameter table */
	void *state;      /* state_size zeroed bytes */
};

/* ---- topology ----------------------------------------------------------- */

struct ws_topo_ops {
	uint32_t size; /* sizeof(struct ws_topo_ops) */
	/* required: add nodes and links through the builder */
	int (*build)(struct ws_inst *inst, struct ws_builder *b,
		     struct ws_err *err);
	/* the routing rule used when the config has no [routing] section */
	const char *default_routing;
};

/* ---- routing rule ------------------------------------------------------- */

struct ws_routing_ops {
	uint32_t size;   /* sizeof(struct ws_routing_ops) */
	uint32_t shapes; /* WS_SHAPE_* this rule can route */
	/* optional: check the fabric is routable, precompute per-fabric data */
	int (*prepare)(struct ws_inst *inst, const struct ws_fabric *fab,
		       struct ws_err *err);
	/*
	 * required: the local egress port at node `at` (a switch, or a host with
	 * several ports) for `pkt`, whose destination node is `dst`.
	 * WS_PORT_NONE means unroutable: the packet is dropped and the run
	 * fails with an error naming the node.
	 */
	uint32_t (*next_port)(struct ws_inst *inst, const struct ws_node *at,
			      const struct ws_node *dst,
			      const struct ws_pkt *pkt);
	/*
	 * optional: a rule that needs to write the packet (adaptive rules that
	 * decide once and carry the decision, class escalation for deadlock
	 * freedom).  When set, the kernel calls it instead of next_port, which
	 * may then be NULL.  It may write pkt->vc (the packet leaves this node
	 * in queue class prio + vc: the next switch accounts and pauses it in
	 * that class) and pkt->route (scratch carried to the next hops; 0 when
	 * the sender emits the packet), nothing else.  A probe packet with
	 * flow == WS_NONE (route tracing, base-RTT walks) must not change the
	 * rule's state.
	 */
	uint32_t (*next_hop)(struct ws_inst *inst, const struct ws_node *at,
			     const struct ws_node *dst, struct ws_pkt *pkt);
	/* classes above a flow's priority the rule may use (the largest vc it
	 * writes); the kernel rejects a flow whose prio + vcs passes 7 */
	uint32_t vcs;
	/* optional: bytes of per-fabric state the rule holds (warpsim topo) */
	uint64_t (*state_bytes)(const struct ws_inst *inst);
	/* ---- ABI 2.2 ---- */
	/*
	 * optional, all three or none: per-fabric state prepare() built that
	 * is read-only from then on, handed to the kernel so simulations of
	 * the same fabric and rule parameters share it (ws_opts.fabric_cache).
	 * share: after prepare, returns that state (NULL: nothing to share);
	 * the instance goes on using it but no longer owns it (its fini must
	 * not free it).  adopt: another instance, with the same parameters on
	 * the same fabric, uses `shared` instead of calling prepare.  release:
	 * frees it, once no simulation uses it.  A rule whose state changes
	 * during the run (adaptive choices, flowlet tables) keeps that part
	 * in its instance.
	 */
	void *(*share)(struct ws_inst *inst);
	void (*adopt)(struct ws_inst *inst, const void *shared);
	void (*release)(void *shared);
	/* ---- ABI 2.3 ---- */
	/*
	 * optional: failures.  The rule's view of the fabric changed: the link
	 * at (node, local), both directions, went down (up = false) or came
	 * back (up = true).  The kernel calls it [failures] reroute_delay
	 * after the link changed (the convergence of the fabric's routing);
	 * until then only the switches at the link's ends know, through
	 * ws_port_up() on their own ports (local fast reroute).  A switch
	 * going down is each of its links going down.  The rule folds the
	 * change into a compact summary kept in its instance (never a table
	 * per destination; shared state stays read-only) and from then on
	 * never returns a port whose link is down, nor one through which the
	 * destination cannot be reached; WS_PORT_NONE when no port can (the
	 * kernel drops the packet, counted as a failure drop).  Returns WS_OK
	 * or an error that ends the run.  A rule without it is refused when
	 * the configuration takes links or switches down.
	 */
	int (*link_change)(struct ws_inst *inst, const struct ws_fabric *fab,
			   uint32_t node, uint32_t local, bool up,
			   struct ws_err *err);
	/*
	 * optional: whether this instance, as configured, may send one flow's
	 * data packets on different paths (per-packet spraying, flowlets,
	 * adaptive choices per packet).  Such a fabric reorders: the kernel
	 * then runs the transport's timeout under PFC too (go-back-N can
	 * otherwise wait for ever for a NACK it held back), and refuses
	 * acceleration plugins, which model each flow on one fixed path.
	 * NULL: never.
	 */
	bool (*multipath)(const struct ws_inst *inst);
};

/* ---- congestion control ------------------------------------------------- */

#define WS_CC_NEEDS_ECN 0x1u /* data is ECN-capable; switches may mark it */
#define WS_CC_NEEDS_INT 0x2u /* switches stamp INT; receivers echo it */
/* A property, not a need: alone on an uncontended path the CC keeps the
 * line rate (no ECN, no queue: no cut).  Accelerators may then skip a lone
 * flow from its first packet.  HPCC, aiming at eta of the link, does not. */
#define WS_CC_IDLE_LINE_RATE 0x100u
/* ---- ABI 2.4 ---- */
/* A property: in the ns-3 reference this algorithm assigns a new rate
 * without moving the flow's pending send time (its DCQCN, TIMELY and DCTCP
 * do; its HPCC recomputes the gap at the new rate).  Under [sim] rate_gap
 * = ns3 the kernel then leaves the pending gap alone at a rate change. */
#define WS_CC_REF_KEEPS_GAP 0x200u

/* How a receiver turns CE marks into congestion notifications. */
enum ws_cnp_mode {
	WS_CNP_NONE = 0,   /* only the ECN-echo bit in ACKs */
	WS_CNP_ON_ACK = 1, /* an ACK of a CE packet counts as a CNP (on_cnp) */
	WS_CNP_PACKET = 2, /* separate CNP packets, at most one per interval */
};

#define WS_CC_TIMERS 4

/*
 * A flow as its congestion control sees it.  Fields above `rate` are facts
 * about the flow; `rate` and `window` are the CC's decisions, written with
 * ws_cc_set_rate()/ws_cc_set_window(); snd_nxt/snd_una are the transport's
 * state, read-only for the CC.
 */
struct ws_cc_flow {
	struct ws_sim *sim;
	struct ws_inst *inst;  /* the CC instance (its state is shared by all flows) */
	uint32_t id;
	uint32_t src, dst;     /* node ids */
	uint32_t hops;         /* links on the path */
	uint32_t mtu;          /* payload bytes per full packet */
	uint64_t size;         /* bytes to send */
	uint64_t line_rate;    /* bps of the sender's port */
	uint64_t path_rate;    /* bps of the slowest link on the path */
	ws_time base_rtt;      /* this path: 2 x propagation + per-hop MTU serialization */
	ws_time max_base_rtt;  /* the largest base RTT in the fabric */
	uint64_t bdp;          /* bytes: base_rtt x path_rate */
	uint64_t max_bdp;      /* bytes: the largest in the fabric */
	const void *conf;      /* the CC instance's parameters */
	void *state;           /* ops->flow_state_size zeroed bytes */
	uint64_t rate;         /* current sending rate, bps */
	uint64_t window;       /* bytes allowed in flight; 0: no window */
	uint64_t snd_nxt;      /* next byte to send */
	uint64_t snd_una;      /* first byte not yet acknowledged */
};

/* What an ACK (or NACK) told the sender. */
struct ws_cc_ack {
	ws_time now;
	uint64_t seq;           /* cumulative: bytes received in order */
	uint64_t newly_acked;   /* bytes this ACK acknowledged for the first time */
	ws_time rtt;            /* now minus the send time of the packet acked */
	uint32_t packets;       /* data packets this ACK covers */
	uint32_t ce_packets;    /* of which arrived CE-marked */
	bool ecn_echo;          /* ce_packets > 0 */
	bool nack;              /* a NACK: the sender goes back to seq */
	uint8_t int_n;          /* INT records (WS_CC_NEEDS_INT) */
	/* ---- ABI 2.4 ---- (in what was padding: the size is unchanged, and
	 * a caller of ws_cc_lab_ack must zero them, as an initializer does) */
	bool trimmed;           /* a NACK for a packet a switch trimmed */
	uint32_t sacked;        /* [nic] transport = sr: data packets above seq
				 * this ACK selectively acknowledged for the
				 * first time (full payloads; newly_acked
				 * counts the cumulative bytes) */
	const struct ws_int_hop *int_hop;
};

/* How the transport learned that packets were lost (on_loss, ABI 2.4). */
enum ws_cc_loss {
	WS_LOSS_GAP = 1,     /* sr: selective ACKs show packets missing below
			      * ones that arrived ([nic] sr_dupthresh) */
	WS_LOSS_TRIM = 2,    /* a switch trimmed a packet; the receiver NACKed it */
	WS_LOSS_TIMEOUT = 3, /* the retransmission timeout fired */
};

struct ws_cc_ops {
	uint32_t size;            /* sizeof(struct ws_cc_ops) */
	uint32_t needs;           /* WS_CC_NEEDS_* */
	uint32_t flow_state_size; /* bytes of per-flow state */
	/* required: a flow starts; the kernel has set rate = line_rate */
	void (*init)(struct ws_cc_flow *f, ws_time now);
	/* optional: every ACK that does not complete the flow */
	void (*on_ack)(struct ws_cc_flow *f, const struct ws_cc_ack *ack);
	/* optional: a congestion notification (see ws_cc_set_cnp) */
	void (*on_cnp)(struct ws_cc_flow *f, ws_time now);
	/* optional: a NACK; the kernel has already gone back to ack->seq */
	void (*on_nack)(struct ws_cc_flow *f, const struct ws_cc_ack *ack);
	/* optional: a timer armed with ws_cc_timer_arm fired */
	void (*on_timer)(struct ws_cc_flow *f, unsigned timer, ws_time now);
	/* optional: a data packet of `bytes` payload left the NIC */
	void (*on_send)(struct ws_cc_flow *f, uint32_t bytes, ws_time now);
	/* optional: the flow was thawed; absolute times it keeps move by delta */
	void (*on_shift)(struct ws_cc_flow *f, ws_time delta);
	/* optional: the flow ended */
	void (*fini)(struct ws_cc_flow *f);
	/* optional: an accelerator moved the flow on to `rate`
	 * (the end of a memoized transient): adopt it as the current rate,
	 * as if the flow had converged there; without it the kernel only
	 * sets the rate */
	void (*set_rate)(struct ws_cc_flow *f, uint64_t rate, ws_time now);
	/* ---- ABI 2.1 ---- */
	/* optional: the share of a bottleneck link this CC's flows fill
	 * together in steady state, in (0, 1], from its parameters (HPCC: its
	 * target utilization eta); NULL means the whole link.  Flow-level
	 * models scale link capacities by it (ws_cc_utilization). */
	double (*utilization)(const void *conf);
	/* ---- ABI 2.4 ---- */
	/* optional: the transport declared `packets` data packets lost
	 * (`kind` says how), before it retransmits them; called after on_ack
	 * for the ACK that showed the loss.  A loss-driven CC cuts here;
	 * CCs driven by ECN, delay or INT may ignore it. */
	void (*on_loss)(struct ws_cc_flow *f, enum ws_cc_loss kind,
			uint32_t packets, ws_time now);
};

/* Set the sending rate (clamped to [1 bps, line rate]). */
WS_API void ws_cc_set_rate(struct ws_cc_flow *f, uint64_t rate_bps);
/* Set the window in bytes (0: none). From the first call on, the kernel
 * uses the CC's window as it is: [nic] var_window no longer scales it. */
WS_API void ws_cc_set_window(struct ws_cc_flow *f, uint64_t bytes);
/* Arm timer `timer` (< WS_CC_TIMERS) at absolute time `when`, replacing it. */
WS_API void ws_cc_timer_arm(struct ws_cc_flow *f, unsigned timer, ws_time when);
WS_API void ws_cc_timer_cancel(struct ws_cc_flow *f, unsigned timer);
WS_API bool ws_cc_timer_armed(const struct ws_cc_flow *f, unsigned timer);
/* Choose how the receiver notifies this flow of CE marks. */
WS_API void ws_cc_set_cnp(struct ws_cc_flow *f, enum ws_cnp_mode mode,
			  ws_time min_interval);
/* ---- ABI 2.4 ---- */
/* Payload bytes the transport counts in flight: sent and neither
 * acknowledged, selectively acknowledged nor declared lost under [nic]
 * transport = sr; snd_nxt - snd_una under go-back-N. */
WS_API uint64_t ws_cc_in_flight(const struct ws_cc_flow *f);

/* What the simulation's CC declared (its WS_CC_NEEDS_* and properties such
 * as WS_CC_IDLE_LINE_RATE), for other plugins: they ask the kernel, never
 * the CC's descriptor. */
WS_API uint32_t ws_cc_needs(const struct ws_sim *sim);
/* ---- ABI 2.1 ---- */
/* The simulation's CC's utilization op with its parameters, clamped to
 * (0, 1]; 1 when the CC does not declare one. */
WS_API double ws_cc_utilization(const struct ws_sim *sim);

/* ---- ABI 2.1 ---- */

/*
 * INT as the switches encode it ([nic] int_encoding).  The kernel stamps
 * exact values in struct ws_int_hop; a CC reads two records of one hop
 * through ws_int_delta(), which applies the configured encoding: with
 * `encoded` set, as the reference's INT header, each field is an unsigned
 * counter of `*_bits` bits in its unit (the timestamp in time_unit, the tx
 * byte counter in bytes_unit, the queue in qlen_unit, the units already
 * multiplied by [nic] int_multi), truncated and wrapping around at 2^bits;
 * a difference of two counters is taken modulo 2^bits, as the reference
 * does.  Without it the values are exact.
 */
struct ws_int_format {
	uint32_t size;        /* sizeof(struct ws_int_format) */
	bool encoded;         /* false: exact 64-bit values, the rest unused */
	uint8_t time_bits;    /* 1..64 */
	uint8_t bytes_bits;
	uint8_t qlen_bits;
	ws_time time_unit;    /* ps per timestamp unit (reference: 1 ns) */
	uint64_t bytes_unit;  /* bytes per tx-counter unit, multiplier included */
	uint64_t qlen_unit;   /* bytes per queue unit, multiplier included */
};

enum ws_int_status {
	WS_INT_OK = 0,    /* a measurement: out is filled */
	WS_INT_STALE = 1, /* no time elapsed between the records: keep the old one */
	WS_INT_RESET = 2, /* not comparable (an exact counter went back, a rate of
			   * 0): take the new record, measure nothing */
};

/* Between two records of one hop, as the format reads them. */
struct ws_int_delta {
	uint32_t size;        /* WS_INIT_SIZE(struct ws_int_delta) */
	ws_time dt;           /* ps between the two stamps */
	uint64_t tx_bytes;    /* bytes the port sent in between */
	uint64_t qlen;        /* queue bytes in `cur` */
	uint64_t qlen_prev;   /* queue bytes in `prev` */
};

/* The simulation's INT format (exact in a CC lab). */
WS_API const struct ws_int_format *ws_sim_int_format(const struct ws_sim *sim);
/* Compare record `cur` of a hop with the `prev` one; returns a ws_int_status. */
WS_API int ws_int_delta(const struct ws_int_format *fmt,
			const struct ws_int_hop *cur,
			const struct ws_int_hop *prev, struct ws_int_delta *out);

/* ---- acceleration ------------------------------------------------------- */

struct ws_accel_ops {
	uint32_t size; /* sizeof(struct ws_accel_ops) */
	/* all optional; `none` leaves every one NULL and costs nothing */
	int (*start)(struct ws_inst *inst, struct ws_err *err);
	void (*on_flow_start)(struct ws_inst *inst, uint32_t flow, ws_time now);
	void (*on_flow_finish)(struct ws_inst *inst, uint32_t flow, ws_time now);
	/* period of on_sample; 0: no sampling */
	ws_time (*sample_period)(struct ws_inst *inst);
	void (*on_sample)(struct ws_inst *inst, ws_time now);
	/* counters for summary.json; no side effects (finish is for those) */
	void (*report)(struct ws_inst *inst, struct ws_json *j);
	/* after the run, before summary.json: the accelerator's own files
	 * (a memo kept across runs), next to the outputs in `dir` or where its
	 * parameters say */
	int (*finish)(struct ws_inst *inst, const char *dir, struct ws_err *err);
	/* ---- ABI 2.2 ---- */
	/*
	 * Sharing what the accelerator learned (a memo) between runs: the
	 * kernel's ws_sim_accel_share_key/import/export (sim.h) wrap these,
	 * and own the envelope (context key, length, checksum) around the
	 * plugin's bytes.  All three or none (the loader checks).
	 * share_key: after init and sample_period, whether this run's
	 * knowledge can be shared, and the key of everything that knowledge
	 * depends on in the plugin (its parameters, the CC's); the kernel mixes
	 * in its own transport settings.
	 * share_import: before the run, the bytes one share_export wrote (in
	 * this context); what the plugin already holds wins.  With
	 * `check_only`, only validate (the kernel checks every part of a blob
	 * before importing any).  `data` is read only: several runs may import
	 * the same bytes at once.
	 * share_export: what this run learned, not what it imported or loaded,
	 * malloc'd into *data (the kernel frees it); deterministic bytes for a
	 * deterministic run; NULL and 0 when nothing.
	 */
	bool (*share_key)(const struct ws_inst *inst, uint64_t *key);
	int (*share_import)(struct ws_inst *inst, const void *data, size_t len,
			    bool check_only, struct ws_err *err);
	int (*share_export)(struct ws_inst *inst, void **data, size_t *len,
			    struct ws_err *err);
};

/* ---- workload ----------------------------------------------------------- */

struct ws_workload_ops {
	uint32_t size; /* sizeof(struct ws_workload_ops) */
	/* required: create the first flows (or schedule their creation) */
	int (*start)(struct ws_inst *inst, struct ws_err *err);
	/* optional: after the run, write extra outputs into `dir` */
	int (*finish)(struct ws_inst *inst, const char *dir, struct ws_err *err);
	/* optional: results for summary.json */
	void (*report)(struct ws_inst *inst, struct ws_json *j);
	/* optional: lines for the run summary `warpsim run` prints,
	 * each "  name       text\n"; `dir` is where finish wrote its outputs.
	 * Returns the length written (snprintf semantics). */
	size_t (*summary)(struct ws_inst *inst, const char *dir, char *buf,
			  size_t size);
	/* ---- ABI 2.1 ---- */
	/* optional: how many flows the workload will create in all (for a
	 * progress line's "done / known" and its ETA); 0: not known */
	uint64_t (*flows_expected)(const struct ws_inst *inst);
	/* optional: write the flows it will create, in the HPCC ns-3 flow.txt
	 * layout (N, then "src dst priority dport bytes start_seconds"), to
	 * `path`, so other simulators can run the same traffic */
	int (*write_trace)(struct ws_inst *inst, const char *path,
			   struct ws_err *err);
};

/* ---- flows -------------------------------------------------------------- */

typedef void (*ws_flow_done_fn)(struct ws_sim *sim, uint32_t flow, void *arg);

struct ws_flow_spec {
	uint32_t size;              /* WS_INIT_SIZE(struct ws_flow_spec) */
	uint32_t src, dst;   /* host node ids */
	uint64_t bytes;      /* > 0 */
	ws_time start;       /* absolute, >= now */
	uint8_t prio;        /* 1..7 */
	uint16_t dport;
	uint64_t tag;        /* the workload's own label */
	ws_flow_done_fn on_done; /* optional completion callback */
	void *arg;
};

/*
 * Create a flow; it starts at spec->start.  Flow ids are given in creation
 * order from 0.  Errors name the bad field (a switch as endpoint, src == dst,
 * a node that does not exist, a start in the past).
 */
WS_API int ws_flow_create(struct ws_sim *sim, const struct ws_flow_spec *spec,
			  uint32_t *id, struct ws_err *err);

struct ws_flow_info {
	uint32_t size;              /* WS_INIT_SIZE(struct ws_flow_info) */
	uint32_t id, src, dst;
	uint8_t prio;
	uint16_t sport, dport;
	uint64_t tag;
	uint64_t bytes;
	ws_time start;      /* creation time */
	ws_time end;        /* last byte acknowledged; WS_TIME_NEVER if not */
	ws_time ideal_fct;  /* base RTT + wire bytes / path rate */
	uint64_t acked;     /* bytes acknowledged */
	uint64_t sent;      /* payload bytes transmitted, retransmissions included */
	uint64_t retx;      /* payload bytes retransmitted */
	uint64_t rate;      /* current CC rate */
	uint64_t window;
	uint32_t hops;
	uint64_t ce_marked; /* data packets that arrived CE-marked */
	uint64_t cnps;      /* congestion notifications delivered to the CC */
	uint64_t nacks;     /* NACKs received */
	uint64_t timeouts;  /* retransmission timeouts */
	bool aborted;       /* given up after [nic] retry_limit timeouts in a row */
	/* ---- ABI 2.1 ---- (0 before the flow started) */
	ws_time base_rtt;   /* the path's: 2 x propagation + per-hop payload
			     * serialization (ideal_fct = base_rtt + wire_bytes
			     * at the path rate) */
	uint64_t wire_bytes; /* bytes + one header per packet, as ideal_fct counts */
	uint64_t path_rate; /* bps of the slowest link of the data path */
	/* ---- ABI 2.3 ---- (receiver side) */
	uint64_t ooo_pkts;    /* data packets that arrived above the next
			       * expected byte (go-back-N drops and NACKs them) */
	uint32_t max_reorder; /* the largest such distance above the expected
			       * byte, in full payloads ([nic] mtu - header),
			       * rounded up; 0 when nothing came out of order */
	/* ---- ABI 2.4 ---- */
	uint64_t retx_pkts;   /* data packets retransmitted */
	uint64_t trims;       /* of its data packets, trimmed by switches */
};

WS_API uint32_t ws_flow_count(const struct ws_sim *sim);

/*
 * For acceleration plugins.  A flow's unsent bytes: beyond the highest
 * byte it ever sent (0 once it completed).  ws_flow_skip() counts `bytes`
 * of them as delivered without packets, as a fast-forward at the flow's
 * rate would: the packet sequence ends `bytes` earlier, ws_flow_get()'s
 * `sent` and `acked` include them, and a flow with nothing left completes.
 * ws_flow_ports() lists the global egress ports its data packets and its
 * ACKs leave by (the routing rule's choice for its 5-tuple, as a probe) and,
 * if `rates` is not NULL, their rates.  ws_sim_max_base_rtt() is the
 * fabric's largest base RTT (what CCs see as max_base_rtt).
 * ws_flow_set_rate() hands a rate to the flow's CC (its set_rate op).
 */
WS_API uint64_t ws_flow_unsent(const struct ws_sim *sim, uint32_t id);
WS_API uint64_t ws_flow_skipped(const struct ws_sim *sim, uint32_t id);
WS_API int ws_flow_skip(struct ws_sim *sim, uint32_t id, uint64_t bytes,
			struct ws_err *err);
WS_API int ws_flow_ports(struct ws_sim *sim, uint32_t id, uint32_t *ports,
			 uint64_t *rates, uint32_t max, uint32_t *n, struct ws_err *err);
WS_API ws_time ws_sim_max_base_rtt(struct ws_sim *sim);
/* The payload rate a flow reaches alone on its path: its slowest link's
 * rate x payload / wire bytes of a full packet (ACKs travel the other way). */
WS_API uint64_t ws_flow_lone_goodput(const struct ws_sim *sim, uint32_t id);
WS_API void ws_flow_set_rate(struct ws_sim *sim, uint32_t id, uint64_t rate_bps);
WS_API int ws_flow_get(const struct ws_sim *sim, uint32_t id,
		       struct ws_flow_info *out);

/* ---- ABI 2.1 ---- */
/*
 * Services for models that carry traffic without packets.  A flow's
 * feedback (ACK, NACK, CNP) that reaches it while it is frozen is held and
 * delivered when it thaws, later by the thaw's shift, as its timers are; so
 * a flow can be frozen without freezing the ports its ACKs cross (which
 * other flows' data may use).  ws_flow_ports() lists the data path's ports
 * first (ws_flow_info.hops of them), then the ACK path's.
 *
 * ws_flow_ack_load() is the wire rate (bits/s) of the ACKs a flow sends
 * back while it delivers `goodput_bps` of payload ([nic] ack_interval,
 * the ACK's wire bytes and the payload per packet).
 *
 * ws_port_add_load() adds `bps` (negative: removes) of background load to
 * a port (global id): it then serializes every packet at its rate less the
 * total load, as if that much of its capacity carried traffic that is not
 * simulated packet by packet (the ACKs of a frozen flow, a flow-level
 * model's flows).  The total must stay in [0, rate x 0.99]: WS_EINVAL
 * otherwise, and nothing changes.
 */
WS_API uint64_t ws_flow_ack_load(const struct ws_sim *sim, uint32_t id,
				 uint64_t goodput_bps);
WS_API int ws_port_add_load(struct ws_sim *sim, uint32_t gid, int64_t bps,
			    struct ws_err *err);

/*
 * Flows an accelerator models itself (a flow-level model).  Called from
 * the accelerator's on_flow_start, ws_flow_adopt() takes the flow out of
 * packet-level simulation: the kernel sends none of its packets, and its
 * retransmission timer and CC timers are cancelled (its CC saw init and
 * sees nothing more).  The accelerator decides when it ends:
 * ws_flow_finish() completes an adopted flow now, every byte counted as
 * delivered and acknowledged without packets (ws_flow_get's `acked` and
 * `sent` are its size), with the completion callbacks of any flow (the
 * accelerator's on_flow_finish, the workload's on_done).  Errors: no such
 * flow; adopt outside on_flow_start or twice; finish of a flow not adopted
 * or already complete.
 */
WS_API int ws_flow_adopt(struct ws_sim *sim, uint32_t id, struct ws_err *err);
WS_API int ws_flow_finish(struct ws_sim *sim, uint32_t id, struct ws_err *err);

/* ---- ABI 2.7 ---- */
/*
 * The sizes every data packet and ACK has on the wire ([nic] mtu, header,
 * ack_size, ack_header, ack_interval and, for a CC that needs INT, the
 * INT bytes), for a model that carries traffic without flows: a payload of
 * B bytes crosses a link as B + ceil(B / payload) x (header + int_bytes)
 * wire bytes, and its ACKs come back as one ACK of `ack` bytes per
 * `ack_interval` packets.  ws_flow_ack_load() and a flow's wire_bytes
 * count the same.
 */
struct ws_wire {
	uint32_t size;          /* WS_INIT_SIZE(struct ws_wire) */
	uint32_t payload;       /* payload bytes of a full data packet */
	uint32_t header;        /* header bytes of every data packet */
	uint32_t int_bytes;     /* INT bytes a data packet carries (0 without INT) */
	uint32_t ack;           /* wire bytes of an ACK */
	uint32_t ack_interval;  /* data packets per ACK */
};
WS_API void ws_sim_wire(const struct ws_sim *sim, struct ws_wire *out);

#ifdef __cplusplus
}
#endif
#endif
