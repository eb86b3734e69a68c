/* SPDX-License-Identifier: MIT */
/*
 * The warpsim program (tools/): the commands, written against libwarpsim's
 * public API only (<warpsim/warpsim.h>; never the kernel's internal.h), and
 * the few helpers they share.
 */
#ifndef WS_TOOLS_H
#define WS_TOOLS_H

#include <stddef.h>
#include <stdio.h>

#include <warpsim/warpsim.h>

#define TOOL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TOOL_MAX(a, b) ((a) > (b) ? (a) : (b))
#define TOOL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Exit statuses of every command. */
enum { EXIT_RUN = 1, EXIT_INPUT = 2, EXIT_DEADLOCK = 3 };

/* The command line; returns the exit status. */
int ws_cli_main(int argc, char **argv);

/* An option of a command, declared in a table ending with a NULL name. */
struct cli_opt {
	const char *name;
	int id;       /* short option character, or >= 256; 'h' is the help */
	const char *arg; /* NULL: no argument */
	const char *help;
};

/* A command: its name, arguments, one line of help, options and code. */
struct cli_cmd {
	const char *name;
	const char *args;
	const char *summary;
	const struct cli_opt *opts;
	int (*run)(int argc, char **argv, const struct cli_cmd *cmd);
};

/*
 * Parse the options of `cmd` (getopt_long, from its table), calling `each`
 * for every one but the help; returns 0 (the arguments left from optind),
 * -1 after printing the help, EXIT_INPUT for an unknown option, or what
 * `each` returned if not 0.
 */
int parse_opts(int argc, char **argv, const struct cli_cmd *cmd,
	       int (*each)(int id, const char *arg, void *ctx), void *ctx);
/* The usage of a command, its options from the table. */
void usage_cmd(FILE *f, const struct cli_cmd *c);

/* Allocation that exits the program with a message when memory runs out. */
void *tool_xcalloc(size_t n, size_t size);
void *tool_xrealloc(void *p, size_t n, size_t size);
/* Monotonic wall-clock seconds. */
double tool_wall_seconds(void);
/* "warpsim: file:line: message" on stderr. */
void tool_print_error(const struct ws_err *err);
/* A simulated time for a person: "1.234567 ms", "12.345 us". */
void tool_fmt_time(char *buf, size_t n, ws_time t);

#endif
