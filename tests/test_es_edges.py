"""The Elasticsearch backend as a real cluster behaves (issue 29): visibility restamps that are checked,
the documented least-privilege role, a sample that is random, orphaned rebuilds, clusters that are down or
too old, text stored once, bulk across files; and the fake's rules that make those tests honest."""
import asyncio
import json
import re
import threading
from pathlib import Path

import numpy as np
import pytest
from test_search_index import make_es_index, put, search

import rag.index.elastic as elastic
from bot.indexing import IndexJob
from bot.storage import Store
from rag.documents import Chunk
from rag.errors import SearchIndexError, VisibilityNotApplied
from rag.index.indexer import Indexer
from rag.index.port import FileRecord
from rag.ingest.chunking import OverlapChunker
from rag.ingest.sources import FolderSource

import es_fake

C = es_fake.CLUSTER
DOCS = Path(__file__).resolve().parent.parent / "docs" / "elasticsearch.md"


@pytest.fixture
def es(analyzer, embedder):
    index = make_es_index(analyzer, live_allowed=False)
    index.bind_model(embedder.name, embedder.dim)
    yield index
    index.close()


def _chunks(path: str) -> list[dict]:
    (index,) = [i for n, i in C.indices.items() if C.aliases.get("docbot-chunks") == n]
    return [d for d in index.docs.values() if d["kind"] == "chunk" and d["path"] == path]


def _record(path: str) -> dict:
    (index,) = [i for n, i in C.indices.items() if C.aliases.get("docbot-chunks") == n]
    return next(d for d in index.docs.values() if d["kind"] == "file" and d["path"] == path)


# --- item 2: visibility ----------------------------------------------------------------------

def test_a_chunk_skipped_by_a_version_conflict_is_restamped_not_left_public(es, embedder):
    put(es, embedder, "secret.md", ["Salary bands for 2027.", "Bonus pool by team.", "Promotion budget."])
    C.by_query_conflicts = 1  # another writer touched one chunk since the last refresh
    es.set_visibility("/src", "secret.md", frozenset({"C-HR"}))
    assert [c["channels"] for c in _chunks("secret.md")] == [["C-HR"]] * 3
    assert _record("secret.md")["channels"] == ["C-HR"]


def test_a_restamp_that_cannot_be_made_consistent_fails_the_run_and_keeps_the_record(tmp_path, es, embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "secret.md").write_text("# Pay\n\nSalary bands for 2027.\n")
    public = FolderSource(docs)
    indexer = Indexer(es, embedder, OverlapChunker(900, 150), "o")
    indexer.sync(public)
    restricted = FolderSource(docs, visibility=frozenset({"C-HR"}))
    C.by_query_conflicts = 10**6  # it keeps changing under every pass
    with pytest.raises(VisibilityNotApplied):
        indexer.sync(restricted)
    assert _record("secret.md")["channels"] == ["*"]  # unchanged: the next run sees a difference and retries
    C.by_query_conflicts = 0
    indexer.sync(restricted)
    assert [c["channels"] for c in _chunks("secret.md")] == [["C-HR"]] and _record("secret.md")["channels"] == ["C-HR"]


def test_a_by_query_failure_answered_with_its_status_is_an_error(es, embedder):
    put(es, embedder, "a.md", ["Some text."])
    C.by_query_failure_once = True
    with pytest.raises(VisibilityNotApplied, match="failed"):
        es.set_visibility("/src", "a.md", frozenset({"C1"}))
    assert _record("a.md")["channels"] == ["*"]


# --- item 7: the least-privilege role --------------------------------------------------------

def _documented_role() -> dict:
    block = re.search(r"## The minimal role.*?```json\n(.*?)```", DOCS.read_text(), re.S)
    return json.loads(block.group(1))


def test_the_documented_role_runs_everything_docbot_does(tmp_path, analyzer, embedder):
    index = make_es_index(analyzer, live_allowed=False)
    C.role = _documented_role()
    assert C.role["cluster"] == []  # no monitor: GET /, _cat and _nodes are refused
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Deploy\n\nDeployments need two approvals.\n")
    (docs / "b.md").write_text("# Leave\n\nAnnual leave is 15 days.\n")
    job = IndexJob(Store(f"sqlite:///{tmp_path / 'c.sqlite3'}"),
                   Indexer(index, embedder, OverlapChunker(900, 150), "o"), [FolderSource(docs)])
    try:
        assert job.run("cli").status == "done"
        assert job.run("cli", rebuild=True).status == "done"
        index.set_visibility(FolderSource(docs).key, "a.md", frozenset({"C1"}))
        assert search(index, embedder, "annual leave days")[0].chunk.path == "b.md"
        assert index.stats()["files"] == 2
        (docs / "b.md").unlink()
        assert job.run("cli").deleted == 1
    finally:
        index.close()
    assert not [r for r in C.requests if r[1] == "/"]


