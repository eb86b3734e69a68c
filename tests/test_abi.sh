#!/bin/sh
# The ABI golden: libwarpsim's exported symbols (nm -D) and the sizes of the
# structs the plugin ABI passes (tests/abi_sizes) must equal
# tests/golden/abi.txt.  A change is refused unless the ABI version moved
# with it: any change needs a new WS_ABI_MINOR at least, and removing an
# export or changing a struct that cannot grow (or shrinking one) needs a
# new WS_ABI_MAJOR.  When the version moved as it must,
#     WARPSIM_UPDATE_GOLDEN=1 make check TESTS=tests/test_abi.sh
# rewrites the golden, to be committed with the change.
set -eu
src=${abs_top_srcdir:?}
build=${abs_top_builddir:?}
golden="$src/tests/golden/abi.txt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0

lib="$build/kernel/.libs/libwarpsim.so"
[ -f "$lib" ] || { echo "abi: no $lib"; echo "abi: 0 passed, 1 failed"; exit 1; }
{
	echo "# warpsim plugin ABI: exports of libwarpsim.so and struct sizes (tests/test_abi.sh)"
	"$build/tests/abi_sizes"
	nm -D --defined-only "$lib" | awk '$2 ~ /^[TDRBV]$/ { print "export " $3 }' | LC_ALL=C sort
} > "$tmp/now.txt"

# 1. only ws_ names, and each declared WS_API in a public header
bad=$(awk '$1 == "export" && $2 !~ /^ws_/ { print $2 }' "$tmp/now.txt")
[ -z "$bad" ] || { echo "abi: exported without the ws_ prefix: $bad"; echo "abi: $passed passed, 1 failed"; exit 1; }
for s in $(awk '$1 == "export" { print $2 }' "$tmp/now.txt"); do
	if ! grep -q "^WS_API .*\b$s(" "$src"/kernel/warpsim/*.h; then
		echo "abi: $s is exported but not declared WS_API in kernel/warpsim/"
		echo "abi: $passed passed, 1 failed"; exit 1
	fi
done
passed=$((passed + 1))

# 2. the library never touches the terminal: stdout is never named, and
# stderr only in ws_fatal (kernel/util.c), which reports a failure it cannot
# return from just before abort()
term=$(grep -n 'stdout\|stderr\|isatty\|[^a-z_]printf(\|[^a-z_]puts(\|putchar(' "$src"/kernel/*.c |
	grep -v '^[^:]*/util\.c:[0-9]*:\s*\*\|ws_fatal\|fprintf(stderr, "warpsim: %s\\n", msg);' || true)
if [ -n "$term" ]; then
	echo "abi: library code writes to the terminal (use an error or a ws_opts callback):"
	echo "$term"
	echo "abi: $passed passed, 1 failed"; exit 1
fi
passed=$((passed + 1))

# 3. the golden
if [ ! -f "$golden" ]; then
	if [ "${WARPSIM_UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$tmp/now.txt" "$golden"
		echo "abi: wrote $golden"; echo "abi: $((passed + 1)) passed, 0 failed"; exit 0
	fi
	echo "abi: no $golden (run with WARPSIM_UPDATE_GOLDEN=1 once)"
	echo "abi: $passed passed, 1 failed"; exit 1
fi
if cmp -s "$golden" "$tmp/now.txt"; then
	echo "abi: $((passed + 1)) passed, 0 failed"; exit 0
fi
diff -u "$golden" "$tmp/now.txt" || true
ver() { awk '$1 == "abi" { print $2 }' "$1"; }
old=$(ver "$golden"); new=$(ver "$tmp/now.txt")
# what changed that only a major bump allows
breaking=$(awk '
	FNR == NR { if ($1 == "export") had[$2] = 1; if ($1 == "size") { sz[$2] = $3; gr[$2] = ($4 == "grow") } next }
	$1 == "export" { now[$2] = 1 }
	$1 == "size" && ($2 in sz) && $3 != sz[$2] && (!gr[$2] || $3 < sz[$2]) { print "size of " $2 " " sz[$2] " -> " $3 }
	END { for (s in had) if (!(s in now)) print "removed " s }' "$golden" "$tmp/now.txt")
if [ "$old" = "$new" ]; then
	echo "abi: the ABI changed (above) but WS_ABI_MAJOR.MINOR is still $new: bump it in"
	echo "     kernel/warpsim/plugin.h, tag the addition there, then update the golden"
	echo "abi: $passed passed, 1 failed"; exit 1
fi
if [ -n "$breaking" ] && [ "${old%%.*}" = "${new%%.*}" ]; then
	echo "abi: incompatible changes need a new WS_ABI_MAJOR, not only a minor:"
	echo "$breaking"
	echo "abi: $passed passed, 1 failed"; exit 1
fi
if [ "${WARPSIM_UPDATE_GOLDEN:-}" = 1 ]; then
	cp "$tmp/now.txt" "$golden"
	echo "abi: ABI $old -> $new: wrote $golden"
	echo "abi: $((passed + 1)) passed, 0 failed"; exit 0
fi
echo "abi: ABI $old -> $new: if intended, rerun with WARPSIM_UPDATE_GOLDEN=1 and commit $golden"
echo "abi: $passed passed, 1 failed"; exit 1
