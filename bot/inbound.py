"""What a platform tells the core about one incoming message, and what the core decided.

Adapters translate an event into `Incoming` (facts only: who, where, what, whether docbot was
mentioned, ...) and hand it to `ConversationService.receive`; every rule about *whether* and *how*
docbot answers lives in the core, once for every platform (see docs/architecture.md):

- for docbot: a direct message, a mention, or a reply in a thread docbot takes part in where only
  one person talks with it and nobody else is addressed;
- a message delivered twice (a retry, or two event types for one message) is handled once;
- an edit is answered when the original was not, and left alone when it was;
- other apps are not answered unless configured;
- "start over" in a direct conversation forgets the history (Korean and English phrases);
- a direct message that opens a thread of its own borrows the last half hour of that conversation;
- a private answer (seen by its asker alone) offers Share instead of the thread's buttons.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .conversation import Earlier, SessionKey, Turn

# Phrases that start a direct conversation over (compared lower-cased and stripped).
START_OVER = frozenset({"/new", "new conversation", "start over", "새 대화", "새 대화 시작", "처음부터"})
DM_SESSION_SECONDS = 1800.0  # direct messages this close together are one conversation

ThreadReader = Callable[[], Awaitable["list[Earlier]"]]
Accepted = Callable[[bool], Awaitable[None]]


@dataclass(frozen=True)
class Incoming:
    """One message as a platform delivered it, in facts every platform can state."""

    key: "SessionKey"
    text: str  # as the person wrote it: platform markup and docbot's own mention removed (the core trims it)
    user: str
    delivery_id: str = ""  # the same for every delivery of this message (a retry, a second event type);
    # an edit's is the core's (its original and new text), so an adapter need not make one up
    message_id: str = ""  # the message itself; an edit names it in `edit_of`
    mentioned: bool = False  # docbot was mentioned (or called by command)
    direct: bool = False  # a one-on-one conversation with docbot
    mentions_others: bool = False  # someone other than docbot is mentioned: addressed to them
    reply: bool = False  # said inside an ongoing thread, not the message that opens it
    opens_thread: bool = False  # the platform makes this message a thread of its own (Slack's top level)
    edit_of: str = ""  # the message_id this edit replaces
    from_app: bool = False  # sent by another app or bot
    participants: frozenset[str] = frozenset()  # people the platform shows in the thread (not docbot)
    private: bool = False  # the answer is seen by its asker alone
    # What was said in the thread before docbot was called in (read only on first contact).
    read_thread: ThreadReader | None = None
    # The asker's e-mail addresses as the platform knows them (Slack `users.info` with `users:read.email`);
    # asked in direct messages only, for documents a connector restricted to some people.
    identities: Callable[[], Awaitable[frozenset[str]]] | None = None
    # Called once the core decides to answer, before the answer is prepared (a "working" indicator);
    # its argument says whether this is docbot's first message in the thread.
    accepted: Accepted | None = None


@dataclass(frozen=True)
class Received:
    """What the core did with a message: `answered` (a turn to show, or a note such as "started
    over"), `ignored` (not for docbot, a duplicate, another app...) or `refused` (for docbot, but
    declined: over the rate limit)."""

    outcome: str  # answered | ignored | refused
    reason: str = ""  # duplicate | not_for_docbot | from_app | edit_of_answered | started_over | rate_limited ...
    turn: "Turn | None" = None
    note: str = ""  # said in the conversation when there is no turn (start over)
    first_contact: bool = False
    extra: dict = field(default_factory=dict)


def is_start_over(text: str) -> bool:
    """One of the start-over phrases, in either language."""
    return " ".join(text.split()).lower() in START_OVER
