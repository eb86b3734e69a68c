/* SPDX-License-Identifier: MIT */
/*
 * Embedding warpsim: load a configuration, build a simulation, run it,
 * write its outputs.  The `warpsim` program is a thin layer over this, and
 * the tests drive simulations through it.
 */
#ifndef WARPSIM_SIM_H
#define WARPSIM_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include <warpsim/core.h>
#include <warpsim/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- configuration ------------------------------------------------------ */

struct ws_cfg;
struct ws_comm;

/* Read an ini file.  Errors name the file, the line and what was expected. */
WS_API int ws_cfg_load(struct ws_cfg **out, const char *path, struct ws_err *err);
/* Parse ini text; `name` is used in messages, `dir` resolves relative paths. */
WS_API int ws_cfg_parse_string(struct ws_cfg **out, const char *text,
			       const char *name, const char *dir, struct ws_err *err);
/* Apply "section.key=value" (the --set option): replaces or adds the key. */
WS_API int ws_cfg_set(struct ws_cfg *cfg, const char *assignment,
		      struct ws_err *err);
/* The file the configuration came from (for strings: the name given to
 * ws_cfg_parse_string, or "<string>"). */
WS_API const char *ws_cfg_path(const struct ws_cfg *cfg);
WS_API void ws_cfg_free(struct ws_cfg *cfg);

/* ---- simulations -------------------------------------------------------- */

struct ws_opts {
	uint32_t size;           /* WS_INIT_SIZE(struct ws_opts) */
	const char *plugin_path; /* colon-separated directories searched first */
	bool fabric_only;        /* build the fabric and routing, load no workload */
	/*
	 * The library never writes to the terminal: what a person should see
	 * comes through these optional callbacks, and the program renders it.
	 * on_warning: one warning (ws_warn), without a prefix or newline;
	 * without it, warnings are only counted (summary.json).
	 * on_progress: while ws_sim_run() runs, every 65,536 events, and once
	 * with done = true when it returns (read the figures with
	 * ws_sim_get_stats); throttle the display in the callback.
	 */
	void (*on_warning)(void *ctx, const char *msg);
	void (*on_progress)(void *ctx, const struct ws_sim *sim, bool done);
	void *ctx;               /* handed to the callbacks */
	/* ---- ABI 2.1 ---- */
	/*
	 * stop: when it points at a nonzero value, ws_sim_run() returns before
	 * the next event (the program's signal handler sets it; the kernel
	 * only reads it), and the outputs say the run is incomplete.
	 * max_memory: bytes the fabric and the workload may take (0: no limit
	 * but the machine's); ws_sim_new() refuses a configuration whose
	 * estimate passes it or the memory available (MemAvailable,
	 * RLIMIT_AS), naming the keys and the estimate.
	 */
	const volatile sig_atomic_t *stop;
	uint64_t max_memory;
	/* ---- ABI 2.2 ---- */
	/*
	 * fabric_cache: simulations given the same cache whose [topology]
	 * (and, for a rule that shares its prepared state, [routing]) is the
	 * same share one fabric build; NULL builds privately.  Results are the
	 * same either way.  See ws_fabric_cache_new.
	 */
	struct ws_fabric_cache *fabric_cache;
	/* ---- ABI 2.6 ---- */
	/*
	 * comm: one experiment over several processes (MPI ranks, see
	 * struct ws_comm); NULL or ranks = 1: this process runs it all.
	 */
	const struct ws_comm *comm;
};

/* ---- ABI 2.6 ---- */
/*
 * How the processes of one experiment talk (docs/architecture.md, "MPI
 * ranks").  The library has no MPI in it: a program started on several
 * ranks (`mpirun warpsim run`) fills this with its MPI calls and hands it
 * over in ws_opts.  Every rank builds the same simulation from the same
 * configuration; with [sim] partitions > 1 each rank runs a contiguous
 * block of the partitions and rank 0 gathers what the outputs need, so
 * only rank 0 should write them (ws_sim_write_outputs) and print results.
 * Both calls are collective: every rank makes the same calls in the same
 * order, from the thread that called ws_sim_run.  Each returns 0, or
 * nonzero when the transport failed (the run then stops as failed; the
 * program should end every rank, e.g. MPI_Abort).  Ranks share the byte
 * order and type sizes (one binary on a homogeneous cluster).
 *
 * exchange: this rank sends send_len[r] bytes to each rank r, the blocks
 *   one after another in rank order in `send` (its own block is delivered
 *   to itself); it receives recv_len[r] bytes from each rank r, one after
 *   another in rank order in *recv, a buffer of *recv_cap bytes that the
 *   call may grow with realloc().
 * allgather: every rank gives `len` bytes (the same len everywhere); `all`
 *   receives ranks * len bytes, rank r's at r * len.
 */
