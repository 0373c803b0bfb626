"""The sheet framework: sheet code, recorder, registry, and machine readability."""

from __future__ import annotations

import numpy as np
import pytest

import sheets
from sheets.code import LAYOUT_VERSION, SheetCode, decode, encode
from sheets.manifest import Manifest, Recorder
from sheets.paper import PAPERS, get_paper
from sheets.registry import SheetKind, get_kind, register
from starsheets.errors import NotASheetError, UsageError


def test_code_round_trip_and_case() -> None:
    code = SheetCode("opial-career", "later", "letter")
    text = encode(code)
    assert text == f"SS1:OPIAL-CAREER:LATER:LETTER:{LAYOUT_VERSION}"
    assert decode(text) == code
    assert decode(text.lower()) == code
    assert decode(" SS1:spacer-character:default:half-letter:L2 ") == SheetCode(
        "spacer-character", "default", "half-letter", "L2")


@pytest.mark.parametrize("bad", ["", "hello", "SS2:A:B:C:L1", "SS1:a:b:c", "SS1:a:b:c:X1",
                                 "SS1:a b:c:d:L1"])
def test_decode_rejects(bad: str) -> None:
    with pytest.raises(NotASheetError):
        decode(bad)


def test_layout_for_code() -> None:
    m = sheets.layout("career", "earlier", "a4")
    assert sheets.layout_for_code(m.code) is m
    with pytest.raises(NotASheetError):
        sheets.layout_for_code("SS1:OPIAL-CAREER:LATER:LETTER:L0")
    with pytest.raises(NotASheetError):
        sheets.layout_for_code("SS1:NO-SUCH-SHEET:LATER:LETTER:L1")


def test_papers() -> None:
    assert set(PAPERS) >= {"letter", "a4", "half-letter", "a5"}
    assert get_paper("A4") is PAPERS["a4"]
    assert round(PAPERS["half-letter"].width) == 396
    with pytest.raises(UsageError):
        get_paper("b5")
    with pytest.raises(UsageError):
        get_paper("a5", ("letter", "a4"))


def test_recorder_refuses_duplicates_and_bad_kinds() -> None:
    rec = Recorder()
    rec.region("a.1", "checkbox", (0, 0, 10, 10))
    with pytest.raises(ValueError):
        rec.region("a.1", "checkbox", (20, 0, 10, 10))
    with pytest.raises(ValueError):
        rec.region("b", "circle", (0, 0, 10, 10))
    with pytest.raises(ValueError):
        rec.region("c", "digits", (0, 0, 30, 10))  # digits need cells
    assert [r.group for r in rec] == ["a"]


def test_manifest_json_round_trip() -> None:
    m = sheets.layout("career", "later", "letter")
    assert Manifest.from_json(m.to_json()) == m


def test_registry_is_extensible_and_aliases_resolve() -> None:
    from sheets.draw import checkbox, text

    def draw_demo(sheet: sheets.draw.Sheet) -> None:
        x, y, _w, h = sheet.frame
        text(sheet, x, y + h - 12, "demo")
        checkbox(sheet, "demo.1", x, y + h - 40, 12)

    demo = SheetKind("test-demo", "Demo", draw_demo, ("default",), "default",
                     ("half-letter", "a5"), aliases=("demo-sheet",))
    register(demo)
    assert get_kind("demo-sheet") is demo
    r = sheets.render("demo-sheet", None, "a5")
    assert r.manifest.code == "SS1:TEST-DEMO:DEFAULT:A5:L1"
    assert [x.id for x in r.manifest.regions] == ["demo.1"]
    assert len(r.manifest.fiducials) == 4
    with pytest.raises(UsageError):
        sheets.render("demo-sheet", "later", "a5")
    with pytest.raises(UsageError):
        get_kind("nope")
    assert get_kind("career").id == "opial-career"


def _raster(pdf: bytes, dpi: int = 110) -> np.ndarray:
    import pypdfium2 as pdfium

    page = pdfium.PdfDocument(pdf)[0]
    img = page.render(scale=dpi / 72).to_numpy()
    return np.ascontiguousarray(img[:, :, :3].mean(axis=2).astype(np.uint8))


@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_fiducials_and_qr_are_machine_readable(paper: str) -> None:
    """cv2 finds ArUco ids 0..3 where the manifest says, and reads the QR payload."""
    cv2 = pytest.importorskip("cv2")
    r = sheets.render("career", "later", paper)
    dpi = 110
    img = _raster(r.pdf, dpi)
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
        cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(img)
    assert ids is not None
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}
    assert set(found) == {0, 1, 2, 3}
    k = dpi / 72
    height = r.manifest.page_size[1]
    for f in r.manifest.fiducials:
        expected = np.array([(x * k, (height - y) * k) for x, y in f.corners])
        assert np.abs(found[f.id] - expected).max() < 3.0, f.id
    edge = int(np.floor(6 * dpi / 25.4)) - 1  # nothing printed within 6 mm of the edge
    assert img[:edge].min() > 250 and img[-edge:].min() > 250
    assert img[:, :edge].min() > 250 and img[:, -edge:].min() > 250
    (qr,) = r.manifest.qr
    x, y, w, h = qr.rect
    k = 200 / 72
    page = _raster(r.pdf, 200)
    top, left = int((height - y - h - qr.quiet) * k), int((x - qr.quiet) * k)
    crop = page[top:top + int((h + 2 * qr.quiet) * k), left:left + int((w + 2 * qr.quiet) * k)]
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(crop)
    assert text == r.manifest.code
