#!/bin/sh
# kernel.sh: the kernel's speed on the foundation benchmarks, packet level,
# no acceleration.  Prints, per scenario: events executed, simulated time,
# wall time, events/s and peak RSS, from the run's summary.json.
#
#   permutation  k=8 fat-tree (128 hosts, 100 Gb/s, 1 us links), DCQCN,
#                a random permutation of 128 x 16 MB flows
#   ring         the same fabric, 128 x 64 MB flows host i -> i+1 (the
#                scenario REFERENCE-rdma.md quotes for the ns-3 simulator)
#
# usage: bench/kernel.sh [permutation|ring|all]   (default: permutation)
# Outputs go to bench/out/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
which=${1:-permutation}
mkdir -p "$out"

json_num() { # json_num FILE KEY: the first numeric value of "KEY"
	sed -n "s/.*\"$2\": \([0-9][0-9.e+-]*\).*/\1/p" "$1" | head -n 1
}

run() { # run NAME TRACE
	"$here/fabric-k8.sh" "$2" > "$out/$1.ini"
	"$top/warpsim" run "$out/$1.ini" -o "$out/$1" --quiet --no-progress
	s="$out/$1/summary.json"
	events=$(json_num "$s" events)
	simps=$(json_num "$s" sim_time_ps)
	wall=$(json_num "$s" run_s)
	eps=$(json_num "$s" events_per_s)
	rss=$(json_num "$s" peak_rss_kib)
	done_=$(json_num "$s" completed)
	awk -v n="$1" -v e="$events" -v t="$simps" -v w="$wall" -v r="$eps" \
	    -v m="$rss" -v d="$done_" 'BEGIN {
		printf "%-12s flows done %4d  events %11d  sim %8.3f ms  wall %7.3f s  %6.2f M events/s  peak RSS %6.1f MiB\n",
		       n, d, e, t / 1e9, w, r / 1e6, m / 1024 }'
}

case "$which" in
permutation|all)
	"$here/gen-permutation.sh" 128 16000000 1 > "$out/perm128.txt"
	run permutation perm128.txt ;;
esac
case "$which" in
ring|all)
	awk 'BEGIN { print 128; for (i = 0; i < 128; i++) printf "%d %d 3 100 64000000 0\n", i, (i + 1) % 128 }' > "$out/ring128.txt"
	run ring ring128.txt ;;
esac
case "$which" in
permutation|ring|all) ;;
*) echo "usage: $0 [permutation|ring|all]" >&2; exit 2 ;;
esac
