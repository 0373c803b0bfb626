"""Spacer character and setting files: validate them, and make new characters.

`run_validate_character` and `run_validate_setting` are what `starsheets validate
character|setting FILE [--json]` runs (the `validate` command itself dispatches to them);
`starsheets new character` writes a random legal character.
"""

from __future__ import annotations

import secrets
from typing import Any

import click
import yaml

from game.spacer.character import Character
from game.spacer.creation import CharacterReport, validate_character
from game.spacer.findings import ERROR, READINGS, WARNING, Finding, plural
from game.spacer.generate import generate
from game.spacer.setting import Setting, validate_setting
from starsheets.errors import ExitCode
from starsheets.io import dump_json, write_text


def load_character(path: str | list[str], notes: list[str] | None = None) -> Character:
    """Read and schema-check a character file (JSON or YAML), or read a filled fillable
    Character Form (PDF), or a photo or scan of a filled form."""
    from game.spacer import readers

    return readers.load_character(path, notes)


def load_setting(path: str | list[str], notes: list[str] | None = None) -> Setting:
    """Read a setting file (JSON or YAML), a filled fillable Setting Form (PDF), or a
    photo or scan of a filled form."""
    from game.spacer import readers

    return readers.load_setting(path, notes)


def _scan_notes(notes: list[str]) -> None:
    """What the scanner was unsure of (a photo or scan), on stderr."""
    for n in notes:
        click.echo(f"note: {n}", err=True)


def _to_review(notes: list[str]) -> bool:
    """True if a photo's reading left boxes or fields for a person to check."""
    return any("to check on the form" in n for n in notes)


def provisional(notes: list[str]) -> str:
    """What follows the form's verdict when a photo's reading left boxes or fields to
    check: the findings were worked out from their most likely values."""
    if _to_review(notes):
        return " (provisional: the photo left boxes or fields to check, noted above)"
    return ""


def _readings(findings: tuple[Finding, ...]) -> dict[str, str]:
    ids = sorted({r for f in findings for r in f.readings}, key=lambda s: int(s[1:]))
    return {i: READINGS[i] for i in ids}


def _tally(findings: tuple[Finding, ...]) -> str:
    e = sum(1 for f in findings if f.severity == ERROR)
    w = sum(1 for f in findings if f.severity == WARNING)
    return f"{plural(e, 'error')}, {plural(w, 'warning')}"


def _headline(char: Character, report: CharacterReport) -> str:
    c = report.computed
    name = char.character or "(unnamed character)"
    bits = [c.get("species") or char.species or "species?", c.get("service", "")]
    if c.get("rank_title"):
        bits.append(f"rank {c['rank']} {c['rank_title']}")
    dept = next((d for d in char.departments if d.name == c.get("current_department")), None)
    if dept is not None:
        bits.append(f"{dept.name} {dept.level}")
    return f"{name} ({', '.join(b for b in bits if b)}; level {char.level})"


def _computed_line(c: dict[str, Any]) -> str:
    parts = []
    for key, label in (("initiative", "Initiative"), ("toughness", "Toughness"),
                       ("leadership", "Leadership"), ("wound_penalty", "Wound penalty"),
                       ("issue_points", "Issue points"), ("personal_points", "Personal points")):
        if key in c:
            parts.append(f"{label} {c[key]}")
    if "bonus_points" in c:
        spent = c.get("bonus_spent", {}).get("total")
        parts.append(f"Bonus points {c['bonus_points']}"
                     + (f" (spent {spent})" if spent is not None else ""))
    return "computed: " + ", ".join(parts) if parts else ""


def run_validate_character(paths: str | list[str], as_json: bool) -> ExitCode:
    """Check a Spacer character file (or the photos of its pages); print findings (text
    or JSON) on stdout."""
    notes: list[str] = []
    char = load_character(paths, notes)
    path = paths if isinstance(paths, str) else " + ".join(paths)
    _scan_notes(notes)
    report = validate_character(char)
    if as_json:
        click.echo(dump_json({
            "kind": "spacer-character", "file": path, "ok": report.ok,
            "errors": report.count(ERROR), "warnings": report.count(WARNING),
            "findings": [f.to_dict() for f in report.findings],
            "computed": report.computed, "readings": _readings(report.findings)}), nl=False)
    else:
        status = "OK" if report.ok else "NOT LEGAL"
        click.echo(f"{path}: {_headline(char, report)}: {status}, {_tally(report.findings)}"
                   f"{provisional(notes)}")
        line = _computed_line(report.computed)
        if line:
            click.echo(f"  {line}")
        for f in sorted(report.findings, key=lambda f: f.severity != ERROR):
            for text in f.lines():
                click.echo(f"  {text}")
    return ExitCode.OK if report.ok and not _to_review(notes) else ExitCode.FINDINGS


def run_validate_setting(paths: str | list[str], as_json: bool) -> ExitCode:
    """Check a Spacer setting file (or the photos of its pages); print the one-page
    summary and the findings."""
    notes: list[str] = []
    setting = load_setting(paths, notes)
    path = paths if isinstance(paths, str) else " + ".join(paths)
    _scan_notes(notes)
    report = validate_setting(setting)
    if as_json:
        click.echo(dump_json({
            "kind": "spacer-setting", "file": path, "ok": report.ok,
            "errors": sum(1 for f in report.findings if f.severity == ERROR),
            "warnings": sum(1 for f in report.findings if f.severity == WARNING),
            "findings": [f.to_dict() for f in report.findings],
            "summary": report.summary}), nl=False)
    else:
        click.echo(report.text, nl=False)
        click.echo("")
        status = "OK" if report.ok else "NOT AGREED YET"
        click.echo(f"{path}: {status}, {_tally(report.findings)}{provisional(notes)}")
        for f in sorted(report.findings, key=lambda f: f.severity != ERROR):
            for text in f.lines():
                click.echo(f"  {text}")
    return ExitCode.OK if report.ok and not _to_review(notes) else ExitCode.FINDINGS


@click.group("new")
def new() -> None:
    """Make new game files (a random legal Spacer character)."""


@new.command("character")
@click.option("--species", "species", metavar="S", default=None,
              help="Human, Sartini, Mrin, K'T'K, Kangid, Rigelian or Khizht (default: any).")
@click.option("--seed", type=int, default=None, metavar="N",
              help="Random seed: the same seed gives the same character.")
@click.option("--officer/--enlisted", "officer", default=None,
              help="Make an officer or an enlisted character (default: the seed decides).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the YAML here instead of stdout.")
def new_character(species: str | None, seed: int | None, officer: bool | None,
                  output: str | None) -> ExitCode:
    """A random legal new Spacer character, as a YAML character file."""
    if seed is None:
        seed = secrets.randbelow(2**31)
        click.echo(f"seed {seed}", err=True)
    char = generate(seed, species, officer=officer)
    text = (f"# Spacer character made by: starsheets new character --seed {seed}"
            + (f" --species \"{char.species}\"" if species else "") + "\n"
            + yaml.safe_dump(char.to_dict(), sort_keys=False, allow_unicode=True, width=100))
    if output:
        write_text(output, text)
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)
    return ExitCode.OK
