/* SPDX-License-Identifier: MIT */
/*
 * flows: a flow-trace workload in the layout of the HPCC ns-3 simulator's
 * flow files (mix/flow.txt):
 *
 *     N
 *     src dst priority dport bytes start_seconds
 *     ... (N lines)
 *
 * src and dst are node ids of the fabric (generated topologies number their
 * hosts first, from 0).  As in the reference, exactly N flows are read and
 * anything after them is ignored (with a warning: the reference's own sample
 * ends with a line of help text).  Blank lines and lines starting with '#'
 * are skipped.  Every line is checked against the fabric before the run
 * starts, so a bad trace fails with its file and line, not mid-run.
 *
 * The trace is kept as compact records; a flow is created when its start
 * time comes, in (start time, line) order, which is also the order of flow
 * ids: for a trace sorted by start time, as the reference requires, flow id i
 * is the i-th flow of the file.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warpsim/warpsim.h>

struct flows_conf {
	const char *file;
	ws_time time_offset;
};

static const struct ws_param flows_params[] = {
	WS_PARAM_STRING("file", struct flows_conf, file, NULL,
			"the flow trace (relative paths start at the ini file's directory)"),
	WS_PARAM_TIME("time_offset", struct flows_conf, time_offset, "0s", "0s", "1000000s",
		      "added to every start time"),
	WS_PARAM_END
};

struct rec {
	uint32_t src, dst;
	uint64_t bytes;
	ws_time start;
	uint32_t line;
	uint16_t dport;
	uint8_t prio;
};

struct flows_state {
	struct rec *recs;
	uint32_t n;
	uint32_t next;         /* next record to create */
	uint32_t ignored;      /* lines after the declared N */
	char path[4096];
};

static int fail_line(struct ws_err *err, const char *path, uint32_t line,
		     const char *msg, const char *detail)
{
	return ws_err_at(err, WS_EINVAL, path, (int)line, "%s%s", msg, detail);
}

/* digits [. digits] [e [+-] digits]: seconds as the reference writes them */
static bool plain_decimal(const char *s)
{
	size_t i = 0, digits = 0;
	while (isdigit((unsigned char)s[i])) {
		i++;
		digits++;
	}
	if (s[i] == '.') {
		i++;
		while (isdigit((unsigned char)s[i])) {
			i++;
			digits++;
		}
	}
	if (!digits || i > 40)
		return false;
	if (s[i] == 'e' || s[i] == 'E') {
		i++;
		if (s[i] == '+' || s[i] == '-')
			i++;
		if (!isdigit((unsigned char)s[i]))
			return false;
		while (isdigit((unsigned char)s[i]))
			i++;
	}
	return s[i] == '\0';
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static const char *const field_names[6] = { "src", "dst", "priority", "dport",
					    "bytes", "start_seconds" };

/* The line's fields in tok[0..6): exactly six. */
static int split_fields(char *buf, char *tok[7], const char *path, uint32_t lineno,
			struct ws_err *err)
{
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, " \t\r\n", &save); t && n < 7;
	     t = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = t;
	if (n != 6) {
		char d[160];
		snprintf(d, sizeof d, " (found %d field%s; expected: src dst priority "
			 "dport bytes start_seconds)", n, n == 1 ? "" : "s");
		return fail_line(err, path, lineno, n > 6 ? "too many fields" :
				 "too few fields", d);
	}
	return WS_OK;
}

/* src, dst, priority, dport and bytes as integers in v[0..5). */
static int parse_integers(char *const tok[], uint64_t v[5], const char *path,
			  uint32_t lineno, struct ws_err *err)
{
	for (int i = 0; i < 5; i++) {
		if (!ws_text_u64(tok[i], &v[i])) {
			char d[160];
			snprintf(d, sizeof d, " '%s' (expected a non-negative integer)",
				 tok[i]);
			char m[64];
			snprintf(m, sizeof m, "bad %s", field_names[i]);
			return fail_line(err, path, lineno, m, d);
		}
	}
	return WS_OK;
}

/* src and dst (v[0], v[1]): two different hosts of the fabric. */
static int check_endpoints(const uint64_t v[5], const struct ws_fabric *fab,
			   const char *path, uint32_t lineno, struct ws_err *err)
{
	char d[200];
	for (int i = 0; i < 2; i++) {
		if (v[i] >= fab->n_nodes) {
			snprintf(d, sizeof d, " %" PRIu64 ": the fabric has nodes 0..%u",
				 v[i], fab->n_nodes - 1);
			return fail_line(err, path, lineno,
					 i ? "no such destination node" : "no such source node", d);
		}
		if (fab->nodes[v[i]].kind != WS_NODE_HOST) {
			snprintf(d, sizeof d, " %" PRIu64 " is a switch, not a host", v[i]);
			return fail_line(err, path, lineno, field_names[i], d);
		}
	}
	if (v[0] == v[1]) {
		snprintf(d, sizeof d, " (node %" PRIu64 ")", v[0]);
		return fail_line(err, path, lineno, "a flow from a host to itself", d);
	}
	return WS_OK;
}

