"""Build the Teams app package (manifest.json + icons, zipped) for upload in Teams or the admin center.

    MICROSOFT_APP_ID=<your bot's app id> DOCBOT_PUBLIC_URL=https://docbot.yourcompany.com \
    DOCBOT_TEAMS_DEVELOPER="Your Company IT" DOCBOT_PRIVACY_URL=https://intranet.yourcompany.com/privacy \
    DOCBOT_TERMS_URL=https://intranet.yourcompany.com/terms python scripts/build_teams_package.py [--out ...]

The privacy and terms links are your organisation's own pages (docbot serves none). The bot's
command hints are the configured suggested prompts (DOCBOT_SLACK_SUGGESTED_PROMPTS: title and
message), or one generic hint when none are configured, never the sample handbook's questions.

Placeholders in deploy/teams/manifest.json (${NAME}) are filled from the environment (or
.env); every one is required, so no placeholder such as example.com ever ships in a package
that Teams would show to users. The icons are drawn here (a 192x192 colour icon and a
32x32 transparent outline).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import struct
import sys
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIRED = {
    "MICROSOFT_APP_ID": "your bot's Microsoft app id",
    "DOCBOT_PUBLIC_URL": "the https address docbot is served at (the app's website link)",
    "DOCBOT_TEAMS_DEVELOPER": "the developer name Teams shows, e.g. your company or IT team",
    "DOCBOT_PRIVACY_URL": "your organisation's privacy statement (https)",
    "DOCBOT_TERMS_URL": "your organisation's terms of use (https)",
}
GENERIC_HINT = {"title": "Ask a question", "description": "Ask about your organisation's documents"}


def commands(env: dict) -> list[dict]:
    """Command hints from the configured suggested prompts (Teams: at most 10, titles of 32 characters,
    descriptions of 128)."""
    raw = env.get("DOCBOT_SLACK_SUGGESTED_PROMPTS")
    try:
        prompts = json.loads(raw) if raw else []
    except json.JSONDecodeError as exc:
        raise SystemExit(f"DOCBOT_SLACK_SUGGESTED_PROMPTS is not valid JSON: {exc}")
    hints = [{"title": str(p["title"])[:32], "description": str(p["message"])[:128]}
             for p in prompts if isinstance(p, dict) and p.get("title") and p.get("message")]
    return hints[:10] or [GENERIC_HINT]


def png(size: int, pixel) -> bytes:
    """A PNG of size x size RGBA pixels, pixel(x, y) -> (r, g, b, a)."""
    rows = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(size)) for y in range(size))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def color_icon(x: int, y: int):
    """A navy square with a white page in the middle."""
    inside = 56 <= x < 136 and 40 <= y < 152
    line = inside and 64 <= x < 128 and y in range(64, 136, 16) and (y % 16) < 4
    return (0x1D, 0x35, 0x57, 255) if not inside or line else (255, 255, 255, 255)


def outline_icon(x: int, y: int):
    """A white page outline on transparent, as Teams requires."""
    edge = (x in (8, 23) and 4 <= y <= 27) or (y in (4, 27) and 8 <= x <= 23)
    return (255, 255, 255, 255) if edge else (0, 0, 0, 0)


def manifest(env: dict) -> dict:
    """The manifest with ${NAME} filled in; any missing setting is an error naming it."""
    missing = [f"{name} ({why})" for name, why in REQUIRED.items() if not env.get(name)]
    if missing:
        raise SystemExit("set " + "; ".join(missing))
    for name in ("DOCBOT_PUBLIC_URL", "DOCBOT_PRIVACY_URL", "DOCBOT_TERMS_URL"):
        if not env[name].startswith("https://"):
            raise SystemExit(f"{name} must be an https:// address (Teams rejects others)")
    text = (ROOT / "deploy" / "teams" / "manifest.json").read_text(encoding="utf-8")
    filled = re.sub(r"\$\{(\w+)\}", lambda m: json.dumps(env[m.group(1)].rstrip("/"))[1:-1], text)
    data = json.loads(filled)
    for bot in data["bots"]:
        for listing in bot.get("commandLists", []):
            listing["commands"] = commands(env)
    return data


def dotenv(path: Path) -> dict:
    """KEY=value lines of a .env file (comments and blank lines skipped), so make teams-package reads it too."""
    if not path.exists():
        return {}
    pairs = (line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines()
             if "=" in line and not line.lstrip().startswith("#"))
    return {k.strip(): v.strip().strip('"').strip("'") for k, v in pairs}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "docbot-teams.zip")
    args = parser.parse_args()
    data = manifest({**dotenv(Path.cwd() / ".env"), **os.environ})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("manifest.json", json.dumps(data, ensure_ascii=False, indent=2))
        package.writestr("color.png", png(192, color_icon))
        package.writestr("outline.png", png(32, outline_icon))
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
