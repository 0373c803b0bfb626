"""The blank sheet at the working resolution: what the printer put on the page.

`blank(code, dpi)` renders the unfilled sheet of a layout with pypdfium2 once per
process (about 0.1 s, cached) on exactly the canvas grid of scanner.rectify, and works
out per region, in canvas pixels: the patch the reader looks at, the box's inside less
its printed outline, less the text printed inside it (dilated, so a pixel of misalignment
or blur does not leave printed ink to be taken for a mark), and the centre of the box.
Everything the reader must not take for a mark is known from this rendering, never
typed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from scanner.rectify import canvas_size
from sheets.draw import BOX_LINE
from sheets.manifest import Manifest, Region
from starsheets.errors import MissingDependencyError

PRINTED_INK = 0.12  # template darkness above this is printer's ink
PRINTED_GROW_MM = 0.25  # printed ink is masked this much wider than drawn
CLEAR_MM = 0.3  # faint ink counts only this much further from printed text (blur halos)
MARGIN_MM = 0.6  # context kept around a box to align it on its outline
NEIGHBOURS_MM = 25.0  # a box's alignment is checked against the boxes this close
HALO_MM = (0.3, 0.9)  # the rim a correction inks (a box coloured in stays within 0.25 mm)


@dataclass(frozen=True)
class RegionGeom:
    """Where one region is on the canvas and which of its pixels the reader uses."""

    region: Region
    box: tuple[int, int, int, int]  # u0, v0, u1, v1: the outer edge, canvas pixels
    patch: tuple[int, int, int, int]  # the box with MARGIN_MM of context
    inside: np.ndarray  # bool, patch-shaped: the box's inside, printed ink excluded
    centre: np.ndarray  # bool, patch-shaped: the middle 60% of the inside
    printed: np.ndarray  # bool, patch-shaped: printed ink (grown), outline included
    clear: np.ndarray  # bool, patch-shaped: the inside, further still from printed ink
    inner: np.ndarray  # bool, patch-shaped: the inside, printed text included
    text: np.ndarray  # bool, patch-shaped: the text printed inside the box (grown)
    cells: tuple[tuple[int, int, int, int], ...] = ()  # digits: each cell's outer edge
    halo: tuple[int, int, int, int] = (0, 0, 0, 0)  # bounds of the band around the box
    halo_mask: np.ndarray | None = None  # bool: that band, less printed ink, other boxes
    ring: np.ndarray | None = None  # bool, patch-shaped: paper just around the box
    paper_tone: float = 255.0  # the template's gray on that ring (white or a tinted row)


@dataclass(frozen=True)
class Template:
    manifest: Manifest
    dpi: float
    gray: np.ndarray  # uint8 canvas of the blank sheet
    ink: np.ndarray  # float32 darkness 0..1 of the blank sheet
    paper: np.ndarray  # bool: plain paper (no printed ink nearby) at 1/4 scale
    regions: tuple[RegionGeom, ...]
    neighbours: tuple[np.ndarray, ...]  # per region: the indices of regions nearby
    ink_max: np.ndarray  # the template's darkness, 3x3 maximum (a pixel of misalignment)
    gray_f: np.ndarray  # the canvas as float32 (for matching)
    gray_half: np.ndarray  # ... at half resolution

    def by_id(self) -> dict[str, RegionGeom]:
        return {g.region.id: g for g in self.regions}


def region_px(r: tuple[float, float, float, float], page_h: float, s: float
              ) -> tuple[float, float, float, float]:
    """A manifest rect (points, origin bottom left) as pixel bounds (u0, v0, u1, v1) on a
    canvas of `s` px per point (origin top left)."""
    x, y, w, h = r
    return x * s, (page_h - y - h) * s, (x + w) * s, (page_h - y) * s


def _halo(region: Region, others: np.ndarray, printed_all: np.ndarray, page_h: float,
          s: float) -> tuple[tuple[int, int, int, int], np.ndarray]:
    """The rim HALO_MM around a box: plain paper (`printed_all`: the printed ink, not
    grown) that is no other region's."""
    u0, v0, u1, v1 = region_px(region.rect, page_h, s)
    near, far = (m / 25.4 * 72 * s for m in HALO_MM)
    H, W = printed_all.shape
    b = (max(0, int(u0 - far)), max(0, int(v0 - far)), min(W, int(np.ceil(u1 + far))),
         min(H, int(np.ceil(v1 + far))))
    vv, uu = np.mgrid[b[1]:b[3], b[0]:b[2]].astype(np.float32) + 0.5
    m = ~((uu > u0 - near) & (uu < u1 + near) & (vv > v0 - near) & (vv < v1 + near))
    m &= ~printed_all[b[1]:b[3], b[0]:b[2]]
    grow = 0.1 / 25.4 * 72 * s
    close = ((others[:, 2] + grow > b[0]) & (others[:, 0] - grow < b[2])
             & (others[:, 3] + grow > b[1]) & (others[:, 1] - grow < b[3]))
    for ou0, ov0, ou1, ov1 in others[close]:
        m &= ~((uu > ou0 - grow) & (uu < ou1 + grow) & (vv > ov0 - grow) & (vv < ov1 + grow))
    return b, m


