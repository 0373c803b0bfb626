"""Synthetic photos and scans of filled career sheets, with their ground truth.

`make_case(seed, profile)` draws a career page as a person would fill it and photographs
or scans it, returning the encoded image, the career state, the expected value of every
mark region (`truth`, the vocabulary of `game.opial.marks`) and every parameter used
(`meta`). The same (seed, profile, edition, paper) always gives the same bytes.

    content   a random career (the simulator's honest careers, short and long), a blank
              sheet or a scrambled one (boxes checked at random); a name; sometimes the
              player's own final-score lines
    ink       `sheets.fill.plan_ink` in its `pen` or `clean` style, restyled as a blue or
              black pen, a pencil (light grey, thin, grainy) or a marker (thick);
              optional corrections (a box filled solid, then scribbled: truth `cancelled`)
              and stray marks beside boxes (truth unchanged); each mark is then kept to
              its own box (`_tidy_marks`), so the truth is never ambiguous
    render    the blank sheet rasterised once per resolution with pypdfium2; the ink
              rasterised the same way and laid on it like ink (multiplied)
    camera    `phone`: any in-plane rotation (upside down, sideways), tilt up to 35 deg,
              slight page curl, a busy table, lighting gradient, a soft shadow, colour
              cast, exposure, mild defocus or motion blur, sensor noise, sharpening,
              JPEG 50-95, 0.3 to 20 MP (mostly 8-12 MP); `phone-easy`: milder versions;
              `corner-cut`: a phone-easy photo with one corner marker out of the frame
              or under a fingertip or a note (`Case.missing_markers`); regions, the QR
              code and the other markers stay visible (the top-right marker, beside the
              QR code, can only be covered, never cut by the frame); `short-ticks`: a
              phone-easy photo whose ticks' short arms are cut to 35-65 % (_short_arms)
    scanner   `scan` (150-600 dpi), `scan-150`, `scan-300`, `scan-600`, `short-ticks-scan`
              (150-600 dpi, the ticks of `short-ticks`): a flatbed, the
              paper skewed +-2 deg, printed at 90-100% ("fit to page"), sometimes upside
              down, sometimes a photocopy (high contrast, toner specks, soft), colour or
              grey, PNG or JPEG
    clean     the page rasterised at 150, 200 or 300 dpi, nothing else (PNG)

Geometry: page coordinates are millimetres from the page's top-left corner, y down;
image coordinates follow OpenCV (the centre of the top-left pixel is (0, 0)).
`meta["markers"]` gives the four fiducials' corners in the image, in cv2.aruco's order.
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from game.opial.marks import BLANK, CANCELLED, CHECKED, state_to_marks
from game.opial.rules import Rules, load_rules, normalise_edition
from game.opial.state import EMPTY, FAILURE, SCORE_LINES, SUCCESS, CareerState
from sheets.fill import DIGIT_STROKES, INKS, Ink, Stroke, plan_ink
from sheets.manifest import Manifest, Rect

VERSION = "5"  # bump when the same seed would give a different case
KIND = "opial-career"
# (new ones last: a profile's index seeds its cases)
PROFILES = ("phone", "phone-easy", "corner-cut", "scan", "scan-150", "scan-300", "scan-600",
            "clean", "short-ticks", "short-ticks-scan", "phone-vga")
PHOTO_PROFILES = ("phone", "phone-easy", "corner-cut", "short-ticks", "phone-vga")
SCAN_PROFILES = ("scan", "scan-150", "scan-300", "scan-600", "short-ticks-scan")
SHORT_TICKS = ("short-ticks", "short-ticks-scan")  # ticks drawn with short arms (_short_arms)
RENDER_DPIS = (75, 100, 150, 200, 250, 300)  # the page is rasterised at one of these
MAX_RENDER_DPI = 300  # larger outputs are upsampled by the camera/scanner warp
MM_PER_PT = 25.4 / 72
SCAN_BED_MM = (216.0, 297.0)  # a flatbed's glass: holds Letter and A4
NAMES = ("Dan", "Opal", "Jordan Reyes", "M. Okafor", "Lena Fischer", "Sam", "Kwame Mensah",
         "Aiko Tanaka", "R. Delacroix", "Priya", "Tom O'Hara", "Zoë Martin", "Captain Kim",
         "Ines Duarte", "Jo", "Hank Bauer", "Mei-Lin Chou", "Ana Lucía", "Ole Nilsen",
         "Commander Vex", "B. Adeyemi", "Chris P.")

Truth = dict[str, str | int | None]


@dataclass(frozen=True)
class Case:
    """One synthetic photo or scan and what a perfect reader would get from it."""

    seed: int
    profile: str
    edition: str
    paper: str
    encoded: bytes  # the image file (JPEG or PNG)
    ext: str  # ".jpg" or ".png"
    state: CareerState  # the career on the sheet
    truth: Truth  # region id -> checked | slashed | empty | cancelled, name, int
    missing_markers: tuple[int, ...]  # fiducial ids out of the frame or covered
    meta: dict[str, Any]  # every parameter used (JSON-ready)

    @cached_property
    def image(self) -> np.ndarray:
        """The decoded image file, BGR uint8 (what a reader sees, compression included)."""
        img = cv2.imdecode(np.frombuffer(self.encoded, np.uint8), cv2.IMREAD_COLOR)
        if img is None:  # pragma: no cover - our own encoder's output
            raise ValueError("could not decode the generated image")
        return img

    def record(self) -> dict[str, Any]:
        """Everything but the pixels, JSON-ready (a bench's or a test's truth file)."""
        return {"format": f"starsheets/synthetic@{VERSION}", "seed": self.seed,
                "profile": self.profile, "edition": self.edition, "paper": self.paper,
                "ext": self.ext, "state": self.state.to_dict(), "truth": dict(self.truth),
                "missing_markers": list(self.missing_markers), "meta": self.meta}


# --- small helpers ---------------------------------------------------------------------------
def _f(v: float, nd: int = 3) -> float:
    return round(float(v), nd)


def _pick(rng: np.random.Generator, options: Sequence[Any], weights: Sequence[float]) -> Any:
    w = np.asarray(weights, float)
    return options[int(rng.choice(len(options), p=w / w.sum()))]


def _apply_h(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homography to (..., 2) points."""
    p = np.asarray(pts, np.float64)
    x = h[0, 0] * p[..., 0] + h[0, 1] * p[..., 1] + h[0, 2]
    y = h[1, 0] * p[..., 0] + h[1, 1] * p[..., 1] + h[1, 2]
    w = h[2, 0] * p[..., 0] + h[2, 1] * p[..., 1] + h[2, 2]
    return np.stack([x / w, y / w], axis=-1)


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cells: tuple[int, int]) -> np.ndarray:
    """Smooth random field in [0, 1] of size (h, w) from a coarse (cells) grid."""
    coarse = rng.random((max(2, cells[0]), max(2, cells[1]))).astype(np.float32)
    return cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


@lru_cache(maxsize=8)
def _noise_lut(sigma: float) -> np.ndarray:
    """uint8 -> 128 + sigma * N(0,1) quantile: turns uniform bytes into Gaussian noise."""
    nd = statistics.NormalDist()
    q = np.array([nd.inv_cdf((i + 0.5) / 256) for i in range(256)])
    return np.clip(np.round(128 + sigma * q), 0, 255).astype(np.uint8)


