/* SPDX-License-Identifier: MIT */
/*
 * cdf: the standard traffic of congestion-control papers.  Flow sizes are
 * drawn from a flow-size CDF file in the layout of the HPCC simulator's
 * traffic generator (traffic_gen/: one "size_bytes cumulative_percent"
 * pair per line, WebSearch, FB_Hadoop, AliStorage2019, GoogleRPC2008), and
 * flows arrive at each host as a Poisson process whose rate makes the
 * host's offered load `load` x its link rate.
 *
 * As that generator does (traffic_gen.py, custom_rand.py):
 *  - a CDF must start at 0 %, end at 100 %, with sizes and percentages
 *    strictly increasing;
 *  - a size is drawn by taking u uniform in [0, 100) and interpolating
 *    linearly between the two points around it, truncated to whole bytes
 *    (0 becomes 1);
 *  - the mean size is that of the piecewise-linear CDF, the sum over
 *    segments of (x0 + x1) / 2 x (y1 - y0) / 100, and each host's mean
 *    inter-arrival time is mean_size x 8 / (load x link rate), drawn from
 *    an exponential distribution and truncated to whole nanoseconds;
 *  - a destination is uniform over the other hosts; priority 3, dport 100.
 * Differences: one random stream per host (so a host's flows do not change
 * when others are added), arrivals from `start` (the generator adds 2 s),
 * and the options below.
 *
 * Options: `pattern = all-to-all` sends each host's successive flows to
 * every other host in turn instead of at random; `rack_local` is the chance
 * that a flow goes to another host of the source's rack (hosts behind the
 * same first switch); `incast_load` adds incast events (Poisson, the whole
 * fabric) of `incast_fanin` senders x `incast_size` bytes to one random
 * receiver, sized to carry that fraction of the hosts' capacity, with
 * dport 200 (the HPCC analysis script's incast mark).  Arrivals stop at
 * start + `duration` or after `flows` background flows, whichever comes
 * first.  All flows are drawn when the simulation is built, so
 * `warpsim gen` can write them as an HPCC flow.txt and summary.json reports
 * the achieved load beside the target.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <warpsim/warpsim.h>

#define CDF_MAX_FLOWS 100000000u /* records kept in memory (32 bytes each) */
/* The largest size a CDF point may give, 1 TB (as incast_size): beyond
 * it a size does not make a whole number of bytes a flow can carry (1e300
 * cast to an integer is undefined) and the byte counts overflow. */
#define CDF_MAX_BYTES 1e12
#define CDF_BG_DPORT 100
#define CDF_INCAST_DPORT 200

enum cdf_pattern { CDF_UNIFORM, CDF_ALL_TO_ALL };
static const char *const cdf_pattern_names[] = { "uniform", "all-to-all", NULL };

struct cdf_conf {
	const char *file;
	double load;
	ws_time duration;
	uint64_t flows;
	ws_time start;
	int pattern;
	double rack_local;
	double incast_load;
	uint64_t incast_fanin;
	uint64_t incast_size;
	uint64_t prio;
	bool save_trace;
};

