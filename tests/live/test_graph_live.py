"""Live Microsoft Graph checks: run only when DOCBOT_LIVE_GRAPH_TENANT, DOCBOT_LIVE_GRAPH_CLIENT_ID,
DOCBOT_LIVE_GRAPH_SECRET and DOCBOT_LIVE_GRAPH_DRIVE (drives/<id> or sites/<id>/drive) are set. Read-only:
a client-credentials token, one delta enumeration, one file read, one delta from the stored link."""
import os

import pytest

NAMES = ("TENANT", "CLIENT_ID", "SECRET", "DRIVE")
VALUES = {n: os.environ.get(f"DOCBOT_LIVE_GRAPH_{n}") for n in NAMES}
pytestmark = [pytest.mark.live, pytest.mark.skipif(not all(VALUES.values()), reason="no live Graph app/drive set")]


def test_a_delta_round_a_download_and_an_incremental_round_against_the_real_drive():
    from rag.ingest.connectors.graph import GraphSource, msal_token
    from rag.ingest.loaders import load

    token = msal_token(VALUES["TENANT"], VALUES["CLIENT_ID"], VALUES["SECRET"])
    drive = GraphSource(VALUES["DRIVE"], token, os.environ.get("DOCBOT_LIVE_GRAPH_FOLDER", ""), name="live")
    first = drive.changes(None)
    assert first.complete and first.cursor.startswith("https://graph.microsoft.com/")
    if first.changed:
        f = first.changed[0]
        assert load(f.path, f.read(), f.meta).sections
    later = drive.changes(first.cursor)
    assert not later.complete and later.requests >= 1


def test_a_wrong_secret_is_source_unavailable_without_the_secret():
    from rag.errors import SourceUnavailable
    from rag.ingest.connectors.graph import GraphSource, msal_token

    drive = GraphSource(VALUES["DRIVE"], msal_token(VALUES["TENANT"], VALUES["CLIENT_ID"], "not-the-secret-xyz"))
    with pytest.raises(SourceUnavailable) as raised:
        drive.changes(None)
    assert "not-the-secret-xyz" not in str(raised.value)
