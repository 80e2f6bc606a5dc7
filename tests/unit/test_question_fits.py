"""Which questions fit which logs (``questions.check_fits``): a refusal names what to ask."""

from __future__ import annotations

import pytest

from logagent.errors import ConfigError
from logagent.questions import check_fits
from logagent.result import QuestionKind


def test_a_timeline_of_an_application_log_points_to_its_error_timeline() -> None:
    """``-q timeline`` on an app log is refused, and says where its ERROR+ records over time
    are (a probe read the refusal as "no timeline for app logs")."""
    with pytest.raises(ConfigError, match="timeline holds ERROR\\+ records over time"):
        check_fits(QuestionKind.TIMELINE, fmt_name="apache_error", app=True)
    with pytest.raises(ConfigError) as status:
        check_fits(QuestionKind.ERROR_RATE, fmt_name="apache_error", app=True)
    assert "timeline" not in str(status.value) and "top-error-components" in str(status.value)
    check_fits(QuestionKind.TIMELINE, fmt_name="combined", app=False)  # fits: no error