static const struct ws_param cdf_params[] = {
	WS_PARAM_STRING("file", struct cdf_conf, file, NULL,
			"flow-size CDF, HPCC layout: 'size_bytes cumulative_percent' per line"),
	WS_PARAM_FLOAT("load", struct cdf_conf, load, "0.3", "0", "1",
		       "offered load of each host as a fraction of its link rate"),
	WS_PARAM_TIME("duration", struct cdf_conf, duration, "0s", "0s", "1000s",
		      "arrivals from start to start + duration; 0s: until `flows` flows"),
	WS_PARAM_UINT("flows", struct cdf_conf, flows, "0", "0", "100000000",
		      "stop after this many background flows; 0: no limit (use duration)"),
	WS_PARAM_TIME("start", struct cdf_conf, start, "0s", "0s", "1000s",
		      "time arrivals start from"),
	WS_PARAM_ENUM("pattern", struct cdf_conf, pattern, "uniform", cdf_pattern_names,
		      "destinations: uniform over the other hosts, or all-to-all (each in turn)"),
	WS_PARAM_FLOAT("rack_local", struct cdf_conf, rack_local, "0", "0", "1",
		       "chance a flow goes to another host of the source's rack"),
	WS_PARAM_FLOAT("incast_load", struct cdf_conf, incast_load, "0", "0", "1",
		       "extra load (fraction of the hosts' capacity) in incast events"),
	WS_PARAM_UINT("incast_fanin", struct cdf_conf, incast_fanin, "16", "1", "1000000",
		      "senders per incast event"),
	WS_PARAM_SIZE("incast_size", struct cdf_conf, incast_size, "500KB", "1", "1TB",
		      "bytes each incast sender sends"),
	WS_PARAM_UINT("prio", struct cdf_conf, prio, "3", "1", "7",
		      "priority class of every flow (the generator's 3)"),
	WS_PARAM_BOOL("save_trace", struct cdf_conf, save_trace, "false",
		      "also write the flows as an HPCC flow.txt in the output directory"),
	WS_PARAM_END
};

struct cdf_point {
	double bytes, pct;
};

struct cdf_rec {
	ws_time start;
	uint64_t bytes;
	uint32_t src, dst;   /* node ids */
	uint32_t seq;        /* draw order: ties of start keep it */
	uint16_t dport;
};

struct cdf_state {
	struct cdf_point *pts;
	size_t n_pts;
	double mean;           /* bytes, of the piecewise-linear CDF */
	struct cdf_rec *recs;
	uint32_t n, cap, next;
	uint32_t n_bg;         /* background flows (the rest: incast) */
	uint64_t bg_bytes, incast_bytes;
	uint64_t incast_events;
	ws_time window;        /* arrivals spanned [start, start + window) */
	double capacity_bps;   /* sum of the hosts' link rates */
	char path[4096];
};

static int cdf_validate(const void *conf, struct ws_err *err)
{
	const struct cdf_conf *c = conf;
	if (!c->duration && !c->flows)
		return ws_err_key(err, WS_EINVAL, "duration",
				  "set duration or flows (or both): the traffic needs an end");
	if (!(c->load > 0) && !(c->incast_load > 0))
		return ws_err_key(err, WS_EINVAL, "load",
				  "load and incast_load are both 0: no traffic");
	return WS_OK;
}

/* ---- the CDF file ------------------------------------------------------------------ */

static bool parse_number(const char *tok, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(tok, &end);
	return tok[0] && !*end && !errno && isfinite(*v);
}

