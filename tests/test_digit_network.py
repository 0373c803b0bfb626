"""The digit network (scanner/digits.py: glyph, cnn_probabilities) and how its reading of a
cell is trusted (network_alone, with_vote, agree's veto) and placed in a field
(scanner.fields: _gaps, _faint_minus, _pieces).

Accuracy floors are on digits the shipped network never saw: the last 20 % of the UCI
handwritten digits (real writers, drawn into cells by scanner.train_digit_cnn.in_cell)
and our pen hand drawn with seeds of its own.
"""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from scanner import digits, fields
from scanner.digits import ALONE, CHARS, MINUS, NOT_DIGIT, Guess
from scanner.train_digit_cnn import UCI_TRAIN, in_cell, minus_cell, uci

UCI_FLOOR = 0.95  # held-out UCI digits drawn into cells (measured 0.97)
UCI_SURE_WRONG = 3  # of them read wrong at ALONE (measured 1 of 360)


def _probs(glyphs: list[np.ndarray]) -> np.ndarray:
    p = digits.cnn_probabilities(np.stack(glyphs).astype(np.float32) / 255)
    assert p is not None
    return p


def test_the_network_ships_small_and_has_twelve_classes() -> None:
    assert digits.CNN_MODEL.is_file()
    assert digits.CNN_MODEL.stat().st_size < 300_000
    p = digits.cnn_probabilities(np.zeros((2, digits.SIDE_CNN, digits.SIDE_CNN), np.float32))
    assert p is not None and p.shape == (2, len(CHARS))
    assert np.allclose(p.sum(1), 1.0, atol=1e-5)


def test_no_network_no_probabilities(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digits, "CNN_MODEL", Path("/nonexistent/digits_cnn.npz"))
    assert digits.cnn_probabilities(np.zeros((1, 28, 28), np.float32)) is None
    assert digits.network_alone(None) is None


def test_convolution_is_a_convolution() -> None:
    """_conv3 against OpenCV's filter2D summed over the input channels, then ReLU."""
    rng = np.random.default_rng(1)
    x = rng.random((2, 3, 9, 7)).astype(np.float32)
    w = rng.normal(0, 1, (4, 3, 3, 3)).astype(np.float32)
    b = rng.normal(0, 1, 4).astype(np.float32)
    got = digits._conv3(x, w, b)
    for n in range(2):
        for o in range(4):
            ref = sum(cv2.filter2D(x[n, c], -1, w[o, c], borderType=cv2.BORDER_CONSTANT)
                      for c in range(3)) + b[o]
            assert np.allclose(got[n, o], np.maximum(ref, 0), atol=1e-5)


def test_real_handwriting_held_out() -> None:
    """Writers the network never saw (UCI's last 20 %, in writer order), drawn into cells."""
    imgs, labels = uci()
    cut = int(len(labels) * UCI_TRAIN)
    rng = np.random.default_rng(11)
    p = _probs([in_cell(i, rng) for i in imgs[cut:]])
    best, top = p.argmax(1), p.max(1)
    assert (best == labels[cut:]).mean() >= UCI_FLOOR
    assert ((top >= ALONE) & (best != labels[cut:])).sum() <= UCI_SURE_WRONG


def _pen_cell(ch: str, style: str, seed: int, level: float = 0.8) -> np.ndarray:
    """A digit of our pen hand (sheets.fill.digit_strokes) in a 200 dpi cell: darkness."""
    from sheets.fill import digit_strokes

    s = 200 / 72  # px a point
    cw, chh = 11.0, 10.5  # pt: a score cell
    img = np.zeros((round(chh * s * 4), round(cw * s * 4)), np.float32)
    for st in digit_strokes([ch], [(0.0, 0.0, cw, chh)], style, random.Random(seed)):
        pts = np.array([(x * s * 4, (chh - y) * s * 4) for x, y in st.points])
        cv2.polylines(img, [np.round(pts).astype(np.int32)], False, 1.0,
                      max(1, round(st.width * s * 4 * 0.8)), cv2.LINE_AA)
    return cv2.resize(img, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA) * level


@pytest.mark.parametrize("style", ["clean", "pen"])
def test_our_pen_hand_is_read_alone(style: str) -> None:
    """Every digit of the hand the bench writes, with seeds of its own, pen and pencil
    dark: read right, and nearly all by the network alone."""
    cells = [(d, level) for d in range(10) for level in (0.8, 0.3)]
    glyphs = [(digits.glyph(_pen_cell(str(d), style, 90 + d), 0.12 * level / 0.3) * 255)
              .astype(np.uint8) for d, level in cells]
    p = _probs(glyphs)
    assert [CHARS[k] for k in p.argmax(1)] == [str(d) for d, _ in cells]
    alone = [digits.network_alone(row) for row in p]
    assert sum(a is not None for a in alone) >= 0.9 * len(cells)
    assert all(a is None or a[0] == str(d) for a, (d, _) in zip(alone, cells, strict=True))


