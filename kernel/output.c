/* SPDX-License-Identifier: MIT */
/*
 * Outputs of a run, one directory each: fct.csv, summary.json and the
 * optional ports.csv and flows.csv.  Everything but summary.json's "timing"
 * block is a function of the configuration and seed (and, for the paths
 * summary.json repeats, of how they were written), so two runs can be
 * compared byte for byte.  Times are written in nanoseconds with exactly
 * three decimals (the picosecond count, losslessly).
 */
#define _GNU_SOURCE /* realpath(path, NULL) */
#include <stdbool.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

size_t ws_fmt_ps_as_ns(char *buf, size_t n, ws_time t)
{
	int w = snprintf(buf, n, "%" PRIu64 ".%03" PRIu64, t / 1000, t % 1000);
	return w < 0 ? 0 : (size_t)w;
}

/* ---- JSON writer ------------------------------------------------------------ */

void ws_json_open(struct ws_json *j, FILE *f)
{
	memset(j, 0, sizeof *j);
	j->f = f;
	j->first[0] = true;
}

static void json_indent(struct ws_json *j)
{
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_key(struct ws_json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		fputc('\n', j->f);
	}
	j->first[j->depth] = false;
	json_indent(j);
	if (key && !j->array[j->depth]) {
		json_string(j->f, key);
		fputs(": ", j->f);
	}
}

void ws_json_begin(struct ws_json *j, const char *key)
{
	if (j->depth > 0 || !j->first[0])
		json_key(j, key);
	fputc('{', j->f);
	j->depth++;
	j->first[j->depth] = true;
	j->array[j->depth] = false;
}

void ws_json_begin_array(struct ws_json *j, const char *key)
{
	json_key(j, key);
	fputc('[', j->f);
	j->depth++;
	j->first[j->depth] = true;
	j->array[j->depth] = true;
}

static void json_close(struct ws_json *j, char c)
{
	bool empty = j->first[j->depth];
	j->depth--;
	if (!empty) {
		fputc('\n', j->f);
		json_indent(j);
	}
	fputc(c, j->f);
}

void ws_json_end(struct ws_json *j)
{
	json_close(j, '}');
}

void ws_json_end_array(struct ws_json *j)
{
	json_close(j, ']');
}

void ws_json_close(struct ws_json *j)
{
	while (j->depth > 0)
		json_close(j, j->array[j->depth] ? ']' : '}');
	fputc('\n', j->f);
}

struct ws_json *ws_json_new(FILE *f)
{
	struct ws_json *j = ws_xcalloc(1, sizeof *j);
	ws_json_open(j, f);
	return j;
}

void ws_json_finish(struct ws_json *j)
{
	if (!j)
		return;
	ws_json_close(j);
	free(j);
}

