"""Replay a newcomer's first hour on a fresh clone and assert every outcome (runs in CI after `make test`).

    python scripts/newcomer_path.py [--venv .venv] [--install] [--keep DIR]

1. Clone this checkout (HEAD) into a temporary folder.
2. `make run` with nothing configured: the bundled handbook is indexed and a first question answered.
3. Each misconfiguration of docs/configuration.md ("Mistakes"): exit 2, at most three lines, the
   variable named, no traceback; a misspelt variable warned with the closest name.
4. A folder of the user's own: 20 documents plus a `_` draft, a hidden file, a 2 MB log, a
   spreadsheet, a FIFO and a symbolic link loop; `DOCBOT_SOURCES` copied from the README's own
   example (with its `exclude`). `make run` must say it indexes the configured sources, skip and
   report the odd files (the 2 MB log by its size under DOCBOT_MAX_FILE_MB=1), never index the
   draft, and answer from the folder.

Non-interactive: questions are piped to the chat. `--venv` reuses an installed virtualenv (CI runs
right after `make test`); `--install` makes the clone install its own, as a newcomer's would, for
the clone-to-first-answer time. Prints each step's time and the README's line count.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLEAN = {k: v for k, v in os.environ.items()
         if not k.upper().startswith(("DOCBOT_", "SLACK_", "MICROSOFT_", "OPENAI_", "ELASTICSEARCH_"))}
failures: list[str] = []


def check(ok: bool, what: str, detail: str = "") -> None:
    print(("  ok    " if ok else "  FAIL  ") + what)
    if not ok:
        failures.append(what)
        if detail:
            print("        " + detail.replace("\n", "\n        ")[:3000])


def run(args: list[str], cwd: Path, env: dict | None = None, stdin: str = "", timeout: float = 1800):
    return subprocess.run(args, cwd=cwd, env={**CLEAN, "TERM": "dumb", "COLUMNS": "200", **(env or {})},
                          input=stdin, capture_output=True, text=True, timeout=timeout)


def make_run(clone: Path, venv: Path, env: dict, questions: list[str]):
    started = time.monotonic()
    # -o: a reused virtualenv counts as installed (the clone's fresh pyproject.toml would reinstall it)
    reuse = ["-o", f"{venv}/.installed"] if venv.parent != clone else []
    result = run(["make", "run", f"VENV={venv}", *reuse], clone, env, "\n".join(questions) + "\n")
    return result, time.monotonic() - started


def misconfigurations(clone: Path, docbot: str, data: Path) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = str(taken.getsockname()[1])
    cases = [
        ("DOCBOT_SOURCES with a trailing comma", ["status"], {"DOCBOT_SOURCES": '[{"path": "docs",}]'}, "column"),
        ("DOCBOT_SOURCES in single quotes", ["status"], {"DOCBOT_SOURCES": "[{'path': 'docs'}]"}, "DOCBOT_SOURCES"),
        ("DOCBOT_SOURCES as a plain path", ["status"], {"DOCBOT_SOURCES": "docs/team"}, "DOCBOT_SOURCES"),
        ("a mysql:// database", ["status"], {"DOCBOT_DATABASE_URL": "mysql://root@localhost/docbot"},
         "DOCBOT_DATABASE_URL"),
        ("an unreachable database", ["status"], {"DOCBOT_DATABASE_URL": "postgresql://u:pw@127.0.0.1:1/db",
                                                 "DOCBOT_RETRY_ATTEMPTS": "1"}, "DOCBOT_DATABASE_URL"),
        ("the port in use", ["serve"], {"DOCBOT_PORT": port}, "DOCBOT_PORT"),
        ("a Slack token without its secret", ["run"], {"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
        ("a Teams app id without its password", ["run"], {"MICROSOFT_APP_ID": "0" * 8}, "MICROSOFT_APP_PASSWORD"),
        ("Elasticsearch unreachable (status)", ["status"], {"DOCBOT_INDEX": "elasticsearch",
         "ELASTICSEARCH_URL": "http://127.0.0.1:1", "DOCBOT_RETRY_ATTEMPTS": "1"}, "ELASTICSEARCH_URL"),
        ("Elasticsearch unreachable (index)", ["index", "samples/handbook"], {"DOCBOT_INDEX": "elasticsearch",
         "ELASTICSEARCH_URL": "http://127.0.0.1:1", "DOCBOT_RETRY_ATTEMPTS": "1"}, "ELASTICSEARCH_URL"),
    ]
    try:
        for what, args, env, named in cases:
            result = run([docbot, *args], clone, {"DOCBOT_DATA_DIR": str(data), **env}, timeout=300)
            lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("warning:")]
            check(result.returncode == 2 and named in result.stderr and len(lines) <= 3
                  and "Traceback" not in result.stderr, f"{what}: exit 2, {named} named, {len(lines)} line(s)",
                  f"rc={result.returncode}\n{result.stderr}")
    finally:
        taken.close()
    result = run([docbot, "status"], clone, {"DOCBOT_DATA_DIR": str(data), "DOCBOT_TOPK": "3"}, timeout=300)
    check("did you mean DOCBOT_TOP_K?" in result.stderr, "a misspelt DOCBOT_TOPK is warned with the closest name",
          result.stderr)


def own_folder(base: Path) -> Path:
    """20 documents of the user's own (handbook copies stand in) and the odd files a real folder has."""
    folder = base / "team-docs"
    folder.mkdir()
    for path in sorted((ROOT / "samples" / "handbook").glob("*.md"))[:19]:
        shutil.copy(path, folder / path.name)
    (folder / "pr-approvals.md").write_text("# Pull request approvals\n\nEvery pull request needs two approvals "
                                            "from the owning team before it is merged.\n")
    (folder / "_salary-bands-draft.md").write_text("# Salary bands (draft)\n\nThe L5 salary band is DRAFT-SECRET-4711.\n")
    (folder / ".hidden.md").write_text("# Hidden\n\nHIDDEN-SECRET-0815\n")
    (folder / "_drafts").mkdir()
    (folder / "_drafts" / "plan.md").write_text("# Plan\n\nPLAN-SECRET-1234\n")
    line = "2026-12-01T10:00:00Z INFO api request served in 12 ms by worker 3 for tenant acme\n"
    (folder / "server.log.txt").write_text(line * (2 * 1024 * 1024 // len(line) + 1))
    (folder / "mockup.psd").write_bytes(b"PK\x03\x04 spreadsheet")
    os.mkfifo(folder / "pipe.md")
    os.symlink("loop.md", folder / "loop.md")
    return folder


def readme_sources(folder: Path) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    spec = json.loads(re.search(r"DOCBOT_SOURCES\b[^[\n]*?(\[\{[^\n]*?\}\])", readme).group(1))
    return json.dumps([{**spec[0], "path": str(folder), "include": ["*.md", "*.txt", "*.psd"]}])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv", help="an installed virtualenv to reuse")
    parser.add_argument("--install", action="store_true", help="let the clone install its own virtualenv")
    parser.add_argument("--keep", type=Path, help="work here and keep it (default: a temporary folder)")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="docbot-newcomer-"))
    base.mkdir(parents=True, exist_ok=True)
    clone = base / "docbot"
    t0 = time.monotonic()
    print("clone")
    check(run(["git", "clone", "--quiet", str(ROOT), str(clone)], base).returncode == 0, "git clone")
    venv = (clone / ".venv") if args.install else args.venv.resolve()
    docbot = str(venv / "bin" / "docbot")

    print("make run with nothing configured (the bundled handbook)")
    first, seconds = make_run(clone, venv, {}, ["연차는 1년에 며칠이야?"])
    out = first.stdout + first.stderr
    check(first.returncode == 0, "make run exits 0", out[-2000:])
    check("bundled sample handbook" in out, "it says it indexes the bundled sample handbook", out[-2000:])
    check("[1]" in first.stdout, "the first question gets a cited answer", first.stdout[-2000:])
    handbook_seconds = time.monotonic() - t0
    print(f"  clone to first answer on the bundled handbook: {handbook_seconds:.0f} s (make run {seconds:.0f} s)")

    print("misconfigurations")
    misconfigurations(clone, docbot, base / "data-misconfig")

    print("make run with your own folder")
    folder = own_folder(base)
    env = {"DOCBOT_SOURCES": readme_sources(folder), "DOCBOT_MAX_FILE_MB": "1"}
    t1 = time.monotonic()
    own, seconds = make_run(clone, venv, env, ["How many approvals does a pull request need?",
                                              "What is the L5 salary band?"])
    out = own.stdout + own.stderr
    check(own.returncode == 0, "make run exits 0", out[-3000:])
    check("indexing your configured sources: team" in out and "sample handbook" not in out,
          "it says it indexes the configured source, not the handbook", out[-3000:])
    for secret in ("DRAFT-SECRET", "HIDDEN-SECRET", "PLAN-SECRET"):
        check(secret not in own.stdout, f"{secret} (a draft or hidden file) is never quoted")
    check(re.search(r"server\.log\.txt: skipped: 2\.\d MB is over the 1 MB limit", own.stderr) is not None,
          "the 2 MB file is reported as skipped with its size", own.stderr[-3000:])
    check("pipe.md: skipped: not a regular file" in own.stderr, "the FIFO is reported, not waited on", own.stderr)
    check("loop.md: skipped: a symbolic link loop" in own.stderr, "the link loop is reported", own.stderr)
    check(".psd file(s), not a supported type" in own.stderr, "the image file is counted as skipped", own.stderr)
    check("two approvals" in own.stdout, "the folder's own document answers", own.stdout[-3000:])
    print(f"  first answer on a 20-file folder: {time.monotonic() - t1:.0f} s (make run {seconds:.0f} s)")
    print(f"README: {len((ROOT / 'README.md').read_text(encoding='utf-8').splitlines())} lines")
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    print("FAILED: " + "; ".join(failures) if failures else "all outcomes as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
