"""Kafka's JSON form of a record (its generated JSON converters): fields absent from the version
left out, tagged fields only when not at their default, bytes as base64.
"""
from __future__ import annotations

import base64
from typing import Any

from kgroup.kmsg.schema import F, Layout

def to_json(layout: Layout, version: int, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as Kafka's generated JSON converters print it at ``version``: fields absent
    from the version left out, tagged fields only when not at their default, bytes as base64."""
    return _json_struct(_json_plan(layout.fields, version), data)


# A plan per (fields, version): (name, kind, skip-if-default?, default, sub-plan) for the
# fields present in that version; kind: 0 as is, 1 bytes, 2 struct, 3 [struct], 4 [bytes].
_PLANS: dict[tuple[int, int], tuple[tuple[Any, ...], list[Any]]] = {}  # (id(fields), version) -> (fields, plan)
_b64 = base64.b64encode


def _json_plan(fields: tuple[F, ...], version: int) -> list[Any]:
    key = (id(fields), version)
    cached = _PLANS.get(key)
    if cached is not None:
        return cached[1]
    plan = []
    for f in fields:
        if not f.present_in(version):
            continue
        kind = {"bytes": 1, "struct": 2}.get(f.element, 0)
        if f.is_array:
            kind = {1: 4, 2: 3}.get(kind, 0)
        sub = _json_plan(f.fields, version) if f.element == "struct" else None
        plan.append((f.name, kind, f.tagged_in(version), f.default_value(), sub))
    _PLANS[key] = (fields, plan)  # holding ``fields`` keeps its id from being reused
    return plan


def _json_struct(plan: list[Any], data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, kind, tagged, default, sub in plan:
        value = data[name]
        if tagged and value == default:
            continue
        if value is None or kind == 0:
            out[name] = value
        elif kind == 1:
            out[name] = _b64(value).decode("ascii")
        elif kind == 2:
            out[name] = _json_struct(sub, value)
        elif kind == 3:
            out[name] = [_json_struct(sub, e) for e in value]
        else:
            out[name] = [_b64(e).decode("ascii") for e in value]
    return out
