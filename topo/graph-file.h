/* SPDX-License-Identifier: MIT */
/*
 * The reader shared by the topologies that replay another simulator's
 * explicit graph file (`file`: the HPCC ns-3 layout; `simai`: SimAI's
 * layout).  Both are a header line, a line of switch ids and one line per
 * link `src dst rate delay error_rate`; only the header differs, so each
 * plugin parses its own header (a callback) and this file does the rest:
 * the switch line, the link lines, the checks that every node has a link
 * and that the graph is connected, and the build (ports numbered in the
 * order of the link lines).  Every error names the file and the line.
 */
#ifndef WARPSIM_GRAPH_FILE_H
#define WARPSIM_GRAPH_FILE_H

#include <stdint.h>

#include <warpsim/warpsim.h>

/* large enough for any fabric warpsim simulates; small enough that a bad
 * header cannot make us allocate gigabytes before the first link is read */
#define GFILE_MAX_NODES (1u << 24)
#define GFILE_MAX_LINKS (1u << 30)
#define GFILE_MAX_PORTS 0xffffu /* a node's ports are numbered in 16 bits */

struct gfile_link {
	uint32_t a, b;
	uint64_t rate;  /* bits per second */
	ws_time delay;
	uint32_t line;  /* in the file, for later checks' messages */
};

struct gfile {
	uint8_t *is_switch;      /* per node: 0 host, 1 switch, 2 one of the
				  * first n_lead ids of the switch line */
	uint32_t *degree;        /* per node: its links, hence its ports */
	struct gfile_link *links; /* in file order: the order of the ports */
	uint32_t n_nodes, n_switches, n_links;
	uint32_t cap_links;
	uint32_t first_switch;   /* switch ids below it are refused (0: none) */
	uint32_t n_lead;         /* switch ids marked 2 (SimAI: NVSwitches) */
	uint32_t ignored;        /* lines after the declared links */
	const char *header_text; /* "nodes switches links": for messages */
	char path[4096];
};

/* Parse the first line; call gfile_alloc() with what it declares. */
typedef int (*gfile_header_fn)(struct gfile *g, char *buf, uint32_t line,
			       void *ctx, struct ws_err *err);

/* An error at path:line, control bytes of quoted fields made harmless. */
int gfile_fail(struct ws_err *err, const char *path, uint32_t line,
	       const char *fmt, ...) WS_PRINTF(4, 5);
/* Split `buf` into fields, keeping the first `max`; returns how many. */
int gfile_split(char *buf, char **tok, int max);
/* Size the per-node arrays once the header is read (`nodes` checked by
 * the caller against GFILE_MAX_NODES). */
int gfile_alloc(struct gfile *g, uint32_t nodes, uint32_t switches,
		uint32_t links, struct ws_err *err);
/* Resolve `file` against the ini file's directory, read and check it. */
int gfile_load(struct gfile *g, struct ws_inst *inst, const char *file,
	       gfile_header_fn header, void *ctx, struct ws_err *err);
/* Add the nodes (switch level `level[i]`, NULL: 1) and the links. */
int gfile_build(struct gfile *g, struct ws_builder *b, const uint8_t *level,
		struct ws_err *err);
void gfile_release(struct gfile *g);

#endif
