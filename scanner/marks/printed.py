"""The print as the photo shows it: the blank sheet blurred and scaled to fit this photo
(print_model), ink measured over it (_over_print), and the pedestal a blurred outline
leaves inside a small box.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.marks.arrays import _cycled, _pct, _rows
from scanner.marks.stack import Stack
from scanner.template import Template

PRINT_CORE = 0.3  # print this dark on the photo is its solid core: ink over it is measured
#                   by the light the print lets through (below: the print's blurred edge)
OVER_FLOOR = 0.25  # ... and the print never taken to let through less (noise amplified)
WASHED_GAIN = 0.55  # print reading lighter than this share of its darkness: a photo too
#                    washed out or blurred to trust any inked box (sheets measure 0.65-3):
#                    refused (require_legible)
PEDESTAL_Q = 20  # on a BLURRED_PX photo a plain box's paper is this percentile of its inside,
PEDESTAL_MAX = 0.05  # which the outline's blur may darken by up to this: its thresholds move up.
#                      (Sharper, an evenly darker inside is light shading: ink.)
_EXPECTED: dict[tuple[int, float], tuple[Template, np.ndarray]] = {}
BLURS = (0.0, 0.7, 1.2, 1.8, 2.6)  # px: the print's blur on the photo is one of these
BLUR_TIE = 1.03  # a blur whose print model errs at most this much more than the best fits too


def expected_print(tpl: Template, st: Stack, sigma: float, slack: bool = True
                   ) -> np.ndarray:
    """The darkness the printed ink should show in each box patch on a photo blurred by
    `sigma` px: the blank sheet blurred, then (`slack`) its 3x3 maximum (a pixel of
    registration)."""
    key = (id(tpl), sigma + (1000.0 if slack else 0.0))
    hit = _EXPECTED.get(key)
    if hit is not None and hit[0] is tpl:
        return hit[1]
    ink = tpl.ink if sigma <= 0 else cv2.GaussianBlur(tpl.ink, (0, 0), sigma)
    if slack:
        ink = cv2.dilate(ink, np.ones((3, 3), np.uint8))
    P, Q = st.size
    H, W = ink.shape
    rows = np.clip(st.origin[:, 1][:, None] + np.arange(P)[None, :], 0, H - 1)
    cols = np.clip(st.origin[:, 0][:, None] + np.arange(Q)[None, :], 0, W - 1)
    out = ink[rows[:, :, None], cols[:, None, :]].astype(np.float32)
    if len(_EXPECTED) > 24:
        _EXPECTED.clear()
    _EXPECTED[key] = (tpl, out)
    return out


_PRINT_ROWS: dict[tuple[int, float], tuple[Template, tuple[np.ndarray, ...]]] = {}
PRINT_BOXES = 48  # the print's look is fitted on at most this many boxes with text


def _print_rows(tpl: Template, st: Stack, sigma: float) -> tuple[np.ndarray, ...]:
    """For the print model at `sigma`: the boxes used, their text pixels and the core of
    their print (flat indices, cycled) with the expected darkness there."""
    key = (id(tpl), sigma)
    hit = _PRINT_ROWS.get(key)
    if hit is not None and hit[0] is tpl:
        return hit[1]
    sel = np.flatnonzero(st.n_text > 0)
    sel = sel[:: max(1, len(sel) // PRINT_BOXES)][:PRINT_BOXES]
    e = expected_print(tpl, st, sigma, slack=False)[sel]
    m = st.text[sel]
    peak = e.reshape(len(sel), -1).max(axis=1)[:, None, None]
    core = m & (e > 0.5 * peak)
    i_text, i_core = _cycled(list(m)), _cycled(list(core))
    out = (sel, i_text, _rows(e, i_text), i_core, _rows(e, i_core),
           core.sum(axis=(1, 2)) >= 5)
    if len(_PRINT_ROWS) > 24:
        _PRINT_ROWS.clear()
    _PRINT_ROWS[key] = (tpl, out)
    return out


def print_model(d: np.ndarray, tpl: Template, st: Stack
                ) -> tuple[float, float, tuple[float, float]]:
    """How the printed text inside the boxes looks on this photo: (blur sigma px, gain,
    and the (blur, gain) of the blurriest model that fits nearly as well). Robust to
    marks: per box the gain is the median ratio over the core of its print and the fit
    error the median over its text, and the sheet takes the median box (a mark crosses a
    minority of a box's print). A noisy photo can fit two blurs almost equally (the wings
    of the print, where they differ, drown in the noise): the blurriest model within
    BLUR_TIE of the best fit's error says how blurred the photo may be."""
    if int((st.n_text > 0).sum()) < 5:
        return 1.2, 1.0, (1.2, 1.0)
    fits: list[tuple[float, float, float]] = []
    for sigma in BLURS:
        sel, i_text, e_text, i_core, e_core, ok = _print_rows(tpl, st, sigma)
        if ok.sum() < 5:
            continue
        ds = d[sel]
        ratio = _rows(ds, i_core)[ok] / np.maximum(e_core[ok], 1e-3)
        gain = float(np.clip(np.median(np.median(ratio, axis=1)), 0.3, 3.0))
        err = np.abs(_rows(ds, i_text)[ok] - gain * e_text[ok])
        fits.append((float(np.median(np.median(err, axis=1))), sigma, gain))
    if not fits:
        return 1.2, 1.0, (1.2, 1.0)
    e_best, sigma, gain = min(fits)
    _, s_hi, g_hi = max((f for f in fits if f[0] <= BLUR_TIE * e_best), key=lambda f: f[1])
    return sigma, gain, (s_hi, g_hi)


def _over_print(d: np.ndarray, ep: np.ndarray) -> np.ndarray:
    """Darkness over the expected print `ep`: over the print's solid core a mark darkens
    the light the print lets through, 1 - (1 - d) / (1 - print) (a pen's tick over '+1' or
    light pencil across '17' keeps its darkness; subtracting the print would wipe it out);
    over its blurred edge, where the model's blur and registration error dominate (a
    60-110 dpi photo), the difference d - print, so that error is not amplified."""
    return (d - ep) / np.where(ep >= PRINT_CORE, np.maximum(1.0 - ep, OVER_FLOOR), 1.0)


def pedestal(d: np.ndarray, st: Stack, p0: np.ndarray, t_ink: np.ndarray) -> np.ndarray:
    """How much darker each plain box's inside is, evenly, than its paper level (N), on a
    blurred photo, where a small box's outline spreads over its whole inside: the
    inside's PEDESTAL_Q percentile over that level, up to PEDESTAL_MAX. None where text is
    printed in the box (the print model accounts for its blur) or where that percentile
    is ink already (a filled or heavily marked box)."""
    p_in = _pct(_rows(d, st.clear_idx), PEDESTAL_Q)
    ped = np.clip(p_in - p0, 0.0, PEDESTAL_MAX)
    return np.where(st.printed | (p_in >= t_ink) | (st.n_inside == 0), 0.0, ped)
