"""The OPIAL career page: the whole game on one sheet, drawn from the Rules object.

Every number printed here comes from `game.opial.rules.load_rules(edition)`; every mark
region is recorded as it is drawn, with the ids of `game.opial.marks.regions`.

Layout, top to bottom (the pitch of table rows is computed from the paper's height,
column widths from its width):

    top band     title | name | clone uses               (QR code, markers in corners)
    tours        15 tours, 2 x 2 mission boxes above each, Grand Admiral bonus below
    promotion    the track in two rows of boxes, rank names at their thresholds
    ranks | skills        (game options under the ranks)
    missions     the 22 missions
    medals | final score and titles
    bottom band  legend and sheet code
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.lib.colors import Color, white

import templates
from game.opial.rules import Mission, Rules, load_rules, normalise_edition
from game.opial.state import SCORE_LINES
from sheets import fonts
from sheets.draw import (
    ACCENT,
    BOX_LINE,
    DICE,
    INK,
    MIN_TEXT,
    MUTED,
    RULE,
    TINT,
    Sheet,
    band,
    bubble,
    checkbox,
    die,
    die_width,
    digit_cells,
    fill_rect,
    hline,
    text,
    text_mid,
    vline,
    write_in,
)
from sheets.registry import SheetKind, register

KIND_ID = "opial-career"
HEAD = 11.0  # table header band
GAP = 6.0  # between sections
SMALL_BOX = 10.2  # 3.6 mm: tour, mission-count and promotion boxes
TOUR_BOX = 12.5
LABEL_W = 86.0  # left label column of the tours and promotion strips
ROWS = 15 + 22 + 7  # table rows on the page: skills | missions | final score
SKILLS_WIDTH = 268.0  # the right-hand column: skills, final score and titles
COLOUR_NAMES = {"B": "Operations", "G": "Science", "R": "Combat", "K": "any die"}


@dataclass(frozen=True)
class Geometry:
    """Sizes derived from the paper: row pitch, box size, dice size."""

    x: float
    top: float
    width: float
    bottom: float
    pitch: float
    box: float
    die: float

    @property
    def cell(self) -> float:
        """Width of a box that prints its points inside (Executed, skill levels)."""
        return self.box + 2.4

    @classmethod
    def of(cls, sheet: Sheet) -> Geometry:
        fx, fy, fw, fh = sheet.frame
        fixed = tours_height() + track_height() + 3 * HEAD + 4 * GAP
        pitch = min(14.5, (fh - fixed) / ROWS)
        if pitch < 12.0:
            raise ValueError(f"{sheet.paper.name} is too short for the career page "
                             f"(row pitch {pitch:.1f} pt)")
        box = min(11.3, max(SMALL_BOX, pitch - 2.2))
        return cls(fx, fy + fh, fw, fy, pitch, box, min(9.2, pitch - 3.0))


def tours_height() -> float:
    return 2 * SMALL_BOX + 1.6 + 2.5 + TOUR_BOX + 1.5 + 8.0


def track_height() -> float:
    return 2 * (8.5 + SMALL_BOX) + 2.0


# --- small helpers ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Col:
    key: str
    title: str
    width: float = 0.0  # fixed width; 0 = shares the remaining width by `flex`
    flex: float = 0.0
    align: str = "left"


def layout_columns(x: float, width: float,
                   cols: Sequence[Col]) -> dict[str, tuple[float, float]]:
    """Column key -> (x, width): fixed widths first, the rest shared by flex weight."""
    fixed = sum(c.width for c in cols)
    flex = sum(c.flex for c in cols) or 1.0
    spare = width - fixed
    if spare < -1e-6:
        raise ValueError(f"columns need {fixed:.1f} pt, have {width:.1f}")
    out: dict[str, tuple[float, float]] = {}
    cx = x
    for c in cols:
        w = c.width + spare * c.flex / flex
        out[c.key] = (cx, w)
        cx += w
    return out


def header_row(sheet: Sheet, x: float, y_top: float, width: float, cols: Sequence[Col],
               at: dict[str, tuple[float, float]]) -> None:
    """A table's header band with white column titles."""
    band(sheet, x, y_top - HEAD, width, HEAD)
    for c in cols:
        cx, w = at[c.key]
        tx = {"left": cx + 3, "centre": cx + w / 2, "right": cx + w - 3}[c.align]
        text_mid(sheet, tx, y_top - HEAD / 2, c.title, MIN_TEXT, fonts.BOLD, white, c.align,
                 width=w - 4)


