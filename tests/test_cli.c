/* SPDX-License-Identifier: MIT */
/*
 * The warpsim program as a user meets it, through the real binary: a table
 * of bad inputs (usage, configuration files, plugins, topology, flow traces,
 * kernel consistency, describe), each with the exit status it must give, a
 * sentence its stderr must contain, and the file and line that sentence must
 * name when the error comes from a line of a file; then the good paths:
 * --version, the help texts, plugins, describe, a small run with its
 * outputs, --set and --seed reaching summary.json, and exit status 3 for a
 * run that drains its event queue with flows still incomplete.
 */
#define _GNU_SOURCE
#include "th.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the inputs ------------------------------------------------------------- */

/* A valid scenario whose [workload] reads trace.txt; further sections
 * written after it start on line 9. */
#define INI_FLOWS                                                              \
	"[topology]\n"   /* 1 */                                              \
	"name = fat-tree\n" /* 2 */                                           \
	"k = 4\n"        /* 3 */                                              \
	"[cc]\n"         /* 4 */                                              \
	"name = none\n"  /* 5 */                                              \
	"[workload]\n"   /* 6 */                                              \
	"name = flows\n" /* 7 */                                              \
	"file = trace.txt\n" /* 8 */

/* Two small flows between hosts of different pods of a k=4 fat-tree. */
#define TRACE_OK "2\n0 5 3 100 10000 0\n1 9 3 100 10000 0\n"

/* Placeholders in args and where: @INI the ini written for the row,
 * @TRACE its trace, @DIR the scratch directory (a prefix). */
struct bad_input {
	const char *name;
	const char *ini;      /* written to case.ini; NULL: no case.ini */
	const char *trace;    /* written to trace.txt; NULL: no trace.txt */
	const char *args[8];  /* after the program name, NULL-terminated */
	int status;           /* the exit status */
	const char *needle;   /* must appear in stderr */
	const char *where;    /* the file stderr must name; NULL: none */
	int line;             /* and its line; 0: the file alone */
};

