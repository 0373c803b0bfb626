"""Mark regions of the Spacer forms, and characters and settings to and from their marks.

Every mark region of the Character Form and the Setting Form has a stable id: the id the
sheet generator records in the layout manifest (sheets/spacer_*.py), the fillable form
uses as field name and a scanner reports. A region's value uses the vocabulary of
game.opial.marks: CHECKED / SLASHED (both count as marked), BLANK, CANCELLED (a
correction, read as blank) for boxes and bubbles; the text for a write-in line; an int
(or None) for a comb of digit cells.

Character Form (kind spacer-character):

    player, character, ship, gender        text     the header lines
    species.<id>                           bubble   one group: human, sartini, ...
    level.<n>  rank.<n>                    bubble   Level 0..10, Rank 0..9
    rank.st                                digits   rank at creation
    service.<officer|enlisted>             bubble
    branch.<space|ground|agent>            bubble   which column of rank titles
    rank_title                             text
    leadership, issue_points,              digits   derived numbers as written
      bonus_points, bonus_spent, luck_burned
    attr.<id>.<n>                          bubble   one group per attribute, n = 0..20
    attr.<id>.st                           digits   the St (starting value) column
    attr.<id>.study.<k>                    checkbox study circles (2 inborn, 1 trained)
    luck.<n>  fate.<n>                     bubble   0..20;  luck.st digits
    dept.current.<dept id|other>           bubble   the department the character works in
    dept.<dept id>.level                   digits   every department of the rules, Officer too
    field.<dept id>.<field>.level          digits   every field (slug of its name)
    field.<dept id>.<field>.study          checkbox
    dept.other.name / .level               text / digits   a Referee's department
    field.other.<k>.name / .level / .study text / digits / checkbox
    principle.<k>.belief / .action         text     k = 1..3
    trait.<k>.name / .points / .study      text / digits / checkbox
    hobby.<k>.name / .level / .study       text / digits / checkbox
    ability.<k>                            text     special abilities
    tally.<row>.<level>                    checkbox the advancement diamonds
    initiative, toughness, wound_penalty,  digits
      stun_pile
    wound.<kind>.<k>                       checkbox Scratch x4, Light x3, Heavy x2, Deadly x1
    gear.personal.<k>  gear.issue.<k>      text     P lines 1..3, issue lines 0..7
    gear.free.<item>                       checkbox the free uniforms, communicator, watch
    token.<kind>.<k>                       checkbox scene, reroll and power tokens (play only)

Setting Form (kind spacer-setting):

    setting.title, setting.government.name, setting.enemies       text
    setting.<group>.<option>               bubble (single-choice group) or checkbox (several)
    setting.<group>.blank-<k>              the tick of a write-in blank (bubble or checkbox)
    setting.<group>.blank-<k>.text         text     what is written on the blank

Option, field and item parts are `slug(name)`: lower case, runs of other characters as
one '-' ("King/Emperor" -> king-emperor, "FTL Drives" -> ftl-drives).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from game.opial.marks import BLANK, CANCELLED, CHECKED, MARKED, SLASHED
from game.spacer.character import (
    Character,
    DepartmentEntry,
    Gear,
    GearEntry,
    Principle,
    StartValues,
)
from game.spacer.data import Department, SpacerData, load_data, norm
from game.spacer.setting import Choice, Setting

__all__ = ["BLANK", "CANCELLED", "CHECKED", "MARKED", "SLASHED", "FormRegion",
           "character_regions", "character_to_marks", "format_gear_line",
           "marks_to_character", "marks_to_setting", "pack_gear", "parse_gear_line",
           "setting_regions", "setting_to_marks", "slug"]

Marks = dict[str, str | int | None]

# --- what the forms hold (layout capacities, not rules) -------------------------------------
NUMBER_CELLS = 2  # every written number: two digit cells (0..99)
TRAIT_LINES = 6
HOBBY_LINES = 4
ABILITY_LINES = 4
OTHER_FIELD_LINES = 3
ISSUE_LINES = 8  # the Character Form's gear rows 0..7
# The token boxes of the seed's Character Form: (id, label, boxes). Play-time state only.
TOKENS: tuple[tuple[str, str, int], ...] = (
    ("conflict", "Conflict scene", 2),
    ("non_conflict", "Non-conflict scene", 2),
    ("reroll", "Reroll", 4),
    ("power", "Power", 6),
)
WRITTEN_DIGITS = ("leadership", "issue_points", "bonus_points", "bonus_spent",
                  "initiative", "toughness", "wound_penalty")
SERVICES = ("officer", "enlisted")
OTHER = "other"


def slug(name: str) -> str:
    """The id part for a printed name: 'King/Emperor' -> 'king-emperor'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass(frozen=True)
