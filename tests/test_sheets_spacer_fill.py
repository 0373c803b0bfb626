"""Spacer characters and settings to and from marks, filled forms, fillable forms, and
the loaders `validate` uses (YAML, JSON or a filled PDF form)."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
import yaml
from pypdf import PdfReader, PdfWriter

import sheets
from game.spacer.character import Character, GearEntry, Principle
from game.spacer.generate import generate
from game.spacer.marks import (
    BLANK,
    CHECKED,
    character_to_marks,
    format_gear_line,
    marks_to_character,
    marks_to_setting,
    pack_gear,
    parse_gear_line,
    setting_to_marks,
    slug,
)
from game.spacer.readers import load_character, load_setting
from game.spacer.setting import Choice, Setting
from sheets.fill import Glyph, Stroke
from sheets.manifest import Manifest, grow, inside
from sheets.spacer_fill import (
    character_ink,
    fill_character_pdf,
    fill_setting_pdf,
    spacer_file_kind,
)
from sheets.spacer_fillable import read_spacer_fillable
from starsheets.commands.spacer import run_validate_character
from starsheets.errors import NotASheetError

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "spacer"


@cache
def sample(name: str) -> Character:
    return Character.from_dict(yaml.safe_load((SAMPLES / name).read_text()))


@cache
def rim() -> Setting:
    return Setting.from_dict(yaml.safe_load((SAMPLES / "rim-patrol-setting.yaml").read_text()))


def on_form(s: Setting) -> Setting:
    """What the Setting Form holds of a setting: the government's name, not the others."""
    gov = s.names.get("government")
    return replace(s, names={"government": gov} if gov else {}, notes="")


@cache
def form(kind: str, paper: str = "half-letter") -> bytes:
    return sheets.render(kind, None, paper, fillable=True).pdf


def field_values(marks: dict[str, object], m: Manifest) -> dict[str, str]:
    """What a person clicks and types in a PDF viewer, as pypdf field values."""
    out: dict[str, str] = {}
    for r in m.regions:
        v = marks[r.id]
        if r.kind == "bubble":
            if v == CHECKED:
                out[r.group] = "/" + r.id.rsplit(".", 1)[1]
        elif r.kind == "checkbox":
            if v == CHECKED:
                out[r.id] = "/Yes"
        elif v is not None:
            out[r.id] = str(v)
    return out


def filled_form(tmp_path: Path, kind: str, marks: dict[str, object], name: str) -> Path:
    m = sheets.layout(kind, None, "half-letter")
    writer = PdfWriter(clone_from=io.BytesIO(form(kind)))
    values = field_values(marks, m)
    for page in writer.pages:
        writer.update_page_form_field_values(page, values, auto_regenerate=False)
    path = tmp_path / name
    with path.open("wb") as f:
        writer.write(f)
    return path


# --- marks --------------------------------------------------------------------------------------
def test_samples_round_trip_through_marks() -> None:
    for name in ("ilse-varga.yaml",):
        c = sample(name)
        assert marks_to_character(character_to_marks(c)) == c
    assert marks_to_setting(setting_to_marks(rim())) == on_form(rim())


def test_random_characters_round_trip_through_marks() -> None:
    """Every random legal character fits the form and reads back the same (the wound
    capacities are printed boxes, not something the player writes)."""
    for seed in range(150):
        c = generate(seed)
        c = replace(c, written={k: v for k, v in c.written.items() if k != "wound_capacity"})
        assert marks_to_character(character_to_marks(c)) == c, seed


def test_marks_use_the_manifest_ids() -> None:
    m = sheets.layout("character", None, "a5")
    marks = character_to_marks(sample("ilse-varga.yaml"), m)
    assert set(marks) == {r.id for r in m.regions}
    assert marks["attr.willpower.5"] == CHECKED and marks["attr.willpower.4"] == BLANK
    assert marks["species.human"] == CHECKED and marks["level.0"] == CHECKED
    assert marks["dept.engineering.level"] == 1
    assert marks["field.engineering.maintenance.level"] == 1
    assert marks["dept.current.engineering"] == CHECKED
    assert marks["trait.1.name"] == "Careful" and marks["trait.1.points"] == 4
    assert marks["principle.2.action"] == "I will find out who"
    assert marks["gear.personal.1"] == "Data Slate; Pocket knife"
    assert marks["gear.issue.0"] == "Toolkit (Engineering)"
    assert marks["gear.free.duty-uniform"] == CHECKED
    assert marks["initiative"] == 6 and marks["rank_title"] == "Apprentice"


