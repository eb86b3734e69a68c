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

/*
 * A lone transfer's time from the end of its serialization (its wire bytes
 * at its slowest data link) to the ACK of its last byte, as its packets
 * take it: a packet's store-and-forward on every data link but the slowest
 * (a `full` packet before it; after it the `last` one, unless npk > 1 and
 * the link is no faster, where the last packet waits for the one ahead),
 * every propagation, and the ACK's way back (`ack` bytes serialized and
 * propagated on each ACK link).  `fluid` and the collective engine's
 * coflows time a transfer's tail with it.
 */
ws_time fr_lone_tail(const uint64_t *rate, const ws_time *delay, uint32_t n,
		     const uint64_t *ack_rate, const ws_time *ack_delay, uint32_t n_ack,
		     uint64_t npk, uint64_t full, uint64_t last, uint64_t ack);

#endif
