#!/bin/sh
# plot-cc.sh: watch a congestion control converge.  Runs two small scenarios
# on a k=4 fat-tree (100 Gb/s) with rate and queue traces, and draws them
# with gnuplot (installed from Debian if missing):
#   two-flows  hosts 4 and 8 send to host 0; the second starts at 1 ms
#   incast     8 hosts send 1 MB each to host 0 at once
# For each: <cc>-<scenario>-rates.png (every flow's rate over time) and
# <cc>-<scenario>-queue.png (the queue at the bottleneck: edge switch 16,
# port 0, towards host 0) in bench/out/plots/.  Images are not committed.
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
	# the bottleneck queue: edge switch 16 (pod 0, edge 0), port 0 (host 0)
	awk -F, 'NR > 1 && $2 == 16 && $3 == 0 { print $1 / 1000, $4 / 1000 }' \
		"$d/queues.csv" > "$d/bottleneck.dat"
	# one gnuplot data block per flow: time (us), rate (Gb/s)
	awk -F, 'NR > 1 { rows[$2] = rows[$2] $1 / 1000 " " $3 / 1e9 "\n"; if ($2 > n) n = $2 }
		END { for (f = 0; f <= n; f++) printf "%s\n\n", rows[f] }' \
		"$d/rates.csv" > "$d/rates.dat"
	flows=$(awk -F, 'NR > 1 && $2 > n { n = $2 } END { print n + 0 }' "$d/rates.csv")
	gnuplot <<EOF2
set terminal pngcairo size 900,500
set output "$out/$cc-$1-rates.png"
set title "$cc, $1: sending rate of each flow"
set xlabel "time (us)"
set ylabel "rate (Gb/s)"
set key outside
plot for [f=0:$flows] "$d/rates.dat" index f using 1:2 with lines title sprintf("flow %d", f)
set output "$out/$cc-$1-queue.png"
set title "$cc, $1: queue towards host 0 (edge switch 16, port 0)"
set ylabel "queue (KB)"
plot "$d/bottleneck.dat" using 1:2 with lines notitle
EOF2
	echo "$out/$cc-$1-rates.png $out/$cc-$1-queue.png"
}

run two-flows two-flows.txt 10ms
run incast incast.txt 0s
