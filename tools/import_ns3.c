/* SPDX-License-Identifier: MIT */
/*
 * `warpsim import-ns3 CONFIG.txt [-o FILE] [--lineage hpcc|alibabacloud]`:
 * the configuration file of the HPCC ns-3 RDMA simulator (the key-value
 * file its scratch driver third.cc reads, e.g. mix/config.txt;
 * ns-3-alibabacloud's driver reads the same keys) written as a warpsim ini that runs the same study in the reference
 * mode ([sim] reference = ns3): its topology file with `topology = file`
 * and `routing = table`, its flow file with `workload = flows`, its CC mode
 * and CC constants, packet size, ACK interval and chunk, window, buffer,
 * ECN thresholds per link rate, and fct.txt in its layout.  Keys that set
 * only its own traces are noted in comments; keys with no warpsim meaning
 * are refused, unknown ones warned about.  docs/config.md ("Running an ns-3
 * HPCC study") gives the mapping key by key.
 *
 * Like the reference's reader, the file is a stream of whitespace-separated
 * tokens: a key, then its value (the *_MAP keys: a count n, then n pairs).
 * Paths are copied as written; in the ini they start at its directory.
 *
 * Two lineages read this file and differ in their packets' headers:
 * HPCC's own simulator (alibaba-edu/High-Precision-Congestion-Control,
 * whose format this is) has a 32-bit sequence number, so 48 header bytes
 * per data packet (14 PPP/L2 + 20 IPv4 + 8 UDP + 4 seq + 2 pg) and 46 per
 * ACK before its padding to 60; ns-3-alibabacloud (SimAI's) widened the
 * sequence number to 64 bits: 52 and 50.  Both add the INT header of the
 * CC (42 bytes for HPCC) to each.  Nothing in config.txt tells them apart:
 * --lineage says which (hpcc by default).
 *
 * The topology file is read too (when it can be found), for one check: a
 * link rate that KMAX_MAP, KMIN_MAP or PMAX_MAP lacks gets thresholds of 0
 * there (every packet of a non-empty queue is marked; a debug build stops
 * on an assertion), which the reference mode follows; a warning names the
 * topology file's line.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"

/* The keys read.  Each keeps its last value (as the reference does). */
enum {
	K_CC_MODE, K_TOPOLOGY_FILE, K_FLOW_FILE, K_SIMULATOR_STOP_TIME,
	K_PACKET_PAYLOAD_SIZE, K_L2_CHUNK_SIZE, K_L2_ACK_INTERVAL, K_ENABLE_QCN,
	K_BUFFER_SIZE, K_ACK_HIGH_PRIO, K_HAS_WIN, K_GLOBAL_T, K_VAR_WIN,
	K_INT_MULTI, K_ALPHA_RESUME_INTERVAL, K_RATE_DECREASE_INTERVAL,
	K_RP_TIMER, K_EWMA_GAIN, K_FAST_RECOVERY_TIMES, K_RATE_AI, K_RATE_HAI,
	K_MIN_RATE, K_CLAMP_TARGET_RATE, K_U_TARGET, K_MI_THRESH, K_FAST_REACT,
	K_DCTCP_RATE_AI, K_FCT_OUTPUT_FILE, K_L2_BACK_TO_ZERO,
	K_USE_DYNAMIC_PFC_THRESHOLD, K_ERROR_RATE_PER_LINK, K_LINK_DOWN,
	K_MULTI_RATE, K_SAMPLE_FEEDBACK, K_RATE_BOUND,
	/* their own traces and settings third.cc does not use */
	K_PAUSE_TIME, K_DATA_RATE, K_LINK_DELAY, K_TRACE_FILE,
	K_TRACE_OUTPUT_FILE, K_PFC_OUTPUT_FILE, K_ENABLE_TRACE, K_QLEN_MON_FILE,
	K_QLEN_MON_START, K_QLEN_MON_END, K_PINT_LOG_BASE, K_PINT_PROB,
	K_KMAX_MAP, K_KMIN_MAP, K_PMAX_MAP,
	N_KEYS
};

