"""Confluence (Cloud and Data Center/Server): the pages of chosen spaces, as their storage-format HTML.

What changed comes from CQL (`lastmodified >= …`, the REST `content/search` both editions share); what left
(trashed, purged, restricted away from docbot's user, moved to a space not configured) comes from a listing
pass, because neither edition has a change feed that reports deletions. The listing is metadata only
(ids, titles, spaces, version numbers; 200 a request) and runs every `listing_every` runs (1: every run, so
deletions reach the index on the next run; raise it on a large wiki to make most runs cost one request).

A page's path is `<SPACE KEY>/<title>.html`: readable in citations and `docbot sources`, and a rename or a
move to another space is the old path deleted and the new one indexed. The cursor holds the newest
modification seen and every indexed page's id and path (about 50 bytes a page), so a rename or move CQL
reports deletes the old path at once, without waiting for the listing pass. A page's version is its id and
version number: an unchanged page is never downloaded again. Bodies are read one page at a time, only for
pages the index does not hold at that version (Cloud: REST v2 `pages/{id}?body-format=storage`; Data
Center: `content/{id}?expand=body.storage`), then read by the HTML loader.
"""
from __future__ import annotations

import base64
import html
import json
import logging
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal
from urllib.parse import quote

from rag.documents import Metadata
from rag.errors import ConfigurationError, DocumentError, SourceUnavailable
from rag.ingest.connectors.base import Changes
from rag.ingest.connectors.http import HttpClient, NotFound
from rag.ingest.loaders import MAX_FILE_BYTES
from rag.ingest.sources import SourceFile
from rag.resilience import RetryPolicy

log = logging.getLogger(__name__)

_SPACE_KEY = re.compile(r"~?[A-Za-z0-9_]+")  # space keys are letters and digits; personal spaces start with ~
PAGE_SIZE = 200  # results a listing or CQL request asks for (Confluence caps lower limits itself)
_EPOCH = "1970-01-01T00:00:00.000Z"


