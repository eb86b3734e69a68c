/* SPDX-License-Identifier: MIT */
/*
 * Comparing two runs (`warpsim compare RUN_A RUN_B`): how far run B, an
 * approximation (an acceleration plugin, another simulator's figures written
 * in our layout), is from run A, the reference (packet level).
 *
 * The inputs are two output directories of `warpsim run` (docs/outputs.md):
 * fct.csv, summary.json and, for the training workloads, iterations.csv.
 * Flows are matched by flow id, or by tag when every tag is unique in both
 * runs: the training workloads create flows as others complete, so their
 * ids follow the timing, while their tags name each transfer of each
 * collective whatever the timing.  A matched pair must agree on src, dst
 * and bytes, otherwise the runs are not of the same scenario and the
 * comparison is refused.  Flows
 * completed in only one run (one stopped early, or left flows incomplete)
 * are counted, not compared.
 *
 * The files are read strictly: the exact header, the exact field count,
 * integers as integers, times as nanoseconds with three decimals (exactly a
 * number of picoseconds, so FCTs are compared as integers of ps), a final
 * line end (a truncated file is refused rather than half compared).  Every
 * error names the file and, where one applies, the line.  summary.json goes
 * through a small validating JSON parser that keeps only the few numbers
 * needed, found by their place (results.events, results.sim_time_ps,
 * timing.run_s): a plugin's own report may reuse those key names deeper
 * down, and a garbled or truncated file must give an error, not a guess.
 *
 * Relative FCT error of a flow: |fct_B - fct_A| / fct_A; bias: the mean of
 * the signed (fct_B - fct_A) / fct_A; percentiles nearest-rank, as for the
 * slowdown in summary.json.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "tools.h"

#define FCT_HEADER "flow_id,src,dst,bytes,prio,start_ns,end_ns,fct_ns," \
		   "ideal_fct_ns,slowdown,tag"
#define ITER_HEADER "iteration,start_ns,end_ns,duration_ns,compute_bound_ns," \
		    "exposed_comm_ns,collectives,flows,network_bytes"

/* summary.json is a few KiB; anything far larger is not one */
#define SUMMARY_MAX_BYTES (64u << 20)
#define JSON_MAX_DEPTH 64
#define MAX_FIELDS 16

/* one completed flow of fct.csv */
struct cmp_flow {
	uint32_t id, src, dst;
	uint32_t line;   /* in fct.csv, for messages */
	uint64_t bytes;
	uint64_t tag;
	uint64_t key;    /* what flows are matched by: id, or tag */
	ws_time fct;
};

/* one completed iteration of iterations.csv */
struct cmp_iter {
	uint32_t id;
	uint32_t line;
	ws_time duration;
};

struct cmp_run {
	const char *dir;
	char fct_path[4200];
	char iter_path[4200];
	char summary_path[4200];
	struct cmp_flow *flows;
	size_t n_flows;
	struct cmp_iter *iters;
	size_t n_iters;
	bool have_iters;
	uint64_t events;
	ws_time sim_time;
	double run_s;
};

/* ---- CSV lines ------------------------------------------------------------------ */

struct csv_in {
	FILE *f;
	const char *path;
	char *line;
	size_t cap;
	int lineno;
	char *field[MAX_FIELDS];
	unsigned n;
};

static int csv_fail(struct csv_in *c, struct ws_err *err, const char *fmt, ...)
	WS_PRINTF(3, 4);

