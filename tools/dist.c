/* SPDX-License-Identifier: MIT */
/*
 * dist: the job pool of `warpsim sweep`, on threads and, built with MPI,
 * over ranks.  The behaviour and the choices are described in dist.h;
 * this file is laid out as: the schedule (rank 0: which job next, the
 * bookkeeping of done()), the workers of rank 0, the single-process run,
 * then the MPI part (messages, rank 0's agent, the other ranks' agent and
 * workers).
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef WS_HAVE_MPI
#include <mpi.h>
#endif

#include "dist.h"

/* ---- process-wide state: written once by dist_init, read afterwards ---------- */

static int dist_my_rank;
static int dist_n_ranks = 1;
#ifdef WS_HAVE_MPI
static bool dist_mpi_started;
#endif

int dist_rank(void)
{
	return dist_my_rank;
}

int dist_size(void)
{
	return dist_n_ranks;
}

/* ---- one dist_run ------------------------------------------------------------- */

enum job_state { JOB_WAITING, JOB_STARTED, JOB_DONE };

/* A job received by a rank > 0, or a result waiting to be sent back. */
struct dist_item {
	size_t job;
	int status;
	bool not_run;  /* a result: the job was given back unstarted */
	void *buf;     /* input bytes, or result bytes */
	size_t len;
	struct dist_item *next;
};

struct dist_fifo {
	struct dist_item *head, *tail;
	size_t len;
};

struct dist {
	size_t n;
	const size_t *order;
	int threads;
	const struct dist_ops *ops;
	void *ctx;
	const volatile sig_atomic_t *stop;

	pthread_mutex_t lock;   /* everything below, and rank 0's callbacks */
	pthread_cond_t work_cv; /* workers: a job may have become available */
	pthread_cond_t agent_cv; /* the MPI agent: a local event */
	int workers_alive;      /* workers not yet returned */
	int error;              /* first DIST_E_* met (0: none) */
	double run_seconds;     /* wall time in run() on this rank, summed */
	size_t runs_timed;      /* ... over this many jobs */

	/* rank 0: the schedule */
	unsigned char *state;   /* enum job_state, by job */
	size_t cursor;          /* order[0..cursor) are all started */
	size_t n_done;
	size_t running;         /* started on rank 0's workers, not done */
	size_t remote_running;  /* shipped to other ranks, result not received */
	bool halt;              /* no job will be handed out any more */
	bool stuck;             /* jobs left that will never be ready */

	/* ranks > 0 */
	struct dist_fifo inbox;  /* jobs received, not started */
	struct dist_fifo outbox; /* results to send */
	int idle;                /* workers without a job */
	bool ended;              /* rank 0 said it hands out nothing more */
	bool local_stop;         /* *stop seen on this rank */
};

static struct dist_item *fifo_pop(struct dist_fifo *f)
{
	struct dist_item *it = f->head;
	if (it) {
		f->head = it->next;
		if (!f->head)
			f->tail = NULL;
		f->len--;
	}
	return it;
}

static void fifo_free(struct dist_fifo *f)
{
	struct dist_item *it;
	while ((it = fifo_pop(f))) {
		free(it->buf);
		free(it);
	}
}

static bool stop_requested(const struct dist *d)
{
	/* written by a signal handler (atomically), read here by any thread */
	return d->stop && __atomic_load_n(d->stop, __ATOMIC_RELAXED);
}

/* ---- the schedule (rank 0, under the lock) ---------------------------------- */

static void sched_progress(struct dist *d)
{
	if (d->ops->progress)
		d->ops->progress(d->ctx, d->n_done, d->n, d->running + d->remote_running);
}

/* Whether nothing more will be handed out. */
static bool sched_over(struct dist *d)
{
	if (stop_requested(d))
		d->halt = true;
	return d->halt || d->stuck || d->error;
}

enum pick { PICK_JOB, PICK_WAIT, PICK_OVER };

/* The next job to start: the first of `order` not started and ready.  When
 * none is ready and nothing runs anywhere, nothing ever will be: stuck. */
