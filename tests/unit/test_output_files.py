"""kgroup.output.files: a page or snapshot replaces the file at its path whole or not at all."""
from __future__ import annotations

import os
import stat

import pytest

from kgroup import _on_interrupt
from kgroup.errors import UsageError
from kgroup.output.files import write_whole


def test_a_new_file_and_a_replaced_one_keep_nothing_beside_them(tmp_path):
    page = tmp_path / "incident.html"
    write_whole(page, "<p>first</p>\n", "--out x")
    assert page.read_text() == "<p>first</p>\n"
    page.chmod(0o600)
    write_whole(page, "<p>second é</p>\n", "--out x")
    assert page.read_bytes() == "<p>second é</p>\n".encode("utf-8")
    assert stat.S_IMODE(page.stat().st_mode) == 0o600  # the file keeps its permissions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["incident.html"]


def test_a_failed_write_leaves_the_old_file_whole(tmp_path, monkeypatch):
    page = tmp_path / "incident.html"
    page.write_text("yesterday's page\n")

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(UsageError, match=r"^cannot write --out P: No space left on device$"):
        write_whole(page, "today's page\n", "--out P")
    assert page.read_text() == "yesterday's page\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["incident.html"]


def test_ctrl_c_while_writing_leaves_no_part_file(tmp_path, monkeypatch):
    page = tmp_path / "incident.html"
    hooks = list(_on_interrupt)
    seen = []

    def interrupted(src, dst):  # what kgroup's Ctrl-C handler runs before the process ends
        seen.append(sorted(p.name for p in tmp_path.iterdir()))
        for hook in _on_interrupt[len(hooks):]:
            hook()
        raise OSError(4, "Interrupted system call")

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(UsageError):
        write_whole(page, "x", "--out P")
    assert seen == [[f".incident.html.kgroup-{os.getpid()}.part"]]
    assert list(tmp_path.iterdir()) == [] and _on_interrupt == hooks


def test_a_symbolic_link_or_a_device_is_written_as_named(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_whole(link, "new\n", "P")
    assert link.is_symlink() and target.read_text() == "new\n"
    from pathlib import Path

    write_whole(Path(os.devnull), "x", "P")  # as --out /dev/stdout: written, not replaced
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_writable_file_in_a_folder_kgroup_may_not_write_is_written_in_place(tmp_path, monkeypatch):
    from pathlib import Path

    page = tmp_path / "page.html"
    page.write_text("old\n")
    write_text = Path.write_text

    def no_new_file_here(self, *args, **kwargs):  # as a folder the user may not write (root may)
        if self.name.endswith(".part"):
            raise PermissionError(13, "Permission denied")
        return write_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", no_new_file_here)
    write_whole(page, "new\n", "P")
    assert page.read_text() == "new\n"
    with pytest.raises(UsageError, match=r"^cannot write P: Permission denied$"):
        write_whole(tmp_path / "new.html", "x", "P")  # no file there to write in place
