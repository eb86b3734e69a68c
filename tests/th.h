/* SPDX-License-Identifier: MIT */
/*
 * Test harness shared by the cmocka programs: a scratch directory, ini text
 * to simulations, whole-file reads, and running the warpsim program.
 */
#ifndef WS_TH_H
#define WS_TH_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <cmocka.h>

#include <warpsim/warpsim.h>

#define WS_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#ifndef TH_SRCDIR
#define TH_SRCDIR "."
#endif
#ifndef TH_BUILDDIR
#define TH_BUILDDIR "."
#endif

/* A scratch directory for this program, removed at exit. */
const char *th_tmpdir(void);
/* Write `text` to <tmpdir>/<name>; returns the path (static storage, one
 * buffer per call site is not kept: copy it if needed). */
const char *th_write(const char *name, const char *text);
/* The whole file, NUL-terminated (caller frees); NULL if unreadable. */
char *th_read(const char *path, size_t *len);

/*
 * A simulation from ini text; relative paths in it resolve in the scratch
 * directory.  th_sim() fails the test on error; th_sim_try() returns it.
 */
struct ws_sim *th_sim(const char *ini);
int th_sim_try(const char *ini, struct ws_sim **out, struct ws_err *err,
	       const char *plugin_path);
/* Accelerated runs against packet level: every flow of `sim` done with
 * exactly its bytes acknowledged and sent once; every flow's FCT in `b`
 * within `tol` (a share) of its FCT in `a`, the test failing with the
 * flow, both FCTs and `what` (the accelerator's name) otherwise. */
void th_check_bytes(struct ws_sim *sim);
void th_check_fcts(struct ws_sim *a, struct ws_sim *b, double tol, const char *what);

/* Run to completion (or `until`), failing the test on error. */
void th_run(struct ws_sim *sim);
/* Build ini (plugin_dirs as for th_sim_try), run it to completion, write
 * its outputs into th_tmpdir()/name and fill *st (if not NULL); any error
 * fails the test, named `name`. */
void th_run_outputs(const char *ini, const char *plugin_dirs, const char *name,
		    struct ws_sim_stats *st);
void th_run_until(struct ws_sim *sim, ws_time until);

/*
 * Route a data packet of (src, dst, sport; dport 100, priority 3, flow
 * WS_NONE: a probe) as the switches would, with ws_route_trace(); fails the
 * test unless it reaches dst in fewer than `max` links.  Returns the links;
 * fills path[0..links] with the nodes and hops[] with nodes, egress ports
 * and classes (either may be NULL; each holds `max` entries).
 */
unsigned th_route(struct ws_sim *sim, uint32_t src, uint32_t dst,
		  uint16_t sport, uint32_t *path, struct ws_hop *hops,
		  unsigned max);

/* Fails the test unless each of count[0..n-1] is within +/- tol (a
 * fraction) of total / n; `what` names the counted things in the message. */
void th_assert_uniform(const unsigned *count, unsigned n, double tol,
		       const char *what);

/* A CSV file with a header row: th_csv_get(c, row, "column") for rows
 * 0..rows-1 after the header (NULL: no such column).  Fails the test if
 * the file cannot be read. */
struct th_csv {
	char *buf;
	char **cell;
	unsigned rows, cols;
};
void th_csv_load(struct th_csv *c, const char *path);
const char *th_csv_get(const struct th_csv *c, unsigned row, const char *col);
double th_csv_num(const struct th_csv *c, unsigned row, const char *col);
/* A time column written as nanoseconds with three decimals, exactly in ps. */
uint64_t th_csv_ps(const struct th_csv *c, unsigned row, const char *col);
void th_csv_free(struct th_csv *c);

/*
 * A bad input file: `text` (NULL: no file at all) is written to
 * <tmpdir>/bad.txt, and building the simulation of `ini` (which names that
 * file) must fail with `code`, the error naming the file, `line` (0: the
 * file alone) and a message containing `needle`, formatted for a person as
 * "file:line: message".
 */
struct th_bad_file {
	const char *name;
	const char *text;
	int code;
	int line;
	const char *needle;
};
void th_check_bad_file(const struct th_bad_file *b, const char *ini);

/* Run the warpsim program; returns its exit status, or 128+signal. */
int th_cli(const char *const *args, char **out, char **err);
/* The same in two steps: start it (stdout to `stdout_path`, NULL: captured),
 * then wait for it and read what it printed. */
int th_cli_spawn(const char *const *args, const char *stdout_path, pid_t *pid);
int th_cli_wait(pid_t pid, char **out, char **err);

/* printf into a static buffer (for building ini text). */
const char *th_fmt(const char *fmt, ...) WS_PRINTF(1, 2);

#endif