def _add_noise(img: np.ndarray, rng: np.random.Generator, sigma: float, chroma: float,
               grain: int = 2) -> np.ndarray:
    """Sensor noise: luminance noise at 1/grain resolution (demosaiced noise is not
    independent per pixel) plus colour noise at a quarter of that, added in one pass."""
    h, w = img.shape[:2]
    gh, gw = h // grain + 1, w // grain + 1
    u = rng.integers(0, 256, (gh, gw), dtype=np.uint8)
    n = cv2.LUT(u, _noise_lut(max(sigma, 0.0) * grain ** 0.5))
    if img.ndim == 3:
        n = cv2.cvtColor(n, cv2.COLOR_GRAY2BGR)
        if chroma > 0:
            u = rng.integers(0, 256, (gh // 4 + 1, gw // 4 + 1, 3), dtype=np.uint8)
            c = cv2.resize(cv2.LUT(u, _noise_lut(chroma * (grain * 4) ** 0.5)), (gw, gh),
                           interpolation=cv2.INTER_LINEAR)
            n = cv2.addWeighted(n, 1.0, c, 1.0, -128.0)
    n = cv2.resize(n, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.addWeighted(img, 1.0, n, 1.0, -128.0)


def _blur(img: np.ndarray, kind: str, amount: float, angle: float) -> np.ndarray:
    """Defocus (Gaussian, sigma = amount px) or motion (a line of `amount` px)."""
    if amount <= 0.05:
        return img
    if kind == "defocus":
        return cv2.GaussianBlur(img, (0, 0), amount)
    size = max(math.ceil(amount) | 1, 3)
    k = np.zeros((size * 4, size * 4), np.float32)  # drawn 4x larger, then reduced
    c = size * 2 - 0.5
    dx, dy = math.cos(angle) * amount * 2, math.sin(angle) * amount * 2
    cv2.line(k, (round((c - dx) * 16), round((c - dy) * 16)),
             (round((c + dx) * 16), round((c + dy) * 16)), 1.0, 2, cv2.LINE_AA, shift=4)
    k = cv2.resize(k, (size, size), interpolation=cv2.INTER_AREA)
    k /= k.sum()
    return cv2.filter2D(img, -1, k)


def _sharpen(img: np.ndarray, amount: float, sigma: float) -> np.ndarray:
    if amount <= 0:
        return img
    soft = cv2.GaussianBlur(img, (0, 0), sigma)
    return cv2.addWeighted(img, 1 + amount, soft, -amount, 0)


# --- the sheet and its ground truth ---------------------------------------------------------
@dataclass(frozen=True)
class Page:
    """The page's geometry in millimetres (top-left origin, y down)."""

    manifest: Manifest

    @property
    def size_mm(self) -> tuple[float, float]:
        w, h = self.manifest.page_size
        return w * MM_PER_PT, h * MM_PER_PT

    def rect_mm(self, r: Rect) -> tuple[float, float, float, float]:
        """A manifest rect (PDF points, bottom-left origin) as x0, y0, x1, y1 in mm."""
        h = self.manifest.page_size[1]
        return (r[0] * MM_PER_PT, (h - r[1] - r[3]) * MM_PER_PT,
                (r[0] + r[2]) * MM_PER_PT, (h - r[1]) * MM_PER_PT)

    def point_mm(self, p: tuple[float, float]) -> tuple[float, float]:
        return p[0] * MM_PER_PT, (self.manifest.page_size[1] - p[1]) * MM_PER_PT

    def marker_corners_mm(self) -> dict[int, np.ndarray]:
        return {f.id: np.array([self.point_mm(p) for p in f.corners]) for f in
                self.manifest.fiducials}


@lru_cache(maxsize=64)
def _career_pool(edition: str, length: str, start: str, pool_seed: int) -> tuple[CareerState, ...]:
    """50 honest careers from the simulator (cached: the pool is reused across cases)."""
    from game.opial.simulate import random_states

    return tuple(random_states(50, pool_seed, edition, length, start))


def _scrambled_state(rng: np.random.Generator, rules: Rules) -> CareerState:
    """A sheet with boxes checked at random (no rules): a reader must not rely on what a
    career makes likely."""
    def subset(n: int, p: float) -> tuple[int, ...]:
        if rng.random() < 0.5:  # a run from box 1, as a career fills it
            return tuple(range(1, int(rng.integers(0, n + 1)) + 1))
        return tuple(int(k) for k in np.flatnonzero(rng.random(n) < p) + 1)

    length = str(rng.choice(list(rules.game_lengths)))
    tours = subset(rules.tour_count, 0.3)
    tm = [int(rng.integers(0, rules.tour_mission_boxes + 1))
          for _ in range(int(rng.integers(0, rules.tour_count + 1)))]
    while tm and tm[-1] == 0:
        tm.pop()
    missions = {}
    for m in rules.missions:
        cells = "".join(str(rng.choice([SUCCESS, FAILURE, EMPTY], p=[0.35, 0.2, 0.45]))
                        for _ in range(m.boxes)).rstrip(EMPTY)
        if cells and rng.random() < 0.6:
            missions[m.id] = cells
    skills = {s.id: b for s in rules.skills if (b := subset(s.max_level, 0.35))}
    medals = {md.id: b for md in rules.medals if (b := subset(md.boxes, 0.2))}
    return CareerState(edition=rules.edition, length=length,
                       start=str(rng.choice([o.id for o in rules.start_options])),
                       tours=tours, tour_missions=tuple(tm),
                       promotion=subset(rules.track_boxes, 0.3), missions=missions,
                       skills=skills, medals=medals,
                       discipline=subset(rules.discipline.boxes, 0.2),
                       clone=subset(rules.clone_uses, 0.3))


def _written(rng: np.random.Generator, state: CareerState, rules: Rules) -> dict[str, int] | None:
    """The final-score lines a player writes: all of them, only the total, or all with a
    slip in one line (the reader must read what is written, not what is right)."""
    from game.opial.scoring import score

    lines = {ln.key: ln.points for ln in score(state, rules).lines}
    how = _pick(rng, ("all", "total", "slip"), (0.6, 0.25, 0.15))
    if how == "total":
        lines = {"total": lines["total"]}
    elif how == "slip":
        key = str(rng.choice(list(SCORE_LINES)))
        lines[key] += int(rng.choice([-10, -2, -1, 1, 2, 5, 10]))
    return {k: v for k, v in lines.items() if -99 <= v <= 999} or None


def _content(rng: np.random.Generator, rules: Rules) -> tuple[CareerState, Truth, dict[str, Any]]:
    """The career on the sheet and the truth of every region."""
    kind = _pick(rng, ("career", "blank", "scrambled"), (0.82, 0.06, 0.12))
    if kind == "blank":
        state = CareerState(edition=rules.edition)
        truth = state_to_marks(state, rules)
        for rid, v in truth.items():
            if v == CHECKED:  # the default length and start bubbles: not marked here
                truth[rid] = BLANK
        return state, truth, {"kind": "blank"}
    if kind == "career":
        length = _pick(rng, ("career", "short"), (0.6, 0.4))
        start = str(rng.choice([o.id for o in rules.start_options]))
        pool = _career_pool(rules.edition, length, start, int(rng.integers(0, 8)))
        state = pool[int(rng.integers(0, len(pool)))]
    else:
        state = _scrambled_state(rng, rules)
    if rng.random() < 0.75:
        state = state.with_changes(name=str(rng.choice(NAMES)))
    if rng.random() < 0.35:
        state = state.with_changes(written=_written(rng, state, rules))
    return state, state_to_marks(state, rules), {
        "kind": kind, "length": state.length, "start": state.start,
        "written": sorted(state.written or {}), "name": state.name}


# --- ink: tools, corrections, stray marks ---------------------------------------------------
TOOLS = ("pen", "clean", "pencil", "marker")
TOOL_WEIGHTS = {"phone": (0.55, 0.08, 0.17, 0.20), "phone-easy": (0.65, 0.15, 0.08, 0.12),
                "corner-cut": (0.65, 0.15, 0.08, 0.12), "short-ticks": (0.65, 0.15, 0.08, 0.12),
                "phone-vga": (0.55, 0.08, 0.17, 0.20),
                "scan": (0.6, 0.15, 0.12, 0.13),
                "clean": (0.5, 0.3, 0.1, 0.1)}
PEN_COLOURS = {"blue": INKS["blue"], "black": INKS["black"], "blue-gel": (0.08, 0.16, 0.48),
               "blue-light": (0.18, 0.32, 0.72)}
MARKER_COLOURS = {"black": (0.07, 0.07, 0.08), "blue": (0.05, 0.2, 0.6),
                  "red": (0.72, 0.1, 0.12), "green": (0.05, 0.42, 0.2)}


@dataclass(frozen=True)
class InkStyle:
    tool: str  # pen | clean | pencil | marker
    colour: tuple[float, float, float]
    colour_name: str
    width: float  # stroke width multiplier
    base: str  # the sheets.fill style drawn and restyled: pen | clean

    def to_meta(self) -> dict[str, Any]:
        return {"tool": self.tool, "colour": self.colour_name,
                "rgb": [_f(c) for c in self.colour], "width_scale": _f(self.width),
                "fill_style": self.base}


def _ink_style(rng: np.random.Generator, profile: str) -> InkStyle:
    key = "scan" if profile in SCAN_PROFILES else profile
    tool = _pick(rng, TOOLS, TOOL_WEIGHTS[key])
    if tool == "clean":
        return InkStyle("clean", INKS["black"], "black", 1.0, "clean")
    if tool == "pen":
        name = _pick(rng, tuple(PEN_COLOURS), (0.4, 0.4, 0.1, 0.1))
        return InkStyle("pen", PEN_COLOURS[name], name, float(rng.uniform(0.85, 1.15)), "pen")
    if tool == "pencil":
        g = float(rng.uniform(0.38, 0.55))
        return InkStyle("pencil", (g, g, g * 1.03), f"grey {g:.2f}",
                        float(rng.uniform(0.6, 0.85)), "pen")
    name = _pick(rng, tuple(MARKER_COLOURS), (0.5, 0.3, 0.1, 0.1))
    return InkStyle("marker", MARKER_COLOURS[name], name, float(rng.uniform(1.9, 2.6)), "pen")


def _restyle(inks: list[Ink], style: InkStyle) -> list[Ink]:
    out: list[Ink] = []
    for i in inks:
        if isinstance(i, Stroke):
            out.append(Stroke(i.points, round(i.width * style.width, 3), style.colour))
        else:
            out.append(replace(i, colour=style.colour, pen=round(i.pen * style.width, 3)))
    return out


OUTLINE = 0.7  # pt: the printed box outline (sheets.draw.BOX_LINE), inside a region's rect


def _side_gaps(manifest: Manifest, rid: str, r: Rect, span: float
               ) -> tuple[float, float, float, float]:
    """Clear space (pt) from region `rid` to the nearest other region on its left, right,
    bottom and top (regions within `span` of its sides count, so diagonal neighbours do)."""
    x, y, w, h = r
    left = right = bottom = top = 40.0
    for o in manifest.regions:
        if o.id == rid:
            continue
        ox, oy, ow, oh = o.rect
        if oy < y + h + span and oy + oh > y - span:
            if ox + ow <= x + 1e-6:
                left = min(left, x - (ox + ow))
            elif ox >= x + w - 1e-6:
                right = min(right, ox - (x + w))
        if ox < x + w + span and ox + ow > x - span:
            if oy + oh <= y + 1e-6:
                bottom = min(bottom, y - (oy + oh))
            elif oy >= y + h - 1e-6:
                top = min(top, oy - (y + h))
    return left, right, bottom, top


def _correction(rng: random.Random, manifest: Manifest, rid: str, colour: tuple[float, ...],
                width: float) -> list[Stroke]:
    """A box filled solid, then scribbled over past its outline (the convention, see
    docs/scanner.md "Corrections"): a loop round the box through its rim (CORR_RIM_MM out,
    or half-way to a closer neighbour) and looser loops further out where there is room.
    The scribble may cross the gap to a neighbour and run over its printed outline, never
    into its inside."""
    x, y, w, h = manifest.region(rid).rect
    col = (float(colour[0]), float(colour[1]), float(colour[2]))
    cap = rng.uniform(3.0, 7.0)  # how far past the box the hand goes, where there is room
    gaps = _side_gaps(manifest, rid, (x, y, w, h), cap + 1.0)
    left, right, bottom, top = (max(0.0, min(cap, g + 0.8 * OUTLINE)) for g in gaps)
    over = min(0.3, *(max(0.0, g - width / 2) for g in gaps))
    x0, y0, x1, y1 = x - over, y - over, x + w + over, y + h + over
    pitch = max(0.35, width * 0.6)
    rows = max(3, math.ceil((y1 - y0 - width) / pitch) + 1)
    fill: list[tuple[float, float]] = []
    for k in range(rows):
        v = y0 + width / 2 + (y1 - y0 - width) * k / (rows - 1)
        a, b = x0 + width / 2 + rng.uniform(0, 0.4), x1 - width / 2 - rng.uniform(0, 0.4)
        fill.extend([(a, v), (b, v)] if k % 2 == 0 else [(b, v), (a, v)])
    out = [Stroke(tuple((round(p, 3), round(q, 3)) for p, q in fill), round(width, 3), col)]
    sw = round(width * rng.uniform(0.9, 1.2), 3)
    # the loop through the rim: every side inked just outside the outline
    rim = CORR_RIM_MM / MM_PER_PT
    ol, orr, ob, ot = (min(rim, g / 2) for g in gaps)
    j = [rng.uniform(-0.15, 0.15) for _ in range(8)]
    ring = [(x - ol + j[0], y - ob + j[1]), (x + w + orr + j[2], y - ob + j[3]),
            (x + w + orr + j[4], y + h + ot + j[5]), (x - ol + j[6], y + h + ot + j[7])]
    start = rng.randrange(4)
    ring = ring[start:] + ring[:start]
    ring.append(ring[0])
    ring.append(((ring[0][0] + ring[1][0]) / 2, (ring[0][1] + ring[1][1]) / 2))
    out.append(Stroke(tuple((round(p, 3), round(q, 3)) for p, q in ring), sw, col))
    # the scribble: loops round the box, clipped (stroke edge included) to the room it has
    lo_x, hi_x = x - left + sw / 2, x + w + right - sw / 2
    lo_y, hi_y = y - bottom + sw / 2, y + h + top - sw / 2
    cx, cy = x + w / 2, y + h / 2
    pts = []
    for k in range(rng.randint(3, 6) * 6 + 1):
        t = k / 6 * 2 * math.pi
        rr = rng.uniform(0.45, 0.8)
        px = cx + math.cos(t + rng.uniform(-0.3, 0.3)) * (w / 2 + cap) * rr * 1.3
        py = cy + math.sin(t * 1.7) * (h / 2 + cap) * rr * 1.3
        pts.append((round(min(hi_x, max(lo_x, px)), 3), round(min(hi_y, max(lo_y, py)), 3)))
    out.append(Stroke(tuple(pts), sw, col))
    return out


# --- the truth's conventions: one mark, one box --------------------------------------------------
CORR_RIM_MM = 0.6  # a correction's loop runs this far outside the box (less if crowded)
FILL_OVER_MM = 0.25  # a box coloured in to check it: ink at most this far past its edge
TICK_ARM_IN = 0.6  # a tick on an Executed box: at least this share of its short arm inside


def _samples(points: Sequence[tuple[float, float]], step: float = 0.3) -> np.ndarray:
    """Points every `step` pt along a polyline."""
    p = np.asarray(points, np.float64)
    if len(p) == 1:
        return p
    out = [p[:1]]
    for a, b in itertools.pairwise(p):
        n = max(1, math.ceil(float(np.hypot(*(b - a))) / step))
        t = np.arange(1, n + 1)[:, None] / n
        out.append(a + (b - a) * t)
    return np.concatenate(out)


def _rect_dist(pts: np.ndarray, r: tuple[float, float, float, float]) -> np.ndarray:
    """Distance from points to a rect (x0, y0, x1, y1); 0 inside."""
    dx = np.maximum(np.maximum(r[0] - pts[:, 0], 0), pts[:, 0] - r[2])
    dy = np.maximum(np.maximum(r[1] - pts[:, 1], 0), pts[:, 1] - r[3])
    return np.hypot(dx, dy)


def _inner(rect: Rect, inset: float) -> tuple[float, float, float, float]:
    x, y, w, h = rect
    return x + inset, y + inset, x + w - inset, y + h - inset


def _moved(strokes: list[Stroke], centre: tuple[float, float], scale: tuple[float, float],
           shift: tuple[float, float]) -> list[Stroke]:
    cx, cy = centre
    return [Stroke(tuple((round(cx + (px - cx) * scale[0] + shift[0], 3),
                          round(cy + (py - cy) * scale[1] + shift[1], 3)) for px, py in s.points),
                   s.width, s.colour) for s in strokes]


def _intrudes(strokes: list[Stroke], others: list[tuple[float, float, float, float]]) -> bool:
    """Whether any ink (stroke edge included) enters another region's inside."""
    for s in strokes:
        pts = _samples(s.points)
        for r in others:
            if (_rect_dist(pts, r) < s.width / 2 + 0.1).any():
                return True
    return False


SHORT_ARM = (0.35, 0.65)  # `short-ticks`: a tick's short arm shortened to this share of it


def _short_arms(inks: list[Ink], manifest: Manifest, rng: random.Random) -> list[Ink]:
    """The ticks on Executed boxes with their short arm cut to SHORT_ARM of its length
    (`sheets.fill` draws it about 40 % of the box; people often draw it far shorter), the
    vertex and long arm kept."""
    out = list(inks)
    for rid, idx in _owners(out, manifest).items():
        if not rid.startswith("mission.") or len(idx) != 1:
            continue
        s = out[idx[0]]
        if not isinstance(s, Stroke) or len(s.points) != 5:  # a tick: arm, bend, vertex, ...
            continue
        k = rng.uniform(*SHORT_ARM)
        vx, vy = s.points[2]
        arm = tuple((round(vx + (x - vx) * k, 3), round(vy + (y - vy) * k, 3))
                    for x, y in s.points[:2])
        out[idx[0]] = Stroke(arm + s.points[2:], s.width, s.colour)
    return out


def _owners(inks: list[Ink], manifest: Manifest) -> dict[str, list[int]]:
    """The strokes of each box or bubble (by the stroke's centre, the box grown 2 pt)."""
    boxes = [r for r in manifest.regions if r.kind in ("checkbox", "bubble")]
    grown = [(r, (r.rect[0] - 2, r.rect[1] - 2, r.rect[0] + r.rect[2] + 2,
                  r.rect[1] + r.rect[3] + 2)) for r in boxes]
    owned: dict[str, list[int]] = {}
    for k, ink in enumerate(inks):
        if not isinstance(ink, Stroke):
            continue
        c = np.asarray(ink.points, np.float64).mean(axis=0)
        for r, g in grown:
            if g[0] <= c[0] <= g[2] and g[1] <= c[1] <= g[3]:
                owned.setdefault(r.id, []).append(k)
                break
    return owned


def _tidy_marks(inks: list[Ink], manifest: Manifest) -> tuple[list[Ink], dict[str, str]]:
    """Keep each check mark to its own box, as the truth says it is: nothing of it inside
    another region (a pen aimed at a box in a tight row can land 15% off), a box coloured
    in stays within FILL_OVER_MM of its edge (a thick marker would otherwise spill over the
    outline all round, which is how a correction is told), and a tick on an Executed box
    keeps most of its short arm inside the box (else it reads as a slash: failed). Returns
    the inks and what was changed (region id -> why), for the case's meta."""
    boxes = [r for r in manifest.regions if r.kind in ("checkbox", "bubble")]
    owned = _owners(inks, manifest)
    out = list(inks)
    changed: dict[str, str] = {}
    for rid, idx in owned.items():
        reg = manifest.region(rid)
        x, y, w, h = reg.rect
        centre = (x + w / 2, y + h / 2)
        strokes = [out[k] for k in idx]
        assert all(isinstance(s, Stroke) for s in strokes)
        marks: list[Stroke] = strokes  # type: ignore[assignment]
        why = []
        if len(marks) == 1 and len(marks[0].points) >= 8:  # coloured in
            pts = np.asarray(marks[0].points)
            room = FILL_OVER_MM / MM_PER_PT - marks[0].width / 2
            lo, hi = pts.min(axis=0), pts.max(axis=0)
            want_lo = np.array([x - room, y - room])
            want_hi = np.array([x + w + room, y + h + room])
            if (lo < want_lo - 1e-6).any() or (hi > want_hi + 1e-6).any():
                span = np.maximum(hi - lo, 1e-6)
                sc = np.minimum(1.0, (want_hi - want_lo) / span)
                mid = (lo + hi) / 2
                new_mid = np.clip(mid, want_lo + span * sc / 2, want_hi - span * sc / 2)
                marks = _moved(marks, (float(mid[0]), float(mid[1])),
                               (float(sc[0]), float(sc[1])),
                               (float(new_mid[0] - mid[0]), float(new_mid[1] - mid[1])))
                why.append("fill kept to its box")
        if (rid.startswith("mission.") and len(marks) == 1 and len(marks[0].points) == 5):
            s = marks[0]
            inner = _inner(reg.rect, OUTLINE + s.width / 2 + 0.45)
            for _ in range(10):
                arm = _samples(s.points[:3], 0.1)
                if (_rect_dist(arm, inner) == 0).mean() >= TICK_ARM_IN:
                    break
                p0 = np.asarray(s.points[0])
                tgt = np.clip(p0, [inner[0], inner[1]], [inner[2], inner[3]])
                d = (tgt - p0) * 0.5
                s = _moved([s], centre, (0.95, 0.95), (float(d[0]), float(d[1])))[0]
            if s is not marks[0]:
                marks = [s]
                why.append("tick's short arm brought into the box")
        others = [_inner(o.rect, OUTLINE) for o in boxes if o.id != rid
                  and abs(o.rect[0] - x) < 30 and abs(o.rect[1] - y) < 30]
        k = 0
        while _intrudes(marks, others) and k < 12:
            marks = _moved(marks, centre, (0.93, 0.93), (0.0, 0.0))
            k += 1
        if k:
            why.append("kept out of its neighbour")
        if why:
            changed[rid] = "; ".join(why)
            for k2, s in zip(idx, marks, strict=True):
                out[k2] = s
    return out, changed


def _correction_targets(rng: np.random.Generator, manifest: Manifest, truth: Truth,
                        count: int) -> list[str]:
    """Empty checkboxes a player is likely to have marked by mistake: mostly the box
    after the last one checked in a group, else any empty box."""
    groups: dict[str, list[str]] = {}
    for r in manifest.regions:
        if r.kind == "checkbox":
            groups.setdefault(r.group, []).append(r.id)
    nexts = []
    for ids in groups.values():
        marked = [i for i, rid in enumerate(ids) if truth.get(rid) != BLANK]
        k = (max(marked) + 1) if marked else 0
        if k < len(ids) and truth.get(ids[k]) == BLANK:
            nexts.append(ids[k])
    empty = [rid for ids in groups.values() for rid in ids if truth.get(rid) == BLANK]
    chosen: list[str] = []
    for _ in range(count):
        pool = [i for i in (nexts if nexts and rng.random() < 0.7 else empty) if i not in chosen]
        if not pool:
            break
        chosen.append(str(pool[int(rng.integers(0, len(pool)))]))
    return chosen


STRAY_SHAPES = ("dot", "dash", "tick", "loop", "arrow", "digit", "squiggle")


def _stray_shape(rng: random.Random, kind: str) -> list[list[tuple[float, float]]]:
    """A stray mark's polylines, centred on (0, 0), in points."""
    if kind == "dot":
        a = rng.uniform(0, math.pi)
        return [[(-0.2 * math.cos(a), -0.2 * math.sin(a)), (0.2 * math.cos(a), 0.2 * math.sin(a))]]
    if kind == "dash":
        n = rng.uniform(3, 8)
        a = rng.uniform(-0.5, 0.5)
        return [[(-n / 2 * math.cos(a), -n / 2 * math.sin(a)), (n / 2 * math.cos(a),
                                                                 n / 2 * math.sin(a))]]
    if kind == "tick":
        s = rng.uniform(3, 6)
        return [[(-s / 2, 0.1 * s), (-s / 6, -s / 2), (s / 2, s / 2)]]
    if kind == "loop":
        r = rng.uniform(1.5, 3.5)
        return [[(r * math.cos(t / 8 * 2 * math.pi) * rng.uniform(0.9, 1.1),
                  r * math.sin(t / 8 * 2 * math.pi) * rng.uniform(0.9, 1.1)) for t in range(9)]]
    if kind == "arrow":
        n = rng.uniform(8, 15)
        return [[(-n / 2, 0), (n / 2, 0)], [(n / 2 - 2.5, 1.8), (n / 2, 0), (n / 2 - 2.5, -1.8)]]
    if kind == "digit":
        ch = rng.choice("0123456789")
        s = rng.uniform(4.5, 7)
        return [[((u - 0.5) * s * 0.6, (v - 0.5) * s) for u, v in pts] for pts in DIGIT_STROKES[ch]]
    n = rng.randint(4, 7)
    return [[(i * 1.6 - n * 0.8, rng.uniform(-1.2, 1.2)) for i in range(n)]]


def _stray_marks(rng: random.Random, manifest: Manifest, count: int, colour: tuple[float, ...],
                 width: float) -> tuple[list[Stroke], list[dict[str, Any]]]:
    """Marks beside boxes that are not in any region (doodles, a tally, an arrow)."""
    boxes = [r for r in manifest.regions if r.kind in ("checkbox", "bubble")]
    keep_out = [r.rect for r in manifest.regions]
    for f in manifest.fiducials:
        x, y, w, h = f.rect
        keep_out.append((x - f.quiet, y - f.quiet, w + 2 * f.quiet, h + 2 * f.quiet))
    for q in manifest.qr:
        x, y, w, h = q.rect
        keep_out.append((x - q.quiet, y - q.quiet, w + 2 * q.quiet, h + 2 * q.quiet))
    px, py, pw, ph = manifest.printable
    col = (float(colour[0]), float(colour[1]), float(colour[2]))
    strokes: list[Stroke] = []
    placed: list[dict[str, Any]] = []
    clear = 1.5 + width / 2
    for _ in range(count):
        for _attempt in range(60):
            kind = rng.choice(STRAY_SHAPES)
            shape = _stray_shape(rng, kind)
            box = rng.choice(boxes)
            bx, by, bw, bh = box.rect
            ang = rng.uniform(0, 2 * math.pi)
            dist = rng.uniform(1.0, 3.0) * max(bw, bh)
            cx, cy = bx + bw / 2 + math.cos(ang) * dist, by + bh / 2 + math.sin(ang) * dist
            pts = [(cx + u, cy + v) for line in shape for u, v in line]
            x0, x1 = min(p[0] for p in pts) - clear, max(p[0] for p in pts) + clear
            y0, y1 = min(p[1] for p in pts) - clear, max(p[1] for p in pts) + clear
            if x0 < px or y0 < py or x1 > px + pw or y1 > py + ph:
                continue
            if any(x0 < o[0] + o[2] and o[0] < x1 and y0 < o[1] + o[3] and o[1] < y1
                   for o in keep_out):
                continue
            for line in shape:
                strokes.append(Stroke(tuple((round(cx + u, 3), round(cy + v, 3))
                                            for u, v in line), round(width, 3), col))
            placed.append({"shape": kind, "near": box.id,
                           "bbox_pt": [_f(x0 + clear), _f(y0 + clear), _f(x1 - clear),
                                       _f(y1 - clear)]})
            keep_out.append((x0, y0, x1 - x0, y1 - y0))
            break
    return strokes, placed


def _plan(rng: np.random.Generator, profile: str, rules: Rules, manifest: Manifest
          ) -> tuple[CareerState, Truth, list[Ink], InkStyle, dict[str, Any]]:
    """State, truth and every stroke of the sheet (PDF points)."""
    state, truth, sheet_meta = _content(rng, rules)
    style = _ink_style(rng, profile)
    ink_seed = int(rng.integers(0, 2**31))
    blank = sheet_meta["kind"] == "blank"
    inks = [] if blank else _restyle(plan_ink(state, rules, manifest, style.base, ink_seed),
                                     style)
    if profile in SHORT_TICKS:
        inks = _short_arms(inks, manifest, random.Random(ink_seed + 2))
    inks, tidied = _tidy_marks(inks, manifest)
    hand = random.Random(ink_seed + 1)
    base_width = 1.15 * style.width if style.tool != "clean" else 1.1
    corrections: list[str] = []
    if rng.random() < (0.1 if blank else 0.35):
        corrections = _correction_targets(rng, manifest, truth, int(rng.integers(1, 4)))
        for rid in corrections:
            truth[rid] = CANCELLED
            inks.extend(_correction(hand, manifest, rid, style.colour, base_width))
    stray: list[dict[str, Any]] = []
    if rng.random() < 0.4:
        strokes, stray = _stray_marks(hand, manifest, int(rng.integers(1, 5)), style.colour,
                                      base_width)
        inks.extend(strokes)
    meta = {"sheet": sheet_meta, "ink": style.to_meta(), "ink_seed": ink_seed,
            "corrections": corrections, "stray": stray, "tidied": tidied,
            "marked": sum(1 for v in truth.values() if v not in (BLANK, None))}
    return state, truth, inks, style, meta


# --- rasterising ------------------------------------------------------------------------------
@lru_cache(maxsize=6)
def _blank_raster(edition: str, paper: str, dpi: int) -> np.ndarray:
    """The blank sheet at `dpi`, BGR (read-only; cached)."""
    import pypdfium2 as pdfium

    from sheets.render import render

    doc = pdfium.PdfDocument(render(KIND, edition, paper).pdf)
    try:
        img = doc[0].render(scale=dpi / 72).to_numpy()
    finally:
        doc.close()
    img = np.ascontiguousarray(img[:, :, :3])
    img.flags.writeable = False
    return img


def _ink_raster(inks: list[Ink], page_size: tuple[float, float], shape: tuple[int, int],
                dpi: int) -> np.ndarray | None:
    """The ink alone on white, BGR at `dpi` (None when there is no ink)."""
    if not inks:
        return None
    import pypdfium2 as pdfium
    from reportlab.pdfgen.canvas import Canvas

    from sheets import fonts
    from sheets.fill import draw_ink

    buf = io.BytesIO()
    c = Canvas(buf, pagesize=page_size, invariant=True, pageCompression=False,
               initialFontName=fonts.REGULAR, initialFontSize=7)
    draw_ink(c, inks)
    c.showPage()
    c.save()
    doc = pdfium.PdfDocument(buf.getvalue())
    try:
        img = doc[0].render(scale=dpi / 72).to_numpy()
    finally:
        doc.close()
    img = img[:, :, :3]
    if img.shape[:2] != shape:  # pragma: no cover - same page size, same scale
        img = cv2.resize(img, (shape[1], shape[0]))
    return np.ascontiguousarray(img)


def _page_raster(rng: np.random.Generator, edition: str, paper: str, page_size: tuple[float, float],
                 inks: list[Ink], style: InkStyle, dpi: int) -> np.ndarray:
    """The filled sheet at `dpi`: ink multiplied onto the printed page (pencil grainy)."""
    blank = _blank_raster(edition, paper, dpi)
    ink = _ink_raster(inks, page_size, blank.shape[:2], dpi)
    if ink is None:
        return blank.copy()
    if style.tool == "pencil":
        h, w = ink.shape[:2]
        grain = rng.integers(130, 256, (h, w), dtype=np.uint8)  # graphite on paper's tooth
        grain = cv2.GaussianBlur(grain, (0, 0), 0.6)
        dark = cv2.multiply(255 - ink, cv2.cvtColor(grain, cv2.COLOR_GRAY2BGR), scale=1 / 255)
        ink = 255 - dark
    return cv2.multiply(blank, ink, scale=1 / 255)


def _raster_scale(raster: np.ndarray, page: Page) -> tuple[float, float]:
    """Pixels per mm of a page raster along x and y. pypdfium2 rounds the bitmap up to
    whole pixels and stretches the page to fill it (792 pt at 150 dpi is 1651 rows, not
    1650), so the scale is taken from the raster, not from the dpi."""
    w, h = page.size_mm
    return raster.shape[1] / w, raster.shape[0] / h


def _render_dpi(needed: float) -> int:
    for d in RENDER_DPIS:
        if d >= needed * 0.98:
            return d
    return MAX_RENDER_DPI


# --- the camera -------------------------------------------------------------------------------
@dataclass(frozen=True)
class PhotoSpec:
    """The ranges a photo profile draws from."""

    sizes: tuple[tuple[tuple[int, int], float], ...]  # ((w, h), weight), landscape
    any_rotation: float  # chance of a uniformly random in-plane rotation
    quarter_turn: float  # else chance of a multiple of 90 deg (+- jitter)
    jitter: float  # deg
    tilt: float  # max tilt, deg
    focal: tuple[float, float]  # focal length / image diagonal
    fill: tuple[float, float]  # page extent / frame
    curl: tuple[float, float]  # how far the lifted edge appears displaced, mm
    wobble: float  # mm of low-frequency unevenness (apparent displacement)
    gradient: float  # lighting gradient strength
    vignette: float
    shadow: tuple[float, float]  # chance, max darkness
    cast: float  # colour-cast strength
    exposure: tuple[float, float]
    blur: tuple[float, float]  # defocus sigma, px at 12 MP (a motion smear: twice that long)
    motion: float  # chance the blur is motion blur
    noise: tuple[float, float]  # sigma (grey levels)
    jpeg: tuple[int, int]
    clutter: float  # chance of objects on the table


SIZES_HARSH = (((640, 480), 0.2), ((1280, 960), 0.3), ((1600, 1200), 0.4), ((1920, 1080), 0.4),
               ((2592, 1944), 1.2), ((3264, 2448), 4.0), ((3840, 2160), 2.0), ((4000, 3000), 6.0),
               ((4032, 3024), 6.0), ((4000, 2252), 1.5), ((4608, 3456), 1.5), ((5184, 3888), 1.2),
               ((5472, 3648), 0.8))
SIZES_EASY = (((2592, 1944), 1.0), ((3264, 2448), 3.0), ((3840, 2160), 1.0), ((4000, 3000), 5.0),
              ((4032, 3024), 5.0), ((4608, 3456), 0.6))
PHOTO_SPECS = {
    "phone": PhotoSpec(SIZES_HARSH, 0.5, 0.5, 12.0, 35.0, (0.55, 1.1), (0.5, 0.95), (0.3, 2.0),
                       0.5, 0.55, 0.35, (0.7, 0.55), 1.0, (0.7, 1.15), (0.3, 1.5), 0.4,
                       (1.5, 6.0), (50, 95), 0.7),
    "phone-easy": PhotoSpec(SIZES_EASY, 0.0, 0.2, 5.0, 12.0, (0.65, 1.0), (0.68, 0.9),
                            (0.0, 0.6), 0.15, 0.2, 0.15, (0.3, 0.2), 0.35, (0.9, 1.08),
                            (0.2, 0.8), 0.2, (1.0, 3.0), (80, 95), 0.3),
}
# the smallest photo the scanner is asked to read: 640x480 (an old or messaging-app
# camera), the sheet filling the frame either way round (held across a landscape frame, a
# page is under 40 px/inch and refused as too small)
PHOTO_SPECS["phone-vga"] = PhotoSpec((((640, 480), 1.0),), 0.0, 0.5, 5.0, 12.0, (0.65, 1.0),
                                     (0.86, 0.97), (0.0, 0.6), 0.15, 0.3, 0.2, (0.3, 0.3),
                                     0.35, (0.85, 1.1), (0.2, 0.8), 0.2, (1.0, 3.0), (60, 92),
                                     0.3)
PHOTO_SPECS["corner-cut"] = PHOTO_SPECS["short-ticks"] = PHOTO_SPECS["phone-easy"]


@dataclass(frozen=True)
class Curl:
    """A smooth displacement of the page (mm), as a camera sees a sheet that is not flat:
    one edge lifted (quadratic from `start`, 0..1 across the page, to `lift` mm at the
    edge) plus a low-frequency wobble. These are apparent displacements: an edge lifted
    by z at distance Z from the lens, r off its axis, moves by about z * r / Z (a 5 mm
    curl seen from 40 cm moves 1-2 mm)."""

    size: tuple[float, float]
    edge: str  # top | bottom | left | right
    start: float
    lift: float
    bow: float  # mm, perpendicular bulge along the lifted edge
    waves: tuple[tuple[float, float, float, float, float], ...]  # ax, ay, kx, ky, phase

    def height(self, p: np.ndarray) -> np.ndarray:
        w, h = self.size
        s = {"top": 1 - p[..., 1] / h, "bottom": p[..., 1] / h, "left": 1 - p[..., 0] / w,
             "right": p[..., 0] / w}[self.edge]
        return np.clip((s - self.start) / (1 - self.start), 0, None) ** 2

    def __call__(self, p: np.ndarray) -> np.ndarray:
        w, h = self.size
        hgt = self.height(p)
        normal = {"top": (0, -1), "bottom": (0, 1), "left": (-1, 0), "right": (1, 0)}[self.edge]
        along = p[..., 0] / w if self.edge in ("top", "bottom") else p[..., 1] / h
        bulge = np.sin(np.clip(along, 0, 1) * math.pi) * self.bow
        d = np.zeros_like(p)
        d[..., 0] = hgt * (self.lift * normal[0] + bulge * normal[1])
        d[..., 1] = hgt * (self.lift * normal[1] + bulge * normal[0])
        for ax, ay, kx, ky, ph in self.waves:
            t = 2 * math.pi * (kx * p[..., 0] / w + ky * p[..., 1] / h) + ph
            d[..., 0] += ax * np.sin(t)
            d[..., 1] += ay * np.cos(t)
        return d

    def to_meta(self) -> dict[str, Any]:
        return {"edge": self.edge, "start": _f(self.start), "lift_mm": _f(self.lift),
                "bow_mm": _f(self.bow), "wobble_mm": _f(sum(abs(w[0]) + abs(w[1])
                                                            for w in self.waves))}


def _camera(rng: np.random.Generator, spec: PhotoSpec, page_mm: tuple[float, float],
            out: tuple[int, int]) -> tuple[np.ndarray, dict[str, Any]]:
    """A page-mm -> image-px homography: the page turned, tilted and seen through a
    pinhole camera, then framed (its bounding box `fill` of the frame)."""
    w, h = page_mm
    W, H = out
    if rng.random() < spec.any_rotation:
        rot = float(rng.uniform(0, 360))
    elif rng.random() < spec.quarter_turn:
        rot = float(rng.choice([90, 180, 270]) + rng.normal(0, spec.jitter / 2))
    else:
        rot = float(rng.normal(0, spec.jitter / 2))
    rot = rot % 360
    tilt = float(spec.tilt * math.sqrt(rng.random()))
    axis = float(rng.uniform(0, 2 * math.pi))
    focal = float(rng.uniform(*spec.focal)) * math.hypot(W, H)
    rz = math.radians(rot)
    r_z = np.array([[math.cos(rz), -math.sin(rz), 0], [math.sin(rz), math.cos(rz), 0], [0, 0, 1]])
    r_t, _ = cv2.Rodrigues(np.array([math.cos(axis), math.sin(axis), 0.0]) * math.radians(tilt))
    r = r_t @ r_z
    dist = focal * max(w, h) / (0.8 * min(W, H))
    m = np.column_stack([r[:, 0], r[:, 1], [0, 0, dist]])
    k = np.array([[focal, 0, W / 2], [0, focal, H / 2], [0, 0, 1]])
    centre = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]])
    hc = k @ m @ centre
    corners = _apply_h(hc, np.array([[0, 0], [w, 0], [w, h], [0, h]]))
    x0, y0 = corners.min(axis=0)
    x1, y1 = corners.max(axis=0)
    fill = float(rng.uniform(*spec.fill))
    s = fill * min(W / (x1 - x0), H / (y1 - y0))
    free_x, free_y = W - s * (x1 - x0), H - s * (y1 - y0)
    tx = free_x * float(rng.uniform(0.15, 0.85)) - s * x0
    ty = free_y * float(rng.uniform(0.15, 0.85)) - s * y0
    hm = np.array([[s, 0, tx], [0, s, ty], [0, 0, 1]]) @ hc
    hm /= hm[2, 2]
    return hm, {"rotation_deg": _f(rot, 2), "tilt_deg": _f(tilt, 2),
                "tilt_axis_deg": _f(math.degrees(axis), 1),
                "focal_per_diagonal": _f(focal / math.hypot(W, H)), "fill": _f(fill)}