static int csv_fail(struct csv_in *c, struct ws_err *err, const char *fmt, ...)
{
	char msg[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ws_err_at(err, WS_EINVAL, c->path, c->lineno, "%s", msg);
}

/*
 * The next line split at commas into exactly `want` fields (0: the line
 * whole, not split).  Returns 1 for a line, 0 at the end of the file, or an
 * error.
 */
static int csv_next(struct csv_in *c, unsigned want, struct ws_err *err)
{
	errno = 0;
	ssize_t len = getline(&c->line, &c->cap, c->f);
	if (len < 0) {
		if (ferror(c->f))
			return ws_err_at(err, WS_EINVAL, c->path, 0, "cannot read: %s",
					 strerror(errno ? errno : EIO));
		return 0;
	}
	c->lineno++;
	if ((size_t)len != strlen(c->line))
		return csv_fail(c, err, "a NUL byte in the line (not a text file)");
	if (c->line[len - 1] != '\n')
		return csv_fail(c, err, "the line has no line end (a truncated file?)");
	c->line[--len] = '\0';
	if (len && c->line[len - 1] == '\r')
		c->line[--len] = '\0';
	if (len == 0)
		return csv_fail(c, err, "empty line");
	if (want == 0)
		return 1;
	c->n = 0;
	for (char *p = c->line;;) {
		if (c->n < MAX_FIELDS)
			c->field[c->n] = p;
		c->n++;
		char *comma = strchr(p, ',');
		if (!comma)
			break;
		*comma = '\0';
		p = comma + 1;
	}
	if (c->n != want)
		return csv_fail(c, err, "%u fields, expected %u", c->n, want);
	return 1;
}

/* Open `path` and check its header; *absent (if not NULL) tells a missing
 * file apart, without an error. */
static int csv_open(struct csv_in *c, const char *path, const char *header,
		    bool *absent, struct ws_err *err)
{
	memset(c, 0, sizeof *c);
	c->path = path;
	c->f = fopen(path, "r");
	if (!c->f) {
		if (absent && errno == ENOENT) {
			*absent = true;
			return WS_OK;
		}
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EINVAL, path, 0,
				 "cannot open: %s", strerror(errno));
	}
	if (absent)
		*absent = false;
	int rc = csv_next(c, 0, err);
	if (rc == 0)
		return ws_err_at(err, WS_EINVAL, path, 0,
				 "empty file (expected the header '%s')", header);
	if (rc < 0)
		return rc;
	if (strcmp(c->line, header) != 0)
		return csv_fail(c, err, "unexpected header '%.200s' (expected '%s')",
				c->line, header);
	return WS_OK;
}

static void csv_close(struct csv_in *c)
{
	if (c->f)
		fclose(c->f);
	free(c->line);
	c->f = NULL;
	c->line = NULL;
}

static int field_u64(struct csv_in *c, unsigned i, const char *col, uint64_t max,
		     uint64_t *out, struct ws_err *err)
{
	if (!ws_text_u64(c->field[i], out) || *out > max)
		return csv_fail(c, err, "%s '%.40s': expected an integer 0..%" PRIu64,
				col, c->field[i], max);
	return WS_OK;
}

static int field_u32(struct csv_in *c, unsigned i, const char *col,
		     uint32_t *out, struct ws_err *err)
{
	uint64_t v;
	int rc = field_u64(c, i, col, UINT32_MAX, &v, err);
	*out = (uint32_t)v;
	return rc;
}

/* Nanoseconds with exactly three decimals: an exact number of ps. */
static int field_ns(struct csv_in *c, unsigned i, const char *col, ws_time *out,
		    struct ws_err *err)
{
	const char *s = c->field[i];
	const char *dot = strchr(s, '.');
	char ns[32];
	uint64_t whole, frac;
	size_t n = dot ? (size_t)(dot - s) : 0;
	if (!dot || n == 0 || n >= sizeof ns || strlen(dot + 1) != 3)
		goto bad;
	memcpy(ns, s, n);
	ns[n] = '\0';
	if (!ws_text_u64(ns, &whole) || !ws_text_u64(dot + 1, &frac) ||
	    whole > (UINT64_MAX - 999) / 1000)
		goto bad;
	*out = whole * 1000 + frac;
	return WS_OK;
bad:
	return csv_fail(c, err, "%s '%.40s': expected nanoseconds with three "
			"decimals (e.g. 1234.560)", col, s);
}

