"""Socket Mode as an operator sees it (issue 54, item 5): one line per failed connection attempt with the
reason and the fix (slack_sdk logs a ~35-line traceback per attempt), and one INFO line, at the default log
level, once it is connected, naming the workspace auth.test reports. The real slack_sdk against the
stand-in's Web API and Socket Mode endpoint; `docbot serve` itself for what the default level shows."""
import asyncio
import json
import logging
import os
import signal
import socket
import sys
import time

import pytest

from adapters.slack import SlackAdapter
from adapters.slack_socket import connect_socket_mode, socket_mode_handler, start_socket_mode

from conftest import service_over
from slack_standin import SlackStandIn


@pytest.fixture
async def slack():
    standin = await SlackStandIn().start()
    yield standin
    await standin.close()


@pytest.fixture
def service(tmp_path, analyzer, embedder, classifier):
    return service_over(tmp_path, analyzer, embedder, classifier, {"beacon.md": "# Beacon\n\nBeacon is our CI.\n"})


async def until(condition, timeout=300.0):  # a guard against a hang, not a budget
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the stand-in"
        await asyncio.sleep(0.02)


def slack_records(caplog):
    return [r for r in caplog.records if r.name.startswith(("adapters.slack", "slack_sdk", "slack_bolt"))]


@pytest.mark.parametrize("app_token, reason", [("xapp-unknown", "invalid_auth"),
                                               ("xoxb-test", "not_allowed_token_type")])
async def test_each_failed_attempt_is_one_line_with_the_reason_and_the_fix(slack, service, caplog, app_token, reason):
    caplog.set_level(logging.INFO)
    # At the default level, whatever an earlier test left on a parent logger: at DEBUG the SDK's records pass whole.
    caplog.set_level(logging.INFO, logger="adapters.slack.socket_mode")
    adapter = SlackAdapter(service, "xoxb-test", "", api_base_url=slack.base_url)
    handler = socket_mode_handler(adapter, app_token, retry_every=0.01)
    connecting = asyncio.create_task(connect_socket_mode(adapter, handler))
    try:
        await until(lambda: len(slack.refused) >= 3)
    finally:
        await handler.close_async()
        await asyncio.wait_for(connecting, 300)  # the connect loop ends once the handler is closed
    assert {r for r in slack.refused} == {("apps.connections.open", reason)}
    shown = [r for r in slack_records(caplog) if r.levelno >= logging.WARNING]
    # The attempt refused while the handler closed is not reported; every other one is, once.
    assert len(slack.refused) - 1 <= len(shown) <= len(slack.refused), [r.getMessage() for r in shown]
    for record in shown:
        line = record.getMessage()
        assert record.exc_info is None and "\n" not in line, line
        assert "SLACK_APP_TOKEN" in line and reason in line and "Fix:" in line, line
    assert app_token not in caplog.text  # a token is a secret: never in the log


async def test_connected_once_with_the_workspace_name(slack, service, caplog):
    caplog.set_level(logging.INFO)
    adapter = SlackAdapter(service, "xoxb-test", "", api_base_url=slack.base_url)
    handler = await start_socket_mode(adapter, "xapp-test")
    try:
        connected = [r for r in slack_records(caplog) if r.levelno == logging.INFO and "connected" in r.getMessage()]
        assert len(connected) == 1, [r.getMessage() for r in slack_records(caplog)]
        assert "Team T1" in connected[0].getMessage() and "T1" in connected[0].getMessage()
    finally:
        await handler.close_async()


async def test_a_refused_bot_token_is_named_once_connected(slack, service, caplog):
    caplog.set_level(logging.INFO)
    adapter = SlackAdapter(service, "xoxb-revoked", "", api_base_url=slack.base_url)
    handler = await start_socket_mode(adapter, "xapp-test")
    try:
        shown = [r for r in slack_records(caplog) if r.levelno >= logging.WARNING]
        assert len(shown) == 1 and shown[0].exc_info is None, [r.getMessage() for r in shown]
        line = shown[0].getMessage()
        assert "SLACK_BOT_TOKEN" in line and "invalid_auth" in line and "Fix:" in line and "xoxb-revoked" not in line
    finally:
        await handler.close_async()


