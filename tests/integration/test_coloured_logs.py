"""Lines with terminal colour codes (``ESC[34m``) are read as the same lines without them: the
sample detects their layout, every read (all lines, candidate lines, prescanned ranges, the
early stop) parses them, and a code inside what a prefilter looks for hides no candidate.

Probe I: Airflow's coloured console output written to a file (nohup) had its 22 records
folded into "continuation lines" under gunicorn, "exact" with INFO 9 and no WARN.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.result import QuestionKind, Status
from logagent.sources.framing import decoloured
from logagent.testing import combined_line, fake_env

ESC = "\x1b"
BLUE, RESET, YELLOW, RED = f"{ESC}[34m", f"{ESC}[0m", f"{ESC}[33m", f"{ESC}[31m"


def _airflow(n: int, seed: int, plain: float = 0.2) -> tuple[str, Counter[str]]:
    """Airflow's coloured records (``colored_log``), a share ``plain`` of them without colour,
    and their level counts."""
    rng = random.Random(seed)
    out, levels = [], Counter[str]()
    for i in range(n):
        level = rng.choice(["INFO", "INFO", "WARNING", "ERROR"])
        colour = {"INFO": "", "WARNING": YELLOW, "ERROR": RED}[level]
        stamp = f"2025-05-12T16:{i // 60 % 60:02d}:{i % 60:02d}.204+0100"
        source = rng.choice(["scheduler_job_runner.py", "serve_logs.py", "manager.py"])
        if rng.random() < plain:  # a plain record between coloured ones
            out.append(f"[{stamp}] {{{source}:63}} {level} - plain record {i}")
        else:
            out.append(
                f"[{BLUE}{stamp}{RESET}] {{{BLUE}{source}:{RESET}63}} "
                f"{colour}{level}{RESET} - {colour}coloured record {i}{RESET}"
            )
        levels[{"WARNING": "WARN"}.get(level, level)] += 1
        if level == "ERROR" and rng.random() < 0.5:  # a traceback, folded into its record
            out += ["Traceback (most recent call last):", '  File "x.py", line 1, in <module>']
    return "\n".join(out) + "\n", levels


def _settings(**reader: Any) -> Any:
    return load_settings(analysis={"seed": 3, "full": True}, reader=reader)


def _levels(path: Path, **reader: Any) -> tuple[Any, dict[str, int]]:
    question = Question(kind=QuestionKind.TOP, by="level", top=50)
    result = analyze([str(path)], question, _settings(**reader), fake_env())
    return result, {e.key: e.count for e in result.answer.top}


@pytest.mark.parametrize(("batch_bytes", "plain"), [(4 << 10, 0.2), (16 << 20, 0.0)])
def test_coloured_airflow_records_are_read(tmp_path: Path, batch_bytes: int, plain: float) -> None:
    text, truth = _airflow(3000, seed=batch_bytes, plain=plain)
    log = tmp_path / "scheduler.log"
    log.write_text(text)
    result, got = _levels(log, batch_bytes=batch_bytes)
    assert result.input.format == "airflow"
    assert result.input.format_confidence == pytest.approx(1.0)  # the sample has no codes
    assert result.status is Status.EXACT
    assert got == dict(truth)


def test_errors_of_coloured_records_by_component(tmp_path: Path) -> None:
    """The prefilter of a candidates-only question (ERROR records by component), in batches
    and in prescanned ranges, finds the coloured ERROR records."""
    text, truth = _airflow(4000, seed=7)
    log = tmp_path / "scheduler.log"
    log.write_text(text)
    want = Counter(
        line.split("{")[1].split(":")[0]
        for line in map(decoloured, text.splitlines())
        if " ERROR - " in line
    )
    question = Question(kind=QuestionKind.TOP_ERROR_COMPONENTS, top=50)
    for reader in (
        {"batch_bytes": 8 << 10},
        {"batch_bytes": 8 << 10, "scan_processes": 2, "scan_parallel_from": 1},
    ):
        result = analyze([str(log)], question, _settings(order="sequential", **reader), fake_env())
        assert result.status is Status.EXACT
        assert {e.key: e.count for e in result.answer.top} == dict(want), reader
    assert sum(want.values()) == truth["ERROR"]


def test_a_colour_code_inside_the_5xx_prefilter_hides_no_candidate(tmp_path: Path) -> None:
    """A dev server colouring its status (``" ESC[31m503ESC[0m``): the 5xx prefilter's
    ``" 5`` is not in the bytes, yet the line is a 5xx record once its codes are removed."""
    rng = random.Random(2)
    lines, want = [], Counter[str]()
    for _ in range(3000):
        status = rng.choice([200, 200, 404, 503, 500])
        path = rng.choice(["/a", "/b", "/c"])
        line = combined_line(status=status, path=path)
        if rng.random() < 0.5:
            colour = RED if status >= 500 else BLUE
            line = line.replace(f'" {status} ', f'" {colour}{status}{RESET} ', 1)
        lines.append(line)
        if status >= 500:
            want[path] += 1
    log = tmp_path / "dev.log"
    log.write_text("\n".join(lines) + "\n")
    question = Question(kind=QuestionKind.TOP_ERRORS, top=10)
    for reader in (
        {"batch_bytes": 8 << 10},
        {"batch_bytes": 8 << 10, "scan_processes": 2, "scan_parallel_from": 1},
    ):
        result = analyze([str(log)], question, _settings(order="sequential", **reader), fake_env())
        assert result.input.format == "combined"
        assert result.status is Status.EXACT
        assert {e.key: e.count for e in result.answer.top} == dict(want), reader


@pytest.mark.parametrize("dense", [False, True], ids=["line-by-line", "every-line"])
@pytest.mark.parametrize("processes", [1, 2])
@pytest.mark.parametrize("kind", [QuestionKind.TOP_ERRORS, QuestionKind.STATUS])
def test_a_coloured_log_reads_as_the_same_log_without_its_codes(
    tmp_path: Path, kind: QuestionKind, processes: int, dense: bool, monkeypatch: Any
) -> None:
    """Colour codes around statuses and clients, invalid UTF-8 and junk lines among them:
    the answer and the counters (lines, malformed, invalid UTF-8) are those of the plain log,
    whether the coloured lines are judged one by one or every line is decoded (``dense``),
    in batches or in prescanned ranges."""
    if dense:  # colour the rule: every line decoded and tested
        from logagent.formats import batchlines
        from logagent.sources import prescan

        monkeypatch.setattr(batchlines, "MIN_COLOURED", 0)
        monkeypatch.setattr(batchlines, "COLOURED_BYTES", 1 << 40)
        monkeypatch.setattr(prescan, "DENSE_COLOURED", 0)
    rng = random.Random(11)
    plain: list[bytes] = []
    coloured: list[bytes] = []
    for i in range(4000):
        status = rng.choice([200, 200, 301, 404, 500, 503])
        line = combined_line(rng.choice(["/a", "/b/1", "/c"]), status).encode()
        if i % 97 == 0:
            line = line.replace(b"Firefox", b"Fire\xff\xfefox")  # invalid UTF-8
        if i % 89 == 0:
            line = b"junk line " + str(i).encode()
        plain.append(line)
        if rng.random() < 0.6:
            code = f"{RED if status >= 500 else BLUE}{status}{RESET}".encode()
            line = line.replace(f'" {status} '.encode(), b'" ' + code + b" ", 1)
            line = BLUE.encode() + line + RESET.encode()
        coloured.append(line)
    results = []
    for name, lines in (("plain.log", plain), ("coloured.log", coloured)):
        path = tmp_path / name
        path.write_bytes(b"\n".join(lines) + b"\n")
        question = Question(kind=kind, top=20)
        settings = _settings(
            order="sequential",
            batch_bytes=8 << 10,
            scan_processes=processes,
            scan_parallel_from=1,
        )
        results.append(analyze([str(path)], question, settings, fake_env()))
    a, b = results
    assert a.status is b.status is Status.EXACT
    assert [(e.key, e.count) for e in a.answer.top] == [(e.key, e.count) for e in b.answer.top]
    counters = ("lines_read", "malformed_lines", "invalid_utf8_lines")
    assert {c: getattr(a.progress, c) for c in counters} == {
        c: getattr(b.progress, c) for c in counters
    }
    assert a.progress.invalid_utf8_lines > 0
    assert a.progress.malformed_lines > 0 or kind is QuestionKind.TOP_ERRORS  # candidates only
