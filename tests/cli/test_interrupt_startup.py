"""Ctrl-C during start-up: from the moment kgroup's own code runs, an interrupt ends the
program with ``kgroup: interrupted`` and 130, never a KeyboardInterrupt traceback.

Before kgroup's first statement runs, the program is not yet kgroup's: the interpreter may be
killed by the signal (before it installs its own handler; a shell reports 130), stop with a fatal
error while it sets up its standard streams or imports ``site``, or report a
KeyboardInterrupt raised in its start-up (``site``, ``runpy``, the import system looking for
the kgroup package, or entering the package's first frame before its first statement). Such a
traceback has no frame in the kgroup package past line 0, which is how these tests tell it
apart from one kgroup could have prevented.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kgroup"
COMMAND = ["whatif", "--snapshot", "examples/seed-g1.json", "--remove", "C3", "--strategy", "range"]
MESSAGE = "kgroup: interrupted\n"
# the interpreter's own start-up stages, as its fatal error names them (CPython 3.11)
INTERPRETER_START_UP = ("Fatal Python error: init_sys_streams:", "Fatal Python error: init_import_site:")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)  # the console script too runs this checkout's code
    return env


def _kgroup_frames(stderr: str) -> list[str]:
    """The traceback frames of stderr that lie in the kgroup package and had begun running it.
    A frame at line 0 has run none of its module's statements: the interpreter checks for a
    pending signal as it enters a frame, so a SIGINT that came while the import system was
    still loading the package is raised there, before kgroup's first statement."""
    frames = re.findall(r'^  File "([^"]+)", line (\d+)', stderr, flags=re.M)
    return [f for f, line in frames if Path(f).resolve().is_relative_to(PACKAGE) and line != "0"]


def _verdict(returncode: int, stdout: str, stderr: str) -> str | None:
    """None when the run ended as it may; else what is wrong with it."""
    if returncode == 130:
        return None if stderr == MESSAGE else f"130 with stderr {stderr!r}"
    if returncode == -signal.SIGINT and not stderr:  # killed before the interpreter's own handler
        return None
    if "Traceback" in stderr and returncode in (0, 1, -signal.SIGINT) and not _kgroup_frames(stderr):
        # raised in the interpreter's start-up, before any kgroup code ran: fatal in `site`
        # (1), uncaught in runpy or the wrapper's import (-SIGINT), or reported and ignored by
        # the interpreter ("Exception ignored in", "Failed checking if argv[0] is an import
        # path entry"), after which kgroup runs to its end (0)
        return None
    if returncode == 1 and stderr == "KeyboardInterrupt\n":  # raised before any frame ran (compiling the script)
        return None
    if (returncode == 1 and stderr.startswith(INTERPRETER_START_UP) and "KeyboardInterrupt" in stderr
            and not _kgroup_frames(stderr)):
        # raised while the interpreter set up its streams or imported `site`, before any code of
        # kgroup's was looked for (both seen on a busy machine)
        return None
    if returncode == 0 and stdout and not stderr:  # the command finished before the signal
        return None
    return f"exit {returncode}, stderr:\n{stderr[-3000:]}"


