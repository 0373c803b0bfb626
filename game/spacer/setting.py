"""The Spacer Setting Form: the group's agreed choices, their validation and a summary.

Each group of the form (templates/spacer.yaml `setting.groups`) takes one choice or
several, and may have write-in blanks. A reader of the printed form can fill a Setting
choice by choice, a blank being {blank: text, ticked: bool}.
"""

from __future__ import annotations

import difflib
import textwrap
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from game.spacer.data import SpacerData, load_data, norm
from game.spacer.findings import ERROR, READINGS, Finding, finding
from game.spacer.schema import SETTING_FORMAT, check_setting


@dataclass(frozen=True)
class Choice:
    """A ticked option, or a write-in blank (its text; ticked or not)."""

    name: str
    blank: bool = False
    ticked: bool = True

    @classmethod
    def parse(cls, value: str | Mapping[str, Any]) -> Choice:
        if isinstance(value, Mapping):
            return cls(str(value.get("blank") or "").strip(), True,
                       bool(value.get("ticked", True)))
        return cls(str(value).strip())

    def to_data(self) -> str | dict[str, Any]:
        if not self.blank:
            return self.name
        return {"blank": self.name} if self.ticked else {"blank": self.name, "ticked": False}


@dataclass(frozen=True)
class Setting:
    title: str | None = None
    groups: Mapping[str, tuple[Choice, ...]] = field(default_factory=dict)
    names: Mapping[str, str] = field(default_factory=dict)  # names of the important bodies
    enemies: str = ""  # the write-up of enemy powers
    notes: str = ""

    def chosen(self, group_id: str) -> list[Choice]:
        return [c for c in self.groups.get(group_id, ()) if c.ticked]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "setting") -> Setting:
        check_setting(data, source)
        groups: dict[str, tuple[Choice, ...]] = {}
        for g in load_data().setting_groups:
            value = data.get(g.id)
            items = [] if value is None else value if isinstance(value, list) else [value]
            groups[g.id] = tuple(Choice.parse(v) for v in items)
        return cls(data.get("title"), groups, dict(data.get("names") or {}),
                   str(data.get("enemies") or ""), str(data.get("notes") or ""))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": SETTING_FORMAT}
        if self.title:
            out["title"] = self.title
        for gid, choices in self.groups.items():
            out[gid] = [c.to_data() for c in choices]
        if self.names:
            out["names"] = dict(self.names)
        if self.enemies:
            out["enemies"] = self.enemies
        if self.notes:
            out["notes"] = self.notes
        return out


@dataclass(frozen=True)
class SettingReport:
    findings: tuple[Finding, ...]
    summary: dict[str, Any]
    text: str

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)


def _check_group(data: SpacerData, setting: Setting, gid: str) -> list[Finding]:
    g = data.setting_group(gid)
    out: list[Finding] = []
    where = [gid]
    choices = list(setting.groups.get(gid, ()))
    names = ", ".join(o.name for o in g.options)
    for c in choices:
        if c.blank:
            continue
        if g.option(c.name) is None:
            close = difflib.get_close_matches(c.name, [o.name for o in g.options], n=1,
                                              cutoff=0.6)
            hint = f"Did you mean {close[0]}? " if close else ""
            own = "write your own as {blank: ...}" if g.blanks else "this group has no blank"
            out.append(finding("setting-unknown-option", where,
                               f"'{c.name}' is not an option of '{g.title}'.",
                               f"{hint}Options: {names}; {own}."))
    blanks = [c for c in choices if c.blank]
    if blanks and not g.blanks:
        out.append(finding("setting-no-blank", where,
                           f"'{g.title}' has no write-in blank on the form.",
                           f"Choose from: {names}."))
    elif len(blanks) > g.blanks:
        out.append(finding("setting-too-many-blanks", where,
                           f"{len(blanks)} write-ins for '{g.title}'; the form has "
                           f"{g.blanks}.", "Keep the ones that matter, or agree the extra "
                           "ones in the notes."))
    for c in blanks:
        if c.ticked and not c.name:
            out.append(finding("setting-blank-empty", where,
                               f"A write-in blank of '{g.title}' is ticked but empty.",
                               "Write what you chose on the blank, or untick it."))
        elif not c.ticked and c.name:
            out.append(finding("setting-blank-unticked", where,
                               f"'{c.name}' is written in a blank of '{g.title}' but not "
                               "ticked, so it is not counted.", "Tick it if you chose it."))
    ticked = [c for c in choices if c.ticked]
    dupes = [n for n, k in Counter(norm(c.name) for c in ticked if c.name).items() if k > 1]
    if dupes:
        out.append(finding("setting-duplicate", where,
                           f"'{g.title}' lists the same choice twice.",
                           "List each choice once."))
    if not ticked:
        out.append(finding("setting-group-empty", where,
                           f"Nothing chosen for '{g.title}'; the group agrees every part of "
                           "the setting before making characters.",
                           f"Choose {'one' if g.choice == 'single' else 'one or more'}: "
                           f"{names}.", reading="S19"))
    elif g.choice == "single" and len(ticked) > 1:
        out.append(finding("setting-single-choice", where,
                           f"'{g.title}' takes one choice; "
                           f"{len(ticked)} are ticked ({', '.join(_label(c) for c in ticked)}).",
                           "Agree on one.", reading="S19"))
    return out


