"""Build the committed application-log samples in ``sample_logs/`` (run as a script).

``python -m logagent.samples.app_samples`` rewrites them from a fixed seed,
with a ``.expected.json`` sidecar each: records, and error records (ERROR or
FATAL) per component, as the generator wrote them. Each file holds odd bits
real logs have: a blank line, an invalid UTF-8 byte, a CRLF line and a last
line cut without its newline.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ERRORS = ("ERROR", "FATAL")
Rec = tuple[str, str, list[str]]  # level, component, lines (first line + continuation)

JAVA_COMPONENTS = ("com.shop.pay.StripeClient", "com.shop.web.OrderController", "org.hibernate.SQL")
JAVA_TRACE = [
    "java.lang.IllegalStateException: payment gateway returned 502",
    "\tat com.shop.pay.StripeClient.charge(StripeClient.java:118)",
    "\tat com.shop.web.OrderController.checkout(OrderController.java:64)",
    "Caused by: java.net.SocketTimeoutException: Read timed out",
    "\tat java.base/java.net.SocketInputStream.read(SocketInputStream.java:168)",
    "\t... 12 more",
]
PY_TRACE = [
    "Traceback (most recent call last):",
    '  File "/srv/app/db.py", line 88, in fetch',
    "    rows = cur.execute(sql)",
    "psycopg2.OperationalError: server closed the connection unexpectedly",
]
SYSLOG_PROGS = (
    ("sshd", 4721),
    ("CRON", 2211),
    ("kernel", 0),
    ("systemd", 1),
    ("postfix/smtpd", 903),
)


def _pick(rng: random.Random) -> str:
    return rng.choices(("INFO", "WARN", "ERROR", "DEBUG", "FATAL"), (60, 12, 20, 6, 2))[0]


def log4j(rng: random.Random, i: int) -> Rec:
    """A logback line, with a Java stack trace on most errors."""
    level, comp = _pick(rng), rng.choice(JAVA_COMPONENTS)
    stamp = f"2024-03-05 10:{i // 60 % 60:02d}:{i % 60:02d},{i % 1000:03d}"
    first = f"{stamp} {level:<5} [http-nio-8080-exec-{i % 9}] {comp} - request {i} handled"
    trace = JAVA_TRACE if level in ERRORS and rng.random() < 0.7 else []
    return level, comp, [first, *trace]


def python(rng: random.Random, i: int) -> Rec:
    """A Python logging line (two layouts), with a traceback on some errors."""
    level, comp = _pick(rng), rng.choice(("app.db", "app.web", "root"))
    py_level = {"WARN": "WARNING", "FATAL": "CRITICAL"}.get(level, level)
    first = (
        f"{py_level}:{comp}:job {i} done"
        if i % 2
        else f"2024-03-05 11:00:{i % 60:02d},{i % 1000:03d} - {comp} - {py_level} - job {i} done"
    )
    trace = PY_TRACE if level in ERRORS and rng.random() < 0.6 else []
    return level, comp, [first, *trace]


def syslog(rng: random.Random, i: int) -> Rec:
    """A BSD syslog line from one of several programs; errors say 'error' or 'failed'."""
    prog, pid = rng.choice(SYSLOG_PROGS)
    bad = rng.random() < 0.25
    msg = f"error: session {i} failed" if bad else f"session {i} opened for user deploy"
    head = f"{prog}[{pid}]" if pid else prog
    return (
        ("ERROR" if bad else "INFO"),
        prog,
        [f"Mar  5 12:{i // 60 % 60:02d}:{i % 60:02d} web01 {head}: {msg}"],
    )


def jsonapp(rng: random.Random, i: int) -> Rec:
    """A JSON app log object with level/logger/message keys."""
    level, comp = _pick(rng), rng.choice(("billing", "auth", "search"))
    obj = {
        "ts": f"2024-03-05T13:00:{i % 60:02d}Z",
        "level": level.lower(),
        "logger": comp,
        "message": f"event {i}",
    }
    return level, comp, [json.dumps(obj)]


def logfmt(rng: random.Random, i: int) -> Rec:
    """A logrus-style logfmt line."""
    level, comp = _pick(rng), rng.choice(("scheduler", "api", "worker"))
    line = (
        f'time="2024-03-05T14:00:{i % 60:02d}Z" level={level.lower()} '
        f'msg="task {i} finished" component={comp}'
    )
    return level, comp, [line]


BUILDERS: dict[str, tuple[str, Callable[[random.Random, int], Rec]]] = {
    "app_log4j.log": ("log4j", log4j),
    "app_python.log": ("python", python),
    "syslog.log": ("syslog3164", syslog),
    "app.jsonl": ("jsonapp", jsonapp),
    "app_logfmt.log": ("logfmt", logfmt),
}


def build(
    name: str, fmt: str, make: Callable[[random.Random, int], Rec], *, n: int = 300
) -> tuple[bytes, dict[str, object]]:
    """The bytes of one sample and its truth."""
    rng = random.Random(name)
    recs = [make(rng, i) for i in range(n)]
    errors = Counter(comp for level, comp, _ in recs if level in ERRORS)
    lines = [line for _, _, rec in recs for line in rec]
    data = "\n".join(lines).encode()
    # odd bits: a blank line, a line of invalid bytes, a CRLF record line, a cut last line
    k = data.index(b"\n", len(data) // 3)
    data = data[:k] + b"\n\n\xff\xfe garbage" + data[k:]
    k = data.index(b"\n", len(data) // 2)
    data = data[:k] + b"\r" + data[k:] + b"\n2024-03-05 1"
    truth = {
        "format": fmt,
        "records": n,
        "errors_by_component": dict(sorted(errors.items())),
    }
    return data, truth


def main() -> None:
    """Write every app sample and its sidecar into ``sample_logs/``."""
    out = Path(__file__).resolve().parents[2] / "sample_logs"
    for name, (fmt, make) in BUILDERS.items():
        data, truth = build(name, fmt, make)
        (out / name).write_bytes(data)
        (out / f"{name}.expected.json").write_text(json.dumps(truth, indent=2) + "\n")


if __name__ == "__main__":
    main()
