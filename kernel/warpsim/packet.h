/* SPDX-License-Identifier: MIT */
/*
 * Packets.  They come from a per-simulation pool and carry what switches,
 * routing rules and congestion control read: flow id, sequence, payload and
 * wire size, type, priority class, ECN bits, the 5-tuple ECMP hashes, source
 * and destination node, and an INT stack for HPCC-like algorithms.
 */
#ifndef WARPSIM_PACKET_H
#define WARPSIM_PACKET_H

#include <stdint.h>

#include <warpsim/core.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WS_PRIORITIES 8
#define WS_INT_MAX_HOPS 5

enum ws_pkt_type {
	WS_PKT_DATA = 0,
	WS_PKT_ACK = 1,
	WS_PKT_NACK = 2,
	WS_PKT_CNP = 3,
	WS_PKT_PFC = 4,
};

/* ECN codepoints (the two IP header bits). */
#define WS_ECN_NOT_ECT 0u
#define WS_ECN_ECT 2u
#define WS_ECN_CE 3u

/* flags */
#define WS_PKTF_LAST 0x01u  /* DATA: carries the flow's last byte */
#define WS_PKTF_ECE 0x02u   /* ACK/NACK: echo of a CE mark */
#define WS_PKTF_INT 0x04u   /* switches append INT records */
#define WS_PKTF_PAUSE 0x08u /* PFC: pause (clear: resume) */
/* ---- ABI 2.3 ---- */
#define WS_PKTF_RETX 0x10u  /* DATA: resends bytes sent before (a retransmission) */

/* One INT record, appended by a switch when it dequeues a packet. */
struct ws_int_hop {
	ws_time ts;        /* dequeue time */
	uint64_t tx_bytes; /* the port's cumulative transmitted bytes */
	uint64_t rate;     /* the port's link rate, bps */
	uint32_t qlen;     /* bytes queued at the port, all priorities */
	uint32_t reserved;
};

struct ws_pkt {
	struct ws_pkt *next;  /* queue link (kernel) */
	uint64_t seq;         /* DATA: first payload byte; ACK/NACK: next expected */
	ws_time ts;           /* DATA: send time; ACK: echo of the data's ts */
	uint32_t flow;        /* flow id (WS_NONE for PFC) */
	uint32_t src, dst;    /* node ids */
	uint16_t sport, dport; /* sport: the entropy value (ws_pkt_entropy) */
	uint32_t payload;     /* bytes of payload */
	uint32_t wire;        /* bytes on the wire, headers included */
	uint8_t type;         /* enum ws_pkt_type */
	uint8_t prio;         /* priority class 0..7 (0: control) */
	uint8_t ecn;          /* WS_ECN_* */
	uint8_t flags;        /* WS_PKTF_* */
	uint16_t in_port;     /* kernel: ingress port at the current switch (set before routing) */
	uint8_t hops;         /* switches traversed */
	uint8_t int_n;        /* INT records present */
	uint16_t acked_pkts;  /* ACK: data packets it covers */
	uint16_t acked_ce;    /* ACK: of which CE-marked */
	uint8_t vc;           /* routing: classes above prio it travels in (0 at the sender) */
	uint8_t in_q;         /* kernel: the queue class it arrived in at this switch */
	uint16_t route;       /* routing: the rule's scratch, carried along the path (0 at the sender) */
	/* the fields above fit one 64-byte cache line; INT is touched only when
	 * used: in a run without INT only those 64 bytes are allocated, so read
	 * int_hop[i] for i < int_n only and never copy a pool packet whole */
	struct ws_int_hop int_hop[WS_INT_MAX_HOPS];
};

/*
 * The entropy value (ABI 2.3): what ECMP switches hash to choose among
 * equal-cost ports.  As on the wire of RoCEv2 and of Ultra Ethernet over
 * UDP, it is the UDP source port: the sending NIC sets it, one value per
 * flow by default (the flow's sport), so a flow keeps one path; a
 * transport that sprays, or recycles the values whose ACKs came back
 * unmarked (REPS), writes another per packet, and its ACKs echo it in
 * their dport.  Switches need no change: ws_flow_hash() covers it.
 */
static inline uint16_t ws_pkt_entropy(const struct ws_pkt *p)
{
	return p->sport;
}

#ifdef __cplusplus
}
#endif
#endif
