/* SPDX-License-Identifier: MIT */
/* Fuzz target: the flow-size CDF reader of the cdf workload (HPCC layout,
 * 'size_bytes cumulative_percent' per line), drawing 50 flows on a k = 4
 * fat-tree from a CDF that loads, then 10 us of simulation. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_file("cdf.txt", data, size);
	fuzz_sim("[topology]\nname = fat-tree\nk = 4\n"
		 "[workload]\nname = cdf\nfile = cdf.txt\nload = 0.5\nflows = 50\n",
		 false, true);
	return 0;
}
