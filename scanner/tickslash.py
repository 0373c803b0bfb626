"""A second opinion on one stroke in a mission box: a tick, or a slash?

    box_ink(dk, over_k, inside, printed, level) -> image    what the reader saw in the box
    tick_probability(ink) -> float                          the model's P(tick)

The reader's rules tell one stroke (a slash: the mission failed) from two (a tick: it
succeeded) by how the ink lies on straight bands. A tick whose short arm is short, or
light and crossing the box's printed "+1", leaves too little off the long arm's band for
those rules, and a few such ticks read as sure slashes (`bench/bench_ticks.py`). This
model looks at the whole box instead. The reader uses it as a veto (a stroke the rules
call a slash that the model calls a tick goes to review) and, on a quiet sheet only, to
read a tick where the stroke's own shape agrees (scanner.marks.shape._quiet_tick: ink off its
band and a widening at the vertex) or where the rules cannot count the strokes
(_quiet_model_tick), and on a scan to confirm a slash that a shape test doubts
(_quiet_slash), ink the rules cannot call one stroke or two (_quiet_one_stroke) or a light
straight one too thin for a mark (_faint_slash), and on a quiet sheet to read a tick that a
shape test doubts when it is all but sure (_sure_model_tick). Its "slash"
vetoes a tick that the rules read from a widening alone (_model_slash). It was trained on
ticks of every arm length and slashes drawn into the blank sheet's mission boxes and read
by the reader itself (scanner/train_tickslash.py, `python -m scanner.train_tickslash`); the
same small network as the digits' (numpy, weights in scanner/models/tickslash.npz). Well
under 0.1 ms a box.

That model learned pens up to 0.75 mm, and called a marker's slash anything (on 540
training-style pages drawn at marker widths, 1.4 % of the slashes read silently as ticks).
A fat mark (inked over the reader's SLASH_MAX_INK) is asked of a second model instead,
trained the same way with 1-1.5 mm markers too (scanner/models/tickslash_thick.npz,
`python -m scanner.train_tickslash --thick`). Retraining the first one with markers was
tried (sessions 16 and 19): each time a few thin stub-armed ticks more read as slashes,
and the reader's thresholds were measured against its answers; a thin mark's reading is
left exactly as it was.

Neither learned crosses. A third model did (scanner/models/tickslash_success.npz,
`--success`: as the marker one, with half its successes crosses), and is asked four
things: whether a stroke the rules read as a tick by a little ink off its band (a second
band under SECOND_CROSS) is a success at all (scanner.marks.shape._far_slash: a light slash
across the printed "+1", or a blurred one, puts a little ink off its band too), whether
a plain slash is all but surely one (scanner.marks.shape._success_slash: a cross blurred into
one blot reads as a slash), and whether a stroke whose shape the rules leave in doubt is
all but surely a slash (scanner.marks.shape._success_says_slash: a marker's blunt end is a
tick's vertex to the other two), and what a light stroke found at a quiet sheet's own
noise in doubt is, when it is all but sure either way (scanner.marks.sheet._light_stroke_settled).

On a scan, the thin-pen model and the success model are both asked of every Executed
box left a review (models_opinion): where the rest of the page needs a mark there but
agrees with a success and a failure alike, their shared word, all but sure, is its shape
(scanner.consistency.shape_by_models).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from scanner.digits import SIDE, hog, load_mlp, mlp_probabilities

MODEL = Path(__file__).parent / "models" / "tickslash.npz"
THICK_MODEL = Path(__file__).parent / "models" / "tickslash_thick.npz"
LOW_RES_MODEL = Path(__file__).parent / "models" / "tickslash_lowres.npz"  # scanner.lowres
SUCCESS_MODEL = Path(__file__).parent / "models" / "tickslash_success.npz"  # crosses too


def box_ink(dk: np.ndarray, over_k: np.ndarray, inside: np.ndarray, printed: np.ndarray,
            level: float) -> np.ndarray:
    """A box's ink as the model sees it: darkness over the paper, over the print (where
    `printed`) darkness over the print's, relative to the mark's own `level`, cropped to
    `inside` (the reader passes the box's inside with the text printed in it, so a stroke
    across "+1" shows whole) and scaled to SIDE x SIDE (0..1)."""
    ink = np.where(printed, over_k, dk) / max(level, 1e-3)
    ink = np.clip(np.where(inside, ink, 0.0), 0.0, 1.0).astype(np.float32)
    ys, xs = np.nonzero(inside)
    crop = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    return cv2.resize(crop, (SIDE, SIDE), interpolation=cv2.INTER_AREA)


def features(ink: np.ndarray) -> np.ndarray:
    """The feature vector of one box's ink (float32): the image at half size and its
    gradient orientations on 4x4 and 2x2 grids."""
    h4, h2 = np.sqrt(hog(ink, 4)), np.sqrt(hog(ink, 2))
    h4 /= np.linalg.norm(h4) + 1e-6
    h2 /= np.linalg.norm(h2) + 1e-6
    coarse = cv2.resize(ink, (SIDE // 2, SIDE // 2), interpolation=cv2.INTER_AREA).ravel()
    return np.concatenate([h4, h2, coarse]).astype(np.float32)


def low_res_available() -> bool:
    """Whether LOW_RES_MODEL is installed (without it scanner.lowres trusts no shape)."""
    return load_mlp(LOW_RES_MODEL) is not None


def tick_probability(ink: np.ndarray, thick: bool = False, low_res: bool = False) -> float:
    """P(tick) for one box's ink (box_ink); 0.0 when the model is missing. A `thick` mark
    (a marker's: the reader's call) is asked of THICK_MODEL, which learned marker widths
    as well as pens; a thinner one of MODEL, which learned pens only and whose answers
    the reader's thresholds were measured against. `low_res`: LOW_RES_MODEL, for a
    sheet photographed at under 60 px/inch (scanner.lowres), where a cross counts as a
    tick (both are a success)."""
    p = _probability(LOW_RES_MODEL if low_res else THICK_MODEL if thick else MODEL, ink)
    return 0.0 if p is None else p


def success_probability(ink: np.ndarray) -> float | None:
    """P(a tick or a cross, not a slash) for one box's ink (box_ink), from SUCCESS_MODEL,
    which learned crosses as successes too (the other two call a fat cross anything);
    None when the model is missing (no opinion either way)."""
    return _probability(SUCCESS_MODEL, ink)


def models_opinion(ink: np.ndarray) -> dict[str, float]:
    """What the thin-pen and the success model both say of one box's ink (box_ink), as a
    box's features models_tick_p and models_success_p (scanner.consistency.shape_by_models
    takes their word where they agree); empty when the success model is missing."""
    success = success_probability(ink)
    if success is None:
        return {}
    return {"models_tick_p": round(tick_probability(ink), 4), "models_success_p": round(success, 4)}


def _probability(path: Path, ink: np.ndarray) -> float | None:
    """The model at `path`'s P(class 1) for one box's ink; None when it is missing."""
    m = load_mlp(path)
    return None if m is None else float(mlp_probabilities(m, features(ink))[0, 1])
