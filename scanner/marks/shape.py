"""One stroke or two: the rules that read or doubt an Executed box's stroke where the shape
measures (scanner.marks.strokes) leave it unsure, with the tick-or-slash and success
models (scanner.tickslash), by how quiet and how blurred the sheet is.
"""

from __future__ import annotations

from scanner.marks.printed import WASHED_GAIN
from scanner.marks.state import (
    BLURRED_PX,
    CHECKED,
    F_CENTRE,
    F_MARK,
    QUIET_NOISE,
    REVIEW,
    SCAN_NOISE,
    SETTLED,
    SLASHED,
    Calibration,
    Mark,
)
from scanner.marks.strokes import (
    FAR_SLASH,
    FAT_FILL,
    PEN_BULGE,
    PEN_FILL,
    SLASH_MAX_INK,
    SPLIT_PAPER,
    THICK_ONE,
    _stroke_state,
)

# box thresholds: fractions of a box's inside


THICK_SLASH = 0.98  # a box inked over SLASH_MAX_INK is a sure slash only with this much of
#                    its ink on one band (95 % of the bench's thick slashes have 0.98)
END_GAP, ALONE = 0.12, 0.01  # a faint single stroke on a quiet sheet (no more than ALONE
#   of its ink on a second band) stopping less short than END_GAP of either edge of its box
#   (as a share of the box's length along it) runs across the box: a slash (18 of the
#   bench's 22 such slashes; the one light tick whose short arm was lost in the print: 0.163)
BENT_LINE, BENT_SPAN = 0.99, 0.89  # a single stroke with less of its ink on its band than
#                                   this that crosses less of its box than this: review
SPLIT_SECOND, SPLIT_SLASH_P = 0.09, 0.01  # a fat mark the paper-split test alone calls
#   two strokes (a tick, a cross), whose second band holds under SPLIT_SECOND of its ink
#   (half a cross's SECOND_CROSS) and that both tick-or-slash models call a slash (under
#   SPLIT_SLASH_P): review, likely slashed (_split_slash). Session 29: seed 191 phone 53's
#   marker slash, a third of its box wide, left little paper beside its band, its edges
#   put 6.9 % of its ink on a second band and it read silently as a tick (the models: 0.0005
#   and 0.0). Of the 1,421 fat marks the split test called two strokes on 35 seeds' harsh
#   photos, 80 ticks and crosses have both models under 0.01 (crosses are not what they
#   learned); 3 of those measure 0.071-0.090 on their second band, and one of them goes
#   to review (223 phone 37; a hatched fill reads as coloured in first, one is at 0.090)
SUCCESS_VETO = 0.04  # a stroke the rules read as a tick by a little ink off its band (a
#   second band under SECOND_CROSS, FAR_TICK off the first) that scanner.tickslash's
#   success model (crosses learned as successes, ticks drawn loosely) calls a success with
#   under this: review, likely a slash (_far_slash). Session 30, 38 seeds' default sets:
#   of the 5,859 ticks and crosses read that way, one measures under 0.04 (0.013, 21
#   phone 37), the next 0.058; of the 12 slashes read that way, four measure 0.0001-0.024
#   (three silent errors: 241 phone 25, 263 phone 2, 257 scan-150 0), the rest are
#   blurred or bent strokes the model calls ticks too (0.12-1.0). The two tick-or-slash
#   models cannot veto there: they never learned a cross, and call fat ones slashes. A
#   first success model, trained on ticks as tidy as theirs, called the bench's low ticks
#   (vertex on the box's bottom edge) and shifted crosses slashes: 17 under 0.02
SUCCESS_SURE = 0.998  # ... and the other way, a stroke the rules read as a slash (by any
#   rule, classify) that it calls a success with this much: review (likely slashed;
#   _success_slash). Session 30, ten seeds' harsh and mild photos: of the 6,697
#   slashes read right, one measures 0.999 or more (two 0.995); a fresh seed's blurred
#   cross read silently as a slash 0.9995 (271 phone 96, its strokes merged into one blot).
#   Session 31 (0.999 to 0.998, and faint marks too): two short-armed ticks read silently
#   as slashes on the short-ticks sets, 0.9987 (127 short-ticks 33) and a faint one 0.9999
#   (11 short-ticks-scan 36); of the 47,106 slashes of 41 seeds one read right measures
#   0.998 or more (a faint one, 0.9992: 61 phone 29), the next 0.9977
SUCCESS_SETTLES = 0.005  # a stroke the rules cannot call one stroke or two (a tick-like
#   slash, a second band between SECOND_SLASH and SECOND_CROSS, a faint mark's shape) that
#   the success model calls a success with under this: a slash (_success_says_slash).
#   Session 31, 41 seeds' default and short-ticks sets: of the 215,159 ticks and crosses
#   (any reading) two measure under 0.005 (0.0016, 0.0027: reviews for ink off a band and
#   for a little ink), none in those three reviews, where the lowest are 0.0099 (a
#   blurred cross) and 0.018 (a tick with a blob). Of the 914 slashes sent to those
#   reviews 429 measure under it (28 of them off the harsh photos)
SUCCESS_LEANS = 0.5  # a single stroke the thin-pen model is all but sure is a tick
#   (_sure_model_tick) is read as one only if the success model does not lean to a slash
#   (under this). Session 32, a fresh seed's clean render (313 clean 10): a slash across
#   "+1" steep enough to look like a tick's long arm read silently as a tick, the thin-pen
#   and marker models at 1.0 and 0.97, the success model 0.49. Of the 2,209 ticks on 41
#   seeds' quiet sheets read as one band with the thin-pen model at 0.999 or more, none
#   measures under 0.5 (the lowest 0.53, 0.75, 0.86). Session 41: nor is a stroke read as
#   a tick by its widening alone (_widens): a fresh seed's pencil slash across "+1" on a
#   harsh photo (349 phone 39) widened 2.8 times where it crosses the print, the models
#   0.11 and 0.33, and read silently as a tick; of the 3,234 ticks read by their widening
#   on 26 seeds' harsh photos and fifteen seeds' short-ticks sets the lowest measures 0.72.
#   Nor, on a sheet as quiet as a scan, is a faint stroke read as a tick by ink off its
#   band (_light_stroke_state; 349 scan-600 7 at 0.094): of the 1,062 light ticks read as
#   checked on the fifty seeds' scans, clean renders and short-ticks scans, 0.72 the lowest
SETTLED_WHY = "one stroke or two? settled by the success model: a slash"
TICK_VETO = 0.9  # a slash by the rules that scanner.tickslash's model calls a tick with
#   this probability: review (bench_ticks: 2-4 px pens' ticks read as slashes 114 -> 7 of
#   1620; the cached bench sheets: 15 slashes of ~3000 sent to review, nothing else changed.
#   0.95 until session 24: at 0.9 a pale pencil tick on a short-ticks scan (0.91) goes to
#   review, with 5 of the ~20,000 slashes of the cached sheets of fourteen seeds; on 160
#   fresh training-style pages 5 pen ticks read as slashes and on 80 marker pages 7 go to
#   review, no slash; bench_ticks unchanged)
SLASH_VETO = 0.02  # ... and a stroke the rules read as a tick only because it widens at one
#   point (_widens) that the model calls a tick with less than this probability: review (a
#   blot or a hook on a slash widens it too. Cached sheets, seeds 0/7/11/21/22/31: 5 slashes
#   read silently as ticks on photos go to review, and 17 ticks read right. On scans since
#   session 18: a fresh seed's marker slash widened 1.43x on a scan, read as a tick; on the
#   cached sheets one faint tick read right goes to review there. 0.01 until session 21:
#   a faint slash widened 1.46x at 0.013 on a blurred photo; on the 2,985 cached sheets no
#   tick read by its widening lies under 0.02, and bench_ticks and the marker pages unchanged)
TICK_SOME = 0.25  # ... or with this probability, on a stroke widening BULGE_TICK at one point
#   (the bench's short-ticks set, seed 0: the 7 ticks left read as slashes had 0.26-0.86 and
#   1.44-2.38; of the ~2900 slashes read on the cached sheets 9 have both)
TICK_TRACE, BULGE_VERTEX = 0.02, 2.0  # ... or with this, on one widening to twice its width
#   (a pale tick whose short arm hides in the printed "+1": only the vertex's blot shows.
#   Seed 53's short-ticks-scan 5, read as a slash; of the cached sheets' slashes widening
#   that much none has it: they score 0.0. bench_ticks and the marker pages: no change)
QUIET_TICK_P, QUIET_TICK_LINE, QUIET_TICK_BULGE = 0.99, 0.99, 1.2  # on a quiet sheet, a
#   single stroke that scanner.tickslash's model calls a tick with this probability, with ink
#   off its straight band (less than this share on it) and widening this much at one point
#   (its vertex) is a tick: three signs that agree (single strokes on the cached bench's quiet
#   sheets, seeds 0/7/11 with the short-ticks sets: 284 of 427 ticks so read, none of 2612
#   slashes; bench_ticks' noise-free pages: 913 of 1484 and none of 1619; the slashes the
#   model calls ticks keep every ink pixel on their band. Held out, seeds 21/22: 186 reviews
#   read right, nothing read wrong)
QUIET_TICK_MID = 0.99  # ... and ink the rules cannot call one stroke or two (a second band of
#   5-18 %) that the model calls a tick with this probability is one (cached bench, seeds
#   0/7/11/21/22/31: 68 ticks sent to review read so; the 6 slashes there measure under 0.32;
#   bench_ticks: 24 ticks)
QUIET_SLASH_P = 0.05  # on a sheet as quiet as a scan (SCAN_NOISE), a single stroke that a
#   tick could look like by its shape (_tick_like) is a slash when the model calls it one (a
#   tick with under this probability) and it does not widen BULGE_TICK at one point (the
#   cached bench, seeds 0/7/11/21/22: 33 slashes sent to review read so, no tick changed;
#   bench_ticks: 32 slashes, no tick. On a sharpened, blurred phone photo (noise 0.008) the
#   model called a light tick a slash (0.002): there the shape's doubt stays a review).
#   0.01 until session 17; the model retrained then (seeing the print's zone) puts 98 % of
#   its held-out slashes under 0.05 and no tick of the cached quiet sheets in 0.01-0.2: 6
#   reviews fewer there, nothing else changed, and bench_ticks unchanged
PRINT_SLASH_P = 0.01  # on a sheet as quiet as a scan, a stroke the rules read as one (all
#   but FAR_SLASH of its ink on its band) that the model calls a slash with under this
#   probability is one however much it widens (_sure_model_slash): a light pencil slash
#   across the printed "+2" widens where it crosses the digit's strokes, not at a vertex
#   (session 29: 7 of the 11 clean renders left to review on 35 seeds were such slashes,
#   widening 2.4-3.9 times; on those seeds' quiet sheets no tick measures under it with its
#   ink on one band, nor on bench_ticks' pages, pens and markers, seeds 0-2, where every
#   such tick measures 0.3 or more. On a blurred phone photo the model is that sure of a
#   tick: 35 there, none on a sheet under SCAN_NOISE. Light strokes only (under DARK_LEVEL,
#   inking under SLASH_MAX_INK): session 24's marker slash widening 1.6x stays a review)
SURE_TICK_P = 0.999  # ... and the other way, on a quiet sheet (QUIET_NOISE), one the model
#   calls a tick at this or more is a tick (_sure_model_tick; session 17, the retrained
#   model): of its 3,089 held-out slashes none reaches 0.99, nor any slash sent to review
#   on the cached quiet sheets. On the cached sheets 144 short-armed ticks left to review
#   read right (nearly all on the short-ticks sets), nothing else changed; bench_ticks
#   seeds 0-2: 131-162 stub ticks a seed, no slash; 300 fresh training-style pages: 925
#   reviews fewer, the same silent errors (at 0.99 on scans alone: 4 slashes more read as
#   ticks there)
DARK_LEVEL, DARK_SPAN = 0.4, 0.8  # on a quiet sheet (QUIET_NOISE), a pen's or a marker's
#   stroke (its darkness over DARK_LEVEL: no pencil) that crosses this much of its box with
#   nothing off its band (FAR_SLASH) is a slash, however much of its ink a second band holds
#   (a thick stroke's edges) or however it bends, when the model leans to a slash and the
#   stroke keeps its width (DARK_TICK_P, DARK_BULGE), or when the model is sure of a slash
#   and the stroke widens less than a tick's vertex does (DARK_SURE_P, DARK_WIDE): a tick's
#   short arm leaves the band or widens its vertex, and a pen's dark tick the model calls a
#   tick. Either model may say so: a thin marker's stroke (inking under SLASH_MAX_INK) is
#   asked of the pens' model first, which calls two such slashes on scans ticks (0.71,
#   0.78) where the fat marks' model calls them slashes (0.05, 0.08). Session 24, the
#   cached sheets of the fourteen seeds with their short-ticks sets: 13 slashes sent to
#   review on scans read so (pens and markers), and 3 on phone photos as quiet as a scan;
#   no tick the models were asked of has it, on those scans or on any of the 2,520 photos
#   (there even ignoring the photo's noise, where 115 slashes left to review would read
#   so). At 0.2 with any widening under 1.6, a short-armed tick over "+2" on a quiet phone
#   photo (the pens' model 0.14, widening 1.36) read as a slash: the one such tick. It
#   replaces session 19's _fat_slash (a marker's stroke corner to corner, widening under
#   1.1, the model under 0.1), which it holds. Held to scans (SCAN_NOISE) at first; on
#   every quiet photo (QUIET_NOISE), the fourteen seeds and a fresh one (127): 47 reviews
#   fewer on the default sets and 13 on the short-ticks sets, no box read wrong
DARK_TICK_P, DARK_BULGE = 0.2, 1.25
DARK_SURE_P, DARK_WIDE = 0.01, 1.6
QUIET_BENT, QUIET_SOME = 0.98, 0.1  # ... and one with less of its ink on its band than this
#   that the model finds somewhat like a tick (this probability) or that widens BULGE_TICK:
#   review (4 ticks read as slashes on those scans; 1 and 7 of those slashes to review)
BULGE_INK, BULGE_TICK = 0.35, 1.4  # a mark inking this much of its box whose ink widens to
#                                   this many times its typical width: a thick tick
FAINT_SLASH_INK, FAINT_SLASH_SPAN = 0.03, 0.75  # ... and there a single straight stroke (all
#   its ink on one band, none far off it) inking this much of an Executed box and crossing
#   this much of it, that the model calls a slash (under QUIET_SLASH_P), is one: a light
#   pencil slash too thin for F_MARK, or a faint one whose width the pencil's grain makes
#   uneven (its widening is no tick's vertex: _light_stroke_state). A tick's long arm alone
#   stops at its vertex (the cached sheets' ticks read so cross 0.55-0.60 of the box); the
#   quiet sheets' ticks that read as one straight band the model calls ticks (0.36 and
#   over). Cached sheets, seeds 0/7/11/21/22/31: 11 slashes left to review read so at 0.84
#   (session 15), 8 more at 0.75 with the faint marks too (session 16), nothing else
#   changed; bench_ticks, seeds 0-2: 14 slashes, no tick
STRAIGHT_SECOND = 0.04  # on a quiet sheet, a dark stroke (DARK_LEVEL) with nothing off its
#   band (FAR_SLASH), no more than this on a second band, keeping its width (under
#   DARK_BULGE) that the success model leans to call a slash (SUCCESS_LEANS) is one
#   (_straight_slash), whatever the two tick-or-slash models say: a marker's slash begun
#   mid-box, whose blunt end they take for a tick's vertex (session 37: 181 clean 1 and
#   337 clean 3, the models 0.84-0.98, success 0.34-0.37). Fifty seeds' scans and clean
#   renders and fifteen seeds' short-ticks scans: 14,521 of the 14,538 slashes so shaped
#   measure under 0.5 on the success model, and none of the 141 ticks (0.75 the least,
#   then 0.97); 4 of the 9 slashes left to review "a slash, or a tick" read so
SLASH_SPAN = 0.82  # on a BLURRED_PX, noisy photo a single stroke crossing less of its box
#                   than this may be a tick's long arm, its short arm lost in the blur (a
#                   tick over "+1" measured 0.815; 0.8 until session 9)


