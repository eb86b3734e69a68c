/* SPDX-License-Identifier: MIT */
/*
 * tools/dist.c on one process (the pool of worker threads): fake jobs,
 * some failing, some sleeping, some not ready until others are done, with
 * 1, 2 and 4 threads: every job done exactly once with its status and its
 * result bytes (which carry its input bytes), no job run before the jobs
 * it depends on are done, never more than `threads` jobs running and the
 * pool filling all `threads` when the jobs wait; the stop flag (nothing
 * starts after it, every started job is done); jobs never ready (the run
 * ends, DIST_E_STUCK, no hang); bad arguments.
 *
 * Callbacks run on worker threads, where cmocka must not assert: they
 * record what they saw and the test checks it after dist_run.
 */
#define _POSIX_C_SOURCE 200809L
#include "th.h"
#include "dist.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_JOBS 64
#define MAX_DEPS 2

struct fake {
	size_t n;
	int threads;
	size_t deps[MAX_JOBS][MAX_DEPS]; /* job j runs after these are done */
	int n_deps[MAX_JOBS];
	bool never_ready[MAX_JOBS];
	long sleep_us[MAX_JOBS];
	bool fill;                       /* run() waits until `threads` run at once */
	size_t stop_after;               /* set *stop after this many done (0: never) */
	volatile sig_atomic_t stop;

	/* written by run() on the workers */
	atomic_int running, max_running;
	atomic_int runs[MAX_JOBS];
	atomic_int run_before_deps;      /* run() found a dependency not done */
	atomic_int fill_timeouts;
	atomic_int bad_input;
	/* written by done()/progress() (serialized by dist) */
	int done_count[MAX_JOBS];
	bool finished[MAX_JOBS];
	int bad_status, bad_bytes;
	size_t n_done, progress_calls, progress_bad;
	size_t last_started;             /* done + running at the last tick */
	size_t started_at_stop;          /* last_started when *stop was set */
	int start_after_stop;            /* a tick after the stop counted more */
};

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

/* Job j's expected failure status (0: it succeeds). */
static int expected_status(size_t j)
{
	return j % 7 == 3 ? (int)(10 + j) : 0;
}

/* Jobs j % 5 == 4 ship no input. */
static void expected_input(size_t j, char *buf, size_t n)
{
	if (j % 5 == 4)
		buf[0] = 0;
	else
		snprintf(buf, n, "in-%zu", j);
}

static void expected_result(size_t j, char *buf, size_t n)
{
	char in[32];
	expected_input(j, in, sizeof in);
	snprintf(buf, n, "job %zu got [%s]", j, in);
}

static bool fake_ready(void *ctx, size_t j)
{
	struct fake *f = ctx;
	if (f->never_ready[j])
		return false;
	for (int i = 0; i < f->n_deps[j]; i++)
		if (!f->finished[f->deps[j][i]])
			return false;
	return true;
}

static int fake_input(void *ctx, size_t j, void **in, size_t *len)
{
	char buf[32];
	expected_input(j, buf, sizeof buf);
	if (!buf[0])
		return 0;
	*len = strlen(buf);
	*in = malloc(*len);
	memcpy(*in, buf, *len);
	return 0;
}

static void fake_wait_fill(struct fake *f)
{
	for (int waited = 0; atomic_load(&f->max_running) < f->threads; waited++) {
		if (waited == 50000) { /* 5 s */
			atomic_fetch_add(&f->fill_timeouts, 1);
			return;
		}
		sleep_us(100);
	}
}

static int fake_run(void *ctx, size_t j, const void *in, size_t in_len, void **out,
		    size_t *out_len)
{
	struct fake *f = ctx;
	int now = atomic_fetch_add(&f->running, 1) + 1;
	int max = atomic_load(&f->max_running);
	while (now > max && !atomic_compare_exchange_weak(&f->max_running, &max, now))
		;
	atomic_fetch_add(&f->runs[j], 1);
	for (int i = 0; i < f->n_deps[j]; i++)
		if (!f->finished[f->deps[j][i]])
			atomic_fetch_add(&f->run_before_deps, 1);
	char want[32];
	expected_input(j, want, sizeof want);
	if (in_len != strlen(want) || (in_len && memcmp(in, want, in_len)))
		atomic_fetch_add(&f->bad_input, 1);
	if (f->fill)
		fake_wait_fill(f);
	if (f->sleep_us[j])
		sleep_us(f->sleep_us[j]);
	char res[64];
	expected_result(j, res, sizeof res);
	*out_len = strlen(res);
	*out = malloc(*out_len);
	memcpy(*out, res, *out_len);
	atomic_fetch_sub(&f->running, 1);
	return expected_status(j);
}