async def test_serve_says_at_the_default_log_level_that_socket_mode_is_connected(slack, tmp_path):
    """`docbot serve` as an operator runs it: text logs at the default level show the connected line."""
    (tmp_path / "docs").mkdir()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCBOT_", "SLACK_", "OPENAI_", "MICROSOFT_"))}
    env.update({"DOCBOT_DATA_DIR": str(tmp_path / "data"), "DOCBOT_DOCS": json.dumps([str(tmp_path / "docs")]),
                "DOCBOT_PORT": str(port), "DOCBOT_INDEX_ON_START": "false", "DOCBOT_INDEX_SCHEDULE": "",
                "SLACK_BOT_TOKEN": "xoxb-test", "SLACK_APP_TOKEN": "xapp-test", "SLACK_API_BASE_URL": slack.base_url})
    server = await asyncio.create_subprocess_exec(sys.executable, "-c", "from docbot.cli import main; main()",
                                                  "serve", env=env, cwd=tmp_path, stdout=asyncio.subprocess.DEVNULL,
                                                  stderr=asyncio.subprocess.PIPE)
    seen: list[str] = []
    try:
        while not any("Socket Mode connected" in line for line in seen):
            line = await asyncio.wait_for(server.stderr.readline(), 300)  # a hang guard
            assert line, "".join(seen)  # the server exited
            seen.append(line.decode())
    finally:
        if server.returncode is None:
            server.send_signal(signal.SIGTERM)
            await asyncio.wait_for(server.wait(), 300)
    connected = next(line for line in seen if "Socket Mode connected" in line)
    assert " INFO " in connected and "Team T1" in connected, connected
    assert "Traceback" not in "".join(seen)


PLATFORM = ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_CLIENT_ID", "MICROSOFT_APP_ID",
            "MICROSOFT_APP_PASSWORD", "DOCBOT_DATABASE_URL", "DOCBOT_SOURCES", "DOCBOT_INDEX", "OPENAI_API_KEY",
            "OPENAI_BASE_URL")


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCBOT_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "beacon.md").write_text("# Beacon\n\nBeacon is our CI.\n")
    monkeypatch.setenv("DOCBOT_DOCS", json.dumps([str(tmp_path / "docs")]))
    for name in PLATFORM:
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def refused_at_start(command, **variables):
    """`docbot <command>` with these variables: exit 2 at once, a few plain lines, no traceback, nothing indexed."""
    from typer.testing import CliRunner

    from docbot.cli import app

    env = {name: value for name, value in variables.items()}
    result = CliRunner().invoke(app, [command], env=env)
    text = result.output
    assert result.exit_code == 2, text
    assert "Traceback" not in text and "files:" not in text, text
    assert 1 <= len([line for line in text.splitlines() if line.strip()]) <= 3, text
    return text


SECRET = "1234-5678-abcdefSECRETabcdef"


@pytest.mark.parametrize("command", ["serve", "run", "index"])
@pytest.mark.parametrize("variables, said", [
    ({"SLACK_BOT_TOKEN": f"xapp-{SECRET}", "SLACK_APP_TOKEN": f"xoxb-{SECRET}"}, "swapped"),
    ({"SLACK_BOT_TOKEN": f"xoxp-{SECRET}", "SLACK_SIGNING_SECRET": "s"}, "user token (xoxp-"),
    ({"SLACK_BOT_TOKEN": f"xoxb-{SECRET}", "SLACK_APP_TOKEN": f"xoxb-{SECRET}"}, "SLACK_APP_TOKEN"),
    ({"SLACK_BOT_TOKEN": f"{SECRET}", "SLACK_SIGNING_SECRET": "s"}, "SLACK_BOT_TOKEN"),
])
def test_slack_token_prefixes_are_checked_at_start(env, command, variables, said):
    text = refused_at_start(command, **variables)
    assert said in text and "Fix:" in text and SECRET not in text


def test_a_half_configured_slack_stops_index_before_it_indexes(env):
    """`make run` runs `docbot index` before `docbot run`: the misconfiguration must not wait for a full index."""
    text = refused_at_start("index", SLACK_BOT_TOKEN="xoxb-1")
    assert "SLACK_SIGNING_SECRET" in text and "Fix:" in text
    assert not (env / "data" / "index.sqlite3").exists()
