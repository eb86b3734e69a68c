/* SPDX-License-Identifier: MIT */
/* Fuzz target: the wormhole accelerator's memo-database reader
 * (wh_memo_load, plugins/accel/wormhole/memo.c), as it loads a memo file
 * kept across runs. */
#include "fuzz.h"
#include "memo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("memo.db", data, size);
	struct wh_memo *m = wh_memo_new();
	if (!m)
		return 0;
	char why[512];
	wh_memo_load(m, path, why, sizeof why);
	wh_memo_free(m);
	return 0;
}