/* One "size percent" line into *p, checked against the point before it. */
static int cdf_parse_line(char *buf, const char *path, int line,
			  const struct cdf_point *prev, struct cdf_point *p,
			  struct ws_err *err)
{
	char *save = NULL, *tok[3];
	int n = 0;
	for (char *t = strtok_r(buf, " \t\r\n", &save); t && n < 3;
	     t = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = t;
	if (n != 2)
		return ws_err_at(err, WS_EINVAL, path, line, "expected two fields "
				 "'size_bytes cumulative_percent', found %d", n);
	if (!parse_number(tok[0], &p->bytes) || p->bytes < 0)
		return ws_err_at(err, WS_EINVAL, path, line, "bad size '%s' (expected "
				 "a number of bytes >= 0)", tok[0]);
	if (p->bytes > CDF_MAX_BYTES)
		return ws_err_at(err, WS_EINVAL, path, line, "size '%s' too large "
				 "(expected a number of bytes, at most %.0f)", tok[0],
				 CDF_MAX_BYTES);
	if (!parse_number(tok[1], &p->pct) || p->pct < 0 || p->pct > 100)
		return ws_err_at(err, WS_EINVAL, path, line, "bad cumulative percent "
				 "'%s' (expected 0 to 100)", tok[1]);
	if (!prev && p->pct != 0)
		return ws_err_at(err, WS_EINVAL, path, line, "the first point's "
				 "cumulative percent is %g; a CDF starts at 0", p->pct);
	if (prev && !(p->bytes > prev->bytes))
		return ws_err_at(err, WS_EINVAL, path, line, "sizes must increase: %g "
				 "after %g", p->bytes, prev->bytes);
	if (prev && !(p->pct > prev->pct))
		return ws_err_at(err, WS_EINVAL, path, line, "cumulative percents must "
				 "increase: %g after %g", p->pct, prev->pct);
	return WS_OK;
}

static int cdf_read_lines(FILE *f, struct cdf_state *s, int *last_line,
			  struct ws_err *err)
{
	char *buf = NULL;
	size_t cap = 0, room = 0;
	int line = 0, rc;
	while ((rc = ws_text_line(f, &buf, &cap, WS_TEXT_LINE_MAX, s->path, &line,
				  err)) == 1) {
		rc = WS_OK;
		if (ws_text_blank(buf))
			continue;
		if (s->n_pts == room) {
			room = room ? 2 * room : 32;
			void *p = realloc(s->pts, room * sizeof *s->pts);
			if (!p) {
				rc = ws_err_set(err, WS_ENOMEM, "out of memory reading the CDF");
				break;
			}
			s->pts = p;
		}
		rc = cdf_parse_line(buf, s->path, line,
				    s->n_pts ? &s->pts[s->n_pts - 1] : NULL,
				    &s->pts[s->n_pts], err);
		if (rc)
			break;
		*last_line = line;
		s->n_pts++;
	}
	free(buf);
	return rc;
}

static int cdf_load(struct cdf_state *s, struct ws_err *err)
{
	FILE *f = fopen(s->path, "r");
	if (!f)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EIO, s->path, 0,
				 "cannot open the flow-size CDF: %s", strerror(errno));
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return ws_err_at(err, WS_EINVAL, s->path, 0, "cannot read the flow-size "
				 "CDF: %s", strerror(EISDIR));
	}
	int last = 0;
	int rc = cdf_read_lines(f, s, &last, err);
	fclose(f);
	if (rc)
		return rc;
	if (s->n_pts < 2)
		return ws_err_at(err, WS_EINVAL, s->path, last, "%s: a CDF needs at "
				 "least two points ('size_bytes cumulative_percent' per line, "
				 "from 0 to 100)", s->n_pts ? "one point only" : "no points");
	if (s->pts[s->n_pts - 1].pct != 100)
		return ws_err_at(err, WS_EINVAL, s->path, last, "the last point's "
				 "cumulative percent is %g; a CDF ends at 100",
				 s->pts[s->n_pts - 1].pct);
	s->mean = 0;
	for (size_t i = 1; i < s->n_pts; i++)
		s->mean += (s->pts[i].bytes + s->pts[i - 1].bytes) / 2 *
			   (s->pts[i].pct - s->pts[i - 1].pct) / 100;
	return WS_OK;
}

/* The size at cumulative percent y in [0, 100): the first point at or above
 * y and the one before it, interpolated; whole bytes, at least 1. */
static uint64_t cdf_size_at(const struct cdf_state *s, double y)
{
	size_t lo = 1, hi = s->n_pts - 1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (y <= s->pts[mid].pct)
			hi = mid;
		else
			lo = mid + 1;
	}
	const struct cdf_point *a = &s->pts[lo - 1], *b = &s->pts[lo];
	double x = a->bytes + (b->bytes - a->bytes) / (b->pct - a->pct) * (y - a->pct);
	uint64_t v = (uint64_t)x;
	return v ? v : 1;
}

/* ---- drawing the traffic ----------------------------------------------------------- */

struct cdf_gen {
	const struct cdf_conf *c;
	const struct ws_fabric *fab;
	struct cdf_state *s;
	struct ws_rng *rng;       /* one per host */
	ws_time *next;            /* each host's next arrival */
	double *mean_gap_ps;      /* each host's mean inter-arrival */
	uint32_t *rack;           /* host index -> first switch (node id) */
	uint32_t *rack_first;     /* hosts sorted by rack: where each host's rack starts */
	uint32_t *rack_hosts, *rack_len;
	uint32_t *turn;           /* all-to-all: each host's next offset */
	uint32_t *heap;           /* host indices, by next arrival */
	uint32_t n_heap;
};

