"""Every misconfiguration a newcomer makes ends in one or two plain lines naming the variable and the fix,
and exit 2; `--debug` shows the traceback."""
import socket

import pytest
from typer.testing import CliRunner

from docbot.cli import app, describe_sources
from docbot.runtime import Runtime
from docbot.settings import Settings, unknown_variables

PLATFORM = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN",
            "SLACK_CLIENT_ID", "MICROSOFT_APP_ID", "MICROSOFT_APP_PASSWORD", "DOCBOT_DATABASE_URL", "DOCBOT_SOURCES",
            "DOCBOT_DOCS", "DOCBOT_INDEX", "ELASTICSEARCH_URL", "DOCBOT_PORT")


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCBOT_DATA_DIR", str(tmp_path / "data"))
    for name in PLATFORM:
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def invoke(*args):
    return CliRunner().invoke(app, list(args))


def plain(result, code=2, lines=3):
    """Exit `code`, no traceback, at most `lines` lines of output (warnings about other variables aside)."""
    text = result.output
    assert result.exit_code == code, text
    assert "Traceback" not in text and "File \"" not in text, text
    shown = [line for line in text.splitlines() if line.strip() and not line.startswith("warning:")]
    assert 1 <= len(shown) <= lines, text
    return text


@pytest.mark.parametrize("value, why", [
    ('[{"path": "docs",}]', "column 18"),
    ("[{'path': 'docs'}]", "column 3"),
    ("docs/team", "column 1"),
    ("[", "column 2"),
])
def test_bad_json_in_docbot_sources_names_the_variable_and_the_position(env, monkeypatch, value, why):
    monkeypatch.setenv("DOCBOT_SOURCES", value)
    text = plain(invoke("status"))
    assert "DOCBOT_SOURCES is not valid JSON" in text and why in text and "Fix:" in text


def test_bad_json_in_dotenv_is_found_there_too(env):
    (env / ".env").write_text("DOCBOT_SOURCES=[{\"path\": \"docs\"},]\n")
    text = plain(invoke("status"))
    assert "DOCBOT_SOURCES is not valid JSON" in text and "column" in text


def test_an_unsupported_database_url(env, monkeypatch):
    monkeypatch.setenv("DOCBOT_DATABASE_URL", "mysql://root@localhost/docbot")
    text = plain(invoke("status"))
    assert "DOCBOT_DATABASE_URL" in text and "'mysql' databases are not supported" in text and "postgresql://" in text


def test_an_unreachable_database_hides_the_password(env, monkeypatch):
    monkeypatch.setenv("DOCBOT_DATABASE_URL", "postgresql://docbot:hunter2@127.0.0.1:1/docbot")
    monkeypatch.setenv("DOCBOT_RETRY_ATTEMPTS", "1")
    text = plain(invoke("status"))
    assert "DOCBOT_DATABASE_URL: cannot open the conversation database" in text and "Fix:" in text
    assert "hunter2" not in text and "127.0.0.1:1" in text


def test_a_port_in_use_names_docbot_port(env, monkeypatch):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        monkeypatch.setenv("DOCBOT_PORT", str(taken.getsockname()[1]))
        text = plain(invoke("serve"))
    finally:
        taken.close()
    assert "DOCBOT_PORT" in text and "already in use" in text and "DOCBOT_PORT=" in text


@pytest.mark.parametrize("variables, named", [
    ({"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
    ({"SLACK_SIGNING_SECRET": "s"}, "SLACK_BOT_TOKEN is not"),
    ({"MICROSOFT_APP_ID": "00000000-0000-0000-0000-000000000000"}, "MICROSOFT_APP_PASSWORD is not"),
])
def test_a_half_configured_platform_stops_at_once(env, monkeypatch, variables, named):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    for command in ("serve", "run"):
        text = plain(invoke(command))
        assert named in text and "Fix:" in text


def test_elasticsearch_unreachable_for_status_and_index(env, monkeypatch, docs):
    monkeypatch.setenv("DOCBOT_INDEX", "elasticsearch")
    monkeypatch.setenv("ELASTICSEARCH_URL", "http://127.0.0.1:1")
    monkeypatch.setenv("DOCBOT_RETRY_ATTEMPTS", "1")
    text = plain(invoke("status"))
    assert "ELASTICSEARCH_URL: cannot reach Elasticsearch at http://127.0.0.1:1" in text
    text = plain(invoke("index", str(docs)))
    assert "ELASTICSEARCH_URL" in text and "skipped" not in text  # explained before any work, not per source


def test_index_fails_when_every_source_was_skipped(env, monkeypatch):
    monkeypatch.setenv("DOCBOT_SOURCES", f'[{{"name": "team", "path": "{env / "missing"}"}}]')
    result = invoke("index")
    assert result.exit_code == 1 and "nothing was indexed" in result.output, result.output


def test_misspelt_variables_are_warned_with_the_closest_name(env, monkeypatch):
    monkeypatch.setenv("DOCBOT_TOPK", "3")
    monkeypatch.setenv("DOCBOT_SOURCE", "[]")
    (env / ".env").write_text("SLACK_BOT_TOKN=xoxb-1\nDOCBOT_TOP_K=4\n")
    warnings = "\n".join(unknown_variables())
    assert "DOCBOT_TOPK (in the environment)" in warnings and "did you mean DOCBOT_TOP_K?" in warnings
    assert "did you mean DOCBOT_SOURCES?" in warnings
    assert "SLACK_BOT_TOKN (in .env)" in warnings and "did you mean SLACK_BOT_TOKEN?" in warnings
    assert "DOCBOT_TOP_K " not in warnings and "DOCBOT_DATA_DIR" not in warnings
    assert "DOCBOT_TOPK" in invoke("status").output  # the CLI shows them


def test_debug_shows_the_traceback(env, monkeypatch):
    monkeypatch.setenv("DOCBOT_DATABASE_URL", "postgresql://docbot@127.0.0.1:1/docbot")
    monkeypatch.setenv("DOCBOT_RETRY_ATTEMPTS", "1")
    result = invoke("--debug", "status")
    # The traceback, then the same lines and the same exit code as without --debug (issue 54 item 7).
    assert result.exit_code == 2 and "Traceback" in result.output and "DOCBOT_DATABASE_URL" in result.output


def test_plain_index_says_which_sources_it_reads(env, monkeypatch, docs):
    assert "bundled sample handbook" in describe_sources(Runtime(Settings()))
    monkeypatch.setenv("DOCBOT_SOURCES", f'[{{"name": "team", "path": "{docs}"}}]')
    said = describe_sources(Runtime(Settings()))
    assert "your configured sources: team" in said and "sample" not in said
