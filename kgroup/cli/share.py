"""Share groups (KIP-932) in ``offsets`` and ``lag``: their start offsets and the broker's lag, as
a table or a document of their own (kgroup.group.share). Parses nothing, computes nothing."""
from __future__ import annotations

from typing import Any, Optional

import typer

from kgroup.cli.common import report_problems
from kgroup.errors import ExitCode
from kgroup.output.render import Fit, OutputFormat, warn

SHARE_OFFSETS_HEADERS = ["GROUP", "TOPIC", "PARTITION", "START-OFFSET", "LEADER-EPOCH", "LAG", "MEMBERS", "ERROR"]
SHARE_OFFSETS_FIT = Fit(ids=("MEMBERS",), drop=("ERROR", "LEADER-EPOCH", "GROUP"))


def share_offsets_documents(conn: Any, shares: dict, topics: Optional[list[str]], lag_above: Optional[int]
                            ) -> list[dict[str, Any]]:
    """The offsets document of each share group of ``shares`` (group -> its description), in order."""
    from kgroup.group.share import offsets_document
    from kgroup.lag.share import share_offsets

    found = share_offsets(conn.cluster(), conn.settings(), list(shares), warn)
    return [offsets_document(d, found[g], topics, lag_above) for g, d in shares.items()]


def share_table_rows(doc: dict[str, Any]) -> list[list[Any]]:
    return [[doc["group"], p["topic"], p["partition"], p["start_offset"], p["leader_epoch"], p["lag"],
             ",".join(p["members"]) or None, p["error"]] for p in doc["partitions"]]


def share_note(doc: dict[str, Any]) -> str:
    total = "unknown (INCOMPLETE)" if doc["total_lag"] is None else doc["total_lag"]
    per_topic = ", ".join(f"{t}={'unknown' if n is None else n}" for t, n in doc["topic_lag"].items())
    return (f"share group {doc['group']} ({doc['state'] or '-'}): total lag {total}"
            + (f"  [{per_topic}]" if per_topic else "")
            + ("" if doc["lag_reported"] else "  (the broker reports no lag (DescribeShareGroupOffsets v0, Kafka 4.1): "
                                              "kgroup's own from __share_group_state where it could be read)"))


def write_share_offsets(docs: list[dict[str, Any]], output: OutputFormat, writer: Any = None) -> None:
    """The documents through ``writer`` (a GroupsWriter of the offsets document: JSON), or as a
    table / CSV of their own."""
    from kgroup.output.stream import GroupsWriter

    own = writer is None
    if own:
        writer = GroupsWriter(output, SHARE_OFFSETS_HEADERS, fit=SHARE_OFFSETS_FIT)
    for doc in docs:
        writer.add({k: v for k, v in doc.items() if k != "topic_lag"}, share_table_rows(doc),
                   [share_note(doc)])
    if own:
        writer.close()


def share_verdict(docs: list, problems: list[str], lag_above: Optional[int]) -> None:
    """offsets' verdict over share groups' documents alone: INCOMPLETE (exit 3), or over --lag-above (exit 1)."""
    from kgroup.lag.now import LagVerdict

    verdict = LagVerdict(lag_above)
    for doc in docs:
        verdict.add(doc)
    report_problems(verdict.problems(problems))
    if verdict.verdict == "over":
        shown = ", ".join(f"{group} {topic}-{partition} ({lag})" for group, topic, partition, lag in verdict.over)
        more = verdict.over_count - verdict.shown
        warn(f"lag above {lag_above} on {verdict.over_count} partition(s): {shown}"
             + (f" and {more} more" if more > 0 else ""))
        raise typer.Exit(ExitCode.FLAGGED)
