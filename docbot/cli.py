"""The `docbot` command: index, chat, serve, run, status and eval."""
from __future__ import annotations

import asyncio
import errno
import functools
import json
import logging
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bot.indexing import IndexJob
from rag.errors import (
    ConfigurationError,
    DocbotError,
    DocumentError,
    IndexRunStopped,
    SearchIndexUnavailable,
    StorageError,
)
from rag.index.indexer import IndexReport
from rag.ingest.loaders import LOADERS

from .progress import ProgressLines
from .runtime import Runtime
from .settings import Settings, load_settings, platform_problems, unknown_variables

log = logging.getLogger("docbot")
app = typer.Typer(add_completion=False, no_args_is_help=True, help="docbot: answers about your documents.")
console = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


_state: dict = {"debug": False, "settings": None, "verbose": False}


def _settings() -> Settings:
    """Settings from the environment; a bad value is a clear message naming the variable, and exit 2.
    Variables that look like docbot's but that no setting reads are warned about (a typo is not silent)."""
    try:
        settings = load_settings()
    except ConfigurationError as exc:
        if _state["debug"]:
            _print_traceback(exc)
        err.print(f"[red]configuration error:[/] {escape(str(exc))}")
        raise typer.Exit(2)
    if _state["settings"] is None:
        for warning in unknown_variables():
            err.print(f"[yellow]warning:[/] {escape(warning)}")
    _state["settings"] = settings
    return settings


def explain(exc: BaseException, settings: Settings | None = None) -> tuple[list[str], int]:
    """A failure as one or two plain lines (what, which variable, the fix) and an exit code: 2 for
    configuration a user must change, 1 for anything else."""
    s = settings or _state["settings"]
    what = (str(exc).strip().splitlines() or [exc.__class__.__name__])[0][:300]
    if isinstance(exc, ConfigurationError):
        return [f"configuration error: {line}" for line in str(exc).splitlines()[:6]], 2
    if isinstance(exc, SearchIndexUnavailable):
        url = s.elasticsearch_url if s else "ELASTICSEARCH_URL"
        return [f"ELASTICSEARCH_URL: cannot reach Elasticsearch at {url}, so the index is unavailable: {what}",
                "Fix: start Elasticsearch, correct ELASTICSEARCH_URL or its credentials, or unset DOCBOT_INDEX to "
                "use the embedded index."], 2
    if isinstance(exc, StorageError) and "cannot open" in what:
        return [f"DOCBOT_DATABASE_URL: cannot open the conversation database at {_shown_url(s)}: "
                f"{_cause(exc)}",
                "Fix: check the host, port, user, password and that the server runs, or unset DOCBOT_DATABASE_URL "
                "to use SQLite in DOCBOT_DATA_DIR."], 2
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        port = s.port if s else "?"
        return [f"DOCBOT_PORT: port {port} is already in use on {s.host if s else 'this host'}.",
                "Fix: stop the other process on that port, or choose another, e.g. DOCBOT_PORT=3001."], 2
    if isinstance(exc, DocbotError):
        return [f"error: {what}"], 1
    return [f"unexpected error: {exc.__class__.__name__}: {what}", "Run again with --debug for the traceback."], 1


def _shown_url(s: Settings | None) -> str:
    if s is None:
        return "DOCBOT_DATABASE_URL"
    from sqlalchemy.engine import make_url

    try:
        return make_url(s.db_url).render_as_string(hide_password=True)
    except Exception:  # an unparsable URL is shown as it was given, without anything after the scheme
        return s.db_url.split("://", 1)[0] + "://…"