def test_the_fake_refuses_what_the_role_does_not_grant(analyzer, embedder):
    index = make_es_index(analyzer, live_allowed=False)
    C.role = {"cluster": [], "indices": [{"names": ["docbot-chunks*"], "privileges": ["read"]}]}
    with pytest.raises(SearchIndexError, match="403"):
        index.bind_model(embedder.name, embedder.dim)  # creating the index needs create_index or manage
    index.close()


# --- item 8: the random sample ---------------------------------------------------------------

def _random_files(index, count: int, dim: int) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    vectors = []
    for n in range(count):
        v = rng.normal(size=(1, dim)).astype(np.float32)
        v /= np.linalg.norm(v)
        vectors.append(v[0])
        index.replace_file("/src", FileRecord(f"f{n:03}.md", f"h{n}", "T", 1),
                           [Chunk(f"f{n:03}.md", 0, "T", "", f"note {n}")], v)
    index.flush()
    return vectors


def test_the_background_sample_covers_the_index_not_its_first_chunks(es, embedder, monkeypatch):
    monkeypatch.setattr(elastic, "SAMPLE_SIZE", 10)
    vectors = _random_files(es, 60, embedder.dim)
    sampled: list[np.ndarray] = []
    real = elastic._Sample.of
    monkeypatch.setattr(elastic._Sample, "of", classmethod(lambda cls, v, n: sampled.append(v) or real(v, n)))
    search(es, embedder, "note")
    es.statistics_settled()
    order = {tuple(np.round(v, 5)): n for n, v in enumerate(vectors)}
    positions = sorted(order[tuple(np.round(v.astype(np.float32), 5))] for v in sampled[-1])
    assert len(positions) == 10 and max(positions) >= 30  # not the first ten in index order


def test_a_query_does_not_wait_for_fresh_statistics(es, embedder):
    put(es, embedder, "a.md", ["PostgreSQL is the default production database."])
    search(es, embedder, "production database")
    es.statistics_settled()
    release = threading.Event()
    started = threading.Event()

    async def slow_sampling():
        started.set()
        while not release.is_set():
            await asyncio.sleep(0.01)

    es._take_samples = slow_sampling
    put(es, embedder, "b.md", ["Another document."])  # stale now: sampled again, in the background
    hits = search(es, embedder, "production database")  # returns while the sampler is still held
    assert hits and hits[0].chunk.path == "a.md" and started.is_set() and not es._sampling.done()
    release.set()
    es.statistics_settled()


# --- item 9: operations ----------------------------------------------------------------------

def test_a_crashed_rebuilds_half_built_index_is_deleted_by_the_next_run(analyzer, embedder):
    crashed = make_es_index(analyzer, live_allowed=False)
    crashed.bind_model(embedder.name, embedder.dim)
    live = C.aliases["docbot-chunks"]
    crashed.begin_rebuild(embedder.name, embedder.dim)  # ...and the process dies here
    orphan = crashed._write_index
    assert C.indices[orphan]["settings"]["index"]["refresh_interval"] == "-1"
    crashed._loop.stop()
    from elasticsearch import AsyncElasticsearch

    later = elastic.ElasticsearchIndex(lambda: AsyncElasticsearch("http://es.test:9200", node_class=es_fake.FakeNode),
                                       analyzer)
    later.bind_model(embedder.name, embedder.dim)  # the next index run
    assert set(C.indices) == {live} and C.aliases["docbot-chunks"] == live
    later.close()


def test_chunk_text_is_stored_once(es, embedder):
    put(es, embedder, "a.md", ["배포 전에는 스테이징에서 검증합니다. Verify on staging first."])
    (chunk,) = _chunks("a.md")
    assert "text" not in chunk and chunk["body_en"].startswith("배포 전에는")
    assert chunk["body_ko"] != chunk["body_en"]  # Kiwi's terms, not a second copy of the text
    assert search(es, embedder, "스테이징 검증")[0].chunk.text.startswith("배포 전에는")


