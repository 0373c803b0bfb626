"""A small handwritten-digit classifier, the second opinion beside Tesseract.

    classify(ink) -> Guess      one cell's ink (bool or 0..1 array, 1 = ink): the digit,
                                its probability and the runner-up's
    features(ink) -> vector     what the model sees (shared with scanner.train_digits)

Tesseract reads printed text well and handwriting poorly; this model was trained on real
handwriting (the UCI/NIST digits) and on our own pen hand and a few fonts, all heavily
augmented (scanner/train_digits.py, `python -m scanner.train_digits`). Its errors are
largely independent of Tesseract's, so the readers use it as a vote: a cell both agree on
is trusted, a cell they disagree on goes to review. The glyph is cropped to its ink,
scaled (aspect kept) into a 20 px square and described by histograms of gradient
orientation on two grids plus a coarse image and its aspect ratio; a one-hidden-layer
network (numpy only, weights in scanner/models/digits.npz) gives the class
probabilities. About 0.1 ms a cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

MODEL = Path(__file__).parent / "models" / "digits.npz"
CNN_MODEL = Path(__file__).parent / "models" / "digits_cnn.npz"
SIDE = 20  # px: the normalised glyph's square
FIT = 16  # px: the glyph's longest side inside it
BINS = 8  # signed gradient orientations
SIDE_CNN, FIT_CNN = 28, 20  # px: the network's square and the glyph's longest side in it
CORE_SHARE = 0.5  # measured on bench cells: 85 % right at the sheet's threshold, 95 % at this
CONFIRM = 0.6  # the classifier's probability needed to confirm Tesseract's digit
CONFIRM_17 = 0.97  # ... for a 1 or a 7 (a 1 with a flag and a 7 are the likely confusion)
TESS_SURE = 0.5  # a Tesseract reading below this confidence is no vote
ZERO_HOLE = 0.17  # one hole this big a share of the glyph: a 0 (6, 8, 9 at most 0.14)
SEVEN_ONE = {"7": (0.62, 9.0), "1": (0.0, 0.66)}  # width/height a 7 or a 1 can have
UNANIMOUS = 5  # ... unless every one of this many Tesseract readings (all of fields.VARIANTS)
#   gives the classifier's 1 or 7 (p >= CONFIRM): then a 1 up to UNANIMOUS_ONE wide (a long
#   flag and a base) and a 7 of SEVEN_ONE's width are trusted. Cached bench cells, six seeds:
#   96 more cells read right, none wrong (a 1 the two readers swap for a 7 splits the five)
UNANIMOUS_ONE = 1.3
LEANS = 0.45  # an untrusted cell's confidence when both readers lean to its digit (0.3 when
#   they do not)
NOT_DIGIT = 10  # the network's eleventh class: ink in a cell, but no digit (a shadow's edge,
#   noise, the frame's residue in a cell the player left empty)
MINUS = 11  # ... and its twelfth: a minus sign too crooked or thick for fields' flat test
CHARS = (*"0123456789", "", "-")  # what each of the network's classes writes in a cell
# The network's bars (session 48; chosen on six held-out seeds' written cells, 5,927 lines,
# and checked on 2,360 real handwritten digits, MNIST's and UCI's held out: docs/scanner.md)
ALONE = 0.999  # the network this sure of a digit reads the cell by itself
WITH_VOTE = 0.99  # ... this sure, with the classifier's or Tesseract's sure vote for it
VETO = 0.5  # a reading the two others agree on stays unsure if the network gives another
#   digit this much (the old readers' errors on real handwriting were mostly such)
NO_DIGIT = 0.999  # a cell it gives NOT_DIGIT this much holds no digit (a leading cell is
#   then empty; a cell after a digit is unreadable)


@dataclass(frozen=True)
class Guess:
    """The classifier's answer for one cell."""

    digit: str
    p: float  # its probability
    second: str  # the runner-up
    p2: float


