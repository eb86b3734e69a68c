/* SPDX-License-Identifier: MIT */
/*
 * Fault injection for tests (SQLite's approach: make the Nth allocation or
 * the Nth write fail, for every N over a small run, and check each ends
 * cleanly).  Preloaded into the warpsim program (LD_PRELOAD) by
 * tests/test_faults.sh; the library and plugins need no hook of their own.
 *
 *   WARPSIM_FAULT_ALLOC=N   the Nth malloc/calloc/realloc returns NULL
 *                           (ENOMEM), once;
 *   WARPSIM_FAULT_WRITE=N   at the Nth stdio write call (fputs, fprintf,
 *                           fwrite, fputc, ...) on a stream other than
 *                           stderr, the stream's file becomes /dev/full:
 *                           that write and every later one fail with
 *                           ENOSPC, as on a disk that just filled up;
 *   WARPSIM_FAULT_COUNT=PATH  write "allocs N\nwrites N\n" there at exit
 *                           (how many there were: the range to walk).
 *
 * Counting starts when this library's constructor runs (before main);
 * allocations go on to glibc's __libc_* entry points.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the build hides symbols by default: these must replace glibc's */
#pragma GCC visibility push(default)

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static unsigned long alloc_n, write_n, alloc_fail, write_fail;
static int armed;

__attribute__((constructor)) static void fault_init(void)
{
	const char *a = getenv("WARPSIM_FAULT_ALLOC");
	const char *w = getenv("WARPSIM_FAULT_WRITE");
	alloc_fail = a ? strtoul(a, NULL, 10) : 0;
	write_fail = w ? strtoul(w, NULL, 10) : 0;
	armed = 1;
}

__attribute__((destructor)) static void fault_report(void)
{
	const char *p = getenv("WARPSIM_FAULT_COUNT");
	if (!p)
		return;
	armed = 0;
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	char buf[96];
	int n = snprintf(buf, sizeof buf, "allocs %lu\nwrites %lu\n", alloc_n, write_n);
	if (n > 0 && write(fd, buf, (size_t)n) < 0)
		n = 0;
	close(fd);
}

static int alloc_fails(void)
{
	if (!armed)
		return 0;
	if (++alloc_n != alloc_fail)
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return alloc_fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return alloc_fails() ? NULL : __libc_realloc(p, n);
}

/* Count a write on `f`; at the Nth, the disk "fills up" under it. */
static void write_call(FILE *f)
{
	if (!armed || f == stderr)
		return;
	if (++write_n != write_fail)
		return;
	int full = open("/dev/full", O_WRONLY);
	if (full >= 0) {
		dup2(full, fileno(f));
		close(full);
	}
}

typedef int (*vfprintf_fn)(FILE *, const char *, va_list);
typedef int (*fputs_fn)(const char *, FILE *);
typedef int (*puts_fn)(const char *);
typedef int (*fputc_fn)(int, FILE *);
typedef size_t (*fwrite_fn)(const void *, size_t, size_t, FILE *);

/* The next definition of `name` (glibc's), looked up once. */
#define REAL(name) \
	static name##_fn real_##name; \
	if (!real_##name) \
		real_##name = (name##_fn)dlsym(RTLD_NEXT, #name)

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	REAL(vfprintf);
	write_call(f);
	return real_vfprintf(f, fmt, ap);
}

int fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}

int fputs(const char *s, FILE *f)
{
	REAL(fputs);
	write_call(f);
	return real_fputs(s, f);
}

int puts(const char *s)
{
	REAL(puts);
	write_call(stdout);
	return real_puts(s);
}

int fputc(int c, FILE *f)
{
	REAL(fputc);
	write_call(f);
	return real_fputc(c, f);
}

int putc(int c, FILE *f)
{
	return fputc(c, f);
}

int putchar(int c)
{
	return fputc(c, stdout);
}

size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	REAL(fwrite);
	write_call(f);
	return real_fwrite(p, size, n, f);
}
