#!/bin/sh
# docs-figures.sh: re-measure the cheap figures README.md and docs/ quote
# and list how far each one has drifted from what the text says
# (`make docs-figures`; not part of `make check`).  Each claim is read out
# of the document by a pattern, so the list shows the number the text
# gives today, the number this build measures, and the drift:
#
#   wormhole on examples/llm.ini   README "runs N times fewer events", its
#                                  mean FCT and iteration-time errors
#                                  (event counts: deterministic)
#   rail 65,536 GPUs build         README "routing-ready in N s (median)",
#                                  CPU seconds, median of 3 (bench/topo.sh's
#                                  R64K fabric)
#   dragonfly 1.1M endpoints       README "dragonfly in N s and M GiB",
#                                  docs/config.md's table row: CPU seconds
#                                  and peak RSS of `warpsim topo`
#
# Times are CPU seconds (`warpsim topo` and summary.json's run_cpu_s), not
# wall, so a loaded machine moves them less; they still vary by 10-30 %.
# A claim is flagged STALE when it is off by more than its tolerance (0.5 %
# for deterministic counts and errors, 35 % for times and memory) and by
# more than the rounding of the number as the text writes it.  The
# expensive figures (the acceleration tables, the 65,536-GPU all-reduce)
# are printed by their own scripts, listed at the end.
#
# usage: bench/docs-figures.sh [llm|topo|all]   (default: all)
# Outputs go to bench/out/docs-figures/ (not committed).  Build first.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/docs-figures
which=${1:-all}
ws="nice -n 10 $top/warpsim"
mkdir -p "$out"
stale=0

# documented FILE SED-REGEX: the number the document gives (its lines
# joined, so a sentence may wrap), "?" when the pattern is gone
documented() {
	v=$(tr '\n' ' ' < "$top/$1" | sed -n "s/.*$2.*/\\1/p" | head -1)
	echo "${v:-?}"
}

# row CLAIM FILE DOCUMENTED MEASURED TOLERANCE(fraction)
row() {
	awk -v c="$1" -v f="$2" -v d="$3" -v m="$4" -v t="$5" 'BEGIN {
		d2 = d; gsub(/,/, "", d2)
		if (d2 == "?" || d2 + 0 == 0) { drift = "n/a"; flag = (d2 == "?") ? "TEXT CHANGED" : "" }
		else {
			x = (m - d2) / d2
			drift = sprintf("%+.1f %%", 100 * x)
			# within the tolerance, or within the rounding of the text
			# (0.19 quotes 0.185 to 0.195)
			dec = index(d2, ".") ? length(d2) - index(d2, ".") : 0
			half = 0.5 / 10 ^ dec
			off = m - d2; if (off < 0) off = -off
			flag = (off <= half || (x <= t && x >= -t)) ? "ok" : "STALE"
		}
		printf "%-44s %-17s %12s %12s %9s  %s\n", c, f, d, m, drift, flag
		exit flag == "STALE" || flag == "TEXT CHANGED"
	}' || stale=$((stale + 1))
}

json_num() { # FILE KEY: the first number of "KEY": in a summary.json (typed or string)
	sed -n "s/.*\"$2\": \"\\{0,1\\}\\([0-9.e+-]*\\)\"\\{0,1\\}[,]\\{0,1\\}\$/\\1/p" "$1" | head -1
}

printf 'warpsim docs figures, %s, %s (%s cores)\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
	"$(uname -m)" "$(nproc)"
printf '%-44s %-17s %12s %12s %9s\n' claim document documented measured drift

