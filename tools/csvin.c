/* SPDX-License-Identifier: MIT */
/*
 * CSV in the tools (csvin.h): libcsv splits the fields, in strict mode
 * (RFC 4180 quotes, no space trimming); around it, what libcsv leaves to
 * its caller and what warpsim's readers promise: lines read one at a time
 * with a length cap (a file that is not a CSV, /dev/zero, is refused, not
 * read into memory), line numbers in every error, no NUL byte, no empty
 * line, a final line end.  A quoted field may span lines; the row is
 * numbered by the line it starts on.
 *
 * Writing: libcsv's writer quotes every field, which would change the
 * bytes of every results.csv; tool_csv_put quotes only the fields that
 * need it, as the files have always been written.
 */
#define _POSIX_C_SOURCE 200809L
#include <csv.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "csvin.h"
#include "tools.h"

struct tool_csv_impl {
	FILE *f;
	struct csv_parser p;
	char *line;          /* the physical line being fed */
	size_t line_cap;
	int physical;        /* physical lines read */
	char *buf;           /* the fields of the row being built, NUL-separated */
	size_t len, cap;
	size_t *off;         /* where each field starts in buf */
	unsigned n_off, off_cap;
	char **field;        /* the finished row, into buf */
	unsigned field_cap;
	bool row_done;
	char *header_text;
	char **header;       /* tool_csv_copy of the header row */
};

int tool_csv_fail(struct tool_csv *c, struct ws_err *err, const char *fmt, ...)
{
	char msg[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ws_err_at(err, WS_EINVAL, c->path, c->lineno, "%s", msg);
}

/* libcsv: a field of the current row */
static void csv_on_field(void *s, size_t len, void *data)
{
	struct tool_csv_impl *m = data;
	if (m->n_off == m->off_cap) {
		m->off_cap = m->off_cap ? 2 * m->off_cap : 16;
		m->off = tool_xrealloc(m->off, m->off_cap, sizeof *m->off);
	}
	if (m->len + len + 1 > m->cap) {
		m->cap = 2 * (m->len + len + 1);
		m->buf = tool_xrealloc(m->buf, m->cap, 1);
	}
	m->off[m->n_off++] = m->len;
	if (len)
		memcpy(m->buf + m->len, s, len);
	m->len += len;
	m->buf[m->len++] = '\0';
}

/* libcsv: the end of a row */
static void csv_on_row(int term, void *data)
{
	(void)term;
	((struct tool_csv_impl *)data)->row_done = true;
}

static int csv_no_space(unsigned char ch)
{
	(void)ch;
	return 0;
}

static int csv_term_lf(unsigned char ch)
{
	return ch == '\n';
}

/* getline() that stops reading past `max` bytes (then returns -2). */
static ssize_t getline_max(char **line, size_t *cap, FILE *f, size_t max)
{
	size_t len = 0;
	int ch;
	while ((ch = getc_unlocked(f)) != EOF) {
		if (len + 2 > *cap) {
			*cap = *cap ? *cap * 2 : 256;
			*line = tool_xrealloc(*line, *cap, 1);
		}
		(*line)[len++] = (char)ch;
		if (ch == '\n')
			break;
		if (len > max)
			return -2;
	}
	if (len == 0)
		return -1;
	(*line)[len] = '\0';
	return (ssize_t)len;
}

/* The next physical line, checked, its line end made a lone '\n'.  1 for
 * a line, 0 at the end of the file, or an error. */
static int csv_line(struct tool_csv *c, struct ws_err *err)
{
	struct tool_csv_impl *m = c->impl;
	errno = 0;
	ssize_t len = getline_max(&m->line, &m->line_cap, m->f, WS_TEXT_LINE_MAX);
	if (len == -1) {
		if (ferror(m->f))
			return ws_err_at(err, WS_EINVAL, c->path, 0, "cannot read: %s",
					 strerror(errno ? errno : EIO));
		return 0;
	}
	c->lineno = ++m->physical;
	if (len == -2)
		return tool_csv_fail(c, err, "line %d longer than %d bytes (not a CSV "
				     "file?)", c->lineno, WS_TEXT_LINE_MAX);
	if ((size_t)len != strlen(m->line))
		return tool_csv_fail(c, err, "a NUL byte in the line (not a text file)");
	if (m->line[len - 1] != '\n')
		return tool_csv_fail(c, err, "the line has no line end (a truncated file?)");
	if (len >= 2 && m->line[len - 2] == '\r')
		memcpy(m->line + len - 2, "\n", 2);
	return 1;
}

/* Feed lines to libcsv until a row is complete; 1 for a row (fields in
 * c->field), 0 at the end of the file, or an error. */
static int csv_row(struct tool_csv *c, struct ws_err *err)
{
	struct tool_csv_impl *m = c->impl;
	int first = 0; /* the line the row starts on */
	m->len = m->n_off = 0;
	m->row_done = false;
	while (!m->row_done) {
		int rc = csv_line(c, err);
		if (rc < 0)
			return rc;
		if (rc == 0 && !first)
			return 0;
		if (rc == 0) {
			c->lineno = first;
			return tool_csv_fail(c, err, "a quoted field without its closing "
					     "quote (a truncated file?)");
		}
		if (!first && m->line[0] == '\n')
			return tool_csv_fail(c, err, "empty line");
		first = first ? first : c->lineno;
		size_t len = strlen(m->line);
		size_t done = csv_parse(&m->p, m->line, len, csv_on_field, csv_on_row, m);
		if (done != len)
			return tool_csv_fail(c, err, "column %zu: %s (a quote that does not "
					     "open or close a quoted field)", done + 1,
					     csv_strerror(csv_error(&m->p)));
	}
	c->lineno = first;
	if (m->n_off > m->field_cap) {
		m->field_cap = m->n_off;
		m->field = tool_xrealloc(m->field, m->field_cap, sizeof *m->field);
	}
	for (unsigned k = 0; k < m->n_off; k++)
		m->field[k] = m->buf + m->off[k];
	c->field = m->field;
	c->n = m->n_off;
	return 1;
}

char **tool_csv_copy(const struct tool_csv *c, bool header)
{
	char **src = header ? c->col : c->field;
	unsigned n = header ? c->n_cols : c->n;
	size_t bytes = (n + 1) * sizeof(char *);
	for (unsigned k = 0; k < n; k++)
		bytes += strlen(src[k]) + 1;
	char **out = tool_xcalloc(bytes, 1);
	char *s = (char *)(out + n + 1);
	for (unsigned k = 0; k < n; k++) {
		size_t l = strlen(src[k]) + 1;
		out[k] = memcpy(s, src[k], l);
		s += l;
	}
	return out;
}

/* The header: column names, none empty, none twice. */
static int csv_header(struct tool_csv *c, struct ws_err *err)
{
	struct tool_csv_impl *m = c->impl;
	int rc = csv_row(c, err);
	if (rc == 0)
		return ws_err_at(err, WS_EINVAL, c->path, 0, "empty file (expected a "
				 "header row naming the columns)");
	if (rc < 0)
		return rc;
	m->header_text = strdup(m->line);
	if (!m->header_text)
		return ws_err_at(err, WS_EINVAL, c->path, 1, "out of memory");
	m->header_text[strcspn(m->header_text, "\n")] = '\0';
	c->header_text = m->header_text;
	c->col = c->field;
	c->n_cols = c->n;
	m->header = tool_csv_copy(c, true);
	c->col = m->header;
	for (unsigned i = 0; i < c->n_cols; i++) {
		if (!c->col[i][0])
			return tool_csv_fail(c, err, "an empty column name in the header "
					     "'%.200s'", c->header_text);
		for (unsigned k = 0; k < i; k++)
			if (!strcmp(c->col[k], c->col[i]))
				return tool_csv_fail(c, err, "column '%.64s' twice in the "
						     "header", c->col[i]);
	}
	return WS_OK;
}

int tool_csv_open(struct tool_csv *c, const char *path, struct ws_err *err)
{
	memset(c, 0, sizeof *c);
	c->path = path;
	c->impl = tool_xcalloc(1, sizeof *c->impl);
	struct tool_csv_impl *m = c->impl;
	if (csv_init(&m->p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL))
		return ws_err_at(err, WS_EINVAL, path, 0, "out of memory");
	csv_set_space_func(&m->p, csv_no_space);
	csv_set_term_func(&m->p, csv_term_lf);
	m->f = fopen(path, "r");
	if (!m->f)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EINVAL, path, 0,
				 "cannot open: %s", strerror(errno));
	return csv_header(c, err);
}

