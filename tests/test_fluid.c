/* SPDX-License-Identifier: MIT */
/*
 * The fluid accelerator end to end: a lone flow's FCT is the packet-level
 * one (physical tail) or its ideal FCT to the picosecond, on every path length and for sizes that do and do not
 * fill their last packet; two flows into one host finish at the closed form
 * of fair sharing; one-packet flows wait at their NIC as packet level has
 * them wait and take no share; HPCC's declared utilization scales capacities; no
 * packet is simulated; an LLM training iteration runs with the outputs
 * `warpsim compare` reads; every example topology and routing rule (dragonfly
 * minimal and Valiant paths included: Valiant's 7-link ACK paths are longer
 * than a flow record holds, FL_ACK_IN); the kernel's adopt/finish services
 * refuse misuse;
 * the parameter's bad values; determinism.
 */
#include "th.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* k = 4 fat-tree, 100 Gb/s and 1 us links */
static const char *ini(const char *trace, const char *cc, const char *accel,
		       const char *extra)
{
	return th_fmt("[topology]\nname = fat-tree\nk = 4\n[cc]\nname = %s\n"
		      "[accel]\nname = %s\n%s[workload]\nname = flows\nfile = %s\n",
		      cc, accel, extra, trace);
}

static struct ws_sim *run(const char *text)
{
	struct ws_sim *sim = th_sim(text);
	th_run(sim);
	return sim;
}

static struct ws_flow_info info(struct ws_sim *sim, uint32_t id)
{
	struct ws_flow_info f = { WS_INIT_SIZE(struct ws_flow_info) };
	assert_int_equal(ws_flow_get(sim, id, &f), WS_OK);
	assert_true(f.end != WS_TIME_NEVER);
	assert_int_equal(f.acked, f.bytes);
	return f;
}

static void no_packets(struct ws_sim *sim)
{
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.data_packets, 0);
	assert_int_equal(st.acks, 0);
	assert_int_equal(st.flows_done, st.flows);
}

/* One flow alone, host 0 to hosts one hop (same edge), three (same pod)
 * and five links away, sizes of one byte, one MTU and a bit, 2.5 payloads
 * and 20 MB: its FCT is the packet-level run's (the wire bytes at the link
 * rate, a full packet's store-and-forward per further hop, the
 * propagations, the ACK's way back) to 1 ns (10 bytes at 100 Gb/s; the
 * packet run's one-MTU-and-a-bit flow takes 0.56 ns more, the others
 * none), and with physical_tail = false its ideal FCT exactly (one base
 * RTT after the transfer). */
static void test_lone_ideal(void **state)
{
	(void)state;
	const unsigned dst[] = { 1, 3, 12 };
	const uint64_t bytes[] = { 1, 1001, 2500, 20000000 };
	for (unsigned d = 0; d < 3; d++) {
		for (unsigned b = 0; b < 4; b++) {
			th_write("lone.txt", th_fmt("1\n0 %u 3 100 %" PRIu64 " 0\n", dst[d],
						    bytes[b]));
			struct ws_sim *pk = run(ini("lone.txt", "dcqcn", "none", ""));
			struct ws_sim *sim = run(ini("lone.txt", "dcqcn", "fluid", ""));
			struct ws_sim *id = run(ini("lone.txt", "dcqcn", "fluid",
						    "physical_tail = false\n"));
			no_packets(sim);
			struct ws_flow_info p = info(pk, 0), f = info(sim, 0), i = info(id, 0);
			assert_true(f.base_rtt > 0);
			double e = (double)(f.end - f.start) - (double)(p.end - p.start);
			if (fabs(e) > 1000)
				fail_msg("to host %u, %" PRIu64 " bytes: FCT %" PRIu64
					 " ps, packet level %" PRIu64 " ps", dst[d], bytes[b],
					 f.end - f.start, p.end - p.start);
			if (i.end - i.start != i.ideal_fct)
				fail_msg("to host %u, %" PRIu64 " bytes, physical_tail = false: FCT "
					 "%" PRIu64 " ps, ideal %" PRIu64 " ps", dst[d], bytes[b],
					 i.end - i.start, i.ideal_fct);
			ws_sim_free(pk);
			ws_sim_free(sim);
			ws_sim_free(id);
		}
	}
}

