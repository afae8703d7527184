"""How an answer gets into a Slack thread, whatever Slack does on the way.

Slack's native stream (chat.startStream / appendStream / stopStream) under a control message that carries
the query line and Stop, capped at Slack's 40,000 characters a message (a longer answer continues in a new
stream); chat.postMessage then chat.update where streaming is unavailable; a post whose call timed out is
looked for in the thread (message metadata: run and part) before it is tried again, since Slack
deduplicates nothing (late-post recovery), and a copy or stream that lands after docbot looked is swept
away later; a stop that timed out is tried again until the stream ends; and an apology, stored as such,
when no answer message can be opened. The stored answer is always what the thread shows.
"""
from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.controls import stopped_note, stopped_suffix
from bot.conversation import SessionKey, Turn
from rag.messages import Text, say

from .markup import slack_escape, slack_markdown
from .slack_client import brief
from .slack_render import SlackRenderer, context_block

log = logging.getLogger(__name__)

APPEND_LIMIT = 2000  # characters per appendStream call
MESSAGE_LIMIT = 40_000  # characters of one Slack message, a streamed one included (its markdown as sent)
# Writing into a stream or message Slack already closed is normal flow after Stop, not an error.
_CLOSED = {"message_not_in_streaming_state", "message_not_found", "cant_update_message", "not_in_streaming_state"}
# Message metadata on docbot's posts: a post whose call timed out may still have been made (Slack deduplicates
# nothing), so before posting again docbot looks for it in the thread by its run and part.
REPLY_EVENT = "docbot_reply"
POST_ATTEMPTS = 2  # tries at one post (each timed-out try looked for first); then the turn apologises
LOOKUP_PAGES = 10  # pages of conversations.replies read when looking for a post (200 messages each)
STOP_ATTEMPTS = 4  # tries at chat.stopStream: a stop that timed out may never have reached Slack
BACKOFF = 0.5  # seconds before the second try of a stop, doubled (with jitter) for each further one
SWEEPS = 3  # looks, each `late_window` apart, for a timed-out call that landed after docbot moved on
KNOWN = 10_000  # ts of docbot's messages whose calls returned (the rest came from calls that timed out)


def _ts(ts: str) -> tuple[int, int]:
    """A Slack timestamp as a sortable pair (seconds, micro): compared as numbers, never as floats."""
    seconds, _, micro = ts.partition(".")
    return int(seconds or 0), int(micro or 0)


async def stop_stream(client: AsyncWebClient, channel: str, ts: str, blocks: list[dict] | None = None,
                      attempts: int = STOP_ATTEMPTS, backoff: float = BACKOFF) -> bool:
    """chat.stopStream until the stream is stopped: a stop that timed out may never have reached Slack, and a
    stream nobody stops spins for ever, so it is tried again (bounded, with jittered backoff). A retry that
    finds the stream no longer streaming means an earlier try landed. A refusal of the blocks (a tail Slack
    will not take) is tried once more without them: the stream must end even if its buttons cannot show.
    True once the stream is known stopped."""
    for attempt in range(1, attempts + 1):
        try:
            await client.chat_stopStream(channel=channel, ts=ts, blocks=blocks or None)
            return True
        except SlackApiError as exc:
            if exc.response.get("error") in _CLOSED:
                return True
            log.info("chat.stopStream refused in %s (try %d): %s", channel, attempt, brief(exc))
            if exc.response.get("error") in ("invalid_blocks", "invalid_blocks_format", "msg_too_long"):
                blocks = None
        except Exception as exc:  # a timeout or a dropped connection: Slack may or may not have stopped it
            log.info("chat.stopStream failed in %s (try %d): %s", channel, attempt, brief(exc))
        if attempt < attempts:
            await asyncio.sleep(backoff * 2 ** (attempt - 1) * random.uniform(0.5, 1.5))
    log.warning("the stream %s in %s could not be stopped after %d tries", ts, channel, attempts)
    return False


class _Writer:
    """Puts one streamed answer into Slack."""

    async def append(self, text: str) -> None: ...

    async def finish(self, turn: Turn, key: SessionKey) -> None: ...


