"""Ingestion: scan a source folder, re-embed only what changed, delete what disappeared."""
from __future__ import annotations

import fnmatch
import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from .chunking import Chunker
from .embeddings import Embedder
from .errors import DocumentError
from .loaders import load, supported
from .search_index import FileRecord, SearchIndex

DEFAULT_EXCLUDES = (".*", "*/.*", "_*", "*/_*", "node_modules/*")


@dataclass
class IndexReport:
    """What one indexing run did."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    chunks: int = 0
    embedded: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    def merge(self, other: "IndexReport") -> None:
        """Add another run's counts to this one (several roots in one command)."""
        for name in ("added", "updated", "unchanged", "deleted", "chunks", "embedded", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.errors.extend(other.errors)


def content_hash(raw: bytes, chunker_signature: str) -> str:
    """File bytes plus chunker settings: changing the chunk size must re-chunk every file."""
    return hashlib.sha256(raw + b"\0" + chunker_signature.encode()).hexdigest()


def scan(root: Path, excludes: Iterable[str] = DEFAULT_EXCLUDES) -> list[Path]:
    """Supported files under root (or root itself), skipping hidden and excluded paths."""
    if root.is_file():
        return [root] if supported(root) else []
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and supported(path) and not any(fnmatch.fnmatch(rel, p) for p in excludes):
            found.append(path)
    return found


class Indexer:
    """Keeps a search index in step with folders of documents."""

    def __init__(self, index: SearchIndex, embedder: Embedder, chunker: Chunker, chunker_signature: str):
        self.index, self.embedder, self.chunker = index, embedder, chunker
        self.signature = chunker_signature

    def run(self, root: Path, on_file: Callable[[str], None] | None = None,
            files: list[Path] | None = None) -> IndexReport:
        """Index one root (a folder, or a single file that is indexed without a deletion sweep)."""
        started = time.perf_counter()
        root = root.resolve()
        if not root.exists():
            raise DocumentError(str(root), "no such file or folder")
        base = root.parent if root.is_file() else root
        source = base.as_posix()
        self.index.bind_model(self.embedder.name, self.embedder.dim)
        known = self.index.files(source)
        files = scan(root) if files is None else files
        report = IndexReport()
        seen = set()
        for path in files:
            rel = path.relative_to(base).as_posix()
            seen.add(rel)
            self._index_file(source, base, rel, known.get(rel), report)
            if on_file:
                on_file(rel)
        if root.is_dir():
            for gone in sorted(set(known) - seen):
                self.index.delete_file(source, gone)
                report.deleted += 1
        report.seconds = time.perf_counter() - started
        return report

    def _index_file(self, source: str, base: Path, rel: str, known: FileRecord | None, report: IndexReport) -> None:
        try:
            raw = (base / rel).read_bytes()
            digest = content_hash(raw, self.signature)
            if known and known.content_hash == digest:
                report.unchanged += 1
                return
            doc = load(rel, raw)
            chunks = self.chunker.chunk(doc)
            if not chunks:
                raise DocumentError(rel, "no text to index")
            vectors = self.embedder.embed_passages([c.embedding_text() for c in chunks])
            self.index.replace_file(source, FileRecord(rel, digest, doc.title, len(chunks)), chunks, vectors)
        except DocumentError as exc:
            report.errors.append((rel, exc.reason))
            return
        except OSError as exc:
            report.errors.append((rel, f"cannot read: {exc.strerror or exc}"))
            return
        report.chunks += len(chunks)
        report.embedded += len(chunks)
        if known:
            report.updated += 1
        else:
            report.added += 1
