"""The whole suite, N times in a row, on a clean clone, beside K busy processes (the CPU load a shared CI
runner or a busy laptop puts on it).

    python scripts/loaded_suite.py                          # this checkout's HEAD, 10 runs, 2 busy processes
    python scripts/loaded_suite.py --commit main --runs 10 --busy 2 --out build/loaded
    python scripts/loaded_suite.py --runs 2 --pytest-args "tests/test_inbound.py"   # the harness, quickly

Clones --repo (default: this checkout) at --commit into a temporary folder, runs `make install-test` there
once, starts K busy loops (`python -c` processes spinning on a CPU each), then runs `make test` N times one
after another. Every run is made, whatever the earlier ones did. Each run's pass/fail counts, failing test
ids, duration and the 1-minute load average (sampled every few seconds while it ran) go into
<out>/loaded-suite.json and <out>/loaded-suite.md (rewritten after every run, so an interrupted session
still leaves its runs), with the commit and the CPU model; each run's output in <out>/run-<n>.log.
The busy processes and a running `make test` are stopped by their process ids on the way out, Ctrl-C
included. --pytest-args reaches pytest through PYTEST_ADDOPTS (`make test` itself is unchanged).
Exit status 0 when every run passed.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_SECONDS = 5.0  # how often the load average is read during a run
BUSY_LOOP = "while True: pass"
# pytest's last line: "3 failed, 1290 passed, 7 skipped, 38 warnings in 1233.82s (0:20:33)"
_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b")
_FAILED = re.compile(r"^(FAILED|ERROR) (\S+)")


@dataclass
class Run:
    n: int
    exit_code: int | None = None
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    failing: list[str] = field(default_factory=list)
    seconds: float = 0.0
    load_1min: dict = field(default_factory=dict)  # min, mean, max of the samples, and how many

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.failed == 0 and self.errors == 0


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def resolve(repo: str, commit: str) -> str:
    """The full hash of `commit` in `repo` (a path or URL `git clone` accepts)."""
    if Path(repo).is_dir():
        return subprocess.run(["git", "-C", repo, "rev-parse", "--verify", f"{commit}^{{commit}}"], check=True,
                              capture_output=True, text=True).stdout.strip()
    out = subprocess.run(["git", "ls-remote", repo, commit], check=True, capture_output=True, text=True).stdout
    return out.split()[0] if out.strip() else commit


def parse(output: str, run: Run) -> None:
    """Counts from pytest's summary line and the failing ids from its short summary (FAILED/ERROR lines)."""
    summary = next((line for line in reversed(output.splitlines()) if _COUNT.search(line) and " in " in line), "")
    for number, kind in _COUNT.findall(summary):
        if kind == "passed":
            run.passed = int(number)
        elif kind == "failed":
            run.failed = int(number)
        elif kind.startswith("error"):
            run.errors = int(number)
        elif kind == "skipped":
            run.skipped = int(number)
    run.failing = [m.group(2) for line in output.splitlines() if (m := _FAILED.match(line))]


