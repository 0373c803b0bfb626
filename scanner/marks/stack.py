"""What the blank sheet gives once per template: anchor tiles for registration, and every
checkbox and bubble as one stack of equal patches with its masks (inside, printed text,
centre, the zone near print, the paper ring, the rim), so a sheet is read with numpy on
the whole stack rather than box by box.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from scanner.marks.arrays import _cycled
from scanner.marks.state import is_executed
from scanner.template import RegionGeom, Template

ANCHOR_DPI = 50.0  # registration runs at this resolution
ANCHOR_MM = 5.0  # anchors are searched +-5 mm around where the homography puts them
ANCHOR_TILE_MM = 10.0  # an anchor tile's side
ANCHOR_CELL_MM = 14.0  # at most one anchor per cell of this size
SIDE_SEEN, SIDE_INKED = 0.3, 0.4  # ... unless the rim, seen on three sides or more (each along
#   SIDE_SEEN of the box's edge), is inked along SIDE_INKED of each side's length on every
#   side (a correction's loop: cancelled) or on one side at most (a neighbour's mark or a
#   stroke passing by: coloured in). The bench's corrections ink 2 sides or more at 0.61 and
#   over (all their sides seen over HALO_CANCEL); boxes coloured in with such ink nearby,
#   one side, or 2-3 of 4 (review) (docs/scanner.md)
REACH_MM = 2.0  # a mark reaches this far past its own box (a tick's arm, a loop, a spill):
#   a box within it of a side of another's rim may have put ink there (Rim.facing)


@dataclass(frozen=True)
class Anchors:
    """Tiles of the blank sheet at ANCHOR_DPI with printed structure in two directions."""

    scale: int  # canvas pixels per anchor pixel
    small: np.ndarray  # the blank sheet at ANCHOR_DPI (float32)
    tiles: np.ndarray  # (n, 4): u0, v0 (anchor pixels), size, size
    strength: np.ndarray  # (n,) how distinct each tile is


@dataclass(frozen=True)
class Rim:
    """The fixed geometry of the band around a box (RegionGeom.halo), worked out once per
    template: each pixel's distance from the box's outline (mm), and the sides of the box
    the band shows along SIDE_SEEN of its edge (rows, columns, the axis along the side,
    and which positions along it the band holds)."""

    bounds: tuple[int, int, int, int]  # u0, v0, u1, v1 on the canvas (RegionGeom.halo)
    mask: np.ndarray
    dist: np.ndarray
    sides: tuple[tuple[slice, slice, int, np.ndarray], ...]
    facing: tuple[np.ndarray, ...] = ()  # per side seen: the stack indices of the boxes
    #                                      beyond it within REACH_MM (_facing)


@dataclass(frozen=True)
class Stack:
    """The checkboxes and bubbles of a template as one stack of equal patches."""

    index: np.ndarray  # (N,) positions in tpl.regions
    ids: tuple[str, ...]
    origin: np.ndarray  # (N, 2): u, v of each patch's top-left corner on the canvas
    size: tuple[int, int]  # P, Q: the patch rows, columns
    inside: np.ndarray  # (N, P, Q) bool
    centre: np.ndarray
    clear: np.ndarray
    near: np.ndarray  # inside & ~clear
    text: np.ndarray
    ring: np.ndarray  # (N, R) flat indices of the paper ring (cycled to a common length)
    has_ring: np.ndarray  # (N,) bool
    inside_idx: np.ndarray  # (N, L) flat indices of the inside (cycled)
    clear_idx: np.ndarray  # (N, Lc) of the clear part (printed boxes; cycled)
    near_idx: np.ndarray  # (N, Ln) of the part near print (printed boxes; cycled)
    ink_max: np.ndarray  # (N, P, Q) float32: the template's darkness, 3x3 maximum
    tone: np.ndarray  # (N,) the template's paper tone around each box (its top tenth)
    printed: np.ndarray  # (N,) bool: text printed inside
    executed: np.ndarray  # (N,) bool: an Executed box (slash = failed)
    n_inside: np.ndarray  # (N,) pixels in `inside`
    n_centre: np.ndarray
    n_text: np.ndarray
    near_boxes: tuple[np.ndarray, ...]  # per box: the stack indices of boxes within 25 mm
    core_idx: np.ndarray  # (N, Lk): the inside 3 px in from its edge (the outline's blur
    #                       lands on the edge), cycled: where the paper's noise is measured
    n_core: np.ndarray
    rims: tuple[Rim | None, ...]  # per box: its rim's geometry (halo_ink)
    ring_xy: tuple[np.ndarray, ...]  # x, y of `ring`'s pixels, from the patch's centre,
    #                                       in patch widths and heights (_light_slope)


_CACHE: dict[int, tuple[Template, Anchors, Stack]] = {}


def _prepared(tpl: Template) -> tuple[Anchors, Stack]:
    """Anchors and the patch stack of a template (computed once per template)."""
    hit = _CACHE.get(id(tpl))
    if hit is not None and hit[0] is tpl:
        return hit[1], hit[2]
    out = (_anchors(tpl), _stack(tpl))
    if len(_CACHE) > 8:
        _CACHE.clear()
    _CACHE[id(tpl)] = (tpl, *out)
    return out


def _anchors(tpl: Template) -> Anchors:
    scale = max(1, round(tpl.dpi / ANCHOR_DPI))
    h, w = tpl.gray.shape
    small = cv2.resize(tpl.gray[: h - h % scale, : w - w % scale], (w // scale, h // scale),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    dpi = tpl.dpi / scale
    t = max(8, round(ANCHOR_TILE_MM / 25.4 * dpi))
    cell = max(t, round(ANCHOR_CELL_MM / 25.4 * dpi))
    margin = round(ANCHOR_MM / 25.4 * dpi) + 1
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3)
    # structure tensor over tiles: the smaller eigenvalue is high where lines cross
    kx, ky, kxy = (cv2.boxFilter(a, -1, (t, t), normalize=True, anchor=(0, 0))
                   for a in (gx * gx, gy * gy, gx * gy))
    tr, det = kx + ky, kx * ky - kxy * kxy
    lam = tr / 2 - np.sqrt(np.maximum(tr * tr / 4 - det, 0))
    H, W = small.shape
    tiles, strength = [], []
    for v0 in range(margin, H - t - margin, cell):
        for u0 in range(margin, W - t - margin, cell):
            sub = lam[v0:v0 + cell - t + 1, u0:u0 + cell - t + 1]
            if sub.size == 0:
                continue
            k = int(np.argmax(sub))
            dv, du = divmod(k, sub.shape[1])
            if sub.flat[k] > 200.0:  # a few crossing lines (Sobel units, 0..255 image)
                tiles.append((u0 + du, v0 + dv, t, t))
                strength.append(float(sub.flat[k]))
    return Anchors(scale, small, np.array(tiles, int).reshape(-1, 4),
                   np.array(strength, np.float32))


def _ring_tone(tpl: Template, g: RegionGeom) -> float:
    """The template's gray on the brightest tenth of a box's ring (the statistic measured
    on the photo: a ring half white, half tinted has white as its top tenth)."""
    if g.ring is None or not g.ring.any():
        return g.paper_tone
    pu0, pv0, pu1, pv1 = g.patch
    sel = np.sort(tpl.gray[pv0:pv1, pu0:pu1][g.ring].astype(np.float64))
    k = max(1, sel.size // 10)
    return float(sel[-k:].mean())


def _near_boxes(geoms: list[RegionGeom], dpi: float) -> tuple[np.ndarray, ...]:
    c = np.array([((g.box[0] + g.box[2]) / 2, (g.box[1] + g.box[3]) / 2) for g in geoms])
    dist = np.hypot(c[:, None, 0] - c[None, :, 0], c[:, None, 1] - c[None, :, 1])
    reach = 25.0 / 25.4 * dpi
    return tuple(np.flatnonzero((row < reach) & (row > 0)) for row in dist)


def _facing(rims: list[Rim | None], geoms: list[RegionGeom], dpi: float
            ) -> tuple[Rim | None, ...]:
    """Each rim with, per side seen, the other boxes beyond that side (past the box's
    edge there) within REACH_MM of its band: those whose marks may ink it."""
    reach = REACH_MM / 25.4 * dpi
    boxes = np.array([g.box for g in geoms], np.float64).reshape(-1, 4)
    out: list[Rim | None] = []
    for k, rim in enumerate(rims):
        if rim is None:
            out.append(None)
            continue
        u0, v0 = rim.bounds[0], rim.bounds[1]
        h, w = rim.mask.shape
        bu0, bv0, bu1, bv1 = boxes[k]
        facing = []
        for rows, cols, _, _ in rim.sides:
            r0, r1, _ = rows.indices(h)
            c0, c1, _ = cols.indices(w)
            su0, sv0, su1, sv1 = u0 + c0, v0 + r0, u0 + c1, v0 + r1
            if sv1 <= bv0 + 1:  # the band above the box: the boxes wholly above it
                beyond = boxes[:, 3] <= bv0 + 1
            elif sv0 >= bv1 - 1:  # below
                beyond = boxes[:, 1] >= bv1 - 1
            elif su1 <= bu0 + 1:  # left
                beyond = boxes[:, 2] <= bu0 + 1
            else:  # right
                beyond = boxes[:, 0] >= bu1 - 1
            near = (beyond & (boxes[:, 0] - reach < su1) & (boxes[:, 2] + reach > su0)
                    & (boxes[:, 1] - reach < sv1) & (boxes[:, 3] + reach > sv0))
            near[k] = False
            facing.append(np.flatnonzero(near))
        out.append(replace(rim, facing=tuple(facing)))
    return tuple(out)


def _stack(tpl: Template) -> Stack:
    sel = [k for k, g in enumerate(tpl.regions) if g.region.kind in ("checkbox", "bubble")]
    geoms = [tpl.regions[k] for k in sel]
    if not geoms:
        z = np.zeros((0, 1, 1), bool)
        zi = np.zeros((0, 1), np.int64)
        return Stack(np.array(sel, int), (), np.zeros((0, 2), int), (1, 1), z, z, z, z, z, zi,
                     np.zeros(0, bool), zi, zi, zi, np.zeros((0, 1, 1), np.float32),
                     np.zeros(0), np.zeros(0, bool), np.zeros(0, bool), np.zeros(0),
                     np.zeros(0), np.zeros(0), (), zi, np.zeros(0), (),
                     (np.zeros((0, 1)), np.zeros((0, 1))))
    P = max(g.patch[3] - g.patch[1] for g in geoms)
    Q = max(g.patch[2] - g.patch[0] for g in geoms)

    def pad(a: np.ndarray, fill: float | bool = False) -> np.ndarray:
        out = np.full((P, Q), fill, a.dtype)
        out[: a.shape[0], : a.shape[1]] = a
        return out

    inside = np.stack([pad(g.inside) for g in geoms])
    cores = [cv2.erode(i.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0 for i in inside]
    centre = np.stack([pad(g.centre) for g in geoms])
    clear = np.stack([pad(g.clear) for g in geoms])
    text = np.stack([pad(g.text) for g in geoms])
    near = inside & ~clear
    rings = [pad(g.ring) if g.ring is not None else np.zeros((P, Q), bool) for g in geoms]
    ink_max = np.stack([pad(tpl.ink_max[g.patch[1]:g.patch[3], g.patch[0]:g.patch[2]], 1.0)
                        for g in geoms]).astype(np.float32)
    printed = np.array([bool(g.region.printed) for g in geoms])
    ring = _cycled(rings)
    ring_y, ring_x = np.divmod(ring, Q)
    return Stack(
        index=np.array(sel, int), ids=tuple(g.region.id for g in geoms),
        origin=np.array([(g.patch[0], g.patch[1]) for g in geoms], int), size=(P, Q),
        inside=inside, centre=centre, clear=clear, near=near, text=text,
        ring=ring, has_ring=np.array([g.ring is not None for g in geoms]),
        inside_idx=_cycled(list(inside)),
        clear_idx=_cycled([c if p else i for c, i, p in zip(clear, inside, printed,
                                                            strict=True)]),
        near_idx=_cycled([n if p and n.any() else i for n, i, p in zip(near, inside, printed,
                                                                       strict=True)]),
        ink_max=ink_max, tone=np.array([_ring_tone(tpl, g) for g in geoms], np.float64),
        printed=printed, executed=np.array([is_executed(g.region.id) for g in geoms]),
        n_inside=inside.sum(axis=(1, 2)), n_centre=(centre & inside).sum(axis=(1, 2)),
        n_text=text.sum(axis=(1, 2)), near_boxes=_near_boxes(geoms, tpl.dpi),
        core_idx=_cycled(cores), n_core=np.array([c.sum() for c in cores]),
        rims=_facing([_rim(g, tpl.dpi) for g in geoms], geoms, tpl.dpi),
        ring_xy=((ring_x - Q / 2) / Q, (ring_y - P / 2) / P))


def _rim(g: RegionGeom, dpi: float) -> Rim | None:
    """A box's Rim (None when it has no band around it)."""
    if g.halo_mask is None or not g.halo_mask.any():
        return None
    u0, v0, u1, v1 = g.halo
    bu0, bv0, bu1, bv1 = g.box
    vv, uu = np.mgrid[v0:v1, u0:u1]
    dist = np.hypot(np.maximum(np.maximum(bu0 - uu, uu - bu1), 0),
                    np.maximum(np.maximum(bv0 - vv, vv - bv1), 0)) / (dpi / 25.4)
    m = g.halo_mask
    bu0, bv0, bu1, bv1 = max(0, bu0 - u0), max(0, bv0 - v0), bu1 - u0, bv1 - v0
    strips = ((slice(None, bv0), slice(bu0, bu1), 0), (slice(bv1, None), slice(bu0, bu1), 0),
              (slice(bv0, bv1), slice(None, bu0), 1), (slice(bv0, bv1), slice(bu1, None), 1))
    sides = []
    for rows, cols, axis in strips:
        if m[rows, cols].size == 0:
            continue
        along = m[rows, cols].any(axis=axis)
        if along.mean() >= SIDE_SEEN:
            sides.append((rows, cols, axis, along))
    return Rim(g.halo, m, dist, tuple(sides))
