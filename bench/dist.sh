#!/bin/sh
# dist.sh: the cost of the sweep job pool (tools/dist.c) per job, and how
# well it keeps its workers busy, with bench/dist_jobs (built by `make
# check`, or `make bench/dist_jobs`):
#   empty jobs   200,000 jobs that only return 16 bytes, 1/2/4 threads:
#                wall microseconds per job = the pool's machinery per job
#                (pick under the lock, hand-over, done(), wake-ups)
#   2 ms jobs    1,000 jobs sleeping 2 ms each on 1, 2 and 4 threads: the
#                speed-up (at most the number of threads) and the overhead
#                per job over the work spread evenly (sleeping jobs measure
#                the pool's latency, not the share of a busy machine's
#                cores a spinning job would get)
#   MPI          (built --with-mpi) the same on mpirun -n 2 with 1 thread
#                each (two workers, as threads=2 in one process), and 2
#                threads each; 100 jobs of 50 ms on two ranks of one
#                worker and on one process of two; the empty jobs, whose
#                cost is then the messages to rank 0
# Each line is printed by dist_jobs itself (its own clock around dist_run).
#
# usage: bench/dist.sh            (from the build directory)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
bin="$top/bench/dist_jobs"
[ -x "$bin" ] || make -C "$top" bench/dist_jobs >/dev/null

for t in 1 2 4; do
	"$bin" 200000 "$t"
done
for t in 1 2 4; do
	"$bin" 1000 "$t" 2000
done
mpirun=$(sed -n 's/^MPIRUN = //p' "$top/Makefile" 2>/dev/null || true)
if [ -n "$mpirun" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
	mpi="$mpirun -n 2 --oversubscribe --bind-to none"
	$mpi "$bin" 20000 1
	$mpi "$bin" 1000 1 2000
	$mpi "$bin" 1000 2 2000
	# 50 ms jobs: two ranks of one worker against one process of two
	$mpi "$bin" 100 1 50000
	"$bin" 100 2 50000
else
	echo "(not built with MPI: no mpirun figures)"
fi
