/* SPDX-License-Identifier: MIT */
/*
 * The packet pool: packets are carved from blocks and recycled through a
 * free list, so the hot path never calls malloc.  Blocks are freed with the
 * simulation.
 */
#include <stdlib.h>

#include "internal.h"

#define PKT_BLOCK 1024

struct ws_pktblock {
	struct ws_pktblock *next;
	struct ws_pkt pkt[PKT_BLOCK];
};

struct ws_pkt *ws_pktpool_grow(struct ws_pktpool *pool)
{
	struct ws_pktblock *b = malloc(sizeof *b);
	if (!b)
		b = ws_xcalloc(1, sizeof *b); /* reports and aborts */
	b->next = pool->blocks;
	pool->blocks = b;
	for (size_t i = PKT_BLOCK; i-- > 0;) {
		b->pkt[i].next = pool->free;
		pool->free = &b->pkt[i];
	}
	pool->allocated += PKT_BLOCK;
	return pool->free;
}

void ws_pktpool_fini(struct ws_pktpool *pool)
{
	struct ws_pktblock *b = pool->blocks;
	while (b) {
		struct ws_pktblock *next = b->next;
		free(b);
		b = next;
	}
	pool->blocks = NULL;
	pool->free = NULL;
}
