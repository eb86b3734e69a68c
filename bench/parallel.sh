#!/bin/sh
# bench/parallel.sh [K ...]: one experiment on several threads
# (docs/architecture.md, "Partitions"; docs/performance.md, "One experiment
# on every core").  For each fat-tree arity K (default 16 24): a permutation
# of 1 MB flows under DCQCN, partitions = auto, run at THREADS (default "1 2";
# on a machine with 16 cores or more: THREADS="1 2 4 8 16"), ROUNDS times
# with the thread counts alternated.  Prints per run the events per wall
# second and CPU second, and checks that every run's fct.csv is the same
# bytes as the first.  Then the partitions' balance and traffic from
# summary.json, and the speedup a machine with more cores would get by the
# window model (work of the heaviest partition per window; see the docs).
# RANKS=N (a build with ./bootstrap --with-mpi) also runs each experiment
# with `mpirun -n N` (RANK_THREADS threads per rank, default 1) in the same
# rounds: the row "ranks N" against "threads 1", same partitions, same
# fct.csv expected.  MPIRUN names the launcher (default mpirun).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}
prog=${WARPSIM:-$top/warpsim}
threads=${THREADS:-1 2}
rounds=${ROUNDS:-3}
ranks=${RANKS:-}
mpirun=${MPIRUN:-mpirun}
# runs: a thread count, or rN for N MPI ranks
runs=$threads
[ -n "$ranks" ] && runs="$threads r$ranks"
# mpirun refuses root unless told (the build machine runs as root)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# containers often forbid the single-copy mechanism (ptrace): plain copies
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
mkdir -p "$out"

json_num() { # json_num FILE KEY: the first numeric value of "KEY"
	sed -n "s/.*\"$2\": \([0-9][0-9.e+-]*\).*/\1/p" "$1" | head -n 1
}

[ $# -gt 0 ] || set -- 16 24
for k in "$@"; do
	hosts=$((k * k * k / 4))
	name=par-k$k
	"$here/gen-permutation.sh" "$hosts" 1000000 1 > "$out/$name.txt"
	cat > "$out/$name.ini" <<EOF2
[sim]
partitions = auto
[topology]
name = fat-tree
k = $k
link_rate = 100Gbps
link_delay = 1us
[cc]
name = dcqcn
[workload]
name = flows
file = $name.txt
EOF2
	first=
	for r in $(seq 1 "$rounds"); do
		# alternate the order of the thread counts round by round
		order=$runs
		[ $((r % 2)) -eq 0 ] && order=$(echo "$runs" | tr ' ' '\n' | sort -r | tr '\n' ' ')
		for t in $order; do
			d="$out/$name-t$t-r$r"
			case $t in
			r*) "$mpirun" -n "${t#r}" --bind-to none "$prog" run "$out/$name.ini" -o "$d" \
				--quiet --no-progress --threads "${RANK_THREADS:-1}" ;;
			*) "$prog" run "$out/$name.ini" -o "$d" --quiet --no-progress --threads "$t" ;;
			esac
			s="$d/summary.json"
			ev=$(json_num "$s" events)
			wall=$(json_num "$s" run_s)
			cpu=$(json_num "$s" run_cpu_s)
			same=same
			if [ -z "$first" ]; then
				first="$d/fct.csv"
			elif ! cmp -s "$first" "$d/fct.csv"; then
				same=DIFFERENT
			fi
			label="threads $t"
			case $t in r*) label="ranks ${t#r}" ;; esac
			awk -v k="$k" -v t="$label" -v r="$r" -v e="$ev" -v w="$wall" -v c="$cpu" -v s="$same" 'BEGIN {
				printf "k=%-3d %-10s round %d  events %10d  wall %7.2f s  %6.2f M events/wall s  CPU %7.2f s  fct.csv %s\n",
				       k, t, r, e, w, e / w / 1e6, c, s }'
		done
	done
	s="$out/$name-t1-r1/summary.json"
	echo "k=$k partitions: $(json_num "$s" count), lookahead $(json_num "$s" lookahead_ns) ns," \
	     "windows $(json_num "$s" windows), serial steps $(json_num "$s" serial_steps)," \
	     "cross-partition packets $(json_num "$s" cross_partition_packets)," \
	     "imbalance $(json_num "$s" imbalance)"
done
