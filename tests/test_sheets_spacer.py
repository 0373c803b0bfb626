"""The Spacer forms (setting, character, reference card): content from the tables,
geometry invariants from the manifest, the page furniture, PDF hygiene."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from pypdf import PdfReader

import sheets
import templates
from game.spacer.data import load_data
from game.spacer.marks import character_regions, setting_regions, slug
from sheets.draw import MIN_BOX, MIN_TEXT
from sheets.manifest import Manifest, grow, inside, overlaps
from sheets.paper import EDGE, PAPERS

ROOT = Path(__file__).resolve().parent.parent
KINDS = {"setting": ("spacer-setting", 1), "character": ("spacer-character", 2),
         "reference-card": ("spacer-reference", 2)}
PAPER_NAMES = ("letter", "a4", "half-letter", "a5")
ALL = [(k, p) for k in KINDS for p in PAPER_NAMES]


@cache
def rendered(kind: str, paper: str, fillable: bool = False) -> sheets.Rendered:
    return sheets.render(kind, None, paper, fillable=fillable)


@cache
def text_of(kind: str, paper: str) -> str:
    reader = PdfReader(io.BytesIO(rendered(kind, paper).pdf))
    return re.sub(r"\s+", " ", " ".join(p.extract_text() for p in reader.pages))


def missing(text: str, wanted: list[str]) -> list[str]:
    return [w for w in wanted if re.sub(r"\s+", " ", w) not in text]


# --- content -------------------------------------------------------------------------------------
@pytest.mark.parametrize("paper", ["letter", "half-letter"])
def test_setting_form_prints_every_group_and_option(paper: str) -> None:
    data = load_data()
    t = text_of("setting", paper)
    wanted = ["SETTING FORM", "THE SETTING (ITS NAME)", "Its name", "OVERSIGHT",
              "Reach", "Contact", "Attitude", "little fun"]
    for g in data.setting_groups:
        wanted += [o.name for o in g.options]
        if ":" not in g.title:
            wanted.append(g.title.upper())
    assert not missing(t, wanted)
    if paper == "letter":  # the roomy papers say what each option means
        assert not missing(t, [o.text for g in data.setting_groups for o in g.options
                               if o.text and len(o.text) < 40])


@pytest.mark.parametrize("paper", ["a4", "half-letter"])
def test_character_form_prints_every_attribute_department_and_field(paper: str) -> None:
    data = load_data()
    t = text_of("character", paper)
    wanted = ["CHARACTER", "PLAYER", "SHIP", "GENDER", "SPECIES", "Inborn", "Trained",
              "Special", "Luck", "Fate", "Level", "Rank", "Officer", "Enlisted", "St",
              "Study", "Burned", "PRINCIPLES", "BELIEF", "ACTION OR GOAL", "TRAITS",
              "HOBBIES", "SPECIAL ABILITIES", "ADVANCEMENT TALLIES", "PERSONAL GEAR",
              "PERSONAL COMBAT", "Initiative", "Toughness", "Stun pile", "Wound penalty",
              "TRIANGULAR PROGRESSION", "Tokens", "Conflict scene", "Non-conflict scene",
              "Reroll", "Power", "Free gear", "Leadership", "Issue pts", "Bonus pts",
              "Spent", "Title", "Other"]
    wanted += [a.name for a in data.attributes] + [s.name for s in data.species]
    wanted += [d.name for d in data.departments]
    wanted += [f.name for d in data.departments for f in d.fields]
    wanted += [r.name for r in data.tally_rows] + [b.capitalize() for b in data.rank_branches]
    wanted += [w.name for w in data.wounds]
    wanted += [f"{w.name} −{w.penalty}" for w in data.wounds if w.penalty]
    wanted += ["(Agl+Awr)/2+Cbt", "(Hlt+Phy+WP)/2", f"{data.trait_points} points",
               "array 5, 4, 4, 3, 3, 2", "array 3, 2, 2, 2, 1, 1, 1, 0"]
    for row in templates.load("spacer")["triangular_progression"]:
        wanted.append(str(row["bonus"]))
    assert not missing(t, wanted)


def test_reference_card_prints_the_seed_tables() -> None:
    data = load_data()
    raw = templates.load("spacer")
    t = text_of("reference-card", "half-letter")
    wanted = ["TRIANGULAR PROGRESSION", "ENLISTED LEADERSHIP", "SHIP MOVEMENT",
              "GEAR: POINTS AND MASS", "RANK TITLES", "SPECIES", "WOUNDS"]
    for r in raw["triangular_progression"]:
        lo, hi = r["min"], r["max"]
        label = str(lo) if lo == hi else f"{lo},{hi}" if hi == lo + 1 else f"{lo}–{hi}"
        wanted.append(f"{label} {r['bonus']}")
    for low, values in data.enlisted_leadership.items():
        wanted.append(f"{low} " + " ".join(map(str, values)))
    mv = raw["movement"]
    wanted.append("Speed " + " ".join(map(str, mv["speeds"])))
    for k in (1, 2, 3):
        wanted.append(f"Phase {k} " + " ".join(map(str, mv[f"phase_{k}"])))
    for it in data.items:
        mass = "varies" if it.mass_kg is None else f"{it.mass_kg:g}"
        wanted.append(f"{it.name}")
        wanted.append(mass)
    wanted += ["½ point items", "1 point items", "2 point items", "Toolkit (spec.)",
               "Under-uniform Light Armor (1)", "Lt Field Armor (2)", "Hvy Field Armor (3)"]
    for rank, titles in data.rank_titles["officer"].items():
        wanted += [str(rank), *titles]
    for titles in data.rank_titles["enlisted"].values():
        wanted += list(titles)
    wanted += [s.name for s in data.species] + [w.overflow for w in data.wounds]
    wanted += [f.name.lower() for f in data.free_items]
    assert not missing(t, wanted)


# --- regions ------------------------------------------------------------------------------------
def test_region_ids_are_the_marks_ids() -> None:
    """The forms draw exactly the regions game.spacer.marks lists (ids, kinds, groups)."""
    for paper in PAPER_NAMES:
        m = sheets.layout("character", None, paper)
        got = [(r.id, r.kind, r.group) for r in m.regions]
        assert len(got) == len(set(got))
        assert set(got) == {(r.id, r.kind, r.group) for r in character_regions()}
        s = sheets.layout("setting", None, paper)
        assert {(r.id, r.kind, r.group) for r in s.regions} == {
            (r.id, r.kind, r.group) for r in setting_regions()}
        assert sheets.layout("reference-card", None, paper).regions == ()


def test_entry_methods() -> None:
    """Bubble rows for attributes, luck, fate, level and rank; two-cell combs for St and
    levels; one group per number; every setting option a bubble or a tick box."""
    data = load_data()
    m = sheets.layout("character", None, "half-letter")
    by = m.by_id()
    for a in data.attributes:
        group = [r for r in m.regions if r.group == f"attr.{a.id}"]
        assert [r.id for r in group] == [f"attr.{a.id}.{n}" for n in range(21)]
        assert all(r.kind == "bubble" and r.printed == r.id.rsplit(".", 1)[1] for r in group)
        assert by[f"attr.{a.id}.st"].kind == "digits" and len(by[f"attr.{a.id}.st"].cells) == 2
        circles = [r for r in m.regions if r.id.startswith(f"attr.{a.id}.study.")]
        assert len(circles) == data.study_circles[a.kind]
    assert len([r for r in m.regions if r.group == "level"]) == 11
    assert len([r for r in m.regions if r.group == "rank"]) == 10
    for d in data.departments:
        assert by[f"dept.{d.id}.level"].kind == "digits"
        for f in d.fields:
            assert by[f"field.{d.id}.{slug(f.name)}.level"].kind == "digits"
    for w in data.wounds:
        assert len([r for r in m.regions if r.group == f"wound.{w.id}"]) == w.capacity
    for row in data.tally_rows:
        cells = [r for r in m.regions if r.group == f"tally.{row.id}"]
        assert len(cells) == len([lv for lv in data.tally_levels if lv >= row.from_level])
    s = sheets.layout("setting", None, "a5")
    for g in data.setting_groups:
        kinds = {r.kind for r in s.regions if r.group == f"setting.{g.id}"}
        assert kinds == {"bubble" if g.choice == "single" else "checkbox"}
        blanks = [r for r in s.regions if r.group == f"setting.{g.id}.blank"]
        assert len(blanks) == g.blanks and all(r.kind == "text" for r in blanks)


@pytest.mark.parametrize(("kind", "paper"), ALL)
def test_geometry_invariants(kind: str, paper: str) -> None:
    m = sheets.layout(kind, None, paper)
    kind_id, pages = KINDS[kind]
    p = PAPERS[paper]
    assert m.kind == kind_id and m.pages == pages
    assert m.code == f"SS1:{kind_id}:DEFAULT:{paper}:L1".upper()
    assert m.page_size == (round(p.width, 3), round(p.height, 3))
    assert m.printable[0] >= EDGE - 1e-3
    for r in m.regions:
        assert 1 <= r.page <= pages
        assert inside(r.rect, m.printable), r.id
        if r.kind in ("checkbox", "bubble"):
            assert min(r.rect[2], r.rect[3]) >= MIN_BOX - 1e-3, r.id
        if r.kind == "digits":
            for c in r.cells:
                assert min(c[2], c[3]) >= MIN_BOX - 1e-3, r.id
                assert inside(c, grow(r.rect, 0.002)), r.id  # rects are rounded to 0.001
        if r.kind == "text":
            assert r.rect[3] >= 10.0, r.id
    for page in range(1, pages + 1):
        regions = sorted((r for r in m.regions if r.page == page), key=lambda r: r.rect[0])
        for i, a in enumerate(regions):
            for b in regions[i + 1:]:
                if b.rect[0] >= a.rect[0] + a.rect[2]:
                    break
                assert not overlaps(a.rect, b.rect), (a.id, b.id)
        fids = [f for f in m.fiducials if f.page == page]
        assert [f.id for f in fids] == [0, 1, 2, 3]
        (qr,) = [q for q in m.qr if q.page == page]
        assert qr.payload == m.code and inside(qr.rect, m.printable)
        keepouts = [grow(f.rect, f.quiet) for f in fids] + [grow(qr.rect, qr.quiet)]
        for f in fids:
            assert inside(f.rect, m.printable)
        for k in keepouts:
            for r in regions:
                assert not overlaps(k, r.rect), r.id


@pytest.mark.parametrize(("kind", "paper"), ALL)
def test_nothing_squeezed_and_manifest_attached(kind: str, paper: str) -> None:
    r = rendered(kind, paper)
    assert r.overflows == ()
    reader = PdfReader(io.BytesIO(r.pdf))
    assert len(reader.pages) == KINDS[kind][1]
    (blob,) = reader.attachments["starsheets-layout.json"]
    assert Manifest.from_json(blob.decode("utf-8")) == r.manifest
    meta = reader.metadata
    assert meta is not None and meta.subject == r.manifest.code
    assert meta.title and "Spacer" in meta.title and meta.author == "starsheets"


def test_sheet_code_printed_on_every_page() -> None:
    for kind in KINDS:
        reader = PdfReader(io.BytesIO(rendered(kind, "half-letter").pdf))
        code = rendered(kind, "half-letter").manifest.code
        for page in reader.pages:
            assert code in page.extract_text()


def test_no_text_below_minimum_size() -> None:
    """Every Tf operator in every content stream sets at least 6.5 pt."""
    for kind in KINDS:
        for paper in ("half-letter", "a5"):
            reader = PdfReader(io.BytesIO(rendered(kind, paper).pdf))
            for page in reader.pages:
                data = page.get_contents().get_data().decode("latin-1")
                sizes = [float(s) for s in re.findall(r"/F[\w+]+ ([\d.]+) Tf", data)]
                assert sizes and min(sizes) >= MIN_TEXT - 1e-6


def test_edge_strip_is_blank() -> None:
    """Nothing printed within 6 mm of the paper's edge, on every page."""
    pdfium = pytest.importorskip("pypdfium2")
    dpi = 50
    edge = int(np.floor(6 * dpi / 25.4)) - 1
    for kind in KINDS:
        for paper in ("half-letter", "letter"):
            doc = pdfium.PdfDocument(rendered(kind, paper).pdf)
            for i in range(len(doc)):
                img = np.asarray(doc[i].render(scale=dpi / 72).to_pil().convert("L"))
                for strip in (img[:edge], img[-edge:], img[:, :edge], img[:, -edge:]):
                    assert strip.min() > 250, (kind, paper, i)


