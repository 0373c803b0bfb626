"""Rasterising: the blank sheet once per resolution with pypdfium2, the ink the same way,
laid on the page as ink is (multiplied).
"""

from __future__ import annotations

import io
from functools import lru_cache

import cv2
import numpy as np

from scanner.synthetic.common import KIND, MAX_RENDER_DPI, RENDER_DPIS
from scanner.synthetic.ink import InkStyle
from scanner.synthetic.page import Page
from sheets.fill import Ink


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
