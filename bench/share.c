/* SPDX-License-Identifier: MIT */
/*
 * share: the memory of a batch of experiments on one fabric, with and
 * without a shared build (ws_fabric_cache), for bench/share.sh.
 *
 *   bench/share INI EXPERIMENTS THREADS private|shared [SECTION.KEY=VALUE ...]
 *
 * Runs EXPERIMENTS experiments of INI (experiment i with [cc] name the i-th
 * of dcqcn, hpcc, timely, dctcp, in turn) on THREADS threads, each thread
 * taking the next experiment when it finishes one, so at most THREADS are
 * in memory at once; with `shared` they share one fabric cache.  Prints one
 * line: experiments, threads, mode, builds, the process's peak RSS (MiB),
 * the peak of what it really holds (sampled every 10 ms: private and file
 * pages plus the shared port templates in full, which RSS shows only where
 * mapped), the templates' size (MiB), the fabric's bytes (ws_fabric_bytes, MiB), events in all, wall seconds.
 * Only the public API is used.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include <warpsim/warpsim.h>

static const char *const ccs[] = { "dcqcn", "hpcc", "timely", "dctcp" };

struct batch {
	const char *ini;
	char **sets;
	int n_sets;
	int experiments;
	struct ws_fabric_cache *cache;
	atomic_int next;
	atomic_ullong events;
	atomic_ullong fabric_bytes;
	atomic_int failed;
};

static int one(struct batch *b, int i)
{
	struct ws_cfg *cfg;
	struct ws_err err;
	if (ws_cfg_load(&cfg, b->ini, &err))
		goto bad;
	char cc[64];
	snprintf(cc, sizeof cc, "cc.name=%s", ccs[i % 4]);
	if (ws_cfg_set(cfg, cc, &err))
		goto bad_cfg;
	for (int k = 0; k < b->n_sets; k++)
		if (ws_cfg_set(cfg, b->sets[k], &err))
			goto bad_cfg;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .fabric_cache = b->cache };
	struct ws_sim *sim;
	if (ws_sim_new(&sim, cfg, &opts, &err))
		goto bad_cfg;
	ws_cfg_free(cfg);
	if (ws_sim_run(sim, WS_TIME_NEVER, &err)) {
		ws_sim_free(sim);
		goto bad;
	}
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	atomic_fetch_add(&b->events, st.events);
	atomic_store(&b->fabric_bytes, ws_fabric_bytes(sim));
	ws_sim_free(sim);
	return 0;
bad_cfg:
	ws_cfg_free(cfg);
bad:;
	char msg[2048];
	ws_err_format(&err, msg, sizeof msg);
	fprintf(stderr, "share: experiment %d: %s\n", i, msg);
	return 1;
}

/* Bytes of the shared port templates (memfds named warpsim-ports): memory
 * the process holds that RSS shows only where it is mapped. */
static double memfd_mib(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 0;
	double bytes = 0;
	for (struct dirent *e; (e = readdir(d));) {
		char path[300], link[300];
		snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(path, link, sizeof link - 1);
		struct stat st;
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strstr(link, "memfd:warpsim-ports") && stat(path, &st) == 0)
			bytes += (double)st.st_size;
	}
	closedir(d);
	return bytes / 1048576.0;
}

/* RssAnon + RssFile of this process, MiB. */
static double private_mib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	char line[256];
	double kib = 0, v;
	while (fgets(line, sizeof line, f))
		if ((sscanf(line, "RssAnon: %lf", &v) == 1) ||
		    (sscanf(line, "RssFile: %lf", &v) == 1))
			kib += v;
	fclose(f);
	return kib / 1024.0;
}

/* Samples every 10 ms the memory the process really holds: its private
 * and file pages plus the templates in full (mapped or not). */
static atomic_int sampling;
static double held_peak;

static void *sampler(void *arg)
{
	(void)arg;
	while (atomic_load(&sampling)) {
		double m = private_mib() + memfd_mib();
		if (m > held_peak)
			held_peak = m;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void *worker(void *arg)
{
	struct batch *b = arg;
	for (int i; (i = atomic_fetch_add(&b->next, 1)) < b->experiments;)
		if (one(b, i))
			atomic_store(&b->failed, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 5 || (strcmp(argv[4], "private") && strcmp(argv[4], "shared"))) {
		fprintf(stderr, "usage: %s INI EXPERIMENTS THREADS private|shared "
			"[SECTION.KEY=VALUE ...]\n", argv[0]);
		return 2;
	}
	struct batch b = { .ini = argv[1], .experiments = atoi(argv[2]),
			   .sets = argv + 5, .n_sets = argc - 5 };
	int threads = atoi(argv[3]);
	if (b.experiments < 1 || threads < 1 || threads > 64) {
		fprintf(stderr, "share: EXPERIMENTS >= 1 and 1 <= THREADS <= 64\n");
		return 2;
	}
	struct ws_err err;
	if (!strcmp(argv[4], "shared") && ws_fabric_cache_new(&b.cache, &err)) {
		fprintf(stderr, "share: %s\n", err.msg);
		return 1;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_t t[64], st;
	atomic_store(&sampling, 1);
	pthread_create(&st, NULL, sampler, NULL);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, &b);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	atomic_store(&sampling, 0);
	pthread_join(st, NULL);
	size_t builds = b.cache ? ws_fabric_cache_builds(b.cache) : (size_t)b.experiments;
	double shm = memfd_mib();
	ws_fabric_cache_free(b.cache);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%d %d %s %zu %.1f %.1f %.1f %.1f %llu %.2f\n", b.experiments, threads,
	       argv[4], builds, ru.ru_maxrss / 1024.0, held_peak, shm,
	       (double)atomic_load(&b.fabric_bytes) / 1048576.0,
	       (unsigned long long)atomic_load(&b.events),
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return atomic_load(&b.failed);
}
