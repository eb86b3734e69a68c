/* SPDX-License-Identifier: MIT */
/*
 * The collective engine the training workloads share (plugins/workload/coll.c),
 * driven through the test workload `collone` (one collective over GPUs
 * first, first + stride, ...): each algorithm's flows (count, bytes, the
 * byte matrix), its completion time against the bandwidth/latency formula
 * on an idle fabric, the NVLink model inside a server, PXN relays on a rail
 * fabric, NCCL-like channels across servers on a rail fabric (every NIC,
 * one rail per hop, bytes per GPU, bus bandwidth), bad groups, determinism.
 */
#include "th.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLUGINS TH_BUILDDIR "/tests/plugins/.libs"

/* k = 4 fat-tree, 100 Gb/s, 1 us links; every host its own server */
#define FAT "[topology]\nname = fat-tree\nk = 4\n[cc]\nname = dcqcn\n"

struct result {
	struct th_csv coll, fct;
};

static void run(const char *ini, const char *name, struct result *r)
{
	struct ws_sim_stats st;
	th_run_outputs(ini, PLUGINS, name, &st);
	assert_int_equal(st.flows_done, st.flows);
	char path[700];
	snprintf(path, sizeof path, "%s/%s/collectives.csv", th_tmpdir(), name);
	th_csv_load(&r->coll, path);
	snprintf(path, sizeof path, "%s/%s/fct.csv", th_tmpdir(), name);
	th_csv_load(&r->fct, path);
}

static void done(struct result *r)
{
	th_csv_free(&r->coll);
	th_csv_free(&r->fct);
}

static double duration_ps(const struct result *r, unsigned row)
{
	return (double)th_csv_ps(&r->coll, row, "duration_ns");
}

/* A ring step of b payload bytes on an idle path of `links` links at
 * 100 Gb/s: the wire bytes at line rate, plus the store-and-forward of one
 * packet per extra link and the propagation both ways (the last ACK's
 * serialization is in the 2 % slack).  In a ring every NIC also returns
 * the ACKs of the flow it receives, on the link its own data leaves by:
 * each 1000-byte payload costs 52 bytes of headers and a 60-byte ACK. */
static double step_ps(double b, int links)
{
	double pkts = ceil(b / 1000.0);
	double wire = b + pkts * (52.0 + 60.0);
	return wire * 8 / 100e9 * 1e12 + (links - 1) * 1052.0 * 8 / 100e9 * 1e12 +
	       2.0 * links * 1e6;
}

static void check_near(double got, double want, double tol, const char *what)
{
	if (fabs(got - want) > tol * want)
		fail_msg("%s: %.0f ps, formula %.0f ps (%.2f %% off, allowed %.1f %%)", what,
			 got, want, 100.0 * (got - want) / want, 100 * tol);
}

/* Ring all-reduce of S over n GPUs, one per pod: 2(n-1) steps of S/n. */
static void test_ring_allreduce_formula(void **state)
{
	(void)state;
	const double S = 16.0 * 1048576;
	struct result r;
	run(FAT "[workload]\nname = collone\nkind = allreduce\nbytes = 16MiB\n"
	    "n = 4\nstride = 4\ngpus_per_server = 1\n", "ring", &r);
	assert_int_equal(r.coll.rows, 1);
	assert_string_equal(th_csv_get(&r.coll, 0, "algorithm"), "ring");
	/* 2(n-1) steps x n ranks, each S/n, every rank to the next */
	assert_int_equal(r.fct.rows, 24);
	unsigned to_next[16] = { 0 };
	for (unsigned i = 0; i < r.fct.rows; i++) {
		assert_int_equal((uint64_t)th_csv_num(&r.fct, i, "bytes"), (uint64_t)(S / 4));
		unsigned s = (unsigned)th_csv_num(&r.fct, i, "src");
		unsigned d = (unsigned)th_csv_num(&r.fct, i, "dst");
		assert_int_equal(d, (s + 4) % 16);
		to_next[s]++;
		/* tag: the collective's id, then the transfer's place in it */
		assert_int_equal(strtoull(th_csv_get(&r.fct, i, "tag"), NULL, 10) >> 24,
				 strtoull(th_csv_get(&r.coll, 0, "id"), NULL, 10));
	}
	for (unsigned s = 0; s < 16; s += 4)
		assert_int_equal(to_next[s], 6);
	/* every path is 6 links (pod to pod) and the ring shares no link */
	double want = 2.0 * 3 * step_ps(S / 4, 6);
	check_near(duration_ps(&r, 0), want, 0.02, "ring all-reduce");
	/* and the textbook form: 2(n-1)/n S/B + 2(n-1) x latency */
	double bw = 100e9 / 8 * 1000 / 1112; /* goodput beside the ACKs, bytes/s */
	double textbook = 2.0 * 3 / 4 * S / bw * 1e12 + 6 * 12.5e6;
	check_near(duration_ps(&r, 0), textbook, 0.02, "2(n-1)/n S/B + latency");
	/* algorithm bandwidth = S / time, in Gb/s */
	check_near(th_csv_num(&r.coll, 0, "algbw_gbps"),
		   S * 8 / (duration_ps(&r, 0) / 1e12) / 1e9, 0.001, "algbw");
	done(&r);
}