static enum pick sched_pick(struct dist *d, size_t *job)
{
	if (sched_over(d))
		return PICK_OVER;
	while (d->cursor < d->n && d->state[d->order[d->cursor]] != JOB_WAITING)
		d->cursor++;
	if (d->cursor == d->n) {
		/* a job shipped to a rank that stops comes back unstarted */
		if (d->remote_running)
			return PICK_WAIT;
		d->halt = true;
		return PICK_OVER;
	}
	for (size_t i = d->cursor; i < d->n; i++) {
		size_t j = d->order[i];
		if (d->state[j] == JOB_WAITING && (!d->ops->ready || d->ops->ready(d->ctx, j))) {
			d->state[j] = JOB_STARTED;
			*job = j;
			return PICK_JOB;
		}
	}
	if (d->running == 0 && d->remote_running == 0) {
		d->stuck = true;
		pthread_cond_broadcast(&d->work_cv);
		pthread_cond_signal(&d->agent_cv);
		return PICK_OVER;
	}
	return PICK_WAIT;
}

/* input() of job j: 0, or the status it is done() with unrun. */
static int sched_input(struct dist *d, size_t j, void **in, size_t *len)
{
	*in = NULL;
	*len = 0;
	if (!d->ops->input)
		return 0;
	int st = d->ops->input(d->ctx, j, in, len);
	if (st) {
		free(*in);
		*in = NULL;
		*len = 0;
	}
	return st;
}

/* Job j finished (wherever it ran): done(), and wake whoever waits on it. */
static void sched_done(struct dist *d, size_t j, int status, const void *out, size_t len)
{
	d->ops->done(d->ctx, j, status, out, len);
	d->state[j] = JOB_DONE;
	d->n_done++;
	sched_progress(d);
	pthread_cond_broadcast(&d->work_cv);
	pthread_cond_signal(&d->agent_cv);
}

/* ---- rank 0's workers ------------------------------------------------------------ */

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* run() of job j; its wall time in *seconds (added to the rank's mean under
 * the lock by the caller: the MPI agents size their polls on it). */
static int job_run(struct dist *d, size_t j, const void *in, size_t in_len, void **out,
		   size_t *out_len, double *seconds)
{
	*out = NULL;
	*out_len = 0;
	double t0 = now_seconds();
	int st = d->ops->run(d->ctx, j, in, in_len, out, out_len);
	*seconds = now_seconds() - t0;
	if (!*out)
		*out_len = 0;
	return st;
}

