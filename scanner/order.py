"""Review boxes that the order of their track settles.

Every track of the career page is filled in order from its first box (the validator
flags a gap). So a box whose only doubt is whether it holds a mark at all (a little ink:
a light mark, or a stray, an erasure, the photo's noise?) is settled by a sure reading
further along its track: a mark after it, and the box is marked too; an empty box before
it, and it is empty too. A box left empty before a mark is a gap the validator would
flag, so a box with a little ink there (marks.unclear_ink: ink inside it, not only at its
edge) is marked even when its own ink leans empty (session 18: the palest pencil over a
printed number, 215 such boxes on the cached sheets, all of them marks); otherwise only
when its own likely reading says the same. An Executed box is only ever settled as empty
(the order says that a mission box holds a mark, not whether the mission succeeded or
failed). What settles a box is a reading of at least ANCHOR_CONFIDENCE. A sheet whose
sure readings break the order anywhere (a player who does not follow it, or a misread
box) has nothing settled, and on a sheet of light marks (pencil barely darker than the
photo's noise, where a mark can read empty) an empty box settles nothing.

The order also doubts a mark read from a little ink in a printed number for being as dark
as the sheet's marks (marks.from_ink_in_print) that lies past more than LONE_GAPS sure
empty boxes, on a track whose sure readings keep the order: the residue of a number
printed a pixel off as much as a light mark the player made out of order. It goes to
review, likely what its ink says (session 28: a noisy photo's empty promotion box 58,
forty boxes past the sheet's last mark, read so). Since session 41 so does a mark read
from a faint stroke of its own (marks.light_mark): on a seed no rule was tuned on, an
empty promotion box 22, twenty boxes past the track's last mark, read as a faint mark
from its outline's residue on a 2 MP photo. Past one or two empty boxes it stays a
mark and those boxes are the lone gaps below: a missed mark in them is as likely (on the
same seed a pencil tick read empty at 0.95 before such a mark).

A box reviewed for a mark's worth of ink kept to its edge (marks.edge_ink: a stray from
outside, or a tick drawn low in its box) before a sure mark is likewise a mark (session
28: two pencil ticks whose vertex lay below their box, on a held-out seed's clean
renders; on 25 seeds' cached sheets no such review lay before a sure mark on a sheet
read in order, so nothing else changes).

A sheet read in order but for a few lone gaps (up to MISSED_GAPS: doubt_lone_gaps, after
settling, which such a sheet is spared) has those boxes sent to review: a mark the reading
missed (a slash too light or too blurred to show, hidden by the print) as much as a box
the player skipped; but on a plain sheet (as quiet as a scan, its marks not light) a bare
gap box was skipped: a mark would show there.

The next box on a track after its last mark is where a mark the reading missed is
likeliest (the player's next one). Read empty, it needs the learned second look surer of
that than other boxes do (doubt_next_empty, NEXT_EMPTY_DOUBT).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scanner.marks import (
    CHECKED,
    EMPTY,
    INK,
    REVIEW,
    SLASHED,
    Mark,
    edge_ink,
    from_ink_in_print,
    is_executed,
    light_mark,
    unclear_ink,
)
from scanner.marks.audit import settle_bar

SETTLED_CONFIDENCE = 0.6
ANCHOR_CONFIDENCE = 0.8  # a reading this sure settles the boxes its track's order decides
LONE_GAPS = 2  # a light mark past more than this many sure empty boxes on its track is
#   doubted (doubt_marks_past_empty; past one or two, those boxes are the gaps below), and
#   more unsure empty boxes and gaps than this before a review are the player's order
#   (doubt_unsure_before_review)
MISSED_GAPS = 6  # a sheet whose reading leaves at most this many boxes empty before a mark
#   on their track: review them (doubt_lone_gaps); more, and its player filled it out of
#   order. 2 until session 52: 1469 phone 40 read three pencil ticks on the promotion track
#   empty, silently. On 3,000 harsh photos (1193-1307, 1433-1487) the sheets filled out of
#   order read 12 gaps or more; the 69 read with 1-11 are mostly marks missed (167 of
#   their 195 gaps), and all but three of them are refused as too faint anyway
GAP_CONFIDENCE = 0.4
NEXT_EMPTY_DOUBT = 0.995  # the next box on a track after its last mark, read empty, needs the
#   learned second look this sure of it (doubt_next_empty; elsewhere DOUBT, 0.3). Session
#   58: of the 14,190 such boxes on the 1,201 photos read of seeds 0 and 1613-1697 the
#   model gave 7 under 0.995: 4 marks missed (0.45-0.994: the silent errors of 1631 phone
#   59, 1637 phone 80 and 1669 phone 5, twice) and 3 empty boxes (0.990-0.992); the 28 at
#   0.995-0.999 are all empty. On 2,322 scans and clean renders none is under 0.998
FIRST_EMPTY_DOUBT = 0.99  # the same for a track's first box when none of it is read marked
#   (most such tracks are left empty: a lower bar). Session 60: of the 58,813 such boxes
#   read empty outright on 2,823 harsh photos (seeds 0, 1613-1823) the model gave 42 under
#   0.99: 2 ticks missed (0.939, 0.986: the silent boxes of 1637 phone 80 and 1631 phone
#   59) and 40 empty boxes, 32 of which the page's rules then settle; on 4,828 scans and
#   clean renders 1 of 99,922 (0.987, settled by the page too)
BARE_FAINT = 0.01  # a gap box with no ink and faint ink on less of it than this is bare: on
#   a plain sheet (as quiet as a scan, its marks not light) the player skipped it, no mark
#   was missed. Session 58: 1693 clean 16, a scrambled sheet in black ink, sent its four
#   gaps (ink 0, faint 0-0.004, the second look empty at 1.0) to review; on 2,480 scans
#   and clean renders (twelve seeds) no other sheet had a gap reviewed at all


def gaps(marks: Mapping[str, Mark], tracks: Sequence[Sequence[str]]) -> list[tuple[str, str]]:
    """Every box read empty before a box read marked on its track, with that mark's id."""
    out = []
    for ids in tracks:
        last = _last_mark(marks, ids)
        out += [(ids[i], ids[last]) for i in range(last)
                if ids[i] in marks and marks[ids[i]].state == EMPTY]
    return out


