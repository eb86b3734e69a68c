/* SPDX-License-Identifier: MIT */
/*
 * The event logs ([output] pfc and packets, kernel/pkttrace.c):
 *   - an 8-to-1 incast with PFC and no CC: pfc.csv has every PAUSE and
 *     RESUME, sent by switch ports and received by their peers, alternating
 *     per (port, priority), with counts equal to summary.json's and
 *     ports.csv's counters; host 0 (the receiver) is never paused;
 *   - packets.csv: per flow, data packets dequeued once per link, enqueued
 *     once per switch and received once per link of the path; the last
 *     packet arrives at its destination flagged L; times never go back;
 *   - filters: a filtered log is exactly the rows of the full log that pass
 *     the filter;
 *   - log_max_bytes cuts the file at a whole row, the run goes on, and
 *     summary.json says so;
 *   - tracing changes nothing else: same events, same fct.csv, and the same
 *     bytes twice; bad filter values are refused with the key and line.
 */
#include "th.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INCAST \
	"8\n4 0 3 100 200000 0\n5 0 3 100 200000 0\n6 0 3 100 200000 0\n" \
	"7 0 3 100 200000 0\n8 0 3 100 200000 0\n9 0 3 100 200000 0\n"    \
	"10 0 3 100 200000 0\n11 0 3 100 200000 0\n"

/* Flows of 2, 4 and 6 links, one at a time apart enough not to meet. */
#define PATHS "3\n0 1 3 100 30000 0\n0 2 3 100 20500 0.0001\n5 12 3 100 9999 0.0002\n"

static struct ws_sim *sim_of(const char *flows, const char *output)
{
	th_write("flows.txt", flows);
	return th_sim(th_fmt("[topology]\nname = fat-tree\nk = 4\n"
			     "link_rate = 100Gbps\nlink_delay = 1us\n"
			     "[switch]\nbuffer = 300KB\n"
			     "[cc]\nname = none\n"
			     "[workload]\nname = flows\nfile = flows.txt\n"
			     "[output]\nports = true\n%s\n", output));
}

/* Run `sim` with its outputs in <tmp>/<name>; returns the directory. */
static const char *run_into(struct ws_sim *sim, const char *name)
{
	static char dir[4][512];
	static unsigned k;
	char *d = dir[k++ % 4];
	snprintf(d, sizeof dir[0], "%s/%s", th_tmpdir(), name);
	struct ws_err err;
	assert_int_equal(ws_sim_set_output_dir(sim, d, &err), WS_OK);
	th_run(sim);
	assert_int_equal(ws_sim_write_outputs(sim, d, &err), WS_OK);
	return d;
}

static const char *in(const char *dir, const char *file)
{
	return th_fmt("%s/%s", dir, file);
}

/* The unsigned value of "key" in summary.json (the first one). */
static uint64_t json_u64(const char *js, const char *key)
{
	const char *at = strstr(js, th_fmt("\"%s\": ", key));
	assert_non_null(at);
	return strtoull(at + strlen(key) + 4, NULL, 10);
}

static bool is_host(const struct ws_sim *sim, uint32_t node)
{
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	for (uint32_t i = 0; i < fab->n_hosts; i++)
		if (fab->hosts[i] == node)
			return true;
	return false;
}