class FormRegion:
    """A mark region a form must have: id, kind (checkbox | bubble | text | digits) and
    group (a bubble's radio group; for the others a family of regions)."""

    id: str
    kind: str
    group: str


def level_values(data: SpacerData) -> range:
    return range(0, len(data.tally_levels) + 1)


def rank_values(data: SpacerData) -> range:
    return range(0, max(data.rank_titles["officer"]) + 1)


def scale_values(data: SpacerData) -> range:
    return range(data.scale_min, data.scale_max + 1)


def real_departments(data: SpacerData) -> tuple[Department, ...]:
    return tuple(d for d in data.departments if not d.officer)


def character_regions(data: SpacerData | None = None) -> Iterator[FormRegion]:
    """Every mark region of the Character Form, derived from the rules tables."""
    data = data or load_data()
    R = FormRegion
    for name in ("player", "character", "ship", "gender"):
        yield R(name, "text", "identity")
    for sp in data.species:
        yield R(f"species.{sp.id}", "bubble", "species")
    for n in level_values(data):
        yield R(f"level.{n}", "bubble", "level")
    for n in rank_values(data):
        yield R(f"rank.{n}", "bubble", "rank")
    yield R("rank.st", "digits", "start")
    for s in SERVICES:
        yield R(f"service.{s}", "bubble", "service")
    for b in data.rank_branches:
        yield R(f"branch.{b}", "bubble", "branch")
    yield R("rank_title", "text", "written")
    for key in WRITTEN_DIGITS:
        yield R(key, "digits", "written")
    yield R("luck_burned", "digits", "written")
    yield R("stun_pile", "digits", "combat")
    for a in data.attributes:
        for n in scale_values(data):
            yield R(f"attr.{a.id}.{n}", "bubble", f"attr.{a.id}")
        yield R(f"attr.{a.id}.st", "digits", "start")
        for k in range(1, data.study_circles[a.kind] + 1):
            yield R(f"attr.{a.id}.study.{k}", "checkbox", "study")
    for special in ("luck", "fate"):
        for n in scale_values(data):
            yield R(f"{special}.{n}", "bubble", special)
    yield R("luck.st", "digits", "start")
    for d in real_departments(data):
        yield R(f"dept.current.{d.id}", "bubble", "dept.current")
    yield R(f"dept.current.{OTHER}", "bubble", "dept.current")
    for d in data.departments:
        yield R(f"dept.{d.id}.level", "digits", "department")
        for f in d.fields:
            yield R(f"field.{d.id}.{slug(f.name)}.level", "digits", "field")
            yield R(f"field.{d.id}.{slug(f.name)}.study", "checkbox", "study")
    yield R(f"dept.{OTHER}.name", "text", "department")
    yield R(f"dept.{OTHER}.level", "digits", "department")
    for k in range(1, OTHER_FIELD_LINES + 1):
        yield R(f"field.{OTHER}.{k}.name", "text", "field")
        yield R(f"field.{OTHER}.{k}.level", "digits", "field")
        yield R(f"field.{OTHER}.{k}.study", "checkbox", "study")
    for k in range(1, data.principles_max + 1):
        yield R(f"principle.{k}.belief", "text", "principle")
        yield R(f"principle.{k}.action", "text", "principle")
    for prefix, lines, number in (("trait", TRAIT_LINES, "points"),
                                  ("hobby", HOBBY_LINES, "level")):
        for k in range(1, lines + 1):
            yield R(f"{prefix}.{k}.name", "text", prefix)
            yield R(f"{prefix}.{k}.{number}", "digits", prefix)
            yield R(f"{prefix}.{k}.study", "checkbox", "study")
    for k in range(1, ABILITY_LINES + 1):
        yield R(f"ability.{k}", "text", "ability")
    for row in data.tally_rows:
        for lv in data.tally_levels:
            if lv >= row.from_level:
                yield R(f"tally.{row.id}.{lv}", "checkbox", f"tally.{row.id}")
    for w in data.wounds:
        for k in range(1, w.capacity + 1):
            yield R(f"wound.{w.id}.{k}", "checkbox", f"wound.{w.id}")
    for k in range(1, data.personal_points + 1):
        yield R(f"gear.personal.{k}", "text", "gear.personal")
    for k in range(ISSUE_LINES):
        yield R(f"gear.issue.{k}", "text", "gear.issue")
    for it in data.free_items:
        yield R(f"gear.free.{slug(it.name)}", "checkbox", "gear.free")
    for tid, _label, boxes in TOKENS:
        for k in range(1, boxes + 1):
            yield R(f"token.{tid}.{k}", "checkbox", f"token.{tid}")