/* Reduce-scatter and all-gather: n-1 steps; 8 GPUs, two per pod. */
static void test_ring_rs_ag(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		struct result r;
		run(th_fmt(FAT "[workload]\nname = collone\nkind = %s\nbytes = 8MiB\n"
			   "n = 8\nstride = 2\ngpus_per_server = 1\n",
			   k ? "allgather" : "reducescatter"), k ? "ag" : "rs", &r);
		assert_int_equal(r.fct.rows, 7 * 8);
		for (unsigned i = 0; i < r.fct.rows; i++)
			assert_int_equal((uint64_t)th_csv_num(&r.fct, i, "bytes"), 1048576);
		/* the slowest neighbours are in different pods: 6 links */
		check_near(duration_ps(&r, 0), 7 * step_ps(1048576, 6), 0.02,
			   k ? "all-gather" : "reduce-scatter");
		done(&r);
	}
}

/* Chunks pipeline: more flows, the same bytes, no slower than one chunk. */
static void test_chunked_ring(void **state)
{
	(void)state;
	struct result a, b;
	run(FAT "[workload]\nname = collone\nbytes = 16MiB\nn = 4\nstride = 4\n"
	    "gpus_per_server = 1\n", "one", &a);
	run(FAT "[workload]\nname = collone\nbytes = 16MiB\nn = 4\nstride = 4\n"
	    "gpus_per_server = 1\nchunk = 1MiB\n", "chunks", &b);
	assert_int_equal(b.fct.rows, 16 * 24);
	uint64_t total = 0;
	for (unsigned i = 0; i < b.fct.rows; i++)
		total += (uint64_t)th_csv_num(&b.fct, i, "bytes");
	assert_int_equal(total, 16ull * 24 * (1048576 / 4)); /* 16 chunks x 24 flows */
	/* pipelined chunks (up to two flows per NIC, each step of each chunk
	 * paying its own round trip): never under the bandwidth term, and far
	 * from the 96 round trips of chunks in series */
	double bw_term = 2.0 * 3 / 4 * 16 * 1048576 * 1112 / 1000 * 8 / 100e9 * 1e12;
	double serial = 16 * 6 * step_ps(262144, 6);
	assert_true(duration_ps(&b, 0) > bw_term);
	assert_true(duration_ps(&b, 0) < duration_ps(&a, 0) * 1.1);
	assert_true(duration_ps(&b, 0) < 0.8 * serial);
	done(&a);
	done(&b);
}

/* Trees: 2(n-1) transfers per tree and chunk, S / trees each; the double
 * binary tree carries half the data per tree and finishes sooner. */
static void test_trees(void **state)
{
	(void)state;
	struct result t, d;
	run(FAT "[workload]\nname = collone\nbytes = 2MiB\nn = 8\nstride = 2\n"
	    "gpus_per_server = 1\nallreduce = tree\nchunk = 256KiB\n", "tree", &t);
	run(FAT "[workload]\nname = collone\nbytes = 2MiB\nn = 8\nstride = 2\n"
	    "gpus_per_server = 1\nallreduce = dbtree\nchunk = 256KiB\n", "dbtree", &d);
	assert_string_equal(th_csv_get(&t.coll, 0, "algorithm"), "tree");
	assert_string_equal(th_csv_get(&d.coll, 0, "algorithm"), "dbtree");
	assert_int_equal(t.fct.rows, 8 * 2 * 7);
	assert_int_equal(d.fct.rows, 2 * 8 * 2 * 7);
	/* every rank but the root sends each chunk up once and gets it down once */
	unsigned sent[16] = { 0 }, got[16] = { 0 };
	for (unsigned i = 0; i < t.fct.rows; i++) {
		assert_int_equal((uint64_t)th_csv_num(&t.fct, i, "bytes"), 262144);
		sent[(unsigned)th_csv_num(&t.fct, i, "src")]++;
		got[(unsigned)th_csv_num(&t.fct, i, "dst")]++;
	}
	/* 8 chunks: a rank with c children gets 8c chunks up and sends 8c
	 * down, and (unless the root) sends 8 up and gets 8 down */
	for (unsigned g = 0; g < 16; g++) {
		assert_int_equal(sent[g], got[g]);
		assert_int_equal(sent[g] % 8, 0);
		assert_true(g % 2 ? sent[g] == 0 : sent[g] >= 8);
	}
	for (unsigned i = 0; i < d.fct.rows; i++)
		assert_int_equal((uint64_t)th_csv_num(&d.fct, i, "bytes"), 131072);
	/* two trees of half the chunk each (here 1.3x faster) */
	assert_true(duration_ps(&d, 0) < duration_ps(&t, 0));
	done(&t);
	done(&d);
}

