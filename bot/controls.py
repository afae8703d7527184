"""What a turn shows besides its text, decided once for every platform.

The buttons that fit a turn's state (running: Stop; a pending action: Confirm / Cancel; done:
Regenerate and feedback; a private answer: Share) and the sources its answer cites. Adapters only translate these into
Block Kit, an Adaptive Card or console text; a click comes back as a `Control` and a target id
and goes to the conversation service, which checks that it belongs to the conversation and
that the clicker may press it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from rag.messages import Text, say

if TYPE_CHECKING:
    from .conversation import Turn


class Control(StrEnum):
    """A button's meaning."""

    STOP = "stop"
    CONFIRM = "confirm"
    CANCEL = "cancel"
    REGENERATE = "regenerate"
    HELPFUL = "helpful"
    NOT_HELPFUL = "not_helpful"
    SHARE = "share"  # post a private answer where it was asked


@dataclass(frozen=True)
class Button:
    """One button: what it does, its label in the asker's language, and what it acts on.

    `target` is a run id (Stop, Regenerate), an action id (Confirm, Cancel) or an answer's
    message id (feedback), always as text so any platform can carry it in a button value.
    """

    control: Control
    label: str
    target: str
    style: str = ""  # "primary" | "danger" | "" (adapters map it to their own names)


@dataclass(frozen=True)
class SourceLink:
    """A document the answer cites, numbered as its [n] refers to it."""

    n: int
    title: str
    heading: str
    path: str
    url: str = ""  # the document's own link, stored by its source (a wiki page, a Git permalink): preferred

    @property
    def label(self) -> str:
        """Title, and the section when it says something the title does not."""
        return self.title + (f" — {self.heading}" if self.heading and self.heading != self.title else "")


def web_url(url: str) -> str:
    """A stored document link fit to show: http(s) with a host only (a document's own metadata may say
    `javascript:` or `file:`), with the characters chat markup reads as syntax (<, >, |, spaces, quotes)
    percent-encoded so a link cannot end early or smuggle markup; "" otherwise."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return ""
    return quote(url.strip(), safe="/:?#[]@!$&'()*+,;=%~.-_")


def buttons(turn: "Turn", running: bool) -> list[Button]:
    """Stop while the answer streams; Confirm / Cancel for a pending action; Regenerate and feedback after.
    A private answer (its asker alone sees it) has no thread to act in: it offers Share only."""
    lang = turn.prepared.question
    if getattr(turn, "private", False):
        return [] if running else [Button(Control.SHARE, say(Text.BUTTON_SHARE, lang), str(turn.answer_id))]
    if running:
        return [Button(Control.STOP, say(Text.BUTTON_STOP, lang), turn.run_id, "danger")]
    if turn.action is not None and turn.action.status == "pending":
        action = str(turn.action.id)
        return [Button(Control.CONFIRM, say(Text.BUTTON_CONFIRM, lang), action, "primary"),
                Button(Control.CANCEL, say(Text.BUTTON_CANCEL, lang), action)]
    answer = str(turn.answer_id)
    return [Button(Control.REGENERATE, say(Text.BUTTON_REGENERATE, lang), turn.run_id),
            Button(Control.HELPFUL, say(Text.BUTTON_HELPFUL, lang), answer),
            Button(Control.NOT_HELPFUL, say(Text.BUTTON_NOT_HELPFUL, lang), answer)]


# Buttons sent by earlier versions named their target by what it was, not `target`.
LEGACY_TARGETS = ("run", "action", "message")


def target_of(data: Mapping[str, Any]) -> str:
    """What a button acts on, from the data it carried back (old buttons included)."""
    return str(data.get("target", next((data[k] for k in LEGACY_TARGETS if k in data), "")))


def pressed(kind: str, data: Mapping[str, Any]) -> tuple[Control, str] | None:
    """The control and target of a button that came back (None: not one of docbot's); old buttons had one
    `feedback` kind with a `helpful` flag."""
    if kind == "feedback":
        kind = Control.HELPFUL if data.get("helpful") else Control.NOT_HELPFUL
    try:
        return Control(kind), target_of(data)
    except ValueError:
        return None


def stopped_note(turn: "Turn") -> str:
    """What a stopped answer shows under the text it got to, in the asker's language ("" otherwise)."""
    return say(Text.STOPPED, turn.prepared.question) if turn.status == "cancelled" else ""


def stopped_suffix(turn: "Turn") -> str:
    """The stopped note as the answer's last paragraph, in italics ("" otherwise): how a stopped answer ends
    where the note goes into the answer's own Markdown (Slack's updated message, a Teams card)."""
    note = stopped_note(turn)
    return f"\n\n_{note}_" if note else ""
