/* SPDX-License-Identifier: MIT */
/*
 * The kernel's failure service ([failures], kernel/failures.c): every bad
 * event refused before the run with its file, line and key; a link that
 * goes down drops what it holds (counted as `failure`) and releases PFC
 * through it, the flows crossing it still deliver every byte once; a link
 * that comes back carries traffic again; switch and link holds overlap;
 * loss and gray drop within a binomial bound; an unreachable destination
 * ends with the flow aborted and saying why, never a hang; same seed, same
 * bytes; an empty [failures] section changes nothing.
 *
 * Routing is the test rule tests/plugins/failover.c (up/down that avoids
 * the links it was told are down).  Node numbers of the k = 4 fat-tree:
 * hosts 0..15 (two per edge switch), edges 16..23 (ports 0-1 down, 2-3 up
 * to the pod's aggregation switches), aggregations 24..31 (0-1 down to the
 * pod's edges, 2-3 up), cores 32..35.
 */
#include "th.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLUGINS TH_BUILDDIR "/tests/plugins/.libs"

static const char *ini_fmt =
	"[topology]\nname = fat-tree\nk = 4\n"            /* 1-3 */
	"[routing]\nname = %s\n"                          /* 4-5 */
	"[sim]\nstop_time = %s\n"                         /* 6-7 */
	"[cc]\nname = none\n"                             /* 8-9 */
	"[workload]\nname = flows\nfile = flows.txt\n"    /* 10-12 */
	"%s"                                              /* more sections */
	"[failures]\n"                                    /* 13 when none above */
	"%s\n";

static struct ws_sim *fail_sim(const char *rule, const char *extra, const char *failures)
{
	char ini[4096];
	snprintf(ini, sizeof ini, ini_fmt, rule, "0s", extra, failures);
	struct ws_sim *sim;
	struct ws_err err;
	if (th_sim_try(ini, &sim, &err, PLUGINS)) {
		char msg[2048];
		ws_err_format(&err, msg, sizeof msg);
		fail_msg("ws_sim_new: %s", msg);
	}
	return sim;
}

static void stats(struct ws_sim *sim, struct ws_sim_stats *st)
{
	memset(st, 0, sizeof *st);
	st->size = sizeof *st;
	ws_sim_get_stats(sim, st);
}

/* ---- bad events ------------------------------------------------------------------ */

struct bad_event {
	const char *rule;
	const char *events;
	const char *needle;
};

