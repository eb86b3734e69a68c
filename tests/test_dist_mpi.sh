#!/bin/sh
# test_dist_mpi.sh: tools/dist.c over two MPI ranks on this machine
# (tests/dist_mpi.c says what it checks).  Skipped (77) unless configured
# --with-mpi.  mpirun refuses root unless told: the CI and the build
# machine run as root, so it is told through the environment.
set -eu
if [ -z "${WS_MPIRUN:-}" ]; then
	echo "test_dist_mpi: not built with MPI (./bootstrap --with-mpi): skipped"
	exit 77
fi
build=${abs_top_builddir:-.}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# containers often forbid the cross-memory attach of the shared-memory
# transport: copy through the shared segment instead
export OMPI_MCA_btl_vader_single_copy_mechanism=none
out=$(timeout 120 "$WS_MPIRUN" -n 2 --oversubscribe --bind-to none \
	"$build/tests/dist_mpi" 2>&1) || {
	echo "$out"
	echo "test_dist_mpi: FAIL (mpirun -n 2 tests/dist_mpi)"
	exit 1
}
echo "$out"
# rank 0 printed one line per run, each with its checks passed
n=$(echo "$out" | grep -c '^dist_mpi: run [1-5]: ' || true)
if [ "$n" -ne 5 ]; then
	echo "test_dist_mpi: FAIL (expected 5 runs reported by rank 0, got $n)"
	exit 1
fi
echo "test_dist_mpi: ok"
