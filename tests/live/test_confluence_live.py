"""Live Confluence checks: run only when DOCBOT_LIVE_CONFLUENCE_URL, DOCBOT_LIVE_CONFLUENCE_SPACE and
DOCBOT_LIVE_CONFLUENCE_TOKEN are set (Cloud also DOCBOT_LIVE_CONFLUENCE_EMAIL; Data Center sets
DOCBOT_LIVE_CONFLUENCE_EDITION=datacenter). Read-only: lists the space, reads one page, asks CQL once."""
import os

import pytest

URL = os.environ.get("DOCBOT_LIVE_CONFLUENCE_URL")
SPACE = os.environ.get("DOCBOT_LIVE_CONFLUENCE_SPACE")
TOKEN = os.environ.get("DOCBOT_LIVE_CONFLUENCE_TOKEN")
pytestmark = [pytest.mark.live,
              pytest.mark.skipif(not (URL and SPACE and TOKEN), reason="no live Confluence URL/space/token set")]


def source(**options):
    from rag.ingest.connectors.confluence import ConfluenceSource

    return ConfluenceSource(URL, [SPACE], os.environ.get("DOCBOT_LIVE_CONFLUENCE_EDITION", "cloud"),
                            name="live", email=os.environ.get("DOCBOT_LIVE_CONFLUENCE_EMAIL", ""), token=TOKEN,
                            **options)


def test_a_listing_a_page_and_a_cql_run_against_the_real_site():
    from rag.ingest.loaders import load

    wiki = source(listing_every=2)
    first = wiki.changes(None)
    assert first.complete and first.requests >= 1
    if first.changed:
        page = first.changed[0]
        doc = load(page.path, page.read(), page.meta)
        assert doc.meta.url.startswith(URL.split("/wiki")[0]) and doc.sections
    later = wiki.changes(first.cursor)  # a CQL run: one request unless pages changed in the overlap
    assert not later.complete and later.deleted == []


def test_a_wrong_token_is_source_unavailable_without_the_token():
    from rag.errors import SourceUnavailable

    wiki = source()
    wiki.token = "not-a-real-token-xyz"
    with pytest.raises(SourceUnavailable) as raised:
        wiki.changes(None)
    assert "not-a-real-token-xyz" not in str(raised.value)
