/* SPDX-License-Identifier: MIT */
/*
 * fat-tree + updown: the generated wiring (every port connected, port
 * counts as specified), every host pair's route (loop-free, reaches its
 * destination, up/down shortest: 2, 4 or 6 links, up then down), ECMP
 * spreading 10^4 flows evenly over the core switches, and a known-answer
 * table pinning the xxHash ECMP choices so they are the same on every
 * machine.
 */
#include "th.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

static struct ws_sim *fat_tree(unsigned k)
{
	th_write("empty.txt", "0\n");
	return th_sim(th_fmt("[topology]\nname = fat-tree\nk = %u\n"
			     "[workload]\nname = flows\nfile = empty.txt\n", k));
}

static void check_all_pairs(unsigned k)
{
	struct ws_sim *sim = fat_tree(k);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	unsigned h = k / 2;
	assert_int_equal(fab->n_hosts, k * h * h);
	assert_int_equal(fab->n_switches, k * k + h * h);
	assert_int_equal(fab->n_links, k * h * h * 3);
	/* port counts as specified; every port connected to a port that points back */
	for (uint32_t i = 0; i < fab->n_nodes; i++) {
		const struct ws_node *n = ws_node_get(fab, i);
		assert_int_equal(n->n_ports, n->kind == WS_NODE_HOST ? 1 : k);
		for (uint32_t l = 0; l < n->n_ports; l++) {
			struct ws_port_info a = { WS_INIT_SIZE(struct ws_port_info) }, b = { WS_INIT_SIZE(struct ws_port_info) };
			assert_int_equal(ws_port_info(sim, i, l, &a), WS_OK);
			assert_int_equal(ws_port_info(sim, a.peer_node, a.peer_local, &b), WS_OK);
			assert_int_equal(b.peer_node, i);
			assert_int_equal(b.peer_local, l);
		}
	}
	uint32_t path[32];
	for (uint32_t s = 0; s < fab->n_hosts; s++) {
		for (uint32_t d = 0; d < fab->n_hosts; d++) {
			if (s == d)
				continue;
			uint32_t src = fab->hosts[s], dst = fab->hosts[d];
			unsigned links = th_route(sim, src, dst, (uint16_t)(10000 + s), path, NULL, 32);
			/* loop-free: no node twice */
			for (unsigned i = 0; i <= links; i++)
				for (unsigned j = i + 1; j <= links; j++)
					assert_int_not_equal(path[i], path[j]);
			/* up/down shortest */
			const struct ws_node *a = ws_node_get(fab, src), *b = ws_node_get(fab, dst);
			unsigned expect = a->addr[0] != b->addr[0] ? 6 : a->addr[1] != b->addr[1] ? 4 : 2;
			assert_int_equal(links, expect);
			/* levels strictly up, then strictly down */
			unsigned i = 0;
			while (i < links && ws_node_get(fab, path[i + 1])->level >
						    ws_node_get(fab, path[i])->level)
				i++;
			while (i < links && ws_node_get(fab, path[i + 1])->level <
						    ws_node_get(fab, path[i])->level)
				i++;
			assert_int_equal(i, links);
		}
	}
	ws_sim_free(sim);
}

static void test_k4_all_pairs(void **state)
{
	(void)state;
	check_all_pairs(4);
}

static void test_k8_all_pairs(void **state)
{
	(void)state;
	check_all_pairs(8);
}

static void check_ecmp_spread(unsigned k)
{
	struct ws_sim *sim = fat_tree(k);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	unsigned h = k / 2, cores = h * h;
	uint32_t core0 = fab->n_nodes - cores;
	unsigned *count = calloc(cores, sizeof *count);
	uint32_t path[32];
	const unsigned flows = 10000;
	uint64_t s = 42;
	for (unsigned f = 0; f < flows; f++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		/* a host of pod 0 to a host of another pod: every path has a core */
		uint32_t src = (uint32_t)((s >> 33) % (h * h));
		uint32_t dst = (uint32_t)(h * h + (s >> 13) % (fab->n_hosts - h * h));
		unsigned links = th_route(sim, src, dst, (uint16_t)(1000 + f), path, NULL, 32);
		assert_int_equal(links, 6);
		assert_true(path[3] >= core0);
		count[path[3] - core0]++;
	}
	th_assert_uniform(count, cores, 0.15, "core");
	free(count);
	ws_sim_free(sim);
}

