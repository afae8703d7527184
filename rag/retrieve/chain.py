"""Chain-of-retrieval for multi-hop and comparison questions.

Decompose the question into at most `max_steps` sub-queries, retrieve them in order with
each later step refined by what the earlier ones found, and hand the merged passages to the
answerer, which synthesises with citations. Offline, decomposition splits on conjunctions
(Kiwi's conjunctive particles 와/과/랑/하고, "and", "vs") and comparison words.
"""
from __future__ import annotations

import re

from rag.documents import Hit
from rag.text.analysis import Analyzer

_COMPARE = re.compile(r"\b(compare|comparison|versus|vs\.?|difference|differ|both|each)\b|(비교|차이|달라|다른가|다르|둘 다|각각|모두)",
                      re.IGNORECASE)
_SPLIT_EN = re.compile(r"(?<!\s)\s*+(?:,\s*and\s+|\band\b|\bvs\.?\b|\bversus\b|\bwith\b|,)\s*", re.IGNORECASE)
_LEADING_EN = re.compile(r"^(compare|tell me|what about|what are|what is|what's)\s+(the\s+)?", re.IGNORECASE)
_REFERS_BACK = re.compile(r"\b(their|its|it|they|them|that team|those)\b|(그 팀|거기|그곳|그쪽)", re.IGNORECASE)


def decompose(question: str, analyzer: Analyzer, max_steps: int = 3) -> list[str]:
    """Sub-queries, or [question] when it is not a multi-part question."""
    if not _COMPARE.search(question) and not _conjoined(question, analyzer):
        return [question]
    parts = _korean_parts(question, analyzer) if _is_korean(question) else _english_parts(question)
    parts = [p for p in parts if len(analyzer.topic_words(p)) >= 1]
    if len(parts) < 2:
        return [question]
    return parts[:max_steps]


def _is_korean(text: str) -> bool:
    return bool(re.search(r"[\uac00-\ud7a3]", text))


def _conjoined(question: str, analyzer: Analyzer) -> bool:
    if _is_korean(question):
        return len(_korean_parts(question, analyzer)) >= 2
    return bool(re.search(r"\band\b", question, re.IGNORECASE)) and len(_english_parts(question)) >= 2


def _english_parts(question: str) -> list[str]:
    body = _LEADING_EN.sub("", question.strip().rstrip("?"))
    return [p.strip() for p in _SPLIT_EN.split(body) if p and len(p.strip()) > 2]


def _korean_parts(question: str, analyzer: Analyzer) -> list[str]:
    """Cut after each conjunctive particle (JC: 와/과/랑/이랑/하고) and after 그리고."""
    tokens = analyzer.morphemes(question)
    cuts = [t.end for t in tokens if t.tag == "JC" or (t.tag == "MAJ" and t.form == "그리고")]
    if not cuts:
        return [question]
    parts, start = [], 0
    for cut in cuts:
        parts.append(question[start:cut])
        start = cut
    parts.append(question[start:])
    # Drop the particle itself so each part reads as a phrase.
    cleaned = [re.sub(r"(이랑|랑|하고|와|과|그리고)\s*$", "", p.strip()).strip() for p in parts]
    tail = analyzer.topic_words(cleaned[-1])
    # "A랑 B 승인자는 어떻게 달라?": the shared predicate (승인자) belongs to every part.
    shared = [w for w in tail[-1:] if not any(w in p for p in cleaned[:-1])]
    return [f"{p} {' '.join(shared)}".strip() if i < len(cleaned) - 1 else p for i, p in enumerate(cleaned) if p]


def refine(step: str, earlier: list[Hit], analyzer: Analyzer) -> str:
    """A later step that refers back ("their on-call") borrows the title of what the last step found."""
    if not earlier or not _REFERS_BACK.search(step):
        return step
    return f"{step} {earlier[0].chunk.title}"


def merge(per_step: list[list[Hit]], limit: int) -> list[Hit]:
    """Round-robin over the steps' rankings so every step's best passage makes the cut."""
    merged, seen = [], set()
    for rank in range(max((len(h) for h in per_step), default=0)):
        for hits in per_step:
            if rank < len(hits) and hits[rank].chunk.chunk_id not in seen:
                seen.add(hits[rank].chunk.chunk_id)
                merged.append(hits[rank])
    return merged[:limit]
