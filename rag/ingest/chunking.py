"""Chunkers: fixed-size with overlap (default) and semantic (cut where the topic shifts).

Both work inside a document's sections, so a chunk never straddles two headings and each
chunk carries its title, heading path and document metadata for citations and for the embedder.
They pack the section's blocks: a paragraph is split into sentences, while a list item, a numbered
step, a table row, a definition or a code block is one unit that a chunk boundary never cuts
(only a unit longer than MAX_UNIT_FACTOR chunks is split, to fit the embedder's window).
"""
from __future__ import annotations

import re
from typing import Protocol

import numpy as np

from rag.documents import ATOMIC_KINDS, Chunk, Document, Section
from rag.errors import ConfigurationError
from rag.models.embeddings import Embedder

# Sentence ends: terminal punctuation followed by space (Korean uses it too), and line breaks. What follows
# must be able to start a sentence: after "e.g. the", "Ltd. · Revision 3" or "No. 5, …" the line goes on.
# Dot leaders ("Chuseok ........ 2026-09-24") end nothing: a period after another period is not an end.
_SENTENCE_END = re.compile(r"(?<=[.!?。？！])(?<!\.\.)\s+(?=[^a-z·•,;:)\]}\-–—/|])|\n+")
# A piece ending in an abbreviation goes on into the next ("Solbit Logistics Pte. Ltd.", "(excl. VAT)"); one
# that numbers something ("No.", "Art.", "ext.") goes on only into a number ("Art. 3", "ext. 2400"): its
# period is not a sentence end ("The answer is no." is).
_ABBREVIATION = re.compile(r"(?:^|[\s(/])(?:ltd|pte|inc|co|corp|excl|incl|approx|vs|dept|mr|mrs|ms|dr|cf|e\.g|i\.e)\.$",
                           re.IGNORECASE)
_NUMBERING = re.compile(r"(?:^|[\s(/])(?:no|nos|art|sec|fig|vol|pp|ext|tel|ref|rev)\.$", re.IGNORECASE)


# Units are joined by line breaks, so a list item, a table row or a heading-like line stays
# its own line in the chunk and is never glued onto the sentence after it.
JOIN = "\n"


def sentences(text: str) -> list[str]:
    """Split text into sentences; good enough for packing, not for linguistics."""
    out: list[str] = []
    for line in text.split("\n"):
        glued = ""  # the piece before ended in an abbreviation: this one may carry on its sentence
        for piece in _SENTENCE_END.split(line):
            piece = piece.strip()
            if not piece:
                continue
            if out and (glued == "any" or (glued == "number" and piece[0].isdigit())):
                out[-1] += " " + piece
            else:
                out.append(piece)
            glued = "any" if _ABBREVIATION.search(piece) else "number" if _NUMBERING.search(piece) else ""
    return out


# A list item or table row ("- SEV3: 경미한 장애. 다음 영업일에 처리합니다.", "2. Restart the service.")
# stays one unit: split into sentences, its second sentence would lose its subject.
_LIST_ITEM = re.compile(r"^(?:[-*•]|\d{1,3}[.)])\s|^[^\s:]{1,30}: |^.{1,60} — ")
MAX_ITEM_CHARS = 400