def test_the_forms_fill_their_pages() -> None:
    """Half-letter is the binding paper: the character form uses its two pages."""
    m = sheets.layout("character", None, "half-letter")
    for page in (1, 2):
        ys = [r.rect[1] for r in m.regions if r.page == page]
        assert min(ys) < m.page_size[1] * 0.35
    s = sheets.layout("setting", None, "letter")
    oversight = s.region("setting.oversight_attitude.permissive")
    assert oversight.rect[1] < s.page_size[1] * 0.2


def test_fillable_has_the_same_layout() -> None:
    for kind in ("setting", "character"):
        assert rendered(kind, "half-letter", True).manifest == rendered(kind, "half-letter").manifest


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} not installed")
    return path


def test_qpdf_check_clean(tmp_path: Path) -> None:
    qpdf = _tool("qpdf")
    for kind, paper, fillable in (("character", "a5", False), ("character", "half-letter", True),
                                  ("setting", "half-letter", True),
                                  ("reference-card", "a4", False)):
        f = tmp_path / f"{kind}-{paper}-{fillable}.pdf"
        f.write_bytes(rendered(kind, paper, fillable).pdf)
        out = subprocess.run([qpdf, "--check", str(f)], capture_output=True, text=True)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "WARNING" not in out.stdout + out.stderr


