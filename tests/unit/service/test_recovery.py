"""The fate of a job a stopped server left running (``recovery.verdict``: pure)."""

from __future__ import annotations

from typing import Any

import pytest

from logagent.service.recovery import MAX_RESTARTS, MAX_RESTARTS_IN_ALL, verdict


def restarts(*units: int) -> list[dict[str, Any]]:
    return [{"action": "PAUSE", "reason": "restart", "units_saved": n} for n in units]


def test_a_first_restart_goes_on_from_the_checkpoint_or_the_beginning() -> None:
    resumed = verdict([], input_there=True, saved=40)
    assert resumed.status == "queued" and "checkpoint" in resumed.message and not resumed.fresh
    fresh = verdict([], input_there=True, saved=None)
    assert fresh.status == "queued" and fresh.fresh and "beginning" in fresh.message


def test_a_cancel_or_a_lost_input_ends_the_job() -> None:
    asked = [{"action": "STOP", "reason": "cancel"}]
    assert verdict(asked, input_there=True, saved=10).status == "cancelled"
    assert verdict([], input_there=False, saved=10).status == "failed"


@pytest.mark.parametrize(
    ("units", "saved", "status"),
    [
        ((0,) * (MAX_RESTARTS - 1), None, "queued"),  # this restart is the MAX_RESTARTS-th
        ((0,) * MAX_RESTARTS, None, "failed"),  # one past it
        ((0,) * MAX_RESTARTS, 5, "queued"),  # it got further this time: no strike
        ((10, 10, 10), 10, "failed"),  # checkpointed, but never further
        ((10, 20, 30), 40, "queued"),
    ],
)
def test_only_restarts_without_progress_count_in_a_row(
    units: tuple[int, ...], saved: int | None, status: str
) -> None:
    assert verdict(restarts(*units), input_there=True, saved=saved).status == status


def test_a_job_that_always_gets_further_is_not_carried_over_forever() -> None:
    """A job that saves a checkpoint and then kills the server is failed after
    MAX_RESTARTS_IN_ALL restarts, however far each got."""
    some = list(range(1, MAX_RESTARTS_IN_ALL))
    assert verdict(restarts(*some), input_there=True, saved=10_000).status == "queued"
    many = list(range(1, MAX_RESTARTS_IN_ALL + 1))
    last = verdict(restarts(*many), input_there=True, saved=10_000)
    assert last.status == "failed" and f"stopped {MAX_RESTARTS_IN_ALL + 1} times" in last.message