def _geom(region: Region, gray: np.ndarray, printed_all: np.ndarray, printed_raw: np.ndarray,
          page_h: float, s: float, others: np.ndarray) -> RegionGeom:
    u0f, v0f, u1f, v1f = region_px(region.rect, page_h, s)
    m = MARGIN_MM / 25.4 * 72 * s
    H, W = gray.shape
    pu0, pv0 = max(0, int(u0f - m)), max(0, int(v0f - m))
    pu1, pv1 = min(W, int(np.ceil(u1f + m))), min(H, int(np.ceil(v1f + m)))
    vv, uu = np.mgrid[pv0:pv1, pu0:pu1].astype(np.float32)
    uu += 0.5  # pixel centres, in the page's continuous coordinates
    vv += 0.5
    line = BOX_LINE * s + 1.0  # the outline plus a pixel of slack
    if region.kind == "bubble":
        cu, cv = (u0f + u1f) / 2, (v0f + v1f) / 2
        rad = (u1f - u0f) / 2
        dist = np.hypot(uu - cu, vv - cv)
        inner = dist < rad - line
        centre = dist < (rad - line) * 0.6
    else:
        inner = (uu > u0f + line) & (uu < u1f - line) & (vv > v0f + line) & (vv < v1f - line)
        iw, ih = (u1f - u0f) - 2 * line, (v1f - v0f) - 2 * line
        cu, cv = (u0f + u1f) / 2, (v0f + v1f) / 2
        centre = (np.abs(uu - cu) < 0.3 * iw) & (np.abs(vv - cv) < 0.3 * ih)
    printed = printed_all[pv0:pv1, pu0:pu1]
    inside = inner & ~printed
    grow = max(1, round(PRINTED_GROW_MM / 25.4 * 72 * s))
    core = cv2.erode(inner.astype(np.uint8), np.ones((2 * grow + 3, 2 * grow + 3), np.uint8))
    kernel_g = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
    text = inner & (cv2.dilate((printed_raw[pv0:pv1, pu0:pu1] & (core > 0)).astype(np.uint8),
                               kernel_g) > 0)
    far = max(1, round(CLEAR_MM / 25.4 * 72 * s))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * far + 1, 2 * far + 1))
    clear = inside & ~(cv2.dilate((printed & inner).astype(np.uint8), kernel) > 0)
    cells = tuple(tuple(round(v) for v in region_px(c, page_h, s)) for c in region.cells)
    halo, halo_mask = ((0, 0, 0, 0), None)
    if region.kind in ("checkbox", "bubble"):
        me = np.array(region_px(region.rect, page_h, s))
        rest = others[np.any(np.abs(others - me) > 1e-6, axis=1)]
        halo, halo_mask = _halo(region, rest, printed_raw, page_h, s)
    box = (round(u0f), round(v0f), round(u1f), round(v1f))
    tg = gray[pv0:pv1, pu0:pu1]
    ring = np.ones(tg.shape, bool)
    ring[max(0, box[1] - pv0):box[3] - pv0, max(0, box[0] - pu0):box[2] - pu0] = False
    ring &= tg > 200  # paper (plain or tinted), not printed ink
    tone = float(np.median(tg[ring])) if ring.sum() >= 12 else 255.0
    return RegionGeom(region, box, (pu0, pv0, pu1, pv1), inside, centre & inside, printed,
                      clear, inner, text, cells, halo, halo_mask, ring if ring.sum() >= 12 else None,  # type: ignore[arg-type]
                      tone)


