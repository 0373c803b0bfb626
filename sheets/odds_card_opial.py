"""The OPIAL odds card: every mission at every rank, medal and survival rolls.

Tables (exact, from game.opial.odds through the persistent cache game.opial.odds_cache):
  * mission roll succeeds, every mission (rows) at every rank from its minimum up to Vice
    Admiral (columns), without skills;
  * the same with the card's typical skill set, TYPICAL (Computer 2 + Leadership 2;
    why: TYPICAL_WHY, printed on the card);
  * medal roll made, by Courage and Computer; survival roll made, by Fitness and Computer.

The odds are the same in both editions (they differ only in the Rank Bonus), so the card
has one edition; `--edition later|earlier` is accepted and prints the same card.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from game.opial.rules import Mission, Rank, Rules, load_rules, normalise_edition
from sheets import fonts
from sheets.draw import ACCENT, DICE, MIN_TEXT, Sheet, text_mid
from sheets.odds_card import (
    DASH,
    PCT_NOTE,
    Block,
    Head,
    HeatTable,
    Lead,
    Notes,
    draw_card,
)
from sheets.registry import SheetKind, register
from sheets.spacer_draw import wide

if TYPE_CHECKING:  # numpy/numba stay out of the registry's import
    from game.opial.odds import Mods
    from game.opial.odds_cache import Key, OddsCache

KIND_ID = "opial-odds-card"
EDITION = "default"

# The card's "typical" officer (printed on the card with TYPICAL_WHY).
TYPICAL: tuple[tuple[str, int], ...] = (("computer", 2), ("leadership", 2))
TYPICAL_WHY = (
    "Typical officer: Computer 2 + Leadership 2, the two skills that help every mission. "
    "Computer comes first (Communications, a Cadet mission, teaches it; the sensible "
    "player of starsheets simulate has all four levels by Lieutenant), but its re-rolls "
    "are one budget per mission for the mission, medal and survival rolls, so 2 is what a "
    "careful officer spends on the mission roll. Leadership (+1 to any die; from Aid, "
    "Patrol and Sector Command) reaches 2 around Lieutenant Commander. Colour skills and "
    "extra dice help only some missions and are left out.")
REROLL_NOTE = (
    "Each number is the chance of that roll alone, with every Computer re-roll spent on it "
    "and every skill used in the best way (solved exactly). In play the re-rolls are one "
    "budget per mission, shared by the mission, medal and survival rolls (docs/rules.md O7): "
    "re-rolls spent on the mission roll are gone for the medal and survival rolls.")


def rules() -> Rules:
    return load_rules(normalise_edition(None))


def ranks_with_pool(r: Rules) -> tuple[Rank, ...]:
    """Cadet .. Vice Admiral (Grand Admiral rolls no dice: O3)."""
    return tuple(rank for rank in r.ranks if rank.pool)


def roll_setup(r: Rules, rank: Rank, levels: dict[str, int]) -> tuple[tuple[int, int, int],
                                                                      Mods, int]:
    """(pool as blue, green, red; Mods; Computer re-rolls) of a rank with skill levels:
    the mapping of `starsheets odds opial`."""
    from game.opial.odds import Mods

    by_kind = {s.kind + (s.colour or ""): levels.get(s.id, 0) for s in r.skills}
    pool = tuple(rank.pool.count(c) + by_kind.get(f"extra_die{c}", 0) for c in "BGR")
    mods = Mods(lead=by_kind["die_bonusK"], eng=by_kind["die_bonusG"],
                adm=by_kind["die_bonusB"], gun=by_kind["die_bonusR"],
                nav=by_kind["flip_opposite"], strat=by_kind["flip_six"],
                liaison=by_kind["colour_swap"])
    return (pool[0], pool[1], pool[2]), mods, by_kind["reroll"]


SKILL_SETS: tuple[tuple[str, dict[str, int]], ...] = (("none", {}), ("typical", dict(TYPICAL)))


def needed_keys(r: Rules) -> list[Key]:
    """Every success_by_rerolls entry the card reads (mission and medal tables)."""
    from game.opial.odds_cache import medal_key, mission_key

    keys = []
    for _name, levels in SKILL_SETS:
        for m in r.missions:
            for rank in ranks_with_pool(r)[m.min_rank:]:
                pool, mods, _ = roll_setup(r, rank, levels)
                keys.append(mission_key(m, pool, mods))
    for m in r.missions:
        for lead in MIN_RANK_LEADERSHIP:
            pool, mods, _ = roll_setup(r, ranks_with_pool(r)[m.min_rank], {"leadership": lead})
            keys.append(mission_key(m, pool, mods))
    for targets, _a, _ms in medal_rolls(r):
        for courage in level_range(r, "courage"):
            key = medal_key(targets, courage)
            if key is not None:
                keys.append(key)
    return keys


def mission_grid(r: Rules, levels: dict[str, int], cache: OddsCache
                 ) -> tuple[tuple[float | None, ...], ...]:
    """rows = missions, columns = ranks Cadet..Vice Admiral; None below the minimum rank."""
    rows = []
    for m in r.missions:
        row: list[float | None] = []
        for rank in ranks_with_pool(r):
            if rank.index < m.min_rank:
                row.append(None)
                continue
            pool, mods, comp = roll_setup(r, rank, levels)
            row.append(cache.mission_success(m, pool, mods, comp))
        rows.append(tuple(row))
    return tuple(rows)


MIN_RANK_LEADERSHIP = (0, 2)  # the Leadership groups of the minimum-rank table


def min_rank_grid(r: Rules, cache: OddsCache) -> tuple[tuple[float, ...], ...]:
    """rows = missions at their minimum rank, columns = Leadership (MIN_RANK_LEADERSHIP,
    groups) x Computer 0..max: what each re-roll and +1 is worth."""
    ranks = ranks_with_pool(r)
    rows = []
    for m in r.missions:
        row = []
        for lead in MIN_RANK_LEADERSHIP:
            for comp in level_range(r, "computer"):
                pool, mods, c = roll_setup(r, ranks[m.min_rank],
                                           {"leadership": lead, "computer": comp})
                row.append(cache.mission_success(m, pool, mods, c))
        rows.append(tuple(row))
    return tuple(rows)


def level_range(r: Rules, skill_id: str) -> range:
    return range(r.skill(skill_id).max_level + 1)


def medal_rolls(r: Rules) -> list[tuple[tuple[int, ...], bool, list[Mission]]]:
    """Distinct medal rolls (lowest first): targets, automatic, the missions that use it."""
    out: dict[tuple[int, ...], tuple[bool, list[Mission]]] = {}
    for m in r.missions:
        if m.medal:
            _auto, ms = out.setdefault(m.medal.targets, (m.medal.automatic, []))
            ms.append(m)
    return [(t, a, ms) for t, (a, ms) in sorted(out.items())]


def medal_grid(r: Rules, cache: OddsCache) -> tuple[tuple[float, ...], ...]:
    """rows = medal rolls, columns = Courage 0..max (groups) x Computer 0..max."""
    return tuple(tuple(cache.medal_success(t, courage, comp)
                       for courage in level_range(r, "courage")
                       for comp in level_range(r, "computer"))
                 for t, _a, _ms in medal_rolls(r))


def survival_targets(r: Rules) -> list[int]:
    return sorted({m.survival for m in r.missions})


def survival_grid(r: Rules) -> tuple[tuple[float, ...], ...]:
    """rows = survival numbers, columns = Fitness 0..max (groups) x Computer 0..max."""
    from game.opial.odds import single_die_success

    return tuple(tuple(single_die_success(t, fit, comp)
                       for fit in level_range(r, "fitness")
                       for comp in level_range(r, "computer"))
                 for t in survival_targets(r))


# --- labels ------------------------------------------------------------------------------------
def roll_label(m: Mission) -> str:
    return " ".join(f"{q.target}+{'' if q.colour == 'K' else q.colour}" for q in m.roll)


def medal_label(targets: tuple[int, ...], automatic: bool = False) -> str:
    return " ".join(f"{t}+" for t in targets) + ("*" if automatic else "")


def skills_label(r: Rules, levels: Iterable[tuple[str, int]]) -> str:
    return " + ".join(f"{r.skill(k).name} {v}" for k, v in levels)


def rank_head(r: Rules) -> Callable[[Sheet, int, float, float, float, float], None]:
    """Column heading of a rank: its grade over its dice pool as small coloured squares."""
    ranks = ranks_with_pool(r)

    def draw(sheet: Sheet, col: int, x: float, y: float, w: float, h: float) -> None:
        rank = ranks[col]
        text_mid(sheet, x + w / 2, y + h - 5.0, rank.grade, MIN_TEXT, fonts.BOLD, ACCENT,
                 "centre", width=w - 2)
        n = len(rank.pool)
        s = min(3.4, (w - 3) / n - 0.5)
        total = n * s + (n - 1) * 0.5
        cx = x + (w - total) / 2
        c = sheet.c
        c.saveState()
        for colour in rank.pool:
            c.setFillColor(DICE[colour])
            c.rect(cx, y + 2.2, s, s, stroke=0, fill=1)
            cx += s + 0.5
        c.restoreState()

    return draw


# --- the card ----------------------------------------------------------------------------------
def mission_table(r: Rules, title: str, hint: str, grid: tuple[tuple[float | None, ...], ...],
                  with_roll: bool) -> HeatTable:
    leads = [Lead("Mission", tuple(m.name for m in r.missions), bold=True)]
    if with_roll:
        leads.append(Lead("Roll (B G R: a die of that colour)",
                          tuple(roll_label(m) for m in r.missions), dice=True))
    leads += [Lead("Medal", tuple(medal_label(m.medal.targets, m.medal.automatic) if m.medal
                                  else DASH for m in r.missions), align="centre"),
              Lead("Surv.", tuple(f"{m.survival}+" for m in r.missions), align="centre")]
    ranks = ranks_with_pool(r)
    return HeatTable(title=title, hint=hint, leads=tuple(leads),
                     groups=(("", tuple(rank.grade for rank in ranks)),), values=grid,
                     head=rank_head(r), head_h=17.0)


def grouped_table(title: str, hint: str, lead: Lead, group: str, groups: range,
                  computer: range, grid: tuple[tuple[float, ...], ...]) -> HeatTable:
    return HeatTable(
        title=title, hint=hint, leads=(lead,),
        groups=tuple((f"{group} {g}", tuple(str(k) for k in computer)) for g in groups),
        values=grid, corner="re-rolls →")


def card_blocks(sheet: Sheet, cache: OddsCache) -> list[Block]:
    r = rules()
    big = wide(sheet)
    none = mission_grid(r, {}, cache)
    typical = mission_grid(r, dict(TYPICAL), cache)
    ranks = ranks_with_pool(r)
    comp = level_range(r, "computer")
    medal = medal_rolls(r)
    surv = survival_targets(r)
    rank_names = " · ".join(f"{k.grade} {k.name}" for k in ranks)
    blocks: list[Block] = [
        mission_table(r, "Mission roll succeeds: no skills", "% by rank: grade and dice pool",
                      none, big),
        mission_table(r, f"Mission roll succeeds: {skills_label(r, TYPICAL)}",
                      "% by rank · typical officer (see below)", typical, big),
        Notes((f"Ranks: {rank_names}. Blank: below the mission's minimum rank. "
               f"{DASH}: cannot succeed: a 7+ or 8+ needs +1s (Leadership or a colour "
               "skill), or the rank's pool has too few dice of a colour the roll needs "
               "(O-7 has one green die, O-8 and O-9 none: Liaison or Alien Tech).",
               TYPICAL_WHY, REROLL_NOTE, PCT_NOTE)),
        HeatTable(
            title="At the minimum rank: re-rolls and +1s",
            hint="% by Leadership (groups) and Computer re-rolls (columns)",
            leads=(Lead("Mission", tuple(m.name for m in r.missions), bold=True),
                   Lead("Rank", tuple(ranks[m.min_rank].grade for m in r.missions),
                        align="centre")),
            groups=tuple((f"Leadership {lead}", tuple(str(k) for k in comp))
                         for lead in MIN_RANK_LEADERSHIP),
            values=min_rank_grid(r, cache), corner="re-rolls →"),
        grouped_table("Medal roll made",
                      "after a successful mission · % by Courage (groups) and Computer "
                      "re-rolls (columns)",
                      Lead("Medal roll", tuple(medal_label(t, a) for t, a, _ in medal),
                           bold=True),
                      "Courage", level_range(r, "courage"), comp, medal_grid(r, cache)),
        grouped_table("Survival roll made",
                      "after every mission · % by Fitness (groups) and Computer re-rolls "
                      "(columns)",
                      Lead("Survival", tuple(f"{t}+" for t in surv), bold=True),
                      "Fitness", level_range(r, "fitness"), comp, survival_grid(r)),
        Notes(("Medal roll: two dice, each plus Courage must make the number (colour does "
               "not matter). * Sector Command and War Command award a Starburst on success "
               "whatever the roll; making the roll awards a second.",
               "Medal rolls by mission: " + "; ".join(
                   f"{medal_label(t, a)} {', '.join(m.name for m in ms)}"
                   for t, a, ms in medal) + ".",
               "Survival roll: one die plus Fitness must make the number, after every "
               "mission; each Clone level ignores one failed roll (twice a career).",
               "Computer: each level re-rolls one die once per mission, decided after "
               "seeing the dice; the same die may be re-rolled again.")),
    ]
    return blocks


def draw(sheet: Sheet) -> None:
    from game.opial.odds_cache import OddsCache

    cache = OddsCache.open()
    blocks = card_blocks(sheet, cache)
    cache.save()
    head = Head(game="OPIAL", title="Odds card",
                subtitle="Exact chances of every roll, skills used in the best way",
                footer_note="One roll with all its re-rolls; in play the Computer "
                            "re-rolls are one budget per mission (O7).",
                credit="The One Page In A Life series pays homage to Grandmother Opal · "
                       "card by starsheets")
    draw_card(sheet, head, blocks)


def prepare(on_done: Callable[[int], None] | None = None,
            workers: int | None = None) -> tuple[int, int]:
    """Fill the persistent cache with everything the card reads (in parallel); returns
    (entries computed, entries needed). `print odds-card --system opial` calls it first,
    with a progress bar, so the drawing itself only reads the cache."""
    from game.opial.odds_cache import OddsCache

    cache = OddsCache.open()
    keys = needed_keys(rules())
    todo = len(cache.missing(keys))
    if todo:
        try:
            cache.fill(keys, workers=workers, on_done=on_done)
        finally:
            cache.save()  # what was computed is kept, even when interrupted
    return todo, len(set(keys))


def missing_count() -> int:
    from game.opial.odds_cache import OddsCache

    return len(OddsCache.open().missing(needed_keys(rules())))


def _edition(edition: str | None) -> str:
    """Any OPIAL edition prints the same card (the odds do not depend on it)."""
    if edition is not None and str(edition).lower() != EDITION:
        normalise_edition(edition)  # UsageError for an unknown one
    return EDITION


CARD = register(SheetKind(
    id=KIND_ID,
    title="OPIAL odds card",
    draw=draw,
    editions=(EDITION,),
    default_edition=EDITION,
    papers=("letter", "a4", "half-letter", "a5"),
    aliases=("odds-card-opial", "opial-odds"),
    normalise_edition=_edition,
))

