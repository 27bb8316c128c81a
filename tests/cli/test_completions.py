"""Committed shell completions match the CLI, and the bash one really completes."""
from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, bash_complete


def test_committed_completions_match_cli():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_completions.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_bash_completes_commands_options_and_choices():
    assert "find-coordinator" in bash_complete("fi")
    assert bash_complete("find-coordinator", "--fail") == ["--fail-on-mismatch"]
    assert bash_complete("find-coordinator", "-o", "j") == ["json"]


def test_every_command_is_in_every_script():
    import typer.main

    from kgroup.cli import app

    commands = typer.main.get_command(app).commands
    for name in ("kgroup.bash", "_kgroup", "kgroup.fish"):
        text = (ROOT / "completions" / name).read_text()
        for command in commands:
            assert command in text, (name, command)


def test_bash_completes_the_record_kinds_of_log_type():
    assert bash_complete("log", "--type", "") == ["offsets", "group", "consumer", "share", "streams", "regex",
                                                  "share-state"]
