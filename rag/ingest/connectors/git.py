"""Git repositories (docs-as-code): the cursor is the last indexed commit; a run diffs it to the branch head.

The git CLI does the work (fetch, diff-tree with rename detection, ls-tree, cat-file): it is the reference
implementation of every protocol and credential helper, GitPython only shells out to it, and dulwich has no
rename detection of its own in diff-tree. It runs in the indexing job's worker thread, never on the event loop.

A bare mirror under the data directory is fetched on every run (one request to the remote when nothing
changed). Submodules (gitlinks) and symbolic links are not documents and are skipped; a force-push is
handled because trees are compared, not history: the mirror still holds the indexed commit after the branch
moved elsewhere, and if it does not (a new data directory), the run lists everything and deletes the rest.
"""
from __future__ import annotations

import base64
import fnmatch
import hashlib
import logging
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import quote, urlsplit

from rag.documents import Metadata
from rag.errors import ConfigurationError, DocumentError, SourceUnavailable
from rag.ingest.connectors.base import Changes
from rag.ingest.loaders import MAX_FILE_BYTES, supported
from rag.ingest.sources import ALWAYS_EXCLUDED, SourceFile, private

log = logging.getLogger(__name__)

GITLINK, SYMLINK = "160000", "120000"  # submodule and symbolic-link modes: neither is a document
HEAD_REF = "refs/docbot/head"
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256 object ids