def test_minus_signs_and_noise() -> None:
    """Crooked minus signs are MINUS; a haze of noise over a cell is NOT_DIGIT."""
    rng = np.random.default_rng(4)
    p = _probs([minus_cell(rng) for _ in range(20)])
    assert (p.argmax(1) == MINUS).mean() >= 0.95
    haze = np.clip(rng.normal(0.2, 0.06, (29, 31)), 0, 1).astype(np.float32)
    q = _probs([(digits.glyph(haze, 0.18) * 255).astype(np.uint8)])
    assert q.argmax() == NOT_DIGIT


def test_glyph_looks_alike_in_pen_and_pencil() -> None:
    """Darkness is stretched from the ink threshold to the strokes' core: a light pencil 4
    and a dark pen 4 make nearly the same glyph; an empty cell makes an empty one."""
    dark = digits.glyph(_pen_cell("4", "clean", 1, 0.85), 0.12)
    light = digits.glyph(_pen_cell("4", "clean", 1, 0.3), 0.1)
    assert np.abs(dark - light).mean() < 0.05
    assert not digits.glyph(np.zeros((29, 31), np.float32), 0.12).any()


def test_a_one_stays_thin() -> None:
    one = digits.glyph(_pen_cell("1", "clean", 2), 0.12)
    cols = np.flatnonzero(one.max(0) > 0.5)
    assert cols.size and cols.max() - cols.min() < digits.FIT_CNN / 2


def _p(cls: int, top: float) -> np.ndarray:
    p = np.full(len(CHARS), (1 - top) / (len(CHARS) - 1))
    p[cls] = top
    return p


MLP_SEVEN = Guess("7", 0.99, "1", 0.01)
MLP_UNSURE = Guess("7", 0.5, "1", 0.4)


@pytest.mark.parametrize(("p", "want"), [
    (_p(7, 0.9995), ("7", 0.9995)),
    (_p(7, 0.995), None),  # not sure enough alone
    (_p(NOT_DIGIT, 0.9995), ("", 0.9995)),
    (_p(NOT_DIGIT, 0.998), None),
    (_p(MINUS, 0.9995), ("-", 0.9995)),
])
def test_network_alone(p: np.ndarray, want: tuple[str, float] | None) -> None:
    got = digits.network_alone(p)
    assert got == (None if want is None else (want[0], pytest.approx(want[1])))


@pytest.mark.parametrize(("p", "guess", "reads", "want"), [
    (_p(7, 0.995), MLP_SEVEN, [], "7"),  # the classifier's vote
    (_p(7, 0.995), MLP_UNSURE, [], None),  # ... not sure enough to vote
    (_p(7, 0.995), MLP_UNSURE, [("7", 0.8)], "7"),  # Tesseract's vote
    (_p(7, 0.995), MLP_UNSURE, [("7", 0.8), ("1", 0.9)], None),  # Tesseract split
    (_p(7, 0.98), MLP_SEVEN, [("7", 0.9)], None),  # the network not sure enough
    (_p(MINUS, 0.995), MLP_SEVEN, [], None),  # only digits get votes
])
def test_with_vote(p: np.ndarray, guess: Guess, reads: list[tuple[str, float]],
                   want: str | None) -> None:
    got = digits.with_vote(p, guess, reads)
    assert (got and got[0]) == want or (got is None and want is None)


def test_the_network_vetoes_what_the_others_agree_on() -> None:
    """The classifier and Tesseract agree on a 4 the network gives 9: unsure."""
    four = Guess("4", 0.99, "9", 0.01)
    assert digits.agree([("4", 0.9)], four, 0.7, 0.0)[1] >= digits.CONFIRM
    assert digits.agree([("4", 0.9)], four, 0.7, 0.0, _p(9, 0.6))[1] < digits.CONFIRM
    assert digits.agree([("4", 0.9)], four, 0.7, 0.0, _p(4, 0.6))[1] >= digits.CONFIRM


def _cell(digit: str) -> fields.Cell:
    z = np.zeros((2, 2))
    return fields.Cell(digit, 1.0, Guess(digit, 1.0, "0", 0.0), [], 0.5, z, z > 0)


