/* SPDX-License-Identifier: MIT */
/* Fuzz target: the flow-trace reader of the flows workload (HPCC layout),
 * on a k = 4 fat-tree; a trace that loads runs for 10 us. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_file("trace.txt", data, size);
	fuzz_sim("[topology]\nname = fat-tree\nk = 4\n"
		 "[workload]\nname = flows\nfile = trace.txt\n", false, true);
	return 0;
}
