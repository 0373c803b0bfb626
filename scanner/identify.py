"""Identify: read the sheet code from the QR code at its known place.

The QR code sits at the same place on every sheet kind and paper (top band, top-aligned
with the markers, just left of the top-right marker's quiet zone: sheets/markers.py).
A first homography is fitted to the markers for each known paper size (the best fit
names the likely paper); a small crop around the QR code's place is warped flat at about
12 pixels per millimetre and decoded there (~10 ms; OpenCV's detector on the raw photo
fails often and takes far longer). A few preparations of the crop are tried in turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from scanner.rectify import Fit, canvas_matrix, fit
from sheets.manifest import Fiducial
from sheets.markers import MARKER_INSET, MARKER_QUIET, MARKER_SIZE, fiducial
from sheets.paper import PAPERS
from starsheets.errors import NotASheetError

MM = 72 / 25.4
CROP_PX_PER_MM = 12.0
CROP_MM = 26.0  # the crop: a square this big whose top-right is just inside the QR place


@dataclass(frozen=True)
class Identity:
    code: str
    paper_guess: str  # the paper whose marker geometry fits the photo best
    fit: Fit  # that first fit (page points of that paper)


@cache
def _paper_fiducials(paper: str) -> tuple[Fiducial, ...]:
    p = PAPERS[paper]
    return tuple(fiducial(p, pos) for pos in ("top-left", "top-right", "bottom-right",
                                              "bottom-left"))


def first_fit(corners: Mapping[int, np.ndarray]) -> tuple[str, Fit]:
    """The paper size whose fiducials fit the markers best, and that fit."""
    best: tuple[str, Fit] | None = None
    for name, paper in PAPERS.items():
        try:
            f = fit(corners, _paper_fiducials(name), paper.size)
        except NotASheetError:
            continue
        if best is None or f.rms_mm < best[1].rms_mm:
            best = (name, f)
    if best is None:
        raise NotASheetError("the corner markers do not outline a sheet",
                             "Photograph the sheet flat, all of it in view.")
    return best


def qr_crop(gray: np.ndarray, f: Fit, paper: str) -> np.ndarray:
    """The QR code's neighbourhood, warped flat (CROP_PX_PER_MM)."""
    p = PAPERS[paper]
    right = p.width - MARKER_INSET - MARKER_SIZE - MARKER_QUIET + 1.0 * MM
    top = p.height - MARKER_INSET + 3.0 * MM
    x0, y0 = right - CROP_MM * MM, top - CROP_MM * MM
    dpi = CROP_PX_PER_MM * 25.4
    # crop pixels -> page points: a canvas of the page shifted so (x0, top) is its origin
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]])
    to_crop = canvas_matrix(top - y0, dpi) @ shift
    m = f.H @ np.linalg.inv(to_crop)
    n = round(CROP_MM * CROP_PX_PER_MM)
    return cv2.warpPerspective(gray, m, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=255)


@cache
def _qr_detector() -> cv2.QRCodeDetector:
    return cv2.QRCodeDetector()


def decode_qr(crop: np.ndarray) -> str:
    """The QR payload in a flat crop ('' if none could be read)."""
    det = _qr_detector()
    tries = [crop]
    _, otsu = cv2.threshold(cv2.GaussianBlur(crop, (3, 3), 0), 0, 255,
                            cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    tries.append(otsu)
    tries.append(cv2.resize(crop, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA))
    tries.append(cv2.adaptiveThreshold(crop, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                       cv2.THRESH_BINARY, 31, 8))
    for img in tries:
        try:
            text, _points, _ = det.detectAndDecode(img)
        except cv2.error:
            continue
        if text:
            return str(text)
    try:
        text, _, _ = cv2.QRCodeDetectorAruco().detectAndDecode(crop)
    except (cv2.error, AttributeError):
        text = ""
    return str(text or "")


def identify(gray: np.ndarray, corners: Mapping[int, np.ndarray], source: str) -> Identity:
    """Read the sheet code (NotASheetError when the QR code cannot be read)."""
    paper, f = first_fit(corners)
    text = decode_qr(qr_crop(gray, f, paper))
    if not text:
        raise NotASheetError(f"{source}: found the corner markers but could not read the "
                             "sheet code (QR code beside the top-right marker)",
                             "Photograph the sheet again, in focus and with the QR code "
                             "free of glare or ink.")
    return Identity(text, paper, f)
