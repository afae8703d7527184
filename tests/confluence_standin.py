"""A local Confluence (Cloud or Data Center) for the connector's tests, as strict as the documented service.

Served over real HTTP (a threaded server on port 0) so the connector's own client code runs unchanged.
Built from Atlassian's documentation (developer.atlassian.com/cloud/confluence/rest/v2/api-group-page,
.../rest/v1/api-group-content (content/search), .../advanced-searching-using-cql, .../rate-limiting;
the Data Center REST API on docs.atlassian.com/ConfluenceServer/rest):

- credentials: Cloud takes basic auth (account e-mail and API token), Data Center a bearer personal access
  token; anything else is a 401. A page restricted away from the caller is invisible: absent from CQL
  results and a 404 when read (Confluence answers 404, not 403, for content the user cannot see);
- `content/search` needs `cql`; only the grammar the connector uses is understood and anything else is a
  400 (as a CQL parse error is); results are paged by `limit` (capped at 100 here, lower than asked) and
  continue through `_links.next` (Cloud: an opaque `cursor`; Data Center: `start`), relative to `_links.base`;
  `version` and `space` are present only when expanded; trashed pages are not found;
- CQL dates are minutes in the calling user's time zone (this site's user is in Asia/Seoul, UTC+9);
- a rename bumps the page's version; a move to another space does not (Confluence keeps the version),
  so only a listing finds it;
- v2 `pages/{id}` takes `body-format` in {storage, atlas_doc_format, view} and returns the body only when
  asked; a trashed or restricted page is a 404;
- page restrictions (`expand=restrictions.read.restrictions.user,restrictions.read.restrictions.group`): the
  read restriction's users (Cloud: accountId, publicName and `email`, empty when the profile hides it; Data
  Center: username and userKey, no e-mail) and groups, present only when expanded; `ancestors` (expanded)
  lists the page's parents, root first. A view restriction holds for the pages below (Confluence inherits
  it): a page is readable by whoever every restricted level up to it lets in; restricted away from docbot's
  account it is invisible;
- throttling: `throttle(n, seconds)` answers the next n requests 429 with `Retry-After`; `down` answers 503.
"""
from __future__ import annotations

import base64
import html
import itertools
import json
import re
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

USER_TZ = timezone(timedelta(hours=9))
MAX_LIMIT = 100
BODY_FORMATS = {"storage", "atlas_doc_format", "view"}
_CQL = re.compile(r'type=page AND space in \(((?:"[^"]+",?)+)\)'
                  r'(?: AND lastmodified >= "(\d{4}/\d{2}/\d{2} \d{2}:\d{2})")? ORDER BY lastmodified')


@dataclass
class Page:
    id: str
    space: str
    title: str
    storage: str
    version: int = 1
    when: datetime = field(default_factory=lambda: datetime.now(UTC))
    status: str = "current"
    restricted: bool = False
    author: str = "Kim Minsu"
    parent: str | None = None  # the parent page's id
    readers: list[str] | None = None  # e-mails the read restriction names (None: no read restriction)
    reader_groups: list[str] = field(default_factory=list)
    hidden_emails: set = field(default_factory=set)  # readers whose profile hides their e-mail


