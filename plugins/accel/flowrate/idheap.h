/* SPDX-License-Identifier: MIT */
/*
 * A binary min-heap of ids that knows where each id is: the sifts of the
 * heaps of ends that fluid (its flows' transfer ends) and the collective
 * engine (a collective's sending transfers) keep.  The caller owns the
 * array and the positions: `before` orders two ids, `place` records that
 * an id is now at index i (and is called for every move).  Header only,
 * static inline: called with constant functions, the compiler inlines
 * them, so a sift costs what a hand-written one does.
 */
#ifndef WS_FLOWRATE_IDHEAP_H
#define WS_FLOWRATE_IDHEAP_H

#include <stdbool.h>
#include <stdint.h>

typedef bool (*idh_before_fn)(const void *ctx, uint32_t a, uint32_t b);
typedef void (*idh_place_fn)(void *ctx, uint32_t id, uint32_t i);

/* h[i] = id, and its position noted */
static inline void idh_set(uint32_t *h, uint32_t i, uint32_t id, void *ctx,
			   idh_place_fn place)
{
	h[i] = id;
	place(ctx, id, i);
}

/* Move the id at index i up to where it belongs. */
static inline void idh_up(uint32_t *h, uint32_t i, void *ctx, idh_before_fn before,
			  idh_place_fn place)
{
	uint32_t id = h[i];
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!before(ctx, id, h[p]))
			break;
		idh_set(h, i, h[p], ctx, place);
		i = p;
	}
	idh_set(h, i, id, ctx, place);
}

/* Move the id at index i of a heap of n down to where it belongs. */
static inline void idh_down(uint32_t *h, uint32_t n, uint32_t i, void *ctx,
			    idh_before_fn before, idh_place_fn place)
{
	uint32_t id = h[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(ctx, h[c + 1], h[c]))
			c++;
		if (!before(ctx, h[c], id))
			break;
		idh_set(h, i, h[c], ctx, place);
		i = c;
	}
	idh_set(h, i, id, ctx, place);
}

#endif