def _px_per_mm(hm: np.ndarray, page_mm: tuple[float, float]) -> tuple[float, float]:
    """Smallest and largest scale of the page in the image (px per mm)."""
    w, h = page_mm
    u, v = np.meshgrid(np.linspace(0, w, 5), np.linspace(0, h, 5))
    p = np.stack([u, v], -1).reshape(-1, 2)
    q = _apply_h(hm, p)
    qx = _apply_h(hm, p + np.array([1.0, 0.0])) - q
    qy = _apply_h(hm, p + np.array([0.0, 1.0])) - q
    scales = np.concatenate([np.hypot(*qx.T), np.hypot(*qy.T)])
    return float(scales.min()), float(scales.max())


def _grow_quad(r: tuple[float, float, float, float], g: float) -> np.ndarray:
    """The corners of rect (x0, y0, x1, y1) grown by g."""
    x0, y0, x1, y1 = r
    return np.array([[x0 - g, y0 - g], [x1 + g, y0 - g], [x1 + g, y1 + g], [x0 - g, y1 + g]])


def _to_image(hm: np.ndarray, curl: Curl | None, pts_mm: np.ndarray) -> np.ndarray:
    """Where page points appear in the image (the curl's inverse by fixed point)."""
    p = np.asarray(pts_mm, np.float64)
    if curl is not None:
        q = p.copy()
        for _ in range(3):
            q = p - curl(q)
        p = q
    return _apply_h(hm, p)


