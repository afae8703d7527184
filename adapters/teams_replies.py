"""How an answer gets into a Teams conversation, whatever the Bot Connector does on the way.

One-on-one chats stream (the SDK's streaming response); group chats and channels get a card sent and then
updated as the answer grows, with the AI-generated label, Teams citation entities and Teams' own feedback
buttons on the finished one. Every activity stays under MESSAGE_BUDGET: a longer answer continues in further
messages. What is stored is what Teams showed: an answer cut off midway is stored `partial` with the part
shown, one not shown at all becomes an apology (stored `failed`).
"""
from __future__ import annotations

import logging
import time

from microsoft_agents.activity import Activity, Attachment, Entity
from microsoft_agents.hosting.core import TurnContext
from microsoft_agents.hosting.core.app.streaming import StreamingResponse

from bot.controls import stopped_suffix
from bot.conversation import ConversationService, Turn
from rag.messages import Text, say

from .markup import explicit_links, html_escape, split_text
from .teams_client import TeamsClient, error_code, platform_failure
from .teams_render import CARD, CONTINUATION, ENVELOPE, MESSAGE_BUDGET, ai_entity, card, citations, fit, utf16_size

log = logging.getLogger(__name__)


class _Stream:
    """What a streamed answer has shown: the raw answer characters behind each length of escaped text queued,
    and the escaped length of the last chunk the connector took (Teams shows the latest chunk's text)."""

    def __init__(self) -> None:
        self.marks: list[tuple[int, int]] = [(0, 0)]  # (escaped characters, raw characters) queued so far
        self.delivered = 0  # escaped characters the last chunk that got through held
        self.final = False  # the final message got through

    def raw(self, answer: str) -> str:
        """The part of the answer whose escaped text the user saw."""
        return answer[:max(raw for escaped, raw in self.marks if escaped <= self.delivered)]


def _shown(answer: str, full: str, rest: str) -> str:
    """The part of `answer` shown when `full` (the answer, perhaps with a note after it) was shown up to `rest`."""
    return answer[:max(0, min(len(answer), len(full) - len(rest)))]


