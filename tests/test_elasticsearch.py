"""The Elasticsearch backend's own behaviour, through the real async client and a fake node."""
import hashlib

import numpy as np
import pytest
from test_search_index import make_es_index, put, search

from bot.indexing import IndexJob
from bot.storage import Store
from rag.errors import SearchIndexError, SearchIndexUnavailable
from rag.index.indexer import Indexer
from rag.ingest.chunking import OverlapChunker
from rag.ingest.sources import FolderSource

import es_fake

C = es_fake.CLUSTER


@pytest.fixture
def es(analyzer, embedder):
    index = make_es_index(analyzer, live_allowed=False)
    index.bind_model(embedder.name, embedder.dim)
    yield index
    index.close()


def test_mapping_sets_index_options_and_records_the_model(es, embedder):
    (name, spec), = C.indices.items()
    vector = spec["mappings"]["properties"]["vector"]
    assert vector == {"type": "dense_vector", "dims": 384, "index": True, "similarity": "cosine",
                      "index_options": {"type": "int8_hnsw"}}
    assert spec["mappings"]["_meta"]["model"] == embedder.name and spec["mappings"]["_meta"]["korean"] == "kiwi"
    assert spec["settings"]["analysis"]["analyzer"]["docbot_ko"]["tokenizer"] == "whitespace"
    assert C.aliases == {"docbot-chunks": name}


def test_nori_is_used_when_the_plugin_is_installed(analyzer, embedder):
    index = make_es_index(analyzer, live_allowed=False)
    C.plugins = ["analysis-nori"]
    index.bind_model(embedder.name, embedder.dim)
    (spec,) = C.indices.values()
    assert spec["settings"]["analysis"]["analyzer"]["docbot_ko"]["tokenizer"] == "nori_tokenizer"
    put(index, embedder, "a.md", ["프로젝트를 삭제하면 30일 동안 보관됩니다."])
    chunk = next(d for d in next(iter(C.indices.values()))["docs"].values() if d["kind"] == "chunk")
    # The raw text once: nori analyses it server-side through a multi-field of body_en.
    assert chunk["body_en"] == "프로젝트를 삭제하면 30일 동안 보관됩니다." and "body_ko" not in chunk and "text" not in chunk
    assert spec["mappings"]["properties"]["body_en"]["fields"]["ko"]["analyzer"] == "docbot_ko"
    assert search(index, embedder, "프로젝트를 삭제하면")[0].chunk.text == "프로젝트를 삭제하면 30일 동안 보관됩니다."
    index.close()


def test_one_msearch_with_bm25_and_a_filtered_knn_per_language(es, embedder):
    put(es, embedder, "db.md", ["PostgreSQL is the default production database."])
    put(es, embedder, "ko.md", ["프로덕션 서비스는 PostgreSQL을 기본 데이터베이스로 씁니다."])
    C.requests.clear()
    assert search(es, embedder, "production database")[0].chunk.path in ("db.md", "ko.md")
    msearch = C.of("_msearch")
    assert len(msearch) == 1
    _, bm25, _, knn_ko, _, knn_en = msearch[0][2]
    public = {"terms": {"channels": ["*"]}}  # no channel asked: public chunks only, inside the query
    assert bm25["query"]["bool"]["filter"] == [{"term": {"kind": "chunk"}}, public]
    # One kNN per language, each filtered inside kNN (a pre-filter keeps k results per language).
    assert knn_ko["knn"]["filter"] == [{"term": {"kind": "chunk"}}, public, {"term": {"lang": "ko"}}]
    assert knn_en["knn"]["filter"] == [{"term": {"kind": "chunk"}}, public, {"term": {"lang": "en"}}]
    assert knn_ko["knn"]["num_candidates"] == 4 * knn_ko["knn"]["k"] and "retriever" not in knn_ko
    docs = next(iter(C.indices.values()))["docs"].values()
    assert {tuple(d["lang"]) for d in docs if d["kind"] == "chunk"} == {("en",), ("ko",)}


def test_language_statistics_come_from_a_sample_and_are_cached(es, embedder):
    put(es, embedder, "db.md", ["PostgreSQL is the default production database."])
    C.requests.clear()
    search(es, embedder, "production database")
    search(es, embedder, "database options")
    es.statistics_settled()
    samples = [body for _, path, body in C.of("/_search") if body and "function_score" in body.get("query", {})]
    assert len(samples) == 3  # ko, en and all: taken once, then cached
    put(es, embedder, "b.md", ["Another document."])  # this process wrote: sample again (in the background)
    C.requests.clear()
    search(es, embedder, "production database")
    es.statistics_settled()
    assert len([1 for _, path, body in C.of("/_search") if body and "function_score" in body.get("query", {})]) == 3


def test_an_index_from_before_per_language_search_must_be_rebuilt(analyzer, embedder):
    index = make_es_index(analyzer, live_allowed=False)
    index.bind_model(embedder.name, embedder.dim)
    (spec,) = C.indices.values()
    spec["mappings"]["_meta"]["schema"] = 1
    with pytest.raises(SearchIndexError, match="rebuild"):
        index.bind_model(embedder.name, embedder.dim)
    index.close()


