"""Everything a page says is read (issue 50, item 4).

Real handbooks write raw HTML inside Markdown (a `<table>` whose cells hold blank lines and code, `<details>`,
`<p align=center>`, `<br>`), MDX components (`<Intro>`, `<Note>`, `<Sandpack>`, `import X from '…'`) and Hugo
shortcodes (`{{< note >}}`). The markup is dropped and every word inside it read; tables become labelled rows as
HTML and Markdown tables already do. Code blocks and log/JSON/SQL lines stay searchable but are never the line an
answer quotes for a question that is not about code. The fixtures here are written for these tests, shaped like
real pages.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from rag.answer.answerers import ExtractiveAnswerer
from rag.errors import DocumentError
from rag.ingest.loaders import _without_template_tags, load
from rag.retrieve.retriever import Retriever

from conftest import index_files

TABLE_PAGE = """---
title: Support rotation
description: Who covers the support queue and when.
---

# Support rotation

The rotation is shared by three teams.

<table>
<tr>
<th>Team</th>
<th>Days</th>
<th>Escalation</th>
</tr>
<tr>
<td><b>Search platform</b></td>
<td>

Monday and Tuesday

</td>
<td>Page the search lead<br>then the director</td>
</tr>
<tr>
<td>Code intelligence</td>
<td>Wednesday</td>
<td>

```sh
sg page code-intel
```

</td>
</tr>
<tr>
<td>Batch changes</td>
<td>Thursday and Friday</td>
<td>Post in #batch-changes-support</td>
</tr>
</table>

After the table, a paragraph of prose.
"""

# Every cell but the first column's header ("Team"): a row is written "Search platform — Days: …; Escalation: …" for
# every table of every format (rag.documents.row_text), naming its label column only when the label is a number.
TABLE_CELLS = ["Days", "Escalation", "Search platform", "Monday and Tuesday", "Page the search lead",
               "then the director", "Code intelligence", "Wednesday", "sg page code-intel", "Batch changes",
               "Thursday and Friday", "Post in #batch-changes-support"]

TABLE_ONLY_PAGE = """---
title: Holiday calendar
---

<table>
  <thead>
    <tr><th>Holiday</th><th>Date</th></tr>
  </thead>
  <tbody>
    <tr><td>New Year's Day</td><td>January 1</td></tr>
    <tr><td>Independence Day</td><td>July 4</td></tr>
  </tbody>
</table>
"""

DETAILS_PAGE = """# Expense FAQ

<details>
<summary>Can I expense a standing desk?</summary>

Yes, up to 400 USD once every three years.

</details>

<p align="center">Receipts are kept for seven years.</p>

Meals on a trip are covered:<br>breakfast, lunch and dinner.

<ul>
  <li>Taxis after 22:00 are covered.</li>
  <li>Parking at the airport is covered.</li>
</ul>

<!-- TODO: ask finance about per diems -->
"""

MDX_PAGE = """---
title: Managing state
---

import Sandpack from '@site/src/components/Sandpack';
import {Note, Intro} from '@site/src/components/MDX';

<Intro>

State lets a component remember what the user typed.

</Intro>

## Reacting to input {/*reacting-to-input*/}

<Note>

Declarative UI describes each visual state instead of the steps between them.

</Note>

<Sandpack>

```js
export default function Form() {
  return <form>Hello</form>;
}
```

</Sandpack>

A form has an <Em>empty</Em> state, a typing state and a submitted state.
"""

HUGO_PAGE = """---
title: Rotating credentials
---

# Rotating credentials

{{< note >}}
Service tokens expire after ninety days.
{{< /note >}}

{{% alert title="Warning" color="warning" %}}
Never paste a token into a public channel.
{{% /alert %}}

Rotate the token from the admin console{{< ref "console.md" >}} before it expires.

Questions go to {% slack_channel "security-help" %}{% comment %}TODO: link the runbook{% endcomment %}; see
[the guide]({% page "/security/tokens/" %}).

- {% slack_channel "security-ops" "Security Ops" %}
- {% include "footer.html" %}

An item with no text of its own leaves nothing behind.
"""

LOG_PAGE = """# Gitserver incident review

On March 3 the repository clones stalled for forty minutes while a disk filled up.

The first alert looked like this in the logs:

{"severity": "ERROR", "service.name": "gitserver", "msg": "clone failed: no space left on device"}

The team added a disk usage alert and doubled the volume size.

## Finding the affected repositories

```sql
SELECT name, last_fetched FROM repo WHERE last_fetched < now() - interval '1 hour';
```

2026-03-03T10:42:17Z WARN gitserver-0 janitor: skipped 14 repositories
"""


def _blocks_text(doc) -> str:
    return "\n".join(s.text for s in doc.sections)


def _squash(text: str) -> str:
    return "".join(text.split())


def test_every_cell_of_an_html_table_in_markdown_is_in_the_stored_chunks(tmp_path, analyzer, embedder):
    """Fails on the old loader: markdown-it's `html_block` tokens were ignored, so the table's cells were lost."""
    indexer = index_files(tmp_path, analyzer, embedder, {"support-rotation.md": TABLE_PAGE})
    stored = "\n".join(row[0] for row in indexer.index._db.execute("SELECT text FROM chunks"))
    for cell in TABLE_CELLS:
        assert cell in stored, cell
    assert "<td" not in stored and "<br" not in stored
    # read as a person reads a table: each row under its column names
    assert "Batch changes — Days: Thursday and Friday; Escalation: Post in #batch-changes-support." in stored
    assert "After the table, a paragraph of prose." in stored


def test_a_page_whose_body_is_only_an_html_table_is_indexed(tmp_path, analyzer, embedder):
    """Was skipped as "no text found"."""
    doc = load("holidays.md", TABLE_ONLY_PAGE.encode())
    assert "New Year's Day — Date: January 1." in _blocks_text(doc)
    indexer = index_files(tmp_path, analyzer, embedder, {"holidays.md": TABLE_ONLY_PAGE})  # asserts no errors
    stored = "\n".join(row[0] for row in indexer.index._db.execute("SELECT text FROM chunks"))
    assert "Independence Day — Date: July 4." in stored


def test_details_paragraphs_breaks_and_lists_keep_their_text():
    doc = load("expenses.md", DETAILS_PAGE.encode())
    text = _blocks_text(doc)
    for said in ("Can I expense a standing desk?", "Yes, up to 400 USD once every three years.",
                 "Receipts are kept for seven years.", "Taxis after 22:00 are covered.",
                 "Parking at the airport is covered."):
        assert said in text, said
    # <br> breaks a line as it does on the page
    assert "covered:\nbreakfast" in text or "covered: breakfast" in text
    assert "<" not in text and "TODO" not in text
    items = [b.text for s in doc.sections for b in s.blocks if b.kind == "item"]
    assert "- Taxis after 22:00 are covered." in items


def test_mdx_components_and_imports_are_markup_and_their_text_is_kept():
    doc = load("managing-state.mdx", MDX_PAGE.encode())
    text = _blocks_text(doc)
    for said in ("State lets a component remember what the user typed.",
                 "Declarative UI describes each visual state instead of the steps between them.",
                 "A form has an empty state, a typing state and a submitted state."):
        assert said in text, said
    for markup in ("import Sandpack", "@site/", "<Intro", "</Note", "<Sandpack", "<Em>", "{/*"):
        assert markup not in text, markup
    assert any(s.heading == "Reacting to input" for s in doc.sections)
    code = [b.text for s in doc.sections for b in s.blocks if b.kind == "code"]
    assert any("export default function Form()" in c for c in code)  # a code block stays code


def test_the_same_components_in_a_md_page_are_dropped_too():
    doc = load("managing-state.md", MDX_PAGE.replace("import", "").encode())
    assert "<Intro" not in _blocks_text(doc) and "State lets a component" in _blocks_text(doc)


def test_hugo_shortcodes_are_dropped_and_their_text_kept():
    doc = load("rotating.md", HUGO_PAGE.encode())
    text = _blocks_text(doc)
    assert "Service tokens expire after ninety days." in text
    assert "Never paste a token into a public channel." in text
    assert "Rotate the token from the admin console before it expires." in text
    assert "{{" not in text and "}}" not in text and "alert title" not in text
    # Jekyll/Liquid tags as well: a Slack channel tag shows its channel, a comment and a page link are markup
    assert "Questions go to #security-help; see the guide." in text
    assert "{%" not in text and "TODO" not in text
    assert "- #security-ops" in text and "An item with no text of its own leaves nothing behind." in text


@pytest.mark.parametrize("page, reason", [
    ("---\ntitle: Placeholder\nowner: Ops\n---\n", "only front matter"),
    ("---\ntitle: Diagram\n---\n\n<Diagram name=\"flow\" />\n\n<!-- to be written -->\n", "only markup"),
    ("![](arch.png)\n\n![](flow.svg)\n", "only images"),  # an image's alt text is read as its text
])
def test_a_skipped_page_names_the_real_reason(page, reason):
    with pytest.raises(DocumentError) as caught:
        load("page.md", page.encode())
    assert reason in str(caught.value)


CODE_LINES = [
    '{"severity": "ERROR", "service.name": "gitserver", "msg": "clone failed"}',
    '"service.name": "gitserver",',
    "SELECT name, last_fetched FROM repo WHERE last_fetched < now() - interval '1 hour';",
    "2026-03-03T10:42:17Z WARN gitserver-0 janitor: skipped 14 repositories",
    "[2026-03-03 10:42:17] ERROR worker: job 1234 failed",
    "level=error ts=2026-03-03T10:42:17Z caller=main.go:88 msg=\"no space left\"",
    "github.com/sourcegraph/sourcegraph/internal/gitserver.(*Client).Exec()",
    "func (c *Client) Exec(ctx context.Context, args ...string) error {",
    "$ kubectl -n prod rollout restart deploy/gitserver",
    "export default function Form() {",
    "return <form>Hello</form>;",
    "}",
    "<img src=\"/images/flow.png\" width=\"300\" />",
    "import {act} from 'react';",
    "`enabled: true`",  # a line the chunker marked as the inside of a code block
]

PROSE_LINES = [
    "The team added a disk usage alert and doubled the volume size.",
    "On-call engineers receive 50,000 KRW per weekday (2026-01-01 onwards).",
    "Owner: Finance",
    "Batch changes — Days: Thursday and Friday; Escalation: Post in #batch-changes-support.",
    "Use the `sg start` command to run the stack locally.",
    'He said "ship it" (twice) and we did: release 5.2 went out on Friday.',
    "Select the repositories you want, then click Save.",
    "SEV3: 경미한 장애, 우회 방법이 있는 문제. 다음 영업일에 처리합니다.",
    "From 09:00 to 18:00 the office is open.",
    "- Taxis after 22:00 are covered.",
    # prose about code from real documentation pages, not code itself
    "그러나 size={null} 또는 size={0}으로 전달된다면, 기본값은 사용되지 않습니다.",
    "Operating system interfaces (e.g., filesystem, execution environment, sockets);",
    '"jsx": "react" 또는 "jsx": "preserve" 인 경우 react.',
    "package (multiple files): Go, Java, Kotlin, Scala.",
    "(예: 목록을 전달하고 props.id를 읽습니다.)",
]


@pytest.mark.parametrize("line", CODE_LINES)
def test_a_code_log_or_json_line_is_told_from_prose(line):
    from rag.answer.questions import code_line

    assert code_line(line)


@pytest.mark.parametrize("line", PROSE_LINES)
def test_prose_is_not_code(line):
    from rag.answer.questions import code_line

    assert not code_line(line)


@pytest.mark.parametrize("question, about_code", [
    ("Which command restarts gitserver?", True),
    ("What's the SQL query to find stale repositories?", True),
    ("Show me a config snippet for the completions provider", True),
    ("what is the syntax for a search filter?", True),
    ("gitserver 재시작 명령어가 뭐야?", True),
    ("Which service went down during the March incident?", False),
    ("How long did the clones stall?", False),
    ("연차는 며칠이야?", False),
])
def test_a_question_about_code_is_told_apart(question, about_code):
    from rag.answer.questions import asks_for_code

    assert asks_for_code(question) == about_code


def test_a_code_block_is_marked_in_the_chunk_and_its_lines_in_the_quotable_units():
    from rag.ingest.chunking import OverlapChunker, quotable_units

    doc = load("gitserver.md", LOG_PAGE.encode())
    chunks = OverlapChunker(900, 150).chunk(doc)
    text = "\n".join(c.text for c in chunks)
    assert "```\nSELECT name" in text
    units = [u for c in chunks for u in quotable_units(c.text, c.heading)]
    assert any(u.startswith("`SELECT name") and u.endswith("`") for u in units)


def test_a_long_code_block_split_across_chunks_stays_marked_in_each():
    from rag.ingest.chunking import OverlapChunker

    code = "\n".join(f"    step_{n} = run('job {n}', retries=3)" for n in range(80))
    doc = load("long.md", f"# Long job\n\nThe job runs these steps.\n\n```python\n{code}\n```\n".encode())
    chunks = [c.text for c in OverlapChunker(900, 150).chunk(doc) if "step_" in c.text]
    assert len(chunks) > 1
    assert all(c.count("```") % 2 == 0 and "```" in c for c in chunks)


async def _answer(indexer, analyzer, embedder, question: str) -> list[str]:
    hits = Retriever(indexer.index, embedder).search(question, 5)
    pieces = [p async for p in ExtractiveAnswerer(analyzer, embedder).answer(question, question, hits, [])]
    return [line for line in "".join(pieces).splitlines() if line.startswith("• ")]


async def test_a_code_or_log_line_is_searchable_but_never_quoted_for_a_prose_question(tmp_path, analyzer, embedder):
    from rag.answer.questions import code_line

    indexer = index_files(tmp_path, analyzer, embedder, {
        "gitserver-incident.md": LOG_PAGE,
        "expenses.md": DETAILS_PAGE,
        "support-rotation.md": TABLE_PAGE})
    # found by search: the log line and the SQL block are indexed
    for query in ('"service.name": "gitserver" clone failed', "SELECT name, last_fetched FROM repo"):
        hits = Retriever(indexer.index, embedder).search(query, 3)
        assert hits and hits[0].chunk.path == "gitserver-incident.md", query
    for question in ("Which service failed during the incident?", "What went wrong with gitserver?",
                     "Which repositories were affected?", "Why did the clones stall?"):
        bullets = await _answer(indexer, analyzer, embedder, question)
        quoted = [re.sub(r"^• |\s*\[\d+\]$", "", b) for b in bullets]
        assert not any(code_line(q) for q in quoted), (question, quoted)
        assert not any("service.name" in q or "SELECT" in q or "janitor" in q for q in quoted), (question, quoted)
    # ... while a question about code may quote it
    bullets = await _answer(indexer, analyzer, embedder, "What SQL query finds the affected repositories?")
    assert any("SELECT name, last_fetched" in b for b in bullets), bullets


CORPORA = Path(__file__).resolve().parent.parent / "eval" / "corpora"


def _table_pages() -> list[Path]:
    if not CORPORA.is_dir():
        return []
    return sorted(p for p in CORPORA.glob("*/docs/**/*") if p.suffix in (".md", ".mdx", ".markdown")
                  and "<table" in p.read_text(encoding="utf-8", errors="replace"))


@pytest.mark.skipif(not _table_pages(), reason="no real corpus with HTML tables under eval/corpora/*/docs")
def test_every_html_table_cell_of_the_real_corpora_is_read():
    """Each page of the real corpora present that holds a `<table>`: every non-empty cell's text (as the page
    renders it) is in what the loader read, but the header of a headed table's label column (see TABLE_CELLS)."""
    md = MarkdownIt("commonmark").enable("table")
    missing: list[str] = []
    for page in _table_pages():
        raw = page.read_bytes()
        read = _squash(_blocks_text(load(str(page), raw)))
        # as the site shows it: template tags rendered ("{% slack_channel "sf" %}" is "#sf"), see the Hugo test
        soup = BeautifulSoup(md.render(_without_template_tags(raw.decode("utf-8"))), "html.parser")
        for table in soup.find_all("table"):
            first = table.find("tr")
            label_header = first.find(["td", "th"]) if first and len(first.find_all(["td", "th"])) > 1 else None
            for cell in table.find_all(["td", "th"]):
                said = _squash(cell.get_text())
                if said and said not in read and cell is not label_header:
                    missing.append(f"{page.relative_to(CORPORA)}: {cell.get_text(' ', strip=True)[:80]}")
    assert not missing, f"{len(missing)} cells lost, e.g. {missing[:5]}"
