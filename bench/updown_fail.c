/* SPDX-License-Identifier: MIT */
/*
 * updown_fail: what failures cost routing/updown on a large fabric.
 * Builds the 65,536-GPU rail fabric of examples/allreduce-65536.ini (or
 * the topology given as extra `section.key=value` settings), times
 * ws_route_next() at random switches for random destinations, takes a
 * share of the links down with ws_link_set() (the rule is told at once),
 * times that and the summary's rebuild (the first decision after), times
 * the same decisions again, and traces random host pairs to count the
 * unreachable ones.  Probe packets (ECMP, no state): the figure is the
 * rule's own cost plus the public call.
 *
 * usage: bench/updown_fail [FAIL_PERCENT [DECISIONS [SEED [key=value...]]]]
 *   defaults 1 %, 2,000,000 decisions, seed 1.  Prints one line per
 *   figure; the ratio of the two decision costs is measured in one run.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <warpsim/warpsim.h>

static const char *const rail_65536 =
	"[sim]\nseed = 1\n"
	"[topology]\nname = rail\ntiers = 3\ngpus_per_server = 8\n"
	"servers_per_unit = 64\nunits = 128\nunits_per_pod = 8\nspine_links = 8\n"
	"leaf_radix = 128\nspine_radix = 128\ncore_radix = 128\n"
	"[cc]\nname = none\n[workload]\nname = flows\nfile = %s\n";

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 17;
}

struct pair {
	uint32_t at, src, dst;
};

/* ns per decision over the pairs, one pass. */
static double decide(struct ws_sim *sim, const struct pair *pr, size_t n, uint64_t *sink)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	struct ws_pkt p;
	ws_pkt_probe(&p, pr[0].src, pr[0].dst, 1000, 100);
	double t0 = now_s();
	for (size_t i = 0; i < n; i++) {
		p.src = pr[i].src;
		p.dst = pr[i].dst;
		p.sport = (uint16_t)(1000 + i);
		*sink += ws_route_next(sim, ws_node_get(fab, pr[i].at), &p);
	}
	return (now_s() - t0) * 1e9 / (double)n;
}

