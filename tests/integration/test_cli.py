"""The CLI as a user runs it: a real subprocess, its output and exit codes."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from logagent.testing import combined_line
from tests.conftest import random_log_lines

ENV = {**os.environ, "LOGAGENT_LOG_LEVEL": "warning"}


def run(
    *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None, **kw: object
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "logagent", *args],
        input=stdin,
        capture_output=True,
        env=env or ENV,
        timeout=120,
        check=False,
        **kw,
    )  # type: ignore[call-overload]


def as_json(proc: subprocess.CompletedProcess[bytes]) -> dict:  # type: ignore[type-arg]
    return json.loads(proc.stdout)


def expected_top(lines: list[str]) -> list[tuple[str, int]]:
    """Independent count: regex-free split of each line."""
    counts: Counter[str] = Counter()
    for line in lines:
        request, rest = line.split('"')[1], line.split('"')[2].split()
        if rest[0].startswith("5"):
            path = request.split()[1].split("?")[0]
            route = "/".join("{id}" if seg.isdigit() else seg for seg in path.split("/"))
            counts[route] += 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def test_json_result_follows_the_contract(write_log: Callable[..., Path]) -> None:
    """--json prints schema v1 with the exact top routes, exit 0."""
    lines = random_log_lines(1, 3000)
    proc = run("analyze", str(write_log(lines)), "--json", "--top", "3")
    assert proc.returncode == 0, proc.stderr
    r = as_json(proc)
    assert r["schema_version"] == 1 and r["status"] == "exact"
    assert [(e["key"], e["count"]) for e in r["answer"]["top"]] == expected_top(lines)[:3]
    top = r["answer"]["top"][0]
    assert top["estimate"] == top["low"] == top["high"] == top["count"]
    assert abs(sum(top["breakdown"].values()) - 1) < 1e-6
    for key in (
        "fraction_read",
        "bytes_read",
        "lines_read",
        "malformed_lines",
        "elapsed_s",
        "cpu_s",
        "peak_rss_bytes",
    ):
        assert key in r["progress"]
    assert r["progress"]["fraction_read"] == 1.0 and r["progress"]["lines_read"] == 3000
    assert r["input"]["format"] == "combined" and r["report"]["source"] == "template"


def test_markdown_report_is_the_default(write_log: Callable[..., Path]) -> None:
    """Without --json the Markdown report names the top route."""
    lines = random_log_lines(2, 2000)
    proc = run("analyze", str(write_log(lines)))
    assert proc.returncode == 0
    assert f"`{expected_top(lines)[0][0]}`" in proc.stdout.decode()


@pytest.mark.parametrize("question", ["status", "error-rate"])
def test_other_questions(write_log: Callable[..., Path], question: str) -> None:
    """status counts every status; error-rate ranks by 5xx per request."""
    lines = random_log_lines(3, 2000)
    r = as_json(
        run("analyze", str(write_log(lines)), "--json", "-q", question, "--min-requests", "10")
    )
    if question == "status":
        counts = Counter(line.split('"')[2].split()[0] for line in lines)
        assert {e["key"]: e["count"] for e in r["answer"]["top"]} == dict(counts)  # every one
    else:
        rates = [e["rate"] for e in r["answer"]["top"]]
        assert rates == sorted(rates, reverse=True) and all(
            e["requests"] >= 10 for e in r["answer"]["top"]
        )


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_bad_paths_exit_2_with_one_line(tmp_path: Path, kind: str) -> None:
    """A missing file or a directory: one clear line on stderr, exit 2, no traceback."""
    target = tmp_path / "nope.log" if kind == "missing" else tmp_path
    proc = run("analyze", str(target))
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "Traceback" not in err and str(target) in err


def test_unreadable_file_exits_2(
    write_log: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No permission to read: one clear line, exit 2 (refusal simulated: root reads anything)."""
    from click.testing import CliRunner

    import logagent.sources.files as files
    from logagent.cli import main

    path = write_log(random_log_lines(4, 10))

    def refuse(p: str, flags: int) -> int:
        raise PermissionError(13, "Permission denied", p)

    monkeypatch.setattr(files.os, "open", refuse)
    res = CliRunner().invoke(main, ["analyze", str(path)])
    assert res.exit_code == 2
    assert "permission denied" in res.output and "Traceback" not in res.output


