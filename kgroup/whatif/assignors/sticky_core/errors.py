"""What Kafka's sticky assignors throw on input they cannot assign, as Python exceptions."""
from __future__ import annotations

from ..base import AssignorNeverReturns


class StickyAssignmentError(RuntimeError):
    """Kafka's assignor would throw here (``java_exception`` names what Java throws)."""

    def __init__(self, java_exception: str, message: str) -> None:
        super().__init__(f"{java_exception}: {message}")
        self.java_exception = java_exception


class AssignmentDoesNotTerminate(StickyAssignmentError, AssignorNeverReturns):
    """Kafka's assignor would loop forever on this input.

    ``GeneralAssignmentBuilder.performReassignments`` repeats passes over the partitions
    while a pass moved something.  Some inputs (seen with rack-aware assignment) make a
    pass move partitions back and forth and end in the state it started from; Java then
    never returns.  The port detects the repeated state and raises instead; callers that
    report it as a result catch its other base, :class:`kgroup.whatif.assignors.base.AssignorNeverReturns`.
    """

    def __init__(self, message: str) -> None:
        super().__init__("none (the Java assignor never returns)", message)