def test_what_a_reader_leaves_blank_stays_blank() -> None:
    """Two bubbles in a row (or none) read as a blank box; study, tallies, wounds count."""
    marks = character_to_marks(sample("ilse-varga.yaml"))
    marks["attr.agility.5"] = CHECKED  # and 4 is marked too: unreadable
    marks["level.0"] = BLANK
    marks["attr.agility.study.1"] = CHECKED
    marks["attr.agility.study.2"] = "slashed"
    marks["tally.conflict.0"] = CHECKED
    marks["tally.bonus.1"] = CHECKED
    marks["wound.light.1"] = marks["wound.light.2"] = CHECKED
    marks["field.other.1.name"] = "Hull Repair"
    marks["field.other.1.level"] = 1
    marks["dept.other.name"] = "Engr"
    c = marks_to_character(marks)
    assert c.inborn["agility"] is None and c.level is None
    assert c.study == {"agility": 2}
    assert c.advancement == {"conflict": (0,), "bonus": (1,)}
    assert c.wounds == {"scratch": 0, "light": 2, "heavy": 0, "deadly": 0}
    assert c.departments[0].name == "Engineering"
    assert c.departments[0].fields == {"Maintenance": 1, "Hull Repair": 1}


def test_a_referees_department_uses_the_other_block() -> None:
    c = replace(sample("ilse-varga.yaml"), current_department="Xenology",
                departments=(*sample("ilse-varga.yaml").departments,
                             type(sample("ilse-varga.yaml").departments[0])(
                                 "Xenology", 2, {"First Contact": 2})))
    marks = character_to_marks(c)
    assert marks["dept.other.name"] == "Xenology" and marks["dept.current.other"] == CHECKED
    assert marks_to_character(marks) == c