class TeamsReplies:
    """Streams, sends and updates an answer's messages in a Teams conversation (the agent's `render`)."""

    def __init__(self, service: ConversationService, client: TeamsClient, update_every: float = 1.0,
                 source_url_base: str | None = None):
        self.service, self.client = service, client
        self.update_every, self.source_url_base = update_every, source_url_base
        self.streams: dict[int, _Stream] = {}  # the turn context's id -> its answer's stream, while it streams

    async def render(self, ctx: TurnContext, turn: Turn, personal: bool) -> None:
        """Streaming in one-on-one chats, send-then-update elsewhere. Whatever the connector does, what is stored
        is what Teams showed: an answer that could not be shown at all becomes an apology (stored `failed`
        with it as its text, or empty when even that could not be sent), one cut off midway is stored `partial`
        with the part shown."""
        pieces = turn.stream()
        try:
            if personal:
                await self._stream(ctx, turn, pieces)
            else:
                await self._send_then_update(ctx, turn, pieces)
        except Exception:  # a bug (connector failures are handled where they happen): finish so it is stored
            log.exception("sending the answer of run %s to Teams conversation %s failed", turn.run_id,
                          ctx.activity.conversation.id)
            async for _ in pieces:
                pass

    async def _stream(self, ctx: TurnContext, turn: Turn, pieces) -> None:
        """The SDK's streaming response; text past the message budget continues in further messages."""
        stream = StreamingResponse(ctx)
        shown = self.streams[id(ctx)] = _Stream()
        try:
            stream.queue_informative_update(say(Text.SEARCHING, turn.prepared.question))
            # Characters of (escaped) text the message may hold: UTF-16 takes two bytes each, and the card,
            # citations and envelope need the rest.
            room = (MESSAGE_BUDGET - 2 * ENVELOPE) // 2
            streamed = queued = 0  # raw characters streamed; escaped characters they became
            async for piece in pieces:
                escaped = html_escape(explicit_links(piece))
                if queued + len(escaped) <= room:
                    stream.queue_text_chunk(escaped)
                    streamed, queued = streamed + len(piece), queued + len(escaped)
                    shown.marks.append((queued, streamed))
                else:
                    room = queued  # once over, nothing more streams: the rest follows as messages
                # Teams' own Stop button surfaces only as this flag on the SDK's stream (set when the
                # client refuses further chunks); it has no public accessor in 1.9 (the lock pins it).
                if getattr(stream, "_user_cancelled", False):
                    turn.cancelled.set()  # the asker's own client stopped it
            stream.set_citations(citations(turn, self.source_url_base))
            stream.set_generated_by_ai_label(True)  # also what attaches the citation entities to the final message
            stream.set_feedback_loop(True)
            # The message text is the answer; the card adds the query line, sources and buttons, not the text again.
            stream.set_attachments([Attachment(content_type=CARD, content=card(turn, None, running=False))])
            try:
                await stream.end_stream()
            except Exception as exc:  # the final message failed (counted and logged where it was sent)
                if not platform_failure(exc):
                    raise
            if not shown.final and not getattr(stream, "_user_cancelled", False):
                await self._cut(ctx, turn, shown.raw(turn.text))
                return
        finally:
            self.streams.pop(id(ctx), None)
        await self.service.shown_as(turn, getattr(stream, "_stream_id", None) or "")
        await self._continue(ctx, turn, turn.text, turn.text[streamed:])

    async def _send_then_update(self, ctx: TurnContext, turn: Turn, pieces) -> None:
        """A card (no separate text: the answer is shown once) updated as the answer grows."""
        placeholder = Activity(type="message", attachments=[Attachment(content_type=CARD,
                                                                       content=card(turn, "", running=True))])
        try:
            sent = await self.client.send(ctx, placeholder)
        except Exception as exc:  # nothing of the answer can be shown: an apology instead, stored as such
            if not platform_failure(exc):
                raise
            await pieces.aclose()
            await turn.fail(f"teams: {error_code(exc)}", shown=await self._sorry(ctx, turn))
            return
        shown, last = "", time.monotonic()  # the answer text the card shows
        async for _ in pieces:
            if time.monotonic() - last >= self.update_every:
                try:
                    rest = await self._update(ctx, sent.id, turn, turn.text, running=True)
                    shown = _shown(turn.text, turn.text, rest)
                except Exception as exc:  # a progress update: the next one (or the final one) shows the text
                    if not platform_failure(exc):
                        raise
                last = time.monotonic()
        text = turn.text + stopped_suffix(turn)
        try:
            rest = await self._update(ctx, sent.id, turn, text, running=False)
        except Exception as exc:
            if not platform_failure(exc):
                raise
            await self._cut(ctx, turn, shown)
            return
        await self.service.shown_as(turn, sent.id)
        await self._continue(ctx, turn, text, rest)

    async def _update(self, ctx: TurnContext, activity_id: str, turn: Turn, text: str, running: bool) -> str:
        """Update the card with as much of the text as fits the budget; returns what did not fit."""
        def build(shown: str) -> Activity:
            update = Activity(type="message", id=activity_id,
                              attachments=[Attachment(content_type=CARD, content=card(turn, shown, running))])
            if not running:  # the AI label, citations and Teams' feedback buttons on the finished answer
                update.entities = [Entity.model_validate(ai_entity(turn, self.source_url_base))]
                update.channel_data = {"feedbackLoop": {"type": "default"}}
            return update

        # The SDK adds the envelope (ids, serviceUrl, conversation, from, recipient) when it sends.
        empty = utf16_size(build("").model_dump(mode="json", by_alias=True, exclude_none=True)) + ENVELOPE
        shown, rest = fit(text, MESSAGE_BUDGET - empty)
        if rest:
            shown += "\n\n" + say(Text.CONTINUED, turn.prepared.question)
        update = build(shown)
        await self.client.update(ctx, update)
        return rest

    async def _continue(self, ctx: TurnContext, turn: Turn, full: str, rest: str) -> None:
        """The part of a long answer (`full`) that did not fit its message (`rest`), in plain messages within the
        budget; if one cannot be sent, the answer is stored as far as it was shown."""
        # Escaping can make a character five (`&amp;`): pieces of CONTINUATION characters stay in budget.
        for piece in split_text(rest, CONTINUATION):
            try:
                await self.client.send(ctx, Activity(type="message", text=html_escape(explicit_links(piece))))
            except Exception as exc:
                if not platform_failure(exc):
                    raise
                await self._cut(ctx, turn, _shown(turn.text, full, rest))
                return
            rest = rest[len(piece):].lstrip("\n")

    async def _cut(self, ctx: TurnContext, turn: Turn, shown: str) -> None:
        """The answer broke off in Teams: stored `partial` with the part the user saw, or, when none of it was
        shown, as the apology sent instead (`failed`; empty when even that could not be sent)."""
        if shown.strip():
            await self.service.shown(turn, shown, "partial")
        else:
            await self.service.shown(turn, await self._sorry(ctx, turn), "failed")

    async def _sorry(self, ctx: TurnContext, turn: Turn) -> str:
        """Send a short apology; returns it, or "" when the connector would not take it either."""
        apology = say(Text.ERROR, turn.prepared.question)
        try:
            await self.client.send(ctx, html_escape(apology))
        except Exception as exc:
            if not platform_failure(exc):
                raise
            log.info("could not send an apology to Teams conversation %s either", ctx.activity.conversation.id)
            return ""
        return apology
