"""Kafka 4.3's streams-group task assignor (``StickyTaskAssignor``, the coordinator's ``sticky``),
in pure Python: :func:`assign` over :mod:`.model`'s types. Groundwork of the streams groups'
what-if; not reachable from the CLI yet (kgroup cannot describe streams groups).
"""
from __future__ import annotations

from kgroup.whatif.assignors.streams_sticky.assignor import assign
from kgroup.whatif.assignors.streams_sticky.model import (StreamsGroupAssignment, StreamsMemberSpec, StreamsTasks,
                                                          Subtopology, TaskAssignorError, TaskIds, TaskMap)

__all__ = ["StreamsGroupAssignment", "StreamsMemberSpec", "StreamsTasks", "Subtopology", "TaskAssignorError",
           "TaskIds", "TaskMap", "assign"]
