/* SPDX-License-Identifier: MIT */
/* Fuzz target: the llm workload's compute_table reader (layer fwd_ns
 * bwd_ns), for a 4-layer model on 32 GPUs (examples/llm.ini). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_file("table.txt", data, size);
	fuzz_sim("[topology]\nname = rail\ngpus_per_server = 8\nservers_per_unit = 4\n"
		 "units = 1\n[workload]\nname = llm\nmodel = gpt-7b\nlayers = 4\n"
		 "tp = 8\npp = 2\ndp = 2\nmicro_batches = 4\ncompute_table = table.txt\n",
		 false, false);
	return 0;
}
