/* SPDX-License-Identifier: MIT */
/* Helpers the warpsim program's commands share. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools.h"

void *tool_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fprintf(stderr, "warpsim: out of memory (%zu x %zu bytes)\n", n, size);
		exit(EXIT_RUN);
	}
	return p;
}

void *tool_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		fprintf(stderr, "warpsim: out of memory (%zu x %zu bytes)\n", n, size);
		exit(EXIT_RUN);
	}
	size_t bytes = n * size;
	void *q = realloc(p, bytes ? bytes : 1);
	if (!q) {
		fprintf(stderr, "warpsim: out of memory (%zu x %zu bytes)\n", n, size);
		exit(EXIT_RUN);
	}
	return q;
}

double tool_wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double tool_cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void tool_print_error(const struct ws_err *err)
{
	char buf[2048];
	ws_err_format(err, buf, sizeof buf);
	fprintf(stderr, "warpsim: %s\n", buf);
}

void tool_fmt_time(char *buf, size_t n, ws_time t)
{
	if (t >= WS_SEC)
		snprintf(buf, n, "%.6f s", (double)t / 1e12);
	else if (t >= WS_MS)
		snprintf(buf, n, "%.6f ms", (double)t / 1e9);
	else
		snprintf(buf, n, "%.3f us", (double)t / 1e6);
}

int tool_finish_stdout(int status)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	fprintf(stderr, "warpsim: writing the standard output failed: %s\n",
		strerror(errno ? errno : EIO));
	return status ? status : EXIT_RUN;
}

struct ws_outfile *tool_outfile_open(const char *path, struct ws_err *err)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return ws_outfile_open(".", path, err);
	char dir[4096];
	size_t n = (size_t)(slash - path);
	if (n >= sizeof dir) {
		ws_err_set(err, WS_EINVAL, "%s: path too long", path);
		return NULL;
	}
	memcpy(dir, path, n);
	dir[n] = '\0';
	return ws_outfile_open(n ? dir : "/", slash + 1, err);
}

/* ---- signals: stop at the next event, keep what was simulated ---------------------- */

/* The first SIGINT/SIGTERM received (0: none): the program's only mutable
 * global, as a signal handler needs one.  A second signal ends the
 * process at once. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	int saved = errno;
	if (__atomic_load_n(&stop_signal, __ATOMIC_RELAXED)) {
		static const char msg[] = "\nwarpsim: second signal: exiting at once, "
					  "outputs not written\n";
		ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
		(void)w;
		_exit(128 + sig);
	}
	/* atomic: worker threads read it (a lock-free int store is
	 * async-signal-safe) */
	__atomic_store_n(&stop_signal, sig, __ATOMIC_RELAXED);
	errno = saved;
}

const volatile sig_atomic_t *tool_stop_signals(bool install)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = install ? on_stop_signal : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return &stop_signal;
}

int tool_stop_signal(void)
{
	return __atomic_load_n(&stop_signal, __ATOMIC_RELAXED);
}

int tool_mkdir_p(const char *dir, struct ws_err *err)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
		return ws_err_set(err, WS_EINVAL, "%s: path too long", dir);
	for (char *c = path + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		if (mkdir(path, 0777) && errno != EEXIST)
			return ws_err_at(err, WS_EIO, path, 0, "cannot create the directory: %s",
					 strerror(errno));
		*c = '/';
	}
	if (mkdir(path, 0777) && errno != EEXIST)
		return ws_err_at(err, WS_EIO, path, 0, "cannot create the directory: %s",
				 strerror(errno));
	return WS_OK;
}
