#!/bin/sh
# accel.sh: every acceleration strategy side by side on the same scenarios.
# For each scenario it runs packet level (accel none) and each strategy,
# then `warpsim compare` against the packet-level run gives the wall time,
# the events, the mean / p99 FCT error and the iteration-time error.
#
# Scenarios (DCQCN):
#   perm-k8        k=8 fat-tree (128 hosts, 100 Gb/s, 1 us), a random
#                  permutation of 128 x 16 MB flows (bench/kernel.sh's)
#   incast-64      the same fabric, 64 hosts sending 2 MB each to host 0
#   gpt13b-128     examples/llm-gpt13b-128.ini (one iteration)
#   moe8x13b-128   examples/llm-moe8x13b-128.ini
#   gpt22b-256     examples/llm-gpt22b-256.ini
# Scale rows, no packet-level baseline (only the fast strategies):
#   gpt175b-1024   examples/llm-gpt175b-1024.ini with fluid and hygra
#   moe32x22b-1024 examples/llm-moe32x22b-1024.ini with fluid and hygra
#   allreduce-65536  examples/allreduce-65536.ini: one 160 MB DP all-reduce
#                  bucket over the 65,536 GPUs of a rail fabric, with fluid
#
# usage: bench/accel.sh [SCENARIO ...]
#   (default: every scenario; ACCELS="fluid hygra wormhole" the strategies,
#   SCALE_ACCELS="fluid hygra" those of the 1,024-GPU rows, BASELINE=0 no
#   packet-level run (no error columns), MAX_WALL=seconds per run, default
#   1800; FORCE=1 runs again what exists; NOISE=0 no noise floor, else a
#   perturbed twin of each packet-level run ([sim] perturb = PERTURB, 1ns)
#   and, after the table, each accelerated row's errors next to the twin's
#   from `warpsim compare --noise`, docs/acceleration.md "The noise floor")
# Outputs go to bench/out/acc-*/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
max_wall=${MAX_WALL:-1800}
accels=${ACCELS:-fluid hygra wormhole}
scale_accels=${SCALE_ACCELS:-fluid hygra}
baseline=${BASELINE:-1}
noise=${NOISE:-1}
perturb=${PERTURB:-1ns}
all="perm-k8 incast-64 gpt13b-128 moe8x13b-128 gpt22b-256 gpt175b-1024 moe32x22b-1024 allreduce-65536"
scenarios=${*:-$all}
mkdir -p "$out"
. "$here/summary-lib.sh"

# ini SCENARIO: the configuration file of a scenario (written for traces)
ini() {
	case "$1" in
	perm-k8)
		"$here/gen-permutation.sh" 128 16000000 1 > "$out/acc-perm128.txt"
		"$here/fabric-k8.sh" acc-perm128.txt > "$out/acc-perm-k8.ini"
		echo "$out/acc-perm-k8.ini" ;;
	incast-64)
		awk 'BEGIN { print 64; for (i = 1; i <= 64; i++) printf "%d 0 3 100 2000000 0\n", i }' \
			> "$out/acc-incast64.txt"
		"$here/fabric-k8.sh" acc-incast64.txt > "$out/acc-incast-64.ini"
		echo "$out/acc-incast-64.ini" ;;
	allreduce-65536)
		echo "$top/examples/allreduce-65536.ini" ;;
	*)
		echo "$top/examples/llm-$1.ini" ;;
	esac
}

# num FILE SECTION KEY: a number of `warpsim compare --json` ("-" if absent)
num() {
	awk -v s="\"$2\": {" -v k="\"$3\":" '
		index($0, s) { inside = 1; next }
		inside && /^  }/ { inside = 0 }
		inside && index($0, k) { v = $2; sub(/,$/, "", v); print v; found = 1; exit }
		END { if (!found) print "-" }' "$1"
}

# summary FILE KEY: the first number of KEY in a summary.json
summary() {
	sed -n "s/.*\"$2\": \([0-9][0-9.e+-]*\).*/\1/p" "$1" | head -n 1
}

