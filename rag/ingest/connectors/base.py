"""The incremental side of the `Source` port: changes since a stored cursor instead of a full listing."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from rag.ingest.sources import SourceFile


@dataclass(frozen=True)
class Changes:
    """What changed in a source since a cursor.

    `changed` are new or edited documents (a rename or move is the old path in `deleted` and the new one
    here); `deleted` paths left the source. `complete` says `changed` lists every document (a first run,
    or a resync after the service expired the cursor): indexed paths missing from it are deleted.
    `cursor` is stored only once all of this is in the index, so a crash mid-run repeats these changes
    (cheaply: files whose `version` is already indexed are neither read nor embedded again).
    `requests` counts the calls made to the service, reported so a no-op run can be seen to cost O(1).
    """

    cursor: str
    changed: list[SourceFile] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    complete: bool = False
    requests: int = 0


@runtime_checkable
class IncrementalSource(Protocol):
    """A source that can say what changed since a cursor (the connectors)."""

    @property
    def kind(self) -> str: ...  # "git", ... (shown by `docbot sources`)
    @property
    def name(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def visibility(self) -> frozenset[str] | None: ...
    @property
    def fingerprint(self) -> str: ...  # settings that decide what is indexed: a change voids the cursor

    def changes(self, cursor: str | None) -> Changes:
        """Changes since `cursor` (None: list everything, `complete`); raises SourceUnavailable when the
        service cannot be reached or refuses, so the run reports it and keeps the source's documents."""
        ...
