/* SPDX-License-Identifier: MIT */
/*
 * `warpsim topo`: build the fabric only and tell its size, memory and
 * build time; trace random routes (loop-free, delivered; lookup times);
 * apply the [failures] events (or --fail's) as a converged fabric has them
 * and trace the same routes again (unreachable pairs, the cost of a
 * decision with failures against without); draw small fabrics as Graphviz.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tools.h"

static void fmt_bytes(char *buf, size_t n, double b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;
	while (b >= 1024 && u + 1 < TOOL_ARRAY_LEN(unit)) {
		b /= 1024;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

static double peak_rss_bytes(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_maxrss * 1024.0; /* Linux: KiB */
}

/*
 * Trace `n` random host pairs; prints the outcome, returns the failures.
 * Two timings: the whole trace (cold caches: every hop reads a random node
 * and port, as a fabric much larger than the caches does), and the routing
 * rule alone, replaying each batch of traced routes' decisions right after
 * tracing them (node and packet in cache, as when a packet has just arrived
 * at a switch in a simulation).
 */
#define TRACE_BATCH 1024
#define TRACE_MAX 66

struct trace_batch {
	struct ws_pkt pkt[TRACE_BATCH];
	uint32_t node[TRACE_BATCH][TRACE_MAX];
	uint32_t len[TRACE_BATCH];
};

static double replay_decisions(struct ws_sim *sim, const struct trace_batch *tb,
			       uint32_t n)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint64_t sum = 0;
	double t0 = tool_cpu_seconds();
	for (uint32_t r = 0; r < n; r++) {
		struct ws_pkt p = tb->pkt[r];
		for (uint32_t k = 0; k + 1 < tb->len[r]; k++) {
			const struct ws_node *at = ws_node_get(fab, tb->node[r][k]);
			if (at->kind != WS_NODE_SWITCH && at->n_ports == 1)
				continue;
			sum += ws_route_next(sim, at, &p);
		}
	}
	double t = tool_cpu_seconds() - t0;
	/* keep the calls: the ports chosen must be the traced ones */
	volatile uint64_t keep = sum;
	(void)keep;
	return t;
}

/* What a --check-routes pass found. */
struct route_check {
	uint64_t failed;      /* loops, wrong deliveries, routes over a down link */
	uint64_t unreachable; /* no route: failures cut the destination off */
	uint64_t decisions;
	double decide_ns;     /* the rule alone, per decision */
};

/* Trace one random pair into the batch; false if the route is not whole. */
static bool trace_pair(struct ws_sim *sim, struct ws_rng *rng, struct trace_batch *tb,
		       uint32_t *nb, struct route_check *rc, uint64_t *links,
		       uint32_t *lo, uint32_t *hi)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint32_t a = (uint32_t)ws_rng_below(rng, fab->n_hosts);
	uint32_t b = (uint32_t)ws_rng_below(rng, fab->n_hosts - 1);
	if (b >= a)
		b++;
	struct ws_pkt *p = &tb->pkt[*nb];
	ws_pkt_probe(p, fab->hosts[a], fab->hosts[b],
		     (uint16_t)(10000 + ws_rng_below(rng, 50000)), 100);
	struct ws_pkt probe = *p;
	struct ws_hop hops[TRACE_MAX];
	uint32_t k;
	struct ws_err err;
	ws_err_clear(&err);
	int r = ws_route_trace(sim, &probe, hops, TRACE_MAX, &k, &err);
	if (r == WS_EUNREACH) {
		if (rc->unreachable++ < 5)
			printf("  unreachable %s\n", err.msg);
		return false;
	}
	if (r) {
		if (rc->failed++ < 5)
			printf("  FAILED     %s\n", err.msg);
		return false;
	}
	*links += k - 1;
	rc->decisions += probe.hops + (ws_node_get(fab, p->src)->n_ports > 1);
	*lo = TOOL_MIN(*lo, k - 1);
	*hi = TOOL_MAX(*hi, k - 1);
	for (uint32_t j = 0; j < k; j++)
		tb->node[*nb][j] = hops[j].node;
	tb->len[(*nb)++] = k;
	return true;
}

/* Trace `n` random host pairs (the same pairs for the same seed) and print
 * the outcome. */
