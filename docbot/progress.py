"""Index progress as plain lines, for output that is not a terminal (a pipe, `docker logs`, systemd, `tee`).

A progress bar redraws one line in place: written to a log it shows nothing until the run ends, so a long
first index looks hung. These lines come every `every_files` files or `every_seconds` seconds, whichever
is first, and once when a source is done; each says files and chunks done of total, elapsed and rate.
"""
from __future__ import annotations

import time
from collections.abc import Callable

EVERY_FILES = 100
EVERY_SECONDS = 10.0


class ProgressLines:
    """Fed by the index job's callbacks: `files(done, total)` per source (0 when it starts), `source(name,
    chunks)` once its changed files are chunked, `chunks(n)` as they are embedded. Lines are written only
    from these calls (no thread of its own): a run that makes no progress prints nothing new."""

    def __init__(self, write: Callable[[str], None], *, every_files: int = EVERY_FILES,
                 every_seconds: float = EVERY_SECONDS, clock: Callable[[], float] = time.monotonic):
        self.write, self.every_files, self.every_seconds, self.clock = write, every_files, every_seconds, clock
        self._start(0)

    def _start(self, total: int) -> None:
        self.name, self.done, self.total, self.chunks_done = "", 0, total, 0
        self.chunks_total: int | None = None  # known once the source's changed files are chunked
        self.started = self.last_at = self.clock()
        self.last_done = 0

    def files(self, done: int, total: int) -> None:
        if done == 0:  # a source starts (its name comes with `source`, once its files are read)
            self._start(total)
            return
        self.done, self.total = done, total
        if done >= total:
            self._line(final=True)
        else:
            self._maybe()

    def source(self, name: str, chunks: int) -> None:
        self.name, self.chunks_total = name, chunks

    def chunks(self, n: int) -> None:
        self.chunks_done += n
        self._maybe()

    def _maybe(self) -> None:
        if self.done - self.last_done >= self.every_files or self.clock() - self.last_at >= self.every_seconds:
            self._line()

    def _line(self, final: bool = False) -> None:
        now = self.clock()
        elapsed = now - self.started
        self.last_at, self.last_done = now, self.done
        chunks = f"{self.chunks_done}/{self.chunks_total}" if self.chunks_total is not None else f"{self.chunks_done}"
        rate = (f"{self.done / elapsed:.1f} files/s, {self.chunks_done / elapsed:.1f} chunks/s" if elapsed > 0
                else "- files/s, - chunks/s")
        name = f" {self.name}" if self.name else ""
        if final:
            self.write(f"indexed{name}: {self.done}/{self.total} files, {chunks} chunks in {elapsed:.0f}s ({rate})")
        else:
            self.write(f"indexing{name}: {self.done}/{self.total} files, {chunks} chunks, {elapsed:.0f}s elapsed "
                       f"({rate})")