static const struct {
	const char *name;
	unsigned values; /* tokens after the key; 0: a map (n, then n pairs) */
} keys[N_KEYS] = {
	[K_CC_MODE] = { "CC_MODE", 1 },
	[K_TOPOLOGY_FILE] = { "TOPOLOGY_FILE", 1 },
	[K_FLOW_FILE] = { "FLOW_FILE", 1 },
	[K_SIMULATOR_STOP_TIME] = { "SIMULATOR_STOP_TIME", 1 },
	[K_PACKET_PAYLOAD_SIZE] = { "PACKET_PAYLOAD_SIZE", 1 },
	[K_L2_CHUNK_SIZE] = { "L2_CHUNK_SIZE", 1 },
	[K_L2_ACK_INTERVAL] = { "L2_ACK_INTERVAL", 1 },
	[K_ENABLE_QCN] = { "ENABLE_QCN", 1 },
	[K_BUFFER_SIZE] = { "BUFFER_SIZE", 1 },
	[K_ACK_HIGH_PRIO] = { "ACK_HIGH_PRIO", 1 },
	[K_HAS_WIN] = { "HAS_WIN", 1 },
	[K_GLOBAL_T] = { "GLOBAL_T", 1 },
	[K_VAR_WIN] = { "VAR_WIN", 1 },
	[K_INT_MULTI] = { "INT_MULTI", 1 },
	[K_ALPHA_RESUME_INTERVAL] = { "ALPHA_RESUME_INTERVAL", 1 },
	[K_RATE_DECREASE_INTERVAL] = { "RATE_DECREASE_INTERVAL", 1 },
	[K_RP_TIMER] = { "RP_TIMER", 1 },
	[K_EWMA_GAIN] = { "EWMA_GAIN", 1 },
	[K_FAST_RECOVERY_TIMES] = { "FAST_RECOVERY_TIMES", 1 },
	[K_RATE_AI] = { "RATE_AI", 1 },
	[K_RATE_HAI] = { "RATE_HAI", 1 },
	[K_MIN_RATE] = { "MIN_RATE", 1 },
	[K_CLAMP_TARGET_RATE] = { "CLAMP_TARGET_RATE", 1 },
	[K_U_TARGET] = { "U_TARGET", 1 },
	[K_MI_THRESH] = { "MI_THRESH", 1 },
	[K_FAST_REACT] = { "FAST_REACT", 1 },
	[K_DCTCP_RATE_AI] = { "DCTCP_RATE_AI", 1 },
	[K_FCT_OUTPUT_FILE] = { "FCT_OUTPUT_FILE", 1 },
	[K_L2_BACK_TO_ZERO] = { "L2_BACK_TO_ZERO", 1 },
	[K_USE_DYNAMIC_PFC_THRESHOLD] = { "USE_DYNAMIC_PFC_THRESHOLD", 1 },
	[K_ERROR_RATE_PER_LINK] = { "ERROR_RATE_PER_LINK", 1 },
	[K_LINK_DOWN] = { "LINK_DOWN", 3 },
	[K_MULTI_RATE] = { "MULTI_RATE", 1 },
	[K_SAMPLE_FEEDBACK] = { "SAMPLE_FEEDBACK", 1 },
	[K_RATE_BOUND] = { "RATE_BOUND", 1 },
	[K_PAUSE_TIME] = { "PAUSE_TIME", 1 },
	[K_DATA_RATE] = { "DATA_RATE", 1 },
	[K_LINK_DELAY] = { "LINK_DELAY", 1 },
	[K_TRACE_FILE] = { "TRACE_FILE", 1 },
	[K_TRACE_OUTPUT_FILE] = { "TRACE_OUTPUT_FILE", 1 },
	[K_PFC_OUTPUT_FILE] = { "PFC_OUTPUT_FILE", 1 },
	[K_ENABLE_TRACE] = { "ENABLE_TRACE", 1 },
	[K_QLEN_MON_FILE] = { "QLEN_MON_FILE", 1 },
	[K_QLEN_MON_START] = { "QLEN_MON_START", 1 },
	[K_QLEN_MON_END] = { "QLEN_MON_END", 1 },
	[K_PINT_LOG_BASE] = { "PINT_LOG_BASE", 1 },
	[K_PINT_PROB] = { "PINT_PROB", 1 },
	[K_KMAX_MAP] = { "KMAX_MAP", 0 },
	[K_KMIN_MAP] = { "KMIN_MAP", 0 },
	[K_PMAX_MAP] = { "PMAX_MAP", 0 },
};

#define MAX_RATES 16

enum lineage { LINEAGE_HPCC = 0, LINEAGE_ALIBABACLOUD = 1 };