def _last_mark(marks: Mapping[str, Mark], ids: Sequence[str]) -> int:
    """The index of a track's last box read marked (-1 if none)."""
    return max((i for i, rid in enumerate(ids) if rid in marks
                and marks[rid].state in (CHECKED, SLASHED)), default=-1)


def doubt_lone_gaps(marks: dict[str, Mark], tracks: Sequence[Sequence[str]],
                    plain: bool = False) -> list[str]:
    """On a sheet read in order but for at most MISSED_GAPS boxes, those boxes go to review
    (in place); their ids. A sheet with more gaps is filled out of order by its player:
    the validator reports them, and so it does a bare box (_bare) on a `plain` sheet (as
    quiet as a scan, its marks not light), where a mark cannot hide."""
    found = gaps(marks, tracks)
    if len(found) > MISSED_GAPS:
        return []
    if plain:
        found = [(rid, after) for rid, after in found if not _bare(marks[rid])]
    return _doubt_empty(marks, found, "read empty, but {} after it is marked")


def _bare(m: Mark) -> bool:
    """Whether a box read empty holds no ink and almost no faint ink (BARE_FAINT)."""
    return m.features.get("ink", 1.0) == 0 and m.features.get("faint", 1.0) < BARE_FAINT


def _doubt_empty(marks: dict[str, Mark], found: Sequence[tuple[str, str]], said: str
                 ) -> list[str]:
    """Send each empty box of `found` (box, the mark after it) to review, likely empty, a
    doubt of ink (in place); their ids. `said`: the why's start, {} the mark's id."""
    for rid, after in found:
        m = marks[rid]
        marks[rid] = Mark(REVIEW, GAP_CONFIDENCE, EMPTY, f"{said.format(after)}: a light mark "
                          "missed, or a box skipped?", m.features, INK)
    return [rid for rid, _ in found]


