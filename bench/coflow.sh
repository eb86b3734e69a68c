#!/bin/sh
# coflow.sh: `[workload] collectives = coflow` (each collective across
# servers one fluid coflow, docs/workloads.md) against per-flow `fluid` on
# the training examples and a real AICB file: the iteration of each, its
# difference, and the CPU (user seconds, /usr/bin/time), fluid and coflow
# alternated per row.  With NONE=1 also packet level (`none`; minutes a
# row), the reference the two are compared with.
#
# usage: bench/coflow.sh   (build first; outputs in bench/out/coflow-*/)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
mkdir -p "$out"

# a row: NAME INI [--set ...]
rows() {
	echo "gpt13b-128 $top/examples/llm-gpt13b-128.ini"
	echo "gpt22b-256 $top/examples/llm-gpt22b-256.ini"
	echo "moe8x7b-64 $top/examples/llm-moe8x7b-64.ini"
	echo "moe8x13b-128 $top/examples/llm-moe8x13b-128.ini"
	echo "moe8x13b-128-mb2 $top/examples/llm-moe8x13b-128.ini --set workload.micro_batches=2"
	echo "simai-spectrumx $top/examples/simai-spectrumx.ini"
}

run() { # run DIR INI [args]: "user_s iteration_ns"
	dir=$1 ini=$2
	shift 2
	/usr/bin/time -f '%U' -o "$dir.time" "$top/warpsim" run "$ini" -o "$dir" -q \
		--no-progress "$@" > "$dir.txt" 2>&1
	echo "$(tail -n 1 "$dir.time") $(sed -n '2p' "$dir/iterations.csv" | cut -d, -f4)"
}

printf '%-18s %14s %14s %9s %8s %8s %14s %9s\n' row fluid_ns coflow_ns diff_% \
	fluid_s coflow_s none_ns cf_vs_none
rows | while read -r name ini extra; do
	# shellcheck disable=SC2086
	set -- $(run "$out/coflow-$name-fluid" "$ini" --set accel.name=fluid $extra)
	fs=$1 fi=$2
	# shellcheck disable=SC2086
	set -- $(run "$out/coflow-$name-coflow" "$ini" --set workload.collectives=coflow $extra)
	cs=$1 ci=$2
	ni=- nd=-
	if [ "${NONE:-0}" = 1 ]; then
		# shellcheck disable=SC2086
		set -- $(run "$out/coflow-$name-none" "$ini" $extra)
		ni=$2
		nd=$(echo "100 * ($ci - $ni) / $ni" | bc -l | xargs printf '%.3f')
	fi
	printf '%-18s %14s %14s %9.3f %8s %8s %14s %9s\n' "$name" "$fi" "$ci" \
		"$(echo "100 * ($ci - $fi) / $fi" | bc -l)" "$fs" "$cs" "$ni" "$nd"
done