def test_empty_file_is_recused(write_log: Callable[..., Path]) -> None:
    """An empty log recuses with EMPTY_INPUT, exit 3."""
    proc = run("analyze", str(write_log(b"")), "--json")
    assert proc.returncode == 3
    assert as_json(proc)["recuse"]["reason_code"] == "EMPTY_INPUT"


def test_binary_file_is_recused_without_reading_it_all(write_log: Callable[..., Path]) -> None:
    """Binary junk recuses with UNRECOGNIZED_FORMAT, exit 3, once random units prove that no
    format reads 1 % of its lines (the spots alone are no proof); not after reading it all."""
    junk = bytes(range(256)) * 40000  # 10 MB
    proc = run("analyze", str(write_log(junk)), "--json")
    assert proc.returncode == 3
    r = as_json(proc)
    assert r["recuse"]["reason_code"] == "UNRECOGNIZED_FORMAT"
    assert r["recuse"]["detail"].startswith("proved: lines any known format reads are < 1.00%")
    assert 0 < r["progress"]["bytes_read"] < len(junk)
    assert r["decisions"][-1]["action"] == "RECUSE" and r["progress"]["fraction_read"] < 1


def test_no_errors_is_recused_after_full_read(write_log: Callable[..., Path]) -> None:
    """A log with no 5xx recuses with NO_MATCHING_EVENTS after reading everything."""
    proc = run("analyze", str(write_log([combined_line("/a", 200)] * 100)), "--json")
    assert proc.returncode == 3
    r = as_json(proc)
    assert (
        r["recuse"]["reason_code"] == "NO_MATCHING_EVENTS" and r["progress"]["fraction_read"] == 1.0
    )


