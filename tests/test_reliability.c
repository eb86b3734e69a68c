/* SPDX-License-Identifier: MIT */
/*
 * Never lose a result, never hang, refuse the impossible up front: the
 * behaviour of `warpsim run` when things go wrong, each case a defect a
 * hostile trial of the tree found (issue 16).
 *   - a PFC deadlock ends, in every transport mode, naming the cycle; a
 *     flow behind a port paused for good times out again and again, and
 *     retry_limit aborts it;
 *   - a fabric too large for the memory allowed is refused with the
 *     estimate and the keys, before anything is allocated; a workload
 *     too large, once its first iteration is known;
 *   - text inputs have a line-length limit (/dev/zero is not read into
 *     memory) and a NUL byte is called one;
 *   - SIGINT stops at the next event, writes every output marked
 *     incomplete and exits with status 4; a second signal exits at once;
 *     stale outputs of an earlier run are removed;
 *   - every write is checked: a file-size limit or a full stdout is an
 *     error with the system's reason, never status 0, and the summary
 *     lists only the files written; traces are bounded;
 *   - smaller ones: CR line ends, subnormal numbers, a NUL byte in a
 *     trace, a short trace declaring 10^8 flows, SimAI's comm_scale in
 *     its error, --max-wall inf.
 */
#define _GNU_SOURCE
#include "th.h"
#include "internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static void check_contains(const char *what, const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("%s lacks '%s':\n%s", what, needle, text);
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Every host of a 2-2-4 dragonfly to every other, Valiant routing with all
 * classes in one: a cycle of PFC pauses stops the fabric (test_dragonfly). */
static const char *deadlock_ini(const char *nic)
{
	FILE *f = fopen(th_fmt("%s/a2a.txt", th_tmpdir()), "w");
	assert_non_null(f);
	fprintf(f, "%u\n", 72 * 71);
	for (unsigned s = 0; s < 72; s++)
		for (unsigned d = 0; d < 72; d++)
			if (s != d)
				fprintf(f, "%u %u 3 100 4000 0\n", s, d);
	assert_int_equal(fclose(f), 0);
	return th_write("deadlock.ini", th_fmt(
		"[topology]\nname = dragonfly\np = 2\na = 4\nh = 2\n"
		"[routing]\nname = dragonfly\nmode = valiant\nvc_escalation = false\n"
		"[cc]\nname = none\n[switch]\nbuffer = 500KB\n[nic]\n%s\n"
		"[workload]\nname = flows\nfile = a2a.txt\n", nic));
}

/* With the timeout on under PFC and no retry limit the run used to go on
 * forever (the rewound flows' timeouts were never counted); now the first
 * timeout finds the cycle of paused ports and stops the run, status 3. */
static void test_deadlock_with_timeouts_ends(void **state)
{
	(void)state;
	const char *nics[] = { "rto_lossless = true\nretry_limit = 0",
			       "rto_lossless = true\nretry_limit = 1",
			       "rto_lossless = false" };
	for (size_t i = 0; i < WS_ARRAY_LEN(nics); i++) {
		char ini[512];
		snprintf(ini, sizeof ini, "%s", deadlock_ini(nics[i]));
		char *out, *err;
		int st = th_cli((const char *[]){ "run", "-q", "-o",
						  th_fmt("%s/dl", th_tmpdir()), ini, NULL },
				&out, &err);
		assert_int_equal(st, 3);
		check_contains("stderr", err, "PFC deadlock");
		check_contains("stderr", err, "switch ");
		check_contains("stderr", err, " port ");
		check_contains("stderr", err, " -> ");
		free(out);
		free(err);
	}
}

/*
 * The timeout under PFC, alone: the destination's switch port stays paused
 * (no cycle: its peer is a host), so the flow's packets stay queued there,
 * PFC backs up to the sender, the flow times out, goes back to its last
 * ACKed byte and cannot send it again.  Each further rto is a timeout too,
 * so retry_limit = 2 aborts it at the third; the timeouts used to stop
 * counting after the first and the run never ended.
 */
