"""Google Drive (My Drive folders shared with a service account, and shared drives) through the Drive API v3
change feed.

First run: `changes/startPageToken` (taken *before* listing, so nothing edited during the listing is lost),
then `files.list` of everything the service account can read. Later runs: `changes.list` from the stored
page token, following `nextPageToken` to the `newStartPageToken`, which becomes the cursor. A change whose
`removed` is true (deleted for good, or the account lost access: a permission change) or whose file is
`trashed` is a deletion. Drive reports a moved, renamed, trashed or unshared folder as the folder alone,
so paths are rebuilt every run from the id tree kept in the cursor (id, name, first parent): everything under
a folder moves, or leaves, with it. A page token Drive no longer accepts (400 on `pageToken`, 404, 410)
starts a full listing again, answered as `complete` so the index drops what the drive no longer holds.

Google Docs, Sheets and Slides have no bytes of their own: they are exported (`files/{id}/export`) to HTML,
XLSX and PPTX for the loaders; Google caps an export at 10 MB (403 `exportSizeLimitExceeded`: that document
is reported, the run goes on). Uploaded files are downloaded as they are (`alt=media`). Drawings, forms,
sites and shortcuts are not documents and are skipped. A file's version is its id and `md5Checksum`
(uploaded files: the content only) or `version` (Google files), so an unchanged file is never read again.

Client: google-auth (Google's own library) signs the service account's JWT and exchanges it at the key's
`token_uri` for an access token, cached until it expires; the REST calls go through the shared HTTP client
(retries, `Retry-After`, request counts). google-api-python-client is not used: it is httplib2-based and
discovery-driven, and would bypass the shared client's retry rules and request count.
"""
from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from rag.documents import Metadata
from rag.errors import ConfigurationError, DocumentError, SourceUnavailable
from rag.ingest.connectors.base import Changes
from rag.ingest.connectors.http import HttpClient, NotFound
from rag.ingest.loaders import MAX_FILE_BYTES, supported
from rag.ingest.sources import SourceFile, private
from rag.resilience import RetryPolicy

log = logging.getLogger(__name__)

DRIVE = "https://www.googleapis.com/drive/v3"
SCOPE = "https://www.googleapis.com/auth/drive.readonly"
FOLDER = "application/vnd.google-apps.folder"
EXPORT_LIMIT = 10 * 1_048_576  # Google's cap on an export (files.export reference)
# Google files and the format each is exported to (Drive's "Export MIME types for Google Workspace documents")
EXPORTS = {
    "application/vnd.google-apps.document": ("text/html", ".html"),
    "application/vnd.google-apps.spreadsheet":
        ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".xlsx"),
    "application/vnd.google-apps.presentation":
        ("application/vnd.openxmlformats-officedocument.presentationml.presentation", ".pptx"),
}
FILE_FIELDS = ("id,name,mimeType,parents,trashed,md5Checksum,version,size,modifiedTime,webViewLink,driveId,"
               "lastModifyingUser/displayName")
PAGE_SIZE = 1000  # the most files.list and changes.list return a request
THROTTLED = {"userRateLimitExceeded", "rateLimitExceeded"}  # 403s that are throttling: back off and retry
ONE_FILE = {"exportSizeLimitExceeded", "fileNotDownloadable", "fileNotExportable", "cannotDownloadFile",
            "cannotExportFile", "notFound"}  # refusals that concern one file, not the run


def reasons(body: Any) -> set[str]:
    """The `reason`s of a Google API error body ({"error": {"errors": [{"reason": ...}]}})."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return set()
    return {str(e.get("reason")) for e in error.get("errors") or [] if isinstance(e, dict)}


def classify(status: int, body: Any) -> str | None:
    """Drive's errors, sorted for the shared client (developers.google.com/drive/api/guides/handle-errors)."""
    found = reasons(body)
    if status == 403 and found & THROTTLED:
        return "retry"
    if status == 403 and found & ONE_FILE:
        return "item"
    if status == 400 and _bad_page_token(body):
        return "item"
    return None


def _bad_page_token(body: Any) -> bool:
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, dict) and any(isinstance(e, dict) and e.get("location") == "pageToken"
                                           for e in error.get("errors") or [])


