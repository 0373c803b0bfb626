"""What a box reads as: the states, the Mark (state, confidence, likely value, why), the
sheet's Calibration, and the levels of noise and blur that many rules are keyed on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CHECKED, SLASHED, EMPTY, CANCELLED, REVIEW = "checked", "slashed", "empty", "cancelled", "review"
INK = "ink"  # a review's doubt: is there a mark at all (not: which mark)
SETTLED = "settled"  # a read mark's: the rules' shape measures left it in doubt and the
#   success model settled it (_success_says_slash); still unclear to require_legible
QUIET_NOISE = 0.012  # a sheet this quiet (scans, clean photos: 7 sigma well under the ink
#                     threshold's floor) shows a thin faint stroke on 5.5 % of a box, not 10 %
SCAN_NOISE = 0.006  # a sheet as quiet as a scan (the bench's scans and clean renders measure
#                    0.004-0.0055; its phone photos mostly more)
# box thresholds: fractions of a box's inside
F_EMPTY = 0.02  # less ink than this: empty (a speck, noise)
F_MARK = 0.055  # more ink than this: a mark (a single thin stroke across covers ~0.1)
F_CENTRE = 0.04  # a mark crosses the middle of the box; ink only at the edge is stray
BLURRED_PX = 1.8  # px: a photo this blurred (the print model's blur): a small box's outline
#                   spreads over its inside (printed.pedestal), a stroke's short arm may be
#                   lost (classifier.SLASH_SPAN)


@dataclass
class Mark:
    """The reading of one checkbox or bubble."""

    state: str  # checked | slashed | empty | cancelled | review
    confidence: float
    likely: str  # the most likely of checked/slashed/empty/cancelled (= state unless review)
    why: str = ""  # for review and faint marks: what was unclear
    features: dict[str, float] = field(default_factory=dict)
    doubt: str = ""  # for review: INK when the doubt is whether the box holds a mark at all;
    #   for a read mark: SETTLED when a model settled the rules' doubt


@dataclass
class Calibration:
    paper: float  # median darkness of the boxes' insides (paper)
    noise: float  # robust spread of it
    t_ink: float  # pixel threshold for ink
    t_faint: float  # pixel threshold for faint ink (pencil)
    ink_level: float = 0.0  # typical darkness of a mark on this sheet
    t_clear: float = 0.0  # faint ink in a box with printed text (above its blur halo)
    t_near: float = 0.0  # ... and right beside the printed text
    blur: float = 0.0  # px: the print's blur on the photo (the print model's)
    gain: float = 1.0  # the print's darkness on the photo over the blank sheet's (its model's)


def id_list(ids: list[str], shown: int = 8) -> str:
    """Region ids for a warning: the first `shown` of them, "..." when there are more."""
    return ", ".join(ids[:shown]) + ("..." if len(ids) > shown else "")


def is_executed(region_id: str) -> bool:
    return region_id.startswith("mission.")