def _success_says_slash(f: dict[str, float]) -> bool:
    """A stroke whose shape leaves the rules in doubt (one stroke or two?) that the success
    model calls a slash all but surely (SUCCESS_SETTLES). It learned crosses and loose
    ticks as successes, which the older models did not, so its slash is one where theirs
    was not (a marker's blunt end is a tick's vertex to them)."""
    return f.get("success_p", 1.0) < SUCCESS_SETTLES


def _success_leans_slash(f: dict[str, float]) -> bool:
    """The success model leans to a slash (under SUCCESS_LEANS): then the thin-pen model
    alone does not read a single stroke as a tick (_sure_model_tick)."""
    return f.get("success_p", 1.0) < SUCCESS_LEANS


def _settled_slash(f: dict[str, float]) -> Mark:
    """A slash read on the success model's word (_success_says_slash): SETTLED, so it
    still counts as unclear to require_legible."""
    return Mark(SLASHED, 0.6, SLASHED, SETTLED_WHY, f, SETTLED)


def _success_slash(f: dict[str, float]) -> bool:
    """A stroke the rules read as a slash that the success model is all but sure is a tick
    or a cross (SUCCESS_SURE): a blurred one whose second stroke merged into the first, a
    short-armed tick, a fat blurred cross (classify)."""
    return f.get("success_p", 0.0) >= SUCCESS_SURE


