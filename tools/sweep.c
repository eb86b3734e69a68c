/* SPDX-License-Identifier: MIT */
/*
 * `warpsim sweep SPEC.ini [-o DIR] [-j THREADS] [--dry-run]`: a grid of
 * experiments in one process, and over MPI ranks when built with MPI.
 *
 * The spec is a scenario ini plus a [sweep] section.  Its keys with a dot
 * are axes, `section.key = v1, v2, ...` (integers also as `lo..hi`), combined
 * as a cartesian product, the first axis varying slowest; `zip = a.b, c.d`
 * pairs axes of equal length into one dimension.  `share = true` (off by
 * default: it trades FCT-tail accuracy for little speed, docs/sweeps.md)
 * and `share_wave` let experiments share what the accelerator learns.
 *
 * Every experiment is validated before anything runs (ws_sim_new on its
 * configuration: a bad value names the axis, the value and what the key
 * expects).  Experiments then run on a pool of worker threads (tools/dist.c),
 * largest first; each writes its own directory DIR/NNN-values/ as `warpsim
 * run` would, plus sweep.txt (its row, written last: a re-run skips
 * experiments that have it).  Rank 0 writes DIR/results.csv, one row per
 * experiment in spec order.
 *
 * Sharing.  All experiments use one ws_fabric_cache: those whose fabric
 * configuration is identical share one immutable build.  With `share =
 * true`, experiments whose
 * accelerator reports the same share key (ws_sim_accel_share_key) form a
 * group; the group's members, in spec order, are cut into waves of
 * `share_wave`, and a member of wave k starts from what the members of
 * waves < k learned (their exports, concatenated in spec order).  An
 * experiment's inputs are therefore fixed by the spec alone, whatever the
 * number of threads or ranks and whatever ran beside it: results.csv is the
 * same for -j 1, -j 2 and mpirun (outside its wall-time column).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "compare.h"
#include "csvin.h"
#include "dist.h"
#include "tools.h"

#define SPEC_MAX_BYTES (16u << 20)
#define SWEEP_MAX_EXPERIMENTS 100000u
#define SWEEP_MAX_VALUES 100000u
#define SHARE_WAVE_DEFAULT 8u
#define PATH_LEN 4096

const struct cli_opt sweep_opts[] = {
	{ "output", OPT_OUT, "DIR", "write results.csv and one directory per experiment to DIR (default: out/<spec name>)" },
	{ "jobs", 'j', "THREADS", "experiments run at once on this machine (default: its cores; under mpirun: its cores / ranks on the machine)" },
	{ "dry-run", OPT_DRY_RUN, NULL, "validate every experiment and list them; run nothing" },
	{ "set", OPT_SET, "SECTION.KEY=VALUE", "override a key of the spec for every experiment (repeatable)" },
	{ "plugin-path", OPT_PLUGIN_PATH, "DIRS", "colon-separated directories searched first for plugins" },
	{ "max-memory", OPT_MAX_MEMORY, "SIZE", "refuse an experiment estimated to need more (e.g. 8GiB)" },
	{ "quiet", OPT_QUIET, NULL, "print nothing but errors" },
	{ "help", OPT_HELP, NULL, "show this help" },
	{ NULL, 0, NULL, NULL }
};

/* An axis: section.key and its values, in one dimension of the grid. */
struct axis {
	char key[160];
	char **values;
	size_t n;
	int line;
	size_t dim;        /* its dimension (a zip group shares one) */
	int zip;           /* the zip line that named it; 0: none */
	size_t ignored;    /* experiments whose plugin does not declare the key */
	char ignored_by[200]; /* the first of them, and its plugin */
	char why_none[600];   /* the error when no experiment's plugin declares it */
};

/* One experiment of the grid. */
struct exp {
	size_t *pick;      /* per dimension: the value index */
	char name[200];    /* NNN-values: its directory under DIR */
	double cost;       /* flows expected x ports: larger runs first */
	bool shares;       /* its accelerator shares what it learns */
	uint64_t share_key;
	uint64_t skip;     /* axes (bit i: axis i < 64) its plugins do not declare */
	uint64_t build;    /* digest of its plugins' effective parameters and builds */
	size_t group;      /* its share group, and its place in it */
	size_t member;
	/* rank 0: how it went */
	bool done;
	bool resumed;      /* complete from an earlier sweep: not run again */
	char why[320];     /* why an earlier result was not kept ("": none) */
	char *row;         /* the metrics columns of results.csv */
	void *learned;     /* what its accelerator learned (share groups) */
	size_t learned_len;
};

struct sweep {
	const char *spec;
	char spec_dir[PATH_LEN];
	char *base;         /* the spec with its [sweep] lines blanked */
	struct axis *axes;
	size_t n_axes;
	size_t *dim_len;
	size_t n_dims;
	struct exp *ex;
	size_t n_ex;
	bool share;
	size_t wave;
	char out[PATH_LEN];
	struct run_args args;
	int threads;
	bool dry_run;
	struct ws_fabric_cache *cache;
	uint64_t digest;    /* of the base spec, the --set options and the inputs */
	char **inputs;      /* every file an experiment reads (ws_sim_input_file) */
	size_t n_inputs;
	struct { char *path; uint64_t hash; } *builds; /* plugins and library hashed */
	size_t n_builds;
	size_t *group_first; /* per group: its members' experiment indices */
	size_t **group_members;
	size_t *group_n;
	size_t n_groups;
	const volatile sig_atomic_t *stop;
	/* the terminal: a status line on stderr, redrawn from the running
	 * experiments' progress callbacks (any thread: under term_lock, as
	 * are n_done and the per-experiment lines of job_done) */
	bool tty;
	pthread_mutex_t term_lock;
	bool term_shown;
	double term_last;
	/* rank 0 progress */
	double t0;
	size_t n_done, n_run, n_failed, n_resumed;
	size_t n_to_run;
	double sum_wall;
};

/* ---- the spec ---------------------------------------------------------------------- */

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* An inline comment (" ;" or " #", as inih reads them) ends the value. */
static void cut_comment(char *s)
{
	bool quoted = false;
	for (char *c = s; *c; c++) {
		if (*c == '"')
			quoted = !quoted;
		if (!quoted && (*c == ';' || *c == '#') && (c == s || c[-1] == ' ' || c[-1] == '\t')) {
			*c = '\0';
			return;
		}
	}
}

static int spec_err(struct ws_err *err, const struct sweep *sw, int line,
		    const char *fmt, ...) WS_PRINTF(4, 5);
static int spec_err(struct ws_err *err, const struct sweep *sw, int line,
		    const char *fmt, ...)
{
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ws_err_at(err, WS_EINVAL, sw->spec, line, "%s", msg);
}

/* lo..hi: its integers, or 0 when `v` is not a range. */
static int range_values(const struct sweep *sw, int line, const char *key, const char *v,
			char ***vals, size_t *n, struct ws_err *err)
{
	const char *dots = strstr(v, "..");
	if (!dots)
		return 0;
	char *end;
	errno = 0;
	long long lo = strtoll(v, &end, 10);
	if (end != dots || errno)
		return 0;
	long long hi = strtoll(dots + 2, &end, 10);
	if (*end || errno || dots[2] == '\0')
		return 0;
	if (hi < lo)
		return spec_err(err, sw, line, "[sweep] %s: range %s runs backwards "
				"(expected lo..hi with lo <= hi)", key, v);
	if ((unsigned long long)(hi - lo) >= SWEEP_MAX_VALUES - *n)
		return spec_err(err, sw, line, "[sweep] %s: range %s has more than %u "
				"values", key, v, SWEEP_MAX_VALUES);
	*vals = tool_xrealloc(*vals, *n + (size_t)(hi - lo) + 1, sizeof **vals);
	for (long long x = lo; x <= hi; x++) {
		char buf[32];
		snprintf(buf, sizeof buf, "%lld", x);
		(*vals)[(*n)++] = strdup(buf);
	}
	return 1;
}

