"""Explain a successful mission roll: which die meets which number, and how skills helped.

The kernel decides feasibility and reports its choice (flips per colour, the Liaison
requirement, which colour serves each requirement); this rebuilds the per-die plan from
that choice for narration. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from game.opial.kernel import BUF_ROWS, CHOICE_LEN, MAXD, feasible
from game.opial.odds import Mods, requirement_arrays

NAMES = ("Blue", "Green", "Red")


@dataclass(frozen=True)
class Use:
    """One requirement met: the die (colour, rolled value), what was done to it."""

    target: int
    colour: str  # the requirement's colour letter (K = any)
    die_colour: str
    rolled: int
    flipped_to: int | None
    plus_colour: int  # +1s from the colour's skill
    plus_any: int  # +1s from Leadership
    liaison: bool

    def text(self) -> str:
        parts = [f"{NAMES['BGR'.index(self.die_colour)]} {self.rolled}"]
        if self.flipped_to is not None:
            parts.append(f"flipped to {self.flipped_to}")
        if self.plus_colour or self.plus_any:
            parts.append(f"+{self.plus_colour + self.plus_any}")
        need = "any" if self.colour == "K" else NAMES["BGR".index(self.colour)]
        extra = " (Liaison)" if self.liaison else ""
        return f"{' '.join(parts)} for {self.target}+ {need}{extra}"


def explain(dice: list[tuple[int, int]], requirements: tuple[tuple[int, str], ...],
            mods: Mods) -> list[Use] | None:
    """The plan that makes the roll, or None if it fails. dice: (colour index, value)."""
    vals = [sorted(v for c, v in dice if c == col) for col in range(3)]
    arrs = [np.array(v, np.int64) for v in vals]
    t, c = requirement_arrays(requirements)
    choice = np.empty(CHOICE_LEN, np.int64)
    assign = np.empty(max(1, len(t)), np.int64)
    buf = np.zeros((BUF_ROWS, MAXD), np.int64)
    if not feasible(arrs[0], arrs[1], arrs[2], t, c, mods.array(), choice, assign, buf):
        return None
    s_col, li = int(choice[0]), int(choice[4])
    colour_left = [mods.adm, mods.eng, mods.gun]
    lead_left = mods.lead
    uses: list[Use] = []
    for col in range(3):
        n_nav = int(choice[1 + col])
        strat = 1 if s_col == col and n_nav < len(vals[col]) else 0
        # (rolled, final) pairs, the lowest flipped, highest first
        dice_col = []
        for i, v in enumerate(vals[col]):
            final = 7 - v if i < n_nav else 6 if i < n_nav + strat else v
            dice_col.append((v, final, i < n_nav + strat))
        dice_col.sort(key=lambda d: -d[1])
        reqs = [j for j in range(len(t)) if assign[j] == col]
        for k, j in enumerate(reqs):  # requirements are sorted high to low
            rolled, final, flipped = dice_col[k]
            need = max(0, int(t[j]) - final)
            by_colour = min(need, colour_left[col])
            colour_left[col] -= by_colour
            by_any = need - by_colour
            lead_left -= by_any
            uses.append(Use(int(t[j]), "BGRK"[int(c[j])], "BGR"[col], rolled,
                            final if flipped else None, by_colour, by_any, j == li))
    return sorted(uses, key=lambda u: -u.target)
