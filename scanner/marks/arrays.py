"""Small numpy helpers the box readers share: rows of a patch stack, percentiles along an
axis, medians of groups. No I/O.
"""

from __future__ import annotations

import numpy as np


def _cycled(masks: list[np.ndarray]) -> np.ndarray:
    """Flat indices of each mask, repeated cyclically to a common length (a percentile
    of a cycled list is the list's own, near enough)."""
    flat = [np.flatnonzero(m) for m in masks]
    n = max(1, max((f.size for f in flat), default=1))
    out = np.zeros((len(flat), n), np.int64)
    for k, f in enumerate(flat):
        out[k] = np.resize(f, n) if f.size else 0
    return out


def _rows(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """a (N, P, Q) gathered at flat indices idx (N, L) -> (N, L)."""
    n, m = a.shape[0], a.shape[1] * a.shape[2]
    return a.reshape(-1)[idx + (np.arange(n) * m)[:, None]]


def _pct(vals: np.ndarray, q: float) -> np.ndarray:
    """Per-row percentile (nearest rank) of (N, L)."""
    return _pcts(vals, q)[0]


def _pcts(vals: np.ndarray, *qs: float) -> list[np.ndarray]:
    """Several per-row percentiles (nearest rank) of (N, L) from one partition."""
    if vals.shape[1] == 0:
        return [np.zeros(vals.shape[0]) for _ in qs]
    ks = [min(vals.shape[1] - 1, max(0, round(q / 100 * (vals.shape[1] - 1)))) for q in qs]
    part = np.partition(vals, sorted(set(ks)), axis=1)
    return [part[:, k] for k in ks]


def _percentile(v: np.ndarray, q: float) -> np.floating:
    """np.percentile(v, q) of a 1-D array (the same value, linear between ranks), from one
    partition: a few microseconds instead of a hundred on the small arrays of one box."""
    n = v.size
    at = q / 100 * (n - 1)
    lo = int(at)
    hi = min(lo + 1, n - 1)
    part = np.partition(v, [lo, hi])
    a, b, t = part[lo], part[hi], at - lo
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def _median(v: np.ndarray) -> np.floating:
    """np.median(v) of a 1-D array (the same value), from one partition."""
    n = v.size
    part = np.partition(v, [(n - 1) // 2, n // 2])
    return (part[(n - 1) // 2] + part[n // 2]) / 2


def _group_median(values: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    """np.median of values[groups[k]] for every box k at once (groups[k]: box k's
    neighbours; its own value where it has none): one sort of a padded table instead of
    a median per box."""
    n = len(groups)
    lens = np.array([len(g) for g in groups])
    width = max(1, int(lens.max(initial=0)))
    idx = np.zeros((n, width), np.intp)
    pad = np.arange(width)[None, :] >= lens[:, None]
    for k, g in enumerate(groups):
        idx[k, :len(g)] = g
    table = np.where(pad, np.inf, values[idx])
    table.sort(axis=1)
    rows = np.arange(n)
    lo = np.maximum(lens - 1, 0) // 2
    mid = (table[rows, lo] + table[rows, np.maximum(lens, 1) // 2]) / 2
    return np.where(lens > 0, mid, values)
