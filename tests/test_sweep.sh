#!/bin/sh
# `warpsim sweep`: a grid of experiments run on threads (docs/sweeps.md).
# - the grid: cartesian product, zip, ranges, --dry-run listing, --set;
# - every experiment validated before any runs: a bad value names the spec
#   line, the axis, the value and what the key expects (nothing is written);
# - results.csv identical (outside wall_s) for -j 1 and -j 3, and each
#   experiment's fct.csv byte-identical to `warpsim run` of the same
#   configuration;
# - resume: a re-run keeps complete experiments and runs only the others;
# - a CC's own key as an axis beside another CC: ignored (one note) where
#   the chosen CC does not declare it, refused when none does;
# - a rebuilt plugin re-runs the experiments that load it;
# - `warpsim run` without -o keeps another configuration's out/<ini>/;
# - SIGINT: exit 4, results.csv written with the unfinished marked, and
#   the next run completes the grid.
set -eu
build=${abs_top_builddir:?}
src=${abs_top_srcdir:?}
. "${abs_top_srcdir:?}/tests/prog.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "sweep: FAILED: $*"; failed=$((failed + 1)); }

# 4 x 100 KB flows across pods and a 3-to-1 incast of 1 MB on a k=4 fat-tree
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
cat > "$tmp/grid.ini" <<EOF
$base
[sweep]
cc.name = dcqcn, hpcc   ; two CCs
switch.buffer = 2MB, 32MB
sim.seed = 1..2
EOF

# ---- the grid and --dry-run ----
"$prog" sweep --dry-run -o "$tmp/out" "$tmp/grid.ini" > "$tmp/dry"
n=$(grep -c '^  [0-9]' "$tmp/dry")
if [ "$n" = 8 ] && grep -q '^  000-dcqcn_2MB_1 .*cc.name=dcqcn switch.buffer=2MB sim.seed=1' "$tmp/dry" &&
   grep -q '^  007-hpcc_32MB_2 ' "$tmp/dry" && [ ! -e "$tmp/out" ]; then ok
else bad "dry run: $n experiments (expected 8, first axis slowest), nothing written"; cat "$tmp/dry"; fi

cat > "$tmp/zip.ini" <<EOF
$base
[sweep]
cc.name = dcqcn, hpcc, timely
sim.seed = 1, 2, 3
switch.buffer = "2MB", 4MB
zip = cc.name, sim.seed
EOF
"$prog" sweep --dry-run "$tmp/zip.ini" > "$tmp/dry"
if [ "$(grep -c '^  [0-9]' "$tmp/dry")" = 6 ] &&
   grep -q 'cc.name=timely sim.seed=3 switch.buffer=4MB' "$tmp/dry" &&
   ! grep -q 'cc.name=timely .*sim.seed=1' "$tmp/dry"; then ok
else bad "zip: expected 3 pairs x 2 buffers"; cat "$tmp/dry"; fi

