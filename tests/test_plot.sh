#!/bin/sh
# `warpsim plot` (docs/outputs.md, "Figures"), checked in the SVGs gnuplot
# writes (skipped when gnuplot is not installed):
# - a sweep's directory: the metric against the numeric axis, one line per
#   value of the other axis (series count, axis labels, tick labels from the
#   values, the averaged axis noted); --x/--y/--by; a bad axis refused with
#   the axes listed and no plots/ left behind; more than 8 series get
#   distinct styles (colour x dash);
# - runs: FCT-by-size in four panels (p50, p95, p99, mean) with ticks as
#   10K/1M, a log CCDF of the slowdown instead of the CDF; a run whose flows
#   all have one size gets no FCT-by-size figure, a note, and no gnuplot
#   message on the terminal;
# - --cc: a line per flow titled with its id, endpoints and size, the
#   top-N and --flows selections, a line per switch port; refused for a
#   run without traces.
set -eu
build=${abs_top_builddir:?}
. "${abs_top_srcdir:?}/tests/prog.sh"
command -v gnuplot > /dev/null 2>&1 || { echo "plot: gnuplot not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "plot: FAILED: $*"; failed=$((failed + 1)); }
series() { grep -c 'id="gnuplot_plot_[0-9]*[a-z]*"' "$1"; }
has_title() { grep -q "<title>$2" "$1"; }

printf '7\n0 5 3 100 100000 0\n1 9 3 100 100000 0\n2 13 3 100 100000 0\n3 6 3 100 100000 0\n4 0 3 100 1000000 0.00002\n8 0 3 100 1000000 0.00002\n12 0 3 100 1000000 0.00002\n' > "$tmp/t.txt"
base='[topology]
name = fat-tree
k = 4
link_rate = 100Gbps
link_delay = 1us
[cc]
name = dcqcn
[workload]
name = flows
file = t.txt'
cat > "$tmp/grid.ini" <<EOF2
$base
[sweep]
cc.name = dcqcn, hpcc
switch.buffer = 2MB, 32MB
sim.seed = 1..2
EOF2
"$prog" sweep -q -j 2 -o "$tmp/sw" "$tmp/grid.ini"

# ---- a sweep: defaults from its axes ----
"$prog" plot "$tmp/sw" > "$tmp/out" 2> "$tmp/err"
f="$tmp/sw/plots/slowdown_p99_vs_switch.buffer.svg"
if [ -f "$f" ] && [ "$(series "$f")" = 2 ] && has_title "$f" dcqcn && has_title "$f" hpcc &&
   grep -q '>switch.buffer<' "$f" && grep -q '>slowdown p99<' "$f" &&
   grep -q '>2MB<' "$f" && grep -q '>32MB<' "$f" &&
   grep -q 'mean over sim.seed (2 values)' "$tmp/err" && [ ! -e "$tmp/sw/plots/gnuplot.log" ]; then ok
else bad "sweep defaults: p99 against switch.buffer, a line per CC"; cat "$tmp/out" "$tmp/err"; fi
# the data: dcqcn's p99 at 2MB is the mean of its two seeds' rows
want=$(awk -F, '$2 == "dcqcn" && $3 == "2MB" { s += $11; n++ } END { printf "%.4f", s / n }' "$tmp/sw/results.csv")
got=$(awk '/^# cc.name = dcqcn/ { on = 1; next } on && $1 == 2000000 { printf "%.4f", $2; exit }' \
	"$tmp/sw/plots/slowdown_p99_vs_switch.buffer.dat")
if [ -n "$want" ] && [ "$want" = "$got" ]; then ok
else bad "sweep data: dcqcn p99 at 2MB is $got, results.csv says $want"; fi

"$prog" plot "$tmp/sw" --x seed --y mean --by switch.buffer > /dev/null 2> "$tmp/err"
f="$tmp/sw/plots/slowdown_mean_vs_sim.seed.svg"
if [ -f "$f" ] && [ "$(series "$f")" = 2 ] && has_title "$f" 2MB && has_title "$f" 32MB &&
   grep -q 'mean over cc.name' "$tmp/err"; then ok
else bad "--x seed --y mean --by switch.buffer"; cat "$tmp/err"; fi

set +e
"$prog" plot "$tmp/sw" --x load -o "$tmp/nope" > /dev/null 2> "$tmp/err"; st=$?
set -e
if [ "$st" = 2 ] && grep -q 'not an axis of the sweep (axes: cc.name switch.buffer sim.seed)' "$tmp/err" &&
   [ ! -e "$tmp/nope" ]; then ok
else bad "--x load: status $st, expected 2, the axes listed, no directory"; cat "$tmp/err"; fi
set +e
"$prog" plot "$tmp/sw/000-dcqcn_2MB_1" --x seed > /dev/null 2> "$tmp/err"; st=$?
set -e
if [ "$st" = 2 ] && grep -q 'for a sweep' "$tmp/err"; then ok
else bad "--x on a run: status $st"; fi

# more series than colours: 10 seeds as lines, every style distinct
cat > "$tmp/seeds.ini" <<EOF2
$base
[sweep]
switch.buffer = 2MB, 32MB
sim.seed = 1..10
EOF2
"$prog" sweep -q -j 2 -o "$tmp/seeds" "$tmp/seeds.ini"
"$prog" plot "$tmp/seeds" --by sim.seed > /dev/null 2>&1
f="$tmp/seeds/plots/slowdown_p99_vs_switch.buffer.svg"
gp="$tmp/seeds/plots/plot.gp"
styles=$(grep -o 'ls [0-9]*' "$gp" | sort -u | wc -l)
s1=$(grep '^set style line 1 ' "$gp" | sed 's/ pt .*//; s/set style line 1 //')
s9=$(grep '^set style line 9 ' "$gp" | sed 's/ pt .*//; s/set style line 9 //')
if [ "$(series "$f")" = 10 ] && [ "$styles" = 10 ] && [ -n "$s1" ] && [ "$s1" != "$s9" ]; then ok
else bad "10 series: $(series "$f") drawn, $styles styles, style 1 '$s1' style 9 '$s9'"; fi

# ---- runs: FCT by size in four panels, the CCDF ----
awk 'BEGIN { print 40; for (i = 0; i < 40; i++) printf "%d %d 3 100 %d %.6f\n", i % 8 + 4, i % 3, 1000 * 2 ^ (i % 14), i * 0.000002 }' > "$tmp/mixed.txt"
printf '%s\n' "$base" | sed 's/t.txt/mixed.txt/' > "$tmp/mixed.ini"
"$prog" run -o "$tmp/mixed" --quiet --no-progress "$tmp/mixed.ini"
"$prog" run -o "$tmp/mixed-hpcc" --set cc.name=hpcc --quiet --no-progress "$tmp/mixed.ini"
"$prog" plot -o "$tmp/two" "$tmp/mixed" "$tmp/mixed-hpcc" > /dev/null 2> "$tmp/err"
f="$tmp/two/fct_by_size.svg"
if [ -f "$f" ] && grep -q '>p50 slowdown<' "$f" && grep -q '>p95 slowdown<' "$f" &&
   grep -q '>p99 slowdown<' "$f" && grep -q '>mean slowdown<' "$f" &&
   grep -q '>10K<' "$f" && grep -q '>1M<' "$f" && ! grep -q '10\^' "$f" &&
   [ "$(series "$f")" = 8 ] && [ -f "$tmp/two/fct_ccdf.svg" ] && [ ! -e "$tmp/two/fct_cdf.svg" ] &&
   grep -q 'at least this slow' "$tmp/two/fct_ccdf.svg" && [ "$(series "$tmp/two/fct_ccdf.svg")" = 2 ]; then ok
else bad "two runs: FCT by size (4 panels x 2 runs, 10K/1M ticks) and the CCDF"; ls "$tmp/two"; cat "$tmp/err"; fi
# the CCDF's last point is the slowest flow, at 1/flows
last=$(tail -1 "$tmp/two/fct_ccdf-0.dat")
max=$(awk -F, 'NR > 1 && $10 > m { m = $10 } END { printf "%.6f 0.025", m }' "$tmp/mixed/fct.csv")
if [ "$last" = "$max" ]; then ok; else bad "CCDF tail '$last', expected '$max'"; fi

# one flow size: no FCT-by-size figure, a note, gnuplot silent
printf '3\n0 5 3 100 100000 0\n1 9 3 100 100000 0\n2 13 3 100 100000 0\n' > "$tmp/same.txt"
printf '%s\n' "$base" | sed 's/t.txt/same.txt/' > "$tmp/same.ini"
"$prog" run -o "$tmp/same" --quiet --no-progress "$tmp/same.ini"
"$prog" plot "$tmp/same" > "$tmp/out" 2> "$tmp/err"
if [ ! -e "$tmp/same/plots/fct_by_size.svg" ] && [ -f "$tmp/same/plots/fct_ccdf.svg" ] &&
   grep -q 'no fct_by_size figure: every flow has the same size (100000 bytes)' "$tmp/err" &&
   [ "$(wc -l < "$tmp/err")" = 1 ] && [ ! -e "$tmp/same/plots/gnuplot.log" ]; then ok
else bad "one flow size: skipped with one note"; cat "$tmp/err"; fi

# ---- --cc: a line per flow and per port ----
awk 'BEGIN { print 12; split("4 5 6 7 8 9 12 13 10 11 14 15", s, " ");
	for (i = 1; i <= 12; i++) printf "%d 0 3 100 %d 0\n", s[i], i * 100000 }' > "$tmp/incast.txt"
