/* SPDX-License-Identifier: MIT */
/*
 * memo-share-run: one run through the library, importing and exporting the
 * accelerator's knowledge (ws_sim_accel_import / ws_sim_accel_export),
 * as a sweep's experiment does.  For bench/memo-share.sh; `warpsim sweep` is
 * the program that does this for users.
 *
 *     memo-share-run INI OUTDIR [-s SECTION.KEY=VALUE]... [-i BLOB]... [-e BLOB]
 *
 * -s sets a key (as warpsim run --set), -i imports a blob (in order), -e
 * writes this run's export (an empty file when it learned nothing).
 * Prints "events N wall_run_s S imported_bytes I exported_bytes E".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <warpsim/warpsim.h>

static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	for (size_t got; b && (got = fread(b + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap) {
			char *c = realloc(b, cap *= 2);
			if (!c) {
				free(b);
				b = NULL;
			}
			b = c;
		}
	}
	fclose(f);
	*len = n;
	return b;
}

static int fail(const char *what, const struct ws_err *err)
{
	char msg[2048];
	ws_err_format(err, msg, sizeof msg);
	fprintf(stderr, "memo-share-run: %s: %s\n", what, msg);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: memo-share-run INI OUTDIR [-s KEY=VALUE]... [-i BLOB]... "
			"[-e BLOB]\n");
		return 2;
	}
	struct ws_err err;
	struct ws_cfg *cfg = NULL;
	if (ws_cfg_load(&cfg, argv[1], &err))
		return fail("config", &err);
	const char *export_to = NULL;
	for (int i = 3; i + 1 < argc; i += 2)
		if (!strcmp(argv[i], "-s") && ws_cfg_set(cfg, argv[i + 1], &err))
			return fail(argv[i + 1], &err);
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
	struct ws_sim *sim = NULL;
	if (ws_sim_new(&sim, cfg, &opts, &err))
		return fail("ws_sim_new", &err);
	size_t imported = 0;
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-e"))
			export_to = argv[i + 1];
		if (strcmp(argv[i], "-i"))
			continue;
		size_t len = 0;
		void *blob = slurp(argv[i + 1], &len);
		if (!blob) {
			fprintf(stderr, "memo-share-run: cannot read %s\n", argv[i + 1]);
			return 1;
		}
		if (ws_sim_accel_import(sim, blob, len, &err))
			return fail(argv[i + 1], &err);
		imported += len;
		free(blob);
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ws_sim_run(sim, WS_TIME_NEVER, &err))
		return fail("run", &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ws_sim_write_outputs(sim, argv[2], &err))
		return fail("outputs", &err);
	void *out = NULL;
	size_t olen = 0;
	if (export_to) {
		if (ws_sim_accel_export(sim, &out, &olen, &err))
			return fail("export", &err);
		FILE *f = fopen(export_to, "wb");
		if (!f || (olen && fwrite(out, 1, olen, f) != olen) || fclose(f)) {
			fprintf(stderr, "memo-share-run: cannot write %s\n", export_to);
			return 1;
		}
		free(out);
	}
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	printf("events %llu wall_run_s %.3f imported_bytes %zu exported_bytes %zu\n",
	       (unsigned long long)st.events,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       imported, olen);
	ws_sim_free(sim);
	ws_cfg_free(cfg);
	return 0;
}
