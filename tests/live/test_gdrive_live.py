"""Live Google Drive checks: run only when DOCBOT_LIVE_GDRIVE_KEY_FILE (a service account's JSON key) is set;
DOCBOT_LIVE_GDRIVE_FOLDER (a folder id shared with the account) or DOCBOT_LIVE_GDRIVE_DRIVE (a shared drive id)
narrows it. Read-only: a real JWT token exchange, one listing, one download or export, one change list."""
import os

import pytest

KEY = os.environ.get("DOCBOT_LIVE_GDRIVE_KEY_FILE")
pytestmark = [pytest.mark.live, pytest.mark.skipif(not KEY, reason="no live Google service account key set")]


def test_a_listing_a_read_and_an_incremental_round_against_the_real_drive():
    from rag.ingest.connectors.gdrive import GoogleDriveSource, service_account_token
    from rag.ingest.loaders import load

    token, account = service_account_token(KEY)
    drive = GoogleDriveSource(token, account, os.environ.get("DOCBOT_LIVE_GDRIVE_FOLDER", ""),
                              os.environ.get("DOCBOT_LIVE_GDRIVE_DRIVE", ""), name="live")
    first = drive.changes(None)
    assert first.complete and first.requests >= 2
    if first.changed:
        f = first.changed[0]
        assert load(f.path, f.read(), f.meta).sections
    later = drive.changes(first.cursor)
    assert not later.complete and later.requests >= 1


def test_a_key_from_another_account_is_refused_without_the_key(tmp_path):
    import json

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from rag.errors import SourceUnavailable
    from rag.ingest.connectors.gdrive import GoogleDriveSource, service_account_token

    info = json.loads(open(KEY, encoding="utf-8").read())
    info["private_key"] = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    (tmp_path / "k.json").write_text(json.dumps(info))
    token, account = service_account_token(tmp_path / "k.json")
    with pytest.raises(SourceUnavailable) as raised:
        GoogleDriveSource(token, account).changes(None)
    assert info["private_key"].splitlines()[1] not in str(raised.value)
