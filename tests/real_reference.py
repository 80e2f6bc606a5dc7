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

from tests.real_json_reference import JSON_READERS, JSON_SAMPLES
from tests.real_more_reference import MORE_READERS, MORE_SAMPLES, inner_level

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
    errno = re.match(r"\([0-9]+\)", message)  # Apache's "(13)Permission denied"
    message = message[errno.end() :] if errno else message
    words: list[str] = []
    for word in message.split(" "):
        if len(words) == 4 or not word or not (word[0].isalpha() or word[0] == "_"):
            break
        last = word.endswith(":") and not word.endswith("::")  # "Error: ..." ends the kind
        bare = word[:-1] if last else word
        if not all(c in WORD_CHARS for c in bare.replace("::", "")) or bare.endswith("::"):
            break
        words.append(bare)
        if last:
            break
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
    # host, then the program (up to three words before a pid: macOS writes "Microsoft
    # Word[96]:"; or a word and a version), a pid, launchd's "(detail)", the colon
    m = re.match(
        r"[A-Z][a-z]{2} +\d+ [\d:]+ \S+ ([^\s:\[\]]+|(?:[^\s:\[\]]+ ){1,2}[^\s:\[\]]+(?=\[\d)"
        r"|[^\s:\[\]]+ [\d.]+(?=:))(?:\[\d+\])?(?: \([^()]*\))?: ?(.*)$",
        line,
    )
    if not m:
        return None
    return message_level(m[2]), m[1]


#: Words that name a level when a message starts with one (``Warning:``, ``[ERROR]``,
#: ``<info>``, ``[0701/114930:WARNING:file.cc(306)]``), as the levels table reads them.
TAGS = {"emerg": "FATAL", "emergency": "FATAL", "alert": "FATAL", "crit": "FATAL",
        "critical": "FATAL", "fatal": "FATAL", "panic": "FATAL", "err": "ERROR",
        "error": "ERROR", "severe": "ERROR", "warn": "WARN", "warning": "WARN",
        "notice": "INFO", "info": "INFO", "information": "INFO", "informational": "INFO",
        "debug": "DEBUG", "trace": "TRACE", "verbose": "TRACE"}  # fmt: skip


