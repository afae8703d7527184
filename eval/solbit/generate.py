#!/usr/bin/env python3
"""Generate the Solbit Logistics evaluation corpus into docs/ (deterministic).

Needs: fpdf2, python-docx, python-pptx, openpyxl, and the Nanum Gothic font
(Debian package fonts-nanum, /usr/share/fonts/truetype/nanum/). The generated
files are committed, so running the eval does not need any of these.

    python3 -m venv /tmp/corpusvenv
    /tmp/corpusvenv/bin/pip install fpdf2 python-docx python-pptx openpyxl pypdf
    apt-get install -y fonts-nanum
    /tmp/corpusvenv/bin/python eval/solbit/generate.py
"""
import logging
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "generator"))

import text_docs  # noqa: E402
import html_docs  # noqa: E402
import pdf_docs  # noqa: E402
import office_docs  # noqa: E402

DOCS = os.path.join(HERE, "docs")


def out(rel):
    path = os.path.join(DOCS, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


def main():
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    if os.path.isdir(DOCS):
        shutil.rmtree(DOCS)
    for rel, text in {**text_docs.DOCS, **html_docs.DOCS}.items():
        with open(out(rel), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    for rel, spec in pdf_docs.PDFS.items():
        pdf_docs.build(out(rel), spec["title"], spec["author"], spec["code"], spec["blocks"])
    for rel, fn in office_docs.OFFICE.items():
        fn(out(rel))
    n = sum(len(fs) for _, _, fs in os.walk(DOCS))
    print(f"wrote {n} documents to {DOCS}")


if __name__ == "__main__":
    main()
