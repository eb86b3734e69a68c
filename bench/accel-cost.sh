#!/bin/sh
# accel-cost.sh: does any accelerator cost more than packet level?  The
# issue-27 rule: on every example, every SimAI/AICB file of
# ../shared/data/simai/ and the size sweep (both orders), no accelerator
# takes more than 1.05x the CPU of `none`.
#
# CPU is measured as instructions (user space, the whole process), counted
# by valgrind's cachegrind (`--cache-sim=no`): deterministic, so one run
# each is a figure even on a shared machine (perf's instruction counter is
# not available in this VM).  cachegrind runs about 50x slower than the
# program, so a row whose packet-level run is large is measured instead as
# user CPU seconds, the median ratio of PAIRS alternated pairs (how = cpu);
# the rows that run in hours at packet level are not run (see the end).
# Scaled rows say so in their name: a CDF workload with FLOWS flows,
# AICB files at a smaller comm_scale, the size sweep cut to SWEEP_SIZES.
#
# usage: bench/accel-cost.sh [NAME ...]   (default: every row)
#   ACCELS="wormhole hygra fluid", FLOWS=300, PAIRS=3, SWEEP_SIZES=13
#   (4 KB to 16 MB under cachegrind; the whole sweep is bench/accel-sweep.sh),
#   FORCE=1 measures again what exists.
# Prints one line a row: the packet-level count and each accelerator's
# ratio to it, "!" after a ratio above 1.05, "-" where the accelerator
# refused the scenario.  Outputs in bench/out/cost/ (not committed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/cost
accels=${ACCELS:-wormhole hygra fluid}
flows=${FLOWS:-300}
pairs=${PAIRS:-3}
ssizes=${SWEEP_SIZES:-13}
data=$top/../shared/data/simai
mkdir -p "$out"

# the size sweep (as bench/accel-sweep.sh builds it, cut to ssizes)
n=$(($(wc -l < "$data/all_reduce.txt") - 2))
[ "$ssizes" -lt "$n" ] && n=$ssizes
{ head -n 1 "$data/all_reduce.txt"; echo "$n"; tail -n +3 "$data/all_reduce.txt" | head -n "$n"; } > "$out/up.txt"
{ head -n 1 "$data/all_reduce.txt"; echo "$n"; tail -n +3 "$data/all_reduce.txt" | head -n "$n" | tac; } > "$out/down.txt"
sed '/^\[sweep\]/,$d' "$top/examples/lb-permutation.ini" > "$out/lb-permutation.ini"
for o in up down; do
	printf '[sim]\nseed = 1\n[topology]\nname = rail\ngpus_per_server = 8\nservers_per_unit = 4\nunits = 1\n[cc]\nname = dcqcn\n[workload]\nname = simai\nfile = %s.txt\niterations = 1\n' \
		"$o" > "$out/sweep-$o.ini"
done

# the rows: NAME HOW INI [--set ...]
rows() {
	for e in quickstart clos dcqcn-paper dctcp dragonfly dragonfly-failure hpcc timely \
		rail ns3-fat reference simai nscc swift failure-allreduce; do
		echo "$e ir examples/$e.ini"
	done
	# lb-permutation's base scenario (its [sweep] axes: the routing rules)
	echo "lb-permutation ir $out/lb-permutation.ini --set workload.file=$top/examples/lb-permutation-flows.txt"
	for e in websearch websearch-dctcp websearch-hpcc websearch-timely irn-lossy tiers uet-spray; do
		echo "$e-$flows ir examples/$e.ini --set workload.flows=$flows"
	done
	echo "sweep-up-$ssizes ir $out/sweep-up.ini"
	echo "sweep-down-$ssizes ir $out/sweep-down.ini"
	s="--set topology.gpus_per_server=8 --set topology.servers_per_unit=8"
	echo "simai-microAllReduce-4gps ir examples/simai.ini --set workload.file=$data/microAllReduce.txt" \
	     "--set topology.gpus_per_server=4 --set topology.servers_per_unit=4"
	for m in all_reduce all_to_all; do
		echo "aicb-$m-0.001 ir examples/simai.ini --set workload.file=$data/$m.txt $s" \
		     "--set workload.comm_scale=0.001"
	done
	echo "aicb-gpt13b-0.001 ir examples/simai.ini --set workload.file=$data/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt" \
	     "$s --set workload.gpus=64 --set workload.comm_scale=0.001"
	echo "aicb-llama7b-0.001 ir examples/simai.ini --set workload.file=$data/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt" \
	     "$s --set workload.gpus=64 --set workload.comm_scale=0.001"
	echo "simai-spectrumx-0.01 cpu examples/simai-spectrumx.ini --set workload.comm_scale=0.01"
	echo "llm cpu examples/llm.ini"
	echo "websearch cpu examples/websearch.ini"
}

