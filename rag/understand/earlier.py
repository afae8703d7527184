"""Whether a question asks about an earlier version of a rule: the one a newer document replaced.

Retrieval puts a document that says it is no longer in force below the current one (`Ranker.stale_penalty`),
which is right for "야근 식대 얼마야?" and wrong for "what was it in the old 2021 handbook?", "how did you book
training days back then?" or "개정 전에는 며칠이었어?": there the repealed page is the answer, and the current one a
near miss that says another figure. The answer still says the quoted page is no longer in force.

Written from how people ask about the past of a rule, in both languages; linear-time (bounded gaps only).
"""
from __future__ import annotations

import re

_THINGS = (r"(?:polic(?:y|ies)|versions?|rules?|regulations?|guidelines?|handbook|process|procedure|system|one|plan|"
           r"caps?|limits?|rates?|allowances?|amounts?|thresholds?|stipend|hours|schedule|way)")
_EARLIER = re.compile(
    # "the old 2022 policy", "the previous version", "the old taxi cap": an earlier *something a rule sets*
    r"\b(?:old|older|previous|prior|former|earlier|original|repealed|superseded|outdated)(?:\s++[\w-]++){0,3}?\s++"
    + _THINGS + r"\b|"
    r"\bback then\b|\bat the time\b|\bused to (?:be|have|get|need|require|pay|apply|allow)\b|"
    r"\bbefore (?:the|it|this|that) (?:was )?(?:change|changed|update|updated|revision|revised|new (?:policy|version))\b|"
    r"예전|옛날|이전 ?(?:규정|정책|버전|기준|방식)|이전에는|구 ?(?:규정|정책|버전|기준)|폐지된|개정 ?전|바뀌기 ?전|변경 ?전|"
    r"전에는|원래는|그때는|당시(?:에는|엔)?",
    re.IGNORECASE)


# "예전에" / "옛날에" alone is an adverb of the asker's own past ("예전에 지원금 20만 원 받았는데 더 받을 수 있어?" asks
# today's rule); it asks what a rule said only when what is asked is in the past tense ("예전에 기준이 몇 %였어?").
_ADVERB = re.compile(r"(?:예전|옛날)에(?!는|도|서)")
_JONG_SSANG_SIOT = 20  # ㅆ as a final consonant: the past tense (었, 았, 였, 했, 됐 …)


def asks_for_an_earlier_version(question: str) -> bool:
    """Whether the question asks what an earlier (repealed, superseded) version of a rule said."""
    text = question[:2000]
    return any(not _ADVERB.match(text, m.start()) or _asked_in_past(text) for m in _EARLIER.finditer(text))


def _asked_in_past(text: str) -> bool:
    """Whether the question's last Korean word is in the past tense (있 of "수 있어" is not)."""
    word = _last_hangul_word(text)
    return any(ch != "있" and (ord(ch) - 0xAC00) % 28 == _JONG_SSANG_SIOT for ch in word)


def _last_hangul_word(text: str) -> str:
    """The last run of Hangul syllables, read backwards (one pass; a regex anchored at the end would retry from
    every syllable of a long run)."""
    end = len(text)
    while end and not _hangul(text[end - 1]):
        end -= 1
    start = end
    while start and _hangul(text[start - 1]):
        start -= 1
    return text[start:end]


def _hangul(ch: str) -> bool:
    return "가" <= ch <= "힣"
