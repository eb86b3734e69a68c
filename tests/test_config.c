/* SPDX-License-Identifier: MIT */
/*
 * Configuration (kernel/config.c, and the checks ws_sim_new makes on what
 * it read): ini parse errors with their file, line and sentence; comments
 * and values; ws_cfg_load of files, missing files and directories;
 * `--set` overrides through ws_cfg_set and the location they give later
 * errors; the errors only a simulation can find (unknown sections and keys
 * with their suggestions, bad and out-of-range values, plugin validation,
 * required keys, unknown plugins, the kernel's cross-checks); and a
 * deterministic fuzz loop that mutates a valid file and requires every
 * outcome to be a simulation or an error with a message.
 *
 * Each bad input is checked against the location and the words a user
 * reads, so a message that loses its line or its hint fails a test.
 */
#define _POSIX_C_SOURCE 200809L
#include "th.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* One flow from host 0 to host 5 of a k = 4 fat-tree. */
static const char TRACE[] = "1\n0 5 3 100 1000 0\n";

/* A valid configuration; tests append sections after line 7. */
static const char BASE[] =
	"[topology]\n"        /* 1 */
	"name = fat-tree\n"   /* 2 */
	"k = 4\n"             /* 3 */
	"\n"                  /* 4 */
	"[workload]\n"        /* 5 */
	"name = flows\n"      /* 6 */
	"file = trace.txt\n"; /* 7 */

/* ---- helpers -------------------------------------------------------------- */

static int setup(void **state)
{
	(void)state;
	th_write("trace.txt", TRACE);
	return 0;
}

static void assert_has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected \"%s\" in \"%s\"", needle, hay);
}

static void assert_lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		fail_msg("did not expect \"%s\" in \"%s\"", needle, hay);
}

/* BASE followed by `extra` (its first line is line 8). */
static const char *with(const char *extra)
{
	static char buf[8192];
	snprintf(buf, sizeof buf, "%s%s", BASE, extra);
	return buf;
}

/* Parse `text` as "cfg.ini"; expect an error at `line` saying `sub`. */
static void expect_parse_err(const char *text, int line, const char *sub)
{
	struct ws_cfg *cfg = NULL;
	struct ws_err err;
	ws_err_clear(&err);
	int rc = ws_cfg_parse_string(&cfg, text, "cfg.ini", th_tmpdir(), &err);
	if (rc == WS_OK) {
		ws_cfg_free(cfg);
		fail_msg("parsed without error; expected line %d: %s", line, sub);
	}
	assert_int_equal(rc, WS_EINVAL);
	assert_int_equal(err.code, WS_EINVAL);
	assert_null(cfg);
	assert_string_equal(err.file, "cfg.ini");
	if (err.line != line)
		fail_msg("error on line %d, expected %d: %s", err.line, line, err.msg);
	assert_has(err.msg, sub);
}

/* A simulation that must build; the caller frees it. */
static struct ws_sim *expect_sim(const char *ini)
{
	struct ws_sim *sim = NULL;
	struct ws_err err;
	int rc = th_sim_try(ini, &sim, &err, NULL);
	if (rc) {
		char msg[2048];
		ws_err_format(&err, msg, sizeof msg);
		fail_msg("ws_sim_new failed: %s", msg);
	}
	assert_non_null(sim);
	return sim;
}

/*
 * A configuration ws_sim_new must reject with `code`, located at
 * test.ini:`line` (line 0: the file without a line), saying `sub1` (and
 * `sub2` unless NULL).  The error is copied to `out` unless NULL.
 */
static void expect_sim_err(const char *ini, int code, int line,
			   const char *sub1, const char *sub2,
			   struct ws_err *out)
{
	struct ws_sim *sim = (struct ws_sim *)1;
	struct ws_err err;
	int rc = th_sim_try(ini, &sim, &err, NULL);
	if (rc == WS_OK) {
		ws_sim_free(sim);
		fail_msg("ws_sim_new succeeded; expected: %s", sub1);
	}
	assert_null(sim);
	if (rc != code)
		fail_msg("code %d, expected %d: %s", rc, code, err.msg);
	assert_int_equal(err.code, code);
	assert_string_equal(err.file, "test.ini");
	if (err.line != line)
		fail_msg("error on line %d, expected %d: %s", err.line, line, err.msg);
	assert_has(err.msg, sub1);
	if (sub2)
		assert_has(err.msg, sub2);
	if (out)
		*out = err;
}

/* ---- parsing: what is accepted ------------------------------------------------ */

static void test_base_is_valid(void **state)
{
	(void)state;
	struct ws_sim *sim = expect_sim(BASE);
	assert_string_equal(ws_sim_plugin_name(sim, WS_KIND_TOPO), "fat-tree");
	assert_string_equal(ws_sim_plugin_name(sim, WS_KIND_ROUTING), "updown");
	assert_string_equal(ws_sim_plugin_name(sim, WS_KIND_CC), "none");
	assert_string_equal(ws_sim_plugin_name(sim, WS_KIND_WORKLOAD), "flows");
	assert_int_equal(ws_sim_fabric(sim)->n_hosts, 16);
	/* the output directory is named after the ini file */
	assert_string_equal(ws_sim_default_out_dir(sim), "out/test");
	ws_sim_free(sim);
}

