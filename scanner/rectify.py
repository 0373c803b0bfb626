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
from functools import lru_cache

import cv2
import numpy as np

from scanner.lapack import band_of, single_thread_blas, solve_banded_spd
from scanner.locate import POSITIONS
from sheets.manifest import Fiducial
from starsheets.errors import NotASheetError

MIN_MARKERS = 3
single_thread_blas()
MAX_RMS_MM = 2.5  # marker corners off a flat sheet by more than this: not one flat sheet
KEYSTONE_FLAT = 1.002  # a page whose scale varies less than this across it was imaged square
#   on: a scan (the bench's scans and clean renders measure 1.0000-1.0001, its phone
#   photos 1.003 and over, even the mild ones tilted under 12 degrees)


@dataclass(frozen=True)
class Fit:
    """A page-to-image homography (PDF points, origin bottom-left -> image pixels)."""

    H: np.ndarray
    rms_mm: float  # how far the markers' corners are from where the fit puts them
    markers: tuple[int, ...]
    dpi: float  # the photo's resolution on the sheet (pixels per inch, geometric mean)
    keystone: float = 1.0  # the largest over the smallest scale at the page's corners

    @property
    def square_on(self) -> bool:
        """Imaged without perspective, as a flatbed scanner does (KEYSTONE_FLAT)."""
        return self.keystone < KEYSTONE_FLAT


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
    return Fit(H, rms, tuple(ids), dpi, keystone(H, page_size))


def keystone(H: np.ndarray, page_size: tuple[float, float]) -> float:
    """How much a homography's scale varies over the page: the largest over the smallest at
    its corners (1 for an affine map). A homography scales lengths near a point by
    |h31 x + h32 y + h33| ** -1.5 (times a constant): its Jacobian's determinant goes as the
    cube of that denominator's inverse."""
    w, h = page_size
    den = np.abs(H[2, 0] * np.array([0, w, w, 0]) + H[2, 1] * np.array([0, 0, h, h]) + H[2, 2])
    scale = den ** -1.5
    return float(scale.max() / scale.min())


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


