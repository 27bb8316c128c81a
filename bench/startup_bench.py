"""Benchmark: start-up of kgroup's offline commands and --help against a hello-world Typer app.

    python bench/startup_bench.py [--runs 41] [--importtime] [--readme]

The reference is the smallest Typer application: one command printing hello, written by this
script into a temporary directory and run as a module (``python -m hello_app``), as kgroup is
(``python -m kgroup``). Every run is a fresh process timed end to end (process start to exit).
Runs are paired: each kgroup case runs right next to its reference run (which goes first
alternates from pair to pair), the cases take turns in every round (interleaved), and a
case's ratio is the median over the rounds of kgroup's time divided by its pair's reference
time, so that load on the machine hits both sides of a ratio alike.

- Offline commands run with stdin, stdout and stderr not a terminal (as in a pipe or a
  script), against the hello app's command run the same way.
- ``--help`` runs in a terminal (a pseudo-terminal 80 columns wide, TERM=xterm-256color: what a
  user typing it sees, colours and all), against the hello app's ``--help`` in the same terminal.

Bytecode is written (the warm-up round compiles kgroup's modules and the hello app, as an
installed package has them compiled). The goals: every row at most 1.0x. With --importtime,
the modules each kgroup case imports (python -X importtime, cumulative milliseconds, top 12)
are printed too. With --readme the table also replaces docs/benchmarks.md's startup-bench block.
"""
from __future__ import annotations

import argparse
import fcntl
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from figures import measured_on, write_block  # noqa: E402

SNAPSHOT = "examples/seed-g1.json"
HELLO_APP = '''"""A hello-world Typer app: the reference of bench/startup_bench.py."""
import typer

app = typer.Typer()


@app.command()
def hello() -> None:
    """Say hello."""
    print("hello")


if __name__ == "__main__":
    app()
'''
HELLO = ["-m", "hello_app"]
TERMINAL = (24, 80)  # rows, columns of the pseudo-terminal the --help cases run in
# (label, argv after the interpreter, run in a terminal?); the reference of a case: the hello
# app's --help in a terminal for --help, its command not at a terminal for the others
COMMANDS = [
    ("kgroup --help", ["-m", "kgroup", "--help"], True),
    ("kgroup whatif --help", ["-m", "kgroup", "whatif", "--help"], True),
    ("kgroup find-coordinator --offline --offsets-partitions 50 G1",
     ["-m", "kgroup", "find-coordinator", "--offline", "--offsets-partitions", "50", "G1"], False),
    ("kgroup find-coordinator --offline --offsets-partitions 50 G1 -o json",
     ["-m", "kgroup", "find-coordinator", "--offline", "--offsets-partitions", "50", "G1", "-o", "json"], False),
    (f"kgroup describe --snapshot {SNAPSHOT}", ["-m", "kgroup", "describe", "--snapshot", SNAPSHOT], False),
    (f"kgroup whatif --snapshot {SNAPSHOT} --remove C3 -o json",
     ["-m", "kgroup", "whatif", "--snapshot", SNAPSHOT, "--remove", "C3", "-o", "json"], False),
    ("kgroup vote -m a=range,cooperative-sticky -m b=range",
     ["-m", "kgroup", "vote", "-m", "a=range,cooperative-sticky", "-m", "b=range"], False),
]
GOAL = 1.0
# variables that would change how help is rendered (width, colours): the terminal decides
RENDERING_ENV = ("COLUMNS", "LINES", "TERMINAL_WIDTH", "FORCE_COLOR", "NO_COLOR", "PY_COLORS", "GITHUB_ACTIONS",
                 "TTY_COMPATIBLE", "TTY_INTERACTIVE", "_TYPER_FORCE_DISABLE_TERMINAL", "TYPER_USE_RICH",
                 "TYPER_RICH_MARKUP_MODE")


def _check(args: list[str], code: int, output: bytes) -> None:
    if code not in (0, 1):
        raise RuntimeError(f"{args} exited {code}: {output.decode(errors='replace')[-2000:]}")