/* Two flows into host 4 (one link in common, its last) of 10 and 30 MB,
 * starting together: they share 100 Gb/s until the small one's bytes are
 * out, then the big one runs alone: the big one's transfer takes
 * (w1 + w2) / R, the small one's 2 w1 / R. */
static void test_incast_closed_form(void **state)
{
	(void)state;
	th_write("two.txt", "2\n0 4 3 100 10000000 0\n1 4 3 100 30000000 0\n");
	struct ws_sim *sim = run(ini("two.txt", "dcqcn", "fluid", "physical_tail = false\n"));
	no_packets(sim);
	struct ws_flow_info a = info(sim, 0), b = info(sim, 1);
	double R = 100e9;
	double ta = 2.0 * (double)a.wire_bytes * 8 / R * 1e12;
	double tb = (double)(a.wire_bytes + b.wire_bytes) * 8 / R * 1e12;
	double ga = (double)(a.end - a.start - a.base_rtt);
	double gb = (double)(b.end - b.start - b.base_rtt);
	if (fabs(ga - ta) > 2 || fabs(gb - tb) > 2)
		fail_msg("transfers %.0f and %.0f ps, fair sharing gives %.0f and %.0f", ga,
			 gb, ta, tb);
	ws_sim_free(sim);
}

/* Two 20 MB flows in opposite directions between hosts 0 and 1 (same
 * edge switch): each link carries one flow's data and the other's ACKs.
 * With ack_load (the default) the two share each link as data + share x
 * data = link (the same transfer time for both, longer than alone), and
 * their FCTs come closer to packet level than without, where each runs at
 * line rate; a lone flow (ACKs on links no data uses) is unchanged.
 * ack_solve = coupled (ACK paths in the max-min solve) gives the closed
 * form to rounding; reserve (the default) re-solves while a reservation
 * moves by more than 1e-3 of a link, so its rate is within 1e-3 x link of
 * the fixed point (the last move it leaves, share^3 x link here, 1.3e-4):
 * the transfer within 1.2e-3 of the closed form. */
static void test_ack_load(void **state)
{
	(void)state;
	/* and the same pair again 10 ms later, whose reservations start warm
	 * (ack_warm: at the rates the first pair ended with) */
	th_write("pair.txt", "4\n0 1 3 100 20000000 0\n1 0 3 100 20000000 0\n"
			     "0 1 3 100 20000000 0.01\n1 0 3 100 20000000 0.01\n");
	struct ws_sim *pk = run(ini("pair.txt", "dcqcn", "none", ""));
	struct ws_sim *no = run(ini("pair.txt", "dcqcn", "fluid",
				    "ack_load = false\nphysical_tail = false\n"));
	struct ws_sim *ack = run(ini("pair.txt", "dcqcn", "fluid", "physical_tail = false\n"));
	struct ws_sim *cpl = run(ini("pair.txt", "dcqcn", "fluid",
				     "ack_solve = coupled\nphysical_tail = false\n"));
	no_packets(ack);
	no_packets(cpl);
	struct ws_flow_info p = info(pk, 0), n = info(no, 0), a = info(ack, 0),
			    a1 = info(ack, 1);
	assert_int_equal(a.end - a.start, a1.end - a1.start);
	double fp = (double)(p.end - p.start), fn = (double)(n.end - n.start),
	       fa = (double)(a.end - a.start);
	print_message("pair FCT: %.0f ps packet level, %.0f fluid, %.0f fluid with ACK load "
		      "(%.2f %% and %.2f %%)\n", fp, fn, fa, 100 * (fn - fp) / fp,
		      100 * (fa - fp) / fp);
	assert_true(fa > fn * 1.01);
	assert_true(fabs(fa - fp) < fabs(fn - fp) / 3);
	/* the transfer at link / (1 + share): share from the kernel's ACK load */
	double share = (double)ws_flow_ack_load(ack, 0, 1000000000000ull) /
		       (1e12 * (double)a.wire_bytes / (double)a.bytes);
	double want = (double)a.wire_bytes * 8 * (1 + share) / 100e9 * 1e12;
	double got = (double)(a.end - a.start - a.base_rtt);
	struct ws_flow_info c = info(cpl, 0), c1 = info(cpl, 1);
	double gc = (double)(c.end - c.start - c.base_rtt);
	assert_int_equal(c.end - c.start, c1.end - c1.start);
	print_message("transfer: closed form %.0f ps, reserve %.0f (%.2e), coupled %.0f "
		      "(%.2e)\n", want, got, (got - want) / want, gc, (gc - want) / want);
	if (fabs(got - want) > 1.2e-3 * want || fabs(gc - want) > 1e-6 * want)
		fail_msg("transfer %.0f ps (reserve) and %.0f (coupled), %.0f expected "
			 "(ACK share %.4f)", got, gc, want, share);
	for (uint32_t id = 2; id < 4; id++) {
		struct ws_flow_info w = info(ack, id);
		double gw = (double)(w.end - w.start - w.base_rtt);
		print_message("warm pair, flow %u: transfer %.0f ps (%.2e)\n", id, gw,
			      (gw - want) / want);
		if (fabs(gw - want) > 1.2e-3 * want)
			fail_msg("warm pair, flow %u: transfer %.0f ps, %.0f expected", id, gw,
				 want);
	}
	/* without ACK load, each at line rate: the transfer is wire / link */
	double gn = (double)(n.end - n.start - n.base_rtt);
	assert_true(fabs(gn - (double)n.wire_bytes * 8 / 100e9 * 1e12) < 2);
	ws_sim_free(pk);
	ws_sim_free(no);
	ws_sim_free(ack);
	ws_sim_free(cpl);
	th_write("lone.txt", "1\n0 1 3 100 20000000 0\n");
	const char *modes[] = { "physical_tail = false\n",
				"physical_tail = false\nack_solve = coupled\n" };
	for (int m = 0; m < 2; m++) {
		struct ws_sim *lone = run(ini("lone.txt", "dcqcn", "fluid", modes[m]));
		struct ws_flow_info l = info(lone, 0);
		assert_int_equal(l.end - l.start, l.ideal_fct);
		ws_sim_free(lone);
	}
}

