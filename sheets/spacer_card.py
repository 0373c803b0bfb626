"""The Spacer reference card: the game's tables on two pages, drawn from spacer.yaml.

Page 1, in play: the triangular progression, the enlisted leadership table, the ship
movement table, wounds (boxes, penalty, overflow) and the derived numbers.
Page 2, making a character: gear points and mass (with the free gear and the budgets),
rank titles, the species, and what a bonus point buys.

Every number comes from templates/spacer.yaml (game.spacer.data, or the raw tables the
typed model does not carry: progression and movement). The card has no mark regions;
its pages carry the fiducials and sheet code like every sheet, so a scanner can tell it
is not a form.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.lib.colors import Color

import templates
from game.spacer.data import GearItem, SpacerData, load_data
from game.spacer.marks import ISSUE_LINES
from sheets import fonts
from sheets.draw import ACCENT, INK, MIN_TEXT, TINT, Sheet, fill_rect, hline, text_mid
from sheets.registry import SheetKind, register
from sheets.spacer_draw import (
    GAP,
    HEAD,
    STRIPE,
    SUB,
    footer,
    section,
    title_band,
    wide,
)

KIND_ID = "spacer-reference"
PAGES = 2
MINUS = "−"


@dataclass(frozen=True)
class Page:
    x: float
    top: float
    width: float
    bottom: float
    row: float  # table row height
    roomy: bool = False  # Letter and A4: text grows with the row height

    @property
    def size(self) -> float:
        """Table text size: 7 pt on the small papers, up to 8.5 pt on the large ones."""
        return min(8.5, max(7.0, self.row * 0.56)) if self.roomy else 7.0

    @property
    def small(self) -> float:
        return max(MIN_TEXT, self.size - 0.5)


def page_geometry(sheet: Sheet, fixed: float, rows: float, high: float = 13.0) -> Page:
    fx, fy, fw, fh = sheet.frame
    row = (fh - fixed) / rows
    if row < 9.0 - 1e-6:
        raise ValueError(f"the reference card does not fit on {sheet.paper.name} "
                         f"(row {row:.2f} pt)")
    return Page(fx, fy + fh, fw, fy, min(high if wide(sheet) else 13.0, row), wide(sheet))


def progression() -> list[tuple[int, int, int]]:
    """(min, max, bonus) rows of the triangular progression table."""
    rows = templates.load("spacer")["triangular_progression"]
    return [(int(r["min"]), int(r["max"]), int(r["bonus"])) for r in rows]


def movement() -> tuple[list[int], list[tuple[str, list[int]]]]:
    """Speeds and, per phase, squares moved at each speed."""
    m = templates.load("spacer")["movement"]
    phases = sorted(k for k in m if k.startswith("phase_"))
    return list(m["speeds"]), [(f"Phase {k.split('_')[1]}", list(m[k])) for k in phases]


def excess_label(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo},{hi}" if hi == lo + 1 else f"{lo}–{hi}"


def signed(v: int) -> str:
    return f"+{v}" if v > 0 else f"{MINUS}{-v}" if v < 0 else "0"


def kg(v: float | None) -> str:
    if v is None:
        return "varies"
    return f"{v:g}"


# --- a small table helper -------------------------------------------------------------------
@dataclass(frozen=True)
class Col:
    title: str
    width: float  # fixed; 0 = shares the rest
    align: str = "left"
    bold: bool = False


def table(sheet: Sheet, x: float, top: float, width: float, row: float, cols: Sequence[Col],
          rows: Sequence[Sequence[str]], size: float = 7.0,
          colours: Sequence[Color | None] | None = None) -> float:
    """A column-header strip and zebra rows; returns the y below."""
    fixed = sum(c.width for c in cols)
    needs = [0.0 if c.width else max(
        [fonts.width(c.title, fonts.BOLD, MIN_TEXT)]
        + [fonts.width(r[j], fonts.BOLD if c.bold else fonts.REGULAR, size) for r in rows]) + 5
        for j, c in enumerate(cols)]
    flex = sum(1 for c in cols if not c.width) or 1
    spare = (width - fixed - sum(needs)) / flex
    xs: list[tuple[float, float]] = []
    cx = x
    for c, need in zip(cols, needs, strict=True):
        w = c.width or need + spare
        xs.append((cx, w))
        cx += w
    y = top
    if any(c.title for c in cols):
        fill_rect(sheet, x, top - SUB, width, SUB, STRIPE)
        for c, (cx, w) in zip(cols, xs, strict=True):
            tx = {"left": cx + 3, "centre": cx + w / 2, "right": cx + w - 3}[c.align]
            text_mid(sheet, tx, top - SUB / 2, c.title, MIN_TEXT, fonts.BOLD, ACCENT,
                     c.align, width=w - 4)
        y = top - SUB
    for i, r in enumerate(rows):
        if i % 2 == 1:
            fill_rect(sheet, x, y - row, width, row, TINT)
        mid = y - row / 2
        for j, (c, (cx, w), value) in enumerate(zip(cols, xs, r, strict=True)):
            tx = {"left": cx + 3, "centre": cx + w / 2, "right": cx + w - 3}[c.align]
            colour = (colours[j] if colours and colours[j] is not None else
                      ACCENT if c.bold and j == 0 else INK)
            text_mid(sheet, tx, mid, value, size, fonts.BOLD if c.bold else fonts.REGULAR,
                     colour, c.align, width=w - 4)
        y -= row
    hline(sheet, x, x + width, y, ACCENT, 0.8)
    return y


# --- page 1: in play ------------------------------------------------------------------------
def draw_progression(sheet: Sheet, p: Page, x: float, width: float, top: float) -> float:
    y = section(sheet, x, top, width, "Triangular progression")
    table_rows = progression()
    half = (len(table_rows) + 1) // 2
    cols = [Col("Excess", 0, "centre"), Col("Bonus", 0, "centre", True)] * 2
    rows = []
    for i in range(half):
        r: list[str] = []
        for part in (table_rows[i], table_rows[i + half] if i + half < len(table_rows)
                     else None):
            r += [excess_label(part[0], part[1]), str(part[2])] if part else ["", ""]
        rows.append(r)
    colours: list[Color | None] = [INK, ACCENT, INK, ACCENT]
    return table(sheet, x, y, width, p.row, cols, rows, size=p.size, colours=colours)


def draw_leadership(sheet: Sheet, data: SpacerData, p: Page, x: float, width: float,
                    top: float) -> float:
    y = section(sheet, x, top, width, "Enlisted leadership", "lower value ↓ · higher →")
    columns = data.enlisted_leadership_columns
    cols = [Col("", 26.0, "centre", True)] + [Col(str(c), 0, "centre") for c in columns]
    rows = [[str(low), *(str(v) for v in values)]
            for low, values in sorted(data.enlisted_leadership.items())]
    return table(sheet, x, y, width, p.row, cols, rows, size=p.size)


def draw_movement(sheet: Sheet, p: Page, top: float) -> float:
    speeds, phases = movement()
    y = section(sheet, p.x, top, p.width, "Ship movement",
                "squares moved in each phase at each speed")
    cols = [Col("Speed", 44.0, "left", True)] + [Col(str(s), 0, "centre") for s in speeds]
    rows = [[name, *(str(v) for v in values)] for name, values in phases]
    return table(sheet, p.x, y, p.width, p.row, cols, rows, size=p.size)


def draw_wounds(sheet: Sheet, data: SpacerData, p: Page, top: float) -> float:
    y = section(sheet, p.x, top, p.width, "Wounds",
                f"each wound adds {data.stun_per_wound} stun to the stun pile")
    cols = [Col("Wound", 46.0, "left", True), Col("Boxes", 32.0, "centre"),
            Col("Penalty", 40.0, "centre"), Col("When its boxes are full, it overflows to", 0)]
    rows = [[w.name, str(w.capacity), f"{MINUS}{w.penalty} each" if w.penalty else "none",
             w.overflow] for w in data.wounds]
    return table(sheet, p.x, y, p.width, p.row, cols, rows, size=p.size)


def draw_derived(sheet: Sheet, data: SpacerData, p: Page, top: float) -> float:
    labels = data.labels()
    y = section(sheet, p.x, top, p.width, "Derived numbers", "rounded down")
    cols = [Col("Number", 62.0, "left", True), Col("How", 0)]
    rows = [["Initiative", data.initiative.text(labels)],
            ["Toughness", data.toughness.text(labels)],
            ["Leadership", f"officers: {data.officer_leadership.text(labels)}"],
            ["", "enlisted: the lower of Interpersonal and Rank, plus a third of the "
                 "difference (the table)"],
            ["Luck", f"+{data.luck_per_even_rank} at every even rank reached"]]
    return table(sheet, p.x, y, p.width, p.row, cols, rows, size=p.size)


def draw_page1(sheet: Sheet, data: SpacerData) -> None:
    tri = (len(progression()) + 1) // 2
    lead = len(data.enlisted_leadership)
    rows = (max(tri, lead) + len(movement()[1]) + len(data.wounds) + 5
            + len(data.species))
    fixed = 5 * (HEAD + SUB + GAP)
    p = page_geometry(sheet, fixed, rows, high=18.0)
    title_band(sheet, "Reference card", "Tasks, ships, wounds and species.")
    left = p.width * (0.40 if wide(sheet) else 0.42)
    gap = 8.0
    a = draw_progression(sheet, p, p.x, left, p.top)
    b = draw_leadership(sheet, data, p, p.x + left + gap, p.width - left - gap, p.top)
    y = min(a, b) - GAP
    y = draw_movement(sheet, p, y) - GAP
    y = draw_wounds(sheet, data, p, y) - GAP
    y = draw_derived(sheet, data, p, y) - GAP
    draw_species(sheet, data, p, y)
    footer(sheet, "Excess: the margin of a roll (or a total) read on the triangular "
                  "progression.", 1, PAGES)


# --- page 2: making a character -------------------------------------------------------------
def item_label(it: GearItem) -> str:
    name = f"{it.name} (spec.)" if it.specialty else it.name
    return f"{name} ({it.armor})" if it.armor else name


def gear_groups(data: SpacerData) -> list[tuple[float, list[GearItem]]]:
    costs = sorted({it.cost for it in data.items})
    return [(c, [it for it in data.items if it.cost == c]) for c in costs]


def draw_gear(sheet: Sheet, data: SpacerData, p: Page, top: float) -> float:
    y = section(sheet, p.x, top, p.width, "Gear: points and mass",
                "(n) = armour · kg per item")
    groups = gear_groups(data)
    gap = 6.0
    kg_w = 26.0
    needs = [max(fonts.width(item_label(it), fonts.REGULAR, p.small) for it in items)
             + kg_w + 8 for _c, items in groups]
    spare = (p.width - gap * (len(groups) - 1) - sum(needs)) / len(groups)
    bottom = y
    longest = max(len(items) for _c, items in groups)
    gx = p.x
    for (cost, items), need in zip(groups, needs, strict=True):
        gw = need + spare
        title = "½ point items" if cost == 0.5 else f"{cost:g} point items"
        rows = [[item_label(it), kg(it.mass_kg)] for it in items]
        rows += [["", ""]] * (longest - len(rows))
        end = table(sheet, gx, y, gw, p.row, [Col(title, 0, "left"), Col("kg", kg_w, "right")],
                    rows, size=p.small)
        bottom = min(bottom, end)
        gx += gw + gap
    return bottom


def draw_budgets(sheet: Sheet, data: SpacerData, p: Page, top: float) -> float:
    free = ", ".join(f"{f.count} {f.name.lower()}{'s' if f.count > 1 else ''}"
                     for f in data.free_items)
    cols = [Col("Budget", 62.0, "left", True), Col("What you get", 0)]
    rows = [["Free", free],
            ["Personal", f"{data.personal_points} points of items (the P lines)"],
            ["Issue", f"{data.issue_per_rank} point per rank + {data.issue_base} "
                      f"(lines 0–{ISSUE_LINES - 1} of the Character Form)"]]
    return table(sheet, p.x, top, p.width, p.row, cols, rows, size=p.size)


def draw_ranks(sheet: Sheet, data: SpacerData, p: Page, top: float) -> float:
    y = section(sheet, p.x, top, p.width, "Rank titles",
                "the rank number is usually your level in your department")
    branches = [b.capitalize() for b in data.rank_branches]
    cols = [Col("", 14.0, "centre", True)]
    cols += [Col(f"Officer: {b}" if i == 0 else b, 0) for i, b in enumerate(branches)]
    cols += [Col(f"Enlisted: {b}" if i == 0 else b, 0) for i, b in enumerate(branches)]
    officer, enlisted = data.rank_titles["officer"], data.rank_titles["enlisted"]
    rows = [[str(r), *officer[r], *enlisted[r]] for r in sorted(officer, reverse=True)]
    return table(sheet, p.x, y, p.width, p.row, cols, rows, size=p.small)


def species_mods(data: SpacerData, sp_mods: dict[str, int]) -> str:
    return ", ".join(f"{signed(v)} {data.attribute(k).short}" for k, v in sp_mods.items()) \
        or "none"


def draw_species(sheet: Sheet, data: SpacerData, p: Page, top: float) -> float:
    y = section(sheet, p.x, top, p.width, "Species",
                f"attribute maximum {data.default_maximum}, 1 less where penalised")
    mods_w = max(fonts.width(species_mods(data, dict(sp.modifiers)), fonts.REGULAR,
                             p.small) for sp in data.species) + 5
    cols = [Col("Species", 0, "left", True), Col("Modifiers", mods_w),
            Col("Fate", 0, "centre"), Col("Armour", 0, "centre"),
            Col("Abilities and racial traits", 0)]
    rows = []
    for sp in data.species:
        extras = [a.name for a in sp.abilities if a.name not in ("Armor", "Fate")]
        extras += [f"{t.name} {t.minimum}+" for t in sp.racial_traits]
        rows.append([sp.name, species_mods(data, dict(sp.modifiers)), str(sp.fate),
                     str(sp.natural_armor) if sp.natural_armor else "–",
                     ", ".join(extras) or "–"])
    return table(sheet, p.x, y, p.width, p.row, cols, rows, size=p.small)


def draw_creation(sheet: Sheet, data: SpacerData, p: Page, top: float) -> float:
    y = section(sheet, p.x, top, p.width, "Making a character",
                f"level {data.starting_level} · {data.trait_points} trait points · "
                f"{data.free_hobby_levels} free hobby level")
    cols = [Col("", 62.0, "left", True), Col("", 0)]
    buys = "; ".join(b.name for b in data.bonus_purchases)
    rows = [["Inborn array", ", ".join(map(str, data.inborn_array)) + "  (the one left over "
             "= bonus points)"],
            ["Trained array", ", ".join(map(str, data.trained_array))],
            ["1 bonus point", buys]]
    return table(sheet, p.x, y, p.width, p.row, cols, rows, size=p.small)


def draw_page2(sheet: Sheet, data: SpacerData) -> None:
    longest = max(len(items) for _c, items in gear_groups(data))
    rows = longest + 3 + len(data.rank_titles["officer"]) + 3
    fixed = 3 * (HEAD + SUB + GAP) + SUB
    p = page_geometry(sheet, fixed, rows, high=18.0)
    title_band(sheet, "Reference card", "Gear, ranks and making a character.")
    y = draw_gear(sheet, data, p, p.top)
    y = draw_budgets(sheet, data, p, y) - GAP
    y = draw_ranks(sheet, data, p, y) - GAP
    draw_creation(sheet, data, p, y)
    bw = sheet.bottom_band[2]
    note = ""
    for k, v in data.rank_abbreviations.items():
        trial = f"{note} · {k} {v}" if note else f"{k} {v}"
        if fonts.width(trial, fonts.REGULAR, MIN_TEXT) > bw:
            break
        note = trial
    footer(sheet, note, 2, PAGES)


def draw_card(sheet: Sheet) -> None:
    data = load_data()
    draw_page1(sheet, data)
    sheet.new_page()
    draw_page2(sheet, data)


CARD = register(SheetKind(
    id=KIND_ID,
    title="Spacer reference card",
    draw=draw_card,
    editions=("default",),
    default_edition="default",
    papers=("letter", "a4", "half-letter", "a5"),
    aliases=("reference-card", "reference", "spacer-reference-card"),
))