static void test_pfc_incast(void **state)
{
	(void)state;
	struct ws_sim *sim = sim_of(INCAST, "pfc = true");
	const char *d = run_into(sim, "pfc");
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows_done, 8);
	assert_true(st.pfc_pauses > 10);
	struct th_csv c;
	th_csv_load(&c, in(d, "pfc.csv"));
	uint64_t n[2][2] = { { 0 } }; /* [tx][pause] */
	uint8_t *state_of = calloc(1u << 16, 1); /* (node, port, prio): paused */
	uint32_t host0 = ws_sim_fabric(sim)->hosts[0];
	uint64_t last = 0;
	for (unsigned r = 0; r < c.rows; r++) {
		bool tx = !strcmp(th_csv_get(&c, r, "dir"), "tx");
		bool pause = !strcmp(th_csv_get(&c, r, "event"), "pause");
		uint32_t node = (uint32_t)th_csv_num(&c, r, "node");
		uint32_t port = (uint32_t)th_csv_num(&c, r, "port");
		uint32_t prio = (uint32_t)th_csv_num(&c, r, "prio");
		n[tx][pause]++;
		assert_int_equal(prio, 3);
		assert_true(th_csv_ps(&c, r, "time_ns") >= last);
		last = th_csv_ps(&c, r, "time_ns");
		/* the peer columns name the far end of the link */
		struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
		assert_int_equal(ws_port_info(sim, node, port, &pi), WS_OK);
		assert_int_equal(pi.peer_node, (uint32_t)th_csv_num(&c, r, "peer_node"));
		assert_int_equal(pi.peer_local, (uint32_t)th_csv_num(&c, r, "peer_port"));
		if (tx) {
			/* only switches send PAUSE, with bytes buffered behind it */
			assert_false(is_host(sim, node));
			if (pause)
				assert_true(th_csv_num(&c, r, "ingress_bytes") > 0);
		}
		assert_int_not_equal(node, host0);
		/* pause and resume alternate per (port, priority, direction) */
		unsigned key = ((node * 8 + port) * 2 + tx) & 0xffff;
		assert_int_equal(state_of[key], !pause);
		state_of[key] = pause;
	}
	free(state_of);
	th_csv_free(&c);
	char *js = th_read(in(d, "summary.json"), NULL);
	uint64_t resumes = json_u64(js, "pfc_resumes");
	assert_int_equal(n[1][1], st.pfc_pauses);
	assert_int_equal(n[1][0], resumes);
	assert_int_equal(n[0][1], st.pfc_pauses); /* each PAUSE arrives */
	assert_int_equal(n[0][0], resumes);
	assert_int_equal(json_u64(js, "pfc_pauses"), st.pfc_pauses);
	assert_int_equal(json_u64(js, "pauses_sent"), st.pfc_pauses);
	assert_int_equal(json_u64(js, "resumes_received"), resumes);
	assert_non_null(strstr(js, "\"pfc_log\""));
	assert_null(strstr(js, "\"packet_log\""));
	free(js);
	/* pfc_ports.csv agrees with ports.csv port by port */
	struct th_csv pp, ports;
	th_csv_load(&pp, in(d, "pfc_ports.csv"));
	th_csv_load(&ports, in(d, "ports.csv"));
	assert_true(pp.rows > 0);
	uint64_t sent = 0;
	for (unsigned r = 0; r < pp.rows; r++) {
		unsigned k = 0;
		while (k < ports.rows &&
		       (strcmp(th_csv_get(&ports, k, "node"), th_csv_get(&pp, r, "node")) ||
			strcmp(th_csv_get(&ports, k, "port"), th_csv_get(&pp, r, "port"))))
			k++;
		assert_true(k < ports.rows);
		assert_string_equal(th_csv_get(&ports, k, "pause_sent"),
				    th_csv_get(&pp, r, "pauses_sent"));
		assert_string_equal(th_csv_get(&ports, k, "pause_received"),
				    th_csv_get(&pp, r, "pauses_received"));
		assert_string_equal(th_csv_get(&ports, k, "paused_ns"),
				    th_csv_get(&pp, r, "paused_ns"));
		sent += (uint64_t)th_csv_num(&pp, r, "pauses_sent");
		/* a port that paused its peer did so for some time */
		if (th_csv_num(&pp, r, "pauses_sent") > 0)
			assert_true(th_csv_num(&pp, r, "pausing_ns") > 0);
	}
	assert_int_equal(sent, st.pfc_pauses);
	th_csv_free(&pp);
	th_csv_free(&ports);
	ws_sim_free(sim);
}

