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
    """The line model (standardised features, one weight each) and the outcome thresholds on the lead's
    probability."""

    line: Linear
    answer_at: float  # the lead's probability at or above which the turn is answered
    not_found_at: float  # ... below which it is "not found"; between the two, hedged
    line_at: float  # another line is shown beside the lead only at this probability or more
    related_at: float  # a document is "maybe related" under "not found" only when its best line has this
    verdict: Linear | None = None  # the probability that the turn's lead answers (None: the lead line's own)

    @classmethod
    def from_dict(cls, data: dict) -> ReaderModel:
        return cls(Linear.from_dict(data), **{k: float(v) for k, v in data["thresholds"].items()},
                   verdict=Linear.from_dict(data["verdict"]) if data.get("verdict") else None)

    def answers(self, lead: Candidate, second: Candidate | None) -> float:
        """The probability that the turn's lead line answers the question, which the verdict's bars are set on: the
        verdict model's when it ships, else the lead line's own."""
        if self.verdict is None or lead.probability is None:
            return lead.probability or 0.0
        return sigmoid(self.verdict.logit(turn_features(lead.features, lead.score,
                                                        second.score if second is not None else None)))

    @property
    def names(self) -> tuple[str, ...]:
        return self.line.names

    def logit(self, features: dict[str, float]) -> float:
        return self.line.logit(features)

    def probability(self, features: dict[str, float]) -> float:
        return sigmoid(self.logit(features))

    def contributions(self, features: dict[str, float], top: int = 4) -> list[tuple[str, float]]:
        """The features that moved this line's log-odds most, signed: what a wrong answer's trace names."""
        return sorted(self.line.terms(features), key=lambda p: -abs(p[1]))[:top]

    def scored(self, candidate: Candidate) -> Candidate:
        """The line with the model's log-odds as its score and its probability."""
        logit = self.logit(candidate.features)
        return replace(candidate, score=logit, probability=sigmoid(logit))


# Signals compared with the best of the turn's reading as well as taken as they are: a line is the answer by being
# the most telling of what was read, which no absolute level says across corpora, languages and question kinds.
RELATIVE = ("line_concepts", "concept_coverage", "topic_coverage", "thread_coverage", "z", "lift", "shared",
            "translated", "fills")


def turn_relative(lines: list[tuple[str, dict[str, float]]]) -> None:
    """Adds each line's gap to the reading's best for the `RELATIVE` signals, and its document's best z-score's gap
    to the reading's best (the document's evidence as a whole), to (path, features) pairs in place. The training
    script applies the same function to the stored readings, so fitted and served features agree."""
    if not lines:
        return
    for name in RELATIVE:
        best = max(f.get(name, 0.0) for _, f in lines)
        for _, f in lines:
            f[f"{name}_gap"] = max(-5.0, f.get(name, 0.0) - best)
    doc_best: dict[str, float] = {}
    for path, f in lines:
        doc_best[path] = max(doc_best.get(path, -99.0), f.get("z_calibrated", 0.0))
    top = max(doc_best.values())
    for path, f in lines:
        f["document_gap"] = max(-5.0, doc_best[path] - top)


# What the verdict model reads of a turn: the lead line's log-odds, its margin over the second line, and every signal
# of the lead itself, the turn-relative gaps included (a lead that is the best of a poor reading is not an answer:
# unanswerable questions have one too). A hand-picked subset of twenty signals separated right leads from wrong ones
# less well leave-one-corpus-out (ROC AUC 0.74 against 0.82 over five corpora: docs/reader-model.md).
def turn_features(lead: dict[str, float], lead_logit: float, second_logit: float | None) -> dict[str, float]:
    """The verdict model's features of a turn (its lead line's features and the line model's log-odds)."""
    margin = lead_logit - second_logit if second_logit is not None else 5.0
    return {**lead, "lead_logit": lead_logit, "margin": min(margin, 5.0)}


@dataclass(frozen=True)
class Linear:
    """A standardised logistic model: names, means, scales, weights and the intercept."""

    names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    @classmethod
    def from_dict(cls, data: dict) -> Linear:
        return cls(tuple(data["features"]), tuple(data["mean"]), tuple(data["scale"]), tuple(data["coef"]),
                   float(data["intercept"]))

    def logit(self, features: dict[str, float]) -> float:
        return self.intercept + sum(v for _, v in self.terms(features))

    def terms(self, features: dict[str, float]) -> list[tuple[str, float]]:
        """Each feature's share of the log-odds (a missing feature counts as 0)."""
        return [(n, w * (features.get(n, 0.0) - m) / s)
                for n, m, s, w in zip(self.names, self.mean, self.scale, self.coef)]


def sigmoid(logit: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))


@lru_cache(maxsize=4)
def load(path: Path = WEIGHTS) -> ReaderModel | None:
    """The shipped model (None when no weights file exists: the reader keeps its hand-set weights)."""
    if not path.exists():
        return None
    return ReaderModel.from_dict(json.loads(path.read_text(encoding="utf-8")))
