"""The embedded index's own behaviour: the schema migration, and changes seen across processes."""
import numpy as np
import pytest
import sqlean
from test_search_index import put

from rag.index.embedded import SCHEMA_VERSION, SqliteSearchIndex
from rag.index.port import SearchQuery


def _older_index_searched(path, analyzer, embedder, column: str, schema: str, text: str):
    """An index as an earlier schema wrote it (two documents, no `column`), reopened and searched."""
    index = SqliteSearchIndex(path, analyzer)
    index.bind_model(embedder.name, embedder.dim)
    put(index, embedder, "ko.md", ["모든 풀 리퀘스트는 최소 2명의 승인이 있어야 병합할 수 있습니다."], "코드 리뷰")
    put(index, embedder, "en.md", ["Every business trip needs approval two weeks ahead."], "Travel")
    index.close()
    db = sqlean.connect(str(path))
    _fts5_table(db, analyzer)  # every schema before 6 wrote one
    db.execute(f"ALTER TABLE chunks DROP COLUMN {column}")
    db.execute("UPDATE meta SET value=? WHERE key='schema'", (schema,))
    db.commit()
    db.close()
    reopened = SqliteSearchIndex(path, analyzer)
    return reopened, reopened.candidates(SearchQuery(text, embedder.embed_query(text), 5), 10)


def test_a_schema_1_index_gains_chunk_languages_without_re_embedding(tmp_path, analyzer, embedder):
    reopened, found = _older_index_searched(tmp_path / "i.sqlite3", analyzer, embedder, "langs", "1",
                                            "pull request approvals")
    assert {c.chunk.path: c.languages for c in found.chunks.values()} == {"ko.md": ("ko",), "en.md": ("en",)}
    assert reopened._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == SCHEMA_VERSION
    reopened.close()


def test_a_serving_process_sees_what_the_indexer_wrote(tmp_path, analyzer, embedder):
    path = tmp_path / "index.sqlite3"
    serving, indexing = SqliteSearchIndex(path, analyzer), SqliteSearchIndex(path, analyzer)
    indexing.bind_model(embedder.name, embedder.dim)
    put(indexing, embedder, "a.md", ["Zeppelins are stored in hangar seven."])
    text = "where are zeppelins stored"
    query = SearchQuery(text, embedder.embed_query(text), 5)
    assert {c.chunk.path for c in serving.candidates(query, 10).chunks.values()} == {"a.md"}
    put(indexing, embedder, "b.md", ["Submarines are stored in dock three."])
    indexing.delete_file("/src", "a.md")
    assert {c.chunk.path for c in serving.candidates(query, 10).chunks.values()} == {"b.md"}
    serving.close()
    indexing.close()


def _fts5_table(db, analyzer, rows=None):
    """The FTS5 table the write path kept until schema 6: each chunk's analysed title+heading and body."""
    rows = rows if rows is not None else db.execute("SELECT id, title, heading, text FROM chunks").fetchall()
    db.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(title, body, tokenize='unicode61')")
    heads = analyzer.terms_many(f"{r[1]} {r[2]}" for r in rows)
    bodies = analyzer.terms_many(r[3] for r in rows)
    db.executemany("INSERT INTO chunks_fts (rowid, title, body) VALUES (?,?,?)",
                   [(r[0], " ".join(h), " ".join(b)) for r, h, b in zip(rows, heads, bodies)])
    db.commit()


def _fts5_scores(index, terms):
    """FTS5's own bm25() over the same analysed terms, in a scratch database beside the index."""
    from rag.index.embedded import TITLE_WEIGHT

    reference = sqlean.connect(":memory:")
    _fts5_table(reference, index.analyzer, index._db.execute("SELECT id, title, heading, text FROM chunks").fetchall())
    match = " OR ".join(f'"{t}"' for t in terms)
    return dict(reference.execute(
        f"SELECT rowid, -bm25(chunks_fts, {TITLE_WEIGHT}, 1.0) FROM chunks_fts WHERE chunks_fts MATCH ?",
        (match,)).fetchall())


def _memory_scores(index, terms):
    snapshot = index._current()
    scores = snapshot.postings.scores(terms)
    return {int(snapshot.ids[n]): float(scores[n]) for n in np.flatnonzero(scores > 0)}


