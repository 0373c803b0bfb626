"""The written score lines checked against their own sum, a checksum the sheet carries.

A player writes six score lines and their Grand Total, the lines' sum. A line whose
digits both readers lean to but too weakly to trust (a handwritten 1 or 7 most often) is
confirmed when the sum holds with that reading and every other line read for sure: a
misread digit would have to change the line by exactly what the others leave over. Not
so where the two readers disagree on a cell: players miscount (a third of the bench's
careers have a total that is not their lines' sum), and a misread that makes up the
difference exactly does happen (seed 223, clean 16: a 7 that Tesseract reads as a 2,
the classifier not, in a line five short of the total). A line left blank counts as 0.
Nothing is ever filled in that was not read: a cell read as "?" stays unread, and a sum
that does not hold confirms nothing (the written-score check then shows the player's
own arithmetic off).

Pure logic on the fields' JSON dicts (scanner.fields.Field.to_dict), no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from game.opial.state import SCORE_LINES
from scanner.digits import LEANS
from scanner.fields import OCR_TRUST, blank

TOTAL = "total"
PARTS = tuple(k for k in SCORE_LINES if k != TOTAL)  # the lines the Grand Total adds up
MAX_UNSURE = 1  # lines confirmed at once. Two unsure lines can both be misread and still
#   add up (a 1 read as a 7 in one, a 7 as a 1 in the other, at the same place), and on
#   phone photos 6 in 10 unsure lines are misread
CONFIRMED = "the score lines add up to the Grand Total"


def _value(field: Mapping[str, Any] | None) -> tuple[int | None, bool]:
    """A line's number (0 when left blank; None when no number both readers lean to) and
    whether it was read for sure."""
    if field is None or blank(field):
        return 0, True
    v, conf = field.get("value"), float(field.get("confidence", 0.0))
    if not isinstance(v, int) or isinstance(v, bool) or conf < LEANS:
        return None, False
    return v, conf >= OCR_TRUST


def confirm_by_sum(fields: Mapping[str, dict[str, Any]], prefix: str = "score.",
                   parts: Sequence[str] = PARTS, total: str = TOTAL) -> list[str]:
    """Raise to OCR_TRUST the one line read unsurely (at most MAX_UNSURE) when the lines
    with it read add up to the Grand Total, noting why (in place); the ids confirmed.
    `fields`: field id -> its JSON dict; the lines are `prefix` + key."""
    ids = [prefix + p for p in parts] + [prefix + total]
    t = fields.get(ids[-1])
    if t is None or blank(t):
        return []  # (no total written: nothing to check against)
    read = [_value(fields.get(i)) for i in ids]
    if any(v is None for v, _ in read):
        return []
    unsure = [i for i, (_, sure) in zip(ids, read, strict=True) if not sure]
    if not unsure or len(unsure) > MAX_UNSURE:
        return []
    values = [int(v or 0) for v, _ in read]
    if sum(values[:-1]) != values[-1]:
        return []
    for i in unsure:
        f = fields[i]
        f["confidence"] = max(float(f.get("confidence", 0.0)), OCR_TRUST)
        f["confirmed"] = CONFIRMED
    return unsure
