#!/bin/sh
# json-libs.sh: why the tools read JSON with jansson and CSV with libcsv
# (tools/jsonin.c, tools/csvin.c; issue 30 item 6), measured.
#  1. jansson and json-c (the JSON libraries Debian 12 packages; yyjson is
#     not packaged there) parse a large summary.json (the quickstart run's,
#     repeated REPEAT times in an array: MBs of warpsim's own JSON): CPU ms,
#     best of 5; and what each does with inputs a strict reader must refuse
#     or read (bench/json-libs.c).
#  2. Whether jansson's dump of a parsed summary.json gives its bytes back
#     (could the ws_json_* writer be built over it and keep summary.json
#     byte-identical?).
#  3. `warpsim compare RUN RUN` on a run with a large fct.csv (FLOWS rows)
#     and that large summary.json, user CPU seconds, best of 3: this build,
#     and OLD (a warpsim of before, e.g. OLD=/work/main/warpsim) if given.
# usage: bench/json-libs.sh   (REPEAT=1500, FLOWS=1000000, OLD=)
# Outputs go to bench/out/json-libs/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/json-libs
repeat=${REPEAT:-1500}
flows=${FLOWS:-1000000}
mkdir -p "$out"

cc -O2 -DLIB_JANSSON -o "$out/json-libs-jansson" "$here/json-libs.c" \
	$(pkg-config --cflags --libs jansson)
libs=jansson
if pkg-config --exists json-c; then
	cc -O2 -DLIB_JSONC -o "$out/json-libs-jsonc" "$here/json-libs.c" \
		$(pkg-config --cflags --libs json-c)
	libs="$libs jsonc"
else
	echo "(json-c not installed: apt-get install libjson-c-dev to measure it too)"
fi

(cd "$top" && ./warpsim run examples/quickstart.ini -o "$out/run" >/dev/null)
sum=$out/run/summary.json
# the run's summary.json with a large "bench" section first
{
	echo '{'
	printf '  "bench": ['
	i=0
	while [ "$i" -lt "$repeat" ]; do
		[ "$i" -eq 0 ] || printf ','
		cat "$sum"
		i=$((i + 1))
	done
	echo '  ],'
	tail -n +2 "$sum"
} > "$out/big.json"

echo "== 1, 2: parsing $(du -h "$out/big.json" | cut -f1) of summary.json"
for l in $libs; do
	ROUND_TRIP=$sum "$out/json-libs-$l" "$out/big.json" 5
done

echo "== 3: warpsim compare RUN RUN, $flows flows (user+sys CPU s, best of 3)"
mkdir -p "$out/big" "$out/csv"
awk -v n="$flows" 'BEGIN {
	print "flow_id,src,dst,bytes,prio,start_ns,end_ns,fct_ns,ideal_fct_ns,slowdown,tag"
	for (i = 0; i < n; i++)
		printf "%d,%d,%d,%d,3,%d.000,%d.500,%d.500,900.000,1.500000,%d\n",
			i, i % 64, (i + 7) % 64, 1000 + i, i, i + 2000, 2000, i
}' > "$out/big/fct.csv"
cp "$out/big/fct.csv" "$out/csv/fct.csv"
cp "$out/big.json" "$out/big/summary.json"
cp "$sum" "$out/csv/summary.json"
cpu() { # best user+sys seconds of 3 runs of "$@"
	best=
	for r in 1 2 3; do
		/usr/bin/time -o "$out/time" -f '%U %S' "$@" >/dev/null 2>&1 || true
		t=$(tail -n 1 "$out/time" | awk '{ printf "%.2f", $1 + $2 }')
		best=$(echo "$best $t" | awk '{ print (NF == 1 || $2 < $1) ? $NF : $1 }')
	done
	echo "$best"
}
for case in csv big; do
	what="the quickstart's summary.json"
	[ "$case" = csv ] || what="the $(du -h "$out/big.json" | cut -f1) summary.json"
	echo "  with $what:"
	echo "    this build: $(cpu "$top/warpsim" compare "$out/$case" "$out/$case")"
	if [ -n "${OLD:-}" ]; then
		echo "    OLD ($OLD): $(cpu "$OLD" compare "$out/$case" "$out/$case")"
	fi
done