void ws_json_u64(struct ws_json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void ws_json_i64(struct ws_json *j, const char *key, int64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void ws_json_f64(struct ws_json *j, const char *key, double v)
{
	json_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void ws_json_str(struct ws_json *j, const char *key, const char *v)
{
	json_key(j, key);
	json_string(j->f, v);
}

void ws_json_bool(struct ws_json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

/* ---- statistics -------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void ws_sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
}

double ws_percentile(const double *v, size_t n, double pct)
{
	if (n == 0)
		return NAN;
	return v[ws_percentile_rank(n, pct)];
}

size_t ws_percentile_rank(size_t n, double pct)
{
	size_t rank = (size_t)ceil(pct / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	return rank - 1;
}

static void swap_d(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

/*
 * Place v's k-th smallest (from 0) at v[k], the smaller ones before it and
 * the others after (Hoare's selection, median of three, expected O(n)):
 * the value ws_sort_doubles would put at v[k], without sorting.  The
 * end-of-run statistics of 10^8 flows need three ranks, not an order.
 */
double ws_select_double(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (hi > lo + 16) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < v[lo])
			swap_d(&v[mid], &v[lo]);
		if (v[hi] < v[lo])
			swap_d(&v[hi], &v[lo]);
		if (v[hi] < v[mid])
			swap_d(&v[hi], &v[mid]);
		double pivot = v[mid];
		size_t i = lo, j = hi;
		for (;;) { /* v[lo] <= pivot <= v[hi]: both scans stop inside */
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i >= j)
				break;
			swap_d(&v[i++], &v[j--]);
		}
		/* v[lo..j] <= pivot <= v[j+1..hi] */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
	for (size_t i = lo + 1; i <= hi; i++) /* insertion sort of the rest */
		for (size_t j = i; j > lo && v[j] < v[j - 1]; j--)
			swap_d(&v[j], &v[j - 1]);
	return v[k];
}

/* The nearest-rank percentiles pcts[0..m) (ascending) of v[0..n), n > 0,
 * into out[]: each selected in what lies above the previous one. */
void ws_select_percentiles(double *v, size_t n, const double *pcts, size_t m, double *out)
{
	size_t from = 0;
	for (size_t i = 0; i < m; i++) {
		size_t r = ws_percentile_rank(n, pcts[i]);
		if (r < from) /* pcts not ascending: select in the whole array */
			from = 0;
		out[i] = ws_select_double(v + from, n - from, r - from);
		from = r;
	}
}

struct slowdowns {
	double *v, sum;
	size_t n;
};

static void add_slowdown(void *arg, uint64_t bytes, double s)
{
	(void)bytes;
	struct slowdowns *sd = arg;
	sd->v[sd->n++] = s;
	sd->sum += s;
}

void ws_sim_fct_stats(const struct ws_sim *sim, struct ws_fct_stats *user)
{
	struct ws_fct_stats full, *out = &full;
	memset(out, 0, sizeof *out);
	struct slowdowns sd = { ws_xcalloc(sim->n_done ? sim->n_done : 1, sizeof *sd.v),
				0, 0 };
	/* in id order, retired flows first (flowdone.c) */
	ws_flows_done_each(sim, add_slowdown, &sd);
	double *v = sd.v, sum = sd.sum;
	size_t n = sd.n;
	out->n = (uint32_t)n;
	out->mean = n ? sum / (double)n : NAN;
	out->p50 = out->p99 = out->max = NAN;
	if (n) {
		/* the ranks of the sorted values, selected (not sorted) */
		static const double pcts[] = { 50, 99, 100 };
		double got[3];
		ws_select_percentiles(v, n, pcts, 3, got);
		out->p50 = got[0];
		out->p99 = got[1];
		out->max = got[2];
	}
	free(v);
	ws_sized_out(user, &full, sizeof full, "ws_fct_stats");
}

/* ---- files --------------------------------------------------------------------- */

int ws_mkdir_p(const char *dir, struct ws_err *err)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
		return ws_err_set(err, WS_EINVAL, "output directory name too long");
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) && errno != EEXIST)
			return ws_err_at(err, WS_EIO, path, 0,
					 "cannot create directory: %s", strerror(errno));
		*p = '/';
	}
	if (mkdir(path, 0777) && errno != EEXIST)
		return ws_err_at(err, WS_EIO, path, 0, "cannot create directory: %s",
				 strerror(errno));
	return WS_OK;
}

/* ---- output files: whole or not at all ------------------------------------------- */

/*
 * A regular file (or a name not yet taken) is written under NAME.tmp and
 * renamed over NAME, so a reader never sees half of it; a symlink is
 * followed and its target replaced that way (the link stays).  Anything
 * else is written through, as `>` would: a character device (/dev/null), a
 * FIFO, the standard output (`-`, its link in /dev, or the file it was
 * redirected to, written at its current offset).  Renaming over
 * those would replace the device or the link with a regular file.
 */
struct ws_outfile {
	FILE *f;
	bool direct;       /* written through: no temporary, nothing renamed */
	char path[4200];   /* as named: what errors say */
	char target[4200]; /* what the temporary replaces (a symlink's target) */
	char tmp[4208];
};