@pytest.mark.parametrize(("chars", "inked", "want"), [
    (["", "3", "3"], [False] * 3, ["", "3", "3"]),
    (["1", "", "0"], [False] * 3, ["1", "?", "0"]),  # a digit lost between two
    (["", "", "2"], [False, True, False], ["", "?", "2"]),  # a faint minus before it
    (["", "", "2"], [True, False, False], ["", "", "2"]),  # ink two cells off: noise
    (["", "", ""], [True, True, True], ["", "", ""]),  # nothing written
])
def test_gaps(chars: list[str], inked: list[bool], want: list[str]) -> None:
    got: list[str | fields.Cell] = [_cell(c) if c else "" for c in chars]
    fields._gaps(got, inked)
    assert [c if isinstance(c, str) else c.digit for c in got] == want


@pytest.mark.parametrize(("chars", "faint", "want"), [
    (["", "2", ""], [False, False, True], ["", "2", "?"]),  # a faint last digit: "20"?
    (["2", "0", ""], [False, False, False], ["2", "0", ""]),  # written from the left
    (["", "", ""], [True, True, True], ["", "", ""]),  # nothing written
])
def test_gaps_after_the_number(chars: list[str], faint: list[bool], want: list[str]) -> None:
    """A right-aligned number ends in the last cell: an empty cell after it that holds
    faint ink is a digit too faint to read, not the end of the number."""
    got: list[str | fields.Cell] = [_cell(c) if c else "" for c in chars]
    fields._gaps(got, [False] * len(chars), faint)
    assert [c if isinstance(c, str) else c.digit for c in got] == want


def test_a_pale_one_before_a_number() -> None:
    """_pale_stroke: one light upright stroke across a cell's middle is a 1 too pale to
    count as ink (12 read as a trusted 2); the same by the cell's side (its frame), a wide
    haze, or no ink over the threshold at all is not."""
    sub = np.zeros((29, 31), np.float32)
    sub[6:25, 13:17] = 0.15  # faint: 19 px high, 4 wide, in the middle
    sub[10:13, 14:16] = 0.25  # a little over the ink threshold
    assert fields._pale_stroke(sub, 0.2)
    assert not fields._pale_stroke(np.roll(sub, 13, axis=1), 0.2)  # by the right side
    assert not fields._pale_stroke(np.where(sub > 0.2, 0.15, sub), 0.2)  # no ink at all
    haze = sub.copy()
    haze[6:25, 5:26] = np.maximum(haze[6:25, 5:26], 0.12)
    assert not fields._pale_stroke(haze, 0.2)


def test_a_faint_minus_and_a_minus_in_pieces() -> None:
    sub = np.zeros((29, 31), np.float32)
    sub[13:18, 10:20] = 0.15  # faint ink: 5 px by 10 across the middle
    assert fields._faint_minus(sub)
    sub[3:8, 10:20] = 0.15  # ... and more above it: no stroke
    assert not fields._faint_minus(sub)
    ink = np.zeros((29, 31), bool)
    ink[14:16, 5:12] = ink[14:16, 16:25] = True
    assert fields._pieces(ink)
    ink[14:16, 12:16] = True
    assert not fields._pieces(ink)


def test_written_cases_draw_what_the_bench_draws() -> None:
    """make_case(written=True) makes the bench's own case where it has score lines anyway
    (the same random draws), and writes them where it has none."""
    from scanner.synthetic import make_case

    cases = {s: make_case(s, "clean") for s in range(12)}
    with_lines = next(s for s, c in cases.items() if c.state.written)
    without = next(s for s, c in cases.items()
                   if not c.state.written and c.meta["sheet"]["kind"] != "blank")
    assert (make_case(with_lines, "clean", written=True).encoded
            == make_case(with_lines, "clean").encoded)
    assert make_case(without, "clean", written=True).state.written


def test_cells_of_a_written_case(tmp_path: Path) -> None:
    """scanner.digit_cases reads a case's digit cells as the reader sees them, each with
    its truth: the digits written, right-aligned in their fields."""
    from scanner.digit_cases import cells_of
    from scanner.synthetic import make_case, write_case
    from sheets.fill import digit_cells_text

    case = make_case(3, "clean", written=True)
    path = write_case(case, tmp_path, "case")
    glyphs, labels = cells_of(str(path))
    want = [CHARS.index(ch) for v in (case.state.written or {}).values()
            for ch in digit_cells_text(v, 3) if ch]
    assert sorted(labels) == sorted(want) and len(glyphs) == len(labels)
    p = _probs(glyphs)
    assert (p.argmax(1) == np.array(labels)).mean() >= 0.9
