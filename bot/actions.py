"""Actions: requests that change something become PendingActions behind Confirm / Cancel.

Nothing mutates without a confirmation click. Only the requester or a configured admin may
confirm; an action expires; a second click (or a click on another replica) acts once,
because the status moves by compare-and-set in the database; every step is audited.
"""
from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol

import aiohttp

from rag.errors import ActionError
from rag.messages import Text, say
from rag.messages import verb as verb_in
from rag.text.masking import mask

from .storage import PendingAction, Store

log = logging.getLogger(__name__)


class ActionHandler(Protocol):
    """One kind of change docbot can make once someone confirms it."""

    name: str

    def match(self, text: str) -> int:
        """How many of its trigger words the request contains (0: not this handler)."""
        ...

    def resolve(self, text: str, entities: list[str]) -> tuple[dict[str, Any], str]:
        """Parameters taken from the request, and a one-line summary to show with the buttons."""
        ...

    async def execute(self, params: dict[str, Any]) -> str:
        """Do it; returns what happened. Raises on failure."""
        ...


def _words(text: str) -> list[str]:
    """Lower-case words, "-" and "_" read as spaces."""
    return re.findall(r"\w+", text.lower().replace("-", " ").replace("_", " "))


def _contains(words: list[str], phrase: list[str]) -> bool:
    """Whether `phrase` occurs in `words` as consecutive whole words (a Korean particle may follow)."""
    n = len(phrase)
    return any(all(w == p or (i == n - 1 and w.startswith(p) and not p.isascii())
                   for i, (w, p) in enumerate(zip(words[k : k + n], phrase)))
               for k in range(len(words) - n + 1))


def _matches(text: str, keywords: list[str]) -> int:
    lowered = text.lower()
    return sum(1 for k in keywords if k.lower() in lowered)


@dataclass
class ReindexAction:
    """Re-index one configured source (or all of them) through the indexing job and its lease."""

    job: Any  # bot.indexing.IndexJob; typed loosely to keep this module free of the job's imports
    name: str = "reindex"
    keywords: list[str] = field(default_factory=lambda: [
        "reindex", "re-index", "index", "색인", "인덱스", "인덱싱", "sync", "동기화"])

    def match(self, text: str) -> int:
        """Trigger words present."""
        return _matches(text, self.keywords)

    def resolve(self, text: str, entities: list[str]) -> tuple[dict[str, Any], str]:
        """The sources named in the request, else every configured source (the summary says which).

        Names match as whole words, with "-" and "_" read as spaces ("hr docs" names `hr-docs`),
        and a name inside a longer named one does not count: "re-index api-docs" is not also "docs".
        """
        wanted = _words(text)
        named = [s.name for s in self.job.sources if _words(s.name) and _contains(wanted, _words(s.name))]
        named = [n for n in named if not any(n != other and _contains(_words(other), _words(n)) for other in named)]
        if named:
            return {"sources": named}, f"Re-index {', '.join(named)}"
        everything = [s.name for s in self.job.sources]
        return {"sources": everything}, f"Re-index every source ({', '.join(everything)})"

    async def execute(self, params: dict[str, Any]) -> str:
        """Run the job off the event loop; a run already in progress is a failure to retry later."""
        run = await asyncio.to_thread(self.job.run, "action", only=params["sources"])
        if run is None:
            raise ActionError("another indexing run is in progress; try again when it finishes")
        return (f"index run {run.id}: {run.added} added, {run.updated} updated, {run.unchanged} unchanged, "
                f"{run.deleted} deleted, {len(run.errors)} skipped")


@dataclass
class WebhookAction:
    """POST the request to a configured URL (a ticketing system, an automation, a runbook runner)."""

    name: str
    url: str
    keywords: list[str]
    description: str = ""
    timeout: float = 10.0
    headers: dict[str, str] = field(default_factory=dict)

    def match(self, text: str) -> int:
        """Trigger words present."""
        return _matches(text, self.keywords)

    def resolve(self, text: str, entities: list[str]) -> tuple[dict[str, Any], str]:
        """The request text and its entities go to the webhook as they are."""
        return {"request": text, "entities": entities}, self.description or f"Send to {self.name}"

    async def execute(self, params: dict[str, Any]) -> str:
        """POST JSON; a non-2xx answer is a failure."""
        payload = {"action": self.name, **params}
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.timeout)) as session:
            async with session.post(self.url, json=payload, headers=self.headers) as response:
                body = (await response.text())[:300]
                response.raise_for_status()
        return f"{self.name}: HTTP {response.status} {body}".strip()


@dataclass(frozen=True)
class Outcome:
    """What a click did."""

    ok: bool
    status: str
    message: str
    decided: bool = False  # this click settled the action (its result is news for the whole thread)