static const struct bad_input bad_inputs[] = {
	/* ---- usage ---- */
	{ "no command", NULL, NULL, { NULL }, 2,
	  "usage: warpsim COMMAND [options] [args]", NULL, 0 },
	{ "unknown command", NULL, NULL, { "frobnicate", NULL }, 2,
	  "warpsim: unknown command 'frobnicate'", NULL, 0 },
	{ "run without a config", NULL, NULL, { "run", NULL }, 2,
	  "warpsim run: expected one CONFIG.ini, got 0 arguments", NULL, 0 },
	{ "run with two configs", INI_FLOWS, TRACE_OK, { "run", "@INI", "@INI", NULL }, 2,
	  "warpsim run: expected one CONFIG.ini, got 2 arguments", NULL, 0 },
	{ "max-wall not a number", INI_FLOWS, TRACE_OK, { "run", "--max-wall", "soon", "@INI", NULL }, 2,
	  "warpsim run: --max-wall 'soon': expected a positive number of seconds", NULL, 0 },
	{ "max-wall zero", INI_FLOWS, TRACE_OK, { "run", "--max-wall", "0", "@INI", NULL }, 2,
	  "--max-wall '0': expected a positive number of seconds", NULL, 0 },
	{ "unknown option", INI_FLOWS, TRACE_OK, { "run", "--bogus", "@INI", NULL }, 2,
	  "warpsim run: unknown option '--bogus'", NULL, 0 },
	{ "option missing its argument", INI_FLOWS, TRACE_OK, { "run", "@INI", "-o", NULL }, 2,
	  "warpsim run: missing the argument of option '-o'", NULL, 0 },
	{ "malformed --set", INI_FLOWS, TRACE_OK, { "run", "--set", "cc", "@INI", NULL }, 2,
	  "--set cc: expected section.key=value (e.g. --set cc.rate_ai=40Mbps)", NULL, 0 },
	{ "--set without a key", INI_FLOWS, TRACE_OK, { "run", "--set", "cc.=1", "@INI", NULL }, 2,
	  "--set cc.=1: expected section.key=value", NULL, 0 },
	{ "--seed not a number", INI_FLOWS, TRACE_OK, { "run", "--seed", "abc", "@INI", NULL }, 2,
	  "--set sim.seed: [sim] seed = abc: expected a non-negative integer", NULL, 0 },
	{ "plugins with an argument", NULL, NULL, { "plugins", "extra", NULL }, 2,
	  "warpsim plugins: takes no arguments", NULL, 0 },
	{ "describe without a name", NULL, NULL, { "describe", NULL }, 2,
	  "warpsim describe: expected one NAME", NULL, 0 },
	{ "topo without a config", NULL, NULL, { "topo", NULL }, 2,
	  "warpsim topo: expected one CONFIG.ini, got 0 arguments", NULL, 0 },
	{ "topo --check-routes not a number", INI_FLOWS, TRACE_OK,
	  { "topo", "--check-routes", "many", "@INI", NULL }, 2,
	  "--check-routes 'many': expected a number of host pairs", NULL, 0 },
	{ "topo --check-routes negative", INI_FLOWS, TRACE_OK,
	  { "topo", "--check-routes", "-5", "@INI", NULL }, 2,
	  "--check-routes '-5': expected a number of host pairs", NULL, 0 },
	{ "topo --dot of a large fabric", "[topology]\nname = fat-tree\nk = 32\n", NULL,
	  { "topo", "--dot", "@DIR/big.dot", "@INI", NULL }, 2,
	  "--dot is for small fabrics: this one has 9472 nodes (at most 5000)", NULL, 0 },
	{ "topo --dot into a missing directory", "[topology]\nname = fat-tree\n", NULL,
	  { "topo", "--dot", "@DIR/no/such/dir/f.dot", "@INI", NULL }, 1,
	  "/no/such/dir/f.dot: cannot write: No such file or directory", NULL, 0 },
	{ "topo with a bad topology key", "[topology]\nname = fat-tree\nk = 5\n", NULL,
	  { "topo", "@INI", NULL }, 2, "k = 5: a fat-tree needs an even k", "@INI", 3 },

	/* ---- configuration files ---- */
	{ "missing config file", NULL, NULL, { "run", "@DIR/absent.ini", NULL }, 2,
	  "cannot open configuration: No such file or directory", "@DIR/absent.ini", 0 },
	{ "a directory as config", NULL, NULL, { "run", "@DIR", NULL }, 2,
	  "cannot read configuration", "@DIR", 0 },
	{ "malformed line", "[sim]\nseed = 1\njunk line\n", NULL, { "run", "@INI", NULL }, 2,
	  "malformed line 'junk line' (expected 'key = value', '[section]' or a comment",
	  "@INI", 3 },
	{ "unterminated section", "[sim]\nseed = 1\n[topology\nname = fat-tree\n", NULL,
	  { "run", "@INI", NULL }, 2,
	  "malformed section header '[topology' (expected [name])", "@INI", 3 },
	{ "key outside a section", "; a comment\nseed = 1\n[sim]\n", NULL,
	  { "run", "@INI", NULL }, 2,
	  "key 'seed' is outside any section (expected a [section] line first)", "@INI", 2 },
	{ "duplicate key", INI_FLOWS "[sim]\nseed = 1\nseed = 2\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "duplicate key 'seed' in [sim] (first set on line 10)", "@INI", 11 },
	{ "indented continuation", INI_FLOWS "[sim]\nseed = 1\n  2\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "indented line: keys must start at the beginning of a line", "@INI", 11 },
	{ "unknown section", INI_FLOWS "[swich]\nbuffer = 1MB\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "unknown section [swich] (expected sim, nic, switch, output, failures, topology, routing, "
	  "cc, accel or workload); did you mean [switch]?", "@INI", 9 },
	{ "unknown kernel key", INI_FLOWS "[sim]\nsed = 3\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "unknown key 'sed' in [sim] for the kernel section [sim]; did you mean 'seed'?",
	  "@INI", 10 },
	{ "unknown plugin key",
	  "[topology]\nname = fat-tree\n[cc]\nname = dcqcn\nrate_aii = 40Mbps\n"
	  "[workload]\nname = flows\nfile = trace.txt\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "unknown key 'rate_aii' in [cc] for cc plugin 'dcqcn'; did you mean 'rate_ai'?",
	  "@INI", 5 },
	{ "bad unit", "[topology]\nname = fat-tree\nlink_rate = 100Gbs\n"
	  "[workload]\nname = flows\nfile = trace.txt\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "[topology] link_rate = 100Gbs: unknown rate unit 'Gbs' (expected bps, Kbps, "
	  "Mbps, Gbps, Tbps)", "@INI", 3 },
	{ "missing unit", "[topology]\nname = fat-tree\nlink_delay = 5\n"
	  "[workload]\nname = flows\nfile = trace.txt\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "[topology] link_delay = 5: missing unit: expected a time such as 1us", "@INI", 3 },
	{ "out of range", "[topology]\nname = fat-tree\nk = 300\n"
	  "[workload]\nname = flows\nfile = trace.txt\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "[topology] k = 300: 300 is out of range (expected 2 to 254)", "@INI", 3 },
	{ "bad enum value", INI_FLOWS "[nic]\nwindow = maybe\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "[nic] window = maybe: expected one of: off, max-bdp, path-bdp", "@INI", 10 },
	{ "bad bool", INI_FLOWS "[switch]\npfc = perhaps\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "[switch] pfc = perhaps: expected true or false (also yes/no, on/off, 1/0)",
	  "@INI", 10 },
	{ "empty number", INI_FLOWS "[sim]\nseed =\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "[sim] seed = : expected an integer", "@INI", 10 },
	{ "negative size", INI_FLOWS "[switch]\nbuffer = -1MB\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "[switch] buffer = -1MB: a size cannot be negative", "@INI", 10 },

	/* ---- plugins ---- */
	{ "unknown topology", "[topology]\nname = torus\n[workload]\nname = flows\n"
	  "file = trace.txt\n", TRACE_OK, { "run", "@INI", NULL }, 2,
	  "unknown topology plugin 'torus'; available: clos, dragonfly, fat-tree, file, rail, simai (searched ", "@INI", 2 },
	{ "unknown cc", "[topology]\nname = fat-tree\n[cc]\nname = cubic\n"
	  "[workload]\nname = flows\nfile = trace.txt\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "unknown cc plugin 'cubic'; available: dcqcn, ", "@INI", 4 },
	{ "plugin name with a path", "[topology]\nname = fat-tree\n[cc]\nname = ../dcqcn\n"
	  "[workload]\nname = flows\nfile = trace.txt\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "invalid cc plugin name '../dcqcn' (letters, digits, - and _)", "@INI", 4 },
	{ "missing [workload]", "[topology]\nname = fat-tree\n", NULL,
	  { "run", "@INI", NULL }, 2,
	  "missing [workload] section with 'name = <workload plugin>'", "@INI", 0 },
	{ "missing [topology]", "[workload]\nname = flows\nfile = trace.txt\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "missing [topology] section with 'name = <topology plugin>'", "@INI", 0 },
	{ "missing required key", "[topology]\nname = fat-tree\n[workload]\nname = flows\n",
	  NULL, { "run", "@INI", NULL }, 2,
	  "[workload] is missing the required key 'file' for workload plugin 'flows'",
	  "@INI", 0 },

	/* ---- topology ---- */
	{ "odd k", "[topology]\nname = fat-tree\nk = 5\n[workload]\nname = flows\n"
	  "file = trace.txt\n", TRACE_OK, { "run", "@INI", NULL }, 2,
	  "[topology] fat-tree: k = 5: a fat-tree needs an even k", "@INI", 3 },

	/* ---- flow traces (hosts 0..15, switches 16..35) ---- */
	{ "missing trace", "[topology]\nname = fat-tree\n[workload]\nname = flows\n"
	  "file = absent-trace.txt\n", NULL, { "run", "@INI", NULL }, 2,
	  "cannot open the flow trace: No such file or directory",
	  "@DIR/absent-trace.txt", 0 },
	{ "empty trace", INI_FLOWS, "", { "run", "@INI", NULL }, 2,
	  "empty flow trace (expected the number of flows on the first line)", "@TRACE", 0 },
	{ "first line not a number", INI_FLOWS, "two\n0 5 3 100 1000 0\n",
	  { "run", "@INI", NULL }, 2,
	  "the first line must be the number of flows", "@TRACE", 1 },
	{ "fewer flows than declared", INI_FLOWS, "3\n0 5 3 100 1000 0\n1 6 3 100 1000 0\n",
	  { "run", "@INI", NULL }, 2,
	  "the first line declares 3 flows but the file ends after 2", "@TRACE", 3 },
	{ "field not a number", INI_FLOWS, "1\n0 x 3 100 1000 0\n", { "run", "@INI", NULL }, 2,
	  "bad dst 'x' (expected a non-negative integer)", "@TRACE", 2 },
	{ "too many fields", INI_FLOWS, "1\n0 5 3 100 1000 0 7\n", { "run", "@INI", NULL }, 2,
	  "too many fields (found 7 fields; expected: src dst priority dport bytes "
	  "start_seconds)", "@TRACE", 2 },
	{ "too few fields", INI_FLOWS, "1\n0 5 3 100 1000\n", { "run", "@INI", NULL }, 2,
	  "too few fields (found 5 fields;", "@TRACE", 2 },
	{ "switch as endpoint", INI_FLOWS, "2\n0 5 3 100 1000 0\n16 1 3 100 1000 0\n",
	  { "run", "@INI", NULL }, 2,
	  "src 16 is a switch, not a host", "@TRACE", 3 },
	{ "node that does not exist", INI_FLOWS, "1\n0 36 3 100 1000 0\n",
	  { "run", "@INI", NULL }, 2,
	  "no such destination node 36: the fabric has nodes 0..35", "@TRACE", 2 },
	{ "src == dst", INI_FLOWS, "1\n7 7 3 100 1000 0\n", { "run", "@INI", NULL }, 2,
	  "a flow from a host to itself (node 7)", "@TRACE", 2 },
	{ "priority 0", INI_FLOWS, "1\n0 5 0 100 1000 0\n", { "run", "@INI", NULL }, 2,
	  "bad priority 0: expected 1..7 (0 is reserved for PFC and control traffic)",
	  "@TRACE", 2 },
	{ "bytes 0", INI_FLOWS, "1\n0 5 3 100 0 0\n", { "run", "@INI", NULL }, 2,
	  "a flow of 0 bytes", "@TRACE", 2 },
	{ "negative start", INI_FLOWS, "1\n0 5 3 100 1000 -1\n", { "run", "@INI", NULL }, 2,
	  "bad start_seconds '-1' (expected seconds, e.g. 2.000001)", "@TRACE", 2 },

	/* ---- kernel consistency ---- */
	{ "header >= mtu", INI_FLOWS "[nic]\nmtu = 64B\nheader = 100B\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "[nic] header (100 B) must be smaller than mtu (64 B)", "@INI", 11 },
	{ "ecn_kmin > ecn_kmax", INI_FLOWS "[switch]\necn_kmin = 2MB\necn_kmax = 1MB\n",
	  TRACE_OK, { "run", "@INI", NULL }, 2,
	  "[switch] ecn_kmin (2000000 B) is above ecn_kmax (1000000 B)", "@INI", 10 },
	{ "ecn_kmin > ecn_kmax by --set", INI_FLOWS, TRACE_OK,
	  { "run", "--set", "switch.ecn_kmin=2MB", "@INI", NULL }, 2,
	  "--set switch.ecn_kmin: [switch] ecn_kmin (2000000 B) is above ecn_kmax "
	  "(1600000 B)", NULL, 0 },
	/* the check runs on the built fabric; the message names the buffer
	 * line and the switch */
	{ "buffer below the PFC headroom", INI_FLOWS "[switch]\nbuffer = 100KiB\n", TRACE_OK,
	  { "run", "@INI", NULL }, 2,
	  "[switch] buffer = 102400 bytes is too small for switch 16: its 4 ports need "
	  "150000 bytes of PFC headroom and 16384 reserved", "@INI", 10 },

	/* ---- describe ---- */
	{ "describe an unknown name", NULL, NULL, { "describe", "nosuch", NULL }, 2,
	  "no plugin or kernel section named 'nosuch'", NULL, 0 },
	{ "describe --kind bad", NULL, NULL, { "describe", "--kind", "bogus", "dcqcn", NULL }, 2,
	  "warpsim describe: unknown kind 'bogus' (expected topology, routing, cc, accel "
	  "or workload)", NULL, 0 },

	/* ---- the run itself fails: outputs cannot be written ---- */
	{ "output directory not creatable", INI_FLOWS, TRACE_OK,
	  { "run", "-q", "-o", "/dev/null/out", "@INI", NULL }, 1,
	  "cannot create directory: Not a directory", "/dev/null/out", 0 },
};

#define N_BAD (sizeof bad_inputs / sizeof bad_inputs[0])

/* ---- helpers ------------------------------------------------------------------ */

static char ini_path[512], trace_path[512];

static const char *expand(const char *s, char *buf, size_t size)
{
	if (strcmp(s, "@INI") == 0)
		return ini_path;
	if (strcmp(s, "@TRACE") == 0)
		return trace_path;
	if (strncmp(s, "@DIR", 4) == 0) {
		snprintf(buf, size, "%s%s", th_tmpdir(), s + 4);
		return buf;
	}
	return s;
}

/* The line of `text` that starts with `prefix` (a copy), or NULL. */
static char *line_starting(const char *text, const char *prefix)
{
	size_t pl = strlen(prefix);
	for (const char *s = text; s && *s;) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		if (n >= pl && strncmp(s, prefix, pl) == 0)
			return strndup(s, n);
		s = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* The block of `text` from `heading` to the next blank line (a copy). */
static char *block(const char *text, const char *heading)
{
	const char *s = strstr(text, heading);
	if (!s)
		return NULL;
	const char *e = strstr(s, "\n\n");
	return strndup(s, e ? (size_t)(e - s) : strlen(s));
}

static void check_contains(const char *what, const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("%s does not contain \"%s\"; it is:\n%s", what, needle, text);
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* ---- the table ------------------------------------------------------------------ */

static void test_bad_input(void **state)
{
	const struct bad_input *b = *state;
	snprintf(ini_path, sizeof ini_path, "%s/case.ini", th_tmpdir());
	snprintf(trace_path, sizeof trace_path, "%s/trace.txt", th_tmpdir());
	unlink(ini_path);
	unlink(trace_path);
	if (b->ini)
		th_write("case.ini", b->ini);
	if (b->trace)
		th_write("trace.txt", b->trace);

	char bufs[8][512];
	const char *args[9];
	size_t n = 0;
	for (; n < 8 && b->args[n]; n++)
		args[n] = expand(b->args[n], bufs[n], sizeof bufs[n]);
	args[n] = NULL;

	char *out = NULL, *err = NULL;
	int status = th_cli(args, &out, &err);
	if (status >= 128)
		fail_msg("%s: warpsim crashed (signal %d); stderr:\n%s", b->name,
			 status - 128, err);
	if (status != b->status)
		fail_msg("%s: exit status %d, expected %d; stderr:\n%s", b->name, status,
			 b->status, err);
	check_contains("stderr", err, b->needle);
	if (b->where) {
		char fbuf[512], prefix[700];
		const char *file = expand(b->where, fbuf, sizeof fbuf);
		if (b->line)
			snprintf(prefix, sizeof prefix, "warpsim: %s:%d: ", file, b->line);
		else
			snprintf(prefix, sizeof prefix, "warpsim: %s: ", file);
		check_contains("stderr", err, prefix);
	}
	/* a refused input leaves nothing behind on stdout but help text */
	if (b->status == 2)
		assert_null(strstr(out, "outputs "));
	free(out);
	free(err);
}

/* ---- good paths ------------------------------------------------------------------ */

static void test_version(void **state)
{
	(void)state;
	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "--version", NULL }, &out, &err), 0);
	assert_int_equal(strncmp(out, "warpsim ", 8), 0);
	check_contains("stdout", out, "(plugin ABI ");
	assert_string_equal(err, "");
	free(out);
	free(err);
	assert_int_equal(th_cli((const char *[]){ "-V", NULL }, &out, &err), 0);
	assert_int_equal(strncmp(out, "warpsim ", 8), 0);
	free(out);
	free(err);
}

static void test_help(void **state)
{
	(void)state;
	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "--help", NULL }, &out, &err), 0);
	check_contains("stdout", out, "usage: warpsim COMMAND [options] [args]");
	check_contains("stdout", out, "\n  run ");
	check_contains("stdout", out, "\n  plugins ");
	check_contains("stdout", out, "\n  describe ");
	check_contains("stdout", out, "\n  topo ");
	check_contains("stdout", out, "exit status: 0 ok, 1 run failed, 2 bad input, "
				      "3 flows left incomplete");
	assert_string_equal(err, "");
	free(out);
	free(err);

	assert_int_equal(th_cli((const char *[]){ "run", "--help", NULL }, &out, &err), 0);
	check_contains("stdout", out, "usage: warpsim run [options] CONFIG.ini");
	check_contains("stdout", out, "-o, --output DIR");
	check_contains("stdout", out, "--set SECTION.KEY=VALUE");
	check_contains("stdout", out, "--seed N");
	check_contains("stdout", out, "--plugin-path DIRS");
	assert_string_equal(err, "");
	free(out);
	free(err);

	assert_int_equal(th_cli((const char *[]){ "describe", "--help", NULL }, &out, &err), 0);
	check_contains("stdout", out, "usage: warpsim describe [options] NAME");
	check_contains("stdout", out, "--kind KIND");
	free(out);
	free(err);
}

static void test_plugins(void **state)
{
	(void)state;
	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "plugins", NULL }, &out, &err), 0);
	static const struct {
		const char *heading, *name;
	} want[] = {
		{ "topology:\n", "\n  fat-tree " },
		{ "routing:\n", "\n  updown " },
		{ "cc:\n", "\n  dcqcn " },
		{ "cc:\n", "\n  none " },
		{ "accel:\n", "\n  none " },
		{ "workload:\n", "\n  flows " },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		char *b = block(out, want[i].heading);
		if (!b)
			fail_msg("no \"%s\" in:\n%s", want[i].heading, out);
		check_contains(want[i].heading, b, want[i].name);
		free(b);
	}
	check_contains("stdout", out, "search path:");
	assert_string_equal(err, "");
	free(out);
	free(err);
}

/* `describe` output has a line for parameter `key` (indented two spaces)
 * holding each of the NULL-terminated `parts` (type, default, range,
 * meaning). */
static void expect_param_line(const char *out, const char *key,
			      const char *const *parts)
{
	char prefix[64];
	snprintf(prefix, sizeof prefix, "  %s ", key);
	char *l = line_starting(out, prefix);
	if (!l)
		fail_msg("no %s line in:\n%s", key, out);
	for (size_t i = 0; parts[i]; i++)
		check_contains(key, l, parts[i]);
	free(l);
}

/* Every CC of the suite: its heading, one parameter's full line, and what
 * it needs from the switches. */
static void test_describe_ccs(void **state)
{
	(void)state;
	static const struct {
		const char *cc, *key, *parts[5], *needs;
	} want[] = {
		{ "dcqcn", "rate_ai", { " rate ", " 20Mbps ", "0bps .. 1Tbps",
					"additive increase of the target rate", NULL },
		  "needs: ECN" },
		{ "dcqcn", "cnp_mode", { " enum ", "ack|packet", NULL }, "needs: ECN" },
		{ "hpcc", "eta", { " float ", " 0.95 ", "0 .. 1", "target utilization", NULL },
		  "needs: INT" },
		{ "timely", "t_high", { " time ", " 500us ", "1ns .. 1s",
					"above this RTT the rate decreases", NULL },
		  "needs: nothing from switches" },
		{ "dctcp", "g", { " float ", " 0.0625 ", "0 .. 1", "alpha EWMA gain", NULL },
		  "needs: ECN" },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(want); i++) {
		char *out, *err;
		assert_int_equal(th_cli((const char *[]){ "describe", want[i].cc, NULL },
					&out, &err), 0);
		char head[64];
		int n = snprintf(head, sizeof head, "cc plugin '%s' ", want[i].cc);
		assert_int_equal(strncmp(out, head, (size_t)n), 0);
		expect_param_line(out, want[i].key, want[i].parts);
		check_contains(want[i].cc, out, want[i].needs);
		assert_string_equal(err, "");
		free(out);
		free(err);
	}

	/* the same with the right kind; nothing with another */
	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "describe", "--kind", "cc", "dcqcn", NULL },
				&out, &err), 0);
	check_contains("stdout", out, "  rate_ai ");
	free(out);
	free(err);
	assert_int_equal(th_cli((const char *[]){ "describe", "--kind", "topology", "dcqcn",
						  NULL }, &out, &err), 2);
	check_contains("stderr", err, "no topology plugin named 'dcqcn'");
	free(out);
	free(err);
}

static void test_describe_switch(void **state)
{
	(void)state;
	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "describe", "switch", NULL }, &out, &err), 0);
	assert_int_equal(strncmp(out, "[switch] (kernel section): ", 27), 0);
	expect_param_line(out, "buffer",
			  (const char *const[]){ " size ", " 32MiB ", "1KiB .. 4GiB", NULL });
	expect_param_line(out, "pfc", (const char *const[]){ " bool ", " true ", NULL });
	check_contains("stdout", out, "  ecn_kmin ");
	assert_string_equal(err, "");
	free(out);
	free(err);
}