static void *worker0_main(void *arg)
{
	struct dist *d = arg;
	size_t j;
	pthread_mutex_lock(&d->lock);
	for (;;) {
		enum pick p = sched_pick(d, &j);
		if (p == PICK_OVER)
			break;
		if (p == PICK_WAIT) {
			pthread_cond_wait(&d->work_cv, &d->lock);
			continue;
		}
		void *in, *out;
		size_t in_len, out_len;
		int st = sched_input(d, j, &in, &in_len);
		d->running++;
		sched_progress(d);
		pthread_mutex_unlock(&d->lock);
		out = NULL;
		out_len = 0;
		double seconds = 0;
		if (st == 0)
			st = job_run(d, j, in, in_len, &out, &out_len, &seconds);
		free(in);
		pthread_mutex_lock(&d->lock);
		d->run_seconds += seconds;
		d->runs_timed++;
		d->running--;
		sched_done(d, j, st, out, out_len);
		free(out);
	}
	d->workers_alive--;
	pthread_cond_signal(&d->agent_cv);
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* ---- setting up and tearing down ------------------------------------------------ */

static int dist_setup(struct dist *d, size_t n, const size_t *order, int threads,
		      const struct dist_ops *ops, void *ctx, const volatile sig_atomic_t *stop)
{
	memset(d, 0, sizeof *d);
	d->n = n;
	d->order = order;
	d->threads = threads;
	d->ops = ops;
	d->ctx = ctx;
	d->stop = stop;
	d->idle = threads;
	/* the agent's timed waits are on the monotonic clock (glibc's
	 * pthread_condattr_init and _setclock with it cannot fail) */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->work_cv, NULL);
	pthread_cond_init(&d->agent_cv, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

static void dist_teardown(struct dist *d)
{
	fifo_free(&d->inbox);
	fifo_free(&d->outbox);
	free(d->state);
	pthread_cond_destroy(&d->agent_cv);
	pthread_cond_destroy(&d->work_cv);
	pthread_mutex_destroy(&d->lock);
}

/* Rank 0's checks: `order` a permutation of 0..n-1, done() and run() set. */
static int check_args0(struct dist *d)
{
	if (!d->order || !d->ops->done)
		return DIST_E_INVAL;
	d->state = calloc(d->n, 1);
	if (!d->state)
		return DIST_E_NOMEM;
	for (size_t i = 0; i < d->n; i++) {
		size_t j = d->order[i];
		if (j >= d->n || d->state[j])
			return DIST_E_INVAL;
		d->state[j] = 1;
	}
	memset(d->state, JOB_WAITING, d->n);
	return 0;
}

/* Start `count` workers running `fn`; on failure the lock-protected error is
 * set and the started ones are told to finish (the caller still joins). */
static int start_workers(struct dist *d, pthread_t *tid, int count, void *(*fn)(void *))
{
	for (int i = 0; i < count; i++) {
		pthread_mutex_lock(&d->lock);
		d->workers_alive++;
		pthread_mutex_unlock(&d->lock);
		if (pthread_create(&tid[i], NULL, fn, d)) {
			pthread_mutex_lock(&d->lock);
			d->workers_alive--;
			if (!d->error)
				d->error = DIST_E_THREAD;
			pthread_cond_broadcast(&d->work_cv);
			pthread_mutex_unlock(&d->lock);
			return i;
		}
	}
	return count;
}

static void join_workers(pthread_t *tid, int count)
{
	for (int i = 0; i < count; i++)
		pthread_join(tid[i], NULL);
}

static int result0(const struct dist *d)
{
	if (d->error)
		return d->error;
	if (d->stuck)
		return DIST_E_STUCK;
	return d->n_done < d->n ? DIST_STOPPED : 0;
}

/* One process: the calling thread is worker 0, threads - 1 more. */
static int run_local(struct dist *d)
{
	pthread_t *tid = calloc((size_t)d->threads, sizeof *tid);
	if (!tid)
		return DIST_E_NOMEM;
	int started = start_workers(d, tid, d->threads - 1, worker0_main);
	pthread_mutex_lock(&d->lock);
	d->workers_alive++;
	pthread_mutex_unlock(&d->lock);
	worker0_main(d);
	join_workers(tid, started);
	free(tid);
	return result0(d);
}

#ifdef WS_HAVE_MPI
static int run_mpi(struct dist *d);
#endif

int dist_run(size_t n, const size_t *order, int threads, const struct dist_ops *ops,
	     void *ctx, const volatile sig_atomic_t *stop)
{
	if (threads < 1 || !ops || !ops->run)
		return DIST_E_INVAL;
	if (n == 0)
		return 0;
	struct dist d;
	int rc = dist_setup(&d, n, order, threads, ops, ctx, stop);
	if (rc == 0 && dist_my_rank == 0)
		rc = check_args0(&d);
	if (rc == 0) {
#ifdef WS_HAVE_MPI
		if (dist_n_ranks > 1)
			rc = run_mpi(&d);
		else
#endif
			rc = run_local(&d);
	}
	dist_teardown(&d);
	return rc;
}

int dist_launched_ranks(void)
{
	/* set by the launcher in each process it starts (Open MPI's mpirun;
	 * MPICH's hydra and srun through PMI), not by a batch allocation */
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && atoi(v) > 0)
			return atoi(v);
	}
	return 1;
}

/* ---- MPI ----------------------------------------------------------------------- */
#ifndef WS_HAVE_MPI

int dist_comm_open(struct ws_comm *c)
{
	memset(c, 0, sizeof *c);
	c->size = (uint32_t)sizeof *c;
	c->ranks = 1;
	return 0;
}

void dist_comm_close(struct ws_comm *c)
{
	(void)c;
}

int dist_init(int *argc, char ***argv)
{
	return 0;
}

void dist_finalize(void)
{
}

void dist_abort(int code)
{
}

#else

