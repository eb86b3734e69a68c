#!/bin/sh
# transport.sh: the tables of issue 24 (docs/performance.md, "Transports for
# lossy fabrics").  Three parts, each a set of runs on a k=8 fat-tree (128
# hosts, 100 Gb/s, 1 us links):
#
#   websearch  WebSearch flows at 50 % load (examples/websearch.ini: 5,000
#              flows, DCQCN), switch buffer $BUFFER: RoCE (PFC + go-back-N)
#              against IRN (no PFC + sr) and go-back-N without PFC, each
#              also with the link delay perturbed by 0.1 % (the noise floor
#              of a chaotic run: compare a difference with the twin's).
#   perm       a random permutation of 128 x 4 MB flows under each CC of
#              $PERM_CCS (nscc with its ECN band, 30-120 KB, Pmax 1):
#              ECMP + PFC + go-back-N (today), and without PFC: sr with one
#              entropy per flow, with switch spraying, with sender spraying,
#              with recycling (all with IRN's BDP-FC), and UET-style (sr,
#              recycling, trimming, no BDP-FC: the CC's window alone); then
#              with one core link at half rate ([failures] rate).
#   loss       one 4 MB flow across the fabric whose destination link drops
#              1 % of packets ([failures] loss): gbn and sr, against the
#              same flow without loss.
#
# Per run: FCT slowdown mean and p99 (summary.json), mean goodput (mean
# over flows of ideal FCT / FCT, from fct.csv), drops, retransmitted and
# trimmed packets, timeouts, events and CPU seconds (user + sys).
#
# usage: bench/transport.sh [websearch] [perm] [loss]   (default: all three)
#   BUFFER=4MiB the switch buffer of websearch, PERM_CCS="none nscc" the CCs
#   of perm, JOBS=2 runs at once, FORCE=1 runs again
#   what exists, FORMAT=md prints markdown tables.
# Outputs go to bench/out/tr-*/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
buffer=${BUFFER:-4MiB}
perm_ccs=${PERM_CCS:-none nscc}
jobs=${JOBS:-2}
format=${FORMAT:-text}
mkdir -p "$out"

# the settings of each row label
settings() {
	case "$1" in
	roce) echo "switch.pfc=true nic.transport=gbn" ;;
	irn) echo "switch.pfc=false nic.transport=sr" ;;
	irn-trim) echo "switch.pfc=false nic.transport=sr switch.trim=true" ;;
	gbn-lossy) echo "switch.pfc=false nic.transport=gbn" ;;
	ecmp-gbn) echo "switch.pfc=true nic.transport=gbn" ;;
	sr-flow) echo "switch.pfc=false nic.transport=sr" ;;
	sr-switch-spray) echo "switch.pfc=false nic.transport=sr routing.lb=spray" ;;
	sr-spray) echo "switch.pfc=false nic.transport=sr nic.entropy=spray" ;;
	sr-recycle) echo "switch.pfc=false nic.transport=sr nic.entropy=recycle" ;;
	uet) echo "switch.pfc=false nic.transport=sr nic.entropy=recycle switch.trim=true nic.bdp_fc=false" ;;
	gbn) echo "switch.pfc=false nic.transport=gbn" ;;
	sr) echo "switch.pfc=false nic.transport=sr" ;;
	*) echo "transport.sh: no row $1" >&2; exit 2 ;;
	esac
}