static bool same_file(const struct stat *a, int fd)
{
	struct stat b;
	return fstat(fd, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

/* Open o->path: through it, or under a temporary next to its target. */
static int outfile_open_path(struct ws_outfile *o)
{
	struct stat st;
	bool exists = stat(o->path, &st) == 0; /* follows symlinks */
	if (!strcmp(o->path, "./-") || (exists && same_file(&st, STDOUT_FILENO))) {
		fflush(NULL); /* what the program printed comes first */
		int fd = dup(STDOUT_FILENO);
		o->direct = true;
		o->f = fd < 0 ? NULL : fdopen(fd, "w");
		if (!o->f && fd >= 0)
			close(fd);
		return o->f ? 0 : -1;
	}
	struct stat lst;
	bool link = lstat(o->path, &lst) == 0 && S_ISLNK(lst.st_mode);
	if ((exists && !S_ISREG(st.st_mode)) || (link && !exists)) {
		/* a device, a FIFO, a directory (EISDIR), a dangling link */
		o->direct = true;
		o->f = fopen(o->path, "w");
		return o->f ? 0 : -1;
	}
	snprintf(o->target, sizeof o->target, "%s", o->path);
	if (link) {
		char *real = realpath(o->path, NULL);
		if (!real)
			return -1;
		int n = snprintf(o->target, sizeof o->target, "%s", real);
		free(real);
		if (n < 0 || (size_t)n >= sizeof o->target) {
			errno = ENAMETOOLONG;
			return -1;
		}
	}
	snprintf(o->tmp, sizeof o->tmp, "%s.tmp", o->target);
	o->f = fopen(o->tmp, "w");
	return o->f ? 0 : -1;
}

struct ws_outfile *ws_outfile_open(const char *dir, const char *name,
				   struct ws_err *err)
{
	struct ws_outfile *o = calloc(1, sizeof *o);
	if (!o) {
		ws_err_set(err, WS_ENOMEM, "out of memory opening %s", name);
		return NULL;
	}
	int n = snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof o->path) {
		ws_err_set(err, WS_EINVAL, "output path too long: %s/%s", dir, name);
		free(o);
		return NULL;
	}
	if (outfile_open_path(o)) {
		ws_err_at(err, WS_EIO, o->path, 0, "cannot write: %s", strerror(errno));
		free(o);
		return NULL;
	}
	return o;
}

FILE *ws_outfile_stream(struct ws_outfile *o)
{
	return o->f;
}

int ws_outfile_commit(struct ws_outfile *o, struct ws_err *err)
{
	if (!o)
		return ws_err_set(err, WS_EINVAL, "no output file");
	int e = 0;
	errno = 0;
	if (fflush(o->f) || ferror(o->f))
		e = errno ? errno : EIO;
	if (fclose(o->f) && !e)
		e = errno ? errno : EIO;
	int rc = WS_OK;
	if (e) {
		rc = ws_err_at(err, WS_EIO, o->path, 0, "write failed: %s", strerror(e));
		if (!o->direct)
			unlink(o->tmp);
	} else if (!o->direct && rename(o->tmp, o->target)) {
		rc = ws_err_at(err, WS_EIO, o->path, 0, "cannot rename %s into place: %s",
			       o->tmp, strerror(errno));
		unlink(o->tmp);
	}
	free(o);
	return rc;
}

void ws_outfile_discard(struct ws_outfile *o)
{
	if (!o)
		return;
	fclose(o->f);
	if (!o->direct)
		unlink(o->tmp);
	free(o);
}

void ws_fct_row(FILE *f, uint32_t id, const struct ws_flow *fl)
{
	char s[32], e[32], fct[32], ideal[32];
	ws_fmt_ps_as_ns(s, sizeof s, fl->start);
	ws_fmt_ps_as_ns(e, sizeof e, fl->end);
	ws_fmt_ps_as_ns(fct, sizeof fct, fl->end - fl->start);
	ws_fmt_ps_as_ns(ideal, sizeof ideal, fl->ideal_fct);
	fprintf(f, "%u,%u,%u,%" PRIu64 ",%u,%s,%s,%s,%s,%.6f,%" PRIu64 "\n", id,
		fl->cc.src, fl->cc.dst, fl->cc.size, fl->prio, s, e, fct, ideal,
		(double)(fl->end - fl->start) / (double)fl->ideal_fct, fl->tag);
}

/* The completed flows in id order: the rows retired while running
 * (flowdone.c), then those of the records still held. */
static int write_fct(struct ws_sim *sim, const char *dir, struct ws_err *err)
{
	struct ws_outfile *o = ws_outfile_open(dir, "fct.csv", err);
	if (!o)
		return WS_EIO;
	FILE *f = ws_outfile_stream(o);
	fputs("flow_id,src,dst,bytes,prio,start_ns,end_ns,fct_ns,ideal_fct_ns,slowdown,tag\n", f);
	if (ws_flows_done_copy_rows(sim, f)) {
		ws_outfile_discard(o);
		return ws_err_at(err, WS_EIO, dir, 0, "fct.csv: cannot copy the rows "
				 "of the completed flows from their temporary file");
	}
	for (uint32_t i = sim->done.wm; i < sim->n_flows; i++) {
		const struct ws_flow *fl = sim->flows[i];
		if (fl->end != WS_TIME_NEVER)
			ws_fct_row(f, i, fl);
	}
	return ws_outfile_commit(o, err);
}

static int write_ports(struct ws_sim *sim, const char *dir, struct ws_err *err)
{
	struct ws_outfile *o = ws_outfile_open(dir, "ports.csv", err);
	if (!o)
		return WS_EIO;
	FILE *f = ws_outfile_stream(o);
	/* the marks of ACKs, NACKs and CNPs, apart, when there can be any */
	const bool ctrl = sim->ref.ecn_all;
	fputs("node,port,peer_node,peer_port,rate_bps,tx_bytes,tx_packets,drops,"
	      "ecn_marks,pause_sent,resume_sent,pause_received,paused_ns,"
	      "max_queue_bytes", f);
	fputs(ctrl ? ",ecn_marks_ctrl\n" : "\n", f);
	for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
		const struct ws_port *p = &sim->ports[i];
		const struct ws_port *q = &sim->ports[p->peer];
		ws_time paused = p->paused_time;
		if (p->paused)
			paused += sim->now - p->paused_since;
		char pt[32];
		ws_fmt_ps_as_ns(pt, sizeof pt, paused);
		fprintf(f, "%u,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64,
			p->node, p->local, q->node, q->local, p->rate, p->tx_bytes,
			p->tx_pkts, p->drops, p->ecn_marks, p->pause_tx, p->resume_tx,
			p->pause_rx, pt, p->max_q_bytes);
		if (ctrl)
			fprintf(f, ",%" PRIu64, p->ecn_marks_ctrl);
		fputc('\n', f);
	}
	return ws_outfile_commit(o, err);
}

