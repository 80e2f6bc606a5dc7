"""A .zst read by the CLI (``sources.streams.ZstdFrames``): bounded memory on a "bomb", a cut
frame said, the bytes before a damaged block kept."""

from __future__ import annotations

import io
import tracemalloc

import pytest
import zstandard

from logagent.sources.streams import ZstdFrames


def _read_all(stream: ZstdFrames, n: int = 1 << 20) -> bytes:
    out = bytearray()
    while piece := stream.read(n):
        assert len(piece) <= n
        out += piece
    return bytes(out)


def test_a_zstd_bomb_is_read_in_bounded_memory() -> None:
    """128 MiB of zeros packs into a few KiB; one 16 KiB feed of ``decompressobj`` had held all
    of it at once. Read 1 MiB at a time, the peak stays a few MiB."""
    packed = zstandard.ZstdCompressor(level=3).compress(b"\0" * (128 << 20))
    assert len(packed) < 16 << 10
    stream = ZstdFrames(io.BytesIO(packed))
    tracemalloc.start()
    try:
        total = 0
        while piece := stream.read(1 << 20):
            total += len(piece)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert total == 128 << 20
    assert peak < 16 << 20, peak


@pytest.mark.parametrize("cut", [0.3, 0.7, 0.99])  # not 0.5: the frames' boundary
def test_a_cut_frame_is_an_error_after_the_bytes_before_it(cut: float) -> None:
    data = b"".join(b"line %d of the log\n" % i for i in range(200_000))
    packed = zstandard.ZstdCompressor().compress(data) * 2  # two frames
    whole = ZstdFrames(io.BytesIO(packed))
    assert _read_all(whole) == data + data
    cut_at = int(len(packed) * cut)
    stream = ZstdFrames(io.BytesIO(packed[:cut_at]))
    got = bytearray()
    with pytest.raises(EOFError):
        while piece := stream.read(1 << 20):
            got += piece
    assert (data + data).startswith(bytes(got)) and len(got) > 0
