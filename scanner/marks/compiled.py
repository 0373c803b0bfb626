"""The box readers' innermost loops, compiled with numba: the work a sheet does box by box
on a few hundred pixels each, where numpy's cost is its calls rather than its arithmetic.

    band_sums(plan, dk, d, noise) -> (N, 4)   every box's darkest straight band and its ends

Pure functions of arrays; the layout-dependent index tables (`BandPlan`) are built once
per template by the callers. Compiled on first use and cached beside this file
(`__pycache__`), so a process pays the compilation once per machine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit


@dataclass(frozen=True)
class BandPlan:
    """Every box's straight bands through its middle (scanner.faintline's), as flat index
    tables: box k measures the pixels pix[pix_ptr[g]:pix_ptr[g + 1]] of its patch (g =
    group[k], the boxes of one shape; -1: no band), its bands band_ptr[g]..band_ptr[g + 1]
    (each band's positions in those pixels, its weight 1/sqrt(n) and angle), and, where
    its plain paper shows a band's ends (ends[k] = e >= 0), the plain pixels it takes its
    level from and each band's two halves there (weights; `keep`: long enough)."""

    group: np.ndarray
    pix_ptr: np.ndarray
    pix: np.ndarray
    band_ptr: np.ndarray
    band_at_ptr: np.ndarray
    band_at: np.ndarray
    band_w: np.ndarray
    band_angle: np.ndarray
    ends: np.ndarray
    use_ptr: np.ndarray
    use: np.ndarray
    half_ptr: np.ndarray  # (E + 1): each end set's first half-band (2 per band: one each side)
    half_at_ptr: np.ndarray
    half_at: np.ndarray
    half_w: np.ndarray
    keep: np.ndarray  # (per band of each end set) the band shows on both halves


def band_plan(groups: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                 list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]]],
              n: int) -> BandPlan:
    """A BandPlan from each group's boxes, measured pixels (flat patch indices), band rows
    (bands x pixels: 1/sqrt(n) on a band's n pixels), angles, and end sets (their boxes,
    which pixels are plain, the two halves' rows, which bands are short)."""
    group = np.full(n, -1, np.int32)
    ends = np.full(n, -1, np.int32)
    pix_ptr, band_ptr, band_at_ptr = [0], [0], [0]
    pix: list[np.ndarray] = []
    band_at: list[np.ndarray] = []
    band_w: list[float] = []
    band_angle: list[np.ndarray] = []
    use_ptr, half_ptr, half_at_ptr = [0], [0], [0]
    use: list[np.ndarray] = []
    half_at: list[np.ndarray] = []
    half_w: list[float] = []
    keep: list[np.ndarray] = []
    for g, (ks, gpix, rows, angle, end_sets) in enumerate(groups):
        group[ks] = g
        pix.append(gpix)
        pix_ptr.append(pix_ptr[-1] + len(gpix))
        for row in rows:
            at = np.flatnonzero(row)
            band_at.append(at)
            band_at_ptr.append(band_at_ptr[-1] + len(at))
            band_w.append(float(row[at[0]]) if len(at) else 0.0)
        band_angle.append(angle)
        band_ptr.append(band_ptr[-1] + len(rows))
        for kp, plain, halves, short in end_sets:
            ends[kp] = len(use_ptr) - 1
            at = np.flatnonzero(plain)
            use.append(at)
            use_ptr.append(use_ptr[-1] + len(at))
            for b in range(halves.shape[1]):
                for h in (0, 1):
                    at = np.flatnonzero(halves[h, b])
                    half_at.append(at)
                    half_at_ptr.append(half_at_ptr[-1] + len(at))
                    half_w.append(float(halves[h, b, at[0]]) if len(at) else 0.0)
            keep.append(~short)
            half_ptr.append(half_ptr[-1] + 2 * halves.shape[1])

    def cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

    return BandPlan(group, np.array(pix_ptr, np.int64), cat(pix, np.int64),
                    np.array(band_ptr, np.int64), np.array(band_at_ptr, np.int64),
                    cat(band_at, np.int64), np.array(band_w, np.float32),
                    cat(band_angle, np.float32), ends, np.array(use_ptr, np.int64),
                    cat(use, np.int64), np.array(half_ptr, np.int64),
                    np.array(half_at_ptr, np.int64), cat(half_at, np.int64),
                    np.array(half_w, np.float32), cat(keep, np.bool_))


