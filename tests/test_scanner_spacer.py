"""The scanner on the Spacer forms: a character (both pages) and a setting filled with
`fill` (pen and clean hands), rendered, put through a mild phone photo (perspective,
slight rotation, light gradient, blur, noise, JPEG) and scanned. Bubbles and boxes must
read as filled, numbers as written or be listed for review (never a silent misread), and
the Spacer validator must find on the photo what it finds on the file."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from collections.abc import Callable
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from game.spacer.character import Character
from game.spacer.creation import validate_character
from game.spacer.generate import generate
from game.spacer.marks import (
    character_to_marks,
    marks_to_character,
    marks_to_setting,
    setting_to_marks,
)
from game.spacer.setting import Setting, validate_setting
from scanner.pipeline import SheetResult, scan_file
from scanner.spacer import combine, read_form, snap
from sheets.render import layout
from sheets.spacer_fill import fill_character_pdf, fill_setting_pdf
from starsheets.errors import ExitCode, InputFileError

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "spacer"
PAPER = "half-letter"
DPI = 200
CHAR = "spacer-character"
SET = "spacer-setting"


def legal() -> Character:
    return generate(11)


def mistakes() -> Character:
    return Character.from_dict(yaml.safe_load((SAMPLES / "tik-mistakes.yaml").read_text()))


def rim() -> Setting:
    return Setting.from_dict(yaml.safe_load((SAMPLES / "rim-patrol-setting.yaml").read_text()))


WHO = {"legal": legal, "mistakes": mistakes}


def render(pdf: bytes) -> list[np.ndarray]:
    """Every page of a PDF at DPI, grayscale."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        out = []
        for page in doc:
            arr = page.render(scale=DPI / 72, grayscale=True).to_numpy()
            out.append(np.ascontiguousarray(arr[..., 0] if arr.ndim == 3 else arr))
        return out
    finally:
        doc.close()


def photo(img: np.ndarray, seed: int) -> bytes:
    """A mild phone photo of a page: on a grey table, corners pulled (perspective),
    turned a few degrees, lit from one side, slightly soft and noisy, JPEG 85."""
    rng = np.random.default_rng(seed)
    h, w = img.shape
    H, W = int(h * 1.2), int(w * 1.25)
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    jitter = rng.uniform(-0.035, 0.035, (4, 2)) * [w, h]
    angle = np.deg2rad(rng.uniform(-4, 4))
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    centre = np.array([W / 2, H / 2])
    dst = ((src - [w / 2, h / 2] + jitter) @ rot.T * 0.95 + centre).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(img, m, (W, H), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=110)
    xs = np.linspace(0.82, 1.0, W, dtype=np.float32)[None, :]
    if rng.random() < 0.5:
        xs = xs[:, ::-1]
    out = out.astype(np.float32) * xs
    out = cv2.GaussianBlur(out, (0, 0), 0.7)
    out += rng.normal(0, 3.0, out.shape).astype(np.float32)
    ok, buf = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8),
                           [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return buf.tobytes()


@cache
def photos(who: str, style: str, tmp: str) -> tuple[str, ...]:
    """The pages of a filled form, each photographed, as JPEG files in `tmp`."""
    if who == "setting":
        pdf = fill_setting_pdf(rim(), PAPER, style, seed=4)
    else:
        pdf = fill_character_pdf(WHO[who](), PAPER, style, seed=4)
    paths = []
    for k, img in enumerate(render(pdf), start=1):
        p = Path(tmp) / f"{who}-{style}-p{k}.jpg"
        p.write_bytes(photo(img, seed=10 * k + len(style)))
        paths.append(str(p))
    return tuple(paths)


@cache
def scanned(who: str, style: str, tmp: str) -> SheetResult:
    results = combine([r for p in photos(who, style, tmp) for r in scan_file(p)])
    assert len(results) == 1, [r.error for r in results]
    (r,) = results
    assert r.error is None, r.error
    return r


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("spacer-photos"))


def truth(who: str) -> dict[str, object]:
    if who == "setting":
        return setting_to_marks(rim(), layout(SET, None, PAPER))
    return character_to_marks(WHO[who](), layout(CHAR, None, PAPER))


def read_values(r: SheetResult) -> dict[str, object]:
    """What the scan made of every region (review ones at their most likely value)."""
    out: dict[str, object] = {rid: (m.likely if m.state == "review" else m.state)
                              for rid, m in r.marks.items()}
    for rid, f in r.ocr.items():
        if isinstance(f, dict) and f.get("value") is not None:
            out[rid] = f.get("snapped", f["value"])
    return out


def errors(findings: list[dict[str, object]]) -> Counter[object]:
    return Counter(f["code"] for f in findings if f["severity"] == "error")


CASES = [("legal", "pen"), ("legal", "clean"), ("mistakes", "pen"), ("mistakes", "clean"),
         ("setting", "pen")]