static int field_real(struct csv_in *c, unsigned i, const char *col,
		      struct ws_err *err)
{
	const char *s = c->field[i];
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < 0 ||
	    !(s[0] >= '0' && s[0] <= '9'))
		return csv_fail(c, err, "%s '%.40s': expected a non-negative number",
				col, s);
	return WS_OK;
}

/* A duration written beside its start and end (field i) must be their
 * difference. */
static int check_span(struct csv_in *c, unsigned i, const char *col,
		      ws_time start, ws_time end, ws_time span, struct ws_err *err)
{
	if (end < start || end - start != span)
		return csv_fail(c, err, "%s '%s' is not end_ns - start_ns", col,
				c->field[i]);
	return WS_OK;
}

static int read_fct(struct cmp_run *r, struct ws_err *err)
{
	struct csv_in c;
	int rc = csv_open(&c, r->fct_path, FCT_HEADER, NULL, err);
	size_t cap = 0;
	while (!rc && (rc = csv_next(&c, 11, err)) == 1) {
		struct cmp_flow fl = { .line = (uint32_t)c.lineno };
		uint64_t prio;
		ws_time start, end, ideal;
		if ((rc = field_u32(&c, 0, "flow_id", &fl.id, err)) ||
		    (rc = field_u32(&c, 1, "src", &fl.src, err)) ||
		    (rc = field_u32(&c, 2, "dst", &fl.dst, err)) ||
		    (rc = field_u64(&c, 3, "bytes", UINT64_MAX, &fl.bytes, err)) ||
		    (rc = field_u64(&c, 4, "prio", UINT64_MAX, &prio, err)) ||
		    (rc = field_ns(&c, 5, "start_ns", &start, err)) ||
		    (rc = field_ns(&c, 6, "end_ns", &end, err)) ||
		    (rc = field_ns(&c, 7, "fct_ns", &fl.fct, err)) ||
		    (rc = field_ns(&c, 8, "ideal_fct_ns", &ideal, err)) ||
		    (rc = field_real(&c, 9, "slowdown", err)) ||
		    (rc = field_u64(&c, 10, "tag", UINT64_MAX, &fl.tag, err)) ||
		    (rc = check_span(&c, 7, "fct_ns", start, end, fl.fct, err)))
			break;
		/* matching walks both files in flow id order */
		if (r->n_flows && fl.id <= r->flows[r->n_flows - 1].id) {
			rc = csv_fail(&c, err, "flow_id %u after flow_id %u (expected "
				      "each flow once, in flow id order)", fl.id,
				      r->flows[r->n_flows - 1].id);
			break;
		}
		if (r->n_flows == cap) {
			cap = cap ? 2 * cap : 1024;
			r->flows = tool_xrealloc(r->flows, cap, sizeof *r->flows);
		}
		fl.key = fl.id;
		r->flows[r->n_flows++] = fl;
	}
	csv_close(&c);
	return rc < 0 ? rc : WS_OK;
}

static int read_iters(struct cmp_run *r, struct ws_err *err)
{
	struct csv_in c;
	bool absent = false;
	int rc = csv_open(&c, r->iter_path, ITER_HEADER, &absent, err);
	r->have_iters = !rc && !absent;
	size_t cap = 0;
	while (r->have_iters && (rc = csv_next(&c, 9, err)) == 1) {
		struct cmp_iter it = { .line = (uint32_t)c.lineno };
		uint64_t u;
		ws_time start, end, t;
		if ((rc = field_u32(&c, 0, "iteration", &it.id, err)) ||
		    (rc = field_ns(&c, 1, "start_ns", &start, err)) ||
		    (rc = field_ns(&c, 2, "end_ns", &end, err)) ||
		    (rc = field_ns(&c, 3, "duration_ns", &it.duration, err)) ||
		    (rc = field_ns(&c, 4, "compute_bound_ns", &t, err)) ||
		    (rc = field_ns(&c, 5, "exposed_comm_ns", &t, err)) ||
		    (rc = field_u64(&c, 6, "collectives", UINT64_MAX, &u, err)) ||
		    (rc = field_u64(&c, 7, "flows", UINT64_MAX, &u, err)) ||
		    (rc = field_u64(&c, 8, "network_bytes", UINT64_MAX, &u, err)) ||
		    (rc = check_span(&c, 3, "duration_ns", start, end, it.duration, err)))
			break;
		if (r->n_iters && it.id <= r->iters[r->n_iters - 1].id) {
			rc = csv_fail(&c, err, "iteration %u after iteration %u (expected "
				      "each iteration once, in order)", it.id,
				      r->iters[r->n_iters - 1].id);
			break;
		}
		if (r->n_iters == cap) {
			cap = cap ? 2 * cap : 64;
			r->iters = tool_xrealloc(r->iters, cap, sizeof *r->iters);
		}
		r->iters[r->n_iters++] = it;
	}
	csv_close(&c);
	return rc < 0 ? rc : WS_OK;
}

