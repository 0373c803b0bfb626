"""OPIAL career commands: score, validate, play, simulate, schema."""

from __future__ import annotations

import collections
import json
import time
from typing import Any

import click

from game.opial.rules import Rules, load_rules, normalise_edition
from game.opial.scoring import Score, score
from game.opial.state import CareerState
from game.opial.validate import Finding, has_errors, validate
from starsheets import io
from starsheets.errors import ExitCode, InputFileError, UsageError
from starsheets.progress import bar

EDITION = click.option("--edition", default=None, metavar="later|earlier",
                       help="OPIAL revision (default: the file's, else later).")
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")


def load_state(path: str) -> CareerState:
    """A career state from a JSON/YAML file or a filled fillable career PDF."""
    raw = io.read_bytes(path, "career file")
    if raw[:5] == b"%PDF-":
        from game.opial.marks import marks_to_state
        from sheets.fillable import read_fillable

        kind, edition, marks = read_fillable(path)
        if not str(kind).lower().startswith("opial"):
            raise InputFileError(f"{path} is a {kind} form, not an OPIAL career page",
                                 "Give a career page (starsheets print career --fillable).")
        return marks_to_state(marks, load_rules(edition))
    return CareerState.from_dict(io.load_data_file(path, "career state file"), str(path))


def _rules_for(state: CareerState, edition: str | None) -> Rules:
    return load_rules(normalise_edition(edition) if edition else state.edition)


def _print_score(sc: Score) -> None:
    width = max(len(ln.label) for ln in sc.lines)
    for ln in sc.lines:
        if ln.key == "total":
            click.echo("-" * (width + 8))
        click.echo(f"{ln.label:<{width}}  {ln.points:>5}   {ln.detail}")
    click.echo(f"\n{sc.title}: {sc.quip}")


def _print_page(state: CareerState, rules: Rules) -> None:
    """The page's boxes, compactly (what the player has ticked)."""
    click.echo(f"Page of {state.name or 'an unnamed officer'}:")
    click.echo(f"  tours checked {len(state.tours)}; missions per tour "
               f"{' '.join(str(n) for n in state.tour_missions)}")
    rank = rules.rank_for(state.promotion_points)
    click.echo(f"  promotion track to box {state.promotion_points} ({rank.name})")
    flown = [f"{rules.mission(k).name} {v}" for k, v in state.missions.items()]
    click.echo(f"  executed (S success, F failed): {', '.join(flown) or 'none'}")
    skills = [f"{rules.skill(k).name} {len(v)}" for k, v in state.skills.items()]
    click.echo(f"  skills: {', '.join(skills) or 'none'}")
    medals = [f"{rules.medal(k).name} {len(v)}" for k, v in state.medals.items()]
    click.echo(f"  medals: {', '.join(medals) or 'none'}; discipline {len(state.discipline)}; "
               f"clone uses {len(state.clone)}")


def _print_findings(findings: list[Finding]) -> None:
    if not findings:
        click.echo("No findings: the page is consistent with the rules.")
    for f in findings:
        boxes = f" [{', '.join(f.boxes[:6])}{'...' if len(f.boxes) > 6 else ''}]" if f.boxes else ""
        click.echo(f"{f.severity.upper():7} {f.code}: {f.message}.{boxes}")
        if f.fix:
            click.echo(f"        -> {f.fix}")


@click.command("score")
@click.argument("file", type=click.Path(dir_okay=True))
@EDITION
@AS_JSON
def score_cmd(file: str, edition: str | None, as_json: bool) -> ExitCode:
    """Score a career page (state file, or a filled fillable PDF)."""
    state = load_state(file)
    rules = _rules_for(state, edition)
    sc = score(state, rules)
    misc = [f for f in validate(state, rules) if f.code == "score-miscount"]
    if as_json:
        out = sc.to_dict()
        out.update(edition=rules.edition, name=state.name,
                   written_checks=[f.to_dict() for f in misc])
        click.echo(io.dump_json(out), nl=False)
    else:
        click.echo(f"{state.name or 'Unnamed officer'} - {rules.edition_label}\n")
        _print_score(sc)
        if misc:
            click.echo("")
            _print_findings(misc)
    return ExitCode.OK


