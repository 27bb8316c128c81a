"""What kgroup's start-up loads, and that its shortcuts change nothing.

Offline commands and --help load no module they do not use (no Kafka client, no Spark,
no pydantic, no rich, no tabulate for plain tables, no typing_extensions; --help not even
Typer); the stored help is Typer's rendering; the parameter coercion that replaces Typer's
pydantic adapters gives the same values and the same errors, and switched off
(KGROUP_PLAIN_TYPER=1: plain Typer, pydantic loads) every output byte is the same; the
plain-table renderer draws what tabulate draws. Speed itself is measured by bench/startup_bench.py, not here.
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

# never needed by an offline command or --help
HEAVY = ("confluent_kafka", "pyspark", "pyarrow", "pandas", "rich", "pydantic", "pydantic_core", "typing_extensions",
         "markdown_it", "jsonschema", "plotly", "narwhals", "selenium")
# what plain Typer's coercion loads (pydantic and what it imports)
PYDANTIC = {"pydantic", "pydantic_core", "typing_extensions", "typing_inspection", "annotated_types"}
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
    from kgroup.cli.params import fast_path

    modules, r = _imported(*argv)
    assert r.returncode == 0, r.stderr[-2000:]
    # plain Typer (KGROUP_PLAIN_TYPER=1, or a Typer kgroup does not know) coerces values through pydantic
    heavy = set(HEAVY) - (set() if fast_path() else PYDANTIC)
    assert not _tops(modules) & heavy, sorted(_tops(modules) & heavy)
    assert "kgroup.kafka.cluster" not in modules  # the Kafka client wrapper
    if argv[0] != "find-coordinator":  # what a live cluster answers: only find-coordinator explains in it
        assert "kgroup.group.metadata" not in modules
    # nor what only talking to a cluster needs: its settings, the Ctrl-C watcher (a thread, a socket)
    unused = {"kgroup.kafka.settings", "kgroup.cli.interrupt"} | ({"socket"} if fast_path() else set())  # pydantic's
    assert not unused & modules, unused & modules
    # only the module of the command asked for
    from kgroup.cli import COMMANDS

    own = {m.split(".")[2] for m in modules if m.startswith("kgroup.cli.") and m.count(".") == 2}
    others = set(COMMANDS.values()) - {COMMANDS[argv[0]]}
    assert not own & others, sorted(own & others)


def test_plain_tables_do_not_load_tabulate():
    modules, r = _imported("find-coordinator", "--offline", "--offsets-partitions", "3", "G1", "G2")
    assert r.returncode == 0 and "G2" in r.stdout
    from kgroup.cli.params import fast_path

    assert "tabulate" not in modules
    assert "importlib.metadata" not in modules or not fast_path()  # pydantic (plain Typer) reads package metadata


@pytest.mark.parametrize("command", ["", "find-coordinator", "whatif", "log", "scan"])
def test_help_loads_neither_typer_nor_rich(command):
    modules, r = _imported(*([command] if command else []), "--help")
    assert r.returncode == 0 and "Usage: kgroup" in r.stdout
    assert not _tops(modules) & {"typer", "rich", "pydantic", "click", "tabulate"}, sorted(_tops(modules))


def test_stored_help_is_typers_rendering():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from gen_completions import typer_help
    finally:
        sys.path.pop(0)
    from kgroup.cli import COMMANDS

    for command in ["", *COMMANDS]:
        argv = [command, "--help"] if command else ["-h"]
        r = subprocess.run([sys.executable, "-m", "kgroup", *argv], cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL,
                           capture_output=True)
        assert r.returncode == 0
        assert r.stdout.decode() == typer_help(command), command


def test_help_elsewhere_is_rendered_by_typer():
    """Another width (here COLUMNS) is not the stored rendering's: Typer renders it."""
    modules, r = _imported("whatif", "--help", env=_env(COLUMNS="120"))
    assert r.returncode == 0
    assert "rich" in _tops(modules)
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


# --- parameter coercion and the plain-Typer path ------------------------------------


def _coercion_pairs(monkeypatch):
    """(fast, Typer's own) coercion of every parameter of every kgroup command."""
    import typer
    import typer.main

    from kgroup.cli import app
    from kgroup.cli.params import FastCoercion

    monkeypatch.setenv("KGROUP_PLAIN_TYPER", "0")  # whatever the run's setting: build the fast path
    root = typer.main.get_command(app)
    for name, cmd in [("", root), *root.commands.items()]:
        for p in [*cmd.params, cmd.get_help_option(typer.Context(cmd))]:
            fast = p.get_runtime_param()
            assert isinstance(fast, FastCoercion), (name, p.name)
            yield name, cmd, p, fast, p.typer_runtime_param()


