/* SPDX-License-Identifier: MIT */
/*
 * Physics of small scenarios, checked against what the network must do:
 *   - a lone flow's FCT equals store-and-forward arithmetic computed here
 *     independently (every packet and every ACK through every hop), to the
 *     picosecond, for several sizes and path lengths; its ideal FCT column
 *     follows the reference simulator's formula;
 *   - an 8-to-1 incast with PFC loses nothing and completes, with PFC doing
 *     the work (pauses sent) when the CC cannot react (cc = none);
 *   - with PFC off and a tiny buffer, packets are dropped and go-back-N
 *     still completes every flow with every byte acknowledged;
 *   - ECN marks only ECN-capable traffic.
 * The scenarios are those of the CC tests (tests/ccscen.h); what each CC
 * must do in them is in its own test program.
 */
#include "ccscen.h"

#include <stdlib.h>
#include <string.h>

static const char *trace(const char *text)
{
	th_write("trace.txt", text);
	return "trace.txt";
}

/*
 * Store-and-forward on `hops` equal links: F(j, h) is when packet j finishes
 * serializing on link h; it starts when it has fully arrived from link h-1
 * and link h has finished packet j-1.  The receiver ACKs every packet; ACKs
 * go back the same way.  Returns the time the last ACK reaches the sender.
 */
static ws_time store_and_forward(uint64_t bytes, unsigned hops, uint64_t rate,
				 ws_time delay)
{
	const uint64_t payload = 1000, header = 52, ack = 60;
	uint64_t n = (bytes + payload - 1) / payload;
	ws_time *data = calloc(hops + 1, sizeof *data); /* F(j-1, h) */
	ws_time *acks = calloc(hops + 1, sizeof *acks);
	ws_time last_ack = 0;
	for (uint64_t j = 0; j < n; j++) {
		uint64_t pay = j + 1 < n ? payload : bytes - payload * (n - 1);
		ws_time ser = ws_tx_time(pay + header, rate);
		/* link 0 is the sender's NIC: back to back at line rate */
		data[0] += ser;
		for (unsigned h = 1; h < hops; h++) {
			ws_time ready = data[h - 1] + delay;
			data[h] = (ready > data[h] ? ready : data[h]) + ser;
		}
		ws_time arrive = data[hops - 1] + delay;
		ws_time aser = ws_tx_time(ack, rate);
		acks[0] = (arrive > acks[0] ? arrive : acks[0]) + aser;
		for (unsigned h = 1; h < hops; h++) {
			ws_time ready = acks[h - 1] + delay;
			acks[h] = (ready > acks[h] ? ready : acks[h]) + aser;
		}
		last_ack = acks[hops - 1] + delay;
	}
	free(data);
	free(acks);
	return last_ack;
}

static void test_lone_flow_fct_formula(void **state)
{
	(void)state;
	const uint64_t sizes[] = { 1, 999, 1000, 1001, 1500, 123457, 1000000 };
	/* host 0 to: its edge neighbour, its pod, another pod */
	const struct {
		uint32_t dst;
		unsigned links;
	} paths[] = { { 1, 2 }, { 2, 4 }, { 15, 6 } };
	for (size_t s = 0; s < WS_ARRAY_LEN(sizes); s++) {
		for (size_t p = 0; p < WS_ARRAY_LEN(paths); p++) {
			struct ws_sim *sim = ccs_sim(
				"none", NULL,
				th_fmt("1\n0 %u 3 100 %llu 0.000001\n", paths[p].dst,
				       (unsigned long long)sizes[s]));
			th_run(sim);
			struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
			assert_int_equal(ws_flow_get(sim, 0, &fi), WS_OK);
			assert_int_not_equal(fi.end, WS_TIME_NEVER);
			assert_int_equal(fi.start, WS_US);
			ws_time expect = store_and_forward(sizes[s], paths[p].links,
							   100000000000ull, WS_US);
			assert_int_equal(fi.end - fi.start, expect);
			assert_int_equal(fi.hops, paths[p].links);
			/* the reference's ideal FCT: base RTT (2 x delay + payload
			 * serialization per hop) + wire bytes / bottleneck rate */
			uint64_t pkts = (sizes[s] + 999) / 1000;
			ws_time ideal = 2 * paths[p].links * WS_US +
					paths[p].links * ws_tx_time(1000, 100000000000ull) +
					ws_tx_time(sizes[s] + pkts * 52, 100000000000ull);
			assert_int_equal(fi.ideal_fct, ideal);
			assert_int_equal(fi.retx, 0);
			assert_int_equal(fi.acked, sizes[s]);
			ws_sim_free(sim);
		}
	}
}