@pytest.mark.parametrize(("who", "style"), CASES)
def test_marks_read_as_filled(tmp: str, who: str, style: str) -> None:
    """Every bubble, box, circle and diamond reads as filled (at worst sent to review
    with the right likely value); no number is silently misread."""
    r = scanned(who, style, tmp)
    t = truth(who)
    got = read_values(r)
    marked = {"checked", "slashed"}
    wrong_marks = [rid for rid, m in r.marks.items()
                   if (got[rid] in marked) != (t[rid] in marked)]
    assert not wrong_marks, wrong_marks
    digits = [reg.id for reg in layout(r.kind, None, PAPER).regions if reg.kind == "digits"]
    silent = [(rid, t[rid], got.get(rid)) for rid in digits
              if got.get(rid) != t[rid] and rid not in r.review]
    assert not silent, silent
    written = [rid for rid in digits if t[rid] is not None]
    right = [rid for rid in written if got.get(rid) == t[rid]]
    assert len(right) >= 0.8 * len(written), (len(right), len(written))
    # the digit classifier confirms Tesseract: most numbers are trusted, not reviewed
    trusted = [rid for rid in right if rid not in r.review]
    assert len(trusted) >= 0.85 * len(written), (len(trusted), len(written))


def test_a_round_zero_is_read(tmp: str) -> None:
    """The Initiative '10' of the mistakes character in pen: Tesseract gives nothing for
    its round 0 at any scale; the classifier and the glyph's one big hole read it."""
    r = scanned("mistakes", "pen", tmp)
    assert r.ocr["initiative"]["value"] == 10
    assert "initiative" not in r.review


@pytest.mark.parametrize(("who", "style"), [c for c in CASES if c[0] != "setting"])
def test_character_findings_match_the_file(tmp: str, who: str, style: str) -> None:
    """The validator finds the same errors on the photo as on the file (as the form
    holds it: a principle written as one sentence has no action on the form)."""
    r = scanned(who, style, tmp)
    assert r.kind == CHAR and r.score is None and not r.spacer.missing
    on_form = marks_to_character(character_to_marks(WHO[who]()))
    expected = [f.to_dict() for f in validate_character(on_form).findings]
    assert errors(r.findings) == errors(expected)
    if who == "legal":
        assert not errors(r.findings)
    else:
        assert {"department-level", "traits-total", "initiative", "gear-personal"} <= set(
            errors(r.findings))
    assert r.state.species == WHO[who]().species and r.state.level == WHO[who]().level
    assert dict(r.state.inborn) == dict(WHO[who]().inborn)
    assert dict(r.state.trained) == dict(WHO[who]().trained)


def test_setting_findings_match_the_file(tmp: str) -> None:
    r = scanned("setting", "pen", tmp)
    assert r.kind == SET and len(r.spacer.read) == 1
    expected = validate_setting(marks_to_setting(setting_to_marks(rim())))
    assert [f["code"] for f in r.findings] == [f.code for f in expected.findings]
    for group in ("employer", "government", "lawmaking", "judicial", "agencies", "scope",
                  "power", "oversight_reach", "oversight_frequency", "oversight_attitude"):
        assert [c.name for c in r.state.groups[group]] == [c.name for c in
                                                           rim().groups[group]], group


def test_pages_pair_up_in_any_order(tmp: str) -> None:
    """Page 2 before page 1, and two forms in one batch: each page finds its form."""
    a = [r for p in photos("legal", "clean", tmp) for r in scan_file(p)]
    b = [r for p in photos("mistakes", "clean", tmp) for r in scan_file(p)]
    assert [r.spacer.page for r in a] == [1, 2]
    forms = combine([a[1], b[0], a[0], b[1]])
    assert len(forms) == 2
    assert [k for k, _ in forms[0].spacer.read] == [1, 2]
    names = {f.state.character for f in forms}
    assert len(names) == 2 and not any(f.spacer.missing for f in forms)


def test_one_page_alone_is_a_partial_character(tmp: str) -> None:
    p1, p2 = photos("legal", "clean", tmp)
    (r,) = combine(scan_file(p1))
    assert r.spacer.missing == [2]
    assert [f["code"] for f in r.findings] == ["page-missing"]
    assert "page 2 is missing" in r.findings[0]["message"]
    assert r.state.species == legal().species  # page 1 was read
    assert r.state.departments == ()  # page 2 was not
    (r2,) = combine(scan_file(p2))
    assert r2.spacer.missing == [1] and "page 1 is missing" in r2.findings[0]["message"]
    with pytest.raises(InputFileError, match="page 2 is missing"):
        read_form(p1, CHAR)


Cli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """Run the CLI in process as `starsheets` does (exit code from SystemExit)."""
    from starsheets.cli import main

    def call(*args: str) -> subprocess.CompletedProcess[str]:
        with pytest.raises(SystemExit) as exit_info:
            main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), int(exit_info.value.code or 0), out, err)

    return call


