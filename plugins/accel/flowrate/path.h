/* SPDX-License-Identifier: MIT */
/*
 * The links a flow's data crosses, for the flow-level accelerators: the
 * egress ports the routing rule gives the flow's 5-tuple, hop by hop from
 * its sender's NIC port (the same ECMP choice as its packets), with their
 * rates.
 */
#ifndef WS_FLOWRATE_PATH_H
#define WS_FLOWRATE_PATH_H

#include <warpsim/warpsim.h>

/* Longest path followed (links). */
#define FR_PATH_MAX 64

/* Fills ports[0..*n-1] (global port ids) and rates[] (bps) for flow `id`,
 * which must have started; ports[0] is its NIC's port. */
int fr_flow_path(struct ws_sim *sim, uint32_t id, uint32_t *ports,
		 uint64_t *rates, uint32_t *n, struct ws_err *err);

#endif
