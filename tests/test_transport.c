/* SPDX-License-Identifier: MIT */
/*
 * The transports for lossy, sprayed fabrics (kernel/sr.c, issue 24): the
 * bitmap of packet numbers and the selective ACK's encoding; every byte
 * delivered exactly once under random loss (a property test over many
 * seeds) and without a single resend under reordering when the threshold
 * allows it; BDP-FC's cap on the packets in flight; the two timeouts
 * doubling until the retry limit aborts a flow to an unreachable host;
 * trimming answered by a NACK and one resend; recycling dropping an
 * entropy value that saw ECN; same seed, same bytes.
 *
 * Runs are stepped (ws_sim_run to a series of times) so that the test can
 * read the flows' transport state while they run: the receiver's state is
 * freed with the sender's when the flow completes.
 *
 * The tiny fabric (tiny.txt): hosts 0, 1 on switch 4, hosts 2, 3 on switch
 * 5, one 4-5 link; every link 100 Gb/s, 1 us.
 */
#include "th.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char tiny_topo[] =
	"6 2 5\n4 5\n"
	"0 4 100Gbps 0.001ms 0\n1 4 100Gbps 0.001ms 0\n"
	"2 5 100Gbps 0.001ms 0\n3 5 100Gbps 0.001ms 0\n"
	"4 5 100Gbps 0.001ms 0\n";

/* A simulation of the tiny fabric, cc none, the flows of `flows` (flow.txt
 * layout) and the extra sections of `extra`. */
static struct ws_sim *tiny_sim(unsigned seed, const char *flows, const char *extra)
{
	char ini[4096]; /* `extra` may be th_fmt's buffer */
	snprintf(ini, sizeof ini, "[sim]\nseed = %u\n"
		 "[topology]\nname = file\nfile = tiny.txt\n"
		 "[cc]\nname = none\n"
		 "[workload]\nname = flows\nfile = flows.txt\n%s", seed, extra);
	th_write("tiny.txt", tiny_topo);
	th_write("flows.txt", flows);
	return th_sim(ini);
}

static void stats(const struct ws_sim *sim, struct ws_sim_stats *st)
{
	memset(st, 0, sizeof *st);
	st->size = sizeof *st;
	ws_sim_get_stats(sim, st);
}

static void flow_info(const struct ws_sim *sim, uint32_t id, struct ws_flow_info *fi)
{
	memset(fi, 0, sizeof *fi);
	fi->size = sizeof *fi;
	assert_int_equal(ws_flow_get(sim, id, fi), WS_OK);
}

/* ---- 1. the bitmap and the selective ACK ------------------------------------ */

static void test_seqmap_basics(void **state)
{
	(void)state;
	struct ws_seqmap m = { 0 };
	assert_false(ws_seqmap_test(&m, 0));
	assert_false(ws_seqmap_test(&m, 12345));
	assert_int_equal(ws_seqmap_count(&m, 0, 1000), 0);
	assert_true(ws_seqmap_set(&m, 5));
	assert_false(ws_seqmap_set(&m, 5)); /* already set */
	assert_true(ws_seqmap_test(&m, 5));
	assert_false(ws_seqmap_test(&m, 4));
	assert_false(ws_seqmap_test(&m, 6));
	/* both ends of a word, and the next word */
	assert_true(ws_seqmap_set(&m, 0));
	assert_true(ws_seqmap_set(&m, 63));
	assert_true(ws_seqmap_set(&m, 64));
	assert_int_equal(ws_seqmap_count(&m, 0, 65), 4);
	assert_int_equal(ws_seqmap_count(&m, 0, 64), 3);
	assert_int_equal(ws_seqmap_count(&m, 1, 64), 2);
	assert_int_equal(ws_seqmap_count(&m, 6, 63), 0);
	assert_int_equal(ws_seqmap_count(&m, 5, 6), 1);
	assert_int_equal(ws_seqmap_count(&m, 63, 65), 2);
	/* far above: the ring grows, what was set stays */
	assert_true(ws_seqmap_set(&m, 5000));
	assert_true(m.cap >= 5000 / 64 + 1);
	assert_true((m.cap & (m.cap - 1)) == 0);
	assert_true(ws_seqmap_test(&m, 5000));
	assert_false(ws_seqmap_test(&m, 4999));
	assert_false(ws_seqmap_test(&m, 5001));
	assert_int_equal(ws_seqmap_count(&m, 0, 6000), 5);
	/* advance: whole words below the bit are forgotten and count as set */
	ws_seqmap_advance(&m, 130);
	assert_int_equal(m.base, 2);
	assert_true(ws_seqmap_test(&m, 1));   /* below the base: set */
	assert_true(ws_seqmap_test(&m, 127));
	assert_false(ws_seqmap_test(&m, 128)); /* the base's word is kept */
	assert_false(ws_seqmap_set(&m, 100)); /* below the base: refused */
	assert_int_equal(ws_seqmap_count(&m, 128, 6000), 1);
	/* advance backwards or within the base word: nothing */
	ws_seqmap_advance(&m, 64);
	assert_int_equal(m.base, 2);
	/* clear: every bit goes, the base stays */
	assert_true(ws_seqmap_set(&m, 200));
	ws_seqmap_clear(&m);
	assert_int_equal(m.base, 2);
	assert_false(ws_seqmap_test(&m, 200));
	assert_false(ws_seqmap_test(&m, 5000));
	assert_true(ws_seqmap_test(&m, 0));
	assert_int_equal(ws_seqmap_count(&m, 128, 6000), 0);
	ws_seqmap_free(&m);
	assert_null(m.w);
	assert_int_equal(m.cap, 0);
}

/* The words live in a ring: a word reused after an advance starts empty,
 * and growing the ring while its words wrap keeps every bit in place. */