static void fake_done(void *ctx, size_t j, int status, const void *out, size_t len)
{
	struct fake *f = ctx;
	char res[64];
	expected_result(j, res, sizeof res);
	f->done_count[j]++;
	f->finished[j] = true;
	if (status != expected_status(j))
		f->bad_status++;
	if (len != strlen(res) || memcmp(out, res, len))
		f->bad_bytes++;
	f->n_done++;
	if (f->stop_after && f->n_done == f->stop_after) {
		f->stop = 1;
		f->started_at_stop = f->last_started;
	}
}

static void fake_progress(void *ctx, size_t done, size_t total, size_t running)
{
	struct fake *f = ctx;
	f->progress_calls++;
	if (done != f->n_done || total != f->n || running > (size_t)f->threads)
		f->progress_bad++;
	/* a start is a tick with more started (done + running) than before */
	f->last_started = done + running;
	if (f->stop && f->last_started > f->started_at_stop)
		f->start_after_stop++;
}

static const struct dist_ops fake_ops = {
	.ready = fake_ready,
	.input = fake_input,
	.run = fake_run,
	.done = fake_done,
	.progress = fake_progress,
};

static struct fake *fake_new(size_t n, int threads)
{
	struct fake *f = calloc(1, sizeof *f);
	assert_non_null(f);
	f->n = n;
	f->threads = threads;
	return f;
}

/* Run f's jobs in reverse order (the first ones in the order are the last
 * to become ready when they depend on lower numbers). */
static int fake_run_all(struct fake *f)
{
	size_t order[MAX_JOBS];
	for (size_t i = 0; i < f->n; i++)
		order[i] = f->n - 1 - i;
	return dist_run(f->n, order, f->threads, &fake_ops, f, &f->stop);
}

static void check_common(struct fake *f)
{
	assert_int_equal(atomic_load(&f->bad_input), 0);
	assert_int_equal(f->bad_status, 0);
	assert_int_equal(f->bad_bytes, 0);
	assert_int_equal(atomic_load(&f->run_before_deps), 0);
	assert_int_equal(f->start_after_stop, 0);
	assert_int_equal(f->progress_bad, 0);
	assert_true(atomic_load(&f->max_running) <= f->threads);
	assert_int_equal(atomic_load(&f->running), 0);
	for (size_t j = 0; j < f->n; j++)
		assert_int_equal(atomic_load(&f->runs[j]), f->done_count[j]);
}

/* 24 jobs in three waves (job j >= 8 waits for j - 8, job j >= 16 also for
 * j - 13), sleeping 0-3 ms, every seventh failing. */
static void waves(int threads)
{
	struct fake *f = fake_new(24, threads);
	for (size_t j = 0; j < f->n; j++) {
		f->sleep_us[j] = (long)(j % 4) * 1000;
		if (j >= 8)
			f->deps[j][f->n_deps[j]++] = j - 8;
		if (j >= 16)
			f->deps[j][f->n_deps[j]++] = j - 13;
	}
	assert_int_equal(fake_run_all(f), 0);
	check_common(f);
	for (size_t j = 0; j < f->n; j++)
		assert_int_equal(f->done_count[j], 1);
	assert_int_equal(f->n_done, f->n);
	/* one tick per start and per done */
	assert_int_equal(f->progress_calls, 2 * f->n);
	free(f);
}

static void test_waves_1(void **state)
{
	waves(1);
}

static void test_waves_2(void **state)
{
	waves(2);
}

static void test_waves_4(void **state)
{
	waves(4);
}

/* Independent jobs that wait until `threads` of them run at once: the pool
 * keeps every worker busy (and never more). */
static void fill(int threads)
{
	struct fake *f = fake_new(3 * (size_t)threads, threads);
	f->fill = true;
	assert_int_equal(fake_run_all(f), 0);
	check_common(f);
	assert_int_equal(atomic_load(&f->fill_timeouts), 0);
	assert_int_equal(atomic_load(&f->max_running), threads);
	assert_int_equal(f->n_done, f->n);
	free(f);
}

