"""Layouts of self-hosted services' own logs: Gitea and Vaultwarden (PURE).

Both were refused as unknown layouts on real logs (crowdsecurity/hub's test logs, a
probe of real logs): Gitea writes a level initial in brackets after the Go file and
function that logged (``[I]``), Vaultwarden (Rust, ``fern``) brackets the stamp, the
module path and the level with no blank between them. Each names where it logged:
Gitea the Go file, Vaultwarden the Rust module, the component.
"""

from __future__ import annotations

from logagent.formats.app import AppRegexFormat
from logagent.formats.apptimes import HMS as _HMS
from logagent.formats.levels import DEBUG, ERROR, FATAL, INFO, TRACE, WARN
from logagent.formats.serverlogs import ISO_TIMES

_GITEA_STAMP = r"[0-9]{4}/[0-9]{2}/[0-9]{2} " + _HMS + r"(?:\.[0-9]+)?"
#: Gitea's level initials (``modules/log``): Critical and Fatal end the process.
GITEA_LEVELS = (
    ("T", TRACE), ("D", DEBUG), ("I", INFO), ("W", WARN), ("E", ERROR), ("C", FATAL),
    ("F", FATAL),
)  # fmt: skip
GITEA = AppRegexFormat(
    name="gitea",
    patterns=(
        r"^(?P<ts>" + _GITEA_STAMP + r") "
        # the file (its path cut from the left: "...ers/web/auth/auth.go"), line and function
        r"(?:[^ ]*?(?P<component>[^/ ]+\.go):[0-9]+:[^ ]*\(\) )?"
        r"\[(?P<level>[TDIWECF])\] (?:\[[0-9a-f]+(?:-[0-9a-f]+)*\] )?(?P<message>.*)$",
    ),
    min_line_bytes=24,
    time_formats=("%Y/%m/%d %H:%M:%S%.f", "%Y/%m/%d %H:%M:%S"),
    record_start=_GITEA_STAMP + " ",
    head_component=True,
    level_map=GITEA_LEVELS,
    description="Gitea (ts file.go:line:func() [I] msg): component = the Go file; "
    "[E] is ERROR, [C] and [F] FATAL",
    example="2022/03/01 12:57:58 ...ers/web/auth/auth.go:200:SignInPost() [I] Failed "
    "authentication attempt for test from 1.1.1.1:39522",
)

_ISO = r"[0-9]{4}-[0-9]{2}-[0-9]{2}[ T]" + _HMS + r"(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?"
VAULTWARDEN = AppRegexFormat(
    name="vaultwarden",
    patterns=(
        r"^\[(?P<ts>" + _ISO + r")\]\[(?P<component>[^\]]+)\]"
        r"\[(?P<level>TRACE|DEBUG|INFO|WARN|ERROR)\] (?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=ISO_TIMES,
    record_start=r"\[" + _ISO + r"\]\[",
    description="Vaultwarden and other Rust fern logs ([ts][module::path][LEVEL] msg): "
    "component = module path",
    example="[2022-02-03 16:10:11.219][vaultwarden::api::identity][ERROR] Username or "
    "password is incorrect. Try again. IP: ::1.",
)
