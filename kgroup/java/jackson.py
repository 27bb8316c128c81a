"""JSON text as Jackson's ``JsonNode.toString()`` writes it (what Kafka's tools print).

Compact (no spaces), non-ASCII characters as they are, ``\\"``, ``\\\\``, ``\\b``,
``\\t``, ``\\n``, ``\\f``, ``\\r`` short escapes and other control characters as
``\\u00XX`` with upper-case hex digits (Python writes lower case: the only
difference this module corrects).
"""
from __future__ import annotations

import json
import re

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
_LOWER_HEX = re.compile(r"(?<!\\)((?:\\\\)*)\\u00([0-9a-f]{2})")


def _upper(m: re.Match[str]) -> str:
    return f"{m.group(1)}\\u00{m.group(2).upper()}"


def dumps(obj: object) -> str:
    text = _ENCODER.encode(obj)
    if "\\u00" in text:
        text = _LOWER_HEX.sub(_upper, text)
    return text
