"""The search-index port: what the indexer and the retriever need from any backend."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .documents import Chunk, Hit


@dataclass(frozen=True)
class SearchQuery:
    """A hybrid query: text for BM25, a vector for kNN, and how many hits to return."""

    text: str
    vector: np.ndarray
    k: int = 5


@dataclass(frozen=True)
class FileRecord:
    """What the index knows about one indexed file; the hash decides whether to re-embed it."""

    path: str
    content_hash: str
    title: str
    chunks: int


class SearchIndex(Protocol):
    """A hybrid (BM25 + vector) index of chunks, grouped by source root and file path."""

    def bind_model(self, model: str, dim: int) -> None:
        """Record the embedding model on first use; raise EmbeddingModelMismatch if another built it."""
        ...

    def files(self, source: str) -> dict[str, FileRecord]:
        """Indexed files of one source root, by relative path."""
        ...

    def replace_file(self, source: str, record: FileRecord, chunks: list[Chunk], vectors: np.ndarray) -> None:
        """Atomically swap a file's chunks for new ones (old chunks never outlive the call)."""
        ...

    def delete_file(self, source: str, path: str) -> None:
        """Remove a file and all its chunks."""
        ...

    def search(self, query: SearchQuery) -> list[Hit]:
        """Hybrid search: BM25 and kNN fused by reciprocal rank, then the cosine floor."""
        ...

    def stats(self) -> dict:
        """Counts and the bound model, for `docbot status` and health checks."""
        ...

    def clear(self) -> None:
        """Drop every file, chunk and the model binding."""
        ...

    def begin_rebuild(self, model: str, dim: int) -> None:
        """Start a rebuild from nothing for this model (Elasticsearch keeps serving the old index until
        `finish_rebuild`; the embedded index rebuilds in place)."""
        ...

    def finish_rebuild(self) -> None:
        """Make the rebuilt contents the searchable ones."""
        ...

    def abort_rebuild(self) -> None:
        """Throw a failed rebuild away."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...
