"""The paper under each box (its level, the light across it, a floor a correction's loop
cannot pull it under) and the sheet's calibration: noise, paper level and the ink
thresholds set from them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from scanner.marks.arrays import _group_median, _pct, _pcts, _percentile, _rows
from scanner.marks.compiled import light_planes
from scanner.marks.stack import Stack
from scanner.marks.state import Calibration
from scanner.template import Template

PAPER_FLOOR = 0.85  # no box's paper below this of its neighbours' median (a correction's
FAR_PAPER_MM = (3.0, 6.0)  # loop darkens its ring), nor, where that lifts it, of the paper
#   this far out from its outline (_paper_floor: session 14's and a held-out seed's boxes on
#   the dim side of a steep fall of the light were lifted to their neighbours' bright paper,
#   their whole inside read as ink and a slash and a cross as corrections. Session 20: on the
#   2,502 cached sheets those two read right, 41 reviews on phone photos read right, no box
#   read right before goes wrong on a sheet the bench reads)


def ring_ranks(obs: np.ndarray, st: Stack) -> tuple[np.ndarray, np.ndarray]:
    """Each box's paper ring (N, R) in its own order, and the same partitioned once at
    every rank _paper and _light_slope read (_ring_kth)."""
    ring = _rows(obs, st.ring)
    k85, k95, top, lo, hi = _ring_kth(ring.shape[1])
    return ring, np.partition(ring, sorted({k85, k95, top, lo, hi}), axis=1)


def _ring_kth(r: int) -> tuple[int, int, int, int, int]:
    """The ranks of a ring of r pixels _paper and _light_slope read: the 85th and 95th
    percentiles, the first of the brightest tenth, the median's two."""
    return (85 * (r - 1)) // 100, (95 * (r - 1)) // 100, r - max(1, r // 10), (r - 1) // 2, r // 2


def _paper(obs: np.ndarray, st: Stack, part: np.ndarray) -> np.ndarray:
    """Each box's paper level (gray): the brightest tenth of its ring (`part`, partitioned
    by ring_ranks), times the ratio of the inside's paper to the ring that this sheet shows
    on boxes of the same tone."""
    k85, k95, top, _, _ = _ring_kth(part.shape[1])
    ring_top = part[:, top:].mean(axis=1)
    # the top tenth of noisy paper sits 1.75 sigma above the paper; sigma from the top
    # (85th to 95th percentile), which marks, print and tinted paper in the ring do not reach
    sigma = (part[:, k95] - part[:, k85]) / 0.609
    ring_top = ring_top - 1.755 * np.clip(sigma, 0, None)
    inside_hi, inside_p60 = _pcts(_rows(obs, st.inside_idx), 80, 60)
    paper = ring_top.copy()
    bare = ~st.has_ring  # (a box with no ring: its own 95th percentile)
    if bare.any():
        paper[bare] = _pct(obs[bare].reshape(int(bare.sum()), -1), 95)
    tones = np.round(st.tone / 6.0)
    for t in np.unique(tones):
        grp = (tones == t) & st.has_ring
        default = 255.0 / max(float(np.median(st.tone[grp])) if grp.any() else 255.0, 1.0)
        if grp.sum() >= 6:  # measured: the median box is empty
            ratio = float(np.median(inside_hi[grp] / np.maximum(ring_top[grp], 1.0)))
            ratio = float(np.clip(ratio, 0.8 * min(default, 1.0), 1.15 * max(default, 1.0)))
            ratio = max(ratio, 1.0) if t >= round(250 / 6.0) else ratio
        else:
            ratio = default
        paper[grp] = ring_top[grp] * ratio
    # the ring can read darker than the box's own paper (the blur of outlines and
    # neighbours, a tint, noise in a dim corner): where the inside's 60th percentile is
    # brighter than the ring's estimate, it is the paper (never darker: a light fill
    # would vanish into its own level)
    paper = np.where(st.has_ring, np.maximum(paper, inside_p60), paper)
    return np.maximum(paper, 1.0)