@dataclass
class ConfluenceSource:
    """Pages of `spaces` on one Confluence site (`base_url`: `https://acme.atlassian.net/wiki` on Cloud, the
    server's root with its context path on Data Center). Credentials: Cloud an account `email` and API
    token (basic auth); Data Center a personal access token (bearer). Both read only what that user can read."""

    base_url: str
    spaces: list[str]
    edition: Literal["cloud", "datacenter"] = "cloud"
    name: str = ""
    visibility: frozenset[str] | None = None
    email: str = ""
    token: str = field(default="", repr=False)
    listing_every: int = 1
    permissions: bool = False  # store each page's readers (its read restrictions, inherited) per document
    overlap: timedelta = timedelta(days=1)  # CQL dates are minutes in the API user's own time zone
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    max_retry_after: float = 120.0
    sleep: Any = None  # injectable wait (tests count waits instead of sleeping)
    kind: str = "confluence"
    complete: bool = True
    http: HttpClient = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")
        if "@" in self.base_url.split("://", 1)[-1].split("/", 1)[0]:
            raise ConfigurationError("a Confluence source's base_url must not hold credentials: set token_env or "
                                     "token_file (and email on Cloud)")
        if not self.spaces or not all(_SPACE_KEY.fullmatch(k) for k in self.spaces):
            raise ConfigurationError(f"a Confluence source needs space keys (letters and digits), got {self.spaces}")
        if self.edition == "cloud" and self.token and not self.email:
            raise ConfigurationError("a Confluence Cloud source needs `email` with its API token (basic auth)")
        if self.listing_every < 1:
            raise ConfigurationError("listing_every must be at least 1")
        if self.permissions and self.listing_every != 1:
            raise ConfigurationError("a Confluence source with permissions lists every page every run (a "
                                     "restriction changes no page's version or date): leave listing_every at 1")
        self.name = self.name or "confluence"
        extra = {"sleep": self.sleep} if self.sleep else {}
        self.http = HttpClient(self.base_url, "Confluence", self._headers, self.policy, self.max_retry_after, **extra)

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.token and self.edition == "cloud":
            basic = base64.b64encode(f"{self.email}:{self.token}".encode()).decode()
            headers["Authorization"] = f"Basic {basic}"
        elif self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    @property
    def key(self) -> str:
        return f"confluence:{self.base_url}#{','.join(sorted(self.spaces))}"

    @property
    def fingerprint(self) -> str:
        return repr((self.edition, sorted(self.spaces), self.permissions))

    def files(self) -> list[SourceFile]:
        return self.changes(None).changed

    # The cursor: "<newest modification seen>|<runs since the listing pass>|<{page id: path} as JSON>".
    @staticmethod
    def _parse(cursor: str | None) -> tuple[str, int, dict[str, str]] | None:
        if not cursor:
            return None
        try:
            since, runs, pages = cursor.split("|", 2)
            return since, int(runs), dict(json.loads(pages))
        except (ValueError, TypeError):
            log.warning("Confluence source: unreadable cursor; listing every page again")
            return None

    def changes(self, cursor: str | None) -> Changes:
        before = self.http.requests
        state = self._parse(cursor)
        if state is None or state[1] + 1 >= self.listing_every:
            changed, deleted, pages, newest = self._listing(state[2] if state else {})
            complete, runs = True, 0
        else:
            since, runs, pages = state
            changed, deleted, pages, newest = self._since(since, pages)
            complete, runs = False, runs + 1
        if state and state[0] > newest:
            newest = state[0]
        return Changes(f"{newest}|{runs}|{json.dumps(pages, separators=(',', ':'), ensure_ascii=False)}",
                       changed, deleted, complete, self.http.requests - before)

    def _cql(self, extra: str = "") -> str:
        keys = ",".join(f'"{k}"' for k in sorted(self.spaces))
        return f"type=page AND space in ({keys}){extra} ORDER BY lastmodified"

    def _listing(self, known: dict[str, str]) -> tuple[list[SourceFile], list[str], dict[str, str], str]:
        """Every readable page of the spaces: the index drops whatever is not among them."""
        found = list(self._search(self._cql()))
        pages: dict[str, str] = {}
        readers = _readers(found) if self.permissions else {}
        files = [self._file(page, pages, readers.get(str(page["id"]))) for page in found]
        newest = max((_when(p) for p in found), default=_EPOCH)
        return sorted(files, key=lambda f: f.path), [], pages, newest

    def _since(self, since: str, known: dict[str, str]) -> tuple[list[SourceFile], list[str], dict[str, str], str]:
        """Pages modified since the cursor (with an overlap: CQL compares minutes in the user's time zone)."""
        start = datetime.fromisoformat(since.replace("Z", "+00:00")) - self.overlap
        found = list(self._search(self._cql(f' AND lastmodified >= "{start:%Y/%m/%d %H:%M}"')))
        pages = dict(known)
        files, deleted = [], []
        for page in found:
            pages.pop(str(page["id"]), None)  # its own old path must not count as taken
            f = self._file(page, pages)
            old = known.get(str(page["id"]))
            if old and old != f.path:
                deleted.append(old)  # renamed or moved: the old path leaves now, not at the next listing
            files.append(f)
        newest = max((_when(p) for p in found), default=since)
        return sorted(files, key=lambda f: f.path), sorted(set(deleted) - {f.path for f in files}), pages, newest

    def _search(self, cql: str):
        """CQL content search, following `_links.next` (Cloud pages with a cursor, Data Center with start)."""
        api = "/rest/api"
        expand = "version,space" + (f",{RESTRICTIONS},ancestors" if self.permissions else "")
        body = self.http.get_json(f"{api}/content/search", {"cql": cql, "limit": PAGE_SIZE, "expand": expand})
        while True:
            yield from body.get("results") or []
            links = body.get("_links") or {}
            following = links.get("next")
            if not following:
                return
            # v1 links are relative to the site's base (which holds /wiki on Cloud and any context path).
            url = following if "://" in following else (links.get("base") or self.base_url).rstrip("/") + following
            body = self.http.get_json(url)

    def _file(self, page: dict, taken: dict[str, str], readers: frozenset[str] | None = None) -> SourceFile:
        page_id = str(page["id"])
        space = ((page.get("space") or {}).get("key")) or "?"
        title = page.get("title") or page_id
        path = f"{space}/{title.replace('/', '∕')}.html"  # a slash in a title is not a folder
        if path in taken.values():  # two pages with one title (Cloud allows it): the later one is told apart
            path = f"{space}/{title.replace('/', '∕')} ({page_id}).html"
        taken[page_id] = path
        version = page.get("version") or {}
        if not version.get("number"):
            raise SourceUnavailable("Confluence answered a search without page versions (expand=version ignored)")
        webui = (page.get("_links") or {}).get("webui") or ""
        meta = Metadata(title=title, author=((version.get("by") or {}).get("displayName") or ""),
                        updated=(version.get("when") or "")[:10],
                        url=f"{self.base_url}{webui}" if webui.startswith("/") else webui)
        return SourceFile(path, lambda: self._body(page_id, title, path), meta=meta,
                          version=f"confluence:{page_id}:{version['number']}", principals=readers)

    def _body(self, page_id: str, title: str, path: str) -> bytes:
        try:
            if self.edition == "cloud":
                page = self.http.get_json(f"/api/v2/pages/{quote(page_id)}", {"body-format": "storage"})
            else:
                page = self.http.get_json(f"/rest/api/content/{quote(page_id)}", {"expand": "body.storage,version"})
        except NotFound:
            raise DocumentError(path, "the page is gone or no longer readable (it leaves at the next listing)") from None
        storage = ((page.get("body") or {}).get("storage") or {}).get("value")
        if storage is None:
            raise SourceUnavailable("Confluence answered a page without its storage body")
        document = (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title></head>"
                    f"<body><main>{storage}</main></body></html>").encode()
        if len(document) > MAX_FILE_BYTES:
            raise DocumentError(path, f"page is {len(document) // 1_048_576} MB (limit {MAX_FILE_BYTES // 1_048_576} MB)")
        return document