# ir DIR INI SETS...: the run's instructions
ir() {
	d=$1 ini=$2
	shift 2
	if [ ! -f "$d.ir" ] || [ "${FORCE:-0}" = 1 ]; then
		rm -f "$d/summary.json"
		# shellcheck disable=SC2086
		nice -n 10 "$top/libtool" --mode=execute valgrind --tool=cachegrind --cache-sim=no \
			--cachegrind-out-file=/dev/null "$top/warpsim" run "$ini" -o "$d" -q \
			--no-progress "$@" > "$d.txt" 2>&1 || true
		# a refused scenario (no summary) is "-"
		if [ -f "$d/summary.json" ]; then
			awk '/I *refs:/ { v = $NF; gsub(/,/, "", v); print v }' "$d.txt" > "$d.ir"
		else
			echo - > "$d.ir"
		fi
	fi
	cat "$d.ir"
}

# cpu DIR INI SETS...: user CPU seconds of one run
cpu() {
	d=$1 ini=$2
	shift 2
	# shellcheck disable=SC2086
	/usr/bin/time -f %U -o "$d.time" nice -n 10 "$top/warpsim" run "$ini" -o "$d" -q \
		--no-progress "$@" > "$d.txt" 2>&1 || { echo -; return 0; }
	cat "$d.time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

ratio() { # ratio A B: B / A with "!" above 1.05, "-" when either is missing
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || a + 0 == 0) { print "-"; exit }
		r = b / a; printf "%.3f%s\n", r, (r > 1.05) ? "!" : "" }'
}

printf '%-28s %-4s %14s' row how none
for a in $accels; do printf ' %10s' "$a"; done
echo
want=${*:-}
rows | while read -r name how ini sets; do
	if [ -n "$want" ]; then
		case " $want " in *" $name "*) ;; *) continue ;; esac
	fi
	case $ini in /*) ;; *) ini=$top/$ini ;; esac
	line=""
	if [ "$how" = ir ]; then
		# shellcheck disable=SC2086
		base=$(ir "$out/$name-none" "$ini" --set accel.name=none $sets)
		for a in $accels; do
			# shellcheck disable=SC2086
			line="$line $(printf '%10s' "$(ratio "$base" "$(ir "$out/$name-$a" "$ini" --set accel.name="$a" $sets)")")"
		done
		printf '%-28s %-4s %14s%s\n' "$name" "$how" "$base" "$line"
	else
		bases=""
		for a in $accels; do
			rs=""
			k=0
			while [ "$k" -lt "$pairs" ]; do
				# shellcheck disable=SC2086
				b=$(cpu "$out/$name-none" "$ini" --set accel.name=none $sets)
				# shellcheck disable=SC2086
				c=$(cpu "$out/$name-$a" "$ini" --set accel.name="$a" $sets)
				bases="$bases $b"
				rs="$rs $(awk -v a="$b" -v b="$c" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.4f\n", b / a }')"
				k=$((k + 1))
			done
			m=$(echo "$rs" | tr ' ' '\n' | grep -v '^$' | median)
			line="$line $(printf '%10s' "$(ratio 1 "$m")")"
		done
		printf '%-28s %-4s %13ss%s\n' "$name" "$how" "$(echo "$bases" | tr ' ' '\n' | grep -v '^$' | median)" "$line"
	fi
done
echo
echo "ir: instructions (cachegrind), accelerator / none; cpu: user seconds, median of $pairs alternated pairs"
echo "not run (hours at packet level): llm-gpt7b-64, llm-gpt13b-128, llm-gpt22b-256, llm-moe8x7b-64,"
echo "  llm-moe8x13b-128, llm-moe8x22b-256, llm-gpt175b-1024, llm-moe32x22b-1024, allreduce-65536;"
echo "  the sweep-*.ini files are sweeps over the quickstart and websearch rows"
