"""Hostile and odd inputs through the real CLI: exit code, no traceback, an honest answer."""

from __future__ import annotations

import gzip
import os
import resource
import shutil
from pathlib import Path
from typing import Any

import pytest

from logagent.testing import combined_line
from tests.faults.conftest import clean, cli, result, top, truth_top


def test_missing_file_is_one_line_exit_2(tmp_path: Path) -> None:
    """A path that does not exist: one line naming it, exit 2."""
    proc = cli("analyze", str(tmp_path / "nope.log"))
    err = clean(proc)
    assert proc.returncode == 2 and err.count("\n") == 1 and "nope.log" in err


def test_unreadable_file_is_exit_2_for_a_user_without_rights(tmp_path: Path) -> None:
    """A file its user may not read (run as nobody): one clear line, exit 2."""
    setpriv = shutil.which("setpriv")
    if setpriv is None or os.geteuid() != 0:
        pytest.skip("needs root and setpriv (util-linux) to run as another user")
    log = tmp_path / "secret.log"
    log.write_text(combined_line("/a", 500) + "\n")
    log.chmod(0o600)
    tmp_path.chmod(0o755)
    import subprocess
    import sys

    proc = subprocess.run(
        [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
         sys.executable, "-m", "logagent", "analyze", str(log)],
        capture_output=True, timeout=60, check=False,
        env={**os.environ, "LOGAGENT_LLM__MODE": "off"},
    )  # fmt: skip
    err = clean(proc)
    assert proc.returncode == 2 and "permission denied" in err


@pytest.mark.parametrize(
    ("content", "code", "reason"),
    [
        (b"", 3, "EMPTY_INPUT"),
        (b"\n\n\n\r\n\n", 3, "EMPTY_INPUT"),
        (bytes(range(256)) * 4000, 3, "UNRECOGNIZED_FORMAT"),
        (b"\x00" * 300_000, 3, None),
    ],
    ids=["empty", "only-newlines", "binary", "nul-bytes"],
)
def test_inputs_with_nothing_to_count_are_recusals(
    tmp_path: Path, content: bytes, code: int, reason: str | None
) -> None:
    """Empty, blank, binary or NUL-filled input: a recusal (exit 3) with a reason code."""
    log = tmp_path / "x.log"
    log.write_bytes(content)
    proc = cli("analyze", str(log), "--json")
    clean(proc)
    assert proc.returncode == code
    r = result(proc)
    assert r["status"] == "recused"
    if reason:
        assert r["recuse"]["reason_code"] == reason


def _lines(n: int) -> list[str]:
    return [combined_line(f"/r{i % 7}", 500 + (i % 3) if i % 4 == 0 else 200) for i in range(n)]


def _exact_counts(lines: list[str]) -> list[tuple[str, int]]:
    from collections import Counter

    c = Counter(x.split('"')[1].split()[1] for x in lines if '" 5' in x)
    return sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:5]


@pytest.mark.parametrize("variant", ["crlf", "invalid-utf8", "nul-inside", "no-final-newline"])
def test_odd_bytes_still_give_the_exact_answer(tmp_path: Path, variant: str) -> None:
    """CRLF, invalid UTF-8, NUL bytes between lines, no final newline: the exact counts."""
    lines = _lines(2000)
    data = "\n".join(lines).encode()
    if variant == "crlf":
        data = data.replace(b"\n", b"\r\n") + b"\r\n"
    elif variant == "invalid-utf8":
        data = data.replace(b"Mozilla", b"Moz\xff\xfeilla") + b"\n"
    elif variant == "nul-inside":
        data = data.replace(b"\n", b"\n\x00\x00junk\x00\n", 50) + b"\n"
    log = tmp_path / "odd.log"
    log.write_bytes(data)
    proc = cli("analyze", str(log), "--json", "--full")
    clean(proc)
    assert proc.returncode == 0
    assert top(result(proc)) == _exact_counts(lines)