# --- the smooth residual warp ----------------------------------------------------------------
@dataclass(frozen=True)
class Field:
    """A smooth displacement of the rectified canvas (what a homography cannot model: page
    curl, a sheet that is not flat, lens distortion): canvas pixel (u, v) of the blank
    sheet is found at (u, v) + field(u, v) on the rectified photo.

    Bilinear on a grid of nodes every `step` pixels, fitted to measured displacements
    (printed structure matched between the blank sheet and the photo) by regularised
    least squares: the second differences between nodes are penalised, so where nothing
    was measured the field continues smoothly, and an outlier cannot bend it locally."""

    step: float
    nodes: np.ndarray  # (gy, gx, 2): du, dv at each node
    rms: float = 0.0  # the fit's residual at the measurements kept (pixels)
    used: int = 0  # measurements kept

    def __call__(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Displacements (..., 2) at canvas points u, v."""
        gy, gx = self.nodes.shape[:2]
        x = np.clip(np.asarray(u, np.float64) / self.step, 0, gx - 1.000001)
        y = np.clip(np.asarray(v, np.float64) / self.step, 0, gy - 1.000001)
        i, j = np.floor(y).astype(int), np.floor(x).astype(int)
        fy, fx = (y - i)[..., None], (x - j)[..., None]
        n = self.nodes
        return ((1 - fy) * ((1 - fx) * n[i, j] + fx * n[i, j + 1])
                + fy * ((1 - fx) * n[i + 1, j] + fx * n[i + 1, j + 1]))

    @staticmethod
    def zero(size: tuple[int, int], step: float) -> Field:
        w, h = size
        return Field(step, np.zeros((int(np.ceil(h / step)) + 1, int(np.ceil(w / step)) + 1, 2)))


def _bilinear(u: np.ndarray, v: np.ndarray, step: float, gx: int, gy: int
              ) -> tuple[np.ndarray, np.ndarray]:
    """The four grid nodes around each point (flat indices, (n, 4)) and their weights."""
    x = np.clip(u / step, 0, gx - 1.000001)
    y = np.clip(v / step, 0, gy - 1.000001)
    i, j = np.floor(y).astype(int), np.floor(x).astype(int)
    fy, fx = y - i, x - j
    idx = np.stack([i * gx + j, i * gx + j + 1, (i + 1) * gx + j, (i + 1) * gx + j + 1], 1)
    wts = np.stack([(1 - fy) * (1 - fx), (1 - fy) * fx, fy * (1 - fx), fy * fx], 1)
    return idx, wts


@lru_cache(maxsize=8)
def _smoothness_band(gx: int, gy: int, kd: int, smooth: float) -> np.ndarray:
    """_smoothness times smooth squared, plus a touch on the diagonal, as LAPACK's band."""
    return band_of(_smoothness(gx, gy) * smooth ** 2 + np.eye(gx * gy) * 1e-6, kd)


def _smoothness(gx: int, gy: int) -> np.ndarray:
    """R^T R of the second differences (and twists) between grid nodes."""
    r = _second_differences(gx, gy)
    return r.T @ r


def _second_differences(gx: int, gy: int) -> np.ndarray:
    rows = []
    for i in range(gy):
        for j in range(gx):
            for di, dj in ((0, 1), (1, 0)):
                if i - di >= 0 and i + di < gy and j - dj >= 0 and j + dj < gx:
                    r = np.zeros(gy * gx)
                    r[(i - di) * gx + (j - dj)] += 1
                    r[i * gx + j] -= 2
                    r[(i + di) * gx + (j + dj)] += 1
                    rows.append(r)
            if 0 < i < gy and 0 < j < gx:  # twist
                r = np.zeros(gy * gx)
                r[(i - 1) * gx + (j - 1)] += 1
                r[(i - 1) * gx + j] -= 1
                r[i * gx + (j - 1)] -= 1
                r[i * gx + j] += 1
                rows.append(r)
    return np.array(rows)


def fit_field(points: np.ndarray, shifts: np.ndarray, weights: np.ndarray,
              size: tuple[int, int], step: float, smooth: float = 2.0,
              outlier: float = 4.0) -> Field:
    """The smooth field through measured displacements: `points` (n, 2) canvas u, v,
    `shifts` (n, 2) du, dv there, `weights` (n,) their confidence. Robust: reweighted
    (Huber) twice, and measurements off the fit by more than `outlier` pixels dropped."""
    w, h = size
    gx, gy = int(np.ceil(w / step)) + 1, int(np.ceil(h / step)) + 1
    if len(points) < 4:
        return Field.zero(size, step)
    # normal equations assembled by hand, straight into LAPACK's band storage (each point
    # touches 4 nodes, no BLAS product); a node meets nodes two grid rows away at most
    # (the second differences), so the band is 2 gx wide
    kd = min(2 * gx, gx * gy - 1)
    idx, wts = _bilinear(points[:, 0], points[:, 1], step, gx, gy)
    reg = _smoothness_band(gx, gy, kd, smooth)
    upper = idx[:, :, None] <= idx[:, None, :]  # a pair of nodes once, as (low, high)
    at = (idx[:, None, :] * (kd + 1) + kd + idx[:, :, None] - idx[:, None, :])[upper]
    base = np.asarray(weights, np.float64)
    wt = base.copy()
    keep = wt > 0
    nodes = np.zeros((gy * gx, 2))
    res = np.zeros(len(points))
    for it in range(4):
        ww = wts * (wt * keep)[:, None]
        gram = reg.copy()
        np.add.at(gram.reshape(-1), at, (ww[:, :, None] * wts[:, None, :])[upper])
        rhs = np.zeros((gx * gy, 2))
        np.add.at(rhs, idx, ww[:, :, None] * shifts[:, None, :])
        try:  # numpy's LAPACK, held to one thread (OpenCV's cv2.solve, even DECOMP_CHOLESKY,
            # runs its own BLAS pool: twice the CPU time in bench workers)
            nodes = solve_banded_spd(gram, rhs)
        except np.linalg.LinAlgError:
            return Field.zero(size, step)
        pred = (nodes[idx] * wts[:, :, None]).sum(axis=1)
        res = np.hypot(*(pred - shifts).T)
        if it == 0:
            keep = keep & (res < outlier)
        huber = 1.0  # pixels
        wt = base * np.minimum(1.0, huber / np.maximum(res, 1e-6))
    used = int(keep.sum())
    rms = float(np.sqrt(np.mean(res[keep] ** 2))) if used else 0.0
    return Field(step, nodes.reshape(gy, gx, 2), rms, used)
