#!/usr/bin/env python3
"""Check dev.jsonl / holdout.jsonl against docs/ and print corpus counts.

Needs pypdf, python-docx, python-pptx, openpyxl (e.g. /tmp/corpusvenv/bin/python validate.py).
Checks: every `relevant` file exists; every `answer_contains` alternative (and every
alternative of every `answer_contains_all` group) occurs in the text of some relevant
document, as a person reads it (HTML tags, markdown emphasis removed; whitespace, NFKC
and case normalised); format/cross-language/unanswerable minimums.
"""
import collections
import html
import json
import os
import re
import sys
import unicodedata
from html.parser import HTMLParser

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "docs")
sys.path.insert(0, HERE)
from gold import DOC_LANG  # noqa: E402


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        self.parts.append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


CONTENT_START = ['id="main-content"', 'class="page-body"', 'class="CanvasZone"', 'class="tyJCtd"']
CONTENT_END = ['id="likes-and-labels-container"', 'class="page-feedback"', 'class="sp-feedback"', 'class="helpful"']


def text_of(path, main_only=True):
    ext = path.rsplit(".", 1)[1]
    if ext in ("md", "txt"):
        t = open(path, encoding="utf-8").read()
        return re.sub(r"(\*\*|__|`)", "", t)
    if ext == "html":
        raw = open(path, encoding="utf-8").read()
        if main_only:  # the page content only: no navigation, byline, comments or widgets
            start = min(raw.find(m) for m in CONTENT_START if m in raw)
            end = min(raw.find(m, start) for m in CONTENT_END if raw.find(m, start) > 0)
            raw = raw[raw.find(">", start) + 1:end]
        p = _Text()
        p.feed(raw)
        return html.unescape("".join(p.parts))
    if ext == "pdf":
        from pypdf import PdfReader
        return "\n".join(pg.extract_text() for pg in PdfReader(path).pages)
    if ext == "docx":
        import docx
        d = docx.Document(path)
        out = [p.text for p in d.paragraphs]
        for t in d.tables:
            for row in t.rows:
                out.append(" | ".join(c.text for c in row.cells))
        return "\n".join(out)
    if ext == "pptx":
        from pptx import Presentation
        out = []
        for s in Presentation(path).slides:
            for sh in s.shapes:
                if sh.has_text_frame:
                    out.append(sh.text_frame.text)
                if getattr(sh, "has_table", False) and sh.has_table:
                    for row in sh.table.rows:
                        out.append(" | ".join(c.text for c in row.cells))
            if s.has_notes_slide:
                out.append(s.notes_slide.notes_text_frame.text)
        return "\n".join(out)
    if ext == "xlsx":
        import openpyxl
        out = []
        for ws in openpyxl.load_workbook(path).worksheets:
            for row in ws.iter_rows(values_only=True):
                out.append(" | ".join(f"{v:,}" if isinstance(v, int) else str(v) for v in row if v is not None))
        return "\n".join(out)
    raise ValueError(path)


def norm(s):
    s = unicodedata.normalize("NFKC", s).casefold()
    return re.sub(r"\s+", " ", s).strip()


def main():
    errors = []
    files = sorted(os.path.relpath(os.path.join(r, f), DOCS) for r, _, fs in os.walk(DOCS) for f in fs)
    texts = {f: norm(text_of(os.path.join(DOCS, f))) for f in files}
    fmt_count = collections.Counter(f.rsplit(".", 1)[1] for f in files)
    lang_count = collections.Counter(DOC_LANG.get(f, "?") for f in files)
    for f in files:
        if f not in DOC_LANG:
            errors.append(f"document without a language in gold.DOC_LANG: {f}")

    stats = collections.Counter()
    turn_formats = collections.Counter()
    used_docs = set()
    for name in ("dev.jsonl", "holdout.jsonl"):
        for ln, line in enumerate(open(os.path.join(HERE, name), encoding="utf-8"), 1):
            conv = json.loads(line)
            unans = any(t.get("answerable") is False for t in conv["turns"])
            stats[f"{name}:{'unanswerable' if unans else 'conversations'}"] += 1
            if not unans:
                if not 1 <= len(conv["turns"]) <= 4:
                    errors.append(f"{name}:{ln} has {len(conv['turns'])} turns")
            for ti, t in enumerate(conv["turns"], 1):
                where = f"{name}:{ln} ({conv['id']} turn {ti})"
                stats[f"intent:{t['intent']}"] += 1
                if t.get("answerable") is False:
                    if t["relevant"]:
                        errors.append(f"{where}: unanswerable with relevant files")
                    continue
                if t["intent"] != "knowledge_search":
                    if t["relevant"]:
                        errors.append(f"{where}: non-document turn with relevant files")
                    continue
                stats["document turns"] += 1
                stats["followups" if ti > 1 else "first turns"] += 1
                if t.get("multi_hop"):
                    stats["multi_hop turns"] += 1
                if t.get("cross_language"):
                    stats["cross-language turns"] += 1
                if t.get("history_dependent"):
                    stats["history_dependent turns"] += 1
                fmts = t["format"] if isinstance(t["format"], list) else [t["format"]]
                for fm in fmts:
                    turn_formats[fm] += 1
                for r in t["relevant"]:
                    used_docs.add(r)
                    if r not in texts:
                        errors.append(f"{where}: missing document {r}")
                if "answer_contains_all" in t:
                    groups = t["answer_contains_all"]
                    stats["answer_contains_all turns"] += 1
                elif t.get("answer_contains") is None:
                    groups = []
                    stats["null-answer turns"] += 1
                else:
                    groups = [t["answer_contains"]]
                for g in groups:
                    for alt in g:
                        if not any(norm(alt) in texts.get(r, "") for r in t["relevant"]):
                            errors.append(f"{where}: {alt!r} not found in {t['relevant']}")

    print("documents:", len(files), dict(sorted(fmt_count.items())), "languages:", dict(lang_count))
    print("documents never cited by a turn:", sorted(set(files) - used_docs))
    for k in sorted(stats):
        print(f"  {k}: {stats[k]}")
    print("document turns by format of the relevant file:", dict(sorted(turn_formats.items())))
    conv = stats["dev.jsonl:conversations"] + stats["holdout.jsonl:conversations"]
    unans = stats["dev.jsonl:unanswerable"] + stats["holdout.jsonl:unanswerable"]
    share = stats["cross-language turns"] / max(1, stats["document turns"])
    print(f"conversations {conv}, unanswerable {unans}, cross-language share {share:.0%}")
    checks = [(len(files) >= 44, "≥44 documents"), (fmt_count["html"] >= 10, "≥10 html"), (fmt_count["pdf"] >= 8, "≥8 pdf"),
              (fmt_count["docx"] + fmt_count["pptx"] + fmt_count["xlsx"] >= 6, "≥6 office"),
              (conv >= 44, "≥44 conversations"), (unans >= 32, "≥32 unanswerable"), (share >= 0.30, "≥30% cross-language")]
    for ok, what in checks:
        if not ok:
            errors.append(f"minimum not met: {what}")
    for e in errors:
        print("ERROR", e)
    print("OK" if not errors else f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
