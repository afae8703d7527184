"""`docbot chat` in a real pseudo-terminal: long pastes, Ctrl-C, and a piped session past any rate limit."""
import os
import pty
import select
import signal
import sqlite3
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def read_until(fd: int, marker: bytes, timeout: float = 120.0) -> bytes:
    out, deadline = b"", time.monotonic() + timeout
    while marker not in out and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    return out


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_a_long_paste_arrives_whole_and_ctrl_c_at_the_prompt_does_not_quit(tmp_path, docs):
    env = {**os.environ, "DOCBOT_DATA_DIR": str(tmp_path / "data"), "TERM": "dumb", "PYTHONUNBUFFERED": "1"}
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "DOCBOT_DATABASE_URL"):
        env.pop(name, None)
    docbot = [sys.executable, "-c", "from docbot.cli import main; main()"]
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal session running `docbot chat`
        os.chdir(tmp_path)
        os.execvpe(sys.executable, docbot + ["chat"], {**env, "PYTHONPATH": str(ROOT)})
    try:
        assert b"you> " in read_until(fd, b"you> ")
        os.write(fd, b"\x03")  # Ctrl-C at the prompt
        assert b"Ctrl-C stops an answer" in read_until(fd, b"Ctrl-C stops an answer", 20)
        # Longer than the terminal's 4,096-byte canonical line buffer: cut without readline.
        question = "연차 규정 " * 700 + "마지막단어?"
        os.write(fd, question.encode() + b"\r")
        assert b"you> " in read_until(fd, b"you> ")
        os.write(fd, b"/quit\r")
        read_until(fd, b"\n", 10)
    finally:
        for _ in range(50):  # give /quit a moment, then make sure no child outlives the test
            if os.waitpid(pid, os.WNOHANG)[0]:
                break
            time.sleep(0.2)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    db = sqlite3.connect(tmp_path / "data" / "docbot.sqlite3")
    stored = [row[0] for row in db.execute("SELECT text FROM message WHERE role='user'")]
    assert stored == [question]


async def test_ctrl_c_while_answering_stops_that_answer_and_keeps_what_was_said(service):
    from rich.console import Console

    from adapters.console import ConsoleChat

    class Interrupting:
        """Stands in for the user pressing Ctrl-C as soon as the first piece is on screen."""

        def __init__(self, chat):
            self.chat, self.seen = chat, []

        def write(self, text):
            self.seen.append(text)
            if "•" in text and self.chat._current is not None:
                self.chat._interrupt()
            return len(text)

        def flush(self):
            pass

    chat = ConsoleChat(service, user="kim")
    sink = Interrupting(chat)
    chat.out = Console(file=sink, highlight=False, soft_wrap=True, force_terminal=False)
    await chat.handle("재택근무는 일주일에 몇 번 가능해?")
    printed = "".join(sink.seen)
    assert "(중단됨)" in printed and printed.count("•") < 4  # "(stopped)", in the asker's language
    stored = service.store.history(service.store.conversation(*chat.key.__dict__.values()).id, 10)
    assert stored[-1].status == "cancelled" and stored[-1].text and stored[-1].text in printed


async def test_the_models_load_behind_the_prompt_and_the_first_question_waits_for_them(service):
    """`docbot chat` shows its prompt at once; loading runs on a thread, and a question asked meanwhile
    is answered after it (never against half-loaded parts)."""
    import asyncio
    import io
    import threading

    from rich.console import Console

    from adapters.console import ConsoleChat

    order: list[str] = []
    release = threading.Event()

    def warm_up():
        order.append("loading")
        release.wait(10)
        order.append("loaded")

    class Asking:
        """The conversation service, noting when the question reaches it."""

        def __getattr__(self, name):
            return getattr(service, name)

        async def receive(self, *args, **kwargs):
            order.append("asked")
            return await service.receive(*args, **kwargs)

    out = io.StringIO()
    chat = ConsoleChat(Asking(), out=Console(file=out, width=120), warm_up=warm_up)  # type: ignore[arg-type]
    running = asyncio.create_task(chat.run(io.StringIO("재택근무는 일주일에 몇 번 가능해?\n/quit\n")))
    while not order:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.2)
    assert order == ["loading"]  # the question is waiting, not asked against half-loaded parts
    release.set()
    await asyncio.wait_for(running, 600)  # a guard against a hang
    assert order == ["loading", "loaded", "asked"] and "•" in out.getvalue()


async def test_the_consoles_own_notes_come_from_the_catalogue_in_the_askers_language(service):
    import io

    from rich.console import Console

    from adapters.console import ConsoleChat
    from rag.messages import Text, say

    out = io.StringIO()
    chat = ConsoleChat(service, out=Console(file=out, width=400, highlight=False), user="kim")
    assert await chat.handle("/regen")  # nothing asked yet: English, the console's default
    assert say(Text.NOTHING_TO_REGENERATE, False) in out.getvalue()
    assert await chat.handle("재택근무는 일주일에 몇 번 가능해?")
    for line in ("/regen", "/confirm x", "/help"):
        assert await chat.handle(line)
    said = out.getvalue()
    for key in (Text.CONSOLE_SAME_ANSWER, Text.CONSOLE_DECIDE_USAGE, Text.CONSOLE_HELP):
        assert say(key, True) in said and say(key, False) not in said
    assert await chat.handle("새 대화")
    assert f"{say(Text.CONSOLE_NEW_THREAD, True)} {say(Text.STARTED_OVER, True)}" in out.getvalue()