/* ---- summary.json ------------------------------------------------------------- */

/* a number wanted from summary.json: "section": { ..., "key": N } */
struct json_want {
	const char *section, *key;
	bool integer;   /* a non-negative integer (into u), else a number (d) */
	uint64_t *u;
	double *d;
	bool found;
};

struct json_in {
	const char *start, *p, *end;
	const char *path;
	struct json_want *want;
	size_t n_want;
	struct ws_err *err;
};

static int json_fail(struct json_in *j, const char *at, const char *fmt, ...)
	WS_PRINTF(3, 4);

static int json_fail(struct json_in *j, const char *at, const char *fmt, ...)
{
	int line = 1;
	for (const char *q = j->start; q < at && q < j->end; q++)
		line += *q == '\n';
	char msg[sizeof j->err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ws_err_at(j->err, WS_EINVAL, j->path, line, "%s", msg);
}

static void json_ws(struct json_in *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' ||
				 *j->p == '\r'))
		j->p++;
}

/* What stands at j->p, for messages. */
static const char *json_here(const struct json_in *j, char *buf, size_t n)
{
	if (j->p >= j->end)
		return "the end of the file (a truncated file?)";
	unsigned char c = (unsigned char)*j->p;
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, n, "'%c'", c);
	else
		snprintf(buf, n, "byte 0x%02x", c);
	return buf;
}

static int json_expected(struct json_in *j, const char *what)
{
	char b[16];
	return json_fail(j, j->p, "expected %s, found %s", what,
			 json_here(j, b, sizeof b));
}

/* A string; its raw contents (escapes not decoded) in *s, *n. */
static int json_string(struct json_in *j, const char **s, size_t *n)
{
	if (j->p >= j->end || *j->p != '"')
		return json_expected(j, "a string");
	const char *open = j->p++;
	*s = j->p;
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;
		if (c < 0x20)
			return json_fail(j, j->p, "a control character in a string");
		if (c == '\\') {
			j->p++;
			if (j->p >= j->end)
				break;
			if (*j->p == 'u') {
				for (int k = 1; k <= 4; k++)
					if (j->p + k >= j->end ||
					    !strchr("0123456789abcdefABCDEF", j->p[k]) ||
					    !j->p[k])
						return json_fail(j, j->p, "a bad \\u escape");
				j->p += 4;
			} else if (!*j->p || !strchr("\"\\/bfnrt", *j->p)) {
				return json_fail(j, j->p, "a bad escape in a string");
			}
		}
		j->p++;
	}
	if (j->p >= j->end)
		return json_fail(j, open, "a string without its closing quote (a "
				 "truncated file?)");
	*n = (size_t)(j->p - *s);
	j->p++;
	return WS_OK;
}

