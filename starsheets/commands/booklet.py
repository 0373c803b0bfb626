"""`starsheets booklet`: impose a PDF as a saddle-stitched booklet (2-up, folded, stapled)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from sheets.imposition import MAX_CREEP_MM, SHEETS, Bind, Flip
from starsheets.io import dump_json


@click.command("booklet")
@click.argument("input_pdf", metavar="IN.pdf", type=click.Path(path_type=Path))
@click.option("-o", "--output", "output", required=True, type=click.Path(path_type=Path),
              metavar="OUT.pdf", help="Where to write the imposed booklet.")
@click.option("--sheet", type=click.Choice(list(SHEETS)), default="letter", show_default=True,
              help="Paper the booklet is printed on (used landscape, two pages a side).")
@click.option("--signature", type=click.IntRange(min=1), default=None, metavar="N",
              help="Sheets per signature (stacked and sewn); default: one signature.")
@click.option("--creep", type=click.FloatRange(0, MAX_CREEP_MM), default=0.0,
              show_default=True, metavar="MM",
              help="Shift of the innermost sheet's pages toward the spine, in mm.")
@click.option("--flip", type=click.Choice([f.value for f in Flip]), default=Flip.SHORT.value,
              show_default=True, help="The printer's duplex setting (flip on short/long edge).")
@click.option("--bind", type=click.Choice([b.value for b in Bind]), default=Bind.LEFT.value,
              show_default=True, help="Spine edge: right for right-to-left books.")
@click.option("--marks", is_flag=True, help="Draw crop marks and fold marks.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary on stdout.")
def booklet(input_pdf: Path, output: Path, sheet: str, signature: int | None, creep: float,
            flip: str, bind: str, marks: bool, as_json: bool) -> None:
    """Impose IN.pdf as a saddle-stitched booklet: print duplex, fold, staple.

    Blank pages pad the booklet before the back cover; pages are scaled to fit, centred.
    See docs/booklets.md for the duplex setting and creep.
    """
    from sheets.booklet import BookletSettings, make_booklet

    settings = BookletSettings(sheet=sheet, signature=signature, creep_mm=creep,
                               flip=Flip(flip), bind=Bind(bind), marks=marks)
    started = time.perf_counter()
    report = make_booklet(input_pdf, output, settings)
    elapsed = time.perf_counter() - started
    for note in report.notes:
        click.echo(f"starsheets: note: {note}", err=True)
    if as_json:
        click.echo(dump_json({
            "input": str(input_pdf),
            "output": str(output),
            "input_pages": report.input_pages,
            "output_pages": report.output_pages,
            "sheets": report.sheets,
            "signatures": report.signatures,
            "padding_blanks": report.blanks,
            "form_fields": report.form_fields,
            "dropped_annotations": report.dropped_annotations,
            "sheet": sheet,
            "flip": flip,
            "bind": bind,
            "creep_mm": creep,
            "marks": marks,
            "seconds": round(elapsed, 3),
        }), nl=False)
    else:
        click.echo(f"starsheets: wrote {output}: {report.input_pages} pages on "
                   f"{report.sheets} sheet(s) ({report.blanks} blank(s) added), "
                   f"print duplex, flip on {flip} edge.", err=True)
