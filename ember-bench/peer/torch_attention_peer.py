#!/usr/bin/env python3
"""scaled_dot_product_attention alone under torch eager (libtorch's CPU flash-attention kernel) and
torch.compile, over the sequence-length sweep of ember-bench's AttentionBench: self-attention,
batch 2, 8 heads, head dim 64, float32, every CPU (or --threads N), plain and causal. Run it in the same session as
JMH, for docs/benchmarks.md:

    .venv/bin/python ember-bench/peer/torch_attention_peer.py [--quick] [--seqs 128,256,...]

Times are medians in milliseconds; the first compiled call (compile included) in seconds. glibc's
malloc is told to keep freed memory (peer_malloc), as in every torch peer script.
"""
import sys
import time

import peer_malloc

peer_malloc.keep_freed_memory()

import torch
import torch.nn.functional as F

from torch_peer import bench

import peer_threads

THREADS = peer_threads.use(torch)
BATCH, HEADS, HEAD_DIM = 2, 8, 64


def seqs():
    if "--seqs" not in sys.argv:
        return [128, 256, 512, 1024, 2048]
    i = sys.argv.index("--seqs")
    if i + 1 >= len(sys.argv):
        sys.exit("torch_attention_peer: --seqs needs a value, e.g. --seqs 128,512")
    return [int(s) for s in sys.argv[i + 1].split(",") if s]


def attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v)


def causal_attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def main():
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; batch {BATCH}, heads {HEADS}, head dim {HEAD_DIM}, float32")
    with torch.inference_mode():
        for seq in seqs():
            q, k, v = (torch.randn(BATCH, HEADS, seq, HEAD_DIM) for _ in range(3))
            for name, fn in (("plain", attention), ("causal", causal_attention)):
                eager = bench(fn, q, k, v)
                torch._dynamo.reset()
                t0 = time.perf_counter()
                compiled = torch.compile(fn)
                compiled(q, k, v)
                first = time.perf_counter() - t0
                comp = bench(compiled, q, k, v)
                print(f"seq {seq:5d} {name:7s} eager {eager:9.3f} ms   torch.compile {comp:9.3f} ms   (first compiled call {first:6.2f} s)")


if __name__ == "__main__":
    main()
