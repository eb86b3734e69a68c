/* SPDX-License-Identifier: MIT */
/*
 * dist_mpi: tools/dist.c over MPI ranks (tests/test_dist_mpi.sh runs it
 * under `mpirun -n 2`).  Three runs in a row, every rank taking part:
 *   1. 48 jobs, 2 workers per rank, each sleeping 2-5 ms; jobs 24-47 wait
 *      for job j - 24 (ready()); every job's input names it and its result
 *      says which rank ran it and echoes the input; every eleventh job
 *      fails; jobs j % 8 == 5 return 300 kB (past every eager limit, so
 *      the ranks send each other large messages at once).  Rank 0 checks
 *      each job done exactly once with its status and bytes, no job run
 *      before its dependency was done, and that both ranks ran jobs.
 *   2. the stop flag set on rank 0 after 6 jobs: DIST_STOPPED, no job done
 *      twice, the jobs shipped to rank 1 come back.
 *   3. a job never ready: DIST_E_STUCK on rank 0, every other job done,
 *      rank 1 released.
 *   4. the stop flag set on rank 1 only, at the end of its second job,
 *      while jobs 4-47 wait for jobs 0-3 to be done: the request of rank
 *      1's other, idle worker is answered after the stop, so (in the usual
 *      case where rank 1 runs two of jobs 0-3) rank 1 gives that job back.
 *      Rank 1 returns DIST_STOPPED; rank 0 does the rest, every job done
 *      exactly once.
 *   5. the same with the last job: 5 jobs, rank 0's workers busy with jobs
 *      0 and 1 (100 ms), rank 1 running 2 and 3 and stopping after them,
 *      job 4 waiting for 2 and 3: job 4 goes to rank 1, comes back, and
 *      rank 0 runs it (dist_run must not end while a job may come back).
 * Exits 0 when every check holds (on every rank), 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist.h"

#define N_JOBS 48
#define BIG_LEN 300000

struct mjobs {
	size_t n;
	bool never_ready[N_JOBS];
	int done_count[N_JOBS];
	bool finished[N_JOBS];
	int by_rank[2];
	int errors;
	size_t n_done, stop_after;
	bool first_wave;       /* jobs 4.. wait for jobs 0-3 */
	bool last_waits;       /* job 4 waits for jobs 2 and 3, jobs 0-1 last 100 ms */
	int stop_rank1_after;  /* rank 1 stops itself after this many runs */
	atomic_int rank1_runs;
	volatile sig_atomic_t stop;
};

static int fails(size_t j)
{
	return j % 11 == 7 ? (int)(100 + j) : 0;
}

static size_t dep_of(size_t j)
{
	return j >= N_JOBS / 2 ? j - N_JOBS / 2 : (size_t)-1;
}

static bool mj_ready(void *ctx, size_t j)
{
	const struct mjobs *m = ctx;
	size_t d = dep_of(j);
	if (m->first_wave && j >= 4)
		for (size_t k = 0; k < 4; k++)
			if (!m->finished[k])
				return false;
	if (m->last_waits && j == 4 && !(m->finished[2] && m->finished[3]))
		return false;
	return !m->never_ready[j] && (d == (size_t)-1 || m->finished[d]);
}

static int mj_input(void *ctx, size_t j, void **in, size_t *len)
{
	char buf[32];
	int k = snprintf(buf, sizeof buf, "job-%zu", j);
	*in = malloc((size_t)k);
	memcpy(*in, buf, (size_t)k);
	*len = (size_t)k;
	return 0;
}

/* "rank R job J in [input] dep-done D", then for big jobs a pattern. */
static int mj_run(void *ctx, size_t j, const void *in, size_t in_len, void **out,
		  size_t *out_len)
{
	struct mjobs *m = ctx;
	long ms = m->last_waits && j < 2 ? 100 : (long)(2 + j % 4);
	struct timespec ts = { 0, ms * 1000000 };
	nanosleep(&ts, NULL);
	if (dist_rank() == 1 && m->stop_rank1_after &&
	    atomic_fetch_add(&m->rank1_runs, 1) + 1 == m->stop_rank1_after)
		m->stop = 1;
	char head[96];
	int k = snprintf(head, sizeof head, "rank %d job %zu in [%.*s]", dist_rank(), j,
			 (int)in_len, (const char *)in);
	size_t big = j % 8 == 5 ? BIG_LEN : 0;
	unsigned char *o = malloc((size_t)k + 1 + big);
	memcpy(o, head, (size_t)k + 1);
	for (size_t i = 0; i < big; i++)
		o[k + 1 + i] = (unsigned char)(i * 31 + j);
	*out = o;
	*out_len = (size_t)k + 1 + big;
	return fails(j);
}

