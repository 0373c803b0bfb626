"""The simulated flatbed scanner: skew, "fit to page" scaling, upside down, photocopies
(high contrast, toner specks), colour or grey, PNG or JPEG.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from scanner.synthetic.camera import _grow_quad
from scanner.synthetic.common import MAX_RENDER_DPI, MM_PER_PT, SCAN_BED_MM, _add_noise, _apply_h, _f, _pick
from scanner.synthetic.ink import InkStyle
from scanner.synthetic.page import Page
from scanner.synthetic.raster import _page_raster, _raster_scale, _render_dpi
from sheets.fill import Ink


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
