#!/usr/bin/env python3
"""One AdamW step over the parameters of TrainingBench's MLP and encoder layer, and one SGD step
(momentum 0.9, its buffers made by a first step) over the MLP's, gradients already
set, under torch (every CPU this process may use, or --threads N): the for-loop implementation, the foreach one (torch's default), and
torch.compile(opt.step). The peer of ember-bench's OptimizerStepBench; run it in the same session.

    .venv/bin/python ember-bench/peer/torch_optim_peer.py
"""
import time

import peer_malloc

peer_malloc.keep_freed_memory()

import torch
import torch.nn as nn

import peer_threads

THREADS = peer_threads.use(torch)


def mlp():
    return nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 512))


def encoder():
    return nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)


def with_grads(model):
    for p in model.parameters():
        p.grad = torch.randn_like(p) * 1e-3
    return model


def bench(step, warmup=5, seconds=4.0):
    for _ in range(warmup):
        step()
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(times) < 5:
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1e3 * times[len(times) // 2]


def adamw(params, foreach=None):
    return torch.optim.AdamW(params, lr=1e-4, foreach=foreach)


def sgd(params, foreach=None):
    opt = torch.optim.SGD(params, lr=1e-4, momentum=0.9, foreach=foreach)
    opt.step()   # the momentum buffers exist from here on: the steady step is what is timed
    return opt


def main():
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; ms per optimizer step (median)")
    for name, make, optimizer in [("mlp AdamW", mlp, adamw), ("encoder AdamW", encoder, adamw), ("mlp SGD momentum", mlp, sgd)]:
        row = [name]
        for foreach in (False, True):
            model = with_grads(make())
            opt = optimizer(model.parameters(), foreach=foreach)
            row.append(f"{'foreach' if foreach else 'for-loop'} {bench(opt.step):.2f}")
        model = with_grads(make())
        opt = optimizer(model.parameters())
        compiled = torch.compile(opt.step)
        t0 = time.perf_counter()
        compiled()
        first = time.perf_counter() - t0
        row.append(f"torch.compile {bench(compiled):.2f} (first call {first:.1f} s)")
        print("  ".join(row))


if __name__ == "__main__":
    main()
