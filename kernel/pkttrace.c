/* SPDX-License-Identifier: MIT */
/*
 * Event logs, for debugging a congestion controller or a PFC storm one
 * packet at a time (what the HPCC simulator's mix.tr and pfc.txt give):
 *
 * packets.csv: one row per packet event at a port: enqueued at a switch
 *   egress queue, dequeued onto the wire (hosts included), received
 *   through a port, dropped by a buffer, lost to a failure, trimmed,
 *   CE-marked.  Filtered by packet kind, event, flow, port and time
 *   window ([output] packets*), so a large run can log what matters.
 * pfc.csv: every PAUSE and RESUME a port sends or receives, with the
 *   bytes behind it; pfc_ports.csv at the end: per port, the counts and
 *   how long it was paused and kept its peer paused.
 *
 * The hot paths call in only when sim->trace_pkts or sim->trace_pfc is
 * set: flags beside the event loop's own, so a run without the logs pays
 * one predictable branch per site and no event.  Rows are written as they
 * happen through the output-file machinery (a temporary renamed into place
 * at the end); a file that would pass [output] log_max_bytes stops at the
 * last whole row and summary.json says so, and a write error (a full disk)
 * drops that log and is reported there, while the run goes on.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One of the two logs. */
struct ws_log {
	struct ws_outfile *o;
	const char *name;
	uint64_t bytes, rows;
	bool truncated;        /* a row would have passed log_max_bytes */
	ws_time truncated_at;  /* the time of the first row left out */
	char error[256];       /* why it was dropped; "" if it was not */
};

/* PFC state per port, for pfc_ports.csv. */
struct ws_pfc_port {
	uint64_t pause_tx, resume_tx, pause_rx, resume_rx;
	uint8_t sent, got;     /* priorities paused by this port / its peer */
	ws_time sent_since, got_since;
	ws_time pausing, paused; /* total time with some priority paused that way */
};

struct flow_range {
	uint32_t lo, hi;
};

struct ws_ptrace {
	struct ws_log pk, pfc;
	uint32_t kinds;        /* bit per enum ws_pkt_type */
	uint32_t events;       /* bit per enum ws_pt_event */
	uint8_t *port_on;      /* per port; NULL: every port */
	struct flow_range *flows; /* NULL: every flow */
	size_t n_flows;
	struct ws_pfc_port *pp; /* per port, with [output] pfc */
};

static const char *const kind_name[] = { "data", "ack", "nack", "cnp", "pfc" };
static const char *const event_name[WS_PT_N] = { "enq", "deq", "recv", "drop",
						  "lost", "trim", "ecn" };

/* ---- configuration --------------------------------------------------------- */

static int locate(const struct ws_cfg *cfg, const char *key, struct ws_err *err, int rc)
{
	const struct ws_cfg_entry *e = ws_cfg_find(cfg, "output", key);
	if (e)
		ws_err_locate(err, e->file, e->line);
	return rc;
}