RESTRICTIONS = "restrictions.read.restrictions.user,restrictions.read.restrictions.group"


def _own_readers(page: dict) -> frozenset[str] | None:
    """Who a page's own read restriction lets in, by e-mail; None when it has none. Users whose e-mail
    Confluence does not show (a hidden profile; Data Center, whose user objects carry none) and groups
    (not expanded to members) are left out: a restricted page is shown to fewer people, never to more."""
    read = ((page.get("restrictions") or {}).get("read") or {}).get("restrictions") or {}
    users = (read.get("user") or {}).get("results") or []
    groups = (read.get("group") or {}).get("results") or []
    if not users and not groups:
        return None
    return frozenset(str(u.get("email")).lower() for u in users if u.get("email"))


def _readers(found: list[dict]) -> dict[str, frozenset[str] | None]:
    """Each listed page's readers: the intersection of its own and its ancestors' read restrictions
    (Confluence inherits view restrictions); None for a page no level restricts."""
    own = {str(p["id"]): _own_readers(p) for p in found}
    out: dict[str, frozenset[str] | None] = {}
    for page in found:
        page_id = str(page["id"])
        levels = [str(a.get("id")) for a in page.get("ancestors") or []] + [page_id]
        allowed: frozenset[str] | None = None
        for level in levels:
            here = own.get(level)
            if here is not None:
                allowed = here if allowed is None else allowed & here
        out[page_id] = allowed
    return out


def _when(page: dict) -> str:
    """The page's last modification as a UTC ISO string (comparable as text)."""
    raw = ((page.get("version") or {}).get("when")) or ""
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return _EPOCH
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
