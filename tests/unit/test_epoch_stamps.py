"""JSON layouts whose stamp is an epoch number: zap's ``ts`` (seconds with a fraction),
pino's ``time`` (milliseconds), journald's ``__REALTIME_TIMESTAMP`` (microseconds, a
string). Read as no time, --since/--until refused such a log (a usage error: no stamp to
window by) and its timeline stayed empty."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from logagent.cli import main
from logagent.formats.app import parse_app
from logagent.formats.base import staged_fields
from logagent.formats.jsonlayouts import JOURNALD, PINO, ZAP_JSON

WHEN = datetime(2026, 11, 18, 10, 0, 0, 250000, tzinfo=UTC)
SECONDS = WHEN.timestamp()
ZAP = f'{{"level":"error","ts":{SECONDS},"caller":"a/b.go:12","msg":"boom"}}'
PINO_LINE = f'{{"level":50,"time":{int(SECONDS * 1000)},"pid":1,"hostname":"h","msg":"boom"}}'
JOURNAL = (
    f'{{"__REALTIME_TIMESTAMP":"{int(SECONDS * 1_000_000)}","PRIORITY":"3",'
    '"SYSLOG_IDENTIFIER":"sshd","MESSAGE":"boom"}'
)
ISO = '{"level":"error","ts":"2026-11-18T10:00:00.25Z","caller":"a/b.go:12","msg":"boom"}'


@pytest.mark.parametrize(
    ("fmt", "line"), [(ZAP_JSON, ZAP), (PINO, PINO_LINE), (JOURNALD, JOURNAL), (ZAP_JSON, ISO)]
)
def test_an_epoch_stamp_is_its_utc_time_staged_or_not(fmt: object, line: str) -> None:
    plain = parse_app(fmt, pl.Series("line", [line]))  # type: ignore[arg-type]
    assert plain["time"].to_list() == [WHEN]
    frame = pl.LazyFrame({"line": [line]})
    stages, fields = staged_fields(fmt, pl.col("line"))
    for stage in stages:
        frame = frame.with_columns(**stage)
    assert frame.select(fields["time"]).collect().to_series().to_list() == [WHEN]


@pytest.mark.parametrize("stamp", ['"yesterday"', "42", "true", '"1700000000x"'])
def test_a_stamp_that_is_neither_text_nor_an_epoch_is_no_time(stamp: str) -> None:
    line = f'{{"level":"error","ts":{stamp},"caller":"a.go:1","msg":"boom"}}'
    got = parse_app(ZAP_JSON, pl.Series("line", [line]))
    assert got["component"].to_list() == ["a.go:1"] and got["time"].to_list() == [None]


def test_since_windows_a_pino_and_a_zap_log_by_their_epoch_stamps(tmp_path: Path) -> None:
    rng = random.Random(3)
    start, cut = 1795000000.0, datetime(2026, 11, 18, 10, 0, tzinfo=UTC).timestamp()
    pino, zap = tmp_path / "pino.log", tmp_path / "zap.log"
    truth: dict[str, dict[str, int]] = {"pino": {}, "zap_json": {}}
    with pino.open("w") as p, zap.open("w") as z:
        for i in range(3000):
            t = start + i * 30 + rng.random()
            error = rng.random() < 0.1
            name = rng.choice(["api", "db"])
            p.write(json.dumps({"level": 50 if error else 30, "time": int(t * 1000), "pid": 1,
                                "hostname": "h", "name": name, "msg": "x"}) + "\n")  # fmt: skip
            z.write(json.dumps({"level": "error" if error else "info", "ts": t,
                                "caller": f"{name}.go:1", "msg": "x"}) + "\n")  # fmt: skip
            if error and t >= cut:
                for fmt, key in (("pino", name), ("zap_json", f"{name}.go:1")):
                    truth[fmt][key] = truth[fmt].get(key, 0) + 1
    for log, fmt in ((pino, "pino"), (zap, "zap_json")):
        args = ["analyze", str(log), "--json", "--llm", "off", "-q", "top-error-components"]
        out = CliRunner().invoke(main, [*args, "--since", "2026-11-18T10:00:00Z"])
        assert out.exit_code == 0, out.output
        got = json.loads(out.output)
        assert (got["input"]["format"], got["status"]) == (fmt, "exact")
        assert {t["key"]: t["count"] for t in got["answer"]["top"]} == truth[fmt]


@pytest.mark.parametrize(
    "stamp",
    [
        "123456789",  # a duration or a counter under "time": 1973
        "900000000",  # 1998
        '"20240101000007"',  # a compact date, read as milliseconds: 2611
        "5000000000000",  # milliseconds past 2100
    ],
)
def test_a_number_no_log_could_have_been_stamped_with_is_no_time(stamp: str) -> None:
    """A review: durations under "time" made a timeline of 98-day buckets from 1973 to 1998,
    and --since then recused ("no ERROR+ record in the time window") where it had said
    that no stamp could be read."""
    line = f'{{"level":"error","ts":{stamp},"caller":"a.go:1","msg":"boom"}}'
    got = parse_app(ZAP_JSON, pl.Series("line", [line]))
    assert got["component"].to_list() == ["a.go:1"] and got["time"].to_list() == [None]


def test_durations_under_time_leave_since_a_usage_error(tmp_path: Path) -> None:
    log = tmp_path / "durations.jsonl"
    rng = random.Random(1)
    rows = [
        {
            "level": rng.choice(["info", "error"]),
            "time": rng.randint(10**8, 9 * 10**8),
            "msg": "request done",
            "component": "api",
        }
        for _ in range(200)
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["analyze", str(log), "--json", "--llm", "off", "--full"]
    out = CliRunner().invoke(main, [*args, "--since", "24h"])
    assert out.exit_code == 2 and "reads no timestamp" in out.output
    got = json.loads(CliRunner().invoke(main, args).output)
    assert not (got["answer"].get("timeline") or {}).get("buckets")


def test_an_epoch_log_with_a_clock_time_in_its_messages_draws_no_zone_warning(
    tmp_path: Path,
) -> None:
    """An epoch is UTC: "backup of 10:00:00" in the message is no stamp without a zone (a
    review); a JSON log whose stamps are zoneless text still draws the warning."""
    epoch, text = tmp_path / "zap.jsonl", tmp_path / "slog.jsonl"
    epoch.write_text("".join(
        json.dumps({"level": ["info", "error"][i % 2], "ts": 1700000000 + i * 30 + 0.5,
                    "msg": "backup of 10:00:00 done", "logger": "cron"}) + "\n"
        for i in range(300)
    ))  # fmt: skip
    text.write_text("".join(
        json.dumps({"level": ["info", "error"][i % 2], "msg": "x", "logger": "cron",
                    "time": f"2023-11-14 {20 + i // 60 % 4:02d}:{i % 60:02d}:00"}) + "\n"
        for i in range(300)
    ))  # fmt: skip
    for log, warned in ((epoch, False), (text, True)):
        args = ["analyze", str(log), "--json", "--llm", "off", "--full"]
        out = CliRunner().invoke(main, [*args, "--since", "2023-11-14T21:00:00Z"])
        got = json.loads(out.output)
        zoneless = any("carry no time zone" in w for w in got["warnings"])
        assert zoneless is warned, (log.name, got["warnings"])
