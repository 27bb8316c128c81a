"""The README's example outputs are what kgroup prints today, and its commands are real."""
from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT


def test_readme_examples_are_current():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "update_readme.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_readme_starts_with_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    first_block = re.search(r"```sh\n(.*?)```", readme, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines() if line.strip()]
    assert commands == ["make demo", "make test"]
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_every_file_the_docs_name_exists():
    """The README's layout and guarantees, the docs and the changelog name test files and
    modules by path: each must exist (tests move between layers; the docs must follow)."""
    names = set()
    for doc in [ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").rglob("*.md")]:
        names |= set(re.findall(r"(?:tests|kgroup|bench|scripts)/[A-Za-z0-9_/]+\.(?:py|c|java)", doc.read_text()))
    missing = sorted(n for n in names if not (ROOT / n).exists())
    assert not missing, missing


def test_every_shown_output_is_replayed_by_the_update_script():
    """In the README and the command pages, a ```console or ```json block is output, so it must
    sit under an ``<!-- output: ... -->`` or ``<!-- json: ... -->`` marker (which
    scripts/update_readme.py --check replays); a fence names its kind (sh for commands to type,
    text for shapes and for the one live sample that cannot be replayed)."""
    unmarked = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs" / "commands").glob("*.md"))]:
        lines = page.read_text().splitlines()
        inside = False
        for i, line in enumerate(lines):
            if not line.startswith("```"):
                continue
            if inside:
                inside = False
                continue
            inside = True
            kind = line[3:].strip()
            before = lines[i - 1] if i else ""
            if kind == "console" and not before.startswith("<!-- output: kgroup "):
                unmarked.append(f"{page.name}:{i + 1}")
            elif kind == "json" and not before.startswith("<!-- json: kgroup "):
                unmarked.append(f"{page.name}:{i + 1}")
            elif kind not in ("console", "json", "sh", "text"):
                unmarked.append(f"{page.name}:{i + 1} ({kind or 'no kind'})")
    assert not unmarked, unmarked
