"""Cold start of the commands a user types: `docbot status`, and `docbot chat` to its first prompt.

    python scripts/bench_startup.py [--data DIR] [--runs 3]

Indexes the bundled handbook into DIR first if it holds no index (not timed). Each run is a new
process, as a user's command is: `status` is timed to its exit; `chat` runs in a pseudo-terminal
and is timed to its first `you>` prompt, then to the end of its first and second answers (the
first answer is where loading that was not done up front would land): once with the question
typed the instant the prompt appears, once three seconds later (a person reading and typing).
Peak memory is the process's maximum resident set.
"""
from __future__ import annotations

import argparse
import json
import os
import pty
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCBOT = str(Path(sys.executable).parent / "docbot")
PROMPT = b"you> "


def status(env: dict) -> tuple[float, float]:
    """Seconds to exit and peak resident MB of one `docbot status`."""
    started = time.perf_counter()
    child = subprocess.Popen([DOCBOT, "status"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, code, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(code)
    if child.returncode:
        raise SystemExit(f"docbot status exited with {child.returncode}")
    return time.perf_counter() - started, usage.ru_maxrss / 1024


def chat(env: dict, questions: list[str], think: float) -> list[float]:
    """Seconds to the first prompt, then to the prompt after each question (its answer written); peak MB.
    The first question is typed `think` seconds after the prompt appears (a person reads and types)."""
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: docbot chat on a terminal
        os.execve(DOCBOT, [DOCBOT, "chat"], env)
    marks = [_until_prompt(fd) - started]
    time.sleep(think)
    for question in questions:
        os.write(fd, question.encode() + b"\n")
        asked = time.perf_counter()
        marks.append(_until_prompt(fd) - asked)
    os.write(fd, b"/quit\n")
    _, _, usage = os.wait4(pid, 0)
    return [*marks, usage.ru_maxrss / 1024]


def _until_prompt(fd: int, timeout: float = 300) -> float:
    seen = b""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.01)
        if ready:
            seen += os.read(fd, 65536)
            if seen.rstrip().endswith(PROMPT.rstrip()):
                return time.perf_counter()
    raise TimeoutError(f"no prompt; the chat printed: {seen[-500:]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "docbot-startup")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--think", type=float, nargs="+", default=[0.0, 3.0],
                        help="seconds between the prompt and the first question (one set of chat runs each)")
    args = parser.parse_args()
    env = {**os.environ, "DOCBOT_DATA_DIR": str(args.data), "TERM": "dumb"}
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SLACK_BOT_TOKEN", "MICROSOFT_APP_ID"):
        env.pop(name, None)
    if not (args.data / "index.sqlite3").exists():
        subprocess.run([DOCBOT, "index", str(ROOT / "samples" / "handbook")], env=env, check=True,
                       capture_output=True)
    statuses = [status(env) for _ in range(args.runs)]
    med = lambda xs: round(statistics.median(xs), 2)  # noqa: E731
    report: dict = {"status_s": med([s for s, _ in statuses]), "status_peak_mb": round(max(m for _, m in statuses))}
    for think in args.think:
        chats = [chat(env, ["배포 절차 알려줘", "그럼 승인은 누가 해?"], think) for _ in range(args.runs)]
        report[f"chat_asked_{think:g}s_after_prompt"] = {
            "to_prompt_s": med([c[0] for c in chats]), "first_answer_s": med([c[1] for c in chats]),
            "follow_up_s": med([c[2] for c in chats]), "peak_mb": round(max(c[3] for c in chats))}
    print(json.dumps({**report, "runs": args.runs}, indent=2))


if __name__ == "__main__":
    main()