def test_bulk_uses_deterministic_ids_and_removes_leftover_chunks(es, embedder):
    put(es, embedder, "a.md", ["one", "two", "three"])
    ids = lambda: {i for i, d in next(iter(C.indices.values()))["docs"].items() if d["kind"] == "chunk"}  # noqa: E731
    first = ids()
    assert first == {hashlib.sha1(f"/src\0a.md\0{n}".encode()).hexdigest() for n in range(3)}
    put(es, embedder, "a.md", ["only one now"])
    assert ids() == {hashlib.sha1(b"/src\0a.md\0" b"0").hexdigest()}
    # Stale chunks go by query (any other hash), not by a recorded count that a failed write can falsify.
    _, _, body = C.of("_delete_by_query")[-1]
    assert body["query"]["bool"]["should"] == [{"bool": {"filter": [{"term": {"path": "a.md"}}],
                                                         "must_not": [{"term": {"hash": "h-a.md-1"}}]}}]
    assert body["query"]["bool"]["minimum_should_match"] == 1


def test_throttled_requests_and_items_are_retried(es, embedder):
    C.throttle.append("/_msearch")
    doc_id = hashlib.sha1(b"/src\0b.md\0" b"0").hexdigest()
    C.bulk_item_429_once.add(doc_id)
    put(es, embedder, "b.md", ["Retried after a 429."])
    assert doc_id in next(iter(C.indices.values()))["docs"]
    assert search(es, embedder, "retried 429")[0].chunk.path == "b.md"
    assert len(C.of("_msearch")) == 2  # the throttled one and its retry