def _far_slash(f: dict[str, float]) -> bool:
    """A stroke read as a tick by a little ink off its band that the success model calls a
    slash (SUCCESS_VETO): the print's residue or a blur's spread off a slash as much as a
    tick's short arm."""
    return f.get("success_p", 1.0) < SUCCESS_VETO


def _weak_second(f: dict[str, float]) -> bool:
    """A fat mark that stroke_shape calls two strokes for the paper-split test alone
    (`split_two`) whose second band holds under SPLIT_SECOND of its ink: a marker's cross
    puts more there, a marker's slash only its blunt edges."""
    return "split_two" in f and f.get("second", 1.0) < SPLIT_SECOND


def _split_slash(f: dict[str, float]) -> bool:
    """_weak_second, and both tick-or-slash models (the marker one's `tick_p`, the thin
    pen's `thin_p`) call it a slash (under SPLIT_SLASH_P): one stroke as much as two."""
    return (_weak_second(f) and f.get("tick_p", 1.0) < SPLIT_SLASH_P
            and f.get("thin_p", 1.0) < SPLIT_SLASH_P)


def _widens(f: dict[str, float], cal: Calibration) -> bool:
    """Ink that widens to BULGE_TICK times its stroke somewhere along it: a tick, its short
    arm leaving the long one at the vertex (on a thick mark, merged into it). A slash keeps
    its width, but on a washed-out photo (the print under WASHED_GAIN of its darkness) the
    haze widens a thin one too (the bench's: 1.54 and 1.70), and on a noisy one a faint
    stroke's width is the noise's (2.7): there only a thick mark is told this way. A
    stroke the model calls a slash is not (_model_slash: a blot or a hook), nor one the
    success model leans to call a slash (_success_leans_slash: a pencil slash widened
    where it crosses the printed number)."""
    if f.get("bulge", 1.0) < BULGE_TICK or _model_slash(f) or _success_leans_slash(f):
        return False
    return (f["ink"] >= BULGE_INK or cal.noise < QUIET_NOISE
            or (f["ink"] >= F_MARK and cal.gain >= WASHED_GAIN))


