"""Review boxes that the rest of the career page settles.

A career page is redundant: a mission's success shows in its Executed box (a cross or
tick) *and* on the promotion track, in a skill level and, for Training and Aid, in the
absence of a Disciplinary Action; every Executed mark is also ticked above its tour. The
validator (game.opial.validate) knows all of this: an honest page raises no finding.

So when the boxes in review are few, every reading they could have is tried with the rest
of the page as read, and the validator is asked of each. Where the page agrees with
itself under some readings and all of those give a box the same value, the box is settled
to it: a slash the print left in doubt is a failure when the promotion track, the skill
levels and the Discipline boxes only add up that way. Nothing is settled on a page that no
reading makes consistent (a player's slip, or a box misread elsewhere), or when readings
that disagree on the box are both consistent.

What a box may be is bounded by what its ink says: a box whose doubt is its shape (a tick
or a slash) holds a mark and is never settled as empty, so a
player's forgotten tick elsewhere cannot talk a visible mark away. Nor is any box whose
ink leans to a mark (a light mark, a box coloured in) settled as empty or cancelled: an
extra tick the player made against the rules is still on the paper, and the validator
should say so. The other way the page may decide: a box with a little ink that leans
empty (`Mark.doubt == INK`) is a mark where only a mark there makes the page agree, as
the order of a track reads such a box before a sure mark (scanner.order). A correction
that might be a box coloured in stays what its ink leans to.

What is left to chance: a page with a player's slip that the settled reading exactly
makes up for (a success drawn like a slash *and* its promotion point and its skill level
both forgotten). Such a box is read as the page's own arithmetic says, and the warning
names it.

Where the page needs a mark in an Executed box but agrees with a success and a failure
alike (a promotion track full at box 60, a skill at its last level), the shape is left to
the tick-or-slash models: on a scan, where both agree all but surely (shape_by_models),
the agreeing readings are narrowed to theirs. They learned marks only, so they never say
whether a box holds one. A box whose printed outline was not found may be empty to the
page (its ink may be a neighbour's), and is settled as the mark it leans to only where
nothing else agrees.

The other way, on a sheet already left with boxes to review, a box read empty that the
page names as missing a mark (skill-unchecked, ...) goes to review too
(doubt_named_missing): a pencil mark in a hard shadow can leave no pixel over the
thresholds. A sheet without reviews is left alone, so a player's forgotten box alone
never makes the sheet unclear; the validator reports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import product
from typing import Any

from game.opial.marks import marks_to_state, meaning
from game.opial.validate import validate
from scanner.marks import (
    CANCELLED,
    CHECKED,
    EMPTY,
    INK,
    OUTLINE_WHY,
    REVIEW,
    SLASHED,
    Mark,
    is_executed,
)

RULES_CONFIDENCE = 0.7
SETTLED_WHY = "settled by the rest of the page"
SHAPE_WHY = "the page needs a mark there"  # ... its shape read by the models (_shape_why)
INK_ALONE = "; the ink alone: "  # the review's own why follows it in a settled box's why
SURE = 0.8  # a reading this confident is not doubted by the page's arithmetic
MAX_FINDINGS = 4  # a page with more findings is the player's (or a scrambled one): no doubts
MAX_SUSPECTS = 3  # more readings that would each make the page agree: none doubted
DOUBT_TRIES = 600  # validations a page may cost the search for suspects (~0.17 ms each)
SHAPE_TICK, SHAPE_SLASH = 0.999, 0.03  # a box the page says holds a mark, either shape
#   agreeing, is a tick where both tick-or-slash models say so at SHAPE_TICK or more, a
#   slash where both are under SHAPE_SLASH (shape_by_models). Session 38, every Executed box
#   holding a mark on the fifty seeds' scans, clean renders and mild photos under
#   SCAN_NOISE: no tick of 85,076 has both under 0.01; one slash of 18,922 has both over
#   0.99 (0.99938 and 0.99897, a pale pencil slash hooked where it starts: 61 scan-300 9),
#   the next pair's smaller value 0.79. The lowest tick pair's larger value is 0.10, so
#   SHAPE_SLASH went from 0.01 to 0.03 in session 39, a third of that (223 scan-150 6: a
#   pen slash at 0.000 and 0.014, the sheet's only review)
MAX_READINGS = 512  # readings tried a page (each a validation, ~0.17 ms); more: none settled
#   (session 37, from 128: a scan's five faint slashes, 162 readings, only one agreeing)
IGNORED = frozenset({"no-name", "score-miscount", "edition-mismatch"})  # not about the marks
MISSING = frozenset({"skill-unchecked", "promotion-unchecked", "discipline-unchecked"})
#   findings naming boxes the page says should be marked (doubt_named_missing)


def candidates(rid: str, mark: Mark, outline_empty: bool = True) -> tuple[str, ...]:
    """The values a review box may take: its likely one first, then what its ink allows
    (`outline_empty`: a plain box whose outline was not found may be empty)."""
    values = [CHECKED, SLASHED, EMPTY] if is_executed(rid) else [CHECKED, EMPTY]
    likely = mark.likely
    if likely == CANCELLED or "cancelled" in mark.why:  # a correction: empty is cancelled
        values = [CANCELLED if v == EMPTY else v for v in values]
        likely = CANCELLED if likely == EMPTY else likely
    elif mark.doubt != INK and likely in (CHECKED, SLASHED) and not (
            outline_empty and mark.why == OUTLINE_WHY and not is_executed(rid)):
        values.remove(EMPTY)  # it holds a mark: only which one is in doubt (where a plain
        #   box's outline was not found, the ink read may be a neighbour's)
    if likely in values:
        values.remove(likely)
        values.insert(0, likely)
    return tuple(values)


def alternatives(rid: str, value: str) -> tuple[str, ...]:
    """What a box read as `value` might be instead, if it was misread: a mark's shape, or
    an empty box's mark (and a mark outside the Executed boxes, an empty box)."""
    if is_executed(rid):
        return {CHECKED: (SLASHED,), SLASHED: (CHECKED,)}.get(value, (CHECKED, SLASHED))
    return (EMPTY,) if value in (CHECKED, SLASHED) else (CHECKED,)


