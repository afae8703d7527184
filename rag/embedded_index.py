"""The embedded default search index: SQLite FTS5 (BM25) and sqlite-vec (cosine kNN) in one file.

The standard library's sqlite3 on many Pythons cannot load extensions, so this uses
`sqlean.py`, a drop-in sqlite3 build that can; FTS5 and the vec0 table then share one
file and one transaction, and a file's old chunks never outlive its new ones.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import sqlean
import sqlite_vec

from .analysis import Analyzer
from .documents import Chunk, Hit
from .errors import EmbeddingModelMismatch, SearchIndexError
from .fusion import apply_floor, reciprocal_rank_fusion
from .search_index import FileRecord, SearchQuery

SCHEMA_VERSION = "1"
TITLE_WEIGHT = 3.0  # bm25 column weight of title+heading terms against body terms


class SqliteSearchIndex:
    """Hybrid index in a single SQLite file; safe to share between threads of one process."""

    def __init__(self, path: Path | str, analyzer: Analyzer, *, candidates: int = 40, rrf_k: int = 60,
                 min_cosine: float = 0.78, cosine_gap: float = 0.08, keyword_top: int = 5):
        self.path = str(path)
        self.analyzer = analyzer
        self.candidates, self.rrf_k = candidates, rrf_k
        self.min_cosine, self.cosine_gap = min_cosine, cosine_gap
        # BM25's own top results are kept whatever their cosine (codes, names); deeper BM25
        # candidates matched only a common word ("정책", "policy") and must pass the floor.
        self.keyword_top = keyword_top
        self._lock = threading.RLock()
        self._dim: int | None = None
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlean.connect(self.path, check_same_thread=False, timeout=30, isolation_level=None)
            self._db.enable_load_extension(True)
            sqlite_vec.load(self._db)
            self._db.enable_load_extension(False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._create_tables()
        except sqlean.Error as exc:
            raise SearchIndexError(f"cannot open search index {self.path}: {exc}") from exc

    def _create_tables(self) -> None:
        self._db.executescript(
            """
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS files (
                source TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL, title TEXT NOT NULL,
                chunks INTEGER NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (source, path));
            CREATE TABLE IF NOT EXISTS chunks (
                id INTEGER PRIMARY KEY, source TEXT NOT NULL, path TEXT NOT NULL, ordinal INTEGER NOT NULL,
                title TEXT NOT NULL, heading TEXT NOT NULL, text TEXT NOT NULL, UNIQUE (source, path, ordinal));
            CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(title, body, tokenize='unicode61');
            """
        )
        row = self._db.execute("SELECT value FROM meta WHERE key='dim'").fetchone()
        if row:
            self._dim = int(row[0])
            self._create_vec_table(self._dim)

    def _reload_dim(self) -> bool:
        """Pick up a model bound by another process (e.g. `docbot index` while `serve` runs)."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key='dim'").fetchone()
            if row:
                self._dim = int(row[0])
            return self._dim is not None

    def _create_vec_table(self, dim: int) -> None:
        self._db.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0(embedding float[{dim}] distance_metric=cosine)"
        )

    def bind_model(self, model: str, dim: int) -> None:
        """Record the model on first use; refuse a different one afterwards."""
        with self._lock:
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
            if meta.get("model") and (meta["model"] != model or int(meta["dim"]) != dim):
                raise EmbeddingModelMismatch(
                    f"the index at {self.path} was built with {meta['model']} ({meta['dim']} dims) but the "
                    f"configured embedder is {model} ({dim} dims); run `docbot index --rebuild`"
                )
            if not meta.get("model"):
                self._db.executemany(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    [("model", model), ("dim", str(dim)), ("schema", SCHEMA_VERSION)],
                )
                self._create_vec_table(dim)
                self._dim = dim

    def files(self, source: str) -> dict[str, FileRecord]:
        """Indexed files of one source root."""
        with self._lock:
            rows = self._db.execute("SELECT path, hash, title, chunks FROM files WHERE source=?", (source,))
            return {r[0]: FileRecord(r[0], r[1], r[2], r[3]) for r in rows.fetchall()}

    def replace_file(self, source: str, record: FileRecord, chunks: list[Chunk], vectors: np.ndarray) -> None:
        """Delete the file's old chunks and insert the new ones in one transaction."""
        if self._dim is None:
            raise SearchIndexError("bind_model() must be called before writing")
        if len(chunks) != len(vectors):
            raise SearchIndexError(f"{record.path}: {len(chunks)} chunks but {len(vectors)} vectors")
        heads = self.analyzer.terms_many(f"{c.title} {c.heading}" for c in chunks)
        bodies = self.analyzer.terms_many(c.text for c in chunks)
        with self._lock, self._transaction():
            self._delete_chunks(source, record.path)
            for chunk, vector, head, body in zip(chunks, vectors, heads, bodies):
                cur = self._db.execute(
                    "INSERT INTO chunks (source, path, ordinal, title, heading, text) VALUES (?,?,?,?,?,?)",
                    (source, chunk.path, chunk.ordinal, chunk.title, chunk.heading, chunk.text),
                )
                rowid = cur.lastrowid
                self._db.execute("INSERT INTO chunks_fts (rowid, title, body) VALUES (?,?,?)",
                                 (rowid, " ".join(head), " ".join(body)))
                self._db.execute("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)",
                                 (rowid, np.asarray(vector, np.float32).tobytes()))
            self._db.execute(
                "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?)",
                (source, record.path, record.content_hash, record.title, len(chunks), time.time()),
            )

    def delete_file(self, source: str, path: str) -> None:
        """Remove a file and its chunks."""
        with self._lock, self._transaction():
            self._delete_chunks(source, path)
            self._db.execute("DELETE FROM files WHERE source=? AND path=?", (source, path))

    def _delete_chunks(self, source: str, path: str) -> None:
        ids = [r[0] for r in self._db.execute("SELECT id FROM chunks WHERE source=? AND path=?", (source, path))]
        if not ids:
            return
        marks = ",".join("?" * len(ids))
        self._db.execute(f"DELETE FROM chunks_fts WHERE rowid IN ({marks})", ids)
        if self._dim is not None:
            self._db.execute(f"DELETE FROM chunks_vec WHERE rowid IN ({marks})", ids)
        self._db.execute(f"DELETE FROM chunks WHERE id IN ({marks})", ids)

    def _transaction(self):
        return _Transaction(self._db)

    def search(self, query: SearchQuery) -> list[Hit]:
        """BM25 and kNN candidates, fused by reciprocal rank, filtered by the relative cosine floor."""
        if self._dim is None and not self._reload_dim():
            return []
        terms = sorted(set(self.analyzer.terms(query.text)))
        with self._lock:
            keyword = self._bm25(terms)
            vector = self._knn(query.vector)
            fused = reciprocal_rank_fusion({"bm25": keyword, "knn": list(vector)}, self.rrf_k)
            cosines = dict(vector)
            cosines.update(self._cosines([i for i in fused if i not in cosines], query.vector))
            ranked = sorted(fused, key=lambda i: -fused[i])
            hits = self._hits(ranked, fused, cosines, set(keyword[: self.keyword_top]))
        kept = apply_floor(hits, self.min_cosine, self.cosine_gap)
        return kept[: query.k]

    def _bm25(self, terms: list[str]) -> list[int]:
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        rows = self._db.execute(
            f"SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts, {TITLE_WEIGHT}, 1.0) LIMIT ?",
            (match, self.candidates),
        )
        return [r[0] for r in rows.fetchall()]

    def _knn(self, vector: np.ndarray) -> dict[int, float]:
        rows = self._db.execute(
            "SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance",
            (np.asarray(vector, np.float32).tobytes(), self.candidates),
        )
        return {r[0]: 1.0 - float(r[1]) for r in rows.fetchall()}

    def _cosines(self, ids: list, vector: np.ndarray) -> dict[int, float]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._db.execute(f"SELECT rowid, embedding FROM chunks_vec WHERE rowid IN ({marks})", ids)
        q = np.asarray(vector, np.float32)
        return {r[0]: float(np.frombuffer(r[1], np.float32) @ q) for r in rows.fetchall()}

    def _hits(self, ranked: list, fused: dict, cosines: dict, keyword: set) -> list[Hit]:
        if not ranked:
            return []
        marks = ",".join("?" * len(ranked))
        rows = self._db.execute(
            f"SELECT id, source, path, ordinal, title, heading, text FROM chunks WHERE id IN ({marks})", ranked
        ).fetchall()
        by_id = {r[0]: r for r in rows}
        return [
            Hit(Chunk(r[2], r[3], r[4], r[5], r[6]), fused[i], cosines.get(i), i in keyword, source=r[1])
            for i in ranked
            if (r := by_id.get(i))
        ]

    def stats(self) -> dict:
        """Files, chunks and the bound model."""
        with self._lock:
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
            files = self._db.execute("SELECT count(*) FROM files").fetchone()[0]
            chunks = self._db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return {"backend": "sqlite", "path": self.path, "files": files, "chunks": chunks,
                "model": meta.get("model"), "dim": int(meta["dim"]) if "dim" in meta else None}

    def clear(self) -> None:
        """Drop everything, including the model binding."""
        with self._lock, self._transaction():
            for table in ("files", "chunks", "chunks_fts", "meta"):
                self._db.execute(f"DELETE FROM {table}")
            self._db.execute("DROP TABLE IF EXISTS chunks_vec")
            self._dim = None

    def begin_rebuild(self, model: str, dim: int) -> None:
        """SQLite rebuilds in place: empty, rebind (each file is then swapped in its own transaction)."""
        self.clear()
        self.bind_model(model, dim)

    def finish_rebuild(self) -> None:
        """Nothing to swap."""

    def abort_rebuild(self) -> None:
        """Files already rebuilt stay; the next run adds the rest."""

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; IMMEDIATE avoids upgrade deadlocks."""

    def __init__(self, db):
        self._db = db

    def __enter__(self):
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb):
        self._db.execute("ROLLBACK" if exc_type else "COMMIT")
        return False
