"""Who may see a document is decided at index time and enforced inside the search; ingestion never
stops on one bad file, never follows a link out of its folder, and never serves a removed source."""
import logging
import os
import threading
import time

import pytest

from docbot.runtime import Runtime
from docbot.settings import Settings

from conftest import CountingEmbedder

SECRET = "# Executive hotel allowance\n\nThe hotel allowance for executives is 900 USD a night.\n"
PUBLIC = "# Travel policy\n\nBook hotels through the travel portal. Economy class for flights under 6 hours.\n"
QUESTION = "What is the hotel allowance for executives?"


def runtime_for(tmp_path, analyzer, embedder, sources, **settings) -> Runtime:
    """A runtime over the shared analyzer and model, with these DOCBOT_SOURCES."""
    runtime = Runtime(Settings(data_dir=tmp_path / "data", sources=sources, _env_file=None, **settings))
    runtime.__dict__.update(analyzer=analyzer, embedder=embedder)
    return runtime


def cited(runtime: Runtime, channel: str | None, question: str = QUESTION) -> set[str]:
    hits, _ = runtime.pipeline.retrieve(question, 5, channel)
    return {h.chunk.path for h in hits}


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "docs"
    (root / "finance").mkdir(parents=True)
    (root / "travel.md").write_text(PUBLIC)
    (root / "finance" / "allowance.md").write_text(SECRET)
    return root


def test_a_restricted_folder_inside_an_open_source_is_never_cited_elsewhere(tmp_path, tree, analyzer, embedder,
                                                                             caplog):
    caplog.set_level(logging.WARNING)
    runtime = runtime_for(tmp_path, analyzer, embedder, [
        {"name": "all", "path": str(tree)}, {"name": "finance", "path": str(tree / "finance"), "channels": ["C-FIN"]}])
    run = runtime.index_job.run("cli")
    assert run.added == 2 and not run.errors
    assert "lies inside source all" in caplog.text  # the overlap is named
    assert runtime.index.indexed_sources() == {str(tree): 1, str(tree / "finance"): 1}  # indexed once
    assert "finance/allowance.md" not in cited(runtime, "C-GENERAL") | cited(runtime, None)
    assert "allowance.md" not in cited(runtime, "C-GENERAL") | cited(runtime, None)
    assert "allowance.md" in cited(runtime, "C-FIN")
    runtime.close()


async def test_the_answer_trace_and_history_of_another_channel_never_hold_the_restricted_text(
        tmp_path, tree, analyzer, embedder, classifier):
    from bot.conversation import SessionKey

    runtime = runtime_for(tmp_path, analyzer, embedder, [
        {"name": "all", "path": str(tree)}, {"name": "finance", "path": str(tree / "finance"), "channels": ["C-FIN"]}])
    runtime.__dict__["router"] = __import__("rag.understand.intent", fromlist=["ClassifierRouter"]).ClassifierRouter(
        classifier, analyzer)
    runtime.index_job.run("cli")
    service = runtime.conversations
    key = SessionKey("slack", "T", "C-GENERAL", "1")
    turn = await service.ask(key, QUESTION, "u1")
    await turn.collect()
    follow = await service.ask(key, "How much is it per night?", "u1")
    await follow.collect()
    conv = service.store.conversation("slack", "T", "C-GENERAL", "1")
    stored = " ".join(f"{m.text} {m.rewritten} {m.sources}" for m in service.store.history(conv.id, 20))
    traces = " ".join(str(t.model_dump()) for t in service.store.traces(conv.id))
    for text in (turn.text, follow.text, stored, traces):
        assert "900 USD" not in text and "allowance.md" not in text
    finance = await service.ask(SessionKey("slack", "T", "C-FIN", "1"), QUESTION, "u2")
    assert "900" in await finance.collect()
    runtime.close()


def test_indexing_a_subfolder_by_hand_keeps_its_restriction(tmp_path, tree, analyzer, embedder):
    from docbot.cli import run_index

    runtime = runtime_for(tmp_path, analyzer, embedder, [
        {"name": "all", "path": str(tree)}, {"name": "finance", "path": str(tree / "finance"), "channels": ["C-FIN"]}])
    report = run_index(runtime, [tree / "finance"], show_progress=False)
    assert report.added == 1
    run_index(runtime, [tree / "finance" / "allowance.md"], full=True, show_progress=False)
    assert runtime.index.indexed_sources() == {str(tree / "finance"): 1}  # under the configured key, once
    assert "allowance.md" not in cited(runtime, "C-GENERAL")
    assert "allowance.md" in cited(runtime, "C-FIN")
    runtime.close()