def doubt_unsure_before_review(marks: dict[str, Mark], tracks: Sequence[Sequence[str]]
                               ) -> list[str]:
    """A box read empty with less than ANCHOR_CONFIDENCE before a review that leans to a
    mark on its track goes to review too (in place); their ids. If the review is the mark
    it leans to, the empty box is a gap: a mark too light to read as much as one skipped.
    (Session 37: on a harsh photo's light sheet, 331 phone 66, a pencil tick read empty at
    0.6 between two reviews leaning to a mark.) A sure empty box stays: it is the player's
    order, which the validator reports. So does a sheet where the boxes that would go and
    its gaps (a reading out of order) are more than LONE_GAPS: one filled out of order by
    its player, whose light marks say nothing of the boxes before them."""
    found = []  # (box, the review after it)
    for ids in tracks:
        last = max((i for i, rid in enumerate(ids) if rid in marks
                    and marks[rid].state == REVIEW and marks[rid].likely in (CHECKED, SLASHED)),
                   default=-1)
        found += [(rid, ids[last]) for rid in ids[:max(last, 0)] if rid in marks
                  and marks[rid].state == EMPTY and marks[rid].confidence < ANCHOR_CONFIDENCE]
    if len(found) + len(gaps(marks, tracks)) > LONE_GAPS:
        return []
    return _doubt_empty(marks, found, "read empty (not surely), but {} after it may be marked")


def doubt_next_empty(marks: dict[str, Mark], tracks: Sequence[Sequence[str]]) -> list[str]:
    """The next box in order on each track (just after its last box read marked, or its
    first box if none is), read empty outright (not settled: the page's rules or order
    decided a settled box) where the learned second look gives that reading under
    NEXT_EMPTY_DOUBT (a first box: FIRST_EMPTY_DOUBT), goes to review (in place), likely
    empty, a doubt of ink; their ids. A player fills a track in order, so the mark a
    reading misses is likeliest there."""
    doubted = []
    for ids in tracks:
        last = _last_mark(marks, ids)
        if last + 1 >= len(ids) or ids[last + 1] not in marks:
            continue
        rid = ids[last + 1]
        m = marks[rid]
        p = m.features.get("audit_p", 1.0)
        bar, after = ((NEXT_EMPTY_DOUBT, f"the next box after {ids[last]}'s mark") if last >= 0
                      else (FIRST_EMPTY_DOUBT,
                            "the first box of its track, none of which is read marked"))
        if m.state == EMPTY and not m.why and p < bar:
            marks[rid] = Mark(REVIEW, GAP_CONFIDENCE, EMPTY,
                              f"read empty, {after}, and the learned second look doubts it "
                              f"(empty {p:.3f}): a light mark missed?", m.features, INK)
            doubted.append(rid)
    return doubted


def _sure(marks: Mapping[str, Mark], ids: Sequence[str]) -> tuple[int, int]:
    """The index of a track's last sure mark (-1 if none) and of its first sure empty box
    (len(ids) if none): sure is a reading of at least ANCHOR_CONFIDENCE."""
    sure = [marks[rid].state if rid in marks and marks[rid].confidence >= ANCHOR_CONFIDENCE
            else None for rid in ids]
    last_mark = max((i for i, s in enumerate(sure) if s in (CHECKED, SLASHED)), default=-1)
    first_empty = min((i for i, s in enumerate(sure) if s == EMPTY), default=len(ids))
    return last_mark, first_empty


