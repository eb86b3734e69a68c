/* SPDX-License-Identifier: MIT */
/*
 * The chakra workload (plugins/workload/chakra.c) on traces written here
 * with the same et_def.proto (protobuf-c), in the length-delimited stream
 * ASTRA-sim reads (GlobalMetadata, then Nodes):
 * - dependencies are honoured: a collective starts when the last of its
 *   members' parents ends (the slowest rank's compute), and a node after a
 *   collective starts no earlier than its end plus the compute between;
 *   process groups by pg_name (two pairs) and all ranks without one;
 * - collectives carry the trace's bytes and kind into collectives.csv;
 * - a send and its receive are one transfer of their bytes;
 * - errors name the file and the node: truncated files, undecodable
 *   messages, unknown dependencies, repeated ids, collectives disagreeing
 *   in bytes or missing in a member's trace, unmatched sends, missing
 *   comm_size, unsupported collective types; collectives waiting for each
 *   other across ranks (a cycle) stop the run with an error.
 */
#define _GNU_SOURCE
#include "th.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "et_def.pb-c.h"

enum { COMP = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE,
       COLL = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE,
       SEND = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE,
       RECV = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE };

/* One node as the tests describe it. */
struct tn {
	uint64_t id;
	int type;
	uint64_t dur_us;      /* COMP */
	int comm_type;        /* COLL: CollectiveCommType */
	int64_t size;         /* communication bytes; -1: no comm_size */
	const char *pg;       /* COLL: pg_name, NULL: none */
	int peer;             /* SEND: comm_dst, RECV: comm_src */
	uint64_t deps[3];     /* data_deps (0: none; ids start at 1) */
	uint64_t ctrl;        /* one ctrl_dep (0: none) */
};

static void put_msg(FILE *f, const ProtobufCMessage *m)
{
	size_t len = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = malloc(len + 1);
	protobuf_c_message_pack(m, buf);
	size_t v = len;
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		fputc(b | (v ? 0x80 : 0), f);
	} while (v);
	fwrite(buf, 1, len, f);
	free(buf);
}

/* Write <tmp>/<prefix>.<rank>.et from `n` nodes. */
static void write_trace(const char *prefix, unsigned rank, const struct tn *n,
			unsigned count)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s.%u.et", th_tmpdir(), prefix, rank);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	ChakraProtoMsg__GlobalMetadata gm = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
	gm.version = "0.0.4";
	put_msg(f, &gm.base);
	for (unsigned i = 0; i < count; i++) {
		ChakraProtoMsg__Node m = CHAKRA_PROTO_MSG__NODE__INIT;
		ChakraProtoMsg__AttributeProto a[5], *ap[5];
		unsigned na = 0;
		char name[32];
		snprintf(name, sizeof name, "n%" PRIu64, n[i].id);
		m.id = n[i].id;
		m.name = name;
		m.type = n[i].type;
		m.duration_micros = n[i].dur_us;
		uint64_t deps[3];
		for (unsigned d = 0; d < 3 && n[i].deps[d]; d++)
			deps[m.n_data_deps++] = n[i].deps[d];
		m.data_deps = deps;
		uint64_t ctrl = n[i].ctrl;
		m.n_ctrl_deps = ctrl ? 1 : 0;
		m.ctrl_deps = &ctrl;
		for (unsigned k = 0; k < 5; k++) {
			chakra_proto_msg__attribute_proto__init(&a[k]);
			ap[k] = &a[k];
		}
		if (n[i].type != COMP) {
			if (n[i].size >= 0) {
				a[na].name = "comm_size";
				a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
				a[na++].int64_val = n[i].size;
			}
			if (n[i].type == COLL) {
				a[na].name = "comm_type";
				a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
				a[na++].int64_val = n[i].comm_type;
				if (n[i].pg) {
					a[na].name = "pg_name";
					a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
					a[na++].string_val = (char *)n[i].pg;
				}
			} else {
				a[na].name = n[i].type == SEND ? "comm_dst" : "comm_src";
				a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
				a[na++].int32_val = n[i].peer;
				a[na].name = "comm_tag";
				a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
				a[na++].int32_val = 7;
			}
		}
		m.n_attr = na;
		m.attr = ap;
		put_msg(f, &m.base);
	}
	fclose(f);
}

