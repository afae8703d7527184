"""Per-document permissions (issue 26): Confluence page read restrictions stored as the page's readers at
index time (inherited from restricted ancestors), enforced inside the query on both index backends, shown
only in direct messages to an asker whose e-mail is among them, restamped without re-embedding when they
change; the conversation core asks the platform who the asker is in direct messages only."""
from __future__ import annotations

import asyncio
import json

import pytest
from source_contract import job_maker

from bot.inbound import Incoming
from rag.index.port import PRINCIPAL, SearchQuery, audience
from rag.ingest.connectors.confluence import ConfluenceSource
from rag.resilience import RetryPolicy

from confluence_standin import ConfluenceStandIn, storage_of
from conftest import CountingEmbedder

ALICE, BOB = "alice@example.com", "bob@example.com"


@pytest.fixture(params=["cloud", "datacenter"])
def site(request):
    standin = ConfluenceStandIn(edition=request.param).start()
    yield standin
    standin.close()


def source(site, **options) -> ConfluenceSource:
    extra = {"email": site.email} if site.edition == "cloud" else {}
    return ConfluenceSource(site.base, ["HR"], site.edition, name="wiki", token=site.token, permissions=True,
                            policy=RetryPolicy(attempts=2, base_wait=0.1, max_wait=0.5, timeout=10.0),
                            **extra, **options)


def seen(job, embedder, channel: str | None, *who: str) -> set[str]:
    """The pages a query lets through the real SQLite index: a channel's, or a direct message's asker's."""
    query = SearchQuery("salary review bands code word", embedder.embed_query("salary review bands"), 20, channel,
                        frozenset(PRINCIPAL + w for w in who))
    found = job.indexer.index.candidates(query, 50)
    return {c.chunk.path for c in found.chunks.values()}


def page(text: str) -> str:
    return storage_of(f"# Salary review\n\nThe salary review bands use the code word {text}.\n")


def test_page_restrictions_reach_the_index_and_are_enforced_inside_the_query(site, tmp_path, db_url, analyzer,
                                                                              embedder):
    open_page = site.create("HR", "Open", page("lark"))
    secret = site.create("HR", "Bands", page("marten"))
    child = site.create("HR", "Bands detail", page("newt"), parent=secret.id)
    grouped = site.create("HR", "Group only", page("otter"))
    site.restrict(secret, [site.email, ALICE])  # docbot's account must be able to read it to index it
    site.restrict(grouped, [site.email], groups=["hr-team"])  # groups are not expanded: only named users
    hidden = site.create("HR", "Private", page("puffin"))
    site.restrict(hidden, [BOB])  # restricted away from docbot: not even listed
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    wiki = source(site)
    run = job(wiki).run("scheduler")
    assert run.errors == [] and run.added == 4
    everyone = {"HR/Open.html"}
    if site.edition == "cloud":
        alice = everyone | {"HR/Bands.html", "HR/Bands detail.html"}  # the child inherits its parent's restriction
    else:
        alice = everyone  # Data Center shows no e-mails: restricted pages reach nobody (never too many)
    assert seen(job(wiki), embedder, "C-general") == everyone  # a channel: restricted pages never
    assert seen(job(wiki), embedder, "C-general", ALICE) == alice
    assert seen(job(wiki), embedder, "D-bob", BOB) == everyone
    assert seen(job(wiki), embedder, None) == everyone  # console and eval: no asker
    assert "HR/Private.html" not in seen(job(wiki), embedder, "D-bob", BOB)

    if site.edition != "cloud":
        return
    site.restrict(secret, None)  # lifted: a permission change is no new version
    site.restrict(open_page, [site.email, BOB])
    counting = CountingEmbedder(embedder)
    run = job(wiki, counting).run("scheduler")
    assert run.errors == [] and counting.passages == 0 and run.unchanged == 4  # restamped, not re-embedded
    assert seen(job(wiki), embedder, "C-general") == {"HR/Bands.html", "HR/Bands detail.html"}
    assert seen(job(wiki), embedder, "D-bob", BOB) == {"HR/Open.html", "HR/Bands.html", "HR/Bands detail.html"}
    assert child.id  # (the child kept its place under the lifted parent)


def test_audience_of_a_restricted_document():
    assert audience(None, None) is None and audience(frozenset({"C1"}), None) == frozenset({"C1"})
    assert audience(None, frozenset({"Kim@Acme.com"})) == frozenset({"user:kim@acme.com"})
    assert audience(frozenset({"C1"}), frozenset({"kim@acme.com"})) == frozenset()  # only in DMs; never there


