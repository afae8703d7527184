"""A local Microsoft Graph drive (SharePoint document library / OneDrive) and Entra token endpoint for the
connector's tests, as strict as the documented service, served over real HTTP (the token endpoint over
HTTPS with a self-signed certificate, because msal accepts only https authorities).

From learn.microsoft.com/graph/api/driveitem-delta, .../driveitem-get-content, .../resources/driveitem,
/graph/throttling and /entra/identity-platform/v2-oauth2-client-creds-grant-flow:
- every Graph call needs `Authorization: Bearer <token>` issued by the token endpoint (401
  `InvalidAuthenticationToken` otherwise); the token endpoint takes only the client-credentials grant with
  the right client id and secret (401 `invalid_client`) and the scope `https://graph.microsoft.com/.default`
  (400 `invalid_scope`);
- `root/delta` enumerates the drive in pages (`@odata.nextLink`) ending with an `@odata.deltaLink`; called
  with that link it returns the latest state of each item changed since, deleted items with only their id
  and a `deleted` facet; `parentReference` never carries `path`; renaming or moving a folder reports the
  folder only, not what is inside it; a token that expired is a 410 Gone with `resyncChangesApplyDifferences`
  and a `Location` header;
- `items/{id}/content` answers 302 with a pre-authenticated URL that must be fetched without credentials;
- throttling is a 429 with `Retry-After`; `down` answers 503;
- `items/{id}/permissions` (learn.microsoft.com/graph/api/driveitem-list-permissions, /resources/permission):
  an item without permissions of its own lists its nearest ancestor's (the library root's site groups at
  the top), each with `inheritedFrom` naming that ancestor; people as `grantedToV2.user` with `email`,
  SharePoint groups as `grantedToV2.siteGroup`, sharing links with `link.scope` and
  `grantedToIdentitiesV2`. A sharing change is reported by delta only to a caller whose `Prefer` header
  holds `deltashowsharingchanges`, the file annotated `@microsoft.graph.sharedChanged`; a folder's sharing
  change reports the folder alone.
- site pages (learn.microsoft.com/graph/api/sitepage-list, .../sitepage-get, /resources/sitepage,
  /resources/canvaslayout, /resources/horizontalsectioncolumn, /resources/textwebpart): `GET
  /sites/{site-id}/pages/microsoft.graph.sitePage` lists every page, in pages (`@odata.nextLink`), sorted by
  name, each with `eTag`, `name`, `title`, `webUrl` relative to the site (as in the docs' example),
  `lastModifiedDateTime`, `createdBy`/`lastModifiedBy` and `publishingState` (`draft` with a minor
  `versionId` while edits are unpublished, `published` with a major one); `GET
  .../pages/{page-id}/microsoft.graph.sitePage` answers one page, with its `canvasLayout` (horizontal
  sections -> columns -> webparts; text web parts carry `innerHtml`) only under `$expand=canvasLayout`; an
  unknown page or site is 404 `itemNotFound`. Pages need the application permission `Sites.Read.All` (or
  `Sites.ReadWrite.All`; the docs list no `Sites.Selected` for them): a token without it gets 403
  `accessDenied`. `GET /sites/{site-id}` answers the site with its absolute `webUrl`, and
  `/sites/{site-id}/drive/...` is the site's default library (the drive).
"""
from __future__ import annotations

import base64
import datetime as dt
import itertools
import json
import secrets
import ssl
import tempfile
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

PAGE = 4  # items a delta page holds (small, so every test crosses pages)
SCOPE = "https://graph.microsoft.com/.default"


@dataclass
class Item:
    id: str
    name: str
    parent: str | None
    folder: bool
    content: bytes = b""
    version: int = 1
    deleted: bool = False
    when: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    grants: list | None = None  # permissions of its own (inheritance broken); None: inherits its parent's


@dataclass
class Page:
    id: str
    name: str
    title: str
    parts: list[str]  # the text web parts' innerHtml, one column each
    version: int = 1
    when: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    published: int = 0  # the last published major version (0: never published)
    draft: bool = False  # edits since it was last published