static struct route_check check_routes(struct ws_sim *sim, uint64_t n)
{
	struct ws_rng rng;
	ws_rng_seed(&rng, ws_sim_seed(sim), 0x726f75746573ull /* "routes" */);
	struct trace_batch *tb = tool_xcalloc(1, sizeof *tb);
	struct route_check rc = { 0 };
	uint64_t links = 0;
	uint32_t lo = UINT32_MAX, hi = 0, nb = 0;
	double trace_s = 0, decide_s = 0, t0 = tool_cpu_seconds();
	for (uint64_t i = 0; i < n; i++) {
		trace_pair(sim, &rng, tb, &nb, &rc, &links, &lo, &hi);
		if (nb == TRACE_BATCH || (i + 1 == n && nb)) {
			trace_s += tool_cpu_seconds() - t0;
			decide_s += replay_decisions(sim, tb, nb);
			nb = 0;
			t0 = tool_cpu_seconds();
		}
	}
	free(tb);
	uint64_t ok = n - rc.failed - rc.unreachable;
	if (rc.failed)
		printf("  routes     %" PRIu64 " random pairs: %" PRIu64 " FAILED\n", n, rc.failed);
	else if (ok)
		printf("  routes     %" PRIu64 " random pairs: %s loop-free and delivered; "
		       "%u-%u links, mean %.2f\n", n, rc.unreachable ? "the others" : "all",
		       lo, hi, (double)links / (double)ok);
	if (rc.unreachable)
		printf("  routes     %" PRIu64 " of %" PRIu64 " pairs unreachable (%.4f %%)\n",
		       rc.unreachable, n, 100.0 * (double)rc.unreachable / (double)n);
	if (ok && rc.decisions) {
		rc.decide_ns = decide_s * 1e9 / (double)rc.decisions;
		printf("  lookups    traced in %.3f CPU s: %.1f ns per route, %.1f ns per hop; "
		       "the rule alone %.1f ns per decision (%" PRIu64 " decisions)\n",
		       trace_s, trace_s * 1e9 / (double)ok,
		       trace_s * 1e9 / (double)rc.decisions, rc.decide_ns, rc.decisions);
	}
	return rc;
}

/* --fail-at TIME: WS_TIME_NEVER when not given; false when malformed. */
static bool fail_until(const struct run_args *a, ws_time *until)
{
	struct fail_at {
		uint64_t t;
	};
	static const struct ws_param p =
		WS_PARAM_TIME("fail-at", struct fail_at, t, "0s", "0s", NULL, "");
	*until = WS_TIME_NEVER;
	if (!a->fail_at)
		return true;
	char why[256];
	uint64_t v;
	if (ws_param_parse(&p, a->fail_at, &v, why, sizeof why) == WS_OK) {
		*until = v;
		return true;
	}
	fprintf(stderr, "warpsim topo: --fail-at '%s': %s\n", a->fail_at, why);
	return false;
}

/*
 * The [failures] events up to `until`, applied at once as a converged
 * fabric would have them; with --check-routes, the same pairs are traced
 * before and after, so the cost of a decision is compared side by side.
 */
static int apply_failures(struct ws_sim *sim, ws_time until, uint64_t n_check,
			  double ns_before, struct ws_err *err)
{
	double t0 = tool_cpu_seconds();
	int r = ws_failures_apply(sim, until, err);
	if (r)
		return r;
	double t = tool_cpu_seconds() - t0;
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	uint64_t down = 0;
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *nd = ws_node_get(fab, i);
		for (uint32_t p = 0; p < nd->n_ports; p++) {
			struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
			if (ws_port_info(sim, i, p, &pi) == WS_OK &&
			    (pi.peer_node > i || (pi.peer_node == i && pi.peer_local > p)) &&
			    !ws_port_up(sim, i, p))
				down++;
		}
	}
	printf("  failures   %" PRIu64 " of %zu events applied in %.3f s (converged): %"
	       PRIu64 " of %u links down\n", st.failure_events, ws_failures_scheduled(sim),
	       t, down, fab->n_links);
	if (!n_check)
		return WS_OK;
	struct route_check rc = check_routes(sim, n_check);
	if (ns_before > 0 && rc.decide_ns > 0)
		printf("  lookups    with the failures: %.2fx the cost of a decision without\n",
		       rc.decide_ns / ns_before);
	return rc.failed ? WS_ESTATE : WS_OK;
}

static void dot_addr(FILE *f, const struct ws_node *n)
{
	for (uint32_t d = 0; d < n->addr_len; d++)
		fprintf(f, "%s%u", d ? "." : "", n->addr[d]);
}