def zebra(sheet: Sheet, x: float, width: float, y_top: float, rows: int, pitch: float) -> None:
    """Tint alternate rows and rule the table's foot."""
    for i in range(rows):
        if i % 2 == 1:
            fill_rect(sheet, x, y_top - (i + 1) * pitch, width, pitch, TINT)
    hline(sheet, x, x + width, y_top - rows * pitch, ACCENT, 0.8)


def cell_text(sheet: Sheet, col: tuple[float, float], y_mid: float, s: str,
              size: float = 7.0, font: str = fonts.REGULAR, color: Color = INK,
              align: str = "left") -> None:
    cx, w = col
    tx = {"left": cx + 3, "centre": cx + w / 2, "right": cx + w - 3}[align]
    text_mid(sheet, tx, y_mid, s, size, font, color, align, width=w - 5)


def points_label(v: int) -> str:
    """The score printed inside a box ('' for a zero box, as on the original page)."""
    return "" if v == 0 else f"{v:+d}".replace("-", fonts.sym("−", "-"))


def medal_initial(award: str) -> str:
    return award[:1].upper()


# --- sections ----------------------------------------------------------------------------------
def draw_header(sheet: Sheet, rules: Rules) -> None:
    """Title, name line and clone-use boxes in the band between the top markers."""
    bx, by, bw, bh = sheet.top_band
    data = templates.load("opial")  # the game's title and subtitle
    text(sheet, bx, by + bh - 14.5, data["title"].upper(), 15.5, fonts.BOLD, ACCENT,
         width=min(160.0, bw * 0.38))
    text(sheet, bx + 0.5, by + 3.0, data["subtitle"].upper(), 7.5, fonts.BOLD, MUTED,
         width=min(160.0, bw * 0.38), spacing=1.05)
    clone_w = 46.0
    name_x = bx + min(170.0, bw * 0.40)
    name_w = bw - (name_x - bx) - clone_w - 14
    text(sheet, name_x, by + bh - 7.0, "NAME", MIN_TEXT, fonts.BOLD, MUTED)
    write_in(sheet, "name", name_x, by + 1.0, name_w, 18.0, group="name")
    cx = bx + bw - clone_w
    text(sheet, cx, by + bh - 7.0, "CLONE USES", MIN_TEXT, fonts.BOLD, MUTED, width=clone_w)
    for k in range(1, rules.clone_uses + 1):
        checkbox(sheet, f"clone.{k}", cx + (k - 1) * (SMALL_BOX + 4), by + 5.0, SMALL_BOX,
                 group="clone")


def draw_tours(sheet: Sheet, rules: Rules, g: Geometry, top: float) -> float:
    """The tour track: mission-count boxes above each tour box, the GA bonus row below."""
    x, w = g.x, g.width
    col_w = (w - LABEL_W) / rules.tour_count
    rows_top = top
    m_rows = (rules.tour_mission_boxes + 1) // 2
    mission_h = m_rows * SMALL_BOX + (m_rows - 1) * 1.6
    tour_y = rows_top - mission_h - 2.5 - TOUR_BOX
    ga_mid = tour_y - 1.5 - 4.0
    fill_rect(sheet, x, ga_mid - 4.0, w, 8.0, TINT)
    text(sheet, x + 2, rows_top - 7.0, f"{rules.base_missions} missions per tour",
         MIN_TEXT, fonts.BOLD, MUTED, width=LABEL_W - 4)
    text(sheet, x + 2, rows_top - 15.5, "+1 per Efficiency level", MIN_TEXT, fonts.REGULAR,
         MUTED, width=LABEL_W - 4)
    text_mid(sheet, x + 2, tour_y + TOUR_BOX / 2, "TOURS", 9.0, fonts.BOLD, ACCENT)
    text_mid(sheet, x + 2, ga_mid, f"{rules.grand_admiral.name.upper()} BONUS", MIN_TEXT,
             fonts.BOLD, MUTED, width=LABEL_W - 4)
    for t in range(1, rules.tour_count + 1):
        cx = x + LABEL_W + (t - 0.5) * col_w
        if t > 1:
            vline(sheet, cx - col_w / 2, ga_mid - 4.0, rows_top, RULE, 0.3)
        per_row = 2
        for k in range(1, rules.tour_mission_boxes + 1):
            row, col = divmod(k - 1, per_row)
            bx = cx - SMALL_BOX - 0.8 + col * (SMALL_BOX + 1.6)
            by = rows_top - (row + 1) * SMALL_BOX - row * 1.6
            checkbox(sheet, f"tour.{t}.mission.{k}", bx, by, SMALL_BOX, group="tour_missions")
        checkbox(sheet, f"tour.{t}", cx - TOUR_BOX / 2, tour_y, TOUR_BOX, points=str(t),
                 group="tour", line=1.0)
        if t in rules.ga_bonus:
            v = rules.ga_bonus[t]
            s = f"{v:+d}".replace("-", fonts.sym("−", "-")) if v else "0"
            text_mid(sheet, cx, ga_mid, s, 7.0, fonts.BOLD, ACCENT, "centre")
    end = ga_mid - 4.0
    hline(sheet, x, x + w, end, ACCENT, 0.8)
    return end


