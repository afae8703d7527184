"""Document sources: where files come from. A folder tree today; Confluence or Git fit the same port."""
from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from rag.documents import Metadata
from rag.errors import DocumentError, SourceMissing
from rag.ingest.loaders import supported

DEFAULT_EXCLUDES = (".*", "*/.*", "_*", "*/_*", "node_modules/*")


@dataclass(frozen=True)
class SourceFile:
    """One file of a source: its path relative to the source and how to read its bytes."""

    path: str
    read: Callable[[], bytes]
    meta: Metadata | None = None  # what the source knows about the file (URL, title, author, modified)


class Source(Protocol):
    """A set of documents the index mirrors; `key` identifies it in the index across runs.

    `complete` says `files()` lists everything under the key, so indexed files missing from
    it were deleted at the source; a narrowed source (one file) is not complete.
    """

    # Read-only members (properties in the protocol): frozen dataclasses satisfy them.
    @property
    def name(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def complete(self) -> bool: ...
    @property
    def visibility(self) -> frozenset[str] | None: ...  # who may see its documents: None every channel, else ids

    def files(self) -> list[SourceFile]:
        """Every document the source holds now (raises DocumentError if the source is unavailable)."""
        ...


@dataclass
class FolderSource:
    """A folder tree filtered by include and exclude globs (matched against the relative path).

    `visibility` is who may see its documents (None: every channel; a set: only those channel ids),
    stamped on every chunk at index time. `within` narrows the source to one sub-path (an ad hoc
    `docbot index <subfolder>` runs the configured source it belongs to, under that source's key and
    visibility); `nested` are sub-folders another configured source owns, which this one skips.
    """

    root: Path
    name: str = ""
    include: list[str] = field(default_factory=lambda: ["*"])
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDES))
    complete: bool = True
    visibility: frozenset[str] | None = None
    within: str = ""
    nested: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.root = Path(self.root).resolve()
        self.name = self.name or self.root.name
        if self.within:
            self.complete = False

    @property
    def key(self) -> str:
        """The absolute folder path."""
        return self.root.as_posix()

    def files(self) -> list[SourceFile]:
        """Supported files under the root that pass the globs, in path order.

        Symbolic links are not followed into other folders, and a linked file whose target lies
        outside the root is listed as a file that cannot be read (so the run reports it as skipped):
        a link must never pull `/etc/passwd` or `../secrets.env` into the index.
        """
        if not self.root.is_dir():
            raise SourceMissing(str(self.root), "no such folder")
        found = []
        for folder, dirs, names in os.walk(self.root):  # followlinks=False: linked folders are not entered
            dirs.sort()
            for name in sorted(names):
                path = Path(folder) / name
                rel = path.relative_to(self.root).as_posix()
                if self._wanted(rel, path):
                    found.append(self._file(rel, path))
        return sorted(found, key=lambda f: f.path)

    def _wanted(self, rel: str, path: Path) -> bool:
        if self.within and rel != self.within and not rel.startswith(self.within + "/"):
            return False
        if any(rel == n or rel.startswith(n + "/") for n in self.nested):
            return False
        if not supported(path):
            return False
        return any(fnmatch.fnmatch(rel, g) for g in self.include) and \
            not any(fnmatch.fnmatch(rel, g) for g in self.exclude)

    def _file(self, rel: str, path: Path) -> SourceFile:
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:
            shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            return SourceFile(shown, _refuse(shown, "skipped: the file name is not valid UTF-8; rename it"))
        if path.is_symlink():
            target = path.resolve()
            if not target.is_relative_to(self.root):
                return SourceFile(rel, _refuse(rel, "skipped: a symbolic link to a file outside the source folder"))
        return SourceFile(rel, path.read_bytes)


def _refuse(path: str, reason: str) -> Callable[[], bytes]:
    def read() -> bytes:
        raise DocumentError(path, reason)

    return read


def overlaps(sources: list[FolderSource]) -> list[tuple[FolderSource, FolderSource]]:
    """Pairs (outer, inner) of configured folders where one lies inside the other."""
    return [(outer, inner) for outer in sources for inner in sources
            if outer is not inner and inner.root != outer.root and inner.root.is_relative_to(outer.root)]


def with_owners(sources: list[FolderSource]) -> list[FolderSource]:
    """Each folder skips the sub-folders another configured source owns: every file is indexed once,
    under the most specific source, with that source's visibility."""
    for outer, inner in overlaps(sources):
        outer.nested = (*outer.nested, inner.root.relative_to(outer.root).as_posix())
    return sources


def narrowed(path: Path, configured: list[FolderSource]) -> FolderSource:
    """The source for an ad hoc `docbot index <path>`: the most specific configured source containing
    it, narrowed to the path (same key and visibility); outside every configured source, the folder
    itself (or a file's folder narrowed to the file), visible everywhere, skipping configured sub-folders."""
    path = Path(path).resolve()
    owners = [s for s in configured if path == s.root or path.is_relative_to(s.root)]
    if owners:
        owner = max(owners, key=lambda s: len(s.root.parts))
        if path == owner.root:
            return owner
        return FolderSource(owner.root, owner.name, list(owner.include), list(owner.exclude),
                            visibility=owner.visibility, within=path.relative_to(owner.root).as_posix(),
                            nested=owner.nested)
    if path.is_file():
        return FolderSource(path.parent, include=[path.name], exclude=[], complete=False)
    if not path.exists():
        raise DocumentError(str(path), "no such file or folder")
    inside = tuple(s.root.relative_to(path).as_posix() for s in configured if s.root.is_relative_to(path))
    return FolderSource(path, nested=inside)
