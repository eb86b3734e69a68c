/* SPDX-License-Identifier: MIT */
/*
 * Fuzz targets, one per parser of warpsim's inputs (tests/fuzz/README.md).
 * Each target file defines LLVMFuzzerTestOneInput(); built with
 * `-fsanitize=fuzzer` (tests/fuzz/run.sh) libFuzzer drives it; built
 * without (make check, AFL++ with `@@`), fuzz.c's main replays the files
 * and directories named on the command line, in name order.
 */
#ifndef WS_FUZZ_H
#define WS_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <warpsim/warpsim.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A scratch directory of this process, removed at exit. */
const char *fuzz_dir(void);
/* Write `data` to <fuzz_dir>/<name>; returns the path (static storage). */
const char *fuzz_file(const char *name, const uint8_t *data, size_t size);
/* stdout to /dev/null until fuzz_stdout_on (a command's report, not
 * wanted by a target); returns what fuzz_stdout_on restores. */
int fuzz_stdout_off(void);
void fuzz_stdout_on(int saved);
/* Load and build the simulation of `ini` (relative paths in fuzz_dir) as
 * warpsim run would, with a small memory limit, then free it.  With
 * `run`, also run it for at most 10 us of simulated time. */
void fuzz_sim(const char *ini, bool fabric_only, bool run);
/* The same steps apart: the simulation (NULL if the ini is refused; the
 * caller frees it), and a run of it for 10 us of simulated time. */
struct ws_sim *fuzz_sim_new(const char *ini, bool fabric_only);
int fuzz_sim_run(struct ws_sim *sim);

#endif