def setting_regions(data: SpacerData | None = None) -> Iterator[FormRegion]:
    """Every mark region of the Setting Form."""
    data = data or load_data()
    yield FormRegion("setting.title", "text", "setting.names")
    for g in data.setting_groups:
        kind = "bubble" if g.choice == "single" else "checkbox"
        group = f"setting.{g.id}"
        for o in g.options:
            yield FormRegion(f"{group}.{slug(o.name)}", kind, group)
        for k in range(1, g.blanks + 1):
            yield FormRegion(f"{group}.blank-{k}", kind, group)
            yield FormRegion(f"{group}.blank-{k}.text", "text", f"{group}.blank")
        if g.id == "government":
            yield FormRegion("setting.government.name", "text", "setting.names")
        if g.id == "scope":
            yield FormRegion("setting.enemies", "text", "setting.names")


# --- gear lines ---------------------------------------------------------------------------------
_COUNT_BEFORE = re.compile(r"^(\d+)\s*[x×]\s*(.+)$", re.IGNORECASE)
_COUNT_AFTER = re.compile(r"^(.+?)\s*[x×]\s*(\d+)$", re.IGNORECASE)
_COST = re.compile(r"^(.+?)\s*\(\s*(\d+(?:[.,]\d+)?)\s*pts?\s*\)$", re.IGNORECASE)


def _entry_text(e: GearEntry) -> str:
    s = e.item if e.count == 1 else f"{e.count} x {e.item}"
    return s if e.cost is None else f"{s} ({e.cost:g} pt)"


def format_gear_line(entries: Iterable[GearEntry]) -> str:
    """One written gear line: entries separated by '; ' ('2 x Ammo Clip', 'Rope (0.5 pt)')."""
    return "; ".join(_entry_text(e) for e in entries)


def _parse_piece(text: str) -> GearEntry:
    s = text.strip()
    cost = None
    if m := _COST.match(s):
        s, cost = m.group(1).strip(), float(m.group(2).replace(",", "."))
    count = 1
    if m := _COUNT_BEFORE.match(s):
        count, s = int(m.group(1)), m.group(2).strip()
    elif m := _COUNT_AFTER.match(s):
        s, count = m.group(1).strip(), int(m.group(2))
    return GearEntry(s, max(count, 1), cost)


