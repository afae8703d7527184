"""Hybrid ranking rules shared by every search backend: reciprocal-rank fusion and the cosine floor."""
from __future__ import annotations

from typing import Hashable, Sequence

from .documents import Hit


def reciprocal_rank_fusion(rankings: dict[str, Sequence[Hashable]], k: int = 60) -> dict[Hashable, float]:
    """Score = sum over rankings of 1 / (k + rank); rank is 1-based. Scales do not need to agree."""
    scores: dict[Hashable, float] = {}
    for ranking in rankings.values():
        for rank, key in enumerate(ranking, 1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return scores


def cosine_floor(hits: Sequence[Hit], min_cosine: float, gap: float) -> float:
    """The relative floor `max(min_cosine, best - gap)`; with no vector scores it is `min_cosine`."""
    cosines = [h.cosine for h in hits if h.cosine is not None]
    return max(min_cosine, max(cosines) - gap) if cosines else min_cosine


def apply_floor(hits: Sequence[Hit], min_cosine: float, gap: float) -> list[Hit]:
    """Drop hits under the relative floor, but keep keyword hits: codes and names live in BM25."""
    floor = cosine_floor(hits, min_cosine, gap)
    return [h for h in hits if h.keyword or (h.cosine is not None and h.cosine >= floor)]