/* HPCC declares it fills eta of a bottleneck: a lone flow at eta x line
 * rate; cc_utilization = false gives the ideal FCT again. */
static void test_cc_utilization(void **state)
{
	(void)state;
	th_write("one.txt", "1\n0 12 3 100 20000000 0\n");
	struct ws_sim *sim = run(ini("one.txt", "hpcc", "fluid", "physical_tail = false\n"));
	struct ws_flow_info f = info(sim, 0);
	double want = (double)f.wire_bytes * 8 / (0.95 * 100e9) * 1e12;
	double got = (double)(f.end - f.start - f.base_rtt);
	if (fabs(got - want) > 2)
		fail_msg("HPCC lone transfer %.0f ps, eta 0.95 gives %.0f", got, want);
	ws_sim_free(sim);
	sim = run(ini("one.txt", "hpcc", "fluid",
		      "cc_utilization = false\nphysical_tail = false\n"));
	f = info(sim, 0);
	assert_int_equal(f.end - f.start, f.ideal_fct);
	ws_sim_free(sim);
	/* DCQCN declares nothing: the whole link */
	sim = run(ini("one.txt", "dcqcn", "fluid", "physical_tail = false\n"));
	f = info(sim, 0);
	assert_int_equal(f.end - f.start, f.ideal_fct);
	ws_sim_free(sim);
}

/* A small LLM iteration: flows chained by the workload's DAG, no packets,
 * every output written, far fewer events than packet level, and the same
 * bytes twice. */
#define LLM                                                                     \
	"[topology]\nname = fat-tree\nk = 4\n[cc]\nname = dcqcn\n"                  \
	"[workload]\nname = llm\nmodel = custom\nlayers = 2\nhidden = 256\n"        \
	"ffn = 1024\nheads = 4\nvocab = 1000\ngpus = 16\ntp = 2\npp = 2\ndp = 4\n" \
	"seq = 128\nmicro_batches = 2\ngpus_per_server = 2\n"

