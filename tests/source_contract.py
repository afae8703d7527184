"""The contract every connector (an IncrementalSource) passes, run through the real indexing job.

A connector's test module subclasses `SourceContract` and gives a `world` fixture: a `World` that edits
documents in the real system (a Git repository) or its stand-in, and builds the connector over it. Each test
drives scheduled runs of the real `IndexJob` and checks that the index mirrors the source after every run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import pytest

from bot.indexing import IndexJob
from bot.storage import Store
from rag.ingest.connectors.base import Changes, IncrementalSource
from rag.ingest.sources import SourceFile

from conftest import CountingEmbedder, make_indexer


class World(Protocol):
    """The system a connector reads, as a test edits it."""

    def write(self, path: str, text: str) -> None: ...  # create or edit a document
    def move(self, old: str, new: str) -> None: ...  # rename or move
    def delete(self, path: str) -> None: ...
    def publish(self) -> None: ...  # make the edits visible to the connector (a commit; nothing for an API)
    def source(self, channels: frozenset[str] | None = None) -> IncrementalSource: ...
    def break_service(self) -> None: ...  # the service becomes unreachable
    def repair(self) -> None: ...
    # Optional: `indexed(path)`, the path the connector indexes a document written at `path` under (a wiki
    # files a page under its space and title); the identity when a world does not define it.


def indexed(world, expected: dict[str, str]) -> dict[str, str]:
    """The expected index, keyed by the paths the connector uses for the world's documents."""
    name = getattr(world, "indexed", lambda path: path)
    return {name(path): marker for path, marker in expected.items()}


def doc(title: str, marker: str) -> str:
    return f"# {title}\n\nThis page explains {title.lower()}. Its code word is {marker}.\n"


@dataclass
class Counting:
    """A connector whose reads are counted (what a resumed run downloads again)."""

    inner: IncrementalSource
    reads: list[str] = field(default_factory=list)

    kind = property(lambda self: self.inner.kind)
    name = property(lambda self: self.inner.name)
    key = property(lambda self: self.inner.key)
    visibility = property(lambda self: self.inner.visibility)
    fingerprint = property(lambda self: self.inner.fingerprint)
    complete = property(lambda self: True)

    def files(self) -> list[SourceFile]:
        return self.changes(None).changed

    def changes(self, cursor: str | None) -> Changes:
        got = self.inner.changes(cursor)
        return Changes(got.cursor, [self._counted(f) for f in got.changed], got.deleted, got.complete, got.requests)

    def _counted(self, f: SourceFile) -> SourceFile:
        def read() -> bytes:
            self.reads.append(f.path)
            return f.read()

        return SourceFile(f.path, read, meta=f.meta, size=f.size, version=f.version, principals=f.principals)


class Dying(CountingEmbedder):
    """The real embedder; the process dies (SystemExit passes every `except Exception`) on its n-th call."""

    def __init__(self, inner, die_on: int):
        super().__init__(inner)
        self.calls, self.die_on = 0, die_on

    def embed_passages(self, texts):
        self.calls += 1
        if self.calls == self.die_on:
            raise SystemExit("killed mid-run")
        return super().embed_passages(texts)


def indexed_text(index, key: str) -> dict[str, str]:
    """Each indexed path's chunk text, joined (from the real SQLite index)."""
    rows = index._db.execute("SELECT path, text FROM chunks WHERE source=? ORDER BY path, ordinal", (key,)).fetchall()
    out: dict[str, str] = {}
    for path, text in rows:
        out[path] = out.get(path, "") + text
    return out


def job_maker(tmp_path, db_url, analyzer, embedder):
    """Jobs over one index file and database: `make(source, embedder=None, batch_chunks=64)`."""
    def make(source, emb=None, batch_chunks=64):
        indexer = make_indexer(tmp_path / "index.sqlite3", analyzer, emb or CountingEmbedder(embedder),
                               batch_chunks=batch_chunks)
        return IndexJob(Store(db_url), indexer, [source], lease_ttl=30)

    return make


def assert_mirrors(job, source, expected: dict[str, str], visibility=None) -> None:
    """The index holds exactly the expected paths, each with its current text (a marker word) and visibility."""
    index = job.indexer.index
    records = index.files(source.key)
    assert sorted(records) == sorted(expected)
    texts = indexed_text(index, source.key)
    for path, marker in expected.items():
        assert marker in texts[path], (path, marker)
    assert {r.visibility for r in records.values()} <= {visibility}