static void test_lone_flow_at_other_rates(void **state)
{
	(void)state;
	/* 400 Gb/s links, 500 ns: the same arithmetic */
	trace("1\n3 12 3 100 250000 0\n");
	struct ws_sim *sim = th_sim("[topology]\nname = fat-tree\nk = 4\n"
				    "link_rate = 400Gbps\nlink_delay = 500ns\n"
				    "[cc]\nname = none\n"
				    "[workload]\nname = flows\nfile = trace.txt\n");
	th_run(sim);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, 0, &fi);
	assert_int_equal(fi.end - fi.start,
			 store_and_forward(250000, 6, 400000000000ull, 500 * WS_NS));
	ws_sim_free(sim);
}

/* 1 MB from each of eight hosts of three pods to host 0 */
#define INCAST8 ccs_incast_flows(1000000)

static void test_incast_pfc_no_cc(void **state)
{
	(void)state;
	/* a 1 MiB buffer and no CC: only PFC keeps this lossless */
	struct ccs_incast r;
	ccs_incast_run(&r, "none", "[switch]\nbuffer = 1MiB\n", 1000000, "1 MiB buffer");
	ccs_incast_assert_lossless(&r);
	assert_true(r.stats.pfc_pauses > 0);
}

static void test_drop_tail_go_back_n(void **state)
{
	(void)state;
	struct ws_sim *sim = ccs_sim("none", "[switch]\npfc = false\nbuffer = 300KB\n",
				     INCAST8);
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_true(st.drops > 0);
	assert_true(st.nacks > 0);
	assert_true(st.retx_bytes > 0);
	assert_int_equal(st.pfc_pauses, 0);
	assert_int_equal(st.flows_done, 8);
	for (uint32_t i = 0; i < 8; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(sim, i, &fi);
		assert_int_equal(fi.acked, 1000000);
		assert_true(fi.sent >= fi.bytes);
		assert_int_equal(fi.sent - fi.retx, fi.bytes);
	}
	ws_sim_free(sim);
}

static void test_drop_tail_timeout_recovers_tail_loss(void **state)
{
	(void)state;
	/* 4-to-1 of single-packet flows into a buffer that holds one packet
	 * per ingress: a lost last packet has no successor to trigger a NACK,
	 * only the RTO can recover it */
	const char flows[] = "4\n4 0 3 100 1000 0\n8 0 3 100 1000 0\n"
			     "12 0 3 100 1000 0\n5 0 3 100 1000 0\n";
	struct ws_sim *sim = ccs_sim("none",
				     "[switch]\npfc = false\nbuffer = 10KB\n"
				     "pfc_reserve = 1100B\n[nic]\nrto = 100us\n",
				     flows);
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_true(st.drops > 0);
	assert_true(st.timeouts > 0);
	assert_int_equal(st.flows_done, 4);
	ws_sim_free(sim);
}

static void test_retry_limit_aborts_hopeless_flows(void **state)
{
	(void)state;
	/* a threshold below one packet: every data packet is dropped, the
	 * flow can never progress; after retry_limit timeouts it is aborted
	 * and the run ends instead of retrying forever */
	struct ws_sim *sim = ccs_sim("none",
				     "[switch]\npfc = false\nbuffer = 2KB\n"
				     "pfc_reserve = 0B\n[nic]\nrto = 100us\n"
				     "retry_limit = 3\n",
				     "1\n4 0 3 100 5000 0\n");
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows_done, 0);
	assert_int_equal(st.aborted, 1);
	assert_int_equal(st.timeouts, 4);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, 0, &fi);
	assert_true(fi.aborted);
	assert_int_equal(fi.acked, 0);
	assert_int_equal(fi.end, WS_TIME_NEVER);
	/* the fourth timeout, 100 us apart, ends it */
	assert_true(st.now >= 4 * 100 * WS_US && st.now < 5 * 100 * WS_US);
	ws_sim_free(sim);
}

static void test_ecn_marks_only_ect(void **state)
{
	(void)state;
	struct ws_sim *sim = ccs_sim("none", NULL, INCAST8);
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.ecn_marks, 0); /* cc none does not ask for ECN */
	ws_sim_free(sim);
	sim = ccs_sim("dcqcn", "[switch]\necn = false\n", INCAST8);
	th_run(sim);
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.ecn_marks, 0); /* marking switched off */
	ws_sim_free(sim);
}

