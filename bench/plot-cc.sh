#!/bin/sh
# plot-cc.sh: watch a congestion control converge.  Runs two small scenarios
# on a k=4 fat-tree (100 Gb/s) with rate and queue traces, and draws them
# with `warpsim plot --cc` (gnuplot installed from Debian if missing):
#   two-flows  hosts 4 and 8 send to host 0; the second starts at 1 ms
#   incast     8 hosts send 1 MB each to host 0 at once
# For each: <cc>-<scenario>/rates.png (every flow's rate over time) and
# <cc>-<scenario>/queues.png (the busiest switch ports' queues; the
# bottleneck is edge switch 16, port 0, towards host 0) in
# bench/out/plots/.  Images are not committed.
#
# usage: bench/plot-cc.sh CC [ini overrides...]
#   e.g. bench/plot-cc.sh dcqcn
#        bench/plot-cc.sh dctcp --set switch.ecn_kmin=300KB --set switch.ecn_kmax=300KB --set switch.ecn_pmax=1
set -eu
cc=${1:?usage: $0 CC [--set section.key=value ...]}
shift
overrides="$*"
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/plots
mkdir -p "$out"

if ! command -v gnuplot >/dev/null 2>&1; then
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq gnuplot-nox
fi

printf '2\n4 0 3 100 400000000 0\n8 0 3 100 400000000 0.001\n' > "$out/two-flows.txt"
awk 'BEGIN { print 8; split("4 5 6 7 8 9 12 13", s, " ");
	for (i = 1; i <= 8; i++) printf "%d 0 3 100 1000000 0\n", s[i] }' > "$out/incast.txt"

run() { # run SCENARIO TRACE STOP
	cat > "$out/$cc-$1.ini" <<EOF2
[sim]
stop_time = $3
[topology]
name = fat-tree
k = 4
[cc]
name = $cc
[output]
trace_rates = 5us
trace_queues = 2us
[workload]
name = flows
file = $2
EOF2
	# shellcheck disable=SC2086
	"$top/warpsim" run "$out/$cc-$1.ini" -o "$out/$cc-$1" --quiet --no-progress $overrides || true
	d="$out/$cc-$1"
	# each flow's rate and the busiest switch ports' queues, one line each
	"$top/warpsim" plot --cc --png -o "$out/$cc-$1" "$out/$cc-$1" > /dev/null
	echo "$out/$cc-$1/rates.png $out/$cc-$1/queues.png"
}

run two-flows two-flows.txt 10ms
run incast incast.txt 0s