def _cause(exc: BaseException) -> str:
    """The innermost reason, first line only (driver errors carry pages of SQL and hints)."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    orig = getattr(exc, "orig", None) or exc
    return (str(orig).strip().splitlines() or [orig.__class__.__name__])[0][:200]


def _print_traceback(exc: BaseException) -> None:
    """--debug: the traceback, before the same lines and the same exit code as without it (a script that tells
    configuration errors by their exit code 2 must not see 1 because someone asked for detail)."""
    traceback.print_exception(exc, file=sys.stderr)


def _fail(exc: BaseException, settings: Settings | None = None) -> NoReturn:
    """`explain`'s lines and exit code; with --debug, the traceback first."""
    if _state["debug"]:
        _print_traceback(exc)
    lines, code = explain(exc, settings)
    for line in lines:
        err.print(escape(line), style="red" if line is lines[0] else None)
    raise typer.Exit(code)


def explained(command: Callable) -> Callable:
    """A command whose failures end in `explain`'s lines and exit code, not a traceback (--debug shows it)."""
    @functools.wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            if isinstance(exc, typer.TyperException):
                raise
            _fail(exc)

    return run


def _runtime() -> Runtime:
    return Runtime(_settings())


@contextmanager
def _opened(runtime: Runtime | None = None) -> Iterator[Runtime]:
    """A runtime for one command: closed afterwards, and a DocbotError becomes a clear message and exit 1."""
    runtime = runtime or _runtime()
    try:
        yield runtime
    except DocbotError as exc:
        _fail(exc, runtime.settings)
    finally:
        runtime.close()


def _show_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        console.print(f"docbot {version('docbot')}")  # the installed distribution's: what pip and bug reports name
        raise typer.Exit()


@app.callback()
def _setup(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log debug detail."),
           log_format: str = typer.Option("text", "--log-format", envvar="DOCBOT_LOG_FORMAT",
                                          help="text, or json (one object a line, for log shippers)"),
           debug: bool = typer.Option(False, "--debug", envvar="DOCBOT_DEBUG",
                                      help="Show the full traceback when something fails."),
           version: bool = typer.Option(False, "--version", is_eager=True, callback=_show_version,
                                        help="Show docbot's version and exit.")) -> None:
    from bot.observability import configure_logging

    _state.update(debug=debug, settings=None, verbose=verbose)
    configure_logging(logging.DEBUG if verbose else logging.INFO if log_format == "json" else logging.WARNING,
                      json_logs=log_format == "json")
    if not verbose and log_format != "json":  # its per-attempt warnings restate the one line `explain` prints
        logging.getLogger("elastic_transport").setLevel(logging.ERROR)
    if debug:  # a failed platform call is one line; its traceback is logged at debug level, shown with --debug
        logging.getLogger("adapters").setLevel(logging.DEBUG)
    # Whether Socket Mode is connected (and to which workspace) is the first thing an operator looks for: one
    # INFO line per connection, shown at the default level too.
    logging.getLogger("adapters.slack.connection").setLevel(logging.DEBUG if verbose or debug else logging.INFO)


@app.command()
@explained
def index(
    paths: list[Path] | None = typer.Argument(None, help="Folders or files; default: the configured sources."),
    full: bool = typer.Option(False, "--full", help="Re-embed unchanged files too (the index stays searchable)."),
    rebuild: bool = typer.Option(False, "--rebuild", help="Build a fresh index (e.g. after changing the embedder)."),
    verbose: bool = typer.Option(False, "--verbose", "-v",
                                 help="Also list each file the sources' include/exclude patterns left out."),
) -> None:
    """Index documents: unchanged files are skipped, changed ones re-embedded, deleted ones removed."""
    # `make run` (and a deployment's first step) indexes before it serves: a half-configured Slack or Teams is
    # said now, not after minutes of indexing.
    _platform_check(_settings())
    with _opened() as runtime:
        if not paths:
            err.print(describe_sources(runtime))
        if runtime.settings.index == "elasticsearch":
            runtime.index.stats()  # unreachable: one explained line before any work, not a skip per source
        sources = [runtime.source_for(p) for p in paths] if paths else runtime.sources
        try:
            report = run_index(runtime, paths, full=full, rebuild=rebuild)
        except IndexRunStopped:
            err.print("stopped: what was indexed so far stays searchable and the lease is released; "
                      "the next `docbot index` resumes")
            raise typer.Exit(130)
        if report is None:
            err.print(lease_message(runtime))
            raise typer.Exit(2)
        print_report(report, verbose=verbose or _state["verbose"])
        failed = {name for name, _ in report.errors} & {s.name for s in sources}
        if sources and len(failed) == len(sources):
            if runtime.settings.index == "elasticsearch":
                runtime.index.stats()  # unreachable: SearchIndexUnavailable, explained with its variable
            err.print("[red]nothing was indexed:[/] every source was skipped (reasons above)")
            raise typer.Exit(1)