static void test_seqmap_ring(void **state)
{
	(void)state;
	struct ws_seqmap m = { 0 };
	assert_true(ws_seqmap_set(&m, 2 * 64 + 5)); /* word 2 */
	assert_int_equal(m.cap, 4);
	ws_seqmap_advance(&m, 3 * 64);
	/* word 6 takes word 2's slot: it must not see word 2's bit */
	assert_false(ws_seqmap_test(&m, 6 * 64 + 5));
	assert_int_equal(m.cap, 4);
	/* words 3..6 now wrap round the ring (slots 3, 0, 1, 2) */
	static const uint64_t bits[] = { 3 * 64, 3 * 64 + 63, 4 * 64 + 1, 5 * 64 + 17,
					 6 * 64 + 40, 6 * 64 + 63 };
	for (size_t i = 0; i < WS_ARRAY_LEN(bits); i++)
		assert_true(ws_seqmap_set(&m, bits[i]));
	assert_int_equal(m.cap, 4);
	/* word 10 is beyond the ring: it grows and unwraps */
	assert_true(ws_seqmap_set(&m, 10 * 64 + 9));
	assert_int_equal(m.cap, 8);
	for (size_t i = 0; i < WS_ARRAY_LEN(bits); i++)
		assert_true(ws_seqmap_test(&m, bits[i]));
	assert_true(ws_seqmap_test(&m, 10 * 64 + 9));
	assert_int_equal(ws_seqmap_count(&m, 3 * 64, 11 * 64), WS_ARRAY_LEN(bits) + 1);
	/* every other bit is clear */
	uint64_t set = 0;
	for (uint64_t i = 3 * 64; i < 12 * 64; i++)
		set += ws_seqmap_test(&m, i);
	assert_int_equal(set, WS_ARRAY_LEN(bits) + 1);
	/* an advance past the whole ring forgets everything kept */
	ws_seqmap_advance(&m, 100 * 64 + 3);
	assert_int_equal(m.base, 100);
	assert_true(ws_seqmap_test(&m, 10 * 64 + 9)); /* below: set */
	for (uint64_t i = 100 * 64; i < 108 * 64; i++)
		assert_false(ws_seqmap_test(&m, i));
	assert_true(ws_seqmap_set(&m, 107 * 64 + 63));
	assert_int_equal(m.cap, 8);
	assert_int_equal(ws_seqmap_count(&m, 100 * 64, 108 * 64), 1);
	ws_seqmap_free(&m);
}

static void test_sack_roundtrip(void **state)
{
	(void)state;
	static const uint16_t patterns[] = { 0x0000, 0x0001, 0xffff, 0x8001, 0x5555,
					     0xaaaa, 0x1234, 0x7ffe };
	uint32_t dist;
	uint16_t bits;
	for (uint32_t d = 1; d <= WS_SACK_MAX_DIST; d++) {
		for (size_t i = 0; i < WS_ARRAY_LEN(patterns); i++) {
			uint16_t b = patterns[i];
			uint32_t s = ws_sack_encode(d, b);
			assert_int_not_equal(s, 0);
			assert_true(ws_sack_decode(s, &dist, &bits));
			assert_int_equal(dist, d);
			/* bit 0 (the packet at dist) always set; bits past the
			 * cumulative point (i >= dist) masked off */
			uint16_t want = b | 1u;
			if (d < WS_SACK_BITS)
				want &= (uint16_t)((1u << d) - 1u);
			assert_int_equal(bits, want);
		}
	}
	assert_int_equal(ws_sack_encode(1, 0xffff), 1u << 16 | 1u);
	assert_int_equal(ws_sack_encode(3, 0xfffe) & 0xffffu, 0x7u);
	/* none: a cumulative-only ACK */
	assert_int_equal(ws_sack_encode(0, 0xffff), 0);
	assert_false(ws_sack_decode(0, &dist, &bits));
	/* too far above the cumulative point to say */
	assert_int_equal(ws_sack_encode(WS_SACK_MAX_DIST + 1, 1), 0);
	assert_int_equal(ws_sack_encode(1ull << 32, 1), 0);
	assert_int_equal(ws_sack_encode((1ull << 32) + 5, 1), 0);
}

/* ---- the receiver and the sender, packet by packet ------------------------------ */

/* A flow of `size` bytes outside any run, with its sr state, in `sim`. */
static void fake_flow(struct ws_sim *sim, struct ws_flow *f, uint64_t size)
{
	memset(f, 0, sizeof *f);
	f->cc.sim = sim;
	f->cc.size = size;
	f->seq_end = size;
	f->end = WS_TIME_NEVER;
	ws_sr_flow_init(sim, f);
	assert_non_null(f->sr);
}

static struct ws_sim *unit_sim(const char *nic)
{
	return tiny_sim(1, "1\n0 2 3 100 1000 0\n", th_fmt("[nic]\n%s", nic));
}

/* Packet k of the fake flow f arrives; returns the ACK's sack field. */
static uint32_t data_in(struct ws_sim *sim, struct ws_flow *f, uint64_t k, bool *now)
{
	struct ws_pkt p;
	memset(&p, 0, sizeof p);
	p.type = WS_PKT_DATA;
	p.seq = k * sim->payload;
	p.payload = (uint32_t)WS_MIN((uint64_t)sim->payload, f->seq_end - p.seq);
	uint32_t sack = 0xdeadbeef;
	assert_int_equal(ws_sr_receive_data(sim, f, &p, &sack, now), WS_PKT_ACK);
	return sack;
}

/* Out-of-order data is held once and reported selectively; a duplicate
 * (held or below the point) counts nothing; filling the hole advances
 * past everything held, up to the flow's end. */
static void test_sr_receiver(void **state)
{
	(void)state;
	struct ws_sim *sim = unit_sim("transport = sr\n");
	const uint64_t P = sim->payload;
	struct ws_flow f;
	fake_flow(sim, &f, 6 * P + 300); /* packets 0..6, the last of 300 bytes */
	uint32_t dist;
	uint16_t bits;
	bool now;
	assert_int_equal(data_in(sim, &f, 0, &now), 0);
	assert_false(now);
	assert_int_equal(f.rcv_nxt, P);
	assert_int_equal(f.sr->rx_bytes, P);
	/* 3 early: two above the point, packet 2 missing */
	assert_true(ws_sack_decode(data_in(sim, &f, 3, &now), &dist, &bits));
	assert_int_equal(dist, 2);
	assert_int_equal(bits, 0x1);
	assert_int_equal(f.rcv_nxt, P);
	assert_int_equal(f.sr->rx_bytes, 2 * P);
	assert_int_equal(f.ooo_pkts, 1);
	/* 2: one above (3, above it, is not in its report) */
	assert_true(ws_sack_decode(data_in(sim, &f, 2, &now), &dist, &bits));
	assert_int_equal(dist, 1);
	assert_int_equal(bits, 0x1);
	/* 4: three above, and 2, 3 arrived before it */
	assert_true(ws_sack_decode(data_in(sim, &f, 4, &now), &dist, &bits));
	assert_int_equal(dist, 3);
	assert_int_equal(bits, 0x7);
	assert_int_equal(f.max_reorder, 3);
	/* a held packet again: a duplicate, nothing counted */
	uint64_t dups = sim->ctr.dup_pkts;
	assert_int_equal(data_in(sim, &f, 3, &now), 0);
	assert_int_equal(sim->ctr.dup_pkts, dups + 1);
	assert_int_equal(f.sr->rx_bytes, 4 * P);
	/* the last packet (300 bytes), early */
	assert_true(ws_sack_decode(data_in(sim, &f, 6, &now), &dist, &bits));
	assert_int_equal(dist, 5);
	assert_int_equal(bits, 0x1 | 0x4 | 0x8 | 0x10); /* 6, 4, 3, 2; not 5 */
	assert_int_equal(f.sr->rx_bytes, 4 * P + 300);
	/* 1 fills the first hole: the point moves past 2, 3, 4, at once */
	assert_int_equal(data_in(sim, &f, 1, &now), 0);
	assert_true(now);
	assert_int_equal(f.rcv_nxt, 5 * P);
	assert_int_equal(f.sr->rx_bytes, 5 * P + 300);
	/* below the point: a duplicate */
	assert_int_equal(data_in(sim, &f, 2, &now), 0);
	assert_int_equal(sim->ctr.dup_pkts, dups + 2);
	assert_int_equal(f.sr->rx_bytes, 5 * P + 300);
	/* 5 completes it: the point stops at the flow's end */
	assert_int_equal(data_in(sim, &f, 5, &now), 0);
	assert_true(now);
	assert_int_equal(f.rcv_nxt, f.seq_end);
	assert_int_equal(f.sr->rx_bytes, f.seq_end);
	ws_sr_flow_free(&f);
	ws_sim_free(sim);
}

