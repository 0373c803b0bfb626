"""`starsheets booklet` end to end: numbered PDFs imposed, read back slot by slot."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_raw
import pytest
from click.testing import CliRunner
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, DecodedStreamObject, NameObject, NumberObject
from reportlab.lib.pagesizes import A4, letter
from reportlab.pdfgen import canvas

from sheets.booklet import SHEETS, BookletSettings, make_booklet
from sheets.imposition import PT_PER_MM, Bind, Flip
from starsheets.cli import cli

ROOT = Path(__file__).resolve().parent.parent


# --- fixtures and readers ---------------------------------------------------------------------

def numbered_pdf(path: Path, count: int, sizes: dict[int, tuple[float, float]] | None = None,
                 rotate: dict[int, int] | None = None) -> Path:
    """Page n (1-based) shows its number, big and centred; letter unless `sizes` says;
    `rotate` gives pages a /Rotate (the viewer turns them clockwise)."""
    c = canvas.Canvas(str(path), pagesize=letter)
    for n in range(1, count + 1):
        width, height = (sizes or {}).get(n, letter)
        c.setPageSize((width, height))
        c.setLineWidth(3)
        c.rect(18, 18, width - 36, height - 36)
        c.setFont("Helvetica-Bold", 120)
        c.drawCentredString(width / 2, height / 2 - 43, str(n))
        c.showPage()
    c.save()
    if rotate:
        writer = PdfWriter(clone_from=PdfReader(path))
        for n, degrees in rotate.items():
            writer.pages[n - 1].rotate(degrees)
        writer.write(path)
    return path


@dataclass
class Slot:
    """What one half of an output page shows: its text, the text's clockwise angle in
    degrees (as PDFium measures it), its box."""

    text: str
    angle: int
    box: tuple[float, float, float, float] | None


def read_slots(path: Path) -> list[tuple[Slot, Slot]]:
    """Per output page, (left half, right half) as a renderer (PDFium) sees them."""
    doc = pdfium.PdfDocument(str(path))
    sides = []
    for i in range(len(doc)):
        page = doc[i]
        width, _ = page.get_size()
        textpage = page.get_textpage()
        halves: list[list[tuple[str, float, tuple[float, float, float, float]]]] = [[], []]
        for k in range(textpage.count_chars()):
            char = textpage.get_text_range(k, 1)
            if not char.strip():
                continue
            box = textpage.get_charbox(k)
            angle = pdfium_raw.FPDFText_GetCharAngle(textpage, k)
            halves[0 if (box[0] + box[2]) / 2 < width / 2 else 1].append((char, angle, box))
        sides.append((_slot(halves[0]), _slot(halves[1])))
    doc.close()
    return sides


def _slot(chars: list[tuple[str, float, tuple[float, float, float, float]]]) -> Slot:
    if not chars:
        return Slot("", 0, None)
    boxes = [box for _, _, box in chars]
    box = (min(b[0] for b in boxes), min(b[1] for b in boxes),
           max(b[2] for b in boxes), max(b[3] for b in boxes))
    degrees = round(chars[0][1] * 180 / 3.141592653589793) % 360
    return Slot("".join(c for c, _, _ in chars), degrees, box)


def texts(path: Path) -> list[tuple[str, str]]:
    return [(left.text, right.text) for left, right in read_slots(path)]


def drawn_pages(path: Path) -> list[list[int]]:
    """Per output page, the source pages its content stream draws, in order (pypdf)."""
    result = []
    for page in PdfReader(path).pages:
        content = page.get_contents()
        operations = content.operations if content is not None else []
        names = [operands[0] for operands, op in operations if op == b"Do"]
        result.append([int(str(name)[2:]) for name in names])
    return result


def impose(tmp_path: Path, count: int, **settings: object) -> Path:
    src = numbered_pdf(tmp_path / f"in{count}.pdf", count)
    out = tmp_path / "out.pdf"
    make_booklet(src, out, BookletSettings(**settings))  # type: ignore[arg-type]
    return out


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "starsheets", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


# --- page order, read back from the PDF -------------------------------------------------------

@pytest.mark.parametrize(("count", "settings", "expected"), [
    (1, {}, [("", "1"), ("", "")]),
    (4, {}, [("4", "1"), ("2", "3")]),
    (7, {}, [("7", "1"), ("2", ""), ("6", "3"), ("4", "5")]),
    (8, {}, [("8", "1"), ("2", "7"), ("6", "3"), ("4", "5")]),
    (8, {"bind": Bind.RIGHT}, [("1", "8"), ("7", "2"), ("3", "6"), ("5", "4")]),
    (16, {"signature": 2}, [("8", "1"), ("2", "7"), ("6", "3"), ("4", "5"),
                            ("16", "9"), ("10", "15"), ("14", "11"), ("12", "13")]),
    (12, {"signature": 2, "bind": Bind.RIGHT},
     [("1", "8"), ("7", "2"), ("3", "6"), ("5", "4"), ("9", "12"), ("11", "10")]),
])
def test_numbers_land_in_their_slots(tmp_path: Path, count: int, settings: dict[str, object],
                                     expected: list[tuple[str, str]]) -> None:
    out = impose(tmp_path, count, **settings)
    assert texts(out) == expected
    assert all(s.angle == 0 for side in read_slots(out) for s in side if s.text)


def test_content_streams_draw_the_pages_in_slot_order(tmp_path: Path) -> None:
    out = impose(tmp_path, 8)
    assert drawn_pages(out) == [[8, 1], [2, 7], [6, 3], [4, 5]]


def test_short_flip_back_sides_are_upright(tmp_path: Path) -> None:
    slots = read_slots(impose(tmp_path, 8, flip=Flip.SHORT))
    assert [s.angle for side in slots for s in side] == [0] * 8
    assert [(a.text, b.text) for a, b in slots] == [("8", "1"), ("2", "7"), ("6", "3"), ("4", "5")]


def test_long_flip_back_sides_are_turned_half_round(tmp_path: Path) -> None:
    slots = read_slots(impose(tmp_path, 8, flip=Flip.LONG))
    assert [(a.text, b.text) for a, b in slots] == [("8", "1"), ("7", "2"), ("6", "3"), ("5", "4")]
    assert [[s.angle for s in side] for side in slots] == [[0, 0], [180, 180], [0, 0], [180, 180]]


def test_creep_moves_the_innermost_pages_toward_the_spine(tmp_path: Path) -> None:
    src = numbered_pdf(tmp_path / "in.pdf", 12)
    plain, crept = tmp_path / "plain.pdf", tmp_path / "crept.pdf"
    make_booklet(src, plain, BookletSettings())
    make_booklet(src, crept, BookletSettings(creep_mm=4.0))
    spine = SHEETS["letter"].width / 2
    for k, (side0, side1) in enumerate(zip(read_slots(plain), read_slots(crept), strict=True)):
        sheet = k // 2
        for s0, s1 in zip(side0, side1, strict=True):
            assert s0.box is not None and s1.box is not None
            moved = abs((s0.box[0] + s0.box[2]) / 2 - spine) - abs((s1.box[0] + s1.box[2]) / 2
                                                                   - spine)
            assert moved == pytest.approx(4.0 * PT_PER_MM * sheet / 2, abs=0.05)


def test_mixed_sizes_and_rotated_pages_are_upright_and_centred(tmp_path: Path) -> None:
    landscape = (letter[1], letter[0])
    src = numbered_pdf(tmp_path / "mixed.pdf", 4, sizes={2: A4, 3: landscape}, rotate={4: 90})
    out = tmp_path / "out.pdf"
    make_booklet(src, out, BookletSettings(sheet="a4"))
    (back_cover, cover), (two, three) = read_slots(out)
    assert (back_cover.text, cover.text, two.text, three.text) == ("4", "1", "2", "3")
    # page 4 is viewed turned a quarter clockwise (/Rotate 90): it is imposed as viewed
    assert back_cover.angle == 90
    assert cover.angle == two.angle == three.angle == 0
    sheet = SHEETS["a4"]
    for slot in (back_cover, cover, two, three):
        assert slot.box is not None
        assert (slot.box[1] + slot.box[3]) / 2 == pytest.approx(sheet.height / 2, abs=12)


def test_output_passes_qpdf_check_and_renders(tmp_path: Path) -> None:
    out = impose(tmp_path, 9, marks=True, creep_mm=2.0, flip=Flip.LONG, signature=2)
    if shutil.which("qpdf"):
        check = subprocess.run(["qpdf", "--check", str(out)], capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr
        assert "No syntax or stream encoding errors" in check.stdout
    if not shutil.which("pdftoppm"):
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    subprocess.run(["pdftoppm", "-r", "20", "-png", str(out), str(tmp_path / "page")],
                   check=True, capture_output=True)
    pngs = sorted(tmp_path.glob("page-*.png"))
    assert len(pngs) == 6
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in pngs)


def test_output_is_about_the_size_of_the_input(tmp_path: Path) -> None:
    src = numbered_pdf(tmp_path / "in.pdf", 64)
    out = tmp_path / "out.pdf"
    make_booklet(src, out, BookletSettings())
    assert out.stat().st_size < 1.3 * src.stat().st_size


def test_marks_are_drawn_only_when_asked(tmp_path: Path) -> None:
    plain = PdfReader(impose(tmp_path, 4)).pages[0].get_contents()
    assert plain is not None and b" d " not in plain.get_data()
    marked = PdfReader(impose(tmp_path, 4, marks=True)).pages[1].get_contents()
    assert marked is not None
    data = marked.get_data()
    assert b"[2 2] 0 d" in data and data.count(b" l") == 10


# --- form fields ------------------------------------------------------------------------------

def form_pdf(path: Path) -> Path:
    """Four pages; page 2 has a filled text field, page 3 a checked checkbox."""
    c = canvas.Canvas(str(path), pagesize=letter)
    for n in range(1, 5):
        c.setFont("Helvetica-Bold", 120)
        c.drawCentredString(306, 353, str(n))
        if n == 2:
            c.acroForm.textfield(name="captain", value="Dan", x=100, y=600, width=200,
                                 height=30)
        if n == 3:
            c.acroForm.checkbox(name="veteran", checked=True, x=100, y=600, size=20)
        c.showPage()
    c.save()
    return path


@pytest.mark.parametrize("flip", list(Flip))
def test_form_fields_are_carried_over_and_stay_fillable(tmp_path: Path, flip: Flip) -> None:
    src, out = form_pdf(tmp_path / "form.pdf"), tmp_path / "out.pdf"
    report = make_booklet(src, out, BookletSettings(flip=flip))
    assert report.form_fields == 2
    reader = PdfReader(out)
    fields = reader.get_fields()
    assert fields is not None
    assert fields["captain"]["/V"] == "Dan"
    assert fields["veteran"]["/V"] == "/Yes"
    # the back side holds pages 2 and 3: text field on page 2's slot, checkbox on page 3's
    back = reader.pages[1]
    widgets = {str(a.get_object()["/T"]): a.get_object() for a in back["/Annots"]}
    spine = SHEETS["letter"].width / 2
    x0, _, x1, _ = (float(v) for v in widgets["captain"]["/Rect"])
    page2_on_left = flip is Flip.SHORT
    assert (x1 <= spine) == page2_on_left and (x0 >= spine) != page2_on_left
    for widget in widgets.values():
        assert widget["/P"].get_object() == back
        if flip is Flip.LONG:
            assert widget["/MK"]["/R"] == 180
            normal = widget["/AP"]["/N"]
            stream = normal if "/BBox" in normal else next(iter(normal.values())).get_object()
            assert [float(v) for v in stream["/Matrix"]][:4] == [-1, 0, 0, -1]
        else:
            assert widget.get("/MK", {}).get("/R", 0) == 0
    if shutil.which("qpdf"):
        check = subprocess.run(["qpdf", "--check", str(out)], capture_output=True, text=True)
        assert check.returncode == 0, check.stdout


def test_turned_widgets_share_their_appearances(tmp_path: Path) -> None:
    """Long-flip backs turn widget appearances; a shared appearance is turned once."""
    src = tmp_path / "boxes.pdf"
    c = canvas.Canvas(str(src), pagesize=letter)
    for n in range(1, 5):
        for i in range(60):
            c.acroForm.checkbox(name=f"box{n}_{i}", x=40 + (i % 10) * 50, y=100 + (i // 10) * 50,
                                size=20, checked=i % 2 == 0)
        c.showPage()
    c.save()
    short, long = tmp_path / "short.pdf", tmp_path / "long.pdf"
    make_booklet(src, short, BookletSettings(flip=Flip.SHORT))
    make_booklet(src, long, BookletSettings(flip=Flip.LONG))
    assert long.stat().st_size < 1.1 * short.stat().st_size
    assert short.stat().st_size < 1.3 * src.stat().st_size


def test_fillable_in_a_viewer(tmp_path: Path) -> None:
    """pypdf can fill the carried-over field, as a viewer would."""
    src, out = form_pdf(tmp_path / "form.pdf"), tmp_path / "out.pdf"
    make_booklet(src, out, BookletSettings())
    writer = PdfWriter(clone_from=PdfReader(out))
    writer.update_page_form_field_values(writer.pages[1], {"captain": "Eve"})
    filled = tmp_path / "filled.pdf"
    writer.write(filled)
    assert PdfReader(filled).get_fields()["captain"]["/V"] == "Eve"  # type: ignore[index]


def test_radio_group_keeps_its_field_tree(tmp_path: Path) -> None:
    """A radio group: one parent field, one widget per page; the parent is copied once and
    its kids, in their order, are the widgets' copies."""
    src = tmp_path / "radio.pdf"
    c = canvas.Canvas(str(src), pagesize=letter)
    for n in range(1, 4):
        c.acroForm.radio(name="rank", value=f"r{n}", selected=n == 2, x=100, y=600, size=20)
        c.showPage()
    c.save()
    out = tmp_path / "out.pdf"
    assert make_booklet(src, out, BookletSettings()).form_fields == 3
    reader = PdfReader(out)
    fields = reader.get_fields()
    assert fields is not None and list(fields) == ["rank"]
    assert fields["rank"]["/V"] == "/r2"
    parent = reader.trailer["/Root"]["/AcroForm"]["/Fields"][0].get_object()
    kids = [kid.get_object() for kid in parent["/Kids"]]
    assert [sorted(k["/AP"]["/N"].keys() - {"/Off"}) for k in kids] == [["/r1"], ["/r2"], ["/r3"]]
    on_side = {a.idnum: i for i, page in enumerate(reader.pages) for a in page["/Annots"]}
    # 3 pages + a blank: the front shows 3 | 1, the back 2 | blank
    assert [on_side[kid.idnum] for kid in parent["/Kids"]] == [0, 1, 0]
    assert all(k["/Parent"].get_object() == parent for k in kids)