printf '%s\n[output]\ntrace_rates = 5us\ntrace_queues = 2us\n' "$base" | sed 's/t.txt/incast.txt/' > "$tmp/cc.ini"
"$prog" run -o "$tmp/cc" --quiet --no-progress "$tmp/cc.ini"
"$prog" plot --cc "$tmp/cc" > /dev/null 2> "$tmp/err"
r="$tmp/cc/plots/rates.svg"
q="$tmp/cc/plots/queues.svg"
if [ "$(series "$r")" = 8 ] && has_title "$r" 'flow 11: 15 to 0, 1.2MB' && ! has_title "$r" 'flow 0:' &&
   grep -q '8 of 12 flows drawn' "$tmp/err" && has_title "$q" 'switch 16 port 0' &&
   [ "$(series "$q")" -le 8 ] && [ ! -e "$tmp/cc/plots/fct_ccdf.svg" ] && grep -q '>rate (Gb/s)<' "$r"; then ok
else bad "--cc: 8 largest of 12 flows, titled; the queue towards host 0"; cat "$tmp/err"; fi
"$prog" plot --cc --top 3 -o "$tmp/top" "$tmp/cc" > /dev/null 2>&1
"$prog" plot --cc --flows 2,5 -o "$tmp/named" "$tmp/cc" > /dev/null 2>&1
if [ "$(series "$tmp/top/rates.svg")" = 3 ] && [ "$(series "$tmp/top/queues.svg")" = 3 ] &&
   [ "$(series "$tmp/named/rates.svg")" = 2 ] && has_title "$tmp/named/rates.svg" 'flow 2: 6 to 0' &&
   has_title "$tmp/named/rates.svg" 'flow 5: 9 to 0'; then ok
else bad "--top 3 and --flows 2,5"; fi
set +e
"$prog" plot --cc "$tmp/same" > /dev/null 2> "$tmp/err"; st=$?
set -e
if [ "$st" = 2 ] && grep -q 'trace_rates' "$tmp/err"; then ok
else bad "--cc without traces: status $st"; cat "$tmp/err"; fi

echo "plot: $passed passed, $failed failed"
[ "$failed" = 0 ]
