"""Sentence vectors stored by the second pass (listed at index time) or on first use: a turn's reading looks
them up instead of embedding them."""
import sqlite3

import numpy as np
import pytest

from rag.answer.reading import BACKGROUND, Reader
from rag.index.sentences import SentenceFiller
from rag.ingest.chunking import sentence_texts
from rag.models.embeddings import VectorCache
from rag.models.stored import StoredVectors
from rag.retrieve.retriever import Retriever

from conftest import CountingEmbedder, make_indexer

FILES = {
    "night-shift.md": "# 야간 근무\n\n## 수당\n\n- 22시부터 06시 사이의 근로에는 통상임금의 50%를 가산하여 지급한다.\n"
                      "- 야간조는 2인 1조로 작업한다.\n\n## 교대\n\n1. 다음 조 근무자는 30분 전에 도착한다.\n"
                      "2. 이전 조 조장은 미처리 주문을 기록한다.\n",
    "vpn.md": "# VPN setup\n\n## Gateways\n\nThe Seoul gateway is sel-vpn.example and sessions last 12 hours.\n"
              "Install SecureConnect from the self-service portal before your first day.\n",
}


def _vectors(n: int, dim: int = 4, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def test_stored_vectors_round_trip_and_report_what_is_missing(tmp_path):
    store = StoredVectors(tmp_path / "s.sqlite3", "model-a", 4)
    vectors = _vectors(2)
    store.put_many(["one", "two"], vectors)
    found = store.get_many(["two", "three", "one"])
    assert set(found) == {"one", "two"}
    assert np.array_equal(found["two"], vectors[1])
    assert store.missing(["three", "one", "three", "four"]) == ["three", "four"]


def test_another_model_or_dimension_empties_the_store(tmp_path):
    path = tmp_path / "s.sqlite3"
    StoredVectors(path, "model-a", 4).put_many(["one"], _vectors(1))
    assert len(StoredVectors(path, "model-a", 4)) == 1  # reopened with the same model: kept
    assert len(StoredVectors(path, "model-b", 4)) == 0  # another model's vectors are not this one's
    StoredVectors(path, "model-b", 4).put_many(["one"], _vectors(1))
    assert StoredVectors(path, "model-b", 8).get_many(["one"]) == {}


def test_the_oldest_vectors_go_first_beyond_the_cap(tmp_path):
    store = StoredVectors(tmp_path / "s.sqlite3", "m", 4, max_rows=3)
    for i, text in enumerate(["a", "b", "c", "d", "e"]):
        store.put_many([text], _vectors(1, seed=i))
    assert sorted(store.get_many(list("abcde"))) == ["c", "d", "e"]
    store.put_many(["c"], _vectors(1, seed=9))  # written again: now the newest
    store.put_many(["f"], _vectors(1, seed=10))
    assert sorted(store.get_many(list("abcdef"))) == ["c", "e", "f"]


def test_a_turn_asks_the_store_for_passages_never_for_queries(tmp_path, embedder):
    store = StoredVectors(tmp_path / "s.sqlite3", embedder.name, embedder.dim)
    kept = embedder.embed_passages(["휴가 신청 절차"])
    store.put_many(["휴가 신청 절차"], kept)
    cache = VectorCache(embedder, size=16, stored=store)
    assert np.array_equal(cache.embed_passages(["휴가 신청 절차"])[0], kept[0])
    assert (cache.misses, cache.stored_hits) == (0, 1)
    cache.embed_query("휴가 신청 절차")  # a query vector is another vector (e5's prefixes): the model runs
    assert cache.misses == 1


@pytest.fixture
def indexed(tmp_path, analyzer, embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in FILES.items():
        (docs / name).write_text(text, encoding="utf-8")
    store = StoredVectors(tmp_path / "sentences.sqlite3", embedder.name, embedder.dim)
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder, sentences=store)
    assert not indexer.run(docs).errors
    SentenceFiller(store, embedder).fill()  # the second pass, as the server runs it after indexing
    return indexer, store


def test_the_second_pass_stores_every_sentence_the_reading_would_embed(indexed):
    indexer, store = indexed
    hits = Retriever(indexer.index, indexer.embedder, 5).search("야간 근무 수당 교대 VPN gateway", 10)
    texts = [t for h in hits for t in sentence_texts(h.chunk)]
    assert {h.chunk.path for h in hits} == set(FILES) and len(texts) >= 6
    assert store.missing(texts) == []


def test_reading_indexed_passages_embeds_no_sentence(indexed, analyzer, embedder):
    indexer, store = indexed
    hits = Retriever(indexer.index, indexer.embedder, 5).search("야간 근로 가산 수당은 얼마야?", 10)
    model = CountingEmbedder(embedder)
    reader = Reader(analyzer, VectorCache(model, size=256, stored=store))
    reading = reader.read("야간 근로 가산 수당은 얼마야?", "야간 근로 가산 수당은 얼마야?", hits)
    assert reading.candidates
    assert model.passages == len(BACKGROUND)  # generic text, the evidence bar's reference: once per process
    # the same reading without the store embeds every sentence it scores
    fresh = CountingEmbedder(embedder)
    Reader(analyzer, VectorCache(fresh, size=256)).read("야간 근로 가산 수당은 얼마야?", "야간 근로 가산 수당은 얼마야?", hits)
    assert fresh.passages > model.passages


def test_a_failing_store_never_fails_the_file(tmp_path, analyzer, embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "vpn.md").write_text(FILES["vpn.md"], encoding="utf-8")
    store = StoredVectors(tmp_path / "sentences.sqlite3", embedder.name, embedder.dim)
    store.close()  # every call now raises sqlite3.ProgrammingError
    with pytest.raises(sqlite3.ProgrammingError):
        store.missing(["x"])
    report = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder, sentences=store).run(docs)
    assert not report.errors and report.added == 1 and report.chunks >= 1


def test_a_store_that_cannot_be_opened_leaves_turns_embedding_their_sentences(tmp_path, warm):
    """A speed-up only: a data dir where the file cannot be created (here a folder stands in its place) gives
    no store, and the turn's embedder still works."""
    from docbot.runtime import Runtime
    from docbot.settings import Settings

    (tmp_path / "sentences.sqlite3").mkdir()
    runtime = warm(Runtime(Settings(data_dir=tmp_path, database_url=None, _env_file=None)))
    assert runtime.sentence_vectors is None
    assert runtime.turn_embedder.embed_passages(["휴가 신청 절차"]).shape == (1, runtime.embedder.dim)
