"""One choice per bubble group (a game length, a start option, a Spacer form's pick).

A group with one option marked has its choice. A group with several options marked goes
to review, the inkiest option likely, unless one of them is read as marked for sure
(SURE_CONFIDENCE) and each other one is a review whose only doubt is whether it holds any
ink at all (marks.INK: a speck of dust on the glass, an erasure, a light stray). Then the
sure one is the choice and the others are settled as empty: a second choice would be
drawn as a mark, not as a trace. (Session 39: two scans had a dark start option and two
specks of dust in another bubble of the group, the only review on either sheet.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scanner.marks import CHECKED, EMPTY, INK, REVIEW, SETTLED, SLASHED, Mark, id_list
from scanner.marks.audit import SETTLE_WHY
from scanner.marks.state import F_EMPTY
from scanner.order import ANCHOR_CONFIDENCE, SETTLED_CONFIDENCE
from sheets.manifest import Region

MARKED = (CHECKED, SLASHED)
SURE_CONFIDENCE = ANCHOR_CONFIDENCE  # a reading this sure is a group's choice, as it
#   anchors a track's order
SETTLED_WHY = "settled by its group: {} is surely the choice, and this option holds only a trace"
UNCHOSEN_WHY = ("no {} option read as marked, and this one holds ink that the learned second "
                "look settled as empty: a light mark?")


def bubble_groups(regions: Sequence[Region]) -> dict[str, list[str]]:
    """Each bubble group's region ids, in the manifest's order."""
    groups: dict[str, list[str]] = {}
    for reg in regions:
        if reg.kind == "bubble":
            groups.setdefault(reg.group, []).append(reg.id)
    return groups


def one_choice(marks: dict[str, Mark], groups: Mapping[str, Sequence[str]], doubt: str
               ) -> tuple[list[str], list[str]]:
    """Hold every group to one choice (in place): the ids settled as empty, and the groups
    with no option marked. `doubt`: the review's why for several marked, {} the group."""
    settled: list[str] = []
    unmarked: list[str] = []
    for group, ids in groups.items():
        marked = [i for i in ids if marks[i].likely in MARKED]
        if not marked:
            unmarked.append(group)
        if len(marked) < 2:
            continue
        sure = [i for i in marked
                if marks[i].state in MARKED and marks[i].confidence >= SURE_CONFIDENCE]
        traces = [i for i in marked if i not in sure]
        if len(sure) == 1 and all(marks[i].state == REVIEW and marks[i].doubt == INK
                                  for i in traces):
            for i in traces:
                marks[i] = Mark(EMPTY, SETTLED_CONFIDENCE, EMPTY, SETTLED_WHY.format(sure[0]),
                                marks[i].features)
            settled += traces
            continue
        best = max(marked, key=lambda i: marks[i].features.get("ink", 0.0))
        for i in marked:
            m = marks[i]
            marks[i] = Mark(REVIEW, min(m.confidence, 0.4), CHECKED if i == best else EMPTY,
                            doubt.format(group), m.features)
    return settled, unmarked


def doubt_unchosen(marks: dict[str, Mark], groups: Mapping[str, Sequence[str]],
                   unmarked: Sequence[str]) -> list[str]:
    """In each of the `unmarked` groups, send back to review (likely empty) an option
    whose ink the rules doubted and the learned second look settled as empty, when that
    ink is more than a speck (F_EMPTY): a group is nearly always chosen, so a light mark
    missed there costs the career its start or length. Session 63, held out: 2081 scan-300
    61's light pencil tick low in a start bubble, settled empty at 0.998, silently. Of the
    2,038 groups read with no option on the cached sheets whose truth marks none, two had
    an option so settled, both specks on photos (ink under 0.007). Returns the ids sent."""
    sent = []
    for group in unmarked:
        for rid in groups[group]:
            m = marks[rid]
            if (m.state == EMPTY and m.doubt == SETTLED and m.why.startswith(SETTLE_WHY)
                    and m.features.get("ink", 0.0) >= F_EMPTY):
                marks[rid] = Mark(REVIEW, 0.4, EMPTY, UNCHOSEN_WHY.format(group), m.features,
                                  INK)
                sent.append(rid)
    return sent


def settled_notes(settled: Sequence[str], noun: str) -> list[str]:
    """The note a scan gives of the options one_choice settled (`noun`: what they are
    called on that sheet, "box(es)", "bubble(s)"); none if it settled none."""
    if not settled:
        return []
    return [f"{len(settled)} unclear {noun} settled by their group's one sure choice: "
            f"{id_list(list(settled))}"]