/* "v1, v2, \"a, b\", 1..5": the values of an axis. */
static int split_values(const struct sweep *sw, int line, const char *key, char *text,
			char ***vals, size_t *n, struct ws_err *err)
{
	*vals = NULL;
	*n = 0;
	char *p = text;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		char *item, *next;
		bool quoted = *p == '"';
		if (quoted) {
			item = ++p;
			char *q = strchr(p, '"');
			if (!q)
				return spec_err(err, sw, line, "[sweep] %s: a quote \" is "
						"not closed", key);
			*q = '\0';
			next = q + 1 + strspn(q + 1, " \t");
			if (*next && *next != ',')
				return spec_err(err, sw, line, "[sweep] %s: expected ',' "
						"after the quoted value \"%s\"", key, item);
		} else {
			item = p;
			next = p + strcspn(p, ",");
		}
		bool last = *next == '\0';
		*next = '\0';
		if (!quoted)
			item = trim(item);
		if (!*item && !quoted)
			return spec_err(err, sw, line, "[sweep] %s: an empty value (expected "
					"a comma-separated list: %s = v1, v2, ...)", key, key);
		int r = quoted ? 0 : range_values(sw, line, key, item, vals, n, err);
		if (r < 0 || (r > 0 && err->code))
			return WS_EINVAL;
		if (r == 0) {
			if (*n >= SWEEP_MAX_VALUES)
				return spec_err(err, sw, line, "[sweep] %s: more than %u values",
						key, SWEEP_MAX_VALUES);
			*vals = tool_xrealloc(*vals, *n + 1, sizeof **vals);
			(*vals)[(*n)++] = strdup(item);
		}
		if (last)
			break;
		p = next + 1;
	}
	return WS_OK;
}

static struct axis *find_axis(struct sweep *sw, const char *key)
{
	for (size_t i = 0; i < sw->n_axes; i++)
		if (!strcmp(sw->axes[i].key, key))
			return &sw->axes[i];
	return NULL;
}

static bool parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0"))
		*out = false;
	else
		return false;
	return true;
}

/* A zip line: axes that advance together. */
struct zip {
	char *text;
	int line;
};

static int apply_zips(struct sweep *sw, struct zip *zips, size_t n_zips, struct ws_err *err)
{
	for (size_t z = 0; z < n_zips; z++) {
		size_t n_keys = 0, len = 0;
		const struct axis *first = NULL;
		for (char *tok = strtok(zips[z].text, ","); tok; tok = strtok(NULL, ",")) {
			char *k = trim(tok);
			struct axis *a = find_axis(sw, k);
			if (!a)
				return spec_err(err, sw, zips[z].line, "[sweep] zip: '%s' is not "
						"an axis of [sweep] (expected axes, section.key, "
						"separated by commas)", k);
			if (a->zip)
				return spec_err(err, sw, zips[z].line, "[sweep] zip: axis %s is "
						"already zipped on line %d", k, a->zip);
			if (first && a->n != len)
				return spec_err(err, sw, zips[z].line, "[sweep] zip: %s has %zu "
						"values and %s has %zu: zipped axes need as many",
						first->key, len, k, a->n);
			a->zip = zips[z].line;
			if (!first) {
				first = a;
				len = a->n;
			}
			n_keys++;
		}
		if (n_keys < 2)
			return spec_err(err, sw, zips[z].line, "[sweep] zip: name at least "
					"two axes (zip = section.key, section.key)");
	}
	/* dimensions, in the order of the axes' first appearance */
	sw->dim_len = tool_xcalloc(sw->n_axes, sizeof *sw->dim_len);
	for (size_t i = 0; i < sw->n_axes; i++) {
		struct axis *a = &sw->axes[i];
		size_t d = sw->n_dims;
		for (size_t k = 0; k < i && a->zip; k++)
			if (sw->axes[k].zip == a->zip)
				d = sw->axes[k].dim;
		a->dim = d;
		if (d == sw->n_dims)
			sw->dim_len[sw->n_dims++] = a->n;
	}
	return WS_OK;
}

/* One [sweep] line: an axis or a setting. */
static int sweep_line(struct sweep *sw, char *key, char *val, int line,
		      struct zip **zips, size_t *n_zips, struct ws_err *err)
{
	if (!strchr(key, '.')) {
		if (!strcmp(key, "zip")) {
			*zips = tool_xrealloc(*zips, *n_zips + 1, sizeof **zips);
			(*zips)[(*n_zips)++] = (struct zip){ strdup(val), line };
			return WS_OK;
		}
		if (!strcmp(key, "share")) {
			if (!parse_bool(val, &sw->share))
				return spec_err(err, sw, line, "[sweep] share = %s: expected "
						"true or false", val);
			return WS_OK;
		}
		if (!strcmp(key, "share_wave")) {
			char *end;
			errno = 0;
			unsigned long long w = strtoull(val, &end, 10);
			if (errno || *end || w < 1 || w > SWEEP_MAX_EXPERIMENTS || val[0] == '-')
				return spec_err(err, sw, line, "[sweep] share_wave = %s: expected "
						"a whole number of experiments from 1 to %u", val,
						SWEEP_MAX_EXPERIMENTS);
			sw->wave = (size_t)w;
			return WS_OK;
		}
		return spec_err(err, sw, line, "[sweep] unknown key '%s' (expected an axis "
				"section.key = v1, v2, ..., or zip, share, share_wave)", key);
	}
	if (find_axis(sw, key))
		return spec_err(err, sw, line, "[sweep] axis %s is given twice", key);
	if (!strncmp(key, "output.dir", 11) && key[10] == '\0')
		return spec_err(err, sw, line, "[sweep] output.dir cannot be an axis: "
				"each experiment writes to its own directory under -o DIR");
	if (strlen(key) >= sizeof sw->axes[0].key)
		return spec_err(err, sw, line, "[sweep] axis name too long: %.40s...", key);
	sw->axes = tool_xrealloc(sw->axes, sw->n_axes + 1, sizeof *sw->axes);
	struct axis *a = &sw->axes[sw->n_axes];
	memset(a, 0, sizeof *a);
	snprintf(a->key, sizeof a->key, "%s", key);
	a->line = line;
	sw->n_axes++;
	return split_values(sw, line, key, val, &a->values, &a->n, err);
}

/* Read the spec: the [sweep] section into axes, the rest into sw->base
 * with the [sweep] lines blanked (line numbers kept for the kernel's
 * messages). */
static int read_spec(struct sweep *sw, struct ws_err *err)
{
	FILE *f = fopen(sw->spec, "r");
	if (!f)
		return ws_err_at(err, WS_EINVAL, sw->spec, 0, "cannot open: %s",
				 strerror(errno));
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && st.st_size > (off_t)SPEC_MAX_BYTES) {
		fclose(f);
		return ws_err_at(err, WS_EINVAL, sw->spec, 0, "larger than %u MiB: not "
				 "a sweep spec", SPEC_MAX_BYTES >> 20);
	}
	size_t cap = 0, len = 0;
	char *text = NULL;
	size_t got;
	char *line = NULL;
	size_t lcap = 0;
	int lineno = 0;
	bool in_sweep = false, saw_sweep = false;
	struct zip *zips = NULL;
	size_t n_zips = 0;
	int rc = WS_OK;
	/* lines of at most 64 KiB, no NUL, 16 MiB in all (a FIFO or a device
	 * has no size to check first) */
	while ((rc = ws_text_line(f, &line, &lcap, WS_TEXT_LINE_MAX, sw->spec, &lineno,
				  err)) == 1) {
		rc = WS_OK;
		got = strlen(line);
		if (len + got + 2 > SPEC_MAX_BYTES) {
			rc = ws_err_at(err, WS_EINVAL, sw->spec, lineno, "larger than %u "
				       "MiB: not a sweep spec", SPEC_MAX_BYTES >> 20);
			break;
		}
		if (len + got + 2 > cap) {
			cap = (len + got + 2) * 2;
			text = tool_xrealloc(text, cap, 1);
		}
		char *copy = strdup(line);
		char *s = trim(copy);
		size_t sl = strlen(s);
		if (sl && s[sl - 1] == '\n')
			s[--sl] = '\0';
		s = trim(s);
		bool blank = false;
		if (s[0] == '[') {
			char *close = strchr(s, ']');
			if (close) {
				*close = '\0';
				in_sweep = !strcmp(trim(s + 1), "sweep");
				saw_sweep |= in_sweep;
			}
			blank = in_sweep;
		} else if (in_sweep) {
			blank = true;
			if (s[0] && s[0] != ';' && s[0] != '#') {
				char *eq = strpbrk(s, "=:");
				if (!eq)
					rc = spec_err(err, sw, lineno, "[sweep]: expected "
						      "'section.key = v1, v2, ...', got '%s'", s);
				else {
					*eq = '\0';
					cut_comment(eq + 1);
					rc = sweep_line(sw, trim(s), trim(eq + 1), lineno, &zips,
							&n_zips, err);
				}
			}
		}
		free(copy);
		if (!blank) {
			memcpy(text + len, line, got);
			len += got;
		}
		text[len++] = '\n';
		if (rc)
			break;
	}
	if (!rc && ferror(f))
		rc = ws_err_at(err, WS_EINVAL, sw->spec, 0, "cannot read: %s", strerror(errno));
	fclose(f);
	free(line);
	if (!text)
		text = tool_xcalloc(1, 1);
	else
		text[len] = '\0';
	sw->base = text;
	if (!rc && !saw_sweep)
		rc = ws_err_at(err, WS_EINVAL, sw->spec, 0, "no [sweep] section (a sweep "
			       "spec is a scenario ini plus [sweep] with axes such as "
			       "cc.name = dcqcn, hpcc)");
	if (!rc && !sw->n_axes)
		rc = ws_err_at(err, WS_EINVAL, sw->spec, 0, "[sweep] has no axis (expected "
			       "section.key = v1, v2, ...)");
	if (!rc)
		rc = apply_zips(sw, zips, n_zips, err);
	for (size_t z = 0; z < n_zips; z++)
		free(zips[z].text);
	free(zips);
	return rc;
}

