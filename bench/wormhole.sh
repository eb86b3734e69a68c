#!/bin/sh
# wormhole.sh: the wormhole accelerator against packet level on LLM
# training iterations and on a workload it cannot skip.  For each model and
# CC it runs the packet-level baseline (accel none) and wormhole, then
# `warpsim compare` gives wall-time speedup, event ratio, mean / p99 FCT
# error and iteration-time error.
# Rows:
#   MODEL CC wormhole              the default settings
#   MODEL dcqcn steady only        steady-state skipping alone (lone = false,
#                                  memo = false)
#   MODEL dcqcn + lone             lone flows too (memo = false)
#   MODEL dcqcn + memo across runs the default, second run with a memo_db
#                                  filled by the first
#   MODEL dcqcn + flow model       flow_model = true, reskip = true, and
#     (+ reskip, both)             each alone (opt-in, docs/acceleration.md)
#   micro all-reduce x4            SimAI's AICB all_reduce micro-benchmark at
#                                  comm_scale 0.001 (4 B - 512 KB), 4 times,
#                                  64 GPUs: many small repeated collectives
#   gpt13b-128 dcqcn theta/window  variants (sensitivity), of the defaults and
#                                  of steady-state skipping alone
#
# usage: bench/wormhole.sh [MODEL ...]   (default: gpt13b-128 moe8x13b-128;
#        CCS="dcqcn hpcc timely", SENS=1 for the theta/window rows,
#        MAX_WALL=seconds per run, default 1800)
# Outputs go to bench/out/wh-*/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
max_wall=${MAX_WALL:-1800}
models=${*:-gpt13b-128 moe8x13b-128}
ccs=${CCS:-dcqcn hpcc timely}
sens=${SENS:-1}
mkdir -p "$out"

# get FILE SECTION KEY: a number from `warpsim compare --json` output
get() {
	awk -v s="\"$2\": {" -v k="\"$3\":" '
		index($0, s) { inside = 1; next }
		inside && /^  }/ { inside = 0 }
		inside && index($0, k) { v = $2; sub(/,$/, "", v); print v; exit }' "$1"
}

run() { # run NAME MODEL CC ACCEL [--set ...]
	name=$1 model=$2 cc=$3 accel=$4
	shift 4
	dir=$out/wh-$name
	if [ ! -f "$dir/summary.json" ] || [ "${FORCE:-0}" = 1 ]; then
		st=0
		"$top/warpsim" run "$top/examples/llm-$model.ini" -o "$dir" --no-progress \
			--max-wall "$max_wall" --set cc.name="$cc" --set accel.name="$accel" \
			"$@" > "$dir.txt" 2>&1 || st=$?
		# 4: stopped by --max-wall, outputs written
		[ "$st" -eq 0 ] || [ "$st" -eq 4 ] || { cat "$dir.txt" >&2; exit 1; }
	fi
}

row() { # row LABEL BASE_DIR RUN_DIR
	"$top/warpsim" compare "$2" "$3" --json "$3.cmp.json" > "$3.cmp.txt" 2>&1 ||
		{ cat "$3.cmp.txt" >&2; exit 1; }
	j=$3.cmp.json
	awk -v l="$1" -v wa="$(get "$j" wall_s a)" -v wb="$(get "$j" wall_s b)" \
	    -v ea="$(get "$j" events a)" -v eb="$(get "$j" events b)" \
	    -v fm="$(get "$j" fct_error mean)" -v fp="$(get "$j" fct_error p99)" \
	    -v im="$(get "$j" iteration_error mean)" 'BEGIN {
		printf "%-34s %9.1f %9.1f %8.1fx %8.1fx %8.3f%% %8.3f%% %8.3f%%\n", l, wa, wb,
		       wa / wb, ea / eb, fm * 100, fp * 100, im * 100 }'
}

printf '%-34s %9s %9s %9s %9s %9s %9s %9s\n' "run (vs packet level)" wall_none \
	wall_wh speedup events fct_mean fct_p99 iter_err