def test_changing_a_sources_channels_restamps_its_chunks_without_re_embedding(tmp_path, tree, analyzer, embedder):
    counting = CountingEmbedder(embedder)
    spec = {"name": "finance", "path": str(tree / "finance")}
    first = runtime_for(tmp_path, analyzer, counting, [spec])
    first.index_job.run("cli")
    assert "allowance.md" in cited(first, "C-GENERAL")
    first.close()
    counting.passages = 0
    second = runtime_for(tmp_path, analyzer, counting, [{**spec, "channels": ["C-FIN"]}])
    run = second.index_job.run("scheduler")
    assert run.unchanged == 1 and counting.passages == 0
    assert "allowance.md" not in cited(second, "C-GENERAL") and "allowance.md" in cited(second, "C-FIN")
    second.close()


def test_symlinks_out_of_the_source_are_skipped_with_a_reason(tmp_path, tree, analyzer, embedder):
    outside = tmp_path / "secrets.env.md"
    outside.write_text("# Secrets\n\nDB_PASSWORD=hunter2\n")
    (tree / "secrets.md").symlink_to(outside)
    (tree / "etc").symlink_to("/etc", target_is_directory=True)
    (tree / "passwd.txt").symlink_to("/etc/passwd")
    (tree / "travel-link.md").symlink_to(tree / "travel.md")  # inside the root: fine
    runtime = runtime_for(tmp_path, analyzer, embedder, [{"name": "docs", "path": str(tree)}])
    run = runtime.index_job.run("cli")
    skipped = dict(run.errors)
    assert "outside the source folder" in skipped["secrets.md"] and "outside" in skipped["passwd.txt"]
    indexed = set(runtime.index.files(str(tree)))
    assert indexed == {"travel.md", "travel-link.md", "finance/allowance.md"}
    assert not any(p.startswith("etc/") for p in indexed)
    runtime.close()


def test_a_file_name_that_is_not_utf8_is_reported_and_the_run_goes_on(tmp_path, tree, analyzer, embedder):
    bad = os.path.join(os.fsencode(tree), b"caf\xe9-notes.md")
    with open(bad, "wb") as handle:
        handle.write(b"# Cafe\n\nThe cafe opens at 8.\n")
    (tree / "zz-last.md").write_text("# Last\n\nIndexed after the bad name.\n")
    second = tmp_path / "more"
    second.mkdir()
    (second / "more.md").write_text("# More\n\nAnother source.\n")
    runtime = runtime_for(tmp_path, analyzer, embedder, [{"name": "docs", "path": str(tree)},
                                                        {"name": "more", "path": str(second)}])
    run = runtime.index_job.run("cli")
    assert run.status == "done" and run.added == 4
    (name, reason), = run.errors
    assert "not valid UTF-8" in reason and name.startswith("caf")
    runtime.close()


def test_a_source_removed_from_the_settings_is_purged_on_the_next_run(tmp_path, tree, analyzer, embedder):
    other = tmp_path / "other"
    other.mkdir()
    (other / "beacon.md").write_text("# Beacon\n\nBeacon is the staging dashboard.\n")
    both = runtime_for(tmp_path, analyzer, embedder, [{"path": str(tree)}, {"path": str(other)}])
    both.index_job.run("cli")
    assert "beacon.md" in cited(both, None, "What is Beacon?")
    both.close()
    one = runtime_for(tmp_path, analyzer, embedder, [{"path": str(tree)}])
    run = one.index_job.run("scheduler")
    assert run.deleted == 1 and str(other) not in one.index.indexed_sources()
    assert "beacon.md" not in cited(one, None, "What is Beacon?")
    one.close()


def test_a_missing_folder_is_an_error_and_is_withdrawn_after_the_grace(tmp_path, tree, analyzer, embedder):
    import shutil

    spec = [{"name": "docs", "path": str(tree)}]
    runtime = runtime_for(tmp_path, analyzer, embedder, spec, source_missing_grace_hours=1.0)
    runtime.index_job.run("cli")
    shutil.move(tree, tmp_path / "moved")
    run = runtime.index_job.run("scheduler")
    assert "no such folder" in run.errors[0][1] and "stay searchable" in run.errors[0][1]
    assert runtime.index.indexed_sources() == {str(tree): 2}  # a remount within the grace loses nothing
    runtime.store.missing_since(str(tree))  # recorded
    with runtime.store._session() as session:  # an hour and a bit later
        from bot.storage import MissingSource

        row = session.get(MissingSource, str(tree))
        row.since -= 3700
        session.add(row)
        session.commit()
    run = runtime.index_job.run("scheduler")
    assert "withdrawn" in run.errors[0][1] and run.deleted == 2
    assert runtime.index.indexed_sources() == {}
    runtime.close()


