/* SPDX-License-Identifier: MIT */
/*
 * The kernel's own configuration sections, declared like any plugin's:
 * [sim], [nic], [switch], [output] and [failures].  Defaults reproduce the HPCC ns-3
 * RDMA simulator (see ../shared/REFERENCE-rdma.md and docs/config.md).
 */
#include <string.h>

#include "internal.h"

static const char *const serializations[] = { "auto", "exact", "ns", NULL };
static const char *const references[] = { "none", "ns3", NULL };
static const char *const ecmp_modes[] = { "auto", "xxhash", "ns3", NULL };
static const char *const switch_orders[] = { "descending", "ascending", NULL };
static const char *const nic_wakes[] = { "auto", "eligible", "ns3", NULL };
static const char *const rate_gaps[] = { "auto", "shift", "ns3", NULL };
static const char *const ecn_scopes[] = { "auto", "ect", "all", NULL };
static const char *const flow_records[] = { "all", "live", NULL };

const struct ws_param ws_sim_params[] = {
	WS_PARAM_UINT("seed", struct ws_sim_conf, seed, "1", "0", NULL,
		      "run seed: every random stream derives from it and a stable component id"),
	WS_PARAM_TIME("stop_time", struct ws_sim_conf, stop_time, "0s", NULL, NULL,
		      "stop at this simulated time; 0s runs until every flow completes"),
	WS_PARAM_UINT("max_events", struct ws_sim_conf, max_events, "0", "0", NULL,
		      "stop after this many events; 0 means no limit"),
	WS_PARAM_STRING("threads", struct ws_sim_conf, threads, "1",
			"threads one experiment runs on: a number, or auto (one per core); more than 1 partitions the fabric (docs/architecture.md, Partitions)"),
	WS_PARAM_STRING("partitions", struct ws_sim_conf, partitions, "",
			"partitions of the fabric: a number, or auto (one per 64 hosts, 4 to 64); 1: the sequential engine; unset: 1 with one thread and one rank, else auto; results depend on it, not on threads"),
	WS_PARAM_ENUM("reference", struct ws_sim_conf, reference, "none", references,
		      "ns3: follow the HPCC ns-3 simulator wherever warpsim differs (every part below left at auto); none: warpsim's own behaviour"),
	WS_PARAM_ENUM("serialization", struct ws_sim_conf, serialization, "auto", serializations,
		      "packet transmission times: exact (picoseconds) or ns (truncated to whole ns, as the reference); auto: ns under reference = ns3, else exact"),
	WS_PARAM_ENUM("ecmp", struct ws_sim_conf, ecmp, "auto", ecmp_modes,
		      "ECMP in updown and table: xxhash of the 5-tuple, or ns3 (the reference's MurmurHash3 and next-hop order); auto: ns3 under reference = ns3"),
	WS_PARAM_ENUM("ns3_switch_order", struct ws_sim_conf, ns3_switch_order, "descending", switch_orders,
		      "order of equal-cost switches under ecmp = ns3: descending node id (the reference's objects allocated top down, as glibc on Linux) or ascending"),
	WS_PARAM_ENUM("nic_wake", struct ws_sim_conf, nic_wake, "auto", nic_wakes,
		      "idle NIC wake-up: at the earliest pacing time of a flow that can send (eligible), or the reference's rule (ns3); auto: ns3 under reference = ns3"),
	WS_PARAM_ENUM("rate_gap", struct ws_sim_conf, rate_gap, "auto", rate_gaps,
		      "at a rate change the pending send gap is recomputed at the new rate (shift), or kept where the reference's CC keeps it (ns3); auto: ns3 under reference = ns3"),
	WS_PARAM_ENUM("ecn_scope", struct ws_sim_conf, ecn_scope, "auto", ecn_scopes,
		      "packets switches mark: ECN-capable data (ect), or all of a data queue, ACKs counted apart (all, the reference); auto: all under reference = ns3"),
	WS_PARAM_TIME("perturb", struct ws_sim_conf, perturb, "0s", "0s", "1us",
		      "noise-floor twin: each flow starts a random 0 .. perturb later than its workload asks (whole ps, drawn from perturb_seed and the flow id); 0s: off"),
	WS_PARAM_UINT("perturb_seed", struct ws_sim_conf, perturb_seed, "1", "0", NULL,
		      "seed of perturb's draws: another seed, another twin (the run seed is left alone, so ECN draws stay as they are)"),
	WS_PARAM_END
};

