"""The HTTP client every REST connector (Confluence, Microsoft Graph) shares: bounded retries that honour
`Retry-After`, errors sorted into "try again next run" and "this document", and a request count.

Connectors run in the indexing job's worker thread and read each changed document lazily, one at a time,
after `changes()` has returned; a synchronous client fits that without a private event loop per thread.
`requests` is the client (already installed and pinned: msal depends on it) and tenacity (already a
dependency) does the retrying, so the wait can honour the server's `Retry-After` and stay bounded.
"""
from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

import requests as http_lib
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_random_exponential

from rag.errors import SourceUnavailable
from rag.resilience import RetryPolicy

log = logging.getLogger(__name__)

RETRIED = (429, 500, 502, 503, 504)  # throttled or a passing server fault: worth another try


class NotFound(Exception):
    """404/410 for one item, or what the service's `classify` says concerns one item (Drive's 403
    `exportSizeLimitExceeded`): the caller decides (a page deleted between listing and reading, an expired
    token, a file too large to export)."""

    def __init__(self, status: int, body: Any):
        super().__init__(f"HTTP {status}")
        self.status, self.body = status, body


class _Transient(Exception):
    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


def retry_after(value: str | None) -> float | None:
    """Seconds a `Retry-After` header asks for (delta-seconds or an HTTP date), None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass
class HttpClient:
    """GETs against one service with a fixed set of headers (the credentials), retried within bounds.

    A 429/5xx is retried up to `policy.attempts` times in all, waiting what `Retry-After` asks when the server
    says (never more than `max_retry_after`: a server asking longer ends the run with SourceUnavailable,
    the cursor kept, and the next scheduled run tries again) and exponential backoff with jitter otherwise.
    401/403 (credentials refused) and other 4xx end the run at once; 404/410 raise NotFound for the caller.
    `requests` counts every request sent, retries included. `sleep` is injectable so tests count waits.
    `classify(status, body)` lets a service refine that: "retry" (Drive's 403 `userRateLimitExceeded` is
    throttling, not a refusal), "item" (raise NotFound for the caller), or None for the rules above.
    """

    base: str
    service: str
    headers: Callable[[], dict[str, str]] = field(default=lambda: {}, repr=False)
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    max_retry_after: float = 120.0
    sleep: Callable[[float], None] = time.sleep
    requests: int = 0
    waits: list[float] = field(default_factory=list)  # every wait taken, in seconds (reported, tested)
    classify: Callable[[int, Any], str | None] = field(default=lambda status, body: None, repr=False)
    _session: http_lib.Session = field(default_factory=http_lib.Session, repr=False)

    def url(self, path_or_url: str) -> str:
        return urljoin(self.base.rstrip("/") + "/", path_or_url.lstrip("/")) if "://" not in path_or_url \
            else path_or_url

    def get_json(self, path_or_url: str, params: dict[str, Any] | None = None) -> Any:
        response = self._get(path_or_url, params, stream=False)
        try:
            return response.json()
        except ValueError:
            raise SourceUnavailable(f"{self.service} answered {self._where(path_or_url)} with something that is "
                                    f"not JSON ({response.headers.get('Content-Type', '?')})") from None

    def get_bytes(self, path_or_url: str, params: dict[str, Any] | None = None, *, limit: int) -> bytes:
        """The body, refused past `limit` bytes before more than that is read (ValueError).

        A redirect is followed without our credentials: download redirects point to pre-authenticated URLs
        (Graph's `/content` to SharePoint) that must not receive the service's bearer token."""
        response = self._send("GET", path_or_url, params, True, None, redirects=False)
        if response.is_redirect and response.headers.get("Location"):
            location = self.url(response.headers["Location"])
            response.close()
            response = self._send("GET", location, None, True, None, redirects=False, credentials=False)
        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > limit:
            response.close()
            raise ValueError(f"{int(declared) // 1_048_576} MB (limit {limit // 1_048_576} MB)")
        body = bytearray()
        for block in response.iter_content(65536):
            body += block
            if len(body) > limit:
                response.close()
                raise ValueError(f"over {limit // 1_048_576} MB (limit {limit // 1_048_576} MB)")
        return bytes(body)

    def post_json(self, path_or_url: str, payload: Any) -> Any:
        return self._send("POST", path_or_url, None, False, payload).json()

    def _get(self, path_or_url: str, params: dict[str, Any] | None, *, stream: bool) -> http_lib.Response:
        return self._send("GET", path_or_url, params, stream, None)

    def _send(self, method: str, path_or_url: str, params, stream: bool, payload, *, redirects: bool = True,
              credentials: bool = True) -> http_lib.Response:
        url = self.url(path_or_url)

        def wait(state) -> float:
            exc = state.outcome.exception()
            asked = getattr(exc, "retry_after", None)
            seconds = asked if asked is not None else backoff(state)
            self.waits.append(seconds)
            return seconds

        backoff = wait_random_exponential(multiplier=self.policy.base_wait, max=self.policy.max_wait)
        try:
            for attempt in Retrying(retry=retry_if_exception_type(_Transient), stop=stop_after_attempt(self.policy.attempts),
                                    wait=wait, sleep=self.sleep, reraise=True):
                with attempt:
                    return self._once(method, url, params, stream, payload, redirects, credentials)
        except _Transient as exc:
            raise SourceUnavailable(f"{self.service}: {exc} (after {self.policy.attempts} attempts)") from None
        raise AssertionError("unreachable")  # tenacity either returns or re-raises

    def _once(self, method: str, url: str, params, stream: bool, payload, redirects: bool = True,
              credentials: bool = True) -> http_lib.Response:
        self.requests += 1
        try:
            response = self._session.request(method, url, params=params, headers=self.headers() if credentials else {},
                                             json=payload, stream=stream, timeout=self.policy.timeout,
                                             allow_redirects=redirects)
        except (http_lib.ConnectionError, http_lib.Timeout) as exc:
            raise _Transient(f"cannot reach {self._where(url)} ({exc.__class__.__name__})") from None
        if response.status_code < 400:
            return response
        status = response.status_code
        body = _body(response)
        verdict = self.classify(status, body)
        if verdict == "item":
            raise NotFound(status, body)
        if status in RETRIED or verdict == "retry":
            asked = retry_after(response.headers.get("Retry-After"))
            if asked is not None and asked > self.max_retry_after:
                raise SourceUnavailable(f"{self.service} is throttling (HTTP {status}) and asks to wait {asked:.0f} s "
                                        f"(more than {self.max_retry_after:.0f} s): the next run retries")
            raise _Transient(f"HTTP {status} from {self._where(url)}", asked)
        if status in (404, 410):
            raise NotFound(status, body)
        if status in (401, 403):
            raise SourceUnavailable(f"{self.service} refused the credentials (HTTP {status}) for {self._where(url)}: "
                                    "check the token and its permissions")
        raise SourceUnavailable(f"{self.service} refused {self._where(url)} (HTTP {status}): {_summary(body)}")

    def _where(self, url: str) -> str:
        """The path only: a query string may carry a cursor or token, never shown."""
        return http_lib.utils.urlparse(url).path or "/"

    def close(self) -> None:
        self._session.close()


def _body(response: http_lib.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text[:300]


def _summary(body: Any) -> str:
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            return str(error.get("code") or error.get("message") or "")[:200]
        return str(body.get("message") or body.get("errors") or "")[:200]
    return str(body)[:200]
