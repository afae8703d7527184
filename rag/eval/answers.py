"""Answer-level scoring: does what the user reads hold the fact the question asked for?

Gold facts (../shared/EVAL_FORMAT.md, "Answer-level gold"): `answer_contains` lists alternatives,
any one of which must appear; `answer_contains_all` lists groups that must all appear. Matching
normalises both sides the same way (Unicode NFKC, case-folded, markdown emphasis and digit-group
commas removed, whitespace collapsed) and respects word and number boundaries: an alternative that
begins or ends with an ASCII letter or digit must not continue a longer word or number there
("5%" does not match "95%", "CTO" does not match "CTOs", "1.5" does not match "11.5").

An answer is read as the user reads it: lines; a line's citations ([n]) name documents by the
numbering of the hits the answer was given. Its *lead* is the first line that cites a document
(the first bullet), or else its first sentence.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

# Emphasis and code marks: **bold**, *italic*, __bold__, _italic_, `code`, ~~strike~~.
_EMPHASIS = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)|`+|~~")
_DIGIT_GROUP = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_SPACE = re.compile(r"\s+")
_CITATION = re.compile(r"\[(\d{1,3})\]")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?。？！])\s+")


def normalise(text: str) -> str:
    """The form both an answer and a gold alternative are compared in."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _EMPHASIS.sub("", text)
    text = _DIGIT_GROUP.sub("", text)
    return _SPACE.sub(" ", text).strip()


def _ascii_alnum(char: str) -> bool:
    return char.isascii() and char.isalnum()


def _continues(text: str, start: int, end: int, alternative: str) -> bool:
    """Whether the match text[start:end] is part of a longer ASCII word or number."""
    if _ascii_alnum(alternative[0]) and start > 0:
        before = text[start - 1]
        if _ascii_alnum(before):
            return True
        # "1.5" inside "11.5" / "1,5": a decimal or grouped number continues across the mark.
        if alternative[0].isdigit() and before in ".," and start > 1 and text[start - 2].isdigit():
            return True
    if _ascii_alnum(alternative[-1]) and end < len(text):
        after = text[end]
        if _ascii_alnum(after):
            return True
        if alternative[-1].isdigit() and after in ".," and end + 1 < len(text) and text[end + 1].isdigit():
            return True
    return False


def contains(text: str, alternative: str) -> bool:
    """Whether `alternative` appears in `text` under the gold matching rules."""
    needle, haystack = normalise(alternative), normalise(text)
    if not needle:
        return False
    start = haystack.find(needle)
    while start >= 0:
        if not _continues(haystack, start, start + len(needle), needle):
            return True
        start = haystack.find(needle, start + 1)
    return False


def gold_groups(turn: dict) -> list[list[str]] | None:
    """The turn's gold as groups that must all be found (one group for `answer_contains`); None without gold."""
    if turn.get("answer_contains_all"):
        return [list(group) for group in turn["answer_contains_all"] if group]
    if turn.get("answer_contains"):
        return [list(turn["answer_contains"])]
    return None


@dataclass(frozen=True)
class Line:
    """One line of an answer and the documents it cites."""

    text: str
    cited: tuple[str, ...]  # paths, in citation order

    @property
    def bullet(self) -> bool:
        return bool(_BULLET.match(self.text))


def read_answer(answer: str, numbered: dict[int, str]) -> list[Line]:
    """The answer's non-empty lines, each with the paths of the documents it cites."""
    lines = []
    for raw in answer.splitlines():
        if raw.strip():
            cited = tuple(dict.fromkeys(numbered[n] for n in map(int, _CITATION.findall(raw)) if n in numbered))
            lines.append(Line(raw.strip(), cited))
    return lines


def lead_of(lines: list[Line]) -> str:
    """What the user reads first as the answer: the first citing line, else the first sentence."""
    citing = next((line.text for line in lines if line.cited), None)
    if citing is not None:
        return citing
    body = " ".join(line.text for line in lines)
    return _SENTENCE_END.split(body, maxsplit=1)[0] if body else ""


def _holds(texts: list[str], group: list[str]) -> bool:
    return any(contains(text, alternative) for text in texts for alternative in group)


@dataclass
class AnswerScore:
    """One answer judged against its gold facts and relevant documents."""

    shown: bool = False
    grounded: bool = False
    leads: bool = False
    bullets: int = 0
    junk: int = 0  # bullets (citing lines) that cite no relevant document
    first_cited: str | None = None
    first_cited_relevant: bool | None = None
    missing: list[list[str]] = field(default_factory=list)  # groups not shown

    def as_row(self) -> dict:
        return {"fact_shown": self.shown, "fact_grounded": self.grounded, "fact_leads": self.leads,
                "junk_lines": self.junk, "first_cited": self.first_cited}


def score_answer(answer: str, numbered: dict[int, str], relevant: list[str],
                 groups: list[list[str]] | None) -> AnswerScore:
    """Fact shown / grounded / leads (None gold: only the line figures), junk lines, the first citation.

    With several groups (`answer_contains_all`) shown and grounded need every group; leads needs the
    lead to hold one of them (the answer starts with part of what was asked).
    """
    lines = read_answer(answer, numbered)
    wanted = set(relevant)
    citing = [line for line in lines if line.cited]
    result = AnswerScore(bullets=len(citing),
                         junk=sum(1 for line in citing if not wanted.intersection(line.cited)))
    first = next((line.cited[0] for line in citing), None)
    if first is not None:
        result.first_cited, result.first_cited_relevant = first, first in wanted
    if groups:
        everything = [line.text for line in lines]
        grounded_lines = [line.text for line in citing if wanted.intersection(line.cited)]
        result.missing = [g for g in groups if not _holds(everything, g)]
        result.shown = not result.missing
        result.grounded = all(_holds(grounded_lines, g) for g in groups)
        lead = lead_of(lines)
        result.leads = any(_holds([lead], g) for g in groups)
    return result