static int write_flows(struct ws_sim *sim, const char *dir, struct ws_err *err)
{
	struct ws_outfile *o = ws_outfile_open(dir, "flows.csv", err);
	if (!o)
		return WS_EIO;
	FILE *f = ws_outfile_stream(o);
	/* two more columns when a lossy transport is in use (ws_transport_used) */
	bool lossy = ws_transport_used(sim);
	fputs("flow_id,src,dst,bytes,prio,sport,dport,start_ns,end_ns,acked,sent,"
	      "retx,ce_marked,cnps,nacks,timeouts,hops,rate_bps,ooo_pkts,"
	      "max_reorder,status", f);
	fputs(lossy ? ",retx_pkts,trims\n" : "\n", f);
	for (uint32_t i = 0; i < sim->n_flows; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(sim, i, &fi);
		char s[32], e[32];
		ws_fmt_ps_as_ns(s, sizeof s, fi.start);
		if (fi.end == WS_TIME_NEVER)
			e[0] = '\0';
		else
			ws_fmt_ps_as_ns(e, sizeof e, fi.end);
		fprintf(f, "%u,%u,%u,%" PRIu64 ",%u,%u,%u,%s,%s,%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%u,%" PRIu64 ",%" PRIu64 ",%u,%s",
			i, fi.src, fi.dst, fi.bytes, fi.prio, fi.sport, fi.dport, s, e,
			fi.acked, fi.sent, fi.retx, fi.ce_marked, fi.cnps, fi.nacks,
			fi.timeouts, fi.hops, fi.rate, fi.ooo_pkts, fi.max_reorder,
			fi.end != WS_TIME_NEVER ? "done" : fi.aborted ? "aborted" : "unfinished");
		if (lossy)
			fprintf(f, ",%" PRIu64 ",%" PRIu64, fi.retx_pkts, fi.trims);
		fputc('\n', f);
	}
	return ws_outfile_commit(o, err);
}

/*
 * The parameters typed (docs/outputs.md, "summary.json"): integers, floats
 * and booleans as JSON numbers and booleans under their own key; rates,
 * times and sizes as integers in bps, ps and bytes under the key with the
 * unit appended (_bps, _ps, _bytes) unless it ends with it already, as the
 * CSVs name their columns;
 * choices and strings as strings.
 */
