"""A local Google Drive API v3 and OAuth token endpoint for the connector's tests, as strict as the documented
service, served over real HTTP and driven through the connector's real client code (google-auth included).

From developers.google.com/drive/api/reference/rest/v3 (changes.getStartPageToken, changes.list, files.list,
files.get, files.export), /drive/api/guides/manage-changes, /drive/api/guides/enable-shareddrives,
/drive/api/guides/ref-export-formats, /drive/api/guides/handle-errors, /drive/api/guides/fields-parameter and
/identity/protocols/oauth2/service-account:
- the token endpoint takes only the JWT-bearer grant whose assertion is an RS256 JWT signed by the service
  account's key, `iss` its e-mail, `aud` always `https://oauth2.googleapis.com/token` (whatever URI the request
  goes to), a `scope`, and at most an hour between `iat` and `exp`
  (400 `invalid_grant` / `invalid_scope` otherwise); every API call needs `Authorization: Bearer` with a token
  it issued (401 `authError`), and a scope that allows reading (403 `insufficientPermissions`);
- `fields` selects what an answer holds (partial response: `a,b(c,d),e/f`); without it an answer holds the
  defaults only (files: kind, id, name, mimeType); an unknown field is 400 `invalidParameter`;
- files.list and changes.list page with `nextPageToken` (fewer than `pageSize` a page, here 4); changes.list
  ends with `newStartPageToken` and never both; a change for a file deleted for good or no longer readable by
  the account is `removed: true` without a `file`; a trashed file is a change with `trashed: true`; moving,
  renaming, trashing or unsharing a folder is a change of the folder alone; a page token Drive does not
  accept is 400 with `location: pageToken`;
- shared drive items appear only with `supportsAllDrives=true` (and, for lists, `includeItemsFromAllDrives=true`,
  which is refused without `supportsAllDrives`); `corpora=drive` needs `driveId`;
- files the account cannot see are 404 `notFound`; `alt=media` on a Google file is 403 `fileNotDownloadable`;
  export of an uploaded file is 403 `fileNotExportable`; an export format not listed for its type is 400
  `badRequest`; an export over 10 MB is 403 `exportSizeLimitExceeded`;
- throttling is 403 `userRateLimitExceeded` / `rateLimitExceeded` (no Retry-After) or 429 `rateLimitExceeded`;
  `down` answers 503.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import io
import itertools
import json
import secrets
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import jwt

GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"  # the JWT's `aud`, always (OAuth for service accounts)
PAGE = 4  # what a list page holds at most (small, so every test crosses pages)
EXPORT_LIMIT = 10 * 1_048_576
FOLDER = "application/vnd.google-apps.folder"
DOC, SHEET, SLIDES = ("application/vnd.google-apps.document", "application/vnd.google-apps.spreadsheet",
                      "application/vnd.google-apps.presentation")
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
EXPORTS = {DOC: {"text/html", "text/plain", "application/pdf", DOCX, "application/rtf", "text/markdown",
                 "application/vnd.oasis.opendocument.text", "application/zip", "application/epub+zip"},
           SHEET: {XLSX, "application/pdf", "text/csv", "text/tab-separated-values", "application/zip",
                   "application/vnd.oasis.opendocument.spreadsheet"},
           SLIDES: {PPTX, "application/pdf", "text/plain", "application/vnd.oasis.opendocument.presentation"}}
READ_SCOPES = {"https://www.googleapis.com/auth/drive.readonly", "https://www.googleapis.com/auth/drive"}
FILE_FIELDS = {"kind", "id", "name", "mimeType", "parents", "trashed", "explicitlyTrashed", "md5Checksum", "version",
               "size", "modifiedTime", "createdTime", "webViewLink", "driveId", "lastModifyingUser", "owners",
               "permissions", "permissionIds", "capabilities", "headRevisionId", "description", "starred",
               "shared", "exportLinks"}
USER_FIELDS = {"kind", "displayName", "emailAddress", "permissionId", "photoLink", "me"}


def _error(status: int, reason: str, message: str, location: str = "") -> tuple:
    err = {"domain": "usageLimits" if "RateLimit" in reason or reason == "rateLimitExceeded" else "global",
           "reason": reason, "message": message, **({"location": location, "locationType": "parameter"}
                                                   if location else {})}
    return status, {"error": {"code": status, "message": message, "errors": [err]}}, {}


@dataclass
class Item:
    id: str
    name: str
    parent: str | None
    mime: str
    content: bytes = b""  # uploaded files: the bytes; Docs: HTML body; Sheets: JSON rows; Slides: JSON slides
    version: int = 1
    trashed: bool = False
    deleted: bool = False
    shared: bool = False  # shared with the service account (it then sees everything below, too)
    restricted: bool = False  # limited access: the inherited sharing no longer reaches it (nor what is below)
    drive: str | None = None  # a shared drive's id
    when: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z"))


@dataclass
class DriveStandIn:
    account: str = "docbot-reader@acme-docs.iam.gserviceaccount.com"
    requests: list[str] = field(default_factory=list)
    tokens_issued: int = 0
    down: bool = False
    export_limit: int = EXPORT_LIMIT
    shared_drives: set = field(default_factory=set)  # shared drive ids the account is a member of
    _tokens: dict = field(default_factory=dict)  # access token -> scopes
    _items: dict[str, Item] = field(default_factory=dict)
    _log: list[tuple[int, str]] = field(default_factory=list)
    _seq: itertools.count = field(default_factory=lambda: itertools.count(100))
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))
    _expired_below: int = 0
    _throttled: list[tuple[int, str]] = field(default_factory=list)
    _lock: threading.RLock = field(default_factory=threading.RLock)

    def __post_init__(self):
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.private_pem = self._key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                   serialization.NoEncryption()).decode()
        self.key_id = secrets.token_hex(20)
        self.my_drive = Item("0AMyDriveRoot", "My Drive", None, FOLDER)  # the owner's; the account cannot see it
        self._items[self.my_drive.id] = self.my_drive
        self._last = 0

    # The drive, as tests edit it (an owner sharing a folder with the service account)
    def _id(self) -> str:
        return f"1{secrets.token_hex(3)}{next(self._ids):04d}"

    def _changed(self, item: Item, below: bool = False) -> None:
        item.when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        self._last = next(self._seq)
        self._log.append((self._last, item.id))
        if below:  # the account's view of everything below changed too (shared or unshared)
            for child in self._children(item):
                self._changed(child, True)

    def _children(self, item: Item) -> list[Item]:
        return [i for i in self._items.values() if i.parent == item.id and not i.deleted]

    def share_folder(self, name: str, drive: str | None = None) -> Item:
        """A top-level folder the owner shares with the account (or, with `drive`, a shared drive's root)."""
        with self._lock:
            if drive is not None:
                self.shared_drives.add(drive)
                root = Item(drive, name, None, FOLDER, drive=drive)
                self._items[drive] = root
                return root
            folder = Item(self._id(), name, self.my_drive.id, FOLDER, shared=True)
            self._items[folder.id] = folder
            self._changed(folder)
            return folder

    def folder(self, path: str, root: Item) -> Item:
        with self._lock:
            parent = root
            for part in filter(None, path.split("/")):
                child = next((i for i in self._children(parent) if i.name == part and i.mime == FOLDER
                              and not i.trashed), None)
                if child is None:
                    child = Item(self._id(), part, parent.id, FOLDER, drive=root.drive)
                    self._items[child.id] = child
                    self._changed(child)
                parent = child
            return parent

    def find(self, path: str, root: Item) -> Item | None:
        *dirs, name = path.split("/")
        parent = self.folder("/".join(dirs), root)
        return next((i for i in self._children(parent) if i.name == name and not i.trashed), None)

    def write(self, path: str, content: bytes, root: Item, mime: str = "text/plain") -> Item:
        with self._lock:
            item = self.find(path, root)
            if item is None:
                *dirs, name = path.split("/")
                item = Item(self._id(), name, self.folder("/".join(dirs), root).id, mime, content, drive=root.drive)
                self._items[item.id] = item
            else:
                item.content, item.version = content, item.version + 2  # Drive's version grows by any step
            self._changed(item)
            return item

    def move(self, item: Item, new_path: str, root: Item) -> None:
        with self._lock:
            *dirs, name = new_path.split("/")
            item.parent, item.name = self.folder("/".join(dirs), root).id, name
            item.version += 1
            self._changed(item)  # a moved or renamed folder alone is reported

    def trash(self, item: Item) -> None:
        with self._lock:
            item.trashed, item.version = True, item.version + 1
            self._changed(item)

    def delete(self, item: Item) -> None:
        with self._lock:
            item.deleted = True
            self._changed(item)

    def unshare(self, item: Item) -> None:
        """The account loses access: a folder shared with it is unshared, anything else gets limited access."""
        with self._lock:
            if item.shared:
                item.shared = False
            else:
                item.restricted = True
            self._changed(item, below=True)

    def expire_page_tokens(self) -> None:
        """Every page token given out so far is refused from now on."""
        self._expired_below = self._last = next(self._seq)

    def throttle(self, *answers: tuple[int, str]) -> None:
        """The next requests are throttled: (429, "rateLimitExceeded"), (403, "userRateLimitExceeded"), ..."""
        self._throttled.extend(answers)

    # What the account sees
    def _visible(self, item: Item) -> bool:
        if item.deleted:
            return False
        node: Item | None = item
        while node is not None:
            if node.restricted:
                return False
            if node.shared or node.drive is not None and node.drive in self.shared_drives and node.drive == node.id:
                return True
            node = self._items.get(node.parent) if node.parent else None
        return False

    def _trashed(self, item: Item) -> bool:
        node: Item | None = item
        while node is not None:
            if node.trashed:
                return True
            node = self._items.get(node.parent) if node.parent else None
        return False

    # Serving
    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/drive/v3"

    @property
    def token_uri(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/token"

    def key_file(self, directory: Path | None = None, *, key: str | None = None) -> Path:
        """The service account's JSON key, as the Cloud console downloads it (token_uri pointing here)."""
        path = Path(directory or tempfile.mkdtemp(prefix="gdrive-standin-")) / "service-account.json"
        path.write_text(json.dumps({
            "type": "service_account", "project_id": "acme-docs", "private_key_id": self.key_id,
            "private_key": key or self.private_pem, "client_email": self.account, "client_id": "1045",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": self.token_uri,
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "universe_domain": "googleapis.com"}))
        return path

    def start(self) -> "DriveStandIn":
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, status, body, headers=None, raw: bytes | None = None, mime: str = ""):
                data = raw if raw is not None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", mime or ("application/octet-stream" if raw is not None
                                                          else "application/json; charset=UTF-8"))
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._answer(*standin.handle_get(self.path, self.headers.get("Authorization", "")))

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                self._answer(*standin.handle_token(self.path, self.rfile.read(length).decode()))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def handle_token(self, path: str, form: str) -> tuple:
        fields = {k: v[-1] for k, v in parse_qs(form).items()}
        if path != "/token":
            return 404, {"error": "not_found"}, {}
        if fields.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            return 400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type"}, {}
        try:
            claims = jwt.decode(fields.get("assertion", ""), self._key.public_key(), algorithms=["RS256"],
                                audience=GOOGLE_TOKEN_AUDIENCE, options={"require": ["iss", "aud", "iat", "exp"]})
            header = jwt.get_unverified_header(fields["assertion"])
        except (jwt.PyJWTError, KeyError):
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}, {}
        if claims.get("iss") != self.account or header.get("kid") not in (None, self.key_id):
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT: unknown issuer or key"}, {}
        if not 0 < claims["exp"] - claims["iat"] <= 3600 or claims["iat"] > time.time() + 300:
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT: Token must be a short-lived "
                                                                        "token (60 minutes)"}, {}
        scopes = set(str(claims.get("scope", "")).split())
        if not scopes:
            return 400, {"error": "invalid_scope", "error_description": "Invalid OAuth scope or ID token audience "
                                                                        "provided."}, {}
        token = "ya29.c." + secrets.token_urlsafe(24)
        self._tokens[token] = scopes
        self.tokens_issued += 1
        return 200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"}, {}

    def handle_get(self, raw: str, auth: str) -> tuple:
        parts = urlsplit(raw)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        path = unquote(parts.path)
        with self._lock:
            self.requests.append(f"GET {path}")
            if self.down:
                return _error(503, "backendError", "Service unavailable")
            if self._throttled:
                status, reason = self._throttled.pop(0)
                return _error(status, reason, "User rate limit exceeded." if reason.startswith("user")
                              else "Rate limit exceeded.")
            scopes = self._tokens.get(auth[7:]) if auth.startswith("Bearer ") else None
            if scopes is None:
                return _error(401, "authError", "Invalid Credentials", "Authorization")
            if not scopes & READ_SCOPES:
                return _error(403, "insufficientPermissions", "Insufficient Permission: Request had insufficient "
                                                              "authentication scopes.")
            if query.get("includeItemsFromAllDrives") == "true" and query.get("supportsAllDrives") != "true":
                return _error(403, "teamDrivesSupportRequired", "The includeItemsFromAllDrives parameter can only "
                              "be set to true when supportsAllDrives is also set to true.")
            if path == "/drive/v3/changes/startPageToken":
                return 200, {"kind": "drive#startPageToken", "startPageToken": str(self._last + 1)}, {}
            if path == "/drive/v3/changes":
                return self._changes(query)
            if path == "/drive/v3/files":
                return self._list(query)
            if path.startswith("/drive/v3/files/"):
                rest = path[len("/drive/v3/files/"):]
                file_id, _, verb = rest.partition("/")
                return self._file(file_id, verb, query)
            return _error(404, "notFound", f"no such method {path}")

    def _readable(self, item: Item, query: dict) -> bool:
        if not self._visible(item):
            return False
        return item.drive is None or query.get("supportsAllDrives") == "true"

    def _page(self, query: dict) -> int:
        size = int(query.get("pageSize", "100"))
        if not 1 <= size <= 1000:
            raise ValueError("pageSize")
        return min(size, PAGE)

    def _list(self, query: dict) -> tuple:
        try:
            page = self._page(query)
            selected = _fields(query.get("fields"), {"kind", "nextPageToken", "incompleteSearch", "files"},
                               {"files": FILE_FIELDS})
        except ValueError as bad:
            return _error(400, "invalidParameter", f"Invalid field selection {bad}", "fields")
        corpora = query.get("corpora", "user")
        if corpora == "drive" and not query.get("driveId"):
            return _error(400, "badRequest", "The driveId parameter must be specified if and only if corpora is "
                                             "set to drive.", "driveId")
        if query.get("q") not in (None, "trashed = false", "trashed=false"):
            return _error(400, "invalidParameter", "Invalid Value (this stand-in reads only trashed = false)", "q")
        all_drives = query.get("includeItemsFromAllDrives") == "true"
        ids = [i.id for i in self._items.values() if self._readable(i, query) and not self._trashed(i)
               and i.id not in self.shared_drives  # a shared drive's root is a drive, not a file
               and (i.drive is None and corpora != "drive" or i.drive is not None and all_drives
                    and (corpora == "allDrives" or corpora == "drive" and i.drive == query.get("driveId")))]
        start = int(query.get("pageToken", "0") or 0)
        body: dict = {"kind": "drive#fileList", "incompleteSearch": False,
                      "files": [self._json(self._items[i]) for i in ids[start:start + page]]}
        if start + page < len(ids):
            body["nextPageToken"] = str(start + page)
        return 200, _select(body, selected), {}

    def _changes(self, query: dict) -> tuple:
        token = query.get("pageToken")
        try:
            page = self._page(query)
            selected = _fields(query.get("fields"), {"kind", "nextPageToken", "newStartPageToken", "changes"},
                               {"changes": {"kind", "removed", "fileId", "file", "time", "changeType", "driveId",
                                            "drive", "type"}, "file": FILE_FIELDS})
        except ValueError as bad:
            return _error(400, "invalidParameter", f"Invalid field selection {bad}", "fields")
        if not token or not token.isdigit() or int(token) < self._expired_below or int(token) > self._last + 1:
            return _error(400, "invalid", "Invalid Value", "pageToken")
        since = int(token)
        entries = [(seq, i) for seq, i in self._log if seq >= since]
        if query.get("driveId"):
            entries = [(seq, i) for seq, i in entries if self._items[i].drive == query["driveId"]]
        elif query.get("includeItemsFromAllDrives") != "true":
            entries = [(seq, i) for seq, i in entries if self._items[i].drive is None]
        body: dict = {"kind": "drive#changeList", "changes": []}
        for _seq, item_id in entries[:page]:
            item = self._items[item_id]
            change: dict = {"kind": "drive#change", "changeType": "file", "fileId": item_id,
                            "time": item.when, "removed": not self._readable(item, query)}
            if not change["removed"]:
                change["file"] = self._json(item)
            body["changes"].append(change)
        if len(entries) > page:
            body["nextPageToken"] = str(entries[page][0])
        else:
            body["newStartPageToken"] = str(self._last + 1)
        return 200, _select(body, selected), {}

    def _file(self, file_id: str, verb: str, query: dict) -> tuple:
        item = self._items.get(file_id)
        if item is None or not self._readable(item, query):
            return _error(404, "notFound", f"File not found: {file_id}.", "fileId")
        if verb == "export":
            mime = query.get("mimeType", "")
            if item.mime not in EXPORTS:
                return _error(403, "fileNotExportable", "Export only supports Docs Editors files.")
            if mime not in EXPORTS[item.mime]:
                return _error(400, "badRequest", "The requested conversion is not supported.", "mimeType")
            data = _export(item, mime)
            if len(data) > self.export_limit:
                return _error(403, "exportSizeLimitExceeded", "This file is too large to be exported.")
            return 200, None, {}, data, mime
        if verb:
            return _error(404, "notFound", f"no such method files/{verb}")
        if query.get("alt") == "media":
            if item.mime.startswith("application/vnd.google-apps."):
                return _error(403, "fileNotDownloadable", "Only files with binary content can be downloaded. Use "
                                                          "Export with Docs Editors files.", "alt")
            return 200, None, {}, item.content
        try:
            selected = _fields(query.get("fields"), FILE_FIELDS, {})
        except ValueError as bad:
            return _error(400, "invalidParameter", f"Invalid field selection {bad}", "fields")
        return 200, _select(self._json(item), selected), {}

    def _json(self, item: Item) -> dict:
        out: dict = {"kind": "drive#file", "id": item.id, "name": item.name, "mimeType": item.mime,
                     "parents": [item.parent] if item.parent else [], "trashed": self._trashed(item),
                     "explicitlyTrashed": item.trashed, "version": str(item.version), "modifiedTime": item.when,
                     "createdTime": item.when, "lastModifyingUser": {"kind": "drive#user", "displayName": "Ana Lima",
                                                                     "emailAddress": "ana@acme.example"}}
        kind = {DOC: "document", SHEET: "spreadsheets", SLIDES: "presentation"}.get(item.mime)
        out["webViewLink"] = (f"https://docs.google.com/{kind}/d/{item.id}/edit?usp=drivesdk" if kind else
                              f"https://drive.google.com/file/d/{item.id}/view?usp=drivesdk"
                              if item.mime != FOLDER else f"https://drive.google.com/drive/folders/{item.id}")
        if item.drive:
            out["driveId"] = item.drive
        if not item.mime.startswith("application/vnd.google-apps."):
            out.update(size=str(len(item.content)), md5Checksum=hashlib.md5(item.content).hexdigest())
        return out