# --one PART CC ROW VARIANT: one run (what xargs calls below)
if [ "${1:-}" = --one ]; then
	part=$2 cc=$3 row=$4 var=$5
	dir=$out/tr-$part-$cc-$row-$var
	if [ -f "$dir/summary.json" ] && [ "${FORCE:-0}" != 1 ]; then
		exit 0
	fi
	set --
	for kv in $(settings "$row"); do set -- "$@" --set "$kv"; done
	case "$part" in
	websearch) ini=$top/examples/websearch.ini
		set -- "$@" --set switch.buffer="$buffer" ;;
	perm) ini=$out/tr-perm.ini ;;
	loss) ini=$out/tr-one.ini ;;
	esac
	# nscc wants ECN marks below its target queue (examples/nscc.ini)
	[ "$cc" != nscc ] || set -- "$@" --set switch.ecn_kmin=30KB \
		--set switch.ecn_kmax=120KB --set switch.ecn_pmax=1
	case "$var" in
	twin) set -- "$@" --set topology.link_delay=1.001us ;;
	slow) set -- "$@" --set "failures.events=0s rate 50Gbps link 160-192" ;;
	lossy) set -- "$@" --set "failures.events=0s loss 0.01 link 127:0" ;;
	esac
	mkdir -p "$dir"
	/usr/bin/time -f '%U %S' -o "$dir.time" \
		"$top/warpsim" run "$ini" -o "$dir" --quiet --no-progress \
		--set cc.name="$cc" "$@" > "$dir.txt" 2>&1 ||
		{ cat "$dir.txt" >&2; exit 1; }
	exit 0
fi

parts=${*:-websearch perm loss}
rows() { # "PART CC ROW VARIANT" a line, in the order of the tables
	for part in $parts; do
		case "$part" in
		websearch)
			for row in roce irn irn-trim gbn-lossy; do
				echo "websearch dcqcn $row base"
				echo "websearch dcqcn $row twin"
			done ;;
		perm)
			for cc in $perm_ccs; do
				for row in ecmp-gbn sr-flow sr-switch-spray sr-spray sr-recycle uet; do
					echo "perm $cc $row base"
				done
				for row in sr-flow sr-spray sr-recycle uet; do
					echo "perm $cc $row slow"
				done
			done ;;
		loss)
			for row in gbn sr; do
				echo "loss none $row base"
				echo "loss none $row lossy"
			done ;;
		esac
	done
}

"$here/gen-permutation.sh" 128 4000000 1 > "$out/tr-perm.txt"
"$here/fabric-k8.sh" tr-perm.txt > "$out/tr-perm.ini"
printf '1\n0 127 3 100 4000000 0\n' > "$out/tr-one.txt"
"$here/fabric-k8.sh" tr-one.txt > "$out/tr-one.ini"
rows | xargs -n 4 -P "$jobs" "$here/transport.sh" --one

. "$here/summary-lib.sh" # result, goodput

if [ "$format" = md ]; then
	hdr='| part | cc | row | variant | slowdown mean | p99 | goodput % | drops | retx pkts | trims | timeouts | done | events | cpu s |'
	sep='|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'
	fmt='| %s | %s | %s | %s | %.3f | %.3f | %s | %s | %s | %s | %s | %s | %s | %.1f |\n'
else
	hdr=$(printf '%-9s %-6s %-16s %-6s %9s %9s %8s %8s %9s %8s %8s %5s %11s %7s' \
		part cc row variant sd_mean sd_p99 goodput drops retx_pkts trims timeouts done events cpu_s)
	sep=
	fmt='%-9s %-6s %-16s %-6s %9.3f %9.3f %7s%% %8s %9s %8s %8s %5s %11s %7.1f\n'
fi
echo "$hdr"
[ -z "$sep" ] || echo "$sep"
rows | while read -r part cc row var; do
	d=$out/tr-$part-$cc-$row-$var
	j=$d/summary.json
	cpu=$(awk '{ print $1 + $2 }' "$d.time" 2>/dev/null || echo 0)
	retx=$(result "$j" retransmitted_packets)
	trims=$(result "$j" trims)
	# shellcheck disable=SC2059
	printf "$fmt" "$part" "$cc" "$row" "$var" "$(result "$j" mean)" "$(result "$j" p99)" \
		"$(goodput "$d/fct.csv")" "$(result "$j" drops)" "${retx:-0}" "${trims:-0}" \
		"$(result "$j" timeouts)" "$(result "$j" completed)" "$(result "$j" events)" "${cpu:-0}"
done