/* ---- the experiments ---------------------------------------------------------------- */

/* A directory name from the values: letters, digits and . - + = kept. */
static void exp_name(const struct sweep *sw, struct exp *e, size_t idx, int width)
{
	int w = snprintf(e->name, sizeof e->name, "%0*zu", width, idx);
	for (size_t i = 0; i < sw->n_axes && w < (int)sizeof e->name - 2; i++) {
		const char *v = sw->axes[i].values[e->pick[sw->axes[i].dim]];
		e->name[w++] = i ? '_' : '-';
		for (const char *c = v; *c && w < (int)sizeof e->name - 1 && w < 120; c++) {
			char ch = *c;
			bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
				  (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '+';
			e->name[w++] = ok ? ch : '~';
		}
		e->name[w] = '\0';
	}
}

static int make_experiments(struct sweep *sw, struct ws_err *err)
{
	uint64_t total = 1;
	for (size_t d = 0; d < sw->n_dims; d++) {
		total *= sw->dim_len[d];
		if (total > SWEEP_MAX_EXPERIMENTS)
			return ws_err_at(err, WS_EINVAL, sw->spec, 0, "[sweep]: more than "
					 "%u experiments in the grid", SWEEP_MAX_EXPERIMENTS);
	}
	sw->n_ex = (size_t)total;
	sw->ex = tool_xcalloc(sw->n_ex, sizeof *sw->ex);
	int width = 1;
	for (size_t x = sw->n_ex - 1; x >= 10; x /= 10)
		width++;
	width = width < 3 ? 3 : width;
	for (size_t i = 0; i < sw->n_ex; i++) {
		struct exp *e = &sw->ex[i];
		e->pick = tool_xcalloc(sw->n_dims, sizeof *e->pick);
		/* the last dimension varies fastest */
		size_t r = i;
		for (size_t d = sw->n_dims; d-- > 0;) {
			e->pick[d] = r % sw->dim_len[d];
			r /= sw->dim_len[d];
		}
		exp_name(sw, e, i, width);
	}
	return WS_OK;
}

/* "cc.name=hpcc switch.buffer=16MB": an experiment's assignment. */
static void assignment(const struct sweep *sw, const struct exp *e, char *buf, size_t n)
{
	size_t w = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sw->n_axes && w < n; i++)
		w += (size_t)snprintf(buf + w, n - w, "%s%s=%s", i ? " " : "",
				      sw->axes[i].key, sw->axes[i].values[e->pick[sw->axes[i].dim]]);
}

/* An error of the experiment's configuration that concerns an axis (the
 * kernel saw it as "--set section.key"): point it at the axis. */
static void blame_axis(const struct sweep *sw, const struct exp *e, struct ws_err *err)
{
	const char *set = "--set ";
	if (strncmp(err->file, set, strlen(set))) {
		/* an error found later (a workload's file): say which experiment */
		char orig[sizeof err->msg], as[512];
		memcpy(orig, err->msg, sizeof orig);
		assignment(sw, e, as, sizeof as);
		snprintf(err->msg, sizeof err->msg, "[sweep] experiment %.60s (%.300s): %.600s",
			 e->name, as, orig);
		return;
	}
	for (size_t i = 0; i < sw->n_axes; i++) {
		const struct axis *a = &sw->axes[i];
		if (strcmp(err->file + strlen(set), a->key))
			continue;
		char orig[sizeof err->msg];
		memcpy(orig, err->msg, sizeof orig);
		snprintf(err->msg, sizeof err->msg, "[sweep] axis %s, value '%.100s' "
			 "(experiment %.60s): %.600s", a->key, a->values[e->pick[a->dim]],
			 e->name, orig);
		snprintf(err->file, sizeof err->file, "%s", sw->spec);
		err->line = a->line;
		return;
	}
}

static int exp_cfg(const struct sweep *sw, const struct exp *e, struct ws_cfg **cfg,
		   struct ws_err *err)
{
	int rc = ws_cfg_parse_string(cfg, sw->base, sw->spec, sw->spec_dir, err);
	for (size_t i = 0; !rc && i < sw->args.n_sets; i++)
		rc = ws_cfg_set(*cfg, sw->args.sets[i], err);
	for (size_t i = 0; !rc && i < sw->n_axes; i++) {
		const struct axis *a = &sw->axes[i];
		char *kv;
		if (i < 64 && (e->skip >> i & 1))
			continue; /* a key of a plugin another experiment chose */
		if (asprintf(&kv, "%s=%s", a->key, a->values[e->pick[a->dim]]) < 0) {
			fprintf(stderr, "warpsim: out of memory\n");
			exit(EXIT_RUN);
		}
		rc = ws_cfg_set(*cfg, kv, err);
		if (rc) {
			char orig[sizeof err->msg];
			memcpy(orig, err->msg, sizeof orig);
			snprintf(err->msg, sizeof err->msg, "[sweep] axis %s, value '%.100s': "
				 "%.700s", a->key, a->values[e->pick[a->dim]], orig);
			snprintf(err->file, sizeof err->file, "%s", sw->spec);
			err->line = a->line;
		}
		free(kv);
	}
	return rc;
}

static struct ws_opts exp_opts(const struct sweep *sw)
{
	struct ws_opts o = {
		WS_INIT_SIZE(struct ws_opts),
		.plugin_path = sw->args.plugin_path,
		.stop = sw->stop,
		.max_memory = sw->args.max_memory,
		.fabric_cache = sw->cache,
	};
	return o;
}

/* A file the accelerator keeps across runs ([accel] memo_db): experiments
 * running at once would read and write it in whatever order they ran, so a
 * sweep refuses it (`share = true` is the sweep's way). */
static int refuse_memo_db(const struct sweep *sw, const struct exp *e,
			  const struct ws_sim *sim, struct ws_err *err)
{
	const struct ws_inst *in = ws_sim_instance(sim, WS_KIND_ACCEL);
	if (!in || !in->plugin->params || !in->conf)
		return WS_OK;
	for (const struct ws_param *q = in->plugin->params; q->key; q++) {
		char v[512];
		if (strcmp(q->key, "memo_db"))
			continue;
		ws_param_format(q, (const char *)in->conf + q->offset, v, sizeof v);
		if (v[0] && strcmp(v, "\"\""))
			return ws_err_at(err, WS_EINVAL, sw->spec, 0, "[sweep] experiment %s: "
					 "[accel] memo_db = %s: a sweep's experiments run at once "
					 "and cannot share one memo file (remove it; `share = "
					 "true` in [sweep] shares what wormhole learns, "
					 "deterministically)", e->name, v);
	}
	return WS_OK;
}

/* The files an experiment's simulation read (traces, CDFs, topology
 * files...), added to the sweep's list once each. */