static char *write_run(struct ws_sim *sim, const char *name, const char *file)
{
	char dir[600];
	snprintf(dir, sizeof dir, "%s/%s", th_tmpdir(), name);
	struct ws_err err;
	if (ws_sim_write_outputs(sim, dir, &err))
		fail_msg("%s: %s", name, err.msg);
	char *text = th_read(th_fmt("%s/%s", dir, file), NULL);
	assert_non_null(text);
	return text;
}

/* A SimAI micro-benchmark file: one 16 MiB all-reduce over `gpus` GPUs. */
static void micro_allreduce(const char *name, unsigned gpus)
{
	th_write(name, th_fmt("MICRO model_parallel_NPU_group: 1 ep: 1 pp: 1 vpp: 1 ga: 1 "
			      "all_gpus: %u checkpoints: 0 checkpoint_initiates: 0\n1\n"
			      "dp_bucket -1 0 NONE 0 1 NONE 0 1 ALLREDUCE 16777216 1\n",
			      gpus));
}

/* The first iteration's duration of the run written to `name` (ps). */
static double iteration_ps(const char *name)
{
	struct th_csv c;
	th_csv_load(&c, th_fmt("%s/%s/iterations.csv", th_tmpdir(), name));
	double d = (double)th_csv_ps(&c, 0, "duration_ns");
	th_csv_free(&c);
	return d;
}

/* Two runs of one configuration wrote the same fct.csv bytes. */
static void same_fcts(struct ws_sim *a, const char *name_a, struct ws_sim *b,
		      const char *name_b)
{
	char *fa = write_run(a, name_a, "fct.csv"), *fb = write_run(b, name_b, "fct.csv");
	assert_string_equal(fa, fb);
	free(fa);
	free(fb);
}

static void test_llm_and_determinism(void **state)
{
	(void)state;
	struct ws_sim *pk = run(LLM "[accel]\nname = none\n");
	struct ws_sim *a = run(LLM "[accel]\nname = fluid\n");
	struct ws_sim *b = run(LLM "[accel]\nname = fluid\n");
	no_packets(a);
	struct ws_sim_stats sp = { WS_INIT_SIZE(struct ws_sim_stats) },
			    sa = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(pk, &sp);
	ws_sim_get_stats(a, &sa);
	assert_int_equal(sa.flows, sp.flows);
	assert_true(sa.flows > 10);
	print_message("events: %" PRIu64 " packet level, %" PRIu64 " fluid\n", sp.events,
		      sa.events);
	assert_true(sa.events * 20 < sp.events);
	char *fa = write_run(a, "fluid-a", "fct.csv"), *fb = write_run(b, "fluid-b", "fct.csv");
	assert_string_equal(fa, fb);
	char *ia = write_run(a, "fluid-a", "iterations.csv");
	char *ib = write_run(b, "fluid-b", "iterations.csv");
	assert_string_equal(ia, ib);
	char *ip = write_run(pk, "packet", "iterations.csv");
	/* the iteration takes time at both granularities */
	double da = iteration_ps("fluid-a"), dp = iteration_ps("packet");
	print_message("iteration: %.0f ps packet level, %.0f ps fluid\n", dp, da);
	assert_true(da > 0.5 * dp && da < 1.5 * dp);
	free(fa);
	free(fb);
	free(ia);
	free(ib);
	free(ip);
	ws_sim_free(pk);
	ws_sim_free(a);
	ws_sim_free(b);
}

/* A double-binary-tree all-reduce in pipelined chunks over a rail fabric
 * with NCCL channels (one component of contended flows re-solved at
 * almost every flow start and finish): local solves give the component
 * solve's FCTs (to 1e-9; here to the picosecond) while solving far fewer
 * flows, and twice the same bytes. */
#define RAIL_AR                                                                   \
	"[topology]\nname = rail\ntiers = 2\ngpus_per_server = 8\n"             \
	"servers_per_unit = 4\nunits = 2\nnic_rate = 100Gbps\n"                   \
	"link_rate = 100Gbps\n[cc]\nname = dcqcn\n"                               \
	"[workload]\nname = simai\nfile = ar.txt\nallreduce = dbtree\n"          \
	"chunk = 1MB\n[accel]\nname = fluid\n"