static void test_comments_and_values(void **state)
{
	(void)state;
	static const char ini[] =
		"; a comment\n"
		"# another comment\n"
		"\n"
		"   ; an indented comment before any key\n"
		"[topology] ; a comment after a section\n"
		"name = fat-tree ; inline comment\n"
		"k = 6 # inline hash comment\n"
		"link_rate = 100 Gbps\n"
		"  # an indented comment after a key\n"
		"\t; and one with a tab\n"
		"[workload]\n"
		"name=flows\n"
		"file   =   trace.txt   \n"
		"[output]\n"
		"dir = my out dir   # spaces inside a value stay\n";
	struct ws_sim *sim = expect_sim(ini);
	assert_int_equal(ws_sim_fabric(sim)->n_hosts, 54); /* k = 6 */
	assert_string_equal(ws_sim_default_out_dir(sim), "my out dir");
	ws_sim_free(sim);

	/* ';' and '#' without a space before them are part of the value */
	sim = expect_sim(with("[output]\ndir = a;b#c\n"));
	assert_string_equal(ws_sim_default_out_dir(sim), "a;b#c");
	ws_sim_free(sim);

	/* a comment cuts the value, which is then checked: "4 4" is not an int */
	expect_sim_err("[topology]\nname = fat-tree\nk = 4 4 ; four\n"
		       "[workload]\nname = flows\nfile = trace.txt\n",
		       WS_EINVAL, 3, "[topology] k = 4 4: expected an integer, found '4 4'",
		       NULL, NULL);
	expect_sim_err("[topology]\nname = fat-tree\nk = 4#x\n"
		       "[workload]\nname = flows\nfile = trace.txt\n",
		       WS_EINVAL, 3, "found '4#x'", NULL, NULL);
}

static void test_quoted_strings(void **state)
{
	(void)state;
	static const char dq[] =
		"[topology]\nname = fat-tree\n"
		"[workload]\nname = flows\nfile = \"trace.txt\"\n"
		"[output]\ndir = \"quoted dir\"\n";
	struct ws_sim *sim = expect_sim(dq);
	assert_string_equal(ws_sim_default_out_dir(sim), "quoted dir");
	ws_sim_free(sim);

	static const char sq[] =
		"[topology]\nname = fat-tree\n"
		"[workload]\nname = flows\nfile = 'trace.txt'\n"
		"[output]\ndir = 'x'\n";
	sim = expect_sim(sq);
	assert_string_equal(ws_sim_default_out_dir(sim), "x");
	ws_sim_free(sim);

	/* only one pair of matching quotes is removed */
	sim = expect_sim(with("[output]\ndir = \"'a'\"\n"));
	assert_string_equal(ws_sim_default_out_dir(sim), "'a'");
	ws_sim_free(sim);
	sim = expect_sim(with("[output]\ndir = \"a'\n"));
	assert_string_equal(ws_sim_default_out_dir(sim), "\"a'");
	ws_sim_free(sim);
	/* an empty quoted string is empty: the default directory */
	sim = expect_sim(with("[output]\ndir = \"\"\n"));
	assert_string_equal(ws_sim_default_out_dir(sim), "out/test");
	ws_sim_free(sim);
}

static void test_crlf_and_bom(void **state)
{
	(void)state;
	static const char ini[] =
		"\xEF\xBB\xBF[topology]\r\n"
		"name = fat-tree\r\n"
		"k = 6\r\n"
		"[workload]\r\n"
		"name = flows\r\n"
		"file = trace.txt\r\n"
		"[output]\r\n"
		"dir = a b\r\n";
	struct ws_sim *sim = expect_sim(ini);
	assert_int_equal(ws_sim_fabric(sim)->n_hosts, 54);
	assert_string_equal(ws_sim_default_out_dir(sim), "a b");
	ws_sim_free(sim);
	/* line numbers count CRLF lines too */
	expect_parse_err("[a]\r\nx = 1\r\nbroken\r\n", 3, "malformed line 'broken'");
}

/* ---- parsing: errors ------------------------------------------------------------ */

static void test_malformed_line(void **state)
{
	(void)state;
	expect_parse_err("[topology]\nname = fat-tree\nk 4\n", 3,
			 "malformed line 'k 4' (expected 'key = value', '[section]' "
			 "or a comment starting with ; or #)");
	expect_parse_err("[topology]\n\n\nname\n", 4, "malformed line 'name'");
	expect_parse_err("just words\n", 1, "malformed line 'just words'");
	/* the quoted line is cut when long */
	char line[200];
	memset(line, 'w', 150);
	line[150] = '\0';
	char quoted[128];
	snprintf(quoted, sizeof quoted, "malformed line '%.57s...' (expected", line);
	expect_parse_err(th_fmt("[a]\n%s\n", line), 2, quoted);
}

static void test_unterminated_section(void **state)
{
	(void)state;
	expect_parse_err("[abc\nx = 1\n", 1,
			 "malformed section header '[abc' (expected [name])");
	expect_parse_err("[topology]\nname = fat-tree\n\n[workload\nname = flows\n", 4,
			 "malformed section header '[workload'");
}

static void test_bad_names(void **state)
{
	(void)state;
	expect_parse_err("k = 4\n[topology]\n", 1,
			 "key 'k' is outside any section (expected a [section] line first)");
	expect_parse_err("; comment\n\nk = 4\n", 3, "outside any section");
	expect_parse_err("[to pology]\nname = fat-tree\n", 2,
			 "invalid section name [to pology]");
	expect_parse_err("[topology]\nna me = fat-tree\n", 2,
			 "invalid key name 'na me' in [topology]");
	expect_parse_err("[topology]\n= fat-tree\n", 2, "invalid key name '' in [topology]");
}

