/* SPDX-License-Identifier: MIT */
/* Fuzz target: the [failures] event parser (a file of events, one per
 * line) on a k = 4 fat-tree with the flows workload, routed by `updown`
 * (which handles failures): a schedule that loads is applied as the run
 * goes (links and switches down and up, rates, losses, the rule told a
 * reroute delay later). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_file("events.txt", data, size);
	static const char trace[] = "2\n0 5 3 100 100000 0\n4 1 3 100 100000 0\n";
	fuzz_file("trace.txt", (const uint8_t *)trace, sizeof trace - 1);
	fuzz_sim("[topology]\nname = fat-tree\nk = 4\n"
		 "[sim]\nstop_time = 1s\n"
		 "[workload]\nname = flows\nfile = trace.txt\n"
		 "[failures]\nfile = events.txt\nreroute_delay = 1us\n", false, true);
	return 0;
}
