/* SPDX-License-Identifier: MIT */
/*
 * The documentation keeps up with the code: examples/reference.ini holds
 * exactly what `warpsim describe --ini` prints for every kernel section and
 * every plugin the quickstart uses, and simulates what the quickstart does;
 * docs/config.md has a section for every plugin the build ships, naming each
 * of its keys, and names every key of the kernel sections; every
 * example configuration loads; the README gives the two commands CI runs.
 */
#define _GNU_SOURCE
#include "th.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"

#define SRC TH_SRCDIR

static char *describe(const char *name, enum ws_kind kind)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ws_err err;
	assert_int_equal(tool_describe(f, name, kind, true, NULL, &err), WS_OK);
	fclose(f);
	return buf;
}

static const struct {
	const char *name;
	enum ws_kind kind;
} described[] = {
	{ "sim", 0 }, { "nic", 0 }, { "switch", 0 }, { "output", 0 }, { "failures", 0 },
	{ "fat-tree", WS_KIND_TOPO }, { "updown", WS_KIND_ROUTING },
	{ "dcqcn", WS_KIND_CC }, { "none", WS_KIND_ACCEL }, { "flows", WS_KIND_WORKLOAD },
};

static void test_reference_ini_up_to_date(void **state)
{
	(void)state;
	char *ref = th_read(SRC "/examples/reference.ini", NULL);
	assert_non_null(ref);
	for (size_t i = 0; i < WS_ARRAY_LEN(described); i++) {
		char *text = describe(described[i].name, described[i].kind);
		/* the workload's required file is filled in */
		char *req = strstr(text, "; file = (required: no default)\n");
		if (req)
			*req = '\0';
		if (!strstr(ref, text))
			fail_msg("examples/reference.ini lacks the current text of '%s': "
				 "run scripts/gen-reference-ini.sh", described[i].name);
		free(text);
	}
	free(ref);
}

static char *run_to_fct(const char *ini, const char *dir)
{
	struct ws_cfg *cfg;
	struct ws_err err;
	if (ws_cfg_load(&cfg, ini, &err))
		fail_msg("%s: %s", ini, err.msg);
	struct ws_sim *sim;
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
	if (ws_sim_new(&sim, cfg, &opts, &err))
		fail_msg("%s: %s", ini, err.msg);
	th_run(sim);
	char path[512], file[600];
	snprintf(path, sizeof path, "%s/%s", th_tmpdir(), dir);
	assert_int_equal(ws_sim_write_outputs(sim, path, &err), WS_OK);
	snprintf(file, sizeof file, "%s/fct.csv", path);
	ws_sim_free(sim);
	ws_cfg_free(cfg);
	char *s = th_read(file, NULL);
	assert_non_null(s);
	return s;
}

static void test_reference_equals_quickstart(void **state)
{
	(void)state;
	char *a = run_to_fct(SRC "/examples/reference.ini", "ref");
	char *b = run_to_fct(SRC "/examples/quickstart.ini", "quick");
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void test_examples_load(void **state)
{
	(void)state;
	DIR *d = opendir(SRC "/examples");
	assert_non_null(d);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".ini") != 0)
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/examples/%s", SRC, de->d_name);
		/* sweep specs: `warpsim sweep --dry-run` checks them (test_sweep.sh) */
		char *text = th_read(path, NULL);
		bool sweep = strstr(text, "\n[sweep]") != NULL;
		free(text);
		if (sweep)
			continue;
		struct ws_cfg *cfg;
		struct ws_sim *sim;
		struct ws_err err;
		struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
		if (ws_cfg_load(&cfg, path, &err) || ws_sim_new(&sim, cfg, &opts, &err))
			fail_msg("%s: %s", path, err.msg);
		ws_sim_free(sim);
		ws_cfg_free(cfg);
		n++;
	}
	closedir(d);
	assert_true(n >= 2);
}

/* Every "key = value" (or "; key = (required") line of a describe --ini
 * text must appear backticked in `doc` (NUL-terminated, searched whole). */
static void check_keys(const char *doc, const char *name, enum ws_kind kind)
{
	char *text = describe(name, kind);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '[' || strncmp(line, "name = ", 7) == 0)
			continue;
		const char *k = line;
		if (line[0] == ';') {
			if (!strstr(line, "(required"))
				continue;
			k = line + 2;
		}
		char key[96];
		if (sscanf(k, "%95[A-Za-z0-9_.-] =", key) != 1)
			continue;
		char quoted[100];
		snprintf(quoted, sizeof quoted, "`%s`", key);
		if (!strstr(doc, quoted))
			fail_msg("docs/config.md does not document %s (%s)", quoted, name);
	}
	free(text);
}

static void test_config_doc_names_every_key(void **state)
{
	(void)state;
	char *doc = th_read(SRC "/docs/config.md", NULL);
	if (!doc)
		fail_msg("docs/config.md is missing");
	/* the kernel sections */
	for (size_t i = 0; i < WS_ARRAY_LEN(described); i++)
		if (described[i].kind == 0)
			check_keys(doc, described[i].name, 0);
	/* every plugin this build ships, each key within its own section */
	char *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len);
	struct ws_err err;
	assert_int_equal(tool_list_plugins(f, NULL, &err), WS_OK);
	fclose(f);
	char kind[32] = "";
	unsigned seen = 0;
	for (char *save = NULL, *line = strtok_r(list, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		if (line[0] != ' ') {
			if (sscanf(line, "%31[a-z]:", kind) != 1)
				kind[0] = '\0';
			continue;
		}
		if (!kind[0] || sscanf(line, " %63s", name) != 1 || name[0] == '[')
			continue;
		enum ws_kind k;
		for (k = WS_KIND_TOPO; k <= WS_KIND_WORKLOAD && strcmp(ws_kind_name(k), kind); k++)
			;
		assert_true(k <= WS_KIND_WORKLOAD);
		char head[128];
		snprintf(head, sizeof head, "### [%s] name = %s", kind, name);
		char *sec = strstr(doc, head);
		if (!sec)
			fail_msg("docs/config.md has no section '%s'", head);
		char *next = strstr(sec + 1, "\n#");
		char save_c = next ? next[1] : 0;
		if (next)
			next[1] = '\0';
		check_keys(sec, name, k);
		if (next)
			next[1] = save_c;
		seen++;
	}
	assert_true(seen >= 6);
	free(list);
	free(doc);
}

static void test_readme_commands(void **state)
{
	(void)state;
	char *readme = th_read(SRC "/README.md", NULL);
	assert_non_null(readme);
	assert_non_null(strstr(readme, "./bootstrap && ./warpsim run examples/quickstart.ini"));
	assert_non_null(strstr(readme, "./bootstrap && make check"));
	char *ci = th_read(SRC "/.ci/run", NULL);
	assert_non_null(ci);
	assert_non_null(strstr(ci, "./bootstrap && make check"));
	free(readme);
	free(ci);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_ini_up_to_date),
		cmocka_unit_test(test_reference_equals_quickstart),
		cmocka_unit_test(test_examples_load),
		cmocka_unit_test(test_config_doc_names_every_key),
		cmocka_unit_test(test_readme_commands),
	};
	return cmocka_run_group_tests_name("docs", tests, NULL, NULL);
}
