"""Metrics (Prometheus) and structured JSON logs with session and run ids."""
from __future__ import annotations

import contextvars
import logging

from prometheus_client import (
    CONTENT_TYPE_LATEST,  # noqa: F401  (re-exported for the server)
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

# Set for the duration of a turn so every log line of it carries them.
SESSION_ID: contextvars.ContextVar[str] = contextvars.ContextVar("session_id", default="")
RUN_ID: contextvars.ContextVar[str] = contextvars.ContextVar("run_id", default="")


class Metrics:
    """docbot's Prometheus metrics, in their own registry (one per process, tests may make more)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.stage_seconds = Histogram(
            "docbot_turn_stage_seconds", "Turn latency by stage", ["stage"], registry=self.registry,
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
        self.turns = Counter("docbot_turns_total", "Turns by route and final status", ["route", "status"],
                             registry=self.registry)
        self.errors = Counter("docbot_errors_total", "Failures by component (llm, search, storage, ...)",
                              ["component"], registry=self.registry)
        self.index_runs = Counter("docbot_index_runs_total", "Index runs by status", ["status"], registry=self.registry)
        self.active_turns = Gauge("docbot_active_turns", "Answers being generated now (queue depth)",
                                  registry=self.registry)
        self.spilled = Gauge("docbot_spilled_turns", "Turns kept in memory until the conversation database "
                             "takes them again", registry=self.registry)
        self.platform_errors = Counter("docbot_platform_errors_total", "Chat platform calls that failed, by "
                                       "platform, method and error", ["platform", "method", "error"],
                                       registry=self.registry)
        self.spill_dropped = Counter("docbot_spill_dropped_total", "Waiting turns dropped because the spill was "
                                     "full", registry=self.registry)

    def observe_turn(self, route: str, status: str, timings: dict[str, float]) -> None:
        """One finished turn: its route, status and stage timings (milliseconds)."""
        self.turns.labels(route, status).inc()
        for name, value in timings.items():
            if name.endswith("_ms"):
                self.stage_seconds.labels(name[:-3]).observe(value / 1000)

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)


class _ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.session_id = SESSION_ID.get()
        record.run_id = RUN_ID.get()
        return True


def make_handler(json_logs: bool, stream=None) -> logging.Handler:
    """A handler writing JSON lines (for log shippers) or plain text, both with session and run ids."""
    handler = logging.StreamHandler(stream)
    handler.addFilter(_ContextFilter())
    if json_logs:
        from pythonjsonlogger.json import JsonFormatter

        handler.setFormatter(JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s %(session_id)s %(run_id)s",
                                           rename_fields={"levelname": "level", "asctime": "time"}))
    else:
        handler.setFormatter(logging.Formatter(
            "%(asctime)s %(levelname)s %(name)s [%(session_id)s %(run_id)s] %(message)s"))
    handler._docbot = True  # type: ignore[attr-defined]
    return handler


def configure_logging(level: int, json_logs: bool) -> None:
    """Install docbot's handler on the root logger (replacing an earlier one of ours, nothing else)."""
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if not getattr(h, "_docbot", False)] + [make_handler(json_logs)]
    root.setLevel(level)