static void test_bad_events(void **state)
{
	(void)state;
	th_write("flows.txt", "1\n0 5 3 100 10000 0\n");
	static const struct bad_event bad[] = {
		{ "failover", "1ms down link 9999:1",
		  "event 1 '1ms down link 9999:1': no node 9999 (the fabric has 36 nodes: 0..35)" },
		{ "failover", "1ms down link 16:9", "node 16 has no port 9 (it has 4: 0..3)" },
		{ "failover", "1ms down link 16:x", "'x' is not a port number" },
		{ "failover", "1ms down link 0-5", "no link between nodes 0 and 5" },
		{ "failover", "1ms down link 16", "expected NODE:PORT or A-B after 'link'" },
		{ "failover", "1ms down switch 3", "node 3 is a host, not a switch" },
		{ "failover", "1ms down random 1 tier 7", "tier 7 has no links (this fabric's tiers: 1..3)" },
		{ "failover", "1ms down random 99 tier 1", "99 links asked for, but tier 1 has only 16" },
		{ "failover", "1ms down random 0% tier 1", "expected a share of the tier's links" },
		{ "failover", "1ms down random 2 of 1", "expected 'random K tier T'" },
		{ "failover", "1ms loss 1.5 link 16:2", "loss value '1.5'" },
		{ "failover", "1ms gray -1 link 16:2", "gray value '-1'" },
		{ "failover", "1ms rate 0bps link 16:2", "rate value '0bps'" },
		{ "failover", "soon down link 16:2", "time 'soon'" },
		{ "failover", "20ms down link 16:2", "time 20ms is past [sim] stop_time = 10ms" },
		{ "failover", "1ms explode link 16:2", "unknown action 'explode' (expected down, up" },
		{ "failover", "1ms rate link 16:2 200Gbps",
		  "'rate' takes its value right after it: 'TIME rate RATE TARGET'" },
		{ "failover", "1ms loss link 16:2", "'loss' takes its value right after it" },
		{ "failover", "1ms down link 16:2 0.5", "unexpected '0.5' after the target" },
		{ "failover", "0 up link 16:2; 1ms down nowhere 3",
		  "event 2 '1ms down nowhere 3': unknown target 'nowhere'" },
		{ "failover", "1ms down", "expected 'TIME ACTION TARGET'" },
		{ "failover", "1ms rate 200Gbps", "expected a target: link NODE:PORT" },
		{ "classup", "0 rate 50Gbps link 16:2; 1ms down link 16:2",
		  "the routing rule 'classup' does not handle failures" },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(bad); i++) {
		char ini[4096], events[256];
		snprintf(events, sizeof events, "events = %s", bad[i].events);
		snprintf(ini, sizeof ini, ini_fmt, bad[i].rule, "10ms", "", events);
		struct ws_sim *sim = NULL;
		struct ws_err err;
		int rc = th_sim_try(ini, &sim, &err, PLUGINS);
		char msg[2048];
		ws_err_format(&err, msg, sizeof msg);
		if (rc != WS_EINVAL)
			fail_msg("'%s': code %d, expected WS_EINVAL (%s)", bad[i].events, rc, msg);
		assert_null(sim);
		if (!strstr(msg, "test.ini:14: [failures]"))
			fail_msg("'%s': no file:line: %s", bad[i].events, msg);
		if (!strstr(msg, bad[i].needle))
			fail_msg("'%s': \"%s\" not in \"%s\"", bad[i].events, bad[i].needle, msg);
		assert_string_equal(err.key, "failures.events");
	}
	/* rate, loss and gray need no routing support */
	char ini[4096];
	snprintf(ini, sizeof ini, ini_fmt, "updown", "10ms", "",
		 "events = 0 rate 50Gbps link 16:2; 1ms loss 0.1 link 16:3; 2ms up link 16:3");
	struct ws_sim *sim = NULL;
	struct ws_err err;
	assert_int_equal(th_sim_try(ini, &sim, &err, PLUGINS), WS_OK);
	ws_sim_free(sim);
}

/* A bad line of a [failures] file: named by the file and its line. */
static void test_bad_file(void **state)
{
	(void)state;
	th_write("flows.txt", "1\n0 5 3 100 10000 0\n");
	const char *ini = "[topology]\nname = fat-tree\nk = 4\n"
			  "[workload]\nname = flows\nfile = flows.txt\n"
			  "[failures]\nfile = bad.txt\n";
	static const struct th_bad_file bad[] = {
		{ "node", "# a degraded uplink\n0 rate 50Gbps link 16:2\n\n"
			  "1ms rate 10Gbps link 99:0   # no such node\n",
		  WS_EINVAL, 4, "[failures] file '1ms rate 10Gbps link 99:0': no node 99" },
		{ "loss", "1ms loss 2 link 16:2\n", WS_EINVAL, 1, "loss value '2'" },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(bad); i++)
		th_check_bad_file(&bad[i], ini);
	/* a rule without failure support: the key whose event takes a link down */
	th_write("bad.txt", "1ms down link 16:2\n");
	struct ws_sim *rsim;
	struct ws_err rerr;
	assert_int_equal(th_sim_try("[topology]\nname = fat-tree\nk = 4\n"
				    "[routing]\nname = classup\n"
				    "[workload]\nname = flows\nfile = flows.txt\n"
				    "[failures]\nevents = 0 rate 50Gbps link 16:2\nfile = bad.txt\n",
				    &rsim, &rerr, PLUGINS), WS_EINVAL);
	assert_int_equal(rerr.line, 11);
	assert_string_equal(rerr.key, "failures.file");
	assert_non_null(strstr(rerr.msg, "the routing rule 'classup' does not handle failures"));
	/* a missing file: the ini's line */
	struct ws_sim *sim;
	struct ws_err err;
	const char *missing = "[topology]\nname = fat-tree\nk = 4\n"
			      "[workload]\nname = flows\nfile = flows.txt\n"
			      "[failures]\nfile = none.txt\n";
	assert_int_equal(th_sim_try(missing, &sim, &err, NULL), WS_EIO);
	assert_int_equal(err.line, 8);
	assert_non_null(strstr(err.msg, "[failures] file 'none.txt': cannot read"));
}

