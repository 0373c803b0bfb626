"""The measures of every box at once (ink, faint ink, the middle, the level of its
darkest quarter, the fill), and for a box inked nearly all over, its sides and the rim
outside its outline (a correction's loop).
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.marks.compiled import box_counts
from scanner.marks.stack import SIDE_INKED, Rim, Stack
from scanner.marks.state import BLURRED_PX, Calibration
from scanner.template import Template

SPECK_MM = 0.7  # ink in pieces no longer than this (and little of it): specks, empty
STRUCK_MM = 0.6  # strokes through the rim reaching this far out: struck through (review)
STRUCK_SPAN_MM = 0.25  # ... across this much of the rim's depth (not a speck)
OVER_PRINT = 0.22  # ink over printed text: this much darker than the print
SHARP_RIM = 0.75  # in a box's rim, on a sheet not blurred (BLURRED_PX), ink need clear the
#   print by this share of the margin a blurred photo needs (the print's blur, spread past
#   the template's, is what the margin keeps out). Session 42: light pencil loops round a
#   correction, 0.18 over the outline's tail of 0.06, fell short of half a dense pencil
#   fill's level (0.13) and read as coloured in (421 scan-300 2, 373 phone 70, 379 phone
#   27). On 70 seeds' harsh photos at 0.75 everywhere, blurred photos (1.8 px and over)
#   gained 47 reviews (46 of them marks, their blur in the rim) and lost 12; sharper ones
#   gained 14 (the two silent corrections among them) and lost 29 (17 corrections read)


def measure(d: np.ndarray, st: Stack, t_ink: np.ndarray, t_faint: np.ndarray,
            over: np.ndarray, t_print: float) -> dict[str, np.ndarray]:
    """The features of every box at once (arrays of N).

    Away from printed text, ink is darkness above the sheet's thresholds. Near and over
    the text printed in a box (its number, its points) ink is what is left once the
    print is taken away (`over`: darkness above what the blank sheet's print looks like
    on this photo), above the thresholds and above that residual's own noise there
    (`t_print`), so a light pencil stroke across "17" counts."""
    n = np.maximum(st.n_inside, 1).astype(np.float64)
    # (the thresholds are compared in their own precision, a scalar t_print in theirs)
    fill, n_ink, n_faint, c_hit, n_dark, level = box_counts(
        d, over, st.inside, st.near, st.text, st.centre, t_ink, t_faint,
        t_ink.dtype.type(t_print))
    fill = fill / n  # a filled box hides its print
    n_ink = n_ink.astype(np.float64)
    n_faint = np.maximum(n_faint.astype(np.float64), n_ink)
    centre = np.where(st.n_centre >= np.maximum(12, 0.1 * n),
                      c_hit / np.maximum(st.n_centre, 1), 0.0)
    centre = np.where(st.n_text > 0, np.maximum(centre, n_dark / np.maximum(st.n_text, 1)),
                      centre)
    n_all = n + st.n_text
    # level: the 75th percentile of the faint-inked pixels' darkness (over print: above
    # it), for the boxes with three such pixels or more (most boxes are empty)
    return {"n": n_all, "ink": n_ink / n_all, "faint": n_faint / n_all, "centre": centre,
            "level": level, "fill": fill, "n_inside": st.n_inside.astype(np.float64)}


def extent(ys: np.ndarray, xs: np.ndarray, inside: np.ndarray) -> float:
    """How far ink (pixels `ys`, `xs`) reaches across its box: the smaller of its height's
    and its width's share of the inside's (2nd to 98th percentile; a slash ~0.8-1, a
    stroke along one edge far less; 1.0 when there are too few pixels to say)."""
    n = ys.size
    if n < 4:
        return 1.0
    lo, hi = int(0.02 * (n - 1)), int(np.ceil(0.98 * (n - 1)))
    shares = []
    for v, axis in ((ys, 1), (xs, 0)):
        q = np.partition(v, (lo, hi))
        span = np.flatnonzero(inside.any(axis=axis))
        shares.append(float(q[hi] - q[lo] + 1) / float(span[-1] - span[0] + 1))
    return round(min(shares), 3)


def extents(inked: np.ndarray, inside: np.ndarray) -> list[float]:
    """extent() of many boxes at once (`inked`, `inside`: (K, P, Q) masks), from their
    ink's counts by row and by column: the same numbers (an order statistic of pixel
    rows is the row where their running count passes its rank)."""
    if not len(inked):
        return []
    rows, cols = inked.sum(axis=2), inked.sum(axis=1)
    n = rows.sum(axis=1)
    lo = np.floor(0.02 * (n - 1)).astype(np.int64)
    hi = np.ceil(0.98 * (n - 1)).astype(np.int64)
    shares = []
    for counts, seen in ((rows, inside.any(axis=2)), (cols, inside.any(axis=1))):
        run = np.cumsum(counts, axis=1)
        q_lo, q_hi = (np.argmax(run > r[:, None], axis=1) for r in (lo, hi))
        first = np.argmax(seen, axis=1)
        last = seen.shape[1] - 1 - np.argmax(seen[:, ::-1], axis=1)
        shares.append((q_hi - q_lo + 1) / (last - first + 1))
    out = np.minimum(*shares)
    few = (n < 4) | ~inside.any(axis=(1, 2))
    return [1.0 if f else round(float(v), 3) for v, f in zip(out, few, strict=True)]


def ink_reaches(d: np.ndarray, over: np.ndarray, st: Stack, ks: np.ndarray, t: np.ndarray,
                t_print: float) -> list[float]:
    """How far boxes `ks`' ink reaches across their insides (`extent`): darkness over `t`
    (one per box), and over print `over` past `t_print` too, as measure() takes it. A
    tick, a cross or a slash spans its box both ways; a stray reaching in from outside,
    or a neighbour's stroke overrunning, stays by one edge or one corner."""
    if not len(ks):
        return []
    t = np.asarray(t, d.dtype)[:, None, None]  # (compared in the stack's own precision,
    zone_b = st.near[ks] | st.text[ks]          # as a scalar threshold is)
    inked = (np.where(zone_b, over[ks] > np.maximum(t, over.dtype.type(t_print)), d[ks] > t)
             & (st.inside[ks] | st.text[ks]))
    return extents(inked, st.inside[ks])


