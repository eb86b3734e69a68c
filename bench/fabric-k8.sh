#!/bin/sh
# fabric-k8.sh TRACE: the ini of the flow-trace benchmarks (bench/kernel.sh,
# bench/accel.sh): a k=8 fat-tree (128 hosts, 100 Gb/s, 1 us links), DCQCN,
# the flows of TRACE (a path relative to the ini's directory).
set -eu
cat <<EOF2
[topology]
name = fat-tree
k = 8
link_rate = 100Gbps
link_delay = 1us
[cc]
name = dcqcn
[workload]
name = flows
file = ${1:?trace}
EOF2
