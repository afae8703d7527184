"""Contract tests for the search-index port, run against every backend available here."""
import numpy as np
import pytest

from rag.documents import Chunk
from rag.embedded_index import SqliteSearchIndex
from rag.errors import EmbeddingModelMismatch
from rag.search_index import FileRecord, SearchQuery


def make_es_index(analyzer, live_allowed: bool = True, **options):
    """The Elasticsearch backend over the real async client, a fake node underneath (or a live cluster)."""
    import os

    from elasticsearch import AsyncElasticsearch

    from rag.es_index import ElasticsearchIndex

    live = os.environ.get("ELASTICSEARCH_URL") if live_allowed else None
    if live:
        factory = lambda: AsyncElasticsearch(live, api_key=os.environ.get("ELASTICSEARCH_API_KEY"))  # noqa: E731
        options.setdefault("alias", f"docbot-test-{os.getpid()}")
    else:
        import es_fake

        es_fake.CLUSTER.__init__()
        factory = lambda: AsyncElasticsearch("http://es.test:9200", node_class=es_fake.FakeNode,  # noqa: E731
                                             max_retries=2, retry_on_status=(429,), retry_backoff_base=0.01)
    return ElasticsearchIndex(factory, analyzer, **options)


@pytest.fixture(params=["sqlite", "elasticsearch"])
def index(request, tmp_path, analyzer, embedder):
    """Each backend, empty and bound to the real e5 model (Elasticsearch: fake node, or live when
    ELASTICSEARCH_URL is set)."""
    if request.param == "sqlite":
        idx = SqliteSearchIndex(tmp_path / "index.sqlite3", analyzer, min_cosine=0.78, cosine_gap=0.08)
    else:
        idx = make_es_index(analyzer, min_cosine=0.78, cosine_gap=0.08)
    idx.bind_model(embedder.name, embedder.dim)
    yield idx
    if request.param == "elasticsearch":
        idx.clear()
    idx.close()


def put(index, embedder, path, texts, title="Doc", source="/src"):
    chunks = [Chunk(path, n, title, "", t) for n, t in enumerate(texts)]
    vectors = embedder.embed_passages([c.embedding_text() for c in chunks])
    index.replace_file(source, FileRecord(path, f"h-{path}-{len(texts)}", title, len(chunks)), chunks, vectors)


def search(index, embedder, text, k=5):
    return index.search(SearchQuery(text, embedder.embed_query(text), k))


def test_korean_bm25_matches_across_particles(index, embedder):
    put(index, embedder, "del.md", ["프로젝트를 삭제하면 30일 동안 휴지통에 보관됩니다."], "삭제 정책")
    put(index, embedder, "vac.md", ["연차는 매년 15일이 주어집니다."], "휴가")
    hits = search(index, embedder, "프로젝트는 어떻게 지워?")
    assert hits[0].chunk.path == "del.md" and hits[0].keyword


def test_keyword_hits_survive_the_cosine_floor(index, embedder):
    put(index, embedder, "codes.md", ["Error code ZX-4471 means the billing export stalled."], "Codes")
    for i in range(4):
        put(index, embedder, f"leave{i}.md", [f"Annual leave rule {i}: employees get fifteen days."], "Leave")
    hits = search(index, embedder, "annual leave days ZX-4471")
    code = [h for h in hits if h.chunk.path == "codes.md"]
    assert code and code[0].keyword


def test_floor_is_relative_to_the_best_cosine_and_spares_keyword_hits():
    from rag.documents import Hit
    from rag.fusion import apply_floor

    def hit(path, cosine, keyword=False):
        return Hit(Chunk(path, 0, "", "", ""), 0.0, cosine, keyword)

    hits = [hit("top", 0.92), hit("near", 0.86), hit("far", 0.83), hit("code", 0.70, keyword=True)]
    assert [h.chunk.path for h in apply_floor(hits, 0.78, 0.08)] == ["top", "near", "code"]
    assert [h.chunk.path for h in apply_floor(hits[2:], 0.85, 0.08)] == ["code"]  # absolute minimum


def test_relative_floor_drops_unrelated_vector_hits(index, embedder):
    put(index, embedder, "db.md", ["PostgreSQL is the default database for production services."], "Databases")
    put(index, embedder, "lunch.md", ["Fruit is served in the lounge every Wednesday afternoon."], "Snacks")
    hits = search(index, embedder, "which database for production")
    assert [h.chunk.path for h in hits] == ["db.md"]


def test_replace_file_swaps_chunks_and_delete_removes_them(index, embedder):
    put(index, embedder, "a.md", ["Old fact about zeppelins.", "Another old fact about zeppelins."])
    put(index, embedder, "a.md", ["New fact about submarines."])
    assert index.stats()["chunks"] == 1
    assert all("zeppelin" not in h.chunk.text for h in search(index, embedder, "zeppelins"))
    index.delete_file("/src", "a.md")
    assert index.stats()["chunks"] == 0 and index.files("/src") == {}
    assert search(index, embedder, "submarines") == []


def test_a_second_embedding_model_is_refused(index, embedder):
    with pytest.raises(EmbeddingModelMismatch):
        index.bind_model("other/model", embedder.dim)
    with pytest.raises(EmbeddingModelMismatch):
        index.bind_model(embedder.name, 768)


def test_clear_unbinds_the_model(index, embedder):
    put(index, embedder, "a.md", ["text"])
    index.clear()
    index.bind_model("other/model", 16)
    chunk = Chunk("b.md", 0, "B", "", "hello")
    index.replace_file("/src", FileRecord("b.md", "h", "B", 1), [chunk], np.ones((1, 16), np.float32) / 4)
    assert index.stats()["model"] == "other/model" and index.stats()["chunks"] == 1


def test_files_are_scoped_by_source(index, embedder):
    put(index, embedder, "a.md", ["alpha"], source="/one")
    put(index, embedder, "a.md", ["beta"], source="/two")
    assert set(index.files("/one")) == {"a.md"} and index.stats()["files"] == 2