def _curl(rng: np.random.Generator, spec: PhotoSpec, page_mm: tuple[float, float]) -> Curl:
    waves = tuple((float(rng.normal(0, spec.wobble / 2)), float(rng.normal(0, spec.wobble / 2)),
                   float(rng.uniform(0.3, 1.5)), float(rng.uniform(0.3, 1.5)),
                   float(rng.uniform(0, 2 * math.pi))) for _ in range(2))
    return Curl(page_mm, str(rng.choice(["top", "bottom", "left", "right"])),
                float(rng.uniform(0.45, 0.85)), float(rng.uniform(*spec.curl)) *
                float(rng.choice([-1, 1])), float(rng.normal(0, spec.curl[1] / 5)), waves)


def _grid(size: tuple[int, int], step: int) -> tuple[np.ndarray, tuple[int, int]]:
    """Sample points of an output image (W, H) such that cv2.resize of a field sampled
    there to (W, H) interpolates it (OpenCV's pixel-centre convention)."""
    W, H = size
    gw, gh = max(2, math.ceil(W / step)), max(2, math.ceil(H / step))
    xs = (np.arange(gw) + 0.5) * W / gw - 0.5
    ys = (np.arange(gh) + 0.5) * H / gh - 0.5
    gx, gy = np.meshgrid(xs, ys)
    return np.stack([gx, gy], -1), (gw, gh)


