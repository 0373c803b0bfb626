"""The OPIAL career page: content from the rules, geometry invariants, PDF hygiene."""

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

import pytest
from pypdf import PdfReader

import sheets
from game.opial import marks
from game.opial.rules import load_rules
from sheets import fonts
from sheets.draw import MIN_BOX
from sheets.manifest import Manifest, grow, inside, overlaps
from sheets.paper import EDGE, PAPERS

COMBOS = [("later", "letter"), ("earlier", "a4")]
ALL = [(e, p) for e in ("later", "earlier") for p in ("letter", "a4")]


@cache
def rendered(edition: str, paper: str, fillable: bool = False) -> sheets.Rendered:
    return sheets.render("career", edition, paper, fillable=fillable)


@cache
def page_text(edition: str, paper: str) -> str:
    reader = PdfReader(io.BytesIO(rendered(edition, paper).pdf))
    return re.sub(r"\s+", " ", reader.pages[0].extract_text())


def has(text: str, s: str) -> bool:
    return re.sub(r"\s+", " ", s) in text


@pytest.mark.parametrize(("edition", "paper"), COMBOS)
def test_every_table_value_is_printed(edition: str, paper: str) -> None:
    rules = load_rules(edition)
    t = page_text(edition, paper)
    wanted = ["ONE PAGE IN A LIFE", "FEDERATION STELLAR FORCE", "NAME", "CLONE USES",
              "2 missions per tour", "+1 per Efficiency level", "GRAND ADMIRAL BONUS",
              "Short · 7 tours", "Career · 15 tours", "Standard: roll", "Easier Game: choose",
              "Easier Yet: roll twice", "Still Easier Yet: choose two",
              f"Rank bonus (Grand Admiral) +{rules.rank_bonus}", "GRAND TOTAL",
              f"Executed box: {fonts.sym('✗', 'X')} = success, {fonts.sym('╱', '/')} = failed",
              f"FAIL {fonts.sym('→', '->')} Discipline", "AUTO"]
    for r in rules.ranks:
        wanted += [r.name, r.grade, r.ship]
    for m in rules.missions:
        wanted += [m.name, f"{m.survival}+", f"+{m.promotion}"]
        if m.medal:
            wanted.append(" ".join(f"{t}+" for t in m.medal.targets))
    for s in rules.skills:
        wanted += [s.name, s.effect]
    for md in (*rules.medals, rules.discipline):
        wanted.append(md.name)
    minus = fonts.sym("−", "-")
    wanted += ["+1 per 4", "+2", "+3", "+5", f"{minus}3"]
    for title in rules.titles:
        wanted.append(title.name)
        if title.min is not None and title.max is not None:
            wanted.append(f"{title.min}{fonts.sym('–', '-')}{title.max}")
    wanted += ["50 or less", "200+"]
    for v in rules.ga_bonus.values():
        wanted.append(f"{v:+d}".replace("-", minus) if v else "0")
    missing = [w for w in wanted if not has(t, w)]
    assert not missing, missing


@pytest.mark.parametrize(("edition", "paper"), COMBOS)
def test_dice_and_points_are_printed(edition: str, paper: str) -> None:
    rules = load_rules(edition)
    t = page_text(edition, paper)
    # mission roll dice carry their number, coloured ones their colour letter too
    for m in rules.missions:
        for req in m.roll:
            assert f"{req.target}{'' if req.colour == 'K' else req.colour}" in t.replace(" ", "")
    # the points printed in Executed and skill boxes
    for v in {p for m in rules.missions for p in m.executed} | {p for s in rules.skills
                                                               for p in s.levels}:
        if v:
            assert f"{v:+d}".replace("-", fonts.sym("−", "-")) in t


def test_editions_differ_only_in_rank_bonus() -> None:
    assert has(page_text("later", "letter"), "(Grand Admiral) +20")
    assert has(page_text("earlier", "letter"), "(Grand Admiral) +15")
    assert not has(page_text("earlier", "letter"), "(Grand Admiral) +20")


