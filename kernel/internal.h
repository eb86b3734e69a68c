/* SPDX-License-Identifier: MIT */
/*
 * Kernel-internal definitions: the event queue, pools, ports, NICs, flows
 * and the simulation struct.  Plugins never include this file; they see the
 * public headers under warpsim/ only, so everything here may change freely.
 */
#ifndef WS_INTERNAL_H
#define WS_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "warpsim/warpsim.h"

/* ---- assertions ---------------------------------------------------------- */

_Noreturn void ws_assert_fail(const char *file, int line, const char *expr,
			      const char *fmt, ...) WS_PRINTF(4, 5);
/* A failure the library cannot return from: told on stderr, then abort(). */
_Noreturn void ws_fatal(const char *fmt, ...) WS_PRINTF(1, 2);
_Noreturn void ws_fatal_oom(size_t n, size_t size);

/* An internal invariant; prints the location and the values involved. */
#define WS_ASSERT(cond, ...)                                                 \
	do {                                                                 \
		if (__builtin_expect(!(cond), 0))                            \
			ws_assert_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

#define WS_MIN(a, b) ((a) < (b) ? (a) : (b))
#define WS_MAX(a, b) ((a) > (b) ? (a) : (b))
#ifndef WS_ARRAY_LEN
#define WS_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#endif

void *ws_xcalloc(size_t n, size_t size);
void *ws_xrealloc(void *p, size_t n, size_t size);
char *ws_xstrdup(const char *s);
/*
 * Memory for what is allocated per packet and per event (packet blocks,
 * wheel chunks): `bytes` (a multiple of WS_HUGE_PAGE) of zeroed anonymous
 * memory aligned to WS_HUGE_PAGE and advised onto transparent huge pages,
 * so that the run's random accesses do not also miss the TLB; where the
 * kernel refuses huge pages it is ordinary memory.  Out of memory is fatal.
 */
#define WS_HUGE_PAGE ((size_t)2 << 20)
void *ws_huge_map(size_t bytes);
void ws_huge_unmap(void *p, size_t bytes);

/*
 * Caller-allocated structs that start with their size (WS_INIT_SIZE):
 * ws_sized_in() copies `src` into the zeroed kernel struct `dst` of
 * `dst_size` bytes (its size field set to dst_size), refusing a size of 0
 * and trailing bytes the kernel does not know that are not zero;
 * ws_sized_out() writes `src` (a kernel struct of `src_size` bytes) into
 * the caller's `out` up to out's size, keeping that size.  `type` names the
 * struct in messages.
 */
int ws_sized_in(void *dst, size_t dst_size, const void *src, const char *type,
		struct ws_err *err);
void ws_sized_out(void *out, const void *src, size_t src_size, const char *type);

/* intfmt.c: resolve [nic] int_* into sim->int_fmt (after the fabric). */
struct ws_sim;
void ws_int_format_setup(struct ws_sim *sim);

/* ---- arena: memory that lives as long as the configuration -------------- */

struct ws_arena_blk;
struct ws_arena {
	struct ws_arena_blk *head;
};

void *ws_arena_alloc(struct ws_arena *a, size_t size);
char *ws_arena_strdup(struct ws_arena *a, const char *s);
void ws_arena_free(struct ws_arena *a);

/* ---- event queue ---------------------------------------------------------- */

/*
 * An event record: only for an event a handle was given out for (it can be
 * cancelled or asked about) and for a parked one.  A queued event is its
 * queue entry, which carries what the pop needs (time, handler, object,
 * argument, owner), so popping never reads a record that is not there.
 */
struct ws_event {
	ws_time when;
	uint64_t seq;           /* (time, seq) orders events; 0: not live */
	struct ws_event *wnext; /* owner's parked list, free list */
	ws_event_fn fn;
	void *obj;
	uint64_t arg;
	struct ws_owner *owner;
	uint8_t where;          /* WS_EV_PARKED, WS_EV_WHEEL or WS_EV_HEAP */
} __attribute__((aligned(64)));

enum { WS_EV_PARKED = 0, WS_EV_WHEEL = 1, WS_EV_HEAP = 2 };

/* What a queue entry says about its event besides time and order: its
 * owner (a struct ws_owner *, or 0), or, when a record backs it, the
 * record's address with the low bit set. */
#define WS_EV_REF_REC ((uintptr_t)1)

struct ws_heap_ent {
	ws_time when;
	uint64_t seq;
	ws_event_fn fn;
	void *obj;
	uint64_t arg;
	uintptr_t ref;
};

struct ws_evblock;

/*
 * Timing wheel: 2^bits buckets of 2^res ps each (WS_WHEEL_* bound them;
 * ws_eventq_shape() sets them from the fabric before the first event).
 * Events within the wheel's horizon (serialization, propagation, pacing)
 * sit in per-bucket lists of (key, record) entries, unsorted until the
 * bucket becomes the current one, with a two-level bitmap of non-empty
 * buckets; later ones (CC timers, timeouts, flow starts) in a 4-ary
 * min-heap with lazily deleted entries.  Either way the order is (time,
 * sequence): events at the same picosecond run in the order they were
 * scheduled.
 */
#define WS_WHEEL_RES_MIN 6
#define WS_WHEEL_RES_MAX 16
#define WS_WHEEL_BITS_MIN 12
#define WS_WHEEL_BITS_MAX 18
/* A wheel entry's key: the event's offset within its bucket above its
 * sequence's low WS_EV_SEQ_BITS bits, so a bucket sorts without reading
 * its records. */
#define WS_EV_SEQ_BITS (64 - WS_WHEEL_RES_MAX)

struct ws_wentry {
	uint64_t key;              /* (when % bucket width) << WS_EV_SEQ_BITS | seq */
	ws_event_fn fn;
	void *obj;
	uint64_t arg;
	uintptr_t ref;             /* owner, or record | WS_EV_REF_REC */
};

/* Entries of a bucket that is not the current one, in 512-byte chunks
 * shared by all buckets, so the wheel holds memory for its live events
 * only, however many buckets it has. */
#define WS_CHUNK_ENTRIES 12
struct ws_chunk {
	struct ws_chunk *next;     /* older (full) chunks of the bucket; free list */
	uint32_t n;
	uint32_t reserved;
	struct ws_wentry e[WS_CHUNK_ENTRIES];
} __attribute__((aligned(64)));

struct ws_bucket {
	struct ws_chunk *head;     /* the chunk being filled; unsorted entries */
	uint32_t n;                /* entries in its chunks */
	uint32_t reserved;
};

struct ws_chunkslab;

struct ws_eventq {
	struct ws_bucket *bucket;  /* 2^bits */
	uint64_t *bits;            /* bit i: bucket i is not empty */
	uint64_t *summary;         /* bit w: bits[w] is not zero */
	uint32_t res;              /* log2 of a bucket's width in ps */
	uint32_t nbits;            /* log2 of the number of buckets */
	uint32_t mask;             /* buckets - 1 */
	uint32_t sorted;           /* the current bucket (its entries are in cur_e) */
	uint64_t cur;              /* absolute bucket number of "now" */
	uint64_t sorted_abs;       /* its absolute bucket number */
	struct ws_wentry *cur_e;   /* the current bucket's entries, sorted from cur_pos */
	uint32_t cur_n, cur_pos, cur_cap;
	/* entries that came into the current bucket after it was sorted and
	 * belong before its last one: a binary min-heap on the key */
	struct ws_wentry *late;
	uint32_t late_n, late_cap;
	size_t in_wheel;
	struct ws_chunk *free_chunks;
	struct ws_chunkslab *slabs;
	size_t n_chunks;           /* chunks allocated */
	struct ws_wentry *scratch; /* merge sort of a large bucket, freeze */
	size_t cap_scratch;
	struct ws_heap_ent *heap;
	size_t n, cap;
	size_t stale;           /* stale entries in the heap */
	uint64_t next_seq;
	uint64_t live;          /* live events (wheel, heap or parked) */
	uint64_t parked;        /* of which parked on frozen owners */
	struct ws_event *free;
	struct ws_evblock *blocks;
	size_t n_blocks;        /* blocks of EV_BLOCK records allocated */
};

void ws_eventq_init(struct ws_eventq *q);
/* Bucket width 2^res ps and 2^bits buckets (clamped to the WS_WHEEL_*
 * bounds); only while the queue is empty. */
void ws_eventq_shape(struct ws_eventq *q, unsigned res, unsigned bits);
void ws_eventq_fini(struct ws_eventq *q);
struct ws_evh ws_eventq_push(struct ws_eventq *q, struct ws_owner *owner,
			     ws_time when, ws_event_fn fn, void *obj,
			     uint64_t arg);
/* The same without a handle: no record is made (the event can be neither
 * cancelled nor asked about, only frozen with its owner).  The per-packet
 * events (link arrivals) are posted. */
void ws_eventq_post(struct ws_eventq *q, struct ws_owner *owner, ws_time when,
		    ws_event_fn fn, void *obj, uint64_t arg);
/*
 * Remove the earliest live event with time <= limit; copy what it calls
 * into *out (the record itself is recycled).  False if none.
 */
struct ws_fired {
	ws_time when;
	ws_event_fn fn;
	void *obj;
	uint64_t arg;
};
bool ws_eventq_pop(struct ws_eventq *q, ws_time limit, struct ws_fired *out);
/* Time of the earliest live event, or WS_TIME_NEVER. */
ws_time ws_eventq_peek(struct ws_eventq *q);
bool ws_eventq_cancel(struct ws_eventq *q, struct ws_evh h);
bool ws_eventq_pending(const struct ws_eventq *q, struct ws_evh h);
/* Park one pending event whose owner is frozen, without scanning the
 * queue (a freeze that knows its owners' events by handle); the handle is
 * updated (a far-future event moves to a new record). */
void ws_eventq_park(struct ws_eventq *q, struct ws_evh *h);
void ws_eventq_freeze(struct ws_eventq *q, struct ws_owner *const *owners,
		      size_t n);
/* Parked events return at when + shift (never before `now`). */
void ws_eventq_thaw(struct ws_eventq *q, struct ws_owner *const *owners,
		    size_t n, ws_time shift, ws_time now);

/* ---- packets -------------------------------------------------------------- */

struct ws_pktblock;
/*
 * Packets are carved from blocks of WS_PKT_BLOCK_BYTES.  A record
 * is `rec` bytes: the whole struct ws_pkt when the run stamps INT, else
 * its first cache line only (the INT stack is never touched then).  When
 * the packets in use fall to `trim_at` after a burst, the blocks whose
 * packets are all free go back to the system (ws_pktpool_trim).
 */
#define WS_PKT_BLOCK_BYTES ((size_t)256 << 10)
/*
 * Flow records (flow.c): cut in order from arenas of WS_HUGE_PAGE
 * (ws_huge_map), a record released by flowdone.c kept for the next flow.
 * A run of 10^5 to 10^6 short flows otherwise spends a third of its time
 * taking the fresh 4 KiB pages of their records one fault at a time.
 * Built with AddressSanitizer, records not handed out are poisoned.
 */
struct ws_flowslab {
	size_t rec;            /* record bytes: the flow and its CC state */
	char *next;            /* the current arena's first free byte */
	size_t left;           /* and how many follow */
	void *reuse;           /* released records, each holding the next */
	char **arenas;
	uint32_t n_arenas, cap_arenas;
};
struct ws_flow *ws_flow_record(struct ws_sim *sim);
void ws_flow_record_release(struct ws_sim *sim, struct ws_flow *f);

struct ws_pktpool {
	struct ws_pkt *free;
	struct ws_pktblock *blocks;
	uint32_t rec;       /* bytes per packet record; 0: not set yet */
	uint32_t per_block; /* packets per block */
	uint64_t allocated; /* packets in the pool's blocks (free or in use) */
	uint64_t in_use;
	uint64_t peak;      /* most packets in use at once */
	uint64_t n_blocks, released; /* blocks held now; blocks given back */
	uint64_t trim_at;   /* try a trim when in_use falls to this */
	bool shared;        /* a partition's: its packets are freed by others
			     * too, so it never trims (in_use is a balance) */
	char *arena;        /* blocks are cut from huge pages: the rest of one */
	size_t arena_left;  /* bytes */
};

/* The record size: packets without INT take one cache line. */
void ws_pktpool_init(struct ws_pktpool *pool, bool with_int);
void ws_pktpool_fini(struct ws_pktpool *pool);
struct ws_pkt *ws_pktpool_grow(struct ws_pktpool *pool);
/* Give back the blocks whose packets are all free; returns how many. */
uint64_t ws_pktpool_trim(struct ws_pktpool *pool);

static inline struct ws_pkt *ws_pkt_alloc(struct ws_pktpool *pool)
{
	struct ws_pkt *p = pool->free;
	if (__builtin_expect(p == NULL, 0))
		p = ws_pktpool_grow(pool);
	pool->free = p->next;
	if (++pool->in_use > pool->peak)
		pool->peak = pool->in_use;
	p->next = NULL;
	p->flags = 0;
	p->int_n = 0;
	p->hops = 0;
	p->ecn = WS_ECN_NOT_ECT;
	p->acked_pkts = 0;
	p->acked_ce = 0;
	p->vc = 0;
	p->in_q = 0;
	p->route = 0;
	return p;
}

/* The type of a packet on the pool's free list. */
#define WS_PKT_FREE 0xffu

static inline void ws_pkt_free(struct ws_pktpool *pool, struct ws_pkt *p)
{
	p->type = WS_PKT_FREE;
	p->next = pool->free;
	pool->free = p;
	if (__builtin_expect(--pool->in_use == pool->trim_at, 0))
		ws_pktpool_trim(pool);
}

/* FIFO of packets. */
struct ws_pktq {
	struct ws_pkt *head, *tail;
	uint32_t bytes;
	uint32_t pkts;
};

/* A port's packets of frozen flows, per egress class, in their order; `n`
 * freeze sets hold the port.  Allocated at the port's first such freeze. */
struct ws_hold {
	uint32_t n;
	uint64_t bytes;
	struct ws_pktq q[WS_PRIORITIES];
};

static inline void ws_pktq_push(struct ws_pktq *q, struct ws_pkt *p)
{
	p->next = NULL;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->bytes += p->wire;
	q->pkts++;
}

static inline struct ws_pkt *ws_pktq_pop(struct ws_pktq *q)
{
	struct ws_pkt *p = q->head;
	if (p) {
		q->head = p->next;
		if (!q->head)
			q->tail = NULL;
		q->bytes -= p->wire;
		q->pkts--;
		p->next = NULL;
	}
	return p;
}

/* ---- kernel configuration sections ----------------------------------------- */

enum ws_window_mode { WS_WIN_OFF = 0, WS_WIN_MAX_BDP = 1, WS_WIN_PATH_BDP = 2 };
enum ws_int_encoding { WS_INT_ENC_REFERENCE = 0, WS_INT_ENC_EXACT = 1 };
enum ws_serialization { WS_SER_AUTO = 0, WS_SER_EXACT = 1, WS_SER_NS = 2 };
enum ws_reference { WS_REF_NONE = 0, WS_REF_NS3 = 1 };
/* the parts of [sim] reference: auto follows it, else the named behaviour */
enum ws_ref_part { WS_PART_AUTO = 0, WS_PART_NATIVE = 1, WS_PART_NS3 = 2 };
enum ws_switch_order { WS_ORDER_DESCENDING = 0, WS_ORDER_ASCENDING = 1 };
enum ws_transport { WS_TR_GBN = 0, WS_TR_SR = 1 };
enum ws_entropy_mode { WS_ENT_FLOW = 0, WS_ENT_SPRAY = 1, WS_ENT_RECYCLE = 2 };

struct ws_sim_conf {
	uint64_t seed;
	const char *threads;    /* [sim] threads: N or auto */
	const char *partitions; /* [sim] partitions: N or auto */
	uint32_t n_threads;     /* parsed; 0: one per core */
	uint32_t n_parts;       /* parsed; 0: auto */
	ws_time stop_time;      /* 0: run until every flow completes */
	uint64_t max_events;    /* 0: no limit */
	int reference;          /* enum ws_reference */
	int serialization;      /* enum ws_serialization */
	int ecmp;               /* enum ws_ref_part: xxhash or ns3 */
	int ns3_switch_order;   /* enum ws_switch_order */
	int nic_wake;           /* enum ws_ref_part: eligible or ns3 */
	int rate_gap;           /* enum ws_ref_part: shift or ns3 */
	int ecn_scope;          /* enum ws_ref_part: ect or all */
	ws_time perturb;        /* 0: off; else flows start up to this much later */
	uint64_t perturb_seed;  /* the draws of perturb */
};

/* [sim] reference resolved into its parts (ns3ref.c), read on hot paths. */
struct ws_ref {
	bool ser_ns;            /* serialization truncated to whole ns */
	bool ecmp;              /* rules hash and order next hops as the reference */
	bool switch_ascending;  /* ... listing switches by ascending id */
	bool wake;              /* the reference's NIC wake-up rule */
	bool keep_gap;          /* a rate change keeps the pending gap when the
				 * CC says the reference's does (WS_CC_REF_KEEPS_GAP) */
	bool ecn_all;           /* every packet of a data queue may be marked */
	bool pair_ports;        /* source ports numbered per (src, dst) pair
				 * from 10000 (with ecmp: they feed its hash) */
	bool ecn_unmapped_zero; /* a port rate ecn_map lacks: thresholds 0 */
	/* pair_ports: flows started per (src, dst), open addressing */
	uint64_t *pair_key;     /* src << 32 | dst, + 1; 0: empty */
	uint32_t *pair_n;
	size_t pair_cap, pair_used;
};
void ws_ref_resolve(struct ws_sim *sim);
void ws_ref_free(struct ws_sim *sim);
uint16_t ws_ns3_pair_sport(struct ws_sim *sim, uint32_t src, uint32_t dst);
int ws_ns3_write_fct_txt(struct ws_sim *sim, const char *dir, struct ws_err *err);

struct ws_nic_conf {
	uint64_t mtu;           /* wire bytes of a full data packet */
	uint64_t header;        /* of which headers */
	uint64_t ack_size;      /* wire bytes of ACK/NACK/CNP (padded minimum) */
	uint64_t ack_header;    /* ACK bytes before padding; INT is added to it */
	uint64_t ack_interval;  /* ACK every this many in-order data packets */
	uint64_t ack_chunk;     /* also ACK when the next expected byte crosses a multiple */
	ws_time nack_interval;  /* min gap between NACKs for the same byte */
	ws_time rto;            /* retransmission timeout; 0: none */
	bool rto_lossless;      /* the timeout runs with PFC on too */
	uint64_t retry_limit;   /* retries before a flow is aborted; 0: never */
	int window;             /* enum ws_window_mode */
	bool var_window;        /* scale the kernel's own window by rate / line rate */
	uint64_t int_max_hops;
	uint64_t int_hop_bytes;
	uint64_t int_header;
	int int_encoding;       /* enum ws_int_encoding */
	uint64_t int_multi;     /* unit multiplier; 0: fastest host rate / 25 Gb/s */
	uint64_t int_time_bits, int_bytes_bits, int_qlen_bits;
	ws_time int_time_unit;
	uint64_t int_bytes_unit, int_qlen_unit; /* before the multiplier */
	/* lossy transports (kernel/sr.c, docs/transports.md) */
	int transport;          /* enum ws_transport */
	uint64_t sr_dupthresh;  /* sr: lost once this many later packets were SACKed */
	ws_time rto_low, rto_high; /* sr: IRN's two timeouts */
	uint64_t rto_low_packets; /* sr: rto_low while at most this many are in flight */
	bool rto_backoff;       /* sr: double the timeout per timeout in a row */
	bool bdp_fc;            /* sr: cap packets in flight (IRN's BDP-FC) */
	uint64_t bdp_packets;   /* its cap; 0: the fabric's largest BDP */
	int entropy;            /* enum ws_entropy_mode */
	uint64_t entropy_values; /* spray: values per flow; recycle: ring size */
};

/* switch levels with their own [switch] buffer_tierN and ecn_tierN */
#define WS_SW_TIERS 4

struct ws_switch_conf {
	uint64_t buffer;        /* shared buffer per switch, bytes */
	uint64_t buffer_tier[WS_SW_TIERS + 1]; /* [1..]: a level's; 0: buffer */
	bool pfc;
	uint64_t pfc_reserve;   /* per ingress (port, priority) */
	uint64_t pfc_headroom;  /* per port; 0: 3 x rate x delay */
	uint64_t pfc_alpha_shift;
	uint64_t pfc_resume_offset;
	uint64_t pfc_frame;     /* wire bytes of a PFC frame */
	bool ecn;
	uint64_t ecn_kmin, ecn_kmax;
	double ecn_pmax;
	uint64_t ecn_ref_rate;  /* thresholds scale with rate / this; 0: no scaling */
	const char *ecn_map;    /* "RATE KMIN KMAX PMAX; ..." exceptions by rate */
	const char *ecn_tier[WS_SW_TIERS + 1]; /* [1..]: "KMIN KMAX PMAX" of a
						* level's ports; "": as above */
	bool ack_high_priority;
	uint64_t ttl;           /* switch hops before a packet is dropped as looping */
	bool trim;              /* cut data the buffer refuses to its header (NDP) */
	uint64_t trim_threshold; /* also trim above this many queued bytes; 0: off */
};

struct ws_failures_conf {
	const char *events;     /* "TIME ACTION TARGET; ..." */
	const char *file;       /* events, one per line */
	ws_time reroute_delay;  /* the routing rule hears of a change this late */
	uint64_t seed;          /* 0: derive from [sim] seed */
};

/* [output] flow_records: every record to the end, or the live ones */
enum ws_flow_records { WS_RECORDS_ALL, WS_RECORDS_LIVE };

struct ws_output_conf {
	const char *dir;
	bool fct;
	bool ports;
	bool flows;
	ws_time trace_rates;    /* sampling interval of rates.csv; 0: none */
	ws_time trace_queues;   /* sampling interval of queues.csv; 0: none */
	ws_time trace_util;     /* sampling interval of util.csv; 0: none */
	ws_time trace_start;    /* the first sample of every trace */
	const char *trace_ports; /* ports queues.csv, util.csv, queue_dist.csv cover */
	bool fct_by_size;       /* write fct_by_size.csv */
	uint64_t fct_size_buckets; /* equal-count size buckets (fctsize.c) */
	uint64_t trace_max_bytes; /* largest trace file */
	bool failures;          /* write failures.csv: the run has a failure schedule
				 * (set by failures.c, not a key) */
	bool fct_txt;           /* write fct.txt, the HPCC simulator's layout */
	bool timeline;          /* the training workloads write timeline.json */
	int flow_records;       /* enum ws_flow_records (flowdone.c) */
	/* event logs (pkttrace.c, docs/outputs.md) */
	bool pfc;               /* write pfc.csv and pfc_ports.csv */
	const char *packets;    /* kinds packets.csv traces; "": no packets.csv */
	const char *packets_events; /* events it traces */
	const char *packets_flows;  /* flow ids; "": every flow */
	const char *packets_ports;  /* ports; "": every port */
	ws_time packets_start, packets_stop; /* its time window; stop 0: the end */
	uint64_t log_max_bytes; /* largest packets.csv or pfc.csv: cut there */
};

extern const struct ws_param ws_sim_params[];
extern const struct ws_param ws_failures_params[];
extern const struct ws_param ws_nic_params[];
extern const struct ws_param ws_switch_params[];
extern const struct ws_param ws_output_params[];

/* ---- configuration store ---------------------------------------------------- */

struct ws_cfg_entry {
	char *section;
	char *key;
	char *value;
	char *file;   /* file it came from, or "--set" */
	int line;
};

struct ws_cfg_section {
	char *name;
	char *file;
	int line;
};

struct ws_cfg {
	struct ws_cfg_entry *e;
	size_t n, cap;
	struct ws_cfg_section *sections; /* every [header] seen, in order */
	size_t n_sections;
	char *path;   /* "" for strings */
	char *dir;    /* for relative paths */
};

/* ---- plugin loading ------------------------------------------------------- */

struct ws_loaded {
	void *dl;                      /* NULL for built-ins */
	const struct ws_plugin *desc;
	char path[1024];               /* file, or "built in" */
};

struct ws_search {
	char **roots;
	size_t n_roots;
};

int ws_search_init(struct ws_search *s, const char *plugin_path,
		   struct ws_err *err);
void ws_search_fini(struct ws_search *s);
int ws_plugin_load(const struct ws_search *s, enum ws_kind kind,
		   const char *name, struct ws_loaded *out, struct ws_err *err);
/* Check a descriptor as the loader does (exposed for tests of built-ins). */
int ws_plugin_check(const struct ws_plugin *d, enum ws_kind kind,
		    const char *name, const char *path, struct ws_err *err);
void ws_plugin_unload(struct ws_loaded *l);
/* The kernel's copy of a plugin's ops table: `size` bytes, the callbacks it
 * was built without read as NULL, its size field set to `size`.  Plugins'
 * ops are read only through such copies. */
void ws_plugin_ops_copy(const struct ws_plugin *d, void *buf, size_t size);
const char *ws_kind_dir(enum ws_kind kind);
extern const struct ws_plugin ws_builtin_accel_none;

/* ---- fabric internals ------------------------------------------------------ */

/*
 * A port: one direction of a link, its egress queues, and the ingress
 * accounting of the packets that came in through it.  512 bytes, aligned
 * to a cache line, its fields grouped by the lines each path reads: a
 * packet's hop reads the ingress port's lines 0 and 1 (arrival, and the
 * buffer release when it leaves) and the egress port's lines 0, 2, 3 and
 * the line of its queue's header (enqueue, dequeue, transmit).  On a large
 * fabric each is a cache miss, so the number of lines is what costs.
 */
struct ws_port {
	/* line 0: what both directions read per packet */
	uint32_t node;
	uint32_t peer;             /* global index of the far end; WS_NONE: unconnected */
	uint16_t local;
	uint8_t paused;            /* bit p: the peer has paused priority p here */
	uint8_t pause_sent;        /* bit p: we have paused the peer's priority p */
	uint8_t rr;                /* round robin over priorities 1..7 */
	uint8_t is_host;
	uint8_t alpha_shift;       /* dynamic threshold: alpha = 2^-shift */
	uint8_t ready;             /* switch fields set (ws_port_ready) */
	uint8_t down;              /* a failure holds the link down (failures.c) */
	uint8_t fail_in;           /* failures.c checks arrivals through this port
				    * (a packet on the wire when its link went
				    * down, loss): set on the receiving end */
	uint8_t reserved0[2];
	uint32_t headroom;         /* set from [switch] at the port's first packet
				    * (ws_port_ready), so a fabric shared
				    * copy-on-write is not written at set-up;
				    * so are kmin, kmax, pmax */
	uint64_t rate;
	ws_time busy_until;        /* end of the current serialization */
	uint64_t q_bytes;          /* all priorities */
	uint64_t rx_pkts;          /* packets that came in through this port: the
				    * far end's tx_pkts minus these are on the wire */
	uint64_t reserved1;
	/* line 1: switch MMU, ingress accounting of packets that came in here */
	uint32_t in_bytes[WS_PRIORITIES];
	uint32_t hdrm_bytes[WS_PRIORITIES];
	/* line 2: the transmitter */
	struct ws_owner owner;     /* its tx-done and link-arrival events */
	ws_time delay;
	uint64_t bg_load;          /* bits/s carried without packets (ws_port_add_load) */
	uint64_t tx_bytes, tx_pkts;
	uint64_t tx_fresh_bytes;   /* of which data sent for the first time (no WS_PKTF_RETX) */
	uint64_t reserved2;
	/* line 3: the egress queue's wake-up, marking and peak */
	struct ws_evh tx_ev;       /* the transmit wake-up; .ev NULL when none is pending */
	ws_time tx_at;             /* time of the pending transmit wake-up */
	struct ws_hold *hold;      /* frozen flows' packets set aside (WS_FREEZE_FLOWS_ONLY) */
	uint32_t kmin, kmax;       /* ECN thresholds at this rate, bytes */
	double pmax;               /* marking probability at kmax */
	struct ws_rng rng;
	uint64_t max_q_bytes;
	/* lines 4-6: egress queues */
	struct ws_pktq q[WS_PRIORITIES];
	/* line 7: counters */
	uint64_t drops, ecn_marks;
	uint64_t ecn_marks_ctrl;   /* ACKs, NACKs, CNPs marked ([sim] ecn_scope = all) */
	uint64_t pause_tx, resume_tx, pause_rx;
	ws_time paused_since;      /* when `paused` last became nonzero */
	ws_time paused_time;       /* total time with some priority paused */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct ws_port) == 512, "a port is eight cache lines");
