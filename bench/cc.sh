#!/bin/sh
# cc.sh: each congestion control's cost and outcome on two scenarios,
# packet level, no acceleration:
#   permutation  k=8 fat-tree (128 hosts, 100 Gb/s, 1 us links), a random
#                permutation of 128 x 16 MB flows (bench/kernel.sh's)
#   incast64     the same fabric, 64 hosts of pods 4-7 sending 4 MB each to
#                host 0 at once
# Prints events, simulated time, wall time, events/s, mean and p99 FCT
# slowdown, PFC pauses and drops, from each run's summary.json; for the
# incast also the queue towards host 0 (edge switch 128, port 0) from a
# second run with [output] trace_queues = 1us: its average over the middle
# half of the incast (after convergence, before the tail) and its peak.
#
# usage: bench/cc.sh [CC...]      (default: every CC warpsim finds)
# DCTCP runs with its published ECN setting (Kmin = Kmax = 300 KB, Pmax = 1
# at 100 Gb/s), TIMELY with ACKs in the strict-priority queue, as the
# reference runs them; NSCC with examples/nscc.ini's band (30-120 KB, Pmax
# 1: marks start below its target queue); the others with the defaults
# (DCQCN's RED band).
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
awk 'BEGIN { print 64; for (i = 64; i < 128; i++) printf "%d 0 3 100 4000000 0\n", i }' \
	> "$out/incast64.txt"

json_num() { sed -n "s/.*\"$2\": \([0-9][0-9.e+-]*\).*/\1/p" "$1" | head -n 1; }

# queue_stats QUEUES_CSV END_NS: "mean_KB peak_KB" of node 128 port 0 over
# (END/4, 3 END/4), a missing sample being an empty queue
queue_stats() {
	awk -F, -v end="$2" 'NR > 1 && $2 == 128 && $3 == 0 { q[int($1 + 0.5)] = $4 }
		END { lo = end / 4; hi = 3 * end / 4; n = 0; sum = 0; peak = 0
			for (t = 0; t <= end; t += 1000) {
				v = (t in q) ? q[t] : 0
				if (v > peak) peak = v
				if (t >= lo && t < hi) { sum += v; n++ }
			}
			printf "%.1f %.1f", n ? sum / n / 1e3 : 0, peak / 1e3 }' "$1"
}

printf '%-7s %-12s %10s %10s %8s %9s %9s %9s %8s %6s %8s %8s\n' cc scenario events sim_ms wall_s Mevents/s slow_mean slow_p99 pauses drops q_mean_KB q_peak_KB
for cc in $ccs; do
	extra=""
	case $cc in
	dctcp) extra="--set switch.ecn_kmin=300KB --set switch.ecn_kmax=300KB --set switch.ecn_pmax=1" ;;
	timely) extra="--set switch.ack_high_priority=true" ;;
	nscc) extra="--set switch.ecn_kmin=30KB --set switch.ecn_kmax=120KB --set switch.ecn_pmax=1" ;;
	esac
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
		qm=- qp=-
		if [ "$sc" = incast64 ]; then
			# shellcheck disable=SC2086
			"$ws" run "$out/cc-$cc-$sc.ini" -o "$out/cc-$cc-$sc-q" --quiet --no-progress \
				--set output.trace_queues=1us $extra || true
			set -- $(queue_stats "$out/cc-$cc-$sc-q/queues.csv" \
				"$(json_num "$s" sim_time_ps | awk '{ printf "%d", int($1 / 1e6) * 1000 }')")
			qm=$1 qp=$2
		fi
		awk -v cc="$cc" -v sc="$sc" -v e="$(json_num "$s" events)" \
		    -v t="$(json_num "$s" sim_time_ps)" -v w="$(json_num "$s" run_s)" \
		    -v m="$(sed -n '/fct_slowdown/,/}/p' "$s" | json_num /dev/stdin mean)" \
		    -v p="$(sed -n '/fct_slowdown/,/}/p' "$s" | json_num /dev/stdin p99)" \
		    -v pa="$(json_num "$s" pfc_pauses)" -v d="$(json_num "$s" drops)" \
		    -v qm="$qm" -v qp="$qp" 'BEGIN {
			printf "%-7s %-12s %10d %10.3f %8.3f %9.2f %9.3f %9.3f %8d %6d %8s %8s\n",
			       cc, sc, e, t / 1e9, w, e / w / 1e6, m, p, pa, d, qm, qp }'
	done
done
