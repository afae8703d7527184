"""What docbot shows in Teams: the Adaptive Card of an answer (query line, text, sources, the core's buttons),
Teams citation entities and the AI-generated label, measured and cut to Teams' message budget.

Kept apart from the event handling in adapters/teams.py, as SlackRenderer is in the Slack adapter: the
adapter translates activities, this module builds what they carry.
"""
from __future__ import annotations

import json
from typing import Any

from microsoft_agents.hosting.core.app.streaming import Citation

from bot.controls import Button, buttons
from bot.conversation import Turn

from .markup import explicit_links, url_path

CARD = "application/vnd.microsoft.card.adaptive"
MESSAGE_BUDGET = 80 * 1024  # bytes of an activity's JSON as UTF-16 (Teams: 100 KB refused, 80 KB advised)
ENVELOPE = 4096  # bytes the SDK's envelope (ids, urls, conversation, sender) may add to what docbot builds
CONTINUATION = MESSAGE_BUDGET // 2 // 5 - ENVELOPE  # characters of answer in one continuation message
CITATION_ABSTRACT = 160  # characters of a citation's abstract (the strictest figure seen; the SDK clips at 480)


def utf16_size(payload: Any) -> int:
    """How Teams measures a message: its JSON encoded as UTF-16."""
    return len(json.dumps(payload, ensure_ascii=False, default=str).encode("utf-16-le"))


def card(turn: Turn, text: str | None, running: bool) -> dict:
    """The answer card: rewritten query (small), the answer (None: the message text is the answer),
    sources, and the buttons that fit its state."""
    body: list[dict] = []
    if turn.prepared.searched:
        body.append({"type": "TextBlock", "text": f"🔎 {explicit_links(turn.rewritten)}", "size": "Small",
                     "isSubtle": True, "wrap": True})
    if text is not None:  # TextBlocks render Markdown links (not HTML): a document's link shows its target.
        body.append({"type": "TextBlock", "text": explicit_links(text) or "…", "wrap": True})
    if turn.sources and not running:
        lines = [f"[{s.n}] {s.label} ({s.path})" for s in turn.sources]
        body.append({"type": "TextBlock", "text": "\n\n".join(lines), "size": "Small", "isSubtle": True,
                     "wrap": True, "separator": True})
    return {"type": "AdaptiveCard", "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "version": "1.5", "body": body, "actions": [_submit(b) for b in buttons(turn, running)]}


_STYLES = {"primary": "positive", "danger": "destructive"}


def _submit(button: Button) -> dict:
    """A core button as an Action.Submit: `docbot` names the control, `target` what it acts on."""
    action = {"type": "Action.Submit", "title": button.label, "data": {"docbot": button.control,
                                                                      "target": button.target}}
    if button.style in _STYLES:
        action["style"] = _STYLES[button.style]
    return action


def citations(turn: Turn, url_base: str | None = None) -> list[Citation]:
    """Teams citation entities for the numbered sources ([n] in the answer refers to the n-th)."""
    out = []
    for s in turn.numbered_sources:  # positions must match the [n] numbers, cited or not
        hit = next((h for h in turn.prepared.hits if h.chunk.path == s.path), None)
        url = s.url or (f"{url_base.rstrip('/')}/{url_path(s.path)}" if url_base else None)  # the stored link first
        out.append(Citation(content=_abstract(hit.chunk.text if hit else s.title), title=s.title[:80],
                            url=url, filepath=s.path))
    return out


def _abstract(text: str) -> str:
    """A citation's abstract: at most CITATION_ABSTRACT characters, cut at a word."""
    text = " ".join(text.split())
    if len(text) <= CITATION_ABSTRACT:
        return text
    cut = text.rfind(" ", 0, CITATION_ABSTRACT - 1)
    return text[:cut if cut > CITATION_ABSTRACT // 2 else CITATION_ABSTRACT - 1] + "…"


def ai_entity(turn: Turn, url_base: str | None) -> dict:
    """The AI-generated label and the citations, as the message entity Teams reads (group chats and
    channels; one-on-one streams get the same from the SDK)."""
    claims = [{"@type": "Claim", "position": n, "appearance": {
        "@type": "DigitalDocument", "name": c.title or f"Document #{n}", "abstract": c.content,
        **({"url": c.url} if c.url else {})}} for n, c in enumerate(citations(turn, url_base), 1)]
    entity: dict = {"type": "https://schema.org/Message", "@type": "Message", "@context": "https://schema.org",
                    "@id": "", "additionalType": ["AIGeneratedContent"]}
    if claims:
        entity["citation"] = claims
    return entity


def fit(text: str, room: int) -> tuple[str, str]:
    """(head, rest): the longest head of `text` whose UTF-16 JSON string takes at most `room` bytes,
    cut at a line break where one is near."""
    if utf16_size(text) <= room:
        return text, ""
    low, high = 0, len(text)
    while low < high:  # binary search on the length: JSON escaping makes the size uneven per character
        mid = (low + high + 1) // 2
        low, high = (mid, high) if utf16_size(text[:mid]) <= room else (low, mid - 1)
    cut = text.rfind("\n", 0, low)
    cut = cut if cut > low // 2 else low
    return text[:cut], text[cut:].lstrip("\n")
