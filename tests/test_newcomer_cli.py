"""The smaller things a newcomer meets in the first hour (issue 54, item 7): the configuration reference
lists every setting, `.env.example` points at sections that exist, `docbot status` is whole when piped,
`--debug` keeps the exit code, and `docbot --version`."""
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from docbot.cli import app
from docbot.settings import Settings, known_variables, variable

ROOT = Path(__file__).resolve().parent.parent


def test_the_configuration_reference_lists_every_setting():
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", doc))
    settings = {variable(field) for field in Settings.model_fields} | {"DOCBOT_LOG_FORMAT", "DOCBOT_DEBUG"}
    assert sorted(settings - listed) == []


def test_env_example_names_real_variables_and_sections_that_exist():
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    named = set(re.findall(r"^#\s*([A-Z][A-Z0-9_]+)=", example, re.M))
    assert named and sorted(named - known_variables()) == []
    pointers = re.findall(r"(README|docs/[\w-]+\.md) \"([^\"]+)\"", example)
    assert pointers
    for where, section in pointers:
        text = (ROOT / ("README.md" if where == "README" else where)).read_text(encoding="utf-8")
        headings = [h.strip() for h in re.findall(r"^#+ (.+)$", text, re.M)]
        assert any(h.startswith(section) for h in headings), f'{where} has no section "{section}"'


def test_version():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"docbot {version('docbot')}", result.output


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCBOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("COLUMNS", raising=False)  # piped output: rich would fall back to 80 columns
    for name in ("DOCBOT_DATABASE_URL", "DOCBOT_INDEX", "DOCBOT_SOURCES", "SLACK_BOT_TOKEN", "MICROSOFT_APP_ID"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_status_is_not_cut_at_80_columns_when_piped(env):
    result = CliRunner().invoke(app, ["status"])
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if " id " in line)
    for column in ("trigger", "status", "started", "seconds", "added", "updated", "unchanged", "deleted", "chunks",
                   "errors"):
        assert f" {column} " in header, result.output
    assert "…" not in result.output


def _docbot(*args: str, cwd: Path, **variables: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCBOT_", "SLACK_", "OPENAI_", "MICROSOFT_"))}
    return subprocess.run([sys.executable, "-c", "from docbot.cli import main; main()", *args], cwd=cwd,
                          env={**env, "DOCBOT_DATA_DIR": str(cwd / "data"), **variables}, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("command, variables", [
    ("status", {"DOCBOT_DATABASE_URL": "mysql://root@localhost/docbot"}),  # refused while reading the settings
    ("serve", {"SLACK_BOT_TOKEN": "xoxb-1"}),  # refused by the platform check of a command
])
def test_debug_keeps_the_exit_code_and_adds_the_traceback(tmp_path, command, variables):
    plain = _docbot(command, cwd=tmp_path, **variables)
    debug = _docbot("--debug", command, cwd=tmp_path, **variables)
    assert plain.returncode == 2 and "Traceback" not in plain.stderr, plain.stderr
    assert debug.returncode == 2 and "Traceback" in debug.stderr, debug.stderr
    assert plain.stderr.strip().splitlines()[0] in debug.stderr  # the explanation too, not the traceback alone
