"""The SharePoint/OneDrive connector against a strict local Microsoft Graph and Entra token endpoint over real
HTTP(S), with msal fetching real client-credentials tokens: the contract suite, expired delta tokens,
folder renames and deletions, throttling, refused credentials and citation metadata."""
from __future__ import annotations

import pytest
import requests
from source_contract import SourceContract, assert_mirrors, doc, job_maker

from bot.storage import Store
from rag.documents import Metadata
from rag.errors import ConfigurationError, SourceUnavailable
from rag.ingest.connectors.graph import GraphSource, msal_token
from rag.resilience import RetryPolicy

from graph_standin import GraphStandIn


class GraphWorld:
    """The contract's documents as files in a SharePoint document library (folders are folders)."""

    def __init__(self, standin: GraphStandIn):
        self.drive, self.waits = standin, list[float]()

    def write(self, path: str, text: str) -> None:
        self.drive.write(path, text.encode())

    def move(self, old: str, new: str) -> None:
        self.drive.move(self.drive.find(old), new)

    def delete(self, path: str) -> None:
        self.drive.delete(self.drive.find(path))

    def publish(self) -> None:
        pass

    def token(self, secret: str | None = None):
        session = requests.Session()
        session.verify = self.drive.cert  # the stand-in's self-signed HTTPS authority
        session.trust_env = False  # else REQUESTS_CA_BUNDLE from the environment overrides `verify`
        return msal_token(self.drive.tenant, self.drive.client_id, secret or self.drive.secret,
                          authority_host=self.drive.login_url, http_client=session)

    def source(self, channels=None, secret: str | None = None, **options) -> GraphSource:
        return GraphSource(f"drives/{self.drive.drive_id}", self.token(secret), name="library", visibility=channels,
                           graph_url=self.drive.graph_url, sleep=self.waits.append,
                           policy=RetryPolicy(attempts=3, base_wait=0.5, max_wait=4.0, timeout=10.0), **options)

    def break_service(self) -> None:
        self.drive.down = True

    def repair(self) -> None:
        self.drive.down = False


@pytest.fixture
def drive():
    standin = GraphStandIn().start()
    yield standin
    standin.close()


@pytest.fixture
def world(drive):
    return GraphWorld(drive)


class TestGraphContract(SourceContract):
    pass


def test_an_expired_delta_token_enumerates_again_and_drops_what_is_gone(world, drive, tmp_path, db_url, analyzer,
                                                                        embedder):
    world.write("a.md", doc("A", "aspen"))
    world.write("b.md", doc("B", "birch"))
    source = world.source()
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    job(source).run("scheduler")
    world.delete("b.md")
    world.write("c.md", doc("C", "cedar"))
    drive.expire_delta_tokens()  # 410 Gone, resyncChangesApplyDifferences
    run = job(source).run("scheduler")
    assert run.errors == [] and run.deleted == 1 and run.added == 1 and run.unchanged == 1
    assert_mirrors(job(source), source, {"a.md": "aspen", "c.md": "cedar"})


def test_a_renamed_folder_moves_everything_under_it_though_delta_reports_the_folder_only(world, drive, tmp_path,
                                                                                         db_url, analyzer, embedder):
    world.write("policies/leave.md", doc("Leave", "dahlia"))
    world.write("policies/travel/claims.md", doc("Claims", "elder"))
    world.write("other.md", doc("Other", "fig"))
    source = world.source()
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    job(source).run("scheduler")
    drive.move(drive.folder("policies"), "hr/policies-2027")
    run = job(source).run("scheduler")
    assert run.errors == [] and run.deleted == 2 and run.added == 2
    assert_mirrors(job(source), source, {"hr/policies-2027/leave.md": "dahlia",
                                         "hr/policies-2027/travel/claims.md": "elder", "other.md": "fig"})
    drive.delete(drive.folder("hr"))  # a deleted folder: delta reports the folder alone
    run = job(source).run("scheduler")
    assert run.deleted == 2
    assert_mirrors(job(source), source, {"other.md": "fig"})
    assert Store(db_url).source_state(source.key).requests == 1


