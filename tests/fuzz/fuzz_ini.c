/* SPDX-License-Identifier: MIT */
/* Fuzz target: the ini reader and every kernel and plugin parameter
 * parser (ws_cfg_parse_string, then ws_sim_new with the fabric only). */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	fuzz_sim(text, true, false);
	free(text);
	return 0;
}
