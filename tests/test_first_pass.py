"""Searchable in minutes (issue 50, item 5): a first pass embeds passages only and each finished file is
searchable at once; the answer's sentence vectors are embedded on first use and kept, or by a second pass
while the server is idle; `docbot status` and the answer say how far a first pass has come."""
import asyncio
import os
import threading

import numpy as np
import pytest
from typer.testing import CliRunner

from bot.storage import IndexRun, Store
from rag.answer.reading import Reader
from rag.index.embedded import SqliteSearchIndex
from rag.ingest.chunking import sentence_texts
from rag.models.embeddings import VectorCache
from rag.models.stored import StoredVectors
from rag.retrieve.retriever import Retriever

from conftest import CountingEmbedder, build_service, make_indexer

FILES = {
    "a-night-shift.md": "# 야간 근무\n\n## 수당\n\n- 22시부터 06시 사이의 근로에는 통상임금의 50%를 가산하여 지급한다.\n"
                        "- 야간조는 2인 1조로 작업한다.\n\n## 교대\n\n1. 다음 조 근무자는 30분 전에 도착한다.\n",
    "b-vpn.md": "# VPN setup\n\n## Gateways\n\nThe Seoul gateway is sel-vpn.example and sessions last 12 hours.\n"
                "Install SecureConnect from the self-service portal before your first day.\n",
    "c-parking.md": "# Parking\n\nVisitors park on level B2. Employees register their car plate with the front desk "
                    "and get a monthly pass.\n",
}
QUESTION = "야간 근로 가산 수당은 얼마야?"


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def store(tmp_path, embedder):
    return StoredVectors(tmp_path / "sentences.sqlite3", embedder.name, embedder.dim)


def _sentences(index, embedder) -> list[str]:
    hits = Retriever(index, embedder, 5).search("야간 근무 수당 교대 VPN gateway parking", 10)
    return [t for h in hits for t in sentence_texts(h.chunk)]


def test_indexing_embeds_passages_only_and_lists_their_sentences(tmp_path, docs, store, analyzer, embedder):
    model = CountingEmbedder(embedder)
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, model, sentences=store)
    report = indexer.run(docs)
    assert not report.errors and report.added == 3
    assert model.passages == report.chunks  # one vector per passage, none for its sentences
    assert len(store) == 0
    texts = _sentences(indexer.index, embedder)
    assert len(texts) >= 5 and store.wanted_count() == len(set(texts))  # listed for the second pass


def test_a_turn_keeps_the_sentences_it_embeds_and_the_next_process_reads_them(tmp_path, docs, store, analyzer,
                                                                              embedder):
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder)  # no second pass
    assert not indexer.run(docs).errors
    hits = Retriever(indexer.index, embedder, 5).search(QUESTION, 10)
    first = CountingEmbedder(embedder)
    reading = Reader(analyzer, VectorCache(first, size=256, stored=store)).read(QUESTION, QUESTION, hits)
    assert reading.candidates and first.passages > 0 and len(store) == first.passages  # kept on first use
    # another process (a new cache over the same file) reads the same documents: the model embeds nothing
    again = StoredVectors(tmp_path / "sentences.sqlite3", embedder.name, embedder.dim)
    second = CountingEmbedder(embedder)
    cache = VectorCache(second, size=256, stored=again)
    Reader(analyzer, cache).read(QUESTION, QUESTION, hits)
    assert second.passages == 0 and cache.stored_hits > 0


def test_the_second_pass_fills_what_was_listed_and_waits_while_busy(tmp_path, docs, store, analyzer, embedder):
    from rag.index.sentences import SentenceFiller

    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder, sentences=store)
    assert not indexer.run(docs).errors
    listed = store.wanted_count()
    busy = [True]
    filler = SentenceFiller(store, lambda: embedder, busy=lambda: busy[0], batch=4)
    assert filler.step() is None and len(store) == 0  # a turn or an index run is going on: nothing embedded
    busy[0] = False
    assert filler.fill() == listed
    assert store.wanted_count() == 0 and store.missing(_sentences(indexer.index, embedder)) == []
    assert filler.step() == 0  # nothing left


def test_the_second_pass_thread_starts_on_a_kick_at_the_lowest_priority(tmp_path, docs, store, analyzer, embedder):
    from rag.index.sentences import SentenceFiller

    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder, sentences=store)
    assert not indexer.run(docs).errors
    seen: list[int] = []
    done = threading.Event()

    class Watching:
        name, dim = embedder.name, embedder.dim

        def embed_passages(self, texts):
            seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
            vectors = embedder.embed_passages(texts)
            if store.wanted_count() <= len(texts):
                done.set()
            return vectors

    filler = SentenceFiller(store, Watching(), batch=64)
    filler.start()
    try:
        assert done.wait(120)
    finally:
        filler.stop()
    assert store.wanted_count() == 0
    assert seen and min(seen) > os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_a_scheduled_run_works_on_a_thread_of_lower_priority_without_blocking_the_loop():
    from bot.scheduler import in_background_thread

    def niceness():
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    async def main():
        ticks = 0

        async def tick():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        ticker = asyncio.create_task(tick())
        gate = threading.Event()
        result = asyncio.ensure_future(in_background_thread(lambda: (gate.wait(30), niceness())[1]))
        while ticks < 3:  # the loop runs while the work waits on its own thread
            await asyncio.sleep(0)
        gate.set()
        value = await result
        ticker.cancel()
        return value

    assert asyncio.run(main()) > niceness()


