"""Rectify: the homography from page coordinates (PDF points) to the photo, and the warp
of the photo onto a flat canvas at the working resolution.

Every visible marker contributes its four corners (so 3 markers give 12 point pairs and
a marker with a damaged corner still helps through the others); with fewer than three
markers the page is refused, naming the corners that are missing. Canvas pixel (u, v)
has its centre at page point x = (u + 0.5) / s, y = H - (v + 0.5) / s (s = dpi / 72):
the same grid pypdfium2 renders the blank template on, so the two line up pixel for
pixel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from scanner.locate import POSITIONS
from sheets.manifest import Fiducial
from starsheets.errors import NotASheetError

MIN_MARKERS = 3
MAX_RMS_MM = 2.5  # marker corners off a flat sheet by more than this: not one flat sheet


@dataclass(frozen=True)
class Fit:
    """A page-to-image homography (PDF points, origin bottom-left -> image pixels)."""

    H: np.ndarray
    rms_mm: float  # how far the markers' corners are from where the fit puts them
    markers: tuple[int, ...]
    dpi: float  # the photo's resolution on the sheet (pixels per inch, geometric mean)


def _correspondences(corners: Mapping[int, np.ndarray], fiducials: Sequence[Fiducial]
                     ) -> tuple[np.ndarray, np.ndarray, list[int]]:
    src, dst, ids = [], [], []
    for f in fiducials:
        if f.id in corners:
            src.extend(f.corners)
            dst.extend(corners[f.id].tolist())
            ids.append(f.id)
    return np.float64(src), np.float64(dst), ids


def require_markers(corners: Mapping[int, np.ndarray], source: str) -> None:
    """NotASheetError unless at least MIN_MARKERS corner markers were found."""
    if len(corners) >= MIN_MARKERS:
        return
    missing = [POSITIONS[i] for i in range(4) if i not in corners]
    if not corners:
        raise NotASheetError(f"{source}: no sheet found (none of the four corner markers)",
                             "Photograph a starsheets sheet with its four black corner "
                             "squares in view.")
    raise NotASheetError(
        f"{source}: only {len(corners)} of the 4 corner markers found (missing: "
        f"{', '.join(missing)})", "Photograph the whole sheet: at least three corner "
        "squares must be visible, flat and not covered.")


def fit(corners: Mapping[int, np.ndarray], fiducials: Sequence[Fiducial],
        page_size: tuple[float, float]) -> Fit:
    """Least-squares homography over every corner of every visible marker."""
    src, dst, ids = _correspondences(corners, fiducials)
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        raise NotASheetError("the corner markers do not outline a sheet",
                             "Photograph the sheet flat, all of it in view.")
    # error measured back on the page (mm), so it means the same at any resolution
    Hinv = np.linalg.inv(H)
    back = cv2.perspectiveTransform(dst.reshape(-1, 1, 2), Hinv).reshape(-1, 2)
    rms = float(np.sqrt(np.mean(np.sum((back - src) ** 2, axis=1)))) * 25.4 / 72
    w, h = page_size
    quad = cv2.perspectiveTransform(np.float64([[[0, 0]], [[w, 0]], [[w, h]], [[0, h]]]), H)
    area_px = abs(cv2.contourArea(quad.reshape(-1, 2).astype(np.float32)))
    dpi = float(np.sqrt(area_px / (w * h / 72 / 72)))
    return Fit(H, rms, tuple(ids), dpi)


def canvas_matrix(page_height: float, dpi: float) -> np.ndarray:
    """Page points -> canvas pixel centres."""
    s = dpi / 72
    return np.array([[s, 0, -0.5], [0, -s, page_height * s - 0.5], [0, 0, 1]])


def canvas_size(page_size: tuple[float, float], dpi: float) -> tuple[int, int]:
    s = dpi / 72
    return round(page_size[0] * s), round(page_size[1] * s)


def warp(gray: np.ndarray, f: Fit, page_size: tuple[float, float], dpi: float) -> np.ndarray:
    """The sheet flattened onto a canvas at `dpi` (white where the photo ends)."""
    m = f.H @ np.linalg.inv(canvas_matrix(page_size[1], dpi))
    w, h = canvas_size(page_size, dpi)
    interp = cv2.INTER_AREA if f.dpi > dpi * 1.6 else cv2.INTER_LINEAR
    if interp == cv2.INTER_AREA:  # INTER_AREA does not apply to warps: pre-reduce instead
        k = int(f.dpi / dpi / 1.3)
        if k >= 2:
            small = cv2.resize(gray[: gray.shape[0] - gray.shape[0] % k,
                                    : gray.shape[1] - gray.shape[1] % k],
                               (gray.shape[1] // k, gray.shape[0] // k),
                               interpolation=cv2.INTER_AREA)
            shrink = np.array([[1 / k, 0, 0.5 / k - 0.5], [0, 1 / k, 0.5 / k - 0.5], [0, 0, 1]])
            m = shrink @ m
            gray = small
    return cv2.warpPerspective(gray, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=255)