_Static_assert(__builtin_offsetof(struct ws_port, in_bytes) == 64 &&
	       __builtin_offsetof(struct ws_port, owner) == 128 &&
	       __builtin_offsetof(struct ws_port, tx_ev) == 192 &&
	       __builtin_offsetof(struct ws_port, q) == 256,
	       "the port's lines hold the fields grouped for them");

/* What the set-up of every run needs from all ports, computed once per
 * build (ws_fabric_finish), so that a run of a shared fabric reads only
 * the ports it uses. */
struct ws_fabfacts {
	uint64_t max_rate, min_rate; /* over connected ports */
	ws_time max_delay;
	uint64_t fastest_host_rate;
	uint64_t *sw_hdrm_auto;      /* per switch (aux index): sum of its ports'
				      * automatic PFC headroom, 3 x rate x delay */
};

/* One [switch] ecn_map entry. */
struct ws_ecn_entry {
	uint64_t rate, kmin, kmax;
	double pmax;
};

/* Shared-buffer state of one switch. */
struct ws_swstate {
	uint64_t buffer;
	uint64_t shared_used;
	uint64_t total_hdrm;
	uint64_t total_rsrv;
	uint64_t peak_used;
};

struct ws_flow;

/* A host NIC: RDMA-style queue pairs, one per flow. */
struct ws_nic {
	uint32_t node;
	uint32_t port;             /* global index of its port 0 */
	struct ws_flow **act;      /* flows with bytes to send, in arrival order */
	uint32_t n_act, cap_act;
	uint32_t rr;               /* last flow served */
	uint32_t next_sport;
	/* [sim] nic_wake = ns3: the one pending idle wake-up (the reference's
	 * m_nextSend), apart from the port's transmit wake-up */
	struct ws_evh ref_wake;    /* .ev NULL when none is pending */
	ws_time ref_wake_at;
};