static void test_fill(void **state)
{
	fill(1);
	fill(2);
	fill(4);
}

/* Stop after 5 of 30 jobs: nothing starts after, every started job done. */
static void test_stop(void **state)
{
	for (int threads = 1; threads <= 4; threads *= 2) {
		struct fake *f = fake_new(30, threads);
		for (size_t j = 0; j < f->n; j++)
			f->sleep_us[j] = 1000;
		f->stop_after = 5;
		assert_int_equal(fake_run_all(f), DIST_STOPPED);
		check_common(f);
		assert_true(f->n_done >= 5 && f->n_done <= 5 + (size_t)threads - 1);
		for (size_t j = 0; j < f->n; j++)
			assert_true(f->done_count[j] <= 1);
		free(f);
	}
}

/* A stop that comes when every job has started is no stop. */
static void test_stop_last(void **state)
{
	struct fake *f = fake_new(6, 2);
	f->stop_after = 6;
	assert_int_equal(fake_run_all(f), 0);
	assert_int_equal(f->n_done, 6);
	free(f);
}

/* Job 3 is never ready and job 5 waits for it: the others are done, then
 * dist_run gives up instead of waiting forever. */
static void test_stuck(void **state)
{
	for (int threads = 1; threads <= 4; threads *= 2) {
		struct fake *f = fake_new(12, threads);
		f->never_ready[3] = true;
		f->deps[5][f->n_deps[5]++] = 3;
		for (size_t j = 0; j < f->n; j++)
			f->sleep_us[j] = 500;
		assert_int_equal(fake_run_all(f), DIST_E_STUCK);
		check_common(f);
		for (size_t j = 0; j < f->n; j++)
			assert_int_equal(f->done_count[j], j == 3 || j == 5 ? 0 : 1);
		free(f);
	}
}

/* A job whose input() fails is done() with that status, not run. */
static int failing_input(void *ctx, size_t j, void **in, size_t *len)
{
	if (j == 2) {
		*in = malloc(4);
		return -7;
	}
	return fake_input(ctx, j, in, len);
}

static int seen_status[4];

static void record_done(void *ctx, size_t j, int status, const void *out, size_t len)
{
	seen_status[j] = status;
}

static void test_input_fails(void **state)
{
	struct fake *f = fake_new(4, 2);
	struct dist_ops ops = fake_ops;
	ops.input = failing_input;
	ops.done = record_done;
	ops.progress = NULL;
	size_t order[] = { 0, 1, 2, 3 };
	assert_int_equal(dist_run(4, order, 2, &ops, f, NULL), 0);
	assert_int_equal(atomic_load(&f->runs[2]), 0);
	assert_int_equal(seen_status[2], -7);
	assert_int_equal(seen_status[3], expected_status(3));
	assert_int_equal(seen_status[0], 0);
	free(f);
}

static void test_bad_args(void **state)
{
	struct fake *f = fake_new(3, 1);
	size_t dup[] = { 0, 1, 1 };
	size_t out_of_range[] = { 0, 1, 3 };
	size_t good[] = { 2, 0, 1 };
	assert_int_equal(dist_run(3, dup, 1, &fake_ops, f, NULL), DIST_E_INVAL);
	assert_int_equal(dist_run(3, out_of_range, 1, &fake_ops, f, NULL), DIST_E_INVAL);
	assert_int_equal(dist_run(3, good, 0, &fake_ops, f, NULL), DIST_E_INVAL);
	assert_int_equal(dist_run(3, NULL, 1, &fake_ops, f, NULL), DIST_E_INVAL);
	struct dist_ops no_run = fake_ops;
	no_run.run = NULL;
	assert_int_equal(dist_run(3, good, 1, &no_run, f, NULL), DIST_E_INVAL);
	/* no jobs: nothing called */
	assert_int_equal(dist_run(0, NULL, 2, &fake_ops, f, NULL), 0);
	assert_int_equal(f->progress_calls, 0);
	assert_int_equal(f->n_done, 0);
	/* without MPI launch: rank 0 of 1 */
	assert_int_equal(dist_rank(), 0);
	assert_int_equal(dist_size(), 1);
	free(f);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waves_1),
		cmocka_unit_test(test_waves_2),
		cmocka_unit_test(test_waves_4),
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_stop_last),
		cmocka_unit_test(test_stuck),
		cmocka_unit_test(test_input_fails),
		cmocka_unit_test(test_bad_args),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
