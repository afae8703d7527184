"""The second pass: the answer's sentence vectors, embedded while the server is idle, after indexing.

A first pass embeds passages only, so documents are searchable sooner: the quotable sentences of each
passage (`rag.ingest.chunking.sentence_texts`), four fifths of the embeddings when they were embedded beside
their passages (issue 50), are only listed in the store (`StoredVectors.want`). A turn that reads a sentence
not stored yet embeds it and keeps it (`rag.models.embeddings.VectorCache`); this pass embeds the rest in
small batches on a thread of its own, at the lowest CPU priority, and only while no turn and no index run
is going on, so a question asked now never waits for it. DOCBOT_SENTENCE_VECTORS turns it on.
"""
from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

from rag.models.embeddings import Embedder
from rag.models.stored import StoredVectors

log = logging.getLogger(__name__)

BATCH = 32  # sentences per model call: a fraction of a second, so a turn arriving finds the pass between calls
IDLE_WAIT = 0.5  # seconds between two looks at whether the server is still busy
NICE = 19  # the second pass's threads: the lowest priority; a turn's thread (nice 0) gets ~98 % of a shared core


def lower_priority(nice: int) -> bool:
    """Raise this thread's nice value (Linux: per thread, inherited by the threads it starts, such as the
    model's OpenMP workers); False where the platform cannot. Lowering it again needs privileges, so only a
    thread of one's own, never a shared pool's, may call this."""
    if not hasattr(os, "setpriority") or not hasattr(threading, "get_native_id"):
        return False
    try:
        current = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), max(current, nice))
    except OSError:
        return False
    return True


class SentenceFiller:
    """Embeds the sentences listed for the second pass into the store, while `busy()` says nothing else runs."""

    def __init__(self, store: StoredVectors, embedder: Embedder | Callable[[], Embedder], *,
                 busy: Callable[[], bool] = lambda: False, batch: int = BATCH, idle_wait: float = IDLE_WAIT,
                 nice: int = NICE):
        """`embedder` may be a function giving it, called on the pass's thread when there is work (loading
        the model is no business of the thread that starts the pass, e.g. the server's event loop)."""
        self.store, self.busy, self._embedder = store, busy, embedder
        self.batch, self.idle_wait, self.nice = batch, idle_wait, nice
        self.filled = 0  # sentences this filler embedded
        self._kick = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def embedder(self) -> Embedder:
        if not hasattr(self._embedder, "embed_passages"):
            self._embedder = self._embedder()
        return self._embedder  # type: ignore[return-value]

    def step(self) -> int | None:
        """One batch: embedded and stored; None while busy (nothing done), 0 when nothing is left."""
        if self.busy():
            return None
        texts = self.store.wanted(self.batch)
        if not texts:
            return 0
        self.store.put_many(texts, self.embedder.embed_passages(texts))
        self.filled += len(texts)
        return len(texts)

    def fill(self) -> int:
        """Batches until nothing is left or `stop()`; waits while busy. Returns the sentences embedded."""
        before = self.filled
        while not self._stopping.is_set():
            done = self.step()
            if done == 0:
                break
            if done is None:
                self._stopping.wait(self.idle_wait)
        return self.filled - before

    def start(self) -> None:
        """The pass's own thread, at the lowest priority, filling whenever `kick()` says indexing is done."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="docbot-sentences", daemon=True)
        self._thread.start()
        self.kick()  # what an earlier `docbot index` (another process) listed

    def kick(self) -> None:
        """Fill now (an index run just ended)."""
        self._kick.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop after the current batch."""
        self._stopping.set()
        self._kick.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        lower_priority(self.nice)
        while True:
            self._kick.wait()
            self._kick.clear()
            if self._stopping.is_set():
                return
            try:
                filled = self.fill()
            except Exception as exc:  # the model or the store: turns embed what they read; the next run retries
                log.warning("second pass of sentence vectors stopped: %s", exc)
                continue
            if filled:
                log.info("second pass: %d sentence vectors stored", filled)
