"""The `docbot` command: index, chat, serve, run, status and eval."""
from __future__ import annotations

import asyncio
import json
import logging
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bot.indexing import IndexJob
from rag.errors import ConfigurationError, DocbotError, DocumentError
from rag.index.indexer import IndexReport

from .runtime import Runtime
from .settings import Settings, load_settings

app = typer.Typer(add_completion=False, no_args_is_help=True, help="docbot: answers about your documents.")
console = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def _settings() -> Settings:
    """Settings from the environment; a bad value is a clear message naming the variable, and exit 2."""
    try:
        return load_settings()
    except ConfigurationError as exc:
        err.print(f"[red]configuration error:[/] {escape(str(exc))}")
        raise typer.Exit(2)


def _runtime() -> Runtime:
    return Runtime(_settings())


@contextmanager
def _opened(runtime: Runtime | None = None) -> Iterator[Runtime]:
    """A runtime for one command: closed afterwards, and a DocbotError becomes a clear message and exit 1."""
    runtime = runtime or _runtime()
    try:
        yield runtime
    except DocbotError as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1)
    finally:
        runtime.close()


@app.callback()
def _setup(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log debug detail."),
           log_format: str = typer.Option("text", "--log-format", envvar="DOCBOT_LOG_FORMAT",
                                          help="text, or json (one object a line, for log shippers)")) -> None:
    from bot.observability import configure_logging

    configure_logging(logging.DEBUG if verbose else logging.INFO if log_format == "json" else logging.WARNING,
                      json_logs=log_format == "json")


@app.command()
def index(
    paths: list[Path] | None = typer.Argument(None, help="Folders or files; default: the configured sources."),
    full: bool = typer.Option(False, "--full", help="Re-embed unchanged files too (the index stays searchable)."),
    rebuild: bool = typer.Option(False, "--rebuild", help="Build a fresh index (e.g. after changing the embedder)."),
) -> None:
    """Index documents: unchanged files are skipped, changed ones re-embedded, deleted ones removed."""
    with _opened() as runtime:
        report = run_index(runtime, paths, full=full, rebuild=rebuild)
    if report is None:
        lease = runtime.store.lease(runtime.lease_name)
        err.print(f"another indexing run holds the lease ({lease.holder if lease else 'unknown'}); nothing was done")
        raise typer.Exit(2)
    print_report(report)


