/* SPDX-License-Identifier: MIT */
/*
 * Small services every kernel file uses: errors, assertions, checked
 * allocation, the configuration arena, random streams, wall time.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xxhash.h>

#include "internal.h"

/* ---- errors -------------------------------------------------------------- */

static int err_vset(struct ws_err *err, int code, const char *file, int line,
		    const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	err->line = line;
	err->key[0] = '\0';
	snprintf(err->file, sizeof err->file, "%s", file ? file : "");
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	return code;
}

int ws_err_set(struct ws_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(err, code, NULL, 0, fmt, ap);
	va_end(ap);
	return code;
}

int ws_err_at(struct ws_err *err, int code, const char *file, int line,
	      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(err, code, file, line, fmt, ap);
	va_end(ap);
	return code;
}

int ws_err_key(struct ws_err *err, int code, const char *key, const char *fmt,
	       ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(err, code, NULL, 0, fmt, ap);
	va_end(ap);
	if (err && key)
		snprintf(err->key, sizeof err->key, "%s", key);
	return code;
}

void ws_err_clear(struct ws_err *err)
{
	/* every field empty; the strings' first bytes, not their 1.7 KB
	 * (the collective engine clears one per task it starts) */
	if (!err)
		return;
	err->code = err->line = 0;
	err->file[0] = err->key[0] = err->msg[0] = '\0';
}

void ws_err_prefix(struct ws_err *err, const char *fmt, ...)
{
	if (!err)
		return;
	char buf[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	size_t pre = w < 0 ? 0 : WS_MIN((size_t)w, sizeof buf - 1);
	size_t len = strlen(err->msg);
	if (pre + len > sizeof buf - 1)
		len = sizeof buf - 1 - pre;
	memcpy(buf + pre, err->msg, len);
	buf[pre + len] = '\0';
	memcpy(err->msg, buf, pre + len + 1);
}

void ws_err_locate(struct ws_err *err, const char *file, int line)
{
	if (!err)
		return;
	int w = snprintf(err->file, sizeof err->file, "%s", file ? file : "");
	(void)w;
	err->line = line;
}

size_t ws_err_format(const struct ws_err *err, char *buf, size_t size)
{
	int n;
	if (err->file[0] && err->line > 0)
		n = snprintf(buf, size, "%s:%d: %s", err->file, err->line, err->msg);
	else if (err->file[0])
		n = snprintf(buf, size, "%s: %s", err->file, err->msg);
	else
		n = snprintf(buf, size, "%s", err->msg);
	return n < 0 ? 0 : (size_t)n;
}

/*
 * The one place the library writes to the terminal: a failure it cannot
 * return from (a broken internal invariant, memory exhausted), told on
 * stderr just before abort() (memory: exit(1), ws_fatal_oom).  Everything
 * a run has to say otherwise goes through errors and the ws_opts callbacks.
 */
static void fatal_report(const char *msg)
{
	fprintf(stderr, "warpsim: %s\n", msg);
}

_Noreturn void ws_fatal(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fatal_report(msg);
	abort();
}

/*
 * Memory exhausted where the code cannot return an error (the event queue,
 * the packet pool, the fabric arrays): a message and exit status 1, never
 * abort(), so that a program (and its user) sees an ordinary failure.
 * Large requests are refused earlier with an estimate (ws_mem_check).
 */
_Noreturn void ws_fatal_oom(size_t n, size_t size)
{
	char msg[256];
	snprintf(msg, sizeof msg, "out of memory (%zu x %zu bytes): the run is too "
		 "large for this machine's memory or its limits", n, size);
	fatal_report(msg);
	exit(EXIT_FAILURE);
}

_Noreturn void ws_assert_fail(const char *file, int line, const char *expr,
			      const char *fmt, ...)
{
	char why[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	ws_fatal("internal error at %s:%d: assertion '%s' failed: %s", file, line,
		 expr, why);
}

/* ---- allocation ------------------------------------------------------------ */

void *ws_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		ws_fatal_oom(n, size);
	return p;
}

void *ws_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		ws_fatal("allocation overflow (%zu x %zu bytes)", n, size);
	void *q = realloc(p, (n * size) != 0 ? n * size : 1);
	if (!q)
		ws_fatal_oom(n, size);
	return q;
}

char *ws_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = ws_xcalloc(1, n);
	memcpy(d, s, n);
	return d;
}

/* ---- arena ------------------------------------------------------------------ */

struct ws_arena_blk {
	struct ws_arena_blk *next;
	size_t used, size;
	max_align_t data[];
};