def parse_gear_line(text: str | None, data: SpacerData | None = None) -> list[GearEntry]:
    """The entries on a written gear line. ';' and '+' separate items; a ',' does too
    when every part is a listed item ('Data Slate, Pocket knife', but not
    'Pistol, Energy', which is one item)."""
    if not text or not text.strip():
        return []
    data = data or load_data()
    out: list[GearEntry] = []
    for chunk in re.split(r"[;+]", text):
        if not chunk.strip():
            continue
        parts = [p for p in chunk.split(",") if p.strip()]
        whole = _parse_piece(chunk)
        if (len(parts) > 1 and data.find_item(whole.item) is None
                and all(data.find_item(_parse_piece(p).item) is not None for p in parts)):
            out.extend(_parse_piece(p) for p in parts)
        else:
            out.append(whole)
    return out


def pack_gear(entries: Iterable[GearEntry], lines: int,
              data: SpacerData | None = None) -> list[str]:
    """Entries written on `lines` lines the way the form counts them, a point a line:
    items share a line while their cost adds up to one point ('Data Slate; Pocket knife');
    if that needs more lines than there are, the neighbours with the shortest text share.
    Always `lines` strings ('' = a blank line)."""
    data = data or load_data()
    groups: list[list[GearEntry]] = []
    used = 1.0
    for e in entries:
        item = data.find_item(e.item)
        cost = (item.cost if item else e.cost if e.cost is not None else 1.0) * e.count
        if groups and used + cost <= 1.0 + 1e-9:
            groups[-1].append(e)
            used += cost
        else:
            groups.append([e])
            used = cost
    while len(groups) > lines:
        lengths = [len(format_gear_line(a + b)) for a, b in itertools.pairwise(groups)]
        i = lengths.index(min(lengths))
        groups[i:i + 2] = [groups[i] + groups[i + 1]]
    texts = [format_gear_line(g) for g in groups]
    return texts + [""] * (lines - len(texts))


# --- character -> marks -------------------------------------------------------------------------
def _blank_marks(regions: Iterable[Any]) -> Marks:
    return {r.id: (None if r.kind in ("text", "digits") else BLANK) for r in regions}


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise ValueError(message)


def _number(marks: Marks, rid: str, value: int | None) -> None:
    if value is None:
        return
    _need(0 <= value < 10 ** NUMBER_CELLS, f"{rid}: {value} does not fit in "
                                           f"{NUMBER_CELLS} digit cells")
    marks[rid] = int(value)


def _bubble(marks: Marks, group: str, value: object) -> None:
    rid = f"{group}.{value}"
    _need(rid in marks, f"{group}: {value!r} is not a choice on the form")
    marks[rid] = CHECKED


