"""The Spacer Setting Form: the group's choices before characters are made.

Every group and option comes from templates/spacer.yaml (`setting.groups`, read through
game.spacer.data); region ids are those of game.spacer.marks.setting_regions. A group
that takes one choice has bubbles (a radio group: fill one); a group that takes several
has tick boxes; a write-in blank is a marker with a line to write the choice on.

Top to bottom: the setting's name and the marking legend; who you work for; the home
government (with its name), its lawmaking and judicial bodies and agencies; scope of play
(with a line for the enemy on Enemy Turf); threats; power of the players; oversight
(reach, contact and attitude, one row each, with the seed's warning about Local +
Authoritarian). On Letter and A4 each option also prints what it means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from game.spacer.data import SettingGroup, SpacerData, load_data
from game.spacer.marks import slug
from sheets import fonts
from sheets.draw import ACCENT, MIN_TEXT, MUTED, TINT, Sheet, fill_rect, text
from sheets.registry import SheetKind, register
from sheets.spacer_draw import (
    GAP,
    HEAD,
    Geo,
    bubble,
    caption,
    footer,
    geo,
    label,
    layout_width,
    legend,
    line,
    section,
    tick,
    title_band,
    wide,
)

KIND_ID = "spacer-setting"
COLUMNS = 3
OVERSIGHT = ("oversight_reach", "oversight_frequency", "oversight_attitude")
DESC_LINE = 7.4  # leading of a description line
NAME_SIZE = 7.5


@dataclass(frozen=True)
class Cell:
    """One place in a group's grid: an option (with what it means) or a write-in blank."""

    value: str
    name: str
    text: str
    blank: bool = False


def cells(g: SettingGroup) -> list[Cell]:
    out = [Cell(slug(o.name), o.name, o.text) for o in g.options]
    out += [Cell(f"blank-{k}", "", "", True) for k in range(1, g.blanks + 1)]
    return out


def wrap(s: str, size: float, width: float, max_lines: int) -> list[str] | None:
    """`s` broken into lines of at most `width` (None if it needs more than max_lines).
    Measured with layout_width, so the rows (and the regions) are the same whatever
    font the machine has; each line is then fitted into the width."""
    lines: list[str] = []
    current = ""
    for word in s.split():
        trial = f"{current} {word}".strip()
        if layout_width(trial, size) <= width:
            current = trial
            continue
        if not current:
            return None
        lines.append(current)
        current = word
    if current:
        lines.append(current)
    return lines if len(lines) <= max_lines else None


@dataclass(frozen=True)
class Plan:
    """The grid of one form: per group, its rows and the description lines per row."""

    descriptions: bool
    rows: dict[str, list[int]]  # group id -> description lines in each row

    def row_units(self, gid: str) -> float:
        """A group's height in rows (a description line counts 0.62 of a row)."""
        return sum(1 + 0.62 * n for n in self.rows[gid])


def col_width(g: Geo, gid: str) -> float:
    label_w = oversight_label_width(g) if gid in OVERSIGHT else 0.0
    return (g.width - label_w) / COLUMNS


def oversight_label_width(g: Geo) -> float:
    return min(64.0, g.width * 0.16)


def desc_width(g: Geo, gid: str) -> float:
    return col_width(g, gid) - g.box - 10


def make_plan(data: SpacerData, g: Geo, descriptions: bool) -> Plan:
    rows: dict[str, list[int]] = {}
    for grp in data.setting_groups:
        cs = cells(grp)
        n_rows = math.ceil(len(cs) / COLUMNS)
        per_row = []
        for r in range(n_rows):
            lines = 0
            if descriptions:
                for cell in cs[r * COLUMNS:(r + 1) * COLUMNS]:
                    if cell.text:
                        w = wrap(cell.text, MIN_TEXT, desc_width(g, grp.id), 2)
                        lines = max(lines, 2 if w is None else len(w))
            per_row.append(lines)
        rows[grp.id] = per_row
    return Plan(descriptions, rows)


def sections(data: SpacerData) -> list[list[str]]:
    """Group ids per section: each group alone, the three oversight rows together."""
    out: list[list[str]] = []
    for grp in data.setting_groups:
        if grp.id in OVERSIGHT[1:]:
            out[-1].append(grp.id)
        else:
            out.append([grp.id])
    return out


EXTRA_ROWS = ("government", "scope")  # a name line under the government, the enemy line


def layout(sheet: Sheet, data: SpacerData) -> tuple[Geo, Plan]:
    """Choose the pitch so the form fills the page; descriptions on the wide papers."""
    secs = sections(data)
    fixed = len(secs) * (HEAD + GAP) + 26.0
    base = geo(sheet, fixed, 1.0, low=0.0)
    for descriptions in ((True, False) if wide(sheet) else (False,)):
        plan = make_plan(data, base, descriptions)
        units = sum(plan.row_units(grp.id) for grp in data.setting_groups) + len(EXTRA_ROWS)
        try:
            g = geo(sheet, fixed, units, low=12.0 if descriptions else 11.0,
                    high=15.0 if descriptions else 17.0)
        except ValueError:
            continue
        return g, plan
    raise ValueError(f"the setting form does not fit on {sheet.paper.name}")


