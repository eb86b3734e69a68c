#!/bin/sh
# The hostile-input suite (issue 28): every folder of tests/hostile/ is one
# input that once went wrong.  It holds the input's files, `cmd` (a shell
# script run in a private copy of the folder with $WARPSIM the program and
# $EXAMPLES the examples directory), `status` (the status `cmd` must end
# with) and, optionally, `expect` (an extended regular expression its
# combined stdout and stderr must match).  A case that needs what the
# machine may not give (root, a private mount namespace) exits 77 and is
# counted as skipped.  A case that caps the address space does it as
# `[ -n "$WS_ASAN" ] || ulimit -v N` (set under AddressSanitizer).  Grow
# it with every new surface: one folder per input.
set -eu
src=${abs_top_srcdir:?}
build=${abs_top_builddir:?}
. "$src/tests/prog.sh"
# under AddressSanitizer (its shadow memory needs the address space) the
# cases skip their `ulimit -v`: WS_ASAN is set for them
WS_ASAN=
if grep -q __asan_init "$prog" "$build/kernel/.libs/libwarpsim.so" 2>/dev/null; then
	WS_ASAN=1
fi
export WS_ASAN
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
skipped=0
for dir in "$src"/tests/hostile/*/; do
	name=$(basename "$dir")
	work="$tmp/$name"
	cp -R "$dir" "$work"
	want=$(cat "$dir/status")
	set +e
	(cd "$work" && WARPSIM="$prog" EXAMPLES="$src/examples" \
		timeout 60 sh ./cmd) > "$tmp/$name.out" 2>&1
	st=$?
	set -e
	if [ "$st" = 77 ]; then
		skipped=$((skipped + 1))
		echo "hostile: $name: skipped ($(tail -n 1 "$tmp/$name.out"))"
	elif [ "$st" != "$want" ]; then
		failed=$((failed + 1))
		echo "hostile: FAILED: $name: status $st, expected $want"
		sed 's/^/    /' "$tmp/$name.out" | head -n 20
	elif [ -f "$dir/expect" ] && ! grep -Eq -- "$(cat "$dir/expect")" "$tmp/$name.out"; then
		failed=$((failed + 1))
		echo "hostile: FAILED: $name: output does not match '$(cat "$dir/expect")'"
		sed 's/^/    /' "$tmp/$name.out" | head -n 20
	else
		passed=$((passed + 1))
	fi
done
echo "hostile: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