struct ws_flow {
	struct ws_cc_flow cc;      /* the CC's view; first member */
	struct ws_owner owner;     /* CC timers and RTO */
	struct ws_nic *nic;        /* sender NIC; NULL in the CC lab */
	uint64_t tag;
	ws_flow_done_fn on_done;
	void *on_done_arg;
	ws_time start, end, ideal_fct;
	uint8_t prio;
	uint8_t active;            /* in the NIC's list */
	uint8_t started;
	uint8_t cnp_mode;
	uint8_t cc_window;         /* the CC set the window: var_window leaves it */
	uint16_t sport, dport;
	ws_time cnp_interval;
	/* sender */
	ws_time next_avail;        /* pacing: earliest next send */
	uint32_t last_wire;        /* size of the last packet sent */
	ws_time last_progress;     /* last time snd_una advanced */
	struct ws_evh rto_ev;
	struct ws_evh timer[WS_CC_TIMERS];
	uint64_t high_sent;        /* highest snd_nxt reached */
	uint64_t seq_end;          /* end of the packet sequence: size - skipped */
	uint64_t skipped;          /* bytes delivered by fast-forward, no packets */
	uint64_t sent_bytes, retx_bytes, pkts_sent;
	/* receiver */
	uint64_t rcv_nxt;
	ws_time nack_until;
	uint64_t last_nack;
	ws_time last_cnp;
	uint32_t rx_since_ack, ce_since_ack;
	uint64_t ooo_pkts;         /* data packets that arrived above rcv_nxt */
	uint32_t max_reorder;      /* largest such distance, in full payloads */
	/* counters */
	uint64_t ce_marked, cnps, nacks, timeouts;
	uint32_t retries;          /* timeouts since the last progress */
	uint8_t aborted;           /* given up after retry_limit timeouts */
	uint8_t adopted;           /* modelled by the accelerator, no packets */
	uint8_t in_start;          /* inside the accelerator's on_flow_start */
	uint8_t fail_why;          /* why its last packet dropped by a failure was
				    * (enum ws_fail_why; 0: none) */
	uint16_t fail_port;        /* ... at this port of node fail_node */
	uint32_t fail_node;
	uint64_t wire_bytes;       /* bytes + a header per packet (ideal FCT) */
	struct ws_sr *sr;          /* [nic] transport = sr or entropy != flow state
				    * (kernel/sr.c); NULL otherwise */
	uint64_t retx_pkts, trims; /* data packets resent; trimmed on the way */
};