/* All-to-all: every ordered pair gets S/n, in n-1 steps or all at once. */
static void test_alltoall_matrix(void **state)
{
	(void)state;
	for (int direct = 0; direct < 2; direct++) {
		struct result r;
		run(th_fmt(FAT "[workload]\nname = collone\nkind = alltoall\nbytes = 4MiB\n"
			   "n = 4\nstride = 4\ngpus_per_server = 1\nalltoall = %s\n"
			   "compute = 10us\n", direct ? "direct" : "pairwise"),
		    direct ? "a2a-direct" : "a2a-pairwise", &r);
		uint64_t m[16][16] = { { 0 } };
		unsigned at_start = 0;
		for (unsigned i = 0; i < r.fct.rows; i++) {
			unsigned s = (unsigned)th_csv_num(&r.fct, i, "src");
			unsigned d = (unsigned)th_csv_num(&r.fct, i, "dst");
			m[s][d] += (uint64_t)th_csv_num(&r.fct, i, "bytes");
			at_start += th_csv_num(&r.fct, i, "start_ns") == 10000.0;
		}
		for (unsigned s = 0; s < 16; s++)
			for (unsigned d = 0; d < 16; d++)
				assert_int_equal(m[s][d], s % 4 == 0 && d % 4 == 0 && s != d
							  ? 1048576 : 0);
		assert_int_equal(r.fct.rows, 12);
		/* pairwise: step k (rank r to r+k+1) waits for step k-1 */
		assert_int_equal(at_start, direct ? 12 : 4);
		done(&r);
	}
}

/* Inside a server: one calibrated delay, alpha + busfactor x S / (beta x eff). */
static void test_intra_server_model(void **state)
{
	(void)state;
	static const struct { const char *kind; double factor; double eff; ws_time alpha; } k[] = {
		{ "allreduce", 2.0 * 3 / 4, 0.8, 10 * WS_US },
		{ "allgather", 3.0 / 4, 0.8, 8 * WS_US },
		{ "alltoall", 3.0 / 4, 0.7, 8 * WS_US },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(k); i++) {
		struct result r;
		run(th_fmt(FAT "[workload]\nname = collone\nkind = %s\nbytes = 64MiB\n"
			   "n = 4\ngpus_per_server = 4\n", k[i].kind), k[i].kind, &r);
		assert_int_equal(r.fct.rows, 0);
		assert_string_equal(th_csv_get(&r.coll, 0, "algorithm"), "nvlink");
		uint64_t bytes = (uint64_t)(k[i].factor * 64 * 1048576 + 0.5);
		uint64_t rate = (uint64_t)(2400e9 * k[i].eff);
		ws_time want = k[i].alpha + ws_tx_time(bytes, rate);
		assert_int_equal((uint64_t)duration_ps(&r, 0), want);
		done(&r);
	}
	/* a point-to-point transfer inside a server: alpha + S / beta */
	struct result r;
	run(FAT "[workload]\nname = collone\nkind = sendrecv\nbytes = 1MiB\nn = 2\n"
	    "gpus_per_server = 4\n", "p2p", &r);
	assert_int_equal(r.fct.rows, 0);
	assert_int_equal((uint64_t)duration_ps(&r, 0),
			 2 * WS_US + ws_tx_time(1048576, 2400000000000ull));
	done(&r);
}

/* On a rail fabric, PXN sends a cross-rail transfer through the GPU of the
 * destination's rail in the source's server: the flow stays on one rail. */