/* priority, dport and bytes (v[2..5)) in their ranges. */
static int check_ranges(const uint64_t v[5], const char *path, uint32_t lineno,
			struct ws_err *err)
{
	char d[200];
	if (v[2] < 1 || v[2] >= WS_PRIORITIES) {
		snprintf(d, sizeof d, " %" PRIu64 ": expected 1..%d (0 is reserved for "
			 "PFC and control traffic)", v[2], WS_PRIORITIES - 1);
		return fail_line(err, path, lineno, "bad priority", d);
	}
	if (v[3] > 65535) {
		snprintf(d, sizeof d, " %" PRIu64 ": expected 0..65535", v[3]);
		return fail_line(err, path, lineno, "bad dport", d);
	}
	if (v[4] == 0)
		return fail_line(err, path, lineno, "a flow of 0 bytes", "");
	return WS_OK;
}

/*
 * The start time the ns-3 reference's driver gives `tok` seconds: it reads
 * a C double and converts it with Seconds(), which multiplies the double's
 * exact binary value by 10^9 in 64.64 fixed point and truncates to whole
 * ns (third.cc, ns-3's int64x64 and Time).  So 2.000002, whose double is
 * 2.00000199999999984 s, starts at 2000001999 ns.
 */
static ws_time ns3_start(const char *tok)
{
	double v = strtod(tok, NULL);
	if (!(v >= 0) || v >= 9.2e18 / 1e12)
		return WS_TIME_NEVER;
	uint64_t whole = (uint64_t)v;
	/* exact: v - whole is a double's fraction, 2^64 a power of two */
	uint64_t frac = (uint64_t)((v - (double)whole) * 18446744073709551616.0);
	__extension__ typedef unsigned __int128 u128;
	uint64_t ns = whole * 1000000000u + (uint64_t)((u128)frac * 1000000000u >> 64);
	return (ws_time)ns * WS_NS;
}

/* start_seconds (plain decimal seconds) in *start, read as the ns-3
 * reference does when ns3; with the offset added it must stay far from the
 * end of the clock. */
static int parse_start(const char *tok, bool ns3, ws_time offset, ws_time *start,
		       const char *path, uint32_t lineno, struct ws_err *err)
{
	static const struct ws_param start_param = {
		.key = "start_seconds", .type = WS_PT_TIME, .min = "0s",
	};
	char d[200], text[96], why[256];
	if (!plain_decimal(tok)) {
		snprintf(d, sizeof d, " '%s' (expected seconds, e.g. 2.000001)", tok);
		return fail_line(err, path, lineno, "bad start_seconds", d);
	}
	snprintf(text, sizeof text, "%ss", tok);
	if (ws_param_parse(&start_param, text, start, why, sizeof why)) {
		snprintf(d, sizeof d, " '%s' (expected seconds, e.g. 2.000001)", tok);
		return fail_line(err, path, lineno, "bad start_seconds", d);
	}
	if (ns3)
		*start = ns3_start(tok);
	if (*start > WS_TIME_NEVER / 2 || offset > WS_TIME_NEVER / 2 - *start)
		return fail_line(err, path, lineno, "start time too large", "");
	return WS_OK;
}

static int parse_line(char *buf, const char *path, uint32_t lineno,
		      const struct ws_fabric *fab, bool ns3, ws_time offset,
		      struct rec *r, struct ws_err *err)
{
	char *tok[7];
	uint64_t v[5];
	ws_time start;
	int rc = split_fields(buf, tok, path, lineno, err);
	if (!rc)
		rc = parse_integers(tok, v, path, lineno, err);
	if (!rc)
		rc = check_endpoints(v, fab, path, lineno, err);
	if (!rc)
		rc = check_ranges(v, path, lineno, err);
	if (!rc)
		rc = parse_start(tok[5], ns3, offset, &start, path, lineno, err);
	if (rc)
		return rc;
	r->src = (uint32_t)v[0];
	r->dst = (uint32_t)v[1];
	r->prio = (uint8_t)v[2];
	r->dport = (uint16_t)v[3];
	r->bytes = v[4];
	r->start = start + offset;
	r->line = lineno;
	return WS_OK;
}

static int grow_recs(struct flows_state *s, uint64_t *room, uint64_t declared,
		     struct ws_err *err)
{
	uint64_t want = *room ? *room * 2 : 1024;
	if (want > declared)
		want = declared;
	void *r = realloc(s->recs, want * sizeof *s->recs);
	if (!r)
		return ws_err_set(err, WS_ENOMEM, "out of memory for %" PRIu64 " flows",
				  want);
	s->recs = r;
	*room = want;
	return WS_OK;
}