static const char *const window_modes[] = { "off", "max-bdp", "path-bdp", NULL };
static const char *const int_encodings[] = { "reference", "exact", NULL };
static const char *const transports[] = { "gbn", "sr", NULL };
static const char *const entropies[] = { "flow", "spray", "recycle", NULL };

const struct ws_param ws_nic_params[] = {
	WS_PARAM_SIZE("mtu", struct ws_nic_conf, mtu, "1052B", "64B", "9216B",
		      "wire bytes of a full data packet, headers included (payload = mtu - header)"),
	WS_PARAM_SIZE("header", struct ws_nic_conf, header, "52B", "0B", "512B",
		      "header bytes per data packet: 14 L2 + 20 IPv4 + 8 UDP + 10 transport"),
	WS_PARAM_SIZE("ack_size", struct ws_nic_conf, ack_size, "60B", "1B", "1500B",
		      "wire bytes of an ACK, NACK or CNP (the minimum frame they are padded to)"),
	WS_PARAM_SIZE("ack_header", struct ws_nic_conf, ack_header, "50B", "1B", "1500B",
		      "ACK bytes before padding; an ACK echoing INT is ack_header + INT bytes"),
	WS_PARAM_UINT("ack_interval", struct ws_nic_conf, ack_interval, "1", "1", "65535",
		      "the receiver ACKs every this many in-order data packets (and the last one)"),
	WS_PARAM_SIZE("ack_chunk", struct ws_nic_conf, ack_chunk, "4000B", "0B", NULL,
		      "also ACK when the next expected byte is a multiple of this; 0B disables"),
	WS_PARAM_TIME("nack_interval", struct ws_nic_conf, nack_interval, "500us", "0s", NULL,
		      "at most one NACK per this interval for the same expected byte"),
	WS_PARAM_TIME("rto", struct ws_nic_conf, rto, "1ms", "0s", NULL,
		      "retransmission timeout: go back to the last ACKed byte after this long without progress; 0s: none"),
	WS_PARAM_BOOL("rto_lossless", struct ws_nic_conf, rto_lossless, "false",
		      "also run the timeout when switches use PFC (the reference never times out)"),
	WS_PARAM_UINT("retry_limit", struct ws_nic_conf, retry_limit, "7", "0", "1000000",
		      "retries after timeouts before a flow is aborted, as RoCE's retry_cnt (aborted at timeout retry_limit + 1); 0: never"),
	WS_PARAM_ENUM("window", struct ws_nic_conf, window, "off", window_modes,
		      "sender window: off, the fabric's largest BDP, or the flow path's BDP"),
	WS_PARAM_BOOL("var_window", struct ws_nic_conf, var_window, "false",
		      "scale the kernel's window by current rate / line rate (a CC-set window is left alone)"),
	WS_PARAM_UINT("int_max_hops", struct ws_nic_conf, int_max_hops, "5", "1", "5",
		      "INT records a data packet has room for"),
	WS_PARAM_SIZE("int_hop_bytes", struct ws_nic_conf, int_hop_bytes, "8B", "1B", "64B",
		      "wire bytes per INT record"),
	WS_PARAM_SIZE("int_header", struct ws_nic_conf, int_header, "2B", "0B", "64B",
		      "wire bytes of the INT header"),
	WS_PARAM_ENUM("int_encoding", struct ws_nic_conf, int_encoding, "reference", int_encodings,
		      "how CCs read INT: reference (the widths and units below, counters wrap) or exact"),
	WS_PARAM_UINT("int_multi", struct ws_nic_conf, int_multi, "0", "0", "65536",
		      "unit multiplier of the byte and queue fields; 0: fastest host rate / 25 Gbps (the reference's INT_MULTI), at least 1, at most a data packet / int_bytes_unit"),
	WS_PARAM_UINT("int_time_bits", struct ws_nic_conf, int_time_bits, "24", "1", "64",
		      "bits of the INT timestamp (wraps at 2^bits units)"),
	WS_PARAM_UINT("int_bytes_bits", struct ws_nic_conf, int_bytes_bits, "20", "1", "64",
		      "bits of the INT tx byte counter"),
	WS_PARAM_UINT("int_qlen_bits", struct ws_nic_conf, int_qlen_bits, "17", "1", "64",
		      "bits of the INT queue length"),
	WS_PARAM_TIME("int_time_unit", struct ws_nic_conf, int_time_unit, "1ns", "1ps", "1s",
		      "unit of the INT timestamp"),
	WS_PARAM_SIZE("int_bytes_unit", struct ws_nic_conf, int_bytes_unit, "128B", "1B", "1GiB",
		      "unit of the INT tx byte counter, before int_multi"),
	WS_PARAM_SIZE("int_qlen_unit", struct ws_nic_conf, int_qlen_unit, "80B", "1B", "1GiB",
		      "unit of the INT queue length, before int_multi"),
	WS_PARAM_ENUM("transport", struct ws_nic_conf, transport, "gbn", transports,
		      "gbn: RoCE go-back-N (the receiver drops out-of-order data); sr: selective repeat as IRN "
		      "(out-of-order placement, selective ACKs, BDP-FC, two timeouts)"),
	WS_PARAM_UINT("sr_dupthresh", struct ws_nic_conf, sr_dupthresh, "3", "1", "65535",
		      "sr: a packet is lost once one this many or more above it was selectively ACKed "
		      "(1: IRN's rule, any later arrival; a flow raises it when it sees reordering)"),
	WS_PARAM_TIME("rto_low", struct ws_nic_conf, rto_low, "100us", "1ns", "100s",
		      "sr: timeout while at most rto_low_packets are in flight (IRN's RTO_low)"),
	WS_PARAM_TIME("rto_high", struct ws_nic_conf, rto_high, "320us", "1ns", "100s",
		      "sr: timeout otherwise (IRN's RTO_high)"),
	WS_PARAM_UINT("rto_low_packets", struct ws_nic_conf, rto_low_packets, "3", "0", "65535",
		      "sr: in-flight packets up to which rto_low applies (IRN's N)"),
	WS_PARAM_BOOL("rto_backoff", struct ws_nic_conf, rto_backoff, "true",
		      "sr: double the timeout after each timeout in a row, up to 64 times"),
	WS_PARAM_BOOL("bdp_fc", struct ws_nic_conf, bdp_fc, "true",
		      "sr: cap the packets in flight (IRN's BDP-FC)"),
	WS_PARAM_UINT("bdp_packets", struct ws_nic_conf, bdp_packets, "0", "0", "16777216",
		      "sr: the BDP-FC cap in packets; 0: the fabric's largest BDP in full packets, rounded up"),
	WS_PARAM_ENUM("entropy", struct ws_nic_conf, entropy, "flow", entropies,
		      "each data packet's entropy (UDP source port): flow (one per flow), spray (one of "
		      "entropy_values per packet), recycle (REPS: reuse values ACKed unmarked)"),
	WS_PARAM_UINT("entropy_values", struct ws_nic_conf, entropy_values, "256", "1", "65536",
		      "spray: the values a flow draws from; recycle: the values it keeps for reuse"),
	WS_PARAM_END
};

