#!/usr/bin/env python3
"""Which interpolation points make Winograd F(m x m, 3x3) most exact in float32.

A Winograd (Toom-Cook) convolution is exact in real arithmetic for any distinct points; in float32
its error grows with the transforms' coefficients. This script builds A^T, G and B^T for a set of
points (plus the point at infinity), runs the algorithm as Ember's ConvWinograd kernels do -- the
weight transform in double rounded once, B^T d B and the channel sums and A^T M A in float32 -- on
random 3x3 correlations over 64 channels, and prints the largest and rms error against float64.

    python3 ember-bench/peer/winograd_points.py              # the sets named in docs/tuning.md
    python3 ember-bench/peer/winograd_points.py --search     # every set of 0 and four more points
    python3 ember-bench/peer/winograd_points.py --relu       # non-negative inputs (after a ReLU)

Needs numpy only (the torch venv has it). Figures it gave are in docs/tuning.md.
"""
import argparse
import itertools
from fractions import Fraction

import numpy as np


def matrices(m, points, r=3):
    """A^T (m x n), G (n x r), B^T (n x n) of F(m, r) on the points and infinity, n = m + r - 1."""
    n = m + r - 1
    assert len(points) == n - 1, "F(%d, %d) needs %d finite points" % (m, r, n - 1)
    at = np.zeros((m, n))
    g = np.zeros((n, r))
    for j, p in enumerate(points):
        at[:, j] = [p ** i for i in range(m)]
        scale = np.prod([p - q for q in points if q != p])
        g[j] = [p ** k / scale for k in range(r)]
    at[m - 1, n - 1] = 1
    g[n - 1, r - 1] = 1
    # B^T from the identity sum_j A^T[i,j] G[j,k] B^T[j,l] = [l == i + k] (a consistent linear system)
    rows, rhs = [], []
    for i in range(m):
        for k in range(r):
            for l in range(n):
                row = np.zeros((n, n))
                row[:, l] = at[i, :] * g[:, k]
                rows.append(row.ravel())
                rhs.append(1.0 if l == i + k else 0.0)
    rows, rhs = np.array(rows), np.array(rhs)
    solution = np.linalg.lstsq(rows, rhs, rcond=None)[0]
    residual = np.abs(rows @ solution - rhs).max()
    if residual > 1e-9:
        raise ValueError("points %s give no exact algorithm (residual %.3g)" % (points, residual))
    return at, g, solution.reshape(n, n)


def inputs(m, channels, outputs, tiles, seed, relu):
    rng = np.random.default_rng(seed)
    d = rng.standard_normal((channels, tiles, m + 2, m + 2))
    if relu:
        d = np.maximum(d, 0)
    w = rng.standard_normal((outputs, channels, 3, 3)) / np.sqrt(9 * channels)
    d, w = d.astype(np.float32), w.astype(np.float32)
    exact = np.zeros((outputs, tiles, m, m))
    for a in range(3):
        for b in range(3):
            exact += np.einsum('kc,ctij->ktij', w[:, :, a, b].astype(np.float64), d[:, :, a:a + m, b:b + m].astype(np.float64))
    return d, w, exact


def winograd_error(m, points, channels=64, outputs=8, tiles=3000, seed=0, relu=False):
    at, g, bt = matrices(m, points)
    d, w, exact = inputs(m, channels, outputs, tiles, seed, relu)
    u = np.einsum('xa,kcab,yb->kcxy', g, w.astype(np.float64), g).astype(np.float32)
    bt32, at32 = bt.astype(np.float32), at.astype(np.float32)
    v = np.einsum('xa,ctab->ctxb', bt32, d).astype(np.float32)
    v = np.einsum('ctxb,yb->ctxy', v, bt32).astype(np.float32)
    sums = np.zeros((outputs, tiles, m + 2, m + 2), dtype=np.float32)
    for c in range(channels):
        sums = (sums + u[:, c][:, None] * v[c][None]).astype(np.float32)
    y = np.einsum('ia,ktab->ktib', at32, sums).astype(np.float32)
    y = np.einsum('ktib,jb->ktij', y, at32).astype(np.float32)
    error = np.abs(y.astype(np.float64) - exact)
    return error.max(), np.sqrt((error ** 2).mean())


def direct_error(m=4, channels=64, outputs=8, tiles=3000, seed=0, relu=False):
    d, w, exact = inputs(m, channels, outputs, tiles, seed, relu)
    acc = np.zeros((outputs, tiles, m, m), dtype=np.float32)
    for c in range(channels):
        for a in range(3):
            for b in range(3):
                acc = (acc + w[:, c, a, b][:, None, None, None] * d[c, :, a:a + m, b:b + m][None]).astype(np.float32)
    error = np.abs(acc.astype(np.float64) - exact)
    return error.max(), np.sqrt((error ** 2).mean())


NAMED = [(2, [0, 1, -1]), (4, [0, 1, -1, 2, -2]), (4, [0, 1, -1, 0.5, -2]), (4, [0, 1.5, -1.5, 2 / 3, -2 / 3])]
CANDIDATES = [1, -1, 2, -2, 0.5, -0.5, 3, -3, 1 / 3, -1 / 3, 1.5, -1.5, 2 / 3, -2 / 3, 0.25, -0.25, 4, -4]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--search', action='store_true', help='rank every set of 0 and four more points for F(4x4, 3x3)')
    parser.add_argument('--relu', action='store_true', help='non-negative inputs')
    args = parser.parse_args()
    fmt = lambda pts: '{' + ', '.join(str(Fraction(p).limit_denominator(100)) for p in pts) + '}'
    if args.search:
        ranked = []
        for four in itertools.combinations(CANDIDATES, 4):
            try:
                worst, rms = winograd_error(4, [0, *four], outputs=4, tiles=600, seed=1, relu=args.relu)
            except ValueError:
                continue
            ranked.append((rms, worst, [0, *four]))
        ranked.sort()
        print('%-44s %12s %12s' % ('F(4x4, 3x3) points', 'rms error', 'max error'))
        for rms, worst, pts in ranked[:12]:
            print('%-44s %12.3g %12.3g' % (fmt(pts), rms, worst))
        return
    worst, rms = direct_error(relu=args.relu)
    print('%-44s %12s %12s' % ('kernel', 'max error', 'rms error'))
    print('%-44s %12.3g %12.3g' % ('direct sum over 9C products', worst, rms))
    for m, pts in NAMED:
        worst, rms = winograd_error(m, pts, relu=args.relu)
        print('%-44s %12.3g %12.3g' % ('F(%dx%d, 3x3) %s' % (m, m, fmt(pts)), worst, rms))


if __name__ == '__main__':
    main()
