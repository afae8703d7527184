"""Build the Teams app package (manifest.json + icons, zipped) for upload in Teams or the admin center.

    MICROSOFT_APP_ID=<your bot's app id> python scripts/build_teams_package.py [--out build/docbot-teams.zip]

Placeholders in deploy/teams/manifest.json (${NAME}) are filled from the environment;
the icons are drawn here (a 192x192 colour icon and a 32x32 transparent outline).
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
DEFAULTS = {"DOCBOT_TEAMS_DEVELOPER": "docbot", "DOCBOT_PUBLIC_URL": "https://docbot.example.com"}


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
    """The manifest with ${NAME} filled in; a missing app id is an error."""
    if not env.get("MICROSOFT_APP_ID"):
        raise SystemExit("set MICROSOFT_APP_ID to your bot's Microsoft app id")
    text = (ROOT / "deploy" / "teams" / "manifest.json").read_text(encoding="utf-8")
    filled = re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1)) or DEFAULTS.get(m.group(1), ""), text)
    return json.loads(filled)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "docbot-teams.zip")
    args = parser.parse_args()
    data = manifest(dict(os.environ))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("manifest.json", json.dumps(data, ensure_ascii=False, indent=2))
        package.writestr("color.png", png(192, color_icon))
        package.writestr("outline.png", png(32, outline_icon))
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
