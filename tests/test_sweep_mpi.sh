#!/bin/sh
# test_sweep_mpi.sh: `mpirun -n 2 warpsim sweep` on this machine gathers on
# rank 0 the same results.csv as one process with -j 1 (outside wall_s),
# experiments run on both ranks, and a re-run under MPI keeps them all.
# Skipped (77) unless configured --with-mpi.  mpirun refuses root unless
# told: the CI and the build machine run as root.
set -eu
if [ -z "${WS_MPIRUN:-}" ]; then
	echo "test_sweep_mpi: not built with MPI (./bootstrap --with-mpi): skipped"
	exit 77
fi
build=${abs_top_builddir:?}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
. "${abs_top_srcdir:?}/tests/prog.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '5\n0 5 3 100 200000 0\n1 9 3 100 200000 0\n2 13 3 100 200000 0\n4 0 3 100 500000 0.00001\n8 0 3 100 500000 0.00001\n' > "$tmp/t.txt"
cat > "$tmp/grid.ini" <<EOF2
[topology]
name = fat-tree
k = 4
[workload]
name = flows
file = t.txt
[sweep]
cc.name = dcqcn, hpcc, timely, dctcp
switch.buffer = 2MB, 32MB
sim.seed = 1, 2
EOF2
"$prog" sweep -q -j 1 -o "$tmp/j1" "$tmp/grid.ini"
timeout 300 "$WS_MPIRUN" -n 2 --oversubscribe --bind-to none \
	"$prog" sweep -j 1 -o "$tmp/mpi" "$tmp/grid.ini" > "$tmp/log" 2>&1 || {
	cat "$tmp/log"; echo "test_sweep_mpi: FAIL (mpirun -n 2 warpsim sweep)"; exit 1; }
strip() { awk -F, '{ $NF = ""; print }' "$1"; }
if [ "$(strip "$tmp/j1/results.csv")" != "$(strip "$tmp/mpi/results.csv")" ]; then
	diff "$tmp/j1/results.csv" "$tmp/mpi/results.csv" || true
	echo "test_sweep_mpi: FAIL (results.csv differs from -j 1)"; exit 1
fi
grep -q ' x 2 ranks' "$tmp/log" || { cat "$tmp/log"; echo "test_sweep_mpi: FAIL (not 2 ranks)"; exit 1; }
[ "$(grep -c '^\[' "$tmp/log")" = 16 ] || { cat "$tmp/log"; echo "test_sweep_mpi: FAIL (rank 0 did not report 16 experiments)"; exit 1; }
# both ranks ran experiments
grep -q '(rank 0)$' "$tmp/log" && grep -q '(rank 1)$' "$tmp/log" || {
	cat "$tmp/log"; echo "test_sweep_mpi: FAIL (one rank ran every experiment)"; exit 1; }
# every experiment's directory was written (on this machine, by either rank)
[ "$(ls "$tmp"/mpi/*/sweep.txt | wc -l)" = 16 ] || { echo "test_sweep_mpi: FAIL (experiment directories)"; exit 1; }
timeout 120 "$WS_MPIRUN" -n 2 --oversubscribe --bind-to none \
	"$prog" sweep -j 1 -o "$tmp/mpi" "$tmp/grid.ini" > "$tmp/log2" 2>&1
grep -q '16 complete from an earlier sweep: kept' "$tmp/log2" && [ "$(grep -c '^\[' "$tmp/log2")" = 0 ] || {
	cat "$tmp/log2"; echo "test_sweep_mpi: FAIL (resume under MPI)"; exit 1; }
echo "sweep-mpi: 5 passed, 0 failed"
