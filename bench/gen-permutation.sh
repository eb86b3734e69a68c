#!/bin/sh
# gen-permutation.sh HOSTS BYTES SEED: a random permutation flow trace (no
# host sends to itself), all flows starting at 0, in the HPCC flow layout.
# Deterministic for a given seed (a 31-bit LCG in awk, integer arithmetic).
set -eu
hosts=${1:?hosts}
bytes=${2:?bytes}
seed=${3:-1}
awk -v n="$hosts" -v b="$bytes" -v seed="$seed" 'BEGIN {
	s = seed % 2147483647; if (s <= 0) s += 2147483646
	for (i = 0; i < n; i++) p[i] = i
	# Sattolo shuffle: a single cycle, so no fixed point
	for (i = n - 1; i > 0; i--) {
		s = (s * 16807) % 2147483647
		j = s % i
		t = p[i]; p[i] = p[j]; p[j] = t
	}
	print n
	for (i = 0; i < n; i++) printf "%d %d 3 100 %d 0\n", i, p[i], b
}'