def draw_promotion(sheet: Sheet, rules: Rules, g: Geometry, top: float) -> float:
    """The promotion track: two rows of numbered boxes, rank names at their thresholds."""
    x, w = g.x, g.width
    per_row = (rules.track_boxes + 1) // 2
    pitch = (w - LABEL_W) / per_row
    text(sheet, x + 2, top - 10.0, "PROMOTION", 7.5, fonts.BOLD, ACCENT)
    text(sheet, x + 2, top - 18.5, f"from {rules.ranks[0].name}: 1 box", MIN_TEXT,
         fonts.REGULAR, MUTED, width=LABEL_W - 4)
    text(sheet, x + 2, top - 26.5, "per promotion point", MIN_TEXT, fonts.REGULAR, MUTED,
         width=LABEL_W - 4)
    text(sheet, x + 2, top - 34.5, "score: highest box × 2", MIN_TEXT, fonts.REGULAR, MUTED,
         width=LABEL_W - 4)
    at_threshold = {r.threshold: r for r in rules.ranks if r.threshold > 0}
    row_h = 8.5 + SMALL_BOX
    for n in range(1, rules.track_boxes + 1):
        row, col = divmod(n - 1, per_row)
        bx = x + LABEL_W + col * pitch + (pitch - SMALL_BOX) / 2
        by = top - row * (row_h + 2.0) - row_h
        rank = at_threshold.get(n)
        checkbox(sheet, f"promotion.{n}", bx, by, SMALL_BOX, points=str(n), group="promotion",
                 line=1.1 if rank else BOX_LINE)
        if rank is not None:
            last = col >= per_row - 3
            lx = bx + SMALL_BOX if last else bx
            vline(sheet, bx + (SMALL_BOX if last else 0) + (-0.5 if last else 0.5),
                  by + SMALL_BOX, by + SMALL_BOX + 2.2, ACCENT, 1.0)
            text(sheet, lx, by + SMALL_BOX + 2.2, rank.name, MIN_TEXT,
                 fonts.BOLD, ACCENT, "right" if last else "left", width=pitch * 5.6)
    end = top - 2 * row_h - 2.0
    return end


def rank_columns(g: Geometry) -> list[Col]:
    return [Col("rank", "RANK", flex=1.35), Col("grade", "GRADE", 28.0, align="centre"),
            Col("ship", "SHIP ASSIGNMENT", flex=1.0),
            Col("pool", "DICE POOL", 8 * (g.die + 0.8) + 5.0)]


def draw_ranks(sheet: Sheet, rules: Rules, g: Geometry, x: float, width: float,
               top: float) -> float:
    cols = rank_columns(g)
    at = layout_columns(x, width, cols)
    header_row(sheet, x, top, width, cols, at)
    y0 = top - HEAD
    zebra(sheet, x, width, y0, len(rules.ranks), g.pitch)
    for i, r in enumerate(rules.ranks):
        mid = y0 - (i + 0.5) * g.pitch
        cell_text(sheet, at["rank"], mid, r.name, 7.0, fonts.BOLD)
        cell_text(sheet, at["grade"], mid, r.grade, 7.0, align="centre")
        cell_text(sheet, at["ship"], mid, r.ship, 7.0)
        px, _ = at["pool"]
        if r.pool:
            for k, colour in enumerate(sorted(r.pool, key="BGR".index)):
                die(sheet, px + 2 + k * (g.die + 0.8), mid - g.die / 2, g.die, colour, colour)
        else:
            cell_text(sheet, at["pool"], mid, "desk: no missions", MIN_TEXT,
                      fonts.ITALIC, MUTED)
    return y0 - len(rules.ranks) * g.pitch