class LoadSampler(threading.Thread):
    """Reads the 1-minute load average every SAMPLE_SECONDS until stopped."""

    def __init__(self):
        super().__init__(daemon=True)
        self.samples: list[float] = []
        self.done = threading.Event()

    def run(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self.done.wait(SAMPLE_SECONDS):
                return

    def stop(self) -> dict:
        self.done.set()
        self.join()
        s = self.samples
        return {"min": round(min(s), 2), "mean": round(sum(s) / len(s), 2), "max": round(max(s), 2),
                "samples": len(s)} if s else {}


def stop_pids(pids: list[int]) -> None:
    """SIGTERM, then SIGKILL for whatever is still there: each by its own process id (a run's `make test`
    by its process group, which it leads: pytest and the servers it started go with it)."""
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
    deadline = time.monotonic() + 10
    for pid in pids:
        while time.monotonic() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    break
            except ChildProcessError:
                break
            time.sleep(0.1)
        else:
            try:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def write(out: Path, meta: dict, runs: list[Run]) -> None:
    data = {**meta, "runs": [{**asdict(r), "ok": r.ok} for r in runs],
            "passed_runs": sum(r.ok for r in runs), "failed_runs": sum(not r.ok for r in runs)}
    (out / "loaded-suite.json").write_text(json.dumps(data, indent=2) + "\n")
    lines = [f"# make test ×{meta['runs_planned']} beside {meta['busy']} busy processes",
             "", f"- commit: `{meta['commit']}` ({meta['repo']})", f"- CPU: {meta['cpu']} ({meta['cpus']} logical CPUs)",
             f"- pytest args: `{meta['pytest_args'] or '(none)'}`", f"- started: {meta['started']}",
             f"- runs passed: {data['passed_runs']} of {len(runs)} made", "",
             "| run | result | passed | failed | errors | skipped | minutes | load 1 min (min / mean / max) | failing |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        load = r.load_1min
        shown = f"{load['min']:.2f} / {load['mean']:.2f} / {load['max']:.2f}" if load else "-"
        failing = "<br>".join(f"`{t}`" for t in r.failing) or "-"
        lines.append(f"| {r.n} | {'pass' if r.ok else 'FAIL'} | {r.passed} | {r.failed} | {r.errors} | {r.skipped} | "
                     f"{r.seconds / 60:.1f} | {shown} | {failing} |")
    (out / "loaded-suite.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default=str(ROOT), help="what to clone (path or URL); default: this checkout")
    parser.add_argument("--commit", default="HEAD", help="commit, branch or tag to test (default: HEAD)")
    parser.add_argument("--runs", type=int, default=10, help="how many times `make test` runs (default: 10)")
    parser.add_argument("--busy", type=int, default=2, help="busy processes beside the suite (default: 2)")
    parser.add_argument("--pytest-args", default="", help="passed to pytest through PYTEST_ADDOPTS, e.g. a test file")
    parser.add_argument("--out", type=Path, default=Path("loaded-suite"), help="where the summary and logs go")
    parser.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.busy < 0:
        parser.error("--runs must be at least 1 and --busy not negative")

    commit = resolve(args.repo, args.commit)
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out.resolve()
    meta = {"repo": args.repo, "commit": commit, "cpu": cpu_model(), "cpus": os.cpu_count(), "busy": args.busy,
            "runs_planned": args.runs, "pytest_args": args.pytest_args,
            "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    signal.signal(signal.SIGTERM, _interrupted)  # ends the session like Ctrl-C: through the finally below
    workdir = Path(tempfile.mkdtemp(prefix="docbot-loaded-"))
    clone = workdir / "docbot"
    busy: list[int] = []
    current: list[int] = []
    runs: list[Run] = []
    try:
        subprocess.run(["git", "clone", "--quiet", "--no-checkout", args.repo, str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", "--detach", commit], check=True)
        print(f"clone: {clone} at {commit[:12]}; make install-test ...", flush=True)
        with open(out / "install.log", "w") as log:
            if subprocess.run(["make", "install-test"], cwd=clone, stdout=log, stderr=subprocess.STDOUT).returncode:
                print(f"make install-test failed: see {out / 'install.log'}", file=sys.stderr)
                return 2
        for _ in range(args.busy):
            busy.append(subprocess.Popen([sys.executable, "-c", BUSY_LOOP], start_new_session=True).pid)
        print(f"busy processes: {busy}", flush=True)
        env = {**os.environ, "PYTEST_ADDOPTS": args.pytest_args}
        for n in range(1, args.runs + 1):
            run, sampler, started = Run(n), LoadSampler(), time.monotonic()
            sampler.start()
            with open(out / f"run-{n}.log", "w+") as log:
                proc = subprocess.Popen(["make", "test"], cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
                current[:] = [proc.pid]
                run.exit_code = proc.wait()
                current.clear()
                log.seek(0)
                parse(log.read(), run)
            run.seconds, run.load_1min = round(time.monotonic() - started, 1), sampler.stop()
            runs.append(run)
            write(out, meta, runs)
            print(f"run {n}/{args.runs}: {'pass' if run.ok else 'FAIL'} ({run.passed} passed, {run.failed} failed, "
                  f"{run.errors} errors) in {run.seconds / 60:.1f} min, load {run.load_1min.get('mean', '-')}",
                  flush=True)
    except KeyboardInterrupt:
        print("interrupted: stopping the busy processes and the running suite", file=sys.stderr)
    finally:
        stop_pids(current + busy)
        if args.keep:
            print(f"clone kept: {clone}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    write(out, meta, runs)
    print(f"summary: {out / 'loaded-suite.md'}")
    return 0 if len(runs) == args.runs and all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