/* An ACK or NACK for the fake flow f. */
static bool ack_in(struct ws_sim *sim, struct ws_flow *f, uint8_t type, uint64_t seq_pkt,
		   uint32_t sack, uint8_t flags)
{
	struct ws_pkt p;
	memset(&p, 0, sizeof p);
	p.type = type;
	p.seq = seq_pkt * sim->payload;
	p.sack = sack;
	p.flags = flags;
	return ws_sr_receive_ack(sim, f, &p);
}

/* The packets ws_sr_take gives, in packets (new data: the flow's snd_nxt,
 * which the test does not advance), `n` of them into `k`. */
static void take(struct ws_sim *sim, struct ws_flow *f, unsigned n, uint64_t *k)
{
	for (unsigned i = 0; i < n; i++)
		k[i] = ws_sr_take(sim, f) / sim->payload;
}

#define TAKES(sim, f, ...)                                                     \
	do {                                                                   \
		static const uint64_t want_[] = { __VA_ARGS__ };               \
		uint64_t got_[WS_ARRAY_LEN(want_)];                            \
		take(sim, f, WS_ARRAY_LEN(want_), got_);                      \
		for (size_t i_ = 0; i_ < WS_ARRAY_LEN(want_); i_++)            \
			if (got_[i_] != want_[i_])                              \
				fail_msg("take %zu: packet %llu, expected %llu", \
					 i_, (unsigned long long)got_[i_],      \
					 (unsigned long long)want_[i_]);        \
	} while (0)

/*
 * The sender: selective ACKs mark packets, a packet is lost once
 * sr_dupthresh (3) packets above it were selectively ACKed, lost packets
 * go before new data and once each, the cumulative point frees the bitmap;
 * a timeout declares every packet not ACKed lost (resent once more) and
 * doubles the timeout until progress; a trim NACK resends exactly its
 * packet, first.
 */
static void test_sr_sender(void **state)
{
	(void)state;
	struct ws_sim *sim = unit_sim("transport = sr\nrto_low = 10us\nrto_high = 30us\n");
	const uint64_t P = sim->payload;
	struct ws_flow f;
	fake_flow(sim, &f, 20 * P);
	f.cc.snd_nxt = f.high_sent = 10 * P; /* packets 0..9 sent */
	/* 4, 5, 6 arrived: three above each of 0..3, so 0..3 are lost
	 * (dupthresh 3, whether it counts packets or distance) */
	assert_true(ack_in(sim, &f, WS_PKT_ACK, 0, ws_sack_encode(6, 0x7), 0));
	assert_int_equal(f.sr->n_sacked, 3);
	assert_int_equal(f.sr->high_sack, 7);
	assert_int_equal(ws_sr_in_flight(sim, &f), 7 * P);
	assert_true(ws_sr_can_send(sim, &f, 0));
	TAKES(sim, &f, 0, 1, 2, 3, 10, 10);
	/* 7 arrived: 4 is ACKed already, nothing new to resend */
	assert_true(ack_in(sim, &f, WS_PKT_ACK, 0, ws_sack_encode(7, 0xf), 0));
	TAKES(sim, &f, 10);
	/* the resent 0..2 arrive: the cumulative point moves to 3 */
	assert_true(ack_in(sim, &f, WS_PKT_ACK, 3, 0, WS_PKTF_RETX));
	assert_int_equal(f.cc.snd_una, 3 * P);
	assert_int_equal(f.sr->n_sacked, 4); /* 4..7 */
	assert_int_equal(ws_sr_in_flight(sim, &f), 3 * P); /* 3, 8, 9 */
	/* the resent 3: the point jumps past 4..7 */
	assert_true(ack_in(sim, &f, WS_PKT_ACK, 8, 0, WS_PKTF_RETX));
	assert_int_equal(f.cc.snd_una, 8 * P);
	assert_int_equal(f.sr->n_sacked, 0);
	assert_int_equal(ws_sr_in_flight(sim, &f), 2 * P);
	TAKES(sim, &f, 10);
	/* no news of 8, 9: the timeout (two packets out: rto_low) resends
	 * them, and doubles each time in a row */
	assert_int_equal(ws_sr_rto(sim, &f), 10 * WS_US);
	ws_sr_timeout(sim, &f);
	assert_int_equal(ws_sr_rto(sim, &f), 20 * WS_US);
	TAKES(sim, &f, 8, 9, 10);
	ws_sr_timeout(sim, &f);
	assert_int_equal(ws_sr_rto(sim, &f), 40 * WS_US);
	TAKES(sim, &f, 8, 9, 10);
	/* progress resets it */
	assert_true(ack_in(sim, &f, WS_PKT_ACK, 9, 0, WS_PKTF_RETX));
	assert_int_equal(ws_sr_rto(sim, &f), 10 * WS_US);
	/* more out than rto_low_packets: rto_high */
	f.cc.snd_nxt = 14 * P;
	assert_int_equal(ws_sr_rto(sim, &f), 30 * WS_US);
	/* a trim NACK for 11 (sent, not ACKed): resent first, exactly once */
	assert_true(ack_in(sim, &f, WS_PKT_NACK, 11, 0, WS_PKTF_TRIM));
	assert_int_equal(f.nacks, 1);
	TAKES(sim, &f, 11, 14, 14);
	/* ... and again if its resend is trimmed too */
	assert_true(ack_in(sim, &f, WS_PKT_NACK, 11, 0, WS_PKTF_TRIM));
	TAKES(sim, &f, 11, 14);
	/* NACKs for what was ACKed meanwhile are ignored */
	assert_true(ack_in(sim, &f, WS_PKT_NACK, 5, 0, WS_PKTF_TRIM));
	assert_true(ack_in(sim, &f, WS_PKT_ACK, 9, ws_sack_encode(3, 0x1), 0)); /* 12 */
	assert_true(ack_in(sim, &f, WS_PKT_NACK, 12, 0, WS_PKTF_TRIM));
	TAKES(sim, &f, 14);
	/* the whole flow ACKed: complete */
	f.cc.snd_nxt = 20 * P;
	assert_false(ack_in(sim, &f, WS_PKT_ACK, 20, 0, 0));
	ws_sr_flow_free(&f);
	ws_sim_free(sim);
}