def ink_reach(d: np.ndarray, over: np.ndarray, st: Stack, k: int, t: float,
              t_print: float) -> float:
    """ink_reaches of one box."""
    return ink_reaches(d, over, st, np.array([k]), np.array([t]), t_print)[0]


def _specks(dk: np.ndarray, inside: np.ndarray, t_faint: float, dpi: float) -> bool:
    """A box's faint ink is specks (toner, dust, a pen's touch): no piece of it longer than
    SPECK_MM."""
    return _longest((dk > t_faint) & inside) < SPECK_MM * dpi / 25.4


def _longest(mask: np.ndarray) -> float:
    """The longest extent (pixels) of a connected part of a mask: its bounding box from
    corner pixel to corner pixel (centres), plus one (a 4 x 4 px speck is 5.2 px, not 5.7)."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    if n <= 1:
        return 0.0
    w, h = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    return float((np.hypot(w - 1, h - 1) + 1).max())  # corner pixels' centres, plus one


def _sides(d: np.ndarray, inside: np.ndarray, t: float) -> float:
    """How far ink reaches every side of the inside (the least-inked side's share)."""
    ys, xs = np.nonzero(inside)
    y0, y1, x0, x1 = ys.min(), ys.max(), xs.min(), xs.max()
    band = max(2, (y1 - y0) // 6)
    m = (d > t) & inside
    sides = [m[y0:y0 + band].sum() / max(1, inside[y0:y0 + band].sum()),
             m[y1 - band + 1:y1 + 1].sum() / max(1, inside[y1 - band + 1:y1 + 1].sum()),
             m[:, x0:x0 + band].sum() / max(1, inside[:, x0:x0 + band].sum()),
             m[:, x1 - band + 1:x1 + 1].sum() / max(1, inside[:, x1 - band + 1:x1 + 1].sum())]
    return float(min(sides))


def halo_ink(canvas: np.ndarray, tpl: Template, rim: Rim | None, shift: tuple[int, int],
             paper: float, level: float, cal: Calibration, pad: int = 0,
             floor: float | None = None) -> dict[str, float]:
    """How the rim around a box (HALO_MM outside its outline; its geometry `rim`) is
    inked: the inked fraction (halo), how many separate strokes cross it (halo_strokes),
    and on how many of the sides seen (halo_seen) it is inked along SIDE_INKED of their
    length (halo_sides; which ones, as bits in Rim.sides' order: halo_inked). A
    correction fills the box and scribbles round it through the rim, on every side (or
    strikes it through past the outline); a box coloured in to mark it stays inside, and
    ink from one side only is a neighbour's mark or a stroke passing by. A rim pixel is
    inked when it is at least half as dark as the box's own ink, and darker than the
    print there by a margin (less on a sheet not blurred)."""
    none = {"halo": 0.0, "halo_strokes": 0, "halo_sides": 0, "halo_seen": 0, "halo_inked": 0}
    if rim is None:
        return none
    u0, v0, u1, v1 = rim.bounds
    du, dv = shift
    obs = canvas[v0 + dv + pad:v1 + dv + pad, u0 + du + pad:u1 + du + pad].astype(np.float32)
    if obs.shape != rim.mask.shape:
        return none
    d = cv2.blur(np.clip(1.0 - obs / max(paper, 1.0), 0.0, 1.0), (3, 3))
    printed = tpl.ink_max[v0:v1, u0:u1]
    t = max(cal.t_ink if floor is None else floor, 0.5 * level)
    margin = min(OVER_PRINT, 0.5 * level) * (SHARP_RIM if cal.blur < BLURRED_PX else 1.0)
    inked = (d > t) & (d - printed > margin) & rim.mask
    n, labels = cv2.connectedComponents(inked.astype(np.uint8), connectivity=8)
    strokes = 0
    if n > 1:  # strokes that reach the rim's outer part (a thick fill's spill does not)
        # a stroke runs out across the rim: a piece of ink reaching STRUCK_MM that spans
        # STRUCK_SPAN_MM of the rim's depth (a speck of noise or toner does not)
        lab, dd = labels[inked], rim.dist[inked]
        lo = np.full(n, np.inf)
        hi = np.full(n, -np.inf)
        np.minimum.at(lo, lab, dd)
        np.maximum.at(hi, lab, dd)
        strokes = int(((hi >= STRUCK_MM) & (hi - lo >= STRUCK_SPAN_MM))[1:].sum())
    on = [bool(inked[rows, cols].any(axis=axis)[along].mean() >= SIDE_INKED)
          for rows, cols, axis, along in rim.sides]
    return {"halo": float(inked[rim.mask].mean()), "halo_strokes": strokes,
            "halo_sides": sum(on), "halo_seen": len(rim.sides),
            "halo_inked": sum(1 << i for i, o in enumerate(on) if o)}
