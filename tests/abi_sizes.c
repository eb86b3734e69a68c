/* SPDX-License-Identifier: MIT */
/*
 * The layout facts of the plugin ABI, one per line, for tests/test_abi.sh:
 * the version, the build signature, and the size of every struct the ABI
 * passes.  "grow" marks the structs that may grow by appending fields under
 * a minor bump (they carry their size: ops tables, the descriptor, the
 * caller-allocated structs of WS_INIT_SIZE, the library's info records);
 * any other size change needs a major bump.
 */
#include <inttypes.h>
#include <stdio.h>

#include <warpsim/dragonfly.h>
#include <warpsim/warpsim.h>

#define SIZE(t, grow) printf("size %-26s %4zu%s\n", #t, sizeof(struct t), (grow) ? " grow" : "")

int main(void)
{
	printf("abi %d.%d\n", WS_ABI_MAJOR, WS_ABI_MINOR);
	printf("build_sig 0x%016" PRIx64 "\n", (uint64_t)WS_BUILD_SIG);
	SIZE(ws_err, 0);
	SIZE(ws_owner, 0);
	SIZE(ws_evh, 0);
	SIZE(ws_rng, 0);
	SIZE(ws_df_geom, 0);
	SIZE(ws_node, 0);
	SIZE(ws_fabric, 0);
	SIZE(ws_hop, 0);
	SIZE(ws_int_hop, 0);
	SIZE(ws_pkt, 0);
	SIZE(ws_param, 0);
	SIZE(ws_inst, 0);
	SIZE(ws_cc_flow, 0);
	SIZE(ws_cc_ack, 0);
	SIZE(ws_int_format, 1);
	SIZE(ws_int_delta, 1);
	SIZE(ws_plugin, 1);
	SIZE(ws_topo_ops, 1);
	SIZE(ws_routing_ops, 1);
	SIZE(ws_cc_ops, 1);
	SIZE(ws_accel_ops, 1);
	SIZE(ws_workload_ops, 1);
	SIZE(ws_opts, 1);
	SIZE(ws_flow_spec, 1);
	SIZE(ws_flow_info, 1);
	SIZE(ws_sim_stats, 1);
	SIZE(ws_fct_stats, 1);
	SIZE(ws_port_info, 1);
	SIZE(ws_node_spec, 1);
	SIZE(ws_freeze_set, 1);
	SIZE(ws_cc_lab_spec, 1);
	SIZE(ws_section_info, 1);
	SIZE(ws_plugin_info, 1);
	return 0;
}