/* ---- a link down under load ---------------------------------------------------- */

/* Six senders of three pods to host 4 (under edge 18) through small
 * buffers: the ECMP hashes of these flows all take core 34 or 35 and
 * aggregation switch 27 into pod 1, and the pauses spread back from edge
 * 18; at 50 us agg 27 has paused core 34's port towards it, with packets
 * queued there.  That link goes down then. */
static const char *incast_flows =
	"6\n0 4 3 100 300000 0\n1 4 3 100 300000 0\n2 4 3 100 300000 0\n"
	"3 4 3 100 300000 0\n8 4 3 100 300000 0\n9 4 3 100 300000 0\n";
static const char *incast_switch = "[switch]\nbuffer = 1MiB\n";

static bool any_paused(const struct ws_sim *sim)
{
	for (uint32_t g = 0; g < sim->fab.n_ports; g++)
		if (sim->ports[g].paused || sim->ports[g].pause_sent)
			return true;
	return false;
}

static void test_link_down_under_load(void **state)
{
	(void)state;
	th_write("flows.txt", incast_flows);
	struct ws_sim *sim = fail_sim("failover", incast_switch, "events = 50us down link 34-27");
	struct ws_port *near = ws_port_at(sim, 34, 1), *far = ws_port_at(sim, 27, 2);
	assert_int_equal(far->peer, (uint32_t)(near - sim->ports));
	th_run_until(sim, 50 * WS_US - 1);
	/* the far end (agg 27) has paused the near end (core 34) */
	assert_true(near->paused != 0);
	assert_true(near->q_bytes > 0);
	th_run_until(sim, 50 * WS_US);
	assert_true(near->down && far->down);
	assert_false(ws_port_up(sim, 34, 1));
	assert_false(ws_port_up(sim, 27, 2));
	assert_int_equal(near->paused | near->pause_sent | far->paused | far->pause_sent, 0);
	assert_int_equal(near->q_bytes, 0);
	assert_int_equal(far->q_bytes, 0);
	uint64_t tx = near->tx_bytes + far->tx_bytes;
	th_run(sim);
	struct ws_sim_stats st;
	stats(sim, &st);
	assert_true(st.drops_failure > 0);
	assert_int_equal(st.drops, st.drops_failure + st.drops_buffer + st.drops_loss +
				   st.drops_gray);
	assert_int_equal(st.failure_events, 1);
	assert_int_equal(st.links_down, 1);
	assert_int_equal(st.aborted, 0);
	/* every flow done, every byte delivered once */
	th_check_bytes(sim);
	assert_false(any_paused(sim));
	/* failures.csv: the event's row, then the link's drops */
	struct ws_err err;
	char dir[512];
	snprintf(dir, sizeof dir, "%s/down", th_tmpdir());
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
	struct th_csv c;
	th_csv_load(&c, th_fmt("%s/failures.csv", dir));
	assert_true(c.rows >= 2);
	assert_string_equal(th_csv_get(&c, 0, "event"), "down");
	assert_string_equal(th_csv_get(&c, 0, "time_us"), "50.000000");
	assert_string_equal(th_csv_get(&c, 0, "node"), "27");
	assert_string_equal(th_csv_get(&c, 0, "port"), "2");
	assert_string_equal(th_csv_get(&c, 0, "peer_node"), "34");
	assert_true(th_csv_num(&c, 0, "dropped") > 0);
	bool link_row = false;
	for (unsigned r = 1; r < c.rows; r++) {
		assert_string_equal(th_csv_get(&c, r, "event"), "drops");
		if (!strcmp(th_csv_get(&c, r, "node"), "27") &&
		    !strcmp(th_csv_get(&c, r, "port"), "2")) {
			link_row = true;
			assert_true(th_csv_num(&c, r, "failure") >= th_csv_num(&c, 0, "dropped"));
		}
	}
	assert_true(link_row);
	th_csv_free(&c);
	char *sum = th_read(th_fmt("%s/summary.json", dir), NULL);
	assert_non_null(strstr(sum, "\"drops\": {"));
	assert_non_null(strstr(sum, "\"links_down_at_end\": 1"));
	free(sum);
	/* nothing crossed the dead link after it died */
	assert_int_equal(near->tx_bytes + far->tx_bytes, tx);
	ws_sim_free(sim);
}

