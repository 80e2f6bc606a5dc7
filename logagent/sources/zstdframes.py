"""Where zstd frames end in a compressed stream, from their headers alone (PURE).

A decompressor that bounds its output (``zstandard``'s ``stream_writer`` and
``stream_reader``: each call writes or returns at most a given size, so a
"bomb", 4 bytes of an RLE block per 128 KiB, never expands in memory) takes a
stream cut inside a frame for a whole one; ``decompressobj`` tells a cut but
returns everything a feed expands to at once (16 KiB of such a stream: 512 MiB).
``FrameEnds`` walks the frame and block headers (RFC 8878 §3.1) of the same
bytes, skipping block contents, and says whether the bytes fed so far end at a
frame's end: a stream that does not was cut short.

It judges only structure: a damaged block's contents are the decompressor's to
find (it raises), and a stream that is no zstd at all is ``broken``.
"""

from __future__ import annotations

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
#: Skippable frames: magic 0x184D2A50..0x184D2A5F (little-endian), a 4-byte size, data.
_SKIPPABLE = (0x184D2A50, 0x184D2A5F)
_DICT_ID_BYTES = (0, 1, 2, 4)
_FCS_BYTES = (0, 2, 4, 8)


class FrameEnds:
    """Fed the compressed bytes in order, says whether they end at a frame boundary."""

    def __init__(self) -> None:
        self._head = b""  # bytes of a header being gathered
        self._want = 4  # bytes wanted for it (a magic number first)
        self._skip = 0  # bytes of content to pass over
        self._state = "magic"  # magic | frame header | skippable size | block | checksum
        self._checksum = False
        #: Why the bytes are no zstd stream (a wrong magic, a reserved block type), else None.
        self.broken: str | None = None

    @property
    def at_boundary(self) -> bool:
        """Whether the bytes fed so far end where a frame ends (or nothing was fed)."""
        idle = self._state == "magic" and not self._head and not self._skip
        return idle and self.broken is None

    def feed(self, data: bytes | memoryview) -> None:
        """Take the next compressed bytes."""
        view = memoryview(data)
        while len(view) and self.broken is None:
            if self._skip:
                n = min(self._skip, len(view))
                self._skip -= n
                view = view[n:]
                if not self._skip and self._state == "checksum":
                    self._state = "magic"
                continue
            n = min(self._want - len(self._head), len(view))
            self._head += bytes(view[:n])
            view = view[n:]
            if len(self._head) == self._want:
                self._header()

    def _header(self) -> None:
        head, self._head = self._head, b""
        if self._state == "magic":
            magic = int.from_bytes(head, "little")
            if head == ZSTD_MAGIC:
                self._state, self._want = "descriptor", 1
            elif _SKIPPABLE[0] <= magic <= _SKIPPABLE[1]:
                self._state, self._want = "skippable", 4
            else:
                self.broken = "not a zstd frame (its magic number)"
        elif self._state == "descriptor":
            fhd = head[0]
            single = bool(fhd & 0x20)
            fcs = _FCS_BYTES[fhd >> 6] or (1 if single else 0)
            self._checksum = bool(fhd & 0x04)
            rest = (0 if single else 1) + _DICT_ID_BYTES[fhd & 0x03] + fcs
            self._state, self._skip, self._want = "block", rest, 3
        elif self._state == "skippable":
            self._skip = int.from_bytes(head, "little")
            self._state, self._want = "magic", 4
        elif self._state == "block":
            value = int.from_bytes(head, "little")
            last, kind, size = value & 1, (value >> 1) & 3, value >> 3
            if kind == 3:
                self.broken = "a reserved zstd block type"
                return
            self._skip = 1 if kind == 1 else size  # an RLE block holds one byte
            if last:
                self._state = "checksum"
                self._skip += 4 if self._checksum else 0
                self._want = 4
                if not self._skip:
                    self._state = "magic"
            else:
                self._want = 3
