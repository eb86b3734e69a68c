/* SPDX-License-Identifier: MIT */
/*
 * The coflow model of the collective engine ([workload] collectives =
 * coflow, docs/workloads.md): a collective across servers is not a set of
 * flows of the simulation but one fluid entity, its "coflow".
 *
 * Its transfers are routed as their packets would be (the routing rule's
 * path for their 5-tuple, ECMP included) and summed per link: each link
 * carries the collective's wire bytes over it (payload plus headers, and
 * on the reverse paths its ACKs).  The coflow progresses at one rate x:
 * link l carries load_l / load_max of x, so every transfer of the
 * collective advances in proportion and all finish together, when the most
 * loaded link has carried its load.  Rates are weighted max-min fair over
 * the links between the coflows in flight (flowrate/solver.c, the solver
 * of the `fluid` accelerator), re-solved when a coflow starts or ends.
 *
 * This is a lower bound of what the transfers take as flows sharing the
 * same links: a flow-level run lets some transfers run ahead and others
 * queue behind the bottleneck, the coflow keeps the bottleneck busy to the
 * end.  The engine adds what the collective takes beyond its bytes: the
 * time its algorithm's chain of transfers takes on an idle fabric less the
 * serialization on that chain (coll.c, coflow_run).
 */
#ifndef WARPSIM_COFLOW_H
#define WARPSIM_COFLOW_H

#include <stdint.h>

#include <warpsim/warpsim.h>

struct cf_net;

/* Coflow `id` has carried its bytes (called from an event of the run). */
typedef void (*cf_done_fn)(void *arg, uint32_t id);

/* batch: after a coflow starts or ends, the rates are solved again this
 * much later (starts and ends meanwhile solved together; 0: at once). */
int cf_new(struct cf_net **out, struct ws_sim *sim, ws_time batch, cf_done_fn done,
	   void *arg, struct ws_err *err);
void cf_free(struct cf_net *cf);

/* Start describing a coflow: cf_add its transfers, then cf_commit. */
void cf_begin(struct cf_net *cf);
/* the links of a transfer (valid for the run): n data links, then n_ack
 * links its ACKs take, loaded by ack_share of its rate */
struct cf_path {
	uint32_t off, n, n_ack;
	double ack_share;
};
/*
 * A transfer of `bytes` payload from host node src to host node dst whose
 * packets carry entropy `sport`, part of the coflow being described.
 * *bits: its wire bits (payload and headers); *lat: its
 * last packet's store-and-forward and propagation and its ACK's way back;
 * *path: its data links.
 */
int cf_add(struct cf_net *cf, uint32_t src, uint32_t dst, uint16_t sport,
	   uint64_t bytes, ws_time *lat, double *bits, struct cf_path *path,
	   struct ws_err *err);
/*
 * The transfers of one collective alone on the fabric, as flows of a
 * max-min solver of their own (to time the collective by itself, with the
 * collisions of its own transfers): add transfer `id` on its data links,
 * (and its ACKs on theirs) remove it, solve, read its rate (bps).
 */
int cf_self_add(struct cf_net *cf, uint32_t id, struct cf_path path, struct ws_err *err);
void cf_self_remove(struct cf_net *cf, uint32_t id);
int cf_self_solve(struct cf_net *cf);
double cf_self_rate(const struct cf_net *cf, uint32_t id);
/* The ids whose rates the last cf_self_solve gave (some more than once);
 * the others kept theirs.  Valid until the next cf_self_* call. */
uint32_t cf_self_changed(const struct cf_net *cf, const uint32_t **ids);
/* A coflow as the solver takes it: its links, the share of its rate each
 * carries (1 on its most loaded), and its work (bits of that link). */
struct cf_desc {
	const uint32_t *links;
	const double *use;
	uint32_t n;
	double work;
};
/*
 * The coflow of the transfers added since cf_begin, into *out (pointing
 * into cf's scratch: valid until the next cf_begin).  `alone`: the
 * serialization it takes alone (ps), its algorithm's chain of transfers
 * with its own collisions (cf_self_*); its work is what its most loaded link carries
 * in that time at its rate alone, and other coflows slow it as they share
 * its links.  Returns 1 when it carries nothing over the network.
 */
int cf_describe(struct cf_net *cf, ws_time alone, struct cf_desc *out);
/* Start coflow `id` (below 2^31, not in flight) now; done(arg, id) when its
 * work is done. */
int cf_start(struct cf_net *cf, uint32_t id, const struct cf_desc *d, struct ws_err *err);

struct cf_stats {
	uint64_t coflows;      /* committed with bytes on the network */
	uint64_t transfers;    /* cf_add calls */
	uint64_t routes;       /* paths traced (the others came from the cache) */
	uint64_t links;        /* (coflow, link) pairs given to the solver */
	uint64_t solves;       /* solve events */
	uint64_t solved;       /* coflows re-rated by them */
	uint64_t largest;      /* most coflows in one solve */
	uint64_t fills;        /* fills of the local solves (fr_stats.local_rounds) */
	uint64_t fallbacks;    /* local solves that solved whole components */
	uint32_t live;         /* coflows in flight now */
};
void cf_get_stats(const struct cf_net *cf, struct cf_stats *out);

#endif
