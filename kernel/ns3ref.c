/* SPDX-License-Identifier: MIT */
/*
 * The ns-3 reference mode: `[sim] reference = ns3` makes a run follow the
 * RDMA simulator most published results come from (the HPCC ns-3
 * simulator and its descendant ns-3-alibabacloud) wherever warpsim
 * legitimately differs, so that a study made there gives the same FCTs
 * flow by flow.  Each part is also a [sim] key of its own (auto follows
 * `reference`): serialization, ecmp, nic_wake, ecn_scope
 * (docs/architecture.md lists them with what each changes).
 *
 * This file holds the reference's facts that more than one place needs:
 * its ECMP hash (MurmurHash3 x86_32 of source IP, destination IP and
 * sport | dport << 16, seeded by the switch's node id), its host addresses,
 * and the order it lists equal-cost next hops in.  The rules (updown,
 * table) read them through the public calls; nic.c and switch.c read the
 * resolved parts in sim->ref.  Facts taken from the reference's source
 * (switch-node.cc GetOutDev/EcmpHash, third.cc node_id_to_ip and
 * CalculateRoute); the code is ours.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static inline uint32_t rotl32(uint32_t x, unsigned r)
{
	return x << r | x >> (32 - r);
}

static inline uint32_t murmur_mix(uint32_t k)
{
	k *= 0xcc9e2d51u;
	k = rotl32(k, 15);
	return k * 0x1b873593u;
}

uint32_t ws_murmur3_32(const void *key, size_t len, uint32_t seed)
{
	const uint8_t *b = key;
	uint32_t h = seed;
	size_t i = 0;
	for (; i + 4 <= len; i += 4) {
		uint32_t k = (uint32_t)b[i] | (uint32_t)b[i + 1] << 8 |
			     (uint32_t)b[i + 2] << 16 | (uint32_t)b[i + 3] << 24;
		h ^= murmur_mix(k);
		h = rotl32(h, 13);
		h = h * 5 + 0xe6546b64u;
	}
	uint32_t k = 0;
	switch (len & 3) {
	case 3:
		k ^= (uint32_t)b[i + 2] << 16;
		/* fall through */
	case 2:
		k ^= (uint32_t)b[i + 1] << 8;
		/* fall through */
	case 1:
		k ^= b[i];
		h ^= murmur_mix(k);
	}
	h ^= (uint32_t)len;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

uint32_t ws_ns3_ip(uint32_t node)
{
	return 0x0b000001u + (node / 256u) * 0x10000u + (node % 256u) * 0x100u;
}

static inline void put_le32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

uint32_t ws_ns3_ecmp_hash(const struct ws_pkt *p, uint32_t node)
{
	uint8_t key[12];
	put_le32(key, ws_ns3_ip(p->src));
	put_le32(key + 4, ws_ns3_ip(p->dst));
	put_le32(key + 8, (uint32_t)p->sport | (uint32_t)p->dport << 16);
	return ws_murmur3_32(key, sizeof key, node);
}

bool ws_sim_ns3_ecmp(const struct ws_sim *sim)
{
	return sim->ref.ecmp;
}

uint64_t ws_ns3_order_key(const struct ws_sim *sim, uint32_t node)
{
	if (node >= sim->fab.n_nodes || sim->nodes[node].kind != WS_NODE_SWITCH)
		return node;
	uint64_t k = sim->ref.switch_ascending ? node : UINT32_MAX - node;
	return (1ull << 32) + k;
}

static bool part_on(int part, bool ns3)
{
	return part == WS_PART_NS3 || (part == WS_PART_AUTO && ns3);
}

void ws_ref_resolve(struct ws_sim *sim)
{
	const struct ws_sim_conf *c = &sim->simc;
	const bool ns3 = c->reference == WS_REF_NS3;
	sim->ref.ser_ns = c->serialization == WS_SER_NS ||
			  (c->serialization == WS_SER_AUTO && ns3);
	sim->ref.ecmp = part_on(c->ecmp, ns3);
	sim->ref.switch_ascending = c->ns3_switch_order == WS_ORDER_ASCENDING;
	sim->ref.wake = part_on(c->nic_wake, ns3);
	sim->ref.keep_gap = part_on(c->rate_gap, ns3);
	sim->ref.ecn_all = part_on(c->ecn_scope, ns3);
	sim->ref.pair_ports = sim->ref.ecmp;
	sim->ref.ecn_unmapped_zero = ns3;
}

