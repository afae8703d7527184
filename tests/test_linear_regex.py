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
BUDGET = 1.0  # seconds per pattern on a 100k input; a linear pattern takes milliseconds, a quadratic one minutes


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
    check_size(text[:SIZE // 10], BUDGET / 10)  # a quadratic pattern fails here in a second, not after minutes
    check_size(text, BUDGET)


def check_size(text: str, budget: float) -> None:
    for name, pattern in PATTERNS:
        started = time.perf_counter()
        pattern.sub("", text)  # every match over the whole text: the costliest way these are used
        pattern.search(text)
        elapsed = time.perf_counter() - started
        assert elapsed < budget, f"{name} took {elapsed:.2f}s on {text[:40]!r}... ({len(text)} chars)"


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
