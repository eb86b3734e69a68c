#!/bin/sh
# tiers.sh: examples/tiers.ini (k = 8 fat-tree, WebSearch at load 0.5,
# DCQCN) with its per-tier settings and with every *_tier* key removed (the
# uniform default fabric), side by side: the largest base RTT, FCT
# slowdown, and where the ECN marks and drops happened, by switch level (k
# = 8: nodes 128-159 are edge switches, 160-191 aggregation, 192-207 core).
# Prints one line per variant.  Run from the build directory:
#     nice -n 10 bench/tiers.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ws="$top/warpsim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '_tier' "$top/examples/tiers.ini" > "$tmp/uniform.ini"
printf '%-8s %14s %8s %8s %8s %10s %10s %10s\n' variant max_base_rtt_us \
	p50 p99 max marks_edge marks_agg marks_core
for v in tiers uniform; do
	ini="$top/examples/tiers.ini"
	[ "$v" = uniform ] && ini="$tmp/uniform.ini"
	"$ws" run "$ini" -o "$tmp/$v" --set output.ports=true \
		--set workload.file="$top/examples/cdf/WebSearch.txt" > "$tmp/$v.txt"
	rtt=$(sed -n 's/.*"max_base_rtt_ps": \([0-9]*\).*/\1/p' "$tmp/$v/summary.json")
	slow=$(sed -n 's/.*slowdown   mean [^,]*, p50 \([^,]*\), p99 \([^,]*\), max \([^ ]*\).*/\1 \2 \3/p' "$tmp/$v.txt")
	marks=$(awk -F, 'NR > 1 { l = $1 < 128 ? 0 : $1 < 160 ? 1 : $1 < 192 ? 2 : 3; m[l] += $9 }
		END { printf "%d %d %d", m[1], m[2], m[3] }' "$tmp/$v/ports.csv")
	# shellcheck disable=SC2086
	printf '%-8s %14.3f %8s %8s %8s %10s %10s %10s\n' "$v" \
		"$(echo "$rtt / 1000000" | bc -l)" $slow $marks
done
