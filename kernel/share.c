/* SPDX-License-Identifier: MIT */
/*
 * Sharing what an accelerator learned between runs (ABI 2.2): the
 * envelope around the accelerator's own bytes, so a sweep can hand one
 * run's knowledge to the next, in one process or over MPI.
 *
 * A blob is a sequence of parts, one per export, each:
 *   "WARPSIM-SHARE\0" (14 bytes), u32 format version, u64 share key,
 *   u64 payload length, the payload (the accelerator's share_export
 *   bytes), u64 XXH3-64 (seed 0) of everything before it in the part;
 * all little-endian.  The key says which runs can use the payload
 * (ws_sim_accel_share_key); the checksum catches a damaged transfer before
 * the accelerator parses anything.  Imports check every part first and
 * import none unless all are sound, so an error never leaves a run with
 * half a blob.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "internal.h"

#define SHARE_MAGIC "WARPSIM-SHARE" /* and its NUL: 14 bytes */
#define SHARE_MAGIC_LEN 14
#define SHARE_VERSION 1u
#define SHARE_HEADER (SHARE_MAGIC_LEN + 4 + 8 + 8)
#define SHARE_TRAILER 8

static uint64_t rd_u64(const unsigned char *p)
{
	uint64_t x = 0;
	for (int i = 7; i >= 0; i--)
		x = x << 8 | p[i];
	return x;
}

static void wr_u64(unsigned char *p, uint64_t x)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(x >> (8 * i));
}

/* The accel ops, if the plugin shares (all three ops), else NULL. */
static const struct ws_accel_ops *sharing_ops(const struct ws_sim *sim)
{
	if (!sim->slot[WS_KIND_ACCEL].present)
		return NULL;
	const struct ws_accel_ops *a = WS_ACCEL_OPS(sim);
	return a->share_key && a->share_import && a->share_export ? a : NULL;
}

bool ws_sim_accel_share_key(const struct ws_sim *sim, uint64_t *key)
{
	const struct ws_accel_ops *a = sharing_ops(sim);
	uint64_t k = 0;
	if (!a || !a->share_key(&sim->slot[WS_KIND_ACCEL].inst, &k))
		return false;
	/* the kernel's settings that shape every transient: packets, ACKs,
	 * INT, buffers, ECN, PFC, and how transmission times are rounded */
	k = ws_digest_params(k ^ 0x7368617265ull /* "share" */, ws_nic_params, &sim->nicc, NULL);
	k = ws_digest_params(k, ws_switch_params, &sim->swc, NULL);
	k = ws_digest_params(k, ws_sim_params, &sim->simc, "serialization");
	if (key)
		*key = k;
	return true;
}

/*
 * Part i of the blob at `off`: its payload, or an error naming the part,
 * where it is and what is wrong.
 */
static int share_part(const unsigned char *b, size_t len, size_t off, unsigned i,
		      uint64_t key, const unsigned char **payload, size_t *plen,
		      struct ws_err *err)
{
	size_t left = len - off;
	if (left < SHARE_MAGIC_LEN || memcmp(b + off, SHARE_MAGIC, SHARE_MAGIC_LEN)) {
		if (left < SHARE_MAGIC_LEN && !memcmp(b + off, SHARE_MAGIC, left))
			return ws_err_set(err, WS_EINVAL, "accel import: part %u (byte %zu) is "
					  "truncated in its header (%zu bytes)", i, off, left);
		return ws_err_set(err, WS_EINVAL, "accel import: part %u (byte %zu) is not "
				  "a warpsim share blob (no WARPSIM-SHARE header)", i, off);
	}
	if (left < SHARE_HEADER)
		return ws_err_set(err, WS_EINVAL, "accel import: part %u (byte %zu) is "
				  "truncated in its header (%zu bytes)", i, off, left);
	const unsigned char *h = b + off + SHARE_MAGIC_LEN;
	uint32_t version = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
			   (uint32_t)h[3] << 24;
	if (version != SHARE_VERSION)
		return ws_err_set(err, WS_EINVAL, "accel import: part %u (byte %zu) has format "
				  "version %" PRIu32 ", expected %u", i, off, version,
				  SHARE_VERSION);
	uint64_t pkey = rd_u64(h + 4), n = rd_u64(h + 12);
	if (n > left - SHARE_HEADER || left - SHARE_HEADER - n < SHARE_TRAILER)
		return ws_err_set(err, WS_EINVAL, "accel import: part %u (byte %zu) announces "
				  "%" PRIu64 " payload bytes but %zu bytes are left: truncated or "
				  "corrupt", i, off, n, left - SHARE_HEADER);
	size_t end = off + SHARE_HEADER + (size_t)n;
	if (XXH3_64bits(b + off, end - off) != rd_u64(b + end))
		return ws_err_set(err, WS_EINVAL, "accel import: part %u (byte %zu): checksum "
				  "mismatch (corrupt)", i, off);
	if (pkey != key)
		return ws_err_set(err, WS_EINVAL, "accel import: part %u (byte %zu) was learned "
				  "in another context (share key %016" PRIx64 ", this run's %016"
				  PRIx64 "): the accelerator, its parameters, the CC, its "
				  "parameters, [nic], [switch] or [sim] serialization differ",
				  i, off, pkey, key);
	*payload = b + off + SHARE_HEADER;
	*plen = (size_t)n;
	return WS_OK;
}

