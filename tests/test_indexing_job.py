"""The indexing job: lease, recorded runs, crashes, concurrent runners and the real scheduler."""
import asyncio
import threading
import time

import pytest

from bot.indexing import IndexJob
from bot.scheduler import start_scheduler, trigger_for
from bot.storage import IndexRun, Store
from rag.ingest.sources import FolderSource
from rag.retrieve.retriever import Retriever

from conftest import CountingEmbedder, PassageMemo, make_indexer


@pytest.fixture(scope="module")
def embedder(embedder):
    """Runs, leases, crashes and schedules over the same handbook files: each passage embedded once here."""
    return PassageMemo(embedder)


class FlakyEmbedder(CountingEmbedder):
    """The real embedder that fails on its n-th call or sleeps on every call."""

    def __init__(self, inner, fail_on=None, delay=0.0):
        super().__init__(inner)
        self.calls, self.fail_on, self.delay = 0, fail_on, delay

    def embed_passages(self, texts):
        self.calls += 1
        if self.calls == self.fail_on:
            raise RuntimeError("embedding worker died")
        time.sleep(self.delay)
        return super().embed_passages(texts)


def job_for(tmp_path, docs, db_url, analyzer, embedder, holder=None, ttl=30.0, **options):
    indexer = make_indexer(tmp_path / "index.sqlite3", analyzer, embedder, **options)
    return IndexJob(Store(db_url), indexer, [FolderSource(docs, "docs")], lease_ttl=ttl, holder=holder)


def consistent(index, docs) -> bool:
    """Every file's recorded chunk count matches the chunks actually stored."""
    records = index.files(FolderSource(docs).key)
    return sum(r.chunks for r in records.values()) == index.stats()["chunks"]


def test_lease_is_exclusive_until_released_or_lapsed(db_url):
    store = Store(db_url)
    assert store.acquire_lease("index", "a", 30)
    assert not store.acquire_lease("index", "b", 30)
    assert store.renew_lease("index", "a", 30) and store.acquire_lease("index", "a", 30)
    store.release_lease("index", "a")
    assert store.acquire_lease("index", "b", 0.2)
    time.sleep(0.3)
    assert store.acquire_lease("index", "c", 30)  # b crashed: its lease lapsed
    assert not store.renew_lease("index", "b", 30) and store.lease("index").holder == "c"


def test_a_run_is_recorded_and_a_rerun_embeds_nothing(tmp_path, docs, db_url, analyzer, counting):
    job = job_for(tmp_path, docs, db_url, analyzer, counting)
    first = job.run("cli")
    assert (first.status, first.added, first.trigger) == ("done", 4, "cli") and first.chunks > 0
    counting.passages = 0
    second = job.run("scheduler")
    assert (second.unchanged, second.added, counting.passages) == (4, 0, 0)
    assert [r.id for r in job.store.runs()] == [second.id, first.id]
    assert job.store.lease("index") is None  # released after the run


class GatedEmbedder(FlakyEmbedder):
    """Holds its first embedding call until the test lets it go: a run observed mid-way, not raced on a clock."""

    def __init__(self, inner):
        super().__init__(inner)
        self.entered, self.release = threading.Event(), threading.Event()

    def embed_passages(self, texts):
        self.entered.set()
        assert self.release.wait(600), "never released"  # a hang guard
        return super().embed_passages(texts)


def test_two_runners_never_index_at_once(tmp_path, docs, db_url, analyzer, embedder):
    gate = GatedEmbedder(embedder)
    slow = job_for(tmp_path, docs, db_url, analyzer, gate, holder="replica-1")
    other = IndexJob(Store(db_url), slow.indexer, slow.sources, holder="replica-2")
    results = {}
    worker = threading.Thread(target=lambda: results.setdefault("slow", slow.run("scheduler")))
    worker.start()
    try:
        assert gate.entered.wait(600), "replica-1 never started embedding"  # mid-run: it holds the lease
        assert other.store.lease("index").holder == "replica-1"
        assert other.run("scheduler") is None  # replica-2 sees the lease and does nothing
    finally:
        gate.release.set()
        worker.join()
    assert results["slow"].status == "done" and results["slow"].added == 4
    assert other.run("scheduler").unchanged == 4  # free again once replica-1 finished


class Killed(BaseException):
    """The process being killed mid-file (not an error a run could report and go on from)."""


class DyingEmbedder(FlakyEmbedder):
    def embed_passages(self, texts):
        if self.calls + 1 == self.fail_on:
            self.calls += 1
            raise Killed()
        return super().embed_passages(texts)


def test_a_crash_midway_leaves_the_index_consistent_and_the_next_run_finishes(tmp_path, docs, db_url, analyzer, embedder):
    # One chunk per model call (files are written as soon as their last chunk is embedded), killed on the third.
    flaky = job_for(tmp_path, docs, db_url, analyzer, DyingEmbedder(embedder, fail_on=3), batch_chunks=1)
    with pytest.raises(Killed):
        flaky.run("cli")
    crashed = flaky.store.runs(1)[0]
    assert crashed.status == "failed" and "Killed" in crashed.errors[0][1]
    assert flaky.store.lease("index") is None
    written = len(flaky.indexer.index.files(FolderSource(docs).key))
    assert 1 <= written < 4 and consistent(flaky.indexer.index, docs)
    healthy = IndexJob(flaky.store, make_indexer(tmp_path / "index.sqlite3", analyzer, embedder), flaky.sources)
    rerun = healthy.run("cli")
    assert (rerun.added, rerun.unchanged) == (4 - written, written) and consistent(healthy.indexer.index, docs)


