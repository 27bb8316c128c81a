"""kgroup.java.strings: String.hashCode and String.compareTo order.

Expected values are worked by hand from the definitions (``h = 31*h + unit`` over UTF-16
code units, wrapped to a signed 32-bit int; ``compareTo`` compares code units).
"""
from __future__ import annotations

from kgroup.java.primitives import float32_div, to_float32, to_int32
from kgroup.java.strings import java_string_hash, java_string_key

EMOJI = "\U0001F600"  # UTF-16: D83D DE00
FULLWIDTH_A = "\uff21"  # UTF-16: FF21


def test_hash_code_by_hand():
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    # "Aa" = 65*31 + 97 = 2112 = "BB" = 66*31 + 66
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    # "hello": 104 -> 3325 -> 103183 -> 3198781 -> 99162322
    assert java_string_hash("hello") == 99162322
    # a character outside the BMP hashes as its two surrogates: 0xD83D * 31 + 0xDE00
    assert java_string_hash(EMOJI) == 55357 * 31 + 56832 == 1772899
    # "x" + emoji: (120 * 31 + 0xD83D) * 31 + 0xDE00
    assert java_string_hash("x" + EMOJI) == (120 * 31 + 55357) * 31 + 56832
    # wrap-around: a well-known string whose hash is Integer.MIN_VALUE
    assert java_string_hash("polygenelubricants") == -(2**31)


def test_hash_code_wraps_like_java_int():
    text = "z" * 40
    h = 0
    for c in text:
        h = (31 * h + ord(c)) % 2**32
    assert java_string_hash(text) == (h - 2**32 if h >= 2**31 else h)


def test_compare_key_orders_by_utf16_code_units():
    # Python orders code points: U+FF21 < U+1F600; Java orders code units: D83D < FF21
    assert sorted([FULLWIDTH_A, EMOJI]) == [FULLWIDTH_A, EMOJI]
    assert sorted([FULLWIDTH_A, EMOJI], key=java_string_key) == [EMOJI, FULLWIDTH_A]
    assert java_string_key(EMOJI) == "\ud83d\ude00"
    # upper case before lower case, a prefix before its extensions
    assert sorted(["b", "a", "B", "ab", "A"], key=java_string_key) == ["A", "B", "a", "ab", "b"]
    # BMP-only strings keep Python's order
    words = ["z", "é", "\u4e2d", "\uffff", "a"]
    assert sorted(words, key=java_string_key) == sorted(words)


def test_primitives():
    assert to_int32(2**31) == -(2**31)
    assert to_int32(-1) == -1
    assert to_int32(2**32 + 5) == 5
    assert to_float32(0.1) != 0.1 and abs(to_float32(0.1) - 0.1) < 1e-8
    # 25165823 is not a float: it rounds (to even) to 25165824 = 3 * 2**23, and / .75f is 2**25
    assert to_float32(25165823) == 25165824.0
    assert float32_div(25165823, 0.75) == 2.0**25
    assert float32_div(12, 0.75) == 16.0
