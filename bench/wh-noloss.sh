#!/bin/sh
# wh-noloss.sh: does wormhole ever cost more than it saves?  Runs every
# scenario of examples/ that takes at most a few minutes at packet level,
# and SimAI/AICB workload files of ../shared/data/simai/ on a rail fabric,
# with accel.name=none and accel.name=wormhole in turn (none, wormhole, none,
# wormhole, ...: pairing keeps the ratio meaningful when the machine's speed
# drifts), and prints for each the events of both, the median whole-process
# wall time of both and the median of the per-pair ratios wormhole / none.
# A ratio above 1.10 is the issue-12 target missed.
#
# usage: bench/wh-noloss.sh [NAME ...]   (default: every row below)
#        PAIRS=N pairs per row (default 5; the LLM rows take 1 pair: their
#        ratio is far below 1)
# Outputs go to bench/out/nl-*/ (not committed).  Build first: ./bootstrap
# Skipped: the 1,024-GPU examples, allreduce-65536 (hours at packet level)
# and the sweep-*.ini files (sweeps of the quickstart and websearch rows).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
pairs=${PAIRS:-5}
data=$top/../shared/data/simai
mkdir -p "$out"

# the rows: NAME INI [--set ...]
rows() {
	for e in quickstart clos dcqcn-paper dctcp dragonfly hpcc timely rail \
		ns3-fat reference websearch websearch-dctcp websearch-hpcc \
		websearch-timely llm simai; do
		echo "$e examples/$e.ini"
	done
	# microAllReduce with its TP group across 4-GPU servers: network flows
	echo "simai-micro-net examples/simai.ini --set workload.file=$data/microAllReduce.txt" \
	     "--set topology.gpus_per_server=4 --set topology.servers_per_unit=4"
	# AICB micro-benchmarks: 19 sizes, 4 KiB-1 GiB scaled by 0.001, 4 times, 64 GPUs
	for m in all_reduce all_to_all; do
		echo "aicb-$m examples/simai.ini --set workload.file=$data/$m.txt" \
		     "--set topology.gpus_per_server=8 --set topology.servers_per_unit=8 --set workload.comm_scale=0.001" \
		     "--set workload.iterations=4"
	done
	# AICB model files: TP 8 (GPT-13B) and TP 2 (LLaMA-7B) on 64 GPUs, DP over
	# the rails, collectives scaled by 0.01
	echo "aicb-gpt13b examples/simai.ini --set workload.file=$data/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt" \
	     "--set topology.gpus_per_server=8 --set topology.servers_per_unit=8 --set workload.gpus=64 --set workload.comm_scale=0.01"
	echo "aicb-llama7b examples/simai.ini --set workload.file=$data/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt" \
	     "--set topology.gpus_per_server=8 --set topology.servers_per_unit=8 --set workload.gpus=64 --set workload.comm_scale=0.01"
	for e in llm-gpt7b-64 llm-moe8x7b-64 llm-gpt13b-128 llm-moe8x13b-128; do
		echo "$e examples/$e.ini"
	done
}

now() { date +%s.%N; }

# one NAME ACCEL INI SETS...: run once, print its wall seconds
one() {
	n=$1 a=$2 ini=$3
	shift 3
	t0=$(now)
	# shellcheck disable=SC2086
	"$top/warpsim" run "$top/$ini" -o "$out/nl-$n-$a" -q --no-progress \
		--set accel.name="$a" "$@" > "$out/nl-$n-$a.txt" 2>&1 ||
		{ cat "$out/nl-$n-$a.txt" >&2; exit 1; }
	t1=$(now)
	echo "$t1 - $t0" | bc
}

events() {
	awk '/"events": [0-9]/ { v = $2; sub(/,$/, "", v); print v; exit }' "$out/nl-$1/summary.json"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-18s %14s %14s %9s %9s %8s\n' row events_none events_wh wall_none wall_wh ratio
want=${*:-}
rows | while read -r name ini sets; do
	if [ -n "$want" ]; then
		case " $want " in *" $name "*) ;; *) continue ;; esac
	fi
	np=$pairs
	case $name in llm-*) np=1 ;; esac
	: > "$out/nl-$name.times"
	i=0
	while [ "$i" -lt "$np" ]; do
		# shellcheck disable=SC2086
		wn=$(one "$name" none "$ini" $sets)
		# shellcheck disable=SC2086
		ww=$(one "$name" wormhole "$ini" $sets)
		echo "$wn $ww" >> "$out/nl-$name.times"
		i=$((i + 1))
	done
	mn=$(awk '{ print $1 }' "$out/nl-$name.times" | median)
	mw=$(awk '{ print $2 }' "$out/nl-$name.times" | median)
	mr=$(awk '{ print $2 / $1 }' "$out/nl-$name.times" | median)
	printf '%-18s %14s %14s %9.3f %9.3f %8.3f\n' "$name" "$(events "$name-none")" \
		"$(events "$name-wormhole")" "$mn" "$mw" "$mr"
done