static void test_duplicate_key(void **state)
{
	(void)state;
	expect_parse_err("[topology]\nname = fat-tree\nk = 4\nk = 6\n", 4,
			 "duplicate key 'k' in [topology] (first set on line 3)");
	/* the section may be reopened, its keys still may not repeat */
	expect_parse_err("[topology]\nk = 4\n[workload]\nname = flows\n"
			 "[topology]\nname = fat-tree\nk = 4\n", 7,
			 "duplicate key 'k' in [topology] (first set on line 2)");
	/* the same key in two sections is two keys */
	struct ws_cfg *cfg = NULL;
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_cfg_parse_string(&cfg, "[a]\nx = 1\n[b]\nx = 1\n", "c.ini",
					     NULL, &err),
			 WS_OK);
	assert_non_null(cfg);
	ws_cfg_free(cfg);
}

static void test_indented_line(void **state)
{
	(void)state;
	/* inih reads an indented line after a key as more of its value, so
	 * keys must start at the beginning of a line, wherever they are */
	expect_parse_err("[topology]\nname = fat-tree\n  k = 4\n", 3,
			 "indented line: keys must start at the beginning of a line");
	expect_parse_err("[topology]\nname = fat-tree\n\tk = 4\n", 3, "indented");
	expect_parse_err("[topology]\nname = fat-tree\n    more words\n", 3,
			 "would continue the value of the key above");
	expect_parse_err("[topology]\nname = fat-tree\n\n  k = 4\n", 4, "indented");
	expect_parse_err("[topology]\nname = fat-tree\n  [workload]\n", 3, "indented");
	expect_parse_err("[topology]\n  name = fat-tree\n", 2, "indented");
	/* a section header too, even before any key */
	expect_parse_err("  [topology]\nname = fat-tree\n", 1, "indented");
	/* a key of 60 characters: inih truncates the names it remembers, the
	 * rule does not depend on them */
	expect_parse_err("[output]\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = 1\n"
			 "  dir = x\n", 3, "indented");
}

static void test_line_too_long(void **state)
{
	(void)state;
	char line[300];
	memset(line, 'x', 250);
	line[250] = '\0';
	expect_parse_err(th_fmt("[topology]\nname = fat-tree\n; %s\n", line), 3,
			 "line too long (252 characters; at most");
	expect_parse_err(th_fmt("[output]\ndir = %s\n", line), 2, "line too long");
	/* the first error wins: a malformed line before the long one */
	expect_parse_err(th_fmt("[a]\noops\ndir = %s\n", line), 2, "malformed line 'oops'");
	/* and a long line before a malformed one */
	expect_parse_err(th_fmt("[a]\ndir = %s\noops\n", line), 2, "line too long");

	/* lines of ordinary length are fine */
	char ok[200];
	memset(ok, 'y', 190);
	ok[190] = '\0';
	struct ws_sim *sim = expect_sim(th_fmt("%s; %s\n[output]\ndir = %s\n", BASE,
					       ok, ok + 10));
	assert_string_equal(ws_sim_default_out_dir(sim), ok + 10);
	ws_sim_free(sim);
}

static void test_first_error_wins(void **state)
{
	(void)state;
	expect_parse_err("[a]\nx = 1\nbad\nx = 2\n", 3, "malformed line 'bad'");
	expect_parse_err("[a]\nx = 1\nx = 2\nbad\n", 3, "duplicate key 'x'");
	expect_parse_err("[a]\nx = 1\n  y\n[b\n", 3, "indented");
	expect_parse_err("[a\n[a]\nx = 1\nx = 2\n", 1, "malformed section header");
}

/* ---- ws_cfg_load ---------------------------------------------------------------- */

static void test_load_file(void **state)
{
	(void)state;
	char dir[512], path[600];
	snprintf(dir, sizeof dir, "%s/sub", th_tmpdir());
	mkdir(dir, 0755);
	th_write("sub/trace2.txt", TRACE);
	snprintf(path, sizeof path, "%s", th_write("sub/run.ini",
		 "[topology]\nname = fat-tree\n[workload]\nname = flows\nfile = trace2.txt\n"));
	struct ws_cfg *cfg = NULL;
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_cfg_load(&cfg, path, &err), WS_OK);
	assert_non_null(cfg);
	assert_string_equal(ws_cfg_path(cfg), path);
	/* trace2.txt is found next to run.ini, not in the working directory */
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
	struct ws_sim *sim = NULL;
	int rc = ws_sim_new(&sim, cfg, &opts, &err);
	if (rc)
		fail_msg("ws_sim_new: %s", err.msg);
	assert_string_equal(ws_sim_default_out_dir(sim), "out/run");
	ws_sim_free(sim);
	ws_cfg_free(cfg);

	/* errors name the file as it was given */
	snprintf(path, sizeof path, "%s", th_write("sub/bad.ini", "[a]\nx = 1\nx = 2\n"));
	cfg = NULL;
	assert_int_equal(ws_cfg_load(&cfg, path, &err), WS_EINVAL);
	assert_null(cfg);
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 3);
	assert_has(err.msg, "duplicate key 'x' in [a] (first set on line 2)");
	char text[1200];
	ws_err_format(&err, text, sizeof text);
	assert_string_equal(text, th_fmt("%s:3: %s", path, err.msg));
}

static void test_load_nul_byte(void **state)
{
	(void)state;
	static const char data[] = "[topology]\nname = fat\0tree\nk = 4\n";
	char path[600];
	snprintf(path, sizeof path, "%s/nul.ini", th_tmpdir());
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, sizeof data - 1, f), sizeof data - 1);
	fclose(f);
	struct ws_cfg *cfg = NULL;
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_cfg_load(&cfg, path, &err), WS_EINVAL);
	assert_null(cfg);
	assert_int_equal(err.code, WS_EINVAL);
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 2);
	assert_has(err.msg, "binary data (a NUL byte)");
}