static const char *ini(const char *prefix, const char *extra)
{
	return th_fmt("[topology]\nname = fat-tree\nk = 4\n[cc]\nname = none\n"
		      "[workload]\nname = chakra\nprefix = %s\ngpus_per_server = 1\n%s",
		      prefix, extra);
}

static void run_to(const char *ini_text, const char *dir, struct th_csv *coll)
{
	struct ws_sim *sim = th_sim(ini_text);
	th_run(sim);
	struct ws_err err;
	ws_err_clear(&err);
	const char *out = th_fmt("%s/%s", th_tmpdir(), dir);
	char path[700];
	snprintf(path, sizeof path, "%s", out);
	assert_int_equal(ws_sim_write_outputs(sim, path, &err), WS_OK);
	ws_sim_free(sim);
	th_csv_load(coll, th_fmt("%s/collectives.csv", path));
}

/* the row of collectives.csv of kind `kind` and group label `group` */
static unsigned row_of(const struct th_csv *c, const char *kind, const char *group)
{
	for (unsigned r = 0; r < c->rows; r++)
		if (!strcmp(th_csv_get(c, r, "kind"), kind) &&
		    !strcmp(th_csv_get(c, r, "group"), group))
			return r;
	fail_msg("no %s collective of group %s", kind, group);
	return 0;
}

/*
 * Four ranks.  Rank r computes (r + 1) x 100 us, then all-reduces 1 MiB
 * over all ranks; then computes 50 us and all-gathers 256 KiB in its pair
 * ("a": ranks 0, 1; "b": ranks 2, 3), the gather also waiting (ctrl) for
 * the first compute.
 */
static void test_dependencies(void **state)
{
	(void)state;
	for (unsigned r = 0; r < 4; r++) {
		const struct tn n[] = {
			{ .id = 1, .type = COMP, .dur_us = (r + 1) * 100 },
			{ .id = 2, .type = COLL, .comm_type = 0, .size = 1 << 20,
			  .deps = { 1 } },
			{ .id = 3, .type = COMP, .dur_us = 50, .deps = { 2 } },
			{ .id = 4, .type = COLL, .comm_type = 2, .size = 256 << 10,
			  .pg = r < 2 ? "a" : "b", .deps = { 3 }, .ctrl = 1 },
		};
		write_trace("dep", r, n, WS_ARRAY_LEN(n));
	}
	struct th_csv c;
	run_to(ini("dep", ""), "dep", &c);
	assert_int_equal(c.rows, 3);
	unsigned ar = row_of(&c, "allreduce", "world");
	/* the slowest rank's compute: 400 us */
	assert_int_equal(th_csv_ps(&c, ar, "start_ns"), 400 * WS_US);
	assert_int_equal(th_csv_num(&c, ar, "bytes"), 1 << 20);
	assert_int_equal(th_csv_num(&c, ar, "ranks"), 4);
	uint64_t ar_end = th_csv_ps(&c, ar, "end_ns");
	assert_true(ar_end > 400 * WS_US);
	const char *groups[2] = { "a", "b" };
	for (unsigned g = 0; g < 2; g++) {
		unsigned ag = row_of(&c, "allgather", groups[g]);
		assert_int_equal(th_csv_ps(&c, ag, "start_ns"), ar_end + 50 * WS_US);
		assert_int_equal(th_csv_num(&c, ag, "bytes"), 256 << 10);
		assert_int_equal(th_csv_num(&c, ag, "ranks"), 2);
	}
	th_csv_free(&c);
}

/* Rank 0 sends 64 KiB to rank 1 after 10 us; rank 1 then computes. */
static void test_send_recv(void **state)
{
	(void)state;
	const struct tn r1[] = {
		{ .id = 5, .type = RECV, .size = 65536, .peer = 0 },
		{ .id = 6, .type = COMP, .dur_us = 20, .deps = { 5 } },
		{ .id = 7, .type = COLL, .comm_type = 0, .size = 4096, .pg = "solo2",
		  .deps = { 6 } },
	};
	const struct tn r0b[] = {
		{ .id = 1, .type = COMP, .dur_us = 10 },
		{ .id = 2, .type = SEND, .size = 65536, .peer = 1, .deps = { 1 } },
		{ .id = 3, .type = COLL, .comm_type = 0, .size = 4096, .pg = "solo2",
		  .deps = { 2 } },
	};
	write_trace("p2p", 0, r0b, WS_ARRAY_LEN(r0b));
	write_trace("p2p", 1, r1, WS_ARRAY_LEN(r1));
	struct th_csv c;
	run_to(ini("p2p", ""), "p2p", &c);
	assert_int_equal(c.rows, 2);
	unsigned sr = row_of(&c, "sendrecv", "p2p");
	assert_int_equal(th_csv_ps(&c, sr, "start_ns"), 10 * WS_US);
	assert_int_equal(th_csv_num(&c, sr, "bytes"), 65536);
	unsigned ar = row_of(&c, "allreduce", "solo2");
	/* rank 1: after the transfer and 20 us of compute */
	assert_int_equal(th_csv_ps(&c, ar, "start_ns"),
			 th_csv_ps(&c, sr, "end_ns") + 20 * WS_US);
	th_csv_free(&c);
}

