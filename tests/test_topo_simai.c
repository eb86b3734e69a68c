/* SPDX-License-Identifier: MIT */
/*
 * topo/simai (SimAI topology files, as SimAI's generator writes them):
 * - the two real files (Spectrum-X 128 GPUs, DCN+ 64 GPUs) build with the
 *   node, host, switch and link counts, the ports, rates and delays that
 *   the test reads from the files itself (a reader written here), the
 *   server size of the header, and switch levels by tier;
 * - routes on Spectrum-X: same server through the NVSwitch (2 links),
 *   same rail through the rail leaf (2), across rails leaf-spine-leaf (4);
 * - SimAI workload files run unchanged on Spectrum-X: microAllReduce at
 *   packet level, and all_reduce (DP over all 128 GPUs) under fluid,
 *   with collectives crossing the network;
 * - a table of malformed files, each refused with its file, line and
 *   message (header, units, ids, duplicate links, switch list, NVSwitch
 *   wiring, GPUs off the network).
 */
#define _GNU_SOURCE
#include "th.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOPO TH_SRCDIR "/tests/data/simai-topo/"
#define SPECX TOPO "Spectrum-X_128g_8gps_100Gbps_A100"
#define DCN TOPO "DCN+SingleToR_64g_8gps_400Gbps_H100"
#define WL TH_SRCDIR "/tests/data/simai/"

/* ---- the file, read here ----------------------------------------------------- */

struct ref_link {
	unsigned a, b;
	char rate[32], delay[32];
};

struct ref {
	unsigned nodes, gps, nvswitches, switches, links;
	unsigned ids;             /* fields of line 2 */
	unsigned char *is_switch; /* per node */
	struct ref_link *link;
	unsigned n_link;          /* link lines actually there */
};

static void ref_read(struct ref *r, const char *path)
{
	memset(r, 0, sizeof *r);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[8192], type[32];
	assert_non_null(fgets(line, sizeof line, f));
	assert_int_equal(sscanf(line, "%u %u %u %u %u %31s", &r->nodes, &r->gps,
				&r->nvswitches, &r->switches, &r->links, type), 6);
	r->is_switch = calloc(r->nodes, 1);
	r->link = calloc(r->links + 1, sizeof *r->link);
	assert_non_null(fgets(line, sizeof line, f));
	for (char *t = strtok(line, " \r\n"); t; t = strtok(NULL, " \r\n")) {
		r->is_switch[atoi(t)] = 1;
		r->ids++;
	}
	while (fgets(line, sizeof line, f)) {
		struct ref_link *l = &r->link[r->n_link];
		if (sscanf(line, "%u %u %31s %31s", &l->a, &l->b, l->rate, l->delay) == 4)
			r->n_link++;
		assert_true(r->n_link <= r->links);
	}
	fclose(f);
}

static void ref_free(struct ref *r)
{
	free(r->is_switch);
	free(r->link);
}

static const char *ini(const char *file, const char *extra)
{
	th_write("empty.txt", "0\n");
	return th_fmt("[topology]\nname = simai\nfile = %s\n%s"
		      "[workload]\nname = flows\nfile = empty.txt\n", file, extra);
}

static uint64_t rate_of(const char *text)
{
	uint64_t v;
	char why[128];
	static const struct ws_param p = { .key = "rate", .type = WS_PT_RATE };
	assert_int_equal(ws_param_parse(&p, text, &v, why, sizeof why), 0);
	return v;
}

