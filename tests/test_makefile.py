"""The Makefile a newcomer runs (issue 54, item 6): a venv made by one Python is rebuilt, and the rebuild said,
when `make run PYTHON=...` asks for another; otherwise the first Python sticks and every command fails the
same way until `make clean`. Real `make`, real interpreters; pip works offline (it only finds pip installed)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _identity(python: str) -> str:
    return subprocess.run([python, "-c", "import sys; print(sys.version.split()[0], sys.base_prefix)"],
                          capture_output=True, text=True, check=True).stdout.strip()


def _other_python() -> str | None:
    """An interpreter other than the one running the tests (another version or installation), with venv."""
    mine = _identity(sys.executable)
    for name in ("python3.12", "python3.11", "python3.13", "python3", "/usr/bin/python3", "/usr/local/bin/python3"):
        found = shutil.which(name)
        if not found:
            continue
        try:
            other = _identity(found)
            subprocess.run([found, "-c", "import venv, ensurepip"], check=True, capture_output=True)
        except (subprocess.CalledProcessError, OSError):
            continue
        if other != mine:
            return found
    return None


def make(*args: str) -> subprocess.CompletedProcess:
    """`make` in the checkout (its rules name pyproject.toml); the venv is the test's own, under VENV."""
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_a_venv_made_by_another_python_is_rebuilt_and_said(tmp_path):
    other = _other_python()
    if other is None:
        pytest.skip("only one Python interpreter on this machine")
    base = sys._base_executable if hasattr(sys, "_base_executable") else sys.executable
    venv = tmp_path / "venv"
    first = make(f"PYTHON={base}", f"VENV={venv}", f"{venv}/bin/python")
    assert first.returncode == 0, first.stdout + first.stderr
    assert _identity(str(venv / "bin" / "python")) == _identity(sys.executable)
    (venv / ".installed").touch()  # as if `make install` had run with the first Python

    # The install steps are redone too (dry run: nothing is installed offline), and the reason is said.
    planned = make("-n", f"PYTHON={other}", f"VENV={venv}", "install")
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert "pip install" in planned.stdout and f"{other} -m venv" in planned.stdout, planned.stdout

    second = make(f"PYTHON={other}", f"VENV={venv}", f"{venv}/bin/python")
    assert second.returncode == 0, second.stdout + second.stderr
    said = second.stdout + second.stderr
    assert "rebuilding" in said and _identity(sys.executable).split()[0] in said and other in said, said
    assert _identity(str(venv / "bin" / "python")) == _identity(other)
    assert not (venv / ".installed").exists()  # the old install is gone with the venv it was made in

    again = make(f"PYTHON={other}", f"VENV={venv}", f"{venv}/bin/python")
    assert "rebuilding" not in again.stdout + again.stderr and "is up to date" in again.stdout, again.stdout
