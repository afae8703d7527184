"""Ingestion: scan a source folder, re-embed only what changed, delete what disappeared."""
from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rag.documents import Chunk
from rag.errors import (
    DocumentError,
    IndexRunStopped,
    LeaseLost,
    SearchIndexError,
    SearchIndexUnavailable,
    SourceUnavailable,
    VisibilityNotApplied,
)
from rag.index.port import BatchWriter, FileRecord, RebuildableIndex, Visibility, audience
from rag.ingest.chunking import Chunker, sentence_texts
from rag.ingest.connectors.base import IncrementalSource
from rag.ingest.loaders import load
from rag.ingest.sources import FolderSource, Source, SourceFile, narrowed
from rag.models.embeddings import Embedder
from rag.models.stored import StoredVectors

log = logging.getLogger(__name__)

@dataclass
class IndexReport:
    """What one indexing run did."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    chunks: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    cursor: str | None = None  # a connector's cursor once these changes are in the index
    requests: int = 0  # calls a connector made to its service
    retry: bool = False  # a file failed for a reason that may pass: keep the old cursor so it is tried again
    # (source name, path) of files a folder source's include/exclude globs left out: counted, not skipped
    not_included: list[tuple[str, str]] = field(default_factory=list)

    def merge(self, other: "IndexReport") -> None:
        """Add another run's counts to this one (several roots in one command)."""
        for name in ("added", "updated", "unchanged", "deleted", "chunks", "seconds", "requests"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.errors.extend(other.errors)
        self.not_included.extend(other.not_included)
        self.retry = self.retry or other.retry


def content_hash(raw: bytes, chunker_signature: str) -> str:
    """File bytes plus chunker settings: changing the chunk size must re-chunk every file."""
    return hashlib.sha256(raw + b"\0" + chunker_signature.encode()).hexdigest()


def folder_source(root: Path) -> FolderSource:
    """A folder as a source; a single file as its folder narrowed to that file (visible everywhere)."""
    return narrowed(root, [])


# Chunks handed to the embedder per call, gathered across files (most files are a few chunks): one
# OpenAI request per 64 chunks instead of one per file, full matrix products for USE. A run checks
# for a stop (Ctrl-C, SIGTERM, a lost lease) between calls, so a local model gets fewer per call
# (LOCAL_BATCH_CHUNKS: about a second of e5 on an idle machine; it encodes one text at a time inside anyway).
BATCH_CHUNKS = 64
LOCAL_BATCH_CHUNKS = 4


class _Pages:
    """`on_file` for each file finished, and `on_pages(done, total)` counting them (each file once)."""

    def __init__(self, total: int, on_file: Callable[[str], None] | None,
                 on_pages: Callable[[int, int], None] | None):
        self.total, self.on_file, self.on_pages = total, on_file, on_pages
        self.finished: set[str] = set()
        if on_pages:
            on_pages(0, total)

    def __call__(self, path: str) -> None:
        self.finished.add(path)
        if self.on_file:
            self.on_file(path)
        if self.on_pages:
            self.on_pages(min(len(self.finished), self.total), self.total)


@dataclass(eq=False)  # identity: a file is one pending item however its chunks are sliced
class _Pending:
    """A changed file, chunked, its vectors filling in as its chunks are embedded."""

    item: SourceFile
    record: FileRecord
    chunks: list[Chunk]
    known: FileRecord | None
    vectors: list = field(default_factory=list)
    failed: bool = False

    @property
    def ready(self) -> bool:
        return not self.failed and len(self.vectors) == len(self.chunks)


class Indexer:
    """Keeps a search index in step with folders of documents."""

    def __init__(self, index: RebuildableIndex, embedder: Embedder, chunker: Chunker, chunker_signature: str,
                 batch_chunks: int = BATCH_CHUNKS, max_file_bytes: int | None = None,
                 sentences: StoredVectors | None = None):
        self.index, self.embedder, self.chunker = index, embedder, chunker
        self.signature, self.batch_chunks, self.max_file_bytes = chunker_signature, batch_chunks, max_file_bytes
        # The answer's sentence vectors: each passage's sentences are listed there for the second pass (None: no
        # second pass; turns embed what they read on first use).
        self.sentences = sentences

    def run(self, root: Path, on_file: Callable[[str], None] | None = None, full: bool = False) -> IndexReport:
        """Index a folder (with a deletion sweep) or a single file (without one)."""
        return self.sync(folder_source(root), on_file, full=full)

    def sync(self, source: Source, on_file: Callable[[str], None] | None = None, *, full: bool = False,
             on_source: Callable[[str, int], None] | None = None,
             check: Callable[[], None] | None = None,
             on_chunks: Callable[[int], None] | None = None, cursor: str | None = None,
             on_pages: Callable[[int, int], None] | None = None) -> IndexReport:
        """Bring the index in step with a source: new and changed files embedded, gone files removed.

        A connector (IncrementalSource) gives only what changed since `cursor`, and the report carries the
        cursor to store once the run succeeds; `full` ignores the cursor and lists everything.

        Changed files are read and chunked first, then their chunks are embedded in slices of
        `batch_chunks` taken across files, small files before large ones, and each file is replaced
        in its own transaction as soon as its last chunk is embedded: a 2 MB file never holds the
        others back, and a run killed midway leaves every file at its old or its new version.
        `on_source(name, chunks)` announces the chunks to embed and `on_chunks(n)` counts them off.
        `check` runs between files, between slices and before every write; it may raise LeaseLost or
        IndexRunStopped to stop the run. `full` re-embeds unchanged files too without emptying the index.
        `on_pages(done, total)` counts the files listed (`total`) as each is finished: written, found
        unchanged or skipped ("indexing 212 of 853 pages"); a file written is searchable at once.
        """
        check = check or (lambda: None)
        started = time.perf_counter()
        self.index.bind_model(self.embedder.name, self.embedder.dim)
        known = self.index.files(source.key)
        report = IndexReport()
        if isinstance(source, IncrementalSource):
            changes = source.changes(None if full else cursor)
            files, gone, complete = changes.changed, set(changes.deleted), changes.complete
            report.cursor, report.requests = changes.cursor, changes.requests
        else:
            files, gone, complete = source.files(), set(), source.complete
        visibility = getattr(source, "visibility", None)
        done = _Pages(len(files), on_file, on_pages)
        try:
            pending: list[_Pending] = []
            for item in files:
                check()
                prepared = self._prepare(source.key, item, audience(visibility, item.principals),
                                         None if full else known.get(item.path),
                                         known.get(item.path), report, check)
                if prepared is None:
                    done(item.path)
                else:
                    pending.append(prepared)
            pending.sort(key=lambda p: len(p.chunks) > self.batch_chunks)  # stable: small files first, in order
            if on_source:
                on_source(source.name, sum(len(p.chunks) for p in pending))
            self._embed_and_write(source.key, pending, report, check, done, on_chunks or (lambda n: None))
            present = {f.path for f in files}
            if complete:
                gone |= set(known) - present
            for path in sorted((gone - present) & set(known)):  # a path renamed away and re-created stays
                check()
                self.index.delete_file(source.key, path)
                report.deleted += 1
        finally:
            self._flush(report)  # whatever was written becomes searchable, even when the run stops early
        report.seconds = time.perf_counter() - started
        return report

    def _flush(self, report: IndexReport) -> None:
        try:
            self.index.flush()
        except SearchIndexError as exc:  # the next run's refresh shows them; do not hide the run's own error
            log.warning("could not make this run's writes searchable yet: %s", exc)
            report.errors.append(("(refresh)", str(exc)))

    def _prepare(self, key: str, item: SourceFile, visibility: Visibility, compare: FileRecord | None,
                 known: FileRecord | None, report: IndexReport, check: Callable[[], None]) -> _Pending | None:
        """Read and chunk one file; None when there is nothing to embed (unchanged, or reported as failed)."""
        rel = item.path
        try:
            self._check_size(rel, item.size)
            # A connector names the bytes' version: an indexed version is neither downloaded nor embedded again.
            raw = b"" if item.version else item.read()
            self._check_size(rel, len(raw))
            digest = content_hash(item.version.encode() if item.version else raw, self.signature)
            if compare and compare.content_hash == digest:
                if compare.visibility != visibility:  # channels or permissions changed: restamp, no re-embedding
                    check()
                    self.index.set_visibility(key, rel, visibility)
                report.unchanged += 1
                return None
            if item.version:  # a new version: only now is it downloaded
                raw = item.read()
                self._check_size(rel, len(raw))
            doc = load(rel, raw, item.meta)
            chunks = self.chunker.chunk(doc)
            if not chunks:
                raise DocumentError(rel, "no text to index")
            return _Pending(item, FileRecord(rel, digest, doc.title, len(chunks), visibility), chunks, known)
        except Exception as exc:
            self._failed(rel, exc, report)
            return None

    def _check_size(self, rel: str, size: int | None) -> None:
        limit = self.max_file_bytes
        if limit is not None and size is not None and size > limit:
            raise DocumentError(rel, f"skipped: {size / 1_048_576:.1f} MB is over the {limit / 1_048_576:g} MB "
                                     "limit (DOCBOT_MAX_FILE_MB)")

    def _embed_and_write(self, key: str, pending: list[_Pending], report: IndexReport, check: Callable[[], None],
                         done: Callable[[str], None], advance: Callable[[int], None]) -> None:
        """Embed every pending chunk in slices across files; write each file once its vectors are complete."""
        queue = [(p, c) for p in pending for c in p.chunks]
        for start in range(0, len(queue), self.batch_chunks):
            piece = [(p, c) for p, c in queue[start : start + self.batch_chunks] if not p.failed]
            self._embed(piece, report, done)
            advance(len(piece))
            check()  # a stop is honoured here, between slices, not after the whole run
            ready = [p for p in dict.fromkeys(p for p, _ in piece) if p.ready]
            if isinstance(self.index, BatchWriter) and len(ready) > 1:
                self._write_together(key, ready, report, check, done)
                continue
            for p in ready:
                self._write(key, p, report, check)
                done(p.item.path)

    def _embed(self, piece: list, report: IndexReport, done: Callable[[str], None]) -> None:
        """One embedding call for a slice; if it fails, each file's part is embedded alone, so only the
        file at fault is reported (and skipped) and the others go on."""
        if not piece:
            return
        try:
            vectors = self.embedder.embed_passages([c.embedding_text() for _, c in piece])
        except Exception as exc:
            owners = list(dict.fromkeys(p for p, _ in piece))
            if len(owners) > 1:
                for owner in owners:
                    self._embed([(p, c) for p, c in piece if p is owner], report, done)
                return
            owners[0].failed = True
            self._failed(owners[0].item.path, exc, report)
            done(owners[0].item.path)
            return
        for (p, _), vector in zip(piece, vectors):
            p.vectors.append(vector)
        self._want_sentences([c for _, c in piece])

    def _want_sentences(self, chunks: list[Chunk]) -> None:
        """List the quotable sentences of these passages for the second pass (`rag.index.sentences`): keys and
        texts only. They are not embedded here: four fifths of a first pass's embeddings were these sentences
        (issue 50), and a turn embeds (and keeps) the few it reads anyway. A failure is logged, never the file's."""
        if self.sentences is None:
            return
        try:
            self.sentences.want([t for c in chunks for t in sentence_texts(c)])
        except Exception as exc:  # the store: the passages are written either way, and turns embed on first use
            log.warning("sentences not listed for the second pass (%s); turns will embed them", exc)

    def _write(self, key: str, pending: _Pending, report: IndexReport, check: Callable[[], None]) -> None:
        try:
            check()  # embedding may take minutes: write only if the lease is still ours
            self.index.replace_file(key, pending.record, pending.chunks, np.vstack(pending.vectors))
        except Exception as exc:
            self._failed(pending.item.path, exc, report)
        else:
            self._count_written(pending, report)

    def _write_together(self, key: str, batch: list[_Pending], report: IndexReport, check: Callable[[], None],
                        done: Callable[[str], None]) -> None:
        """The files a slice completed, in a few requests for all of them (not a few per file); failures stay
        per file."""
        assert isinstance(self.index, BatchWriter)
        check()
        try:
            failed = self.index.replace_files(key, [(p.record, p.chunks, np.vstack(p.vectors)) for p in batch])
        except Exception as exc:
            for pending in batch:
                self._failed(pending.item.path, exc, report)
                done(pending.item.path)
            return
        for pending in batch:
            rel = pending.item.path
            if rel in failed:
                report.errors.append((rel, failed[rel]))
            else:
                self._count_written(pending, report)
            done(rel)

    @staticmethod
    def _count_written(pending: _Pending, report: IndexReport) -> None:
        """A file written: its chunks counted, and the file as updated (indexed before) or added."""
        report.chunks += len(pending.chunks)
        if pending.known:
            report.updated += 1
        else:
            report.added += 1

    @staticmethod
    def _failed(rel: str, exc: Exception, report: IndexReport) -> None:
        """Report one file's failure against it; re-raise what means the run cannot go on."""
        if isinstance(exc, (SearchIndexUnavailable, VisibilityNotApplied, LeaseLost, IndexRunStopped)):  # stop the run
            raise exc
        if not isinstance(exc, DocumentError):  # the service, the network or the index: may pass next run
            report.retry = True
        if isinstance(exc, DocumentError):
            report.errors.append((rel, exc.reason))
        elif isinstance(exc, SourceUnavailable):  # the connector could not fetch this file now
            report.errors.append((rel, str(exc)))
        elif isinstance(exc, SearchIndexError):  # this file's write failed; the others go on, retried next run
            report.errors.append((rel, str(exc)))
        elif isinstance(exc, OSError):
            report.errors.append((rel, f"cannot read: {exc.strerror or exc}"))
        else:  # a parser, the embedder or an odd name: this file only, never the run
            log.exception("indexing %s failed", rel, exc_info=exc)
            report.errors.append((rel, f"failed: {exc.__class__.__name__}: {exc}"[:300]))