# the sweep specs of examples/ are valid
for f in "$src"/examples/*.ini; do
	grep -q '^\[sweep\]' "$f" || continue
	if "$prog" sweep --dry-run "$f" > "$tmp/dry" 2>&1; then ok
	else bad "$f: $(cat "$tmp/dry")"; fi
done

# ---- bad specs: refused before anything runs, with the line and the reason ----
refuse() { # NAME EXPECTED-TEXT  (the spec in $tmp/NAME.ini)
	set +e
	"$prog" sweep -o "$tmp/bad-out" "$tmp/$1.ini" > /dev/null 2> "$tmp/err"
	st=$?
	set -e
	if [ "$st" = 2 ] && grep -qF -- "$2" "$tmp/err" && [ ! -e "$tmp/bad-out" ]; then ok
	else bad "$1: status $st, expected 2 and '$2'"; cat "$tmp/err"; fi
}
printf '%s\n[sweep]\ncc.name = dcqcn\nswitch.buffer = 2MB, lots\n' "$base" > "$tmp/value.ini"
refuse value "value.ini:13: [sweep] axis switch.buffer, value 'lots' (experiment 001-dcqcn_lots): [switch] buffer = lots: expected a size"
printf '%s\n[sweep]\ncc.name = dcqcn, hpcx\n' "$base" > "$tmp/plugin.ini"
refuse plugin "[sweep] axis cc.name, value 'hpcx'"
printf '%s\n[sweep]\nsim.seed = 1, , 2\n' "$base" > "$tmp/empty.ini"; refuse empty "an empty value"
printf '%s\n[sweep]\nsim.seed = 1..3\ncc.name = dcqcn, hpcc\nzip = sim.seed, cc.name\n' "$base" > "$tmp/zip.ini"
refuse zip "sim.seed has 3 values and cc.name has 2"
printf '%s\n[sweep]\nsim.seed = 5..1\n' "$base" > "$tmp/range.ini"; refuse range "range 5..1 runs backwards"
printf '%s\n[sweep]\nseeds = 1, 2\n' "$base" > "$tmp/key.ini"; refuse key "unknown key 'seeds'"
printf '%s\n' "$base" > "$tmp/nosweep.ini"; refuse nosweep "no [sweep] section"
printf '%s\n[sweep]\noutput.dir = a, b\n' "$base" > "$tmp/outdir.ini"; refuse outdir "output.dir cannot be an axis"
printf '%s\n[sweep]\nnic.bogus = 1, 2\n' "$base" > "$tmp/unknown.ini"; refuse unknown "bogus"
printf '%s\n[accel]\nname = wormhole\nmemo_db = m.db\n[sweep]\nsim.seed = 1, 2\n' "$base" > "$tmp/memodb.ini"
refuse memodb "[accel] memo_db = m.db: a sweep's experiments run at once"

# ---- -j 1 and -j 3 agree; each experiment is what `warpsim run` gives ----
"$prog" sweep -q -j 1 -o "$tmp/j1" "$tmp/grid.ini"
"$prog" sweep -q -j 3 -o "$tmp/j3" "$tmp/grid.ini"
strip() { awk -F, '{ $NF = ""; print }' "$1"; } # drop wall_s, the last column
if [ "$(wc -l < "$tmp/j1/results.csv")" = 9 ] && [ "$(strip "$tmp/j1/results.csv")" = "$(strip "$tmp/j3/results.csv")" ] &&
   ! grep -v '^experiment' "$tmp/j1/results.csv" | grep -qv ',ok,7,7,'; then ok
else bad "results.csv of -j 1 and -j 3 differ, or a run is not ok"; cat "$tmp/j1/results.csv" "$tmp/j3/results.csv"; fi
head -1 "$tmp/j1/results.csv" | grep -q '^experiment,cc.name,switch.buffer,sim.seed,status,flows,flows_done,sim_time_s,slowdown_mean,slowdown_p50,slowdown_p99,slowdown_max,iteration_s,exposed_comm,drops,pfc_pauses,ecn_marks,events,wall_s$' &&
	ok || bad "results.csv header: $(head -1 "$tmp/j1/results.csv")"
cp "$tmp/t.txt" "$tmp/t2.txt"
printf '%s\n' "$base" > "$tmp/one.ini"
"$prog" run -q -o "$tmp/one" --set cc.name=hpcc --set switch.buffer=2MB --seed 2 "$tmp/one.ini"
if cmp -s "$tmp/one/fct.csv" "$tmp/j3/005-hpcc_2MB_2/fct.csv"; then ok
else bad "experiment 005 differs from warpsim run of the same configuration"; fi
# the 2 MB buffer makes DCQCN pause, not the 32 MB one
p2=$(awk -F, '$1 == "000-dcqcn_2MB_1" { print $16 }' "$tmp/j1/results.csv")
p32=$(awk -F, '$1 == "002-dcqcn_32MB_1" { print $16 }' "$tmp/j1/results.csv")
if [ "$p2" -gt 0 ] && [ "$p32" = 0 ]; then ok
else bad "PFC pauses: 2MB $p2 (expected > 0), 32MB $p32 (expected 0)"; fi

# ---- resume ----
rm "$tmp/j1/003-dcqcn_32MB_2/sweep.txt"
"$prog" sweep -j 2 -o "$tmp/j1" "$tmp/grid.ini" > "$tmp/resume"
if grep -q '7 complete from an earlier sweep: kept' "$tmp/resume" &&
   [ "$(grep -c '^\[' "$tmp/resume")" = 1 ] && grep -q '003-dcqcn_32MB_2: ok' "$tmp/resume" &&
   [ "$(strip "$tmp/j1/results.csv")" = "$(strip "$tmp/j3/results.csv")" ]; then ok
else bad "resume ran more than the one incomplete experiment"; cat "$tmp/resume"; fi
# a changed spec (another base value) runs everything again
sed 's/^link_delay = 1us/link_delay = 2us/' "$tmp/grid.ini" > "$tmp/grid2.ini"
"$prog" sweep -j 2 -o "$tmp/j1" "$tmp/grid2.ini" > "$tmp/resume"
if [ "$(grep -c '^\[' "$tmp/resume")" = 8 ]; then ok
else bad "a changed spec reused old results"; cat "$tmp/resume"; fi

# ---- what wormhole learns, shared in waves ----
# a 3-host all-to-all of 1 MB under one edge switch of a k=6 fat-tree, twice
# (hosts 0-2, then 3-5): wormhole records the episode, then replays it
awk 'BEGIN { print 12; for (r = 0; r < 2; r++) for (i = 0; i < 3; i++) for (j = 0; j < 3; j++)
	if (i != j) printf "%d %d 3 100 1000000 %.6f\n", r * 3 + i, r * 3 + j, r * 0.001 }' > "$tmp/a2a.txt"
# (its 100 us episodes are under the default episode_min: kept with 1ps)
printf '[topology]\nname = fat-tree\nk = 6\n[accel]\nname = wormhole\nepisode_min = 1ps\n[workload]\nname = flows\nfile = a2a.txt\n[sweep]\nsim.seed = 1..6\nshare = true\nshare_wave = 2\n' > "$tmp/wh.ini"
"$prog" sweep -q -j 1 -o "$tmp/wh1" "$tmp/wh.ini"
"$prog" sweep -q -j 3 -o "$tmp/wh3" "$tmp/wh.ini"
ev() { awk -F, -v e="$2" '$1 ~ "^" e { print $(NF - 1) }' "$1/results.csv"; }
imported() { sed -n 's/.*"memo_imported": \([0-9]*\).*/\1/p' "$1"/summary.json; }
if [ "$(strip "$tmp/wh1/results.csv")" = "$(strip "$tmp/wh3/results.csv")" ] &&
   [ "$(imported "$tmp"/wh1/001-*)" = 0 ] && [ "$(imported "$tmp"/wh1/002-*)" -gt 0 ] &&
   [ "$(ev "$tmp/wh1" 002)" -lt "$(( $(ev "$tmp/wh1" 001) / 10 ))" ] &&
   [ "$(ev "$tmp/wh1" 005)" = "$(ev "$tmp/wh1" 002)" ]; then ok
