"""The warning about sampled lines a layout does not parse says what becomes of them."""

from __future__ import annotations

from pathlib import Path

from logagent import Question, analyze, load_settings
from logagent.result import QuestionKind
from logagent.testing import fake_env


def _warned(path: Path) -> list[str]:
    settings = load_settings(analysis={"seed": 1, "full": True})
    got = analyze([str(path)], Question(kind=QuestionKind.STATUS), settings, fake_env())
    return [w for w in got.warnings if "of sampled lines parse as" in w]


def test_lines_folded_into_records_are_not_said_to_be_uncounted(tmp_path: Path) -> None:
    """A multi-line layout reads a line that starts no record as part of the record above
    (a real log4j app's properties dump, probe F: it had said such lines "are not counted")."""
    path = tmp_path / "app.log"
    record = "2024-03-05 10:00:{:02d}.000 INFO  [main] c.e.App - loaded properties:"
    dump = ["spring.datasource.url=jdbc:x", "server.port=8080"]
    path.write_text("\n".join(line for i in range(60) for line in [record.format(i), *dump]))
    (said,) = _warned(path)
    assert "part of the record above" in said and "not counted (a question" not in said


def test_lines_of_another_layout_are_said_to_be_uncounted(tmp_path: Path) -> None:
    """A one-line layout drops what it does not parse: that is said as before."""
    from logagent.testing import combined_line

    path = tmp_path / "access.log"
    lines = [combined_line("/a", 200)] * 80 + ['{"msg": "json"}'] * 20
    path.write_text("\n".join(lines) + "\n")
    (said,) = _warned(path)
    assert "are no records of it and are not counted" in said


def test_a_last_resort_that_reads_every_line_says_nothing(tmp_path: Path) -> None:
    """Detection ranks the last resorts and a bare JSON layout below every named one (a
    discount); the warning said that discounted score as the share read: every line of a
    Suricata eve.json read as jsonapp was "only 90.0 % of sampled lines" (probe U). What is
    said is the share read, undiscounted."""
    import json

    eve = [
        json.dumps({"timestamp": f"2021-01-02T03:04:{i % 60:02d}.000+0000", "event_type": "flow"})
        for i in range(100)
    ]
    path = tmp_path / "eve.json"
    path.write_text("\n".join(eve) + "\n")
    assert _warned(path) == []
    half = tmp_path / "half.json"
    half.write_text("\n".join(eve[:60] + [f"plain text line number {i} here" for i in range(40)]))
    (said,) = _warned(half)
    assert "only 60.0% of sampled lines" in said