def render_blank(manifest: Manifest, dpi: float, page: int = 1) -> np.ndarray:
    """One page of the unfilled sheet as a grayscale canvas (the size scanner.rectify
    warps to)."""
    return blank_pages(manifest, dpi)[page - 1]


@lru_cache(maxsize=4)
def blank_pages(manifest: Manifest, dpi: float) -> tuple[np.ndarray, ...]:
    """Every page of the unfilled sheet or form as a canvas, rendered once per process."""
    try:
        import pypdfium2 as pdfium
    except ImportError:
        raise MissingDependencyError("reading marks needs pypdfium2 (to render the blank "
                                     "sheet)", "pip install pypdfium2") from None
    from sheets.render import drawn

    pdf = drawn(manifest.kind, manifest.edition, manifest.paper).pdf
    w, h = canvas_size(manifest.page_size, dpi)
    out = []
    doc = pdfium.PdfDocument(pdf)
    try:
        for i in range(len(doc)):
            arr = doc[i].render(scale=dpi / 72, grayscale=True).to_numpy()
            gray = np.ascontiguousarray(arr[..., 0] if arr.ndim == 3 else arr)
            canvas = np.full((h, w), 255, np.uint8)
            hh, ww = min(h, gray.shape[0]), min(w, gray.shape[1])
            canvas[:hh, :ww] = gray[:hh, :ww]
            out.append(canvas)
    finally:
        doc.close()
    return tuple(out)


@lru_cache(maxsize=6)
def blank(manifest: Manifest, dpi: float) -> Template:
    """The blank template of a layout at `dpi` with every region's pixel geometry."""
    return build(manifest, render_blank(manifest, dpi), dpi)


def build(manifest: Manifest, gray: np.ndarray, dpi: float,
          adjust: Callable[[RegionGeom, np.ndarray], RegionGeom] | None = None) -> Template:
    """The template of a blank page (`gray`) whose regions `manifest` lists; `adjust`
    reshapes each region's geometry (a form's own conventions)."""
    ink = (1.0 - gray.astype(np.float32) / 255.0)
    s = dpi / 72
    grow = max(1, round(PRINTED_GROW_MM / 25.4 * dpi))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
    printed = cv2.dilate((ink > PRINTED_INK).astype(np.uint8), kernel) > 0
    small = cv2.resize(gray, (gray.shape[1] // 4, gray.shape[0] // 4),
                       interpolation=cv2.INTER_AREA)
    paper = cv2.erode((small > 235).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    page_h = manifest.page_size[1]
    rects = np.array([region_px(r.rect, page_h, s) for r in manifest.regions])
    raw = ink > PRINTED_INK
    geoms = tuple(_geom(r, gray, printed, raw, page_h, s, rects) for r in manifest.regions)
    if adjust is not None:
        geoms = tuple(adjust(g, gray) for g in geoms)
    centres = np.array([((g.patch[0] + g.patch[2]) / 2, (g.patch[1] + g.patch[3]) / 2)
                        for g in geoms])
    dist = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    reach = NEIGHBOURS_MM / 25.4 * dpi
    neighbours = tuple(np.flatnonzero((row < reach) & (row > 0)) for row in dist)
    ink_max = cv2.dilate(ink, np.ones((3, 3), np.uint8))
    half = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2),
                      interpolation=cv2.INTER_AREA).astype(np.float32)
    return Template(manifest, dpi, gray, ink, paper, geoms, neighbours, ink_max,
                    gray.astype(np.float32), half)
