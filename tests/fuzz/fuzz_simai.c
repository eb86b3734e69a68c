/* SPDX-License-Identifier: MIT */
/* Fuzz target: the SimAI workload-file reader, on a rail fabric of 2
 * servers x 8 GPUs (examples/simai.ini). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_file("simai.txt", data, size);
	fuzz_sim("[topology]\nname = rail\ngpus_per_server = 8\nservers_per_unit = 2\n"
		 "units = 1\n[workload]\nname = simai\nfile = simai.txt\n", false, false);
	return 0;
}