/* A number by the JSON grammar; its text in *s, *n. */
static int json_number(struct json_in *j, const char **s, size_t *n)
{
	const char *q = j->p;
#define DIGIT(x) (q < j->end && *(x) >= '0' && *(x) <= '9')
	if (q < j->end && *q == '-')
		q++;
	if (!DIGIT(q))
		return json_expected(j, "a value");
	if (*q == '0')
		q++;
	else
		while (DIGIT(q))
			q++;
	if (q < j->end && *q == '.') {
		q++;
		if (!DIGIT(q))
			return json_fail(j, q, "a malformed number");
		while (DIGIT(q))
			q++;
	}
	if (q < j->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < j->end && (*q == '+' || *q == '-'))
			q++;
		if (!DIGIT(q))
			return json_fail(j, q, "a malformed number");
		while (DIGIT(q))
			q++;
	}
#undef DIGIT
	*s = j->p;
	*n = (size_t)(q - j->p);
	j->p = q;
	return WS_OK;
}

static int json_value(struct json_in *j, int depth, const char *section,
		      size_t section_len, struct json_want *want);

/* Record a wanted number: `s`, `n` its text (NULL: not a number). */
static int json_take(struct json_in *j, struct json_want *w, const char *at,
		     const char *s, size_t n)
{
	char buf[64];
	if (!s || n >= sizeof buf)
		return json_fail(j, at, "%s.%s: expected a number", w->section, w->key);
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (w->integer) {
		if (!ws_text_u64(buf, w->u))
			return json_fail(j, at, "%s.%s = %s: expected a non-negative "
					 "integer", w->section, w->key, buf);
	} else {
		*w->d = strtod(buf, NULL);
		if (!isfinite(*w->d) || *w->d < 0)
			return json_fail(j, at, "%s.%s = %s: expected a non-negative "
					 "number", w->section, w->key, buf);
	}
	w->found = true;
	return WS_OK;
}

static int json_object(struct json_in *j, int depth, const char *section,
		       size_t section_len)
{
	j->p++; /* '{' */
	json_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return WS_OK;
	}
	for (;;) {
		const char *key;
		size_t key_len;
		int rc;
		json_ws(j);
		if ((rc = json_string(j, &key, &key_len)))
			return rc;
		json_ws(j);
		if (j->p >= j->end || *j->p != ':')
			return json_expected(j, "':' after a key");
		j->p++;
		json_ws(j);
		/* depth 1: the top-level object, whose keys name the sections;
		 * depth 2: a section, whose keys may be wanted */
		struct json_want *want = NULL;
		for (size_t i = 0; depth == 2 && i < j->n_want; i++)
			if (strlen(j->want[i].section) == section_len &&
			    !memcmp(j->want[i].section, section, section_len) &&
			    strlen(j->want[i].key) == key_len &&
			    !memcmp(j->want[i].key, key, key_len))
				want = &j->want[i];
		if (depth == 1)
			rc = json_value(j, depth + 1, key, key_len, NULL);
		else
			rc = json_value(j, depth + 1, NULL, 0, want);
		if (rc)
			return rc;
		json_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			return WS_OK;
		}
		return json_expected(j, "',' or '}'");
	}
}

static int json_array(struct json_in *j, int depth)
{
	j->p++; /* '[' */
	json_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return WS_OK;
	}
	for (;;) {
		json_ws(j);
		int rc = json_value(j, depth + 1, NULL, 0, NULL);
		if (rc)
			return rc;
		json_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			return WS_OK;
		}
		return json_expected(j, "',' or ']'");
	}
}

/* Any value; `section` names the object a depth-2 value's keys are in. */
static int json_value(struct json_in *j, int depth, const char *section,
		      size_t section_len, struct json_want *want)
{
	if (depth > JSON_MAX_DEPTH)
		return json_fail(j, j->p, "objects nested too deeply");
	const char *at = j->p;
	const char *s = NULL;
	size_t n = 0;
	int rc;
	if (j->p >= j->end)
		return json_expected(j, "a value");
	switch (*j->p) {
	case '{':
		rc = json_object(j, depth, section, section_len);
		break;
	case '[':
		rc = json_array(j, depth);
		break;
	case '"':
		rc = json_string(j, &s, &n);
		s = NULL;
		break;
	case 't':
	case 'f':
	case 'n': {
		static const char *const lit[] = { "true", "false", "null" };
		rc = WS_EINVAL;
		for (size_t i = 0; i < TOOL_ARRAY_LEN(lit); i++) {
			size_t len = strlen(lit[i]);
			if ((size_t)(j->end - j->p) >= len && !memcmp(j->p, lit[i], len)) {
				j->p += len;
				rc = WS_OK;
			}
		}
		if (rc)
			return json_expected(j, "a value");
		break;
	}
	default:
		rc = json_number(j, &s, &n);
		break;
	}
	if (!rc && want)
		rc = json_take(j, want, at, s, n);
	return rc;
}

