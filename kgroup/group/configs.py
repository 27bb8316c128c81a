"""A group's configs (KIP-848 group configs, e.g. streams.num.standby.replicas,
share.delivery.count.limit) as Cluster.group_configs answers them: each value with where it comes
from, said in a few words (the group's own setting, or the brokers' default it falls back on)."""
from __future__ import annotations

from typing import Any

GROUP_CONFIG_SOURCE = 8  # Kafka's ConfigSource.GROUP_CONFIG: set on the group itself


def group_config(found: Any, group: str, name: str, why_not: str) -> tuple[str | None, str]:
    """(value, where it comes from) of config ``name`` of ``group`` in a group configs answer
    ({group: {name: (value, source)} or an error with ``code`` and ``message``}; None: not asked,
    ``why_not`` says why), or (None, why it is not known)."""
    if found is None:
        return None, f"the group's {name} could not be asked ({why_not})"
    answer = found.get(group)
    if answer is None or hasattr(answer, "code"):
        detail = "" if answer is None else f": error {answer.code}" + (f" {answer.message}" if answer.message else "")
        return None, f"the group's {name} was not answered{detail}"
    entry = answer.get(name)
    if entry is None or entry.value is None:
        return None, f"the brokers report no {name} for the group (a broker before the config existed)"
    if entry.source == GROUP_CONFIG_SOURCE:
        return entry.value, f"the group's own {name}"
    return entry.value, f"the brokers' default group.{name} (the group sets none)"


def int_config(found: Any, group: str, name: str, why_not: str) -> tuple[int | None, str]:
    """:func:`group_config` of a whole number (a value that is not one: not known, said)."""
    value, where = group_config(found, group, name, why_not)
    if value is None:
        return None, where
    if not value.isdigit():
        return None, f"{where} is {value!r}, not a whole number"
    return int(value), where
