/* SPDX-License-Identifier: MIT */
/*
 * CSV in the tools: one reader (over libcsv) for every CSV file a command
 * reads back (fct.csv, a workload's metric files, results.csv, the run
 * tables `warpsim plot` draws), and one quoting routine for the CSV the
 * tools write.  Part of the program (tools/), not of libwarpsim.
 */
#ifndef WS_TOOLS_CSVIN_H
#define WS_TOOLS_CSVIN_H

#include <stdbool.h>
#include <stdio.h>

#include <warpsim/warpsim.h>

struct tool_csv_impl;

/*
 * A CSV file with a header row, read row by row and strictly: RFC 4180
 * quoting ("" inside a quoted field; a stray quote is an error), no
 * trimming of spaces, every row as many fields as the header, no empty
 * line, a final line end (a truncated file is refused), at most
 * WS_TEXT_LINE_MAX bytes a line, no NUL byte.  Errors name the file and
 * the line (the line a row starts on).
 */
struct tool_csv {
	const char *path;
	int lineno;          /* the line of the current row (1: the header) */
	char **field;        /* the current row */
	unsigned n;
	char **col;          /* the header's column names */
	unsigned n_cols;
	const char *header_text; /* the header as written, for messages */
	struct tool_csv_impl *impl;
};

/* Open `path` and read its header (column names: none empty, none twice).
 * WS_ENOENT when the file does not exist; the caller closes `c` whatever
 * this returns. */
int tool_csv_open(struct tool_csv *c, const char *path, struct ws_err *err);
/* The next row into c->field; 1 for a row, 0 at the end, or an error. */
int tool_csv_next(struct tool_csv *c, struct ws_err *err);
void tool_csv_close(struct tool_csv *c);

/* The index of column `name`, -1 when the header lacks it. */
int tool_csv_find(const struct tool_csv *c, const char *name);
/* The same into *at, an error naming the header when it lacks the column;
 * `why` (may be "") completes the message. */
int tool_csv_col(struct tool_csv *c, const char *name, const char *why, int *at,
		 struct ws_err *err);
/* An error at the current row's line. */
int tool_csv_fail(struct tool_csv *c, struct ws_err *err, const char *fmt, ...)
	WS_PRINTF(3, 4);
/* The current row (or, before the first, the header) as one allocation:
 * n pointers, then the strings; the caller frees it with free(). */
char **tool_csv_copy(const struct tool_csv *c, bool header);

/* Write `v` as one CSV field: as is, or in quotes (a quote doubled) when
 * it holds a comma, a quote or a line end. */
void tool_csv_put(FILE *f, const char *v);

#endif
