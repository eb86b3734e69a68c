#!/bin/sh
# sweep.sh: what `warpsim sweep` costs and what it saves (docs/performance.md,
# "Sweeps").
#
#  grid      examples/sweep-quickstart.ini (4 CCs x 3 buffers x 2 seeds, 24
#            experiments): `warpsim sweep -j 1`, `-j 2`, and the same 24
#            experiments as separate `warpsim run` processes two at a time
#            (xargs -P 2); wall seconds and throughput ratios.
#  overhead  N one-flow experiments with -j 1: what the sweep machinery adds
#            per experiment, (sweep wall - the experiments' own run time) / N;
#            the run time includes building and writing each experiment.
#  memory    one run on a 65,536-GPU rail fabric against a sweep of 8
#            experiments on it (4 CCs x 2 seeds, -j 2): peak RSS of each
#            process (one shared fabric build, not eight).
#  mpi       results.csv of -j 1, -j 2 and `mpirun -n 2` compared, outside
#            wall_s (needs ./bootstrap --with-mpi).
#
# usage: bench/sweep.sh [grid|overhead|memory|mpi|all]   (default: all)
# Outputs go to bench/out/sweep/ (not committed).  Build first: ./bootstrap
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/sweep
which=${1:-all}
prog="$top/warpsim"
mkdir -p "$out"
command -v /usr/bin/time > /dev/null 2>&1 || {
	echo "sweep.sh: installing GNU time (apt-get install time)"
	if [ "$(id -u)" = 0 ]; then apt-get install -y time > /dev/null; else sudo apt-get install -y time > /dev/null; fi
}

# wall seconds and peak RSS (KiB) of a command: "WALL RSS"
measure() {
	/usr/bin/time -f '%e %M' -o "$out/time.txt" "$@" > /dev/null
	cat "$out/time.txt"
}

