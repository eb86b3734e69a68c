#!/bin/sh
# Coverage-guided fuzzing of one parser for a given time (not run by make
# check; tests/test_fuzz.sh replays the corpora there).
#
#     tests/fuzz/run.sh TARGET SECONDS      e.g. tests/fuzz/run.sh flows 600
#
# TARGET is one of tests/fuzz/corpus/*/ (ini, flows, topo_file, simai,
# compute_table, compare, memo, share, sweep, failures, cdf, plot,
# topo_simai, chakra, results).  Builds a copy of the
# tree with clang,
# AddressSanitizer, UndefinedBehaviorSanitizer (with float-cast-overflow, which
# gcc's and clang's `undefined` set leaves out) and libFuzzer's coverage
# instrumentation (the library and the plugins too) in $WS_FUZZ_BUILD
# (default /tmp/warpsim-fuzz-build), then runs libFuzzer on a working
# corpus seeded from tests/fuzz/corpus/TARGET.  It prints libFuzzer's
# figures (execs, coverage "cov" = edges, "ft" = features) and the crash
# files; copy any crash, once fixed, into tests/fuzz/corpus/TARGET/ so
# make check replays it.
#
# AFL++ works on the same targets built without libFuzzer (their main
# replays the file named): CC=afl-clang-fast ./configure && make
# tests/fuzz/fuzz_flows, then afl-fuzz -i tests/fuzz/corpus/flows -o out
# -- tests/fuzz/.libs/fuzz_flows @@ (with LD_LIBRARY_PATH=kernel/.libs).
set -eu
[ $# -eq 2 ] || { echo "usage: $0 TARGET SECONDS" >&2; exit 2; }
target=$1
seconds=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
[ -d "$src/tests/fuzz/corpus/$target" ] || { echo "$0: no target '$target'" >&2; exit 2; }
build=${WS_FUZZ_BUILD:-/tmp/warpsim-fuzz-build}
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
flags="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow -fsanitize=fuzzer-no-link"

mkdir -p "$build"
# the tree as it is now (tracked and new files), without build products
(cd "$src" && git ls-files -co --exclude-standard | grep -v '^tests/fuzz/work/' |
	tar -cf - -T -) | (cd "$build" && tar -xf -)
cd "$build"
if [ ! -f Makefile ] || [ configure.ac -nt Makefile ] || [ Makefile.am -nt Makefile ]; then
	autoreconf -fi >/dev/null
	./configure -q CC=clang CFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined,float-cast-overflow"
fi
make -s -j"$jobs" >/dev/null
rm -f "tests/fuzz/fuzz_$target" "tests/fuzz/.libs/fuzz_$target"
make -s "tests/fuzz/fuzz_$target" FUZZ_ENGINE=-fsanitize=fuzzer FUZZ_DEFS=-DWS_FUZZ_ENGINE \
	>/dev/null
work="$build/work/$target"
crashes="$build/crashes/$target"
mkdir -p "$work" "$crashes"
touch "$build/$target.start"
prog="tests/fuzz/.libs/fuzz_$target"
[ -x "$prog" ] || prog="tests/fuzz/fuzz_$target"
export LD_LIBRARY_PATH="$build/kernel/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
set +e
"$prog" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-print_final_stats=1 -artifact_prefix="$crashes/" "$work" \
	"$src/tests/fuzz/corpus/$target" 2>&1 | tee "$build/$target.log" |
	grep -E '^#[0-9]+ *(INITED|DONE)|^stat::|ERROR|SUMMARY'
set -e
echo "fuzz $target: $(find "$crashes" -type f -newer "$build/$target.start" | wc -l)" \
	"new crash/leak/timeout files in $crashes;" \
	"corpus $(ls "$work" | wc -l) inputs in $work; log $build/$target.log"