/* BDP-FC in ws_sr_can_send: new data stops at the cap, lost packets are
 * resent beyond it. */
static void test_sr_cap_unit(void **state)
{
	(void)state;
	struct ws_sim *sim = unit_sim("transport = sr\nbdp_packets = 4\n");
	const uint64_t P = sim->payload;
	struct ws_flow f;
	fake_flow(sim, &f, 20 * P);
	assert_int_equal(f.sr->cap, 4);
	for (unsigned k = 0; k < 4; k++) {
		assert_true(ws_sr_can_send(sim, &f, 0));
		f.cc.snd_nxt = f.high_sent = (k + 1) * P;
	}
	assert_false(ws_sr_can_send(sim, &f, 0));
	/* 1, 2, 3 arrived: 0 is lost and goes, cap or not */
	assert_true(ack_in(sim, &f, WS_PKT_ACK, 0, ws_sack_encode(3, 0x7), 0));
	assert_true(ws_sr_can_send(sim, &f, 0));
	TAKES(sim, &f, 0);
	assert_false(ws_sr_can_send(sim, &f, 0));
	/* the point moves: room for four more */
	assert_true(ack_in(sim, &f, WS_PKT_ACK, 4, 0, WS_PKTF_RETX));
	assert_true(ws_sr_can_send(sim, &f, 0));
	f.cc.snd_nxt = 8 * P;
	assert_false(ws_sr_can_send(sim, &f, 0));
	/* a window smaller than the cap binds first */
	f.cc.snd_nxt = 5 * P;
	assert_true(ws_sr_can_send(sim, &f, 2 * P));
	f.cc.snd_nxt = 6 * P;
	assert_false(ws_sr_can_send(sim, &f, 2 * P));
	ws_sr_flow_free(&f);
	ws_sim_free(sim);
}

/* ---- stepping a run, watching the transport ------------------------------------- */

/*
 * What the watch saw of each flow: the receiver holding every byte while
 * the flow still ran (so its count of distinct bytes could be read), and
 * the most packets in flight.
 */
struct watch {
	uint32_t n;
	bool whole[64];
	uint64_t max_out[64];
	uint32_t max_dupthresh[64];
	uint64_t checks;
};

static uint64_t npkts(const struct ws_sim *sim, const struct ws_flow *f)
{
	return (f->seq_end + sim->payload - 1) / sim->payload;
}

/* Payload bytes of the packets above the receiver's point that it holds. */
static uint64_t held_bytes(const struct ws_sim *sim, const struct ws_flow *f)
{
	uint64_t r = f->rcv_nxt / sim->payload, n = npkts(sim, f);
	if (f->rcv_nxt >= f->seq_end)
		return 0;
	uint64_t b = ws_seqmap_count(&f->sr->held, r, n - 1) * sim->payload;
	if (n - 1 >= r && ws_seqmap_test(&f->sr->held, n - 1))
		b += f->seq_end - (n - 1) * sim->payload;
	return b;
}

/*
 * The invariants of one running flow under sr: the receiver counted each
 * byte it accepted once (its distinct bytes are exactly what lies below its
 * point plus what it holds above it, never more than the flow); the sender
 * believes nothing delivered that the receiver lacks (below snd_una, and
 * every packet selectively ACKed); a flow whose receiver has everything
 * counted exactly its size.
 */
static void check_flow(const struct ws_sim *sim, const struct ws_flow *f, struct watch *w)
{
	const struct ws_sr *s = f->sr;
	uint32_t id = f->cc.id;
	w->checks++;
	if (s->rx_bytes != f->rcv_nxt + held_bytes(sim, f))
		fail_msg("flow %u: the receiver counted %llu distinct bytes, but holds "
			 "%llu below its point and %llu above", id,
			 (unsigned long long)s->rx_bytes, (unsigned long long)f->rcv_nxt,
			 (unsigned long long)held_bytes(sim, f));
	assert_true(s->rx_bytes <= f->cc.size);
	assert_true(f->cc.snd_una <= f->rcv_nxt);
	uint64_t una = f->cc.snd_una / sim->payload, n = npkts(sim, f);
	for (uint64_t k = una; k < n && k < s->high_sack; k++)
		if (ws_seqmap_test(&s->sacked, k) && k * sim->payload >= f->rcv_nxt &&
		    !ws_seqmap_test(&s->held, k))
			fail_msg("flow %u: packet %llu selectively ACKed but not received",
				 id, (unsigned long long)k);
	if (f->rcv_nxt >= f->seq_end) {
		assert_int_equal(s->rx_bytes, f->cc.size);
		w->whole[id] = true;
	}
	uint64_t out = f->cc.snd_nxt / sim->payload - una;
	if (out > w->max_out[id])
		w->max_out[id] = out;
	if (s->dupthresh > w->max_dupthresh[id])
		w->max_dupthresh[id] = s->dupthresh;
}

static void check_all(const struct ws_sim *sim, struct watch *w)
{
	for (uint32_t i = 0; i < sim->n_flows; i++) {
		const struct ws_flow *f = sim->flows[i];
		if (f->started && f->sr && f->end == WS_TIME_NEVER && !f->aborted)
			check_flow(sim, f, w);
	}
}

/* Run to the end in steps of `step`, checking every flow after each. */
static void run_watched(struct ws_sim *sim, ws_time step, struct watch *w)
{
	memset(w, 0, sizeof *w);
	for (ws_time t = step;; t += step) {
		th_run_until(sim, t);
		assert_true(sim->n_flows <= WS_ARRAY_LEN(w->whole));
		w->n = sim->n_flows;
		check_all(sim, w);
		if (ws_eventq_peek(&sim->q) == WS_TIME_NEVER)
			break;
		if (t > 100 * WS_MS)
			fail_msg("the run did not end by 100 ms");
	}
}

/* Every flow done, each byte acknowledged, sent once plus its resends,
 * and seen whole at the receiver by the watch. */
static void check_delivered(const struct ws_sim *sim, const struct watch *w)
{
	assert_true(w->n > 0);
	for (uint32_t i = 0; i < w->n; i++) {
		struct ws_flow_info fi;
		flow_info(sim, i, &fi);
		if (fi.end == WS_TIME_NEVER)
			fail_msg("flow %u did not complete (%llu of %llu bytes acked)", i,
				 (unsigned long long)fi.acked, (unsigned long long)fi.bytes);
		assert_int_equal(fi.acked, fi.bytes);
		assert_int_equal(fi.sent - fi.retx, fi.bytes);
		if (!w->whole[i])
			fail_msg("flow %u: the receiver was never seen holding every byte", i);
	}
}

/* ---- 2. exactly once under random loss ---------------------------------------- */

static const char loss_flows[] =
	"5\n0 2 3 100 120000 0\n1 3 3 100 80000 0\n2 1 3 100 60000 0\n"
	"3 0 3 100 30001 0.000005\n0 3 3 100 1 0.00001\n";