@dataclass
class GitSource:
    """One branch of one repository (a URL or a local path), filtered by include and exclude globs.

    `token` (from an environment variable or a file, never the URL) is sent as HTTP basic auth with
    `username` in git's environment, not its command line, so neither `ps` nor a log shows it. `link` is
    the citation URL of a file: a template with {commit}, {branch} and {path}; unset, github.com and
    gitlab.com repositories get their web view and others no link.
    """

    repository: str
    mirror: Path
    branch: str = "HEAD"
    name: str = ""
    include: list[str] = field(default_factory=lambda: ["*"])
    exclude: list[str] = field(default_factory=list)  # adds to the folder rules: hidden and `_` paths never
    visibility: frozenset[str] | None = None
    link: str = ""
    token: str = field(default="", repr=False)
    username: str = "x-access-token"
    timeout: float = 600.0
    kind: str = "git"
    complete: bool = True
    commands: int = 0  # git processes run (the test suite counts them)

    def __post_init__(self) -> None:
        parts = urlsplit(self.repository)
        if parts.password or (parts.username and parts.scheme in ("http", "https")):
            raise ConfigurationError("a Git source's repository URL must not hold credentials: set its token_env "
                                     "or token_file instead")
        self.mirror = Path(self.mirror)
        self.name = self.name or Path(parts.path.rstrip("/")).stem or "git"
        self.link = self.link or _web_link(self.repository)

    @property
    def fingerprint(self) -> str:
        """The settings that decide what is indexed and how it links: a change lists the branch again."""
        return repr((self.branch, sorted(self.include), sorted(self.exclude), self.link))

    @property
    def key(self) -> str:
        """The repository and branch: what the index files this source's documents under."""
        return f"git:{self.repository}#{self.branch}"

    # The Source port: a full listing of the branch head.
    def files(self) -> list[SourceFile]:
        """Every document at the head of the branch (fetched first)."""
        return self.changes(None).changed

    def changes(self, cursor: str | None) -> Changes:
        """Fetch, then diff the indexed commit to the head (or list the head when there is no usable cursor)."""
        before = self.commands
        head = self._fetch()
        if cursor and not (_SHA.fullmatch(cursor) and self._has_commit(cursor)):
            log.warning("git source %s: indexed commit %s is not in the mirror; listing the branch again",
                        self.name, cursor[:12])
            cursor = None
        if cursor is None:
            changed, deleted, complete = self._listing(head), list[str](), True
        elif cursor == head:
            changed, deleted, complete = [], [], False
        else:
            changed, deleted = self._diff(cursor, head)
            complete = False
        changed = self._describe(changed, cursor, head)
        return Changes(head, changed, deleted, complete, requests=self.commands - before)

    # git itself
    def _git(self, *args: str, check: bool = True, stdin: bytes | None = None) -> bytes:
        self.commands += 1
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "", "LC_ALL": "C",
               "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
        if self.token:
            basic = base64.b64encode(f"{self.username}:{self.token}".encode()).decode()
            env.update({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.extraHeader",
                        "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}"})
        try:
            done = subprocess.run(["git", "-C", str(self.mirror), *args], input=stdin, capture_output=True,
                                  env=env, timeout=self.timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SourceUnavailable(f"git {args[0]} failed: {self._scrub(str(exc))}") from None
        if check and done.returncode != 0:
            raise SourceUnavailable(f"git {args[0]} failed: {self._scrub(done.stderr.decode(errors='replace'))[-500:]}")
        return done.stdout

    def _scrub(self, text: str) -> str:
        """Never let a token reach a log or `docbot sources` (git may echo a URL or header)."""
        if not self.token:
            return text
        basic = base64.b64encode(f"{self.username}:{self.token}".encode()).decode()
        return text.replace(self.token, "***").replace(basic, "***")

    def _fetch(self) -> str:
        if not (self.mirror / "HEAD").exists():
            self.mirror.mkdir(parents=True, exist_ok=True)
            self._git("init", "--quiet", "--bare")
        # +: a force-pushed branch is taken as it now is; the old commits stay in the mirror until gc.
        self._git("fetch", "--quiet", "--no-tags", "--no-recurse-submodules", self.repository,
                  f"+{self.branch}:{HEAD_REF}")
        return self._git("rev-parse", "--verify", f"{HEAD_REF}^{{commit}}").decode().strip()

    def _has_commit(self, sha: str) -> bool:
        try:
            self._git("cat-file", "-e", f"{sha}^{{commit}}")
        except SourceUnavailable:
            return False
        return True

    def _listing(self, head: str) -> list[SourceFile]:
        out = self._git("ls-tree", "-r", "-z", "--full-tree", head)
        found = []
        for entry in filter(None, out.split(b"\0")):
            meta, _, raw_path = entry.partition(b"\t")
            mode, kind, sha = meta.decode().split(" ")
            path = raw_path.decode("utf-8", "surrogateescape")
            if kind == "blob" and mode != SYMLINK and self._wanted(path):
                found.append(self._file(path, sha))
        return sorted(found, key=lambda f: f.path)

    def _diff(self, old: str, new: str) -> tuple[list[SourceFile], list[str]]:
        """Files added, edited or renamed into place, and paths gone (renamed away, deleted, filtered out)."""
        out = self._git("diff-tree", "-r", "-z", "-M", "--no-commit-id", old, new)
        fields = out.split(b"\0")
        changed, deleted = [], []
        i = 0
        while i < len(fields) and fields[i].startswith(b":"):
            src_mode, dst_mode, _src, dst_sha, status = fields[i][1:].decode().split(" ")
            paths = [p.decode("utf-8", "surrogateescape") for p in fields[i + 1 : i + (3 if status[0] in "RC" else 2)]]
            i += 1 + len(paths)
            old_path, new_path = paths[0], paths[-1]
            if status[0] == "R" or status[0] == "D" or _not_a_document(dst_mode):
                if not _not_a_document(src_mode) and self._wanted(old_path):
                    deleted.append(old_path)
            if status[0] != "D" and not _not_a_document(dst_mode):
                if self._wanted(new_path):
                    changed.append(self._file(new_path, dst_sha))
        return sorted(changed, key=lambda f: f.path), sorted(set(deleted))

    def _wanted(self, path: str) -> bool:
        if not supported(Path(path)) or private(path) or any(p in ALWAYS_EXCLUDED for p in path.split("/")):
            return False
        return any(fnmatch.fnmatch(path, g) for g in self.include) and \
            not any(fnmatch.fnmatch(path, g) for g in self.exclude)

    def _file(self, path: str, sha: str) -> SourceFile:
        return SourceFile(path, self._reader(path, sha), version=f"git:{sha}")

    def _reader(self, path: str, sha: str) -> Callable[[], bytes]:
        def read() -> bytes:
            size = int(self._git("cat-file", "-s", sha).decode().strip())
            if size > MAX_FILE_BYTES:  # refused before it is read into memory
                raise DocumentError(path, f"file is {size // 1_048_576} MB (limit {MAX_FILE_BYTES // 1_048_576} MB)")
            return self._git("cat-file", "blob", sha)

        return read

    def _describe(self, files: list[SourceFile], since: str | None, head: str) -> list[SourceFile]:
        """Each file with its latest commit's author and date (one `git log`) and its web link."""
        if not files:
            return files
        latest = self._latest_commits({f.path for f in files}, f"{since}..{head}" if since else head)
        described = []
        for f in files:
            author, modified = latest.get(f.path, ("", ""))
            url = self.link.format(commit=head, branch=quote(self._branch_name(), safe="/"),
                                   path=quote(f.path, safe="/")) if self.link else ""
            described.append(replace(f, meta=Metadata(author=author, updated=modified[:10], url=url)))
        return described

    def _latest_commits(self, paths: set[str], revisions: str) -> dict[str, tuple[str, str]]:
        out = self._git("log", "-z", "--no-renames", "--format=%x1e%an%x1f%aI", "--name-only", revisions, "--")
        latest: dict[str, tuple[str, str]] = {}
        for record in out.split(b"\x1e")[1:]:
            header, *names = record.split(b"\0")
            author, _, when = header.decode(errors="replace").partition("\x1f")
            for raw in names:
                name = raw.lstrip(b"\n").decode("utf-8", "surrogateescape")
                if name in paths and name not in latest:
                    latest[name] = (author, when)
        return latest

    def _branch_name(self) -> str:
        return self.branch.removeprefix("refs/heads/") if self.branch != "HEAD" else "HEAD"


def _not_a_document(mode: str) -> bool:
    return mode in (GITLINK, SYMLINK) or mode == "000000"


def _web_link(repository: str) -> str:
    """github.com and gitlab.com web views of a file at a commit; other hosts need an explicit `link`."""
    parts = urlsplit(repository)
    if parts.scheme == "https" and parts.hostname in ("github.com", "gitlab.com"):
        base = f"https://{parts.hostname}{parts.path.removesuffix('.git').rstrip('/')}"
        return base + ("/blob/{commit}/{path}" if parts.hostname == "github.com" else "/-/blob/{commit}/{path}")
    return ""


def mirror_path(data_dir: Path, repository: str, branch: str) -> Path:
    """Where a repository's bare mirror lives under the data directory (one per repository and branch)."""
    digest = hashlib.sha256(f"{repository}#{branch}".encode()).hexdigest()[:16]
    return Path(data_dir) / "sources" / f"git-{digest}"
