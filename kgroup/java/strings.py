"""``java.lang.String``: ``hashCode()`` and the order of ``compareTo``.

Java strings are sequences of UTF-16 code units; Python strings are sequences of code
points. The two agree on every character of the Basic Multilingual Plane and disagree on
the others (an emoji, say), which Java stores as a surrogate pair ``0xD800..0xDFFF``:

* ``hashCode`` runs ``h = 31 * h + unit`` over the code units with 32-bit wrap-around, so
  a character outside the BMP contributes its two surrogates.
* ``compareTo`` compares code units, so such a character sorts *before* BMP characters
  ``0xE000..0xFFFF``, where Python puts it after them.

Kafka's output depends on both: ``Utils.abs(groupId.hashCode())`` picks a group's
coordinator, every ``HashMap``/``HashSet`` keyed by member ids or topic names iterates by
``hashCode`` (:mod:`kgroup.java.hashmap`), and the assignors sort member ids, instance ids
and topic names with ``compareTo``.
"""
from __future__ import annotations

import re

from kgroup.java.primitives import to_int32

_MASK32 = 0xFFFFFFFF
_CACHE_LIMIT = 1_000_000
_hash_cache: dict[str, int] = {}
_key_cache: dict[str, str] = {}
_NON_BMP: re.Pattern[str] | None = None  # compiled when the first non-ASCII string needs it


def java_string_hash(text: str) -> int:
    """``String.hashCode()``: ``h = 31*h + c`` over UTF-16 code units, signed 32-bit.

    Results are cached (the assignors hash the same member ids and topic names many times).
    """
    value = _hash_cache.get(text)
    if value is not None:
        return value
    if text.isascii():
        units: bytes | list[int] = text.encode("ascii")
    else:
        raw = text.encode("utf-16-be", "surrogatepass")
        units = [(raw[i] << 8) | raw[i + 1] for i in range(0, len(raw), 2)]
    h = 0
    for unit in units:
        h = (31 * h + unit) & _MASK32
    value = to_int32(h)
    if len(_hash_cache) < _CACHE_LIMIT:
        _hash_cache[text] = value
    return value


def _surrogate_pair(match: re.Match[str]) -> str:
    code = ord(match.group()) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def java_string_key(text: str) -> str:
    """Sort key with which Python orders strings exactly as ``String.compareTo`` does.

    Characters outside the BMP are replaced by their UTF-16 surrogate pair, so that
    comparing keys code point by code point compares UTF-16 code units (a shorter string
    that is a prefix of a longer one sorts first, as in Java).
    """
    key = _key_cache.get(text)
    if key is None:
        if text.isascii():
            key = text
        else:
            global _NON_BMP
            if _NON_BMP is None:
                _NON_BMP = re.compile("[\U00010000-\U0010FFFF]")
            key = _NON_BMP.sub(_surrogate_pair, text)
        if len(_key_cache) < _CACHE_LIMIT:
            _key_cache[text] = key
    return key