def test_rotated_page_turns_its_widgets(tmp_path: Path) -> None:
    src = form_pdf(tmp_path / "form.pdf")
    writer = PdfWriter(clone_from=PdfReader(src))
    writer.pages[1].rotate(90)
    writer.write(src)
    out = tmp_path / "out.pdf"
    make_booklet(src, out, BookletSettings())
    widget = next(a.get_object() for a in PdfReader(out).pages[1]["/Annots"]
                  if a.get_object()["/T"] == "captain")
    assert widget["/MK"]["/R"] == 270  # /R counts counter-clockwise; /Rotate clockwise
    x0, y0, x1, y1 = (float(v) for v in widget["/Rect"])
    assert y1 - y0 > x1 - x0  # the 200 x 30 field now stands upright


def test_links_are_left_out_with_a_note(tmp_path: Path) -> None:
    src = tmp_path / "links.pdf"
    c = canvas.Canvas(str(src), pagesize=letter)
    for n in range(1, 3):
        c.drawString(100, 100, f"page {n}")
        c.linkURL("https://example.org", (90, 90, 200, 120))
        c.showPage()
    c.save()
    result = run_cli("booklet", src, "-o", tmp_path / "out.pdf")
    assert result.returncode == 0, result.stderr
    assert "2 annotation(s) other than form fields" in result.stderr
    assert "/Annots" not in PdfReader(tmp_path / "out.pdf").pages[0]