grid() {
	spec="$top/examples/sweep-quickstart.ini"
	rm -rf "$out/grid-j1" "$out/grid-j2" "$out/grid-procs"
	j1=$(measure "$prog" sweep -q -j 1 -o "$out/grid-j1" "$spec" | cut -d' ' -f1)
	j2=$(measure "$prog" sweep -q -j 2 -o "$out/grid-j2" "$spec" | cut -d' ' -f1)
	# the same experiments as separate processes, two at a time: the spec
	# without [sweep] (its trace by absolute path), and each experiment's
	# assignment as --set options, from the dry run's listing
	sed -e '/^\[sweep\]/,$d' -e "s|^file = |file = $top/examples/|" "$spec" > "$out/grid-base.ini"
	"$prog" sweep --dry-run "$spec" | awk '/^  [0-9]/ {
		printf "%s", $1
		for (i = 2; i <= NF && $i != "(runs"; i++) printf " --set %s", $i
		printf "\n" }' > "$out/grid-cmds.txt"
	mkdir -p "$out/grid-procs"
	printf '#!/bin/sh\nn=$1; shift\nexec "%s" run -q -o "%s/$n" "$@" "%s"\n' \
		"$prog" "$out/grid-procs" "$out/grid-base.ini" > "$out/grid-one.sh"
	chmod +x "$out/grid-one.sh"
	procs=$(measure xargs -P 2 -L 1 "$out/grid-one.sh" < "$out/grid-cmds.txt" | cut -d' ' -f1)
	n=$(grep -c . "$out/grid-cmds.txt")
	same=yes
	for d in "$out"/grid-procs/*/; do
		e=$(basename "$d")
		cmp -s "$d/fct.csv" "$out/grid-j2/$e/fct.csv" || same=no
	done
	printf 'grid      %d experiments: -j 1 %.2f s, -j 2 %.2f s (%.2fx the throughput of -j 1); %d processes of `warpsim run`, 2 at a time: %.2f s (%.2fx the time of -j 2); fct.csv identical: %s\n' \
		"$n" "$j1" "$j2" "$(echo "$j1 / $j2" | bc -l)" "$n" "$procs" "$(echo "$procs / $j2" | bc -l)" "$same"
}

overhead() {
	n=${OVERHEAD_N:-200}
	printf '1\n0 5 3 100 1000 0\n' > "$out/one.txt"
	cat > "$out/overhead.ini" <<EOF
[topology]
name = fat-tree
k = 4
[workload]
name = flows
file = one.txt
[sweep]
sim.seed = 1..$n
EOF
	rm -rf "$out/overhead"
	wall=$(measure "$prog" sweep -q -j 1 -o "$out/overhead" "$out/overhead.ini" | cut -d' ' -f1)
	# each experiment's own time (build, run, outputs) from a plain run
	printf '[topology]\nname = fat-tree\nk = 4\n[workload]\nname = flows\nfile = one.txt\n' > "$out/one.ini"
	single=$(measure "$prog" run -q -o "$out/one" "$out/one.ini" | cut -d' ' -f1)
	printf 'overhead  %d one-flow experiments, -j 1: %.2f s, %.2f ms per experiment in all (one `warpsim run` process of the same: %.0f ms)\n' \
		"$n" "$wall" "$(echo "$wall * 1000 / $n" | bc -l)" "$(echo "$single * 1000" | bc -l)"
}

memory() {
	rail='[topology]
name = rail
tiers = 3
gpus_per_server = 8
servers_per_unit = 64
units = 128
units_per_pod = 8
spine_links = 8
leaf_radix = 128
spine_radix = 128
core_radix = 128
[cc]
name = dcqcn
[workload]
name = flows
file = rail-flows.txt'
	# 64 flows of 1 MB between GPUs of different pods
	awk 'BEGIN { print 64; for (i = 0; i < 64; i++) printf "%d %d 3 100 1000000 0\n", i * 8, 65535 - i * 8 }' > "$out/rail-flows.txt"
	printf '%s\n' "$rail" > "$out/rail-one.ini"
	printf '%s\n[sweep]\ncc.name = dcqcn, hpcc, timely, dctcp\nsim.seed = 1, 2\n' "$rail" > "$out/rail-sweep.ini"
	rm -rf "$out/rail-one" "$out/rail-sweep"
	one=$(measure "$prog" run -q -o "$out/rail-one" "$out/rail-one.ini")
	sw=$(measure "$prog" sweep -q -j 2 -o "$out/rail-sweep" "$out/rail-sweep.ini")
	r1=$(echo "$one" | cut -d' ' -f2)
	r8=$(echo "$sw" | cut -d' ' -f2)
	printf 'memory    65,536-GPU rail: one run %.0f MiB peak (%.1f s); sweep of 8 on 2 threads %.0f MiB peak (%.1f s): %.2fx a single run\n' \
		"$(echo "$r1 / 1024" | bc -l)" "$(echo "$one" | cut -d' ' -f1)" \
		"$(echo "$r8 / 1024" | bc -l)" "$(echo "$sw" | cut -d' ' -f1)" "$(echo "$r8 / $r1" | bc -l)"
}

mpi() {
	if ! command -v mpirun > /dev/null 2>&1 || ! "$prog" --version | grep -q 'MPI'; then
		echo "mpi       skipped: not built with MPI (./bootstrap --with-mpi)"
		return
	fi
	spec="$top/examples/sweep-quickstart.ini"
	rm -rf "$out/mpi-j1" "$out/mpi-j2" "$out/mpi-n2"
	"$prog" sweep -q -j 1 -o "$out/mpi-j1" "$spec"
	"$prog" sweep -q -j 2 -o "$out/mpi-j2" "$spec"
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		mpirun -n 2 --oversubscribe --bind-to none "$prog" sweep -q -j 1 -o "$out/mpi-n2" "$spec"
	strip() { awk -F, '{ $NF = ""; print }' "$1"; }
	a=$(strip "$out/mpi-j1/results.csv")
	b=$(strip "$out/mpi-j2/results.csv")
	c=$(strip "$out/mpi-n2/results.csv")
	[ "$a" = "$b" ] && [ "$a" = "$c" ] && same=identical || same=DIFFERENT
	echo "mpi       results.csv of -j 1, -j 2 and mpirun -n 2 (outside wall_s): $same"
}

case "$which" in grid|all) grid ;; esac
case "$which" in overhead|all) overhead ;; esac
case "$which" in memory|all) memory ;; esac
case "$which" in mpi|all) mpi ;; esac