def message_level(msg: str) -> str:
    """A level-less line's level: the one its message names first thing, else the most
    severe its words suggest (counts of none, ``errors=0``, ``no errors``, suggest none)."""
    head = msg.lstrip()
    if head.startswith("["):  # Chromium's [pid/stamp:LEVEL:file(line)]: a part after a colon
        parts = head[1:].split("]", 1)[0].split(":")
        for k in range(1, len(parts)):
            before, word = ":".join(parts[:k]), parts[k]
            if not any(c.isspace() for c in before) and word.lower() in TAGS:
                return TAGS[word.lower()]
    if head[:1] in "[<(":
        head = head[1:]
    word = re.match(r"([A-Za-z]+)[:\]>)]", head)
    if word and word[1].lower() in TAGS:
        return TAGS[word[1].lower()]
    klog = re.match(r"([IWEF])\d{4} \d\d:\d\d:\d\d\.\d{6} ", msg.lstrip())  # klog's letter
    if klog:
        return {"I": "INFO", "W": "WARN", "E": "ERROR", "F": "FATAL"}[klog[1]]
    # GLib's "[** ][(prog:pid): ][Domain-]LEVEL **: " (g_error aborts; g_critical is its error)
    rest = msg.lstrip().removeprefix("** ")
    if rest.startswith("(") and "): " in rest and "(" not in rest[1 : rest.index("): ")]:
        rest = rest[rest.index("): ") + 3 :]
    head = rest.split(" **: ", 1)[0] if " **: " in rest else ""
    glib = head.rsplit("-", 1)[-1] if head and " " not in head else ""
    glib_levels = {"ERROR": "FATAL", "CRITICAL": "ERROR", "WARNING": "WARN", "Message": "INFO",
                   "INFO": "INFO", "DEBUG": "DEBUG"}  # fmt: skip
    if glib in glib_levels:
        return glib_levels[glib]
    # an address or URL names no failure: a word of the message is outside them (mail logs'
    # spam senders, High.Power.Emergency.Flashlight@...)
    words = " ".join(w for w in msg.split() if "@" not in w.strip("<>()[],;\"'") and "://" not in w)
    words = re.sub(r"(?i)\b(errors?|failures?|failed|fails?|err) ?= ?0+(?![0-9.x])", " ", words)
    words = re.sub(r"(?i)\b(and|with) error 0+(?![0-9.x])", " ", words)
    words = re.sub(r"(?i)\b(errors|failures) *: *0+ *(?=[,;)\]}]|$)", " ", words)
    words = re.sub(r"(?i)\b(0|no|zero|without) +(errors?|failures?)\b", " ", words)
    words = re.sub(  # systemd's units not needed here
        r"(?i)\bbecause (?:of a failed condition check|all trigger condition checks failed)\b",
        " ",
        words,
    )
    # routine phrases: Linux boot lines, ACPI's threshold notice, sensors' limits, D-Bus fields
    for phrase in ("correctable errors collector", "error containment capabilities",
                   "errors=remount-ro", "errors=continue", "errors=panic", "panic notifier",
                   "no or invalid critical threshold", "emerg = +", "emerg = -",
                   'error name="(unset)"', 'matched rules; type="error"'):  # fmt: skip
        at = words.lower().find(phrase)
        while at >= 0:
            words = words[:at] + " " + words[at + len(phrase) :]
            at = words.lower().find(phrase)
    # the last word of a hyphenated one counts (read-error), not one a hyphen follows
    # (--fail-swap-on, error-cleanup), nor one after non- (non-fatal)
    words = re.sub(r"(?i)\bnon-\w+", " ", words)
    if re.search(r"(?i)\b(fatal|panic|emerg|emergency|critical)(?![\w-])", words):
        return "FATAL"
    if re.search(r"(?i)\b(error|errors|err|failed|failure|fail)(?![\w-])", words):
        return "ERROR"
    if re.search(r"(?i)\b(warn|warning)(?![\w-])", words):
        return "WARN"
    return "INFO"


#: Blue Gene/L's RAS levels as it writes them; FAILURE (a hardware failure) comes after FATAL.
BGL_LEVELS = {"INFO": "INFO", "WARNING": "WARN", "SEVERE": "ERROR", "ERROR": "ERROR",
              "FATAL": "FATAL", "FAILURE": "FATAL"}  # fmt: skip


def bgl(line: str) -> Reading:
    """``alert epoch date node stamp node type COMPONENT LEVEL message``, split on spaces; the
    stamp is ``YYYY-MM-DD-HH.MM.SS.ffffff``."""
    parts = line.split(" ", 9)
    if len(parts) < 9 or not parts[1].isdigit() or parts[8] not in BGL_LEVELS:
        return None
    if not re.fullmatch(r"\d{4}-\d\d-\d\d-\d\d\.\d\d\.\d\d\.\d+", parts[4]):
        return None
    return BGL_LEVELS[parts[8]], parts[7]


def thunderbird(line: str) -> Reading:
    """``alert epoch date node``, then a syslog line with its host, read by ``syslog``."""
    parts = line.split(" ", 4)
    if len(parts) < 5 or not parts[1].isdigit() or not re.fullmatch(r"\d{4}\.\d\d\.\d\d", parts[2]):
        return None
    return syslog(parts[4])


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
    """The error kind; a message opening with the quoted file it names (``"/x" is not
    found (2: ...)``): the lower-case words after it."""
    m = re.match(r"\d{4}/\d\d/\d\d [\d:]+ \[(\w+)\] \d+#\d+: (?:\*\d+ )?(.*)$", line)
    if not m:
        return None
    named = re.match(r'"[^"]*" ([a-z][a-z ]*[a-z])(?: \(|,|$)', m[2])
    return level(m[1]), named[1] if named else kind(m[2])