def start_label(rules: Rules, option_id: str) -> str:
    o = rules.start_option(option_id)
    if o.how == "roll":
        verb = "roll" if o.count == 1 else "roll twice" if o.count == 2 else f"roll {o.count}×"
    else:
        verb = "choose" if o.count == 1 else "choose two" if o.count == 2 else f"choose {o.count}"
    return f"{o.name}: {verb}"


def draw_options(sheet: Sheet, rules: Rules, g: Geometry, x: float, width: float,
                 top: float, bottom: float) -> None:
    """Game length and start-skill bubbles (radio groups 'length' and 'start')."""
    band(sheet, x, top - HEAD, width, HEAD)
    text_mid(sheet, x + 3, top - HEAD / 2, "GAME OPTIONS", MIN_TEXT, fonts.BOLD, white)
    text_mid(sheet, x + width - 3, top - HEAD / 2,
             "start skill: see the START column, before tour 1", MIN_TEXT,
             fonts.REGULAR, white, "right", width=width * 0.62)
    rows = 1 + (len(rules.start_options) + 1) // 2
    pitch = min(g.pitch, (top - HEAD - bottom) / rows)
    d = SMALL_BOX
    label_w = 36.0
    half = (width - label_w) / 2
    y = top - HEAD - pitch / 2
    text_mid(sheet, x + 3, y, "LENGTH", MIN_TEXT, fonts.BOLD, MUTED)
    for i, (length, tours) in enumerate(rules.game_lengths.items()):
        bx = x + label_w + i * half
        bubble(sheet, f"length.{length}", "length", length, bx + d / 2, y, d)
        text_mid(sheet, bx + d + 3, y, f"{length.capitalize()} · {tours} tours", 7.0,
                 width=half - d - 6)
    for i, o in enumerate(rules.start_options):
        row, col = divmod(i, 2)
        yy = y - (row + 1) * pitch
        if i == 0:
            text_mid(sheet, x + 3, yy, "START", MIN_TEXT, fonts.BOLD, MUTED)
        bx = x + label_w + col * half
        bubble(sheet, f"start.{o.id}", "start", o.id, bx + d / 2, yy, d)
        text_mid(sheet, bx + d + 3, yy, start_label(rules, o.id), 7.0, width=half - d - 6)


def skill_columns(g: Geometry, levels: int) -> list[Col]:
    return [Col("skill", "SKILL", 60.0), Col("effect", "EFFECT", flex=1.0),
            Col("start", "START", 28.0, align="centre"),
            Col("levels", "LEVELS", max(levels * (g.cell + 2.0) + 5.0, 44.0))]


def draw_skills(sheet: Sheet, rules: Rules, g: Geometry, x: float, width: float,
                top: float) -> float:
    levels = max(s.max_level for s in rules.skills)
    cols = skill_columns(g, levels)
    at = layout_columns(x, width, cols)
    header_row(sheet, x, top, width, cols, at)
    y0 = top - HEAD
    zebra(sheet, x, width, y0, len(rules.skills), g.pitch)
    for i, s in enumerate(rules.skills):
        mid = y0 - (i + 0.5) * g.pitch
        cell_text(sheet, at["skill"], mid, s.name, 7.0, fonts.BOLD)
        cell_text(sheet, at["effect"], mid, s.effect, 7.0)
        if s.start_roll:
            cell_text(sheet, at["start"], mid, str(s.start_roll), 7.5, fonts.BOLD, ACCENT,
                      "centre")
        lx, _ = at["levels"]
        for k, pts in enumerate(s.levels, start=1):
            checkbox(sheet, f"skill.{s.id}.{k}", lx + 3 + (k - 1) * (g.cell + 2.0),
                     mid - g.box / 2, g.cell, g.box, points=points_label(pts),
                     group=f"skill.{s.id}")
    return y0 - len(rules.skills) * g.pitch


