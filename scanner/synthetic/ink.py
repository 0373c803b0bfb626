"""How the ink looks: the tool (blue or black pen, clean crosses, pencil, marker) restyled
from sheets.fill's plan, and corrections (a box filled solid, then scribbled over).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from scanner.synthetic.common import MM_PER_PT, SCAN_PROFILES, _f, _pick
from sheets.fill import INKS, Ink, Stroke
from sheets.manifest import Manifest, Rect

TOOLS = ("pen", "clean", "pencil", "marker")
TOOL_WEIGHTS = {"phone": (0.55, 0.08, 0.17, 0.20), "phone-easy": (0.65, 0.15, 0.08, 0.12),
                "corner-cut": (0.65, 0.15, 0.08, 0.12), "short-ticks": (0.65, 0.15, 0.08, 0.12),
                "strays": (0.65, 0.15, 0.08, 0.12),
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


CORR_RIM_MM = 0.6  # a correction's loop runs this far outside the box (less if crowded)
