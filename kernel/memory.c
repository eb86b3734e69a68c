/* SPDX-License-Identifier: MIT */
/*
 * Refusing the impossible up front: before a topology or a workload
 * allocates for what its parameters ask, it hands the kernel an estimate,
 * and the kernel compares it with the memory the run may take: the
 * program's limit (ws_opts.max_memory, `--max-memory`), the memory the
 * machine has available (MemAvailable of /proc/meminfo), what the
 * address-space limit (RLIMIT_AS, `ulimit -v`) leaves and what the control
 * group (a container's memory limit) leaves.  A configuration
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

/* The first number in a file, or UINT64_MAX ("max", no file). */
static uint64_t file_u64(const char *dir, const char *sub, const char *name)
{
	char path[1024];
	snprintf(path, sizeof path, "%s%s/%s", dir, sub, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return UINT64_MAX;
	uint64_t v;
	if (fscanf(f, "%" SCNu64, &v) != 1)
		v = UINT64_MAX;
	fclose(f);
	return v;
}

/*
 * Memory left in this process's control group (a container's limit, which
 * MemAvailable does not show): cgroup v2 memory.max - memory.current, or v1
 * memory.limit_in_bytes - memory.usage_in_bytes, looked up under the
 * group's path and, as seen from inside a container, at the mount's root.
 */
static uint64_t cgroup_left(void)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return UINT64_MAX;
	char line[1024], v2[1024] = "", v1[1024] = "";
	bool has_v1 = false;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "0::", 3))
			snprintf(v2, sizeof v2, "%s", line + 3);
		char *m = strstr(line, ":memory:");
		if (m) {
			snprintf(v1, sizeof v1, "%s", m + 8);
			has_v1 = true;
		}
	}
	fclose(f);
	const char *dir = has_v1 ? "/sys/fs/cgroup/memory" : "/sys/fs/cgroup";
	const char *lim = has_v1 ? "memory.limit_in_bytes" : "memory.max";
	const char *use = has_v1 ? "memory.usage_in_bytes" : "memory.current";
	const char *subs[2] = { has_v1 ? v1 : v2, "" };
	for (int i = 0; i < 2; i++) {
		uint64_t limit = file_u64(dir, subs[i], lim);
		if (limit == UINT64_MAX)
			continue;
		if (limit >= (1ull << 60))
			return UINT64_MAX;
		uint64_t used = file_u64(dir, subs[i], use);
		return used == UINT64_MAX ? limit : limit > used ? limit - used : 0;
	}
	return UINT64_MAX;
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
	} limit[4] = {
		{ sim->opts.max_memory ? sim->opts.max_memory : UINT64_MAX,
		  "the limit given (--max-memory)" },
		{ meminfo_bytes("MemAvailable"), "available (MemAvailable)" },
		{ address_space_left(), "left under the address-space limit (RLIMIT_AS)" },
		{ cgroup_left(), "left in this process's control group (a container's memory limit)" },
	};
	for (int i = 0; i < 4; i++) {
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
