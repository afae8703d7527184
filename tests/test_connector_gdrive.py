"""The Google Drive connector against a strict local Drive API v3 and OAuth token endpoint over real HTTP, with
google-auth signing real service-account JWTs: the contract suite, expired page tokens, folder moves, trash
and unsharing, throttling (403 rate limits and 429), exports of Google Docs/Sheets/Slides and the 10 MB export
limit, shared drives, refused keys and citation metadata."""
from __future__ import annotations

import json
import logging

import pytest
from gdrive_standin import DOC, SHEET, SLIDES, DriveStandIn
from source_contract import SourceContract, assert_mirrors, doc, indexed_text, job_maker

from bot.storage import Store
from rag.documents import Metadata
from rag.errors import ConfigurationError, DocumentError, SourceUnavailable
from rag.ingest.connectors.gdrive import GoogleDriveSource, service_account_token
from rag.resilience import RetryPolicy


class DriveWorld:
    """The contract's documents as uploaded files in a folder the owner shared with docbot's service account."""

    def __init__(self, standin: DriveStandIn, tmp_path):
        self.drive, self.tmp, self.waits = standin, tmp_path, list[float]()
        self.root = standin.share_folder("Handbook")

    def write(self, path: str, text: str) -> None:
        self.drive.write(path, text.encode(), self.root, "text/markdown" if path.endswith(".md") else "text/plain")

    def move(self, old: str, new: str) -> None:
        self.drive.move(self.drive.find(old, self.root), new, self.root)

    def delete(self, path: str) -> None:
        self.drive.delete(self.drive.find(path, self.root))

    def publish(self) -> None:
        pass

    def source(self, channels=None, key_file=None, **options) -> GoogleDriveSource:
        token, account = service_account_token(key_file or self.drive.key_file(self.tmp))
        options.setdefault("folder", self.root.id)
        return GoogleDriveSource(token, account, name="gdocs", visibility=channels, api_url=self.drive.api_url,
                                 sleep=self.waits.append,
                                 policy=RetryPolicy(attempts=3, base_wait=0.5, max_wait=4.0, timeout=10.0), **options)

    def break_service(self) -> None:
        self.drive.down = True

    def repair(self) -> None:
        self.drive.down = False


@pytest.fixture
def drive():
    standin = DriveStandIn().start()
    yield standin
    standin.close()


@pytest.fixture
def world(drive, tmp_path):
    return DriveWorld(drive, tmp_path)


@pytest.fixture
def job(tmp_path, db_url, analyzer, embedder):
    return job_maker(tmp_path, db_url, analyzer, embedder)


class TestDriveContract(SourceContract):
    pass


def test_an_invalid_page_token_lists_everything_again_and_drops_what_is_gone(world, drive, job):
    world.write("a.md", doc("A", "aspen"))
    world.write("b.md", doc("B", "birch"))
    source = world.source()
    job(source).run("scheduler")
    world.delete("b.md")
    world.write("c.md", doc("C", "cedar"))
    drive.expire_page_tokens()  # 400, location pageToken
    run = job(source).run("scheduler")
    assert run.errors == [] and run.deleted == 1 and run.added == 1 and run.unchanged == 1
    assert_mirrors(job(source), source, {"a.md": "aspen", "c.md": "cedar"})


def test_folder_moves_trash_and_unsharing_reach_the_index_though_drive_reports_the_folder_only(world, drive, job,
                                                                                              db_url):
    world.write("policies/leave.md", doc("Leave", "dahlia"))
    world.write("policies/travel/claims.md", doc("Claims", "elder"))
    world.write("other.md", doc("Other", "fig"))
    world.write("secret.md", doc("Secret", "gorse"))
    source = world.source()
    job(source).run("scheduler")
    drive.move(drive.folder("policies", world.root), "hr/policies-2027", world.root)
    run = job(source).run("scheduler")
    assert run.errors == [] and run.deleted == 2 and run.added == 2
    assert_mirrors(job(source), source, {"hr/policies-2027/leave.md": "dahlia",
                                         "hr/policies-2027/travel/claims.md": "elder", "other.md": "fig",
                                         "secret.md": "gorse"})
    drive.trash(drive.folder("hr", world.root))  # trashed: the folder alone is reported
    drive.unshare(drive.find("secret.md", world.root))  # a permission change: the account cannot read it now
    run = job(source).run("scheduler")
    assert run.errors == [] and run.deleted == 3
    assert_mirrors(job(source), source, {"other.md": "fig"})
    assert Store(db_url).source_state(source.key).requests == 1