static void test_paused_flow_times_out_and_aborts(void **state)
{
	(void)state;
	th_write("one-big.txt", "1\n0 5 3 100 10000000 0\n");
	struct ws_sim *sim = th_sim("[topology]\nname = fat-tree\nk = 4\n[cc]\nname = none\n"
				    "[switch]\nbuffer = 300KB\n"
				    "[nic]\nrto = 100us\nrto_lossless = true\nretry_limit = 2\n"
				    "[workload]\nname = flows\nfile = one-big.txt\n");
	th_run_until(sim, 20 * WS_US);
	struct ws_port *to_dst = &sim->ports[sim->ports[sim->nodes[5].first_port].peer];
	ws_port_pause(sim, to_dst, 3, true);
	th_run_until(sim, 120 * WS_US);
	/* the sender's own port is paused by then, its data rewound */
	struct ws_flow *f = sim->flows[0];
	assert_true(sim->ports[f->nic->port].paused & (1u << 3));
	th_run_until(sim, 100 * WS_MS);
	struct ws_flow_info fi = { WS_INIT_SIZE(struct ws_flow_info) };
	assert_int_equal(ws_flow_get(sim, 0, &fi), WS_OK);
	assert_int_equal(fi.timeouts, 3);
	assert_true(fi.aborted);
	/* nothing is left to simulate: the run ended on its own */
	assert_int_equal(ws_pending_events(sim), 0);
	ws_sim_free(sim);
}

static void test_memory_refused_up_front(void **state)
{
	(void)state;
	th_write("one.txt", "1\n0 5 3 100 1000 0\n");
	const char *ini = th_write("huge.ini", "[topology]\nname = fat-tree\nk = 254\n"
				   "[workload]\nname = flows\nfile = one.txt\n");
	char copy[512];
	snprintf(copy, sizeof copy, "%s", ini);
	char *out, *err;
	int st = th_cli((const char *[]){ "run", "-q", "--max-memory", "1GiB", copy, NULL },
			&out, &err);
	assert_int_equal(st, 2);
	check_contains("stderr", err, "huge.ini:2: topology 'fat-tree': a fabric of "
				      "4177411 nodes and 24580596 ports needs an estimated");
	check_contains("stderr", err, "the limit given (--max-memory); set in "
				      "[topology]: k = 254");
	free(out);
	free(err);
	st = th_cli((const char *[]){ "topo", "--max-memory", "10x", copy, NULL }, &out, &err);
	assert_int_equal(st, 2);
	check_contains("stderr", err, "--max-memory '10x'");
	free(out);
	free(err);
}

/* A workload's size is checked once its first iteration is known: a
 * million iterations of an llm on 16 GPUs do not fit in 100 MiB. */
static void test_workload_memory_refused(void **state)
{
	(void)state;
	const char *ini = th_write("llm-big.ini", "[topology]\nname = fat-tree\nk = 4\n"
				   "[workload]\nname = llm\nmicro_batches = 8\n"
				   "iterations = 1000000\n");
	char copy[512];
	snprintf(copy, sizeof copy, "%s", ini);
	char *out, *err;
	int st = th_cli((const char *[]){ "run", "-q", "--max-memory", "100MiB", "-o",
					  th_fmt("%s/llm-big", th_tmpdir()), copy, NULL },
			&out, &err);
	assert_int_equal(st, 1);
	check_contains("stderr", err, "1000000 iterations ([workload] iterations) of ");
	check_contains("stderr", err, "more than the 0.105 GB the limit given (--max-memory)");
	free(out);
	free(err);
}

/* A line of `n` bytes of 'a' and a newline, as a file. */
static const char *long_line_file(const char *name, size_t n)
{
	char *text = malloc(n + 2);
	assert_non_null(text);
	memset(text, 'a', n);
	text[n] = '\n';
	text[n + 1] = '\0';
	const char *p = th_write(name, text);
	free(text);
	return p;
}

static void test_line_length_limit(void **state)
{
	(void)state;
	long_line_file("long.txt", 70000);
	const char *kinds[][2] = {
		{ "[topology]\nname = fat-tree\nk = 4\n", "[workload]\nname = flows\nfile = long.txt\n" },
		{ "[topology]\nname = file\nfile = long.txt\n", "[workload]\nname = flows\nfile = one.txt\n" },
		{ "[topology]\nname = fat-tree\nk = 4\n", "[workload]\nname = simai\nfile = long.txt\n" },
	};
	th_write("one.txt", "1\n0 5 3 100 1000 0\n");
	for (size_t i = 0; i < WS_ARRAY_LEN(kinds); i++) {
		struct ws_sim *sim = NULL;
		struct ws_err err;
		int rc = th_sim_try(th_fmt("%s%s", kinds[i][0], kinds[i][1]), &sim, &err, NULL);
		assert_int_equal(rc, WS_EINVAL);
		check_contains("error", err.msg, "line 1 longer than 65536 bytes");
		assert_non_null(strstr(err.file, "long.txt"));
		assert_int_equal(err.line, 1);
		ws_sim_free(sim);
	}
	/* /dev/zero: its first byte is a NUL, said as such */
	struct ws_sim *sim = NULL;
	struct ws_err err;
	int rc = th_sim_try("[topology]\nname = fat-tree\nk = 4\n"
			    "[workload]\nname = flows\nfile = /dev/zero\n", &sim, &err, NULL);
	assert_int_equal(rc, WS_EINVAL);
	check_contains("error", err.msg, "line 1 holds a NUL byte");
	/* compare's CSV reader */
	char a[512];
	snprintf(a, sizeof a, "%s/cmp-a", th_tmpdir());
	mkdir(a, 0777);
	th_write("cmp-a/summary.json", "{}\n");
	long_line_file("cmp-a/fct.csv", 70000);
	char *out, *e;
	int st = th_cli((const char *[]){ "compare", a, a, NULL }, &out, &e);
	assert_int_not_equal(st, 0);
	free(out);
	free(e);
}