struct ns3cfg {
	const char *path;
	int lineage;                /* enum lineage */
	char *val[N_KEYS];          /* the last value (LINK_DOWN: all three) */
	int map_line[3];            /* the line of each *_MAP key (0: absent) */
	unsigned n_map[3];          /* KMAX, KMIN, PMAX entries */
	char *map_rate[3][MAX_RATES], *map_val[3][MAX_RATES];
	FILE *warn;
};

static void ns3_free(struct ns3cfg *c)
{
	for (unsigned k = 0; k < N_KEYS; k++)
		free(c->val[k]);
	for (unsigned m = 0; m < 3; m++)
		for (unsigned i = 0; i < c->n_map[m]; i++) {
			free(c->map_rate[m][i]);
			free(c->map_val[m][i]);
		}
}

static int key_index(const char *tok)
{
	for (int k = 0; k < N_KEYS; k++)
		if (!strcmp(keys[k].name, tok))
			return k;
	return -1;
}

/* One *_MAP key: the count, then that many (rate, value) pairs. */
static int read_map(struct ns3cfg *c, unsigned m, char **tok, size_t n, size_t *i,
		    struct ws_err *err)
{
	const char *name = keys[K_KMAX_MAP + m].name;
	char *end;
	long cnt = *i < n ? strtol(tok[*i], &end, 10) : -1;
	if (cnt < 0 || cnt > MAX_RATES || *i + 1 + 2 * (size_t)cnt > n)
		return ws_err_set(err, WS_EINVAL, "%s: %s needs a count (at most %d) "
				  "and that many rate-value pairs", c->path, name, MAX_RATES);
	(*i)++;
	c->n_map[m] = (unsigned)cnt;
	for (long j = 0; j < cnt; j++, *i += 2) {
		c->map_rate[m][j] = strdup(tok[*i]);
		c->map_val[m][j] = strdup(tok[*i + 1]);
	}
	return WS_OK;
}

/* text split in place into whitespace-separated tokens, each with its line
 * (1-based) in *lines; the caller frees *tok and *lines. */
static int tokenize(char *text, char ***tok, int **lines, size_t *n, const char *path,
		    struct ws_err *err)
{
	size_t cap = 0;
	int line = 1;
	*tok = NULL;
	*lines = NULL;
	*n = 0;
	for (char *s = text; *s;) {
		if (strchr(" \t\r\n", *s)) {
			line += *s++ == '\n';
			continue;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nt = realloc(*tok, cap * sizeof **tok);
			int *nl = nt ? realloc(*lines, cap * sizeof **lines) : NULL;
			if (nt)
				*tok = nt;
			if (!nl)
				return ws_err_set(err, WS_ENOMEM, "%s: out of memory", path);
			*lines = nl;
		}
		(*tok)[*n] = s;
		(*lines)[(*n)++] = line;
		s += strcspn(s, " \t\r\n");
		if (*s) {
			line += *s == '\n';
			*s++ = '\0';
		}
	}
	return WS_OK;
}

static int ns3_parse(struct ns3cfg *c, char *text, struct ws_err *err)
{
	char **tok;
	int *lines;
	size_t n;
	int rc = tokenize(text, &tok, &lines, &n, c->path, err);
	if (rc) {
		free(tok);
		free(lines);
		return rc;
	}
	for (size_t i = 0; i < n && !rc;) {
		int k = key_index(tok[i++]);
		if (k < 0) {
			fprintf(c->warn, "warpsim import-ns3: %s: unknown key '%s' skipped\n",
				c->path, tok[i - 1]);
			if (i < n && key_index(tok[i]) < 0)
				i++; /* its value, presumably */
			continue;
		}
		if (keys[k].values == 0) {
			c->map_line[k - K_KMAX_MAP] = lines[i - 1];
			rc = read_map(c, (unsigned)(k - K_KMAX_MAP), tok, n, &i, err);
			continue;
		}
		if (i + keys[k].values > n) {
			rc = ws_err_set(err, WS_EINVAL, "%s: %s has no value", c->path,
					keys[k].name);
			break;
		}
		free(c->val[k]);
		if (keys[k].values == 3) {
			size_t l = strlen(tok[i]) + strlen(tok[i + 1]) + strlen(tok[i + 2]) + 3;
			c->val[k] = malloc(l);
			if (c->val[k])
				snprintf(c->val[k], l, "%s %s %s", tok[i], tok[i + 1], tok[i + 2]);
		} else {
			c->val[k] = strdup(tok[i]);
		}
		i += keys[k].values;
	}
	free(tok);
	free(lines);
	return rc;
}

