"""Independent reference readers of the real-system samples: plain Python, one line at a time.

Written apart from the layouts' Polars regexes: each reader splits a record's first
line with str methods (and small ``re`` matches) and returns (level, component), or
None when the line starts no record (a continuation, a blank). Levels use the
vocabulary of ``logagent.formats.levels``; a component the line does not name is
the error kind: up to four leading words of the message.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable

Reading = tuple[str | None, str] | None
LEVELS = {
    "FATAL": "FATAL", "CRITICAL": "FATAL", "PANIC": "FATAL", "CRIT": "FATAL", "EMERG": "FATAL",
    "ERROR": "ERROR", "ERR": "ERROR", "SEVERE": "ERROR",
    "WARN": "WARN", "WARNING": "WARN",
    "INFO": "INFO", "NOTICE": "INFO", "NOTE": "INFO", "SYSTEM": "INFO", "LOG": "INFO",
    "AUDIT": "INFO", "DEBUG": "DEBUG", "TRACE": "TRACE",
    "30": "INFO", "40": "WARN", "50": "ERROR", "60": "FATAL", "20": "DEBUG", "10": "TRACE",
    "3": "ERROR", "4": "WARN", "6": "INFO", "E": "ERROR", "W": "WARN", "I": "INFO", "F": "FATAL",
}  # fmt: skip
WORD_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./()'-")


def level(raw: str) -> str | None:
    return LEVELS.get(raw.strip().upper())


def kind(message: str) -> str:
    """Up to four leading words made of letters and a few signs (no digits first)."""
    while message.startswith("[") and "] " in message:
        message = message.split("] ", 1)[1]
    words = []
    for word in message.split(" "):
        if len(words) == 4 or not word or not (word[0].isalpha() or word[0] == "_"):
            break
        if not all(c in WORD_CHARS for c in word):
            break
        words.append(word)
    return " ".join(words).rstrip(" :,.;-") or "-"


def kafka(line: str) -> Reading:
    if not re.match(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] ", line):
        return None
    rest = line[26:]
    if rest.startswith("["):  # state-change 2.2: [LEVEL] [thread] [logger] - msg
        parts = rest.split("] ", 3)
        return level(parts[0][1:]), parts[2][1:]
    lvl, _, msg = rest.partition(" ")
    msg = msg.rstrip(" ")
    if msg.endswith(")") and " (" in msg:
        return level(lvl), msg[msg.rindex(" (") + 2 : -1]
    return level(lvl), "-"


def zookeeper(line: str) -> Reading:
    parts = line.split(" - ", 2)
    if len(parts) < 3 or not re.match(r"\d{4}-\d\d-\d\d ", parts[0]):
        return None
    lvl, _, bracket = parts[1].partition(" ")
    inner = bracket.strip()[1:-1]  # thread:Class@line
    return level(lvl), inner.rsplit(":", 1)[-1].split("@")[0]


def oslo(line: str) -> Reading:
    tokens = line.split(" ")
    if not re.match(r"\d{4}-\d\d-\d\d$", tokens[0]):
        tokens = tokens[1:]  # the log file's name
    if len(tokens) < 5 or not re.match(r"\d{4}-\d\d-\d\d$", tokens[0]):
        return None
    return level(tokens[3]), tokens[4]


def apache_error(line: str) -> Reading:
    m = re.match(r"\[(?:[^\]]+)\] \[([^\]]+)\] (.*)$", line)
    if not m:
        return None
    module, _, lvl = m[1].rpartition(":")
    msg = m[2]
    if msg.startswith("[client ") and "] " in msg:
        msg = msg.split("] ", 1)[1]
    return level(lvl), module or kind(msg)


def syslog(line: str) -> Reading:
    m = re.match(r"[A-Z][a-z]{2} +\d+ [\d:]+ \S+ ([^\s:\[\]]+)(?:\[\d+\])?: ?(.*)$", line)
    if not m:
        return None
    msg = m[2]
    if re.search(r"(?i)\b(fatal|panic|emerg|emergency|critical)\b", msg):
        return "FATAL", m[1]
    if re.search(r"(?i)\b(error|errors|err|failed|failure|fail)\b", msg):
        return "ERROR", m[1]
    if re.search(r"(?i)\b(warn|warning)\b", msg):
        return "WARN", m[1]
    return "INFO", m[1]


def elasticsearch(line: str) -> Reading:
    if not re.match(r"\[\d{4}-\d\d-\d\dT", line):
        return None
    _, lvl, logger = (p.strip() for p in line[1:].split("]", 3)[:3])
    return level(lvl.lstrip("[")), logger.lstrip("[").strip()


def postgres(line: str) -> Reading:
    m = re.match(
        r"\d{4}-\d\d-\d\d [\d:.]+ \S+ \[[\d-]+\] (?:(\S*@\S*) )?([A-Z]+[1-5]?):  (.*)$", line
    )
    if not m or m[2] in ("DETAIL", "HINT", "STATEMENT", "CONTEXT", "QUERY", "LOCATION"):
        return None
    return level(m[2]), m[1] or kind(m[3])


def mysql(line: str) -> Reading:
    if line.startswith("InnoDB: "):
        return None, "InnoDB"
    if line.startswith("ERROR: "):
        return "ERROR", kind(line[7:])
    m = re.match(r"(?:\d{4}-\d\d-\d\dT[\d:.]+Z \d+|\d{6} +[\d:]+) +(.*)$", line)
    if not m:
        return None
    rest = m[1]
    if rest.startswith("InnoDB: "):
        return None, "InnoDB"
    lvl, _, rest = rest[1:].partition("] ")
    if rest.startswith("[MY-"):
        return level(lvl), rest.split("] ", 2)[1][1:]
    return level(lvl), kind(rest)


def nginx_error(line: str) -> Reading:
    m = re.match(r"\d{4}/\d\d/\d\d [\d:]+ \[(\w+)\] \d+#\d+: (?:\*\d+ )?(.*)$", line)
    return (level(m[1]), kind(m[2])) if m else None


def cri(line: str) -> Reading:
    parts = line.split(" ", 3)
    if len(parts) < 4 or parts[1] not in ("stdout", "stderr"):
        return None
    return level(parts[3][0]), kind(parts[3])


def docker_json(line: str) -> Reading:
    log = json.loads(line)["log"]
    return level(log.split(" ")[1]), kind(log.rstrip("\n"))


def journald(line: str) -> Reading:
    obj = json.loads(line)
    return level(obj["PRIORITY"]), obj["SYSLOG_IDENTIFIER"]


def zap(line: str) -> Reading:
    parts = line.split("\t")
    return (level(parts[1]), parts[2]) if len(parts) >= 4 else None


def pino(line: str) -> Reading:
    obj = json.loads(line)
    return level(str(obj["level"])), obj["name"]


def zeek(line: str) -> Reading:
    return None, "-"


READERS: dict[str, Callable[[str], Reading]] = {
    "kafka": kafka,
    "zookeeper": zookeeper,
    "oslo": oslo,
    "apache_error": apache_error,
    "syslog3164": syslog,
    "elasticsearch": elasticsearch,
    "postgres": postgres,
    "mysql": mysql,
    "nginx_error": nginx_error,
    "cri": cri,
    "docker_json": docker_json,
    "journald": journald,
    "zap": zap,
    "pino": pino,
    "zeek": zeek,
}
#: Sample file -> its layout.
SAMPLES = {
    "kafka_server.log": "kafka",
    "zookeeper.log": "zookeeper",
    "openstack_nova.log": "oslo",
    "apache13_error.log": "apache_error",
    "linux_syslog.log": "syslog3164",
    "elasticsearch.log": "elasticsearch",
    "postgres.log": "postgres",
    "mysql_error.log": "mysql",
    "nginx_error.log": "nginx_error",
    "cri_handmade.log": "cri",
    "docker_handmade.log": "docker_json",
    "journald_handmade.json": "journald",
    "zap_handmade.log": "zap",
    "pino_handmade.jsonl": "pino",
    "zeek_handmade.jsonl": "zeek",
}
RANK = {"FATAL": 0, "ERROR": 1, "WARN": 2}


def reference(text: str, fmt: str, at_least: str) -> Counter[str]:
    """Records per component at ``at_least`` (ERROR: ERROR+FATAL; WARN: and WARN)."""
    out = Counter[str]()
    for line in text.split("\n"):
        found = READERS[fmt](line.removesuffix("\r")) if line.strip() else None
        if found is not None and RANK.get(found[0] or "", 9) <= RANK[at_least]:
            out[found[1]] += 1
    return out