static inline struct ws_flow *ws_flow_of(struct ws_cc_flow *f)
{
	return (struct ws_flow *)f;
}

/* ---- selective repeat and sender entropy (sr.c) ------------------------------ */

#define WS_RNG_ENTROPY 0x45u /* per flow: entropy draws */
#define WS_SR_URGENT 64u     /* trimmed packets queued for an early resend */

/* A bitmap of packet numbers from a moving base (words in a ring). */
struct ws_seqmap {
	uint64_t *w;
	uint64_t base;             /* word number of the first word kept */
	uint32_t cap;              /* words, a power of two (0: none yet) */
};
bool ws_seqmap_set(struct ws_seqmap *m, uint64_t i);
bool ws_seqmap_test(const struct ws_seqmap *m, uint64_t i);
uint64_t ws_seqmap_count(const struct ws_seqmap *m, uint64_t lo, uint64_t hi);
void ws_seqmap_advance(struct ws_seqmap *m, uint64_t i);
void ws_seqmap_clear(struct ws_seqmap *m);
void ws_seqmap_free(struct ws_seqmap *m);

struct ws_sr {
	/* sender */
	struct ws_seqmap sacked;   /* packets above snd_una selectively ACKed */
	uint64_t n_sacked;         /* bits set in it above snd_una */
	uint64_t high_sack;        /* highest packet selectively ACKed, + 1 */
	uint64_t lost_upto;        /* packets below it not ACKed are lost */
	uint64_t rtx_next;         /* next lost packet to consider resending */
	struct ws_seqmap resent;   /* lost packets resent since the last timeout */
	uint64_t *urgent;          /* trimmed packets to resend first (a ring) */
	uint32_t urgent_head, n_urgent;
	uint64_t cap;              /* BDP-FC: packets in flight; 0: none */
	uint32_t backoff;          /* timeouts in a row (the timeout's shift) */
	uint32_t dupthresh;        /* sr_dupthresh, raised by spurious resends */
	uint32_t reorder_raises;   /* times it was raised */
	/* receiver */
	struct ws_seqmap held;     /* packets above rcv_nxt that arrived */
	uint64_t rx_bytes;         /* distinct payload bytes accepted */
	/* entropy */
	struct ws_rng rng;
	uint16_t *ring;            /* recycle: values to reuse */
	uint32_t ring_head, ring_n;
	uint64_t recycled;         /* packets sent on a recycled value */
	uint64_t spray_next;       /* spray: the next of the flow's values */
};