static void test_load_missing(void **state)
{
	(void)state;
	char path[600];
	snprintf(path, sizeof path, "%s/no-such-file.ini", th_tmpdir());
	struct ws_cfg *cfg = NULL;
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_cfg_load(&cfg, path, &err), WS_ENOENT);
	assert_null(cfg);
	assert_int_equal(err.code, WS_ENOENT);
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 0);
	assert_has(err.msg, "cannot open configuration");
	assert_has(err.msg, "No such file");
	/* a NULL error is allowed */
	assert_int_equal(ws_cfg_load(&cfg, path, NULL), WS_ENOENT);
}

static void test_load_directory(void **state)
{
	(void)state;
	struct ws_cfg *cfg = NULL;
	struct ws_err err;
	ws_err_clear(&err);
	int rc = ws_cfg_load(&cfg, th_tmpdir(), &err);
	assert_int_equal(rc, WS_EIO);
	assert_null(cfg);
	assert_int_equal(err.code, rc);
	assert_string_equal(err.file, th_tmpdir());
	assert_true(err.msg[0] != '\0');
	assert_has(err.msg, "cannot read configuration");
}

/* ---- ws_cfg_set --------------------------------------------------------------------- */

static struct ws_cfg *parse_base(const char *text)
{
	struct ws_cfg *cfg = NULL;
	struct ws_err err;
	ws_err_clear(&err);
	int rc = ws_cfg_parse_string(&cfg, text, "base.ini", th_tmpdir(), &err);
	if (rc)
		fail_msg("base does not parse: %s", err.msg);
	return cfg;
}

static int new_sim(const struct ws_cfg *cfg, struct ws_sim **sim,
		   struct ws_err *err)
{
	struct ws_opts opts = { WS_INIT_SIZE(struct ws_opts) };
	ws_err_clear(err);
	return ws_sim_new(sim, cfg, &opts, err);
}

static void set_ok(struct ws_cfg *cfg, const char *assignment)
{
	struct ws_err err;
	ws_err_clear(&err);
	if (ws_cfg_set(cfg, assignment, &err))
		fail_msg("--set %s: %s", assignment, err.msg);
}

static void test_set_replace_and_add(void **state)
{
	(void)state;
	struct ws_cfg *cfg = parse_base(BASE);
	set_ok(cfg, "topology.k=6");            /* replaces */
	set_ok(cfg, "output.dir=from set");     /* adds a key and a section */
	set_ok(cfg, "topology.link_rate=25Gbps"); /* adds a key */
	struct ws_sim *sim = NULL;
	struct ws_err err;
	assert_int_equal(new_sim(cfg, &sim, &err), WS_OK);
	assert_int_equal(ws_sim_fabric(sim)->n_hosts, 54);
	assert_string_equal(ws_sim_default_out_dir(sim), "from set");
	ws_sim_free(sim);

	/* the last --set wins; spaces around names and before the value go */
	set_ok(cfg, "  topology . k =  8");
	set_ok(cfg, "output.dir=a=b");
	assert_int_equal(new_sim(cfg, &sim, &err), WS_OK);
	assert_int_equal(ws_sim_fabric(sim)->n_hosts, 128);
	assert_string_equal(ws_sim_default_out_dir(sim), "a=b");
	ws_sim_free(sim);

	/* an empty value is a value */
	set_ok(cfg, "output.dir=");
	assert_int_equal(new_sim(cfg, &sim, &err), WS_OK);
	assert_string_equal(ws_sim_default_out_dir(sim), "out/base");
	ws_sim_free(sim);
	ws_cfg_free(cfg);
}

static void test_set_malformed(void **state)
{
	(void)state;
	struct ws_cfg *cfg = parse_base(BASE);
	static const char *const bad[] = { "cc", "cc.rate", ".x=1", "x.=1", "=1",
					   "", "x=1.5", "cc=rate.ai", ".=", NULL };
	for (size_t i = 0; bad[i]; i++) {
		struct ws_err err;
		ws_err_clear(&err);
		int rc = ws_cfg_set(cfg, bad[i], &err);
		if (rc != WS_EINVAL)
			fail_msg("--set '%s' accepted", bad[i]);
		assert_int_equal(err.code, WS_EINVAL);
		assert_has(err.msg, "expected section.key=value");
		assert_has(err.msg, th_fmt("--set %s:", bad[i]));
	}
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_equal(ws_cfg_set(cfg, "top ology.k=4", &err), WS_EINVAL);
	assert_has(err.msg, "section and key are letters, digits, _ - .");
	ws_err_clear(&err);
	assert_int_equal(ws_cfg_set(cfg, "topology.k k=4", &err), WS_EINVAL);
	assert_has(err.msg, "section and key are letters, digits, _ - .");
	char longname[300];
	memset(longname, 's', 200);
	snprintf(longname + 200, 100, ".k=1");
	ws_err_clear(&err);
	assert_int_equal(ws_cfg_set(cfg, longname, &err), WS_EINVAL);
	assert_has(err.msg, "name too long");
	/* nothing was changed by the rejected assignments */
	struct ws_sim *sim = NULL;
	assert_int_equal(new_sim(cfg, &sim, &err), WS_OK);
	assert_int_equal(ws_sim_fabric(sim)->n_hosts, 16);
	ws_sim_free(sim);
	ws_cfg_free(cfg);
}

