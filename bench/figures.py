"""What every benchmark shares when it publishes its figures: the machine it ran on, and the
rewrite of its own block of a Markdown file (docs/benchmarks.md, docs/scan.md) between its markers

    <!-- NAME -->
    ...what the benchmark wrote last...
    <!-- /NAME -->

Each benchmark owns one or more NAMEs; with ``--readme`` it replaces what lies between them
(and only that) with the table it just measured.
"""
from __future__ import annotations

import os
import platform
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "docs" / "benchmarks.md"  # where the figures live


class MarkerError(ValueError):
    """The markers of a block are missing, repeated or out of order."""


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name} -->", f"<!-- /{name} -->"


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with what lies between the markers of ``name`` replaced by ``body``; everything
    else unchanged. Refuses (MarkerError) unless each marker occurs exactly once, begin first."""
    begin, end = markers(name)
    for marker in (begin, end):
        count = text.count(marker)
        if count != 1:
            raise MarkerError(f"{marker} occurs {count} times (expected once)")
    start, stop = text.index(begin) + len(begin), text.index(end)
    if stop < start:
        raise MarkerError(f"{end} comes before {begin}")
    return text[:start] + "\n" + body.strip("\n") + "\n" + text[stop:]


def write_block(name: str, body: str, path: Path = BENCHMARKS) -> None:
    """Replace the block ``name`` of ``path`` (default docs/benchmarks.md) with ``body``."""
    text = path.read_text(encoding="utf-8")
    path.write_text(replace_block(text, name, body), encoding="utf-8")
    print(f"wrote {name} into {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def cpu(cpuinfo: str | None = None) -> tuple[str, int]:
    """(CPU model, logical cores) from /proc/cpuinfo, or what the platform says without it."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            cpuinfo = ""
    model, cores = None, 0
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "processor":
            cores += 1
        elif key in ("model name", "Model", "cpu model") and model is None and value.strip():
            model = value.strip()
    return model or platform.processor() or platform.machine() or "unknown CPU", cores or os.cpu_count() or 0


def machine(cpuinfo: str | None = None) -> str:
    """The machine a run was measured on, for the line under its table."""
    model, cores = cpu(cpuinfo)
    return f"{model}, {cores} cores, {platform.machine()}, Python {platform.python_version()}"


def measured_on(cpuinfo: str | None = None) -> str:
    return f"Measured on: {machine(cpuinfo)}."
