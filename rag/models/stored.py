"""Passage vectors computed once and looked up at turn time: the answer's sentence vectors.

The answer's reading embeds every quotable sentence of the top documents (about 36 a turn): nearly all of
a first turn's time on the offline path, and the same sentences every time the same documents are read.
They were once embedded beside their passages while indexing, four fifths of a first pass's embeddings
(issue 50). Now a turn's `VectorCache` asks this store before the model and writes what it had to embed
(computed on first use, kept for every later turn and process), and the indexer only lists each
passage's sentences (`rag.ingest.chunking.sentence_texts`) as *wanted*: a second pass
(`rag.index.sentences.SentenceFiller`) embeds them while the server is idle, after indexing.

A SQLite file beside the index, keyed by a hash of the text and bound to one model: a different model
or dimension empties it. It holds at most `max_rows` vectors, the oldest written going first; a sentence
of a document edited away simply stays until then (a miss is a model call, never a wrong vector).
"""
from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import numpy as np

MAX_ROWS = 400_000  # ~600 MB of 384-dimension vectors: far above a company wiki's sentences
_BATCH = 500  # keys per SELECT: under SQLite's variable limit


class StoredVectors:
    """Vectors of texts for one embedding model, persisted in a SQLite file; safe across threads."""

    def __init__(self, path: Path, model: str, dim: int, max_rows: int = MAX_ROWS):
        self.path, self.model, self.dim, self.max_rows = path, model, dim, max_rows
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")  # the serving process reads while the indexer writes
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a cache: a commit lost to a power cut is embedded again
        self._bind()

    def _bind(self) -> None:
        with self._lock:
            self._db.execute("CREATE TABLE IF NOT EXISTS model (name TEXT NOT NULL, dim INTEGER NOT NULL)")
            self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
            # Texts the indexer listed for the second pass, oldest first; a text leaves once its vector is stored.
            self._db.execute("CREATE TABLE IF NOT EXISTS wanted (key BLOB PRIMARY KEY, text TEXT NOT NULL)")
            bound = self._db.execute("SELECT name, dim FROM model").fetchone()
            if bound != (self.model, self.dim):  # another model's vectors are not this model's
                self._db.execute("DELETE FROM vectors")
                self._db.execute("DELETE FROM wanted")  # listed for another model: the next index run lists again
                self._db.execute("DELETE FROM model")
                self._db.execute("INSERT INTO model VALUES (?, ?)", (self.model, self.dim))

    def get_many(self, texts: list[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those texts that have one."""
        keys = {_key(t): t for t in texts}
        found: dict[str, np.ndarray] = {}
        for key, blob in self._select("key, vector", list(keys)):
            vector = np.frombuffer(blob, np.float32)
            if vector.shape == (self.dim,):
                found[keys[key]] = vector.copy()
        return found

    def missing(self, texts: list[str]) -> list[str]:
        """Those of the texts (each once, in order) without a stored vector (keys only are read)."""
        keys = {_key(t): t for t in texts}
        have = {keys[key] for key, in self._select("key", list(keys))}
        return [t for t in dict.fromkeys(texts) if t not in have]

    def _select(self, columns: str, keys: list[bytes]) -> list[tuple]:
        rows: list[tuple] = []
        with self._lock:
            for start in range(0, len(keys), _BATCH):
                part = keys[start : start + _BATCH]
                rows += self._db.execute(f"SELECT {columns} FROM vectors WHERE key IN ({','.join('?' * len(part))})",
                                         part).fetchall()
        return rows

    def want(self, texts: list[str]) -> int:
        """List texts for the second pass (those without a vector, each once); how many were new to the list.
        Cheap: keys and texts only, no model call."""
        todo = self.missing(texts)
        if not todo:
            return 0
        with self._lock:
            before = self._db.total_changes
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT OR IGNORE INTO wanted (key, text) VALUES (?, ?)",
                                     [(_key(t), t) for t in todo])
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return self._db.total_changes - before

    def wanted(self, limit: int) -> list[str]:
        """Up to `limit` texts the second pass still has to embed, in the order they were listed."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT text FROM wanted ORDER BY rowid LIMIT ?", (limit,))]

    def wanted_count(self) -> int:
        """Texts listed for the second pass and not embedded yet."""
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM wanted").fetchone()[0])

    def put_many(self, texts: list[str], vectors: np.ndarray) -> None:
        """Store vectors (they leave the second pass's list); the oldest beyond `max_rows` are dropped."""
        rows = [(_key(t), np.asarray(v, np.float32).tobytes()) for t, v in zip(texts, vectors)]
        if not rows:
            return
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", rows)
                self._db.executemany("DELETE FROM wanted WHERE key = ?", [(key,) for key, _ in rows])
                self._db.execute("DELETE FROM vectors WHERE rowid <= (SELECT max(rowid) FROM vectors) - ?",
                                 (self.max_rows,))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
