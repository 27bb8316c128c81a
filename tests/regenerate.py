"""Vectors regenerated from Kafka's sources, for the tests that hold committed vectors to their
generator. Opt-in: KGROUP_KAFKA_GIT names a Kafka git directory holding the vectors' revision (a
fresh clone has none: the committed vectors are what the suite checks)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def regenerate(script: str, out: Path, *args: str) -> Path:
    """Run scripts/``script`` with ``--kafka-git`` KGROUP_KAFKA_GIT, ``args`` and ``--out out``;
    the test is skipped where KGROUP_KAFKA_GIT is not set."""
    kafka_git = os.environ.get("KGROUP_KAFKA_GIT")
    if not kafka_git:
        pytest.skip("KGROUP_KAFKA_GIT (a Kafka git directory holding the vectors' revision) is not set")
    subprocess.run([sys.executable, str(ROOT / "scripts" / script), "--kafka-git", kafka_git, *args,
                    "--out", str(out)], check=True, capture_output=True)
    return out
