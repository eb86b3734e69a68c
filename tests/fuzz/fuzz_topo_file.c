/* SPDX-License-Identifier: MIT */
/* Fuzz target: the topology-file reader (the HPCC simulator's layout) and
 * the checks of the graph it describes. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_file("topology.txt", data, size);
	fuzz_sim("[topology]\nname = file\nfile = topology.txt\n", true, false);
	return 0;
}