@pytest.mark.parametrize(("change", "words"), [
    ({"species": "Wookiee"}, "species"),
    ({"traits": {f"T{k}": 1 for k in range(7)}}, "trait lines"),
    ({"principles": tuple(Principle("a", "b") for _ in range(4))}, "principles"),
    ({"wounds": {"deadly": 2}}, "deadly wounds"),
    ({"stun_pile": 100}, "digit cells"),
])
def test_what_does_not_fit_is_named(change: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        character_to_marks(replace(sample("ilse-varga.yaml"), **change))


def test_gear_lines() -> None:
    assert parse_gear_line("Pistol, Energy") == [GearEntry("Pistol, Energy")]
    assert parse_gear_line("Data Slate, Pocket knife") == [GearEntry("Data Slate"),
                                                           GearEntry("Pocket knife")]
    assert parse_gear_line("2 x Ammo Clip; Rope (0.5 pt)") == [
        GearEntry("Ammo Clip", 2), GearEntry("Rope", 1, 0.5)]
    assert parse_gear_line("Camera + Medkit x3") == [GearEntry("Camera"),
                                                     GearEntry("Medkit", 3)]
    assert parse_gear_line("10 data cards") == [GearEntry("10 data cards")]
    assert parse_gear_line("  ") == []
    entries = [GearEntry("Data Slate"), GearEntry("Pocket knife"), GearEntry("SMG")]
    assert pack_gear(entries, 3) == ["Data Slate; Pocket knife", "SMG", ""]
    lines = pack_gear([GearEntry("Medkit")] * 5, 3)
    assert len(lines) == 3 and sum(len(parse_gear_line(x)) for x in lines) == 5
    assert format_gear_line([GearEntry("Rope", 2, 0.5)]) == "2 x Rope (0.5 pt)"


def test_setting_blanks_and_unticked_write_ins() -> None:
    s = replace(rim(), groups={**rim().groups, "government": (Choice("Hegemony", True),),
                               "lawmaking": (Choice("Senate"), Choice("Guilds", True, False))})
    marks = setting_to_marks(s)
    assert marks["setting.government.blank-1"] == CHECKED
    assert marks["setting.government.blank-1.text"] == "Hegemony"
    assert marks["setting.lawmaking.blank-1"] == BLANK
    assert marks_to_setting(marks) == on_form(s)
    with pytest.raises(ValueError, match="write-in"):
        setting_to_marks(replace(s, groups={**s.groups, "agencies": (Choice("Spies", True),)}))


# --- filled forms --------------------------------------------------------------------------------
def test_fill_is_reproducible_per_seed() -> None:
    c = sample("ilse-varga.yaml")
    a = fill_character_pdf(c, "half-letter", "pen", seed=5)
    assert a == fill_character_pdf(c, "half-letter", "pen", seed=5)
    assert a != fill_character_pdf(c, "half-letter", "pen", seed=6)
    clean = fill_character_pdf(c, "half-letter", "clean", seed=1)
    assert clean == fill_character_pdf(c, "half-letter", "clean", seed=2)
    reader = PdfReader(io.BytesIO(a))
    assert len(reader.pages) == 2
    assert "starsheets-layout.json" in reader.attachments
    assert reader.metadata is not None and "Ilse Varga" in (reader.metadata.title or "")
    s = fill_setting_pdf(rim(), "half-letter", "pen", 3)
    assert s == fill_setting_pdf(rim(), "half-letter", "pen", 3)


@pytest.mark.parametrize("style", ["pen", "clean"])
def test_every_mark_lands_in_its_region_on_its_page(style: str) -> None:
    c = sample("ilse-varga.yaml")
    m = sheets.layout("character", None, "half-letter")
    marks = character_to_marks(c, m)
    marked = [r for r in m.regions if marks[r.id] not in (None, BLANK)]
    for seed in range(3):
        inks = character_ink(c, m, style, seed)
        assert {p for p, _i in inks} == {1, 2}
        assert len({i.colour for _p, i in inks}) == 1  # one pen
        for page, item in inks:
            if isinstance(item, Stroke):
                xs = [p[0] for p in item.points]
                ys = [p[1] for p in item.points]
                point = (sum(xs) / len(xs), sum(ys) / len(ys), 0, 0)
            else:
                assert isinstance(item, Glyph)
                point = (item.x, item.y, 0, 0)
            assert any(r.page == page and inside(point, grow(r.rect, 2)) for r in marked), \
                (page, point)


# --- fillable forms ------------------------------------------------------------------------------
def test_fillable_fields_are_the_manifest_ids() -> None:
    reader = PdfReader(io.BytesIO(form("spacer-character")))
    fields = reader.get_fields() or {}
    m = sheets.layout("character", None, "half-letter")
    expected = {r.id for r in m.regions if r.kind != "bubble"} | {
        r.group for r in m.regions if r.kind == "bubble"}
    assert set(fields) == expected
    assert set(fields["attr.agility"]["/_States_"]) >= {f"/{n}" for n in range(21)}
    annots = {a.get_object().get("/T"): a.get_object() for page in reader.pages
              for a in page["/Annots"]}
    st = annots["attr.agility.st"]
    assert st["/MaxLen"] == 2 and int(st["/Ff"]) & (1 << 24)  # a comb of two cells
    assert fields["tally.conflict.0"]["/FT"] == "/Btn"
    assert fields["principle.1.belief"]["/FT"] == "/Tx"
    s = PdfReader(io.BytesIO(form("spacer-setting"))).get_fields() or {}
    assert set(s["setting.employer"]["/_States_"]) >= {"/military", "/house-forces"}
    assert s["setting.lawmaking.senate"]["/FT"] == "/Btn"


def test_fillable_round_trip(tmp_path: Path) -> None:
    """Fields filled as a viewer fills them read back as the character and the setting."""
    c = sample("ilse-varga.yaml")
    path = filled_form(tmp_path, "spacer-character", character_to_marks(c), "ilse.pdf")
    assert load_character(path) == c
    setting_path = filled_form(tmp_path, "spacer-setting", setting_to_marks(rim()), "rim.pdf")
    assert read_spacer_fillable(setting_path) == on_form(rim())
    with pytest.raises(NotASheetError):
        load_character(setting_path)


def test_validate_reads_a_filled_form(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    path = filled_form(tmp_path, "spacer-character",
                       character_to_marks(sample("ilse-varga.yaml")), "ilse.pdf")
    assert run_validate_character(str(path), True) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["computed"]["initiative"] == 6


def test_blank_form_reads_as_a_blank_character(tmp_path: Path) -> None:
    path = tmp_path / "blank.pdf"
    path.write_bytes(form("spacer-character"))
    c = read_spacer_fillable(path)
    assert isinstance(c, Character)
    assert c.species is None and c.level is None and c.departments == ()
    assert all(v is None for v in c.inborn.values())


def test_loaders_read_yaml_and_json(tmp_path: Path) -> None:
    c = sample("ilse-varga.yaml")
    assert load_character(SAMPLES / "ilse-varga.yaml") == c
    j = tmp_path / "c.json"
    j.write_text(json.dumps(c.to_dict()))
    assert load_character(j) == c
    assert load_setting(SAMPLES / "rim-patrol-setting.yaml") == rim()
    with pytest.raises(NotASheetError):
        read_spacer_fillable(_career_form(tmp_path))


def _career_form(tmp_path: Path) -> Path:
    path = tmp_path / "career.pdf"
    path.write_bytes(sheets.render("career", None, "letter").pdf)
    return path


def test_spacer_file_kind() -> None:
    assert spacer_file_kind(sample("ilse-varga.yaml").to_dict()) == "character"
    assert spacer_file_kind({"inborn": {}}) == "character"
    assert spacer_file_kind(rim().to_dict()) == "setting"
    assert spacer_file_kind({"employer": "Military"}) == "setting"
    assert spacer_file_kind({"edition": "later", "tours": [1]}) is None
    assert spacer_file_kind([1, 2]) is None
    assert slug("King/Emperor") == "king-emperor" and slug("K'T'K") == "k-t-k"