def _count(options: list[tuple[str, ...]]) -> int:
    """How many readings the boxes' options make (product of their counts)."""
    count = 1
    for o in options:
        count *= len(o)
    return count


def findings(values: Mapping[str, str | int | None], rules: Any) -> list[Any]:
    """The validator's findings about the marks (the name and written lines left out)."""
    return [f for f in validate(marks_to_state(values, rules), rules) if f.code not in IGNORED]


def settle_by_rules(marks: dict[str, Mark], rules: Any) -> list[str]:
    """Settle (in place) the review boxes that only the page's consistent readings allow;
    their ids."""
    doubtful = [rid for rid, m in marks.items() if m.state == REVIEW]
    if not doubtful:
        return []
    options = [candidates(rid, marks[rid]) for rid in doubtful]
    if _count(options) > MAX_READINGS:  # (too many: those boxes keep to their ink instead)
        options = [candidates(rid, marks[rid], outline_empty=False) for rid in doubtful]
    count = _count(options)
    if count > MAX_READINGS or count < 2:
        return []
    words = [shape_by_models(rid, marks[rid]) for rid in doubtful]
    values: dict[str, str | int | None] = {rid: m.state for rid, m in marks.items()}
    agree: list[tuple[str, ...]] = []
    against: dict[tuple[str, ...], list[str]] = {}
    seen: list[set[str]] = [set() for _ in doubtful]  # each box's meanings the page allows
    for reading in product(*options):
        values.update(zip(doubtful, reading, strict=True))
        found = findings(values, rules)
        if found:
            against[reading] = sorted({f.code for f in found})
            continue
        agree.append(reading)
        for i, v in enumerate(reading):
            seen[i].add(meaning(doubtful[i], v))
        if all(len(m) > 1 and (w is None or EMPTY in m) for m, w in zip(seen, words,
                                                                       strict=True)):
            return []  # the page agrees with two values of every box (of a box the models
            #   would shape, empty among them): none is settled
    if not agree:
        return []
    shaped = {i for i, w in enumerate(words) if w and seen[i] == {CHECKED, SLASHED}}
    by_shape = [r for r in agree if all(meaning(doubtful[i], r[i]) == words[i] for i in shaped)]
    if by_shape:  # (the models' words together may leave the page no agreeing reading)
        agree = by_shape
    else:
        shaped = set()
    settled = []
    for i, rid in enumerate(doubtful):
        meanings = {meaning(rid, r[i]) for r in agree}
        if len(meanings) != 1 or len({meaning(rid, v) for v in options[i]}) < 2:
            continue
        value = agree[0][i]
        m = marks[rid]
        to_empty = meaning(rid, value) == EMPTY
        if (meaning(rid, m.likely) == EMPTY) != to_empty and (to_empty or m.doubt != INK):
            continue  # the page never talks ink that leans to a mark away (see above)
        if meaning(rid, m.likely) == meaning(rid, value):
            value = m.likely  # keep "cancelled" rather than "empty"
        why = (_shape_why(rid, value, m) if i in shaped
               else _why(rid, i, value, options[i], agree, against))
        marks[rid] = Mark(value, RULES_CONFIDENCE, value,
                          f"{SETTLED_WHY}: {why}{INK_ALONE}{m.why}", m.features)
        settled.append(rid)
    return settled


