"""What docbot shows in Slack: Block Kit for an answer (the rewritten query small above it, its Markdown,
numbered sources, the core's buttons), a shared or private answer, and the values buttons carry back.

Kept apart from the event handling in adapters/slack.py, as adapters/teams_render.py is from Teams': the
adapter translates events, this module builds what docbot posts.
"""
from __future__ import annotations

import json
import re

from bot.controls import Button, Control, buttons, target_of
from bot.conversation import SessionKey, Turn
from rag.messages import Text, say

from .markup import slack_escape, slack_markdown, split_text, url_path

PREFIX = "docbot_"  # a button's action_id is PREFIX + its Control; its value is "<team>:<target>"
STOP, REGENERATE, HELPFUL, NOT_HELPFUL = (PREFIX + c for c in (Control.STOP, Control.REGENERATE, Control.HELPFUL,
                                                                Control.NOT_HELPFUL))
CONFIRM, CANCEL = PREFIX + Control.CONFIRM, PREFIX + Control.CANCEL
FEEDBACK = PREFIX + "feedback"  # Slack's feedback_buttons: one action id, the value says which
SHARE = PREFIX + "share"  # posts a private /docbot answer where it was asked
ACTION_ID = re.compile(r"^docbot_[a-z_]{1,20}$")
_STYLES = {"primary": "primary", "danger": "danger"}
SECTION_LIMIT = 3000  # characters of mrkdwn in one section block
MARKDOWN_LIMIT = 11_000  # characters of markdown blocks in one payload (Slack: 12,000 in all)


def _button(button: Button, team: str) -> dict:
    """A core button as a Block Kit button: action_id names the control; the value carries its target and
    the team of the conversation it belongs to. A click's `team` is the clicker's workspace, which in a
    Slack Connect channel or an Enterprise org is not the one docbot keys the thread by; the value comes
    back exactly as docbot wrote it (Slack builds the payload), and channel and thread come from the
    clicked message itself."""
    block = {"type": "button", "text": {"type": "plain_text", "text": button.label, "emoji": True},
             "action_id": PREFIX + button.control, "value": f"{team}:{button.target}"}
    if button.style in _STYLES:
        block["style"] = _STYLES[button.style]
    return block


def pressed_value(value: str) -> tuple[str | None, str]:
    """(team, target) of a button's value; buttons posted by earlier versions carry JSON instead."""
    if value.startswith("{"):
        try:
            legacy = json.loads(value)
        except ValueError:
            return None, ""
        return legacy.get("team"), target_of(legacy)
    team, _, target = value.rpartition(":")
    return team or None, target


def context_block(text: str) -> dict:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text[:SECTION_LIMIT]}]}


class SlackRenderer:
    """Blocks for a turn: rewritten query, answer sections, sources, buttons."""

    def __init__(self, source_url_base: str | None = None):
        self.source_url_base = source_url_base.rstrip("/") + "/" if source_url_base else None

    def query_line(self, turn: Turn) -> dict | None:
        """The small line above the answer: the query the search used."""
        if not turn.prepared.searched:
            return None
        steps = f"  ·  steps: {' | '.join(turn.prepared.steps)}" if turn.prepared.steps else ""
        return context_block(f":mag: _{slack_escape(turn.rewritten)}_{slack_escape(steps)}")

    def sources(self, turn: Turn) -> dict | None:
        """Numbered source links under the answer."""
        if not turn.sources:
            return None
        links = []
        for s in turn.sources:
            label = slack_escape(s.label).replace("|", "¦")  # '|' would end the link's label early
            url = s.url or (f"{self.source_url_base}{url_path(s.path)}" if self.source_url_base else "")
            # the stored link first (a wiki page, a permalink); mrkdwn wants & escaped inside a link too
            target = f"<{url.replace('&', '&amp;')}|{label}>" if url else f"{label} (`{slack_escape(s.path)}`)"
            links.append(f"[{s.n}] {target}")
        return context_block("\n".join(links))

    def controls(self, turn: Turn, key: SessionKey, running: bool) -> list[dict]:
        """The turn's buttons (decided in the core): an actions block, and 👍 / 👎 as Slack's own feedback
        buttons (a `context_actions` block) under a finished answer."""
        wanted = buttons(turn, running)
        feedback = {b.control: b for b in wanted if b.control in (Control.HELPFUL, Control.NOT_HELPFUL)}
        others = [_button(b, key.tenant) for b in wanted if b.control not in feedback]
        blocks = [{"type": "actions", "elements": others}] if others else []
        if len(feedback) == 2:
            good, bad = feedback[Control.HELPFUL], feedback[Control.NOT_HELPFUL]
            blocks.append({"type": "context_actions", "elements": [{
                "type": "feedback_buttons", "action_id": FEEDBACK,
                "positive_button": {"text": {"type": "plain_text", "text": good.label},
                                    "accessibility_label": good.label, "value": f"{key.tenant}:{good.control}:{good.target}"},
                "negative_button": {"text": {"type": "plain_text", "text": bad.label},
                                    "accessibility_label": bad.label, "value": f"{key.tenant}:{bad.control}:{bad.target}"},
            }]})
        return blocks

    def message(self, turn: Turn, key: SessionKey, text: str, running: bool) -> list[list[dict]]:
        """The answer as one or more messages' blocks: its Markdown in a `markdown` block (Slack renders
        standard Markdown there; mrkdwn sections showed `**bold**` as typed), one per message since Slack
        allows 12,000 characters of markdown blocks in one payload; longer answers continue."""
        pieces = split_text(slack_markdown(text) or say(Text.SEARCHING, turn.prepared.question), MARKDOWN_LIMIT)
        head = [b for b in (self.query_line(turn),) if b]
        tail = [b for b in (None if running else self.sources(turn),) if b] + self.controls(turn, key, running)
        messages = [head + [{"type": "markdown", "text": pieces[0]}] + tail]
        messages += [[{"type": "markdown", "text": piece}] for piece in pieces[1:]]
        return messages

    def shared(self, text: str, user: str) -> list[dict]:
        """A private answer posted where it was asked (Share): its first message's worth, and who shared it."""
        blocks = [{"type": "markdown", "text": piece} for piece in split_text(
            slack_markdown(text) or " ", MARKDOWN_LIMIT)][:1]
        blocks.append(context_block(f"<@{user}> · docbot"))
        return blocks

    def private(self, turn: Turn, key: SessionKey, answer: str) -> list[dict]:
        """A finished answer its asker alone sees (one response, no thread to continue in): query line, the
        first message's worth of the answer, sources and the core's buttons."""
        blocks = [b for b in (self.query_line(turn),) if b]
        blocks += [{"type": "markdown", "text": piece} for piece in split_text(
            slack_markdown(answer) or " ", MARKDOWN_LIMIT)][:1]
        blocks += [b for b in (self.sources(turn),) if b] + self.controls(turn, key, False)
        return blocks
