"""A Spacer character: everything the Character Form holds, box by box.

The model stores what the player WROTE. Blank boxes are None, so a PDF or photo reader
can fill a Character field by field and leave the unreadable ones empty. Derived numbers
the player wrote (initiative, toughness, leadership, ...) live in `written`, apart from
what the rules compute (game/spacer/derived.py). The file format is docs/character.md;
its JSON Schema is templates/schemas/spacer-character.schema.json.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

FORMAT = "starsheets/spacer-character@1"
WRITTEN_NUMBERS = ("initiative", "toughness", "leadership", "wound_penalty", "bonus_points",
                   "bonus_spent", "issue_points")


@dataclass(frozen=True)
class DepartmentEntry:
    """One department line of the form: its level and the levels of its fields."""

    name: str
    level: int | None
    fields: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Principle:
    """A belief and the action or goal that follows from it."""

    belief: str
    action: str
    separated: bool = True  # False: written as one sentence with no "belief; action" split

    def text(self) -> str:
        return f"{self.belief}; {self.action}" if self.action else self.belief

    @classmethod
    def parse(cls, value: str | Mapping[str, Any]) -> Principle:
        if isinstance(value, Mapping):
            return cls(str(value.get("belief") or "").strip(),
                       str(value.get("action") or "").strip())
        belief, sep, action = str(value).partition(";")
        return cls(belief.strip(), action.strip(), separated=bool(sep))

    def to_data(self) -> dict[str, str] | str:
        return {"belief": self.belief, "action": self.action} if self.separated \
            else self.belief


@dataclass(frozen=True)
class GearEntry:
    """A line of the gear list. `cost` is only needed for items not on the gear table."""

    item: str
    count: int = 1
    cost: float | None = None

    @classmethod
    def parse(cls, value: str | Mapping[str, Any]) -> GearEntry:
        if isinstance(value, Mapping):
            cost = value.get("cost")
            return cls(str(value["item"]), int(value.get("count", 1)),
                       None if cost is None else float(cost))
        return cls(str(value))

    def to_data(self) -> str | dict[str, Any]:
        if self.count == 1 and self.cost is None:
            return self.item
        out: dict[str, Any] = {"item": self.item}
        if self.count != 1:
            out["count"] = self.count
        if self.cost is not None:
            out["cost"] = self.cost
        return out


@dataclass(frozen=True)
class Gear:
    personal: tuple[GearEntry, ...] = ()  # bought with the 3 personal points
    issue: tuple[GearEntry, ...] = ()  # bought with issue points (rank + 1)
    free: tuple[GearEntry, ...] = ()  # the uniforms, communicator and watch


@dataclass(frozen=True)
class StartValues:
    """The form's "St" column: attribute values at creation (after species modifiers),
    plus luck and rank at creation. Needed to check the arrays once a character has
    advanced; at level 0 the current values are the starting ones."""

    inborn: Mapping[str, int | None] = field(default_factory=dict)
    trained: Mapping[str, int | None] = field(default_factory=dict)
    luck: int | None = None
    rank: int | None = None


@dataclass(frozen=True)
class Character:
    """The whole Character Form. None = a blank box."""

    player: str | None = None
    character: str | None = None
    ship: str | None = None
    species: str | None = None
    gender: str | None = None
    level: int | None = None
    rank: int | None = None
    service: str | None = None  # "officer" | "enlisted"; None: officer iff Officer levels
    branch: str | None = None  # "space" | "ground" | "agent" (rank titles); None: space
    luck: int | None = None
    luck_burned: int = 0  # luck burned to cheat death (gone for good)
    fate: int | None = None
    inborn: Mapping[str, int | None] = field(default_factory=dict)
    trained: Mapping[str, int | None] = field(default_factory=dict)
    start: StartValues | None = None
    departments: tuple[DepartmentEntry, ...] = ()
    current_department: str | None = None
    hobbies: Mapping[str, int] = field(default_factory=dict)
    principles: tuple[Principle, ...] = ()
    traits: Mapping[str, int] = field(default_factory=dict)
    special_abilities: tuple[str, ...] = ()
    advancement: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    study: Mapping[str, int] = field(default_factory=dict)
    wounds: Mapping[str, int] = field(default_factory=dict)
    stun_pile: int = 0
    gear: Gear = Gear()
    written: Mapping[str, Any] = field(default_factory=dict)
    notes: str = ""

    def with_changes(self, **changes: Any) -> Character:
        return replace(self, **changes)

    def department(self, name: str) -> DepartmentEntry | None:
        from game.spacer.data import norm

        return next((d for d in self.departments if norm(d.name) == norm(name)), None)

    # --- file format --------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "character") -> Character:
        """Build a character from a parsed file; the schema is checked first."""
        from game.spacer.schema import check_character

        check_character(data, source)
        start = data.get("start")
        gear = data.get("gear") or {}
        return cls(
            player=data.get("player"), character=data.get("character"),
            ship=data.get("ship"), species=data.get("species"), gender=data.get("gender"),
            level=data.get("level"), rank=data.get("rank"), service=data.get("service"),
            branch=data.get("branch"), luck=data.get("luck"),
            luck_burned=int(data.get("luck_burned") or 0), fate=data.get("fate"),
            inborn=dict(data.get("inborn") or {}), trained=dict(data.get("trained") or {}),
            start=None if start is None else StartValues(
                dict(start.get("inborn") or {}), dict(start.get("trained") or {}),
                start.get("luck"), start.get("rank")),
            departments=tuple(
                DepartmentEntry(str(name), d.get("level"), dict(d.get("fields") or {}))
                for name, d in (data.get("departments") or {}).items()),
            current_department=data.get("current_department"),
            hobbies=dict(data.get("hobbies") or {}),
            principles=tuple(Principle.parse(p) for p in data.get("principles") or ()),
            traits=dict(data.get("traits") or {}),
            special_abilities=tuple(data.get("special_abilities") or ()),
            advancement={k: tuple(sorted(set(v)))
                         for k, v in (data.get("advancement") or {}).items()},
            study=dict(data.get("study") or {}),
            wounds=dict(data.get("wounds") or {}),
            stun_pile=int(data.get("stun_pile") or 0),
            gear=Gear(*(tuple(GearEntry.parse(g) for g in gear.get(k) or ())
                        for k in ("personal", "issue", "free"))),
            written=dict(data.get("written") or {}),
            notes=str(data.get("notes") or ""),
        )

    def to_dict(self) -> dict[str, Any]:
        """The file form (the inverse of from_dict); blank boxes are left out."""
        out: dict[str, Any] = {"format": FORMAT}
        for key in ("player", "character", "ship", "species", "gender", "level", "rank",
                    "service", "branch", "luck", "fate"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.luck_burned:
            out["luck_burned"] = self.luck_burned
        out["inborn"] = dict(self.inborn)
        out["trained"] = dict(self.trained)
        if self.start is not None:
            st: dict[str, Any] = {"inborn": dict(self.start.inborn),
                                  "trained": dict(self.start.trained)}
            if self.start.luck is not None:
                st["luck"] = self.start.luck
            if self.start.rank is not None:
                st["rank"] = self.start.rank
            out["start"] = st
        out["departments"] = {d.name: {"level": d.level, "fields": dict(d.fields)}
                              for d in self.departments}
        if self.current_department is not None:
            out["current_department"] = self.current_department
        out["hobbies"] = dict(self.hobbies)
        out["principles"] = [p.to_data() for p in self.principles]
        out["traits"] = dict(self.traits)
        out["special_abilities"] = list(self.special_abilities)
        out["advancement"] = {k: list(v) for k, v in self.advancement.items() if v}
        if self.study:
            out["study"] = dict(self.study)
        out["wounds"] = dict(self.wounds)
        out["stun_pile"] = self.stun_pile
        out["gear"] = {k: [g.to_data() for g in getattr(self.gear, k)]
                       for k in ("personal", "issue", "free")}
        if self.written:
            out["written"] = dict(self.written)
        if self.notes:
            out["notes"] = self.notes
        return out
