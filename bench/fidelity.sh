#!/bin/sh
# fidelity.sh: warpsim against the reference ns-3 RDMA simulator (HPCC
# lineage) on the figures the reference publishes or that follow in closed
# form (../shared/REFERENCE-rdma.md, issue 17):
#   lone     a lone 10 KB flow on the reference's one-switch topology
#            (tests/data/hpcc-topology.txt), [sim] serialization = exact
#            and ns; the reference: 4932 ns (DCQCN), 4971 ns (HPCC)
#   ring     k=8 fat-tree (128 hosts, 100 Gb/s, 1 us links), host i to
#            i+1, 128 flows of 4 MB and of 64 MB, HPCC with the reference's
#            INT encoding and with exact INT, DCQCN with exact and ns
#            serialization; per run the mean, fastest, slowest and last
#            FCT against the reference's (HPCC 4 MB: mean 412.4 us, last
#            477.8 us; 64 MB: mean 6516.6 us, last 7456.3 us, fastest
#            6310 us, slowest 7460 us)
#   allreduce  a 16-GPU all-reduce over 2 servers of a 400G rail fabric,
#            idle: bus bandwidth against size, NCCL-like channels
#            ([workload] ring = rail) and the single ring in GPU order
#            (ring = flat); bench/fidelity-allreduce.sh
#
# usage: bench/fidelity.sh [lone|ring|ring4|allreduce ...]   (default: all;
#        ring4 is the 4 MB ring alone)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/fidelity
ws="$top/warpsim"
mkdir -p "$out"
parts=${*:-lone ring allreduce}

run() { # run NAME INI [--set ...]: runs quietly into $out/NAME
	name=$1 ini=$2
	shift 2
	"$ws" run "$ini" -o "$out/$name" --quiet --no-progress "$@" > /dev/null
}

lone() {
	printf '1\n1 2 3 100 10000 0\n' > "$out/lone.txt"
	printf '%-6s %-7s %12s %12s\n' cc ser fct_ns reference_ns
	for cc in dcqcn hpcc; do
		ref=4932
		[ "$cc" = hpcc ] && ref=4971
		cat > "$out/lone-$cc.ini" <<EOF2
[topology]
name = file
file = $top/tests/data/hpcc-topology.txt
[cc]
name = $cc
[workload]
name = flows
file = lone.txt
EOF2
		for ser in exact ns; do
			run "lone-$cc-$ser" "$out/lone-$cc.ini" --set sim.serialization=$ser
			awk -F, -v cc=$cc -v ser=$ser -v ref=$ref 'NR == 2 {
				printf "%-6s %-7s %12.3f %12d\n", cc, ser, $8, ref }' \
				"$out/lone-$cc-$ser/fct.csv"
		done
	done
}

# ring_row NAME REF_MEAN REF_LAST REF_MIN REF_MAX: one line of FCT figures (us)
ring_row() {
	awk -F, -v name="$1" -v rm="$2" -v rl="$3" -v rmin="$4" -v rmax="$5" '
	NR > 1 { f = $8 / 1000; s += f; n++; if (!lo || f < lo) lo = f; if (f > hi) hi = f
		 if ($7 / 1000 > last) last = $7 / 1000 }
	END {
		m = s / n
		printf "%-28s %9.1f %+7.2f%% %9.1f %9.1f %9.1f %+7.2f%%", name, m, 100 * (m - rm) / rm,
		       lo, hi, last, 100 * (last - rl) / rl
		if (rmin > 0) printf "  fastest %+6.2f%% slowest %+6.2f%%", 100 * (lo - rmin) / rmin, 100 * (hi - rmax) / rmax
		printf "\n" }' "$out/$1/fct.csv"
}

ring() {
	sizes=${1:-4000000 64000000}
	printf '%-28s %9s %8s %9s %9s %9s %8s\n' run mean_us vs_ref min_us max_us last_us vs_ref
	for b in $sizes; do
		awk -v b=$b 'BEGIN { print 128; for (i = 0; i < 128; i++)
			printf "%d %d 3 100 %d 0\n", i, (i + 1) % 128, b }' > "$out/ring-$b.txt"
		for cc in hpcc dcqcn; do
			cat > "$out/ring-$cc-$b.ini" <<EOF2
[topology]
name = fat-tree
k = 8
[cc]
name = $cc
[workload]
name = flows
file = ring-$b.txt
EOF2
		done
		if [ "$b" = 4000000 ]; then ref="412.4 477.8 0 0"; else ref="6516.6 7456.3 6310 7460"; fi
		mb=$((b / 1000000))
		run "ring$mb-hpcc-reference" "$out/ring-hpcc-$b.ini"
		# shellcheck disable=SC2086
		ring_row "ring$mb-hpcc-reference" $ref
		run "ring$mb-hpcc-exact" "$out/ring-hpcc-$b.ini" --set nic.int_encoding=exact
		# shellcheck disable=SC2086
		ring_row "ring$mb-hpcc-exact" $ref
		run "ring$mb-hpcc-reference-ns" "$out/ring-hpcc-$b.ini" --set sim.serialization=ns
		# shellcheck disable=SC2086
		ring_row "ring$mb-hpcc-reference-ns" $ref
		for ser in exact ns; do
			run "ring$mb-dcqcn-$ser" "$out/ring-dcqcn-$b.ini" --set sim.serialization=$ser
		done
		# DCQCN: the rounding's effect, flow by flow
		paste -d, "$out/ring$mb-dcqcn-exact/fct.csv" "$out/ring$mb-dcqcn-ns/fct.csv" | awk -F, -v mb=$mb '
			NR > 1 { d = ($8 - $19) / $19; s += d; n++; if (!n1 || d < lo) lo = d; if (d > hi) hi = d; n1 = 1 }
			END { printf "ring%d dcqcn exact vs ns: per flow %+.2f%% .. %+.2f%%, mean %+.2f%%\n",
				      mb, 100 * lo, 100 * hi, 100 * s / n }'
	done
}

for p in $parts; do
	case $p in
	lone) lone ;;
	ring) ring ;;
	ring4) ring 4000000 ;;
	allreduce) "$here/fidelity-allreduce.sh" ;;
	*) echo "fidelity.sh: unknown part '$p' (lone, ring, ring4, allreduce)" >&2; exit 2 ;;
	esac
done
