"""What real logs of probe R showed: a Windows kubelet's glog file, whose header names the
day it was created (``Log file created at: 2019/08/20 20:28:26``), had its year-less stamps
placed in the year of the run, so a window on its real dates held nothing, and that empty
window was refused as an unrecognized format ("none of the 4 lines parsed is a record of
golog": the header lines)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from logagent.cli import main

HEADER = [
    "Log file created at: 2019/12/30 20:28:26",
    "Running on machine: node-1",
    "Binary: Built with gc go1.12.9 for windows/amd64",
    "Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg",
]


def _glog(tmp_path: Path) -> Path:
    lines = [*HEADER]
    for day in ("1230", "1231", "0101", "0102"):
        lines += [f"I{day} 21:00:0{i}.508550    3312 flags.go:33] FLAG: x" for i in range(3)]
        lines.append(f"E{day} 21:30:00.000001    3312 kubelet.go:9] sync failed")
    log = tmp_path / "kubelet.log"
    log.write_text("\n".join(lines) + "\n")
    return log


def _run(log: Path, *args: str) -> dict:  # type: ignore[type-arg]
    out = CliRunner().invoke(main, ["analyze", str(log), "--json", "--llm", "off", *args])
    return json.loads(out.output)


def test_the_glog_header_names_the_year(tmp_path: Path) -> None:
    log = _glog(tmp_path)
    window = ["--since", "2020-01-01T00:00:00Z", "--until", "2020-01-02T23:59:59Z"]
    got = _run(log, "-q", "status", *window)
    assert got["input"]["format"] == "golog"
    assert {t["key"]: t["count"] for t in got["answer"]["top"]} == {"INFO": 6, "ERROR": 2}
    assert any("header names" in w for w in got["warnings"])
    whole = _run(log, "-q", "status")
    assert whole["progress"]["malformed_lines"] == 0 and whole["answer"]["total"] == 16


def test_a_window_with_no_record_is_no_unknown_format(tmp_path: Path) -> None:
    log = _glog(tmp_path)
    got = _run(
        log, "-q", "status", "--since", "2019-12-30T00:00:00Z", "--until", "2019-12-30T01:00:00Z"
    )
    assert got["status"] == "recused"
    assert got["recuse"]["reason_code"] == "NO_MATCHING_EVENTS"
