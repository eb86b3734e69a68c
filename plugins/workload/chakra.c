/* SPDX-License-Identifier: MIT */
/*
 * chakra: Chakra execution traces (the input of ASTRA-sim 2.x, MLCommons
 * Chakra), one file per rank, `prefix.N.et`, run over the collective engine
 * (coll.c) like the llm and simai workloads.
 *
 * A file is a stream of protobuf messages, each preceded by its length as
 * a varint: one GlobalMetadata, then the rank's Nodes (et_def.proto, our
 * own definitions of the published schema, decoded by protobuf-c).  Rank N
 * is GPU N (host N).  What each node becomes:
 *   COMP_NODE, MEM_LOAD_NODE, MEM_STORE_NODE   a delay of duration_micros
 *   METADATA_NODE                              a delay of 0 (a join)
 *   COMM_COLL_NODE   one collective of the engine over the ranks of its
 *                    process group (attribute pg_name; none: all ranks),
 *                    comm_type ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER or
 *                    ALL_TO_ALL, comm_size bytes per rank (the engine's
 *                    convention, NCCL's); the k-th collective of a group
 *                    in one rank's file is the k-th in every member's
 *                    file, and they must agree in type and bytes
 *   COMM_SEND_NODE / COMM_RECV_NODE   a transfer of comm_size bytes from
 *                    the sender to comm_dst, matched with the k-th receive
 *                    of the same (source, destination, comm_tag)
 * A node waits for every node of its data_deps and ctrl_deps (ids in its
 * rank's file); a collective waits for the parents of all its members'
 * nodes, and every member's children wait for it.  One set of files is one
 * iteration; `iterations` repeats it.  Errors name the file and the node
 * (its id and name): truncated or undecodable messages, unknown
 * dependencies, repeated ids, unmatched or disagreeing communication.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warpsim/warpsim.h>

#include "coll.h"
#include "et_def.pb-c.h"

#define CHAKRA_MAX_RANKS (1u << 20)
#define CHAKRA_MAX_FILE ((size_t)1 << 32) /* bytes of one rank's file */

struct chakra_conf {
	const char *prefix;
	uint64_t ranks;
	uint64_t iterations;
	struct coll_conf comm;
};

static const struct ws_param chakra_params[] = {
	WS_PARAM_STRING("prefix", struct chakra_conf, prefix, NULL,
			"trace files PREFIX.0.et, PREFIX.1.et, ... one per rank (relative paths start at the ini file's directory)"),
	WS_PARAM_UINT("ranks", struct chakra_conf, ranks, "0", "0", "1048576",
		      "ranks (files) to read; 0: PREFIX.0.et, PREFIX.1.et, ... up to the first missing one"),
	WS_PARAM_UINT("iterations", struct chakra_conf, iterations, "1", "1", "1000000",
		      "times the traces are run, one after another"),
	COLL_PARAMS(struct chakra_conf),
	WS_PARAM_END
};

enum chakra_role { CH_DELAY, CH_COLL, CH_SEND, CH_RECV };

struct ch_node {
	uint64_t id;
	char *name;
	uint8_t role;          /* enum chakra_role */
	uint8_t kind;          /* enum coll_kind of a collective */
	ws_time dur;           /* of a delay */
	uint64_t bytes;        /* of communication */
	uint32_t pg;           /* collective: index into the group table */
	uint32_t peer;         /* send: destination; recv: source */
	uint64_t tag;
	uint32_t op;           /* communication: index into the op table */
	uint32_t *dep;         /* indices of its parents in the rank's nodes */
	uint32_t n_dep;
	uint32_t task;         /* in the current iteration */
};

struct ch_rank {
	char path[4096];
	struct ch_node *node;
	uint32_t n;
};

struct ch_pg {
	char *name;            /* NULL: all ranks */
	uint32_t *member;      /* ranks, ascending */
	uint32_t n;
	uint32_t gid;          /* the engine's group */
	uint32_t *seq_op;      /* its k-th collective -> op */
	uint32_t n_seq;
};

struct ch_op {
	uint32_t gid;
	uint8_t kind;
	uint64_t bytes;
	uint32_t seen;         /* members matched so far */
	uint32_t rank, node;   /* the first member's node, for messages */
	uint32_t task;
};

