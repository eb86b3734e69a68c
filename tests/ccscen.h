/* SPDX-License-Identifier: MIT */
/*
 * What the congestion-control tests share: the CC lab at the settings they
 * all use, the check that a bad parameter is refused, and the scenarios
 * every CC must pass on the same fabric (a k=4 fat-tree, 100 Gb/s links of
 * 1 us):
 *   - two long flows into host 0, the second joining a busy link 1 ms after
 *     the first, sampled every 10 us: shares, goodput and queue over an
 *     interval, and how soon the newcomer holds its fair share;
 *   - an 8-to-1 incast into host 0, sampled every 1 us until every flow is
 *     done: completion, losses, PFC, marks and the bottleneck queue.
 * Each test program states its own bounds; this module only measures (and
 * fails a test only when a scenario cannot be measured, or when an incast
 * finishes faster than its bytes can cross one port at line rate).
 */
#ifndef WS_CCSCEN_H
#define WS_CCSCEN_H

#include "th.h"

#define CCS_LINE_RATE 100000000000ull /* bps, every link of the fabric */
#define CCS_PAYLOAD 1000u             /* payload bytes of a full data packet */
#define CCS_WIRE 1052u                /* its wire bytes, headers included, without INT */

/* Payload bits per second one link carries at most when a full data packet
 * takes `wire` bytes on the wire (CCS_WIRE, more with INT). */
double ccs_goodput_max(uint32_t wire);

/* The time `bytes` of payload take at line rate when each full packet
 * carries `wire` bytes on the wire: no incast into one port can be faster. */
ws_time ccs_line_time(uint64_t bytes, uint32_t wire);

/* ---- the CC lab ----------------------------------------------------------- */

#define CCS_LAB_RTT (10 * WS_US) /* the lab flow's base RTT */

/*
 * A lab flow of `cc` with `params` (NULL-terminated "key=value", or NULL) at
 * CCS_LINE_RATE, a base RTT of CCS_LAB_RTT and 1000-byte packets; the
 * fabric's largest base RTT is `max_base_rtt` (0: the flow's own).  Fails the
 * test if the plugin refuses.
 */
struct ws_cc_lab *ccs_lab_new(const char *cc, const char *const *params,
			      ws_time max_base_rtt);

/* Call `cc`'s on_loss op (ABI 2.4) on the lab's flow at the lab's time, as
 * the transport would after declaring `packets` lost by `kind`; the op is
 * read from the plugin's descriptor (the lab has no loss entry point). */
void ccs_lab_loss(struct ws_cc_lab *lab, const char *cc, enum ws_cc_loss kind,
		  uint32_t packets);

/* `cc` must refuse the single parameter `kv` with a message containing
 * `part`. */
void ccs_expect_bad_param(const char *cc, const char *kv, const char *part);

/* `cc`'s parameter table as ini text (`warpsim describe --ini`) holds every
 * line of the NULL-terminated `want` (e.g. "\ng = 0.0625\n"). */
void ccs_expect_defaults(const char *cc, const char *const *want);

/* ---- the fabric ------------------------------------------------------------- */

/*
 * The CC fabric with `[cc] name = cc`, followed by `extra` (ini text: more
 * [cc] keys first, then any other section; NULL for none), running the flows
 * of `flows` (the flows plugin's trace format).
 */
struct ws_sim *ccs_sim(const char *cc, const char *extra, const char *flows);

/* Bytes flow `id` has had acknowledged (the flow must exist). */
uint64_t ccs_acked(const struct ws_sim *sim, uint32_t id);

/* The edge switch's port towards host `host`: where traffic into it queues. */
void ccs_port_towards_host(const struct ws_sim *sim, uint32_t host, uint32_t *node,
			   uint32_t *local);

/* ---- two flows into one link ------------------------------------------- */

#define CCS_BIN (10 * WS_US) /* sampling period of the two-flow run */
#define CCS_JOIN WS_MS       /* when flow 1 starts */
#define CCS_RUN (20 * WS_MS) /* how long the two-flow run lasts */

/*
 * Flow 0 from host 4 at 0, flow 1 from host 8 at CCS_JOIN, both to host 0
 * and too long to finish within the run.  Sample i is taken at i x CCS_BIN.
 */
struct ccs_two_flows {
	size_t n;                  /* samples, from 0 to CCS_RUN */
	uint64_t *acked[2];        /* bytes each flow had acknowledged */
	uint64_t *rate[2];         /* each flow's CC rate, bps; 0 before it starts */
	uint64_t *queue;           /* bytes queued at the port towards host 0 */
	struct ws_sim_stats stats; /* at the end of the run */
	char *cc, *extra;          /* what ran */
};

