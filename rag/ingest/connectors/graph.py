"""SharePoint document libraries and OneDrive folders through Microsoft Graph's driveItem `delta`.

The cursor is the drive's `@odata.deltaLink` plus every item's id, name and parent id: delta reports items
by id, without `parentReference.path`, and renaming a folder reports the folder only, not what is in it
(learn.microsoft.com/graph/api/driveitem-delta, Remarks), so paths are rebuilt from the id tree every run.
A file whose path changed (it, or a folder above it, was renamed or moved) is its old path deleted and the
new one indexed; a file under a deleted folder is deleted with it. A 410 Gone on the delta link (the token
expired: `resyncChangesApplyDifferences`, `resyncChangesUploadDifferences`, `resyncRequired`) starts a
fresh enumeration, answered as `complete` so the index drops whatever the drive no longer holds.

A file's version is its id and `cTag` (changes with the content only): an unchanged file is not downloaded
again. Files are downloaded one at a time (`/items/{id}/content`, which redirects to a pre-authenticated
URL) only when that version is not indexed, and only for the types the loaders read; a file over the size
limit is refused from the size delta reports, unread.

SharePoint site pages (`pages`, for a `sites/{site-id}/drive` source) have no delta: every run lists them
(`GET /sites/{id}/pages/microsoft.graph.sitePage`, paged with `@odata.nextLink`), keeps each page's id, path
and eTag in the cursor, reads again (`.../pages/{id}/microsoft.graph.sitePage?$expand=canvasLayout`) only a
page whose eTag changed, and deletes a page the listing no longer holds. A page is its text web parts'
`innerHtml` under its title, read by the HTML loader, at `SitePages/<name>.html`, linked to its `webUrl`; a
page whose `publishingState` is not `published` (a draft, or unpublished edits) is not read: the text
indexed when it was last published stays until it is published again (a full enumeration, which must list
every document it keeps, leaves it out until then: Graph serves the latest version, not the published one)
(which Graph may give relative to the site: then resolved against the site's `webUrl`, fetched once and kept
in the cursor).

Tokens: client credentials (app-only) from msal, Microsoft's own library (already installed: the Teams
SDK depends on it), which caches the token until it expires.
"""
from __future__ import annotations

import html
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin

from rag.documents import Metadata
from rag.errors import ConfigurationError, DocumentError, SourceUnavailable
from rag.ingest.connectors.base import Changes
from rag.ingest.connectors.http import HttpClient, NotFound
from rag.ingest.loaders import MAX_FILE_BYTES, supported
from rag.ingest.sources import SourceFile, private
from rag.resilience import RetryPolicy

log = logging.getLogger(__name__)

GRAPH = "https://graph.microsoft.com/v1.0"
LOGIN = "https://login.microsoftonline.com"
SCOPE = "https://graph.microsoft.com/.default"


def msal_token(tenant: str, client_id: str, secret: str, authority_host: str = LOGIN,
               http_client: Any = None) -> Callable[[], str]:
    """An app-only token provider (OAuth client credentials) backed by msal's in-memory token cache."""
    apps: list[Any] = []  # built on first use: msal discovers the authority over the network when built

    def token() -> str:
        if not apps:
            import msal

            extra = {"http_client": http_client} if http_client is not None else {}
            try:
                apps.append(msal.ConfidentialClientApplication(
                    client_id, client_credential=secret, authority=f"{authority_host.rstrip('/')}/{tenant}",
                    instance_discovery=None if authority_host == LOGIN else False, **extra))
            except (ValueError, OSError) as exc:  # discovery failed: unreachable, or no such tenant
                raise SourceUnavailable(f"Microsoft Entra: cannot reach tenant {tenant} "
                                        f"({exc.__class__.__name__})") from None
        got = apps[0].acquire_token_for_client(scopes=[SCOPE])
        if "access_token" not in got:  # msal answers errors as a dict: never the secret, only codes
            raise SourceUnavailable(f"Microsoft Entra refused the client credentials for {client_id}: "
                                    f"{got.get('error', '?')} {str(got.get('error_codes', ''))}")
        return str(got["access_token"])

    return token


