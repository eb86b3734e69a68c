#!/bin/sh
# ns3ref.sh: what [sim] reference = ns3 (issue 31) changes, part by part, on
# the issue's cases, and what it costs.  (The reference simulator itself is
# not run here; its published figures for the ring are bench/fidelity.sh's.)
#   ring   k=8 fat-tree, host i to i+1, 128 flows of 4 MB, HPCC and DCQCN:
#          reference = none (ECMP seeds 0-3) against ns3; mean, slowest and
#          last FCT (HPCC: against the reference's 412.4 us mean and 477.8 us
#          last finish), per-flow change none -> ns3, wall time
#   tree   one path per pair: 32 hosts under 4 ToRs and one spine (hosts
#          100 Gb/s, ToR-spine 400 Gb/s as in HPCC's fat.txt, 1 us), 2000
#          WebSearch flows at 50 % load, HPCC: per-flow change of each part
#          alone and of the whole mode; DCQCN: the mode at the
#          distribution level (slowdown mean, p50, p95, p99)
#   fat    k=8 fat-tree, 5000 WebSearch flows at 50 % load, HPCC: per-flow
#          change of ecmp = ns3 alone and of the mode, against the spread
#          of warpsim's own ECMP seeds (long: several minutes)
#   study CONFIG.txt REF_FCT.txt [LINEAGE]
#          an HPCC ns-3 study run unchanged: `warpsim import-ns3` (lineage
#          hpcc by default) on the config.txt the reference ran, warpsim on
#          the ini as written (from the config's directory, where its paths
#          start), then FCTs flow by flow against the reference's fct.txt
#          (flows matched on source, destination, size and start order):
#          median, p90, max of |FCT / FCT_ref - 1| and the flows within 2 %.
#          The reference is not part of the project: bring its outputs.
#
# usage: nice -n 10 bench/ns3ref.sh [ring|tree|fat ...]   (default: ring tree)
#        nice -n 10 bench/ns3ref.sh study CONFIG.txt REF_FCT.txt [LINEAGE]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/ns3ref
ws="$top/warpsim"
mkdir -p "$out"
parts=${*:-ring tree}

run() { # run NAME INI [--set ...]: quietly into $out/NAME; prints wall s
	name=$1 ini=$2
	shift 2
	"$ws" run "$ini" -o "$out/$name" --quiet --no-progress "$@" > /dev/null
	awk -F'[:,]' '/"run_s"/ { gsub(/[ "]/, "", $2); print $2; exit }' \
		"$out/$name/summary.json"
}

# perflow A B: |relative FCT change| of B against A, flow by flow:
# median, p90, max (percent)
perflow() {
	"$ws" compare "$out/$1" "$out/$2" --csv "$out/cmp.csv" > /dev/null
	awk -F, 'NR > 1 { e = $4 < 0 ? -$4 : $4; print 100 * e }' "$out/cmp.csv" |
		sort -g | awk '{ v[NR] = $1 } END {
			m = int((NR + 1) / 2); q = int(0.9 * NR + 0.5); if (q < 1) q = 1
			printf "median %6.2f%%  p90 %6.2f%%  max %6.2f%%", v[m], v[q], v[NR] }'
}

# levels NAME: mean, slowest FCT and last finish (us)
levels() {
	awk -F, 'NR > 1 { f = $8 / 1000; s += f; n++; if (f > hi) hi = f
		 if ($7 / 1000 > last) last = $7 / 1000 }
		END { printf "%9.1f %9.1f %9.1f", s / n, hi, last }' "$out/$1/fct.csv"
}

ring() {
	awk 'BEGIN { print 128; for (i = 0; i < 128; i++)
		printf "%d %d 3 100 4000000 0\n", i, (i + 1) % 128 }' > "$out/ring.txt"
	printf '%-24s %9s %9s %9s %8s %8s\n' run mean_us slowest last_us vs_ref wall_s
	for cc in hpcc dcqcn; do
		cat > "$out/ring-$cc.ini" <<EOF2