def normalise(ink: np.ndarray) -> np.ndarray:
    """The ink cropped to its bounding box, scaled to FIT px on its longest side (aspect
    kept) and centred in a SIDE x SIDE float image (1 = ink); also the aspect w/h."""
    a = np.asarray(ink, dtype=np.float32)
    ys, xs = np.nonzero(a > 0.5)
    if ys.size == 0:
        return np.zeros((SIDE, SIDE), np.float32)
    return _in_square(a[ys.min():ys.max() + 1, xs.min():xs.max() + 1], SIDE, FIT)


def _in_square(crop: np.ndarray, side: int, fit: int) -> np.ndarray:
    """A crop scaled to `fit` px on its longest side (aspect kept), centred in a `side`
    square, clipped to 0..1."""
    out = np.zeros((side, side), np.float32)
    h, w = crop.shape
    k = fit / max(h, w)
    nh, nw = max(1, round(h * k)), max(1, round(w * k))
    interp = cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR
    small = cv2.resize(crop, (nw, nh), interpolation=interp)
    y0, x0 = (side - nh) // 2, (side - nw) // 2
    out[y0:y0 + nh, x0:x0 + nw] = np.clip(small, 0, 1)
    return out


def glyph(sub: np.ndarray, t_ink: float) -> np.ndarray:
    """A cell's darkness as the network sees it: cropped to its ink (cell_ink), scaled to
    FIT_CNN px on its longest side (aspect kept), centred in a SIDE_CNN square, and its
    darkness stretched from the ink threshold (0) to its strokes' core (1), so a pencil
    and a pen digit look alike (float32)."""
    a = np.asarray(sub, dtype=np.float32)
    ink = cell_ink(a, t_ink)
    ys, xs = np.nonzero(ink)
    if ys.size == 0:
        return np.zeros((SIDE_CNN, SIDE_CNN), np.float32)
    core = float(np.percentile(a[ink], 90))
    lo = min(t_ink, 0.5 * core)
    crop = np.clip((a[ys.min():ys.max() + 1, xs.min():xs.max() + 1] - lo)
                   / max(core - lo, 1e-3), 0, 1)
    return _in_square(crop, SIDE_CNN, FIT_CNN)


