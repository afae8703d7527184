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


def test_the_image_runs_as_a_user_and_compose_publishes_on_loopback_without_clashing():
    dockerfile = (ROOT / "Dockerfile").read_text()
    users = [line.split()[1] for line in dockerfile.splitlines() if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    compose = (ROOT / "docker-compose.yml").read_text()
    ports = re.findall(r'ports: \["([^"]+)"\]', compose)
    assert ports and all(p.startswith("127.0.0.1:") for p in ports)
    assert not any(p.split(":")[1] in ("5432", "9200") for p in ports)  # local servers keep their ports
    assert "elasticsearch-plugin install" not in compose  # not at every container creation ...
    assert "analysis-nori" in (ROOT / "deploy" / "elasticsearch" / "Dockerfile").read_text()  # ... but built in


def test_the_readmes_include_example_reads_every_format_docbot_reads():
    """Copying the README's `"include": [...]` must not leave a supported format out silently (issue 54, item 3)."""
    import fnmatch
    import json

    from rag.ingest.loaders import LOADERS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"DOCBOT_SOURCES='(\[.*\])'", readme)
    assert example
    include = json.loads(example.group(1))[0]["include"]
    assert sorted(ext for ext in LOADERS if not any(fnmatch.fnmatch(f"a{ext}", g) for g in include)) == []
