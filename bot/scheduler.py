"""The APScheduler jobs inside `docbot serve`: incremental re-index on a cron, optional full rebuilds."""
from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from datetime import datetime, timezone

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from apscheduler.util import undefined

from rag.errors import DocbotError
from rag.index.sentences import lower_priority

from .indexing import IndexJob

log = logging.getLogger(__name__)

# A scheduled run's thread and the model's threads it starts: below a turn's (nice 0), so the index uses
# both cores while the server is idle and a turn that arrives takes them back (~90 % of a shared core).
INDEX_NICE = 10


async def in_background_thread(work: Callable, *args, nice: int = INDEX_NICE, **kwargs):
    """`work` on a thread of its own at a lower CPU priority, awaited without blocking the event loop. Not
    `asyncio.to_thread`: a pool thread, once lowered, would run turns' work at that priority too."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(result=None, error: BaseException | None = None) -> None:
        if not future.done():
            future.set_exception(error) if error is not None else future.set_result(result)

    def body() -> None:
        lower_priority(nice)
        try:
            outcome: tuple = (work(*args, **kwargs), None)
        except BaseException as exc:
            outcome = (None, exc)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop closed meanwhile (shutdown): nobody awaits the outcome
            pass

    threading.Thread(target=body, name="docbot-index", daemon=True).start()
    return await future


async def _run(job: IndexJob, full: bool, after: Callable[[], None] | None = None) -> None:
    """One scheduled run, off the event loop; failures are logged and retried at the next tick. `after` runs
    once the run ended, whatever became of it (the second pass of sentence vectors starts)."""
    try:
        run = await in_background_thread(job.run, "scheduler", full=full)
    except DocbotError as exc:
        log.error("scheduled index run failed: %s", exc)
        return
    except Exception:
        log.exception("scheduled index run crashed")
        return
    finally:
        if after is not None:
            after()
    if run is None:
        log.info("scheduled index run skipped: another replica holds the lease")
    else:
        log.info("index run %s: %d added, %d updated, %d deleted, %d errors", run.id, run.added, run.updated,
                 run.deleted, len(run.errors))


def trigger_for(schedule: str):
    """A crontab line ("*/15 * * * *") or an interval in seconds ("30s", for development and tests)."""
    text = schedule.strip()
    if text.endswith("s") and text[:-1].replace(".", "", 1).isdigit():
        return IntervalTrigger(seconds=float(text[:-1]))
    return CronTrigger.from_crontab(text, timezone="UTC")


def start_scheduler(job: IndexJob, schedule: str | None, full_schedule: str | None = None, *,
                    on_start: bool = True, after: Callable[[], None] | None = None) -> AsyncIOScheduler:
    """Start the jobs on the running event loop; one instance of each at a time, missed ticks coalesced.

    `on_start` runs the incremental job once right away, so a fresh deployment (a new container,
    an empty data volume) answers from its documents at once instead of after the first tick.
    `after` runs after every run (the second pass of sentence vectors).
    """
    scheduler = AsyncIOScheduler(timezone="UTC")
    if schedule:
        scheduler.add_job(_run, trigger_for(schedule), args=[job, False, after], id="index", max_instances=1,
                          coalesce=True, misfire_grace_time=60,
                          next_run_time=datetime.now(timezone.utc) if on_start else undefined)
    elif on_start:
        scheduler.add_job(_run, args=[job, False, after], id="index-on-start")
    if full_schedule:
        scheduler.add_job(_run, trigger_for(full_schedule), args=[job, True, after], id="index-full", max_instances=1,
                          coalesce=True, misfire_grace_time=300)
    scheduler.start()
    return scheduler
