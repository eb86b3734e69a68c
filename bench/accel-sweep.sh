#!/bin/sh
# accel-sweep.sh: the accelerators on an AICB size sweep, in both orders.
# The workload is AICB's all-reduce micro-benchmark (../shared/data/simai/
# all_reduce.txt: 18 sizes, 4 KB to 512 MB, one DP all-reduce each) on a
# rail fabric of GPUS GPUs (8 a server, one 400 Gb/s NIC each, DCQCN), as
# the file orders them (small to large) and reversed (large to small).
# For each order: packet level (none), a perturbed packet-level twin (every
# link 0.1 % longer: the noise floor, "chaos band", of the error columns),
# and each accelerator, then `warpsim compare` against packet level.  CPU
# seconds are user time of alternated runs (PAIRS pairs of none and the
# accelerator; the median ratio), since the machine is shared and noisy.
#
# usage: bench/accel-sweep.sh   (GPUS=32, ACCELS="wormhole hygra", PAIRS=2,
#        SIZES=N keeps the first N sizes, default all 18)
# Outputs go to bench/out/sweep-*/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/sweep
gpus=${GPUS:-32}
accels=${ACCELS:-wormhole hygra}
pairs=${PAIRS:-2}
data=${DATA:-$top/../shared/data/simai/all_reduce.txt}
mkdir -p "$out"

# the two orders of the sizes (the header's size count adjusted to SIZES)
n=$(($(wc -l < "$data") - 2))
[ -z "${SIZES:-}" ] || n=$SIZES
{ head -n 1 "$data"; echo "$n"; tail -n +3 "$data" | head -n "$n"; } > "$out/up.txt"
{ head -n 1 "$data"; echo "$n"; tail -n +3 "$data" | head -n "$n" | tac; } > "$out/down.txt"
for o in up down; do
	cat > "$out/$o.ini" <<EOF
[sim]
seed = 1
[topology]
name = rail
gpus_per_server = 8
servers_per_unit = $((gpus / 8))
units = 1
[cc]
name = dcqcn
[workload]
name = simai
file = $o.txt
iterations = 1
EOF
done

# cpu ORDER ACCEL [SET]: run once, print user CPU seconds
cpu() {
	d=$out/$1-$2$4
	/usr/bin/time -f %U -o "$d.time" nice -n 10 "$top/warpsim" run "$out/$1.ini" -o "$d" \
		--no-progress --set accel.name="$2" $3 > "$d.txt" 2>&1 ||
		{ cat "$d.txt" >&2; exit 1; }
	cat "$d.time"
}

printf '%-5s %-9s %9s %9s %13s %9s %10s %10s %10s\n' order accel cpu_s cpu_x \
	events ev_ratio fct_mean fct_p99 iter_err
for o in up down; do
	cpu "$o" none "" "" > /dev/null
	cpu "$o" none "--set topology.link_delay=1001ns" -twin > /dev/null
	ev0=$(sed -n 's/.*"events": \([0-9][0-9]*\).*/\1/p' "$out/$o-none/summary.json" | head -n 1)
	for a in twin $accels; do
		if [ "$a" = twin ]; then
			d=$out/$o-none-twin
			c=$(cat "$d.time")
			x=-
		else
			ratios=
			for i in $(seq "$pairs"); do
				b=$(cpu "$o" none "" "")
				c=$(cpu "$o" "$a" "" "")
				ratios="$ratios $(awk -v b="$b" -v c="$c" 'BEGIN { printf "%.3f", c / b }')"
			done
			x=$(echo $ratios | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
			d=$out/$o-$a
		fi
		"$top/warpsim" compare "$out/$o-none" "$d" > "$d.cmp" 2>&1 || { cat "$d.cmp" >&2; exit 1; }
		ev=$(sed -n 's/.*"events": \([0-9][0-9]*\).*/\1/p' "$d/summary.json" | head -n 1)
		fct=$(sed -n 's/.*FCT error  mean \([^,]*\), p50 [^,]*, p99 \([^,]*\),.*/\1 \2/p' "$d.cmp")
		it=$(sed -n 's/.*duration_ns error mean \([^,]*\),.*/\1/p' "$d.cmp")
		printf '%-5s %-9s %9s %9s %13s %8.1fx %10s %10s %10s\n' "$o" "$a" "$c" "$x" "$ev" \
			"$(awk -v a="$ev0" -v b="$ev" 'BEGIN { print a / b }')" \
			${fct:-- -} "${it:--}"
	done
done
