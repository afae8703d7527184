"""How much work a regular expression does over a text, counted instead of timed.

`steps(pattern, text)` replays what Python's backtracking engine does for `pattern.sub` over `text`
(a match tried at every position, every alternative and repetition tried in the engine's order) on
the pattern's own parse tree (`re._parser`), and counts each element tried at a position. A count is
the same on every CPU, idle or loaded, so "8 times the input costs at most 16 times the steps" is a
statement about the pattern, not about the machine.

Bounded repetitions (`{1,2000}`) are what keeps docbot's patterns linear: each costs at most its bound
per position. Their bounds are capped at BOUND here, which keeps the structure (bounded stays bounded,
unbounded stays unbounded) while small inputs already sit well past every bound, so the count grows
linearly from the first size measured. Matching of single characters follows `re` closely enough to
take the same paths (Unicode categories, IGNORECASE), not byte for byte.
"""
from __future__ import annotations

import gc
import re
import sys
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

BOUND = 16  # a bounded repetition's bound is capped here (see above)
_SINGLE = (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN)


class Exhausted(Exception):
    """More steps than the budget: super-linear (or exponential) on this input."""


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _category(category, ch: str) -> bool:
    if category is C.CATEGORY_DIGIT:
        return ch.isdecimal()
    if category is C.CATEGORY_NOT_DIGIT:
        return not ch.isdecimal()
    if category is C.CATEGORY_SPACE:
        return ch.isspace()
    if category is C.CATEGORY_NOT_SPACE:
        return not ch.isspace()
    if category is C.CATEGORY_WORD:
        return _word(ch)
    if category is C.CATEGORY_NOT_WORD:
        return not _word(ch)
    if category is C.CATEGORY_LINEBREAK:
        return ch == "\n"
    if category is C.CATEGORY_NOT_LINEBREAK:
        return ch != "\n"
    raise NotImplementedError(category)


