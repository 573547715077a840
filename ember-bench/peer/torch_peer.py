#!/usr/bin/env python3
"""The inductor benchmark workloads under torch eager and torch.compile (every CPU this process may use, or --threads N), for
docs/benchmarks.md. Same shapes and ops as ember-bench's InductorPointwiseBench, InductorNormBench
and ModelBench; run it in the same session as JMH.

    ember-bench/peer/setup-venv.sh            # once: a venv with the machine's torch wheel
    .venv/bin/python ember-bench/peer/torch_peer.py [--quick] [--only arith16M,softmax,...] [--json FILE]

--json FILE also writes the figures as JSON, which `./ember bench --report` reads (its dashboard
generator, dev.ember.bench.dashboard, declares which workload each name below fills):

    {"torch": "2.13.0+cpu", "threads": 2, "quick": false,
     "malloc": {"MALLOC_MMAP_THRESHOLD_": "4294967296", ...},
     "results": {"triad16M": {"eager_ms": 5.06},
                 "arith16M": {"eager_ms": 39.1, "compiled_ms": 6.61, "first_compiled_call_s": 2.61}, ...}}

Times are medians in milliseconds; the first compiled call (compile included) in seconds.
"""
import json
import os
import sys
import time

import peer_malloc

peer_malloc.keep_freed_memory()

import torch
import torch.nn as nn
import torch.nn.functional as F

import peer_threads

THREADS = peer_threads.use(torch)
QUICK = "--quick" in sys.argv


def option(name):
    """The value after `name` on the command line, or None."""
    if name not in sys.argv:
        return None
    i = sys.argv.index(name)
    if i + 1 >= len(sys.argv):
        sys.exit(f"torch_peer: {name} needs a value")
    return sys.argv[i + 1]


JSON_OUT = option("--json")
ONLY = option("--only")


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
    """(name, make) pairs; make() builds the function and its inputs, so a run builds only what it measures."""
    def encoder():
        return nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True).eval()
    return [
        ("arith16M", lambda: (arith, (torch.randn(16 << 20), torch.randn(16 << 20)))),
        ("trans4M", lambda: (trans, (torch.randn(4 << 20),))),
        ("softmax", lambda: (lambda x: torch.softmax(x, -1), (torch.randn(1024, 4096),))),
        ("layerNorm", lambda: (lambda x, w, b: F.layer_norm(x, (4096,), w, b),
                               (torch.randn(1024, 4096), torch.randn(4096), torch.randn(4096)))),
        ("mlp", lambda: (Mlp().eval(), (torch.randn(64, 512),))),
        ("convBnRelu", lambda: (ConvBnRelu().eval(), (torch.randn(8, 64, 56, 56),))),
        ("encoder", lambda: (encoder(), (torch.randn(8, 128, 256),))),
    ]


def triad(a, b, c):
    torch.add(a, b, alpha=3.0, out=c)


def main():
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    known = ["triad16M"] + [name for name, _ in workloads()]
    only = None if ONLY is None else [n for n in ONLY.split(",") if n]
    if only is not None and any(n not in known for n in only):
        sys.exit(f"torch_peer: --only {ONLY}: unknown workload(s) {[n for n in only if n not in known]}; known: {', '.join(known)}")
    results = {}
    if only is None or "triad16M" in only:
        a, b, c = torch.randn(16 << 20), torch.randn(16 << 20), torch.empty(16 << 20)
        triad_ms = bench(triad, a, b, c)
        results["triad16M"] = {"eager_ms": triad_ms}
        print(f"{'triad16M (c = a + 3b)':24s} eager {triad_ms:9.2f} ms")
        del a, b, c
    with torch.inference_mode():
        for name, make in workloads():
            if only is not None and name not in only:
                continue
            fn, args = make()
            eager = bench(fn, *args)
            t0 = time.perf_counter()
            compiled = torch.compile(fn)
            compiled(*args)
            first = time.perf_counter() - t0
            comp = bench(compiled, *args)
            results[name] = {"eager_ms": eager, "compiled_ms": comp, "first_compiled_call_s": first}
            print(f"{name:24s} eager {eager:9.2f} ms   torch.compile {comp:9.2f} ms   (first compiled call {first:6.2f} s)")
    if JSON_OUT:
        doc = {"torch": torch.__version__, "threads": torch.get_num_threads(), "quick": QUICK,
               "malloc": {k: os.environ.get(k) for k in peer_malloc.SETTINGS}, "results": results}
        with open(JSON_OUT, "w") as out:
            json.dump(doc, out, indent=1)
            out.write("\n")
        print(f"wrote {JSON_OUT}")


if __name__ == "__main__":
    main()