def draw_group_rows(sheet: Sheet, g: Geo, plan: Plan, grp: SettingGroup, top: float,
                    x0: float, width: float) -> float:
    """The options of one group in a grid of COLUMNS; returns the y below."""
    cs = cells(grp)
    cw = width / COLUMNS
    group = f"setting.{grp.id}"
    y = top
    for r, n_desc in enumerate(plan.rows[grp.id]):
        h = g.pitch * (1 + 0.62 * n_desc)
        if r % 2 == 1:
            fill_rect(sheet, x0, y - h, width, h, TINT)
        name_mid = y - g.pitch / 2 if not n_desc else y - g.pitch * 0.5
        for k, cell in enumerate(cs[r * COLUMNS:(r + 1) * COLUMNS]):
            cx = x0 + k * cw + 4
            rid = f"{group}.{cell.value}"
            if grp.choice == "single":
                bubble(sheet, rid, group, cell.value, cx + g.box / 2, name_mid, g.box)
            else:
                tick(sheet, rid, cx, name_mid, g.box, group)
            tx = cx + g.box + 4
            if cell.blank:
                line(sheet, f"{rid}.text", tx, name_mid, x0 + (k + 1) * cw - tx - 5,
                     min(g.pitch - 1.2, 15.0), f"{group}.blank")
                continue
            label(sheet, tx, name_mid, cell.name, width=x0 + (k + 1) * cw - tx - 3,
                  size=NAME_SIZE, bold=True)
            if n_desc and cell.text:
                lines = wrap(cell.text, MIN_TEXT, desc_width(g, grp.id), 2) \
                    or [cell.text]
                for i, s in enumerate(lines):
                    text(sheet, tx, name_mid - g.box / 2 - 5.2 - i * DESC_LINE, s, MIN_TEXT,
                         fonts.REGULAR, MUTED, width=desc_width(g, grp.id))
        y -= h
    return y


def hint(grp: SettingGroup) -> str:
    how = "fill one" if grp.choice == "single" else "tick any"
    if grp.blanks:
        how += " · or write your own"
    return how


def draw_setting(sheet: Sheet) -> None:
    data = load_data()
    g, plan = layout(sheet, data)
    title_band(sheet, "Setting form", "Agree every choice before you make characters.")
    x, w = g.x, g.width
    y = g.top
    caption(sheet, x, y - 6.5, "THE SETTING (ITS NAME)")
    line(sheet, "setting.title", x, y - 17.5, w * 0.55, 15.0, "setting.names")
    legend(sheet, x + w * 0.55 + 12, y - 17.5, w * 0.45 - 12, ("circle", "square"))
    y -= 26.0
    groups = {grp.id: grp for grp in data.setting_groups}
    for sec in sections(data):
        first = groups[sec[0]]
        if len(sec) == 1:
            y = section(sheet, x, y, w, first.title, hint(first))
            y = draw_group_rows(sheet, g, plan, first, y, x, w)
        else:
            y = draw_oversight(sheet, g, plan, [groups[s] for s in sec], data, y)
        if first.id == "government":
            y = extra_line(sheet, g, y, "setting.government.name", "Its name")
        elif first.id == "scope":
            y = extra_line(sheet, g, y, "setting.enemies", "Enemy Turf? The enemy power")
        y -= GAP
    footer(sheet, "Circles: fill one.  Squares: tick any.  Write your own choice on a "
                  "blank line and mark it.", 1, 1)


def extra_line(sheet: Sheet, g: Geo, top: float, rid: str, title: str) -> float:
    mid = top - g.pitch / 2
    lw = min(120.0, g.width * 0.3)
    label(sheet, g.x + 4, mid, title, width=lw - 6, bold=True, color=ACCENT, size=7.0)
    line(sheet, rid, g.x + lw, mid, g.width - lw - 4, min(g.pitch - 1.2, 15.0),
         "setting.names")
    return top - g.pitch


def draw_oversight(sheet: Sheet, g: Geo, plan: Plan, grps: list[SettingGroup],
                   data: SpacerData, top: float) -> float:
    """Oversight: one row each for reach, contact and attitude; the seed's remark on
    Local + Authoritarian in the heading."""
    warn = next((c for c in data.combinations if c.severity == "warning"), None)
    note = ""
    if warn is not None:
        note = " + ".join(warn.when.values()) + " is little fun for most groups"
    y = section(sheet, g.x, top, g.width, grps[0].title.split(":")[0],
                f"fill one a row · {note}" if note else "fill one a row")
    lw = oversight_label_width(g)
    for grp in grps:
        sub = grp.title.split(":")[-1].strip()
        label(sheet, g.x + 4, y - g.pitch / 2, sub.capitalize(), width=lw - 8, bold=True,
              color=ACCENT)
        y = draw_group_rows(sheet, g, plan, grp, y, g.x + lw, g.width - lw)
    return y


SETTING = register(SheetKind(
    id=KIND_ID,
    title="Spacer setting form",
    draw=draw_setting,
    editions=("default",),
    default_edition="default",
    papers=("letter", "a4", "half-letter", "a5"),
    aliases=("setting", "spacer-setting-form"),
))
