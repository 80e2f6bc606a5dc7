"""Reads from a pipe, a FIFO or a terminal that wait in slices and heed a stop (EDGE).

A read from a pipe blocks until its writer writes. While it does, a signal
only sets the run's flag (``cli.frontdoor.interrupt_flag``) and the system
call is retried: ``tail -f app.log | logagent analyze -`` kept waiting after
its first SIGTERM on a quiet log, and a budget (``--max-seconds``) was never
asked. ``Polled`` waits for data ``WAIT_S`` at a time and asks ``check``
(which raises ``ReadStopped`` to stop) between waits. A FIFO is opened
without waiting for its writer (``O_NONBLOCK``), then waited for the same way.
"""

from __future__ import annotations

import errno
import io
import os
import select
from collections.abc import Callable

from logagent.errors import ReadStopped

#: Seconds a wait for data lasts before the stop is asked again.
WAIT_S = 0.1


class Polled(io.RawIOBase):
    """The bytes of descriptor ``fd``, each read waiting for data in ``WAIT_S`` slices and
    calling ``check`` between them (None: nothing to ask). ``owned``: closed with it."""

    def __init__(self, fd: int, *, owned: bool = True) -> None:
        super().__init__()
        self.fd, self.owned = fd, owned
        self.check: Callable[[], None] | None = None
        self._poll = select.poll() if hasattr(select, "poll") else None
        if self._poll is not None:
            self._poll.register(fd, select.POLLIN | select.POLLPRI)

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        while True:
            self._wait()
            try:
                return os.readv(self.fd, [buffer])
            except BlockingIOError:  # another reader took it, or a FIFO's writer left
                continue

    def _wait(self) -> None:
        """Until the descriptor has data, an end or an error to read (asking ``check``)."""
        while True:
            if self._poll is not None:
                events = self._poll.poll(WAIT_S * 1000)
                if events:  # data, an end, an error; or POLLNVAL (macOS terminals: poll
                    return  # cannot wait on them, the read itself will)
            elif select.select([self.fd], [], [], WAIT_S)[0]:  # pragma: no cover - no poll()
                return
            if self.check is not None:
                self.check()

    def close(self) -> None:
        if not self.closed and self.owned:
            try:
                os.close(self.fd)
            except OSError as exc:  # pragma: no cover - closed under us
                if exc.errno != errno.EBADF:
                    raise
        super().close()


def open_waiting(fd: int, *, owned: bool = True) -> tuple[io.BufferedReader, Polled]:
    """``fd`` as a buffered reader whose reads wait in slices (``Polled``), and its raw."""
    raw = Polled(fd, owned=owned)
    return io.BufferedReader(raw, buffer_size=1 << 16), raw


class Eager:
    """A buffered reader whose ``read(n)`` hands back what is there (``read1``), for the
    decoders over a pipe (gzip, bzip2, zstd, UTF-16): a buffered ``read(n)`` waits for all
    ``n`` bytes, and a stop while it waited lost those it had (and their lines)."""

    def __init__(self, raw: io.BufferedReader) -> None:
        self._raw = raw
        #: The stop that ended the pipe (a signal, a budget), kept for the stream's reader
        #: (``ForwardReader.raw_stop``): the decoder sees an end of input, so what it holds
        #: is decoded and handed on (gzip tops its reads up from the file, and a stop raised
        #: through it lost up to 8 KiB of compressed input).
        self.stop: ReadStopped | None = None

    def read(self, n: int = -1) -> bytes:
        return self.read1(n) if n >= 0 else self._whole()

    def read1(self, n: int = -1) -> bytes:
        if self.stop is not None:
            return b""
        try:
            return self._raw.read1(n)
        except ReadStopped as exc:
            self.stop = exc
            return b""

    def _whole(self) -> bytes:
        parts = []
        while chunk := self.read1(1 << 16):
            parts.append(chunk)
        return b"".join(parts)

    def close(self) -> None:
        self._raw.close()

    @property
    def closed(self) -> bool:
        return self._raw.closed