/* "all" or a list of names from names[0..n-1]: their bits in *mask. */
static int parse_names(struct ws_sim *sim, const char *text, const char *key,
		       const char *const *names, unsigned n, uint32_t *mask,
		       struct ws_err *err)
{
	*mask = 0;
	char *copy = ws_arena_strdup(&sim->arena, text), *save = NULL;
	for (char *t = strtok_r(copy, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		unsigned k = 0;
		if (!strcmp(t, "all")) {
			*mask |= (1u << n) - 1;
			continue;
		}
		while (k < n && strcmp(t, names[k]))
			k++;
		if (k == n) {
			char list[128] = "all";
			for (unsigned i = 0; i < n; i++)
				snprintf(list + strlen(list), sizeof list - strlen(list),
					 ", %s", names[i]);
			return ws_err_key(err, WS_EINVAL, key, "'%s' is not one of %s",
					  t, list);
		}
		*mask |= 1u << k;
	}
	if (!*mask)
		return ws_err_key(err, WS_EINVAL, key, "names nothing to trace");
	return WS_OK;
}

/* [output] packets_flows: ID or FIRST-LAST items. */
static int parse_flows(struct ws_sim *sim, struct ws_ptrace *t, const char *text,
		       struct ws_err *err)
{
	char *copy = ws_arena_strdup(&sim->arena, text), *save = NULL;
	for (char *s = strtok_r(copy, " \t,", &save); s; s = strtok_r(NULL, " \t,", &save)) {
		uint64_t lo, hi;
		char *dash = strchr(s, '-');
		if (dash)
			*dash = '\0';
		bool ok = ws_text_u64(s, &lo);
		if (ok && dash)
			ok = ws_text_u64(dash + 1, &hi);
		else
			hi = lo;
		if (!ok || lo > hi || hi >= WS_NONE) {
			if (dash)
				*dash = '-';
			return ws_err_key(err, WS_EINVAL, "output.packets_flows",
					  "'%s': expected a flow id or FIRST-LAST", s);
		}
		t->flows = ws_xrealloc(t->flows, t->n_flows + 1, sizeof *t->flows);
		t->flows[t->n_flows++] = (struct flow_range){ (uint32_t)lo, (uint32_t)hi };
	}
	return WS_OK;
}

static int prepare_packets(struct ws_sim *sim, struct ws_ptrace *t,
			   const struct ws_cfg *cfg, struct ws_err *err)
{
	const struct ws_output_conf *c = &sim->outc;
	int rc = parse_names(sim, c->packets, "output.packets", kind_name,
			     WS_ARRAY_LEN(kind_name), &t->kinds, err);
	if (rc)
		return locate(cfg, "packets", err, rc);
	rc = parse_names(sim, c->packets_events ? c->packets_events : "all",
			 "output.packets_events", event_name, WS_PT_N, &t->events, err);
	if (rc)
		return locate(cfg, "packets_events", err, rc);
	if (c->packets_flows && c->packets_flows[0]) {
		rc = parse_flows(sim, t, c->packets_flows, err);
		if (rc)
			return locate(cfg, "packets_flows", err, rc);
	}
	if (c->packets_ports && c->packets_ports[0]) {
		t->port_on = ws_xcalloc(sim->fab.n_ports ? sim->fab.n_ports : 1, 1);
		rc = ws_port_list_parse(sim, c->packets_ports, "packets_ports",
					t->port_on, err);
		if (rc)
			return locate(cfg, "packets_ports", err, rc);
	}
	if (c->packets_stop && c->packets_stop <= c->packets_start)
		return locate(cfg, "packets_stop", err,
			      ws_err_key(err, WS_EINVAL, "output.packets_stop",
					 "packets_stop must be after packets_start "
					 "(or 0s: until the end)"));
	sim->trace_pkts = true;
	return WS_OK;
}

int ws_ptrace_prepare(struct ws_sim *sim, const struct ws_cfg *cfg, struct ws_err *err)
{
	const struct ws_output_conf *c = &sim->outc;
	bool packets = c->packets && c->packets[0];
	if (!packets && !c->pfc)
		return WS_OK;
	struct ws_ptrace *t = ws_xcalloc(1, sizeof *t);
	sim->ptrace = t;
	t->pk.name = "packets.csv";
	t->pfc.name = "pfc.csv";
	if (packets) {
		int rc = prepare_packets(sim, t, cfg, err);
		if (rc)
			return rc;
	}
	if (c->pfc) {
		t->pp = ws_xcalloc(sim->fab.n_ports ? sim->fab.n_ports : 1, sizeof *t->pp);
		sim->trace_pfc = true;
	}
	return WS_OK;
}

/* ---- writing ------------------------------------------------------------------ */

static void log_open(struct ws_sim *sim, struct ws_log *l, const char *header)
{
	struct ws_err err;
	ws_err_clear(&err);
	if (!ws_mkdir_p(sim->out_dir, &err))
		l->o = ws_outfile_open(sim->out_dir, l->name, &err);
	if (!l->o) {
		snprintf(l->error, sizeof l->error, "%.200s", err.msg);
		return;
	}
	l->bytes = strlen(header);
	fputs(header, ws_outfile_stream(l->o));
}

void ws_ptrace_start(struct ws_sim *sim)
{
	struct ws_ptrace *t = sim->ptrace;
	if (!t)
		return;
	if (sim->trace_pkts)
		log_open(sim, &t->pk, "time_ns,node,port,event,kind,flow,src,dst,seq,"
				      "payload,wire,prio,ecn,flags,queue_bytes\n");
	if (sim->trace_pfc)
		log_open(sim, &t->pfc, "time_ns,node,port,peer_node,peer_port,prio,"
				       "dir,event,ingress_bytes,egress_bytes\n");
}

/* Append one row (n bytes): up to log_max_bytes, then the log is cut. */
static void log_row(struct ws_sim *sim, struct ws_log *l, const char *row, int n)
{
	if (!l->o || l->truncated || n <= 0)
		return;
	if (l->bytes + (uint64_t)n > sim->outc.log_max_bytes) {
		l->truncated = true;
		l->truncated_at = sim->now;
		ws_warn(sim, "%s reached [output] log_max_bytes = %" PRIu64 " bytes at "
			"%.3f us simulated: later events are left out (the run goes on)",
			l->name, sim->outc.log_max_bytes, (double)sim->now / (double)WS_US);
		return;
	}
	FILE *f = ws_outfile_stream(l->o);
	errno = 0;
	if (fwrite(row, 1, (size_t)n, f) != (size_t)n || ferror(f)) {
		snprintf(l->error, sizeof l->error, "write failed after %" PRIu64
			 " bytes: %s", l->bytes, strerror(errno ? errno : EIO));
		ws_outfile_discard(l->o);
		l->o = NULL;
		ws_warn(sim, "%s dropped: %s (the run goes on)", l->name, l->error);
		return;
	}
	l->bytes += (uint64_t)n;
	l->rows++;
}

static bool flow_on(const struct ws_ptrace *t, uint32_t flow)
{
	for (size_t i = 0; i < t->n_flows; i++)
		if (flow >= t->flows[i].lo && flow <= t->flows[i].hi)
			return true;
	return false;
}

static void flag_letters(char *s, uint8_t flags)
{
	static const char letters[] = "LEIPRT"; /* bits 0x01 .. 0x20 */
	for (unsigned b = 0; b < 6; b++)
		if (flags & (1u << b))
			*s++ = letters[b];
	*s = '\0';
}

void ws_ptrace_pkt(struct ws_sim *sim, const struct ws_port *port,
		   const struct ws_pkt *p, enum ws_pt_event ev)
{
	const struct ws_ptrace *t = sim->ptrace;
	const struct ws_output_conf *c = &sim->outc;
	if (!(t->events & (1u << ev)) || p->type >= WS_ARRAY_LEN(kind_name) ||
	    !(t->kinds & (1u << p->type)) || sim->now < c->packets_start ||
	    (c->packets_stop && sim->now >= c->packets_stop))
		return;
	if (t->port_on && !t->port_on[port - sim->ports])
		return;
	if (t->flows && (p->type == WS_PKT_PFC || !flow_on(t, p->flow)))
		return;
	char tm[32], fl[8], flow[16] = "", q[24] = "", row[320];
	ws_fmt_ps_as_ns(tm, sizeof tm, sim->now);
	flag_letters(fl, p->flags);
	if (p->type != WS_PKT_PFC)
		snprintf(flow, sizeof flow, "%u", p->flow);
	if (ev != WS_PT_RECV)
		snprintf(q, sizeof q, "%" PRIu64, port->q_bytes);
	int n = snprintf(row, sizeof row, "%s,%u,%u,%s,%s,%s,%u,%u,%" PRIu64 ",%u,%u,%u,%u,%s,%s\n",
			 tm, port->node, port->local, event_name[ev], kind_name[p->type],
			 flow, p->src, p->dst, p->seq, p->payload, p->wire,
			 p->prio, p->ecn, fl, q);
	log_row(sim, &sim->ptrace->pk, row, n);
}

/* Time with some bit of `bits` set, while it goes from `before` to `after`. */
static void pfc_span(uint8_t before, uint8_t after, ws_time now, ws_time *since,
		     ws_time *total)
{
	if (!before && after)
		*since = now;
	else if (before && !after)
		*total += now - *since;
}

void ws_ptrace_pfc(struct ws_sim *sim, const struct ws_port *port, unsigned prio,
		   bool pause, bool sent, const struct ws_pkt *frame)
{
	struct ws_ptrace *t = sim->ptrace;
	uint32_t gid = (uint32_t)(port - sim->ports);
	if (sim->trace_pkts && frame)
		ws_ptrace_pkt(sim, port, frame, WS_PT_ENQ);
	if (!sim->trace_pfc)
		return;
	struct ws_pfc_port *pp = &t->pp[gid];
	uint8_t bit = (uint8_t)(1u << prio);
	uint8_t *bits = sent ? &pp->sent : &pp->got;
	uint8_t before = *bits;
	*bits = pause ? (uint8_t)(before | bit) : (uint8_t)(before & ~bit);
	if (sent) {
		pfc_span(before, *bits, sim->now, &pp->sent_since, &pp->pausing);
		*(pause ? &pp->pause_tx : &pp->resume_tx) += 1;
	} else {
		pfc_span(before, *bits, sim->now, &pp->got_since, &pp->paused);
		*(pause ? &pp->pause_rx : &pp->resume_rx) += 1;
	}
	const struct ws_port *peer = port->peer != WS_NONE ? &sim->ports[port->peer] : NULL;
	char tm[32], row[200];
	ws_fmt_ps_as_ns(tm, sizeof tm, sim->now);
	int n = snprintf(row, sizeof row, "%s,%u,%u,%u,%u,%u,%s,%s,%u,%" PRIu64 "\n",
			 tm, port->node, port->local, peer ? peer->node : WS_NONE,
			 peer ? peer->local : 0u, prio, sent ? "tx" : "rx",
			 pause ? "pause" : "resume",
			 port->in_bytes[prio] + port->hdrm_bytes[prio],
			 (uint64_t)port->q[prio].bytes);
	log_row(sim, &t->pfc, row, n);
}

/* ---- the end ------------------------------------------------------------------ */

int ws_ptrace_commit(struct ws_sim *sim, struct ws_err *err)
{
	struct ws_ptrace *t = sim->ptrace;
	if (!t)
		return WS_OK;
	int rc = WS_OK;
	struct ws_log *logs[] = { &t->pk, &t->pfc };
	for (size_t k = 0; k < WS_ARRAY_LEN(logs); k++) {
		if (!logs[k]->o)
			continue;
		int r = ws_outfile_commit(logs[k]->o, rc ? NULL : err);
		logs[k]->o = NULL;
		if (r && !rc)
			rc = r;
	}
	return rc;
}

bool ws_ptrace_written(const struct ws_sim *sim, const char *name)
{
	const struct ws_ptrace *t = sim->ptrace;
	if (!t)
		return false;
	if (!strcmp(name, t->pk.name))
		return sim->trace_pkts && !t->pk.error[0];
	if (!strcmp(name, t->pfc.name))
		return sim->trace_pfc && !t->pfc.error[0];
	return false;
}

int ws_write_pfc_ports(struct ws_sim *sim, const char *dir, struct ws_err *err)
{
	const struct ws_ptrace *t = sim->ptrace;
	if (!t || !t->pp)
		return WS_OK;
	struct ws_outfile *o = ws_outfile_open(dir, "pfc_ports.csv", err);
	if (!o)
		return WS_EIO;
	FILE *f = ws_outfile_stream(o);
	fputs("node,port,peer_node,peer_port,pauses_sent,resumes_sent,"
	      "pauses_received,resumes_received,pausing_ns,paused_ns\n", f);
	for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
		const struct ws_pfc_port *pp = &t->pp[i];
		if (!pp->pause_tx && !pp->pause_rx)
			continue;
		const struct ws_port *p = &sim->ports[i];
		const struct ws_port *peer = &sim->ports[p->peer];
		/* a pause still on at the end counts up to now */
		ws_time pausing = pp->pausing + (pp->sent ? sim->now - pp->sent_since : 0);
		ws_time paused = pp->paused + (pp->got ? sim->now - pp->got_since : 0);
		char a[32], b[32];
		ws_fmt_ps_as_ns(a, sizeof a, pausing);
		ws_fmt_ps_as_ns(b, sizeof b, paused);
		fprintf(f, "%u,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%s,%s\n", p->node, p->local, peer->node, peer->local,
			pp->pause_tx, pp->resume_tx, pp->pause_rx, pp->resume_rx, a, b);
	}
	return ws_outfile_commit(o, err);
}

