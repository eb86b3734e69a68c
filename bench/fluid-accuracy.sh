#!/bin/sh
# fluid-accuracy.sh: fluid's iteration error against packet level on every
# training file (issue 27 item 5): the SimAI/AICB files of
# ../shared/data/simai/ on a rail fabric, and the llm / simai examples.
# For each row it runs packet level (accel none), fluid with the defaults,
# and fluid with each VARIANT, and prints the packet-level events and CPU,
# each fluid run's CPU and its iteration / mean FCT / p99 FCT errors from
# `warpsim compare`.  With TWIN=1 it also runs a packet-level twin ([sim]
# perturb = 1ns) and writes `warpsim compare --noise` of each fluid run
# next to it (*.noise.txt, the chaos band).
#
# usage: bench/fluid-accuracy.sh [ROW ...]      (default: every row below)
#   VARIANTS="name:--set,accel.x=y ..."  fluid variants beyond the default
#            (default: "ack:--set,accel.ack_load=true"); "-" none
#   TWIN=1   also the perturbed twin and the noise band (default 0)
#   MAX_WALL seconds a packet-level run may take (default 1800); a row
#            whose packet-level run is stopped prints "-" for its errors
#   FORCE=1  run again what exists
# CPU seconds are user + system of the whole process (/usr/bin/time).
# Outputs go to bench/out/fa-*/ (not committed).  Build first: ./bootstrap
# Not here: GPT-22B/256 and the 1,024-GPU examples (20 minutes to hours at
# packet level on the 2-core machine; bench/accel.sh has them).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
data=$top/../shared/data/simai
max_wall=${MAX_WALL:-1800}
variants=${VARIANTS:-ack:--set,accel.ack_load=true}
[ "$variants" = - ] && variants=
twin=${TWIN:-0}
mkdir -p "$out"
. "$here/summary-lib.sh"

rail64="--set topology.gpus_per_server=8 --set topology.servers_per_unit=8"
# the rows: NAME INI [--set ...]
rows() {
	echo "llm examples/llm.ini"
	echo "simai-micro examples/simai.ini"
	# AICB micro-benchmarks: 19 sizes, 4 KiB-1 GiB scaled by 0.001, 64 GPUs
	for m in all_reduce all_to_all; do
		echo "aicb-$m examples/simai.ini --set workload.file=$data/$m.txt $rail64" \
		     "--set workload.comm_scale=0.001"
	done
	# AICB model files on 64 GPUs (DP over the rails), collectives x 0.01
	echo "aicb-gpt13b examples/simai.ini" \
	     "--set workload.file=$data/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt" \
	     "$rail64 --set workload.gpus=64 --set workload.comm_scale=0.01"
	echo "aicb-llama7b examples/simai.ini" \
	     "--set workload.file=$data/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt" \
	     "$rail64 --set workload.gpus=64 --set workload.comm_scale=0.01"
	for e in llm-gpt7b-64 llm-moe8x7b-64 llm-gpt13b-128 llm-moe8x13b-128; do
		echo "$e examples/$e.ini"
	done
}

# one NAME TAG INI SETS...: run once into fa-NAME-TAG (kept when it exists)
one() {
	n=$1 t=$2 ini=$3
	shift 3
	d=$out/fa-$n-$t
	if [ -f "$d/summary.json" ] && [ "${FORCE:-0}" != 1 ]; then
		return 0
	fi
	mkdir -p "$d"
	st=0
	# shellcheck disable=SC2086
	/usr/bin/time -f '%U %S' -o "$d.time" "$top/warpsim" run "$top/$ini" -o "$d" -q \
		--no-progress --max-wall "$max_wall" "$@" > "$d.txt" 2>&1 || st=$?
	# 4: stopped by --max-wall, outputs written
	[ "$st" -eq 0 ] || [ "$st" -eq 4 ] || { cat "$d.txt" >&2; exit 1; }
}