static void note_inputs(struct sweep *sw, const struct ws_sim *sim)
{
	const char *p;
	for (size_t i = 0; (p = ws_sim_input_file(sim, i)); i++) {
		size_t k = 0;
		while (k < sw->n_inputs && strcmp(sw->inputs[k], p))
			k++;
		if (k < sw->n_inputs)
			continue;
		sw->inputs = tool_xrealloc(sw->inputs, sw->n_inputs + 1, sizeof *sw->inputs);
		size_t l = strlen(p) + 1;
		sw->inputs[sw->n_inputs] = memcpy(tool_xcalloc(l, 1), p, l);
		sw->n_inputs++;
	}
}

static bool hash_file(const char *path, uint64_t *len, uint64_t *hash);

/* A file's XXH64, remembered by path (plugins are hashed once a sweep). */
static uint64_t build_hash(struct sweep *sw, const char *path)
{
	for (size_t k = 0; k < sw->n_builds; k++)
		if (!strcmp(sw->builds[k].path, path))
			return sw->builds[k].hash;
	uint64_t len = 0, h = 0;
	if (!hash_file(path, &len, &h))
		h = UINT64_MAX;
	sw->builds = tool_xrealloc(sw->builds, sw->n_builds + 1, sizeof *sw->builds);
	sw->builds[sw->n_builds].path = strdup(path);
	sw->builds[sw->n_builds++].hash = h ^ len;
	return h ^ len;
}

/* What an experiment's results depend on beyond the spec: each plugin's
 * parameters as it holds them (defaults filled in) and the file it was
 * loaded from, and the warpsim library (the kernel's defaults). */
static uint64_t exp_build(struct sweep *sw, const struct ws_sim *sim)
{
	XXH64_state_t *s = XXH64_createState();
	XXH64_reset(s, 0xb0b);
	Dl_info di;
	if (dladdr((void *)ws_sim_new, &di) && di.dli_fname) {
		uint64_t h = build_hash(sw, di.dli_fname);
		XXH64_update(s, &h, sizeof h);
	}
	for (int k = WS_KIND_TOPO; k <= WS_KIND_WORKLOAD; k++) {
		const struct ws_inst *in = ws_sim_instance(sim, (enum ws_kind)k);
		if (!in)
			continue;
		XXH64_update(s, in->plugin->name, strlen(in->plugin->name) + 1);
		for (const struct ws_param *q = in->conf ? in->plugin->params : NULL; q && q->key; q++) {
			char v[512];
			ws_param_format(q, (const char *)in->conf + q->offset, v, sizeof v);
			XXH64_update(s, q->key, strlen(q->key) + 1);
			XXH64_update(s, v, strlen(v) + 1);
		}
		if (dladdr((const void *)in->plugin, &di) && di.dli_fname) {
			uint64_t h = build_hash(sw, di.dli_fname);
			XXH64_update(s, &h, sizeof h);
		}
	}
	uint64_t h = XXH64_digest(s);
	XXH64_freeState(s);
	return h;
}

/* The axis an error is about when it is a plugin's unknown key ("--set
 * cc.base_target" for dcqcn): its index, or -1. */
static int unknown_plugin_key(const struct sweep *sw, const struct ws_err *err)
{
	const char *set = "--set ";
	if (strncmp(err->file, set, strlen(set)) || !strstr(err->msg, "unknown key '"))
		return -1;
	for (size_t i = 0; i < sw->n_axes && i < 64; i++)
		if (!strcmp(err->file + strlen(set), sw->axes[i].key))
			return (int)i;
	return -1;
}

/* An experiment's simulation; an axis whose key the plugin it chose does
 * not declare is left out of it (noted on the axis) and it is built again. */
static int exp_sim(struct sweep *sw, struct exp *e, const struct ws_opts *opts,
		   struct ws_cfg **cfg, struct ws_sim **sim, struct ws_err *err)
{
	for (;;) {
		int rc = exp_cfg(sw, e, cfg, err);
		if (rc || !(rc = ws_sim_new(sim, *cfg, opts, err)))
			return rc;
		int k = unknown_plugin_key(sw, err);
		if (k < 0 || (e->skip >> k & 1)) {
			blame_axis(sw, e, err);
			return rc;
		}
		struct axis *a = &sw->axes[k];
		if (!a->ignored++) {
			const char *p = strstr(err->msg, " plugin '");
			snprintf(a->ignored_by, sizeof a->ignored_by, "%.60s: %.*s", e->name,
				 p ? (int)strcspn(p + 9, "'") : 1, p ? p + 9 : "?");
			blame_axis(sw, e, err);
			snprintf(a->why_none, sizeof a->why_none, "%.200s:%d: %.380s", err->file,
				 err->line, err->msg);
		}
		e->skip |= UINT64_C(1) << k;
		ws_cfg_free(*cfg);
		*cfg = NULL;
		ws_err_clear(err);
	}
}

/* Axes of plugin keys: ignored where the chosen plugin lacks the key (a
 * note), refused when every experiment's plugin lacks it. */
static int check_ignored(const struct sweep *sw, struct ws_err *err)
{
	for (size_t i = 0; i < sw->n_axes; i++) {
		const struct axis *a = &sw->axes[i];
		if (!a->ignored)
			continue;
		if (a->ignored == sw->n_ex)
			return ws_err_set(err, WS_EINVAL, "%s (no experiment's plugin declares "
					  "%s)", a->why_none, a->key);
		if (!sw->args.quiet)
			fprintf(stderr, "warpsim sweep: note: [sweep] axis %s is ignored by the "
				"%zu experiment%s whose plugin does not declare it (first: %s)\n",
				a->key, a->ignored, a->ignored == 1 ? "" : "s", a->ignored_by);
	}
	return WS_OK;
}

/* Build every experiment once (sharing fabrics through the cache): any
 * error stops the sweep before anything ran.  Also: each one's cost, share
 * key and build digest. */
static int validate(struct sweep *sw, struct ws_err *err)
{
	struct ws_opts opts = exp_opts(sw);
	for (size_t i = 0; i < sw->n_ex; i++) {
		struct exp *e = &sw->ex[i];
		struct ws_cfg *cfg = NULL;
		struct ws_sim *sim = NULL;
		int rc = exp_sim(sw, e, &opts, &cfg, &sim, err);
		if (rc) {
			ws_cfg_free(cfg);
			return rc;
		}
		if ((rc = refuse_memo_db(sw, e, sim, err))) {
			ws_sim_free(sim);
			ws_cfg_free(cfg);
			return rc;
		}
		note_inputs(sw, sim);
		struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
		ws_sim_get_stats(sim, &st);
		e->cost = (double)(st.flows_expected + 1) * ws_sim_fabric(sim)->n_ports;
		e->shares = sw->share && ws_sim_accel_share_key(sim, &e->share_key);
		e->build = exp_build(sw, sim);
		ws_sim_free(sim);
		ws_cfg_free(cfg);
	}
	return check_ignored(sw, err);
}

/* Share groups: experiments with equal keys, members in spec order. */
static void make_groups(struct sweep *sw)
{
	sw->group_members = tool_xcalloc(sw->n_ex, sizeof *sw->group_members);
	sw->group_n = tool_xcalloc(sw->n_ex, sizeof *sw->group_n);
	for (size_t i = 0; i < sw->n_ex; i++) {
		struct exp *e = &sw->ex[i];
		if (!e->shares)
			continue;
		size_t g = 0;
		while (g < sw->n_groups &&
		       sw->ex[sw->group_members[g][0]].share_key != e->share_key)
			g++;
		if (g == sw->n_groups)
			sw->n_groups++;
		sw->group_members[g] = tool_xrealloc(sw->group_members[g], sw->group_n[g] + 1,
						     sizeof **sw->group_members);
		e->group = g;
		e->member = sw->group_n[g];
		sw->group_members[g][sw->group_n[g]++] = i;
	}
}

static size_t wave_of(const struct sweep *sw, const struct exp *e)
{
	return e->member / sw->wave;
}

/* ---- one experiment (any rank, any worker thread) ------------------------------------ */

static const char *const ROW_HEAD =
	"status,flows,flows_done,sim_time_s,slowdown_mean,slowdown_p50,slowdown_p99,"
	"slowdown_max,iteration_s,exposed_comm,drops,pfc_pauses,ecn_marks,events,wall_s";

static void put_num(char *buf, size_t n, size_t *w, double v)
{
	if (*w >= n)
		return;
	*w += (size_t)snprintf(buf + *w, n - *w, isfinite(v) ? ",%.9g" : ",", v);
}

