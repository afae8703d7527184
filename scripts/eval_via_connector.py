"""Run `docbot eval` on an eval corpus twice, as a folder and served by the Google Drive stand-in, and compare
(issue 26: "the eval corpus served by a stand-in gives the same figures as the folder").

    .venv/bin/python scripts/eval_via_connector.py            # the handbook dev sets, as `make eval`
    .venv/bin/python scripts/eval_via_connector.py eval/dev.jsonl --docs samples/handbook --json /tmp/cmp.json

Every file below `--docs` is uploaded, at its relative path, into a folder shared with the stand-in's service
account (tests/gdrive_standin.py, imported here via sys.path: it is a test helper, not part of the package),
served over HTTP on loopback. Then `docbot eval SETS --docs FOLDER` and `docbot eval SETS` with DOCBOT_SOURCES
holding one `gdrive` source (service-account key file, folder id, `api_url` of the stand-in) run as
subprocesses, each with its own fresh DOCBOT_DATA_DIR and a scratch working directory (no stray .env).

Compared: every figure of each dataset's report except `latency_ms` (and except `per_turn`, whose answers
carry links that differ by design), and each turn's retrieved document list. Drive paths are the files'
paths below the shared folder, which are the folder's relative paths, so the mapping back is the identity
(as in tests/test_cli.py's google_drive test); a name that maps to no uploaded file stays as it is and so
shows up as a difference. Prints both reports' headline figures side by side and writes the whole
comparison as JSON. Exit 1 when anything differs (or a run fails).
"""
from __future__ import annotations

import argparse
import json
import mimetypes
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV_SETS = ("eval/conversations-dev.jsonl", "eval/intents-dev.jsonl", "eval/unanswerable-dev.jsonl",
            "eval/dev.jsonl")  # the Makefile's DEV_SETS
SAMPLES = "samples/handbook"  # the Makefile's SAMPLES
HEADLINE = ("turns", "retrieval.all.recall_at_k", "retrieval.all.mrr", "retrieval.followup.recall_at_k",
            "intent.accuracy", "answers.all.fact_shown", "answers.all.fact_leads", "not_found.false_answer_rate",
            "not_found.false_not_found_rate", "unnecessary_retrieval_rate")
IGNORED = ("latency_ms", "per_turn")