def describe_sources(runtime: Runtime) -> str:
    """Which sources a plain `docbot index` reads, and why: the sample handbook only when none is configured."""
    s = runtime.settings
    names = ", ".join(f"{src.name} ({src.key})" for src in runtime.sources)
    if {"sources", "docs"} & s.model_fields_set:
        return f"indexing your configured sources: {names}"
    return (f"indexing the bundled sample handbook ({names}): no DOCBOT_SOURCES or DOCBOT_DOCS is configured "
            "(docs/configuration.md shows how to point docbot at your own folder)")


def lease_message(runtime: Runtime) -> str:
    """Who holds the index lease and until when (a killed run's lease lapses by itself then)."""
    lease = runtime.store.lease(runtime.lease_name)
    if lease is None or lease.expires_at <= time.time():
        return "another indexing run held the lease a moment ago; nothing was done, try again"
    host, _, rest = lease.holder.partition(":")
    pid = rest.split(":", 1)[0]
    until = time.strftime("%H:%M:%S UTC", time.gmtime(lease.expires_at))
    return (f"another indexing run holds the lease: {lease.holder} (pid {pid} on {host}) until {until}, "
            f"{lease.expires_at - time.time():.0f} s from now; nothing was done.\n"
            "If that run was killed, its lease lapses then; try again after it (`docbot status` shows it).")


