"""Benchmark: start-up of kgroup's offline commands and --help against `python -c 'import typer'`.

    python bench/startup_bench.py [--runs 41] [--importtime] [--readme]

Every command is a fresh process, timed end to end (process start to exit) with stdin,
stdout and stderr not a terminal (as in a pipe or a script); the commands take turns in
each round (interleaved), so that load on the machine hits all of them alike, and the
median of the runs is reported with its ratio to the median of the reference, a Python
that only imports typer (the CLI layer kgroup is built on). The commands that parse options
run twice per round: on kgroup's fast path (the default) and on plain Typer
(KGROUP_PLAIN_TYPER=1, what kgroup does with a Typer whose internals it does not know). Bytecode is written (the
warm-up round compiles kgroup's modules, as an installed package has them compiled). The goal: every row within
1.2x of the reference. With --importtime, the modules each command imports (python -X
importtime, cumulative microseconds, top 12) are printed too. With --readme the table also
replaces docs/benchmarks.md's startup-bench block.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from figures import measured_on, write_block  # noqa: E402

SNAPSHOT = "examples/seed-g1.json"

PLAIN_ENV = "KGROUP_PLAIN_TYPER"  # 1: plain Typer coerces every value (pydantic), see kgroup/cli/params.py
PLAIN = "(plain Typer)"
REFERENCE = ("python -c 'import typer'", ["-c", "import typer"])
COMMANDS = [
    ("kgroup --help", ["-m", "kgroup", "--help"]),
    ("kgroup whatif --help", ["-m", "kgroup", "whatif", "--help"]),
    ("kgroup find-coordinator --offline --offsets-partitions 50 G1",
     ["-m", "kgroup", "find-coordinator", "--offline", "--offsets-partitions", "50", "G1"]),
    ("kgroup find-coordinator --offline --offsets-partitions 50 G1 -o json",
     ["-m", "kgroup", "find-coordinator", "--offline", "--offsets-partitions", "50", "G1", "-o", "json"]),
    (f"kgroup describe --snapshot {SNAPSHOT}", ["-m", "kgroup", "describe", "--snapshot", SNAPSHOT]),
    (f"kgroup whatif --snapshot {SNAPSHOT} --remove C3 -o json",
     ["-m", "kgroup", "whatif", "--snapshot", SNAPSHOT, "--remove", "C3", "-o", "json"]),
    ("kgroup vote -m a=range,cooperative-sticky -m b=range", ["-m", "kgroup", "vote", "-m", "a=range,cooperative-sticky",
                                                             "-m", "b=range"]),
]
# variables that would change how help is rendered (see kgroup/cli/helptext.py)
RENDERING_ENV = ("COLUMNS", "TERMINAL_WIDTH", "FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TTY_COMPATIBLE",
                 "TTY_INTERACTIVE")


def run_once(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{args} exited {proc.returncode}: {proc.stderr.decode()[-2000:]}")
    return elapsed


def importtime(args: list[str], env: dict[str, str], top: int) -> str:
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.split("|")
            if not name.startswith("  "):  # top-level imports only
                rows.append((int(cumulative), name.strip()))
    rows.sort(reverse=True)
    return ", ".join(f"{name} {us / 1000:.1f} ms" for us, name in rows[:top])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=41, help="rounds; every command runs once per round")
    ap.add_argument("--importtime", action="store_true", help="also list each command's biggest imports")
    ap.add_argument("--readme", action="store_true", help="write the table into docs/benchmarks.md")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in RENDERING_ENV}
    env["PYTHONPATH"] = str(ROOT)  # this checkout's kgroup, wherever the package is installed from
    # the warm-up run writes kgroup's .pyc files, as installing a package does
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop(PLAIN_ENV, None)  # the default: the fast path
    plain_env = {**env, PLAIN_ENV: "1"}
    # (label, argv, env): every case on the default path, the commands that parse options also on plain Typer
    cases = [(label, argv, env) for label, argv in [REFERENCE, *COMMANDS]]
    cases += [(f"{label} {PLAIN}", argv, plain_env) for label, argv in COMMANDS if "--help" not in argv]
    for _, argv, case_env in cases:  # warm the file cache and the .pyc files
        run_once(argv, case_env)
    times: dict[str, list[float]] = {label: [] for label, _, _ in cases}
    for i in range(args.runs):
        order = cases if i % 2 == 0 else cases[::-1]  # alternate the order, so no case always runs first
        for label, argv, case_env in order:
            times[label].append(run_once(argv, case_env))
        print(f"round {i + 1}/{args.runs}", file=sys.stderr, end="\r", flush=True)
    print(file=sys.stderr)
    ref = statistics.median(times[REFERENCE[0]])
    lines = ["| command | median ms | min ms | ratio to `import typer` | plain Typer median ms | plain Typer ratio |",
             "|---|---|---|---|---|---|"]
    worst = worst_plain = 0.0
    for label, _ in [REFERENCE, *COMMANDS]:
        med = statistics.median(times[label])
        ratio = med / ref
        plain = f"{label} {PLAIN}"
        plain_cells = "- | -"
        if label != REFERENCE[0]:
            worst = max(worst, ratio)
        if plain in times:
            plain_med = statistics.median(times[plain])
            worst_plain = max(worst_plain, plain_med / ref)
            plain_cells = f"{plain_med * 1000:.0f} | {plain_med / ref:.2f}x"
        lines.append(f"| `{label}` | {med * 1000:.0f} | {min(times[label]) * 1000:.0f} | {ratio:.2f}x | {plain_cells} |")
    lines += ["", f"Median of {args.runs} interleaved rounds; slowest ratio to `import typer` (in the same run): "
              f"{worst:.2f}x (goal: at most 1.20x); on plain Typer ({PLAIN_ENV}=1, the path kgroup takes with a "
              f"Typer it does not know; `--help` is the stored text on both): {worst_plain:.2f}x. {measured_on()}"]
    table = "\n".join(lines)
    print(f"### kgroup start-up vs `python -c 'import typer'`\n\n{table}", flush=True)
    if args.readme:
        write_block("startup-bench", table)
    if args.importtime:
        print()
        for label, argv, case_env in cases:
            print(f"- `{label}`: {importtime(argv, case_env, 12)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
