"""The product installs and runs from its declared dependencies alone (issue 54; `.ci/run` runs it first).

    python scripts/check_install.py [--keep DIR] [--only readme|docker]

`make test` installs the test extras, so it cannot see a module that only a test tool brings. This
copies the tracked files of the checkout into a temporary folder and builds two fresh venvs there,
each exactly as its user's path does, with no extras:

- readme: `make install` (the install `make run` runs: `pip install -c requirements.lock -e .`);
- docker: the Dockerfile's own `RUN pip install ...` line, read from the Dockerfile, so the image's
  install is checked on machines without a Docker engine.

In each venv it imports every product module, runs `docbot --help`, `docbot index` on the bundled
handbook and a piped `docbot chat` question, and checks that a cited answer comes back. Exit 0 when
all pass, 1 with the failing step's output otherwise.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("docbot", "bot", "rag", "adapters")
# Settings from the caller's environment would make this a different install's check.
CLEAN = {k: v for k, v in os.environ.items()
         if not k.upper().startswith(("DOCBOT_", "SLACK_", "MICROSOFT_", "OPENAI_", "ELASTICSEARCH_", "VIRTUAL_ENV"))}
IMPORT_ALL = """
import importlib, pkgutil, sys
failed = []
for top in {product!r}:
    package = importlib.import_module(top)
    for info in pkgutil.walk_packages(package.__path__, top + "."):
        # Alembic's env and revision files are loaded by Alembic itself; `__main__` runs the CLI when imported.
        if ".migrations." in info.name or info.name.endswith(".__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except Exception as exc:
            failed.append(f"{{info.name}}: {{type(exc).__name__}}: {{exc}}")
print("\\n".join(failed))
sys.exit(1 if failed else 0)
"""


class Failed(Exception):
    pass


def step(what: str, args: list[str], cwd: Path, env: dict | None = None, stdin: str = "") -> str:
    started = time.monotonic()
    result = subprocess.run(args, cwd=cwd, env={**CLEAN, "TERM": "dumb", **(env or {})}, input=stdin,
                            capture_output=True, text=True, timeout=3600)
    print(f"  {'ok  ' if result.returncode == 0 else 'FAIL'}  {what} ({time.monotonic() - started:.0f} s)", flush=True)
    if result.returncode != 0:
        raise Failed(f"{what}: exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result.stdout


def copy_checkout(dest: Path) -> None:
    """The tracked files as they are in the working tree (uncommitted edits included), nothing else."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def dockerfile_install(dockerfile: Path) -> list[str]:
    """The `pip install` of the Dockerfile's RUN lines, as words (continuations joined)."""
    text = re.sub(r"\\\n", " ", dockerfile.read_text(encoding="utf-8"))
    for line in text.splitlines():
        if line.startswith("RUN ") and " install " in line and "pip" in line.split()[1]:
            return shlex.split(line[4:])
    raise Failed("no `RUN pip install` line in the Dockerfile")


def smoke(venv: Path, work: Path, label: str) -> None:
    """Every module imports; --help, index and a piped chat work from this venv alone."""
    bin_ = venv / "bin"
    data = work / f"data-{label}"
    env = {"DOCBOT_DATA_DIR": str(data), "PATH": f"{bin_}:{CLEAN.get('PATH', '')}"}
    step(f"{label}: import every product module", [str(bin_ / "python"), "-c", IMPORT_ALL.format(product=PRODUCT)],
         work, env)
    step(f"{label}: docbot --help", [str(bin_ / "docbot"), "--help"], work, env)
    step(f"{label}: docbot index (bundled handbook)", [str(bin_ / "docbot"), "index"], work, env)
    out = step(f"{label}: docbot chat, piped", [str(bin_ / "docbot"), "chat"], work, env,
               stdin="연차는 1년에 며칠이야?\n")
    if "[1]" not in out:
        raise Failed(f"{label}: the piped chat gave no cited answer:\n{out[-2000:]}")


def readme_path(work: Path) -> None:
    """`make run`'s install: the Makefile's own target in a fresh venv."""
    venv = work / ".venv"
    step("readme: make install (fresh venv, no extras)", ["make", "install", f"PYTHON={sys.executable}"], work)
    smoke(venv, work, "readme")


def docker_path(work: Path) -> None:
    """The Dockerfile's install line, run from the checkout copy as the image's WORKDIR would be."""
    venv = work / ".venv-docker"
    step("docker: python -m venv", [sys.executable, "-m", "venv", str(venv)], work)
    words = dockerfile_install(work / "Dockerfile")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--quiet"] + words[words.index("install"):]
    step("docker: " + " ".join(words), pip, work)
    smoke(venv, work, "docker")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--only", choices=["readme", "docker"])
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="docbot-install-"))
    try:
        copy_checkout(work)
        for name, check in (("readme", readme_path), ("docker", docker_path)):
            if args.only in (None, name):
                check(work)
    except Failed as exc:
        print(f"install check failed: {exc}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("install check: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
