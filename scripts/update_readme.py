"""Keep the example outputs of the README and of docs/commands/*.md true: every block introduced by a line

    <!-- output: kgroup ARGS -->

is followed by a ```console block holding ``$ kgroup ARGS`` and what that command prints
(stdout) when run from the repository root; every block introduced by

    <!-- json: kgroup ARGS -->

is followed by a ```json block holding the JSON document that command prints, indented by two
spaces (ARGS include ``-o json``). Only offline commands (snapshots, --offline, --input files)
are used, so the outputs are reproducible.

    python scripts/update_readme.py           # rewrite the blocks
    python scripts/update_readme.py --check   # exit 1 if any block is stale
"""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"(<!-- output: kgroup (?P<args>.*?) -->\n)```console\n.*?```\n", re.S)
JSON_MARKER = re.compile(r"(<!-- json: kgroup (?P<args>.*?) -->\n)```json\n.*?```\n", re.S)


def run(args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "kgroup", *shlex.split(args)], capture_output=True, text=True,
                          cwd=ROOT, env={"PATH": "/usr/bin:/bin", "COLUMNS": "200"})
    return proc.stdout


def render(text: str) -> str:
    text = MARKER.sub(lambda m: f"{m.group(1)}```console\n$ kgroup {m.group('args')}\n{run(m.group('args'))}```\n",
                      text)
    return JSON_MARKER.sub(
        lambda m: f"{m.group(1)}```json\n{json.dumps(json.loads(run(m.group('args'))), indent=2)}\n```\n", text)


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs" / "commands").glob("*.md"))]


def main() -> int:
    stale = []
    for path in pages():
        text = path.read_text()
        new = render(text)
        if new != text:
            stale.append(path.relative_to(ROOT))
            if "--check" not in sys.argv:
                path.write_text(new)
    if stale and "--check" in sys.argv:
        print(f"example outputs are stale in {', '.join(map(str, stale))}: run python scripts/update_readme.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
