"""Citations link to the document's own stored URL (a Confluence page, a Git permalink) when its source
gave one, and to DOCBOT_SOURCE_URL_BASE + path otherwise, in Slack and Teams alike."""
from __future__ import annotations

from types import SimpleNamespace

from adapters.slack_render import SlackRenderer
from adapters.teams_render import citations
from bot.controls import SourceLink, web_url
from bot.conversation import Turn
from rag.documents import Chunk, Hit, Metadata

PAGE = "https://acme.atlassian.net/wiki/spaces/OPS/pages/65538/Deploy?src=a&b=c"


def hits() -> list[Hit]:
    wiki = Chunk("OPS/Deploy.html", 0, "Deploy", "", "Deploys go out on Tuesdays.", Metadata(url=PAGE))
    folder = Chunk("guide/leave.md", 0, "Leave", "", "Leave is 15 days.")
    hostile = Chunk("notes.md", 0, "Notes", "", "Notes.", Metadata(url="javascript:alert(1)"))
    return [Hit(wiki, 1.0), Hit(folder, 0.9), Hit(hostile, 0.8)]


def turn() -> Turn:
    t = Turn.__new__(Turn)
    t.prepared = SimpleNamespace(hits=hits(), searched=True, steps=[], question="q")
    return t


def test_numbered_sources_carry_the_stored_link_when_it_is_a_web_link():
    links = turn().numbered_sources
    assert [s.url for s in links] == [PAGE, "", ""]  # a `javascript:` link from a document is not a link


def test_slack_links_the_stored_url_and_falls_back_to_the_url_base():
    sources = [SourceLink(1, "Deploy", "", "OPS/Deploy.html", PAGE), SourceLink(2, "Leave", "", "guide/leave.md")]
    rendered = SlackRenderer("https://files.example.com/docs").sources(SimpleNamespace(sources=sources))
    text = rendered["elements"][0]["text"]
    assert f"[1] <{PAGE.replace('&', '&amp;')}|Deploy>" in text
    assert "[2] <https://files.example.com/docs/guide/leave.md|Leave>" in text
    plain = SlackRenderer().sources(SimpleNamespace(sources=sources))["elements"][0]["text"]
    assert f"<{PAGE.replace('&', '&amp;')}|Deploy>" in plain and "Leave (`guide/leave.md`)" in plain


def test_teams_citations_use_the_stored_url_first():
    got = citations(turn(), "https://files.example.com/docs")
    assert [c.url for c in got] == [PAGE, "https://files.example.com/docs/guide/leave.md",
                                    "https://files.example.com/docs/notes.md"]
    assert [c.url for c in citations(turn())] == [PAGE, None, None]


def test_a_stored_link_cannot_break_chat_markup():
    assert web_url("https://wiki.example.com/a b|c>d") == "https://wiki.example.com/a%20b%7Cc%3Ed"
    assert web_url("file:///etc/passwd") == "" and web_url("https:///nohost") == ""