def service_account_token(key_file: Path, scope: str = SCOPE) -> tuple[Callable[[], str], str]:
    """A token provider for the service account whose JSON key is `key_file`, and the account's e-mail.

    The key is read once; messages name the file and the account, never the key. google-auth signs a JWT
    with the private key and exchanges it at the key's `token_uri`; the token is cached until it expires."""
    try:
        info = json.loads(Path(key_file).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"cannot read the Google service account key {key_file} "
                                 f"({exc.__class__.__name__})") from None
    if not isinstance(info, dict) or info.get("type") != "service_account" or "private_key" not in info:
        raise ConfigurationError(f"{key_file} is not a Google service account key (type service_account, with "
                                 "private_key): create one under IAM > Service accounts > Keys")
    from google.auth.exceptions import GoogleAuthError
    from google.auth.transport.requests import Request
    from google.oauth2 import service_account

    try:
        credentials = service_account.Credentials.from_service_account_info(info, scopes=[scope])
    except (ValueError, GoogleAuthError) as exc:
        raise ConfigurationError(f"the Google service account key {key_file} is unusable "
                                 f"({exc.__class__.__name__})") from None
    email = str(info.get("client_email", "?"))
    import requests

    session = requests.Session()

    def token() -> str:
        if not credentials.valid:
            try:
                credentials.refresh(Request(session))
            except GoogleAuthError as exc:  # the token endpoint's error code (invalid_grant, ...), never the key
                raise SourceUnavailable(f"Google refused the service account {email}: "
                                        f"{_auth_error(exc)}") from None
        return str(credentials.token)

    return token, email


def _auth_error(exc: Exception) -> str:
    args = getattr(exc, "args", ())
    first = str(args[0]) if args else exc.__class__.__name__
    return first.split(",", 1)[0][:120]


