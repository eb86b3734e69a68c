/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "th.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char tmp[256];

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void cleanup(void)
{
	if (tmp[0])
		nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *th_tmpdir(void)
{
	if (!tmp[0]) {
		snprintf(tmp, sizeof tmp, "/tmp/warpsim-test-XXXXXX");
		if (!mkdtemp(tmp)) {
			perror("mkdtemp");
			abort();
		}
		atexit(cleanup);
	}
	return tmp;
}

const char *th_write(const char *name, const char *text)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", th_tmpdir(), name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(text, 1, strlen(text), f);
	fclose(f);
	return path;
}

char *th_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n + 4096 > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		if (r == 0)
			break;
		n += r;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int th_sim_try(const char *ini, struct ws_sim **out, struct ws_err *err,
	       const char *plugin_path)
{
	struct ws_cfg *cfg = NULL;
	*out = NULL;
	ws_err_clear(err);
	int rc = ws_cfg_parse_string(&cfg, ini, "test.ini", th_tmpdir(), err);
	if (rc)
		return rc;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .plugin_path = plugin_path };
	rc = ws_sim_new(out, cfg, &opts, err);
	ws_cfg_free(cfg);
	return rc;
}

struct ws_sim *th_sim(const char *ini)
{
	struct ws_sim *sim;
	struct ws_err err;
	int rc = th_sim_try(ini, &sim, &err, NULL);
	if (rc) {
		char msg[2048];
		ws_err_format(&err, msg, sizeof msg);
		fail_msg("ws_sim_new: %s", msg);
	}
	return sim;
}

void th_run_until(struct ws_sim *sim, ws_time until)
{
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_sim_run(sim, until, &err)) {
		char msg[2048];
		ws_err_format(&err, msg, sizeof msg);
		fail_msg("ws_sim_run: %s", msg);
	}
}

void th_run(struct ws_sim *sim)
{
	th_run_until(sim, WS_TIME_NEVER);
}

void th_run_outputs(const char *ini, const char *plugin_dirs, const char *name,
		    struct ws_sim_stats *st)
{
	struct ws_sim *sim;
	struct ws_err err;
	if (th_sim_try(ini, &sim, &err, plugin_dirs))
		fail_msg("%s: %s", name, err.msg);
	th_run(sim);
	char dir[600];
	snprintf(dir, sizeof dir, "%s/%s", th_tmpdir(), name);
	if (ws_sim_write_outputs(sim, dir, &err))
		fail_msg("%s: %s", name, err.msg);
	if (st) {
		*st = (struct ws_sim_stats){ WS_INIT_SIZE(struct ws_sim_stats) };
		ws_sim_get_stats(sim, st);
	}
	ws_sim_free(sim);
}

static char *slurp_fd(int fd)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	ssize_t r;
	while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (n + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
	}
	buf[n] = '\0';
	return buf;
}

/*
 * The warpsim program to spawn, and its environment.  In a shared build
 * <builddir>/warpsim is libtool's wrapper script: it only puts the
 * uninstalled library (kernel/.libs) first on LD_LIBRARY_PATH and execs
 * .libs/warpsim, at the cost of a shell start (about 12 ms) per call, a
 * second or two over the suite's 150 calls.  We do the same without the
 * shell; a static build has the program itself at <builddir>/warpsim.
 */
static const char *cli_program(void)
{
	static const char *prog;
	if (!prog) {
		prog = TH_BUILDDIR "/.libs/warpsim";
		if (access(prog, X_OK))
			prog = TH_BUILDDIR "/warpsim";
	}
	return prog;
}

/* environ with kernel/.libs first on LD_LIBRARY_PATH (caller frees both) */
static char **cli_environ(char **ld_path)
{
	const char *old = getenv("LD_LIBRARY_PATH");
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 2, sizeof *env);
	assert_non_null(env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_LIBRARY_PATH=", 16))
			env[k++] = environ[i];
	if (asprintf(ld_path, "LD_LIBRARY_PATH=%s/kernel/.libs%s%s", TH_BUILDDIR,
		     old && *old ? ":" : "", old ? old : "") < 0)
		fail_msg("asprintf: out of memory");
	env[k] = *ld_path;
	return env;
}

