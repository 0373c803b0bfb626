"""`starsheets odds opial`: exact odds of an OPIAL mission, its medal and survival rolls."""

from __future__ import annotations

import click

from game.opial.rules import load_rules, normalise_edition
from starsheets import io
from starsheets.commands.odds import odds
from starsheets.errors import ExitCode, UsageError

MOD_KINDS = {"die_bonus": None, "flip_opposite": "nav", "flip_six": "strat", "colour_swap": "liaison"}
COLOUR_MOD = {"K": "lead", "G": "eng", "B": "adm", "R": "gun"}


def _lookup(items: dict[str, object], key: str, what: str) -> object:
    k = key.strip().lower().replace(" ", "_").replace("-", "_")
    for cand in (k, *[i for i in items if i.startswith(k)]):
        if cand in items:
            return items[cand]
    raise UsageError(f"unknown {what} '{key}'", f"Choose one of: {', '.join(items)}.")


@odds.command("opial")
@click.argument("mission")
@click.option("--rank", required=True, help="Rank name, id or grade (e.g. lieutenant, O-3).")
@click.option("--skill", "skills", multiple=True, metavar="NAME=LEVEL",
              help="A skill level, repeatable (e.g. --skill computer=2 --skill leadership=1).")
@click.option("--edition", default=None, metavar="later|earlier")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object on stdout.")
def opial(mission: str, rank: str, skills: tuple[str, ...], edition: str | None,
          as_json: bool) -> ExitCode:
    """Exact chance of an OPIAL MISSION at a rank, with skills used optimally."""
    from game.opial.odds import Mods, medal_success, mission_success, single_die_success

    rules = load_rules(normalise_edition(edition))
    m = _lookup({x.id: x for x in rules.missions}, mission, "mission")
    ranks = {r.id: r for r in rules.ranks} | {r.grade.lower(): r for r in rules.ranks}
    rk = _lookup(ranks, rank, "rank")
    levels: dict[str, int] = {}
    for item in skills:
        name, _, value = item.partition("=")
        sk = _lookup({s.id: s for s in rules.skills}, name, "skill")
        if not value.strip().isdigit() or not 0 <= int(value) <= sk.max_level:
            raise UsageError(f"bad level in '{item}'",
                             f"{sk.name} takes a level from 0 to {sk.max_level}.")
        levels[sk.id] = int(value)
    if rk.index < m.min_rank:
        raise UsageError(f"{m.name} needs {rules.ranks[m.min_rank].name} or higher",
                         "Choose a higher --rank.")
    if not rk.pool:
        raise UsageError(f"{rk.name} has no dice pool (a desk at Federation Command)",
                         "Choose a rank below Grand Admiral.")
    by_kind = {s.kind + (s.colour or ""): levels.get(s.id, 0) for s in rules.skills}
    pool = [rk.pool.count(c) + by_kind.get(f"extra_die{c}", 0) for c in "BGR"]
    mods = Mods(lead=by_kind["die_bonusK"], eng=by_kind["die_bonusG"], adm=by_kind["die_bonusB"],
                gun=by_kind["die_bonusR"], nav=by_kind["flip_opposite"],
                strat=by_kind["flip_six"], liaison=by_kind["colour_swap"])
    comp = by_kind["reroll"]
    p = mission_success(m, (pool[0], pool[1], pool[2]), mods, comp)
    surv = single_die_success(m.survival, by_kind["survival_bonus"], comp)
    medal = medal_success(m.medal.targets, by_kind["medal_bonus"], comp) if m.medal else None
    out = {"mission": m.id, "rank": rk.id, "edition": rules.edition,
           "pool": {"blue": pool[0], "green": pool[1], "red": pool[2]}, "skills": levels,
           "success": p, "failure": 1 - p, "survival": surv, "medal": medal,
           "note": "each roll may use every Computer re-roll; in play they are one budget "
                   "per mission shared by the mission, medal and survival rolls"}
    if as_json:
        click.echo(io.dump_json(out), nl=False)
        return ExitCode.OK
    need = ", ".join(r.label() for r in m.roll)
    extra = sum(pool) - len(rk.pool)
    click.echo(f"{m.name} as {rk.name} ({rk.pool}{f' +{extra}' if extra else ''} dice), "
               f"needs {need}")
    click.echo(f"  mission roll succeeds  {100 * p:7.3f}%")
    if medal is not None:
        auto = " (a success awards one automatically)" if m.medal.automatic else ""
        click.echo(f"  medal roll made        {100 * medal:7.3f}%{auto}")
    click.echo(f"  survival roll made     {100 * surv:7.3f}%")
    return ExitCode.OK