else bad "wormhole waves: -j 1 and -j 3 differ, or wave 2 did not start from wave 1's memo"; cat "$tmp/wh1/results.csv" "$tmp/wh3/results.csv"; fi
# a re-run imports what kept experiments learned (learned.bin)
rm "$tmp"/wh1/004-*/sweep.txt
"$prog" sweep -q -j 2 -o "$tmp/wh1" "$tmp/wh.ini"
[ "$(strip "$tmp/wh1/results.csv")" = "$(strip "$tmp/wh3/results.csv")" ] && ok ||
	bad "wormhole waves after a resume: $(cat "$tmp/wh1/results.csv")"
# without `share = true` (the default): every experiment from an empty memo
grep -v '^share' "$tmp/wh.ini" > "$tmp/wh-off.ini"
"$prog" sweep -q -j 2 -o "$tmp/whoff" "$tmp/wh-off.ini"
[ "$(ev "$tmp/whoff" 005)" = "$(ev "$tmp/wh1" 000)" ] && [ "$(imported "$tmp"/whoff/005-*)" = 0 ] && ok ||
	bad "the default shared"

# ---- a CC's own key beside another CC: ignored where it is not declared ----
cat > "$tmp/cckey.ini" <<EOF
$base
[sweep]
cc.name = dcqcn, swift
cc.base_target = 10us, 40us
EOF
"$prog" sweep -j 2 -o "$tmp/cckey" "$tmp/cckey.ini" > /dev/null 2> "$tmp/err"
if [ "$(grep -c 'axis cc.base_target is ignored by the 2 experiments whose plugin does not declare it (first: 000-dcqcn_10us: dcqcn)' "$tmp/err")" = 1 ] &&
   grep -q '^000-dcqcn_10us,dcqcn,,ok,' "$tmp/cckey/results.csv" &&
   grep -q '^003-swift_40us,swift,40us,ok,' "$tmp/cckey/results.csv" &&
   [ "$(sed -n "3s/,[^,]*$//p" "$tmp"/cckey/000-*/sweep.txt)" = "$(sed -n "3s/,[^,]*$//p" "$tmp"/cckey/001-*/sweep.txt)" ] &&
   [ "$(sed -n "3s/,[^,]*$//p" "$tmp"/cckey/002-*/sweep.txt)" != "$(sed -n "3s/,[^,]*$//p" "$tmp"/cckey/003-*/sweep.txt)" ]; then ok
else bad "cc.base_target beside dcqcn: one note, applied to swift only"; cat "$tmp/err" "$tmp/cckey/results.csv"; fi
sed 's/dcqcn, swift/dcqcn, hpcc/' "$tmp/cckey.ini" > "$tmp/nokey.ini"
refuse nokey "no experiment's plugin declares cc.base_target"

# ---- resume: a rebuilt plugin runs its experiments again ----
mkdir -p "$tmp/plug"
cp "$build/cc/.libs/swift.so" "$tmp/plug/swift.so"
"$prog" sweep -q -j 2 --plugin-path "$tmp/plug" -o "$tmp/rb" "$tmp/cckey.ini" 2> /dev/null
printf 'rebuilt' >> "$tmp/plug/swift.so"
"$prog" sweep -j 2 --plugin-path "$tmp/plug" -o "$tmp/rb" "$tmp/cckey.ini" > "$tmp/out" 2> "$tmp/err"
if grep -q '2 complete from an earlier sweep: kept' "$tmp/out" &&
   [ "$(grep -c 'swift_[0-9]*us: run again: a plugin or the warpsim library was rebuilt, or an effective parameter (a default) changed' "$tmp/err")" = 2 ]; then ok
else bad "a rebuilt swift.so reused old rows"; cat "$tmp/out" "$tmp/err"; fi

# ---- warpsim run without -o: another configuration's results are kept ----
mkdir "$tmp/cwd"
printf '%s\n' "$base" > "$tmp/cwd/plain.ini"
cp "$tmp/t.txt" "$tmp/cwd/"
(cd "$tmp/cwd" && "$prog" run -q --no-progress plain.ini)
cp "$tmp/cwd/out/plain/fct.csv" "$tmp/plain-fct.csv"
set +e
(cd "$tmp/cwd" && "$prog" run -q --no-progress --set cc.name=hpcc plain.ini) 2> "$tmp/err"
st=$?
set -e
if [ "$st" = 2 ] && grep -q 'out/plain holds the results of another configuration' "$tmp/err" &&
   grep -q 'set cc.name=hpcc' "$tmp/err" && cmp -s "$tmp/cwd/out/plain/fct.csv" "$tmp/plain-fct.csv"; then ok
else bad "run --set without -o: status $st, expected 2 and out/plain untouched"; cat "$tmp/err"; fi
# the same configuration again, or -o, writes
if (cd "$tmp/cwd" && "$prog" run -q --no-progress plain.ini) &&
   (cd "$tmp/cwd" && "$prog" run -q --no-progress --set cc.name=hpcc -o out/plain plain.ini) &&
   ! cmp -s "$tmp/cwd/out/plain/fct.csv" "$tmp/plain-fct.csv"; then ok
else bad "the same configuration, or -o, is refused"; fi

# ---- SIGINT: stop, mark, resume ----
cat > "$tmp/long.ini" <<EOF
[topology]
name = fat-tree
k = 4
[workload]
name = flows
file = long.txt
[sweep]
sim.seed = 1..6
EOF
printf '2\n0 5 3 100 20000000000 0\n1 9 3 100 20000000000 0\n' > "$tmp/long.txt"
set +e
"$prog" sweep -q -j 2 -o "$tmp/long" "$tmp/long.ini" 2> "$tmp/err" &
pid=$!
# flows of 20 GB run about 30 s each here: long enough that none ends
# before the signal, whatever the engine's speed; the first two start
# within a few hundred ms (a k=4 fabric), 1.5 s leaves room for a loaded
# machine
sleep 1.5
kill -INT $pid
wait $pid
st=$?
set -e
if [ "$st" = 4 ] && [ -f "$tmp/long/results.csv" ] &&
   [ "$(grep -c ',stopped,\|,not_run,' "$tmp/long/results.csv")" -ge 4 ] &&
   ! ls "$tmp"/long/*/sweep.txt > /dev/null 2>&1; then ok
else bad "SIGINT: status $st (expected 4), results.csv with the unfinished marked"; cat "$tmp/err"; cat "$tmp/long/results.csv" 2>/dev/null; fi
grep -q '"complete": false' "$tmp"/long/000-*/summary.json && ok ||
	bad "an interrupted experiment's summary.json is not marked incomplete"

echo "sweep: $passed passed, $failed failed"
[ "$failed" = 0 ]