def _background(rng: np.random.Generator, w: int, h: int, clutter: float) -> tuple[np.ndarray,
                                                                                   str]:
    """A table top (wood, cloth, stone or a plain desk), maybe with things on it, BGR."""
    kind = _pick(rng, ("wood", "cloth", "stone", "desk"), (0.4, 0.2, 0.2, 0.2))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = np.array(_pick(rng, ((40, 85, 140), (60, 110, 170), (25, 50, 90), (90, 150, 200),
                                    (70, 90, 110)), (1, 1, 1, 1, 0.5)), np.float32)
        vertical = rng.random() < 0.5
        a = xx if vertical else yy
        n = w if vertical else h
        warp = _smooth_noise(rng, h, w, (4, 3)) * float(rng.uniform(2, 8))
        freq = float(rng.uniform(15, 45)) / n
        rings = np.sin(2 * math.pi * (a * freq + warp)) * 0.5 + 0.5
        streak_shape = (1, max(2, w // 2)) if vertical else (max(2, h // 2), 1)
        streaks = rng.random(streak_shape).astype(np.float32)
        streaks = cv2.resize(streaks, (w, h), interpolation=cv2.INTER_LINEAR)
        plank = float(rng.uniform(0.15, 0.4)) * n
        seams = (np.abs(((a + warp * 3) % plank) - plank / 2) > plank / 2 - 1.2).astype(np.float32)
        tone = 0.78 + 0.14 * rings + 0.1 * streaks - 0.3 * seams
        img = tone[..., None] * base[None, None, :]
    elif kind == "cloth":
        hue = rng.uniform(40, 220, 3)
        base = (hue * 0.45 + hue.mean() * 0.55).astype(np.float32)  # muted, as cloth is
        weave = (np.sin(xx * float(rng.uniform(0.6, 1.4))) * np.sin(yy * float(rng.uniform(0.6, 1.4))))
        tone = 0.9 + 0.06 * weave + 0.1 * _smooth_noise(rng, h, w, (5, 5))
        img = tone[..., None] * base[None, None, :]
    elif kind == "stone":
        base = rng.uniform(80, 200, 3).astype(np.float32)
        tone = (0.75 + 0.2 * _smooth_noise(rng, h, w, (6, 8))
                + 0.15 * _smooth_noise(rng, h, w, (40, 50))
                + 0.12 * rng.random((h, w)).astype(np.float32))
        img = tone[..., None] * base[None, None, :]
    else:
        base = np.array(_pick(rng, ((235, 235, 230), (60, 60, 60), (180, 190, 200), (200, 215, 225),
                                    (30, 30, 35)), (1, 1, 1, 1, 1)), np.float32)
        grad = 0.85 + 0.2 * (xx / w * float(rng.uniform(-1, 1)) + yy / h * float(rng.uniform(-1, 1)))
        img = grad[..., None] * base[None, None, :]
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < clutter:
        _clutter(rng, img)
    return img, kind


def _clutter(rng: np.random.Generator, img: np.ndarray) -> None:
    """Things on the table: papers (some printed), a mug, pens, a phone, coins."""
    h, w = img.shape[:2]
    s = min(w, h)
    for _ in range(int(rng.integers(2, 9))):
        what = _pick(rng, ("paper", "mug", "pen", "phone", "coin", "blob"), (3, 1, 2, 1, 1, 2))
        cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        hue = rng.integers(0, 256, 3)
        colour = tuple(int(c) for c in hue * 0.6 + hue.mean() * 0.4)
        if what == "paper":
            pw, ph = float(rng.uniform(0.2, 0.6)) * s, float(rng.uniform(0.25, 0.7)) * s
            box = cv2.boxPoints(((cx, cy), (pw, ph), float(rng.uniform(0, 180))))
            tint = int(rng.integers(215, 250))
            cv2.fillPoly(img, [np.round(box * 16).astype(np.int32)], (tint, tint, tint - 5),
                         cv2.LINE_AA, shift=4)
            if rng.random() < 0.6:  # printed lines of text
                o = box[0]
                ex = (box[1] - box[0]) / max(1e-6, np.linalg.norm(box[1] - box[0]))
                ey = (box[3] - box[0]) / max(1e-6, np.linalg.norm(box[3] - box[0]))
                lw, lh = np.linalg.norm(box[1] - box[0]), np.linalg.norm(box[3] - box[0])
                pitch = max(3.0, lh / float(rng.uniform(15, 40)))
                for k in range(1, int(lh / pitch) - 1):
                    a = o + ex * lw * 0.1 + ey * k * pitch
                    b = a + ex * lw * float(rng.uniform(0.4, 0.8))
                    cv2.line(img, tuple(int(v) for v in a), tuple(int(v) for v in b),
                             (70, 70, 70), 1, cv2.LINE_AA)
        elif what == "mug":
            r = float(rng.uniform(0.06, 0.15)) * s
            cv2.circle(img, (int(cx), int(cy)), int(r), colour, -1, cv2.LINE_AA)
            cv2.circle(img, (int(cx), int(cy)), int(r * 0.8),
                       tuple(int(c * 0.5) for c in colour), -1, cv2.LINE_AA)
        elif what == "pen":
            ln = float(rng.uniform(0.15, 0.35)) * s
            a = float(rng.uniform(0, math.pi))
            p0 = (int(cx - math.cos(a) * ln / 2), int(cy - math.sin(a) * ln / 2))
            p1 = (int(cx + math.cos(a) * ln / 2), int(cy + math.sin(a) * ln / 2))
            cv2.line(img, p0, p1, colour, max(2, int(s * 0.012)), cv2.LINE_AA)
        elif what == "phone":
            box = cv2.boxPoints(((cx, cy), (0.14 * s, 0.28 * s), float(rng.uniform(0, 180))))
            cv2.fillPoly(img, [np.round(box * 16).astype(np.int32)], (25, 25, 28), cv2.LINE_AA,
                         shift=4)
        elif what == "coin":
            r = float(rng.uniform(0.015, 0.03)) * s
            cv2.circle(img, (int(cx), int(cy)), max(2, int(r)), (90, 150, 180), -1, cv2.LINE_AA)
        else:
            axes = (int(rng.uniform(0.03, 0.2) * s), int(rng.uniform(0.03, 0.2) * s))
            cv2.ellipse(img, (int(cx), int(cy)), axes, float(rng.uniform(0, 180)), 0, 360, colour,
                        -1, cv2.LINE_AA)


def _lighting(rng: np.random.Generator, spec: PhotoSpec, grid: np.ndarray, size: tuple[int, int],
              page_poly: np.ndarray, shade: np.ndarray | None) -> tuple[np.ndarray, dict[str, Any]]:
    """Per-pixel BGR gain (low resolution, float32): exposure x gradient x vignette x a
    soft shadow across the page x colour cast (x curl shading)."""
    W, H = size
    gx, gy = grid[..., 0] / W - 0.5, grid[..., 1] / H - 0.5
    exposure = float(rng.uniform(*spec.exposure))
    ga = float(rng.uniform(0, 2 * math.pi))
    gs = float(rng.uniform(0, spec.gradient))
    field = exposure * (1 + gs * (np.cos(ga) * gx + np.sin(ga) * gy))
    vig = float(rng.uniform(0, spec.vignette))
    field *= 1 - vig * (gx ** 2 + gy ** 2) * 2
    meta: dict[str, Any] = {"exposure": _f(exposure), "gradient": _f(gs),
                            "gradient_deg": _f(math.degrees(ga), 1), "vignette": _f(vig)}
    if rng.random() < spec.shadow[0]:
        # a soft shadow (a hand, the phone, a lamp arm) whose edge crosses the page
        gh, gw = grid.shape[:2]
        mask = np.zeros((gh, gw), np.float32)
        sx, sy = gw / W, gh / H
        c = page_poly.mean(axis=0)
        a = float(rng.uniform(0, 2 * math.pi))
        off = float(rng.uniform(-0.25, 0.25)) * np.ptp(page_poly[:, 0])
        n = np.array([math.cos(a), math.sin(a)])
        e = np.array([-n[1], n[0]])
        p0 = c + n * off
        far = 3 * max(W, H)
        width = float(rng.uniform(0.3, 1.5)) * max(W, H)
        poly = np.array([p0 - e * width / 2, p0 + e * width / 2, p0 + e * width / 2 + n * far,
                         p0 - e * width / 2 + n * far]) * [sx, sy]
        cv2.fillPoly(mask, [np.round(poly * 16).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
        soft = float(rng.uniform(0.01, 0.06)) * max(gw, gh)
        mask = cv2.GaussianBlur(mask, (0, 0), soft)
        depth = float(rng.uniform(0.15, spec.shadow[1]))
        field *= 1 - depth * mask
        meta["shadow"] = {"depth": _f(depth), "angle_deg": _f(math.degrees(a), 1),
                          "softness": _f(soft / max(gw, gh))}
    if shade is not None:
        k = float(rng.uniform(-0.12, 0.18))
        field *= 1 - k * shade
        meta["curl_shading"] = _f(k)
    # colour cast: warm (tungsten) to cool (shade), a little green (fluorescent)
    t = float(rng.uniform(-1, 1)) * spec.cast
    green = float(rng.uniform(-0.04, 0.06)) * spec.cast
    gains = np.array([1 - 0.25 * max(t, 0) + 0.08 * max(-t, 0),  # B
                      1 - 0.08 * abs(t) + green,  # G
                      1 + 0.05 * max(t, 0) - 0.15 * max(-t, 0)], np.float32)  # R
    meta["cast"] = {"warmth": _f(t), "green": _f(green), "gains_bgr": [_f(g) for g in gains]}
    return field[..., None].astype(np.float32) * gains[None, None, :], meta


def _occluder(rng: np.random.Generator, page: Page, target: int) -> tuple[np.ndarray, str] | None:
    """A shape (page mm) covering fiducial `target` and nothing a reader needs (regions,
    the QR code, the other markers): a fingertip, or a sticky note or scrap of paper
    laid over the corner."""
    w, h = page.size_mm
    res = 4.0  # px per mm of the check raster
    keep = np.zeros((int(h * res) + 1, int(w * res) + 1), np.uint8)

    def paint(r: tuple[float, float, float, float], grow: float) -> None:
        x0, y0, x1, y1 = r
        cv2.rectangle(keep, (int((x0 - grow) * res), int((y0 - grow) * res)),
                      (math.ceil((x1 + grow) * res), math.ceil((y1 + grow) * res)), 1, -1)

    for reg in page.manifest.regions:
        paint(page.rect_mm(reg.rect), 0.6)
    for q in page.manifest.qr:
        paint(page.rect_mm(q.rect), 0.6)
    marker = None
    for f in page.manifest.fiducials:
        r = page.rect_mm(f.rect)
        if f.id == target:
            marker = r
        else:
            paint(r, f.quiet * MM_PER_PT)
    assert marker is not None
    mx0, my0, mx1, my1 = marker
    # the page corner the marker sits in, and the marker's corner facing the page's middle
    sx = -1.0 if mx0 < w / 2 else 1.0
    sy = -1.0 if my0 < h / 2 else 1.0
    inner = np.array([mx0 if sx > 0 else mx1, my0 if sy > 0 else my1])
    mc = np.array([(mx0 + mx1) / 2, (my0 + my1) / 2])
    for _ in range(120):
        kind = _pick(rng, ("finger", "note"), (0.45, 0.55))
        if kind == "finger":
            # a fingertip from beyond the page's edge, its tip just past the marker
            ang = math.atan2(-sy, -sx) + float(rng.uniform(-0.9, 0.9))
            d = np.array([math.cos(ang), math.sin(ang)])
            half = float(rng.uniform(10.0, 13.0))  # a fingertip or a thumb
            length = float(rng.uniform(55, 75))
            tip = mc + d * half * float(rng.uniform(0.9, 1.3))
            centre = tip - d * length / 2
            poly = cv2.ellipse2Poly((0, 0), (int(length / 2 * 100), int(half * 100)),
                                    round(math.degrees(ang)), 0, 360, 6).astype(np.float64) / 100
            poly += centre
        else:
            # a note whose inner corner lies just inside the marker's quiet zone
            nw, nh = float(rng.uniform(18, 40)), float(rng.uniform(18, 40))
            turn = math.radians(float(rng.uniform(-5, 5)))
            ex = np.array([math.cos(turn), math.sin(turn)]) * sx
            ey = np.array([-math.sin(turn), math.cos(turn)]) * sy
            c0 = inner - np.array([sx, sy]) * rng.uniform(0.4, 2.0, 2)
            poly = np.array([c0, c0 + ex * nw, c0 + ex * nw + ey * nh, c0 + ey * nh])
        mask = np.zeros_like(keep)
        cv2.fillPoly(mask, [np.round(poly * res).astype(np.int32)], 1)
        if (mask & keep).any():
            continue
        x0, y0, x1, y1 = (round(v * res) for v in marker)
        if mask[max(0, y0 - 2):y1 + 3, max(0, x0 - 2):x1 + 3].min() == 0:
            continue
        return poly, kind
    return None


def _frame_shift(rng: np.random.Generator, hm: np.ndarray, curl: Curl | None, page: Page,
                 target: int, size: tuple[int, int], margin: float) -> np.ndarray | None:
    """A shift of the page in the image that puts most of fiducial `target` outside the
    frame while every region, the QR code and the other markers stay inside."""
    W, H = size
    keep: list[np.ndarray] = []
    for reg in page.manifest.regions:
        x0, y0, x1, y1 = page.rect_mm(reg.rect)
        keep.append(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
    for q in page.manifest.qr:
        keep.append(_grow_quad(page.rect_mm(q.rect), q.quiet * MM_PER_PT))
    marker = None
    for f in page.manifest.fiducials:
        x0, y0, x1, y1 = page.rect_mm(f.rect)
        if f.id == target:
            u, v = np.meshgrid(np.linspace(x0, x1, 7), np.linspace(y0, y1, 7))
            marker = np.stack([u.ravel(), v.ravel()], -1)
        else:
            keep.append(_grow_quad((x0, y0, x1, y1), f.quiet * MM_PER_PT))
    assert marker is not None
    kp = _to_image(hm, curl, np.concatenate(keep))
    mp = _to_image(hm, curl, marker)
    centre = _to_image(hm, curl, np.array([page.size_mm]) / 2)[0]
    out_dir = mp.mean(axis=0) - centre
    base = math.atan2(out_dir[1], out_dir[0])
    options = []
    for da in np.linspace(-1.3, 1.3, 27):
        d = np.array([math.cos(base + da), math.sin(base + da)])
        for step in np.arange(4, max(W, H) * 0.5, 4):
            t = d * step
            m = mp + t
            inside = ((m[:, 0] >= 0) & (m[:, 0] <= W - 1) & (m[:, 1] >= 0) & (m[:, 1] <= H - 1))
            k = kp + t
            if (k[:, 0].min() < margin or k[:, 1].min() < margin or k[:, 0].max() > W - 1 - margin
                    or k[:, 1].max() > H - 1 - margin):
                break
            if inside.mean() <= 0.65:
                options.append(t)
                break
    if not options:
        return None
    t = options[int(rng.integers(0, len(options)))]
    return np.array([[1, 0, t[0]], [0, 1, t[1]], [0, 0, 1]]) @ hm


def _draw_occluder(rng: np.random.Generator, img: np.ndarray, poly_img: np.ndarray, kind: str
                   ) -> None:
    """Paint a fingertip or a note (with its soft shadow) over the image, in place."""
    H, W = img.shape[:2]
    x0, y0 = np.floor(poly_img.min(axis=0)).astype(int) - 40
    x1, y1 = np.ceil(poly_img.max(axis=0)).astype(int) + 40
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    crop = img[y0:y1, x0:x1].astype(np.float32)
    mask = np.zeros(crop.shape[:2], np.float32)
    pts = np.round((poly_img - [x0, y0]) * 16).astype(np.int32)
    cv2.fillPoly(mask, [pts], 1.0, cv2.LINE_AA, shift=4)
    span = float(np.ptp(poly_img, axis=0).max())
    shadow = cv2.GaussianBlur(np.roll(mask, (int(span * 0.04), int(span * 0.03)), (0, 1)),
                              (0, 0), max(1.0, span * 0.03))
    crop *= (1 - 0.45 * shadow)[..., None]
    if kind == "finger":
        colour = np.array(_pick(rng, ((120, 150, 200), (90, 120, 170), (60, 85, 125),
                                      (140, 170, 215)), (1, 1, 1, 1)), np.float32)
        dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
        tone = 0.65 + 0.45 * np.clip(dist / max(1.0, dist.max()), 0, 1) ** 0.5
    else:
        colour = np.array(_pick(rng, ((120, 240, 250), (200, 230, 160), (210, 160, 250),
                                      (245, 245, 245)), (2, 1, 1, 1)), np.float32)
        tone = np.full(mask.shape, 0.97, np.float32)
    fill = tone[..., None] * colour[None, None, :]
    crop = crop * (1 - mask[..., None]) + fill * mask[..., None]
    img[y0:y1, x0:x1] = np.clip(crop, 0, 255).astype(np.uint8)


def _photo(rng: np.random.Generator, profile: str, page: Page, edition: str, paper: str,
           inks: list[Ink], style: InkStyle) -> tuple[np.ndarray, dict[str, Any], tuple[int, ...],
                                                      np.ndarray, Curl]:
    """The phone photo (BGR, before compression) and its parameters."""
    spec = PHOTO_SPECS[profile]
    sizes = [s for s, _ in spec.sizes]
    W, H = _pick(rng, sizes, [wt for _, wt in spec.sizes])
    if rng.random() < 0.55:
        W, H = H, W  # held upright
    page_mm = page.size_mm
    hm, cam = _camera(rng, spec, page_mm, (W, H))
    curl = _curl(rng, spec, page_mm)
    missing: tuple[int, ...] = ()
    occluder: tuple[np.ndarray, str] | None = None
    if profile == "corner-cut":
        target = int(rng.integers(0, 4))
        how = "frame" if rng.random() < 0.6 else "cover"
        shifted = _frame_shift(rng, hm, curl, page, target, (W, H), 12.0) if how == "frame" else None
        if shifted is not None:
            hm = shifted
        else:
            how = "cover"
            occluder = _occluder(rng, page, target)
            if occluder is None:  # pragma: no cover - the sheet always has room for one
                raise RuntimeError("no occluder fits this sheet")
        missing = (target,)
        cam["corner_cut"] = {"marker": target, "how": how,
                             **({"occluder": occluder[1]} if occluder else {})}
    lo, hi = _px_per_mm(hm, page_mm)
    dpi = _render_dpi(hi * 25.4)
    raster = _page_raster(rng, edition, paper, page.manifest.page_size, inks, style, dpi)
    ph, pw = raster.shape[:2]
    # output -> page maps, sampled every `step` px and interpolated
    step = 8 if max(W, H) > 1600 else 4
    grid, _ = _grid((W, H), step)
    inv = np.linalg.inv(hm)
    mm = _apply_h(inv, grid)
    mm_src = mm + curl(mm)
    src = mm_src * np.array(_raster_scale(raster, page)) - 0.5
    map_x = cv2.resize(src[..., 0].astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    map_y = cv2.resize(src[..., 1].astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    page4 = cv2.cvtColor(raster, cv2.COLOR_BGR2BGRA)
    warped = cv2.remap(page4, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                       borderValue=(0, 0, 0, 0))
    del map_x, map_y, page4
    alpha = cv2.extractChannel(warped, 3)
    # the table, at a quarter of the resolution, with the page's shadow on it
    bs = 4 if max(W, H) > 1600 else 2
    bw, bh = math.ceil(W / bs), math.ceil(H / bs)
    bg, bg_kind = _background(rng, bw, bh, spec.clutter)
    inside = ((src[..., 0] >= 0) & (src[..., 0] <= pw - 1) & (src[..., 1] >= 0)
              & (src[..., 1] <= ph - 1)).astype(np.float32)
    shadow = cv2.resize(inside, (bw, bh), interpolation=cv2.INTER_LINEAR)
    off = rng.normal(0, 0.006, 2) * max(bw, bh)
    shadow = cv2.warpAffine(shadow, np.array([[1, 0, off[0]], [0, 1, off[1]]], np.float32),
                            (bw, bh))
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, 0.008 * max(bw, bh)))
    drop = float(rng.uniform(0.15, 0.45))
    bg = (bg * (1 - drop * shadow)[..., None]).astype(np.uint8)
    bg = cv2.resize(bg, (W, H), interpolation=cv2.INTER_LINEAR)
    inv_a = cv2.cvtColor(255 - alpha, cv2.COLOR_GRAY2BGR)
    img = cv2.add(cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR), cv2.multiply(bg, inv_a, scale=1 / 255))
    del warped, bg, inv_a
    if occluder is not None:
        _draw_occluder(rng, img, _to_image(hm, curl, occluder[0]), occluder[1])
    # light
    corners = _to_image(hm, curl, np.array([[0, 0], [page_mm[0], 0], page_mm, [0, page_mm[1]]]))
    shade = curl.height(mm) * inside if abs(curl.lift) > 0.2 else None
    gain, light = _lighting(rng, spec, grid, (W, H), corners, shade)
    gain8 = np.clip(gain * 128, 0, 255).astype(np.uint8)
    img = cv2.multiply(img, cv2.resize(gain8, (W, H), interpolation=cv2.INTER_LINEAR),
                       scale=1 / 128)
    # optics and sensor
    mp_scale = math.sqrt(W * H / 12e6)
    blur_kind = "motion" if rng.random() < spec.motion else "defocus"
    blur = float(rng.uniform(*spec.blur)) * mp_scale
    angle = float(rng.uniform(0, math.pi))
    blur_px = blur if blur_kind == "defocus" else blur * 2  # sigma, or the smear's length
    img = _blur(img, blur_kind, blur_px, angle)
    sharpen = float(rng.uniform(0.2, 0.7)) if rng.random() < 0.5 else 0.0
    img = _sharpen(img, sharpen, 1.2 * max(0.5, mp_scale))
    noise = float(rng.uniform(*spec.noise))
    img = _add_noise(img, rng, noise, noise * 0.6, 2 if max(W, H) > 1600 else 1)
    markers = {int(fid): [[_f(v, 2) for v in p] for p in _to_image(hm, curl, c)]
               for fid, c in page.marker_corners_mm().items()}
    meta = {"size": [W, H], "megapixels": _f(W * H / 1e6, 2), "render_dpi": dpi,
            "page_dpi": [_f(lo * 25.4, 1), _f(hi * 25.4, 1)], "camera": cam,
            "curl": curl.to_meta(), "background": bg_kind, "page_shadow": _f(drop),
            "lighting": light,
            "blur": {"kind": blur_kind, "px": _f(blur_px),
                     "angle_deg": _f(math.degrees(angle), 1)},
            "sharpen": _f(sharpen), "noise_sigma": _f(noise),
            "homography_mm_to_px": [[float(v) for v in row] for row in hm],
            "markers": markers}
    return img, meta, missing, hm, curl


# --- the flatbed scanner ------------------------------------------------------------------------
def _photocopy(rng: np.random.Generator, img: np.ndarray, dpi: int) -> tuple[np.ndarray,
                                                                             dict[str, Any]]:
    """The look of a photocopy: grey, high contrast, toner specks and haze, soft."""
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    lo, hi = float(rng.uniform(20, 55)), float(rng.uniform(195, 235))
    gamma = float(rng.uniform(0.8, 1.25))
    x = np.arange(256, dtype=np.float64)
    lut = np.clip(((x - lo) / (hi - lo)).clip(0, 1) ** gamma * 255, 0, 255).astype(np.uint8)
    grey = cv2.LUT(grey, lut)
    h, w = grey.shape
    specks = int(rng.uniform(2e-5, 2e-4) * h * w)
    ys, xs = rng.integers(0, h, specks), rng.integers(0, w, specks)
    sz = max(1, dpi // 150)
    for yy, xx, v in zip(ys.tolist(), xs.tolist(), rng.integers(0, 120, specks).tolist(),
                         strict=True):
        grey[yy:yy + sz, xx:xx + sz] = np.minimum(grey[yy:yy + sz, xx:xx + sz], v)
    haze = int(rng.integers(0, 12))
    if haze:
        grey = cv2.subtract(grey, np.full_like(grey, haze))
    sigma = float(rng.uniform(0.4, 0.9)) * dpi / 300
    grey = cv2.GaussianBlur(grey, (0, 0), sigma)
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), {"black": _f(lo, 1), "white": _f(hi, 1),
                                                    "gamma": _f(gamma), "specks": specks,
                                                    "haze": haze, "blur_px": _f(sigma)}


def _scan(rng: np.random.Generator, profile: str, page: Page, edition: str, paper: str,
          inks: list[Ink], style: InkStyle) -> tuple[np.ndarray, dict[str, Any], np.ndarray]:
    """A flatbed scan (BGR or grey, before compression) and its parameters."""
    suffix = profile.rsplit("-", 1)[-1]  # scan-300: 300 dpi; scan, short-ticks-scan: any
    dpi = (int(suffix) if suffix.isdigit()
           else int(_pick(rng, (150, 200, 300, 400, 600), (2, 1, 3, 1, 1))))
    rdpi = _render_dpi(min(dpi, MAX_RENDER_DPI))
    raster = _page_raster(rng, edition, paper, page.manifest.page_size, inks, style, rdpi)
    copy_meta: dict[str, Any] | None = None
    copy_turn, copy_shift = 0.0, np.zeros(2)
    if rng.random() < 0.25:
        raster, copy_meta = _photocopy(rng, raster, rdpi)
        copy_turn = float(rng.uniform(-0.7, 0.7))
        copy_shift = rng.uniform(-1.5, 1.5, 2)
        copy_meta.update(turn_deg=_f(copy_turn), shift_mm=[_f(v) for v in copy_shift])
    W = round(SCAN_BED_MM[0] / 25.4 * dpi)
    H = round(SCAN_BED_MM[1] / 25.4 * dpi)
    pw, ph = page.size_mm
    scale = 1.0 if rng.random() < 0.4 else float(rng.uniform(0.9, 1.0))
    skew = float(rng.uniform(-2, 2))
    flip = rng.random() < 0.1
    off = rng.uniform(0.5, 4.0, 2)

    def rot(deg: float, about: np.ndarray) -> np.ndarray:
        a = math.radians(deg)
        r = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
        t = np.array([[1, 0, about[0]], [0, 1, about[1]], [0, 0, 1]])
        return t @ r @ np.linalg.inv(t)

    centre = np.array([pw / 2, ph / 2])
    # content mm -> paper mm: printed at `scale` about the centre (+ the copier's slip)
    fit = (np.array([[1, 0, copy_shift[0]], [0, 1, copy_shift[1]], [0, 0, 1]])
           @ rot(copy_turn, centre)
           @ np.array([[scale, 0, centre[0] * (1 - scale)], [0, scale, centre[1] * (1 - scale)],
                       [0, 0, 1]]))
    # paper mm -> bed mm: maybe upside down, skewed, placed against the corner of the glass.
    # Letter is as wide as the glass, so a skewed sheet loses a strip of its edge (nothing
    # is printed there); the skew is reduced until every marker and its quiet zone is on it.
    turn = rot(180.0, centre) if flip else np.eye(3)
    paper = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]])
    guard = np.concatenate([_grow_quad(page.rect_mm(f.rect), f.quiet * MM_PER_PT)
                            for f in page.manifest.fiducials])
    bed = np.array(SCAN_BED_MM)
    for _ in range(12):
        place = rot(skew, np.zeros(2)) @ turn
        corners = _apply_h(place, paper)
        shift = off - corners.min(axis=0)
        span = corners.max(axis=0) - corners.min(axis=0)
        shift = np.where(span + off > bed, (bed - span) / 2 - corners.min(axis=0), shift)
        place = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]]) @ place
        g = _apply_h(place @ fit, guard)
        if g.min() >= 0.3 and (g.max(axis=0) <= bed - 0.3).all():
            break
        skew *= 0.6
    px_mm = dpi / 25.4
    to_px = np.array([[px_mm, 0, -0.5], [0, px_mm, -0.5], [0, 0, 1]])
    content = to_px @ place @ fit  # content mm -> image px
    rx, ry = _raster_scale(raster, page)
    raster_to_mm = np.array([[1 / rx, 0, 0.5 / rx], [0, 1 / ry, 0.5 / ry], [0, 0, 1]])
    a = (content @ raster_to_mm)[:2]
    # the paper (slightly tinted) on the lid: the lid is painted around the paper's outline
    # (an even-odd fill of the glass minus the paper), with the edge's thin shadow
    tint = rng.uniform(0.95, 1.0, 3)
    raster = cv2.multiply(raster, (*(float(t) for t in tint), 1.0))
    paper_colour = tuple(float(255 * t) for t in tint)
    img = cv2.warpAffine(raster, a, (W, H), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=paper_colour)
    paper_px = _apply_h(to_px @ place, np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]]))
    glass = np.array([[-4, -4], [W + 4, -4], [W + 4, H + 4], [-4, H + 4]], np.float64)
    lid_open = rng.random() < 0.1
    lid_level = int(rng.integers(8, 30)) if lid_open else int(rng.integers(215, 248))
    outline = np.round(paper_px * 16).astype(np.int32)
    cv2.fillPoly(img, [np.round(glass * 16).astype(np.int32), outline], (lid_level,) * 3,
                 cv2.LINE_AA, shift=4)
    cv2.polylines(img, [outline], True, (lid_level * 0.55,) * 3, max(1, round(dpi / 150)),
                  cv2.LINE_AA, shift=4)
    grey = rng.random() < 0.3
    if grey:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    sigma = float(rng.uniform(0.3, 0.7)) * dpi / 300 if dpi <= rdpi else 0.0
    if sigma > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    noise = float(rng.uniform(0.8, 2.5))
    img = _add_noise(img, rng, noise, noise * 0.3, 2 if dpi >= 300 else 1)
    hm = content
    markers = {int(fid): [[_f(v, 2) for v in p] for p in _apply_h(hm, c)]
               for fid, c in page.marker_corners_mm().items()}
    meta = {"size": [W, H], "megapixels": _f(W * H / 1e6, 2), "dpi": dpi, "render_dpi": rdpi,
            "fit_scale": _f(scale), "skew_deg": _f(skew), "upside_down": flip,
            "offset_mm": [_f(v) for v in off], "lid": "open" if lid_open else "closed",
            "colour": "grey" if grey else "colour", "photocopy": copy_meta,
            "blur_px": _f(sigma), "noise_sigma": _f(noise),
            "homography_mm_to_px": [[float(v) for v in row] for row in hm],
            "markers": markers}
    return img, meta, hm


