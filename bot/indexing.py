"""The indexing job: one runner at a time (a lease in the database), every run recorded.

`docbot index`, the scheduler inside `docbot serve` and the confirmed re-index action all
run this same job.
"""
from __future__ import annotations

import hashlib
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timezone

from rag.errors import (
    DocbotError,
    IndexRunStopped,
    LeaseLost,
    SearchIndexUnavailable,
    SourceMissing,
    VisibilityNotApplied,
)
from rag.index.indexer import Indexer, IndexReport
from rag.ingest.sources import Source

from .observability import Metrics
from .storage import IndexRun, Store

log = logging.getLogger(__name__)

LEASE = "index"
PROGRESS_EVERY = 1.0  # seconds between two writes of a run's pages done ("indexing 212 of 853 pages")


def runner_id() -> str:
    """host:pid:random — unique per process, readable in `docbot status`."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class IndexJob:
    """Runs the indexer over every configured source while holding the lease."""

    def __init__(self, store: Store, indexer: Indexer, sources: Sequence[Source], *, lease_ttl: float = 120.0,
                 holder: str | None = None, lease: str = LEASE, metrics: Metrics | None = None,
                 configured: bool = False, missing_grace: float = 86400.0, stall_seconds: float = 600.0,
                 progress_every: float = PROGRESS_EVERY):
        """`configured`: these are all the configured sources, so an indexed source not among them was
        removed from the settings and is purged; `missing_grace`: seconds a configured folder may be
        missing before its documents are withdrawn (a remount or a rename should not empty the index)."""
        self.store, self.indexer, self.sources, self.metrics = store, indexer, sources, metrics
        self.lease_ttl, self.holder, self.lease = lease_ttl, holder or runner_id(), lease
        self.configured, self.missing_grace, self.stall_seconds = configured, missing_grace, stall_seconds
        self.progress_every = progress_every  # seconds between writes of a run's pages done (the last one always)
        self._stopping = threading.Event()
        self._idle = threading.Event()  # clear while a run holds the lease and writes
        self._idle.set()

    @property
    def running(self) -> bool:
        """Whether a run of this job holds the lease and writes now (the second pass waits for it)."""
        return not self._idle.is_set()

    def stop(self) -> None:
        """Ask a running run to stop before its next write (the server is shutting down); it resumes next run."""
        self._stopping.set()

    def wait_idle(self, timeout: float) -> bool:
        """Block until no run is writing (a stopped run has recorded itself), so the caller may close the
        store and the index under it; False if a run is still going after `timeout` seconds."""
        return self._idle.wait(timeout)

    def remove_source(self, key: str) -> int | None:
        """Withdraw every indexed file of one source key, holding the lease; None when another runner holds it."""
        if not self.store.acquire_lease(self.lease, self.holder, self.lease_ttl):
            return None
        try:
            return self._withdraw(key)
        finally:
            self.store.release_lease(self.lease, self.holder)

    def _withdraw(self, key: str) -> int:
        paths = list(self.indexer.index.files(key))
        for path in paths:
            self.indexer.index.delete_file(key, path)
        self.indexer.index.flush()
        log.info("removed source %s from the index (%d files)", key, len(paths))
        return len(paths)

    def run(self, trigger: str = "cli", *, full: bool = False, rebuild: bool = False, only: list[str] | None = None,
            on_file: Callable[[str], None] | None = None,
            on_source: Callable[[str, int], None] | None = None,
            on_chunks: Callable[[int], None] | None = None,
            on_pages: Callable[[int, int], None] | None = None) -> IndexRun | None:
        """One run; None when another runner holds the lease (nothing was done). `on_source(name, chunks)`
        and `on_chunks(n)` report progress in chunks, `on_file(path)` each file as it is done and
        `on_pages(done, total)` each source's files done of those listed (0 done when a source starts)."""
        if not self.store.acquire_lease(self.lease, self.holder, self.lease_ttl):
            log.info("index run skipped: another runner holds the lease")
            return None
        self._idle.clear()
        try:
            return self._run_holding_lease(trigger, full, rebuild, only, (on_file, on_source, on_chunks, on_pages))
        finally:
            self._idle.set()

    def _run_holding_lease(self, trigger: str, full: bool, rebuild: bool, only: list[str] | None,
                           progress: tuple) -> IndexRun | None:
        run = None
        self._stopping.clear()
        self._progress = progress
        try:
            abandoned = self.store.abandon_runs()
            if abandoned:
                log.warning("marked %d index run(s) left running by a crashed runner as abandoned", abandoned)
            run = self.store.add(IndexRun(trigger=trigger, holder=self.holder, full=full or rebuild))
            assert run.id is not None  # stored
            report = self._rebuild(only, run.id) if rebuild else self._sync_all(full, only, run.id)
        except BaseException as exc:
            if self.metrics:
                self.metrics.index_runs.labels("failed").inc()
            if run is not None:
                status = "stopped" if isinstance(exc, (IndexRunStopped, KeyboardInterrupt)) else "failed"
                self.store.update_run(run.id, status=status, finished_at=datetime.now(timezone.utc),
                                      errors=[["(run)", f"{exc.__class__.__name__}: {exc}"]])
            raise
        finally:
            self.store.release_lease(self.lease, self.holder)
        self.store.update_run(run.id, status="done", finished_at=datetime.now(timezone.utc),
                              seconds=round(report.seconds, 3), added=report.added, updated=report.updated,
                              unchanged=report.unchanged, deleted=report.deleted, chunks=report.chunks,
                              errors=[list(e) for e in report.errors])
        if self.metrics:
            self.metrics.index_runs.labels("done").inc()
        return self.store.get_run(run.id)

    def _rebuild(self, only, run_id: int = 0) -> IndexReport:
        """Everything into a fresh index, made searchable only once complete (Elasticsearch swaps an alias)."""
        index, embedder = self.indexer.index, self.indexer.embedder
        index.begin_rebuild(embedder.name, embedder.dim)
        try:
            report = self._sync_all(True, only, run_id)
        except BaseException:
            index.abort_rebuild()
            raise
        index.finish_rebuild()
        return report

    def _sync_all(self, full: bool, only: list[str] | None, run_id: int = 0) -> IndexReport:
        total = IndexReport()
        kept: set[str] = set()  # unconfigured folders kept for a missing source's grace (see _replaced)
        on_file, on_source, on_chunks, on_pages = self._progress
        pages = _PagesDone(self.store, run_id, self.progress_every)

        def pages_done(done: int, total: int) -> None:  # the run's row (`docbot status`), and the caller's lines
            pages.update(done, total)
            if on_pages:
                on_pages(done, total)

        with _Heartbeat(self.store, self.lease, self.holder, self.lease_ttl, self._stopping,
                        stall=self.stall_seconds) as heartbeat:
            for source in self.sources:
                if only and source.name not in only and source.key not in only:
                    continue
                kind, fingerprint = getattr(source, "kind", "folder"), self._fingerprint(source)
                cursor = self._cursor(source.key, fingerprint)
                try:
                    report = self.indexer.sync(source, on_file, full=full, on_source=on_source,
                                               check=heartbeat.check, on_chunks=on_chunks, cursor=cursor,
                                               on_pages=pages_done)
                    total.merge(report)
                    self.store.source_found(source.key)
                    # A file that failed for a passing reason keeps the old cursor: the next run repeats
                    # these changes (what was written is skipped by its version) and tries that file again.
                    self.store.source_synced(source.key, kind, cursor if report.retry else report.cursor,
                                             fingerprint, report.requests)
                except (LeaseLost, IndexRunStopped, SearchIndexUnavailable, VisibilityNotApplied):
                    raise  # the index itself cannot take writes (or a restamp failed): the run fails, not a source
                except SourceMissing as exc:
                    total.errors.append((source.name, self._missing(source, exc, total, kept)))
                    self.store.source_failed(source.key, kind, str(exc))
                except DocbotError as exc:  # one unavailable source must not stop the others, nor lose its documents
                    total.errors.append((source.name, str(exc)))
                    self.store.source_failed(source.key, kind, str(exc))
                pages.next_source()
            if self.configured and not only:
                self._purge_unconfigured(total, heartbeat, kept)
        return total

    def _fingerprint(self, source: Source) -> str:
        """The settings a stored cursor is valid under: the source's own, its channels, the chunker and the
        embedder. A connector lists only changes, so after any of these changes it must list everything."""
        visibility = sorted(source.visibility) if source.visibility is not None else None
        parts = (getattr(source, "fingerprint", ""), visibility, self.indexer.signature, self.indexer.embedder.name)
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]

    def _cursor(self, key: str, fingerprint: str) -> str | None:
        state = self.store.source_state(key)
        return state.cursor if state is not None and state.fingerprint == fingerprint else None

    def _missing(self, source: Source, exc: SourceMissing, report: IndexReport, kept: set[str]) -> str:
        """A configured folder is gone or unreadable: an error naming the variable and the source now, its
        documents (and those of the folder it replaced, see `_replaced`) withdrawn once the grace has passed."""
        setting = getattr(source, "setting", "")
        what = f"{setting + ': ' if setting else ''}source {source.name!r}: {exc}"
        replaced = self._replaced(source)
        indexed = self.indexer.index.indexed_sources()
        count = sum(indexed.get(key, 0) for key in [source.key, *replaced])
        since = self.store.missing_since(source.key)
        if time.time() - since < self.missing_grace:
            kept.update(replaced)
            hours = (since + self.missing_grace - time.time()) / 3600
            if replaced:
                return (f"{what}; its {count} documents indexed from {', '.join(replaced)} stay searchable for "
                        f"{hours:.1f} more hours unless it returns (if the path was changed by mistake, correct it)")
            return f"{what}; its {count} indexed documents stay searchable for {hours:.1f} more hours unless it returns"
        for key in [source.key, *replaced]:
            report.deleted += self._withdraw(key)
        return f"{what}; missing for longer than the grace period: its {count} documents were withdrawn"

    def _replaced(self, source: Source) -> list[str]:
        """Indexed folders no longer configured that this missing folder may stand for: a mistyped or moved
        path in the settings is a new key that is missing, while the folder's documents sit under the old key,
        which would otherwise be purged as unconfigured in the same run. So a configured folder with nothing
        indexed under its own path keeps them for its grace, like its own. Matched by this, not by the source's
        name: a name is optional (DOCBOT_DOCS, or an entry without "name" takes its folder's name, which the typo
        changes too) and the index records keys. A folder that was indexed under its own path replaced nothing."""
        if not self.configured:
            return []
        indexed = self.indexer.index.indexed_sources()
        if indexed.get(source.key):
            return []
        configured = {s.key for s in self.sources}
        states = self.store.source_states()
        return sorted(key for key in indexed if key not in configured
                      and (key not in states or states[key].kind == "folder"))

    def _purge_unconfigured(self, report: IndexReport, heartbeat: "_Heartbeat", kept: set[str]) -> None:
        """Indexed sources no longer in the settings are withdrawn: a removed source is never served (except
        one a missing configured folder may stand for, kept for that folder's grace: see `_replaced`)."""
        configured = {s.key for s in self.sources} | kept
        for key in sorted(set(self.indexer.index.indexed_sources()) - configured):
            heartbeat.check()
            report.deleted += self._withdraw(key)
            log.warning("source %s is no longer configured: withdrawn from the index", key)


