/* SPDX-License-Identifier: MIT */
/*
 * The plugin loader and ABI: loading by name from each search-path layout,
 * and refusing, with the file named, a plugin built for another ABI, a .so
 * without the entry symbol, a missing required callback, a name that is not
 * the file's, a bad parameter table, a plugin of the wrong kind and a
 * duplicate (two files, or a file shadowing a built-in).  ABI growth: a
 * descriptor from an older minor (a shorter ops table) is accepted.  A test
 * CC counts its callbacks through a real run.  A loaded file stays mapped
 * after its simulation unloads it, and the next load reuses that mapping.
 */
#define _GNU_SOURCE
#include "th.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define TEST_PLUGINS TH_BUILDDIR "/tests/plugins/.libs"

static int load(const char *path, enum ws_kind kind, const char *name,
		struct ws_loaded *out, struct ws_err *err)
{
	struct ws_search s;
	ws_search_init(&s, path, NULL);
	ws_err_clear(err);
	int rc = ws_plugin_load(&s, kind, name, out, err);
	ws_search_fini(&s);
	return rc;
}

static void expect_load_error(enum ws_kind kind, const char *name, int code,
			      const char *file_part, const char *msg_part)
{
	struct ws_loaded ld;
	struct ws_err err;
	int rc = load(TEST_PLUGINS, kind, name, &ld, &err);
	if (rc != code)
		fail_msg("loading %s: code %d, expected %d (%s)", name, rc, code, err.msg);
	if (file_part)
		assert_non_null(strstr(err.file, file_part));
	if (!strstr(err.msg, msg_part))
		fail_msg("loading %s: '%s' lacks '%s'", name, err.msg, msg_part);
}

static void test_load_by_name(void **state)
{
	(void)state;
	struct ws_loaded ld;
	struct ws_err err;
	/* from the build tree (the test runs from it) */
	assert_int_equal(load(NULL, WS_KIND_CC, "dcqcn", &ld, &err), WS_OK);
	assert_string_equal(ld.desc->name, "dcqcn");
	assert_int_equal(ld.desc->kind, WS_KIND_CC);
	assert_non_null(strstr(ld.path, "/cc/.libs/dcqcn.so"));
	ws_plugin_unload(&ld);
	/* a flat directory of plugins, through the search path */
	assert_int_equal(load(TEST_PLUGINS, WS_KIND_CC, "counter", &ld, &err), WS_OK);
	assert_string_equal(ld.path, TEST_PLUGINS "/counter.so");
	ws_plugin_unload(&ld);
	/* the built-in */
	assert_int_equal(load(NULL, WS_KIND_ACCEL, "none", &ld, &err), WS_OK);
	assert_string_equal(ld.path, "built in");
	/* cc "none" and accel "none" are different plugins */
	assert_int_equal(load(NULL, WS_KIND_CC, "none", &ld, &err), WS_OK);
	assert_int_equal(ld.desc->kind, WS_KIND_CC);
	ws_plugin_unload(&ld);
	/* the environment variable is a search root too */
	setenv("WARPSIM_PLUGIN_PATH", TEST_PLUGINS, 1);
	assert_int_equal(load(NULL, WS_KIND_CC, "counter", &ld, &err), WS_OK);
	ws_plugin_unload(&ld);
	unsetenv("WARPSIM_PLUGIN_PATH");
}

/* RTLD_NODELETE: the second simulation of a process does not map the
 * plugin again (the first one's descriptor is the one it gets) */
static void test_loaded_file_stays_mapped(void **state)
{
	(void)state;
	struct ws_loaded ld;
	struct ws_err err;
	assert_int_equal(load(TEST_PLUGINS, WS_KIND_CC, "counter", &ld, &err), WS_OK);
	const struct ws_plugin *first = ld.desc;
	char path[sizeof ld.path];
	snprintf(path, sizeof path, "%s", ld.path);
	ws_plugin_unload(&ld);
	void *still = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	assert_non_null(still);
	dlclose(still);
	assert_int_equal(load(TEST_PLUGINS, WS_KIND_CC, "counter", &ld, &err), WS_OK);
	assert_ptr_equal(ld.desc, first);
	ws_plugin_unload(&ld);
}

static void test_unknown_lists_available(void **state)
{
	(void)state;
	struct ws_loaded ld;
	struct ws_err err;
	assert_int_equal(load(NULL, WS_KIND_CC, "dcqcm", &ld, &err), WS_ENOENT);
	assert_non_null(strstr(err.msg, "unknown cc plugin 'dcqcm'; available: "));
	assert_non_null(strstr(err.msg, "dcqcn"));
	assert_non_null(strstr(err.msg, "none"));
	assert_int_equal(load(NULL, WS_KIND_CC, "../dcqcn", &ld, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "invalid cc plugin name"));
}