@dataclass
class GraphStandIn:
    tenant: str = "contoso-tenant"
    client_id: str = "11111111-2222-3333-4444-555555555555"
    secret: str = "client-secret-value"
    drive_id: str = "b!drive1"
    site_id: str = "contoso.sharepoint.com,1a2b3c4d-0000-4000-8000-000000000001,5e6f7a8b-0000-4000-8000-000000000002"
    roles: frozenset = frozenset({"Sites.Read.All"})  # the app's application permissions, stamped on each token
    down: bool = False
    requests: list[str] = field(default_factory=list)
    tokens_issued: int = 0
    _tokens: set = field(default_factory=set)
    _items: dict[str, Item] = field(default_factory=dict)
    _log: list[tuple[int, str]] = field(default_factory=list)  # (sequence, item id) of every change
    _seq: itertools.count = field(default_factory=lambda: itertools.count(1))
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1000))
    _expired_before: int = 0
    _throttled: list[float] = field(default_factory=list)
    _downloads: dict[str, str] = field(default_factory=dict)  # tempauth -> item id
    _sharing: set = field(default_factory=set)  # log sequence numbers that are sharing changes only
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _pages: dict[str, Page] = field(default_factory=dict)
    _token_roles: dict = field(default_factory=dict)

    def __post_init__(self):
        self.root = Item("root-id", "root", None, True)
        self._items[self.root.id] = self.root

    # The drive, as tests edit it
    def _changed(self, item: Item) -> None:
        item.when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self._log.append((next(self._seq), item.id))

    def folder(self, path: str) -> Item:
        with self._lock:
            parent = self.root
            for part in filter(None, path.split("/")):
                child = next((i for i in self._items.values() if i.parent == parent.id and i.name == part
                              and not i.deleted), None)
                if child is None:
                    child = Item(f"F{next(self._ids)}", part, parent.id, True)
                    self._items[child.id] = child
                    self._changed(child)
                parent = child
            return parent

    def find(self, path: str) -> Item | None:
        *dirs, name = path.split("/")
        parent = self.folder("/".join(dirs))
        return next((i for i in self._items.values() if i.parent == parent.id and i.name == name and not i.deleted), None)

    def write(self, path: str, content: bytes) -> Item:
        with self._lock:
            item = self.find(path)
            if item is None:
                *dirs, name = path.split("/")
                item = Item(f"I{next(self._ids)}", name, self.folder("/".join(dirs)).id, False, content)
                self._items[item.id] = item
            else:
                item.content, item.version = content, item.version + 1
            self._changed(item)
            return item

    def move(self, item: Item, new_path: str) -> None:
        with self._lock:
            *dirs, name = new_path.split("/")
            item.parent, item.name = self.folder("/".join(dirs)).id, name
            self._changed(item)  # a moved or renamed folder alone is reported, not its children

    def delete(self, item: Item) -> None:
        with self._lock:
            item.deleted = True
            self._changed(item)  # a deleted folder alone is reported

    def share(self, item: Item, people: list[str] | None, link: str | None = None) -> None:
        """Give the item permissions of its own (read for `people`, or a sharing link of scope `link`), or
        restore inheritance (None). A sharing change, not a content change: no new cTag."""
        with self._lock:
            if people is None and link is None:
                item.grants = None
            else:
                item.grants = [{"id": f"p{n}", "roles": ["read"], "grantedToV2": {"user": {
                    "@odata.type": "#microsoft.graph.sharePointIdentity", "displayName": p.split("@")[0].title(),
                    "email": p, "id": f"u-{p}"}}} for n, p in enumerate(people or [])]
                if link:
                    item.grants.append({"id": "plink", "roles": ["read"], "link": {"scope": link, "type": "view",
                                        "webUrl": f"https://contoso.sharepoint.com/:w:/s/handbook/{item.id}"},
                                        "grantedToIdentitiesV2": []})
            self._log.append((next(self._seq), item.id))
            self._sharing.add(self._log[-1][0])

    # The site's pages, as tests edit them
    def write_page(self, name: str, title: str, *parts: str, publish: bool = True) -> Page:
        """Create the page `name` (e.g. "Leave.aspx") or replace its title and text web parts (a new version),
        published or left a draft (`publishingState.level` "draft", a minor version)."""
        with self._lock:
            page = next((p for p in self._pages.values() if p.name == name), None)
            if page is None:
                page = Page(f"{next(self._ids):08x}-6c58-4df2-afc0-ab6327d5b202", name, title, list(parts))
                self._pages[page.id] = page
            else:
                page.title, page.parts, page.version = title, list(parts), page.version + 1
                page.when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            if publish:
                page.published += 1
            page.draft = not publish
            return page

    def delete_page(self, name: str) -> None:
        with self._lock:
            self._pages = {k: p for k, p in self._pages.items() if p.name != name}

    def expire_delta_tokens(self) -> None:
        self._expired_before = next(self._seq)

    def throttle(self, n: int, seconds: float) -> None:
        self._throttled.extend([seconds] * n)

    # Serving
    @property
    def graph_url(self) -> str:
        return f"http://127.0.0.1:{self.graph.server_address[1]}/v1.0"

    @property
    def login_url(self) -> str:
        return f"https://localhost:{self.login.server_address[1]}"

    def start(self) -> "GraphStandIn":
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, status, body, headers=None, raw: bytes | None = None):
                data = raw if raw is not None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream" if raw is not None else "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._answer(*standin.handle_get(self.path, self.headers.get("Authorization", ""),
                                                 self.headers.get("Prefer", "")))

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                self._answer(*standin.handle_token(self.path, self.rfile.read(length).decode()))

        self.graph = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.login = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.cert = _self_signed()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.cert)
        self.login.socket = context.wrap_socket(self.login.socket, server_side=True)
        for server in (self.graph, self.login):
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        for server in (self.graph, self.login):
            server.shutdown()
            server.server_close()

    def handle_token(self, path: str, form: str) -> tuple:
        fields = {k: v[-1] for k, v in parse_qs(form).items()}
        if path != f"/{self.tenant}/oauth2/v2.0/token":
            return 404, {"error": "not_found"}, {}
        if fields.get("grant_type") != "client_credentials":
            return 400, {"error": "unsupported_grant_type"}, {}
        if fields.get("client_id") != self.client_id or fields.get("client_secret") != self.secret:
            return 401, {"error": "invalid_client", "error_description": "AADSTS7000215: Invalid client secret provided.",
                         "error_codes": [7000215]}, {}
        if fields.get("scope", "").split() != [SCOPE]:
            return 400, {"error": "invalid_scope", "error_codes": [1002012]}, {}
        token = "eyJ0eXAi." + secrets.token_urlsafe(16)
        self._tokens.add(token)
        self._token_roles[token] = frozenset(self.roles)
        self.tokens_issued += 1
        return 200, {"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": token}, {}

    def handle_get(self, raw: str, auth: str, prefer: str = "") -> tuple:
        parts = urlsplit(raw)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        path = parts.path
        if path == f"/{self.tenant}/v2.0/.well-known/openid-configuration":  # msal's discovery of the authority
            base = f"{self.login_url}/{self.tenant}"
            return 200, {"token_endpoint": f"{base}/oauth2/v2.0/token", "issuer": f"{base}/v2.0",
                         "authorization_endpoint": f"{base}/oauth2/v2.0/authorize"}, {}
        self.requests.append(f"GET {path}")
        if path.startswith("/download/"):  # the pre-authenticated URL: no credentials wanted or accepted
            item_id = self._downloads.get(query.get("tempauth", ""))
            if auth or item_id is None:
                return 401, {"error": {"code": "unauthenticated"}}, {}
            return 200, None, {}, self._items[item_id].content
        if self.down:
            return 503, {"error": {"code": "serviceNotAvailable", "message": "Service unavailable"}}, {}
        if self._throttled:
            return 429, {"error": {"code": "activityLimitReached", "message": "throttled"}}, \
                {"Retry-After": str(int(self._throttled.pop(0)))}
        if not auth.startswith("Bearer ") or auth[7:] not in self._tokens:
            return 401, {"error": {"code": "InvalidAuthenticationToken", "message": "Access token is empty."}}, {}
        site = f"/v1.0/sites/{self.site_id}"
        if path.startswith(f"{site}/drive/"):  # the site's default document library
            path = f"/v1.0/drives/{self.drive_id}/" + path[len(site) + 7:]
        elif path == site:
            return 200, {"id": self.site_id, "name": "handbook", "displayName": "Handbook",
                         "webUrl": "https://contoso.sharepoint.com/sites/handbook"}, {}
        elif path.startswith(f"{site}/pages/") or path.startswith("/v1.0/sites/") and "/pages/" in path:
            if not {"Sites.Read.All", "Sites.ReadWrite.All"} & self._token_roles.get(auth[7:], frozenset()):
                return 403, {"error": {"code": "accessDenied", "message": "Access denied"}}, {}
            if not path.startswith(f"{site}/pages/"):
                return 404, {"error": {"code": "itemNotFound", "message": "Requested site could not be found"}}, {}
            return self._page_get(path[len(site) + 7:], query)
        prefix = f"/v1.0/drives/{self.drive_id}"
        if path == f"{prefix}/root/delta":
            return self._delta(query, "deltashowsharingchanges" in [p.strip() for p in prefer.split(",")])
        if path.startswith(f"{prefix}/items/") and path.endswith("/permissions"):
            item = self._items.get(path[len(prefix) + 7:-12])
            if item is None or item.deleted:
                return 404, {"error": {"code": "itemNotFound", "message": "The resource could not be found."}}, {}
            return 200, {"value": self._permissions(item)}, {}
        if path.startswith(f"{prefix}/items/") and path.endswith("/content"):
            item = self._items.get(path[len(prefix) + 7:-8])
            if item is None or item.deleted or item.folder:
                return 404, {"error": {"code": "itemNotFound", "message": "The resource could not be found."}}, {}
            tempauth = secrets.token_urlsafe(12)
            self._downloads[tempauth] = item.id
            return 302, {}, {"Location": f"http://127.0.0.1:{self.graph.server_address[1]}/download/{item.id}?tempauth={tempauth}"}
        return 404, {"error": {"code": "itemNotFound", "message": f"no resource {path}"}}, {}

    def _page_get(self, rest: str, query: dict) -> tuple:
        with self._lock:
            if rest == "microsoft.graph.sitePage":  # the listing, sorted by name, in pages
                pages = sorted(self._pages.values(), key=lambda p: p.name.lower())
                skip = int(query.get("$skiptoken", "0"))
                body: dict = {"value": [self._page_json(p) for p in pages[skip:skip + PAGE]]}
                if skip + PAGE < len(pages):
                    body["@odata.nextLink"] = (f"{self.graph_url}/sites/{self.site_id}/pages/microsoft.graph.sitePage"
                                               f"?$skiptoken={skip + PAGE}")
                return 200, body, {}
            page_id, _, cast = rest.partition("/")
            page = self._pages.get(page_id)
            if page is None or cast not in ("", "microsoft.graph.sitePage"):
                return 404, {"error": {"code": "itemNotFound", "message": "The resource could not be found."}}, {}
            out = self._page_json(page)
            if "canvasLayout" in query.get("$expand", "").split(","):
                out["canvasLayout"] = {"horizontalSections": [{"id": "1", "layout": "oneColumn", "emphasis": "none",
                                       "columns": [{"id": str(n + 1), "width": 12, "webparts": [
                                           {"@odata.type": "#microsoft.graph.textWebPart", "id": f"w{n}",
                                            "innerHtml": part},
                                           {"@odata.type": "#microsoft.graph.standardWebPart", "id": f"s{n}",
                                            "webPartType": "d1d91016-032f-456d-98a4-721247c305e8",
                                            "data": {"title": "Image", "properties": {"altText": "never indexed"}}}]}
                                           for n, part in enumerate(page.parts)]}]}
            return 200, out, {}

    def _page_json(self, page: Page) -> dict:
        who = {"user": {"displayName": "Megan Bowen", "email": "megan@contoso.com"}}
        return {"@odata.type": "#microsoft.graph.sitePage", "id": page.id, "name": page.name, "title": page.title,
                "eTag": f'"{{{page.id.upper()}}},{page.version}"', "webUrl": f"SitePages/{page.name}",
                "description": "", "pageLayout": "article", "promotionKind": "page",
                "createdDateTime": "2026-01-05T09:00:00Z", "lastModifiedDateTime": page.when, "createdBy": who,
                "lastModifiedBy": who, "parentReference": {"siteId": self.site_id},
                "publishingState": {"level": "draft", "versionId": f"{page.published}.{page.version}"}
                if page.draft else {"level": "published", "versionId": f"{page.published}.0"},
                "contentType": {"id": "0x0101009D1CB255DA76424F860D91F20E6C4118", "name": "Site Page"}}

    def _permissions(self, item: Item) -> list[dict]:
        node: Item | None = item
        while node is not None and node.grants is None and node.parent is not None:
            node = self._items.get(node.parent)
        if node is None or node.parent is None:  # the library root: its site's groups
            node, grants = self.root, [{"id": f"g{n}", "roles": [role], "grantedToV2": {"siteGroup": {
                "displayName": f"Handbook {group}", "id": str(n), "loginName": f"Handbook {group}"}}}
                for n, (group, role) in enumerate([("Owners", "owner"), ("Members", "write"), ("Visitors", "read")])]
        else:
            grants = node.grants or []
        if node is item:
            return [dict(g) for g in grants]
        return [{**g, "inheritedFrom": {"driveId": self.drive_id, "id": node.id}} for g in grants]

    def _delta(self, query: dict, sharing: bool = False) -> tuple:
        with self._lock:
            token = query.get("token")
            skip = int(query.get("skip", "0"))
            if token is None:
                ids = [i.id for i in self._items.values() if not i.deleted and self._alive(i)]
                since = 0
            else:
                since = int(base64.urlsafe_b64decode(token.encode()).decode())
                if since < self._expired_before:
                    fresh = f"{self.graph_url}/drives/{self.drive_id}/root/delta"
                    return 410, {"error": {"code": "resyncChangesApplyDifferences",
                                           "message": "Resync required. Replace any local items with the server's version"}}, \
                        {"Location": fresh}
                ids = list(dict.fromkeys(i for seq, i in self._log if seq > since
                                         and (sharing or seq not in self._sharing)))
            shared = {i for seq, i in self._log if seq > since and seq in self._sharing} if sharing and token else set()
            now = self._log[-1][0] if self._log else 0
            page = ids[skip:skip + PAGE]
            body: dict = {"value": [self._json(self._items[i]) for i in page]}
            for entry in body["value"]:  # Graph annotates files only (not folders) whose sharing changed
                if entry["id"] in shared and "file" in entry:
                    entry["@microsoft.graph.sharedChanged"] = "True"
            base = f"{self.graph_url}/drives/{self.drive_id}/root/delta"
            if skip + PAGE < len(ids):
                keep = f"&token={token}" if token is not None else ""
                body["@odata.nextLink"] = f"{base}?skip={skip + PAGE}{keep}"
            else:
                body["@odata.deltaLink"] = f"{base}?token={base64.urlsafe_b64encode(str(max(now, since)).encode()).decode()}"
            return 200, body, {}

    def _alive(self, item: Item) -> bool:
        while item.parent is not None:
            parent = self._items[item.parent]
            if parent.deleted:
                return False
            item = parent
        return True

    def _json(self, item: Item) -> dict:
        if item.deleted:
            return {"id": item.id, "deleted": {"state": "deleted"}}
        out: dict = {"id": item.id, "name": item.name, "eTag": f'"{{{item.id}}},{item.version}"',
                     "lastModifiedDateTime": item.when,
                     "parentReference": {"driveId": self.drive_id, "driveType": "documentLibrary",
                                         **({"id": item.parent} if item.parent else {})}}
        if item.parent is None:
            out["root"] = {}
        if item.folder:
            out["folder"] = {"childCount": sum(1 for i in self._items.values() if i.parent == item.id and not i.deleted)}
        else:
            out.update({"file": {"mimeType": "text/plain"}, "size": len(item.content), "cTag": f'"c:{{{item.id}}},{item.version}"',
                        "webUrl": f"https://contoso.sharepoint.com/sites/handbook/Shared%20Documents/{item.id}",
                        "lastModifiedBy": {"user": {"displayName": "Megan Bowen"}}})
        return out


def _self_signed() -> str:
    """A certificate for localhost/127.0.0.1 and its key in one PEM file (the HTTPS token endpoint's)."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM) + key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    path = Path(tempfile.mkdtemp(prefix="graph-standin-")) / "cert.pem"
    path.write_bytes(pem)
    return str(path)