static const char *get(const struct ns3cfg *c, int k, const char *def)
{
	return c->val[k] ? c->val[k] : def;
}

static bool on(const struct ns3cfg *c, int k, bool def)
{
	return c->val[k] ? atol(c->val[k]) != 0 : def;
}

/* Settings warpsim cannot follow: refused, with what to do instead. */
static int ns3_refuse(const struct ns3cfg *c, struct ws_err *err)
{
	long mode = atol(get(c, K_CC_MODE, "1"));
	if (mode != 1 && mode != 3 && mode != 7 && mode != 8)
		return ws_err_set(err, WS_EINVAL, "%s: CC_MODE %ld has no warpsim CC "
				  "(1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP are imported)",
				  c->path, mode);
	if (on(c, K_L2_BACK_TO_ZERO, false))
		return ws_err_set(err, WS_EINVAL, "%s: L2_BACK_TO_ZERO 1 (go back to "
				  "the chunk start) is not modelled", c->path);
	if (!on(c, K_USE_DYNAMIC_PFC_THRESHOLD, true))
		return ws_err_set(err, WS_EINVAL, "%s: USE_DYNAMIC_PFC_THRESHOLD 0 is "
				  "not modelled (warpsim's PFC threshold is dynamic)", c->path);
	if (!c->val[K_TOPOLOGY_FILE] || !c->val[K_FLOW_FILE])
		return ws_err_set(err, WS_EINVAL, "%s: TOPOLOGY_FILE and FLOW_FILE are "
				  "needed", c->path);
	return WS_OK;
}

static void emit_cc(FILE *f, const struct ns3cfg *c)
{
	long mode = atol(get(c, K_CC_MODE, "1"));
	static const char *const names[] = { [1] = "dcqcn", [3] = "hpcc",
					     [7] = "timely", [8] = "dctcp" };
	fprintf(f, "[cc]\nname = %s\n", names[mode]);
	if (mode == 1) {
		if (c->val[K_ALPHA_RESUME_INTERVAL])
			fprintf(f, "alpha_interval = %sus\n", c->val[K_ALPHA_RESUME_INTERVAL]);
		if (c->val[K_RATE_DECREASE_INTERVAL])
			fprintf(f, "decrease_interval = %sus\n", c->val[K_RATE_DECREASE_INTERVAL]);
		if (c->val[K_RP_TIMER])
			fprintf(f, "rp_timer = %sus\n", c->val[K_RP_TIMER]);
		if (c->val[K_EWMA_GAIN])
			fprintf(f, "g = %s\n", c->val[K_EWMA_GAIN]);
		if (c->val[K_FAST_RECOVERY_TIMES])
			fprintf(f, "fast_recovery = %s\n", c->val[K_FAST_RECOVERY_TIMES]);
		if (c->val[K_RATE_HAI])
			fprintf(f, "rate_hai = %s\n", c->val[K_RATE_HAI]);
		if (c->val[K_CLAMP_TARGET_RATE])
			fprintf(f, "clamp_target = %s\n",
				on(c, K_CLAMP_TARGET_RATE, false) ? "true" : "false");
	} else if (mode == 3) {
		if (c->val[K_U_TARGET])
			fprintf(f, "eta = %s\n", c->val[K_U_TARGET]);
		if (c->val[K_MI_THRESH])
			fprintf(f, "max_stage = %s\n", c->val[K_MI_THRESH]);
		if (c->val[K_FAST_REACT])
			fprintf(f, "fast_react = %s\n", on(c, K_FAST_REACT, true) ? "true" : "false");
		fprintf(f, "window = %s\n", on(c, K_HAS_WIN, true) && on(c, K_VAR_WIN, false)
			? "true" : "false");
		fprintf(f, "base = %s\n", on(c, K_GLOBAL_T, true) ? "fabric" : "path");
	} else if (mode == 8) {
		if (c->val[K_DCTCP_RATE_AI])
			fprintf(f, "rate_ai = %s\n", c->val[K_DCTCP_RATE_AI]);
		fprintf(f, "window = %s\n", on(c, K_HAS_WIN, true) ? "true" : "false");
	}
	if (mode != 8 && c->val[K_RATE_AI])
		fprintf(f, "rate_ai = %s\n", c->val[K_RATE_AI]);
	if (c->val[K_MIN_RATE])
		fprintf(f, "min_rate = %s\n", c->val[K_MIN_RATE]);
	fputc('\n', f);
}