static void test_window_limits_inflight(void **state)
{
	(void)state;
	/* a window of the path's BDP: a lone flow still reaches the formula's
	 * FCT within 2 % (the window covers the pipe) */
	struct ws_sim *sim = ccs_sim("none", "[nic]\nwindow = path-bdp\n",
				     "1\n0 15 3 100 1000000 0\n");
	th_run(sim);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, 0, &fi);
	ws_time expect = store_and_forward(1000000, 6, 100000000000ull, WS_US);
	assert_true(fi.window > 0);
	assert_true(fi.end - fi.start >= expect);
	assert_true((double)(fi.end - fi.start) < 1.02 * (double)expect);
	ws_sim_free(sim);
	/* alone at line rate the window does not bind (the pipe holds 148 KB
	 * of payload); eight senders into one port do: each flow's bytes in
	 * flight reach its window and never pass it by more than the packet
	 * that crossed it; sampled every 100 ns until the first finishes */
	sim = ccs_sim("none", "[nic]\nwindow = path-bdp\n", ccs_incast_flows(2000000));
	uint64_t most[CCS_INCAST_N] = { 0 }, window[CCS_INCAST_N] = { 0 };
	for (ws_time t = 100 * WS_NS;; t += 100 * WS_NS) {
		th_run_until(sim, t);
		bool done = false;
		for (uint32_t i = 0; i < CCS_INCAST_N; i++) {
			ws_flow_get(sim, i, &fi);
			done |= fi.end != WS_TIME_NEVER;
			uint64_t inflight = fi.sent - fi.acked;
			assert_true(inflight < fi.window + CCS_PAYLOAD);
			if (inflight > most[i])
				most[i] = inflight;
			window[i] = fi.window;
		}
		if (done)
			break;
	}
	for (uint32_t i = 0; i < CCS_INCAST_N; i++)
		assert_true(most[i] >= window[i]);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.drops, 0);
	ws_sim_free(sim);
}

/* Run the 8-to-1 incast under DCQCN with `extra` ini text; its final stats. */
static void incast_stats(const char *extra, struct ws_sim_stats *st)
{
	struct ws_sim *sim = ccs_sim("dcqcn", extra, INCAST8);
	th_run(sim);
	ws_sim_get_stats(sim, st);
	ws_sim_free(sim);
}

static void test_ecn_map(void **state)
{
	(void)state;
	/* the same thresholds as the defaults give the same run; an entry for
	 * a rate no port has changes nothing; thresholds above any queue at
	 * this rate mark nothing; a malformed map names its line */
	struct ws_sim_stats base = { WS_INIT_SIZE(struct ws_sim_stats) }, same = { WS_INIT_SIZE(struct ws_sim_stats) }, other = { WS_INIT_SIZE(struct ws_sim_stats) }, high = { WS_INIT_SIZE(struct ws_sim_stats) };
	incast_stats(NULL, &base);
	incast_stats("[switch]\necn_map = 100Gbps 400KB 1600KB 0.2; 400Gbps 1MB 2MB 1\n", &same);
	assert_int_equal(same.ecn_marks, base.ecn_marks);
	assert_int_equal(same.now, base.now);
	incast_stats("[switch]\necn_map = 25Gbps 1B 2B 1\n", &other);
	assert_int_equal(other.ecn_marks, base.ecn_marks);
	assert_int_equal(other.now, base.now);
	incast_stats("[switch]\necn_map = 100Gbps 1GB 2GB 1\n", &high);
	assert_true(base.ecn_marks > 1000);
	assert_int_equal(high.ecn_marks, 0);
	trace(INCAST8);
	struct ws_sim *sim;
	struct ws_err err;
	assert_int_equal(th_sim_try("[topology]\nname = fat-tree\nk = 4\n"
				    "[switch]\necn_map = 100Gbps 40KB\n"
				    "[workload]\nname = flows\nfile = trace.txt\n",
				    &sim, &err, NULL), WS_EINVAL);
	assert_int_equal(err.line, 5);
	assert_non_null(strstr(err.msg, "expected 'RATE KMIN KMAX PMAX'"));
}

