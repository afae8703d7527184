"""What a source reads: hidden and draft files never, whatever `exclude` says; odd files reported, never hung on."""
import json
import os
import re
import socket
import threading
from pathlib import Path

import pytest

from docbot.runtime import Runtime
from docbot.settings import Settings
from rag.errors import DocumentError
from rag.ingest.sources import FolderSource

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_sources_example() -> list[dict]:
    """The first DOCBOT_SOURCES example the README shows (a newcomer copies exactly this)."""
    match = re.search(r"DOCBOT_SOURCES\b[^[\n]*?(\[\{[^\n]*?\}\])", README.read_text(encoding="utf-8"))
    assert match, "the README shows a DOCBOT_SOURCES example"
    return json.loads(match.group(1))


@pytest.fixture
def private_folder(tmp_path):
    """A team folder with the drafts and dotfiles a real one has."""
    root = tmp_path / "team"
    for rel, text in {"guide.md": "# Guide\n\nPull requests need one approval.",
                      "_salary-bands-draft.md": "# Draft\n\nL5 salary band: 1 to 2.",
                      ".hidden.md": "# Hidden\n\nsecret",
                      "_drafts/plan.md": "# Plan\n\nsecret plan",
                      "notes/.env.md": "# env\n\nTOKEN=x",
                      "notes/_wip.md": "# wip\n\nsecret",
                      "notes/ok.md": "# OK\n\nvisible",
                      "archive/old.md": "# Old\n\nexcluded by the example's own glob",
                      "node_modules/pkg/readme.md": "# pkg"}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def listed(source) -> set[str]:
    return {f.path for f in source.files()}


def test_the_readme_example_config_keeps_drafts_and_hidden_files_out(private_folder, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = readme_sources_example()[0]
    assert spec.get("exclude"), "the README's example has an exclude list (the case that used to disable the rule)"
    spec = {**spec, "path": str(private_folder), "include": ["*.md", *spec.get("include", [])]}
    source, = Runtime(Settings(sources=[spec], data_dir=tmp_path / "data")).sources
    assert listed(source) == {"guide.md", "notes/ok.md"}


def test_an_explicit_exclude_adds_to_the_skip_rules_and_include_hidden_opts_in(private_folder):
    assert listed(FolderSource(private_folder, exclude=["notes/*"])) == {"guide.md", "archive/old.md"}
    opted = listed(FolderSource(private_folder, include_hidden=True))
    assert {"_salary-bands-draft.md", ".hidden.md", "_drafts/plan.md"} <= opted
    assert "node_modules/pkg/readme.md" not in opted


def test_a_symlink_loop_is_reported_and_the_rest_is_indexed(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("# A\n\ntext")
    os.symlink("loop.md", root / "loop.md")  # points at itself
    os.symlink("b.md", root / "c.md")
    os.symlink("c.md", root / "b.md")  # a two-link cycle
    files = {f.path: f for f in FolderSource(root).files()}
    assert files["a.md"].read().startswith(b"# A")
    for name in ("loop.md", "b.md", "c.md"):
        with pytest.raises(DocumentError, match="symbolic link loop"):
            files[name].read()


def test_fifos_and_sockets_are_skipped_without_blocking(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("# A\n\ntext")
    os.mkfifo(root / "pipe.md")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock.md"))
    try:
        files = {f.path: f for f in FolderSource(root).files()}
        for name, kind in (("pipe.md", "FIFO"), ("sock.md", "socket")):
            with pytest.raises(DocumentError, match=f"not a regular file.*{kind}"):
                files[name].read()
    finally:
        server.close()


def test_a_file_swapped_for_a_fifo_after_the_listing_does_not_block(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("# A\n\ntext")
    item, = FolderSource(root).files()
    (root / "a.md").unlink()
    os.mkfifo(root / "a.md")
    outcome: list = []

    def read():
        try:
            item.read()
        except DocumentError as exc:
            outcome.append(exc.reason)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=30)
    if reader.is_alive():  # unblock the reader so the test process can end, then fail
        with open(root / "a.md", "wb"):
            pass
        pytest.fail("reading a FIFO blocked")
    assert outcome and "FIFO" in outcome[0]


def test_unsupported_files_are_listed_so_the_run_counts_them(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("# A\n\ntext")
    (root / "mockup.psd").write_bytes(b"PK\x03\x04")
    files = {f.path: f for f in FolderSource(root).files()}
    with pytest.raises(DocumentError, match=r"\.psd is not a supported type"):
        files["mockup.psd"].read()
    assert files["a.md"].size == len("# A\n\ntext")
