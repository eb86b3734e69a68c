#!/bin/sh
# timeline.sh: the size of timeline.json and the cost of writing it, on the
# GPT-13B / 128 GPUs example (TP 8 x DP 4 x PP 4, 8 micro-batches): the run
# with [output] timeline = true (wormhole by default: the spans are the
# DAG's, only their times depend on the accelerator), the file's size and
# span count, and a parse with python3's json module when there is one.
#
# usage: bench/timeline.sh [ACCEL]   (ACCEL: wormhole (default) or none,
#        packet level, about 3 CPU minutes)
# Run it with `nice -n 10`.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
accel=${1:-wormhole}
out=${OUT:-$top/out/bench-timeline}
mkdir -p "$out"
dir=$out/gpt13b-128-$accel
t0=$(date +%s.%N)
"$top/warpsim" run -q "$top/examples/llm-gpt13b-128.ini" -o "$dir" --no-progress \
	--set output.timeline=true --set accel.name="$accel"
t1=$(date +%s.%N)
bytes=$(wc -c < "$dir/timeline.json")
spans=$(grep -c '"ph":"X"' "$dir/timeline.json")
colls=$(($(wc -l < "$dir/collectives.csv") - 1))
printf 'run %.1f s wall; timeline.json %d bytes (%.1f MB), %d spans; %d collectives\n' \
	"$(echo "$t1 - $t0" | bc)" "$bytes" "$(echo "$bytes / 1000000" | bc -l)" "$spans" "$colls"
[ "$bytes" -lt 50000000 ] || { echo "timeline.json is 50 MB or more" >&2; exit 1; }
if command -v python3 > /dev/null; then
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
x = [e for e in d["traceEvents"] if e["ph"] == "X"]
print("parsed: %d events, %d spans, %d GPUs" % (len(d["traceEvents"]), len(x),
      len({e["pid"] for e in x})))' "$dir/timeline.json"
fi
