"""Finding the corner markers and reading the sheet code: the quick paths (one threshold
window; the QR code decoded where it should lie) agree with the thorough ones."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
import pytest

import sheets
from scanner import locate as loc
from scanner.identify import (
    _qr_detector,
    _qr_modules,
    decode_at_finders,
    decode_in_place,
    finder_corners,
    first_fit,
    identify,
    qr_corners,
    qr_crop,
)
from sheets.code import SheetCode, encode

DPI = 200


@cache
def blank(kind: str, paper: str) -> np.ndarray:
    """A blank sheet rendered at DPI, grayscale."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(sheets.render(kind, None, paper).pdf)
    arr = doc[0].render(scale=DPI / 72, grayscale=True).to_numpy()
    doc.close()
    return np.ascontiguousarray(arr[..., 0] if arr.ndim == 3 else arr)


def tilted(img: np.ndarray, shift: float) -> np.ndarray:
    """The page seen a little in perspective (its top edge narrower), on a grey table."""
    h, w = img.shape
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[shift, shift / 2], [w - shift, 0], [w, h], [0, h - shift / 3]])
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(img, m, (w, h), borderValue=120)


@pytest.mark.parametrize(("kind", "paper"), [("career", "letter"), ("career", "a4"),
                                             ("spacer-character", "half-letter")])
def test_the_qr_code_lies_where_it_is_looked_for(kind: str, paper: str) -> None:
    img = tilted(blank(kind, paper), 60)
    found = loc.locate(img)
    name, f = first_fit(found.corners)
    assert name == paper
    crop = qr_crop(img, f, name)
    ok, points = _qr_detector().detect(crop)
    assert ok
    want = qr_corners(name, _qr_modules(name)[0] if kind == "career" else 29)
    assert np.abs(points.reshape(4, 2) - want.reshape(4, 2)).max() <= 2.5
    text = decode_in_place(crop, name)
    assert text == identify(img, found.corners, "test").code
    assert text.startswith("SS1:") and f":{paper.upper()}:" in text


def test_qr_sizes_are_those_of_the_codes_printed_on_the_paper() -> None:
    from sheets.markers import qr_matrix

    assert _qr_modules("letter")[0] == len(qr_matrix(encode(SheetCode("opial-career", "later",
                                                                      "letter"))))
    assert 29 in _qr_modules("half-letter")


def test_no_code_where_none_is_printed() -> None:
    assert decode_in_place(np.full((312, 312), 255, np.uint8), "letter") == ""


def test_the_quick_marker_pass_finds_what_the_two_window_pass_finds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    img = tilted(blank("career", "letter"), 80)
    quick = loc.locate(img)
    real = loc._detect
    monkeypatch.setattr(loc, "_detect", lambda gray, mode="fast": real(
        gray, "fast" if mode == "quick" else mode))
    both = loc.locate(img)
    assert sorted(quick.corners) == sorted(both.corners) == [0, 1, 2, 3]
    for i in quick.corners:  # (refined on the full image: the same corners)
        assert np.abs(quick.corners[i] - both.corners[i]).max() < 0.01


def test_a_marker_the_quick_pass_misses_is_looked_for_again(monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    img = blank("career", "letter")
    real = loc._detect
    modes: list[str] = []

    def blind_quick(gray: np.ndarray, mode: str = "fast") -> list[tuple[int, np.ndarray]]:
        modes.append(mode)
        found = real(gray, mode)
        return [(i, c) for i, c in found if i != 2] if mode == "quick" else found

    monkeypatch.setattr(loc, "_detect", blind_quick)
    assert sorted(loc.locate(img).corners) == [0, 1, 2, 3]
    assert modes[:2] == ["quick", "fast"]


def _code_moved(img: np.ndarray, dx: int, dy: int, turn: float) -> np.ndarray:
    """The page with its QR code (and its quiet zone) moved and turned a little on it, as
    page curl or a first fit a millimetre off moves it in a photo."""
    m = sheets.layout("career", "later", "letter")
    x, y, w, h = m.qr[0].rect
    s, page_h = DPI / 72, m.page_size[1]
    u0, v0, u1, v1 = (int(x * s) - 10, int((page_h - y - h) * s) - 10,
                      int((x + w) * s) + 10, int((page_h - y) * s) + 10)
    part = img[v0:v1, u0:u1]
    rot = cv2.getRotationMatrix2D(((u1 - u0) / 2, (v1 - v0) / 2), turn, 1.0)
    rot[:, 2] += (dx, dy)
    out = img.copy()
    out[v0:v1, u0:u1] = 255
    out[v0 - 20:v1 + 20, u0 - 20:u1 + 20] = cv2.warpAffine(
        part, rot + np.array([[0, 0, 20], [0, 0, 20]]), (u1 - u0 + 40, v1 - v0 + 40),
        borderValue=255)
    return out


@pytest.mark.parametrize(("dx", "dy", "turn"), [(7, -5, 0.0), (-6, 6, 2.5), (0, 8, -3.0)])
def test_a_code_off_its_place_is_read_where_its_finders_are(dx: int, dy: int,
                                                           turn: float) -> None:
    img = _code_moved(blank("career", "letter"), dx, dy, turn)
    found = loc.locate(img)
    name, f = first_fit(found.corners)
    crop = qr_crop(img, f, name)
    assert decode_in_place(crop, name) == ""  # (moved far enough to miss where it should be)
    ok, points = _qr_detector().detect(crop)
    assert ok
    corners = finder_corners(crop, name, _qr_modules(name)[0])
    assert corners is not None
    finders = [0, 1, 3]  # (the detector guesses the fourth corner, which has no finder)
    assert np.abs(corners.reshape(4, 2)[finders] - points.reshape(4, 2)[finders]).max() <= 1.5
    text, how = decode_at_finders(crop, name)
    assert text.startswith("SS1:OPIAL-CAREER:LATER:LETTER") and how
    assert identify(img, found.corners, "test").method.startswith("qr")


def test_no_finders_where_no_code_is_printed() -> None:
    white = np.full((312, 312), 255, np.uint8)
    assert finder_corners(white, "letter", 25) is None
    assert decode_at_finders(white, "letter") == ("", "")
