"""Ingestion: scan a source folder, re-embed only what changed, delete what disappeared."""
from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rag.documents import Chunk
from rag.errors import DocumentError, IndexRunStopped, LeaseLost, SearchIndexError, SearchIndexUnavailable
from rag.index.port import FileRecord, RebuildableIndex, Visibility
from rag.ingest.chunking import Chunker
from rag.ingest.loaders import load
from rag.ingest.sources import FolderSource, Source, SourceFile, narrowed
from rag.models.embeddings import Embedder

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

    def merge(self, other: "IndexReport") -> None:
        """Add another run's counts to this one (several roots in one command)."""
        for name in ("added", "updated", "unchanged", "deleted", "chunks", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.errors.extend(other.errors)


def content_hash(raw: bytes, chunker_signature: str) -> str:
    """File bytes plus chunker settings: changing the chunk size must re-chunk every file."""
    return hashlib.sha256(raw + b"\0" + chunker_signature.encode()).hexdigest()


def folder_source(root: Path) -> FolderSource:
    """A folder as a source; a single file as its folder narrowed to that file (visible everywhere)."""
    return narrowed(root, [])


# Chunks handed to the embedder per call, gathered across files (most files are a few chunks): one
# OpenAI request per 64 chunks instead of one per file, full matrix products for USE. e5 encodes them
# one text at a time inside (its cheapest mode, see rag.models.embeddings.E5Embedder).
BATCH_CHUNKS = 64


@dataclass
class _Pending:
    """A changed file, chunked and waiting for its batch to be embedded."""

    item: SourceFile
    record: FileRecord
    chunks: list[Chunk]
    known: FileRecord | None


class Indexer:
    """Keeps a search index in step with folders of documents."""

    def __init__(self, index: RebuildableIndex, embedder: Embedder, chunker: Chunker, chunker_signature: str,
                 batch_chunks: int = BATCH_CHUNKS):
        self.index, self.embedder, self.chunker = index, embedder, chunker
        self.signature, self.batch_chunks = chunker_signature, batch_chunks

    def run(self, root: Path, on_file: Callable[[str], None] | None = None, full: bool = False) -> IndexReport:
        """Index a folder (with a deletion sweep) or a single file (without one)."""
        return self.sync(folder_source(root), on_file, full=full)

    def sync(self, source: Source, on_file: Callable[[str], None] | None = None, *, full: bool = False,
             on_source: Callable[[str, int], None] | None = None,
             check: Callable[[], None] | None = None) -> IndexReport:
        """Bring the index in step with a source: new and changed files embedded, gone files removed.

        Changed files are chunked, embedded together in batches of about `batch_chunks` chunks, and
        each is replaced in its own transaction, so a run killed midway leaves every file either at
        its old or its new version, and the next run finishes the rest. `full`
        re-embeds unchanged files too (a periodic rebuild) without emptying the index first.
        `check` runs before every write and may raise LeaseLost to stop the run.
        """
        check = check or (lambda: None)
        started = time.perf_counter()
        self.index.bind_model(self.embedder.name, self.embedder.dim)
        known = self.index.files(source.key)
        report = IndexReport()
        files = source.files()
        if on_source:
            on_source(source.name, len(files))
        visibility = getattr(source, "visibility", None)
        done = on_file or (lambda path: None)
        try:
            batch: list[_Pending] = []
            for item in files:
                pending = self._prepare(source.key, item, visibility, None if full else known.get(item.path),
                                        known.get(item.path), report, check)
                if pending is None:
                    done(item.path)
                    continue
                batch.append(pending)
                if sum(len(p.chunks) for p in batch) >= self.batch_chunks:
                    self._write_batch(source.key, batch, report, check, done)
                    batch = []
            self._write_batch(source.key, batch, report, check, done)
            if source.complete:
                for gone in sorted(set(known) - {f.path for f in files}):
                    check()
                    self.index.delete_file(source.key, gone)
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
            raw = item.read()
            digest = content_hash(raw, self.signature)
            if compare and compare.content_hash == digest:
                if compare.visibility != visibility:  # the source's channels changed: restamp, no re-embedding
                    check()
                    self.index.set_visibility(key, rel, visibility)
                report.unchanged += 1
                return None
            doc = load(rel, raw, item.meta)
            chunks = self.chunker.chunk(doc)
            if not chunks:
                raise DocumentError(rel, "no text to index")
            return _Pending(item, FileRecord(rel, digest, doc.title, len(chunks), visibility), chunks, known)
        except Exception as exc:
            self._failed(rel, exc, report)
            return None

    def _write_batch(self, key: str, batch: list[_Pending], report: IndexReport, check: Callable[[], None],
                     done: Callable[[str], None]) -> None:
        """Embed a batch of files' chunks in one call and write each file; if the batch's embedding fails,
        each file is embedded alone, so only the file at fault is reported and the others are written."""
        if not batch:
            return
        try:
            vectors = self.embedder.embed_passages([c.embedding_text() for p in batch for c in p.chunks])
        except Exception as exc:
            if len(batch) > 1:
                for pending in batch:
                    self._write_batch(key, [pending], report, check, done)
                return
            self._failed(batch[0].item.path, exc, report)
            done(batch[0].item.path)
            return
        start = 0
        for pending in batch:
            rel = pending.item.path
            mine = vectors[start : start + len(pending.chunks)]
            start += len(pending.chunks)
            try:
                check()  # embedding may take minutes: write only if the lease is still ours
                self.index.replace_file(key, pending.record, pending.chunks, mine)
            except Exception as exc:
                self._failed(rel, exc, report)
            else:
                report.chunks += len(pending.chunks)
                if pending.known:
                    report.updated += 1
                else:
                    report.added += 1
            done(rel)

    @staticmethod
    def _failed(rel: str, exc: Exception, report: IndexReport) -> None:
        """Report one file's failure against it; re-raise what means the run cannot go on."""
        if isinstance(exc, (SearchIndexUnavailable, LeaseLost, IndexRunStopped)):  # nothing more can be written
            raise exc
        if isinstance(exc, DocumentError):
            report.errors.append((rel, exc.reason))
        elif isinstance(exc, SearchIndexError):  # this file's write failed; the others go on, retried next run
            report.errors.append((rel, str(exc)))
        elif isinstance(exc, OSError):
            report.errors.append((rel, f"cannot read: {exc.strerror or exc}"))
        else:  # a parser, the embedder or an odd name: this file only, never the run
            log.exception("indexing %s failed", rel, exc_info=exc)
            report.errors.append((rel, f"failed: {exc.__class__.__name__}: {exc}"[:300]))