def _fields(spec: str | None, top: set[str], nested: dict[str, set[str]]) -> dict | None:
    """The partial-response selection `spec` as a tree ({name: subtree or None}); None: the defaults."""
    if spec is None:
        return None
    tree, _ = _parse(spec.replace(" ", ""), 0)
    _check(tree, top, nested)
    return tree


def _parse(spec: str, i: int) -> tuple[dict, int]:
    out: dict = {}
    name = ""
    while i < len(spec):
        c = spec[i]
        if c == ",":
            if name:
                _put(out, name, None)
            name, i = "", i + 1
        elif c == "(":
            sub, i = _parse(spec, i + 1)
            _put(out, name, sub)
            name = ""
        elif c == ")":
            if name:
                _put(out, name, None)
            return out, i + 1
        else:
            name, i = name + c, i + 1
    if name:
        _put(out, name, None)
    return out, i


def _put(out: dict, name: str, sub: dict | None) -> None:
    head, _, rest = name.partition("/")
    if rest:
        inner = out.setdefault(head, {}) or {}
        _put(inner, rest, sub)
        out[head] = inner
    else:
        out[head] = sub


def _check(tree: dict, allowed: set[str], nested: dict[str, set[str]]) -> None:
    for name, sub in tree.items():
        if name != "*" and name not in allowed:
            raise ValueError(name)
        if sub:
            inner = nested.get(name) or (FILE_FIELDS if name == "file" else USER_FIELDS
                                         if name == "lastModifyingUser" else set())
            _check(sub, inner, nested)


