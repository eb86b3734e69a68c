#!/bin/sh
# noise.sh: each acceleration strategy's errors next to the noise floor of
# packet level (`warpsim compare --noise`, docs/acceleration.md "The noise
# floor").  For each scenario: the packet-level base (accel none), TWINS
# twins of it (the same run with [sim] perturb = PERTURB, perturb_seed 1,
# 2, ...), each strategy; then one `compare --noise` table per strategy and
# a summary line per (scenario, strategy): candidate / band of the FCT
# mean, p99 and (training workloads) iteration error, and how many rows
# are within noise.
#
# Scenarios:
#   llm        examples/llm.ini (GPT-7B cut to 4 layers, 32 GPUs, DCQCN)
#   websearch  examples/websearch.ini with FLOWS flows (default 1000): k=8
#              fat-tree, WebSearch CDF at 50 % load, DCQCN
#   other names: examples/NAME.ini (e.g. llm-gpt13b-128, llm-moe8x13b-128)
#
# usage: bench/noise.sh [SCENARIO ...]   (default: llm websearch)
#   ACCELS="wormhole hygra fluid" the strategies, TWINS=2, PERTURB=1ns,
#   FLOWS=1000, MAX_WALL=seconds per run (1800), FORCE=1 runs again what
#   exists, SETS="KEY=VALUE ..." settings for every run of the scenarios
#   (e.g. SETS=cc.name=hpcc; their outputs are kept apart).  Outputs in
#   bench/out/noise-*/ (not committed).  Run it niced on a shared machine:
#   nice -n 10 bench/noise.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
accels=${ACCELS:-wormhole hygra fluid}
twins=${TWINS:-2}
perturb=${PERTURB:-1ns}
flows=${FLOWS:-1000}
max_wall=${MAX_WALL:-1800}
scenarios=${*:-llm websearch}
sets=${SETS:-}
# the settings in the output names: KEY=VALUE -> KEY-VALUE, joined by _
tag=$(printf '%s' "$sets" | tr -s ' ' '\n' | sed 's/=/-/' | paste -sd_ -)
mkdir -p "$out"
. "$here/summary-lib.sh"

# run SCENARIO NAME [--set ...]: the output directory of one run
run() {
	sc=$1 name=$2
	shift 2
	dir=$out/noise-$sc${tag:+-$tag}-$name
	case "$sc" in
	websearch) set -- "$@" --set workload.flows="$flows" ;;
	esac
	for kv in $sets; do
		set -- "$@" --set "$kv"
	done
	if [ ! -f "$dir/summary.json" ] || [ "${FORCE:-0}" = 1 ]; then
		mkdir -p "$dir"
		"$top/warpsim" run "$top/examples/$sc.ini" -o "$dir" --no-progress \
			--max-wall "$max_wall" "$@" > "$dir.txt" 2>&1 || { cat "$dir.txt" >&2; exit 1; }
	fi
	echo "$dir"
}


summary=""
for sc in $scenarios; do
	base=$(run "$sc" none)
	tw=""
	k=1
	while [ "$k" -le "$twins" ]; do
		tw="$tw $(run "$sc" "twin$k" --set sim.perturb="$perturb" --set sim.perturb_seed="$k")"
		k=$((k + 1))
	done
	for a in $accels; do
		d=$(run "$sc" "$a" --set accel.name="$a")
		echo
		# shellcheck disable=SC2086 # the twins are separate arguments
		"$top/warpsim" compare --noise "$base" $tw "$d" --csv "$d.noise.csv" \
			--json "$d.noise.json" | tee "$d.noise.txt"
		summary="$summary$(printf '%-12s %-9s %22s %22s %22s %6s' "$sc" "$a" \
			"$(noise_cell "$d.noise.csv" fct mean)" "$(noise_cell "$d.noise.csv" fct p99)" \
			"$(noise_cell "$d.noise.csv" iteration mean)" "$(noise_within "$d.noise.csv")")
"
	done
done
echo
echo "candidate / noise band (the largest error of $twins twins, [sim] perturb = $perturb)"
printf '%-12s %-9s %22s %22s %22s %6s\n' scenario accel "FCT mean" "FCT p99" \
	"iteration mean" within
printf '%s' "$summary"
