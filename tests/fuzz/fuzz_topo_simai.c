/* SPDX-License-Identifier: MIT */
/* Fuzz target: the SimAI topology-file reader (topo/simai: the 6-field
 * header, then the reader it shares with topo/file) and the checks of
 * the servers and links it describes. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_file("topology.txt", data, size);
	fuzz_sim("[topology]\nname = simai\nfile = topology.txt\n", true, false);
	return 0;
}
