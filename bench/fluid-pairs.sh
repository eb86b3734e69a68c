#!/bin/sh
# fluid-pairs.sh: CPU (user + sys) of fluid's cost rows as alternated runs,
# A B A B, on a shared machine where one run's time means little: either
# `accel = none` against fluid (MODE=accel, the 1.05x rule of issue 27) or
# two builds of warpsim against each other with fluid (MODE=bin: A is
# $WARPSIM_A, a command that runs the other build, B this tree's).
#
# usage: bench/fluid-pairs.sh [ROW ...]
#   rows: aicb-all_reduce aicb-all_to_all (AICB micro-benchmarks at
#   comm_scale 0.001 on 64 GPUs, as bench/accel-cost.sh runs them),
#   gpt175b (examples/llm-gpt175b-1024.ini), ar8192 (examples/
#   allreduce-65536.ini cut to 16 units, as bench/fluid-scale.sh 16),
#   ar2048 (cut to 4 units, one pod: 1 s under fluid, small enough for
#   cachegrind).  The all-reduce rows are for MODE=bin: under MODE=accel
#   their `accel = none` side simulates every packet (ar2048: 6.5 min).
#   PAIRS=5, MODE=accel|bin, WARPSIM_A=command (MODE=bin), SETS="--set ..."
#   added to every run.  Prints each pair and the medians; outputs in
#   bench/out/fp-* (not committed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
data=$top/../shared/data/simai
pairs=${PAIRS:-5}
mode=${MODE:-accel}
sets=${SETS:-}
mkdir -p "$out"

# the 8,192-GPU all-reduce (bench/fluid-scale.sh's units = 16)
sed -e "s/^units = 128/units = 16/" -e "s|^file = allreduce-65536.txt|file = fp-ar16.txt|" \
	"$top/examples/allreduce-65536.ini" > "$out/fp-ar16.ini"
sed "s/all_gpus: 65536/all_gpus: 8192/" "$top/examples/allreduce-65536.txt" > "$out/fp-ar16.txt"
# and the 2,048-GPU one (4 units in one pod)
sed -e "s/^units = 128/units = 4/" -e "s/^units_per_pod = 8/units_per_pod = 4/" \
	-e "s|^file = allreduce-65536.txt|file = fp-ar4.txt|" \
	"$top/examples/allreduce-65536.ini" > "$out/fp-ar4.ini"
sed "s/all_gpus: 65536/all_gpus: 2048/" "$top/examples/allreduce-65536.txt" > "$out/fp-ar4.txt"

row() { # row NAME: the ini and its --set options
	r64="--set topology.gpus_per_server=8 --set topology.servers_per_unit=8"
	case $1 in
	aicb-all_reduce | aicb-all_to_all)
		echo "$top/examples/simai.ini --set workload.file=$data/${1#aicb-}.txt $r64" \
		     "--set workload.comm_scale=0.001" ;;
	gpt175b) echo "$top/examples/llm-gpt175b-1024.ini" ;;
	ar8192) echo "$out/fp-ar16.ini" ;;
	ar2048) echo "$out/fp-ar4.ini" ;;
	*) echo "unknown row $1" >&2; exit 2 ;;
	esac
}

one() { # one TAG CMD ARGS...: user + sys seconds
	t=$1
	shift
	/usr/bin/time -f '%U %S' -o "$out/fp-$t.time" nice -n 10 "$@" -o "$out/fp-$t" -q \
		--no-progress > "$out/fp-$t.txt" 2>&1 || { cat "$out/fp-$t.txt" >&2; exit 1; }
	awk 'END { printf "%.2f", $1 + $2 }' "$out/fp-$t.time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for name in ${*:-aicb-all_reduce aicb-all_to_all gpt175b ar8192}; do
	# shellcheck disable=SC2046
	set -- $(row "$name")
	ini=$1
	shift
	as="" bs=""
	k=0
	while [ "$k" -lt "$pairs" ]; do
		if [ "$mode" = bin ]; then
			# shellcheck disable=SC2086
			a=$(one "$name-A" $WARPSIM_A run "$ini" "$@" --set accel.name=fluid $sets)
			# shellcheck disable=SC2086
			b=$(one "$name-B" "$top/warpsim" run "$ini" "$@" --set accel.name=fluid $sets)
		else
			# shellcheck disable=SC2086
			a=$(one "$name-none" "$top/warpsim" run "$ini" "$@" --set accel.name=none $sets)
			# shellcheck disable=SC2086
			b=$(one "$name-fluid" "$top/warpsim" run "$ini" "$@" --set accel.name=fluid $sets)
		fi
		echo "$name pair $k: $a $b"
		as="$as $a" bs="$bs $b"
		k=$((k + 1))
	done
	ma=$(echo "$as" | tr ' ' '\n' | grep -v '^$' | median)
	mb=$(echo "$bs" | tr ' ' '\n' | grep -v '^$' | median)
	awk -v n="$name" -v a="$ma" -v b="$mb" -v m="$mode" 'BEGIN {
		printf "%s median (%s) A %.2f s  B %.2f s  B/A %.3f\n", n,
		       m == "bin" ? "A: before, B: this tree" : "A: none, B: fluid", a, b, b / a }'
done
