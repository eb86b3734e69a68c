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
#include <stdio.h>

#include <warpsim/core.h>
#include <warpsim/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- configuration ------------------------------------------------------ */

struct ws_cfg;

/* Read an ini file.  Errors name the file, the line and what was expected. */
int ws_cfg_load(struct ws_cfg **out, const char *path, struct ws_err *err);
/* Parse ini text; `name` is used in messages, `dir` resolves relative paths. */
int ws_cfg_parse_string(struct ws_cfg **out, const char *text,
			const char *name, const char *dir, struct ws_err *err);
/* Apply "section.key=value" (the --set option): replaces or adds the key. */
int ws_cfg_set(struct ws_cfg *cfg, const char *assignment,
	       struct ws_err *err);
/* The file the configuration came from (for strings: the name given to
 * ws_cfg_parse_string, or "<string>"). */
const char *ws_cfg_path(const struct ws_cfg *cfg);
void ws_cfg_free(struct ws_cfg *cfg);

/* ---- simulations -------------------------------------------------------- */

struct ws_opts {
	const char *plugin_path; /* colon-separated directories searched first */
	bool progress;           /* a progress line on stderr while running */
	bool quiet;              /* no warnings on stderr (still counted) */
	bool fabric_only;        /* build the fabric and routing, load no workload */
};

/*
 * Load the plugins the configuration names, check every key, build the
 * fabric and prepare routing.  Nothing has run yet.
 */
int ws_sim_new(struct ws_sim **out, const struct ws_cfg *cfg,
	       const struct ws_opts *opts, struct ws_err *err);

/*
 * Run until simulated time `until` (inclusive) or until nothing is left to
 * do.  The first call starts the workload.  May be called again with a later
 * `until` to continue.  Returns an error if a component failed (ws_fail).
 */
int ws_sim_run(struct ws_sim *sim, ws_time until, struct ws_err *err);

struct ws_sim_stats {
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
};
void ws_sim_get_stats(const struct ws_sim *sim, struct ws_sim_stats *out);

/* FCT slowdown statistics over completed flows. */
struct ws_fct_stats {
	uint32_t n;
	double mean, p50, p99, max;
};
void ws_sim_fct_stats(const struct ws_sim *sim, struct ws_fct_stats *out);

/* The workload's lines for the run summary (its `summary` op), or 0. */
size_t ws_sim_workload_summary(struct ws_sim *sim, const char *dir, char *buf,
			       size_t size);

/* Directory outputs go to ("out/<ini name>", [output] dir, or as set). */
const char *ws_sim_default_out_dir(const struct ws_sim *sim);
/* Send outputs to `dir`; traces ([output] trace_*) are written there while
 * the simulation runs, so set it before ws_sim_run. */
int ws_sim_set_output_dir(struct ws_sim *sim, const char *dir,
			  struct ws_err *err);
/* Write fct.csv, summary.json (and the optional outputs) into `dir` (NULL:
 * the output directory). */
int ws_sim_write_outputs(struct ws_sim *sim, const char *dir,
			 struct ws_err *err);
void ws_sim_free(struct ws_sim *sim);

/* Name of the instance of a kind ("fat-tree", "dcqcn", ...). */
const char *ws_sim_plugin_name(const struct ws_sim *sim, enum ws_kind kind);
/* The plugin instance of a kind (its conf and state), for tools and tests. */
const struct ws_inst *ws_sim_instance(const struct ws_sim *sim,
				      enum ws_kind kind);

/* Freeze / thaw ports and flows.  Thaw shifts the kernel's own timestamps
 * too: ports' serialization ends, flows' pacing and timeouts, and the send
 * times and INT records of packets queued at the ports or on their wires. */
struct ws_freeze_set {
	const uint32_t *ports; /* global port indices */
	size_t n_ports;
	const uint32_t *flows;
	size_t n_flows;
};
int ws_freeze(struct ws_sim *sim, const struct ws_freeze_set *set,
	      struct ws_err *err);
int ws_thaw(struct ws_sim *sim, const struct ws_freeze_set *set,
	    ws_time shift, struct ws_err *err);

/* ---- tooling ------------------------------------------------------------ */

/* The JSON writer of summary.json (the ws_json_* calls of core.h), for
 * programs writing their own files: a writer onto `f`; ws_json_finish()
 * closes what is open, ends the text with a newline and frees the writer
 * (the file stays open). */
struct ws_json *ws_json_new(FILE *f);
void ws_json_finish(struct ws_json *j);

const char *ws_kind_name(enum ws_kind kind);
/* Print every plugin found, by kind, with its summary. */
int ws_list_plugins(FILE *out, const struct ws_opts *opts, struct ws_err *err);
/*
 * Print the parameter table of a plugin (or of a kernel section: sim, nic,
 * switch, output).  `kind` 0 searches every kind.
 */
int ws_describe(FILE *out, const char *name, enum ws_kind kind,
		const struct ws_opts *opts, struct ws_err *err);
/* The same, as ini text (every key at its default, its meaning above it)
 * when `ini` is true. */
int ws_describe_as(FILE *out, const char *name, enum ws_kind kind, bool ini,
		   const struct ws_opts *opts, struct ws_err *err);

/* ---- a bench for congestion-control plugins ----------------------------- */

/*
 * One flow and its CC plugin, without a network: feed it ACKs and CNPs,
 * advance time (its timers fire), read its rate.  For unit tests of CCs.
 */
struct ws_cc_lab;

struct ws_cc_lab_spec {
	const char *cc;                /* plugin name */
	const char *const *params;     /* NULL-terminated "key=value" */
	const char *plugin_path;
	uint64_t line_rate;            /* bps */
	ws_time base_rtt;
	uint64_t size;                 /* flow bytes; 0: endless */
	uint32_t mtu;                  /* payload per packet; 0: 1000 */
	/* the rest: 0 gives the default in brackets */
	uint64_t path_rate;            /* bps of the slowest link [line_rate] */
	uint32_t hops;                 /* links on the path [1] */
	ws_time max_base_rtt;          /* the fabric's largest base RTT [base_rtt] */
};

int ws_cc_lab_new(struct ws_cc_lab **out, const struct ws_cc_lab_spec *spec,
		  struct ws_err *err);
struct ws_cc_flow *ws_cc_lab_flow(struct ws_cc_lab *lab);
ws_time ws_cc_lab_now(const struct ws_cc_lab *lab);
/* Run timers due up to `t` and move the clock there. */
void ws_cc_lab_advance(struct ws_cc_lab *lab, ws_time t);
/* Deliver an ACK now (seq, rtt, marks... from `ack`; `now` is filled in). */
void ws_cc_lab_ack(struct ws_cc_lab *lab, const struct ws_cc_ack *ack);
void ws_cc_lab_cnp(struct ws_cc_lab *lab);
void ws_cc_lab_sent(struct ws_cc_lab *lab, uint32_t bytes);
/* Timer events that ran so far. */
uint64_t ws_cc_lab_events(const struct ws_cc_lab *lab);
void ws_cc_lab_free(struct ws_cc_lab *lab);

#ifdef __cplusplus
}
#endif
#endif
