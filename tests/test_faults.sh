#!/bin/sh
# Fault injection (SQLite's approach): a small run of the warpsim program,
# repeated with its Nth allocation failing, then with its Nth write failing
# (the disk filling up under that file), N walked over the run's
# allocations and writes (30 of each, evenly spaced; all of them with
# WARPSIM_FAULT_WALK=all).
# Every run must end cleanly: no crash and no abort (status 0 to 3); with
# status 0, a complete summary.json; otherwise a "warpsim:" message; never
# a temporary file left behind (but after the immediate exit of
# exhausted memory: the next run in the directory overwrites it).  tests/faultinject.c does the failing.
set -eu
build=${abs_top_builddir:?}
case "${SAN_CFLAGS:-}" in
*sanitize*) echo "faults: skipped (the sanitizers own malloc)"; exit 77 ;;
esac
# the injected disk-full is /dev/full: only if it is the machine's full device
if [ ! -c /dev/full ] || [ "$(stat -c %t:%T /dev/full)" != 1:7 ]; then
	echo "faults: skipped (/dev/full is not the full character device)"; exit 77
fi
lib="$build/tests/.libs/faultinject.so"
. "${abs_top_srcdir:?}/tests/prog.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '3\n0 5 3 100 20000 0\n1 5 3 100 20000 0\n2 9 3 100 5000 0.000001\n' > "$tmp/t.txt"
cat > "$tmp/s.ini" <<EOF2
[topology]
name = fat-tree
k = 4
[cc]
name = dcqcn
[output]
ports = true
flows = true
trace_rates = 2us
[workload]
name = flows
file = t.txt
EOF2
LD_PRELOAD="$lib" WARPSIM_FAULT_COUNT="$tmp/count" "$prog" run -o "$tmp/out" "$tmp/s.ini" \
	> /dev/null
allocs=$(awk '$1 == "allocs" { print $2 }' "$tmp/count")
writes=$(awk '$1 == "writes" { print $2 }' "$tmp/count")
echo "faults: the run makes $allocs allocations and $writes writes"

# about 30 values of N evenly spaced over 1..total, starting at 1 (the
# full walk: WARPSIM_FAULT_WALK=all, about a minute)
walk() {
	step=$(( $1 / 30 + 1 ))
	[ "${WARPSIM_FAULT_WALK:-}" = all ] && step=1
	i=1
	while [ "$i" -le "$1" ]; do echo "$i"; i=$((i + step)); done
}

failed=0
runs=0
check() { # VAR N
	rm -rf "$tmp/out"
	set +e
	env "$1=$2" LD_PRELOAD="$lib" "$prog" run -o "$tmp/out" "$tmp/s.ini" \
		> "$tmp/stdout" 2> "$tmp/stderr"
	st=$?
	set -e
	runs=$((runs + 1))
	why=""
	if [ "$st" -gt 3 ]; then
		why="status $st"
	elif [ "$st" -eq 0 ] && ! grep -q '"complete": true' "$tmp/out/summary.json" 2>/dev/null; then
		why="status 0 without a complete summary.json"
	elif [ "$st" -ne 0 ] && ! grep -q '^warpsim: ' "$tmp/stderr"; then
		why="status $st without a message"
	elif ls "$tmp/out" 2>/dev/null | grep -q '\.tmp$' &&
		! grep -q '^warpsim: out of memory (' "$tmp/stderr"; then
		# (memory exhausted where no error can be returned exits at
		# once: a trace open then stays under its .tmp name)
		why="temporary files left: $(ls "$tmp/out" | grep '\.tmp$' | tr '\n' ' ')"
	fi
	if [ -n "$why" ]; then
		echo "faults: $1=$2: $why"
		sed 's/^/    /' "$tmp/stderr" | head -5
		failed=$((failed + 1))
	fi
}
for n in $(walk "$allocs"); do check WARPSIM_FAULT_ALLOC "$n"; done
for n in $(walk "$writes"); do check WARPSIM_FAULT_WRITE "$n"; done
echo "faults: $runs runs, $((runs - failed)) ended cleanly, $failed did not"
[ "$failed" -eq 0 ]