def character_to_marks(character: Character, manifest: Any = None,
                       data: SpacerData | None = None) -> Marks:
    """The value of every region of the Character Form for `character` (blank regions
    included). `manifest` (a sheets Manifest, or anything with `.regions`) gives the ids;
    without it they come from `character_regions`. ValueError names what does not fit
    on the form (an unknown species, a seventh trait, ...)."""
    data = data or load_data()
    ch = character
    regions = list(manifest.regions) if manifest is not None else list(character_regions(data))
    marks = _blank_marks(regions)
    for key in ("player", "character", "ship", "gender"):
        value = getattr(ch, key)
        marks[key] = value or None
    if ch.species:
        sp = data.find_species(ch.species)
        _need(sp is not None, f"species {ch.species!r} is not on the form")
        assert sp is not None
        _bubble(marks, "species", sp.id)
    if ch.level is not None:
        _bubble(marks, "level", ch.level)
    if ch.rank is not None:
        _bubble(marks, "rank", ch.rank)
    if ch.service:
        _bubble(marks, "service", ch.service)
    if ch.branch:
        _bubble(marks, "branch", ch.branch)
    if ch.luck is not None:
        _bubble(marks, "luck", ch.luck)
    if ch.fate is not None:
        _bubble(marks, "fate", ch.fate)
    if ch.luck_burned:
        _number(marks, "luck_burned", ch.luck_burned)
    if ch.stun_pile:
        _number(marks, "stun_pile", ch.stun_pile)
    for key in WRITTEN_DIGITS:
        value = ch.written.get(key)
        _number(marks, key, value if isinstance(value, int) else None)
    if ch.written.get("rank_title"):
        marks["rank_title"] = str(ch.written["rank_title"])
    current = {**ch.inborn, **ch.trained}
    start = ch.start or StartValues()
    started = {**start.inborn, **start.trained}
    for a in data.attributes:
        if current.get(a.id) is not None:
            _bubble(marks, f"attr.{a.id}", current[a.id])
        _number(marks, f"attr.{a.id}.st", started.get(a.id))
    _number(marks, "luck.st", start.luck)
    _number(marks, "rank.st", start.rank)
    _departments_to_marks(data, ch, marks)
    principles = list(ch.principles)
    _need(len(principles) <= data.principles_max,
          f"{len(principles)} principles; the form has {data.principles_max} lines")
    for k, p in enumerate(principles, start=1):
        marks[f"principle.{k}.belief"] = p.belief or None
        marks[f"principle.{k}.action"] = p.action or None
    study = {norm(k): v for k, v in ch.study.items()}
    for prefix, entries, number, lines in (("trait", ch.traits, "points", TRAIT_LINES),
                                           ("hobby", ch.hobbies, "level", HOBBY_LINES)):
        _need(len(entries) <= lines, f"{len(entries)} {prefix} lines; the form has {lines}")
        for k, (name, value) in enumerate(entries.items(), start=1):
            marks[f"{prefix}.{k}.name"] = name
            _number(marks, f"{prefix}.{k}.{number}", value)
            if study.get(norm(name)):
                marks[f"{prefix}.{k}.study"] = CHECKED
    for a in data.attributes:
        n = study.get(norm(a.id)) or study.get(norm(a.name)) or 0
        for k in range(1, min(n, data.study_circles[a.kind]) + 1):
            marks[f"attr.{a.id}.study.{k}"] = CHECKED
    _need(len(ch.special_abilities) <= ABILITY_LINES,
          f"{len(ch.special_abilities)} special abilities; the form has {ABILITY_LINES} lines")
    for k, ability in enumerate(ch.special_abilities, start=1):
        marks[f"ability.{k}"] = ability or None
    for row_id, levels in ch.advancement.items():
        for lv in levels:
            _need(f"tally.{row_id}.{lv}" in marks, f"advancement {row_id} has no diamond at "
                                                   f"level {lv} on the form")
            marks[f"tally.{row_id}.{lv}"] = CHECKED
    for w in data.wounds:
        n = ch.wounds.get(w.id, 0)
        _need(n <= w.capacity, f"{n} {w.name.lower()} wounds; the form has {w.capacity} boxes")
        for k in range(1, n + 1):
            marks[f"wound.{w.id}.{k}"] = CHECKED
    _gear_to_marks(data, ch.gear, marks)
    return marks


