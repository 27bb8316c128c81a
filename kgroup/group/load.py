"""A command's groups, from a snapshot file or captured live: the one way ``describe``,
``offsets``, ``whatif``, ``snapshot``, ``find-coordinator --snapshot`` and ``report`` get them."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from kgroup.errors import UsageError
from kgroup.group.model import GroupState

if TYPE_CHECKING:  # the capture engine is loaded only for a live capture (offline commands start faster)
    from kgroup.group.capture import GroupSource, Progress


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


class Loaded(NamedTuple):
    states: dict[str, GroupState]
    problems: list[str]  # what could not be read (the answer is INCOMPLETE)
    notes: list[str]  # what the caller should say (topics set apart as deleted)


def group_states(snapshot: Path | None, groups: list[str], cluster: Callable[[], GroupSource], *,
                 topics: list[str] | None = None, offsets: bool = True, racks: bool = False,
                 drop_deleted: bool = False, progress: "Progress" = _no_progress,
                 also_topics: Iterable[str] = ()) -> Loaded:
    """GroupState per group, from the snapshot file ``snapshot`` or captured live from the cluster
    ``cluster()`` makes (asked only then). ``drop_deleted``: assignments of topics missing from the
    metadata are set apart (with a note), as the assignors do (kgroup.group.capture.drop_deleted_topics).
    ``also_topics``: topics whose layout the states hold besides the group's (whatif's added members')."""
    if snapshot is not None:
        from kgroup.group import snapshot as snapshot_format

        state = snapshot_format.load(snapshot)
        wanted = groups or [state.group.group_id]
        missing = [g for g in wanted if g != state.group.group_id]
        if missing:
            raise UsageError(f"snapshot {snapshot} holds group {state.group.group_id}, not {', '.join(missing)}")
        return Loaded({state.group.group_id: state}, [], [])
    from kgroup.group.capture import capture

    result = capture(cluster(), groups, topics=topics, offsets=offsets, racks=racks, drop_deleted=drop_deleted,
                     progress=progress, also_topics=also_topics, other_types=True)
    return Loaded(result.states, result.problems, result.notes)
