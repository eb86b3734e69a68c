/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: `warpsim sweep`'s spec reader.  The input is a sweep spec
 * (a scenario ini with a [sweep] section of axes, zip lines, ranges and
 * quoted values); it is read, its grid made and the first experiments'
 * configurations built, as the sweep does before validating them.
 */
#include "fuzz.h"
#include "tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *spec = fuzz_file("spec.ini", data, size);
	size_t n;
	struct ws_err err;
	ws_err_clear(&err);
	tool_sweep_plan(spec, 8, &n, &err);
	return 0;
}