static void test_traces(void **state)
{
	(void)state;
	struct ws_sim *sim = ccs_sim("dcqcn",
				     "[output]\ntrace_rates = 10us\ntrace_queues = 2us\n",
				     INCAST8);
	struct ws_err err;
	char dir[512];
	snprintf(dir, sizeof dir, "%s/traced", th_tmpdir());
	assert_int_equal(ws_sim_set_output_dir(sim, dir, &err), WS_OK);
	th_run(sim);
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(ws_sim_write_outputs(sim, NULL, &err), WS_OK);
	char path[600];
	/* rates: every 10 us, each active flow, rate within (0, line rate],
	 * acknowledged bytes never decreasing */
	snprintf(path, sizeof path, "%s/rates.csv", dir);
	char *r = th_read(path, NULL);
	assert_non_null(r);
	assert_non_null(strstr(r, "time_ns,flow_id,rate_bps,window_bytes,acked_bytes,inflight_bytes\n"));
	uint64_t last_acked[8] = { 0 }, rows = 0, cut = 0;
	double last_t = 0;
	for (char *line = strtok(strchr(r, '\n') + 1, "\n"); line; line = strtok(NULL, "\n")) {
		double t;
		unsigned id;
		unsigned long long rate, win, acked, infl;
		assert_int_equal(sscanf(line, "%lf,%u,%llu,%llu,%llu,%llu", &t, &id, &rate,
					&win, &acked, &infl), 6);
		assert_true(id < 8);
		assert_true(rate > 0 && rate <= 100000000000ull);
		cut += rate < 100000000000ull;
		assert_true(acked >= last_acked[id] && acked < 1000000);
		last_acked[id] = acked;
		assert_true(t >= last_t);
		last_t = t;
		assert_int_equal((uint64_t)t % 10000, 0);
		rows++;
	}
	assert_true(rows > 8);
	assert_true(cut > 0); /* DCQCN cut the rates under incast */
	assert_true(last_t * 1000 <= (double)st.now);
	free(r);
	/* queues: only switch ports, the bottleneck among them, and every queue
	 * back to zero at its last row */
	snprintf(path, sizeof path, "%s/queues.csv", dir);
	char *q = th_read(path, NULL);
	assert_non_null(q);
	uint64_t peak = 0, last[20 * 4] = { 0 }; /* 20 switches of 4 ports */
	for (char *line = strtok(strchr(q, '\n') + 1, "\n"); line; line = strtok(NULL, "\n")) {
		double t;
		unsigned node, port, paused;
		unsigned long long bytes;
		assert_int_equal(sscanf(line, "%lf,%u,%u,%llu,%u", &t, &node, &port, &bytes,
					&paused), 5);
		assert_true(node >= 16 && node < 36); /* switches of a k=4 fat-tree */
		assert_true(port < 4);
		last[(node - 16) * 4 + port] = bytes;
		if (bytes > peak)
			peak = bytes;
	}
	assert_true(peak > 100000);
	for (size_t i = 0; i < WS_ARRAY_LEN(last); i++)
		assert_int_equal(last[i], 0);
	free(q);
	ws_sim_free(sim);
}

/*
 * [sim] serialization = ns: a lone 10 KB flow across the reference's own
 * one-switch topology (tests/data/hpcc-topology.txt: 100 Gb/s, 1 us links)
 * completes exactly when the reference says, 4932 ns with DCQCN (1052-byte
 * packets take 84 ns, the 60-byte ACK 4 ns) and 4971 ns with HPCC (1094 and
 * 92 bytes with INT: 87 and 7 ns); 9 packets behind the first, two store
 * and forwards, the ACK back over two links:
 *     9 x 84 + 2 x (84 + 1000) + 2 x (4 + 1000) = 4932.
 * With exact serialization the same flow takes 4935.36 and 4977.44 ns.
 */
static ws_time lone_reference_fct(const char *cc, const char *ser)
{
	th_write("lone.txt", "1\n1 2 3 100 10000 0\n");
	struct ws_sim *sim = th_sim(th_fmt("[sim]\nserialization = %s\n"
					   "[topology]\nname = file\n"
					   "file = %s/tests/data/hpcc-topology.txt\n"
					   "[cc]\nname = %s\n"
					   "[workload]\nname = flows\nfile = lone.txt\n",
					   ser, TH_SRCDIR, cc));
	th_run(sim);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	assert_int_equal(ws_flow_get(sim, 0, &fi), WS_OK);
	ws_sim_free(sim);
	assert_int_equal(fi.start, 0);
	return fi.end - fi.start;
}

static void test_lone_flow_reference_ns(void **state)
{
	(void)state;
	assert_int_equal(lone_reference_fct("dcqcn", "ns"), 4932 * WS_NS);
	assert_int_equal(lone_reference_fct("hpcc", "ns"), 4971 * WS_NS);
	assert_int_equal(lone_reference_fct("dcqcn", "exact"), 4935360);
	assert_int_equal(lone_reference_fct("hpcc", "exact"), 4977440);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lone_flow_fct_formula),
		cmocka_unit_test(test_lone_flow_at_other_rates),
		cmocka_unit_test(test_lone_flow_reference_ns),
		cmocka_unit_test(test_incast_pfc_no_cc),
		cmocka_unit_test(test_drop_tail_go_back_n),
		cmocka_unit_test(test_drop_tail_timeout_recovers_tail_loss),
		cmocka_unit_test(test_retry_limit_aborts_hopeless_flows),
		cmocka_unit_test(test_ecn_marks_only_ect),
		cmocka_unit_test(test_window_limits_inflight),
		cmocka_unit_test(test_traces),
		cmocka_unit_test(test_ecn_map),
	};
	return cmocka_run_group_tests_name("physics", tests, NULL, NULL);
}