def _paper_floor(own: np.ndarray, st: Stack, far: Callable[[np.ndarray], np.ndarray]
                 ) -> np.ndarray:
    """Each box's paper level with a floor: a ring inked all round (a correction's loop)
    reads far darker than the paper, so no box's paper (`own`, from _paper) is taken below
    PAPER_FLOOR of its neighbours' (within 25 mm) median, nor, where that lifts it, of the
    paper a few millimetres out from it (`far`: the indices lifted -> their FAR_PAPER_MM
    level). A loop hugs its box; a shadow's dim side is dim out there too."""
    if len(own) < 3:
        return own
    floor = PAPER_FLOOR * _group_median(own, st.near_boxes)
    lift = np.nonzero(floor > own)[0]
    if len(lift):
        floor[lift] = np.minimum(floor[lift], PAPER_FLOOR * far(lift))
    return np.maximum(own, floor)


def _far_paper(big: np.ndarray, tpl: Template, st: Stack, shifts: np.ndarray, pad: int,
               ks: np.ndarray) -> np.ndarray:
    """The paper around boxes `ks` (stack indices) FAR_PAPER_MM out from their outline:
    the 90th percentile of that frame of the (padded) canvas, print and marks in it a
    minority."""
    px = tpl.dpi / 25.4
    near, out = (round(mm * px) for mm in FAR_PAPER_MM)
    levels = np.full(len(ks), np.inf)
    for i, k in enumerate(ks):
        u0, v0, u1, v1 = tpl.regions[st.index[k]].box
        du, dv = int(shifts[k, 0]) + pad, int(shifts[k, 1]) + pad
        y0, y1 = max(0, v0 + dv - out), min(big.shape[0], v1 + dv + out)
        x0, x1 = max(0, u0 + du - out), min(big.shape[1], u1 + du + out)
        frame = np.ones((y1 - y0, x1 - x0), bool)
        frame[max(0, v0 + dv - near - y0):max(0, v1 + dv + near - y0),
              max(0, u0 + du - near - x0):max(0, u1 + du + near - x0)] = False
        vals = big[y0:y1, x0:x1][frame]
        if vals.size:
            levels[i] = float(_percentile(vals, 90))
    return levels


def _light_slope(ring: np.ndarray, part: np.ndarray, st: Stack) -> np.ndarray:
    """Each box's light as a plane across its patch, relative to the patch's centre
    (N, P, Q): fitted to the paper of its ring (`ring`, and `part` partitioned by
    ring_ranks; the brighter half: not the print), so a shadow's edge or a light gradient
    across a box does not read as ink on its dim side."""
    n = ring.shape[0]
    P, Q = st.size
    xs, ys = st.ring_xy
    _, _, _, lo, hi = _ring_kth(ring.shape[1])
    med = (part[:, lo] + part[:, hi]) / 2  # (np.median's)
    coef = light_planes(ring, med, xs, ys)  # (weighted least squares, compiled)
    base = np.maximum(coef[:, :1], 1.0)
    gx = np.clip(coef[:, 1:2] / base, -0.3, 0.3)[:, :, None].astype(np.float32)
    gy = np.clip(coef[:, 2:3] / base, -0.3, 0.3)[:, :, None].astype(np.float32)
    u = ((np.arange(Q) - Q / 2) / Q)[None, None, :].astype(np.float32)
    v = ((np.arange(P) - P / 2) / P)[None, :, None].astype(np.float32)
    out = 1.0 + gx * u + gy * v
    out[~st.has_ring] = 1.0
    return out.reshape(n, P, Q)


def calibrate(d: np.ndarray, st: Stack, core: bool = True) -> Calibration:
    """Paper level and noise from the boxes themselves. Ink only ever darkens, so the
    half of each box's pixels below its median is paper: its spread (median - 16th
    percentile) is the noise, whatever share of the box is inked; the paper level is the
    lightest fifth of the box medians (a sheet can be mostly marked)."""
    ok, idx = st.n_core >= 20, st.core_idx  # off the outline's blur
    if ok.sum() < 10 or not core:
        ok, idx = st.n_inside >= 20, st.inside_idx
    if not ok.any():
        return Calibration(0.0, 0.004, 0.12, 0.06)
    vals = _rows(d, idx)[ok]
    L = vals.shape[1]
    k16, k50 = round(0.16 * (L - 1)), round(0.5 * (L - 1))
    part = np.partition(vals, (k16, k50), axis=1)
    med, lo = part[:, k50], part[:, k16]
    sp = med - lo
    p0 = float(np.percentile(med, 20))
    paper = med <= p0 + 0.05
    noise = max(float(np.median(sp[paper] if paper.sum() >= 10 else sp)), 0.004)
    return Calibration(p0, noise, p0 + max(7 * noise, 0.12), p0 + max(4 * noise, 0.06))
