"""Fillable forms: fields named by region ids, not required, no tint, state round trip."""

from __future__ import annotations

import io
import json
from functools import cache
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

import sheets
from game.opial.marks import CHECKED, SLASHED, marks_to_state, state_to_marks
from game.opial.rules import load_rules
from game.opial.state import CareerState
from sheets.fillable import parse_digits, read_fillable
from starsheets.errors import NotASheetError

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "dan-tour3.json"


@cache
def form(edition: str = "later") -> bytes:
    return sheets.render("career", edition, "letter", fillable=True).pdf


def field_values(state: CareerState, edition: str) -> dict[str, str]:
    """What a person types and ticks in a viewer, as pypdf field values."""
    out: dict[str, str] = {}
    for rid, v in state_to_marks(state, load_rules(edition)).items():
        group, _, rest = rid.partition(".")
        if group in ("length", "start"):
            if v == CHECKED:
                out[group] = f"/{rest}"
        elif group == "mission":
            if v in (CHECKED, SLASHED):
                out[rid] = "S" if v == CHECKED else "F"
        elif rid == "name" or group == "score":
            if v is not None:
                out[rid] = str(v)
        elif v == CHECKED:
            out[rid] = "/Yes"
    return out


def test_fields_are_the_manifest_ids() -> None:
    reader = PdfReader(io.BytesIO(form()))
    fields = reader.get_fields()
    m = sheets.layout("career", "later", "letter")
    expected = {r.id for r in m.regions if r.kind != "bubble"} | {"length", "start"}
    assert set(fields) == expected
    assert fields["mission.aid.1"]["/FT"] == "/Ch"
    assert fields["promotion.1"]["/FT"] == "/Btn"
    assert fields["score.total"]["/FT"] == "/Tx"
    assert set(fields["length"]["/_States_"]) >= {"/short", "/career"}
    for annot in reader.pages[0]["/Annots"]:
        a = annot.get_object()
        field = a["/Parent"].get_object() if "/Parent" in a else a
        assert not int(field.get("/Ff", 0)) & 2, field.get("/T")  # not required
        assert "/BG" not in a.get("/MK", {}), field.get("/T")  # no tinted background
        assert int(a["/F"]) & 4  # printable
        if field.get("/T") == "score.total":
            assert field["/MaxLen"] == 3 and int(field["/Ff"]) & (1 << 24)  # comb
        if field.get("/T") == "mission.aid.1":  # [export, shown] pairs
            assert [list(o) for o in field["/Opt"]] == [[" ", " "], ["S", "X"], ["F", "/"]]


@pytest.mark.parametrize("edition", ["later"])
def test_round_trip(tmp_path: Path, edition: str) -> None:
    data = json.loads(SAMPLE.read_text())
    data["edition"] = edition
    data["medals"] = {"distinction": 5, "valor": [2]}
    data["clone"] = 1
    data["length"] = "short"
    data["start"] = "still_easier_yet"
    state = CareerState.from_dict(data)
    writer = PdfWriter(clone_from=io.BytesIO(form(edition)))
    writer.update_page_form_field_values(writer.pages[0], field_values(state, edition),
                                         auto_regenerate=False)
    path = tmp_path / "filled.pdf"
    with path.open("wb") as f:
        writer.write(f)
    kind, ed, values = read_fillable(path)
    assert (kind, ed) == ("opial-career", edition)
    assert values["mission.security.1"] == SLASHED
    assert values["mission.security.2"] == CHECKED
    assert values["score.medals"] == -6
    assert marks_to_state(values, load_rules(ed)) == state


def test_blank_form_reads_as_empty_state(tmp_path: Path) -> None:
    path = tmp_path / "blank.pdf"
    path.write_bytes(form())
    _kind, _ed, values = read_fillable(path)
    assert all(v in ("empty", None) for v in values.values())


def test_not_a_form(tmp_path: Path) -> None:
    from reportlab.pdfgen.canvas import Canvas

    path = tmp_path / "other.pdf"
    c = Canvas(str(path))
    c.drawString(100, 100, "hello")
    c.save()
    with pytest.raises(NotASheetError):
        read_fillable(path)


def test_parse_digits() -> None:
    assert parse_digits(" 14") == 14
    assert parse_digits("−6") == -6
    assert parse_digits("- 6") == -6
    assert parse_digits("") is None
    assert parse_digits("1x") is None