def _interrupt_after(argv: list[str], delay: float) -> tuple[int, str, str]:
    proc = subprocess.Popen(argv, cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    return proc.returncode, out, err


def _console_script() -> str | None:
    found = shutil.which("kgroup", path=str(Path(sys.executable).parent))
    return found


ENTRY_POINTS = {
    "python -m kgroup": lambda: [sys.executable, "-m", "kgroup"],
    "console script": lambda: [_console_script()] if _console_script() else None,
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_sigint_at_any_moment_of_start_up(entry):
    """40 interrupts spread over the first 80 ms of a run."""
    argv = ENTRY_POINTS[entry]()
    if argv is None:
        pytest.skip("the kgroup console script is not installed next to this interpreter")
    wrong = []
    outcomes: dict[int, int] = {}
    for i in range(40):
        delay = i * 0.002
        code, out, err = _interrupt_after([*argv, *COMMAND], delay)
        outcomes[code] = outcomes.get(code, 0) + 1
        problem = _verdict(code, out, err)
        if problem:
            wrong.append(f"SIGINT after {delay * 1000:.0f} ms: {problem}")
    assert not wrong, "\n\n".join(wrong[:3])
    assert outcomes.get(130), outcomes  # some interrupts did reach kgroup


# Runs `python -m kgroup ARGV` (as runpy does) under a tracer that sends SIGINT to the process at
# the Nth line it traces, and writes the line numbers it traced at a normal exit. Traced: with
# "init", the module body of the package's own __init__; with "after-init", every line kgroup
# executes from its first module after that __init__ on.
_DRIVER = """
import atexit, runpy, signal, sys
target, out, package, scope = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
init = package + "__init__.py"
sys.argv = ["kgroup", *sys.argv[5:]]
seen = []
started = False

def lines(frame, event, arg):
    if event == "line":
        seen.append(frame.f_lineno)
        if len(seen) == target:
            signal.raise_signal(signal.SIGINT)
    return lines

def calls(frame, event, arg):
    global started
    name = frame.f_code.co_filename
    if scope == "init":
        return lines if name == init and frame.f_code.co_name == "<module>" else None
    if not name.startswith(package):
        return None
    started = started or name != init
    return lines if started else None

atexit.register(lambda: open(out, "w").write(" ".join(map(str, seen))))
sys.settrace(calls)
runpy.run_module("kgroup", run_name="__main__", alter_sys=True)
"""


def _traced(target: int, listing: Path, scope: str = "after-init") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _DRIVER, str(target), str(listing), f"{PACKAGE}{os.sep}", scope,
                           *COMMAND], cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)


def test_sigint_at_each_stage_of_kgroup_start_up():
    """Deterministic: an interrupt at lines spread over everything kgroup executes, densest at
    the start (its imports, before and while the command's own handler is set up)."""
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "count"
        r = _traced(0, listing)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
        total = len(listing.read_text().split())
        assert total > 100
        # up to 90 %: the last lines are the exit itself, where 0 and 130 race by design
        targets = sorted({*range(1, 16), *(int((0.9 * total) ** (k / 16)) for k in range(4, 17))})
        wrong = []
        for n in targets:
            r = _traced(n, listing)
            if (r.returncode, r.stderr) != (130, MESSAGE):
                wrong.append(f"SIGINT at line {n} of {total}: exit {r.returncode}, stderr:\n{r.stderr[-3000:]}")
    assert not wrong, "\n\n".join(wrong[:3])


def test_sigint_while_the_package_starts_is_noted_then_acted_on():
    """Deterministic: an interrupt at each line of kgroup/__init__.py that runs after the first
    handler is installed (the one that only notes the signal, before kgroup's own handler and
    what it needs exist) ends the program with the line and 130."""
    source = (PACKAGE / "__init__.py").read_text().splitlines()
    install = next(n for n, line in enumerate(source, 1) if "_signal.signal(_signal.SIGINT, _defer)" in line)
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "lines"
        r = _traced(0, listing, "init")
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
        seen = [int(n) for n in listing.read_text().split()]
        after = [i for i, line in enumerate(seen, 1) if line > install]
        assert install in seen and len(after) > 10, (install, seen)
        # the first lines after it (the rest of the head start, kgroup's own imports and names) and
        # the last ones (the bottom block that installs kgroup's handler and acts on the note)
        wrong = []
        for target in sorted({*after[:8], *after[-4:]}):
            r = _traced(target, listing, "init")
            if (r.returncode, r.stderr) != (130, MESSAGE):
                wrong.append(f"SIGINT at line {seen[target - 1]}: exit {r.returncode}, stderr:\n{r.stderr[-2000:]}")
    assert not wrong, "\n\n".join(wrong[:3])


def test_importing_kgroup_as_a_library_leaves_sigint_alone():
    """Only the program installs the handler: tests, Spark workers and other importers keep
    theirs (Python's KeyboardInterrupt, or SIG_IGN where the process was started with SIGINT
    ignored, as a shell without job control starts a command run in the background)."""
    code = ("import signal; before = signal.getsignal(signal.SIGINT); "
            "assert before in (signal.default_int_handler, signal.SIG_IGN), before; "
            "import kgroup.group.capture, kgroup.group.snapshot; "
            "assert signal.getsignal(signal.SIGINT) is before; print('ok')")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, "ok\n"), r.stderr