def test_search_sees_each_file_as_soon_as_it_is_written(tmp_path, docs, analyzer, embedder):
    """Before the run ends: in the indexing process, and in another one (a second connection to the file)."""
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder, batch_chunks=1)
    other = SqliteSearchIndex(tmp_path / "i.sqlite3", analyzer)
    found: dict[str, tuple[set, set]] = {}

    def paths(index) -> set:
        return {h.chunk.path for h in Retriever(index, embedder, 5).search("야간 근무 VPN gateway parking", 10)}

    def on_file(path: str) -> None:
        found[path] = (paths(indexer.index), paths(other))

    report = indexer.run(docs, on_file=on_file)
    assert not report.errors and set(found) == set(FILES)
    written: set = set()
    for path in found:  # in the order the files were finished
        written.add(path)
        mine, theirs = found[path]
        assert path in mine and path in theirs
        assert mine <= written and theirs <= written
    other.close()


def test_status_and_the_answer_say_how_many_pages_a_first_pass_has_done(tmp_path, docs, monkeypatch, warm,
                                                                          analyzer, embedder, classifier):
    from docbot import cli
    from docbot.runtime import Runtime
    from docbot.settings import Settings

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCBOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DOCBOT_DOCS", f'["{docs}"]')
    monkeypatch.delenv("DOCBOT_DATABASE_URL", raising=False)
    monkeypatch.setattr(cli, "Runtime", lambda settings: warm(Runtime(settings)))
    runtime = warm(Runtime(Settings()))
    job = runtime.index_job
    job.progress_every = 0.0  # every file's count written (the default writes at most once a second)
    said: list[tuple] = []

    def on_file(path: str) -> None:
        out = CliRunner().invoke(cli.app, ["status"]).output
        said.append((runtime.store.indexing_progress(), out))

    run = job.run("cli", on_file=on_file)
    assert run is not None and run.status == "done" and run.added == 3
    # on_file comes as a file is finished, before it is counted: 0, 1, then 2 of 3 done
    assert [p for p, _ in said] == [(0, 3), (1, 3), (2, 3)]
    assert "indexing 2 of 3 pages" in said[-1][1]
    assert runtime.store.indexing_progress() is None  # the run is over
    assert "pages" not in CliRunner().invoke(cli.app, ["status"]).output
    runtime.close()


def test_an_answer_during_a_first_pass_says_how_far_it_has_come(tmp_path, docs, analyzer, embedder, classifier):
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder)
    assert not indexer.run(docs).errors
    service = build_service(indexer, analyzer, classifier, f"sqlite:///{tmp_path / 'c.sqlite3'}")
    store: Store = service.store
    from bot.conversation import SessionKey

    async def ask(thread: str) -> str:
        turn = await service.ask(SessionKey("console", "", "local", thread), "VPN gateway address?", "u1")
        return await turn.collect()

    assert "indexing" not in asyncio.run(ask("t1"))
    run = store.add(IndexRun(trigger="cli", holder="host:1:abc", pages_done=212, pages_total=853))
    assert store.acquire_lease("index:test", "host:1:abc", 60)
    assert "indexing 212 of 853 pages" in asyncio.run(ask("t2"))
    store.release_lease("index:test", "host:1:abc")  # a run whose holder crashed says nothing
    assert "indexing" not in asyncio.run(ask("t3"))
    assert run.id is not None


def test_the_setting_turns_the_second_pass_on_and_turns_keep_vectors_either_way(tmp_path, warm):
    from docbot.runtime import Runtime
    from docbot.settings import Settings

    off = warm(Runtime(Settings(data_dir=tmp_path / "off", database_url=None, sentence_vectors=False,
                                _env_file=None)))
    assert off.indexer.sentences is None and off.sentence_filler is None
    assert isinstance(off.turn_embedder, VectorCache) and off.turn_embedder.stored is not None
    off.turn_embedder.embed_passages(["휴가 신청 절차"])
    assert len(off.sentence_vectors) == 1  # computed on first use and kept
    on = warm(Runtime(Settings(data_dir=tmp_path / "on", database_url=None, _env_file=None)))
    assert on.indexer.sentences is on.sentence_vectors and on.sentence_filler is not None
    assert not on.busy()
    off.close()
    on.close()


def test_an_unreadable_store_never_fails_a_turn(tmp_path, embedder):
    store = StoredVectors(tmp_path / "s.sqlite3", embedder.name, embedder.dim)
    cache = VectorCache(embedder, size=16, stored=store)
    store.close()  # reads and writes now raise

    class Reads:
        def get_many(self, texts):
            return {}

        put_many = store.put_many

    cache.stored = Reads()
    assert cache.embed_passages(["휴가 신청 절차"]).shape == (1, embedder.dim)
    assert np.isfinite(cache.embed_passages(["휴가 신청 절차"])).all()
