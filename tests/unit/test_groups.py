"""kgroup.groups in-process: the verdict over an offsets answer taken group by group."""
from __future__ import annotations

from kgroup.groups import LagVerdict


def _g(group, over=(), unknown=(), complete=True):
    return {"group": group, "complete": complete,
            "over_threshold": [{"topic": t, "partition": p, "lag": lag} for t, p, lag in over],
            "unknown": [{"topic": t, "partition": p, "reason": r} for t, p, r in unknown]}


def test_over_keeps_the_first_shown_and_counts_them_all():
    v = LagVerdict(5, shown=2)
    v.add(_g("A", over=[("T", 0, 9)]))
    v.add(_g("B"))
    v.add(_g("C", over=[("T", 1, 6), ("U", 0, 7)]))
    assert v.verdict == "over"
    assert v.over == [("A", "T", 0, 9), ("C", "T", 1, 6)] and v.over_count == 3
    assert v.problems([]) == []


def test_nothing_passes_on_an_incomplete_answer():
    v = LagVerdict(5)
    v.add(_g("A", over=[("T", 0, 9)]))
    v.add(_g("B", unknown=[("T", 1, "log-end offset unknown"), ("T", 2, "log-end offset unknown")],
             complete=False))
    assert v.verdict == "incomplete"
    # a problem reported while reading that names T-1 stands for it; T-2 is added
    assert v.problems(["T-1: not read"]) == ["T-1: not read", "B T-2: log-end offset unknown"]


def test_an_incomplete_answer_always_says_something():
    v = LagVerdict(None)
    v.add(_g("A", complete=False))
    assert v.problems([]) == ["some values are unknown"]
    ok = LagVerdict(None)
    ok.add(_g("A"))
    assert (ok.verdict, ok.problems([])) == ("ok", [])


def test_without_a_threshold_nothing_is_over():
    v = LagVerdict(None)
    v.add({"group": "A", "complete": True, "unknown": []})  # no over_threshold without --lag-above
    assert (v.verdict, v.over, v.over_count) == ("ok", [], 0)
