"""Text safe for a terminal, for every layer: the cluster layer escapes what brokers send (client
log lines, names) with it as the output layer escapes what it prints. Imports nothing of kgroup."""
from __future__ import annotations

# control characters (C0, DEL, C1) as \xNN; bidi marks, embeddings, overrides and isolates and the
# line and paragraph separators as \uNNNN
_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]}
_CONTROL.update({c: f"\\u{c:04x}" for c in (0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F),
                                            *range(0x2066, 0x206A))})


def printable(text: str) -> str:
    """``text`` safe for a terminal: control characters (and bidi overrides) as visible escapes."""
    return text.translate(_CONTROL) if not text.isprintable() or "\u2028" in text else text
