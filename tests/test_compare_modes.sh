#!/bin/sh
# `warpsim compare`'s modes through the program (docs/outputs.md, "warpsim
# compare"): two CCs are compared A/B with a note saying so, and
# --csv/--json then write the A/B rows (they used to switch the mode
# silently and write nothing); --errors forces the flow-by-flow mode and
# reports the speedup in CPU time beside wall time (summary.json's
# timing.run_cpu_s); --ab with --errors, runs of different fabrics and
# runs with no flow in common are errors (status 2).
set -eu
build=${abs_top_builddir:?}
. "${abs_top_srcdir:?}/tests/prog.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "compare: FAILED: $*"; failed=$((failed + 1)); }

awk 'BEGIN { print 24; for (i = 0; i < 24; i++) printf "%d %d 3 100 %d %.6f\n", i % 8 + 4, i % 3, 1000 * 2 ^ (i % 12), i * 0.000002 }' > "$tmp/f.txt"
printf '[topology]\nname = fat-tree\nk = 4\n[cc]\nname = dcqcn\n[workload]\nname = flows\nfile = f.txt\n' > "$tmp/s.ini"
"$prog" run -o "$tmp/a" --quiet --no-progress "$tmp/s.ini"
"$prog" run -o "$tmp/b" --quiet --no-progress --set cc.name=hpcc "$tmp/s.ini"
"$prog" run -o "$tmp/k6" --quiet --no-progress --set topology.k=6 "$tmp/s.ini"
printf '1\n0 1 3 100 5000 0\n' > "$tmp/other.txt"
"$prog" run -o "$tmp/o" --quiet --no-progress --set workload.file=other.txt --set cc.name=hpcc "$tmp/s.ini"

# ---- A/B: chosen with a note; --csv and --json write its rows ----
"$prog" compare "$tmp/a" "$tmp/b" --csv "$tmp/ab.csv" --json "$tmp/ab.json" > "$tmp/out" 2> "$tmp/err"
rows=$(awk -F, 'NR > 1' "$tmp/a/fct_by_size.csv" | wc -l)
if grep -q 'A/B comparison' "$tmp/out" && grep -q 'note: A/B mode (--ab): the runs use different CCs (dcqcn, hpcc)' "$tmp/err" &&
   [ "$(head -1 "$tmp/ab.csv")" = "min_bytes,max_bytes,flows,a_p50,a_p95,a_p99,b_p50,b_p95,b_p99,p50_ratio,p99_ratio" ] &&
   [ "$(($(wc -l < "$tmp/ab.csv") - 1))" = "$rows" ] &&
   grep -q '"mode": "ab"' "$tmp/ab.json" && [ "$(grep -c '"p99_ratio"' "$tmp/ab.json")" = "$rows" ]; then ok
else bad "A/B with --csv and --json: $rows buckets expected in each"; cat "$tmp/err"; fi
# the CSV's first row is A's and B's first bucket
want=$(awk -F, 'NR == 2 { printf "%.6f", $10 }' "$tmp/a/fct_by_size.csv"),$(awk -F, 'NR == 2 { printf "%.6f", $10 }' "$tmp/b/fct_by_size.csv")
got=$(awk -F, 'NR == 2 { print $6 "," $9 }' "$tmp/ab.csv")
if [ "$want" = "$got" ]; then ok; else bad "A/B CSV p99s '$got', fct_by_size.csv says '$want'"; fi

# ---- --errors: flow by flow, speedup in wall and CPU time ----
"$prog" compare --errors "$tmp/a" "$tmp/b" --json "$tmp/e.json" > "$tmp/out" 2> "$tmp/err"
if grep -q 'matched by' "$tmp/out" && grep -q '^  CPU time   A [0-9.]* s, B [0-9.]* s: speedup [0-9.]*$' "$tmp/out" &&
   grep -q '"cpu_s"' "$tmp/e.json" && ! grep -q 'A/B' "$tmp/err" &&
   grep -q '"run_cpu_s": [0-9]' "$tmp/a/summary.json"; then ok
else bad "--errors: FCT errors and CPU-time speedup"; cat "$tmp/out" "$tmp/err"; fi

# a summary.json with typed numbers or numeric strings reads the same
cp -r "$tmp/b" "$tmp/bs"
sed -i 's/"events": \([0-9][0-9]*\)/"events": "\1"/; s/"run_cpu_s": \([0-9][0-9.e-]*\)/"run_cpu_s": "\1"/' "$tmp/bs/summary.json"
"$prog" compare --errors "$tmp/a" "$tmp/b" | grep -v 'time' > "$tmp/typed"
"$prog" compare --errors "$tmp/a" "$tmp/bs" | grep -v 'time' | sed 's|/bs|/b|' > "$tmp/strings"
if grep -q '"events": "[0-9]' "$tmp/bs/summary.json" && cmp -s "$tmp/typed" "$tmp/strings"; then ok
else bad "numbers as strings in summary.json"; diff "$tmp/typed" "$tmp/strings"; fi

# ---- errors: two modes, unrelated runs ----
refuse() { # WHAT EXPECTED-TEXT ARGS...
	what=$1 text=$2
	shift 2
	set +e
	"$prog" compare "$@" > /dev/null 2> "$tmp/err"
	st=$?
	set -e
	if [ "$st" = 2 ] && grep -qF -- "$text" "$tmp/err"; then ok
	else bad "$what: status $st, expected 2 and '$text'"; cat "$tmp/err"; fi
}
refuse "--ab --errors" "choose one" --ab --errors "$tmp/a" "$tmp/b"
refuse "different fabrics" "different fabrics (fabric.nodes: 36 in" "$tmp/a" "$tmp/k6"
refuse "different fabrics, --ab" "different fabrics" --ab "$tmp/a" "$tmp/k6"
refuse "other flows" "the runs are not of the same scenario" --errors "$tmp/a" "$tmp/o"

echo "compare: $passed passed, $failed failed"
[ "$failed" = 0 ]