int ws_sim_reference(const struct ws_sim *sim)
{
	return sim->simc.reference == WS_REF_NS3 ? WS_SIM_REFERENCE_NS3
						 : WS_SIM_REFERENCE_NONE;
}

void ws_ref_free(struct ws_sim *sim)
{
	free(sim->ref.pair_key);
	free(sim->ref.pair_n);
	sim->ref.pair_key = NULL;
	sim->ref.pair_n = NULL;
	sim->ref.pair_cap = sim->ref.pair_used = 0;
}

static inline size_t pair_slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

/* The slot of key, or the empty slot where it goes. */
static size_t pair_find(const struct ws_ref *r, uint64_t key)
{
	size_t i = pair_slot(key, r->pair_cap);
	while (r->pair_key[i] && r->pair_key[i] != key)
		i = (i + 1) & (r->pair_cap - 1);
	return i;
}

static void pair_grow(struct ws_ref *r)
{
	struct ws_ref old = *r;
	r->pair_cap = old.pair_cap ? 2 * old.pair_cap : 256;
	r->pair_key = ws_xcalloc(r->pair_cap, sizeof *r->pair_key);
	r->pair_n = ws_xcalloc(r->pair_cap, sizeof *r->pair_n);
	for (size_t i = 0; i < old.pair_cap; i++) {
		if (!old.pair_key[i])
			continue;
		size_t j = pair_find(r, old.pair_key[i]);
		r->pair_key[j] = old.pair_key[i];
		r->pair_n[j] = old.pair_n[i];
	}
	free(old.pair_key);
	free(old.pair_n);
}

/*
 * The source port of a flow starting now from src to dst when ports are
 * numbered per pair (third.cc's portNumder[src][dst]: 10000 for a pair's
 * first flow, one more for each later one, a uint16_t that wraps).  The
 * table holds only the pairs that started a flow.
 */
uint16_t ws_ns3_pair_sport(struct ws_sim *sim, uint32_t src, uint32_t dst)
{
	struct ws_ref *r = &sim->ref;
	if (2 * (r->pair_used + 1) > r->pair_cap)
		pair_grow(r);
	uint64_t key = ((uint64_t)src << 32 | dst) + 1;
	size_t i = pair_find(r, key);
	if (!r->pair_key[i]) {
		r->pair_key[i] = key;
		r->pair_used++;
	}
	return (uint16_t)(10000u + r->pair_n[i]++);
}

/*
 * [output] fct_txt: the reference's fct.txt (third.cc, qp_finish), one line
 * per completed flow: source and destination IP in 8 hex digits, sport,
 * dport, bytes, start time, FCT and ideal ("standalone") FCT, times in
 * whole ns (truncated, as its clock has no finer step), so the HPCC
 * analysis scripts (fct_analysis.py) read our runs.  Lines come in flow id
 * order, the reference's in completion order; the scripts sort anyway.
 * The ideal FCT is warpsim's (the same formula, computed in ps).
 */
int ws_ns3_write_fct_txt(struct ws_sim *sim, const char *dir, struct ws_err *err)
{
	struct ws_outfile *o = ws_outfile_open(dir, "fct.txt", err);
	if (!o)
		return WS_EIO;
	FILE *f = ws_outfile_stream(o);
	for (uint32_t i = 0; i < sim->n_flows; i++) {
		const struct ws_flow *fl = sim->flows[i];
		if (fl->end == WS_TIME_NEVER)
			continue;
		fprintf(f, "%08" PRIx32 " %08" PRIx32 " %u %u %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 "\n", ws_ns3_ip(fl->cc.src),
			ws_ns3_ip(fl->cc.dst), fl->sport, fl->dport, fl->cc.size,
			fl->start / WS_NS, (fl->end - fl->start) / WS_NS,
			fl->ideal_fct / WS_NS);
	}
	return ws_outfile_commit(o, err);
}
