#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a Spectrum-X-shaped topology file in SimAI's layout.

The layout (as SimAI's ns-3 backend reads it, and warpsim's `simai`
topology):
    line 1  nodes gpus_per_server nvswitches switches links gpu_type
    line 2  the switch ids, NVSwitches first
    then    src dst rate latency error_rate   (one line per link)
GPUs are ids 0 .. gpus-1, then one NVSwitch per server, then the rail
leaves, then the spines.

The fabric: servers of `--gps` GPUs joined by their NVSwitch (NVLink at
`--nvbw`); rail-optimized segments of `--servers-per-segment` servers, each
with one leaf per rail (GPU g of every server of the segment on leaf g, at
`--bw`); every leaf linked once to every one of `--spines` spines (at
`--spine-bw`).  With the defaults and -g 128 it is the shape of SimAI's
Spectrum-X 128-GPU example (8 rail leaves, 64 spines, 768 links).

Usage: gen-simai-topo.py -g 1024 [-o FILE]
"""
import argparse
import sys


def generate(gpus, gps, per_segment, spines, bw, spine_bw, nvbw,
             nic_lat, nv_lat, gpu_type):
    if gpus % gps:
        raise SystemExit("gpus must be a multiple of --gps")
    servers = gpus // gps
    segments = (servers + per_segment - 1) // per_segment
    first_nv = gpus
    first_leaf = first_nv + servers
    leaves = segments * gps
    first_spine = first_leaf + leaves
    nodes = first_spine + spines
    links = []
    for g in range(gpus):
        server = g // gps
        leaf = first_leaf + (server // per_segment) * gps + g % gps
        links.append((g, first_nv + server, nvbw, nv_lat))
        links.append((g, leaf, bw, nic_lat))
    for leaf in range(first_leaf, first_spine):
        for sp in range(first_spine, nodes):
            links.append((leaf, sp, spine_bw, nic_lat))
    out = ["%d %d %d %d %d %s" % (nodes, gps, servers, leaves + spines,
                                  len(links), gpu_type),
           " ".join(str(i) for i in range(first_nv, nodes))]
    out += ["%d %d %s %s 0" % l for l in links]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-g", "--gpus", type=int, required=True)
    ap.add_argument("--gps", type=int, default=8, help="GPUs per server")
    ap.add_argument("--servers-per-segment", type=int, default=64)
    ap.add_argument("--spines", type=int, default=64)
    ap.add_argument("--bw", default="100Gbps", help="GPU NIC to leaf")
    ap.add_argument("--spine-bw", default="400Gbps", help="leaf to spine")
    ap.add_argument("--nvbw", default="2400Gbps", help="GPU to NVSwitch")
    ap.add_argument("--latency", default="0.0005ms")
    ap.add_argument("--nvlatency", default="0.000025ms")
    ap.add_argument("--gpu-type", default="A100")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    text = generate(a.gpus, a.gps, a.servers_per_segment, a.spines, a.bw,
                    a.spine_bw, a.nvbw, a.latency, a.nvlatency, a.gpu_type)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
