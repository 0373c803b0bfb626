"""Reporting a scan: the JSON object of one sheet, the human summary, the exit code.

JSON (one object per sheet found; `starsheets scan --json` prints an array of them):
    source, kind, edition, code, marks {id: {state, confidence}}, state, findings,
    score, ocr, written, review, timing, warnings   (+ error {message, exit_code} for a
    failure). `written`: the score lines the player wrote, each {line, status (agrees,
    differs or unsure), read, wrote, scores} (scanner.written).
    Spacer forms add pages, missing_pages, review_why (scanner.spacer.json_extra); their
    score is null and their state the character or setting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scanner.pipeline import SheetResult
from scanner.written import AGREES, UNSURE
from starsheets.errors import ExitCode

INFO_SEVERITIES = ("info", "note", "ok")


def to_json(r: SheetResult) -> dict[str, Any]:
    """The JSON-ready object for one sheet (or one failed input)."""
    if r.error is not None:
        return {"source": r.source, "error": {"message": r.error.one_line(),
                                              "exit_code": int(r.error.exit_code)}}
    marks = {rid: {"state": m.state, "confidence": round(m.confidence, 3)}
             for rid, m in r.marks.items()}
    for rid, m in r.marks.items():
        if m.state == "review":
            marks[rid]["likely"] = m.likely
        if m.why:  # a review's doubt; a faint mark, or one its track's order or the page settled
            marks[rid]["why"] = m.why
    findings = list(r.findings)
    obj = {
        "source": r.source,
        "kind": r.kind,
        "edition": r.edition,
        "code": r.code,
        "marks": marks,
        "state": r.state.to_dict() if r.state is not None else None,
        "findings": findings,
        "score": r.score.to_dict() if r.score is not None else None,
        "ocr": r.ocr,
        "written": [w.to_dict() for w in r.written],
        "review": list(r.review),
        "timing": dict(r.timing),
        "warnings": list(r.warnings),
    }
    if r.spacer is not None:  # a Spacer form: its pages and what to look at
        from scanner import spacer

        obj.update(spacer.json_extra(r))
    return obj


def review_lines(ids: list[str], why: Callable[[str], str],
                 likely: Callable[[str], str | None], shown: int = 8) -> list[str]:
    """The boxes to look at, grouped by why (the commonest reason first), each with its
    likely value: one line per reason, at most `shown` boxes named on it."""
    groups: dict[str, list[str]] = {}
    for rid in ids:
        groups.setdefault(why(rid) or "unclear", []).append(rid)
    lines = []
    for reason, rids in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        named = ", ".join(f"{rid} ({likely(rid)}?)" if likely(rid) else rid
                          for rid in rids[:shown])
        more = f" and {len(rids) - shown} more" if len(rids) > shown else ""
        lines.append(f"    {len(rids)} x {reason}: {named}{more}")
    return lines


def _serious(findings: list[dict[str, Any]], kind: str = "") -> bool:
    if kind.startswith("spacer-"):  # the Spacer validator's warnings are advice
        return any(str(f.get("severity")).lower() == "error" for f in findings)
    return any(str(f.get("severity", "warning")).lower() not in INFO_SEVERITIES
               for f in findings)


def exit_code(results: list[SheetResult]) -> ExitCode:
    """OK if every sheet read cleanly; the first input error's code if any input failed;
    else FINDINGS if anything needs a person (review marks, findings, a written score
    that disagrees)."""
    for r in results:
        if r.error is not None:
            return ExitCode(int(r.error.exit_code))
    if any(r.review or r.checks or _serious(r.findings, r.kind) for r in results):
        return ExitCode.FINDINGS
    return ExitCode.OK


def summary(r: SheetResult) -> list[str]:
    """A few lines for a person: what was read, the score, what to look at."""
    if r.error is not None:
        return [f"{r.source}: error: {r.error.one_line()}"]
    if r.spacer is not None:
        from scanner import spacer

        return spacer.summary(r)
    name = r.state.name if r.state is not None and r.state.name else "(no name read)"
    total = sum(r.timing.values())
    lines = [f"{r.source}: {r.kind} ({r.edition}) — {name} — {len(r.marks)} boxes in "
             f"{total:.0f} ms"]
    if r.score is not None:
        provisional = (f" (provisional: {len(r.review)} box(es) below read at their likely "
                       "value)" if r.review else "")
        lines.append(f"  score {r.score.total} ({r.score.title}); rank {r.score.rank}"
                     f"{provisional}")
    if r.review:
        lines.append(f"  please look at {len(r.review)} box(es), read at their likely value:")
        lines += review_lines(r.review, lambda rid: r.marks[rid].why,
                              lambda rid: r.marks[rid].likely)
    for c in r.checks:
        lines.append(f"  {c}")
    lines += written_lines(r)
    for f in r.findings:
        if f.get("code") != "score-miscount":  # said above, in the player's words
            lines.append(f"  {f.get('severity', 'finding')}: {f.get('message', f)}")
    for w in r.warnings:
        lines.append(f"  note: {w}")
    return lines


def written_lines(r: SheetResult) -> list[str]:
    """The score lines the player wrote that agree with the sheet, and those read too
    unsurely to compare (to check by hand). A line that differs is in `r.checks`."""
    out = []
    for status, head in ((AGREES, "written score agrees with the sheet"),
                         (UNSURE, "written score not read for sure (compare it by hand)")):
        names = [w.message() for w in r.written if w.status == status]
        if names:
            out.append(f"  {head}: {', '.join(names)}")
    return out
