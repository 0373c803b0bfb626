"""Validation of a Spacer character against every creation rule.

`validate_character` runs the checks in order (creation, departments and rank, the
derived values and gear on the sheet, advancement) and returns the findings and the
values the rules compute. Readings of ambiguous rules are cited by id (docs/rules.md).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from game.spacer import advancement, departments, sheet
from game.spacer.arrays import (
    before_modifier,
    inborn_problem,
    match_inborn,
    match_trained,
    trained_problem,
)
from game.spacer.character import Character
from game.spacer.data import SpacerData, load_data, norm
from game.spacer.findings import ERROR, WARNING, Finding, plural
from game.spacer.review import Review

# Endings of nouns players often write where the rules want an adjective.
_NOUN_ENDINGS = ("ness", "ity", "ment", "tion", "sion", "ism", "hood", "ship", "lust")
_ONE_MORE = {"trained": "1 more trained point", "hobbies": "1 more hobby level",
             "traits": "1 more trait point", "luck": "1 more luck",
             "levels": "1 more department and field level"}
_READING = {"trained": "S1", "hobbies": "S9", "traits": "S2", "luck": "S3", "levels": "S1"}


@dataclass(frozen=True)
class CharacterReport:
    findings: tuple[Finding, ...]
    computed: dict[str, Any]

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)


def validate_character(char: Character, data: SpacerData | None = None) -> CharacterReport:
    """Every finding for `char`, and the values the rules compute for it."""
    r = Review(data or load_data(), char)
    check_blanks(r)
    check_species(r)
    check_maxima(r)
    check_arrays(r)
    departments.check(r)
    check_bonus_points(r)
    check_fate_and_luck(r)
    check_traits(r)
    check_principles(r)
    check_hobbies(r)
    sheet.check(r)
    advancement.check(r)
    return CharacterReport(tuple(r.findings), r.computed)


# --- the form's boxes -------------------------------------------------------------
def check_blanks(r: Review) -> None:
    """Boxes the rules need: species, level and every attribute."""
    c = r.char
    if not (c.species or "").strip():
        r.add("blank-field", ["species"], "The species box is blank.",
              "Write the species: " + ", ".join(s.name for s in r.data.species) + ".")
    if c.level is None:
        r.add("blank-field", ["level"], "The level box is blank.",
              f"Write the level (a new character is level {r.data.starting_level}).")
    r.level = c.level
    values: dict[str, int] = {}
    for a in r.data.attributes:
        group = c.inborn if a.kind == "inborn" else c.trained
        v = group.get(a.id)
        if v is None:
            r.add("blank-field", [f"{a.kind}.{a.id}"], f"{a.name} is blank.",
                  f"Write {a.name} (0 is a value; a blank is not).")
        else:
            values[a.id] = int(v)
    if len(values) == len(r.data.attributes):
        r.attrs = values
        r.computed["attributes"] = dict(values)


def check_species(r: Review) -> None:
    name = (r.char.species or "").strip()
    if not name:
        return
    r.species = r.data.find_species(name)
    if r.species is None:
        r.add("species-unknown", ["species"], f"'{name}' is not a Spacer species.",
              "Use one of " + ", ".join(s.name for s in r.data.species)
              + " (species modifiers, maxima and abilities depend on it).")
        return
    r.computed["species"] = r.species.name
    r.computed["species_modifiers"] = dict(r.species.modifiers)


def check_maxima(r: Review) -> None:
    """Final values within the species maximum and the 0-20 scale (reading S4)."""
    if r.species is None:
        return
    sp = r.species
    r.computed["maxima"] = {a.id: sp.maximum(a.id) for a in r.data.attributes}
    for a in r.data.attributes:
        group = r.char.inborn if a.kind == "inborn" else r.char.trained
        v = group.get(a.id)
        top = sp.maximum(a.id)
        if v is not None and v > top:
            why = f"{top}" if top == r.data.default_maximum else \
                f"{top} ({r.data.default_maximum}, {sp.name} {sp.modifier(a.id):+d})"
            r.add("attribute-maximum", [f"{a.kind}.{a.id}"],
                  f"{a.name} is {v}, above the {sp.name} maximum of {why}.",
                  f"Lower {a.name} to {top} and put the points elsewhere.", reading="S4")


# --- arrays -----------------------------------------------------------------------
def _start_values(r: Review) -> dict[str, int] | None:
    """Creation values: the St column if written, else the current values at level 0."""
    c = r.char
    if c.start is not None and (c.start.inborn or c.start.trained):
        vals = {**c.start.inborn, **c.start.trained}
        missing = [a for a in r.data.attributes if vals.get(a.id) is None]
        if missing:
            r.add("creation-unchecked", [f"start.{a.kind}.{a.id}" for a in missing],
                  "The starting column (St) is incomplete, so the starting arrays "
                  "cannot be checked.", "Fill in every starting value.")
            return None
        return {k: int(v) for k, v in vals.items() if v is not None}
    if r.level == r.data.starting_level and r.attrs is not None:
        return dict(r.attrs)
    if r.level is not None and r.attrs is not None:
        r.add("creation-unchecked", ["start"],
              f"At level {r.level} the current attributes include advancement, and the "
              "starting values (St column) are not written, so the starting arrays and "
              "bonus points cannot be checked.",
              "Write the starting values in `start` (the form's St column).")
    return None


def check_arrays(r: Review) -> None:
    """The inborn array (one value left over = bonus points) and the trained array."""
    if r.species is None:
        return
    start = _start_values(r)
    if start is None:
        return
    r.start = start
    sp, data = r.species, r.data
    inborn = data.inborn
    opts = [before_modifier(start[a.id], sp.modifier(a.id)) for a in inborn]
    m = match_inborn(opts, data.inborn_array)
    array_text = ", ".join(map(str, data.inborn_array))
    if m is None:
        bases = [o[-1] for o in opts]
        listing = ", ".join(f"{a.name} {b}{r.species_note(a.id)}"
                            for a, b in zip(inborn, bases, strict=True))
        r.add("inborn-array", [f"inborn.{a.id}" for a in inborn],
              f"Inborn values before species modifiers are {listing}: "
              f"{inborn_problem(bases, data.inborn_array)}.",
              f"Give the five inborn attributes five of {array_text}, each value once; "
              "the value left over becomes your bonus points.", reading=("S4", "S5"))
    else:
        r.leftover = m.leftover
        r.computed["bonus_points"] = m.leftover
        written = r.char.written.get("bonus_points")
        if written is not None and written != m.leftover:
            r.add("bonus-points", ["written.bonus_points"],
                  f"Bonus points: you wrote {written}; the inborn value left over from "
                  f"{array_text} is {m.leftover}.", f"Write {m.leftover}.", reading="S1")
    trained = data.trained
    topts = [before_modifier(start[a.id], sp.modifier(a.id)) for a in trained]
    t = match_trained(topts, data.trained_array, data.purchase("trained").trained_points)
    tarray = ", ".join(map(str, data.trained_array))
    if t is None:
        raw = [o[-1] for o in topts]
        low = [f"{a.name} {v}{r.species_note(a.id)}" for a, v in zip(trained, raw, strict=True)
               if v < 0]
        if low:
            r.add("trained-array", [f"trained.{a.id}" for a in trained],
                  f"{', '.join(low)}: below 0 before the species modifier, which no array "
                  "value allows.", "Raise it to at least the species bonus.",
                  reading=("S4", "S5"))
            return
        value, needed, have = trained_problem(raw, data.trained_array)
        r.add("trained-array", [f"trained.{a.id}" for a in trained],
              f"The trained array {tarray} puts {value} or more on {needed} attributes, "
              f"but only {have} of yours are {value} or more before species modifiers.",
              f"Give each trained attribute one value of {tarray}; bonus points only add "
              "points on top of the array.", reading=("S4", "S5"))
        return
    r.trained_extra = t.extra


# --- bonus points -----------------------------------------------------------------
def racial_free_points(r: Review) -> int:
    """Trait points the species gives for free (reading S8)."""
    if r.species is None:
        return 0
    traits = {norm(k): v for k, v in r.char.traits.items()}
    return sum(min(traits.get(norm(t.name), 0), t.free) for t in r.species.racial_traits)


def spending(r: Review) -> dict[str, float] | None:
    """Bonus points spent per purchase (fractions for half-used purchases), or None."""
    c, data = r.char, r.data
    if r.trained_extra is None or c.luck is None:
        return None
    start_rank = c.start.rank if c.start and c.start.rank is not None else None
    rank_luck = 0
    if start_rank is not None and c.rank is not None:
        rank_luck = data.luck_per_even_rank * (c.rank // 2 - start_rank // 2)
    per = {p.id: p for p in data.bonus_purchases}
    levels = sum(d.level or 0 for d in c.departments)
    hobby = max(0, sum(c.hobbies.values()) - data.free_hobby_levels)
    traits = max(0, sum(c.traits.values()) - racial_free_points(r) - data.trait_points)
    return {
        "luck": (c.luck + c.luck_burned - rank_luck) / per["luck"].luck,
        "trained": r.trained_extra / per["trained"].trained_points,
        "levels": levels / per["levels"].department_levels,
        "hobbies": hobby / per["hobbies"].hobby_levels,
        "traits": traits / per["traits"].trait_points,
    }


def _used_readings(whole: dict[str, int]) -> list[str]:
    """The readings a purchase total depends on, given what was bought."""
    out = ["S1"]
    for kind, ids in (("traits", ["S2"]), ("hobbies", ["S9"]), ("luck", ["S3", "S17"])):
        if whole.get(kind):
            out += ids
    return out


def check_bonus_points(r: Review) -> None:
    """What the bonus points bought, against the leftover inborn value (S1, S2, S3, S9)."""
    if r.leftover is None or r.level != r.data.starting_level:
        return
    spent = spending(r)
    if spent is None:
        return
    whole = {k: math.ceil(v) for k, v in spent.items()}
    total = sum(whole.values())
    r.computed["bonus_spent"] = {**whole, "total": total}
    names = {p.id: p.name for p in r.data.bonus_purchases}
    half = [k for k, v in spent.items() if v != int(v)]
    for k in half:
        r.add("bonus-half-used", [k],
              f"Your {k} use {spent[k]:g} bonus points: one point buys {names[k]}, so half "
              "of one purchase is unused.",
              f"Add {_ONE_MORE[k]}, or accept the waste.", reading=_READING[k])
    breakdown = ", ".join(f"{k} {v}" for k, v in whole.items() if v)
    if total > r.leftover:
        r.add("bonus-overspent", ["bonus points"],
              f"You spent {plural(total, 'bonus point')} ({breakdown or 'nothing'}) but "
              f"have {r.leftover} (the inborn value left over).",
              f"Remove {plural(total - r.leftover, 'purchase')}. One point buys: "
              + "; ".join(names.values()) + ".", reading=_used_readings(whole))
    elif total < r.leftover:
        r.add("bonus-unspent", ["bonus points"],
              f"{plural(r.leftover - total, 'bonus point')} of {r.leftover} unspent "
              f"({breakdown or 'nothing bought'}).",
              "Spend them: " + "; ".join(names.values()) + ".", reading="S1")
    written = r.char.written.get("bonus_spent")
    if written is not None and written != total:
        r.add("bonus-spent", ["written.bonus_spent"],
              f"Bonus points spent: you wrote {written}; your purchases ({breakdown}) "
              f"come to {total}.", f"Write {total}.", reading="S1")


def check_fate_and_luck(r: Review) -> None:
    c, sp = r.char, r.species
    if sp is not None and c.fate is not None and r.level is not None:
        top = sp.fate + r.level
        if r.level == r.data.starting_level and c.fate != sp.fate:
            r.add("fate", ["fate"],
                  f"Fate is {c.fate}; a new {sp.name} starts with {sp.fate}.",
                  f"Write {sp.fate}; fate is not bought with bonus points.", reading="S6")
        elif not sp.fate <= c.fate <= top:
            r.add("fate", ["fate"],
                  f"Fate is {c.fate}; a {sp.name} at level {r.level} has {sp.fate} to {top} "
                  "(each point above the start costs a whole level's advancement).",
                  f"Write a fate between {sp.fate} and {top}.", reading="S6")
    elif sp is not None and c.fate is None and sp.fate:
        r.add("fate", ["fate"], f"The fate box is blank; a {sp.name} starts with {sp.fate}.",
              f"Write {sp.fate}.", reading="S6")
    if c.luck is None:
        r.add("blank-field", ["luck"], "The luck box is blank.",
              "Write your luck (0 if you bought none).")
        return
    st = c.start
    if r.level and st is not None and st.luck is not None and st.rank is not None \
            and c.rank is not None:
        gained = r.data.luck_per_even_rank * (c.rank // 2 - st.rank // 2)
        expected = st.luck + gained - c.luck_burned
        if c.luck != expected:
            r.add("luck", ["luck"],
                  f"Luck: you wrote {c.luck}; starting luck {st.luck} + {gained} for even "
                  f"ranks reached (rank {st.rank} to {c.rank}) - {c.luck_burned} burned "
                  f"= {expected}.", f"Write {expected}.", reading=("S3", "S17"))


# --- traits, principles, hobbies --------------------------------------------------
def check_traits(r: Review) -> None:
    c, data = r.char, r.data
    if not c.traits:
        r.add("traits-none", ["traits"], "No traits: every character has at least one.",
              f"Spread {data.trait_points} points over one or more adjectives "
              "(e.g. Careful 4, Patient 3, Sloppy 3).")
        return
    for name, v in c.traits.items():
        if v < 1:
            r.add("trait-value", [f"traits.{name}"], f"Trait {name} is {v}.",
                  "Give it at least 1 point or cross it out.")
    racial = {norm(t.name): t for t in r.species.racial_traits} if r.species else {}
    traits = {norm(k): v for k, v in c.traits.items()}
    for t in racial.values():
        have = traits.get(norm(t.name), 0)
        if have < t.minimum:
            r.add("racial-trait", ["traits"],
                  f"Every {r.species.name if r.species else ''} has the trait {t.name} at "
                  f"{t.minimum} or more (free); yours is {have or 'missing'}.",
                  f"Add {t.name} {t.minimum} (it does not use your {data.trait_points} "
                  "points).", reading="S8")
    for name in c.traits:
        words = name.split()
        if norm(name) in racial:
            continue
        if len(words) > 3 or any(w.lower().endswith(_NOUN_ENDINGS) for w in words[-1:]):
            r.add("trait-adjective", [f"traits.{name}"],
                  f"'{name}' does not look like an adjective; traits are adjectives "
                  "(Sloppy, Patient, Careful).",
                  "Rename it as an adjective (Curiosity -> Curious).")
    if r.level != data.starting_level:
        return
    total = sum(max(0, v) for v in c.traits.values())
    free = racial_free_points(r)
    if total - free < data.trait_points:
        extra = f" (plus {free} free racial points)" if free else ""
        r.add("traits-total", ["traits"],
              f"Your traits add up to {total}; you have {data.trait_points} trait points"
              f"{extra} to place, all of them.",
              f"Add {plural(data.trait_points + free - total, 'point')} to your traits.",
              reading="S7")


_SPLIT = re.compile(r"\s*;\s*")


def check_principles(r: Review) -> None:
    lo, hi = r.data.principles_min, r.data.principles_max
    ps = [p for p in r.char.principles if p.belief or p.action]
    if not lo <= len(ps) <= hi:
        r.add("principles-count", ["principles"],
              f"{plural(len(ps), 'principle')}; a character has {lo} or {hi}.",
              "Add a principle." if len(ps) < lo else "Keep the ones you want stories about.")
    for i, p in enumerate(ps, 1):
        if not p.separated:
            r.add("principle-incomplete", [f"principles.{i}"],
                  f"Principle {i} is one sentence ('{p.belief}'), so its belief and its "
                  "action cannot be told apart.",
                  "Write it as 'belief; action' (The K'T'K are our enemies; I will stop "
                  "their expansion).", reading="S18", severity=WARNING)
        elif not p.belief or not p.action:
            part = "belief" if not p.belief else "action"
            r.add("principle-incomplete", [f"principles.{i}.{part}"],
                  f"Principle {i} has no {part}: a principle is a concrete belief and the "
                  "action or goal it leads to.", f"Write the {part}.")


def check_hobbies(r: Review) -> None:
    if r.level == r.data.starting_level and sum(r.char.hobbies.values()) == 0:
        n = r.data.free_hobby_levels
        r.add("hobby-free-unused", ["hobbies"],
              f"No hobby: every character starts with {plural(n, 'free hobby level')}.",
              "Write a hobby at level 1 (anything self-explanatory: Chess, Boxing, ...).",
              reading="S9")
