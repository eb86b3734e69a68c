#!/bin/sh
# scale.sh: how the packet engine's cost grows with the fabric.  The same
# traffic per host on fat-trees of growing k: a random permutation of 1 MB
# flows, all starting at 0, DCQCN, 100 Gb/s, 1 us links, packet level, no
# acceleration.  Prints, per fabric: hosts, flows done, events, simulated
# time, run-loop wall time, events/s, peak RSS and peak RSS per host, from
# the run's summary.json.
#
# usage: bench/scale.sh [K ...]          (default: 4 8 12 16 24 32)
#   STOP=TIME  cut every run at this simulated time (e.g. STOP=20us for
#              the k=64 fabric, 65,536 hosts, where the whole permutation
#              would take hours); a cut run reports what it simulated
#   BYTES=N    flow size (default 1000000)
#   WARPSIM=P  the program to run (default: the one in this tree)
# Outputs go to bench/out/scale-k* (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
prog=${WARPSIM:-$top/warpsim}
bytes=${BYTES:-1000000}
stop=${STOP:-}
mkdir -p "$out"

json_num() { # json_num FILE KEY: the first numeric value of "KEY"
	sed -n "s/.*\"$2\": \([0-9][0-9.e+-]*\).*/\1/p" "$1" | head -n 1
}

[ $# -gt 0 ] || set -- 4 8 12 16 24 32
for k in "$@"; do
	case "$k" in
	*[!0-9]*|'') echo "usage: $0 [K ...] (even fat-tree arities)" >&2; exit 2 ;;
	esac
	hosts=$((k * k * k / 4))
	name=scale-k$k
	"$here/gen-permutation.sh" "$hosts" "$bytes" 1 > "$out/$name.txt"
	cat > "$out/$name.ini" <<EOF2
[topology]
name = fat-tree
k = $k
link_rate = 100Gbps
link_delay = 1us
[cc]
name = dcqcn
[workload]
name = flows
file = $name.txt
EOF2
	if [ -n "$stop" ]; then
		"$prog" run "$out/$name.ini" -o "$out/$name" --quiet --no-progress \
			--set "sim.stop_time=$stop"
	else
		"$prog" run "$out/$name.ini" -o "$out/$name" --quiet --no-progress
	fi
	s="$out/$name/summary.json"
	awk -v k="$k" -v h="$hosts" -v e="$(json_num "$s" events)" \
	    -v t="$(json_num "$s" sim_time_ps)" -v w="$(json_num "$s" run_s)" \
	    -v r="$(json_num "$s" events_per_s)" -v m="$(json_num "$s" peak_rss_kib)" \
	    -v d="$(json_num "$s" completed)" 'BEGIN {
		printf "k=%-3d hosts %6d  flows done %6d  events %11d  sim %8.3f ms  wall %8.3f s  %6.2f M events/s  peak RSS %7.1f MiB  %6.1f KiB/host\n",
		       k, h, d, e, t / 1e9, w, r / 1e6, m / 1024, m / h }'
done