struct chakra_state {
	struct ch_rank *rank;
	uint32_t n_rank;
	struct ch_pg *pg;
	uint32_t n_pg;
	struct ch_op *op;
	uint32_t n_op, cap_op;
	uint64_t nodes;
	struct coll_engine *eng;
};

/* ---- reading one rank's file ------------------------------------------------ */

static int ch_fail(struct ws_err *err, const struct ch_rank *r,
		   const struct ch_node *n, const char *fmt, ...) WS_PRINTF(4, 5);

static int ch_fail(struct ws_err *err, const struct ch_rank *r,
		   const struct ch_node *n, const char *fmt, ...)
{
	char msg[700];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (n)
		return ws_err_at(err, WS_EINVAL, r->path, 0, "node id %" PRIu64
				 " ('%.80s'): %s", n->id, n->name ? n->name : "", msg);
	return ws_err_at(err, WS_EINVAL, r->path, 0, "%s", msg);
}

/* A varint at *pos; false if the buffer ends inside it or it is too long. */
static bool ch_varint(const uint8_t *buf, size_t len, size_t *pos, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*pos >= len)
			return false;
		uint8_t b = buf[(*pos)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static const ChakraProtoMsg__AttributeProto *
ch_attr(const ChakraProtoMsg__Node *m, const char *name)
{
	for (size_t i = 0; i < m->n_attr; i++)
		if (m->attr[i]->name && !strcmp(m->attr[i]->name, name))
			return m->attr[i];
	return NULL;
}

/* An integer attribute, whatever integer type the writer chose. */
static bool ch_attr_int(const ChakraProtoMsg__Node *m, const char *name, int64_t *v)
{
	const ChakraProtoMsg__AttributeProto *a = ch_attr(m, name);
	if (!a)
		return false;
	switch (a->value_case) {
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: *v = a->int32_val; return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: *v = a->int64_val; return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: *v = a->uint32_val; return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
		*v = a->uint64_val > INT64_MAX ? -1 : (int64_t)a->uint64_val;
		return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL: *v = a->sint32_val; return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL: *v = a->sint64_val; return true;
	default: return false;
	}
}

static int ch_comm_kind(int64_t t)
{
	switch (t) {
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE: return COLL_ALLREDUCE;
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER: return COLL_ALLGATHER;
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER: return COLL_REDUCESCATTER;
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL: return COLL_ALLTOALL;
	default: return -1;
	}
}

/* What node `m` is; its pg name in *pg (NULL: none). */
static int ch_node_role(struct chakra_state *s, uint32_t r, struct ch_node *n,
			const ChakraProtoMsg__Node *m, const char **pg,
			struct ws_err *err)
{
	const struct ch_rank *rk = &s->rank[r];
	int64_t v;
	*pg = NULL;
	switch (m->type) {
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE:
	case CHAKRA_PROTO_MSG__NODE_TYPE__MEM_LOAD_NODE:
	case CHAKRA_PROTO_MSG__NODE_TYPE__MEM_STORE_NODE:
		if (m->duration_micros > UINT64_MAX / WS_US)
			return ch_fail(err, rk, n, "duration_micros %" PRIu64 " is too "
				       "large", m->duration_micros);
		n->dur = (ws_time)(m->duration_micros * WS_US);
		/* fall through */
	case CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE:
		n->role = CH_DELAY;
		return WS_OK;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE:
		n->role = CH_COLL;
		if (!ch_attr_int(m, "comm_type", &v))
			return ch_fail(err, rk, n, "a COMM_COLL_NODE without an "
				       "integer attribute comm_type");
		if (ch_comm_kind(v) < 0)
			return ch_fail(err, rk, n, "comm_type %" PRId64 ": warpsim "
				       "models ALL_REDUCE (0), ALL_GATHER (2), "
				       "ALL_TO_ALL (6) and REDUCE_SCATTER (7)", v);
		n->kind = (uint8_t)ch_comm_kind(v);
		const ChakraProtoMsg__AttributeProto *a = ch_attr(m, "pg_name");
		if (a && a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL &&
		    a->string_val[0])
			*pg = a->string_val;
		break;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE:
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE: {
		bool send = m->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE;
		const char *key = send ? "comm_dst" : "comm_src";
		n->role = send ? CH_SEND : CH_RECV;
		if (!ch_attr_int(m, key, &v) || v < 0 || (uint64_t)v >= s->n_rank ||
		    (uint32_t)v == r)
			return ch_fail(err, rk, n, "%s: expected an integer attribute "
				       "naming another rank, 0..%u", key, s->n_rank - 1);
		n->peer = (uint32_t)v;
		n->tag = ch_attr_int(m, "comm_tag", &v) ? (uint64_t)v : 0;
		break;
	}
	default:
		return ch_fail(err, rk, n, "node type %d is not a Chakra node type "
			       "warpsim runs", (int)m->type);
	}
	if (!ch_attr_int(m, "comm_size", &v) || v < 0)
		return ch_fail(err, rk, n, "communication without a non-negative "
			       "integer attribute comm_size (bytes)");
	n->bytes = (uint64_t)v;
	return WS_OK;
}

static int ch_pg_find(struct chakra_state *s, const char *name, struct ws_err *err)
{
	for (uint32_t i = 0; i < s->n_pg; i++)
		if ((!name && !s->pg[i].name) ||
		    (name && s->pg[i].name && !strcmp(name, s->pg[i].name)))
			return (int)i;
	struct ch_pg *np = realloc(s->pg, (s->n_pg + 1) * sizeof *np);
	if (!np)
		return ws_err_set(err, WS_ENOMEM, "out of memory for process groups");
	s->pg = np;
	memset(&s->pg[s->n_pg], 0, sizeof *np);
	if (name && !(s->pg[s->n_pg].name = strdup(name)))
		return ws_err_set(err, WS_ENOMEM, "out of memory for process groups");
	return (int)s->n_pg++;
}

/* Add rank r to group `pg` (ranks arrive in ascending order). */
static int ch_pg_add(struct ch_pg *g, uint32_t r, struct ws_err *err)
{
	if (g->n && g->member[g->n - 1] == r)
		return WS_OK;
	uint32_t *nm = realloc(g->member, (g->n + 1) * sizeof *nm);
	if (!nm)
		return ws_err_set(err, WS_ENOMEM, "out of memory for process groups");
	g->member = nm;
	g->member[g->n++] = r;
	return WS_OK;
}

static int ch_decode(struct chakra_state *s, uint32_t r, const uint8_t *buf,
		     size_t len, ChakraProtoMsg__Node ***msgs, uint32_t *n_msgs,
		     struct ws_err *err)
{
	struct ch_rank *rk = &s->rank[r];
	size_t pos = 0;
	uint64_t k = 0, last_id = 0;
	bool any = false;
	uint32_t cap = 0;
	while (pos < len) {
		uint64_t mlen;
		size_t at = pos;
		if (!ch_varint(buf, len, &pos, &mlen) || mlen > len - pos)
			return ws_err_at(err, WS_EINVAL, rk->path, 0, "truncated: "
					 "message %" PRIu64 " (byte %zu)%s%" PRIu64
					 " ends past the end of the file", k, at,
					 any ? ", after node id " : "", any ? last_id : 0);
		if (k == 0) {
			ChakraProtoMsg__GlobalMetadata *g =
				chakra_proto_msg__global_metadata__unpack(NULL, mlen, buf + pos);
			if (!g)
				return ws_err_at(err, WS_EINVAL, rk->path, 0, "the first "
						 "message is not a Chakra GlobalMetadata");
			chakra_proto_msg__global_metadata__free_unpacked(g, NULL);
		} else {
			ChakraProtoMsg__Node *m =
				chakra_proto_msg__node__unpack(NULL, mlen, buf + pos);
			if (!m)
				return ws_err_at(err, WS_EINVAL, rk->path, 0, "message %"
						 PRIu64 " (byte %zu)%s%" PRIu64 " is not a "
						 "Chakra Node", k, at, any ? ", after node id " : "",
						 any ? last_id : 0);
			if (*n_msgs == cap) {
				cap = cap ? 2 * cap : 64;
				ChakraProtoMsg__Node **nm = realloc(*msgs, cap * sizeof *nm);
				if (!nm) {
					chakra_proto_msg__node__free_unpacked(m, NULL);
					return ws_err_set(err, WS_ENOMEM, "out of memory");
				}
				*msgs = nm;
			}
			(*msgs)[(*n_msgs)++] = m;
			last_id = m->id;
			any = true;
		}
		pos += mlen;
		k++;
	}
	if (k == 0)
		return ws_err_at(err, WS_EINVAL, rk->path, 0, "empty file (expected a "
				 "GlobalMetadata message, then the nodes)");
	return WS_OK;
}

struct ch_idx {
	uint64_t id;
	uint32_t i;
};

/* by id (bsearch) */
static int ch_idx_cmp(const void *a, const void *b)
{
	const struct ch_idx *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* by id, then place in the file (the sort: repeated ids in file order) */
static int ch_idx_order(const void *a, const void *b)
{
	const struct ch_idx *x = a, *y = b;
	int c = ch_idx_cmp(a, b);
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* Nodes of rank r from its messages: roles, then dependencies by id. */
static int ch_nodes(struct chakra_state *s, uint32_t r, ChakraProtoMsg__Node **m,
		    uint32_t n, struct ws_err *err)
{
	struct ch_rank *rk = &s->rank[r];
	rk->node = calloc(n ? n : 1, sizeof *rk->node);
	struct ch_idx *idx = malloc((n ? n : 1) * sizeof *idx);
	int rc = WS_OK;
	if (!rk->node || !idx) {
		rc = ws_err_set(err, WS_ENOMEM, "out of memory for %u nodes", n);
		goto out;
	}
	rk->n = n;
	for (uint32_t i = 0; i < n && !rc; i++) {
		struct ch_node *nd = &rk->node[i];
		nd->id = m[i]->id;
		nd->name = strdup(m[i]->name ? m[i]->name : "");
		if (!nd->name) {
			rc = ws_err_set(err, WS_ENOMEM, "out of memory");
			break;
		}
		idx[i] = (struct ch_idx){ nd->id, i };
		const char *pg;
		rc = ch_node_role(s, r, nd, m[i], &pg, err);
		if (!rc && nd->role == CH_COLL) {
			int g = ch_pg_find(s, pg, err);
			if (g < 0)
				rc = g;
			else
				nd->pg = (uint32_t)g;
		}
	}
	if (rc)
		goto out;
	qsort(idx, n, sizeof *idx, ch_idx_order);
	for (uint32_t i = 1; i < n; i++)
		if (idx[i].id == idx[i - 1].id) {
			rc = ch_fail(err, rk, &rk->node[idx[i].i], "the id is repeated "
				     "(messages %u and %u of the nodes, from 0; ids must "
				     "be unique in a file)", idx[i - 1].i, idx[i].i);
			goto out;
		}
	for (uint32_t i = 0; i < n && !rc; i++) {
		struct ch_node *nd = &rk->node[i];
		size_t nd_n = m[i]->n_data_deps + m[i]->n_ctrl_deps;
		nd->dep = malloc((nd_n ? nd_n : 1) * sizeof *nd->dep);
		if (!nd->dep) {
			rc = ws_err_set(err, WS_ENOMEM, "out of memory");
			break;
		}
		for (size_t d = 0; d < nd_n && !rc; d++) {
			uint64_t want = d < m[i]->n_data_deps ? m[i]->data_deps[d] :
					m[i]->ctrl_deps[d - m[i]->n_data_deps];
			struct ch_idx key = { want, 0 };
			const struct ch_idx *hit = bsearch(&key, idx, n, sizeof *idx, ch_idx_cmp);
			if (!hit)
				rc = ch_fail(err, rk, nd, "depends on node id %" PRIu64
					     ", which is not in the file", want);
			else if (hit->i == i)
				rc = ch_fail(err, rk, nd, "depends on itself");
			else
				nd->dep[nd->n_dep++] = hit->i;
		}
	}
out:
	free(idx);
	return rc;
}

static int ch_read_rank(struct chakra_state *s, uint32_t r, struct ws_err *err)
{
	struct ch_rank *rk = &s->rank[r];
	FILE *f = fopen(rk->path, "rb");
	if (!f)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EIO, rk->path, 0,
				 "cannot open the trace of rank %u: %s", r, strerror(errno));
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = WS_OK;
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			uint8_t *nb = cap <= CHAKRA_MAX_FILE ? realloc(buf, cap) : NULL;
			if (!nb) {
				rc = ws_err_at(err, WS_ENOMEM, rk->path, 0, "the file is "
					       "too large to read (%zu bytes so far)", len);
				break;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (!rc && ferror(f))
		rc = ws_err_at(err, WS_EIO, rk->path, 0, "read error");
	fclose(f);
	ChakraProtoMsg__Node **m = NULL;
	uint32_t n = 0;
	if (!rc)
		rc = ch_decode(s, r, buf, len, &m, &n, err);
	free(buf);
	if (!rc)
		rc = ch_nodes(s, r, m, n, err);
	for (uint32_t i = 0; i < n; i++)
		chakra_proto_msg__node__free_unpacked(m[i], NULL);
	free(m);
	s->nodes += n;
	return rc;
}

/* ---- matching communication across ranks ------------------------------------ */

static int ch_new_op(struct chakra_state *s, uint32_t gid, uint8_t kind,
		     uint64_t bytes, uint32_t r, uint32_t node, struct ws_err *err)
{
	if (s->n_op == s->cap_op) {
		uint32_t cap = s->cap_op ? 2 * s->cap_op : 256;
		struct ch_op *no = realloc(s->op, cap * sizeof *no);
		if (!no)
			return ws_err_set(err, WS_ENOMEM, "out of memory for collectives");
		s->op = no;
		s->cap_op = cap;
	}
	s->op[s->n_op] = (struct ch_op){ .gid = gid, .kind = kind, .bytes = bytes,
					 .seen = 1, .rank = r, .node = node };
	return (int)s->n_op++;
}

static const char *const ch_kind_names[COLL_KINDS] = {
	"ALL_REDUCE", "ALL_GATHER", "REDUCE_SCATTER", "ALL_TO_ALL", "send/recv",
};

/* The k-th collective of a group in each member's file is one collective. */
static int ch_match_colls(struct chakra_state *s, struct ws_err *err)
{
	uint32_t *seq = calloc(s->n_pg ? s->n_pg : 1, sizeof *seq);
	if (!seq)
		return ws_err_set(err, WS_ENOMEM, "out of memory");
	int rc = WS_OK;
	for (uint32_t r = 0; r < s->n_rank && !rc; r++) {
		memset(seq, 0, s->n_pg * sizeof *seq);
		for (uint32_t i = 0; i < s->rank[r].n && !rc; i++) {
			struct ch_node *nd = &s->rank[r].node[i];
			if (nd->role != CH_COLL)
				continue;
			struct ch_pg *g = &s->pg[nd->pg];
			uint32_t k = seq[nd->pg]++;
			if (k < g->n_seq) {
				struct ch_op *o = &s->op[g->seq_op[k]];
				if (o->kind != nd->kind || o->bytes != nd->bytes) {
					const struct ch_node *f = &s->rank[o->rank].node[o->node];
					rc = ch_fail(err, &s->rank[r], nd, "%s of %" PRIu64
						     " bytes, but the same collective (number %u "
						     "of group '%s') in %s, node id %" PRIu64 ", is %s "
						     "of %" PRIu64 " bytes", ch_kind_names[nd->kind],
						     nd->bytes, k, g->name ? g->name : "all ranks",
						     s->rank[o->rank].path, f->id,
						     ch_kind_names[o->kind], o->bytes);
					break;
				}
				o->seen++;
				nd->op = g->seq_op[k];
				continue;
			}
			uint32_t *ns = realloc(g->seq_op, (g->n_seq + 1) * sizeof *ns);
			if (!ns) {
				rc = ws_err_set(err, WS_ENOMEM, "out of memory");
				break;
			}
			g->seq_op = ns;
			int op = ch_new_op(s, g->gid, nd->kind, nd->bytes, r, i, err);
			if (op < 0) {
				rc = op;
				break;
			}
			g->seq_op[g->n_seq++] = (uint32_t)op;
			nd->op = (uint32_t)op;
		}
	}
	free(seq);
	for (uint32_t p = 0; p < s->n_pg && !rc; p++)
		for (uint32_t k = 0; k < s->pg[p].n_seq && !rc; k++) {
			const struct ch_op *o = &s->op[s->pg[p].seq_op[k]];
			if (o->seen != s->pg[p].n)
				rc = ch_fail(err, &s->rank[o->rank], &s->rank[o->rank].node[o->node],
					     "collective number %u of group '%s' is in the "
					     "traces of %u of its %u ranks", k,
					     s->pg[p].name ? s->pg[p].name : "all ranks",
					     o->seen, s->pg[p].n);
		}
	return rc;
}

struct ch_p2p {
	uint32_t src, dst;
	uint64_t tag;
	uint32_t rank, node;
};

static int ch_p2p_cmp(const void *a, const void *b)
{
	const struct ch_p2p *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static bool ch_p2p_same(const struct ch_p2p *x, const struct ch_p2p *y)
{
	return x->src == y->src && x->dst == y->dst && x->tag == y->tag;
}

/* Collect the sends (role CH_SEND) or the receives, sorted. */
static struct ch_p2p *ch_p2p_list(const struct chakra_state *s, uint8_t role,
				  uint32_t *count)
{
	uint32_t n = 0;
	for (uint32_t r = 0; r < s->n_rank; r++)
		for (uint32_t i = 0; i < s->rank[r].n; i++)
			n += s->rank[r].node[i].role == role;
	struct ch_p2p *l = malloc((n ? n : 1) * sizeof *l);
	if (!l)
		return NULL;
	n = 0;
	for (uint32_t r = 0; r < s->n_rank; r++)
		for (uint32_t i = 0; i < s->rank[r].n; i++) {
			const struct ch_node *nd = &s->rank[r].node[i];
			if (nd->role != role)
				continue;
			l[n++] = (struct ch_p2p){ role == CH_SEND ? r : nd->peer,
				role == CH_SEND ? nd->peer : r, nd->tag, r, i };
		}
	qsort(l, n, sizeof *l, ch_p2p_cmp);
	*count = n;
	return l;
}

/* The k-th send of (src, dst, tag) and the k-th receive are one transfer. */
static int ch_match_p2p(struct chakra_state *s, struct ws_err *err)
{
	uint32_t ns = 0, nr = 0;
	struct ch_p2p *snd = ch_p2p_list(s, CH_SEND, &ns);
	struct ch_p2p *rcv = ch_p2p_list(s, CH_RECV, &nr);
	int rc = WS_OK;
	if (!snd || !rcv) {
		rc = ws_err_set(err, WS_ENOMEM, "out of memory");
		goto out;
	}
	uint32_t i = 0, j = 0;
	while ((i < ns || j < nr) && !rc) {
		int c = i == ns ? 1 : j == nr ? -1 : ch_p2p_cmp(&snd[i], &rcv[j]);
		if (i < ns && j < nr && ch_p2p_same(&snd[i], &rcv[j]))
			c = 0;
		if (c) {
			const struct ch_p2p *u = c < 0 ? &snd[i] : &rcv[j];
			rc = ch_fail(err, &s->rank[u->rank], &s->rank[u->rank].node[u->node],
				     "a %s of rank %u to rank %u (tag %" PRIu64 ") with no "
				     "matching %s in the other rank's trace",
				     c < 0 ? "send" : "receive", u->src, u->dst, u->tag,
				     c < 0 ? "receive" : "send");
			break;
		}
		struct ch_node *a = &s->rank[snd[i].rank].node[snd[i].node];
		struct ch_node *b = &s->rank[rcv[j].rank].node[rcv[j].node];
		if (a->bytes != b->bytes) {
			rc = ch_fail(err, &s->rank[rcv[j].rank], b, "receives %" PRIu64
				     " bytes, but the matching send (%s, node id %" PRIu64
				     ") sends %" PRIu64, b->bytes, s->rank[snd[i].rank].path,
				     a->id, a->bytes);
			break;
		}
		uint32_t pair[2] = { snd[i].src, snd[i].dst };
		uint32_t gid = coll_group(s->eng, pair, 2, "p2p", err);
		int op = gid == COLL_NONE ? WS_EINVAL :
			 ch_new_op(s, gid, COLL_SENDRECV, a->bytes, snd[i].rank,
				   snd[i].node, err);
		if (op < 0) {
			rc = op;
			break;
		}
		a->op = b->op = (uint32_t)op;
		i++;
		j++;
	}
out:
	free(snd);
	free(rcv);
	return rc;
}

static int ch_groups(struct chakra_state *s, struct ws_err *err)
{
	for (uint32_t r = 0; r < s->n_rank; r++)
		for (uint32_t i = 0; i < s->rank[r].n; i++) {
			const struct ch_node *nd = &s->rank[r].node[i];
			if (nd->role != CH_COLL)
				continue;
			struct ch_pg *g = &s->pg[nd->pg];
			/* without a name: every rank, once */
			if (!g->name && g->n)
				continue;
			for (uint32_t x = g->name ? r : 0; x <= (g->name ? r : s->n_rank - 1); x++) {
				int rc = ch_pg_add(g, x, err);
				if (rc)
					return rc;
			}
		}
	for (uint32_t p = 0; p < s->n_pg; p++) {
		struct ch_pg *g = &s->pg[p];
		g->gid = coll_group(s->eng, g->member, g->n, g->name ? g->name : "world", err);
		if (g->gid == COLL_NONE)
			return WS_EINVAL;
	}
	return WS_OK;
}

/* ---- one iteration ---------------------------------------------------------- */

static int chakra_build(void *ctx, struct coll_engine *e, uint32_t iter,
			struct ws_err *err)
{
	struct chakra_state *s = ((struct ws_inst *)ctx)->state;
	(void)iter;
	for (uint32_t o = 0; o < s->n_op; o++) {
		const struct ch_op *op = &s->op[o];
		s->op[o].task = coll_collective(e, op->gid, (enum coll_kind)op->kind,
						op->bytes, err);
		if (s->op[o].task == COLL_NONE)
			return WS_EINVAL;
	}
	for (uint32_t r = 0; r < s->n_rank; r++)
		for (uint32_t i = 0; i < s->rank[r].n; i++) {
			struct ch_node *nd = &s->rank[r].node[i];
			nd->task = nd->role == CH_DELAY ? coll_compute(e, nd->dur, err) :
				   s->op[nd->op].task;
			if (nd->task == COLL_NONE)
				return WS_EINVAL;
		}
	for (uint32_t r = 0; r < s->n_rank; r++)
		for (uint32_t i = 0; i < s->rank[r].n; i++) {
			const struct ch_node *nd = &s->rank[r].node[i];
			for (uint32_t d = 0; d < nd->n_dep; d++) {
				uint32_t before = s->rank[r].node[nd->dep[d]].task;
				if (before != nd->task && coll_dep(e, before, nd->task, err))
					return WS_EINVAL;
			}
		}
	return WS_OK;
}

/* ---- the workload ----------------------------------------------------------- */

static int ch_paths(struct chakra_state *s, const struct chakra_conf *c,
		    struct ws_inst *inst, struct ws_err *err)
{
	char base[4096];
	int rc = ws_resolve_path(inst->sim, c->prefix, base, sizeof base, err);
	if (rc)
		return rc;
	uint32_t n = (uint32_t)c->ranks;
	if (!n) {
		char p[4200];
		while (n < CHAKRA_MAX_RANKS) {
			snprintf(p, sizeof p, "%s.%u.et", base, n);
			FILE *f = fopen(p, "rb");
			if (!f)
				break;
			fclose(f);
			n++;
		}
		if (!n)
			return ws_err_at(err, WS_ENOENT, base, 0, "no trace files: "
					 "expected %s.0.et, %s.1.et, ...", base, base);
	}
	const struct ws_fabric *fab = ws_sim_fabric(inst->sim);
	if (n > fab->n_hosts)
		return ws_err_key(err, WS_EINVAL, "ranks", "%u ranks, but the fabric "
				  "has %u hosts (rank N runs on host N)", n, fab->n_hosts);
	s->rank = calloc(n, sizeof *s->rank);
	if (!s->rank)
		return ws_err_set(err, WS_ENOMEM, "out of memory for %u ranks", n);
	s->n_rank = n;
	for (uint32_t r = 0; r < n; r++)
		if ((size_t)snprintf(s->rank[r].path, sizeof s->rank[r].path, "%s.%u.et",
				     base, r) >= sizeof s->rank[r].path)
			return ws_err_key(err, WS_EINVAL, "prefix", "the path is too long");
	return WS_OK;
}

static void chakra_fini(struct ws_inst *inst)
{
	struct chakra_state *s = inst->state;
	coll_engine_free(s->eng);
	for (uint32_t r = 0; s->rank && r < s->n_rank; r++) {
		for (uint32_t i = 0; i < s->rank[r].n; i++) {
			free(s->rank[r].node[i].name);
			free(s->rank[r].node[i].dep);
		}
		free(s->rank[r].node);
	}
	free(s->rank);
	for (uint32_t p = 0; p < s->n_pg; p++) {
		free(s->pg[p].name);
		free(s->pg[p].member);
		free(s->pg[p].seq_op);
	}
	free(s->pg);
	free(s->op);
	memset(s, 0, sizeof *s);
}

static int chakra_init(struct ws_inst *inst, struct ws_err *err)
{
	const struct chakra_conf *c = inst->conf;
	struct chakra_state *s = inst->state;
	int rc = ch_paths(s, c, inst, err);
	for (uint32_t r = 0; !rc && r < s->n_rank; r++)
		rc = ch_read_rank(s, r, err);
	if (!rc) {
		struct coll_spec spec = {
			.inst = inst, .comm = &c->comm, .gpus = s->n_rank,
			.iterations = (uint32_t)c->iterations, .build = chakra_build,
			.ctx = inst,
		};
		rc = coll_engine_new(&s->eng, &spec, err);
	}
	if (!rc)
		rc = ch_groups(s, err);
	if (!rc)
		rc = ch_match_colls(s, err);
	if (!rc)
		rc = ch_match_p2p(s, err);
	if (rc)
		chakra_fini(inst);
	return rc;
}

static int chakra_start(struct ws_inst *inst, struct ws_err *err)
{
	struct chakra_state *s = inst->state;
	return coll_engine_start(s->eng, err);
}

static int chakra_finish(struct ws_inst *inst, const char *dir, struct ws_err *err)
{
	struct chakra_state *s = inst->state;
	return coll_engine_finish(s->eng, dir, err);
}

static void chakra_report(struct ws_inst *inst, struct ws_json *j)
{
	struct chakra_state *s = inst->state;
	ws_json_u64(j, "ranks", s->n_rank);
	ws_json_u64(j, "nodes", s->nodes);
	ws_json_u64(j, "communications", s->n_op);
	ws_json_u64(j, "process_groups", s->n_pg);
	coll_engine_report(s->eng, j);
}

static size_t chakra_summary(struct ws_inst *inst, const char *dir, char *buf,
			     size_t size)
{
	struct chakra_state *s = inst->state;
	int n = snprintf(buf, size, "  chakra     %u ranks, %" PRIu64 " nodes: %u "
			 "communications in %u process group%s\n", s->n_rank,
			 s->nodes, s->n_op, s->n_pg, s->n_pg == 1 ? "" : "s");
	if (n < 0)
		return 0;
	size_t used = (size_t)n < size ? (size_t)n : size;
	return used + coll_engine_summary(s->eng, dir, buf + used, size - used);
}

static const struct ws_workload_ops chakra_ops = {
	.size = sizeof(struct ws_workload_ops),
	.start = chakra_start,
	.finish = chakra_finish,
	.report = chakra_report,
	.summary = chakra_summary,
};

static const struct ws_plugin chakra_plugin = {
	WS_PLUGIN_ABI(WS_KIND_WORKLOAD, struct ws_workload_ops),
	.name = "chakra",
	.version = "1.0.0",
	.summary = "Chakra execution traces (ASTRA-sim 2.x), one protobuf file per rank: compute, collectives and send/recv with their dependencies",
	.params = chakra_params,
	.conf_size = sizeof(struct chakra_conf),
	.state_size = sizeof(struct chakra_state),
	.init = chakra_init,
	.fini = chakra_fini,
	.ops = &chakra_ops,
};

WS_PLUGIN_EXPORT(chakra_plugin)