/* ---- a link that comes back -------------------------------------------------------- */

static void test_link_comes_back(void **state)
{
	(void)state;
	/* host 0 to every host of the other pods, twice: before and after */
	char flows[4096];
	size_t w = (size_t)snprintf(flows, sizeof flows, "48\n");
	for (int round = 0; round < 2; round++)
		for (int k = 0; k < 24; k++)
			w += (size_t)snprintf(flows + w, sizeof flows - w, "0 %d 3 %d 20000 %s\n",
					      4 + k % 12, 100 + k, round ? "0.0002" : "0");
	th_write("flows.txt", flows);
	struct ws_sim *sim = fail_sim("failover", "",
				      "events = 0 down link 16:2; 150us up link 16:2");
	struct ws_port *up = ws_port_at(sim, 16, 2);
	th_run_until(sim, 150 * WS_US - 1);
	assert_false(ws_port_up(sim, 16, 2));
	assert_int_equal(up->tx_bytes, 0);
	uint64_t other = ws_port_at(sim, 16, 3)->tx_bytes;
	assert_true(other > 24 * 20000);
	th_run(sim);
	assert_true(ws_port_up(sim, 16, 2));
	/* the second round's flows hash onto it again */
	assert_true(up->tx_bytes > 4 * 20000);
	th_check_bytes(sim);
	struct ws_sim_stats st;
	stats(sim, &st);
	assert_int_equal(st.links_down, 0);
	ws_sim_free(sim);
}

/* A switch down and a link of it down: the switch coming back does not
 * raise the link its own event holds down. */
static void test_switch_and_link_holds(void **state)
{
	(void)state;
	th_write("flows.txt", "1\n0 1 3 100 1000 0.001\n");
	struct ws_sim *sim = fail_sim("failover", "",
				      "events = 10us down switch 24; 20us down link 16-24; "
				      "30us up switch 24; 40us up link 16:2");
	th_run_until(sim, 15 * WS_US);
	for (uint32_t l = 0; l < 4; l++)
		assert_false(ws_port_up(sim, 24, l));
	assert_true(ws_port_up(sim, 16, 3));
	th_run_until(sim, 35 * WS_US);
	assert_false(ws_port_up(sim, 24, 0)); /* 24:0 is 16:2's peer */
	assert_false(ws_port_up(sim, 16, 2));
	for (uint32_t l = 1; l < 4; l++)
		assert_true(ws_port_up(sim, 24, l));
	th_run_until(sim, 45 * WS_US);
	assert_true(ws_port_up(sim, 16, 2));
	struct ws_sim_stats st;
	stats(sim, &st);
	assert_int_equal(st.links_down, 0);
	assert_int_equal(st.failure_events, 4);
	th_run(sim);
	ws_sim_free(sim);
}

/* ---- loss and gray ----------------------------------------------------------------- */

static void assert_binomial(uint64_t drops, uint64_t n, double p, const char *what)
{
	double mean = p * (double)n, sd = sqrt((double)n * p * (1 - p));
	if (fabs((double)drops - mean) > 4 * sd)
		fail_msg("%s: %llu drops of %llu packets, expected %.1f +/- %.1f (4 sigma)",
			 what, (unsigned long long)drops, (unsigned long long)n, mean, 4 * sd);
}

