"""The score lines a player wrote on a career page, set beside the sheet's own score.

One status per line written: it `agrees` with the sheet, it `differs` (said in the
player's words: "you wrote 87; the sheet scores 84 — Missions line is off by 3"), or it
is `unsure` (read too unsurely to compare: a person compares it by hand). A line left
blank has no status. The summary, the overlay, the exit code and the JSON all take these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scanner.fields import blank, unsure

AGREES, DIFFERS, UNSURE = "agrees", "differs", "unsure"
LINE_NAMES = {"tours_bonus": "Tours bonus", "final_promotion": "Final promotion",
              "rank_bonus": "Rank bonus", "missions": "Missions", "skills": "Skills",
              "medals": "Medals", "total": "Grand total"}


@dataclass(frozen=True)
class WrittenLine:
    """One score line the player wrote: what was read, and what the sheet scores."""

    key: str  # the score line (game.opial.scoring), e.g. "missions"
    name: str  # as a player calls it
    status: str  # AGREES, DIFFERS or UNSURE
    text: str  # what OCR read
    wrote: int | None  # the number, when read for sure
    points: int  # what the sheet scores on that line

    def message(self) -> str:
        """The line for a person."""
        if self.status == DIFFERS:
            return (f"you wrote {self.wrote}; the sheet scores {self.points} — {self.name} "
                    f"line is off by {abs(int(self.wrote or 0) - self.points)}")
        if self.status == UNSURE:
            return f'{self.name} (read "{self.text}")'
        return self.name

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.key, "status": self.status, "read": self.text,
                "wrote": self.wrote, "scores": self.points}


def compare(score: Any, ocr: dict[str, Any]) -> list[WrittenLine]:
    """Each score line of `score` (game.opial.scoring.Score) that the OCR results `ocr`
    (field id -> its JSON dict) show written, with its status."""
    out = []
    for line in score.lines:
        o = ocr.get(f"score.{line.key}")
        if blank(o):
            continue
        name = LINE_NAMES.get(line.key, line.label)
        text = str(o.get("text", ""))
        if unsure(o):
            out.append(WrittenLine(line.key, name, UNSURE, text, None, line.points))
            continue
        try:
            wrote = int(o["value"])
        except (TypeError, ValueError):  # (a form's field holding something else)
            out.append(WrittenLine(line.key, name, UNSURE, text, None, line.points))
            continue
        status = AGREES if wrote == line.points else DIFFERS
        out.append(WrittenLine(line.key, name, status, text, wrote, line.points))
    return out
