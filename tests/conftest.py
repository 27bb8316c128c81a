"""Shared fixtures: real broker processes and running kgroup as a user would."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def run_kgroup(*args: str, env: dict | None = None, timeout: float = 60, input: str | None = None) -> Result:
    """Run kgroup in a subprocess, exactly as a user would (python -m kgroup)."""
    full_env = {k: v for k, v in os.environ.items() if k != "KGROUP_BOOTSTRAP_SERVERS"}
    full_env.update({"PYTHONUNBUFFERED": "1", **(env or {})})
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "kgroup", *args], capture_output=True, text=True,
                          env=full_env, timeout=timeout, input=input, cwd=ROOT)
    return Result(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)


def free_port() -> int:
    from brokers import free_port as _free

    return _free()


@pytest.fixture(scope="session")
def tansu():
    """A real Tansu broker process on a free loopback port, stopped by PID."""
    from brokers import start_tansu, stop_process

    proc, bootstrap = start_tansu()
    try:
        yield bootstrap
    finally:
        stop_process(proc)


@pytest.fixture(scope="session")
def mock_cluster():
    """librdkafka's mock cluster: 3 brokers, with a 4-partition __consumer_offsets topic
    so that partition leaders exist to compare with the mock's FindCoordinator answers."""
    from brokers import MockCluster

    cluster = MockCluster(brokers=3, offsets_topic=True)
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(scope="session")
def seed_group(tansu):
    """The seed scenario live on Tansu: Order (7) and Stock (5), group G1 with C1, C2, C3
    (range), committed offsets from seed.committed(); yields the LiveGroup."""
    import seed

    seed.create_topics(tansu)
    seed.produce(tansu)
    group = seed.LiveGroup(tansu, "G1").start()
    group.commit_seed_offsets()
    try:
        yield group
    finally:
        group.stop()


def bash_complete(*words: str) -> list[str]:
    """What the committed bash completion offers after ``kgroup WORDS...``."""
    script = (f"source {ROOT / 'completions' / 'kgroup.bash'}\n"
              f"COMP_WORDS=(kgroup {' '.join(words)}); COMP_CWORD={len(words)}\n"
              "_kgroup; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout.split()
