"""Where each box lies on the rectified photo: anchor tiles matched at 50 dpi, a smooth
residual field through them (what a homography cannot model: curl, lens distortion),
then every region matched on its printed outline, first widely, then finely.

Boxes and bubbles are matched by scanner.marks.ncc's coarse-to-fine search; where it
finds no good match (a box under ink) and the box's outline alone does not place it
either, and for the written fields, the window is searched exhaustively with OpenCV, so a
weak match's score, which the reader weighs, is the window's best as before. The anchors are
matched exhaustively: rows of like boxes a few millimetres apart make their 50 dpi
surfaces many-peaked, and a coarse start picks the wrong peak (243 of 1,450 anchors on
six bench photos).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scanner.marks.ncc import Patches, halved, search
from scanner.marks.stack import ANCHOR_MM, _prepared
from scanner.rectify import Field, fit_field
from scanner.template import Template

FIELD_STEP_MM = 20.0  # the residual field's grid (from the anchors)
COARSE_SMOOTH = 0.5  # its stiffness (weights are 0..1 per anchor)
FIRST_PX = 5  # each region is then matched within +-5 px of the field's position...
FINE_STEP_MM = 12.0  # ... a finer field fitted through the regions found ...
FINE_SMOOTH = 0.5
FINE_PX = 2  # ... and each region matched again within +-2 px of that
OUTLINE_TRY = 0.5  # a region matching worse than this at first (ink over it) is matched
# again on its outline and surroundings alone: a block of inked boxes is then found, not
# guessed from the fine field's extrapolation (measured: 5 px off in a block of marker ticks
# and fills on bench photos) ...
OUTLINE_OK = 0.65  # ... taken where it matches this well (an empty box 7 px off its place
# matches 0.55-0.61 along its sides)
SURE = 0.5  # a coarse-to-fine match this good is the window's best (a printed box has one
# peak); a weaker one is searched again exhaustively
QUICK_KINDS = ("checkbox", "bubble")  # searched coarse to fine; a written field's long
# ruled lines make a ridge, not a peak, and are searched exhaustively


@dataclass(frozen=True)
class _Plan:
    """A template's regions prepared for `search`: every region's patch, whole and on its
    outline."""

    whole: Patches
    outline: Patches
    corner: np.ndarray  # (n, 2): each region's patch's top-left corner on the canvas
    centre: np.ndarray  # (n, 2): and its centre (where the field is read for it)
    quick: np.ndarray  # (n,) bool: a box or bubble (QUICK_KINDS)


_PLANS: dict[int, tuple[Template, _Plan]] = {}


def _plan(tpl: Template) -> _Plan:
    """The template's `_Plan` (made once per template)."""
    hit = _PLANS.get(id(tpl))
    if hit is not None and hit[0] is tpl:
        return hit[1]
    patches = [tpl.gray_f[g.patch[1]:g.patch[3], g.patch[0]:g.patch[2]] for g in tpl.regions]
    plan = _Plan(Patches.of(patches, [None] * len(patches)),
                 Patches.of(patches, [~g.inner for g in tpl.regions]),
                 np.array([g.patch[:2] for g in tpl.regions], int).reshape(-1, 2),
                 np.array([((g.patch[0] + g.patch[2]) / 2, (g.patch[1] + g.patch[3]) / 2)
                           for g in tpl.regions]).reshape(-1, 2),
                 np.array([g.region.kind in QUICK_KINDS for g in tpl.regions], bool))
    if len(_PLANS) > 8:
        _PLANS.clear()
    _PLANS[id(tpl)] = (tpl, plan)
    return plan