static double median(double *v, int n)
{
	for (int i = 1; i < n; i++) /* insertion sort */
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int set_links(struct ws_sim *sim, const uint64_t *link, uint32_t n, bool up)
{
	struct ws_err err;
	for (uint32_t i = 0; i < n; i++)
		if (ws_link_set(sim, (uint32_t)(link[i] >> 16), (uint32_t)(link[i] & 0xffff),
				up, &err)) {
			fprintf(stderr, "updown_fail: %s\n", err.msg);
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	const double pct = argc > 1 ? atof(argv[1]) : 1.0;
	const size_t n = argc > 2 ? (size_t)atol(argv[2]) : 2000000;
	uint64_t seed = argc > 3 ? (uint64_t)atoll(argv[3]) : 1;
	char empty[] = "/tmp/updown_fail.XXXXXX";
	int fd = mkstemp(empty);
	FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!fp || fputs("0\n", fp) < 0 || fclose(fp))
		return perror("updown_fail: scratch file"), 1;
	char ini[2048];
	snprintf(ini, sizeof ini, rail_65536, empty);
	struct ws_cfg *cfg;
	struct ws_err err;
	struct ws_sim *sim = NULL;
	double t0 = now_s();
	int rc = ws_cfg_parse_string(&cfg, ini, "<updown_fail>", "/tmp", &err);
	for (int i = 4; !rc && i < argc; i++)
		rc = ws_cfg_set(cfg, argv[i], &err);
	if (!rc) {
		rc = ws_sim_new(&sim, cfg, NULL, &err);
		ws_cfg_free(cfg);
	}
	remove(empty);
	if (rc) {
		char msg[2048];
		ws_err_format(&err, msg, sizeof msg);
		fprintf(stderr, "updown_fail: %s\n", msg);
		return 1;
	}
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	printf("fabric: %u hosts, %u switches, %u links, built in %.2f s\n",
	       fab->n_hosts, fab->n_switches, fab->n_links, now_s() - t0);

	struct pair *pr = malloc(n * sizeof *pr);
	const uint32_t first_sw = fab->n_hosts; /* hosts first, then switches */
	for (size_t i = 0; i < n; i++) {
		pr[i].at = first_sw + (uint32_t)(lcg(&seed) % fab->n_switches);
		pr[i].src = fab->hosts[lcg(&seed) % fab->n_hosts];
		do
			pr[i].dst = fab->hosts[lcg(&seed) % fab->n_hosts];
		while (pr[i].dst == pr[i].src);
	}
	uint64_t sink = 0;
	/* every link once, by its lower end's up port */
	uint32_t n_links = 0;
	uint64_t *link = malloc(fab->n_links * sizeof *link);
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *x = ws_node_get(fab, i);
		for (uint32_t p = x->n_down; p < x->n_ports; p++)
			link[n_links++] = (uint64_t)i << 16 | p;
	}
	for (uint32_t i = n_links; i > 1; i--) { /* shuffle, keep the first share */
		uint32_t j = (uint32_t)(lcg(&seed) % i);
		uint64_t t = link[i - 1];
		link[i - 1] = link[j];
		link[j] = t;
	}
	const uint32_t n_fail = (uint32_t)((double)n_links * pct / 100.0 + 0.5);
	/* rounds: healthy decisions, the failures applied and folded in,
	 * the same decisions, the links back up */
	enum { ROUNDS = 5 };
	double ok[ROUNDS], bad[ROUNDS], ratio[ROUNDS], apply[ROUNDS], rebuild[ROUNDS];
	struct ws_pkt p;
	for (int r = 0; r < ROUNDS; r++) {
		ok[r] = decide(sim, pr, n, &sink);
		t0 = now_s();
		if (set_links(sim, link, n_fail, false))
			return 1;
		apply[r] = now_s() - t0;
		ws_pkt_probe(&p, pr[0].src, pr[0].dst, 1000, 100);
		t0 = now_s();
		sink += ws_route_next(sim, ws_node_get(fab, pr[0].at), &p); /* the rebuild */
		rebuild[r] = now_s() - t0;
		bad[r] = decide(sim, pr, n, &sink);
		ratio[r] = bad[r] / ok[r];
		if (r + 1 < ROUNDS && set_links(sim, link, n_fail, true))
			return 1;
	}
	double total[ROUNDS];
	for (int r = 0; r < ROUNDS; r++)
		total[r] = apply[r] + rebuild[r];
	const double first = total[0]; /* with the rule's one-time setup */
	const double t_apply = median(apply, ROUNDS), t_rebuild = median(rebuild, ROUNDS);
	const double t_total = median(total, ROUNDS);
	const double ns_ok = median(ok, ROUNDS), ns_fail = median(bad, ROUNDS);
	const double x = median(ratio, ROUNDS);

	unsigned unreachable = 0;
	const unsigned sampled = 100000;
	struct ws_hop hops[32];
	for (unsigned i = 0; i < sampled; i++) {
		uint32_t s = fab->hosts[lcg(&seed) % fab->n_hosts], d, hn = 0;
		do
			d = fab->hosts[lcg(&seed) % fab->n_hosts];
		while (d == s);
		ws_pkt_probe(&p, s, d, (uint16_t)(2000 + i), 100);
		bool own = ws_node_get(fab, s)->n_ports > 1 || ws_port_up(sim, s, 0);
		unreachable += !own || ws_route_trace(sim, &p, hops, 32, &hn, &err) != WS_OK;
	}
	printf("links failed: %u of %u (%.2f %%); medians of %d rounds\n", n_fail, n_links,
	       pct, ROUNDS);
	printf("apply (ws_link_set x %u): %.1f ms\n", n_fail, t_apply * 1e3);
	printf("rebuild (first decision after): %.1f ms\n", t_rebuild * 1e3);
	printf("apply + rebuild: %.1f ms (the first time, with the rule's setup: %.1f ms)\n",
	       t_total * 1e3, first * 1e3);
	printf("decision, no failure: %.1f ns\n", ns_ok);
	printf("decision, with failures: %.1f ns\n", ns_fail);
	printf("ratio of each round's pair: median x%.2f (sorted:", x);
	for (int r = 0; r < ROUNDS; r++)
		printf(" %.2f", ratio[r]);
	printf(")\n");
	printf("routing state: %.1f MB\n", (double)ws_routing_state_bytes(sim) / 1e6);
	printf("unreachable pairs: %u of %u sampled (%.3f %%)\n", unreachable, sampled,
	       100.0 * unreachable / sampled);
	printf("(checksum %llu)\n", (unsigned long long)sink);
	free(link);
	free(pr);
	ws_sim_free(sim);
	return 0;
}
