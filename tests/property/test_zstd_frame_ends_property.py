"""``FrameEnds`` says a zstd stream ends at a frame's end exactly where it does: every cut of
streams of random frames (checksums or not, content sizes or not, skippable frames between
them, one-shot and streamed, empty ones) is judged against the frames' own boundaries."""

from __future__ import annotations

import random

import pytest
import zstandard

from logagent.sources.zstdframes import FrameEnds


def _frames(rng: random.Random) -> tuple[bytes, set[int]]:
    """A stream of 1-4 frames and the offsets where a frame ends (0 included)."""
    out, ends = b"", {0}
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.2:  # a skippable frame
            data = rng.randbytes(rng.randint(0, 40))
            frame = (0x184D2A50 + rng.randint(0, 15)).to_bytes(4, "little")
            frame += len(data).to_bytes(4, "little") + data
        else:
            size = rng.choice([0, 1, 100, 5000, 200_000])
            data = (rng.randbytes(50) + b"\0" * rng.randint(0, 3000)) * (size // 1000 + 1)
            data = data[:size]
            if rng.random() < 0.3:  # whole blocks of one byte: zstd writes RLE blocks
                data += b"\0" * rng.choice([131_072, 400_000])
            cctx = zstandard.ZstdCompressor(
                level=rng.choice([1, 3, 19]),
                write_checksum=rng.random() < 0.5,
                write_content_size=rng.random() < 0.5,
            )
            if rng.random() < 0.5:
                frame = cctx.compress(data)
            else:  # streamed: no content size in the header, blocks as they come
                obj = cctx.compressobj()
                frame = obj.compress(data) + obj.flush()
        out += frame
        ends.add(len(out))
    return out, ends


@pytest.mark.parametrize("seed", range(40))
def test_every_cut_is_judged_by_the_frames_own_ends(seed: int) -> None:
    rng = random.Random(seed)
    stream, ends = _frames(rng)
    cuts = {0, len(stream), *(rng.randint(0, len(stream)) for _ in range(60))}
    cuts |= {e + d for e in ends for d in (-1, 1) if 0 <= e + d <= len(stream)}
    for cut in sorted(cuts):
        frames = FrameEnds()
        at = 0
        while at < cut:  # fed in random pieces, as chunks of a body arrive
            step = rng.choice([1, 3, 7, 100, 4096, 70_000])
            frames.feed(stream[at : min(cut, at + step)])
            at += step
        assert frames.broken is None
        assert frames.at_boundary == (cut in ends), (seed, cut)


def test_a_stream_that_is_no_zstd_is_broken() -> None:
    frames = FrameEnds()
    frames.feed(b"not zstd at all")
    assert frames.broken is not None and not frames.at_boundary
