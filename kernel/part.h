/* SPDX-License-Identifier: MIT */
/*
 * The partitioned engine's own structures, shared by part.c (partitions,
 * windows, threads) and ranks.c (the same partitions over MPI ranks).
 * Nothing outside these two files includes it.
 */
#ifndef WS_PART_H
#define WS_PART_H

#include <pthread.h>
#include <stdatomic.h>

#include "internal.h"

/* An event on its way to another partition. */
struct ws_mail {
	ws_time when;
	ws_event_fn fn;
	void *obj;
	uint64_t arg;
	struct ws_owner *owner;
};

struct ws_mailbox {
	struct ws_mail *e;
	size_t n, cap;
	ws_time min;               /* earliest `when`, WS_TIME_NEVER if empty */
};

/* Times at which a serial step is needed: a min-heap, stale entries
 * (a time passed) dropped when seen. */
struct ws_tlist {
	ws_time *t;
	size_t n, cap;
};

struct ws_deferred {
	uint32_t flow;
};

struct ws_part {
	struct ws_sim sh;              /* the shell the partition runs on */
	/* mailboxes to each partition, two per destination: the phase that
	 * fills one reads (merges) the other */
	struct ws_mailbox *out;        /* [2 * n] */
	struct ws_tlist sync;
	struct ws_deferred *dfr;       /* completions to tell at the barrier */
	size_t n_dfr, cap_dfr;
	uint64_t w_events;             /* events of its last window (its weight) */
	ws_time deadlock_rto;          /* a timeout under PFC: search a cycle at the barrier */
	uint32_t deadlock_flow;
	/* statistics (summary.json) */
	uint64_t events, windows_busy, windows_idle, cross_out, serial_events;
	uint64_t cross_pfc;            /* of cross_out: PAUSE / RESUME frames */
	uint32_t nodes, hosts;
} __attribute__((aligned(64)));

enum { CMD_RUN = 1, CMD_EXIT = 2 };


struct ws_parts {
	uint32_t n;                    /* partitions */
	uint32_t threads;
	uint16_t *node_part;           /* node -> partition */
	ws_time lookahead;
	struct ws_part **p;
	struct ws_tlist gsync;         /* serial steps asked in the global context */
	uint32_t *order;               /* partitions, heaviest first */
	uint64_t phase;                /* windows and serial steps so far */
	bool serial;                   /* a serial step is running */
	bool started;
	/* the window the workers run */
	ws_time win_end;
	uint32_t n_active;
	int cmd;
	atomic_uint next;
	/* barrier */
	atomic_uint arrived;
	atomic_uint gen;
	atomic_uint sleepers;
	pthread_t *tid;
	pthread_mutex_t warn_mu;
	/* statistics */
	uint64_t windows, serial_steps, deferred;
	/* the window model: per window, the events of its busiest thread if
	 * it had run on MODEL_T[k] threads (heaviest partition first onto the
	 * least loaded thread), summed over windows */
	uint64_t model_span[6];
	uint64_t model_events;
	double worker_cpu;             /* CPU seconds of the worker threads */
	struct ws_ranks *rk;           /* over MPI ranks (ranks.c), NULL in one process */
	uint16_t *part_rank;           /* partition -> rank (with rk) */
	uint32_t my_rank;
};

/* Whether this process runs partition p (all of them in one process). */
static inline bool ws_pt_mine(const struct ws_parts *par, uint32_t p)
{
	return !par->rk || par->part_rank[p] == par->my_rank;
}

/* part.c, for ranks.c */
ws_time ws_pt_tlist_next(struct ws_tlist *l, ws_time now);
void ws_pt_merge_in(struct ws_parts *par, uint32_t dst);
void ws_pt_fold(struct ws_sim *sim, struct ws_sim *sh);
void ws_pt_pull(struct ws_sim *sh, const struct ws_sim *sim);
void ws_pt_deadlock_checks(struct ws_sim *sim);
void ws_pt_threads_start(struct ws_sim *sim);
void ws_pt_threads_stop(struct ws_sim *sim);
void ws_pt_model_window(struct ws_parts *par, uint32_t k);
void ws_pt_window(struct ws_sim *sim, const ws_time *next, ws_time end);
bool ws_pt_serial_one(struct ws_sim *sim, uint32_t i, ws_time t);
void ws_pt_progress(struct ws_sim *sim, uint64_t *told);
void ws_pt_mail_put(struct ws_mailbox *m, const struct ws_mail *e);
void ws_pt_tell_deferred(struct ws_sim *sim, ws_time at);

/* ranks.c */
int ws_ranks_plan(struct ws_sim *sim, struct ws_parts *par, struct ws_err *err);
void ws_ranks_run(struct ws_sim *sim, ws_time limit, uint64_t max_events);
void ws_ranks_free(struct ws_parts *par);
uint64_t ws_ranks_pending(const struct ws_sim *sim);

#endif