def test_bm25_from_memory_scores_exactly_as_fts5_does(tmp_path, analyzer, embedder):
    """The in-memory postings use FTS5's bm25() formula: column weights, length normalisation, idf floor."""
    index = SqliteSearchIndex(tmp_path / "index.sqlite3", analyzer)
    index.bind_model(embedder.name, embedder.dim)
    put(index, embedder, "deploy.md", ["Deploy on Tuesday after review.", "Rollback steps for a failed deploy."],
        "Deploy guide")
    put(index, embedder, "review.md", ["Every review needs two approvals before merge."], "Code review")
    put(index, embedder, "ko.md", ["배포 전에 승인을 받아야 합니다. 배포 승인 절차"], "배포 절차")
    for question in ["deploy review", "review approvals merge", "배포 승인", "rollback"]:
        terms = sorted(set(analyzer.terms(question)))
        fts = _fts5_scores(index, terms)
        assert fts and _memory_scores(index, terms) == pytest.approx(fts, rel=1e-5), question
    index.close()


def test_bm25_from_memory_matches_fts5_on_the_handbook(handbook_indexer, analyzer):
    """On real text the matches are the same; scores differ by a few percent where FTS5 splits a term
    such as "9:30" or "ci/cd" into two tokens (its chunk lengths count them twice)."""
    index = handbook_indexer.index
    for question in ["배포 절차 승인", "expense report receipts deadline", "온보딩 첫날 노트북", "VPN"]:
        terms = sorted(set(analyzer.terms(question)))
        fts, mine = _fts5_scores(index, terms), _memory_scores(index, terms)
        assert fts and mine.keys() == fts.keys(), question
        assert mine == pytest.approx(fts, rel=0.05), question


def test_a_large_index_serves_the_old_snapshot_while_it_refreshes_but_never_a_removed_chunk(
        tmp_path, analyzer, embedder):
    path = tmp_path / "index.sqlite3"
    # Every index counts as large here: a stale snapshot is re-read in the background.
    serving, indexing = SqliteSearchIndex(path, analyzer, sync_refresh_rows=0), SqliteSearchIndex(path, analyzer)
    indexing.bind_model(embedder.name, embedder.dim)
    put(indexing, embedder, "a.md", ["Zeppelins are stored in hangar seven."])
    put(indexing, embedder, "c.md", ["Zeppelin pilots meet in hangar seven on Mondays."])
    text = "where are zeppelins stored"
    query = SearchQuery(text, embedder.embed_query(text), 5)
    assert {c.chunk.path for c in serving.candidates(query, 10).chunks.values()} == {"a.md", "c.md"}

    indexing.delete_file("/src", "a.md")
    indexing.set_visibility("/src", "c.md", frozenset({"C-PRIVATE"}))
    put(indexing, embedder, "b.md", ["Zeppelin spare parts are stored in hangar nine."])
    found = serving.candidates(query, 10)  # the old snapshot still names a.md and c.md: both re-checked
    assert {c.chunk.path for c in found.chunks.values()} <= {"b.md"}
    assert all(i in found.chunks for ids in found.nearest.values() for i in ids)
    serving._refreshing.join(10)
    assert {c.chunk.path for c in serving.candidates(query, 10).chunks.values()} == {"b.md"}
    serving.close()
    indexing.close()


def test_a_schema_3_index_gains_term_counts_from_its_fts_rows(tmp_path, analyzer, embedder):
    reopened, found = _older_index_searched(tmp_path / "i.sqlite3", analyzer, embedder, "terms", "3", "리퀘스트 승인")
    assert [found.chunks[i].chunk.path for i, _ in found.keyword] == ["ko.md"]
    tables = {r[0] for r in reopened._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "chunks_fts" not in tables  # read for the term counts, then dropped
    reopened.close()


def test_a_schema_5_index_drops_its_fts5_table_and_keeps_every_chunk(tmp_path, analyzer, embedder):
    path = tmp_path / "i.sqlite3"
    index = SqliteSearchIndex(path, analyzer)
    index.bind_model(embedder.name, embedder.dim)
    put(index, embedder, "en.md", ["Every business trip needs approval two weeks ahead.", "Receipts go to finance."])
    before = index._db.execute("SELECT id, text, terms FROM chunks ORDER BY id").fetchall()
    index.close()
    db = sqlean.connect(str(path))
    _fts5_table(db, analyzer)
    db.execute("UPDATE meta SET value='5' WHERE key='schema'")
    db.commit()
    db.close()

    reopened = SqliteSearchIndex(path, analyzer)
    tables = {r[0] for r in reopened._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "chunks_fts" not in tables
    assert reopened._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == SCHEMA_VERSION
    assert reopened._db.execute("SELECT id, text, terms FROM chunks ORDER BY id").fetchall() == before
    text = "business trip approval"
    found = reopened.candidates(SearchQuery(text, embedder.embed_query(text), 5), 10)
    assert [found.chunks[i].chunk.ordinal for i, _ in found.keyword][:1] == [0]
    put(reopened, embedder, "en.md", ["Trips abroad need a second approval."])  # writes after the drop
    assert reopened.stats()["chunks"] == 1
    reopened.close()