#: Level words a container's message may start a word with (as written, upper or lower case).
def cri(line: str) -> Reading:
    """``<RFC 3339 time> <stdout|stderr> <F|P> <message>``: each line one entry (a ``P`` entry's
    continuation is its own line, as the runtime wrote it)."""
    parts = line.split(" ", 3)
    if len(parts) < 4 or parts[1] not in ("stdout", "stderr") or parts[2] not in ("F", "P"):
        return None
    return inner_level(parts[3]), kind(parts[3])


def docker_json(line: str) -> Reading:
    try:
        log = json.loads(line)["log"]
    except (ValueError, KeyError, TypeError):  # not a json-file entry (beats' corrupted line)
        return None
    words = log.split(" ")
    return level(words[1]) if len(words) > 1 else None, kind(log.rstrip("\n"))


#: journald's PRIORITY is a syslog severity: 0-2 emerg/alert/crit, 3 err, 4 warning, 5-6, 7 debug.
SYSLOG_SEVERITY = {"0": "FATAL", "1": "FATAL", "2": "FATAL", "3": "ERROR", "4": "WARN",
                   "5": "INFO", "6": "INFO", "7": "DEBUG"}  # fmt: skip


def journald(line: str) -> Reading:
    obj = json.loads(line)
    return SYSLOG_SEVERITY.get(obj["PRIORITY"]), obj["SYSLOG_IDENTIFIER"]


def zap(line: str) -> Reading:
    parts = line.split("\t")
    return (level(parts[1]), parts[2]) if len(parts) >= 4 else None


def zap_json(line: str) -> Reading:
    obj = json.loads(line)
    return level(obj["level"]), obj.get("caller") or obj.get("logger") or "-"


def pino(line: str) -> Reading:
    obj = json.loads(line)
    return level(str(obj["level"])), obj.get("name", "-")


def bunyan(line: str) -> Reading:
    obj = json.loads(line)
    return level(str(obj["level"])), obj["name"]


def ecs(line: str) -> Reading:
    obj = json.loads(line)
    logger = obj.get("log.logger") or (obj.get("log") or {}).get("logger") or "-"
    return level(obj["log.level"]), logger


def slog_json(line: str) -> Reading:
    """Go slog JSONHandler (and logrus' JSON): component = ``source.file`` (AddSource), else
    the message's error kind, as ``slog_text``'s."""
    obj = json.loads(line)
    source = obj.get("source")
    named = source.get("file") if isinstance(source, dict) else None
    return level(obj["level"]), named or kind(obj["msg"])


def logfmt_pairs(line: str) -> dict[str, str]:
    """``key=value`` pairs, a quoted value unescaped (scanned with str.find, no regex)."""
    out: dict[str, str] = {}
    i, n = 0, len(line)
    while i < n:
        eq = line.find("=", i)
        if eq < 0:
            break
        key = line[i:eq]
        i = eq + 1
        if line[i : i + 1] == '"':
            value, i = [], i + 1
            while i < n and line[i] != '"':
                if line[i] == "\\" and i + 1 < n:
                    i += 1
                value.append(line[i])
                i += 1
            out[key], i = "".join(value), i + 2
        else:
            end = line.find(" ", i)
            end = n if end < 0 else end
            out[key], i = line[i:end], end + 1
    return out


def slog_text(line: str) -> Reading:
    """Go slog TextHandler: ``time=… level=WARN msg=…``; component = source (AddSource), else
    the message's error kind (the log names no component: logagent ranks kinds then; the one
    such log here writes no ``source`` on any line)."""
    pairs = logfmt_pairs(line)
    if "level" not in pairs or "msg" not in pairs:
        return None
    return level(pairs["level"]), pairs.get("source") or kind(pairs["msg"])