/* Whether an MPI launcher started this process. */
static bool launched_by_mpi(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

int dist_init(int *argc, char ***argv)
{
	if (!launched_by_mpi())
		return 0;
	int provided = 0;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
		return DIST_E_MPI;
	dist_mpi_started = true;
	if (provided < MPI_THREAD_FUNNELED)
		return DIST_E_MPI;
	if (MPI_Comm_rank(MPI_COMM_WORLD, &dist_my_rank) != MPI_SUCCESS ||
	    MPI_Comm_size(MPI_COMM_WORLD, &dist_n_ranks) != MPI_SUCCESS)
		return DIST_E_MPI;
	return 0;
}

void dist_finalize(void)
{
	if (dist_mpi_started)
		MPI_Finalize();
}

void dist_abort(int code)
{
	if (dist_mpi_started)
		MPI_Abort(MPI_COMM_WORLD, code);
}

/* The messages (tag: what follows the header). */
enum {
	TAG_REQ = 1,  /* rank > 0 -> 0: uint32 number of jobs wanted */
	TAG_JOB,      /* 0 -> rank: struct msg_hdr, then the input bytes */
	TAG_RESULT,   /* rank -> 0: struct msg_hdr, then the result bytes */
	TAG_END,      /* 0 -> rank: nothing more will be handed out */
	TAG_BYE,      /* rank -> 0: my last message (all results sent) */
};

struct msg_hdr {
	uint64_t job;
	int32_t status;
	uint32_t not_run; /* TAG_RESULT: given back unstarted */
};

/* A send in flight and the buffer it owns. */
struct pend_send {
	MPI_Request req;
	void *buf;
};

struct dist_mpi {
	MPI_Comm comm;
	int size;
	struct pend_send *sends;
	size_t n_sends, cap_sends;
	/* rank 0 */
	unsigned *wanted; /* by rank: jobs asked for, not yet given */
	bool *end_sent;
	int byes;
	/* ranks > 0 */
	unsigned requested; /* jobs asked for, not yet received */
	bool bye_sent;
};

static void mpi_fail(struct dist *d)
{
	pthread_mutex_lock(&d->lock);
	if (!d->error)
		d->error = DIST_E_MPI;
	pthread_cond_broadcast(&d->work_cv);
	pthread_mutex_unlock(&d->lock);
}

/* Send `buf` (malloc'd, owned by the send from now on) to `dest`. */
static int post_send(struct dist *d, struct dist_mpi *m, int dest, int tag, void *buf,
		     size_t len)
{
	if (m->n_sends == m->cap_sends) {
		size_t cap = m->cap_sends ? 2 * m->cap_sends : 16;
		struct pend_send *s = realloc(m->sends, cap * sizeof *s);
		if (!s) {
			free(buf);
			return DIST_E_NOMEM;
		}
		m->sends = s;
		m->cap_sends = cap;
	}
	struct pend_send *s = &m->sends[m->n_sends];
	if (MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, m->comm, &s->req) != MPI_SUCCESS) {
		free(buf);
		return DIST_E_MPI;
	}
	s->buf = buf;
	m->n_sends++;
	return 0;
}

/* A header and `len` bytes in one malloc'd message; NULL when out of memory. */
static void *pack(size_t job, int status, bool not_run, const void *bytes, size_t len)
{
	struct msg_hdr h = { .job = job, .status = status, .not_run = not_run };
	unsigned char *buf = malloc(sizeof h + len);
	if (buf) {
		memcpy(buf, &h, sizeof h);
		if (len)
			memcpy(buf + sizeof h, bytes, len);
	}
	return buf;
}

/* Forget the sends that completed (all of them with `wait`). */
static int reap_sends(struct dist_mpi *m, bool wait)
{
	size_t k = 0;
	int rc = 0;
	for (size_t i = 0; i < m->n_sends; i++) {
		int flag = 0;
		int e = wait ? MPI_Wait(&m->sends[i].req, MPI_STATUS_IGNORE)
			     : MPI_Test(&m->sends[i].req, &flag, MPI_STATUS_IGNORE);
		if (e != MPI_SUCCESS)
			rc = DIST_E_MPI;
		if (wait || flag || e != MPI_SUCCESS)
			free(m->sends[i].buf);
		else
			m->sends[k++] = m->sends[i];
	}
	m->n_sends = k;
	return rc;
}

/* A received message: who sent it, its tag, its bytes (malloc'd). */
struct msg {
	int src, tag;
	unsigned char *buf;
	size_t len;
};

/* The next message if one arrived: 1, 0 (none) or DIST_E_*. */
static int recv_msg(struct dist_mpi *m, struct msg *msg)
{
	int flag = 0, count = 0;
	MPI_Status st;
	if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, m->comm, &flag, &st) != MPI_SUCCESS)
		return DIST_E_MPI;
	if (!flag)
		return 0;
	if (MPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS || count < 0)
		return DIST_E_MPI;
	msg->src = st.MPI_SOURCE;
	msg->tag = st.MPI_TAG;
	msg->len = (size_t)count;
	msg->buf = malloc(msg->len ? msg->len : 1);
	if (!msg->buf)
		return DIST_E_NOMEM;
	if (MPI_Recv(msg->buf, count, MPI_BYTE, msg->src, msg->tag, m->comm,
		     MPI_STATUS_IGNORE) != MPI_SUCCESS) {
		free(msg->buf);
		return DIST_E_MPI;
	}
	return 1;
}

/* A job or result message's header; false if it is malformed. */
static bool read_hdr(const struct dist *d, const struct msg *msg, struct msg_hdr *h)
{
	if (msg->len < sizeof *h)
		return false;
	memcpy(h, msg->buf, sizeof *h);
	return h->job < d->n;
}