static void test_packet_counts(void **state)
{
	(void)state;
	struct ws_sim *sim = sim_of(PATHS, "packets = all");
	const char *d = run_into(sim, "packets");
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows_done, 3);
	assert_int_equal(st.pfc_pauses, 0);
	struct th_csv c;
	th_csv_load(&c, in(d, "packets.csv"));
	const char *ev[] = { "enq", "deq", "recv" };
	for (uint32_t f = 0; f < 3; f++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		assert_int_equal(ws_flow_get(sim, f, &fi), WS_OK);
		unsigned links = th_route(sim, fi.src, fi.dst, fi.sport, NULL, NULL, 16);
		uint64_t pkts = (fi.bytes + 999) / 1000;
		uint64_t count[3] = { 0 }, last_flagged = 0;
		for (unsigned r = 0; r < c.rows; r++) {
			if (strcmp(th_csv_get(&c, r, "kind"), "data") ||
			    (uint32_t)th_csv_num(&c, r, "flow") != f)
				continue;
			for (unsigned e = 0; e < 3; e++)
				count[e] += !strcmp(th_csv_get(&c, r, "event"), ev[e]);
			if (!strcmp(th_csv_get(&c, r, "event"), "recv") &&
			    strchr(th_csv_get(&c, r, "flags"), 'L') &&
			    (uint32_t)th_csv_num(&c, r, "node") == fi.dst)
				last_flagged++;
		}
		assert_int_equal(count[0], pkts * (links - 1));
		assert_int_equal(count[1], pkts * links);
		assert_int_equal(count[2], pkts * links);
		assert_int_equal(last_flagged, 1);
	}
	uint64_t last = 0, acks = 0;
	for (unsigned r = 0; r < c.rows; r++) {
		assert_true(th_csv_ps(&c, r, "time_ns") >= last);
		last = th_csv_ps(&c, r, "time_ns");
		acks += !strcmp(th_csv_get(&c, r, "kind"), "ack") &&
			!strcmp(th_csv_get(&c, r, "event"), "deq") &&
			is_host(sim, (uint32_t)th_csv_num(&c, r, "node"));
	}
	assert_int_equal(acks, st.acks); /* every ACK leaves its host once */
	char *js = th_read(in(d, "summary.json"), NULL);
	assert_int_equal(json_u64(js, "rows"), c.rows);
	assert_non_null(strstr(js, "\"truncated\": false"));
	free(js);
	th_csv_free(&c);
	ws_sim_free(sim);
}

/* Does row r of the full log pass the filter of test_filters? */
static bool passes(const struct th_csv *c, unsigned r, uint32_t sw)
{
	uint64_t t = th_csv_ps(c, r, "time_ns");
	const char *e = th_csv_get(c, r, "event");
	return !strcmp(th_csv_get(c, r, "kind"), "data") &&
	       (!strcmp(e, "enq") || !strcmp(e, "deq")) &&
	       !strcmp(th_csv_get(c, r, "flow"), "1") &&
	       (uint32_t)th_csv_num(c, r, "node") == sw &&
	       t >= 100 * WS_US && t < 105 * WS_US;
}

static void test_filters(void **state)
{
	(void)state;
	struct ws_sim *all = sim_of(PATHS, "packets = all");
	const char *da = run_into(all, "unfiltered");
	/* host 0's edge switch */
	struct ws_port_info pi = { WS_INIT_SIZE(struct ws_port_info) };
	assert_int_equal(ws_port_info(all, ws_sim_fabric(all)->hosts[0], 0, &pi), WS_OK);
	uint32_t sw = pi.peer_node;
	char filter[256];
	snprintf(filter, sizeof filter, "packets = data\npackets_events = enq, deq\n"
		 "packets_flows = 1\npackets_ports = %u\npackets_start = 100us\n"
		 "packets_stop = 105us\n", sw);
	struct ws_sim *some = sim_of(PATHS, filter);
	const char *ds = run_into(some, "filtered");
	struct th_csv a, s;
	th_csv_load(&a, in(da, "packets.csv"));
	th_csv_load(&s, in(ds, "packets.csv"));
	unsigned k = 0;
	for (unsigned r = 0; r < a.rows; r++) {
		if (!passes(&a, r, sw))
			continue;
		assert_true(k < s.rows);
		for (unsigned col = 0; col < a.cols; col++)
			assert_string_equal(a.cell[(size_t)(r + 1) * a.cols + col],
					    s.cell[(size_t)(k + 1) * s.cols + col]);
		k++;
	}
	assert_int_equal(k, s.rows);
	assert_true(k > 4); /* the filter let something through */
	th_csv_free(&a);
	th_csv_free(&s);
	/* flows and ranges: 0-1 keeps flows 0 and 1, never PFC frames */
	struct ws_sim *two = sim_of(INCAST, "packets = all\npackets_flows = 0-1, 7\n");
	const char *dt = run_into(two, "flows");
	th_csv_load(&s, in(dt, "packets.csv"));
	assert_true(s.rows > 0);
	for (unsigned r = 0; r < s.rows; r++) {
		const char *fl = th_csv_get(&s, r, "flow");
		assert_true(!strcmp(fl, "0") || !strcmp(fl, "1") || !strcmp(fl, "7"));
	}
	th_csv_free(&s);
	ws_sim_free(two);
	ws_sim_free(all);
	ws_sim_free(some);
}