def validate_career(file: str, edition: str | None, as_json: bool) -> ExitCode:
    state = load_state(file)
    rules = _rules_for(state, edition)
    findings = validate(state, rules)
    if as_json:
        click.echo(io.dump_json({"valid": not has_errors(findings), "edition": rules.edition,
                                 "findings": [f.to_dict() for f in findings]}), nl=False)
    else:
        _print_findings(findings)
    return ExitCode.FINDINGS if has_errors(findings) else ExitCode.OK


@click.command("validate")
@click.argument("args", nargs=-1, required=True, metavar="[character|setting] FILE...")
@EDITION
@AS_JSON
def validate_cmd(args: tuple[str, ...], edition: str | None, as_json: bool) -> ExitCode:
    """Check a page against the rules: an OPIAL career page (default), or a Spacer
    `character` or `setting` form (a file, a filled PDF, or photos: one per page)."""
    if len(args) >= 2 and args[0] in ("character", "setting"):
        from starsheets.commands import spacer

        run = spacer.run_validate_character if args[0] == "character" else spacer.run_validate_setting
        return run(args[1] if len(args) == 2 else list(args[1:]), as_json)
    if len(args) != 1:
        raise UsageError(f"unexpected arguments: {' '.join(args)}",
                         "Use: starsheets validate FILE, or validate character|setting FILE.")
    return validate_career(args[0], edition, as_json)


@click.command("play")
@click.option("--seed", type=int, default=None, help="Dice seed (default: random).")
@EDITION
@click.option("--length", type=click.Choice(["career", "short"]), default="career")
@click.option("--start", type=click.Choice(["roll", "easier", "easier_yet", "still_easier_yet"]),
              default="roll", help="Starting-skill option.")
@click.option("--name", default="Dan", help="The officer's name.")
@click.option("--out", "out", type=click.Path(dir_okay=False), help="Save the final page state.")
@AS_JSON
def play_cmd(seed: int | None, edition: str | None, length: str, start: str, name: str,
             out: str | None, as_json: bool) -> ExitCode:
    """Play one career with a sensible policy, narrated turn by turn, and score it."""
    import numpy as np

    from game.opial.narrate import narrate
    from game.opial.simulate import play_one, to_state

    seed = int(np.random.default_rng().integers(2**31)) if seed is None else seed
    inp, res, events = play_one(seed, normalise_edition(edition), length, start)
    state = to_state(inp, res, 0, name=name)
    rules = inp.t.rules
    sc = score(state, rules)
    if out:
        io.write_text(out, io.dump_json(state.to_dict()))
    if as_json:
        click.echo(io.dump_json({"seed": seed, "narration": list(narrate(events, rules, name)),
                                 "state": state.to_dict(), "score": sc.to_dict()}), nl=False)
        return ExitCode.OK
    click.echo(f"One Page In A Life - {rules.edition_label}; seed {seed}")
    for line in narrate(events, rules, name):
        click.echo(line)
    click.echo("")
    _print_page(state, rules)
    click.echo("")
    _print_score(sc)
    if out:
        click.echo(f"\nState saved to {out}", err=True)
    return ExitCode.OK