int tool_csv_next(struct tool_csv *c, struct ws_err *err)
{
	int rc = csv_row(c, err);
	if (rc == 1 && c->n != c->n_cols)
		return tool_csv_fail(c, err, "%u fields, expected %u", c->n, c->n_cols);
	return rc;
}

void tool_csv_close(struct tool_csv *c)
{
	struct tool_csv_impl *m = c->impl;
	if (m) {
		if (m->f)
			fclose(m->f);
		csv_free(&m->p);
		free(m->line);
		free(m->buf);
		free(m->off);
		free(m->field);
		free(m->header_text);
		free(m->header);
		free(m);
	}
	memset(c, 0, sizeof *c);
}

int tool_csv_find(const struct tool_csv *c, const char *name)
{
	for (unsigned i = 0; i < c->n_cols; i++)
		if (!strcmp(c->col[i], name))
			return (int)i;
	return -1;
}

int tool_csv_col(struct tool_csv *c, const char *name, const char *why, int *at,
		 struct ws_err *err)
{
	*at = tool_csv_find(c, name);
	if (*at >= 0)
		return WS_OK;
	return ws_err_at(err, WS_EINVAL, c->path, 1, "no column '%s'%s (the header "
			 "is '%.200s')", name, why, c->header_text);
}

void tool_csv_put(FILE *f, const char *v)
{
	if (!strpbrk(v, ",\"\r\n")) {
		fputs(v, f);
		return;
	}
	fputc('"', f);
	for (const char *ch = v; *ch; ch++) {
		if (*ch == '"')
			fputc('"', f);
		fputc(*ch, f);
	}
	fputc('"', f);
}