DIE_GAP = 1.4


def roll_span(g: Geometry, m: Mission) -> float:
    """Width of a mission's roll: its dice side by side (fixed, font-independent)."""
    return sum(die_width(g.die, r.colour != "K") + DIE_GAP for r in m.roll) - DIE_GAP


def mission_columns(g: Geometry, rules: Rules) -> list[Col]:
    most_boxes = max(m.boxes for m in rules.missions)
    return [Col("mission", "MISSION", flex=1.3), Col("min", "MIN RANK", 38.0, align="centre"),
            Col("executed", "EXECUTED", most_boxes * (g.cell + 2.0) + 6.0),
            Col("roll", "ROLL (NUMBER OR HIGHER)",
                max(max(roll_span(g, m) for m in rules.missions) + 6.0, 100.0)),
            Col("promo", "PROMOTION", 46.0, align="centre"), Col("skill", "SKILL", flex=1.0),
            Col("medal", "MEDAL ROLL", flex=1.25), Col("survival", "SURVIVAL", 38.0,
                                                         align="centre")]


def draw_medal_roll(sheet: Sheet, m: Mission, col: tuple[float, float], mid: float) -> None:
    cx, w = col
    x = cx + 3
    if m.medal is not None:
        badge = 8.6
        c = sheet.c
        c.saveState()
        c.setFillColor(ACCENT)
        c.circle(x + badge / 2, mid, badge / 2, stroke=0, fill=1)
        c.restoreState()
        text_mid(sheet, x + badge / 2, mid, medal_initial(m.medal.award), MIN_TEXT, fonts.BOLD,
                 white, "centre")
        x += badge + 3
        roll = " ".join(f"{t}+" for t in m.medal.targets)
        x += text_mid(sheet, x, mid, roll, 7.0, fonts.BOLD, INK) + 4
        if m.medal.automatic:
            text_mid(sheet, x, mid, "AUTO", MIN_TEXT, fonts.BOLD, DICE["R"],
                     width=cx + w - x - 2)
    if m.discipline:
        arrow = fonts.sym("→", "->")
        text_mid(sheet, x, mid, f"FAIL {arrow} Discipline", MIN_TEXT, fonts.BOLD, DICE["R"],
                 width=cx + w - x - 2)


def draw_missions(sheet: Sheet, rules: Rules, g: Geometry, top: float) -> float:
    x, w = g.x, g.width
    cols = mission_columns(g, rules)
    at = layout_columns(x, w, cols)
    header_row(sheet, x, top, w, cols, at)
    y0 = top - HEAD
    zebra(sheet, x, w, y0, len(rules.missions), g.pitch)
    for i, m in enumerate(rules.missions):
        mid = y0 - (i + 0.5) * g.pitch
        cell_text(sheet, at["mission"], mid, m.name, 7.0, fonts.BOLD)
        cell_text(sheet, at["min"], mid, rules.ranks[m.min_rank].grade, 7.0, align="centre")
        ex, _ = at["executed"]
        for k, pts in enumerate(m.executed, start=1):
            checkbox(sheet, f"mission.{m.id}.{k}", ex + 3 + (k - 1) * (g.cell + 2.0),
                     mid - g.box / 2, g.cell, g.box, points=points_label(pts),
                     group=f"mission.{m.id}", tristate=True)
        rx = at["roll"][0] + 3
        for req in m.roll:
            rx += die(sheet, rx, mid - g.die / 2, g.die, req.colour, str(req.target),
                      "" if req.colour == "K" else req.colour) + DIE_GAP
        cell_text(sheet, at["promo"], mid, f"+{m.promotion}", 7.5, fonts.BOLD, ACCENT, "centre")
        if m.skill:
            cell_text(sheet, at["skill"], mid, rules.skill(m.skill).name, 7.0)
        else:
            cell_text(sheet, at["skill"], mid, "—" if fonts.has_glyph("—") else "-", 7.0,
                      color=MUTED)
        draw_medal_roll(sheet, m, at["medal"], mid)
        cell_text(sheet, at["survival"], mid, f"{m.survival}+", 7.5, fonts.BOLD, INK, "centre")
    return y0 - len(rules.missions) * g.pitch