[topology]
name = fat-tree
k = 8
[routing]
name = updown
[cc]
name = $cc
[workload]
name = flows
file = ring.txt
EOF2
		for seed in 0 1 2 3; do
			w=$(run "ring-$cc-none-s$seed" "$out/ring-$cc.ini" --set routing.ecmp_seed=$seed)
			printf '%-24s %s %8s %8s\n' "$cc none seed $seed" "$(levels ring-$cc-none-s$seed)" \
				"$(ref_last ring-$cc-none-s$seed $cc)" "$w"
		done
		w=$(run "ring-$cc-ns3" "$out/ring-$cc.ini" --set sim.reference=ns3)
		printf '%-24s %s %8s %8s\n' "$cc ns3" "$(levels ring-$cc-ns3)" \
			"$(ref_last ring-$cc-ns3 $cc)" "$w"
		w=$(run "ring-$cc-ecmp" "$out/ring-$cc.ini" --set sim.ecmp=ns3)
		printf '%-24s %s %8s %8s\n' "$cc ecmp=ns3 only" "$(levels ring-$cc-ecmp)" \
			"$(ref_last ring-$cc-ecmp $cc)" "$w"
		w=$(run "ring-$cc-gap" "$out/ring-$cc.ini" --set sim.rate_gap=ns3)
		printf '%-24s %s %8s %8s\n' "$cc rate_gap=ns3 only" "$(levels ring-$cc-gap)" \
			"$(ref_last ring-$cc-gap $cc)" "$w"
		printf '  per flow, none seed 0 -> rate_gap:  %s\n' "$(perflow ring-$cc-none-s0 ring-$cc-gap)"
		printf '  per flow, none seed 0 -> ns3:       %s\n' "$(perflow ring-$cc-none-s0 ring-$cc-ns3)"
		printf '  per flow, none seed 0 -> seed 1:    %s\n' "$(perflow ring-$cc-none-s0 ring-$cc-none-s1)"
	done
}

# ref_last NAME CC: the last finish against the reference's (HPCC only)
ref_last() {
	[ "$2" = hpcc ] || { echo -; return; }
	awk -F, 'NR > 1 && $7 / 1000 > last { last = $7 / 1000 }
		END { printf "%+.2f%%", 100 * (last - 477.8) / 477.8 }' "$out/$1/fct.csv"
}

tree() {
	{
		echo "37 5 36"
		echo "32 33 34 35 36"
		for h in $(seq 0 31); do echo "$h $((32 + h / 8)) 100Gbps 0.001ms 0"; done
		for t in 32 33 34 35; do echo "$t 36 400Gbps 0.001ms 0"; done
	} > "$out/tree.txt"
	cat > "$out/tree.ini" <<EOF2
[topology]
name = file
file = tree.txt
[routing]
name = table
[cc]
name = hpcc
[workload]
name = cdf
file = $top/examples/cdf/WebSearch.txt
load = 0.5
flows = 2000
EOF2
	w0=$(run tree-none "$out/tree.ini")
	echo "tree, 2000 WebSearch flows, HPCC: per-flow change against reference = none ($w0 s)"
	for part in "serialization=ns" "nic_wake=ns3" "ecn_scope=all" "ecmp=ns3" "reference=ns3"; do
		n=tree-$(echo "$part" | tr '=' '-')
		w=$(run "$n" "$out/tree.ini" --set "sim.$part")
		printf '  %-20s %s  (%s s)\n' "$part" "$(perflow tree-none "$n")" "$w"
	done
	sed 's/name = hpcc/name = dcqcn/' "$out/tree.ini" > "$out/treed.ini"
	for v in none reference=ns3 rate_gap=ns3; do
		n=treed-$(echo "$v" | tr '=' '-')
		if [ "$v" = none ]; then
			run "$n" "$out/treed.ini" > /dev/null
		else
			run "$n" "$out/treed.ini" --set "sim.$v" > /dev/null
		fi
		awk -F, 'NR > 1 { print $10 }' "$out/$n/fct.csv" | sort -g | awk -v n="dcqcn $v" '
			{ v[NR] = $1; s += $1 } END { printf "  %-20s slowdown mean %.3f p50 %.3f p95 %.3f p99 %.3f\n",
				n, s / NR, v[int(NR / 2)], v[int(0.95 * NR)], v[int(0.99 * NR)] }'
	done
	printf '  %-20s %s\n' "dcqcn none -> ns3" "$(perflow treed-none treed-reference-ns3)"
	w=$(run tree-none-ns "$out/tree.ini" --set sim.serialization=ns)
	w=$(run tree-ns-wake "$out/tree.ini" --set sim.serialization=ns --set sim.nic_wake=ns3)
	printf '  %-20s %s\n' "wake, both ns" "$(perflow tree-none-ns tree-ns-wake)"
}