struct ws_comm {
	uint32_t size;          /* WS_INIT_SIZE(struct ws_comm) */
	uint32_t rank, ranks;   /* this process, and how many there are */
	void *ctx;              /* handed to the calls */
	int (*exchange)(void *ctx, const void *send, const size_t *send_len,
			void **recv, size_t *recv_cap, size_t *recv_len);
	int (*allgather)(void *ctx, const void *mine, size_t len, void *all);
};

/* ---- ABI 2.2 ---- */
/*
 * A fabric cache: experiments in one process (on threads or one after
 * another) whose topology is identical share one immutable build of it —
 * nodes, links, routing state — while each keeps its own queues, counters
 * and buffers (docs/architecture.md).  Thread-safe: two simulations asking
 * at once for the same fabric build it once, the second waiting.  Freeing
 * the cache while simulations still use its fabrics is allowed: each
 * build leaves memory with its last user.  Do not free it while
 * ws_sim_new() runs with it.
 */
struct ws_fabric_cache;
WS_API int ws_fabric_cache_new(struct ws_fabric_cache **out, struct ws_err *err);
WS_API void ws_fabric_cache_free(struct ws_fabric_cache *c);
/* Distinct fabrics built through the cache so far. */
WS_API size_t ws_fabric_cache_builds(const struct ws_fabric_cache *c);

/*
 * Load the plugins the configuration names, check every key, build the
 * fabric (or take it from ws_opts.fabric_cache) and prepare routing.
 * Nothing has run yet.
 */
WS_API int ws_sim_new(struct ws_sim **out, const struct ws_cfg *cfg,
		      const struct ws_opts *opts, struct ws_err *err);

/*
 * Run until simulated time `until` (inclusive) or until nothing is left to
 * do.  The first call starts the workload.  May be called again with a later
 * `until` to continue.  Returns an error if a component failed (ws_fail).
 */
WS_API int ws_sim_run(struct ws_sim *sim, ws_time until, struct ws_err *err);

struct ws_sim_stats {
	uint32_t size;              /* WS_INIT_SIZE(struct ws_sim_stats) */
	ws_time now;
	uint64_t events;          /* events executed */
	uint32_t flows;           /* created */
	uint32_t flows_done;
	uint64_t data_packets;    /* data packets sent by NICs, retransmissions included */
	uint64_t data_bytes;      /* their wire bytes */
	uint64_t acks, nacks;
	uint64_t cnps;            /* CNP packets sent */
	uint64_t notified;        /* congestion notifications delivered to CCs
				   * (CNP packets, or ACKs echoing CE) */
	uint64_t pfc_pauses;      /* PAUSE frames sent */
	uint64_t drops;           /* packets dropped at switches */
	uint64_t ecn_marks;
	uint64_t retx_bytes;      /* payload bytes sent again */
	uint64_t timeouts;
	uint64_t aborted;         /* flows given up after [nic] retry_limit timeouts */
	uint64_t warnings;
	double wall_build_s;      /* wall-clock seconds (not deterministic) */
	double wall_run_s;
	/* ---- ABI 2.1 ---- */
	uint64_t flows_expected;  /* the workload's total (flows_expected op); 0: unknown */
	bool stop_requested;      /* ws_sim_request_stop() ended the last ws_sim_run */
	/* ---- ABI 2.2 ---- */
	bool fabric_shared;       /* it reused a build of its ws_opts.fabric_cache */
	/* ---- ABI 2.3 ---- */
	/* drops by cause (docs/failures.md); `drops` above is their sum */
	uint64_t drops_buffer;    /* refused by a switch buffer */
	uint64_t drops_failure;   /* on or for a link that was down, or no route */
	uint64_t drops_loss;      /* [failures] loss */
	uint64_t drops_gray;      /* [failures] gray (silent) loss */
	uint64_t failure_events;  /* [failures] events applied */
	uint64_t links_down;      /* links down now */
	/* ---- ABI 2.4 ---- */
	uint64_t trims;           /* data packets trimmed by switches ([switch] trim) */
	uint64_t retx_pkts;       /* data packets retransmitted */
};
WS_API void ws_sim_get_stats(const struct ws_sim *sim, struct ws_sim_stats *out);

