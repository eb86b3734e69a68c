#!/bin/sh
# cc-spray.sh: swift and nscc (issue 24) under [nic] transport = sr without
# PFC, switches trimming, on the k=8 fat-tree permutation of bench/cc.sh
# (128 x 16 MB, 100 Gb/s, 1 us links): one entropy per flow (ECMP
# collisions) against a new one per packet (spraying), the latter with the
# transport's default reordering tolerance ([nic] sr_dupthresh = 3) and a
# larger one.  NSCC with examples/nscc.ini's ECN band (30-120 KB, Pmax 1).
# Prints per run the FCT slowdown mean and p99, events, simulated time,
# packets resent, duplicates received and ECN marks, from summary.json.
#
# usage: bench/cc-spray.sh [CC...]        (default: swift nscc)
# DUPTHRESH (default 32): the larger sr_dupthresh.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
ws="$top/warpsim"
dup=${DUPTHRESH:-32}
mkdir -p "$out"
ccs=${*:-swift nscc}

"$here/gen-permutation.sh" 128 16000000 1 > "$out/perm128.txt"
cat > "$out/cc-spray.ini" <<EOF2
[topology]
name = fat-tree
k = 8
[nic]
transport = sr
[switch]
pfc = false
trim = true
[workload]
name = flows
file = perm128.txt
EOF2

json_num() { sed -n "s/.*\"$2\": \([0-9][0-9.e+-]*\).*/\1/p" "$1" | head -n 1; }

printf '%-6s %-8s %5s %9s %8s %10s %7s %9s %9s %9s\n' cc entropy dupth slow_mean slow_p99 events sim_ms resent dups ecn_marks
for cc in $ccs; do
	extra=""
	[ "$cc" = nscc ] && extra="--set switch.ecn_kmin=30KB --set switch.ecn_kmax=120KB --set switch.ecn_pmax=1"
	for run in "flow 3" "spray 3" "spray $dup"; do
		# shellcheck disable=SC2086
		set -- $run
		o="$out/cc-spray-$cc-$1-$2"
		# shellcheck disable=SC2086
		"$ws" run "$out/cc-spray.ini" -q --no-progress -o "$o" --set cc.name="$cc" \
			--set nic.entropy="$1" --set nic.sr_dupthresh="$2" $extra
		s="$o/summary.json"
		printf '%-6s %-8s %5s %9.3f %8.3f %10s %7.2f %9s %9s %9s\n' "$cc" "$1" "$2" \
			"$(sed -n '/fct_slowdown/,/}/p' "$s" | json_num /dev/stdin mean)" \
			"$(sed -n '/fct_slowdown/,/}/p' "$s" | json_num /dev/stdin p99)" \
			"$(json_num "$s" events)" \
			"$(awk -v t="$(json_num "$s" sim_time_ps)" 'BEGIN { print t / 1e9 }')" \
			"$(json_num "$s" retransmitted_packets)" "$(json_num "$s" duplicates_received)" \
			"$(json_num "$s" ecn_marks)"
	done
done