@dataclass
class GoogleDriveSource:
    """The files a service account can read: everything shared with it, or only the files under `folder`
    (a folder id), or one shared drive (`drive_id`), through the Drive API's change feed."""

    token: Callable[[], str] = field(repr=False)
    account: str = ""  # the service account's e-mail (shown in errors and the source key)
    folder: str = ""
    drive_id: str = ""
    name: str = ""
    visibility: frozenset[str] | None = None
    api_url: str = DRIVE
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    max_retry_after: float = 120.0
    sleep: Any = None
    kind: str = "gdrive"
    complete: bool = True
    http: HttpClient = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.name = self.name or "gdrive"
        extra = {"sleep": self.sleep} if self.sleep else {}
        self.http = HttpClient(self.api_url, "Google Drive",
                               lambda: {"Authorization": f"Bearer {self.token()}", "Accept": "application/json"},
                               self.policy, self.max_retry_after, classify=classify, **extra)

    @property
    def key(self) -> str:
        where = f"drive={self.drive_id}" if self.drive_id else f"account={self.account}"
        return f"gdrive:{where}" + (f":folder={self.folder}" if self.folder else "")

    @property
    def fingerprint(self) -> str:
        return repr((self.account, self.drive_id, self.folder))

    def files(self) -> list[SourceFile]:
        return self.changes(None).changed

    def _drives(self) -> dict[str, str]:
        """Query parameters every call takes: shared drives included (Drive leaves them out otherwise)."""
        return {"supportsAllDrives": "true", **({"driveId": self.drive_id} if self.drive_id else {})}

    def changes(self, cursor: str | None) -> Changes:
        before = self.http.requests
        token, tree = self._parse(cursor)
        items: list[dict] = []
        complete = False
        if token is not None:
            try:
                items, new_token = self._changes(token)
            except NotFound as gone:  # the page token is invalid or expired: list everything again
                log.warning("Google Drive source %s: the page token was refused (HTTP %s); listing the drive again",
                            self.name, gone.status)
                token = None
        if token is None:
            new_token = self._start_token()  # before the listing: what changes during it comes next run
            items = self._list()
            complete, old_tree, tree = True, tree, {}
        else:
            old_tree = dict(tree)
        removed: set[str] = set()
        for item in items:  # the latest state of each item, in order
            item_id = str(item["id"])
            if item.get("removed") or item.get("trashed"):
                tree.pop(item_id, None)
                removed.add(item_id)
            else:
                tree[item_id] = _entry(item)
        _prune(tree, removed)
        old_paths, new_paths = self._paths(old_tree), self._paths(tree)
        touched = {str(i["id"]) for i in items}
        changed = [self._file(i, p, tree[i]) for i, p in new_paths.items()
                   if complete or i in touched or old_paths.get(i) != p]
        deleted = [] if complete else sorted({p for i, p in old_paths.items() if new_paths.get(i) != p}
                                             - set(new_paths.values()))
        state = json.dumps(tree, separators=(",", ":"), ensure_ascii=False)
        return Changes(f"{new_token}\n{state}", sorted(changed, key=lambda f: f.path), deleted, complete,
                       self.http.requests - before)

    @staticmethod
    def _parse(cursor: str | None) -> tuple[str | None, dict[str, dict]]:
        if not cursor:
            return None, {}
        token, _, state = cursor.partition("\n")
        try:
            return token, dict(json.loads(state))
        except ValueError:
            log.warning("Google Drive source: unreadable cursor; listing the drive again")
            return None, {}

    def _start_token(self) -> str:
        try:
            body = self.http.get_json("changes/startPageToken", self._drives())
        except NotFound as missing:
            raise SourceUnavailable(f"Google Drive has no shared drive {self.drive_id} for this account "
                                    f"(HTTP {missing.status})") from None
        return str(body["startPageToken"])

    def _list(self) -> list[dict]:
        """Every file and folder the account can read (not trashed), following `nextPageToken`."""
        params: dict[str, Any] = {**self._drives(), "includeItemsFromAllDrives": "true", "q": "trashed = false",
                                  "pageSize": PAGE_SIZE, "fields": f"nextPageToken,files({FILE_FIELDS})",
                                  "corpora": "drive" if self.drive_id else "allDrives"}
        out: list[dict] = []
        while True:
            try:
                body = self.http.get_json("files", params)
            except NotFound as missing:
                raise SourceUnavailable(f"Google Drive refused the listing (HTTP {missing.status})") from None
            out.extend(body.get("files") or [])
            following = body.get("nextPageToken")
            if not following:
                return out
            params = {**params, "pageToken": following}

    def _changes(self, token: str) -> tuple[list[dict], str]:
        """Every change since `token`, as file resources or {"id", "removed": True}; and the next token."""
        params: dict[str, Any] = {**self._drives(), "includeItemsFromAllDrives": "true", "pageSize": PAGE_SIZE,
                                  "fields": f"nextPageToken,newStartPageToken,changes(changeType,removed,fileId,"
                                            f"file({FILE_FIELDS}))"}
        out: list[dict] = []
        while True:
            body = self.http.get_json("changes", {**params, "pageToken": token})
            for change in body.get("changes") or []:
                if change.get("changeType", "file") != "file":
                    continue  # a shared drive's own settings changed, not a file
                if change.get("removed") or not change.get("file"):
                    out.append({"id": change.get("fileId"), "removed": True})
                else:
                    out.append(change["file"])
            if body.get("newStartPageToken"):
                return out, str(body["newStartPageToken"])
            token = body.get("nextPageToken")
            if not token:
                raise SourceUnavailable("Google Drive ended a change list with neither nextPageToken nor "
                                        "newStartPageToken")

    def _paths(self, tree: dict[str, dict]) -> dict[str, str]:
        """Each indexable file's path from the id tree: below `folder` when one is set, else from the
        top-most folder the account can see. Two files with one path get ` (<id>)` in the later one's."""
        memo: dict[str, str | None] = {}

        def path_of(item_id: str, depth: int = 0) -> str | None:
            if item_id in memo:
                return memo[item_id]
            entry = tree[item_id]
            parent = entry.get("p")
            if item_id == self.folder:
                found: str | None = ""
            elif depth > 100:
                found = None
            elif parent in tree:
                above = path_of(parent, depth + 1)
                found = None if above is None else (f"{above}/{entry['n']}" if above else entry["n"])
            else:  # the top of what the account sees (a folder shared with it, a shared drive's root)
                found = None if self.folder else entry["n"]
            memo[item_id] = found
            return found

        out: dict[str, str] = {}
        taken: set[str] = set()
        for item_id in sorted(tree):
            entry = tree[item_id]
            if entry.get("m") == FOLDER or not _readable(entry):
                continue
            full = path_of(item_id)
            if not full:
                continue
            full = full + _suffix(entry)
            if not supported(Path(full)) or private(full):
                continue
            if full in taken:
                pure = PurePosixPath(full)
                full = str(pure.with_name(f"{pure.stem} ({item_id}){pure.suffix}"))
            taken.add(full)
            out[item_id] = full
        return out

    def _file(self, item_id: str, path: str, entry: dict) -> SourceFile:
        native = entry.get("m") in EXPORTS
        meta = Metadata(url=entry.get("u", ""), author=entry.get("a", ""), updated=entry.get("t", ""),
                        title=entry.get("n", "") if native else "")
        size = entry.get("s")
        return SourceFile(path, lambda: self._download(item_id, path, entry), meta=meta,
                          size=size if isinstance(size, int) else None,
                          version=f"gdrive:{item_id}:{entry.get('v', '')}")

    def _download(self, item_id: str, path: str, entry: dict) -> bytes:
        mime = entry.get("m", "")
        try:
            if mime in EXPORTS:
                return self.http.get_bytes(f"files/{quote(item_id)}/export", {"mimeType": EXPORTS[mime][0]},
                                           limit=min(MAX_FILE_BYTES, EXPORT_LIMIT))
            size = entry.get("s")
            if isinstance(size, int) and size > MAX_FILE_BYTES:
                raise DocumentError(path, f"file is {size // 1_048_576} MB (limit {MAX_FILE_BYTES // 1_048_576} MB)")
            return self.http.get_bytes(f"files/{quote(item_id)}", {"alt": "media", "supportsAllDrives": "true"},
                                       limit=MAX_FILE_BYTES)
        except NotFound as refused:
            found = reasons(refused.body)
            if "exportSizeLimitExceeded" in found:
                raise DocumentError(path, "Google refuses to export it: the export is over Google's 10 MB "
                                          "limit") from None
            if refused.status in (404, 410):
                raise DocumentError(path, "the file is gone (it leaves the index with the next change list)") from None
            raise DocumentError(path, f"Google refuses to read it ({', '.join(sorted(found)) or refused.status})") \
                from None
        except ValueError as exc:
            raise DocumentError(path, f"file is {exc}") from None