/* ---- ABI 2.1 ---- */
/*
 * Ask a running ws_sim_run() to return after the current event, with the
 * simulation intact (its outputs can be written; another ws_sim_run()
 * continues it).  For the program's on_progress callback (a wall-clock
 * budget, an interrupt): the check costs nothing per event beyond the
 * loop's existing stop flag.  summary.json then says
 * "stopped": "requested" in its results, and ws_sim_stats.stop_requested
 * is true until the next ws_sim_run().
 */
WS_API void ws_sim_request_stop(struct ws_sim *sim);
/* Write the flows the workload will create as an HPCC ns-3 flow.txt (its
 * write_trace op); WS_EINVAL naming the workload if it has none.  Nothing
 * needs to have run. */
WS_API int ws_sim_write_trace(struct ws_sim *sim, const char *path,
			      struct ws_err *err);

/* FCT slowdown statistics over completed flows. */
struct ws_fct_stats {
	uint32_t size;              /* WS_INIT_SIZE(struct ws_fct_stats) */
	uint32_t n;
	double mean, p50, p99, max;
};
WS_API void ws_sim_fct_stats(const struct ws_sim *sim, struct ws_fct_stats *out);

/* The workload's lines for the run summary (its `summary` op), or 0. */
WS_API size_t ws_sim_workload_summary(struct ws_sim *sim, const char *dir, char *buf,
				      size_t size);

/* Directory outputs go to ("out/<ini name>", [output] dir, or as set). */
WS_API const char *ws_sim_default_out_dir(const struct ws_sim *sim);
/* Send outputs to `dir`; traces ([output] trace_*) are written there while
 * the simulation runs, so set it before ws_sim_run. */
WS_API int ws_sim_set_output_dir(struct ws_sim *sim, const char *dir,
				 struct ws_err *err);
/* The result tables ws_sim_write_outputs() writes as [output] asks
 * ("fct.csv", "ports.csv", "flows.csv"): up to `max` names into `names`;
 * returns how many there are. */
WS_API size_t ws_sim_output_files(const struct ws_sim *sim, const char **names,
				  size_t max);
/* Write fct.csv, summary.json (and the optional outputs) into `dir` (NULL:
 * the output directory), each under a temporary name renamed when whole;
 * the traces written while running are closed and renamed too (a run
 * continued afterwards starts them anew). */
WS_API int ws_sim_write_outputs(struct ws_sim *sim, const char *dir,
				struct ws_err *err);
WS_API void ws_sim_free(struct ws_sim *sim);

/* ---- ABI 2.1 ---- */
/*
 * Mark the run incomplete (a signal, a wall-clock budget): summary.json says
 * "complete": false with `reason`.  A run stopped through ws_opts.stop is
 * incomplete even without it ("stopped by the program").
 */
WS_API void ws_sim_set_incomplete(struct ws_sim *sim, const char *reason);
/* Whether ws_sim_run() returned because ws_opts.stop was set. */
WS_API bool ws_sim_stopped(const struct ws_sim *sim);
/*
 * A cycle of PFC-paused switch ports holding packets (a deadlock once
 * nothing else can move them): "switch N port P -> ..." into buf; returns
 * the number of ports in it, 0 if there is none.
 */
WS_API size_t ws_sim_pfc_cycle(const struct ws_sim *sim, char *buf, size_t size);
/*
 * Output files written whole or not at all: ws_outfile_open() creates
 * `dir`/`name` under a temporary name; ws_outfile_commit() checks every
 * write and the close (errors carry the system's reason) and renames it
 * into place, or removes it; either way the handle is freed.
 * ws_outfile_discard() removes it.  A symlink's target is replaced (the
 * link stays); a name that is not a regular file (a device, a FIFO) or is
 * the standard output, and the name "-", are written through, as `>` would.
 */
struct ws_outfile;
WS_API struct ws_outfile *ws_outfile_open(const char *dir, const char *name,
					  struct ws_err *err);
WS_API FILE *ws_outfile_stream(struct ws_outfile *o);
WS_API int ws_outfile_commit(struct ws_outfile *o, struct ws_err *err);
WS_API void ws_outfile_discard(struct ws_outfile *o);

/* Name of the instance of a kind ("fat-tree", "dcqcn", ...). */
WS_API const char *ws_sim_plugin_name(const struct ws_sim *sim, enum ws_kind kind);
/* A 64-bit digest of the plugin of a kind and its configuration: its name
 * and every parameter's key and value as the kernel formats them (so two
 * runs configured alike agree, whatever the ini's spelling), mixed from
 * `seed`.  For state kept across runs (a memo valid for one CC setting). */
WS_API uint64_t ws_sim_plugin_digest(const struct ws_sim *sim, enum ws_kind kind,
				     uint64_t seed);