def test_files_are_written_in_bulk_across_files(tmp_path, es, embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(6):
        (docs / f"{n}.md").write_text(f"# Note {n}\n\nDeployment note number {n}.\n")
    C.requests.clear()
    report = Indexer(es, embedder, OverlapChunker(900, 150), "o").sync(FolderSource(docs))
    assert report.added == 6
    writes = [p for _, p, _ in C.requests if p.endswith(("_bulk", "_delete_by_query"))]
    assert len(writes) == 3  # chunks, stale chunks, records: for all six files (it was 3 per file)
    assert set(es.files(FolderSource(docs).key)) == {f"{n}.md" for n in range(6)}
    for n in range(3):  # changed files written together count as updated, not added
        (docs / f"{n}.md").write_text(f"# Note {n}\n\nDeployment note number {n}, revised.\n")
    again = Indexer(es, embedder, OverlapChunker(900, 150), "o").sync(FolderSource(docs))
    assert (again.added, again.updated, again.unchanged) == (0, 3, 3)


def test_a_rejected_item_in_a_shared_bulk_fails_only_its_file(tmp_path, es, embedder):
    import hashlib

    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (docs / name).write_text(f"# {name}\n\nText of {name} about deployments.\n")
    source = FolderSource(docs)
    C.bulk_reject.add(hashlib.sha1(f"{source.key}\0b.md\0" "0".encode()).hexdigest())
    report = Indexer(es, embedder, OverlapChunker(900, 150), "o").sync(source)
    assert report.added == 2 and [p for p, _ in report.errors] == ["b.md"]
    assert set(es.files(source.key)) == {"a.md", "c.md"} and _chunks("b.md") == []


# --- item 10: the fake as strict as Elasticsearch (a test per rule) ---------------------------

def _raw(method: str, path: str, body=None, accept="application/vnd.elasticsearch+json; compatible-with=9"):
    data = None
    if body is not None:
        data = ("".join(json.dumps(line) + "\n" for line in body) if isinstance(body, list) else json.dumps(body))
    return asyncio.run(es_fake.handle(method, path, data.encode() if data else None, {"accept": accept}))


def test_fake_rule_index_options_integers_are_parsed_as_integers():
    C.__init__()
    options = {"type": "int8_hnsw", "m": "sixteen"}
    body = {"mappings": {"properties": {"v": {"type": "dense_vector", "dims": 3, "index_options": options}}}}
    assert _raw("PUT", "/x", body)[0] == 400
    options["m"] = 16
    assert _raw("PUT", "/x", body)[0] == 200


def test_fake_rule_a_malformed_msearch_body_fails_the_whole_request():
    C.__init__()
    _raw("PUT", "/x", {"mappings": {"properties": {"kind": {"type": "keyword"}}}})
    good = {"query": {"term": {"kind": "chunk"}}}
    status, body = _raw("POST", "/_msearch", [{"index": "x"}, good, {"index": "x"}, {"query": {"nope": {}}}])
    assert status == 400 and body["error"]["type"] == "parsing_exception"
    status, body = _raw("POST", "/_msearch", [{"index": "x"}, good, {"index": "missing"}, good])
    assert status == 200 and "error" in body["responses"][1]  # a missing index is per item


def test_fake_rule_by_query_failures_are_answered_with_their_status():
    C.__init__()
    _raw("PUT", "/x", {"mappings": {"properties": {"kind": {"type": "keyword"}}}})
    _raw("POST", "/_bulk?refresh=true", [{"index": {"_index": "x", "_id": "1"}}, {"kind": "a"}])
    update = {"query": {"match_all": {}}, "script": {"source": "ctx._source.kind = params.k", "params": {"k": "b"}}}
    C.by_query_failure_once = True
    assert _raw("POST", "/x/_update_by_query?conflicts=proceed", update)[0] == 500
    C.by_query_timeout_once = True
    assert _raw("POST", "/x/_update_by_query?conflicts=proceed", update)[0] == 408
    _raw("POST", "/_bulk", [{"index": {"_index": "x", "_id": "1"}}, {"kind": "c"}])  # changed since the snapshot
    assert _raw("POST", "/x/_update_by_query", update)[0] == 409  # conflicts=abort: a conflict is a failure
    assert _raw("POST", "/x/_update_by_query", {**update, "conflicts": "proceed"})[0] == 200  # counted, not failed


def test_fake_rule_random_score_under_a_filter_scores_zero_unless_boost_mode_replaces():
    C.__init__()
    _raw("PUT", "/x", {"mappings": {"properties": {"kind": {"type": "keyword"}}}})
    _raw("POST", "/_bulk?refresh=true", [x for n in range(20) for x in ({"index": {"_index": "x", "_id": f"{n:02}"}},
                                                                        {"kind": "a"})])
    query = {"function_score": {"query": {"bool": {"filter": [{"term": {"kind": "a"}}]}},
                                "random_score": {"seed": 7, "field": "_seq_no"}}}
    hits = _raw("POST", "/x/_search", {"size": 5, "query": query})[1]["hits"]["hits"]
    assert [h["_score"] for h in hits] == [0.0] * 5 and [h["_id"] for h in hits] == ["00", "01", "02", "03", "04"]
    query["function_score"]["boost_mode"] = "replace"
    hits = _raw("POST", "/x/_search", {"size": 5, "query": query})[1]["hits"]["hits"]
    assert all(h["_score"] > 0 for h in hits) and [h["_id"] for h in hits] != ["00", "01", "02", "03", "04"]


@pytest.mark.parametrize("version,status", [("9.0.3", 400), ("9.1.0", 200), ("9.2.0", 200)])
def test_fake_rule_exclude_vectors_is_known_from_9_1(version, status):
    C.__init__()
    C.version = version
    _raw("PUT", "/x", {"mappings": {"properties": {"v": {"type": "dense_vector", "dims": 2}}}})
    body = {"_source": {"includes": ["v"], "exclude_vectors": False}}
    assert _raw("POST", "/x/_search", body)[0] == status


def test_fake_rule_an_8x_server_refuses_the_9x_clients_headers():
    C.__init__()
    C.version = "8.15.0"
    status, body = _raw("GET", "/x/_mapping")
    assert status == 400 and body["error"]["type"] == "media_type_header_exception"
    assert _raw("GET", "/", accept="application/vnd.elasticsearch+json; compatible-with=8")[0] == 200


def test_fake_rule_privileges_per_api():
    C.__init__()
    C.role = {"cluster": [], "indices": [{"names": ["docbot-chunks*"], "privileges": ["read"]}]}
    assert _raw("GET", "/")[0] == 403  # info needs monitor
    assert _raw("PUT", "/docbot-chunks-v1", {})[0] == 403  # create_index or manage
    C.role["indices"][0]["privileges"] = ["read", "write", "manage"]
    assert _raw("PUT", "/docbot-chunks-v1", {"mappings": {"properties": {"kind": {"type": "keyword"}}}})[0] == 200
    assert _raw("PUT", "/other", {})[0] == 403  # another index name
    status, body = _raw("POST", "/_bulk", [{"index": {"_index": "other-x", "_id": "1"}}, {"kind": "a"}])
    assert status in (200, 404)  # unknown index: never written, whatever the role


def test_a_9_0_server_without_exclude_vectors_still_gives_the_sample_its_vectors(analyzer, embedder):
    index = make_es_index(analyzer, live_allowed=False)
    C.version = "9.0.3"
    index.bind_model(embedder.name, embedder.dim)
    put(index, embedder, "db.md", ["PostgreSQL is the default production database."])
    search(index, embedder, "production database")
    index.statistics_settled()
    assert index._exclude_vectors is False and index._samples and index._samples[1]
    index.close()


# --- item 9: the command line with the cluster down ------------------------------------------

@pytest.fixture
def down(tmp_path, monkeypatch):
    """Settings for an Elasticsearch nobody answers (a closed port), no retries."""
    monkeypatch.chdir(tmp_path)
    for name, value in {"DOCBOT_DATA_DIR": str(tmp_path / "data"), "DOCBOT_INDEX": "elasticsearch",
                        "ELASTICSEARCH_URL": "http://127.0.0.1:9", "DOCBOT_DOCS": json.dumps([str(tmp_path)]),
                        "DOCBOT_RETRY_ATTEMPTS": "1"}.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "a.md").write_text("# A\n\nSome text.\n")
    return tmp_path


def test_status_with_the_cluster_down_says_so_in_a_sentence(down):
    from typer.testing import CliRunner

    from docbot.cli import app

    result = CliRunner().invoke(app, ["status"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "unavailable" in result.output and "unreachable" in result.output and "Traceback" not in result.output


def test_index_fails_when_the_cluster_is_unreachable(down, warm, monkeypatch):
    from typer.testing import CliRunner

    import docbot.cli
    from docbot.cli import app
    from docbot.runtime import Runtime

    monkeypatch.setattr(docbot.cli, "Runtime", lambda settings: warm(Runtime(settings)))
    result = CliRunner().invoke(app, ["index"])
    assert result.exit_code != 0 and "unreachable" in result.output