bool ws_sr_wanted(const struct ws_sim *sim);
/* sr, a sender entropy other than flow, or trimming: outputs say more */
bool ws_transport_used(const struct ws_sim *sim);
void ws_sr_flow_init(struct ws_sim *sim, struct ws_flow *f);
void ws_sr_flow_free(struct ws_flow *f);
uint16_t ws_sr_entropy(struct ws_sim *sim, struct ws_flow *f);
void ws_sr_entropy_feedback(struct ws_sim *sim, struct ws_flow *f,
			    const struct ws_pkt *ack);
bool ws_sr_can_send(struct ws_sim *sim, struct ws_flow *f, uint64_t window);
uint64_t ws_sr_take(struct ws_sim *sim, struct ws_flow *f);
uint64_t ws_sr_in_flight(const struct ws_sim *sim, const struct ws_flow *f);
bool ws_sr_receive_ack(struct ws_sim *sim, struct ws_flow *f, const struct ws_pkt *p);
ws_time ws_sr_rto(const struct ws_sim *sim, const struct ws_flow *f);
void ws_sr_timeout(struct ws_sim *sim, struct ws_flow *f);
int ws_sr_receive_data(struct ws_sim *sim, struct ws_flow *f, const struct ws_pkt *p,
		       uint32_t *sack, bool *now);

/* Payload bytes in flight as the transport counts them (ws_cc_in_flight). */
uint64_t ws_flow_in_flight(const struct ws_flow *f);

/* ---- completed flows retired in id order (flowdone.c) ----------------------- */

/* A retired completed flow's share of the FCT statistics (ideal FCT > 0). */
struct ws_done_stat {
	double slowdown;           /* (end - start) / ideal FCT */
	uint64_t bytes;
};

/*
 * Flows below `wm` have completed and are retired: their fct.csv rows are
 * in `spool` (when fct.csv is written) and their statistics in `stat`, both
 * in id order.  A retired flow the accelerator modelled (adopted: it never
 * had a packet) is released: its record freed, sim->flows[id] NULL.  The
 * rest keep their records (late packets may still name them).  Release is
 * off (`on` false) when an output reads every record at the end (flows.csv,
 * fct.txt) and in the partitioned engine.
 */
struct ws_flows_done {
	bool decided, on;
	uint32_t wm;
	FILE *spool;
	struct ws_done_stat *stat;
	size_t n_stat, cap_stat;
	uint32_t live, peak_live;  /* records held; the most at once */
	uint64_t released;
	/* fctsize.c: fct_by_size's buckets, worked out once for
	 * fct_by_size.csv and summary.json (valid while n_done is by_size_at) */
	void *by_size;
	size_t n_by_size;
	uint32_t by_size_at;
};

/* flowdone.c */
void ws_flows_done_created(struct ws_sim *sim);
void ws_flows_done_advance(struct ws_sim *sim);
void ws_flows_done_free(struct ws_sim *sim);
/* The retired rows of fct.csv, copied to `out`. */
int ws_flows_done_copy_rows(struct ws_sim *sim, FILE *out);
/* output.c: order statistics without a sort.  ws_percentile_rank: the
 * index (from 0) of the nearest-rank pct-th percentile of n sorted values;
 * ws_select_double: v's k-th smallest placed at v[k], the smaller before
 * it, the rest after (v reordered); ws_select_percentiles: the percentiles
 * pcts[0..m) (ascending) of v[0..n), n > 0, the same values as sorting
 * and ws_percentile. */
size_t ws_percentile_rank(size_t n, double pct);
double ws_select_double(double *v, size_t n, size_t k);
void ws_select_percentiles(double *v, size_t n, const double *pcts, size_t m, double *out);

/* Every completed flow with an ideal FCT, in id order: fn(arg, bytes,
 * slowdown), the retired ones from their statistics, then the records. */
void ws_flows_done_each(const struct ws_sim *sim,
			void (*fn)(void *arg, uint64_t bytes, double slowdown),
			void *arg);
/* output.c: fct.csv's row of flow `id` */
void ws_fct_row(FILE *f, uint32_t id, const struct ws_flow *fl);

/* ---- the simulation ---------------------------------------------------------- */

struct ws_counters {
	uint64_t data_pkts, data_bytes;
	uint64_t acks, nacks, cnps;
	uint64_t notified;          /* congestion notifications delivered to CCs */
	uint64_t pfc_pauses, pfc_resumes;
	uint64_t drops, ttl_drops;  /* drops: every cause (buffer, failure, ...) */
	uint64_t fail_drops;        /* on or for a link that is down; no route left */
	uint64_t buffer_drops;      /* refused by the switch buffer (admission) */
	uint64_t loss_drops, gray_drops; /* [failures] loss and gray, on arrival */
	uint64_t ecn_marks;         /* data packets marked CE */
	uint64_t ecn_marks_ctrl;    /* other packets marked ([sim] ecn_scope = all) */
	uint64_t retx_bytes, timeouts;
	uint64_t aborted;
	uint64_t trims, retx_pkts, dup_pkts; /* dup_pkts: data received twice */
};

/* ---- failures (failures.c) ---------------------------------------------------- */

/* Why a failure dropped a flow's packet (its abort message says it). */
enum ws_fail_why {
	WS_WHY_NONE = 0,
	WS_WHY_LINK_DOWN = 1,  /* routed to, queued at or on the wire of a down link */
	WS_WHY_NO_ROUTE = 2,   /* the rule had no port left at that switch */
	WS_WHY_LOSS = 3,
	WS_WHY_GRAY = 4,
};

/* Failure state of one port (one direction of a link); allocated for
 * every port when the run has a failure schedule or ws_link_set is used. */
struct ws_fail_port {
	ws_time lost_until;        /* arrivals up to this time were on the wire
				    * (or serializing) when the link went down */
	uint64_t built_rate;       /* the rate the topology gave it */
	double loss, gray;         /* drop probabilities on arrival */
	struct ws_rng rng;         /* loss draws (not the ECN stream) */
	uint64_t failure, lost, grayed; /* its drops by cause */
	uint32_t down_count;       /* the link's down holds (its lower port only):
				    * bit 0 a link event, + 2 per switch end down */
	uint8_t rng_ready;
};

struct ws_fail_event;
struct ws_fail_row;

struct ws_failures {
	struct ws_fail_event *ev;  /* parsed and resolved, in the order given */
	uint32_t n_ev;
	uint32_t *links;           /* each event's links (the lower port index of each) */
	uint64_t n_links;
	struct ws_fail_port *port; /* per global port, or NULL */
	uint64_t seed;             /* loss draws and random picks */
	uint64_t applied;          /* events applied */
	uint64_t links_down;       /* links down now */
	struct ws_fail_row *rows;  /* failures.csv's event rows */
	size_t n_rows, cap_rows;
};

struct ws_slot {
	struct ws_loaded ld;
	struct ws_inst inst;
	uint8_t ops[256];          /* copy of the ops table, zero-extended */
	bool present;
};

/* The files a configuration names (traces, CDFs, topology files...), as
 * ws_resolve_path resolved them, each once: what a sweep's resume digest
 * covers.  Behind a pointer so that ws_resolve_path, which gets a const
 * simulation, can add to it. */
struct ws_inputs {
	char **path;
	size_t n, cap;
};