static int flows_init(struct ws_inst *inst, struct ws_err *err)
{
	const struct flows_conf *c = inst->conf;
	struct flows_state *s = inst->state;
	struct ws_sim *sim = inst->sim;
	int rc = ws_resolve_path(sim, c->file, s->path, sizeof s->path, err);
	if (rc)
		return rc;
	FILE *f = fopen(s->path, "r");
	if (!f)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EIO, s->path, 0,
				 "cannot open the flow trace: %s", strerror(errno));
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	const bool ns3 = ws_sim_reference(sim) == WS_SIM_REFERENCE_NS3;
	char *buf = NULL;
	size_t cap = 0;
	int lineno = 0;
	uint64_t declared = 0, room = 0;
	bool have_count = false;
	while ((rc = ws_text_line(f, &buf, &cap, WS_TEXT_LINE_MAX, s->path,
				  &lineno, err)) == 1) {
		rc = WS_OK;
		if (ws_text_blank(buf))
			continue;
		if (!have_count) {
			char *t = buf;
			while (isspace((unsigned char)*t))
				t++;
			size_t l = strlen(t);
			while (l && isspace((unsigned char)t[l - 1]))
				t[--l] = '\0';
			if (!ws_text_u64(t, &declared) || declared > 100000000) {
				rc = fail_line(err, s->path, lineno,
					       "the first line must be the number of flows",
					       " (a non-negative integer up to 10^8)");
				break;
			}
			have_count = true;
			continue;
		}
		if (s->n == declared) {
			s->ignored++;
			continue;
		}
		/* room for the lines read, not for the count declared: a
		 * short file declaring 10^8 flows allocates little */
		if (s->n == room && (rc = grow_recs(s, &room, declared, err)))
			break;
		rc = parse_line(buf, s->path, (uint32_t)lineno, fab, ns3, c->time_offset,
				&s->recs[s->n], err);
		if (rc)
			break;
		s->n++;
	}
	free(buf);
	fclose(f);
	if (rc)
		return rc;
	if (!have_count)
		return ws_err_at(err, WS_EINVAL, s->path, 0,
				 "empty flow trace (expected the number of flows on "
				 "the first line)");
	if (s->n < declared)
		return ws_err_at(err, WS_EINVAL, s->path, (int)lineno,
				 "the first line declares %" PRIu64 " flows but the "
				 "file ends after %u", declared, s->n);
	if (s->ignored)
		ws_warn(sim, "%s: ignoring %u line(s) after the %u flows declared on "
			"the first line", s->path, s->ignored, s->n);
	if (s->n)
		qsort(s->recs, s->n, sizeof *s->recs, cmp_rec);
	return WS_OK;
}

static void flows_release(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_inst *inst = obj;
	struct flows_state *s = inst->state;
	ws_time now = ws_now(sim);
	while (s->next < s->n && s->recs[s->next].start == now) {
		const struct rec *r = &s->recs[s->next++];
		struct ws_flow_spec spec = { WS_INIT_SIZE(struct ws_flow_spec),
			.src = r->src, .dst = r->dst, .bytes = r->bytes,
			.start = r->start, .prio = r->prio, .dport = r->dport,
			.tag = r->line,
		};
		struct ws_err err;
		if (ws_flow_create(sim, &spec, NULL, &err)) {
			ws_err_locate(&err, s->path, (int)r->line);
			ws_fail(sim, &err);
			return;
		}
	}
	if (s->next < s->n)
		ws_schedule(sim, s->recs[s->next].start, flows_release, inst, 0);
}

static int flows_start(struct ws_inst *inst, struct ws_err *err)
{
	(void)err;
	struct flows_state *s = inst->state;
	if (s->n)
		ws_schedule(inst->sim, s->recs[0].start, flows_release, inst, 0);
	return WS_OK;
}

static void flows_report(struct ws_inst *inst, struct ws_json *j)
{
	const struct flows_state *s = inst->state;
	ws_json_str(j, "trace", s->path);
	ws_json_u64(j, "flows", s->n);
	ws_json_u64(j, "ignored_lines", s->ignored);
}

static uint64_t flows_expected(const struct ws_inst *inst)
{
	const struct flows_state *s = inst->state;
	return s->n;
}

static void flows_fini(struct ws_inst *inst)
{
	struct flows_state *s = inst->state;
	free(s->recs);
	s->recs = NULL;
}

static const struct ws_workload_ops flows_ops = {
	.size = sizeof(struct ws_workload_ops),
	.start = flows_start,
	.report = flows_report,
	.flows_expected = flows_expected,
};

static const struct ws_plugin flows_plugin = {
	WS_PLUGIN_ABI(WS_KIND_WORKLOAD, struct ws_workload_ops),
	.name = "flows",
	.version = "1.0.0",
	.summary = "flow trace in the HPCC ns-3 layout: N, then src dst priority dport bytes start_seconds",
	.params = flows_params,
	.conf_size = sizeof(struct flows_conf),
	.state_size = sizeof(struct flows_state),
	.init = flows_init,
	.fini = flows_fini,
	.ops = &flows_ops,
};

WS_PLUGIN_EXPORT(flows_plugin)
