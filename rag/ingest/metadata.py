"""Reading a document's own metadata (front matter, <meta> tags, document properties) into `Metadata`.

Documents name the same thing many ways ("owner", "author", "담당자"; "effective", "시행일"); this maps
the common names onto one set of fields, normalising statuses and dates.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

import yaml

from rag.documents import Metadata, normalise_date, normalise_status

_KEYS = {
    "title": ("title", "name", "subject", "제목", "문서명", "og:title", "dc.title"),
    "author": ("owner", "author", "authors", "maintainer", "maintainers", "owners", "created_by", "creator",
               "담당", "담당자", "작성자", "소유자", "관리자", "dc.creator", "article:author"),
    "status": ("status", "state", "lifecycle", "상태", "문서상태", "문서 상태"),
    "effective": ("effective", "effective_date", "effective-date", "effectivedate", "effective_from", "valid_from",
                  "in_force", "시행일", "시행일자", "적용일", "발효일"),
    "updated": ("updated", "last_updated", "last-updated", "updated_at", "modified", "last_modified",
                "last-modified", "date", "revised", "reviewed", "개정일", "수정일", "최종수정일",
                "article:modified_time", "dc.date.modified", "dcterms.modified"),
    "language": ("lang", "language", "언어", "dc.language", "content-language"),
    "url": ("url", "source_url", "source", "link", "canonical", "permalink", "og:url"),
    "tags": ("tags", "keywords", "labels", "categories", "태그", "키워드"),
}
_LOOKUP = {alias: name for name, aliases in _KEYS.items() for alias in aliases}


def _text(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_text(v) for v in value if v is not None)
    if isinstance(value, Mapping):
        return _text(value.get("name") or value.get("title") or "")
    return " ".join(str(value).split()) if value is not None else ""


def metadata_from(mapping: Mapping[str, object]) -> Metadata:
    """Metadata from loosely named keys (case- and separator-insensitive); the first key found per field wins."""
    found: dict[str, object] = {}
    for key, value in mapping.items():
        name = _LOOKUP.get(str(key).strip().lower().replace(" ", "_")) or _LOOKUP.get(str(key).strip().lower())
        if name and name not in found and value not in (None, "", [], ()):
            found[name] = value
    tags = found.get("tags", ())
    if isinstance(tags, str):
        tags = [t.strip() for t in re.split(r"[,;]", tags) if t.strip()]
    return Metadata(
        title=_text(found.get("title"))[:300],
        author=_text(found.get("author"))[:200],
        status=normalise_status(_text(found.get("status"))),
        effective=normalise_date(found.get("effective")),
        updated=normalise_date(found.get("updated")),
        language=_text(found.get("language"))[:20].lower(),
        url=_text(found.get("url"))[:1000] if str(found.get("url", "")).startswith(("http://", "https://")) else "",
        tags=tuple(_text(t)[:60] for t in tags if _text(t))[:30] if isinstance(tags, (list, tuple)) else (),
    )


_FRONT = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
MAX_FRONT_MATTER = 20_000


def front_matter(text: str) -> tuple[Metadata, str]:
    """YAML front matter at the top of a Markdown file, as Metadata, and the text after it.
    Text that is not a YAML mapping is left in place (a document that merely starts with a rule)."""
    head = text[: MAX_FRONT_MATTER]
    match = _FRONT.match(head)
    if not match:
        return Metadata(), text
    try:
        data = yaml.safe_load(match[1])
    except yaml.YAMLError:
        return Metadata(), text
    if not isinstance(data, dict):
        return Metadata(), text
    return metadata_from(data), text[match.end():]