/* The plugin instance of a kind (its conf and state), for tools and tests. */
WS_API const struct ws_inst *ws_sim_instance(const struct ws_sim *sim,
					     enum ws_kind kind);

/* ---- ABI 2.2 ---- */
/*
 * Sharing what the accelerator learns between runs (a sweep's experiments
 * in threads or MPI ranks), as bytes.  A blob is a sequence of parts, each
 * one run's export: a header ("WARPSIM-SHARE", a format version, the share
 * key, the payload's length), the accelerator's payload (wormhole: memo
 * entries in the memo_db format) and an XXH3-64 checksum.  Blobs
 * concatenate: importing A then B is importing A||B.
 *
 * ws_sim_accel_share_key: whether this run's accelerator can share (false
 * for none, fluid, hygra, and wormhole with memo = false) and the key of
 * its context: the accelerator, its parameters (the sampling interval
 * resolved from the fabric's RTT included; wormhole's memo_db, where a
 * memo is kept, is not), the CC and its parameters, the
 * [nic] and [switch] sections and [sim] serialization.  Runs with equal
 * keys can use each other's knowledge; the seed, the workload and the
 * topology are not in it (a memo entry is keyed by its situation, up to
 * isomorphism, wherever it occurs).
 *
 * ws_sim_accel_import: after ws_sim_new, before ws_sim_run (WS_ESTATE
 * after).  Knowledge already held (a memo_db, an earlier import) wins.
 * Every part is checked before any is imported: a part of another context,
 * a truncated or corrupt one is refused (WS_EINVAL, the part, its offset
 * and what is wrong), and nothing is imported.  len 0 is nothing to
 * import, for any accelerator.  `blob` is only read: several simulations
 * may import the same bytes concurrently.
 *
 * ws_sim_accel_export: what this run learned (not what it imported or
 * loaded), as one part, malloc'd into *blob (free() it); *blob NULL and
 * *len 0 when nothing.  Deterministic bytes for a deterministic run.
 */
WS_API bool ws_sim_accel_share_key(const struct ws_sim *sim, uint64_t *key);
WS_API int ws_sim_accel_import(struct ws_sim *sim, const void *blob, size_t len,
			       struct ws_err *err);
WS_API int ws_sim_accel_export(struct ws_sim *sim, void **blob, size_t *len,
			       struct ws_err *err);

/* Freeze / thaw ports and flows.  Thaw shifts the kernel's own timestamps
 * too: ports' serialization ends, flows' pacing and timeouts, and the send
 * times and INT records of packets queued at the ports or on their wires. */
struct ws_freeze_set {
	uint32_t size;              /* WS_INIT_SIZE(struct ws_freeze_set) */
	const uint32_t *ports; /* global port indices */
	size_t n_ports;
	const uint32_t *flows;
	size_t n_flows;
	/* ---- ABI 2.1 ---- */
	uint32_t flags;        /* WS_FREEZE_* */
};
/*
 * WS_FREEZE_FLOWS_ONLY: the ports keep running.  The set's flows stop
 * sending, their timers are parked and the feedback that reaches them is
 * held; at the set's ports only those flows' data packets are set aside
 * (keeping their place in the shared buffer and their order) while other
 * traffic, such as other flows' ACKs, goes on.  A port may be in several
 * such sets at once.  Without it the ports are frozen whole.
 */
#define WS_FREEZE_FLOWS_ONLY 1u
WS_API int ws_freeze(struct ws_sim *sim, const struct ws_freeze_set *set,
		     struct ws_err *err);
WS_API int ws_thaw(struct ws_sim *sim, const struct ws_freeze_set *set,
		   ws_time shift, struct ws_err *err);

/* ---- tooling ------------------------------------------------------------ */

/* The kernel's own ini sections (sim, nic, switch, output): the i-th from
 * 0, NULL past the last.  Plugin sections are named after their kind
 * (ws_kind_name). */
struct ws_section_info {
	const char *name;
	const char *doc;               /* one line */
	const struct ws_param *params; /* WS_PARAM_END-terminated */
};
WS_API const struct ws_section_info *ws_kernel_section(size_t i);

/* The JSON writer of summary.json (the ws_json_* calls of core.h), for
 * programs writing their own files: a writer onto `f`; ws_json_finish()
 * closes what is open, ends the text with a newline and frees the writer
 * (the file stays open). */
WS_API struct ws_json *ws_json_new(FILE *f);
WS_API void ws_json_finish(struct ws_json *j);

/* A kind's name: "topology", "routing", "cc", "accel", "workload" (also
 * the ini section of its plugin); "?" for anything else. */