def test_the_elasticsearch_query_filters_by_the_askers_token_too(embedder):
    from rag.index.elastic import ElasticsearchIndex

    index = ElasticsearchIndex.__new__(ElasticsearchIndex)
    index._meta = {}
    query = SearchQuery("x", embedder.embed_query("x"), 5, "D1", frozenset({"user:kim@acme.com"}))
    bm25, knn = index.bodies(query, "x", 10)
    assert {"terms": {"channels": ["*", "D1", "user:kim@acme.com"]}} in bm25["query"]["bool"]["filter"]


def test_permissions_need_a_listing_every_run():
    from rag.errors import ConfigurationError

    with pytest.raises(ConfigurationError):
        ConfluenceSource("https://acme.atlassian.net/wiki", ["HR"], permissions=True, listing_every=3)


async def test_the_core_asks_who_the_asker_is_in_direct_messages_only(monkeypatch):
    from bot.conversation import ASKER, ConversationService, SessionKey

    asked: list[str] = []

    async def identities() -> frozenset[str]:
        asked.append("x")
        return frozenset({"Kim@Acme.com"})

    service = ConversationService.__new__(ConversationService)
    key = SessionKey("slack", "T1", "D1", "1.0")
    dm = Incoming(key, "hi", "U1", direct=True, identities=identities)
    assert await service._asker(dm) == frozenset({"user:kim@acme.com"})
    channel = Incoming(key, "hi", "U1", direct=False, mentioned=True, identities=identities)
    assert await service._asker(channel) == frozenset() and len(asked) == 1

    async def broken() -> frozenset[str]:
        raise RuntimeError("missing_scope")

    assert await service._asker(Incoming(key, "hi", "U1", direct=True, identities=broken)) == frozenset()
    assert ASKER.get() == frozenset()


class _Restricted:
    """A source whose one document only Alice may read, beside one everybody may."""

    name, key, visibility, complete = "wiki", "wiki", None, True

    def files(self):
        from rag.ingest.sources import SourceFile

        open_text = b"# Parking\n\nVisitor parking is on level two; the gate code word is quail.\n"
        secret_text = b"# Salary bands\n\nThe salary bands for engineers use the code word raven.\n"
        return [SourceFile("parking.md", lambda: open_text),
                SourceFile("salary-bands.md", lambda: secret_text, principals=frozenset({ALICE}))]


async def test_a_slack_direct_message_searches_the_askers_documents_only(tmp_path, analyzer, embedder, classifier):
    import asyncio
    import time

    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    from adapters.slack import SlackAdapter

    from conftest import build_service, make_indexer
    from slack_standin import SlackStandIn, event_body, signed

    indexer = make_indexer(tmp_path / "index.sqlite3", analyzer, embedder)
    indexer.sync(_Restricted())
    slack = await SlackStandIn(emails={"U1": ALICE, "U2": BOB}, joined={"D1", "D2"}).start()
    service = build_service(indexer, analyzer, classifier, f"sqlite:///{tmp_path / 's.sqlite3'}")
    adapter = SlackAdapter(service, "xoxb-test", "s3", api_base_url=slack.base_url, update_every=0.0,
                           read_emails=True)
    app = web.Application()
    adapter.mount(app)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    try:
        async def ask(user: str, channel: str, ts: str, kind: str = "message", channel_type: str = "im") -> str:
            body = event_body("What are the salary bands for engineers?", event_id=f"Ev{ts}", ts=ts, channel=channel,
                              kind=kind, channel_type=channel_type, user=user)
            before = len(slack.named("chat.stopStream"))
            await client.post("/slack/events", data=body.encode(),
                              headers={"Content-Type": "application/json", **signed("s3", body)})
            deadline = time.monotonic() + 120
            while len(slack.named("chat.stopStream")) == before:  # a guard against a hang, not a budget
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
            return json.dumps([c for c in slack.calls if c[1].get("channel") == channel], ensure_ascii=False)

        assert "raven" in await ask("U1", "D1", "1700000001.000100")  # Alice, directly
        assert "raven" not in await ask("U2", "D2", "1700000002.000100")  # Bob, directly
        assert [c[1]["user"] for c in slack.calls if c[0] == "users.info"] == ["U1", "U2"]
    finally:
        await client.close()
        await slack.close()