/* Number of lines of a file. */
static size_t count_lines(const char *path)
{
	char *s = th_read(path, NULL);
	if (!s)
		fail_msg("cannot read %s", path);
	size_t n = 0;
	for (const char *p = s; *p; p++)
		n += *p == '\n';
	free(s);
	return n;
}

/* warpsim topo: the fabric's facts without a workload, route checks, dot. */
static void test_topo(void **state)
{
	(void)state;
	const char *ini = th_write("topo.ini", "[topology]\nname = fat-tree\nk = 6\n");
	char dot[512];
	snprintf(dot, sizeof dot, "%s/k6.dot", th_tmpdir());
	char *out, *err;
	int st = th_cli((const char *[]){ "topo", "--check-routes", "5000", "--dot", dot,
					  ini, NULL }, &out, &err);
	if (st != 0)
		fail_msg("warpsim topo: status %d, stderr:\n%s", st, err);
	/* k = 6: 54 hosts, 45 switches, 162 links; 54 + 45 * 6 ports */
	check_contains("stdout", out, "  topology   fat-tree (up/down tree), routing updown\n");
	check_contains("stdout", out, "  nodes      99: 54 endpoints (hosts), 45 switches\n");
	check_contains("stdout", out, "  links      162; ports 324: 54 at hosts, 270 at switches\n");
	check_contains("stdout", out, " B per endpoint; routing state 0 B");
	check_contains("stdout", out, " CPU s to routing-ready (");
	check_contains("stdout", out, "  routes     5000 random pairs: all loop-free and "
				      "delivered; 2-6 links, mean ");
	check_contains("stdout", out, "ns per decision (");
	assert_string_equal(err, "");
	free(out);
	free(err);
	char *g = th_read(dot, NULL);
	assert_non_null(g);
	check_contains("dot", g, "graph fabric {");
	check_contains("dot", g, "n0 [shape=box, label=\"h0\\n0.0.0\"];");
	/* every link once: 162 edges */
	size_t edges = 0;
	for (const char *c = g; (c = strstr(c, " -- ")); c++)
		edges++;
	assert_int_equal(edges, 162);
	free(g);
	/* the same pairs for the same seed */
	char *a, *b;
	st = th_cli((const char *[]){ "topo", "--check-routes", "300", ini, NULL }, &a, &err);
	assert_int_equal(st, 0);
	free(err);
	st = th_cli((const char *[]){ "topo", "--check-routes", "300", ini, NULL }, &b, &err);
	assert_int_equal(st, 0);
	free(err);
	const char *ra = strstr(a, "  routes "), *rb = strstr(b, "  routes ");
	assert_non_null(ra);
	assert_non_null(rb);
	assert_memory_equal(ra, rb, (size_t)(strchr(ra, '\n') - ra));
	free(a);
	free(b);
}

