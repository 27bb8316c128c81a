"""Repository hygiene: nothing that setup installs (virtualenv, jars, caches) is tracked."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout")
def test_no_tracked_file_is_under_an_ignored_path():
    out = subprocess.run(["git", "ls-files", "-ci", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert out == "", f"tracked files that .gitignore excludes:\n{out}"


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout")
def test_no_binary_or_jar_is_tracked():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    bad = [f for f in files if f.endswith((".jar", ".pyc", ".whl", ".so", ".class"))
           or f.startswith((".venv/", ".cache/"))]
    assert bad == []
