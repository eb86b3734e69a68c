#!/bin/sh
# Replays every fuzz target's seed corpus (tests/fuzz/corpus/TARGET/),
# deterministically, in make check: each input must be handled (an error
# or a result), never a crash, a hang or a sanitizer report.  The corpora
# hold real inputs, the hostile ones issue 16 found, and what coverage
# fuzzing (tests/fuzz/run.sh) turned up.
set -eu
src=${abs_top_srcdir:?}
build=${abs_top_builddir:?}
passed=0
failed=0
for dir in "$src"/tests/fuzz/corpus/*/; do
	t=$(basename "$dir")
	prog="$build/tests/fuzz/fuzz_$t"
	# the chakra workload is built only with protobuf-c (configure)
	if [ "$t" = chakra ] && [ "${WS_CHAKRA:-yes}" != yes ]; then
		echo "fuzz: chakra skipped (built without protobuf-c)"
		continue
	fi
	if [ ! -x "$prog" ]; then
		echo "fuzz: no target $prog"
		failed=$((failed + 1))
		continue
	fi
	# 60 s each at most: a hang is a failure, not a stuck make check
	if timeout 60 "$prog" "$dir"; then
		passed=$((passed + 1))
	else
		echo "fuzz: $t failed on its corpus (status $?)"
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