/* Graphviz: hosts as boxes, switches as ellipses ranked by level. */
static int write_dot(struct ws_sim *sim, const char *path)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	struct ws_err err;
	struct ws_outfile *o = tool_outfile_open(path, &err);
	if (!o) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	FILE *f = ws_outfile_stream(o);
	fprintf(f, "graph fabric {\n\trankdir=BT;\n\tnode [fontsize=9];\n");
	uint32_t max_level = 0;
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		max_level = TOOL_MAX(max_level, n->level);
		fprintf(f, "\tn%u [shape=%s, label=\"%s%u\\n", i,
			n->kind == WS_NODE_HOST ? "box" : "ellipse",
			n->kind == WS_NODE_HOST ? "h" : "s", i);
		dot_addr(f, n);
		fprintf(f, "\"];\n");
	}
	for (uint32_t l = 0; l <= max_level; l++) {
		fprintf(f, "\t{ rank=same;");
		for (uint32_t i = 0; i < fab->n_nodes; i++)
			if (ws_node_get(fab, i)->level == l)
				fprintf(f, " n%u;", i);
		fprintf(f, " }\n");
	}
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		for (uint32_t p = 0; p < n->n_ports; p++) {
			struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
			ws_port_info(sim, i, p, &pi);
			if (pi.peer_node < i || (pi.peer_node == i && pi.peer_local < p))
				continue;
			fprintf(f, "\tn%u -- n%u [taillabel=\"%u\", headlabel=\"%u\", "
				"tooltip=\"%.0f Gbps\"];\n", i, pi.peer_node, p,
				pi.peer_local, (double)pi.rate / 1e9);
		}
	}
	fprintf(f, "}\n");
	if (ws_outfile_commit(o, &err)) {
		tool_print_error(&err);
		return EXIT_RUN;
	}
	return 0;
}

#define DOT_MAX_NODES 5000

/* --check-routes N: 0 when not given, -1 when malformed. */
static int64_t routes_to_check(const struct run_args *a)
{
	if (!a->check_routes)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(a->check_routes, &end, 10);
	if (errno || *end || end == a->check_routes || a->check_routes[0] == '-' ||
	    v > UINT64_C(10000000000)) {
		fprintf(stderr, "warpsim topo: --check-routes '%s': expected a "
			"number of host pairs, 0..10000000000\n", a->check_routes);
		return -1;
	}
	return (int64_t)v;
}

/*
 * The links of each tier as built (tier: the larger level of a link's two
 * ends; 1 = host to leaf), with their rates and delays: what the
 * topology's link_rate_tierN / link_delay_tierN made of them.  The switch
 * buffers and ECN thresholds per level are in summary.json (fabric.tiers).
 */
#define TOPO_TIERS 16

struct tier_links {
	uint64_t links, rate_min, rate_max;
	ws_time delay_min, delay_max;
};

static void fmt_range(char *buf, size_t n, uint32_t type, uint64_t lo, uint64_t hi)
{
	const struct ws_param p = { .key = "v", .type = type };
	char a[32], b[32];
	ws_param_format(&p, &lo, a, sizeof a);
	ws_param_format(&p, &hi, b, sizeof b);
	if (lo == hi)
		snprintf(buf, n, "%s", a);
	else
		snprintf(buf, n, "%s to %s", a, b);
}

static void print_tiers(const struct ws_sim *sim)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	struct tier_links t[TOPO_TIERS];
	uint64_t switches[TOPO_TIERS] = { 0 };
	memset(t, 0, sizeof t);
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		if (n->kind == WS_NODE_SWITCH)
			switches[n->level < TOPO_TIERS ? n->level : TOPO_TIERS - 1]++;
		for (uint32_t l = 0; l < n->n_ports; l++) {
			struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
			if (ws_port_info(sim, i, l, &pi) || pi.peer_node < i)
				continue;
			unsigned lv = n->level, pl = ws_node_get(fab, pi.peer_node)->level;
			unsigned tier = lv > pl ? lv : pl;
			struct tier_links *x = &t[tier < TOPO_TIERS ? tier : TOPO_TIERS - 1];
			if (!x->links++) {
				x->rate_min = x->rate_max = pi.rate;
				x->delay_min = x->delay_max = pi.delay;
			}
			if (pi.rate < x->rate_min)
				x->rate_min = pi.rate;
			if (pi.rate > x->rate_max)
				x->rate_max = pi.rate;
			if (pi.delay < x->delay_min)
				x->delay_min = pi.delay;
			if (pi.delay > x->delay_max)
				x->delay_max = pi.delay;
		}
	}
	for (unsigned k = 0; k < TOPO_TIERS; k++) {
		if (!t[k].links)
			continue;
		char r[80], d[80];
		fmt_range(r, sizeof r, WS_PT_RATE, t[k].rate_min, t[k].rate_max);
		fmt_range(d, sizeof d, WS_PT_TIME, t[k].delay_min, t[k].delay_max);
		printf("  tier %-5u %" PRIu64 " links at %s, delay %s; %" PRIu64
		       " level-%u switches\n", k, t[k].links, r, d, switches[k], k);
	}
}

