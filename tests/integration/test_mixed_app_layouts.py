"""Two application layouts in one file, read as one (``formats.mixed.combined_app``).

Probe K: a real Tomcat ``catalina.out`` holds Tomcat's own JULI records and the
app's log4j records, both written to standard output. Read as log4j, its 18
SEVERE records (and 278 others) had been folded into the log4j records above as
stack-trace lines: ERROR 70 of 88, "exact". Probe I: an Airflow scheduler's
output holds its log server's gunicorn lines.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.formats.app import AppRegexFormat
from logagent.formats.catalog import build_any_format
from logagent.formats.mixed import combined_app
from logagent.result import QuestionKind, Status
from logagent.testing import fake_env

TRACE = ["java.lang.IllegalStateException: boom", "\tat com.example.A.run(A.java:12)"]


def _catalina(n: int, seed: int) -> tuple[list[str], list[str], Counter[str], Counter[str]]:
    """A catalina.out: log4j and JULI records, some with stack traces; the log4j lines and the
    JULI lines apart; records per level, and ERROR records per component."""
    rng = random.Random(seed)
    lines: list[str] = []
    log4j: list[str] = []
    juli: list[str] = []
    levels: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for i in range(n):
        s = i % 60
        if rng.random() < 0.7:
            level = rng.choice(["INFO", "INFO", "WARN", "ERROR", "DEBUG"])
            logger = rng.choice(["BaseDao", "Dispatcher", "JDBCExceptionReporter"])
            record = [f"2015-09-21 20:05:{s:02d} {level} {logger}:234 - message {i}"]
            own, component = log4j, logger
        else:
            jul = rng.choice(["INFO", "INFO", "WARNING", "SEVERE"])
            level = {"WARNING": "WARN", "SEVERE": "ERROR"}.get(jul, jul)
            component = rng.choice(
                [
                    "org.apache.catalina.core.StandardContext.startInternal",
                    "org.apache.catalina.startup.Catalina.start",
                ]
            )
            record = [f"21-Sep-2015 20:05:{s:02d}.192 {jul} [main] {component} message {i}"]
            own = juli
        if level == "ERROR" and rng.random() < 0.5:
            record += TRACE
        lines += record
        own += record
        levels[level] += 1
        if level == "ERROR":
            errors[component] += 1
    return lines, [*log4j], levels, errors


def _ask(path: Path, kind: QuestionKind, **question: Any) -> Any:
    settings = load_settings(analysis={"seed": 1, "full": True}, reader={"batch_bytes": "16KiB"})
    return analyze([str(path)], Question(kind=kind, top=50, **question), settings, fake_env())


@pytest.mark.parametrize("seed", [1, 2])
def test_a_catalina_out_of_log4j_and_juli_records_counts_both(tmp_path: Path, seed: int) -> None:
    lines, _, levels, errors = _catalina(3000, seed)
    log = tmp_path / "catalina.out"
    log.write_text("\n".join(lines) + "\n")
    by_level = _ask(log, QuestionKind.TOP, by="level")
    assert by_level.input.format == "mixed(log4j+tomcat)"
    assert by_level.status is Status.EXACT
    assert {e.key: e.count for e in by_level.answer.top} == dict(levels)
    assert any("lines of two formats in one input" in w for w in by_level.warnings)
    components = _ask(log, QuestionKind.TOP_ERROR_COMPONENTS)
    assert components.status is Status.EXACT
    assert {e.key: e.count for e in components.answer.top} == dict(errors)


def test_a_log4j_log_alone_stays_log4j(tmp_path: Path) -> None:
    """A file of log4j records only is no mix."""
    _, log4j, _, _ = _catalina(2000, 3)
    log = tmp_path / "app.log"
    log.write_text("\n".join(log4j) + "\n")
    assert _ask(log, QuestionKind.TOP, by="level").input.format == "log4j"


def test_layouts_that_read_levels_differently_are_not_combined() -> None:
    """Layouts with another level vocabulary, or levels read from words, make no one layout;
    a mix's name builds it again (cron pins ``input.format``)."""
    log4j, tomcat = build_any_format("log4j", []), build_any_format("tomcat", [])
    assert isinstance(log4j, AppRegexFormat)
    other = replace(log4j, name="other", level_map=(("ERROR", "WARN"),))  # ERROR reads WARN
    assert combined_app((log4j, other)) is None
    assert combined_app((log4j, build_any_format("lighttpd", []))) is None  # words
    mixed = combined_app((log4j, tomcat))
    assert mixed is not None and mixed.name == "mixed(log4j+tomcat)"
    again = build_any_format("mixed(log4j+tomcat)", [])
    assert again == mixed


def test_an_airflow_scheduler_output_with_gunicorn_lines(tmp_path: Path) -> None:
    lines = []
    for i in range(40):
        lines.append(f"[2025-05-12T16:17:{i:02d}.204+0100] {{manager.py:393}} INFO - tick {i}")
        if i % 4 == 0:
            lines.append(f"[2025-05-12 16:17:{i:02d} +0100] [71876] [INFO] Booting worker {i}")
        if i % 10 == 0:
            stamp = f"2025-05-12T16:17:{i:02d}.3+0100"
            lines.append(f"[{stamp}] {{serve_logs.py:85}} WARNING - no auth")
    log = tmp_path / "scheduler.log"
    log.write_text("\n".join(lines) + "\n")
    r = _ask(log, QuestionKind.TOP, by="level")
    assert r.input.format == "mixed(airflow+gunicorn)"
    assert {e.key: e.count for e in r.answer.top} == {"INFO": 50, "WARN": 4}


def test_a_window_over_a_mix_whose_one_layout_writes_no_date_is_refused(tmp_path: Path) -> None:
    """log4j's time-only stamps (``%d{ABSOLUTE}``) beside Tomcat's dated ones: the log4j
    records cannot be placed in a window. They had all been "outside the window" and the
    answer "exact" on Tomcat's alone (a review); the window is refused, as for log4j alone.
    Without a window the mix counts both."""
    from logagent.errors import ConfigError

    lines = []
    for i in range(300):
        if i % 3 == 0:
            lines.append(f"06-Dec-2026 02:{i % 60:02d}:11.456 SEVERE [main] a.B.c failed {i}")
        else:
            lines.append(f"02:{i % 60:02d}:12,678 ERROR [main] com.foo.Service - failed {i}")
    log = tmp_path / "catalina.out"
    log.write_text("\n".join(lines) + "\n")
    assert {e.key: e.count for e in _ask(log, QuestionKind.TOP, by="level").answer.top} == {
        "ERROR": 300
    }
    with pytest.raises(ConfigError, match="carry no timestamp logagent reads"):
        _ask(log, QuestionKind.TOP, by="level", since="2026-12-06T02:30:00Z")
