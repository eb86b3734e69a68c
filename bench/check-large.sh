#!/bin/sh
# check-large.sh: the full-size cases the tests run scaled down, run at full
# size and checked the same way.  make check keeps its cases small so it
# runs in seconds (tests/test_*.c say which of their cases are scaled and
# point here); this script is the evidence that nothing depends on the
# scale.  Exit status 0 when every check holds, 1 otherwise.
#
#   simai-gpt13b  AICB's GPT-13B file unscaled (test_simai scales it by
#                 1/1024): 352 collectives (344 TP, 8 DP reduce-scatters of
#                 6,497,239,040 bytes), 16 flows of 3,248,619,520 bytes to
#                 the peer server, the compute-bound time from the file's
#                 sums, at least 64 ms of the last reduce-scatter exposed.
#                 About 5 s.
#   llm-rail-gpt7b  test_llm's rail placement on gpt-7b cut to 2 layers (the
#                 test uses a 2.1 M-parameter custom model): TP 8 x DP 4 on
#                 4 servers of 8 GPUs, 20 GB of gradients; every network flow
#                 between servers on one rail, 64 TP all-reduces on NVLink,
#                 the DP ones in rings, some communication exposed.  About 15 s.
#   eventq-1e7    test_eventq's scale case at 10^7 events (make check runs
#                 10^6): clustered, near and far times in a hold pattern with
#                 cancels, every pop against a reference sort, under six
#                 wheel shapes.  About 5 s of CPU, 0.45 GB.
#
# usage: bench/check-large.sh [CASE ...]   (default: all)
# Outputs go to bench/out/large-CASE/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
cases=${*:-simai-gpt13b llm-rail-gpt7b eventq-1e7}
mkdir -p "$out"
export WARPSIM_PLUGIN_PATH=
failed=0

ok() { printf '  ok    %s\n' "$1"; }
bad() { printf '  FAIL  %s\n' "$1"; failed=1; }
check() { # check WHAT GOT WANT
	if [ "$2" = "$3" ]; then ok "$1: $2"; else bad "$1: $2, expected $3"; fi
}

# col FILE NAME: the index (1-based) of column NAME in the CSV header
col() {
	head -n 1 "$1" | tr ',' '\n' | awk -v n="$2" '$0 == n { print NR; exit }'
}

run() { # run CASE: writes $out/large-CASE/ from the ini text on stdin
	dir=$out/large-$1
	mkdir -p "$dir"
	cat > "$dir.ini"
	start=$(date +%s)
	"$top/warpsim" run "$dir.ini" -o "$dir" --no-progress > "$dir.txt" 2>&1 ||
		{ cat "$dir.txt" >&2; bad "$1: warpsim run failed"; return 1; }
	echo "$1 ($(($(date +%s) - start)) s)"
}

simai_gpt13b() {
	run simai-gpt13b <<EOF || return 0
[topology]
name = rail
gpus_per_server = 8
servers_per_unit = 2
units = 1
[cc]
name = none
[workload]
name = simai
file = $top/tests/data/simai/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt
[nic]
mtu = 9216B
EOF
	co=$dir/collectives.csv fct=$dir/fct.csv it=$dir/iterations.csv
	g=$(col "$co" group) r=$(col "$co" ranks) k=$(col "$co" kind) b=$(col "$co" bytes)
	fl=$(col "$co" flows) e=$(col "$co" end_ns)
	check "collectives" "$(($(wc -l < "$co") - 1))" 352
	check "TP collectives of 8 ranks, on NVLink" \
		"$(awk -F, -v g="$g" -v r="$r" -v f="$fl" \
			'$g == "tp" && $r == 8 && $f == 0' "$co" | wc -l)" 344
	check "DP reduce-scatters of 2 ranks, 6497239040 bytes, 2 flows" \
		"$(awk -F, -v g="$g" -v r="$r" -v k="$k" -v b="$b" -v f="$fl" \
			'$g == "dp" && $r == 2 && $k == "reducescatter" && $b == 6497239040 &&
			 $f == 2' "$co" | wc -l)" 8
	s=$(col "$fct" src) d=$(col "$fct" dst) fb=$(col "$fct" bytes) fe=$(col "$fct" end_ns)
	check "flows" "$(($(wc -l < "$fct") - 1))" 16
	check "flows of 3248619520 bytes to the peer server, completed" \
		"$(awk -F, -v s="$s" -v d="$d" -v b="$fb" -v e="$fe" \
			'NR > 1 && $d == ($s + 8) % 16 && $b == 3248619520 && $e != ""' \
			"$fct" | wc -l)" 16
	# the file's compute sums, 172 blocking collectives' 100 ns updates, and
	# the reduce-scatter's 98 ns update after the last stream
	bound=$(awk 'BEGIN { printf "%.3f", 74645010 + 73471011 + 60080012 + 172 * 100 + 98 }')
	check "compute-bound ns" "$(awk -F, -v c="$(col "$it" compute_bound_ns)" \
		'NR == 2 { print $c }' "$it")" "$bound"
	last=$(awk -F, -v e="$e" 'NR > 1 && $e + 0 > m { m = $e + 0 } END { printf "%.3f", m + 100 }' "$co")
	check "iteration end ns (last collective + 100 ns)" \
		"$(awk -F, -v c="$(col "$it" end_ns)" 'NR == 2 { print $c }' "$it")" "$last"
	check "at least 64 ms exposed (3.25 GB at 400 Gb/s)" \
		"$(awk -F, -v c="$(col "$it" duration_ns)" -v b="$bound" \
			'NR == 2 { print ($c > b + 64e6) ? "yes" : "no" }' "$it")" yes
}

