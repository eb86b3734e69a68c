/* SPDX-License-Identifier: MIT */
/*
 * The packet pool: one-cache-line records when the run stamps no INT, whole
 * ones when it does; its counters (packets in use, peak, blocks held and
 * given back); and the memory a burst grew given back when the burst is
 * over, with the packets still in use untouched.
 */
#include "th.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static struct ws_pkt **take(struct ws_pktpool *pool, size_t n)
{
	struct ws_pkt **p = malloc(n * sizeof *p);
	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		p[i] = ws_pkt_alloc(pool);
		p[i]->type = WS_PKT_DATA;
		p[i]->seq = 1000 + i;
		p[i]->flow = (uint32_t)i;
	}
	return p;
}

static void test_record_size(void **state)
{
	(void)state;
	struct ws_pktpool a = { 0 }, b = { 0 };
	ws_pktpool_init(&a, false);
	ws_pktpool_init(&b, true);
	assert_int_equal(a.rec, 64);
	assert_int_equal(b.rec, sizeof(struct ws_pkt));
	assert_true(a.per_block > 3 * b.per_block);
	/* a whole record takes INT records in every slot */
	struct ws_pkt **p = take(&b, 3 * b.per_block);
	for (size_t i = 0; i < 3 * b.per_block; i++) {
		p[i]->int_n = WS_INT_MAX_HOPS;
		for (unsigned k = 0; k < WS_INT_MAX_HOPS; k++)
			p[i]->int_hop[k].ts = i + k;
	}
	for (size_t i = 0; i < 3 * b.per_block; i++) {
		assert_int_equal(p[i]->int_hop[WS_INT_MAX_HOPS - 1].ts, i + WS_INT_MAX_HOPS - 1);
		ws_pkt_free(&b, p[i]);
	}
	free(p);
	ws_pktpool_fini(&a);
	ws_pktpool_fini(&b);
}

/* A burst of 50,000 packets, then all but a scattered 50 freed: the blocks
 * with nothing in use go back, the 50 keep their contents; when the last
 * ones are freed the pool is back to two blocks; it grows again and
 * shrinks again after the next burst. */
static void test_burst_released(void **state)
{
	(void)state;
	struct ws_pktpool pool = { 0 };
	ws_pktpool_init(&pool, false);
	const size_t n = 50000, every = 1000;
	struct ws_pkt **p = take(&pool, n);
	assert_int_equal(pool.in_use, n);
	assert_int_equal(pool.peak, n);
	assert_true(pool.allocated >= n);
	assert_int_equal(pool.allocated, pool.n_blocks * pool.per_block);
	uint64_t held = pool.n_blocks;
	assert_true(held >= 12);
	assert_int_equal(pool.released, 0);
	/* free in the order a drained fabric might: every packet but one in
	 * `every`, from both ends */
	for (size_t i = 0; i < n; i++) {
		size_t k = i % 2 ? i / 2 : n - 1 - i / 2;
		if (k % every)
			ws_pkt_free(&pool, p[k]);
	}
	size_t kept = n / every;
	assert_int_equal(pool.in_use, kept);
	assert_int_equal(pool.peak, n);
	assert_true(pool.released > 0);
	assert_int_equal(pool.n_blocks + pool.released, held);
	assert_int_equal(pool.allocated, pool.n_blocks * pool.per_block);
	/* no more blocks than those holding a kept packet, plus the two kept */
	assert_true(pool.n_blocks <= kept + 2);
	for (size_t k = 0; k < n; k += every) {
		assert_int_equal(p[k]->seq, 1000 + k);
		assert_int_equal(p[k]->flow, k);
		assert_int_equal(p[k]->type, WS_PKT_DATA);
	}
	/* the burst is over */
	for (size_t k = 0; k < n; k += every)
		ws_pkt_free(&pool, p[k]);
	assert_int_equal(pool.in_use, 0);
	assert_int_equal(pool.n_blocks, 2);
	assert_int_equal(pool.allocated, 2 * pool.per_block);
	free(p);
	/* and the pool serves a new burst */
	p = take(&pool, n / 2);
	assert_int_equal(pool.in_use, n / 2);
	for (size_t i = 0; i < n / 2; i++)
		assert_int_equal(p[i]->seq, 1000 + i);
	for (size_t i = 0; i < n / 2; i++)
		ws_pkt_free(&pool, p[i]);
	/* given back again, down to a pool too small to trim */
	assert_true(pool.n_blocks <= 3);
	assert_int_equal(pool.allocated, pool.n_blocks * pool.per_block);
	free(p);
	ws_pktpool_fini(&pool);
}

/* A pool of fewer than four blocks is never trimmed: a run that idles
 * between small bursts does not map and unmap its packets. */
static void test_small_pool_kept(void **state)
{
	(void)state;
	struct ws_pktpool pool = { 0 };
	ws_pktpool_init(&pool, false);
	size_t n = 3 * pool.per_block;
	for (int round = 0; round < 3; round++) {
		struct ws_pkt **p = take(&pool, n);
		for (size_t i = 0; i < n; i++)
			ws_pkt_free(&pool, p[i]);
		free(p);
		assert_int_equal(pool.n_blocks, 3);
		assert_int_equal(pool.released, 0);
	}
	ws_pktpool_fini(&pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_size),
		cmocka_unit_test(test_burst_released),
		cmocka_unit_test(test_small_pool_kept),
	};
	return cmocka_run_group_tests_name("pool", tests, NULL, NULL);
}