static void test_run_ok(void **state)
{
	(void)state;
	th_write("ok.txt", TRACE_OK);
	const char *ini = th_write("ok.ini",
				   "[topology]\nname = fat-tree\nk = 4\n"
				   "[cc]\nname = dcqcn\n"
				   "[workload]\nname = flows\nfile = ok.txt\n");
	char ini_copy[512], dir[512], path[600];
	snprintf(ini_copy, sizeof ini_copy, "%s", ini);
	snprintf(dir, sizeof dir, "%s/out", th_tmpdir());
	char *out, *err;
	int st = th_cli((const char *[]){ "run", "-o", dir, ini_copy, NULL }, &out, &err);
	if (st != 0)
		fail_msg("exit status %d; stderr:\n%s", st, err);
	check_contains("stdout", out, "flows      2 of 2 completed");
	check_contains("stdout", out, "fat-tree: 36 nodes (16 hosts, 20 switches), 48 links");
	check_contains("stdout", out, "routing updown, cc dcqcn, accel none, workload flows");
	assert_string_equal(err, "");
	free(out);
	free(err);

	snprintf(path, sizeof path, "%s/fct.csv", dir);
	assert_true(exists(path));
	assert_int_equal(count_lines(path), 3); /* header + 2 flows */
	char *fct = th_read(path, NULL);
	static const char header[] = "flow_id,src,dst,bytes,prio,start_ns,end_ns,fct_ns,"
				     "ideal_fct_ns,slowdown,tag\n";
	assert_int_equal(strncmp(fct, header, strlen(header)), 0);
	check_contains("fct.csv", fct, "\n0,0,5,10000,3,0.000,");
	check_contains("fct.csv", fct, "\n1,1,9,10000,3,0.000,");
	free(fct);
	snprintf(path, sizeof path, "%s/summary.json", dir);
	char *js = th_read(path, NULL);
	assert_non_null(js);
	check_contains("summary.json", js, "\"seed\": 1,");
	check_contains("summary.json", js, "\"rate_ai_bps\": 20000000,");
	check_contains("summary.json", js, "\"created\": 2,");
	check_contains("summary.json", js, "\"completed\": 2,");
	check_contains("summary.json", js, "\"incomplete\": 0");
	free(js);

	/* --quiet prints nothing at all */
	st = th_cli((const char *[]){ "run", "-q", "-o", dir, ini_copy, NULL }, &out, &err);
	assert_int_equal(st, 0);
	assert_string_equal(out, "");
	assert_string_equal(err, "");
	free(out);
	free(err);
}

