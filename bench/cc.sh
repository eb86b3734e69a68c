#!/bin/sh
# cc.sh: each congestion control's cost and outcome on two scenarios,
# packet level, no acceleration:
#   permutation  k=8 fat-tree (128 hosts, 100 Gb/s, 1 us links), a random
#                permutation of 128 x 16 MB flows (bench/kernel.sh's)
#   incast64     the same fabric, 64 hosts of pods 4-7 sending 1 MB each to
#                host 0 at once
# Prints events, simulated time, wall time, events/s, mean and p99 FCT
# slowdown, PFC pauses and drops, from each run's summary.json.
#
# usage: bench/cc.sh [CC...]      (default: every CC warpsim finds)
# DCTCP runs with its published ECN setting (Kmin = Kmax = 300 KB, Pmax = 1
# at 100 Gb/s); the others with the defaults (DCQCN's 400 KB / 1600 KB / 0.2).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
ws="$top/warpsim"
mkdir -p "$out"

ccs="$*"
if [ -z "$ccs" ]; then
	ccs=$("$ws" plugins | awk '/^cc:/ { on = 1; next } /^[a-z]+:$/ { on = 0 }
		on && /^  [a-z]/ { print $1 }' | grep -v '^none$' | tr '\n' ' ')
fi

"$here/gen-permutation.sh" 128 16000000 1 > "$out/perm128.txt"
awk 'BEGIN { print 64; for (i = 64; i < 128; i++) printf "%d 0 3 100 1000000 0\n", i }' \
	> "$out/incast64.txt"

json_num() { sed -n "s/.*\"$2\": \([0-9.e+-]*\).*/\1/p" "$1" | head -n 1; }

printf '%-7s %-12s %10s %10s %8s %9s %9s %9s %8s %6s\n' cc scenario events sim_ms wall_s Mevents/s slow_mean slow_p99 pauses drops
for cc in $ccs; do
	extra=""
	if [ "$cc" = dctcp ]; then
		extra="--set switch.ecn_kmin=300KB --set switch.ecn_kmax=300KB --set switch.ecn_pmax=1"
	fi
	for sc in permutation incast64; do
		trace=perm128.txt
		[ "$sc" = incast64 ] && trace=incast64.txt
		cat > "$out/cc-$cc-$sc.ini" <<EOF2
[topology]
name = fat-tree
k = 8
[cc]
name = $cc
[workload]
name = flows
file = $trace
EOF2
		# shellcheck disable=SC2086
		"$ws" run "$out/cc-$cc-$sc.ini" -o "$out/cc-$cc-$sc" --quiet --no-progress $extra || true
		s="$out/cc-$cc-$sc/summary.json"
		awk -v cc="$cc" -v sc="$sc" -v e="$(json_num "$s" events)" \
		    -v t="$(json_num "$s" sim_time_ps)" -v w="$(json_num "$s" run_s)" \
		    -v m="$(sed -n '/fct_slowdown/,/}/p' "$s" | json_num /dev/stdin mean)" \
		    -v p="$(sed -n '/fct_slowdown/,/}/p' "$s" | json_num /dev/stdin p99)" \
		    -v pa="$(json_num "$s" pfc_pauses)" -v d="$(json_num "$s" drops)" 'BEGIN {
			printf "%-7s %-12s %10d %10.3f %8.3f %9.2f %9.3f %9.3f %8d %6d\n",
			       cc, sc, e, t / 1e9, w, e / w / 1e6, m, p, pa, d }'
	done
done
