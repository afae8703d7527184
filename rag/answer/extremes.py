"""Questions for the most or the least of something over a table: "which site shipped the most parcels that
month?", "3분기 지점별 이직률 중에 제일 낮은 곳은?".

A table's rows are quoted as "label — header: value; header: value." (`rag.documents.row_text`). The row closest
to the question's words is any row of the table (they all say the same headers); the answer is the row whose
value in the column the question names is the largest or the smallest, so the rows are compared.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.documents import row_values

from .reading import Candidate

# Both linear: plain alternations over the user's question. "최대", "maximum", "longest" are left out: "VPN 세션 최대 몇
# 시간이야?" asks for one row's limit, not for the row with the largest value.
_MOST = re.compile(r"\b(most|highest|largest|biggest|greatest)\b|(가장|제일) ?(많|높|크|비싸)", re.IGNORECASE)
_LEAST = re.compile(r"\b(least|lowest|fewest|smallest|cheapest)\b|(가장|제일) ?(적|낮|작|싸)", re.IGNORECASE)


def direction(question: str) -> int:
    """1 when the question asks for the most of something, -1 for the least, 0 otherwise (or both)."""
    most, least = bool(_MOST.search(question)), bool(_LEAST.search(question))
    return 0 if most == least else (1 if most else -1)


def extreme_row(candidates: Sequence[Candidate], concepts: Sequence[frozenset[str]], terms: Callable[[str], list[str]],
                sign: int) -> Candidate | None:
    """The row with the most (`sign` 1) or least (-1) in the column the question names, of the first table among
    the candidates with two rows or more whose columns one names more of the question's topic words than the
    others; None when no column is named that way."""
    tables: dict[frozenset[str], list[tuple[Candidate, dict[str, float]]]] = {}
    for candidate in candidates:
        if values := row_values(candidate.sentence):
            tables.setdefault(frozenset(values), []).append((candidate, values))
    for headers, rows in tables.items():
        if len(rows) < 2:
            continue
        said = {h: sum(1 for c in concepts if c & set(terms(h))) for h in headers}
        best = max(said.values())
        named = [h for h, n in said.items() if n == best]
        if best and len(named) == 1:
            return max(rows, key=lambda row: sign * row[1][named[0]])[0]
    return None