static int read_summary(struct cmp_run *r, struct ws_err *err)
{
	FILE *f = fopen(r->summary_path, "r");
	if (!f)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EINVAL,
				 r->summary_path, 0, "cannot open: %s", strerror(errno));
	size_t cap = 16384, n = 0;
	char *buf = tool_xcalloc(cap, 1);
	int rc = WS_OK;
	for (;;) {
		if (n == cap) {
			if (cap >= SUMMARY_MAX_BYTES) {
				rc = ws_err_at(err, WS_EINVAL, r->summary_path, 0,
					       "larger than %u MiB: not a summary.json "
					       "of warpsim run", SUMMARY_MAX_BYTES >> 20);
				break;
			}
			cap *= 2;
			buf = tool_xrealloc(buf, cap, 1);
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				rc = ws_err_at(err, WS_EINVAL, r->summary_path, 0,
					       "cannot read: %s", strerror(errno ? errno : EIO));
			break;
		}
	}
	fclose(f);
	struct json_want want[] = {
		{ "results", "events", true, &r->events, NULL, false },
		{ "results", "sim_time_ps", true, &r->sim_time, NULL, false },
		{ "timing", "run_s", false, NULL, &r->run_s, false },
	};
	struct json_in j = {
		.start = buf, .p = buf, .end = buf + n, .path = r->summary_path,
		.want = want, .n_want = TOOL_ARRAY_LEN(want), .err = err,
	};
	if (!rc) {
		json_ws(&j);
		if (j.p >= j.end)
			rc = ws_err_at(err, WS_EINVAL, r->summary_path, 0,
				       "empty file (expected a JSON object)");
		else if (*j.p != '{')
			rc = json_expected(&j, "a JSON object '{'");
		else
			rc = json_value(&j, 1, NULL, 0, NULL);
	}
	if (!rc) {
		json_ws(&j);
		if (j.p < j.end)
			rc = json_fail(&j, j.p, "text after the JSON object");
	}
	for (size_t i = 0; !rc && i < TOOL_ARRAY_LEN(want); i++)
		if (!want[i].found)
			rc = ws_err_at(err, WS_EINVAL, r->summary_path, 0,
				       "no %s.%s (not a summary.json of warpsim run?)",
				       want[i].section, want[i].key);
	free(buf);
	return rc;
}

/* ---- the comparison ------------------------------------------------------------- */

static int open_run(struct cmp_run *r, const char *dir, struct ws_err *err)
{
	memset(r, 0, sizeof *r);
	r->dir = dir;
	struct stat st;
	if (stat(dir, &st) != 0)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EINVAL, dir, 0,
				 "cannot open the run directory: %s", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ws_err_at(err, WS_EINVAL, dir, 0, "not a directory (expected "
				 "the output directory of a run)");
	snprintf(r->fct_path, sizeof r->fct_path, "%s/fct.csv", dir);
	snprintf(r->iter_path, sizeof r->iter_path, "%s/iterations.csv", dir);
	snprintf(r->summary_path, sizeof r->summary_path, "%s/summary.json", dir);
	int rc = read_fct(r, err);
	if (!rc)
		rc = read_summary(r, err);
	if (!rc)
		rc = read_iters(r, err);
	return rc;
}

static void close_run(struct cmp_run *r)
{
	free(r->flows);
	free(r->iters);
}

/* (b - a) / a from integers of ps, the difference taken exactly */
static double rel_diff(ws_time a, ws_time b)
{
	double d = b >= a ? (double)(b - a) : -(double)(a - b);
	return d / (double)a;
}

