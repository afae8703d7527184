"""The Confluence connector against a strict local Confluence (Cloud and Data Center) over real HTTP: the
contract suite, throttling, credentials, pagination, CQL runs between listings, and citation metadata."""
from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from source_contract import SourceContract, assert_mirrors, doc, job_maker

from bot.storage import Store
from rag.documents import Metadata
from rag.errors import ConfigurationError, SourceUnavailable
from rag.ingest.connectors.confluence import ConfluenceSource
from rag.resilience import RetryPolicy

from confluence_standin import ConfluenceStandIn, storage_of

SPACES = ["DOCS", "GUIDE", "OPS"]


class ConfluenceWorld:
    """The contract's documents as pages: `guide/setup.md` is the page "setup" in space GUIDE; top-level
    documents live in space DOCS. A rename retitles the page; a move to another folder moves it to that space."""

    def __init__(self, standin: ConfluenceStandIn, **options):
        self.site, self.options, self.waits = standin, options, list[float]()
        self.by_path: dict[str, object] = {}

    @staticmethod
    def _place(path: str) -> tuple[str, str]:
        p = PurePosixPath(path)
        return (str(p.parent).upper() if str(p.parent) != "." else "DOCS"), p.stem

    def indexed(self, path: str) -> str:
        space, title = self._place(path)
        return f"{space}/{title}.html"

    def write(self, path: str, text: str) -> None:
        page = self.by_path.get(path)
        if page is None:
            space, title = self._place(path)
            self.by_path[path] = self.site.create(space, title, storage_of(text))
        else:
            self.site.edit(page, storage=storage_of(text))

    def move(self, old: str, new: str) -> None:
        page = self.by_path.pop(old)
        (old_space, old_title), (space, title) = self._place(old), self._place(new)
        if space != old_space:
            self.site.move(page, space)
        if title != old_title:
            self.site.edit(page, title=title)
        self.by_path[new] = page

    def delete(self, path: str) -> None:
        self.site.trash(self.by_path.pop(path))

    def publish(self) -> None:
        pass  # edits are live at once

    def source(self, channels=None, **options) -> ConfluenceSource:
        settings = {"email": self.site.email} if self.site.edition == "cloud" else {}
        settings.update({"token": self.site.token, **self.options, **options})
        return ConfluenceSource(self.site.base, SPACES, self.site.edition, name="wiki", visibility=channels,
                                sleep=self.waits.append,
                                policy=RetryPolicy(attempts=3, base_wait=0.5, max_wait=4.0, timeout=10.0), **settings)

    def break_service(self) -> None:
        self.site.down = True

    def repair(self) -> None:
        self.site.down = False


@pytest.fixture(params=["cloud", "datacenter"])
def site(request):
    standin = ConfluenceStandIn(edition=request.param).start()
    yield standin
    standin.close()


@pytest.fixture
def world(site):
    return ConfluenceWorld(site)


class TestConfluenceContract(SourceContract):
    """Every run lists the spaces (listing_every=1, the default): deletions reach the index on the next run."""


def test_a_throttled_run_waits_what_retry_after_asks_and_completes(world, site, tmp_path, db_url, analyzer, embedder):
    world.write("policy.md", doc("Policy", "otter"))
    world.write("ops/leave.md", doc("Leave", "puffin"))
    source = world.source()
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    site.throttle(2, 7)  # the listing is refused twice, then served
    run = job(source).run("scheduler")
    assert run.status == "done" and run.errors == [] and run.added == 2
    assert world.waits == [7, 7]  # honoured exactly, not the backoff's own guess
    site.throttle(1, 3)  # the next listing is refused once
    world.write("policy.md", doc("Policy", "quokka"))
    run = job(source).run("scheduler")
    assert run.errors == [] and run.updated == 1 and world.waits[2:] == [3]
    assert_mirrors(job(source), source, {"DOCS/policy.html": "quokka", "OPS/leave.html": "puffin"})
    assert Store(db_url).source_state(source.key).requests == 2  # refused (429), then served


def test_a_retry_after_past_the_cap_ends_the_run_and_keeps_the_cursor(world, site, tmp_path, db_url, analyzer,
                                                                      embedder):
    world.write("policy.md", doc("Policy", "raven"))
    source = world.source(max_retry_after=60)
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    job(source).run("scheduler")
    cursor = Store(db_url).source_state(source.key).cursor
    site.throttle(1, 3600)
    run = job(source).run("scheduler")
    state = Store(db_url).source_state(source.key)
    assert [e[0] for e in run.errors] == ["wiki"] and "3600" in state.last_error and state.cursor == cursor
    assert world.waits == []  # it did not sit out an hour inside the run
    assert_mirrors(job(source), source, {"DOCS/policy.html": "raven"})


def test_refused_credentials_are_reported_without_the_token(world, site, tmp_path, db_url, analyzer, embedder):
    world.write("policy.md", doc("Policy", "stoat"))
    source = world.source(token="wrong-token-123")
    run = job_maker(tmp_path, db_url, analyzer, embedder)(source).run("scheduler")
    state = Store(db_url).source_state(source.key)
    assert "HTTP 401" in state.last_error and "wrong-token-123" not in state.last_error
    assert [e[0] for e in run.errors] == ["wiki"] and world.waits == []  # a refusal is not retried
    assert "wrong-token-123" not in repr(source)


