"""`starsheets print | layout | fill | read-form`: printable, machine-readable sheets."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

from starsheets.errors import StateFormatError, UsageError
from starsheets.io import dump_json, load_data_file, write_bytes, write_text

PAPER_HELP = ("Paper size: letter or a4 (default letter); the Spacer forms also "
              "half-letter and a5.")
BOOKLET_KIND = "spacer-booklet"
ODDS_CARD = "odds-card"
ODDS_SYSTEMS = {"opial": "opial-odds-card", "spacer": "spacer-odds-card",
                "pool": "pool-odds-card"}
EDITION_HELP = "Rules edition: later (default) or earlier."


def _note(message: str) -> None:
    click.echo(f"starsheets: {message}", err=True)


def _write_pdf(data: bytes, output: str) -> None:
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    write_bytes(output, data)
    _note(f"wrote {output}")


@click.command("print")
@click.argument("sheet", metavar="SHEET")
@click.option("--paper", default="letter", show_default=True, help=PAPER_HELP)
@click.option("--edition", default=None, help=EDITION_HELP)
@click.option("--fillable", is_flag=True, help="Make an AcroForm PDF to fill in a PDF viewer.")
@click.option("-o", "--output", default=None, metavar="FILE",
              help="Where to write the PDF ('-' for stdout); default "
                   "<sheet>-<edition>-<paper>[-fillable].pdf in the current directory "
                   "(no edition for the Spacer forms).")
@click.option("--sheet", "booklet_sheet", default=None, metavar="letter|a4",
              help="spacer-booklet only: the paper the booklet is printed on (default "
                   "letter).")
@click.option("--system", default=None, metavar="opial|spacer|pool",
              help="odds-card only: the game whose odds the card prints.")
def print_sheet(sheet: str, paper: str, edition: str | None, fillable: bool,
                output: str | None, booklet_sheet: str | None, system: str | None) -> None:
    """Print a blank SHEET as a PDF, with fiducials, QR code and layout manifest.

    SHEET: career; setting, character, reference-card (the Spacer forms); or
    spacer-booklet (the three Spacer forms at half-letter, imposed as a saddle-stitched
    booklet on --sheet letter or a4); or odds-card --system opial|spacer|pool (exact
    odds tables and charts, any of the four papers; see docs/odds.md)."""
    from sheets import get_kind, get_paper, render

    if sheet.strip().lower() == BOOKLET_KIND:
        _print_spacer_booklet(output, booklet_sheet or "letter")
        return
    if booklet_sheet is not None:
        raise UsageError("--sheet is for `print spacer-booklet` only",
                         "Use --paper to choose the paper of a sheet.")
    if sheet.strip().lower() == ODDS_CARD:
        sheet = _odds_card_kind(system)
    elif system is not None:
        raise UsageError("--system is for `print odds-card` only",
                         "Use --system with `starsheets print odds-card`.")
    kind = get_kind(sheet)
    if kind.id in ODDS_SYSTEMS.values():
        if fillable:
            raise UsageError("an odds card has nothing to fill in", "Leave out --fillable.")
        kind.edition(edition)  # mistakes are reported before any long computing
        get_paper(paper, kind.papers)
        if kind.id == ODDS_SYSTEMS["opial"]:
            _prepare_opial_odds()
    result = render(kind.id, edition, paper, fillable=fillable)
    if result.overflows:
        _note(f"warning: {len(result.overflows)} text(s) squeezed: {result.overflows[0]}")
    m = result.manifest
    name = kind.aliases[0] if kind.aliases else kind.id
    ed = f"-{m.edition}" if len(kind.editions) > 1 else ""
    default = f"{name}{ed}-{m.paper}{'-fillable' if fillable else ''}.pdf"
    _write_pdf(result.pdf, output or default)


def _odds_card_kind(system: str | None) -> str:
    """The sheet kind of `print odds-card --system S`."""
    choices = ", ".join(ODDS_SYSTEMS)
    if system is None:
        raise UsageError("print odds-card needs --system", f"Use --system with one of: {choices}.")
    key = system.strip().lower()
    if key not in ODDS_SYSTEMS:
        raise UsageError(f"unknown --system '{system}'", f"Use one of: {choices}.")
    return ODDS_SYSTEMS[key]


def _prepare_opial_odds() -> None:
    """Fill the persistent cache of exact OPIAL odds (once; with a progress bar)."""
    from game.opial.odds_cache import default_path
    from sheets.odds_card_opial import missing_count, prepare
    from starsheets.progress import bar

    todo = missing_count()
    if not todo:
        return
    _note(f"computing {todo} exact OPIAL roll odds once (cached in {default_path().parent})")
    with bar(todo, "OPIAL odds", "roll") as b:
        prepare(on_done=b.update)


def _print_spacer_booklet(output: str | None, sheet: str) -> None:
    from sheets.spacer_booklet import spacer_booklet_pdf

    booklet = spacer_booklet_pdf(sheet)
    _write_pdf(booklet.pdf, output or f"spacer-booklet-{sheet}.pdf")
    _note(f"{booklet.pages} booklet pages on {booklet.sheets} sheet(s) of {sheet}: print "
          "duplex, flip on the short edge, fold and staple")


@click.command("layout")
@click.argument("sheet", metavar="SHEET")
@click.option("--paper", default="letter", show_default=True, help=PAPER_HELP)
@click.option("--edition", default=None, help=EDITION_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the layout manifest as JSON.")
def layout_command(sheet: str, paper: str, edition: str | None, as_json: bool) -> None:
    """Show the layout manifest of SHEET: every mark region's id, kind and rect."""
    from sheets import layout

    m = layout(sheet, edition, paper)
    if as_json:
        click.echo(m.to_json(), nl=False)
        return
    kinds = Counter(r.kind for r in m.regions)
    click.echo(f"{m.code}  {m.kind} ({m.edition}) on {m.paper}, "
               f"{m.page_size[0]:g} x {m.page_size[1]:g} pt, {m.pages} page(s)")
    click.echo(f"regions: {len(m.regions)} (" +
               ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ")")
    click.echo(f"fiducials: {', '.join(f'{f.id}@{f.position}' for f in m.fiducials)}; "
               f"QR {m.qr[0].modules}x{m.qr[0].modules} at {list(m.qr[0].rect)}")
    click.echo("Use --json for the full manifest.")


