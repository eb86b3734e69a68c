/* SPDX-License-Identifier: MIT */
/*
 * Checks of what the training workloads (llm, simai) write, shared by their
 * tests: breakdown.csv's identities, and timeline.json parsed, its spans
 * checked against collectives.csv and breakdown.csv.
 */
#ifndef WARPSIM_TESTS_COLLCHECK_H
#define WARPSIM_TESTS_COLLCHECK_H

#include <stdint.h>

/* breakdown.csv of `dir` (iterations.csv beside it): each iteration's row
 * is the iteration, its parts sum to it exactly, its layer rows sum to its
 * parts exactly.  Returns the number of iterations. */
unsigned cc_check_breakdown(const char *dir);
/* A column of the "all" row of iteration `iter` and `scope`, in ps. */
uint64_t cc_breakdown_total(const char *dir, unsigned iter, const char *scope,
			    const char *col);
/* timeline.json of `dir`: valid JSON; no two spans of one thread overlap;
 * each collective's spans start and end as its row of collectives.csv
 * says, one on each of its GPUs (every GPU has a track); GPU 0's compute,
 * overlap and exposed time as breakdown.csv's gpu0 rows sum them.
 * Returns the number of spans. */
unsigned cc_check_timeline(const char *dir);

#endif