def test_scan_cli_json_and_exit_codes(tmp: str, tmp_path: Path, cli: Cli) -> None:
    p1, p2 = photos("legal", "clean", tmp)
    res = cli("scan", "--json", "--out", str(tmp_path), p2, p1)
    objs = json.loads(res.stdout)
    assert len(objs) == 1
    o = objs[0]
    assert o["kind"] == CHAR and o["score"] is None and o["missing_pages"] == []
    assert [p["page"] for p in o["pages"]] == [1, 2]
    assert o["state"]["species"] == legal().species
    assert set(o["review"]) == set(o["review_why"])
    assert not [f for f in o["findings"] if f["severity"] == "error"]
    expected = ExitCode.FINDINGS if o["review"] else ExitCode.OK
    assert res.returncode == expected
    assert (tmp_path / f"{Path(p1).stem}.json").exists()  # named after page 1
    one = cli("scan", p1)
    assert one.returncode == ExitCode.FINDINGS
    assert "page 2 is missing" in one.stdout


def test_validate_photos(tmp: str, tmp_path: Path, cli: Cli) -> None:
    """`validate setting PHOTO` reads the photo; `validate character` a PDF holding both
    pages; a single page of the character form is refused, naming the missing page."""
    (setting_photo,) = photos("setting", "pen", tmp)
    res = cli("validate", "setting", "--json", setting_photo)
    assert res.returncode in (ExitCode.OK, ExitCode.FINDINGS), res.stderr
    out = json.loads(res.stdout)
    assert out["kind"] == SET and out["ok"]
    pdf = tmp_path / "tik.pdf"
    pdf.write_bytes(fill_character_pdf(mistakes(), PAPER, "clean"))
    res = cli("validate", "character", "--json", str(pdf))
    assert res.returncode == ExitCode.FINDINGS
    assert "department-level" in {f["code"] for f in json.loads(res.stdout)["findings"]}
    p1, _ = photos("legal", "pen", tmp)
    res = cli("validate", "character", p1)
    assert res.returncode == ExitCode.INPUT_FILE
    assert "page 2 is missing" in res.stderr and "Traceback" not in res.stderr


def test_a_verdict_resting_on_fields_to_review_says_it_is_provisional(tmp: str) -> None:
    """The findings are worked out from the review fields' most likely values (an unread
    trait name makes a racial trait "missing"), so the verdict says it is provisional
    while anything waits for review, as the career page's score does."""
    import dataclasses

    from scanner.spacer import summary
    from starsheets.commands.spacer import provisional

    r = scanned("mistakes", "clean", tmp)
    sure = summary(dataclasses.replace(r, review=[]))[1]
    unsure = summary(dataclasses.replace(r, review=["trait.1.name"]))[1]
    assert sure.startswith("  NOT LEGAL: ") and "provisional" not in sure, sure
    assert unsure == sure + " (provisional: 1 box(es)/field(s) below read at their most " \
        "likely value)", unsure
    assert provisional(["p1.jpg: 2 box(es)/field(s) to check on the form (...)"]) != ""
    assert provisional(["p1.jpg: read from a photo"]) == ""


def test_validate_character_from_one_photo_per_page(tmp: str, cli: Cli) -> None:
    """`validate character p2.jpg p1.jpg`: the pages of one form, in any order, validate
    as the character file does; a data file among photos is a usage error."""
    p1, p2 = photos("mistakes", "clean", tmp)
    res = cli("validate", "character", "--json", p2, p1)
    assert res.returncode == ExitCode.FINDINGS, res.stderr
    out = json.loads(res.stdout)
    want = {f.code for f in validate_character(mistakes()).findings}
    assert {f["code"] for f in out["findings"]} == want
    assert out["file"] == f"{p2} + {p1}"
    text = cli("validate", "character", p1, p2)
    assert "NOT LEGAL" in text.stdout and "department-level" in text.stdout
    bad = cli("validate", "character", p1, str(SAMPLES / "tik-mistakes.yaml"))
    assert bad.returncode == ExitCode.USAGE
    assert "not a photo or scan" in bad.stderr and "Traceback" not in bad.stderr
    (setting_photo,) = photos("setting", "clean", tmp)
    mixed = cli("validate", "character", p1, setting_photo)
    assert mixed.returncode == ExitCode.NOT_A_SHEET, mixed.stderr
    assert "Traceback" not in mixed.stderr


def test_snap_to_the_rules_words() -> None:
    assert snap("gear.personal.1", "Energy Rifie; Medkit") == ("Energy Rifle; Medkit",
                                                             pytest.approx(0.917, abs=0.01))
    assert snap("gear.issue.0", "Toolkit (Engineering)")[0] == "Toolkit (Engineering)"
    assert snap("gear.issue.1", "2 x Ammo Clp")[0] == "2 x Ammo Clip"
    assert snap("trait.1.name", "Careful") == ("Careful", 1.0)
    assert snap("principle.1.belief", "Energy Rifie") == ("Energy Rifie", 1.0)
