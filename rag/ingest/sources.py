"""Document sources: where files come from. A folder tree today; Confluence or Git fit the same port."""
from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from rag.documents import Metadata
from rag.errors import DocumentError, SourceMissing
from rag.ingest.loaders import supported

# Always skipped, whatever a source's `exclude` says (a source's `exclude` adds to these).
ALWAYS_EXCLUDED = ("node_modules",)


def private(rel: str) -> bool:
    """A hidden (`.name`) or draft (`_name`) file, or anything under such a folder: never indexed unless
    the source opts in with `include_hidden` (drafts and dotfiles are where private text lives)."""
    return any(part.startswith((".", "_")) for part in rel.split("/"))


@dataclass(frozen=True)
class SourceFile:
    """One file of a source: its path relative to the source, how to read its bytes and, when the
    source knows it without reading, its size (so an oversized file is refused before it is read).

    Connectors also give `version`, the service's id for these exact bytes (a Git blob id, an eTag): a file
    whose version is already indexed is not even read.
    """

    path: str
    read: Callable[[], bytes]
    meta: Metadata | None = None  # what the source knows about the file (URL, title, author, modified)
    size: int | None = None  # bytes, when known without reading (an oversized file is refused unread)
    version: str = ""
    # Who may read it at the source (lower-case e-mails), when a connector syncs per-document permissions;
    # None: whoever may see the source (its channels). See rag.index.port.audience.
    principals: frozenset[str] | None = None


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

    Hidden and `_` files and folders are skipped unless `include_hidden`; `exclude` adds to that
    rule and never replaces it, so copying an example config cannot switch it off. Only regular
    files are read: FIFOs, sockets and devices (which block or never end) and symbolic link loops
    are listed as files that cannot be read, so the run reports them as skipped. Files of a type
    docbot cannot read are listed the same way, so they are counted rather than vanishing.

    `visibility` is who may see its documents (None: every channel; a set: only those channel ids),
    stamped on every chunk at index time. `within` narrows the source to one sub-path (an ad hoc
    `docbot index <subfolder>` runs the configured source it belongs to, under that source's key and
    visibility); `nested` are sub-folders another configured source owns, which this one skips.
    """

    root: Path
    name: str = ""
    include: list[str] = field(default_factory=lambda: ["*"])
    exclude: list[str] = field(default_factory=list)
    complete: bool = True
    visibility: frozenset[str] | None = None
    within: str = ""
    nested: tuple[str, ...] = ()
    include_hidden: bool = False
    setting: str = ""  # the variable that configures it (DOCBOT_SOURCES, DOCBOT_DOCS): named when it is missing
    # Files the last `files()` found but `include`/`exclude` left out: counted and listed by `docbot index`, so a
    # narrow `include` copied from an example does not drop documents unseen.
    not_included: list[str] = field(default_factory=list, init=False, repr=False, compare=False)

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
            raise SourceMissing(str(self.root), "not a folder" if self.root.exists() else "no such folder")
        try:  # os.walk skips a folder it cannot list: an unreadable root would look empty and lose every document
            os.scandir(self.root).close()
        except OSError as exc:
            raise SourceMissing(str(self.root), f"cannot read the folder ({exc.strerror or exc})") from exc
        found, self.not_included = [], []
        for folder, dirs, names in os.walk(self.root):  # followlinks=False: linked folders are not entered
            dirs[:] = sorted(d for d in dirs if d not in ALWAYS_EXCLUDED and
                             (self.include_hidden or not d.startswith((".", "_"))))
            for name in sorted(names):
                path = Path(folder) / name
                rel = path.relative_to(self.root).as_posix()
                if not self._eligible(rel):
                    continue
                if self._matches(rel):
                    found.append(self._file(rel, path))
                else:
                    self.not_included.append(rel)
        return sorted(found, key=lambda f: f.path)

    def _eligible(self, rel: str) -> bool:
        """Within this source at all: its sub-path, not another source's folder, not private, not node_modules."""
        if self.within and rel != self.within and not rel.startswith(self.within + "/"):
            return False
        if any(rel == n or rel.startswith(n + "/") for n in self.nested):
            return False
        if not self.include_hidden and private(rel):
            return False
        if any(part in ALWAYS_EXCLUDED for part in rel.split("/")):
            return False
        return True

    def _matches(self, rel: str) -> bool:
        """Kept by the source's own `include` and `exclude` globs."""
        return any(fnmatch.fnmatch(rel, g) for g in self.include) and \
            not any(fnmatch.fnmatch(rel, g) for g in self.exclude)

    def _file(self, rel: str, path: Path) -> SourceFile:
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:
            shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            return SourceFile(shown, _refuse(shown, "skipped: the file name is not valid UTF-8; rename it"))
        try:
            info = path.stat()  # follows a link: a loop or a dangling link fails here, not in the walk
        except OSError as exc:
            reason = "a symbolic link loop" if exc.errno == errno.ELOOP else \
                "a symbolic link to nothing" if path.is_symlink() else f"cannot read: {exc.strerror or exc}"
            return SourceFile(rel, _refuse(rel, f"skipped: {reason}"))
        if not stat.S_ISREG(info.st_mode):
            return SourceFile(rel, _refuse(rel, f"skipped: not a regular file ({_kind(info.st_mode)})"))
        if path.is_symlink():
            try:
                target = path.resolve(strict=True)
            except (OSError, RuntimeError):  # replaced by a loop since the stat
                return SourceFile(rel, _refuse(rel, "skipped: a symbolic link loop"))
            if not target.is_relative_to(self.root):
                return SourceFile(rel, _refuse(rel, "skipped: a symbolic link to a file outside the source folder"))
        if not supported(path):
            return SourceFile(rel, _refuse(rel, f"skipped: {path.suffix.lower() or 'no extension'} is not a "
                                                "supported type"), size=info.st_size)
        return SourceFile(rel, lambda: read_regular(path, rel), size=info.st_size)


def _kind(mode: int) -> str:
    return "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else \
        "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a folder" if stat.S_ISDIR(mode) else "special"


def read_regular(path: Path, rel: str) -> bytes:
    """A regular file's bytes. Opened without blocking and checked again once open: a file swapped for a
    FIFO after the listing must not hang the run (opening a FIFO blocks until a writer appears)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(f.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise DocumentError(rel, f"skipped: not a regular file ({_kind(mode)})")
        return f.read()


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
                            nested=owner.nested, include_hidden=owner.include_hidden)
    if path.is_file():  # a file named on the command line is indexed even if its name is hidden or a draft
        # `within`, not `include`: its neighbours are outside the run, not left out by patterns
        return FolderSource(path.parent, within=path.name, include_hidden=True)
    if not path.exists():
        raise DocumentError(str(path), "no such file or folder")
    inside = tuple(s.root.relative_to(path).as_posix() for s in configured if s.root.is_relative_to(path))
    return FolderSource(path, nested=inside)
