"""Plain value types that flow through the RAG core, and the one document model every loader fills.

A loaded file is a `Document`: a title, `Metadata` (what tells a current policy from a repealed one,
and what a source link should say) and `Section`s, each with its heading path and its `Block`s
(paragraphs, list items, table rows, definitions, code). Each block is one line of text except code,
so a list item, a numbered step or a table row is never split or glued onto the next sentence.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields, replace
from datetime import date
from typing import Literal

BlockKind = Literal["paragraph", "item", "row", "term", "code"]
ATOMIC_KINDS = frozenset({"item", "row", "term", "code"})  # never split inside a chunk (see rag.ingest.chunking)


@dataclass(frozen=True)
class Block:
    """One unit of a section: a paragraph (one line, soft wraps joined), a list item or numbered step
    (with its marker), a table row ("label — header: value; header: value."), a definition
    ("term: definition") or a code block (its lines kept)."""

    kind: BlockKind
    text: str


def row_text(header: list[str] | tuple[str, ...], cells: list[str] | tuple[str, ...]) -> str:
    """A table row as a sentence: "row label — header: value; header: value." so a lone cell (an amount)
    is never quoted without the row it belongs to. Empty cells are left out; no header, bare values.

    A label that is a number ("10년", "1.0", "09:12") says nothing without its column's name, so it keeps it
    ("근속 연수 10년 — …"; "3층" already says it is a floor). Columns under one grouped header (a merged cell over sub-headers, read as
    "Icheon Hub Standard", "Icheon Hub Cold") name the group once: "Icheon Hub Standard: 18,000, Cold: 42,000",
    as a person reads the table, instead of repeating the group before every value."""
    cells = [" ".join(c.split()) for c in cells]
    if not any(cells):
        return ""
    header = [" ".join(h.split()) for h in header]
    label, rest = cells[0], cells[1:]
    if label and label[0].isdigit() and header and header[0] and header[0].casefold() not in label.casefold():
        label = f"{header[0]} {label}"
    names = (header[1:] + [""] * len(rest))[: len(rest)]
    parts = []
    for prefix, columns in _header_groups(names):
        pairs = [(sub, v) for sub, v in ((sub, rest[i]) for i, sub in columns) if v]
        if not pairs:
            continue
        if prefix and len(pairs) > 1:
            parts.append(f"{prefix} " + ", ".join(f"{sub}: {v}" for sub, v in pairs))
            continue
        for sub, v in pairs:
            name = f"{prefix} {sub}" if prefix else sub
            parts.append(f"{name}: {v}" if name and name != v else v)
    if not label:
        line = "; ".join(parts)
    else:
        line = label + (" — " + "; ".join(parts) if parts else "")
    return line if line.endswith((".", "。", "!", "?")) else line + "."


_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")  # a cell's first figure: "1,842,300", "97.8%", "0.12%"


def row_values(line: str) -> dict[str, float]:
    """The numeric cells of a line `row_text` wrote, by column ({} when the line is not a row): "Icheon Hub —
    Orders shipped: 1,842,300; OTIF: 97.8%" gives {"Orders shipped": 1842300.0, "OTIF": 97.8}."""
    label, dash, rest = line.partition(" — ")
    if not dash or not label:
        return {}
    values = {}
    for cell in rest.rstrip(".").split("; "):
        header, colon, value = cell.partition(": ")
        if colon and (number := _NUMBER.search(value)):
            values[header] = float(number.group().replace(",", ""))
    return values


def _header_groups(names: list[str]) -> list[tuple[str, list[tuple[int, str]]]]:
    """Adjacent column names that begin with the same words, as (shared words, [(column, rest of name)]);
    every other column as ("", [(column, name)])."""
    groups: list[tuple[str, list[tuple[int, str]]]] = []
    i = 0
    while i < len(names):
        prefix = _shared_words(names[i], names[i + 1]) if i + 1 < len(names) else ""
        j = i + 1
        if prefix:
            while j < len(names) and names[j].startswith(prefix + " ") and len(names[j]) > len(prefix) + 1:
                j += 1
            groups.append((prefix, [(k, names[k][len(prefix) + 1:]) for k in range(i, j)]))
        else:
            groups.append(("", [(i, names[i])]))
        i = j
    return groups


def _shared_words(a: str, b: str) -> str:
    """The whole words two names begin with, when both go on past them ("" otherwise)."""
    wa, wb = a.split(" "), b.split(" ")
    n = 0
    while n < min(len(wa), len(wb)) - 1 and wa[n] == wb[n]:
        n += 1
    return " ".join(wa[:n]) if n and len(wa) > n and len(wb) > n else ""


