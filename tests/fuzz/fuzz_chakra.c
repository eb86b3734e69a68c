/* SPDX-License-Identifier: MIT */
/* Fuzz target: the Chakra trace reader (plugins/workload/chakra.c): the
 * input is the trace of both ranks of a two-rank run on a k = 4 fat-tree,
 * read, matched, built and run for 10 us.  Built with protobuf-c only. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_file("t.0.et", data, size);
	fuzz_file("t.1.et", data, size);
	fuzz_sim("[topology]\nname = fat-tree\nk = 4\n[workload]\nname = chakra\n"
		 "prefix = t\nranks = 2\ngpus_per_server = 1\n", false, true);
	return 0;
}