def _utc(moment: datetime) -> datetime:
    """SQLite gives naive datetimes back; they were written in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


class ActionService:
    """Proposes, confirms, cancels and executes actions, with permission checks and an audit log."""

    def __init__(self, store: Store, handlers: list[ActionHandler], admins: set[str] | None = None,
                 ttl_seconds: int = 600):
        self.store, self.handlers = store, handlers
        self.admins, self.ttl = set(admins or ()), timedelta(seconds=ttl_seconds)

    def pick(self, text: str) -> ActionHandler | None:
        """The handler whose trigger words match best, or None."""
        scored = [(h.match(text), -n, h) for n, h in enumerate(self.handlers)]
        best = max(scored, default=(0, 0, None), key=lambda s: (s[0], s[1]))
        return best[2] if best[0] > 0 else None

    def propose(self, conversation_id: int, run_id: str, requester: str, text: str,
                entities: list[str]) -> PendingAction | None:
        """Store a pending action for the request; None when no handler can do it."""
        handler = self.pick(text)
        if handler is None:
            return None
        params, summary = handler.resolve(text, entities)
        action = self.store.add(PendingAction(
            conversation_id=conversation_id, run_id=run_id, requester=requester, action=handler.name,
            summary=summary, params=params, expires_at=datetime.now(timezone.utc) + self.ttl))
        assert action.id is not None
        self.store.audit(action.id, requester, "requested", mask(f"{summary} {params}") or "")
        return action

    def describe(self, action: PendingAction | None, question: str) -> str:
        """The message shown with the Confirm / Cancel buttons (or why there are none)."""
        if action is None:
            return say(Text.NO_ACTION, question)
        return say(Text.CONFIRM_NEEDED, question, summary=action.summary, minutes=int(self.ttl.total_seconds() // 60))

    def may_decide(self, action: PendingAction, user: str) -> bool:
        """The requester and the configured admins may confirm or cancel."""
        return user == action.requester or user in self.admins

    def _authorize(self, action_id: int, user: str, verb: str, lang: str) -> PendingAction | Outcome:
        """The action if this user may decide on it, else the refusal (audited)."""
        action = self.store.get_action(action_id)
        if action is None:
            return Outcome(False, "missing", say(Text.ACTION_MISSING, lang, id=action_id))
        if not self.may_decide(action, user):
            self.store.audit(action_id, user, "denied", f"{verb} by someone who is not the requester or an admin")
            return Outcome(False, "denied", say(Text.ACTION_DENIED, lang, verb=verb_in(verb, lang)))
        return action

    async def confirm(self, action_id: int, user: str, lang: str = "") -> Outcome:
        """Execute once, if this user may and the action is still pending and fresh (storage off the loop)."""
        claimed = await self.store.call(self._claim, action_id, user, lang)
        if isinstance(claimed, Outcome):
            return claimed
        return await self._execute(claimed, user, lang)

    def _claim(self, action_id: int, user: str, lang: str) -> PendingAction | Outcome:
        """Move a pending, fresh action to `running` for this user, or say why not."""
        action = self._authorize(action_id, user, "confirm", lang)
        if isinstance(action, Outcome):
            return action
        if action.status != "pending":
            return Outcome(False, action.status, say(Text.ACTION_STATE, lang, id=action_id, status=action.status))
        now = datetime.now(timezone.utc)
        if now > _utc(action.expires_at):
            if self.store.transition(action_id, "pending", status="expired", decided_at=now):
                self.store.audit(action_id, user, "expired")
            return Outcome(False, "expired", say(Text.ACTION_EXPIRED, lang, id=action_id))
        if not self.store.transition(action_id, "pending", status="running", decided_by=user, decided_at=now):
            current = self.store.get_action(action_id)
            status = current.status if current else "missing"
            return Outcome(False, status, say(Text.ACTION_STATE, lang, id=action_id, status=status))
        self.store.audit(action_id, user, "confirmed")
        return action

    async def _execute(self, action: PendingAction, user: str, lang: str) -> Outcome:
        handler = next((h for h in self.handlers if h.name == action.action), None)
        try:
            if handler is None:
                raise ActionError(f"no handler named {action.action} is configured now")
            result = await handler.execute(action.params)
        except Exception as exc:  # a handler's failure is recorded, never raised into the chat adapter
            detail = mask(f"{exc.__class__.__name__}: {exc}") or ""
            await self.store.call(self._settle, action, user, "failed", detail)
            log.warning("action %s #%s failed: %s", action.action, action.id, detail)
            return Outcome(False, "failed", say(Text.ACTION_FAILED, lang, id=action.id, detail=detail), True)
        await self.store.call(self._settle, action, user, "done", mask(result) or "")
        return Outcome(True, "done", say(Text.ACTION_DONE, lang, result=result), True)

    def _settle(self, action: PendingAction, user: str, status: str, result: str) -> None:
        assert action.id is not None
        self.store.transition(action.id, "running", status=status, result=result)
        self.store.audit(action.id, user, "executed" if status == "done" else status, result)

    async def cancel(self, action_id: int, user: str, lang: str = "") -> Outcome:
        """Cancel a pending action (requester or admin)."""
        return await self.store.call(self._cancel, action_id, user, lang)

    def _cancel(self, action_id: int, user: str, lang: str) -> Outcome:
        action = self._authorize(action_id, user, "cancel", lang)
        if isinstance(action, Outcome):
            return action
        if not self.store.transition(action_id, "pending", status="cancelled", decided_by=user,
                                     decided_at=datetime.now(timezone.utc)):
            current = self.store.get_action(action_id)
            return Outcome(False, current.status if current else "missing",
                           say(Text.ACTION_NOT_PENDING, lang, id=action_id))
        self.store.audit(action_id, user, "cancelled")
        return Outcome(True, "cancelled", say(Text.ACTION_CANCELLED, lang, id=action_id), True)

