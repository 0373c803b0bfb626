"""JSON Schemas of the Spacer character and setting files, built from the tables.

templates/schemas/spacer-character.schema.json and spacer-setting.schema.json are the
published copies (a test keeps them equal to what this module builds). Schema errors
become one-line StateFormatErrors naming the field.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema

from game.spacer.character import FORMAT as CHARACTER_FORMAT
from game.spacer.character import WRITTEN_NUMBERS
from game.spacer.data import load_data
from starsheets.errors import StateFormatError

SETTING_FORMAT = "starsheets/spacer-setting@1"
_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _text(max_length: int = 200) -> dict[str, Any]:
    return {"type": ["string", "null"], "maxLength": max_length}


def _int(minimum: int = 0, maximum: int | None = None, null: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"type": ["integer", "null"] if null else "integer",
                           "minimum": minimum}
    if maximum is not None:
        out["maximum"] = maximum
    return out


def _named_levels(description: str) -> dict[str, Any]:
    return {"type": "object", "description": description,
            "propertyNames": {"minLength": 1, "maxLength": 80},
            "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 20}}


@cache
def character_schema() -> dict[str, Any]:
    data = load_data()
    scale = _int(data.scale_min, data.scale_max)

    def attrs(ids: list[str]) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False,
                "properties": {i: scale for i in ids}}

    inborn = attrs([a.id for a in data.inborn])
    trained = attrs([a.id for a in data.trained])
    max_rank = max(data.rank_titles["officer"])
    gear_item = {"oneOf": [
        {"type": "string", "minLength": 1, "maxLength": 120},
        {"type": "object", "additionalProperties": False, "required": ["item"],
         "properties": {"item": {"type": "string", "minLength": 1, "maxLength": 120},
                        "count": {"type": "integer", "minimum": 1, "maximum": 100},
                        "cost": {"type": "number", "minimum": 0, "maximum": 100}}}]}
    gear_list = {"type": "array", "maxItems": 100, "items": {"$ref": "#/$defs/gear_item"}}
    written_props: dict[str, Any] = {k: {"type": ["integer", "null"]} for k in WRITTEN_NUMBERS}
    written_props["rank_title"] = _text()
    written_props["wound_capacity"] = {
        "type": "object", "additionalProperties": False,
        "properties": {w.id: {"type": ["integer", "null"]} for w in data.wounds}}
    return {
        "$schema": _DRAFT,
        "$id": "https://starsheets.invalid/schemas/spacer-character.schema.json",
        "title": "Spacer character",
        "description": "Every box of the Spacer Character Form. See docs/character.md.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "format": {"const": CHARACTER_FORMAT},
            "player": _text(), "character": _text(), "ship": _text(),
            "species": _text(), "gender": _text(),
            "level": _int(0, len(data.tally_levels)),
            "rank": _int(0, max_rank),
            "service": {"enum": ["officer", "enlisted", None]},
            "branch": {"enum": [*data.rank_branches, None]},
            "luck": _int(0, data.scale_max), "luck_burned": _int(0, data.scale_max),
            "fate": _int(0, data.scale_max),
            "inborn": inborn, "trained": trained,
            "start": {"type": "object", "additionalProperties": False,
                      "properties": {"inborn": inborn, "trained": trained,
                                     "luck": _int(0, data.scale_max),
                                     "rank": _int(0, max_rank)}},
            "departments": {
                "type": "object", "description": "Department name -> level and fields.",
                "propertyNames": {"minLength": 1, "maxLength": 80},
                "additionalProperties": {
                    "type": "object", "additionalProperties": False,
                    "properties": {"level": _int(0, data.scale_max),
                                   "fields": _named_levels("Field name -> level.")}}},
            "current_department": _text(80),
            "hobbies": _named_levels("Hobby -> level."),
            "principles": {"type": "array", "maxItems": 10, "items": {"oneOf": [
                {"type": "string", "maxLength": 500},
                {"type": "object", "additionalProperties": False,
                 "properties": {"belief": _text(500), "action": _text(500)}}]}},
            "traits": {"type": "object", "propertyNames": {"minLength": 1, "maxLength": 80},
                       "additionalProperties": {"type": "integer", "minimum": 0,
                                                "maximum": data.scale_max}},
            "special_abilities": {"type": "array", "maxItems": 30,
                                  "items": {"type": "string", "maxLength": 200}},
            "advancement": {
                "type": "object", "additionalProperties": False,
                "properties": {r.id: {"type": "array", "uniqueItems": True,
                                      "items": {"type": "integer",
                                                "minimum": min(data.tally_levels),
                                                "maximum": max(data.tally_levels)}}
                               for r in data.tally_rows}},
            "study": {"type": "object", "propertyNames": {"minLength": 1, "maxLength": 80},
                      "additionalProperties": {"type": "integer", "minimum": 0,
                                               "maximum": 10}},
            "wounds": {"type": "object", "additionalProperties": False,
                       "properties": {w.id: {"type": "integer", "minimum": 0, "maximum": 20}
                                      for w in data.wounds}},
            "stun_pile": {"type": "integer", "minimum": 0, "maximum": 100},
            "gear": {"type": "object", "additionalProperties": False,
                     "properties": {"personal": gear_list, "issue": gear_list,
                                    "free": gear_list}},
            "written": {"type": "object", "additionalProperties": False,
                        "properties": written_props},
            "notes": {"type": "string", "maxLength": 5000},
        },
        "$defs": {"gear_item": gear_item},
    }


@cache
def setting_schema() -> dict[str, Any]:
    data = load_data()
    choice = {"oneOf": [
        {"type": "string", "maxLength": 120},
        {"type": "object", "additionalProperties": False, "required": ["blank"],
         "properties": {"blank": {"type": ["string", "null"], "maxLength": 120},
                        "ticked": {"type": "boolean"}}}]}
    group = {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/choice"},
                       {"type": "array", "maxItems": 30, "items": {"$ref": "#/$defs/choice"}}]}
    props: dict[str, Any] = {
        "format": {"const": SETTING_FORMAT},
        "title": _text(),
        "names": {"type": "object", "description": "Names of the important bodies.",
                  "propertyNames": {"minLength": 1, "maxLength": 80},
                  "additionalProperties": {"type": "string", "maxLength": 300}},
        "enemies": {"type": "string", "maxLength": 5000},
        "notes": {"type": "string", "maxLength": 5000},
    }
    for g in data.setting_groups:
        props[g.id] = {**group, "description": g.title}
    return {
        "$schema": _DRAFT,
        "$id": "https://starsheets.invalid/schemas/spacer-setting.schema.json",
        "title": "Spacer setting",
        "description": "The choices of the Spacer Setting Form. See docs/character.md.",
        "type": "object",
        "additionalProperties": False,
        "properties": props,
        "$defs": {"choice": choice},
    }


def _check(schema: dict[str, Any], data: Any, source: str, what: str) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path),
                                                                list(map(str, e.absolute_path))))
    if not errors:
        return
    err = errors[0]
    # oneOf failures say little; the most specific sub-error names the real problem
    while err.context:
        err = min(err.context, key=lambda e: (-len(e.absolute_path), e.message))
    where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
    message = err.message if len(err.message) <= 160 else err.message[:157] + "..."
    raise StateFormatError(f"{source}: field '{where}': {message}",
                           f"See docs/character.md for the Spacer {what} format.")


def check_character(data: Any, source: str = "character") -> None:
    """Raise StateFormatError (one line, naming the field) if `data` breaks the schema."""
    _check(character_schema(), data, source, "character")


def check_setting(data: Any, source: str = "setting") -> None:
    _check(setting_schema(), data, source, "setting")


def published(schema: dict[str, Any]) -> str:
    """The text of a published schema file."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