def run_index(runtime: Runtime, paths: list[Path] | None = None, *, full: bool = False, rebuild: bool = False,
              show_progress: bool = True) -> IndexReport | None:
    """Run the indexing job (configured sources, or the given paths) with a progress bar; None if busy."""
    job = runtime.index_job
    if paths:
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise DocumentError(", ".join(missing), "no such file or folder")
        job = IndexJob(runtime.store, runtime.indexer, [runtime.source_for(p) for p in paths],
                       lease_ttl=runtime.settings.index_lease_seconds, lease=runtime.lease_name)
    with Progress(TextColumn("[bold]indexing {task.fields[source]}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("{task.description}"), console=err,
                  disable=not show_progress) as progress:
        tasks: list = []

        def on_source(name: str, total: int) -> None:
            tasks.append(progress.add_task("", total=total, source=name))

        def on_file(rel: str) -> None:
            progress.update(tasks[-1], advance=1, description=rel[-50:])

        run = job.run("cli", full=full, rebuild=rebuild, on_file=on_file, on_source=on_source)
    if run is None:
        return None
    return IndexReport(run.added, run.updated, run.unchanged, run.deleted, run.chunks,
                       [(str(e[0]), str(e[1])) for e in run.errors], run.seconds)


def print_report(report: IndexReport) -> None:
    """The one-line summary and any skipped files."""
    for path, reason in report.errors:
        err.print(f"[yellow]skipped[/] {path}: {reason}", soft_wrap=True)
    console.print(
        f"files: {report.added} added, {report.updated} updated, {report.unchanged} unchanged, "
        f"{report.deleted} deleted, {len(report.errors)} skipped; chunks: {report.chunks} embedded; "
        f"{report.seconds:.1f}s",
        soft_wrap=True,
    )


@app.command()
def chat() -> None:
    """Chat in the terminal (interactive, or one message per line on stdin)."""
    from adapters.console import ConsoleChat

    # The console is one local user typing (or piping) questions: no per-user rate limit.
    settings = _settings().model_copy(update={"rate_limit_per_user": 0, "rate_limit_per_channel": 0})
    with _opened(Runtime(settings)) as runtime:
        asyncio.run(ConsoleChat(runtime.conversations, source_url_base=settings.source_url_base,
                                offline=not settings.llm_configured, warm_up=runtime.warm_up).run())


@app.command()
def serve() -> None:
    """Run the HTTP server (health checks; chat platforms mount here)."""
    from aiohttp import web

    from .server import make_app

    runtime = _runtime()
    settings = runtime.settings
    err.print(f"docbot serving on http://{settings.host}:{settings.port} (GET /healthz)")
    try:
        # Running answers are stopped and stored on SIGTERM (docbot.server._drain); a few seconds is enough.
        web.run_app(make_app(runtime), host=settings.host, port=settings.port, print=None, shutdown_timeout=5)
    finally:
        runtime.close()


@app.command()
def run() -> None:
    """Start the bot: the server when Slack or Teams is configured, the console chat otherwise."""
    if _settings().chat_platform_configured:
        serve()
    else:
        chat()


@app.command()
def status(runs: int = typer.Option(10, "--runs", help="How many recent index runs to show.")) -> None:
    """What the index holds, which model built it, and the latest index runs."""
    from rich.table import Table

    runtime = _runtime()
    try:
        try:
            stats = runtime.index.stats()
        except DocbotError as exc:  # the index may be down while the runs (in the database) still tell a story
            stats = {"index": f"unavailable ({exc})"}
        recent = runtime.store.runs(runs)
        lease = runtime.store.lease(runtime.lease_name)
    except DocbotError as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1)
    finally:
        runtime.close()
    console.print("  ".join(f"{name}: {value}" for name, value in stats.items()), soft_wrap=True)
    if lease and lease.expires_at > time.time():
        console.print(f"indexing now: {lease.holder} (lease until {time.strftime('%H:%M:%S', time.localtime(lease.expires_at))})")
    table = Table(title="Index runs")
    for col in ("id", "trigger", "status", "started", "seconds", "added", "updated", "unchanged", "deleted",
                "chunks", "errors"):
        table.add_column(col)
    for r in recent:
        table.add_row(str(r.id), r.trigger + (" (full)" if r.full else ""), r.status,
                      r.started_at.strftime("%Y-%m-%d %H:%M:%S"), f"{r.seconds:.1f}", str(r.added), str(r.updated),
                      str(r.unchanged), str(r.deleted), str(r.chunks), str(len(r.errors)))
    console.print(table)
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
    # One line per source, never wrapped: folder keys are long and get copied into `sources remove`.
    configured = {s.key: s for s in runtime.sources}
    for key, source in configured.items():
        console.print(f"{source.name}  {key}  {indexed.get(key, 0)} files indexed  configured", soft_wrap=True)
    for key in sorted(set(indexed) - set(configured)):
        console.print(f"-  {key}  {indexed[key]} files indexed  [yellow]not configured[/] "
                      f"(docbot sources remove {key})", soft_wrap=True)
    if not configured and not indexed:
        console.print("no sources configured and nothing indexed")


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


@app.command("eval")
def evaluate(
    datasets: list[Path] = typer.Argument(..., help="Conversation files, one JSON object per line; each is "
                                                     "replayed on the same fresh index."),
    docs: Path = typer.Option(..., "--docs", help="The documents the datasets refer to."),
    k: int = typer.Option(5, "--k", help="Cut-off for recall and MRR."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the full report here (one dataset: its "
                                                                 "report; several: reports by file name)."),
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
    with tempfile.TemporaryDirectory(prefix="docbot-eval-") as tmp:
        # A fresh embedded index and database, and no rate limits: a replay is one very fast user.
        settings = base.model_copy(update={"data_dir": Path(tmp), "database_url": None, "top_k": k,
                                           "index": "sqlite", "rate_limit_per_user": 0,
                                           "rate_limit_per_channel": 0})
        runtime = Runtime(settings)
        try:
            report_index = run_index(runtime, [docs])
            if report_index is None:
                raise DocbotError("another indexing run holds the index; try again when it finishes")
            print_report(report_index)
            languages = document_languages(docs)
            for path, conversations in loaded.items():
                reports[path.name] = asyncio.run(run_eval(
                    runtime.pipeline, conversations, k, respond=service_responder(runtime, path.name),
                    executed_actions=runtime.executed_actions, doc_languages=languages))
        except (DocbotError, OSError) as exc:
            err.print(f"[red]error:[/] {exc}")
            raise typer.Exit(1)
        finally:
            runtime.close()
    for name, report in reports.items():
        if len(reports) > 1:
            console.rule(name)
        print_table(report, console)
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