static void test_cap(void **state)
{
	(void)state;
	struct ws_sim *sim = sim_of(INCAST, "packets = all\npfc = true\n"
					    "log_max_bytes = 4KiB\n");
	const char *d = run_into(sim, "cap");
	struct ws_sim_stats st = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(sim, &st);
	assert_int_equal(st.flows_done, 8); /* the run went on */
	size_t len = 0;
	char *text = th_read(in(d, "packets.csv"), &len);
	assert_true(len <= 4096 && len > 3000);
	assert_int_equal(text[len - 1], '\n');
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	free(text);
	char *js = th_read(in(d, "summary.json"), NULL);
	const char *pk = strstr(js, "\"packet_log\"");
	assert_non_null(pk);
	assert_int_equal(json_u64(pk, "rows"), lines - 1);
	assert_int_equal(json_u64(pk, "bytes"), len);
	assert_non_null(strstr(pk, "\"truncated\": true"));
	assert_true(json_u64(pk, "truncated_at_ps") > 0);
	/* pfc.csv passes 4 KiB too in this incast */
	const char *pf = strstr(js, "\"pfc_log\"");
	assert_non_null(pf);
	assert_non_null(strstr(pf, "\"truncated\": true"));
	assert_true(json_u64(pf, "pauses_sent") > json_u64(pf, "rows") / 2);
	assert_int_equal(json_u64(js, "warnings"), 2); /* one per log cut */
	free(js);
	ws_sim_free(sim);
}

static void test_nothing_else_changes(void **state)
{
	(void)state;
	struct ws_sim *off = sim_of(INCAST, "");
	struct ws_sim *on1 = sim_of(INCAST, "packets = all\npfc = true\n");
	struct ws_sim *on2 = sim_of(INCAST, "packets = all\npfc = true\n");
	const char *d0 = run_into(off, "off");
	const char *d1 = run_into(on1, "on1");
	const char *d2 = run_into(on2, "on2");
	struct ws_sim_stats s0 = { WS_INIT_SIZE(struct ws_sim_stats) };
	struct ws_sim_stats s1 = { WS_INIT_SIZE(struct ws_sim_stats) };
	ws_sim_get_stats(off, &s0);
	ws_sim_get_stats(on1, &s1);
	assert_int_equal(s0.events, s1.events);
	const char *same[] = { "fct.csv", "ports.csv" };
	for (size_t i = 0; i < WS_ARRAY_LEN(same); i++) {
		char *a = th_read(in(d0, same[i]), NULL), *b = th_read(in(d1, same[i]), NULL);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	const char *twice[] = { "packets.csv", "pfc.csv", "pfc_ports.csv" };
	for (size_t i = 0; i < WS_ARRAY_LEN(twice); i++) {
		size_t la, lb;
		char *a = th_read(in(d1, twice[i]), &la), *b = th_read(in(d2, twice[i]), &lb);
		assert_int_equal(la, lb);
		assert_memory_equal(a, b, la);
		free(a);
		free(b);
	}
	/* a run without the logs has none of their files or summary keys */
	assert_null(th_read(in(d0, "packets.csv"), NULL));
	assert_null(th_read(in(d0, "pfc_ports.csv"), NULL));
	char *js = th_read(in(d0, "summary.json"), NULL);
	assert_null(strstr(js, "_log\""));
	free(js);
	ws_sim_free(off);
	ws_sim_free(on1);
	ws_sim_free(on2);
}

static void bad(const char *output, const char *key, const char *needle, int line)
{
	th_write("flows.txt", PATHS);
	struct ws_sim *sim = NULL;
	struct ws_err err;
	int rc = th_sim_try(th_fmt("[topology]\nname = fat-tree\nk = 4\n"
				   "[workload]\nname = flows\nfile = flows.txt\n"
				   "[output]\n%s\n", output), &sim, &err, NULL);
	assert_int_equal(rc, WS_EINVAL);
	assert_null(sim);
	assert_string_equal(err.key, key);
	assert_int_equal(err.line, line);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' lacks '%s'", err.msg, needle);
}

static void test_bad_values(void **state)
{
	(void)state;
	bad("packets = data, acks", "output.packets", "'acks' is not one of all, data, ack", 8);
	bad("packets = all\npackets_events = enq,send", "output.packets_events",
	    "'send' is not one of", 9);
	bad("packets = all\npackets_flows = 3-1", "output.packets_flows",
	    "'3-1': expected a flow id or FIRST-LAST", 9);
	bad("packets = all\npackets_ports = 99", "output.packets_ports", "nodes 0..", 9);
	bad("packets = all\npackets_start = 2us\npackets_stop = 1us", "output.packets_stop",
	    "after packets_start", 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pfc_incast),
		cmocka_unit_test(test_packet_counts),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_nothing_else_changes),
		cmocka_unit_test(test_bad_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