static void json_params(struct ws_json *j, const struct ws_param *params,
			const void *conf)
{
	static const char *const unit[] = {
		[WS_PT_RATE] = "_bps", [WS_PT_TIME] = "_ps", [WS_PT_SIZE] = "_bytes",
	};
	ws_json_begin(j, "params");
	for (const struct ws_param *p = params; p && p->key; p++) {
		/* how many threads ran it changes how fast, never what: it is
		 * in "timing" */
		if (params == ws_sim_params && !strcmp(p->key, "threads"))
			continue;
		const void *src = (const char *)conf + p->offset;
		char v[512];
		switch (p->type) {
		case WS_PT_INT:
			ws_json_i64(j, p->key, *(const int64_t *)src);
			break;
		case WS_PT_UINT:
			ws_json_u64(j, p->key, *(const uint64_t *)src);
			break;
		case WS_PT_FLOAT:
			ws_json_f64(j, p->key, *(const double *)src);
			break;
		case WS_PT_BOOL:
			ws_json_bool(j, p->key, *(const bool *)src);
			break;
		case WS_PT_RATE:
		case WS_PT_TIME:
		case WS_PT_SIZE:
		{
			size_t kl = strlen(p->key), ul = strlen(unit[p->type]);
			bool has = kl > ul && !strcmp(p->key + kl - ul, unit[p->type]);
			snprintf(v, sizeof v, "%s%s", p->key, has ? "" : unit[p->type]);
			ws_json_u64(j, v, *(const uint64_t *)src);
		}
			break;
		default:
			ws_param_format(p, src, v, sizeof v);
			ws_json_str(j, p->key, v);
			break;
		}
	}
	ws_json_end(j);
}

static void json_stats(struct ws_json *j, const char *key, double mean,
		       double p50, double p99, double max)
{
	ws_json_begin(j, key);
	ws_json_f64(j, "mean", mean);
	ws_json_f64(j, "p50", p50);
	ws_json_f64(j, "p99", p99);
	ws_json_f64(j, "max", max);
	ws_json_end(j);
}

/* Peak resident memory of this process (Linux), 0 if unknown. */
static uint64_t peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	char line[256];
	uint64_t kib = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmHWM: %" SCNu64, &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* What was run: version, config, seed, every plugin and kernel section with
 * the value of each of its parameters. */
static void summary_config(struct ws_sim *sim, struct ws_json *j)
{
	ws_json_str(j, "warpsim", WS_VERSION);
	char abi[16];
	snprintf(abi, sizeof abi, "%d.%d", WS_ABI_MAJOR, WS_ABI_MINOR);
	ws_json_str(j, "abi", abi);
	ws_json_str(j, "config", sim->cfg_path);
	ws_json_u64(j, "seed", sim->seed);
	ws_json_begin(j, "plugins");
	for (int k = WS_KIND_TOPO; k <= WS_KIND_WORKLOAD; k++) {
		const struct ws_slot *s = &sim->slot[k];
		ws_json_begin(j, ws_kind_name(k));
		ws_json_str(j, "name", s->ld.desc->name);
		ws_json_str(j, "version", s->ld.desc->version);
		json_params(j, s->ld.desc->params, s->inst.conf);
		ws_json_end(j);
	}
	ws_json_end(j);
	ws_json_begin(j, "kernel");
	const struct ws_section_info *k;
	for (size_t i = 0; (k = ws_kernel_section(i)); i++) {
		ws_json_begin(j, k->name);
		json_params(j, k->params, ws_kernel_section_conf(sim, i));
		ws_json_end(j);
	}
	ws_json_end(j);
}

static void summary_fabric(const struct ws_sim *sim, struct ws_json *j)
{
	ws_json_begin(j, "fabric");
	ws_json_u64(j, "nodes", sim->fab.n_nodes);
	ws_json_u64(j, "hosts", sim->fab.n_hosts);
	ws_json_u64(j, "switches", sim->fab.n_switches);
	ws_json_u64(j, "links", sim->fab.n_links);
	ws_json_u64(j, "ports", sim->fab.n_ports);
	ws_json_u64(j, "max_base_rtt_ps", sim->max_base_rtt);
	ws_json_u64(j, "max_bdp_bytes", sim->max_bdp);
	if (sim->outc.ports)
		ws_json_node_levels(sim, j); /* ports.csv's tiers, for plots */
	ws_json_tiers(sim, j);
	ws_json_end(j);
}