static void test_loss_and_gray(void **state)
{
	(void)state;
	th_write("flows.txt", "1\n0 1 3 100 3000000 0\n");
	struct ws_sim *sim = fail_sim("failover", "[nic]\nrto = 100us\n",
				      "events = 0 loss 0.05 link 16:1; 0 gray 0.02 link 0:0");
	th_run(sim);
	th_check_bytes(sim);
	struct ws_sim_stats st;
	stats(sim, &st);
	/* every packet over a link is a draw (PFC frames aside: none here) */
	uint64_t n_loss = ws_port_at(sim, 16, 1)->tx_pkts + ws_port_at(sim, 1, 0)->tx_pkts;
	uint64_t n_gray = ws_port_at(sim, 0, 0)->tx_pkts + ws_port_at(sim, 16, 0)->tx_pkts;
	assert_true(n_loss > 3000);
	assert_binomial(st.drops_loss, n_loss, 0.05, "loss 0.05");
	assert_binomial(st.drops_gray, n_gray, 0.02, "gray 0.02");
	assert_int_equal(st.drops_failure, 0);
	assert_int_equal(st.drops, st.drops_loss + st.drops_gray);
	ws_sim_free(sim);
}

/* A degraded link serializes at its new rate, both directions. */
static void test_rate(void **state)
{
	(void)state;
	th_write("flows.txt", "1\n0 1 3 100 1000000 0\n");
	struct ws_sim *sim = fail_sim("updown", "", "events = 0 rate 10Gbps link 0:0");
	th_run(sim);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, 0, &fi);
	/* 1 MB at 10 Gb/s: 800 us and more; at the built 100 Gb/s about 85 us */
	assert_true(fi.end - fi.start > 800 * WS_US);
	assert_true(fi.end - fi.start < 1000 * WS_US);
	assert_int_equal(ws_port_at(sim, 16, 0)->rate, 10000000000ull);
	ws_sim_free(sim);
}


/* Packets on the wire when a link dies are lost even if the link is back
 * before they would arrive; packets sent after it is back are not. */
static void test_wire_lost_across_flap(void **state)
{
	(void)state;
	th_write("flows.txt", "1\n0 1 3 100 2000000 0\n");
	char ini[4096];
	snprintf(ini, sizeof ini,
		 "[topology]\nname = fat-tree\nk = 4\nlink_delay = 20us\n"
		 "[routing]\nname = failover\n[cc]\nname = none\n"
		 "[workload]\nname = flows\nfile = flows.txt\n"
		 "[failures]\nevents = 50us down link 16:1; 51us up link 16:1\n");
	struct ws_sim *sim;
	struct ws_err err;
	assert_int_equal(th_sim_try(ini, &sim, &err, PLUGINS), WS_OK);
	th_run_until(sim, 50 * WS_US - 1);
	/* 20 us of wire at 100 Gb/s: about 237 packets of 1052 B */
	uint64_t on_wire = ws_port_on_wire(sim, ws_port_at(sim, 16, 1));
	assert_true(on_wire > 200);
	on_wire += ws_port_on_wire(sim, ws_port_at(sim, 1, 0)); /* and the ACKs back */
	th_run_until(sim, 52 * WS_US);
	assert_true(ws_port_up(sim, 16, 1));
	th_run(sim);
	th_check_bytes(sim);
	struct ws_sim_stats st;
	stats(sim, &st);
	/* the wire's packets, and the few the edge routed to the dead port
	 * during its 1 us down (one per 84 ns from host 0): no more */
	if (st.drops_failure < on_wire || st.drops_failure > on_wire + 1000 / 84 + 2)
		fail_msg("%llu failure drops; %u packets were on the wire",
			 (unsigned long long)st.drops_failure, on_wire);
	ws_sim_free(sim);
}

/* Until reroute_delay has passed, switches away from the failure keep
 * their stale choices and lose packets at it: more drops than with an
 * immediate reroute, and every flow still completes. */
static void test_reroute_delay(void **state)
{
	(void)state;
	th_write("flows.txt", incast_flows);
	uint64_t drops[2];
	const char *ev[2] = { "events = 50us down link 34-27",
			      "events = 50us down link 34-27\nreroute_delay = 100us" };
	for (int k = 0; k < 2; k++) {
		struct ws_sim *sim = fail_sim("failover", incast_switch, ev[k]);
		th_run(sim);
		th_check_bytes(sim);
		struct ws_sim_stats st;
		stats(sim, &st);
		drops[k] = st.drops_failure;
		ws_sim_free(sim);
	}
	assert_true(drops[1] > drops[0]);
}

/* ---- unreachable ----------------------------------------------------------------------- */

