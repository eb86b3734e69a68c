/* SPDX-License-Identifier: MIT */
/*
 * Memoization of transients (the wormhole accelerator).  A transient
 * starts when a partition forms or changes and ends when it is steady
 * again.  Its situation is the partition's flow conflict graph: vertices are
 * flows with their rates at the start (quantized by the caller), edges join
 * flows sharing links, weighted by the number of links shared, plus a
 * context hash (the CC and its parameters, the link rates, anything else
 * that changes the outcome).  Its outcome, per flow: the bytes sent during
 * the transient, its CC's rate and its goodput at the end, and the
 * transient's duration.
 *
 * Graphs are compared up to isomorphism: the key is the XXH3-64 hash (xxHash)
 * of a canonical form (colour refinement of the weighted graph, then an
 * ordering); a lookup that hits on the key is verified by checking
 * that the stored graph is isomorphic to the query (vertex rates, edge
 * weights), and the outcome is returned in the query's vertex order.
 *
 * The table can be saved to and loaded from a file (`memo_db`): a magic
 * string, a format version, the entries, and a checksum; a missing file is
 * an empty table; a truncated, corrupt or other-version file is refused with
 * a message (the caller warns and starts empty), never a crash.
 */
#ifndef WH_MEMO_H
#define WH_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wh_memo;

struct wh_edge {
	uint32_t a, b;   /* vertices, a != b */
	uint32_t weight; /* links shared, >= 1 */
};

struct wh_graph {
	uint32_t n;               /* vertices (flows) */
	const uint64_t *label;    /* per vertex: its quantized rate (or any label) */
	const struct wh_edge *edges;
	uint32_t n_edges;         /* each unordered pair at most once */
	uint64_t context;         /* hash of everything else the outcome depends on */
};

struct wh_outcome {
	uint64_t duration;        /* ps */
	uint64_t *bytes;          /* per vertex, in the graph's vertex order */
	uint64_t *end_rate;       /* per vertex, bps: the CC's rate */
	uint64_t *end_goodput;    /* per vertex, bps: the payload rate measured */
	uint64_t *line_rate;      /* per vertex, bps: the flow's line rate (checks a
				   * loaded entry is physically possible) */
};

struct wh_memo *wh_memo_new(void);
void wh_memo_free(struct wh_memo *m);

/* The canonical key of a graph (equal for isomorphic graphs). */
uint64_t wh_memo_key(const struct wh_graph *g);

/*
 * Look a graph up.  On a hit (key equal and the stored graph isomorphic),
 * fills `out` (its arrays of g->n entries provided by the caller) in g's
 * vertex order and returns true.
 */
bool wh_memo_lookup(struct wh_memo *m, const struct wh_graph *g,
		    struct wh_outcome *out);

/* Record an outcome (arrays in g's vertex order); replaces an entry for an
 * isomorphic graph.  Returns 0 or -1 (out of memory). */
int wh_memo_insert(struct wh_memo *m, const struct wh_graph *g,
		   const struct wh_outcome *o);

uint64_t wh_memo_entries(const struct wh_memo *m);

/*
 * The budget of one canonical search and of one verification: search
 * nodes (an individualization and a refinement each) and elementary steps
 * (edges scanned, vertices moved).  0 keeps the default (10^4 nodes,
 * 4 x 10^7 steps).  A search that runs out falls back to the colour-class
 * key (isomorphic graphs may then miss each other); a verification that
 * runs out is a miss.
 */
void wh_memo_set_budget(struct wh_memo *m, uint32_t nodes, uint64_t steps);

struct wh_memo_stats {
	uint64_t lookups, hits;
	uint64_t fallbacks;     /* canonical searches (lookups and inserts) out of budget */
	uint64_t verified;      /* key matches proven by the isomorphism search */
	uint64_t rejected;      /* key matches not isomorphic, or not proven in budget */
	uint64_t imported;      /* entries added by wh_memo_import */
	uint64_t import_dups;   /* imported entries dropped: an isomorphic one was there */
	uint64_t imported_hits; /* hits on imported entries */
	uint64_t work;          /* elementary steps of every canonical search and
				 * verification (deterministic: what they cost) */
};
void wh_memo_get_stats(const struct wh_memo *m, struct wh_memo_stats *st);

/*
 * Load (merging into m) / save.  Load returns 0 (a file that does not
 * exist is not an error: nothing loaded), -1 for a damaged or other-version
 * memo table ("truncated after 12 of 40 entries", "format version 1,
 * expected 2", "checksum mismatch", "entry 3, flow 0: 9000000 bytes in
 * 1000 ps is more than its line rate ... carries"), -2 for a file that is
 * not a memo table at all ("not a warpsim memo file", "not a regular
 * file"); the reason is in `why` and m is unchanged on error.  Save writes
 * a temporary file renamed over `path`, and refuses (-1) to replace a file
 * that is not a memo table.
 */
int wh_memo_load(struct wh_memo *m, const char *path, char *why, size_t size);
int wh_memo_save(const struct wh_memo *m, const char *path, char *why, size_t size);

/*
 * Sharing between runs (the accelerator's share ops).  Export: the entries
 * this table's run learned (recorded with wh_memo_insert, not loaded or
 * imported; an imported or loaded entry a record replaced counts as
 * learned), in insertion order, as an image of a memo_db file, malloc'd
 * into *data; *data NULL and *len 0 when there are none.  Import: the
 * entries of such an image, in order, each dropped if an isomorphic entry
 * is already in m (first wins: importing A then B is importing A's and
 * B's entries in that order); the image is read, never written, so
 * several tables may import one image at once.  It is checked whole
 * first, as a file is (-1 damaged, -2 not a memo table, the reason in
 * `why`, m unchanged); with `check_only`, nothing else is done.
 */
int wh_memo_export(const struct wh_memo *m, void **data, size_t *len, char *why, size_t size);
int wh_memo_import(struct wh_memo *m, const void *data, size_t len, bool check_only,
		   char *why, size_t size);

#endif
