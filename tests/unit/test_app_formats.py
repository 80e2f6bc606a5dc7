"""Application formats: fields, levels, folding, custom formats and detection."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from logagent import Question, analyze, load_settings
from logagent.errors import FormatError
from logagent.formats.app import parse_app
from logagent.formats.appkeys import auto_app_mapping
from logagent.formats.applogs import (
    APACHE_ERROR,
    HADOOP,
    LOG4J,
    PYTHON,
    SYSLOG5424,
    golog,
    syslog3164,
)
from logagent.formats.base import staged_fields
from logagent.formats.catalog import build_any_format
from logagent.formats.custom import build_custom_format, load_custom_formats
from logagent.formats.detect import detect_all
from logagent.formats.records import fold_records
from logagent.formats.structured import JsonAppFormat, LogfmtFormat
from logagent.result import QuestionKind
from logagent.testing import fake_env

ROOT = Path(__file__).resolve().parents[2]


def fields(fmt, lines):  # type: ignore[no-untyped-def]
    df = parse_app(fmt, pl.Series("line", lines, dtype=pl.String))
    return df.select("level", "component", "message").rows()


@pytest.mark.parametrize(
    ("fmt", "line", "want"),
    [
        (
            syslog3164(2024),
            "Oct  1 22:14:15 web01 sshd[4721]: error: bad",
            ("ERROR", "sshd", "error: bad"),
        ),
        (
            syslog3164(2024),
            "<30>Oct 11 22:14:15 h systemd[1]: Started x",
            ("INFO", "systemd", "Started x"),
        ),
        (  # BusyBox syslogd: facility.severity before the program (a drone's real logs)
            syslog3164(2024),
            "Jan  1 00:00:06 3dr_solo user.err kernel: imx-ipuv3 2400000.ipu: failed",
            ("ERROR", "kernel", "imx-ipuv3 2400000.ipu: failed"),
        ),
        (
            syslog3164(2024),
            "Feb 26 10:04:02 3dr_solo user.notice  px4=",
            ("INFO", "-", "px4="),  # no program named
        ),
        (
            SYSLOG5424,
            "<11>1 2024-01-02T03:04:05Z h billing 812 - - declined",
            ("ERROR", "billing", "declined"),
        ),
        (
            APACHE_ERROR,
            "[Wed Oct 11 14:32:52.1 2000] [ssl:warn] [pid 1] AH01909: x",
            ("WARN", "ssl", "AH01909: x"),
        ),
        (  # Apache 2.4 names no module: "[:emerg]" (a real AH00020 had been malformed)
            APACHE_ERROR,
            "[Mon May 26 12:23:07.169739 2025] [:emerg] [pid 5229] AH00020: Configuration Failed",
            ("FATAL", "AH00020", "AH00020: Configuration Failed"),  # the error kind
        ),
        (
            LOG4J,
            "2024-01-02 03:04:05,678 ERROR [main] com.foo.Bar - msg",
            ("ERROR", "com.foo.Bar", "msg"),
        ),
        (LOG4J, "2024-01-02T03:04:05.678Z WARN com.foo.Bar: m", ("WARN", "com.foo.Bar", "m")),
        (  # Spring Boot: the logger column, abbreviated from the left, runs to the padded " : "
            LOG4J,
            "2022-03-23 15:54:21.893  INFO 36569 --- [           main] "
            ".s.d.r.c.RepositoryConfigurationDelegate : Bootstrapping",
            ("INFO", ".s.d.r.c.RepositoryConfigurationDelegate", "Bootstrapping"),
        ),
        (  # ... and holds what no class name does (Hibernate's "SQL dialect", Tomcat's path)
            LOG4J,
            "2022-03-23 15:54:22.381  INFO 36569 --- [           main] "
            "SQL dialect                              : HHH000400: Using dialect: x",
            ("INFO", "SQL dialect", "HHH000400: Using dialect: x"),
        ),
        (
            LOG4J,
            "2023-11-24T05:29:59.211Z  WARN 8670 --- [demo] [nio-8080-exec-2] "
            "o.a.c.c.C.[Tomcat].[localhost].[/]       : Initializing : x",
            ("WARN", "o.a.c.c.C.[Tomcat].[localhost].[/]", "Initializing : x"),
        ),
        (  # JBoss LogManager (WildFly, Quarkus, Keycloak): padded level, (thread) after
            LOG4J,
            "2023-08-23 07:34:19,481 ERROR [org.keycloak.services] (executor-thread-5) "
            "KC-SERVICES0029: Failed to send email",
            ("ERROR", "org.keycloak.services", "KC-SERVICES0029: Failed to send email"),
        ),
        (
            LOG4J,
            "2021-03-01 10:00:00,000 INFO  [org.jboss.as] (ServerService Thread Pool -- 72) "
            "WFLYSRV0025: started",
            ("INFO", "org.jboss.as", "WFLYSRV0025: started"),
        ),
        (PYTHON, "CRITICAL:app.db:gone", ("FATAL", "app.db", "gone")),
        (  # Home Assistant (crowdsec hub's test log, probe E): its logger had been "-"
            PYTHON,
            "2021-12-12 12:32:19 WARNING (MainThread) [homeassistant.components.http.ban] "
            "Login attempt or request with invalid authentication from localhost (127.0.0.1)",
            (
                "WARN",
                "homeassistant.components.http.ban",
                "Login attempt or request with invalid authentication from localhost (127.0.0.1)",
            ),
        ),
        (PYTHON, "2024-01-02 03:04:05,678 - app.web - ERROR - boom", ("ERROR", "app.web", "boom")),
        (
            golog(2024),
            "E0102 03:04:05.678901    12 ctrl.go:9] sync failed",
            ("ERROR", "ctrl.go", "sync failed"),
        ),
        (HADOOP, "081109 203615 148 WARN dfs.DataNode: slow", ("WARN", "dfs.DataNode", "slow")),
    ],
)
def test_each_format_yields_level_component_message(fmt, line, want) -> None:  # type: ignore[no-untyped-def]
    """Every built-in regex format maps its example to the documented fields."""
    assert fields(fmt, [line, "not a record"]) == [want, (None, None, None)]


def test_yearless_syslog_time_needs_a_year() -> None:
    """A year-less timestamp gets the reference year, or stays null without one."""
    line = pl.Series(["Feb 29 00:00:01 h kernel: x"])
    assert str(parse_app(syslog3164(2024), line)["time"][0]) == "2024-02-29 00:00:01+00:00"
    assert parse_app(syslog3164(None), line)["time"][0] is None


def test_json_and_logfmt_keys_are_found() -> None:
    """level/logger/message style keys are mapped automatically; pino numbers map to levels."""
    j = ['{"lvl": 50, "logger": "pay", "msg": "x"}', '{"lvl": "info", "logger": "web", "msg": "y"}']
    assert fields(JsonAppFormat(mapping=auto_app_mapping(j)), [*j, "[1]"]) == [
        ("ERROR", "pay", "x"),
        ("INFO", "web", "y"),
        (None, None, None),
    ]
    lf = ['time=t level=error msg="a \\"b\\"" component=db', "level=info msg=ok component=api"]
    fmt = LogfmtFormat(mapping=auto_app_mapping(lf, logfmt=True))
    assert fields(fmt, [*lf, "plain words"]) == [
        ("ERROR", "db", 'a "b"'),
        ("INFO", "api", "ok"),
        (None, None, None),
    ]
    # zap's and go-kit's "caller" names the component where no logger is (LiU-SeeGoals'
    # zap JSON, probe H: every record had been "-"); a logger, where named, comes first
    zap = ['{"level":"warn","timestamp":"t","caller":"ai/brain.go:78","msg":"slow"}'] * 2
    assert auto_app_mapping(zap)["component"] == "caller"
    both = ['{"level":"warn","logger":"ai","caller":"ai/brain.go:78","msg":"slow"}'] * 2
    assert auto_app_mapping(both)["component"] == "logger"
    # a key alone after the first pair is a key with no value (go-logfmt; Traefik writes
    # ``ACME CA="..."``); a line that opens with a bare word stays no record
    bare = [
        'level=error msg="acme failed" name=le.acme ACME CA="https://ca" component=tls',
        "level=warn msg=retry flag component=db",
        "ACME level=error msg=x component=tls",
        "level=error msg=disk full on /var",  # an unquoted message: not cut into bare keys
    ]
    assert fields(fmt, bare) == [
        ("ERROR", "tls", "acme failed"),
        ("WARN", "db", "retry"),
        (None, None, None),
        (None, None, None),
    ]


def test_structured_logs_that_name_no_component_rank_error_kinds(tmp_path: Path) -> None:
    """A JSON or logfmt log whose sampled records hold no component key ranks its records by
    their error kind, as the regex layouts do (Traefik's logfmt and Miniflux's slog had every
    record under "-"); a log that names components keeps them, "-" where a record names none."""
    logfmt = [
        'time=t level=error msg="Error while starting server: listen tcp :80" entryPoint=web',
        'time=t level=warn msg="the router web uses a non-existent service"',
    ]
    fmt = build_any_format("logfmt", logfmt)
    assert isinstance(fmt, LogfmtFormat) and fmt.head_component
    assert fields(fmt, logfmt) == [
        ("ERROR", "Error while starting server", "Error while starting server: listen tcp :80"),
        ("WARN", "the router web uses", "the router web uses a non-existent service"),
    ]
    named = ['{"level":"error","logger":"db","msg":"down 3"}', '{"level":"error","msg":"x 1"}']
    fmt = build_any_format("jsonapp", named)
    assert isinstance(fmt, JsonAppFormat) and not fmt.head_component
    assert [c for _, c, _ in fields(fmt, named)] == ["db", "-"]
    bare = ['{"level":"error","msg":"Connection refused by 10.0.0.1"}'] * 3
    fmt = build_any_format("jsonapp", bare)
    assert isinstance(fmt, JsonAppFormat) and fmt.head_component
    assert [c for _, c, _ in fields(fmt, bare)] == ["Connection refused by"] * 3
    stages, staged = staged_fields(fmt, pl.col("line"))  # the staged parse reads the same
    plan = pl.LazyFrame({"line": bare})
    for stage in stages:
        plan = plan.with_columns(**stage)
    assert (
        plan.select(staged["component"]).collect().to_series().to_list()
        == ["Connection refused by"] * 3
    )
    log = tmp_path / "traefik.log"
    log.write_text("\n".join(logfmt * 20) + "\n")
    question = Question(kind=QuestionKind.TOP_ERROR_COMPONENTS, level="warn")
    result = analyze([str(log)], question, load_settings(analysis={"full": True}), fake_env())
    assert {e.key: e.count for e in result.answer.top} == {
        "Error while starting server": 20,
        "the router web uses": 20,
    }
    assert any("ranked by their error kind" in w for w in result.warnings)  # said


def test_stack_traces_fold_into_their_record() -> None:
    """Continuation lines join the record before them; lines before any record are malformed."""
    lines = [
        "\tat orphan",
        "2024-01-02 03:04:05,678 ERROR [main] a.B - boom",
        "java.lang.IllegalStateException: x",
        "\tat a.B.run(B.java:1)",
        "Caused by: java.io.IOException: y",
        "\t... 12 more",
        "2024-01-02 03:04:06,678 INFO [main] a.C - ok",
    ]
    out = fold_records(pl.Series(lines), LOG4J)
    assert out.select("start", "level", "lines").rows() == [
        (False, None, 1),
        (True, "ERROR", 5),
        (True, "INFO", 1),
    ]
    assert out["message"][1].endswith("\t... 12 more")


def test_trace_lines_of_jenkins_and_python_drivers_are_excused_by_detection() -> None:
    """A traceback ending in a dotted exception name not called *Error (psycopg2's, requests'),
    a driver's ``DETAIL:`` and Jenkins' ``Caused:`` continue a record: detection excuses them
    (a real-log probe saw "only 50 % of sampled lines parse" on such a Python log)."""
    lines = [
        "2024-03-01 10:00:00,001 ERROR [main] app.db - insert failed",
        "Traceback (most recent call last):",
        '  File "/app/db.py", line 12, in insert',
        'psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint "pk"',
        "DETAIL:  Key (id)=(1) already exists.",
        "LINE 1: INSERT INTO users VALUES (1)",
        "2024-03-01 10:00:01,001 ERROR [main] app.http - upstream timed out",
        "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='x', port=443): timed out",
        "Caused: java.io.IOException: Broken pipe",
    ]
    found = detect_all(lines * 5)
    assert found.best == "log4j" and found.confidence == 1.0
    # another program's "name.suffix: text" is no exception's name (a review: systemd's units)
    other = "nginx.service: Main process exited, code=exited, status=1/FAILURE"
    assert detect_all([lines[0], other, other, other] * 5).confidence < 0.5


def test_custom_format_file_loads_and_bad_ones_fail() -> None:
    """The committed example loads; a bad regex or missing groups is a FormatError."""
    assert "billing" in load_custom_formats(ROOT / "configs" / "formats")
    with pytest.raises(FormatError, match="not a valid regex"):
        build_custom_format({"name": "x", "pattern": "(?P<message>[a-"})
    with pytest.raises(FormatError, match="needs groups"):
        build_custom_format({"name": "x", "pattern": "(?P<message>.*)"})
    with pytest.raises(FormatError, match="record_start"):
        build_custom_format(
            {"name": "x", "pattern": "(?P<level>.) (?P<message>.*)", "record_start": r"\d"}
        )
    for bad in ("abc", [1], 0, -3, 2.5, True):  # "abc" had been a traceback (int())
        with pytest.raises(FormatError, match="min_line_bytes"):
            build_custom_format(
                {"name": "x", "pattern": "(?P<level>.) (?P<message>.*)", "min_line_bytes": bad}
            )


def test_a_custom_format_may_not_be_called_auto(tmp_path: Path) -> None:
    """``--format auto`` is detection: a format named so had won detection as "auto"."""
    (tmp_path / "a.toml").write_text('name = "auto"\npattern = "(?P<level>.) (?P<message>.*)"\n')
    with pytest.raises(FormatError, match="already taken"):
        load_custom_formats(tmp_path)


def test_detect_all_prefers_specific_and_flags_ambiguity() -> None:
    """HDFS-style lines pick hadoop over log4j without ambiguity; junk is low confidence."""
    yarn = ["2015-10-18 18:01:47,978 INFO [main] org.a.B: Created"] * 3
    d = detect_all(yarn)
    assert d.scores[:2] == (("hadoop", 1.0), ("log4j", 1.0))
    assert not d.ambiguous
    junk = detect_all(["hello", "world"])
    assert junk.low_confidence and junk.confidence == 0.0


def test_yearless_stamps_take_the_reference_year_or_the_one_before() -> None:
    """A reference time places a year-less stamp in its year, or the year before when that
    would put it more than a day after the reference; a year places it in that year."""
    from datetime import UTC, datetime

    import polars as pl

    from logagent.formats.apptimes import parse_times

    stamps = pl.Series("ts", ["Dec 25 10:00:00", "Dec  3 11:00:00", "Nov 30 09:00:00", "x"])
    fmt = ("{year} %b %d %H:%M:%S",)
    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    placed = pl.select(parse_times(pl.lit(stamps), fmt, now)).to_series().to_list()
    assert [t.year if t else None for t in placed] == [2025, 2026, 2026, None]
    fixed = pl.select(parse_times(pl.lit(stamps), fmt, 2024)).to_series().to_list()
    assert [t.year if t else None for t in fixed] == [2024, 2024, 2024, None]


def test_syslog_program_names_real_systems_write() -> None:
    """macOS and old sysklogd write program names with blanks, a launchd detail in parentheses
    after the pid, and a version (loghub's Mac and Linux logs: 6.6 % of lines were malformed)."""
    import polars as pl

    from logagent.formats.app import COMPONENT, parse_app
    from logagent.formats.applogs import syslog3164

    lines = [
        "Jul  1 09:29:02 calvisitor-10 sandboxd[129] ([31211]): com.apple.Addres deny network",
        "Jul  1 09:30:02 calvisitor-10 Microsoft Word[96]: ERROR failed to save",
        "Jul  1 09:31:02 calvisitor-10 com.apple.xpc.launchd[1] (com.apple.qq.1234): exited",
        "Jun 19 04:09:11 combo syslogd 1.4.1: restart.",
        "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: authentication failure",
        "Jun 14 15:16:01 combo this line has far too many words before: its colon",
        # another layout's "level phrase:" is no host and program (the review's regression)
        "2024-01-02T03:00:00.123Z ERROR db pool: connection failed",
        "2024-01-01T00:00:00.000000000Z stderr F E0101 00:00:00.000 1 x.go:1] failed",
    ]
    got = parse_app(syslog3164(2024), pl.Series("line", lines))[COMPONENT].to_list()
    assert got == [
        "sandboxd",
        "Microsoft Word",
        "com.apple.xpc.launchd",
        "syslogd 1.4.1",
        "sshd(pam_unix)",
        None,
        None,
        None,
    ]


def test_android_logcat_threadtime() -> None:
    """``adb logcat`` (threadtime): level letters (V and A too), the tag as component."""
    import polars as pl

    from logagent.formats.app import COMPONENT, LEVEL, TIME, parse_app
    from logagent.formats.applogs import logcat

    lines = [
        "03-17 16:13:38.811  1702  2395 D WindowManager: printFreezingDisplayLogs",
        "03-17 16:13:38.819  1702  8671 E PowerManagerService: acquire lock=233570404",
        "03-17 16:13:39.001  2227  2227 V PhoneStatusBar : tick",
        "03-17 16:13:40.500   981   981 A libc    : Fatal signal 6 (SIGABRT)",
        "not a logcat line",
        # a C++ tag (probe K: this line had been malformed)
        "01-04 04:09:20.541   294   294 I APM::ConfigParsingUtils: loadAudioPolicyConfig() ok",
        # a process name's colon (probe U: malformed)
        "03-13 10:04:26.891  8071  8211 I tencent.mm:push: Explicit concurrent copying GC",
    ]
    got = parse_app(logcat(2017), pl.Series("line", lines))
    assert got[LEVEL].to_list() == ["DEBUG", "ERROR", "TRACE", "FATAL", None, "INFO", "INFO"]
    assert got[COMPONENT].to_list() == [
        "WindowManager",
        "PowerManagerService",
        "PhoneStatusBar",
        "libc",
        None,
        "APM::ConfigParsingUtils",
        "tencent.mm:push",
    ]
    assert got[TIME][0].year == 2017 and got[TIME][0].month == 3


def test_later_patterns_run_only_where_earlier_ones_do_not_match() -> None:
    """A layout's later patterns parse only the lines its earlier ones miss (the others as ""):
    the fields equal those of running every pattern on every line, first match winning."""
    import polars as pl

    from logagent.formats.app import COMPONENT, MESSAGE, _matched, group_names, parse_app
    from logagent.formats.applogs import syslog3164
    from logagent.formats.serverlogs import CRI, KAFKA

    lines = [
        "Jul  1 09:29:02 calvisitor-10 sandboxd[129] ([31211]): deny network",
        "Jul  1 09:30:02 calvisitor-10 Microsoft Word[96]: ERROR failed to save",
        "Jun 19 04:09:11 combo syslogd 1.4.1: restart.",
        "2024-01-01T00:00:00.000000000Z stderr F E0101 00:00:00.000 1 x.go:1] failed",
        "2024-01-01T00:00:00.000000000Z stdout P warning: disk almost full",
        "2024-01-01T00:00:00.000000000Z stdout F plain text",
        "[2016-12-19 16:31:47,437] WARN message (kafka.controller.KafkaController)",
        "[2019-01-01 00:00:00,000] [ERROR] [thread] [state.change.logger] - boom",
        "junk",
    ]
    series = pl.Series("line", lines)
    for fmt in (syslog3164(2024), CRI, KAFKA):
        got = parse_app(fmt, series)
        frame = pl.DataFrame({"line": series})
        each = [frame.select(s=pl.col("line").str.extract_groups(p))["s"] for p in fmt.patterns]
        for row, line in enumerate(lines):
            first = next(
                (
                    (s[row], p)
                    for s, p in zip(each, fmt.patterns, strict=True)
                    if pl.select(_matched(pl.lit(s[row : row + 1]), group_names(p))).item()
                ),
                None,
            )
            if first is None:
                assert got[MESSAGE][row] is None, (fmt.name, line)
                continue
            values, _ = first
            assert got[MESSAGE][row] == (values.get(MESSAGE) or ""), (fmt.name, line)
            if values.get(COMPONENT):
                assert got[COMPONENT][row] == values[COMPONENT].strip(), (fmt.name, line)


def test_blue_gene_l_ras_levels_components_and_stamp() -> None:
    """BGL (loghub): the component field, FAILURE as FATAL, SEVERE as ERROR, a NULL type, no
    message; its microsecond stamp is the time; a line of another shape is no record."""
    from logagent.formats.app import TIME
    from logagent.formats.applogs import BGL

    head = (
        "- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 R02-M1-N0-C:J12-U11"
    )
    lines = [
        f"{head} RAS KERNEL INFO instruction cache parity error corrected",
        f"KERNDTLB {head[2:]} RAS KERNEL FATAL data TLB error interrupt",
        f"{head} RAS HARDWARE FAILURE node card failure",
        f"{head} NULL DISCOVERY SEVERE Can not get assembly information for node card",
        f"{head} RAS MMCS WARNING",
        f"{head} RAS KERNEL NOTICE a level BGL does not write",
        "- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond[2916]: (root) CMD",
    ]
    assert fields(BGL, lines) == [
        ("INFO", "KERNEL", "instruction cache parity error corrected"),
        ("FATAL", "KERNEL", "data TLB error interrupt"),
        ("FATAL", "HARDWARE", "node card failure"),
        ("ERROR", "DISCOVERY", "Can not get assembly information for node card"),
        ("WARN", "MMCS", ""),
        (None, None, None),
        (None, None, None),
    ]
    time = parse_app(BGL, pl.Series("line", lines[:1]))[TIME][0]
    # the epoch field (UTC), not the written stamp (15:42:50.675872, Pacific without a zone)
    assert str(time) == "2005-06-03 22:42:50+00:00"


def test_thunderbird_programs_word_levels_and_epoch_time() -> None:
    """Thunderbird (loghub): the host is one field, the program is read as syslog3164 reads it
    (a [pid], a path, a version), the level comes from the message's words, and the time is
    the epoch field (UTC), not the local, year-less syslog stamp; other shapes are no record."""
    from logagent.formats.app import TIME
    from logagent.formats.applogs import THUNDERBIRD

    head = "- 1131566461 2005.11.09 dn228 Nov 9 12:01:01"
    lines = [
        f"{head} dn228/dn228 crond(pam_unix)[2915]: session closed for user root",
        f"{head} local@tbird-admin1 /apps/sbin/gmetad[1682]: data_thread() got not answer",
        f"{head} local@tbird-admin1 ide0: Wait for ready failed before probe !",
        f"VAPI {head[2:]} src@tbird-sm1 ib_sm.x[24904]: Warning: port down",
        f"{head} src@aadmin1 syslogd 1.4.1: kernel panic",
        f"{head} src@aadmin1 dhcpd: DHCPDISCOVER from 00:11:43:e3:ba:c3 via eth1",
        f"{head} local@tbird-admin1 megaraid cmm: #38#-rh1 (Release Date: Fri Dec 10 2004)",
        "Nov  9 12:01:01 dn228 crond[2916]: (root) CMD (run-parts /etc/cron.hourly)",
        "- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 "
        "R02-M1-N0-C:J12-U11 RAS KERNEL INFO instruction cache parity error corrected",
    ]
    assert fields(THUNDERBIRD, lines) == [
        ("INFO", "crond(pam_unix)", "session closed for user root"),
        ("INFO", "/apps/sbin/gmetad", "data_thread() got not answer"),
        ("ERROR", "ide0", "Wait for ready failed before probe !"),
        ("WARN", "ib_sm.x", "Warning: port down"),
        ("FATAL", "syslogd 1.4.1", "kernel panic"),
        ("INFO", "dhcpd", "DHCPDISCOVER from 00:11:43:e3:ba:c3 via eth1"),
        (None, None, None),  # two words without a [pid] are no program, and no host is left
        (None, None, None),
        (None, None, None),
    ]
    time = parse_app(THUNDERBIRD, pl.Series("line", lines[:1]))[TIME][0]
    assert str(time) == "2005-11-09 20:01:01+00:00"  # the stamp says 12:01:01, Pacific


def test_failure_is_fatal_in_the_level_vocabulary() -> None:
    """FAILURE (Blue Gene/L's hardware failure) normalizes to FATAL, in any case."""
    from logagent.formats.levels import normalize_level

    got = pl.select(normalize_level(pl.lit(pl.Series(["FAILURE", "failure", "FAIL"]))))
    assert got.to_series().to_list() == ["FATAL", "FATAL", None]


def test_keys_inside_an_object_most_records_hold_are_found() -> None:
    """lnav's nested JSON test log (``{"ts": …, "@fields": {"lvl": …, "msg": …}}``) had been
    refused as no known format: the well-known keys are looked for inside an object most
    records hold, after the top level's (which win); lnav's DEBUG2..5 are DEBUG."""
    nested = [
        '{"ts": "2013-09-06T20:00:48Z", "@fields": { "lvl": "ERROR", "msg": "looking bad"}}',
        '{"ts": "2013-09-06T20:00:49Z", "@fields": { "lvl": "DEBUG3", "msg": "Details..."}}',
        '{"ts": "2013-09-06T20:00:50Z", "@fields": { "lvl": "WARNING", "msg": "hm", "u": "s"}}',
    ]
    mapping = auto_app_mapping(nested)
    assert (mapping["level"], mapping["message"], mapping["ts"]) == (
        "@fields.lvl",
        "@fields.msg",
        "ts",
    )
    got = fields(JsonAppFormat(mapping=mapping), nested)
    assert [(lv, msg) for lv, _, msg in got] == [
        ("ERROR", "looking bad"),
        ("DEBUG", "Details..."),
        ("WARN", "hm"),
    ]
    top = ['{"level": "info", "msg": "a", "ctx": {"level": "error", "msg": "b"}}'] * 2
    assert auto_app_mapping(top)["level"] == "level"  # the top level's key first
    assert detect_all(nested).best == "jsonapp"


def test_a_jvm_gc_log_is_no_syslog() -> None:
    """A JVM GC log's ``2016-12-19T16:31:46.725+0100: 1.595: [GC pause …]``: the stamp's zone
    is followed by a colon, which no syslog stamp is; it had been read as syslog at 0.99
    (the uptime its program). RFC 3339 stamps of syslog still read."""
    gc = [
        "2016-12-19T16:31:46.725+0100: 1.595: [GC pause (G1 Evacuation Pause) (young), 0.009 secs]",
        "   [Parallel Time: 7.2 ms, GC Workers: 1]",
        "2016-12-19T16:31:47.001+0100: 1.871: [GC concurrent-root-region-scan-start]",
    ]
    assert detect_all(gc).scores[0] != ("syslog3164", 1.0)
    assert dict(detect_all(gc).scores).get("syslog3164", 0.0) == 0.0
    rsyslog = [
        "2024-01-02T03:04:05.123456+01:00 web01 sshd[42]: Failed password for root",
        "2024-01-02T03:04:06Z web01 cron[7]: (root) CMD (run-parts)",
        "2024-01-02T03:04:07+0100 web01 kernel: eth0 link up",
    ]
    assert detect_all(rsyslog).best == "syslog3164"


def test_the_year_reference_is_the_last_stamp_of_an_ordered_log_else_the_latest() -> None:
    """Year-less stamps are placed from one stamp of each input: the last, where the log runs
    in order (across one new year at most), else its latest date in a year (excerpts out of
    order: ossec's ProFTPD entries ran May, June, then May again)."""
    from datetime import UTC, datetime

    from logagent.formats.apptimes import year_reference

    def at(*days: tuple[int, int]) -> list[datetime]:  # placed from now (Dec 7, 2026)
        return [datetime(2026 if (m, d) <= (12, 8) else 2025, m, d, tzinfo=UTC) for m, d in days]

    assert year_reference([]) is None
    ordered = at((5, 1), (5, 2), (6, 3))
    assert year_reference(ordered) == ordered[-1]
    wrap = at((12, 30), (12, 31), (1, 1), (1, 2))
    assert year_reference(wrap) == wrap[-1]  # Dec 30 to Jan 2: Jan 2 is the last
    reset = at((12, 6), (12, 7), (12, 7), (1, 1))  # one last stamp alone past a new year
    assert year_reference(reset) == reset[1]  # no new year: the latest date
    excerpts = at((5, 21), (5, 30), (6, 1), (6, 3), (5, 29), (5, 31))
    assert year_reference(excerpts) == datetime(2026, 6, 3, tzinfo=UTC)
    once_back = at((5, 21), (6, 2), (5, 29), (5, 31))  # one step back, no new year crossed
    assert year_reference(once_back) == datetime(2026, 6, 2, tzinfo=UTC)


def test_keys_of_the_records_own_data_are_no_fields() -> None:
    """An object of a record's data (``user``, ``request``) holds a name or a level of its
    own: no component nor level of the record (a review: user names ranked as components,
    a request's level read as the record's); only envelopes are looked into, and only for
    a field the top level lacks."""
    users = [
        '{"timestamp": "2024-01-01T00:00:00Z", "severity": "ERROR", "message": "x", '
        '"user": {"id": 1, "name": "alice"}}'
    ] * 4
    assert auto_app_mapping(users)["component"] != "user.name"
    requests = ['{"ts": "2024-01-01T00:00:00Z", "msg": "x", "request": {"level": "3"}}'] * 4
    assert auto_app_mapping(requests)["level"] == "level"  # the default: none found
    shadowed = ['{"level": "info", "msg": "a", "fields": {"level": "error"}}'] * 2
    assert auto_app_mapping(shadowed)["level"] == "level"


def test_jboss_logs_are_log4j_not_supervisord() -> None:
    """Keycloak's events log (crowdsec hub's test log, probe E) had been supervisord's at
    confidence 1.0, its categories lost: supervisord writes one blank after a level of four
    letters, JBoss pads WARN and INFO with two. supervisord's own lines stay its own."""
    keycloak = [
        "2023-05-25 22:24:19,357 WARN  [org.keycloak.events] (executor-thread-3121) "
        "type=LOGIN_ERROR, realmId=keycloak, error=user_not_found",
        "2023-05-25 22:24:20,001 INFO  [io.quarkus] (main) Keycloak 21.1.1 started in 9.1s.",
    ] * 10
    found = detect_all(keycloak)
    assert found.best == "log4j" and found.confidence == 1.0
    assert dict(found.scores)["supervisord"] == 0.0
    own = [
        "2022-11-08 11:21:54,066 CRIT Server 'unix_http_server' running without any HTTP auth",
        "2022-11-08 11:21:54,070 INFO supervisord started with pid 1",
        "2022-11-08 11:21:55,073 WARN exited: app (exit status 1; not expected)",
    ] * 10
    assert detect_all(own).best == "supervisord"


def test_logback_with_the_level_first_is_log4j() -> None:
    """OpenVidu's logback ``[%p] %d [%t] %logger - %msg`` (gr8den/openvidu_concurrent_error,
    probe G) had been refused alone, and folded into supervisord's records in its container's
    log: its ERROR records lost. A stack trace folds into the record above it."""
    lines = [
        "[INFO] 2021-10-17 14:08:40,200 [main] io.openvidu.server.OpenViduServer - Starting",
        "[ERROR] 2021-10-17 14:08:40,461 [main] io.openvidu.server.config.OpenviduConfig - "
        ".env file not found at /.env",
        "java.io.FileNotFoundException: /.env",
        "\tat io.openvidu.server.config.OpenviduConfig.load(OpenviduConfig.java:88)",
        "[INFO] 2021-10-17 14:08:42,866 [main] org.apache.catalina.core.ContainerBase.[Tomcat]"
        ".[localhost].[/] - Initializing Spring embedded WebApplicationContext",
        "[WARN] 2021-10-17 14:08:43,001 [https-jsse-nio-4443-exec-5] io.openvidu.Kms -",
    ]
    out = fold_records(pl.Series(lines), LOG4J)
    assert out.select("level", "component", "lines").rows() == [
        ("INFO", "io.openvidu.server.OpenViduServer", 1),
        ("ERROR", "io.openvidu.server.config.OpenviduConfig", 3),
        ("INFO", "org.apache.catalina.core.ContainerBase.[Tomcat].[localhost].[/]", 1),
        ("WARN", "io.openvidu.Kms", 1),
    ]
    assert (
        str(parse_app(LOG4J, pl.Series(lines[:1]))["time"][0]) == "2021-10-17 14:08:40.200000+00:00"
    )
    assert detect_all(lines * 5).best == "log4j"


def test_python_logger_names_hold_no_blank_or_bracket() -> None:
    """Pterodactyl Wings' ``WARN: [Jul  2 05:05:24.643] msg`` had been Python's layout at 1.0
    with the logger ``[Jul  2 05`` (probe E): a logger name is a dotted word."""
    wings = "WARN: [Jul  2 05:05:24.643] failed to validate user credentials ip=10.56.3.156"
    assert fields(PYTHON, [wings, "WARNING:app.db:slow", "ERROR::root of nothing"]) == [
        (None, None, None),
        ("WARN", "app.db", "slow"),
        ("ERROR", "-", "root of nothing"),  # no name
    ]
    assert detect_all([wings] * 10).best != "python"


def test_mod_wsgi_tracebacks_fold_into_their_apache_error_record() -> None:
    """mod_wsgi writes each line of a Python traceback as an Apache error line of its own
    (a real Django error log, probe F: 3,312 frames had been ranked as one component, "-").
    The frames and "Traceback (most recent call last):" continue the record above; the
    exception's own line is a record, and so is a message that starts with a bracket field.
    Apache's errno is no part of an error kind."""
    head = "[Mon Sep 11 12:34:31.9118{} 2017] [:error] [pid 17344:tid 1403] "
    lines = [
        head.format(56) + "Internal Server Error: /bank/reports/mark_inactive/",
        head.format(57) + "Traceback (most recent call last):",
        head.format(58) + '  File "/srv/django/core/handlers/exception.py", line 41, in inner',
        head.format(59) + "    response = get_response(request)",
        head.format(60) + "AssertionError: Expected a `Response` to be returned from the view",
        "[Mon Sep 11 12:34:32 2017] [error] [client 1.2.3.4] (13)Permission denied: access to /",
        head.format(61) + "Traceback mentioned first is still a record",
    ]
    rows = fold_records(pl.Series("line", lines), APACHE_ERROR)
    assert rows.select("component", "lines").rows() == [
        ("Internal Server Error", 4),
        ("AssertionError", 1),
        ("Permission denied", 1),
        ("Traceback mentioned first is", 1),
    ]
    assert detect_all(lines * 3).best == "apache_error"
    assert detect_all(lines * 3).confidence == 1.0  # the frames count as explained


def test_home_assistant_stamps_and_tracebacks() -> None:
    """Home Assistant's stamps (with or without milliseconds) are read, and a traceback below
    a record folds into it."""
    lines = [
        "2021-12-12 12:32:19 ERROR (MainThread) [homeassistant.core] Error doing job: x",
        "Traceback (most recent call last):",
        '  File "/usr/src/homeassistant/homeassistant/core.py", line 1, in x',
        "2021-12-12 12:32:20.123 INFO (SyncWorker_3) [homeassistant.loader] Loaded hue",
    ]
    rows = fold_records(pl.Series("line", lines), PYTHON)
    assert rows.select("level", "component", "lines").rows() == [
        ("ERROR", "homeassistant.core", 3),
        ("INFO", "homeassistant.loader", 1),
    ]
    assert [str(t) for t in rows["time"]] == [
        "2021-12-12 12:32:19+00:00",
        "2021-12-12 12:32:20.123000+00:00",
    ]