def flatten(value, prefix: str = "") -> dict:
    """Every leaf of a report as "a.b.c" -> value (lists kept whole)."""
    if isinstance(value, dict):
        out: dict = {}
        for key, sub in value.items():
            out.update(flatten(sub, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def figures(report: dict) -> dict:
    return flatten({k: v for k, v in report.items() if k not in IGNORED})


def by_dataset(payload: dict, sets: list[Path]) -> dict[str, dict]:
    return {sets[0].name: payload} if len(sets) == 1 else payload


def run_eval(docbot: Path, sets: list[Path], out: Path, env: dict, docs: Path | None) -> tuple[int, str]:
    cmd = [str(docbot), "eval", *map(str, sets), "--json", str(out)] + (["--docs", str(docs)] if docs else [])
    data = Path(tempfile.mkdtemp(prefix="docbot-eval-data-"))
    proc = subprocess.run(cmd, cwd=data, env={**env, "DOCBOT_DATA_DIR": str(data / "data")},
                          capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", type=Path, help="eval sets (default: the Makefile's DEV_SETS)")
    parser.add_argument("--docs", type=Path, default=ROOT / SAMPLES, help="the corpus folder (default: %(default)s)")
    parser.add_argument("--json", type=Path, default=Path("eval/report-via-connector.json"),
                        help="where to write the comparison (default: %(default)s)")
    parser.add_argument("--docbot", type=Path, default=Path(sys.executable).parent / "docbot",
                        help="the docbot command (default: the one next to this Python)")
    args = parser.parse_args()
    sets = [p.resolve() for p in (args.sets or [ROOT / s for s in DEV_SETS])]
    docs = args.docs.resolve()

    sys.path.insert(0, str(ROOT / "tests"))
    from gdrive_standin import DriveStandIn

    own = ("DOCBOT_SOURCES", "DOCBOT_DATA_DIR", "DOCBOT_DATABASE_URL")  # each run sets its own
    env = {k: v for k, v in os.environ.items() if k not in own}
    scratch = Path(tempfile.mkdtemp(prefix="eval-via-connector-"))
    files = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*") if p.is_file())
    folder_rc, folder_log = run_eval(args.docbot, sets, scratch / "folder.json", env, docs)
    drive = DriveStandIn().start()
    try:
        root = drive.share_folder(docs.name)
        for rel in files:
            mime = mimetypes.guess_type(rel)[0] or "application/octet-stream"
            drive.write(rel, (docs / rel).read_bytes(), root, mime)
        source = {"kind": "gdrive", "name": docs.name, "service_account_file": str(drive.key_file(scratch)),
                  "folder": root.id, "api_url": drive.api_url}
        drive_rc, drive_log = run_eval(args.docbot, sets, scratch / "drive.json",
                                       {**env, "DOCBOT_SOURCES": json.dumps([source])}, None)
        requests = len(drive.requests)
    finally:
        drive.close()
    if folder_rc or drive_rc:
        print(f"docbot eval failed (folder: exit {folder_rc}, drive: exit {drive_rc})\n{folder_log}\n{drive_log}")
        return 1

    to_folder = {rel: rel for rel in files}  # Drive path below the shared folder -> folder path: the identity
    folder_reports = by_dataset(json.loads((scratch / "folder.json").read_text()), sets)
    drive_reports = by_dataset(json.loads((scratch / "drive.json").read_text()), sets)
    indexed_all = f"{len(files)} added" in drive_log  # the Drive run indexed every file, not a part of them
    result: dict = {"command": shlex.join([sys.argv[0], *sys.argv[1:]]), "docs": str(docs), "files": len(files),
                    "drive_requests": requests, "datasets": {}}
    for name in folder_reports:
        a, b = figures(folder_reports[name]), figures(drive_reports.get(name, {}))
        differing = {key: {"folder": a.get(key), "drive": b.get(key)} for key in sorted(set(a) | set(b))
                     if a.get(key) != b.get(key)}
        turns_a = folder_reports[name]["per_turn"]
        turns_b = drive_reports.get(name, {}).get("per_turn", [])
        turn_diffs = [{"conversation": ta["conversation"], "turn": ta["turn"], "folder": ta["retrieved"],
                       "drive": [to_folder.get(d, d) for d in tb["retrieved"]]}
                      for ta, tb in zip(turns_a, turns_b)
                      if ta["retrieved"] != [to_folder.get(d, d) for d in tb["retrieved"]]]
        if len(turns_a) != len(turns_b):
            turn_diffs.append({"turn_count": {"folder": len(turns_a), "drive": len(turns_b)}})
        result["datasets"][name] = {
            "headline": {key: {"folder": a.get(key), "drive": b.get(key)} for key in HEADLINE if key in a},
            "figures_compared": len(set(a) | set(b)), "differing_figures": differing,
            "turns_compared": len(turns_a), "differing_turns": turn_diffs,
            "identical": not differing and not turn_diffs}
    result["drive_indexed_all_files"] = indexed_all
    result["identical"] = indexed_all and all(d["identical"] for d in result["datasets"].values())

    print(f"{len(files)} files from {docs} as a folder and through the Google Drive stand-in "
          f"({requests} Drive requests; the Drive run {'indexed all' if indexed_all else 'did NOT index all'} of them)")
    for name, d in result["datasets"].items():
        print(f"\n{name}: {'identical' if d['identical'] else 'DIFFERENT'} "
              f"({d['figures_compared']} figures, {d['turns_compared']} turns' retrieved lists compared)")
        print(f"  {'figure':40} {'folder':>10} {'drive':>10}")
        for key, pair in d["headline"].items():
            print(f"  {key:40} {pair['folder']!s:>10} {pair['drive']!s:>10}")
        for key, pair in d["differing_figures"].items():
            print(f"  differs: {key}: folder {pair['folder']} drive {pair['drive']}")
        for row in d["differing_turns"]:
            print(f"  differs: {row}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, ensure_ascii=False, indent=2))
    print(f"\n{'identical' if result['identical'] else 'NOT identical'}; comparison written to {args.json}")
    return 0 if result["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