@pytest.mark.parametrize("question", [[], ["-q", "status"]])
def test_a_nul_hole_before_a_record_leaves_it_counted(tmp_path: Path, question: list[str]) -> None:
    """A run of NULs right before a record on its line (the hole ``copytruncate`` leaves where
    a writer goes on at its old offset; a real Nomad log begins so): the record is counted.
    It had been malformed and, an ERROR, missed, the answer "exact"."""
    lines = [
        f"2024-01-02 03:04:{i % 60:02d},000 {'ERROR' if i % 5 == 0 else 'INFO'} [main] "
        f"com.shop.C{i % 3} - event {i}"
        for i in range(300)
    ]
    # the last past the line cap's 64 KiB: the record after it is the line (probe T: a
    # uvicorn log's 500 behind a hole of 1.4 MB had been cut away, the answer "exact")
    holes = {0: 3000, 5: 100, 10: 70_000, 20: 70_000}
    lines[20] += " " + "x" * 70_000  # a record past the cap after its hole: cut, said
    data = b"".join(b"\x00" * holes.get(i, 0) + x.encode() + b"\n" for i, x in enumerate(lines))
    log = tmp_path / "app.log"
    log.write_bytes(data)
    proc = cli("analyze", str(log), "--json", "--full", "--format", "log4j", *question)
    clean(proc)
    out = result(proc)
    counted = {e["key"]: e["count"] for e in out["answer"]["top"]}
    if question:  # every record, the one cut after its hole too (a warning names it)
        assert counted == {"ERROR": 60, "INFO": 240}
        assert out["progress"]["truncated_lines"] == 1
        assert any("were cut to 65536 bytes" in w for w in out["warnings"])
    else:
        assert sum(counted.values()) == 60  # every ERROR record (lines 10 and 20 too)


@pytest.mark.parametrize("final_newline", [True, False])
def test_a_1gb_line_is_counted_as_a_cut_record(tmp_path: Path, final_newline: bool) -> None:
    """A 1 GB line among records: cut at the line cap and counted as a cut line, the others
    counted exactly, memory bounded, with or without a newline after it."""
    lines = _lines(400)
    log = tmp_path / "huge.log"
    with log.open("wb") as f:
        f.write(("\n".join(lines[:200]) + "\n").encode())
        f.write(b'1.2.3.4 - - [01/Dec/2026:00:00:00 +0000] "GET /' + b"x" * (1 << 30))
        if final_newline:
            f.write(("\n" + "\n".join(lines[200:]) + "\n").encode())
    proc = cli("analyze", str(log), "--json", "--full")
    clean(proc)
    assert proc.returncode == 0
    r = result(proc)
    counted = lines if final_newline else lines[:200]
    assert top(r) == _exact_counts(counted)
    assert r["progress"]["truncated_lines"] == 1
    assert any("were cut to" in w for w in r["warnings"])
    assert r["progress"]["peak_rss_bytes"] < 600 << 20


def test_a_gzip_bomb_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """1 GiB of zeros in a 1 MB .gz: decompressed as a stream, memory bounded, a recusal."""
    bomb = tmp_path / "bomb.log.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as f:
        block = b"\x00" * (1 << 20)
        for _ in range(1024):
            f.write(block)
    assert bomb.stat().st_size < 4 << 20
    proc = cli("analyze", str(bomb), "--json", timeout=300)
    clean(proc)
    assert proc.returncode == 3
    r = result(proc)
    assert r["status"] == "recused" and r["progress"]["peak_rss_bytes"] < 600 << 20