def log4j(line: str) -> Reading:
    """Spring Boot's ``ts LEVEL pid --- [thread] logger : msg`` (the logger column padded,
    abbreviated from the left), or logback's unconfigured ``HH:MM:SS.mmm [thread] LEVEL logger -
    msg``; any other line continues a record (stack traces, blank lines)."""
    if re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} ", line) and " --- " in line:
        head, rest = line.split(" --- ", 1)
        for _ in range(2):  # [app] (Spring Boot 3.2+), then [thread]
            if rest.startswith("["):
                rest = rest[rest.index("]") + 1 :].lstrip(" ")
        logger = rest.split(" : ", 1)[0] if " : " in rest else rest.rstrip(" :")
        return level(head.split()[2]), logger.rstrip(" ")
    if re.match(r"\d\d:\d\d:\d\d\.\d{3} \[", line):
        words = line[line.index("] ") + 2 :].split(" ", 2)
        return level(words[0]), words[1]
    return None


def zeek(line: str) -> Reading:
    return None, "-"


def zeek_tsv(line: str) -> Reading:
    return None if line.startswith("#") else (None, "-")  # "#" lines are directives


READERS: dict[str, Callable[[str], Reading]] = {
    "kafka": kafka,
    "zookeeper": zookeeper,
    "oslo": oslo,
    "apache_error": apache_error,
    "syslog3164": syslog,
    "bgl": bgl,
    "thunderbird": thunderbird,
    "elasticsearch": elasticsearch,
    "postgres": postgres,
    "mysql": mysql,
    "nginx_error": nginx_error,
    "cri": cri,
    "docker_json": docker_json,
    "journald": journald,
    "zap": zap,
    "zap_json": zap_json,
    "pino": pino,
    "bunyan": bunyan,
    "ecs_json": ecs,
    "zeek": zeek,
    "zeek_tsv": zeek_tsv,
    "logfmt": slog_text,
    "log4j": log4j,
    "slog_json": slog_json,
    **JSON_READERS,
    **MORE_READERS,
}
#: Sample file -> its layout.
SAMPLES = {
    "kafka_server.log": "kafka",
    "zookeeper.log": "zookeeper",
    "openstack_nova.log": "oslo",
    "apache13_error.log": "apache_error",
    "linux_syslog.log": "syslog3164",
    "macos_syslog.log": "syslog3164",
    "macos_keystone.log": "syslog3164",
    "bgl.log": "bgl",
    "thunderbird.log": "thunderbird",
    "elasticsearch.log": "elasticsearch",
    "postgres.log": "postgres",
    "mysql_error.log": "mysql",
    "nginx_error.log": "nginx_error",
    "cri_handmade.log": "cri",
    "cri_otel.log": "cri",
    "docker_handmade.log": "docker_json",
    "docker_beats.log": "docker_json",
    "journald.json": "journald",
    "zap_console.log": "zap",
    "caddy_zap.jsonl": "zap_json",
    "pino.jsonl": "pino",
    "bunyan.jsonl": "bunyan",
    "ecs.json": "ecs_json",
    "zeek_dns.jsonl": "zeek",
    "zeek_dns.log": "zeek_tsv",
    "miniflux_slog.log": "logfmt",
    "springboot_tidb.log": "log4j",
    "slog_humanlog.jsonl": "slog_json",
    **JSON_SAMPLES,
    **MORE_SAMPLES,
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


# The access layouts' readers live in real_access_reference, Zeek's answers in
# real_zeek_reference; re-exported for the tests.
from tests.real_access_reference import (  # noqa: E402, F401
    ACCESS_KEYS,
    ACCESS_READERS,
    ACCESS_SAMPLES,
    Access,
    access_records,
    access_reference,
    raw_route,
    route,
    w3c_records,
)
from tests.real_zeek_reference import zeek_reference, zeek_tsv_rows  # noqa: E402, F401
