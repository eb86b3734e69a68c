#!/bin/sh
# fluid-scale.sh: fluid's cost on examples/allreduce-65536.ini's all-reduce
# (one 160 MB DP bucket, NCCL double binary trees in 16 MB chunks, 8
# channels a rail) over 2,048, 8,192 and 65,536 GPUs of the same rail
# fabric (units = 4, 16, 128), with local solves ([accel] local_solve =
# true, the default) and, where it finishes in MAX_CPU seconds, with
# component solves (false): user CPU seconds, flows, flows solved, and
# whether the two wrote the same fct.csv.  Then examples/llm-gpt175b-1024.ini
# with fluid.  Run it with nice -n 10 on a shared machine; CPU seconds are
# user time from /usr/bin/time.
#
# usage: bench/fluid-scale.sh [UNITS ...]   (default: 4 16 128)
#   MAX_CPU=seconds a component-solve run may take (default 120; 0: skip
#   them); outputs in bench/out/fluid-*/ (not committed).  Build first.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
max_cpu=${MAX_CPU:-120}
mkdir -p "$out"

summary() { # summary FILE KEY: the first number of KEY in a summary.json
	sed -n "s/.*\"$2\": \([0-9][0-9.e+-]*\).*/\1/p" "$1" | head -n 1
}

run() { # run INI DIR [--set ...]: user CPU seconds, or "cut" past the limit
	ini=$1 dir=$2
	shift 2
	limit=""
	[ "${LIMIT:-0}" = 0 ] || limit="timeout -s INT $LIMIT"
	if /usr/bin/time -f %U -o "$dir.time" $limit "$top/warpsim" run "$ini" -o "$dir" \
		--no-progress --quiet "$@" > "$dir.txt" 2>&1; then
		cat "$dir.time"
	else
		echo cut
	fi
}

printf '%-7s %-10s %9s %10s %13s %8s\n' gpus solve cpu_s flows flows_solved same_fct
for units in ${*:-4 16 128}; do
	gpus=$((units * 512))
	ini=$out/fluid-ar$units.ini
	sed -e "s/^units = 128/units = $units/" -e "s/^units_per_pod = 8/units_per_pod = $(( units < 8 ? units / 2 : 8 ))/" \
		-e "s|^file = allreduce-65536.txt|file = fluid-ar$units.txt|" \
		"$top/examples/allreduce-65536.ini" > "$ini"
	sed "s/all_gpus: 65536/all_gpus: $gpus/" "$top/examples/allreduce-65536.txt" \
		> "$out/fluid-ar$units.txt"
	for mode in local component; do
		dir=$out/fluid-ar$units-$mode
		set -- --set accel.local_solve=true
		LIMIT=0
		if [ "$mode" = component ]; then
			[ "$max_cpu" != 0 ] || continue
			set -- --set accel.local_solve=false
			LIMIT=$((max_cpu * 4)) # wall seconds: the machine is shared
		fi
		cpu=$(LIMIT=$LIMIT run "$ini" "$dir" "$@")
		same=-
		if [ "$mode" = component ] && [ "$cpu" != cut ]; then
			cmp -s "$out/fluid-ar$units-local/fct.csv" "$dir/fct.csv" && same=yes || same=no
		fi
		if [ "$cpu" = cut ]; then
			printf '%-7s %-10s %9s %10s %13s %8s\n' $gpus $mode "cut" - - -
		else
			printf '%-7s %-10s %9s %10s %13s %8s\n' $gpus $mode "$cpu" \
				"$(summary "$dir/summary.json" flows_adopted)" \
				"$(summary "$dir/summary.json" flows_solved)" $same
		fi
	done
done
dir=$out/fluid-gpt175b
cpu=$(LIMIT=0 run "$top/examples/llm-gpt175b-1024.ini" "$dir" --set accel.name=fluid)
printf '%-7s %-10s %9s %10s %13s %8s\n' 1024 gpt175b "$cpu" \
	"$(summary "$dir/summary.json" flows_adopted)" "$(summary "$dir/summary.json" flows_solved)" -