def _departments_to_marks(data: SpacerData, ch: Character, marks: Marks) -> None:
    study = {norm(k): v for k, v in ch.study.items()}
    other: DepartmentEntry | None = None
    other_fields: list[tuple[str, int | None]] = []
    for entry in ch.departments:
        dept = data.find_department(entry.name)
        custom_fields: list[tuple[str, int | None]] = []
        if dept is not None:
            _number(marks, f"dept.{dept.id}.level", entry.level)
            for fname, level in entry.fields.items():
                field = next((f for f in dept.fields if norm(fname) in
                              {norm(f.name), *(norm(a) for a in f.aliases)}), None)
                if field is None:
                    custom_fields.append((fname, level))
                    continue
                _number(marks, f"field.{dept.id}.{slug(field.name)}.level", level)
                if study.get(norm(field.name)) or study.get(norm(fname)):
                    marks[f"field.{dept.id}.{slug(field.name)}.study"] = CHECKED
            if not custom_fields:
                continue
        _need(other is None, f"departments {other.name if other else ''!r} and "
                             f"{entry.name!r} both need the form's one 'other' block")
        other = entry
        other_fields = custom_fields if dept is not None else list(entry.fields.items())
        marks[f"dept.{OTHER}.name"] = entry.name
        if dept is None:
            _number(marks, f"dept.{OTHER}.level", entry.level)
    _need(len(other_fields) <= OTHER_FIELD_LINES,
          f"{len(other_fields)} fields of {other.name if other else ''}; the form's other "
          f"block has {OTHER_FIELD_LINES} lines")
    for k, (fname, level) in enumerate(other_fields, start=1):
        marks[f"field.{OTHER}.{k}.name"] = fname
        _number(marks, f"field.{OTHER}.{k}.level", level)
        if study.get(norm(fname)):
            marks[f"field.{OTHER}.{k}.study"] = CHECKED
    if ch.current_department:
        dept = data.find_department(ch.current_department)
        if dept is not None and not dept.officer:
            _bubble(marks, "dept.current", dept.id)
        elif other is not None and norm(other.name) == norm(ch.current_department):
            _bubble(marks, "dept.current", OTHER)
        else:
            raise ValueError(f"current department {ch.current_department!r} is not on "
                             "the form")


def _gear_to_marks(data: SpacerData, gear: Gear, marks: Marks) -> None:
    for k, text in enumerate(pack_gear(gear.personal, data.personal_points, data), start=1):
        marks[f"gear.personal.{k}"] = text or None
    for k, text in enumerate(pack_gear(gear.issue, ISSUE_LINES, data)):
        marks[f"gear.issue.{k}"] = text or None
    for e in gear.free:
        item = data.find_free_item(e.item)
        _need(item is not None, f"{e.item!r} is not free gear on the form")
        assert item is not None
        marks[f"gear.free.{slug(item.name)}"] = CHECKED


# --- marks -> character -------------------------------------------------------------------------
def _text(marks: Mapping[str, Any], rid: str) -> str | None:
    v = marks.get(rid)
    return v.strip() or None if isinstance(v, str) else None


def _int(marks: Mapping[str, Any], rid: str) -> int | None:
    v = marks.get(rid)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _marked(marks: Mapping[str, Any], rid: str) -> bool:
    return marks.get(rid) in MARKED


def _chosen(marks: Mapping[str, Any], group: str, values: Iterable[object]) -> object | None:
    """The one marked choice of a bubble group (None if none, or several: unreadable)."""
    hits = [v for v in values if _marked(marks, f"{group}.{v}")]
    return hits[0] if len(hits) == 1 else None


