#!/bin/sh
# fidelity-allreduce.sh: a 16-GPU all-reduce across 2 servers of a 400 Gb/s
# rail fabric (8 GPUs per server, each with its own NIC on its rail leaf,
# 1 us links), idle network, HPCC, through the simai workload's MICRO file
# format (AICB's micro tests: one all-reduce over all GPUs per line, one
# after another): bus bandwidth (NCCL-tests convention, 2(n-1)/n x S / time)
# against size, with NCCL-like channels ([workload] ring = rail, one per
# NIC) and with the single ring in GPU order (ring = flat); the channels
# also with exact INT and with DCQCN.
#
# usage: bench/fidelity-allreduce.sh [SIZES_MIB]   (default "1 4 16 64 256")
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${BENCH_OUT:-$here/out}/fidelity
ws="$top/warpsim"
mkdir -p "$out"
sizes=${1:-1 4 16 64 256}

n=0
for s in $sizes; do n=$((n + 1)); done
{
	echo MICRO
	echo "$n"
	for s in $sizes; do
		printf 'micro_test\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLREDUCE\t%d\t1\n' $((s * 1048576))
	done
} > "$out/allreduce-micro.txt"
cat > "$out/allreduce.ini" <<EOF2
[topology]
name = rail
gpus_per_server = 8
servers_per_unit = 2
units = 1
nic_rate = 400Gbps
link_rate = 400Gbps
[cc]
name = hpcc
[workload]
name = simai
file = allreduce-micro.txt
gpus = 16
EOF2
for ring in rail flat; do
	"$ws" run "$out/allreduce.ini" -o "$out/allreduce-$ring" --quiet --no-progress \
		--set workload.ring=$ring > /dev/null
done
# at 400 Gb/s the reference's INT multiplier (16) makes HPCC read no bytes
# on about half of the ACKs: also with exact INT, and with DCQCN
"$ws" run "$out/allreduce.ini" -o "$out/allreduce-rail-exact" --quiet --no-progress \
	--set nic.int_encoding=exact > /dev/null
"$ws" run "$out/allreduce.ini" -o "$out/allreduce-rail-dcqcn" --quiet --no-progress \
	--set cc.name=dcqcn > /dev/null
printf '%9s %10s %10s %7s %12s %12s   (busbw, Gb/s)\n' size_MiB rail flat ratio rail_exactINT rail_dcqcn
paste -d, "$out/allreduce-rail/collectives.csv" "$out/allreduce-flat/collectives.csv" \
	"$out/allreduce-rail-exact/collectives.csv" "$out/allreduce-rail-dcqcn/collectives.csv" |
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "busbw_gbps") c[++k] = i; next }
	{ printf "%9.0f %10.1f %10.1f %7.2f %12.1f %12.1f\n", $7 / 1048576, $c[1], $c[2],
		 $c[1] / $c[2], $c[3], $c[4] }'