static void test_exactly_once_under_loss(void **state)
{
	(void)state;
	uint64_t retx = 0, timeouts = 0, gaps = 0, lost = 0, dups = 0;
	for (unsigned seed = 1; seed <= 30; seed++) {
		struct ws_sim *sim = tiny_sim(seed, loss_flows,
					      "[nic]\ntransport = sr\n"
					      "[switch]\npfc = false\n"
					      "[failures]\nevents = 0s loss 0.03 link 4-5\n");
		struct watch w;
		run_watched(sim, 500 * WS_NS, &w);
		check_delivered(sim, &w);
		struct ws_sim_stats st;
		stats(sim, &st);
		assert_int_equal(st.flows_done, 5);
		assert_int_equal(st.aborted, 0);
		/* a packet arrives twice only if the sender sent it twice */
		if (sim->ctr.dup_pkts > st.retx_pkts)
			fail_msg("seed %u: %llu data packets received twice, %llu resent",
				 seed, (unsigned long long)sim->ctr.dup_pkts,
				 (unsigned long long)st.retx_pkts);
		/* one path, no reordering: a packet is resent once per loss
		 * (of it or of the ACKs that would have reported it), or at a
		 * timeout, which resends at most the BDP-FC cap; and the cap
		 * held whatever the losses */
		uint64_t cap = (sim->max_bdp + sim->payload - 1) / sim->payload;
		assert_true(st.retx_pkts <= st.drops_loss + st.timeouts * cap);
		for (uint32_t i = 0; i < 5; i++)
			assert_true(w.max_out[i] <= cap);
		retx += st.retx_pkts;
		dups += sim->ctr.dup_pkts;
		timeouts += st.timeouts;
		lost += st.drops_loss;
		for (uint32_t i = 0; i < 5; i++)
			gaps += sim->flows[i]->ooo_pkts;
		ws_sim_free(sim);
	}
	/* the property was exercised: losses, selective and timed-out resends */
	assert_true(lost > 30);
	assert_true(retx > 30);
	assert_true(gaps > 100);
	assert_true(timeouts > 0);
	assert_true(dups > 0); /* lost ACKs: data resent that had arrived */
	print_message("30 seeds: %llu losses, %llu resends, %llu timeouts, %llu out of "
		      "order, %llu duplicates\n", (unsigned long long)lost,
		      (unsigned long long)retx, (unsigned long long)timeouts,
		      (unsigned long long)gaps, (unsigned long long)dups);
}

/* ---- 3. reordering without loss --------------------------------------------------- */

/* A permutation across pods of the k = 4 fat-tree (hosts 0..15, four per
 * pod): every flow's packets take the four core paths. */
static const char *perm_flows(void)
{
	static char buf[1024];
	size_t n = (size_t)snprintf(buf, sizeof buf, "16\n");
	for (unsigned i = 0; i < 16; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%u %u 3 100 100000 0\n",
				      i, (i + 4) % 16);
	return buf;
}

static struct ws_sim *spray_sim(const char *extra)
{
	char ini[4096]; /* `extra` may be th_fmt's buffer */
	snprintf(ini, sizeof ini, "[topology]\nname = fat-tree\nk = 4\n"
		 "link_rate = 100Gbps\nlink_delay = 1us\n"
		 "[cc]\nname = none\n"
		 "[workload]\nname = flows\nfile = flows.txt\n%s", extra);
	th_write("flows.txt", perm_flows());
	return th_sim(ini);
}

static uint64_t total_ooo(const struct ws_sim *sim)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < sim->n_flows; i++)
		n += sim->flows[i]->ooo_pkts;
	return n;
}

/* Packets sprayed over four paths arrive out of order; with a threshold
 * above any reordering distance nothing is ever resent, nothing arrives
 * twice, and every byte arrives once. */
static void test_reordering_no_resend(void **state)
{
	(void)state;
	static const char *const modes[] = {
		"[routing]\nname = updown\nlb = spray\n",
		"[nic]\nentropy = spray\n",
	};
	for (size_t m = 0; m < WS_ARRAY_LEN(modes); m++) {
		struct ws_sim *sim = spray_sim(th_fmt("%s%s", modes[m],
			m == 0 ? "[nic]\ntransport = sr\nsr_dupthresh = 65535\n"
			       : "transport = sr\nsr_dupthresh = 65535\n"));
		struct watch w;
		run_watched(sim, 500 * WS_NS, &w);
		check_delivered(sim, &w);
		struct ws_sim_stats st;
		stats(sim, &st);
		assert_true(total_ooo(sim) > 100); /* it did reorder */
		assert_int_equal(st.retx_pkts, 0);
		assert_int_equal(st.retx_bytes, 0);
		assert_int_equal(st.timeouts, 0);
		assert_int_equal(st.drops, 0);
		assert_int_equal(sim->ctr.dup_pkts, 0);
		ws_sim_free(sim);
	}
}

/* With the default threshold reordering may look like loss: spurious
 * resends are allowed (and raise the flow's threshold), but every packet
 * received twice was sent twice, and every byte is still delivered once. */
static void test_reordering_default_threshold(void **state)
{
	(void)state;
	static const char *const modes[] = {
		"[routing]\nname = updown\nlb = spray\n[nic]\ntransport = sr\n",
		"[nic]\ntransport = sr\nentropy = spray\n",
		"[nic]\ntransport = sr\nentropy = spray\nsr_dupthresh = 1\n",
	};
	for (size_t m = 0; m < WS_ARRAY_LEN(modes); m++) {
		struct ws_sim *sim = spray_sim(modes[m]);
		struct watch w;
		run_watched(sim, 500 * WS_NS, &w);
		check_delivered(sim, &w);
		struct ws_sim_stats st;
		stats(sim, &st);
		assert_true(total_ooo(sim) > 100);
		assert_int_equal(st.drops, 0);
		uint32_t raised = 0;
		for (uint32_t i = 0; i < w.n; i++)
			raised += w.max_dupthresh[i] > sim->nicc.sr_dupthresh;
		/* spurious resends taught the flows the fabric's reordering */
		assert_true(st.retx_pkts > 0);
		assert_true(raised > 0);
		if (sim->ctr.dup_pkts > st.retx_pkts)
			fail_msg("mode %zu: %llu data packets received twice, %llu resent", m,
				 (unsigned long long)sim->ctr.dup_pkts,
				 (unsigned long long)st.retx_pkts);
		ws_sim_free(sim);
	}
}

/* ---- 4. BDP-FC ------------------------------------------------------------------- */

