"""Every CLI test here runs twice: on kgroup's start-up tuning (``tuned``, what users get with a
Typer kgroup knows) and on plain Typer (``plain``, KGROUP_PLAIN_TYPER=1, what any other Typer
gets), so that both paths are proven to give the same bytes and exit codes. The files on start-up
itself choose the path per case (test_cli_startup.py, test_interrupt_startup.py) or read the
committed completions (test_completions.py): they run once. So does the fuzzer (test_fuzz.py: 1,050
random command lines a run, four times the cost on plain Typer, which renders each usage error
itself); the golden and hostile-input files give both paths the same errors by hand."""
from __future__ import annotations

import pytest

PLAIN = "KGROUP_PLAIN_TYPER"
ONCE = {"test_cli_startup.py", "test_interrupt_startup.py", "test_completions.py", "test_fuzz.py"}


def pytest_generate_tests(metafunc):
    if metafunc.definition.path.name not in ONCE:
        metafunc.parametrize("typer_path", ["tuned", "plain"], indirect=True)


@pytest.fixture(autouse=True)
def typer_path(request, monkeypatch):
    """The Typer path of this run of the test (see the module's docstring)."""
    path = getattr(request, "param", None)
    if path == "plain":
        monkeypatch.setenv(PLAIN, "1")
    elif path == "tuned":
        monkeypatch.delenv(PLAIN, raising=False)
    return path