static void test_set_and_seed(void **state)
{
	(void)state;
	th_write("set.txt", TRACE_OK);
	const char *ini = th_write("set.ini",
				   "[sim]\nseed = 7\n"
				   "[topology]\nname = fat-tree\nk = 4\n"
				   "[cc]\nname = dcqcn\nrate_ai = 30Mbps\n"
				   "[workload]\nname = flows\nfile = set.txt\n");
	char ini_copy[512], dir[512], path[600];
	snprintf(ini_copy, sizeof ini_copy, "%s", ini);
	snprintf(dir, sizeof dir, "%s/set-out", th_tmpdir());
	snprintf(path, sizeof path, "%s/summary.json", dir);

	/* the file's own values first */
	char *out, *err;
	assert_int_equal(th_cli((const char *[]){ "run", "-q", "-o", dir, ini_copy, NULL },
				&out, &err), 0);
	free(out);
	free(err);
	char *js = th_read(path, NULL);
	assert_non_null(js);
	check_contains("summary.json", js, "\"seed\": 7,");
	check_contains("summary.json", js, "\"rate_ai_bps\": 30000000,");
	check_contains("summary.json", js, "\"link_delay_ps\": 1000000,");
	free(js);

	/* --set replaces a key of the file and adds one it lacks; --seed wins
	 * over [sim] seed */
	int st = th_cli((const char *[]){ "run", "-q", "-o", dir, "--set", "cc.rate_ai=40Mbps",
					  "--set", "topology.link_delay = 2us", "--seed", "42",
					  ini_copy, NULL }, &out, &err);
	if (st != 0)
		fail_msg("exit status %d; stderr:\n%s", st, err);
	free(out);
	free(err);
	js = th_read(path, NULL);
	assert_non_null(js);
	check_contains("summary.json", js, "\"seed\": 42,");
	check_contains("summary.json", js, "\"rate_ai_bps\": 40000000,");
	check_contains("summary.json", js, "\"link_delay_ps\": 2000000,");
	assert_null(strstr(js, "\"seed\": 7,"));
	assert_null(strstr(js, "\"rate_ai_bps\": 30000000,"));
	free(js);

	/* the longer links show in the flows' times: 12 us more of RTT */
	snprintf(path, sizeof path, "%s/fct.csv", dir);
	char *fct = th_read(path, NULL);
	assert_non_null(fct);
	check_contains("fct.csv", fct, "\n0,0,5,10000,3,0.000,25291.200,25291.200,");
	free(fct);
}

