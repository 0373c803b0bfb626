"""The strokes of the ink in an Executed box: the share on its best straight band and on a
second one, the ink off the band, how far the stroke reaches and how it widens, and the
first reading of one stroke (a slash) or two (a tick or cross).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scanner.marks.arrays import _percentile
from scanner.marks.compiled import best_band, stroke_lines
from scanner.marks.features import extent
from scanner.marks.stack import Stack
from scanner.marks.state import CHECKED, REVIEW, SLASHED

# slash or tick/cross: the share of the ink on a second straight band once the best band
# (the main stroke) is taken away: a tick adds its short arm, a cross its second bar
SECOND_SLASH = 0.05  # at most this on a second stroke: a single stroke (slash; measured
#                     on the synthetic sets: slashes <= 0.035, ticks and crosses >= 0.02)
SECOND_CROSS = 0.18  # at least this: two strokes (tick, cross)
FIRST_SLASH = 0.85  # and a slash has most of its ink on its one band
# ... and how far the rest strays: the share of the ink more than FAR_GAP px beyond the
# main band's edges (line_fraction's far). A slash's wobble and blur hug its band (measured <= 0.018);
# a tick's short arm leaves it at an angle (>= 0.03 on 7 in 10 of the ticks whose short
# arm is too short for SECOND_CROSS)
FAR_GAP = 3.0
FAR_SLASH = 0.025  # a single stroke is a slash only with less than this off its band
FAR_TICK = 0.03  # a second stroke (over SECOND_SLASH) with this much off the band: a tick
EDGE_GAP = 0.03  # (the bench's fat ticks in that zone stop 0.043 and more short of an edge)
SLASH_MAX_INK = 0.45  # a box more inked than this is a slash only if paper shows both sides
THICK_ONE = 0.99  # a thick mark with little paper beside it: one stroke (a slash) when this
#                  much of its ink lies on one straight band (and some paper shows both sides)
FAT_FILL = 0.7  # ... and one inked over this (a marker's tick, blurred, merges into one fat
#                stroke: 0.985 on its band) only with THICK_ONE (the bench's slashes: <= 0.61)
THICK_TWO = 0.93  # ... two (a tick, a cross) when no more than this does
BLIND_PRINT, THROUGH_PX = 0.5, 5  # print this dark hides a mark over it; gaps it cuts in
#   a fat mark's stroke are closed over this many px (_through_print; session 19:
#   bench_ticks --pens 6,8,10,12, seeds 0 and 1, slashes read as ticks 54 and 65 of 864 ->
#   7 and 8, no tick changed; the cached sheets 7 reviews read right, 2 more; 7 px
#   closed a stroke onto glyph pixels beside it too: 4 more silent on marker pages)
SPLIT_PAPER = 0.12  # a thick mark leaving less paper than this on its band's thinner side
#   (paper_both_sides) is a stroke, a pair or a box coloured in as THICK_ONE / THICK_TWO say
PEN_FILL, PEN_BULGE = 0.35, 1.25  # a single stroke inking this much of its box (a 0.4-0.5 mm
#   pen in a 3.5 mm box) that widens this much at one point may be a tick whose short arm
#   (up to a third of the box) merged into its long one: review (a hand sweep: 40 of 720 such
#   ticks read as sure slashes, widening 1.25-1.65; the bench's slashes that thick: 95 % under 1.22)
FAT_SPAN = 0.95  # a stroke crossing this much of its box runs corner to corner
#   (_corner_to_corner)
ANGLE_STEP = 3  # degrees between the straight bands tried
SECOND_ANGLE = 30  # degrees: a second stroke crosses the first at least this steeply (a
#                    curved or wobbly slash leaves ink beside its band, parallel to it)
_ANGLES = np.deg2rad(np.arange(0, 180, ANGLE_STEP, dtype=np.float32))
_NORMALS = np.stack([-np.sin(_ANGLES), np.cos(_ANGLES)], 1)  # each band's unit normal
_NX, _NY = np.ascontiguousarray(_NORMALS[:, 0]), np.ascontiguousarray(_NORMALS[:, 1])


def _band(pts: np.ndarray, band: float, away_from: int | None = None
          ) -> tuple[float, np.ndarray, tuple[float, float], int]:
    """The straight band of width `band` holding most of the points (n, 2; float32), over
    every direction ANGLE_STEP apart: (count, its unit normal, its (low, high) offset
    along the normal, its direction's index); `away_from`: only directions at least
    SECOND_ANGLE from that one."""
    w = max(1, round(band))
    count, a, lo, base = best_band(np.ascontiguousarray(pts[:, 0]), np.ascontiguousarray(pts[:, 1]),
                                   _NX, _NY, w, -1 if away_from is None else away_from,
                                   ANGLE_STEP, SECOND_ANGLE)
    return count, _NORMALS[a], (base + lo, base + lo + w), a


def paper_both_sides(ink: np.ndarray, inside: np.ndarray, band: float) -> float:
    """A thick single stroke (a marker's slash) leaves paper on both sides of it; a box
    coloured in does not. The smaller of the two sides' shares of the inside's paper
    (0 when the paper is not split by the ink's best straight band)."""
    ys, xs = np.nonzero(ink)
    py, px = np.nonzero(inside & ~ink)
    if ys.size < 4 or py.size < 4:
        return 0.0
    c = np.array([xs.mean(), ys.mean()], np.float32)
    pts = np.stack([xs, ys], 1).astype(np.float32) - c
    _, normal, (lo, hi), _ = _band(pts, band)
    rho = (px - c[0]) * normal[0] + (py - c[1]) * normal[1]
    n = float(inside.sum())
    return float(min((rho < lo).sum(), (rho >= hi).sum())) / n


@dataclass(frozen=True)
class Strokes:
    """The shape of the ink in a box, from its best straight band (line_fraction)."""

    first: float  # share of the ink on the best straight band
    second: float  # ... on the best band through what is left (>= SECOND_ANGLE from it)
    far: float  # ... more than FAR_GAP px beyond the first band's edges
    span: float  # how much of the box the first band's ink crosses along it
    end_gap: float  # ... and how far short of the box's end it stops, the farther end
    bulge: float  # how much wider than typical the ink gets across it somewhere


def line_fraction(ys: np.ndarray, xs: np.ndarray, band: float, inside: np.ndarray,
                  gap: float = FAR_GAP) -> Strokes:
    """How much of the ink lies on one straight stroke, on a second one, and well off the
    first one's band; and how far along the box (its `inside`) that stroke runs and where
    it widens.

    first: the fraction of ink pixels on the best straight band of width `band`; second:
    the fraction (of all ink) on the best band through what is left (a slash is one band,
    second ~0; a tick adds a short arm, ~0.2-0.35; a cross two long ones, ~0.4); far: the
    share of the ink more than `gap` pixels beyond the first band's edges (a tick's short
    arm or a cross's second bar leaves the main stroke's band at an angle and goes on; a
    slash's wobble, blur and ragged ends hug it); span and end_gap: how much of the box
    the first band's ink crosses along it, and how far short of the box's farther end it
    stops (a slash runs corner to corner, ~1 and ~0; a tick's long arm starts near the
    middle, ~0.6-0.8, and stops at its vertex); bulge: how much wider than typical the
    ink gets across the stroke somewhere along it (a slash keeps its width, ~1-1.5; a
    tick's short arm widens it at its vertex, ~1.4 and more). One band search serves them
    all (scanner.marks.compiled.stroke_lines: a few hundred pixels, compiled)."""
    if ys.size < 4:
        return Strokes(1.0, 0.0, 0.0, 0.0, 1.0, 1.0)
    return Strokes(*stroke_lines(np.ascontiguousarray(xs), np.ascontiguousarray(ys), band,
                                 max(1, round(band)), gap, np.ascontiguousarray(inside),
                                 _NX, _NY, ANGLE_STEP, SECOND_ANGLE))


def stroke_shape(dk: np.ndarray, over_k: np.ndarray, st: Stack, k: int, t_over: float,
                 t: float, fill: float) -> tuple[tuple[float, float], dict[str, float]]:
    """An Executed box's strokes as ink above `t` (over print: `over_k` above `t_over`):
    (line_fraction, {far, and split when a thick stroke was checked for paper both
    sides}). A thick mark that is neither clearly one stroke nor two is a slash if paper
    shows on both sides of it (or a little paper does and THICK_ONE of its ink lies on one
    band), coloured in if no paper does, two strokes if THICK_TWO or less lies on the
    band, else left for review."""
    inside = st.inside[k]
    m = (dk > t) & inside & ~st.near[k]
    m |= (st.near[k] | st.text[k]) & (over_k > t_over)
    if fill >= SLASH_MAX_INK:
        m = _through_print(m, st, k)
    ys, xs = np.nonzero(m)
    band = max(6.0, 1.2 * stroke_width(m) + 2.0)
    sk = line_fraction(ys, xs, band, inside)
    line = (sk.first, sk.second)
    shape = {"far": round(sk.far, 3), "span": round(sk.span, 3), "end_gap": round(sk.end_gap, 3),
             "bulge": round(sk.bulge, 3), "extent": extent(ys, xs, inside)}
    if fill >= SLASH_MAX_INK and _stroke_state(True, line, shape["far"]) != CHECKED:
        # a thick stroke or a box coloured in? a stroke leaves paper both sides
        split = paper_both_sides(m & inside, inside, band)
        shape["split"] = round(split, 3)
        corners = _corner_to_corner(shape, fill)
        if corners:
            shape["corners"] = 1.0  # (no sure tick by the split test on its core either)
        if split < 0.04 and fill >= 0.75:
            line = (line[0], SECOND_CROSS)  # coloured in (not quite edge to edge)
        elif split < SPLIT_PAPER and line[0] <= THICK_TWO and corners:
            line = (line[0], (SECOND_SLASH + SECOND_CROSS) / 2)  # a marker's slash? review
        elif split < SPLIT_PAPER and line[0] <= THICK_TWO:
            line = (line[0], SECOND_CROSS)  # ink well off the main band: a second stroke
            shape["split_two"] = 1.0
            shape["second"] = round(sk.second, 3)  # (what its second band measured)
        elif split < SPLIT_PAPER and not (line[0] >= THICK_ONE and split >= 0.04):
            line = (line[0], (SECOND_SLASH + SECOND_CROSS) / 2)  # review
            shape["far"] = 0.0
    return line, shape


def _through_print(m: np.ndarray, st: Stack, k: int) -> np.ndarray:
    """A fat mark's ink mask `m` with the gaps solid print cuts in it closed: over the
    print's dark core (BLIND_PRINT) no ink shows (a grey marker over black "+1" leaves
    holes the glyphs' shape, and the stroke read as two, a tick). Only print pixels with
    ink close by on both sides are filled (a morphological closing, THROUGH_PX)."""
    blind = (st.ink_max[k] >= BLIND_PRINT) & (st.near[k] | st.text[k])
    if not blind.any():
        return m
    kernel = np.ones((THROUGH_PX, THROUGH_PX), np.uint8)
    closed = cv2.morphologyEx(m.astype(np.uint8), cv2.MORPH_CLOSE, kernel).astype(bool)
    return m | (blind & closed)


def _corner_to_corner(shape: dict[str, float], fill: float) -> bool:
    """A thick stroke the paper-split test would call two strokes (a tick) that reaches both
    ends of its band (FAT_SPAN, EDGE_GAP) with nothing far off it (FAR_SLASH), keeps its
    width (under PEN_BULGE) and leaves paper over much of its box (under FAT_FILL): a
    marker's slash whose blunt ends fill the box's corners, as much as a tick: review.
    Two phone photos' marker slashes read silently as ticks so (seeds 31, 41: one now goes
    to review, one reads as a slash on its core); on the cached sheets 2 ticks more go to
    review, no other box changes. 540 training-style pages at marker widths: 20 slashes
    read as ticks go to review, and 84 of 18,400 ticks (session 19)."""
    return (shape["far"] < FAR_SLASH and shape["span"] >= FAT_SPAN
            and shape["end_gap"] <= EDGE_GAP and shape["bulge"] < PEN_BULGE and fill < FAT_FILL)


def stroke_width(ink: np.ndarray) -> float:
    """Typical stroke width of a binary ink mask (pixels): from the distance to paper on
    the strokes' spines."""
    if ink.sum() < 3:
        return 1.0
    dist = cv2.distanceTransform(np.pad(ink.astype(np.uint8), 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
    return float(max(1.0, 2 * _percentile(dist[ink], 90) - 1))


def _stroke_state(executed: bool, line: tuple[float, float] | None, far: float = 0.0) -> str:
    """On an Executed box: one straight stroke is a slash (failed), more is a success.
    `far`: the share of the ink well off the main stroke's band (line_fraction)."""
    if not executed or line is None:
        return CHECKED
    first, second = line
    if second <= SECOND_SLASH and first >= FIRST_SLASH and far < FAR_SLASH:
        return SLASHED
    if second >= SECOND_CROSS or (second > SECOND_SLASH and far >= FAR_TICK):
        return CHECKED
    return REVIEW
