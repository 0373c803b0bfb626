"""Spacer's tables as typed, immutable objects built from templates/spacer.yaml.

Everything a rule needs (arrays, species, departments, gear costs, rank titles, wound
boxes, the setting form) is read here once; the validators never hard-code a number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

import templates


def norm(name: str) -> str:
    """Compare names the way a player writes them: case, spaces and punctuation ignored."""
    return re.sub(r"[^a-z0-9]+", "", name.lower())


def _frozen(d: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class Attribute:
    id: str
    name: str
    short: str
    kind: str  # "inborn" or "trained"
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class Field:
    name: str
    department: str  # department id
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class Department:
    id: str
    name: str
    aliases: tuple[str, ...]
    fields: tuple[Field, ...]
    officer: bool


@dataclass(frozen=True)
class Ability:
    name: str
    text: str


@dataclass(frozen=True)
class RacialTrait:
    name: str
    minimum: int
    free: int


@dataclass(frozen=True)
class Species:
    id: str
    name: str
    aliases: tuple[str, ...]
    description: str
    modifiers: Mapping[str, int]
    maxima: Mapping[str, int]  # "default" plus per-attribute exceptions
    fate: int
    natural_armor: int
    abilities: tuple[Ability, ...]
    racial_traits: tuple[RacialTrait, ...]

    def modifier(self, attribute: str) -> int:
        return self.modifiers.get(attribute, 0)

    def maximum(self, attribute: str) -> int:
        return self.maxima.get(attribute, self.maxima["default"])


@dataclass(frozen=True)
class BonusPurchase:
    id: str
    name: str
    luck: int = 0
    trained_points: int = 0
    department_levels: int = 0
    field_levels: int = 0
    hobby_levels: int = 0
    trait_points: int = 0


@dataclass(frozen=True)
class GearItem:
    name: str
    cost: float
    mass_kg: float | None
    aliases: tuple[str, ...]
    armor: int = 0
    specialty: bool = False


@dataclass(frozen=True)
class FreeItem:
    name: str
    count: int
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class WoundKind:
    id: str
    name: str
    capacity: int
    penalty: int
    overflow: str


@dataclass(frozen=True)
class Formula:
    """(sum of `sum` // divide_by) + sum of `plus`; names are attribute ids or "rank"."""

    sum: tuple[str, ...]
    divide_by: int
    plus: tuple[str, ...]

    def text(self, labels: Mapping[str, str]) -> str:
        inner = " + ".join(labels.get(n, n) for n in self.sum)
        out = f"({inner})/{self.divide_by}" if self.divide_by != 1 else inner
        for n in self.plus:
            out += f" + {labels.get(n, n)}"
        return out


@dataclass(frozen=True)
class TallyRow:
    id: str
    name: str
    from_level: int
    text: str


@dataclass(frozen=True)
class SettingOption:
    name: str
    text: str


@dataclass(frozen=True)
class SettingGroup:
    id: str
    title: str
    choice: str  # "single" or "several"
    blanks: int
    options: tuple[SettingOption, ...]

    def option(self, name: str) -> SettingOption | None:
        key = norm(name)
        return next((o for o in self.options if norm(o.name) == key), None)


@dataclass(frozen=True)
class Combination:
    code: str
    when: Mapping[str, str]
    severity: str  # "warning" (a finding) or "note" (summary only)
    text: str


@dataclass(frozen=True)
class SpacerData:
    """Every Spacer table the character and setting tools use."""

    scale_min: int
    scale_max: int
    inborn: tuple[Attribute, ...]
    trained: tuple[Attribute, ...]
    inborn_array: tuple[int, ...]
    trained_array: tuple[int, ...]
    starting_level: int
    trait_points: int
    free_hobby_levels: int
    principles_min: int
    principles_max: int
    default_maximum: int
    bonus_purchases: tuple[BonusPurchase, ...]
    departments: tuple[Department, ...]
    species: tuple[Species, ...]
    personal_points: int
    issue_per_rank: int
    issue_base: int
    free_items: tuple[FreeItem, ...]
    items: tuple[GearItem, ...]
    rank_branches: tuple[str, ...]
    rank_titles: Mapping[str, Mapping[int, tuple[str, ...]]]  # service -> rank -> by branch
    rank_abbreviations: Mapping[str, str]
    initiative: Formula
    toughness: Formula
    officer_leadership: Formula
    enlisted_leadership: Mapping[int, tuple[int, ...]]  # lower -> [higher 1..9]
    enlisted_leadership_columns: tuple[int, ...]
    luck_per_even_rank: int
    stun_per_wound: int
    wounds: tuple[WoundKind, ...]
    tally_levels: tuple[int, ...]
    tally_rows: tuple[TallyRow, ...]
    circles_per_level: int
    circle_cost: Mapping[str, int]
    study_circles: Mapping[str, int]
    setting_groups: tuple[SettingGroup, ...]
    combinations: tuple[Combination, ...]
    generator: Mapping[str, Any]

    # --- look-ups ----------------------------------------------------------------
    @property
    def attributes(self) -> tuple[Attribute, ...]:
        return self.inborn + self.trained

    def attribute(self, attr_id: str) -> Attribute:
        return next(a for a in self.attributes if a.id == attr_id)

    def labels(self) -> dict[str, str]:
        """Display names by id, for formulas and messages."""
        out = {a.id: a.name for a in self.attributes}
        out["rank"] = "Rank"
        return out

    def find_species(self, name: str) -> Species | None:
        key = norm(name)
        for s in self.species:
            if key in {norm(s.id), norm(s.name), *(norm(a) for a in s.aliases)}:
                return s
        return None

    def find_department(self, name: str) -> Department | None:
        key = norm(name)
        for d in self.departments:
            if key in {norm(d.id), norm(d.name), *(norm(a) for a in d.aliases)}:
                return d
        return None

    def find_field(self, name: str) -> Field | None:
        """The listed field called `name` (in any department), if any."""
        key = norm(name)
        for d in self.departments:
            for f in d.fields:
                if key in {norm(f.name), *(norm(a) for a in f.aliases)}:
                    return f
        return None

    def officer_department(self) -> Department:
        return next(d for d in self.departments if d.officer)

    def find_item(self, name: str) -> GearItem | None:
        key = norm(name)
        for it in self.items:
            names = {norm(it.name), *(norm(a) for a in it.aliases)}
            if key in names:
                return it
            if it.specialty and any(key.startswith(n) for n in names):
                return it  # "Toolkit (Engineering)": a specialty toolkit
        return None

    def find_free_item(self, name: str) -> FreeItem | None:
        key = norm(name)
        for it in self.free_items:
            if key in {norm(it.name), *(norm(a) for a in it.aliases)}:
                return it
        return None

    def wound(self, kind: str) -> WoundKind:
        return next(w for w in self.wounds if w.id == kind)

    def rank_title(self, service: str, branch: str, rank: int) -> str | None:
        row = self.rank_titles.get(service, {}).get(rank)
        if row is None or branch not in self.rank_branches:
            return None
        return row[self.rank_branches.index(branch)]

    def setting_group(self, group_id: str) -> SettingGroup:
        return next(g for g in self.setting_groups if g.id == group_id)

    def purchase(self, purchase_id: str) -> BonusPurchase:
        return next(p for p in self.bonus_purchases if p.id == purchase_id)


def _formula(d: Mapping[str, Any]) -> Formula:
    return Formula(tuple(d["sum"]), int(d.get("divide_by", 1)), tuple(d.get("plus", ())))


def _attrs(rows: list[dict[str, Any]], kind: str) -> tuple[Attribute, ...]:
    return tuple(Attribute(r["id"], r["name"], r["short"], kind, tuple(r.get("aliases", ())))
                 for r in rows)


def _species(s: Mapping[str, Any]) -> Species:
    return Species(
        id=s["id"], name=s["name"], aliases=tuple(s.get("aliases", ())),
        description=s.get("description", ""),
        modifiers=_frozen(s.get("modifiers") or {}), maxima=_frozen(s["maxima"]),
        fate=int(s.get("fate", 0)), natural_armor=int(s.get("natural_armor", 0)),
        abilities=tuple(Ability(a["name"], a.get("text", "")) for a in s.get("abilities", ())),
        racial_traits=tuple(RacialTrait(t["name"], int(t["minimum"]), int(t["free"]))
                            for t in s.get("racial_traits", ())),
    )


def _department(d: Mapping[str, Any]) -> Department:
    fields = tuple(Field(f["name"], d["id"], tuple(f.get("aliases", ()))) for f in d["fields"])
    return Department(d["id"], d["name"], tuple(d.get("aliases", ())), fields,
                      bool(d.get("officer", False)))


def _setting_group(g: Mapping[str, Any]) -> SettingGroup:
    opts = tuple(SettingOption(o["name"], o.get("text", "")) for o in g["options"])
    return SettingGroup(g["id"], g["title"], g["choice"], int(g.get("blanks", 0)), opts)


@cache
def load_data() -> SpacerData:
    """Build the typed tables from templates/spacer.yaml (cached)."""
    d = templates.load("spacer")
    gear, ranks, adv, der = d["gear"], d["rank_titles"], d["advancement"], d["derived"]
    lead = d["enlisted_leadership"]
    return SpacerData(
        scale_min=int(d["attribute_scale"]["min"]),
        scale_max=int(d["attribute_scale"]["max"]),
        inborn=_attrs(d["attributes"]["inborn"], "inborn"),
        trained=_attrs(d["attributes"]["trained"], "trained"),
        inborn_array=tuple(d["arrays"]["inborn"]),
        trained_array=tuple(d["arrays"]["trained"]),
        starting_level=int(d["creation"]["starting_level"]),
        trait_points=int(d["creation"]["trait_points"]),
        free_hobby_levels=int(d["creation"]["free_hobby_levels"]),
        principles_min=int(d["creation"]["principles"]["min"]),
        principles_max=int(d["creation"]["principles"]["max"]),
        default_maximum=int(d["creation"]["default_attribute_maximum"]),
        bonus_purchases=tuple(BonusPurchase(**p) for p in d["bonus_purchases"]),
        departments=tuple(_department(x) for x in d["departments"]),
        species=tuple(_species(s) for s in d["species"]),
        personal_points=int(gear["personal_points"]),
        issue_per_rank=int(gear["issue_points"]["per_rank"]),
        issue_base=int(gear["issue_points"]["base"]),
        free_items=tuple(FreeItem(f["name"], int(f["count"]), tuple(f.get("aliases", ())))
                         for f in gear["free"]),
        items=tuple(GearItem(i["name"], float(i["cost"]),
                             None if i.get("mass_kg") is None else float(i["mass_kg"]),
                             tuple(i.get("aliases", ())), int(i.get("armor", 0)),
                             bool(i.get("specialty", False))) for i in gear["items"]),
        rank_branches=tuple(ranks["branches"]),
        rank_titles=_frozen({svc: _frozen({int(k): tuple(v) for k, v in ranks[svc].items()})
                             for svc in ("officer", "enlisted")}),
        rank_abbreviations=_frozen(ranks.get("abbreviations", {})),
        initiative=_formula(der["initiative"]),
        toughness=_formula(der["toughness"]),
        officer_leadership=_formula(der["leadership"]["officer"]),
        enlisted_leadership=_frozen({int(k): tuple(v) for k, v in lead["rows"].items()}),
        enlisted_leadership_columns=tuple(lead["columns"]),
        luck_per_even_rank=int(der["luck_per_even_rank"]),
        stun_per_wound=int(d["wounds"]["stun_per_wound"]),
        wounds=tuple(WoundKind(w["id"], w["name"], int(w["capacity"]), int(w["penalty"]),
                               w["overflow"]) for w in d["wounds"]["kinds"]),
        tally_levels=tuple(adv["levels"]),
        tally_rows=tuple(TallyRow(r["id"], r["name"], int(r["from_level"]), r.get("text", ""))
                         for r in adv["rows"]),
        circles_per_level=int(adv["circles_per_level"]),
        circle_cost=_frozen(adv["circle_cost"]),
        study_circles=_frozen(adv["study_circles"]),
        setting_groups=tuple(_setting_group(g) for g in d["setting"]["groups"]),
        combinations=tuple(Combination(c["code"], _frozen(c["when"]), c["severity"], c["text"])
                           for c in d["setting"].get("combinations", ())),
        generator=_frozen(d.get("generator", {})),
    )
