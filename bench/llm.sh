#!/bin/sh
# llm.sh: packet-level baselines of the LLM training workloads (one
# iteration, DCQCN, no acceleration) on rail-optimized fabrics: the four GPT
# reference configurations of examples/llm-*.ini.  Prints, per run: GPUs,
# wall time, events, events/s, peak RSS, the simulated iteration time and
# the exposed-communication share; a run cut by the wall-clock budget prints
# how far it got (simulated time and simulated seconds per wall second).
#
# usage: bench/llm.sh [gpt7b-64 gpt13b-128 gpt22b-256 gpt175b-1024 ...]
#        (default: all four; MAX_WALL=seconds per run, default 1800;
#         any examples/llm-NAME.ini works, the MoE ones included)
# Outputs go to bench/out/llm-NAME/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
max_wall=${MAX_WALL:-1800}
names=${*:-gpt7b-64 gpt13b-128 gpt22b-256 gpt175b-1024}
mkdir -p "$out"

json_num() { # json_num FILE KEY: the first numeric value of "KEY"
	sed -n "s/.*\"$2\": \([0-9][0-9.e+-]*\).*/\1/p" "$1" | head -n 1
}

printf '%-16s %6s %10s %12s %10s %9s %14s %8s\n' config GPUs wall_s events \
	Mevents/s RSS_MiB iteration exposed
for n in $names; do
	ini=$top/examples/llm-$n.ini
	[ -f "$ini" ] || { echo "no such example: $ini" >&2; exit 2; }
	dir=$out/llm-$n
	st=0
	"$top/warpsim" run "$ini" -o "$dir" --no-progress --max-wall "$max_wall" \
		> "$dir.txt" 2>&1 || st=$?
	# 4: stopped by --max-wall, outputs written
	[ "$st" -eq 0 ] || [ "$st" -eq 4 ] || { cat "$dir.txt" >&2; exit 1; }
	s=$dir/summary.json
	gpus=$(json_num "$s" gpus)
	wall=$(json_num "$s" run_s)
	ev=$(json_num "$s" events)
	rss=$(json_num "$s" peak_rss_kib)
	done_=$(json_num "$s" iterations_done)
	if [ "$done_" -ge 1 ]; then
		it=$(json_num "$s" iteration_mean_s)
		exp=$(json_num "$s" exposed_comm_share)
		iter=$(awk -v t="$it" 'BEGIN { printf "%.3f ms", t * 1e3 }')
		exposed=$(awk -v x="$exp" 'BEGIN { printf "%.1f %%", x * 100 }')
	else
		simt=$(json_num "$s" sim_time_ps)
		iter=$(awk -v t="$simt" 'BEGIN { printf "cut at %.3f ms", t / 1e9 }')
		exposed=$(awk -v t="$simt" -v w="$wall" 'BEGIN { printf "%.3g sim-s/s", t / 1e12 / w }')
	fi
	printf '%-16s %6s %10.1f %12s %10.2f %9.0f %14s %8s\n' "$n" "$gpus" "$wall" "$ev" \
		"$(awk -v e="$ev" -v w="$wall" 'BEGIN { print e / w / 1e6 }')" \
		"$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" "$iter" "$exposed"
done