static void json_log(struct ws_json *j, const char *key, const struct ws_log *l)
{
	ws_json_begin(j, key);
	ws_json_str(j, "file", l->name);
	ws_json_u64(j, "rows", l->rows);
	ws_json_u64(j, "bytes", l->bytes);
	ws_json_bool(j, "truncated", l->truncated);
	if (l->truncated)
		ws_json_u64(j, "truncated_at_ps", l->truncated_at);
	if (l->error[0])
		ws_json_str(j, "error", l->error);
}

/* summary.json's "packet_log" and "pfc_log", when they are on. */
void ws_json_ptrace(const struct ws_sim *sim, struct ws_json *j)
{
	const struct ws_ptrace *t = sim->ptrace;
	if (!t)
		return;
	if (sim->trace_pkts) {
		json_log(j, "packet_log", &t->pk);
		ws_json_end(j);
	}
	if (!sim->trace_pfc)
		return;
	uint64_t n[4] = { 0 };
	for (uint32_t i = 0; i < sim->fab.n_ports; i++) {
		n[0] += t->pp[i].pause_tx;
		n[1] += t->pp[i].resume_tx;
		n[2] += t->pp[i].pause_rx;
		n[3] += t->pp[i].resume_rx;
	}
	json_log(j, "pfc_log", &t->pfc);
	ws_json_u64(j, "pauses_sent", n[0]);
	ws_json_u64(j, "resumes_sent", n[1]);
	ws_json_u64(j, "pauses_received", n[2]);
	ws_json_u64(j, "resumes_received", n[3]);
	ws_json_end(j);
}

void ws_ptrace_close(struct ws_sim *sim)
{
	struct ws_ptrace *t = sim->ptrace;
	if (!t)
		return;
	ws_outfile_discard(t->pk.o);
	ws_outfile_discard(t->pfc.o);
	free(t->port_on);
	free(t->flows);
	free(t->pp);
	free(t);
	sim->ptrace = NULL;
	sim->trace_pkts = sim->trace_pfc = false;
}