DEFAULTS = {"drive#file": {"kind", "id", "name", "mimeType"},
            "drive#change": {"kind", "removed", "fileId", "time", "changeType", "file", "driveId"}}


def _select(value, tree: dict | None):
    """`value` cut to the selection (or to Drive's default fields when no `fields` was given)."""
    if isinstance(value, list):
        return [_select(v, tree) for v in value]
    if not isinstance(value, dict):
        return value
    if tree is None:
        keep = DEFAULTS.get(value.get("kind", ""))
        return {k: _select(v, None) for k, v in value.items() if keep is None or k in keep}
    if "*" in tree:
        return value
    return {k: _select(value[k], sub) if sub else value[k] for k, sub in tree.items() if k in value}


def _export(item: Item, mime: str) -> bytes:
    """The exported bytes of a Google file: Docs' HTML, Sheets' XLSX, Slides' PPTX (others as text)."""
    if item.mime == DOC and mime == "text/html":
        body = item.content.decode()
        return (f'<html><head><meta content="text/html; charset=UTF-8" http-equiv="content-type">'
                f'<title>{item.name}</title></head><body class="doc-content">{body}</body></html>').encode()
    if item.mime == SHEET and mime == XLSX:
        from openpyxl import Workbook

        book = Workbook()
        sheet = book.active
        for row in json.loads(item.content):
            sheet.append(row)
        out = io.BytesIO()
        book.save(out)
        return out.getvalue()
    if item.mime == SLIDES and mime == PPTX:
        from pptx import Presentation

        deck = Presentation()
        for title, text in json.loads(item.content):
            slide = deck.slides.add_slide(deck.slide_layouts[1])
            slide.shapes.title.text = title
            slide.placeholders[1].text = text
        out = io.BytesIO()
        deck.save(out)
        return out.getvalue()
    return item.content