static void test_pxn_relay(void **state)
{
	(void)state;
	static const char rail[] = "[topology]\nname = rail\ngpus_per_server = 8\n"
				   "servers_per_unit = 2\nunits = 1\n[workload]\n"
				   "name = collone\nkind = sendrecv\nbytes = 1MiB\nn = 2\n"
				   "first = 0\nstride = 9\n";
	struct result a, b;
	run(rail, "nopxn", &a);
	run(th_fmt("%spxn = true\n", rail), "pxn", &b);
	assert_int_equal(a.fct.rows, 1);
	assert_int_equal((unsigned)th_csv_num(&a.fct, 0, "src"), 0);
	assert_int_equal((unsigned)th_csv_num(&a.fct, 0, "dst"), 9);
	assert_int_equal(b.fct.rows, 1);
	assert_int_equal((unsigned)th_csv_num(&b.fct, 0, "src"), 1); /* rail 1 of server 0 */
	assert_int_equal((unsigned)th_csv_num(&b.fct, 0, "dst"), 9);
	/* the flow starts after the NVLink hop */
	double hop = (double)(2 * WS_US + ws_tx_time(1048576, 2400000000000ull)) / 1000;
	assert_true(fabs(th_csv_num(&b.fct, 0, "start_ns") - hop) < 0.001);
	/* same rail: GPU -> leaf -> GPU, shorter than through a spine */
	assert_true(th_csv_num(&b.fct, 0, "ideal_fct_ns") < th_csv_num(&a.fct, 0, "ideal_fct_ns"));
	done(&a);
	done(&b);
}

/*
 * NCCL-like channels: a 16-GPU all-reduce over the 2 servers of a 400 Gb/s
 * rail fabric (8 GPUs, each with its NIC on its rail) runs as 8 rings, one
 * per NIC, each carrying S/8: every flow stays on one rail, every NIC sends
 * and receives the same bytes, every GPU sends 2(n-1)/n x S in all (network
 * and NVLink), and the bus bandwidth on the idle fabric is at least 85 %
 * of one NIC's rate (1203 Gb/s measured for 16 MiB when this was written:
 * the eight NICs side by side).  ring = flat keeps one ring in GPU order,
 * two of whose 16 hops cross rails through a spine.
 */
#define RAIL2 "[topology]\nname = rail\ngpus_per_server = 8\nservers_per_unit = 2\n" \
	      "units = 1\n[cc]\nname = hpcc\n[workload]\nname = collone\n" \
	      "kind = allreduce\nbytes = 16MiB\nn = 16\n"

static void test_channels_use_every_nic(void **state)
{
	(void)state;
	const uint64_t S = 16 << 20;
	struct result r;
	run(RAIL2, "channels", &r);
	uint64_t out[16] = { 0 }, in[16] = { 0 };
	for (unsigned i = 0; i < r.fct.rows; i++) {
		unsigned a = (unsigned)th_csv_num(&r.fct, i, "src");
		unsigned b = (unsigned)th_csv_num(&r.fct, i, "dst");
		assert_true(a < 16 && b < 16);
		assert_int_equal(a % 8, b % 8);   /* on one rail */
		assert_int_not_equal(a / 8, b / 8);
		out[a] += (uint64_t)th_csv_num(&r.fct, i, "bytes");
		in[b] += (uint64_t)th_csv_num(&r.fct, i, "bytes");
	}
	/* 8 channels x 2 hops between servers x 30 steps */
	assert_int_equal(r.fct.rows, 8 * 2 * 30);
	for (unsigned g = 0; g < 16; g++) {
		/* each NIC: one channel's hop out, another's in, 30 x S/8/16 */
		assert_int_equal(out[g], 30 * S / 8 / 16);
		assert_int_equal(in[g], out[g]);
	}
	struct th_csv gpus;
	th_csv_load(&gpus, th_fmt("%s/channels/gpus.csv", th_tmpdir()));
	for (unsigned g = 0; g < 16; g++)
		assert_int_equal((uint64_t)th_csv_num(&gpus, g, "sent_bytes"),
				 2 * 15 * S / 16);
	th_csv_free(&gpus);
	double busbw = th_csv_num(&r.coll, 0, "busbw_gbps");
	print_message("16-GPU all-reduce of 16 MiB on 2 x 8 GPUs at 400 Gb/s: "
		      "busbw %.1f Gb/s\n", busbw);
	assert_true(busbw >= 0.85 * 400);
	done(&r);

	/* the single ring in GPU order: hops 7 -> 8 and 15 -> 0 cross rails */
	run(RAIL2 "ring = flat\n", "flat", &r);
	assert_int_equal(r.fct.rows, 2 * 30);
	for (unsigned i = 0; i < r.fct.rows; i++)
		assert_int_not_equal((unsigned)th_csv_num(&r.fct, i, "src") % 8,
				     (unsigned)th_csv_num(&r.fct, i, "dst") % 8);
	assert_true(th_csv_num(&r.coll, 0, "busbw_gbps") < busbw / 4);
	done(&r);
}

