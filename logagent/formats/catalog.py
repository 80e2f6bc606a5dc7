"""Every format by name: built-in access and application formats, and custom ones (PURE).

The order of ``ACCESS_NAMES`` and ``APP_NAMES`` is the tie-break of
detection: a more specific format comes before one that also parses its
lines (``hadoop`` before ``log4j``, ``syslog5424`` before ``syslog3164``,
``jsonl`` before ``jsonapp``). ``NESTED`` lists such pairs: a tie between
them is expected and not ambiguous.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeAlias

from logagent.errors import FormatError
from logagent.formats.app import KIND_NOTE, AppFormat
from logagent.formats.appkeys import auto_app_mapping, key_order, names_component
from logagent.formats.applogs import (
    APACHE_ERROR,
    BGL,
    HADOOP,
    LOG4J,
    PYTHON,
    RUBY,
    SUPERVISORD,
    SYSLOG5424,
    THUNDERBIRD,
    golog,
    log15,
    logcat,
    redis,
    syslog3164,
)
from logagent.formats.apptimes import YearOf
from logagent.formats.base import Format
from logagent.formats.cilogs import GITHUB_ACTIONS
from logagent.formats.custom import CustomFormat
from logagent.formats.daemonlogs import (
    FAST_ALERTS,
    HEALTHAPP,
    HPC,
    MOSQUITTO,
    MSSQL_ERRORLOG,
    OPENVPN,
    WINDOWS_UPDATE,
    charon,
    mongodb_legacy,
    proxifier,
)
from logagent.formats.desktoplogs import DESKTOP_LAYOUTS
from logagent.formats.generic import NAME as GENERIC
from logagent.formats.generic import describe as describe_generic
from logagent.formats.generic import infer_generic
from logagent.formats.javalogs import JUL
from logagent.formats.jsonaccess import JSON_ACCESS_LAYOUTS
from logagent.formats.jsonlayouts import JSON_LAYOUTS
from logagent.formats.platformlogs import PLATFORM_LAYOUTS
from logagent.formats.proxies import PROXY_LAYOUTS
from logagent.formats.serverlogs import (
    COMPOSE,
    CRI,
    ELASTICSEARCH,
    KAFKA,
    MONOLOG,
    MYSQL,
    NGINX_ERROR,
    OSLO,
    POSTGRES,
    SPDLOG,
    ZAP,
    ZEROLOG,
    ZOOKEEPER,
)
from logagent.formats.structured import JsonAppFormat, LogfmtFormat
from logagent.formats.systemlogs import AUDITD, CLOUD_INIT, FAIL2BAN, PGBOUNCER
from logagent.formats.textlogs import (
    ASTERISK,
    CAPNSLOG,
    DMESG,
    LOGRUS_TEXT,
    LOGURU,
    NPM_DEBUG,
    PASSENGER,
    RABBITMQ_LEGACY,
    SQUID_CACHE,
    XORG,
)
from logagent.formats.w3c import W3C_LAYOUTS
from logagent.formats.webservers import HAPROXY_TCP
from logagent.formats.zeektsv import ZEEK_TSV

AnyFormat: TypeAlias = Format | AppFormat

ACCESS_NAMES = (
    "combined",
    "common",
    *(f.name for f in JSON_ACCESS_LAYOUTS),
    "jsonl",
    *(f.name for f in (*PROXY_LAYOUTS, *W3C_LAYOUTS)),
)
SERVER_LAYOUTS = (
    KAFKA, ZOOKEEPER, OSLO, ELASTICSEARCH, POSTGRES, MYSQL, NGINX_ERROR, ZAP, ZEROLOG, CRI, MONOLOG,
    COMPOSE, SPDLOG,
)  # fmt: skip
#: The loghub supercomputer logs: a head no other layout reads, then their own fields.
HPC_LAYOUTS = (BGL, THUNDERBIRD)
_FIXED: dict[str, AppFormat] = {
    f.name: f
    for f in (
        *SERVER_LAYOUTS, *PLATFORM_LAYOUTS, *DESKTOP_LAYOUTS, *HPC_LAYOUTS, AUDITD, CLOUD_INIT,
        FAIL2BAN, PGBOUNCER, HAPROXY_TCP, GITHUB_ACTIONS, JUL, SUPERVISORD, RUBY, *JSON_LAYOUTS,
        LOGRUS_TEXT, ASTERISK, RABBITMQ_LEGACY, LOGURU, CAPNSLOG, DMESG, XORG, PASSENGER,
        SQUID_CACHE, NPM_DEBUG, FAST_ALERTS, OPENVPN, MOSQUITTO, WINDOWS_UPDATE, HEALTHAPP, HPC,
        MSSQL_ERRORLOG,
    )
}  # fmt: skip
APP_NAMES = (
    *(f.name for f in SERVER_LAYOUTS),
    *(f.name for f in PLATFORM_LAYOUTS),
    *(f.name for f in DESKTOP_LAYOUTS),
    *(f.name for f in HPC_LAYOUTS),
    AUDITD.name,
    CLOUD_INIT.name,
    FAIL2BAN.name,
    PGBOUNCER.name,
    HAPROXY_TCP.name,
    GITHUB_ACTIONS.name,
    LOGRUS_TEXT.name,
    ASTERISK.name,
    RABBITMQ_LEGACY.name,
    "hadoop",
    "log4j",
    # after hadoop: its INFO/WARN lines with "name: " are hadoop's too, and ties go to hadoop;
    # its CRIT/ERRO lines are no hadoop records
    SUPERVISORD.name,
    "python",
    RUBY.name,
    "golog",
    "log15",
    "logcat",
    "redis",
    "apache_error",
    "syslog5424",
    "syslog3164",
    JUL.name,  # late: its "LEVEL: msg" lines are uvicorn's and PostgreSQL's ones too
    # the layouts of probes S-U, after the established ones: a tie goes to those (a review:
    # mongodb_legacy had taken logback's "ISO+hhmm [thread] LEVEL logger - msg" lines)
    LOGURU.name,
    CAPNSLOG.name,
    DMESG.name,  # before xorg: a dmesg line is no Xorg line, though xorg reads its shape
    XORG.name,
    PASSENGER.name,
    SQUID_CACHE.name,
    NPM_DEBUG.name,
    FAST_ALERTS.name,
    OPENVPN.name,
    "charon",
    MOSQUITTO.name,
    WINDOWS_UPDATE.name,
    "mongodb_legacy",
    HEALTHAPP.name,
    "proxifier",
    HPC.name,
    MSSQL_ERRORLOG.name,
    *(f.name for f in JSON_LAYOUTS),
    ZEEK_TSV.name,
    "jsonapp",
    "logfmt",
    GENERIC,
)
NESTED = frozenset(
    {
        ("hadoop", "log4j"),
        ("jsonl", "jsonapp"),
        ("log4j", "syslog3164"),
        ("zerolog", "syslog3164"),  # its "stamp LVL caller" reads as "stamp host program"
        *((f.name, "jsonapp") for f in JSON_LAYOUTS),
        ("bunyan", "pino"),
        ("caddy", "zap_json"),  # Caddy writes its access log with zap
        ("cloudnative_pg", "zap_json"),  # and CloudNativePG its operator's
        ("bunyan", "slog_json"),
        ("pino", "slog_json"),
        *((f.name, other) for f in JSON_ACCESS_LAYOUTS for other in ("jsonl", "jsonapp")),
        ("haproxy", "syslog3164"),  # HAProxy logs through syslog
        (HAPROXY_TCP.name, "syslog3164"),
        ("squid", "syslog3164"),  # so may Squid
        ("elb", "syslog3164"),  # "stamp name client:port ..." reads as "stamp host tag: ..."
        (AUDITD.name, "logfmt"),  # its kernel records are key=value pairs
        ("uvicorn", "jul"),  # "INFO:     msg" is a JUL record's second line too
    }
)
#: Layouts whose records carry no level at all: a level condition cannot hold on them.
NO_LEVEL = frozenset({"zeek", ZEEK_TSV.name})
#: What a result on each layout must say (levels or components it could only infer).
_WORDS_NOTE = "levels were inferred from words in the message (error, failed, warning...)"
FORMAT_NOTES: dict[str, str] = {
    "syslog3164": f"{_WORDS_NOTE} on lines without a <PRI>: syslog wrote no severity there",
    THUNDERBIRD.name: f"{_WORDS_NOTE}: Thunderbird's syslog lines carry no severity",
    "lighttpd": f"{_WORDS_NOTE}: lighttpd's error log carries no level",
    DMESG.name: f"{_WORDS_NOTE}: the kernel's ring buffer carries no level (dmesg -x writes it)",
    SQUID_CACHE.name: f"{_WORDS_NOTE} where Squid's cache.log tags none (ERROR:, WARNING:)",
    "zeek": "Zeek logs carry no level: level questions do not apply to them",
    ZEEK_TSV.name: "Zeek logs carry no level: level questions do not apply to them",
    AUDITD.name: (
        "the audit log writes no level: ERROR is a record whose outcome failed (res=failed or 0, "
        "success=no, an AVC denial) or an anomaly (ANOM_*), INFO one that succeeded; records "
        "without an outcome have none"
    ),
    GENERIC: (
        "the layout was inferred from sampled lines (generic): timestamp, level and component "
        "are guesses; see logagent detect"
    ),
    "generic_access": (
        "no access layout names this log: records are the lines with a quoted request line and "
        "the status after it (generic_access); a custom format in configs/formats/ reads it exactly"
    ),
    **{
        n: KIND_NOTE
        for n in (
            "apache_error",
            "nginx_error",
            "postgres",
            "mysql",
            "cri",
            "docker_json",
            "redis",
            "rabbitmq",
            SUPERVISORD.name,
            "serilog",
            "gunicorn",
        )
    },
}

DESCRIPTIONS: dict[str, str] = {
    "combined": "nginx/apache combined access log, optional trailing fields",
    "common": "apache/nginx common access log (CLF)",
    "jsonl": "JSON lines access log, status/path keys found automatically",
    **{f.name: f.description for f in (*JSON_ACCESS_LAYOUTS, *PROXY_LAYOUTS, *W3C_LAYOUTS)},
    **{f.name: f.description for f in (HADOOP, LOG4J, PYTHON, APACHE_ERROR, SYSLOG5424)},
    "golog": golog().description,
    "log15": log15().description,
    "logcat": logcat().description,
    "redis": redis().description,
    "syslog3164": syslog3164().description,
    "charon": charon().description,
    "mongodb_legacy": mongodb_legacy().description,
    "proxifier": proxifier().description,
    "jsonapp": JsonAppFormat().description,
    "logfmt": LogfmtFormat().description,
    **{name: f.description for name, f in _FIXED.items()},  # one list of the fixed layouts
    ZEEK_TSV.name: ZEEK_TSV.description,
    GENERIC: describe_generic(),
}


def _keyed(
    kind: type[JsonAppFormat] | type[LogfmtFormat],
    mapping: dict[str, str],
    sample: Sequence[str],
    *,
    logfmt: bool = False,
) -> JsonAppFormat | LogfmtFormat:
    """A JSON or logfmt app format of ``mapping``; one whose sampled records name no component
    ranks them by their error kind (``KeyedFields.head_component``)."""
    named = names_component(sample, mapping, logfmt=logfmt) or not sample
    if kind is JsonAppFormat:
        return JsonAppFormat(mapping=mapping, head_component=not named, key_order=key_order(sample))
    return kind(mapping=mapping, head_component=not named)


def is_app(fmt: AnyFormat) -> bool:
    """Whether a format yields application-log columns (level, component, message)."""
    return hasattr(fmt, "record_start")


def describe_formats(custom: Mapping[str, CustomFormat] = {}) -> list[tuple[str, str, str]]:
    """(name, kind, one-line description) of every format, built-in first."""
    rows = [(n, "access", DESCRIPTIONS[n]) for n in ACCESS_NAMES]
    rows += [(n, "app", DESCRIPTIONS[n]) for n in APP_NAMES]
    rows += [(n, "app" if is_app(f) else "access", f.description) for n, f in custom.items()]
    return rows


def build_any_format(
    name: str,
    sample: Sequence[str],
    *,
    json_keys: Mapping[str, str] | None = None,
    year: YearOf = None,
    custom: Mapping[str, CustomFormat] = {},
) -> AnyFormat:
    """The format called ``name`` (access, app or custom), fitted to the sample (keys, year)."""
    from logagent.formats.detect import build_format  # detect imports this module

    if name in ACCESS_NAMES:
        return build_format(name, sample, json_keys)
    from logagent.formats.mixed import APP_MIXES, FirstOf, combined_app, part_names

    parts = part_names(name)  # what a result names ``input.format`` (cron pins it)
    if parts and all(p in ACCESS_NAMES for p in parts):
        return FirstOf(tuple(build_format(p, sample, json_keys) for p in parts))
    if parts and frozenset(parts) in APP_MIXES:
        built = [build_any_format(p, sample, json_keys=json_keys, year=year) for p in parts]
        combined = combined_app(built)
        if combined is not None:
            return combined
    if name in custom:
        return custom[name]
    builders: dict[str, Callable[[], AppFormat]] = {
        "hadoop": lambda: HADOOP,
        "log4j": lambda: LOG4J,
        "python": lambda: PYTHON,
        "apache_error": lambda: APACHE_ERROR,
        "syslog5424": lambda: SYSLOG5424,
        "syslog3164": lambda: syslog3164(year),
        "golog": lambda: golog(year),
        "log15": lambda: log15(year),
        "logcat": lambda: logcat(year),
        "redis": lambda: redis(year),
        "charon": lambda: charon(year),
        "mongodb_legacy": lambda: mongodb_legacy(year),
        "proxifier": lambda: proxifier(year),
        "jsonapp": lambda: _keyed(JsonAppFormat, auto_app_mapping(sample, json_keys), sample),
        "logfmt": lambda: _keyed(
            LogfmtFormat, auto_app_mapping(sample, json_keys, logfmt=True), sample, logfmt=True
        ),
        ZEEK_TSV.name: lambda: ZEEK_TSV.fit(sample),
        GENERIC: lambda: infer_generic(sample),
    }
    if name in _FIXED:
        return _FIXED[name]
    if name in builders:
        return builders[name]()
    known = ", ".join(("auto", *ACCESS_NAMES, *APP_NAMES, *custom))
    raise FormatError(f"unknown format {name!r} (known: {known})", format=name)