class NativeStream(_Writer):
    """chat.startStream / appendStream / stopStream, with a control message (query line + Stop) above."""

    def __init__(self, client: AsyncWebClient, renderer: SlackRenderer, channel: str, thread: str,
                 stream_ts: str, control_ts: str | None, every: float, recipient: dict | None = None):
        self.client, self.renderer, self.channel, self.thread = client, renderer, channel, thread
        self.ts, self.control_ts, self.every = stream_ts, control_ts, every
        self.recipient = recipient or {}  # recipient_user_id / recipient_team_id, again for a continuation
        self.buffer, self.last, self.closed = "", time.monotonic(), False
        self.shown, self.broken = "", False  # the text Slack took; whether an append failed
        self.sent = 0  # characters of markdown in the current message

    def _fitting(self, raw: str) -> str:
        """The longest start of `raw` whose markdown still fits this message, cut after a line break (as the
        non-streaming split does) or, with none in reach, where the last append ended; "" when nothing fits."""
        room = MESSAGE_LIMIT - self.sent
        n = min(len(raw), room)
        while n > 0:  # escaping only lengthens text, so each pass shrinks n by the overshoot
            over = len(slack_markdown(raw[:n])) - room
            if over <= 0:
                break
            n -= over
        if 0 < n < len(raw):  # the message ends here: after a line break when there is one
            cut = raw.rfind("\n", 0, n)
            n = cut + 1 if cut >= 0 else 0 if self.sent else n
        return raw[:max(n, 0)]

    async def _continue(self) -> None:
        """This message is full: stop its stream and continue the answer in a new one in the thread."""
        if not await stop_stream(self.client, self.channel, self.ts):
            raise RuntimeError(f"chat.stopStream of {self.ts} failed")
        started = await self.client.chat_startStream(channel=self.channel, thread_ts=self.thread,
                                                     recipient_team_id=self.recipient.get("recipient_team_id"),
                                                     recipient_user_id=self.recipient.get("recipient_user_id"))
        self.ts, self.sent = started["ts"], 0

    async def append(self, text: str) -> None:
        self.buffer += text
        if time.monotonic() - self.last >= self.every or len(self.buffer) >= APPEND_LIMIT:
            await self._flush()

    async def _flush(self) -> None:
        while self.buffer and not self.closed and not self.broken:
            raw = self._fitting(self.buffer[:APPEND_LIMIT])
            if not raw:
                try:
                    await self._continue()
                except Exception:  # the answer stops where the full message ends
                    self.broken = True
                    raise
                continue
            markdown = slack_markdown(raw)  # escaped per flush: entities never split across appends
            try:
                await self.client.chat_appendStream(channel=self.channel, ts=self.ts, markdown_text=markdown)
            except SlackApiError as exc:
                if exc.response.get("error") not in _CLOSED:
                    self.broken = True
                    raise
                self.closed = True
            except Exception:
                self.broken = True
                raise
            self.buffer = self.buffer[len(raw):]
            self.shown += raw
            self.sent += len(markdown)
        self.last = time.monotonic()

    async def finish(self, turn: Turn, key: SessionKey) -> None:
        """Show the rest, then stop the stream, always: a failed append must not leave it open (a spinner
        for ever). When Slack did not take all of the text, the stored answer becomes what it showed."""
        try:
            await self._flush()
        except Exception as exc:  # SlackApiError, a timeout: what Slack has is what was shown
            log.info("chat.appendStream failed in %s: %s; stopping the stream", self.channel, brief(exc))
            self.broken = True
        if self.broken:  # stored before the stop: no moment where the row holds text Slack refused
            await turn.service.shown(turn, self.shown, "partial")
        tail = [b for b in (self.renderer.sources(turn),) if b] + self.renderer.controls(turn, key, False)
        if stopped_note(turn):
            tail.insert(0, context_block(f"_{stopped_note(turn)}_"))
        await stop_stream(self.client, self.channel, self.ts, tail)  # tried until stopped (bounded)
        if self.control_ts:  # the Stop button goes; the query line stays, or the message goes with it
            head = self.renderer.query_line(turn)
            try:
                if head is None:  # nothing was searched: an empty message would show its fallback text
                    await self.client.chat_delete(channel=self.channel, ts=self.control_ts)
                else:  # the notification text is a fixed phrase, never the user's words
                    await self.client.chat_update(channel=self.channel, ts=self.control_ts,
                                                  text=say(Text.SEARCHED, turn.prepared.question), blocks=[head])
            except Exception as exc:  # the answer is shown and stored; a Stop button left behind does nothing
                log.info("the control message above the answer in %s was not updated: %s", self.channel,
                            brief(exc))


