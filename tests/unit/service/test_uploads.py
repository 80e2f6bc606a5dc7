"""The upload pipeline: multipart, gzip and zstd decoded from awkwardly split chunks."""

from __future__ import annotations

import asyncio
import errno
import gzip
import io
import random
import zlib
from collections.abc import AsyncIterator

import pytest
import zstandard

from logagent.service.uploads import (
    OUT_CHUNK,
    BadUpload,
    DiskFull,
    LimitedFile,
    Received,
    UploadTooLarge,
    filename_of,
    receive,
)

LOG = b"".join(b"127.0.0.1 - - line %d GET /a 500\n" % i for i in range(5000))


def splits(data: bytes, seed: int) -> list[bytes]:
    """``data`` cut at random places, including 1-byte chunks."""
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(data):
        n = rng.choice([1, 2, 3, 7, 64, 1000, 70_000])
        out.append(data[i : i + n])
        i += n
    return out


async def _chunks(parts: list[bytes]) -> AsyncIterator[bytes]:
    for p in parts:
        yield p


def store(parts: list[bytes], **kw: object) -> tuple[bytes, Received]:
    """Run ``receive`` over ``parts``; the stored bytes and its return value."""
    f = io.BytesIO()
    kw.setdefault("max_bytes", 1 << 30)
    got = asyncio.run(receive(_chunks(parts), f, **kw))  # type: ignore[arg-type]
    return f.getvalue(), got


def multipart(content: bytes, boundary: str = "XyZ--b0undary", extra: bool = True) -> bytes:
    head = f"--{boundary}\r\n".encode()
    out = b"preamble\r\n" + head
    if extra:
        out += b'Content-Disposition: form-data; name="note"\r\n\r\nhello\r\n' + head
    out += b'Content-Disposition: form-data; name="file"; filename="a.log"\r\n'
    out += b"Content-Type: application/octet-stream\r\n\r\n" + content
    return out + f"\r\n--{boundary}--\r\nepilogue".encode()


@pytest.mark.parametrize("seed", range(5))
def test_plain_body_is_stored_unchanged(seed: int) -> None:
    """A plain body is written byte for byte, whatever the chunking."""
    data, (received, stored, kind, _, _) = store(splits(LOG, seed))
    assert data == LOG and received == stored == len(LOG) and kind == "plain"


@pytest.mark.parametrize("seed", range(5))
def test_gzip_by_magic_and_by_header_is_decoded(seed: int) -> None:
    """gzip is undone whether the header says so or only its magic does; members concatenate."""
    body = gzip.compress(LOG[:40_000]) + gzip.compress(LOG[40_000:])
    data, (_, stored, kind, _, _) = store(splits(body, seed))
    assert data == LOG and stored == len(LOG) and kind == "gzip"
    data, _ = store(splits(body, seed), content_encoding="gzip")
    assert data == LOG


@pytest.mark.parametrize("seed", range(3))
def test_zstd_by_magic_is_decoded(seed: int) -> None:
    """A zstd body is recognized by its magic and stored plain."""
    body = zstandard.ZstdCompressor().compress(LOG)
    data, (_, _, kind, _, _) = store(splits(body, seed))
    assert data == LOG and kind == "zstd"


@pytest.mark.parametrize("seed", range(8))
def test_multipart_file_part_is_extracted(seed: int) -> None:
    """Only the ``file`` part's bytes are stored, with delimiters split across chunks."""
    ctype = 'multipart/form-data; boundary="XyZ--b0undary"'
    data, got = store(splits(multipart(LOG), seed), content_type=ctype)
    assert data == LOG and got.filename == "a.log"


def test_multipart_gzip_file_part_is_decoded() -> None:
    """A gzip file inside a multipart body is decoded too."""
    ctype = "multipart/form-data; boundary=b"
    data, _ = store(splits(multipart(gzip.compress(LOG), "b", extra=False), 1), content_type=ctype)
    assert data == LOG


def test_multipart_without_file_part_is_refused() -> None:
    """A multipart body with no complete ``file`` part is a 400."""
    body = b'--b\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n--b--\r\n'
    with pytest.raises(BadUpload):
        store([body], content_type="multipart/form-data; boundary=b")
    with pytest.raises(BadUpload):  # cut inside the file part
        store([multipart(LOG, "b")[:5000]], content_type="multipart/form-data; boundary=b")


