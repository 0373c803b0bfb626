"""Mark regions of the career page and their mapping to and from the career state.

Every mark region has a stable id (the same id the sheet generator records in the layout
manifest, the fillable form uses as field name and the scanner reports):

    name                      text        the player's name
    length.<short|career>     bubble      game length
    start.<option>            bubble      start-skill option
    tour.<t>                  checkbox    tour box t (1..15)
    tour.<t>.mission.<k>      checkbox    mission box k (1..4) above tour t
    clone.<k>                 checkbox    clone use k (1..2)
    promotion.<n>             checkbox    promotion-track box n
    mission.<id>.<k>          checkbox    executed box k of a mission (slash = failed)
    skill.<id>.<k>            checkbox    skill level box k
    medal.<id>.<k>            checkbox    medal box k
    discipline.<k>            checkbox    disciplinary action k
    score.<line>              digits      the player's written final score lines

A mark's value is one of CHECKED, SLASHED (a single stroke: on an executed box it means
the mission was attempted and failed; elsewhere it counts as checked), EMPTY or
CANCELLED (filled solid and scribbled over: a correction, read as empty).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from game.opial.rules import Rules
from game.opial.state import EMPTY, FAILURE, SCORE_LINES, SUCCESS, CareerState
from starsheets.errors import StateFormatError

CHECKED, SLASHED, BLANK, CANCELLED = "checked", "slashed", "empty", "cancelled"
MARKED = (CHECKED, SLASHED)


def meaning(region_id: str, value: object) -> str:
    """What a mark's value means for the career: a cancelled (or missing) mark is an empty
    box, and a slash counts as a check except on an Executed box. Readings compared with
    a truth are compared by this."""
    if value in (BLANK, CANCELLED) or value is None:
        return BLANK
    if value == SLASHED and not region_id.startswith("mission."):
        return CHECKED
    return str(value)


@dataclass(frozen=True)
class Region:
    """A mark region the career page must have: its id, kind and group."""

    id: str
    kind: str  # checkbox | bubble | text | digits
    group: str  # e.g. "tour", "promotion", "mission.aid", "skill.computer", "score"


def regions(rules: Rules) -> Iterator[Region]:
    """Every mark region of the career page, in reading order (derived from the rules)."""
    yield Region("name", "text", "name")
    for length in rules.game_lengths:
        yield Region(f"length.{length}", "bubble", "length")
    for option in rules.start_options:
        yield Region(f"start.{option.id}", "bubble", "start")
    for t in range(1, rules.tour_count + 1):
        for k in range(1, rules.tour_mission_boxes + 1):
            yield Region(f"tour.{t}.mission.{k}", "checkbox", "tour_missions")
        yield Region(f"tour.{t}", "checkbox", "tour")
    for k in range(1, rules.clone_uses + 1):
        yield Region(f"clone.{k}", "checkbox", "clone")
    for n in range(1, rules.track_boxes + 1):
        yield Region(f"promotion.{n}", "checkbox", "promotion")
    for m in rules.missions:
        for k in range(1, m.boxes + 1):
            yield Region(f"mission.{m.id}.{k}", "checkbox", f"mission.{m.id}")
    for s in rules.skills:
        for k in range(1, s.max_level + 1):
            yield Region(f"skill.{s.id}.{k}", "checkbox", f"skill.{s.id}")
    for md in rules.medals:
        for k in range(1, md.boxes + 1):
            yield Region(f"medal.{md.id}.{k}", "checkbox", f"medal.{md.id}")
    for k in range(1, rules.discipline.boxes + 1):
        yield Region(f"discipline.{k}", "checkbox", "discipline")
    for line in SCORE_LINES:
        yield Region(f"score.{line}", "digits", "score")


ORDERED_TRACKS = ("tour", "promotion", "discipline", "clone")  # region groups filled in order
ORDERED_EACH = ("mission.", "skill.", "medal.")  # ... and every such group of each of these


def ordered_tracks(rules: Rules) -> list[tuple[str, ...]]:
    """The region ids of every track the rules fill in order from its first box: the tour
    and promotion tracks, Discipline, the clone uses, each mission's Executed boxes, each
    skill's levels and each medal's boxes (`game.opial.validate` flags a gap in them).
    The boxes above a tour only count, so they are not among them."""
    tracks: dict[str, list[str]] = {}
    for r in regions(rules):
        if r.kind == "checkbox" and (r.group in ORDERED_TRACKS
                                     or r.group.startswith(ORDERED_EACH)):
            tracks.setdefault(r.group, []).append(r.id)
    return [tuple(ids) for ids in tracks.values()]


def tours_with_missions(rules: Rules) -> list[tuple[str, tuple[str, ...]]]:
    """Each tour's box with the mission boxes above it, tour by tour: missions are ticked
    above a tour only once the tour before it is checked off (`game.opial.validate`)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    above: list[str] = []
    for r in regions(rules):  # (each tour's mission boxes come just before its box)
        if r.group == "tour_missions":
            above.append(r.id)
        elif r.group == "tour":
            out.append((r.id, tuple(above)))
            above = []
    return out