class SourceContract:
    """Subclasses provide the `world` fixture."""

    @pytest.fixture
    def job(self, tmp_path, db_url, analyzer, embedder):
        return job_maker(tmp_path, db_url, analyzer, embedder)

    assert_mirrors = staticmethod(assert_mirrors)

    def test_three_scheduled_runs_keep_the_index_equal_to_the_source(self, world, job):
        """Creates, edits, renames, moves, restricts and deletes documents across three runs."""
        world.write("guide/setup.md", doc("Setup", "alpaca"))
        world.write("guide/deploy.md", doc("Deploy", "bison"))
        world.write("faq.txt", doc("FAQ", "camel"))
        world.write("notes.md", doc("Notes", "dingo"))
        world.publish()
        source = world.source()
        run = job(source).run("scheduler")
        assert run.status == "done" and run.errors == [] and run.added == 4
        self.assert_mirrors(job(source), source, indexed(world, {
            "guide/setup.md": "alpaca", "guide/deploy.md": "bison", "faq.txt": "camel", "notes.md": "dingo"}))

        world.write("guide/setup.md", doc("Setup", "eland"))  # edit
        world.move("faq.txt", "help.txt")  # rename
        world.move("guide/deploy.md", "ops/deploy.md")  # move
        world.write("ops/oncall.md", doc("On-call", "ferret"))  # create
        world.publish()
        run = job(source).run("scheduler")
        assert run.status == "done" and run.errors == [] and run.deleted == 2
        self.assert_mirrors(job(source), source, indexed(world, {
            "guide/setup.md": "eland", "ops/deploy.md": "bison", "help.txt": "camel", "notes.md": "dingo", "ops/oncall.md": "ferret"}))

        world.delete("notes.md")
        world.publish()
        restricted = world.source(channels=frozenset({"C-HR"}))  # restrict: the source's channels change
        run = job(restricted).run("scheduler")
        assert run.status == "done" and run.errors == [] and run.deleted == 1
        self.assert_mirrors(job(restricted), restricted, indexed(world, {
            "guide/setup.md": "eland", "ops/deploy.md": "bison", "help.txt": "camel", "ops/oncall.md": "ferret"}),
                            visibility=frozenset({"C-HR"}))

    def test_a_no_op_run_reports_a_constant_number_of_requests(self, world, job, db_url, embedder):
        for n in range(3):
            world.write(f"a{n}.md", doc(f"Page {n}", f"word{n}"))
        world.publish()
        source = world.source()
        job(source).run("scheduler")
        counting = CountingEmbedder(embedder)
        job(source, counting).run("scheduler")
        small = Store(db_url).source_state(source.key).requests
        for n in range(3, 15):
            world.write(f"a{n}.md", doc(f"Page {n}", f"word{n}"))
        world.publish()
        job(source).run("scheduler")
        run = job(source, counting).run("scheduler")
        large = Store(db_url).source_state(source.key).requests
        assert (run.added, run.updated, run.deleted, counting.passages) == (0, 0, 0, 0)
        assert small == large and 0 < large <= 3  # O(1): the same requests for 3 documents or 15

    def test_a_crash_mid_run_resumes_from_the_stored_cursor(self, world, job, db_url, embedder):
        world.write("keep.md", doc("Keep", "gecko"))
        world.publish()
        source = world.source()
        job(source).run("scheduler")
        first_cursor = Store(db_url).source_state(source.key).cursor
        for n in range(4):
            world.write(f"new{n}.md", doc(f"New {n}", f"heron{n}"))
        world.publish()
        with pytest.raises(SystemExit):  # one file per batch; the process dies on the third embedding call
            job(Counting(source), Dying(embedder, die_on=3), batch_chunks=1).run("scheduler")
        state = Store(db_url).source_state(source.key)
        assert state.cursor == first_cursor  # the cursor moves only once every change is in the index
        resumed = Counting(source)
        run = job(resumed).run("scheduler")
        assert run.status == "done" and run.added == 2  # the two written before the crash are not redone
        # ...nor even downloaded again
        assert sorted(resumed.reads) == sorted(indexed(world, {"new2.md": "", "new3.md": ""}))
        self.assert_mirrors(job(source), source, indexed(world, {"keep.md": "gecko",
                                                                 **{f"new{n}.md": f"heron{n}" for n in range(4)}}))
        assert Store(db_url).source_state(source.key).cursor != first_cursor

    def test_an_unavailable_service_is_reported_and_keeps_the_documents(self, world, job, db_url):
        world.write("policy.md", doc("Policy", "ibis"))
        world.publish()
        source = world.source()
        job(source).run("scheduler")
        cursor = Store(db_url).source_state(source.key).cursor
        world.break_service()
        run = job(source).run("scheduler")
        state = Store(db_url).source_state(source.key)
        assert run.status == "done" and run.deleted == 0 and [e[0] for e in run.errors] == [source.name]
        assert state.last_error and state.cursor == cursor and state.error_at is not None
        self.assert_mirrors(job(source), source, indexed(world, {"policy.md": "ibis"}))
        world.repair()
        world.write("policy.md", doc("Policy", "jackal"))
        world.publish()
        job(source).run("scheduler")
        state = Store(db_url).source_state(source.key)
        assert state.last_error == "" and state.cursor != cursor
        self.assert_mirrors(job(source), source, indexed(world, {"policy.md": "jackal"}))