def test_truncated_gzip_gives_partial_answer(write_log: Callable[..., Path]) -> None:
    """A gzip cut short: what was readable is answered as partial, with a warning, exit 4."""
    lines = random_log_lines(5, 40000)
    data = gzip.compress("".join(x + "\n" for x in lines).encode())
    proc = run("analyze", str(write_log(data[: len(data) // 2], name="a.log.gz")), "--json")
    assert proc.returncode == 4, proc.stderr
    r = as_json(proc)
    assert r["status"] == "partial" and any("truncated" in w for w in r["warnings"])
    assert 0 < r["progress"]["lines_read"] < 40000


def test_stdin_and_gzip_give_the_same_answer_as_the_file(write_log: Callable[..., Path]) -> None:
    """'-' reads stdin; .gz is decompressed; both are labelled non-seekable."""
    lines = random_log_lines(6, 3000)
    raw = "".join(x + "\n" for x in lines).encode()
    plain = as_json(run("analyze", str(write_log(raw)), "--json"))
    piped = as_json(run("analyze", "-", "--json", stdin=raw))
    zipped = as_json(run("analyze", str(write_log(gzip.compress(raw), name="a.gz")), "--json"))
    assert plain["answer"] == piped["answer"] == zipped["answer"]
    assert (piped["input"]["seekable"], zipped["input"]["compression"]) == (False, ["gzip"])


def test_messy_bytes_are_counted(write_log: Callable[..., Path]) -> None:
    """CRLF, invalid UTF-8, an overlong line and a missing final newline are handled and counted."""
    good = [combined_line(f"/r/{i}", 503) for i in range(50)]
    bad_utf8 = combined_line("/bad/\udcff", 503).encode("utf-8", "surrogateescape")
    long_line = combined_line("/long/" + "x" * 200_000, 503).encode()
    data = (
        b"\r\n".join(x.encode() for x in good)
        + b"\r\n"
        + bad_utf8
        + b"\n"
        + long_line
        + b"\n"
        + combined_line("/last", 500).encode()
    )
    r = as_json(run("analyze", str(write_log(data)), "--json", "--top", "10"))
    assert r["progress"]["lines_read"] == 53
    assert r["progress"]["truncated_lines"] == 1 and r["progress"]["invalid_utf8_lines"] == 1
    keys = {e["key"]: e["count"] for e in r["answer"]["top"]}
    assert keys["/r/{id}"] == 50 and keys["/last"] == 1
    assert r["answer"]["total"] == 52  # the cut line lost its status
    # top-errors parses only lines that can hold a 5xx: the cut line is not among them ...
    assert (r["progress"]["malformed_lines"], r["progress"]["malformed_scope"]) == (
        0,
        "prefiltered_lines",
    )
    # ... while a question that parses every line counts it as malformed.
    full = as_json(run("analyze", str(write_log(data)), "--json", "-q", "status"))
    assert (full["progress"]["malformed_lines"], full["progress"]["malformed_scope"]) == (
        1,
        "all_lines",
    )
    assert full["progress"]["invalid_utf8_lines"] == 1


def test_several_paths_and_globs(write_log: Callable[..., Path], tmp_path: Path) -> None:
    """Several files and a glob are read as one input."""
    a, b = random_log_lines(7, 500), random_log_lines(8, 700)
    write_log(a, name="x1.log")
    write_log(b, name="x2.log")
    r = as_json(run("analyze", str(tmp_path / "x*.log"), "--json", "--top", "50"))
    assert [(e["key"], e["count"]) for e in r["answer"]["top"]] == expected_top(a + b)
    assert r["progress"]["lines_read"] == 1200


def test_out_file_and_unwritable_out(write_log: Callable[..., Path], tmp_path: Path) -> None:
    """--out writes the file; a folder that does not exist is refused before reading (exit 2);
    an --out that fails when written (a full device) prints the result instead and exits 2."""
    log = str(write_log(random_log_lines(9, 300)))
    out = tmp_path / "r.json"
    assert run("analyze", log, "--json", "--out", str(out)).returncode == 0
    assert json.loads(out.read_text())["status"] == "exact"
    proc = run("analyze", log, "--json", "--out", str(tmp_path / "no" / "dir" / "r.json"))
    assert proc.returncode == 2 and proc.stdout == b""
    assert b"does not exist" in proc.stderr and b"Traceback" not in proc.stderr
    proc = run("analyze", log, "--json", "--out", "/dev/full")
    assert proc.returncode == 2 and json.loads(proc.stdout)["status"] == "exact"
    assert b"printed instead" in proc.stderr


def test_no_output_replaces_an_input_or_a_file_that_is_no_checkpoint(
    write_log: Callable[..., Path], tmp_path: Path
) -> None:
    """--out, --html and --checkpoint naming an input of the run (by its name, a link, a glob,
    or the file stdin reads) are refused before reading (exit 2), and so is a --checkpoint
    file that holds anything but a checkpoint: each had replaced the log with a result or a
    checkpoint. resume refuses its checkpoint and its inputs as --out. An empty file and a
    checkpoint are fine as --checkpoint."""
    lines = random_log_lines(21, 3000)
    log = write_log(lines, name="app.log")
    before = log.read_bytes()
    link = tmp_path / "link.log"
    link.symlink_to(log)
    other = tmp_path / "notes.txt"
    other.write_text("keep me\n")
    refused = [
        (["analyze", str(log), "--out", str(log)], None),
        (["analyze", str(log), "--out", str(link)], None),
        (["analyze", str(tmp_path / "*.log"), "--html", str(log)], None),
        (["analyze", "-", "--out", str(log)], log),
        (["analyze", str(log), "--checkpoint", str(log), "--max-fraction", "0.3"], None),
        (["analyze", str(log), "--checkpoint", str(other), "--max-fraction", "0.3"], None),
        (["analyze", str(log), "--out", str(other), "--checkpoint", str(other)], None),
        # the page would replace the result (a review: exit 0, the JSON lost)
        (["analyze", str(log), "--out", str(other), "--html", str(other)], None),
        (["analyze", str(log), "--out", str(tmp_path / "r"), "--html", str(tmp_path / "r")], None),
        (
            [
                "analyze",
                str(log),
                "--out",
                str(tmp_path / "n"),
                "--checkpoint",
                str(tmp_path / "n"),
            ],
            None,
        ),
    ]
    for args, stdin_from in refused:
        with open(stdin_from or os.devnull, "rb") as stdin:
            proc = subprocess.run(
                [sys.executable, "-m", "logagent", *args, "--json"],
                stdin=stdin,
                capture_output=True,
                env=ENV,
                timeout=120,
                check=False,
            )
        assert proc.returncode == 2 and proc.stdout == b"", (args, proc.stderr)
        assert b"Traceback" not in proc.stderr
        said = (b"is an input of this run", b"something else", b"name the same file")
        assert any(s in proc.stderr for s in said), proc.stderr
    assert log.read_bytes() == before and other.read_text() == "keep me\n"
    empty = tmp_path / "run.ckpt"
    empty.write_bytes(b"")
    small = {**ENV, "LOGAGENT_READER__BATCH_BYTES": "16KiB"}  # batches: a budget stops it
    args = ["analyze", str(log), "--json", "--full", "--unit-size", "1KiB"]
    args += ["--checkpoint", str(empty), "--max-fraction", "0.3"]
    proc = run(*args, env=small)
    assert proc.returncode == 4 and empty.read_bytes().startswith(b"LGACKPT\n")
    assert run(*args, env=small).returncode == 4  # a checkpoint already there is replaced
    for target in (empty, log):
        proc = run("resume", str(empty), "--json", "--out", str(target))
        assert proc.returncode == 2 and b"is an input of this run" in proc.stderr
    assert log.read_bytes() == before and empty.read_bytes().startswith(b"LGACKPT\n")
    assert run("resume", str(empty), "--json", "--max-fraction", "1").returncode == 0
    assert not empty.exists()


def test_full_stdout_is_a_clear_error(write_log: Callable[..., Path]) -> None:
    """Writing the report to a full device: a clear message and exit 2, no traceback."""
    log = str(write_log(random_log_lines(10, 300)))
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "logagent", "analyze", log],
            stdout=full,
            stderr=subprocess.PIPE,
            env=ENV,
            timeout=60,
            check=False,
        )
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    assert b"cannot write" in proc.stderr


def test_sigterm_mid_run_gives_partial_answer() -> None:
    """SIGTERM while reading stops after the current batch with a partial answer, exit 4."""
    env = {**ENV, "LOGAGENT_LOG_LEVEL": "info", "LOGAGENT_READER__BATCH_BYTES": "64KiB"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "logagent", "analyze", "-", "--json"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin and proc.stderr
    chunk = "".join(x + "\n" for x in random_log_lines(11, 4000)).encode()
    proc.stdin.write(chunk)
    proc.stdin.flush()
    for line in proc.stderr:  # wait until the run has started reading batches
        if b'"reading"' in line:
            break
    proc.send_signal(signal.SIGTERM)
    with contextlib.suppress(BrokenPipeError):  # the run may have stopped reading already
        proc.stdin.write(chunk)
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.close()
    proc.stdin = None  # closed: communicate() must not flush it again
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 4
    r = json.loads(out)
    assert r["status"] == "partial" and any("SIGTERM" in w for w in r["warnings"])
    assert r["decisions"][-1]["action"] == "STOP_PARTIAL"


@pytest.mark.parametrize("args", [["--help"], ["analyze", "--help"]])
def test_every_command_has_help(args: list[str]) -> None:
    """Each command prints help text and exits 0."""
    proc = run(*args)
    assert proc.returncode == 0 and b"Usage:" in proc.stdout


def test_bad_flag_value_is_a_usage_error(write_log: Callable[..., Path]) -> None:
    """An invalid flag value exits 2 with a message."""
    proc = run("analyze", str(write_log(random_log_lines(12, 10))), "--top", "0")
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr


def test_glob_skips_directories_and_utf16_is_read_or_gets_a_hint(
    write_log: Callable[..., Path], tmp_path: Path
) -> None:
    """A glob ignores subdirectories; a UTF-16 log with its byte-order mark is read as its
    text (the same answer), one without recuses with a hint to convert it."""
    lines = random_log_lines(13, 200)
    write_log(lines, name="a.log")
    (tmp_path / "old").mkdir()
    r = as_json(run("analyze", str(tmp_path / "*"), "--json", "--top", "50"))
    assert r["input"]["paths"] == [str(tmp_path / "a.log")]
    text = "".join(x + "\n" for x in lines)
    marked = as_json(
        run("analyze", str(write_log(text.encode("utf-16"), name="w.log")), "--json", "--top", "50")
    )
    assert marked["answer"]["top"] == r["answer"]["top"] and marked["status"] == r["status"]
    # a file, whose UTF-8 size is unknown until read: no "stream" (probe T)
    said = marked["report"]["markdown"]
    assert "Read UTF-16 text, " in said and "as UTF-8" in said
    assert "whole size unknown" not in said and "decompressed data" not in said
    # a plain file beside it is no UTF-16 text (a review)
    both = as_json(run("analyze", str(tmp_path / "w.log"), str(tmp_path / "a.log"), "--json"))
    assert "UTF-16 text" not in both["report"]["markdown"]
    proc = run("analyze", str(write_log(text.encode("utf-16-le"), name="bare.log")), "--json")
    assert proc.returncode == 3 and "UTF-16" in as_json(proc)["recuse"]["detail"]


def test_fifo_input_is_read_as_a_stream(tmp_path: Path) -> None:
    """A named pipe (or <(zcat x.gz)) is read forwards, compressed or not, without a traceback."""
    import gzip as gz

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = gz.compress("".join(x + "\n" for x in random_log_lines(14, 500)).encode())
    writer = threading.Thread(target=lambda: fifo.write_bytes(data))
    writer.start()
    proc = run("analyze", str(fifo), "--json")
    writer.join()
    assert proc.returncode == 0, proc.stderr
    r = as_json(proc)
    assert r["input"]["seekable"] is False and r["input"]["compression"] == ["gzip"]


def test_a_fifo_written_by_another_process_is_read_whole(tmp_path: Path) -> None:
    """A named pipe is opened once: a start-up check that opened it too took the writer's
    rendezvous and closed it, and the read proper then waited for a writer for ever."""
    lines = [x + "\n" for x in random_log_lines(16, 6000)]  # more than a pipe's 64 KiB
    source = tmp_path / "source.log"
    source.write_text("".join(lines))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # as a user's shell runs it: no allocator options of the test run's (a small input's
    # start-up check then looks at the path, and it opened the FIFO)
    env = {k: v for k, v in ENV.items() if k != "_RJEM_MALLOC_CONF"}
    with open(source, "rb") as data:
        writer = subprocess.Popen(["sh", "-c", f"cat > '{fifo}'"], stdin=data)
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "logagent", "analyze", str(fifo), "--json"],
                capture_output=True,
                env=env,
                timeout=60,
                check=False,
            )
        finally:
            writer.kill()
            writer.wait()
    assert proc.returncode == 0, proc.stderr
    r = as_json(proc)
    assert r["status"] == "exact" and r["progress"]["lines_read"] == len(lines)
    assert r["answer"]["top"][0]["key"] == expected_top([x[:-1] for x in lines])[0][0]


def test_a_signal_while_a_fifo_has_no_writer_ends_the_run(tmp_path: Path) -> None:
    """No writer yet: the run waits (as ``cat`` would), and SIGTERM ends it at once with
    exit 130 and a line saying so (it was retried inside open(), the signal only noted)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "logagent", "analyze", str(fifo)],
        env={**ENV, "LOGAGENT_LOG_LEVEL": "info"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr
    _wait_open(proc.pid, fifo)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert b"interrupted by SIGTERM before a whole line came" in err and not out
    assert b"Traceback" not in err


def _wait_open(pid: int, path: Path, seconds: float = 60) -> None:
    """Until process ``pid`` holds ``path`` open (its signal handlers are set by then)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                        return
        time.sleep(0.01)
    pytest.fail(f"the run never opened {path}")


def test_sigterm_on_a_quiet_pipe_answers_from_the_lines_that_came(tmp_path: Path) -> None:
    """``tail -f app.log | logagent analyze -`` on a quiet log: SIGTERM while the pipe has
    no data stops the wait, and the partial answer counts every whole line that came (the
    half-written last one is not a line yet). It had waited for more data. ``--checkpoint``
    saves nothing there, and says so: ``resume`` refuses a pipe, and the partial answer had
    pointed to it ("progress saved: `logagent resume ...`")."""
    lines = [x + "\n" for x in random_log_lines(17, 3000)]
    ckpt = tmp_path / "run.ckpt"
    proc = subprocess.Popen(
        [sys.executable, "-m", "logagent", "analyze", "-", "--json", "--checkpoint", str(ckpt)],
        env={**ENV, "LOGAGENT_LOG_LEVEL": "info"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin and proc.stderr
    proc.stdin.write("".join(lines).encode() + b"192.0.2.1 - - [half a li")
    proc.stdin.flush()  # and kept open: the writer is quiet, not gone
    for line in proc.stderr:  # the read proper has started
        if b'"reading"' in line:
            break
    proc.send_signal(signal.SIGTERM)
    assert proc.stdout
    got: list[bytes] = []  # stdin stays open meanwhile: its end would be the log's end
    reader = threading.Thread(target=lambda: got.append(proc.stdout.read()))  # type: ignore[union-attr]
    reader.start()
    try:
        proc.wait(timeout=60)
    finally:
        proc.kill()
        reader.join()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            pipe.close()
    out = got[0]
    assert proc.returncode == 4
    r = json.loads(out)
    assert r["status"] == "partial" and r["decisions"][-1]["reason"] == "interrupted"
    assert r["progress"]["lines_read"] == len(lines) and r["progress"]["malformed_lines"] == 0
    truth = dict(expected_top([x[:-1] for x in lines]))
    assert r["answer"]["top"] and all(truth[e["key"]] == e["count"] for e in r["answer"]["top"])
    assert not ckpt.exists() and not any("logagent resume" in w for w in r["warnings"])
    assert "no checkpoint saved: standard input or a pipe cannot be read again" in r["warnings"]


def test_error_types_of_the_top_component_on_stdin_is_a_clear_usage_error() -> None:
    """Without --key, error-types reads its input twice: stdin was read up by the first pass
    and the answer recused as an empty input. Now a usage error that says what to do."""
    log = (Path(__file__).resolve().parents[2] / "sample_logs" / "app_log4j.log").read_bytes()
    proc = run("analyze", "-", "-q", "error-types", stdin=log)
    assert proc.returncode == 2 and not proc.stdout
    assert b"a pipe or standard input can be read once" in proc.stderr
    assert b"--key" in proc.stderr and b"Traceback" not in proc.stderr


def test_an_internal_error_is_one_line_and_exit_1(
    write_log: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug surfaces as one clear line and exit 1, not a traceback (which goes to debug logs)."""
    from click.testing import CliRunner

    import logagent.cli as cli
    import logagent.engine as engine

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(engine, "analyze", boom)
    res = CliRunner().invoke(cli.main, ["analyze", str(write_log(random_log_lines(15, 10)))])
    assert res.exit_code == 1
    assert "internal error: RuntimeError: simulated bug" in res.output
    assert "Traceback" not in res.output


def test_error_types_of_an_access_log_is_a_clear_usage_error() -> None:
    """Asked of an access log, error-types names itself and says where the status mix is."""
    r = run("analyze", "sample_logs/nginx_access.log", "--question", "error-types", "--llm", "off")
    assert r.returncode == 2
    err = r.stderr.decode()
    assert err.startswith("logagent: error: --question error-types needs an application log")
    assert "top-errors" in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["analyze", "cron"])
def test_the_config_files_log_level_is_the_runs(
    write_log: Callable[..., Path], tmp_path: Path, command: str
) -> None:
    """``log_level`` in a config file sets the threshold (it was read by no one); the
    environment still wins over the file, and a level no one knows is a usage error."""
    log = write_log([combined_line("/a", 500)] * 3)
    env = {k: v for k, v in ENV.items() if k != "LOGAGENT_LOG_LEVEL"}
    cfg = tmp_path / "c.toml"
    extra = ["--state", str(tmp_path / "state.db")] if command == "cron" else []

    def events(text: str, env: dict[str, str]) -> list[str]:
        cfg.write_text(text)
        proc = run(command, str(log), "--json", "--config", str(cfg), *extra, env=env)
        assert b"Traceback" not in proc.stderr
        lines = proc.stderr.decode().splitlines()
        return [json.loads(x)["level"] for x in lines if x.startswith("{")]

    assert "info" in events('log_level = "info"\n', env)
    assert events('log_level = "warning"\n', env) == []
    assert events('log_level = "info"\n', {**env, "LOGAGENT_LOG_LEVEL": "error"}) == []
    cfg.write_text('log_level = "loud"\n')
    proc = run(command, str(log), "--config", str(cfg), *extra, env=env)
    assert proc.returncode == 2 and b"log_level: Input should be 'debug'" in proc.stderr