# --- the case -----------------------------------------------------------------------------------
def _encode(rng: np.random.Generator, img: np.ndarray, profile: str) -> tuple[bytes, str,
                                                                              dict[str, Any]]:
    if profile in PHOTO_PROFILES:
        spec = PHOTO_SPECS[profile]
        q = round(spec.jpeg[0] + (spec.jpeg[1] - spec.jpeg[0]) * rng.random() ** 0.7)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        fmt: dict[str, Any] = {"format": "jpeg", "jpeg_quality": q}
        ext = ".jpg"
    elif profile in SCAN_PROFILES and rng.random() < (0.4 if img.shape[0] < 4000 else 0.8):
        # scanners save colour at high resolution as JPEG more often than not
        q = int(rng.integers(75, 96))
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        fmt, ext = {"format": "jpeg", "jpeg_quality": q}, ".jpg"
    else:
        ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1,
                                             cv2.IMWRITE_PNG_STRATEGY,
                                             cv2.IMWRITE_PNG_STRATEGY_RLE])
        fmt, ext = {"format": "png"}, ".png"
    if not ok:  # pragma: no cover
        raise RuntimeError("image encoding failed")
    return buf.tobytes(), ext, fmt


def make_case(seed: int, profile: str, edition: str = "later", paper: str = "letter") -> Case:
    """One synthetic photo or scan of a filled career sheet, with its ground truth."""
    from sheets.render import layout

    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r} (use {', '.join(PROFILES)})")
    edition = normalise_edition(edition)
    manifest = layout(KIND, edition, paper)
    paper = manifest.paper
    rules = load_rules(edition)
    t0 = time.perf_counter()
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFFFFFF, PROFILES.index(profile)])
    state, truth, inks, style, plan_meta = _plan(rng, profile, rules, manifest)
    page = Page(manifest)
    missing: tuple[int, ...] = ()
    if profile in PHOTO_PROFILES:
        img, geo, missing, _, _ = _photo(rng, profile, page, edition, paper, inks, style)
    elif profile in SCAN_PROFILES:
        img, geo, _ = _scan(rng, profile, page, edition, paper, inks, style)
    else:
        dpi = int(_pick(rng, (150, 200, 300), (1, 2, 1)))
        img = _page_raster(rng, edition, paper, manifest.page_size, inks, style, dpi)
        sx, sy = _raster_scale(img, page)
        hm = np.array([[sx, 0, -0.5], [0, sy, -0.5], [0, 0, 1]])
        geo = {"size": [img.shape[1], img.shape[0]],
               "megapixels": _f(img.shape[0] * img.shape[1] / 1e6, 2), "dpi": dpi,
               "render_dpi": dpi, "homography_mm_to_px": [[float(v) for v in r] for r in hm],
               "markers": {int(fid): [[_f(v, 2) for v in p] for p in _apply_h(hm, c)]
                           for fid, c in page.marker_corners_mm().items()}}
    encoded, ext, fmt = _encode(rng, img, profile)
    meta = {"version": VERSION, "profile": profile, "edition": edition, "paper": paper,
            "code": manifest.code, **plan_meta, **geo, **fmt, "missing_markers": list(missing),
            "generate_ms": _f((time.perf_counter() - t0) * 1000, 1)}
    return Case(int(seed), profile, edition, paper, encoded, ext, state, truth, missing, meta)