static void test_set_location(void **state)
{
	(void)state;
	struct ws_cfg *cfg = parse_base(BASE);
	struct ws_sim *sim = NULL;
	struct ws_err err;
	/* an overridden key */
	set_ok(cfg, "topology.k=5");
	assert_int_equal(new_sim(cfg, &sim, &err), WS_EINVAL);
	assert_null(sim);
	assert_true(strncmp(err.file, "--set", 5) == 0);
	assert_string_equal(err.file, "--set topology.k");
	assert_int_equal(err.line, 0);
	assert_has(err.msg, "even");
	char text[1200];
	ws_err_format(&err, text, sizeof text);
	assert_true(strncmp(text, "--set topology.k: ", 18) == 0);
	ws_cfg_free(cfg);

	/* an added key */
	cfg = parse_base(BASE);
	set_ok(cfg, " topology . kk =1");
	assert_int_equal(new_sim(cfg, &sim, &err), WS_EINVAL);
	assert_string_equal(err.file, "--set topology.kk");
	assert_int_equal(err.line, 0);
	assert_has(err.msg, "unknown key 'kk' in [topology]");
	assert_has(err.msg, "did you mean 'k'?");
	ws_cfg_free(cfg);

	cfg = parse_base(BASE);
	set_ok(cfg, "switch.ecn_kmin=9MB");
	assert_int_equal(new_sim(cfg, &sim, &err), WS_EINVAL);
	assert_string_equal(err.file, "--set switch.ecn_kmin");
	assert_has(err.msg, "ecn_kmin");
	ws_cfg_free(cfg);

	/* keys that were not overridden keep their file and line */
	cfg = parse_base("[topology]\nname = fat-tree\nk = 5\n"
			 "[workload]\nname = flows\nfile = trace.txt\n");
	set_ok(cfg, "output.dir=x");
	assert_int_equal(new_sim(cfg, &sim, &err), WS_EINVAL);
	assert_string_equal(err.file, "base.ini");
	assert_int_equal(err.line, 3);
	ws_cfg_free(cfg);
}

static void test_cfg_path(void **state)
{
	(void)state;
	struct ws_cfg *cfg = parse_base(BASE);
	assert_string_equal(ws_cfg_path(cfg), "base.ini");
	ws_cfg_free(cfg);
	ws_cfg_free(NULL);
}

/* ---- what ws_sim_new finds --------------------------------------------------------------- */

static void test_unknown_section(void **state)
{
	(void)state;
	struct ws_err err;
	/* reported at the [header] line */
	expect_sim_err(with("[cc2]\nname = dcqcn\n"), WS_EINVAL, 8,
		       "unknown section [cc2] (expected sim, nic, switch, output, failures, "
		       "topology, routing, cc, accel or workload)",
		       "did you mean [cc]?", &err);
	char text[1200];
	ws_err_format(&err, text, sizeof text);
	assert_true(strncmp(text, "test.ini:8: unknown section [cc2] ", 34) == 0);
	expect_sim_err(with("\n[topolgy]\nk = 4\n"), WS_EINVAL, 9,
		       "unknown section [topolgy]", "did you mean [topology]?", NULL);
	expect_sim_err(with("[Switch]\nbuffer = 1MiB\n"), WS_EINVAL, 8,
		       "unknown section [Switch]", "did you mean [switch]?", NULL);
	expect_sim_err(with("[zzzzzzzzzzzz]\nx = 1\n"), WS_EINVAL, 8,
		       "unknown section [zzzzzzzzzzzz]", NULL, &err);
	assert_lacks(err.msg, "did you mean");
	/* even without keys */
	expect_sim_err(with("[cc2]\n"), WS_EINVAL, 8, "unknown section [cc2]", NULL, NULL);
}

static void test_unknown_key(void **state)
{
	(void)state;
	struct ws_err err;
	/* a kernel section */
	expect_sim_err(with("[switch]\nbufer = 1MiB\n"), WS_EINVAL, 9,
		       "unknown key 'bufer' in [switch] for the kernel section [switch]",
		       "did you mean 'buffer'?", &err);
	assert_string_equal(err.key, "switch.bufer");
	expect_sim_err(with("[sim]\nseeds = 3\n"), WS_EINVAL, 9,
		       "unknown key 'seeds' in [sim]", "did you mean 'seed'?", NULL);
	expect_sim_err(with("[nic]\nmtu = 1000B\nheadr = 40B\n"), WS_EINVAL, 10,
		       "unknown key 'headr' in [nic]", "did you mean 'header'?", NULL);
	/* a plugin section */
	expect_sim_err("[topology]\nname = fat-tree\nkk = 4\n"
		       "[workload]\nname = flows\nfile = trace.txt\n",
		       WS_EINVAL, 3,
		       "unknown key 'kk' in [topology] for topology plugin 'fat-tree'",
		       "did you mean 'k'?", &err);
	assert_string_equal(err.key, "topology.kk");
	expect_sim_err(with("[cc]\nname = dcqcn\nrate_aii = 5Mbps\n"), WS_EINVAL, 10,
		       "unknown key 'rate_aii' in [cc] for cc plugin 'dcqcn'",
		       "did you mean 'rate_ai'?", NULL);
	expect_sim_err(with("[workload]\nfiles = x\n"), WS_EINVAL, 9,
		       "unknown key 'files' in [workload] for workload plugin 'flows'",
		       "did you mean 'file'?", NULL);
	/* "name" belongs to plugin sections only */
	expect_sim_err(with("[switch]\nname = x\n"), WS_EINVAL, 9,
		       "unknown key 'name' in [switch]", NULL, NULL);
}

