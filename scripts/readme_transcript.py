"""Write the README's example transcript from a real run, so it cannot drift from what docbot prints.

    python scripts/readme_transcript.py           # index the bundled handbook in a temporary folder, chat, write
    python scripts/readme_transcript.py --check   # exit 1 if the README's block differs from a fresh run

The questions below are piped to `docbot chat` (offline, as a newcomer's first `make run`), and its
output replaces the block between the README's `transcript:start` and `transcript:end` markers.
tests/test_readme_transcript.py runs the same chat and compares.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from itertools import groupby
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
HANDBOOK = ROOT / "samples" / "handbook"
QUESTIONS = ["배포 절차 문서 요약해줘", "그럼 그건 언제 바뀐 거야?", "/new", "연차는 1년에 며칠이야?",
             "Can I bring my dog to the office?"]
BLOCK = re.compile(r"(<!-- transcript:start[^\n]*-->\n```\n)(.*?)(```\n<!-- transcript:end -->)", re.S)


def chat_output(invoke) -> str:
    """The chat's stdout for QUESTIONS through `invoke(*args, input=...)` (a typer CliRunner), tidied:
    trailing spaces dropped, blank runs folded (what a reader sees)."""
    result = invoke("chat", input="\n".join(QUESTIONS) + "\n")
    text = "\n".join(line.rstrip() for line in result.stdout.splitlines())
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


_CITED = re.compile(r"\[\d+\]")


def comparable(text: str) -> str:
    """The transcript with each run of uncited bullets (a "maybe related" list) in sorted order. Those documents
    come in retrieval order, and two of them can sit a few hundredths of a z-score apart: another CPU's float path
    swaps them (the README's run and CI's did). A cited answer's lines keep their order: which line leads matters."""
    out: list[str] = []
    for uncited, run in groupby(text.splitlines(), key=lambda line: line.startswith("• ") and not _CITED.search(line)):
        lines = list(run)
        out.extend(sorted(lines) if uncited else lines)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def readme_block(text: str | None = None) -> str:
    match = BLOCK.search(text if text is not None else README.read_text(encoding="utf-8"))
    if not match:
        raise SystemExit("README.md has no transcript:start / transcript:end block")
    return match.group(2)


def fresh(data: Path | None = None) -> str:
    """Index the handbook into a temporary data folder (or use `data`) and run the chat, in this process."""
    from typer.testing import CliRunner

    from docbot.cli import app

    with tempfile.TemporaryDirectory(prefix="docbot-transcript-") as tmp:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DOCBOT_", "OPENAI_", "SLACK_", "MICROSOFT_", "ELASTICSEARCH_"))}
        env["DOCBOT_DATA_DIR"] = str(data.resolve()) if data else tmp
        os.environ.clear()
        os.environ.update(env)
        os.chdir(tmp)  # no .env of the checkout
        runner = CliRunner()
        indexed = runner.invoke(app, ["index", str(HANDBOOK)])
        if indexed.exit_code != 0:
            raise SystemExit(indexed.output)
        return chat_output(lambda *args, input=None: runner.invoke(app, list(args), input=input))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--data", type=Path, help="a data folder where the handbook is already indexed")
    args = parser.parse_args()
    text = README.read_text(encoding="utf-8")
    current = readme_block(text)
    new = fresh(args.data)
    if args.check:
        same = comparable(new) == comparable(current)
        print("README transcript is current" if same else "README transcript differs; run this script")
        return 0 if same else 1
    text = README.read_text(encoding="utf-8")  # again: the README may have been edited meanwhile
    README.write_text(BLOCK.sub(lambda m: m.group(1) + new + m.group(3), text), encoding="utf-8")
    print(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
