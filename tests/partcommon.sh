# Shared by tests/test_parallel.sh and tests/test_run_mpi.sh (sourced; the
# caller sets $tmp, $prog, $launch (what runs the program: empty for one
# process) and the functions ok and bad): what "the same bytes" means for a
# partitioned run, the PFC-deadlock scenario both engines must stop on, and
# how a refusal is checked.

# same_outputs DIR1 DIR2: every output of two runs is the same, summary.json
# without its wall-clock part (timing and below)
same_outputs() {
	[ "$(ls "$1")" = "$(ls "$2")" ] || return 1
	for f in $(ls "$1"); do
		if [ "$f" = summary.json ]; then
			sed '/"timing"/,$d' "$1/$f" > "$tmp/a.json"
			sed '/"timing"/,$d' "$2/$f" > "$tmp/b.json"
			cmp -s "$tmp/a.json" "$tmp/b.json" || return 1
		else
			cmp -s "$1/$f" "$2/$f" || return 1
		fi
	done
	return 0
}

# deadlock_ini: writes $tmp/dl.ini, a PFC deadlock (every host of a small
# dragonfly to every other, Valiant routing in one class, no CC)
deadlock_ini() {
	awk 'BEGIN { print 72 * 71; for (s = 0; s < 72; s++) for (d = 0; d < 72; d++)
		if (s != d) print s, d, 3, 100, 4000, 0 }' > "$tmp/a2a.txt"
	cat > "$tmp/dl.ini" <<EOF2
[topology]
name = dragonfly
p = 2
a = 4
h = 2
[routing]
name = dragonfly
mode = valiant
vc_escalation = false
[cc]
name = none
[switch]
buffer = 500KB
[nic]
rto_lossless = true
retry_limit = 0
[workload]
name = flows
file = a2a.txt
EOF2
}

# deadlock_found: the run of $tmp/dl.ini (log $tmp/dl.log, outputs $tmp/dl)
# named the partition that found the deadlock and marked its outputs failed
deadlock_found() {
	grep -q "partition [0-9]*: PFC deadlock" "$tmp/dl.log" &&
		grep -q '"end": "failed"' "$tmp/dl/summary.json"
}

# refused TEXT OPTIONS...: `$launch $prog run OPTIONS` fails, saying TEXT
refused() {
	want=$1
	shift
	st=0
	$launch "$prog" run -q --no-progress -o "$tmp/r" "$@" > "$tmp/r.log" 2>&1 || st=$?
	if [ $st -ne 0 ] && grep -q -- "$want" "$tmp/r.log"; then
		ok
	else
		bad "not refused ($want): status $st, $(cat "$tmp/r.log")"
	fi
}