static void test_unreachable_aborts(void **state)
{
	(void)state;
	/* host 4's only link dies for good at 10 us; a second flow starts
	 * towards it after that */
	th_write("flows.txt", "2\n0 4 3 100 1000000 0\n1 4 3 100 100000 0.00005\n");
	struct ws_sim *sim = fail_sim("failover", "[nic]\nrto = 50us\nretry_limit = 3\n"
				      "[output]\nflows = true\n",
				      "events = 10us down link 4:0");
	th_run(sim);
	for (uint32_t i = 0; i < 2; i++) {
		struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
		ws_flow_get(sim, i, &fi);
		assert_true(fi.aborted);
		assert_true(fi.end == WS_TIME_NEVER);
	}
	struct ws_sim_stats st;
	stats(sim, &st);
	assert_int_equal(st.aborted, 2);
	assert_int_equal(st.flows_done, 0);
	/* the run ended soon after the last abort: 4 timeouts of 50 us */
	assert_true(st.now < 2 * WS_MS);
	struct ws_err err;
	char dir[512];
	snprintf(dir, sizeof dir, "%s/unreach", th_tmpdir());
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
	char *sum = th_read(th_fmt("%s/summary.json", dir), NULL);
	assert_non_null(strstr(sum, "\"aborted\": 2"));
	assert_non_null(strstr(sum, "\"aborted_flows\": ["));
	assert_non_null(strstr(sum, "\"status\": \"aborted\""));
	assert_non_null(strstr(sum, "\"last_failure_drop\": \"no route at node "));
	free(sum);
	/* flows.csv says so per flow, in its last column */
	char *fl = th_read(th_fmt("%s/flows.csv", dir), NULL);
	assert_non_null(fl);
	assert_non_null(strstr(fl, ",max_reorder,status\n"));
	const char *a = strstr(fl, ",aborted\n");
	assert_non_null(a);
	assert_non_null(strstr(a + 1, ",aborted\n"));
	assert_null(strstr(fl, ",done\n"));
	free(fl);
	ws_sim_free(sim);
}


/* A sender whose own link is down keeps sending into it: its packets die
 * at its port (cause failure), nothing is transmitted, the flow aborts
 * naming the link. */
static void test_sender_link_down(void **state)
{
	(void)state;
	th_write("flows.txt", "1\n2 5 3 100 50000 0\n");
	struct ws_sim *sim = fail_sim("failover", "[nic]\nrto = 20us\nretry_limit = 2\n",
				      "events = 0 down link 2:0");
	th_run(sim);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	ws_flow_get(sim, 0, &fi);
	assert_true(fi.aborted);
	struct ws_sim_stats st;
	stats(sim, &st);
	assert_int_equal(ws_port_at(sim, 2, 0)->tx_bytes, 0);
	/* 48 packets of 50 KB, sent once and again after each of 2 retries */
	assert_true(st.drops_failure >= 3 * 48);
	assert_int_equal(st.drops_failure, ws_port_at(sim, 2, 0)->drops);
	const struct ws_flow *f = sim->flows[0];
	assert_int_equal(f->fail_why, WS_WHY_LINK_DOWN);
	assert_int_equal(f->fail_node, 2);
	assert_int_equal(f->fail_port, 0);
	ws_sim_free(sim);
}

/* ---- determinism and no change without failures ---------------------------------------- */

static char *run_files(const char *failures, const char *dir, const char *file)
{
	struct ws_sim *sim = fail_sim("failover", incast_switch, failures);
	th_run(sim);
	struct ws_err err;
	char path[512];
	snprintf(path, sizeof path, "%s/%s", th_tmpdir(), dir);
	assert_int_equal(ws_sim_write_outputs(sim, path, &err), WS_OK);
	ws_sim_free(sim);
	char *s = th_read(th_fmt("%s/%s", path, file), NULL);
	assert_non_null(s);
	return s;
}

