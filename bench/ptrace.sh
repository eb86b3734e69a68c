#!/bin/sh
# ptrace.sh BASE [ROUNDS]: what the event-log hooks ([output] packets, pfc)
# cost when they are off, and what a filtered log costs when on.
#
# Runs bench/kernel.sh's permutation (k=8 fat-tree, 128 x 16 MB flows,
# DCQCN) with the warpsim of BASE (a built tree without the hooks, e.g. a
# worktree of the commit before them) and with this tree's, alternated
# ROUNDS times (default 3, the order switching each round), then once here with a narrow packet log and
# with pfc.csv.  Prints per run: events, run CPU seconds and events per
# CPU second (CPU time, not wall: the machine is shared).  The event counts
# of the two builds must be equal.  Outputs in bench/out/ptrace-*.
# Run it niced: nice -n 10 bench/ptrace.sh ../wt-base
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
base=$(cd "${1:?usage: $0 BASE_TREE [ROUNDS]}" && pwd)
rounds=${2:-3}
out=${BENCH_OUT:-$here/out}
mkdir -p "$out"

json_num() { # json_num FILE KEY: the first numeric value of "KEY"
	sed -n "s/.*\"$2\": \([0-9][0-9.e+-]*\).*/\1/p" "$1" | head -n 1
}

"$here/gen-permutation.sh" 128 16000000 1 > "$out/perm128.txt"
"$here/fabric-k8.sh" perm128.txt > "$out/ptrace.ini"

run() { # run LABEL WARPSIM [--set ...]
	label=$1
	bin=$2
	shift 2
	d="$out/ptrace-$label"
	"$bin" run "$out/ptrace.ini" -o "$d" --quiet --no-progress "$@"
	s="$d/summary.json"
	awk -v n="$label" -v e="$(json_num "$s" events)" -v c="$(json_num "$s" run_cpu_s)" \
	    'BEGIN { printf "%-10s events %11d  run CPU %7.3f s  %6.2f M events per CPU s\n",
		     n, e, c, e / c / 1e6 }'
}

i=1
while [ "$i" -le "$rounds" ]; do
	# the order alternates too: a run is not always second
	if [ $((i % 2)) -eq 1 ]; then
		run base "$base/warpsim"
		run hooks "$top/warpsim"
	else
		run hooks "$top/warpsim"
		run base "$base/warpsim"
	fi
	i=$((i + 1))
done
run pkts-narrow "$top/warpsim" --set output.packets=data --set output.packets_flows=0 \
	--set output.packets_ports=0
run pfc "$top/warpsim" --set output.pfc=true
ls -l "$out/ptrace-pkts-narrow/packets.csv" "$out/ptrace-pfc/pfc.csv"