@pytest.mark.parametrize(("edition", "paper"), ALL)
def test_regions_match_the_rules(edition: str, paper: str) -> None:
    rules = load_rules(edition)
    m = sheets.layout("career", edition, paper)
    expected = list(marks.regions(rules))
    ids = [r.id for r in m.regions]
    assert len(ids) == len(set(ids))
    assert set(ids) == {r.id for r in expected}
    kinds = {r.id: r.kind for r in expected}
    groups = {r.id: r.group for r in expected}
    for r in m.regions:
        assert r.kind == kinds[r.id], r.id
        assert r.group == groups[r.id], r.id
    by_group: dict[str, int] = {}
    for r in m.regions:
        by_group[r.group] = by_group.get(r.group, 0) + 1
    assert by_group["promotion"] == rules.track_boxes
    assert by_group["tour"] == rules.tour_count
    assert by_group["tour_missions"] == rules.tour_count * rules.tour_mission_boxes
    assert by_group["clone"] == rules.clone_uses
    for mi in rules.missions:
        assert by_group[f"mission.{mi.id}"] == mi.boxes
    for s in rules.skills:
        assert by_group[f"skill.{s.id}"] == s.max_level
    for md in rules.medals:
        assert by_group[f"medal.{md.id}"] == md.boxes
    assert by_group["discipline"] == rules.discipline.boxes
    assert m.region("mission.training.6").printed == "+1"
    assert m.region("mission.training.1").printed == ""
    assert m.region("promotion.17").printed == "17"
    assert m.region("skill.clone.1").printed == "−3" or m.region("skill.clone.1").printed == "-3"


@pytest.mark.parametrize(("edition", "paper"), ALL)
def test_geometry_invariants(edition: str, paper: str) -> None:
    m = sheets.layout("career", edition, paper)
    p = PAPERS[paper]
    assert m.page_size == (round(p.width, 3), round(p.height, 3))
    px, py, _pw, _ph = m.printable
    assert px >= EDGE - 1e-3 and py >= EDGE - 1e-3
    regions = list(m.regions)
    for r in regions:
        assert inside(r.rect, m.printable), r.id
        if r.kind in ("checkbox", "bubble"):
            assert min(r.rect[2], r.rect[3]) >= MIN_BOX - 1e-3, r.id
        if r.kind == "digits":
            assert len(r.cells) == 3
            for c in r.cells:
                assert min(c[2], c[3]) >= MIN_BOX - 1e-3 and inside(c, r.rect)
    # no two regions overlap (sweep on x)
    rs = sorted(regions, key=lambda r: r.rect[0])
    for i, a in enumerate(rs):
        for b in rs[i + 1:]:
            if b.rect[0] >= a.rect[0] + a.rect[2]:
                break
            assert not overlaps(a.rect, b.rect), (a.id, b.id)
    # fiducials: ids 0..3 clockwise from top-left, inside the page, quiet zones clear
    assert [f.id for f in m.fiducials] == [0, 1, 2, 3]
    assert [f.position for f in m.fiducials] == ["top-left", "top-right", "bottom-right",
                                                  "bottom-left"]
    keepouts = [grow(f.rect, f.quiet) for f in m.fiducials]
    for f in m.fiducials:
        assert f.size >= 12 * 72 / 25.4 - 1e-3
        assert inside(f.rect, m.printable)
        assert inside(grow(f.rect, f.quiet), (0, 0, *m.page_size))
    (qr,) = m.qr
    assert qr.payload == m.code
    assert inside(qr.rect, m.printable)
    keepouts.append(grow(qr.rect, qr.quiet))
    for k in keepouts:
        for r in regions:
            assert not overlaps(k, r.rect), r.id
    x_tl = m.fiducials[0].center
    x_br = m.fiducials[2].center
    assert x_tl[0] < x_br[0] and x_tl[1] > x_br[1]