@dataclass
class GraphSource:
    """One drive (`drive`: `drives/{drive-id}`, `sites/{site-id}/drive` or `users/{user}/drive`), optionally
    only the files under `folder` (delta runs on the drive root: SharePoint and OneDrive for Business do not
    offer it on sub-folders), read with an app-only token from `token` (a callable; see `msal_token`)."""

    drive: str
    token: Callable[[], str] = field(repr=False)
    folder: str = ""
    name: str = ""
    visibility: frozenset[str] | None = None
    graph_url: str = GRAPH
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    max_retry_after: float = 120.0
    sleep: Any = None
    kind: str = "sharepoint"
    complete: bool = True
    permissions: bool = False  # store each file's readers (its item permissions) per document
    pages: bool = False  # also the site's pages (a `sites/{site-id}/drive` source only)
    http: HttpClient = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.drive = self.drive.strip("/")
        parts = self.drive.split("/")
        if not (len(parts) == 2 and parts[0] == "drives" or len(parts) == 3 and parts[0] in ("sites", "users", "groups")
                and parts[2] == "drive"):
            raise ConfigurationError(f"a SharePoint/OneDrive source's drive must be drives/<id>, sites/<id>/drive, "
                                     f"users/<id>/drive or groups/<id>/drive, got {self.drive!r}")
        if self.pages and parts[0] != "sites":
            raise ConfigurationError(f"a source with pages must name a site's drive (sites/<site-id>/drive), "
                                     f"got {self.drive!r}")
        self.site = "/".join(parts[:2])
        self.folder = self.folder.strip("/")
        self.name = self.name or "sharepoint"
        extra = {"sleep": self.sleep} if self.sleep else {}
        # With permissions, delta also reports items whose sharing changed (`deltashowsharingchanges`).
        prefer = {"Prefer": SHARING_CHANGES} if self.permissions else {}
        self.http = HttpClient(self.graph_url, "Microsoft Graph",
                               lambda: {"Authorization": f"Bearer {self.token()}", "Accept": "application/json",
                                        **prefer},
                               self.policy, self.max_retry_after, **extra)

    @property
    def key(self) -> str:
        return f"graph:{self.graph_url.rstrip('/')}/{self.drive}" + (f":/{self.folder}" if self.folder else "")

    @property
    def fingerprint(self) -> str:
        return repr((self.drive, self.folder, self.permissions) + ((True,) if self.pages else ()))

    def files(self) -> list[SourceFile]:
        return self.changes(None).changed

    def changes(self, cursor: str | None) -> Changes:
        before = self.http.requests
        link, tree, pages = self._parse(cursor)
        if link is not None:
            try:
                items, new_link = self._delta(link)
                complete = False
            except NotFound as gone:  # 410: the delta token expired; start again from scratch
                if gone.status != 410:
                    raise SourceUnavailable(f"Microsoft Graph has no drive {self.drive} (HTTP {gone.status})") from None
                log.warning("SharePoint/OneDrive source %s: delta token expired (%s); enumerating the drive again",
                            self.name, _code(gone.body))
                link = None
        if link is None:
            try:
                items, new_link = self._delta(f"{self.drive}/root/delta")
            except NotFound as missing:
                raise SourceUnavailable(f"Microsoft Graph has no drive {self.drive} (HTTP {missing.status})") from None
            complete, old_tree = True, tree
            tree = {}
        else:
            old_tree = dict(tree)
        for item in items:  # the latest state of each item; the same item may come more than once
            item_id = str(item.get("id"))
            if "deleted" in item:
                tree.pop(item_id, None)
            elif "root" in item:
                tree[item_id] = {"n": "", "p": None, "d": True}
            else:
                entry: dict[str, Any] = {"n": item.get("name", ""), "p": (item.get("parentReference") or {}).get("id"),
                                         "d": "folder" in item}
                if "file" in item:
                    entry.update(t=item.get("cTag") or item.get("eTag") or "", s=item.get("size"),
                                 u=item.get("webUrl", ""), a=_who(item), m=(item.get("lastModifiedDateTime") or "")[:10])
                tree[item_id] = entry
        old_paths, new_paths = self._paths(old_tree), self._paths(tree)
        touched = {str(i.get("id")) for i in items}
        if self.permissions:  # a folder whose sharing changed changes what every file below inherits
            touched |= {i for i in new_paths if _under(tree, i, touched)}
        root = next((i for i, e in tree.items() if e.get("p") is None), "")
        changed = [self._file(i, p, tree[i], self._readers(i, root) if self.permissions else None)
                   for i, p in new_paths.items() if complete or i in touched or old_paths.get(i) != p]
        deleted = sorted({p for i, p in old_paths.items() if new_paths.get(i) != p} - set(new_paths.values())) \
            if not complete else []
        state = json.dumps(tree, separators=(",", ":"), ensure_ascii=False)
        if self.pages:
            pages, changed_pages, deleted_pages = self._page_changes(pages, complete)
            changed += changed_pages
            deleted = sorted(set(deleted) | set(deleted_pages)) if not complete else []
            state += "\n" + json.dumps(pages, separators=(",", ":"), ensure_ascii=False)
        return Changes(f"{new_link}\n{state}", sorted(changed, key=lambda f: f.path), deleted, complete,
                       self.http.requests - before)

    @staticmethod
    def _parse(cursor: str | None) -> tuple[str | None, dict[str, dict], dict[str, Any]]:
        """The delta link, the drive's id tree and the pages' state (id -> path and eTag; "" -> the site's URL)."""
        if not cursor:
            return None, {}, {}
        link, _, rest = cursor.partition("\n")
        state, _, pages = rest.partition("\n")
        try:
            return link, dict(json.loads(state)), dict(json.loads(pages)) if pages else {}
        except ValueError:
            log.warning("SharePoint/OneDrive source: unreadable cursor; enumerating the drive again")
            return None, {}, {}

    def _page_changes(self, old: dict[str, Any], complete: bool) -> tuple[dict[str, Any], list[SourceFile], list[str]]:
        """The site's pages listed (no delta for pages): the new state, the pages to read (new, edited, renamed;
        all of them when `complete`) and the paths of pages gone from the listing or renamed away."""
        try:
            listed = self._listing(f"{self.site}/pages/microsoft.graph.sitePage")
        except NotFound as missing:
            raise SourceUnavailable(f"Microsoft Graph has no site {self.site} (HTTP {missing.status})") from None
        site_url = str(old.get("", ""))
        new: dict[str, Any] = {}
        changed: list[SourceFile] = []
        for page in listed:
            page_id, name = str(page.get("id", "")), str(page.get("name") or page.get("id") or "")
            stem = name[:-5] if name.lower().endswith(".aspx") else name
            path = f"SitePages/{stem}.html"
            if not page_id or private(path):
                continue
            if (page.get("publishingState") or {}).get("level", "published") != "published":
                if not complete and isinstance(old.get(page_id), dict):  # unpublished edits: the indexed text stays
                    new[page_id] = old[page_id]
                continue  # a draft never published is not read
            tag = str(page.get("eTag") or page.get("lastModifiedDateTime") or "")
            url = str(page.get("webUrl") or "")
            if url and not url.lower().startswith(("https://", "http://")):  # relative to the site
                if not site_url:
                    site_url = str(self.http.get_json(self.site).get("webUrl") or "")
                url = urljoin(site_url.rstrip("/") + "/", url)
            new[page_id] = {"p": path, "t": tag}
            before = old.get(page_id)
            if complete or not isinstance(before, dict) or before.get("t") != tag or before.get("p") != path:
                meta = Metadata(title=str(page.get("title") or stem), url=url, author=_who(page),
                                updated=str(page.get("lastModifiedDateTime") or "")[:10])
                changed.append(SourceFile(path, partial(self._page_html, page_id, path, meta.title), meta=meta,
                                          version=f"graph-page:{page_id}:{tag}"))
        if site_url:
            new[""] = site_url
        paths = {e["p"] for k, e in new.items() if k}
        deleted = [e["p"] for k, e in old.items() if k and isinstance(e, dict) and e.get("p") not in paths]
        return new, changed, deleted

    def _listing(self, first: str) -> list[dict]:
        items: list[dict] = []
        body = self.http.get_json(first)
        while True:
            items.extend(body.get("value") or [])
            following = body.get("@odata.nextLink")
            if not following:
                return items
            body = self.http.get_json(following)

    def _page_html(self, page_id: str, path: str, title: str) -> bytes:
        """The page as HTML: its title, then its text web parts' `innerHtml` in layout order (sections, columns)."""
        try:
            page = self.http.get_json(f"{self.site}/pages/{quote(page_id)}/microsoft.graph.sitePage",
                                      {"$expand": "canvasLayout"})
        except NotFound:
            raise DocumentError(path, "the page is gone (it leaves the index with the next run)") from None
        title = str(page.get("title") or title)
        layout = page.get("canvasLayout") or {}
        columns = [c for s in layout.get("horizontalSections") or [] for c in s.get("columns") or []]
        if layout.get("verticalSection"):
            columns.append(layout["verticalSection"])
        parts = [str(w.get("innerHtml") or "") for c in columns for w in c.get("webparts") or []
                 if w.get("@odata.type") == "#microsoft.graph.textWebPart"]
        name = html.escape(title)
        return (f"<html><head><title>{name}</title></head><body><main><h1>{name}</h1>\n"
                + "\n".join(parts) + "\n</main></body></html>").encode()

    def _delta(self, first: str) -> tuple[list[dict], str]:
        """Every page of a delta round: items until the page that carries the `@odata.deltaLink`."""
        items: list[dict] = []
        body = self.http.get_json(first)
        while True:
            items.extend(body.get("value") or [])
            if body.get("@odata.deltaLink"):
                return items, str(body["@odata.deltaLink"])
            following = body.get("@odata.nextLink")
            if not following:
                raise SourceUnavailable("Microsoft Graph ended a delta round with neither nextLink nor deltaLink")
            body = self.http.get_json(following)

    def _paths(self, tree: dict[str, dict]) -> dict[str, str]:
        """Each indexable file's path below the drive root (or `folder`), from the id tree; files under a
        folder that is gone, or outside `folder`, or of a type no loader reads, are left out."""
        memo: dict[str, str | None] = {}

        def path_of(item_id: str | None, depth: int = 0) -> str | None:
            if item_id is None or item_id not in tree or depth > 200:
                return None
            if item_id in memo:
                return memo[item_id]
            entry = tree[item_id]
            if entry.get("p") is None:  # the root
                memo[item_id] = ""
                return ""
            parent = path_of(entry["p"], depth + 1)
            memo[item_id] = None if parent is None else (f"{parent}/{entry['n']}" if parent else entry["n"])
            return memo[item_id]

        out = {}
        for item_id, entry in tree.items():
            if entry.get("d"):
                continue
            full = path_of(item_id)
            if full is None:
                continue
            if self.folder:
                if not full.startswith(self.folder + "/"):
                    continue
                full = full[len(self.folder) + 1:]
            if supported(Path(full)) and not private(full):
                out[item_id] = full
        return out

    def _file(self, item_id: str, path: str, entry: dict, readers: frozenset[str] | None = None) -> SourceFile:
        meta = Metadata(url=entry.get("u", ""), author=entry.get("a", ""), updated=entry.get("m", ""))
        size = entry.get("s")
        return SourceFile(path, lambda: self._download(item_id, path, size), meta=meta,
                          size=size if isinstance(size, int) else None, version=f"graph:{item_id}:{entry.get('t', '')}",
                          principals=readers)

    def _readers(self, item_id: str, root: str) -> frozenset[str] | None:
        """Who may read a file, from its permissions (`GET /items/{id}/permissions`, one request a changed
        file): None when it only inherits the library's own access or an organisation-wide or anonymous link
        shares it; else the e-mails of the people its permissions (inherited from a folder with permissions
        of its own, or its own) name. SharePoint and Entra groups are not expanded: their members are left
        out (fewer people see the file through docbot, never more)."""
        try:
            body = self.http.get_json(f"{self.drive}/items/{quote(item_id)}/permissions")
        except NotFound:
            return frozenset()  # gone since the delta: nobody, until the next delta removes it
        grants = body.get("value") or []
        if any((g.get("link") or {}).get("scope") in ("organization", "anonymous") for g in grants):
            return None
        if all((g.get("inheritedFrom") or {}).get("id") == root for g in grants if g.get("inheritedFrom")) and \
                not any(not g.get("inheritedFrom") for g in grants):
            return None  # the library's own access: the source's audience
        emails = set()
        for grant in grants:
            for identity in [grant.get("grantedToV2") or {}, *(grant.get("grantedToIdentitiesV2") or [])]:
                for kind in ("user", "siteUser"):
                    email = (identity.get(kind) or {}).get("email")
                    if email:
                        emails.add(str(email).lower())
        return frozenset(emails)

    def _download(self, item_id: str, path: str, size: int | None) -> bytes:
        if size is not None and size > MAX_FILE_BYTES:
            raise DocumentError(path, f"file is {size // 1_048_576} MB (limit {MAX_FILE_BYTES // 1_048_576} MB)")
        try:
            return self.http.get_bytes(f"{self.drive}/items/{quote(item_id)}/content", limit=MAX_FILE_BYTES)
        except NotFound:
            raise DocumentError(path, "the file is gone (it leaves the index with the next delta)") from None
        except ValueError as exc:
            raise DocumentError(path, f"file is {exc}") from None


SHARING_CHANGES = "deltashowsharingchanges"


def _under(tree: dict[str, dict], item_id: str, folders: set[str]) -> bool:
    """Whether a folder among `folders` lies above the item in the id tree."""
    parent, depth = (tree.get(item_id) or {}).get("p"), 0
    while parent is not None and depth < 200:
        if parent in folders:
            return True
        parent, depth = (tree.get(parent) or {}).get("p"), depth + 1
    return False


def _who(item: dict) -> str:
    by = item.get("lastModifiedBy") or {}
    return str((by.get("user") or by.get("application") or {}).get("displayName") or "")


def _code(body: Any) -> str:
    return str((body.get("error") or {}).get("code", "")) if isinstance(body, dict) else ""
