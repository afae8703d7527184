"""The console adapter: the whole bot in a terminal, interactive or with piped stdin.

One message per line. `/new` starts a new thread, `/regen` regenerates the last answer,
`/quit` leaves. Above each answer a short line shows the query the search used; the
sources follow it.
"""
from __future__ import annotations

import getpass
import sys
import uuid
from typing import TextIO

from rich.console import Console
from rich.markup import escape

from bot.conversation import ConversationService, SessionKey, Turn

HELP = ("Commands: /new (new thread), /regen (regenerate last answer), /confirm N and /cancel N (a pending "
        "action), /quit. Anything else is a question.")


class ConsoleChat:
    """Reads lines, prints streamed answers with the rewritten query and sources."""

    def __init__(self, service: ConversationService, out: Console | None = None, user: str | None = None):
        self.service = service
        self.out = out or Console(highlight=False, soft_wrap=True)
        self.user = user or getpass.getuser()
        self.key = self._new_key()

    def _new_key(self) -> SessionKey:
        return SessionKey("console", "local", self.user, uuid.uuid4().hex[:12])

    async def run(self, lines: TextIO | None = None) -> None:
        """Loop until EOF or /quit (stdin is looked up now, not at import: tests and embedders swap it)."""
        lines = lines or sys.stdin
        interactive = lines.isatty()
        if interactive:
            self.out.print(f"[bold]docbot[/] — ask about your documents. {HELP}")
        while True:
            if interactive:
                self.out.print("[bold cyan]you>[/] ", end="")
            line = lines.readline()
            if not line:
                break
            if not await self.handle(line.rstrip("\n")):
                break

    async def handle(self, line: str) -> bool:
        """Handle one input line; False means quit."""
        command = line.strip().lower()
        if command in ("/quit", "/exit"):
            return False
        if command == "/new":
            self.key = self._new_key()
            self.out.print("[dim]— new thread —[/]")
            return True
        if command == "/help":
            self.out.print(HELP)
            return True
        if command.split()[0:1] in (["/confirm"], ["/cancel"]):
            await self.decide(command)
            return True
        if command == "/regen":
            turn = await self.service.regenerate(self.key, self.user)
            if turn is None:
                self.out.print("[dim]nothing to regenerate yet[/]")
                return True
        else:
            turn = await self.service.ask(self.key, line, self.user)
        await self.render(turn)
        return True

    async def decide(self, command: str) -> None:
        """The console's Confirm / Cancel buttons."""
        verb, _, number = command.partition(" ")
        if not number.strip().isdigit() or self.service.actions is None:
            self.out.print("usage: /confirm N or /cancel N")
            return
        action_id = int(number)
        if verb == "/confirm":
            outcome = await self.service.actions.confirm(action_id, self.user)
        else:
            outcome = self.service.actions.cancel(action_id, self.user)
        self.out.print(_escape(outcome.message))

    async def render(self, turn: Turn) -> None:
        """Rewritten query, streamed answer, then sources."""
        prepared = turn.prepared
        if prepared.searched:
            steps = f" → steps: {' | '.join(prepared.steps)}" if prepared.steps else ""
            self.out.print(f"[dim]» search: {_escape(turn.rewritten)}  ({prepared.rewrite.method}){_escape(steps)}[/]")
        else:
            self.out.print(f"[dim]» route: {prepared.route.intent} ({prepared.route.confidence:.2f}), no search[/]")
        async for piece in turn.stream():
            self.out.print(_escape(piece), end="", soft_wrap=True)
        self.out.print()
        for source in turn.sources:
            heading = f" — {source['heading']}" if source["heading"] else ""
            self.out.print(f"[dim]  [{source['n']}] {_escape(source['title'])}{_escape(heading)} ({source['path']})[/]")
        if turn.action is not None:
            self.out.print(f"[bold]\\[Confirm: /confirm {turn.action.id}]  \\[Cancel: /cancel {turn.action.id}][/]")
        self.out.print()


def _escape(text: str) -> str:
    return escape(text)