static void emit_nic(FILE *f, const struct ns3cfg *c)
{
	long mode = atol(get(c, K_CC_MODE, "1"));
	long payload = atol(get(c, K_PACKET_PAYLOAD_SIZE, "1000"));
	long ack = atol(get(c, K_L2_ACK_INTERVAL, "1"));
	/* data and ACK headers of the lineage (the comment at the top) */
	long header = c->lineage == LINEAGE_HPCC ? 48 : 52;
	fprintf(f, "[nic]\nmtu = %ldB\nheader = %ldB\nack_header = %ldB\n",
		payload + header, header, header - 2);
	/* the reference counts the ACK interval in bytes (1: every packet) */
	fprintf(f, "ack_interval = %ld\n", ack <= payload ? 1 : (ack + payload - 1) / payload);
	fprintf(f, "ack_chunk = %sB\n", get(c, K_L2_CHUNK_SIZE, "0"));
	/* HPCC and DCTCP hold their own window (their window keys above) */
	if (mode == 1 || mode == 7) {
		const char *w = !on(c, K_HAS_WIN, true) ? "off"
				: on(c, K_GLOBAL_T, true) ? "max-bdp" : "path-bdp";
		fprintf(f, "window = %s\nvar_window = %s\n", w,
			on(c, K_VAR_WIN, false) ? "true" : "false");
	}
	if (c->val[K_INT_MULTI])
		fprintf(f, "int_multi = %s\n", c->val[K_INT_MULTI]);
	fputc('\n', f);
}

/* The value map m gives rate (the reference's value for a rate it lacks: 0). */
static const char *map_get(const struct ns3cfg *c, unsigned m, const char *rate)
{
	for (unsigned j = 0; j < c->n_map[m]; j++)
		if (!strcmp(c->map_rate[m][j], rate))
			return c->map_val[m][j];
	return "0";
}

/* Whether map m lists rate (bps). */
static bool map_has(const struct ns3cfg *c, unsigned m, uint64_t rate)
{
	for (unsigned j = 0; j < c->n_map[m]; j++)
		if (strtoull(c->map_rate[m][j], NULL, 10) == rate)
			return true;
	return false;
}

/* Whether entry i of map m has a rate an earlier entry listed (each once). */
static bool listed_before(const struct ns3cfg *c, unsigned m, unsigned i)
{
	for (unsigned p = 0; p <= m; p++)
		for (unsigned j = 0; j < (p < m ? c->n_map[p] : i); j++)
			if (!strcmp(c->map_rate[p][j], c->map_rate[m][i]))
				return true;
	return false;
}

static void emit_switch(FILE *f, const struct ns3cfg *c)
{
	fprintf(f, "[switch]\nbuffer = %sMiB\necn = %s\n", get(c, K_BUFFER_SIZE, "16"),
		on(c, K_ENABLE_QCN, true) ? "true" : "false");
	/* ecn_map: every rate any of the three maps lists, the others' value
	 * 0 where they lack it (as there); a rate none lists gets thresholds
	 * of 0 under reference = ns3 (check_topology warns) */
	bool any = false;
	for (unsigned m = 0; m < 3; m++)
		for (unsigned i = 0; i < c->n_map[m]; i++) {
			const char *rate = c->map_rate[m][i];
			if (listed_before(c, m, i))
				continue;
			fprintf(f, "%s%sbps %sKB %sKB %s", any ? "; " : "ecn_map = ", rate,
				map_get(c, 1, rate), map_get(c, 0, rate), map_get(c, 2, rate));
			any = true;
		}
	if (any)
		fputc('\n', f);
	else if (on(c, K_ENABLE_QCN, true))
		fputs("; no KMAX_MAP, KMIN_MAP or PMAX_MAP: the reference's thresholds "
		      "are 0\necn_kmin = 0B\necn_kmax = 0B\necn_pmax = 0\n", f);
	fputc('\n', f);
}