class UpdateStream(_Writer):
    """Fallback where streaming is unavailable: chat.postMessage, then chat.update at most every `every` s."""

    def __init__(self, client: AsyncWebClient, renderer: SlackRenderer, channel: str, thread: str, ts: str,
                 turn: Turn, key: SessionKey, every: float):
        self.client, self.renderer, self.channel, self.thread, self.ts = client, renderer, channel, thread, ts
        self.turn, self.key, self.every = turn, key, every
        self.text, self.last = "", time.monotonic()
        self.shown = ""  # the answer text the message showed after the last update Slack took

    async def append(self, text: str) -> None:
        self.text += text
        if time.monotonic() - self.last >= self.every:
            try:
                await self._update(running=True)
            except Exception as exc:  # a progress update: the next one (or the final one) shows the text
                log.info("chat.update failed in %s: %s", self.channel, brief(exc))
                self.last = time.monotonic()

    async def _update(self, running: bool, stopped: str = "") -> None:
        messages = self.renderer.message(self.turn, self.key, self.text + stopped, running)
        try:
            notification = slack_markdown(self.text[:3000]) or say(Text.SEARCHING, self.turn.prepared.question)
            await self.client.chat_update(channel=self.channel, ts=self.ts, text=notification, blocks=messages[0])
        except SlackApiError as exc:
            if exc.response.get("error") not in _CLOSED:
                raise
        self.last, self.shown = time.monotonic(), self.text
        if not running:
            for extra in messages[1:]:
                await self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread, blocks=extra,
                                                   text=say(Text.CONTINUED, self.turn.prepared.question))

    async def finish(self, turn: Turn, key: SessionKey) -> None:
        """The final update, tried twice (an update is idempotent: repeating one that timed out after Slack
        made it changes nothing); if Slack takes neither, the stored answer becomes what it last showed."""
        stopped = stopped_suffix(turn)
        self.text = turn.text
        for attempt in range(1, POST_ATTEMPTS + 1):
            try:
                await self._update(running=False, stopped=stopped)
                return
            except Exception as exc:
                log.info("chat.update of the final answer failed in %s (try %d): %s", self.channel, attempt,
                            brief(exc))
        if self.shown != turn.text:
            await turn.service.shown(turn, self.shown, "partial")