def test_the_lease_is_renewed_while_one_long_file_is_embedded(tmp_path, tree, db_url, analyzer, embedder):
    from bot.indexing import IndexJob
    from bot.storage import Store
    from rag.ingest.sources import FolderSource

    from conftest import make_indexer

    embedding, rival_tried = threading.Event(), threading.Event()

    class Slow(CountingEmbedder):
        def embed_passages(self, texts):
            embedding.set()
            rival_tried.wait(600)  # one file's embedding, held until the rival has tried (a hang guard)
            return super().embed_passages(texts)

    store = Store(db_url)
    renewals: list[bool] = []
    renew = store.renew_lease

    def counted(*args, **kwargs):
        renewed = renew(*args, **kwargs)
        renewals.append(renewed)
        return renewed

    store.renew_lease = counted  # type: ignore[method-assign]
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, Slow(embedder))
    # A lease of 3 s renewed every second: a loaded machine delays a renewal by less than its lifetime.
    job = IndexJob(store, indexer, [FolderSource(tree, "docs")], lease_ttl=3.0, holder="first")
    rival = IndexJob(Store(db_url), indexer, [FolderSource(tree, "docs")], lease_ttl=3.0, holder="second")
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("run", job.run("cli")))
    worker.start()
    try:
        assert embedding.wait(600)
        while len(renewals) < 4:  # renewed past the first lease's lifetime: counted, not timed
            time.sleep(0.01)
        assert all(renewals) and rival.run("cli") is None  # the first runner's lease was renewed mid-file
    finally:
        rival_tried.set()
        worker.join()
    assert result["run"].status == "done" and result["run"].added == 2



def test_a_changed_path_that_does_not_exist_keeps_the_documents_for_the_grace(tmp_path, tree, analyzer, embedder):
    """A configured folder that is new in the settings and missing (a mistyped or moved path, whatever its name)
    keeps the documents indexed from the folder it replaced for the grace period, as its message says, then
    they are withdrawn like any missing folder's (issue 54, item 2)."""
    runtime = runtime_for(tmp_path, analyzer, embedder, [{"name": "docs", "path": str(tree)}],
                          source_missing_grace_hours=1.0)
    runtime.index_job.run("cli")
    runtime.close()
    typo = tmp_path / "doc"
    runtime = runtime_for(tmp_path, analyzer, embedder, [{"name": "docs", "path": str(typo)}],
                          source_missing_grace_hours=1.0)
    run = runtime.index_job.run("scheduler")
    assert run.deleted == 0 and runtime.index.indexed_sources() == {str(tree): 2}
    assert "stay searchable for 1.0 more hours" in run.errors[0][1] and str(tree) in run.errors[0][1]
    with runtime.store._session() as session:  # an hour and a bit later
        from bot.storage import MissingSource

        row = session.get(MissingSource, str(typo))
        row.since -= 3700
        session.add(row)
        session.commit()
    run = runtime.index_job.run("scheduler")
    assert "withdrawn" in run.errors[0][1] and run.deleted == 2
    assert runtime.index.indexed_sources() == {}
    runtime.close()


def test_a_removed_source_is_withdrawn_at_once_beside_a_folder_missing_after_a_remount(tmp_path, tree, analyzer,
                                                                                       embedder):
    """Only a folder with nothing indexed under its own path can be another's changed path: beside a folder that
    was indexed and is now missing (a remount), a source taken out of the settings leaves the index at once."""
    import shutil

    other = tmp_path / "other"
    other.mkdir()
    (other / "beacon.md").write_text("# Beacon\n\nBeacon is the deployment dashboard.\n")
    runtime = runtime_for(tmp_path, analyzer, embedder, [{"name": "docs", "path": str(tree)},
                                                         {"name": "old", "path": str(other)}])
    runtime.index_job.run("cli")
    runtime.close()
    shutil.move(tree, tmp_path / "moved")
    runtime = runtime_for(tmp_path, analyzer, embedder, [{"name": "docs", "path": str(tree)}])
    run = runtime.index_job.run("scheduler")
    assert run.deleted == 1 and runtime.index.indexed_sources() == {str(tree): 2}
    runtime.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder whatever its mode")
def test_an_unreadable_folder_keeps_its_documents(tmp_path, tree, analyzer, embedder):
    runtime = runtime_for(tmp_path, analyzer, embedder, [{"name": "docs", "path": str(tree)}])
    runtime.index_job.run("cli")
    tree.chmod(0)
    try:
        run = runtime.index_job.run("scheduler")
    finally:
        tree.chmod(0o755)
    assert run.deleted == 0 and "cannot read the folder" in run.errors[0][1]
    assert runtime.index.indexed_sources() == {str(tree): 2}
    runtime.close()
