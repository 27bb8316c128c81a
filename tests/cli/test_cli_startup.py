"""What kgroup's start-up loads, and that its shortcuts change nothing.

Offline commands and --help load no module they do not use (no Kafka client, no Spark, no
plotly, no rich outside help, no tabulate for plain tables; only the module of the command
asked for); a command run alone prints what the whole app prints; the plain-table renderer
draws what tabulate draws. Parsing, value coercion and help are Typer's own. Speed itself is
measured by bench/startup_bench.py, not here.
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED = "examples/seed-g1.json"
LOG = "examples/offsets-log-g1.jsonl"

# never needed by an offline command or --help (Typer renders help with rich: not in an offline command)
HEAVY = ("confluent_kafka", "pyspark", "pyarrow", "pandas", "jsonschema", "plotly", "narwhals", "selenium")
HELP_ONLY = ("rich", "markdown_it")
RENDERING_ENV = ("COLUMNS", "TERMINAL_WIDTH", "FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TTY_COMPATIBLE",
                 "TTY_INTERACTIVE", "_TYPER_FORCE_DISABLE_TERMINAL", "TYPER_USE_RICH", "TYPER_RICH_MARKUP_MODE")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in RENDERING_ENV}
    env.update(PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8", **extra)
    return env


# runs `python -m kgroup ARGV` and writes the names in sys.modules at exit to the file ARGV[0]
_PROBE = """
import atexit, runpy, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write("\\n".join(sorted(sys.modules))))
sys.argv = ["kgroup", *sys.argv[2:]]
runpy.run_module("kgroup", run_name="__main__", alter_sys=True)
"""


def _imported(*argv: str, env: dict[str, str] | None = None) -> tuple[set[str], subprocess.CompletedProcess]:
    """The modules ``python -m kgroup ARGV`` has loaded when it exits, and the run itself."""
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "modules"
        r = subprocess.run([sys.executable, "-c", _PROBE, str(listing), *argv], cwd=ROOT, env=env or _env(),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
        return set(listing.read_text().split("\n")), r


def _tops(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


OFFLINE = [
    ["find-coordinator", "--offline", "--offsets-partitions", "3", "G1"],
    ["find-coordinator", "--offline", "G1", "G2", "-o", "json"],
    ["find-coordinator", "--snapshot", SEED],
    ["describe", "--snapshot", SEED],
    ["offsets", "--snapshot", SEED, "-o", "csv"],
    ["whatif", "--snapshot", SEED, "--remove", "C3"],
    ["whatif", "--snapshot", SEED, "--strategy", "cooperative-sticky", "-o", "json"],
    ["vote", "-m", "a=range,cooperative-sticky", "-m", "b=range"],
    ["log", "--input", LOG, "-o", "json"],
    ["history", "G1", "--input", LOG],
    ["report", "G1", "--input", LOG, "--snapshot", SEED, "--since", "2025-11-22T00:00Z", "-o", "csv"],
]


@pytest.mark.parametrize("argv", OFFLINE, ids=lambda a: " ".join(a[:3]))
def test_offline_commands_load_nothing_heavy(argv):
    modules, r = _imported(*argv)
    assert r.returncode == 0, r.stderr[-2000:]
    heavy = {*HEAVY, *HELP_ONLY}
    assert not _tops(modules) & heavy, sorted(_tops(modules) & heavy)
    assert "kgroup.kafka.cluster" not in modules  # the Kafka client wrapper
    if argv[0] != "find-coordinator":  # what a live cluster answers: only find-coordinator explains in it
        assert "kgroup.group.metadata" not in modules
    # nor what only talking to a cluster needs: its settings, the Ctrl-C watcher (a thread, a socket)
    unused = {"kgroup.kafka.settings", "kgroup.cli.interrupt"}
    assert not unused & modules, unused & modules
    # only the module of the command asked for
    from kgroup.cli import COMMANDS

    own = {m.split(".")[2] for m in modules if m.startswith("kgroup.cli.") and m.count(".") == 2}
    others = set(COMMANDS.values()) - {COMMANDS[argv[0]]}
    assert not own & others, sorted(own & others)


def test_plain_tables_do_not_load_tabulate():
    modules, r = _imported("find-coordinator", "--offline", "--offsets-partitions", "3", "G1", "G2")
    assert r.returncode == 0 and "G2" in r.stdout
    assert "tabulate" not in modules


@pytest.mark.parametrize("command", ["", "find-coordinator", "whatif", "log", "scan"])
def test_help_loads_nothing_heavy(command):
    """Typer renders the help (with rich); no Kafka client, no Spark, no command module but the
    one asked for, and no pydantic (Typer's value coercion: no value is coerced before help)."""
    modules, r = _imported(*([command] if command else []), "--help")
    assert r.returncode == 0 and "Usage: kgroup" in r.stdout
    heavy = {*HEAVY, "pydantic"}
    assert not _tops(modules) & heavy, sorted(_tops(modules) & heavy)
    assert "kgroup.kafka.cluster" not in modules
    if command:
        from kgroup.cli import COMMANDS

        own = {m.split(".")[2] for m in modules if m.startswith("kgroup.cli.") and m.count(".") == 2}
        assert not own & (set(COMMANDS.values()) - {COMMANDS[command]}), sorted(own)


def test_help_takes_the_width_it_is_given():
    modules, r = _imported("whatif", "--help", env=_env(COLUMNS="120"))
    assert r.returncode == 0
    assert max(len(line) for line in r.stdout.splitlines()) == 120


def test_commands_behave_as_through_the_whole_app():
    """`python -m kgroup` (one command registered) prints what the complete app prints."""
    code = ("import sys\nfrom kgroup.cli import app\n"
            "try:\n    app(sys.argv[1:], prog_name='kgroup')\nexcept SystemExit as e:\n    sys.exit(e.code)\n")
    cases = OFFLINE + [["whatif", "--snapshot", SEED, "--remove", "nobody"], ["find-coordinator", "--offline",
                                                                             "--offsets-partitions", "0", "G1"],
                       ["describe", "--snapshot", "no-such-file.json"], ["vote", "--switch", "x"]]
    for argv in cases:
        fast = subprocess.run([sys.executable, "-m", "kgroup", *argv], cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True)
        full = subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True)
        assert fast.stdout == full.stdout, argv
        if fast.returncode == 0:
            assert full.returncode == 0, argv


