#!/bin/sh
# cdf.sh: the cost of standard CC-paper traffic, 10^5 flows of each
# flow-size distribution of examples/cdf/ at 50 % load on a k=8 fat-tree
# (128 hosts, 100 Gb/s, 1 us links) under DCQCN, packet level:
#   gen   `warpsim gen` of the 10^5 flows (fabric built, flows drawn and
#         written as flow.txt): wall seconds, whole process;
#   run   `warpsim run` of them: events, events per flow, simulated time,
#         wall time, events/s, flows completed, FCT slowdown p50/p99.
# A run longer than MAX_WALL seconds (default 900) is stopped (--max-wall,
# exit status 4) and its line says how far it got.
#
# usage: bench/cdf.sh [DIST...]   (default: GoogleRPC2008 AliStorage2019 FB_Hadoop WebSearch)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/cdf
ws="$top/warpsim"
flows=${FLOWS:-100000}
max_wall=${MAX_WALL:-900}
mkdir -p "$out"
dists="$*"
[ -n "$dists" ] || dists="GoogleRPC2008 AliStorage2019 FB_Hadoop WebSearch"

json_num() { # json_num FILE KEY: the first number of "KEY": in FILE
	sed -n "s/.*\"$2\": \\([0-9][0-9.e+-]*\\).*/\\1/p" "$1" | head -1
}

printf '%-15s %8s %7s %11s %9s %10s %9s %9s %11s %7s %7s\n' dist flows gen_s \
	events ev/flow sim_ms wall_s Mev/s completed p50 p99
for d in $dists; do
	ini=$out/$d.ini
	cat > "$ini" <<EOI
[topology]
name = fat-tree
k = 8
link_rate = 100Gbps
link_delay = 1us
[cc]
name = dcqcn
[workload]
name = cdf
file = $top/examples/cdf/$d.txt
load = 0.5
flows = $flows
EOI
	t0=$(date +%s.%N)
	"$ws" gen "$ini" -o "$out/$d-flow.txt" -q
	t1=$(date +%s.%N)
	st=0
	"$ws" run "$ini" -o "$out/$d" --no-progress --max-wall "$max_wall" \
		> "$out/$d.txt" 2>&1 || st=$?
	[ "$st" -eq 0 ] || [ "$st" -eq 4 ] || { cat "$out/$d.txt" >&2; exit 1; }
	s=$out/$d/summary.json
	ev=$(json_num "$s" events)
	done_=$(json_num "$s" completed)
	printf '%-15s %8s %7.3f %11s %9.0f %10.3f %9.2f %9.2f %11s %7.3f %7.3f%s\n' "$d" "$flows" \
		"$(echo "$t1 - $t0" | bc)" "$ev" "$(echo "$ev / $flows" | bc -l)" \
		"$(echo "$(json_num "$s" sim_time_ps) / 1000000000" | bc -l)" \
		"$(json_num "$s" run_s)" "$(json_num "$s" events_per_s | awk '{ print $1 / 1e6 }')" \
		"$done_" "$(json_num "$s" p50)" "$(json_num "$s" p99)" \
		"$([ "$st" -eq 4 ] && echo "  (stopped by --max-wall $max_wall)")"
done
