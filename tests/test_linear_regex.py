"""Every regular expression that runs over user text finishes in linear time (the event loop and
the whole server stall otherwise: one 40,000-character message took 20-80 s on the old e-mail rule).

The work is counted, not timed (tests/regex_steps.py replays the backtracking engine on each
pattern's parse tree and counts the elements it tries), so the verdict is the same on any CPU,
idle or loaded."""
import importlib
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from regex_steps import BOUND, Exhausted, steps

MODULES = ("rag.text.masking", "rag.understand.routing", "rag.retrieve.chain", "rag.understand.rewrite", "rag.understand.intent", "rag.pipeline",
           "rag.text.analysis", "rag.answer.answerers", "rag.answer.evidence", "rag.text.bilingual", "rag.ingest.chunking", "rag.text.language", "rag.understand.earlier", "bot.conversation", "adapters.slack", "adapters.slack_render",
           "adapters.markup")
STEP = 8  # the larger input is STEP times the smaller
SIZE = 128 * STEP  # characters of the larger input: far past every (capped) bound, so linear growth shows at once
# A linear pattern does about STEP times the steps on STEP times the input, a quadratic one STEP**2 (64).
# Counts are exact, so the margin is only for the constant part of the work (the ends of the text).
RATIO = 2 * STEP
BUDGET = 4_000 * SIZE  # steps; beyond it the pattern is exponential on this input
# Modules whose other patterns run only over one document line (a chunk's line, under ~1,000 characters), never
# over what a user typed: the patterns named here read the user's question (its kind, units, numbers and names).
USER_TEXT = {"rag.answer.questions": ("_YES_NO", "_ASKS", "_HOW_MUCH", "_SUMMARY", "_SEVERAL", "_ASKS_CHANGES",
                                      "_MONEY_ASK", "_DURATION_ASK", "_PERCENT_ASK", "_TIMES_ASK", "_ANCHOR",
                                      "_FREQUENCY_ASK", "_COUNT_ASK", "_CLOCK_ASK", "_URL_ASK", "_CODE_ASK",
                                      "_ASKING_PHRASES", "_ASKS_DOCUMENT", "_CODE_QUESTION", "_JSON_KEY", "_LOG_TIME",
                                      "_KEY_VALUE", "_SQL", "_CODE_START", "_GO_RECEIVER"),
             "rag.answer.reading": ("_NAME",),
             "rag.ingest.loaders": ("_SHORTCODE", "_LIQUID_COMMENT", "_LIQUID_CHANNEL", "_LIQUID_TAG", "_JSX_COMMENT", "_MDX_STATEMENT", "_TAGS_AND_COMMENTS", "_HTML_TAG_NAME",
                                    "_IMAGE", "_BR"), "rag.answer.extremes": ("_MOST", "_LEAST")}

def patterns() -> list[tuple[str, re.Pattern]]:
    """Every compiled pattern at module level, including those inside lists of rules."""
    found = []
    for name in (*MODULES, *USER_TEXT):
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if name in USER_TEXT and attr not in USER_TEXT[name]:
                continue
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
    """Every pattern's work grows linearly with the input: STEP times the text, at most RATIO times the steps."""
    for name, pattern in PATTERNS:
        try:
            small, large = steps(pattern, text[:SIZE // STEP], BUDGET), steps(pattern, text, BUDGET)
        except Exhausted:
            raise AssertionError(f"{name}: over {BUDGET} steps on {text[:40]!r}...") from None
        assert large < RATIO * small, f"{name}: {large / small:.0f}x the work for {STEP}x the input on {text[:40]!r}..."


def test_patterns_were_found():
    assert len(PATTERNS) > 25


@pytest.mark.parametrize(("pattern", "text"), [
    (r"[\w.]+@", "a" * SIZE),  # the old e-mail rule: every start scans to the end (quadratic)
    (r"\s+x", " " * SIZE),
    (r"a*+b", "a" * SIZE),  # possessive, yet every start position still scans the run
])
def test_the_count_catches_a_quadratic_pattern(pattern, text):
    small, large = steps(re.compile(pattern), text[:SIZE // STEP]), steps(re.compile(pattern), text)
    assert large > 4 * STEP * small


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(a|a)*b", r"(\w+\s?)+$"])
def test_the_count_catches_an_exponential_pattern(pattern):
    with pytest.raises(Exhausted):
        steps(re.compile(pattern), "a" * 40 + "!", budget=BUDGET)


@pytest.mark.parametrize("pattern", [r"[\w.]{1,64}@", r"\s+", r"\b(?:foo|bar)\b", r"(?<![\w-])a{1,300}"])
def test_the_count_passes_a_linear_pattern(pattern):
    text = ("a " * SIZE)[:SIZE]
    assert steps(re.compile(pattern), text) < RATIO * steps(re.compile(pattern), text[:SIZE // STEP])
    assert BOUND < SIZE // STEP  # every bounded repetition is capped below the smaller input


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
