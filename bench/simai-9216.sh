#!/bin/sh
# simai-9216.sh: SimAI's 9,216-GPU analytical example (aliyun/SimAI
# example/workload_analytical.txt: TP 2, EP 16, PP 12, ga 24, 1,789 layer
# lines, each run once an iteration, cut into 24 micro-batches; 4,608
# workers x 1,789 lines) on a 9,216-GPU rail fabric (8 GPUs a server, 36 units
# of 32 servers, 3 tiers), with the compact DAG (issue 29, item 5).
#
#   1. fluid, then wormhole, then `collectives = coflow` (each collective
#      one fluid coflow, docs/workloads.md), each for WALL wall seconds
#      (--max-wall): the set-up (reading, the compact DAG's numbering, the
#      memory estimate), user CPU, peak RSS, flows completed, simulated
#      time reached and the iteration (ns) when one completed;
#   2. the same file on 192 GPUs (DP 8), a whole iteration under
#      fluid with dag = compact and dag = expanded (flow_records = live),
#      and compact with flow_records = all: CPU, peak RSS, task slots, and
#      whether iterations.csv, fct.csv and fct_by_size.csv are the same
#      bytes; then the iteration and CPU of `fluid` against `coflow`.
#
# usage: bench/simai-9216.sh [WORKLOAD_FILE]
#   WORKLOAD_FILE: SimAI's example/workload_analytical.txt (default
#   $SIMAI_FILE, else bench/out/workload_analytical.txt); it is not in this
#   repository: copy it from a SimAI checkout.  WALL=seconds per long run
#   (default 600).  RECORDS=live|all ([output] flow_records, default live),
#   FCT=true|false (fct.csv, default false).  Outputs in bench/out/simai9216-*/ (not committed).  Run
#   it with nice -n 10 on a shared machine; CPU seconds are user time from
#   /usr/bin/time.  Build first.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
wall=${WALL:-600}
# live: completed flows' records freed as the run goes (issue 29's target
# run); all: every record kept, as before
RECORDS=${RECORDS:-live}
# fct.csv of 10^8 flows is about 10 GB of text: off unless FCT=true
FCT=${FCT:-false}
file=${1:-${SIMAI_FILE:-$out/workload_analytical.txt}}
mkdir -p "$out"
if [ ! -r "$file" ]; then
	echo "simai-9216.sh: no workload file $file (SimAI's example/workload_analytical.txt)" >&2
	exit 2
fi

summary() { # summary FILE KEY: the first number of KEY in a summary.json
	sed -n "s/.*\"$2\": \([0-9][0-9.e+-]*\).*/\1/p" "$1" | head -n 1
}

ini() { # ini FILE ACCEL > ini text: the 9,216-GPU rail fabric
	cat <<EOF
[sim]
seed = 1
[topology]
name = rail
gpus_per_server = 8
servers_per_unit = 32
units = 36
tiers = 3
units_per_pod = 4
leaf_radix = 64
spine_radix = 256
core_radix = 256
[cc]
name = dcqcn
[accel]
name = $2
[workload]
name = simai
file = $1
records = iterations
[output]
flow_records = $RECORDS
fct = $FCT
EOF
}

run() { # run INI DIR [args]: "user_s rss_kib" (the run may stop at --max-wall)
	ini=$1 dir=$2
	shift 2
	/usr/bin/time -f '%U %M' -o "$dir.time" "$top/warpsim" run "$ini" -o "$dir" \
		--no-progress "$@" > "$dir.txt" 2>&1 || true
	tail -n 1 "$dir.time"
}

cp "$file" "$out/simai9216.txt"
printf '%-9s %8s %9s %9s %12s %14s %8s %10s %s\n' accel setup_s user_s rss_gib flows_done \
	sim_time_ps slots est_in_flight iteration_ns
for accel in fluid wormhole coflow; do
	dir=$out/simai9216-$accel
	if [ $accel = coflow ]; then
		ini "$out/simai9216.txt" none > "$dir.ini"
		set -- $(run "$dir.ini" "$dir" --max-wall "$wall" --set workload.collectives=coflow)
	else
		ini "$out/simai9216.txt" $accel > "$dir.ini"
		set -- $(run "$dir.ini" "$dir" --max-wall "$wall")
	fi
	s=$dir/summary.json
	flows=$(sed -n 's/^  flows *\([0-9]*\) of.*/\1/p' "$dir.txt")
	printf '%-9s %8s %9s %9.2f %12s %14s %8s %10s %s\n' $accel "$(summary "$s" build_s)" "$1" \
		"$(echo "$2 / 1048576" | bc -l)" "$flows" "$(summary "$s" sim_time_ps)" \
		"$(summary "$s" dag_slots)" "$(summary "$s" dag_in_flight_estimate)" \
		"$(sed -n '2p' "$dir/iterations.csv" 2>/dev/null | cut -d, -f4)"
done

# a whole iteration, compact against expanded, where both fit; and the
# compact run keeping every flow record (records all) against live
sed -e '1s/all_gpus: 9216/all_gpus: 192/' "$file" > "$out/simai192.txt"
printf '\n%-17s %9s %9s %8s %s\n' dag,records user_s rss_mib slots iteration_ns
for run in compact,live expanded,live compact,all; do
	dag=${run%,*} rec=${run#*,}
	dir=$out/simai192-$dag-$rec
	RECORDS=$rec ini "$out/simai192.txt" fluid | sed -e 's/^units = 36/units = 1/' \
		-e 's/^servers_per_unit = 32/servers_per_unit = 24/' -e 's/^tiers = 3/tiers = 2/' \
		-e '/^units_per_pod/d' -e 's/^fct = .*/fct = true/' > "$dir.ini"
	set -- $(run "$dir.ini" "$dir" --set workload.dag=$dag)
	printf '%-17s %9s %9d %8s %s\n' $run "$1" $(($2 / 1024)) "$(summary "$dir/summary.json" dag_slots)" \
		"$(sed -n '2p' "$dir/iterations.csv" | cut -d, -f4)"
done
for f in iterations.csv fct.csv fct_by_size.csv; do
	for other in expanded-live compact-all; do
		cmp -s "$out/simai192-compact-live/$f" "$out/simai192-$other/$f" && same=yes || same=no
		echo "same $f, compact-live and $other: $same"
	done
done

# the 192-GPU iteration under per-flow fluid against collectives = coflow
printf '\n%-9s %9s %s\n' model user_s iteration_ns
for model in transfers coflow; do
	dir=$out/simai192-$model
	accel=fluid
	[ $model = coflow ] && accel=none
	ini "$out/simai192.txt" $accel | sed -e 's/^units = 36/units = 1/' \
		-e 's/^servers_per_unit = 32/servers_per_unit = 24/' -e 's/^tiers = 3/tiers = 2/' \
		-e '/^units_per_pod/d' > "$dir.ini"
	set -- $(run "$dir.ini" "$dir" --set workload.collectives=$model)
	printf '%-9s %9s %s\n' $model "$1" "$(sed -n '2p' "$dir/iterations.csv" | cut -d, -f4)"
done