struct ws_parts;
struct ws_sim {
	ws_time now;
	/* part.c: the partitioned engine ([sim] partitions > 1), else NULL.  A
	 * partition runs on a shell, a copy of this struct with its own clock,
	 * queue, packets and counters; `main` is the simulation in a shell and
	 * NULL in the simulation itself. */
	struct ws_parts *par;
	struct ws_sim *main;
	const uint16_t *node_part; /* node -> partition */
	uint32_t part_id;          /* a shell's partition */
	struct ws_eventq q;
	uint64_t events;
	bool stop;
	bool stop_requested;       /* ws_sim_request_stop ended the run */
	bool failed;
	bool started;
	bool halted;               /* the last run returned on ws_opts.stop */
	/* pkttrace.c's hooks run: beside `stop` and `events`, which the event
	 * loop reads every event, in what was padding */
	bool trace_pkts;           /* [output] packets: packets.csv */
	bool trace_pfc;            /* [output] pfc: pfc.csv, pfc_ports.csv */
	const char *incomplete;    /* why the results are partial; NULL: complete */
	struct ws_err fail_err;
	uint64_t seed;
	struct ws_opts opts;
	struct ws_arena arena;
	char *cfg_path;
	char *cfg_dir;
	char *cfg_name;            /* ini file name without directory and .ini */
	struct ws_inputs *inputs;  /* files ws_resolve_path named (ws_sim_input_file) */
	char *out_dir;             /* default output directory */

	struct ws_sim_conf simc;
	struct ws_ref ref;         /* simc's reference parts, resolved */
	struct ws_nic_conf nicc;
	struct ws_switch_conf swc;
	struct ws_output_conf outc;
	struct ws_failures_conf failc;

	struct ws_search search;
	struct ws_slot slot[WS_KIND_WORKLOAD + 1];

	/* fabric */
	struct ws_fabric fab;      /* public view */
	struct ws_node *nodes;
	struct ws_port *ports;
	uint32_t *hosts;
	uint32_t *aux;             /* node -> index into nics or sws */
	uint32_t *peer_node;       /* global port -> the node at its far end (route walks) */
	struct ws_nic *nics;
	struct ws_swstate *sws;
	uint32_t cap_nodes, cap_ports;
	uint64_t host_rate;        /* rate of the first host's port */
	struct ws_fabfacts facts;  /* read-only summaries of the built fabric */
	/* the ports for reading link facts only (node, peer, local, is_host,
	 * rate, delay): `ports` itself when the build is private, else one
	 * read-only mapping of the shared template, so route walks over the
	 * whole fabric do not map every page of each run's own copy */
	const struct ws_port *links;
	struct ws_fabent *fabent;  /* the shared build, or NULL (private) */
	bool ports_memfd;          /* building the ports in ports_fd (a cache's) */
	int ports_fd;
	bool fabric_shared;        /* reused a build made by another simulation */
	uint32_t *held;            /* ports with a hold (ws_port_hold) */
	uint32_t n_held, cap_held;
	struct ws_ecn_entry *ecn_map; /* [switch] ecn_map, parsed */
	size_t n_ecn_map;
	/* [switch] ecn_tierN parsed ([0] unused); rate 1: set, 0: not */
	struct ws_ecn_entry ecn_tier[WS_SW_TIERS + 1];
	struct ws_warnlog *warnlog; /* warnings being recorded (a shared build's) */
	ws_time max_base_rtt;
	uint64_t max_bdp;
	/* failures.c: links gone down or come back so far; nonzero once a
	 * link has failed (a rule's WS_PORT_NONE is then a drop, not a routing
	 * error); rules read it through ws_sim_link_changes() */
	uint64_t links_changed;
	/* a flow's packets may take several paths (the routing rule's
	 * multipath op, or [nic] entropy other than flow): the fabric reorders */
	bool multipath;
	struct ws_failures fail;

	/* flows */
	struct ws_flow **flows;    /* by id; NULL once released (flowdone.c) */
	uint32_t n_flows, cap_flows, n_done, n_started;
	struct ws_flows_done done; /* completed flows retired in id order */
	struct ws_flowslab fslab;  /* where their records live */

	struct ws_pktpool pkts;
	struct ws_counters ctr;
	uint64_t warnings;

	/* derived from configuration and the CC's needs */
	uint32_t cc_needs;
	uint32_t int_bytes;        /* INT space in a data packet (0 without INT) */
	uint32_t payload;          /* mtu - header */
	uint32_t ack_wire;         /* ACK/NACK wire bytes */
	uint32_t cnp_wire;
	struct ws_int_format int_fmt; /* how CCs read INT (zero: exact) */

	/* observers: accel sampling and traces (trace.c) */
	ws_time accel_period;
	uint64_t observers;        /* pending observer events */
	struct ws_outfile *trace_rates, *trace_queues, *trace_util;
	uint64_t trace_bytes[3];   /* written to rates.csv, queues.csv, util.csv */
	uint64_t *trace_last_q;    /* queue bytes of each port at the last sample */
	uint64_t *trace_last_tx;   /* tx bytes of each port at the last util sample */
	uint8_t *trace_last_busy;  /* it transmitted in the last util interval */
	uint8_t *trace_port;       /* [output] trace_ports: the port is traced */
	uint32_t *trace_qdist;     /* per port, WS_QDIST_BUCKETS queue-sample counts */
	uint64_t trace_q_samples;  /* queue samples taken (per traced port) */
	uint32_t trace_first_flow; /* flows before it have all finished */
	struct ws_ptrace *ptrace;  /* packets.csv and pfc.csv (pkttrace.c); NULL: off */

	/* timing (wall clock; only summary.json's timing block shows it) */
	double wall_build_s, wall_run_s;
	double cpu_run_s; /* CPU seconds of the thread that ran ws_sim_run */
};

#define WS_TOPO_OPS(sim) ((const struct ws_topo_ops *)(sim)->slot[WS_KIND_TOPO].ops)
#define WS_ROUTING_OPS(sim) ((const struct ws_routing_ops *)(sim)->slot[WS_KIND_ROUTING].ops)
#define WS_CC_OPS(sim) ((const struct ws_cc_ops *)(sim)->slot[WS_KIND_CC].ops)
#define WS_ACCEL_OPS(sim) ((const struct ws_accel_ops *)(sim)->slot[WS_KIND_ACCEL].ops)
#define WS_WORKLOAD_OPS(sim) ((const struct ws_workload_ops *)(sim)->slot[WS_KIND_WORKLOAD].ops)

/* ws_opts.stop: set by a signal handler or by another thread (a sweep's
 * stop), so read as an atomic, which is what the handler writes. */
static inline bool ws_stop_set(const volatile sig_atomic_t *flag)
{
	return flag && __atomic_load_n(flag, __ATOMIC_RELAXED);
}

/* part.c: the partitioned engine (see the top of part.c) */
int ws_part_plan(struct ws_sim *sim, struct ws_err *err);
void ws_part_start(struct ws_sim *sim);
void ws_part_run(struct ws_sim *sim, ws_time limit, uint64_t max_events);
void ws_part_free(struct ws_sim *sim);
uint32_t ws_part_auto_count(const struct ws_sim *sim);
uint32_t ws_part_cores(void);
uint64_t ws_part_pending(const struct ws_sim *sim);
uint32_t ws_part_threads(const struct ws_sim *sim);
struct ws_json;
void ws_part_json(const struct ws_sim *sim, struct ws_json *j);
/* The shell of the partition holding `node`. */
struct ws_sim *ws_part_shell(struct ws_sim *sim, uint32_t node);
/* A packet put on the wire towards `in`, arriving at `when`. */
void ws_part_post(struct ws_sim *sim, struct ws_owner *owner, ws_time when,
		  ws_event_fn fn, struct ws_port *in, struct ws_pkt *p);
/* All partitions must stop at `when` for a serial step (a flow start). */
void ws_part_need_serial(struct ws_sim *sim, ws_time when);
bool ws_part_serial(const struct ws_sim *sim);
/* Around a call into the workload from a shell during a serial step:
 * the simulation with the shell's changes folded in, and back. */
struct ws_sim *ws_part_enter_global(struct ws_sim *sh);
void ws_part_leave_global(struct ws_sim *sh);
void ws_part_defer_done(struct ws_sim *sh, uint32_t flow);
/* A timeout under PFC in a window: search a paused cycle at its end. */
void ws_part_deadlock_check(struct ws_sim *sh, uint32_t flow, ws_time rto);
void ws_part_warn_lock(struct ws_sim *sim, bool lock);
/* ranks.c: over MPI ranks, whether this process runs the partition of
 * `node` (always in one process); a completion in a serial step, for the
 * other ranks */