@pytest.mark.parametrize("answers", [[(403, "userRateLimitExceeded"), (403, "rateLimitExceeded")],
                                     [(429, "rateLimitExceeded"), (429, "rateLimitExceeded")]])
def test_a_throttled_run_backs_off_and_completes(world, drive, job, answers):
    world.write("a.md", doc("A", "ginkgo"))
    source = world.source()
    drive.throttle(*answers)
    run = job(source).run("scheduler")
    assert run.errors == [] and run.added == 1
    assert len(world.waits) == 2 and all(0 <= w <= 4.0 for w in world.waits)  # bounded exponential backoff


def test_throttling_past_the_retries_keeps_the_cursor_and_the_documents(world, drive, job, db_url):
    world.write("a.md", doc("A", "hawthorn"))
    source = world.source()
    job(source).run("scheduler")
    cursor = Store(db_url).source_state(source.key).cursor
    world.write("a.md", doc("A", "holly"))
    drive.throttle(*[(403, "userRateLimitExceeded")] * 3)
    run = job(source).run("scheduler")
    state = Store(db_url).source_state(source.key)
    assert [e[0] for e in run.errors] == ["gdocs"] and state.cursor == cursor and "HTTP 403" in state.last_error
    assert_mirrors(job(source), source, {"a.md": "hawthorn"})
    assert job(source).run("scheduler").errors == []
    assert_mirrors(job(source), source, {"a.md": "holly"})


def test_google_docs_sheets_and_slides_are_exported_and_large_exports_are_reported(world, drive, job):
    drive.write("Onboarding", b"<h1>First week</h1><p>Badge pickup uses the word iris.</p>", world.root, DOC)
    drive.write("Budget", json.dumps([["Team", "Code"], ["Ops", "juniper"]]).encode(), world.root, SHEET)
    drive.write("All hands", json.dumps([["Roadmap", "The launch word is kestrel."]]).encode(), world.root, SLIDES)
    drive.write("Huge", b"<p>" + b"lorem ipsum " * 900_000 + b"</p>", world.root, DOC)  # 10.8 MB of HTML
    drive.write("Sketch", b"", world.root, "application/vnd.google-apps.drawing")  # not a document
    source = world.source()
    run = job(source).run("scheduler")
    assert run.added == 3 and [(e[0], "10 MB" in e[1]) for e in run.errors] == [("Huge.html", True)]
    texts = indexed_text(job(source).indexer.index, source.key)
    assert sorted(texts) == ["All hands.pptx", "Budget.xlsx", "Onboarding.html"]
    assert "iris" in texts["Onboarding.html"] and "juniper" in texts["Budget.xlsx"] and "kestrel" in texts["All hands.pptx"]
    rows = job(source).indexer.index._db.execute("SELECT path, meta FROM files WHERE source=?", (source.key,)).fetchall()
    meta = {path: Metadata.from_json(m) for path, m in rows}
    assert meta["Onboarding.html"].url.startswith("https://docs.google.com/document/d/")
    assert meta["Onboarding.html"].author == "Ana Lima" and meta["Budget.xlsx"].url.startswith("https://docs.google.com/")
    assert drive.tokens_issued == 1  # one service-account token for the whole run


def test_a_shared_drive_is_read_with_all_drives_support(drive, tmp_path, job):
    team = drive.share_folder("Team Handbook", drive="0ATeamDrive1")
    drive.write("guide/setup.md", doc("Setup", "lupin").encode(), team, "text/markdown")
    drive.write("faq.md", doc("FAQ", "maple").encode(), team, "text/markdown")
    world = DriveWorld(drive, tmp_path)
    source = world.source(folder="", drive_id="0ATeamDrive1")
    run = job(source).run("scheduler")
    assert run.errors == [] and run.added == 2
    assert_mirrors(job(source), source, {"guide/setup.md": "lupin", "faq.md": "maple"})
    drive.write("faq.md", doc("FAQ", "nettle").encode(), team, "text/markdown")
    assert job(source).run("scheduler").updated == 1
    assert_mirrors(job(source), source, {"guide/setup.md": "lupin", "faq.md": "nettle"})


def test_a_file_gone_between_the_change_list_and_its_download_is_that_files_error(world, drive):
    world.write("a.md", doc("A", "oak"))
    changes = world.source().changes(None)
    drive.unshare(drive.find("a.md", world.root))  # 404 notFound for the account now
    with pytest.raises(DocumentError):
        changes.changed[0].read()