/*
 * Exit status 3.  A 6-to-1 incast on a drop-tail fabric (pfc = false) with
 * the retransmission timeout off (rto = 0s, as the reference): the NACKs
 * repair losses in mid-flow, but a flow whose retransmission is lost again
 * inside the NACK suppression interval has nothing left that would wake it,
 * so the event queue drains with that flow incomplete.
 */
static void test_incomplete(void **state)
{
	(void)state;
	th_write("incast.txt", "6\n"
			       "0 4 3 100 100000 0\n1 4 3 100 100000 0\n"
			       "2 4 3 100 100000 0\n3 4 3 100 100000 0\n"
			       "5 4 3 100 100000 0\n6 4 3 100 100000 0\n");
	const char *ini = th_write("incast.ini",
				   "[topology]\nname = fat-tree\nk = 4\n"
				   "[cc]\nname = none\n"
				   "[switch]\npfc = false\nbuffer = 64KiB\n"
				   "[nic]\nrto = 0s\n"
				   "[workload]\nname = flows\nfile = incast.txt\n");
	char ini_copy[512], dir[512], path[600];
	snprintf(ini_copy, sizeof ini_copy, "%s", ini);
	snprintf(dir, sizeof dir, "%s/incast-out", th_tmpdir());
	char *out, *err;
	int st = th_cli((const char *[]){ "run", "-o", dir, ini_copy, NULL }, &out, &err);
	assert_int_equal(st, 3);
	check_contains("stderr", err, "warpsim: 2 of 6 flows never completed although "
				      "nothing was left to simulate");
	check_contains("stdout", out, "flows      4 of 6 completed");
	free(out);
	free(err);
	/* the outputs are still written */
	snprintf(path, sizeof path, "%s/fct.csv", dir);
	assert_int_equal(count_lines(path), 5);
	snprintf(path, sizeof path, "%s/summary.json", dir);
	char *js = th_read(path, NULL);
	assert_non_null(js);
	check_contains("summary.json", js, "\"incomplete\": 2");
	free(js);

	/* the same run with a stop time is not a deadlock: it stopped early */
	st = th_cli((const char *[]){ "run", "-q", "-o", dir, "--set", "sim.stop_time=10us",
				      ini_copy, NULL }, &out, &err);
	assert_int_equal(st, 0);
	assert_string_equal(err, "");
	free(out);
	free(err);
}