@click.command("fill")
@click.argument("state_file", metavar="STATE", type=click.Path(path_type=Path))
@click.option("-o", "--output", required=True, metavar="FILE",
              help="Where to write the filled PDF ('-' for stdout).")
@click.option("--style", type=click.Choice(["pen", "clean"]), default="pen", show_default=True,
              help="pen: varied hand marks in blue or black ink; clean: neat crosses.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the pen's variations (same seed, same sheet).")
@click.option("--paper", default="letter", show_default=True, help=PAPER_HELP)
def fill_command(state_file: Path, output: str, style: str, seed: int, paper: str) -> None:
    """Draw a file onto its sheet as a player would mark it: an OPIAL career STATE, a
    Spacer character or a Spacer setting (JSON or YAML; the file's content decides)."""
    from game.opial.rules import load_rules
    from game.opial.state import CareerState
    from sheets import PAPERS, get_kind, get_paper
    from sheets.fill import KIND, fill_pdf
    from sheets.spacer_fill import spacer_file_kind

    try:
        get_paper(paper, get_kind(KIND).papers)
        paper_error = None
    except UsageError as e:
        if paper.strip().lower() not in PAPERS:
            raise
        paper_error = e  # a paper only the Spacer forms have: decided once the file is read
    data = load_data_file(state_file)
    spacer = spacer_file_kind(data)
    if spacer is not None:
        _fill_spacer(spacer, data, state_file, output, style, seed, paper)
        return
    if paper_error is not None:
        raise paper_error
    state = CareerState.from_dict(data, str(state_file))
    rules = load_rules(state.edition)
    try:
        data = fill_pdf(state, rules, paper, style, seed)
    except ValueError as e:
        raise StateFormatError(f"{state_file}: {e}",
                               "See docs/state.md for the career state format.") from None
    except StateFormatError as e:
        raise StateFormatError(f"{state_file}: {e.message}", e.fix) from None
    _write_pdf(data, output)


def _fill_spacer(what: str, data: object, path: Path, output: str, style: str, seed: int,
                 paper: str) -> None:
    """`fill` for a Spacer character or setting file."""
    from game.spacer.character import Character
    from game.spacer.setting import Setting
    from sheets import get_kind, get_paper
    from sheets.spacer_fill import (
        CHARACTER_KIND,
        SETTING_KIND,
        fill_character_pdf,
        fill_setting_pdf,
    )

    kind = CHARACTER_KIND if what == "character" else SETTING_KIND
    p = get_paper(paper, get_kind(kind).papers).name
    try:
        if what == "character":
            pdf = fill_character_pdf(Character.from_dict(data, str(path)),  # type: ignore[arg-type]
                                     p, style, seed)
        else:
            pdf = fill_setting_pdf(Setting.from_dict(data, str(path)),  # type: ignore[arg-type]
                                   p, style, seed)
    except ValueError as e:
        raise StateFormatError(f"{path}: {e}: it does not fit on the {what} form",
                               "See docs/character.md for the Spacer file formats.") from None
    _write_pdf(pdf, output)


@click.command("read-form")
@click.argument("form", metavar="FORM.pdf", type=click.Path(path_type=Path))
@click.option("-o", "--output", default=None, metavar="FILE",
              help="Write the career state here instead of stdout.")
def read_form(form: Path, output: str | None) -> None:
    """Turn a filled fillable PDF (from `print --fillable`) into its file: a career
    state, or a Spacer character or setting."""
    from game.opial.marks import marks_to_state
    from game.opial.rules import load_rules
    from sheets.fillable import read_fillable

    kind, edition, values = read_fillable(form)
    if kind in ("spacer-character", "spacer-setting"):
        from game.spacer.marks import marks_to_character, marks_to_setting

        got = (marks_to_character(values) if kind == "spacer-character"
               else marks_to_setting(values))
        text = dump_json(got.to_dict())
        if output:
            write_text(output, text)
            _note(f"wrote {output}")
        else:
            click.echo(text, nl=False)
        return
    if kind != "opial-career":
        raise UsageError(f"{form} is a {kind} form, not a career page",
                         "Give a form printed with `starsheets print career --fillable`.")
    state = marks_to_state(values, load_rules(edition))
    text = dump_json(state.to_dict())
    if output:
        write_text(output, text)
        _note(f"wrote {output}")
    else:
        click.echo(text, nl=False)


SHEET_COMMANDS: list[click.Command] = [print_sheet, layout_command, fill_command, read_form]