def _model_slash(f: dict[str, float]) -> bool:
    """Ink the rules would read as a tick by its widening alone (_widens) that the tick-or-slash
    model calls a slash (SLASH_VETO): a veto, as TICK_VETO is the other way round."""
    return "tick_p" in f and f["tick_p"] < SLASH_VETO


def _inked(f: dict[str, float]) -> float:
    """How much of its box a mark inks: `fill` (its ink off the print) or `ink` (over the
    print too), whichever is more."""
    return max(f.get("fill", f["ink"]), f["ink"])


def _tick_like(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
               ) -> bool:
    """A stroke read as one (a slash) that a tick could look like too: a fat one with a
    little ink off its line (a very fat one, with any); one not quite straight that stops
    short of the box's corners (a tick whose short arm is hardly longer than the pen is
    wide, or that blur merged into the long arm); on a blurred, noisy photo, one crossing
    less than SLASH_SPAN of its box (a tick's long arm, its short arm lost in the print's
    blur); on a quiet sheet, one with some ink off its band that the model finds somewhat
    like a tick or that widens at one point (QUIET_BENT); and one the tick-or-slash model
    calls a tick (_model_tick)."""
    if line is None:
        return False
    span = f.get("span", 1.0)
    fill = _inked(f)
    return ((fill >= SLASH_MAX_INK and line[0] < THICK_SLASH)
            or (fill >= PEN_FILL and f.get("bulge", 1.0) >= PEN_BULGE)
            or (fill >= FAT_FILL and line[0] < THICK_ONE)
            or (line[0] < BENT_LINE and span < BENT_SPAN)
            or _arm_lost(f, cal)
            or (cal.noise < QUIET_NOISE and line[0] < QUIET_BENT
                and (f.get("tick_p", 0.0) >= QUIET_SOME or f.get("bulge", 1.0) >= BULGE_TICK))
            or _model_tick(f))