/* Counts, then every node's ports against the file's link lines in order. */
static void check_file(const char *path)
{
	struct ref r;
	ref_read(&r, path);
	assert_int_equal(r.n_link, r.links);
	assert_int_equal(r.ids, r.nvswitches + r.switches);
	struct ws_sim *sim = th_sim(ini(path, ""));
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	assert_int_equal(fab->n_nodes, r.nodes);
	assert_int_equal(fab->n_switches, r.ids);
	assert_int_equal(fab->n_hosts, r.nodes - r.ids);
	assert_int_equal(fab->n_links, r.n_link);
	assert_int_equal(fab->server_size, r.gps);
	for (unsigned i = 0; i < fab->n_hosts; i++)
		assert_int_equal(fab->hosts[i], i); /* GPU g is host g */
	unsigned *port = calloc(r.nodes, sizeof *port);
	for (unsigned i = 0; i < r.n_link; i++) {
		const struct ref_link *l = &r.link[i];
		struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
		assert_int_equal(ws_port_info(sim, l->a, port[l->a], &pi), WS_OK);
		assert_int_equal(pi.peer_node, l->b);
		assert_int_equal(pi.peer_local, port[l->b]);
		assert_int_equal(pi.rate, rate_of(l->rate));
		port[l->a]++;
		port[l->b]++;
	}
	for (unsigned i = 0; i < r.nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		assert_int_equal(n->n_ports, port[i]);
		assert_int_equal(n->kind, r.is_switch[i] ? WS_NODE_SWITCH : WS_NODE_HOST);
	}
	free(port);
	ws_sim_free(sim);
	ref_free(&r);
}

static void test_spectrum_x(void **state)
{
	(void)state;
	check_file(SPECX);
}

static void test_dcn(void **state)
{
	(void)state;
	check_file(DCN);
}

/* Spectrum-X: GPUs 0..127, NVSwitches 128..143, rail leaves 144..151,
 * spines 152..215. */
static void test_spectrum_x_levels_routes(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim(ini(SPECX, ""));
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	for (unsigned i = 128; i < 216; i++)
		assert_int_equal(ws_node_get(fab, i)->level, i < 152 ? 1 : 2);
	uint32_t path[16];
	/* same server: GPU 0 -> NVSwitch 128 -> GPU 3 */
	assert_int_equal(th_route(sim, 0, 3, 1000, path, NULL, 16), 2);
	assert_int_equal(path[1], 128);
	/* same rail, other server: through rail leaf 144 */
	assert_int_equal(th_route(sim, 0, 8, 1001, path, NULL, 16), 2);
	assert_int_equal(path[1], 144);
	/* other rail, other server: leaf, spine, leaf */
	assert_int_equal(th_route(sim, 0, 9, 1002, path, NULL, 16), 4);
	assert_int_equal(path[1], 144);
	assert_true(path[2] >= 152 && path[2] < 216);
	assert_int_equal(path[3], 145);
	ws_sim_free(sim);
}

static unsigned csv_rows(const char *dir, const char *file)
{
	struct th_csv c;
	th_csv_load(&c, th_fmt("%s/%s/%s", th_tmpdir(), dir, file));
	unsigned n = c.rows;
	th_csv_free(&c);
	return n;
}

/* A SimAI workload file, unchanged, on SimAI's Spectrum-X file. */
static void test_workload_micro(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim(th_fmt("[topology]\nname = simai\nfile = %s\n"
					   "[workload]\nname = simai\nfile = %s\n",
					   SPECX, WL "microAllReduce.txt"));
	th_run(sim);
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_sim_write_outputs(sim, th_fmt("%s/micro", th_tmpdir()), &err),
			 WS_OK);
	assert_int_equal(csv_rows("micro", "collectives.csv"), 2);
	ws_sim_free(sim);
}

#define AR_LINE(b) "micro_test\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLREDUCE\t" b "\t1\n"
#define AR4 "MICRO\n4\n" AR_LINE("4096") AR_LINE("8192") AR_LINE("16384") AR_LINE("32768")

/* SimAI's all_reduce example cut to its first 4 all-reduces (4 to 32 KB;
 * its 19 double up to 1 GB, 5 s under fluid) over all 128 GPUs, 16
 * servers, under fluid: the packets cross the fabric. */
