"""Per-user and per-channel rate limits: a sliding window in memory (each replica counts its own)."""
from __future__ import annotations

import time
from collections import defaultdict, deque


class RateLimiter:
    """At most `per_user` messages per user and `per_channel` per channel in any `window` seconds."""

    def __init__(self, per_user: int, per_channel: int, window: float = 60.0):
        self.per_user, self.per_channel, self.window = per_user, per_channel, window
        self._seen: dict[str, deque] = defaultdict(deque)

    def _hit(self, key: str, limit: int, now: float) -> bool:
        seen = self._seen[key]
        while seen and now - seen[0] > self.window:
            seen.popleft()
        if limit and len(seen) >= limit:
            return False
        seen.append(now)
        return True

    def allow(self, user: str, channel: str) -> bool:
        """Count this message; False when the user or the channel is over its limit."""
        now = time.monotonic()
        if not self._hit(f"user:{user}", self.per_user, now):
            return False
        if not self._hit(f"channel:{channel}", self.per_channel, now):
            self._seen[f"user:{user}"].pop()  # a refused message does not count against the user
            return False
        return True
