"""Blank lines are no records, no continuation of one, and not malformed, in every layout
(a probe of ossec-hids' log entries: an apache error log's 13 blank lines of 14 were "35.9 %
of the lines parsed are malformed"; a log4j log's blank lines "continue multi-line records";
an access log with blank lines between requests was "50 % malformed")."""

from __future__ import annotations

from pathlib import Path

import pytest

from logagent import Question, analyze, load_settings
from logagent.result import QuestionKind, Status
from logagent.testing import combined_line, fake_env

REQUESTS = [combined_line("/a", 500), combined_line("/b", 200), combined_line("/c", 503)]
LOG4J = [
    "2026-01-01 00:00:00,000 ERROR [main] svc.db - boom",
    "java.lang.IllegalStateException: boom",
    "\tat a.b.C.d(C.java:1)",
    "2026-01-01 00:00:01,000 INFO  [main] svc.api - ok",
]
APACHE_ERROR = [
    "[Thu Dec 15 23:49:07 2005] [error] [client 85.107.239.37] client denied by server "
    "configuration: /home/",
    "[Mon Dec 19 18:04:14 2005] [error] [client 85.107.239.37] Directory index forbidden",
    "[Mon Dec 19 18:46:05 2005] [notice] Apache configured -- resuming normal operations",
]


def _with_blanks(lines: list[str]) -> str:
    """The lines with blank ones between them (empty, spaces, a tab, CRLF) and at the end."""
    blanks = ["", "   ", "\t", "\r"]
    out = []
    for i, line in enumerate(lines):
        out += [line, blanks[i % len(blanks)]]
    return "\n".join([*out, "", ""])


@pytest.mark.parametrize(
    ("lines", "kind", "records"),
    [
        (REQUESTS, QuestionKind.STATUS, 3),
        (REQUESTS, QuestionKind.TOP_ERRORS, 2),
        (LOG4J, QuestionKind.STATUS, 2),
        (LOG4J, QuestionKind.TOP_ERROR_COMPONENTS, 1),
        (APACHE_ERROR, QuestionKind.STATUS, 3),
    ],
)
def test_blank_lines_are_neither_records_nor_malformed(
    tmp_path: Path, lines: list[str], kind: QuestionKind, records: int
) -> None:
    path = tmp_path / "blanks.log"
    text = _with_blanks(lines)
    path.write_text(text)
    settings = load_settings(analysis={"seed": 1, "full": True})
    result = analyze([str(path)], Question(kind=kind, top=10), settings, fake_env())
    assert result.status is Status.EXACT
    assert result.progress.lines_read == text.count("\n")
    assert result.progress.malformed_lines == 0
    assert sum(e.count for e in result.answer.top) == records
    noise = ("malformed", "continue multi-line records (stack traces)")
    if lines is not LOG4J:  # its trace lines do continue a record
        assert not any(n in w for w in result.warnings for n in noise), result.warnings
    else:  # its trace's two lines continue a record (when every line is parsed), not blanks
        said = [w for w in result.warnings if "continue multi-line" in w]
        parsed_all = kind is QuestionKind.STATUS
        assert [w[:7] for w in said] == (["2 lines"] if parsed_all else []), said