/* The counter `key` of the accelerator in the run's summary.json. */
static uint64_t counter(struct ws_sim *sim, const char *name, const char *key)
{
	char *js = write_run(sim, name, "summary.json");
	const char *k = th_fmt("\"%s\": ", key);
	const char *p = strstr(js, k);
	if (!p)
		fail_msg("%s: no counter %s", name, key);
	uint64_t n = strtoull(p + strlen(k), NULL, 10);
	free(js);
	return n;
}

static uint64_t solved(struct ws_sim *sim, const char *name)
{
	return counter(sim, name, "flows_solved");
}

static void test_local_solve(void **state)
{
	(void)state;
	micro_allreduce("ar.txt", 64);
	struct ws_sim *comp = run(RAIL_AR "local_solve = false\nack_load = false\n");
	struct ws_sim *a = run(RAIL_AR "ack_load = false\n");
	struct ws_sim *b = run(RAIL_AR "local_solve = true\nack_load = false\n");
	no_packets(a);
	assert_true(ws_flow_count(a) > 500);
	th_check_fcts(comp, a, 1e-9, "local solves");
	uint64_t sc = solved(comp, "comp"), sa = solved(a, "local-a");
	print_message("flows solved: %" PRIu64 " component, %" PRIu64 " local\n", sc, sa);
	assert_true(sa * 10 < sc);
	char *fc = write_run(comp, "comp", "fct.csv"), *fa = write_run(a, "local-a", "fct.csv");
	char *fb = write_run(b, "local-b", "fct.csv");
	assert_string_equal(fa, fb);
	assert_string_equal(fa, fc);
	free(fc);
	free(fa);
	free(fb);
	ws_sim_free(comp);
	ws_sim_free(a);
	ws_sim_free(b);
}

/* ACK load by reservations (the default) on the same all-reduce, whose
 * up- and down-tree flows load each other's links with their ACKs: local
 * and component solves agree within the reservation's tolerance (each
 * re-solves until no link's reservation moved by more than 1e-3 of it;
 * 2e-3 of an FCT), the run is byte-identical twice, and the counters
 * show reservations moved and every instant settled. */
static void test_ack_reserve_tree(void **state)
{
	(void)state;
	micro_allreduce("ar.txt", 64);
	struct ws_sim *comp = run(RAIL_AR "local_solve = false\n");
	struct ws_sim *a = run(RAIL_AR);
	struct ws_sim *b = run(RAIL_AR);
	th_check_fcts(comp, a, 2e-3, "reservations, local against component solves");
	same_fcts(a, "res-a", b, "res-b");
	char *js = write_run(a, "res-a", "summary.json");
	assert_non_null(strstr(js, "\"ack_unsettled\": 0"));
	assert_null(strstr(js, "\"ack_capacity_changes\": 0,"));
	free(js);
	ws_sim_free(comp);
	ws_sim_free(a);
	ws_sim_free(b);
}

/* ACK reservations' warm start (ack_warm, the default): a ring all-reduce's
 * next step between the same two NICs starts its reservation at the rate
 * the last one ended with.  Against a cold start (ack_warm = false) every
 * FCT and the iteration agree within the reservation's tolerance (2e-3 of
 * an FCT, as local against component solves above), every instant
 * settles, the run is the same bytes twice, and the solver re-fills far
 * fewer flows (each ring step solved about once instead of three times). */
#define RAIL_RING                                                                 \
	"[topology]\nname = rail\ntiers = 2\ngpus_per_server = 8\n"             \
	"servers_per_unit = 2\nunits = 1\nnic_rate = 100Gbps\n"                   \
	"link_rate = 100Gbps\n[cc]\nname = dcqcn\n"                               \
	"[workload]\nname = simai\nfile = ring.txt\nallreduce = ring\n"          \
	"[accel]\nname = fluid\n"

