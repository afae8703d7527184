"""The Git connector against real local repositories: the contract suite, force-pushes, submodules,
a lost mirror, credentials and citation metadata."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from source_contract import SourceContract, assert_mirrors, doc, job_maker

from bot.storage import Store
from rag.errors import ConfigurationError, SourceUnavailable
from rag.ingest.connectors.git import GitSource, mirror_path

GIT_ENV = {"GIT_AUTHOR_NAME": "Kim Minsu", "GIT_AUTHOR_EMAIL": "minsu@example.com",
           "GIT_COMMITTER_NAME": "Kim Minsu", "GIT_COMMITTER_EMAIL": "minsu@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}, check=True)
    return done.stdout.strip()


class GitWorld:
    """A real repository the connector fetches from (a local path, as a clone URL would be)."""

    def __init__(self, root: Path):
        self.repo, self.data = root / "remote", root / "data"
        self.repo.mkdir()
        git(self.repo, "init", "-q", "-b", "main")
        self.hidden = root / "gone"

    def write(self, path: str, text: str) -> None:
        target = self.repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        git(self.repo, "add", path)

    def move(self, old: str, new: str) -> None:
        (self.repo / new).parent.mkdir(parents=True, exist_ok=True)
        git(self.repo, "mv", old, new)

    def delete(self, path: str) -> None:
        git(self.repo, "rm", "-q", path)

    def publish(self) -> None:
        git(self.repo, "commit", "-q", "-m", "edit")

    def source(self, channels=None, **options) -> GitSource:
        return GitSource(str(self.repo), mirror_path(self.data, str(self.repo), "HEAD"), name="handbook",
                         visibility=channels, **options)

    def break_service(self) -> None:
        self.repo.rename(self.hidden)

    def repair(self) -> None:
        self.hidden.rename(self.repo)


class TestGitContract(SourceContract):
    @pytest.fixture
    def world(self, tmp_path):
        return GitWorld(tmp_path)


@pytest.fixture
def world(tmp_path):
    return GitWorld(tmp_path)


def test_a_force_push_is_followed_to_the_new_history(world, tmp_path, db_url, analyzer, embedder):
    """The branch is rewritten (reset and recommitted): the index follows the new tree, not the old history."""
    world.write("a.md", doc("A", "kiwi"))
    world.publish()
    base = git(world.repo, "rev-parse", "HEAD")
    world.write("b.md", doc("B", "lemur"))
    world.publish()
    source = world.source()
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    job(source).run("scheduler")
    git(world.repo, "reset", "-q", "--hard", base)  # what a force-push leaves on the remote
    world.write("c.md", doc("C", "moose"))
    world.publish()
    run = job(source).run("scheduler")
    assert run.errors == [] and run.deleted == 1 and run.added == 1
    assert_mirrors(job(source), source, {"a.md": "kiwi", "c.md": "moose"})


def test_a_lost_mirror_lists_the_branch_again_and_deletes_what_is_gone(world, tmp_path, db_url, analyzer,
                                                                       embedder):
    world.write("a.md", doc("A", "newt"))
    world.write("b.md", doc("B", "okapi"))
    world.publish()
    source = world.source()
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    job(source).run("scheduler")
    subprocess.run(["rm", "-rf", str(source.mirror)], check=True)  # a new data volume; the database survived
    world.delete("b.md")
    git(world.repo, "commit", "-q", "--amend", "-m", "rewritten")  # and the indexed commit is gone from the remote
    run = job(source).run("scheduler")
    assert run.errors == [] and run.deleted == 1 and run.added == 0 and run.unchanged == 1
    assert_mirrors(job(source), source, {"a.md": "newt"})


def test_submodules_and_symbolic_links_are_not_documents(world, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    (other / "inside.md").write_text(doc("Inside", "panda"))
    git(other, "add", "inside.md")
    git(other, "commit", "-q", "-m", "x")
    world.write("top.md", doc("Top", "quail"))
    git(world.repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(other), "vendor/other")
    os.symlink("top.md", world.repo / "link.md")
    git(world.repo, "add", "link.md")
    world.publish()
    source = world.source()
    first = source.changes(None)
    assert [f.path for f in first.changed] == ["top.md"] and first.complete
    git(world.repo, "rm", "-q", "vendor/other")  # the submodule goes: nothing to delete from the index
    world.write("next.md", doc("Next", "raven"))
    world.publish()
    later = source.changes(first.cursor)
    assert [f.path for f in later.changed] == ["next.md"] and later.deleted == []


def test_renames_across_the_filters_delete_and_add(world):
    """A document moved into an excluded folder leaves the index; one moved out of it enters."""
    world.write("drafts/plan.md", doc("Plan", "seal"))
    world.write("live.md", doc("Live", "tapir"))
    world.publish()
    source = world.source(exclude=["drafts/*"])
    first = source.changes(None)
    assert [f.path for f in first.changed] == ["live.md"]
    world.move("live.md", "drafts/live.md")
    world.move("drafts/plan.md", "plan.md")
    world.publish()
    later = source.changes(first.cursor)
    assert [f.path for f in later.changed] == ["plan.md"] and later.deleted == ["live.md"]


def test_every_file_carries_its_link_author_and_date(world):
    world.write("guide/setup page.md", doc("Setup", "urchin"))
    world.publish()
    head = git(world.repo, "rev-parse", "HEAD")
    source = world.source(link="https://git.example.com/handbook/blob/{commit}/{path}")
    [f] = source.changes(None).changed
    assert f.meta.url == f"https://git.example.com/handbook/blob/{head}/guide/setup%20page.md"
    assert f.meta.author == "Kim Minsu" and len(f.meta.updated) == 10 and f.meta.updated[:4].isdigit()
    assert f.version.startswith("git:") and b"urchin" in f.read()
    github = GitSource("https://github.com/acme/handbook.git", world.data / "m")
    assert github.link == "https://github.com/acme/handbook/blob/{commit}/{path}"


def test_credentials_stay_out_of_urls_command_lines_and_errors(world, monkeypatch):
    with pytest.raises(ConfigurationError):
        GitSource("https://bob:hunter2@git.example.com/handbook.git", world.data / "m")
    seen = []
    real_run = subprocess.run

    def spy(args, **kwargs):
        seen.append((args, kwargs.get("env", {})))
        return real_run(args, **kwargs)

    monkeypatch.setattr(subprocess, "run", spy)
    source = GitSource("http://127.0.0.1:9/handbook.git", world.data / "m", token="s3cr3t-token")
    with pytest.raises(SourceUnavailable) as raised:
        source.changes(None)
    assert "s3cr3t" not in str(raised.value)
    assert all("s3cr3t" not in " ".join(args) for args, _ in seen)  # never on a command line (`ps` shows those)
    assert any(env.get("GIT_CONFIG_KEY_0") == "http.extraHeader" for _, env in seen)


def test_docbot_sources_shows_kind_cursor_success_and_error(world, tmp_path, monkeypatch, warm):
    """The CLI end to end: a git source from DOCBOT_SOURCES is indexed and `docbot sources` reports it."""
    import json

    from typer.testing import CliRunner

    import docbot.cli
    from docbot.cli import app
    from docbot.runtime import Runtime

    monkeypatch.setattr(docbot.cli, "Runtime", lambda settings: warm(Runtime(settings)))
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "DOCBOT_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)

    world.write("a.md", doc("A", "vole"))
    world.publish()
    head = git(world.repo, "rev-parse", "HEAD")
    monkeypatch.setenv("DOCBOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"kind": "git", "repository": str(world.repo),
                                                      "name": "handbook", "token_env": "HANDBOOK_TOKEN"}]))
    monkeypatch.setenv("HANDBOOK_TOKEN", "tok-3141")
    runner = CliRunner()
    result = runner.invoke(app, ["index"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["sources"])
    assert "handbook  git  git:" in result.output and f"cursor {head[:12]}" in result.output
    assert "last success" in result.output and "tok-3141" not in result.output
    world.break_service()
    runner.invoke(app, ["index"])
    result = runner.invoke(app, ["sources"])
    assert "error at" in result.output and "git fetch failed" in result.output
    assert Store(f"sqlite:///{tmp_path / 'data' / 'docbot.sqlite3'}").source_state(f"git:{world.repo}#HEAD").cursor == head


def test_the_index_keeps_each_documents_link_and_author_for_citations(world, tmp_path, db_url, analyzer, embedder):
    from rag.documents import Metadata

    world.write("ops/deploy.md", doc("Deploy", "walrus"))
    world.publish()
    head = git(world.repo, "rev-parse", "HEAD")
    source = world.source(link="https://git.example.com/h/blob/{commit}/{path}")
    job = job_maker(tmp_path, db_url, analyzer, embedder)(source)
    job.run("scheduler")
    [stored] = job.indexer.index._db.execute("SELECT meta FROM files WHERE source=?", (source.key,)).fetchall()
    meta = Metadata.from_json(stored[0])
    assert meta.url == f"https://git.example.com/h/blob/{head}/ops/deploy.md" and meta.author == "Kim Minsu"