static void test_bdp_fc_cap(void **state)
{
	(void)state;
	static const char flows[] = "1\n0 2 3 100 300000 0\n";
	/* an explicit cap of 8: never more in flight, and reached */
	struct ws_sim *sim = tiny_sim(1, flows, "[nic]\ntransport = sr\nbdp_packets = 8\n");
	struct watch w;
	run_watched(sim, 20 * WS_NS, &w);
	check_delivered(sim, &w);
	assert_int_equal(w.max_out[0], 8);
	/* so the flow runs at 8 packets per round trip: the base RTT is 3 links
	 * of 1 us each way plus the store and forwards */
	struct ws_flow_info fi;
	flow_info(sim, 0, &fi);
	assert_true(fi.end - fi.start >= (300 / 8) * 6 * WS_US);
	ws_sim_free(sim);

	/* the default: the fabric's largest BDP in full packets, rounded up;
	 * two flows into host 2 queue at switch 4 (PFC holds them), so they
	 * would have more than a BDP out if nothing capped them */
	static const char incast[] = "2\n0 2 3 100 300000 0\n1 2 3 100 300000 0\n";
	sim = tiny_sim(1, incast, "[nic]\ntransport = sr\n");
	th_run_until(sim, 1 * WS_NS);
	uint64_t cap = (sim->max_bdp + sim->payload - 1) / sim->payload;
	assert_true(cap > 8 && cap < 300);
	assert_non_null(sim->flows[0]->sr);
	assert_int_equal(sim->flows[0]->sr->cap, cap);
	run_watched(sim, 20 * WS_NS, &w);
	check_delivered(sim, &w);
	for (unsigned i = 0; i < 2; i++) {
		assert_true(w.max_out[i] <= cap);
		assert_true(w.max_out[i] + 1 >= cap);
	}
	ws_sim_free(sim);

	/* without BDP-FC (and no window) the same flows have far more out */
	sim = tiny_sim(1, incast, "[nic]\ntransport = sr\nbdp_fc = false\n");
	run_watched(sim, 20 * WS_NS, &w);
	check_delivered(sim, &w);
	assert_true(w.max_out[0] > cap + 20 || w.max_out[1] > cap + 20);
	ws_sim_free(sim);
}

/* ---- 5. the timeouts, their back-off, the retry limit ------------------------------- */

#define RETRIES 4

/* flows.csv says both flows were aborted after RETRIES + 1 timeouts;
 * summary.json lists them with what killed their last packet. */
static void check_aborted_outputs(struct ws_sim *sim, const char *name)
{
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/%s", th_tmpdir(), name);
	struct ws_err err;
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
	struct th_csv c;
	th_csv_load(&c, th_fmt("%s/flows.csv", dir));
	assert_int_equal(c.rows, 2);
	for (unsigned i = 0; i < 2; i++) {
		assert_string_equal(th_csv_get(&c, i, "status"), "aborted");
		assert_int_equal((uint64_t)th_csv_num(&c, i, "timeouts"), RETRIES + 1);
	}
	th_csv_free(&c);
	size_t len;
	char *sum = th_read(th_fmt("%s/summary.json", dir), &len);
	assert_non_null(sum);
	const char *list = strstr(sum, "\"aborted_flows\"");
	assert_non_null(list);
	/* both died where the routes to host 3 end: switch 4 has none left */
	static const char why[] = "\"last_failure_drop\": \"no route at node 4\"";
	unsigned n = 0;
	for (const char *at = strstr(list, why); at; at = strstr(at + 1, why))
		n++;
	assert_int_equal(n, 2);
	free(sum);
}

/*
 * Host 3's only link goes down at 5 us: flow 0 (100 KB, many packets out:
 * rto_high) and flow 1 (one packet, starting after the failure: rto_low)
 * time out with the timeout doubling each time, and are aborted at
 * timeout RETRIES + 1.  The time of each timeout is the flow's
 * last_progress just after it.
 */
static void check_backoff(bool backoff)
{
	struct ws_sim *sim = tiny_sim(1, "2\n0 3 3 100 100000 0\n1 3 3 100 1000 0.00002\n",
		th_fmt("[nic]\ntransport = sr\nrto_low = 10us\nrto_high = 20us\n"
		       "retry_limit = %u\nrto_backoff = %s\n"
		       "[switch]\npfc = false\n"
		       "[output]\nflows = true\n"
		       "[failures]\nevents = 5us down link 3-5\n",
		       RETRIES, backoff ? "true" : "false"));
	ws_time at[2][RETRIES + 1] = { { 0 } }, aborted[2] = { 0, 0 };
	uint64_t seen[2] = { 0, 0 };
	ws_time step = 1 * WS_US;
	for (ws_time t = step; ws_eventq_peek(&sim->q) != WS_TIME_NEVER || t == step; t += step) {
		th_run_until(sim, t);
		for (unsigned i = 0; i < 2 && i < sim->n_flows; i++) {
			const struct ws_flow *f = sim->flows[i];
			assert_true(f->timeouts <= seen[i] + 1); /* one per step at most */
			if (f->timeouts > seen[i] && !f->aborted)
				at[i][seen[i]] = f->last_progress;
			if (f->aborted && !aborted[i])
				aborted[i] = t;
			seen[i] = f->timeouts;
		}
		assert_true(t < 10 * WS_MS);
	}
	static const ws_time rto[2] = { 20 * WS_US, 10 * WS_US };
	for (unsigned i = 0; i < 2; i++) {
		const struct ws_flow *f = sim->flows[i];
		assert_true(f->aborted);
		assert_int_equal(f->timeouts, RETRIES + 1);
		assert_null(f->sr);
		for (unsigned k = 1; k < RETRIES; k++) {
			ws_time want = backoff ? rto[i] << k : rto[i];
			if (at[i][k] - at[i][k - 1] != want)
				fail_msg("flow %u: timeout %u came %.3f us after timeout %u, "
					 "expected %.3f us", i, k + 1,
					 (double)(at[i][k] - at[i][k - 1]) / WS_US, k,
					 (double)want / WS_US);
		}
		/* the last one, RETRIES + 1, aborts it (seen within a step) */
		ws_time last = at[i][RETRIES - 1] + (backoff ? rto[i] << RETRIES : rto[i]);
		assert_true(aborted[i] >= last && aborted[i] < last + step);
	}
	/* flow 1 started after the failure: its first timeout is rto_low after */
	assert_int_equal(at[1][0], 20 * WS_US + rto[1]);
	struct ws_sim_stats st;
	stats(sim, &st);
	assert_int_equal(st.aborted, 2);
	assert_int_equal(st.flows_done, 0);
	assert_int_equal(st.timeouts, 2 * (RETRIES + 1));
	for (unsigned i = 0; i < 2; i++) {
		struct ws_flow_info fi;
		flow_info(sim, i, &fi);
		assert_true(fi.aborted);
		assert_int_equal(fi.end, WS_TIME_NEVER);
		assert_true(fi.acked < fi.bytes);
	}
	check_aborted_outputs(sim, backoff ? "abort-backoff" : "abort-flat");
	ws_sim_free(sim);
}

static void test_rto_backoff_and_abort(void **state)
{
	(void)state;
	check_backoff(true);
	check_backoff(false);
}

