"""The truth's conventions, one mark one box: every mark kept inside its own box,
ticks' short arms kept in, corrections and stray marks placed where no box is touched (but
for the `strays` profiles' strokes grazing a box's edge), and the plan of everything drawn
on a case.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from game.opial.marks import BLANK, CANCELLED
from game.opial.rules import Rules
from game.opial.state import CareerState
from scanner.synthetic.common import MM_PER_PT, SHORT_TICKS, STRAYS, Truth, _f
from scanner.synthetic.ink import OUTLINE, InkStyle, _correction, _ink_style, _restyle
from scanner.synthetic.page import _content
from sheets.fill import DIGIT_STROKES, Ink, Stroke, plan_ink
from sheets.manifest import Manifest, Rect

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


def _quiet_zones(manifest: Manifest) -> list[Rect]:
    """The markers and the QR code with their quiet zones (x, y, w, h): no stray goes there."""
    return [(x - m.quiet, y - m.quiet, w + 2 * m.quiet, h + 2 * m.quiet)
            for m in (*manifest.fiducials, *manifest.qr) for x, y, w, h in [m.rect]]


def _stray_marks(rng: random.Random, manifest: Manifest, count: int, colour: tuple[float, ...],
                 width: float) -> tuple[list[Stroke], list[dict[str, Any]]]:
    """Marks beside boxes that are not in any region (doodles, a tally, an arrow)."""
    boxes = [r for r in manifest.regions if r.kind in ("checkbox", "bubble")]
    keep_out = [r.rect for r in manifest.regions] + _quiet_zones(manifest)
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


GRAZE_DEPTH = (0.06, 0.22)  # `strays`: how far past a box's outline a stray reaches, as a
#   share of its inside across that side (the middle half of the box is never touched)
GRAZE_SHAPES = ("dash", "tail", "along")


def _graze_shape(rng: random.Random, kind: str) -> list[tuple[float, float]]:
    """A stray's polyline in a frame where the box's side is the line y = 0, the box's
    inside is y > 0, and the stray's innermost point is (0, 1), moved later to the depth
    it reaches: a dash from outside, the tail of a neighbour's tick, or a line drawn along
    the side that dips in."""
    a = rng.uniform(-0.9, 0.9)  # off the side's normal
    if kind == "dash":
        n = rng.uniform(3.0, 9.0)
        return [(n * math.sin(a), 1.0 - n * math.cos(a)), (0.0, 1.0)]
    if kind == "tail":  # a tick beside the box whose long arm overruns into it
        n = rng.uniform(4.0, 8.0)
        vx, vy = n * math.sin(a), 1.0 - n * math.cos(a)
        s = rng.uniform(0.35, 0.5) * n
        b = a + rng.choice((-1, 1)) * rng.uniform(0.8, 1.3)
        return [(vx + s * math.sin(b + math.pi), vy - s * math.cos(b + math.pi)),
                (vx, vy), (0.0, 1.0)]
    n = rng.uniform(5.0, 12.0)  # along: a line crossing in and back out of the box's edge
    t = rng.uniform(0.15, 0.4)
    return [(-n / 2, 1.0 - n * t), (0.0, 1.0), (n / 2, 1.0 - n * t * rng.uniform(0.6, 1.4))]


def _near_ink(line: np.ndarray, pts: np.ndarray, gap: float) -> bool:
    """Whether any point of `line` lies within `gap` of any of `pts`."""
    dx = line[:, None, 0] - pts[None, :, 0]
    dy = line[:, None, 1] - pts[None, :, 1]
    return bool((dx * dx + dy * dy < gap * gap).any())


def _middle(rect: Rect) -> tuple[float, float, float, float]:
    """A box's middle half (its inside shrunk by a quarter on each side)."""
    x0, y0, x1, y1 = _inner(rect, OUTLINE)
    return (x0 + (x1 - x0) / 4, y0 + (y1 - y0) / 4, x1 - (x1 - x0) / 4,
            y1 - (y1 - y0) / 4)


GRAZE_CLEAR = 1.5  # pt: a grazing stray keeps this clear of every other stroke's ink


