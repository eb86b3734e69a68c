/* SPDX-License-Identifier: MIT */
/*
 * dist: run N independent jobs on a pool of worker threads and, when the
 * program is built with MPI (./bootstrap --with-mpi) and started under
 * mpirun, over every rank's pool.  `warpsim sweep` runs its experiments
 * through it; nothing here knows what a job is.
 *
 * The schedule.  Rank 0 decides: it walks `order` and hands out the first
 * job not yet started whose ready() says yes, so a caller expresses waves
 * (job j waits for the jobs it depends on) through ready().  A job starts
 * when a worker is free: on rank 0 a worker takes the next job itself; a
 * rank > 0 asks rank 0 for one job per free worker and gets it with its
 * input() bytes (dynamic distribution: a fast rank simply asks more often).
 * Every result travels back to rank 0, where done() is called.
 *
 * The callbacks.  ready(), input(), done() and progress() run on rank 0
 * only, one at a time (under one lock; keep them short: a worker waits for
 * the lock to take its next job), from any thread of rank 0.  run() runs
 * on every rank, on the worker threads, concurrently.  A job whose run()
 * (or input()) returns nonzero is still done() with that status and does
 * not stop the others.  run()'s result buffer is malloc'd by run() and
 * freed by dist after done(); input()'s likewise after run().
 *
 * Stopping.  When *stop becomes nonzero on rank 0, no new job is handed
 * out; jobs already started (including those shipped to other ranks) run
 * to their end and are done().  When it becomes nonzero on a rank > 0,
 * that rank starts nothing new and gives the jobs it holds but has not
 * started back to rank 0 (they are not done()).  run() is not interrupted
 * by dist: the caller tells it through the same flag.  dist_run returns
 * DIST_STOPPED when jobs were left unstarted.
 *
 * No deadlock on dependencies: when no job runs anywhere and none of the
 * jobs left is ready, none ever will be: dist_run stops and returns
 * DIST_E_STUCK (every started job having been done()).
 *
 * Threads.  `threads` workers per rank.  Without MPI (or with one rank) the
 * calling thread is one of them (threads = 1 creates no thread).  With
 * several ranks every rank starts `threads` workers and the calling
 * thread is the rank's MPI agent: it is the only thread that calls MPI
 * (MPI_THREAD_FUNNELED, which every MPI library provides; the workers
 * never block on the network), it polls for messages with MPI_Iprobe and
 * sleeps on a condition variable in between (woken at once by a local
 * event; otherwise 50 us after activity, backing off to 1 % of the mean
 * job, 100 us to 5 ms), because Open MPI's blocking receives spin and
 * would take a core from the workers.  A job handed to another rank thus
 * waits up to two polls.  Sends are non-blocking, so two ranks sending
 * each other large buffers never wait on each other.
 * Messages are raw bytes: ranks are assumed to share the byte order and
 * type sizes (one binary on a homogeneous cluster).
 *
 * Process-wide state: the rank, the number of ranks and whether MPI was
 * started, set once by dist_init() before any thread exists and only read
 * afterwards.  dist_run() keeps all its state in its own frame, on its own
 * duplicate of MPI_COMM_WORLD, so it may be called several times in a row
 * (by every rank each time, with the same n).
 *
 * Failures.  A rank that dies takes the MPI job down with it (Open MPI 4.1
 * has no fault-tolerant mode: mpirun ends every rank); dist_run does not
 * hang on it because it does not outlive it.  An MPI call that fails
 * makes dist_run return DIST_E_MPI.  With several ranks, after DIST_E_MPI,
 * DIST_E_INVAL, DIST_E_NOMEM or DIST_E_THREAD the other ranks may still
 * wait for this one: the caller should then call dist_abort() rather than
 * dist_finalize(), which could wait forever.  DIST_STOPPED and
 * DIST_E_STUCK end every rank cleanly.
 */
#ifndef WS_TOOLS_DIST_H
#define WS_TOOLS_DIST_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include <warpsim/warpsim.h>

