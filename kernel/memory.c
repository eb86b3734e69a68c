/* SPDX-License-Identifier: MIT */
/*
 * Refusing the impossible up front: before a topology or a workload
 * allocates for what its parameters ask, it hands the kernel an estimate,
 * and the kernel compares it with the memory the run may take: the
 * program's limit (ws_opts.max_memory, `--max-memory`), the memory the
 * machine has available (MemAvailable of /proc/meminfo) and what the
 * address-space limit (RLIMIT_AS, `ulimit -v`) leaves.  A configuration
 * past any of them is an error naming the estimate and the limit, instead
 * of an OOM kill or an abort minutes later.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"

/* A "Key: N kB" line of /proc/meminfo in bytes, or UINT64_MAX. */
static uint64_t meminfo_bytes(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return UINT64_MAX;
	char line[256];
	uint64_t kib = UINT64_MAX;
	size_t kl = strlen(key);
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, kl) && line[kl] == ':' &&
		    sscanf(line + kl + 1, "%" SCNu64, &kib) == 1) {
			kib *= 1024;
			break;
		}
	fclose(f);
	return kib;
}

/* Address space left under RLIMIT_AS, or UINT64_MAX without a limit. */
static uint64_t address_space_left(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	uint64_t used = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		unsigned long pages;
		if (fscanf(f, "%lu", &pages) == 1)
			used = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
		fclose(f);
	}
	return rl.rlim_cur > used ? rl.rlim_cur - used : 0;
}

uint64_t ws_mem_flow_bytes(const struct ws_sim *sim)
{
	const struct ws_cc_ops *cops = WS_CC_OPS(sim);
	return sizeof(struct ws_flow) + (cops ? cops->flow_state_size : 0) +
	       sizeof(struct ws_flow *);
}

int ws_mem_check(struct ws_sim *sim, uint64_t bytes, uint64_t flows,
		 const char *what, struct ws_err *err)
{
	uint64_t per_flow = ws_mem_flow_bytes(sim);
	uint64_t need = bytes;
	if (flows > (UINT64_MAX - need) / per_flow)
		need = UINT64_MAX;
	else
		need += flows * per_flow;
	struct {
		uint64_t bytes;
		const char *name;
	} limit[3] = {
		{ sim->opts.max_memory ? sim->opts.max_memory : UINT64_MAX,
		  "the limit given (--max-memory)" },
		{ meminfo_bytes("MemAvailable"), "available (MemAvailable)" },
		{ address_space_left(), "left under the address-space limit (RLIMIT_AS)" },
	};
	for (int i = 0; i < 3; i++) {
		if (need <= limit[i].bytes)
			continue;
		char fl[96] = "";
		if (flows)
			snprintf(fl, sizeof fl, " (%" PRIu64 " flows at %" PRIu64 " bytes "
				 "each included)", flows, per_flow);
		return ws_err_set(err, WS_ENOMEM, "%s needs an estimated %.3g GB%s, "
				  "more than the %.3g GB %s", what,
				  need == UINT64_MAX ? 1.8e10 : (double)need / 1e9, fl,
				  (double)limit[i].bytes / 1e9, limit[i].name);
	}
	return WS_OK;
}

/* Bytes of the fabric for `nodes` and `ports` (every node a switch or a
 * host with its NIC: an upper bound of ws_fabric_bytes). */
uint64_t ws_mem_fabric_bytes(const struct ws_sim *sim, uint64_t nodes,
			     uint64_t ports)
{
	return nodes * (sizeof *sim->nodes + sizeof *sim->aux + sizeof *sim->hosts +
			sizeof *sim->sws) +
	       ports * (sizeof *sim->ports + sizeof *sim->peer_node + sizeof *sim->nics);
}