static void test_rejects_broken_plugins(void **state)
{
	(void)state;
	expect_load_error(WS_KIND_CC, "badabi", WS_EPLUGIN, "badabi.so",
			  th_fmt("built for plugin ABI %d.0, but this warpsim has ABI %d.%d",
				 WS_ABI_MAJOR + 1, WS_ABI_MAJOR, WS_ABI_MINOR));
	expect_load_error(WS_KIND_CC, "nosym", WS_EPLUGIN, "nosym.so",
			  "no symbol ws_plugin_entry");
	expect_load_error(WS_KIND_CC, "noinit", WS_EPLUGIN, "noinit.so",
			  "lacks the required callback init");
	expect_load_error(WS_KIND_ACCEL, "halfshare", WS_EPLUGIN, "halfshare.so",
			  "share_key, share_import and share_export (all three or none)");
	expect_load_error(WS_KIND_CC, "wrongname", WS_EPLUGIN, "wrongname.so",
			  "declares the name 'other'; the file must be named other.so");
	expect_load_error(WS_KIND_CC, "badparams", WS_EPLUGIN, "badparams.so",
			  "the default of parameter 'level' (20) is invalid");
}

static void test_wrong_kind_is_not_found(void **state)
{
	(void)state;
	/* counter.so exists but is a CC: asked for as a topology it is skipped */
	expect_load_error(WS_KIND_TOPO, "counter", WS_ENOENT, NULL,
			  "unknown topology plugin 'counter'");
	/* through a configuration, the error points at the name line */
	th_write("t.txt", "0\n");
	struct ws_sim *sim;
	struct ws_err err;
	assert_int_equal(th_sim_try("[topology]\nname = counter\n"
				    "[workload]\nname = flows\nfile = t.txt\n",
				    &sim, &err, TEST_PLUGINS), WS_ENOENT);
	assert_int_equal(err.line, 2);
}