@dataclass
class ConfluenceStandIn:
    edition: str = "cloud"
    email: str = "docbot@example.com"
    token: str = "api-token-7"
    pages: dict[str, Page] = field(default_factory=dict)
    down: bool = False
    requests: list[str] = field(default_factory=list)  # "GET /path" of every request received
    _throttled: list[float] = field(default_factory=list)
    _ids: itertools.count = field(default_factory=lambda: itertools.count(65537))
    _cursors: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # The site, as tests edit it
    def create(self, space: str, title: str, storage: str, **kw) -> Page:
        with self._lock:
            if any(p.space == space and p.title == title and p.status == "current" for p in self.pages.values()):
                raise ValueError(f"a page titled {title!r} already exists in {space}")
            page = Page(str(next(self._ids)), space, title, storage, **kw)
            self.pages[page.id] = page
            return page

    def edit(self, page: Page, storage: str | None = None, title: str | None = None) -> None:
        with self._lock:
            page.storage = storage if storage is not None else page.storage
            page.title = title if title is not None else page.title
            page.version += 1
            page.when = datetime.now(UTC)

    def move(self, page: Page, space: str) -> None:
        page.space = space  # Confluence keeps the version and the modification date on a move

    def trash(self, page: Page) -> None:
        page.status = "trashed"

    def throttle(self, n: int, seconds: float) -> None:
        self._throttled.extend([seconds] * n)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}" + ("/wiki" if self.edition == "cloud" else "/confluence")

    def start(self) -> "ConfluenceStandIn":
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet test output
                pass

            def do_GET(self):
                status, body, headers = standin.handle(self.path, self.headers.get("Authorization", ""))
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # The API
    def handle(self, raw_path: str, auth: str) -> tuple[int, dict, dict]:
        parts = urlsplit(raw_path)
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        self.requests.append(f"GET {parts.path}")
        if self.down:
            return 503, {"statusCode": 503, "message": "Service Unavailable"}, {}
        if self._throttled:
            wait = self._throttled.pop(0)
            return 429, {"statusCode": 429, "message": "Rate limit exceeded"}, {"Retry-After": str(int(wait))}
        if not self._authorised(auth):
            return 401, {"statusCode": 401, "message": "Client must be authenticated to access this resource."}, {}
        prefix = "/wiki" if self.edition == "cloud" else "/confluence"
        if not parts.path.startswith(prefix + "/"):
            return 404, {"statusCode": 404, "message": "not found"}, {}
        path = parts.path[len(prefix):]
        if path == "/rest/api/content/search":
            return self._search(query)
        if m := re.fullmatch(r"/api/v2/pages/(\d+)", path):
            if self.edition != "cloud":
                return 404, {"statusCode": 404, "message": "null for uri"}, {}
            return self._page_v2(m.group(1), query)
        if m := re.fullmatch(r"/rest/api/content/(\d+)", path):
            if self.edition == "cloud":  # removed from Cloud's v1 in favour of v2 pages
                return 410, {"statusCode": 410, "message": "This endpoint has been deprecated"}, {}
            return self._content_v1(m.group(1), query)
        return 404, {"statusCode": 404, "message": f"no resource {path}"}, {}

    def _authorised(self, auth: str) -> bool:
        if self.edition == "cloud":
            return auth == "Basic " + base64.b64encode(f"{self.email}:{self.token}".encode()).decode()
        return auth == f"Bearer {self.token}"

    def _visible(self) -> list[Page]:
        return [p for p in self.pages.values() if p.status == "current" and not p.restricted and self._readable(p)]

    def _ancestors(self, p: Page) -> list[Page]:
        out, node = [], p
        while node.parent is not None and node.parent in self.pages and len(out) < 50:
            node = self.pages[node.parent]
            out.append(node)
        return out[::-1]

    def _readable(self, p: Page) -> bool:
        """docbot's account reads a page when every level's read restriction (inherited) lets it in."""
        return all(level.readers is None and not level.reader_groups or self.email in (level.readers or [])
                   for level in [*self._ancestors(p), p])

    def restrict(self, page: Page, readers: list[str] | None, groups: list[str] | None = None) -> None:
        """Set a page's read restriction (docbot's account must be among `readers` to keep reading it)."""
        page.readers, page.reader_groups = readers, list(groups or [])

    def _search(self, query: dict) -> tuple[int, dict, dict]:
        cql = query.get("cql")
        if not cql:
            return 400, {"statusCode": 400, "message": "CQL query parameter is required"}, {}
        m = _CQL.fullmatch(cql)
        if not m:
            return 400, {"statusCode": 400, "message": f"Could not parse cql : {cql}"}, {}
        spaces = set(re.findall(r'"([^"]+)"', m.group(1)))
        found = [p for p in self._visible() if p.space in spaces]
        if m.group(2):  # minutes, in the user's time zone, inclusive
            since = datetime.strptime(m.group(2), "%Y/%m/%d %H:%M").replace(tzinfo=USER_TZ)
            found = [p for p in found if p.when.replace(second=0, microsecond=0) >= since]
        found.sort(key=lambda p: (p.when, p.id))
        limit = min(int(query.get("limit", 25)), MAX_LIMIT)
        if "cursor" in query:
            start = self._cursors.get(query["cursor"])
            if start is None:
                return 400, {"statusCode": 400, "message": "invalid cursor"}, {}
        else:
            start = int(query.get("start", 0))
        expand = set(filter(None, query.get("expand", "").split(",")))
        chunk = found[start:start + limit]
        body: dict = {"results": [self._content(p, expand) for p in chunk], "start": start, "limit": limit,
                      "size": len(chunk), "_links": {"base": self.base, "context": urlsplit(self.base).path}}
        if start + limit < len(found):
            following = {k: v for k, v in query.items() if k not in ("cursor", "start")}
            if self.edition == "cloud":
                token = base64.urlsafe_b64encode(f"cursor-{start + limit}-{len(self._cursors)}".encode()).decode()
                self._cursors[token] = start + limit
                following.update({"next": "true", "cursor": token})
            else:
                following["start"] = str(start + limit)
            body["_links"]["next"] = "/rest/api/content/search?" + urlencode(following)
        return 200, body, {}

    def _content(self, p: Page, expand: set[str]) -> dict:
        webui = f"/spaces/{p.space}/pages/{p.id}/{p.title.replace(' ', '+')}" if self.edition == "cloud" \
            else f"/display/{p.space}/{p.title.replace(' ', '+')}"
        item: dict = {"id": p.id, "type": "page", "status": p.status, "title": p.title,
                      "_links": {"webui": webui, "self": f"{self.base}/rest/api/content/{p.id}"},
                      "_expandable": {}}
        if "version" in expand:
            item["version"] = {"number": p.version, "when": p.when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                               "by": {"type": "known", "displayName": p.author}}
        if "space" in expand:
            item["space"] = {"key": p.space, "name": p.space.title(), "type": "global"}
        wanted = {e for e in expand if e.startswith("restrictions")}
        if wanted:
            restrictions: dict = {}
            if "restrictions.read.restrictions.user" in wanted:
                users = [self._user(email, p) for email in p.readers or []]
                restrictions["user"] = {"results": users, "start": 0, "limit": 200, "size": len(users)}
            if "restrictions.read.restrictions.group" in wanted:
                groups = [{"type": "group", "name": g, "id": f"g-{g}"} for g in p.reader_groups]
                restrictions["group"] = {"results": groups, "start": 0, "limit": 200, "size": len(groups)}
            item["restrictions"] = {"read": {"operation": "read", "restrictions": restrictions, "_expandable": {}}}
        if "ancestors" in expand:
            item["ancestors"] = [{"id": a.id, "type": "page", "status": a.status, "title": a.title}
                                 for a in self._ancestors(p)]
        return item

    def _user(self, email: str, p: Page) -> dict:
        name = email.split("@")[0]
        if self.edition == "cloud":
            return {"type": "known", "accountId": f"5b10ac8d82e05b22cc7d{abs(hash(email)) % 10_000:04d}",
                    "accountType": "atlassian", "email": "" if email in p.hidden_emails else email,
                    "publicName": name, "displayName": name.title()}
        return {"type": "known", "username": name, "userKey": f"8a8b{abs(hash(email)) % 10_000:04d}",
                "displayName": name.title()}

    def _page_v2(self, page_id: str, query: dict) -> tuple[int, dict, dict]:
        fmt = query.get("body-format")
        if fmt is not None and fmt not in BODY_FORMATS:
            return 400, {"errors": [{"status": 400, "code": "INVALID_REQUEST_PARAMETER",
                                     "title": f"Invalid body-format {fmt}"}]}, {}
        p = self.pages.get(page_id)
        if p is None or p.status != "current" or p.restricted or not self._readable(p):
            return 404, {"errors": [{"status": 404, "code": "NOT_FOUND", "title": "Not Found"}]}, {}
        item = {"id": p.id, "status": p.status, "title": p.title, "spaceId": str(abs(hash(p.space)) % 10**6),
                "authorId": "5b10ac8d82e05b22cc7d4ef5",
                "version": {"number": p.version, "createdAt": p.when.isoformat(), "authorId": "5b10ac8d82e05b22cc7d4ef5"},
                "body": {}, "_links": {"webui": f"/spaces/{p.space}/pages/{p.id}", "base": self.base}}
        if fmt == "storage":
            item["body"] = {"storage": {"representation": "storage", "value": p.storage}}
        return 200, item, {}

    def _content_v1(self, page_id: str, query: dict) -> tuple[int, dict, dict]:
        p = self.pages.get(page_id)
        if p is None or p.status != "current" or p.restricted or not self._readable(p):
            return 404, {"statusCode": 404, "message": f"No content found with id: ContentId{{id={page_id}}}"}, {}
        expand = set(filter(None, query.get("expand", "").split(",")))
        item = self._content(p, expand)
        if "body.storage" in expand:
            item["body"] = {"storage": {"value": p.storage, "representation": "storage"}}
        return 200, item, {}


def storage_of(markdown: str) -> str:
    """A small Markdown text as Confluence storage format (headings and paragraphs, XHTML)."""
    out = []
    for block in filter(None, (b.strip() for b in markdown.split("\n\n"))):
        if block.startswith("# "):
            out.append(f"<h1>{html.escape(block[2:])}</h1>")
        else:
            out.append(f"<p>{html.escape(block)}</p>")
    return "".join(out)