def _arm_lost(f: dict[str, float], cal: Calibration) -> bool:
    """On a blurred, noisy photo, a stroke crossing less than SLASH_SPAN of its box: a
    tick's long arm whose short arm the print's blur may have swallowed. What is lost no
    model can see, so the success model does not settle it (_success_says_slash)."""
    return (cal.blur >= BLURRED_PX and cal.noise >= QUIET_NOISE
            and f.get("span", 1.0) < SLASH_SPAN)


def _quiet_tick(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
                ) -> bool:
    """On a quiet sheet (a scan, a clean photo), a stroke read as one that is a tick whose
    short arm is short: the model calls it a tick, some of its ink lies off its straight
    band, and it widens at one point (QUIET_TICK_P, QUIET_TICK_LINE, QUIET_TICK_BULGE). A
    slash, however bent, keeps its ink on its band there."""
    return (line is not None and cal.noise < QUIET_NOISE
            and f.get("tick_p", 0.0) >= QUIET_TICK_P and line[0] < QUIET_TICK_LINE
            and f.get("bulge", 1.0) >= QUIET_TICK_BULGE)


def _thick_doubt(f: dict[str, float]) -> bool:
    """A dark stroke the thin-pen model calls a tick that the marker model doubts (under
    TICK_VETO): a marker's slash, its blunt end a tick's vertex to the thin-pen model.
    The thin-pen model alone does not overturn the rules' slash there (session 26: on
    seventeen seeds' scans, short-ticks scans and photos, the 2,300 ticks so read measure
    0.9 and over, the two slashes 0.48 and 0.84)."""
    return "thick_p" in f and f["thick_p"] < TICK_VETO


