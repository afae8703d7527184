"""The APScheduler jobs inside `docbot serve`: incremental re-index on a cron, optional full rebuilds."""
from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timezone

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from apscheduler.util import undefined

from rag.errors import DocbotError

from .indexing import IndexJob

log = logging.getLogger(__name__)


async def _run(job: IndexJob, full: bool) -> None:
    """One scheduled run, off the event loop; failures are logged and retried at the next tick."""
    try:
        run = await asyncio.to_thread(job.run, "scheduler", full=full)
    except DocbotError as exc:
        log.error("scheduled index run failed: %s", exc)
        return
    except Exception:
        log.exception("scheduled index run crashed")
        return
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
                    on_start: bool = True) -> AsyncIOScheduler:
    """Start the jobs on the running event loop; one instance of each at a time, missed ticks coalesced.

    `on_start` runs the incremental job once right away, so a fresh deployment (a new container,
    an empty data volume) answers from its documents at once instead of after the first tick.
    """
    scheduler = AsyncIOScheduler(timezone="UTC")
    if schedule:
        scheduler.add_job(_run, trigger_for(schedule), args=[job, False], id="index", max_instances=1,
                          coalesce=True, misfire_grace_time=60,
                          next_run_time=datetime.now(timezone.utc) if on_start else undefined)
    elif on_start:
        scheduler.add_job(_run, args=[job, False], id="index-on-start")
    if full_schedule:
        scheduler.add_job(_run, trigger_for(full_schedule), args=[job, True], id="index-full", max_instances=1,
                          coalesce=True, misfire_grace_time=300)
    scheduler.start()
    return scheduler
