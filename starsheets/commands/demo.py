"""`starsheets demo`: the main job on built-in defaults, end to end."""

from __future__ import annotations

from pathlib import Path

import click

from starsheets.errors import ExitCode


def _step(title: str) -> None:
    click.echo(f"\n=== {title} ===")


@click.command("demo")
@click.option("--out", "out", default="out", show_default=True, type=click.Path(file_okay=False),
              help="Folder for everything the demo writes.")
@click.option("--seed", type=int, default=2026, show_default=True, help="Dice seed of the career.")
@click.pass_context
def demo(ctx: click.Context, out: str, seed: int) -> ExitCode:
    """Play and score a narrated career, print every sheet, fill the career page, and end
    with the main job: scan a phone photo of a finished career page."""
    from starsheets.commands.career import play_cmd, score_cmd, simulate_cmd, validate_cmd
    from starsheets.commands.scan import scan
    from starsheets.commands.sheets import fill_command, print_sheet

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    state = folder / "career-state.json"
    _step(f"One narrated career (seed {seed})")
    ctx.invoke(play_cmd, seed=seed, edition=None, length="career", start="roll", name="Dan",
               out=str(state), as_json=False)
    _step("Its page, checked against the rules")
    ctx.invoke(validate_cmd, args=(str(state),), edition=None, as_json=False)
    _step("Ten thousand careers")
    ctx.invoke(simulate_cmd, n=10_000, seed=seed, jobs=None, edition=None, length="career",
               start="roll", as_json=False)
    _step(f"Blank sheets in {folder}/")
    for sheet, paper, fillable in (("career", "letter", False), ("career", "a4", False),
                                   ("career", "letter", True), ("setting", "letter", False),
                                   ("character", "letter", False),
                                   ("reference-card", "letter", False)):
        name = f"{sheet}-{paper}{'-fillable' if fillable else ''}.pdf"
        ctx.invoke(print_sheet, sheet=sheet, paper=paper, edition=None, fillable=fillable,
                   output=str(folder / name), booklet_sheet=None)
    ctx.invoke(print_sheet, sheet="spacer-booklet", paper="letter", edition=None,
               fillable=False, output=str(folder / "spacer-booklet-letter.pdf"),
               booklet_sheet="letter")
    _step("The career page filled in by hand")
    filled = folder / "career-filled.pdf"
    ctx.invoke(fill_command, state_file=state, output=str(filled), style="pen", seed=seed,
               paper="letter")
    _step("Scoring the saved page")
    ctx.invoke(score_cmd, file=str(state), edition=None, as_json=False)
    photo = _sample_photo()
    _step(f"Scanning a phone photo of a finished career: {photo}")
    overlays = folder / "overlays"
    ctx.invoke(scan, files=(str(photo),), as_json=False, overlay_dir=str(overlays),
               out_dir=None, jobs=1, no_ocr=False)
    click.echo(f"\nThe overlay (what was read, box by box) is in {overlays}/")
    return ExitCode.OK


def _sample_photo() -> Path:
    """The sample phone photo shipped in samples/photos (repository checkout): a finished
    career with its name and score lines written, one of them miscounted."""
    return Path(__file__).resolve().parents[2] / "samples" / "photos" / "miscount.jpg"