static void mj_done(void *ctx, size_t j, int status, const void *out, size_t len)
{
	struct mjobs *m = ctx;
	const unsigned char *o = out;
	int rank = -1;
	char want[64];
	snprintf(want, sizeof want, " job %zu in [job-%zu]", j, j);
	size_t head = strnlen(out, len);
	size_t big = j % 8 == 5 ? BIG_LEN : 0;
	if (head == len || len != head + 1 + big || sscanf(out, "rank %d", &rank) != 1 ||
	    rank < 0 || rank > 1 || !strstr(out, want)) {
		fprintf(stderr, "dist_mpi: job %zu: bad result (%zu bytes)\n", j, len);
		m->errors++;
	} else {
		for (size_t i = 0; i < big; i++)
			if (o[head + 1 + i] != (unsigned char)(i * 31 + j)) {
				fprintf(stderr, "dist_mpi: job %zu: byte %zu differs\n", j, i);
				m->errors++;
				break;
			}
		m->by_rank[rank]++;
	}
	if (status != fails(j)) {
		fprintf(stderr, "dist_mpi: job %zu: status %d, expected %d\n", j, status, fails(j));
		m->errors++;
	}
	size_t d = dep_of(j);
	if (d != (size_t)-1 && !m->finished[d]) {
		fprintf(stderr, "dist_mpi: job %zu done before job %zu\n", j, d);
		m->errors++;
	}
	m->done_count[j]++;
	m->finished[j] = true;
	if (++m->n_done == m->stop_after)
		m->stop = 1;
}

static const struct dist_ops mj_ops = {
	.ready = mj_ready, .input = mj_input, .run = mj_run, .done = mj_done,
};

static int check(bool ok, const char *what)
{
	if (!ok)
		fprintf(stderr, "dist_mpi: rank %d: %s\n", dist_rank(), what);
	return ok ? 0 : 1;
}

/* One run; the number of failed checks on this rank. */
static int one_run(int which, size_t *order)
{
	struct mjobs m = { .n = N_JOBS };
	int want = 0;
	size_t n = N_JOBS;
	size_t five[] = { 0, 1, 2, 3, 4 };
	if (which == 2) {
		m.stop_after = 6;
		want = DIST_STOPPED;
	} else if (which == 3) {
		m.never_ready[9] = true;
		want = DIST_E_STUCK;
	} else if (which == 4) {
		m.first_wave = true;
		m.stop_rank1_after = 2;
	} else if (which == 5) {
		m.last_waits = true;
		m.stop_rank1_after = 2;
		n = 5;
		order = five;
	}
	int rc = dist_run(n, order, 2, &mj_ops, &m, &m.stop);
	if (rc == DIST_E_MPI)
		dist_abort(1);
	if (dist_rank() != 0)
		return check(rc == (which >= 4 ? DIST_STOPPED : 0), "unexpected dist_run status");
	int bad = check(rc == want, "unexpected dist_run status") + check(!m.errors, "bad results");
	size_t once = 0;
	for (size_t j = 0; j < n; j++) {
		bad += check(m.done_count[j] <= 1, "a job done twice");
		once += m.done_count[j] == 1;
	}
	if (which == 1 || which >= 4)
		bad += check(once == n, "a job never done");
	if (which == 1) {
		bad += check(m.by_rank[0] > 0 && m.by_rank[1] > 0, "a rank ran no job");
	} else if (which >= 4) {
		bad += check(m.by_rank[1] <= 2, "rank 1 went on after its stop");
	} else if (which == 2) {
		bad += check(once >= 6 && once < N_JOBS, "the stop did not stop");
	} else {
		bad += check(once == N_JOBS - 1 - 1 && !m.done_count[9] && !m.done_count[33],
			     "the stuck run did not do every other job");
	}
	printf("dist_mpi: run %d: rc %d, %zu jobs done, rank 0 ran %d, rank 1 ran %d\n", which,
	       rc, once, m.by_rank[0], m.by_rank[1]);
	return bad;
}

int main(int argc, char **argv)
{
	if (dist_init(&argc, &argv)) {
		fprintf(stderr, "dist_mpi: MPI start-up failed\n");
		return 1;
	}
	int bad = check(dist_size() == 2, "expected 2 ranks (run under mpirun -n 2)");
	size_t order[N_JOBS];
	for (size_t i = 0; i < N_JOBS; i++)
		order[i] = N_JOBS - 1 - i;
	/* every rank takes part in every run, whatever it found */
	for (int which = 1; which <= 5; which++)
		bad += one_run(which, order);
	dist_finalize();
	return bad ? 1 : 0;
}
