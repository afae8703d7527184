"""Indexing that stays responsive: chunks, not files, are the unit of work, progress and stopping."""
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from bot.indexing import IndexJob, _Heartbeat
from bot.storage import Store
from rag.errors import IndexRunStopped, LeaseLost
from rag.ingest.sources import FolderSource

from conftest import CountingEmbedder, make_indexer


class HashEmbedder:
    """Unit vectors from a text's hash: these tests count calls and order, not meaning, and must not
    spend minutes of e5 on a loaded machine."""

    name, dim = "hash-test", 16

    def embed_passages(self, texts):
        rows = [np.random.default_rng(abs(hash(t)) % 2**32).standard_normal(self.dim) for t in texts]
        matrix = np.array(rows, dtype=np.float32).reshape(-1, self.dim)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)

    embed_queries = embed_passages

    def embed_query(self, text):
        return self.embed_passages([text])[0]


@pytest.fixture
def embedder():
    return HashEmbedder()


class Recorder(CountingEmbedder):
    """An embedder recording each call's texts; `after` runs after every call."""

    def __init__(self, inner, after=None):
        super().__init__(inner)
        self.calls: list[list[str]] = []
        self.after = after

    def embed_passages(self, texts):
        self.calls.append(list(texts))
        vectors = super().embed_passages(texts)
        if self.after:
            self.after(len(self.calls))
        return vectors


def big_file(folder, name="server.log.txt", lines=400):
    """A log-like text that chunks into many pieces."""
    text = "\n".join(f"2026-12-01 10:{i % 60:02d} INFO request {i} served by worker {i % 7} in {i % 97} ms"
                     for i in range(lines))
    (folder / name).write_text(text)


@pytest.fixture
def folder(docs):
    big_file(docs)
    return docs


def test_a_large_file_is_embedded_in_slices_after_the_small_files(tmp_path, folder, analyzer, embedder):
    recorder = Recorder(embedder)
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, recorder, batch_chunks=8)
    written: list[str] = []
    original = indexer.index.replace_file
    indexer.index.replace_file = lambda key, record, *a: (written.append(record.path), original(key, record, *a))[1]
    totals, progress = [], []
    report = indexer.sync(FolderSource(folder), on_source=lambda name, total: totals.append(total),
                          on_chunks=progress.append)
    assert report.added == 5 and not report.errors
    assert all(len(call) <= 8 for call in recorder.calls)
    big = indexer.index.files(FolderSource(folder).key)["server.log.txt"].chunks
    assert big > 3 * 8  # the file really spans many slices
    assert written[-1] == "server.log.txt" and len(written) == 5  # the small files did not wait for it
    assert totals == [report.chunks] and sum(progress) == report.chunks  # progress counts chunks


def test_a_stop_is_honoured_between_chunks_of_one_large_file(tmp_path, folder, db_url, analyzer, embedder):
    job: list[IndexJob] = []
    recorder = Recorder(embedder, after=lambda calls: job[0].stop() if calls == 2 else None)
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, recorder, batch_chunks=8)
    store = Store(db_url)
    job.append(IndexJob(store, indexer, [FolderSource(folder, "docs")], lease_ttl=30, lease="t", holder="me"))
    with pytest.raises(IndexRunStopped):
        job[0].run("cli")
    assert len(recorder.calls) == 2  # stopped after the slice it was asked in, not at the end of the file
    assert store.lease("t") is None  # released
    assert store.runs(1)[0].status == "stopped"


def test_an_oversized_file_is_skipped_with_its_size(tmp_path, folder, analyzer, embedder):
    size = (folder / "server.log.txt").stat().st_size
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder, max_file_bytes=size - 1)
    report = indexer.sync(FolderSource(folder))
    (path, reason), = report.errors
    assert path == "server.log.txt" and "MB is over the" in reason and "DOCBOT_MAX_FILE_MB" in reason
    assert report.added == 4


def test_unsupported_files_are_counted_as_skipped(tmp_path, docs, analyzer, embedder):
    (docs / "mockup.psd").write_bytes(b"PK\x03\x04 not really")
    (docs / "photo.png").write_bytes(b"\x89PNG")
    report = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder).run(docs)
    assert report.added == 4
    assert sorted(path for path, _ in report.errors) == ["mockup.psd", "photo.png"]


def test_a_run_without_progress_stops_renewing_its_lease(db_url):
    store = Store(db_url)
    assert store.acquire_lease("l", "me", 30)
    now = [1000.0]
    beat = _Heartbeat(store, "l", "me", 30, threading.Event(), stall=60, clock=lambda: now[0])
    beat.check()  # progress
    now[0] += 50
    before = store.lease("l").expires_at
    assert beat.beat()  # within the stall limit: renewed
    assert store.lease("l").expires_at >= before
    renewed_until = store.lease("l").expires_at
    now[0] += 61  # no progress since
    assert not beat.beat()
    assert store.lease("l").expires_at == renewed_until  # not renewed: it lapses and another runner may take it
    with pytest.raises(LeaseLost, match="no progress"):
        beat.check()


def test_a_symlink_loop_and_a_fifo_do_not_stop_the_run(tmp_path, docs, db_url, analyzer, embedder):
    os.symlink("loop.md", docs / "loop.md")
    os.mkfifo(docs / "pipe.md")
    job = IndexJob(Store(db_url), make_indexer(tmp_path / "i.sqlite3", analyzer, embedder),
                   [FolderSource(docs, "docs")], lease="t")
    run = job.run("cli")
    assert run.status == "done" and run.added == 4
    assert {path for path, _ in run.errors} == {"loop.md", "pipe.md"}


def test_sigterm_stops_docbot_index_between_chunks_and_releases_the_lease(tmp_path, folder):
    big_file(folder, "second.log.txt", lines=3000)  # minutes of e5 if the stop were not honoured
    env = {**os.environ, "DOCBOT_DATA_DIR": str(tmp_path / "data")}
    env.pop("DOCBOT_DATABASE_URL", None)
    proc = subprocess.Popen([sys.executable, "-m", "docbot", "index", str(folder)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db = tmp_path / "data" / "docbot.sqlite3"
    try:
        for _ in range(600):  # until the run has written a file (it holds the lease by then)
            if proc.poll() is not None:
                break
            # Read-only probes: opening a Store here would migrate the database the child is migrating.
            if _written(tmp_path):
                break
            time.sleep(0.5)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        out, errors = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == 130, errors
    assert "stopped" in errors
    store = Store(f"sqlite:///{db}")
    assert store.runs(1)[0].status == "stopped"
    from sqlmodel import Session, select

    from bot.storage import Lease

    with Session(store.engine) as session:
        assert session.exec(select(Lease)).all() == []


def _written(tmp_path) -> bool:
    import sqlite3

    path = tmp_path / "data" / "index.sqlite3"
    if not path.exists():
        return False
    try:
        with sqlite3.connect(path, timeout=1) as conn:
            return conn.execute("SELECT count(*) FROM files").fetchone()[0] > 0
    except sqlite3.Error:
        return False
