"""Checks of what the sheet derives: personal combat data, wounds, gear and the species'
special abilities. Each derived number is computed and compared with what was written."""

from __future__ import annotations

from collections import Counter
from typing import Any

from game.spacer import derived
from game.spacer.character import GearEntry
from game.spacer.data import norm
from game.spacer.findings import plural
from game.spacer.review import Review


def check(r: Review) -> None:
    check_combat_data(r)
    check_wounds(r)
    check_gear(r)
    check_abilities(r)


def _compare(r: Review, key: str, label: str, value: derived.Derived,
             reading: str | None = None) -> None:
    r.computed[key] = value.value
    written = r.char.written.get(key)
    if written is not None and written != value.value:
        r.add(key.replace("_", "-"), [f"written.{key}"],
              f"{label}: you wrote {written}; {value.working}.",
              f"Write {value.value}.", reading=reading)


def check_combat_data(r: Review) -> None:
    data = r.data
    if r.attrs is not None:
        _compare(r, "initiative", "Initiative", derived.initiative(data, r.attrs))
        tough = derived.toughness(data, r.attrs)
        r.toughness = tough.value
        _compare(r, "toughness", "Toughness", tough, reading="S12")
        if r.rank is not None:
            lead = derived.leadership(data, r.service, r.attrs["interpersonal"], r.rank)
            _compare(r, "leadership", "Leadership", lead,
                     reading=None if r.service == "officer" else "S13")
    if r.rank is not None:
        _compare(r, "issue_points", "Issue points", derived.issue_points(data, r.rank),
                 reading="S11")
    r.computed["personal_points"] = data.personal_points
    caps = r.char.written.get("wound_capacity") or {}
    r.computed["wound_capacity"] = {w.id: w.capacity for w in data.wounds}
    for w in data.wounds:
        wrote = caps.get(w.id)
        if wrote is not None and wrote != w.capacity:
            r.add("wound-capacity", [f"written.wound_capacity.{w.id}"],
                  f"{w.name} wounds: you gave {wrote} boxes; everyone can take "
                  f"{w.capacity}.", f"Write {w.capacity}.")


def check_wounds(r: Review) -> None:
    data, wounds = r.data, r.char.wounds
    for w in data.wounds:
        n = wounds.get(w.id, 0)
        if n > w.capacity:
            r.add("wounds-over-capacity", [f"wounds.{w.id}"],
                  f"{n} {w.name.lower()} wounds marked; there are only {w.capacity} boxes. "
                  f"A {w.name.lower()} wound beyond them overflows to {w.overflow}.",
                  f"Keep {w.capacity} and mark the overflow instead.")
    penalty = derived.wound_penalty(data, wounds)
    _compare(r, "wound_penalty", "Wound penalty", penalty)
    if penalty.value and r.toughness is not None and penalty.value >= r.toughness:
        r.add("wounds-incapacitated", ["wounds"],
              f"Wound penalty {penalty.value} is as big as Toughness {r.toughness}: the "
              "character cannot function.", "Heal, or shrug off the penalties (Willpower).")


def _cost(r: Review, entry: GearEntry, pool: str) -> float:
    """Cost of one gear line; unlisted items count at the cost the player gave."""
    item = r.data.find_item(entry.item)
    if item is not None:
        return item.cost * entry.count
    free = r.data.find_free_item(entry.item)
    where = [f"gear.{pool}"]
    if free is not None:
        r.add("gear-unlisted", where, f"{entry.item} is free gear, not bought with {pool} "
              "points.", "List it under gear.free.")
        return 0.0
    if entry.cost is not None:
        r.add("gear-unlisted", where, f"{entry.item} is not on the gear list; counted at "
              f"the {plural(entry.cost, 'point')} you gave.", "Agree the cost with your "
              "Referee.")
        return entry.cost * entry.count
    r.add("gear-unlisted", where, f"{entry.item} is not on the gear list and has no cost, "
          "so it is not counted.", "Pick a listed item, or give its agreed cost "
          "({item: ..., cost: N}).")
    return 0.0


def _mass(r: Review, entries: list[GearEntry]) -> float:
    total = 0.0
    for e in entries:
        item = r.data.find_item(e.item)
        if item is not None and item.mass_kg is not None:
            total += item.mass_kg * e.count
    return round(total, 2)


def check_gear(r: Review) -> None:
    data, gear = r.data, r.char.gear
    personal = sum(_cost(r, e, "personal") for e in gear.personal)
    issue = sum(_cost(r, e, "issue") for e in gear.issue)
    used: dict[str, Any] = {"personal_used": personal, "issue_used": issue}
    if personal > data.personal_points:
        r.add("gear-personal", ["gear.personal"],
              f"Personal gear costs {personal:g} points; you have {data.personal_points}.",
              f"Drop {personal - data.personal_points:g} points of personal gear.")
    if r.rank is not None:
        points = derived.issue_points(data, r.rank)
        if issue > points.value:
            r.add("gear-issue", ["gear.issue"],
                  f"Issue gear costs {issue:g} points; you get {points.working}.",
                  f"Drop {issue - points.value:g} points of issue gear.", reading="S11")
    counts: Counter[str] = Counter()
    for e in gear.free:
        free = data.find_free_item(e.item)
        if free is None:
            r.add("gear-free", ["gear.free"],
                  f"{e.item} is not free gear (free: "
                  + ", ".join(f"{f.count} {f.name}" for f in data.free_items) + ").",
                  "Buy it with personal or issue points.")
            continue
        counts[free.name] += e.count
    for f in data.free_items:
        if counts[f.name] > f.count:
            r.add("gear-free", ["gear.free"],
                  f"{counts[f.name]} x {f.name} listed as free; the free allowance is "
                  f"{f.count}.", f"Keep {f.count} free; buy any more.")
    everything = [*gear.personal, *gear.issue]
    used["mass_kg"] = _mass(r, everything)
    armor = [it.armor for e in everything if (it := data.find_item(e.item)) and it.armor]
    used["worn_armor"] = max(armor, default=0)
    if r.species is not None:
        used["natural_armor"] = r.species.natural_armor
    r.computed["gear"] = used


def check_abilities(r: Review) -> None:
    if r.species is None:
        return
    written = [norm(a) for a in r.char.special_abilities]
    missing = [a.name for a in r.species.abilities
               if not any(norm(a.name) in w for w in written)]
    r.computed["special_abilities"] = [a.name for a in r.species.abilities]
    if missing:
        r.add("special-abilities", ["special_abilities"],
              f"The {r.species.name} special abilities are not all on the sheet: missing "
              f"{', '.join(missing)}.", "Write them in the Special Abilities box.")
