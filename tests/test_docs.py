"""The README a newcomer reads: every file it links or names exists in the repository."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_relative_link_in_the_readme_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = [target for target in re.findall(r"\]\(([^)#]+)\)", readme) if "://" not in target]
    assert links and [link for link in links if not (ROOT / link).exists()] == []


def test_the_files_the_readme_names_in_backquotes_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:eval|scripts|deploy|tests|rag|bot|adapters)/[\w./-]+\.\w+)`", readme))
    assert named and sorted(p for p in named if not (ROOT / p).exists()) == []
