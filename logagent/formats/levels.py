"""One level vocabulary for every application format (PURE).

Levels become one of ``FATAL``, ``ERROR``, ``WARN``, ``INFO``, ``DEBUG``,
``TRACE`` (null when a record has no level or an unknown one). What maps where:

* words, any case: FATAL/CRITICAL/CRIT/EMERG/ALERT/PANIC/FAILURE -> FATAL (FAILURE is
  Blue Gene/L's level of a hardware failure, the last of its levels, after FATAL: it is
  FATAL here, the most severe level there is);
  ERROR/ERR/SEVERE -> ERROR; WARN/WARNING -> WARN; INFO/NOTICE -> INFO;
  DEBUG/FINE/CONFIG -> DEBUG; TRACE/FINER/FINEST/VERBOSE/trace1..8 -> TRACE;
* one letter (glog/klog ``E0102``, logback ``%.-1level``): F E W I D T;
* syslog severity numbers 0-7 (from ``<PRI>``, PRI % 8): 0-2 -> FATAL
  (emerg, alert, crit), 3 -> ERROR, 4 -> WARN, 5-6 -> INFO, 7 -> DEBUG;
* pino/bunyan numbers: 60 FATAL, 50 ERROR, 40 WARN, 30 INFO, 20 DEBUG, 10 TRACE.

A layout whose numbers or letters mean something else (Nextcloud's 0-4, MongoDB's
D1..D5) brings a vocabulary of its own (``JsonLayout.level_map``), which
``normalize_level`` reads instead of ``LEVEL_MAP``.

"Errors" are ``ERROR`` and ``FATAL`` (``ERROR_LEVELS``). Syslog lines without
a ``<PRI>`` carry no level: ``level_from_message`` infers one from words in
the message (documented in the README), which is the best such logs allow.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

#: The level words a wrapped program's message may start with (container logs: compose, CRI,
#: Docker's JSON ``log``), as written, in upper or lower case.
INNER_LEVEL_WORDS = (
    r"TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL|PANIC|"
    r"trace|debug|info|warn|warning|error|fatal|critical|panic"
)
#: A bracketed level, closed, after four or five words (gunicorn's ``[ts +0000] [37] [INFO]``);
#: a bracket that only starts with a level word (``[error-cleanup]``) is none.
INNER_BRACKET = r"(?:[^ ]+ ){4,5}?\[(?P<level>" + INNER_LEVEL_WORDS + r")\] "
#: The Elastic stack's log4j2 line, no blank between its brackets: Kibana 8's, Elasticsearch's
#: and Logstash's ``[2025-05-05T07:54:20.748+00:00][WARN ][config.deprecation] msg``.
INNER_ELASTIC = r"\[[^\]\[ ]+\]\[(?P<level>" + INNER_LEVEL_WORDS + r") *\]\["

FATAL, ERROR, WARN, INFO, DEBUG, TRACE = "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"
LEVELS = (FATAL, ERROR, WARN, INFO, DEBUG, TRACE)
ERROR_LEVELS = (FATAL, ERROR)

_WORDS: dict[str, tuple[str, ...]] = {
    # FTL, WRN, INF, DBG, VRB: Serilog's short levels; V and A: Android's verbose and assert
    FATAL: (
        *("FATAL", "CRITICAL", "CRIT", "EMERG", "EMERGENCY", "ALERT", "PANIC", "F", "FTL", "A"),
        "FAILURE",  # Blue Gene/L's RAS log: a hardware failure
    ),
    # EROR: log15 (Grafana, go-ethereum); ERRO: logrus' and supervisord's four letters
    ERROR: ("ERROR", "ERR", "SEVERE", "E", "EROR", "ERRO"),
    WARN: ("WARN", "WARNING", "W", "WRN"),
    # AUDIT: OpenStack oslo.log; NOTE/SYSTEM: MySQL; LOG: PostgreSQL
    INFO: (
        *("INFO", "INFORMATION", "INFORMATIONAL", "NOTICE", "I", "AUDIT", "NOTE", "SYSTEM"),
        *("LOG", "INF"),
    ),
    DEBUG: (  # log15's DBUG, supervisord's DEBG; lnav's DEBUG2..5 (as TRACE1..8 are TRACE)
        *("DEBUG", "FINE", "CONFIG", "D", "DBG", "DBUG", "DEBG"),
        *("DDEBUG", "SUBDEBUG"),  # dnf's (and anaconda's packaging.log) below DEBUG
        *(f"DEBUG{i}" for i in range(1, 10)),
    ),
    TRACE: (
        "TRACE",
        "FINER",
        "FINEST",
        "VERBOSE",
        "T",
        "V",
        "VRB",
        "TRAC",  # supervisord's, and its BLAT (below trace)
        "BLAT",
        *(f"TRACE{i}" for i in range(1, 9)),
    ),
}
_NUMBERS = {
    **{str(n): FATAL for n in (0, 1, 2, 60)},
    "3": ERROR,
    "50": ERROR,
    "4": WARN,
    "40": WARN,
    **{str(n): INFO for n in (5, 6, 30)},
    "7": DEBUG,
    "20": DEBUG,
    "10": TRACE,
}
#: java.util.logging's level names as a JVM in another locale writes them (its
#: ``logging_xx`` resources: Tomcat's catalina.out on a Chinese server writes 严重, 警告, 信息;
#: probe K). One word each; German's "AM FEINSTEN" and such are left out (``JUL_LEVELS``).
JUL_LOCALIZED: dict[str, str] = {
    **dict.fromkeys(("严重", "嚴重", "重大", "심각", "SCHWERWIEGEND", "GRAVE"), ERROR),
    **dict.fromkeys(
        ("警告", "경고", "WARNUNG", "AVERTISSEMENT", "ADVERTENCIA", "AVVERTENZA"), WARN
    ),
    **dict.fromkeys(("信息", "資訊", "情報", "정보", "INFOS"), INFO),
    **dict.fromkeys(("配置", "構成", "详细", "詳細", "KONFIGURATION", "FEIN"), DEBUG),
    **dict.fromkeys(("较详细", "較詳細", "非常详细", "非常詳細", "FEINER"), TRACE),
}
LEVEL_MAP: dict[str, str] = {
    **{word: level for level, words in _WORDS.items() for word in words},
    **_NUMBERS,
}
#: The levels of a java.util.logging layout (Tomcat, Jenkins): the shared ones and the
#: localized names (pairs, as ``AppRegexFormat.level_map`` holds them). Not shared: "WARNUNG"
#: holds "WARN", and the literal prefilters of other layouts would pass its lines.
JUL_LEVELS = tuple({**LEVEL_MAP, **JUL_LOCALIZED}.items())

#: .NET's console logger (Microsoft.Extensions.Logging): its four-letter levels.
DOTNET_LEVELS = (
    ("TRCE", TRACE),
    ("DBUG", DEBUG),
    ("INFO", INFO),
    ("WARN", WARN),
    ("FAIL", ERROR),
    ("CRIT", FATAL),
)

#: Message words that give a syslog line without ``<PRI>`` its level, most severe first: the
#: last word of a hyphenated one counts (``read-error``, ``ATA-error``), not one a hyphen
#: follows (kubelet's ``FLAG: --fail-swap-on="true"`` had been an ERROR record; probe L), nor
#: one after ``non-`` (``NEGATED`` is taken out first).
_ALONE, _END = r"\b", r"(?:[^\w-]|$)"
NEGATED = r"(?i)\bnon-\w+"
MESSAGE_LEVEL_WORDS: tuple[tuple[str, str], ...] = (
    (FATAL, r"(?i)" + _ALONE + r"(?:fatal|panic|emerg(?:ency)?|critical)" + _END),
    (ERROR, r"(?i)" + _ALONE + r"(?:error|errors|err|failed|failure|fail)" + _END),
    (WARN, r"(?i)" + _ALONE + r"(?:warn|warning)" + _END),
)


def normalize_level(raw: pl.Expr, level_map: Mapping[str, str] = LEVEL_MAP) -> pl.Expr:
    """The vocabulary level of a raw level string or number (null when unknown); ``level_map``:
    a layout's own raw values (stripped, upper case) and their levels, instead of the shared
    ``LEVEL_MAP`` (Nextcloud's 1 is INFO, a syslog 1 is FATAL)."""
    key = raw.cast(pl.String).str.strip_chars().str.to_uppercase()
    return key.replace_strict(dict(level_map), default=None, return_dtype=pl.String)


def level_from_pri(pri: pl.Expr) -> pl.Expr:
    """The level of a syslog ``<PRI>`` (severity = PRI mod 8); null when absent or invalid."""
    severity = pri.cast(pl.Int32, strict=False)
    ok = severity.is_between(0, 191)
    return pl.when(ok).then(normalize_level((severity % 8).cast(pl.String)))


#: A level the message names first thing, which its other words do not overrule: ganglia's
#: ``Warning: we failed to resolve ...``, ProFTPD's ``warning: can't verify hostname: ...
#: failed``, Chromium's ``[0701/114930:WARNING:dns_config_service_posix.cc(306)] Failed to
#: read DnsConfig.``, ``[ERROR] ...``, NetworkManager's ``<info> ...``, Python's
#: ``ERROR:root:...``. The word ends at a colon or a closing bracket ("Errors: 0" is no tag).
MESSAGE_TAG = (
    r"(?i)^\s*(?:\[[^\]\s]*:|[\[<(])?(emerg|emergency|alert|crit|critical|fatal|panic|err"
    r"|error|severe|warn|warning|notice|info|information|informational|debug|trace|verbose)"
    r"(?::|[\]>)])"
)
#: klog's letter and stamp opening the message (``E0512 04:54:38.885907 2473 kubelet.go:2359]
#: ...``: Kubernetes components in a journal or syslog): the letter is the level (probe L:
#: a kubelet's 44 E and 22 W records had been read from their words, ERROR 90, no WARN).
KLOG_TAG = r"^\s*([IWEF])[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} "
#: Counts of none, which name no failure: ``errors=0``, ``failed = 0`` (Windows Update's
#: "succeeded with errors = 0, failed = 0"), ``failures: 0,``, ``no errors``; not a code
#: (``failed=0x80240022``). Only counters: "Connection failed: 0 bytes received" and "Login
#: failed: 0 attempts left" are failures (a review found them read as INFO).
NO_ERRORS = (
    r"(?i)\b(?:errors?|failures?|failed|fails?|err) ?= ?0+(?:[^0-9.x]|$)"
    # Windows Update's callbacks of success: "... with code Call progress and error 0"
    r"|\b(?:and|with) error 0+(?:[^0-9.x]|$)"
    r"|\b(?:errors|failures)\s*:\s*0+\s*(?:[,;)\]}]|$)"
    r"|\b(?:0|no|zero|without)\s+(?:errors?|failures?)\b"
    # systemd's "X was skipped because of a failed condition check (ConditionPathExists=...)":
    # a unit not needed here (probe P: 46 of a Rocky Linux journal's 54 systemd "errors")
    r"|\bbecause of a failed condition check\b|\bbecause all trigger condition checks failed\b"
)


#: Phrases of routine messages whose level words name no event: Linux's boot lines on every
#: machine (the RAS collector, PCIe DPC's capabilities, a mount's ``errors=`` option, i915's
#: panic notifier), ACPI's thermal notice of a missing threshold, ``sensors``' limits and a
#: D-Bus message's fields (probe S: a kern.log's 22 "errors" were all of these, and three
#: logs' FATAL records were the panic notifier, the threshold notice and ``emerg = +135°C``).
ROUTINE = (
    r"(?i)\bcorrectable errors collector\b|\berror containment capabilities\b"
    r"|\berrors=(?:remount-ro|continue|panic)\b|\bpanic notifier\b"
    r"|\bno or invalid critical threshold\b|\bemerg = [+-]"
    # D-Bus's rejection's fields, not any "type=error" (a review: an app's <result
    # type="error"> is an error)
    r'|\berror name="\(unset\)"|\bmatched rules; type="error"'
)
#: GLib's level marker, after its ``** (prog:pid): `` or ``(prog:pid): `` head and a log
#: domain (``Gs-WARNING **: Failed to ...``): the program's own level, which its words do not
#: overrule (probe S: GNOME's ``WARNING **: Failed to ...`` lines had been ERROR records).
#: g_error() aborts the program (FATAL); g_critical() is GLib's error (``GLIB_LEVELS``).
GLIB_TAG = (
    r"^\s*(?:\*\* )?(?:\([^()]*\): )?(?:[A-Za-z0-9_.-]+-)?"
    r"(ERROR|CRITICAL|WARNING|Message|INFO|DEBUG) \*\*: "
)
GLIB_LEVELS = {
    "ERROR": FATAL, "CRITICAL": ERROR, "WARNING": WARN, "MESSAGE": INFO, "INFO": INFO,
    "DEBUG": DEBUG,
}  # fmt: skip


#: Addresses and URLs, whose words name no failure: a spammer's sender in a mail log,
#: ``from=<High.Power.Emergency.Flashlight@ftsmt.top>`` or ``Heart-Attack-Warning@...``, had
#: made FATAL and WARN records of Postfix's qmgr lines (probe H: 31 such lines in one log).
ADDRESSES = r"[^\s<>()\[\]\"',;]+@[^\s<>()\[\]\"',;]+|\b[A-Za-z][A-Za-z0-9+.-]*://[^\s<>\"]+"


def level_from_message(message: pl.Expr) -> pl.Expr:
    """The level ``message`` names first thing (``MESSAGE_TAG``, klog's letter ``KLOG_TAG``,
    GLib's marker ``GLIB_TAG``), else the one its words suggest outside addresses, URLs and
    routine phrases (``ADDRESSES``, ``ROUTINE``; most severe wins; counts of none,
    ``NO_ERRORS``, left out), else INFO.

    Addresses and counts of none are looked for in the messages with such a word only (the
    others are empty strings to it): on every message it cost 5x the rest (1 M syslog
    messages: 0.17 s before it, 0.91 s with it on all)."""
    out: pl.Expr = pl.lit(INFO)
    worded = pl.any_horizontal([message.str.contains(p) for _, p in MESSAGE_LEVEL_WORDS])
    words = pl.when(worded).then(message).otherwise(pl.lit("")).str.replace_all(ADDRESSES, " ")
    words = words.str.replace_all(NEGATED, " ").str.replace_all(ROUTINE, " ")
    for level, pattern in reversed(MESSAGE_LEVEL_WORDS):
        text = words.str.replace_all(NO_ERRORS, " ") if level == ERROR else words
        out = pl.when(text.str.contains(pattern)).then(pl.lit(level)).otherwise(out)
    tagged = normalize_level(message.str.extract(MESSAGE_TAG, 1))
    klog = normalize_level(message.str.extract(KLOG_TAG, 1))
    glib = normalize_level(message.str.extract(GLIB_TAG, 1), GLIB_LEVELS)
    return pl.coalesce(tagged, klog, glib, out)


def is_error(level: pl.Expr) -> pl.Expr:
    """Whether a normalized level is an error (ERROR or FATAL)."""
    return level.is_in(ERROR_LEVELS)