def _set(marks: dict[str, str | int | None], prefix: str, boxes: tuple[int, ...]) -> None:
    for b in boxes:
        marks[f"{prefix}.{b}"] = CHECKED


def state_to_marks(state: CareerState, rules: Rules) -> dict[str, str | int | None]:
    """The value of every region for a state (empty regions included)."""
    marks: dict[str, str | int | None] = {}
    for r in regions(rules):
        marks[r.id] = None if r.kind in ("text", "digits") else BLANK
    marks["name"] = state.name or None
    marks[f"length.{state.length}"] = CHECKED
    marks[f"start.{state.start}"] = CHECKED
    for t, n in enumerate(state.tour_missions, start=1):
        for k in range(1, n + 1):
            marks[f"tour.{t}.mission.{k}"] = CHECKED
    _set(marks, "tour", state.tours)
    _set(marks, "clone", state.clone)
    _set(marks, "promotion", state.promotion)
    for mission_id, boxes in state.missions.items():
        for k, c in enumerate(boxes, start=1):
            if c != EMPTY:
                marks[f"mission.{mission_id}.{k}"] = CHECKED if c == SUCCESS else SLASHED
    for skill_id, boxes in state.skills.items():
        _set(marks, f"skill.{skill_id}", boxes)
    for medal_id, boxes in state.medals.items():
        _set(marks, f"medal.{medal_id}", boxes)
    _set(marks, "discipline", state.discipline)
    for line, value in (state.written or {}).items():
        marks[f"score.{line}"] = value
    unknown = set(marks) - {r.id for r in regions(rules)}
    if unknown:
        raise StateFormatError(f"the state checks boxes the page does not have: "
                               f"{', '.join(sorted(unknown)[:5])}",
                               "Run starsheets validate on it and clear those boxes.")
    return marks


def _checked(marks: Mapping[str, str | int | None], prefix: str, count: int) -> tuple[int, ...]:
    return tuple(k for k in range(1, count + 1) if marks.get(f"{prefix}.{k}") in MARKED)


def _choice(marks: Mapping[str, str | int | None], prefix: str, options: list[str],
            default: str) -> str:
    chosen = [o for o in options if marks.get(f"{prefix}.{o}") in MARKED]
    return chosen[0] if len(chosen) == 1 else default


def marks_to_state(marks: Mapping[str, str | int | None], rules: Rules) -> CareerState:
    """Build the career state from region values (as read by the scanner or a form)."""
    tour_missions = [len(_checked(marks, f"tour.{t}.mission", rules.tour_mission_boxes))
                     for t in range(1, rules.tour_count + 1)]
    while tour_missions and tour_missions[-1] == 0:
        tour_missions.pop()
    missions: dict[str, str] = {}
    for m in rules.missions:
        cells = []
        for k in range(1, m.boxes + 1):
            v = marks.get(f"mission.{m.id}.{k}")
            cells.append(SUCCESS if v == CHECKED else FAILURE if v == SLASHED else EMPTY)
        text = "".join(cells).rstrip(EMPTY)
        if text:
            missions[m.id] = text
    skills = {s.id: b for s in rules.skills if (b := _checked(marks, f"skill.{s.id}", s.max_level))}
    medals = {md.id: b for md in rules.medals if (b := _checked(marks, f"medal.{md.id}", md.boxes))}
    written = {line: v for line in SCORE_LINES
               if isinstance(v := marks.get(f"score.{line}"), int)}
    name = marks.get("name")
    return CareerState(
        edition=rules.edition,
        length=_choice(marks, "length", list(rules.game_lengths), "career"),
        start=_choice(marks, "start", [o.id for o in rules.start_options], "roll"),
        name=name if isinstance(name, str) else "",
        tours=_checked(marks, "tour", rules.tour_count),
        tour_missions=tuple(tour_missions),
        promotion=_checked(marks, "promotion", rules.track_boxes),
        missions=missions,
        skills=skills,
        medals=medals,
        discipline=_checked(marks, "discipline", rules.discipline.boxes),
        clone=_checked(marks, "clone", rules.clone_uses),
        written=written or None,
    )