/* A run of several seconds whose rates.csv appears once the run loop has
 * started (its handler installed). */
static const char *long_run_ini(void)
{
	th_write("big-flow.txt", "1\n0 5 3 100 100000000000 0\n");
	return th_write("long-run.ini", "[topology]\nname = fat-tree\nk = 4\n"
			"[output]\ntrace_rates = 100us\nflows = true\n"
			"[workload]\nname = flows\nfile = big-flow.txt\n");
}

static void wait_for(const char *path)
{
	for (int i = 0; i < 2000 && !exists(path); i++)
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	if (!exists(path))
		fail_msg("%s never appeared", path);
}

static void test_sigint_writes_incomplete_outputs(void **state)
{
	(void)state;
	char ini[512], dir[512];
	snprintf(ini, sizeof ini, "%s", long_run_ini());
	snprintf(dir, sizeof dir, "%s/sig", th_tmpdir());
	mkdir(dir, 0777);
	/* stale outputs of an earlier run */
	th_write("sig/ports.csv", "stale\n");
	th_write("sig/summary.json", "{\"stale\": true}\n");
	pid_t pid;
	assert_int_equal(th_cli_spawn((const char *[]){ "run", "-o", dir, ini, NULL },
				      NULL, &pid), 0);
	wait_for(th_fmt("%s/rates.csv.tmp", dir));
	assert_false(exists(th_fmt("%s/summary.json", dir)));
	assert_false(exists(th_fmt("%s/ports.csv", dir)));
	kill(pid, SIGINT);
	char *out, *err;
	int st = th_cli_wait(pid, &out, &err);
	assert_int_equal(st, 4);
	check_contains("stderr", err, "interrupted by SIGINT");
	free(out);
	free(err);
	char *js = th_read(th_fmt("%s/summary.json", dir), NULL);
	assert_non_null(js);
	check_contains("summary.json", js, "\"complete\": false");
	check_contains("summary.json", js, "\"incomplete_reason\": \"interrupted by SIGINT\"");
	free(js);
	/* every output whole, under its own name */
	char *rates = th_read(th_fmt("%s/rates.csv", dir), NULL);
	assert_non_null(rates);
	assert_true(rates[strlen(rates) - 1] == '\n');
	free(rates);
	assert_true(exists(th_fmt("%s/flows.csv", dir)));
	assert_true(exists(th_fmt("%s/fct.csv", dir)));
	assert_false(exists(th_fmt("%s/rates.csv.tmp", dir)));
	assert_false(exists(th_fmt("%s/fct.csv.tmp", dir)));
	/* a second signal ends it at once */
	assert_int_equal(th_cli_spawn((const char *[]){ "run", "-o", dir, ini, NULL },
				      NULL, &pid), 0);
	wait_for(th_fmt("%s/rates.csv.tmp", dir));
	kill(pid, SIGTERM);
	kill(pid, SIGTERM);
	st = th_cli_wait(pid, &out, &err);
	free(out);
	/* the second signal came before the outputs were written (130 + 13),
	 * or both were seen as one stop */
	if (st != 128 + SIGTERM)
		assert_int_equal(st, 4);
	free(err);
}

/* A complete run says so. */
static void test_complete_run_says_so(void **state)
{
	(void)state;
	th_write("one.txt", "1\n0 5 3 100 1000 0\n");
	const char *ini = th_write("small.ini", "[topology]\nname = fat-tree\nk = 4\n"
				   "[workload]\nname = flows\nfile = one.txt\n");
	char copy[512], dir[512];
	snprintf(copy, sizeof copy, "%s", ini);
	snprintf(dir, sizeof dir, "%s/small", th_tmpdir());
	assert_int_equal(th_cli((const char *[]){ "run", "-q", "-o", dir, copy, NULL },
				NULL, NULL), 0);
	char *js = th_read(th_fmt("%s/summary.json", dir), NULL);
	check_contains("summary.json", js, "\"complete\": true");
	free(js);
}