# cpu RUN: user + system seconds (the last line: time notes an exit status above it)
cpu() { awk 'END { printf "%.2f", $1 + $2 }' "$out/fa-$1.time"; }
# iter RUN: the mean iteration time of a run (s)
iter() { sed -n 's/.*"iteration_mean_s": \([0-9.e+-]*\).*/\1/p' "$out/fa-$1/summary.json" | head -n 1; }
events() { awk '/"events": [0-9]/ { v = $2; sub(/,$/, "", v); print v; exit }' "$out/fa-$1/summary.json"; }

# num FILE SECTION KEY: a number of `warpsim compare --json` ("-" if absent)
num() {
	awk -v s="\"$2\": {" -v k="\"$3\":" '
		index($0, s) { inside = 1; next }
		inside && /^  }/ { inside = 0 }
		inside && index($0, k) { v = $2; sub(/,$/, "", v); print v; found = 1; exit }
		END { if (!found) print "-" }' "$1"
}
pct() { case "$1" in -) echo - ;; *) awk -v v="$1" 'BEGIN { printf "%+.3f%%", v * 100 }' ;; esac; }

printf '%-17s %-6s %13s %8s %11s %9s %9s %9s %9s\n' row run events cpu_s iter_ms iter_err \
	fct_mean fct_p99 fct_bias
want=${*:-}
rows | while read -r name ini sets; do
	if [ -n "$want" ]; then
		case " $want " in *" $name "*) ;; *) continue ;; esac
	fi
	# shellcheck disable=SC2086
	one "$name" none "$ini" $sets
	[ "$twin" = 1 ] && one "$name" twin "$ini" $sets --set sim.perturb=1ns
	# shellcheck disable=SC2086
	one "$name" fluid "$ini" $sets --set accel.name=fluid
	tags=fluid
	for v in $variants; do
		vt=${v%%:*}
		# shellcheck disable=SC2086
		one "$name" "$vt" "$ini" $sets --set accel.name=fluid $(echo "${v#*:}" | tr , ' ')
		tags="$tags $vt"
	done
	base=$out/fa-$name-none
	stopped=$(grep -c '"stopped": *"' "$base/summary.json" || true)
	ia=$(iter "$name-none")
	printf '%-17s %-6s %13s %8s %11.6f %9s %9s %9s %9s\n' "$name" none "$(events "$name-none")" \
		"$(cpu "$name-none")" "$(awk -v v="$ia" 'BEGIN { print v * 1000 }')" - - - -
	for t in $tags; do
		d=$out/fa-$name-$t
		"$top/warpsim" compare "$base" "$d" --json "$d.cmp.json" > "$d.cmp.txt" 2>&1 ||
			{ cat "$d.cmp.txt" >&2; exit 1; }
		if [ "$twin" = 1 ]; then
			"$top/warpsim" compare --noise "$base" "$out/fa-$name-twin" "$d" \
				--csv "$d.noise.csv" > "$d.noise.txt" 2>&1 || cat "$d.noise.txt" >&2
		fi
		j=$d.cmp.json
		ib=$(iter "$name-$t")
		if [ "$stopped" != 0 ]; then
			ie=- fm=- fp=- fb=-
		else
			# signed: (fluid - packet) / packet
			ie=$(pct "$(awk -v a="$ia" -v b="$ib" 'BEGIN { print (b - a) / a }')")
			fm=$(pct "$(num "$j" fct_error mean)")
			fp=$(pct "$(num "$j" fct_error p99)")
			fb=$(pct "$(num "$j" fct_error bias)")
		fi
		printf '%-17s %-6s %13s %8s %11.6f %9s %9s %9s %9s\n' "$name" "$t" \
			"$(events "$name-$t")" "$(cpu "$name-$t")" \
			"$(awk -v v="$ib" 'BEGIN { print v * 1000 }')" "$ie" "$fm" "$fp" "$fb"
	done
done
