/* SPDX-License-Identifier: MIT */
/*
 * Port-level partitions of the active flows (the wormhole accelerator):
 * the connected components of the bipartite graph flows -- ports, where a
 * flow is linked to every port its packets (data and ACKs) leave by.
 * Maintained incrementally: adding a flow merges the partitions it touches;
 * removing one recomputes only its own partition, which may split.
 *
 * Partition ids are small integers reused after a partition disappears;
 * every call that changes partitions reports which ids died and which were
 * born, so the caller can keep per-partition state beside them.
 */
#ifndef WH_PARTITION_H
#define WH_PARTITION_H

#include <stdint.h>

#define WH_NONE UINT32_MAX

struct wh_parts;

/* What a change did: partitions that ceased to exist, then the ones made. */
struct wh_change {
	const uint32_t *dead;
	uint32_t n_dead;
	const uint32_t *born;
	uint32_t n_born;
};

struct wh_parts *wh_parts_new(void);
void wh_parts_free(struct wh_parts *p);

/*
 * The live partitions the ports touch (each once, ascending), without
 * changing anything: what a starting flow would merge.  Valid until the
 * next call.
 */
uint32_t wh_parts_touching(struct wh_parts *p, const uint32_t *ports, uint32_t n,
			   const uint32_t **ids);

/*
 * Add flow `flow` (any uint32 id not present) with its ports (global port
 * ids, any order, duplicates allowed, n >= 1).  The partitions it touches
 * die and one is born holding them and the flow (a flow touching nothing
 * gets a new partition of its own).  Returns 0, or -1 when out of memory or
 * the flow is already present.  `ch` (may be NULL) is valid until the next
 * call.
 */
int wh_parts_add(struct wh_parts *p, uint32_t flow, const uint32_t *ports,
		 uint32_t n, struct wh_change *ch);

/*
 * Remove flow `flow`: its partition dies and its remaining flows form one
 * or more new partitions (none if it was alone).  Returns 0, or -1 if the
 * flow is not present.
 */
int wh_parts_remove(struct wh_parts *p, uint32_t flow, struct wh_change *ch);

/* The partition of a flow, or WH_NONE. */
uint32_t wh_parts_of(const struct wh_parts *p, uint32_t flow);
/* Flows of a partition (ascending ids), and its ports (ascending ids). */
uint32_t wh_parts_flows(const struct wh_parts *p, uint32_t part, const uint32_t **flows);
/* How many flows partition `part` holds (0 when it is not live): no sort. */
uint32_t wh_parts_n_flows(const struct wh_parts *p, uint32_t part);
uint32_t wh_parts_ports(const struct wh_parts *p, uint32_t part, const uint32_t **ports);
/* Ports of one flow, as given to add (duplicates removed, ascending). */
uint32_t wh_parts_flow_ports(const struct wh_parts *p, uint32_t flow, const uint32_t **ports);
/* Live partitions, and their ids (ascending). */
uint32_t wh_parts_count(const struct wh_parts *p);
uint32_t wh_parts_list(struct wh_parts *p, const uint32_t **ids);

#endif