def test_a_rejected_bulk_item_fails_that_file_only(tmp_path, es, embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (docs / name).write_text(f"# {name}\n\nText of {name} about deployments.\n")
    source = FolderSource(docs)
    C.bulk_reject.add(hashlib.sha1(f"{source.key}\0b.md\0" "0".encode()).hexdigest())
    indexer = Indexer(es, embedder, OverlapChunker(900, 150), "o")
    report = indexer.sync(source)
    assert report.added == 2 and [p for p, _ in report.errors] == ["b.md"]
    assert "bulk items failed" in report.errors[0][1] and "vector" in report.errors[0][1]
    assert set(es.files(source.key)) == {"a.md", "c.md"}  # b.md has no record: retried next run
    C.bulk_reject.clear()
    assert indexer.sync(source).added == 1


def test_full_rebuild_swaps_the_alias_atomically(tmp_path, es, embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Deploy\n\nDeployments need two approvals.\n")
    job = IndexJob(Store(f"sqlite:///{tmp_path / 'c.sqlite3'}"),
                   Indexer(es, embedder, OverlapChunker(900, 150), "o"), [FolderSource(docs)])
    job.run("cli")
    old = C.aliases["docbot-chunks"]
    searched_during = []

    def on_file(path):  # while the new index fills, searches still see the old one
        searched_during.append([h.chunk.path for h in search(es, embedder, "deployments approvals")])

    run = job.run("cli", rebuild=True, on_file=on_file)
    new = C.aliases["docbot-chunks"]
    assert run.added == 1 and new != old and old not in C.indices and searched_during == [["a.md"]]
    swap = [body for _, path, body in C.of("/_aliases")][-1]
    assert swap["actions"] == [{"remove": {"index": old, "alias": "docbot-chunks"}},
                               {"add": {"index": new, "alias": "docbot-chunks"}}]


def test_unreachable_and_refused_clusters_say_so(analyzer):
    from elasticsearch import AsyncElasticsearch

    from rag.index.elastic import ElasticsearchIndex

    down = ElasticsearchIndex(lambda: AsyncElasticsearch("http://127.0.0.1:9", max_retries=0), analyzer)
    with pytest.raises(SearchIndexUnavailable, match="unreachable"):
        down.bind_model("m", 4)
    down.close()
    refused = make_es_index(analyzer, live_allowed=False)
    C.status_override = 401
    with pytest.raises(SearchIndexUnavailable, match="credentials"):
        refused.bind_model("m", 4)
    refused.close()


def test_replace_file_checks_vectors(es):
    from rag.documents import Chunk
    from rag.index.port import FileRecord

    with pytest.raises(SearchIndexError):
        es.replace_file("/s", FileRecord("x.md", "h", "X", 1), [Chunk("x.md", 0, "X", "", "t")], np.zeros((0, 384)))


def test_elasticsearch_needs_a_url(tmp_path):
    from docbot.runtime import Runtime
    from docbot.settings import Settings
    from rag.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="ELASTICSEARCH_URL"):
        _ = Runtime(Settings(_env_file=None, data_dir=tmp_path, index="elasticsearch")).index


def test_a_serving_process_searches_what_another_process_indexed(es, analyzer, embedder):
    from elasticsearch import AsyncElasticsearch

    from rag.index.elastic import ElasticsearchIndex

    put(es, embedder, "db.md", ["PostgreSQL is the default production database."])
    serving = ElasticsearchIndex(lambda: AsyncElasticsearch("http://es.test:9200", node_class=es_fake.FakeNode),
                                 analyzer)  # never calls bind_model, like `docbot serve`
    try:
        assert search(serving, embedder, "production database")[0].chunk.path == "db.md"
    finally:
        serving.close()



def test_an_index_run_refreshes_once_and_no_write_waits_for_a_refresh(tmp_path, es, embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(5):
        (docs / f"{n}.md").write_text(f"# Note {n}\n\nDeployment note number {n}.\n")
    C.requests.clear()
    report = Indexer(es, embedder, OverlapChunker(900, 150), "o").sync(FolderSource(docs))
    assert report.added == 5
    writes = [(m, p) for m, p, _ in C.requests if p.endswith(("_bulk", "_delete_by_query", "_update_by_query"))]
    assert writes and len(C.of("/_refresh")) == 1
    assert search(es, embedder, "deployment note")  # searchable after the run's one refresh


def test_a_least_privilege_key_creates_its_index_without_monitoring_apis(analyzer, embedder):
    index = make_es_index(analyzer, live_allowed=False)
    C.least_privilege = True  # no `monitor` cluster privilege: _cat and _nodes answer 403
    index.bind_model(embedder.name, embedder.dim)
    assert not C.of("/_cat") and not C.of("/_nodes")
    (spec,) = C.indices.values()
    assert spec["settings"]["analysis"]["analyzer"]["docbot_ko"]["tokenizer"] == "whitespace"  # no nori here
    index.close()


def test_docbot_never_depends_on_the_licence_or_server_fusion(es, embedder):
    put(es, embedder, "a.md", ["PostgreSQL is the default production database."])
    search(es, embedder, "production database")
    assert not C.of("/_license")
    assert all("retriever" not in (body or {}) for _, path, bodies in C.of("_msearch") for body in bodies)


@pytest.mark.parametrize("version,product,message", [("8.15.0", "Elasticsearch", "needs Elasticsearch 9"),
                                                     ("2.17.0", "OpenSearch", "not Elasticsearch")])
def test_an_unsupported_server_is_named_at_first_use(analyzer, embedder, version, product, message):
    index = make_es_index(analyzer, live_allowed=False)
    C.version, C.product = version, product
    with pytest.raises(SearchIndexError, match=message):
        index.bind_model(embedder.name, embedder.dim)
    assert not C.indices  # refused before creating anything
    index.close()


def test_partial_shard_failures_and_failed_deletes_are_errors(es, embedder):
    put(es, embedder, "a.md", ["PostgreSQL is the default production database."])
    C.shard_failure_once = True
    with pytest.raises(SearchIndexError, match="shards"):
        search(es, embedder, "production database")
    C.by_query_failure_once = True
    with pytest.raises(SearchIndexError, match="deleting"):
        es.delete_file("/src", "a.md")


def test_vectors_left_out_of_source_from_9_2_do_not_matter(analyzer, embedder):
    index = make_es_index(analyzer, live_allowed=False)
    C.version = "9.2.0"  # new indices keep vectors out of _source unless asked
    index.bind_model(embedder.name, embedder.dim)
    put(index, embedder, "db.md", ["PostgreSQL is the default production database."])
    put(index, embedder, "other.md", ["Lunch is served at noon in the cafeteria."])
    hits = search(index, embedder, "PostgreSQL production database")
    assert hits[0].chunk.path == "db.md" and hits[0].cosine > 0.5
    index.close()


def test_a_rebuild_loads_without_refreshes_or_replicas_and_restores_them(tmp_path, analyzer, embedder):
    index = make_es_index(analyzer, live_allowed=False, replicas=2)
    index.bind_model(embedder.name, embedder.dim)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Deploy\n\nDeployments need two approvals.\n")
    job = IndexJob(Store(f"sqlite:///{tmp_path / 'c.sqlite3'}"),
                   Indexer(index, embedder, OverlapChunker(900, 150), "o"), [FolderSource(docs)])
    seen = []
    job.run("cli", rebuild=True, on_file=lambda path: seen.append(dict(C.indices[index._write_index]["settings"]["index"])))
    assert seen[0]["refresh_interval"] == "-1" and seen[0]["number_of_replicas"] == 0
    (live,) = C.indices.values()
    assert "refresh_interval" not in live["settings"]["index"] and live["settings"]["index"]["number_of_replicas"] == 2
    assert search(index, embedder, "deployments approvals")[0].chunk.path == "a.md"
    index.close()


def test_settings_bound_the_candidates_elasticsearch_can_serve(tmp_path):
    from pydantic import ValidationError

    from docbot.settings import Settings

    with pytest.raises(ValidationError, match="candidates"):
        Settings(_env_file=None, candidates=3000)  # kNN would ask for 12,000 candidates: over the 10,000 cap