for m in $models; do
	for cc in $ccs; do
		run "$m-$cc-none" "$m" "$cc" none
		run "$m-$cc-wh" "$m" "$cc" wormhole
		row "$m $cc wormhole" "$out/wh-$m-$cc-none" "$out/wh-$m-$cc-wh"
		if [ "$cc" = dcqcn ]; then
			run "$m-$cc-steady" "$m" "$cc" wormhole --set accel.memo=false \
				--set accel.lone=false
			row "$m $cc steady only" "$out/wh-$m-$cc-none" "$out/wh-$m-$cc-steady"
			run "$m-$cc-nomemo" "$m" "$cc" wormhole --set accel.memo=false
			row "$m $cc + lone (memo off)" "$out/wh-$m-$cc-none" "$out/wh-$m-$cc-nomemo"
			# the opt-in mechanisms for joined partitions (issue 27, MoE)
			run "$m-$cc-model" "$m" "$cc" wormhole --set accel.flow_model=true
			row "$m $cc + flow model" "$out/wh-$m-$cc-none" "$out/wh-$m-$cc-model"
			run "$m-$cc-reskip" "$m" "$cc" wormhole --set accel.reskip=true
			row "$m $cc + reskip" "$out/wh-$m-$cc-none" "$out/wh-$m-$cc-reskip"
			run "$m-$cc-fm" "$m" "$cc" wormhole --set accel.flow_model=true \
				--set accel.reskip=true
			row "$m $cc + flow model + reskip" "$out/wh-$m-$cc-none" "$out/wh-$m-$cc-fm"
			db=$out/wh-$m-$cc.memo
			rm -f "$db"
			FORCE=1 run "$m-$cc-db1" "$m" "$cc" wormhole --set accel.memo_db="$db"
			FORCE=1 run "$m-$cc-db2" "$m" "$cc" wormhole --set accel.memo_db="$db"
			row "$m $cc + memo across runs" "$out/wh-$m-$cc-none" "$out/wh-$m-$cc-db2"
		fi
	done
done
# many small repeated collectives: the accelerator must not cost more than
# it saves (wall time within 10 % of none)
micro() { # micro NAME ACCEL
	dir=$out/wh-$1
	if [ ! -f "$dir/summary.json" ] || [ "${FORCE:-0}" = 1 ]; then
		"$top/warpsim" run "$top/examples/simai.ini" -o "$dir" --no-progress \
			--set workload.file="$top/../shared/data/simai/all_reduce.txt" \
			--set topology.gpus_per_server=8 --set topology.servers_per_unit=8 \
			--set workload.comm_scale=0.001 \
			--set workload.iterations=4 --set accel.name="$2" > "$dir.txt" 2>&1 ||
			{ cat "$dir.txt" >&2; exit 1; }
	fi
}
if [ -f "$top/../shared/data/simai/all_reduce.txt" ]; then
	micro micro-none none
	micro micro-wh wormhole
	row "micro all-reduce x4 (64 GPUs)" "$out/wh-micro-none" "$out/wh-micro-wh"
fi
if [ "$sens" = 1 ]; then
	m=gpt13b-128
	run "$m-dcqcn-none" "$m" dcqcn none
	for t in 0.02 0.05 0.1; do
		for w in 4 8 16; do
			[ "$t" = 0.05 ] && [ "$w" = 4 ] && continue # the default row
			run "$m-dcqcn-t$t-w$w" "$m" dcqcn wormhole --set accel.theta=$t \
				--set accel.window=$w
			row "$m dcqcn theta $t window $w" "$out/wh-$m-dcqcn-none" \
				"$out/wh-$m-dcqcn-t$t-w$w"
		done
	done
	# the same for steady-state skipping alone, which is what theta and
	# the window govern (with lone skips and episodes on, GPT-13B has no
	# steady stretch left to skip: every variant above is the same run)
	for t in 0.02 0.05 0.1; do
		for w in 4 8 16; do
			[ "$t" = 0.05 ] && [ "$w" = 4 ] && continue # the steady-only row
			run "$m-dcqcn-steady-t$t-w$w" "$m" dcqcn wormhole --set accel.memo=false \
				--set accel.lone=false --set accel.theta=$t --set accel.window=$w
			row "$m steady only theta $t window $w" "$out/wh-$m-dcqcn-none" \
				"$out/wh-$m-dcqcn-steady-t$t-w$w"
		done
	done
fi
