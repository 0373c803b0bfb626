"""The working state of one character check: the tables, the character, what has been
resolved so far (species, attributes, service, rank) and the findings collected.

Check modules (creation, departments, sheet, advancement) read and extend a Review in
a fixed order; a check whose inputs are missing or already wrong stays silent, so one
mistake gives one finding.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from game.spacer.character import Character, DepartmentEntry
from game.spacer.data import SpacerData, Species
from game.spacer.findings import ERROR, Finding, finding


@dataclass
class Review:
    data: SpacerData
    char: Character
    findings: list[Finding] = field(default_factory=list)
    computed: dict[str, Any] = field(default_factory=dict)
    species: Species | None = None
    attrs: dict[str, int] | None = None  # current values, when every box is filled
    level: int | None = None
    start: dict[str, int] | None = None  # creation values, when known
    leftover: int | None = None  # bonus points, when the inborn array is valid
    trained_extra: int | None = None  # trained points above the array
    service: str = "enlisted"
    branch: str = "space"
    current: DepartmentEntry | None = None
    officer_level: int = 0
    rank: int | None = None  # the rank used for rank-based values
    toughness: int | None = None

    def add(self, code: str, fields: Iterable[str], message: str, fix: str,
            reading: str | Iterable[str] | None = None, severity: str | None = None) -> None:
        self.findings.append(finding(code, fields, message, fix, reading, severity))

    @property
    def has_errors(self) -> bool:
        return any(f.severity == ERROR for f in self.findings)

    def label(self, attr_id: str) -> str:
        return self.data.attribute(attr_id).name

    def species_note(self, attr_id: str) -> str:
        """' (Sartini +1)' when the species modifies the attribute."""
        if self.species is None:
            return ""
        m = self.species.modifier(attr_id)
        return f" ({self.species.name} {m:+d})" if m else ""