static void summary_packets(const struct ws_counters *c, bool ctrl_marks,
			    struct ws_json *j)
{
	ws_json_begin(j, "packets");
	ws_json_u64(j, "data", c->data_pkts);
	ws_json_u64(j, "data_wire_bytes", c->data_bytes);
	ws_json_u64(j, "acks", c->acks);
	ws_json_u64(j, "nacks", c->nacks);
	ws_json_u64(j, "cnps", c->cnps);
	ws_json_u64(j, "congestion_notifications", c->notified);
	ws_json_u64(j, "pfc_pauses", c->pfc_pauses);
	ws_json_u64(j, "pfc_resumes", c->pfc_resumes);
	ws_json_u64(j, "drops", c->drops);
	ws_json_u64(j, "ecn_marks", c->ecn_marks);
	if (ctrl_marks)
		ws_json_u64(j, "ecn_marks_ctrl", c->ecn_marks_ctrl);
	ws_json_u64(j, "retransmitted_bytes", c->retx_bytes);
	ws_json_u64(j, "timeouts", c->timeouts);
	ws_json_end(j);
}

/* What the lossy transports did, when one is in use. */
static void summary_transport(const struct ws_sim *sim, struct ws_json *j)
{
	if (!ws_transport_used(sim))
		return;
	static const char *const tr[] = { "gbn", "sr" };
	static const char *const ent[] = { "flow", "spray", "recycle" };
	const struct ws_counters *c = &sim->ctr;
	ws_json_begin(j, "transport");
	ws_json_str(j, "mode", tr[sim->nicc.transport]);
	ws_json_str(j, "entropy", ent[sim->nicc.entropy]);
	ws_json_bool(j, "trim", sim->swc.trim);
	ws_json_u64(j, "retransmitted_packets", c->retx_pkts);
	ws_json_u64(j, "trims", c->trims);
	ws_json_u64(j, "duplicates_received", c->dup_pkts);
	ws_json_u64(j, "timeouts", c->timeouts);
	ws_json_u64(j, "aborted", c->aborted);
	ws_json_end(j);
}

/* The flows given up after [nic] retry_limit timeouts, and why their last
 * packets died (the first WS_ABORTED_LISTED of them). */
#define WS_ABORTED_LISTED 1000
static void summary_aborted(struct ws_sim *sim, struct ws_json *j)
{
	if (!sim->ctr.aborted)
		return;
	ws_json_begin_array(j, "aborted_flows");
	uint32_t listed = 0;
	for (uint32_t i = 0; i < sim->n_flows && listed < WS_ABORTED_LISTED; i++) {
		const struct ws_flow *f = sim->flows[i];
		if (!f || !f->aborted)
			continue; /* released flows completed */
		listed++;
		char why[96];
		ws_fail_reason(sim, f, why, sizeof why);
		ws_json_begin(j, NULL);
		ws_json_u64(j, "flow", i);
		ws_json_u64(j, "src", f->cc.src);
		ws_json_u64(j, "dst", f->cc.dst);
		ws_json_u64(j, "bytes", f->cc.size);
		ws_json_u64(j, "acked", f->cc.snd_una + f->skipped);
		ws_json_str(j, "status", "aborted");
		ws_json_str(j, "last_failure_drop", why);
		ws_json_end(j);
	}
	ws_json_end_array(j);
}

/* Why the last ws_sim_run returned: "drained" (nothing left to simulate),
 * "time_limit" ([sim] stop_time or the caller's `until`), "max_events",
 * "requested" (ws_sim_request_stop: a wall-clock budget) or "failed". */
static const char *run_end_reason(const struct ws_sim *sim)
{
	if (sim->failed)
		return "failed";
	if (sim->stop_requested)
		return "requested";
	if (sim->simc.max_events && sim->events >= sim->simc.max_events)
		return "max_events";
	if (sim->q.live > sim->observers)
		return "time_limit";
	return "drained";
}