/* The metrics columns (ROW_HEAD) of a run that wrote its outputs to `dir`. */
static char *metrics_row(struct ws_sim *sim, const char *dir, const char *status)
{
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	struct ws_fct_stats fs = { WS_INIT_SIZE(struct ws_fct_stats) };
	ws_sim_fct_stats(sim, &fs);
	static const char *const keys[] = { "workload.iteration_mean_s",
					    "workload.exposed_comm_share" };
	double wl[2];
	struct ws_err err;
	ws_err_clear(&err);
	tool_summary_numbers(dir, keys, wl, 2, &err);
	char buf[1024];
	size_t w = (size_t)snprintf(buf, sizeof buf, "%s,%u,%u", status, st.flows,
				    st.flows_done);
	put_num(buf, sizeof buf, &w, (double)st.now / 1e12);
	put_num(buf, sizeof buf, &w, fs.n ? fs.mean : NAN);
	put_num(buf, sizeof buf, &w, fs.n ? fs.p50 : NAN);
	put_num(buf, sizeof buf, &w, fs.n ? fs.p99 : NAN);
	put_num(buf, sizeof buf, &w, fs.n ? fs.max : NAN);
	put_num(buf, sizeof buf, &w, wl[0]);
	put_num(buf, sizeof buf, &w, wl[1]);
	if (w < sizeof buf)
		w += (size_t)snprintf(buf + w, sizeof buf - w, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				      ",%" PRIu64, st.drops, st.pfc_pauses, st.ecn_marks,
				      st.events);
	put_num(buf, sizeof buf, &w, st.wall_run_s);
	return strdup(buf);
}

/* How a run ended, as results.csv says it. */
static const char *run_status(struct ws_sim *sim, int rc, const struct ws_err *err)
{
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	if (rc)
		return err->code == WS_EDEADLOCK ? "deadlock" : "failed";
	if (ws_sim_stopped(sim))
		return "stopped";
	if (st.flows_done < st.flows && !ws_pending_events(sim))
		return st.aborted ? "aborted" : "deadlock";
	return "ok";
}

/* A file's length and XXH64 (seed 0) of its contents; false if it cannot
 * be read. */
static bool hash_file(const char *path, uint64_t *len, uint64_t *hash)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	XXH64_state_t *s = XXH64_createState();
	XXH64_reset(s, 0);
	char buf[65536];
	size_t n;
	*len = 0;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		XXH64_update(s, buf, n);
		*len += n;
	}
	bool ok = !ferror(f);
	fclose(f);
	*hash = XXH64_digest(s);
	XXH64_freeState(s);
	return ok;
}

/* An experiment's outputs: the regular files of its directory but
 * sweep.txt and temporaries, by name. */
static int output_file(const struct dirent *d)
{
	size_t l = strlen(d->d_name);
	return d->d_name[0] != '.' && strcmp(d->d_name, "sweep.txt") &&
	       !(l > 4 && !strcmp(d->d_name + l - 4, ".tmp"));
}

/* "file NAME LENGTH HASH" per output into f; false if one cannot be read. */
static bool list_outputs(const char *dir, FILE *f)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, output_file, alphasort);
	if (n < 0)
		return false;
	bool ok = true;
	for (int i = 0; i < n; i++) {
		char path[PATH_LEN + 300];
		struct stat st;
		uint64_t len, hash;
		snprintf(path, sizeof path, "%s/%s", dir, ents[i]->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (hash_file(path, &len, &hash))
				fprintf(f, "file %s %" PRIu64 " %016" PRIx64 "\n",
					ents[i]->d_name, len, hash);
			else
				ok = false;
		}
		free(ents[i]);
	}
	free(ents);
	return ok;
}

/*
 * The file that says an experiment is done, written last, whole or not at
 * all: its assignment, the spec's digest, its row, then a line per output
 * (name, length, XXH64) and a check line, the XXH64 of everything above.
 * A resume keeps the experiment only if all of it still holds.
 */
static int write_done(const struct sweep *sw, const struct exp *e, const char *dir,
		      const char *row, struct ws_err *err)
{
	char as[2048];
	assignment(sw, e, as, sizeof as);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m) {
		fprintf(stderr, "warpsim: out of memory\n");
		exit(EXIT_RUN);
	}
	fprintf(m, "%s\n%016" PRIx64 " %016" PRIx64 "\n%s\n", as, sw->digest, e->build, row);
	bool listed = list_outputs(dir, m);
	if (fclose(m) || !text) {
		fprintf(stderr, "warpsim: out of memory\n");
		exit(EXIT_RUN);
	}
	if (!listed) {
		free(text);
		return ws_err_at(err, WS_EIO, dir, 0, "cannot read back its outputs to "
				 "record them in sweep.txt: %s", strerror(errno));
	}
	struct ws_outfile *o = ws_outfile_open(dir, "sweep.txt", err);
	if (!o) {
		free(text);
		return err->code;
	}
	fprintf(ws_outfile_stream(o), "%scheck %016" PRIx64 "\n", text,
		(uint64_t)XXH64(text, len, 0));
	free(text);
	return ws_outfile_commit(o, err);
}

static int save_learned(const char *dir, const void *blob, size_t len, struct ws_err *err)
{
	struct ws_outfile *o = ws_outfile_open(dir, "learned.bin", err);
	if (!o)
		return err->code;
	fwrite(blob, 1, len, ws_outfile_stream(o));
	return ws_outfile_commit(o, err);
}

/*
 * A job's result, as shipped to rank 0: the rank that ran it (an int),
 * the row (NUL-terminated), then what the accelerator learned.
 */
static void *pack(const char *row, const void *learned, size_t len, size_t *out_len)
{
	int rank = dist_rank();
	size_t rl = strlen(row) + 1;
	char *b = tool_xcalloc(sizeof rank + rl + len, 1);
	memcpy(b, &rank, sizeof rank);
	memcpy(b + sizeof rank, row, rl);
	if (len)
		memcpy(b + sizeof rank + rl, learned, len);
	*out_len = sizeof rank + rl + len;
	return b;
}

static void exp_dir(const struct sweep *sw, const struct exp *e, char *dir, size_t n)
{
	if (snprintf(dir, n, "%s/%s", sw->out, e->name) >= (int)n)
		dir[0] = '\0';
}

/* A running experiment, for its progress callback. */
struct running {
	struct sweep *sw;
	const struct exp *e;
};

/* At most twice a second, whichever experiment calls: the count done and
 * this experiment's simulated time and flows. */
static void exp_progress(void *ctx, const struct ws_sim *sim, bool done)
{
	const struct running *r = ctx;
	struct sweep *sw = r->sw;
	double now = tool_wall_seconds();
	pthread_mutex_lock(&sw->term_lock);
	if (!done && now - sw->term_last >= 0.5) {
		struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
		ws_sim_get_stats(sim, &st);
		char t[64];
		tool_fmt_time(t, sizeof t, st.now);
		fprintf(stderr, "\r\033[K  %zu/%zu done  |  %s: simulated %s, flows %u/%u",
			sw->n_done, sw->n_ex, r->e->name, t, st.flows_done, st.flows);
		sw->term_shown = true;
		sw->term_last = now;
	}
	pthread_mutex_unlock(&sw->term_lock);
}