/* Comments for what was read and has no effect here. */
static void emit_notes(FILE *f, const struct ns3cfg *c)
{
	static const int traces[] = { K_TRACE_FILE, K_TRACE_OUTPUT_FILE, K_PFC_OUTPUT_FILE,
				      K_ENABLE_TRACE, K_QLEN_MON_FILE, K_QLEN_MON_START,
				      K_QLEN_MON_END, K_PAUSE_TIME, K_DATA_RATE,
				      K_LINK_DELAY, K_PINT_LOG_BASE, K_PINT_PROB,
				      K_MULTI_RATE, K_SAMPLE_FEEDBACK, K_RATE_BOUND,
				      K_ERROR_RATE_PER_LINK, K_LINK_DOWN };
	bool any = false;
	for (size_t i = 0; i < TOOL_ARRAY_LEN(traces); i++) {
		if (!c->val[traces[i]])
			continue;
		if (!any)
			fputs("; read and not imported (their traces, unused or "
			      "unmodelled settings; docs/config.md):\n", f);
		any = true;
		fprintf(f, ";   %s %s\n", keys[traces[i]].name, c->val[traces[i]]);
	}
	if (c->val[K_ACK_HIGH_PRIO])
		fprintf(f, "%s;   ACK_HIGH_PRIO %s: in third.cc it sets only which PFC class "
			"pauses a NIC's ACKs (RdmaEgressQueue::ack_q_idx, 0 or 3), not the\n"
			";   switches' ACK queue; warpsim's NIC has no such key (its ACKs "
			"pause with their flow's class, as ACK_HIGH_PRIO 0)\n",
			any ? "" : "; read and not imported (docs/config.md):\n",
			c->val[K_ACK_HIGH_PRIO]);
	if (any || c->val[K_ACK_HIGH_PRIO])
		fputc('\n', f);
}

static void ns3_emit(FILE *f, const struct ns3cfg *c)
{
	fprintf(f, "; imported from %s by warpsim import-ns3 (docs/config.md, "
		"\"Running an ns-3 HPCC study\")\n\n", c->path);
	emit_notes(f, c);
	fprintf(f, "[sim]\nreference = ns3\n");
	if (c->val[K_SIMULATOR_STOP_TIME])
		fprintf(f, "stop_time = %ss\n", c->val[K_SIMULATOR_STOP_TIME]);
	fprintf(f, "\n[topology]\nname = file\nfile = %s\n\n[routing]\nname = table\n\n",
		c->val[K_TOPOLOGY_FILE]);
	emit_cc(f, c);
	emit_nic(f, c);
	emit_switch(f, c);
	fprintf(f, "[workload]\nname = flows\nfile = %s\n\n[output]\nfct_txt = true\n",
		c->val[K_FLOW_FILE]);
}