def test_a_throttled_run_honours_retry_after_and_completes(world, drive, tmp_path, db_url, analyzer, embedder):
    world.write("a.md", doc("A", "ginkgo"))
    source = world.source()
    drive.throttle(2, 5)
    run = job_maker(tmp_path, db_url, analyzer, embedder)(source).run("scheduler")
    assert run.errors == [] and run.added == 1 and world.waits == [5, 5]


def test_refused_client_credentials_are_reported_without_the_secret(world, drive, tmp_path, db_url, analyzer,
                                                                    embedder):
    world.write("a.md", doc("A", "hazel"))
    source = world.source(secret="wrong-secret-42")
    run = job_maker(tmp_path, db_url, analyzer, embedder)(source).run("scheduler")
    state = Store(db_url).source_state(source.key)
    assert [e[0] for e in run.errors] == ["library"] and "invalid_client" in state.last_error
    assert "wrong-secret-42" not in state.last_error and drive.requests == []  # Graph never called


def test_files_carry_their_link_and_editor_and_only_readable_types_are_listed(world, drive, tmp_path, db_url,
                                                                             analyzer, embedder):
    world.write("guide.md", doc("Guide", "iris"))
    drive.write("tool.exe", b"MZ...")
    source = world.source()
    job = job_maker(tmp_path, db_url, analyzer, embedder)(source)
    run = job.run("scheduler")
    assert run.added == 1 and run.errors == []
    [stored] = job.indexer.index._db.execute("SELECT meta FROM files WHERE source=?", (source.key,)).fetchall()
    meta = Metadata.from_json(stored[0])
    assert meta.url.startswith("https://contoso.sharepoint.com/") and meta.author == "Megan Bowen"
    assert drive.tokens_issued == 1  # msal cached the token across the run's requests


def test_a_folder_setting_narrows_the_drive(world, drive):
    world.write("public/a.md", doc("A", "juniper"))
    world.write("private/b.md", doc("B", "kale"))
    changes = world.source(folder="public").changes(None)
    assert [f.path for f in changes.changed] == ["a.md"] and changes.complete


def test_configuration_is_checked():
    with pytest.raises(ConfigurationError):
        GraphSource("sites/abc", lambda: "t")


def test_an_unreachable_graph_is_source_unavailable(world, drive):
    drive.down = True
    with pytest.raises(SourceUnavailable):
        world.source().changes(None)
    assert len(world.waits) == 2


def test_sources_settings_build_sharepoint_onedrive_and_confluence_connectors(monkeypatch, tmp_path):
    """DOCBOT_SOURCES entries of kind sharepoint/onedrive and confluence become connectors; secrets come from
    the environment and no network is touched while building them (msal is built on the first token)."""
    import json

    from docbot.runtime import Runtime
    from docbot.settings import Settings
    from rag.ingest.connectors.confluence import ConfluenceSource

    monkeypatch.setenv("GRAPH_SECRET", "s3cret-value")
    monkeypatch.setenv("WIKI_TOKEN", "wiki-token")
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([
        {"kind": "onedrive", "name": "mine", "drive": "users/kim@contoso.com/drive", "folder": "Handbook",
         "tenant_id": "t1", "client_id": "c1", "client_secret_env": "GRAPH_SECRET", "channels": ["C1"]},
        {"kind": "confluence", "name": "wiki", "base_url": "https://acme.atlassian.net/wiki", "spaces": ["ENG"],
         "email": "bot@acme.com", "token_env": "WIKI_TOKEN", "listing_every": 3}]))
    monkeypatch.setenv("DOCBOT_DATA_DIR", str(tmp_path))
    wiki, graph = Runtime(Settings(_env_file=None)).sources[-2:]
    assert isinstance(graph, GraphSource) and graph.kind == "onedrive" and graph.visibility == frozenset({"C1"})
    assert isinstance(wiki, ConfluenceSource) and wiki.listing_every == 3 and wiki.token == "wiki-token"
    assert "s3cret-value" not in repr(graph) and "wiki-token" not in repr(wiki)
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"kind": "sharepoint", "drive": "sites/x/drive",
                                                      "tenant_id": "t1", "client_id": "c1"}]))
    with pytest.raises(ConfigurationError):
        _ = Runtime(Settings(_env_file=None)).sources