def _why(rid: str, i: int, value: str, options: tuple[str, ...],
         agree: list[tuple[str, ...]], against: dict[tuple[str, ...], list[str]]) -> str:
    """What the other readings of the box would make the page say."""
    base = agree[0]
    said: list[str] = []
    for other in options:
        if meaning(rid, other) == meaning(rid, value):
            continue
        codes = against.get((*base[:i], other, *base[i + 1:]), [])
        said.append(f"read as {_name(rid, other)}, the page says {', '.join(codes)}")
    return f"{_name(rid, value)}; " + "; ".join(said)


def shape_by_models(rid: str, m: Mark) -> str | None:
    """The shape both tick-or-slash models give an Executed box left a review on a sheet
    as quiet as a scan (scanner.marks.sheet._models_opinion), where they agree all but
    surely (SHAPE_TICK, SHAPE_SLASH); else None. They learned marks only, so this is taken
    only where every reading that makes the page agree holds a mark there. A box whose
    doubt is whether it holds ink at all (`Mark.doubt == INK`) is never so read as a
    slash: ink too light to show may hide a stroke, and a cross or tick missing one arm
    is a single stroke, where a slash losing ink never grows a second one (sessions 49
    and 51: 1133 scan-150 3 and 1469 phone 55, a cross whose right half vanished under
    the printed "+1", settled as failures at P(tick) 0.001 and 0.000)."""
    f = m.features
    if not is_executed(rid) or "models_tick_p" not in f:
        return None
    tick, success = f["models_tick_p"], f["models_success_p"]
    if tick >= SHAPE_TICK and success >= SHAPE_TICK:
        return CHECKED
    if tick < SHAPE_SLASH and success < SHAPE_SLASH and m.doubt != INK:
        return SLASHED
    return None


def _shape_why(rid: str, value: str, m: Mark) -> str:
    """Why a box was settled by the page (a mark) and the models (its shape)."""
    f = m.features
    return (f"{_name(rid, value)}: {SHAPE_WHY}, a success or a failure alike, and both "
            f"tick-or-slash models call it {_name(rid, value)} (P(tick) "
            f"{f['models_tick_p']:.3f}, P(success) {f['models_success_p']:.3f})")


def _name(rid: str, value: str) -> str:
    if is_executed(rid):
        return {CHECKED: "a success", SLASHED: "a failure"}.get(value, "empty")
    return "marked" if value in (CHECKED, SLASHED) else "empty"


