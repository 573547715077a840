"""
The MLP training step of TrainingBench (512->2048->2048->512, batch 64, loss = mean of squared
outputs, AdamW lr 1e-4) under torch.compile, timed phase by phase (zero_grad, compiled forward and
loss, backward, optimizer step: medians of the last 150 of 300 steps), and torch.mm on the step's
products: the peer of `dev.ember.bench.TrainingPhases` (docs/benchmarks.md, session 19).
    .venv/bin/python ember-bench/peer/torch_train_phases.py [--threads N]
"""
import statistics
import time

import peer_malloc

peer_malloc.keep_freed_memory()

import torch
import torch.nn as nn

import peer_threads

THREADS = peer_threads.use(torch)


def med(a):
    return statistics.median(a) * 1e3


def main():
    torch.manual_seed(1)
    m = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 512))
    x = torch.randn(64, 512)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
    f = torch.compile(m)
    phases = [[], [], [], []]
    for i in range(300):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        t1 = time.perf_counter()
        loss = f(x).pow(2).mean()
        t2 = time.perf_counter()
        loss.backward()
        t3 = time.perf_counter()
        opt.step()
        loss.item()
        t4 = time.perf_counter()
        if i >= 150:
            for p, d in zip(phases, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
                p.append(d)
    z, fw, bw, st = (med(p) for p in phases)
    print(f"torch {torch.__version__}, {THREADS} threads")
    print(f"torch.compile MLP step, median ms: zeroGrad {z:.2f}  forward {fw:.2f}  backward {bw:.2f}  step {st:.2f}  total {z + fw + bw + st:.2f}")
    for name, a, b in (("64x2048x512", (64, 512), (512, 2048)), ("64x2048x2048", (64, 2048), (2048, 2048)),
                       ("64x512x2048", (64, 2048), (2048, 512)), ("2048x2048x64", (2048, 64), (64, 2048)),
                       ("2048x512x64", (2048, 64), (64, 512)), ("512x2048x64", (512, 64), (64, 2048))):
        A, B = torch.randn(*a), torch.randn(*b)
        for _ in range(50):
            torch.mm(A, B)
        ts = []
        for _ in range(200):
            t0 = time.perf_counter()
            torch.mm(A, B)
            ts.append(time.perf_counter() - t0)
        print(f"  torch.mm m x n x k = {name:14s} {med(ts):7.3f} ms  {2 * a[0] * a[1] * b[1] / med(ts) / 1e6:6.1f} GFLOP/s")


if __name__ == "__main__":
    main()