static void test_write_errors(void **state)
{
	(void)state;
	th_write("one.txt", "1\n0 5 3 100 1000 0\n");
	const char *ini = th_write("w.ini", "[topology]\nname = fat-tree\nk = 4\n"
				   "[output]\nports = true\n"
				   "[workload]\nname = flows\nfile = one.txt\n");
	char copy[512], dir[512];
	snprintf(copy, sizeof copy, "%s", ini);
	snprintf(dir, sizeof dir, "%s/wfull", th_tmpdir());
	/* files may not grow past 2 KB: ports.csv (80 ports) cannot be written */
	struct rlimit old, small = { 2048, 2048 };
	getrlimit(RLIMIT_FSIZE, &old);
	small.rlim_max = old.rlim_max;
	/* SIGXFSZ left at its default: the program itself must ignore it */
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	pid_t pid;
	int rc = th_cli_spawn((const char *[]){ "run", "-o", dir, copy, NULL }, NULL, &pid);
	setrlimit(RLIMIT_FSIZE, &old);
	assert_int_equal(rc, 0);
	char *out, *err;
	int st = th_cli_wait(pid, &out, &err);
	assert_int_equal(st, 1);
	check_contains("stderr", err, "ports.csv: write failed: File too large");
	/* the summary lists only what was written */
	check_contains("stdout", out, th_fmt("  outputs    %s/fct.csv, %s/fct_by_size.csv\n",
					     dir, dir));
	free(out);
	free(err);
	assert_false(exists(th_fmt("%s/ports.csv", dir)));
	assert_false(exists(th_fmt("%s/ports.csv.tmp", dir)));
	assert_false(exists(th_fmt("%s/summary.json", dir)));
	/* a full stdout: only if /dev/full is the machine's full device (a
	 * regular file left there by a careless run would turn this into a
	 * false failure, or a false pass) */
	struct stat full;
	if (stat("/dev/full", &full) || !S_ISCHR(full.st_mode) ||
	    major(full.st_rdev) != 1 || minor(full.st_rdev) != 7) {
		print_message("skipped the full stdout: /dev/full is not the full device\n");
		return;
	}
	assert_int_equal(th_cli_spawn((const char *[]){ "run", "-o", dir, copy, NULL },
				      "/dev/full", &pid), 0);
	st = th_cli_wait(pid, &out, &err);
	assert_int_equal(st, 1);
	check_contains("stderr", err, "writing the standard output failed: No space left on device");
	free(out);
	free(err);
}

static void test_trace_bounds(void **state)
{
	(void)state;
	th_write("one.txt", "1\n0 5 3 100 1000000 0\n");
	struct ws_sim *sim = th_sim("[topology]\nname = fat-tree\nk = 4\n"
				    "[sim]\nstop_time = 1ms\n[output]\ntrace_rates = 1ps\n"
				    "[workload]\nname = flows\nfile = one.txt\n");
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_sim_set_output_dir(sim, th_fmt("%s/tr1", th_tmpdir()), &err), WS_OK);
	assert_int_equal(ws_sim_run(sim, WS_TIME_NEVER, &err), WS_EINVAL);
	check_contains("error", err.msg, "rates.csv every 0.000001 us until [sim] "
					 "stop_time = 1000.000 us takes 1000000001 samples");
	assert_string_equal(err.key, "output.trace_rates");
	ws_sim_free(sim);
	/* no stop time: the run stops when the trace passes the limit */
	sim = th_sim("[topology]\nname = fat-tree\nk = 4\n"
		     "[output]\ntrace_rates = 1ns\ntrace_max_bytes = 64KiB\n"
		     "[workload]\nname = flows\nfile = one.txt\n");
	ws_err_clear(&err);
	assert_int_equal(ws_sim_set_output_dir(sim, th_fmt("%s/tr2", th_tmpdir()), &err), WS_OK);
	assert_int_equal(ws_sim_run(sim, WS_TIME_NEVER, &err), WS_EINVAL);
	check_contains("error", err.msg, "the trace passed [output] trace_max_bytes = 65536 bytes");
	ws_sim_free(sim);
}