def _entry(item: dict) -> dict[str, Any]:
    """What the cursor keeps of a file or folder: name, first parent, type, version, size, link, editor, date."""
    parents = item.get("parents") or []
    entry: dict[str, Any] = {"n": str(item.get("name", "")), "p": parents[0] if parents else item.get("driveId"),
                             "m": item.get("mimeType", "")}
    if entry["m"] != FOLDER:
        size = item.get("size")
        entry.update(v=item.get("md5Checksum") or f"v{item.get('version', '')}",
                     s=int(size) if isinstance(size, str) and size.isdigit() else None,
                     u=item.get("webViewLink", ""), a=str((item.get("lastModifyingUser") or {}).get("displayName", "")),
                     t=str(item.get("modifiedTime") or "")[:10])
    return entry


def _prune(tree: dict[str, dict], removed: set[str]) -> None:
    """Drop everything under a removed (deleted, trashed, unshared) folder: Drive reports the folder alone."""
    if not removed:
        return
    gone = set(removed)
    changed = True
    while changed:
        changed = False
        for item_id, entry in list(tree.items()):
            if entry.get("p") in gone:
                del tree[item_id]
                gone.add(item_id)
                changed = True


def _readable(entry: dict) -> bool:
    mime = entry.get("m", "")
    return mime in EXPORTS or not mime.startswith("application/vnd.google-apps.")


def _suffix(entry: dict) -> str:
    """The extension a Google file's export gets (its name has none); uploaded files keep their name."""
    export = EXPORTS.get(entry.get("m", ""))
    if export is None or entry["n"].lower().endswith(export[1]):
        return ""
    return export[1]
