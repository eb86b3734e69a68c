#!/bin/sh
# One experiment on several threads (docs/architecture.md, "Partitions"):
# - the same bytes for threads 1 and 2, 3 or 4 (every output; summary.json
#   but its timing block, which is wall-clock): the quickstart's
#   permutation and incasts, the same without a CC and a small buffer so
#   that PFC pauses cross partitions (counted), a link failure, and a
#   SimAI DAG on two servers;
# - the partitions and what crossed them are in summary.json;
# - partitions that nothing happens in run no event and no window;
# - a PFC deadlock found at the end of a window stops the run (status 3)
#   naming the partition and the cycle, and the outputs say incomplete;
# - what cannot run partitioned (an accelerator, the packet log) and bad
#   thread counts are refused naming the file, the key and the value.
set -eu
build=${abs_top_builddir:?}
src=${abs_top_srcdir:-$build}
. "${abs_top_srcdir:?}/tests/prog.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "parallel: FAILED: $*"; failed=$((failed + 1)); }

launch=
. "$src/tests/partcommon.sh"

# name "threads" ini options...: these thread counts give the same bytes
threads_same() {
	name=$1 counts=$2 ini=$3
	shift 3
	for t in $counts; do
		if ! "$prog" run -q --no-progress -o "$tmp/$name.$t" --threads $t \
			--set sim.partitions=4 "$@" "$ini" > "$tmp/$name.$t.log" 2>&1; then
			bad "$name: threads $t failed: $(tail -1 "$tmp/$name.$t.log")"
			return
		fi
	done
	for t in $counts; do
		same_outputs "$tmp/$name.1" "$tmp/$name.$t" ||
			{ bad "$name: threads 1 and $t differ"; return; }
	done
	ok
}

json_num() { # file key: the first number after "key":
	sed -n "s/.*\"$2\": \\([0-9.]*\\).*/\\1/p" "$1" | head -1
}

threads_same quickstart "1 2" "$src/examples/quickstart.ini"
threads_same pfc "1 3" "$src/examples/quickstart.ini" --set cc.name=none --set switch.buffer=200KB
n=$(json_num "$tmp/pfc.1/summary.json" cross_partition_pfc_frames)
[ "${n:-0}" -gt 100 ] && ok || bad "pfc: only ${n:-0} PFC frames crossed partitions"
n=$(json_num "$tmp/pfc.1/summary.json" cross_partition_packets)
[ "${n:-0}" -gt 10000 ] && ok || bad "pfc: only ${n:-0} packets crossed partitions"
n=$(json_num "$tmp/pfc.1/summary.json" completions_told_late)
[ "$n" = 0 ] && ok || bad "pfc: $n completions were not foreseen"
threads_same failure "1 4" "$src/examples/quickstart.ini" --set "failures.events=200us down link 16:2"
threads_same simai "1 2" "$src/examples/simai.ini"

# one flow inside the first pod: the other three partitions do nothing
printf '1\n0 1 3 100 1000000 0\n' > "$tmp/one.txt"
cat > "$tmp/one.ini" <<EOF
[topology]
name = fat-tree
k = 4
[cc]
name = dcqcn
[workload]
name = flows
file = one.txt
EOF
if "$prog" run -q --no-progress -o "$tmp/one" --threads 2 --set sim.partitions=4 \
	"$tmp/one.ini" > "$tmp/one.log" 2>&1; then
	busy=$(sed -n 's/.*"windows_busy": \([0-9]*\).*/\1/p' "$tmp/one/summary.json" | tr '\n' ' ')
	events=$(sed -n 's/.*"events": \([0-9]*\),.*/\1/p' "$tmp/one/summary.json" | tail -4 | tr '\n' ' ')
	case "$busy" in
	*" 0 0 0 ") ok ;;
	*) bad "idle partitions ran windows: $busy" ;;
	esac
	case "$events" in
	*" 0 0 0 ") ok ;;
	*) bad "idle partitions ran events: $events" ;;
	esac
else
	bad "one flow: $(tail -1 "$tmp/one.log")"
fi

# a PFC deadlock (every host of a small dragonfly to every other, Valiant
# routing in one class), found by a timeout inside a window
deadlock_ini
st=0
"$prog" run -q --no-progress -o "$tmp/dl" --threads 2 "$tmp/dl.ini" > "$tmp/dl.log" 2>&1 || st=$?
if [ $st -eq 3 ] && deadlock_found; then
	ok
else
	bad "deadlock: status $st, $(tail -2 "$tmp/dl.log")"
fi

# refusals
refused "quickstart.ini.*\[sim\] partitions = 4: \[accel\] name = wormhole" \
	--threads 2 --set accel.name=wormhole "$src/examples/quickstart.ini"
refused "\[output\] packets and pfc" --threads 2 --set output.pfc=true \
	"$src/examples/quickstart.ini"
refused "\[sim\] threads = '0': expected a whole number" --threads 0 \
	"$src/examples/quickstart.ini"
refused "\[sim\] partitions = 'many'" --set sim.partitions=many \
	"$src/examples/quickstart.ini"

echo "parallel: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