/* What dist_run returns (besides 0: every job done). */
enum {
	DIST_STOPPED = 1,       /* *stop was set: some jobs never started */
	DIST_E_INVAL = -1,      /* threads < 1, no run(), `order` not a permutation */
	DIST_E_NOMEM = -2,      /* dist's own allocation failed */
	DIST_E_THREAD = -3,     /* a worker thread could not be created */
	DIST_E_STUCK = -4,      /* jobs left that are never ready */
	DIST_E_MPI = -5,        /* an MPI call failed, or a malformed message */
	DIST_E_TOO_BIG = -6,    /* a job status for input or result bytes over 2 GiB
				 * (what one MPI message can carry) */
};

struct dist_ops {
	/* rank 0 only: may job j start now?  (NULL: always) */
	bool (*ready)(void *ctx, size_t j);
	/* rank 0 only: the input bytes shipped with job j, malloc'd (NULL/0 for
	 * none; the member NULL: no input); freed by dist after run().  A
	 * nonzero return does not run the job: it is done() with that status. */
	int (*input)(void *ctx, size_t j, void **in, size_t *len);
	/* any rank, any worker thread, concurrently: run job j; its result
	 * bytes malloc'd in *out (or NULL/0); 0 or the job's failure status */
	int (*run)(void *ctx, size_t j, const void *in, size_t in_len, void **out,
		   size_t *out_len);
	/* rank 0 only, serialized, in completion order: job j's status and result */
	void (*done)(void *ctx, size_t j, int status, const void *out, size_t len);
	/* rank 0 only, optional, serialized: after every start and every done() */
	void (*progress)(void *ctx, size_t done, size_t total, size_t running);
};

/*
 * Without MPI: rank 0 of 1, nothing else.  Built with MPI: when the process
 * was started by an MPI launcher (mpirun/mpiexec/srun set OMPI_COMM_WORLD_SIZE,
 * PMIX_RANK or PMI_RANK), MPI_Init_thread(MPI_THREAD_FUNNELED); otherwise
 * MPI is left alone and the process is rank 0 of 1 (no singleton start-up).
 * Call it from the thread that will call dist_run, before creating threads.
 * Returns 0, or DIST_E_MPI.
 */
int dist_init(int *argc, char ***argv);
int dist_rank(void);
int dist_size(void);
/* MPI_Finalize when dist_init started MPI (collective: every rank calls it). */
void dist_finalize(void);
/* After DIST_E_MPI: MPI_Abort (ends every rank) when MPI was started, else
 * nothing; returns otherwise. */
void dist_abort(int code);

/*
 * One experiment over the ranks (`mpirun warpsim run`, docs/architecture.md
 * "MPI ranks"): dist_comm_open fills `c` with the collective calls the
 * library's struct ws_comm asks for, on a duplicate of MPI_COMM_WORLD
 * (blocking MPI collectives, called by the thread that runs the
 * simulation).  Without MPI, or with one rank: c->ranks = 1 and nothing
 * else.  Returns 0 or DIST_E_MPI.  dist_comm_close frees it (collective).
 */
int dist_comm_open(struct ws_comm *c);
void dist_comm_close(struct ws_comm *c);
/* How many ranks the MPI launcher that started this process (if any)
 * started, from its environment; 1 without one.  A program built without
 * MPI uses it to refuse rather than run one copy of the work per rank. */
int dist_launched_ranks(void);

/*
 * Run the jobs order[0..n) (a permutation of 0..n-1; rank 0 hands them out
 * in this order, skipping those not ready), `threads` workers per rank.
 * Every rank calls it, from the thread that called dist_init, with the same
 * n; `order`, `ops->ready`, `input`, `done` and `progress` are used on
 * rank 0 only (other ranks may pass order NULL).  `stop` may be NULL.
 * Returns 0, DIST_STOPPED, or a negative DIST_E_*; every job that started
 * has been done() when it returns on rank 0.
 */
int dist_run(size_t n, const size_t *order, int threads, const struct dist_ops *ops,
	     void *ctx, const volatile sig_atomic_t *stop);

#endif
