"""The one place Tesseract is called.

    engine() -> Engine      tesserocr in process (~10 ms a field) if installed, else the
                            tesseract program through pytesseract (~150 ms a field), else
                            an engine that is not `available` and says why
    Engine.read(image, psm, whitelist, lang) -> list[Word]
    Engine.text_lang        the model for free text (a name): TEXT_LANG when installed,
                            else "eng"

If neither is installed the scanner still reads every mark and says OCR was skipped.
Images are black ink on white, uint8. Thread limits: Tesseract's OpenMP is held to one
thread (OMP_THREAD_LIMIT=1), which is faster for small fields and right for --jobs.
"""

from __future__ import annotations

import atexit
import os
import shutil
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
# Free text (names, a Spacer form's lines) is read with Tesseract's Latin-script model
# (Debian: tesseract-ocr-script-latn), which knows accents: on the bench's 1,137 name
# lines it read 744 names right and 37 wrong where the English model read 660 and 121
# (Zoë, Lucía); digits keep the English model
TEXT_LANG = "Latin"

TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                 "/usr/share/tessdata", "/usr/local/share/tessdata",
                 "/opt/homebrew/share/tessdata")


@dataclass(frozen=True)
class Word:
    """A recognised word: text, confidence 0..1, box (x, y, w, h) in the image's pixels."""

    text: str
    confidence: float
    box: tuple[int, int, int, int]


class Engine:
    """Tesseract behind one small interface."""

    name = ""
    available = False
    reason = "Tesseract is not installed (apt-get install tesseract-ocr; pip install tesserocr)"
    text_lang = "eng"

    def read(self, image: np.ndarray, psm: int = 7, whitelist: str = "",
             lang: str = "eng") -> list[Word]:
        return []


def _tessdata() -> str | None:
    env = os.environ.get("TESSDATA_PREFIX")
    for d in ((env,) if env else ()) + TESSDATA_DIRS:
        if d and (Path(d) / "eng.traineddata").is_file():
            return d
    return None


def _text_lang() -> str:
    """TEXT_LANG when its model is installed beside eng's, else "eng"."""
    d = _tessdata()
    return TEXT_LANG if d and (Path(d) / f"{TEXT_LANG}.traineddata").is_file() else "eng"


class _TesserocrEngine(Engine):
    name = "tesserocr"
    available = True
    reason = ""

    def __init__(self) -> None:
        import tesserocr

        self._t = tesserocr
        self._apis: dict[str, Any] = {}
        self._api_for("eng")
        self.text_lang = _text_lang()
        try:
            self._api_for(self.text_lang)  # (now: loading the Latin model takes ~0.7 s)
        except RuntimeError:  # a model file Tesseract cannot load: English it is
            self.text_lang = "eng"

    def _api_for(self, lang: str) -> Any:
        """One Tesseract instance per model (eng's and the free-text one's are made with
        the engine, so their loading is not timed as a sheet's OCR)."""
        if lang not in self._apis:
            path = _tessdata()
            kw = {"path": path} if path else {}
            api = self._t.PyTessBaseAPI(lang=lang, **kw)
            api.SetVariable("debug_file", "/dev/null")
            self._apis[lang] = api
        return self._apis[lang]

    def read(self, image: np.ndarray, psm: int = 7, whitelist: str = "",
             lang: str = "eng") -> list[Word]:
        from PIL import Image

        t = self._t
        api = self._api_for(lang)
        api.SetPageSegMode(psm)
        api.SetVariable("tessedit_char_whitelist", whitelist)
        api.SetImage(Image.fromarray(image))
        api.Recognize()
        words: list[Word] = []
        it = api.GetIterator()
        level = t.RIL.SYMBOL if psm == 10 else t.RIL.WORD
        if it is None:
            return words
        for w in t.iterate_level(it, level):
            try:
                text = w.GetUTF8Text(level)
                box = w.BoundingBox(level)
            except RuntimeError:  # an empty result at this level
                continue
            if not text or box is None:
                continue
            x0, y0, x1, y1 = box
            words.append(Word(text.strip(), max(0.0, w.Confidence(level)) / 100.0,
                              (x0, y0, x1 - x0, y1 - y0)))
        return words


class _PytesseractEngine(Engine):
    name = "pytesseract"
    available = True
    reason = ""

    def __init__(self) -> None:
        import pytesseract

        self.text_lang = TEXT_LANG
        try:  # whether the program finds the model (get_languages leaves "Latin" out)
            pytesseract.image_to_string(np.full((8, 8), 255, np.uint8), lang=TEXT_LANG)
        except Exception:  # (not installed where the program looks: English, as before)
            self.text_lang = "eng"

    def read(self, image: np.ndarray, psm: int = 7, whitelist: str = "",
             lang: str = "eng") -> list[Word]:
        import pytesseract

        config = f"--psm {psm}"
        if whitelist:
            config += f" -c tessedit_char_whitelist={whitelist}"
        data = pytesseract.image_to_data(image, lang=lang, config=config,
                                         output_type=pytesseract.Output.DICT)
        words = []
        for k, text in enumerate(data["text"]):
            text = str(text).strip()
            if text:
                words.append(Word(text, max(0.0, float(data["conf"][k])) / 100.0,
                                  (int(data["left"][k]), int(data["top"][k]),
                                   int(data["width"][k]), int(data["height"][k]))))
        return words


_LOADING = threading.Lock()  # one engine a process, however many threads ask at once
_LOADER: list[threading.Thread] = []  # the thread load_in_background started, if any


def engine() -> Engine:
    """The best Tesseract binding installed (made once per process; a caller arriving
    while load_in_background is making it waits for that one)."""
    with _LOADING:
        return _engine()


def load_in_background() -> None:
    """Start making the engine on a thread of its own: Tesseract loads its models (~0.7 s,
    the Latin one's word list most of it) without holding Python's lock, so a scan's first
    sheet reads its marks meanwhile and finds the engine ready for its written fields. The
    process waits for it before exiting (Tesseract is never torn down mid-load)."""
    if _engine.cache_info().currsize or _LOADER:
        return
    loader = threading.Thread(target=engine, name="starsheets-ocr-load", daemon=True)
    _LOADER.append(loader)
    atexit.register(loader.join)
    loader.start()


@cache
def _engine() -> Engine:
    if os.environ.get("STARSHEETS_NO_OCR"):
        e = Engine()
        e.reason = "OCR turned off (STARSHEETS_NO_OCR)"
        return e
    try:
        return _TesserocrEngine()
    except Exception:  # not installed, or no language data: try the program
        pass
    if shutil.which("tesseract"):
        try:
            import pytesseract  # noqa: F401

            return _PytesseractEngine()
        except ImportError:
            pass
    return Engine()