static void copy_file(const char *from, const char *to)
{
	char *data;
	size_t len;
	data = th_read(from, &len);
	assert_non_null(data);
	FILE *f = fopen(to, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	free(data);
}

static void test_duplicates(void **state)
{
	(void)state;
	/* two files of one root provide the same plugin */
	char root[512], sub[600], a[700], b[700];
	snprintf(root, sizeof root, "%s/dup", th_tmpdir());
	snprintf(sub, sizeof sub, "%s/cc", root);
	mkdir(root, 0755);
	mkdir(sub, 0755);
	snprintf(a, sizeof a, "%s/counter.so", root);
	snprintf(b, sizeof b, "%s/counter.so", sub);
	copy_file(TEST_PLUGINS "/counter.so", a);
	copy_file(TEST_PLUGINS "/counter.so", b);
	struct ws_loaded ld;
	struct ws_err err;
	assert_int_equal(load(root, WS_KIND_CC, "counter", &ld, &err), WS_EPLUGIN);
	assert_non_null(strstr(err.msg, "duplicate cc plugin 'counter'"));
	/* a file taking the name of a built-in of its kind */
	assert_int_equal(load(TH_BUILDDIR "/tests/plugins/dup/.libs", WS_KIND_ACCEL,
			      "none", &ld, &err), WS_EPLUGIN);
	assert_non_null(strstr(err.msg, "duplicate accel plugin 'none': warpsim has one built in"));
	assert_non_null(strstr(err.file, "none.so"));
	/* but a cc called none beside it is no duplicate of the accel */
	assert_int_equal(load(TH_BUILDDIR "/cc/.libs", WS_KIND_ACCEL, "none", &ld, &err),
			 WS_OK);
	/* the first root in the search path wins over later ones */
	assert_int_equal(load(TEST_PLUGINS ":" TH_BUILDDIR, WS_KIND_CC, "dcqcn", &ld, &err),
			 WS_OK);
	assert_non_null(strstr(ld.path, "/cc/.libs/dcqcn.so"));
	ws_plugin_unload(&ld);
}

/* ---- the descriptor checks, on descriptors built here -------------------------- */

static void t_init(struct ws_cc_flow *f, ws_time now)
{
	(void)f;
	(void)now;
}

/* the ops table of a CC built against an older minor: up to init */
struct old_cc_ops {
	uint32_t size, needs, flow_state_size;
	void (*init)(struct ws_cc_flow *f, ws_time now);
};

static const struct old_cc_ops old_ops = { sizeof(struct old_cc_ops), 0, 0, t_init };
static const struct ws_cc_ops full_ops = { .size = sizeof(struct ws_cc_ops), .init = t_init };

static struct ws_plugin desc(void)
{
	return (struct ws_plugin){
		WS_PLUGIN_ABI(WS_KIND_CC, struct ws_cc_ops),
		.name = "t",
		.version = "1", .summary = "test", .ops = &full_ops,
	};
}

static void expect_desc(const struct ws_plugin *d, int code, const char *part)
{
	struct ws_err err;
	ws_err_clear(&err);
	int rc = ws_plugin_check(d, WS_KIND_CC, "t", "t.so", &err);
	if (rc != code)
		fail_msg("code %d, expected %d: %s", rc, code, err.msg);
	if (part && !strstr(err.msg, part))
		fail_msg("'%s' lacks '%s'", err.msg, part);
}

static void test_descriptor_checks(void **state)
{
	(void)state;
	struct ws_plugin d = desc();
	expect_desc(&d, WS_OK, NULL);
	/* an older minor's shorter ops table: accepted, later callbacks NULL */
	d.ops = &old_ops;
	d.ops_size = sizeof old_ops;
	expect_desc(&d, WS_OK, NULL);
	d = desc();
	d.abi_minor = WS_ABI_MINOR + 1;
	expect_desc(&d, WS_EPLUGIN, th_fmt("needs plugin ABI %d.%d, but this warpsim provides %d.%d",
					   WS_ABI_MAJOR, WS_ABI_MINOR + 1, WS_ABI_MAJOR,
					   WS_ABI_MINOR));
	/* a plugin of the 1.x ABI (structs without their size) is refused */
	d = desc();
	d.abi_major = 1;
	d.abi_minor = 2;
	expect_desc(&d, WS_EPLUGIN, th_fmt("built for plugin ABI 1.2, but this warpsim has "
					   "ABI %d.%d: rebuild the plugin", WS_ABI_MAJOR,
					   WS_ABI_MINOR));
	d = desc();
	d.build_sig ^= 1;
	expect_desc(&d, WS_EPLUGIN, "build signature");
	d = desc();
	d.desc_size = 16;
	expect_desc(&d, WS_EPLUGIN, "descriptor is 16 bytes");
	d = desc();
	d.ops_size = sizeof(struct ws_cc_ops) + 8;
	expect_desc(&d, WS_EPLUGIN, "differs from the descriptor's");
	d = desc();
	d.kind = 42;
	expect_desc(&d, WS_EPLUGIN, "unknown plugin kind 42");
	d = desc();
	d.summary = NULL;
	expect_desc(&d, WS_EPLUGIN, "lacks a version or summary");
	/* the built-in goes through the same checks */
	struct ws_err err;
	assert_int_equal(ws_plugin_check(&ws_builtin_accel_none, WS_KIND_ACCEL, "none",
					 "built in", &err), WS_OK);
}

/* A k=4 fat-tree whose CC is the test plugin `cc`, with `extra` ini text
 * and the flow trace `trace` (written beforehand with th_write). */
static struct ws_sim *test_plugin_sim(const char *cc, const char *extra,
				      const char *trace)
{
	struct ws_sim *sim;
	struct ws_err err;
	if (th_sim_try(th_fmt("[topology]\nname = fat-tree\nk = 4\n"
			      "[cc]\nname = %s\n%s"
			      "[workload]\nname = flows\nfile = %s\n", cc, extra, trace),
		       &sim, &err, TEST_PLUGINS))
		fail_msg("%s", err.msg);
	return sim;
}

/* ---- class escalation by a routing rule ------------------------------------------- */

static struct ws_sim *classup_sim(const char *extra, const char *trace)
{
	struct ws_sim *sim;
	struct ws_err err;
	if (th_sim_try(th_fmt("[topology]\nname = fat-tree\nk = 4\n"
			      "[routing]\nname = classup\n%s"
			      "[workload]\nname = flows\nfile = %s\n", extra, trace),
		       &sim, &err, TEST_PLUGINS))
		fail_msg("%s", err.msg);
	return sim;
}

static void test_class_escalation(void **state)
{
	(void)state;
	th_write("none.txt", "0\n");
	struct ws_sim *sim = classup_sim("", "none.txt");
	/* host 0 to host 15: five switches, one class higher at each (cap 3) */
	struct ws_hop h[16];
	assert_int_equal(th_route(sim, 0, 15, 10000, NULL, h, 16), 6);
	static const uint8_t want[] = { 3, 3, 4, 5, 6, 6 };
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(h[i].cls, want[i]);
	/* priority 4 and above leave no room for three more classes */
	struct ws_flow_spec fs = { WS_INIT_SIZE(struct ws_flow_spec), .src = 0, .dst = 15, .bytes = 1000, .prio = 5 };
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_flow_create(sim, &fs, NULL, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "flow priority 5: the routing rule 'classup' "
				       "raises packets up to 3 classes"));
	assert_non_null(strstr(err.msg, "priorities above 4 have no room"));
	fs.prio = 4;
	assert_int_equal(ws_flow_create(sim, &fs, NULL, &err), WS_OK);
	ws_sim_free(sim);

	/* an 8-to-1 incast with PFC through a small buffer: pauses in the
	 * escalated classes, nothing lost, every buffer byte released (a
	 * release in the wrong class would leave a class paused for good) */
	th_write("incast.txt", "8\n0 15 3 100 1000000 0\n1 15 3 100 1000000 0\n"
			       "2 15 3 100 1000000 0\n3 15 3 100 1000000 0\n"
			       "4 15 3 100 1000000 0\n5 15 3 100 1000000 0\n"
			       "6 15 3 100 1000000 0\n7 15 3 100 1000000 0\n");
	sim = classup_sim("[switch]\nbuffer = 1MiB\n", "incast.txt");
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows_done, 8);
	assert_int_equal(st.drops, 0);
	assert_true(st.pfc_pauses > 0);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	for (uint32_t n = 0; n < fab->n_nodes; n++)
		for (uint32_t l = 0; l < ws_node_get(fab, n)->n_ports; l++)
			assert_int_equal(ws_port_queue_bytes(sim, n, l), 0);
	ws_sim_free(sim);
}