#define SW_BUFFER_TIER(t)                                                      \
	WS_PARAM_SIZE("buffer_tier" #t, struct ws_switch_conf, buffer_tier[t], "0B",  \
		      "0B", "4GiB", "shared packet buffer of each level-" #t " switch " \
		      "(1: leaf/ToR, 2: spine, 3: core); 0B: buffer")
#define SW_ECN_TIER(t)                                                         \
	WS_PARAM_STRING("ecn_tier" #t, struct ws_switch_conf, ecn_tier[t], "",     \
			"'KMIN KMAX PMAX' at every egress port of a level-" #t     \
			" switch, bytes as given (no rate scaling, ecn_map not "  \
			"consulted); empty: the rules above")

const struct ws_param ws_switch_params[] = {
	WS_PARAM_SIZE("buffer", struct ws_switch_conf, buffer, "32MiB", "1KiB", "4GiB",
		      "shared packet buffer per switch (where buffer_tierN is 0B)"),
	SW_BUFFER_TIER(1), SW_BUFFER_TIER(2), SW_BUFFER_TIER(3), SW_BUFFER_TIER(4),
	WS_PARAM_BOOL("pfc", struct ws_switch_conf, pfc, "true",
		      "lossless: PFC pause/resume per ingress (port, priority); false: drop-tail"),
	WS_PARAM_SIZE("pfc_reserve", struct ws_switch_conf, pfc_reserve, "4KiB", "0B", NULL,
		      "guaranteed buffer per ingress (port, priority), outside the shared pool"),
	WS_PARAM_SIZE("pfc_headroom", struct ws_switch_conf, pfc_headroom, "0B", "0B", NULL,
		      "headroom per ingress port for packets in flight after PAUSE; 0B: 3 x rate x delay"),
	WS_PARAM_UINT("pfc_alpha_shift", struct ws_switch_conf, pfc_alpha_shift, "3", "0", "16",
		      "dynamic threshold alpha = 2^-shift of the free shared buffer (one less per doubling of port rate over the host rate)"),
	WS_PARAM_SIZE("pfc_resume_offset", struct ws_switch_conf, pfc_resume_offset, "3KiB", "0B", NULL,
		      "RESUME when the ingress shared use is this far below the threshold"),
	WS_PARAM_SIZE("pfc_frame", struct ws_switch_conf, pfc_frame, "64B", "1B", "1500B",
		      "wire bytes of a PFC frame"),
	WS_PARAM_BOOL("ecn", struct ws_switch_conf, ecn, "true",
		      "RED/ECN marking at dequeue (only ECN-capable data, i.e. when the CC asks for ECN)"),
	WS_PARAM_SIZE("ecn_kmin", struct ws_switch_conf, ecn_kmin, "400KB", "0B", NULL,
		      "marking starts above this many bytes in the egress queue (at ecn_ref_rate)"),
	WS_PARAM_SIZE("ecn_kmax", struct ws_switch_conf, ecn_kmax, "1600KB", "0B", NULL,
		      "every packet is marked above this many bytes (at ecn_ref_rate)"),
	WS_PARAM_FLOAT("ecn_pmax", struct ws_switch_conf, ecn_pmax, "0.2", "0", "1",
		       "marking probability reached at kmax (linear from kmin)"),
	WS_PARAM_RATE("ecn_ref_rate", struct ws_switch_conf, ecn_ref_rate, "100Gbps", "0bps", NULL,
		      "kmin and kmax apply at this rate and scale linearly with a port's rate; 0bps: no scaling"),
	WS_PARAM_STRING("ecn_map", struct ws_switch_conf, ecn_map, "",
			"per-rate thresholds 'RATE KMIN KMAX PMAX; ...' (as the reference's KMIN/KMAX/PMAX_MAP); ports at other rates scale"),
	SW_ECN_TIER(1), SW_ECN_TIER(2), SW_ECN_TIER(3), SW_ECN_TIER(4),
	WS_PARAM_BOOL("ack_high_priority", struct ws_switch_conf, ack_high_priority, "false",
		      "ACKs and NACKs use the strict-priority control queue instead of their flow's priority"),
	WS_PARAM_UINT("ttl", struct ws_switch_conf, ttl, "64", "1", "255",
		      "switch hops before a packet is dropped as looping (the run then fails)"),
	WS_PARAM_BOOL("trim", struct ws_switch_conf, trim, "false",
		      "packet trimming (NDP, Ultra Ethernet): data the buffer would drop is cut to its header "
		      "and forwarded in the control class; the receiver NACKs it"),
	WS_PARAM_SIZE("trim_threshold", struct ws_switch_conf, trim_threshold, "0B", "0B", NULL,
		      "with trim: also trim data arriving at an egress queue holding more than this many bytes; 0B: only what the buffer refuses"),
	WS_PARAM_END
};

