"""The console adapter: the whole bot in a terminal, interactive or with piped stdin.

One message per line. `/new` starts a new thread, `/regen` regenerates the last answer,
`/quit` leaves. Above each answer a short line shows the query the search used; the
sources follow it. Interactive input goes through GNU readline when Python has it: arrow
keys and history work, and a pasted question is not cut at the terminal's 4,096-byte line
buffer (readline reads in raw mode). Ctrl-C stops the answer being written; Ctrl-D quits.
"""
from __future__ import annotations

import asyncio
import getpass
import signal
import sys
import uuid
from collections.abc import Callable
from typing import TextIO
from urllib.parse import quote

from rich.console import Console
from rich.markup import escape

from bot.controls import Control, buttons, stopped_note
from bot.conversation import ConversationService, SessionKey, Turn
from bot.inbound import Incoming
from rag.answer.evidence import explanation
from rag.messages import Text, say


class ConsoleChat:
    """Reads lines, prints streamed answers with the rewritten query and sources."""

    def __init__(self, service: ConversationService, out: Console | None = None, user: str | None = None,
                 source_url_base: str | None = None, offline: bool = True,
                 warm_up: Callable[[], None] | None = None, explain: bool = False):
        self.service = service
        self.explain = explain  # print why each answer ended as it did (`docbot chat --explain`)
        self._warm_up = warm_up  # loads the models behind the prompt; the first question waits for it
        self._ready: asyncio.Task | None = None
        self.out = out or Console(highlight=False, soft_wrap=True)
        self.user = user or getpass.getuser()
        self.key = self._new_key()
        self.source_url_base, self.offline = source_url_base, offline
        self._current: Turn | None = None  # the answer being written, for Ctrl-C
        self._last_run = ""  # the latest answer's run, what /regen regenerates
        self._language = ""  # the latest question: the console's own notes follow its language

    def _new_key(self) -> SessionKey:
        return SessionKey("console", "local", self.user, uuid.uuid4().hex[:12])

    async def run(self, lines: TextIO | None = None) -> None:
        """Loop until EOF or /quit (stdin is looked up now, not at import: tests and embedders swap it)."""
        lines = lines or sys.stdin
        if hasattr(lines, "reconfigure"):  # bytes that are not UTF-8 become U+FFFD instead of ending the chat
            lines.reconfigure(errors="replace")
        interactive = lines.isatty()
        if interactive:
            _enable_line_editing()
            self.out.print(f"[bold]{_escape(say(Text.CONSOLE_WELCOME, ''))}[/] {_escape(say(Text.CONSOLE_HELP, ''))}")
        self._watch_interrupts()
        if self._warm_up is not None:
            self._ready = asyncio.create_task(asyncio.to_thread(self._warm_up))
        while True:
            try:
                # Interactive input waits in a thread, so the loop stays free to see Ctrl-C.
                line = await asyncio.to_thread(_prompt) if interactive else lines.readline()
            except EOFError:
                break
            if not line:
                break
            if not await self.handle(line.rstrip("\n")):
                break

    def _watch_interrupts(self) -> None:
        """Ctrl-C stops the answer being written (kept as said, stored as cancelled) instead of quitting."""
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self._interrupt)
        except (NotImplementedError, RuntimeError, ValueError):  # no signals here (Windows, a worker thread)
            pass

    def _interrupt(self) -> None:
        if self._current is not None and not self._current.done.is_set():
            self._current.cancelled.set()
        else:
            self.out.print(f"\n[dim]{_escape(say(Text.CONSOLE_CTRL_C, self._language))}[/]")

    async def _until_ready(self) -> None:
        """Wait for the warm-up still loading the models; if it failed, the turn meets the error and apologises."""
        if self._ready is not None:
            ready, self._ready = self._ready, None
            try:
                await ready
            except Exception:  # the same failure reaches the turn, which reports it
                pass

    async def handle(self, line: str) -> bool:
        """Handle one input line; False means quit."""
        command = line.strip().lower()
        if command in ("/quit", "/exit"):
            return False
        if command == "/help":
            self.out.print(_escape(say(Text.CONSOLE_HELP, self._language)))
            return True
        if command.split()[0:1] in (["/confirm"], ["/cancel"]):
            await self.decide(command)
            return True
        await self._until_ready()
        if command == "/regen":
            pressed = await self.service.press(self.key, Control.REGENERATE, self._last_run, self.user)
            if pressed.turn is None:
                note = pressed.note if self._last_run else say(Text.NOTHING_TO_REGENERATE, self._language)
                self.out.print(f"[dim]{_escape(note)}[/]")
                return True
            turn = pressed.turn
            if self.offline:
                self.out.print(f"[dim]{_escape(say(Text.CONSOLE_SAME_ANSWER, self._language))}[/]")
        else:
            received = await self.service.receive(Incoming(self.key, line, self.user, direct=True))
            if received.turn is None:  # started over ("/new", "새 대화"...): the core forgot the history
                self._last_run = ""
                self.out.print(f"[dim]{say(Text.CONSOLE_NEW_THREAD, line)} {_escape(received.note)}[/]")
                return True
            self._language = line
            turn = received.turn
        await self.render(turn)
        return True

    async def decide(self, command: str) -> None:
        """The console's Confirm / Cancel buttons."""
        verb, _, number = command.partition(" ")
        if not number.strip().isdigit():
            self.out.print(_escape(say(Text.CONSOLE_DECIDE_USAGE, self._language)))
            return
        control = Control.CONFIRM if verb == "/confirm" else Control.CANCEL
        pressed = await self.service.press(self.key, control, number.strip(), self.user)
        self.out.print(_escape(pressed.note))

    async def render(self, turn: Turn) -> None:
        """Rewritten query, streamed answer, then sources."""
        prepared = turn.prepared
        if prepared.searched:
            steps = f" → steps: {' | '.join(prepared.steps)}" if prepared.steps else ""
            self.out.print(f"[dim]» search: {_escape(turn.rewritten)}  ({prepared.rewrite.method}){_escape(steps)}[/]")
        else:
            self.out.print(f"[dim]» route: {prepared.route.intent} ({prepared.route.confidence:.2f}), no search[/]")
        self._current, self._last_run = turn, turn.run_id
        try:
            async for piece in turn.stream():
                self.out.print(_escape(piece), end="", soft_wrap=True)
        finally:
            self._current = None
        if stopped_note(turn):
            self.out.print(f"\n[dim]{stopped_note(turn)}[/]", end="")
        self.out.print()
        for source in turn.sources:
            link = source.url or self._link(source.path)  # the document's stored link first
            self.out.print(f"[dim]  [{source.n}] {_escape(source.label)} ({_escape(link)})[/]")
        if self.explain and prepared.searched:
            for line in explanation(prepared.reading, prepared.verdict):
                self.out.print(f"[dim]  ? {_escape(line)}[/]")
        decisions = [b for b in buttons(turn, running=False) if b.control in (Control.CONFIRM, Control.CANCEL)]
        if decisions:  # the console's buttons are commands
            self.out.print("[bold]" + "  ".join(f"\\[{_escape(b.label)}: /{b.control} {b.target}]"
                                                for b in decisions) + "[/]")
        self.out.print()


    def _link(self, path: str) -> str:
        """A source's link under DOCBOT_SOURCE_URL_BASE (spaces and Hangul URL-encoded), else its path."""
        if not self.source_url_base:
            return path
        return f"{self.source_url_base.rstrip('/')}/{quote(path)}"


def _enable_line_editing() -> None:
    """Arrow keys, history and long pastes for interactive input, where Python has readline."""
    try:
        import readline  # noqa: F401  (importing it is what switches input() over)
    except ImportError:
        pass


def _prompt() -> str:
    return input("you> ") + "\n"


def _escape(text: str) -> str:
    return escape(text)