/* The results: deterministic, the same bytes for the same config and seed. */
static void summary_results(struct ws_sim *sim, struct ws_json *j)
{
	ws_json_begin(j, "results");
	/* a run stopped early (a signal, a budget) says so, and why */
	ws_json_bool(j, "complete", !sim->incomplete);
	if (sim->incomplete)
		ws_json_str(j, "incomplete_reason", sim->incomplete);
	ws_json_u64(j, "sim_time_ps", sim->now);
	ws_json_u64(j, "events", sim->events);
	ws_json_begin(j, "flows");
	ws_json_u64(j, "created", sim->n_flows);
	ws_json_u64(j, "completed", sim->n_done);
	ws_json_u64(j, "incomplete", sim->n_flows - sim->n_done);
	ws_json_u64(j, "aborted", sim->ctr.aborted);
	ws_json_end(j);
	summary_packets(&sim->ctr, sim->ref.ecn_all, j);
	summary_transport(sim, j);
	ws_json_drops(sim, j);
	summary_aborted(sim, j);
	uint64_t peak = 0;
	for (uint32_t i = 0; i < sim->fab.n_switches; i++)
		peak = WS_MAX(peak, sim->sws[i].peak_used);
	ws_json_u64(j, "peak_shared_buffer_bytes", peak);
	struct ws_fct_stats fs = { WS_INIT_SIZE(struct ws_fct_stats) };
	ws_sim_fct_stats(sim, &fs);
	json_stats(j, "fct_slowdown", fs.mean, fs.p50, fs.p99, fs.max);
	ws_json_fct_by_size(sim, j);
	ws_json_reordering(sim, j);
	ws_json_link_load(sim, j);
	ws_json_ptrace(sim, j);
	ws_json_str(j, "end", run_end_reason(sim));
	ws_json_u64(j, "warnings", sim->warnings);
	ws_json_end(j);
}

/* The accelerator's counters and the workload's results, from their
 * report ops. */
static void summary_reports(struct ws_sim *sim, struct ws_json *j)
{
	const struct ws_accel_ops *aops = WS_ACCEL_OPS(sim);
	ws_json_begin(j, "accel");
	ws_json_str(j, "name", sim->slot[WS_KIND_ACCEL].ld.desc->name);
	if (aops->report)
		aops->report(&sim->slot[WS_KIND_ACCEL].inst, j);
	ws_json_end(j);
	const struct ws_workload_ops *wops = WS_WORKLOAD_OPS(sim);
	if (wops->report) {
		ws_json_begin(j, "workload");
		wops->report(&sim->slot[WS_KIND_WORKLOAD].inst, j);
		ws_json_end(j);
	}
}

/* Wall-clock values: the only part that differs between identical runs. */
static void summary_timing(const struct ws_sim *sim, struct ws_json *j)
{
	ws_json_begin(j, "timing");
	ws_json_f64(j, "build_s", sim->wall_build_s);
	ws_json_f64(j, "run_s", sim->wall_run_s);
	ws_json_f64(j, "run_cpu_s", sim->cpu_run_s);
	ws_json_f64(j, "events_per_s",
		    sim->wall_run_s > 0 ? (double)sim->events / sim->wall_run_s : 0);
	ws_json_u64(j, "peak_rss_kib", peak_rss_kib());
	ws_json_u64(j, "threads", ws_part_threads(sim));
	ws_json_end(j);
}

static int write_summary(struct ws_sim *sim, const char *dir, struct ws_err *err)
{
	struct ws_outfile *o = ws_outfile_open(dir, "summary.json", err);
	if (!o)
		return WS_EIO;
	struct ws_json j;
	ws_json_open(&j, ws_outfile_stream(o));
	ws_json_begin(&j, NULL);
	summary_config(sim, &j);
	summary_fabric(sim, &j);
	summary_results(sim, &j);
	if (sim->par)
		ws_part_json(sim, &j);
	summary_reports(sim, &j);
	summary_timing(sim, &j);
	ws_json_close(&j);
	return ws_outfile_commit(o, err);
}

size_t ws_sim_workload_summary(struct ws_sim *sim, const char *dir, char *buf,
			       size_t size)
{
	const struct ws_workload_ops *wops = WS_WORKLOAD_OPS(sim);
	if (size)
		buf[0] = '\0';
	if (!wops || !wops->summary || !size)
		return 0;
	size_t n = wops->summary(&sim->slot[WS_KIND_WORKLOAD].inst, dir, buf, size);
	return n < size ? n : size - 1;
}

/* The result tables ws_sim_write_outputs() writes, when [output] asks;
 * those without a writer are the workload's, which asks for the list. */