static int job_run(void *ctx, size_t j, const void *in, size_t in_len, void **out,
		   size_t *out_len)
{
	struct sweep *sw = ctx;
	struct exp *e = &sw->ex[j];
	char dir[PATH_LEN];
	exp_dir(sw, e, dir, sizeof dir);
	struct ws_opts opts = exp_opts(sw);
	struct running running = { sw, e };
	if (sw->tty) {
		opts.on_progress = exp_progress;
		opts.ctx = &running;
	}
	struct ws_cfg *cfg = NULL;
	struct ws_sim *sim = NULL;
	struct ws_err err;
	ws_err_clear(&err);
	int rc = exp_cfg(sw, e, &cfg, &err);
	if (!rc)
		rc = ws_sim_new(&sim, cfg, &opts, &err);
	if (!rc)
		rc = ws_sim_set_output_dir(sim, dir, &err);
	if (!rc && in_len)
		rc = ws_sim_accel_import(sim, in, in_len, &err);
	if (rc) {
		char msg[1200], row[1400];
		ws_err_format(&err, msg, sizeof msg);
		fprintf(stderr, "warpsim sweep: %s: %s\n", e->name, msg);
		snprintf(row, sizeof row, "failed,,,,,,,,,,,,,,");
		ws_sim_free(sim);
		ws_cfg_free(cfg);
		*out = pack(row, NULL, 0, out_len);
		return 1;
	}
	ws_err_clear(&err);
	rc = ws_sim_run(sim, WS_TIME_NEVER, &err);
	const char *status = run_status(sim, rc, &err);
	if (rc) {
		char msg[1200];
		ws_err_format(&err, msg, sizeof msg);
		fprintf(stderr, "warpsim sweep: %s: %s\n", e->name, msg);
	}
	if (ws_sim_stopped(sim))
		ws_sim_set_incomplete(sim, "the sweep was interrupted");
	ws_err_clear(&err);
	int wrc = ws_sim_write_outputs(sim, dir, &err);
	if (wrc) {
		char msg[1200];
		ws_err_format(&err, msg, sizeof msg);
		fprintf(stderr, "warpsim sweep: %s: %s\n", e->name, msg);
		status = "failed";
	}
	char *row = metrics_row(sim, dir, status);
	void *learned = NULL;
	size_t len = 0;
	if (e->shares && !strcmp(status, "ok")) {
		ws_err_clear(&err);
		if (ws_sim_accel_export(sim, &learned, &len, &err) ||
		    (len && save_learned(dir, learned, len, &err))) {
			char msg[1200];
			ws_err_format(&err, msg, sizeof msg);
			fprintf(stderr, "warpsim sweep: %s: %s\n", e->name, msg);
		}
	}
	/* done: a later sweep skips it (a stopped or failed one runs again) */
	if (!strcmp(status, "ok") || !strcmp(status, "deadlock") || !strcmp(status, "aborted")) {
		ws_err_clear(&err);
		if (write_done(sw, e, dir, row, &err)) {
			char msg[1200];
			ws_err_format(&err, msg, sizeof msg);
			fprintf(stderr, "warpsim sweep: %s: %s\n", e->name, msg);
		}
	}
	*out = pack(row, learned, len, out_len);
	free(row);
	free(learned);
	ws_sim_free(sim);
	ws_cfg_free(cfg);
	return strcmp(status, "ok") != 0;
}

/* ---- rank 0: scheduling, inputs, results ---------------------------------------------- */

/* input()'s status for an experiment an earlier sweep completed: dist
 * does not run it (every rank is handed the whole grid; rank 0 alone
 * knows which experiments are kept). */
#define JOB_KEPT 0x4b45

/* All members of its group in earlier waves are done. */
static bool job_ready(void *ctx, size_t j)
{
	struct sweep *sw = ctx;
	const struct exp *e = &sw->ex[j];
	if (e->resumed || !e->shares)
		return true;
	size_t upto = wave_of(sw, e) * sw->wave;
	for (size_t m = 0; m < upto; m++)
		if (!sw->ex[sw->group_members[e->group][m]].done)
			return false;
	return true;
}

/* What the members of earlier waves learned, concatenated in spec order. */
static int job_input(void *ctx, size_t j, void **in, size_t *len)
{
	struct sweep *sw = ctx;
	const struct exp *e = &sw->ex[j];
	*in = NULL;
	*len = 0;
	if (e->resumed)
		return JOB_KEPT;
	if (!e->shares)
		return 0;
	size_t upto = wave_of(sw, e) * sw->wave, total = 0;
	for (size_t m = 0; m < upto; m++)
		total += sw->ex[sw->group_members[e->group][m]].learned_len;
	if (!total)
		return 0;
	char *b = tool_xcalloc(total, 1);
	size_t w = 0;
	for (size_t m = 0; m < upto; m++) {
		const struct exp *p = &sw->ex[sw->group_members[e->group][m]];
		if (p->learned_len) /* NULL when it learnt nothing */
			memcpy(b + w, p->learned, p->learned_len);
		w += p->learned_len;
	}
	*in = b;
	*len = total;
	return 0;
}