def doubt_by_rules(marks: dict[str, Mark], rules: Any) -> list[str]:
    """Send to review (in place) the few readings, each less than sure, that alone would make
    a page that disagrees with itself agree; their ids. The reading stays the likely one:
    the page may hold the player's own slip."""
    values: dict[str, str | int | None] = {
        rid: (m.likely if m.state == REVIEW else m.state) for rid, m in marks.items()}
    found = findings(values, rules)
    if not found or len(found) > MAX_FINDINGS:
        return []
    doubtful = [rid for rid, m in marks.items() if m.state == REVIEW]
    options = [candidates(rid, marks[rid]) for rid in doubtful]
    unsure = [(rid, m) for rid, m in marks.items() if m.state != REVIEW and m.confidence < SURE
              and not rid.startswith(("length.", "start."))]
    if _count(options) * (1 + sum(len(alternatives(r, m.state)) for r, m in unsure)) > DOUBT_TRIES:
        return []
    readings = list(product(*options))

    def agrees() -> bool:
        for reading in readings:
            values.update(zip(doubtful, reading, strict=True))
            if not findings(values, rules):
                return True
        return False

    if agrees():
        return []
    codes = ", ".join(sorted({f.code for f in found}))
    suspects: dict[str, str] = {}
    for rid, m in unsure:
        for alt in alternatives(rid, m.state):
            values[rid] = alt
            if agrees():
                suspects[rid] = alt
                break
        values[rid] = m.state
    if not suspects or len(suspects) > MAX_SUSPECTS:
        return []
    for rid, alt in suspects.items():
        m = marks[rid]
        doubt = INK if EMPTY in (alt, m.state) else ""
        marks[rid] = Mark(REVIEW, min(m.confidence, 0.45), m.state,
                          f"read {_name(rid, m.state)}; the page adds up only if it is "
                          f"{_name(rid, alt)} (as read, it says {codes})",
                          m.features, doubt)
    return list(suspects)


def doubt_named_missing(marks: dict[str, Mark], rules: Any) -> list[str]:
    """On a sheet already left with boxes to review, send to review (in place) the few boxes
    read empty that the page names as missing a mark (a skill level its successes grant, a
    promotion point they earn: MISSING), however surely they read empty; their ids. A
    pencil mark in a hard shadow can leave no pixel over the ink threshold (337 phone 29:
    a cross read empty at 1.0, the finding skill-unchecked naming it). The reading stays
    empty: the player may have forgotten the box, and the validator still says so. A sheet
    without reviews is left alone, so a player's slip alone never makes a sheet unclear;
    so is a box that another reading of one review box would stop the page naming (a slash
    read as a likely tick asks for its promotion point and skill level: 61 scan-300 9). At
    most MAX_SUSPECTS boxes, on a page with at most MAX_FINDINGS findings that name no box
    in review."""
    doubtful = [rid for rid, m in marks.items() if m.state == REVIEW]
    if not doubtful:
        return []
    values: dict[str, str | int | None] = {
        rid: (m.likely if m.state == REVIEW else m.state) for rid, m in marks.items()}
    found = [f for f in findings(values, rules)  # (a finding naming a review is its own)
             if not any(rid in marks and marks[rid].state == REVIEW for rid in f.boxes)]
    if len(found) > MAX_FINDINGS:
        return []
    named = _named_missing(found, marks)
    for rid in doubtful:  # (each review read otherwise, alone: does the page still name it?)
        for value in candidates(rid, marks[rid])[1:]:
            if not named:
                return []
            values[rid] = value
            still = _named_missing(findings(values, rules), marks)
            named = {k: code for k, code in named.items() if k in still}
        values[rid] = marks[rid].likely
    if not named or len(named) > MAX_SUSPECTS:
        return []
    for rid, code in named.items():
        m = marks[rid]
        marks[rid] = Mark(REVIEW, min(m.confidence, 0.45), m.state,
                          f"read empty, but the page says it should be marked ({code}): a mark "
                          "the photo lost, or the player's own slip?", m.features, INK)
    return list(named)


def _named_missing(found: list[Any], marks: Mapping[str, Mark]) -> dict[str, str]:
    """The boxes read empty that `found` names as missing a mark, with the finding's code."""
    return {rid: f.code for f in found if f.code in MISSING for rid in f.boxes
            if rid in marks and marks[rid].state in (EMPTY, CANCELLED)}