void *ws_arena_alloc(struct ws_arena *a, size_t size)
{
	const size_t align = sizeof(max_align_t);
	size = (size + align - 1) / align * align;
	struct ws_arena_blk *b = a->head;
	if (!b || b->size - b->used < size) {
		size_t cap = size > 16384 ? size : 16384;
		b = ws_xcalloc(1, sizeof *b + cap);
		b->size = cap;
		b->next = a->head;
		a->head = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += size;
	return p;
}

char *ws_arena_strdup(struct ws_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = ws_arena_alloc(a, n);
	memcpy(d, s, n);
	return d;
}

void ws_arena_free(struct ws_arena *a)
{
	struct ws_arena_blk *b = a->head;
	while (b) {
		struct ws_arena_blk *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
}

/* ---- random streams (splitmix64) -------------------------------------------- */

void ws_rng_seed(struct ws_rng *rng, uint64_t run_seed, uint64_t component_id)
{
	rng->state = XXH64(&component_id, sizeof component_id, run_seed);
}

uint64_t ws_rng_next(struct ws_rng *rng)
{
	return ws_mix64(rng->state += 0x9e3779b97f4a7c15ull);
}

double ws_rng_uniform(struct ws_rng *rng)
{
	return (double)(ws_rng_next(rng) >> 11) * 0x1.0p-53;
}

uint64_t ws_rng_below(struct ws_rng *rng, uint64_t n)
{
	/* rejection sampling: unbiased */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;
	do
		x = ws_rng_next(rng);
	while (x >= limit);
	return x % n;
}

double ws_cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double ws_wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool ws_text_u64(const char *s, uint64_t *out)
{
	if (!*s || !isdigit((unsigned char)*s))
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool ws_text_blank(const char *line)
{
	while (isspace((unsigned char)*line))
		line++;
	return *line == '\0' || *line == '#';
}

/* Room for one more byte in a line buffer of at most max + 1 bytes. */
static int line_room(char **buf, size_t *cap, size_t len)
{
	if (len + 1 < *cap)
		return WS_OK;
	size_t want = *cap ? *cap * 2 : 256;
	char *nb = realloc(*buf, want);
	if (!nb)
		return WS_ENOMEM;
	*buf = nb;
	*cap = want;
	return WS_OK;
}

int ws_text_line(FILE *f, char **buf, size_t *cap, size_t max,
		 const char *file, int *lineno, struct ws_err *err)
{
	size_t len = 0;
	int c = EOF;
	if (line_room(buf, cap, 0))
		return ws_err_at(err, WS_ENOMEM, file, *lineno + 1, "out of memory");
	++*lineno;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0')
			return ws_err_at(err, WS_EINVAL, file, *lineno,
					 "line %d holds a NUL byte (not a text file?)",
					 *lineno);
		if (len >= max)
			return ws_err_at(err, WS_EINVAL, file, *lineno,
					 "line %d longer than %zu bytes (not a text "
					 "file?)", *lineno, max);
		if (line_room(buf, cap, len))
			return ws_err_at(err, WS_ENOMEM, file, *lineno,
					 "out of memory reading line %d", *lineno);
		(*buf)[len++] = (char)c;
	}
	if (ferror(f))
		return ws_err_at(err, WS_EIO, file, *lineno, "read error: %s",
				 strerror(errno));
	if (c == EOF && len == 0) {
		--*lineno;
		return 0;
	}
	if (len && (*buf)[len - 1] == '\r')
		len--;
	(*buf)[len] = '\0';
	return 1;
}

int ws_sized_in(void *dst, size_t dst_size, const void *src, const char *type,
		struct ws_err *err)
{
	memset(dst, 0, dst_size);
	uint32_t size;
	memcpy(&size, src, sizeof size);
	if (size < sizeof size)
		return ws_err_set(err, WS_EINVAL, "struct %s: size %u (initialize it "
				  "with WS_INIT_SIZE(struct %s))", type, size, type);
	const unsigned char *tail = (const unsigned char *)src + dst_size;
	for (size_t i = dst_size; i < size; i++, tail++)
		if (*tail)
			return ws_err_set(err, WS_EINVAL, "struct %s: byte %zu of %u is "
					  "set, a field this warpsim (ABI %d.%d) does not "
					  "know", type, i, size, WS_ABI_MAJOR, WS_ABI_MINOR);
	memcpy(dst, src, size < dst_size ? size : dst_size);
	memcpy(dst, &(uint32_t){ (uint32_t)dst_size }, sizeof size);
	return WS_OK;
}

void ws_sized_out(void *out, const void *src, size_t src_size, const char *type)
{
	uint32_t size;
	memcpy(&size, out, sizeof size);
	WS_ASSERT(size >= sizeof size, "struct %s: size %u (initialize it with "
		  "WS_INIT_SIZE(struct %s))", type, size, type);
	memcpy((char *)out + sizeof size, (const char *)src + sizeof size,
	       (size < src_size ? size : src_size) - sizeof size);
}
