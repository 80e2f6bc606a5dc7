"""A layout never seen before is inferred; invalid UTF-8 does not split templates; layouts
that name no component rank error kinds; logagent detect exits 3 on an unknown layout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from logagent.formats.applogs import APACHE_ERROR
from logagent.formats.catalog import FORMAT_NOTES
from logagent.formats.detect import detect_all
from logagent.formats.generic import infer_generic
from logagent.formats.records import fold_records
from logagent.templates.masking import mask

ROOT = Path(__file__).resolve().parents[2]

#: Hand-made variants no built-in layout parses: (lines, component of line 0, level of line 0).
VARIANTS = {
    "pipes, (name) at the end": (
        [f"{i:02d}.03.2024 10:00:{i:02d}.123 | {lv} | job {i} done (billing.Invoices)" for i, lv in
         enumerate(["ERROR", "INFO", "WARN", "INFO"] * 5)],
        "billing.Invoices",
        "ERROR",
    ),
    "epoch, [name]": (
        [f"ts=1700000{i:03d} <warn> [cache] evicted {i} keys" for i in range(20)],
        "cache",
        "WARN",
    ),
    "slashed date, Class@line": (
        [f"2024/03/05-10:00:{i:02d} Error [worker-{i}:Scheduler@88] - tick {i} late" for i in
         range(20)],
        "Scheduler",
        "ERROR",
    ),
    # Layouts of real libraries no built-in parser names (issue 13's review found them all
    # ranked under "-"): loguru, an unbracketed Class@line, Serilog's console. (Ruby's Logger
    # has a layout of its own since: tests/unit/test_probe_layouts.py reads these lines.)
    "loguru": (
        [f"2024-01-02 03:00:{i:02d}.123 | {lv:<8} | app.auth:handler:{i} - request {i} done" for
         i, lv in enumerate(["ERROR", "INFO", "WARNING", "INFO"] * 5)],
        "app.auth",
        "ERROR",
    ),
    "unbracketed Class@line": (
        [f"2024-01-02 03:00:{i:02d},123 [thread-{i}] {lv} Baz@{i}: did thing {i}" for
         i, lv in enumerate(["ERROR", "INFO", "WARN", "INFO"] * 5)],
        "Baz",
        "ERROR",
    ),
    # BGL's head without its alert field: the bgl layout reads BGL itself, generic this one
    "level after five fields (BGL-like)": (
        [f"11178385{i:02d} 2005.06.03 R02-M1-N0 2005-06-03-15.42.{i:02d}.675872 R02-M1-N0 RAS "
         f"KERNEL {lv} instruction cache parity error corrected" for
         i, lv in enumerate(["FATAL", "INFO", "WARNING", "INFO"] * 5)],
        "instruction cache parity error",
        "FATAL",
    ),
    "serilog short levels": (
        [f"[03:00:{i:02d} {lv}] Processed request {i} in 12 ms" for
         i, lv in enumerate(["ERR", "INF", "WRN", "INF"] * 5)],
        "Processed request",
        "ERROR",
    ),
    # a lower-case level as the first word after the stamp (lnav's leveltest, winston, VMware)
    "lower-case level after the stamp": (
        [f"2016-06-30 12:00:{i:02d} {lv} worker-{i}: job {i} done" for
         i, lv in enumerate(["error", "info", "warn", "info"] * 5)],
        "worker-0",
        "ERROR",
    ),
    # winston's "timestamp level: msg": syslog3164 read "error" as its program (a level word
    # is no program) and guessed the level from "failed"
    "lower-case level and a colon after an ISO stamp (winston)": (
        [f"2024-01-02T03:00:{i:02d}.123Z {lv}: request {i} failed" for
         i, lv in enumerate(["error", "info", "warn", "debug"] * 5)],
        "request",
        "ERROR",
    ),
    # Rust's env_logger ("[ts LEVEL module::path] msg") and NLog's default ("ts|LEVEL|Logger|msg")
    "env_logger": (
        [f"[2024-01-02T03:00:{i:02d}Z {lv:<5} my_crate::db::pool] checkout {i} slow" for
         i, lv in enumerate(["ERROR", "INFO", "WARN", "INFO"] * 5)],
        "my_crate::db::pool",
        "ERROR",
    ),
    "nlog": (
        [f"2024-01-02 03:00:{i:02d}.1234|{lv}|MyApp.Services.OrderService|order {i} failed" for
         i, lv in enumerate(["ERROR", "INFO", "WARN", "INFO"] * 5)],
        "MyApp.Services.OrderService",
        "ERROR",
    ),
    "lower-case level and a colon": (
        [f"2024-01-02 03:00:{i:02d}.123 {lv}: request {i} failed" for
         i, lv in enumerate(["error", "info", "warn", "debug"] * 5)],
        "request",
        "ERROR",
    ),
}  # fmt: skip


def test_a_lower_case_level_counts_only_right_after_the_stamp() -> None:
    """``error`` is a level as the first word after the stamp, and prose anywhere else: a line
    whose level-like word comes later is no record (upper case there still is one)."""
    lines = [f"2016-06-30 12:00:{i:02d} info job {i} done" for i in range(20)]
    fmt = infer_generic(lines)
    probe = [
        "2016-06-30 12:00:01 error db down",
        "2016-06-30 12:00:02 db connection error again",
        "2016-06-30 12:00:03 db ERROR again",
        "2016-06-30 12:00:04 errors: 3",
    ]
    rows = fold_records(pl.Series("line", probe), fmt)
    assert rows["level"].to_list() == ["ERROR", None, "ERROR", None]
    assert rows["valid"].to_list() == [True, False, True, False]


def test_a_class_name_ending_in_a_level_word_is_no_level() -> None:
    """Without stamps a level word may come after a few characters, but not glued to a name:
    a Rails development log's ``ActionController::RoutingError (No route ...)`` lines had been
    93 ERROR records, "exact" (probe I). ``ERROR`` and ``[ERROR]`` after a separator still
    are levels."""
    fmt = infer_generic(["app|ERROR|db down", "app|INFO|ok"] * 10)
    probe = [
        'ActionController::RoutingError (No route matches [GET] "/favicon.ico"):',
        "NoMethodError (undefined method `name' for nil:NilClass):",
        "app|ERROR|db down",
        "worker: [ERROR] queue full",
        "Error: disk full",
    ]
    rows = fold_records(pl.Series("line", probe), fmt)
    assert rows["level"].to_list() == [None, None, "ERROR", "ERROR", "ERROR"]
    # a bracketed level glued to a name still is one (a review: these had become malformed)
    glued = ["worker-1[ERROR] job 3 failed", "scheduler[INFO] tick", "x<warn> y"]
    rows = fold_records(pl.Series("line", glued), infer_generic(glued * 10))
    assert rows["level"].to_list() == ["ERROR", "INFO", "WARN"]


def test_four_letter_level_spellings_are_levels() -> None:
    """op/go-logging and log15 write EROR, DEBG, DBUG; logrus ERRO (probe I: a Go service's
    EROR record was malformed, and a refusal said the log held no error)."""
    lines = [f"2019-08-08 14:15:{i:02d} INFO  \u25b6 Listen HTTP on :8081" for i in range(20)]
    fmt = infer_generic(lines)
    probe = [
        "2019-08-08 14:15:04 EROR jenkins_demo/model/database.go:144 \u25b6 SQL failed",
        "2019-08-08 14:16:03 DEBG  \u25b6 inserted 1",
        "2019-08-08 14:16:04 ERRO  \u25b6 gone",
        "2019-08-08 14:16:05 DBUG  \u25b6 x",
    ]
    rows = fold_records(pl.Series("line", probe), fmt)
    assert rows["level"].to_list() == ["ERROR", "DEBUG", "ERROR", "DEBUG"]


#: Variants a built-in layout reads now: detected as it (generic still infers them).
BUILT_IN = {"loguru": "loguru"}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_generic_infers_an_unseen_header(variant: str) -> None:
    """detect picks generic (discounted, unambiguous); component and level come out right."""
    lines, component, level = VARIANTS[variant]
    found = detect_all(lines, year=2024)
    if variant in BUILT_IN:
        assert found.best == BUILT_IN[variant] and found.confidence == 1.0
    else:
        assert found.best == "generic" and 0.5 <= found.confidence <= 0.9
    assert not found.ambiguous
    fmt = infer_generic(lines)
    assert "inferred" in fmt.description and "%" in fmt.description
    rows = fold_records(pl.Series("line", lines), fmt)
    assert rows["component"][0] == component and rows["level"][0] == level
    assert rows["valid"].all()


def test_generic_folds_stack_traces_into_their_record() -> None:
    """Lines without the inferred timestamp continue the record before them."""
    lines = [
        "2024-03-05 10:00:00 ERROR [db] boom",
        "\tat x.y(Z.java:1)",
        "2024-03-05 10:00:01 INFO [db] ok",
    ]
    rows = fold_records(pl.Series("line", lines * 5), infer_generic(lines * 5))
    assert rows.height == 10 and rows["lines"][0] == 2


def test_indented_stamped_lines_continue_the_record_above() -> None:
    """Fluentd writes each backtrace frame indented, with its own stamp and level (a real
    td-agent.log, probe E: 188 frames had been ERROR records, topping the ranking). Where
    records start at the line's start, an indented line continues one; a log indented
    throughout still has its records."""
    record = "2015-03-31 15:55:25 +0000 [error]: unexpected error error_class=JSON::ParserError"
    frame = "  2015-03-31 15:55:25 +0000 [error]: /opt/td-agent/lib/json/common.rb:155:in `parse'"
    info = "2015-03-31 15:55:26 +0000 [info]: adding match pattern=haproxy"
    lines = [record, *[frame] * 12, info] * 5  # most stamped lines are frames
    fmt = infer_generic(lines)
    assert not fmt.indented and "indented" in fmt.description
    rows = fold_records(pl.Series("line", lines), fmt)
    assert rows["level"].to_list() == ["ERROR", "INFO"] * 5
    assert rows["lines"].to_list() == [13, 1] * 5
    padded = [" " + line.strip() for line in lines]
    fmt = infer_generic(padded)
    assert fmt.indented
    assert fold_records(pl.Series("line", padded), fmt).height == len(padded)


def test_replacement_characters_do_not_split_a_template() -> None:
    """Words holding U+FFFD (invalid UTF-8 replaced) mask alike: one template, not four."""
    names = ["J\ufffdr\ufffdme", "\ufffd\ufffd", "Jo\ufffd", "Ren\ufffd"]
    masked = mask(pl.Series([f"login failed for user {n} from host" for n in names]))
    assert masked.n_unique() == 1


def test_apache13_lines_without_module_rank_by_error_kind() -> None:
    """An Apache 1.3 error line names no module: the error kind stands in, and a note says so."""
    line = (
        "[Sun Dec 04 04:47:44 2005] [error] [client 1.2.3.4] Directory index forbidden by rule: /x"
    )
    rows = fold_records(pl.Series("line", [line]), APACHE_ERROR)
    assert rows["component"][0] == "Directory index forbidden by"
    assert "error kind" in FORMAT_NOTES["apache_error"]


@pytest.mark.parametrize("layout", ["syslog3164", "thunderbird"])
def test_syslog_note_says_levels_are_inferred(layout: str) -> None:
    """Syslog without severities (Thunderbird's too): the result's note says levels were
    inferred from words."""
    assert "inferred" in FORMAT_NOTES[layout]


@pytest.mark.parametrize(
    ("access_lines", "says"),
    [(0, b"no layout reads any of them"), (2, b"best guess combined reads 6.7%")],
)
def test_detect_exits_3_with_the_best_guess_on_an_unknown_layout(
    tmp_path: Path, access_lines: int, says: bytes
) -> None:
    """logagent detect on lines (nearly) nothing reads exits 3 and says why, and the best
    guess where one reads a few lines (a format reading none is no guess)."""
    path = tmp_path / "junk.log"
    access = '1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.0" 200 2326 "-" "curl"\n'
    path.write_text(access * access_lines + "".join(f"hello there {i}\n" for i in range(28)))
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "detect", str(path)],
        capture_output=True, timeout=120, check=False, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 3
    assert says in proc.stderr and b"unrecognized" in proc.stderr, proc.stderr


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_detect_on_an_empty_input_says_it_is_empty(tmp_path: Path, text: str) -> None:
    """logagent detect on a file with no non-blank line exits 3 saying it is empty, not that
    "no layout reads 50% of the 0 sampled lines"."""
    path = tmp_path / "empty.log"
    path.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "detect", str(path)],
        capture_output=True, timeout=120, check=False, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 3
    assert b"empty" in proc.stderr and b"0 sampled lines" not in proc.stderr


def test_env_logger_and_nlog_shapes_take_no_thread_or_user_for_a_component() -> None:
    """A thread in brackets after the level is no env_logger module path, and a word before a
    pipe is no NLog logger unless it is dotted: those lines keep their error kind."""
    threads = [
        f"2024-01-02 10:00:{i:02d} [{lv} http-nio-8080-exec-{i}] Request {i} failed"
        for i, lv in enumerate(["ERROR", "INFO"] * 10)
    ]
    users = [
        f"2024-01-02 10:00:{i:02d} {lv} user{i}|payment declined"
        for i, lv in enumerate(["ERROR", "INFO"] * 10)
    ]
    for lines in (threads, users):
        rows = fold_records(pl.Series("line", lines), infer_generic(lines))
        assert not rows["component"][0].startswith(("http-nio", "user0"))


def test_a_stamp_under_half_the_lines_starts_the_records_when_the_rest_are_their_traces() -> None:
    """NLog's internal log (probe T): 28 stamped records among 82 lines, the others .NET's
    indented "at ..." frames. The stamp was under half of the lines, so none was inferred,
    the frames were malformed and the log refused; it is the stamp of every line that is
    no part of a record."""
    trace = [
        "   --- End of inner exception stack trace ---",
        *(
            f"   at NLog.Internal.FileAppenders.BaseFileAppender.Open{i}(String path)"
            for i in range(4)
        ),
    ]
    lines = []
    for i in range(12):
        level = "Error" if i % 4 == 0 else "Info"
        lines.append(f"2019-01-23 18:30:{i:02d}.7152 {level} FileTarget(Name=allfile): write {i}")
        lines.extend(trace if level == "Error" else [])
    found = detect_all(lines, year=2024)
    assert found.best == "generic" and found.confidence == 0.9  # every line (discounted)
    fmt = infer_generic(lines)
    rows = fold_records(pl.Series("line", lines), fmt)
    assert rows["level"].to_list() == ["ERROR", "INFO", "INFO", "INFO"] * 3
    assert rows["valid"].all()


def test_a_log_padded_throughout_keeps_its_records_among_its_frames() -> None:
    """A review: every record starting with a blank, a third of them followed by two frames;
    the stamp's share leaves the frames out, but whether records are indented is judged on
    the lines that carry it (it had been judged on the share times every line: refused)."""
    lines = []
    for i in range(30):
        level = "ERROR" if i % 3 == 0 else "DEBUG"
        lines.append(f" 2024-03-10 08:00:{i:02d} {level} cache user login ok {i}")
        if i % 3 == 0:
            lines += ["    at com.x.Foo.bar(Foo.java:1)", "    at com.x.Foo.baz(Foo.java:2)"]
    assert infer_generic(lines).indented
    rows = fold_records(pl.Series("line", lines), infer_generic(lines))
    assert rows["valid"].sum() == 30 and rows["level"].to_list().count("ERROR") == 10