/* ---- errors ------------------------------------------------------------------ */

static void expect_error(const char *prefix, unsigned rank, const char *needle)
{
	struct ws_sim *sim = NULL;
	struct ws_err err;
	int rc = th_sim_try(ini(prefix, ""), &sim, &err, NULL);
	char msg[2048];
	ws_err_format(&err, msg, sizeof msg);
	if (rc == WS_OK)
		fail_msg("%s: accepted, expected \"%s\"", prefix, needle);
	assert_null(sim);
	char file[600];
	snprintf(file, sizeof file, "%s/%s.%u.et", th_tmpdir(), prefix, rank);
	if (strcmp(err.file, file))
		fail_msg("%s: error in \"%s\", expected \"%s\" (%s)", prefix, err.file,
			 file, msg);
	if (!strstr(msg, needle))
		fail_msg("%s: \"%s\" not in \"%s\"", prefix, needle, msg);
}

static const struct tn two_ok[] = {
	{ .id = 1, .type = COMP, .dur_us = 5 },
	{ .id = 2, .type = COLL, .comm_type = 0, .size = 1024, .deps = { 1 } },
	{ .id = 3, .type = COMP, .dur_us = 5, .deps = { 2 } },
};

static void two_ranks(const char *prefix, const struct tn *r1, unsigned n1)
{
	write_trace(prefix, 0, two_ok, WS_ARRAY_LEN(two_ok));
	write_trace(prefix, 1, r1, n1);
}

static void test_truncated(void **state)
{
	(void)state;
	two_ranks("trunc", two_ok, WS_ARRAY_LEN(two_ok));
	char path[600];
	snprintf(path, sizeof path, "%s/trunc.1.et", th_tmpdir());
	size_t len;
	char *buf = th_read(path, &len);
	FILE *f = fopen(path, "wb");
	fwrite(buf, 1, len - 3, f);
	fclose(f);
	free(buf);
	expect_error("trunc", 1, "truncated: message 3");
	expect_error("trunc", 1, "after node id 2");
}

static void test_not_a_node(void **state)
{
	(void)state;
	two_ranks("garb", two_ok, WS_ARRAY_LEN(two_ok));
	char path[600];
	snprintf(path, sizeof path, "%s/garb.1.et", th_tmpdir());
	FILE *f = fopen(path, "ab");
	/* a message of 3 bytes: field 1 as a length-delimited field of 9 bytes */
	fwrite("\x03\x0a\x09\x01", 1, 4, f);
	fclose(f);
	expect_error("garb", 1, "message 4 (byte");
	expect_error("garb", 1, "after node id 3 is not a Chakra Node");
}

static void test_unknown_dep(void **state)
{
	(void)state;
	const struct tn r1[] = {
		{ .id = 1, .type = COMP, .dur_us = 5 },
		{ .id = 2, .type = COLL, .comm_type = 0, .size = 1024, .deps = { 99 } },
	};
	two_ranks("udep", r1, WS_ARRAY_LEN(r1));
	expect_error("udep", 1, "node id 2 ('n2'): depends on node id 99, which is not in the file");
}

static void test_duplicate_id(void **state)
{
	(void)state;
	const struct tn r1[] = {
		{ .id = 1, .type = COMP, .dur_us = 5 },
		{ .id = 2, .type = COLL, .comm_type = 0, .size = 1024, .deps = { 1 } },
		{ .id = 1, .type = COMP, .dur_us = 5 },
	};
	two_ranks("dup", r1, WS_ARRAY_LEN(r1));
	expect_error("dup", 1, "node id 1 ('n1'): the id is repeated (messages 0 and 2");
}

