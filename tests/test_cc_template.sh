#!/bin/sh
# The out-of-tree workflow of docs/writing-a-cc.md, as a user runs it:
# build examples/cc-template in a directory of its own against this build
# tree (pkg-config with warpsim-uninstalled.pc), describe the plugin, run
# its scenario, and check the plugin ran and reacted to ECN; then compile
# and run the guide's CC-lab example against the same tree.
set -eu
src=${abs_top_srcdir:?}
build=${abs_top_builddir:?}
. "${abs_top_srcdir:?}/tests/prog.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp "$src/examples/cc-template/aimd.c" "$src/examples/cc-template/Makefile" "$tmp/"
make -s -C "$tmp" PKG_CONFIG_PATH="$build"
test -f "$tmp/aimd.so"

"$prog" describe aimd --plugin-path "$tmp" > "$tmp/describe.txt"
grep -q "cc plugin 'aimd'" "$tmp/describe.txt"
grep -q "^  md  *float  *0.5 " "$tmp/describe.txt"

# its bounds are enforced like any plugin's
if "$prog" run "$src/examples/cc-template/aimd.ini" --plugin-path "$tmp" \
	--set cc.md=1.5 -o "$tmp/bad" --quiet 2> "$tmp/err.txt"; then
	echo "md = 1.5 was accepted"; exit 1
fi
grep -q "1.5 is out of range (expected 0.01 to 0.99)" "$tmp/err.txt"

"$prog" run "$src/examples/cc-template/aimd.ini" --plugin-path "$tmp" \
	-o "$tmp/out" --quiet --no-progress
grep -q '"name": "aimd"' "$tmp/out/summary.json"
# every flow completed
test "$(wc -l < "$tmp/out/fct.csv")" -eq 35
# it cut some rates (ECN marks reached it) and stayed within line rate
awk -F, 'NR > 1 { if ($18 < 100000000000) cut++; if ($18 > 100000000000) over++ }
	END { if (!cut || over) { print "rates: " cut " cut, " over " over line rate"; exit 1 } }' \
	"$tmp/out/flows.csv"
# the CC lab example of docs/writing-a-cc.md, compiled against this tree
cat > "$tmp/lab.c" <<'EOC'
#include <inttypes.h>
#include <stdio.h>
#include <warpsim/warpsim.h>

int main(int argc, char **argv)
{
	struct ws_cc_lab_spec spec = { WS_INIT_SIZE(struct ws_cc_lab_spec),
		.cc = "aimd", .plugin_path = argv[1],
		.params = (const char *[]){ "md=0.8", NULL },
		.line_rate = 100000000000ull, .base_rtt = 10 * WS_US,
	};
	struct ws_cc_lab *lab;
	struct ws_err err;
	(void)argc;
	if (ws_cc_lab_new(&lab, &spec, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	struct ws_cc_ack marked = { .seq = 1000, .newly_acked = 1000, .packets = 1,
				    .ce_packets = 1, .ecn_echo = true };
	ws_cc_lab_ack(lab, &marked);
	ws_cc_lab_advance(lab, 1 * WS_MS);
	printf("%" PRIu64 "\n", ws_cc_lab_flow(lab)->rate);
	ws_cc_lab_free(lab);
	return 0;
}
EOC
# (with the build's sanitizer flags: an uninstrumented program cannot load
# an instrumented libwarpsim)
# shellcheck disable=SC2086
cc -O2 ${SAN_CFLAGS:-} -o "$tmp/lab" "$tmp/lab.c" ${SAN_LDFLAGS:-} \
	$(PKG_CONFIG_PATH="$build" pkg-config --cflags --libs warpsim)
test "$("$tmp/lab" "$tmp")" = 80000000000

echo "cc-template: 2 passed, 0 failed"
