"""A random legal level-0 Spacer character from a seed (the same seed, the same character).

It follows the creation rules as game/spacer/creation.py reads them: arrays, species
modifiers within the maxima, every bonus point spent on whole purchases, the free hobby
level, 10 trait points plus racial traits, gear filling the personal and issue points,
and the derived values written as the rules compute them.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from game.spacer import derived
from game.spacer.character import Character, DepartmentEntry, Gear, GearEntry, Principle
from game.spacer.data import Department, SpacerData, Species, load_data
from starsheets.errors import UsageError


def _species(data: SpacerData, rng: random.Random, name: str | None) -> Species:
    if name is None:
        return rng.choice(data.species)
    sp = data.find_species(name)
    if sp is None:
        raise UsageError(f"unknown species '{name}'",
                         "Use one of: " + ", ".join(s.name for s in data.species) + ".")
    return sp


def _inborn(data: SpacerData, sp: Species, rng: random.Random) -> tuple[dict[str, int], int]:
    """Five array values on the inborn attributes, within the maxima; the sixth left over."""
    while True:
        values = rng.sample(data.inborn_array, len(data.inborn_array))
        final = {a.id: max(0, v + sp.modifier(a.id))
                 for a, v in zip(data.inborn, values, strict=False)}
        if all(final[k] <= sp.maximum(k) for k in final):
            return final, values[-1]


def _split(total: int, parts: int, rng: random.Random) -> list[int]:
    """`total` as `parts` positive integers."""
    cuts = sorted(rng.sample(range(1, total), parts - 1)) if parts > 1 else []
    bounds = [0, *cuts, total]
    return [b - a for a, b in itertools.pairwise(bounds)]


class _Builder:
    """Spends the bonus points one purchase at a time."""

    def __init__(self, data: SpacerData, sp: Species, rng: random.Random) -> None:
        self.data, self.sp, self.rng = data, sp, rng
        self.raw = dict(zip((a.id for a in data.trained),
                            rng.sample(data.trained_array, len(data.trained_array)),
                            strict=True))
        self.luck = 0
        self.hobby_levels = data.free_hobby_levels
        self.trait_points = data.trait_points
        self.levels: dict[str, dict[str, int]] = {}  # department name -> field -> level

    def final(self, attr: str) -> int:
        return max(0, self.raw[attr] + self.sp.modifier(attr))

    def can_train(self) -> list[str]:
        """Trained attributes where one more point shows (not floored, under the cap)."""
        return [a for a in self.raw if self.raw[a] + self.sp.modifier(a) >= 0
                and self.final(a) < self.sp.maximum(a)]

    def buy_trained(self) -> bool:
        for _ in range(2):
            options = self.can_train()
            if not options:
                return False
            self.raw[self.rng.choice(options)] += 1
        return True

    def buy_level(self, dept: Department) -> None:
        fields = self.levels.setdefault(dept.name, {})
        field = self.rng.choice(dept.fields).name
        fields[field] = fields.get(field, 0) + 1

    def level(self, name: str) -> int:
        return sum(self.levels.get(name, {}).values())


def generate(seed: int, species: str | None = None, data: SpacerData | None = None,
             officer: bool | None = None) -> Character:
    """A legal new character; `officer` None lets the seed decide."""
    data = data or load_data()
    rng = random.Random(seed)
    sp = _species(data, rng, species)
    inborn, leftover = _inborn(data, sp, rng)
    b = _Builder(data, sp, rng)
    real = [d for d in data.departments if not d.officer]
    dept = rng.choice(real)
    officer_dept = data.officer_department()
    is_officer = rng.random() < 0.3 if officer is None else officer
    points = leftover
    if is_officer:  # an officer needs a real department (reading S16)
        b.buy_level(dept)
        points -= 1
    while points:
        kind = rng.choice(["luck", "trained", "levels", "levels", "hobbies", "traits"])
        if kind == "trained" and not b.buy_trained():
            continue
        if kind == "luck":
            b.luck += 1
        elif kind == "levels":
            use_officer = is_officer and rng.random() < 0.5
            b.buy_level(officer_dept if use_officer else dept)
        elif kind == "hobbies":
            b.hobby_levels += 2
        elif kind == "traits":
            b.trait_points += 2
        points -= 1
    dept_level = b.level(dept.name)
    rank = min(b.level(officer_dept.name), dept_level) if is_officer else dept_level
    service = "officer" if is_officer else "enlisted"
    branch = "ground" if dept.id == "marines" else rng.choice(["space", "space", "agent"])
    attrs = {**inborn, **{a: b.final(a) for a in b.raw}}
    return Character(
        player=None, character=_name(data, sp, rng), ship=rng.choice(data.generator["ships"]),
        species=sp.name, gender=rng.choice(data.generator["genders"]),
        level=data.starting_level, rank=rank, service=service, branch=branch,
        luck=b.luck, fate=sp.fate,
        inborn={a.id: attrs[a.id] for a in data.inborn},
        trained={a.id: attrs[a.id] for a in data.trained},
        departments=tuple(DepartmentEntry(name, sum(f.values()), dict(f))
                          for name, f in b.levels.items()),
        current_department=dept.name if dept.name in b.levels else None,
        hobbies=_hobbies(data, rng, b.hobby_levels),
        principles=tuple(Principle(p["belief"], p["action"]) for p in rng.sample(
            list(data.generator["principles"]),
            rng.randint(data.principles_min, data.principles_max))),
        traits=_traits(data, sp, rng, b.trait_points),
        special_abilities=tuple(a.name for a in sp.abilities),
        wounds={w.id: 0 for w in data.wounds},
        gear=_gear(data, rng, rank, dept),
        written=_written(data, attrs, service, rank, branch, leftover),
    )


def _name(data: SpacerData, sp: Species, rng: random.Random) -> str:
    g = data.generator
    if sp.fate:  # humans and the human-like Kangids
        return f"{rng.choice(g['given_names'])} {rng.choice(g['family_names'])}"
    return rng.choice(g["alien_names"])


def _hobbies(data: SpacerData, rng: random.Random, levels: int) -> dict[str, int]:
    names = rng.sample(list(data.generator["hobbies"]), min(levels, rng.randint(1, 3)))
    return dict(zip(names, _split(levels, len(names), rng), strict=True))


def _traits(data: SpacerData, sp: Species, rng: random.Random, points: int) -> dict[str, int]:
    out = {t.name: t.minimum for t in sp.racial_traits}
    if out and rng.random() < 0.3:  # raise a racial trait with trait points
        name = rng.choice(list(out))
        out[name] += 1
        points -= 1
    names = rng.sample(list(data.generator["traits"]), min(points, rng.randint(1, 4)))
    out.update(zip(names, _split(points, len(names), rng), strict=True))
    return out


def _fill(data: SpacerData, rng: random.Random, points: float, dept: Department
          ) -> tuple[GearEntry, ...]:
    """Listed items costing exactly `points`."""
    out: list[GearEntry] = []
    while points > 0:
        item = rng.choice([i for i in data.items if i.cost <= points])
        name = f"{item.name} ({dept.name})" if item.specialty else item.name
        out.append(GearEntry(name))
        points -= item.cost
    return tuple(out)


def _gear(data: SpacerData, rng: random.Random, rank: int, dept: Department) -> Gear:
    issue = derived.issue_points(data, rank).value
    return Gear(personal=_fill(data, rng, data.personal_points, dept),
                issue=_fill(data, rng, issue, dept),
                free=tuple(GearEntry(f.name, f.count) for f in data.free_items))


def _written(data: SpacerData, attrs: dict[str, int], service: str, rank: int, branch: str,
             leftover: int) -> dict[str, Any]:
    return {
        "initiative": derived.initiative(data, attrs).value,
        "toughness": derived.toughness(data, attrs).value,
        "leadership": derived.leadership(data, service, attrs["interpersonal"], rank).value,
        "wound_penalty": 0,
        "bonus_points": leftover,
        "bonus_spent": leftover,
        "issue_points": derived.issue_points(data, rank).value,
        "rank_title": data.rank_title(service, branch, rank),
        "wound_capacity": {w.id: w.capacity for w in data.wounds},
    }
