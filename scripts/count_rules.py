"""Count the product's regular expressions and their alternatives (issue 51 item 7: the rule count must go down).

    python scripts/count_rules.py [--rev REV]

Counts every `re.compile(...)` / `re.search|match|sub|findall|split(...)` whose pattern is a string literal (or
a concatenation of literals) in the Python files under rag/, and the alternatives each has (`|` outside a
character class, plus one). With --rev, reads the files as they were at that git revision.
"""
from __future__ import annotations

import argparse
import ast
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}


def _literal(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def alternatives(pattern: str) -> int:
    count, depth_class, escaped = 1, False, False
    for ch in pattern:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "[":
            depth_class = True
        elif ch == "]":
            depth_class = False
        elif ch == "|" and not depth_class:
            count += 1
    return count


def count(sources: dict[str, str]) -> tuple[int, int]:
    patterns = alts = 0
    for text in sources.values():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CALLS \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args:
                pattern = _literal(node.args[0])
                if pattern is not None:
                    patterns += 1
                    alts += alternatives(pattern)
    return patterns, alts


def sources_at(rev: str | None) -> dict[str, str]:
    if rev is None:
        return {str(p): p.read_text(encoding="utf-8") for p in (ROOT / "rag").rglob("*.py")}
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "rag"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    return {n: subprocess.run(["git", "show", f"{rev}:{n}"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout for n in names if n.endswith(".py")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="a git revision to count instead of the working tree")
    args = parser.parse_args()
    patterns, alts = count(sources_at(args.rev))
    print(f"{args.rev or 'working tree'}: {patterns} regular expressions, {alts} alternatives under rag/")


if __name__ == "__main__":
    main()