/* The whole file, NUL-terminated (caller frees), or NULL with err set. */
static char *read_all(const char *path, struct ws_err *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	if (!f) {
		ws_err_set(err, WS_EIO, "%s: cannot open", path);
		return NULL;
	}
	do {
		if (len + 4096 + 1 > cap) {
			cap = 2 * cap + 4096 + 1;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				ws_err_set(err, WS_ENOMEM, "%s: out of memory", path);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, 4096, f);
		len += got;
	} while (got == 4096);
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		ws_err_set(err, WS_EIO, "%s: read error", path);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* The topology file: as written (the reference's runs start where the
 * paths begin), else next to config.txt. */
static char *read_topology(const struct ns3cfg *c, char *path, size_t size)
{
	struct ws_err err;
	const char *t = c->val[K_TOPOLOGY_FILE];
	snprintf(path, size, "%s", t);
	char *text = read_all(path, &err);
	const char *slash = strrchr(c->path, '/');
	if (!text && t[0] != '/' && slash) {
		snprintf(path, size, "%.*s/%s", (int)(slash - c->path), c->path, t);
		text = read_all(path, &err);
	}
	return text;
}

/* One warning per link rate some *_MAP lacks (with ENABLE_QCN on). */
static void warn_rate(const struct ns3cfg *c, const char *topo, int line, const char *tok,
		      uint64_t rate)
{
	static const char *const names[] = { "KMAX_MAP", "KMIN_MAP", "PMAX_MAP" };
	char lacks[1024] = "";
	for (unsigned m = 0; m < 3; m++) {
		size_t l = strlen(lacks);
		if (map_has(c, m, rate))
			continue;
		if (c->map_line[m])
			snprintf(lacks + l, sizeof lacks - l, "%s%s (%s:%d)", l ? ", " : "",
				 names[m], c->path, c->map_line[m]);
		else
			snprintf(lacks + l, sizeof lacks - l, "%s%s (not in %s)", l ? ", " : "",
				 names[m], c->path);
	}
	fprintf(c->warn, "warpsim import-ns3: %s:%d: link rate %s (%llu bps) is not in "
		"%s: the reference's thresholds for it are 0 (every packet of a "
		"non-empty queue marked; a debug build stops), and so are the "
		"imported run's\n", topo, line, tok, (unsigned long long)rate, lacks);
}

/*
 * third.cc's topology file: node, switch and link counts, the switch ids,
 * then per link "src dst rate delay error_rate".  Only the rates are used
 * here; a file that cannot be read or parsed is left to the run to report.
 */
static void check_topology(const struct ns3cfg *c)
{
	if (!on(c, K_ENABLE_QCN, true))
		return;
	char path[4096];
	char *text = read_topology(c, path, sizeof path);
	char **tok = NULL;
	int *lines = NULL;
	size_t n = 0;
	struct ws_err err;
	if (!text || tokenize(text, &tok, &lines, &n, path, &err) || n < 3) {
		fprintf(c->warn, "warpsim import-ns3: %s: cannot read the topology file "
			"'%s'; its link rates were not checked against KMAX_MAP\n", c->path,
			c->val[K_TOPOLOGY_FILE]);
		goto out;
	}
	static const struct ws_param rate_p = { .key = "rate", .type = WS_PT_RATE };
	uint64_t seen[MAX_RATES * 4];
	size_t n_seen = 0;
	size_t links = strtoull(tok[2], NULL, 10), first = 3 + strtoull(tok[1], NULL, 10);
	for (size_t l = 0; l < links && first + 5 * l + 2 < n; l++) {
		size_t i = first + 5 * l + 2;
		uint64_t rate;
		char why[128];
		if (ws_param_parse(&rate_p, tok[i], &rate, why, sizeof why))
			continue;
		bool known = map_has(c, 0, rate) && map_has(c, 1, rate) && map_has(c, 2, rate);
		for (size_t j = 0; j < n_seen && !known; j++)
			known = seen[j] == rate;
		if (known)
			continue;
		warn_rate(c, path, lines[i], tok[i], rate);
		if (n_seen < TOOL_ARRAY_LEN(seen))
			seen[n_seen++] = rate;
	}
out:
	free(tok);
	free(lines);
	free(text);
}

struct import_args {
	const char *out;
	int lineage;
};

static int import_opt(int id, const char *arg, void *ctx)
{
	struct import_args *a = ctx;
	if (id == OPT_OUT) {
		a->out = arg;
	} else if (id == OPT_LINEAGE && !strcmp(arg, "hpcc")) {
		a->lineage = LINEAGE_HPCC;
	} else if (id == OPT_LINEAGE && !strcmp(arg, "alibabacloud")) {
		a->lineage = LINEAGE_ALIBABACLOUD;
	} else {
		fprintf(stderr, "warpsim import-ns3: --lineage %s: expected hpcc (HPCC's "
			"simulator, 48-byte headers) or alibabacloud (ns-3-alibabacloud, 52)\n",
			arg);
		return EXIT_INPUT;
	}
	return 0;
}

int cmd_import_ns3(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct import_args a = { NULL, LINEAGE_HPCC };
	int rc = parse_opts(argc, argv, cmd, import_opt, &a);
	const char *out = a.out;
	if (rc)
		return rc < 0 ? 0 : rc;
	if (optind + 1 != argc) {
		usage_cmd(stderr, cmd);
		return EXIT_INPUT;
	}
	struct ns3cfg c = { .path = argv[optind], .lineage = a.lineage, .warn = stderr };
	struct ws_err err;
	ws_err_clear(&err);
	char *text = read_all(c.path, &err);
	int status = EXIT_INPUT;
	if (!text || ns3_parse(&c, text, &err) || ns3_refuse(&c, &err))
		goto done;
	check_topology(&c);
	FILE *f = out ? fopen(out, "w") : stdout;
	if (!f) {
		ws_err_set(&err, WS_EIO, "%s: cannot write", out);
		status = EXIT_RUN;
		goto done;
	}
	ns3_emit(f, &c);
	status = (out ? fclose(f) : fflush(f)) ? EXIT_RUN : 0;
	if (status)
		ws_err_set(&err, WS_EIO, "%s: write failed", out ? out : "stdout");
done:
	if (status)
		fprintf(stderr, "warpsim import-ns3: %s\n", err.msg);
	free(text);
	ns3_free(&c);
	return status;
}