static bool gen_before(const struct cdf_gen *g, uint32_t a, uint32_t b)
{
	return g->next[a] != g->next[b] ? g->next[a] < g->next[b] : a < b;
}

static void heap_down(struct cdf_gen *g, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < g->n_heap && gen_before(g, g->heap[l], g->heap[m]))
			m = l;
		if (r < g->n_heap && gen_before(g, g->heap[r], g->heap[m]))
			m = r;
		if (m == i)
			return;
		uint32_t t = g->heap[i];
		g->heap[i] = g->heap[m];
		g->heap[m] = t;
		i = m;
	}
}

/* An exponential gap of mean `mean_ps`, truncated to whole nanoseconds. */
static ws_time exp_gap(struct ws_rng *rng, double mean_ps)
{
	double gap = -log(1 - ws_rng_uniform(rng)) * mean_ps;
	if (gap > 1e18)
		gap = 1e18;
	return (ws_time)(gap / (double)WS_NS) * WS_NS;
}

static int push_rec(struct cdf_state *s, const struct cdf_rec *r, struct ws_err *err)
{
	if (s->n == s->cap) {
		if (s->cap >= CDF_MAX_FLOWS)
			return ws_err_key(err, WS_EINVAL, "duration", "more than %u flows "
					  "(lower duration, load or the fabric's size)",
					  CDF_MAX_FLOWS);
		uint32_t cap = s->cap ? 2 * s->cap : 4096;
		if (cap > CDF_MAX_FLOWS)
			cap = CDF_MAX_FLOWS;
		void *p = realloc(s->recs, (size_t)cap * sizeof *s->recs);
		if (!p)
			return ws_err_set(err, WS_ENOMEM, "out of memory for %u flows", cap);
		s->recs = p;
		s->cap = cap;
	}
	s->recs[s->n] = *r;
	s->recs[s->n].seq = s->n;
	s->n++;
	return WS_OK;
}

/* The destination host index of a flow from host `h`. */
static uint32_t pick_dst(struct cdf_gen *g, uint32_t h)
{
	uint32_t n = g->fab->n_hosts;
	struct ws_rng *rng = &g->rng[h];
	uint32_t len = g->rack_len[h];
	if (g->c->rack_local > 0 && len > 1 && ws_rng_uniform(rng) < g->c->rack_local) {
		const uint32_t *mates = g->rack_hosts + g->rack_first[h];
		uint32_t d;
		do
			d = mates[ws_rng_below(rng, len)];
		while (d == h);
		return d;
	}
	if (g->c->pattern == CDF_ALL_TO_ALL) {
		uint32_t off = 1 + g->turn[h];
		g->turn[h] = (g->turn[h] + 1) % (n - 1);
		return (h + off) % n;
	}
	uint32_t d = (uint32_t)ws_rng_below(rng, n - 1);
	return d >= h ? d + 1 : d;
}

/* The background flows, in arrival order, until the window or the count. */
static int gen_background(struct cdf_gen *g, struct ws_err *err)
{
	const struct cdf_conf *c = g->c;
	struct cdf_state *s = g->s;
	ws_time end = c->duration ? c->start + c->duration : WS_TIME_NEVER;
	ws_time last = c->start;
	while (g->n_heap) {
		uint32_t h = g->heap[0];
		ws_time t = g->next[h];
		if (t >= end || (c->flows && s->n_bg >= c->flows))
			break;
		struct cdf_rec r = {
			.start = t, .src = g->fab->hosts[h],
			.dst = g->fab->hosts[pick_dst(g, h)],
			.bytes = cdf_size_at(s, ws_rng_uniform(&g->rng[h]) * 100),
			.dport = CDF_BG_DPORT,
		};
		if (r.bytes > UINT64_MAX - s->bg_bytes)
			return ws_err_at(err, WS_EINVAL, s->path, 0, "the background flows "
					 "carry more than 2^64 bytes (lower duration or flows)");
		int rc = push_rec(s, &r, err);
		if (rc)
			return rc;
		s->n_bg++;
		s->bg_bytes += r.bytes;
		last = t;
		g->next[h] = t + exp_gap(&g->rng[h], g->mean_gap_ps[h]);
		heap_down(g, 0);
	}
	/* the window the load is measured over: the duration, or (a count)
	 * up to the last arrival */
	s->window = c->duration && (!c->flows || s->n_bg < c->flows) ? c->duration
								     : last - c->start;
	return WS_OK;
}

