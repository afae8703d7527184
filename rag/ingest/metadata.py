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
    "author": ("owner", "author", "authors", "maintainer", "maintainers", "owners", "created_by", "creator", "document_owner", "policy_owner",
               "담당", "담당자", "작성자", "소유자", "관리자", "dc.creator", "article:author"),
    "status": ("status", "state", "lifecycle", "document_status", "policy_status", "상태", "문서상태", "문서 상태"),
    "effective": ("effective", "effective_date", "effective-date", "effectivedate", "effective_from", "valid_from",
                  "in_force", "시행일", "시행일자", "적용일", "발효일"),
    "updated": ("updated", "last_updated", "last-updated", "updated_at", "modified", "last_modified",
                "last-modified", "last_edited", "last_edited_time", "last_modified_by", "date", "revised", "reviewed",
                "last_reviewed", "page_updated", "개정일", "수정일", "최종수정일",
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


_LABELLED = re.compile(
    r"(?P<key>status|state|상태|effective(?: date| from)?|in force from|시행일(?:자)?|시행|적용일|"
    r"owner|policy owner|document owner|author|issued by|published by|담당(?:자|부서)?|작성자|작성(?=\s*[:：])|소유자|소관(?:부서)?|"
    r"last (?:updated|revised|reviewed)|updated|revised|개정일|최종 ?개정|수정일)\s*[:：]?\s*(?P<value>[^·|;]{1,80})",
    re.I)
_DATED = re.compile(r",?\s*\d{4}[-./]\d{1,2}[-./]\d{1,2}\.?$")
_BANNER = re.compile(r"^\W{0,3}(폐지됨?|repealed|superseded|대체됨|초안|draft|archived)\b", re.I)
_TITLE_STATUS = re.compile(r"[\s\-–—(\[]\s*(폐지됨?|repealed|superseded|대체됨|초안|draft|archived)\s*[)\]]?\s*$", re.I)


def text_metadata(lines: list[str]) -> Metadata:
    """Metadata a document states in its opening lines ("Effective 2026-01-01 · Owner: People Team",
    "상태: 폐지", a title ending "- 폐지"): only labelled values in the first lines, so a current policy
    that mentions "the repealed 2022 policy" further down is not taken for a repealed one."""
    found: dict[str, object] = {}
    for line in lines[:12]:
        if len(line) > 300:
            continue
        for part in re.split(r"\s[·|/–—-]\s|;", line):
            match = _LABELLED.match(part.strip())
            if not match:
                continue
            key, value = match["key"].lower(), match["value"].strip()
            if re.match(r"status|state|상태", key):
                found.setdefault("status", value)
            elif re.match(r"effective|in force|시행|적용", key) and normalise_date(value):
                found.setdefault("effective", value)
            elif re.match(r"last|updated|revised|개정|수정", key) and normalise_date(value):
                found.setdefault("updated", value)
            elif re.match(r"owner|policy|document|author|issued|published|담당|작성|소유|소관", key):
                found.setdefault("owner", _DATED.sub("", value) or value)  # "People Team, 2025-12-01"
                if (dated := _DATED.search(value)) and normalise_date(dated.group().strip(" ,")):
                    found.setdefault("updated", dated.group().strip(" ,"))  # ... issued on that day
        if byline(line):  # "IT Service Desk - last updated 2025-10-20": the unlabelled name is the author
            for part in (p.strip() for p in _SPLIT.split(line)):
                if not _LABELLED.fullmatch(part) and not normalise_date(part):
                    found.setdefault("owner", part)
    for line in lines[:3]:
        if match := _TITLE_STATUS.search(line[:120]) or _BANNER.match(line):
            found.setdefault("status", match[1])
    return metadata_from(found)


_SPLIT = re.compile(r"\s[·|/–—-]\s|;")
_NAME = re.compile(r"[^\W\d_][^\d.,!?。:：]{0,40}")  # "IT Service Desk", "People Team": a few words, no figures


def byline(line: str) -> bool:
    """A line that only says who wrote the text and when, as a plain-text notice opens ("Issued by: People
    Team, 2025-12-01", "IT Service Desk - last updated 2025-10-20", "작성: IT 서비스데스크 / 2026-03-10"):
    labelled values, bare dates and at most one short unlabelled name, at least one of them labelled.
    A line that also says something else ("시행일: 2025-12-01 · 이천 허브는 별도 절차를 따른다.") is not one."""
    if len(line) > 120 or line.rstrip().endswith((".", "!", "?", "。")):
        return False
    labelled = names = 0
    for part in (p.strip() for p in _SPLIT.split(line)):
        match = _LABELLED.fullmatch(part)
        if match and _meta_value(match["key"].lower(), match["value"].strip()):
            labelled += 1
        elif not normalise_date(part):
            names += 1
            if names > 1 or not _NAME.fullmatch(part):
                return False
    return labelled > 0


def _meta_value(key: str, value: str) -> bool:
    """Whether a labelled value is the kind its label names: a status word, a date, a name (with its date)."""
    if re.match(r"status|state|상태", key):
        return bool(normalise_status(value))
    if re.match(r"effective|in force|시행|적용|last|updated|revised|개정|수정", key):
        return bool(normalise_date(value))
    return bool(_NAME.fullmatch(_DATED.sub("", value).strip()))


def title_status(title: str) -> str:
    """A status a title states at its end ("국내 출장 규정 (2023) - 폐지", "Remote work (superseded)")."""
    match = _TITLE_STATUS.search(title)
    return normalise_status(match[1]) if match else ""
