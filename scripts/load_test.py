"""Load test: N users in M threads each against a real `docbot serve` process on loopback.

    python scripts/load_test.py [--users 10] [--threads 5] [--turns 3]
    python scripts/load_test.py --burst 300     # 300 messages into one thread at once
    python scripts/load_test.py --users 50 --threads 1 --database-url postgresql+psycopg://postgres@127.0.0.1/test
    python scripts/load_test.py ... --slow-rate 0.05 --slow-seconds 4   # 5% of Slack calls answered too late

Starts, on 127.0.0.1 only: a Slack Web API stand-in and an OpenAI-compatible stand-in
(streamed answers, JSON rewrites) in this process, and `docbot serve` as a subprocess with a
fresh data dir holding the bundled handbook's index. Every thread is a Slack thread whose
turns are signed `app_mention` / thread events sent one after another (a follow-up waits
for the previous answer); all threads run at once. Reports throughput, p50/p95 latency
(event posted -> chat.stopStream for that answer), errors, and checks in the database that
no message was lost or stored twice. Bounded: it stops after the turns or --timeout seconds a turn.
The handbook is indexed once into --index-cache and copied from there on later runs. With
--database-url the conversations go to a fresh PostgreSQL schema (dropped afterwards). With
--slow-rate the Slack stand-in answers that share of calls after --slow-seconds, and docbot's
Slack client gives up after DOCBOT_HTTP_TIMEOUT (set below --slow-seconds): injected timeouts.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from openai_standin import OpenAIStandIn, Reply  # noqa: E402
from slack_standin import SlackStandIn, event_body, signed  # noqa: E402

SECRET = "load-test-secret"
QUESTIONS = [("연차는 1년에 며칠이야?", "남은 건 이월돼?", "신청은 어디서 해?"),
             ("How do I restart the Orion Gateway?", "what's its default rate limit?", "who owns it?"),
             ("프로젝트 삭제 정책 알려줘", "그럼 언제까지 살릴 수 있어?", "알림은 누구한테 가?"),
             ("What is the hotel limit in the US?", "and the per diem?", "when is the expense report due?")]


class ScriptedLLM(OpenAIStandIn):
    """Endless replies: a JSON rewrite for rewrite calls, a streamed cited answer otherwise."""

    async def _chat(self, request):
        body = await request.json()
        if body.get("response_format"):
            last = body["messages"][-1]["content"].split("Last message: ")[-1].split("\n")[0]
            reply = Reply(json.dumps({"standalone": last, "intent": "knowledge_search", "confidence": 0.9,
                                      "entities": []}))
        else:
            reply = Reply(pieces=["According to the handbook ", "the answer is ", "in [1]."], delay=0.05)
        return await self.respond(request, body, reply)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def wait_ready(url: str, server: subprocess.Popen, timeout: float) -> float:
    """Poll /readyz until docbot answers ready (database and index), the server dies, or `timeout` passes.

    Start-up time varies a lot (model loading on a busy machine), so this waits for readiness
    itself rather than sleeping a fixed time; returns the seconds it took.
    """
    started = time.monotonic()
    async with aiohttp.ClientSession() as session:
        while True:
            if server.poll() is not None:
                raise SystemExit(f"docbot serve exited with {server.returncode}; see its log")
            try:
                async with session.get(url) as response:
                    if response.status == 200:
                        return time.monotonic() - started
            except aiohttp.ClientError:
                pass
            if time.monotonic() - started > timeout:
                raise SystemExit(f"docbot serve was not ready at {url} after {timeout:.0f} s")
            await asyncio.sleep(0.5)


async def run(args) -> dict:
    slack = await SlackStandIn(slow_rate=args.slow_rate, slow_seconds=args.slow_seconds,
                               tokens={"xoxb-load": "T1"},  # the token docbot is given below
                               # the channels the threads use, and the DM the burst goes to (a DM docbot is not
                               # part of answers channel_not_found: every burst turn failed, silently)
                               joined={f"C{n}" for n in range(7)} | {"D1"}).start()
    llm = await ScriptedLLM().start()
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="docbot-load-")
    db_url, schema = database(args.database_url, tmp)
    env = {**os.environ, "DOCBOT_DATA_DIR": tmp, "DOCBOT_PORT": str(port), "DOCBOT_HOST": "127.0.0.1",
           "SLACK_BOT_TOKEN": "xoxb-load", "SLACK_SIGNING_SECRET": SECRET, "SLACK_API_BASE_URL": slack.base_url,
           "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "sk-load", "DOCBOT_SLACK_UPDATE_SECONDS": "0.2",
           "DOCBOT_INDEX_SCHEDULE": "", "DOCBOT_INDEX_ON_START": "false", "DOCBOT_RATE_LIMIT_PER_USER": "0",
           "DOCBOT_RATE_LIMIT_PER_CHANNEL": "0", "DOCBOT_DATABASE_URL": db_url}
    if args.slow_rate:
        env["DOCBOT_HTTP_TIMEOUT"] = str(args.http_timeout)
    env["DOCBOT_SLACK_UPDATE_SECONDS"] = str(args.update_seconds)
    docbot = str(Path(sys.executable).parent / "docbot")
    cache = Path(args.index_cache)
    if not (cache / "index.sqlite3").exists():  # indexing costs minutes on a busy machine: once
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([docbot, "index", str(ROOT / "samples" / "handbook")],
                       env={**env, "DOCBOT_DATA_DIR": str(cache),
                            "DOCBOT_DATABASE_URL": f"sqlite:///{cache / 'docbot.sqlite3'}"},
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import sqlite3

    with sqlite3.connect(cache / "index.sqlite3") as source, sqlite3.connect(Path(tmp) / "index.sqlite3") as copy:
        source.backup(copy)  # a consistent copy of the WAL database
    # The server's log goes to a file: a pipe nobody reads would fill up and stall the server.
    log_path = Path(tmp) / "serve.log"
    log_file = open(log_path, "wb")
    server = subprocess.Popen([docbot, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=log_file)
    latencies, errors = [], []
    replies = Replies(slack)
    loads: list[float] = []  # the machine's 1-minute load average, every 5 s while the run lasts

    async def sample_load() -> None:
        while True:
            loads.append(os.getloadavg()[0])
            await asyncio.sleep(5.0)

    sampler = asyncio.create_task(sample_load())
    sent: list[tuple[str, str, str]] = []  # (channel, thread, text) of every message posted
    try:
        ready_after = await wait_ready(f"http://127.0.0.1:{port}/readyz", server, args.startup_timeout)
        print(f"docbot serve ready after {ready_after:.1f} s", file=sys.stderr)
        started = time.perf_counter()
        async with aiohttp.ClientSession() as session:
            async def thread(user: int, n: int) -> None:
                channel, root = f"C{user % 7}", f"17000{user:03d}{n:02d}.000100"
                for turn, text in enumerate(QUESTIONS[(user + n) % len(QUESTIONS)][: args.turns]):
                    ts = f"17000{user:03d}{n:02d}.{(turn + 1) * 100:06d}"  # unique per message, as Slack's are
                    body = event_body(f"<@UBOT> {text}" if turn == 0 else text, event_id=f"Ev{user}-{n}-{turn}",
                                      ts=ts, channel=channel, thread_ts=None if turn == 0 else root,
                                      kind="app_mention" if turn == 0 else "message", user=f"U{user}")
                    done_before = replies.count(channel, root)
                    t0 = time.perf_counter()
                    sent.append((channel, root, text))
                    try:
                        async with session.post(f"http://127.0.0.1:{port}/slack/events", data=body.encode(),
                                                headers={"Content-Type": "application/json",
                                                         **signed(SECRET, body)}) as response:
                            if response.status != 200:
                                errors.append(f"HTTP {response.status}")
                                return
                        await until_answered(replies, channel, root, done_before + 1, args.timeout)
                        latencies.append((time.perf_counter() - t0) * 1000)
                    except TimeoutError:  # the user asks the follow-up anyway (and the database will tell)
                        errors.append(f"no finished reply in {channel}/{root} turn {turn + 1}")

            if args.burst:
                await burst(session, replies, port, args, latencies, errors, sent)
            else:
                await asyncio.gather(*[thread(u, n) for u in range(args.users) for n in range(args.threads)])
        elapsed = time.perf_counter() - started
        # docbot keeps looking for late-landing calls (SWEEPS looks, four client timeouts apart) after a turn
        # ends: let those looks finish, and the late calls land, before the server stops.
        settle = time.monotonic() + args.settle
        while time.monotonic() < settle:
            await asyncio.sleep(1.0)
    finally:
        sampler.cancel()
        server.terminate()
        server.wait(timeout=30)
        log_file.close()
        print(f"server log: {log_path}", file=sys.stderr)
        await slack.close()
        await llm.close()
    load = {"mean": round(sum(loads) / len(loads), 2) if loads else None, "max": round(max(loads), 2) if loads
            else None, "cores": os.cpu_count()}
    lost = count_messages(db_url, sent)
    lost["slack_calls_answered_late"] = len(slack.slowed)
    lost["replies_posted_twice"], lost["replies_shown_twice"] = doubled_replies(slack)
    lost["load_average"] = load
    lost["streams_left_open"] = sum(1 for state in slack._posted.values() if state == "streaming")
    if schema:
        drop_schema(args.database_url, schema)
    if args.burst:
        return {"burst_messages": args.burst, "seconds": round(elapsed, 1), "replies_finished": len(latencies),
                "latency_ms": _percentiles(latencies), "errors": len(errors), "error_samples": errors[:5], **lost}
    return {"users": args.users, "threads_per_user": args.threads, "threads": args.users * args.threads,
            "turns": len(latencies), "seconds": round(elapsed, 1),
            "throughput_turns_per_s": round(len(latencies) / elapsed, 2),
            "latency_ms": _percentiles(latencies),
            "errors": len(errors), "error_samples": errors[:5], **lost}


def _percentiles(latencies: list[float]) -> dict:
    return {"p50": round(float(np.percentile(latencies, 50)), 1) if latencies else None,
            "p95": round(float(np.percentile(latencies, 95)), 1) if latencies else None}


async def burst(session, replies: Replies, port: int, args, latencies: list, errors: list, sent: list) -> None:
    """`args.burst` messages posted at once into one DM thread: each new one supersedes the answer
    before it, so every message must be stored and every reply stream closed (answered or stopped)."""
    root, channel = "1700009000.000100", "D1"

    async def one(n: int) -> None:
        sent.append((channel, root, f"What is Beacon? ({n})"))
        body = event_body(f"What is Beacon? ({n})", event_id=f"EvBurst{n}", ts=f"17000090{n:02d}.{n:06d}",
                          channel=channel, thread_ts=root, kind="message", channel_type="im", user="UBURST")
        async with session.post(f"http://127.0.0.1:{port}/slack/events", data=body.encode(),
                                headers={"Content-Type": "application/json", **signed(SECRET, body)}) as response:
            if response.status != 200:
                errors.append(f"HTTP {response.status}")

    t0 = time.perf_counter()
    await asyncio.gather(*[one(n) for n in range(args.burst)])
    try:
        await until_answered(replies, channel, root, args.burst, args.timeout)
    except TimeoutError:
        errors.append("not every reply stream was closed in time")
    latencies.extend([(time.perf_counter() - t0) * 1000] * replies.count(channel, root))


class Replies:
    """docbot's finished replies per thread, as Slack shows them: a stopped stream, a control message updated
    with the whole answer (the stream never opened), or an apology. Kept up to date from the stand-in's call
    log a call at a time: a full scan of the log for every check of every thread made this harness itself
    the bottleneck at 200 threads (the stand-in answered late, docbot's calls timed out beyond the injected
    share)."""

    def __init__(self, slack: SlackStandIn):
        self.slack, self.seen = slack, 0
        self.part: dict[str, str | None] = {}  # post ts -> its part (control, answer, apology)
        self.thread_of: dict[str, tuple[str, str]] = {}  # post or stream ts -> (channel, root)
        self.finished: dict[tuple[str, str], int] = {}
        self.done: set[str] = set()

    def _finish(self, ts: str) -> None:
        if ts not in self.done and ts in self.thread_of:
            self.done.add(ts)
            self.finished[self.thread_of[ts]] = self.finished.get(self.thread_of[ts], 0) + 1

    def count(self, channel: str, root: str) -> int:
        calls = self.slack.calls
        for name, body in calls[self.seen:len(calls)]:
            if name in ("chat.postMessage", "chat.startStream") and body.get("thread_ts") and "_reply_ts" in body:
                ts = body["_reply_ts"]
                self.thread_of[ts] = (body.get("channel"), body["thread_ts"])
                if name == "chat.postMessage":
                    self.part[ts] = ((body.get("metadata") or {}).get("event_payload") or {}).get("part")
                    if self.part[ts] == "apology":
                        self._finish(ts)
            elif name == "chat.stopStream" and body.get("ts") in self.thread_of and body["ts"] not in self.part:
                self._finish(body["ts"])
            elif name == "chat.update" and self.part.get(body.get("ts")) == "control":
                blocks = json.dumps(body.get("blocks") or [])
                if '"markdown"' in blocks and "docbot_stop" not in blocks:
                    self._finish(body["ts"])
        self.seen = len(calls)
        return self.finished.get((channel, root), 0)


def doubled_replies(slack: SlackStandIn) -> tuple[int, int]:
    """Replies posted twice (the same run's control message, answer or apology: chat.postMessage calls with
    the same metadata), and those the threads still show twice at the end (a late copy docbot did not delete)."""
    from collections import Counter

    posts = Counter(json.dumps((b.get("metadata") or {}).get("event_payload"), sort_keys=True)
                    for b in slack.named("chat.postMessage") if b.get("metadata") and "_reply_ts" in b)
    shown = Counter(json.dumps(m["metadata"].get("event_payload"), sort_keys=True)
                    for messages in slack.threads.values() for m in messages if m.get("metadata"))
    return sum(n - 1 for n in posts.values() if n > 1), sum(n - 1 for n in shown.values() if n > 1)


async def until_answered(replies: Replies, channel: str, root: str, count: int, timeout: float) -> None:
    """Wait until the thread has `count` finished replies."""
    deadline = time.monotonic() + timeout
    while True:
        if replies.count(channel, root) >= count:
            return
        if time.monotonic() > deadline:
            raise TimeoutError
        await asyncio.sleep(0.25)


def database(url: str | None, data_dir: str) -> tuple[str, str]:
    """The conversation database's URL: SQLite in the data dir, or a fresh schema of `url` (PostgreSQL)."""
    if not url:
        return f"sqlite:///{Path(data_dir) / 'docbot.sqlite3'}", ""
    import uuid

    from sqlalchemy import create_engine, text

    schema = f"load_{uuid.uuid4().hex[:10]}"
    with create_engine(url).begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options=-csearch_path%3D{schema}", schema