static void test_bad_values(void **state)
{
	(void)state;
	struct ws_err err;
	expect_sim_err("[topology]\nname = fat-tree\nlink_rate = 100Gbs\n"
		       "[workload]\nname = flows\nfile = trace.txt\n",
		       WS_EINVAL, 3,
		       "[topology] link_rate = 100Gbs: unknown rate unit 'Gbs' "
		       "(expected bps, Kbps, Mbps, Gbps, Tbps)",
		       NULL, &err);
	assert_string_equal(err.key, "topology.link_rate");
	expect_sim_err("[topology]\nname = fat-tree\nlink_rate = 100\n"
		       "[workload]\nname = flows\nfile = trace.txt\n",
		       WS_EINVAL, 3, "[topology] link_rate = 100: missing unit", NULL, NULL);
	expect_sim_err(with("[cc]\nname = dcqcn\ncnp_mode = sometimes\n"), WS_EINVAL, 10,
		       "[cc] cnp_mode = sometimes: expected one of: ", NULL, &err);
	assert_string_equal(err.key, "cc.cnp_mode");
	expect_sim_err(with("[cc]\nname = dcqcn\nrate_ai = -5Mbps\n"), WS_EINVAL, 10,
		       "[cc] rate_ai = -5Mbps: a rate cannot be negative", NULL, NULL);
	expect_sim_err("[topology]\nname = fat-tree\n[workload]\nname = flows\n"
		       "file = trace.txt\ntime_offset = 1 hour\n",
		       WS_EINVAL, 6, "unknown time unit 'hour'", NULL, NULL);
}

static void test_kernel_values(void **state)
{
	(void)state;
	struct ws_err err;
	expect_sim_err(with("[sim]\nseed = -1\n"), WS_EINVAL, 9,
		       "[sim] seed = -1: expected a non-negative integer", NULL, &err);
	assert_string_equal(err.key, "sim.seed");
	expect_sim_err(with("[nic]\nwindow = maxbdp\n"), WS_EINVAL, 9,
		       "[nic] window = maxbdp: expected one of: off, max-bdp, path-bdp",
		       NULL, NULL);
	expect_sim_err(with("[switch]\npfc = maybe\n"), WS_EINVAL, 9,
		       "[switch] pfc = maybe: expected true or false", NULL, NULL);
	expect_sim_err(with("[switch]\necn_pmax = 1.5\n"), WS_EINVAL, 9,
		       "1.5 is out of range (expected 0 to 1)", NULL, NULL);
	expect_sim_err(with("[sim]\nstop_time = 10\n"), WS_EINVAL, 9,
		       "[sim] stop_time = 10: missing unit", NULL, NULL);
	expect_sim_err(with("[nic]\nmtu = 10KiB\n"), WS_EINVAL, 9,
		       "10KiB is out of range (expected 64B to 9216B)", NULL, NULL);
	expect_sim_err(with("[output]\nfct = nope\n"), WS_EINVAL, 9,
		       "[output] fct = nope: expected true or false", NULL, NULL);
	expect_sim_err(with("[sim]\nname = x\n"), WS_EINVAL, 9,
		       "unknown key 'name' in [sim]", NULL, NULL);
}

static void test_out_of_range(void **state)
{
	(void)state;
	struct ws_err err;
	expect_sim_err("[topology]\nname = fat-tree\nk = 300\n"
		       "[workload]\nname = flows\nfile = trace.txt\n",
		       WS_EINVAL, 3, "[topology] k = 300: 300 is out of range (expected 2 to 254)",
		       NULL, &err);
	assert_string_equal(err.key, "topology.k");
	expect_sim_err("[topology]\nname = fat-tree\nlink_delay = 2s\n"
		       "[workload]\nname = flows\nfile = trace.txt\n",
		       WS_EINVAL, 3, "2s is out of range (expected 0s to 1s)", NULL, NULL);
	expect_sim_err(with("[cc]\nname = dcqcn\nmin_rate = 0bps\n"), WS_EINVAL, 10,
		       "0bps is out of range (expected 1bps to 1Tbps)", NULL, NULL);
}

static void test_odd_k(void **state)
{
	(void)state;
	struct ws_err err;
	expect_sim_err("[topology]\n"
		       "name = fat-tree\n"
		       "link_rate = 40Gbps\n"
		       "k = 5\n"
		       "[workload]\nname = flows\nfile = trace.txt\n",
		       WS_EINVAL, 4, "[topology] fat-tree: ", "a fat-tree needs an even k",
		       &err);
	assert_has(err.msg, "k = 5");
}

static void test_missing_required(void **state)
{
	(void)state;
	expect_sim_err("[topology]\nname = fat-tree\n[workload]\nname = flows\n",
		       WS_EINVAL, 0,
		       "[workload] is missing the required key 'file' for workload plugin 'flows'",
		       NULL, NULL);
}