static void test_ack_warm(void **state)
{
	(void)state;
	micro_allreduce("ring.txt", 16);
	struct ws_sim *cold = run(RAIL_RING "ack_warm = false\n");
	struct ws_sim *a = run(RAIL_RING);
	struct ws_sim *b = run(RAIL_RING "ack_warm = true\n");
	no_packets(a);
	assert_true(ws_flow_count(a) > 100);
	th_check_fcts(cold, a, 2e-3, "warm against cold ACK reservations");
	same_fcts(a, "warm-a", b, "warm-b");
	uint64_t sc = solved(cold, "cold"), sa = solved(a, "warm-a");
	print_message("flows solved: %" PRIu64 " cold, %" PRIu64 " warm (%u flows)\n", sc, sa,
		      ws_flow_count(a));
	assert_true(sa * 3 < sc * 2);
	char *js = write_run(a, "warm-a", "summary.json");
	assert_non_null(strstr(js, "\"ack_unsettled\": 0"));
	free(js);
	double dc = iteration_ps("cold"), da = iteration_ps("warm-a");
	print_message("iteration: %.0f ps cold, %.0f ps warm\n", dc, da);
	assert_true(fabs(da - dc) < 1e-3 * dc);
	ws_sim_free(cold);
	ws_sim_free(a);
	ws_sim_free(b);
}

/* Every topology and routing rule of the examples: fat-tree, Clos, rail,
 * dragonfly (UGAL, minimal and Valiant paths), a topology file routed by
 * tables.  Every flow completes without packets, never faster than its
 * wire bytes at its path's slowest link (the path fluid follows is the one
 * the kernel's path rate was computed on). */
static void test_every_topology(void **state)
{
	(void)state;
	static const struct { const char *ini, *set; } ex[] = {
		{ "quickstart.ini", NULL }, { "clos.ini", NULL }, { "rail.ini", NULL },
		{ "dragonfly.ini", NULL }, { "dragonfly.ini", "routing.mode=minimal" },
		{ "dragonfly.ini", "routing.mode=valiant" }, { "ns3-fat.ini", NULL },
	};
	for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
		struct ws_cfg *cfg;
		struct ws_sim *sim;
		struct ws_err err;
		struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
		if (ws_cfg_load(&cfg, th_fmt("%s/examples/%s", TH_SRCDIR, ex[i].ini), &err) ||
		    ws_cfg_set(cfg, "accel.name=fluid", &err) ||
		    (ex[i].set && ws_cfg_set(cfg, ex[i].set, &err)) ||
		    ws_sim_new(&sim, cfg, &opts, &err))
			fail_msg("%s: %s", ex[i].ini, err.msg);
		th_run(sim);
		no_packets(sim);
		uint32_t n = ws_flow_count(sim);
		assert_true(n > 0);
		for (uint32_t f = 0; f < n; f++) {
			struct ws_flow_info fi = info(sim, f);
			ws_time tx = ws_tx_time(fi.wire_bytes, fi.path_rate);
			if (fi.end - fi.start < tx)
				fail_msg("%s %s: flow %u FCT %" PRIu64 " ps below its transfer at "
					 "the path rate, %" PRIu64, ex[i].ini,
					 ex[i].set ? ex[i].set : "", f, fi.end - fi.start, tx);
		}
		ws_sim_free(sim);
		ws_cfg_free(cfg);
	}
}

/* The kernel services refuse misuse with a message. */
static void test_adopt_errors(void **state)
{
	(void)state;
	th_write("one.txt", "1\n0 12 3 100 20000 0\n");
	struct ws_sim *sim = run(ini("one.txt", "dcqcn", "none", ""));
	struct ws_err err;
	assert_int_equal(ws_flow_adopt(sim, 0, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "on_flow_start"));
	assert_int_equal(ws_flow_finish(sim, 0, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "not adopted"));
	assert_int_equal(ws_flow_finish(sim, 7, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "no flow 7"));
	ws_sim_free(sim);
	sim = run(ini("one.txt", "dcqcn", "fluid", ""));
	assert_int_equal(ws_flow_finish(sim, 0, &err), WS_EINVAL);
	assert_non_null(strstr(err.msg, "already complete"));
	ws_sim_free(sim);
}

/* A 20 MB flow from host 0, seven flows of one packet (500 and 1,000
 * bytes) from host 0 to six other hosts and a 1,001-byte flow (two
 * packets), all at once.  At packet level the NIC sends each one-packet
 * flow after those begun before it and after one packet of the 20 MB flow
 * (its queue pair's turn): fluid's one-packet flows (the default) take
 * that wait and then their lone FCT, within 1 % of packet level each and
 * on average within a quarter of the error of `one_packet = false` (a rate
 * of one ninth of the NIC each, the packet shared); the first one's FCT is
 * its lone FCT plus one full packet at 100 Gb/s exactly.  They take no
 * share of any link: the 20 MB flow's FCT is the same as without them. */