def test_content_split_in_several_streams_or_missing(tmp_path: Path) -> None:
    src = numbered_pdf(tmp_path / "in.pdf", 3)
    writer = PdfWriter(clone_from=PdfReader(src))
    page = writer.pages[0]
    data = page.get_contents().get_data()  # type: ignore[union-attr]
    cut = data.index(b"BT")
    parts = []
    for chunk in (data[:cut], data[cut:]):
        stream = DecodedStreamObject()
        stream.set_data(chunk)
        parts.append(writer._add_object(stream))
    page[NameObject("/Contents")] = ArrayObject(parts)
    writer.add_blank_page(612, 792)  # a page without /Contents
    writer.write(src)
    out = tmp_path / "out.pdf"
    make_booklet(src, out, BookletSettings())
    assert texts(out) == [("", "1"), ("2", "3")]


def test_damaged_page_content_is_an_input_error(tmp_path: Path) -> None:
    src = numbered_pdf(tmp_path / "in.pdf", 2)
    src.write_bytes(src.read_bytes().replace(b"stream", b"strexm", 1))
    result = run_cli("booklet", src, "-o", tmp_path / "out.pdf")
    assert result.returncode == 3
    assert "is damaged" in result.stderr and "Traceback" not in result.stderr


def test_repaired_input_gives_one_note(tmp_path: Path) -> None:
    src = numbered_pdf(tmp_path / "in.pdf", 2)
    data = src.read_bytes()
    at = data.rindex(b"startxref") + len(b"startxref\n")
    end = data.index(b"\n", at)
    src.write_bytes(data[:at] + str(int(data[at:end]) + 7).encode() + data[end:])
    result = run_cli("booklet", src, "-o", tmp_path / "out.pdf")
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if "note:" in line]
    assert len(notes) == 1 and "defects that were worked around" in notes[0]


