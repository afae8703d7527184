"""Every regular expression that runs over user text finishes in linear time (the event loop and
the whole server stall otherwise: one 40,000-character message took 20-80 s on the old e-mail rule)."""
import importlib
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MODULES = ("rag.text.masking", "rag.understand.routing", "rag.retrieve.chain", "rag.understand.rewrite", "rag.understand.intent", "rag.pipeline",
           "rag.text.analysis", "rag.answer.answerers", "rag.ingest.chunking", "rag.text.language", "bot.conversation", "adapters.slack",
           "adapters.markup")
SIZE = 100_000
STEP = 8  # each size is STEP times the one before
# The cost of a pattern on STEP times the input, over its cost on the input: about STEP for a linear pattern,
# STEP**2 for a quadratic one. 3 * STEP leaves room for noise; it is a ratio of CPU time spent by this thread
# (time.thread_time), not seconds on a clock, so a loaded machine slows both sides alike.
RATIO = 3 * STEP
MEASURED = 0.005  # CPU seconds each measurement accumulates (short runs are repeated until they reach it)

def patterns() -> list[tuple[str, re.Pattern]]:
    """Every compiled pattern at module level, including those inside lists of rules."""
    found = []
    for name in MODULES:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            values = value if isinstance(value, (list, tuple)) else [value]
            for item in values:
                for part in (item if isinstance(item, tuple) else (item,)):
                    if isinstance(part, re.Pattern):
                        found.append((f"{name}.{attr}", part))
    return found


PATTERNS = patterns()
# Pieces of the patterns themselves: repeating them is how a backtracking pattern is made to crawl.
PIECES = ["a", "A", "1", "-", "_", ".", "@", ":", "=", " ", "\n", "xoxb-", "eyJ", "sk-", "ghp_", "token", "비밀번호",
          "토큰", "삭제", "해줘", "가", "지금", "[1]", "<@U1>", "010", "+82", "vs", "and", "Beacon-", "what is", "?",
          "—", "•", "다", "\u3000", "é"]


def crawl(seed: str) -> str:
    return (seed * (SIZE // max(len(seed), 1) + 1))[:SIZE]


def check(text: str) -> None:
    """Every pattern's cost grows linearly with the input: from SIZE/64 to SIZE/8 first (a quadratic pattern
    fails there quickly), then from SIZE/8 to SIZE."""
    for name, pattern in PATTERNS:
        for small in (SIZE // STEP // STEP, SIZE // STEP):
            growth = cost(pattern, text[:small * STEP]) / cost(pattern, text[:small])
            assert growth < RATIO, f"{name}: {growth:.0f}x the work for {STEP}x the input on {text[:40]!r}..."


def cost(pattern: re.Pattern, text: str) -> float:
    """CPU seconds of one full use of the pattern over `text` (the least of two measurements)."""
    best = float("inf")
    for _ in range(2):
        runs, started = 0, time.thread_time()
        while True:
            pattern.sub("", text)  # every match over the whole text: the costliest way these are used
            pattern.search(text)
            runs += 1
            spent = time.thread_time() - started
            if spent >= MEASURED:
                break
        best = min(best, spent / runs)
    return best


def test_patterns_were_found():
    assert len(PATTERNS) > 25


@pytest.mark.parametrize("seed", ["a", "a@", "a.", "-a", "xoxb-a", "eyJaaaaaaaaa.", "token ", "토큰", "삭제가",
                                  "요약가", "Beacon-", "1 ", "1-", "010-1234-", "a ", " ", "aA1-_.", "해야 ", "지금 "])
def test_known_crawlers_run_in_linear_time(seed):
    check(crawl(seed))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6))
def test_random_repetitions_run_in_linear_time(pieces):
    check(crawl("".join(pieces)))


def test_masking_still_masks():
    from rag.text.masking import mask

    text = ("token: abc123 mail john.doe+x@mail.example.com. call 010-1234-5678, 비밀번호는 hunter2 "
            "key sk-abcdefghijklmnopqrstu jwt eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4 "
            "slack xoxb-1234567890-abcdef card 1234 5678 9012 3456 rrn 900101-1234567")
    masked = mask(text)
    for secret in ("abc123", "john.doe", "1234-5678", "hunter2", "sk-abc", "eyJhbG", "xoxb-", "9012", "1234567"):
        assert secret not in masked, secret
    assert mask("a" * 40000 + "@") == "a" * 40000 + "@"