def _label(c: Choice) -> str:
    return f"{c.name} (own)" if c.blank else c.name


def _picked(data: SpacerData, setting: Setting, gid: str) -> set[str]:
    g = data.setting_group(gid)
    return {norm(o.name) for c in setting.chosen(gid)
            if not c.blank and (o := g.option(c.name)) is not None}


def validate_setting(setting: Setting, data: SpacerData | None = None) -> SettingReport:
    """Findings for each group, the combination remarks, and the one-page summary."""
    data = data or load_data()
    findings: list[Finding] = []
    for g in data.setting_groups:
        findings.extend(_check_group(data, setting, g.id))
    notes: list[str] = []
    for combo in data.combinations:
        if all(norm(v) in _picked(data, setting, gid) for gid, v in combo.when.items()):
            if combo.severity == "note":
                notes.append(combo.text)
            else:
                fields = list(combo.when)
                findings.append(finding(combo.code, fields, combo.text,
                                        "Consider Remote oversight or a gentler attitude, if "
                                        "everyone is not sure they want this."))
    if norm("Enemy Turf") in _picked(data, setting, "scope") and not setting.enemies.strip():
        findings.append(finding("setting-enemy-turf", ["enemies"],
                                "You play on Enemy Turf but have not written up the enemy.",
                                "Describe the other power in `enemies`."))
    summary = _summary(data, setting, notes)
    return SettingReport(tuple(findings), summary, summary_text(summary))


def _summary(data: SpacerData, setting: Setting, notes: list[str]) -> dict[str, Any]:
    groups: dict[str, Any] = {}
    for g in data.setting_groups:
        choices: list[dict[str, Any]] = []
        for c in setting.chosen(g.id):
            opt = None if c.blank else g.option(c.name)
            name = opt.name if opt else c.name
            if name and all(norm(name) != norm(x["name"]) for x in choices):
                choices.append({"name": name, "own": opt is None,
                                "text": opt.text if opt else ""})
        groups[g.id] = {"title": g.title, "choice": g.choice, "chosen": choices}
    return {"title": setting.title or "", "groups": groups, "names": dict(setting.names),
            "enemies": setting.enemies, "notes": setting.notes, "remarks": notes,
            "readings": {"S19": READINGS["S19"]}}


def _names(chosen: list[dict[str, Any]]) -> str:
    if not chosen:
        return "(not agreed)"
    words = [c["name"] for c in chosen]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _described(chosen: list[dict[str, Any]]) -> list[str]:
    return [f"  - {c['name']}: {c['text']}" if c["text"] else f"  - {c['name']}"
            for c in chosen]


def summary_text(s: dict[str, Any], width: int = 88) -> str:
    """The agreed setting as one page of plain text."""
    g = s["groups"]
    title = s["title"] or "Spacer setting"
    lines = [title, "=" * len(title), ""]
    gov = g["government"]["chosen"]
    gov_name = s["names"].get("government")
    lines.append(f"You work for: {_names(g['employer']['chosen'])}.")
    lines += _described(g["employer"]["chosen"])
    lines.append("")
    head = f"Home government: {_names(gov)}" + (f" ({gov_name})" if gov_name else "") + "."
    lines.append(head)
    lines += _described(gov)
    lines.append(f"Laws are made by {_names(g['lawmaking']['chosen'])}; "
                 f"judged by {_names(g['judicial']['chosen'])}.")
    lines.append(f"Agencies: {_names(g['agencies']['chosen'])}.")
    other = {k: v for k, v in s["names"].items() if k != "government"}
    if other:
        lines.append("Names: " + "; ".join(f"{k}: {v}" for k, v in other.items()) + ".")
    lines.append("")
    lines.append(f"Scope of play: {_names(g['scope']['chosen'])}.")
    lines += _described(g["scope"]["chosen"])
    if s["enemies"]:
        lines += textwrap.wrap(f"Enemies: {s['enemies']}", width, subsequent_indent="  ")
    lines.append(f"Threats: {_names(g['threats']['chosen'])}.")
    lines.append("")
    lines.append(f"Power of the players: {_names(g['power']['chosen'])}.")
    lines += _described(g["power"]["chosen"])
    ov = [g[k]["chosen"] for k in ("oversight_reach", "oversight_frequency",
                                   "oversight_attitude")]
    lines.append("Oversight: " + ", ".join(_names(c) for c in ov) + ".")
    for c in ov:
        lines += _described(c)
    for remark in s["remarks"]:
        lines += textwrap.wrap(f"Note: {remark}", width, subsequent_indent="  ")
    if s["notes"]:
        lines.append("")
        lines += textwrap.wrap(s["notes"], width)
    return "\n".join(lines) + "\n"