def test_a4_is_laid_out_not_scaled() -> None:
    letter = sheets.layout("career", "later", "letter")
    a4 = sheets.layout("career", "later", "a4")
    # A4 is narrower and taller: the page uses its own width and height
    right = max(r.rect[0] + r.rect[2] for r in a4.regions)
    assert right <= PAPERS["a4"].width - EDGE
    tall = a4.region("mission.war_command.1").rect[1] - a4.region("mission.training.1").rect[1]
    tall_l = (letter.region("mission.war_command.1").rect[1]
              - letter.region("mission.training.1").rect[1])
    assert abs(tall) > abs(tall_l)  # taller paper, roomier rows
    assert a4.region("tour.15").rect[0] < letter.region("tour.15").rect[0]


def test_no_text_is_squeezed_below_minimum() -> None:
    for edition, paper in ALL:
        assert rendered(edition, paper).overflows == ()


def test_manifest_attached_and_equal_to_layout() -> None:
    for edition, paper in COMBOS:
        reader = PdfReader(io.BytesIO(rendered(edition, paper).pdf))
        (blob,) = reader.attachments["starsheets-layout.json"]
        attached = Manifest.from_json(blob.decode("utf-8"))
        assert attached == sheets.layout("career", edition, paper)
        assert json.loads(blob)["code"] == f"SS1:OPIAL-CAREER:{edition}:{paper}:L1".upper()


def test_the_scanners_drawing_is_the_printed_page_without_the_attachment() -> None:
    """The scanner compares photos with the sheet as drawn (no pypdf pass): the same
    pixels and manifest as the PDF a user prints."""
    import numpy as np
    import pypdfium2 as pdfium

    from sheets.render import drawn

    for edition, paper in COMBOS:
        mine, printed = drawn("career", edition, paper), rendered(edition, paper)
        assert mine.manifest == printed.manifest
        assert "starsheets-layout.json" not in PdfReader(io.BytesIO(mine.pdf)).attachments
        pages = [pdfium.PdfDocument(pdf)[0].render(scale=100 / 72, grayscale=True).to_numpy()
                 for pdf in (mine.pdf, printed.pdf)]
        assert np.array_equal(*pages)


def test_fillable_has_the_same_layout() -> None:
    assert rendered("later", "letter", True).manifest == rendered("later", "letter").manifest


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} not installed")
    return path


def test_qpdf_check_clean(tmp_path) -> None:
    qpdf = _tool("qpdf")
    for fillable in (False, True):
        f = tmp_path / f"c{fillable}.pdf"
        f.write_bytes(rendered("later", "letter", fillable).pdf)
        out = subprocess.run([qpdf, "--check", str(f)], capture_output=True, text=True)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "WARNING" not in out.stdout + out.stderr


def test_fonts_embedded(tmp_path) -> None:
    pdffonts = _tool("pdffonts")
    f = tmp_path / "c.pdf"
    f.write_bytes(rendered("earlier", "a4").pdf)
    out = subprocess.run([pdffonts, str(f)], capture_output=True, text=True, check=True).stdout
    rows = out.splitlines()[2:]
    assert rows
    for row in rows:
        assert " yes " in row, row


def test_layout_does_not_depend_on_the_font_found() -> None:
    """On a machine without DejaVu the Vera fallback gives the same manifest, and fits."""
    script = ("import sheets; r = sheets.render('career', 'later', 'letter'); "
              "print(r.overflows); print(r.manifest.to_json())")
    env = {**os.environ, "STARSHEETS_SHEET_FONT": "vera"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, check=True, cwd=Path(__file__).resolve().parent.parent)
    overflows, manifest = out.stdout.split("\n", 1)
    manifest = manifest[:-1]  # print()'s newline
    assert overflows == "()"
    assert manifest == sheets.layout("career", "later", "letter").to_json()
