"""No evaluation question is quoted in the product (issue 51 item 1).

A rule, an example sentence or a comment written around an eval question makes that question's figure say
nothing about questions nobody has seen. The questions are read from eval/ at run time (every *.jsonl, the
corpora and Solbit sets included), so this file quotes none of them; each one of at least MIN_CHARS characters
must not appear, verbatim, in any code or data file under the product's packages. A quote that a comment wraps
over two lines counts too: line breaks, the indentation and a comment's "#" after them read as one space.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT / "eval"
PRODUCT = ("rag", "bot", "adapters", "docbot")
SUFFIXES = {".py", ".tsv", ".jsonl", ".json", ".txt"}
MIN_CHARS = 12  # a shorter one (a bare "and for X?") is an everyday phrase, not a question's fingerprint

_SPACE = re.compile(r"\s+")
_LINE_BREAK = re.compile(r"[ \t]*\n[ \t]*(?:#[ \t]*)?")  # a wrapped comment or docstring line goes on after it


def _asked(row: object) -> list[str]:
    """The user's messages of one eval row: its turns, or a row that is one question."""
    if not isinstance(row, dict):
        return []
    said = [turn.get("user") for turn in row.get("turns") or [] if isinstance(turn, dict)]
    said += [row.get("user"), row.get("question")]
    return [text for text in said if isinstance(text, str)]


def eval_questions() -> set[str]:
    questions: set[str] = set()
    for path in sorted(EVAL.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            questions.update(text.strip() for text in _asked(row) if len(text.strip()) >= MIN_CHARS)
    return questions


def product_files() -> list[Path]:
    return sorted(path for package in PRODUCT for path in (ROOT / package).rglob("*")
                  if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts)


def quoted_in(text: str, questions: dict[str, str]) -> list[str]:
    """The questions (each mapped to its one-line spelling) the text contains, as written or wrapped over lines."""
    unwrapped = _LINE_BREAK.sub(" ", text)
    return sorted(q for q, flat in questions.items() if q in text or flat in unwrapped)


def test_the_eval_sets_are_read():
    assert len(eval_questions()) > 1000  # an empty set would pass the test below for the wrong reason


def test_no_eval_question_is_quoted_in_the_product():
    questions = {q: _SPACE.sub(" ", q) for q in eval_questions()}
    found = {path: quoted_in(path.read_text(encoding="utf-8", errors="replace"), questions)
             for path in product_files()}
    found = {path: quotes for path, quotes in found.items() if quotes}
    if found:
        count = sum(len(quotes) for quotes in found.values())
        listing = "".join(f"  {path.relative_to(ROOT)}: {len(quotes)}\n" + "".join(f"      {q!r}\n" for q in quotes)
                          for path, quotes in found.items())
        pytest.fail(f"{count} eval question(s) quoted in {len(found)} product file(s); say the same thing with a "
                    f"question that is in no eval set:\n{listing}", pytrace=False)
