"""kgroup.output.progress in process: nothing on a pipe; on a terminal, one line redrawn in place and
cleared at the end."""
from __future__ import annotations

import io

from kgroup.output.progress import progress_bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_written_when_stderr_is_not_a_terminal():
    out = io.StringIO()
    with progress_bar(out) as update:
        update("reading", 3, 10)
        update("reading", 10, 10)
    assert out.getvalue() == ""


def test_a_terminal_gets_the_line_and_its_clearing():
    out = Terminal()
    with progress_bar(out) as update:
        update("reading", 10, 10)  # a finished stage is always drawn: 30 of 30 marks
    assert out.getvalue() == ("\rreading            [" + "#" * 30 + "] 10/10\x1b[K" + "\r\x1b[K")


def test_the_bar_is_filled_in_proportion():
    out = Terminal()
    with progress_bar(out) as update:
        update("partitions", 3, 10)  # the first update is drawn: int(30 * 3 / 10) = 9 marks
    assert out.getvalue() == ("\rpartitions         [" + "#" * 9 + "." * 21 + "] 3/10\x1b[K" + "\r\x1b[K")


def test_an_empty_total_draws_a_full_bar_and_nothing_drawn_means_nothing_cleared():
    out = Terminal()
    with progress_bar(out) as update:
        update("groups", 0, 0)
    assert out.getvalue() == "\rgroups             [" + "#" * 30 + "] 0/0\x1b[K\r\x1b[K"
    out = Terminal()
    with progress_bar(out):
        pass
    assert out.getvalue() == ""
