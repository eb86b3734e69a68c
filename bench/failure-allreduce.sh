#!/bin/sh
# failure-allreduce.sh: what one failed spine link costs a ring all-reduce
# (issue 23's target).  examples/failure-allreduce.ini: a 64-GPU, 2-unit
# rail fabric (400 Gb/s), a 64 MiB ring all-reduce (SimAI file), the link
# of leaf 64 to spine 80 down at 300 us.  Prints per case the iteration
# time, the bus bandwidth (NCCL's all-reduce busbw: S x 2 (n-1) / n / t),
# flows done and aborted, drops by cause and timeouts:
#   healthy       no failure
#   reroute 0     the fabric converges at once (local fast reroute)
#   reroute 50ms  a routing protocol's convergence, [nic] rto = 1ms (default)
#   ... rto 16ms  the same with a longer transport timeout
#   spray ...     the same cases with [routing] lb = spray
# usage: bench/failure-allreduce.sh    Outputs go to bench/out/failure-allreduce/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/failure-allreduce
mkdir -p "$out"
ini="$top/examples/failure-allreduce.ini"
bytes=67108864
gpus=64

json_num() { # json_num FILE KEY: the first numeric value of "KEY"
	sed -n "s/.*\"$2\": \([0-9][0-9.e+-]*\).*/\1/p" "$1" | head -n 1
}

case_run() { # case_run NAME --set ...
	name=$1
	shift
	"$top/warpsim" run "$ini" -o "$out/$name" --quiet --no-progress "$@" || true
	s="$out/$name/summary.json"
	it=$(awk -F, 'NR == 2 { print $4 }' "$out/$name/iterations.csv")
	done_=$(json_num "$s" completed)
	ab=$(json_num "$s" aborted)
	fd=$(sed -n '/"drops": {/,/}/s/.*"failure": \([0-9]*\).*/\1/p' "$s" | head -n 1)
	to=$(json_num "$s" timeouts)
	awk -v n="$name" -v it="${it:-}" -v b="$bytes" -v g="$gpus" -v d="$done_" \
	    -v a="${ab:-0}" -v f="${fd:-0}" -v t="${to:-0}" 'BEGIN {
		if (it == "")
			printf "%-24s iteration       none  busbw        -  flows done %5d  aborted %d  failure drops %5d  timeouts %d\n", n, d, a, f, t
		else
			printf "%-24s iteration %8.3f ms  busbw %6.1f GB/s  flows done %5d  aborted %d  failure drops %5d  timeouts %d\n",
			       n, it / 1e6, b * 2 * (g - 1) / g / (it * 1e-9) / 1e9, d, a, f, t }'
}

for lb in ecmp spray; do
	l="--set routing.lb=$lb"
	# shellcheck disable=SC2086
	case_run "$lb-healthy" $l --set failures.events=
	# shellcheck disable=SC2086
	case_run "$lb-reroute-0" $l
	# shellcheck disable=SC2086
	case_run "$lb-reroute-50ms" $l --set failures.reroute_delay=50ms
	# shellcheck disable=SC2086
	case_run "$lb-reroute-50ms-rto16" $l --set failures.reroute_delay=50ms --set nic.rto=16ms
done