/* ---- 6. trimming -------------------------------------------------------------------- */

/* A 2-to-1 incast through a tiny buffer that trims instead of dropping:
 * every trim is answered by a NACK and exactly one resend, never a
 * timeout, and nothing is dropped. */
static void test_trim_incast(void **state)
{
	(void)state;
	struct ws_sim *sim = tiny_sim(1, "2\n0 2 3 100 200000 0\n1 2 3 100 200000 0\n",
				      "[nic]\ntransport = sr\n"
				      "[switch]\npfc = false\nbuffer = 30KB\ntrim = true\n");
	struct watch w;
	run_watched(sim, 500 * WS_NS, &w);
	check_delivered(sim, &w);
	struct ws_sim_stats st;
	stats(sim, &st);
	print_message("incast: %llu trims, %llu resends, %llu NACKs\n",
		      (unsigned long long)st.trims, (unsigned long long)st.retx_pkts,
		      (unsigned long long)st.nacks);
	assert_true(st.trims > 10);
	assert_int_equal(st.retx_pkts, st.trims);
	assert_int_equal(st.nacks, st.trims);
	assert_int_equal(st.timeouts, 0);
	assert_int_equal(st.drops, 0);
	assert_int_equal(sim->ctr.dup_pkts, 0);
	for (uint32_t i = 0; i < 2; i++) {
		struct ws_flow_info fi;
		flow_info(sim, i, &fi);
		assert_int_equal(fi.retx_pkts, fi.trims);
		assert_int_equal(sim->flows[i]->nacks, fi.trims);
	}
	ws_sim_free(sim);
}

/*
 * A two-packet flow from host 0 and a one-packet flow from host 1 meet at
 * switch 4: the queue to switch 5 holds a packet (1052 bytes, above
 * trim_threshold) when flow 0's second packet arrives, which is cut; its
 * receiver NACKs it and its sender resends it once, long before any
 * timeout.
 */
static void test_trim_single(void **state)
{
	(void)state;
	struct ws_sim *sim = tiny_sim(1, "2\n0 2 3 100 2000 0\n1 2 3 100 1000 0\n",
				      "[nic]\ntransport = sr\n"
				      "[switch]\npfc = false\ntrim = true\n"
				      "trim_threshold = 1000B\n");
	th_run(sim);
	struct ws_sim_stats st;
	stats(sim, &st);
	assert_int_equal(st.trims, 1);
	assert_int_equal(st.retx_pkts, 1);
	assert_int_equal(st.nacks, 1);
	assert_int_equal(st.timeouts, 0);
	assert_int_equal(st.drops, 0);
	assert_int_equal(st.flows_done, 2);
	struct ws_flow_info fi;
	flow_info(sim, 0, &fi);
	assert_int_equal(fi.acked, 2000);
	assert_int_equal(fi.trims, 1);
	assert_int_equal(fi.retx_pkts, 1);
	/* the header's trip, the NACK's, one more round trip: about two base
	 * RTTs, far below rto_low (100 us) */
	assert_true(fi.end - fi.start > 12 * WS_US);
	assert_true(fi.end - fi.start < 14 * WS_US);
	flow_info(sim, 1, &fi);
	assert_int_equal(fi.trims, 0);
	assert_int_equal(fi.retx_pkts, 0);
	assert_true(fi.end - fi.start < 7 * WS_US);
	ws_sim_free(sim);

	/* a threshold below one packet trims only what finds a queue: a lone
	 * flow's packets never do, and it completes untouched */
	sim = tiny_sim(1, "1\n0 2 3 100 10000 0\n",
		       "[nic]\ntransport = sr\n"
		       "[switch]\npfc = false\ntrim = true\ntrim_threshold = 1B\n");
	th_run(sim);
	stats(sim, &st);
	assert_int_equal(st.flows_done, 1);
	assert_int_equal(st.trims, 0);
	assert_int_equal(st.retx_pkts, 0);
	ws_sim_free(sim);
}

/* ---- 7. entropy: recycling and spraying ------------------------------------------------ */

static struct ws_pkt ack_of(uint16_t entropy, uint8_t type, uint8_t flags)
{
	struct ws_pkt p;
	memset(&p, 0, sizeof p);
	p.type = type;
	p.dport = entropy;
	p.flags = flags;
	return p;
}

static void test_recycle_drops_ecn(void **state)
{
	(void)state;
	struct ws_sim *sim = tiny_sim(1, "1\n0 2 3 100 1000 0\n",
				      "[nic]\ntransport = sr\nentropy = recycle\n"
				      "entropy_values = 4\n");
	struct ws_flow f;
	memset(&f, 0, sizeof f);
	f.cc.id = 0;
	f.sport = 777;
	ws_sr_flow_init(sim, &f);
	assert_non_null(f.sr);
	/* nothing to reuse yet: fresh values */
	uint16_t a = ws_sr_entropy(sim, &f), b = ws_sr_entropy(sim, &f);
	assert_int_equal(f.sr->recycled, 0);
	/* a's ACK came back clean, b's with an ECN echo */
	struct ws_pkt clean = ack_of(a, WS_PKT_ACK, 0);
	struct ws_pkt marked = ack_of(b, WS_PKT_ACK, WS_PKTF_ECE);
	ws_sr_entropy_feedback(sim, &f, &marked);
	assert_int_equal(f.sr->ring_n, 0);
	ws_sr_entropy_feedback(sim, &f, &clean);
	assert_int_equal(f.sr->ring_n, 1);
	/* a trim's NACK does not return its value either */
	struct ws_pkt nack = ack_of(b, WS_PKT_NACK, WS_PKTF_TRIM);
	ws_sr_entropy_feedback(sim, &f, &nack);
	assert_int_equal(f.sr->ring_n, 1);
	/* the next packet reuses a, the one after is fresh again */
	assert_int_equal(ws_sr_entropy(sim, &f), a);
	assert_int_equal(f.sr->recycled, 1);
	assert_int_equal(f.sr->ring_n, 0);
	(void)ws_sr_entropy(sim, &f);
	assert_int_equal(f.sr->recycled, 1);
	/* the ring keeps entropy_values values, oldest first */
	for (uint16_t v = 1; v <= 6; v++) {
		struct ws_pkt p = ack_of((uint16_t)(1000 + v), WS_PKT_ACK, 0);
		ws_sr_entropy_feedback(sim, &f, &p);
	}
	assert_int_equal(f.sr->ring_n, 4);
	for (uint16_t v = 1; v <= 4; v++)
		assert_int_equal(ws_sr_entropy(sim, &f), 1000 + v);
	assert_int_equal(f.sr->recycled, 5);
	ws_sr_flow_free(&f);
	assert_null(f.sr);
	ws_sim_free(sim);
}

/* Spraying draws each packet's value from entropy_values values of the
 * flow (all of them, over many packets); flow entropy keeps the flow's
 * sport. */
