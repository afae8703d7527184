"""The README's example transcript is what `docbot chat` prints on the bundled handbook today."""
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import readme_transcript  # noqa: E402

from docbot.cli import app  # noqa: E402
from docbot.runtime import Runtime  # noqa: E402


class Shared:
    """The session's handbook index, which a command's runtime must not close."""

    def __init__(self, index):
        self._index = index

    def __getattr__(self, name):
        return getattr(self._index, name)

    def close(self):
        pass


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in list(__import__("os").environ):
        if name.startswith(("DOCBOT_", "OPENAI_", "SLACK_", "MICROSOFT_", "ELASTICSEARCH_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("DOCBOT_DATA_DIR", str(tmp_path / "data"))


def test_the_readme_transcript_is_what_the_chat_prints(env, monkeypatch, warm, handbook_indexer):
    import docbot.cli

    def runtime(settings):
        built = warm(Runtime(settings))
        built.__dict__["index"] = Shared(handbook_indexer.index)
        return built

    monkeypatch.setattr(docbot.cli, "Runtime", runtime)
    runner = CliRunner()
    printed = readme_transcript.chat_output(lambda *args, input=None: runner.invoke(app, list(args), input=input))
    assert "[1]" in printed  # a cited answer, not an error
    expected = readme_transcript.comparable(readme_transcript.readme_block())
    assert expected == readme_transcript.comparable(printed), "run python scripts/readme_transcript.py"


def test_only_a_maybe_related_list_is_compared_in_any_order():
    """Near-tied documents may swap on another CPU; an answer's cited lines may not."""
    related = "Maybe related:\n• B (b.md)\n• A (a.md)\n"
    assert readme_transcript.comparable(related) == "Maybe related:\n• A (a.md)\n• B (b.md)\n"
    cited = "• second fact [2]\n• first fact [1]\n"
    assert readme_transcript.comparable(cited) == cited
