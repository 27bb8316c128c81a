"""kgroup.assignment in process: the compact form of an assignment, worked by hand."""
from __future__ import annotations

from kgroup.assignment import compact, normalized, partition_count, ranges


def test_ranges_joins_consecutive_partitions():
    assert ranges([6, 0, 3, 1, 2]) == "0-3,6"
    assert ranges([5, 5, 7]) == "5,7"  # a repeated partition counts once
    assert ranges([4]) == "4"
    assert ranges([0, 1, 3, 4, 9]) == "0-1,3-4,9"
    assert ranges([]) == ""


def test_compact_sorts_topics_and_skips_empty_ones():
    assert compact({"Stock": [2, 0, 1], "Order": [6, 0, 1, 2, 3], "Gone": []}) == "Order:0-3,6 Stock:0-2"
    assert compact({}) == ""
    assert compact(None) == ""


def test_partition_count_and_normalized():
    assignment = {"Stock": [4], "Order": [5, 6], "Gone": []}
    assert partition_count(assignment) == 3
    assert partition_count(None) == 0
    assert normalized({"Stock": [2, 0], "Order": [6, 5], "Gone": []}) == {"Order": [5, 6], "Stock": [0, 2]}
    assert list(normalized({"b": [1], "a": [0]})) == ["a", "b"]
