#!/bin/sh
# memo-share.sh: sharing the wormhole memo between experiments (ws_sim_accel_
# import / export, docs/acceleration.md "Sharing across experiments").
# Run 1 (seed 1) starts cold and exports what it learned (and saves it in a
# memo_db); run 2 (seed 2: other ECMP draws) runs cold, then importing run
# 1's export, then loading run 1's memo_db; run 1 again loading its own
# memo_db (the memo across runs of one seed).  Prints each run's events,
# run wall time, hits and imports, and the FCT difference of run 2 with the
# import against run 2 cold (and against packet level with PACKET=1).
# Runs go through bench/memo-share.c (built here against the build tree), as a
# sweep's experiments do.
#
# usage: bench/memo-share.sh [MODEL]   (default gpt13b-128: examples/llm-MODEL.ini;
#        CC=dcqcn, PACKET=1 also runs run 2 at packet level, SETS="KEY=VALUE
#        ..." more settings, e.g. SETS=workload.micro_batches=2)
# Outputs go to bench/out/memo-share-*/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
model=${1:-gpt13b-128}
cc=${CC:-dcqcn}
mkdir -p "$out"
ini=$top/examples/llm-$model.ini
drv=$out/memo-share-run
# shellcheck disable=SC2046
cc -O2 -o "$drv" "$here/memo-share.c" $(PKG_CONFIG_PATH=$top pkg-config --cflags --libs \
	warpsim-uninstalled)
WARPSIM_PLUGIN_PATH=$top/topo/.libs:$top/routing/.libs:$top/cc/.libs:$top/plugins/accel/.libs:$top/plugins/workload/.libs
export WARPSIM_PLUGIN_PATH
p=$out/memo-share-$model-$cc
sets=''
wsets=''
for kv in ${SETS:-}; do
	sets="$sets -s $kv"
	wsets="$wsets --set $kv"
	p=$p-$(echo "$kv" | tr -c 'a-zA-Z0-9=\n' _)
done

# num DIR KEY: a number from DIR/summary.json
num() {
	awk -v k="\"$2\":" 'index($0, k) { v = $2; sub(/,$/, "", v); print v; exit }' "$1/summary.json"
}

one() { # one NAME SEED [memo-share-run options]
	name=$1 seed=$2
	shift 2
	# shellcheck disable=SC2086
	"$drv" "$ini" "$p-$name" -s cc.name="$cc" -s accel.name=wormhole -s sim.seed="$seed" \
		$sets "$@" > "$p-$name.txt"
	d=$p-$name
	printf '%-22s %12s %8s %8s %8s %8s %8s %8s\n' "$name" "$(num "$d" events_executed)" \
		"$(awk '{ print $4 }' "$d.txt")" "$(num "$d" memo_hits)" "$(num "$d" episode_hits)" \
		"$(( $(num "$d" memo_inserts) + $(num "$d" episode_inserts) ))" \
		"$(num "$d" memo_imported)" "$(num "$d" memo_imported_hits)"
}

rm -f "$p-1.db"
printf '%-22s %12s %8s %8s %8s %8s %8s %8s\n' run events wall_s memo_hit ep_hit learned \
	imported imp_hits
one 1-cold 1 -s accel.memo_db="$p-1.db" -e "$p-1.blob"
one 2-cold 2
one 2-import 2 -i "$p-1.blob"
one 2-import-again 2 -i "$p-1.blob"
cp "$p-1.db" "$p-2.db"
one 2-memo_db 2 -s accel.memo_db="$p-2.db"
cp "$p-1.db" "$p-1b.db"
one 1-memo_db 1 -s accel.memo_db="$p-1b.db"
echo "run 1's export: $(wc -c < "$p-1.blob") bytes"
cmp -s "$p-2-import/fct.csv" "$p-2-import-again/fct.csv" &&
	echo "run 2 with the import twice: fct.csv identical" ||
	echo "run 2 with the import twice: fct.csv DIFFERS"
cmp -s "$p-2-import/fct.csv" "$p-2-memo_db/fct.csv" &&
	echo "run 2 importing and loading the memo_db: fct.csv identical" ||
	echo "run 2 importing and loading the memo_db: fct.csv differs"
"$top/warpsim" compare "$p-2-cold" "$p-2-import" > "$p-cmp.txt" 2>&1 || true
echo "run 2 importing vs run 2 cold:"
sed 's/^/  /' "$p-cmp.txt"
if [ "${PACKET:-0}" = 1 ]; then
	for seed in 2 1; do
		if [ ! -f "$p-$seed-none/summary.json" ]; then
			# shellcheck disable=SC2086
			"$top/warpsim" run "$ini" -o "$p-$seed-none" --no-progress \
				--set cc.name="$cc" --set sim.seed=$seed $wsets > "$p-$seed-none.txt" 2>&1
		fi
		for r in "$seed-cold" "$seed-import" "$seed-memo_db"; do
			[ -d "$p-$r" ] || continue
			"$top/warpsim" compare "$p-$seed-none" "$p-$r" > "$p-$r-vs-none.txt" 2>&1 ||
				true
			echo "run $r vs packet level:"
			sed 's/^/  /' "$p-$r-vs-none.txt"
		done
	done
fi