def hog(img: np.ndarray, cells: int) -> np.ndarray:
    """Histograms of signed gradient orientation (BINS, magnitude-weighted, soft-binned)
    on a cells x cells grid of a SIDE x SIDE image."""
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy)
    ang = (np.arctan2(gy, gx) % (2 * np.pi)) * (BINS / (2 * np.pi))
    b0 = np.floor(ang).astype(np.int64) % BINS
    f = ang - np.floor(ang)
    b1 = (b0 + 1) % BINS
    cell = (np.arange(SIDE) * cells // SIDE)
    idx = (cell[:, None] * cells + cell[None, :]) * BINS
    hist = np.bincount((idx + b0).ravel(), (mag * (1 - f)).ravel(), cells * cells * BINS)
    hist += np.bincount((idx + b1).ravel(), (mag * f).ravel(), cells * cells * BINS)
    return hist.astype(np.float32)


def features(ink: np.ndarray) -> np.ndarray:
    """The feature vector of one glyph (float32)."""
    a = np.asarray(ink, dtype=np.float32)
    ys, xs = np.nonzero(a > 0.5)
    aspect = (xs.max() - xs.min() + 1) / (ys.max() - ys.min() + 1) if ys.size else 1.0
    img = cv2.GaussianBlur(normalise(a), (3, 3), 0.8)
    h4, h2 = np.sqrt(hog(img, 4)), np.sqrt(hog(img, 2))
    h4 /= np.linalg.norm(h4) + 1e-6
    h2 /= np.linalg.norm(h2) + 1e-6
    coarse = cv2.resize(img, (5, 5), interpolation=cv2.INTER_AREA).ravel()
    return np.concatenate([h4, h2, coarse, [np.log(max(aspect, 0.05))]]).astype(np.float32)


def _flushed(v: np.ndarray) -> np.ndarray:
    """float32 with subnormal values set to zero: training leaves many weights under
    float32's smallest normal number, and a matrix product over subnormals runs about ten
    times slower (the audit model: 20 ms a sheet instead of 0.3) for no difference in its
    output."""
    v = v.astype(np.float32)
    v[np.abs(v) < np.finfo(np.float32).tiny] = 0.0
    return v


def _weights(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: _flushed(z[k]) for k in z.files}


@cache
def _model() -> dict[str, np.ndarray]:
    return _weights(MODEL)


def probabilities(x: np.ndarray) -> np.ndarray:
    """Class probabilities (rows) for feature vectors (rows)."""
    return mlp_probabilities(_model(), x)


@cache
def load_mlp(path: Path) -> dict[str, np.ndarray] | None:
    """The weights of a network trained by scanner.train_digits.train, saved at `path`
    (float32); None when the file is missing."""
    return _weights(path) if path.exists() else None


def mlp_probabilities(m: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """Class probabilities (rows) of a network trained by scanner.train_digits.train."""
    x = (np.atleast_2d(x) - m["mean"]) / m["std"]
    h = np.maximum(x @ m["w1"] + m["b1"], 0)
    z = h @ m["w2"] + m["b2"]
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _conv3(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A 3x3 convolution, padding 1, then ReLU: x (n, c, h, w), w (o, c, 3, 3)."""
    n, c, h, wd = x.shape
    win = np.lib.stride_tricks.sliding_window_view(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))),
                                                   (3, 3), axis=(2, 3))  # n, c, h, w, 3, 3
    cols = win.transpose(0, 2, 3, 1, 4, 5).reshape(n * h * wd, c * 9)
    y = cols @ w.reshape(w.shape[0], -1).T + b
    return np.maximum(y, 0).reshape(n, h, wd, -1).transpose(0, 3, 1, 2)


def _pool2(x: np.ndarray) -> np.ndarray:
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def _cnn() -> dict[str, np.ndarray] | None:
    return load_mlp(CNN_MODEL)  # (load_mlp caches; CNN_MODEL may be pointed elsewhere)


def cnn_probabilities(glyphs: np.ndarray, m: dict[str, np.ndarray] | None = None
                      ) -> np.ndarray | None:
    """The network's class probabilities (0-9, NOT_DIGIT, MINUS: CHARS) for glyphs (n x
    SIDE_CNN x SIDE_CNN, as `glyph` makes them); None when its weights are missing. Two
    blocks of two 3x3 convolutions and a 2x2 max-pool, a hidden layer, softmax (numpy
    only; the weights of scanner.train_digit_cnn)."""
    m = m if m is not None else _cnn()
    if m is None:
        return None
    x = np.asarray(glyphs, np.float32).reshape(-1, 1, SIDE_CNN, SIDE_CNN)
    for block in ((1, 2), (3, 4)):
        for k in block:
            x = _conv3(x, m[f"c{k}w"], m[f"c{k}b"])
        x = _pool2(x)
    h = np.maximum(x.reshape(len(x), -1) @ m["f1w"].T + m["f1b"], 0)
    z = h @ m["f2w"].T + m["f2b"]
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def classify(ink: np.ndarray) -> Guess:
    """The digit one cell's ink most likely is, with the runner-up."""
    p = probabilities(features(ink))[0]
    o = np.argsort(p)[::-1]
    return Guess(str(o[0]), float(p[o[0]]), str(o[1]), float(p[o[1]]))


def cell_ink(sub: np.ndarray, t_ink: float) -> np.ndarray:
    """A cell's ink as the classifier sees it: darker than half its strokes' core (the
    90th percentile of its ink), so a blurred or felt-pen stroke is not a blob (a flag
    on a 1 read as a 7's bar); never lighter than the sheet's ink threshold."""
    ink = sub > t_ink
    if not ink.any():
        return ink
    core = float(np.percentile(sub[ink], 90))
    thin = sub > max(t_ink, CORE_SHARE * core)
    return thin if thin.any() else ink


def can_confirm(guess: Guess) -> bool:
    """Whether the classifier is sure enough of its digit to confirm a reading at all."""
    return guess.p >= (CONFIRM_17 if guess.digit in "17" else CONFIRM)


def unanimous(reads: list[tuple[str, float]], guess: Guess) -> bool:
    """Every Tesseract reading so far gives the classifier's 1 or 7, each a vote (TESS_SURE),
    and the classifier's probability is at least CONFIRM (see UNANIMOUS)."""
    return (guess.digit in SEVEN_ONE and guess.p >= CONFIRM and bool(reads)
            and all(t == guess.digit and c >= TESS_SURE for t, c in reads))


def network_alone(p: np.ndarray | None) -> tuple[str, float] | None:
    """The cell's reading from the network alone, when it is sure of it: a digit or a
    minus sign (ALONE), or no digit ('' for NOT_DIGIT, at NO_DIGIT); None when it is not
    sure (or missing)."""
    if p is None:
        return None
    b = int(p.argmax())
    return (CHARS[b], float(p[b])) if p[b] >= (NO_DIGIT if b == NOT_DIGIT else ALONE) else None


def with_vote(p: np.ndarray | None, guess: Guess, reads: list[tuple[str, float]]
              ) -> tuple[str, float] | None:
    """The network's digit when it gives it WITH_VOTE or more and the classifier (sure
    enough: can_confirm) or every sure Tesseract reading (at least one) gives it too."""
    if p is None or int(p.argmax()) >= NOT_DIGIT or p.max() < WITH_VOTE:
        return None
    d = CHARS[int(p.argmax())]
    sure = {t for t, c in reads if t and c >= TESS_SURE}
    if (guess.digit == d and can_confirm(guess)) or sure == {d}:
        return d, float(p.max())
    return None


def agree(reads: list[tuple[str, float]], guess: Guess, aspect: float,
          hole: float, p: np.ndarray | None = None) -> tuple[str, float]:
    """One cell's digit and confidence from Tesseract's readings (text, confidence; ''
    for none), the classifier's guess and the network's probabilities `p` (None: no
    network). Trusted (confidence >= CONFIRM) when the network is sure with a vote
    (with_vote); else only when the classifier is sure enough and every confident
    Tesseract reading gives its digit (at least one); a 1 or a 7 that all UNANIMOUS
    readings give, and the classifier too; or, Tesseract silent, a round 0 with one big
    hole the classifier also calls 0; and never when the network gives another digit
    (or no digit, or a minus) VETO or more. Otherwise the likely digit with confidence <= 0.45 (to review)."""
    voted = with_vote(p, guess, reads)
    if voted is not None:
        return voted
    digit, conf = _agree_readers(reads, guess, aspect, hole)
    if p is not None and conf >= CONFIRM and CHARS[int(p.argmax())] != digit and p.max() >= VETO:
        return digit, min(conf, 0.3)
    return digit, conf


def _agree_readers(reads: list[tuple[str, float]], guess: Guess, aspect: float,
                   hole: float) -> tuple[str, float]:
    """agree without the network: the classifier and Tesseract."""
    sure = {t for t, c in reads if t and c >= TESS_SURE}
    lo, hi = SEVEN_ONE.get(guess.digit, (0.0, 99.0))
    shaped = lo <= aspect <= hi
    if sure == {guess.digit} and can_confirm(guess) and shaped:
        best = max(c for t, c in reads if t == guess.digit)
        return guess.digit, max(best, guess.p)
    wide = UNANIMOUS_ONE if guess.digit == "1" else hi
    if len(reads) >= UNANIMOUS and unanimous(reads, guess) and lo <= aspect <= wide:
        return guess.digit, max(guess.p, min(c for _, c in reads))
    if not sure and guess.digit == "0" and can_confirm(guess) and hole >= ZERO_HOLE:
        return "0", guess.p
    votes: dict[str, float] = {}
    for t, c in reads:
        if t:
            votes[t] = votes.get(t, 0.0) + c + 0.01
    likely = max(votes, key=lambda k: votes[k]) if votes else guess.digit
    if likely in SEVEN_ONE and not (SEVEN_ONE[likely][0] <= aspect <= SEVEN_ONE[likely][1]):
        likely = "1" if likely == "7" else "7"  # a 1 with a flag read as 7, or the other way
    return likely, min(LEANS, guess.p if likely == guess.digit else 0.3)
