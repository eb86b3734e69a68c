/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: a sweep's results.csv as `warpsim plot SWEEPDIR` reads it
 * (tools/csvin.c over libcsv, then the axes and metrics of
 * tools/plot_sweep.c), through `warpsim plot --data-only`.  The input is
 * the whole results.csv of a directory without summary.json.
 */
#include "fuzz.h"
#include "tools.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[600], out[600];
	snprintf(dir, sizeof dir, "%s/sweep", fuzz_dir());
	snprintf(out, sizeof out, "%s/plots", fuzz_dir());
	mkdir(dir, 0777);
	fuzz_file("sweep/results.csv", data, size);
	static const struct cli_cmd cmd = { "plot", "RUN...", "fuzz", plot_opts, cmd_plot };
	char *argv[] = { (char *)"plot", (char *)"--data-only", (char *)"-o", out, dir, NULL };
	int saved = fuzz_stdout_off(); /* plot's report, not wanted here */
	cmd_plot(5, argv, &cmd);
	fuzz_stdout_on(saved);
	return 0;
}
