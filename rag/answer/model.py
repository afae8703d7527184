"""The reader model: the probability that a line of the read documents answers the question.

A logistic regression over the signals the reader computes for each line (`rag.answer.reading.line_features`),
fitted by `make train` (scripts/train_reader.py, scikit-learn) on labelled lines of every evaluation corpus: a
line that holds its turn's gold fact, in a relevant document, is positive. The fitted weights ship in
`rag/answer/data/reader.json` with the thresholds that turn the lead line's probability into the turn's
outcome; at run time the model is a dot product (no scikit-learn needed). Why a logistic regression, how it
was chosen (leave-one-corpus-out) and its reliability table: docs/answers.md.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .reading import Candidate

WEIGHTS = Path(__file__).with_name("data") / "reader.json"


@dataclass(frozen=True)
class ReaderModel:
    """Standardised features, one weight each, and the outcome thresholds on the lead's probability."""

    names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    answer_at: float  # the lead's probability at or above which the turn is answered
    not_found_at: float  # ... below which it is "not found"; between the two, hedged
    line_at: float  # another line is shown beside the lead only at this probability or more
    related_at: float  # a document is "maybe related" under "not found" only when its best line has this

    @classmethod
    def from_dict(cls, data: dict) -> ReaderModel:
        return cls(tuple(data["features"]), tuple(data["mean"]), tuple(data["scale"]), tuple(data["coef"]),
                   float(data["intercept"]), **{k: float(v) for k, v in data["thresholds"].items()})

    def logit(self, features: dict[str, float]) -> float:
        return self.intercept + sum(w * (features.get(n, 0.0) - m) / s
                                    for n, m, s, w in zip(self.names, self.mean, self.scale, self.coef))

    def probability(self, features: dict[str, float]) -> float:
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, self.logit(features)))))

    def contributions(self, features: dict[str, float], top: int = 4) -> list[tuple[str, float]]:
        """The features that moved this line's log-odds most, signed: what a wrong answer's trace names."""
        parts = [(n, w * (features.get(n, 0.0) - m) / s) for n, m, s, w in zip(self.names, self.mean, self.scale, self.coef)]
        return sorted(parts, key=lambda p: -abs(p[1]))[:top]

    def scored(self, candidate: Candidate) -> Candidate:
        """The line with the model's log-odds as its score and its probability."""
        logit = self.logit(candidate.features)
        return replace(candidate, score=logit, probability=1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit)))))


@lru_cache(maxsize=4)
def load(path: Path = WEIGHTS) -> ReaderModel | None:
    """The shipped model (None when no weights file exists: the reader keeps its hand-set weights)."""
    if not path.exists():
        return None
    return ReaderModel.from_dict(json.loads(path.read_text(encoding="utf-8")))