static void test_determinism(void **state)
{
	(void)state;
	th_write("flows.txt", incast_flows);
	const char *ev = "events = 20us down random 2 tier 2; 30us loss 0.01 link 18:0; "
			 "60us up random 2 tier 2";
	const char *files[] = { "fct.csv", "failures.csv" };
	for (size_t i = 0; i < WS_ARRAY_LEN(files); i++) {
		char *a = run_files(ev, "det-a", files[i]);
		char *b = run_files(ev, "det-b", files[i]);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	/* the same words name the same links: all are back at the end */
	struct ws_sim *sim = fail_sim("failover", incast_switch, ev);
	th_run(sim);
	struct ws_sim_stats st;
	stats(sim, &st);
	assert_int_equal(st.failure_events, 3);
	assert_int_equal(st.links_down, 0);
	ws_sim_free(sim);
	/* another failure seed draws other links */
	char *a = run_files(ev, "det-a", "failures.csv");
	char other[512];
	snprintf(other, sizeof other, "seed = 99\n%s", ev);
	char *c = run_files(other, "det-c", "failures.csv");
	assert_string_not_equal(a, c);
	free(a);
	free(c);
}

/* The quickstart with an empty [failures] section: byte-identical fct.csv,
 * and no failures.csv. */
static void test_empty_section_changes_nothing(void **state)
{
	(void)state;
	char *fct[2];
	for (int k = 0; k < 2; k++) {
		struct ws_cfg *cfg;
		struct ws_err err;
		assert_int_equal(ws_cfg_load(&cfg, TH_SRCDIR "/examples/quickstart.ini", &err),
				 WS_OK);
		if (k)
			assert_int_equal(ws_cfg_set(cfg, "failures.events=", &err), WS_OK);
		struct ws_sim *sim;
		struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
		assert_int_equal(ws_sim_new(&sim, cfg, &opts, &err), WS_OK);
		th_run(sim);
		char dir[512];
		snprintf(dir, sizeof dir, "%s/quick%d", th_tmpdir(), k);
		assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
		fct[k] = th_read(th_fmt("%s/fct.csv", dir), NULL);
		assert_non_null(fct[k]);
		assert_null(th_read(th_fmt("%s/failures.csv", dir), NULL));
		ws_sim_free(sim);
		ws_cfg_free(cfg);
	}
	assert_string_equal(fct[0], fct[1]);
	free(fct[0]);
	free(fct[1]);
}

/* ws_failures_apply: the events up to a time, now, once. */
static void test_apply_for_tools(void **state)
{
	(void)state;
	th_write("flows.txt", "1\n0 5 3 100 10000 0\n");
	struct ws_sim *sim = fail_sim("failover", "",
				      "events = 5ms down link 16:3; 1ms down link 16:2; "
				      "2ms up link 16:2; 2ms down switch 33");
	struct ws_err err;
	assert_int_equal(ws_failures_apply(sim, 2 * WS_MS, &err), WS_OK);
	assert_true(ws_port_up(sim, 16, 2));   /* down at 1 ms, up at 2 ms */
	assert_true(ws_port_up(sim, 16, 3));   /* at 5 ms: not yet */
	assert_false(ws_port_up(sim, 33, 0));
	struct ws_sim_stats st;
	stats(sim, &st);
	assert_int_equal(st.failure_events, 3);
	assert_int_equal(st.links_down, 4);
	/* ws_link_set shares the code: down and up at once */
	assert_int_equal(ws_link_set(sim, 16, 3, false, &err), WS_OK);
	assert_false(ws_port_up(sim, 16, 3));
	assert_int_equal(ws_link_set(sim, 16, 3, true, &err), WS_OK);
	assert_true(ws_port_up(sim, 16, 3));
	th_run(sim);
	stats(sim, &st);
	assert_int_equal(st.failure_events, 4); /* the 5 ms event, in the run */
	assert_false(ws_port_up(sim, 16, 3));
	ws_sim_free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_events),
		cmocka_unit_test(test_bad_file),
		cmocka_unit_test(test_link_down_under_load),
		cmocka_unit_test(test_link_comes_back),
		cmocka_unit_test(test_switch_and_link_holds),
		cmocka_unit_test(test_loss_and_gray),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_wire_lost_across_flap),
		cmocka_unit_test(test_reroute_delay),
		cmocka_unit_test(test_unreachable_aborts),
		cmocka_unit_test(test_sender_link_down),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_empty_section_changes_nothing),
		cmocka_unit_test(test_apply_for_tools),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