/*
 * The two-flow run of `cc` with `extra` (as for ccs_sim).  The first call
 * for a (cc, extra) runs it; later ones return the same run, so the tests
 * of one program measure different things on one run.  Pass ccs_teardown
 * as the group teardown to free them.
 */
const struct ccs_two_flows *ccs_two_flows(const char *cc, const char *extra);
int ccs_teardown(void **state);

/* What the two flows did over [from, to] (multiples of CCS_BIN). */
struct ccs_interval {
	double goodput[2]; /* payload bps of each flow */
	double total;      /* of both */
	double share;      /* flow 0's part of total */
	double util;       /* total / the capacity given */
	double queue_avg;  /* bytes, the average of the samples in [from, to] */
};

/* Measure [from, to], taking `capacity` (payload bps) as the link's, and
 * print the figures, with `label` after the CC's name (or NULL). */
void ccs_two_flows_over(const struct ccs_two_flows *r, ws_time from, ws_time to,
			double capacity, const char *label, struct ccs_interval *out);

/*
 * How long after the join flow 1 takes to hold `fraction` of `fair` (payload
 * bps), its goodput averaged over `window` (a multiple of CCS_BIN; windows
 * start at the join at the earliest): the earliest time from which the
 * average over the preceding `window` is at or above the target at every
 * sample to the end of the run.  `window` when the first full window already
 * is; WS_TIME_NEVER when the last one is not.
 */
ws_time ccs_join_time(const struct ccs_two_flows *r, double fair, double fraction,
		      ws_time window);

/* The first time after the join at which flow 1's goodput over the
 * preceding `window` reaches `fraction` of `fair`; WS_TIME_NEVER if none. */
ws_time ccs_join_reach(const struct ccs_two_flows *r, double fair, double fraction,
		       ws_time window);

/* The lowest rate flow 1 had in (join, join + span]. */
uint64_t ccs_join_lowest_rate(const struct ccs_two_flows *r, ws_time span);

/* ---- an 8-to-1 incast ------------------------------------------------------ */

#define CCS_INCAST_N 8 /* senders: hosts 4 5 6 7 8 9 12 13 (three pods) */

/* The incast's flows text: each sender sends `bytes` to host 0 at 0. */
const char *ccs_incast_flows(uint64_t bytes);

struct ccs_incast {
	uint64_t bytes;             /* per flow */
	ws_time done;               /* when the last flow completed */
	ws_time all_active;         /* when the first did: until then all eight sent */
	struct ws_sim_stats stats;  /* at the end: drops, retx_bytes, nacks,
				     * pfc_pauses, ecn_marks... */
	uint64_t acked[CCS_INCAST_N];
	/* the queue at the port towards host 0, sampled every 1 us */
	uint64_t peak;              /* bytes, the largest sample of the run */
	double avg;                 /* bytes, over the second half of [0, all_active) */
	uint64_t min, max;          /* bytes, over the same */
};

/*
 * Run the incast of `bytes` per flow to completion and print the figures
 * with `label`.  Fails the test if a flow has not completed after 100 ms.
 */
void ccs_incast_run(struct ccs_incast *r, const char *cc, const char *extra,
		    uint64_t bytes, const char *label);

/* No packet lost, none sent twice, no NACK, and every byte delivered. */
void ccs_incast_assert_lossless(const struct ccs_incast *r);

/* ---- N long flows into one link ----------------------------------------- */

/*
 * Flow i (i < n <= CCS_INCAST_N) from the i-th incast sender to host 0,
 * starting at i x `stagger`, too long to finish; run to `to` and measure
 * each flow's goodput over [from, to] and the queue towards host 0,
 * sampled every CCS_BIN over the same interval.
 */
struct ccs_n_flows {
	unsigned n;
	double goodput[CCS_INCAST_N]; /* payload bps over [from, to] */
	double total;                 /* of all n */
	double jain;                  /* Jain's index of the goodputs: 1 = equal */
	double worst;                 /* the goodput furthest from total / n, over total / n */
	double queue_avg;             /* bytes */
	uint64_t queue_max;           /* bytes */
	struct ws_sim_stats stats;    /* at `to` */
};

void ccs_n_flows_run(struct ccs_n_flows *r, const char *cc, const char *extra,
		     unsigned n, ws_time stagger, ws_time from, ws_time to);

#endif
