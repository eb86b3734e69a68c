#!/bin/sh
# The congestion-control researcher's path around the simulator, through
# the program as a user runs it: `warpsim gen` writes cdf traffic as an
# HPCC flow.txt that the `flows` workload replays to the same results;
# `warpsim plot` writes data files that are exactly the run's fct_by_size.csv,
# fct.csv, rates.csv and queues.csv (and, when gnuplot is installed, the
# figures); `warpsim compare` of two CCs prints the A/B table; the progress
# line, seen through a pseudo-terminal, shows the header first, then flows
# done of the total and an ETA, and --max-wall stops a run with status 4.
set -eu
src=${abs_top_srcdir:?}
build=${abs_top_builddir:?}
. "${abs_top_srcdir:?}/tests/prog.sh"
ws=$prog
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$tmp/ali.ini" <<EOI
[topology]
name = fat-tree
k = 4
[cc]
name = dcqcn
[workload]
name = cdf
file = $src/examples/cdf/AliStorage2019.txt
load = 0.5
flows = 2000
[output]
trace_rates = 20us
trace_queues = 20us
trace_util = 20us
EOI

# ---- gen: the flows as a trace, replayed by the flows workload ----
"$ws" gen "$tmp/ali.ini" -o "$tmp/flow.txt" > "$tmp/gen.txt"
grep -q "wrote      $tmp/flow.txt: 2000 flows" "$tmp/gen.txt" || fail "gen: $(cat "$tmp/gen.txt")"
test "$(head -1 "$tmp/flow.txt")" = 2000 || fail "gen: first line"
"$ws" run "$tmp/ali.ini" -q --no-progress -o "$tmp/a"
printf '[topology]\nname = fat-tree\nk = 4\n[cc]\nname = dcqcn\n[workload]\nname = flows\nfile = %s\n' \
	"$tmp/flow.txt" > "$tmp/replay.ini"
"$ws" run "$tmp/replay.ini" -q --no-progress -o "$tmp/replay"
# same flows, same results (the tag column differs: 0 vs the trace's line)
cut -d, -f1-10 "$tmp/a/fct.csv" > "$tmp/a.cut"
cut -d, -f1-10 "$tmp/replay/fct.csv" > "$tmp/r.cut"
cmp -s "$tmp/a.cut" "$tmp/r.cut" || fail "the replayed trace gives other FCTs"
cmp -s "$tmp/a/fct_by_size.csv" "$tmp/replay/fct_by_size.csv" || fail "fct_by_size differs"

# ---- plot: the data files are the run's numbers ----
"$ws" plot "$tmp/a" -o "$tmp/plots" --data-only > "$tmp/plot.txt"
awk -F, 'NR > 1 { printf "%s %s %s %s %s %s\n", $5, $8, $9, $10, $7, $6 }' \
	"$tmp/a/fct_by_size.csv" > "$tmp/want.dat"
grep -v '^#' "$tmp/plots/fct_by_size-0.dat" > "$tmp/got.dat"
cmp -s "$tmp/want.dat" "$tmp/got.dat" || fail "fct_by_size-0.dat is not fct_by_size.csv"
test "$(wc -l < "$tmp/got.dat")" -eq 20 || fail "20 buckets expected"
# the CCDF: every completed flow (2000 flows: no thinning), sorted, from
# 1 (all flows are at least as slow as the fastest) down to 1/2000
test "$(grep -vc '^#' "$tmp/plots/fct_ccdf-0.dat")" -eq 2000 || fail "fct_ccdf points"
awk -F, 'NR > 1 { print $10 }' "$tmp/a/fct.csv" | sort -g > "$tmp/sd.txt"
grep -v '^#' "$tmp/plots/fct_ccdf-0.dat" | cut -d' ' -f1 | cmp -s - "$tmp/sd.txt" ||
	fail "fct_ccdf-0.dat is not the sorted slowdowns of fct.csv"
grep -v '^#' "$tmp/plots/fct_ccdf-0.dat" | head -1 | grep -q ' 1$' || fail "CCDF does not start at 1"
tail -1 "$tmp/plots/fct_ccdf-0.dat" | grep -q ' 0.0005$' || fail "CCDF does not end at 1/2000"
# the traces of one run: a block per drawn flow (port) holding exactly its
# rows of rates.csv (queues.csv); util: one point per row
rows_of() { # DAT CSV KEYEXPR: the CSV's rows whose key is one of the DAT's blocks
	awk -F, -v dat="$1" 'BEGIN { while ((getline l < dat) > 0) if (l ~ /^# [a-z*+0-9]+ [0-9]+$/) { split(l, w, " "); want[w[3]] } }
		NR > 1 && ('"$3"') in want { n++ } END { print n + 0 }' "$2"
}
test "$(grep -vc '^#' "$tmp/plots/rate_lines-0.dat" | tr -d ' ')" -gt 0 || fail "rate_lines-0.dat empty"
test "$(grep -v '^#' "$tmp/plots/rate_lines-0.dat" | grep -c .)" -eq \
	"$(rows_of "$tmp/plots/rate_lines-0.dat" "$tmp/a/rates.csv" '$2')" || fail "rate_lines-0.dat rows"