/* Size, memory and build time of the fabric just built. */
static void print_fabric(struct ws_sim *sim, const char *path, double build_cpu_s)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	uint64_t host_ports = 0;
	for (uint32_t h = 0; h < fab->n_hosts; h++)
		host_ports += ws_node_get(fab, fab->hosts[h])->n_ports;
	uint64_t route_bytes = ws_routing_state_bytes(sim);
	double fab_bytes = (double)ws_fabric_bytes(sim);
	char b1[32], b2[32], b3[32];
	fmt_bytes(b1, sizeof b1, fab_bytes);
	fmt_bytes(b2, sizeof b2, (double)route_bytes);
	fmt_bytes(b3, sizeof b3, peak_rss_bytes());
	const char *shape = fab->shape == WS_SHAPE_UPDOWN ? "up/down tree"
			    : fab->shape == WS_SHAPE_DRAGONFLY ? "dragonfly" : "graph";
	printf("warpsim %s: %s\n", WS_VERSION, path);
	printf("  topology   %s (%s), routing %s\n",
	       ws_sim_plugin_name(sim, WS_KIND_TOPO), shape,
	       ws_sim_plugin_name(sim, WS_KIND_ROUTING));
	printf("  nodes      %u: %u endpoints (hosts), %u switches\n", fab->n_nodes,
	       fab->n_hosts, fab->n_switches);
	printf("  links      %u; ports %u: %" PRIu64 " at hosts, %" PRIu64 " at switches\n",
	       fab->n_links, fab->n_ports, host_ports, (uint64_t)fab->n_ports - host_ports);
	printf("  memory     fabric %s = %.0f B per endpoint; routing state %s "
	       "(%.0f B per endpoint); peak RSS %s\n", b1, fab_bytes / fab->n_hosts,
	       b2, (double)route_bytes / fab->n_hosts, b3);
	printf("  build      %.3f CPU s to routing-ready (%.3f s wall)\n", build_cpu_s,
	       st.wall_build_s);
	print_tiers(sim);
}

int cmd_topo(int argc, char **argv, const struct cli_cmd *cmd)
{
	struct run_args a = { 0 };
	int rc = run_args_parse(argc, argv, cmd, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	int64_t n_check = routes_to_check(&a);
	ws_time until;
	if (n_check < 0 || !fail_until(&a, &until))
		return end_cmd(NULL, NULL, &a, NULL, EXIT_INPUT);
	const char *path = argv[optind];
	struct ws_err err;
	ws_err_clear(&err);
	struct ws_cfg *cfg = NULL;
	struct ws_sim *sim = NULL;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .plugin_path = a.plugin_path,
				.max_memory = a.max_memory,
				.fabric_only = true };
	double cpu0 = tool_cpu_seconds();
	if (load_cfg(path, &a, &cfg, &err) || ws_sim_new(&sim, cfg, &opts, &err))
		return end_cmd(sim, cfg, &a, &err, EXIT_INPUT);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	if (a.dot && fab->n_nodes > DOT_MAX_NODES) {
		ws_err_set(&err, WS_EINVAL, "--dot is for small fabrics: this one has "
			   "%u nodes (at most %d)", fab->n_nodes, DOT_MAX_NODES);
		return end_cmd(sim, cfg, &a, &err, EXIT_INPUT);
	}
	print_fabric(sim, path, tool_cpu_seconds() - cpu0);
	int status = 0;
	struct route_check before = { 0 };
	if (n_check) {
		before = check_routes(sim, (uint64_t)n_check);
		if (before.failed)
			status = EXIT_RUN;
	}
	if (ws_failures_scheduled(sim)) {
		int f = apply_failures(sim, until, (uint64_t)n_check, before.decide_ns, &err);
		if (f == WS_ESTATE)
			status = EXIT_RUN;
		else if (f)
			return end_cmd(sim, cfg, &a, &err, EXIT_INPUT);
	}
	if (a.dot) {
		int d = write_dot(sim, a.dot);
		if (d)
			status = d;
		else
			printf("  dot        %s\n", a.dot);
	}
	return end_cmd(sim, cfg, &a, NULL, status);
}