@contextmanager
def _stop_on_signals(job) -> Iterator[None]:
    """Ctrl-C or SIGTERM stops the run between chunks (what was written stays, the lease is released);
    a second one interrupts at once. Only the main thread may set signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    asked: list[int] = []

    def stop(signum, frame):
        if asked:
            raise KeyboardInterrupt
        asked.append(signum)
        job.stop()
        err.print("stopping after the current chunk (press Ctrl-C again to stop at once)")

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_index(runtime: Runtime, paths: list[Path] | None = None, *, full: bool = False, rebuild: bool = False,
              show_progress: bool = True) -> IndexReport | None:
    """Run the indexing job (configured sources, or the given paths) with a progress bar counting chunks in a
    terminal, and progress lines anywhere else (a bar written to a pipe or a log shows nothing until the end);
    None if busy. Ctrl-C and SIGTERM stop it between chunks with the lease released."""
    job = runtime.index_job
    if paths:
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise DocumentError(", ".join(missing), "no such file or folder")
        job = IndexJob(runtime.store, runtime.indexer, [runtime.source_for(p) for p in paths],
                       lease_ttl=runtime.settings.index_lease_seconds, lease=runtime.lease_name,
                       stall_seconds=runtime.settings.index_stall_seconds)
    lines = ProgressLines(lambda text: err.print(escape(text), soft_wrap=True)) \
        if show_progress and not err.is_terminal else None
    with Progress(TextColumn("[bold]indexing {task.fields[source]}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("chunks"), TimeElapsedColumn(), TextColumn("{task.description}"), console=err,
                  disable=not show_progress or lines is not None) as progress, _stop_on_signals(job):
        tasks: list = []

        def on_source(name: str, total: int) -> None:
            tasks.append(progress.add_task("", total=total, source=name))
            if lines:
                lines.source(name, total)

        def on_chunks(n: int) -> None:
            if tasks:
                progress.update(tasks[-1], advance=n)
            if lines:
                lines.chunks(n)

        def on_file(rel: str) -> None:
            if tasks:
                progress.update(tasks[-1], description=rel[-50:])

        run = job.run("cli", full=full, rebuild=rebuild, on_file=on_file, on_source=on_source, on_chunks=on_chunks,
                      on_pages=lines.files if lines else None)
    if run is None:
        return None
    return IndexReport(run.added, run.updated, run.unchanged, run.deleted, run.chunks,
                       [(str(e[0]), str(e[1])) for e in run.errors], run.seconds,
                       not_included=[(s.name, rel) for s in job.sources for rel in getattr(s, "not_included", ())])


UNSUPPORTED = "is not a supported type"


def print_report(report: IndexReport, verbose: bool = False) -> None:
    """The one-line summary and any skipped files (files of unsupported types grouped by extension); files the
    sources' patterns left out are counted (a narrow `include` must not drop documents unseen), and listed
    when `verbose`."""
    by_type: dict[str, list[str]] = {}
    for path, reason in report.errors:
        if reason.endswith(UNSUPPORTED):
            by_type.setdefault(reason.removeprefix("skipped: ").removesuffix(UNSUPPORTED).strip(), []).append(path)
        else:
            err.print(f"[yellow]skipped[/] {escape(path)}: {escape(reason)}", soft_wrap=True)
    for kind, paths in sorted(by_type.items()):
        shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        err.print(f"[yellow]skipped[/] {len(paths)} {kind} file(s), not a supported type ({', '.join(LOADERS)}): "
                  f"{escape(shown)}", soft_wrap=True)
    if verbose:
        for name, path in report.not_included:
            err.print(f"not included by {escape(name)}'s patterns: {escape(path)}", soft_wrap=True)
    left_out = len(report.not_included)
    console.print(
        f"files: {report.added} added, {report.updated} updated, {report.unchanged} unchanged, "
        f"{report.deleted} deleted, {len(report.errors)} skipped"
        + (f", {left_out} not included by the source's patterns{'' if verbose else ' (--verbose lists them)'}"
           if left_out else "")
        + f"; chunks: {report.chunks} embedded; "
        f"{report.seconds:.1f}s",
        soft_wrap=True,
    )


@app.command()
@explained
def chat(explain: bool = typer.Option(False, "--explain", help="After each answer, print why it ended as it "
                                       "did: the verdict, and each line's probability and main features.")) -> None:
    """Chat in the terminal (interactive, or one message per line on stdin)."""
    from adapters.console import ConsoleChat

    # The console is one local user typing (or piping) questions: no per-user rate limit.
    settings = _settings().model_copy(update={"rate_limit_per_user": 0, "rate_limit_per_channel": 0})
    with _opened(Runtime(settings)) as runtime:
        asyncio.run(ConsoleChat(runtime.conversations, source_url_base=settings.source_url_base,
                                offline=not settings.llm_configured, warm_up=runtime.warm_up,
                                explain=explain).run())


def _check_port(host: str, port: int) -> None:
    """Fail before anything loads when the port is taken (aiohttp binds only after start-up work)."""
    probe = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        probe.bind((host, port))
    finally:
        probe.close()


def _platform_check(settings: Settings) -> None:
    problems = platform_problems(settings)
    if problems:
        raise ConfigurationError("\n".join(problems))


def started(runtime: Runtime) -> list[str]:
    """What `serve` runs, one line each: adapters, sources, index backend, model, schedule."""
    s = runtime.settings
    adapters = [name for name, on in (
        ("Slack Events API at /slack/events", s.slack_configured and s.slack_signing_secret),
        ("Slack Socket Mode", s.slack_configured and s.slack_app_token),
        ("Teams at /api/messages" + (" (anonymous)" if not s.microsoft_app_id else ""), s.teams_configured)) if on]
    backend = f"Elasticsearch {s.elasticsearch_url} (alias {s.es_alias})" if s.index == "elasticsearch" \
        else f"embedded SQLite {s.index_path}"
    model = f"{s.answer_model} at {s.openai_base_url or 'OpenAI'}" if s.llm_configured else "offline (extractive)"
    schedule = ", ".join(filter(None, ["on start" if s.index_on_start else "",
                                      f"'{s.index_schedule}'" if s.index_schedule else "",
                                      f"full '{s.index_full_schedule}'" if s.index_full_schedule else ""])) or "off"
    return [f"adapters: {', '.join(adapters) or 'none (health and metrics only)'}",
            f"sources: {', '.join(f'{src.name} ({src.key})' for src in runtime.sources) or 'none'}",
            f"index: {backend}; embeddings: {s.embedder}; answers: {model}",
            f"re-index schedule: {schedule}"]


@app.command()
@explained
def serve() -> None:
    """Run the HTTP server (health checks; chat platforms mount here)."""
    from aiohttp import web

    from .server import make_app

    settings = _settings()
    _platform_check(settings)
    _check_port(settings.host, settings.port)
    runtime = Runtime(settings)
    try:
        app_ = make_app(runtime)
        for line in started(runtime):
            log.info("serve: %s", line)
            err.print(line)
        err.print(f"docbot serving on http://{settings.host}:{settings.port} (GET /healthz)")
        # Running answers are stopped and stored on SIGTERM (docbot.server._drain); a few seconds is enough.
        web.run_app(app_, host=settings.host, port=settings.port, print=None, shutdown_timeout=5)
    finally:
        runtime.close()


@app.command()
@explained
def run() -> None:
    """Start the bot: the server when Slack or Teams is configured, the console chat otherwise."""
    settings = _settings()
    _platform_check(settings)
    if settings.chat_platform_configured:
        serve()
    else:
        chat()


@app.command()
@explained
def status(runs: int = typer.Option(10, "--runs", help="How many recent index runs to show.")) -> None:
    """What the index holds, which model built it, and the latest index runs."""
    from rich.table import Table

    runtime = _runtime()
    try:  # failures reach @explained: an unreachable database or cluster is a plain sentence and exit 2
        try:
            stats = runtime.index.stats()
        except SearchIndexUnavailable:
            raise
        except DocbotError as exc:  # an index that answers but fails still leaves the runs to tell a story
            stats = {"index": f"unavailable ({exc})"}
        recent = runtime.store.runs(runs)
        lease = runtime.store.lease(runtime.lease_name)
        progress = runtime.store.indexing_progress()
    finally:
        runtime.close()
    console.print("  ".join(f"{name}: {value}" for name, value in stats.items()), soft_wrap=True)
    if lease and lease.expires_at > time.time():
        pages = f"indexing {progress[0]} of {progress[1]} pages" if progress else "indexing now"
        console.print(f"{pages}: {lease.holder} (lease until "
                      f"{time.strftime('%H:%M:%S UTC', time.gmtime(lease.expires_at))}; what is written is searchable)")
    table = Table(title="Index runs")
    for col in ("id", "trigger", "status", "started", "seconds", "added", "updated", "unchanged", "deleted",
                "chunks", "errors"):
        table.add_column(col)
    for r in recent:
        table.add_row(str(r.id), r.trigger + (" (full)" if r.full else ""), r.status,
                      r.started_at.strftime("%Y-%m-%d %H:%M:%S"), f"{r.seconds:.1f}", str(r.added), str(r.updated),
                      str(r.unchanged), str(r.deleted), str(r.chunks), str(len(r.errors)))
    # Piped or logged, rich would squeeze the table into 80 columns and cut every header to "tri…": print it
    # whole (a terminal keeps its own width).
    (console if console.is_terminal else Console(highlight=False, soft_wrap=True, width=1000)).print(table)
    for r in recent[:1]:
        for path, reason in r.errors:
            console.print(f"  run {r.id} skipped {path}: {reason}")


sources_app = typer.Typer(help="List the indexed sources, or remove one from the index.", no_args_is_help=False)
app.add_typer(sources_app, name="sources")


@sources_app.callback(invoke_without_command=True)
def sources(ctx: typer.Context) -> None:
    """Configured sources with their indexed file counts, and indexed sources no longer configured."""
    if ctx.invoked_subcommand:
        return
    with _opened() as runtime:
        indexed = runtime.index.indexed_sources()
        states = runtime.store.source_states()
    # One line per source, never wrapped: folder keys are long and get copied into `sources remove`.
    configured = {s.key: s for s in runtime.sources}
    for key, source in configured.items():
        console.print(f"{source.name}  {getattr(source, 'kind', 'folder')}  {key}  {indexed.get(key, 0)} files indexed  "
                      f"configured{_sync_state(states.get(key))}", soft_wrap=True, markup=False)
    for key in sorted(set(indexed) - set(configured)):
        console.print(f"-  {key}  {indexed[key]} files indexed  [yellow]not configured[/] "
                      f"(docbot sources remove {key})", soft_wrap=True)
    if not configured and not indexed:
        console.print("no sources configured and nothing indexed")


def _sync_state(state) -> str:
    """A source's cursor, last success and last error, as `docbot sources` shows them."""
    if state is None:
        return "  never run"
    parts = [f"cursor {state.cursor[:12]}" if state.cursor else "",
             f"last success {state.last_success:%Y-%m-%d %H:%M:%S} ({state.requests} requests)"
             if state.last_success else "never succeeded",
             f"error at {state.error_at:%Y-%m-%d %H:%M:%S}: {state.last_error}" if state.last_error else ""]
    return "".join(f"  {p}" for p in parts if p)


