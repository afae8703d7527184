"""The embedded index's own behaviour: the schema migration, and changes seen across processes."""
import sqlean
from test_search_index import put

from rag.embedded_index import SCHEMA_VERSION, SqliteSearchIndex
from rag.search_index import SearchQuery


def test_a_schema_1_index_gains_chunk_languages_without_re_embedding(tmp_path, analyzer, embedder):
    path = tmp_path / "index.sqlite3"
    index = SqliteSearchIndex(path, analyzer)
    index.bind_model(embedder.name, embedder.dim)
    put(index, embedder, "ko.md", ["모든 풀 리퀘스트는 최소 2명의 승인이 있어야 병합할 수 있습니다."], "코드 리뷰")
    put(index, embedder, "en.md", ["Every business trip needs approval two weeks ahead."], "Travel")
    index.close()
    db = sqlean.connect(str(path))  # what an index written before chunk languages looks like
    db.execute("ALTER TABLE chunks DROP COLUMN langs")
    db.execute("UPDATE meta SET value='1' WHERE key='schema'")
    db.commit()
    db.close()

    reopened = SqliteSearchIndex(path, analyzer)
    text = "pull request approvals"
    found = reopened.candidates(SearchQuery(text, embedder.embed_query(text), 5), 10)
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