def run_piped(args: list[str], env: dict[str, str]) -> float:
    """Seconds of one run with stdin, stdout and stderr not a terminal."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    _check(args, proc.returncode, proc.stderr)
    return elapsed


def run_in_terminal(args: list[str], env: dict[str, str]) -> float:
    """Seconds of one run with stdin, stdout and stderr on a pseudo-terminal of TERMINAL's size
    (its output read as it comes, as a terminal shows it)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *TERMINAL, 0, 0))
    output = bytearray()
    start = time.perf_counter()
    try:
        proc = subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env, stdin=slave, stdout=slave, stderr=slave,
                                start_new_session=True)
        os.close(slave)
        slave = -1
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer of the terminal has closed it
                break
            if not chunk:
                break
            output += chunk
        code = proc.wait()
        elapsed = time.perf_counter() - start
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    _check(args, code, bytes(output))
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
    ap.add_argument("--runs", type=int, default=41, help="rounds; every pair runs once per round")
    ap.add_argument("--importtime", action="store_true", help="also list each kgroup case's biggest imports")
    ap.add_argument("--readme", action="store_true", help="write the table into docs/benchmarks.md")
    args = ap.parse_args()
    base = {k: v for k, v in os.environ.items() if k not in RENDERING_ENV}
    # the warm-up round writes the .pyc files, as installing a package does
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    base["TERM"] = "xterm-256color"
    with tempfile.TemporaryDirectory(prefix="kgroup-bench-") as tmp:
        Path(tmp, "hello_app.py").write_text(HELLO_APP, encoding="utf-8")
        kgroup_env = {**base, "PYTHONPATH": str(ROOT)}  # this checkout's kgroup, wherever the package is installed from
        hello_env = {**base, "PYTHONPATH": tmp}
        # (label, kgroup argv, reference label, reference argv, how to run both)
        pairs = []
        for label, argv, terminal in COMMANDS:
            if terminal:
                pairs.append((label, argv, "hello app --help", [*HELLO, "--help"], run_in_terminal))
            else:
                pairs.append((label, argv, "hello app", HELLO, run_piped))
        for _, argv, _, ref_argv, run in pairs:  # warm the file cache and the .pyc files
            run(ref_argv, hello_env)
            run(argv, kgroup_env)
        times: dict[str, list[float]] = {label: [] for label, *_ in pairs}
        refs: dict[str, list[float]] = {label: [] for label, *_ in pairs}
        turn = 0
        for i in range(args.runs):
            order = pairs if i % 2 == 0 else pairs[::-1]  # alternate the order, so no case always runs first
            for label, argv, _, ref_argv, run in order:
                turn += 1
                if turn % 2:  # alternate which of the pair goes first
                    refs[label].append(run(ref_argv, hello_env))
                    times[label].append(run(argv, kgroup_env))
                else:
                    times[label].append(run(argv, kgroup_env))
                    refs[label].append(run(ref_argv, hello_env))
            print(f"round {i + 1}/{args.runs}", file=sys.stderr, end="\r", flush=True)
        print(file=sys.stderr)
        if args.importtime:
            print()
            for label, argv, _, _, _ in pairs:
                print(f"- `{label}`: {importtime(argv, kgroup_env, 12)}")
            print()
    lines = ["| command | against | median ms | hello app median ms | ratio to the hello app |", "|---|---|---|---|---|"]
    worst = 0.0
    for label, _, ref_label, _, run in pairs:
        ratio = statistics.median(t / r for t, r in zip(times[label], refs[label]))
        worst = max(worst, ratio)
        where = " (in a terminal)" if run is run_in_terminal else ""
        lines.append(f"| `{label}`{where} | `{ref_label}`{where} | {statistics.median(times[label]) * 1000:.0f} | "
                     f"{statistics.median(refs[label]) * 1000:.0f} | {ratio:.2f}x |")
    lines += ["", f"Median of {args.runs} interleaved rounds of paired runs (ratio: the median of each pair's "
              f"kgroup time over its hello app time); slowest: {worst:.2f}x (goal: at most {GOAL:.2f}x). "
              f"{measured_on()}"]
    table = "\n".join(lines)
    print(f"### kgroup start-up vs a hello-world Typer app\n\n{table}", flush=True)
    if args.readme:
        write_block("startup-bench", table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