def _grazing_strays(rng: random.Random, manifest: Manifest, inks: list[Ink], count: int,
                    colour: tuple[float, ...], width: float
                    ) -> tuple[list[Stroke], list[dict[str, Any]]]:
    """Stray strokes that reach from outside a box a little way past its outline
    (GRAZE_DEPTH): a neighbour's tick overrunning, a dash, a line along a row. They may
    graze other boxes too, but never a box's middle half, a written field, a marker, the
    QR code or anything already drawn (GRAZE_CLEAR: a stray joining a box's slash would
    make a tick of it). Every box's truth is unchanged: it is what its own mark says."""
    drawn = [(_samples(s.points, 0.3), s.width) for s in inks if isinstance(s, Stroke)]
    boxes = [r for r in manifest.regions if r.kind in ("checkbox", "bubble")]
    middles = [_middle(r.rect) for r in boxes]
    keep_out = [(x, y, x + w, y + h) for x, y, w, h in
                [r.rect for r in manifest.regions if r.kind not in ("checkbox", "bubble")]
                + _quiet_zones(manifest)]
    px, py, pw, ph = manifest.printable
    col = (float(colour[0]), float(colour[1]), float(colour[2]))
    reach = width / 2 + 0.3
    strokes: list[Stroke] = []
    placed: list[dict[str, Any]] = []
    for _ in range(count):
        for _attempt in range(80):
            box = rng.choice(boxes)
            x0, y0, x1, y1 = _inner(box.rect, OUTLINE)
            side = rng.randrange(4)  # 0 top, 1 right, 2 bottom, 3 left
            across = (y1 - y0) if side in (0, 2) else (x1 - x0)
            along = (x1 - x0) if side in (0, 2) else (y1 - y0)
            # the stroke's innermost centre point: its ink reaches GRAZE_DEPTH of the box
            depth = rng.uniform(*GRAZE_DEPTH) * across - width / 2
            kind = rng.choice(GRAZE_SHAPES)
            u0 = rng.uniform(-0.3, 0.3) * along
            local = [(u0 + u, v - 1.0 + depth) for u, v in _graze_shape(rng, kind)]
            ends = (local[0], local[-1]) if kind == "along" else (local[0],)
            if max(v for _, v in ends) > -(OUTLINE + 1.0):
                continue  # it comes from outside the outline
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            pts = [[(cx + u, y0 + v) for u, v in local], [(x1 - v, cy + u) for u, v in local],
                   [(cx - u, y1 - v) for u, v in local], [(x0 + v, cy - u) for u, v in local]
                   ][side]
            line = _samples(pts, 0.2)
            if (line[:, 0].min() - reach < px or line[:, 1].min() - reach < py
                    or line[:, 0].max() + reach > px + pw or line[:, 1].max() + reach > py + ph):
                continue
            if any(_rect_dist(line, r).min() < reach for r in keep_out):
                continue
            if any(_rect_dist(line, m).min() < width / 2 + 0.2 for m in middles):
                continue
            lo, hi = line.min(axis=0) - 8.0, line.max(axis=0) + 8.0
            if any(_near_ink(line, pts_d, reach + w_d / 2 + GRAZE_CLEAR)
                   for pts_d, w_d in drawn
                   if ((pts_d >= lo) & (pts_d <= hi)).all(axis=1).any()):
                continue
            touched = [r.id for r in boxes
                       if _rect_dist(line, _inner(r.rect, OUTLINE)).min() < width / 2]
            strokes.append(Stroke(tuple((round(a, 3), round(b, 3)) for a, b in pts),
                                  round(width, 3), col))
            placed.append({"shape": kind, "box": box.id, "side": "trbl"[side],
                           "depth": _f((depth + width / 2) / across), "touches": touched})
            drawn.append((line, width))
            keep_out.append((float(line[:, 0].min()) - 1.0, float(line[:, 1].min()) - 1.0,
                             float(line[:, 0].max()) + 1.0, float(line[:, 1].max()) + 1.0))
            break
    return strokes, placed


def _plan(rng: np.random.Generator, profile: str, rules: Rules, manifest: Manifest,
          written: bool = False) -> tuple[CareerState, Truth, list[Ink], InkStyle, dict[str, Any]]:
    """State, truth and every stroke of the sheet (PDF points); `written`: as _content."""
    state, truth, sheet_meta = _content(rng, rules, written)
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
    grazing: list[dict[str, Any]] = []
    if profile in STRAYS:
        strokes, grazing = _grazing_strays(hand, manifest, inks, int(rng.integers(3, 9)),
                                           style.colour, base_width)
        inks.extend(strokes)
    meta = {"sheet": sheet_meta, "ink": style.to_meta(), "ink_seed": ink_seed,
            "corrections": corrections, "stray": stray, "grazing": grazing, "tidied": tidied,
            "marked": sum(1 for v in truth.values() if v not in (BLANK, None))}
    return state, truth, inks, style, meta