static void test_workload_all_reduce(void **state)
{
	(void)state;
	struct ws_sim *sim = th_sim(th_fmt("[topology]\nname = simai\nfile = %s\n"
					   "[workload]\nname = simai\nfile = %s\n"
					   "[accel]\nname = fluid\n",
					   SPECX, th_write("all_reduce4.txt", AR4)));
	th_run(sim);
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_sim_write_outputs(sim, th_fmt("%s/ar", th_tmpdir()), &err),
			 WS_OK);
	assert_int_equal(csv_rows("ar", "collectives.csv"), 4);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_true(st.flows_done > 0);
	ws_sim_free(sim);
}

/* ---- malformed files ---------------------------------------------------------- */

/* the smallest valid file: 2 GPUs of one server, its NVSwitch (2), a leaf (3) */
#define HDR "4 2 1 1 4 A100\n2 3\n"
#define HDR5 "4 2 1 1 5 A100\n2 3\n"
#define OK_LINKS "0 2 2400Gbps 0.000025ms 0\n1 2 2400Gbps 0.000025ms 0\n" \
	"0 3 100Gbps 0.0005ms 0\n1 3 100Gbps 0.0005ms 0\n"

static const struct th_bad_file bad_files[] = {
	{ "missing file", NULL, WS_ENOENT, 0, "cannot open the topology file" },
	{ "empty file", "", WS_EINVAL, 0,
	  "empty topology file (expected 'nodes gpus_per_server nvswitches switches "
	  "links gpu_type' on the first line)" },
	{ "HPCC header (3 fields)", "4 2 4\n2 3\n", WS_EINVAL, 1,
	  "the first line must be 'nodes gpus_per_server nvswitches switches links "
	  "gpu_type' (found 3 fields)" },
	{ "header of 7 fields", "4 2 1 1 4 A100 x\n", WS_EINVAL, 1, "(found 7 fields)" },
	{ "header not numeric", "4 two 1 1 4 A100\n", WS_EINVAL, 1,
	  "bad gpus_per_server 'two' on the first line (expected a non-negative integer" },
	{ "no GPUs left", "6 2 3 2 5 A100\n", WS_EINVAL, 1,
	  "nvswitches = 3 and switches = 2 of 6 nodes: the GPUs (nodes - nvswitches - "
	  "switches) must be at least 2" },
	{ "server size not dividing", "7 2 1 1 6 A100\n", WS_EINVAL, 1,
	  "gpus_per_server = 2: expected a divisor of the 5 GPUs" },
	{ "zero server size", "4 0 1 1 4 A100\n", WS_EINVAL, 1, "gpus_per_server = 0" },
	{ "NVSwitches not per server", "11 2 2 1 10 A100\n", WS_EINVAL, 1,
	  "nvswitches = 2: expected the same number in each of the 4 servers" },
	{ "too few links", "4 2 1 1 2 A100\n", WS_EINVAL, 1, "links = 2: expected 3 .. " },
	{ "switch list shorter", "4 2 1 1 4 A100\n2\n" OK_LINKS, WS_EINVAL, 2,
	  "expected the 2 switch ids the first line declares, found 1 field" },
	{ "switch list longer", "4 2 1 1 4 A100\n1 2 3\n" OK_LINKS, WS_EINVAL, 2,
	  "expected the 2 switch ids the first line declares, found 3 fields" },
	{ "switch id is a GPU", "4 2 1 1 4 A100\n2 1\n" OK_LINKS, WS_EINVAL, 2,
	  "switch id 1 (field 2) is a GPU: ids 0..1 are the GPUs, switches are 2..3" },
	{ "switch id out of range", "4 2 1 1 4 A100\n2 4\n", WS_EINVAL, 2,
	  "switch id 4 (field 2) is not a node" },
	{ "link of 4 fields", HDR "0 2 2400Gbps 0.000025ms\n", WS_EINVAL, 3,
	  "too few fields (found 4 fields; expected: src dst rate delay error_rate)" },
	{ "link of 6 fields", HDR "0 2 2400Gbps 0.000025ms 0 1\n", WS_EINVAL, 3,
	  "too many fields (found 6 fields" },
	{ "unknown rate unit", HDR "0 2 2400Gbs 0.000025ms 0\n", WS_EINVAL, 3,
	  "bad rate '2400Gbs'" },
	{ "unknown delay unit", HDR "0 2 2400Gbps 0.000025mx 0\n", WS_EINVAL, 3,
	  "bad delay '0.000025mx'" },
	{ "dst out of range", HDR "0 4 2400Gbps 0.000025ms 0\n", WS_EINVAL, 3,
	  "no such node 4 (dst): the first line declares nodes 0..3" },
	{ "lossy link", HDR "0 2 2400Gbps 0.000025ms 0.01\n", WS_EINVAL, 3,
	  "error_rate 0.01: warpsim does not model random link loss; use 0" },
	{ "file ends early", HDR "0 2 2400Gbps 0.000025ms 0\n", WS_EINVAL, 3,
	  "the first line declares 4 links but the file ends after 1" },
	{ "duplicate link", HDR5 OK_LINKS "2 0 2400Gbps 0.000025ms 0\n", WS_EINVAL, 7,
	  "a second link between nodes 2 and 0 (the first is on line 3)" },
	{ "NVSwitch to a switch", HDR5 OK_LINKS "2 3 400Gbps 0.0005ms 0\n", WS_EINVAL, 7,
	  "a link between NVSwitch 2 and switch 3: an NVSwitch links the GPUs of its "
	  "server only" },
	{ "NVSwitch across servers",
	  "7 2 2 1 8 A100\n4 5 6\n"
	  "0 4 1Tbps 1ns 0\n1 4 1Tbps 1ns 0\n2 5 1Tbps 1ns 0\n3 4 1Tbps 1ns 0\n"
	  "0 6 1Gbps 1us 0\n1 6 1Gbps 1us 0\n2 6 1Gbps 1us 0\n3 6 1Gbps 1us 0\n",
	  WS_EINVAL, 6, "NVSwitch 4 links GPU 3 of server 1 and a GPU of server 0" },
	{ "GPU only on NVLink", "4 2 1 1 3 A100\n2 3\n0 2 2400Gbps 0.000025ms 0\n"
	  "1 2 2400Gbps 0.000025ms 0\n0 3 100Gbps 0.0005ms 0\n",
	  WS_EINVAL, 0, "GPU 1 has no link to a network switch" },
};