static void test_plugin_names(void **state)
{
	(void)state;
	struct ws_err err;
	expect_sim_err(with("[cc]\nname = dcqcm\n"), WS_ENOENT, 9,
		       "unknown cc plugin 'dcqcm'; available: ", "dcqcn", &err);
	assert_has(err.msg, "none");
	expect_sim_err("[topology]\nname = fat-three\n[workload]\nname = flows\n"
		       "file = trace.txt\n",
		       WS_ENOENT, 2, "unknown topology plugin 'fat-three'; available: ",
		       "fat-tree", NULL);
	expect_sim_err(with("[routing]\nname = ecmp\n"), WS_ENOENT, 9,
		       "unknown routing plugin 'ecmp'", "updown", NULL);
	expect_sim_err("[topology]\nname = fat tree\n[workload]\nname = flows\n"
		       "file = trace.txt\n",
		       WS_EINVAL, 2, "invalid topology plugin name 'fat tree'", NULL, NULL);
	expect_sim_err("[topology]\nname = ../fat-tree\n[workload]\nname = flows\n"
		       "file = trace.txt\n",
		       WS_EINVAL, 2, "invalid topology plugin name '../fat-tree'", NULL,
		       NULL);
	/* a workload plugin is not a cc plugin */
	expect_sim_err(with("[cc]\nname = flows\n"), WS_ENOENT, 9,
		       "unknown cc plugin 'flows'", NULL, NULL);
}

static void test_missing_sections(void **state)
{
	(void)state;
	expect_sim_err("[topology]\nname = fat-tree\nk = 4\n", WS_EINVAL, 0,
		       "missing [workload] section with 'name = <workload plugin>'",
		       NULL, NULL);
	/* a section without its name line: pointed at its first key */
	expect_sim_err("[topology]\nk = 4\n[workload]\nname = flows\nfile = trace.txt\n",
		       WS_EINVAL, 2, "[topology] has no 'name = <topology plugin>' line",
		       NULL, NULL);
	expect_sim_err("[topology]\nNAME = fat-tree\n[workload]\nname = flows\nfile = trace.txt\n",
		       WS_EINVAL, 2, "keys are case-sensitive: write 'name', not 'NAME'",
		       NULL, NULL);
	expect_sim_err("", WS_EINVAL, 0, "missing [topology] section", NULL, NULL);
	expect_sim_err("; only a comment\n", WS_EINVAL, 0, "missing [topology] section",
		       NULL, NULL);
}

static void test_nic_header_mtu(void **state)
{
	(void)state;
	expect_sim_err(with("[nic]\nheader = 500B\nmtu = 500B\n"), WS_EINVAL, 9,
		       "[nic] header (500 B) must be smaller than mtu (500 B)", NULL, NULL);
	expect_sim_err(with("[nic]\nmtu = 100B\n\nheader = 200B\n"), WS_EINVAL, 11,
		       "[nic] header (200 B) must be smaller than mtu (100 B)", NULL, NULL);
	struct ws_sim *sim = expect_sim(with("[nic]\nmtu = 100B\nheader = 99B\n"));
	ws_sim_free(sim);
}

static void test_ecn_thresholds(void **state)
{
	(void)state;
	expect_sim_err(with("[switch]\necn_kmax = 100KB\necn_kmin = 200KB\n"), WS_EINVAL,
		       10, "[switch] ecn_kmin (200000 B) is above ecn_kmax (100000 B)",
		       NULL, NULL);
	/* against the default kmax of 1600KB */
	expect_sim_err(with("[switch]\necn_kmin = 2MB\n"), WS_EINVAL, 9,
		       "ecn_kmin (2000000 B) is above ecn_kmax (1600000 B)", NULL, NULL);
	struct ws_sim *sim = expect_sim(with("[switch]\necn_kmin = 100KB\necn_kmax = 100KB\n"));
	ws_sim_free(sim);
}

static void test_buffer_headroom(void **state)
{
	(void)state;
	struct ws_err err;
	/* the error points at the buffer line */
	expect_sim_err(with("[switch]\nbuffer = 2KiB\npfc = true\n"), WS_EINVAL, 9,
		       "[switch] buffer = 2048 bytes is too small for switch 16",
		       "PFC headroom", &err);
	assert_string_equal(err.key, "switch.buffer");
	/* 3 x 100 Gb/s x 1 us = 37500 B per port, 4 ports, 4 KiB reserved each */
	assert_has(err.msg, "its 4 ports need 150000 bytes of PFC headroom and 16384 reserved");
	struct ws_sim *sim = expect_sim(with("[switch]\nbuffer = 1MiB\n"));
	ws_sim_free(sim);
	/* below the parameter's own minimum */
	expect_sim_err(with("[switch]\nbuffer = 512B\n"), WS_EINVAL, 9,
		       "512B is out of range (expected 1KiB to 4GiB)", NULL, NULL);
}

static void test_missing_trace(void **state)
{
	(void)state;
	struct ws_sim *sim = NULL;
	struct ws_err err;
	int rc = th_sim_try("[topology]\nname = fat-tree\n[workload]\nname = flows\n"
			    "file = no-such-trace.txt\n",
			    &sim, &err, NULL);
	assert_int_equal(rc, WS_ENOENT);
	assert_null(sim);
	assert_string_equal(err.file, th_fmt("%s/no-such-trace.txt", th_tmpdir()));
	assert_has(err.msg, "cannot open the flow trace");
}

/* ---- fuzz ------------------------------------------------------------------------------------ */

/*
 * No `k` here: a mutation such as "k = 4" -> "k = 204" would ask for a
 * fabric of two million hosts, which is not what this loop is about.
 */