static void test_ecmp_spread_k4(void **state)
{
	(void)state;
	check_ecmp_spread(4);
}

static void test_ecmp_spread_k8(void **state)
{
	(void)state;
	check_ecmp_spread(8);
}

/*
 * Known answers: xxHash (XXH3, 64-bit) of the 16-byte 5-tuple
 * {src, dst, sport, dport, proto = 17} seeded with the switch id.  If
 * these change, every ECMP path in every result changes: a library or
 * layout change must be deliberate.
 */
static void test_xxhash_known_answers(void **state)
{
	(void)state;
	struct tuple {
		uint32_t src, dst;
		uint16_t sport, dport;
		uint32_t proto;
	};
	const struct {
		uint32_t s, d;
		uint16_t sp, dp;
		uint64_t seed, hash;
	} kat[] = {
		{ 0, 15, 10000, 100, 0x10ull, 0x5c4fcdeed1f7dadeull },
		{ 3, 12, 10001, 100, 0x11ull, 0xa9d806893aa7eb42ull },
		{ 127, 0, 10000, 100, 0x82ull, 0xdea3fce5ea4d21d9ull },
		{ 5, 9, 4791, 4791, 0x700000014ull, 0xdac583fdf305b947ull },
	};
	for (size_t i = 0; i < WS_ARRAY_LEN(kat); i++) {
		struct tuple t;
		memset(&t, 0, sizeof t);
		t.src = kat[i].s;
		t.dst = kat[i].d;
		t.sport = kat[i].sp;
		t.dport = kat[i].dp;
		t.proto = 17;
		assert_int_equal(XXH3_64bits_withSeed(&t, sizeof t, kat[i].seed), kat[i].hash);
	}
	/* and the rule uses exactly that: edge switch 16 of a k=4 fat-tree
	 * (2 down + 2 up ports) sends flow (0 -> 15, 10000, 100) up port
	 * 2 + hash % 2 */
	struct ws_sim *sim = fat_tree(4);
	const struct ws_fabric *fab = ws_sim_fabric(sim);
	const struct ws_inst *rt = ws_sim_instance(sim, WS_KIND_ROUTING);
	const struct ws_routing_ops *ops = rt->plugin->ops;
	struct ws_pkt p;
	memset(&p, 0, sizeof p);
	p.src = 0;
	p.dst = 15;
	p.sport = 10000;
	p.dport = 100;
	uint32_t port = ops->next_port((struct ws_inst *)rt, ws_node_get(fab, 16),
				       ws_node_get(fab, 15), &p);
	assert_int_equal(port, 2 + kat[0].hash % 2);
	/* a different ecmp_seed moves some flows */
	ws_sim_free(sim);
}

static void test_ecmp_seed_changes_paths(void **state)
{
	(void)state;
	th_write("empty.txt", "0\n");
	struct ws_sim *a = th_sim("[topology]\nname = fat-tree\nk = 8\n"
				  "[workload]\nname = flows\nfile = empty.txt\n");
	struct ws_sim *b = th_sim("[topology]\nname = fat-tree\nk = 8\n"
				  "[routing]\nname = updown\necmp_seed = 1\n"
				  "[workload]\nname = flows\nfile = empty.txt\n");
	uint32_t pa[32], pb[32];
	unsigned differ = 0;
	for (uint16_t f = 0; f < 200; f++) {
		th_route(a, 0, 127, (uint16_t)(10000 + f), pa, NULL, 32);
		th_route(b, 0, 127, (uint16_t)(10000 + f), pb, NULL, 32);
		differ += pa[3] != pb[3];
	}
	assert_true(differ > 100); /* 15/16 expected */
	ws_sim_free(a);
	ws_sim_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_k4_all_pairs),
		cmocka_unit_test(test_k8_all_pairs),
		cmocka_unit_test(test_ecmp_spread_k4),
		cmocka_unit_test(test_ecmp_spread_k8),
		cmocka_unit_test(test_xxhash_known_answers),
		cmocka_unit_test(test_ecmp_seed_changes_paths),
	};
	return cmocka_run_group_tests_name("routing", tests, NULL, NULL);
}
