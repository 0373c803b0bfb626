"""A line too faint for any of its pixels to clear a photo's noise.

On a dim, noisy phone photo a light pencil slash can darken every pixel it crosses by
less than the noise, so the pixel thresholds of scanner.marks read its box empty. Summed
along the line, though, that darkening adds up while the noise averages out: the mean of
a band of n pixels has 1/sqrt(n) of the noise. So each Executed box read empty gets the
z-score of the darkest straight band through its middle, and a box whose band stands out
from those of the sheet's other empty Executed boxes (the same photo's noise, blur and
print) is one a person should look at.

No I/O: the caller supplies each box's darkness over its paper (print taken away).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

import cv2
import numpy as np

LINE_ANGLES = np.deg2rad(np.r_[np.arange(20, 71, 5), np.arange(110, 161, 5)]).astype(
    np.float32)  # a slash's directions, off the box's edges (degrees from the x axis)
LINE_BAND = 3  # px: a pencil line's width on the canvas (200 dpi)
LINE_MIDDLE = 0.2  # a band passes this close to the box's middle (of its smaller side)
LINE_LONG = 0.5  # ... and holds at least this many pixels a band's width, over sqrt(area)
EDGE_PX = 2  # the box's inside this far from its outline (the outline's blur) is left out
LINE_MIN_PX = 30  # a box with fewer pixels than this has no band to measure
LINE_BOXES = 10  # a sheet with fewer empty Executed boxes than this has nothing to compare
ENDS_MIN_PX = 6  # ends_z: each end of a band shows on at least this many plain pixels
LINE_SCORE = 2.5  # a band this many interquartile ranges over the sheet's median: review
ENDS_SCORE = 4.0  # ... and so is a box with text printed in it whose band's two ends stand
ENDS_SPREAD = 0.5  # this far over those of the sheet's boxes whose band does not stand out
LINE_RATIO = 6.0  # a box without text printed in it whose band's z is this many times the
#   median of the sheet's other such boxes: review (plain_standing_out). Session 43: a
#   blurred photo's pale pencil slash (467 phone 84) scored 8.9 there but 1.8 by LINE_SCORE,
#   whose reference holds the printed boxes, their print's residue spreading it; of the
#   42,638 empty plain boxes measured on thirty fresh seeds' harsh photos none is over 4.8;
#   a blurred 150 dpi copy's toner specks raised two to 7.5 and 9.4: specks are left out
BAND_SOME = 1.5  # BAND_SOME (interquartile ranges, at least ENDS_SPREAD wide in z), its band
#   standing out that far (session 34: 317 phone 26's pencil slash across "+1", read empty,
#   scores 2.01 and 5.50; of 11,000 empty printed mission boxes measured on seeds 0, 313
#   and 317's photos five score both, the highest 4.71, and 3.0 would take fourteen)


def band_z(dk: np.ndarray, mask: np.ndarray, noise: float) -> float:
    """The z-score of the darkest straight band through the middle of a box: the band's
    mean darkness over the box's median (its own background: a shadow, the print model's
    bias), times sqrt(its pixels), over the box's noise. `dk`: the box's darkness (print
    taken away); `mask`: where to measure."""
    pix, weights = _bands(mask.astype(bool).tobytes(), mask.shape)
    if not len(pix):
        return 0.0
    v = dk.ravel()[pix].astype(np.float32)
    v -= np.median(v)
    return float((weights @ v).max()) / max(noise, 1e-6)


@lru_cache(maxsize=1024)
def _bands(mask_bytes: bytes, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """For a box's mask (its geometry is the template's: worked out once): the flat
    indices of the pixels measured, and one row per band through the middle at least
    LINE_LONG long, holding 1/sqrt(n) on its n pixels (a row times the pixels' darkness:
    the band's sum over sqrt(n))."""
    pix, weights, _ = long_bands(mask_bytes, shape)
    return pix, weights


@lru_cache(maxsize=1024)
def long_bands(mask_bytes: bytes, shape: tuple[int, ...]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """_bands' pixels and rows, with each row's angle (radians, one of LINE_ANGLES)."""
    geo = _band_geometry(mask_bytes, shape)
    empty = np.zeros(0, np.int64), np.zeros((0, 0), np.float32), np.zeros(0, np.float32)
    if geo is None:
        return empty
    pix, on, _, angle = geo
    n = on.sum(axis=1)
    keep = n >= LINE_LONG * LINE_BAND * np.sqrt(pix.size)
    if not keep.any():
        return empty
    return pix, (on[keep] / np.sqrt(n[keep])[:, None]).astype(np.float32), angle[keep]


@lru_cache(maxsize=1024)
def _band_geometry(mask_bytes: bytes, shape: tuple[int, ...]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """A box's bands through its middle: the flat indices of the pixels measured (the
    mask, EDGE_PX in from its edge), each band's pixels as a bool row, each pixel's side
    of the box's middle along that band's direction (a row per band too), and each band's
    angle; None for a box too small to hold a band."""
    mask = np.frombuffer(mask_bytes, bool).reshape(shape)
    k = 2 * EDGE_PX + 1
    inner = cv2.erode(mask.astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    ys, xs = np.nonzero(inner)
    if ys.size < LINE_MIN_PX:
        return None
    c, s = np.cos(LINE_ANGLES), np.sin(LINE_ANGLES)
    rho = xs[:, None] * c + ys[:, None] * s  # (n, A): each pixel's offset across each band
    along = ys[:, None] * c - xs[:, None] * s  # (n, A): and its place along it
    middle = float(xs.mean()) * c + float(ys.mean()) * s  # (A,)
    centre = float(ys.mean()) * c - float(xs.mean()) * s
    bins = np.floor(rho - rho.min()).astype(np.int64)
    lo0 = np.floor(middle - rho.min()).astype(np.int64)
    reach = int(np.ceil(LINE_MIDDLE * min(np.ptp(xs), np.ptp(ys))))
    rows, sides, angles = [], [], []
    for a in range(len(LINE_ANGLES)):  # every band of this angle near the middle at once
        lo = np.arange(lo0[a] - reach - LINE_BAND // 2, lo0[a] + reach)[:, None]
        near = np.abs(lo[:, 0] + LINE_BAND / 2 - (middle[a] - rho.min())) <= reach
        lo = lo[near]
        rows.append((bins[None, :, a] >= lo) & (bins[None, :, a] < lo + LINE_BAND))
        sides.append(np.repeat((along[:, a] > centre[a])[None, :], len(lo), 0))
        angles.append(np.full(len(lo), LINE_ANGLES[a], np.float32))
    return (ys * shape[1] + xs, np.concatenate(rows), np.concatenate(sides),
            np.concatenate(angles))


def ends_z(dk: np.ndarray, mask: np.ndarray, plain: np.ndarray, noise: float) -> float:
    """The z-score of a straight band through the middle of a box shown at both its ends:
    for each band (band_z's), the z of its `plain` pixels (the inside clear of printed
    text) on either side of the box's middle, the lesser of the two; the greatest over
    the bands. A slash across a printed number shows in the paper at both of its ends;
    a speck, or the print's residue a pixel off, on one side at most."""
    rows = end_rows(mask.astype(bool).tobytes(), plain.astype(bool).tobytes(), mask.shape)
    if rows is None or rows[3].all():
        return 0.0
    pix, use, halves, short = rows
    v = dk.ravel()[pix].astype(np.float32)
    v -= np.median(v[use])
    z = np.minimum(halves[0] @ v, halves[1] @ v)[~short]
    return max(float(z.max()), 0.0) / max(noise, 1e-6)


@lru_cache(maxsize=1024)
def end_rows(mask_bytes: bytes, plain_bytes: bytes, shape: tuple[int, ...]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """For ends_z (and scanner.marks.audit.band_features: every box of one shape at once),
    of a box's `mask` and `plain` paper: the pixels measured, which of them are plain, per
    half of the box each band's plain pixels there over sqrt(their count), and the bands
    with under ENDS_MIN_PX of them in a half (left out); None for a box with no band or
    too little plain paper."""
    geo = _band_geometry(mask_bytes, shape)
    if geo is None:
        return None
    pix, on, side, _ = geo
    use = np.frombuffer(plain_bytes, bool).reshape(shape).ravel()[pix]
    if use.sum() < LINE_MIN_PX // 3:
        return None
    halves, short = [], np.zeros(len(on), bool)
    for half in (side, ~side):
        o = (on & half & use[None, :]).astype(np.float32)
        cnt = o.sum(axis=1)
        halves.append(o / np.sqrt(np.maximum(cnt, 1))[:, None])
        short |= cnt < ENDS_MIN_PX
    return pix, use, np.stack(halves), short


def standing_out(z: Mapping[str, float]) -> dict[str, float]:
    """The boxes whose band stands out from the sheet's others: id -> how many
    interquartile ranges over their median (only those over LINE_SCORE)."""
    if len(z) < LINE_BOXES:
        return {}
    scores = band_scores(z, list(z.values()))
    return {rid: round(sc, 2) for rid, sc in scores.items() if sc > LINE_SCORE}


def plain_standing_out(z: Mapping[str, float]) -> dict[str, float]:
    """The boxes without text printed in them (`z`: those only) whose band is LINE_RATIO
    times the median of theirs or more: id -> that ratio. Compared with their own kind
    alone, as the print's residue spreads the printed boxes' bands."""
    if len(z) < LINE_BOXES:
        return {}
    med = max(float(np.median(np.asarray(list(z.values()), np.float64))), 1e-6)
    return {rid: round(v / med, 2) for rid, v in z.items() if v / med >= LINE_RATIO}


def ends_standing_out(z: Mapping[str, float], ends: Mapping[str, float],
                      traced: frozenset[str] = frozenset()) -> dict[str, float]:
    """The boxes with text printed in them whose band's two ends (ends_z, `ends`: those
    boxes only) stand out from those of the boxes whose band does not (ENDS_SCORE), and
    whose band stands out a little from the sheet's others (BAND_SOME) or which hold a
    trace of faint ink (`traced`): id -> how many interquartile ranges (at least
    ENDS_SPREAD) the ends stand over their median. Two measures of one stroke agreeing:
    the ends' in the paper beside the print (which one speck cannot raise) and the band's
    over the print (whose residue spreads its empty boxes' scores) or the faint ink's."""
    if len(z) < LINE_BOXES or len(ends) < LINE_BOXES:
        return {}
    band = band_scores(z, list(z.values()))
    ref = [e for rid, e in ends.items() if band.get(rid, 0.0) < BAND_SOME]  # (looks empty)
    if len(ref) < LINE_BOXES:
        return {}
    q25, q50, q75 = np.percentile(np.asarray(ref, np.float64), [25, 50, 75])
    spread = max(float(q75 - q25), ENDS_SPREAD)
    out = {}
    for rid, e in ends.items():
        score = (e - float(q50)) / spread
        if score >= ENDS_SCORE and (band.get(rid, 0.0) >= BAND_SOME or rid in traced):
            out[rid] = round(score, 2)
    return out


def band_scores(z: Mapping[str, float], reference: Sequence[float]) -> dict[str, float]:
    """Each band's z over `reference` (the bands of boxes known empty on the same sheet):
    how many interquartile ranges over their median; {} with under LINE_BOXES of them."""
    if len(reference) < LINE_BOXES:
        return {}
    q25, q50, q75 = np.percentile(np.asarray(reference, np.float64), [25, 50, 75])
    spread = max(float(q75 - q25), 1e-6)
    return {rid: (v - float(q50)) / spread for rid, v in z.items()}