def test_over_the_limit_stops_at_once() -> None:
    """More than max_bytes received raises before the rest is read."""
    read: list[int] = []

    async def chunks() -> AsyncIterator[bytes]:
        for i in range(100):
            read.append(i)
            yield b"x" * 1000

    with pytest.raises(UploadTooLarge) as exc:
        asyncio.run(receive(chunks(), io.BytesIO(), max_bytes=10_500))
    assert exc.value.status == 413 and len(read) == 11


def test_gzip_bomb_is_cut_by_the_stored_size() -> None:
    """A small gzip body that expands past the limit is refused while decoding."""
    body = gzip.compress(b"a" * 5_000_000)
    assert len(body) < 100_000
    with pytest.raises(UploadTooLarge):
        store([body], max_bytes=1_000_000)


@pytest.mark.parametrize("seed", range(3))
def test_a_gzip_log_cut_short_or_damaged_is_kept_up_to_its_damage(seed: int) -> None:
    """A ``.gz`` log cut short or damaged is stored as far as it decodes, and ``damaged`` says
    where (the job is answered partial, as the CLI answers such a file); it had been a 400."""
    body = gzip.compress(LOG)
    cut = body[: len(body) // 2]
    data, got = store(splits(cut, seed))
    prefix = zlib.decompressobj(wbits=31).decompress(cut)
    assert data == prefix and got.stored == len(prefix) > 0
    said = f"the gzip log is truncated after {len(prefix):,} bytes of decompressed data"
    assert got.damaged == said
    whole, got = store(splits(body, seed))
    assert whole == LOG and got.damaged is None
    crc = bytearray(body)
    crc[-6] ^= 1  # the trailer's CRC only: every byte of the log decodes
    mid = bytearray(body)
    mid[len(mid) * 3 // 4] ^= 0x55  # a damaged block three quarters in
    for damaged in (bytes(crc), bytes(mid)):
        data, got = store(splits(damaged, seed))
        assert got.damaged is not None and "damaged after" in got.damaged
        assert data == _decodable(damaged) and len(data) > len(LOG) // 2  # all before it


def _decodable(body: bytes) -> bytes:
    """What a gzip stream decodes to before its damage, fed byte by byte (the most there is)."""
    d, out = zlib.decompressobj(wbits=31), b""
    try:
        for i in range(len(body)):
            out += d.decompress(body[i : i + 1])
    except zlib.error:
        pass
    return out


def test_zeros_after_a_gzip_member_are_padding() -> None:
    """``gzip`` (and the CLI) read zeros after a member as padding; they were "damage"."""
    body = gzip.compress(LOG) + b"\0" * 5000 + gzip.compress(LOG) + b"\0" * 300
    data, got = store(splits(body, 3))
    assert data == LOG + LOG and got.damaged is None


def test_a_zstd_bomb_is_written_in_bounded_pieces() -> None:
    """One call of the zstd decoder writes at most OUT_CHUNK bytes: 16 KiB of a stream of
    zeros had expanded to 512 MiB at once (a review measured +510 MiB of RSS)."""
    body = zstandard.ZstdCompressor(level=3).compress(b"\0" * (64 << 20))
    assert len(body) < 8192
    sizes: list[int] = []

    class Sink(io.BytesIO):
        def write(self, data: object) -> int:
            sizes.append(len(data))  # type: ignore[arg-type]
            return len(data)  # type: ignore[arg-type]

    got = asyncio.run(receive(_chunks([body]), Sink(), max_bytes=1 << 30))
    assert got.stored == 64 << 20 and got.damaged is None
    assert max(sizes) <= OUT_CHUNK


@pytest.mark.parametrize("seed", range(3))
def test_a_zstd_log_cut_short_is_kept_up_to_its_cut_and_said(seed: int) -> None:
    """zstd's stream writer took a cut frame for a whole one: a truncated ``.zst`` upload was
    stored as a prefix and answered "exact". The cut is said now, as for gzip; concatenated
    frames still decode whole."""
    body = zstandard.ZstdCompressor().compress(LOG)
    data, got = store(splits(body[: len(body) // 2], seed))
    assert LOG.startswith(data) and len(data) < len(LOG)
    assert got.damaged == (
        f"the zstd log is truncated after {len(data):,} bytes of decompressed data"
    )
    whole, got = store(splits(body + body, seed))
    assert whole == LOG + LOG and got.damaged is None
    damaged, got = store(splits(body[:40] + b"\xff" * 64 + body[104:], seed))
    assert got.damaged is not None and LOG.startswith(damaged)


def test_a_gzip_body_cut_short_or_damaged_is_a_bad_upload() -> None:
    """The body's own Content-Encoding cut short or damaged: the request is broken (400)."""
    body = gzip.compress(LOG)
    with pytest.raises(BadUpload):
        store([body[: len(body) // 2]], content_encoding="gzip")
    with pytest.raises(BadUpload):
        store([body[:20] + b"\xff" * 200 + body[220:]], content_encoding="gzip")


def test_unknown_content_encoding_is_refused() -> None:
    """Only gzip (or identity) is a supported Content-Encoding."""
    with pytest.raises(BadUpload):
        store([LOG], content_encoding="br")


class _FullDisk(io.BytesIO):
    def write(self, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_full_disk_is_disk_full() -> None:
    """ENOSPC while writing maps to DiskFull (HTTP 507)."""
    with pytest.raises(DiskFull) as exc:
        LimitedFile(_FullDisk(), 100).write(b"abc")
    assert exc.value.status == 507


def test_gzip_content_encoding_covers_a_multipart_body() -> None:
    """Content-Encoding gzip is undone before the multipart body is parsed."""
    ctype = "multipart/form-data; boundary=b"
    body = gzip.compress(multipart(LOG, "b"))
    data, _ = store(splits(body, 2), content_type=ctype, content_encoding="gzip")
    assert data == LOG


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ('form-data; name="file"; filename="access.log"', "access.log"),
        ("attachment; filename=app.log.gz", "app.log.gz"),
        ('form-data; name="file"; filename="C:\\logs\\today.log"', "today.log"),
        ('form-data; name="file"; filename="../../etc/passwd"', "passwd"),
        ('form-data; name="file"; filename="a\x07b.log"', "ab.log"),
        ('form-data; name="file"; filename=".."', None),
        ('form-data; name="file"', None),
    ],
)
def test_filename_is_the_last_component_only(header: str, name: str | None) -> None:
    """The client's file name is kept without directories or control characters."""
    assert filename_of(header) == name


def test_raw_body_takes_the_name_of_its_content_disposition() -> None:
    """A raw body named by a Content-Disposition header keeps that name; unnamed is None."""
    _, got = store([LOG], content_disposition='attachment; filename="x.log"')
    assert got.filename == "x.log"
    assert store([LOG])[1].filename is None


def test_a_drain_that_begins_during_an_upload_stops_it_with_a_503() -> None:
    """The service began to drain (SIGTERM) while the body came in: the next chunk ends the
    upload with ShuttingDown (a 503 with Retry-After: send it again); a probe's SIGTERM
    during an upload had the server's shutdown cancel it, a 500 and a traceback."""
    from logagent.service.uploads import ShuttingDown

    seen = []

    def stopping() -> bool:
        seen.append(1)
        return len(seen) > 3  # the drain began after the third chunk

    with pytest.raises(ShuttingDown) as caught:
        store(splits(LOG, 1), stopping=stopping)
    assert caught.value.status == 503 and "send it again" in caught.value.message
    assert len(seen) == 4  # stopped at once, not at the end of the body
    data, got = store(splits(LOG, 1), stopping=lambda: False)
    assert data == LOG and got.received == len(LOG)


def test_a_second_file_part_is_refused_not_dropped() -> None:
    """One analysis is of one log: a multipart body with two parts named ``file`` is a 400;
    the second had been dropped silently (a probe)."""
    body = multipart(LOG[:500], extra=False)
    head = b'--XyZ--b0undary\r\nContent-Disposition: form-data; name="file"; filename="b.log"'
    second = body.replace(
        b"\r\n--XyZ--b0undary--", b"\r\n" + head + b"\r\n\r\nmore\r\n--XyZ--b0undary--"
    )
    assert second != body
    ctype = "multipart/form-data; boundary=XyZ--b0undary"
    with pytest.raises(BadUpload, match="more than one part named 'file'"):
        store(splits(second, 3), content_type=ctype)
    data, _ = store(splits(body, 3), content_type=ctype)
    assert data == LOG[:500]


def test_a_part_whose_file_name_is_file_is_not_the_file_part() -> None:
    """``name="note"; filename="file"``: only a part *named* file is the log (its file name
    had matched ``name="file"``, and such a part beside the log was refused as a second)."""
    body = multipart(LOG[:300], extra=False)
    note = (
        b'--XyZ--b0undary\r\nContent-Disposition: form-data; name="note"; filename="file"'
        b"\r\n\r\nhello\r\n"
    )
    with_note = body.replace(b"--XyZ--b0undary\r\n", note + b"--XyZ--b0undary\r\n", 1)
    assert with_note != body
    data, got = store(
        splits(with_note, 2), content_type="multipart/form-data; boundary=XyZ--b0undary"
    )
    assert data == LOG[:300] and got.filename == "a.log"