/* Trees per channel: the same 8 channels, each a double binary tree over
 * its ring order; every GPU still sends 2(n-1)/n x S in all. */
static void test_channels_trees(void **state)
{
	(void)state;
	struct result r;
	run(RAIL2 "allreduce = dbtree\n", "chtrees", &r);
	assert_string_equal(th_csv_get(&r.coll, 0, "algorithm"), "dbtree");
	/* per channel and tree: 2 (n - 1) transfers, some between servers */
	uint64_t total = 0;
	struct th_csv gpus;
	th_csv_load(&gpus, th_fmt("%s/chtrees/gpus.csv", th_tmpdir()));
	for (unsigned g = 0; g < 16; g++)
		total += (uint64_t)th_csv_num(&gpus, g, "sent_bytes");
	th_csv_free(&gpus);
	/* 8 channels x 2 trees x 2 x 15 transfers of S / 8 / 2 */
	assert_int_equal(total, 8 * 2 * 2 * 15 * ((16u << 20) / 8 / 2));
	assert_true(r.fct.rows > 0);
	done(&r);
}

static void test_bad_groups(void **state)
{
	(void)state;
	static const struct { const char *ini; const char *msg; } bad[] = {
		{ FAT "[workload]\nname = collone\nn = 4\nfirst = 14\ngpus_per_server = 1\n",
		  "GPU 16 does not exist (the workload has GPUs 0..15)" },
		{ FAT "[workload]\nname = collone\nn = 2\nstride = 16\ngpus = 20\n",
		  "the workload needs 20 GPUs but the fabric has 16 hosts" },
		{ "[topology]\nname = rail\ngpus_per_server = 8\nservers_per_unit = 2\n"
		  "units = 1\n[workload]\nname = collone\ngpus_per_server = 4\n",
		  "gpus_per_server = 4, but the topology has servers of 8 GPUs" },
		{ FAT "[workload]\nname = collone\nkind = sendrecv\nn = 3\n",
		  "a send-recv needs a group of two GPUs" },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(bad); i++) {
		struct ws_sim *sim = NULL;
		struct ws_err err;
		int rc = th_sim_try(bad[i].ini, &sim, &err, PLUGINS);
		if (rc == WS_OK) {
			/* errors in a DAG surface when the workload starts */
			rc = ws_sim_run(sim, WS_TIME_NEVER, &err);
		}
		ws_sim_free(sim);
		if (rc == WS_OK)
			fail_msg("case %zu accepted", i);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].msg);
	}
}

static void test_deterministic(void **state)
{
	(void)state;
	const char *ini = FAT "[workload]\nname = collone\nkind = alltoall\nbytes = 2MiB\n"
			  "n = 16\ngpus_per_server = 2\nalltoall = direct\n";
	struct result a, b;
	run(ini, "det1", &a);
	run(ini, "det2", &b);
	char *x = th_read(th_fmt("%s/det1/fct.csv", th_tmpdir()), NULL);
	char *y = th_read(th_fmt("%s/det2/fct.csv", th_tmpdir()), NULL);
	assert_string_equal(x, y);
	free(x);
	free(y);
	x = th_read(th_fmt("%s/det1/collectives.csv", th_tmpdir()), NULL);
	y = th_read(th_fmt("%s/det2/collectives.csv", th_tmpdir()), NULL);
	assert_string_equal(x, y);
	free(x);
	free(y);
	/* 16 x 15 pairs: those in one server of 2 take the NVLink model */
	assert_int_equal(a.fct.rows, 16 * 15 - 16);
	done(&a);
	done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_allreduce_formula),
		cmocka_unit_test(test_ring_rs_ag),
		cmocka_unit_test(test_chunked_ring),
		cmocka_unit_test(test_trees),
		cmocka_unit_test(test_alltoall_matrix),
		cmocka_unit_test(test_intra_server_model),
		cmocka_unit_test(test_pxn_relay),
		cmocka_unit_test(test_channels_use_every_nic),
		cmocka_unit_test(test_channels_trees),
		cmocka_unit_test(test_bad_groups),
		cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