/* Incast event at `t`: a random receiver and `fanin` distinct other
 * hosts, chosen by a partial shuffle of `perm` that is undone after. */
static int incast_event(struct cdf_gen *g, struct ws_rng *rng, ws_time t,
			uint32_t *perm, uint32_t *swaps, struct ws_err *err)
{
	const struct cdf_conf *c = g->c;
	uint32_t n = g->fab->n_hosts, k = (uint32_t)c->incast_fanin;
	uint32_t r = (uint32_t)ws_rng_below(rng, n);
	/* perm is the identity here: move the receiver last, then draw */
	swaps[0] = r;
	perm[r] = n - 1;
	perm[n - 1] = r;
	int rc = WS_OK;
	for (uint32_t i = 0; i < k && !rc; i++) {
		uint32_t j = i + (uint32_t)ws_rng_below(rng, n - 1 - i);
		swaps[i + 1] = j;
		uint32_t tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
		struct cdf_rec rec = { .start = t, .src = g->fab->hosts[perm[i]],
			.dst = g->fab->hosts[r], .bytes = c->incast_size,
			.dport = CDF_INCAST_DPORT };
		if (c->incast_size > UINT64_MAX - g->s->incast_bytes)
			rc = ws_err_key(err, WS_EINVAL, "incast_size", "the incast flows "
					"carry more than 2^64 bytes (lower incast_load)");
		if (!rc)
			rc = push_rec(g->s, &rec, err);
		g->s->incast_bytes += c->incast_size;
	}
	for (uint32_t i = k; i-- > 0;) {
		uint32_t j = swaps[i + 1], tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
	}
	perm[n - 1] = n - 1;
	perm[swaps[0]] = swaps[0];
	return rc;
}

/* Incast events over [start, start + window): Poisson over the fabric, at
 * the rate that carries incast_load x the hosts' capacity. */