def test_listings_follow_next_links_past_one_response(world, site):
    for n in range(120):
        site.create("DOCS", f"page {n}", f"<p>{n}</p>")
    changes = world.source().changes(None)
    assert len(changes.changed) == 120 and changes.complete
    assert changes.requests == 2  # 100 a response (the site caps the 200 asked), then the next link


def test_between_listings_one_cql_request_finds_edits_and_renames(site, tmp_path, db_url, analyzer, embedder):
    """listing_every=4: three of four runs ask CQL for what changed (one request, whatever the wiki's size);
    renames and moves CQL reports leave their old path at once, trashed pages at the next listing."""
    world = ConfluenceWorld(site, listing_every=4)
    for n in range(15):
        world.write(f"a{n}.md", doc(f"Page {n}", f"word{n}"))
    source = world.source()
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    job(source).run("scheduler")  # run 0: the listing
    run = job(source).run("scheduler")  # run 1: CQL, nothing changed
    assert (run.added, run.updated, run.deleted) == (0, 0, 0)
    assert Store(db_url).source_state(source.key).requests == 1
    site.requests.clear()
    world.move("a1.md", "renamed.md")  # a rename bumps the version: CQL reports it
    world.delete("a2.md")
    run = job(source).run("scheduler")  # run 2: CQL
    assert run.deleted == 1 and run.added == 1 and Store(db_url).source_state(source.key).requests == 1
    assert [r for r in site.requests if r.endswith("/content/search")] == site.requests[:1]  # then the new body
    expected = {f"DOCS/a{n}.html": f"word{n}" for n in range(15) if n != 1} | {"DOCS/renamed.html": "word1"}
    assert_mirrors(job(source), source, expected)  # the trashed page stays until the listing...
    job(source).run("scheduler")  # run 3: CQL
    run = job(source).run("scheduler")  # run 4: the listing
    assert run.deleted == 1
    expected.pop("DOCS/a2.html")
    assert_mirrors(job(source), source, expected)


def test_cql_asks_from_the_cursor_less_an_overlap_for_the_users_time_zone(world, site):
    """CQL compares minutes in the API user's time zone (UTC+9 on this site): the overlap keeps a page edited
    just after the cursor from being missed, and pages older than that are not asked for again."""
    from datetime import UTC, datetime, timedelta

    old = site.create("DOCS", "old", "<p>old</p>")
    old.when = datetime.now(UTC) - timedelta(days=3)
    site.create("DOCS", "recent", "<p>recent</p>")  # the newest page seen: the cursor
    source = world.source(listing_every=2)
    first = source.changes(None)
    world.write("fresh.md", doc("Fresh", "tapir"))
    later = source.changes(first.cursor)  # "recent" again (within the overlap; skipped by its version), not "old"
    assert [f.path for f in later.changed] == ["DOCS/fresh.html", "DOCS/recent.html"] and not later.complete


def test_pages_carry_their_link_title_author_and_date_into_the_index(world, site, tmp_path, db_url, analyzer,
                                                                     embedder):
    world.write("ops/deploy.md", doc("Deploy", "urchin"))
    [page] = site.pages.values()
    source = world.source()
    job = job_maker(tmp_path, db_url, analyzer, embedder)(source)
    job.run("scheduler")
    [stored] = job.indexer.index._db.execute("SELECT meta FROM files WHERE source=?", (source.key,)).fetchall()
    meta = Metadata.from_json(stored[0])
    webui = f"/spaces/OPS/pages/{page.id}/deploy" if site.edition == "cloud" else "/display/OPS/deploy"
    assert meta.url == site.base + webui
    assert (meta.title.lower(), meta.author, meta.updated) == ("deploy", "Kim Minsu", page.when.date().isoformat())


def test_a_page_restricted_away_from_docbot_leaves_the_index(world, site, tmp_path, db_url, analyzer, embedder):
    world.write("open.md", doc("Open", "viper"))
    world.write("secret.md", doc("Secret", "wombat"))
    source = world.source()
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    job(source).run("scheduler")
    next(p for p in site.pages.values() if p.title == "secret").restricted = True
    run = job(source).run("scheduler")
    assert run.deleted == 1
    assert_mirrors(job(source), source, {"DOCS/open.html": "viper"})


def test_configuration_is_checked():
    with pytest.raises(ConfigurationError):
        ConfluenceSource("https://bob:pw@acme.atlassian.net/wiki", ["ENG"])
    with pytest.raises(ConfigurationError):
        ConfluenceSource("https://acme.atlassian.net/wiki", ["ENG SPACE"])
    with pytest.raises(ConfigurationError):
        ConfluenceSource("https://acme.atlassian.net/wiki", ["ENG"], token="t")  # Cloud needs the e-mail too


def test_an_unreachable_site_is_source_unavailable(world, site):
    site.down = True
    with pytest.raises(SourceUnavailable):
        world.source().changes(None)
    assert world.waits and len(world.waits) == 2  # three attempts, two bounded waits