/*
 * The next flow present in both runs at or after a->flows[*i] and
 * b->flows[*k] (both in flow id order): false when there is none.
 */
static bool next_pair(const struct cmp_run *a, const struct cmp_run *b,
		      size_t *i, size_t *k)
{
	while (*i < a->n_flows && *k < b->n_flows) {
		uint64_t x = a->flows[*i].key, y = b->flows[*k].key;
		if (x == y)
			return true;
		if (x < y)
			++*i;
		else
			++*k;
	}
	return false;
}

static int write_csv(const struct cmp_run *a, const struct cmp_run *b,
		     const char *path, struct ws_err *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return ws_err_at(err, WS_EIO, path, 0, "cannot write: %s", strerror(errno));
	fputs("flow_id,fct_a_ns,fct_b_ns,rel_error\n", f);
	for (size_t i = 0, k = 0; next_pair(a, b, &i, &k); i++, k++) {
		const struct cmp_flow *x = &a->flows[i], *y = &b->flows[k];
		char fa[32], fb[32];
		ws_fmt_ps_as_ns(fa, sizeof fa, x->fct);
		ws_fmt_ps_as_ns(fb, sizeof fb, y->fct);
		fprintf(f, "%u,%s,%s,%.10g\n", x->id, fa, fb,
			fabs(rel_diff(x->fct, y->fct)));
	}
	bool bad = ferror(f);
	if (fclose(f) || bad)
		return ws_err_at(err, WS_EIO, path, 0, "write failed");
	return WS_OK;
}

