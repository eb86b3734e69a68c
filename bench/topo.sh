#!/bin/sh
# topo.sh: how fast huge fabrics are built and routed.  For each fabric,
# `warpsim topo` builds it to routing-ready (no workload) and reports nodes,
# links, fabric memory per endpoint, build time and the process's peak RSS;
# with a lookup count it also traces that many random (src, dst) packets end
# to end and times the routing rule alone.
#
# usage: bench/topo.sh [fat-tree|rail|dragonfly|lookups|all]   (default: all)
# Inis go to bench/out/topo/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/topo
which=${1:-all}
mkdir -p "$out"

# one: NAME LOOKUPS INI-BODY  -> one table row
one() {
	name=$1
	lookups=$2
	printf '%s\n' "$3" > "$out/$name.ini"
	if [ "$lookups" -gt 0 ]; then
		"$top/warpsim" topo --check-routes "$lookups" "$out/$name.ini" > "$out/$name.txt"
	else
		"$top/warpsim" topo "$out/$name.ini" > "$out/$name.txt"
	fi
	awk -v n="$name" '
	/^  nodes / { ep = $3; sw = $6 }
	/^  links / { links = $2; sub(";", "", links) }
	/^  memory / {
		for (i = 1; i <= NF; i++) {
			if ($i == "per" && $(i + 1) == "endpoint;") perep = $(i - 2)
			if ($i == "RSS") { rss = $(i + 1); ru = $(i + 2) }
		}
	}
	/^  build / { build = $2 }
	/^  routes / { routes = $0; sub(/^  routes +/, "", routes) }
	/^  lookups / {
		for (i = 1; i <= NF; i++) {
			if ($i == "route,") perroute = $(i - 3)
			if ($i == "hop;") perhop = $(i - 3)
			if ($i == "decision") perdec = $(i - 3)
			if ($i == "in") tr = $(i + 1)
		}
	}
	END {
		m = rss; if (ru == "GiB") m = rss * 1024; if (ru == "KiB") m = rss / 1024
		printf "%-22s %9d endpoints %7d switches %9d links  build %7.3f CPU s  peak RSS %8.1f MiB  %5d B/endpoint\n",
		       n, ep, sw, links, build, m, perep
		if (routes != "")
			printf "%-22s   %s\n%-22s   traced in %s CPU s: %s ns per route, %s ns per hop; the rule alone %s ns per decision\n",
			       "", routes, "", tr, perroute, perhop, perdec
	}' "$out/$name.txt"
}

fat_tree() { # K
	printf '[topology]\nname = fat-tree\nk = %s\n' "$1"
}

case "$which" in fat-tree|all)
	for k in 16 32 64 128; do
		one "fat-tree-k$k" 0 "$(fat_tree $k)"
	done ;;
esac

rail() { # EXTRA-KEYS (newline-separated)
	printf '[topology]\nname = rail\n%s\n' "$1"
}
R1K='servers_per_unit = 32
units = 4'
R8K='servers_per_unit = 64
units = 16
leaf_radix = 128
spine_radix = 128'
R64K='tiers = 3
servers_per_unit = 64
units = 128
units_per_pod = 8
spine_links = 8
leaf_radix = 128
spine_radix = 128
core_radix = 128'
R512K='tiers = 3
servers_per_unit = 64
units = 1024
units_per_pod = 8
leaf_radix = 128
spine_radix = 128
core_radix = 128'

case "$which" in rail|all)
	one rail-1024 0 "$(rail "$R1K")"
	one rail-8192 0 "$(rail "$R8K")"
	one rail-65536 0 "$(rail "$R64K")"
	one rail-524288 0 "$(rail "$R512K")"
	one rail-524288-dual 0 "$(rail "$R512K
dual_plane = true")" ;;
esac

dragonfly() { # P A H
	printf '[topology]\nname = dragonfly\np = %s\na = %s\nh = %s\n[routing]\nname = dragonfly\nmode = ugal\n' "$1" "$2" "$3"
}

case "$which" in dragonfly|all)
	one dragonfly-16k 0 "$(dragonfly 8 16 8)"
	one dragonfly-262k 0 "$(dragonfly 16 32 16)"
	one dragonfly-1.1M 0 "$(dragonfly 23 46 23)" ;;
esac

# 10^7 random (src, dst) packets routed end to end, on the 65,536-GPU
# fat-tree and rail fabrics and the 262K dragonfly
case "$which" in lookups|all)
	n=${LOOKUPS:-10000000}
	one lookups-fat-tree-k64 "$n" "$(fat_tree 64)"
	one lookups-rail-65536 "$n" "$(rail "$R64K")"
	one lookups-dragonfly-262k "$n" "$(dragonfly 16 32 16)"
	one lookups-dragonfly-min "$n" "$(dragonfly 16 32 16 | sed 's/mode = ugal/mode = minimal/')"
	one lookups-dragonfly-val "$n" "$(dragonfly 16 32 16 | sed 's/mode = ugal/mode = valiant/')" ;;
esac
