"""The embedded default search index: chunks with their term counts (BM25) and sqlite-vec vectors in one file.

The standard library's sqlite3 on many Pythons cannot load extensions, so this uses
`sqlean.py`, a drop-in sqlite3 build that can; the chunks and the vec0 table then share one
file and one transaction, and a file's old chunks never outlive its new ones. (An FTS5 table
was written too until schema 6; no query read it, so the migration drops it.)

Queries touch neither the vec0 table nor SQL full-text search: a snapshot of every chunk's vector,
languages, visibility and term counts (`rag.index.snapshot`, memory-mapped from files beside the
index named by the tables' generation) gives each language's nearest chunks (one product on a small
index; sign bits shortlisting rows re-ranked exactly on a large one), the exact cosine of every hit,
the background statistics, and BM25 as a few gathers over postings (`rag.index.postings`).
The tables stay the durable record and what other processes commit; `PRAGMA data_version`
says when the snapshot is out of date. Small indexes re-read it before the next query; a large
one (a few seconds of reading) is re-read on a background thread while queries keep using the
previous snapshot, whose hits are re-checked against the tables when fetched, so a chunk deleted
or restricted since is never returned (a new chunk shows up a few seconds late instead).
"""
from __future__ import annotations

import threading
import time
import uuid
from functools import lru_cache
from pathlib import Path

import numpy as np
import sqlean
import sqlite_vec

from rag.documents import Chunk, Metadata
from rag.errors import EmbeddingModelMismatch, SearchIndexError
from rag.index import postings
from rag.index.port import ALL_LANGUAGES, Background, Candidate, Candidates, FileRecord, SearchQuery, Visibility
from rag.index.snapshot import EXACT_ROWS, Snapshot, SnapshotFiles, SnapshotWriter, build
from rag.text.analysis import Analyzer
from rag.text.language import languages

# 2: chunks carry their languages; 3: and who may see them; 4: and their term counts;
# 5: meta's generation names the snapshot files (renewed by every write); 6: no FTS5 table
SCHEMA_VERSION = "6"
TITLE_WEIGHT = 3.0  # bm25 column weight of title+heading terms against body terms
# Up to this many chunks a stale snapshot is re-read before the query (~0.3 s at 20,000); above it,
# on a background thread while the old snapshot keeps serving.
SYNC_REFRESH_ROWS = 20_000
ROW_CACHE = 20_000  # chunk rows a fresh snapshot keeps after a query read them (about 1 KB each)
# Up to this many chunks a fresh snapshot's first query reads every chunk row in one SELECT (about 5 ms
# at 1,000): the queries after it read none, where reading each query's missing rows cost a statement
# (prepared anew for every count of ids) per query for the first hundred queries of a process.
PRELOAD_ROWS = 5_000
_ROW_SQL = ("SELECT c.id, c.source, c.path, c.ordinal, c.title, c.heading, c.text, c.langs, f.meta "
            "FROM chunks c LEFT JOIN files f ON f.source = c.source AND f.path = c.path")