/* Sleep on the agent's condition until a local event or `us` microseconds. */
static void agent_wait(struct dist *d, long us)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += us * 1000;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	pthread_cond_timedwait(&d->agent_cv, &d->lock, &ts);
}

/*
 * The poll interval: 50 us after activity, doubling while nothing happens
 * up to 1 % of the mean run() time measured on this rank (100 us to 5 ms;
 * 200 us before the first job ends).  A job handed between ranks waits
 * for up to two polls (rank 0 noticing the request, the rank noticing the
 * job), so this keeps that wait near 1-2 % of a job, while a wake-up
 * (a few microseconds of CPU) is not paid more often than the jobs need.
 */
enum {
	WAIT_MIN_US = 50, WAIT_FIRST_US = 200, WAIT_FLOOR_US = 100, WAIT_CEIL_US = 5000,
	WAIT_JOB_SHARE = 100, /* the longest wait is 1/100 of a job */
};

static long poll_max_us(const struct dist *d)
{
	if (!d->runs_timed)
		return WAIT_FIRST_US;
	double us = d->run_seconds / (double)d->runs_timed * 1e6 / WAIT_JOB_SHARE;
	return us < WAIT_FLOOR_US ? WAIT_FLOOR_US : us > WAIT_CEIL_US ? WAIT_CEIL_US : (long)us;
}

static long next_wait(long us, bool busy, long max_us)
{
	if (busy)
		return WAIT_MIN_US;
	return us * 2 > max_us ? max_us : us * 2;
}

/* ---- rank 0's agent ---- */

/* A result from another rank (lock held). */
static int rank0_result(struct dist *d, const struct msg *msg)
{
	struct msg_hdr h;
	if (!read_hdr(d, msg, &h) || d->state[h.job] != JOB_STARTED || !d->remote_running)
		return DIST_E_MPI;
	d->remote_running--;
	if (h.not_run) {
		d->state[h.job] = JOB_WAITING;
		d->cursor = 0;
		pthread_cond_broadcast(&d->work_cv);
		return 0;
	}
	sched_done(d, h.job, h.status, msg->buf + sizeof h, msg->len - sizeof h);
	return 0;
}

/* Every message that arrived: 1 if any, 0, or DIST_E_*. */
static int rank0_receive(struct dist *d, struct dist_mpi *m)
{
	int any = 0;
	for (;;) {
		struct msg msg;
		int rc = recv_msg(m, &msg);
		if (rc <= 0)
			return rc < 0 ? rc : any;
		any = 1;
		rc = 0;
		uint32_t want;
		switch (msg.tag) {
		case TAG_REQ:
			if (msg.len != sizeof want) {
				rc = DIST_E_MPI;
				break;
			}
			memcpy(&want, msg.buf, sizeof want);
			m->wanted[msg.src] += want;
			break;
		case TAG_RESULT:
			pthread_mutex_lock(&d->lock);
			rc = rank0_result(d, &msg);
			pthread_mutex_unlock(&d->lock);
			break;
		case TAG_BYE:
			m->byes++;
			break;
		default:
			rc = DIST_E_MPI;
		}
		free(msg.buf);
		if (rc)
			return rc;
	}
}

/* Give waiting ranks the jobs that are ready; once nothing more will be
 * handed out, tell every rank (lock held).  1 if anything was sent. */
static int rank0_serve(struct dist *d, struct dist_mpi *m)
{
	int any = 0;
	for (int r = 1; r < m->size; r++) {
		while (m->wanted[r] && !m->end_sent[r]) {
			size_t j;
			if (sched_pick(d, &j) != PICK_JOB)
				goto over;
			void *in;
			size_t in_len;
			int st = sched_input(d, j, &in, &in_len);
			if (st == 0 && in_len > (size_t)INT_MAX - sizeof(struct msg_hdr)) {
				free(in);
				in = NULL;
				in_len = 0;
				st = DIST_E_TOO_BIG;
			}
			if (st) {
				free(in);
				sched_done(d, j, st, NULL, 0);
				continue;
			}
			void *buf = pack(j, 0, false, in, in_len);
			free(in);
			if (!buf)
				return DIST_E_NOMEM;
			d->remote_running++;
			m->wanted[r]--;
			sched_progress(d);
			int rc = post_send(d, m, r, TAG_JOB, buf, sizeof(struct msg_hdr) + in_len);
			if (rc)
				return rc;
			any = 1;
		}
	}
over:
	if (!sched_over(d))
		return any;
	for (int r = 1; r < m->size; r++) {
		if (m->end_sent[r])
			continue;
		void *buf = malloc(1);
		if (!buf)
			return DIST_E_NOMEM;
		int rc = post_send(d, m, r, TAG_END, buf, 0);
		if (rc)
			return rc;
		m->end_sent[r] = true;
		any = 1;
	}
	return any;
}

