#!/bin/sh
# share.sh: memory of a batch of experiments on one 65,536-GPU rail fabric
# (the R64K shape of bench/topo.sh; the 16 flows of examples/rail-flows.txt,
# so the fabric dominates), with each experiment building its own fabric
# and with all of them sharing one build (ws_fabric_cache).  bench/share
# runs the batch on threads, experiment i with the i-th of dcqcn, hpcc,
# timely, dctcp, at most THREADS in memory at once, and prints per row:
# builds, the process's peak RSS, the peak of what it really holds (private
# and file pages plus the shared port template in full, sampled every
# 10 ms), the template's size, events in all and wall seconds.
#
# usage: bench/share.sh        Build first: ./bootstrap
# The ini goes to bench/out/share/ (not committed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/share
mkdir -p "$out"
ini="$out/rail-65536.ini"
cat > "$ini" <<INI
[sim]
seed = 1
[topology]
name = rail
tiers = 3
servers_per_unit = 64
units = 128
units_per_pod = 8
spine_links = 8
leaf_radix = 128
spine_radix = 128
core_radix = 128
[routing]
name = updown
[cc]
name = dcqcn
[workload]
name = flows
file = $top/examples/rail-flows.txt
INI

printf '%-34s %6s %13s %13s %13s %12s %8s\n' "batch" builds "peak RSS" "held (peak)" "template" events "wall"
row() { # EXPERIMENTS THREADS MODE
	"$here/share" "$ini" "$1" "$2" "$3" | awk -v x="$1 on $2 thread(s), $3" '{
		printf "%-34s %6d %9.1f MiB %9.1f MiB %9.1f MiB %12d %6.2f s\n",
		       x, $4, $5, $6, $7, $9, $10 }'
}
row 1 1 private
row 2 2 private
row 2 2 shared
row 8 2 private
row 8 2 shared