def _subpixel(res: np.ndarray, x: int, y: int) -> tuple[float, float]:
    """The peak of a correlation surface refined by a parabola through its neighbours."""
    def off(a: float, b: float, c: float) -> float:
        den = float(a - 2 * b + c)
        return min(0.5, max(-0.5, 0.5 * float(a - c) / den)) if den < 0 else 0.0
    h, w = res.shape
    dx = off(res[y, x - 1], res[y, x], res[y, x + 1]) if 0 < x < w - 1 else 0.0
    dy = off(res[y - 1, x], res[y, x], res[y + 1, x]) if 0 < y < h - 1 else 0.0
    return x + dx, y + dy


def register(canvas: np.ndarray, tpl: Template) -> Field:
    """The residual field of a rectified photo against its blank sheet (canvas pixels)."""
    anchors, _ = _prepared(tpl)
    s = anchors.scale
    h, w = canvas.shape
    small = cv2.resize(canvas[: h - h % s, : w - w % s], (w // s, h // s),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    r = round(ANCHOR_MM / 25.4 * tpl.dpi / s)
    pts, shifts, weights = [], [], []
    for (u0, v0, tw, th), strength in zip(anchors.tiles, anchors.strength, strict=True):
        win = small[v0 - r:v0 + th + r, u0 - r:u0 + tw + r]
        if win.shape != (th + 2 * r, tw + 2 * r):
            continue
        res = cv2.matchTemplate(win, anchors.small[v0:v0 + th, u0:u0 + tw], cv2.TM_CCOEFF_NORMED)
        _, best, _, (x, y) = cv2.minMaxLoc(res)
        if not np.isfinite(best) or best < 0.5:
            continue
        x2, y2 = _subpixel(res, x, y)
        pts.append(((u0 + tw / 2) * s, (v0 + th / 2) * s))
        shifts.append(((x2 - r) * s, (y2 - r) * s))
        weights.append((best - 0.4) / 0.6 * min(1.0, float(strength) / 2000.0))
    step = FIELD_STEP_MM / 25.4 * tpl.dpi
    if len(pts) < 6:
        return Field.zero((w, h), step)
    return fit_field(np.array(pts), np.array(shifts), np.array(weights), (w, h), step,
                     smooth=COARSE_SMOOTH, outlier=max(4.0, 1.5 * s))


def refine(tpl: Template, fld: Field, shifts: np.ndarray, scores: np.ndarray,
           size: tuple[int, int]) -> Field:
    """The field again, through where the regions' printed outlines were found (full
    resolution, many points: the boxes themselves are the best anchors)."""
    centres = _plan(tpl).centre
    good = scores >= 0.6
    if good.sum() < 12:
        return fld
    step = FINE_STEP_MM / 25.4 * tpl.dpi
    return fit_field(centres[good], shifts[good].astype(np.float64),
                     (scores[good] - 0.5) / 0.5, size, step, smooth=FINE_SMOOTH, outlier=3.0)


def _match(img: np.ndarray, tmpl: np.ndarray, u0: int, v0: int, r: int,
           mask: np.ndarray | None = None) -> tuple[int, int, float]:
    """Best (du, dv, score) of `tmpl` placed at (u0, v0) +- r in `img` (padded), over the
    `mask` pixels only if given."""
    h, w = tmpl.shape
    win = img[v0 - r:v0 + h + r, u0 - r:u0 + w + r]
    if win.shape != (h + 2 * r, w + 2 * r):
        return 0, 0, 0.0
    res = cv2.matchTemplate(win, tmpl, cv2.TM_CCOEFF_NORMED, mask=mask)
    res[~np.isfinite(res)] = 0.0  # (a flat window under the mask)
    _, best, _, loc = cv2.minMaxLoc(res)
    return loc[0] - r, loc[1] - r, float(best)


def outline_match(img: np.ndarray, tmpl: np.ndarray, keep: np.ndarray, u0: int, v0: int,
                  r: int = 1) -> float:
    """The best normalised correlation within +-r of `tmpl` at (u0, v0) in `img` (padded)
    over the `keep` pixels only: a box's outline and its surroundings, without its inside
    (a cross or a felt pen's tick covers much of the patch and drags the full match down
    though the outline sits where it should)."""
    return max(0.0, _match(img, tmpl, u0, v0, r, keep.astype(np.uint8))[2])


@dataclass(frozen=True)
class Alignment:
    """Where each region was searched (base +- r) and what was found there."""

    base: np.ndarray
    r: int
    shifts: np.ndarray
    scores: np.ndarray


def align(canvas: np.ndarray, tpl: Template, fld: Field | None = None, pad: int = 0,
          r: int = FINE_PX, prev: Alignment | None = None, outline: bool = False,
          half: np.ndarray | None = None) -> Alignment:
    """Each region's integer (du, dv) shift and its outline's match score: the field's
    displacement at the region, refined within +-r on the region's printed outline (a
    weak match, or one far from the field, keeps the field's position). `canvas` is
    padded by `pad` pixels on every side (`half`: it at half resolution, `ncc.halved`,
    if already made). With `prev`, a region whose new window lies in its previous one
    and holds that window's strong peak takes it as is (the best of a window is the best
    of any part of it that holds it): the same result, fewer matches; and one that
    matches worse than it did there keeps its previous place. With `outline`, a region
    its whole patch does not place is matched on its outline alone."""
    plan = _plan(tpl)
    n = len(tpl.regions)
    centres = plan.centre
    pred = fld(centres[:, 0], centres[:, 1]) if fld is not None else np.zeros((n, 2))
    base = np.round(pred).astype(int)
    shifts = base.copy()
    scores = np.zeros(n, np.float32)
    same = np.zeros(n, bool)
    if prev is not None:
        same = ((np.abs(base - prev.base).max(axis=1) <= prev.r - r)
                & (np.abs(prev.shifts - base).max(axis=1) <= r) & (prev.scores >= 0.5))
        shifts[same] = prev.shifts[same]
        scores[same] = prev.scores[same]
    todo = np.flatnonzero(~same)
    if not todo.size:
        return Alignment(base, r, shifts, scores)
    half = halved(canvas) if half is None else half
    u = plan.corner[todo, 0] + base[todo, 0] + pad
    v = plan.corner[todo, 1] + base[todo, 1] + pad
    quick = plan.quick[todo]
    found = np.zeros((todo.size, 3))
    found[quick] = search(canvas, half, plan.whole, todo[quick], u[quick], v[quick], r)
    weak = ~quick | (found[:, 2] < SURE)
    if outline:  # ink over much of a box: its outline may place it
        boxes = np.flatnonzero(weak & quick)
        rims = search(canvas, half, plan.outline, todo[boxes], u[boxes], v[boxes], r)
        ok = rims[:, 2] >= OUTLINE_OK
        found[boxes[ok]] = rims[ok]
        weak[boxes[ok]] = False
    for i in np.flatnonzero(weak):  # the window, exhaustively, as OpenCV scores it
        g = tpl.regions[todo[i]]
        pu0, pv0, pu1, pv1 = g.patch
        t = tpl.gray_f[pv0:pv1, pu0:pu1]
        found[i] = _match(canvas, t, u[i], v[i], r)
        if outline and not quick[i] and found[i, 2] < OUTLINE_TRY:
            rim = _match(canvas, t, u[i], v[i], r, (~g.inner).astype(np.uint8))
            if rim[2] >= OUTLINE_OK:
                found[i] = rim
    sc = found[:, 2].astype(np.float32)
    scores[todo] = sc
    placed = sc >= 0.5
    shifts[todo[placed]] = base[todo[placed]] + found[placed, :2].astype(int)
    if prev is not None:
        # the field moved the region off where the wider search found it better (a bend
        # too sharp for the field): the better match stands
        keep = todo[(prev.scores[todo] >= 0.5) & (prev.scores[todo] > sc)]
        shifts[keep], scores[keep] = prev.shifts[keep], prev.scores[keep]
    return Alignment(base, r, shifts, scores)