def _summary(inp: Any, res: Any, n: int) -> dict[str, Any]:
    import numpy as np

    from game.opial.engine import END_NAMES, GRAND_ADMIRAL
    from game.opial.simulate import totals as career_totals

    rules = inp.t.rules
    totals = career_totals(inp, res)
    titles: collections.Counter[str] = collections.Counter()
    values, counts = np.unique(totals, return_counts=True)
    for v, c in zip(values.tolist(), counts.tolist(), strict=True):
        titles[rules.title_for(v).name] += c
    end = res.misc[:, 5]
    ga = end == GRAND_ADMIRAL
    edges = list(range(-25, 276, 25))
    hist, _ = np.histogram(np.clip(totals, edges[0], edges[-1] - 1), bins=edges)
    return {
        "careers": n,
        "histogram": [{"from": int(a), "to": int(a) + 24, "share": float(h) / n}
                      for a, h in zip(edges[:-1], hist, strict=True)],
        "total": {"mean": round(float(totals.mean()), 2), "min": int(totals.min()),
                  "p10": float(np.percentile(totals, 10)), "median": float(np.median(totals)),
                  "p90": float(np.percentile(totals, 90)), "max": int(totals.max())},
        "titles": {t.name: titles[t.name] / n for t in rules.titles},
        "grand_admiral": {"share": float(ga.mean()),
                          "by_tour": {int(k): v / n for k, v in
                                      sorted(collections.Counter(res.misc[ga, 6].tolist()).items())}},
        "end": {END_NAMES[int(k)]: v / n for k, v in sorted(collections.Counter(end.tolist()).items())},
        "final_rank": {rules.ranks[int(k)].name: v / n for k, v in
                       sorted(collections.Counter(res.misc[:, 1].tolist()).items())},
    }


@click.command("simulate")
@click.option("-n", "n", type=click.IntRange(1, 100_000_000), default=10_000, show_default=True,
              help="Number of careers.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", type=click.IntRange(1, 256), default=None, help="Threads (default: all).")
@EDITION
@click.option("--length", type=click.Choice(["career", "short"]), default="career")
@click.option("--start", type=click.Choice(["roll", "easier", "easier_yet", "still_easier_yet"]),
              default="roll")
@AS_JSON
def simulate_cmd(n: int, seed: int, jobs: int | None, edition: str | None, length: str,
                 start: str, as_json: bool) -> ExitCode:
    """Simulate N careers; print the distribution of totals and titles, the share reaching
    Grand Admiral and by which tour, and how careers end."""
    from game.opial.simulate import run

    t0 = time.perf_counter()
    with bar(n, "careers", "career") as b:
        inp, res = run(n, seed, normalise_edition(edition), length, start, jobs, b.update)
    played = time.perf_counter() - t0
    summary = _summary(inp, res, n)
    summary["seconds"] = round(played, 3)
    if as_json:
        click.echo(io.dump_json(summary), nl=False)
        return ExitCode.OK
    t = summary["total"]
    click.echo(f"{n} careers ({length}, {inp.t.rules.edition} edition, seed {seed}) "
               f"in {played:.2f} s")
    click.echo(f"Total: mean {t['mean']}, median {t['median']:.0f}, 10%-90% "
               f"{t['p10']:.0f}-{t['p90']:.0f}, range {t['min']}-{t['max']}")
    click.echo("Totals:")
    for b in summary["histogram"]:
        if b["share"]:
            click.echo(f"  {b['from']:>4} to {b['to']:>4} {100 * b['share']:6.2f}%  "
                       f"{'#' * round(60 * b['share'])}")
    click.echo("Titles:")
    for name, share in summary["titles"].items():
        click.echo(f"  {name:<10} {100 * share:6.2f}%  {'#' * round(60 * share)}")
    ga = summary["grand_admiral"]
    click.echo(f"Grand Admiral: {100 * ga['share']:.2f}% of careers; by tour: "
               + ", ".join(f"{k}: {100 * v:.1f}%" for k, v in ga["by_tour"].items()))
    click.echo("Careers ended: " + ", ".join(f"{k} {100 * v:.1f}%" for k, v in summary["end"].items()))
    return ExitCode.OK


@click.command("schema")
@click.argument("kind", type=click.Choice(["career", "character", "setting"]))
def schema_cmd(kind: str) -> None:
    """Print the JSON Schema of a file format."""
    if kind == "career":
        from game.opial.state import schema

        click.echo(json.dumps(schema(), indent=2))
    else:
        from importlib import resources

        import templates

        doc = resources.files(templates).joinpath(f"schemas/spacer-{kind}.schema.json")
        click.echo(doc.read_text(encoding="utf-8"), nl=False)


CAREER_COMMANDS = [score_cmd, validate_cmd, play_cmd, simulate_cmd, schema_cmd]