class SqliteSearchIndex:
    """Hybrid index in a single SQLite file; safe to share between threads of one process."""

    def __init__(self, path: Path | str, analyzer: Analyzer, *, sync_refresh_rows: int = SYNC_REFRESH_ROWS,
                 exact_rows: int = EXACT_ROWS):
        self.path = str(path)
        self._files = SnapshotFiles(self.path) if self.path != ":memory:" else None
        self._exact_rows = exact_rows  # up to this many chunks every cosine is computed (rag.index.snapshot)
        self.analyzer = analyzer
        self._lock = threading.RLock()
        self._dim: int | None = None
        self._snapshot: Snapshot | None = None  # what queries read; see the module docstring
        self._seen: tuple[int, int] | None = None  # (data_version, own writes) the snapshot reflects
        self._writes = 0  # this connection's commits, which do not move its own data_version
        self._refreshing: threading.Thread | None = None
        self._sync_rows = sync_refresh_rows
        self._staging: SqliteSearchIndex | None = None  # the file a rebuild fills; writes go there meanwhile
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = _connect(self.path)
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
                chunks INTEGER NOT NULL, updated_at REAL NOT NULL, channels TEXT NOT NULL DEFAULT '',
                meta TEXT NOT NULL DEFAULT '', PRIMARY KEY (source, path));
            CREATE TABLE IF NOT EXISTS chunks (
                id INTEGER PRIMARY KEY, source TEXT NOT NULL, path TEXT NOT NULL, ordinal INTEGER NOT NULL,
                title TEXT NOT NULL, heading TEXT NOT NULL, text TEXT NOT NULL, langs TEXT NOT NULL DEFAULT '',
                channels TEXT NOT NULL DEFAULT '', terms BLOB NOT NULL DEFAULT x'', UNIQUE (source, path, ordinal));
            """
        )
        self._migrate()
        row = self._db.execute("SELECT value FROM meta WHERE key='dim'").fetchone()
        if row:
            self._dim = int(row[0])
            self._create_vec_table(self._dim)

    def _migrate(self) -> None:
        """Schema 1 -> 2: add each chunk's languages, computed from its stored text (no re-embedding).
        2 -> 3: add who may see each chunk and file; migrated rows get '' (nobody) until the next index
        run resolves them from the configured sources, so an upgrade never shows a restricted chunk.
        3 -> 4: add each chunk's term counts, from the terms its FTS5 row already holds.
        4 -> 5: a generation, so the first reader writes snapshot files the next ones map.
        5 -> 6: drop the FTS5 table: queries read the postings, and writing it cost every index run.

        Only an old file takes the write lock: opening a current index (every `docbot status`, every
        serving process) must not wait behind an indexer's transaction.
        """
        schema = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(chunks)")}
        file_columns = {r[1] for r in self._db.execute("PRAGMA table_info(files)")}
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if {"langs", "channels", "terms"} <= columns and {"channels", "meta"} <= file_columns and \
                "chunks_fts" not in tables and (schema is None or schema[0] == SCHEMA_VERSION):
            return
        with self._transaction():
            if "langs" not in columns:
                self._db.execute("ALTER TABLE chunks ADD COLUMN langs TEXT NOT NULL DEFAULT ''")
            if "channels" not in columns:
                self._db.execute("ALTER TABLE chunks ADD COLUMN channels TEXT NOT NULL DEFAULT ''")
            if "channels" not in file_columns:
                self._db.execute("ALTER TABLE files ADD COLUMN channels TEXT NOT NULL DEFAULT ''")
            if "meta" not in file_columns:  # a document's metadata (rag.documents.Metadata as JSON); '' until re-read
                self._db.execute("ALTER TABLE files ADD COLUMN meta TEXT NOT NULL DEFAULT ''")
            if "terms" not in columns:
                self._db.execute("ALTER TABLE chunks ADD COLUMN terms BLOB NOT NULL DEFAULT x''")
                rows = self._db.execute("SELECT rowid, title, body FROM chunks_fts").fetchall()
                self._db.executemany("UPDATE chunks SET terms=? WHERE id=?",
                                     [(postings.encode(r[1].split(), r[2].split()), r[0]) for r in rows])
            self._db.execute("DROP TABLE IF EXISTS chunks_fts")  # after the term counts were taken from it
            rows = self._db.execute("SELECT id, path, ordinal, title, heading, text FROM chunks WHERE langs=''").fetchall()
            self._db.executemany("UPDATE chunks SET langs=? WHERE id=?",
                                 [(" ".join(languages(Chunk(*r[1:]).embedding_text())), r[0]) for r in rows])
            if schema is not None:
                self._db.execute("UPDATE meta SET value=? WHERE key='schema'", (SCHEMA_VERSION,))
                self._renew_generation()

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
        if self._staging is not None:
            return self._staging.bind_model(model, dim)
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
                    [("model", model), ("dim", str(dim)), ("schema", SCHEMA_VERSION),
                     ("generation", uuid.uuid4().hex)],
                )
                self._create_vec_table(dim)
                self._dim = dim

    def files(self, source: str) -> dict[str, FileRecord]:
        """Indexed files of one source root (of the rebuild, while one runs)."""
        if self._staging is not None:
            return self._staging.files(source)
        with self._lock:
            rows = self._db.execute("SELECT path, hash, title, chunks, channels FROM files WHERE source=?", (source,))
            return {r[0]: FileRecord(r[0], r[1], r[2], r[3], _decode(r[4])) for r in rows.fetchall()}

    def indexed_sources(self) -> dict[str, int]:
        """Source keys with their indexed file counts (of the rebuild, while one runs)."""
        if self._staging is not None:
            return self._staging.indexed_sources()
        with self._lock:
            return dict(self._db.execute("SELECT source, count(*) FROM files GROUP BY source").fetchall())

    def replace_file(self, source: str, record: FileRecord, chunks: list[Chunk], vectors: np.ndarray) -> None:
        """Delete the file's old chunks and insert the new ones in one transaction."""
        if self._staging is not None:
            return self._staging.replace_file(source, record, chunks, vectors)
        if self._dim is None:
            raise SearchIndexError("bind_model() must be called before writing")
        if len(chunks) != len(vectors):
            raise SearchIndexError(f"{record.path}: {len(chunks)} chunks but {len(vectors)} vectors")
        heads = self.analyzer.terms_many(f"{c.title} {c.heading}" for c in chunks)
        bodies = self.analyzer.terms_many(c.text for c in chunks)
        channels = _encode(record.visibility)
        try:
            self._write(source, record, chunks, vectors, heads, bodies, channels)
        except sqlean.Error as exc:  # the transaction rolled back: the file stays at its old version
            raise SearchIndexError(f"{record.path}: the index refused the write ({exc})") from exc

    def _write(self, source: str, record: FileRecord, chunks: list[Chunk], vectors: np.ndarray, heads, bodies,
               channels: str) -> None:
        with self._lock, self._transaction():
            self._writes += 1
            self._renew_generation()
            self._delete_chunks(source, record.path)
            for chunk, vector, head, body in zip(chunks, vectors, heads, bodies):
                cur = self._db.execute(
                    "INSERT INTO chunks (source, path, ordinal, title, heading, text, langs, channels, terms) "
                    "VALUES (?,?,?,?,?,?,?,?,?)",
                    (source, chunk.path, chunk.ordinal, chunk.title, chunk.heading, chunk.text,
                     " ".join(languages(chunk.embedding_text())), channels, postings.encode(head, body)),
                )
                rowid = cur.lastrowid
                self._db.execute("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)",
                                 (rowid, np.asarray(vector, np.float32).tobytes()))
            self._db.execute(
                "INSERT OR REPLACE INTO files (source, path, hash, title, chunks, updated_at, channels, meta) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (source, record.path, record.content_hash, record.title, len(chunks), time.time(), channels,
                 chunks[0].meta.to_json() if chunks else ""),
            )

    def delete_file(self, source: str, path: str) -> None:
        """Remove a file and its chunks."""
        if self._staging is not None:
            return self._staging.delete_file(source, path)
        with self._lock, self._transaction():
            self._writes += 1
            self._renew_generation()
            self._delete_chunks(source, path)
            self._db.execute("DELETE FROM files WHERE source=? AND path=?", (source, path))

    def set_visibility(self, source: str, path: str, visibility: Visibility) -> None:
        """Restamp a file's chunks with who may see them."""
        if self._staging is not None:
            return self._staging.set_visibility(source, path, visibility)
        channels = _encode(visibility)
        with self._lock, self._transaction():
            self._writes += 1
            self._renew_generation()
            self._db.execute("UPDATE chunks SET channels=? WHERE source=? AND path=?", (channels, source, path))
            self._db.execute("UPDATE files SET channels=? WHERE source=? AND path=?", (channels, source, path))

    def flush(self) -> None:
        """Every write is searchable once its transaction commits; this writes the snapshot files, so the
        serving processes map them instead of each re-reading the tables (once per index run)."""
        if self._dim is not None and self._files is not None:
            self._current()

    def _renew_generation(self) -> None:
        """Inside a write transaction: the tables changed, so any snapshot files written before are stale."""
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (uuid.uuid4().hex,))

    def _delete_chunks(self, source: str, path: str) -> None:
        ids = [r[0] for r in self._db.execute("SELECT id FROM chunks WHERE source=? AND path=?", (source, path))]
        if not ids:
            return
        marks = ",".join("?" * len(ids))
        if self._dim is not None:
            self._db.execute(f"DELETE FROM chunks_vec WHERE rowid IN ({marks})", ids)
        self._db.execute(f"DELETE FROM chunks WHERE id IN ({marks})", ids)

    def _transaction(self):
        return _Transaction(self._db)

    def candidates(self, query: SearchQuery, limit: int) -> Candidates:
        """BM25 matches and each language's nearest chunks visible in the query's channel, every cosine and
        score from the in-memory snapshot (both searches run over the channel's row mask)."""
        if self._dim is None and not self._reload_dim():
            return Candidates()
        terms = self.analyzer.terms(query.text)
        snapshot, fresh = self._now()
        if snapshot.size == 0:
            return Candidates()
        vector = np.asarray(query.vector, np.float32)
        scores = snapshot.scores(vector)  # exact cosines on a small index, sign-bit agreements on a large one
        visible = snapshot.visible(query.tokens)
        keyword = snapshot.keyword(terms, visible, limit)
        translated = snapshot.keyword(self.analyzer.terms(query.translated), visible, limit) if query.translated else []
        nearest: dict[str, list[int]] = {}
        known: dict[int, float] = {}
        for lang, mask in snapshot.masks.items():
            nearest[lang], cosines = snapshot.nearest(scores, vector, mask & visible, limit)
            if cosines is not None:  # read for the shortlist already: not read again for the hits
                known.update(zip(nearest[lang], cosines.tolist()))
        wanted = {rowid for rowid, _ in keyword + translated}.union(*nearest.values())
        chunks = self._chunks(wanted, snapshot, vector, query.tokens, known, fresh)
        # A stale snapshot may name a chunk deleted or restricted since: the tables have the last word.
        nearest = {lang: [i for i in ids if i in chunks] for lang, ids in nearest.items()}
        background = {ALL_LANGUAGES if lang is None else lang: _background(cosine, snapshot.background_hub(lang))
                      for lang, cosine in snapshot.backgrounds(scores, vector).items()}
        return Candidates([(i, s) for i, s in keyword if i in chunks], nearest, chunks, background,
                          [(i, s) for i, s in translated if i in chunks])

    def _current(self) -> Snapshot:
        """The snapshot queries read: re-read first when small or missing, else in the background."""
        return self._now()[0]

    def _now(self) -> tuple[Snapshot, bool]:
        """The snapshot queries read, and whether it reflects the tables as they are (False while a large
        one is re-read in the background and the previous one serves)."""
        with self._lock:
            # Other connections' commits move data_version; this connection's own writes count themselves.
            state = (self._db.execute("PRAGMA data_version").fetchone()[0], self._writes)
            snapshot = self._snapshot
            if snapshot is not None and state == self._seen:
                return snapshot, True
            if snapshot is None or snapshot.size <= self._sync_rows or self.path == ":memory:":
                self._snapshot, self._seen = self._read(self._db), state
                return self._snapshot, True
            if self._refreshing is None or not self._refreshing.is_alive():
                self._refreshing = threading.Thread(target=self._refresh, args=(state,), daemon=True,
                                                    name="docbot-index-refresh")
                self._refreshing.start()
            return snapshot, False

    def _refresh(self, state: tuple[int, int]) -> None:
        """Re-read the snapshot on a connection of its own, so queries go on meanwhile. The read starts
        after `state` was observed, so it holds at least that; anything later triggers the next refresh."""
        try:
            db = _connect(self.path)
            try:
                snapshot = self._read(db)
            finally:
                db.close()
        except (sqlean.Error, OSError):  # the next query tries again; the previous snapshot stays safe to serve
            return
        with self._lock:
            self._snapshot, self._seen = snapshot, state

    def _read(self, db) -> Snapshot:
        """The snapshot of the tables' current generation: its files mapped when some process wrote them,
        else read from the tables (and written for the next process), in memory for `:memory:`."""
        dim = self._dim or 0
        row = db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
        if self._files is None or row is None:
            return build(db, dim, SnapshotWriter(None), TITLE_WEIGHT, self._exact_rows)
        mapped = self._files.open(row[0], self._exact_rows)
        if mapped is not None:
            return mapped
        writer = self._files.writer()
        snapshot = build(db, dim, writer, TITLE_WEIGHT, self._exact_rows)
        # The read transaction saw one generation; publish under the one it read (a later write renews it).
        generation = db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
        if generation is not None and generation[0] == row[0]:
            self._files.publish(writer, row[0])
            # Served from the published files as any other process would (a large index's rows read, not
            # mapped), not from the arrays just written.
            return self._files.open(row[0], self._exact_rows) or snapshot
        return snapshot

    def _chunks(self, ids: set, snapshot: Snapshot, vector: np.ndarray, tokens: list[str],
                known: dict[int, float], fresh: bool) -> dict:
        """The rows of these chunks that still exist and are visible to the audience, with exact cosines
        (those in `known` were computed already; the rest are computed here), in ascending id order.

        While the snapshot is fresh (the tables have not changed since it was read), its row mask already
        said which chunks exist and are visible, so a chunk's row is read from SQLite once and kept with
        the snapshot (`Snapshot.chunk_rows`); a small one's are all read at its first query (`_preload`). A
        stale snapshot's hits are all re-checked against the tables."""
        if not ids:
            return {}
        cache = snapshot.chunk_rows if fresh else None
        if cache is not None and not snapshot.rows_complete and snapshot.size <= PRELOAD_ROWS:
            self._preload(snapshot)
        entries = {} if cache is None else {i: cache[i] for i in ids if i in cache}
        missing = ids if cache is None else set() if snapshot.rows_complete else ids - entries.keys()
        if missing:
            marks = ",".join("?" * len(missing))
            visible, params = _visible_sql(tokens)
            with self._lock:
                rows = self._db.execute(f"{_ROW_SQL} WHERE c.id IN ({marks}) AND {visible}",
                                        [*missing, *params]).fetchall()
            read = _entries(rows)
            if cache is not None and len(cache) < ROW_CACHE:
                cache.update(read)
            entries.update(read)
        position = snapshot.positions(sorted(entries))
        order = list(position)  # ascending ids, present in the snapshot
        at = np.fromiter(position.values(), np.int64, len(position))
        missing_cosine = [n for n, i in enumerate(order) if i not in known]
        read_cosines = dict(zip(missing_cosine, snapshot.exact(vector, at[missing_cosine]).tolist())) \
            if missing_cosine else {}
        hubs = snapshot.hubs[at].tolist()
        out = {}
        for n, (i, hub) in enumerate(zip(order, hubs)):
            chunk, source, langs = entries[i]
            out[i] = Candidate(chunk, source, langs, read_cosines[n] if n in read_cosines else known[i], hub)
        return out

    def _preload(self, snapshot: Snapshot) -> None:
        """Every chunk row of a small snapshot, kept with it, when the tables still hold what it was read
        from: read in one statement, then checked against `data_version` (a commit in between discards
        them, and this query reads its own rows with the visibility check). Visibility is the snapshot's
        masks' to judge, as for any kept row: a query only asks for rows its audience may see."""
        with self._lock:
            if self._snapshot is not snapshot:
                return
            rows = self._db.execute(_ROW_SQL).fetchall()
            if (self._db.execute("PRAGMA data_version").fetchone()[0], self._writes) != self._seen:
                return
            snapshot.chunk_rows.update(_entries(rows))
            snapshot.rows_complete = True

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
            for table in ("files", "chunks", "meta"):
                self._db.execute(f"DELETE FROM {table}")
            self._db.execute("DROP TABLE IF EXISTS chunks_vec")
            self._dim = None
            self._writes += 1

    def begin_rebuild(self, model: str, dim: int) -> None:
        """Fill a new file beside this one; searches (here and in other processes) keep using the current
        contents until `finish_rebuild` swaps the new ones in, as Elasticsearch's alias swap does."""
        if self.path == ":memory:":
            raise SearchIndexError("an in-memory index cannot be rebuilt aside; clear() it instead")
        _remove_database(self.path + ".rebuild")  # a rebuild a crash left half-done
        self._staging = SqliteSearchIndex(self.path + ".rebuild", self.analyzer)
        self._staging.bind_model(model, dim)

    def finish_rebuild(self) -> None:
        """Copy the rebuilt index over the current one in one transaction: readers see the old contents
        or the new, never a mix and never an empty index; then delete the rebuild file."""
        staging, self._staging = self._staging, None
        if staging is None:
            return
        dim = staging._dim
        staging.close()
        with self._lock:
            self._db.execute("ATTACH DATABASE ? AS staging", (staging.path,))
            try:
                with self._transaction():
                    self._swap_in(dim or 0)
            finally:
                self._db.execute("DETACH DATABASE staging")
            self._dim = dim
            self._writes += 1
        _remove_database(staging.path)

    def _swap_in(self, dim: int) -> None:
        for table in ("files", "chunks", "meta"):
            self._db.execute(f"DELETE FROM main.{table}")
        self._db.execute("DROP TABLE IF EXISTS main.chunks_vec")
        self._db.execute(f"CREATE VIRTUAL TABLE main.chunks_vec USING vec0(embedding float[{dim}] "
                         "distance_metric=cosine)")
        self._db.execute("INSERT INTO main.meta SELECT key, value FROM staging.meta")
        self._db.execute("INSERT INTO main.files (source, path, hash, title, chunks, updated_at, channels, meta) "
                         "SELECT source, path, hash, title, chunks, updated_at, channels, meta FROM staging.files")
        self._db.execute("INSERT INTO main.chunks (id, source, path, ordinal, title, heading, text, langs, channels, "
                         "terms) SELECT id, source, path, ordinal, title, heading, text, langs, channels, terms "
                         "FROM staging.chunks")
        self._db.execute("INSERT INTO main.chunks_vec (rowid, embedding) "
                         "SELECT rowid, embedding FROM staging.chunks_vec")

    def abort_rebuild(self) -> None:
        """Throw the half-built file away; the current contents were never touched."""
        staging, self._staging = self._staging, None
        if staging is not None:
            staging.close()
            _remove_database(staging.path)

    def close(self) -> None:
        """Close the connection (a rebuild still open is thrown away)."""
        self.abort_rebuild()
        with self._lock:
            self._db.close()
            if self._snapshot is not None:
                self._snapshot.close()


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; IMMEDIATE avoids upgrade deadlocks."""

    def __init__(self, db):
        self._db = db

    def __enter__(self):
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb):
        self._db.execute("ROLLBACK" if exc_type else "COMMIT")
        return False


def _remove_database(path: str) -> None:
    """Delete an SQLite file, its WAL side files and its snapshot files, if there."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(path + suffix).unlink(missing_ok=True)
    SnapshotFiles(path).remove()