static void fmt_eta(char *buf, size_t n, double s)
{
	if (s < 60)
		snprintf(buf, n, "%.0f s", s);
	else if (s < 3600)
		snprintf(buf, n, "%d min %02d s", (int)(s / 60), (int)s % 60);
	else
		snprintf(buf, n, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
}

static void print_done(struct sweep *sw, const struct exp *e, int rank);

static void job_done(void *ctx, size_t j, int status, const void *out, size_t len)
{
	struct sweep *sw = ctx;
	struct exp *e = &sw->ex[j];
	if (status == JOB_KEPT)
		return;
	int rank = -1;
	if (out && len >= sizeof rank) {
		memcpy(&rank, out, sizeof rank);
		out = (const char *)out + sizeof rank;
		len -= sizeof rank;
	} else {
		out = NULL;
	}
	const char *row = out;
	size_t rl = out ? strnlen(row, len) : 0;
	free(e->row);
	e->row = out && rl < len ? strndup(row, rl) : strdup("failed,,,,,,,,,,,,,,");
	if (out && rl + 1 < len) {
		e->learned_len = len - rl - 1;
		e->learned = tool_xcalloc(e->learned_len, 1);
		memcpy(e->learned, row + rl + 1, e->learned_len);
	}
	e->done = true;
	pthread_mutex_lock(&sw->term_lock);
	sw->n_done++;
	sw->n_run++;
	if (strncmp(e->row, "ok,", 3))
		sw->n_failed++;
	if (!sw->args.quiet)
		print_done(sw, e, rank);
	pthread_mutex_unlock(&sw->term_lock);
}

/* A finished experiment's line on stdout (under term_lock). */
static void print_done(struct sweep *sw, const struct exp *e, int rank)
{
	if (sw->term_shown) {
		fputs("\r\033[K", stderr);
		sw->term_shown = false;
	}
	double el = tool_wall_seconds() - sw->t0;
	char eta[32] = "";
	if (sw->n_run < sw->n_to_run) {
		char t[24];
		fmt_eta(t, sizeof t, el / (double)sw->n_run * (double)(sw->n_to_run - sw->n_run));
		snprintf(eta, sizeof eta, ", ETA %s", t);
	}
	/* the row's status, flows, slowdown mean and p99, wall seconds */
	char f[16][40];
	size_t nf = 0;
	for (const char *c = e->row; nf < 16; nf++) {
		size_t l = strcspn(c, ",");
		snprintf(f[nf], sizeof f[nf], "%.*s", (int)(l < 39 ? l : 39), c);
		if (!c[l])
			break;
		c += l + 1;
	}
	printf("[%zu/%zu%s] %s: %s", sw->n_done, sw->n_ex, eta, e->name, f[0]);
	if (nf >= 14 && f[1][0]) {
		printf(", %s/%s flows", f[2], f[1]);
		if (f[4][0])
			printf(", slowdown mean %.3g p99 %.3g", strtod(f[4], NULL),
			       strtod(f[6], NULL));
		printf(", %.3g s", strtod(f[14], NULL));
	}
	if (dist_size() > 1 && rank >= 0)
		printf(" (rank %d)", rank);
	printf("\n");
	fflush(stdout);
}

#define SWEEP_TXT_MAX (1u << 20)

/* Every output sweep.txt lists is there with its length and hash; else
 * why not, into why. */
static bool outputs_hold(const char *dir, char *lines, char *why, size_t n)
{
	for (char *l = lines; *l; ) {
		char *next = strchr(l, '\n');
		*next = '\0';
		char name[256];
		uint64_t len, hash, got_len, got_hash;
		if (sscanf(l, "file %255s %" SCNu64 " %" SCNx64, name, &len, &hash) != 3) {
			snprintf(why, n, "its sweep.txt is damaged");
			return false;
		}
		char path[PATH_LEN + 300];
		snprintf(path, sizeof path, "%s/%s", dir, name);
		if (!hash_file(path, &got_len, &got_hash)) {
			snprintf(why, n, "%s is missing (%s)", name, strerror(errno));
			return false;
		}
		if (got_len != len || got_hash != hash) {
			snprintf(why, n, "%s changed since the sweep completed it", name);
			return false;
		}
		l = next + 1;
	}
	return true;
}

/* Read sweep.txt whole (NULL: absent, too long or unreadable). */
static char *read_done(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *text = tool_xcalloc(SWEEP_TXT_MAX + 1, 1);
	*len = fread(text, 1, SWEEP_TXT_MAX + 1, f);
	bool bad = ferror(f) || *len > SWEEP_TXT_MAX || memchr(text, '\0', *len);
	fclose(f);
	if (bad) {
		free(text);
		return NULL;
	}
	return text;
}

/* Check sweep.txt: its check line, assignment, digest and outputs.  The
 * row (NUL-terminated inside text) into *row; else why not. */
static bool done_holds(const struct sweep *sw, const struct exp *e, const char *dir,
		       char *text, size_t len, char **row, char *why, size_t n)
{
	char *check = len ? memrchr(text, '\n', len - 1) : NULL;
	uint64_t want;
	check = check ? check + 1 : text;
	if (!len || text[len - 1] != '\n' ||
	    sscanf(check, "check %" SCNx64, &want) != 1 ||
	    XXH64(text, (size_t)(check - text), 0) != want) {
		snprintf(why, n, "its sweep.txt is damaged, edited or from an older warpsim");
		return false;
	}
	*check = '\0';
	char *l[3];
	char *p = text;
	for (int i = 0; i < 3; i++) {
		char *nl = strchr(p, '\n');
		if (!nl) {
			snprintf(why, n, "its sweep.txt is damaged");
			return false;
		}
		*nl = '\0';
		l[i] = p;
		p = nl + 1;
	}
	char as[2048], dg[32], bd[32];
	assignment(sw, e, as, sizeof as);
	snprintf(dg, sizeof dg, "%016" PRIx64, sw->digest);
	snprintf(bd, sizeof bd, " %016" PRIx64, e->build);
	if (strcmp(l[0], as)) {
		snprintf(why, n, "its directory holds another experiment");
		return false;
	}
	if (strncmp(l[1], dg, 16)) {
		snprintf(why, n, "the spec, the --set options or an input file changed");
		return false;
	}
	if (strcmp(l[1] + 16, bd)) {
		snprintf(why, n, "a plugin or the warpsim library was rebuilt, or an "
			 "effective parameter (a default) changed");
		return false;
	}
	*row = l[2];
	return outputs_hold(dir, p, why, n);
}

/* An experiment an earlier sweep of the same spec completed, if its
 * sweep.txt and every output it lists still hold: its row (and what it
 * learned) from there.  Otherwise it runs again, e->why saying why (empty
 * when it never completed). */
static bool resume_one(struct sweep *sw, struct exp *e)
{
	char dir[PATH_LEN], path[PATH_LEN + 32];
	exp_dir(sw, e, dir, sizeof dir);
	snprintf(path, sizeof path, "%s/sweep.txt", dir);
	e->why[0] = '\0';
	size_t len = 0;
	char *text = read_done(path, &len);
	if (!text) {
		if (access(path, F_OK) == 0)
			snprintf(e->why, sizeof e->why, "its sweep.txt cannot be read");
		return false;
	}
	char *row = NULL;
	bool ok = done_holds(sw, e, dir, text, len, &row, e->why, sizeof e->why);
	snprintf(path, sizeof path, "%s/learned.bin", dir);
	FILE *f;
	if (ok && e->shares && (f = fopen(path, "rb"))) {
		struct stat st;
		if (fstat(fileno(f), &st) == 0 && st.st_size > 0) {
			e->learned_len = (size_t)st.st_size;
			e->learned = tool_xcalloc(e->learned_len, 1);
			ok = fread(e->learned, 1, e->learned_len, f) == e->learned_len;
		}
		fclose(f);
		if (!ok)
			snprintf(e->why, sizeof e->why, "learned.bin cannot be read");
	}
	if (ok) {
		e->row = strdup(row);
		e->done = e->resumed = true;
	} else {
		free(e->learned);
		e->learned = NULL;
		e->learned_len = 0;
	}
	free(text);
	return ok;
}

static int write_results(const struct sweep *sw, struct ws_err *err)
{
	struct ws_outfile *o = ws_outfile_open(sw->out, "results.csv", err);
	if (!o)
		return err->code;
	FILE *f = ws_outfile_stream(o);
	fputs("experiment", f);
	for (size_t i = 0; i < sw->n_axes; i++) {
		fputc(',', f);
		tool_csv_put(f, sw->axes[i].key);
	}
	fprintf(f, ",%s\n", ROW_HEAD);
	for (size_t i = 0; i < sw->n_ex; i++) {
		const struct exp *e = &sw->ex[i];
		tool_csv_put(f, e->name);
		for (size_t a = 0; a < sw->n_axes; a++) {
			fputc(',', f); /* empty: the key is not its plugin's (ignored) */
			tool_csv_put(f, a < 64 && (e->skip >> a & 1) ? ""
				  : sw->axes[a].values[e->pick[sw->axes[a].dim]]);
		}
		fprintf(f, ",%s\n", e->row ? e->row : "not_run,,,,,,,,,,,,,,");
	}
	return ws_outfile_commit(o, err);
}

/* ---- the command ---------------------------------------------------------------------- */

static int sweep_opt(int id, const char *arg, void *ctx)
{
	struct sweep *sw = ctx;
	if (id == OPT_DRY_RUN) {
		sw->dry_run = true;
		return 0;
	}
	if (id == 'j') {
		char *end;
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || *end || v < 1 || v > 1024) {
			fprintf(stderr, "warpsim sweep: -j '%s': expected a number of "
				"threads from 1 to 1024\n", arg);
			return EXIT_INPUT;
		}
		sw->threads = (int)v;
		return 0;
	}
	return run_opt(id, arg, &sw->args);
}

static int default_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long per = 1;
	/* ranks sharing this machine (Open MPI tells each rank) */
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	if (local && dist_size() > 1)
		per = strtol(local, NULL, 10);
	long t = cpus > 0 ? cpus / (per > 0 ? per : 1) : 1;
	return t < 1 ? 1 : (int)t;
}

static void set_out_dir(struct sweep *sw)
{
	if (sw->args.out) {
		snprintf(sw->out, sizeof sw->out, "%s", sw->args.out);
		return;
	}
	const char *base = strrchr(sw->spec, '/');
	base = base ? base + 1 : sw->spec;
	size_t l = strlen(base);
	if (l > 4 && !strcmp(base + l - 4, ".ini"))
		l -= 4;
	snprintf(sw->out, sizeof sw->out, "out/%.*s", (int)l, base);
}

static void print_dry_run(const struct sweep *sw, const size_t *order)
{
	printf("warpsim sweep %s: %zu experiments (%zu axes", sw->spec, sw->n_ex, sw->n_axes);
	if (sw->n_dims < sw->n_axes)
		printf(", %zu dimensions", sw->n_dims);
	printf("), %zu fabric build%s, %zu share group%s; would write %s/results.csv\n",
	       ws_fabric_cache_builds(sw->cache), ws_fabric_cache_builds(sw->cache) == 1 ? "" : "s",
	       sw->n_groups, sw->n_groups == 1 ? "" : "s", sw->out);
	for (size_t i = 0; i < sw->n_ex; i++) {
		const struct exp *e = &sw->ex[i];
		char as[2048];
		assignment(sw, e, as, sizeof as);
		size_t pos = 0;
		while (order[pos] != i)
			pos++;
		printf("  %-32s %s  (runs #%zu", e->name, as, pos + 1);
		if (e->shares)
			printf(", share group %zu wave %zu", e->group + 1, wave_of(sw, e) + 1);
		printf(")\n");
	}
}

