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
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"kind": "sharepoint", "drive": "sites/x/drive", "pages": True,
                                                      "tenant_id": "t1", "client_id": "c1",
                                                      "client_secret_env": "GRAPH_SECRET"}]))
    [site] = Runtime(Settings(_env_file=None)).sources[-1:]
    assert isinstance(site, GraphSource) and site.pages and site.site == "sites/x"
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"kind": "sharepoint", "drive": "sites/x/drive",
                                                      "tenant_id": "t1", "client_id": "c1"}]))
    with pytest.raises(ConfigurationError):
        _ = Runtime(Settings(_env_file=None)).sources



# SharePoint site pages (`pages: true`): listed every run (no delta for pages), read again only when changed.

def page_source(world: GraphWorld, **options) -> GraphSource:
    return GraphSource(
        f"sites/{world.drive.site_id}/drive", world.token(), name="site", graph_url=world.drive.graph_url,
        sleep=world.waits.append, policy=RetryPolicy(attempts=3, base_wait=0.5, max_wait=4.0, timeout=10.0),
        pages=True, **options)


def stored_meta(job, source, path: str) -> Metadata:
    [row] = job.indexer.index._db.execute("SELECT meta FROM files WHERE source=? AND path=?",
                                          (source.key, path)).fetchall()
    return Metadata.from_json(row[0])


LEAVE = ("<h2>Annual leave</h2><p>Every employee gets 25 days of annual leave. Its code word is aspen.</p>"
         "<ul><li>Carry over up to five days</li><li>Book leave in Workday</li></ul>")


def test_site_pages_are_created_edited_renamed_and_deleted_across_three_runs(world, drive, tmp_path, db_url,
                                                                              analyzer, embedder):
    world.write("guide.md", doc("Guide", "cedar"))
    drive.write_page("Leave.aspx", "Leave policy", LEAVE)
    drive.write_page("Travel.aspx", "Travel", "<p>Book trains over flights. Its code word is birch.</p>")
    for n, word in enumerate(["fig", "gorse", "heath"]):  # five pages: the listing crosses a page
        drive.write_page(f"Note{n}.aspx", f"Note {n}", f"<p>A note. Its code word is {word}.</p>")
    source = page_source(world)
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    run = job(source).run("scheduler")
    assert run.errors == [] and run.added == 6
    notes = {f"SitePages/Note{n}.html": w for n, w in enumerate(["fig", "gorse", "heath"])}
    assert_mirrors(job(source), source, {"guide.md": "cedar", "SitePages/Leave.html": "aspen",
                                         "SitePages/Travel.html": "birch", **notes})
    meta = stored_meta(job(source), source, "SitePages/Leave.html")
    assert meta.url == "https://contoso.sharepoint.com/sites/handbook/SitePages/Leave.aspx"
    assert meta.title == "Leave policy" and meta.author == "Megan Bowen"

    drive.write_page("Leave.aspx", "Leave policy", LEAVE.replace("aspen", "dahlia"))  # edited
    drive.write_page("Travel.aspx", "Business travel", "<p>Book trains over flights. Its code word is birch.</p>")
    drive.requests.clear()
    run = job(source).run("scheduler")
    assert run.errors == [] and run.deleted == 0
    assert_mirrors(job(source), source, {"guide.md": "cedar", "SitePages/Leave.html": "dahlia",
                                         "SitePages/Travel.html": "birch", **notes})
    assert stored_meta(job(source), source, "SitePages/Travel.html").title == "Business travel"
    reads = [r for r in drive.requests if r.endswith("/microsoft.graph.sitePage") and "/pages/microsoft" not in r]
    assert len(reads) == 2  # only the two changed pages were read again

    drive.delete_page("Travel.aspx")
    drive.delete_page("Note2.aspx")
    run = job(source).run("scheduler")
    assert run.errors == [] and run.deleted == 2
    notes.pop("SitePages/Note2.html")
    assert_mirrors(job(source), source, {"guide.md": "cedar", "SitePages/Leave.html": "dahlia", **notes})

    run = job(source).run("scheduler")  # a no-op run: the delta link and one listing page
    assert run.errors == [] and run.added == 0 and run.deleted == 0
    assert Store(db_url).source_state(source.key).requests == 2