@sources_app.command("remove")
def remove_source(
    source: str = typer.Argument(..., help="A configured source's name, or an indexed folder key as listed."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
) -> None:
    """Withdraw one source's documents from the index (the files themselves are not touched)."""
    with _opened() as runtime:
        keys = [s.key for s in runtime.sources if s.name == source] or [source]
        indexed = runtime.index.indexed_sources()
        key = next((k for k in keys if k in indexed), None)
        if key is None:
            err.print(f"[red]error:[/] nothing indexed under {source!r}; `docbot sources` lists what is")
            raise typer.Exit(1)
        if not yes and not typer.confirm(f"Remove {indexed[key]} indexed files of {key} from the index?"):
            raise typer.Exit(1)
        removed = runtime.index_job.remove_source(key)
    if removed is None:
        err.print("another indexing run holds the lease; nothing was removed, try again when it finishes")
        raise typer.Exit(2)
    console.print(f"removed {removed} files of {key} from the index")
    if key in {s.key for s in runtime.sources}:
        console.print("[yellow]it is still configured: the next index run adds it back unless you remove it from "
                      "DOCBOT_SOURCES / DOCBOT_DOCS[/]")


@app.command("explain")
@explained
def explain_turn(last: int = typer.Option(1, "--last", min=1, help="How many of the latest turns to explain.")) -> None:
    """Why the latest turns were answered, hedged or "not found": each verdict, its lines' probabilities and the
    features that moved them (from the stored turn traces; personal data masked)."""
    from rag.answer.evidence import described

    with _opened() as runtime:
        traces = runtime.store.recent_traces(last)
    if not traces:
        console.print("no turns stored yet")
    for trace in reversed(traces):
        console.print(f"[bold]{escape(trace.original)}[/]  [dim]({trace.intent}, {trace.created_at:%Y-%m-%d %H:%M})[/]")
        for line in described(trace.reading or {}) if trace.intent == "knowledge_search" else ["no search"]:
            console.print(f"  {escape(line)}", soft_wrap=True)


@app.command("eval")
def evaluate(
    datasets: list[Path] = typer.Argument(..., help="Conversation files, one JSON object per line; each is "
                                                     "replayed on the same fresh index."),
    docs: Path | None = typer.Option(None, "--docs", help="The documents the datasets refer to; unset: the "
                                                            "configured sources (DOCBOT_SOURCES, connectors too)."),
    k: int = typer.Option(5, "--k", help="Cut-off for recall and MRR."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the full report here (one dataset: its "
                                                                 "report; several: reports by file name)."),
    readings: Path | None = typer.Option(None, "--readings", help="Write every line the reader scored, with its "
                                         "features and label, as JSON lines (the reader model's training data)."),
    index_dir: Path | None = typer.Option(None, "--index-dir", help="Keep the index in this folder and reuse it "
                                          "next time (re-indexing only what changed); unset: a fresh temporary one."),
) -> None:
    """Replay conversations through the real pipeline and report recall, intent and latency."""
    from rag.eval.replay import load_dataset, print_table, run_eval

    try:  # a bad line is reported before minutes of indexing, not after
        loaded = {path: load_dataset(path) for path in datasets}
    except (DocbotError, OSError) as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1)
    base = _settings()
    reports = {}
    rows: list[dict] | None = [] if readings else None
    with tempfile.TemporaryDirectory(prefix="docbot-eval-") as tmp:
        if index_dir is not None:
            index_dir.mkdir(parents=True, exist_ok=True)
        # A fresh embedded index and database, and no rate limits: a replay is one very fast user.
        settings = base.model_copy(update={"data_dir": index_dir or Path(tmp), "database_url": None, "top_k": k,
                                           "index": "sqlite", "rate_limit_per_user": 0,
                                           "rate_limit_per_channel": 0})
        runtime = Runtime(settings)
        try:
            report_index = run_index(runtime, [docs] if docs is not None else None)
            if report_index is None:
                raise DocbotError("another indexing run holds the index; try again when it finishes")
            print_report(report_index)
            run_id = uuid.uuid4().hex[:8]  # a kept index keeps its database: earlier replays' threads stay apart
            languages = document_languages(docs) if docs is not None else source_languages(runtime.sources)
            for path, conversations in loaded.items():
                reports[path.name] = asyncio.run(run_eval(
                    runtime.pipeline, conversations, k, respond=service_responder(runtime, f"{path.name}:{run_id}"),
                    executed_actions=runtime.executed_actions, doc_languages=languages, readings=rows))
        except (DocbotError, OSError) as exc:
            err.print(f"[red]error:[/] {exc}")
            raise typer.Exit(1)
        finally:
            runtime.close()
    for name, report in reports.items():
        if len(reports) > 1:
            console.rule(name)
        print_table(report, console)
    if readings and rows is not None:
        readings.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        console.print(f"{len(rows)} read lines written to {readings}")
    if json_out:
        payload = next(iter(reports.values())) if len(reports) == 1 else reports
        json_out.write_text(json.dumps(payload, ensure_ascii=False, indent=2))
        console.print(f"report written to {json_out}")


def document_languages(docs: Path) -> dict[str, tuple[str, ...]]:
    """Each document's languages (by its whole text), for the eval's same/cross-language split."""
    from rag.index.indexer import folder_source
    from rag.ingest.loaders import load
    from rag.text.language import languages

    found = {}
    for item in folder_source(docs).files():
        try:
            found[item.path] = languages(load(item.path, item.read()).text)
        except (DocbotError, OSError):
            continue  # the index report already names files that do not load
    return found


def source_languages(sources) -> dict[str, tuple[str, ...]]:
    """Each document's languages for configured sources (a connector's documents are read again)."""
    from rag.ingest.loaders import load
    from rag.text.language import languages

    found: dict[str, tuple[str, ...]] = {}
    for source in sources:
        try:
            items = source.files()
        except DocbotError:
            continue  # the index report already names a source that failed
        for item in items:
            try:
                found.setdefault(item.path, languages(load(item.path, item.read(), item.meta).text))
            except (DocbotError, OSError):
                continue
    return found


def service_responder(runtime: Runtime, dataset: str = ""):
    """Eval turns through the conversation service: stored, routed, actions proposed (never confirmed)."""
    from bot.conversation import SessionKey

    async def respond(conversation: str, text: str, history: list) -> tuple:
        turn = await runtime.conversations.ask(SessionKey("eval", "local", "eval", f"{dataset}:{conversation}"), text, "eval")
        assert turn is not None  # no delivery id: never a duplicate
        return turn.prepared, await turn.collect()

    return respond


def main() -> None:
    """Console-script entry point."""
    app()