def _encode(visibility: Visibility) -> str:
    """'*' for every channel, ' C1 C2 ' for those channels (padded for a whole-id instr match), '' for nobody."""
    if visibility is None:
        return "*"
    return f" {' '.join(sorted(visibility))} " if visibility else ""


def _decode(stored: str) -> Visibility:
    return None if stored == "*" else frozenset(stored.split())


def _background(cosine: tuple[float, float, int], hub: tuple[float, float]) -> Background:
    """The query's cosine statistics (mean, std, count) over some chunks and their hub terms'."""
    return Background(*cosine, *hub) if cosine[2] else Background(0.0, 0.0, 0)


def _entries(rows) -> dict[int, tuple[Chunk, str, tuple[str, ...]]]:
    """Chunk rows as `_ROW_SQL` selects them, by id: (chunk, source, languages)."""
    return {r[0]: (Chunk(r[2], r[3], r[4], r[5], r[6], _metadata(r[8])), r[1], tuple(r[7].split())) for r in rows}


@lru_cache(maxsize=4096)
def _metadata(stored: str | None) -> Metadata:
    """A file's metadata, parsed once per distinct JSON (every chunk of a file carries the same; immutable)."""
    return Metadata.from_json(stored)


def _connect(path: str):
    """A connection with sqlite-vec loaded and autocommit (transactions are explicit)."""
    db = sqlean.connect(path, check_same_thread=False, timeout=30, isolation_level=None)
    db.enable_load_extension(True)
    sqlite_vec.load(db)
    db.enable_load_extension(False)
    return db


def _visible_sql(tokens: list[str]) -> tuple[str, list[str]]:
    """The SQL condition (on chunks `c`) for rows visible to an audience (a channel, an asker), and its
    parameters."""
    if tokens:
        return ("(c.channels = '*' OR " + " OR ".join(["instr(c.channels, ?) > 0"] * len(tokens)) + ")",
                [f" {t} " for t in tokens])
    return "c.channels = '*'", []