def units(text: str) -> list[str]:
    """Sentences, except that a short list item or table row stays whole; line breaks always split."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if _LIST_ITEM.match(line) and len(line) <= MAX_ITEM_CHARS:
            out.append(line)
        else:
            out.extend(sentences(line))
    return out


_BULLET = re.compile(r"^[-*•]\s+")
_NUMBER = re.compile(r"\d")
_ENDS_SENTENCE = re.compile(r"[.!?。？！)\]다요]$")
# A field: a short label, a colon and its value ("대상: SolTrack WMS 웹 콘솔, 공개 API", "Gateway: vpn.example"). Short
# and unpunctuated, it looked like a heading, and the value a question asked for was never read. Possessive: linear.
_FIELD = re.compile(r"^[^:：]{1,30}+[:：]\s*+\S.{2,}")
MAX_SENTENCE_CHARS = 400
MAX_VALUE_CHARS = 24  # a bare value line: a time, a date, a figure with a note ("06:20 (주간조)")
_ENDS_CLAUSE = re.compile(r"[.!?。？！다요]$")  # `_ENDS_SENTENCE` but a closing bracket: "06:20 (주간조)" is a value
_CLOCK = re.compile(r"\d{1,2}:\d{2}(?!\d)")


def quotable_units(text: str, heading: str = "") -> list[str]:
    """A passage's units worth quoting as an answer line, bullets taken off; not clipped.

    People write lists without full stops: a bulleted item is quotable as it stands ("- Sorter capacity at Busan
    New Port Hub" under "Risks"), and a run of bare values, one per line (a timetable's "07:10", "08:20"), is one
    line under the last part of `heading` ("[출근] 하단역 출발: 06:20 (주간조), 07:10, 07:40, 08:20"): each value alone
    is too short to quote, and without its heading it would not say what it is. A line introducing what follows
    ("On the command line you can check the tunnel like this:") takes the next line when that one is too short to
    quote alone ("$ secureconnect status").

    A line of a fenced code block is one unit, marked as code: in backticks ("`SELECT name FROM repo;`"), so the
    answer stage knows it for code (`rag.answer.questions.code_line`)."""
    out: list[str] = []
    run: list[str] = []
    lead_in, shown = "", False  # "You can check the tunnel like this:" waits for the command it introduces
    for unit, code in _marked_units(text):
        sentence = unit if code else _BULLET.sub("", unit)
        if not code and _bare_value(sentence):
            run.append(" ".join(sentence.split()))
            lead_in = ""
            continue
        out.extend(_values_line(run, heading))
        run = []
        alone = quotable(sentence) or (sentence != unit and _item(sentence))
        if lead_in and not alone and sentence == unit:
            # The command is what the line says, and alone it is too short to quote.
            joined = f"{lead_in} {sentence}"
            if shown:
                out[-1] = joined
            else:
                out.append(joined)
            lead_in = ""
            continue
        if alone:
            out.append(sentence)
        introduces = len(sentence) >= 8 and sentence == unit and sentence.rstrip().endswith((":", "："))
        lead_in, shown = (sentence, alone) if introduces else ("", False)
    return out + _values_line(run, heading)


def _marked_units(text: str) -> list[tuple[str, bool]]:
    """`units` of the text, each with whether it is a line of a fenced code block (then whole, in backticks)."""
    out: list[tuple[str, bool]] = []
    prose: list[str] = []
    code = False
    for line in text.split("\n"):
        if line.strip() == FENCE:
            if not code:
                out.extend((u, False) for u in units("\n".join(prose)))
                prose = []
            code = not code
        elif code:
            if line.strip():
                out.append((f"`{line.strip()}`", True))
        else:
            prose.append(line)
    out.extend((u, False) for u in units("\n".join(prose)))
    return out


def _bare_value(unit: str) -> bool:
    """A short line holding a number that is not a field or a sentence ("08:20", "06:20 (주간조)")."""
    field = _FIELD.match(unit) and not _CLOCK.match(unit)  # "06:20" is a time, not a label and its value
    return len(unit) <= MAX_VALUE_CHARS and bool(_NUMBER.search(unit)) and not field and not _ENDS_CLAUSE.search(unit)


def _values_line(run: list[str], heading: str) -> list[str]:
    """A run of bare values as one line under its heading's last part; values each quotable alone (or a lone one)
    stay lines of their own, and a lone unquotable value is dropped."""
    if len(run) < 2 or all(quotable(v) for v in run):
        return [v for v in run if quotable(v)]
    label = _last_part(heading).strip()
    joined = ", ".join(run)
    return [f"{label}: {joined}" if label else joined]


def _last_part(heading: str) -> str:
    """The innermost heading of a heading path ("Leave > Carry-over": "Carry-over")."""
    return heading.rsplit(" > ", 1)[-1]


def _item(sentence: str) -> bool:
    """A list item worth quoting though unpunctuated: long enough to say something, and not a bare label."""
    return len(sentence) >= 8 and not sentence.rstrip().endswith((":", "："))


def quotable(sentence: str) -> bool:
    """A sentence worth quoting: not a fragment, and not a heading-like line ("회의실 예약", "Steps")."""
    if len(sentence) < 8:
        return False
    return bool(_ENDS_SENTENCE.search(sentence)) or len(sentence) > 40 or bool(_NUMBER.search(sentence)) or \
        bool(_FIELD.match(sentence))


def clip(sentence: str) -> str:
    """A sentence short enough to quote, cut at a clause boundary (never mid-word) with an ellipsis."""
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return sentence
    cut = max(sentence.rfind(mark, 0, MAX_SENTENCE_CHARS) for mark in (", ", "; ", " — ", "며 ", "고 "))
    if cut < MAX_SENTENCE_CHARS // 2:
        cut = sentence.rfind(" ", 0, MAX_SENTENCE_CHARS)
    return sentence[: max(cut, 1)].rstrip(" ,;") + " …"


def framed(heading: str, sentence: str) -> str:
    """A quotable sentence as the answer's reading embeds it: under its section heading ("오전 9시 30분까지
    오세요" is about the first day)."""
    if not heading:
        return sentence
    last = _last_part(heading)
    if sentence.startswith(f"{last}: "):  # a run of values already says its heading's last part
        return heading[: -len(last)] + sentence
    return f"{heading}: {sentence}"


def sentence_texts(chunk: Chunk) -> list[str]:
    """Every text the answer's reading may embed for this passage: its quotable sentences, clipped and framed.
    Embedded at index time (`rag.index.sentences`), so a turn only looks them up."""
    return [framed(chunk.heading, clip(s)) for s in quotable_units(chunk.text, chunk.heading)]


MAX_UNIT_FACTOR = 2  # an atomic unit up to this many chunk sizes stays whole (one over-size chunk)


# A code block's lines stand between fence lines in the chunk ("```"), as in Markdown: search reads them, and the
# answer stage knows them for code (`quotable_units` marks each as `code`).
FENCE = "```"


def fenced(code: str) -> str:
    """A code block as a chunk holds it: between fence lines."""
    return f"{FENCE}\n{code}\n{FENCE}"


def section_units(section: Section) -> list[str]:
    """A section's packing units: sentences of its paragraphs; its items, rows, definitions and code (fenced)
    whole."""
    out: list[str] = []
    for block in section.blocks:
        if block.kind == "code":
            out.append(fenced(block.text.strip("\n")) if block.text.strip() else "")
        elif block.kind in ATOMIC_KINDS:
            out.append(block.text.strip())
        else:
            out.extend(sentences(block.text))
    return [u for u in out if u]


def heading_path(doc: Document, section: Section) -> str:
    """The chunk's heading: the section's heading path below the document title ("Leave > Carry-over").

    The title is left out as it stands in the document's top heading, which may word it otherwise than the
    title property or front matter ("Remote Work Policy (version 3)" under the title "Remote Work Policy v3",
    "국내 출장 규정" under "국내 출장 규정 (2026)"): a heading over every section that shares most of its words
    with the title is the title."""
    path = list(section.path) or ([section.heading] if section.heading else [])
    if len(path) > 1 and (path[0] == doc.title or path[0] == _title_heading(doc)):
        path = path[1:]
    return " > ".join(path)


_WORD = re.compile(r"\w+")


def _title_heading(doc: Document) -> str:
    """The heading every headed section of the document sits under, when it words the title ("" otherwise)."""
    roots = {s.path[0] for s in doc.sections if s.path}
    if len(roots) != 1:
        return ""
    (root,) = roots
    words = {w.casefold() for w in _WORD.findall(root)}
    title = {w.casefold() for w in _WORD.findall(doc.title)}
    return root if words and len(words & title) >= 0.5 * len(words) else ""


class Chunker(Protocol):
    """Turns a document into chunks."""

    def chunk(self, doc: Document) -> list[Chunk]:
        """Chunks in document order, numbered from 0."""
        ...


def _hard_split(sentence: str, size: int) -> list[str]:
    return [sentence[i : i + size] for i in range(0, len(sentence), size)]


def _fit(unit: str, size: int) -> list[str]:
    """A unit as pieces the packer can place: whole up to MAX_UNIT_FACTOR sizes when it is one line (a row,
    an item); longer, split at sentence ends, then hard."""
    if len(unit) <= size:
        return [unit]
    if len(unit) <= size * MAX_UNIT_FACTOR and "\n" not in unit and _LIST_ITEM.match(unit):
        return [unit]
    if unit.startswith(FENCE + "\n") and unit.endswith("\n" + FENCE):  # each piece of a long code block fenced
        room = max(size - 2 * len(FENCE) - 2, 1)
        lines = [p for line in unit.split("\n")[1:-1] for p in (_hard_split(line, room) if len(line) > room else [line])]
        return [fenced(piece) for piece in pack(lines, room, 0)]
    out: list[str] = []
    for part in sentences(unit) if "\n" not in unit else unit.split("\n"):
        out.extend(_hard_split(part, size) if len(part) > size else [part])
    return out


def pack(parts: list[str], size: int, overlap: int) -> list[str]:
    """Greedily pack sentences into pieces of at most `size` chars, repeating up to `overlap` chars."""
    pieces_in = [u for p in parts for u in _fit(p, size)]
    pieces: list[str] = []
    current: list[str] = []
    for unit in pieces_in:
        if current and len(JOIN.join(current + [unit])) > size:
            pieces.append(JOIN.join(current))
            current = _tail(current, overlap)
            while current and len(JOIN.join(current + [unit])) > size:
                current.pop(0)
        current.append(unit)
    if current:
        pieces.append(JOIN.join(current))
    return pieces


def _tail(units: list[str], overlap: int) -> list[str]:
    """The last sentences of a piece whose length fits in the overlap budget."""
    tail: list[str] = []
    for unit in reversed(units):
        if len(JOIN.join([unit] + tail)) > overlap:
            break
        tail.insert(0, unit)
    return tail


def _number(doc: Document, pieces: list[tuple[str, str]]) -> list[Chunk]:
    return [Chunk(doc.path, n, doc.title, heading, text, doc.meta) for n, (heading, text) in enumerate(pieces)]


class OverlapChunker:
    """Packs sentences into chunks of about `size` characters with `overlap` characters repeated."""

    def __init__(self, size: int = 900, overlap: int = 150):
        if overlap >= size:
            raise ConfigurationError("DOCBOT_CHUNK_OVERLAP must be smaller than DOCBOT_CHUNK_SIZE")
        self.size, self.overlap = size, overlap

    def chunk(self, doc: Document) -> list[Chunk]:
        """Chunks in document order."""
        pieces = [
            (heading_path(doc, section), piece)
            for section in doc.sections
            for piece in pack(section_units(section), self.size, self.overlap)
        ]
        return _number(doc, pieces)


class SemanticChunker:
    """Cuts where adjacent-sentence similarity drops below the document's own low quantile.

    Costs one embedding per sentence at index time; pick it for long, loosely structured
    documents where fixed windows mix topics.
    """

    def __init__(self, embedder: Embedder, size: int = 900, quantile: float = 0.2, min_chars: int = 200):
        self.embedder, self.size, self.quantile, self.min_chars = embedder, size, quantile, min_chars

    def chunk(self, doc: Document) -> list[Chunk]:
        """Chunks in document order."""
        pieces = [(heading_path(doc, s), piece) for s in doc.sections for piece in self._split(section_units(s))]
        return _number(doc, pieces)

    def _split(self, sents: list[str]) -> list[str]:
        if len(sents) < 3:
            return pack(sents, self.size, 0)
        vectors = self.embedder.embed_passages(sents)
        sims = np.sum(vectors[:-1] * vectors[1:], axis=1)
        threshold = float(np.quantile(sims, self.quantile))
        groups: list[list[str]] = [[sents[0]]]
        for sentence, sim in zip(sents[1:], sims):
            if sim < threshold and len(JOIN.join(groups[-1])) >= self.min_chars:
                groups.append([])
            groups[-1].append(sentence)
        # A topic run longer than the size limit is still packed to fit the embedder's window.
        return [piece for g in groups for piece in pack(g, self.size, 0)]