def _quiet_model_tick(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
                      ) -> bool:
    """On a quiet sheet, ink the rules cannot call one stroke or two (_stroke_state's review:
    mostly a second band holding between SECOND_SLASH and SECOND_CROSS of it, little of it
    far off) that the model calls a tick (QUIET_TICK_MID): a tick whose short arm is short
    or merged."""
    return (line is not None and cal.noise < QUIET_NOISE
            and f.get("tick_p", 0.0) >= QUIET_TICK_MID)


def _quiet_slash(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
                 ) -> bool:
    """On a sheet as quiet as a scan, a stroke the rules read as one, and that a tick could
    look like by its shape only, that is a slash all the same: the model calls it a slash
    (a tick with under QUIET_SLASH_P) and it keeps its width (no BULGE_TICK widening at a
    vertex). The rules' reading and the model's answer agree; the shape's doubt is
    outweighed."""
    return (line is not None and cal.noise < SCAN_NOISE
            and "tick_p" in f and f["tick_p"] < QUIET_SLASH_P
            and f.get("bulge", 1.0) < BULGE_TICK)


def _dark_slash(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
                ) -> bool:
    """On a quiet sheet (QUIET_NOISE), a pen's or a marker's stroke (DARK_LEVEL) across its
    box (DARK_SPAN), nothing of it off its band (FAR_SLASH), that the model leans to call a
    slash while it keeps its width (DARK_TICK_P, DARK_BULGE), or is sure of while it widens
    less than a vertex (DARK_SURE_P, DARK_WIDE): a slash. Dark ink shows a tick's short
    arm on a scan or a clean photo; the doubt left is the measures' (a thick stroke's edges
    on a second band, a slight bend), not the mark's. Either model may say so: a thin
    marker's stroke inks too little of its box to be asked of the fat marks' model first
    (`thick_p`: that model's answer for a dark stroke the pens' was asked of)."""
    p, bulge = min(f.get("tick_p", 1.0), f.get("thick_p", 1.0)), f.get("bulge", 9.0)
    return (line is not None and cal.noise < QUIET_NOISE and f["level"] >= DARK_LEVEL
            and f.get("far", 1.0) < FAR_SLASH and f.get("span", 0.0) >= DARK_SPAN
            and ((p < DARK_TICK_P and bulge < DARK_BULGE)
                 or (p < DARK_SURE_P and bulge < DARK_WIDE)))