struct result_table {
	const char *file;
	size_t on;   /* offset of its bool in struct ws_output_conf */
	int (*write)(struct ws_sim *sim, const char *dir, struct ws_err *err);
};

static const struct result_table result_tables[] = {
	{ "fct.csv", offsetof(struct ws_output_conf, fct), write_fct },
	{ "fct_by_size.csv", offsetof(struct ws_output_conf, fct_by_size), ws_write_fct_by_size },
	{ "ports.csv", offsetof(struct ws_output_conf, ports), write_ports },
	{ "flows.csv", offsetof(struct ws_output_conf, flows), write_flows },
	{ "failures.csv", offsetof(struct ws_output_conf, failures), ws_failures_write },
	{ "fct.txt", offsetof(struct ws_output_conf, fct_txt), ws_ns3_write_fct_txt },
	{ "timeline.json", offsetof(struct ws_output_conf, timeline), NULL },
};

static bool table_on(const struct ws_sim *sim, const struct result_table *t)
{
	return *(const bool *)((const char *)&sim->outc + t->on);
}

size_t ws_sim_output_files(const struct ws_sim *sim, const char **names,
			   size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < WS_ARRAY_LEN(result_tables); i++) {
		if (!table_on(sim, &result_tables[i]))
			continue;
		if (n < max)
			names[n] = result_tables[i].file;
		n++;
	}
	return n;
}

/*
 * Files of an earlier run in `dir` that this run will not write: removed,
 * summary.json first, so that a directory never mixes two runs' results
 * (a directory without summary.json holds no finished run).  The plugins'
 * own files are theirs to replace.
 */
void ws_outputs_clear(const struct ws_sim *sim, const char *dir)
{
	static const char *const traces[] = { "rates.csv", "queues.csv", "util.csv",
					      "packets.csv", "pfc.csv" };
	char path[4200];
	snprintf(path, sizeof path, "%s/summary.json", dir);
	unlink(path);
	for (size_t i = 0; i < WS_ARRAY_LEN(result_tables); i++) {
		snprintf(path, sizeof path, "%s/%s", dir, result_tables[i].file);
		if (!table_on(sim, &result_tables[i]))
			unlink(path);
	}
	if (!sim->outc.trace_queues) {
		snprintf(path, sizeof path, "%s/queue_dist.csv", dir);
		unlink(path);
	}
	if (!sim->outc.pfc) {
		snprintf(path, sizeof path, "%s/pfc_ports.csv", dir);
		unlink(path);
	}
	bool here = !strcmp(dir, sim->out_dir);
	for (size_t i = 0; i < WS_ARRAY_LEN(traces); i++) {
		snprintf(path, sizeof path, "%s/%s", dir, traces[i]);
		if (!here || !ws_traces_written(sim, traces[i]))
			unlink(path);
	}
}

int ws_sim_write_outputs(struct ws_sim *sim, const char *dir, struct ws_err *err)
{
	if (!dir)
		dir = sim->out_dir;
	int rc = ws_mkdir_p(dir, err);
	if (!rc)
		rc = ws_traces_commit(sim, err);
	if (!rc)
		ws_outputs_clear(sim, dir);
	for (size_t i = 0; !rc && i < WS_ARRAY_LEN(result_tables); i++)
		if (table_on(sim, &result_tables[i]) && result_tables[i].write)
			rc = result_tables[i].write(sim, dir, err);
	if (!rc && sim->outc.trace_queues)
		rc = ws_write_queue_dist(sim, dir, err);
	if (!rc && sim->outc.pfc)
		rc = ws_write_pfc_ports(sim, dir, err);
	/* the plugins' own files: the workload's results, then the
	 * accelerator's side effects (a memo it keeps across runs) */
	const struct ws_workload_ops *wops = WS_WORKLOAD_OPS(sim);
	if (!rc && wops->finish) {
		ws_err_clear(err);
		rc = wops->finish(&sim->slot[WS_KIND_WORKLOAD].inst, dir, err);
	}
	const struct ws_accel_ops *aops = WS_ACCEL_OPS(sim);
	if (!rc && aops->finish) {
		ws_err_clear(err);
		rc = aops->finish(&sim->slot[WS_KIND_ACCEL].inst, dir, err);
	}
	if (!rc)
		rc = write_summary(sim, dir, err);
	return rc;
}
