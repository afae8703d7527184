"""Text from documents, the model and users made inert for chat: it can never ping a channel,
mention someone, or hide a link's target behind other words.

Escaping belongs to the adapters (each platform has its own control characters); these are
the shared pieces. Every pattern here is linear-time (bounded runs, no nested quantifiers).
"""
from __future__ import annotations

import html
import re
from urllib.parse import quote

# A Markdown link [label](url): the label is kept and the target shown, so "[docs](https://evil)" cannot
# pass for a link to the docs. Bounded label and target keep the scan linear.
_MARKDOWN_LINK = re.compile(r"\[([^\[\]\n]{0,300})\]\(([^()\s]{1,2000})\)")


def explicit_links(text: str) -> str:
    """Markdown links written out as `label (target)`."""
    return _MARKDOWN_LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})" if m.group(1) != m.group(2)
                              else m.group(2), text)


# Slack's markup in incoming text (api.slack.com/reference/surfaces/formatting): <@U1|name>, <#C1|general>,
# <!here>, <https://x|label>, <mailto:a@b|a@b>. Bounded negated classes keep the scan linear.
_SLACK_TAG = re.compile(r"<([^<>|\n]{1,2000})(?:\|([^<>\n]{0,2000}))?>")


def slack_plain(text: str) -> str:
    """A Slack message as the person wrote it: links as `label (url)`, channels as #name, user mentions as
    @name (bare ones dropped), broadcasts dropped, and Slack's three escapes undone."""
    def plain(match: re.Match) -> str:
        target, label = match.group(1), match.group(2)
        if target.startswith("@"):
            return f"@{label}" if label else ""
        if target.startswith("#"):
            return f"#{label}" if label else ""
        if target.startswith("!"):
            return ""
        target = target.removeprefix("mailto:")
        return f"{label} ({target})" if label and label != target else target

    return html.unescape(_SLACK_TAG.sub(plain, text)) if "<" in text or "&" in text else text


def slack_escape(text: str) -> str:
    """Slack's three control characters as entities (api.slack.com/reference/surfaces/formatting#escaping):
    `<!channel>`, `<@U123>` and `<https://evil|docs>` from a document arrive as plain text."""
    return html.escape(text, quote=False)


def slack_markdown(text: str) -> str:
    """Text for Slack's Markdown surfaces (streams, markdown blocks): escaped, and links made explicit."""
    return slack_escape(explicit_links(text))


def html_escape(text: str) -> str:
    """Teams message text renders a subset of HTML (`<a>`, `<at>`): escaped, nothing becomes markup."""
    return html.escape(text, quote=False)


def url_path(path: str) -> str:
    """A document path as a URL path: spaces, Hangul and '|' or '>' percent-encoded, slashes kept."""
    return quote(path, safe="/")


def split_text(text: str, limit: int) -> list[str]:
    """Cut text into pieces of at most `limit` characters, at line breaks where possible."""
    pieces, rest = [], text
    while len(rest) > limit:
        cut = rest.rfind("\n", 0, limit)
        cut = cut if cut > limit // 2 else limit
        pieces.append(rest[:cut])
        rest = rest[cut:].lstrip("\n")
    return pieces + ([rest] if rest else [])