def case_seed(base: int, name: str, index: int) -> int:
    """A stable seed for case `index` of the set `name` (independent of other sets)."""
    import hashlib

    digest = hashlib.sha256(f"{base}:{name}:{index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def write_case(case: Case, directory: Path, stem: str) -> Path:
    """Write the image and `<stem>.json` (Case.record() minus timing) into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{stem}{case.ext}"
    path.write_bytes(case.encoded)
    rec = case.record()
    rec["meta"] = {k: v for k, v in rec["meta"].items() if k != "generate_ms"}
    (directory / f"{stem}.json").write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m scanner.synthetic PROFILE [--seed N] [--count K] [-o DIR]`: write cases."""
    p = argparse.ArgumentParser(prog="python -m scanner.synthetic",
                                description="Write synthetic sheet photos/scans and their truth.")
    p.add_argument("profile", choices=PROFILES)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--edition", default="later")
    p.add_argument("--paper", default="letter", choices=("letter", "a4"))
    p.add_argument("-o", "--out", type=Path, default=Path("synthetic"))
    args = p.parse_args(argv)
    emit: Callable[[str], Any] = sys.stderr.write
    for k in range(args.count):
        case = make_case(args.seed + k, args.profile, args.edition, args.paper)
        path = write_case(case, args.out, f"{args.profile}-{args.seed + k:06d}")
        emit(f"{path}  {case.meta['size'][0]}x{case.meta['size'][1]}  "
             f"{case.meta['generate_ms']:.0f} ms\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
