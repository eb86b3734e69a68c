/* SPDX-License-Identifier: MIT */
/*
 * dist_jobs: the cost of tools/dist.c's machinery per job.  Runs N jobs
 * that do nothing but return 16 result bytes, on THREADS workers per rank,
 * and prints the wall time per job: everything dist does around a job
 * (the pick under the lock, the input, the hand-over to a worker, done(),
 * and under mpirun the messages).  bench/dist.sh runs it.
 *
 * usage: bench/dist_jobs N THREADS [WORK_US]
 *   WORK_US: each job sleeps that many microseconds (default 0).  Sleeping,
 *   not spinning: the figure is then the pool's own latency and cost, not
 *   the share of the (shared, busy) cores the job got; the sleep's own
 *   overshoot (the kernel's timer slack, ~50-100 us) is in every job and
 *   shows in the 1-thread line.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist.h"

struct bench {
	long work_us;
	size_t done, by_rank0;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_run(void *ctx, size_t j, const void *in, size_t in_len, void **out,
		     size_t *out_len)
{
	const struct bench *b = ctx;
	if (b->work_us) {
		struct timespec ts = { b->work_us / 1000000, (b->work_us % 1000000) * 1000 };
		nanosleep(&ts, NULL);
	}
	*out = calloc(1, 16);
	if (!*out)
		return 1;
	((unsigned char *)*out)[0] = (unsigned char)dist_rank();
	*out_len = 16;
	return 0;
}

static void bench_done(void *ctx, size_t j, int status, const void *out, size_t len)
{
	struct bench *b = ctx;
	b->done++;
	if (len == 16 && ((const unsigned char *)out)[0] == 0)
		b->by_rank0++;
}

int main(int argc, char **argv)
{
	if (dist_init(&argc, &argv)) {
		fprintf(stderr, "dist_jobs: MPI start-up failed\n");
		return 1;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: dist_jobs N THREADS [WORK_US]\n");
		dist_finalize();
		return 2;
	}
	size_t n = strtoull(argv[1], NULL, 10);
	int threads = atoi(argv[2]);
	struct bench b = { .work_us = argc > 3 ? atol(argv[3]) : 0 };
	size_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order)
		return 1;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	const struct dist_ops ops = { .run = bench_run, .done = bench_done };
	double t0 = now_s();
	int rc = dist_run(n, order, threads, &ops, &b, NULL);
	double wall = now_s() - t0;
	if (rc == DIST_E_MPI)
		dist_abort(1);
	if (dist_rank() == 0) {
		double ideal = (double)n * (double)b.work_us * 1e-6 /
			       ((double)threads * dist_size());
		printf("ranks %d threads %d jobs %zu work_us %ld: wall %.3f s, %.2f us/job, "
		       "overhead %.2f us/job (over the work spread evenly), rank 0 ran %zu, rc %d\n",
		       dist_size(), threads, n, b.work_us, wall, wall * 1e6 / (double)n,
		       (wall - ideal) * 1e6 / (double)n * threads * dist_size(), b.by_rank0, rc);
	}
	free(order);
	dist_finalize();
	return rc == 0 && (dist_rank() != 0 || b.done == n) ? 0 : 1;
}