int ws_sim_accel_import(struct ws_sim *sim, const void *blob, size_t len,
			struct ws_err *err)
{
	if (!len)
		return WS_OK;
	if (!blob)
		return ws_err_set(err, WS_EINVAL, "accel import: no blob for %zu bytes", len);
	if (sim->started)
		return ws_err_set(err, WS_ESTATE, "accel import: the run has started; import "
				  "before ws_sim_run");
	uint64_t key;
	if (!ws_sim_accel_share_key(sim, &key))
		return ws_err_set(err, WS_EINVAL, "accel import: the accelerator '%s' shares "
				  "nothing between runs (wormhole with memo = true does)",
				  ws_sim_plugin_name(sim, WS_KIND_ACCEL));
	const struct ws_accel_ops *a = sharing_ops(sim);
	struct ws_inst *inst = &sim->slot[WS_KIND_ACCEL].inst;
	const unsigned char *b = blob;
	/* two passes: every part checked (envelope and payload), then imported */
	for (int pass = 0; pass < 2; pass++) {
		unsigned i = 1;
		for (size_t off = 0; off < len; i++) {
			const unsigned char *payload = NULL;
			size_t n = 0;
			int rc = share_part(b, len, off, i, key, &payload, &n, err);
			if (rc)
				return rc;
			ws_err_clear(err);
			rc = a->share_import(inst, payload, n, pass == 0, err);
			if (rc) {
				ws_err_prefix(err, "accel import: part %u (byte %zu): ", i, off);
				return rc;
			}
			off += SHARE_HEADER + n + SHARE_TRAILER;
		}
	}
	return WS_OK;
}

int ws_sim_accel_export(struct ws_sim *sim, void **blob, size_t *len, struct ws_err *err)
{
	*blob = NULL;
	*len = 0;
	uint64_t key;
	if (!ws_sim_accel_share_key(sim, &key))
		return WS_OK;
	void *data = NULL;
	size_t n = 0;
	ws_err_clear(err);
	int rc = sharing_ops(sim)->share_export(&sim->slot[WS_KIND_ACCEL].inst, &data, &n, err);
	if (rc || !n) {
		free(data);
		return rc;
	}
	unsigned char *b = malloc(SHARE_HEADER + n + SHARE_TRAILER);
	if (!b) {
		free(data);
		return ws_err_set(err, WS_ENOMEM, "accel export: out of memory for %zu bytes", n);
	}
	memcpy(b, SHARE_MAGIC, SHARE_MAGIC_LEN);
	for (int i = 0; i < 4; i++)
		b[SHARE_MAGIC_LEN + i] = (unsigned char)(SHARE_VERSION >> (8 * i));
	wr_u64(b + SHARE_MAGIC_LEN + 4, key);
	wr_u64(b + SHARE_MAGIC_LEN + 12, n);
	memcpy(b + SHARE_HEADER, data, n);
	free(data);
	wr_u64(b + SHARE_HEADER + n, XXH3_64bits(b, SHARE_HEADER + n));
	*blob = b;
	*len = SHARE_HEADER + n + SHARE_TRAILER;
	return WS_OK;
}