@pytest.fixture
def graph():
    from graph_standin import GraphStandIn

    standin = GraphStandIn().start()
    yield standin
    standin.close()


def library(graph, **options):
    import requests as http

    from rag.ingest.connectors.graph import GraphSource, msal_token

    session = http.Session()
    session.verify, session.trust_env = graph.cert, False
    token = msal_token(graph.tenant, graph.client_id, graph.secret, authority_host=graph.login_url, http_client=session)
    return GraphSource(f"drives/{graph.drive_id}", token, name="library", graph_url=graph.graph_url,
                       policy=RetryPolicy(attempts=2, base_wait=0.1, max_wait=0.5, timeout=10.0), permissions=True,
                       **options)


def test_sharepoint_item_permissions_reach_the_index_and_sharing_changes_restamp(graph, tmp_path, db_url, analyzer,
                                                                                 embedder):
    from bot.storage import Store

    def page(word: str) -> bytes:
        return f"# Salary review\n\nThe salary review bands use the code word {word}.\n".encode()

    graph.write("open.md", page("lark"))  # inherits the library's site groups: the source's audience
    bands = graph.write("hr/bands.md", page("marten"))
    graph.share(graph.folder("hr"), [ALICE])  # the folder's own permissions: what the file below inherits
    memo = graph.write("memo.md", page("newt"))
    graph.share(memo, [BOB])
    link = graph.write("link.md", page("otter"))
    graph.share(link, [], link="organization")  # an organisation-wide link: everyone
    job = job_maker(tmp_path, db_url, analyzer, embedder)
    drive = library(graph)
    run = job(drive).run("scheduler")
    assert run.errors == [] and run.added == 4
    everyone = {"open.md", "link.md"}
    assert seen(job(drive), embedder, "C-general") == everyone
    assert seen(job(drive), embedder, "D-alice", ALICE) == everyone | {"hr/bands.md"}
    assert seen(job(drive), embedder, "D-bob", BOB) == everyone | {"memo.md"}

    graph.share(graph.folder("hr"), None)  # inheritance restored: delta reports the folder alone
    graph.share(memo, [ALICE])
    counting = CountingEmbedder(embedder)
    run = job(drive, counting).run("scheduler")
    assert run.errors == [] and counting.passages == 0 and run.unchanged == 2  # restamped, not re-embedded
    assert seen(job(drive), embedder, "C-general") == everyone | {"hr/bands.md"}
    assert seen(job(drive), embedder, "D-bob", BOB) == everyone | {"hr/bands.md"}
    assert seen(job(drive), embedder, "D-alice", ALICE) == everyone | {"hr/bands.md", "memo.md"}
    job(drive).run("scheduler")
    assert Store(db_url).source_state(drive.key).requests == 1  # a no-op run still costs one delta request
    assert bands.id


async def test_a_teams_personal_chat_searches_the_askers_documents_only(connector, tmp_path, analyzer, embedder,
                                                                        classifier):
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    from adapters.teams import TeamsAdapter

    from conftest import build_service, make_indexer
    from connector_standin import message

    indexer = make_indexer(tmp_path / "index.sqlite3", analyzer, embedder)
    indexer.sync(_Restricted())
    for member, email in (("29:alice", ALICE), ("29:bob", BOB)):
        connector.members[member] = {"id": member, "name": email.split("@")[0].title(), "aadObjectId": f"aad-{member}",
                                     "email": email, "userPrincipalName": email.upper(), "tenantId": "tenant-1",
                                     "userRole": "user"}
    service = build_service(indexer, analyzer, classifier, f"sqlite:///{tmp_path / 't.sqlite3'}")
    adapter = TeamsAdapter(service, update_every=0.0, read_emails=True)
    app = web.Application()
    adapter.mount(app)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    try:
        async def ask(user: str, conversation: str, activity_id: str) -> str:
            await client.post("/api/messages", json=message("What are the salary bands for engineers?",
                                                           connector.service_url, user=user, conversation=conversation,
                                                           activity_id=activity_id))
            while adapter.agent.running:
                await asyncio.gather(*adapter.agent.running, return_exceptions=True)
            return json.dumps([c["body"] for c in connector.calls if c["conversation"] == conversation],
                              ensure_ascii=False)

        assert "raven" in await ask("29:alice", "a:alice", "m1")
        assert "raven" not in await ask("29:bob", "a:bob", "m2")
        assert [c["body"]["id"] for c in connector.calls if c["kind"] == "member"] == ["29:alice", "29:bob"]
    finally:
        await client.close()