def drop_schema(url: str, schema: str) -> None:
    from sqlalchemy import create_engine, text

    with create_engine(url).begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))


def count_messages(db_url: str, sent: list[tuple[str, str, str]]) -> dict:
    """What the database holds against what was posted: every posted message stored exactly once (lost:
    posted, not stored; duplicated: stored more than once), and how each question's answer ended."""
    from collections import Counter

    from sqlalchemy import create_engine, text

    engine = create_engine(db_url)
    with engine.connect() as conn:
        users = conn.execute(text(
            "SELECT c.channel, c.thread, m.text, m.run_id FROM message m JOIN conversation c "
            "ON c.id = m.conversation_id WHERE m.role = 'user'")).all()
        answers = dict(conn.execute(text("SELECT run_id, status FROM message WHERE role = 'assistant'")).all())
        apologies = dict(conn.execute(text("SELECT run_id, text FROM message WHERE role = 'assistant' "
                                           "AND status = 'failed'")).all())
        empty = conn.execute(text("SELECT count(*) FROM message WHERE role = 'assistant' AND status = 'complete' "
                                  "AND text = ''")).scalar()
    engine.dispose()
    stored = Counter((channel, thread, body) for channel, thread, body, _ in users)
    posted = Counter(sent)
    statuses = Counter(answers.get(run_id, "none") for *_, run_id in users)
    return {"messages_posted": sum(posted.values()), "user_messages_stored": len(users),
            "lost": sum(max(0, n - stored[k]) for k, n in posted.items()),
            "duplicated": sum(max(0, n - posted[k]) for k, n in stored.items()),
            "answers_by_status": dict(statuses),
            "answered": sum(n for status, n in statuses.items() if status in ("complete", "partial", "cancelled")),
            # failed: no answer message could be opened; the stored text is what was shown instead
            "apologised": sum(1 for *_, run_id in users if apologies.get(run_id)),
            "silent": sum(1 for *_, run_id in users if run_id in apologies and not apologies[run_id]),
            "empty_complete_answers": empty}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--threads", type=int, default=5)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds one answer may take")
    parser.add_argument("--burst", type=int, default=0, help="post this many messages into one thread at once")
    parser.add_argument("--database-url", default=None,
                        help="PostgreSQL URL (a fresh schema is made and dropped); default: SQLite in the data dir")
    parser.add_argument("--slow-rate", type=float, default=0.0, help="share of Slack calls answered late")
    parser.add_argument("--slow-seconds", type=float, default=4.0, help="how late")
    parser.add_argument("--update-seconds", type=float, default=0.2, help="docbot's Slack update interval")
    parser.add_argument("--http-timeout", type=float, default=2.0,
                        help="docbot's outside-call timeout while calls are slowed (below --slow-seconds)")
    parser.add_argument("--index-cache", default=str(Path(tempfile.gettempdir()) / "docbot-load-index"),
                        help="where the handbook's index is built once and copied from")
    parser.add_argument("--settle", type=float, default=40.0,
                        help="seconds to wait after the last answer for docbot's looks for late Slack calls")
    parser.add_argument("--startup-timeout", type=float, default=900.0,
                        help="give up if docbot serve is not ready (GET /readyz) after this many seconds")
    print(json.dumps(asyncio.run(run(parser.parse_args())), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