def _quiet_one_stroke(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
                      ) -> bool:
    """On a sheet as quiet as a scan, ink the rules cannot call one stroke or two (a second
    band holding between SECOND_SLASH and SECOND_CROSS of it: a thick slash's edges, or a
    tick's short arm) that is a slash: nothing of it far off its band (FAR_SLASH), and the
    model calls it a slash while it keeps its width (_quiet_slash). Not where the doubt is
    the paper-split test's (SPLIT_PAPER: a thick stroke or a box coloured in?). Cached
    sheets, seeds 0/7/11/21/22/31: 8 slashes left to review read so, nothing else changed
    (the model calls the ticks there ticks; the six it calls slashes widen at their vertex
    or are the paper-split test's doubt); bench_ticks, seeds 0-2: 2 slashes, no tick."""
    return (f.get("far", 1.0) < FAR_SLASH and f.get("split", SPLIT_PAPER) >= SPLIT_PAPER
            and _quiet_slash(f, line, cal))


def _sure_model_slash(f: dict[str, float], cal: Calibration) -> bool:
    """On a sheet as quiet as a scan, a stroke the rules read as a slash and a shape test
    doubts (_tick_like, mostly for its widening) that the thin-pen model calls a slash all
    but surely (PRINT_SLASH_P): a pencil slash widened by the print it crosses (the mirror
    of _sure_model_tick). Only a light stroke (under DARK_LEVEL: a pen's or a marker's is
    _dark_slash's, and a fat mark's `tick_p` is the marker model's, which learned no such
    widening), with no ink far off its band."""
    return (cal.noise < SCAN_NOISE and f["level"] < DARK_LEVEL and _inked(f) < SLASH_MAX_INK
            and f.get("far", 1.0) < FAR_SLASH and f.get("tick_p", 1.0) < PRINT_SLASH_P)


def _straight_slash(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
                    ) -> bool:
    """On a quiet sheet, a dark stroke that is straight every way the rules measure it
    (nothing off its band, STRAIGHT_SECOND on a second one, no widening to DARK_BULGE) and
    that the success model leans to call a slash (SUCCESS_LEANS): a slash, a tick's short
    arm having nowhere to hide in dark ink."""
    return (line is not None and cal.noise < QUIET_NOISE and f["level"] >= DARK_LEVEL
            and f.get("far", 1.0) < FAR_SLASH and line[1] <= STRAIGHT_SECOND
            and f.get("bulge", 9.0) < DARK_BULGE and _success_leans_slash(f))


def _sure_model_tick(f: dict[str, float], cal: Calibration) -> bool:
    """On a quiet sheet, a stroke the rules read as one and a shape test doubts
    (_tick_like) that the model calls a tick all but surely (SURE_TICK_P): a tick whose
    short arm is too short for the band measures (the mirror of _quiet_slash)."""
    return cal.noise < QUIET_NOISE and f.get("tick_p", 0.0) >= SURE_TICK_P


