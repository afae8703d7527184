"""The search-index port: what the indexer and the retriever need from any backend.

Backends only *find candidates* (BM25 matches, the nearest chunks of each language, and
each candidate's cosine); `rag.retrieve.ranking` ranks them, so fusion, language normalisation and
the relevance floor behave the same on every backend.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from rag.documents import Chunk

Visibility = frozenset[str] | None
"""Who may see a chunk: None every channel; a set only those audience tokens, channel ids or, for a document
a connector restricted to some people, `user:<e-mail>` tokens (see `audience`) (the empty set: nobody, e.g.
a chunk migrated from an index that predates visibility, until the next index run resolves it)."""

PRINCIPAL = "user:"  # the audience token of one person, by lower-case e-mail: `user:kim@acme.com`


def audience(source: Visibility, principals: frozenset[str] | None) -> Visibility:
    """Who may see a document: its source's channels, narrowed by the people the service lets read it.

    `principals` None: the document is open to whoever may see its source. Otherwise it is shown only to
    those people, and only in a direct message or assistant thread (the query carries the asker's
    `user:` token only there): in a channel, a restricted document is never shown (the safe form of "only
    what every member may read"). A restricted document of a channel-restricted source is shown to nobody:
    such sources are never searched outside their channels."""
    if principals is None:
        return source
    if source is not None:
        return frozenset()
    return frozenset(PRINCIPAL + p.strip().lower() for p in principals if p.strip())


@dataclass(frozen=True)
class SearchQuery:
    """A hybrid query: text for BM25, a vector for kNN, how many hits the caller wants, and the channel
    asking: backends return only chunks visible there (the filter runs inside the search). `translated`:
    the query's keywords in the other language (rag.text.bilingual), searched as a BM25 list of their own
    (`Candidates.translated`), so their scores are not measured against the query's own words."""

    text: str
    vector: np.ndarray
    k: int = 5
    channel: str | None = None
    principals: frozenset[str] = frozenset()  # the asker's `user:` tokens: given in direct messages only
    translated: str = ""

    @property
    def tokens(self) -> list[str]:
        """The audience tokens a chunk must carry one of (or be public): the channel and the asker."""
        return ([self.channel] if self.channel else []) + sorted(self.principals)


@dataclass(frozen=True)
class FileRecord:
    """What the index knows about one indexed file; the hash decides whether to re-embed it."""

    path: str
    content_hash: str
    title: str
    chunks: int
    visibility: Visibility = None


@dataclass(frozen=True)
class Candidate:
    """One chunk a backend found, with its cosine to the query and the languages it counts for."""

    chunk: Chunk
    source: str
    languages: tuple[str, ...]
    cosine: float
    # How close the chunk sits to the corpus in general: its cosine to the index's centroid (the mean of
    # each language's mean vector), computed at index time. A "hub" (a glossary, a rate card, a table in
    # both languages) is close to every query; the ranker subtracts this to centre its cosines.
    # None: not known (an index written before it existed), no correction.
    hub: float | None = None


ALL_LANGUAGES = "*"  # the background key for every chunk of the index, whatever its language


@dataclass(frozen=True)
class Background:
    """The query's cosine against a whole language's chunks: mean and standard deviation."""

    mean: float
    std: float
    count: int
    hub: float = 0.0  # the mean `Candidate.hub` of the same chunks, so centring leaves a language's mean alone
    hub_spread: float = 0.0  # and their standard deviation: only a chunk well above the mean is a hub


@dataclass
class Candidates:
    """Everything a backend found for one query, unranked.

    `keyword` is the BM25 order with its raw scores (higher is better); `translated` the same for
    the query's translated keywords alone (empty without them); `nearest` the kNN order within each
    language; `chunks` every candidate of any list with its cosine; and `background` the per-language
    cosine statistics the ranker normalises with (and the whole index's under ALL_LANGUAGES).
    """

    # Ids are whatever the backend uses (a SQLite rowid, an Elasticsearch _id): Any, so each backend's
    # own dicts fit without copying (dict and list are invariant in their types).
    keyword: list[tuple[Any, float]] = field(default_factory=list)
    nearest: dict[str, list[Any]] = field(default_factory=dict)
    chunks: dict[Any, Candidate] = field(default_factory=dict)
    background: dict[str, Background] = field(default_factory=dict)
    translated: list[tuple[Any, float]] = field(default_factory=list)


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

    def set_visibility(self, source: str, path: str, visibility: Visibility) -> None:
        """Change who may see a file's chunks without re-embedding them (a source's channels changed)."""
        ...

    def flush(self) -> None:
        """Make every write so far searchable (once per index run; writes need not be visible before)."""
        ...

    def indexed_sources(self) -> dict[str, int]:
        """Every source key with indexed files, and how many (configured or not)."""
        ...

    def candidates(self, query: SearchQuery, limit: int) -> Candidates:
        """Up to `limit` BM25 matches and `limit` nearest chunks per language among the chunks visible in
        `query.channel`, with cosines and each language's background (over every chunk: statistics only)."""
        ...

    def stats(self) -> dict:
        """Counts and the bound model, for `docbot status` and health checks."""
        ...

    def clear(self) -> None:
        """Drop every file, chunk and the model binding."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


class Rebuildable(Protocol):
    """Rebuilding from nothing (another embedding model, a new schema), a capability of its own with one
    behaviour on every backend: searches keep the current contents until the new ones are complete."""

    def begin_rebuild(self, model: str, dim: int) -> None:
        """Start a rebuild from nothing for this model. Writes go to the new contents; searches keep
        serving the current ones until `finish_rebuild` (both backends: a new Elasticsearch index behind
        the alias, a new SQLite file copied in by one transaction)."""
        ...

    def finish_rebuild(self) -> None:
        """Make the rebuilt contents the searchable ones."""
        ...

    def abort_rebuild(self) -> None:
        """Throw a failed rebuild away."""
        ...


@runtime_checkable
class BatchWriter(Protocol):
    """Writing many files in a few requests (Elasticsearch: bulk across files); a capability of its own."""

    def replace_files(self, source: str, files: list[tuple[FileRecord, list[Chunk], np.ndarray]]) -> dict[str, str]:
        """`replace_file` for each; returns the paths that failed, with why (run-stopping errors raise)."""
        ...


class RebuildableIndex(SearchIndex, Rebuildable, Protocol):
    """An index the indexing job can also rebuild (both backends are)."""
