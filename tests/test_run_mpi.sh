#!/bin/sh
# One experiment over MPI ranks (docs/architecture.md, "MPI ranks"):
# - `mpirun -n 2 warpsim run` writes the same bytes as one process with the
#   same partitions (every output; summary.json but its timing block): the
#   quickstart's permutation and incasts, the same without a CC and with a
#   small buffer so that PFC pauses cross ranks, a link failure
#   (failures.csv) with a CNP per marked packet (what the receiver learns
#   of a flow started on another rank), and a SimAI DAG on two servers (its
#   own files); the PFC case with two threads per rank;
# - a PFC deadlock inside one rank stops both, named, outputs failed;
# - one partition for two ranks, and outputs rank 0 cannot gather, are
#   refused.
# Skipped (77) unless configured --with-mpi.  mpirun refuses root unless
# told: the CI and the build machine run as root.
set -eu
if [ -z "${WS_MPIRUN:-}" ]; then
	echo "test_run_mpi: not built with MPI (./bootstrap --with-mpi): skipped"
	exit 77
fi
build=${abs_top_builddir:?}
src=${abs_top_srcdir:-$build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
. "${abs_top_srcdir:?}/tests/prog.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "run_mpi: FAILED: $*"; failed=$((failed + 1)); }
mpi() { timeout 300 "$WS_MPIRUN" -n 2 --oversubscribe --bind-to none "$@"; }

launch=mpi
. "$src/tests/partcommon.sh"

# name threads ini options...: one process and 2 ranks give the same bytes
ranks_same() {
	name=$1 th=$2 ini=$3
	shift 3
	if ! "$prog" run -q --no-progress -o "$tmp/$name.1" --set sim.partitions=4 \
		"$@" "$ini" > "$tmp/$name.1.log" 2>&1; then
		bad "$name: one process failed: $(tail -1 "$tmp/$name.1.log")"
		return
	fi
	if ! mpi "$prog" run -q --no-progress -o "$tmp/$name.2" --threads "$th" \
		--set sim.partitions=4 "$@" "$ini" > "$tmp/$name.2.log" 2>&1; then
		bad "$name: mpirun -n 2 failed: $(tail -3 "$tmp/$name.2.log")"
		return
	fi
	if same_outputs "$tmp/$name.1" "$tmp/$name.2"; then
		ok
	else
		diff "$tmp/a.json" "$tmp/b.json" | head -20
		bad "$name: one process and 2 ranks differ"
	fi
}

ranks_same quickstart 1 "$src/examples/quickstart.ini"
ranks_same pfc 2 "$src/examples/quickstart.ini" --set cc.name=none --set switch.buffer=200KB \
	--set output.ports=true --set output.flows=true
n=$(sed -n 's/.*"cross_partition_pfc_frames": \([0-9]*\).*/\1/p' "$tmp/pfc.2/summary.json")
[ "${n:-0}" -gt 100 ] && ok || bad "pfc: only ${n:-0} PFC frames crossed partitions"
ranks_same failure 1 "$src/examples/quickstart.ini" --set "failures.events=200us down link 16:2" \
	--set cc.cnp_mode=packet
[ -s "$tmp/failure.2/failures.csv" ] && ok || bad "failure: no failures.csv"
ranks_same simai 1 "$src/examples/simai.ini"

# a PFC deadlock (every host of a small dragonfly to every other, Valiant
# routing in one class): found by one rank, both stop
deadlock_ini
st=0
mpi "$prog" run -q --no-progress -o "$tmp/dl" "$tmp/dl.ini" > "$tmp/dl.log" 2>&1 || st=$?
if [ $st -ne 0 ] && deadlock_found; then
	ok
else
	bad "deadlock: status $st, $(tail -2 "$tmp/dl.log")"
fi

# refusals
refused "partitions = 1: 2 MPI ranks" --set sim.partitions=1 "$src/examples/quickstart.ini"
refused "\[output\] fct_txt: rank 0 cannot gather" --set output.fct_txt=true \
	"$src/examples/quickstart.ini"

echo "run_mpi: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