# --- the command ------------------------------------------------------------------------------

def test_json_summary(tmp_path: Path) -> None:
    src = numbered_pdf(tmp_path / "in.pdf", 10)
    out = tmp_path / "sub" / "out.pdf"
    result = run_cli("booklet", src, "-o", out, "--sheet", "a4", "--signature", "2",
                     "--creep", "1.5", "--flip", "long", "--bind", "right", "--marks", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["input_pages"] == 10
    assert summary["sheets"] == 3
    assert summary["signatures"] == [2, 1]
    assert summary["padding_blanks"] == 2
    assert summary["output"] == str(out)
    assert summary["output_pages"] == 6
    assert summary["seconds"] >= 0
    assert len(PdfReader(out).pages) == 6
    assert PdfReader(out).pages[0].mediabox.width == pytest.approx(SHEETS["a4"].width)


def test_plain_run_reports_on_stderr_only(tmp_path: Path) -> None:
    src = numbered_pdf(tmp_path / "in.pdf", 3)
    result = run_cli("booklet", src, "-o", tmp_path / "out.pdf")
    assert result.returncode == 0
    assert result.stdout == ""
    assert "1 blank(s) added" in result.stderr


def test_input_is_not_modified(tmp_path: Path) -> None:
    src = numbered_pdf(tmp_path / "in.pdf", 5)
    before = src.read_bytes()
    run_cli("booklet", src, "-o", tmp_path / "out.pdf")
    assert src.read_bytes() == before


# --- bad input --------------------------------------------------------------------------------

def _encrypted(path: Path, user_password: str) -> Path:
    writer = PdfWriter()
    writer.add_blank_page(612, 792)
    writer.encrypt(user_password=user_password, owner_password="owner")
    writer.write(path)
    return path


def _no_pages(path: Path) -> Path:
    PdfWriter().write(path)
    return path


def _bad_box(path: Path, box: list[int] | None) -> Path:
    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    if box is None:
        del page["/MediaBox"]
    else:
        page[NameObject("/MediaBox")] = ArrayObject(NumberObject(v) for v in box)
    writer.write(path)
    return path


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


BAD_INPUTS = {
    "missing": (lambda d: d / "nope.pdf", 3, "not found"),
    "directory": (lambda d: d, 3, "directory"),
    "not a pdf": (lambda d: _write(d / "notes.pdf", b"hello, not a pdf\n"), 3, "not a PDF"),
    "empty": (lambda d: _write(d / "empty.pdf", b""), 3, "not a PDF"),
    "corrupt": (lambda d: _write(d / "bad.pdf", b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pa"
                                 + bytes(range(256)) * 8), 3, "damaged PDF"),
    "encrypted": (lambda d: _encrypted(d / "secret.pdf", "secret"), 7, "encrypted"),
    "encrypted, no user password": (lambda d: _encrypted(d / "locked.pdf", ""), 7, "encrypted"),
    "no pages": (lambda d: _no_pages(d / "nopages.pdf"), 3, "no pages"),
    "empty page box": (lambda d: _bad_box(d / "flat.pdf", [0, 0, 0, 0]), 3, "empty page box"),
    "no media box": (lambda d: _bad_box(d / "boxless.pdf", None), 3, "no valid MediaBox"),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_is_one_line_and_an_exit_code(tmp_path: Path, case: str) -> None:
    make, code, words = BAD_INPUTS[case]
    result = run_cli("booklet", make(tmp_path), "-o", tmp_path / "out.pdf")
    assert result.returncode == code, result.stderr
    assert result.stderr.startswith("starsheets: error:")
    assert words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out.pdf").exists()


def test_unwritable_output(tmp_path: Path) -> None:
    src = numbered_pdf(tmp_path / "in.pdf", 2)
    blocker = _write(tmp_path / "file", b"x")
    for out in (blocker / "out.pdf", tmp_path):
        result = run_cli("booklet", src, "-o", out)
        assert result.returncode == 6, result.stderr
        assert re.match(r"starsheets: error: cannot write .*\. Choose a writable output path\.$",
                        result.stderr.strip())


def test_output_over_the_input_is_refused(tmp_path: Path) -> None:
    src = numbered_pdf(tmp_path / "in.pdf", 2)
    before = src.read_bytes()
    result = run_cli("booklet", src, "-o", src)
    assert result.returncode == 2
    assert "is the input" in result.stderr
    assert src.read_bytes() == before


@pytest.mark.parametrize("args", [
    ["--sheet", "legal"], ["--signature", "0"], ["--creep", "-1"], ["--creep", "25"],
    ["--flip", "sideways"], ["--bind", "top"], [],
])
def test_bad_options_are_usage_errors(tmp_path: Path, args: list[str]) -> None:
    src = numbered_pdf(tmp_path / "in.pdf", 2)
    output = ["-o", str(tmp_path / "out.pdf")] if args else []
    result = CliRunner().invoke(cli, ["booklet", str(src), *output, *args])
    assert result.exit_code == 2
    assert "Error:" in result.output
    assert not (tmp_path / "out.pdf").exists()
