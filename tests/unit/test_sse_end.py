"""The events stream of a job ends with its final status even when the job finishes while the
stream reads (``service.app._sse``): CI once saw a stream end on a decision, because the job
thread added the final status and closed the log between the stream's read of the events and
its check that the log was closed."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from logagent.service.app import _sse


class _FinishesWhileRead:
    """A job's event log whose job finishes right after the stream has read its events."""

    def __init__(self, job: SimpleNamespace) -> None:
        self._job = job
        self._items: list[dict[str, Any]] = [{"event": "decision", "data": {"action": "STOP"}}]
        self.closed = False

    @property
    def items(self) -> list[dict[str, Any]]:
        read = list(self._items)
        if not self.closed:  # the job thread, between this read and the stream's next look
            self._job.status = "done"
            self._items.append({"event": "status", "data": {"status": "done"}})
            self.closed = True
        return read


def test_the_stream_ends_with_the_final_status_when_the_job_ends_mid_read() -> None:
    job = SimpleNamespace(status="running", result=None)
    service = SimpleNamespace(
        runner=SimpleNamespace(events={"j": _FinishesWhileRead(job)}, accepting=True),
        store=SimpleNamespace(get=lambda job_id: job),
    )

    async def read_all() -> list[str]:
        return [chunk async for chunk in _sse(service, "j")]  # type: ignore[arg-type]

    chunks = asyncio.run(read_all())
    assert [c.split("\n")[0] for c in chunks] == ["event: decision", "event: status"]
    assert '"status": "done"' in chunks[-1]