static void rank0_agent(struct dist *d, struct dist_mpi *m)
{
	long us = WAIT_MIN_US;
	for (;;) {
		int got = rank0_receive(d, m);
		pthread_mutex_lock(&d->lock);
		int sent = got < 0 ? 0 : rank0_serve(d, m);
		int rc = got < 0 ? got : sent < 0 ? sent : 0;
		if (rc && !d->error) {
			d->error = rc;
			pthread_cond_broadcast(&d->work_cv);
		}
		bool finished = d->error ||
				(m->byes == m->size - 1 && d->workers_alive == 0);
		if (finished) {
			pthread_mutex_unlock(&d->lock);
			break;
		}
		us = next_wait(us, got > 0 || sent > 0, poll_max_us(d));
		if (got <= 0 && sent <= 0)
			agent_wait(d, us);
		pthread_mutex_unlock(&d->lock);
		if (reap_sends(m, false))
			mpi_fail(d);
	}
}

/* ---- the other ranks ---- */

static void fifo_push(struct dist_fifo *f, struct dist_item *it)
{
	it->next = NULL;
	if (f->tail)
		f->tail->next = it;
	else
		f->head = it;
	f->tail = it;
	f->len++;
}


static void *worker_main(void *arg)
{
	struct dist *d = arg;
	pthread_mutex_lock(&d->lock);
	for (;;) {
		bool stopping = d->local_stop || stop_requested(d) || d->error;
		if (d->inbox.len && !stopping) {
			struct dist_item *it = fifo_pop(&d->inbox);
			d->idle--;
			pthread_mutex_unlock(&d->lock);
			void *out;
			size_t out_len;
			double seconds;
			it->status = job_run(d, it->job, it->buf, it->len, &out, &out_len, &seconds);
			free(it->buf);
			it->buf = out;
			it->len = out_len;
			pthread_mutex_lock(&d->lock);
			d->run_seconds += seconds;
			d->runs_timed++;
			fifo_push(&d->outbox, it);
			d->idle++;
			pthread_cond_signal(&d->agent_cv);
			continue;
		}
		if (d->ended || stopping)
			break; /* the agent gives back what the inbox holds */
		pthread_cond_wait(&d->work_cv, &d->lock);
	}
	d->workers_alive--;
	pthread_cond_signal(&d->agent_cv);
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* A job received and not started, returned to rank 0 as such (lock held). */
static void give_back(struct dist *d, struct dist_item *it)
{
	free(it->buf);
	it->buf = NULL;
	it->len = 0;
	it->not_run = true;
	fifo_push(&d->outbox, it);
}

/* A message from rank 0 (lock held). */
static int rank_message(struct dist *d, struct dist_mpi *m, struct msg *msg)
{
	struct msg_hdr h;
	if (msg->src != 0)
		return DIST_E_MPI;
	if (msg->tag == TAG_END) {
		d->ended = true;
		pthread_cond_broadcast(&d->work_cv);
		return 0;
	}
	if (msg->tag != TAG_JOB || !read_hdr(d, msg, &h) || !m->requested)
		return DIST_E_MPI;
	struct dist_item *it = calloc(1, sizeof *it);
	if (!it)
		return DIST_E_NOMEM;
	it->job = h.job;
	it->len = msg->len - sizeof h;
	it->buf = malloc(it->len ? it->len : 1);
	if (!it->buf) {
		free(it);
		return DIST_E_NOMEM;
	}
	memcpy(it->buf, msg->buf + sizeof h, it->len);
	m->requested--;
	if (d->local_stop) {
		give_back(d, it);
	} else {
		fifo_push(&d->inbox, it);
		pthread_cond_signal(&d->work_cv);
	}
	return 0;
}

/* Send the results waiting, and ask for jobs for the idle workers (lock
 * held).  1 if anything was sent. */
static int rank_send(struct dist *d, struct dist_mpi *m)
{
	int any = 0;
	if (stop_requested(d) && !d->local_stop) {
		d->local_stop = true;
		struct dist_item *it;
		while ((it = fifo_pop(&d->inbox)))
			give_back(d, it);
		pthread_cond_broadcast(&d->work_cv);
	}
	struct dist_item *it;
	while ((it = fifo_pop(&d->outbox))) {
		if (it->len > (size_t)INT_MAX - sizeof(struct msg_hdr)) {
			it->status = DIST_E_TOO_BIG;
			it->len = 0;
		}
		void *buf = pack(it->job, it->status, it->not_run, it->buf, it->len);
		size_t len = sizeof(struct msg_hdr) + it->len;
		free(it->buf);
		free(it);
		if (!buf)
			return DIST_E_NOMEM;
		int rc = post_send(d, m, 0, TAG_RESULT, buf, len);
		if (rc)
			return rc;
		any = 1;
	}
	long want = (long)d->idle - (long)m->requested - (long)d->inbox.len;
	if (!d->ended && !d->local_stop && want > 0) {
		uint32_t w = (uint32_t)want;
		void *buf = malloc(sizeof w);
		if (!buf)
			return DIST_E_NOMEM;
		memcpy(buf, &w, sizeof w);
		int rc = post_send(d, m, 0, TAG_REQ, buf, sizeof w);
		if (rc)
			return rc;
		m->requested += w;
		any = 1;
	}
	if (d->ended && d->workers_alive == 0 && !m->bye_sent) {
		void *buf = malloc(1);
		if (!buf)
			return DIST_E_NOMEM;
		int rc = post_send(d, m, 0, TAG_BYE, buf, 0);
		if (rc)
			return rc;
		m->bye_sent = true;
		any = 1;
	}
	return any;
}

static void rank_agent(struct dist *d, struct dist_mpi *m)
{
	long us = WAIT_MIN_US;
	for (;;) {
		int got = 0, rc = 0;
		for (;;) {
			struct msg msg;
			int r = recv_msg(m, &msg);
			if (r <= 0) {
				rc = r;
				break;
			}
			got = 1;
			pthread_mutex_lock(&d->lock);
			rc = rank_message(d, m, &msg);
			pthread_mutex_unlock(&d->lock);
			free(msg.buf);
			if (rc)
				break;
		}
		pthread_mutex_lock(&d->lock);
		int sent = rc ? 0 : rank_send(d, m);
		if (sent < 0)
			rc = sent;
		if (rc && !d->error) {
			d->error = rc;
			pthread_cond_broadcast(&d->work_cv);
		}
		if (d->error || m->bye_sent) {
			pthread_mutex_unlock(&d->lock);
			break;
		}
		us = next_wait(us, got || sent > 0, poll_max_us(d));
		if (!got && sent <= 0)
			agent_wait(d, us);
		pthread_mutex_unlock(&d->lock);
		if (reap_sends(m, false))
			mpi_fail(d);
	}
}

static int mpi_setup(struct dist_mpi *m)
{
	memset(m, 0, sizeof *m);
	m->comm = MPI_COMM_NULL;
	if (MPI_Comm_dup(MPI_COMM_WORLD, &m->comm) != MPI_SUCCESS)
		return DIST_E_MPI;
	MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
	m->size = dist_n_ranks;
	m->wanted = calloc((size_t)m->size, sizeof *m->wanted);
	m->end_sent = calloc((size_t)m->size, sizeof *m->end_sent);
	return m->wanted && m->end_sent ? 0 : DIST_E_NOMEM;
}

static int run_mpi(struct dist *d)
{
	struct dist_mpi m;
	int rc = mpi_setup(&m);
	pthread_t *tid = calloc((size_t)d->threads, sizeof *tid);
	int started = 0;
	if (rc == 0 && !tid)
		rc = DIST_E_NOMEM;
	if (rc == 0) {
		started = start_workers(d, tid, d->threads, dist_my_rank == 0 ? worker0_main : worker_main);
		if (dist_my_rank == 0)
			rank0_agent(d, &m);
		else
			rank_agent(d, &m);
		join_workers(tid, started);
		/* after an error a send may never complete: its buffer is left */
		if (!d->error && reap_sends(&m, true))
			d->error = DIST_E_MPI;
		if (dist_my_rank == 0)
			rc = result0(d);
		else
			rc = d->error ? d->error : d->local_stop ? DIST_STOPPED : 0;
	}
	free(tid);
	free(m.sends);
	free(m.wanted);
	free(m.end_sent);
	if (m.comm != MPI_COMM_NULL && !d->error)
		MPI_Comm_free(&m.comm);
	return rc;
}

/* ---- one experiment over the ranks: struct ws_comm on MPI collectives ------------ */

/* An exchange is one MPI_Alltoall of fixed blocks (a length, then the first
 * bytes): small exchanges, the common case between windows, cost one
 * collective; what does not fit follows point to point. */
#define COMM_BLOCK 8192

struct dist_comm {
	MPI_Comm comm;
	int n;
	uint8_t *bs, *br;             /* [n * COMM_BLOCK] */
	MPI_Request *req;             /* [2 * n] */
};

static int comm_exchange(void *ctx, const void *send, const size_t *send_len, void **recv,
			 size_t *recv_cap, size_t *recv_len)
{
	struct dist_comm *x = ctx;
	const size_t room = COMM_BLOCK - sizeof(uint64_t);
	const uint8_t *from = send;
	for (int r = 0; r < x->n; r++) {
		uint8_t *b = x->bs + (size_t)r * COMM_BLOCK;
		uint64_t len = send_len[r];
		if (len > INT_MAX)
			return DIST_E_TOO_BIG;
		memcpy(b, &len, sizeof len);
		memcpy(b + sizeof len, from, len < room ? len : room);
		from += len;
	}
	if (MPI_Alltoall(x->bs, COMM_BLOCK, MPI_BYTE, x->br, COMM_BLOCK, MPI_BYTE,
			 x->comm) != MPI_SUCCESS)
		return DIST_E_MPI;
	size_t total = 0;
	for (int r = 0; r < x->n; r++) {
		uint64_t len;
		memcpy(&len, x->br + (size_t)r * COMM_BLOCK, sizeof len);
		recv_len[r] = len;
		total += len;
	}
	if (total > *recv_cap) {
		void *b = realloc(*recv, total);
		if (!b)
			return DIST_E_NOMEM;
		*recv = b;
		*recv_cap = total;
	}
	/* the first bytes from the blocks, the rest point to point */
	int nreq = 0;
	uint8_t *to = *recv;
	from = send;
	for (int r = 0; r < x->n; r++) {
		size_t in = recv_len[r], out = send_len[r];
		memcpy(to, x->br + (size_t)r * COMM_BLOCK + sizeof(uint64_t),
		       in < room ? in : room);
		if (in > room && MPI_Irecv(to + room, (int)(in - room), MPI_BYTE, r, 7,
					   x->comm, &x->req[nreq++]) != MPI_SUCCESS)
			return DIST_E_MPI;
		if (out > room && MPI_Isend(from + room, (int)(out - room), MPI_BYTE, r, 7,
					    x->comm, &x->req[nreq++]) != MPI_SUCCESS)
			return DIST_E_MPI;
		to += in;
		from += out;
	}
	if (nreq && MPI_Waitall(nreq, x->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
		return DIST_E_MPI;
	return 0;
}

static int comm_allgather(void *ctx, const void *mine, size_t len, void *all)
{
	struct dist_comm *x = ctx;
	if (len > INT_MAX)
		return DIST_E_TOO_BIG;
	return MPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE,
			     x->comm) == MPI_SUCCESS ? 0 : DIST_E_MPI;
}

int dist_comm_open(struct ws_comm *c)
{
	memset(c, 0, sizeof *c);
	c->size = (uint32_t)sizeof *c;
	c->ranks = 1;
	if (dist_n_ranks <= 1)
		return 0;
	struct dist_comm *x = calloc(1, sizeof *x);
	size_t n = (size_t)dist_n_ranks;
	if (!x)
		return DIST_E_NOMEM;
	x->n = dist_n_ranks;
	x->bs = malloc(2 * n * COMM_BLOCK);
	x->req = calloc(2 * n, sizeof *x->req);
	if (!x->bs || !x->req || MPI_Comm_dup(MPI_COMM_WORLD, &x->comm) != MPI_SUCCESS) {
		free(x->bs);
		free(x->req);
		free(x);
		return DIST_E_MPI;
	}
	x->br = x->bs + n * COMM_BLOCK;
	c->rank = (uint32_t)dist_my_rank;
	c->ranks = (uint32_t)dist_n_ranks;
	c->ctx = x;
	c->exchange = comm_exchange;
	c->allgather = comm_allgather;
	return 0;
}

void dist_comm_close(struct ws_comm *c)
{
	struct dist_comm *x = c->ctx;
	if (!x)
		return;
	MPI_Comm_free(&x->comm);
	free(x->bs);
	free(x->req);
	free(x);
	c->ctx = NULL;
}

#endif
