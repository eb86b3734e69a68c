#!/bin/sh
# simai-topo.sh: a SimAI workload file, unchanged, on a Spectrum-X-shaped
# SimAI topology file of N GPUs written by scripts/gen-simai-topo.py (issue
# 29's target: 1,024 GPUs).  Runs AICB's GPT-13B file (TP 8, DP N/8) under
# `fluid` and at packet level (DCQCN, cut at MAX_WALL seconds, default 300)
# and prints the summary lines of each run.
#
# usage: bench/simai-topo.sh [N]   (default 1024; outputs in bench/out/)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
n=${1:-1024}
max_wall=${MAX_WALL:-300}
mkdir -p "$out"
topo=$out/simai-spectrumx-$n.txt
python3 "$top/scripts/gen-simai-topo.py" -g "$n" -o "$topo"
for accel in fluid none; do
	ini=$out/simai-topo-$n-$accel.ini
	cat > "$ini" <<EOI
[topology]
name = simai
file = $topo
[cc]
name = dcqcn
[accel]
name = $accel
[workload]
name = simai
file = $top/tests/data/simai/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt
EOI
	st=0
	/usr/bin/time -f "  cpu %U s user, %S s sys, peak RSS %M KiB" \
		"$top/warpsim" run "$ini" -o "$out/simai-topo-$n-$accel" --no-progress \
		--max-wall "$max_wall" > "$out/simai-topo-$n-$accel.txt" 2>&1 || st=$?
	echo "== $n GPUs, accel $accel (status $st)"
	grep -E 'fabric|flows|sim time|wall time|iteration|cpu ' "$out/simai-topo-$n-$accel.txt"
done
