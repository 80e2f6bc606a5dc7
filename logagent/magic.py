"""What an input's first bytes say it is: a compression, or text with a byte-order mark (PURE).

Found by content, never by name (a rotated ``access.log.1`` may be gzip). The
readers (``sources.files``, ``distributed.inputs``) open an input by what
``kind_of`` says; the CLI looks at it before Polars loads (``cli.startup``).
"""

from __future__ import annotations

#: The byte-order marks of UTF-32 and UTF-16 (UTF-32's first: FF FE 00 00 starts both).
TEXT_MARKS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
#: The first that starts an input names it.
MAGIC = {
    b"\x1f\x8b": "gzip",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"BZh": "bzip2",
    b"\xfd7zX": "xz",  # of its 6 bytes, the 4 an input's head holds
    **dict(TEXT_MARKS),
}


def kind_of(head: bytes) -> str | None:
    """The compression or text encoding ``head`` (an input's first 4 bytes) names, if any."""
    return next((kind for magic, kind in MAGIC.items() if head.startswith(magic)), None)


#: The byte order each mark names: the codec that reads the same text without its mark.
_BYTE_ORDER = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


BYTE_ORDER_CODECS = frozenset(codec for _, codec in _BYTE_ORDER)


def byte_order_codec(head: bytes) -> str | None:
    """The codec of the text ``head``'s byte-order mark starts (``utf-16-le``, ...), which
    reads a continuation of that text written without the mark (a log cut by ``copytruncate``
    goes on without one); None without a mark."""
    return next((codec for mark, codec in _BYTE_ORDER if head.startswith(mark)), None)


def reads_as(codec: str, head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes, a mark or not) looks like text in ``codec``:
    log text is mostly ASCII, so half of UTF-16's bytes are NUL, three quarters of UTF-32's,
    and next to none of UTF-8's (an app that went back to UTF-8 is read as such again)."""
    if not head:
        return False
    share = 0.75 if codec.startswith("utf-32") else 0.5
    return head.count(0) >= share * len(head) * 0.9


def pinned_codec(text: str | None, head: bytes) -> str | None:
    """``text`` (a ``BYTE_ORDER_CODECS`` codec kept for an input) if ``head``, the first
    bytes of an input without a mark or magic of its own, reads as it; else None."""
    return text if text in BYTE_ORDER_CODECS and reads_as(text, head) else None


def text_kind(head: bytes) -> str | None:
    """The text encoding ``head``'s byte-order mark names, if any."""
    return next((kind for mark, kind in TEXT_MARKS if head.startswith(mark)), None)