def marks_to_character(marks: Mapping[str, Any], data: SpacerData | None = None) -> Character:
    """Build the character from region values (as read from a fillable form or a photo).
    A bubble group with no mark, or with more than one, is a blank box (None)."""
    data = data or load_data()
    species_id = _chosen(marks, "species", [s.id for s in data.species])
    species = next((s.name for s in data.species if s.id == species_id), None)
    study: dict[str, int] = {}
    inborn: dict[str, int | None] = {}
    trained: dict[str, int | None] = {}
    st_inborn: dict[str, int | None] = {}
    st_trained: dict[str, int | None] = {}
    for a in data.attributes:
        value = _chosen(marks, f"attr.{a.id}", scale_values(data))
        (inborn if a.kind == "inborn" else trained)[a.id] = value  # type: ignore[assignment]
        st = _int(marks, f"attr.{a.id}.st")
        if st is not None:
            (st_inborn if a.kind == "inborn" else st_trained)[a.id] = st
        n = sum(_marked(marks, f"attr.{a.id}.study.{k}")
                for k in range(1, data.study_circles[a.kind] + 1))
        if n:
            study[a.id] = n
    luck_st, rank_st = _int(marks, "luck.st"), _int(marks, "rank.st")
    start = None
    if st_inborn or st_trained or luck_st is not None or rank_st is not None:
        start = StartValues(st_inborn, st_trained, luck_st, rank_st)
    departments, current = _departments_from_marks(data, marks, study)
    principles = []
    for k in range(1, data.principles_max + 1):
        belief = _text(marks, f"principle.{k}.belief")
        action = _text(marks, f"principle.{k}.action")
        if belief or action:
            principles.append(Principle(belief or "", action or ""))
    named: dict[str, dict[str, int]] = {}
    for prefix, number, lines in (("trait", "points", TRAIT_LINES),
                                  ("hobby", "level", HOBBY_LINES)):
        named[prefix] = {}
        for k in range(1, lines + 1):
            name = _text(marks, f"{prefix}.{k}.name")
            if name is None:
                continue
            named[prefix][name] = _int(marks, f"{prefix}.{k}.{number}") or 0
            if _marked(marks, f"{prefix}.{k}.study"):
                study[name] = 1
    advancement = {}
    for row in data.tally_rows:
        levels = tuple(lv for lv in data.tally_levels
                       if lv >= row.from_level and _marked(marks, f"tally.{row.id}.{lv}"))
        if levels:
            advancement[row.id] = levels
    wounds = {w.id: sum(_marked(marks, f"wound.{w.id}.{k}") for k in range(1, w.capacity + 1))
              for w in data.wounds}
    written: dict[str, Any] = {}
    for key in WRITTEN_DIGITS:
        if (v := _int(marks, key)) is not None:
            written[key] = v
    if (title := _text(marks, "rank_title")) is not None:
        written["rank_title"] = title
    return Character(
        player=_text(marks, "player"), character=_text(marks, "character"),
        ship=_text(marks, "ship"), species=species, gender=_text(marks, "gender"),
        level=_chosen(marks, "level", level_values(data)),  # type: ignore[arg-type]
        rank=_chosen(marks, "rank", rank_values(data)),  # type: ignore[arg-type]
        service=_chosen(marks, "service", SERVICES),  # type: ignore[arg-type]
        branch=_chosen(marks, "branch", data.rank_branches),  # type: ignore[arg-type]
        luck=_chosen(marks, "luck", scale_values(data)),  # type: ignore[arg-type]
        luck_burned=_int(marks, "luck_burned") or 0,
        fate=_chosen(marks, "fate", scale_values(data)),  # type: ignore[arg-type]
        inborn=inborn, trained=trained, start=start,
        departments=departments, current_department=current,
        hobbies=named["hobby"], principles=tuple(principles), traits=named["trait"],
        special_abilities=tuple(a for k in range(1, ABILITY_LINES + 1)
                                if (a := _text(marks, f"ability.{k}")) is not None),
        advancement=advancement, study=study, wounds=wounds,
        stun_pile=_int(marks, "stun_pile") or 0,
        gear=Gear(
            personal=tuple(e for k in range(1, data.personal_points + 1)
                           for e in parse_gear_line(_text(marks, f"gear.personal.{k}"), data)),
            issue=tuple(e for k in range(ISSUE_LINES)
                        for e in parse_gear_line(_text(marks, f"gear.issue.{k}"), data)),
            free=tuple(GearEntry(it.name, it.count) for it in data.free_items
                       if _marked(marks, f"gear.free.{slug(it.name)}"))),
        written=written,
    )


