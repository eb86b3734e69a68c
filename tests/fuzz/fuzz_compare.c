/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: `warpsim compare`'s readers.  The input is split at its
 * first line "--" into summary.json (before) and fct.csv (after) of one run
 * directory, compared with itself; without that line it is summary.json and
 * fct.csv is a valid one-flow file.
 */
#include "fuzz.h"
#include "compare.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char fct[] =
	"flow_id,src,dst,bytes,prio,start_ns,end_ns,fct_ns,ideal_fct_ns,slowdown,tag\n"
	"0,0,5,1000,3,0.000,1000.000,1000.000,500.000,2.000000,0\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut = size, rest = size;
	for (size_t i = 0; i + 3 <= size; i++)
		if ((i == 0 || data[i - 1] == '\n') && !memcmp(data + i, "--\n", 3)) {
			cut = i;
			rest = i + 3;
			break;
		}
	char run[600];
	snprintf(run, sizeof run, "%s/run", fuzz_dir());
	mkdir(run, 0777);
	fuzz_file("run/summary.json", data, cut);
	if (cut < size)
		fuzz_file("run/fct.csv", data + rest, size - rest);
	else
		fuzz_file("run/fct.csv", (const uint8_t *)fct, sizeof fct - 1);
	struct ws_compare c;
	struct ws_err err;
	ws_err_clear(&err);
	ws_compare_runs(run, run, &c, NULL, &err);
	return 0;
}