static void test_one_packet(void **state)
{
	(void)state;
	const char *t = "9\n0 12 3 100 20000000 0\n0 1 3 100 500 0\n0 2 3 100 500 0\n"
			"0 3 3 100 500 0\n0 12 3 100 500 0\n0 13 3 100 500 0\n"
			"0 14 3 100 500 0\n0 5 3 100 1000 0\n0 6 3 100 1001 0\n";
	th_write("op.txt", t);
	th_write("op-big.txt", "2\n0 12 3 100 20000000 0\n0 6 3 100 1001 0\n");
	th_write("op-lone.txt", "1\n0 1 3 100 500 0\n");
	struct ws_sim *pk = run(ini("op.txt", "dcqcn", "none", ""));
	struct ws_sim *op = run(ini("op.txt", "dcqcn", "fluid", ""));
	struct ws_sim *rt = run(ini("op.txt", "dcqcn", "fluid", "one_packet = false\n"));
	struct ws_sim *big = run(ini("op-big.txt", "dcqcn", "fluid", ""));
	struct ws_sim *lone = run(ini("op-lone.txt", "dcqcn", "fluid", ""));
	no_packets(op);
	assert_int_equal(counter(op, "op", "one_packet_flows"), 7);
	assert_int_equal(counter(op, "op", "flows_adopted"), 9);
	assert_int_equal(counter(rt, "op-rate", "one_packet_flows"), 0);
	double e_op = 0, e_rt = 0;
	for (uint32_t id = 1; id <= 7; id++) {
		struct ws_flow_info p = info(pk, id), o = info(op, id), r = info(rt, id);
		double fp = (double)(p.end - p.start);
		double eo = fabs((double)(o.end - o.start) - fp) / fp;
		e_op += eo / 7;
		e_rt += fabs((double)(r.end - r.start) - fp) / fp / 7;
		if (eo > 0.01)
			fail_msg("one-packet flow %u: FCT %" PRIu64 " ps, packet level %" PRIu64
				 " ps", (unsigned)id, o.end - o.start, p.end - p.start);
	}
	print_message("one-packet flows' mean FCT error: %.3f %%, as rates %.3f %%\n",
		      100 * e_op, 100 * e_rt);
	assert_true(e_op < e_rt / 4);
	struct ws_flow_info o1 = info(op, 1), l1 = info(lone, 0);
	assert_int_equal(o1.end - o1.start, l1.end - l1.start + ws_tx_time(1000 + (o1.wire_bytes - 500),
									     100000000000ull));
	assert_int_equal(info(op, 0).end, info(big, 0).end);
	ws_sim_free(pk);
	ws_sim_free(op);
	ws_sim_free(rt);
	ws_sim_free(big);
	ws_sim_free(lone);
}

static void test_bad_param(void **state)
{
	(void)state;
	th_write("one.txt", "1\n0 12 3 100 20000 0\n");
	struct ws_sim *sim = NULL;
	struct ws_err err;
	assert_int_equal(th_sim_try(ini("one.txt", "dcqcn", "fluid", "cc_utilization = maybe\n"),
				    &sim, &err, NULL), WS_EINVAL);
	assert_string_equal(err.key, "accel.cc_utilization");
	assert_int_equal(th_sim_try(ini("one.txt", "dcqcn", "fluid", "utilisation = 1\n"),
				    &sim, &err, NULL), WS_EINVAL);
	assert_non_null(strstr(err.msg, "cc_utilization"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lone_ideal),
		cmocka_unit_test(test_incast_closed_form),
		cmocka_unit_test(test_cc_utilization),
		cmocka_unit_test(test_ack_load),
		cmocka_unit_test(test_llm_and_determinism),
		cmocka_unit_test(test_every_topology),
		cmocka_unit_test(test_local_solve),
		cmocka_unit_test(test_ack_reserve_tree),
		cmocka_unit_test(test_ack_warm),
		cmocka_unit_test(test_one_packet),
		cmocka_unit_test(test_adopt_errors),
		cmocka_unit_test(test_bad_param),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
