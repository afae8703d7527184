"""The offline intent classifier: logistic regression over e5 embeddings of example utterances.

Examples live in `rag/understand/data/intents.jsonl` (Korean and English, kept apart from the dev
evaluation set). Training takes a second after the examples are embedded. The default model's
example vectors ship with the package (`rag/understand/data/intent-examples-<digest>.npy`, written by
`scripts/ship_intent_vectors.py`), keyed by the model and the examples' hash, so a first start
embeds nothing; any other model embeds them once, in one batch, into the data folder's cache.
"""
from __future__ import annotations

import hashlib
import json
import re
from importlib import resources
from pathlib import Path

import numpy as np

from rag.models.embeddings import Embedder
from rag.text.analysis import Analyzer
from rag.understand.routing import (
    INTENTS,
    SMALL_TALK_ASKED,
    Intent,
    Route,
    asks_for_something,
    may_be_live,
    rule_route,
    what_it_asks,
)

EXAMPLES = "intents.jsonl"
_CODE = re.compile(r"\b[A-Za-z]+[-_.][\w.-]+\b|\b[A-Z]{2,}\d*\b|\b\w*\d+\w*\b")


def load_examples() -> list[tuple[str, str]]:
    """(text, intent) pairs shipped with the package."""
    raw = resources.files("rag.understand.data").joinpath(EXAMPLES).read_text(encoding="utf-8")
    rows = [json.loads(line) for line in raw.splitlines() if line.strip()]
    return [(r["text"], r["intent"]) for r in rows]


class IntentClassifier:
    """Multinomial logistic regression on standardised embeddings; `predict` gives probabilities."""

    def __init__(self, embedder: Embedder, examples: list[tuple[str, str]] | None = None,
                 cache_dir: Path | None = None, l2: float = 0.1, epochs: int = 400, lr: float = 0.5):
        self.embedder = embedder
        self.examples = examples or load_examples()
        self.labels = list(INTENTS)
        features = self._example_vectors(cache_dir)
        self.mean, self.scale = features.mean(axis=0), features.std(axis=0) + 1e-6
        targets = np.array([self.labels.index(Intent(intent)) for _, intent in self.examples])
        self.weights, self.bias = _train(self._standardise(features), targets, len(self.labels), l2, epochs, lr)

    def vectors_file(self) -> str:
        """The file name the example vectors of this model and these examples are kept under."""
        digest = hashlib.sha256((self.embedder.name + json.dumps(self.examples)).encode()).hexdigest()[:16]
        return f"intent-examples-{digest}.npy"

    def _example_vectors(self, cache_dir: Path | None) -> np.ndarray:
        name = self.vectors_file()  # hashes every example: once
        shipped = resources.files("rag.understand.data").joinpath(name)
        if shipped.is_file():
            with shipped.open("rb") as f:
                return np.load(f)
        cache = cache_dir / name if cache_dir else None
        if cache and cache.exists():
            return np.load(cache)
        vectors = self.embedder.embed_queries([text for text, _ in self.examples])
        if cache:
            cache.parent.mkdir(parents=True, exist_ok=True)
            np.save(cache, vectors)
        return vectors

    def _standardise(self, x: np.ndarray) -> np.ndarray:
        return (x - self.mean) / self.scale

    def predict(self, texts: list[str]) -> np.ndarray:
        """Class probabilities, one row per text, columns in INTENTS order."""
        x = self._standardise(np.vstack([self.embedder.embed_query(t) for t in texts]))
        return _softmax(x @ self.weights + self.bias)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _train(x: np.ndarray, y: np.ndarray, classes: int, l2: float, epochs: int, lr: float):
    """Full-batch gradient descent on cross-entropy; a few hundred examples need nothing more."""
    n, d = x.shape
    w, b = np.zeros((d, classes)), np.zeros(classes)
    onehot = np.eye(classes)[y]
    for _ in range(epochs):
        grad = _softmax(x @ w + b) - onehot
        w -= lr * (x.T @ grad / n + l2 * w)
        b -= lr * grad.mean(axis=0)
    return w, b


# Most messages to a documents bot are document questions, but the examples are balanced
# across intents; this prior restores the base rate. Chosen (with l2) on the dev set.
DEFAULT_PRIORS = {"knowledge_search": 2.0}


class ClassifierRouter:
    """Rules for unmistakable cases, the classifier for the rest, over original and rewrite."""

    def __init__(self, classifier: IntentClassifier, analyzer: Analyzer, priors: dict[str, float] | None = None):
        self.classifier, self.analyzer = classifier, analyzer
        weights = DEFAULT_PRIORS if priors is None else priors
        self.priors = np.array([weights.get(label, 1.0) for label in classifier.labels])

    def route(self, original: str, rewritten: str) -> Route:
        """The most probable intent; confidence is its probability (or the rule's)."""
        entities = self.entities(original)
        ruled = rule_route(original)
        if ruled:
            return Route(ruled.intent, ruled.confidence, entities, ruled.reason)
        # The classifier reads what the message says after its chatty opening ("ok thanks, ..."): a "thanks"
        # in front pulls a question towards small talk otherwise.
        own = what_it_asks(original)
        texts = [own] if rewritten.strip() in (original.strip(), own) else [own, rewritten]
        # The user's own words say what they want; the rewrite only adds the topic.
        probs = self.classifier.predict(texts)
        weights = np.array([1.0] if len(texts) == 1 else [0.7, 0.3])
        mixed = (weights @ probs) * self.priors
        mixed /= mixed.sum()
        if not may_be_live(original):
            # Live state needs a time marker or a changing subject ("right now", "down", "지금", "장애") and no
            # words of rules; without them it is a question for the documents: its share goes to them.
            live = self.classifier.labels.index(Intent.REALTIME_LOOKUP)
            mixed[self.classifier.labels.index(Intent.KNOWLEDGE_SEARCH)] += mixed[live]
            mixed[live] = 0.0
        best = int(mixed.argmax())
        scores = {str(label): round(float(p), 4) for label, p in zip(self.classifier.labels, mixed)}
        intent, confidence = self.classifier.labels[best], float(mixed[best])
        if intent == Intent.CHITCHAT and confidence > SMALL_TALK_ASKED and asks_for_something(original):
            confidence = SMALL_TALK_ASKED  # a message that asks for something is never sure small talk
        return Route(intent, confidence, entities, "classifier", scores)

    def entities(self, text: str) -> list[str]:
        """Codes, names and topic words mentioned in the message."""
        found = dict.fromkeys(_CODE.findall(text))
        found.update(dict.fromkeys(self.analyzer.topic_words(text)))
        return list(found)[:10]