class SlackReplies:
    """Opens, streams and finishes docbot's messages in a thread (the adapter's `render`)."""

    def __init__(self, client: Callable[[], AsyncWebClient], renderer: SlackRenderer,
                 bot_user_id: Callable[[], Awaitable[str]], update_every: float, streaming: bool,
                 timeout: float = 30.0, late_window: float | None = None):
        """`client` gives the Web API client of the workspace being served; `bot_user_id` docbot's user there;
        `timeout` the client's; `late_window` how far apart the looks for a timed-out call that lands late are
        (default four client timeouts)."""
        self._client, self.renderer, self.bot_user_id = client, renderer, bot_user_id
        self.update_every, self.streaming = update_every, streaming
        self.timeout = timeout
        self.late_window = 4 * timeout if late_window is None else late_window
        self._known: OrderedDict[str, None] = OrderedDict()  # ts of posts whose call returned (bounded)
        self.sweeping: set[asyncio.Task] = set()  # looks for timed-out calls that land late

    def returned(self, ts: str) -> None:
        """A post or stream whose call returned its ts: docbot knows it (a message it does not know came from
        a call that timed out)."""
        if ts:
            self._known[ts] = None
            while len(self._known) > KNOWN:
                self._known.popitem(last=False)

    async def stop_sweeping(self, _app: Any = None) -> None:
        """On shutdown, the looks for late-landing calls end (the process is going)."""
        for task in list(self.sweeping):
            task.cancel()

    @property
    def client(self) -> AsyncWebClient:
        return self._client()

    async def render(self, turn: Turn, key: SessionKey, user: str, user_team: str = "") -> None:
        """Stream the turn into the thread; the stored answer is what the thread shows, whatever Slack does.

        If the answer message cannot be opened (Slack refuses, or times out twice), the user gets a short
        apology instead, and the turn is stored as `failed` with Slack's error and the apology as its text
        (empty if even that could not be posted); the thread is free for the next question at once.
        """
        turn.delivered = asyncio.Event()  # a shutdown waits for the stream to be stopped, not just stored
        try:
            writer = await self._open(turn, key, user, user_team)
        except Exception as exc:  # SlackApiError, a timeout, a dropped connection: the turn must still end
            log.info("could not open the answer message in %s (%s): apologising", key.channel, brief(exc))
            await self._apologise(turn, key, f"slack: {brief(exc)}")
            turn.delivered.set()
            return
        try:
            async with aclosing(turn.stream()) as pieces:  # closed (and stored) even if Slack fails midway
                async for piece in pieces:
                    await writer.append(piece)
        finally:
            try:
                await writer.finish(turn, key)
            finally:
                turn.delivered.set()

    async def _apologise(self, turn: Turn, key: SessionKey, error: str) -> None:
        """Say sorry in the thread (posted at most once, like the answer message) and store exactly that."""
        apology = say(Text.ERROR, turn.prepared.question)
        try:
            await self._post(key, turn.run_id, "apology", text=slack_escape(apology))
        except Exception as exc:
            log.info("could not post an apology in %s either: %s", key.channel, brief(exc))
            apology = ""
        await turn.fail(error, shown=apology)

    async def _post(self, key: SessionKey, run_id: str, part: str, **fields: Any) -> str:
        """chat.postMessage into the thread, never shown twice because of a timeout. Slack deduplicates nothing
        (chat.postMessage takes no idempotency key) and a call that timed out may still land, even after docbot
        looked for it. So a timed-out try is looked for (message metadata: run and part) at once and again
        after a short wait before it is tried again (POST_ATTEMPTS tries); and once the post is made, a sweep
        keeps looking for `late_window` x SWEEPS and deletes any copy that landed late, so the thread ends
        with one. Returns the message's ts; raises when it is not posted."""
        payload = {"run": run_id, "part": part}
        mine = lambda m: (m.get("metadata") or {}).get("event_payload") == payload  # noqa: E731
        for attempt in range(1, POST_ATTEMPTS + 1):
            try:
                posted = await self.client.chat_postMessage(
                    channel=key.channel, thread_ts=key.thread, metadata={"event_type": REPLY_EVENT,
                                                                         "event_payload": payload}, **fields)
                ts = posted["ts"]
            except SlackApiError:
                if attempt > 1:  # an earlier try timed out: it may still land, and must not stay
                    self._sweep(self._sweep_copies(key, payload, None, attempt - 1))
                raise  # Slack answered: it did not post this one
            except Exception as exc:  # a timeout or a dropped connection: posted or not, Slack did not say
                log.info("chat.postMessage timed out in %s (try %d): %s; looking for it in the thread",
                         key.channel, attempt, brief(exc))
                found = await self._find(key, mine)
                if not found:  # a call Slack queued lands a moment later: look once more before posting again
                    await asyncio.sleep(min(self.timeout, 5.0))
                    found = await self._find(key, mine)
                if found:
                    self.returned(found)
                    if attempt > 1:
                        self._sweep(self._sweep_copies(key, payload, found, attempt - 1))
                    return found
                if attempt == POST_ATTEMPTS:
                    self._sweep(self._sweep_copies(key, payload, None, attempt))
                    raise
                continue
            if attempt > 1:
                self._sweep(self._sweep_copies(key, payload, ts, attempt - 1))
            return ts
        raise AssertionError("unreachable")  # pragma: no cover

    def _sweep(self, look: Any) -> None:
        """Run a late-landing sweep in the background (the turn does not wait for it; shutdown does not)."""
        task = asyncio.create_task(look)
        self.sweeping.add(task)
        task.add_done_callback(self.sweeping.discard)

    async def _sweep_copies(self, key: SessionKey, payload: dict, keep: str | None, pending: int) -> None:
        """Delete the copies of a post (run and part) other than `keep` that land after docbot moved on:
        `pending` timed-out tries may each still land. Bounded: SWEEPS looks, `late_window` apart."""
        deleted: set[str] = set()
        for _ in range(SWEEPS):
            await asyncio.sleep(self.late_window)
            messages = await self._mine(key)
            for message in messages or []:
                ts = message["ts"]
                if ts != keep and ts not in deleted and (message.get("metadata") or {}).get("event_payload") == payload:
                    if await self._delete(key, ts):
                        deleted.add(ts)
                        log.info("deleted a copy of docbot's %s message in %s that Slack posted late",
                                 payload.get("part"), key.channel)
            if len(deleted) >= pending:
                return

    async def _sweep_streams(self, key: SessionKey, control: str, run_id: str) -> None:
        """A chat.startStream that timed out unfound may still open a stream later, which nobody would stop
        (a spinner for ever): one that appears under this run's control message (docbot's, without metadata,
        not returned by any call, before another run's message) is stopped and deleted. Bounded like
        `_sweep_copies`."""
        for _ in range(SWEEPS):
            await asyncio.sleep(self.late_window)
            for ts in self._orphans(await self._mine(key, after=control) or [], run_id):
                await stop_stream(self.client, key.channel, ts)
                await self._delete(key, ts)
                log.info("stopped and deleted a stream Slack opened late in %s", key.channel)
                return

    def _orphans(self, messages: list[dict], run_id: str) -> list[str]:
        """docbot's messages (oldest first, after a control message) that no call returned and that carry no
        metadata, up to the first message of another run: what a timed-out chat.startStream opened late."""
        orphans = []
        for message in messages:
            payload = (message.get("metadata") or {}).get("event_payload") or {}
            if payload:
                if payload.get("run") != run_id:
                    break
                continue
            if message["ts"] not in self._known:
                orphans.append(message["ts"])
        return orphans

    async def _delete(self, key: SessionKey, ts: str) -> bool:
        try:
            await self.client.chat_delete(channel=key.channel, ts=ts)
            return True
        except SlackApiError as exc:
            return exc.response.get("error") == "message_not_found"
        except Exception as exc:
            log.info("could not delete message %s in %s: %s", ts, key.channel, brief(exc))
            return False

    async def _find(self, key: SessionKey, match: Callable[[dict], bool], after: str | None = None) -> str | None:
        """The ts of docbot's newest message in the thread that `match`es (after `after`), read with
        conversations.replies; None when there is none or the thread cannot be read."""
        found = [m["ts"] for m in await self._mine(key, after) or [] if match(m)]
        return found[-1] if found else None

    async def _mine(self, key: SessionKey, after: str | None = None) -> list[dict] | None:
        """docbot's messages in the thread (after `after`), oldest first, read with conversations.replies (at
        most LOOKUP_PAGES pages); None when the thread cannot be read."""
        bot, cursor, mine = await self.bot_user_id(), None, []

        async def read(cursor: str | None) -> Any:  # a read that times out is tried once more: "not found"
            try:                                     # would post the message a second time
                return await self.client.conversations_replies(channel=key.channel, ts=key.thread, limit=200,
                                                               include_all_metadata=True, cursor=cursor,
                                                               oldest=after)
            except SlackApiError:
                raise
            except Exception:
                return await self.client.conversations_replies(channel=key.channel, ts=key.thread, limit=200,
                                                               include_all_metadata=True, cursor=cursor,
                                                               oldest=after)

        try:
            for _ in range(LOOKUP_PAGES):
                page = await read(cursor)
                mine += [m for m in page.get("messages") or [] if m.get("user") == bot and m.get("ts")
                         and (after is None or _ts(m["ts"]) > _ts(after))]
                cursor = (page.get("response_metadata") or {}).get("next_cursor")
                if not cursor:
                    break
        except Exception as exc:  # no history scope, or Slack slow again: not found
            log.info("could not read thread %s to find docbot's message: %s", key.thread, brief(exc))
            return None
        return mine

    async def _open(self, turn: Turn, key: SessionKey, user: str, user_team: str = "") -> _Writer:
        user_team = user_team or key.tenant  # a colleague of docbot's own workspace
        if self.streaming:
            control = await self._post(
                key, turn.run_id, "control", text=say(Text.SEARCHING, turn.prepared.question),
                blocks=[b for b in (self.renderer.query_line(turn),) if b] + self.renderer.controls(turn, key, True))
            try:
                recipient = {k: v for k, v in (("recipient_team_id", user_team), ("recipient_user_id", user)) if v}
                started = await self.client.chat_startStream(channel=key.channel, thread_ts=key.thread,
                                                             recipient_team_id=user_team or None,
                                                             recipient_user_id=user or None)
                return NativeStream(self.client, self.renderer, key.channel, key.thread, started["ts"],
                                    control, self.update_every, recipient)
            except SlackApiError as exc:
                log.info("chat.startStream unavailable (%s); falling back to chat.update", exc.response.get("error"))
                await self.client.chat_delete(channel=key.channel, ts=control)
            except Exception as exc:  # timed out: Slack may have opened the stream; use it, or the control message
                log.info("chat.startStream timed out in %s: %s; looking for the stream", key.channel, brief(exc))
                orphans = self._orphans(await self._mine(key, after=control) or [], turn.run_id)
                if orphans:
                    self.returned(orphans[0])
                    return NativeStream(self.client, self.renderer, key.channel, key.thread, orphans[0], control,
                                        self.update_every, recipient)
                self._sweep(self._sweep_streams(key, control, turn.run_id))  # it may still open: not left spinning
                return UpdateStream(self.client, self.renderer, key.channel, key.thread, control, turn, key,
                                    self.update_every)
        posted = await self._post(key, turn.run_id, "answer", text=say(Text.SEARCHING, turn.prepared.question),
                                  blocks=self.renderer.message(turn, key, "", running=True)[0])
        return UpdateStream(self.client, self.renderer, key.channel, key.thread, posted, turn, key,
                            self.update_every)
