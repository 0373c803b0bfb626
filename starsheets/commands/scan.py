"""`starsheets scan FILE...`: read filled sheets from photos, scans and fillable PDFs."""

from __future__ import annotations

import sys
import traceback
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import click

from starsheets.errors import ExitCode, OutputError
from starsheets.io import dump_json, write_bytes, write_text


def _stem(source: str, base: str) -> str:
    """File stem for a sheet's outputs: the input's stem, '-pN' for a PDF/TIFF page."""
    page = source.rsplit("#page=", 1)[1] if "#page=" in source else ""
    return f"{base}-p{page}" if page else base


def _scan_one(path: str, base: str, overlay_dir: str | None, out_dir: str | None,
              ocr: bool, anyway: bool, verbose: bool) -> list[dict[str, Any]]:
    """Scan one input (runs in a worker process with --jobs): per sheet, its JSON, its
    summary lines and its exit code. Never raises."""
    from scanner.pipeline import scan_file

    try:
        results = scan_file(path, ocr=ocr, anyway=anyway)
    except Exception as e:  # a bug: report it for this file, go on with the batch
        if verbose:
            traceback.print_exc()
        return [{"json": {"source": path, "error": {
            "message": f"internal error: {type(e).__name__}: {e}",
            "exit_code": int(ExitCode.INTERNAL)}},
            "summary": [f"{path}: internal error: {type(e).__name__}: {e} (run with -v for "
                        "the traceback, and please report it)"],
            "code": int(ExitCode.INTERNAL)}]
    from scanner.spacer import is_page

    out = []
    for r in results:
        if is_page(r):  # a page of a Spacer form: combined with its other pages later
            out.append({"page": r, "base": base})
            continue
        out.append(_emit(r, _stem(r.source, base), overlay_dir, out_dir))
    return out


def _emit(r: Any, stem: str, overlay_dir: str | None, out_dir: str | None,
          overlays: list[tuple[Any, str]] | None = None) -> dict[str, Any]:
    """One sheet's JSON, summary lines and exit code; its overlay(s) and JSON written
    where asked (`overlays`: (page result, stem) of each page of a Spacer form)."""
    from scanner import report

    obj = report.to_json(r)
    lines = report.summary(r)
    code = int(report.exit_code([r]))
    try:
        if overlay_dir and r.error is None:
            from scanner import overlay

            pages = overlays if overlays is not None else (
                [(r, stem)] if r.canvas is not None else [])
            targets = []
            for page, page_stem in pages:
                target = Path(overlay_dir) / f"{page_stem}.png"
                write_bytes(target, overlay.encode_png(overlay.render(page)))
                targets.append(str(target))
            if targets:
                obj["overlay"] = targets[0] if overlays is None else targets
        if out_dir:
            write_text(Path(out_dir) / f"{stem}.json", dump_json(obj))
    except OutputError as e:
        lines.append(f"{r.source}: error: {e.one_line()}")
        code = int(ExitCode.OUTPUT)
    return {"json": obj, "summary": lines, "code": code}


def _forms(sheets: list[dict[str, Any]], overlay_dir: str | None,
           out_dir: str | None) -> list[dict[str, Any]]:
    """The pages of Spacer forms put together (scanner.spacer.combine), each form
    reported where its first page was."""
    if not any("page" in s for s in sheets):
        return sheets
    from scanner.spacer import combine

    bases = {id(s["page"]): s["base"] for s in sheets if "page" in s}
    out = []
    for item in combine([s.get("page", s) for s in sheets]):
        if isinstance(item, dict):
            out.append(item)
            continue
        pages = [(p, _stem(p.source, bases[id(p)])) for p in item.spacer.page_results]
        out.append(_emit(item, pages[0][1], overlay_dir, out_dir, pages))
    return out


def _bases(files: list[str]) -> list[str]:
    """A unique output stem per input (photo.jpg and other/photo.jpg: photo, photo-2)."""
    seen: dict[str, int] = {}
    out = []
    for f in files:
        stem = Path(f).stem or "sheet"
        seen[stem] = seen.get(stem, 0) + 1
        out.append(stem if seen[stem] == 1 else f"{stem}-{seen[stem]}")
    return out


def _overall(codes: list[int]) -> ExitCode:
    """The first input error, else FINDINGS if any sheet needs a person, else OK."""
    for c in codes:
        if c not in (int(ExitCode.OK), int(ExitCode.FINDINGS)):
            return ExitCode(c)
    return ExitCode.FINDINGS if int(ExitCode.FINDINGS) in codes else ExitCode.OK


@click.command("scan")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON array (one object per sheet) on stdout.")
@click.option("--overlay", "overlay_dir", default=None, metavar="DIR",
              help="Write a PNG per sheet: the flattened sheet, every box outlined by what "
                   "was read, the score and a key to the colours above it.")
@click.option("--out", "out_dir", default=None, metavar="DIR",
              help="Write each sheet's JSON result to DIR/<input>[-pN].json.")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Scan this many files at once (processes).")
@click.option("--no-ocr", is_flag=True, help="Do not read the name and written score.")
@click.option("--read-anyway", "anyway", is_flag=True,
              help="Read sheets refused as too faint or washed out to trust, with a warning: "
                   "their unclear boxes go to review, and a mark may not show at all.")
@click.pass_context
def scan(ctx: click.Context, files: tuple[str, ...], as_json: bool, overlay_dir: str | None,
         out_dir: str | None, jobs: int, no_ocr: bool, anyway: bool) -> ExitCode:
    """Read filled sheets: photos (JPEG, PNG, TIFF, WebP), scanned PDFs, fillable PDFs.

    Each sheet is located by its corner markers, identified by its QR code, flattened,
    and every box is read (checked, slashed, empty, cancelled, or review when unclear);
    the career is then scored and the player's written score checked. Spacer setting
    and character forms are read too: the pages of a form (in any order, as separate
    photos or PDF pages) are combined and the character or setting validated. Exit code 0: all
    read cleanly; 1: something needs a person (see the review list); 3/8: an input could
    not be read or holds no sheet. See docs/scanner.md.
    """
    from starsheets.progress import bar

    verbose = bool(ctx.obj.verbose) if ctx.obj is not None else False
    paths = list(files)
    bases = _bases(paths)
    args = [(p, b, overlay_dir, out_dir, not no_ocr, anyway, verbose)
            for p, b in zip(paths, bases, strict=True)]
    per_file: list[list[dict[str, Any]]] = []
    with bar(len(paths), "scanning", "file") as progress:
        if jobs > 1 and len(paths) > 1:
            with ProcessPoolExecutor(max_workers=min(jobs, len(paths))) as pool:
                for res in pool.map(_scan_one, *zip(*args, strict=True)):
                    per_file.append(res)
                    progress.update(1)
        else:
            for a in args:
                per_file.append(_scan_one(*a))
                progress.update(1)
    sheets = _forms([s for res in per_file for s in res], overlay_dir, out_dir)
    if as_json:
        sys.stdout.write(dump_json([s["json"] for s in sheets]))
        for s in sheets:  # errors also go to stderr, one line each
            if "error" in s["json"]:
                click.echo(f"starsheets: error: {s['json']['error']['message']}", err=True)
    else:
        for s in sheets:
            if "error" in s["json"]:
                click.echo(f"starsheets: error: {s['json']['error']['message']}", err=True)
            else:
                click.echo("\n".join(s["summary"]))
    return _overall([s["code"] for s in sheets])
