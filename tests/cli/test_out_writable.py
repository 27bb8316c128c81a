"""An output file is proved writable before any work (a file created and removed beside it):
`report --out`, `scan --html` and `snapshot --out` naming a place nothing can be written are
exit 2 with one line at once, never after the minutes of work. Each case carries a second
mistake that would be found later (no cluster, an epoch in seconds, a group the log does not
hold): the line about the file shows it was checked first."""
from __future__ import annotations

import os

import pytest
from conftest import run_kgroup

LOG = "examples/offsets-log-g1.jsonl"
BAD_LATER = {  # each command, with what fails only once the work starts (or later than the file's check)
    "report": ("report", "G1", "--out"),
    "scan": ("scan", "--input", LOG, "--since", "1795830050", "--html"),
    "snapshot": ("snapshot", "NOT-IN-THE-LOG", "--at", "2025-11-22T02:54Z", "--input", LOG, "--out"),
}
WHAT = {"report": "--out {}", "scan": "--html {}", "snapshot": "{}"}


def refused(command: str, path: str) -> str:
    r = run_kgroup(*BAD_LATER[command], path)
    assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stderr)
    return r.stderr


@pytest.mark.parametrize("command", BAD_LATER)
def test_a_file_under_proc_is_refused_before_any_work(command):
    path = "/proc/kgroup-out.html"
    assert refused(command, path) == f"kgroup: error: cannot write {WHAT[command].format(path)}: No such file or directory\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
@pytest.mark.parametrize("command", BAD_LATER)
def test_a_read_only_directory_is_refused_before_any_work(command, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        path = str(folder / "out.html")
        assert refused(command, path) == f"kgroup: error: cannot write {WHAT[command].format(path)}: Permission denied\n"
        assert list(folder.iterdir()) == []  # nothing left behind
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("command", BAD_LATER)
def test_a_writable_place_leaves_nothing_behind_and_the_later_mistake_is_said(command, tmp_path):
    r = run_kgroup(*BAD_LATER[command], str(tmp_path / "out.html"))
    assert r.returncode == 2 and "cannot write" not in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_in_a_folder_that_takes_no_new_file_is_written_in_place(tmp_path):
    from kgroup.output.files import check_writable, write_whole
    from pathlib import Path

    check_writable(Path("/dev/null"), "--out /dev/null")  # a device is written as named: nothing tried
    target = tmp_path / "page.html"
    target.write_text("old")
    check_writable(target, "--out page.html")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]
    write_whole(target, "new", "--out page.html")
    assert target.read_text() == "new"
