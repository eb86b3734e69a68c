/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets share: a scratch directory, inputs written as
 * files, a simulation built as `warpsim run` builds it; and, without a
 * fuzzing engine, a main that replays a corpus (tests/test_fuzz.sh runs
 * every target over its seeds in make check).
 */
#define _GNU_SOURCE
#include "fuzz.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static void fuzz_cleanup(void)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[512];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (unlink(p)) {
			/* a directory of a target (compare's runs) */
			DIR *s = opendir(p);
			struct dirent *f;
			while (s && (f = readdir(s))) {
				char q[1024];
				snprintf(q, sizeof q, "%s/%s", p, f->d_name);
				if (f->d_name[0] != '.')
					unlink(q);
			}
			if (s)
				closedir(s);
			rmdir(p);
		}
	}
	closedir(d);
	rmdir(dir);
}

const char *fuzz_dir(void)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/warpsim-fuzz-XXXXXX");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			abort();
		}
		atexit(fuzz_cleanup);
	}
	return dir;
}

int fuzz_stdout_off(void)
{
	fflush(stdout);
	int saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	return saved;
}

void fuzz_stdout_on(int saved)
{
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
}

const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		perror(path);
		abort();
	}
	return path;
}

struct ws_sim *fuzz_sim_new(const char *ini, bool fabric_only)
{
	struct ws_cfg *cfg = NULL;
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_cfg_parse_string(&cfg, ini, "fuzz.ini", fuzz_dir(), &err))
		return NULL;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts), .fabric_only = fabric_only,
				.max_memory = 256u << 20 };
	struct ws_sim *sim = NULL;
	ws_sim_new(&sim, cfg, &opts, &err);
	ws_cfg_free(cfg);
	return sim;
}

int fuzz_sim_run(struct ws_sim *sim)
{
	char out[600];
	struct ws_err err;
	snprintf(out, sizeof out, "%s/out", fuzz_dir());
	int rc = ws_sim_set_output_dir(sim, out, &err);
	return rc ? rc : ws_sim_run(sim, 10 * WS_US, &err);
}

void fuzz_sim(const char *ini, bool fabric_only, bool run)
{
	struct ws_sim *sim = fuzz_sim_new(ini, fabric_only);
	if (sim && run)
		fuzz_sim_run(sim);
	ws_sim_free(sim);
}

/*
 * Every plugin of the build tree opened once and never unloaded: the
 * kernel dlcloses a simulation's plugins when it frees it, and libFuzzer
 * would then read the coverage counters of an unmapped library.
 */
static void keep_plugins(void)
{
	static const char *const kinds[] = { "topo", "routing", "cc", "plugins/accel",
					     "plugins/workload" };
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		char pattern[1024];
		snprintf(pattern, sizeof pattern, "%s/%s/.libs/*.so", FUZZ_BUILDDIR, kinds[k]);
		glob_t g;
		if (glob(pattern, 0, NULL, &g))
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++)
			dlopen(g.gl_pathv[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
		globfree(&g);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	keep_plugins();
	return 0;
}

#ifndef WS_FUZZ_ENGINE
static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	size_t cap = 4096, n = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		return 1;
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

/* Every regular file of a directory, in name order. */
static int replay_dir(const char *path, unsigned *count)
{
	DIR *d = opendir(path);
	if (!d)
		return -1;
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			names = realloc(names, (n + 1) * sizeof *names);
			names[n++] = strdup(e->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_names);
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", path, names[i]);
		bad |= replay_file(p);
		(*count)++;
		free(names[i]);
	}
	free(names);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int bad = 0;
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		int r = replay_dir(argv[i], &count);
		if (r < 0) {
			bad |= replay_file(argv[i]);
			count++;
		} else {
			bad |= r;
		}
	}
	printf("%s: %u inputs replayed\n", argv[0], count);
	return bad;
}
#endif
