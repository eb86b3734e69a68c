/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: `warpsim plot`'s readers (the run's tables and summary.json's
 * node levels), through `warpsim plot --data-only`.  The input is split at
 * lines "--" into a run directory's fct.csv, fct_by_size.csv, ports.csv,
 * rates.csv and summary.json, in that order; the files the input does not
 * reach are absent.
 */
#include "fuzz.h"
#include "tools.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const files[] = { "fct.csv", "fct_by_size.csv", "ports.csv",
				     "rates.csv", "summary.json" };
#define N_FILES (sizeof files / sizeof *files)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char run[600], path[700], out[600];
	snprintf(run, sizeof run, "%s/run", fuzz_dir());
	snprintf(out, sizeof out, "%s/plots", fuzz_dir());
	mkdir(run, 0777);
	size_t at = 0;
	for (size_t k = 0; k < N_FILES; k++) {
		snprintf(path, sizeof path, "run/%s", files[k]);
		if (at > size) {
			snprintf(path, sizeof path, "%s/%s", run, files[k]);
			unlink(path);
			continue;
		}
		size_t end = at;
		while (end < size && !((end == at || data[end - 1] == '\n') &&
				       end + 3 <= size && !memcmp(data + end, "--\n", 3)))
			end++;
		fuzz_file(path, data + at, end - at);
		at = end < size ? end + 3 : size + 1;
	}
	static const struct cli_cmd cmd = { "plot", "RUN...", "fuzz", plot_opts, cmd_plot };
	char *argv[] = { (char *)"plot", (char *)"--data-only", (char *)"-o", out, run, NULL };
	int saved = fuzz_stdout_off(); /* plot's report, not wanted here */
	cmd_plot(5, argv, &cmd);
	fuzz_stdout_on(saved);
	return 0;
}
