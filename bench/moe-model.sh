#!/bin/sh
# moe-model.sh: wormhole's flow model and reskip on MoE all-to-all next to
# the noise floor (docs/performance.md, "Flow model on MoE: what the error
# is made of").  For each model: the packet-level base (accel none), two
# twins of it ([sim] perturb = 1ns, perturb_seed 1 and 2), wormhole with
# its defaults and with flow_model + reskip; then one `warpsim compare
# --noise` table per wormhole run and a summary line: events ratio, FCT
# mean / p99 / |bias| and iteration error, each with its band, and the CPU
# seconds of the run (user time: noisy on a shared machine).
#
# usage: bench/moe-model.sh [MODEL ...]   (default: moe8x13b-128)
#   MB=2 micro-batches per iteration (the example's own: MB=0), MAX_WALL=
#   seconds per run (3600), FORCE=1 runs again what exists.  Outputs in
#   bench/out/moe-model-*/ (not committed).  The packet-level runs take
#   about 120 CPU s each at MB=2; run it niced: nice -n 10 bench/moe-model.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
mb=${MB:-2}
max_wall=${MAX_WALL:-3600}
models=${*:-moe8x13b-128}
mkdir -p "$out"

run() { # run MODEL NAME [--set ...]: the output directory of one run
	m=$1 name=$2
	shift 2
	dir=$out/moe-model-$m-mb$mb-$name
	[ "$mb" -gt 0 ] && set -- "$@" --set workload.micro_batches="$mb"
	if [ ! -f "$dir/summary.json" ] || [ "${FORCE:-0}" = 1 ]; then
		mkdir -p "$dir"
		/usr/bin/time -f %U -o "$dir.cpu" "$top/warpsim" run "$top/examples/llm-$m.ini" \
			-o "$dir" --no-progress --max-wall "$max_wall" "$@" > "$dir.txt" 2>&1 ||
			{ cat "$dir.txt" >&2; exit 1; }
	fi
	echo "$dir"
}

for m in $models; do
	base=$(run "$m" none --set accel.name=none)
	t1=$(run "$m" twin1 --set accel.name=none --set sim.perturb=1ns --set sim.perturb_seed=1)
	t2=$(run "$m" twin2 --set accel.name=none --set sim.perturb=1ns --set sim.perturb_seed=2)
	def=$(run "$m" wh --set accel.name=wormhole)
	both=$(run "$m" model --set accel.name=wormhole --set accel.flow_model=true \
		--set accel.reskip=true)
	for d in "$def" "$both"; do
		"$top/warpsim" compare --noise "$base" "$t1" "$t2" "$d" > "$d.noise.txt"
		awk -v run="$(basename "$d")" -v cpu="$(cat "$d.cpu")" '
			/candidate / { for (i = 1; i <= NF; i++) if ($i == "ratio") r = $(i + 1); sub(/,$/, "", r) }
			/FCT mean   / { m = $4 " (" $5 ")" }
			/FCT p99    / { p = $4 " (" $5 ")" }
			/FCT \|bias\|/ { b = $4 " (" $5 ")" }
			/iteration mean/ { it = $4 " (" $5 ")" }
			END { printf "%-40s events %sx  FCT mean %s p99 %s |bias| %s  iteration %s  CPU %s s\n",
			      run, r, m, p, b, it, cpu }' "$d.noise.txt"
	done
done