int th_cli_spawn(const char *const *args, const char *stdout_path, pid_t *pid)
{
	char outp[512], errp[512];
	snprintf(outp, sizeof outp, "%s/cli.out", th_tmpdir());
	snprintf(errp, sizeof errp, "%s/cli.err", th_tmpdir());
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, stdout_path ? stdout_path : outp,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t n = 0;
	while (args[n])
		n++;
	char **argv = calloc(n + 2, sizeof *argv);
	argv[0] = (char *)cli_program();
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = (char *)args[i];
	char *ld_path;
	char **env = cli_environ(&ld_path);
	int rc = posix_spawn(pid, argv[0], &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(argv);
	free(env);
	free(ld_path);
	if (rc)
		fprintf(stderr, "posix_spawn %s: %s\n", cli_program(), strerror(rc));
	return rc ? -1 : 0;
}

int th_cli_wait(pid_t pid, char **out, char **err)
{
	char outp[512], errp[512];
	snprintf(outp, sizeof outp, "%s/cli.out", th_tmpdir());
	snprintf(errp, sizeof errp, "%s/cli.err", th_tmpdir());
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int fd = open(outp, O_RDONLY);
	char *o = fd >= 0 ? slurp_fd(fd) : strdup("");
	if (fd >= 0)
		close(fd);
	fd = open(errp, O_RDONLY);
	char *e = slurp_fd(fd);
	close(fd);
	if (out)
		*out = o;
	else
		free(o);
	if (err)
		*err = e;
	else
		free(e);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int th_cli(const char *const *args, char **out, char **err)
{
	pid_t pid;
	if (th_cli_spawn(args, NULL, &pid))
		return -1;
	return th_cli_wait(pid, out, err);
}

const char *th_fmt(const char *fmt, ...)
{
	static char buf[16384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return buf;
}

unsigned th_route(struct ws_sim *sim, uint32_t src, uint32_t dst,
		  uint16_t sport, uint32_t *path, struct ws_hop *hops,
		  unsigned max)
{
	struct ws_pkt p;
	ws_pkt_probe(&p, src, dst, sport, 100);
	struct ws_hop *h = hops ? hops : calloc(max, sizeof *h);
	assert_non_null(h);
	uint32_t n = 0;
	struct ws_err err;
	ws_err_clear(&err);
	int rc = ws_route_trace(sim, &p, h, max, &n, &err);
	if (rc)
		fail_msg("route %u -> %u: %s", src, dst, err.msg);
	if (path)
		for (uint32_t i = 0; i < n; i++)
			path[i] = h[i].node;
	if (!hops)
		free(h);
	return n - 1;
}

void th_assert_uniform(const unsigned *count, unsigned n, double tol,
		       const char *what)
{
	uint64_t total = 0;
	for (unsigned i = 0; i < n; i++)
		total += count[i];
	double expect = (double)total / n;
	for (unsigned i = 0; i < n; i++)
		if (count[i] < (1 - tol) * expect || count[i] > (1 + tol) * expect)
			fail_msg("%s %u carries %u of %llu (expected %.0f +/- %.0f%%)", what,
				 i, count[i], (unsigned long long)total, expect, tol * 100);
}

void th_csv_load(struct th_csv *c, const char *path)
{
	memset(c, 0, sizeof *c);
	c->buf = th_read(path, NULL);
	if (!c->buf)
		fail_msg("cannot read %s", path);
	unsigned lines = 0, fields = 1;
	for (const char *p = c->buf; *p; p++)
		lines += *p == '\n';
	for (const char *p = c->buf; *p && *p != '\n'; p++)
		fields += *p == ',';
	c->cols = fields;
	c->cell = calloc((size_t)(lines + 1) * fields, sizeof *c->cell);
	assert_non_null(c->cell);
	unsigned row = 0;
	char *save = NULL;
	for (char *line = strtok_r(c->buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), row++) {
		unsigned k = 0;
		char *p = line;
		for (;;) {
			char *comma = strchr(p, ',');
			if (k < fields)
				c->cell[row * fields + k] = p;
			k++;
			if (!comma)
				break;
			*comma = '\0';
			p = comma + 1;
		}
		if (k != fields)
			fail_msg("%s: line %u has %u fields, the header %u", path, row + 1, k, fields);
	}
	c->rows = row ? row - 1 : 0;
}

const char *th_csv_get(const struct th_csv *c, unsigned row, const char *col)
{
	for (unsigned k = 0; k < c->cols; k++)
		if (!strcmp(c->cell[k], col))
			return row < c->rows ? c->cell[(row + 1) * c->cols + k] : NULL;
	return NULL;
}

double th_csv_num(const struct th_csv *c, unsigned row, const char *col)
{
	const char *v = th_csv_get(c, row, col);
	if (!v)
		fail_msg("no column %s (or row %u)", col, row);
	return strtod(v, NULL);
}

uint64_t th_csv_ps(const struct th_csv *c, unsigned row, const char *col)
{
	const char *v = th_csv_get(c, row, col);
	if (!v)
		fail_msg("no column %s (or row %u)", col, row);
	char *end;
	uint64_t ns = strtoull(v, &end, 10);
	if (end[0] != '.' || strlen(end) != 4)
		fail_msg("%s = '%s': expected nanoseconds with three decimals", col, v);
	return ns * 1000 + strtoull(end + 1, NULL, 10);
}

void th_csv_free(struct th_csv *c)
{
	free(c->buf);
	free(c->cell);
	memset(c, 0, sizeof *c);
}

void th_check_bad_file(const struct th_bad_file *b, const char *ini)
{
	char path[512];
	snprintf(path, sizeof path, "%s/bad.txt", th_tmpdir());
	remove(path);
	if (b->text)
		th_write("bad.txt", b->text);
	struct ws_sim *sim = NULL;
	struct ws_err err;
	int rc = th_sim_try(ini, &sim, &err, NULL);
	char msg[2048];
	ws_err_format(&err, msg, sizeof msg);
	if (rc != b->code)
		fail_msg("%s: code %d, expected %d (%s)", b->name, rc, b->code, msg);
	assert_null(sim);
	assert_int_equal(err.code, b->code);
	assert_string_equal(err.file, path);
	if (err.line != b->line)
		fail_msg("%s: line %d, expected %d (%s)", b->name, err.line, b->line, msg);
	if (!strstr(err.msg, b->needle))
		fail_msg("%s: \"%s\" not in \"%s\"", b->name, b->needle, err.msg);
	char prefix[600];
	if (b->line)
		snprintf(prefix, sizeof prefix, "%s:%d: ", path, b->line);
	else
		snprintf(prefix, sizeof prefix, "%s: ", path);
	if (strncmp(msg, prefix, strlen(prefix)))
		fail_msg("%s: \"%s\" does not start with \"%s\"", b->name, msg, prefix);
}

void th_check_bytes(struct ws_sim *sim)
{
	uint32_t n = ws_flow_count(sim);
	for (uint32_t i = 0; i < n; i++) {
		struct ws_flow_info f = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, i, &f), WS_OK);
		assert_true(f.end != WS_TIME_NEVER);
		assert_int_equal(f.acked, f.bytes);
		assert_int_equal(f.sent - f.retx, f.bytes);
	}
}

void th_check_fcts(struct ws_sim *a, struct ws_sim *b, double tol, const char *what)
{
	uint32_t n = ws_flow_count(a);
	assert_int_equal(ws_flow_count(b), n);
	for (uint32_t i = 0; i < n; i++) {
		struct ws_flow_info x = { WS_INIT_SIZE(struct ws_flow_info) },
				    y = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(a, i, &x);
		ws_flow_get(b, i, &y);
		double fa = (double)(x.end - x.start), fb = (double)(y.end - y.start);
		if (fabs(fb - fa) > tol * fa)
			fail_msg("flow %u: FCT %.0f ps %s, %.0f ps packet level "
				 "(%.2f %%, allowed %.1f %%)", i, fb, what, fa,
				 100 * (fb - fa) / fa, 100 * tol);
	}
}