test "$(grep -v '^#' "$tmp/plots/queue_lines-0.dat" | grep -c .)" -eq \
	"$(rows_of "$tmp/plots/queue_lines-0.dat" "$tmp/a/queues.csv" '$2 * 65536 + $3')" ||
	fail "queue_lines-0.dat rows"
test "$(grep -vc '^#' "$tmp/plots/util-0.dat")" -eq "$(($(wc -l < "$tmp/a/util.csv") - 1))" ||
	fail "util-0.dat rows"
for f in fct_by_size fct_ccdf rate_lines queue_lines util; do
	grep -q "'$f-0.dat'" "$tmp/plots/plot.gp" || fail "plot.gp does not draw $f"
done
if command -v gnuplot > /dev/null 2>&1; then
	"$ws" plot "$tmp/a" "$tmp/replay" -o "$tmp/both" > /dev/null 2>&1
	for f in fct_by_size fct_ccdf rates queues util; do
		test -s "$tmp/both/$f.svg" || fail "no $f.svg"
		# both runs are drawn: two curves' titles in the figure
		grep -q "replay" "$tmp/both/$f.svg" 2>/dev/null || test "$f" = rates ||
			test "$f" = queues || test "$f" = util || fail "$f.svg lacks the second run"
	done
else
	echo "gnuplot not installed: figures not rendered (./bootstrap --with-plots)"
fi

# ---- compare: two CCs on the same traffic are an A/B comparison ----
"$ws" run "$tmp/ali.ini" -q --no-progress -o "$tmp/hpcc" --set cc.name=hpcc \
	--set output.trace_rates=0s --set output.trace_queues=0s --set output.trace_util=0s
"$ws" compare "$tmp/a" "$tmp/hpcc" > "$tmp/ab.txt"
grep -q "A/B comparison of two experiments: A $tmp/a (dcqcn), B $tmp/hpcc (hpcc)" \
	"$tmp/ab.txt" || fail "compare: $(cat "$tmp/ab.txt")"
# the A p99 column of each row is the p99 of fct_by_size.csv
awk -F, 'NR > 1 { printf "%.3f\n", $10 }' "$tmp/a/fct_by_size.csv" > "$tmp/p99.want"
awk 'NR > 3 && NF == 10 { print $5 }' "$tmp/ab.txt" > "$tmp/p99.got"
cmp -s "$tmp/p99.want" "$tmp/p99.got" || fail "A/B table: A p99 column"

# ---- progress through a pseudo-terminal ----
if command -v script > /dev/null 2>&1; then
	script -qec "'$ws' run '$tmp/ali.ini' -o '$tmp/tty'" /dev/null > "$tmp/tty.txt" 2>&1
	tr '\r' '\n' < "$tmp/tty.txt" > "$tmp/tty.lines"
	head -1 "$tmp/tty.lines" | grep -q "^warpsim .*: $tmp/ali.ini" || fail "header first"
	grep -q "simulated [0-9.]* [mu]s  |  flows [0-9]* done, [0-9]* started, of 2000  |  .* M events/s" \
		"$tmp/tty.lines" || fail "no progress line: $(head -c 600 "$tmp/tty.txt")"
	grep -q "ETA" "$tmp/tty.lines" || fail "no ETA"
	# the header is printed before the first progress line
	h=$(grep -n "plugins    routing" "$tmp/tty.lines" | head -1 | cut -d: -f1)
	p=$(grep -n "events/s" "$tmp/tty.lines" | head -1 | cut -d: -f1)
	test "$h" -lt "$p" || fail "header after the progress line"
	st=0
	script -qec "'$ws' run '$tmp/ali.ini' -o '$tmp/cut' --max-wall 1e-9" /dev/null \
		> "$tmp/cut.txt" 2>&1 || st=$?
	test "$st" -eq 4 || fail "--max-wall: status $st"
	grep -q "stopped    after --max-wall 1e-9 s" "$tmp/cut.txt" || fail "--max-wall line"
	grep -q '"end": "requested"' "$tmp/cut/summary.json" || fail "summary end"
else
	echo "script(1) not installed: progress not checked"
fi
echo "ok"