static int cmp_cost(const void *a, const void *b, void *ctx)
{
	const struct sweep *sw = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double cx = sw->ex[x].cost, cy = sw->ex[y].cost;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static uint64_t spec_digest(const struct sweep *sw)
{
	XXH64_state_t *s = XXH64_createState();
	XXH64_reset(s, 0x5eedu);
	XXH64_update(s, sw->base, strlen(sw->base));
	for (size_t i = 0; i < sw->args.n_sets; i++)
		XXH64_update(s, sw->args.sets[i], strlen(sw->args.sets[i]) + 1);
	/* the contents of every file an experiment reads: an edited trace
	 * runs everything again (an unreadable one hashes as such) */
	for (size_t i = 0; i < sw->n_inputs; i++) {
		uint64_t f[2] = { 0, 0 };
		XXH64_update(s, sw->inputs[i], strlen(sw->inputs[i]) + 1);
		if (!hash_file(sw->inputs[i], &f[0], &f[1]))
			f[0] = UINT64_MAX;
		XXH64_update(s, f, sizeof f);
	}
	uint64_t h = XXH64_digest(s);
	XXH64_freeState(s);
	return h;
}

static void sweep_free(struct sweep *sw)
{
	for (size_t k = 0; k < sw->n_builds; k++)
		free(sw->builds[k].path);
	free(sw->builds);
	for (size_t i = 0; i < sw->n_axes; i++) {
		for (size_t v = 0; v < sw->axes[i].n; v++)
			free(sw->axes[i].values[v]);
		free(sw->axes[i].values);
	}
	free(sw->axes);
	for (size_t i = 0; i < sw->n_ex; i++) {
		free(sw->ex[i].pick);
		free(sw->ex[i].row);
		free(sw->ex[i].learned);
	}
	free(sw->ex);
	for (size_t i = 0; i < sw->n_inputs; i++)
		free(sw->inputs[i]);
	free(sw->inputs);
	if (sw->group_members)
		for (size_t g = 0; g < sw->n_groups; g++)
			free(sw->group_members[g]);
	free(sw->group_members);
	free(sw->group_n);
	free(sw->dim_len);
	free(sw->base);
	ws_fabric_cache_free(sw->cache);
	free(sw->args.sets);
}

/* The spec and its grid: read, checked, the experiments listed. */
static int plan(struct sweep *sw, struct ws_err *err)
{
	const char *slash = strrchr(sw->spec, '/');
	if (slash)
		snprintf(sw->spec_dir, sizeof sw->spec_dir, "%.*s",
			 (int)(slash - sw->spec), sw->spec);
	else
		snprintf(sw->spec_dir, sizeof sw->spec_dir, ".");
	int rc = read_spec(sw, err);
	return rc ? rc : make_experiments(sw, err);
}

int tool_sweep_plan(const char *spec, size_t max_cfgs, size_t *n, struct ws_err *err)
{
	struct sweep sw = { .spec = spec, .wave = SHARE_WAVE_DEFAULT };
	int rc = plan(&sw, err);
	for (size_t i = 0; !rc && i < sw.n_ex && i < max_cfgs; i++) {
		struct ws_cfg *cfg = NULL;
		rc = exp_cfg(&sw, &sw.ex[i], &cfg, err);
		ws_cfg_free(cfg);
	}
	*n = rc ? 0 : sw.n_ex;
	sweep_free(&sw);
	return rc;
}

/* Everything up to running: the spec, the grid, validation, the order. */
static int prepare(struct sweep *sw, size_t **order, struct ws_err *err)
{
	int rc = plan(sw, err);
	if (!rc)
		rc = ws_fabric_cache_new(&sw->cache, err);
	if (!rc)
		rc = validate(sw, err);
	if (rc)
		return rc;
	sw->digest = spec_digest(sw);
	make_groups(sw);
	*order = tool_xcalloc(sw->n_ex, sizeof **order);
	for (size_t i = 0; i < sw->n_ex; i++)
		(*order)[i] = i;
	qsort_r(*order, sw->n_ex, sizeof **order, cmp_cost, sw);
	return WS_OK;
}

/* Run what an earlier sweep did not complete; rank 0 writes results.csv.
 * The exit status: 0, EXIT_RUN (an experiment failed, results.csv could not
 * be written), EXIT_STOPPED (a signal). */
static int run_all(struct sweep *sw, size_t *order, bool lead)
{
	struct ws_err err;
	ws_err_clear(&err);
	if (tool_mkdir_p(sw->out, &err)) {
		if (lead)
			tool_print_error(&err);
		return EXIT_RUN;
	}
	/* kept experiments first (dist hands them out and done() skips them) */
	size_t *rest = tool_xcalloc(sw->n_ex, sizeof *rest);
	size_t n_kept = 0, n_rest = 0;
	for (size_t k = 0; k < sw->n_ex; k++) {
		struct exp *e = &sw->ex[order[k]];
		if (lead && resume_one(sw, e))
			order[n_kept++] = order[k];
		else
			rest[n_rest++] = order[k];
		if (lead && e->why[0])
			fprintf(stderr, "warpsim sweep: %s: run again: %s\n", e->name, e->why);
	}
	memcpy(order + n_kept, rest, n_rest * sizeof *rest);
	free(rest);
	sw->n_resumed = n_kept;
	sw->n_done = n_kept;
	sw->n_to_run = n_rest;
	if (lead && !sw->args.quiet) {
		size_t b = ws_fabric_cache_builds(sw->cache);
		printf("warpsim sweep %s: %zu experiments", sw->spec, sw->n_ex);
		if (sw->n_resumed)
			printf(" (%zu complete from an earlier sweep: kept)", sw->n_resumed);
		printf(", %d thread%s", sw->threads, sw->threads == 1 ? "" : "s");
		if (dist_size() > 1)
			printf(" x %d ranks", dist_size());
		printf(", %zu fabric build%s\n", b, b == 1 ? "" : "s");
		fflush(stdout);
	}
	struct dist_ops ops = {
		.ready = job_ready, .input = job_input, .run = job_run, .done = job_done,
	};
	sw->t0 = tool_wall_seconds();
	int drc = dist_run(sw->n_ex, order, sw->threads, &ops, sw, sw->stop);
	if (drc == DIST_E_MPI) {
		fprintf(stderr, "warpsim sweep: MPI failed (rank %d): stopping every rank\n",
			dist_rank());
		dist_abort(EXIT_RUN);
	}
	if (!lead)
		return drc < 0 ? EXIT_RUN : 0;
	int status = 0;
	if (write_results(sw, &err)) {
		tool_print_error(&err);
		status = EXIT_RUN;
	}
	bool stopped = tool_stop_signal() != 0;
	if (sw->term_shown)
		fputs("\r\033[K", stderr);
	if (!sw->args.quiet) {
		size_t b = ws_fabric_cache_builds(sw->cache);
		printf("  ran        %zu experiment%s in %.2f s (%zu failed or incomplete)%s; "
		       "%zu fabric build%s\n", sw->n_run, sw->n_run == 1 ? "" : "s",
		       tool_wall_seconds() - sw->t0, sw->n_failed,
		       stopped ? ", interrupted" : "", b, b == 1 ? "" : "s");
		printf("  results    %s/results.csv\n", sw->out);
	}
	if (drc < 0 && drc != DIST_E_MPI)
		fprintf(stderr, "warpsim sweep: the job pool failed (%s)\n",
			drc == DIST_E_STUCK ? "experiments left waiting for others that never ran"
			: drc == DIST_E_THREAD ? "a worker thread could not be created"
			: drc == DIST_E_TOO_BIG ? "an experiment's result over 2 GiB"
			: "out of memory");
	if (stopped)
		return EXIT_STOPPED;
	return status ? status : sw->n_failed || drc < 0 ? EXIT_RUN : 0;
}

int cmd_sweep(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct sweep sw = { .share = false, .wave = SHARE_WAVE_DEFAULT };
	int rc = dist_init(&argc, &argv);
	if (rc) {
		fprintf(stderr, "warpsim sweep: MPI could not start\n");
		return EXIT_RUN;
	}
	bool lead = dist_rank() == 0;
	rc = parse_opts(argc, argv, cmd, sweep_opt, &sw);
	if (!rc && optind != argc - 1) {
		fprintf(stderr, "warpsim sweep: expected one SPEC.ini, got %d arguments\n",
			argc - optind);
		usage_cmd(stderr, cmd);
		rc = EXIT_INPUT;
	}
	if (rc) {
		free(sw.args.sets);
		dist_finalize();
		return rc < 0 ? 0 : rc;
	}
	sw.spec = argv[optind];
	if (!sw.threads)
		sw.threads = default_threads();
	set_out_dir(&sw);
	sw.stop = tool_stop_signals(true);
	pthread_mutex_init(&sw.term_lock, NULL);
	sw.tty = lead && !sw.args.quiet && isatty(STDERR_FILENO);
	struct ws_err err;
	ws_err_clear(&err);
	size_t *order = NULL;
	sw.t0 = tool_wall_seconds();
	rc = prepare(&sw, &order, &err);
	if (rc) {
		if (lead)
			tool_print_error(&err);
		rc = EXIT_INPUT;
	} else if (sw.dry_run) {
		if (lead)
			print_dry_run(&sw, order);
	} else {
		rc = run_all(&sw, order, lead);
	}
	free(order);
	sweep_free(&sw);
	pthread_mutex_destroy(&sw.term_lock);
	tool_stop_signals(false);
	dist_finalize();
	return rc;
}
