"""Findings: what a validator reports, and the catalogue of the rules they cite.

Each finding has a stable code, a severity, the rule it applies (short name and where it
is in the Spacer rules), the field(s) concerned, a message a player understands and what
to change. Where the rules are ambiguous the finding names the reading it used; the
readings are spelled out in docs/rules.md, section "Spacer character creation".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Rule:
    name: str
    section: str  # where the rule is in the Spacer rules
    severity: str


# Readings of ambiguous rules (ids are cited by findings and docs/rules.md).
READINGS: dict[str, str] = {
    "S1": "bonus points are the inborn value left over; each one buys one item of the "
          "bonus list",
    "S2": "one bonus point may also buy 2 trait points (\"each point from the inborn array "
          "gives two trait points\")",
    "S3": "luck is bought only with bonus points, 1 per point; it then rises by 1 for each "
          "even rank reached in play, and burned luck is gone",
    "S4": "species modifiers apply after the arrays; the maximum (7) caps the final value, "
          "lowered by a species penalty, never raised by a bonus",
    "S5": "a species penalty cannot take an attribute below 0",
    "S6": "Humans and Kangids start with 1 fate, other species with 0; fate is not bought "
          "with bonus points",
    "S7": "traits total 10 points, plus 2 per bonus point spent on traits, plus the free "
          "racial points",
    "S8": "racial traits are compulsory at their listed value, free, and may be raised "
          "with trait points",
    "S9": "one hobby level is free; more come 2 per bonus point",
    "S10": "an enlisted character's rank is normally the level of their current department",
    "S11": "issue points are 1 per rank plus 1; personal and issue points are separate "
           "pools",
    "S12": "toughness is rounded down, like initiative",
    "S13": "enlisted leadership takes Interpersonal and Rank; the third of the difference "
           "is rounded up, as the table does",
    "S14": "the diamonds are as printed on the form: one per row and level, none for Bonus "
           "at level 0",
    "S15": "each level gives 3 circles (none if the level raised fate): 1 per trained "
           "point, 2 per inborn point",
    "S16": "officers take Officer levels like a department and must also belong to a "
           "real department",
    "S17": "the starting rank comes from the department levels bought; the even-rank luck "
           "applies only to ranks reached in play",
    "S18": "a principle written as one line is split at its first ';' into belief and "
           "action",
    "S19": "employer, government, power and each oversight row take one choice; the other "
           "groups several; every group needs a choice",
}

_ATTR = "Defining a Being > Attributes"
_FORM = "Spacer Character Form"
RULES: dict[str, Rule] = {
    # reading the form
    "blank-field": Rule("box left blank", _FORM, ERROR),
    "species-unknown": Rule("species", "Aliens", ERROR),
    # arrays and bonus points
    "inborn-array": Rule("inborn array 5,4,4,3,3,2", _ATTR, ERROR),
    "trained-array": Rule("trained array 3,2,2,2,1,1,1,0", _ATTR, ERROR),
    "bonus-points": Rule("bonus points = leftover inborn value", _ATTR, ERROR),
    "bonus-overspent": Rule("bonus point purchases", _ATTR, ERROR),
    "bonus-unspent": Rule("bonus point purchases", _ATTR, WARNING),
    "bonus-half-used": Rule("bonus point purchases", _ATTR, WARNING),
    "bonus-spent": Rule("bonus points spent", _ATTR, ERROR),
    "start-level0": Rule("starting values", _FORM + " (St column)", ERROR),
    "creation-unchecked": Rule("starting values", _FORM + " (St column)", WARNING),
    # species
    "attribute-maximum": Rule("attribute maximum", "Aliens > Humans, Sartini", ERROR),
    "fate": Rule("fate", "Aliens > Humans, Kangids", ERROR),
    "luck": Rule("luck", "Defining a Being > Attributes; Advancement", ERROR),
    "racial-trait": Rule("racial traits", "Aliens > Kangids, Rigelians", ERROR),
    "special-abilities": Rule("special abilities", "Aliens", WARNING),
    # principles, traits, hobbies
    "principles-count": Rule("two or three principles", "Principles", ERROR),
    "principle-incomplete": Rule("a principle is a belief and an action", "Principles", ERROR),
    "traits-none": Rule("one or more traits", "Traits", ERROR),
    "traits-total": Rule("10 trait points", "Traits", ERROR),
    "trait-value": Rule("trait values", "Traits", ERROR),
    "trait-adjective": Rule("traits are adjectives", "Traits", WARNING),
    "hobby-free-unused": Rule("one free hobby level", _ATTR + "; Hobbies", WARNING),
    # departments and rank
    "department-level": Rule("department level = sum of its fields",
                             "Career Fields & Levels", ERROR),
    "field-department": Rule("fields belong to their department",
                             "Career Fields & Levels", ERROR),
    "department-custom": Rule("departments (Referee discretion)",
                              "Career Fields & Levels", WARNING),
    "field-custom": Rule("fields (Referee discretion)", "Career Fields & Levels", WARNING),
    "current-department": Rule("current department", "Career Fields & Levels", ERROR),
    "officer-service": Rule("Officer levels are for officers", "Career Fields & Levels", ERROR),
    "officer-department": Rule("officers multi-class Officer and a department",
                               "Career Fields & Levels", ERROR),
    "rank-officer": Rule("officer rank = lower of Officer and department level",
                         "Career Fields & Levels", ERROR),
    "rank-enlisted": Rule("rank = level in current department", _ATTR, WARNING),
    "rank-title": Rule("rank titles", "Ranks > Rank titles", WARNING),
    # derived values
    "initiative": Rule("initiative = (Agl+Awr)/2 + Combat", _ATTR + "; " + _FORM, ERROR),
    "toughness": Rule("toughness = (Hlt+Phy+WP)/2", _FORM + " (Personal Combat Data)", ERROR),
    "leadership": Rule("leadership", _ATTR + "; Ranks > Enlisted Leadership Table", ERROR),
    "wound-penalty": Rule("wound penalties", "Conflict > Effects of wounds", ERROR),
    "wound-capacity": Rule("wound boxes 4/3/2/1", "Conflict > Effects of wounds", ERROR),
    "issue-points": Rule("issue points", "Defining a Being > Gear", ERROR),
    # gear
    "gear-personal": Rule("3 personal points of gear", "Defining a Being > Gear", ERROR),
    "gear-issue": Rule("issue gear: 1 point per rank + 1", "Defining a Being > Gear", ERROR),
    "gear-unlisted": Rule("gear list", "Defining a Being > Gear", WARNING),
    "gear-free": Rule("free gear", "Defining a Being > Gear", ERROR),
    # wounds
    "wounds-over-capacity": Rule("wound boxes and overflow", "Conflict > Overflow", ERROR),
    "wounds-incapacitated": Rule("unable to function", "Conflict > Effects of wounds", WARNING),
    # advancement
    "advancement-cell": Rule("advancement tallies", "Advancement; " + _FORM, ERROR),
    "advancement-future": Rule("no checks for future levels", "Advancement", ERROR),
    "advancement-incomplete": Rule("all checks of a level before the next", "Advancement",
                                   WARNING),
    "advancement-circles": Rule("3 circles of advancement per level", "Advancement", ERROR),
    "advancement-lowered": Rule("advancement only raises attributes", "Advancement", ERROR),
    "study-circles": Rule("study circles", "Advancement", ERROR),
    # setting form
    "setting-group-empty": Rule("every group chosen", "Defining the Setting", ERROR),
    "setting-single-choice": Rule("one choice in this group", "Spacer Setting Form", ERROR),
    "setting-unknown-option": Rule("options of the Setting Form", "Spacer Setting Form", ERROR),
    "setting-no-blank": Rule("write-in blanks", "Spacer Setting Form", ERROR),
    "setting-blank-empty": Rule("write-in blanks", "Spacer Setting Form", ERROR),
    "setting-blank-unticked": Rule("write-in blanks", "Spacer Setting Form", WARNING),
    "setting-too-many-blanks": Rule("write-in blanks", "Spacer Setting Form", WARNING),
    "setting-duplicate": Rule("options of the Setting Form", "Spacer Setting Form", WARNING),
    "setting-little-fun": Rule("Local + Authoritarian oversight",
                               "Defining the Setting > Power of the Players", WARNING),
    "setting-enemy-turf": Rule("write up the enemy", "Defining the Setting > Scope of Play",
                               WARNING),
}


@dataclass(frozen=True)
class Finding:
    code: str
    severity: str
    rule: str
    section: str
    fields: tuple[str, ...]
    message: str
    fix: str
    readings: tuple[str, ...] = ()  # ids of the readings of ambiguous rules it relies on

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "severity": self.severity,
                               "rule": self.rule, "section": self.section,
                               "fields": list(self.fields), "message": self.message,
                               "fix": self.fix}
        if self.readings:
            out["readings"] = [{"id": r, "text": READINGS[r]} for r in self.readings]
        return out

    def lines(self) -> list[str]:
        """The finding as a few lines of text for the terminal."""
        head = f"{self.severity:<7} {self.code}: {self.message}"
        out = [head, f"        fix: {self.fix}"] if self.fix else [head]
        where = f"        rule: {self.rule} ({self.section})"
        if self.fields:
            where += f"; field: {', '.join(self.fields)}"
        out.append(where)
        for r in self.readings:
            out.append(f"        reading {r}: {READINGS[r]} (docs/rules.md)")
        return out


def finding(code: str, fields: Iterable[str], message: str, fix: str,
            reading: str | Iterable[str] | None = None, severity: str | None = None
            ) -> Finding:
    """A finding of the catalogued rule `code`, citing the readings it relies on."""
    rule = RULES[code]
    ids = () if reading is None else (reading,) if isinstance(reading, str) else \
        tuple(dict.fromkeys(reading))
    for r in ids:
        if r not in READINGS:
            raise KeyError(r)
    return Finding(code, severity or rule.severity, rule.name, rule.section, tuple(fields),
                   message, fix, ids)


def errors(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == ERROR]


def plural(n: float, word: str) -> str:
    num = f"{n:g}" if isinstance(n, float) else str(n)
    return f"{num} {word}" if n == 1 else f"{num} {word}s"