/*
 * --max-wall stops a run at the first progress check (every 65,536 events)
 * past the budget: with a budget spent at once, the run stops there,
 * writes what it simulated, says so in summary.json and exits with 4; with
 * a budget that suffices, the results are those of an unbudgeted run.
 */
static void test_max_wall(void **state)
{
	(void)state;
	th_write("long.txt", "1\n0 5 3 100 20000000 0\n");
	const char *ini = th_write("long.ini", "[topology]\nname = fat-tree\nk = 4\n"
				   "[workload]\nname = flows\nfile = long.txt\n");
	char ini_copy[512], a[512], b[512];
	snprintf(ini_copy, sizeof ini_copy, "%s", ini);
	snprintf(a, sizeof a, "%s/mw-cut", th_tmpdir());
	snprintf(b, sizeof b, "%s/mw-all", th_tmpdir());
	char *out, *err;
	int st = th_cli((const char *[]){ "run", "-o", a, "--max-wall", "1e-9", ini_copy, NULL },
			&out, &err);
	assert_int_equal(st, 4);
	check_contains("stdout", out, "stopped    after --max-wall 1e-9 s: simulated ");
	check_contains("stdout", out, "0 of 1 flows completed");
	free(out);
	free(err);
	char *js = th_read(th_fmt("%s/summary.json", a), NULL);
	assert_non_null(js);
	check_contains("summary.json", js, "\"events\": 65536,");
	check_contains("summary.json", js, "\"end\": \"requested\",");
	free(js);
	/* a budget that suffices: the same fct.csv as an unbudgeted run */
	st = th_cli((const char *[]){ "run", "-q", "-o", a, "--max-wall", "1000", ini_copy, NULL },
		    &out, &err);
	assert_int_equal(st, 0);
	free(out);
	free(err);
	st = th_cli((const char *[]){ "run", "-q", "-o", b, ini_copy, NULL }, &out, &err);
	assert_int_equal(st, 0);
	free(out);
	free(err);
	char *x = th_read(th_fmt("%s/fct.csv", a), NULL), *y = th_read(th_fmt("%s/fct.csv", b), NULL);
	assert_non_null(x);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

int main(void)
{
	static const struct CMUnitTest good[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_plugins),
		cmocka_unit_test(test_describe_ccs),
		cmocka_unit_test(test_describe_switch),
		cmocka_unit_test(test_topo),
		cmocka_unit_test(test_run_ok),
		cmocka_unit_test(test_set_and_seed),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_max_wall),
	};
	static struct CMUnitTest tests[N_BAD + sizeof good / sizeof good[0]];
	size_t n = 0;
	for (size_t i = 0; i < N_BAD; i++)
		tests[n++] = (struct CMUnitTest){ bad_inputs[i].name, test_bad_input, NULL,
						  NULL, (void *)&bad_inputs[i] };
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		tests[n++] = good[i];
	return _cmocka_run_group_tests("test_cli", tests, n, NULL, NULL);
}
