#!/bin/sh
# lb.sh: the load-balancing table of issue 23.  A k=8 fat-tree (128 hosts,
# 100 Gb/s, 1 us links, PFC on), a random permutation of 128 x 4 MB flows,
# under `[cc] name = none` and `dcqcn`, for each `[routing] lb` of updown:
#
#   ecmp         per-flow hash (permutation seeds $SEEDS)
#   spray        per packet, random (seeds $SEEDS)
#   spray-rr     spray_mode = round_robin (first seed)
#   flowlet      flowlet_gap 50 us, the default (first seed)
#   adaptive     least queued of every candidate, ties at random (first seed)
#   adaptive-hash  the same, ties by the ECMP hash (first seed)
#   adaptive-p2  adaptive_choices = 2, DRILL's power of two (first seed)
#
# Per run: the busiest up link of tier 1 (host -> edge: no routing choice, its
# spread is the transport's retransmissions, the baseline of the next two),
# tier 2 (edge -> aggregation) and tier 3
# (aggregation -> core) over the tier's mean bytes (summary.json's
# results.link_load), the same for tiers 2 and 3 counting only the data sent
# for the first time (`fresh_max_over_mean`: the balance of the routing
# choices, apart from retransmissions and ACKs), the mean goodput (mean over completed flows of ideal
# FCT / FCT, from fct.csv), the mean and p99 slowdown, NACKs, timeouts,
# out-of-order data packets, data packets sent (512,000 without
# retransmissions), events and the CPU time (user + sys, from
# /usr/bin/time).  Goodput with spray and adaptive is that of today's
# go-back-N transport: reordering makes NACK storms (docs/routing.md), and
# then the link bytes are mostly retransmissions, so their max/mean is not
# the balance of the paths alone.
#
# usage: bench/lb.sh
#   CCS="none dcqcn" the CCs, SEEDS="1 2 3" the permutation seeds of ecmp and
#   spray (the others run the first), JOBS=2 runs at once, MAX_WALL=seconds
#   per run (default 1800; a run cut short shows end=requested), FORCE=1 runs
#   again what exists, FORMAT=md prints markdown tables.
# Outputs go to bench/out/lb-*/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
ccs=${CCS:-none dcqcn}
seeds=${SEEDS:-1 2 3}
jobs=${JOBS:-2}
max_wall=${MAX_WALL:-1800}
format=${FORMAT:-text}
first_seed=${seeds%% *}
mkdir -p "$out"

# --one CC LB SEED: one run (what xargs calls below); LB is a row label
if [ "${1:-}" = --one ]; then
	cc=$2 lb=$3 seed=$4
	case "$lb" in
	spray-rr) set -- --set routing.lb=spray --set routing.spray_mode=round_robin ;;
	adaptive-p2) set -- --set routing.lb=adaptive --set routing.adaptive_choices=2 ;;
	adaptive-hash) set -- --set routing.lb=adaptive --set routing.adaptive_ties=hash ;;
	*) set -- --set routing.lb="$lb" ;;
	esac
	dir=$out/lb-$cc-$lb-s$seed
	if [ -f "$dir/summary.json" ] && [ "${FORCE:-0}" != 1 ]; then
		exit 0
	fi
	mkdir -p "$dir"
	/usr/bin/time -f '%U %S' -o "$dir.time" \
		"$top/warpsim" run "$out/lb-perm-s$seed.ini" -o "$dir" --quiet --no-progress \
		--max-wall "$max_wall" --set cc.name="$cc" "$@" > "$dir.txt" 2>&1 ||
		{ cat "$dir.txt" >&2; exit 1; }
	exit 0
fi

rows() { # rows: the runs, "CC LB SEED" a line, in the order of the table
	for cc in $ccs; do
		for s in $seeds; do echo "$cc ecmp $s"; done
		echo "$cc flowlet $first_seed"
		for s in $seeds; do echo "$cc spray $s"; done
		echo "$cc spray-rr $first_seed"
		echo "$cc adaptive $first_seed"
		echo "$cc adaptive-p2 $first_seed"
		echo "$cc adaptive-hash $first_seed"
	done
}

for s in $seeds; do
	"$here/gen-permutation.sh" 128 4000000 "$s" > "$out/lb-perm-s$s.txt"
	"$here/fabric-k8.sh" "lb-perm-s$s.txt" > "$out/lb-perm-s$s.ini"
done
# the slow (per-packet) runs first, so the last ones to start are short
{ rows | grep -v -e " ecmp " -e " flowlet "; rows | grep -e " ecmp " -e " flowlet "; } |
	xargs -n 3 -P "$jobs" "$here/lb.sh" --one

. "$here/summary-lib.sh" # result, goodput

# up_load FILE TIER [PREFIX]: max_over_mean of the tier's up links, of all
# bytes, or with PREFIX=fresh_ of the data sent for the first time ("-" if
# absent)
up_load() {
	awk -v t="$2" -v k="\"${3:-}max_over_mean\":" '
		/"link_load"/ { ll = 1 }
		ll && /"tier":/ { tier = $2 + 0 }
		ll && /"direction":/ { dir = $2 }
		ll && $1 == k && tier == t && dir ~ /"up"/ {
			v = $2; sub(/,$/, "", v); print v; found = 1; exit }
		END { if (!found) print "-" }' "$1"
}

if [ "$format" = md ]; then
	hdr='| cc | lb | seed | t1 up max/mean | t2 up max/mean | t3 up max/mean | t2 fresh | t3 fresh | goodput % | slowdown mean | p99 | NACKs | timeouts | ooo pkts | data pkts | events | cpu s | done | end |'
	sep='|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|'
	fmt='| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %.2f | %.2f | %d | %d | %d | %d | %d | %.1f | %d | %s |\n'
else
	hdr=$(printf '%-6s %-12s %4s %7s %7s %7s %7s %7s %8s %9s %9s %10s %8s %11s %11s %12s %8s %4s %s' \
		cc lb seed t1_up t2_up t3_up t2_new t3_new goodput sd_mean sd_p99 nacks timeouts ooo_pkts data_pkts events cpu_s done end)
	sep=
	fmt='%-6s %-12s %4s %6.2fx %6.2fx %6.2fx %6.2fx %6.2fx %7s%% %9.2f %9.2f %10d %8d %11d %11d %12d %8.1f %4d %s\n'
fi
last=
rows | while read -r cc lb s; do
	if [ "$cc" != "$last" ]; then
		[ -z "$last" ] || echo
		echo "$hdr"
		[ -z "$sep" ] || echo "$sep"
		last=$cc
	fi
	d=$out/lb-$cc-$lb-s$s
	j=$d/summary.json
	cpu=$(awk '{ print $1 + $2 }' "$d.time" 2>/dev/null || echo 0)
	# shellcheck disable=SC2059
	printf "$fmt" "$cc" "$lb" "$s" "$(up_load "$j" 1)" "$(up_load "$j" 2)" "$(up_load "$j" 3)" \
		"$(up_load "$j" 2 fresh_)" "$(up_load "$j" 3 fresh_)" \
		"$(goodput "$d/fct.csv")" "$(result "$j" mean)" "$(result "$j" p99)" \
		"$(result "$j" nacks)" "$(result "$j" timeouts)" "$(result "$j" ooo_pkts)" "$(result "$j" data)" \
		"$(result "$j" events)" "${cpu:-0}" "$(result "$j" completed)" \
		"$(sed -n 's/.*"end": "\([a-z_]*\)".*/\1/p' "$j" | head -n 1)"
done
