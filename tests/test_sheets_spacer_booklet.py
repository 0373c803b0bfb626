"""The Spacer booklet and the Spacer side of the sheet commands, as a user runs them."""

from __future__ import annotations

import io
import json
import subprocess
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from pypdf import PdfReader

import sheets
from sheets.booklet import SHEETS
from sheets.paper import PAPERS
from sheets.spacer_booklet import page_numbers, parts, spacer_booklet_pdf, spacer_pages
from starsheets.cli import main
from starsheets.errors import ExitCode

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "spacer"
Cli = Callable[..., subprocess.CompletedProcess[bytes]]


@pytest.fixture
def cli(capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """`starsheets.cli.main` in this process, with its exit code and output streams."""

    def call(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
        monkeypatch.chdir(cwd or ROOT)
        with pytest.raises(SystemExit) as exit_info:
            main(list(args))
        out, err = capsysbinary.readouterr()
        return subprocess.CompletedProcess(list(args), int(exit_info.value.code or 0), out, err)

    return call


@cache
def pages() -> PdfReader:
    return PdfReader(io.BytesIO(spacer_pages()))


@cache
def booklet(sheet: str) -> bytes:
    return spacer_booklet_pdf(sheet).pdf


def test_eight_half_letter_pages_in_reading_order() -> None:
    reader = pages()
    assert len(reader.pages) == 8
    hl = PAPERS["half-letter"]
    for page in reader.pages:
        assert (float(page.mediabox.width), float(page.mediabox.height)) == pytest.approx(
            (hl.width, hl.height), abs=0.01)
    texts = [p.extract_text() for p in reader.pages]
    codes = {k: sheets.layout(k, None, "half-letter").code
             for k in ("setting", "character", "reference-card")}
    assert "CONTENTS" in texts[0] and "HOW TO MARK THE FORMS" in texts[0]
    assert "SETTING NOTES" in texts[1]
    assert codes["setting"] in texts[2]
    assert codes["character"] in texts[3] and codes["character"] in texts[4]
    assert "page 1 of 2" in texts[3] and "page 2 of 2" in texts[4]
    assert codes["reference-card"] in texts[5] and codes["reference-card"] in texts[6]
    assert "USING THESE FORMS" in texts[7]
    contents = {p.title: (a, b) for p, a, b in page_numbers(parts())}
    assert contents == {"Cover": (1, 1), "Setting notes": (2, 2), "Setting form": (3, 3),
                        "Character form": (4, 5), "Reference card": (6, 7),
                        "Using these forms": (8, 8)}
    assert "4–5" in texts[0] and "6–7" in texts[0]


@pytest.mark.parametrize("sheet", ["letter", "a4"])
def test_booklet_is_imposed_two_up_on_the_sheet(sheet: str) -> None:
    reader = PdfReader(io.BytesIO(booklet(sheet)))
    assert len(reader.pages) == 4  # two sheets, printed on both sides
    size = SHEETS[sheet]
    for page in reader.pages:
        assert float(page.mediabox.width) == pytest.approx(size.width, abs=0.01)
        assert float(page.mediabox.height) == pytest.approx(size.height, abs=0.01)
    meta = reader.metadata
    assert meta is not None and meta.title == "Spacer player booklet"


def test_booklet_page_order() -> None:
    """Sheet sides carry 8|1, 2|7, 6|3, 4|5: the character form is the centre spread."""
    reader = PdfReader(io.BytesIO(booklet("letter")))
    placed = []
    for page in reader.pages:
        xobjects = page["/Resources"]["/XObject"]
        names = sorted(xobjects, key=lambda n: _x_of(page, n))
        placed.append([int(str(n).lstrip("/P")) for n in names])
    assert placed == [[8, 1], [2, 7], [6, 3], [4, 5]]


def _x_of(page: object, name: str) -> float:
    """Where a placed page's form XObject is drawn (the cm before its Do)."""
    content = page.get_contents().get_data().decode("latin-1")  # type: ignore[attr-defined]
    before = content.split(f"{name} Do")[0].split("cm")[-2].split()
    return float(before[-2])


def test_print_spacer_booklet(tmp_path: Path, cli: Cli) -> None:
    r = cli("print", "spacer-booklet", "--sheet", "a4", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "spacer-booklet-a4.pdf"
    assert out.read_bytes() == booklet("a4")
    assert b"8 booklet pages on 2 sheet(s) of a4" in r.stderr and r.stdout == b""
    r = cli("print", "spacer-booklet", "-o", str(tmp_path / "b.pdf"))
    assert r.returncode == 0 and (tmp_path / "b.pdf").read_bytes() == booklet("letter")


@pytest.mark.parametrize(("kind", "paper", "name"), [
    ("setting", "a5", "setting-a5.pdf"), ("character", "half-letter",
                                          "character-half-letter.pdf"),
    ("reference-card", "letter", "reference-card-letter.pdf")])
def test_print_spacer_forms(tmp_path: Path, cli: Cli, kind: str, paper: str,
                            name: str) -> None:
    r = cli("print", kind, "--paper", paper, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / name).read_bytes() == sheets.render(kind, None, paper).pdf


def test_fill_dispatches_on_the_file(tmp_path: Path, cli: Cli) -> None:
    out = tmp_path / "ilse.pdf"
    r = cli("fill", str(SAMPLES / "ilse-varga.yaml"), "-o", str(out), "--paper",
            "half-letter", "--style", "clean")
    assert r.returncode == 0, r.stderr
    reader = PdfReader(out)
    assert len(reader.pages) == 2 and "Ilse Varga" in (reader.metadata.title or "")
    r = cli("fill", str(SAMPLES / "rim-patrol-setting.yaml"), "-o", "-")
    assert r.returncode == 0 and r.stdout.startswith(b"%PDF-")
    assert "SPACER-SETTING" in PdfReader(io.BytesIO(r.stdout)).pages[0].extract_text()
    j = tmp_path / "c.json"
    j.write_text(json.dumps({"inborn": {"agility": 3}, "species": "Mrin"}))
    assert cli("fill", str(j), "-o", str(tmp_path / "j.pdf")).returncode == 0


def test_read_form_gives_the_character(tmp_path: Path, cli: Cli) -> None:
    blank = tmp_path / "blank.pdf"
    r = cli("print", "character", "--fillable", "--paper", "a5", "-o", str(blank))
    assert r.returncode == 0, r.stderr
    r = cli("read-form", str(blank))
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["format"] == "starsheets/spacer-character@1" and data["departments"] == {}


@pytest.mark.parametrize(("args", "code", "words"), [
    (("print", "spacer-booklet", "--sheet", "b5"), ExitCode.USAGE, "b5"),
    (("print", "character", "--sheet", "a4"), ExitCode.USAGE, "--sheet"),
    (("print", "character", "--paper", "b5"), ExitCode.USAGE, "unknown paper size"),
    (("print", "spacer-card"), ExitCode.USAGE, "unknown sheet kind"),
    (("print", "setting", "--edition", "old"), ExitCode.USAGE, "unknown edition"),
    (("fill", str(SAMPLES / "ilse-varga.yaml"), "-o", "x.pdf", "--paper", "a3"),
     ExitCode.USAGE, "unknown paper size"),
    (("fill", str(ROOT / "samples" / "dan-tour3.json"), "-o", "x.pdf", "--paper", "a5"),
     ExitCode.USAGE, "unknown paper size"),
    (("fill", "missing.yaml", "-o", "x.pdf", "--paper", "a5"), ExitCode.INPUT_FILE,
     "not found"),
])
def test_errors_are_one_line(tmp_path: Path, cli: Cli, args: tuple[str, ...],
                             code: ExitCode, words: str) -> None:
    r = cli(*args, cwd=tmp_path)
    err = r.stderr.decode()
    assert r.returncode == int(code), err
    assert err.count("\n") <= 2 and words in err, err
    assert not (tmp_path / "x.pdf").exists()


@pytest.mark.parametrize(("content", "words"), [
    ({"species": "Human", "traits": {f"T{k}": 1 for k in range(7)}}, "does not fit"),
    ({"species": "Wookiee"}, "does not fit"),
    ({"inborn": {"agility": "x"}}, "inborn/agility"),
    ({"employer": "Military", "agencies": [{"blank": "Spies"}]}, "does not fit"),
])
def test_spacer_file_errors(tmp_path: Path, cli: Cli, content: dict[str, object],
                            words: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(content))
    r = cli("fill", str(bad), "-o", str(tmp_path / "x.pdf"), cwd=tmp_path)
    err = r.stderr.decode()
    assert r.returncode == int(ExitCode.STATE_FORMAT), err
    assert err.count("\n") == 1 and "bad.json" in err and words in err, err
    assert not (tmp_path / "x.pdf").exists()