fat() {
	cat > "$out/fat.ini" <<EOF2
[topology]
name = fat-tree
k = 8
[routing]
name = updown
[cc]
name = hpcc
[workload]
name = cdf
file = $top/examples/cdf/WebSearch.txt
load = 0.5
flows = 5000
EOF2
	w0=$(run fat-none "$out/fat.ini")
	echo "k=8 fat-tree, 5000 WebSearch flows, HPCC: per-flow change against reference = none ($w0 s)"
	w=$(run fat-seed1 "$out/fat.ini" --set routing.ecmp_seed=1)
	printf '  %-20s %s  (%s s)\n' "ecmp_seed=1" "$(perflow fat-none fat-seed1)" "$w"
	w=$(run fat-ecmp "$out/fat.ini" --set sim.ecmp=ns3)
	printf '  %-20s %s  (%s s)\n' "ecmp=ns3" "$(perflow fat-none fat-ecmp)" "$w"
	w=$(run fat-ns3 "$out/fat.ini" --set sim.reference=ns3)
	printf '  %-20s %s  (%s s)\n' "reference=ns3" "$(perflow fat-none fat-ns3)" "$w"
}

# vsref REF_FCT WS_FCT: two fct.txt files (sip dip sport dport bytes start
# fct ideal), flows matched on (sip, dip, bytes, n-th such flow by start)
vsref() {
	for f in "$1" "$2"; do
		sort -s -n -k6,6 "$f" | awk '{ k = $1 " " $2 " " $5; print k " " n[k]++ " " $7 }'
	done | awk '{ k = $1 " " $2 " " $3 " " $4
		if (k in ref) { e = $5 / ref[k] - 1; print (e < 0 ? -e : e) * 100 } else ref[k] = $5 }' |
		sort -g | awk -v total="$(wc -l < "$1")" '{ v[NR] = $1; w += $1 <= 2 } END {
			m = int((NR + 1) / 2); q = int(0.9 * NR + 0.5); if (q < 1) q = 1
			printf "matched %d of %d: median %.2f%%  p90 %.2f%%  max %.2f%%  within 2%%: %d\n",
				NR, total, v[m], v[q], v[NR], w }'
}

study() {
	cfg=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	ref=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
	name=study-$(basename "$cfg" .txt)
	ini=$(dirname "$cfg")/.$name.ini
	(cd "$(dirname "$cfg")" && "$ws" import-ns3 --lineage "${3:-hpcc}" "$cfg" -o "$ini")
	w=$(run "$name" "$ini")
	rm -f "$ini"
	printf '%s (%s s): %s\n' "$(basename "$cfg")" "$w" "$(vsref "$ref" "$out/$name/fct.txt")"
}

if [ "${1:-}" = study ]; then
	[ $# -ge 3 ] || { echo "usage: ns3ref.sh study CONFIG.txt REF_FCT.txt [LINEAGE]" >&2; exit 2; }
	study "$2" "$3" "${4:-}"
	exit 0
fi

for p in $parts; do
	case $p in
	ring) ring ;;
	tree) tree ;;
	fat) fat ;;
	*) echo "ns3ref.sh: unknown part '$p' (ring, tree, fat)" >&2; exit 2 ;;
	esac
done