static void test_bytes_mismatch(void **state)
{
	(void)state;
	const struct tn r1[] = {
		{ .id = 1, .type = COMP, .dur_us = 5 },
		{ .id = 2, .type = COLL, .comm_type = 0, .size = 2048, .deps = { 1 } },
	};
	two_ranks("mism", r1, WS_ARRAY_LEN(r1));
	expect_error("mism", 1, "node id 2 ('n2'): ALL_REDUCE of 2048 bytes, but the same "
		     "collective (number 0 of group 'all ranks')");
}

static void test_missing_member(void **state)
{
	(void)state;
	const struct tn r1[] = { { .id = 1, .type = COMP, .dur_us = 5 } };
	two_ranks("miss", r1, WS_ARRAY_LEN(r1));
	expect_error("miss", 0, "node id 2 ('n2'): collective number 0 of group 'all ranks' "
		     "is in the traces of 1 of its 2 ranks");
}

static void test_unmatched_send(void **state)
{
	(void)state;
	const struct tn r1[] = {
		{ .id = 1, .type = COMP, .dur_us = 5 },
		{ .id = 2, .type = COLL, .comm_type = 0, .size = 1024, .deps = { 1 } },
		{ .id = 3, .type = SEND, .size = 100, .peer = 0 },
	};
	two_ranks("unm", r1, WS_ARRAY_LEN(r1));
	expect_error("unm", 1, "node id 3 ('n3'): a send of rank 1 to rank 0 (tag 7) with "
		     "no matching receive");
}

static void test_no_comm_size(void **state)
{
	(void)state;
	const struct tn r1[] = {
		{ .id = 1, .type = COMP, .dur_us = 5 },
		{ .id = 2, .type = COLL, .comm_type = 0, .size = -1, .deps = { 1 } },
	};
	two_ranks("nosz", r1, WS_ARRAY_LEN(r1));
	expect_error("nosz", 1, "node id 2 ('n2'): communication without a non-negative "
		     "integer attribute comm_size");
}

static void test_unsupported_type(void **state)
{
	(void)state;
	const struct tn r1[] = {
		{ .id = 1, .type = COMP, .dur_us = 5 },
		{ .id = 2, .type = COLL, .comm_type = 5, .size = 1024, .deps = { 1 } },
	};
	two_ranks("bcast", r1, WS_ARRAY_LEN(r1));
	expect_error("bcast", 1, "node id 2 ('n2'): comm_type 5: warpsim models ALL_REDUCE");
}

/* Rank 0 runs A (group x) then B (group y), rank 1 B then A: each waits
 * for the other.  The run must not claim a finished iteration. */
static void test_cycle(void **state)
{
	(void)state;
	const struct tn r0[] = {
		{ .id = 1, .type = COLL, .comm_type = 0, .size = 1024, .pg = "x" },
		{ .id = 2, .type = COLL, .comm_type = 0, .size = 1024, .pg = "y", .deps = { 1 } },
	};
	const struct tn r1[] = {
		{ .id = 1, .type = COLL, .comm_type = 0, .size = 1024, .pg = "y" },
		{ .id = 2, .type = COLL, .comm_type = 0, .size = 1024, .pg = "x", .deps = { 1 } },
	};
	write_trace("cyc", 0, r0, 2);
	write_trace("cyc", 1, r1, 2);
	struct ws_sim *sim = th_sim(ini("cyc", ""));
	struct ws_err err;
	ws_err_clear(&err);
	assert_int_not_equal(ws_sim_run(sim, WS_TIME_NEVER, &err), WS_OK);
	assert_non_null(strstr(err.msg, "the DAG of iteration 0 has a cycle"));
	ws_sim_free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dependencies),
		cmocka_unit_test(test_send_recv),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_not_a_node),
		cmocka_unit_test(test_unknown_dep),
		cmocka_unit_test(test_duplicate_id),
		cmocka_unit_test(test_bytes_mismatch),
		cmocka_unit_test(test_missing_member),
		cmocka_unit_test(test_unmatched_send),
		cmocka_unit_test(test_no_comm_size),
		cmocka_unit_test(test_unsupported_type),
		cmocka_unit_test(test_cycle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