static void test_spray_values(void **state)
{
	(void)state;
	struct ws_sim *sim = tiny_sim(1, "1\n0 2 3 100 1000 0\n",
				      "[nic]\ntransport = sr\nentropy = spray\n"
				      "entropy_values = 8\n");
	struct ws_flow f;
	memset(&f, 0, sizeof f);
	f.cc.id = 3;
	f.sport = 4242;
	ws_sr_flow_init(sim, &f);
	uint16_t v[16];
	unsigned distinct = 0;
	for (unsigned i = 0; i < 400; i++) {
		uint16_t e = ws_sr_entropy(sim, &f);
		unsigned j = 0;
		while (j < distinct && v[j] != e)
			j++;
		if (j == distinct) {
			assert_true(distinct < 8); /* never a ninth value */
			v[distinct++] = e;
		}
	}
	assert_true(distinct >= 7); /* 16-bit values: a collision is rare */
	/* feedback changes nothing under spray */
	struct ws_pkt p = ack_of(1, WS_PKT_ACK, 0);
	ws_sr_entropy_feedback(sim, &f, &p);
	assert_null(f.sr->ring);
	assert_int_equal(f.sr->recycled, 0);
	ws_sr_flow_free(&f);
	ws_sim_free(sim);

	sim = tiny_sim(1, "1\n0 2 3 100 1000 0\n", "[nic]\ntransport = sr\n");
	memset(&f, 0, sizeof f);
	f.sport = 4242;
	ws_sr_flow_init(sim, &f);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(ws_sr_entropy(sim, &f), 4242);
	ws_sr_flow_free(&f);
	ws_sim_free(sim);
}

/* ---- 8, 9. determinism; nothing changes when unused ----------------------------------- */

/* The outputs of a run into <tmpdir>/<name>; returns fct.csv's bytes. */
static char *run_outputs(struct ws_sim *sim, const char *name, char **flows_csv)
{
	th_run(sim);
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/%s", th_tmpdir(), name);
	struct ws_err err;
	assert_int_equal(ws_sim_write_outputs(sim, dir, &err), WS_OK);
	size_t len;
	char *fct = th_read(th_fmt("%s/fct.csv", dir), &len);
	assert_non_null(fct);
	if (flows_csv) {
		*flows_csv = th_read(th_fmt("%s/flows.csv", dir), &len);
		assert_non_null(*flows_csv);
	}
	return fct;
}

/* An 8-to-1 incast and a permutation on the k = 4 fat-tree, sprayed,
 * trimmed, with random loss on a core link. */
static struct ws_sim *det_sim(unsigned seed)
{
	char flows[2048];
	size_t n = (size_t)snprintf(flows, sizeof flows, "24\n");
	for (unsigned i = 0; i < 8; i++)
		n += (size_t)snprintf(flows + n, sizeof flows - n, "%u 0 3 100 50000 0\n",
				      i + 4);
	for (unsigned i = 0; i < 16; i++)
		n += (size_t)snprintf(flows + n, sizeof flows - n,
				      "%u %u 3 100 60000 0.000002\n", i, (i + 5) % 16);
	th_write("flows.txt", flows);
	return th_sim(th_fmt("[sim]\nseed = %u\n"
			     "[topology]\nname = fat-tree\nk = 4\n"
			     "link_rate = 100Gbps\nlink_delay = 1us\n"
			     "[cc]\nname = none\n"
			     "[nic]\ntransport = sr\nentropy = spray\n"
			     "[switch]\npfc = false\nbuffer = 64KB\ntrim = true\n"
			     "[workload]\nname = flows\nfile = flows.txt\n"
			     "[output]\nflows = true\n"
			     "[failures]\nevents = 0s loss 0.01 link 32:0\n", seed));
}

static void test_determinism(void **state)
{
	(void)state;
	struct ws_sim *a = det_sim(7), *b = det_sim(7), *c = det_sim(8);
	char *fa, *fb, *fc;
	char *fa_csv = run_outputs(a, "det-a", &fa), *fb_csv = run_outputs(b, "det-b", &fb);
	char *fc_csv = run_outputs(c, "det-c", &fc);
	struct ws_sim_stats st;
	stats(a, &st);
	assert_int_equal(st.flows_done, 24);
	assert_true(st.trims > 0);
	assert_true(st.drops_loss > 0);
	assert_true(st.retx_pkts > st.trims); /* losses were resent too */
	assert_string_equal(fa_csv, fb_csv);
	assert_string_equal(fa, fb);
	/* the seed matters: another one draws other losses */
	assert_string_not_equal(fa_csv, fc_csv);
	free(fa);
	free(fb);
	free(fc);
	free(fa_csv);
	free(fb_csv);
	free(fc_csv);
	ws_sim_free(a);
	ws_sim_free(b);
	ws_sim_free(c);
}

/* Naming the defaults (gbn, flow entropy, no trimming) is the same run as
 * not naming them, and flows.csv keeps its columns. */
static void test_defaults_unchanged(void **state)
{
	(void)state;
	static const char flows[] = "3\n0 2 3 100 100000 0\n1 2 3 100 100000 0\n"
				    "3 0 3 100 30000 0\n";
	struct ws_sim *a = tiny_sim(1, flows, "[output]\nflows = true\n");
	struct ws_sim *b = tiny_sim(1, flows, "[output]\nflows = true\n"
				    "[nic]\ntransport = gbn\nentropy = flow\n"
				    "[switch]\ntrim = false\n");
	char *fa, *fb;
	char *fct_a = run_outputs(a, "def-a", &fa), *fct_b = run_outputs(b, "def-b", &fb);
	assert_string_equal(fct_a, fct_b);
	assert_string_equal(fa, fb);
	assert_null(strstr(fa, "retx_pkts"));
	assert_null(strstr(fa, "trims"));
	for (uint32_t i = 0; i < 3; i++)
		assert_null(b->flows[i]->sr);
	free(fa);
	free(fb);
	free(fct_a);
	free(fct_b);
	ws_sim_free(a);
	ws_sim_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seqmap_basics),
		cmocka_unit_test(test_seqmap_ring),
		cmocka_unit_test(test_sack_roundtrip),
		cmocka_unit_test(test_sr_receiver),
		cmocka_unit_test(test_sr_sender),
		cmocka_unit_test(test_sr_cap_unit),
		cmocka_unit_test(test_exactly_once_under_loss),
		cmocka_unit_test(test_reordering_no_resend),
		cmocka_unit_test(test_reordering_default_threshold),
		cmocka_unit_test(test_bdp_fc_cap),
		cmocka_unit_test(test_rto_backoff_and_abort),
		cmocka_unit_test(test_trim_incast),
		cmocka_unit_test(test_trim_single),
		cmocka_unit_test(test_recycle_drops_ecn),
		cmocka_unit_test(test_spray_values),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_defaults_unchanged),
	};
	return cmocka_run_group_tests_name("transport", tests, NULL, NULL);
}
