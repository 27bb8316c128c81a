"""Repository hygiene: nothing that setup installs (virtualenv, jars, caches) is tracked."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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


def test_demo_does_not_fetch_the_kafka_clients_jar():
    """Only the tests and benchmarks use the kafka-clients jar: the set-up shared with `make demo`
    does not download it, `make test` does."""
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert all("fetch_kafka_clients" not in line for line in setup.splitlines() if not line.lstrip().startswith("#"))
    targets: dict[str, list[str]] = {}
    current = None
    for line in (ROOT / "Makefile").read_text().splitlines():
        if line and not line[0].isspace() and ":" in line and not line.startswith((".", "#")):
            current = line.split(":")[0]
            targets[current] = [line]
        elif current:
            targets[current].append(line)
    assert not any("fetch_kafka_clients" in line for line in targets["demo"])
    assert any("fetch_kafka_clients" in line for line in targets["test"])
