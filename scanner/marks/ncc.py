"""Template matching by normalised cross-correlation, searched coarse to fine and compiled.

OpenCV's `matchTemplate` (TM_CCOEFF_NORMED) goes through the Fourier domain and costs
~45-55 us a call whatever the search radius, ~225 us with a mask: a sheet's ~370 box
matches and ~50 outline matches were ~30 ms of its reading. Here every candidate place
of a template is scored directly (the same formula, over the mask's pixels when one is
given), and few places are scored: the template at half resolution over the whole
search window (every second place), then at full resolution from the best of those,
climbing to the best neighbour until it is a peak (`search`). A surface with two peaks
further apart than the coarse step can end on the lower one where an exhaustive search
would not: fine for a printed box's outline (one peak a few pixels wide; measured on
bench photos, tests/test_marks_ncc.py), not for a ruled line's ridge or rows of like
boxes, which scanner.marks.registration searches exhaustively (docs/scanner.md,
"Registration, coarse to fine").

    Patches.of(templates, masks)    each template zero-meaned once, at both resolutions
    search(img, half, pt, ...)      every template's best place within +-r of its own
    halved(img)                     the half-resolution image `search` wants
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numba import njit

FLAT = 1e-6  # a window (or template) this flat for its size scores 0, as OpenCV gives it


@dataclass(frozen=True)
class Patches:
    """Templates zero-meaned over their masks, flat, at full and half resolution: template
    k is tz[ptr[k]:ptr[k + 1]] (shape[k]); mask the same (1.0 where it counts); tn its
    sum of squares, n its mask's pixel count; the half-resolution ones likewise (h_*)."""

    shape: np.ndarray
    ptr: np.ndarray
    tz: np.ndarray
    mask: np.ndarray
    tn: np.ndarray
    n: np.ndarray
    full: np.ndarray  # (k) the mask is every pixel: the window's sums need no mask
    h_shape: np.ndarray
    h_ptr: np.ndarray
    h_tz: np.ndarray
    h_mask: np.ndarray
    h_tn: np.ndarray
    h_n: np.ndarray

    @staticmethod
    def of(templates: list[np.ndarray], masks: list[np.ndarray | None]) -> Patches:
        """Patches from templates (float32) and their masks (bool, or None: all pixels)."""
        half = _packed([halved(t) for t in templates],
                       [None if m is None else halved(m.astype(np.float32)) >= 0.5
                        for m in masks])
        return Patches(*_packed(templates, masks), np.array([m is None for m in masks], bool),
                       *half)


def _packed(templates: list[np.ndarray], masks: list[np.ndarray | None]
            ) -> tuple[np.ndarray, ...]:
    """Shapes, offsets, zero-meaned values, masks, sums of squares and pixel counts of
    `templates`, one flat array each (Patches' fields)."""
    shape = np.array([t.shape for t in templates], np.int64).reshape(-1, 2)
    ptr = np.zeros(len(templates) + 1, np.int64)
    ptr[1:] = np.cumsum(shape[:, 0] * shape[:, 1])
    tz = np.zeros(int(ptr[-1]), np.float32)
    mk = np.zeros(int(ptr[-1]), np.float32)
    tn = np.zeros(len(templates))
    n = np.zeros(len(templates))
    for k, (t, m) in enumerate(zip(templates, masks, strict=True)):
        keep = np.ones(t.shape, bool) if m is None else m.astype(bool)
        t64 = t.astype(np.float64)
        z = np.where(keep, t64 - (t64[keep].mean() if keep.any() else 0.0), 0.0)
        tz[ptr[k]:ptr[k + 1]] = z.ravel()
        mk[ptr[k]:ptr[k + 1]] = keep.ravel()
        tn[k] = float((z * z).sum())
        n[k] = float(keep.sum())
    return shape, ptr, tz, mk, tn, n


@njit(cache=True, nogil=True, fastmath=True)
def _score(img: np.ndarray, y: int, x: int, tz: np.ndarray, mk: np.ndarray, h: int, w: int,
           n: float, tn: float, full: bool) -> float:
    """The normalised correlation of one template placed with its corner at (y, x)."""
    num = np.float32(0.0)
    s1 = np.float32(0.0)
    s2 = np.float32(0.0)
    for i in range(h):
        row = img[y + i, x:x + w]
        t = tz[i * w:(i + 1) * w]
        if full:
            for j in range(w):
                p = row[j]
                num += p * t[j]
                s1 += p
                s2 += p * p
        else:
            m = mk[i * w:(i + 1) * w]
            for j in range(w):
                p = row[j] * m[j]
                num += p * t[j]
                s1 += p
                s2 += p * p
    var = float(s2) - float(s1) * float(s1) / n
    den = np.sqrt(max(var, 0.0) * tn)
    return float(num) / den if den > FLAT * n and tn > FLAT * n else 0.0