def _departments_from_marks(data: SpacerData, marks: Mapping[str, Any], study: dict[str, int]
                            ) -> tuple[tuple[DepartmentEntry, ...], str | None]:
    entries: dict[str, DepartmentEntry] = {}
    for d in data.departments:
        fields: dict[str, int] = {}
        for f in d.fields:
            rid = f"field.{d.id}.{slug(f.name)}"
            level = _int(marks, f"{rid}.level")
            if level is not None:
                fields[f.name] = level
            if _marked(marks, f"{rid}.study"):
                study[f.name] = 1
        level = _int(marks, f"dept.{d.id}.level")
        if level is not None or fields:
            entries[d.name] = DepartmentEntry(d.name, level, fields)
    other_name = _text(marks, f"dept.{OTHER}.name")
    other_fields: dict[str, int] = {}
    for k in range(1, OTHER_FIELD_LINES + 1):
        fname = _text(marks, f"field.{OTHER}.{k}.name")
        if fname is None:
            continue
        other_fields[fname] = _int(marks, f"field.{OTHER}.{k}.level") or 0
        if _marked(marks, f"field.{OTHER}.{k}.study"):
            study[fname] = 1
    other_level = _int(marks, f"dept.{OTHER}.level")
    if other_name is not None:
        known = data.find_department(other_name)
        if known is not None:  # extra fields of a listed department
            base = entries.get(known.name, DepartmentEntry(known.name, None, {}))
            entries[known.name] = DepartmentEntry(
                known.name, base.level if base.level is not None else other_level,
                {**base.fields, **other_fields})
            other_name = known.name
        else:
            entries[other_name] = DepartmentEntry(other_name, other_level, other_fields)
    current_id = _chosen(marks, "dept.current", [*(d.id for d in real_departments(data)), OTHER])
    current = other_name if current_id == OTHER else next(
        (d.name for d in data.departments if d.id == current_id), None)
    order = [d.name for d in data.departments]
    ordered = sorted(entries.values(),
                     key=lambda e: order.index(e.name) if e.name in order else len(order))
    return tuple(ordered), current


# --- settings -----------------------------------------------------------------------------------
def setting_to_marks(setting: Setting, manifest: Any = None,
                     data: SpacerData | None = None) -> Marks:
    """The value of every region of the Setting Form for `setting`. ValueError names a
    choice the form cannot hold (an unknown option, more write-ins than blanks)."""
    data = data or load_data()
    regions = list(manifest.regions) if manifest is not None else list(setting_regions(data))
    marks = _blank_marks(regions)
    marks["setting.title"] = setting.title or None
    marks["setting.government.name"] = setting.names.get("government") or None
    marks["setting.enemies"] = setting.enemies or None
    for g in data.setting_groups:
        k = 0
        for c in setting.groups.get(g.id, ()):
            opt = None if c.blank else g.option(c.name)
            if opt is not None:
                if c.ticked:
                    marks[f"setting.{g.id}.{slug(opt.name)}"] = CHECKED
                continue
            k += 1
            _need(k <= g.blanks, f"'{g.title}': {c.name!r} is not an option and the form "
                                 f"has {g.blanks} write-in blank(s)")
            marks[f"setting.{g.id}.blank-{k}.text"] = c.name or None
            if c.ticked:
                marks[f"setting.{g.id}.blank-{k}"] = CHECKED
    return marks


def marks_to_setting(marks: Mapping[str, Any], data: SpacerData | None = None) -> Setting:
    """Build the setting from region values: ticked options in the form's order, then
    the write-in blanks ({blank: text}, unticked ones kept with ticked False)."""
    data = data or load_data()
    groups: dict[str, tuple[Choice, ...]] = {}
    for g in data.setting_groups:
        choices = [Choice(o.name) for o in g.options
                   if _marked(marks, f"setting.{g.id}.{slug(o.name)}")]
        for k in range(1, g.blanks + 1):
            text = _text(marks, f"setting.{g.id}.blank-{k}.text")
            ticked = _marked(marks, f"setting.{g.id}.blank-{k}")
            if text is not None or ticked:
                choices.append(Choice(text or "", blank=True, ticked=ticked))
        groups[g.id] = tuple(choices)
    gov = _text(marks, "setting.government.name")
    return Setting(title=_text(marks, "setting.title"), groups=groups,
                   names={"government": gov} if gov else {},
                   enemies=_text(marks, "setting.enemies") or "")