static const char FUZZ_BASE[] =
	"; fuzz base\n"
	"[sim]\n"
	"seed = 7\n"
	"stop_time = 1ms\n"
	"[nic]\n"
	"mtu = 1052B\n"
	"header = 52B\n"
	"window = max-bdp\n"
	"[switch]\n"
	"buffer = 32MiB\n"
	"pfc = true\n"
	"ecn_kmin = 400KB\n"
	"ecn_kmax = 1600KB # comment\n"
	"ecn_pmax = 0.2\n"
	"[output]\n"
	"dir = \"out dir\"\n"
	"[topology]\n"
	"name = fat-tree\n"
	"link_rate = 100Gbps ; comment\n"
	"link_delay = 1us\n"
	"[cc]\n"
	"name = dcqcn\n"
	"rate_ai = 20Mbps\n"
	"[workload]\n"
	"name = flows\n"
	"file = trace.txt\n";

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* One mutation of buf[0..len), NUL-terminated, within cap bytes. */
static size_t mutate(char *buf, size_t len, size_t cap, uint64_t *s)
{
	static const char alphabet[] = "[]=;#\n \t\"abc019.";
	size_t pos = len ? (size_t)(xorshift(s) % len) : 0;
	size_t span = 1 + (size_t)(xorshift(s) % 16);
	switch (xorshift(s) % 11) {
	case 0:
	case 1: /* flip one bit */
		if (len)
			buf[pos] = (char)(buf[pos] ^ (1u << (xorshift(s) % 8)));
		break;
	case 2: /* any byte value */
		if (len)
			buf[pos] = (char)(1 + xorshift(s) % 255);
		break;
	case 3:
	case 4: /* delete a span */
		if (span > len - pos)
			span = len - pos;
		memmove(buf + pos, buf + pos + span, len - pos - span);
		len -= span;
		break;
	case 5:
	case 6: /* duplicate a span */
		if (span > len - pos)
			span = len - pos;
		if (len + span < cap) {
			memmove(buf + pos + span, buf + pos, len - pos);
			len += span;
		}
		break;
	case 7:
	case 8:
	case 9: { /* insert characters ini syntax cares about */
		size_t n = 1 + (size_t)(xorshift(s) % 3);
		if (len + n < cap) {
			memmove(buf + pos + n, buf + pos, len - pos);
			for (size_t i = 0; i < n; i++)
				buf[pos + i] = alphabet[xorshift(s) % (sizeof alphabet - 1)];
			len += n;
		}
		break;
	}
	default: /* truncate */
		len = pos;
		break;
	}
	buf[len] = '\0';
	return strlen(buf); /* a flip may have written a NUL */
}

static void test_fuzz(void **state)
{
	(void)state;
	enum { ROUNDS = 2000, CAP = 4096 };
	static char buf[CAP];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned n_parse_err = 0, n_sim_err = 0, n_ok = 0;
	for (unsigned round = 0; round < ROUNDS; round++) {
		size_t len = strlen(FUZZ_BASE);
		memcpy(buf, FUZZ_BASE, len + 1);
		unsigned n = 1 + (unsigned)(xorshift(&seed) % 4);
		for (unsigned m = 0; m < n; m++)
			len = mutate(buf, len, CAP, &seed);

		struct ws_cfg *cfg = NULL;
		struct ws_err err;
		ws_err_clear(&err);
		int rc = ws_cfg_parse_string(&cfg, buf, "fuzz.ini", th_tmpdir(), &err);
		if (rc) {
			if (rc >= 0 || rc != err.code || !err.msg[0] || cfg ||
			    strcmp(err.file, "fuzz.ini") != 0 || err.line < 1)
				fail_msg("round %u: parse rc %d code %d at %s:%d '%s'\n%s",
					 round, rc, err.code, err.file, err.line, err.msg, buf);
			n_parse_err++;
			continue;
		}
		assert_non_null(cfg);
		ws_cfg_free(cfg);

		struct ws_sim *sim = NULL;
		rc = th_sim_try(buf, &sim, &err, NULL);
		if (rc == WS_OK) {
			if (!sim)
				fail_msg("round %u: WS_OK without a simulation\n%s", round, buf);
			ws_sim_free(sim);
			n_ok++;
		} else {
			if (rc >= 0 || rc < WS_ESTATE || sim || !err.msg[0] ||
			    err.code != rc)
				fail_msg("round %u: ws_sim_new rc %d code %d '%s'\n%s", round,
					 rc, err.code, err.msg, buf);
			n_sim_err++;
		}
	}
	/* the loop reached all three outcomes (1260, 660 and 80 with this seed) */
	if (n_parse_err < 500 || n_sim_err < 300 || n_ok < 40)
		fail_msg("fuzz: %u parse errors, %u ws_sim_new errors, %u built",
			 n_parse_err, n_sim_err, n_ok);
	assert_int_equal(n_parse_err + n_sim_err + n_ok, ROUNDS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_is_valid),
		cmocka_unit_test(test_comments_and_values),
		cmocka_unit_test(test_quoted_strings),
		cmocka_unit_test(test_crlf_and_bom),
		cmocka_unit_test(test_malformed_line),
		cmocka_unit_test(test_unterminated_section),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_indented_line),
		cmocka_unit_test(test_line_too_long),
		cmocka_unit_test(test_first_error_wins),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_load_nul_byte),
		cmocka_unit_test(test_load_missing),
		cmocka_unit_test(test_load_directory),
		cmocka_unit_test(test_set_replace_and_add),
		cmocka_unit_test(test_set_malformed),
		cmocka_unit_test(test_set_location),
		cmocka_unit_test(test_cfg_path),
		cmocka_unit_test(test_unknown_section),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_kernel_values),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_odd_k),
		cmocka_unit_test(test_missing_required),
		cmocka_unit_test(test_plugin_names),
		cmocka_unit_test(test_missing_sections),
		cmocka_unit_test(test_nic_header_mtu),
		cmocka_unit_test(test_ecn_thresholds),
		cmocka_unit_test(test_buffer_headroom),
		cmocka_unit_test(test_missing_trace),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
