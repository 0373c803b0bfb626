"""Paper sizes and the safe area every sheet keeps clear of the paper's edge."""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.units import inch, mm

from starsheets.errors import UsageError

EDGE = 6 * mm
"""Nothing is drawn within this distance of the paper's edge (printer grip and skew)."""


@dataclass(frozen=True)
class Paper:
    """A portrait paper size in PDF points (1/72 in)."""

    name: str
    width: float
    height: float
    label: str

    @property
    def size(self) -> tuple[float, float]:
        return (self.width, self.height)

    @property
    def printable(self) -> tuple[float, float, float, float]:
        """[x, y, width, height] of the area at least EDGE from every edge."""
        return (EDGE, EDGE, self.width - 2 * EDGE, self.height - 2 * EDGE)


PAPERS: dict[str, Paper] = {
    p.name: p
    for p in (
        Paper("letter", 8.5 * inch, 11 * inch, "US Letter, 8.5 x 11 in"),
        Paper("a4", 210 * mm, 297 * mm, "ISO A4, 210 x 297 mm"),
        Paper("half-letter", 5.5 * inch, 8.5 * inch, "Half Letter, 5.5 x 8.5 in"),
        Paper("a5", 148 * mm, 210 * mm, "ISO A5, 148 x 210 mm"),
    )
}


def get_paper(name: str, allowed: tuple[str, ...] | None = None) -> Paper:
    """The Paper called `name` (case-insensitive), optionally restricted to `allowed`."""
    key = str(name).strip().lower()
    names = allowed if allowed is not None else tuple(PAPERS)
    if key not in names or key not in PAPERS:
        raise UsageError(f"unknown paper size '{name}'", f"Use one of: {', '.join(names)}.")
    return PAPERS[key]
