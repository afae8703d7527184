"""Which language a text is written in: Korean, English or both.

Recorded per chunk at index time, because e5's cosines run systematically higher between
texts of the same language; ranking normalises each chunk's cosine against the other
chunks of its own language (`rag.retrieve.ranking`). A Hangul syllable carries about as much as two
or three Latin letters, so Hangul counts 2.5 times when the shares are weighed.
"""
from __future__ import annotations

import re

LANGUAGES = ("ko", "en")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_LATIN = re.compile(r"[A-Za-z]")
HANGUL_WEIGHT = 2.5
# A chunk counts for one language when that language has at least this share of its letters;
# in between (a Korean runbook quoting English commands at length) it counts for both.
SINGLE_LANGUAGE_SHARE = 0.8


def korean_share(text: str) -> float:
    """Weighted share of Korean among the letters of a text; 0.0 for a text with no letters."""
    hangul = len(_HANGUL.findall(text)) * HANGUL_WEIGHT
    latin = len(_LATIN.findall(text))
    return hangul / (hangul + latin) if hangul + latin else 0.0


def languages(text: str) -> tuple[str, ...]:
    """The languages a chunk counts for: ("ko",), ("en",) or ("ko", "en") for a mixed one."""
    share = korean_share(text)
    if share >= SINGLE_LANGUAGE_SHARE:
        return ("ko",)
    if share <= 1 - SINGLE_LANGUAGE_SHARE:
        return ("en",)
    return ("ko", "en")


def is_korean(text: str) -> bool:
    """Whether a message is in Korean: Korean speakers mix in English names, English speakers rarely Hangul."""
    hangul = len(_HANGUL.findall(text))
    return hangul > 0 and hangul >= len(_LATIN.findall(text)) / 4


def main_language(text: str) -> str:
    """The one language a question is asked in (replies and the eval's same/cross split use it)."""
    return "ko" if is_korean(text) else "en"
