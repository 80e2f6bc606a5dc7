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
