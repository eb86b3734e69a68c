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
#define WS_PKTF_RETX 0x10u  /* DATA: resends bytes sent before (a retransmission);
			     * ACK under sr (ABI 2.4): answers such a packet */
/* ---- ABI 2.4 ---- */
#define WS_PKTF_TRIM 0x20u  /* DATA: a switch cut its payload ([switch] trim);
			     * NACK: answers such a packet (seq: its first byte) */

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
	union {
		uint32_t payload; /* DATA: bytes of payload (0 in control packets) */
		uint32_t sack;    /* ACK/NACK under [nic] transport = sr (ABI 2.4):
				   * selective ACK of packets above seq, see
				   * ws_sack_encode(); 0: none */
	};
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

/*
 * ---- ABI 2.4 ----
 * The selective ACK an ACK or NACK carries under [nic] transport = sr, in
 * its 32-bit `sack` field.  Packets are counted in full payloads ([nic] mtu
 * minus header) from the flow's first byte; the ACK's seq is the cumulative
 * point (the first byte not received), in packet p = seq / payload.
 * `dist` (1..65535) says the newest packet the receiver reports is p + dist
 * (the one whose arrival triggered the ACK); bit i of `bits` (0..15) says
 * packet p + dist - i arrived (bit 0 is always set; bits at or below p are
 * clear).  So each ACK repeats what arrived just before it, and a lost ACK
 * costs little.  0 means no selective information (an in-order ACK, or a
 * packet too far above the cumulative point to say).
 */
#define WS_SACK_MAX_DIST 65535u
#define WS_SACK_BITS 16u

static inline uint32_t ws_sack_encode(uint64_t dist, uint16_t bits)
{
	if (dist == 0 || dist > WS_SACK_MAX_DIST)
		return 0;
	if (dist < WS_SACK_BITS)
		bits &= (uint16_t)((1u << dist) - 1u);
	return (uint32_t)dist << 16 | bits | 1u;
}

/* True with *dist and *bits set when `sack` carries selective information. */
static inline bool ws_sack_decode(uint32_t sack, uint32_t *dist, uint16_t *bits)
{
	*dist = sack >> 16;
	*bits = (uint16_t)(sack & 0xffffu);
	return *dist != 0;
}

#ifdef __cplusplus
}
#endif
#endif
