#!/usr/bin/env python3
"""One training step (forward, loss = mean of squared outputs, backward, AdamW) of ember-bench's
TrainingBench models under torch eager and torch.compile (every CPU this process may use, or --threads N), and the compile time of each
(the first compiled step, cold process), for docs/benchmarks.md. Run it in the same session as JMH.

    ember-bench/peer/setup-venv.sh            # once: a venv with the machine's torch wheel
    .venv/bin/python ember-bench/peer/torch_train_peer.py [--quick] [--only lstm,mlp]
"""
import sys
import time

import peer_malloc

peer_malloc.keep_freed_memory()

import torch
import torch.nn as nn

import peer_threads

THREADS = peer_threads.use(torch)
QUICK = "--quick" in sys.argv
# --only lstm,mlp: those workloads alone
ONLY = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None


def mlp():
    return nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 512))


def conv_bn_relu():
    layers = []
    for _ in range(3):
        layers += [nn.Conv2d(64, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU()]
    return nn.Sequential(*layers)


def encoder():
    return nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)


class LstmOutput(nn.Module):
    """TrainingBench's lstm: a two-layer LSTM (input 32, hidden 64), its output at every step."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(32, 64, 2)

    def forward(self, x):
        return self.lstm(x)[0]


class GruOutput(nn.Module):
    """TrainingBench's gru: a two-layer GRU (input 32, hidden 64), its output at every step."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(32, 64, 2)

    def forward(self, x):
        return self.gru(x)[0]


WORKLOADS = [("mlp", mlp, (64, 512)), ("convBnRelu", conv_bn_relu, (4, 64, 28, 28)), ("encoder", encoder, (4, 128, 256)),
             ("lstm", LstmOutput, (50, 16, 32)), ("gru", GruOutput, (50, 16, 32))]


def make_step(model, opt, forward):
    def step(x):
        opt.zero_grad(set_to_none=True)
        loss = forward(x).pow(2).mean()
        loss.backward()
        opt.step()
        return loss.item()
    return step


def bench(step, x, warmup=3, seconds=4.0):
    for _ in range(warmup):
        step(x)
    times = []
    end = time.perf_counter() + (1.0 if QUICK else seconds)
    while time.perf_counter() < end or len(times) < 5:
        t0 = time.perf_counter()
        step(x)
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1e3 * times[len(times) // 2]


def main():
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"{'workload':<12} {'torch eager (ms)':>17} {'torch.compile (ms)':>19} {'compile, first step (s)':>24}")
    for name, make, shape in WORKLOADS:
        if ONLY is not None and name not in ONLY:
            continue
        model = make().train()
        x = torch.randn(*shape)
        eager = bench(make_step(model, torch.optim.AdamW(model.parameters(), lr=1e-4), model), x)
        cmodel = make().train()
        compiled = torch.compile(cmodel)
        step = make_step(cmodel, torch.optim.AdamW(cmodel.parameters(), lr=1e-4), compiled)
        t0 = time.perf_counter()
        step(x)
        first = time.perf_counter() - t0
        comp = bench(step, x)
        print(f"{name:<12} {eager:>17.2f} {comp:>19.2f} {first:>24.2f}")


if __name__ == "__main__":
    main()