def band_sums(plan: BandPlan, dk: np.ndarray, d: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """(N, 4) per box: its darkest band's sum over sqrt(its pixels) over the box's noise,
    that sum times the band's weight, the band's angle, and the greater over its bands of
    the lesser of a band's two ends' sums in the plain paper over the noise (zeros where
    the box has none). `dk` is measured less its median over the box's pixels, `d` less
    its median over the plain ones (scanner.marks.audit.band_features)."""
    n = dk.shape[0]
    return _band_sums(plan.group, plan.pix_ptr, plan.pix, plan.band_ptr, plan.band_at_ptr,
                      plan.band_at, plan.band_w, plan.band_angle, plan.ends, plan.use_ptr,
                      plan.use, plan.half_ptr, plan.half_at_ptr, plan.half_at, plan.half_w,
                      plan.keep, np.ascontiguousarray(dk, np.float32).reshape(n, -1),
                      np.ascontiguousarray(d, np.float32).reshape(n, -1),
                      np.ascontiguousarray(noise, np.float32))


@njit(cache=True, nogil=True)
def _band_sums(group, pix_ptr, pix, band_ptr, band_at_ptr, band_at, band_w, band_angle,
               ends, use_ptr, use, half_ptr, half_at_ptr, half_at, half_w, keep,
               dk, d, noise):
    n = dk.shape[0]
    out = np.zeros((n, 4), np.float32)
    for k in range(n):
        g = group[k]
        if g < 0:
            continue
        p0, p1 = pix_ptr[g], pix_ptr[g + 1]
        v = np.empty(p1 - p0, np.float32)
        for i in range(p1 - p0):
            v[i] = dk[k, pix[p0 + i]]
        med = np.float32(np.median(v))
        for i in range(v.size):
            v[i] -= med
        nz = max(float(noise[k]), 1e-6)
        best = -np.inf
        best_b = -1
        for b in range(band_ptr[g], band_ptr[g + 1]):
            s = 0.0
            w = band_w[b]
            for j in range(band_at_ptr[b], band_at_ptr[b + 1]):
                s += v[band_at[j]] * w
            if s > best:
                best, best_b = s, b
        if best_b < 0:
            continue
        out[k, 0] = best / nz
        out[k, 1] = best * band_w[best_b]
        out[k, 2] = band_angle[best_b]
        e = ends[k]
        if e < 0:
            continue
        for i in range(p1 - p0):
            v[i] = d[k, pix[p0 + i]]
        u0, u1 = use_ptr[e], use_ptr[e + 1]
        plain = np.empty(u1 - u0, np.float32)
        for i in range(u1 - u0):
            plain[i] = v[use[u0 + i]]
        med = np.float32(np.median(plain))
        for i in range(v.size):
            v[i] -= med
        top = -np.inf
        kb = half_ptr[e] // 2  # (keep: one entry per band of the end sets, in order)
        for hb in range(half_ptr[e], half_ptr[e + 1], 2):
            if keep[kb + (hb - half_ptr[e]) // 2]:
                lo = np.inf
                for h in range(2):
                    s = 0.0
                    w = half_w[hb + h]
                    for j in range(half_at_ptr[hb + h], half_at_ptr[hb + h + 1]):
                        s += v[half_at[j]] * w
                    lo = min(lo, s)
                top = max(top, lo)
        if top > -np.inf:
            out[k, 3] = max(top, 0.0) / nz
    return out


@njit(cache=True, nogil=True)
def hog_cells(mag: np.ndarray, ang: np.ndarray, bins: int) -> np.ndarray:
    """(N, 16 bins + 4 bins) per S x S image of gradient magnitudes `mag` and directions
    `ang` (radians, -pi..pi: np.arctan2's): each pixel's magnitude split between its two
    nearest of `bins` directions, summed over a 4 x 4 grid of cells and a 2 x 2 one,
    square-rooted."""
    n, side = mag.shape[0], mag.shape[1]
    out = np.zeros((n, 20 * bins), np.float32)
    lo = np.zeros((16, bins))  # each pixel's share to its lower direction ...
    hi = np.zeros((16, bins))  # ... and to its upper one, summed apart
    one = np.float32(1)
    two_pi = np.float32(2 * np.pi)
    scale = np.float32(bins / (2 * np.pi))
    for k in range(n):
        lo[:] = 0.0
        hi[:] = 0.0
        for y in range(side):
            cy = y * 4 // side
            for x in range(side):
                a = ang[k, y, x]
                if a < 0:  # (a % 2 pi, as numpy's remainder gives it)
                    a += two_pi
                a *= scale
                fl = np.floor(a)
                f = a - fl
                b0 = int(fl) % bins
                c = cy * 4 + x * 4 // side
                m = mag[k, y, x]
                lo[c, b0] += m * (one - f)
                hi[c, (b0 + 1) % bins] += m * f
        for c in range(16):
            for b in range(bins):
                out[k, c * bins + b] = np.sqrt(lo[c, b] + hi[c, b])
        for cy in range(2):
            for cx in range(2):
                for b in range(bins):
                    s = 0.0
                    for dy in range(2):
                        for dx in range(2):
                            c = (2 * cy + dy) * 4 + 2 * cx + dx
                            s += lo[c, b] + hi[c, b]
                    out[k, 16 * bins + (2 * cy + cx) * bins + b] = np.sqrt(s)
    return out
