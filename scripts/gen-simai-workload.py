#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a SimAI workload file (HYBRID_TRANSFORMER_FWD_IN_BCKWD) of any size.

The layout (as SimAI's parser reads it and warpsim's `simai` workload):
    line 1  policy, then `key: value` pairs (model_parallel_NPU_group: = TP,
            ep:, pp:, vpp:, ga: = micro-batches, all_gpus:, checkpoints:,
            checkpoint_initiates:, pp_comm)
    line 2  the number of layer lines
    then    name -1 fwd_ns fwd_type fwd_bytes ig_ns ig_type ig_bytes
            wg_ns wg_type wg_bytes update_ns
A forward or input-gradient collective without suffix is on the TP group,
a weight-gradient one on the DP group.

The layers: one embedding layer, then `--layers - 1` transformer blocks
alternating attention and MLP (Megatron's split: a TP all-reduce of the
activation forward and backward, a DP all-reduce of the weights).  Sizes
follow from --hidden, --seq, --mbs and --tp; compute times are plain
parameters, so the file tests scale, not a model.  Issue 29's large case
(SimAI's 9,216-GPU analytical example: 4,608 workers x 24 micro-batches x
1,789 layers) is:
    gen-simai-workload.py --gpus 9216 --tp 2 --ga 24 --layers 1789
"""
import argparse
import sys


def generate(a):
    act = 2 * a.seq * a.mbs * a.hidden           # fp16 activation, bytes
    attn_w = 2 * 4 * a.hidden * a.hidden // a.tp  # fp16 weights per TP rank
    mlp_w = 2 * 8 * a.hidden * a.hidden // a.tp
    emb_w = 2 * a.vocab * a.hidden // a.tp
    hdr = ("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: %d "
           "ep: 1 pp: %d vpp: 1 ga: %d all_gpus: %d checkpoints: 0 "
           "checkpoint_initiates: 0" % (a.tp, a.pp, a.ga, a.gpus))
    lines = [hdr, str(a.layers)]
    tp_coll = "ALLREDUCE" if a.tp > 1 else "NONE"
    tp_bytes = act if a.tp > 1 else 0
    lines.append("grad_embedding -1 %d %s %d %d NONE 0 %d ALLREDUCE %d %d" % (
        a.compute_ns, tp_coll, tp_bytes, a.compute_ns, a.compute_ns, emb_w,
        a.update_ns))
    for i in range(1, a.layers):
        if i % 2:
            name, w, c = "attention_layer", attn_w, a.compute_ns * 2
        else:
            name, w, c = "mlp_layer", mlp_w, a.compute_ns * 3
        lines.append("%s -1 %d %s %d %d %s %d %d ALLREDUCE %d %d" % (
            name, c, tp_coll, tp_bytes, c, tp_coll, tp_bytes, c, w,
            a.update_ns))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpus", type=int, required=True, help="all_gpus:")
    ap.add_argument("--tp", type=int, default=8)
    ap.add_argument("--pp", type=int, default=1)
    ap.add_argument("--ga", type=int, default=1, help="micro-batches")
    ap.add_argument("--layers", type=int, required=True,
                    help="layer lines, the embedding included")
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--mbs", type=int, default=1)
    ap.add_argument("--vocab", type=int, default=50304)
    ap.add_argument("--compute-ns", type=int, default=100000)
    ap.add_argument("--update-ns", type=int, default=1000)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    if a.gpus % (a.tp * a.pp) or a.layers < 1:
        raise SystemExit("gpus must be a multiple of tp x pp; layers >= 1")
    text = generate(a)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