/* ---- a CC that counts its callbacks ----------------------------------------------- */

struct counter_state {
	uint64_t init, acks, nacks, cnps, timers, sends, sent_bytes, fini, shifts;
	uint64_t acked_bytes;
	ws_time rtt_max;
};

static void test_counter_callbacks(void **state)
{
	(void)state;
	th_write("c.txt", "4\n0 5 3 100 100000 0\n1 5 3 100 100000 0\n"
			  "2 5 3 100 100000 0.00001\n3 12 3 100 4321 0.00002\n");
	struct ws_sim *sim = test_plugin_sim("counter",
					     "[switch]\necn_kmin = 5KB\necn_kmax = 20KB\n",
					     "c.txt");
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	const struct counter_state *c = ws_sim_instance(sim, WS_KIND_CC)->state;
	assert_int_equal(st.flows_done, 4);
	assert_int_equal(c->init, 4);
	assert_int_equal(c->fini, 4);
	/* every data packet, once; no loss, so no byte twice */
	assert_int_equal(c->sends, st.data_packets);
	assert_int_equal(c->sent_bytes, 3 * 100000 + 4321);
	/* every ACK but the four that completed a flow */
	assert_int_equal(c->acks, st.acks - 4);
	assert_int_equal(c->nacks, 0);
	assert_int_equal(c->timers, 0);
	assert_int_equal(c->shifts, 0);
	/* it asked for ECN (marks happen with these thresholds) but chose no
	 * CNP mode, so the kernel notifies it of nothing */
	assert_true(st.ecn_marks > 0);
	assert_int_equal(c->cnps, 0);
	ws_sim_free(sim);
}

/* ---- INT, switched on by the CC's declared needs ------------------------------------ */

struct intprobe_state {
	uint64_t acks;
	uint64_t bad;
	uint32_t min_n, max_n;
	uint64_t rate_sum;
	uint64_t last_tx[WS_INT_MAX_HOPS];
	uint64_t qlen_max;
};

static void test_int_stamping(void **state)
{
	(void)state;
	/* hosts of pods 0, 1 and 2 to host 15 of pod 3: 5 switches (6 links)
	 * each; 4 flows share the last hop, so queues form there */
	th_write("i.txt", "4\n0 15 3 100 200000 0\n4 15 3 100 200000 0\n"
			  "8 15 3 100 200000 0\n1 15 3 100 200000 0\n");
	struct ws_sim *sim = test_plugin_sim("intprobe", "", "i.txt");
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	const struct intprobe_state *s = ws_sim_instance(sim, WS_KIND_CC)->state;
	assert_int_equal(st.flows_done, 4);
	assert_true(s->acks > 0);
	assert_int_equal(s->bad, 0);
	/* every flow's path has 5 switches: 5 records, one per switch */
	assert_int_equal(s->min_n, 5);
	assert_int_equal(s->max_n, 5);
	assert_int_equal(s->rate_sum, s->acks * 100000000000ull);
	assert_true(s->qlen_max > 0);
	/* data packets carry the INT space: 1000 + 52 + 2 + 5 x 8 bytes */
	assert_int_equal(st.data_bytes, (uint64_t)st.data_packets * 1094);
	ws_sim_free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_by_name),
		cmocka_unit_test(test_loaded_file_stays_mapped),
		cmocka_unit_test(test_unknown_lists_available),
		cmocka_unit_test(test_rejects_broken_plugins),
		cmocka_unit_test(test_wrong_kind_is_not_found),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_descriptor_checks),
		cmocka_unit_test(test_counter_callbacks),
		cmocka_unit_test(test_class_escalation),
		cmocka_unit_test(test_int_stamping),
	};
	return cmocka_run_group_tests_name("plugins", tests, NULL, NULL);
}
