"""What every stage of the synthetic cases shares: the profiles, the version that names
their cache, and small image helpers (noise, blur, sharpening, a homography applied to
points).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

VERSION = "5"  # bump when the same seed would give a different case
KIND = "opial-career"
# (new ones last: a profile's index seeds its cases)
PROFILES = ("phone", "phone-easy", "corner-cut", "scan", "scan-150", "scan-300", "scan-600",
            "clean", "short-ticks", "short-ticks-scan", "phone-vga", "strays", "strays-scan")
PHOTO_PROFILES = ("phone", "phone-easy", "corner-cut", "short-ticks", "phone-vga", "strays")
SCAN_PROFILES = ("scan", "scan-150", "scan-300", "scan-600", "short-ticks-scan", "strays-scan")
SHORT_TICKS = ("short-ticks", "short-ticks-scan")  # ticks drawn with short arms (_short_arms)
STRAYS = ("strays", "strays-scan")  # stray strokes that graze boxes' edges (_grazing_strays)
RENDER_DPIS = (75, 100, 150, 200, 250, 300)  # the page is rasterised at one of these
MAX_RENDER_DPI = 300  # larger outputs are upsampled by the camera/scanner warp
MM_PER_PT = 25.4 / 72
SCAN_BED_MM = (216.0, 297.0)  # a flatbed's glass: holds Letter and A4
Truth = dict[str, str | int | None]


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