bool ws_part_owns(const struct ws_sim *sim, uint32_t node);
bool ws_part_ranks(const struct ws_sim *sim);
void ws_ranks_done(struct ws_sim *sh, const struct ws_flow *f);
void ws_ranks_started(struct ws_sim *sh, const struct ws_flow *f);
/* port.c: the handler of a packet's arrival, the one mail carries */
ws_event_fn ws_port_arrival_fn(void);
/* failures.c: the drop tallies (a rank's, for rank 0 to add up) */
size_t ws_failures_tallies(const struct ws_sim *sim, uint64_t *out);
void ws_failures_add_tallies(struct ws_sim *sim, const uint64_t *in);
struct ws_sim *ws_here_slow(struct ws_sim *sim);
/* The simulation an API call acts on: given the simulation itself from a
 * worker thread running a partition (plugins keep the struct ws_sim they
 * were given), that partition's shell. */
static inline struct ws_sim *ws_here(struct ws_sim *sim)
{
	return __builtin_expect(sim->par != NULL, 0) && !sim->main ? ws_here_slow(sim)
								    : sim;
}

double ws_wall_seconds(void);
/* CPU seconds used by the calling thread (a sweep runs one sim per thread) */
double ws_cpu_seconds(void);
/* the workload's flows_expected op, 0 without one (sim.c) */
uint64_t ws_sim_flows_expected(const struct ws_sim *sim);

/* memory.c: bytes of one flow, of a fabric of `nodes` and `ports` */
uint64_t ws_mem_flow_bytes(const struct ws_sim *sim);
uint64_t ws_mem_fabric_bytes(const struct ws_sim *sim, uint64_t nodes,
			     uint64_t ports);

/* deadlock.c: a cycle of switch ports paused since `since` at the latest
 * while holding bytes, described into buf; its length, 0 if none. */
size_t ws_pfc_cycle(const struct ws_sim *sim, ws_time since, char *buf,
		    size_t size);
/* A timeout of `flow` after `rto` under PFC: if a cycle has stayed paused
 * since, fail the run naming it (and the partition, part >= 0); true then. */
bool ws_pfc_deadlock(struct ws_sim *sim, uint32_t flow, ws_time rto, int part);

/* config.c */
struct ws_cfg_entry *ws_cfg_find(const struct ws_cfg *cfg, const char *section,
				 const char *key);
int ws_apply_params(struct ws_sim *sim, const struct ws_cfg *cfg,
		    const char *section, const struct ws_param *params,
		    void *conf, const char *owner_desc, const char *skip_key,
		    struct ws_err *err);

/* fabric.c */
struct ws_builder {
	struct ws_sim *sim;
	uint32_t shape, depth;
	bool shape_set;
	uint32_t geom[WS_GEOM_MAX];
	uint32_t server_size;
};
int ws_fabric_finish(struct ws_sim *sim, struct ws_err *err);
/* The per-run arrays (NICs, switch states) of a built or adopted fabric. */
void ws_fabric_per_run(struct ws_sim *sim);
void ws_fabric_free(struct ws_sim *sim);
/* Unmap / free the arrays a build made (nodes, peer_node, hosts, aux,
 * the facts' arrays); `cap_nodes` is the nodes mapping's capacity. */
void ws_fabric_release_shared(struct ws_node *nodes, uint32_t cap_nodes,
			      uint32_t *peer_node, uint32_t n_ports,
			      uint32_t *hosts, uint32_t *aux,
			      struct ws_fabfacts *facts);
/* A private anonymous array of `bytes`, or the ports mapping given back. */
void ws_fabric_unmap(void *p, size_t bytes);

/* fabcache.c: a build shared through ws_opts.fabric_cache.  ws_fabcache_build
 * builds the fabric (and the routing state, when the rule shares it) of `sim`
 * with `build`, or adopts an identical one built before; *shared_routing
 * tells whether the routing instance adopted shared state. */
typedef int (*ws_build_fn)(struct ws_sim *sim, const struct ws_cfg *cfg,
			   bool share_routing, struct ws_err *err);
int ws_fabcache_build(struct ws_sim *sim, const struct ws_cfg *cfg,
		      ws_build_fn build, bool *shared_routing, struct ws_err *err);
void ws_fabcache_put(struct ws_sim *sim);
/* A warning recorded during a shared build, replayed by its adopters. */
struct ws_warnlog {
	char **msg;
	size_t n, cap;
};
void ws_warnlog_free(struct ws_warnlog *w);
/* A packet's transmission time at `rate`: exact, or truncated to whole ns
 * as the reference does ([sim] serialization = ns). */
static inline ws_time ws_sim_tx_time(const struct ws_sim *sim, uint64_t bytes,
				     uint64_t rate)
{
	ws_time t = ws_tx_time(bytes, rate);
	return sim->ref.ser_ns ? t - t % WS_NS : t;
}

/* The tier of a connected port's link: the larger level of its two end
 * nodes (hosts 0: 1 = host-leaf, 2 = leaf-spine, 3 = spine-core); what
 * [failures] `random K tier T` and summary.json's link_load group by. */
static inline unsigned ws_link_tier(const struct ws_sim *sim, const struct ws_port *p)
{
	return WS_MAX(sim->nodes[p->node].level, sim->nodes[sim->ports[p->peer].node].level);
}

static inline struct ws_port *ws_port_at(struct ws_sim *sim, uint32_t node,
					 uint32_t local)
{
	return &sim->ports[sim->nodes[node].first_port + local];
}

/* Packets on the wire of `port`'s link (their arrivals are pending): what
 * it sent that the far end has not received. */
static inline uint64_t ws_port_on_wire(const struct ws_sim *sim, const struct ws_port *port)
{
	return port->tx_pkts - sim->ports[port->peer].rx_pkts;
}

/* port.c: egress serialization and links */
void ws_port_kick(struct ws_sim *sim, struct ws_port *port);
void ws_port_arm(struct ws_sim *sim, struct ws_port *port, ws_time t);
/* Move the timestamps (send time, INT records) of the packets queued at
 * `port` and of those on its wire (parked arrivals) by `shift`: on thaw. */
void ws_port_shift_packets(struct ws_port *port, ws_time shift);
void ws_pkt_shift(struct ws_pkt *p, ws_time shift);
/* WS_FREEZE_FLOWS_ONLY: set aside the queued data packets of frozen flows
 * (hold), and put back those whose flow is no longer frozen at the head of
 * their queues, their timestamps shifted (release). */
void ws_port_hold(struct ws_sim *sim, struct ws_port *port);
/* nic.c: move the timestamps of the feedback held for a frozen flow */
void ws_nic_shift_held(struct ws_flow *f, ws_time shift);
void ws_port_release(struct ws_sim *sim, struct ws_port *port, ws_time shift);
void ws_port_transmit(struct ws_sim *sim, struct ws_port *port,
		      struct ws_pkt *p);
void ws_port_pause(struct ws_sim *sim, struct ws_port *port, unsigned prio,
		   bool pause);

/* switch.c */
void ws_switch_receive(struct ws_sim *sim, struct ws_port *in,
		       struct ws_pkt *p);
struct ws_pkt *ws_switch_dequeue(struct ws_sim *sim, struct ws_port *port);
/* Give back the switch buffer `p` held (ingress accounting of the class it
 * arrived in, shared pool) and send XON if that ends a pause: what a
 * dequeue does, also for a packet a failure drops from the queue. */
void ws_switch_release(struct ws_sim *sim, struct ws_port *port,
		       const struct ws_pkt *p);
int ws_switch_setup(struct ws_sim *sim, struct ws_err *err);
/* The per-switch sums of automatic headroom (build time, shared). */
uint64_t *ws_switch_auto_headroom(const struct ws_sim *sim);
/* Set the port's [switch] fields and ECN generator at its first packet. */
void ws_port_setup(struct ws_sim *sim, struct ws_port *p);
/* The ECN thresholds of an egress port of a node at `level` (0: a host)
 * and `rate`: [switch] ecn_tierN, ecn_map, or ecn_kmin/kmax scaled. */
void ws_switch_ecn(const struct ws_sim *sim, unsigned level, uint64_t rate,
		   struct ws_ecn_entry *out);
/* The shared buffer of a switch at `level`: buffer_tierN or buffer. */
uint64_t ws_switch_buffer(const struct ws_switch_conf *c, unsigned level);
/* tiers.c: the per-tier link and switch settings in effect (summary.json) */
void ws_json_tiers(const struct ws_sim *sim, struct ws_json *j);
static inline void ws_port_ready(struct ws_sim *sim, struct ws_port *p)
{
	if (__builtin_expect(!p->ready, 0))
		ws_port_setup(sim, p);
}
uint32_t ws_route(struct ws_sim *sim, const struct ws_node *at,
		  struct ws_pkt *p);

/* failures.c: drop `p` at `port` (its egress, or the link it was on) for
 * a failure: counted, freed; the flow remembers why (a link down) */
