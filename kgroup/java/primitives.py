"""Java primitive arithmetic: 32-bit ``int`` wrap-around and ``float`` (binary32) rounding."""
from __future__ import annotations

import struct

_MASK32 = 0xFFFFFFFF
_F32 = struct.Struct("<f")


def to_int32(n: int) -> int:
    """Wrap an integer to Java's signed 32-bit ``int`` range (what ``(int)`` of a long keeps)."""
    n &= _MASK32
    return n - 0x100000000 if n & 0x80000000 else n


def to_float32(x: float) -> float:
    """Round ``x`` to the nearest Java ``float`` (IEEE binary32), as a widening cast would hold it."""
    value: float = _F32.unpack(_F32.pack(x))[0]
    return value


def float32_div(a: float, b: float) -> float:
    """``a / b`` evaluated in Java ``float`` arithmetic (operands and result binary32).

    Dividing in double precision and rounding once to binary32 gives the correctly rounded
    binary32 quotient (53 >= 2 * 24 + 2 bits), which is what Java computes.
    """
    return to_float32(to_float32(a) / to_float32(b))