static int cmp_key(const void *p, const void *q)
{
	const struct cmp_flow *x = p, *y = q;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Whether every tag of a run is unique (the flows sorted by tag after). */
static bool tags_unique(struct cmp_run *r)
{
	for (size_t i = 0; i < r->n_flows; i++)
		r->flows[i].key = r->flows[i].tag;
	if (r->n_flows)
		qsort(r->flows, r->n_flows, sizeof *r->flows, cmp_key);
	for (size_t i = 1; i < r->n_flows; i++)
		if (r->flows[i].key == r->flows[i - 1].key)
			return false;
	return true;
}

/* Match by tag when tags are unique in both runs, else by id. */
static bool choose_key(struct cmp_run *a, struct cmp_run *b)
{
	bool by_tag = tags_unique(a) && tags_unique(b);
	if (!by_tag)
		for (int k = 0; k < 2; k++) {
			struct cmp_run *r = k ? b : a;
			for (size_t i = 0; i < r->n_flows; i++)
				r->flows[i].key = r->flows[i].id;
			if (r->n_flows)
				qsort(r->flows, r->n_flows, sizeof *r->flows, cmp_key);
		}
	return by_tag;
}

/* Flows by key, both in key order: agreement first, then the errors. */
static int compare_flows(const struct cmp_run *a, const struct cmp_run *b,
			 struct ws_compare *out, struct ws_err *err)
{
	size_t n = TOOL_MIN(a->n_flows, b->n_flows);
	double *rel = tool_xcalloc(n ? n : 1, sizeof *rel);
	double sum = 0, bias = 0;
	size_t m = 0;
	int rc = WS_OK;
	out->fct_max_flow = UINT32_MAX;
	out->fct_max = NAN;
	for (size_t i = 0, k = 0; next_pair(a, b, &i, &k); i++, k++) {
		const struct cmp_flow *x = &a->flows[i], *y = &b->flows[k];
		if (x->src != y->src || x->dst != y->dst || x->bytes != y->bytes) {
			rc = ws_err_at(err, WS_EINVAL, b->fct_path, (int)y->line,
				       "flow %u is %u -> %u, %" PRIu64 " bytes, but in "
				       "%s (line %u) %u -> %u, %" PRIu64 " bytes: the runs "
				       "are not of the same scenario", y->id, y->src,
				       y->dst, y->bytes, a->fct_path, x->line, x->src,
				       x->dst, x->bytes);
			goto out;
		}
		if (x->fct == 0) {
			rc = ws_err_at(err, WS_EINVAL, a->fct_path, (int)x->line,
				       "fct_ns of flow %u is 0: no relative error "
				       "against it", x->id);
			goto out;
		}
		double r = rel_diff(x->fct, y->fct);
		rel[m++] = fabs(r);
		sum += fabs(r);
		bias += r;
		/* the first (lowest id) of equal maxima */
		if (out->fct_max_flow == UINT32_MAX || fabs(r) > out->fct_max ||
		    (fabs(r) == out->fct_max && x->id < out->fct_max_flow)) {
			out->fct_max = fabs(r);
			out->fct_max_flow = x->id;
		}
	}
	out->flows_a = (uint32_t)a->n_flows;
	out->flows_b = (uint32_t)b->n_flows;
	out->matched = (uint32_t)m;
	out->only_a = (uint32_t)(a->n_flows - m);
	out->only_b = (uint32_t)(b->n_flows - m);
	ws_sort_doubles(rel, m);
	out->fct_mean = m ? sum / (double)m : NAN;
	out->fct_bias = m ? bias / (double)m : NAN;
	out->fct_p50 = ws_percentile(rel, m, 50);
	out->fct_p99 = ws_percentile(rel, m, 99);
out:
	free(rel);
	return rc;
}

static int compare_iters(const struct cmp_run *a, const struct cmp_run *b,
			 struct ws_compare *out, struct ws_err *err)
{
	out->iters_a = a->have_iters;
	out->iters_b = b->have_iters;
	out->have_iters = a->have_iters && b->have_iters;
	out->iter_mean = out->iter_max = NAN;
	if (!out->have_iters)
		return WS_OK;
	double sum = 0;
	uint32_t m = 0;
	for (size_t i = 0, k = 0; i < a->n_iters && k < b->n_iters;) {
		const struct cmp_iter *x = &a->iters[i], *y = &b->iters[k];
		if (x->id != y->id) {
			if (x->id < y->id)
				i++;
			else
				k++;
			continue;
		}
		if (x->duration == 0)
			return ws_err_at(err, WS_EINVAL, a->iter_path, (int)x->line,
					 "duration_ns of iteration %u is 0: no relative "
					 "error against it", x->id);
		double r = fabs(rel_diff(x->duration, y->duration));
		sum += r;
		if (m == 0 || r > out->iter_max)
			out->iter_max = r;
		m++;
		i++;
		k++;
	}
	out->iters = m;
	out->iters_only_a = (uint32_t)(a->n_iters - m);
	out->iters_only_b = (uint32_t)(b->n_iters - m);
	out->iter_mean = m ? sum / m : NAN;
	return WS_OK;
}

int ws_compare_runs(const char *dir_a, const char *dir_b, struct ws_compare *out,
		    const char *csv_path, struct ws_err *err)
{
	struct cmp_run a, b;
	memset(out, 0, sizeof *out);
	ws_err_clear(err);
	memset(&b, 0, sizeof b);
	int rc = open_run(&a, dir_a, err);
	if (!rc)
		rc = open_run(&b, dir_b, err);
	if (!rc) {
		out->by_tag = choose_key(&a, &b);
		rc = compare_flows(&a, &b, out, err);
	}
	if (!rc)
		rc = compare_iters(&a, &b, out, err);
	if (rc)
		goto done;
	out->wall_a = a.run_s;
	out->wall_b = b.run_s;
	out->events_a = a.events;
	out->events_b = b.events;
	out->sim_a = a.sim_time;
	out->sim_b = b.sim_time;
	out->speedup = b.run_s > 0 ? a.run_s / b.run_s : NAN;
	out->event_ratio = b.events ? (double)a.events / (double)b.events : NAN;
	if (csv_path)
		rc = write_csv(&a, &b, csv_path, err);
done:
	close_run(&a);
	close_run(&b);
	return rc;
}
