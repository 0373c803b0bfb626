"""The career state: what an OPIAL career page shows, box by box.

It is the exchange format between the scanner, scorer, validator, filler and simulator.
The file format (JSON or YAML) is documented in docs/state.md and its JSON Schema is
templates/schemas/opial-career.schema.json.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import jsonschema

import templates
from starsheets.errors import StateFormatError

FORMAT = "starsheets/opial-career@1"
SUCCESS, FAILURE, EMPTY = "S", "F", "."
SCORE_LINES = ("tours_bonus", "final_promotion", "rank_bonus", "missions", "skills", "medals",
               "total")

Boxes = tuple[int, ...]
MAX_BOXES = 999  # no group on the page comes near; bounds what a file may ask us to build


def _boxes(value: int | Iterable[int] | None) -> Boxes:
    """Checked box numbers from a count shorthand (N = boxes 1..N) or an explicit list."""
    if value is None:
        return ()
    if isinstance(value, int):
        return tuple(range(1, value + 1))
    return tuple(sorted(set(int(v) for v in value)))


def _compact(boxes: Boxes) -> int | list[int]:
    """The shortest faithful form: a count when boxes are 1..N, else the list."""
    return len(boxes) if boxes == tuple(range(1, len(boxes) + 1)) else list(boxes)


@dataclass(frozen=True)
class CareerState:
    """Every box of the career page, as checked; no derived values."""

    edition: str = "later"
    length: str = "career"  # "short" (7 tours) or "career" (15 tours)
    start: str = "roll"  # start-skill option id (templates/opial.yaml start_options)
    name: str = ""
    tours: Boxes = ()  # checked tour boxes
    tour_missions: tuple[int, ...] = ()  # mission boxes ticked above tour 1, 2, ...
    promotion: Boxes = ()  # checked promotion-track boxes
    missions: Mapping[str, str] = field(default_factory=dict)  # executed boxes: "S", "F", "."
    skills: Mapping[str, Boxes] = field(default_factory=dict)
    medals: Mapping[str, Boxes] = field(default_factory=dict)
    discipline: Boxes = ()
    clone: Boxes = ()  # clone uses ticked beside the name
    written: Mapping[str, int] | None = None  # the player's own final-score block

    # --- derived look-ups (pure, no rules) -------------------------------------
    @property
    def promotion_points(self) -> int:
        """The highest promotion box checked (what the sheet scores and ranks by)."""
        return max(self.promotion, default=0)

    def skill_level(self, skill_id: str) -> int:
        return len(self.skills.get(skill_id, ()))

    def medal_count(self, medal_id: str) -> int:
        return len(self.medals.get(medal_id, ()))

    def executed(self, mission_id: str) -> str:
        return self.missions.get(mission_id, "")

    def successes(self, mission_id: str) -> int:
        return self.executed(mission_id).count(SUCCESS)

    def failures(self, mission_id: str) -> int:
        return self.executed(mission_id).count(FAILURE)

    @property
    def tours_started(self) -> int:
        """Tours with any mark: the last checked tour box or the last ticked mission box."""
        last_ticked = max((i + 1 for i, n in enumerate(self.tour_missions) if n), default=0)
        return max(max(self.tours, default=0), last_ticked)

    def with_changes(self, **changes: Any) -> CareerState:
        return replace(self, **changes)

    # --- file format --------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "edition": self.edition,
            "length": self.length,
            "start": self.start,
            "name": self.name,
            "tours": _compact(self.tours),
            "tour_missions": list(self.tour_missions),
            "promotion": _compact(self.promotion),
            "missions": {k: v for k, v in self.missions.items() if v.strip(EMPTY)},
            "skills": {k: _compact(v) for k, v in self.skills.items() if v},
            "medals": {k: _compact(v) for k, v in self.medals.items() if v},
            "discipline": _compact(self.discipline),
            "clone": _compact(self.clone),
        }
        if self.written:
            out["written"] = dict(self.written)
        return out

    @classmethod
    def from_dict(cls, data: Any, source: str = "state") -> CareerState:
        """Parse and schema-check a state dictionary; errors name the field."""
        check_schema(data, source)
        tm = list(data.get("tour_missions", []))
        return cls(
            edition=data.get("edition", "later"),
            length=data.get("length", "career"),
            start=data.get("start", "roll"),
            name=data.get("name", ""),
            tours=_boxes(data.get("tours")),
            tour_missions=tuple(int(n) for n in tm),
            promotion=_boxes(data.get("promotion")),
            missions={k: str(v) for k, v in data.get("missions", {}).items()},
            skills={k: _boxes(v) for k, v in data.get("skills", {}).items()},
            medals={k: _boxes(v) for k, v in data.get("medals", {}).items()},
            discipline=_boxes(data.get("discipline")),
            clone=_boxes(data.get("clone")),
            written=dict(data["written"]) if data.get("written") else None,
        )


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of the state file, built from the rules tables (names of missions,
    skills, medals, editions...); templates/schemas/opial-career.schema.json is its
    published copy (a test keeps the two equal; `starsheets schema career` prints it)."""
    d = templates.load("opial")
    boxes = {"description": "Checked boxes: a count N (boxes 1..N) or the list of checked "
                            "box numbers (1-based).",
             "oneOf": [{"type": "integer", "minimum": 0, "maximum": MAX_BOXES},
                       {"type": "array", "maxItems": MAX_BOXES, "uniqueItems": True,
                        "items": {"type": "integer", "minimum": 1, "maximum": MAX_BOXES}}]}

    def group(ids: Iterable[str], item: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False,
                "properties": {i: item for i in ids}}

    ref = {"$ref": "#/$defs/boxes"}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://starsheets.invalid/schemas/opial-career.schema.json",
        "title": "OPIAL career state",
        "description": "Every box of a One Page In A Life career page. See docs/state.md.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "format": {"const": FORMAT},
            "edition": {"enum": list(d["editions"])},
            "length": {"enum": list(d["game_lengths"])},
            "start": {"enum": [o["id"] for o in d["start_options"]]},
            "name": {"type": "string", "maxLength": 200},
            "tours": ref,
            "tour_missions": {"type": "array", "maxItems": d["tours"]["count"],
                              "items": {"type": "integer", "minimum": 0,
                                        "maximum": d["tours"]["mission_boxes"]}},
            "promotion": ref,
            "missions": group((m["id"] for m in d["missions"]),
                              {"type": "string", "pattern": "^[SF.]*$"}),
            "skills": group((s["id"] for s in d["skills"]), ref),
            "medals": group((m["id"] for m in d["medals"]), ref),
            "discipline": ref,
            "clone": ref,
            "written": group(SCORE_LINES, {"type": ["integer", "null"]}),
        },
        "$defs": {"boxes": boxes},
    }


def check_schema(data: Any, source: str = "state") -> None:
    """Raise StateFormatError (one line, naming the field) if `data` breaks the schema."""
    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        raise StateFormatError(f"{source}: field '{where}': {err.message}",
                               "See docs/state.md for the career state format.")