class _PagesDone:
    """A run's pages done of its total, written to its row (`Store.indexing_progress`) at most every `every`
    seconds and whenever a source's count is complete; several sources add up. A failed write is logged:
    progress is shown, never the reason a run stops."""

    def __init__(self, store: Store, run_id: int, every: float):
        self.store, self.run_id, self.every = store, run_id, every
        self.done_before = self.total_before = 0  # of the sources finished
        self.done = self.total = 0  # of the source running
        self.written = float("-inf")

    def update(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        now = time.monotonic()
        if done in (0, total) or now - self.written >= self.every:
            self.written = now
            self._write()

    def next_source(self) -> None:
        self.done_before, self.total_before = self.done_before + self.done, self.total_before + self.total
        self.done = self.total = 0

    def _write(self) -> None:
        if not self.run_id:
            return
        try:
            self.store.update_run(self.run_id, pages_done=self.done_before + self.done,
                                  pages_total=self.total_before + self.total)
        except DocbotError as exc:
            log.warning("could not record the index run's progress: %s", exc)


class _Heartbeat:
    """Renews the lease every third of its lifetime on its own thread, so one long file (embedding for
    minutes) never outlives it, but only while the run makes progress: every `check()` (between
    files, slices of chunks and writes) counts as progress, and after `stall` seconds without one
    the lease is no longer renewed, so a run stuck on a read that never returns cannot hold it for
    ever. `check()` stops the run if the lease was lost or let go, or the job was asked to stop."""

    def __init__(self, store: Store, lease: str, holder: str, ttl: float, stopping: threading.Event, *,
                 stall: float = 600.0, clock: Callable[[], float] = time.monotonic):
        self.store, self.lease, self.holder, self.ttl, self.stopping = store, lease, holder, ttl, stopping
        self.stall, self.clock = stall, clock
        self.lost = self.stalled = False
        self.last_progress = clock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew, name="docbot-lease", daemon=True)

    def __enter__(self) -> "_Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _renew(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            if not self.beat():
                return

    def beat(self) -> bool:
        """One renewal; False once the lease is lost or let go (the thread then stops renewing)."""
        idle = self.clock() - self.last_progress
        if idle > self.stall:
            self.stalled = True
            log.warning("index run %s made no progress for %.0f s: its lease is no longer renewed", self.holder, idle)
            return False
        try:
            renewed = self.store.renew_lease(self.lease, self.holder, self.ttl)
        except DocbotError:  # the database blinked: the lease is still ours until it lapses; try again
            log.warning("could not renew the index lease; retrying")
            return True
        if not renewed:
            self.lost = True
        return renewed

    def check(self) -> None:
        """Progress: raise LeaseLost if the lease was lost or let go, IndexRunStopped if asked to stop."""
        if self.lost:
            raise LeaseLost("the index lease lapsed and was taken by another runner")
        if self.stalled:
            raise LeaseLost(f"no progress for over {self.stall:.0f} s: the lease was let go (the next run resumes)")
        if self.stopping.is_set():
            raise IndexRunStopped("stopped: the process is shutting down (the next run resumes)")
        self.last_progress = self.clock()