def medal_points_label(points: int, per: int) -> str:
    s = points_label(points) or "0"
    return s if per == 1 else f"{s} per {per}"


def draw_medals(sheet: Sheet, rules: Rules, g: Geometry, x: float, width: float,
                top: float) -> float:
    rows = [*rules.medals, rules.discipline]
    most = max(r.boxes for r in rows)
    group_gap = 4.0
    boxes_w = most * (g.box + 1.6) + ((most - 1) // 4) * group_gap + 6
    cols = [Col("medal", "MEDALS", flex=1.0), Col("boxes", "AWARDED (GROUPS OF 4)", boxes_w),
            Col("each", "POINTS", 46.0, align="right")]
    at = layout_columns(x, width, cols)
    header_row(sheet, x, top, width, cols, at)
    y0 = top - HEAD
    zebra(sheet, x, width, y0, len(rows), g.pitch)
    for i, md in enumerate(rows):
        mid = y0 - (i + 0.5) * g.pitch
        is_disc = md is rules.discipline
        cell_text(sheet, at["medal"], mid, md.name, 7.0, fonts.BOLD,
                  DICE["R"] if is_disc else INK)
        bx, _ = at["boxes"]
        prefix = "discipline" if is_disc else f"medal.{md.id}"
        for k in range(1, md.boxes + 1):
            gx = bx + 3 + (k - 1) * (g.box + 1.6) + ((k - 1) // 4) * group_gap
            checkbox(sheet, f"{prefix}.{k}", gx, mid - g.box / 2, g.box, group=prefix)
        cell_text(sheet, at["each"], mid, medal_points_label(md.points, md.per), 7.0,
                  fonts.BOLD, ACCENT, "right")
    return y0 - len(rows) * g.pitch


def draw_legend(sheet: Sheet, g: Geometry, x: float, top: float, bottom: float) -> None:
    """How to mark an Executed box, and what the dice colours mean."""
    rows = 2
    pitch = (top - bottom) / rows
    mid = top - pitch / 2
    b = g.box * 0.9
    c = sheet.c
    lx = x + 3
    lx += text_mid(sheet, lx, mid, "Executed box:", 7.0, fonts.BOLD) + 5
    for stroke, label in (("x", "success"), ("/", "failed (one stroke)")):
        c.saveState()
        c.setStrokeColor(INK)
        c.setLineWidth(0.7)
        c.rect(lx, mid - b / 2, b, b, stroke=1, fill=0)
        c.setStrokeColor(ACCENT)
        c.setLineWidth(1.2)
        c.line(lx + 1.8, mid - b / 2 + 1.8, lx + b - 1.8, mid + b / 2 - 1.8)
        if stroke == "x":
            c.line(lx + 1.8, mid + b / 2 - 1.8, lx + b - 1.8, mid - b / 2 + 1.8)
        c.restoreState()
        lx += b + 2.5
        lx += text_mid(sheet, lx, mid, f"= {label}", 7.0) + 10
    mid -= pitch
    lx = x + 3
    lx += text_mid(sheet, lx, mid, "Dice:", 7.0, fonts.BOLD) + 5
    for colour in "BGRK":
        lx += die(sheet, lx, mid - g.die / 2, g.die, colour, colour if colour != "K" else "4")
        lx += 2.5 + text_mid(sheet, lx + 2.5, mid, COLOUR_NAMES[colour], 7.0) + 7


def draw_score(sheet: Sheet, rules: Rules, g: Geometry, x: float, width: float,
               top: float) -> float:
    """Final-score lines with digit cells, and the score titles with their bands."""
    labels = {
        "tours_bonus": "Tours bonus (±)",
        "final_promotion": "Final promotion (×2)",
        "rank_bonus": f"Rank bonus ({rules.grand_admiral.name}) +{rules.rank_bonus}",
        "missions": "Missions (+)",
        "skills": "Skills (±)",
        "medals": "Medals (±)",
        "total": "GRAND TOTAL",
    }
    cell = g.box + 1.0
    score_w = min(width * 0.56, 175.0)
    cols = [Col("line", "FINAL SCORE", flex=1.0), Col("cells", "", 3 * cell + 6.0)]
    at = layout_columns(x, score_w, cols)
    header_row(sheet, x, top, score_w, cols, at)
    y0 = top - HEAD
    n = len(SCORE_LINES)
    zebra(sheet, x, score_w, y0, n, g.pitch)
    for i, line in enumerate(SCORE_LINES):
        mid = y0 - (i + 0.5) * g.pitch
        total = line == "total"
        cell_text(sheet, at["line"], mid, labels[line], 7.5 if total else 7.0,
                  fonts.BOLD if total else fonts.REGULAR, ACCENT if total else INK)
        cx, cw = at["cells"]
        h = min(g.pitch - 1.6, cell * 1.15)
        digit_cells(sheet, f"score.{line}", cx + cw - 3 - 3 * cell, mid - h / 2, cell, h, 3,
                    group="score", line=1.1 if total else BOX_LINE)
    # titles
    tx = x + score_w + 8
    tw = width - score_w - 8
    cols_t = [Col("title", "TITLE", flex=1.0), Col("band", "SCORE", 46.0, align="right")]
    at_t = layout_columns(tx, tw, cols_t)
    header_row(sheet, tx, top, tw, cols_t, at_t)
    zebra(sheet, tx, tw, y0, len(rules.titles), g.pitch)
    for i, t in enumerate(rules.titles):
        mid = y0 - (i + 0.5) * g.pitch
        cell_text(sheet, at_t["title"], mid, t.name, 7.0, fonts.BOLD)
        cell_text(sheet, at_t["band"], mid, title_band(t.min, t.max), 7.0, align="right")
    return y0 - n * g.pitch


def title_band(low: int | None, high: int | None) -> str:
    """A score title's band as printed: '50 or less', '51–75', '200+'."""
    if low is None:
        return f"{high} or less"
    if high is None:
        return f"{low}+"
    return f"{low}{fonts.sym('–', '-')}{high}"


def draw_footer(sheet: Sheet, rules: Rules) -> None:
    bx, by, bw, bh = sheet.bottom_band
    mid_x = bx + bw / 2
    text(sheet, mid_x, by + bh - 12.0,
         f"Executed box: {fonts.sym('✗', 'X')} = success, {fonts.sym('╱', '/')} = failed.  "
         "Cross every other box you earn; a box showing a number scores it.  "
         "Roll all your pool dice once per mission.",
         MIN_TEXT, fonts.REGULAR, MUTED, "centre", width=bw)
    text(sheet, mid_x, by + bh - 21.0,
         f"{rules.edition_label}  ·  sheet {sheet.code}", MIN_TEXT, fonts.BOLD, MUTED,
         "centre", width=bw)
    text(sheet, mid_x, by + 3.0,
         "The One Page In A Life series pays homage to Grandmother Opal, who taught the "
         "author his first dice games.", MIN_TEXT, fonts.ITALIC, MUTED, "centre", width=bw)


def draw_career(sheet: Sheet) -> None:
    """Draw the OPIAL career page for `sheet.edition` into `sheet.frame`."""
    rules = load_rules(sheet.edition)
    g = Geometry.of(sheet)
    draw_header(sheet, rules)
    y = draw_tours(sheet, rules, g, g.top) - GAP
    y = draw_promotion(sheet, rules, g, y) - GAP
    left_w = round(g.width - 10 - SKILLS_WIDTH, 1)
    right_x = g.x + left_w + 10
    right_w = g.width - left_w - 10
    skills_end = draw_skills(sheet, rules, g, right_x, right_w, y)
    ranks_end = draw_ranks(sheet, rules, g, g.x, left_w, y)
    draw_options(sheet, rules, g, g.x, left_w, ranks_end - 4.0, skills_end)
    y = skills_end - GAP
    y = draw_missions(sheet, rules, g, y) - GAP
    medals_end = draw_medals(sheet, rules, g, g.x, left_w, y)
    score_end = draw_score(sheet, rules, g, right_x, right_w, y)
    draw_legend(sheet, g, g.x, medals_end - 1.0, score_end)
    draw_footer(sheet, rules)


CAREER = register(SheetKind(
    id=KIND_ID,
    title="OPIAL career page",
    draw=draw_career,
    editions=("later", "earlier"),
    default_edition="later",
    papers=("letter", "a4"),
    aliases=("career",),
    normalise_edition=normalise_edition,
))