@njit(cache=True, nogil=True, fastmath=True)
def _search(img: np.ndarray, half: np.ndarray, shape: np.ndarray, ptr: np.ndarray,
            tz: np.ndarray, mk: np.ndarray, tn: np.ndarray, n: np.ndarray, full: np.ndarray,
            h_shape: np.ndarray, h_ptr: np.ndarray, h_tz: np.ndarray, h_mk: np.ndarray,
            h_tn: np.ndarray, h_n: np.ndarray, k: int, u: int, v: int, r: int,
            seen: np.ndarray) -> tuple[int, int, float]:
    """Template k's best place (du, dv, score) within +-r of (u, v) on img."""
    h, w = shape[k, 0], shape[k, 1]
    H, W = img.shape
    if v - r < 0 or u - r < 0 or v + r + h > H or u + r + w > W:
        return 0, 0, 0.0
    t = tz[ptr[k]:ptr[k + 1]]
    m = mk[ptr[k]:ptr[k + 1]]
    # coarse: the half-resolution template at every even place of the window
    hh, hw = h_shape[k, 0], h_shape[k, 1]
    ht = h_tz[h_ptr[k]:h_ptr[k + 1]]
    hm = h_mk[h_ptr[k]:h_ptr[k + 1]]
    bu, bv, best = u, v, -2.0
    if h_tn[k] > FLAT * h_n[k] and hh > 2 and hw > 2:
        for yy in range((v - r + 1) // 2, (v + r) // 2 + 1):
            for xx in range((u - r + 1) // 2, (u + r) // 2 + 1):
                if yy + hh > half.shape[0] or xx + hw > half.shape[1]:
                    continue
                s = _score(half, yy, xx, ht, hm, hh, hw, h_n[k], h_tn[k], full[k])
                if s > best:
                    best, bu, bv = s, 2 * xx, 2 * yy
    # fine: climb at full resolution from there to a peak, within the window
    S = 2 * r + 1
    for a in range(S):
        for b in range(S):
            seen[a, b] = -3.0
    cu, cv = bu, bv
    while True:
        nu, nv, nb = cu, cv, -2.0
        for dv in range(-1, 2):
            for du in range(-1, 2):
                x, y = cu + du, cv + dv
                if abs(x - u) > r or abs(y - v) > r:
                    continue
                s = seen[y - v + r, x - u + r]
                if s < -2.5:
                    s = _score(img, y, x, t, m, h, w, n[k], tn[k], full[k])
                    seen[y - v + r, x - u + r] = s
                if s > nb or (s == nb and (y < nv or (y == nv and x < nu))):
                    nb, nu, nv = s, x, y
        if nu == cu and nv == cv:
            return cu - u, cv - v, nb
        cu, cv = nu, nv


@njit(cache=True, nogil=True)
def _search_all(img: np.ndarray, half: np.ndarray, shape: np.ndarray, ptr: np.ndarray,
                tz: np.ndarray, mk: np.ndarray, tn: np.ndarray, n: np.ndarray,
                full: np.ndarray, h_shape: np.ndarray, h_ptr: np.ndarray, h_tz: np.ndarray,
                h_mk: np.ndarray, h_tn: np.ndarray, h_n: np.ndarray, which: np.ndarray,
                u: np.ndarray, v: np.ndarray, r: int, out: np.ndarray) -> None:
    seen = np.empty((2 * r + 1, 2 * r + 1))
    for i in range(which.size):
        k = which[i]
        du, dv, s = _search(img, half, shape, ptr, tz, mk, tn, n, full, h_shape, h_ptr,
                            h_tz, h_mk, h_tn, h_n, k, u[i], v[i], r, seen)
        out[i, 0] = du
        out[i, 1] = dv
        out[i, 2] = s


def search(img: np.ndarray, half: np.ndarray, pt: Patches, which: np.ndarray,
           u: np.ndarray, v: np.ndarray, r: int) -> np.ndarray:
    """For templates `which` placed with their corners at (u, v) on `img` (float32; `half`:
    it at half resolution, cv2.INTER_AREA), the best (du, dv, score) within +-r each; a
    window that leaves the image scores 0 at (0, 0)."""
    out = np.zeros((len(which), 3))
    if len(which):
        _search_all(img, half, pt.shape, pt.ptr, pt.tz, pt.mask, pt.tn, pt.n, pt.full,
                    pt.h_shape, pt.h_ptr, pt.h_tz, pt.h_mask, pt.h_tn, pt.h_n,
                    np.ascontiguousarray(which, np.int64), np.ascontiguousarray(u, np.int64),
                    np.ascontiguousarray(v, np.int64), int(r), out)
    return out


def halved(img: np.ndarray) -> np.ndarray:
    """`img` at half resolution, as `search` wants it."""
    h, w = img.shape[0] // 2, img.shape[1] // 2
    return cv2.resize(img[:2 * h, :2 * w], (w, h), interpolation=cv2.INTER_AREA)
