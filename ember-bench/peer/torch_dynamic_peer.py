#!/usr/bin/env python3
"""Dynamic shapes under torch.compile, for docs/benchmarks.md beside Ember's SizeGenericBench and
BatchSweepTest: the MLP 512->2048->2048->512 compiled once with dynamic=True against compiled per
batch size (dynamic=False), per-call time at batches 2, 7, 64, 200; and how many compiles a loop
over 20 batch sizes (1..512) costs with automatic dynamic shapes (the default), for the MLP and a
transformer encoder layer. Run in the same session as JMH (the script sets glibc's malloc variables
itself, see peer_malloc.py):

    .venv/bin/python ember-bench/peer/torch_dynamic_peer.py [--threads N]
"""
import sys
import time

import peer_malloc

peer_malloc.keep_freed_memory()

import torch
import torch._dynamo
import torch.nn as nn

import peer_threads

THREADS = peer_threads.use(torch, default=1)
BATCHES = [1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 31, 32, 48, 64, 100, 128, 200, 256, 384, 512]


def bench(fn, x, seconds=2.0):
    for _ in range(5):
        fn(x)
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(times) < 5:
        t0 = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - t0)
    return 1e3 * min(times), 1e3 * sorted(times)[len(times) // 2]


def mlp():
    return nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 512)).eval()


class Counter:
    def __init__(self):
        self.frames = 0

    def __call__(self, gm, inputs):
        self.frames += 1
        from torch._inductor.compile_fx import compile_fx
        return compile_fx(gm, inputs)


def compiles_over_sweep(model, rest):
    torch._dynamo.reset()
    counter = Counter()
    f = torch.compile(model, backend=counter)
    with torch.no_grad():
        for b in BATCHES:
            f(torch.randn(b, *rest))
    return counter.frames


def per_call(name, model, rest, batches, hint):
    """dynamic=True compiled once (traced at `hint`) against dynamic=False compiled per batch."""
    print(f"{name}: batch  dynamic=True min/median (ms)  dynamic=False min/median (ms)")
    with torch.no_grad():
        for b in batches:
            x = torch.randn(b, *rest)
            torch._dynamo.reset()
            generic = torch.compile(model, dynamic=True)
            generic(torch.randn(hint, *rest))
            g = bench(generic, x)
            torch._dynamo.reset()
            s = bench(torch.compile(model, dynamic=False), x)
            print(f"{b:5d}  {g[0]:8.2f} / {g[1]:8.2f}              {s[0]:8.2f} / {s[1]:8.2f}")


def main():
    torch.manual_seed(0)
    model = mlp()
    print(f"torch {torch.__version__}, {THREADS} thread(s)")
    per_call("MLP 512-2048-2048-512", model, (512,), [2, 7, 64, 200], 64)
    encoder = nn.TransformerEncoderLayer(256, 4, 1024, 0.0, batch_first=True).eval()
    per_call("encoder layer (d 256, 4 heads, seq 64)", encoder, (64, 256), [2, 7, 64], 8)
    print("compiles over 20 batch sizes (1..512), automatic dynamic:")
    print("  MLP:", compiles_over_sweep(model, (512,)))
    enc = nn.TransformerEncoderLayer(32, 4, 64, 0.0, batch_first=True).eval()
    print("  encoder layer (d=32, 4 heads, seq 6):", compiles_over_sweep(enc, (6, 32)))


if __name__ == "__main__":
    main()
