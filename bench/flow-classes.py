#!/usr/bin/env python3
# flow-classes.py: what a run's network flows are, for deciding whether
# "flow classes" (one flow standing for N identical transfers) could be
# exact (docs/performance.md, "Flow classes, measured").
#
# A class needs transfers of one size starting at one instant whose max-min
# rates are provably equal.  From fct.csv this prints: how many flows start
# together with the same size (the most a class could merge), how those
# group sizes are spread, and, among the groups, how many distinct FCTs each
# has (equal rates would give one FCT per group, give or take the tails of
# paths of different lengths).  GPUS_PER_SERVER (default 8) tells which
# flows stay on one rail (same local GPU index).
#
# usage: bench/flow-classes.py RUN_DIR/fct.csv [MAX_ROWS]
import collections
import csv
import os
import sys


def main():
    path = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    gps = int(os.environ.get("GPUS_PER_SERVER", "8"))
    groups = collections.defaultdict(list)
    n = same_rail = 0
    with open(path) as f:
        rows = csv.reader(f)
        head = next(rows)
        col = {k: i for i, k in enumerate(head)}
        for row in rows:
            src, dst = int(row[col["src"]]), int(row[col["dst"]])
            same_rail += src % gps == dst % gps
            groups[(row[col["start_ns"]], row[col["bytes"]])].append(row[col["fct_ns"]])
            n += 1
            if limit and n >= limit:
                break
    if not n:
        print("no flows")
        return
    print(f"flows {n}, same rail {same_rail} ({100.0 * same_rail / n:.1f} %)")
    print(f"groups of (start, bytes): {len(groups)}, {n / len(groups):.3f} flows a group"
          " (the most flow classes could divide the flows by)")
    by_size = collections.Counter(len(v) for v in groups.values())
    print("group size: groups (flows)")
    for k in sorted(by_size):
        print(f"  {k:6d}: {by_size[k]} ({k * by_size[k]})")
    for least in (2, 16, 64):
        big = [v for v in groups.values() if len(v) >= least]
        flows = sum(len(v) for v in big)
        if not big:
            continue
        one = sum(1 for v in big if len(set(v)) == 1)
        mean_distinct = sum(len(set(v)) for v in big) / len(big)
        print(f"groups of {least}+: {len(big)} holding {flows} flows "
              f"({100.0 * flows / n:.1f} %); {one} with a single FCT, "
              f"{mean_distinct:.1f} distinct FCTs a group on average")


if __name__ == "__main__":
    main()