case "$which" in llm|all)
	$ws run -q --no-progress "$top/examples/llm.ini" -o "$out/llm-packet" || true
	$ws run -q --no-progress "$top/examples/llm.ini" --set accel.name=wormhole \
		-o "$out/llm-wh" || true
	"$top/warpsim" compare --errors "$out/llm-packet" "$out/llm-wh" > "$out/llm-compare.txt"
	ratio=$(awk '/^  events / { print $NF }' "$out/llm-compare.txt")
	fct=$(awk '/^  FCT error / { v = $4; sub(/%,/, "", v); print v }' "$out/llm-compare.txt")
	iter=$(awk '/error mean/ && /iteration/ { for (i = 1; i <= NF; i++) if ($i == "mean") { v = $(i + 1); sub(/%,?/, "", v); print v } }' "$out/llm-compare.txt")
	row "wormhole llm.ini: times fewer events" README.md \
		"$(documented README.md 'On that example it runs \([0-9.,]*\) times fewer events')" "$ratio" 0.005
	row "wormhole llm.ini: mean FCT error (%)" README.md \
		"$(documented README.md 'times fewer events with a mean FCT error of \([0-9.]*\) %')" "$fct" 0.005
	row "wormhole llm.ini: iteration error (%)" README.md \
		"$(documented README.md 'and an iteration-time error of \([0-9.]*\) %')" "${iter:-?}" 0.005 ;;
esac

# topo_cpu NAME INI-BODY: "CPU-seconds peak-RSS-GiB" of warpsim topo
topo_cpu() {
	printf '%s\n' "$2" > "$out/$1.ini"
	$ws topo "$out/$1.ini" > "$out/$1.txt"
	awk '/^  build / { b = $2 } /^  memory / { for (i = 1; i <= NF; i++) if ($i == "RSS") { r = $(i + 1); u = $(i + 2) } }
	     END { g = r; if (u == "MiB") g = r / 1024; if (u == "KiB") g = r / 1048576; printf "%.3f %.2f\n", b, g }' "$out/$1.txt"
}

case "$which" in topo|all)
	R64K='[topology]
name = rail
tiers = 3
servers_per_unit = 64
units = 128
units_per_pod = 8
spine_links = 8
leaf_radix = 128
spine_radix = 128
core_radix = 128'
	t=$( (topo_cpu rail-65536 "$R64K"; topo_cpu rail-65536 "$R64K"; topo_cpu rail-65536 "$R64K") |
		awk '{ print $1 }' | sort -g | sed -n 2p)
	row "rail 65,536 GPUs: build CPU s (median of 3)" README.md \
		"$(documented README.md 'rail-optimized fabric is routing-ready in \([0-9.]*\) s')" "$t" 0.35
	DF='[topology]
name = dragonfly
p = 23
a = 46
h = 23
[routing]
name = dragonfly
mode = ugal'
	set -- $(topo_cpu dragonfly-1.1M "$DF")
	row "dragonfly 1.1M endpoints: build CPU s" README.md \
		"$(documented README.md 'million-endpoint dragonfly in \([0-9.]*\) s and')" "$1" 0.35
	row "dragonfly 1.1M endpoints: peak RSS GiB" README.md \
		"$(documented README.md 'million-endpoint dragonfly in [0-9.]* s and \([0-9.]*\) GiB')" "$2" 0.35
	row "dragonfly 1.1M endpoints: build s (table)" docs/config.md \
		"$(documented docs/config.md '| 1,120,422 | 48,714 | 2,776,698 | \([0-9.]*\) CPU s')" "$1" 0.35
	row "dragonfly 1.1M endpoints: memory GB (table)" docs/config.md \
		"$(documented docs/config.md '| 1,120,422 | 48,714 | 2,776,698 | [^|]* | \([0-9.]*\) GB |')" \
		"$(awk -v g="$2" 'BEGIN { printf "%.2f", g * 1.073741824 }')" 0.35 ;;
esac

cat <<EOF

Printed by their own scripts (minutes to hours; run them with nice -n 10):
  bench/wormhole.sh, bench/accel.sh   acceleration tables (README, docs/performance.md)
  bench/cc.sh, bench/transport.sh     per-CC cost and outcome tables
  bench/topo.sh                       every fabric of docs/performance.md's topology table
  bench/accel.sh allreduce-65536      the 65,536-GPU all-reduce (docs/performance.md)
EOF
echo "$stale claim(s) drifted beyond their tolerance"