static int gen_incast(struct cdf_gen *g, struct ws_sim *sim, struct ws_err *err)
{
	const struct cdf_conf *c = g->c;
	struct cdf_state *s = g->s;
	uint32_t n = g->fab->n_hosts;
	if (!(c->incast_load > 0) || !s->window)
		return WS_OK;
	if (c->incast_fanin >= n)
		return ws_err_key(err, WS_EINVAL, "incast_fanin", "%" PRIu64 " senders "
				  "need more than the fabric's %u hosts", c->incast_fanin, n);
	double bytes_per_event = (double)c->incast_fanin * (double)c->incast_size;
	double mean_gap_ps = bytes_per_event * 8 / (c->incast_load * s->capacity_bps) *
			     (double)WS_SEC;
	struct ws_rng rng;
	ws_rng_seed(&rng, ws_sim_seed(sim), WS_RNG_ID(WS_RNG_PLUGIN, 0xcdf1ca57u));
	uint32_t *perm = malloc((size_t)n * sizeof *perm);
	uint32_t *swaps = malloc(((size_t)c->incast_fanin + 1) * sizeof *swaps);
	int rc = perm && swaps ? WS_OK : ws_err_set(err, WS_ENOMEM, "out of memory");
	for (uint32_t i = 0; perm && i < n; i++)
		perm[i] = i;
	for (ws_time t = c->start + exp_gap(&rng, mean_gap_ps);
	     !rc && t < c->start + s->window; t += exp_gap(&rng, mean_gap_ps)) {
		rc = incast_event(g, &rng, t, perm, swaps, err);
		s->incast_events++;
	}
	free(perm);
	free(swaps);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Each host's rack (the node its port 0 leads to) and its rack mates. */
static int gen_racks(struct cdf_gen *g, struct ws_sim *sim, struct ws_err *err)
{
	uint32_t n = g->fab->n_hosts;
	for (uint32_t h = 0; h < n; h++) {
		struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
		if (ws_port_info(sim, g->fab->hosts[h], 0, &pi))
			return ws_err_set(err, WS_EINVAL, "host %u has no port",
					  g->fab->hosts[h]);
		g->rack[h] = pi.peer_node;
		g->s->capacity_bps += (double)pi.rate;
		g->mean_gap_ps[h] = g->c->load > 0 ? g->s->mean * 8 /
				    (g->c->load * (double)pi.rate) * (double)WS_SEC : 0;
	}
	/* group hosts by rack: sort (rack, host index) keys */
	uint64_t *key = malloc((size_t)n * sizeof *key);
	if (!key)
		return ws_err_set(err, WS_ENOMEM, "out of memory for %u hosts", n);
	for (uint32_t h = 0; h < n; h++)
		key[h] = (uint64_t)g->rack[h] << 32 | h;
	qsort(key, n, sizeof *key, cmp_u64);
	for (uint32_t h = 0; h < n; h++)
		g->rack_hosts[h] = (uint32_t)key[h];
	free(key);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		while (j < n && g->rack[g->rack_hosts[j]] == g->rack[g->rack_hosts[i]])
			j++;
		for (uint32_t k = i; k < j; k++) {
			g->rack_first[g->rack_hosts[k]] = i;
			g->rack_len[g->rack_hosts[k]] = j - i;
		}
		i = j;
	}
	return WS_OK;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct cdf_rec *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The background flows expected (the count, or the hosts' arrival rates
 * over the duration), refused before drawing when they cannot fit: a
 * record each here, and the kernel's flow each. */
static int cdf_estimate(const struct cdf_gen *g, struct ws_sim *sim, struct ws_err *err)
{
	const struct cdf_conf *c = g->c;
	if (!(c->load > 0))
		return WS_OK;
	double expected = 0;
	for (uint32_t h = 0; h < g->fab->n_hosts; h++)
		expected += g->mean_gap_ps[h] > 0 ? (double)c->duration / g->mean_gap_ps[h] : 0;
	if (!c->duration || (c->flows && (double)c->flows < expected))
		expected = (double)c->flows;
	if (expected > (double)CDF_MAX_FLOWS)
		expected = CDF_MAX_FLOWS;
	uint64_t flows = (uint64_t)expected;
	char what[200];
	snprintf(what, sizeof what, "about %" PRIu64 " background flows (flows, or "
		 "duration x load x the hosts' rates / the CDF's mean size)", flows);
	return ws_mem_check(sim, flows * sizeof(struct cdf_rec), flows, what, err);
}

/* Draw every flow: background arrivals host by host, then incast events. */
static int cdf_generate(struct ws_inst *inst, struct ws_err *err)
{
	struct cdf_state *s = inst->state;
	const struct ws_fabric *fab = ws_sim_fabric(inst->sim);
	uint32_t n = fab->n_hosts;
	if (n < 2)
		return ws_err_set(err, WS_EINVAL, "the fabric has %u host(s); cdf "
				  "traffic needs at least two", n);
	struct cdf_gen g = { .c = inst->conf, .fab = fab, .s = s };
	g.rng = calloc(n, sizeof *g.rng);
	g.next = calloc(n, sizeof *g.next);
	g.mean_gap_ps = calloc(n, sizeof *g.mean_gap_ps);
	uint32_t *u32 = calloc((size_t)n * 6, sizeof *u32);
	int rc = g.rng && g.next && g.mean_gap_ps && u32 ? WS_OK :
		 ws_err_set(err, WS_ENOMEM, "out of memory for %u hosts", n);
	if (!rc) {
		g.rack = u32;
		g.rack_first = u32 + n;
		g.rack_hosts = u32 + 2 * (size_t)n;
		g.rack_len = u32 + 3 * (size_t)n;
		g.turn = u32 + 4 * (size_t)n;
		g.heap = u32 + 5 * (size_t)n;
		rc = gen_racks(&g, inst->sim, err);
	}
	if (!rc)
		rc = cdf_estimate(&g, inst->sim, err);
	for (uint32_t h = 0; !rc && h < n && g.c->load > 0; h++) {
		ws_rng_seed(&g.rng[h], ws_sim_seed(inst->sim), WS_RNG_ID(WS_RNG_PLUGIN,
			    ((uint64_t)0xcdf << 32) | h));
		g.next[h] = g.c->start + exp_gap(&g.rng[h], g.mean_gap_ps[h]);
		g.heap[g.n_heap++] = h;
	}
	for (uint32_t i = g.n_heap / 2; i-- > 0;)
		heap_down(&g, i);
	if (!rc)
		rc = gen_background(&g, err);
	if (!rc && !(g.c->load > 0))
		s->window = g.c->duration;
	if (!rc)
		rc = gen_incast(&g, inst->sim, err);
	if (!rc && s->n)
		qsort(s->recs, s->n, sizeof *s->recs, cmp_rec);
	free(g.rng);
	free(g.next);
	free(g.mean_gap_ps);
	free(u32);
	return rc;
}

/* ---- the workload ------------------------------------------------------------------ */

static int cdf_init(struct ws_inst *inst, struct ws_err *err)
{
	const struct cdf_conf *c = inst->conf;
	struct cdf_state *s = inst->state;
	int rc = ws_resolve_path(inst->sim, c->file, s->path, sizeof s->path, err);
	if (!rc)
		rc = cdf_load(s, err);
	if (!rc)
		rc = cdf_generate(inst, err);
	return rc;
}

static void cdf_release(struct ws_sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	struct ws_inst *inst = obj;
	struct cdf_state *s = inst->state;
	const struct cdf_conf *c = inst->conf;
	ws_time now = ws_now(sim);
	while (s->next < s->n && s->recs[s->next].start == now) {
		const struct cdf_rec *r = &s->recs[s->next++];
		struct ws_flow_spec spec = { WS_INIT_SIZE(struct ws_flow_spec),
			.src = r->src, .dst = r->dst, .bytes = r->bytes,
			.start = r->start, .prio = (uint8_t)c->prio, .dport = r->dport,
			.tag = r->dport == CDF_INCAST_DPORT,
		};
		struct ws_err err;
		if (ws_flow_create(sim, &spec, NULL, &err)) {
			ws_fail(sim, &err);
			return;
		}
	}
	if (s->next < s->n)
		ws_schedule(sim, s->recs[s->next].start, cdf_release, inst, 0);
}

static int cdf_start(struct ws_inst *inst, struct ws_err *err)
{
	(void)err;
	struct cdf_state *s = inst->state;
	if (s->n)
		ws_schedule(inst->sim, s->recs[0].start, cdf_release, inst, 0);
	return WS_OK;
}

/* Offered load over the window, as a fraction of the hosts' capacity. */
static double cdf_achieved(const struct cdf_state *s, uint64_t bytes)
{
	if (!s->window || !(s->capacity_bps > 0))
		return 0;
	return (double)bytes * 8 / (s->capacity_bps * ((double)s->window / (double)WS_SEC));
}

static void cdf_report(struct ws_inst *inst, struct ws_json *j)
{
	const struct cdf_state *s = inst->state;
	const struct cdf_conf *c = inst->conf;
	ws_json_str(j, "cdf", s->path);
	ws_json_f64(j, "cdf_mean_bytes", s->mean);
	ws_json_u64(j, "flows", s->n);
	ws_json_u64(j, "background_flows", s->n_bg);
	ws_json_u64(j, "background_bytes", s->bg_bytes);
	ws_json_u64(j, "incast_events", s->incast_events);
	ws_json_u64(j, "incast_bytes", s->incast_bytes);
	ws_json_u64(j, "window_ps", s->window);
	ws_json_f64(j, "target_load", c->load);
	ws_json_f64(j, "achieved_load", cdf_achieved(s, s->bg_bytes));
	ws_json_f64(j, "target_incast_load", c->incast_load);
	ws_json_f64(j, "achieved_incast_load", cdf_achieved(s, s->incast_bytes));
}

static size_t cdf_summary(struct ws_inst *inst, const char *dir, char *buf, size_t size)
{
	(void)dir;
	const struct cdf_state *s = inst->state;
	const struct cdf_conf *c = inst->conf;
	const char *name = strrchr(s->path, '/');
	int n = snprintf(buf, size, "  traffic    %s: %u flows (mean %.0f B) over %.3f ms; "
			 "load %.3f (target %.3f)", name ? name + 1 : s->path, s->n_bg,
			 s->mean, (double)s->window / (double)WS_MS,
			 cdf_achieved(s, s->bg_bytes), c->load);
	if (n >= 0 && (size_t)n < size && s->incast_events)
		n += snprintf(buf + n, size - (size_t)n, "; %" PRIu64 " incasts of %" PRIu64
			      ", load %.3f (target %.3f)", s->incast_events, c->incast_fanin,
			      cdf_achieved(s, s->incast_bytes), c->incast_load);
	if (n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, "\n");
	return n < 0 ? 0 : (size_t)n;
}

static uint64_t cdf_flows_expected(const struct ws_inst *inst)
{
	const struct cdf_state *s = inst->state;
	return s->n;
}

/* The HPCC generator's output: N, then "src dst 3 100 bytes seconds". */
static int cdf_write_trace(struct ws_inst *inst, const char *path, struct ws_err *err)
{
	const struct cdf_state *s = inst->state;
	const struct cdf_conf *c = inst->conf;
	FILE *f = fopen(path, "w");
	if (!f)
		return ws_err_at(err, WS_EIO, path, 0, "cannot write: %s", strerror(errno));
	fprintf(f, "%u\n", s->n);
	for (uint32_t i = 0; i < s->n; i++) {
		const struct cdf_rec *r = &s->recs[i];
		fprintf(f, "%u %u %" PRIu64 " %u %" PRIu64 " %" PRIu64 ".%09" PRIu64 "\n",
			r->src, r->dst, c->prio, r->dport, r->bytes, r->start / WS_SEC,
			r->start % WS_SEC / WS_NS);
	}
	bool bad = ferror(f);
	if (fclose(f) || bad)
		return ws_err_at(err, WS_EIO, path, 0, "write failed");
	return WS_OK;
}

static int cdf_finish(struct ws_inst *inst, const char *dir, struct ws_err *err)
{
	const struct cdf_conf *c = inst->conf;
	if (!c->save_trace)
		return WS_OK;
	char path[4200];
	snprintf(path, sizeof path, "%s/flow.txt", dir);
	return cdf_write_trace(inst, path, err);
}

static void cdf_fini(struct ws_inst *inst)
{
	struct cdf_state *s = inst->state;
	free(s->pts);
	free(s->recs);
	s->pts = NULL;
	s->recs = NULL;
}

static const struct ws_workload_ops cdf_ops = {
	.size = sizeof(struct ws_workload_ops),
	.start = cdf_start,
	.finish = cdf_finish,
	.report = cdf_report,
	.summary = cdf_summary,
	.flows_expected = cdf_flows_expected,
	.write_trace = cdf_write_trace,
};

static const struct ws_plugin cdf_plugin = {
	WS_PLUGIN_ABI(WS_KIND_WORKLOAD, struct ws_workload_ops),
	.name = "cdf",
	.version = "1.0.0",
	.summary = "flow sizes from an HPCC-layout CDF, Poisson arrivals at a target load "
		   "(WebSearch, FB_Hadoop, ...), optional incast and rack locality",
	.params = cdf_params,
	.conf_size = sizeof(struct cdf_conf),
	.state_size = sizeof(struct cdf_state),
	.validate = cdf_validate,
	.init = cdf_init,
	.fini = cdf_fini,
	.ops = &cdf_ops,
};

WS_PLUGIN_EXPORT(cdf_plugin)
