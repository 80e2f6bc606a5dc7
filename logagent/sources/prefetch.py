"""Read ahead in a background thread (EDGE: a thread).

Reading (``os.pread``, decompression) and counting newlines (numpy) release
the GIL, while the byte prefilter (``re``) holds it: reading batch i+1 in a
thread while batch i is scanned uses the second core. At most ``depth``
batches wait, so memory stays bounded; errors in the thread reach the consumer.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")
_DONE = object()


def iter_prefetched(items: Iterator[T], *, depth: int = 2) -> Iterator[T]:
    """Yield ``items`` in order, produced ahead by a daemon thread."""
    box: queue.Queue[object] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                if not _put(box, item, stop):
                    return
            _put(box, _DONE, stop)
        except BaseException as exc:  # handed to the consumer, which re-raises it
            _put(box, exc, stop)

    worker = threading.Thread(target=produce, name="logagent-reader", daemon=True)
    worker.start()
    try:
        while True:
            item = box.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item  # type: ignore[misc]  # only T items reach here
    finally:
        stop.set()
        worker.join(timeout=5)


def _put(box: queue.Queue[object], item: object, stop: threading.Event) -> bool:
    while not stop.is_set():
        try:
            box.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False
