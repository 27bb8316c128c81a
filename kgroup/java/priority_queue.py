"""``java.util.PriorityQueue`` with a ``Comparator``: the same binary heap, so equal elements come
out in the same order as in Java.

Python's :mod:`heapq` keeps the same kind of heap but breaks ties differently (its ``heappop``
sifts the hole down to a leaf first and then up), so the element it returns among equals, and
the heap it leaves, can differ from Java's. Kafka's streams-group assignor picks "the least
loaded process" from such a queue, where ties are the rule. This mirrors Java's ``offer``
(``siftUp`` that stops at a parent the new element is not smaller than) and ``poll`` (the last
element moved to the root and ``siftDown`` taking the right child only when it is strictly
smaller than the left, stopping when the element is not greater than the child). ``addAll``
is ``add`` for each element, in order.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

T = TypeVar("T")


class JavaPriorityQueue(Generic[T]):
    """A ``new PriorityQueue<>(comparator)``; ``compare(a, b)`` returns <0, 0 or >0 like Java's."""

    __slots__ = ("_queue", "_compare")

    def __init__(self, compare: Callable[[T, T], int]) -> None:
        self._queue: list[T] = []
        self._compare = compare

    def __len__(self) -> int:
        return len(self._queue)

    def add(self, element: T) -> None:
        """``offer``: append, then sift up while strictly smaller than the parent."""
        queue, compare = self._queue, self._compare
        k = len(queue)
        queue.append(element)
        while k > 0:
            parent = (k - 1) >> 1
            above = queue[parent]
            if compare(element, above) >= 0:
                break
            queue[k] = above
            k = parent
        queue[k] = element

    def add_all(self, elements: Iterable[T]) -> None:
        """``AbstractQueue.addAll``: ``add`` each element in iteration order."""
        for element in elements:
            self.add(element)

    def poll(self) -> T | None:
        """Remove and return the head (``None`` when empty): the last element sifts down from the root."""
        queue, compare = self._queue, self._compare
        if not queue:
            return None
        result = queue[0]
        last = queue.pop()
        n = len(queue)
        if n > 0:
            k = 0
            half = n >> 1
            while k < half:
                child = 2 * k + 1
                c = queue[child]
                right = child + 1
                if right < n and compare(c, queue[right]) > 0:
                    child = right
                    c = queue[child]
                if compare(last, c) <= 0:
                    break
                queue[k] = c
                k = child
            queue[k] = last
        return result

    def items(self) -> list[T]:
        """The heap's array in index order (what Java's ``iterator()`` walks)."""
        return list(self._queue)