SAMPLES = [None, "", "x", "-", "G1", "0", "1", "7", "007", "50", "-3", "1.5", " 2", "2 ", "1e3", "1_000", "inf", "nan",
           "table", "json", "csv", "JSON", "offsets", "group", "examples", "examples/seed-g1.json", "no/such/file",
           "a=b", "\udcff", 10, 10.0, True, ("a", "b"), ["1", "2"], ("x",), ()]


def _outcome(runtime, value, param, ctx):
    import typer

    try:
        return "ok", runtime.coerce(value, param=param, ctx=ctx)
    except typer.BadParameter as e:
        return "error", e.format_message()


def test_fast_coercion_equals_typers_own(monkeypatch):
    import typer

    checked = 0
    for name, cmd, param, fast, slow in _coercion_pairs(monkeypatch):
        ctx = typer.Context(cmd)
        for value in SAMPLES:
            expected = _outcome(slow, value, param, ctx)
            got = _outcome(fast, value, param, ctx)
            assert repr(got) == repr(expected), (name, param.name, value, got, expected)
            assert type(got[1]) is type(expected[1]), (name, param.name, value)
            checked += 1
    assert checked > 500


def _in_process(args: list[str], plain: bool, monkeypatch) -> tuple[object, str, str]:
    """(exit code, stdout, stderr) of ``kgroup ARGS`` run by kgroup.cli.main in this process."""
    import contextlib
    import io

    from kgroup.cli import main

    monkeypatch.setenv("KGROUP_PLAIN_TYPER", "1" if plain else "0")
    monkeypatch.setattr(sys, "argv", ["kgroup", *args])
    out, err = io.StringIO(), io.StringIO()
    code: object = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as e:
        code = e.code
    return code, out.getvalue(), err.getvalue()


def _both_paths_cases():
    from kgroup.cli import COMMANDS

    helps = [[c, "--help"] for c in COMMANDS] + [["--help"], []]  # Typer's rendering (COLUMNS below)
    bad = [["find-coordinator", "--offline", "--offsets-partitions", x, "G1"] for x in ("0", "x", "1.5", "-3", "")]
    bad += [["whatif", "--snapshot", SEED, "-o", "yaml"], ["whatif", "--snapshot", SEED, "-o", "JSON"],
            ["whatif", "--snapshot", SEED, "--strategy", "bogus"], ["describe", "--snapshot", "no-such-file.json"],
            ["describe", "--snapshot", "examples"], ["offsets", "--snapshot", SEED, "--lag-above", "-1"],
            ["offsets", "--snapshot", SEED, "--lag-above", "abc"], ["list", "--state", "x", "-b", "127.0.0.1:1",
                                                                    "--timeout", "0"],
            ["log", "--input", LOG, "--since", "yesterday"], ["vote", "--switch", "x"], ["nosuch"], ["whatif", "-q"],
            ["--version"], ["find-coordinator", "--offline", "G1", "-o", "csv", "--offsets-partitions", "7"]]
    return OFFLINE + helps + bad


@pytest.mark.parametrize("argv", _both_paths_cases(), ids=lambda a: " ".join(a[:4]) or "(none)")
def test_plain_typer_prints_the_same_bytes(argv, monkeypatch):
    """KGROUP_PLAIN_TYPER=1 (Typer coerces every value itself) changes no output byte and no exit code."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "200")  # help rendered live by Typer, not the stored text
    fast = _in_process(argv, False, monkeypatch)
    plain = _in_process(argv, True, monkeypatch)
    assert plain == fast, argv
    assert fast[0] in (0, 1, 2, 3), fast


def test_an_unknown_typer_takes_the_plain_path(monkeypatch):
    """The fast path relies on how Typer 0.29 processes a value: any other release runs plain Typer."""
    import typer

    from kgroup.cli.params import fast_path

    monkeypatch.delenv("KGROUP_PLAIN_TYPER", raising=False)
    monkeypatch.setattr(typer, "__version__", "0.29.9")
    assert fast_path()
    monkeypatch.setattr(typer, "__version__", "0.30.0")
    assert not fast_path()
    monkeypatch.setattr(typer, "__version__", "0.29.9")
    monkeypatch.setenv("KGROUP_PLAIN_TYPER", "1")
    assert not fast_path()


def test_the_switch_selects_the_path():
    """The fast path loads no pydantic; KGROUP_PLAIN_TYPER=1 is plain Typer, which does."""
    argv = ["find-coordinator", "--offline", "--offsets-partitions", "3", "G1", "-o", "json"]
    fast, r = _imported(*argv, env=_env(KGROUP_PLAIN_TYPER="0"))
    plain, r_plain = _imported(*argv, env=_env(KGROUP_PLAIN_TYPER="1"))
    assert r.returncode == r_plain.returncode == 0 and r.stdout == r_plain.stdout
    assert "pydantic" not in _tops(fast)
    assert "pydantic" in _tops(plain)


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