static void test_smaller_ones(void **state)
{
	(void)state;
	th_write("one.txt", "1\n0 5 3 100 1000 0\n");
	/* CR-only line ends */
	struct ws_sim *sim = th_sim("[topology]\rname = fat-tree\rk = 4\r"
				    "[workload]\rname = flows\rfile = one.txt\r");
	ws_sim_free(sim);
	/* a subnormal number */
	struct ws_err err;
	int rc = th_sim_try("[topology]\nname = fat-tree\nk = 4\n[switch]\necn_pmax = 1e-320\n"
			    "[workload]\nname = flows\nfile = one.txt\n", &sim, &err, NULL);
	assert_int_equal(rc, WS_EINVAL);
	check_contains("error", err.msg, "too small to hold (a subnormal number");
	/* a NUL byte in a trace */
	th_write("nul.txt", "2\n0 5 3 100 1000 0\n");
	FILE *f = fopen(th_fmt("%s/nul.txt", th_tmpdir()), "a");
	assert_non_null(f);
	fwrite("1 5 3\0 100 1000 0\n", 1, 18, f);
	fclose(f);
	rc = th_sim_try("[topology]\nname = fat-tree\nk = 4\n"
			"[workload]\nname = flows\nfile = nul.txt\n", &sim, &err, NULL);
	assert_int_equal(rc, WS_EINVAL);
	check_contains("error", err.msg, "line 3 holds a NUL byte");
	/* 10^8 flows declared, one given: the count is checked, little allocated */
	th_write("short.txt", "100000000\n0 5 3 100 1000 0\n");
	struct rlimit old, small = { 512u << 20, 512u << 20 };
	getrlimit(RLIMIT_AS, &old);
	small.rlim_max = old.rlim_max;
	const char *ini = th_write("short.ini", "[topology]\nname = fat-tree\nk = 4\n"
				   "[workload]\nname = flows\nfile = short.txt\n");
	char copy[512];
	snprintf(copy, sizeof copy, "%s", ini);
	pid_t pid;
	/* (AddressSanitizer and ThreadSanitizer need terabytes of address
	 * space for their shadow memory) */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	assert_int_equal(setrlimit(RLIMIT_AS, &small), 0);
#endif
	rc = th_cli_spawn((const char *[]){ "run", "-q", "-o",
					    th_fmt("%s/short", th_tmpdir()), copy, NULL },
			  NULL, &pid);
	setrlimit(RLIMIT_AS, &old);
	assert_int_equal(rc, 0);
	char *out, *e;
	int st = th_cli_wait(pid, &out, &e);
	assert_int_equal(st, 2);
	check_contains("stderr", e, "short.txt:2: the first line declares 100000000 flows "
				    "but the file ends after 1");
	free(out);
	free(e);
	/* SimAI's comm_scale: the error gives the scaled size */
	th_write("simai-big.txt", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 "
		 "ep: 1 pp: 1 vpp: 8 ga: 1 all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0\n1\n"
		 "embedding_layer -1 556000 ALLREDUCE 2147483648 1 NONE 0 1 NONE 0 1\n");
	rc = th_sim_try("[topology]\nname = rail\ngpus_per_server = 8\nservers_per_unit = 2\n"
			"units = 1\n[workload]\nname = simai\nfile = simai-big.txt\n"
			"comm_scale = 1e6\n", &sim, &err, NULL);
	assert_int_equal(rc, WS_EINVAL);
	check_contains("error", err.msg, "2147483648 x comm_scale 1e+06 = 2.147e+15 bytes is "
					 "too large (at most 2^50)");
	/* --max-wall inf */
	ini = th_write("small.ini", "[topology]\nname = fat-tree\nk = 4\n"
		       "[workload]\nname = flows\nfile = one.txt\n");
	snprintf(copy, sizeof copy, "%s", ini);
	st = th_cli((const char *[]){ "run", "--max-wall", "inf", copy, NULL }, &out, &e);
	assert_int_equal(st, 2);
	check_contains("stderr", e, "--max-wall 'inf'");
	free(out);
	free(e);
}

/* `test_reliability NAME` runs only the test NAME (a glob). */
int main(int argc, char **argv)
{
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deadlock_with_timeouts_ends),
		cmocka_unit_test(test_paused_flow_times_out_and_aborts),
		cmocka_unit_test(test_memory_refused_up_front),
		cmocka_unit_test(test_workload_memory_refused),
		cmocka_unit_test(test_line_length_limit),
		cmocka_unit_test(test_sigint_writes_incomplete_outputs),
		cmocka_unit_test(test_complete_run_says_so),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_trace_bounds),
		cmocka_unit_test(test_smaller_ones),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