void ws_fail_drop(struct ws_sim *sim, struct ws_port *port, struct ws_pkt *p);
/* The same with the reason: WS_WHY_NO_ROUTE (at port's node) and the rest */
void ws_fail_drop_why(struct ws_sim *sim, struct ws_port *port, struct ws_pkt *p,
		      enum ws_fail_why why);
/* A packet arriving over `port`'s link (port is the sender's end): true if
 * a failure took it (it was on the wire when the link went down, loss,
 * gray); it is then counted and freed.  Only when port->fail is set. */
bool ws_fail_arrival(struct ws_sim *sim, struct ws_port *port, struct ws_pkt *p);
/* Read [failures] (after the fabric and the routing rule are ready):
 * parse, resolve and validate every event; nothing runs yet. */
int ws_failures_setup(struct ws_sim *sim, const struct ws_cfg *cfg,
		      struct ws_err *err);
/* Schedule the events not applied yet (at the run's start). */
void ws_failures_start(struct ws_sim *sim);
/* Some event of the schedule takes links or switches down. */
bool ws_failures_take_down(const struct ws_sim *sim);
void ws_failures_free(struct ws_sim *sim);
/* failures.csv; summary.json's drops and failures blocks */
int ws_failures_write(struct ws_sim *sim, const char *dir, struct ws_err *err);
void ws_json_drops(const struct ws_sim *sim, struct ws_json *j);
/* The reason of the flow's last failure drop ("" when none), for messages. */
void ws_fail_reason(const struct ws_sim *sim, const struct ws_flow *f, char *buf,
		    size_t size);

/* nic.c */
void ws_nic_receive(struct ws_sim *sim, struct ws_port *in, struct ws_pkt *p);
void ws_nic_flow_start(struct ws_sim *sim, struct ws_flow *f);
void ws_nic_flow_remove(struct ws_sim *sim, struct ws_flow *f);
void ws_nic_rate_changed(struct ws_sim *sim, struct ws_flow *f,
			 uint64_t old_rate);
void ws_nic_kick(struct ws_sim *sim, struct ws_nic *nic);
void ws_cc_deliver_ack(struct ws_sim *sim, struct ws_flow *f,
		       struct ws_cc_ack *a);
void ws_cc_deliver_cnp(struct ws_sim *sim, struct ws_flow *f);
/* What an ACK or NACK packet tells the CC (ws_cc_deliver_ack fills `now`). */
static inline struct ws_cc_ack ws_cc_ack_of(const struct ws_pkt *p, ws_time now,
					    uint64_t newly)
{
	return (struct ws_cc_ack){
		.seq = p->seq,
		.newly_acked = newly,
		.rtt = now - p->ts,
		.packets = p->acked_pkts,
		.ce_packets = p->acked_ce,
		.ecn_echo = (p->flags & WS_PKTF_ECE) != 0,
		.nack = p->type == WS_PKT_NACK,
		.trimmed = (p->flags & WS_PKTF_TRIM) != 0,
		.int_n = p->int_n,
		.int_hop = p->int_hop,
	};
}

/* The CC's on_loss, if it has one and packets > 0. */
void ws_cc_deliver_loss(struct ws_sim *sim, struct ws_flow *f,
			enum ws_cc_loss kind, uint32_t packets);

/* sim.c: pieces shared with the CC lab and the plugin catalog */
int ws_opts_read(struct ws_opts *dst, const struct ws_opts *opts,
		 struct ws_err *err);
struct ws_sim *ws_sim_alloc(const struct ws_opts *opts);
/* Load the plugin of `kind` named in its section ([topology], ...; `def`
 * when the section names none) and configure it. */
int ws_sim_load_plugin(struct ws_sim *sim, const struct ws_cfg *cfg,
		       enum ws_kind kind, const char *def, struct ws_err *err);

/* flow.c */
void ws_flows_free(struct ws_sim *sim);
void ws_flow_complete(struct ws_sim *sim, struct ws_flow *f);
int ws_path_walk(struct ws_sim *sim, uint32_t src, uint32_t dst,
		 uint16_t sport, uint16_t dport, uint32_t *hops,
		 ws_time *base_rtt, uint64_t *path_rate, struct ws_err *err);
void ws_flow_fill_cc(struct ws_sim *sim, struct ws_flow *f);

/* trace.c */
void ws_observe(struct ws_sim *sim, ws_time when, ws_event_fn fn);
void ws_observers_start(struct ws_sim *sim);
/* fctsize.c: FCT slowdown by flow-size bucket */
int ws_write_fct_by_size(struct ws_sim *sim, const char *dir, struct ws_err *err);
void ws_json_fct_by_size(struct ws_sim *sim, struct ws_json *j);
/* lbstats.c: reordering and per-tier link load (summary.json) */
void ws_json_reordering(const struct ws_sim *sim, struct ws_json *j);
void ws_json_link_load(const struct ws_sim *sim, struct ws_json *j);
void ws_json_node_levels(const struct ws_sim *sim, struct ws_json *j);
void ws_observers_close(struct ws_sim *sim);
/* trace.c: the port filter (after the fabric is built); queue_dist.csv */
#define WS_QDIST_BUCKETS 624  /* 16 exact + 16 per power of two up to 2^42 */
int ws_trace_prepare(struct ws_sim *sim, const struct ws_cfg *cfg, struct ws_err *err);
int ws_write_queue_dist(struct ws_sim *sim, const char *dir, struct ws_err *err);
/* Refuse traces that would pass [output] trace_max_bytes by [sim] stop_time. */
int ws_traces_check(const struct ws_sim *sim, struct ws_err *err);
/* Close the traces and put them in place (rates.csv, queues.csv). */
int ws_traces_commit(struct ws_sim *sim, struct ws_err *err);
/* Whether this run wrote the trace file `name`. */
bool ws_traces_written(const struct ws_sim *sim, const char *name);
/* trace.c: mark the ports a list of NODE, NODE:PORT or FIRST-LAST names in
 * on[] (one byte per port), errors naming output.<key>. */
int ws_port_list_parse(struct ws_sim *sim, const char *spec, const char *key,
		       uint8_t *on, struct ws_err *err);

/* pkttrace.c: packets.csv and pfc.csv, the event logs.  The hot paths
 * call the hooks only when sim->trace_pkts / sim->trace_pfc is set. */
enum ws_pt_event {
	WS_PT_ENQ = 0,  /* into a switch egress queue */
	WS_PT_DEQ = 1,  /* onto the wire (ws_port_transmit), hosts included */
	WS_PT_RECV = 2, /* arrived through a port (after failure losses) */
	WS_PT_DROP = 3, /* refused by a switch buffer */
	WS_PT_LOST = 4, /* lost to a failure: link down, loss, gray */
	WS_PT_TRIM = 5, /* cut to its header by a switch ([switch] trim) */
	WS_PT_ECN = 6,  /* CE-marked at a switch egress */
	WS_PT_N = 7
};
int ws_ptrace_prepare(struct ws_sim *sim, const struct ws_cfg *cfg, struct ws_err *err);
void ws_ptrace_start(struct ws_sim *sim);
void ws_ptrace_pkt(struct ws_sim *sim, const struct ws_port *port,
		   const struct ws_pkt *p, enum ws_pt_event ev);
/* A PAUSE (pause) or RESUME that `port` sent (sent) or received, for
 * priority `prio`; `frame` the frame queued when sent, else NULL. */
void ws_ptrace_pfc(struct ws_sim *sim, const struct ws_port *port, unsigned prio,
		   bool pause, bool sent, const struct ws_pkt *frame);
int ws_ptrace_commit(struct ws_sim *sim, struct ws_err *err);
bool ws_ptrace_written(const struct ws_sim *sim, const char *name);
int ws_write_pfc_ports(struct ws_sim *sim, const char *dir, struct ws_err *err);
struct ws_json;
void ws_json_ptrace(const struct ws_sim *sim, struct ws_json *j);
void ws_ptrace_close(struct ws_sim *sim);

/* output.c */
int ws_mkdir_p(const char *dir, struct ws_err *err);
/* Remove an earlier run's outputs from `dir` that this run will not write. */
void ws_outputs_clear(const struct ws_sim *sim, const char *dir);
struct ws_json {
	FILE *f;
	int depth;
	bool first[32];
	bool array[32];
};
void ws_json_open(struct ws_json *j, FILE *f);
void ws_json_close(struct ws_json *j);

/* kconf.c: the config struct of kernel section i (ws_kernel_section(i)) */
void *ws_kernel_section_conf(struct ws_sim *sim, size_t i);

/* sim.c: h mixed with every parameter's key and formatted value of
 * `conf` (only the key `only`, unless NULL): equal for runs configured
 * alike (ws_sim_plugin_digest, the accelerator's share key) */
uint64_t ws_digest_params(uint64_t h, const struct ws_param *params, const void *conf,
			  const char *only);

#endif