def test_a_site_page_reads_its_text_web_parts_as_html_and_a_gone_page_is_a_document_error(world, drive):
    from rag.errors import DocumentError
    from rag.ingest.loaders import load

    drive.write_page("Leave.aspx", "Leave policy", LEAVE, "<table><tr><th>Grade</th><th>Days</th></tr>"
                                                          "<tr><td>Senior</td><td>28</td></tr></table>")
    [page] = [f for f in page_source(world).changes(None).changed if f.path.startswith("SitePages/")]
    document = load(page.path, page.read(), page.meta)
    text = "\n".join(s.text for s in document.sections)
    assert document.title == "Leave policy" and "Annual leave" in [s.heading for s in document.sections]
    kinds = {b.kind for s in document.sections for b in s.blocks}
    assert {"item", "row"} <= kinds  # the list and the table read as the HTML loader reads them
    assert "Carry over up to five days" in text and "28" in text and "never indexed" not in text
    drive.delete_page("Leave.aspx")
    with pytest.raises(DocumentError):
        page.read()  # 404 itemNotFound


def test_a_draft_page_is_not_read_and_unpublished_edits_keep_the_published_text(world, drive, tmp_path, db_url,
                                                                               analyzer, embedder):
    drive.write_page("Leave.aspx", "Leave policy", LEAVE)
    drive.write_page("Plans.aspx", "Plans", "<p>Secret reorganisation. Its code word is ivy.</p>", publish=False)
    source = page_source(world)
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    assert job(source).run("scheduler").errors == []
    assert_mirrors(job(source), source, {"SitePages/Leave.html": "aspen"})
    drive.write_page("Leave.aspx", "Leave policy", LEAVE.replace("aspen", "juniper"), publish=False)
    assert job(source).run("scheduler").errors == []
    assert_mirrors(job(source), source, {"SitePages/Leave.html": "aspen"})  # the published text stays
    drive.write_page("Leave.aspx", "Leave policy", LEAVE.replace("aspen", "juniper"))  # published
    drive.write_page("Plans.aspx", "Plans", "<p>The reorganisation. Its code word is ivy.</p>")
    assert job(source).run("scheduler").errors == []
    assert_mirrors(job(source), source, {"SitePages/Leave.html": "juniper", "SitePages/Plans.html": "ivy"})


def test_site_pages_need_sites_read_all(world, drive, tmp_path, db_url, analyzer, embedder):
    drive.write_page("Leave.aspx", "Leave policy", LEAVE)
    drive.roles = frozenset({"Sites.Selected"})  # the docs list no Sites.Selected for pages: 403
    run = job_maker(tmp_path, db_url, analyzer, embedder)(page_source(world)).run("scheduler")
    assert [e[0] for e in run.errors] == ["site"]
    assert "403" in Store(db_url).source_state(page_source(world).key).last_error
    with pytest.raises(ConfigurationError):
        GraphSource("drives/abc", lambda: "t", pages=True)


async def test_a_site_page_answers_with_a_citation_to_its_web_url(world, drive, tmp_path, db_url, analyzer,
                                                                  embedder, classifier):
    from bot.conversation import SessionKey

    from conftest import build_service

    drive.write_page("Leave.aspx", "Leave policy", LEAVE)
    source = page_source(world)
    job = job_maker(tmp_path, db_url, analyzer, embedder)(source)
    assert job.run("scheduler").errors == []
    service = build_service(job.indexer, analyzer, classifier, f"sqlite:///{tmp_path / 'chat.sqlite3'}")
    turn = await service.ask(SessionKey("console", "local", "me", "t1"), "How many days of annual leave do I get?", "u1")
    reply = await turn.collect()
    assert "25 days" in reply and "[1]" in reply
    [cited] = turn.sources
    assert cited.title == "Leave policy" and cited.path == "SitePages/Leave.html"
    assert cited.url == "https://contoso.sharepoint.com/sites/handbook/SitePages/Leave.aspx"