@dataclass(frozen=True)
class Table:
    """A table as a header row and data rows (merged cells already repeated into every cell they cover)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def blocks(self) -> list[Block]:
        """One row block per non-empty data row."""
        return [Block("row", t) for row in self.rows if (t := row_text(self.header, row))]


@dataclass(frozen=True)
class Section:
    """The blocks under one heading; `path` is every heading above it, outermost first."""

    heading: str
    blocks: tuple[Block, ...]
    path: tuple[str, ...] = ()

    @classmethod
    def of(cls, heading: str, text: str, path: tuple[str, ...] = ()) -> "Section":
        """A section from plain text: each non-empty line a paragraph block."""
        return cls(heading, tuple(Block("paragraph", line.strip()) for line in text.splitlines() if line.strip()),
                   path or ((heading,) if heading else ()))

    @property
    def text(self) -> str:
        """The blocks one per line (code blocks keep their own lines)."""
        return "\n".join(b.text for b in self.blocks)


STATUSES = ("current", "draft", "repealed", "superseded", "archived")
# Words documents use for a status, in either language, mapped onto STATUSES.
_STATUS_WORDS = {
    "current": "current", "active": "current", "approved": "current", "published": "current", "final": "current",
    "in force": "current", "effective": "current", "시행": "current", "시행중": "current", "시행 중": "current",
    "현행": "current", "승인": "current", "유효": "current",
    "draft": "draft", "proposal": "draft", "proposed": "draft", "wip": "draft", "in review": "draft",
    "review": "draft", "초안": "draft", "검토중": "draft", "검토 중": "draft", "작성중": "draft", "작성 중": "draft",
    "repealed": "repealed", "rescinded": "repealed", "revoked": "repealed", "retired": "repealed",
    "withdrawn": "repealed", "obsolete": "repealed", "폐지": "repealed", "폐기": "repealed",
    "superseded": "superseded", "replaced": "superseded", "deprecated": "superseded", "대체": "superseded",
    "대체됨": "superseded", "구버전": "superseded",
    "archived": "archived", "보관": "archived", "보관됨": "archived",
}


def normalise_status(value: str) -> str:
    """A free-form status ("Repealed", "폐지됨", "DRAFT v2") as one of STATUSES, or "" when unknown."""
    text = " ".join(str(value).lower().split())
    if not text:
        return ""
    if text in _STATUS_WORDS:
        return _STATUS_WORDS[text]
    for word, status in sorted(_STATUS_WORDS.items(), key=lambda kv: -len(kv[0])):
        if word in text:
            return status
    return ""


_DATE = re.compile(r"(\d{4})[-./년\s]+(\d{1,2})[-./월\s]+(\d{1,2})")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_NAMED_DATE = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})\b|"
                         r"\b(\d{1,2})\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+(\d{4})\b", re.I)


def normalise_date(value: object) -> str:
    """A date in any common written form (2026-03-01, 2026.3.1, 2026년 3월 1일, a datetime) as ISO
    YYYY-MM-DD, or "" when none can be read."""
    if isinstance(value, date):
        return value.isoformat()[:10]
    text = str(value or "")
    try:
        if match := _DATE.search(text):
            return date(int(match[1]), int(match[2]), int(match[3])).isoformat()
        if match := _NAMED_DATE.search(text):  # "Mar 01, 2026", "1 March 2026"
            day, month, year = (match[2], match[1], match[3]) if match[1] else (match[4], match[5], match[6])
            return date(int(year), _MONTHS.index(month.lower()[:3]) + 1, int(day)).isoformat()
    except ValueError:
        return ""
    return ""


@dataclass(frozen=True)
class Metadata:
    """What a document says about itself (front matter, <meta>, document properties) or its source says
    about it (a connector's URL, title, author, modified time). Dates are ISO YYYY-MM-DD; `status` is one
    of STATUSES or ""; `notes` are what the loader reports ("scanned PDF: no text layer", a capped sheet)."""

    title: str = ""
    author: str = ""
    status: str = ""
    effective: str = ""
    updated: str = ""
    language: str = ""
    url: str = ""
    tags: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def merged(self, fallback: "Metadata") -> "Metadata":
        """These values, with `fallback`'s wherever this one has none."""
        return replace(self, **{f.name: getattr(fallback, f.name) for f in fields(self) if not getattr(self, f.name)})

    def to_json(self) -> str:
        """Compact JSON of the non-empty fields ("" when there are none), for storage beside the chunks."""
        data = {f.name: (list(v) if isinstance(v, tuple) else v) for f in fields(self) if (v := getattr(self, f.name))}
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) if data else ""

    @classmethod
    def from_json(cls, stored: str | None) -> "Metadata":
        """Back from `to_json` (unknown keys from a newer version are ignored)."""
        if not stored:
            return cls()
        try:
            data = json.loads(stored)
        except ValueError:
            return cls()
        known = {f.name for f in fields(cls)}
        values: dict = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in known}
        return cls(**values)

    def as_dict(self) -> dict:
        """JSON-ready, every field present (for citations)."""
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v) for f in fields(self)}