def test_concatenated_gzip_members_are_all_read(
    tmp_path: Path, dominant: tuple[Path, dict[str, Any]]
) -> None:
    """A .gz of several members (cat a.gz b.gz): every member counted, the exact answer."""
    path, truth = dominant
    data = path.read_bytes()
    cut = data.index(b"\n", len(data) // 3) + 1
    both = tmp_path / "both.log.gz"
    both.write_bytes(gzip.compress(data[:cut]) + gzip.compress(data[cut:]))
    proc = cli("analyze", str(both), "--json")
    clean(proc)
    assert proc.returncode == 0
    r = result(proc)
    assert r["status"] == "exact" and top(r) == truth_top(truth)
    assert r["progress"]["lines_read"] == truth["lines"]


@pytest.mark.parametrize("case", ["closed", "empty", "gzip"])
def test_stdin_closed_empty_or_gzip(case: str, dominant: tuple[Path, dict[str, Any]]) -> None:
    """stdin closed: exit 2; empty: EMPTY_INPUT, exit 3; gzip on stdin: the exact answer."""
    path, truth = dominant
    if case == "closed":
        proc = cli("analyze", "-", "--json", stdin=None, preexec_fn=lambda: os.close(0))
        clean(proc)
        assert proc.returncode == 2 and b"standard input is closed" in proc.stderr
        return
    data = b"" if case == "empty" else gzip.compress(path.read_bytes())
    proc = cli("analyze", "-", "--json", input=data)
    clean(proc)
    if case == "empty":
        assert proc.returncode == 3 and result(proc)["recuse"]["reason_code"] == "EMPTY_INPUT"
    else:
        assert proc.returncode == 0 and top(result(proc)) == truth_top(truth)


def test_inputs_of_different_formats_are_each_read(
    tmp_path: Path, dominant: tuple[Path, dict[str, Any]]
) -> None:
    """A combined log next to a JSON-lines access log: each read under its own format, so the
    JSON file's routes are counted (the true top comes from it)."""
    import json

    path, truth = dominant
    jsonl = tmp_path / "app.jsonl"
    rows = [{"ts": "2026-12-01T00:00:00Z", "method": "GET", "path": f"/json/{i}", "status": 503}
            for i in range(5000)]  # fmt: skip
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = cli("analyze", str(path), str(jsonl), "--json", "--full", "-k", "2")
    clean(proc)
    assert proc.returncode == 0
    r = result(proc)
    assert top(r)[0] == ("/json/{id}", 5000)
    assert top(r)[1] == tuple(truth["top_errors"][0])
    assert r["input"]["format"].startswith("mixed(")


def test_inputs_read_each_by_its_own_name_only_their_formats(tmp_path: Path) -> None:
    """A common log and a combined one: the last resort reads both best, yet each is read
    by its own, and the format's name lists those two only (probe F: it had been
    ``mixed(generic_access+common+combined)`` beside a warning naming common and combined)."""
    from logagent.testing import combined_line, common_line

    common, combined = tmp_path / "a.log", tmp_path / "b.log"
    common.write_text("".join(common_line(f"/c/{i}", 503) + "\n" for i in range(300)))
    combined.write_text("".join(combined_line(f"/d/{i}", 200) + "\n" for i in range(300)))
    proc = cli("analyze", str(common), str(combined), "--json", "--full", "-q", "status")
    clean(proc)
    r = result(proc)
    assert r["input"]["format"] == "mixed(common+combined)"
    assert r["answer"]["classes"] == {"5xx": 300, "2xx": 300}


def test_a_file_with_other_format_lines_counts_them_malformed(tmp_path: Path) -> None:
    """Lines of no format of the run are malformed, counted truly, and a share over 1 % is
    said in a warning."""
    lines = _lines(1000)
    junk = ['{"msg": "not an access line", "status": "503"}'] * 100
    log = tmp_path / "m.log"
    log.write_text("\n".join(lines + junk) + "\n")
    proc = cli("analyze", str(log), "--json", "--full", "-q", "status")
    clean(proc)
    r = result(proc)
    assert proc.returncode == 0 and r["progress"]["malformed_lines"] == 100
    assert any("are malformed" in w and "9.1%" in w for w in r["warnings"])


@pytest.mark.parametrize("common_share", [0.5, 0.03])
def test_a_file_of_common_and_combined_lines_counts_every_record(
    tmp_path: Path, common_share: float
) -> None:
    """A server whose log format changed mid-file (common lines, then combined ones): each
    line is read by the format that parses it, so every 5xx counts (read by one format, the
    other's lines were malformed and the answer, still "exact", counted only the rest). The
    format the result names is one a later run can be given (cron pins it)."""
    from logagent.testing import common_line

    n = 2000
    first = [
        common_line(f"/c{i % 5}", 500 + i % 3 if i % 3 == 0 else 200)
        for i in range(int(n * common_share))
    ]
    lines = first + _lines(n - len(first))
    log = tmp_path / "changed.log"
    log.write_text("\n".join(lines) + "\n")
    proc = cli("analyze", str(log), "--json", "--full", "-k", "5")
    clean(proc)
    r = result(proc)
    assert proc.returncode == 0 and r["status"] == "exact"
    assert top(r) == [tuple(kv) for kv in _exact_counts(lines)]
    assert r["progress"]["malformed_lines"] == 0
    name = r["input"]["format"]
    assert name.startswith("mixed(") and any("two formats in one input" in w for w in r["warnings"])
    again = cli("analyze", str(log), "--json", "--full", "-k", "5", "--format", name)
    clean(again)
    assert again.returncode == 0 and top(result(again)) == top(r)


def test_a_changed_format_file_keeps_time_windows_timelines_and_agents(tmp_path: Path) -> None:
    """The file read under both formats still has its lines' time (the CLF stamp both write):
    --since/--until bisect on it and count what lies inside, the timeline has its buckets, and
    --by user_agent counts the combined lines' agents (a common line has none: keyless)."""
    import re
    from collections import Counter

    from logagent.testing import common_line

    lines = []
    for i in range(6000):
        make = common_line if i < 3000 else combined_line
        line = make(f"/p{i % 6}", 500 + i % 3 if i % 9 == 0 else 200)
        lines.append(re.sub(r"\[[^\]]+\]", f"[28/Nov/2026:{i * 24 // 6000:02d}:00:00 +0000]", line))
    log = tmp_path / "changed.log"
    log.write_text("\n".join(lines) + "\n")
    inside = [x for x in lines if "06:00:00" <= x.split(":", 1)[1][:8] <= "17:00:00"]
    window = ("--since", "2026-11-28T06:00:00Z", "--until", "2026-11-28T17:00:00Z")
    proc = cli("analyze", str(log), "--json", "--full", "-k", "6", *window)
    clean(proc)
    r = result(proc)
    assert proc.returncode == 0 and r["input"]["window"]["method"] == "bisection"
    want = Counter(x.split('"')[1].split()[1] for x in inside if '" 5' in x)
    assert dict(top(r)) == dict(want) and r["answer"]["total"] == sum(want.values())
    timeline = result(cli("analyze", str(log), "--json", "-q", "timeline"))["answer"]["timeline"]
    assert sum(b["total"] for b in timeline["buckets"]) == sum('" 5' in x for x in lines)
    agents = result(cli("analyze", str(log), "--json", "--full", "-q", "top", "--by", "user_agent"))
    assert [n for _, n in top(agents)] == [3000] and agents["answer"]["keyless"] == 3000


def test_two_thousand_files_under_a_1024_open_file_limit(tmp_path: Path) -> None:
    """A glob of 2,000 files with ``ulimit -n 1024``: every file counted, the exact answer."""
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(2000):
        (folder / f"a{i:04d}.log").write_text(combined_line(f"/f{i % 3}", 500) + "\n")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

    proc = cli("analyze", str(folder / "*.log"), "--json", preexec_fn=limit, timeout=300)
    clean(proc)
    assert proc.returncode == 0
    r = result(proc)
    assert r["status"] == "exact" and sorted(top(r)) == [("/f0", 667), ("/f1", 667), ("/f2", 666)]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le"])
def test_a_utf16_log_is_read_as_the_text_it_holds(
    tmp_path: Path, dominant: tuple[Path, dict[str, Any]], encoding: str
) -> None:
    """A Windows tool's log (PowerShell's Out-File, SQL Server's ERRORLOG) is UTF-16 with a
    byte-order mark and CRLF: the same exact answer as its UTF-8 copy (it used to be
    refused as an unknown format, its examples full of NUL bytes)."""
    path, truth = dominant
    text = path.read_bytes().decode().replace("\n", "\r\n")
    wide = tmp_path / "wide.log"
    wide.write_bytes(("\ufeff" + text).encode(encoding))
    proc = cli("analyze", str(wide), "--json", "--full")
    clean(proc)
    r = result(proc)
    assert proc.returncode == 0 and r["status"] == "exact"
    assert r["input"]["compression"] == [encoding[:6]]
    assert r["progress"]["malformed_lines"] == 0
    assert top(r) == truth_top(truth)


def test_undecodable_utf16_is_counted_as_invalid_like_utf8(tmp_path: Path) -> None:
    """A lone surrogate in a UTF-16 log is an invalid line as invalid UTF-8 is: counted and
    said, never hidden behind a replacement character."""
    good = [combined_line(f"/r{i % 3}", 500) for i in range(20)]
    data = b"\xff\xfe" + "".join(x + "\r\n" for x in good).encode("utf-16-le")
    bad = combined_line("/bad", 500).encode("utf-16-le") + b"\x00\xd8" + "\r\n".encode("utf-16-le")
    log = tmp_path / "wide.log"
    log.write_bytes(data + bad)
    proc = cli("analyze", str(log), "--json", "--full")
    clean(proc)
    r = result(proc)
    assert proc.returncode == 0 and r["progress"]["invalid_utf8_lines"] == 1
    assert any("invalid UTF-8" in w for w in r["warnings"]), r["warnings"]


@pytest.mark.parametrize("lines", [40, None])
def test_utf16_without_its_mark_is_refused_with_the_conversion_to_make(
    tmp_path: Path, dominant: tuple[Path, dict[str, Any]], lines: int | None
) -> None:
    """Without a byte-order mark UTF-16 cannot be told from binary with NULs: refused, and the
    detail says how to convert it, whether the sample alone decides (a small file) or the
    detection cascade reads on first (a large one)."""
    path, _ = dominant
    text = path.read_bytes().decode()
    if lines is not None:
        text = "".join(text.splitlines(keepends=True)[:lines])
    wide = tmp_path / "wide.log"
    wide.write_bytes(text.encode("utf-16-le"))
    proc = cli("analyze", str(wide), "--json")
    clean(proc)
    r = result(proc)
    assert proc.returncode == 3 and r["recuse"]["reason_code"] == "UNRECOGNIZED_FORMAT"
    assert "iconv -f UTF-16LE -t UTF-8" in r["recuse"]["detail"]


@pytest.mark.parametrize(("files", "suffix", "nofile"), [(1200, ".gz", 1024), (300, ".log", 64)])
def test_many_compressed_files_or_a_low_limit_read_within_the_open_file_limit(
    tmp_path: Path, files: int, suffix: str, nofile: int
) -> None:
    """1,200 rotated .gz files under the usual limit of 1,024 (each used to hold its stream
    open: "Too many open files"), 300 plain files under `ulimit -n 64`: exact, every line."""
    folder = tmp_path / "logs"
    folder.mkdir()
    for i in range(files):
        text = (combined_line(f"/f{i % 3}", 500) + "\n").encode()
        path = folder / f"a{i:04d}{suffix}"
        path.write_bytes(gzip.compress(text) if suffix == ".gz" else text)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    proc = cli("analyze", str(folder / f"*{suffix}"), "--json", preexec_fn=limit, timeout=300)
    clean(proc)
    assert proc.returncode == 0
    r = result(proc)
    thirds = [(f"/f{j}", (files - j + 2) // 3) for j in range(3)]
    assert r["status"] == "exact" and sorted(top(r)) == thirds


@pytest.mark.parametrize("question", ["status", "top-errors", "top-clients"])
def test_no_record_parsed_is_a_recusal_not_an_exact_answer(tmp_path: Path, question: str) -> None:
    """--format jsonl on lines none of which is JSON: UNRECOGNIZED_FORMAT (exit 3), never exact,
    whatever the question (top-errors read only 5xx candidates and said "no 5xx line")."""
    log = tmp_path / "plain.log"
    log.write_text("hello world\nfoo bar baz\n")
    proc = cli("analyze", str(log), "--format", "jsonl", "-q", question, "--json")
    clean(proc)
    r = result(proc)
    assert proc.returncode == 3 and r["recuse"]["reason_code"] == "UNRECOGNIZED_FORMAT"
    assert "none of the 2 lines" in r["recuse"]["detail"]


def test_status_shows_every_status_and_the_class_totals(
    dominant: tuple[Path, dict[str, Any]],
) -> None:
    """-q status lists every status (a rare 501 is not hidden by --top) and the class totals."""
    path, truth = dominant
    proc = cli("analyze", str(path), "-q", "status", "--json")
    clean(proc)
    r = result(proc)
    statuses: dict[str, int] = {}
    for route in truth["routes"].values():
        for status, n in route["status"].items():
            statuses[status] = statuses.get(status, 0) + n
    assert dict(top(r)) == statuses
    classes: dict[str, int] = {}
    for status, n in statuses.items():
        classes[f"{status[0]}xx"] = classes.get(f"{status[0]}xx", 0) + n
    assert r["answer"]["classes"] == dict(sorted(classes.items()))


def test_requests_without_a_path_are_counted_apart_never_ranked(tmp_path: Path) -> None:
    """A honeypot's binary junk with 500s is no endpoint: the top route is a real one, and the
    junk's 5xx are reported apart (answer.keyless), in full and early-stopped runs."""
    junk = '1.2.3.4 - - [01/Dec/2026:00:00:00 +0000] "\\x16\\x03\\x01junk" 500 0 "-" "-"'
    lines = [junk] * 3000 + [combined_line(f"/api/{i}", 503) for i in range(1000)]
    lines += [combined_line("/x", 502)] * 500
    log = tmp_path / "honey.log"
    log.write_text("\n".join(lines) + "\n")
    for mode in ("--full", "--seed=1"):
        proc = cli("analyze", str(log), mode, "--json", "-k", "2", "--unit-size", "1KiB")
        clean(proc)
        r = result(proc)
        assert proc.returncode == 0
        assert [e["key"] for e in r["answer"]["top"]] == ["/api/{id}", "/x"]
        assert r["answer"]["keyless"] > 0
    assert r["answer"]["keyless"] <= 3000


@pytest.mark.parametrize(
    "question", [[], ["-q", "status"], ["-q", "timeline"], ["--since", "2026-10-10"]]
)
def test_a_stamp_outside_the_years_1_to_9999_is_no_time(
    tmp_path: Path, question: list[str]
) -> None:
    """A 5xx record stamped in year 0000 (Polars parses it; Python's datetime cannot hold it)
    is counted, with no time: no bucket, not in a --since window. It broke the report's
    bucket times with an internal error (a review found it)."""
    line = '1.2.3.4 - - [10/Oct/{year}:13:55:36 -0700] "GET {path} HTTP/1.0" 503 2 "-" "ua"\n'
    log = tmp_path / "y0.log"
    log.write_text(
        line.format(year="2026", path="/a") * 300
        + line.format(year="0000", path="/b")
        + line.format(year="2026", path="/a") * 300
    )
    proc = cli("analyze", str(log), "--full", "--json", *question)
    clean(proc)
    assert proc.returncode == 0, proc.stderr
    r = result(proc)
    if question == ["-q", "status"]:
        assert r["answer"]["top"][0]["count"] == 601  # every 503 counted, the year-0000 one too
    elif question and question[0] == "--since":
        assert top(r) == [("/a", 600)]  # no time: outside the window
    else:  # the record is counted, and over time it is in no bucket
        assert r["answer"]["total"] == 601
        assert sum(b["total"] for b in r["answer"]["timeline"]["buckets"]) == 600


@pytest.mark.parametrize("how", ["gz", "stdin"])
def test_a_stream_whose_first_line_is_longer_than_the_sample_is_read(
    tmp_path: Path, how: str
) -> None:
    """A ``.gz`` log or standard input whose first line (300 KB of junk) is longer than the
    sample's 256 KiB: its head is read on until it holds lines, and the log is answered; it
    had been refused as no known format, "none of 1 sampled lines parses" (a review)."""
    lines = [combined_line(f"/r/{i % 4}", 503 if i % 5 == 0 else 200) for i in range(400)]
    text = ("a" * 300_000 + "\n" + "\n".join(lines) + "\n").encode()
    if how == "gz":
        log = tmp_path / "head.log.gz"
        log.write_bytes(gzip.compress(text))
        proc = cli("analyze", str(log), "--json", "--llm", "off", "--full")
    else:
        proc = cli("analyze", "-", "--json", "--llm", "off", "--full", input=text)
    clean(proc)
    assert proc.returncode == 0, proc.stderr
    r = result(proc)
    assert r["status"] == "exact" and r["input"]["format"] == "combined"
    assert sum(count for _, count in top(r)) == 80


def test_a_file_of_nul_bytes_is_an_empty_input(tmp_path: Path) -> None:
    """Only NUL bytes (a preallocated file, /dev/zero): no line holds anything, so the input
    is empty (exit 3, EMPTY_INPUT), as the README's table says (it had said
    UNRECOGNIZED_FORMAT, and the run said EMPTY_INPUT; a review)."""
    log = tmp_path / "zeros.log"
    log.write_bytes(b"\0" * (1 << 20))
    proc = cli("analyze", str(log), "--json", "--llm", "off")
    clean(proc)
    assert proc.returncode == 3
    r = result(proc)
    assert r["recuse"]["reason_code"] == "EMPTY_INPUT"
    assert "NUL bytes count as blank" in r["recuse"]["detail"]
