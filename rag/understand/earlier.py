"""Whether a question asks about an earlier version of a rule: the one a newer document replaced.

Retrieval puts a document that says it is no longer in force below the current one (`Ranker.stale_penalty`),
which is right for "야근 식대 얼마야?" and wrong for "what was it in the old 2022 policy?", "how did you request
remote days back then?" or "개정 전에는 며칠이었어?": there the repealed page is the answer, and the current one a
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


def asks_for_an_earlier_version(question: str) -> bool:
    """Whether the question asks what an earlier (repealed, superseded) version of a rule said."""
    return bool(_EARLIER.search(question[:2000]))