def test_a_refused_key_is_reported_without_the_key(world, drive, job, db_url, tmp_path, caplog):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    other = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    world.write("a.md", doc("A", "pine"))
    source = world.source(key_file=drive.key_file(tmp_path, key=other))
    with caplog.at_level(logging.DEBUG):
        run = job(source).run("scheduler")
    state = Store(db_url).source_state(source.key)
    assert [e[0] for e in run.errors] == ["gdocs"] and "invalid_grant" in state.last_error
    assert drive.account in state.last_error and drive.requests == []  # Drive itself never called
    body = other.splitlines()[1]
    assert body not in state.last_error and body not in caplog.text and body not in repr(source)


def test_an_unusable_key_file_is_a_configuration_error(tmp_path):
    with pytest.raises(ConfigurationError):
        service_account_token(tmp_path / "missing.json")
    (tmp_path / "k.json").write_text(json.dumps({"type": "authorized_user", "refresh_token": "x"}))
    with pytest.raises(ConfigurationError):
        service_account_token(tmp_path / "k.json")


def test_an_unreachable_drive_is_source_unavailable(world, drive):
    drive.down = True
    with pytest.raises(SourceUnavailable):
        world.source().changes(None)
    assert len(world.waits) == 2


def test_sources_settings_build_a_google_drive_connector(monkeypatch, tmp_path, drive):
    from docbot.runtime import Runtime
    from docbot.settings import Settings

    key = drive.key_file(tmp_path)
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([
        {"kind": "gdrive", "name": "gdocs", "service_account_file": str(key), "folder": "1abc", "channels": ["C1"]}]))
    monkeypatch.setenv("DOCBOT_DATA_DIR", str(tmp_path))
    [source] = [s for s in Runtime(Settings(_env_file=None)).sources if isinstance(s, GoogleDriveSource)]
    assert source.visibility == frozenset({"C1"}) and source.folder == "1abc" and source.account == drive.account
    assert source.key == f"gdrive:account={drive.account}:folder=1abc" and drive.tokens_issued == 0  # no call yet


def _get(drive, token: str, path: str, **params):
    import requests

    response = requests.get(f"{drive.api_url}/{path}", params=params, headers={"Authorization": f"Bearer {token}"},
                            timeout=10)
    return response.status_code, (response.json() if "json" in response.headers.get("Content-Type", "") else None)


def test_the_standin_refuses_what_drive_refuses(world, drive):
    """The stand-in's own rules, each as Drive documents it (so the connector is tested against them)."""
    world.write("a.md", doc("A", "quince"))
    drive.write("Doc", b"<p>x</p>", world.root, DOC)
    team = drive.share_folder("Team", drive="0ATeam")
    drive.write("t.md", b"# t", team, "text/markdown")
    token, _ = service_account_token(drive.key_file(world.tmp))
    bearer = token()
    assert _get(drive, "not-a-token", "files")[0] == 401
    status, body = _get(drive, bearer, "files")  # default fields only
    assert status == 200 and set(body["files"][0]) == {"kind", "id", "name", "mimeType"}
    assert all(f["name"] != "t.md" for f in body["files"])  # shared drive items need includeItemsFromAllDrives
    assert _get(drive, bearer, "files", fields="files(id,colour)")[0] == 400
    assert _get(drive, bearer, "files", includeItemsFromAllDrives="true")[0] == 403  # without supportsAllDrives
    status, body = _get(drive, bearer, "files", fields="nextPageToken,files(id,lastModifyingUser/displayName)")
    assert status == 200 and set(body["files"][0]) == {"id", "lastModifyingUser"}
    doc_id = drive.find("Doc", world.root).id
    md_id = drive.find("a.md", world.root).id
    t_id = drive.find("t.md", team).id
    assert _get(drive, bearer, f"files/{doc_id}", alt="media")[1]["error"]["errors"][0]["reason"] == "fileNotDownloadable"
    assert _get(drive, bearer, f"files/{md_id}/export", mimeType="text/html")[0] == 403
    assert _get(drive, bearer, f"files/{doc_id}/export", mimeType="image/png")[0] == 400
    assert _get(drive, bearer, f"files/{t_id}", alt="media")[0] == 404  # a shared drive file without supportsAllDrives
    assert _get(drive, bearer, "changes", pageToken="abc")[0] == 400 and _get(drive, bearer, "changes")[0] == 400
    status, body = _get(drive, bearer, "changes/startPageToken")
    status, body = _get(drive, bearer, "changes", pageToken=body["startPageToken"])
    assert status == 200 and body["changes"] == [] and "newStartPageToken" in body and "nextPageToken" not in body
