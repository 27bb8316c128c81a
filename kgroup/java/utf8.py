"""Decode bytes as Java's ``new String(bytes, StandardCharsets.UTF_8)`` does.

Well-formed UTF-8 decodes the same in Java and Python. Malformed input does
not: Java replaces each malformed sequence with one U+FFFD by the rules of its
UTF-8 decoder (a surrogate encoded in three bytes, ``ed a0 80``, is one
replacement; Python's ``errors="replace"`` gives three), and an incomplete
sequence at the end of the input is one replacement. This module follows those
rules; a differential test runs Java itself on the same bytes.
"""
from __future__ import annotations

REPLACEMENT = "\ufffd"


def _cont(b: int) -> bool:
    return (b & 0xC0) == 0x80


def java_utf8(data: bytes) -> str:
    """The String Java builds from ``data`` (UTF-8, malformed input replaced)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _slow(data)


def _slow(s: bytes) -> str:
    out: list[str] = []
    sp, sl = 0, len(s)
    while sp < sl:
        b1 = s[sp]
        if b1 < 0x80:
            out.append(chr(b1))
            sp += 1
        elif 0xC2 <= b1 <= 0xDF:  # two bytes
            if sl - sp < 2:
                out.append(REPLACEMENT)
                break
            b2 = s[sp + 1]
            if not _cont(b2):
                out.append(REPLACEMENT)
                sp += 1
            else:
                out.append(chr(((b1 & 0x1F) << 6) | (b2 & 0x3F)))
                sp += 2
        elif 0xE0 <= b1 <= 0xEF:  # three bytes
            rem = sl - sp
            if rem < 3:
                if rem > 1 and _malformed3_2(b1, s[sp + 1]):
                    out.append(REPLACEMENT)
                    sp += 1
                    continue
                out.append(REPLACEMENT)  # incomplete at the end: one replacement for the rest
                break
            b2, b3 = s[sp + 1], s[sp + 2]
            if _malformed3_2(b1, b2) or not _cont(b3):
                out.append(REPLACEMENT)
                sp += 1 if (b1 == 0xE0 and (b2 & 0xE0) == 0x80) or not _cont(b2) else 2
                continue
            c = ((b1 & 0x0F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F)
            out.append(REPLACEMENT if 0xD800 <= c <= 0xDFFF else chr(c))
            sp += 3
        elif 0xF0 <= b1 <= 0xF7:  # four bytes
            rem = sl - sp
            if rem < 4:
                if b1 > 0xF4 or (rem > 1 and _malformed4_2(b1, s[sp + 1])):
                    out.append(REPLACEMENT)
                    sp += 1
                    continue
                if rem > 2 and not _cont(s[sp + 2]):
                    out.append(REPLACEMENT)
                    sp += 2
                    continue
                out.append(REPLACEMENT)
                break
            b2, b3, b4 = s[sp + 1], s[sp + 2], s[sp + 3]
            uc = ((b1 & 0x07) << 18) | ((b2 & 0x3F) << 12) | ((b3 & 0x3F) << 6) | (b4 & 0x3F)
            if not (_cont(b2) and _cont(b3) and _cont(b4)) or not 0x10000 <= uc <= 0x10FFFF:
                out.append(REPLACEMENT)
                if (b1 > 0xF4 or (b1 == 0xF0 and not 0x90 <= b2 <= 0xBF)
                        or (b1 == 0xF4 and (b2 & 0xF0) != 0x80) or not _cont(b2)):
                    sp += 1
                elif not _cont(b3):
                    sp += 2
                else:
                    sp += 3
                continue
            out.append(chr(uc))
            sp += 4
        else:
            out.append(REPLACEMENT)
            sp += 1
    return "".join(out)


def _malformed3_2(b1: int, b2: int) -> bool:
    return (b1 == 0xE0 and (b2 & 0xE0) == 0x80) or not _cont(b2)


def _malformed4_2(b1: int, b2: int) -> bool:
    return ((b1 == 0xF0 and not 0x90 <= b2 <= 0xBF) or (b1 == 0xF4 and (b2 & 0xF0) != 0x80)
            or not _cont(b2))
