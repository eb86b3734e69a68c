/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: a sweep's results.csv as `warpsim plot SWEEPDIR` reads it
 * (tools/csvin.c over libcsv, then the axes and metrics of
 * tools/plot_sweep.c), through `warpsim plot --data-only`.  The input is
 * the whole results.csv of a directory without summary.json.
 */
#include "fuzz.h"
#include "tools.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[600], out[600];
	snprintf(dir, sizeof dir, "%s/sweep", fuzz_dir());
	snprintf(out, sizeof out, "%s/plots", fuzz_dir());
	mkdir(dir, 0777);
	fuzz_file("sweep/results.csv", data, size);
	static const struct cli_cmd cmd = { "plot", "RUN...", "fuzz", plot_opts, cmd_plot };
	char *argv[] = { (char *)"plot", (char *)"--data-only", (char *)"-o", out, dir, NULL };
	/* plot's report on stdout, not wanted here: to /dev/null meanwhile */
	fflush(stdout);
	int saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
	if (null >= 0)
		dup2(null, STDOUT_FILENO);
	cmd_plot(5, argv, &cmd);
	fflush(stdout);
	if (saved >= 0)
		dup2(saved, STDOUT_FILENO);
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
	return 0;
}