def _model_tick(f: dict[str, float]) -> bool:
    """A stroke the rules read as a slash that scanner.tickslash's model calls a tick
    (TICK_VETO), or that it finds somewhat like one (TICK_SOME) when the stroke also
    widens at one point as a tick's vertex does (BULGE_TICK), or a little like one
    (TICK_TRACE) when it widens to twice its width (BULGE_VERTEX): a veto only, so it sends
    the box to review and never reads it."""
    p, bulge = f.get("tick_p", 0.0), f.get("bulge", 1.0)
    return (p >= TICK_VETO or (p >= TICK_SOME and bulge >= BULGE_TICK)
            or (p >= TICK_TRACE and bulge >= BULGE_VERTEX))


def _light_stroke_state(executed: bool, f: dict[str, float], line: tuple[float, float] | None,
                        cal: Calibration) -> tuple[str, str]:
    """A light mark's state and likely state from its strokes: as a full mark's, but one
    faint stroke is a slash only when no tick could look like it and there is ink enough
    (faint ink on 10 % of the box) that a thin tick's short arm would have shown; on a
    quiet sheet (a scan, a clean photo) also a thinner one (a light pencil line) that runs
    across the box, edge to edge: a tick's long arm stops at its vertex, inside the box,
    and there its short arm shows on such a sheet; and on a sheet as quiet as a scan one
    the model calls a slash, however uneven its width (_faint_slash), or that both the
    tick-or-slash and the success models call a slash (_sure_model_slash, _far_slash),
    however the print it crosses widens it. (Session 37: 307 clean 11, a light slash
    across "+2" widening 2.0 times, the models 0.003 and 0.011. Of the 461 light ticks on
    fifty seeds' scans and clean renders and fifteen seeds' short-ticks scans, one is
    under PRINT_SLASH_P on the first model and one under SUCCESS_VETO on the second, none
    on both; 1,680 of the 2,090 light slashes are.) A light stroke read as a tick by a
    little ink off its band is a review when the success model calls it a slash
    (_far_slash) or, on a sheet as quiet as a scan, leans to (_success_leans_slash:
    session 41, a fresh seed's pencil slash across "+1" on a 600 dpi scan, 349 scan-600 7,
    read as a success at 0.094 with nothing else to review)."""
    state = _stroke_state(executed, line, f.get("far", 0.0))
    if (state == REVIEW and _widens(f, cal)) or (state == SLASHED and _quiet_tick(f, line, cal)):
        return CHECKED, CHECKED
    enough = f["faint"] >= F_MARK * 1.8 or (
        cal.noise < QUIET_NOISE and f.get("end_gap", 1.0) < END_GAP and line is not None
        and line[0] >= BENT_LINE and line[1] <= ALONE)
    if state == SLASHED and (not enough or _tick_like(f, line, cal)):
        if _quiet_slash(f, line, cal) or (cal.noise < SCAN_NOISE and (
                _faint_slash(f, line) or (_sure_model_slash(f, cal) and _far_slash(f)))):
            return SLASHED, SLASHED
        return REVIEW, SLASHED
    if state == CHECKED and (_far_slash(f) or (cal.noise < SCAN_NOISE
                                               and _success_leans_slash(f))):
        return REVIEW, SLASHED
    return state, (CHECKED if state == REVIEW else state)


def _faint_slash(f: dict[str, float], line: tuple[float, float] | None) -> bool:
    """A light single stroke across an Executed box that is a slash (FAINT_SLASH_INK,
    FAINT_SLASH_SPAN): straight, nothing off its band, through the middle, and the model
    calls it a slash. Asked of a stroke read at a quiet sheet's own noise
    (_read_light_again), and of a faint mark on a sheet as quiet as a scan
    (_light_stroke_state)."""
    return (line is not None and line[0] >= BENT_LINE and line[1] <= ALONE
            and f.get("far", 1.0) < FAR_SLASH and f["faint"] >= FAINT_SLASH_INK
            and f["centre"] >= F_CENTRE and f.get("span", 0.0) >= FAINT_SLASH_SPAN
            and f.get("tick_p", 1.0) < QUIET_SLASH_P)