const struct ws_param ws_output_params[] = {
	WS_PARAM_STRING("dir", struct ws_output_conf, dir, "",
			"output directory; empty: out/<ini file name>; the -o option overrides it"),
	WS_PARAM_BOOL("fct", struct ws_output_conf, fct, "true",
		      "write fct.csv (one line per completed flow)"),
	WS_PARAM_BOOL("ports", struct ws_output_conf, ports, "false",
		      "write ports.csv (per-port counters: bytes, drops, marks, pauses, peak queue)"),
	WS_PARAM_BOOL("flows", struct ws_output_conf, flows, "false",
		      "write flows.csv (per-flow transport counters, unfinished flows included)"),
	WS_PARAM_TIME("trace_rates", struct ws_output_conf, trace_rates, "0s", "0s", "1s",
		      "sample every active flow's rate and window into rates.csv at this interval; 0s: off"),
	WS_PARAM_TIME("trace_queues", struct ws_output_conf, trace_queues, "0s", "0s", "1s",
		      "sample switch egress queues into queues.csv at this interval; 0s: off"),
	WS_PARAM_TIME("trace_util", struct ws_output_conf, trace_util, "0s", "0s", "1s",
		      "sample traced ports' utilization (share of the rate sent) into util.csv at this interval; 0s: off"),
	WS_PARAM_TIME("trace_start", struct ws_output_conf, trace_start, "0s", "0s", "1000s",
		      "simulated time of the first sample of every trace (skip an idle lead-in)"),
	WS_PARAM_STRING("trace_ports", struct ws_output_conf, trace_ports, "",
			"ports of queues.csv, util.csv, queue_dist.csv: NODE, NODE:PORT, FIRST-LAST, ...; empty: every switch port"),
	WS_PARAM_BOOL("fct_by_size", struct ws_output_conf, fct_by_size, "true",
		      "write fct_by_size.csv (slowdown mean/p50/p95/p99 per flow-size bucket)"),
	WS_PARAM_UINT("fct_size_buckets", struct ws_output_conf, fct_size_buckets, "20", "1", "1000",
		      "flow-size buckets of equal flow count (HPCC's analysis: 20, 5 % each)"),
	WS_PARAM_SIZE("trace_max_bytes", struct ws_output_conf, trace_max_bytes, "1GiB", "1KiB", NULL,
		      "largest rates.csv or queues.csv: a run whose trace would pass it stops with an error giving the estimate"),
	WS_PARAM_BOOL("fct_txt", struct ws_output_conf, fct_txt, "false",
		      "also write fct.txt as the HPCC ns-3 simulator does (hex source and destination IPs, ports, bytes, start, FCT and ideal FCT in ns) for its analysis scripts"),
	WS_PARAM_BOOL("timeline", struct ws_output_conf, timeline, "false",
		      "training workloads (llm, simai): also write timeline.json, compute and collective spans per GPU in the Chrome trace-event format (Perfetto, chrome://tracing)"),
	WS_PARAM_ENUM("flow_records", struct ws_output_conf, flow_records, "all", flow_records,
		      "all: keep every flow's record to the end; live: free the records of completed flows an accelerator modelled, in id order (memory follows live flows); not with flows, fct_txt"),
	WS_PARAM_BOOL("pfc", struct ws_output_conf, pfc, "false",
		      "write pfc.csv (every PFC PAUSE and RESUME a port sends or receives) and pfc_ports.csv (per-port counts and paused time)"),
	WS_PARAM_STRING("packets", struct ws_output_conf, packets, "",
			"write packets.csv, one row per packet event, for these packet kinds: all, or a list of data, ack, nack, cnp, pfc; empty: off"),
	WS_PARAM_STRING("packets_events", struct ws_output_conf, packets_events, "all",
			"events packets.csv records: all, or a list of enq, deq, recv, drop, lost, trim, ecn"),
	WS_PARAM_STRING("packets_flows", struct ws_output_conf, packets_flows, "",
			"flows packets.csv records: ID or FIRST-LAST, separated by blanks or commas; empty: every flow (and PFC frames, which have none)"),
	WS_PARAM_STRING("packets_ports", struct ws_output_conf, packets_ports, "",
			"ports packets.csv records: NODE, NODE:PORT, FIRST-LAST, ...; empty: every port, hosts included"),
	WS_PARAM_TIME("packets_start", struct ws_output_conf, packets_start, "0s", "0s", "1000s",
		      "packets.csv records events from this simulated time on"),
	WS_PARAM_TIME("packets_stop", struct ws_output_conf, packets_stop, "0s", "0s", "1000s",
		      "packets.csv records events before this simulated time; 0s: until the end"),
	WS_PARAM_SIZE("log_max_bytes", struct ws_output_conf, log_max_bytes, "1GiB", "1KiB", NULL,
		      "largest packets.csv or pfc.csv: the file stops at the last whole row below it, the run goes on, and summary.json says it was truncated"),
	WS_PARAM_END
};