def test_a_file_whose_embedding_fails_is_reported_and_the_run_goes_on(tmp_path, docs, db_url, analyzer, embedder):
    flaky = job_for(tmp_path, docs, db_url, analyzer, FlakyEmbedder(embedder, fail_on=3), batch_chunks=1)
    run = flaky.run("cli")
    assert run.status == "done" and run.added == 3
    assert len(run.errors) == 1 and "embedding worker died" in run.errors[0][1]
    assert consistent(flaky.indexer.index, docs)
    assert flaky.run("cli").added == 1  # retried on the next run


def test_a_killed_runner_is_taken_over_and_its_run_marked_abandoned(tmp_path, docs, db_url, analyzer, embedder):
    job = job_for(tmp_path, docs, db_url, analyzer, embedder)
    job.store.acquire_lease("index", "dead-replica", 30)  # it acquired, started, then was killed -9
    dead = job.store.add(IndexRun(trigger="scheduler", holder="dead-replica"))
    assert job.run("scheduler") is None  # its lease still holds
    assert job.store.renew_lease("index", "dead-replica", -1)  # ...until it lapses (moved past, not slept past)
    run = job.run("scheduler")
    assert run.status == "done" and run.added == 4
    assert job.store.get_run(dead.id).status == "abandoned"


def test_a_failed_file_is_retried_next_run(tmp_path, docs, db_url, analyzer, embedder):
    (docs / "draft.md").write_text("")
    job = job_for(tmp_path, docs, db_url, analyzer, embedder)
    first = job.run("cli")
    assert first.errors == [["draft.md", "file is empty"]] and first.added == 4
    (docs / "draft.md").write_text("# Draft\n\nThe new meeting-room rules start in May.\n")
    assert job.run("cli").added == 1


def test_full_rebuild_reembeds_without_emptying(tmp_path, docs, db_url, analyzer, counting):
    job = job_for(tmp_path, docs, db_url, analyzer, counting)
    first = job.run("cli")
    counting.passages = 0
    full = job.run("scheduler", full=True)
    assert full.full and full.updated == 4 and counting.passages == first.chunks


def test_source_globs_filter_files(tmp_path, docs, analyzer, embedder):
    (docs / "drafts").mkdir()
    (docs / "drafts" / "wip.md").write_text("# WIP\n\nNot ready.\n")
    source = FolderSource(docs, "docs", include=["*.md"], exclude=["drafts/*"])
    assert sorted(f.path for f in source.files()) == ["database-options.md", "deployment-process.md",
                                                      "vacation-policy.md"]


def test_schedule_parsing():
    assert trigger_for("2s").interval.total_seconds() == 2
    assert "minute='*/15'" in str(trigger_for("*/15 * * * *"))


async def test_the_real_scheduler_follows_edits_and_deletions(tmp_path, docs, analyzer, embedder):
    job = job_for(tmp_path, docs, f"sqlite:///{tmp_path / 'c.sqlite3'}", analyzer, embedder)
    scheduler = start_scheduler(job, "0.5s")
    try:
        await _until(lambda: any(r.added == 4 for r in job.store.runs()))
        (docs / "glossary.txt").write_text("Glossary\n\nZephyr: the new build farm.\n")
        await _until(lambda: any(r.updated == 1 for r in job.store.runs()))
        (docs / "database-options.md").unlink()
        await _until(lambda: any(r.deleted == 1 for r in job.store.runs()))
    finally:
        scheduler.shutdown(wait=False)
    query = "Which database is best for production? PostgreSQL"
    hits = Retriever(job.indexer.index, embedder).search(query, 10)
    assert hits and all(h.chunk.path != "database-options.md" for h in hits)
    assert {r.trigger for r in job.store.runs()} == {"scheduler"}


async def _until(condition, timeout=600.0):  # a guard against a hang, not a budget
    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(condition):
        assert time.monotonic() < deadline, "the scheduler did not get there in time"
        await asyncio.sleep(0.1)


async def test_serve_indexes_once_at_start_instead_of_waiting_for_the_first_tick(tmp_path, docs, analyzer, embedder):
    job = job_for(tmp_path, docs, f"sqlite:///{tmp_path / 'c.sqlite3'}", analyzer, embedder)
    quiet = start_scheduler(job, "0 3 1 1 *", on_start=False)  # next tick: next January
    await asyncio.sleep(1.0)
    quiet.shutdown(wait=False)
    assert job.store.runs() == []
    scheduler = start_scheduler(job, "0 3 1 1 *")
    try:
        await _until(lambda: any(r.added == 4 for r in job.store.runs()))
    finally:
        scheduler.shutdown(wait=False)
    assert [r.trigger for r in job.store.runs()] == ["scheduler"]
