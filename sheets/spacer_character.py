"""The Spacer Character Form, two pages, drawn from the rules tables.

Every attribute, species, department, field, tally row, wound box and gear budget comes
from templates/spacer.yaml through game.spacer.data; region ids are those of
game.spacer.marks.character_regions.

How numbers are entered (docs/sheets.md explains the choice):
  * bubbles for the numbers every character has and the validator checks first:
    the 13 attributes, Luck and Fate (0..20, the rules' scale), Level (0..10) and
    Rank (0..9), species, service and rank-title branch;
  * two-cell digit combs for the rest: the St (starting) values, department and field
    levels, trait points, hobby levels and the derived numbers the player writes;
  * tick boxes, study circles and tally diamonds for what is counted.

Page 1, who the character is: name, player, ship, gender, species; attributes (value
bubbles, St comb, study circles); level, rank and service; principles; traits, hobbies
and special abilities.
Page 2, what the character does: every department and field with levels (plus a block
for a Referee's own department) and the play tokens; advancement tallies beside the
personal gear; personal combat data and wounds; the triangular progression table.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.lib.colors import white

import templates
from game.spacer.data import Department, SpacerData, WoundKind, load_data
from game.spacer.marks import (
    ABILITY_LINES,
    HOBBY_LINES,
    ISSUE_LINES,
    OTHER,
    OTHER_FIELD_LINES,
    SERVICES,
    TOKENS,
    TRAIT_LINES,
    level_values,
    rank_values,
    scale_values,
    slug,
)
from sheets import fonts
from sheets.draw import (
    ACCENT,
    INK,
    MIN_TEXT,
    MUTED,
    RULE,
    TINT,
    Sheet,
    band,
    fill_rect,
    hline,
    text,
    vline,
)
from sheets.registry import SheetKind, register
from sheets.spacer_draw import (
    GAP,
    HEAD,
    STRIPE,
    SUB,
    Geo,
    bubble,
    bubble_row,
    caption,
    choice_row,
    comb,
    diamond_check,
    footer,
    geo,
    label,
    layout_width,
    line,
    round_check,
    section,
    sub_header,
    tick,
    title_band,
    wide,
)

KIND_ID = "spacer-character"
PAGES = 2
SUPERHUMAN = 10  # "10+ is absolutely superhuman"
ID_ROW = 23.0  # a captioned write-in row (caption + line)
TRI_ROW = 9.5  # a row of the triangular progression strip
LEGEND = ("circle", "square", "diamond", "study", "digits")


def short_labels(data: SpacerData) -> dict[str, str]:
    out = {a.id: a.short for a in data.attributes}
    out["rank"] = "Rank"
    return out


# --- page 1 ------------------------------------------------------------------------------------
def draw_identity(sheet: Sheet, data: SpacerData, g: Geo, top: float) -> float:
    x, w = g.x, g.width
    split = w * 0.58
    rows = (("character", "CHARACTER", "player", "PLAYER"), ("ship", "SHIP", "gender",
                                                               "GENDER"))
    y = top
    for left, left_cap, right, right_cap in rows:
        caption(sheet, x, y - 6.5, left_cap)
        line(sheet, left, x, y - 6.5 - 1.5 - 7.5, split - 8, 14.0, "identity")
        caption(sheet, x + split, y - 6.5, right_cap)
        line(sheet, right, x + split, y - 6.5 - 1.5 - 7.5, w - split, 14.0, "identity")
        y -= ID_ROW
    mid = y - g.pitch / 2
    caption(sheet, x, mid - 2.3, "SPECIES")
    lw = layout_width("SPECIES", MIN_TEXT, bold=True) + 8
    choice_row(sheet, "species", [(s.id, s.name) for s in data.species], x + lw, mid,
               w - lw, g.box)
    return y - g.pitch


@dataclass(frozen=True)
class AttrCols:
    name: float
    name_w: float
    bubbles: float
    pitch: float
    d: float
    st: float
    study: float


def attr_columns(g: Geo, n_values: int) -> AttrCols:
    st_w = g.comb() + 5
    study_w = 2 * (g.box + 2) + 3
    name_min = 62.0
    bp = min(g.box + 8.0, (g.width - name_min - st_w - study_w) / n_values)
    d = min(g.box, bp - 1.4)
    name_w = g.width - st_w - study_w - n_values * bp
    bx = g.x + name_w
    return AttrCols(g.x, name_w, bx, bp, d, bx + n_values * bp + 2, bx + n_values * bp + st_w)


def draw_attributes(sheet: Sheet, data: SpacerData, g: Geo, top: float) -> float:
    values = list(scale_values(data))
    cols = attr_columns(g, len(values))
    y = section(sheet, g.x, top, g.width, "Attributes",
                f"{data.scale_min} none · 5 significant · {SUPERHUMAN}+ superhuman")
    groups = (("Inborn", data.inborn, f"array {', '.join(map(str, data.inborn_array))}"),
              ("Trained", data.trained, f"array {', '.join(map(str, data.trained_array))}"),
              ("Special", (), ""))
    for title, attrs, note in groups:
        y = sub_header(sheet, g.x, y, cols.st - g.x - 4, title, note)
        band(sheet, cols.st - 4, y, g.x + g.width - cols.st + 4, SUB, STRIPE)
        text(sheet, cols.st + g.comb() / 2, y + 2.6, "St", MIN_TEXT, fonts.BOLD, ACCENT,
             "centre")
        text(sheet, cols.study + (g.width + g.x - cols.study) / 2, y + 2.6,
             "Study" if attrs else "Burned", MIN_TEXT, fonts.BOLD, ACCENT, "centre")
        rows = [(a.id, a.name, a.short, f"attr.{a.id}", data.study_circles[a.kind])
                for a in attrs]
        if not attrs:
            rows = [("luck", "Luck", "", "luck", 0), ("fate", "Fate", "", "fate", 0)]
        for i, (aid, name, short, group, circles) in enumerate(rows):
            mid = y - g.pitch / 2
            if i % 2 == 1:
                fill_rect(sheet, g.x, y - g.pitch, g.width, g.pitch, TINT)
            nw = label(sheet, g.x + 3, mid, name, width=cols.name_w - 6, size=7.5, bold=True)
            if short and nw + 6 + fonts.width(short, fonts.REGULAR, MIN_TEXT) < cols.name_w - 4:
                label(sheet, g.x + 3 + nw + 3, mid, short, size=MIN_TEXT, color=MUTED)
            bubble_row(sheet, group, values, cols.bubbles, mid, cols.pitch, cols.d,
                       tint_from=SUPERHUMAN)
            if aid != "fate":
                comb(sheet, f"{group}.st", cols.st, mid, g, group="start")
            for k in range(1, circles + 1):
                round_check(sheet, f"{group}.study.{k}",
                            cols.study + 2 + (k - 0.5) * (g.box + 2), mid, g.box, "study")
            if aid == "luck":
                comb(sheet, "luck_burned", cols.study + 2, mid, g, group="written")
            y -= g.pitch
    hline(sheet, g.x, g.x + g.width, y, ACCENT, 0.8)
    return y


def labelled_comb(sheet: Sheet, g: Geo, rid: str, x: float, mid: float, title: str,
                  width: float, group: str = "written") -> float:
    """A caption and a comb of two cells; returns the x after the item."""
    cw = g.comb()
    label(sheet, x, mid, title, width=width - cw - 3, size=7.0, bold=True)
    comb(sheet, rid, x + width - cw, mid, g, group=group)
    return x + width


def draw_standing(sheet: Sheet, data: SpacerData, g: Geo, top: float) -> float:
    """Level and rank bubbles, service and branch, and the written derived numbers."""
    x, w = g.x, g.width
    officer = data.officer_leadership.text(short_labels(data))
    y = section(sheet, x, top, w, "Level · rank · service",
                f"officers' leadership = {officer}; enlisted: the reference card")
    lv, rk = list(level_values(data)), list(rank_values(data))
    st_w = g.comb() + 16
    bp = min(g.box + 8.0, (w - 2 * 32 - 10 - st_w) / (len(lv) + len(rk)))
    d = min(g.box, bp - 1.2)
    mid = y - g.pitch / 2
    label(sheet, x + 3, mid, "Level", bold=True, width=28)
    end = bubble_row(sheet, "level", lv, x + 32, mid, bp, d)
    rx = end + 10
    label(sheet, rx, mid, "Rank", bold=True, width=28)
    bubble_row(sheet, "rank", rk, rx + 32, mid, bp, d)
    label(sheet, x + w - g.comb() - 4, mid, "St", size=MIN_TEXT, bold=True, color=ACCENT,
          align="right")
    comb(sheet, "rank.st", x + w - g.comb(), mid, g, group="start")
    y -= g.pitch
    mid = y - g.pitch / 2
    fill_rect(sheet, x, y - g.pitch, w, g.pitch, TINT)
    label(sheet, x + 3, mid, "Service", bold=True, width=34)
    half = w * 0.42
    choice_row(sheet, "service", [(s, s.capitalize()) for s in SERVICES], x + 40, mid,
               half - 44, g.box, gap=8)
    bx = x + half + 8
    tw = layout_width("Rank titles", bold=True)
    label(sheet, bx, mid, "Rank titles", bold=True, width=tw)
    choice_row(sheet, "branch", [(b, b.capitalize()) for b in data.rank_branches],
               bx + tw + 8, mid, x + w - bx - tw - 8, g.box, gap=8)
    y -= g.pitch
    mid = y - g.pitch / 2
    items = (("leadership", "Leadership"), ("issue_points", "Issue pts"),
             ("bonus_points", "Bonus pts"), ("bonus_spent", "Spent"))
    iw = [layout_width(t, bold=True) + 6 + g.comb() for _r, t in items]
    title_w = w - sum(iw) - 8 * len(items) - 4
    tw = layout_width("Title", bold=True)
    label(sheet, x + 3, mid, "Title", bold=True, width=tw)
    line(sheet, "rank_title", x + tw + 8, mid, title_w - tw - 10, min(g.pitch - 1.2, 14.0),
         "written")
    ix = x + title_w + 8
    for (rid, title), width in zip(items, iw, strict=True):
        labelled_comb(sheet, g, rid, ix, mid, title, width)
        ix += width + 8
    y -= g.pitch
    hline(sheet, x, x + w, y, ACCENT, 0.8)
    return y


def draw_principles(sheet: Sheet, data: SpacerData, g: Geo, top: float) -> float:
    x, w = g.x, g.width
    y = section(sheet, x, top, w, "Principles", "")
    num_w = 12.0
    half = (w - num_w - 6) / 2
    text(sheet, x + num_w + half - 4, y + 3.4, "BELIEF", MIN_TEXT, fonts.BOLD, white,
         "right")
    text(sheet, x + w - 4, y + 3.4, "ACTION OR GOAL", MIN_TEXT, fonts.BOLD, white, "right")
    for k in range(1, data.principles_max + 1):
        mid = y - g.pitch / 2
        label(sheet, x + 3, mid, str(k), bold=True, color=ACCENT)
        h = min(g.pitch - 1.2, 15.0)
        line(sheet, f"principle.{k}.belief", x + num_w, mid, half, h, "principle")
        line(sheet, f"principle.{k}.action", x + num_w + half + 6, mid, half, h, "principle")
        y -= g.pitch
    return y


def named_rows(sheet: Sheet, g: Geo, x: float, w: float, top: float, prefix: str,
               number: str, lines: int, title: str, hint: str) -> float:
    """Trait or hobby lines: a name, a comb for its points or level, a study circle."""
    y = section(sheet, x, top, w, title, hint)
    cw = g.comb()
    for k in range(1, lines + 1):
        mid = y - g.pitch / 2
        h = min(g.pitch - 1.2, 14.0)
        line(sheet, f"{prefix}.{k}.name", x, mid, w - cw - g.box - 8, h, prefix)
        comb(sheet, f"{prefix}.{k}.{number}", x + w - cw - g.box - 5, mid, g, group=prefix)
        round_check(sheet, f"{prefix}.{k}.study", x + w - g.box / 2, mid, g.box, "study")
        y -= g.pitch
    return y


def draw_traits(sheet: Sheet, data: SpacerData, g: Geo, top: float) -> float:
    x, w = g.x, g.width
    widths = (0.36, 0.31, 0.33)
    gap = 5.0
    ws = [f * (w - 2 * gap) for f in widths]
    xs = [x, x + ws[0] + gap, x + ws[0] + ws[1] + 2 * gap]
    ends = [
        named_rows(sheet, g, xs[0], ws[0], top, "trait", "points", TRAIT_LINES, "Traits",
                   f"{data.trait_points} points · adjectives"),
        named_rows(sheet, g, xs[1], ws[1], top, "hobby", "level", HOBBY_LINES, "Hobbies",
                   f"{data.free_hobby_levels} free level"),
    ]
    y = section(sheet, xs[2], top, ws[2], "Special abilities")
    for k in range(1, ABILITY_LINES + 1):
        mid = y - g.pitch / 2
        line(sheet, f"ability.{k}", xs[2], mid, ws[2], min(g.pitch - 1.2, 14.0), "ability")
        y -= g.pitch
    return min(*ends, y)


def page1_rows(data: SpacerData) -> tuple[float, float]:
    """(fixed height, table rows) of page 1."""
    fixed = 2 * ID_ROW + 4 * HEAD + 3 * SUB + 5 * GAP
    rows = 1 + len(data.attributes) + 2 + 3 + data.principles_max + max(
        TRAIT_LINES, HOBBY_LINES, ABILITY_LINES)
    return fixed, rows


def draw_page1(sheet: Sheet, data: SpacerData) -> None:
    fixed, rows = page1_rows(data)
    g = geo(sheet, fixed, rows, low=11.3, high=19.0)
    title_band(sheet, "Character form", "Who you are: write in pencil; at creation St = "
                                        "the value.", "")
    y = draw_identity(sheet, data, g, g.top) - GAP
    y = draw_attributes(sheet, data, g, y) - GAP
    y = draw_standing(sheet, data, g, y) - GAP
    y = draw_principles(sheet, data, g, y) - GAP
    draw_traits(sheet, data, g, y)
    footer(sheet, LEGEND, 1, PAGES)


# --- page 2 ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Block:
    """A block of the departments grid: a department, Officer, the Referee's own
    department, or the play tokens. `rows` includes its heading row."""

    kind: str  # department | other | tokens
    rows: int
    dept: Department | None = None


def blocks(data: SpacerData) -> list[Block]:
    out = [Block("department", 1 + len(d.fields), d) for d in data.departments]
    out.append(Block("other", 1 + OTHER_FIELD_LINES))
    out.append(Block("tokens", 1 + len(TOKENS)))
    return out


def partition(bs: Sequence[Block], columns: int) -> list[list[Block]]:
    """Split the blocks, in order, into `columns` runs with the smallest tallest run."""
    best: list[list[Block]] | None = None
    best_h = 10 ** 9
    n = len(bs)
    for cuts in itertools.combinations(range(1, n), columns - 1):
        bounds = [0, *cuts, n]
        runs = [list(bs[a:b]) for a, b in itertools.pairwise(bounds)]
        h = max(sum(b.rows for b in run) for run in runs)
        if h < best_h:
            best, best_h = runs, h
    assert best is not None
    return best


def dept_columns(sheet: Sheet) -> int:
    return 4 if wide(sheet) else 3


def grid_rows(data: SpacerData, columns: int) -> int:
    return max(sum(b.rows for b in run) for run in partition(blocks(data), columns))


def draw_block(sheet: Sheet, data: SpacerData, g: Geo, b: Block, x: float, w: float,
               top: float) -> float:
    cw = g.comb()
    study_x = x + w - g.box / 2 - 1
    comb_x = x + w - g.box - 4 - cw
    y = top
    mid = y - g.pitch / 2
    fill_rect(sheet, x, y - g.pitch, w, g.pitch, STRIPE)
    if b.kind == "tokens":
        label(sheet, x + 3, mid, "Tokens", bold=True, color=ACCENT)
        label(sheet, x + w - 3, mid, "mark as you earn them", size=MIN_TEXT, color=ACCENT,
              align="right", width=w * 0.6)
        y -= g.pitch
        step = g.box + 1.6
        for tid, title, boxes in TOKENS:
            mid = y - g.pitch / 2
            bx = x + w - boxes * step
            label(sheet, x + 3, mid, title, width=bx - x - 5, size=MIN_TEXT + 0.5)
            for k in range(1, boxes + 1):
                tick(sheet, f"token.{tid}.{k}", bx + (k - 1) * step, mid, g.box,
                     f"token.{tid}")
            y -= g.pitch
        return y
    if b.kind == "other":
        tick_x = x + 2
        bubble(sheet, f"dept.current.{OTHER}", "dept.current", OTHER, tick_x + g.box / 2, mid,
               g.box)
        ow = layout_width("Other", 7.5, bold=True)
        label(sheet, tick_x + g.box + 3, mid, "Other", bold=True, size=7.5, width=ow)
        line(sheet, f"dept.{OTHER}.name", tick_x + g.box + ow + 6, mid,
             comb_x - tick_x - g.box - ow - 9, min(g.pitch - 1.2, 14.0), "department")
        comb(sheet, f"dept.{OTHER}.level", comb_x, mid, g, group="department")
        y -= g.pitch
        for k in range(1, OTHER_FIELD_LINES + 1):
            mid = y - g.pitch / 2
            line(sheet, f"field.{OTHER}.{k}.name", x + g.box + 5, mid,
                 comb_x - x - g.box - 8, min(g.pitch - 1.2, 14.0), "field")
            comb(sheet, f"field.{OTHER}.{k}.level", comb_x, mid, g, group="field")
            round_check(sheet, f"field.{OTHER}.{k}.study", study_x, mid, g.box, "study")
            y -= g.pitch
        return y
    d = b.dept
    assert d is not None
    nx = x + 3
    if not d.officer:
        bubble(sheet, f"dept.current.{d.id}", "dept.current", d.id, x + 2 + g.box / 2, mid,
               g.box)
        nx = x + g.box + 5
    label(sheet, nx, mid, d.name, bold=True, width=comb_x - nx - 4, size=7.5)
    if d.officer:
        label(sheet, comb_x - 4, mid, "officers", size=MIN_TEXT, color=MUTED, align="right",
              width=comb_x - nx - 40)
    comb(sheet, f"dept.{d.id}.level", comb_x, mid, g, group="department")
    y -= g.pitch
    for i, f in enumerate(d.fields):
        mid = y - g.pitch / 2
        if i % 2 == 1:
            fill_rect(sheet, x, y - g.pitch, w, g.pitch, TINT)
        label(sheet, x + g.box + 5, mid, f.name, width=comb_x - x - g.box - 8)
        rid = f"field.{d.id}.{slug(f.name)}"
        comb(sheet, f"{rid}.level", comb_x, mid, g, group="field")
        round_check(sheet, f"{rid}.study", study_x, mid, g.box, "study")
        y -= g.pitch
    return y


def draw_departments(sheet: Sheet, data: SpacerData, g: Geo, top: float) -> float:
    x, w = g.x, g.width
    y = section(sheet, x, top, w, "Departments & fields",
                "department level = its field levels added · fill the one you work in")
    columns = dept_columns(sheet)
    gap = 6.0
    cw = (w - (columns - 1) * gap) / columns
    bottom = y
    for c, run in enumerate(partition(blocks(data), columns)):
        cx = x + c * (cw + gap)
        yy = y
        for b in run:
            yy = draw_block(sheet, data, g, b, cx, cw, yy)
        bottom = min(bottom, yy)
        if c:
            vline(sheet, cx - gap / 2, y - grid_rows(data, columns) * g.pitch, y, RULE, 0.3)
    return y - grid_rows(data, columns) * g.pitch


def draw_tallies(sheet: Sheet, data: SpacerData, g: Geo, x: float, w: float,
                 top: float) -> float:
    y = section(sheet, x, top, w, "Advancement tallies", "one check a scene")
    levels = data.tally_levels
    dp = min(g.box + 4.0, (w - 52) / len(levels))
    lx = x + w - len(levels) * dp
    mid = y - g.pitch / 2
    fill_rect(sheet, x, y - g.pitch, w, g.pitch, STRIPE)
    label(sheet, x + 3, mid, "Level", bold=True, color=ACCENT, size=MIN_TEXT)
    for i, lv in enumerate(levels):
        label(sheet, lx + (i + 0.5) * dp, mid, str(lv), bold=True, color=ACCENT,
              align="centre")
    y -= g.pitch
    for j, row in enumerate(data.tally_rows):
        mid = y - g.pitch / 2
        if j % 2 == 1:
            fill_rect(sheet, x, y - g.pitch, w, g.pitch, TINT)
        label(sheet, x + 3, mid, row.name, width=lx - x - 5)
        for i, lv in enumerate(levels):
            if lv >= row.from_level:
                diamond_check(sheet, f"tally.{row.id}.{lv}", lx + (i + 0.5) * dp, mid,
                              min(g.box + 1.0, dp - 0.8), f"tally.{row.id}")
        y -= g.pitch
    return y


def draw_gear(sheet: Sheet, data: SpacerData, g: Geo, x: float, w: float, top: float) -> float:
    y = section(sheet, x, top, w, "Personal gear",
                f"P: {data.personal_points} points · 0–{ISSUE_LINES - 1}: issue, "
                f"{data.issue_per_rank} a rank + {data.issue_base}")
    rows = [("P", f"gear.personal.{k}") for k in range(1, data.personal_points + 1)]
    rows += [(str(k), f"gear.issue.{k}") for k in range(ISSUE_LINES)]
    for i, (tag, rid) in enumerate(rows):
        mid = y - g.pitch / 2
        label(sheet, x + 8, mid, tag, bold=True, color=ACCENT, align="centre")
        line(sheet, rid, x + 16, mid, w - 16, min(g.pitch - 1.2, 14.0),
             rid.rsplit(".", 1)[0])
        if i == data.personal_points - 1:
            hline(sheet, x, x + w, y - g.pitch - 0.4, ACCENT, 0.6)
        y -= g.pitch
    return y


def free_gear_items(data: SpacerData) -> list[tuple[str, str]]:
    return [(f"gear.free.{slug(it.name)}",
             it.name if it.count == 1 else f"{it.count} × {it.name.lower()}s")
            for it in data.free_items]


def free_gear_rows(sheet: Sheet, data: SpacerData, g: Geo) -> list[list[tuple[str, str]]]:
    """The free items split into rows that fit the frame's width (one row on wide paper)."""
    lead = layout_width("Free gear", bold=True) + 13
    items = free_gear_items(data)
    widest = max(g.box + 3 + layout_width(t, MIN_TEXT) + 6 for _r, t in items)
    per_row = max(1, min(len(items), int((g.width - lead) // widest)))
    return [items[k:k + per_row] for k in range(0, len(items), per_row)]


def draw_free_gear(sheet: Sheet, data: SpacerData, g: Geo, top: float) -> float:
    """The free items as tick boxes, in a grid of as many columns as fit a row."""
    x, w = g.x, g.width
    rows = free_gear_rows(sheet, data, g)
    fill_rect(sheet, x, top - len(rows) * g.pitch, w, len(rows) * g.pitch, TINT)
    lw = layout_width("Free gear", bold=True) + 13
    label(sheet, x + 3, top - g.pitch / 2, "Free gear", bold=True, color=ACCENT,
          width=lw - 13)
    cw = (w - lw) / len(rows[0])
    y = top
    for row in rows:
        mid = y - g.pitch / 2
        for k, (rid, title) in enumerate(row):
            cx = x + lw + k * cw
            tick(sheet, rid, cx, mid, g.box, "gear.free")
            label(sheet, cx + g.box + 3, mid, title, size=MIN_TEXT, width=cw - g.box - 5)
        y -= g.pitch
    return y


def spread(x: float, width: float, needs: Sequence[float]) -> list[tuple[float, float]]:
    """Columns of at least their need, sharing what is left evenly (or, when the needs
    add up to more than `width`, each cut in proportion): (x, width) each."""
    total = sum(needs)
    spare = max(0.0, width - total) / len(needs)
    scale = min(1.0, width / total)
    out = []
    for n in needs:
        w = n * scale + spare
        out.append((x, w))
        x += w
    return out


def draw_combat(sheet: Sheet, data: SpacerData, g: Geo, top: float) -> float:
    x, w = g.x, g.width
    labels = short_labels(data)
    y = section(sheet, x, top, w, "Personal combat",
                f"wound boxes: task penalty each · every wound adds {data.stun_per_wound} "
                "stun · penalty ≥ toughness: out")
    mid = y - g.pitch * 0.85
    items = (("initiative", "Initiative", data.initiative.text(labels).replace(" ", "")),
             ("toughness", "Toughness", data.toughness.text(labels).replace(" ", "")),
             ("wound_penalty", "Wound penalty", "penalties added"),
             ("stun_pile", "Stun pile", "one stun an action"))
    needs = [max(layout_width(t, bold=True), layout_width(f, MIN_TEXT))
             + g.comb() + 9 for _r, t, f in items]
    for (rid, title, formula), (ix, iw) in zip(items, spread(x, w, needs), strict=True):
        room = iw - g.comb() - 9
        label(sheet, ix + 3, mid + 3.2, title, bold=True, width=room)
        text(sheet, ix + 3, mid - 7.2, formula, MIN_TEXT, fonts.REGULAR, MUTED, width=room)
        comb(sheet, rid, ix + iw - g.comb() - 3, mid, g,
             group="combat" if rid == "stun_pile" else "written")
    y -= g.pitch * 1.7
    mid = y - g.pitch / 2
    fill_rect(sheet, x, y - g.pitch, w, g.pitch, TINT)
    step = g.box + 1.6

    def name(wd: WoundKind) -> str:
        return f"{wd.name} −{wd.penalty}" if wd.penalty else wd.name

    needs = [layout_width(name(wd), bold=True) + 6 + wd.capacity * step + 8
             for wd in data.wounds]
    for wd, (wx, _ww) in zip(data.wounds, spread(x, w, needs), strict=True):
        nw = layout_width(name(wd), bold=True)
        label(sheet, wx + 3, mid, name(wd), bold=True, width=nw)
        bx = wx + 3 + nw + 4
        for j in range(1, wd.capacity + 1):
            tick(sheet, f"wound.{wd.id}.{j}", bx + (j - 1) * step, mid, g.box, f"wound.{wd.id}")
    y -= g.pitch
    hline(sheet, x, x + w, y, ACCENT, 0.8)
    return y


def tri_label(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}–{hi}" if hi - lo > 1 else f"{lo},{hi}"


def triangular(data_raw: dict[str, object]) -> list[tuple[int, int, int]]:
    rows = data_raw["triangular_progression"]
    assert isinstance(rows, list)
    return [(int(r["min"]), int(r["max"]), int(r["bonus"])) for r in rows]


def draw_triangular(sheet: Sheet, g: Geo, top: float, per_strip: int) -> float:
    """The triangular progression as strips of columns: excess over bonus."""
    table = triangular(templates.load("spacer"))
    x, w = g.x, g.width
    y = section(sheet, x, top, w, "Triangular progression",
                "look up an excess (margin), read its bonus")
    lw = 40.0
    for s in range(0, len(table), per_strip):
        chunk = table[s:s + per_strip]
        cw = (w - lw) / per_strip
        for r, (title, values) in enumerate((("Excess", [tri_label(a, b) for a, b, _ in chunk]),
                                             ("Bonus", [str(c) for _, _, c in chunk]))):
            mid = y - TRI_ROW / 2
            if r == 1:
                fill_rect(sheet, x, y - TRI_ROW, w, TRI_ROW, TINT)
            label(sheet, x + 3, mid, title, bold=True, size=MIN_TEXT, color=ACCENT)
            for i, v in enumerate(values):
                label(sheet, x + lw + (i + 0.5) * cw, mid, v, size=MIN_TEXT + 0.5,
                      bold=r == 1, align="centre", width=cw - 1, color=INK)
            y -= TRI_ROW
        hline(sheet, x, x + w, y, RULE, 0.35)
    return y


def tri_strips(sheet: Sheet, entries: int) -> int:
    """Columns per strip: all in one strip on wide paper, else two strips."""
    return entries if wide(sheet) else (entries + 1) // 2


def page2_rows(sheet: Sheet, data: SpacerData, entries: int) -> tuple[float, float]:
    per = tri_strips(sheet, entries)
    strips = (entries + per - 1) // per
    fixed = 4 * HEAD + 3 * GAP + 2 * strips * TRI_ROW + GAP
    rows = (grid_rows(data, dept_columns(sheet)) + 1 + len(data.tally_rows)
            + len(free_gear_rows(sheet, data, geo(sheet, 0, 1, low=0))) + 2.7)
    return fixed, rows


def draw_page2(sheet: Sheet, data: SpacerData) -> None:
    entries = len(triangular(templates.load("spacer")))
    fixed, rows = page2_rows(sheet, data, entries)
    g = geo(sheet, fixed, rows, low=11.3, high=17.0)
    title_band(sheet, "Character form", "What you do: departments, advancement, gear and "
                                        "combat.")
    y = draw_departments(sheet, data, g, g.top) - GAP
    split = min(g.width * 0.47, 52 + len(data.tally_levels) * (g.box + 4.0))
    t_end = draw_tallies(sheet, data, g, g.x, split, y)
    g_end = draw_gear(sheet, data, g, g.x + split + 6, g.width - split - 6, y)
    y = draw_free_gear(sheet, data, g, min(t_end, g_end)) - GAP
    y = draw_combat(sheet, data, g, y) - GAP
    y = draw_triangular(sheet, g, y, tri_strips(sheet, entries))
    notes_area(sheet, g, y - GAP)
    footer(sheet, LEGEND, 2, PAGES)


def notes_area(sheet: Sheet, g: Geo, top: float) -> None:
    """Ruled lines for notes in what the tables leave of the page (printed only)."""
    if top - g.bottom < 40:
        return
    y = section(sheet, g.x, top, g.width, "Notes")
    pitch = 16.0
    y -= pitch
    while y > g.bottom + 1:
        hline(sheet, g.x, g.x + g.width, y, RULE, 0.5)
        y -= pitch


def draw_character(sheet: Sheet) -> None:
    data = load_data()
    draw_page1(sheet, data)
    sheet.new_page()
    draw_page2(sheet, data)


CHARACTER = register(SheetKind(
    id=KIND_ID,
    title="Spacer character form",
    draw=draw_character,
    editions=("default",),
    default_edition="default",
    papers=("letter", "a4", "half-letter", "a5"),
    aliases=("character", "spacer-character-form"),
))
