#!/usr/bin/env python3
"""The inductor benchmark workloads under torch eager and torch.compile (2 threads), for
docs/benchmarks.md. Same shapes and ops as ember-bench's InductorPointwiseBench, InductorNormBench
and ModelBench; run it in the same session as JMH.

    ember-bench/peer/setup-venv.sh            # once: a venv with the machine's torch wheel
    .venv/bin/python ember-bench/peer/torch_peer.py [--quick]
"""
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(2)
QUICK = "--quick" in sys.argv


def bench(fn, *args, warmup=5, seconds=3.0):
    for _ in range(warmup):
        fn(*args)
    times = []
    end = time.perf_counter() + (1.0 if QUICK else seconds)
    while time.perf_counter() < end or len(times) < 5:
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1e3 * times[len(times) // 2]  # median, ms


def arith(x, y):
    return -((torch.relu(x * y + 1.5) - x).abs().maximum(y)) * 0.25


def trans(x):
    return torch.sigmoid(-torch.exp(torch.relu(x * 1.5 + 2).sin() * x)) - 0.5


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(512, 2048), nn.Linear(2048, 2048), nn.Linear(2048, 512)

    def forward(self, x):
        return self.l3(torch.relu(self.l2(torch.relu(self.l1(x)))))


class ConvBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(*[nn.Sequential(nn.Conv2d(64, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU())
                                      for _ in range(3)])

    def forward(self, x):
        return self.blocks(x)


def workloads():
    x16, y16 = torch.randn(16 << 20), torch.randn(16 << 20)
    x4 = torch.randn(4 << 20)
    x2d, w, b = torch.randn(1024, 4096), torch.randn(4096), torch.randn(4096)
    enc = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True).eval()
    return [
        ("arith16M", arith, (x16, y16)),
        ("trans4M", trans, (x4,)),
        ("softmax", lambda x: torch.softmax(x, -1), (x2d,)),
        ("layerNorm", lambda x, w, b: F.layer_norm(x, (4096,), w, b), (x2d, w, b)),
        ("mlp", Mlp().eval(), (torch.randn(64, 512),)),
        ("convBnRelu", ConvBnRelu().eval(), (torch.randn(8, 64, 56, 56),)),
        ("encoder", enc, (torch.randn(8, 128, 256),)),
    ]


def triad(a, b, c):
    torch.add(a, b, alpha=3.0, out=c)


def main():
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    a, b, c = torch.randn(16 << 20), torch.randn(16 << 20), torch.empty(16 << 20)
    print(f"{'triad16M (c = a + 3b)':24s} eager {bench(triad, a, b, c):9.2f} ms")
    with torch.inference_mode():
        for name, fn, args in workloads():
            eager = bench(fn, *args)
            t0 = time.perf_counter()
            compiled = torch.compile(fn)
            compiled(*args)
            first = time.perf_counter() - t0
            comp = bench(compiled, *args)
            print(f"{name:24s} eager {eager:9.2f} ms   torch.compile {comp:9.2f} ms   (first compiled call {first:6.2f} s)")


if __name__ == "__main__":
    main()