def doubt_marks_past_empty(marks: dict[str, Mark], tracks: Sequence[Sequence[str]],
                           quiet: bool = False) -> list[str]:
    """A mark read from light evidence (marks.light_mark: a little ink in its printed
    number, or a faint stroke) past more than LONE_GAPS sure empty boxes, on a track whose
    sure readings keep the order, goes to review (in place); their ids. (Past one or two,
    a mark missed in them is as likely: doubt_lone_gaps sends those to review instead.)
    On a `quiet` sheet (as quiet as a scan, light marks or not) a mark the learned second
    look is as sure of as would settle a review there stays: no noise makes such a mark,
    so the player filled the track out of order (the validator reports it). Session 62:
    every mark of light evidence doubted so on 9,280 cached scans and clean renders (12,
    on scrambled sheets) was the player's, the model at 0.90-1.0, light sheets' too."""
    doubted = []
    for ids in tracks:
        last_mark, first_empty = _sure(marks, ids)
        if last_mark > first_empty:
            continue  # (the player's own order: the validator reports it)
        empties = 0
        for rid in ids[first_empty:]:
            m = marks.get(rid)
            if m is None:
                continue
            if m.state == EMPTY and m.confidence >= ANCHOR_CONFIDENCE:
                empties += 1
            elif light_mark(m) and empties > LONE_GAPS and not (quiet and _model_sure(m)):
                said, cause = (("a little ink in the print read as a mark", "the print's residue")
                               if from_ink_in_print(m) else ("a light mark", "the photo's noise"))
                marks[rid] = Mark(REVIEW, GAP_CONFIDENCE, m.state,
                                  f"{said}, but {ids[first_empty]} before it is empty: a light "
                                  f"mark out of order, or {cause}?", m.features, INK)
                doubted.append(rid)
    return doubted


def _model_sure(m: Mark) -> bool:
    """Whether the learned second look gives a mark's reading what settles a review on a
    quiet sheet (audit.settle_bar: a mark's bar is the same on a light one)."""
    return m.features.get("audit_p", 0.0) >= settle_bar(m.state, quiet=True, light=False)


def doubt_marks_in_future_tours(marks: dict[str, Mark],
                                tours: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    """A mission ticked above a tour (`tours`: each tour's box with the mission boxes above
    it, game.opial.marks.tours_with_missions), read from less than sure evidence (under
    ANCHOR_CONFIDENCE: a faint mark), while the tour before it is surely not checked off,
    goes to review (in place); their ids. The rules allow no mission above a tour not yet
    reached (game.opial.validate: missions-in-future-tour), so a light mark there is the
    photo's noise or a stray as likely as the player's. A sheet with a sure mark so out of
    turn is the player's own order (the validator reports it): nothing is doubted there."""
    found = []  # (mission box, its tour's number)
    for t in range(1, len(tours)):
        before = marks.get(tours[t - 1][0])
        if before is None or before.state != EMPTY or before.confidence < ANCHOR_CONFIDENCE:
            continue
        found += [(rid, t + 1) for rid in tours[t][1]
                  if rid in marks and marks[rid].state in (CHECKED, SLASHED)]
    if any(marks[rid].confidence >= ANCHOR_CONFIDENCE for rid, _ in found):
        return []
    for rid, tour in found:
        m = marks[rid]
        marks[rid] = Mark(REVIEW, GAP_CONFIDENCE, m.state,
                          f"a light mark above tour {tour}, but tour {tour - 1} is not checked "
                          "off: a mark out of turn, or the photo's noise?", m.features, INK)
    return [rid for rid, _ in found]


def breaks_order(marks: Mapping[str, Mark], tracks: Sequence[Sequence[str]]) -> bool:
    """Whether a sure empty box comes before a sure mark on any track."""
    return bool(gaps(marks, tracks))


def settle(marks: dict[str, Mark], tracks: Sequence[Sequence[str]], trust_empty: bool = True
           ) -> list[str]:
    """Settle the review boxes the order of their track decides (in place); their ids.
    `trust_empty`: whether an empty box may settle the boxes after it."""
    if breaks_order(marks, tracks):
        return []
    settled = []
    for ids in tracks:
        last_mark, first_empty = _sure(marks, ids)
        if not trust_empty:
            first_empty = len(ids)
        for i, rid in enumerate(ids):
            m = marks.get(rid)
            if m is None or m.state != REVIEW or m.doubt != INK:
                continue
            if (i < last_mark and not is_executed(rid)
                    and (m.likely == CHECKED or unclear_ink(m) or edge_ink(m))):
                why, state = f"a little ink, and {ids[last_mark]} after it is marked", CHECKED
            elif i > first_empty and m.likely == EMPTY:
                why, state = f"a little ink, and {ids[first_empty]} before it is empty", EMPTY
            else:
                continue
            marks[rid] = Mark(state, SETTLED_CONFIDENCE, state,
                              f"settled by the track's order: {why}", m.features)
            settled.append(rid)
    return settled