WS_API const char *ws_kind_name(enum ws_kind kind);

/*
 * The plugins the loader can find, for listings (`warpsim plugins`,
 * `warpsim describe`).  ws_catalog_open() finds every plugin on the search
 * path (built-ins too), the first of a (kind, name) winning as when a
 * simulation loads it, sorted by kind then name; a file that is not a valid
 * plugin is skipped and reported through opts->on_warning.
 * ws_catalog_find() loads the plugin NAME of `kind` (0: of every kind that
 * has one) exactly as a simulation would, and fails as it would (a broken
 * plugin, an ABI mismatch); no plugin of that name leaves it empty.
 */
struct ws_catalog;
struct ws_plugin_info {
	enum ws_kind kind;
	const char *name, *version, *summary;
	const char *path;              /* the file, or "built in" */
	const struct ws_param *params; /* WS_PARAM_END-terminated, or NULL */
	uint32_t cc_needs;             /* cc: WS_CC_NEEDS_* and properties */
	const char *default_routing;   /* topology: its default rule, or NULL */
};
WS_API int ws_catalog_open(struct ws_catalog **out, const struct ws_opts *opts,
			   struct ws_err *err);
WS_API int ws_catalog_find(struct ws_catalog **out, const char *name,
			   enum ws_kind kind, const struct ws_opts *opts,
			   struct ws_err *err);
WS_API size_t ws_catalog_count(const struct ws_catalog *c);
/* The i-th plugin (NULL past the last); valid until ws_catalog_free. */
WS_API const struct ws_plugin_info *ws_catalog_get(const struct ws_catalog *c,
						   size_t i);
/* The i-th directory searched, in order (NULL past the last). */
WS_API const char *ws_catalog_root(const struct ws_catalog *c, size_t i);
WS_API void ws_catalog_free(struct ws_catalog *c);

/* ---- a bench for congestion-control plugins ----------------------------- */

/*
 * One flow and its CC plugin, without a network: feed it ACKs and CNPs,
 * advance time (its timers fire), read its rate.  For unit tests of CCs.
 */
struct ws_cc_lab;

struct ws_cc_lab_spec {
	uint32_t size;              /* WS_INIT_SIZE(struct ws_cc_lab_spec) */
	const char *cc;                /* plugin name */
	const char *const *params;     /* NULL-terminated "key=value" */
	const char *plugin_path;
	uint64_t line_rate;            /* bps */
	ws_time base_rtt;
	uint64_t bytes;                /* flow bytes; 0: endless */
	uint32_t mtu;                  /* payload per packet; 0: 1000 */
	/* the rest: 0 gives the default in brackets */
	uint64_t path_rate;            /* bps of the slowest link [line_rate] */
	uint32_t hops;                 /* links on the path [1] */
	ws_time max_base_rtt;          /* the fabric's largest base RTT [base_rtt] */
};

WS_API int ws_cc_lab_new(struct ws_cc_lab **out, const struct ws_cc_lab_spec *spec,
			 struct ws_err *err);
WS_API struct ws_cc_flow *ws_cc_lab_flow(struct ws_cc_lab *lab);
WS_API ws_time ws_cc_lab_now(const struct ws_cc_lab *lab);
/* Run timers due up to `t` and move the clock there. */
WS_API void ws_cc_lab_advance(struct ws_cc_lab *lab, ws_time t);
/* Deliver an ACK now (seq, rtt, marks... from `ack`; `now` is filled in). */
WS_API void ws_cc_lab_ack(struct ws_cc_lab *lab, const struct ws_cc_ack *ack);
WS_API void ws_cc_lab_cnp(struct ws_cc_lab *lab);
WS_API void ws_cc_lab_sent(struct ws_cc_lab *lab, uint32_t bytes);
/* Timer events that ran so far. */
WS_API uint64_t ws_cc_lab_events(const struct ws_cc_lab *lab);
WS_API void ws_cc_lab_free(struct ws_cc_lab *lab);

/* ---- ABI 2.4 ---- */
/*
 * The files the configuration named that the simulation resolved so far
 * (ws_resolve_path: traces, CDFs, topology files, compute tables, a
 * [failures] file, a memo database), each once, in the order they were
 * first named: the i-th, or NULL past the last.  `warpsim sweep` hashes
 * their contents into its resume digest.  A fabric taken from a
 * ws_fabric_cache was not built, so its topology file is not listed.
 */
WS_API const char *ws_sim_input_file(const struct ws_sim *sim, size_t i);

#ifdef __cplusplus
}
#endif
#endif