/* The file the malformed ones are made from builds: each case below fails
 * for the reason it names. */
static void test_minimal(void **state)
{
	(void)state;
	th_write("min.txt", HDR OK_LINKS);
	struct ws_sim *sim = th_sim(ini("min.txt", ""));
	assert_int_equal(ws_sim_fabric(sim)->n_hosts, 2);
	assert_int_equal(ws_sim_fabric(sim)->server_size, 2);
	ws_sim_free(sim);
}

static void test_bad_file(void **state)
{
	th_check_bad_file(*state, ini("bad.txt", ""));
}

int main(void)
{
	enum { N_BAD = WS_ARRAY_LEN(bad_files) };
	static struct CMUnitTest tests[N_BAD + 8];
	const struct CMUnitTest head[] = {
		cmocka_unit_test(test_spectrum_x),
		cmocka_unit_test(test_dcn),
		cmocka_unit_test(test_spectrum_x_levels_routes),
		cmocka_unit_test(test_workload_micro),
		cmocka_unit_test(test_workload_all_reduce),
		cmocka_unit_test(test_minimal),
	};
	size_t n = 0;
	for (size_t i = 0; i < WS_ARRAY_LEN(head); i++)
		tests[n++] = head[i];
	for (size_t i = 0; i < N_BAD; i++)
		tests[n++] = (struct CMUnitTest){ bad_files[i].name, test_bad_file, NULL,
						  NULL, (void *)&bad_files[i] };
	return _cmocka_run_group_tests("test_topo_simai", tests, n, NULL, NULL);
}