run() { # run SCENARIO ACCEL: output directory
	dir=$out/acc-$1-$2
	if [ ! -f "$dir/summary.json" ] || [ "${FORCE:-0}" = 1 ]; then
		mkdir -p "$dir"
		"$top/warpsim" run "$(ini "$1")" -o "$dir" --no-progress --max-wall "$max_wall" \
			--set accel.name="$2" > "$dir.txt" 2>&1 || { cat "$dir.txt" >&2; exit 1; }
	fi
	echo "$dir"
}

twin() { # twin SCENARIO: the output directory of the perturbed packet-level twin
	dir=$out/acc-$1-twin
	if [ ! -f "$dir/summary.json" ] || [ "${FORCE:-0}" = 1 ]; then
		mkdir -p "$dir"
		"$top/warpsim" run "$(ini "$1")" -o "$dir" --no-progress --max-wall "$max_wall" \
			--set sim.perturb="$perturb" > "$dir.txt" 2>&1 || { cat "$dir.txt" >&2; exit 1; }
	fi
	echo "$dir"
}


pct() { # pct VALUE: a fraction as a percentage, "-" kept
	case "$1" in -) echo - ;; *) awk -v v="$1" 'BEGIN { printf "%.3f%%", v * 100 }' ;; esac
}

printf '%-16s %-9s %10s %14s %9s %9s %10s %10s %10s\n' scenario accel wall_s events \
	speedup ev_ratio fct_mean fct_p99 iter_err
noise_rows=""
for sc in $scenarios; do
	case "$sc" in
	gpt175b-1024|moe32x22b-1024) list=$scale_accels; base= ;;
	allreduce-65536) list=fluid; base= ;;
	*) list=$accels; base=
	   [ "$baseline" = 0 ] || base=$(run "$sc" none) ;;
	esac
	if [ -n "$base" ]; then
		printf '%-16s %-9s %10.2f %14d %9s %9s %10s %10s %10s\n' "$sc" none \
			"$(summary "$base/summary.json" run_s)" "$(summary "$base/summary.json" events)" \
			- - - - -
	fi
	for a in $list; do
		d=$(run "$sc" "$a")
		w=$(summary "$d/summary.json" run_s)
		e=$(summary "$d/summary.json" events)
		if [ -z "$base" ]; then
			printf '%-16s %-9s %10.2f %14d %9s %9s %10s %10s %10s\n' "$sc" "$a" "$w" "$e" \
				- - - - -
			continue
		fi
		"$top/warpsim" compare "$base" "$d" --json "$d.cmp.json" > "$d.cmp.txt" 2>&1 ||
			{ cat "$d.cmp.txt" >&2; exit 1; }
		if [ "$noise" != 0 ]; then
			"$top/warpsim" compare --noise "$base" "$(twin "$sc")" "$d" --csv "$d.noise.csv" \
				> "$d.noise.txt" 2>&1 || { cat "$d.noise.txt" >&2; exit 1; }
			noise_rows="$noise_rows$(printf '%-16s %-9s %22s %22s %22s %6s' "$sc" "$a" \
				"$(noise_cell "$d.noise.csv" fct mean)" "$(noise_cell "$d.noise.csv" fct p99)" \
				"$(noise_cell "$d.noise.csv" iteration mean)" \
				"$(noise_within "$d.noise.csv")")
"
		fi
		j=$d.cmp.json
		printf '%-16s %-9s %10.2f %14d %8.1fx %8.1fx %10s %10s %10s\n' "$sc" "$a" "$w" "$e" \
			"$(num "$j" wall_s speedup)" "$(num "$j" events ratio)" \
			"$(pct "$(num "$j" fct_error mean)")" "$(pct "$(num "$j" fct_error p99)")" \
			"$(pct "$(num "$j" iteration_error mean)")"
	done
done
if [ -n "$noise_rows" ]; then
	echo
	echo "noise floor: candidate / band (the twin's error: packet level, [sim] perturb = $perturb;"
	echo "whole tables in $out/acc-*.noise.txt)"
	printf '%-16s %-9s %22s %22s %22s %6s\n' scenario accel "FCT mean" "FCT p99" \
		"iteration mean" within
	printf '%s' "$noise_rows"
fi