llm_rail_gpt7b() {
	run llm-rail-gpt7b <<EOF || return 0
[topology]
name = rail
gpus_per_server = 8
servers_per_unit = 4
units = 1
[cc]
name = dcqcn
[workload]
name = llm
model = gpt-7b
layers = 2
tp = 8
pp = 1
dp = 4
micro_batches = 2
seq = 256
EOF
	co=$dir/collectives.csv fct=$dir/fct.csv
	s=$(col "$fct" src) d=$(col "$fct" dst)
	n=$(($(wc -l < "$fct") - 1))
	if [ "$n" -gt 0 ]; then ok "network flows: $n"; else bad "no network flow"; fi
	check "flows off their rail or inside a server" \
		"$(awk -F, -v s="$s" -v d="$d" \
			'NR > 1 && ($s % 8 != $d % 8 || int($s / 8) == int($d / 8))' "$fct" | wc -l)" 0
	g=$(col "$co" group) a=$(col "$co" algorithm)
	check "TP all-reduces on NVLink (4 x 2 layers x 2 micro-batches x 4 replicas)" \
		"$(awk -F, -v g="$g" -v a="$a" '$g ~ /^tp\./ && $a == "nvlink"' "$co" | wc -l)" 64
	check "TP collectives not on NVLink" \
		"$(awk -F, -v g="$g" -v a="$a" '$g ~ /^tp\./ && $a != "nvlink"' "$co" | wc -l)" 0
	check "DP collectives not in a ring" \
		"$(awk -F, -v g="$g" -v a="$a" '$g ~ /^dp\./ && $a != "ring"' "$co" | wc -l)" 0
	check "DP rings: one bucket at least per TP rank" \
		"$(awk -F, -v g="$g" '$g ~ /^dp\./' "$co" | wc -l |
			awk '{ print ($1 >= 8) ? "yes" : "no" }')" yes
	check "some communication exposed" \
		"$(sed -n 's/.*"exposed_comm_share": \([0-9.e+-]*\).*/\1/p' "$dir/summary.json" |
			awk '{ print ($1 > 0) ? "yes" : "no" }')" yes
}

eventq_1e7() {
	echo "eventq-1e7: 10^7 events against a reference sort"
	if WARPSIM_EVENTQ_EVENTS=10000000 "$top/tests/test_eventq" > "$out/large-eventq.log" 2>&1; then
		ok "test_eventq at 10^7 events ($out/large-eventq.log)"
	else
		bad "test_eventq at 10^7 events: see $out/large-eventq.log"
	fi
}

for c in $cases; do
	case $c in
	simai-gpt13b) simai_gpt13b ;;
	llm-rail-gpt7b) llm_rail_gpt7b ;;
	eventq-1e7) eventq_1e7 ;;
	*) echo "check-large.sh: no such case: $c" >&2; exit 2 ;;
	esac
done
[ "$failed" = 0 ] && echo "all checks hold" || echo "some checks FAILED"
exit "$failed"
