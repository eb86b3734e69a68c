/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: importing an accelerator's shared knowledge
 * (ws_sim_accel_import: kernel/share.c's envelope, then the wormhole memo
 * table inside it, plugins/accel/wormhole/memo.c), into a wormhole run on
 * a k = 4 fat-tree.  Each input is imported three ways into a new run:
 * as a blob; as the payload of a sound part (this run's context, a valid
 * checksum), so the memo table's reader sees it whatever the envelope
 * check would have refused; and after a sound part, as a second part.  A
 * run whose import succeeded then runs for 10 us.
 */
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "fuzz.h"

#define INI "[topology]\nname = fat-tree\nk = 4\n[cc]\nname = dcqcn\n" \
	    "[accel]\nname = wormhole\n[workload]\nname = flows\nfile = trace.txt\n"
#define HEADER 34 /* "WARPSIM-SHARE\0", version, key, payload length */

/* A part of this scenario's context, from a run of it (its envelope is
 * reused around the inputs); built once. */
static unsigned char *sound;
static size_t sound_len;

static void make_sound(void)
{
	static const char trace[] = "2\n0 2 3 100 2000000 0\n1 2 3 100 2000000 0\n";
	fuzz_file("trace.txt", (const uint8_t *)trace, sizeof trace - 1);
	struct ws_sim *sim = fuzz_sim_new(INI, false);
	struct ws_err err;
	void *blob = NULL;
	size_t len = 0;
	if (!sim || ws_sim_run(sim, WS_TIME_NEVER, &err) ||
	    ws_sim_accel_export(sim, &blob, &len, &err) || len < HEADER + 8)
		abort(); /* the scenario must learn something */
	sound = blob;
	sound_len = len;
	ws_sim_free(sim);
}

static void import(const void *blob, size_t len)
{
	struct ws_sim *sim = fuzz_sim_new(INI, false);
	struct ws_err err;
	if (sim && !ws_sim_accel_import(sim, blob, len, &err))
		fuzz_sim_run(sim);
	ws_sim_free(sim);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!sound)
		make_sound();
	import(data, size);
	unsigned char *b = malloc(sound_len + HEADER + size + 8);
	if (!b)
		return 0;
	/* the input as the payload of a part of this context */
	memcpy(b, sound, HEADER - 8);
	for (int i = 0; i < 8; i++)
		b[HEADER - 8 + i] = (unsigned char)((uint64_t)size >> (8 * i));
	if (size)
		memcpy(b + HEADER, data, size);
	uint64_t sum = XXH3_64bits(b, HEADER + size);
	for (int i = 0; i < 8; i++)
		b[HEADER + size + i] = (unsigned char)(sum >> (8 * i));
	import(b, HEADER + size + 8);
	/* a sound part, then the input */
	memcpy(b, sound, sound_len);
	if (size)
		memcpy(b + sound_len, data, size);
	import(b, sound_len + size);
	free(b);
	return 0;
}
