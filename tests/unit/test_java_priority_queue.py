"""kgroup.java.priority_queue: Java's PriorityQueue order on ties, worked out by hand from
PriorityQueue's siftUp/siftDown (and where Python's heapq differs)."""
from __future__ import annotations

import heapq

from kgroup.java.priority_queue import JavaPriorityQueue


def _by_key(a: tuple[str, int], b: tuple[str, int]) -> int:
    return (a[1] > b[1]) - (a[1] < b[1])


def _drain(queue: JavaPriorityQueue) -> list:
    out = []
    while (item := queue.poll()) is not None:
        out.append(item[0])
    return out


def test_equal_elements_come_out_as_java_takes_them():
    # [a, b, c] all equal; poll takes a, moves c to the root; c is not greater than b: it stays
    queue = JavaPriorityQueue(_by_key)
    queue.add_all([("a", 0), ("b", 0), ("c", 0)])
    assert queue.items() == [("a", 0), ("b", 0), ("c", 0)]
    assert _drain(queue) == ["a", "c", "b"]
    # heapq sifts the moved element to a leaf first and ends with b first: the reason for the class
    heap = [(0, "a"), (0, "b"), (0, "c")]
    heapq.heappop(heap)
    assert heap[0] == (0, "b")


def test_add_stops_at_an_equal_parent_and_poll_prefers_the_left_child_on_ties():
    queue = JavaPriorityQueue(_by_key)
    queue.add(("x", 2))
    queue.add(("y", 1))  # smaller than its parent: moves up
    queue.add(("z", 1))  # equal to the root: stays a leaf
    assert queue.items() == [("y", 1), ("x", 2), ("z", 1)]
    # poll: z to the root; children x=2 (n=2: only the left); z <= x: stays
    assert queue.poll() == ("y", 1)
    assert queue.items() == [("z", 1), ("x", 2)]
    queue.add(("w", 1))
    # [z, x, w]: poll moves w to the root, its one child x is greater: w stays
    assert _drain(queue) == ["z", "w", "x"]


def test_poll_takes_the_right_child_only_when_strictly_smaller():
    queue = JavaPriorityQueue(_by_key)
    queue.add_all([("r", 0), ("s", 3), ("t", 2), ("u", 5)])
    assert queue.items() == [("r", 0), ("s", 3), ("t", 2), ("u", 5)]
    # poll: u to the root; children s=3, t=2: the right one is smaller, t goes up, u goes to index 2
    assert queue.poll() == ("r", 0)
    assert queue.items() == [("t", 2), ("s", 3), ("u", 5)]
    assert len(queue) == 3
    assert JavaPriorityQueue(_by_key).poll() is None
