"""Advancement checks: the tally diamonds, the circles spent since creation, study circles."""

from __future__ import annotations

from game.spacer.findings import plural
from game.spacer.review import Review


def check(r: Review) -> None:
    check_tallies(r)
    check_start_at_level0(r)
    check_circles(r)
    check_study(r)


def check_tallies(r: Review) -> None:
    """Only printed diamonds; none above the current level; full rows below it (S14)."""
    data, tallies, level = r.data, r.char.advancement, r.level
    rows = {row.id: row for row in data.tally_rows}
    for row_id, levels in tallies.items():
        row = rows[row_id]
        for lv in levels:
            if lv < row.from_level:
                r.add("advancement-cell", [f"advancement.{row_id}"],
                      f"{row.name} has no diamond at level {lv} on the form.",
                      f"Remove the level-{lv} {row.name} check (it starts at level "
                      f"{row.from_level}).", reading="S14")
            elif level is not None and lv > level:
                r.add("advancement-future", [f"advancement.{row_id}"],
                      f"{row.name} is checked at level {lv}, above your level {level}: "
                      "checks count only for the current level.",
                      f"Move the check to level {level} or remove it.")
    if not level:
        return
    for lv in range(min(level, len(data.tally_levels))):
        missing = [row.name for row in data.tally_rows
                   if lv >= row.from_level and lv not in tallies.get(row.id, ())]
        if missing:
            r.add("advancement-incomplete", [f"advancement.{lv}"],
                  f"You are level {level}, but level {lv} still lacks "
                  f"{', '.join(missing)}: every check of a level comes before the next.",
                  "Fill in the checks you earned, or check your level.", reading="S14")


def check_start_at_level0(r: Review) -> None:
    """At the starting level nothing has advanced: St equals the current values."""
    c = r.char
    if r.level != r.data.starting_level or c.start is None or r.attrs is None:
        return
    start = {**c.start.inborn, **c.start.trained}
    for a in r.data.attributes:
        s = start.get(a.id)
        if s is not None and s != r.attrs[a.id]:
            r.add("start-level0", [f"{a.kind}.{a.id}", f"start.{a.kind}.{a.id}"],
                  f"{a.name} is {r.attrs[a.id]} but started at {s}; at level "
                  f"{r.data.starting_level} nothing has advanced yet.",
                  f"Make both {s} (or both {r.attrs[a.id]}).")


def check_circles(r: Review) -> None:
    """Attribute raises since creation fit the circles of the levels gained (S15)."""
    data, c = r.data, r.char
    if not r.level or r.start is None or r.attrs is None:
        return
    spent = 0
    parts = []
    for a in data.attributes:
        diff = r.attrs[a.id] - r.start[a.id]
        if diff < 0:
            r.add("advancement-lowered", [f"{a.kind}.{a.id}"],
                  f"{a.name} is {r.attrs[a.id]}, below its starting {r.start[a.id]}; "
                  "advancement only raises attributes.",
                  f"Check {a.name} and its starting value.")
        elif diff:
            cost = data.circle_cost[a.kind] * diff
            spent += cost
            parts.append(f"{a.name} +{diff} ({plural(cost, 'circle')})")
    fate_levels = 0
    if r.species is not None and c.fate is not None:
        fate_levels = max(0, c.fate - r.species.fate)
    levels = max(0, r.level - fate_levels)
    have = data.circles_per_level * levels
    r.computed["advancement_circles"] = {"available": have, "attributes": spent}
    if spent > have:
        fate = f" ({plural(fate_levels, 'level')} went to fate)" if fate_levels else ""
        r.add("advancement-circles", ["inborn", "trained"],
              f"Raising {', '.join(parts)} takes {spent} circles; {plural(levels, 'level')}"
              f"{fate} give {have} ({data.circles_per_level} per level).",
              f"Lower the raises by {spent - have} circles, or check the level.",
              reading=("S15", "S6") if fate_levels else "S15")


def check_study(r: Review) -> None:
    data = r.data
    kinds = {a.id: a.kind for a in data.attributes}
    kinds.update({a.name.lower(): a.kind for a in data.attributes})
    for name, n in r.char.study.items():
        kind = kinds.get(name.lower(), "trait")
        limit = data.study_circles.get(kind, 1)
        if n > limit:
            r.add("study-circles", [f"study.{name}"],
                  f"{n} study circles filled for {name}; the form has {limit}.",
                  f"Keep {limit}; spend them when you next advance.")
