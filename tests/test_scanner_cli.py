"""`starsheets scan` as a user runs it: bad inputs (one line, their exit code, never a
traceback), batches, --json, --overlay, --out."""

from __future__ import annotations

import io
import itertools
import json
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sheets
from starsheets.cli import main
from starsheets.errors import ExitCode

ROOT = Path(__file__).resolve().parent.parent
DPI = 200
Cli = Callable[..., subprocess.CompletedProcess[bytes]]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "starsheets", *args], capture_output=True,
                          cwd=cwd or ROOT, timeout=120)


@pytest.fixture
def cli(capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch) -> Cli:
    def call(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
        monkeypatch.chdir(cwd or ROOT)
        with pytest.raises(SystemExit) as exit_info:
            main(list(args))
        out, err = capsysbinary.readouterr()
        return subprocess.CompletedProcess(list(args), int(exit_info.value.code or 0), out, err)

    return call


@cache
def filled_png() -> bytes:
    import pypdfium2 as pdfium

    from game.opial.rules import load_rules
    from game.opial.state import CareerState
    from sheets.fill import fill_pdf

    state = CareerState.from_dict(json.loads((ROOT / "samples" / "dan-tour3.json").read_text()))
    doc = pdfium.PdfDocument(fill_pdf(state, load_rules("later"), "letter", "pen", 3))
    arr = doc[0].render(scale=DPI / 72, grayscale=True).to_numpy()
    img = np.ascontiguousarray(arr[..., 0] if arr.ndim == 3 else arr)
    return cv2.imencode(".png", img)[1].tobytes()


def _png_header(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk
            + struct.pack(">I", zlib.crc32(chunk)) + b"\x00" * 64)


def _encrypted_pdf() -> bytes:
    from pypdf import PdfWriter

    w = PdfWriter()
    w.add_blank_page(200, 200)
    w.encrypt("secret")
    buf = io.BytesIO()
    w.write(buf)
    return buf.getvalue()


def _no_page_pdf() -> bytes:
    from pypdf import PdfWriter

    buf = io.BytesIO()
    PdfWriter().write(buf)
    return buf.getvalue()


def _cat() -> bytes:
    """A photo with no sheet in it: blobs of fur-coloured noise."""
    rng = np.random.default_rng(7)
    img = cv2.GaussianBlur(rng.integers(0, 255, (600, 800, 3), dtype=np.uint8), (0, 0), 6)
    return cv2.imencode(".jpg", img)[1].tobytes()


def _other_kind() -> bytes:
    """A Spacer reference card: corner markers and a QR code, nothing to read."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(sheets.render("spacer-reference", None, "letter").pdf)
    arr = doc[0].render(scale=150 / 72, grayscale=True).to_numpy()
    img = np.ascontiguousarray(arr[..., 0] if arr.ndim == 3 else arr)
    return cv2.imencode(".png", img)[1].tobytes()


BAD = {
    "text.jpg": (lambda: b"hello, not a picture\n", ExitCode.INPUT_FILE, "not an image"),
    "empty.png": (lambda: b"", ExitCode.INPUT_FILE, "empty"),
    "cut.jpg": (lambda: cv2.imencode(".jpg", cv2.imdecode(
        np.frombuffer(filled_png(), np.uint8), cv2.IMREAD_GRAYSCALE))[1].tobytes()[:30000],
        ExitCode.INPUT_FILE, "truncated"),
    "bomb.png": (lambda: _png_header(30000, 30000), ExitCode.INPUT_FILE, "limit"),
    "corrupt.pdf": (lambda: b"%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage\n",
                    ExitCode.INPUT_FILE, "PDF"),
    "nopages.pdf": (_no_page_pdf, ExitCode.INPUT_FILE, "no pages"),
    "locked.pdf": (_encrypted_pdf, ExitCode.ENCRYPTED, "encrypted"),
    "cat.jpg": (_cat, ExitCode.NOT_A_SHEET, "no sheet found"),
    "spacer.png": (_other_kind, ExitCode.NOT_A_SHEET, "does not read"),
}


@pytest.mark.parametrize("name", ["text.jpg", "cut.jpg", "corrupt.pdf", "locked.pdf",
                                  "cat.jpg"])
def test_bad_input_child_process(tmp_path: Path, name: str) -> None:
    make, code, words = BAD[name]
    (tmp_path / name).write_bytes(make())
    r = run("scan", str(tmp_path / name))
    assert r.returncode == code, r.stderr
    err = r.stderr.decode()
    assert words in err and "Traceback" not in err and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # nothing written beside


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_inputs(tmp_path: Path, cli: Cli, name: str) -> None:
    make, code, words = BAD[name]
    (tmp_path / name).write_bytes(make())
    r = cli("scan", str(tmp_path / name))
    assert r.returncode == code, r.stderr
    assert words in r.stderr.decode(), r.stderr


def test_directory_and_missing_path(tmp_path: Path, cli: Cli) -> None:
    r = cli("scan", str(tmp_path))
    assert r.returncode == ExitCode.INPUT_FILE and b"a directory, not an image" in r.stderr
    r = cli("scan", str(tmp_path / "nope.jpg"))
    assert r.returncode == ExitCode.INPUT_FILE and b"not found" in r.stderr


def test_batch_goes_on_past_a_bad_file_json(tmp_path: Path, cli: Cli) -> None:
    good = tmp_path / "sheet.png"
    good.write_bytes(filled_png())
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"nope")
    r = cli("scan", "--json", "--no-ocr", str(bad), str(good))
    assert r.returncode == ExitCode.INPUT_FILE
    out = json.loads(r.stdout)
    assert [o["source"] for o in out] == [str(bad), str(good)]
    assert "error" in out[0] and out[0]["error"]["exit_code"] == ExitCode.INPUT_FILE
    sheet = out[1]
    assert set(sheet) == {"source", "kind", "edition", "code", "marks", "state", "findings",
                          "score", "ocr", "written", "review", "timing", "warnings"}
    assert sheet["written"] == []  # (OCR turned off: no score line read)
    assert sheet["kind"] == "opial-career" and sheet["edition"] == "later"
    assert sheet["code"] == "SS1:OPIAL-CAREER:LATER:LETTER:L1"
    assert sheet["marks"]["mission.security.1"] == {"state": "slashed",
                                                   "confidence": pytest.approx(
                                                       sheet["marks"]["mission.security.1"]
                                                       ["confidence"])}
    assert all(0 <= m["confidence"] <= 1 for m in sheet["marks"].values())
    assert sheet["state"]["missions"]["security"] == "FSSS"
    assert sheet["score"]["total"] == 10
    assert sheet["review"] == []
    assert sheet["ocr"] == {"skipped": "OCR turned off"}
    assert {"locate", "identify", "rectify", "marks"} <= set(sheet["timing"])


def test_clean_sheet_exit_ok_overlay_and_out(tmp_path: Path, cli: Cli) -> None:
    good = tmp_path / "in" / "sheet.png"
    good.parent.mkdir()
    good.write_bytes(filled_png())
    r = cli("scan", str(good), "--overlay", str(tmp_path / "ov"), "--out", str(tmp_path / "res"))
    assert r.returncode in (ExitCode.OK, ExitCode.FINDINGS), r.stderr
    text = r.stdout.decode()
    assert "score 10" in text
    png = tmp_path / "ov" / "sheet.png"
    img = cv2.imread(str(png))
    m = sheets.layout("career", "later", "letter")
    page_h, page_w = round(m.page_size[1] * DPI / 72), round(m.page_size[0] * DPI / 72)
    assert img.shape[0] > page_h  # the header band above the page
    assert img.shape[1] >= page_w  # (and a margin right of it for what was written)
    assert json.loads((tmp_path / "res" / "sheet.json").read_text())["score"]["total"] == 10
    assert sorted(p.name for p in good.parent.iterdir()) == ["sheet.png"]


def test_jobs_uses_processes(tmp_path: Path, cli: Cli) -> None:
    paths = []
    for k in range(2):
        p = tmp_path / f"s{k}.png"
        p.write_bytes(filled_png())
        paths.append(str(p))
    r = cli("scan", "--json", "--no-ocr", "--jobs", "2", *paths)
    assert r.returncode == ExitCode.OK, r.stderr
    assert [o["score"]["total"] for o in json.loads(r.stdout)] == [10, 10]


def test_a_photo_whose_marks_are_too_faint_is_refused_with_the_fix(tmp_path: Path,
                                                                   cli: Cli) -> None:
    """Light grey pencil photographed from afar, dim and out of focus (bench case 70 of
    seed 11's harsh phone set): a quarter of its marks leave no pixel above the photo's
    noise, so the scanner says so instead of reading them as empty."""
    assert_refused(tmp_path, cli, 235837890543433, "too faint to read", "darker pen")


def test_a_washed_out_photo_is_refused_with_the_fix(tmp_path: Path, cli: Cli) -> None:
    """A black pen photographed out of focus at ~90-140 px/inch, overexposed (bench case
    82 of seed 0's harsh phone set): the print reads at 42 % of its darkness."""
    assert_refused(tmp_path, cli, 63867567125361, "washed out", "evenly lit")


def test_a_photo_with_too_many_unclear_boxes_is_refused_with_the_fix(tmp_path: Path,
                                                                    cli: Cli) -> None:
    """Light pencil on a dim photo (bench case 61 of seed 11's harsh phone set): its marks
    show, but some 70 of 309 boxes are unclear; a better photo is less work than that."""
    assert_refused(tmp_path, cli, 92270813424536, "of 309 boxes unclear", "--read-anyway")


def test_a_blurred_photo_of_dark_marks_with_too_many_unclear_boxes_is_refused(
        tmp_path: Path, cli: Cli) -> None:
    """A tilted, blurred photo of black marks whose far side is ~91 px/inch (bench case 95
    of seed 61's harsh phone set): 54 of 309 boxes unclear. Refused with the fix (the
    rule since session 12: before, only sheets of light marks were)."""
    assert_refused(tmp_path, cli, 91817005560665, "too many boxes are unclear",
                   "sharper photo from straight above")


def test_read_anyway_reads_a_refused_photo_with_a_warning(tmp_path: Path, cli: Cli) -> None:
    """The too-faint photo above, read all the same when the user asks: a sheet with its
    unclear boxes to review and the refusal as a warning (exit 1: look at it)."""
    from scanner.synthetic import make_case, write_case

    photo = write_case(make_case(235837890543433, "phone"), tmp_path, "photo")
    r = cli("scan", "--no-ocr", "--json", "--read-anyway", str(photo))
    assert r.returncode == ExitCode.FINDINGS, r.stderr
    (sheet,) = json.loads(r.stdout)
    assert any(w.startswith("read anyway, though the marks are too faint")
               for w in sheet["warnings"])
    assert sheet["review"] and sheet["score"]["total"] > 0


def assert_refused(tmp_path: Path, cli: Cli, seed: int, what: str, fix: str) -> None:
    """The synthetic harsh phone photo `seed` is refused: one line, exit code 3, the
    photo left as it was."""
    from scanner.synthetic import make_case, write_case

    photo = write_case(make_case(seed, "phone"), tmp_path, "photo")
    before = photo.read_bytes()
    r = cli("scan", "--no-ocr", str(photo))
    assert r.returncode == ExitCode.INPUT_FILE
    err = r.stderr.decode()
    assert err.count("\n") == 1 and what in err and fix in err, err
    assert photo.read_bytes() == before


def _small_photo(path: Path, page_width: int, size: tuple[int, int]) -> Path:
    """The filled sample page `page_width` px wide (Letter: 8.5 in) in a grey photo of
    `size` (w, h), as a JPEG."""
    img = cv2.imdecode(np.frombuffer(filled_png(), np.uint8), cv2.IMREAD_GRAYSCALE)
    page = cv2.resize(img, (page_width, round(page_width * 11 / 8.5)),
                      interpolation=cv2.INTER_AREA)
    w, h = size
    photo = np.full((h, w), 235, np.uint8)
    y, x = (h - page.shape[0]) // 2, (w - page.shape[1]) // 2
    photo[y:y + page.shape[0], x:x + page.shape[1]] = page
    path.write_bytes(cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
    return path


@pytest.mark.parametrize(("page_width", "size", "words"), [
    (306, (320, 400), "This photo is only 320x400 pixels: take it at 2 megapixels or more"),
    (306, (2000, 2000), "Photograph the sheet closer"),
])
def test_sheet_under_the_resolution_floor(tmp_path: Path, cli: Cli, page_width: int,
                                          size: tuple[int, int], words: str) -> None:
    """A whole Letter page at 36 px/inch in a 320x400 photo it fills: the fix is a bigger
    photo (coming closer cannot help). The same page small in the middle of a big photo:
    come closer."""
    path = _small_photo(tmp_path / "small.jpg", page_width, size)
    r = cli("scan", "--no-ocr", str(path))
    err = r.stderr.decode()
    assert r.returncode == ExitCode.INPUT_FILE, err
    assert "too small in the image" in err and words in err and "Traceback" not in err, err


def test_a_sheet_too_small_to_identify_is_refused_as_too_small(tmp_path: Path, cli: Cli
                                                             ) -> None:
    """Its QR code unreadable (here painted over) and its small print too small to tell the
    edition: the sheet's size, under every kind's floor, is what to mend, not its code
    (session 59: three 640x480 photos at 26-35 px/inch). Over the floor the code stays
    the complaint."""
    img = cv2.imdecode(np.frombuffer(filled_png(), np.uint8), cv2.IMREAD_GRAYSCALE)
    h, w = img.shape
    img[int(0.01 * h):int(0.075 * h), int(0.81 * w):int(0.9 * w)] = 255  # (the QR code)
    for page_width, what, code in ((306, "too small in the image (36 pixels per inch)",
                                    ExitCode.INPUT_FILE),
                                   (400, "could not read the sheet code", ExitCode.NOT_A_SHEET)):
        page = cv2.resize(img, (page_width, round(page_width * 11 / 8.5)),
                          interpolation=cv2.INTER_AREA)
        photo = np.full((2000, 2000), 235, np.uint8)
        y, x = (2000 - page.shape[0]) // 2, (2000 - page.shape[1]) // 2
        photo[y:y + page.shape[0], x:x + page.shape[1]] = page
        path = tmp_path / f"small{page_width}.jpg"
        path.write_bytes(cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
        r = cli("scan", "--no-ocr", str(path))
        err = r.stderr.decode()
        assert r.returncode == code and what in err and err.count("\n") == 1, err


def test_a_photo_too_small_for_its_markers_to_show_is_refused_as_too_small(
        tmp_path: Path, cli: Cli) -> None:
    """A 640x480 photo of a sheet at 16-29 px/inch: two of its markers (10-13 px) are
    found, and the fix is a closer photo, not a sheet wholly in view."""
    from scanner.synthetic import case_seed, make_case

    case = make_case(case_seed(1693, "phone", 60), "phone")
    path = tmp_path / "far.jpg"
    path.write_bytes(case.encoded)
    r = cli("scan", "--no-ocr", str(path))
    err = r.stderr.decode()
    assert r.returncode == ExitCode.INPUT_FILE, err
    assert "too small in the image (27 pixels per inch)" in err and "closer" in err, err
    assert "corner markers" not in err and err.count("\n") == 1, err


def test_a_640x480_photo_is_read_for_what_it_shows(tmp_path: Path, cli: Cli) -> None:
    """A whole page at 54 px/inch in a 480x640 photo is read: every box's mark or its
    absence, with the Executed boxes' ticks and slashes that the low-resolution model is
    not all but sure of sent to review at their likely value, the written scores not
    compared, and a warning that says why and what photo reads them. Nothing is read
    wrong."""
    from game.opial.marks import meaning, state_to_marks
    from game.opial.rules import load_rules
    from game.opial.state import CareerState

    path = _small_photo(tmp_path / "vga.jpg", 459, (480, 640))
    r = cli("scan", "--json", str(path))
    assert r.returncode in (ExitCode.OK, ExitCode.FINDINGS), r.stderr.decode()
    sheet = json.loads(r.stdout)[0]
    truth = state_to_marks(CareerState.from_dict(json.loads(
        (ROOT / "samples" / "dan-tour3.json").read_text())), load_rules("later"))
    marks = sheet["marks"]
    wrong = [rid for rid, m in marks.items() if m["state"] != "review"
             and rid in truth and meaning(rid, m["state"]) != meaning(rid, truth[rid])]
    assert not wrong
    executed = [rid for rid in marks if rid.startswith("mission.")
                and meaning(rid, truth[rid]) != "empty"]
    read = [rid for rid in executed if marks[rid]["state"] != "review"]
    assert len(executed) == 10 and len(read) >= 5, read  # (9 of 10 when this was written)
    assert sum(m["state"] == "review" for m in marks.values()) <= len(executed) - len(read) + 5
    assert all(w["status"] != "differs" for w in sheet["written"])
    assert any("54 pixels per inch a mark's shape does not show" in w
               and "2 megapixels" in w for w in sheet["warnings"]), sheet["warnings"]


def test_overlay_lists_written_fields_beside_their_rows_and_flags_unsure_ones() -> None:
    """On the overlay what was read in a written field is listed in a margin right of the
    page, at the field's row, never over the sheet: a score line read with confidence in
    the fields' colour, one read with too little (not used to check the player's sums) in
    the review colour with a "?"."""
    from scanner import overlay
    from scanner.fields import OCR_TRUST
    from scanner.pipeline import SheetResult

    m = sheets.layout("career", "later", "letter")
    h, w = round(m.page_size[1] * DPI / 72), round(m.page_size[0] * DPI / 72)
    res = SheetResult("test", canvas=np.full((h, w), 255, np.uint8), manifest=m)
    blank = overlay.render(res, DPI)
    res.ocr = {"score.skills": {"text": "4", "confidence": 1.0},
               "score.total": {"text": "150", "confidence": OCR_TRUST - 0.3}}
    img = overlay.render(res, DPI)
    assert img.shape[1] > w == blank.shape[1]  # a margin, only when there is a label
    page, margin = img[-h:, :w], img[-h:, w:]
    assert (page == blank[-h:]).all()  # nothing drawn over the page
    s = DPI / 72
    for rid, colour in (("score.skills", overlay.COLOURS["field"]),
                        ("score.total", overlay.COLOURS["review"])):
        _, y, _, rh = next(r.rect for r in m.regions if r.id == rid)
        y0, y1 = round((m.page_size[1] - y - rh) * s), round((m.page_size[1] - y) * s)
        row = margin[y0 - 4:y1 + 4].astype(int)
        near = (np.abs(row - np.array(colour)).sum(axis=2) < 60).sum()
        assert near > 20, rid  # its text, in its colour, at its row


@pytest.mark.parametrize(("wanted", "height", "bottom"), [
    ([10.0, 12.0, 14.0], 10.0, 200.0), ([0.0, 5.0, 195.0, 196.0], 10.0, 200.0),
    ([50.0], 10.0, 200.0), ([], 10.0, 100.0)])
def test_margin_labels_stack_without_overlap_near_their_rows(
        wanted: list[float], height: float, bottom: float) -> None:
    from scanner.overlay import stack

    ys = stack(wanted, height, 0, bottom, 2)
    assert len(ys) == len(wanted)
    assert all(b - a >= height + 2 - 1e-9 for a, b in itertools.pairwise(ys))
    assert all(0 <= y <= bottom - height for y in ys)
    assert all(y >= w for y, w in zip(ys[:1], wanted, strict=False))  # the first: not above


@given(st.lists(st.floats(-50, 1050), max_size=40))
def test_margin_labels_that_fit_never_overlap_and_stay_put_when_they_can(
        wanted: list[float]) -> None:
    from scanner.overlay import stack

    wanted = sorted(wanted)
    ys = stack(wanted, 20, 0, 1000, 4)
    assert all(b - a >= 24 - 1e-6 for a, b in itertools.pairwise(ys))
    assert all(-1e-6 <= y <= 980 + 1e-6 for y in ys)
    if all(0 <= y <= 980 for y in wanted) and all(
            b - a >= 24 for a, b in itertools.pairwise(wanted)):
        assert ys == wanted


def test_margin_rows_group_fields_sharing_a_row_left_to_right() -> None:
    from scanner.overlay import Label, rows

    c = (0, 0, 0)
    got = rows([Label("b", c, 300, 100, 130), Label("a", c, 10, 102, 128),
                Label("top", c, 10, 10, 40), Label("below", c, 10, 140, 170)])
    assert [[lb.text for lb in row] for row in got] == [["top"], ["a", "b"], ["below"]]


@pytest.mark.parametrize("network", [True, False])
def test_the_summary_says_which_written_score_lines_agree_and_which_to_check(
        cli: Cli, network: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan sample has all seven score lines written, Medals as "-1": the lines read for
    sure that agree with the sheet are named, and one read too unsurely to compare is
    named with what was read, to be checked by hand (not silently dropped). The digit
    network reads the crooked minus sign for sure; without it the line is left unsure."""
    from scanner import digits
    from scanner.ocr import engine

    if not engine().available:
        pytest.skip("Tesseract not installed")
    if not network:
        monkeypatch.setattr(digits, "CNN_MODEL", Path("/nonexistent/digits_cnn.npz"))
    r = cli("scan", "samples/photos/scan.jpg")
    text = r.stdout.decode()
    agree = next(ln for ln in text.splitlines() if "written score agrees" in ln)
    assert "Final promotion" in agree and "Grand total" in agree, text
    if network:
        assert "Medals" in agree and "not read for sure" not in text, text
    else:
        assert "Medals" not in agree  # "-1": read as "41", not for sure
        assert 'not read for sure (compare it by hand): Medals (read "' in text, text
    assert "you wrote" not in text  # nothing disagrees


def test_the_demo_ends_with_the_main_job(tmp_path: Path) -> None:
    """`make demo` runs `starsheets demo`: every sheet written, and the last step scans the
    sample photo of Commander Vex's career, printing the score, the miscounted line and
    where the overlay went."""
    from scanner.ocr import engine

    r = run("demo", "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr.decode()[-500:]
    text = r.stdout.decode()
    last = text[text.rindex("=== Scanning"):]
    assert "miscount.jpg" in last and "score 206 (Emperor)" in last, last
    assert f"overlay (what was read, box by box) is in {tmp_path / 'out' / 'overlays'}" in last
    assert (tmp_path / "out" / "overlays" / "miscount.png").is_file()
    assert len(list((tmp_path / "out").glob("*.pdf"))) == 8
    if engine().available:
        assert "Commander Vex" in last
        assert "you wrote 33; the sheet scores 34 — Missions line is off by 1" in last, last


def test_the_overlay_header_sits_above_the_page_and_names_a_miscount() -> None:
    """The score, what to look at and a miscounted line are drawn in a band above the page,
    so they never hide a box or the name; the page below is the same size as the sheet."""
    from game.opial.rules import load_rules
    from game.opial.scoring import score
    from game.opial.state import CareerState
    from scanner import overlay
    from scanner.pipeline import SheetResult
    from scanner.written import DIFFERS, WrittenLine

    m = sheets.layout("career", "later", "letter")
    h, w = round(m.page_size[1] * DPI / 72), round(m.page_size[0] * DPI / 72)
    res = SheetResult("test", canvas=np.full((h, w), 255, np.uint8), manifest=m)
    state = CareerState.from_dict(json.loads((ROOT / "samples" / "dan-tour3.json").read_text()))
    res.score = score(state, load_rules("later"))
    plain = overlay.render(res, DPI)
    res.written = [WrittenLine("total", "Grand total", DIFFERS, "12", 12, 10)]
    assert res.checks == ["you wrote 12; the sheet scores 10 — Grand total line is off by 2"]
    told = overlay.render(res, DPI)
    assert plain.shape[1] == told.shape[1] == w
    assert told.shape[0] - h > plain.shape[0] - h > 0  # one more line in the band
    band = told[: told.shape[0] - h]
    assert (band == (0, 0, 200)).all(axis=2).any()  # the miscount, in red
    assert (told[-h:] == plain[-h:]).all()  # the page itself untouched