# --- usage errors ------------------------------------------------------------------


def _usage_cases():
    from kgroup.cli import COMMANDS

    helps = [[c, "--help"] for c in COMMANDS] + [["--help"], []]
    bad = [["find-coordinator", "--offline", "--offsets-partitions", x, "G1"] for x in ("0", "x", "1.5", "-3", "")]
    bad += [["whatif", "--snapshot", SEED, "-o", "yaml"], ["whatif", "--snapshot", SEED, "-o", "JSON"],
            ["whatif", "--snapshot", SEED, "--strategy", "bogus"], ["describe", "--snapshot", "no-such-file.json"],
            ["describe", "--snapshot", "examples"], ["offsets", "--snapshot", SEED, "--lag-above", "-1"],
            ["offsets", "--snapshot", SEED, "--lag-above", "abc"], ["list", "--state", "x", "-b", "127.0.0.1:1",
                                                                    "--timeout", "0"],
            ["log", "--input", LOG, "--since", "yesterday"], ["vote", "--switch", "x"], ["nosuch"], ["whatif", "-q"],
            ["--version"], ["find-coordinator", "--offline", "G1", "-o", "csv", "--offsets-partitions", "7"]]
    return helps + bad


@pytest.mark.parametrize("argv", _usage_cases(), ids=lambda a: " ".join(a[:4]) or "(none)")
def test_help_and_bad_values_end_without_an_internal_error(argv, monkeypatch):
    """Typer coerces every value: a bad one is a usage error (exit 2), never an internal error."""
    import contextlib
    import io

    from kgroup.cli import main

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(sys, "argv", ["kgroup", *argv])
    out, err = io.StringIO(), io.StringIO()
    code: object = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as e:
        code = e.code
    assert code in (0, 1, 2, 3), (code, err.getvalue())
    assert "internal error" not in err.getvalue()


# --- plain tables ------------------------------------------------------------------


def test_plain_table_is_what_tabulate_draws():
    from tabulate import tabulate

    from kgroup.output.render import _plain_table, cell, simple_table

    rng = random.Random(20261122)
    alphabet = "abc -_/:,.=+()[]0123456789XYZ"

    def text(n):
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, n)))

    fast = 0
    for _ in range(5000):
        width = rng.randint(1, 6)
        headers = [text(9) for _ in range(width)]
        rows = [[cell(rng.choice([None, "", True, False, rng.randint(-5, 10 ** rng.randint(0, 12)), text(15), "True",
                                  "1.5", "  x", "é", "a\nb", "\x1b[31mred\x1b[0m", 1.5, "全角"]))
                 for _ in range(width)] for _ in range(rng.randint(1, 6))]
        expected = tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)
        assert simple_table(rows, headers) == expected, (headers, rows)
        fast += _plain_table(rows, headers) is not None
    assert fast > 100  # the shortcut was taken, not only the fallback
