"""Document sources: where files come from. A folder tree today; Confluence or Git fit the same port."""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol

from .errors import DocumentError
from .loaders import supported

DEFAULT_EXCLUDES = (".*", "*/.*", "_*", "*/_*", "node_modules/*")


@dataclass(frozen=True)
class SourceFile:
    """One file of a source: its path relative to the source and how to read its bytes."""

    path: str
    read: Callable[[], bytes]


class Source(Protocol):
    """A set of documents the index mirrors; `key` identifies it in the index across runs.

    `complete` says `files()` lists everything under the key, so indexed files missing from
    it were deleted at the source; a narrowed source (one file) is not complete.
    """

    name: str
    key: str
    complete: bool

    def files(self) -> list[SourceFile]:
        """Every document the source holds now (raises DocumentError if the source is unavailable)."""
        ...


@dataclass
class FolderSource:
    """A folder tree filtered by include and exclude globs (matched against the relative path)."""

    root: Path
    name: str = ""
    include: list[str] = field(default_factory=lambda: ["*"])
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDES))
    complete: bool = True

    def __post_init__(self) -> None:
        self.root = Path(self.root).resolve()
        self.name = self.name or self.root.name

    @property
    def key(self) -> str:
        """The absolute folder path."""
        return self.root.as_posix()

    def files(self) -> list[SourceFile]:
        """Supported files under the root that pass the globs, in path order."""
        if not self.root.is_dir():
            raise DocumentError(str(self.root), "no such folder")
        found = []
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root).as_posix()
            if not path.is_file() or not supported(path):
                continue
            if any(fnmatch.fnmatch(rel, g) for g in self.include) and not any(fnmatch.fnmatch(rel, g) for g in self.exclude):
                found.append(SourceFile(rel, path.read_bytes))
        return found


def scan(root: Path) -> list[Path]:
    """Supported files under root (or root itself), skipping hidden and excluded paths."""
    root = root.resolve()
    if root.is_file():
        return [root] if supported(root) else []
    return [root / f.path for f in FolderSource(root).files()]
