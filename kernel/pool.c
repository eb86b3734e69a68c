/* SPDX-License-Identifier: MIT */
/*
 * The packet pool: packets are carved from blocks and recycled through a
 * free list, so the hot path never calls malloc.
 *
 * A block is WS_PKT_BLOCK_BYTES of anonymous memory, cut from 2 MiB
 * transparent huge pages where the kernel agrees (ws_huge_map: a packet's
 * arrival is a random access, which on 4 KiB pages also walks the page
 * table); unmapping a block gives its memory back at once (the kernel
 * splits the huge page); a free packet is marked as such.  Packets
 * are one cache line when the run does not stamp INT (the INT stack, 160
 * bytes, is never read then), which cuts the memory of the packets a burst
 * leaves queued in the fabric by 3.5 times.  A burst (the first round trip of DCQCN at line rate,
 * an all-to-all) can leave the pool far larger than the steady state needs:
 * when the packets in use fall to a quarter of the pool, the blocks whose
 * packets are all free are unmapped, and again each time the use halves,
 * so the trims cost O(packets freed since the peak).  Blocks still held are
 * freed with the simulation.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

struct ws_pktblock {
	struct ws_pktblock *next;
	uint8_t release;      /* during a trim: all free, to be unmapped */
	uint8_t pad[64 - sizeof(void *) - 1];
	/* the packets follow, from the first cache line after the header */
};

_Static_assert(sizeof(struct ws_pktblock) == 64, "a block header is one line");
_Static_assert(offsetof(struct ws_pkt, int_hop) == 64,
	       "a packet's fields before its INT stack fill one cache line");

static inline struct ws_pkt *pkt_at(struct ws_pktblock *b, uint32_t rec, size_t i)
{
	return (struct ws_pkt *)((char *)(b + 1) + i * rec);
}

void ws_pktpool_init(struct ws_pktpool *pool, bool with_int)
{
	WS_ASSERT(pool->allocated == 0, "the packet record size changes with %llu packets",
		  (unsigned long long)pool->allocated);
	pool->rec = with_int ? (uint32_t)sizeof(struct ws_pkt)
			     : (uint32_t)offsetof(struct ws_pkt, int_hop);
	/* the last record still has a whole struct's bytes behind it */
	pool->per_block = (uint32_t)((WS_PKT_BLOCK_BYTES - sizeof(struct ws_pktblock) -
				      (sizeof(struct ws_pkt) - pool->rec)) / pool->rec);
	pool->trim_at = UINT64_MAX;
}

void *ws_huge_map(size_t bytes)
{
	WS_ASSERT(bytes && bytes % WS_HUGE_PAGE == 0, "%zu bytes of huge pages", bytes);
	/* mmap aligns to 4 KiB only: map one huge page more, keep the aligned
	 * part */
	size_t span = bytes + WS_HUGE_PAGE;
	char *m = mmap(NULL, span, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		ws_fatal_oom(1, bytes);
	uintptr_t a = ((uintptr_t)m + WS_HUGE_PAGE - 1) & ~(uintptr_t)(WS_HUGE_PAGE - 1);
	char *p = (char *)a;
	if (p > m)
		munmap(m, (size_t)(p - m));
	if (p + bytes < m + span)
		munmap(p + bytes, (size_t)(m + span - (p + bytes)));
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE); /* advice: refused is fine */
#endif
	return p;
}

void ws_huge_unmap(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes);
}

/* A block: the next WS_PKT_BLOCK_BYTES of the pool's current huge-page
 * arena (each is unmapped on its own when a trim gives it back). */
static struct ws_pktblock *block_map(struct ws_pktpool *pool)
{
	if (!pool->arena_left) {
		pool->arena = ws_huge_map(WS_HUGE_PAGE);
		pool->arena_left = WS_HUGE_PAGE;
	}
	struct ws_pktblock *b = (struct ws_pktblock *)pool->arena;
	pool->arena += WS_PKT_BLOCK_BYTES;
	pool->arena_left -= WS_PKT_BLOCK_BYTES;
	return b;
}

static void set_trim_mark(struct ws_pktpool *pool)
{
	/* a pool of a few blocks is not worth trimming */
	pool->trim_at = pool->n_blocks >= 4 ? pool->allocated / 4 : UINT64_MAX;
}

struct ws_pkt *ws_pktpool_grow(struct ws_pktpool *pool)
{
	if (!pool->rec)
		ws_pktpool_init(pool, true);
	struct ws_pktblock *b = block_map(pool);
	b->next = pool->blocks;
	pool->blocks = b;
	for (size_t i = pool->per_block; i-- > 0;) {
		struct ws_pkt *p = pkt_at(b, pool->rec, i);
		p->type = WS_PKT_FREE;
		p->next = pool->free;
		pool->free = p;
	}
	pool->allocated += pool->per_block;
	pool->n_blocks++;
	set_trim_mark(pool);
	return pool->free;
}

uint64_t ws_pktpool_trim(struct ws_pktpool *pool)
{
	if (pool->shared) {
		pool->trim_at = UINT64_MAX;
		return 0;
	}
	/* the blocks are read in address order (free packets are marked), not
	 * through the free list, whose every step would be a cache miss */
	uint64_t n = 0;
	for (struct ws_pktblock *b = pool->blocks; b; b = b->next) {
		uint64_t nf = 0;
		for (size_t i = 0; i < pool->per_block; i++)
			nf += pkt_at(b, pool->rec, i)->type == WS_PKT_FREE;
		/* two blocks stay, so a run that idles between bursts does not
		 * map and unmap its packets each time */
		b->release = nf == pool->per_block && n + 2 < pool->n_blocks;
		n += b->release;
	}
	if (n) {
		struct ws_pktblock **bl = &pool->blocks;
		while (*bl) {
			struct ws_pktblock *b = *bl;
			if (b->release) {
				*bl = b->next;
				munmap(b, WS_PKT_BLOCK_BYTES);
			} else {
				bl = &b->next;
			}
		}
		/* the free list anew, from the blocks that stay */
		struct ws_pkt **link = &pool->free;
		for (struct ws_pktblock *b = pool->blocks; b; b = b->next)
			for (size_t i = 0; i < pool->per_block; i++) {
				struct ws_pkt *p = pkt_at(b, pool->rec, i);
				if (p->type == WS_PKT_FREE) {
					*link = p;
					link = &p->next;
				}
			}
		*link = NULL;
		pool->allocated -= n * pool->per_block;
		pool->n_blocks -= n;
		pool->released += n;
	}
	/* the next try when the use has halved again (or after a new burst),
	 * so trims cost O(packets freed since the peak) */
	set_trim_mark(pool);
	if (pool->trim_at == UINT64_MAX || pool->in_use == 0)
		pool->trim_at = UINT64_MAX; /* until the next burst grows it */
	else if (pool->in_use / 2 < pool->per_block)
		pool->trim_at = 0;          /* last: when the burst is over */
	else
		pool->trim_at = WS_MIN(pool->trim_at, pool->in_use / 2);
	return n;
}

void ws_pktpool_fini(struct ws_pktpool *pool)
{
	struct ws_pktblock *b = pool->blocks;
	while (b) {
		struct ws_pktblock *next = b->next;
		munmap(b, WS_PKT_BLOCK_BYTES);
		b = next;
	}
	if (pool->arena_left)
		munmap(pool->arena, pool->arena_left);
	pool->arena = NULL;
	pool->arena_left = 0;
	pool->blocks = NULL;
	pool->free = NULL;
	pool->allocated = pool->n_blocks = 0;
}