def test_fonts_embedded(tmp_path: Path) -> None:
    pdffonts = _tool("pdffonts")
    for kind in KINDS:
        f = tmp_path / f"{kind}.pdf"
        f.write_bytes(rendered(kind, "half-letter").pdf)
        out = subprocess.run([pdffonts, str(f)], capture_output=True, text=True,
                             check=True).stdout
        rows = out.splitlines()[2:]
        assert rows
        for row in rows:
            assert " yes " in row, row


def test_layout_does_not_depend_on_the_font_found() -> None:
    """With the Vera fallback the manifests are the same, and nothing is squeezed."""
    script = ("import json, sheets\n"
              "out = {}\n"
              "for k in ('setting', 'character', 'reference-card'):\n"
              "    for p in ('half-letter',):\n"
              "        r = sheets.render(k, None, p)\n"
              "        out[k + ':' + p] = [list(r.overflows), r.manifest.to_json()]\n"
              "print(json.dumps(out))\n")
    env = {**os.environ, "STARSHEETS_SHEET_FONT": "vera"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, check=True, cwd=ROOT)
    for key, (overflows, manifest) in json.loads(out.stdout).items():
        kind, paper = key.split(":")
        assert overflows == [], key
        assert manifest == sheets.layout(kind, None, paper).to_json(), key