def caveat(meta: Metadata, today: date, lang: str = "en") -> str:
    """One sentence an answer quoting this document must carry, or "": the document is repealed,
    superseded, archived or a draft, or takes effect only after `today`."""
    title = meta.title or ("this document" if lang != "ko" else "이 문서")
    ko = lang == "ko"
    if meta.status == "repealed":
        return f"⚠️ 「{title}」은(는) 폐지된 문서입니다." if ko else f"⚠️ “{title}” is marked as repealed."
    if meta.status == "superseded":
        return f"⚠️ 「{title}」은(는) 새 버전으로 대체된 문서입니다." if ko else \
            f"⚠️ “{title}” has been superseded by a newer version."
    if meta.status == "archived":
        return f"⚠️ 「{title}」은(는) 보관된(더 이상 관리되지 않는) 문서입니다." if ko else \
            f"⚠️ “{title}” is archived and no longer maintained."
    if meta.status == "draft":
        return f"⚠️ 「{title}」은(는) 아직 초안입니다." if ko else f"⚠️ “{title}” is a draft, not an approved policy."
    if meta.effective and meta.effective > today.isoformat():
        return f"⚠️ 「{title}」은(는) {meta.effective}부터 시행됩니다." if ko else \
            f"⚠️ “{title}” takes effect only on {meta.effective}."
    return ""


def caveats(chunks: list["Chunk"], today: date, lang: str = "en") -> list[str]:
    """The caveats of the documents these chunks (the ones an answer cites) come from, one per document,
    in citation order."""
    seen: dict[str, str] = {}
    for chunk in chunks:
        if chunk.path not in seen:
            meta = chunk.meta if chunk.meta.title else replace(chunk.meta, title=chunk.title)
            seen[chunk.path] = caveat(meta, today, lang)
    return [c for c in seen.values() if c]


@dataclass(frozen=True)
class Document:
    """A loaded source file: its path relative to its source root, title, sections and metadata."""

    path: str
    title: str
    sections: list[Section]
    meta: Metadata = field(default_factory=Metadata)

    @property
    def text(self) -> str:
        """All section text joined, for hashing-free inspection and tests."""
        return "\n\n".join(s.text for s in self.sections)


@dataclass(frozen=True)
class Chunk:
    """A retrievable piece of a document, with the metadata citations need."""

    path: str
    ordinal: int
    title: str
    heading: str
    text: str
    meta: Metadata = field(default_factory=Metadata, compare=False)

    @property
    def chunk_id(self) -> str:
        """Deterministic id: source path plus chunk number."""
        return f"{self.path}#{self.ordinal}"

    def embedding_text(self) -> str:
        """Text the embedder sees: title and heading give a short chunk its topic."""
        same = not self.heading or self.heading == self.title
        head = self.title if same else f"{self.title} / {self.heading}"
        return f"{head}\n{self.text}" if head else self.text


@dataclass
class Hit:
    """One ranked search result."""

    chunk: Chunk
    score: float
    cosine: float | None = None
    keyword: bool = False
    source: str = ""
    relevance: float | None = None  # the cosine as a z-score within its language (rag.retrieve.ranking)
    spread: float | None = None  # the standard deviation that z-score divided by
    population: int = 0  # how many chunks that standard deviation came from
    translation: float = 0.0  # what the query's translated keywords added to `score` (rag.retrieve.ranking)

    def citation(self) -> dict:
        """A JSON-ready description of this hit for storage and rendering."""
        meta = self.chunk.meta
        return {
            "path": self.chunk.path,
            "title": self.chunk.title,
            "heading": self.chunk.heading,
            "chunk": self.chunk.ordinal,
            "source": self.source,
            "score": round(self.score, 5),
            "cosine": None if self.cosine is None else round(self.cosine, 4),
            "keyword": self.keyword,
            "relevance": None if self.relevance is None else round(self.relevance, 3),
            **({"url": meta.url} if meta.url else {}),
            **({"status": meta.status} if meta.status else {}),
            **({"effective": meta.effective} if meta.effective else {}),
            **({"updated": meta.updated} if meta.updated else {}),
            **({"author": meta.author} if meta.author else {}),
        }