const struct ws_param ws_failures_params[] = {
	WS_PARAM_STRING("events", struct ws_failures_conf, events, "",
			"failure events 'TIME ACTION TARGET' separated by ';' (docs/failures.md): "
			"e.g. '1ms down link 20:2; 3ms up link 20:2'; empty: none"),
	WS_PARAM_STRING("file", struct ws_failures_conf, file, "",
			"a file of failure events, one per line, '#' starts a comment "
			"(relative to the ini file's directory); empty: none"),
	WS_PARAM_TIME("reroute_delay", struct ws_failures_conf, reroute_delay, "0s", "0s", "1000s",
		      "detection and routing convergence: the routing rule hears of a link change "
		      "this long after it (0s: at once, local fast reroute)"),
	WS_PARAM_UINT("seed", struct ws_failures_conf, seed, "0", "0", NULL,
		      "seed of random link picks and loss draws; 0: derived from [sim] seed"),
	WS_PARAM_END
};

/* The kernel's own sections, in the order they are applied, described and
 * reported; the one list of them. */
static const struct {
	struct ws_section_info info;
	size_t conf;   /* offset of its config struct in struct ws_sim */
} sections[] = {
	{ { "sim", "run control: seed, stop time, event limit", ws_sim_params },
	  offsetof(struct ws_sim, simc) },
	{ { "nic", "host NICs and the RDMA transport: packet sizes, ACKs, NACKs, "
	    "RTO, window, INT, selective repeat, entropy", ws_nic_params },
	  offsetof(struct ws_sim, nicc) },
	{ { "switch", "switches: shared buffer, PFC, ECN marking, ACK priority, TTL, trimming",
	    ws_switch_params },
	  offsetof(struct ws_sim, swc) },
	{ { "output", "what is written where", ws_output_params },
	  offsetof(struct ws_sim, outc) },
	{ { "failures", "links and switches that fail: down/up, degraded rate, loss, "
	    "gray loss, at given times; reroute delay", ws_failures_params },
	  offsetof(struct ws_sim, failc) },
};

const struct ws_section_info *ws_kernel_section(size_t i)
{
	return i < WS_ARRAY_LEN(sections) ? &sections[i].info : NULL;
}

void *ws_kernel_section_conf(struct ws_sim *sim, size_t i)
{
	return i < WS_ARRAY_LEN(sections) ? (char *)sim + sections[i].conf : NULL;
}