class _Run:
    """One use of a pattern over one text, counting the elements tried."""

    def __init__(self, text: str, flags: int, budget: int):
        self.text, self.n, self.budget, self.steps = text, len(text), budget, 0
        self.ignorecase, self.dotall = bool(flags & re.IGNORECASE), bool(flags & re.DOTALL)
        self.multiline = bool(flags & re.MULTILINE)
        self.groups: dict[int, tuple[int, int]] = {}

    def _same(self, code: int, ch: str) -> bool:
        return chr(code) == ch or (self.ignorecase and chr(code).lower() == ch.lower())

    def _one(self, op, av, ch: str) -> bool:
        """Whether one character matches a single-character element."""
        if op is C.LITERAL:
            return self._same(av, ch)
        if op is C.NOT_LITERAL:
            return not self._same(av, ch)
        if op is C.ANY:
            return self.dotall or ch != "\n"
        negate, hit = False, False
        for item, value in av:  # C.IN
            if item is C.NEGATE:
                negate = True
            elif item is C.LITERAL:
                hit = hit or self._same(value, ch)
            elif item is C.RANGE:
                hit = hit or value[0] <= ord(ch) <= value[1] or (
                    self.ignorecase and any(value[0] <= ord(c) <= value[1] for c in (ch.lower(), ch.upper())))
            elif item is C.CATEGORY:
                hit = hit or _category(value, ch)
            else:
                raise NotImplementedError(item)
        return hit != negate

    def _at(self, where, pos: int) -> bool:
        text, n = self.text, self.n
        if where is C.AT_BEGINNING_STRING:
            return pos == 0
        if where is C.AT_BEGINNING:
            return pos == 0 or (self.multiline and text[pos - 1] == "\n")
        if where is C.AT_END_STRING:
            return pos == n
        if where is C.AT_END:
            return pos == n or (pos == n - 1 and text[pos] == "\n") or (self.multiline and text[pos] == "\n")
        before = pos > 0 and _word(text[pos - 1])
        after = pos < n and _word(text[pos])
        if where is C.AT_BOUNDARY:
            return before != after
        if where is C.AT_NON_BOUNDARY:
            return before == after
        raise NotImplementedError(where)

    def seq(self, items, i: int, pos: int, then) -> bool:
        """Match items[i:] at `pos`, then the continuation `then(end)`: the engine's backtracking order."""
        self.steps += 1
        if self.steps > self.budget:
            raise Exhausted
        if i == len(items):
            return then(pos)
        op, av = items[i]

        def rest(end: int) -> bool:
            return self.seq(items, i + 1, end, then)

        if op in _SINGLE:
            return pos < self.n and self._one(op, av, self.text[pos]) and rest(pos + 1)
        if op is C.AT:
            return self._at(av, pos) and rest(pos)
        if op is C.BRANCH:
            return any(self.seq(alt.data, 0, pos, rest) for alt in av[1])
        if op is C.SUBPATTERN:
            group, body = av[0], av[3]

            def close(end: int) -> bool:
                if group is not None:
                    self.groups[group] = (pos, end)
                return rest(end)

            return self.seq(body.data, 0, pos, close)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            return self._repeat(av, pos, rest, greedy=op is C.MAX_REPEAT)
        if op is C.POSSESSIVE_REPEAT:
            end = self._possessive(av, pos)
            return end is not None and rest(end)
        if op is C.ATOMIC_GROUP:
            end = self._first_end(av.data, pos)
            return end is not None and rest(end)
        if op in (C.ASSERT, C.ASSERT_NOT):
            direction, body = av
            if direction == 1:
                found = self._first_end(body.data, pos) is not None
            else:  # a lookbehind has a fixed width
                width = body.getwidth()[0]
                found = pos >= width and self.seq(body.data, 0, pos - width, lambda end: end == pos)
            return found == (op is C.ASSERT) and rest(pos)
        if op is C.GROUPREF:
            start, end = self.groups.get(av, (0, 0))
            piece = self.text[start:end]
            return self.text.startswith(piece, pos) and rest(pos + len(piece))
        if op is C.GROUPREF_EXISTS:
            group, yes, no = av
            branch = yes if group in self.groups else no
            return self.seq(branch.data if branch is not None else [], 0, pos, rest)
        raise NotImplementedError(op)

    @staticmethod
    def _bounds(av) -> tuple[int, int | None]:
        low, high, _ = av
        if high == C.MAXREPEAT:
            return low, None
        high = min(high, BOUND)
        return min(low, high), high

    def _repeat(self, av, pos: int, then, greedy: bool) -> bool:
        low, high = self._bounds(av)
        body = av[2].data

        def more(count: int, at: int) -> bool:
            self.steps += 1
            if self.steps > self.budget:
                raise Exhausted

            def again() -> bool:  # one more iteration; an empty one ends the repetition (as `re` does)
                return (high is None or count < high) and self.seq(
                    body, 0, at, lambda end: end != at and more(count + 1, end))

            if count < low:
                return self.seq(body, 0, at, lambda end: more(count + 1, end))
            if greedy:
                return again() or then(at)
            return then(at) or again()

        return more(0, pos)

    def _first_end(self, items, pos: int) -> int | None:
        """Where the first way `items` match at `pos` ends (no backtracking into it afterwards)."""
        ends: list[int] = []
        self.seq(items, 0, pos, lambda end: ends.append(end) or True)
        return ends[0] if ends else None

    def _possessive(self, av, pos: int) -> int | None:
        low, high = self._bounds(av)
        count, at = 0, pos
        while high is None or count < high:
            end = self._first_end(av[2].data, at)
            if end is None or end == at:
                break
            count, at = count + 1, end
        return at if count >= low else None


def steps(pattern: re.Pattern, text: str, budget: int = 10_000_000) -> int:
    """Elements tried by `pattern.sub("", text)` (a match attempted at every position not consumed by an
    earlier match). Raises Exhausted past `budget`."""
    parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    run = _Run(text, parsed.state.flags, budget)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 50 * len(text) + 10_000))  # a repetition recurses once per iteration
    # The replay allocates closures per element tried; with the suite's models loaded, every collection that
    # allocation triggered walked the whole heap again (7x the replay's own CPU). Frozen, the heap that was
    # there before is left out of them; the replay's own garbage is still collected. Counts do not change.
    gc.freeze()
    try:
        pos = 0
        while pos <= len(text):
            run.groups = {}
            end = run._first_end(parsed.data, pos)
            pos = end if end is not None and end > pos else pos + 1
    finally:
        sys.setrecursionlimit(limit)
        gc.unfreeze()
    return run.steps
